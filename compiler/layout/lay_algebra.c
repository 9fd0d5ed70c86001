/*
 * lay_algebra.c — layout operations with CuTe's exact results: make_layout,
 * coalesce, filter, composition, complement, inverses, divides, products,
 * max_common_vector/layout, up/down/recast, make_layout_tv, tile_to_shape,
 * local_tile, local_partition, evaluation.  Each function follows the
 * algorithm of the CuTe function of the same name (include/cute/layout.hpp,
 * layout_composed.hpp, swizzle_layout.hpp); the comments give the
 * definition, the preconditions and an example.
 */
#include <stdlib.h>
#include <string.h>

#include "layout/lay.h"
#include "layout/lay_int.h"

#define K(v) lay_int(c, (v))

static const lay_val *
L(lay_ctx *c, const lay_val *s, const lay_val *d)
{
	return lay_layout(c, s, d);
}

static const lay_val *
as_layout(lay_ctx *c, const lay_val *x, const char *op)
{
	if (!x)
		return NULL;
	if (x->kind == LAY_LAYOUT)
		return x;
	if (lay_is_inttuple(x))
		return lay_make_layout(c, x);
	return lay_fail(c, "%s: expects a layout, not a %s", op, lay_kind_name(x->kind));
}

/* ------------------------------------------------------ construction --- */

/* make_layout((2,1,3)) = (2,1,3):(1,0,2) */
const lay_val *
lay_make_layout(lay_ctx *c, const lay_val *shape)
{
	const lay_val *cur = K(1);

	if (!shape)
		return NULL;
	if (!lay_is_inttuple(shape))
		return lay_fail(c, "make_layout: the shape must be an int tuple");
	return L(c, shape, compact_col(c, shape, &cur));
}

const lay_val *
lay_make_layout_right(lay_ctx *c, const lay_val *shape)
{
	const lay_val *cur = K(1);

	if (!shape)
		return NULL;
	if (!lay_is_inttuple(shape))
		return lay_fail(c, "make_layout: the shape must be an int tuple");
	return L(c, shape, compact_row(c, shape, &cur));
}

/* make_layout(L0, L1, ...) = (S0,S1,...):(D0,D1,...) */
const lay_val *
lay_make_layout_n(lay_ctx *c, int n, const lay_val *const *ls)
{
	vec s = { 0 }, d = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		if (!ls[i])
			return NULL;
		if (ls[i]->kind != LAY_LAYOUT)
			return lay_fail(c, "make_layout: mode %d is a %s, not a layout", i, lay_kind_name(ls[i]->kind));
		vec_push(c, &s, ls[i]->u.l.shape);
		vec_push(c, &d, ls[i]->u.l.stride);
	}
	return L(c, vec_tuple(c, &s), vec_tuple(c, &d));
}

static const lay_val *
mk2(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	const lay_val *ls[2] = { a, b };

	if (!a || !b)
		return NULL;
	return lay_make_layout_n(c, 2, ls);
}

/* compact_order: strides follow the order ranks (smaller rank = smaller stride) */
static const lay_val *
compact_order_rec(lay_ctx *c, const lay_val *shape, const lay_val *order,
                  const lay_val *ref_shape, const lay_val *ref_order)
{
	vec v = { 0 };
	const lay_val *start;
	int i;

	if (!shape || !order)
		return NULL;
	if (order->kind == LAY_TUPLE) {
		if (shape->kind != LAY_TUPLE || shape->u.t.n != order->u.t.n)
			return lay_fail(c, "make_ordered_layout: shape and order need equal ranks");
		for (i = 0; i < order->u.t.n; i++)
			vec_push(c, &v, compact_order_rec(c, shape->u.t.e[i], order->u.t.e[i], ref_shape, ref_order));
		return vec_tuple(c, &v);
	}
	start = K(1);
	for (i = 0; i < ref_order->u.t.n; i++)
		if (ref_order->u.t.e[i]->u.i->value < order->u.i->value)
			start = iop(c, LAY_E_MUL, start, ref_shape->u.t.e[i]);
	return compact_col(c, shape, &start);
}

const lay_val *
lay_make_ordered_layout(lay_ctx *c, const lay_val *shape, const lay_val *order)
{
	const lay_val *ref_shape, *ref_order;

	if (!shape || !order)
		return NULL;
	if (!lay_is_inttuple(order) || !lay_is_static(order))
		return lay_fail(c, "make_ordered_layout: the order must be a static int tuple");
	ref_shape = tflatten_tuple(c, product_like(c, shape, order));
	ref_order = tflatten_tuple(c, order);
	if (!ref_shape || !ref_order)
		return NULL;
	return L(c, shape, compact_order_rec(c, shape, order, ref_shape, ref_order));
}

/* --------------------------------------------------- transform_layout --- */

typedef const lay_val *(*lfn2)(lay_ctx *, const lay_val *, const lay_val *);

/* make_layout(f(l_i, t_i) for i < rank(t), l_i for the rest of l) */
static const lay_val *
transform_layout2(lay_ctx *c, const lay_val *l, const lay_val *t, lfn2 f, int keep_rest, const char *op)
{
	vec ls = { 0 };
	int i, rl, rt;

	if (!l || !t)
		return NULL;
	rl = lay_rank(l);
	rt = rank_of(t);
	if (rt > rl)
		return lay_fail(c, "%s: the tiler has rank %d, more than the layout's rank %d", op, rt, rl);
	for (i = 0; i < rt; i++)
		vec_push(c, &ls, f(c, lget(c, l, i), t->u.t.e[i]));
	if (keep_rest)
		for (; i < rl; i++)
			vec_push(c, &ls, lget(c, l, i));
	if (ls.bad)
		return NULL;
	return lay_make_layout_n(c, ls.n, ls.e);
}

/* ---------------------------------------------------------- coalesce --- */

/*
 * coalesce(L): the shortest flat layout with the same function on
 * [0, size(L)).  Walk the flat modes right to left, merging s0:d0 into the
 * front s1:d1 when s0*d0 == d1 (all known) and skipping size-1 modes.
 * coalesce((2,(1,6)):(1,(6,2))) = 12:1.  `x` selects CuTe's coalesce_x,
 * which also preserves the function outside the domain (trailing 1 -> 2).
 */
static const lay_val *
coalesce_whole(lay_ctx *c, const lay_val *l, int x)
{
	const lay_val *fs, *fd, **ns, **nd, *prod;
	int r, i, nn;

	if (!l)
		return NULL;
	fs = tflatten_tuple(c, l->u.l.shape);
	fd = tflatten_tuple(c, l->u.l.stride);
	if (!fs || !fd)
		return NULL;
	r = fs->u.t.n;
	if (r == 0)
		return lay_fail(c, "coalesce: empty layout");
	ns = lay_alloc(c->arena, sizeof *ns * (size_t)(r + 1));
	nd = lay_alloc(c->arena, sizeof *nd * (size_t)(r + 1));
	if (!ns || !nd)
		return lay_fail(c, "out of memory");
	/* ns/nd hold the new modes from position `nn` (front) to r-1 */
	nn = r - 1;
	ns[nn] = (x && lay_is_const(fs->u.t.e[r - 1], 1)) ? K(2) : fs->u.t.e[r - 1];
	nd[nn] = fd->u.t.e[r - 1];
	for (i = r - 2; i >= 0; i--) {
		const lay_val *s = fs->u.t.e[i], *d = fd->u.t.e[i];
		if (lay_is_const(s, 1))
			continue;
		if (nn == r - 1 && lay_is_const(ns[nn], 1)) {
			ns[nn] = s;
			nd[nn] = d;
			continue;
		}
		prod = iop(c, LAY_E_MUL, s, d);
		if (!prod)
			return NULL;
		if (lay_is_static(ns[nn]) && lay_is_static(prod) && lay_is_static(nd[nn]) &&
		    prod->u.i->value == nd[nn]->u.i->value) {
			ns[nn] = iop(c, LAY_E_MUL, s, ns[nn]);
			nd[nn] = d;
			continue;
		}
		nn--;
		ns[nn] = s;
		nd[nn] = d;
	}
	if (nn == r - 1) {
		if (lay_is_const(ns[nn], 1))
			return L(c, K(1), K(0));
		return L(c, ns[nn], nd[nn]);
	}
	return L(c, lay_tuple(c, r - nn, ns + nn), lay_tuple(c, r - nn, nd + nn));
}

static const lay_val *
coalesce_prof(lay_ctx *c, const lay_val *l, const lay_val *profile, int x)
{
	vec ls = { 0 };
	int i, rl, rt;

	if (!l || !profile)
		return NULL;
	if (profile->kind != LAY_TUPLE)
		return coalesce_whole(c, l, x);
	rl = lay_rank(l);
	rt = profile->u.t.n;
	if (rt > rl)
		return lay_fail(c, "coalesce: the profile has rank %d, more than the layout's rank %d", rt, rl);
	for (i = 0; i < rt; i++)
		vec_push(c, &ls, coalesce_prof(c, lget(c, l, i), profile->u.t.e[i], x));
	for (; i < rl; i++)
		vec_push(c, &ls, lget(c, l, i));
	if (ls.bad)
		return NULL;
	return lay_make_layout_n(c, ls.n, ls.e);
}

const lay_val *
lay_coalesce(lay_ctx *c, const lay_val *l, const lay_val *profile)
{
	if (!l)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return layi_rewrap(c, l, lay_coalesce(c, l->u.c.b, profile));
	if (lay_is_inttuple(l) && !profile) {
		/* coalesce(shape): merge neighbours that are both static or both dynamic */
		const lay_val *f = tflatten_tuple(c, l), *acc;
		vec v = { 0 };
		int i;
		if (!f)
			return NULL;
		if (f->u.t.n == 0)
			return lay_fail(c, "coalesce: empty shape");
		acc = f->u.t.e[0];
		for (i = 1; i < f->u.t.n; i++) {
			const lay_val *a = f->u.t.e[i];
			if (lay_is_static(acc) == lay_is_static(a)) {
				acc = iop(c, LAY_E_MUL, acc, a);
			} else {
				vec_push(c, &v, acc);
				acc = a;
			}
		}
		if (v.n == 0)
			return acc;
		vec_push(c, &v, acc);
		return vec_tuple(c, &v);
	}
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "coalesce: expects a layout, not a %s", lay_kind_name(l->kind));
	return profile ? coalesce_prof(c, l, profile, 0) : coalesce_whole(c, l, 0);
}

static const lay_val *
coalesce_x(lay_ctx *c, const lay_val *l)
{
	return coalesce_whole(c, l, 1);
}

/* filter_zeros(L): modes with stride 0 get shape 1 */
static const lay_val *
fz(lay_ctx *c, const lay_val *d, const lay_val *s)
{
	vec v = { 0 };
	int i;

	if (!d || !s)
		return NULL;
	if (d->kind == LAY_TUPLE) {
		for (i = 0; i < d->u.t.n; i++)
			vec_push(c, &v, fz(c, d->u.t.e[i], s->u.t.e[i]));
		return vec_tuple(c, &v);
	}
	if (lay_is_const(d, 0))
		return repeat_like(c, s, 1);
	return s;
}

const lay_val *
lay_filter_zeros(lay_ctx *c, const lay_val *l)
{
	if (!l)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return layi_rewrap(c, l, lay_filter_zeros(c, l->u.c.b));
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "filter_zeros: expects a layout");
	return L(c, fz(c, l->u.l.stride, l->u.l.shape), l->u.l.stride);
}

static const lay_val *
filter_f(lay_ctx *c, const lay_val *l, const lay_val *profile)
{
	return lay_filter(c, l, profile);
}

/* filter(L) = coalesce(filter_zeros(L)): drop stride-0 and size-1 modes.
 * filter((4,2,3):(0,1,2)) = (2,3):(1,2) */
const lay_val *
lay_filter(lay_ctx *c, const lay_val *l, const lay_val *profile)
{
	if (!l)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return layi_rewrap(c, l, lay_filter(c, l->u.c.b, profile));
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "filter: expects a layout, not a %s", lay_kind_name(l->kind));
	if (profile && profile->kind == LAY_TUPLE)
		return transform_layout2(c, l, profile, filter_f, 1, "filter");
	return lay_coalesce(c, lay_filter_zeros(c, l), NULL);
}

/* -------------------------------------------------------- composition --- */

static const lay_val *
compose_impl(lay_ctx *c, const lay_val *ls, const lay_val *ld, const lay_val *rs, const lay_val *rd)
{
	const lay_val *rest_s, *rest_d;
	vec res_s = { 0 }, res_d = { 0 };
	int i, r;

	if (!ls || !ld || !rs || !rd)
		return NULL;
	if (rs->kind == LAY_TUPLE) {   /* right-distributivity */
		vec modes = { 0 };
		for (i = 0; i < rs->u.t.n; i++)
			vec_push(c, &modes, compose_impl(c, ls, ld, rs->u.t.e[i], rd->u.t.e[i]));
		if (modes.bad)
			return NULL;
		return lay_make_layout_n(c, modes.n, modes.e);
	}
	if (lay_is_const(rd, 0))
		return L(c, rs, rd);
	if (ls->kind != LAY_TUPLE)
		return L(c, rs, iop(c, LAY_E_MUL, rd, ld));
	r = ls->u.t.n;
	rest_s = rs;
	rest_d = rd;
	for (i = 0; i < r - 1; i++) {
		const lay_val *cs = ls->u.t.e[i], *cd = ld->u.t.e[i], *next_s, *next_d;
		if (lay_is_static(cs) && lay_is_static(rest_d)) {
			int64_t rsd = rest_d->u.i->value, csv = cs->u.i->value;
			if (csv == 0 || !(rsd % csv == 0 || rsd < csv))
				return lay_fail(c, "composition: stride divisibility condition violated "
				                "(rest stride %lld is neither a multiple of nor less than shape %lld)",
				                (long long)rsd, (long long)csv);
		}
		next_s = iop(c, LAY_E_CDIV, cs, iabs(c, rest_d));
		next_d = iop(c, LAY_E_MUL, iop(c, LAY_E_CDIV, iabs(c, rest_d), cs), isignum(c, rest_d));
		if (!next_s || !next_d)
			return NULL;
		if (lay_is_const(next_s, 1) || lay_is_const(rest_s, 1)) {
			rest_d = next_d;
		} else {
			const lay_val *new_s = iop(c, LAY_E_MIN, next_s, rest_s);
			if (!new_s)
				return NULL;
			if (lay_is_static(new_s) && lay_is_static(rest_s) &&
			    (new_s->u.i->value == 0 || rest_s->u.i->value % new_s->u.i->value != 0))
				return lay_fail(c, "composition: shape divisibility condition violated "
				                "(rest shape %lld is not a multiple of %lld)",
				                (long long)rest_s->u.i->value, (long long)new_s->u.i->value);
			vec_push(c, &res_s, new_s);
			vec_push(c, &res_d, iop(c, LAY_E_MUL, rest_d, cd));
			rest_s = iop(c, LAY_E_DIV, rest_s, new_s);
			rest_d = next_d;
		}
	}
	if (res_s.bad || res_d.bad)
		return NULL;
	if (res_s.n == 0)
		return L(c, rest_s, iop(c, LAY_E_MUL, rest_d, ld->u.t.e[r - 1]));
	if (lay_is_const(rest_s, 1))
		return L(c, unwrap(vec_tuple(c, &res_s)), unwrap(vec_tuple(c, &res_d)));
	vec_push(c, &res_s, rest_s);
	vec_push(c, &res_d, iop(c, LAY_E_MUL, rest_d, ld->u.t.e[r - 1]));
	return L(c, vec_tuple(c, &res_s), vec_tuple(c, &res_d));
}

static int
ctz32(uint64_t x)
{
	return x ? __builtin_ctzll(x) : 32;
}

/* make_swizzle<Y,Z>: the swizzle with yyy mask Y and zzz mask Z */
static const lay_val *
make_swizzle(lay_ctx *c, uint64_t y, uint64_t z)
{
	int by = __builtin_popcountll(y), bz = __builtin_popcountll(z);
	int tzy = ctz32(y), tzz = ctz32(z), m, s, b;
	uint64_t bits, ym, zm;

	if (by != bz)
		return lay_fail(c, "composition: swizzle masks have different numbers of bits");
	b = by;
	m = (tzy < tzz ? tzy : tzz) % 32;
	s = tzy - tzz;
	if ((s < 0 ? -s : s) < b)
		return lay_fail(c, "composition: the layout does not map the swizzle onto a swizzle");
	bits = ((uint64_t)1 << b) - 1;
	ym = bits << (m + (s > 0 ? s : 0));
	zm = bits << (m - (s < 0 ? s : 0));
	if ((y | z) != (ym | zm))
		return lay_fail(c, "composition: the layout does not map the swizzle onto a swizzle");
	return lay_swizzle(c, b, m, s);
}

static uint64_t
sw_ymask(const lay_val *sw)
{
	int s = sw->u.sw.s;
	return ((((uint64_t)1 << sw->u.sw.b) - 1) << (sw->u.sw.m + (s > 0 ? s : 0)));
}

static uint64_t
sw_zmask(const lay_val *sw)
{
	int s = sw->u.sw.s;
	return ((((uint64_t)1 << sw->u.sw.b) - 1) << (sw->u.sw.m - (s < 0 ? s : 0)));
}

static const lay_val *
compose_tiler_f(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return lay_composition(c, l, t);
}

/*
 * composition(A, B) = R with R(c) = A(B(c)) for every c in B's domain and
 * R compatible with B.  B may be a layout, a tiler (applied mode by mode;
 * modes of A beyond the tiler are dropped), an integer n (= n:1 on the
 * coalesced A), `_`, a swizzle or a composed layout.
 * Preconditions (checked when known): stride and shape divisibility.
 */
const lay_val *
lay_composition(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	const lay_val *fa;

	if (!a || !b)
		return NULL;
	if (a->kind == LAY_COMPOSED)
		return layi_rewrap(c, a, lay_composition(c, a->u.c.b, b));
	if (a->kind == LAY_SWIZZLE) {
		if (b->kind == LAY_SWIZZLE) {
			if (a->u.sw.s != b->u.sw.s)
				return lay_fail(c, "composition: can only merge swizzles of the same shift");
			return make_swizzle(c, sw_ymask(a) ^ sw_ymask(b), sw_zmask(a) ^ sw_zmask(b));
		}
		b = as_layout(c, b, "composition");
		return lay_composed(c, a, lay_e_const(c, 0), b);
	}
	if (a->kind == LAY_VIEW)
		return lay_view(c, a->u.v.off, lay_composition(c, a->u.v.l, b));
	if (a->kind != LAY_LAYOUT)
		return lay_fail(c, "composition: the left operand must be a layout, not a %s", lay_kind_name(a->kind));
	switch (b->kind) {
	case LAY_LAYOUT:
		fa = coalesce_x(c, a);
		if (!fa)
			return NULL;
		return compose_impl(c, fa->u.l.shape, fa->u.l.stride, b->u.l.shape, b->u.l.stride);
	case LAY_TUPLE:
		return transform_layout2(c, a, b, compose_tiler_f, 0, "composition");
	case LAY_UNDERSCORE:
		return a;
	case LAY_INT:
		fa = coalesce_x(c, a);
		if (!fa)
			return NULL;
		return compose_impl(c, fa->u.l.shape, fa->u.l.stride, b, K(1));
	case LAY_COMPOSED:
		if (!lay_e_is_const(b->u.c.off, 0))
			return lay_fail(c, "composition: composing with a composed layout requires offset 0");
		return lay_composition(c, lay_composition(c, a, b->u.c.a), b->u.c.b);
	case LAY_SWIZZLE: {
		const lay_val *y = lay_apply(c, a, K((int64_t)sw_ymask(b)));
		const lay_val *z = lay_apply(c, a, K((int64_t)sw_zmask(b)));
		if (!y || !z)
			return NULL;
		if (!lay_is_static(y) || !lay_is_static(z))
			return lay_fail(c, "composition: layout o swizzle needs a static layout");
		return lay_composition(c, make_swizzle(c, (uint64_t)y->u.i->value, (uint64_t)z->u.i->value), a);
	}
	default:
		return lay_fail(c, "composition: cannot compose with a %s", lay_kind_name(b->kind));
	}
}

/* ---------------------------------------------------------- cosize --- */

const lay_val *
lay_cosize(lay_ctx *c, const lay_val *l)
{
	const lay_val *fs, *fd, *acc;
	int i;

	if (!l)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return lay_cosize(c, l->u.c.b);
	if (l->kind == LAY_VIEW)
		return lay_cosize(c, l->u.v.l);
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "cosize: expects a layout, not a %s", lay_kind_name(l->kind));
	fs = tflatten_tuple(c, l->u.l.shape);
	fd = tflatten_tuple(c, l->u.l.stride);
	if (!fs || !fd)
		return NULL;
	acc = K(0);
	for (i = 0; i < fs->u.t.n; i++)
		acc = iop(c, LAY_E_ADD, acc, iop(c, LAY_E_MUL, iop(c, LAY_E_SUB, fs->u.t.e[i], K(1)), iabs(c, fd->u.t.e[i])));
	return iop(c, LAY_E_ADD, acc, K(1));
}

/* ---------------------------------------------------------- complement --- */

static const lay_val *
cotarget_shape(lay_ctx *c, const lay_val *t)
{
	if (!t)
		return NULL;
	if (t->kind == LAY_LAYOUT)
		return t->u.l.shape;
	if (!lay_is_inttuple(t))
		return lay_fail(c, "complement: the cotarget must be an int tuple or a layout");
	return t;
}

/*
 * Domain checks of complement and left_inverse (CuTe states them, does not
 * check them): known strides non-negative, and the layout injective.  The
 * injectivity of a static layout is decided exactly by listing its offsets
 * when it has at most INJ_MAX elements; larger or run-time layouts pass.
 */
#define INJ_MAX 65536

static int
flat_static(const lay_val *s, const lay_val *d, int64_t *fs, int64_t *fd, int *n, int max)
{
	int i;

	if (s->kind == LAY_TUPLE) {
		for (i = 0; i < s->u.t.n; i++)
			if (!flat_static(s->u.t.e[i], d->u.t.e[i], fs, fd, n, max))
				return 0;
		return 1;
	}
	if (s->kind != LAY_INT || d->kind != LAY_INT || !lay_e_known(s->u.i) || !lay_e_known(d->u.i) || *n >= max)
		return 0;
	fs[*n] = s->u.i->value;
	fd[*n] = d->u.i->value;
	(*n)++;
	return 1;
}

static int
cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* 1: injective; 0: not; -1: not decided (run-time leaves, too large) */
static int
injective(const lay_val *l)
{
	int64_t fs[64], fd[64], crd[64], size = 1, i, off = 0, *offs;
	int n = 0, k, ok = 1;

	if (!flat_static(l->u.l.shape, l->u.l.stride, fs, fd, &n, 64))
		return -1;
	for (k = 0; k < n; k++) {
		if (fs[k] <= 0)
			return -1;
		if (fs[k] > 1 && fd[k] == 0)
			return 0;
		if (size > INJ_MAX / fs[k])
			return -1;
		size *= fs[k];
		crd[k] = 0;
	}
	offs = malloc(sizeof *offs * (size_t)size);
	if (!offs)
		return -1;
	for (i = 0; i < size; i++) {   /* colexicographic walk, offset kept incrementally */
		offs[i] = off;
		for (k = 0; k < n; k++) {
			if (++crd[k] < fs[k]) {
				off += fd[k];
				break;
			}
			off -= (fs[k] - 1) * fd[k];
			crd[k] = 0;
		}
	}
	qsort(offs, (size_t)size, sizeof *offs, cmp64);
	for (i = 1; i < size && ok; i++)
		ok = offs[i] != offs[i - 1];
	free(offs);
	return ok;
}

static int
has_negative(const lay_val *d)
{
	int i;

	if (d->kind == LAY_TUPLE) {
		for (i = 0; i < d->u.t.n; i++)
			if (has_negative(d->u.t.e[i]))
				return 1;
		return 0;
	}
	return d->kind == LAY_INT && lay_e_known(d->u.i) && d->u.i->value < 0;
}

/*
 * complement(A, M): the layout B of ordered, disjoint offsets such that
 * (A, B) covers [0, M) injectively: complement(4:2, 24) = (2,3):(1,8).
 * Without M, M = cosize(A).  Precondition: A injective with static strides
 * (or of rank 1); violations are "non-injective layout" errors.
 */
const lay_val *
lay_complement(lay_ctx *c, const lay_val *l, const lay_val *cotarget)
{
	const lay_val *f, *sh, *st, *ns, *nd, *rest_s, *rest_d, *cur;
	const lay_val **ss, **dd;
	vec rs = { 0 }, rd = { 0 };
	int n, i, j;

	if (!l)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return lay_complement(c, l->u.c.b, cotarget ? cotarget : lay_cosize(c, l->u.c.b));
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "complement: expects a layout, not a %s", lay_kind_name(l->kind));
	f = lay_filter(c, l, NULL);
	if (!f)
		return NULL;
	if (has_negative(l->u.l.stride))
		return lay_fail(c, "complement: negative stride in (%s) (the complement needs non-negative strides)", lay_to_string(c, l));
	if (injective(f) == 0)
		return lay_fail(c, "complement: non-injective layout (%s)", lay_to_string(c, l));
	cotarget = cotarget ? cotarget_shape(c, cotarget) : lay_cosize(c, f);
	if (!cotarget)
		return NULL;
	sh = f->u.l.shape;
	st = f->u.l.stride;
	if (lay_is_const(st, 0))
		return lay_make_layout(c, lay_coalesce(c, cotarget, NULL));
	n = rank_of(sh);
	if (n > 1 && !lay_is_static(st))
		return lay_fail(c, "complement: dynamic strides are supported only for rank-1 layouts");
	ss = lay_alloc(c->arena, sizeof *ss * (size_t)n);
	dd = lay_alloc(c->arena, sizeof *dd * (size_t)n);
	if (!ss || !dd)
		return lay_fail(c, "out of memory");
	for (i = 0; i < n; i++) {
		ss[i] = tget(c, sh, i);
		dd[i] = tget(c, st, i);
	}
	vec_push(c, &rd, K(1));
	for (i = 0; i < n - 1; i++) {
		int m = 0, left = n - i;
		for (j = 1; j < left; j++)
			if (dd[j]->u.i->value < dd[m]->u.i->value)
				m = j;
		ns = iop(c, LAY_E_DIV, dd[m], rd.e[i]);
		nd = iop(c, LAY_E_MUL, dd[m], ss[m]);
		if (!ns || !nd)
			return NULL;
		if (lay_is_const(ns, 0))
			return lay_fail(c, "complement: non-injective layout (%s)", lay_to_string(c, l));
		for (j = m; j < left - 1; j++) {
			ss[j] = ss[j + 1];
			dd[j] = dd[j + 1];
		}
		vec_push(c, &rs, ns);
		vec_push(c, &rd, nd);
	}
	ns = iop(c, LAY_E_DIV, dd[0], rd.e[n - 1]);
	if (!ns)
		return NULL;
	if (lay_is_const(ns, 0))
		return lay_fail(c, "complement: non-injective layout (%s)", lay_to_string(c, l));
	vec_push(c, &rs, ns);
	nd = iop(c, LAY_E_MUL, dd[0], ss[0]);
	rest_s = lay_coalesce(c, lay_ceil_div(c, cotarget, nd), NULL);
	cur = nd;
	rest_d = compact_col(c, rest_s, &cur);
	if (rs.bad || rd.bad || !rest_s || !rest_d)
		return NULL;
	return lay_coalesce(c, L(c, lay_tuple2(c, vec_tuple(c, &rs), rest_s),
	                            lay_tuple2(c, vec_tuple(c, &rd), rest_d)), NULL);
}

/* ------------------------------------------------------------ inverses --- */

/* exchange sort of indices by key, exactly as CuTe's detail::exchange_sort */
static void
exchange_sort(int n, int64_t *key, int *val)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (key[j] < key[i]) {
				int64_t tk = key[i]; int tv = val[i];
				key[i] = key[j]; val[i] = val[j];
				key[j] = tk; val[j] = tv;
			}
}

/*
 * right_inverse(L): R with L(R(i)) == i for all i < size(R), as large as the
 * contiguous part of L's image allows.  right_inverse((4,8):(8,1)) = (8,4):(4,1).
 */
const lay_val *
lay_right_inverse(lay_ctx *c, const lay_val *l)
{
	const lay_val *cl, *sh, *st, **pre, *curr;
	vec rs = { 0 }, rd = { 0 };
	int64_t *key;
	int *val, n, m = 0, i;

	if (!l)
		return NULL;
	if (l->kind == LAY_COMPOSED) {
		if (!lay_e_is_const(l->u.c.off, 0))
			return lay_fail(c, "right_inverse: composed layouts with a non-zero offset are not supported");
		return lay_composition(c, lay_right_inverse(c, l->u.c.b), l->u.c.a);
	}
	if (l->kind == LAY_SWIZZLE)
		return l;
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "right_inverse: expects a layout, not a %s", lay_kind_name(l->kind));
	cl = lay_coalesce(c, l, NULL);
	if (!cl)
		return NULL;
	sh = cl->u.l.shape;
	st = cl->u.l.stride;
	n = rank_of(sh);
	pre = lay_alloc(c->arena, sizeof *pre * (size_t)(n + 1));
	key = lay_alloc(c->arena, sizeof *key * (size_t)(n + 1));
	val = lay_alloc(c->arena, sizeof *val * (size_t)(n + 1));
	if (!pre || !key || !val)
		return lay_fail(c, "out of memory");
	pre[0] = K(1);
	for (i = 0; i < n; i++)
		pre[i + 1] = iop(c, LAY_E_MUL, tget(c, sh, i), pre[i]);
	for (i = 0; i < n; i++) {
		const lay_val *d = tget(c, st, i);
		if (lay_is_static(d)) {
			key[m] = d->u.i->value;
			val[m++] = i;
		}
	}
	exchange_sort(m, key, val);
	vec_push(c, &rs, K(1));
	vec_push(c, &rd, K(0));
	curr = K(1);
	for (i = 0; i < m; i++) {
		const lay_val *is = tget(c, sh, val[i]);
		if (lay_is_static(curr) && curr->u.i->value == key[i]) {
			vec_push(c, &rs, is);
			vec_push(c, &rd, pre[val[i]]);
			curr = iop(c, LAY_E_MUL, is, tget(c, st, val[i]));
			if (!curr)
				return NULL;
		}
	}
	return lay_coalesce(c, L(c, vec_tuple(c, &rs), vec_tuple(c, &rd)), NULL);
}

/*
 * left_inverse(L): R with R(L(i)) == i for all i < size(L) (L injective,
 * static strides).  left_inverse((4,8):(8,1)) = (8,4):(4,1).
 */
const lay_val *
lay_left_inverse(lay_ctx *c, const lay_val *l)
{
	const lay_val *cl, *sh, *st, **pre, *sz;
	vec rs = { 0 }, rd = { 0 };
	int64_t *key;
	int *val, n, i;

	if (!l)
		return NULL;
	if (l->kind == LAY_COMPOSED) {
		if (!lay_e_is_const(l->u.c.off, 0))
			return lay_fail(c, "left_inverse: composed layouts with a non-zero offset are not supported");
		return lay_composition(c, lay_left_inverse(c, l->u.c.b), l->u.c.a);
	}
	if (l->kind == LAY_SWIZZLE)
		return l;
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "left_inverse: expects a layout, not a %s", lay_kind_name(l->kind));
	/* CuTe's left_inverse ignores stride-0 and size-1 modes: the filtered
	 * layout must be injective */
	if (injective(lay_filter(c, l, NULL)) == 0)
		return lay_fail(c, "left_inverse: non-injective layout (%s)", lay_to_string(c, l));
	if (has_negative(lay_filter(c, l, NULL)->u.l.stride))
		return lay_fail(c, "left_inverse: negative stride in (%s) (CuTe's result would not satisfy R(L(i)) == i)", lay_to_string(c, l));
	cl = lay_coalesce(c, l, NULL);
	if (!cl)
		return NULL;
	sh = cl->u.l.shape;
	st = cl->u.l.stride;
	if (!lay_is_static(st))
		return lay_fail(c, "left_inverse: requires static strides");
	n = rank_of(sh);
	pre = lay_alloc(c->arena, sizeof *pre * (size_t)(n + 1));
	key = lay_alloc(c->arena, sizeof *key * (size_t)(n + 1));
	val = lay_alloc(c->arena, sizeof *val * (size_t)(n + 1));
	if (!pre || !key || !val)
		return lay_fail(c, "out of memory");
	pre[0] = K(1);
	for (i = 0; i < n; i++) {
		pre[i + 1] = iop(c, LAY_E_MUL, tget(c, sh, i), pre[i]);
		key[i] = tget(c, st, i)->u.i->value;
		val[i] = i;
	}
	exchange_sort(n, key, val);
	vec_push(c, &rd, K(0));
	for (i = 0; i < n; i++) {
		if (key[i] == 0)
			continue;
		sz = product(c, vec_tuple(c, &rs));
		if (!sz)
			return NULL;
		if (!lay_is_static(sz) || key[i] % sz->u.i->value != 0)
			return lay_fail(c, "left_inverse: divisibility condition violated (stride %lld is not a multiple of %s)",
			                (long long)key[i], lay_to_string(c, sz));
		vec_push(c, &rs, iop(c, LAY_E_DIV, K(key[i]), sz));
		vec_push(c, &rd, pre[val[i]]);
	}
	vec_push(c, &rs, tget(c, sh, val[n - 1]));
	return lay_coalesce(c, L(c, vec_tuple(c, &rs), vec_tuple(c, &rd)), NULL);
}

/* ------------------------------------------------------------- divides --- */

static const lay_val *
repeat_us(lay_ctx *c, int n)
{
	vec v = { 0 };
	int i;

	if (n == 1)
		return lay_underscore(c);
	for (i = 0; i < n; i++)
		vec_push(c, &v, lay_underscore(c));
	return vec_tuple(c, &v);
}

static const lay_val *
logical_divide_f(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return lay_logical_divide(c, l, t);
}

/*
 * logical_divide(L, T) = composition(L, make_layout(T, complement(T, size(L)))):
 * mode 0 is the tile, mode 1 the tiles.  For a tuple tiler, mode by mode.
 * logical_divide(16:1, 4:1) = (4,4):(1,4).
 */
const lay_val *
lay_logical_divide(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	const lay_val *cl;

	if (!l || !t)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return layi_rewrap(c, l, lay_logical_divide(c, l->u.c.b, t));
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "logical_divide: expects a layout, not a %s", lay_kind_name(l->kind));
	switch (t->kind) {
	case LAY_LAYOUT:
		cl = lay_coalesce(c, l, NULL);
		if (!cl)
			return NULL;
		return lay_composition(c, l, mk2(c, t, lay_complement(c, t, cl->u.l.shape)));
	case LAY_TUPLE:
		return transform_layout2(c, l, t, logical_divide_f, 1, "logical_divide");
	case LAY_UNDERSCORE:
		return l;
	case LAY_INT:
		return lay_logical_divide(c, l, lay_make_layout(c, t));
	default:
		return lay_fail(c, "logical_divide: the tiler cannot be a %s", lay_kind_name(t->kind));
	}
}

static const lay_val *
tile_unzip(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	if (!l || !t)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return layi_rewrap(c, l, tile_unzip(c, l->u.c.b, t));
	return L(c, tzip2_by(c, l->u.l.shape, t), tzip2_by(c, l->u.l.stride, t));
}

/* slice a layout or a composed layout with an all-`_` coordinate */
static const lay_val *
reshape_slice(lay_ctx *c, const lay_val *l, const lay_val *coord)
{
	if (!l || !coord)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return layi_rewrap(c, l, reshape_slice(c, l->u.c.b, coord));
	return lay_slice(c, coord, l);
}

static const lay_val *
unpack(lay_ctx *c, const lay_val *r, int both)
{
	const lay_val *s;

	if (!r)
		return NULL;
	s = shape_of(c, r);
	if (!s || rank_of(s) != 2)
		return s ? lay_fail(c, "internal: expected a rank-2 result") : NULL;
	return reshape_slice(c, r, lay_tuple2(c, both ? repeat_us(c, rank_of(tget(c, s, 0))) : lay_underscore(c),
	                                         repeat_us(c, rank_of(tget(c, s, 1)))));
}

/* zipped_divide: ((tile modes...),(rest modes...)) */
const lay_val *
lay_zipped_divide(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return tile_unzip(c, lay_logical_divide(c, l, t), t);
}

/* tiled_divide: ((tile modes...),rest0,rest1,...) */
const lay_val *
lay_tiled_divide(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return unpack(c, lay_zipped_divide(c, l, t), 0);
}

/* flat_divide: (tile0,tile1,...,rest0,rest1,...) */
const lay_val *
lay_flat_divide(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return unpack(c, lay_zipped_divide(c, l, t), 1);
}

/* ------------------------------------------------------------ products --- */

static const lay_val *
logical_product_f(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return lay_logical_product(c, l, t);
}

/*
 * logical_product(A, Sw o B): the product with B, and a new swizzle that
 * acts on the result's strides as Sw acted on B's (CuTe: find the Y and Z
 * bits B actually reaches, map them through B and the new layout).
 */
static const lay_val *
product_swizzled_tiler(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	const lay_val *sw = t->u.c.a, *b = t->u.c.b, *nl, *proj, *onl, *bits, *nz, *ny;
	int bb = sw->u.sw.b, m = sw->u.sw.m, as = sw->u.sw.s < 0 ? -sw->u.sw.s : sw->u.sw.s;
	int64_t act, az, ay;
	const lay_val *ps[5], *pd[5];

	if (!lay_e_is_const(t->u.c.off, 0))
		return lay_fail(c, "logical_product: a swizzled tiler must have offset 0");
	nl = lay_logical_product(c, l, b);
	ps[0] = K((int64_t)1 << m); ps[1] = K((int64_t)1 << bb); ps[2] = K((int64_t)1 << (as - bb));
	ps[3] = K((int64_t)1 << bb); ps[4] = K(1);
	pd[0] = K(0); pd[1] = K((int64_t)1 << m); pd[2] = K(0); pd[3] = K((int64_t)1 << (m + as)); pd[4] = K(0);
	proj = L(c, lay_tuple(c, 5, ps), lay_tuple(c, 5, pd));
	onl = lay_composition(c, proj, b);
	if (!nl || !onl)
		return NULL;
	bits = lay_apply(c, onl, iop(c, LAY_E_SUB, lay_size(c, onl), K(1)));
	if (!bits || !lay_is_static(bits))
		return bits ? lay_fail(c, "logical_product: a swizzled tiler must be static") : NULL;
	act = bits->u.i->value;
	az = act & (int64_t)sw_zmask(sw);
	ay = act & (int64_t)sw_ymask(sw);
	nz = lay_apply(c, nl, lay_tuple2(c, K(0), lay_apply(c, b, K(az))));
	ny = lay_apply(c, nl, lay_tuple2(c, K(0), lay_apply(c, b, K(ay))));
	if (!nz || !ny || !lay_is_static(nz) || !lay_is_static(ny))
		return NULL;
	return lay_composition(c, make_swizzle(c, (uint64_t)ny->u.i->value, (uint64_t)nz->u.i->value), nl);
}

/*
 * logical_product(A, B) = (A, composition(complement(A, size(A)*cosize(B)), B)):
 * mode 0 is A, mode 1 is B's arrangement of copies of A.
 * logical_product((2,2):(4,1), 6:1) = ((2,2),(2,3)):((4,1),(2,8)).
 */
const lay_val *
lay_logical_product(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	if (!l || !t)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return layi_rewrap(c, l, lay_logical_product(c, l->u.c.b, t));
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "logical_product: expects a layout, not a %s", lay_kind_name(l->kind));
	switch (t->kind) {
	case LAY_LAYOUT:
		return mk2(c, l, lay_composition(c, lay_complement(c, l, iop(c, LAY_E_MUL, lay_size(c, l), lay_cosize(c, t))), t));
	case LAY_TUPLE:
		return transform_layout2(c, l, t, logical_product_f, 1, "logical_product");
	case LAY_UNDERSCORE:
		return l;
	case LAY_INT:
		return lay_logical_product(c, l, lay_make_layout(c, t));
	case LAY_COMPOSED:
		return product_swizzled_tiler(c, l, t);
	default:
		return lay_fail(c, "logical_product: the tiler cannot be a %s", lay_kind_name(t->kind));
	}
}

const lay_val *
lay_zipped_product(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return tile_unzip(c, lay_logical_product(c, l, t), t);
}

const lay_val *
lay_tiled_product(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return unpack(c, lay_zipped_product(c, l, t), 0);
}

const lay_val *
lay_flat_product(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return unpack(c, lay_zipped_product(c, l, t), 1);
}

static const lay_val *
rank_product(lay_ctx *c, const lay_val *block, const lay_val *tiler, int raked, const char *op)
{
	const lay_val *r, *a, *b;
	int n;

	if (!block || !tiler)
		return NULL;
	if (block->kind == LAY_COMPOSED)
		return layi_rewrap(c, block, rank_product(c, block->u.c.b, tiler, raked, op));
	block = as_layout(c, block, op);
	tiler = as_layout(c, tiler, op);
	if (!block || !tiler)
		return NULL;
	n = lay_rank(block) > lay_rank(tiler) ? lay_rank(block) : lay_rank(tiler);
	r = lay_logical_product(c, lay_append_n(c, block, n, NULL), lay_append_n(c, tiler, n, NULL));
	if (!r)
		return NULL;
	a = lget(c, r, raked ? 1 : 0);
	b = lget(c, r, raked ? 0 : 1);
	if (!a || !b)
		return NULL;
	return L(c, tzip(c, lay_tuple2(c, a->u.l.shape, b->u.l.shape)), tzip(c, lay_tuple2(c, a->u.l.stride, b->u.l.stride)));
}

/* blocked_product(A, B): B's arrangement of whole copies of A, mode by mode.
 * blocked_product((2,2):(1,2), (2,3):(1,2)) = ((2,2),(2,3)):((1,4),(2,8)) */
const lay_val *
lay_blocked_product(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return rank_product(c, l, t, 0, "blocked_product");
}

/* raked_product(A, B): copies of A interleaved by B, mode by mode. */
const lay_val *
lay_raked_product(lay_ctx *c, const lay_val *l, const lay_val *t)
{
	return rank_product(c, l, t, 1, "raked_product");
}

/* ---------------------------------------------- max common vector/layout --- */

static const lay_val *
mcl_plain(lay_ctx *c, const lay_val *a, const lay_val *b, int vector)
{
	const lay_val *inv, *common, *s0, *d0;

	inv = lay_right_inverse(c, b);
	common = lay_coalesce(c, lay_composition(c, a, inv), NULL);
	if (!common)
		return NULL;
	s0 = tget(c, common->u.l.shape, 0);
	d0 = tget(c, common->u.l.stride, 0);
	if (lay_is_static(s0) && lay_is_const(d0, 1))
		return vector ? s0 : lay_composition(c, inv, lget(c, common, 0));
	return vector ? K(1) : L(c, K(1), K(0));
}

static const lay_val *
imin(lay_ctx *c, const lay_val *a, int64_t k)
{
	return iop(c, LAY_E_MIN, a, K(k));
}

/* max_common_vector(A, B): the largest N with A(B^-1(i)) == i for i < N. */
const lay_val *
lay_max_common_vector(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	if (!a || !b)
		return NULL;
	if (a->kind == LAY_COMPOSED && b->kind == LAY_COMPOSED) {
		const lay_val *v = lay_max_common_vector(c, a->u.c.b, b->u.c.b);
		if (lay_equal(a->u.c.a, b->u.c.a))
			return v;
		return imin(c, imin(c, v, (int64_t)1 << a->u.c.a->u.sw.m), (int64_t)1 << b->u.c.a->u.sw.m);
	}
	if (a->kind == LAY_COMPOSED)
		return imin(c, lay_max_common_vector(c, a->u.c.b, b), (int64_t)1 << a->u.c.a->u.sw.m);
	if (b->kind == LAY_COMPOSED)
		return lay_max_common_vector(c, b, a);
	if (a->kind != LAY_LAYOUT || b->kind != LAY_LAYOUT)
		return lay_fail(c, "max_common_vector: expects layouts");
	return mcl_plain(c, a, b, 1);
}

const lay_val *
lay_max_common_layout(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	if (!a || !b)
		return NULL;
	if (a->kind == LAY_COMPOSED && b->kind == LAY_LAYOUT) {
		const lay_val *common = lay_max_common_layout(c, a->u.c.b, b), *sz;
		int64_t base = (int64_t)1 << a->u.c.a->u.sw.m;
		sz = lay_size(c, common);
		if (!sz)
			return NULL;
		if (lay_is_static(sz) && base < sz->u.i->value)
			return lay_composition(c, common, K(base));
		return common;
	}
	if (a->kind == LAY_LAYOUT && b->kind == LAY_COMPOSED)
		return lay_max_common_layout(c, b, a);
	if (a->kind != LAY_LAYOUT || b->kind != LAY_LAYOUT)
		return lay_fail(c, "max_common_layout: expects layouts");
	return mcl_plain(c, a, b, 0);
}

/* ---------------------------------------------------- up/down/recast --- */

static int
log2_exact(int64_t n)
{
	int k = 0;

	if (n <= 0 || (n & (n - 1)))
		return -1;
	while (((int64_t)1 << k) < n)
		k++;
	return k;
}

static const lay_val *
upcast_rec(lay_ctx *c, const lay_val *s, const lay_val *d, int64_t n)
{
	vec ls = { 0 };
	int i;

	if (!s || !d)
		return NULL;
	if (s->kind == LAY_TUPLE) {
		for (i = 0; i < s->u.t.n; i++)
			vec_push(c, &ls, upcast_rec(c, s->u.t.e[i], d->u.t.e[i], n));
		if (ls.bad)
			return NULL;
		return lay_make_layout_n(c, ls.n, ls.e);
	}
	if (lay_is_const(d, 0))
		return L(c, s, d);
	if (lay_is_static(d)) {
		int64_t dv = d->u.i->value;
		if (!(dv % n == 0 || n % dv == 0))
			return lay_fail(c, "upcast: divisibility condition violated (stride %lld and %lld)", (long long)dv, (long long)n);
		return L(c, iop(c, LAY_E_CDIV, s, iop(c, LAY_E_CDIV, K(n), iabs(c, d))),
		            iop(c, LAY_E_MUL, isignum(c, d), iop(c, LAY_E_CDIV, iabs(c, d), K(n))));
	}
	return L(c, s, iop(c, LAY_E_DIV, d, K(n)));
}

/* upcast(L, N): N elements become one; stride-1 modes shrink by N, other
 * strides divide by N.  upcast((4,8):(1,4), 2) = (2,8):(1,2). */
const lay_val *
lay_upcast(lay_ctx *c, const lay_val *l, int64_t n)
{
	if (!l)
		return NULL;
	if (n <= 0)
		return lay_fail(c, "upcast: N must be positive");
	if (l->kind == LAY_COMPOSED) {
		int k = log2_exact(n), m;
		const lay_val *sw = l->u.c.a;
		if (k < 0)
			return lay_fail(c, "upcast: N must be a power of two for a swizzled layout");
		m = sw->u.sw.m - k;
		sw = m >= 0 ? lay_swizzle(c, sw->u.sw.b, m, sw->u.sw.s)
		            : lay_swizzle(c, sw->u.sw.b + m > 0 ? sw->u.sw.b + m : 0, 0, sw->u.sw.s);
		return layi_composed_keep(c, sw, lay_e_bin(c, LAY_E_DIV, l->u.c.off, lay_e_const(c, n)), lay_upcast(c, l->u.c.b, n));
	}
	if (l->kind == LAY_SWIZZLE)
		return lay_fail(c, "upcast: apply to a swizzled layout, not a bare swizzle");
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "upcast: expects a layout, not a %s", lay_kind_name(l->kind));
	return upcast_rec(c, l->u.l.shape, l->u.l.stride, n);
}

static int
has_int1(const lay_val *d)
{
	int i;

	if (d->kind == LAY_TUPLE) {
		for (i = 0; i < d->u.t.n; i++)
			if (has_int1(d->u.t.e[i]))
				return 1;
		return 0;
	}
	return lay_is_const(d, 1);
}

static const lay_val *
downcast_rec(lay_ctx *c, const lay_val *s, const lay_val *d, int64_t n)
{
	vec ls = { 0 };
	int i;

	if (!s || !d)
		return NULL;
	if (s->kind == LAY_TUPLE) {
		for (i = 0; i < s->u.t.n; i++)
			vec_push(c, &ls, downcast_rec(c, s->u.t.e[i], d->u.t.e[i], n));
		if (ls.bad)
			return NULL;
		return lay_make_layout_n(c, ls.n, ls.e);
	}
	if (lay_is_const(d, 1) || lay_is_const(d, -1))
		return L(c, iop(c, LAY_E_MUL, s, K(n)), d);
	return L(c, s, iop(c, LAY_E_MUL, d, K(n)));
}

/* downcast(L, N): one element becomes N; stride-1 modes grow by N, other
 * strides multiply by N.  Requires a static stride-1 mode. */
const lay_val *
lay_downcast(lay_ctx *c, const lay_val *l, int64_t n)
{
	if (!l)
		return NULL;
	if (n <= 0)
		return lay_fail(c, "downcast: N must be positive");
	if (l->kind == LAY_COMPOSED) {
		int k = log2_exact(n);
		if (k < 0)
			return lay_fail(c, "downcast: N must be a power of two for a swizzled layout");
		return layi_composed_keep(c, lay_swizzle(c, l->u.c.a->u.sw.b, l->u.c.a->u.sw.m + k, l->u.c.a->u.sw.s),
		                    lay_e_bin(c, LAY_E_MUL, l->u.c.off, lay_e_const(c, n)), lay_downcast(c, l->u.c.b, n));
	}
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "downcast: expects a layout, not a %s", lay_kind_name(l->kind));
	if (!has_int1(l->u.l.stride))
		return lay_fail(c, "downcast: requires adjacent elements (a stride-1 mode)");
	return downcast_rec(c, l->u.l.shape, l->u.l.stride, n);
}

static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a < 0 ? -a : a;
}

/* recast(L, OLD_BITS, NEW_BITS): the layout of the same bytes seen as
 * elements of NEW_BITS: upcast by new/old or downcast by old/new. */
const lay_val *
lay_recast(lay_ctx *c, const lay_val *l, int64_t old_bits, int64_t new_bits)
{
	int64_t g, num, den;

	if (old_bits <= 0 || new_bits <= 0)
		return lay_fail(c, "recast: element sizes must be positive");
	g = gcd64(new_bits, old_bits);
	num = new_bits / g;
	den = old_bits / g;
	if (num == 1 && den == 1)
		return l;
	if (num == 1)
		return lay_downcast(c, l, den);
	if (den == 1)
		return lay_upcast(c, l, num);
	return lay_downcast(c, lay_upcast(c, l, num), den);
}

/* ----------------------------------------------------- thread-value --- */

/* make_layout_tv(thr, val) = (tiler_mn, layout_tv) with
 * layout_mn = raked_product(thr, val), layout_tv = right_inverse(layout_mn)
 * restricted to (size(thr), size(val)), tiler_mn = product_each(shape(layout_mn)). */
const lay_val *
lay_make_layout_tv(lay_ctx *c, const lay_val *thr, const lay_val *val)
{
	const lay_val *mn, *tv;

	thr = as_layout(c, thr, "make_layout_tv");
	val = as_layout(c, val, "make_layout_tv");
	mn = lay_raked_product(c, thr, val);
	if (!mn)
		return NULL;
	tv = lay_composition(c, lay_right_inverse(c, mn),
	                     lay_make_layout(c, lay_tuple2(c, lay_size(c, thr), lay_size(c, val))));
	return lay_tuple2(c, lay_product_each(c, mn->u.l.shape), tv);
}

/* ------------------------------------------------------- tile_to_shape --- */

static int
evenly_divides(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	int i;

	if (b->kind == LAY_TUPLE) {
		if (b->u.t.n > rank_of(a))
			return 0;
		for (i = 0; i < b->u.t.n; i++)
			if (!evenly_divides(c, tget(c, a, i), b->u.t.e[i]))
				return 0;
		return 1;
	}
	{
		const lay_val *sa = product(c, a), *sb = product(c, b);
		const lay_val *q = lay_size(c, lay_ceil_div(c, a, b));
		const lay_val *p = iop(c, LAY_E_MUL, sb, q);
		if (!p || !sa)
			return 0;
		return lay_is_static(p) && lay_is_static(sa) && p->u.i->value == sa->u.i->value;
	}
}

/* tile_to_shape(B, S, order): repeat block B (blocked_product) until the
 * result has shape S; `order` says which modes are repeated first. */
const lay_val *
lay_tile_to_shape(lay_ctx *c, const lay_val *block, const lay_val *trg, const lay_val *order)
{
	const lay_val *padded, *bs, *ts, *ps, *ord;
	int r;

	if (!block || !trg)
		return NULL;
	if (block->kind == LAY_COMPOSED)
		return layi_rewrap(c, block, lay_tile_to_shape(c, block->u.c.b, trg, order));
	block = as_layout(c, block, "tile_to_shape");
	if (!block)
		return NULL;
	if (!lay_is_inttuple(trg))
		return lay_fail(c, "tile_to_shape: the target must be a shape");
	r = rank_of(trg);
	if (lay_rank(block) > r)
		return lay_fail(c, "tile_to_shape: rank of layout must be <= rank of target shape");
	padded = lay_append_n(c, block, r, NULL);
	if (!padded)
		return NULL;
	bs = lay_product_each(c, padded->u.l.shape);
	ts = lay_product_each(c, trg);
	if (!bs || !ts)
		return NULL;
	if (lay_is_static(ts) && !evenly_divides(c, ts, bs))
		return c->failed ? NULL : lay_fail(c, "tile_to_shape: block shape %s does not divide the target shape %s",
		                                   lay_to_string(c, bs), lay_to_string(c, ts));
	ps = lay_ceil_div(c, ts, bs);
	ord = order ? lay_make_ordered_layout(c, ps, order) : lay_make_layout(c, ps);
	return lay_blocked_product(c, padded, ord);
}

/* -------------------------------------------------------- evaluation --- */

static int
has_underscore(const lay_val *x)
{
	int i;

	if (x->kind == LAY_UNDERSCORE)
		return 1;
	if (x->kind == LAY_TUPLE)
		for (i = 0; i < x->u.t.n; i++)
			if (has_underscore(x->u.t.e[i]))
				return 1;
	return 0;
}

static const lay_expr *
swizzle_e(lay_ctx *c, const lay_val *sw, const lay_expr *x)
{
	const lay_expr *y = lay_e_bin(c, LAY_E_AND, x, lay_e_const(c, (int64_t)sw_ymask(sw)));

	return lay_e_bin(c, LAY_E_XOR, x, lay_e_bin(c, LAY_E_SHR, y, lay_e_const(c, sw->u.sw.s)));
}

static int
all_underscore(const lay_val *x)
{
	int i;

	if (x->kind == LAY_UNDERSCORE)
		return 1;
	if (x->kind != LAY_TUPLE)
		return 0;
	for (i = 0; i < x->u.t.n; i++)
		if (!all_underscore(x->u.t.e[i]))
			return 0;
	return 1;
}

static int64_t
swz(const lay_val *sw, int64_t x)
{
	int s = sw->u.sw.s;
	int64_t y = x & (int64_t)sw_ymask(sw);

	return x ^ (s >= 0 ? y >> s : y << -s);
}

static const lay_val *
pow2_tuple(lay_ctx *c, int n, int64_t v)
{
	vec t = { 0 };
	int i;

	for (i = 0; i < n; i++)
		vec_push(c, &t, K(v));
	return vec_tuple(c, &t);
}

/* CuTe to_mixed_bits for known values: the xor over the modes of c*d, each
 * mode of a power-of-two extent s*d (the bits a swizzle can track). */
static int
to_mixed_bits(lay_ctx *c, const lay_val *s, const lay_val *d, const lay_val *crd, int64_t *out)
{
	int i;

	if (!crd)
		return -1;
	if (s->kind == LAY_TUPLE && d->kind == LAY_TUPLE && crd->kind == LAY_TUPLE) {
		if (s->u.t.n != crd->u.t.n || d->u.t.n != s->u.t.n) {
			lay_fail(c, "slice: mismatched ranks");
			return -1;
		}
		for (i = 0; i < s->u.t.n; i++)
			if (to_mixed_bits(c, s->u.t.e[i], d->u.t.e[i], crd->u.t.e[i], out))
				return -1;
		return 0;
	}
	if (s->kind == LAY_INT && d->kind == LAY_INT && crd->kind == LAY_INT) {
		int64_t sd = s->u.i->value * d->u.i->value;
		if (sd != 0 && (sd < 0 || (sd & (sd - 1)))) {
			lay_fail(c, "slice: a swizzled layout can only be sliced along power-of-two modes (shape*stride %lld)",
			         (long long)sd);
			return -1;
		}
		/* MixedBits keep only the bits the mode can reach: (s-1)*d */
		*out ^= (crd->u.i->value * d->u.i->value) & ((s->u.i->value - 1) * d->u.i->value);
		return 0;
	}
	lay_fail(c, "slice: the coordinate does not match the swizzled layout's modes");
	return -1;
}

/*
 * Slice Sw o off o B at a coordinate that fixes some modes (CuTe
 * swizzle_layout.hpp slice_and_offset): the fixed modes contribute an offset
 * split into the bits the swizzle reads or writes (kept inside) and the
 * others (returned); when the remaining layout reaches only Y bits or only Z
 * bits, the result decays to a plain layout with swizzled strides.  Static
 * values only; returns NULL without an error otherwise (the caller falls back).
 */
static const lay_val *
swizzle_slice(lay_ctx *c, const lay_val *l, const lay_val *coord, const lay_expr **off)
{
	const lay_val *sw = l->u.c.a, *b = l->u.c.b;
	int bb = sw->u.sw.b, m = sw->u.sw.m, as = sw->u.sw.s < 0 ? -sw->u.sw.s : sw->u.sw.s, i;
	const lay_val *shp[5], *sa[5], *so[5], *anti, *only, *sliced, *diced, *dcoord, *v;
	int64_t off_only, off_anti, bits, z, y;

	if (!lay_e_known(l->u.c.off) || !lay_is_static(b) || !lay_is_static(coord))
		return NULL;
	shp[0] = K((int64_t)1 << m); shp[1] = K((int64_t)1 << bb); shp[2] = K((int64_t)1 << (as - bb));
	shp[3] = K((int64_t)1 << bb); shp[4] = K(1);
	sa[0] = K(1); sa[1] = K(0); sa[2] = K((int64_t)1 << (m + bb)); sa[3] = K(0); sa[4] = K((int64_t)1 << (m + as + bb));
	so[0] = K(0); so[1] = K((int64_t)1 << m); so[2] = K(0); so[3] = K((int64_t)1 << (m + as)); so[4] = K(0);
	anti = L(c, lay_tuple(c, 5, shp), lay_tuple(c, 5, sa));
	only = L(c, lay_tuple(c, 5, shp), lay_tuple(c, 5, so));
	sliced = lay_slice(c, coord, b);
	diced = lay_dice(c, coord, b);
	dcoord = tdice(c, coord, coord);
	if (!anti || !only || !sliced || !diced || !dcoord)
		return NULL;
	v = lay_composition(c, only, diced);
	if (!v)
		return NULL;
	off_only = 0;
	if (to_mixed_bits(c, v->u.l.shape, v->u.l.stride, lay_idx2crd(c, dcoord, v->u.l.shape, NULL), &off_only))
		return NULL;
	off_only ^= l->u.c.off->value;
	v = lay_apply(c, lay_composition(c, anti, diced), dcoord);
	if (!v)
		return NULL;
	off_anti = v->u.i->value;
	v = lay_composition(c, only, sliced);
	if (!v)
		return NULL;
	v = lay_apply(c, v, iop(c, LAY_E_SUB, lay_size(c, v), K(1)));
	if (!v)
		return NULL;
	bits = v->u.i->value;
	if ((bits & ~swz(sw, bits)) != 0) {   /* reaches Y and Z: stays swizzled */
		*off = lay_e_const(c, off_anti);
		return layi_composed_keep(c, sw, lay_e_const(c, off_only), sliced);
	}
	z = (int64_t)sw_zmask(sw);
	z &= -z;
	y = (int64_t)sw_ymask(sw);
	y &= -y;
	{
		vec lo = { 0 }, hi = { 0 };
		const lay_val *fs[5], *fd[5];
		for (i = 0; i < bb; i++) {
			int64_t zi = z << i, yi = y << i;
			int64_t slo, shi;
			/* (Z < Y): the low strides see Z; (Z > Y): the high ones */
			if (z < y) {
				slo = (off_only & yi) == 0 ? zi : -zi;
				shi = (off_only & zi) == 0 ? yi + zi : yi - zi;
			} else {
				slo = (off_only & zi) == 0 ? yi + zi : yi - zi;
				shi = (off_only & yi) == 0 ? zi : -zi;
			}
			vec_push(c, &lo, K(slo));
			vec_push(c, &hi, K(shi));
		}
		fs[0] = K((int64_t)1 << m); fs[1] = pow2_tuple(c, bb, 2); fs[2] = K((int64_t)1 << (as - bb));
		fs[3] = pow2_tuple(c, bb, 2); fs[4] = K(1);
		fd[0] = K(1); fd[1] = vec_tuple(c, &lo); fd[2] = K((int64_t)1 << (m + bb));
		fd[3] = vec_tuple(c, &hi); fd[4] = K((int64_t)1 << (m + bb + as));
		*off = lay_e_const(c, swz(sw, off_only) + off_anti);
		return lay_composition(c, L(c, lay_tuple(c, 5, fs), lay_tuple(c, 5, fd)), sliced);
	}
}

static const lay_val *
slice_offset(lay_ctx *c, const lay_val *l, const lay_val *coord, const lay_expr **off)
{
	const lay_val *o;

	if (l->kind == LAY_COMPOSED) {
		const lay_val *inner, *r;
		const lay_expr *noff;
		if (all_underscore(coord)) {
			*off = lay_e_const(c, 0);
			return layi_rewrap(c, l, lay_slice(c, coord, l->u.c.b));
		}
		r = swizzle_slice(c, l, coord, off);
		if (r || c->failed)
			return r;
		/* run-time values: keep the swizzle, move the offset inside it */
		inner = slice_offset(c, l->u.c.b, coord, off);
		noff = lay_e_bin(c, LAY_E_ADD, l->u.c.off, *off);
		*off = lay_e_const(c, 0);
		return l->u.c.keep ? layi_composed_keep(c, l->u.c.a, noff, inner) : lay_composed(c, l->u.c.a, noff, inner);
	}
	o = crd2idx_l(c, coord, l);
	if (!o)
		return NULL;
	*off = o->u.i;
	return lay_slice(c, coord, l);
}

/* L(c): an offset for a full coordinate; a sub-layout when c contains `_`. */
const lay_val *
lay_apply(lay_ctx *c, const lay_val *l, const lay_val *coord)
{
	const lay_val *r;
	const lay_expr *off;

	if (!l || !coord)
		return NULL;
	switch (l->kind) {
	case LAY_LAYOUT:
		if (has_underscore(coord))
			return lay_slice(c, coord, l);
		return crd2idx_l(c, coord, l);
	case LAY_COMPOSED:
		if (has_underscore(coord)) {
			r = slice_offset(c, l, coord, &off);
			return r;
		}
		r = crd2idx_l(c, coord, l->u.c.b);
		if (!r)
			return NULL;
		return lay_int_e(c, swizzle_e(c, l->u.c.a, lay_e_bin(c, LAY_E_ADD, l->u.c.off, r->u.i)));
	case LAY_SWIZZLE:
		if (coord->kind != LAY_INT)
			return lay_fail(c, "a swizzle applies to an integer");
		return lay_int_e(c, swizzle_e(c, l, coord->u.i));
	case LAY_VIEW:
		if (has_underscore(coord)) {
			r = slice_offset(c, l->u.v.l, coord, &off);
			return lay_view(c, lay_e_bin(c, LAY_E_ADD, l->u.v.off, off), r);
		}
		r = lay_apply(c, l->u.v.l, coord);
		if (!r)
			return NULL;
		return lay_int_e(c, lay_e_bin(c, LAY_E_ADD, l->u.v.off, r->u.i));
	default:
		return lay_fail(c, "cannot apply a %s to a coordinate", lay_kind_name(l->kind));
	}
}

/* ------------------------------------------------ local_tile/partition --- */

static const lay_val *
as_view(lay_ctx *c, const lay_val *t, const char *op)
{
	if (!t)
		return NULL;
	if (t->kind == LAY_VIEW)
		return t;
	if (lay_is_layoutish(t))
		return lay_view(c, lay_e_const(c, 0), t);
	if (lay_is_inttuple(t))
		return lay_view(c, lay_e_const(c, 0), lay_make_layout(c, t));
	return lay_fail(c, "%s: expects a layout or a view, not a %s", op, lay_kind_name(t->kind));
}

static const lay_val *
slice_view(lay_ctx *c, const lay_val *v, const lay_val *tiled, const lay_val *coord)
{
	const lay_expr *off;
	const lay_val *r;

	if (!tiled || !coord)
		return NULL;
	r = slice_offset(c, tiled, coord, &off);
	if (!r)
		return NULL;
	return lay_view(c, lay_e_bin(c, LAY_E_ADD, v->u.v.off, off), r);
}

/* local_tile(T, tiler, coord): zipped_divide(T, tiler), then select tile
 * `coord` of the rest mode.  local_tile((8,8):(1,8), (4,4), (1,1)) = 36 o (4,4):(1,8). */
const lay_val *
lay_local_tile(lay_ctx *c, const lay_val *t, const lay_val *tiler, const lay_val *coord, const lay_val *proj)
{
	const lay_val *v = as_view(c, t, "local_tile"), *tt, *s, *full;

	if (!v || !tiler || !coord)
		return NULL;
	if (proj) {
		tiler = tdice(c, proj, tiler);
		coord = tdice(c, proj, coord);
	}
	tt = lay_zipped_divide(c, v->u.v.l, tiler);
	s = shape_of(c, tt);
	if (!s)
		return NULL;
	if (coord && coord->kind == LAY_TUPLE)
		coord = tappend_n(c, coord, rank_of(tget(c, s, 1)), lay_underscore(c));
	full = lay_tuple2(c, repeat_us(c, rank_of(tget(c, s, 0))), coord);
	return slice_view(c, v, tt, full);
}

/* local_partition(T, tile, index): the elements of T that thread `index` of
 * the thread layout `tile` owns (outer_partition by the tile's shape). */
const lay_val *
lay_local_partition(lay_ctx *c, const lay_val *t, const lay_val *tile, const lay_val *index, const lay_val *proj)
{
	const lay_val *v = as_view(c, t, "local_partition"), *tiler, *hier, *coord, *tt, *s, *full;

	if (!v || !tile || !index)
		return NULL;
	tile = as_layout(c, tile, "local_partition");
	if (!tile)
		return NULL;
	if (index->kind != LAY_INT)
		return lay_fail(c, "local_partition: the index must be an integer");
	if (proj)
		tile = lay_dice(c, proj, tile);
	if (!tile)
		return NULL;
	tiler = lay_product_each(c, tile->u.l.shape);
	hier = lay_idx2crd(c, index, tile->u.l.shape, tile->u.l.stride);
	if (!hier)
		return NULL;
	if (rank_of(tile->u.l.shape) == 1) {
		coord = lay_crd2idx(c, hier, tile->u.l.shape, NULL);
	} else {
		vec cv = { 0 };
		int i;
		for (i = 0; i < hier->u.t.n; i++)
			vec_push(c, &cv, lay_crd2idx(c, hier->u.t.e[i], tile->u.l.shape->u.t.e[i], NULL));
		coord = vec_tuple(c, &cv);
	}
	tt = lay_zipped_divide(c, v->u.v.l, tiler);
	s = shape_of(c, tt);
	if (!s || !coord)
		return NULL;
	if (coord->kind == LAY_TUPLE)
		coord = tappend_n(c, coord, rank_of(tget(c, s, 0)), lay_underscore(c));
	full = lay_tuple2(c, coord, repeat_us(c, rank_of(tget(c, s, 1))));
	return slice_view(c, v, tt, full);
}

/* nullspace(L): the layout of coordinates L maps to 0 (stride-0 modes). */
const lay_val *
lay_nullspace(lay_ctx *c, const lay_val *l)
{
	const lay_val *fs, *fd, *rs, *cur = K(1);
	vec s = { 0 }, d = { 0 };
	int i;

	if (!l)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return L(c, K(1), K(0));
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "nullspace: expects a layout");
	fs = tflatten_tuple(c, l->u.l.shape);
	fd = tflatten_tuple(c, l->u.l.stride);
	rs = compact_col(c, fs, &cur);
	if (!fs || !fd || !rs)
		return NULL;
	for (i = 0; i < fd->u.t.n; i++)
		if (lay_is_const(fd->u.t.e[i], 0)) {
			vec_push(c, &s, fs->u.t.e[i]);
			vec_push(c, &d, rs->u.t.e[i]);
		}
	if (s.n == 0)
		return L(c, K(1), K(0));
	return L(c, unwrap(vec_tuple(c, &s)), unwrap(vec_tuple(c, &d)));
}

/* ------------------------------------------------------------ misc --- */

const lay_val *
lay_inner_product(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	const lay_val *r;
	int i;

	if (!a || !b)
		return NULL;
	if (a->kind == LAY_TUPLE && b->kind == LAY_TUPLE) {
		if (a->u.t.n != b->u.t.n)
			return lay_fail(c, "inner_product: mismatched ranks");
		r = K(0);
		for (i = 0; i < a->u.t.n; i++)
			r = iop(c, LAY_E_ADD, r, lay_inner_product(c, a->u.t.e[i], b->u.t.e[i]));
		return r;
	}
	return iop(c, LAY_E_MUL, a, b);
}

static int64_t
gcd_leaves(const lay_val *x, int64_t g, int *ok)
{
	int i;

	if (x->kind == LAY_TUPLE) {
		for (i = 0; i < x->u.t.n; i++)
			g = gcd_leaves(x->u.t.e[i], g, ok);
		return g;
	}
	if (x->kind != LAY_INT || !lay_e_known(x->u.i)) {
		*ok = 0;
		return g;
	}
	return gcd64(g, x->u.i->value);
}

const lay_val *
lay_gcd(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	int ok = 1;
	int64_t g;

	if (!a || !b)
		return NULL;
	g = gcd_leaves(b, gcd_leaves(a, 0, &ok), &ok);
	if (!ok)
		return lay_fail(c, "gcd: expects known integers");
	return K(g);
}

static const lay_val *
keep_static(lay_ctx *c, const lay_val *x, void *arg)
{
	return lay_is_static(x) ? x : K(*(int64_t *)arg);
}

const lay_val *
lay_max_alignment(lay_ctx *c, const lay_val *l)
{
	const lay_val *fl, *f, *p;
	int64_t one = 1, zero = 0;

	if (!l)
		return NULL;
	if (l->kind == LAY_COMPOSED)
		return lay_gcd(c, K((int64_t)1 << l->u.c.a->u.sw.m),
		               lay_gcd(c, lay_is_static(lay_int_e(c, l->u.c.off)) ? lay_int_e(c, l->u.c.off) : K(1),
		                       lay_max_alignment(c, l->u.c.b)));
	if (l->kind != LAY_LAYOUT)
		return lay_fail(c, "max_alignment: expects a layout");
	fl = lay_coalesce(c, l, NULL);
	if (!fl)
		return NULL;
	f = L(c, tmap(c, fl->u.l.shape, keep_static, &one), tmap(c, fl->u.l.stride, keep_static, &zero));
	p = lay_logical_divide(c, f, lay_right_inverse(c, f));
	if (!p)
		return NULL;
	{
		/* CuTe's static result is Euclid's without abs, from the stride:
		 * (stride -1, size 4) gives -1, (stride -1, size 1) gives 1 (the
		 * oracle's data; for run-time ints CuTe prints 1) */
		const lay_val *a = lay_size(c, tget(c, p->u.l.shape, 0)), *b = tget(c, p->u.l.stride, 1);
		if (a && b && a->kind == LAY_INT && b->kind == LAY_INT && lay_e_known(a->u.i) && lay_e_known(b->u.i)) {
			int64_t x = b->u.i->value, y = a->u.i->value;
			while (y) {
				int64_t t = x % y;
				x = y;
				y = t;
			}
			return K(x);
		}
		return lay_gcd(c, a, b);
	}
}
