/*
 * layout_mixed.c — the defining identity of each layout operation over its
 * whole domain, for pseudo-random layouts that contain CuTe's rank-1 tuples
 * ((x) is not x) at every depth, and for the same layouts with some shape and
 * stride leaves made run-time values:
 *   composition   R(i) == A(B(i)) for every i < size(B) (B(i) < size(A))
 *   complement    C ordered, (A,C) injective, its image covers [0,M)
 *   right_inverse A(R(i)) == i;  left_inverse R(A(i)) == i
 *   logical_divide == A o (T, complement(T, size(A))) as functions;
 *                 zipped/tiled/flat_divide are the same function
 *   logical_product == (A, complement(A, size(A)*cosize(B)) o B) as functions
 *   coalesce      the same function, depth <= 1 (by profile: rank kept)
 *   rank, depth   of the generated shapes (counted here independently)
 * Mixed leaves: the operation runs once on the static layout and once on
 * the layout with run-time leaves; the symbolic result, evaluated at the
 * leaves' values, must be the same function as the static result (CuTe may
 * choose a different but equivalent shape for dynamic values).
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

static uint64_t rng = 0x2545f4914f6cdd1dull;

static int
rnd(int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (int)(rng % (uint64_t)n);
}

static int pow2;   /* only powers of two (the divisibility conditions hold) */
static int nondegenerate;   /* dynamize leaves other than 0 and 1 only */

#define MAXLEAF 32
#define MAXVAR  64

/* A random shape of depth <= d; rank-1 tuples appear at every level.  The
 * leaves are appended to flat; *dep gets the depth counted here. */
static const lay_val *
rshape(lay_ctx *c, int d, int64_t *flat, int *nflat, int *dep)
{
	static const int lv[] = { 1, 2, 3, 4, 4, 8, 2 }, lv2[] = { 1, 2, 2, 4, 4, 8, 8 };
	const lay_val *e[3];
	int i, n, sub, maxd = 0;

	if (d == 0 || *nflat >= MAXLEAF - 3 || rnd(100) < 40) {
		int64_t v = pow2 ? lv2[rnd(7)] : lv[rnd(7)];
		flat[(*nflat)++] = v;
		*dep = 0;
		return lay_int(c, v);
	}
	n = rnd(4) == 0 ? 1 : 1 + rnd(3);   /* rank-1 tuples often */
	for (i = 0; i < n; i++) {
		e[i] = rshape(c, d - 1, flat, nflat, &sub);
		if (sub > maxd)
			maxd = sub;
	}
	*dep = 1 + maxd;
	return lay_tuple(c, n, e);
}

static const lay_val *
unflat(lay_ctx *c, const lay_val *like, const int64_t *d, int *k)
{
	const lay_val *e[3];
	int i;

	if (like->kind != LAY_TUPLE)
		return lay_int(c, d[(*k)++]);
	for (i = 0; i < like->u.t.n; i++)
		e[i] = unflat(c, like->u.t.e[i], d, k);
	return lay_tuple(c, like->u.t.n, e);
}

typedef struct gen {
	const lay_val *l;   /* the static layout */
	int depth;          /* its depth, counted by the generator */
	int rank;           /* its rank */
} gen;

/* compact: injective (compact strides in a random leaf order, with gaps);
 * else arbitrary small strides (0 included) */
static gen
rlayout(lay_ctx *c, int depth, int compact, int64_t maxsize)
{
	int64_t flat[MAXLEAF], d[MAXLEAF], cur = 1, size;
	int order[MAXLEAF], n, i, k = 0;
	gen g;
	const lay_val *s;

	do {
		n = 0;
		s = rshape(c, depth, flat, &n, &g.depth);
		for (size = 1, i = 0; i < n; i++)
			size *= flat[i];
	} while (size > maxsize);
	g.rank = s->kind == LAY_TUPLE ? s->u.t.n : 1;
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
	g.l = lay_layout(c, s, unflat(c, s, d, &k));
	return g;
}

/* ------------------------------------------------ run-time leaves --- */

typedef struct vars {
	int64_t val[MAXVAR];
	int n;
} vars;

static int64_t
pow2_div(int64_t v)
{
	return v == 0 ? 1 : (v & -v);
}

/* x with about a third of its leaves replaced by run-time values; the
 * divisibility fact given is the largest power of two dividing the value
 * (true, as the front end's `assume` facts are) */
static const lay_val *
dynamize(lay_ctx *c, const lay_val *x, vars *vs)
{
	if (x->kind == LAY_LAYOUT)
		return lay_layout(c, dynamize(c, x->u.l.shape, vs), dynamize(c, x->u.l.stride, vs));
	if (x->kind == LAY_TUPLE) {
		const lay_val **e = lay_alloc(c->arena, sizeof *e * (size_t)(x->u.t.n + 1));
		int i;
		for (i = 0; i < x->u.t.n; i++)
			e[i] = dynamize(c, x->u.t.e[i], vs);
		return lay_tuple(c, x->u.t.n, e);
	}
	if (x->kind == LAY_INT && lay_e_known(x->u.i) && vs->n < MAXVAR && rnd(3) == 0 &&
	    !(nondegenerate && (x->u.i->value == 0 || x->u.i->value == 1))) {
		char name[16];
		int64_t v = x->u.i->value;
		snprintf(name, sizeof name, "v%d", vs->n);
		vs->val[vs->n] = v;
		return lay_int_e(c, lay_e_var(c, lay_strdup(c->arena, name), vs->n++, pow2_div(v)));
	}
	return x;
}

/* x with every run-time leaf replaced by its value */
static const lay_val *
subst(lay_ctx *c, const lay_val *x, const vars *vs)
{
	if (!x)
		return NULL;
	switch (x->kind) {
	case LAY_LAYOUT:
		return lay_layout(c, subst(c, x->u.l.shape, vs), subst(c, x->u.l.stride, vs));
	case LAY_TUPLE: {
		const lay_val **e = lay_alloc(c->arena, sizeof *e * (size_t)(x->u.t.n + 1));
		int i;
		for (i = 0; i < x->u.t.n; i++)
			e[i] = subst(c, x->u.t.e[i], vs);
		return lay_tuple(c, x->u.t.n, e);
	}
	case LAY_INT: {
		int64_t v;
		if (lay_e_eval(x->u.i, vs->val, vs->n, &v))
			fail_msg("%s does not evaluate", lay_to_string(c, x));
		return lay_int(c, v);
	}
	default:
		return x;
	}
}

/* ------------------------------------------------- evaluation --- */

/* An evaluator independent of lay_apply: split the index colexicographically
 * over the shape (the last mode takes the rest) and sum coordinate * stride. */
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
	if (last) {
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
	if (!l || l->kind != LAY_LAYOUT || !lay_is_static(l))
		fail_msg("not a static layout: %s", l ? lay_to_string(c, l) : "(null)");
	return eval_mode(l->u.l.shape, l->u.l.stride, &i, 1);
}

/* L(i) through lay_apply (the engine's own evaluator) */
static int64_t
apply(lay_ctx *c, const lay_val *l, int64_t i)
{
	const lay_val *v = lay_apply(c, l, lay_int(c, i));

	if (!v || v->kind != LAY_INT || !lay_e_known(v->u.i))
		fail_msg("%s(%lld) did not evaluate: %s", lay_to_string(c, l), (long long)i, c->err);
	return v->u.i->value;
}

static int64_t
sz(lay_ctx *c, const lay_val *l)
{
	const lay_val *v = lay_size(c, l);

	if (!v || v->kind != LAY_INT || !lay_e_known(v->u.i))
		fail_msg("size(%s) is not known", lay_to_string(c, l));
	return v->u.i->value;
}

/* the same function on [0, n): both through the independent evaluator and
 * the engine's lay_apply */
static void
same_function(lay_ctx *c, const char *what, const lay_val *want, const lay_val *got, int64_t n)
{
	int64_t i;

	for (i = 0; i < n; i++) {
		int64_t w = at(c, want, i), g = at(c, got, i);
		if (w != g || apply(c, got, i) != g)
			fail_msg("%s: %s and %s differ at %lld (%lld, %lld)", what, lay_to_string(c, want),
			         lay_to_string(c, got), (long long)i, (long long)w, (long long)g);
	}
}

/* ------------------------------------------------------ driver --- */

#define ROUNDS 400

typedef void (*prop_fn)(lay_ctx *c, int *checked, int *mixed);

static void
run(prop_fn f, const char *name)
{
	int r, checked = 0, mixed = 0;

	for (r = 0; r < ROUNDS; r++) {
		lay_arena *a = lay_arena_new();
		lay_ctx c;
		lay_ctx_init(&c, a);
		f(&c, &checked, &mixed);
		lay_arena_free(a);
	}
	/* the generators must give enough valid cases to mean something */
	if (checked < ROUNDS / 4 || mixed < ROUNDS / 8)
		fail_msg("%s: only %d static and %d mixed of %d random cases were valid", name, checked, mixed, ROUNDS);
	print_message("%s: %d static, %d mixed cases checked\n", name, checked, mixed);
}

/* Run op on the mixed form of its arguments; compare with the static result
 * as functions on [0, n).  A failure must leave a message. */
static int
check_mixed(lay_ctx *c, const char *what, const lay_val *stat, const lay_val *mix, const vars *vs, int64_t n)
{
	const lay_val *s;

	if (!mix) {
		if (!c->failed || !c->err[0])
			fail_msg("%s with run-time leaves failed without a message", what);
		lay_clear_error(c);
		return 0;
	}
	if (mix->kind != LAY_LAYOUT)
		fail_msg("%s with run-time leaves gave %s", what, lay_to_string(c, mix));
	s = subst(c, mix, vs);
	if (sz(c, s) != sz(c, stat))
		fail_msg("%s: size of %s (%s at the values) != size of %s", what, lay_to_string(c, mix),
		         lay_to_string(c, s), lay_to_string(c, stat));
	same_function(c, what, stat, s, n);
	return 1;
}

/* --------------------------------------------------------- rank/depth --- */

static void
p_rank_depth(lay_ctx *c, int *checked, int *mixed)
{
	gen g = rlayout(c, 3, 0, 512);
	char buf[512];
	const lay_val *back;
	lay_reader *r;
	int is_let;

	assert_int_equal(lay_rank(g.l), g.rank);
	assert_int_equal(lay_depth(g.l), g.depth);
	assert_int_equal(lay_rank(lay_shape(c, g.l)), g.rank);
	assert_int_equal(lay_depth(lay_shape(c, g.l)), g.depth);
	/* printing reads back as the same value: (x) stays rank 1 */
	lay_print(g.l, buf, sizeof buf);
	r = lay_reader_new(c);
	back = lay_read_eval(r, buf, &is_let);
	if (!back || !lay_equal(back, g.l))
		fail_msg("%s read back as %s", buf, back ? lay_to_string(c, back) : c->err);
	(*checked)++;
	(*mixed)++;
}

static void
test_rank_depth(void **s)
{
	(void)s;
	run(p_rank_depth, "rank/depth");
}

/* -------------------------------------------------------- composition --- */

static void
p_composition(lay_ctx *c, int *checked, int *mixed)
{
	gen ga = rlayout(c, 3, rnd(2), 512), gb = rlayout(c, 2, 1, 512);
	const lay_val *a = ga.l, *b = gb.l, *r, *rm, *am, *bm;
	int64_t i, n, na;
	vars vs = { .n = 0 };
	char what[600];

	r = lay_composition(c, a, b);
	if (!r) {
		if (!c->err[0])
			fail_msg("composition failed without a message");
		return;
	}
	n = sz(c, b);
	na = sz(c, a);
	assert_int_equal(sz(c, r), n);
	/* CuTe: the result is compatible with B: B's rank when B is a tuple (an
	 * integer B is compatible with any shape of its size) */
	if (b->u.l.shape->kind == LAY_TUPLE && lay_rank(r) != lay_rank(b))
		fail_msg("composition(%s, %s) = %s: rank is not B's", lay_to_string(c, a), lay_to_string(c, b), lay_to_string(c, r));
	/* CuTe checks the weak stride condition (rest stride a multiple of, or
	 * less than, the extent); with powers of two that makes R a true
	 * composition, otherwise (e.g. stride 6 over extent 8) it need not be */
	for (i = 0; pow2 && i < n; i++) {
		int64_t bi = at(c, b, i);
		if (bi >= na)
			continue;
		if (at(c, r, i) != at(c, a, bi) || apply(c, r, i) != apply(c, a, apply(c, b, i)))
			fail_msg("composition(%s, %s) = %s: R(%lld) != A(B(%lld))", lay_to_string(c, a),
			         lay_to_string(c, b), lay_to_string(c, r), (long long)i, (long long)i);
	}
	(*checked)++;
	if (!pow2) {   /* not a true composition in general: nothing to compare */
		(*mixed)++;
		return;
	}
	am = dynamize(c, a, &vs);
	bm = dynamize(c, b, &vs);
	snprintf(what, sizeof what, "composition(%s, %s)", lay_to_string(c, am), lay_to_string(c, bm));
	rm = lay_composition(c, am, bm);
	*mixed += check_mixed(c, what, r, rm, &vs, n);
}

static void
test_composition(void **s)
{
	(void)s;
	pow2 = 1;
	run(p_composition, "composition (powers of two)");
	pow2 = 0;
	run(p_composition, "composition");
}

/* --------------------------------------------------------- complement --- */

/* complement(A, M) = C: C ordered (increasing offsets), (A, C) injective,
 * and its image covers [0, M) */
static void
complement_ok(lay_ctx *c, const char *what, const lay_val *a, const lay_val *comp, int64_t m)
{
	const lay_val *ac;
	int64_t i, n, nc = sz(c, comp), prev = -1;
	char *seen;

	for (i = 0; i < nc; i++) {
		int64_t v = at(c, comp, i);
		if (v <= prev)
			fail_msg("%s = %s is not ordered", what, lay_to_string(c, comp));
		prev = v;
	}
	ac = lay_make_layout_n(c, 2, (const lay_val *[]){ a, comp });
	n = sz(c, a) * nc;
	seen = calloc((size_t)(lay_cosize(c, ac)->u.i->value + 1), 1);
	assert_non_null(seen);
	for (i = 0; i < n; i++) {
		int64_t v = at(c, ac, i);
		if (seen[v])
			fail_msg("%s: (A, C) = %s is not injective at %lld", what, lay_to_string(c, ac), (long long)v);
		seen[v] = 1;
	}
	for (i = 0; i < m; i++)
		if (!seen[i])
			fail_msg("%s: (A, %s) does not cover %lld of [0,%lld)", what, lay_to_string(c, comp), (long long)i, (long long)m);
	free(seen);
}

static void
p_complement(lay_ctx *c, int *checked, int *mixed)
{
	gen gf = rlayout(c, 2, 1, 512);
	const lay_val *full = gf.l, *a, *comp, *cm, *am;
	int64_t m;
	int rk = lay_rank(full), b, e;
	char what[600];
	vars vs = { .n = 0 };

	m = lay_cosize(c, full)->u.i->value;
	b = rnd(rk);
	e = b + 1 + rnd(rk - b);
	a = lay_take(c, full, b, e);   /* some modes of a compact layout */
	comp = lay_complement(c, a, lay_int(c, m));
	snprintf(what, sizeof what, "complement(%s, %lld)", lay_to_string(c, a), (long long)m);
	if (!comp)
		fail_msg("%s failed: %s", what, c->err);
	complement_ok(c, what, a, comp, m);
	(*checked)++;
	/* run-time shapes, static strides (CuTe's complement sorts by stride).
	 * A run-time size-1 mode is not filtered out, so the result may cover
	 * more than [0,M), as CuTe's does: check the definition, not equality. */
	nondegenerate = 1;   /* run-time size-1 modes next to equal strides give shape 0 (CuTe's shape_div too) */
	am = lay_layout(c, dynamize(c, lay_shape(c, a), &vs), lay_stride(c, a));
	nondegenerate = 0;
	snprintf(what, sizeof what, "complement(%s, %lld)", lay_to_string(c, am), (long long)m);
	cm = lay_complement(c, am, lay_int(c, m));
	if (!cm) {
		if (!c->err[0])
			fail_msg("%s failed without a message", what);
		lay_clear_error(c);
		return;
	}
	complement_ok(c, what, a, subst(c, cm, &vs), m);
	(*mixed)++;
}

static void
test_complement(void **s)
{
	(void)s;
	run(p_complement, "complement");
}

/* ----------------------------------------------------------- inverses --- */

static void
p_inverses(lay_ctx *c, int *checked, int *mixed)
{
	gen g = rlayout(c, 3, 1, 512);
	const lay_val *a = g.l, *ri, *li, *am, *rm;
	int64_t i, n;
	vars vs = { .n = 0 };
	char what[600];

	ri = lay_right_inverse(c, a);
	if (!ri)
		fail_msg("right_inverse(%s) failed: %s", lay_to_string(c, a), c->err);
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
	/* run-time shapes: the inverse's function on its static extent */
	am = lay_layout(c, dynamize(c, lay_shape(c, a), &vs), lay_stride(c, a));
	snprintf(what, sizeof what, "right_inverse(%s)", lay_to_string(c, am));
	rm = lay_right_inverse(c, am);
	if (rm && rm->kind == LAY_LAYOUT) {
		const lay_val *s = subst(c, rm, &vs);
		int64_t k, ns = sz(c, s);
		for (k = 0; k < ns; k++)
			if (at(c, a, at(c, s, k)) != k)
				fail_msg("%s = %s (%s at the values): A(R(%lld)) != %lld", what, lay_to_string(c, rm),
				         lay_to_string(c, s), (long long)k, (long long)k);
		(*mixed)++;
	} else if (!rm) {
		if (!c->err[0])
			fail_msg("%s failed without a message", what);
		lay_clear_error(c);
	}
}

static void
test_inverses(void **s)
{
	(void)s;
	run(p_inverses, "inverses");
}

/* ------------------------------------------------------------ divides --- */

static void
p_divide(lay_ctx *c, int *checked, int *mixed)
{
	gen ga = rlayout(c, 2, rnd(2), 512), gt = rlayout(c, 2, 1, 64);
	const lay_val *a = ga.l, *t = gt.l, *ld, *ref, *ext, *d[3], *am, *tm, *lm;
	int64_t i, n;
	vars vs = { .n = 0 };
	char what[600];

	ld = lay_logical_divide(c, a, t);
	if (!ld) {
		if (!c->err[0])
			fail_msg("logical_divide failed without a message");
		return;
	}
	/* the definition: A o (T, complement(T, size(A))) */
	ext = lay_make_layout_n(c, 2, (const lay_val *[]){ t, lay_complement(c, t, lay_size(c, a)) });
	ref = lay_composition(c, a, ext);
	if (!ref)
		fail_msg("logical_divide(%s, %s) = %s but A o (T, T*) fails: %s", lay_to_string(c, a), lay_to_string(c, t),
		         lay_to_string(c, ld), c->err);
	n = sz(c, ld);
	assert_int_equal(n, sz(c, ref));
	same_function(c, "logical_divide vs A o (T, T*)", ref, ld, n);
	if (lay_rank(ld) != 2)
		fail_msg("logical_divide(%s, %s) = %s is not rank 2", lay_to_string(c, a), lay_to_string(c, t), lay_to_string(c, ld));
	d[0] = lay_zipped_divide(c, a, t);
	d[1] = lay_tiled_divide(c, a, t);
	d[2] = lay_flat_divide(c, a, t);
	for (i = 0; i < 3; i++) {
		if (!d[i])
			fail_msg("a divide of (%s, %s) failed: %s", lay_to_string(c, a), lay_to_string(c, t), c->err);
		same_function(c, "zipped/tiled/flat_divide vs logical_divide", ld, d[i], n);
	}
	(*checked)++;
	/* a run-time size-1 (or stride-0) leaf cannot be filtered out, so the
	 * complement, and with it the result, grows (CuTe's too): those stay static */
	nondegenerate = 1;
	am = dynamize(c, a, &vs);
	tm = dynamize(c, t, &vs);
	nondegenerate = 0;
	snprintf(what, sizeof what, "logical_divide(%s, %s)", lay_to_string(c, am), lay_to_string(c, tm));
	lm = lay_logical_divide(c, am, tm);
	*mixed += check_mixed(c, what, ld, lm, &vs, n);
}

/* by-mode tilers: a tuple of layouts divides mode by mode; a rank-1 tuple
 * tiler divides mode 0 and keeps the others (CuTe's (10) vs 10) */
static void
p_divide_bymode(lay_ctx *c, int *checked, int *mixed)
{
	gen ga;
	const lay_val *a, *t0, *tiler, *ld, *m0, *want0, *e[1];
	int64_t i, n;
	int tries = 0;

	do
		ga = rlayout(c, 2, 1, 512);
	while (ga.rank < 2 && ++tries < 20);
	if (ga.rank < 2)
		return;
	a = ga.l;
	t0 = rlayout(c, 1, 1, 16).l;
	e[0] = t0;
	tiler = lay_tuple(c, 1, e);
	ld = lay_logical_divide(c, a, tiler);
	if (!ld) {
		if (!c->err[0])
			fail_msg("logical_divide failed without a message");
		return;
	}
	m0 = lay_get(c, ld, 0);
	want0 = lay_logical_divide(c, lay_get(c, a, 0), t0);
	if (!want0)
		return;
	if (!lay_equal(m0, want0))
		fail_msg("logical_divide(%s, (%s)) mode 0 is %s, not logical_divide(mode 0, T) = %s", lay_to_string(c, a),
		         lay_to_string(c, t0), lay_to_string(c, m0), lay_to_string(c, want0));
	assert_int_equal(lay_rank(ld), lay_rank(a));
	for (i = 1; i < lay_rank(a); i++)
		if (!lay_equal(lay_get(c, ld, (int)i), lay_get(c, a, (int)i)))
			fail_msg("logical_divide(%s, (%s)) changed mode %lld", lay_to_string(c, a), lay_to_string(c, t0), (long long)i);
	n = sz(c, ld);
	assert_int_equal(n, sz(c, want0) * (sz(c, a) / sz(c, lay_get(c, a, 0))));
	(*checked)++;
	(*mixed)++;
}

static void
test_divide(void **s)
{
	(void)s;
	pow2 = 1;
	run(p_divide, "logical_divide");
	run(p_divide_bymode, "logical_divide by mode");
	pow2 = 0;
}

/* ----------------------------------------------------------- products --- */

static void
p_product(lay_ctx *c, int *checked, int *mixed)
{
	gen ga = rlayout(c, 2, 1, 64), gb = rlayout(c, 2, 1, 32);
	const lay_val *a = ga.l, *b = gb.l, *lp, *ref, *comp, *am, *bm, *pm;
	int64_t i, na, nb;
	vars vs = { .n = 0 };
	char *seen, what[600];

	lp = lay_logical_product(c, a, b);
	if (!lp) {
		if (!c->err[0])
			fail_msg("logical_product failed without a message");
		return;
	}
	na = sz(c, a);
	nb = sz(c, b);
	assert_int_equal(sz(c, lp), na * nb);
	if (!lay_equal(lay_get(c, lp, 0), a))
		fail_msg("logical_product(%s, %s) = %s: mode 0 is not A", lay_to_string(c, a), lay_to_string(c, b), lay_to_string(c, lp));
	/* the definition: (A, complement(A, size(A)*cosize(B)) o B) */
	comp = lay_complement(c, a, lay_int(c, na * lay_cosize(c, b)->u.i->value));
	ref = lay_make_layout_n(c, 2, (const lay_val *[]){ a, lay_composition(c, comp, b) });
	if (!ref)
		fail_msg("logical_product(%s, %s) = %s but its definition fails: %s", lay_to_string(c, a), lay_to_string(c, b),
		         lay_to_string(c, lp), c->err);
	same_function(c, "logical_product vs (A, A* o B)", ref, lp, na * nb);
	seen = calloc((size_t)(lay_cosize(c, lp)->u.i->value + 1), 1);
	assert_non_null(seen);
	for (i = 0; i < na * nb; i++) {
		int64_t v = at(c, lp, i);
		if (seen[v])
			fail_msg("logical_product(%s, %s) = %s is not injective", lay_to_string(c, a), lay_to_string(c, b), lay_to_string(c, lp));
		seen[v] = 1;
	}
	free(seen);
	(*checked)++;
	/* run-time shapes of B only (A's complement needs A static) */
	am = a;
	bm = lay_layout(c, dynamize(c, lay_shape(c, b), &vs), lay_stride(c, b));
	snprintf(what, sizeof what, "logical_product(%s, %s)", lay_to_string(c, am), lay_to_string(c, bm));
	pm = lay_logical_product(c, am, bm);
	*mixed += check_mixed(c, what, lp, pm, &vs, na * nb);
}

static void
test_product(void **s)
{
	(void)s;
	run(p_product, "logical_product");
}

/* ----------------------------------------------------------- coalesce --- */

/* a profile congruent to the top of shape s: each mode 1 or (1) or a tuple */
static const lay_val *
rprofile(lay_ctx *c, const lay_val *s)
{
	const lay_val *e[3];
	int i;

	if (s->kind != LAY_TUPLE || rnd(3) == 0)
		return lay_int(c, 1);
	for (i = 0; i < s->u.t.n; i++)
		e[i] = rnd(2) ? lay_int(c, 1) : rprofile(c, s->u.t.e[i]);
	return lay_tuple(c, s->u.t.n, e);
}

static void
p_coalesce(lay_ctx *c, int *checked, int *mixed)
{
	gen g = rlayout(c, 3, rnd(2), 512);
	const lay_val *a = g.l, *co, *cp, *prof, *am, *cm;
	int64_t n = sz(c, a);
	vars vs = { .n = 0 };
	char what[600];

	co = lay_coalesce(c, a, NULL);
	if (!co)
		fail_msg("coalesce(%s) failed: %s", lay_to_string(c, a), c->err);
	assert_int_equal(sz(c, co), n);
	if (lay_depth(co) > 1)
		fail_msg("coalesce(%s) = %s has depth > 1", lay_to_string(c, a), lay_to_string(c, co));
	same_function(c, "coalesce", a, co, n);
	prof = rprofile(c, a->u.l.shape);
	cp = lay_coalesce(c, a, prof);
	if (!cp)
		fail_msg("coalesce(%s, %s) failed: %s", lay_to_string(c, a), lay_to_string(c, prof), c->err);
	same_function(c, "coalesce by profile", a, cp, n);
	if (prof->kind == LAY_TUPLE && lay_rank(cp) != prof->u.t.n)
		fail_msg("coalesce(%s, %s) = %s does not keep the profile's rank", lay_to_string(c, a),
		         lay_to_string(c, prof), lay_to_string(c, cp));
	(*checked)++;
	am = dynamize(c, a, &vs);
	snprintf(what, sizeof what, "coalesce(%s)", lay_to_string(c, am));
	cm = lay_coalesce(c, am, NULL);
	*mixed += check_mixed(c, what, co, cm, &vs, n);
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
		cmocka_unit_test(test_rank_depth),
		cmocka_unit_test(test_composition),
		cmocka_unit_test(test_complement),
		cmocka_unit_test(test_inverses),
		cmocka_unit_test(test_divide),
		cmocka_unit_test(test_product),
		cmocka_unit_test(test_coalesce),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
