/*
 * lay_tuple.c — int tuple operations (CuTe int_tuple.hpp, stride.hpp,
 * tuple_algorithms.hpp): size, rank, get/take/select/group/append/flatten,
 * ceil_div, shape_div, zip, slice/dice, crd2idx, idx2crd.
 */
#include <string.h>

#include "layout/lay.h"
#include "layout/lay_int.h"

/* ------------------------------------------------------- small helpers --- */

void
vec_push(lay_ctx *c, vec *v, const lay_val *x)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 8;
		const lay_val **e = lay_alloc(c->arena, sizeof *e * (size_t)cap);
		if (!e) {
			lay_fail(c, "out of memory");
			v->bad = 1;
			return;
		}
		if (v->n)
			memcpy(e, v->e, sizeof *e * (size_t)v->n);
		v->e = e;
		v->cap = cap;
	}
	if (!x)
		v->bad = 1;
	v->e[v->n++] = x;
}

const lay_val *
vec_tuple(lay_ctx *c, const vec *v)
{
	if (v->bad)
		return NULL;
	return lay_tuple(c, v->n, v->e);
}

const lay_val *
iop(lay_ctx *c, lay_expr_kind k, const lay_val *a, const lay_val *b)
{
	if (!a || !b)
		return NULL;
	if (a->kind != LAY_INT || b->kind != LAY_INT)
		return lay_fail(c, "%s: expects integers, got a %s and a %s",
		                k == LAY_E_MUL ? "*" : k == LAY_E_ADD ? "+" : "arithmetic",
		                lay_kind_name(a->kind), lay_kind_name(b->kind));
	return lay_int_e(c, lay_e_bin(c, k, a->u.i, b->u.i));
}

const lay_val *
iabs(lay_ctx *c, const lay_val *a)
{
	if (!a)
		return NULL;
	if (lay_e_known(a->u.i) && a->u.i->value < 0)
		return lay_int(c, -a->u.i->value);
	if (a->u.i->kind == LAY_E_NEG)
		return lay_int_e(c, a->u.i->a);   /* -x of a run-time x >= 0 */
	return a;   /* run-time values are non-negative */
}

const lay_val *
isignum(lay_ctx *c, const lay_val *a)
{
	if (!a)
		return NULL;
	if (lay_e_known(a->u.i))
		return lay_int(c, a->u.i->value > 0 ? 1 : a->u.i->value < 0 ? -1 : 0);
	return lay_int(c, 1);
}

int
rank_of(const lay_val *x)
{
	return x->kind == LAY_TUPLE ? x->u.t.n : 1;
}

/* get<i> of an int tuple (an integer is its own mode 0) */
const lay_val *
tget(lay_ctx *c, const lay_val *x, int i)
{
	if (!x)
		return NULL;
	if (x->kind == LAY_TUPLE) {
		if (i < 0 || i >= x->u.t.n)
			return lay_fail(c, "get: index %d out of range for rank %d", i, x->u.t.n);
		return x->u.t.e[i];
	}
	if (i != 0)
		return lay_fail(c, "get: index %d out of range for rank 1", i);
	return x;
}

const lay_val *
lget(lay_ctx *c, const lay_val *l, int i)
{
	if (!l)
		return NULL;
	return lay_layout(c, tget(c, l->u.l.shape, i), tget(c, l->u.l.stride, i));
}

int
is_tuple(const lay_val *x)
{
	return x && x->kind == LAY_TUPLE;
}

/* Apply f to every leaf of an int tuple, keeping the profile. */
const lay_val *
tmap(lay_ctx *c, const lay_val *x, tfn f, void *arg)
{
	vec v = { 0 };
	int i;

	if (!x)
		return NULL;
	if (x->kind != LAY_TUPLE)
		return f(c, x, arg);
	for (i = 0; i < x->u.t.n; i++)
		vec_push(c, &v, tmap(c, x->u.t.e[i], f, arg));
	return vec_tuple(c, &v);
}

static const lay_val *
const_leaf(lay_ctx *c, const lay_val *x, void *arg)
{
	return lay_int(c, *(int64_t *)arg);
}

const lay_val *
repeat_like(lay_ctx *c, const lay_val *x, int64_t k)
{
	return tmap(c, x, const_leaf, &k);
}

/* ------------------------------------------------------- basic queries --- */

static const lay_val *
tproduct(lay_ctx *c, const lay_val *x)
{
	const lay_val *p;
	int i;

	if (!x)
		return NULL;
	if (x->kind == LAY_INT)
		return x;
	if (x->kind != LAY_TUPLE)
		return lay_fail(c, "size: expects an int tuple or a layout, not a %s", lay_kind_name(x->kind));
	if (x->u.t.n == 0)
		return lay_int(c, 1);
	p = tproduct(c, x->u.t.e[0]);
	for (i = 1; i < x->u.t.n; i++)
		p = iop(c, LAY_E_MUL, p, tproduct(c, x->u.t.e[i]));
	return p;
}

const lay_val *
shape_of(lay_ctx *c, const lay_val *x)
{
	if (!x)
		return NULL;
	switch (x->kind) {
	case LAY_LAYOUT: return x->u.l.shape;
	case LAY_COMPOSED: return x->u.c.b->u.l.shape;
	case LAY_VIEW: return shape_of(c, x->u.v.l);
	case LAY_INT: case LAY_TUPLE: return x;
	default: return lay_fail(c, "expected a layout or an int tuple, not a %s", lay_kind_name(x->kind));
	}
}

const lay_val *
lay_size(lay_ctx *c, const lay_val *x)
{
	return tproduct(c, shape_of(c, x));
}

const lay_val *
product(lay_ctx *c, const lay_val *x)
{
	return tproduct(c, x);
}

int
lay_rank(const lay_val *x)
{
	if (!x)
		return 0;
	switch (x->kind) {
	case LAY_LAYOUT: return rank_of(x->u.l.shape);
	case LAY_COMPOSED: return rank_of(x->u.c.b->u.l.shape);
	case LAY_VIEW: return lay_rank(x->u.v.l);
	default: return rank_of(x);
	}
}

static int
tdepth(const lay_val *x)
{
	int i, d = 0;

	if (x->kind != LAY_TUPLE)
		return 0;
	for (i = 0; i < x->u.t.n; i++) {
		int k = tdepth(x->u.t.e[i]);
		if (k > d)
			d = k;
	}
	return 1 + d;
}

int
lay_depth(const lay_val *x)
{
	if (!x)
		return 0;
	switch (x->kind) {
	case LAY_LAYOUT: return tdepth(x->u.l.shape);
	case LAY_COMPOSED: return tdepth(x->u.c.b->u.l.shape);
	case LAY_VIEW: return lay_depth(x->u.v.l);
	default: return tdepth(x);
	}
}

const lay_val *
lay_shape(lay_ctx *c, const lay_val *l)
{
	return shape_of(c, l);
}

const lay_val *
lay_stride(lay_ctx *c, const lay_val *l)
{
	if (!l)
		return NULL;
	if (l->kind == LAY_LAYOUT)
		return l->u.l.stride;
	if (l->kind == LAY_VIEW)
		return lay_stride(c, l->u.v.l);
	return lay_fail(c, "stride: expects a layout, not a %s", lay_kind_name(l->kind));
}

/* ------------------------------------------------ structural operations --- */

/* Apply a tuple operation to an int tuple, or to both halves of a layout, or
 * to the inner layout of a composed layout. */
const lay_val *
on_layout(lay_ctx *c, const lay_val *x, tfn f, void *arg)
{
	if (!x)
		return NULL;
	switch (x->kind) {
	case LAY_LAYOUT:
		return lay_layout(c, f(c, x->u.l.shape, arg), f(c, x->u.l.stride, arg));
	case LAY_COMPOSED:
		return layi_rewrap(c, x, on_layout(c, x->u.c.b, f, arg));
	case LAY_INT:
	case LAY_TUPLE:
		return f(c, x, arg);
	default:
		return lay_fail(c, "expected a layout or an int tuple, not a %s", lay_kind_name(x->kind));
	}
}

static const lay_val *
get_f(lay_ctx *c, const lay_val *x, void *arg)
{
	return tget(c, x, *(int *)arg);
}

const lay_val *
lay_get(lay_ctx *c, const lay_val *x, int i)
{
	return on_layout(c, x, get_f, &i);
}

struct range { int b, e; };

static const lay_val *
take_f(lay_ctx *c, const lay_val *x, void *arg)
{
	struct range *r = arg;
	vec v = { 0 };
	int i, n = rank_of(x);

	if (r->b < 0 || r->e > n || r->b > r->e)
		return lay_fail(c, "take: range [%d,%d) out of bounds for rank %d", r->b, r->e, n);
	for (i = r->b; i < r->e; i++)
		vec_push(c, &v, tget(c, x, i));
	return vec_tuple(c, &v);
}

const lay_val *
lay_take(lay_ctx *c, const lay_val *x, int b, int e)
{
	struct range r = { b, e };

	if (x && b >= e)
		return lay_fail(c, "take: empty range [%d,%d)", b, e);
	return on_layout(c, x, take_f, &r);
}

struct sel { int n; const int *is; };

static const lay_val *
select_f(lay_ctx *c, const lay_val *x, void *arg)
{
	struct sel *s = arg;
	vec v = { 0 };
	int i;

	for (i = 0; i < s->n; i++)
		vec_push(c, &v, tget(c, x, s->is[i]));
	return vec_tuple(c, &v);
}

const lay_val *
lay_select(lay_ctx *c, const lay_val *x, int n, const int *is)
{
	struct sel s = { n, is };

	return on_layout(c, x, select_f, &s);
}

static const lay_val *
group_f(lay_ctx *c, const lay_val *x, void *arg)
{
	struct range *r = arg;
	vec v = { 0 };
	int i, n = rank_of(x);

	if (r->b < 0 || r->e > n || r->b > r->e)
		return lay_fail(c, "group: range [%d,%d) out of bounds for rank %d", r->b, r->e, n);
	for (i = 0; i < r->b; i++)
		vec_push(c, &v, tget(c, x, i));
	if (r->b < r->e) {
		vec g = { 0 };
		for (i = r->b; i < r->e; i++)
			vec_push(c, &g, tget(c, x, i));
		vec_push(c, &v, vec_tuple(c, &g));
	}
	for (i = r->e; i < n; i++)
		vec_push(c, &v, tget(c, x, i));
	return vec_tuple(c, &v);
}

const lay_val *
lay_group(lay_ctx *c, const lay_val *x, int b, int e)
{
	struct range r = { b, e };

	return on_layout(c, x, group_f, &r);
}

/* tuple append/prepend (CuTe: a non-tuple becomes (a,x)) */
const lay_val *
tappend(lay_ctx *c, const lay_val *a, const lay_val *x)
{
	vec v = { 0 };
	int i;

	if (!a || !x)
		return NULL;
	if (a->kind == LAY_TUPLE)
		for (i = 0; i < a->u.t.n; i++)
			vec_push(c, &v, a->u.t.e[i]);
	else
		vec_push(c, &v, a);
	vec_push(c, &v, x);
	return vec_tuple(c, &v);
}

const lay_val *
tprepend(lay_ctx *c, const lay_val *a, const lay_val *x)
{
	vec v = { 0 };
	int i;

	if (!a || !x)
		return NULL;
	vec_push(c, &v, x);
	if (a->kind == LAY_TUPLE)
		for (i = 0; i < a->u.t.n; i++)
			vec_push(c, &v, a->u.t.e[i]);
	else
		vec_push(c, &v, a);
	return vec_tuple(c, &v);
}

/* CuTe append<N>(a, x): extend to rank N (no-op when already rank N; a
 * non-tuple of rank 1 stays itself for N == 1). */
const lay_val *
tappend_n(lay_ctx *c, const lay_val *a, int n, const lay_val *x)
{
	vec v = { 0 };
	int i, r;

	if (!a || !x)
		return NULL;
	r = rank_of(a);
	if (n == r)
		return a;
	if (n < r)
		return lay_fail(c, "append: rank %d is already larger than %d", r, n);
	for (i = 0; i < r; i++)
		vec_push(c, &v, tget(c, a, i));
	for (; i < n; i++)
		vec_push(c, &v, x);
	return vec_tuple(c, &v);
}

static const lay_val *
underlying(const lay_val *x)
{
	return x && x->kind == LAY_COMPOSED ? x->u.c.b : x;
}

const lay_val *
lay_append(lay_ctx *c, const lay_val *x, const lay_val *y)
{
	if (!x)
		return NULL;
	if (lay_is_layoutish(x)) {
		const lay_val *l = underlying(x), *r;
		if (!y)
			y = lay_layout(c, lay_int(c, 1), lay_int(c, 0));
		if (!y)
			return NULL;
		if (y->kind != LAY_LAYOUT)
			return lay_fail(c, "append: appending to a layout needs a layout, not a %s", lay_kind_name(y->kind));
		r = lay_layout(c, tappend(c, l->u.l.shape, y->u.l.shape), tappend(c, l->u.l.stride, y->u.l.stride));
		return x->kind == LAY_COMPOSED ? layi_rewrap(c, x, r) : r;
	}
	if (!y)
		return lay_fail(c, "append: missing element");
	return tappend(c, x, y);
}

const lay_val *
lay_prepend(lay_ctx *c, const lay_val *x, const lay_val *y)
{
	if (!x)
		return NULL;
	if (lay_is_layoutish(x)) {
		const lay_val *l = underlying(x), *r;
		if (!y)
			y = lay_layout(c, lay_int(c, 1), lay_int(c, 0));
		if (!y)
			return NULL;
		if (y->kind != LAY_LAYOUT)
			return lay_fail(c, "prepend: prepending to a layout needs a layout, not a %s", lay_kind_name(y->kind));
		r = lay_layout(c, tprepend(c, l->u.l.shape, y->u.l.shape), tprepend(c, l->u.l.stride, y->u.l.stride));
		return x->kind == LAY_COMPOSED ? layi_rewrap(c, x, r) : r;
	}
	if (!y)
		return lay_fail(c, "prepend: missing element");
	return tprepend(c, x, y);
}

const lay_val *
lay_append_n(lay_ctx *c, const lay_val *x, int n, const lay_val *pad)
{
	if (!x)
		return NULL;
	if (lay_is_layoutish(x)) {
		const lay_val *l = underlying(x), *r;
		if (!pad)
			pad = lay_layout(c, lay_int(c, 1), lay_int(c, 0));
		if (!pad || pad->kind != LAY_LAYOUT)
			return pad ? lay_fail(c, "append: padding must be a layout") : NULL;
		r = lay_layout(c, tappend_n(c, l->u.l.shape, n, pad->u.l.shape), tappend_n(c, l->u.l.stride, n, pad->u.l.stride));
		return x->kind == LAY_COMPOSED ? layi_rewrap(c, x, r) : r;
	}
	return tappend_n(c, x, n, pad ? pad : lay_int(c, 1));
}

static void
flat_into(lay_ctx *c, vec *v, const lay_val *x)
{
	int i;

	if (x->kind == LAY_TUPLE)
		for (i = 0; i < x->u.t.n; i++)
			flat_into(c, v, x->u.t.e[i]);
	else
		vec_push(c, v, x);
}

/* CuTe flatten: a non-tuple stays itself */
const lay_val *
tflatten(lay_ctx *c, const lay_val *x)
{
	vec v = { 0 };

	if (!x)
		return NULL;
	if (x->kind != LAY_TUPLE)
		return x;
	flat_into(c, &v, x);
	return vec_tuple(c, &v);
}

/* flatten_to_tuple: always a tuple */
const lay_val *
tflatten_tuple(lay_ctx *c, const lay_val *x)
{
	vec v = { 0 };

	if (!x)
		return NULL;
	flat_into(c, &v, x);
	return vec_tuple(c, &v);
}

static const lay_val *
flatten_f(lay_ctx *c, const lay_val *x, void *arg)
{
	return tflatten(c, x);
}

const lay_val *
lay_flatten(lay_ctx *c, const lay_val *x)
{
	return on_layout(c, x, flatten_f, NULL);
}

/* transform(wrap(t), product) */
const lay_val *
lay_product_each(lay_ctx *c, const lay_val *t)
{
	vec v = { 0 };
	int i;

	if (!t)
		return NULL;
	if (t->kind != LAY_TUPLE)
		vec_push(c, &v, product(c, t));
	else
		for (i = 0; i < t->u.t.n; i++)
			vec_push(c, &v, product(c, t->u.t.e[i]));
	return vec_tuple(c, &v);
}

/* unwrap rank-1 tuples */
const lay_val *
unwrap(const lay_val *x)
{
	while (x && x->kind == LAY_TUPLE && x->u.t.n == 1)
		x = x->u.t.e[0];
	return x;
}

/* --------------------------------------------------------- divisions --- */

static const lay_val *
int_div_common(lay_ctx *c, const lay_val *a, const lay_val *b, int check)
{
	int i;

	if (!a || !b)
		return NULL;
	if (a->kind == LAY_TUPLE) {
		vec v = { 0 };
		if (b->kind == LAY_TUPLE) {
			if (check ? a->u.t.n != b->u.t.n : a->u.t.n < b->u.t.n)
				return lay_fail(c, "%s: mismatched ranks %d and %d", check ? "shape_div" : "ceil_div",
				                a->u.t.n, b->u.t.n);
			for (i = 0; i < a->u.t.n; i++)
				vec_push(c, &v, int_div_common(c, a->u.t.e[i], i < b->u.t.n ? b->u.t.e[i] : lay_int(c, 1), check));
			return vec_tuple(c, &v);
		}
		/* tuple / int: fold the divisor across the modes */
		for (i = 0; i < a->u.t.n; i++) {
			vec_push(c, &v, int_div_common(c, a->u.t.e[i], b, check));
			b = int_div_common(c, b, a->u.t.e[i], check);
			if (!b)
				return NULL;
		}
		return vec_tuple(c, &v);
	}
	if (b->kind == LAY_TUPLE)
		return int_div_common(c, a, product(c, b), check);
	if (a->kind != LAY_INT || b->kind != LAY_INT)
		return lay_fail(c, "division: expects int tuples");
	if (check && lay_e_known(a->u.i) && lay_e_known(b->u.i)) {
		int64_t x = a->u.i->value, y = b->u.i->value;
		if (y == 0 || x == 0 || (x % y != 0 && y % x != 0))
			return lay_fail(c, "shape_div: divisibility condition violated (%lld and %lld: neither divides the other)",
			                (long long)x, (long long)y);
	}
	return iop(c, LAY_E_CDIV, a, b);
}

const lay_val *
lay_ceil_div(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	return int_div_common(c, a, b, 0);
}

const lay_val *
lay_shape_div(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	return int_div_common(c, a, b, 1);
}

/* ------------------------------------------------------------- zip --- */

/* zip(t): ((a0,a1),(b0,b1)) -> ((a0,b0),(a1,b1)); a non-tuple first element wraps. */
const lay_val *
tzip(lay_ctx *c, const lay_val *t)
{
	vec v = { 0 };
	int i, j, n;

	if (!t)
		return NULL;
	if (t->kind != LAY_TUPLE)
		return t;
	if (t->u.t.n == 0 || t->u.t.e[0]->kind != LAY_TUPLE) {
		const lay_val *one[1] = { t };
		return lay_tuple(c, 1, one);
	}
	n = t->u.t.e[0]->u.t.n;
	for (i = 0; i < t->u.t.n; i++)
		if (rank_of(t->u.t.e[i]) != n || t->u.t.e[i]->kind != LAY_TUPLE)
			return lay_fail(c, "zip: mismatched ranks");
	for (j = 0; j < n; j++) {
		vec g = { 0 };
		for (i = 0; i < t->u.t.n; i++)
			vec_push(c, &g, t->u.t.e[i]->u.t.e[j]);
		vec_push(c, &v, vec_tuple(c, &g));
	}
	return vec_tuple(c, &v);
}

static const lay_val *
zip_f(lay_ctx *c, const lay_val *x, void *arg)
{
	return tzip(c, x);
}

const lay_val *
lay_zip(lay_ctx *c, const lay_val *x)
{
	return on_layout(c, x, zip_f, NULL);
}

/* zip2_by(t, guide): ((A,a),((B,b),(C,c)),d) by (X,(X,X)) -> ((A,(B,C)),(a,(b,c),d)) */
const lay_val *
tzip2_by(lay_ctx *c, const lay_val *t, const lay_val *guide)
{
	vec v0 = { 0 }, v1 = { 0 };
	int i, gr, tr;

	if (!t || !guide)
		return NULL;
	if (guide->kind != LAY_TUPLE) {
		if (rank_of(t) != 2 || t->kind != LAY_TUPLE)
			return lay_fail(c, "zip2_by: mismatched ranks (expected a rank-2 mode)");
		return t;
	}
	gr = guide->u.t.n;
	tr = rank_of(t);
	if (t->kind != LAY_TUPLE || tr < gr)
		return lay_fail(c, "zip2_by: mismatched ranks");
	for (i = 0; i < gr; i++) {
		const lay_val *s = tzip2_by(c, t->u.t.e[i], guide->u.t.e[i]);
		if (!s)
			return NULL;
		vec_push(c, &v0, tget(c, s, 0));
		vec_push(c, &v1, tget(c, s, 1));
	}
	for (i = gr; i < tr; i++)
		vec_push(c, &v1, t->u.t.e[i]);
	return lay_tuple2(c, vec_tuple(c, &v0), vec_tuple(c, &v1));
}

/* ----------------------------------------------------- slice and dice --- */

static void
lift(lay_ctx *c, vec *out, const lay_val *a, const lay_val *b, int keep_underscore)
{
	int i;

	if (a->kind == LAY_TUPLE) {
		if (b->kind != LAY_TUPLE || b->u.t.n != a->u.t.n) {
			lay_fail(c, "slice: coordinate and shape have mismatched ranks");
			out->bad = 1;
			return;
		}
		for (i = 0; i < a->u.t.n; i++)
			lift(c, out, a->u.t.e[i], b->u.t.e[i], keep_underscore);
		return;
	}
	if ((a->kind == LAY_UNDERSCORE) == keep_underscore)
		vec_push(c, out, b);
}

static const lay_val *
slice_common(lay_ctx *c, const lay_val *a, const lay_val *b, int keep_underscore)
{
	vec v = { 0 };
	int i;

	if (!a || !b)
		return NULL;
	if (a->kind == LAY_TUPLE) {
		if (b->kind != LAY_TUPLE || b->u.t.n != a->u.t.n)
			return lay_fail(c, "slice: coordinate of rank %d for a shape of rank %d", a->u.t.n, rank_of(b));
		for (i = 0; i < a->u.t.n; i++)
			lift(c, &v, a->u.t.e[i], b->u.t.e[i], keep_underscore);
		return vec_tuple(c, &v);
	}
	if ((a->kind == LAY_UNDERSCORE) == keep_underscore)
		return b;
	return lay_tuple(c, 0, NULL);
}

const lay_val *
tslice(lay_ctx *c, const lay_val *coord, const lay_val *x)
{
	return slice_common(c, coord, x, 1);
}

const lay_val *
tdice(lay_ctx *c, const lay_val *coord, const lay_val *x)
{
	return slice_common(c, coord, x, 0);
}

const lay_val *
lay_slice(lay_ctx *c, const lay_val *coord, const lay_val *x)
{
	if (!coord || !x)
		return NULL;
	if (x->kind == LAY_LAYOUT)
		return lay_layout(c, tslice(c, coord, x->u.l.shape), tslice(c, coord, x->u.l.stride));
	return tslice(c, coord, x);
}

const lay_val *
lay_dice(lay_ctx *c, const lay_val *coord, const lay_val *x)
{
	if (!coord || !x)
		return NULL;
	if (x->kind == LAY_LAYOUT)
		return lay_layout(c, tdice(c, coord, x->u.l.shape), tdice(c, coord, x->u.l.stride));
	return tdice(c, coord, x);
}

/* ------------------------------------------------- crd2idx / idx2crd --- */

static const lay_val *
crd2idx3(lay_ctx *c, const lay_val *coord, const lay_val *shape, const lay_val *stride)
{
	const lay_val *r;
	int i, n;

	if (!coord || !shape || !stride)
		return NULL;
	if (coord->kind == LAY_UNDERSCORE)
		coord = lay_int(c, 0);          /* `_` is 0 for offsets (CuTe: Underscore is Int<0>) */
	if (coord->kind == LAY_TUPLE) {
		if (shape->kind != LAY_TUPLE || shape->u.t.n != coord->u.t.n || stride->kind != LAY_TUPLE)
			return lay_fail(c, "crd2idx: coordinate %s does not match the shape's rank %d",
			                lay_to_string(c, coord), rank_of(shape));
		r = lay_int(c, 0);
		for (i = 0; i < coord->u.t.n; i++)
			r = iop(c, LAY_E_ADD, r, crd2idx3(c, coord->u.t.e[i], shape->u.t.e[i], stride->u.t.e[i]));
		return r;
	}
	if (coord->kind != LAY_INT)
		return lay_fail(c, "crd2idx: bad coordinate");
	if (shape->kind == LAY_TUPLE) {
		if (stride->kind != LAY_TUPLE || stride->u.t.n != shape->u.t.n)
			return lay_fail(c, "crd2idx: shape and stride mismatched");
		n = shape->u.t.n;
		if (n == 0)
			return lay_int(c, 0);
		if (lay_is_const(coord, 0)) {
			r = lay_int(c, 0);
			for (i = 0; i < n; i++)
				r = iop(c, LAY_E_ADD, r, crd2idx3(c, coord, shape->u.t.e[i], stride->u.t.e[i]));
			return r;
		}
		r = lay_int(c, 0);
		for (i = 0; i < n - 1; i++) {
			const lay_val *p = product(c, shape->u.t.e[i]);
			const lay_val *mod = iop(c, LAY_E_MOD, coord, p);
			r = iop(c, LAY_E_ADD, r, crd2idx3(c, mod, shape->u.t.e[i], stride->u.t.e[i]));
			coord = iop(c, LAY_E_DIV, coord, p);
		}
		return iop(c, LAY_E_ADD, r, crd2idx3(c, coord, shape->u.t.e[n - 1], stride->u.t.e[n - 1]));
	}
	return iop(c, LAY_E_MUL, coord, stride);
}

/* product_like(shape, coord): the product of shape at each leaf of coord */
const lay_val *
product_like(lay_ctx *c, const lay_val *shape, const lay_val *guide)
{
	vec v = { 0 };
	int i;

	if (!shape || !guide)
		return NULL;
	if (guide->kind != LAY_TUPLE)
		return product(c, shape);
	if (shape->kind != LAY_TUPLE || shape->u.t.n != guide->u.t.n)
		return lay_fail(c, "crd2idx: coordinate and shape have mismatched ranks");
	for (i = 0; i < guide->u.t.n; i++)
		vec_push(c, &v, product_like(c, shape->u.t.e[i], guide->u.t.e[i]));
	return vec_tuple(c, &v);
}

const lay_val *
lay_crd2idx(lay_ctx *c, const lay_val *coord, const lay_val *shape, const lay_val *stride)
{
	const lay_val *fc, *fs, *r;
	int i;

	if (!coord || !shape)
		return NULL;
	if (shape->kind == LAY_LAYOUT)
		return crd2idx3(c, coord, shape->u.l.shape, shape->u.l.stride);
	if (stride)
		return crd2idx3(c, coord, shape, stride);
	if (coord->kind == LAY_INT)
		return coord;
	if (coord->kind != LAY_TUPLE || shape->kind != LAY_TUPLE || coord->u.t.n != shape->u.t.n)
		return lay_fail(c, "crd2idx: coordinate and shape have mismatched ranks");
	fc = tflatten(c, coord);
	fs = tflatten(c, product_like(c, shape, coord));
	if (!fc || !fs)
		return NULL;
	/* Horner: c0 + s0 * (c1 + s1 * (...)) */
	r = fc->u.t.e[fc->u.t.n - 1];
	for (i = fc->u.t.n - 2; i >= 0; i--)
		r = iop(c, LAY_E_ADD, fc->u.t.e[i], iop(c, LAY_E_MUL, fs->u.t.e[i], r));
	return r;
}

/* idx2crd(i, s): colexicographic; the last mode is not reduced */
static const lay_val *
idx2crd2(lay_ctx *c, const lay_val *idx, const lay_val *shape)
{
	vec v = { 0 };
	int i, n;

	if (!idx || !shape)
		return NULL;
	if (idx->kind == LAY_TUPLE) {
		if (shape->kind != LAY_TUPLE || shape->u.t.n != idx->u.t.n)
			return lay_fail(c, "idx2crd: index and shape have mismatched ranks");
		for (i = 0; i < idx->u.t.n; i++)
			vec_push(c, &v, idx2crd2(c, idx->u.t.e[i], shape->u.t.e[i]));
		return vec_tuple(c, &v);
	}
	if (shape->kind != LAY_TUPLE)
		return idx;
	n = shape->u.t.n;
	for (i = 0; i < n; i++) {
		if (i == n - 1) {
			vec_push(c, &v, idx2crd2(c, idx, shape->u.t.e[i]));
		} else if (lay_is_const(idx, 0)) {
			vec_push(c, &v, idx2crd2(c, idx, shape->u.t.e[i]));
		} else {
			const lay_val *p = product(c, shape->u.t.e[i]);
			vec_push(c, &v, idx2crd2(c, iop(c, LAY_E_MOD, idx, p), shape->u.t.e[i]));
			idx = iop(c, LAY_E_DIV, idx, p);
		}
	}
	return vec_tuple(c, &v);
}

/* compact column-major strides starting at `cur` (shape-1 modes get 0) */
const lay_val *
compact_col(lay_ctx *c, const lay_val *shape, const lay_val **cur)
{
	vec v = { 0 };
	int i;

	if (!shape || !*cur)
		return NULL;
	if (shape->kind == LAY_TUPLE) {
		for (i = 0; i < shape->u.t.n; i++)
			vec_push(c, &v, compact_col(c, shape->u.t.e[i], cur));
		return vec_tuple(c, &v);
	}
	if (lay_is_const(shape, 1))
		return lay_int(c, 0);
	{
		const lay_val *r = *cur;
		*cur = iop(c, LAY_E_MUL, *cur, shape);
		return r;
	}
}

const lay_val *
compact_row(lay_ctx *c, const lay_val *shape, const lay_val **cur)
{
	const lay_val **e;
	int i;

	if (!shape || !*cur)
		return NULL;
	if (shape->kind == LAY_TUPLE) {
		e = lay_alloc(c->arena, sizeof *e * (size_t)(shape->u.t.n + 1));
		if (!e)
			return lay_fail(c, "out of memory");
		for (i = shape->u.t.n - 1; i >= 0; i--)
			e[i] = compact_row(c, shape->u.t.e[i], cur);
		return lay_tuple(c, shape->u.t.n, e);
	}
	if (lay_is_const(shape, 1))
		return lay_int(c, 0);
	{
		const lay_val *r = *cur;
		*cur = iop(c, LAY_E_MUL, *cur, shape);
		return r;
	}
}

static const lay_val *
idx2crd3(lay_ctx *c, const lay_val *idx, const lay_val *shape, const lay_val *stride)
{
	vec v = { 0 };
	int i;

	if (!idx || !shape || !stride)
		return NULL;
	if (idx->kind == LAY_TUPLE) {
		if (shape->kind != LAY_TUPLE || shape->u.t.n != idx->u.t.n || stride->kind != LAY_TUPLE)
			return lay_fail(c, "idx2crd: index and shape have mismatched ranks");
		for (i = 0; i < idx->u.t.n; i++)
			vec_push(c, &v, idx2crd3(c, idx->u.t.e[i], shape->u.t.e[i], stride->u.t.e[i]));
		return vec_tuple(c, &v);
	}
	if (shape->kind == LAY_TUPLE) {
		if (stride->kind != LAY_TUPLE) {
			const lay_val *cur = stride;
			stride = compact_col(c, shape, &cur);
			if (!stride)
				return NULL;
		}
		for (i = 0; i < shape->u.t.n; i++)
			vec_push(c, &v, idx2crd3(c, idx, shape->u.t.e[i], stride->u.t.e[i]));
		return vec_tuple(c, &v);
	}
	if (lay_is_const(shape, 1))
		return lay_int(c, 0);
	return iop(c, LAY_E_MOD, iop(c, LAY_E_DIV, idx, stride), shape);
}

const lay_val *
lay_idx2crd(lay_ctx *c, const lay_val *idx, const lay_val *shape, const lay_val *stride)
{
	if (!idx || !shape)
		return NULL;
	if (shape->kind == LAY_LAYOUT)
		return idx2crd3(c, idx, shape->u.l.shape, shape->u.l.stride);
	if (stride)
		return idx2crd3(c, idx, shape, stride);
	return idx2crd2(c, idx, shape);
}

const lay_val *
crd2idx_l(lay_ctx *c, const lay_val *coord, const lay_val *l)
{
	if (!coord || !l)
		return NULL;
	return crd2idx3(c, coord, l->u.l.shape, l->u.l.stride);
}
