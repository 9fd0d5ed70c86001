/* arena.c — bump allocator; see arena.h. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

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
		free(c);
	}
	free(a);
}

void *
arena_alloc(Arena *a, size_t n)
{
	Chunk *c = a->head;
	size_t cap;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (!c || c->cap - c->used < n) {
		cap = n > 65536 ? n : 65536;
		c = malloc(sizeof *c + cap);
		if (!c)
			ice("out of memory");
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
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
