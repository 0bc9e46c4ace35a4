/* tests/plugin/kernel/window.c - calls before, inside and after a
 * user-access window, for kernel.sh: a site only where the window is
 * closed on every path that reaches the call (@site), none where it
 * may be open (@left).  stac and clac as the kernel spells them, and
 * user_access_save()/restore()'s pushf;clac and popf. */
typedef unsigned long size_t;

static inline void stac(void) { asm volatile(".byte 0x0f,0x01,0xcb" ::: "memory"); }
static inline void clac(void) { asm volatile(".byte 0x0f,0x01,0xca" ::: "memory"); }

static inline unsigned long save(void)
{
	unsigned long f;

	asm volatile("pushf; pop %0; .byte 0x0f,0x01,0xca" : "=rm"(f) :: "memory");
	return f;
}

static inline void restore(unsigned long f)
{
	asm volatile("push %0; popf" :: "g"(f) : "memory", "cc");
}

void before_after(char *p, char *u, size_t n)
{
	__builtin_memset(p, 0, n); /* @site */
	stac();
	__builtin_memset(u, 0, n); /* @left */
	clac();
	__builtin_memset(p + n, 1, n); /* @site */
}

void loop(char *p, size_t n, int k)
{
	for (int i = 0; i < k; i++) {
		__builtin_memset(p, 0, n); /* @left: open from the back edge */
		stac();
		p[i] = 1;
		if (p[i + 1])
			clac();
	}
}

void branch(char *p, size_t n, int k)
{
	if (k)
		stac();
	__builtin_memset(p, 0, n); /* @left: open on one path */
	clac();
	__builtin_memset(p, 2, n); /* @site */
}

void saved(char *p, size_t n)
{
	unsigned long f = save();

	__builtin_memset(p, 0, n); /* @site: closed by the save */
	restore(f);
	__builtin_memset(p, 3, n); /* @left: the restore may open it */
}
