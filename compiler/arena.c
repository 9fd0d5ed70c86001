/*
 * arena.c — bump allocator; see arena.h.
 *
 * Chunks are 2 MiB anonymous mappings (larger for a larger object), advised as transparent
 * huge pages: the kernel hands them out zeroed, so nothing is cleared here, and a module of
 * 200,000 kernels costs a few hundred page faults instead of a hundred thousand (page faults
 * were most of the front end's time). Objects are 8-byte aligned; none is ever freed alone.
 *
 * Under AddressSanitizer every allocation is followed by a poisoned gap of at least 16 bytes
 * and the unused rest of a chunk stays poisoned, so reading or writing past an object (a node
 * of a smaller kind, an array pushed past its capacity) is reported like a heap overflow
 * instead of silently touching the next object.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arena.h"

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define REDZONE 16
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define REDZONE 0
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define CHUNK_BYTES ((size_t)2 << 20)

typedef struct Chunk Chunk;
struct Chunk {
	Chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

struct Arena {
	Chunk *head;
};

_Noreturn void
ice_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "flyc: internal compiler error at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

Arena *
arena_new(void)
{
	Arena *a = calloc(1, sizeof *a);

	if (!a)
		ice("out of memory");
	return a;
}

void
arena_free(Arena *a)
{
	Chunk *c, *n;

	if (!a)
		return;
	for (c = a->head; c; c = n) {
		n = c->next;
		UNPOISON(c->data, c->cap);
		munmap(c, sizeof *c + c->cap);
	}
	free(a);
}

void *
arena_alloc(Arena *a, size_t n)
{
	Chunk *c = a->head;
	size_t cap, want = n, step;
	void *p;

	if (n > SIZE_MAX / 2)
		ice("out of memory");
	step = ((n + 7) & ~(size_t)7) + REDZONE;
	if (!c || c->cap - c->used < step) {
		cap = step > CHUNK_BYTES - sizeof *c ? step : CHUNK_BYTES - sizeof *c;
		c = mmap(NULL, sizeof *c + cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			ice("out of memory");
		madvise(c, sizeof *c + cap, MADV_HUGEPAGE);
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
		POISON(c->data, cap);
	}
	p = c->data + c->used;
	c->used += step;
	UNPOISON(p, want);
	return p;
}

void *
arena_grow(Arena *a, void *v, int n, size_t elem)
{
	void *nv;

	if (n == 0 || !v)
		return arena_alloc(a, elem * 4);
	if (n < 4 || (n & (n - 1)))
		return v;
	nv = arena_alloc(a, elem * (size_t)n * 2);
	memcpy(nv, v, elem * (size_t)n);
	return nv;
}

char *
arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *
arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *
arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		ice("bad format");
	p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
