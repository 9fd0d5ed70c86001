/*
 * arena.h — bump allocation for one compilation.
 *
 * Everything the front end builds (tokens' strings, AST nodes, types, sema
 * tables) lives in one Arena and is released by arena_free(). Passes never
 * free individual objects. Allocation never fails silently: if the system has
 * no memory left, arena_alloc aborts through ice() — there is no sane recovery
 * from OOM here. Memory comes zeroed in 2 MiB chunks (arena.c).
 */
#ifndef FLYC_ARENA_H
#define FLYC_ARENA_H

#include <stddef.h>

typedef struct Arena Arena;

Arena *arena_new(void);
void   arena_free(Arena *a);
/* Zeroed, 8-byte aligned memory of n bytes (the front end's objects hold no wider types). */
void  *arena_alloc(Arena *a, size_t n);
/* Copy of s[0..n) with a terminating NUL. */
char  *arena_strndup(Arena *a, const char *s, size_t n);
char  *arena_strdup(Arena *a, const char *s);
/* Room for element n of an array v of n elements of elem bytes that only ever grows by one:
 * the capacity is implicit (4, then the next power of two >= n), so v is copied only when n
 * reaches a power of two and pushing N elements costs O(N) time and memory in total. */
void  *arena_grow(Arena *a, void *v, int n, size_t elem);
#define ARENA_PUSH(a, v, n, x) ((v) = arena_grow((a), (v), (n), sizeof *(v)), (v)[(n)++] = (x))
/* printf into the arena. */
char  *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_NEWN(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* Internal compiler error: prints file:line and the message, then aborts. */
_Noreturn void ice_at(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define ice(...) ice_at(__FILE__, __LINE__, __VA_ARGS__)

#endif
