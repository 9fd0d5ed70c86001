/*
 * lay_core.c — the arena, error context, symbolic integer expressions,
 * value constructors and the CuTe-notation printer of the layout algebra.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/lay.h"

/* ------------------------------------------------------------ arena --- */

typedef struct chunk {
	struct chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char mem[];
} chunk;

struct lay_arena {
	chunk *head;
};

lay_arena *
lay_arena_new(void)
{
	return calloc(1, sizeof(lay_arena));
}

void
lay_arena_free(lay_arena *a)
{
	chunk *k, *n;

	if (!a)
		return;
	for (k = a->head; k; k = n) {
		n = k->next;
		free(k);
	}
	free(a);
}

void *
lay_alloc(lay_arena *a, size_t n)
{
	chunk *k = a->head;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (!k || k->cap - k->used < n) {
		size_t cap = n > 60000 ? n : 60000;
		k = malloc(sizeof(chunk) + cap);
		if (!k)
			return NULL;
		k->cap = cap;
		k->used = 0;
		k->next = a->head;
		a->head = k;
	}
	p = k->mem + k->used;
	k->used += n;
	memset(p, 0, n);
	return p;
}

char *
lay_strdup(lay_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = lay_alloc(a, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

void
lay_ctx_init(lay_ctx *c, lay_arena *a)
{
	memset(c, 0, sizeof *c);
	c->arena = a;
}

void *
lay_fail(lay_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return NULL;
	c->failed = 1;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof c->err, fmt, ap);
	va_end(ap);
	return NULL;
}

void
lay_clear_error(lay_ctx *c)
{
	c->failed = 0;
	c->err[0] = 0;
}

static void *
alloc(lay_ctx *c, size_t n)
{
	void *p = lay_alloc(c->arena, n);

	if (!p)
		lay_fail(c, "out of memory");
	return p;
}

/* ------------------------------------------------------- expressions --- */

static int64_t
gcd64(int64_t a, int64_t b)
{
	if (a < 0) a = -a;
	if (b < 0) b = -b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static lay_expr *
new_expr(lay_ctx *c, lay_expr_kind k)
{
	lay_expr *e = alloc(c, sizeof *e);

	if (e) {
		e->kind = k;
		e->div = 1;
	}
	return e;
}

const lay_expr *
lay_e_const(lay_ctx *c, int64_t v)
{
	lay_expr *e = new_expr(c, LAY_E_CONST);

	if (e) {
		e->value = v;
		e->div = v == INT64_MIN ? 1 : v < 0 ? -v : v;
	}
	return e;
}

const lay_expr *
lay_e_var(lay_ctx *c, const char *name, int id, int64_t div)
{
	lay_expr *e = new_expr(c, LAY_E_VAR);

	if (e) {
		e->name = lay_strdup(c->arena, name);
		e->id = id;
		e->div = div > 0 ? div : 1;
	}
	return e;
}

int
lay_e_known(const lay_expr *e)
{
	return e && e->kind == LAY_E_CONST;
}

int
lay_e_is_const(const lay_expr *e, int64_t v)
{
	return e && e->kind == LAY_E_CONST && e->value == v;
}

/* Divisibility: "multiple of d" facts combine; 0 means the value is 0. */
static int
multiple_of(const lay_expr *e, int64_t d)
{
	if (d == 0)
		return 0;
	if (e->div == 0)
		return 1;
	return e->div % d == 0;
}

static int
fold(lay_ctx *c, lay_expr_kind k, int64_t x, int64_t y, int64_t *r)
{
	switch (k) {
	case LAY_E_ADD: if (__builtin_add_overflow(x, y, r)) goto ovf; return 0;
	case LAY_E_SUB: if (__builtin_sub_overflow(x, y, r)) goto ovf; return 0;
	case LAY_E_MUL: if (__builtin_mul_overflow(x, y, r)) goto ovf; return 0;
	case LAY_E_DIV:
	case LAY_E_MOD:
	case LAY_E_CDIV:
		if (y == 0) {
			lay_fail(c, "division by zero");
			return -1;
		}
		if (x == INT64_MIN && y == -1)
			goto ovf;
		if (k == LAY_E_DIV) *r = x / y;
		else if (k == LAY_E_MOD) *r = x % y;
		else {
			int64_t t;
			if (__builtin_add_overflow(x, y - 1, &t)) goto ovf;
			*r = t / y;   /* CuTe: (a + b - 1) / b */
		}
		return 0;
	case LAY_E_MIN: *r = x < y ? x : y; return 0;
	case LAY_E_MAX: *r = x > y ? x : y; return 0;
	case LAY_E_XOR: *r = x ^ y; return 0;
	case LAY_E_AND: *r = x & y; return 0;
	case LAY_E_OR:  *r = x | y; return 0;
	case LAY_E_SHL:
		if (y < 0) { *r = y <= -63 ? (x < 0 ? -1 : 0) : x >> -y; return 0; }
		if (y > 62) goto ovf;
		if (__builtin_mul_overflow(x, (int64_t)1 << y, r)) goto ovf;
		return 0;
	case LAY_E_SHR:
		if (y < 0) {
			if (-y > 62 || __builtin_mul_overflow(x, (int64_t)1 << -y, r)) goto ovf;
			return 0;
		}
		*r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
		return 0;
	default:
		break;
	}
	lay_fail(c, "internal: bad expression kind");
	return -1;
ovf:
	lay_fail(c, "integer overflow");
	return -1;
}

const lay_expr *
lay_e_neg(lay_ctx *c, const lay_expr *a)
{
	lay_expr *e;

	if (!a)
		return NULL;
	if (a->kind == LAY_E_CONST) {
		if (a->value == INT64_MIN)
			return lay_fail(c, "integer overflow");
		return lay_e_const(c, -a->value);
	}
	if (a->kind == LAY_E_NEG)
		return a->a;
	e = new_expr(c, LAY_E_NEG);
	if (e) {
		e->a = a;
		e->div = a->div;
	}
	return e;
}

static int expr_equal(const lay_expr *a, const lay_expr *b);

const lay_expr *
lay_e_bin(lay_ctx *c, lay_expr_kind k, const lay_expr *a, const lay_expr *b)
{
	lay_expr *e;
	int64_t r;

	if (!a || !b)
		return NULL;
	if (a->kind == LAY_E_CONST && b->kind == LAY_E_CONST) {
		if (fold(c, k, a->value, b->value, &r))
			return NULL;
		return lay_e_const(c, r);
	}
	if ((k == LAY_E_DIV || k == LAY_E_MOD || k == LAY_E_CDIV) && lay_e_is_const(b, 0))
		return lay_fail(c, "division by zero");
	/* algebraic identities; the other operand is symbolic */
	switch (k) {
	case LAY_E_ADD:
		if (lay_e_is_const(a, 0)) return b;
		if (lay_e_is_const(b, 0)) return a;
		if (a->kind == LAY_E_CONST) { const lay_expr *t = a; a = b; b = t; }  /* x + k */
		/* (x + k1) + k2 -> x + (k1 + k2) */
		if (b->kind == LAY_E_CONST && a->kind == LAY_E_ADD && a->b->kind == LAY_E_CONST)
			return lay_e_bin(c, LAY_E_ADD, a->a, lay_e_bin(c, LAY_E_ADD, a->b, b));
		break;
	case LAY_E_SUB:
		if (lay_e_is_const(b, 0)) return a;
		if (expr_equal(a, b)) return lay_e_const(c, 0);
		if (b->kind == LAY_E_CONST && b->value != INT64_MIN)   /* x - k -> x + (-k) */
			return lay_e_bin(c, LAY_E_ADD, a, lay_e_const(c, -b->value));
		/* (x + y) - y -> x */
		if (a->kind == LAY_E_ADD && expr_equal(a->b, b)) return a->a;
		if (a->kind == LAY_E_ADD && expr_equal(a->a, b)) return a->b;
		break;
	case LAY_E_MUL:
		if (lay_e_is_const(a, 0) || lay_e_is_const(b, 0)) return lay_e_const(c, 0);
		if (lay_e_is_const(a, 1)) return b;
		if (lay_e_is_const(b, 1)) return a;
		if (a->kind == LAY_E_CONST) { const lay_expr *t = a; a = b; b = t; }  /* x * k */
		if (b->kind == LAY_E_CONST && a->kind == LAY_E_MUL && a->b->kind == LAY_E_CONST) {
			const lay_expr *k2 = lay_e_bin(c, LAY_E_MUL, a->b, b);
			return lay_e_bin(c, LAY_E_MUL, a->a, k2);
		}
		break;
	case LAY_E_DIV:
	case LAY_E_CDIV:
		if (lay_e_is_const(b, 1)) return a;
		if (lay_e_is_const(a, 0)) return a;
		if (b->kind == LAY_E_CONST && b->value > 0) {
			/* (x*k)/d with d | k -> x*(k/d) */
			if (a->kind == LAY_E_MUL && a->b->kind == LAY_E_CONST && a->b->value % b->value == 0)
				return lay_e_bin(c, LAY_E_MUL, a->a, lay_e_const(c, a->b->value / b->value));
			if (k == LAY_E_CDIV && multiple_of(a, b->value))
				k = LAY_E_DIV;   /* exact division */
		}
		if (expr_equal(a, b)) return lay_e_const(c, 1);
		/* (x*y)/y -> x: exact */
		if (a->kind == LAY_E_MUL && expr_equal(a->b, b)) return a->a;
		if (a->kind == LAY_E_MUL && expr_equal(a->a, b)) return a->b;
		break;
	case LAY_E_MOD:
		if (lay_e_is_const(b, 1)) return lay_e_const(c, 0);
		if (b->kind == LAY_E_CONST && multiple_of(a, b->value)) return lay_e_const(c, 0);
		if (lay_e_is_const(a, 0)) return a;
		break;
	case LAY_E_MIN:
	case LAY_E_MAX:
		if (a == b) return a;
		break;
	case LAY_E_XOR:
	case LAY_E_OR:
		if (lay_e_is_const(a, 0)) return b;
		if (lay_e_is_const(b, 0)) return a;
		if (a == b && k == LAY_E_XOR) return lay_e_const(c, 0);
		break;
	case LAY_E_AND:
		if (lay_e_is_const(a, 0) || lay_e_is_const(b, 0)) return lay_e_const(c, 0);
		break;
	case LAY_E_SHL:
	case LAY_E_SHR:
		if (lay_e_is_const(b, 0)) return a;
		if (lay_e_is_const(a, 0)) return a;
		break;
	default:
		break;
	}
	e = new_expr(c, k);
	if (!e)
		return NULL;
	e->a = a;
	e->b = b;
	switch (k) {
	case LAY_E_ADD:
	case LAY_E_SUB:
		e->div = (a->div == 0) ? b->div : (b->div == 0) ? a->div : gcd64(a->div, b->div);
		break;
	case LAY_E_MUL:
		if (__builtin_mul_overflow(a->div, b->div, &e->div))
			e->div = 1;
		break;
	case LAY_E_DIV:
		e->div = (b->kind == LAY_E_CONST && b->value != 0 && a->div && a->div % b->value == 0)
		       ? (a->div / b->value < 0 ? -(a->div / b->value) : a->div / b->value) : 1;
		break;
	case LAY_E_SHL:
		e->div = (b->kind == LAY_E_CONST && b->value >= 0 && b->value < 32) ? a->div << b->value : 1;
		break;
	default:
		e->div = 1;
		break;
	}
	if (e->div == 0)
		e->div = 1;
	return e;
}

int
lay_e_eval(const lay_expr *e, const int64_t *vals, int nvals, int64_t *out)
{
	int64_t x, y;
	lay_ctx dummy;

	switch (e->kind) {
	case LAY_E_CONST: *out = e->value; return 0;
	case LAY_E_VAR:
		if (e->id < 0 || e->id >= nvals)
			return -1;
		*out = vals[e->id];
		return 0;
	case LAY_E_NEG:
		if (lay_e_eval(e->a, vals, nvals, &x)) return -1;
		*out = -x;
		return 0;
	default:
		break;
	}
	if (lay_e_eval(e->a, vals, nvals, &x) || lay_e_eval(e->b, vals, nvals, &y))
		return -1;
	memset(&dummy, 0, sizeof dummy);
	return fold(&dummy, e->kind, x, y, out);
}

/* Printer with minimal parentheses: precedence 1 (+ -), 2 (* / %), 3 (atoms). */
typedef struct sbuf {
	char *p;
	size_t cap, len;
} sbuf;

static void
put(sbuf *s, const char *t)
{
	size_t n = strlen(t);

	if (s->len < s->cap) {
		size_t room = s->cap - s->len - 1;
		memcpy(s->p + s->len, t, n < room ? n : room);
		s->p[s->len + (n < room ? n : room)] = 0;
	}
	s->len += n;
}

static int
prec(const lay_expr *e)
{
	switch (e->kind) {
	case LAY_E_ADD: case LAY_E_SUB: return 1;
	case LAY_E_MUL: case LAY_E_DIV: case LAY_E_MOD: return 2;
	case LAY_E_XOR: case LAY_E_AND: case LAY_E_OR: case LAY_E_SHL: case LAY_E_SHR: return 0;
	case LAY_E_CONST: return e->value < 0 ? 2 : 3;
	default: return 3;
	}
}

static const char *const expr_op[] = {
#define X(k, op, n) op,
	LAY_EXPR_KINDS(X)
#undef X
};

static void
put_expr(sbuf *s, const lay_expr *e, int need)
{
	char num[32];
	int p = prec(e);

	if (p < need)
		put(s, "(");
	switch (e->kind) {
	case LAY_E_CONST:
		snprintf(num, sizeof num, "%lld", (long long)e->value);
		put(s, num);
		break;
	case LAY_E_VAR:
		put(s, e->name);
		break;
	case LAY_E_NEG:
		put(s, "-");
		put_expr(s, e->a, 3);
		break;
	case LAY_E_CDIV: case LAY_E_MIN: case LAY_E_MAX:
		put(s, expr_op[e->kind]);
		put(s, "(");
		put_expr(s, e->a, 0);
		put(s, ",");
		put_expr(s, e->b, 0);
		put(s, ")");
		break;
	case LAY_E_ADD:
		if (e->b->kind == LAY_E_CONST && e->b->value < 0 && e->b->value != INT64_MIN) {
			put_expr(s, e->a, 1);
			snprintf(num, sizeof num, "-%lld", -(long long)e->b->value);
			put(s, num);
			break;
		}
		/* fall through */
	default:
		put_expr(s, e->a, p == 0 ? 3 : p);
		put(s, expr_op[e->kind]);
		put_expr(s, e->b, p == 0 ? 3 : p + 1);
		break;
	}
	if (p < need)
		put(s, ")");
}

size_t
lay_e_print(const lay_expr *e, char *buf, size_t cap)
{
	sbuf s = { buf, cap, 0 };

	if (cap)
		buf[0] = 0;
	put_expr(&s, e, 0);
	return s.len;
}

/* ------------------------------------------------------------- values --- */

static const char *const kind_names[] = {
#define X(k, s) s,
	LAY_KINDS(X)
#undef X
};

const char *
lay_kind_name(lay_kind k)
{
	return k < LAY_KIND_COUNT ? kind_names[k] : "?";
}

static lay_val *
new_val(lay_ctx *c, lay_kind k)
{
	lay_val *v = alloc(c, sizeof *v);

	if (v)
		v->kind = k;
	return v;
}

const lay_val *
lay_int_e(lay_ctx *c, const lay_expr *e)
{
	lay_val *v;

	if (!e)
		return NULL;
	v = new_val(c, LAY_INT);
	if (v)
		v->u.i = e;
	return v;
}

const lay_val *
lay_int(lay_ctx *c, int64_t k)
{
	return lay_int_e(c, lay_e_const(c, k));
}

const lay_val *
lay_tuple(lay_ctx *c, int n, const lay_val *const *e)
{
	lay_val *v;
	int i;

	for (i = 0; i < n; i++)
		if (!e[i])
			return NULL;
	v = new_val(c, LAY_TUPLE);
	if (!v)
		return NULL;
	v->u.t.n = n;
	v->u.t.e = alloc(c, sizeof(lay_val *) * (size_t)(n ? n : 1));
	if (!v->u.t.e)
		return NULL;
	for (i = 0; i < n; i++)
		v->u.t.e[i] = e[i];
	return v;
}

const lay_val *
lay_tuple2(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	const lay_val *e[2] = { a, b };

	return lay_tuple(c, 2, e);
}

const lay_val *
lay_underscore(lay_ctx *c)
{
	return new_val(c, LAY_UNDERSCORE);
}

static int
congruent(const lay_val *a, const lay_val *b)
{
	int i;

	if (a->kind != b->kind)
		return 0;
	if (a->kind != LAY_TUPLE)
		return 1;
	if (a->u.t.n != b->u.t.n)
		return 0;
	for (i = 0; i < a->u.t.n; i++)
		if (!congruent(a->u.t.e[i], b->u.t.e[i]))
			return 0;
	return 1;
}

int
lay_is_inttuple(const lay_val *v)
{
	int i;

	if (!v)
		return 0;
	if (v->kind == LAY_INT)
		return 1;
	if (v->kind != LAY_TUPLE)
		return 0;
	for (i = 0; i < v->u.t.n; i++)
		if (!lay_is_inttuple(v->u.t.e[i]))
			return 0;
	return 1;
}

const lay_val *
lay_layout(lay_ctx *c, const lay_val *shape, const lay_val *stride)
{
	lay_val *v;

	if (!shape || !stride)
		return NULL;
	if (!lay_is_inttuple(shape) || !lay_is_inttuple(stride))
		return lay_fail(c, "layout: shape and stride must be int tuples");
	if (!congruent(shape, stride))
		return lay_fail(c, "layout: shape and stride are not congruent");
	v = new_val(c, LAY_LAYOUT);
	if (v) {
		v->u.l.shape = shape;
		v->u.l.stride = stride;
	}
	return v;
}

const lay_val *
lay_swizzle(lay_ctx *c, int b, int m, int s)
{
	lay_val *v;

	if (b < 0 || m < 0)
		return lay_fail(c, "swizzle: B and M must be non-negative (B=%d, M=%d)", b, m);
	if ((s < 0 ? -s : s) < b)
		return lay_fail(c, "swizzle: |S| must be at least B (B=%d, S=%d)", b, s);
	if (b + m + (s < 0 ? -s : s) > 62)
		return lay_fail(c, "swizzle: B+M+|S| too large");
	v = new_val(c, LAY_SWIZZLE);
	if (v) {
		v->u.sw.b = b;
		v->u.sw.m = m;
		v->u.sw.s = s;
	}
	return v;
}

static const lay_val *composed(lay_ctx *c, const lay_val *a, const lay_expr *off, const lay_val *b, int decay);

const lay_val *
lay_composed(lay_ctx *c, const lay_val *a, const lay_expr *off, const lay_val *b)
{
	return composed(c, a, off, b, 1);
}

/* CuTe keeps Sw<0,..> o 0 o B when the 0 is not exactly an Int<0> (after upcast/downcast) */
const lay_val *
layi_composed_keep(lay_ctx *c, const lay_val *a, const lay_expr *off, const lay_val *b)
{
	return composed(c, a, off, b, 0);
}

static const lay_val *
composed(lay_ctx *c, const lay_val *a, const lay_expr *off, const lay_val *b, int decay)
{
	lay_val *v;

	if (!a || !off || !b)
		return NULL;
	if (a->kind != LAY_SWIZZLE)
		return lay_fail(c, "composed layout: the outer function must be a swizzle, not a %s", lay_kind_name(a->kind));
	if (b->kind != LAY_LAYOUT)
		return lay_fail(c, "composed layout: the inner function must be a layout, not a %s", lay_kind_name(b->kind));
	if (decay && a->u.sw.b == 0 && lay_e_is_const(off, 0))
		return b;
	v = new_val(c, LAY_COMPOSED);
	if (v) {
		v->u.c.a = a;
		v->u.c.off = off;
		v->u.c.b = b;
		v->u.c.keep = !decay;
	}
	return v;
}

/* the same swizzle and offset around a new inner layout */
const lay_val *
layi_rewrap(lay_ctx *c, const lay_val *x, const lay_val *b)
{
	return composed(c, x->u.c.a, x->u.c.off, b, !x->u.c.keep);
}

const lay_val *
lay_view(lay_ctx *c, const lay_expr *off, const lay_val *l)
{
	lay_val *v;

	if (!off || !l)
		return NULL;
	if (!lay_is_layoutish(l))
		return lay_fail(c, "view: needs a layout, not a %s", lay_kind_name(l->kind));
	v = new_val(c, LAY_VIEW);
	if (v) {
		v->u.v.off = off;
		v->u.v.l = l;
	}
	return v;
}

int
lay_is_int(const lay_val *v)
{
	return v && v->kind == LAY_INT;
}

int
lay_is_const(const lay_val *v, int64_t k)
{
	return v && v->kind == LAY_INT && lay_e_is_const(v->u.i, k);
}

int
lay_is_static(const lay_val *v)
{
	int i;

	if (!v)
		return 0;
	switch (v->kind) {
	case LAY_INT: return lay_e_known(v->u.i);
	case LAY_TUPLE:
		for (i = 0; i < v->u.t.n; i++)
			if (!lay_is_static(v->u.t.e[i]))
				return 0;
		return 1;
	case LAY_LAYOUT: return lay_is_static(v->u.l.shape) && lay_is_static(v->u.l.stride);
	case LAY_COMPOSED: return lay_e_known(v->u.c.off) && lay_is_static(v->u.c.b);
	case LAY_VIEW: return lay_e_known(v->u.v.off) && lay_is_static(v->u.v.l);
	default: return 1;
	}
}

int
lay_is_layoutish(const lay_val *v)
{
	return v && (v->kind == LAY_LAYOUT || v->kind == LAY_COMPOSED);
}

static int
expr_equal(const lay_expr *a, const lay_expr *b)
{
	if (a == b)
		return 1;
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case LAY_E_CONST: return a->value == b->value;
	case LAY_E_VAR: return a->id == b->id && !strcmp(a->name, b->name);
	case LAY_E_NEG: return expr_equal(a->a, b->a);
	default: return expr_equal(a->a, b->a) && expr_equal(a->b, b->b);
	}
}

int
lay_equal(const lay_val *a, const lay_val *b)
{
	int i;

	if (a == b)
		return 1;
	if (!a || !b || a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case LAY_INT: return expr_equal(a->u.i, b->u.i);
	case LAY_TUPLE:
		if (a->u.t.n != b->u.t.n)
			return 0;
		for (i = 0; i < a->u.t.n; i++)
			if (!lay_equal(a->u.t.e[i], b->u.t.e[i]))
				return 0;
		return 1;
	case LAY_UNDERSCORE: return 1;
	case LAY_LAYOUT: return lay_equal(a->u.l.shape, b->u.l.shape) && lay_equal(a->u.l.stride, b->u.l.stride);
	case LAY_SWIZZLE: return a->u.sw.b == b->u.sw.b && a->u.sw.m == b->u.sw.m && a->u.sw.s == b->u.sw.s;
	case LAY_COMPOSED:
		return lay_equal(a->u.c.a, b->u.c.a) && expr_equal(a->u.c.off, b->u.c.off) && lay_equal(a->u.c.b, b->u.c.b);
	case LAY_VIEW: return expr_equal(a->u.v.off, b->u.v.off) && lay_equal(a->u.v.l, b->u.v.l);
	default: return 0;
	}
}

/* -------------------------------------------------------- printing --- */

static void
put_val(sbuf *s, const lay_val *v)
{
	char num[64];
	int i;

	switch (v->kind) {
	case LAY_INT: {
		sbuf t;
		size_t n;
		if (v->u.i->kind == LAY_E_CONST) {
			snprintf(num, sizeof num, "%lld", (long long)v->u.i->value);
			put(s, num);
			break;
		}
		n = lay_e_print(v->u.i, NULL, 0);
		t.p = malloc(n + 1);
		if (!t.p) { put(s, "?"); break; }
		lay_e_print(v->u.i, t.p, n + 1);
		put(s, t.p);
		free(t.p);
		break;
	}
	case LAY_TUPLE:
		put(s, "(");
		for (i = 0; i < v->u.t.n; i++) {
			if (i)
				put(s, ",");
			put_val(s, v->u.t.e[i]);
		}
		put(s, ")");
		break;
	case LAY_UNDERSCORE:
		put(s, "_");
		break;
	case LAY_LAYOUT:
		put_val(s, v->u.l.shape);
		put(s, ":");
		put_val(s, v->u.l.stride);
		break;
	case LAY_SWIZZLE:
		snprintf(num, sizeof num, "Sw<%d,%d,%d>", v->u.sw.b, v->u.sw.m, v->u.sw.s);
		put(s, num);
		break;
	case LAY_COMPOSED: {
		lay_val tmp;
		put_val(s, v->u.c.a);
		put(s, " o ");
		tmp.kind = LAY_INT;
		tmp.u.i = v->u.c.off;
		put_val(s, &tmp);
		put(s, " o ");
		put_val(s, v->u.c.b);
		break;
	}
	case LAY_VIEW: {
		lay_val tmp;
		tmp.kind = LAY_INT;
		tmp.u.i = v->u.v.off;
		put_val(s, &tmp);
		put(s, " o ");
		put_val(s, v->u.v.l);
		break;
	}
	default:
		put(s, "?");
	}
}

size_t
lay_print(const lay_val *v, char *buf, size_t cap)
{
	sbuf s = { buf, cap, 0 };

	if (cap)
		buf[0] = 0;
	if (!v) {
		put(&s, "<error>");
		return s.len;
	}
	put_val(&s, v);
	return s.len;
}

const char *
lay_to_string(lay_ctx *c, const lay_val *v)
{
	size_t n = lay_print(v, NULL, 0);
	char *p = lay_alloc(c->arena, n + 1);

	if (!p)
		return "<out of memory>";
	lay_print(v, p, n + 1);
	return p;
}
