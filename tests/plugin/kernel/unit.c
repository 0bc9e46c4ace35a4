/* A kernel unit in miniature for tests/plugin/kernel.sh: the kernel's
 * own names where kernel mode looks for them (struct alt_instr, which
 * it checks against the tree's header: -DALT14 for a 6.3+ tree,
 * current_stack_pointer, the stac bytes, start_kernel). */
typedef int s32;
typedef unsigned short u16;
typedef unsigned char u8;

#ifndef ALT14
/* Linux 5.13 to 6.2 */
struct alt_instr {
	s32 instr_offset;
	s32 repl_offset;
	u16 cpuid;
	u8 instrlen;
	u8 replacementlen;
} __attribute__((packed));
#else
/* Linux 6.3 onwards: the feature word grew flags. */
struct alt_instr {
	s32 instr_offset;
	s32 repl_offset;
	union {
		struct {
			unsigned int cpuid: 16;
			unsigned int flags: 16;
		};
		unsigned int ft_flags;
	};
	u8 instrlen;
	u8 replacementlen;
} __attribute__((packed));
#endif

register unsigned long current_stack_pointer asm("rsp");

/* As alternative.c reads an entry: the type in the unit's code, where
 * the LLVM pass can see it too. */
u8 alt_len(const struct alt_instr *a) { return a->instrlen; }

void *memset(void *, int, unsigned long);
void *memcpy(void *, const void *, unsigned long);
void *memmove(void *, const void *, unsigned long);

void set(char *p, int c, unsigned long n) { memset(p, c, n); }
void zero(char *p, unsigned long n) { memset(p, 0, n); }
void copy(char *p, const char *q, unsigned long n) { memcpy(p, q, n); }
void move(char *p, const char *q, unsigned long n) { memmove(p, q, n); }

char buf[4096];
void shift_down(unsigned long n) { memmove(buf, buf + 8, n); }

void user_window(char *p, unsigned long n)
{
	asm volatile(".byte 0x0f,0x01,0xcb" ::: "memory");	/* stac */
	memset(p, 0, n);
	asm volatile(".byte 0x0f,0x01,0xca" ::: "memory");	/* clac */
}

__attribute__((section(".head.text"))) void early(char *p, unsigned long n)
{
	memset(p, 0, n);
}

#ifdef VMLINUX
void start_kernel(void) { }
#endif
