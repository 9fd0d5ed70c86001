/* codegen_span.c — cg_span_bound (compiler/codegen_span.c): worked examples,
 * and soundness over random layouts and `requires` facts: whenever the
 * analysis returns a bound, every parameter assignment the facts allow (found
 * by enumeration over small ranges) gives a non-empty tensor whose used
 * strides are non-negative, whose computed leaves fit i32, and whose true byte span
 * (max offset + 1, times the element size) is at most the bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codegen_span.h"
#include "ir.h"

/* parameters: x (pointer), a, b, c (i32) */
typedef struct {
	IrModule *m;
	IrFunc *f;
	IrBuilder b;
	IrRef arg[4];
} K;

static void
kinit(K *k)
{
	IrLoc l = { 0 };
	static const char *const names[] = { "x", "a", "b", "c" };
	k->m = ir_module_new();
	k->f = ir_func_new(k->m, "k", l);
	ir_func_param(k->f, "x", IR_PARAM_PTR, IR_F32, 4);
	for (int i = 1; i < 4; i++)
		ir_func_param(k->f, names[i], IR_PARAM_VAL, IR_I32, 4);
	k->b = ir_builder(k->f);
	for (int i = 0; i < 4; i++)
		k->arg[i] = ir_b_arg(&k->b, (uint32_t)i);
}

/* leaf kinds: 0..9 a constant, 10 a, 11 b, 12 c, 13 a * b (computed) */
static IrTuple *
leaf(K *k, int kind)
{
	if (kind < 10)
		return ir_tuple_int(k->m, kind);
	if (kind < 13)
		return ir_tuple_dyn(k->m, k->arg[kind - 9]);
	return ir_tuple_dyn(k->m, ir_b_bin(&k->b, IR_OP_MUL, k->arg[1], k->arg[2]));
}

static int64_t
leaf_val(int kind, const int64_t *v)
{
	return kind < 10 ? kind : kind < 13 ? v[kind - 9] : v[1] * v[2];
}

static uint64_t
bound_of(K *k, int rank, const int *sk, const int *dk, IrScalar el, char *why, size_t wn)
{
	IrTuple *s[3], *d[3];
	IrLayout lay;
	for (int i = 0; i < rank; i++) {
		s[i] = leaf(k, sk[i]);
		d[i] = leaf(k, dk[i]);
	}
	lay.shape = ir_tuple_of(k->m, rank, s);
	lay.stride = ir_tuple_of(k->m, rank, d);
	lay.sw.b = lay.sw.m = lay.sw.s = 0;
	IrRef t = ir_b_tensor_global(&k->b, k->arg[0], el, lay, IR_ADDR_BUFFER, "x");
	return cg_span_bound(k->f, &k->f->tensor[k->f->inst[t].aux], 0, why, wn);
}

static void
worked_examples(void **state)
{
	char why[600];
	K k;
	(void)state;

	/* (a, b):(b, 1) bf16 with a * b <= 1000: span a * b <= 1000 elements */
	kinit(&k);
	ir_func_requires(k.f, "$a $b * 1000 <=", "a * b <= 1000");
	assert_int_equal(bound_of(&k, 2, (int[]){ 10, 11 }, (int[]){ 11, 1 }, IR_BF16, why, sizeof why), 2000);
	ir_module_free(k.m);

	/* (a, b):(c, 1) f32, a * c <= 100, b <= 10, c >= 0: a*c - c + b <= 110 */
	kinit(&k);
	ir_func_requires(k.f, "$a $c * 100 <=", "a * c <= 100");
	ir_func_requires(k.f, "$b 10 <= $c 0 >= &&", "b <= 10 && c >= 0");
	assert_int_equal(bound_of(&k, 2, (int[]){ 10, 11 }, (int[]){ 12, 1 }, IR_F32, why, sizeof why), 440);
	ir_module_free(k.m);

	/* the same without c >= 0: the stride may be negative */
	kinit(&k);
	ir_func_requires(k.f, "$a $c * 100 <=", "a * c <= 100");
	ir_func_requires(k.f, "$b 10 <=", "b <= 10");
	assert_int_equal(bound_of(&k, 2, (int[]){ 10, 11 }, (int[]){ 12, 1 }, IR_F32, why, sizeof why), 0);
	assert_non_null(strstr(why, "its stride c may be negative"));
	ir_module_free(k.m);

	/* no facts: bf16 (a):(1) fits (2 * (2^31 - 1) bytes), f32 does not */
	kinit(&k);
	assert_int_equal(bound_of(&k, 1, (int[]){ 10 }, (int[]){ 1 }, IR_BF16, why, sizeof why),
	                 2 * (uint64_t)INT32_MAX);
	assert_int_equal(bound_of(&k, 1, (int[]){ 10 }, (int[]){ 1 }, IR_F32, why, sizeof why), 0);
	assert_non_null(strstr(why, "e.g. `requires a <= 1073741823`"));
	ir_module_free(k.m);

	/* a fact inside || gives nothing; one on another monomial neither */
	kinit(&k);
	ir_func_requires(k.f, "$a $b * 1000 <= $a 5 < ||", "a * b <= 1000 || a < 5");
	ir_func_requires(k.f, "$a $c * 1000 <=", "a * c <= 1000");
	assert_int_equal(bound_of(&k, 2, (int[]){ 10, 11 }, (int[]){ 11, 1 }, IR_BF16, why, sizeof why), 0);
	ir_module_free(k.m);

	/* (c, a, b):(a * b, b, 1) with c * a * b <= 2^30 (c >= 1 as an extent bounds a * b) */
	kinit(&k);
	ir_func_requires(k.f, "$c $a * $b * 1073741824 <=", "c * a * b <= 1 << 30");
	assert_int_equal(bound_of(&k, 3, (int[]){ 12, 10, 11 }, (int[]){ 13, 11, 1 }, IR_BF16, why, sizeof why),
	                 (uint64_t)1 << 31);
	ir_module_free(k.m);
}

typedef struct {
	int64_t lo[4], hi[4];     /* per-variable bounds stated (index 1..3) */
	int has_ab;
	int64_t ab;               /* a * b <= ab */
} Facts;

static int
allowed(const Facts *F, const int64_t *v)
{
	for (int i = 1; i < 4; i++)
		if (v[i] < F->lo[i] || v[i] > F->hi[i])
			return 0;
	return !F->has_ab || v[1] * v[2] <= F->ab;
}

static uint64_t seed = 0x9E3779B97F4A7C15u;

static int
rnd(int n)
{
	seed = seed * 6364136223846793005u + 1442695040888963407u;
	return (int)((seed >> 33) % (uint64_t)n);
}

static void
random_layouts_are_bounded_soundly(void **state)
{
	int accepted = 0, refused = 0;
	(void)state;

	for (int trial = 0; trial < 3000; trial++) {
		K k;
		Facts F;
		char why[600], rpn[128], txt[8] = "f";
		int rank = 1 + rnd(3), sk[3], dk[3];
		IrScalar el = rnd(2) ? IR_F32 : IR_BF16;
		kinit(&k);
		for (int i = 1; i < 4; i++) {
			F.lo[i] = -1 - rnd(4) + (rnd(2) ? 2 : 0);   /* -4 .. 1 */
			F.hi[i] = rnd(9);                           /* 0 .. 8 */
			snprintf(rpn, sizeof rpn, "$%c %lld >= $%c %lld <= &&", 'a' + i - 1, (long long)F.lo[i],
			         'a' + i - 1, (long long)F.hi[i]);
			ir_func_requires(k.f, rpn, txt);
		}
		F.has_ab = rnd(2);
		F.ab = rnd(30);
		if (F.has_ab) {
			snprintf(rpn, sizeof rpn, "$a $b * %lld <=", (long long)F.ab);
			ir_func_requires(k.f, rpn, txt);
		}
		for (int i = 0; i < rank; i++) {
			sk[i] = rnd(3) ? 10 + rnd(3) : 1 + rnd(4);
			dk[i] = rnd(3) ? 10 + rnd(4) : rnd(5);
		}
		uint64_t bound = bound_of(&k, rank, sk, dk, el, why, sizeof why);
		ir_module_free(k.m);
		if (!bound) {
			refused++;
			continue;
		}
		accepted++;
		int64_t v[4] = { 0 };
		for (v[1] = F.lo[1]; v[1] <= F.hi[1]; v[1]++)
			for (v[2] = F.lo[2]; v[2] <= F.hi[2]; v[2]++)
				for (v[3] = F.lo[3]; v[3] <= F.hi[3]; v[3]++) {
					int empty = 0;
					int64_t maxoff = 0;
					if (!allowed(&F, v))
						continue;
					for (int i = 0; i < rank; i++)
						empty |= leaf_val(sk[i], v) < 1;
					if (empty)
						continue;
					for (int i = 0; i < rank; i++) {
						int64_t e = leaf_val(sk[i], v), d = leaf_val(dk[i], v);
						if (d < 0 && e > 1)   /* an extent-1 mode's stride is never used */
							fail_msg("trial %d: accepted, but a stride is %lld", trial, (long long)d);
						maxoff += (e - 1) * d;
					}
					uint64_t span = (uint64_t)(maxoff + 1) * (el == IR_F32 ? 4 : 2);
					if (span > bound)
						fail_msg("trial %d: span %llu > bound %llu (a=%lld b=%lld c=%lld)", trial,
						         (unsigned long long)span, (unsigned long long)bound,
						         (long long)v[1], (long long)v[2], (long long)v[3]);
				}
	}
	/* both outcomes occur, so the property is exercised */
	assert_true(accepted > 300);
	assert_true(refused > 300);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(worked_examples),
		cmocka_unit_test(random_layouts_are_bounded_soundly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
