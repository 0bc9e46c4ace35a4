/* SPDX-License-Identifier: MIT */
/* use.h - the corpus of tests/plugin/use.sh and its driver. */
#include <stddef.h>

void use_bytes(char *p);
int parse(const char *p, size_t n);
int clear_then_read(char *p, size_t n);
int offset_read(char *p, size_t n, int k);
int moved_then_read(char *p, size_t n);
void clear(char *p, size_t n);
int other_object(char *p, char *q, size_t n);
int call_first(char *p, size_t n);
void stores_only(int *p, size_t n);
int far_read(char *p, size_t n, const int *v);
