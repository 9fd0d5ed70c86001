/*
 * layout_props.c — the defining properties of the layout operations,
 * checked over their whole domains for many pseudo-random layouts:
 *   composition   R(c) == A(B(c)) for all c < size(B), size(R) == size(B)
 *   complement    disjoint from A, ordered, (A,C) injective, covers [0,M)
 *   right_inverse A(R(i)) == i;  left_inverse  R(A(i)) == i
 *   divides       logical/zipped/tiled/flat_divide are A o (T, T*), same function
 *   products      mode 0 is A, size multiplies, injective when A and B are
 *   coalesce      same function, depth <= 1;  filter keeps the image
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "layout/lay.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static int
rnd(int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (int)(rng % (uint64_t)n);
}

static const int leaves[] = { 1, 2, 2, 3, 4, 4, 8 };
static const int pow2_leaves[] = { 1, 2, 2, 4, 4, 8, 8 };
static int pow2;   /* generate only powers of two: the divisibility conditions then always hold */

/* A random shape with depth <= 2 and its flat leaves. */
static const lay_val *
rshape(lay_ctx *c, int d, int64_t *flat, int *nflat)
{
	const lay_val *e[3];
	int i, n;

	if (d == 0 || rnd(100) < 45) {
		int64_t v = pow2 ? pow2_leaves[rnd(7)] : leaves[rnd(7)];
		flat[(*nflat)++] = v;
		return lay_int(c, v);
	}
	n = 1 + rnd(3);
	for (i = 0; i < n; i++)
		e[i] = rshape(c, d - 1, flat, nflat);
	return lay_tuple(c, n, e);
}

static const lay_val *
restride(lay_ctx *c, const lay_val *s, const int64_t *d, int *k)
{
	const lay_val *e[3];
	int i;

	if (s->kind != LAY_TUPLE)
		return lay_int(c, d[(*k)++]);
	for (i = 0; i < s->u.t.n; i++)
		e[i] = restride(c, s->u.t.e[i], d, k);
	return lay_tuple(c, s->u.t.n, e);
}

/* compact == 1: an injective layout (compact strides in a random mode order,
 * optionally with gaps); otherwise arbitrary small strides. */
static const lay_val *
rlayout(lay_ctx *c, int depth, int compact)
{
	int64_t flat[32], d[32], cur = 1, size;
	int order[32], n, i, k = 0;
	const lay_val *s;

	do {   /* keep whole-domain checks cheap: at most 1024 elements */
		n = 0;
		s = rshape(c, depth, flat, &n);
		for (size = 1, i = 0; i < n; i++)
			size *= flat[i];
	} while (size > 1024);

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		int j = rnd(i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		int m = order[i];
		if (compact) {
			d[m] = cur;
			cur *= flat[m] * (rnd(4) == 0 ? 2 : 1);
		} else {
			static const int ds[] = { 0, 1, 1, 2, 3, 4, 8, 16 }, ds2[] = { 0, 1, 1, 2, 4, 4, 8, 16 };
			d[m] = pow2 ? ds2[rnd(8)] : ds[rnd(8)];
		}
	}
	return lay_layout(c, s, restride(c, s, d, &k));
}

/* An independent evaluator for static layouts: split the index
 * colexicographically over the shape and sum coordinate * stride. */
static int64_t at_slow(lay_ctx *c, const lay_val *l, int64_t i);

static int64_t
eval_mode(const lay_val *s, const lay_val *d, int64_t *idx, int last)
{
	int64_t r = 0;
	int i;

	if (s->kind == LAY_TUPLE) {
		for (i = 0; i < s->u.t.n; i++)
			r += eval_mode(s->u.t.e[i], d->u.t.e[i], idx, last && i == s->u.t.n - 1);
		return r;
	}
	if (last) {     /* the last mode takes the whole rest of the index */
		r = *idx * d->u.i->value;
		*idx = 0;
		return r;
	}
	r = (*idx % s->u.i->value) * d->u.i->value;
	*idx /= s->u.i->value;
	return r;
}

static int64_t
at(lay_ctx *c, const lay_val *l, int64_t i)
{
	if (l->kind == LAY_LAYOUT && lay_is_static(l))
		return eval_mode(l->u.l.shape, l->u.l.stride, &i, 1);
	return at_slow(c, l, i);
}

static int64_t
at_slow(lay_ctx *c, const lay_val *l, int64_t i)
{
	const lay_val *v = lay_apply(c, l, lay_int(c, i));

	if (!v || v->kind != LAY_INT || !lay_e_known(v->u.i))
		fail_msg("%s(%lld) did not evaluate: %s", lay_to_string(c, l), (long long)i, c->err);
	return v->u.i->value;
}

static int64_t
at2(lay_ctx *c, const lay_val *l, int64_t i, int64_t j)
{
	const lay_val *v = lay_apply(c, l, lay_tuple2(c, lay_int(c, i), lay_int(c, j)));

	if (!v || v->kind != LAY_INT || !lay_e_known(v->u.i))
		fail_msg("%s((%lld,%lld)) did not evaluate: %s", lay_to_string(c, l), (long long)i, (long long)j, c->err);
	return v->u.i->value;
}

static int64_t
sz(lay_ctx *c, const lay_val *l)
{
	const lay_val *v = lay_size(c, l);

	assert_non_null(v);
	return v->u.i->value;
}

#define ROUNDS 300

typedef void (*prop_fn)(lay_ctx *c, int *checked);

static void
run(prop_fn f, const char *name)
{
	int r, checked = 0;

	for (r = 0; r < ROUNDS; r++) {
		lay_arena *a = lay_arena_new();
		lay_ctx c;
		lay_ctx_init(&c, a);
		f(&c, &checked);
		lay_arena_free(a);
	}
	/* the generators must produce enough valid cases to mean something */
	if (checked < ROUNDS / 4)
		fail_msg("%s: only %d of %d random cases were valid", name, checked, ROUNDS);
}

/* CuTe's compatible(A, B): sizes agree at every leaf of A */
static int
compatible(lay_ctx *c, const lay_val *a, const lay_val *b)
{
	int i;

	if (a->kind == LAY_TUPLE) {
		if (b->kind != LAY_TUPLE || b->u.t.n != a->u.t.n)
			return 0;
		for (i = 0; i < a->u.t.n; i++)
			if (!compatible(c, a->u.t.e[i], b->u.t.e[i]))
				return 0;
		return 1;
	}
	return lay_size(c, b)->u.i->value == a->u.i->value;
}

static void
p_composition(lay_ctx *c, int *checked)
{
	/* pow2 A and an injective compact B: B's modes use disjoint bits of the
	 * index, so A(B(c)) decomposes mode by mode (CuTe's admissibility) */
	const lay_val *a = rlayout(c, 2, rnd(2)), *b = rlayout(c, 1, 1), *r;
	int64_t i, n, na;

	r = lay_composition(c, a, b);
	if (!r)
		return;   /* a divisibility condition failed: an error, tested elsewhere */
	n = sz(c, b);
	na = sz(c, a);
	assert_int_equal(sz(c, r), n);
	if (!compatible(c, lay_shape(c, b), lay_shape(c, r)))
		fail_msg("composition(%s, %s) = %s is not compatible with B", lay_to_string(c, a), lay_to_string(c, b), lay_to_string(c, r));
	for (i = 0; i < n; i++) {
		int64_t bi = at(c, b, i);
		if (bi < 0 || bi >= na)
			continue;   /* A(B(c)) outside A's domain: only checked inside */
		if (at(c, r, i) != at(c, a, bi))
			fail_msg("composition(%s, %s) = %s: R(%lld) != A(B(%lld))", lay_to_string(c, a),
			         lay_to_string(c, b), lay_to_string(c, r), (long long)i, (long long)i);
	}
	(*checked)++;
}

static void
test_composition(void **s)
{
	(void)s;
	pow2 = 1;
	run(p_composition, "composition");
	pow2 = 0;
}

static void
p_complement(lay_ctx *c, int *checked)
{
	/* A: some modes of a compact layout of size M, so (A, complement) tiles [0,M) */
	const lay_val *full = rlayout(c, 1, 1), *a, *comp, *ac;
	int64_t m, i, n, na, nc, prev = -1;
	int rk = lay_rank(full), b, e;
	char *seen;

	if (lay_is_const(lay_size(c, full), 1))
		return;
	m = lay_cosize(c, full)->u.i->value;
	b = rnd(rk);
	e = b + 1 + rnd(rk - b);
	a = lay_take(c, full, b, e);
	comp = lay_complement(c, a, lay_int(c, m));
	if (!comp)
		fail_msg("complement(%s, %lld) failed: %s", lay_to_string(c, a), (long long)m, c->err);
	nc = sz(c, comp);
	na = sz(c, a);
	for (i = 0; i < nc; i++) {
		int64_t v = at(c, comp, i);
		if (v <= prev)
			fail_msg("complement(%s) = %s is not ordered", lay_to_string(c, a), lay_to_string(c, comp));
		prev = v;
	}
	ac = lay_make_layout_n(c, 2, (const lay_val *[]){ a, comp });
	n = na * nc;
	seen = calloc((size_t)(lay_cosize(c, ac)->u.i->value + 1), 1);
	assert_non_null(seen);
	for (i = 0; i < n; i++) {
		int64_t v = at(c, ac, i);
		if (seen[v])
			fail_msg("(%s, complement) = %s is not injective at %lld", lay_to_string(c, a), lay_to_string(c, ac), (long long)v);
		seen[v] = 1;
	}
	for (i = 0; i < m; i++)
		if (!seen[i])
			fail_msg("(%s, %s) does not cover %lld of [0,%lld)", lay_to_string(c, a), lay_to_string(c, comp),
			         (long long)i, (long long)m);
	free(seen);
	(*checked)++;
}

static void
test_complement(void **s)
{
	(void)s;
	run(p_complement, "complement");
}

static void
p_inverses(lay_ctx *c, int *checked)
{
	const lay_val *a = rlayout(c, 2, 1), *ri, *li;
	int64_t i, n;

	ri = lay_right_inverse(c, a);
	assert_non_null(ri);
	n = sz(c, ri);
	for (i = 0; i < n; i++)
		if (at(c, a, at(c, ri, i)) != i)
			fail_msg("right_inverse(%s) = %s: A(R(%lld)) != %lld", lay_to_string(c, a), lay_to_string(c, ri),
			         (long long)i, (long long)i);
	li = lay_left_inverse(c, a);
	if (!li)
		fail_msg("left_inverse(%s) failed: %s", lay_to_string(c, a), c->err);
	n = sz(c, a);
	for (i = 0; i < n; i++)
		if (at(c, li, at(c, a, i)) != i)
			fail_msg("left_inverse(%s) = %s: R(A(%lld)) != %lld", lay_to_string(c, a), lay_to_string(c, li),
			         (long long)i, (long long)i);
	(*checked)++;
}

static void
test_inverses(void **s)
{
	(void)s;
	run(p_inverses, "inverses");
}

static void
p_divide(lay_ctx *c, int *checked)
{
	const lay_val *a = rlayout(c, 1, rnd(2)), *t = rlayout(c, 1, 1), *ld, *zd, *td, *fd, *ext;
	int64_t i, n, nt;

	ld = lay_logical_divide(c, a, t);
	if (!ld)
		return;
	ext = lay_make_layout_n(c, 2, (const lay_val *[]){ t, lay_complement(c, t, lay_shape(c, lay_coalesce(c, a, NULL))) });
	n = sz(c, a);
	assert_int_equal(sz(c, ld), sz(c, ext));
	nt = sz(c, t);
	for (i = 0; i < sz(c, ld); i++) {
		int64_t x = at(c, ext, i);
		if (x < n && at(c, ld, i) != at(c, a, x))
			fail_msg("logical_divide(%s, %s) = %s differs from A o (T, T*) at %lld", lay_to_string(c, a),
			         lay_to_string(c, t), lay_to_string(c, ld), (long long)i);
	}
	/* mode 0 is the tile: R(i, 0) == A(T(i)) */
	for (i = 0; i < nt; i++)
		if (at(c, t, i) < n && at2(c, ld, i, 0) != at(c, a, at(c, t, i)))
			fail_msg("logical_divide(%s, %s): tile mode differs at %lld", lay_to_string(c, a), lay_to_string(c, t), (long long)i);
	zd = lay_zipped_divide(c, a, t);
	td = lay_tiled_divide(c, a, t);
	fd = lay_flat_divide(c, a, t);
	assert_non_null(zd);
	assert_non_null(td);
	assert_non_null(fd);
	for (i = 0; i < sz(c, ld); i++) {
		int64_t v = at(c, ld, i);
		if (at(c, zd, i) != v || at(c, td, i) != v || at(c, fd, i) != v)
			fail_msg("divides of (%s, %s) disagree at %lld", lay_to_string(c, a), lay_to_string(c, t), (long long)i);
	}
	(*checked)++;
}

static void
test_divide(void **s)
{
	(void)s;
	pow2 = 1;
	run(p_divide, "divide");
	pow2 = 0;
}

static void
p_product(lay_ctx *c, int *checked)
{
	const lay_val *a = rlayout(c, 1, 1), *b = rlayout(c, 1, 1), *lp, *bp, *rp;
	int64_t i, j, na, nb;
	char *seen;

	lp = lay_logical_product(c, a, b);
	if (!lp)
		return;
	na = sz(c, a);
	nb = sz(c, b);
	assert_int_equal(sz(c, lp), na * nb);
	for (i = 0; i < na; i++)
		assert_int_equal(at2(c, lp, i, 0), at(c, a, i));
	seen = calloc((size_t)(lay_cosize(c, lp)->u.i->value + 1), 1);
	assert_non_null(seen);
	for (i = 0; i < na * nb; i++) {
		int64_t v = at(c, lp, i);
		if (seen[v])
			fail_msg("logical_product(%s, %s) = %s is not injective", lay_to_string(c, a), lay_to_string(c, b), lay_to_string(c, lp));
		seen[v] = 1;
	}
	free(seen);
	bp = lay_blocked_product(c, a, b);
	rp = lay_raked_product(c, a, b);
	if (bp && rp) {
		assert_int_equal(sz(c, bp), na * nb);
		assert_int_equal(sz(c, rp), na * nb);
		/* the same set of offsets as the logical product */
		for (j = 0; j < 2; j++) {
			const lay_val *p = j ? rp : bp;
			int64_t sum1 = 0, sum2 = 0;
			for (i = 0; i < na * nb; i++) {
				sum1 += at(c, p, i);
				sum2 += at(c, lp, i);
			}
			assert_int_equal(sum1, sum2);
		}
	}
	lay_clear_error(c);
	(*checked)++;
}

static void
test_product(void **s)
{
	(void)s;
	run(p_product, "product");
}

static void
p_coalesce(lay_ctx *c, int *checked)
{
	const lay_val *a = rlayout(c, 2, rnd(2)), *co, *f;
	int64_t i, n = sz(c, a);

	co = lay_coalesce(c, a, NULL);
	assert_non_null(co);
	assert_int_equal(sz(c, co), n);
	assert_true(lay_depth(co) <= 1);
	for (i = 0; i < n; i++)
		if (at(c, co, i) != at(c, a, i))
			fail_msg("coalesce(%s) = %s differs at %lld", lay_to_string(c, a), lay_to_string(c, co), (long long)i);
	/* filter keeps the image (as a set) and drops stride-0 / size-1 modes */
	f = lay_filter(c, a, NULL);
	assert_non_null(f);
	for (i = 0; i < sz(c, f); i++) {
		int64_t v = at(c, f, i), j, found = 0;
		for (j = 0; j < n && !found; j++)
			found = at(c, a, j) == v;
		if (!found)
			fail_msg("filter(%s) = %s maps outside the image", lay_to_string(c, a), lay_to_string(c, f));
	}
	(*checked)++;
}

static void
test_coalesce(void **s)
{
	(void)s;
	run(p_coalesce, "coalesce");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_composition),
		cmocka_unit_test(test_complement),
		cmocka_unit_test(test_inverses),
		cmocka_unit_test(test_divide),
		cmocka_unit_test(test_product),
		cmocka_unit_test(test_coalesce),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
