/*
 * layout_read.c — the expression reader (lay_read.c) and lay_call: syntax,
 * bindings, located errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "layout/lay.h"

/* Evaluate lines in one reader; returns the printed value of the last one
 * or "error: ..." */
static const char *
run(lay_ctx *c, const char *const *lines, int n)
{
	lay_reader *r = lay_reader_new(c);
	const lay_val *v = NULL;
	int i, is_let;
	static char buf[512];

	for (i = 0; i < n; i++) {
		lay_clear_error(c);
		v = lay_read_eval(r, lines[i], &is_let);
		if (!v) {
			snprintf(buf, sizeof buf, "error: %s", c->err);
			return buf;
		}
	}
	return lay_to_string(c, v);
}

static void
check(const char *expr, const char *want)
{
	lay_arena *a = lay_arena_new();
	lay_ctx c;
	const char *got;

	lay_ctx_init(&c, a);
	got = run(&c, &expr, 1);
	if (strcmp(got, want))
		fail_msg("%s\n  got  %s\n  want %s", expr, got, want);
	lay_arena_free(a);
}

static void
test_syntax(void **state)
{
	(void)state;
	check("42", "42");
	check("-3 + 2*5 - 7/2 % 2", "6");          /* C precedence, truncating division */
	check("(4)", "(4)");                        /* rank-1 tuple (CuTe's (x) is not x) */
	check("(4,)", "(4)");                       /* rank-1 tuple */
	check("((4))", "((4))");                    /* depth 2 */
	check("(3+5)*4", "32");                     /* arithmetic reads (x) as the integer x */
	check("-(3)", "-3");
	check("(12):(1)", "(12):(1)");
	check("((4,8):(1,4))(5)", "5");             /* parentheses around a layout only group */
	check("()", "()");
	check("(4,(2,3))", "(4,(2,3))");
	check("[4:1, 2]", "(4:1,2)");               /* a tiler is a tuple of tilers */
	check("(2,3):(1,2)", "(2,3):(1,2)");
	check("  ( 2 , 3 ) : ( 1 , 2 )  ", "(2,3):(1,2)");
	check("Sw<3,3,3>", "Sw<3,3,3>");
	check("Sw<3,3,3> o 8 o (8,8):(8,1)", "Sw<3,3,3> o 8 o (8,8):(8,1)");   /* CuTe's print reads back */
	check("16 o (4,4):(1,8)", "16 o (4,4):(1,8)");                          /* a view */
	check("(16 o (4,4):(1,8))(5)", "25");
	check("(4,8):(1,4)(5)", "5");
	check("(4,8):(1,4)(1,2)", "9");             /* L(i,j) == L((i,j)) */
	check("((4,8):(1,4))((_,2))", "(4):(1)");   /* slicing */
	check("composition((6,2):(8,2), (4,3):(3,1))(5)", "32");   /* B(5) = 4, A(4) = 32 */
	check("composition((6,2):(8,2), 4:3, 3:1)", "(4,3):(24,2)");   /* = composition(A, [4:3, 3:1]): 6:8 o 4:3, 2:2 o 3:1 */
	check("make_layout((2,3,4), LayoutRight)", "(2,3,4):(12,4,1)");
	check("0x10", "16");
}

static void
test_bindings(void **state)
{
	static const char *const l1[] = { "let L = (4,8):(8,1)", "L(5)" };
	static const char *const l2[] = { "let L = (4,8):(8,1)", "let L2 = coalesce(composition(L, (8,4):(4,1)))", "L2" };
	static const char *const l3[] = { "assume K % 64 == 0", "K % 32 + ceil_div(K, 64)" };
	static const char *const l4[] = { "M * 4 + M * 4" };
	lay_arena *a = lay_arena_new();
	lay_ctx c;

	(void)state;
	lay_ctx_init(&c, a);
	assert_string_equal(run(&c, l1, 2), "9");
	assert_string_equal(run(&c, l2, 3), "32:1");
	assert_string_equal(run(&c, l3, 2), "K/64");
	assert_string_equal(run(&c, l4, 1), "M*4+M*4");
	lay_arena_free(a);
}

static void
test_errors_are_located(void **state)
{
	(void)state;
	check("(4,8", "error: col 5: expected ')'");
	check("size((4,8)) )", "error: col 13: unexpected text after the expression");
	check("4 +", "error: col 4: unexpected end of expression");
	check("nosuch(1)", "error: col 1: unknown operation 'nosuch'");
	check("(2,3) * 4", "error: '*' needs integers, got (2,3) and 4");
	check("let = 4", "error: col 5: expected a name after 'let'");
	check("upcast(4:1, M)", "error: upcast: expects a compile-time integer, got M");
	check("take(4:1)", "error: take takes 3 arguments, got 1");
	check("#", "error: col 1: unexpected '#'");
}

static void
test_call(void **state)
{
	lay_arena *a = lay_arena_new();
	lay_ctx c;
	const lay_val *args[2], *r;

	(void)state;
	lay_ctx_init(&c, a);
	args[0] = lay_layout(&c, lay_tuple2(&c, lay_int(&c, 6), lay_int(&c, 2)), lay_tuple2(&c, lay_int(&c, 8), lay_int(&c, 2)));
	args[1] = lay_layout(&c, lay_tuple2(&c, lay_int(&c, 4), lay_int(&c, 3)), lay_tuple2(&c, lay_int(&c, 3), lay_int(&c, 1)));
	r = lay_call(&c, "composition", 2, args);
	assert_non_null(r);
	assert_string_equal(lay_to_string(&c, r), "((2,2),3):((24,2),8)");
	assert_null(lay_call(&c, "composition", 1, args));
	assert_string_equal(c.err, "composition takes 2 to 16 arguments, got 1");
	lay_clear_error(&c);
	assert_null(lay_call(&c, "no_such_op", 1, args));
	assert_non_null(strstr(c.err, "unknown operation"));
	lay_arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_bindings),
		cmocka_unit_test(test_errors_are_located),
		cmocka_unit_test(test_call),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
