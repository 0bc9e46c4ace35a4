/* tests/plugin/aggregate/agg.c - struct copies and clears that GCC
 * expands into memcpy/memset calls at RTL time, one F() a size: those
 * marked @big are the sizes GCC calls for (from 8193 bytes, generic
 * tuning) except at -Os; the others GCC moves inline and no site may
 * touch.  The functions of each size:
 *   site_cp   *a = *b through pointers       a site
 *   site_gl   one global assigned another     a site
 *   site_mc   memcpy(&g, &h, sizeof g)        a site (folded to g = h)
 *   site_clr  *a = (struct){0}                a site (a clear)
 *   site_init a local { .b[1] = 7 }, copied   two sites (GCC fills the local
 *                                            from a constant image, a copy)
 *   site_ret  return *b into the caller's     a site
 *             slot
 *   site_res  g = site_ret(&h): a result      a site (GCC returns it into
 *             the callee might see               a temporary and copies)
 *   keep_vol  a volatile destination          left alone, GCC's call
 *   keep_arg  a by-value argument             GCC's call, no candidate
 *   keep_gs   __seg_gs on both sides          GCC's loop, no candidate
 * agg.h has main(), built only in user space (-DKERNEL: the unit
 * alone). */
#ifndef KERNEL
#include <string.h>
#else
#define memcpy __builtin_memcpy
#endif

#define F(n)								\
struct s##n { unsigned char b[n]; };					\
struct s##n g##n##_a, g##n##_b;						\
__attribute__((noipa)) void site_cp##n(struct s##n *a, const struct s##n *b) { *a = *b; } \
__attribute__((noipa)) void site_gl##n(void) { g##n##_a = g##n##_b; }	\
__attribute__((noipa)) void site_mc##n(void) { memcpy(&g##n##_b, &g##n##_a, sizeof(g##n##_b)); } \
__attribute__((noipa)) void site_clr##n(struct s##n *a) { *a = (struct s##n){ 0 }; } \
__attribute__((noipa)) void site_init##n(struct s##n *out, unsigned char v) { struct s##n x = { .b[1] = 7 }; x.b[n - 1] = v; *out = x; } \
__attribute__((noipa)) struct s##n site_ret##n(const struct s##n *b) { return *b; } \
__attribute__((noipa)) void site_res##n(const struct s##n *b) { g##n##_a = site_ret##n(b); } \
__attribute__((noipa)) void keep_vol##n(struct s##n *a, const struct s##n *b) { *(volatile struct s##n *)a = *b; } \
__attribute__((noipa)) unsigned take##n(struct s##n x) { return x.b[0] + x.b[n - 1]; } \
__attribute__((noipa)) unsigned keep_arg##n(const struct s##n *b) { return take##n(*b); } \
__attribute__((noipa)) void keep_gs##n(__seg_gs struct s##n *a, const __seg_gs struct s##n *b) { *a = *b; }

F(16)
F(136)
F(256)
F(8192)
F(8193) /* @big */
F(9000) /* @big */
F(16384) /* @big */

#ifndef KERNEL
#include "agg.h"
#endif
