/* Math builtins in code generation: the float functions of docs/language.md
 * §9.3 on scalars and fragments, each as one table row saying how it lowers.
 * Their errors (measured by tests/math on the simulator against a reference
 * computed in double precision) are in docs/language.md "Math".
 *
 * f16 and bf16 operands are computed in f32 and rounded back once, so every
 * function has one algorithm, and the raw hardware instructions (which have
 * no bf16 form) serve all three types. */
#include <math.h>
#include <string.h>

#include "codegen_int.h"

typedef enum {
	M_FN,        /* one IR_OP_FN instruction */
	M_FAST_EXP,  /* v_exp_f32(x * log2(e)) */
	M_TANH       /* odd polynomial near 0, 1 - 2 / (e^(2|x|) + 1) elsewhere */
} MathKind;

static const struct {
	const char *name;
	MathKind kind;
	IrFn fn;
} math[] = {
	{ "exp", M_FN, IR_FN_EXP },
	{ "log", M_FN, IR_FN_LOG },
	{ "log2", M_FN, IR_FN_LOG2 },
	{ "floor", M_FN, IR_FN_FLOOR },
	{ "ceil", M_FN, IR_FN_CEIL },
	{ "fast_exp2", M_FN, IR_FN_HW_EXP2 },
	{ "fast_log2", M_FN, IR_FN_HW_LOG2 },
	{ "fast_rcp", M_FN, IR_FN_HW_RCP },
	{ "fast_exp", M_FAST_EXP, 0 },
	{ "tanh", M_TANH, 0 },
};

/* tanh(x) = x + x^3 P(x^2) on |x| < 0.625: P fitted here (Lawson-weighted least
 * squares on Chebyshev nodes, relative error 4.4e-9 of tanh before rounding) */
static const double tanh_p[] = { -0.3333328194337649, 0.13331442222685763, -0.0537397164449099,
                                 0.020639090056159225, -0.005704988736429483 };
#define TANH_SMALL 0.625

static IrRef
fk(Cg *c, IrType t, double v)
{
	IrRef k = ir_b_fconst(&c->b, ir_ty(IR_F32), v);
	return t.lanes > 1 ? ir_b_splat(&c->b, t, k) : k;
}

static IrRef
lower_tanh(Cg *c, IrRef x, IrType t)
{
	IrBuilder *b = &c->b;
	IrRef ax = ir_b_bin(b, IR_OP_FMAX, x, ir_b_un(b, IR_OP_FNEG, x));
	/* near 0: Horner in x^2, then x + x^3 P */
	IrRef s = ir_b_bin(b, IR_OP_FMUL, x, x);
	IrRef p = fk(c, t, tanh_p[4]);
	for (int i = 3; i >= 0; i--)
		p = ir_b_fma(b, p, s, fk(c, t, tanh_p[i]));
	IrRef small = ir_b_fma(b, ir_b_bin(b, IR_OP_FMUL, x, s), p, x);
	/* -0 + +0 is +0: zeros keep their sign */
	small = ir_b_select(b, ir_b_cmp(b, IR_FEQ, x, fk(c, t, 0.0)), x, small);
	/* elsewhere: 1 - 2 / (e^(2|x|) + 1), the sign of x put back */
	IrRef e = ir_b_fn(b, IR_FN_EXP, ir_b_bin(b, IR_OP_FADD, ax, ax));
	IrRef q = ir_b_bin(b, IR_OP_FDIV, fk(c, t, 2.0), ir_b_bin(b, IR_OP_FADD, e, fk(c, t, 1.0)));
	IrRef big = ir_b_bin(b, IR_OP_FSUB, fk(c, t, 1.0), q);
	big = ir_b_select(b, ir_b_cmp(b, IR_FLT, x, fk(c, t, 0.0)), ir_b_un(b, IR_OP_FNEG, big), big);
	/* NaN fails the comparison and takes the exp path, which keeps it NaN */
	return ir_b_select(b, ir_b_cmp(b, IR_FLT, ax, fk(c, t, TANH_SMALL)), small, big);
}

IrRef
cg_math(Cg *c, const char *fn, IrRef x, IrType rt, int *handled)
{
	size_t i;
	IrType t = rt.lanes > 1 ? ir_vec(IR_F32, rt.lanes) : ir_ty(IR_F32);
	IrRef y;

	for (i = 0; i < sizeof math / sizeof math[0]; i++)
		if (!strcmp(math[i].name, fn))
			break;
	*handled = i < sizeof math / sizeof math[0] && ir_ty_is_float(rt);
	if (!*handled)
		return 0;
	if (rt.kind != IR_F32)
		x = ir_b_cvt(&c->b, t, x);
	switch (math[i].kind) {
	case M_FN:
		y = ir_b_fn(&c->b, math[i].fn, x);
		break;
	case M_FAST_EXP:
		y = ir_b_fn(&c->b, IR_FN_HW_EXP2, ir_b_bin(&c->b, IR_OP_FMUL, x, fk(c, t, 1.4426950408889634)));
		break;
	default:
		y = lower_tanh(c, x, t);
		break;
	}
	return rt.kind != IR_F32 ? ir_b_cvt(&c->b, rt, y) : y;
}
