/* codegen_ireval.c — the per-thread IR evaluator (ir_eval.h) on small IR
 * functions, against values computed by hand: exact integer semantics per op
 * and width (unsigned div/rem/shr/compares of negative i32 and i64 values),
 * thread ids, uniform draws, loop counters, memoisation, and the
 * can't-evaluate flag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir.h"
#include "ir_eval.h"

typedef struct {
	IrModule *m;
	IrFunc *f;
	IrBuilder b;
} Fx;

static void
fx_new(Fx *x)
{
	x->m = ir_module_new();
	x->f = ir_func_new(x->m, "k", (IrLoc){ 0 });
	x->f->block[0] = 64;
	x->f->block[1] = x->f->block[2] = 1;
	x->b = ir_builder(x->f);
}

/* the value of r for thread (0,0,0) in world 1; *bad receives the flag */
static int64_t
value(IrFunc *f, IrRef r, int *bad)
{
	IrEval e;
	int64_t v;

	ir_eval_init(&e, f, 64);
	ir_eval_seed(&e, 1);
	ir_eval_thread(&e, 0, 0, 0);
	v = ir_eval(&e, r);
	*bad = e.bad;
	ir_eval_free(&e);
	return v;
}

static int64_t
ok_value(IrFunc *f, IrRef r)
{
	int bad;
	int64_t v = value(f, r, &bad);
	assert_int_equal(bad, 0);
	return v;
}

/* op(a, b) at type t */
static int64_t
bin(Fx *x, IrScalar t, IrOp op, int64_t a, int64_t b, int *bad)
{
	IrRef ra = ir_b_const(&x->b, ir_ty(t), a), rb = ir_b_const(&x->b, ir_ty(t), b);
	return value(x->f, ir_b_bin(&x->b, op, ra, rb), bad);
}

static int64_t
okbin(Fx *x, IrScalar t, IrOp op, int64_t a, int64_t b)
{
	int bad;
	int64_t v = bin(x, t, op, a, b, &bad);
	assert_int_equal(bad, 0);
	return v;
}

static int64_t
cmp(Fx *x, IrScalar t, IrCmp c, int64_t a, int64_t b)
{
	IrRef ra = ir_b_const(&x->b, ir_ty(t), a), rb = ir_b_const(&x->b, ir_ty(t), b);
	return ok_value(x->f, ir_b_cmp(&x->b, c, ra, rb));
}

static void
ireval_i32_ops(void **state)
{
	Fx x;
	fx_new(&x);
	/* -7 as an unsigned i32 is 4294967289 */
	assert_int_equal(okbin(&x, IR_I32, IR_OP_DIV, -7, 2), 2147483644);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_REM, -7, 2), 1);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_REM, -7, 10), 9);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_SDIV, -7, 2), -3);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_SREM, -7, 2), -1);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_SHR, -7, 1), 2147483644);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_SHR, -7, 28), 15);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_SHL, -7, 1), -14);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_SHL, 3, 31), INT32_MIN);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_MIN, -7, 2), -7);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_MAX, -7, 2), 2);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_MUL, 65536, 65536), 0);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_ADD, INT32_MAX, 1), INT32_MIN);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_SUB, INT32_MIN, 1), INT32_MAX);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_SDIV, INT32_MIN, -1), INT32_MIN);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_AND, -7, 0xFF), 0xF9);
	assert_int_equal(okbin(&x, IR_I32, IR_OP_XOR, -1, 5), -6);
	assert_int_equal(okbin(&x, IR_I16, IR_OP_ADD, 32767, 1), -32768);
	assert_int_equal(okbin(&x, IR_I8, IR_OP_DIV, -1, 16), 15);
	/* compares: the unsigned ones see -7 as 4294967289 */
	assert_int_equal(cmp(&x, IR_I32, IR_ULT, -7, 2), 0);
	assert_int_equal(cmp(&x, IR_I32, IR_UGT, -7, 2), 1);
	assert_int_equal(cmp(&x, IR_I32, IR_ULE, -7, -7), 1);
	assert_int_equal(cmp(&x, IR_I32, IR_UGE, 2, -7), 0);
	assert_int_equal(cmp(&x, IR_I32, IR_LT, -7, 2), 1);
	assert_int_equal(cmp(&x, IR_I32, IR_GE, -7, 2), 0);
	assert_int_equal(cmp(&x, IR_I32, IR_NE, -7, 2), 1);
	ir_module_free(x.m);
}

static void
ireval_i64_ops(void **state)
{
	Fx x;
	fx_new(&x);
	/* -7 as an unsigned i64 is 2^64 - 7 = 18446744073709551609 */
	assert_true(okbin(&x, IR_I64, IR_OP_DIV, -7, 2) == INT64_C(9223372036854775804));
	assert_int_equal(okbin(&x, IR_I64, IR_OP_REM, -7, 10), 9);   /* ...609 % 10 */
	assert_int_equal(okbin(&x, IR_I64, IR_OP_SHR, -7, 60), 15);
	assert_true(okbin(&x, IR_I64, IR_OP_SHR, -7, 32) == INT64_C(4294967295));
	assert_int_equal(okbin(&x, IR_I64, IR_OP_SDIV, -7, 2), -3);
	assert_true(okbin(&x, IR_I64, IR_OP_MUL, INT64_C(1) << 32, INT64_C(1) << 31) == INT64_MIN);
	assert_true(okbin(&x, IR_I64, IR_OP_SHL, 1, 40) == INT64_C(1) << 40);
	assert_int_equal(cmp(&x, IR_I64, IR_ULT, -7, 2), 0);
	assert_int_equal(cmp(&x, IR_I64, IR_UGT, -1, INT64_MAX), 1);
	assert_int_equal(cmp(&x, IR_I64, IR_LT, -1, INT64_MAX), 1);
	ir_module_free(x.m);
}

/* cvt: sign-extend, zero-extend from i1, truncate */
static void
ireval_cvt(void **state)
{
	Fx x;
	fx_new(&x);
	IrRef m1 = ir_b_const(&x.b, ir_ty(IR_I32), -1);
	IrRef t = ir_b_const(&x.b, ir_ty(IR_I1), 1);
	IrRef big = ir_b_const(&x.b, ir_ty(IR_I64), INT64_C(0x1FFFFFFFB));
	assert_int_equal(ok_value(x.f, ir_b_cvt(&x.b, ir_ty(IR_I64), m1)), -1);
	assert_int_equal(ok_value(x.f, ir_b_cvt(&x.b, ir_ty(IR_I32), t)), 1);
	assert_int_equal(ok_value(x.f, ir_b_cvt(&x.b, ir_ty(IR_I32), big)), -5);
	assert_int_equal(ok_value(x.f, ir_b_cvt(&x.b, ir_ty(IR_I16), big)), -5);
	ir_module_free(x.m);
}

/* thread ids, wave size, uniform draws */
static void
ireval_threads(void **state)
{
	Fx x;
	IrEval e;
	fx_new(&x);
	ir_func_param(x.f, "n", IR_PARAM_VAL, IR_I32, 0);
	IrRef tx = ir_b_tid(&x.b, 0), ty = ir_b_tid(&x.b, 1), tz = ir_b_tid(&x.b, 2);
	IrRef c4 = ir_b_const(&x.b, ir_ty(IR_I32), 4), c100 = ir_b_const(&x.b, ir_ty(IR_I32), 100);
	IrRef c10k = ir_b_const(&x.b, ir_ty(IR_I32), 10000);
	IrRef s = ir_b_bin(&x.b, IR_OP_ADD, ir_b_bin(&x.b, IR_OP_MUL, tx, c4),
	                   ir_b_bin(&x.b, IR_OP_ADD, ir_b_bin(&x.b, IR_OP_MUL, ty, c100),
	                            ir_b_bin(&x.b, IR_OP_MUL, tz, c10k)));
	IrRef ws = ir_b_wave_size(&x.b);
	IrRef n = ir_b_arg(&x.b, 0), bid = ir_b_bid(&x.b, 0);
	IrRef nt = ir_b_bin(&x.b, IR_OP_ADD, n, tx);
	int64_t n1, b1;

	ir_eval_init(&e, x.f, 32);
	ir_eval_seed(&e, 7);
	ir_eval_thread(&e, 3, 2, 1);
	assert_int_equal(ir_eval(&e, s), 3 * 4 + 200 + 10000);
	assert_int_equal(ir_eval(&e, ws), 32);
	n1 = ir_eval(&e, n);
	b1 = ir_eval(&e, bid);
	assert_int_equal(e.bad, 0);
	/* arguments: multiples of 64 in [64, 65536]; block ids in [0, 65535] */
	assert_true(n1 >= 64 && n1 <= 65536 && n1 % 64 == 0);
	assert_true(b1 >= 0 && b1 <= 65535);
	/* the same for every thread of the world, and reproducible */
	ir_eval_thread(&e, 5, 0, 0);
	assert_int_equal(ir_eval(&e, s), 20);
	assert_int_equal(ir_eval(&e, n), n1);
	assert_int_equal(ir_eval(&e, bid), b1);
	assert_int_equal(ir_eval(&e, nt), n1 + 5);
	ir_eval_seed(&e, 7);
	ir_eval_thread(&e, 0, 0, 0);
	assert_int_equal(ir_eval(&e, n), n1);
	/* another world draws other values (for at least one of 8 seeds) */
	{
		int differs = 0;
		for (uint64_t k = 8; k < 16; k++) {
			ir_eval_seed(&e, k);
			ir_eval_thread(&e, 0, 0, 0);
			differs |= ir_eval(&e, n) != n1 || ir_eval(&e, bid) != b1;
		}
		assert_true(differs);
	}
	ir_eval_free(&e);
	ir_module_free(x.m);
}

/* a loop counter: fixed by ir_eval_set_counter (the memo follows), else a draw */
static void
ireval_loop_counter(void **state)
{
	Fx x;
	IrEval e;
	IrRef iv, lp, off, tx, outside;
	int64_t d;
	fx_new(&x);
	IrRef zero = ir_b_const(&x.b, ir_ty(IR_I32), 0), one = ir_b_const(&x.b, ir_ty(IR_I32), 1);
	IrRef ten = ir_b_const(&x.b, ir_ty(IR_I32), 10), eight = ir_b_const(&x.b, ir_ty(IR_I32), 8);
	tx = ir_b_tid(&x.b, 0);
	lp = ir_b_for(&x.b, zero, ten, one, 0, NULL, &iv, NULL);
	off = ir_b_bin(&x.b, IR_OP_ADD, ir_b_bin(&x.b, IR_OP_MUL, iv, eight), tx);
	ir_b_yield(&x.b, 0, NULL);
	ir_b_end(&x.b);
	outside = ir_b_bin(&x.b, IR_OP_ADD, tx, one);

	ir_eval_init(&e, x.f, 64);
	ir_eval_seed(&e, 3);
	ir_eval_set_counter(&e, lp, 3);
	ir_eval_thread(&e, 1, 0, 0);
	assert_int_equal(ir_eval(&e, off), 25);
	ir_eval_set_counter(&e, lp, 4);
	assert_int_equal(ir_eval(&e, off), 33);
	assert_int_equal(ir_eval(&e, outside), 2);
	/* a new world forgets the counter: a uniform draw, the same for every thread */
	ir_eval_seed(&e, 3);
	ir_eval_thread(&e, 0, 0, 0);
	d = ir_eval(&e, iv);
	assert_true(d >= 0 && d <= 65535);
	ir_eval_thread(&e, 6, 0, 0);
	assert_int_equal(ir_eval(&e, off), d * 8 + 6);
	assert_int_equal(e.bad, 0);
	ir_eval_free(&e);
	ir_module_free(x.m);
}

/* what it cannot follow sets the flag; select follows only the chosen side */
static void
ireval_cannot(void **state)
{
	Fx x;
	IrEval e;
	int bad;
	fx_new(&x);
	IrRef tx = ir_b_tid(&x.b, 0), zero = ir_b_const(&x.b, ir_ty(IR_I32), 0);
	IrRef five = ir_b_const(&x.b, ir_ty(IR_I32), 5);
	IrRef fl = ir_b_cvt(&x.b, ir_ty(IR_I32), ir_b_fconst(&x.b, ir_ty(IR_F32), 2.0));
	IrRef sel = ir_b_select(&x.b, ir_b_cmp(&x.b, IR_EQ, tx, zero), five, fl);
	IrRef after = ir_b_bin(&x.b, IR_OP_ADD, tx, five);

	ir_eval_init(&e, x.f, 64);
	ir_eval_seed(&e, 1);
	ir_eval_thread(&e, 0, 0, 0);
	assert_int_equal(ir_eval(&e, sel), 5);
	assert_int_equal(e.bad, 0);
	ir_eval_thread(&e, 1, 0, 0);
	assert_int_equal(ir_eval(&e, sel), 0);
	assert_int_equal(e.bad, 1);
	/* sticky until cleared */
	assert_int_equal(ir_eval(&e, after), 0);
	e.bad = 0;
	assert_int_equal(ir_eval(&e, after), 6);
	ir_eval_free(&e);

	/* shifts by the width or more are poison: not followed */
	bin(&x, IR_I32, IR_OP_SHL, 1, 32, &bad);
	assert_int_equal(bad, 1);
	bin(&x, IR_I32, IR_OP_SHR, -1, -1, &bad);
	assert_int_equal(bad, 1);
	/* division by zero: 0, followed */
	assert_int_equal(bin(&x, IR_I32, IR_OP_DIV, 9, 0, &bad), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(bin(&x, IR_I64, IR_OP_SREM, 9, 0, &bad), 0);
	assert_int_equal(bad, 0);
	/* a vector value, a float value */
	value(x.f, ir_b_splat(&x.b, ir_vec(IR_I32, 4), five), &bad);
	assert_int_equal(bad, 1);
	value(x.f, ir_b_fconst(&x.b, ir_ty(IR_F32), 1.0), &bad);
	assert_int_equal(bad, 1);
	ir_module_free(x.m);
}

/* folding and evaluation agree: every binary op over a grid of i32 values */
static void
ireval_agrees_with_fold(void **state)
{
	static const int64_t vals[] = { 0, 1, 2, 3, 7, 31, 32, -1, -2, -7, INT32_MAX, INT32_MIN, 65536 };
	enum { NV = sizeof vals / sizeof vals[0] };
	Fx x;
	fx_new(&x);
	for (int op = IR_OP_ADD; op <= IR_OP_MAX; op++)
		for (int i = 0; i < NV; i++)
			for (int j = 0; j < NV; j++) {
				int64_t folded, got;
				int bad, can = ir_fold_binary((IrOp)op, ir_ty(IR_I32), vals[i], vals[j], &folded);
				got = bin(&x, IR_I32, (IrOp)op, vals[i], vals[j], &bad);
				if (can) {
					assert_int_equal(bad, 0);
					assert_int_equal(got, folded);
				}
			}
	ir_module_free(x.m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ireval_i32_ops),
		cmocka_unit_test(ireval_i64_ops),
		cmocka_unit_test(ireval_cvt),
		cmocka_unit_test(ireval_threads),
		cmocka_unit_test(ireval_loop_counter),
		cmocka_unit_test(ireval_cannot),
		cmocka_unit_test(ireval_agrees_with_fold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
