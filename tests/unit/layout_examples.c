/*
 * layout_examples.c — worked examples of every layout operation.  Each
 * expected result was worked out by hand from the definitions in
 * docs/layout-algebra.md and checked against NVIDIA CuTe (same printed
 * shape and stride, static integers, underscores removed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "layout/lay.h"

struct example {
	const char *expr, *want;
};

static const struct example examples[] = {
	{ "composition((6,2):(8,2), (4,3):(3,1))",
	  "((2,2),3):((24,2),8)" },
	{ "composition(20:2, (5,4):(4,1))",
	  "(5,4):(8,2)" },
	{ "composition((10,2):(16,4), (5,4):(1,5))",
	  "(5,(2,2)):(16,(80,4))" },
	{ "composition((4,(2,4)):(4,(1,16)), [2:1, 4:2])",
	  "(2,4):(4,16)" },
	{ "composition((12,(4,8)):(59,(13,1)), [3:4, 8:2])",
	  "(3,(2,4)):(236,(26,1))" },
	{ "composition((6,2):(8,2), 3)",
	  "3:8" },
	{ "complement(4:2, 24)",
	  "(2,3):(1,8)" },
	{ "complement((2,4):(1,6), 24)",
	  "3:2" },
	{ "complement(4:2)",
	  "2:1" },
	{ "complement((2,2):(1,6), 24)",
	  "(3,2):(2,12)" },
	{ "complement(1:0, 8)",
	  "8:1" },
	{ "complement((4,6):(1,4), 24)",
	  "1:0" },
	{ "coalesce((2,(1,6)):(1,(6,2)))",
	  "12:1" },
	{ "coalesce((2,4):(1,2))",
	  "8:1" },
	{ "coalesce((2,(4,2)):(1,(2,16)), (1,1))",
	  "(2,(4,2)):(1,(2,16))" },
	{ "filter((4,2,3):(0,1,2))",
	  "6:1" },
	{ "right_inverse((4,8):(8,1))",
	  "(8,4):(4,1)" },
	{ "right_inverse((2,4):(4,1))",
	  "(4,2):(2,1)" },
	{ "right_inverse((8,4):(1,16))",
	  "8:1" },
	{ "left_inverse((4,8):(8,1))",
	  "(8,4):(4,1)" },
	{ "left_inverse((2,4):(3,6))",
	  "(3,8):(0,1)" },
	{ "logical_divide(16:1, 4:1)",
	  "(4,4):(1,4)" },
	{ "logical_divide((4,2,3):(2,1,8), 4:2)",
	  "((2,2),(2,3)):((4,1),(2,8))" },
	{ "logical_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)])",
	  "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))" },
	{ "zipped_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)])",
	  "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))" },
	{ "tiled_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)])",
	  "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))" },
	{ "flat_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)])",
	  "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))" },
	{ "logical_product((2,2):(4,1), 6:1)",
	  "((2,2),(2,3)):((4,1),(2,8))" },
	{ "logical_product((2,5):(5,1), (3,4):(1,3))",
	  "((2,5),(3,4)):((5,1),(10,30))" },
	{ "zipped_product((2,5):(5,1), [3:1, 4:1])",
	  "((2,5),(3,4)):((5,1),(1,5))" },
	{ "tiled_product((2,5):(5,1), [3:1, 4:1])",
	  "((2,5),3,4):((5,1),1,5)" },
	{ "flat_product((2,5):(5,1), [3:1, 4:1])",
	  "(2,5,3,4):(5,1,1,5)" },
	{ "blocked_product((2,5):(5,1), (3,4):(1,3))",
	  "((2,3),(5,4)):((5,10),(1,30))" },
	{ "raked_product((2,5):(5,1), (3,4):(1,3))",
	  "((3,2),(4,5)):((10,5),(30,1))" },
	{ "max_common_vector((4,8):(1,4), (4,8):(1,4))",
	  "32" },
	{ "max_common_vector((4,8):(1,4), (4,8):(8,1))",
	  "1" },
	{ "max_common_vector((4,(2,4)):(2,(1,8)), (8,4):(1,8))",
	  "1" },
	{ "max_common_layout((4,8):(1,4), (4,8):(1,4))",
	  "32:1" },
	{ "max_common_layout((4,(2,4)):(2,(1,8)), (8,4):(1,8))",
	  "1:0" },
	{ "upcast((4,8):(1,4), 2)",
	  "(2,8):(1,2)" },
	{ "upcast((8,8):(8,1), 4)",
	  "(8,2):(2,1)" },
	{ "downcast((4,8):(1,4), 2)",
	  "(8,8):(1,8)" },
	{ "recast((4,8):(1,4), 16, 32)",
	  "(2,8):(1,2)" },
	{ "recast((4,8):(1,4), 32, 8)",
	  "(16,8):(1,16)" },
	{ "tile_to_shape((2,2):(1,2), (8,8))",
	  "((2,4),(2,4)):((1,4),(2,16))" },
	{ "tile_to_shape((4,2):(2,1), (8,8))",
	  "((4,2),(2,4)):((2,8),(1,16))" },
	{ "make_layout_tv((4,8):(8,1), (2,2):(2,1))",
	  "((8,16),((8,4),(2,2)):((16,2),(8,1)))" },
	{ "make_layout_tv((32,8):(8,1), (4,1):(1,0))",
	  "((128,8),((8,32),4):((128,4),1))" },
	{ "local_tile((8,8):(1,8), (4,4), (1,1))",
	  "36 o (4,4):(1,8)" },
	{ "local_partition((8,8):(1,8), (2,4):(4,1), 5)",
	  "9 o (4,2):(2,32)" },
	{ "swizzle(3,3,3) o (8,64):(64,1)",
	  "Sw<3,3,3> o 0 o (8,64):(64,1)" },
	{ "zipped_divide(swizzle(2,0,3) o (8,8):(8,1), [4:1,4:1])",
	  "Sw<2,0,3> o 0 o ((4,4),(2,2)):((8,1),(32,4))" },
	{ "size((4,(2,3)))",
	  "24" },
	{ "cosize((4,8):(1,5))",
	  "39" },
	{ "idx2crd(17, (4,2))",
	  "(1,4)" },
	{ "idx2crd(17, (4,(2,3)))",
	  "(1,(0,2))" },
	{ "crd2idx(17, (4,8):(8,1))",
	  "12" },
	{ "crd2idx((1,(1,2)), (4,(2,3)):(1,(4,8)))",
	  "21" },
	{ "compact_col_major((2,(3,4)))",
	  "(1,(2,6))" },
	{ "compact_row_major((2,(3,4)), 2)",
	  "(24,(8,2))" },
	{ "inner_product((2,(3,4)), (1,(2,3)))",
	  "20" },
	{ "max_alignment((4,8):(8,1))",
	  "32" },
	{ "max_alignment((3,8):(1,4))",
	  "1" },
	{ "max_alignment(swizzle(3,3,3) o (8,64):(64,1))",
	  "8" },
	{ "with_shape(32:1, (4,8))",
	  "(4,8):(1,4)" },
	{ "get((4,8):(1,4), 1)",
	  "8:4" },
	{ "take((2,3,4):(1,2,6), 1, 3)",
	  "(3,4):(2,6)" },
	{ "select((2,3,4):(1,2,6), 2, 0)",
	  "(4,2):(6,1)" },
	{ "group((2,3,4):(1,2,6), 0, 2)",
	  "((2,3),4):((1,2),6)" },
	{ "append(4:1, 2:4)",
	  "(4,2):(1,4)" },
	{ "flatten(((2,2),3):((1,2),4))",
	  "(2,2,3):(1,2,4)" },
	{ "product_each((2,(3,4)))",
	  "(2,12)" },
	{ "ceil_div((4,5,6), 40)",
	  "(1,1,3)" },
	{ "shape_div((4,5,6), 40)",
	  "(1,1,3)" },
	{ "crd2idx((1,2),(4,8))",
	  "9" },
	{ "make_layout((2,1,3))",
	  "(2,1,3):(1,0,2)" },
	{ "make_layout((2,3,4), LayoutRight)",
	  "(2,3,4):(12,4,1)" },
	{ "make_layout(4:1, 2:4)",
	  "(4,2):(1,4)" },
	{ "make_ordered_layout((2,2,2,2), (0,2,3,1))",
	  "(2,2,2,2):(1,4,8,2)" },
	{ "nullspace((2,4,3):(1,0,2))",
	  "4:2" },
	{ "zip(((2,3),(4,5)))",
	  "((2,4),(3,5))" },
	{ "((4,8):(1,4))((_,2))",
	  "(4):(1)" },
	{ "coalesce((2,(4,2)):(1,(2,16)), (1,1))",
	  "(2,(4,2)):(1,(2,16))" },

	{ "logical_product((2,2):(1,2), swizzle(1,1,2) o (4,4):(4,1))",
	  "Sw<1,3,2> o 0 o ((2,2),(4,4)):((1,2),(16,4))" },
	{ "logical_product(4:1, swizzle(2,0,3) o (8,8):(8,1))",
	  "Sw<2,2,3> o 0 o (4,(8,8)):(1,(32,4))" },
};

/* the operation an example exercises: the name before the first '(' */
static size_t
op_of(const char *e, char *buf, size_t cap)
{
	size_t n = 0;

	while (e[n] && e[n] != '(' && e[n] != ' ' && n + 1 < cap) {
		buf[n] = e[n];
		n++;
	}
	if (n == 0 || e[n] != '(')
		n = 0;
	if (n == 0) {
		snprintf(buf, cap, "evaluation");
		return strlen(buf);
	}
	buf[n] = 0;
	return n;
}

/* one CMocka test per operation: all its examples */
static void
test_operation(void **state)
{
	const char *op = *state;
	size_t i;
	int ran = 0;

	for (i = 0; i < sizeof examples / sizeof examples[0]; i++) {
		lay_arena *a;
		lay_ctx c;
		lay_reader *r;
		const lay_val *v;
		int is_let;
		char name[64];

		op_of(examples[i].expr, name, sizeof name);
		if (strcmp(name, op))
			continue;
		a = lay_arena_new();
		lay_ctx_init(&c, a);
		r = lay_reader_new(&c);
		v = lay_read_eval(r, examples[i].expr, &is_let);
		if (!v)
			fail_msg("%s: error: %s", examples[i].expr, c.err);
		if (strcmp(lay_to_string(&c, v), examples[i].want))
			fail_msg("%s\n  got  %s\n  want %s", examples[i].expr, lay_to_string(&c, v), examples[i].want);
		lay_arena_free(a);
		ran++;
	}
	assert_true(ran > 0);
}

/* Invalid requests are errors naming the violated condition. */
static const struct example errors[] = {
	{ "composition((4,3):(3,1), 2:6)", "stride divisibility" },
	{ "composition((4,3):(3,1), 3:2)", "shape divisibility" },
	{ "complement((2,2):(1,1))", "non-injective" },
	{ "left_inverse((3,2):(2,3))", "left_inverse: divisibility" },
	{ "left_inverse(((6,2),(4,8)):((1,32),(12,1)))", "left_inverse: non-injective" },   /* mode 0 (6,2):(1,32) and mode 1 (4,8):(12,1) both reach offset 1: out of CuTe's domain */
	{ "left_inverse((2,2):(1,-2))", "left_inverse: negative stride" },
	{ "complement((2,1):(1,-1), 12)", "complement: negative stride" },
	{ "complement((3,2):(1,2), 12)", "complement: non-injective" },
	{ "upcast(4:3, 4)", "upcast: divisibility" },
	{ "downcast(8:3, 8)", "adjacent" },
	{ "logical_divide((4,4):(1,4), [2,2,2])", "rank" },
	{ "shape_div(6, 4)", "divisibility" },
	{ "tile_to_shape((3,4):(1,3), (8,8))", "does not divide" },
	{ "(4,8):(1,4,2)", "congruent" },
	{ "swizzle(3,3,2)", "|S|" },
	{ "get((4,8), 2)", "out of range" },
	{ "4/0", "division by zero" },
	{ "size(", "col" },
	{ "frobnicate(1)", "unknown operation" },
};

static void
test_errors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof errors / sizeof errors[0]; i++) {
		lay_arena *a = lay_arena_new();
		lay_ctx c;
		lay_reader *r;
		const lay_val *v;
		int is_let;

		lay_ctx_init(&c, a);
		r = lay_reader_new(&c);
		v = lay_read_eval(r, errors[i].expr, &is_let);
		if (v)
			fail_msg("%s: expected an error, got %s", errors[i].expr, lay_to_string(&c, v));
		if (!strstr(c.err, errors[i].want))
			fail_msg("%s: error '%s' does not mention '%s'", errors[i].expr, c.err, errors[i].want);
		lay_arena_free(a);
	}
}

int
main(void)
{
	static char names[64][64];
	static struct CMUnitTest tests[66];
	size_t i, n = 0, k;

	for (i = 0; i < sizeof examples / sizeof examples[0]; i++) {
		char op[64];
		op_of(examples[i].expr, op, sizeof op);
		for (k = 0; k < n; k++)
			if (!strcmp(names[k], op))
				break;
		if (k == n && n < 64) {
			snprintf(names[n], sizeof names[n], "%s", op);
			tests[n].name = names[n];
			tests[n].test_func = test_operation;
			tests[n].initial_state = names[n];
			n++;
		}
	}
	tests[n].name = "errors_name_the_condition";
	tests[n].test_func = test_errors;
	n++;
	return _cmocka_run_group_tests("layout_examples", tests, n, NULL, NULL);
}
