/*
 * layout_symbolic.c — one algebra for static and dynamic leaves.  Every
 * expression is evaluated twice: with M, N, K as run-time values (the result
 * is symbolic index arithmetic) and with M, N, K bound to numbers (the result
 * folds).  Evaluating the symbolic result at those numbers must give the same
 * size and the same function.  Also: simplification with divisibility facts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "layout/lay.h"

static const char *const names[] = { "M", "N", "K", "t" };

static lay_reader *
reader(lay_ctx *c, const int64_t *vals, int symbolic)
{
	lay_reader *r = lay_reader_new(c);
	int i;

	for (i = 0; i < 4; i++) {
		if (symbolic)
			lay_reader_var(r, names[i], i, i < 3 ? 8 : 1);
		else
			lay_reader_bind(r, names[i], lay_int(c, vals[i]));
	}
	return r;
}

static int64_t
ev(lay_ctx *c, const lay_val *v, const int64_t *vals)
{
	int64_t out = -1;

	if (!v || v->kind != LAY_INT)
		fail_msg("not an integer: %s (%s)", v ? lay_to_string(c, v) : "NULL", c->err);
	if (lay_e_eval(v->u.i, vals, 4, &out))
		fail_msg("cannot evaluate %s", lay_to_string(c, v));
	return out;
}

static const char *const exprs[] = {
	"composition((M,4):(1,M), (8,2):(1,M))",
	"composition((M,N):(1,M), [4:1, 2:1])",
	"logical_divide((M,N):(1,M), (8,4))",
	"zipped_divide((M,K):(K,1), [16:1, 8:1])",
	"tiled_divide((M,K):(K,1), (16,8))",
	"flat_divide((M,8):(1,M), [4:1, 2:1])",
	"coalesce((4,M):(1,4))",
	"coalesce((M,N):(1,M))",
	"upcast((M,8):(1,M), 2)",
	"downcast((M,8):(1,M), 2)",
	"complement(M:1, 4*M)",
	"local_tile((M,N):(N,1), (8,4), (1,2))",
	"local_tile((M,K):(K,1), (16,8), (t%2,1))",
	"local_partition((M,K):(K,1), (4,2):(2,1), t%8)",
	"(swizzle(3,3,3) o (8,64):(64,1))(t)",
	"crd2idx(t, (M,4):(1,M))",
	"idx2crd(t, (4,M))",
	"idx2crd(t, (M,4), (4,1))",
	"ceil_div((M,N), (16,32))",
	"size((M,(N,4)))",
	"cosize((M,N):(1,M))",
};

static void
test_symbolic_matches_static(void **state)
{
	static const int64_t sets[][4] = {
		{ 32, 8, 16, 5 }, { 32, 16, 32, 11 }, { 64, 8, 48, 3 }, { 48, 24, 64, 0 },
	};
	size_t e, s;
	int64_t i;

	(void)state;
	for (e = 0; e < sizeof exprs / sizeof exprs[0]; e++) {
		for (s = 0; s < sizeof sets / sizeof sets[0]; s++) {
			lay_arena *a = lay_arena_new();
			lay_ctx c;
			const lay_val *sym, *fix, *ls, *lf;
			int is_let;
			const int64_t *vals = sets[s];

			lay_ctx_init(&c, a);
			sym = lay_read_eval(reader(&c, vals, 1), exprs[e], &is_let);
			if (!sym)
				fail_msg("%s (symbolic): %s", exprs[e], c.err);
			fix = lay_read_eval(reader(&c, vals, 0), exprs[e], &is_let);
			if (!fix)
				fail_msg("%s (static): %s", exprs[e], c.err);
			if (!lay_is_static(fix))
				fail_msg("%s did not fold: %s", exprs[e], lay_to_string(&c, fix));
			if (fix->kind == LAY_INT || fix->kind == LAY_TUPLE) {
				/* compare leaf by leaf */
				const lay_val *fs = fix->kind == LAY_TUPLE ? lay_flatten(&c, fix) : fix;
				const lay_val *ss = sym->kind == LAY_TUPLE ? lay_flatten(&c, sym) : sym;
				if (fs->kind == LAY_INT) {
					if (ev(&c, ss, vals) != fs->u.i->value)
						fail_msg("%s: symbolic %s, static %s", exprs[e], lay_to_string(&c, ss), lay_to_string(&c, fs));
				} else {
					assert_int_equal(ss->u.t.n, fs->u.t.n);
					for (i = 0; i < fs->u.t.n; i++)
						assert_int_equal(ev(&c, ss->u.t.e[i], vals), fs->u.t.e[i]->u.i->value);
				}
				lay_arena_free(a);
				continue;
			}
			ls = sym;
			lf = fix;
			if (fix->kind == LAY_VIEW) {
				/* same offset */
				lay_val so = { .kind = LAY_INT }, fo = { .kind = LAY_INT };
				assert_int_equal(sym->kind, LAY_VIEW);
				so.u.i = sym->u.v.off;
				fo.u.i = fix->u.v.off;
				assert_int_equal(ev(&c, &so, vals), ev(&c, &fo, vals));
				ls = sym->u.v.l;
				lf = fix->u.v.l;
			}
			if (ev(&c, lay_size(&c, ls), vals) != ev(&c, lay_size(&c, lf), vals))
				fail_msg("%s: sizes differ: symbolic %s, static %s", exprs[e], lay_to_string(&c, ls), lay_to_string(&c, lf));
			for (i = 0; i < ev(&c, lay_size(&c, lf), vals); i++) {
				int64_t want = ev(&c, lay_apply(&c, lf, lay_int(&c, i)), vals);
				int64_t got = ev(&c, lay_apply(&c, ls, lay_int(&c, i)), vals);
				if (want != got)
					fail_msg("%s with M=%lld N=%lld K=%lld t=%lld at %lld: symbolic %s gives %lld, static %s gives %lld",
					         exprs[e], (long long)vals[0], (long long)vals[1], (long long)vals[2], (long long)vals[3],
					         (long long)i, lay_to_string(&c, ls), (long long)got, lay_to_string(&c, lf), (long long)want);
			}
			lay_arena_free(a);
		}
	}
}

/* Divisibility facts simplify index arithmetic (assume K % 64 == 0). */
static void
test_facts_simplify(void **state)
{
	static const struct { const char *expr, *want; } cases[] = {
		{ "(K*8)/4", "K*2" },
		{ "(K*64)%32", "0" },
		{ "K%64", "0" },
		{ "K%128", "K%128" },
		{ "ceil_div(K, 64)", "K/64" },
		{ "ceil_div(K, 128)", "ceil_div(K,128)" },
		{ "(M*K)/K", "M" },
		{ "M*1+0", "M" },
		{ "M*0", "0" },
		{ "size((M,K))", "M*K" },
		{ "coalesce((4,M):(1,4))", "(4,M):(1,4)" },
		{ "logical_divide((M,K):(K,1), (128,64))", "((128,ceil_div(M,128)),(64,K/64)):((K,K*128),(1,64))" },
		{ "local_tile((M,K):(K,1), (128,64), (bm,bk))", "bm*(K*128)+bk*64 o (128,64):(K,1)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		lay_arena *a = lay_arena_new();
		lay_ctx c;
		lay_reader *r;
		const lay_val *v;
		int is_let;

		lay_ctx_init(&c, a);
		r = lay_reader_new(&c);
		assert_non_null(lay_read_eval(r, "assume K % 64 == 0", &is_let));
		v = lay_read_eval(r, cases[i].expr, &is_let);
		if (!v)
			fail_msg("%s: %s", cases[i].expr, c.err);
		if (strcmp(lay_to_string(&c, v), cases[i].want))
			fail_msg("%s: got %s, want %s", cases[i].expr, lay_to_string(&c, v), cases[i].want);
		lay_arena_free(a);
	}
}

/* The expression DAG the code generator walks. */
static void
test_expr_nodes(void **state)
{
	lay_arena *a = lay_arena_new();
	lay_ctx c;
	const lay_expr *m, *e;
	int64_t vals[1] = { 40 }, out;
	char buf[64];

	(void)state;
	lay_ctx_init(&c, a);
	m = lay_e_var(&c, "M", 0, 8);
	e = lay_e_bin(&c, LAY_E_ADD, lay_e_bin(&c, LAY_E_MUL, m, lay_e_const(&c, 4)), lay_e_const(&c, 3));
	assert_int_equal(e->kind, LAY_E_ADD);
	assert_int_equal(e->a->kind, LAY_E_MUL);
	assert_ptr_equal(e->a->a, m);
	assert_int_equal(e->a->div, 32);      /* 8 * 4 */
	assert_int_equal(e->div, 1);          /* + 3 */
	assert_int_equal(lay_e_eval(e, vals, 1, &out), 0);
	assert_int_equal(out, 163);
	lay_e_print(e, buf, sizeof buf);
	assert_string_equal(buf, "M*4+3");
	assert_true(lay_e_bin(&c, LAY_E_DIV, m, lay_e_const(&c, 0)) == NULL);
	lay_clear_error(&c);
	assert_true(lay_e_bin(&c, LAY_E_DIV, lay_e_const(&c, 1), lay_e_const(&c, 0)) == NULL);
	assert_true(c.failed);
	assert_non_null(strstr(c.err, "division by zero"));
	lay_arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbolic_matches_static),
		cmocka_unit_test(test_facts_simplify),
		cmocka_unit_test(test_expr_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
