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

#include "builtins.h"
#include "codegen_int.h"

typedef enum {
	M_FN,        /* one IR_OP_FN instruction */
	M_FAST_EXP,  /* v_exp_f32(x * log2(e)) */
	M_TANH,      /* odd polynomial near 0, 1 - 2 / (e^(2|x|) + 1) elsewhere */
	M_SIN,       /* range reduction to [-pi/4, pi/4] (Cody-Waite, Payne-Hanek), kernels */
	M_COS,
	M_FAST_TRIG  /* v_sin_f32 / v_cos_f32 of x * 1/(2 pi) (the instructions take revolutions) */
} MathKind;

/* the math builtins (builtins.h), by enumerator; kind 0 with fn 0 is not one */
static const struct {
	MathKind kind;
	IrFn fn;
	int on;
} math[B_NBUILTINS] = {
	[B_EXP] = { M_FN, IR_FN_EXP, 1 },
	[B_LOG] = { M_FN, IR_FN_LOG, 1 },
	[B_LOG2] = { M_FN, IR_FN_LOG2, 1 },
	[B_FLOOR] = { M_FN, IR_FN_FLOOR, 1 },
	[B_CEIL] = { M_FN, IR_FN_CEIL, 1 },
	[B_FAST_EXP2] = { M_FN, IR_FN_HW_EXP2, 1 },
	[B_FAST_LOG2] = { M_FN, IR_FN_HW_LOG2, 1 },
	[B_FAST_RCP] = { M_FN, IR_FN_HW_RCP, 1 },
	[B_FAST_EXP] = { M_FAST_EXP, 0, 1 },
	[B_TANH] = { M_TANH, 0, 1 },
	[B_SIN] = { M_SIN, 0, 1 },
	[B_COS] = { M_COS, 0, 1 },
	[B_FAST_SIN] = { M_FAST_TRIG, IR_FN_HW_SIN, 1 },
	[B_FAST_COS] = { M_FAST_TRIG, IR_FN_HW_COS, 1 },
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

/* ---- sin, cos ----
 *
 * x = j * pi/2 + r with |r| <= pi/4 (a little more where x * 2/pi rounds),
 * r kept as an unevaluated sum rh + rl (|rl| < ulp(rh)); then sin or cos of
 * r by the quadrant j mod 4. |x| < CW_MAX: j = rint(|x| * 2/pi) and
 * Cody-Waite, |x| - j * (C1 + C2 + C3) with C1 + C2 + C3 = pi/2 to 72 bits
 * (the first product exact by fma, the second by a two-product and a
 * two-sum). Larger |x|, up to FLT_MAX: Payne-Hanek, the 24-bit mantissa m
 * times the 96 bits of 2/pi at its exponent (the bits above contribute
 * multiples of 4), in 32-bit integer pieces: the quadrant and a 64-bit
 * fraction, turned into rh + rl. Kernels: Taylor polynomials (degree 11 for
 * sin, 12 for cos; truncation below 1e-11 at |r| = 0.8). */
#define CW_MAX 131072.0

/* 2/pi in binary, 32 bits a word, after a zero word (computed with Python's
 * integers: 2^(B+1) // (pi * 2^B), pi by Machin's formula, B = 400) */
static const uint32_t two_over_pi[8] = {
	0, 0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab
};
/* pi/2 = C1 + C2 + C3, each rounded to f32 from the remainder */
#define PIO2_1 1.5707963705062866
#define PIO2_2 -4.371138828673793e-08
#define PIO2_3 -1.7151245100058819e-15
static const double sin_p[] = { -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800 };
static const double cos_p[] = { 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600 };

static IrRef
ik(Cg *c, IrType t, IrScalar k, int64_t v)
{
	IrRef r = ir_b_const(&c->b, ir_ty(k), v);
	return t.lanes > 1 ? ir_b_splat(&c->b, ir_vec(k, t.lanes), r) : r;
}

static IrType
ity(IrType t, IrScalar k)
{
	return t.lanes > 1 ? ir_vec(k, t.lanes) : ir_ty(k);
}

/* u32 -> u64 (cvt sign-extends) */
static IrRef
zext64(Cg *c, IrType t, IrRef x)
{
	return ir_b_bin(&c->b, IR_OP_AND, ir_b_cvt(&c->b, ity(t, IR_I64), x), ik(c, t, IR_I64, 0xffffffffLL));
}

static IrRef
lo32(Cg *c, IrType t, IrRef x)
{
	return ir_b_cvt(&c->b, ity(t, IR_I32), x);
}

static IrRef
hi32(Cg *c, IrType t, IrRef x)
{
	return lo32(c, t, ir_b_bin(&c->b, IR_OP_SHR, x, ik(c, t, IR_I64, 32)));
}

/* (rh + rl) = x rounded to the nearest multiple of pi/2 and its quadrant, x >= 0 */
static void
reduce_cw(Cg *c, IrType t, IrRef ax, IrRef *rh, IrRef *rl, IrRef *q)
{
	IrBuilder *b = &c->b;
	IrRef j = ir_b_fn(b, IR_FN_RINT, ir_b_bin(b, IR_OP_FMUL, ax, fk(c, t, 0.63661977236758134)));
	IrRef nj = ir_b_un(b, IR_OP_FNEG, j);
	IrRef r1 = ir_b_fma(b, nj, fk(c, t, PIO2_1), ax);                  /* exact */
	IrRef ph = ir_b_bin(b, IR_OP_FMUL, j, fk(c, t, PIO2_2));
	IrRef pl = ir_b_fma(b, j, fk(c, t, PIO2_2), ir_b_un(b, IR_OP_FNEG, ph)); /* j * C2 = ph + pl */
	IrRef s = ir_b_bin(b, IR_OP_FSUB, r1, ph);
	IrRef bb = ir_b_bin(b, IR_OP_FSUB, s, r1);                          /* r1 - ph = s + e */
	IrRef e = ir_b_bin(b, IR_OP_FADD, ir_b_bin(b, IR_OP_FSUB, r1, ir_b_bin(b, IR_OP_FSUB, s, bb)),
	                   ir_b_bin(b, IR_OP_FSUB, ir_b_un(b, IR_OP_FNEG, ph), bb));
	e = ir_b_fma(b, nj, fk(c, t, PIO2_3), ir_b_bin(b, IR_OP_FSUB, e, pl));
	*rh = ir_b_bin(b, IR_OP_FADD, s, e);
	*rl = ir_b_bin(b, IR_OP_FSUB, e, ir_b_bin(b, IR_OP_FSUB, *rh, s));
	*q = ir_b_cvt(b, ity(t, IR_I32), j);
}

/* the same for CW_MAX <= x < inf (other x give garbage, selected away) */
static void
reduce_ph(Cg *c, IrType t, IrRef ax, IrRef *rh, IrRef *rl, IrRef *q)
{
	IrBuilder *b = &c->b;
	IrType t32 = ity(t, IR_I32);
	IrRef bits = ir_b_inst(b, IR_OP_BITCAST, t32, 1, &ax);
	IrRef ex = ir_b_bin(b, IR_OP_SHR, bits, ik(c, t, IR_I32, 23));
	IrRef m = ir_b_bin(b, IR_OP_OR, ir_b_bin(b, IR_OP_AND, bits, ik(c, t, IR_I32, 0x7fffff)), ik(c, t, IR_I32, 0x800000));
	/* x = m 2^e, e = E - 150 >= -6; the window starts at bit e + 30 of the
	 * table (weight 2^-(e-1)): x * 2/pi = m * V * 2^-94 mod 4 */
	ex = ir_b_bin(b, IR_OP_MAX, ex, ik(c, t, IR_I32, 144));
	IrRef i0 = ir_b_bin(b, IR_OP_SUB, ex, ik(c, t, IR_I32, 120));
	IrRef w = ir_b_bin(b, IR_OP_SHR, i0, ik(c, t, IR_I32, 5));
	IrRef sh = zext64(c, t, ir_b_bin(b, IR_OP_AND, i0, ik(c, t, IR_I32, 31)));
	IrRef z[4], a[3];
	for (int k = 0; k < 4; k++) {
		/* table word w + k, w in 0..4 */
		z[k] = ik(c, t, IR_I32, (int32_t)two_over_pi[k]);
		for (int i = 1; i <= 4; i++)
			z[k] = ir_b_select(b, ir_b_cmp(b, IR_EQ, w, ik(c, t, IR_I32, i)),
			                   ik(c, t, IR_I32, (int32_t)two_over_pi[i + k]), z[k]);
		z[k] = zext64(c, t, z[k]);
	}
	for (int k = 0; k < 3; k++) {
		IrRef pair = ir_b_bin(b, IR_OP_OR, ir_b_bin(b, IR_OP_SHL, z[k], ik(c, t, IR_I64, 32)), z[k + 1]);
		a[k] = ir_b_bin(b, IR_OP_SHR, ir_b_bin(b, IR_OP_SHL, pair, sh), ik(c, t, IR_I64, 32));
	}
	/* the low 96 bits of m * (a0 a1 a2) */
	IrRef m64 = zext64(c, t, m);
	IrRef p2 = ir_b_bin(b, IR_OP_MUL, m64, a[2]);
	IrRef p1 = ir_b_bin(b, IR_OP_ADD, ir_b_bin(b, IR_OP_MUL, m64, a[1]), ir_b_bin(b, IR_OP_SHR, p2, ik(c, t, IR_I64, 32)));
	IrRef p0 = ir_b_bin(b, IR_OP_ADD, ir_b_bin(b, IR_OP_MUL, m64, a[0]), ir_b_bin(b, IR_OP_SHR, p1, ik(c, t, IR_I64, 32)));
	IrRef r0 = zext64(c, t, lo32(c, t, p0)), r1 = zext64(c, t, lo32(c, t, p1)), r2 = zext64(c, t, lo32(c, t, p2));
	/* quadrant: bits 95, 94; fraction: the next 64 bits, signed (nearest quadrant) */
	IrRef qq = ir_b_bin(b, IR_OP_SHR, lo32(c, t, r0), ik(c, t, IR_I32, 30));
	IrRef f = ir_b_bin(b, IR_OP_OR, ir_b_bin(b, IR_OP_SHL, ir_b_bin(b, IR_OP_OR, ir_b_bin(b, IR_OP_SHL, r0, ik(c, t, IR_I64, 32)), r1),
	                                         ik(c, t, IR_I64, 2)),
	                   ir_b_bin(b, IR_OP_SHR, r2, ik(c, t, IR_I64, 30)));
	IrRef neg = ir_b_cmp(b, IR_LT, f, ik(c, t, IR_I64, 0));
	*q = ir_b_select(b, neg, ir_b_bin(b, IR_OP_ADD, qq, ik(c, t, IR_I32, 1)), qq);
	IrRef u = ir_b_select(b, neg, ir_b_bin(b, IR_OP_SUB, ik(c, t, IR_I64, 0), f), f);
	u = ir_b_select(b, ir_b_cmp(b, IR_EQ, u, ik(c, t, IR_I64, 0)), ik(c, t, IR_I64, 1), u);
	/* u 2^-64 = (u << n) 2^(-64-n): 24 exact bits fh and the rest fl */
	IrRef n = ir_b_fn(b, IR_FN_CLZ, u);
	u = ir_b_bin(b, IR_OP_SHL, u, n);
	IrRef n32 = lo32(c, t, n), uh = hi32(c, t, u), ul = lo32(c, t, u);
	IrRef fh = ir_b_cvt(b, t, ir_b_bin(b, IR_OP_SHR, uh, ik(c, t, IR_I32, 8)));
	IrRef fl = ir_b_cvt(b, t, ir_b_bin(b, IR_OP_OR, ir_b_bin(b, IR_OP_SHL, ir_b_bin(b, IR_OP_AND, uh, ik(c, t, IR_I32, 0xff)),
	                                                           ik(c, t, IR_I32, 23)),
	                                   ir_b_bin(b, IR_OP_SHR, ul, ik(c, t, IR_I32, 9))));
	IrRef e1 = ir_b_bin(b, IR_OP_SHL, ir_b_bin(b, IR_OP_SUB, ik(c, t, IR_I32, 127 - 24), n32), ik(c, t, IR_I32, 23));
	IrRef e2 = ir_b_bin(b, IR_OP_SHL, ir_b_bin(b, IR_OP_SUB, ik(c, t, IR_I32, 127 - 55), n32), ik(c, t, IR_I32, 23));
	fh = ir_b_bin(b, IR_OP_FMUL, fh, ir_b_inst(b, IR_OP_BITCAST, t, 1, &e1));
	fl = ir_b_bin(b, IR_OP_FMUL, fl, ir_b_inst(b, IR_OP_BITCAST, t, 1, &e2));
	/* (fh + fl) * (C1 + C2) */
	IrRef h = ir_b_bin(b, IR_OP_FMUL, fh, fk(c, t, PIO2_1));
	IrRef l = ir_b_fma(b, fh, fk(c, t, PIO2_1), ir_b_un(b, IR_OP_FNEG, h));
	l = ir_b_bin(b, IR_OP_FADD, l, ir_b_fma(b, fh, fk(c, t, PIO2_2), ir_b_bin(b, IR_OP_FMUL, fl, fk(c, t, PIO2_1))));
	IrRef s = ir_b_bin(b, IR_OP_FADD, h, l);
	l = ir_b_bin(b, IR_OP_FSUB, l, ir_b_bin(b, IR_OP_FSUB, s, h));
	*rh = ir_b_select(b, neg, ir_b_un(b, IR_OP_FNEG, s), s);
	*rl = ir_b_select(b, neg, ir_b_un(b, IR_OP_FNEG, l), l);
}

static IrRef
lower_trig(Cg *c, IrRef x, IrType t, int is_cos)
{
	IrBuilder *b = &c->b;
	IrRef ax = ir_b_bin(b, IR_OP_FMAX, x, ir_b_un(b, IR_OP_FNEG, x));
	IrRef h1, l1, q1, h2, l2, q2;
	reduce_cw(c, t, ax, &h1, &l1, &q1);
	reduce_ph(c, t, ax, &h2, &l2, &q2);
	IrRef big = ir_b_cmp(b, IR_FGE, ax, fk(c, t, CW_MAX));
	IrRef rh = ir_b_select(b, big, h2, h1), rl = ir_b_select(b, big, l2, l1), q = ir_b_select(b, big, q2, q1);
	IrRef s = ir_b_bin(b, IR_OP_FMUL, rh, rh);
	/* sin r = rh + (rh s P(s) + rl) */
	IrRef p = fk(c, t, sin_p[4]);
	for (int i = 3; i >= 0; i--)
		p = ir_b_fma(b, p, s, fk(c, t, sin_p[i]));
	IrRef sv = ir_b_bin(b, IR_OP_FADD, rh, ir_b_fma(b, ir_b_bin(b, IR_OP_FMUL, rh, s), p, rl));
	/* cos r = hh + (((1 - hh) - w) + (s^2 P(s) - rh rl)), w = s/2, hh = 1 - w */
	IrRef cp = fk(c, t, cos_p[4]);
	for (int i = 3; i >= 0; i--)
		cp = ir_b_fma(b, cp, s, fk(c, t, cos_p[i]));
	IrRef w = ir_b_bin(b, IR_OP_FMUL, s, fk(c, t, 0.5));
	IrRef hh = ir_b_bin(b, IR_OP_FSUB, fk(c, t, 1.0), w);
	IrRef tail = ir_b_fma(b, ir_b_bin(b, IR_OP_FMUL, s, s), cp, ir_b_un(b, IR_OP_FNEG, ir_b_bin(b, IR_OP_FMUL, rh, rl)));
	tail = ir_b_bin(b, IR_OP_FADD, ir_b_bin(b, IR_OP_FSUB, ir_b_bin(b, IR_OP_FSUB, fk(c, t, 1.0), hh), w), tail);
	IrRef cv = ir_b_bin(b, IR_OP_FADD, hh, tail);
	/* quadrant: cos x = sin(x + pi/2) */
	if (is_cos)
		q = ir_b_bin(b, IR_OP_ADD, q, ik(c, t, IR_I32, 1));
	IrRef odd = ir_b_cmp(b, IR_NE, ir_b_bin(b, IR_OP_AND, q, ik(c, t, IR_I32, 1)), ik(c, t, IR_I32, 0));
	IrRef y = ir_b_select(b, odd, cv, sv);
	IrRef flip = ir_b_cmp(b, IR_NE, ir_b_bin(b, IR_OP_AND, q, ik(c, t, IR_I32, 2)), ik(c, t, IR_I32, 0));
	if (!is_cos)
		flip = ir_b_bin(b, IR_OP_XOR, flip, ir_b_cmp(b, IR_FLT, x, fk(c, t, 0.0)));
	y = ir_b_select(b, flip, ir_b_un(b, IR_OP_FNEG, y), y);
	/* sin x = x below 2^-12 (zeros keep their sign, denormals stay) */
	if (!is_cos)
		y = ir_b_select(b, ir_b_cmp(b, IR_FLT, ax, fk(c, t, 0x1p-12)), x, y);
	/* inf and NaN: x - x is NaN */
	return ir_b_select(b, ir_b_cmp(b, IR_FLE, ax, fk(c, t, 3.4028234663852886e38)), y, ir_b_bin(b, IR_OP_FSUB, x, x));
}

IrRef
cg_math(Cg *c, int bid, IrRef x, IrType rt, int *handled)
{
	IrType t = rt.lanes > 1 ? ir_vec(IR_F32, rt.lanes) : ir_ty(IR_F32);
	IrRef y;

	*handled = bid >= 0 && bid < B_NBUILTINS && math[bid].on && ir_ty_is_float(rt);
	if (!*handled)
		return 0;
	if (rt.kind != IR_F32)
		x = ir_b_cvt(&c->b, t, x);
	switch (math[bid].kind) {
	case M_FN:
		y = ir_b_fn(&c->b, math[bid].fn, x);
		break;
	case M_FAST_EXP:
		y = ir_b_fn(&c->b, IR_FN_HW_EXP2, ir_b_bin(&c->b, IR_OP_FMUL, x, fk(c, t, 1.4426950408889634)));
		break;
	case M_SIN:
	case M_COS:
		y = lower_trig(c, x, t, math[bid].kind == M_COS);
		break;
	case M_FAST_TRIG:
		y = ir_b_fn(&c->b, math[bid].fn, ir_b_bin(&c->b, IR_OP_FMUL, x, fk(c, t, 0.15915494309189535)));
		break;
	default:
		y = lower_tanh(c, x, t);
		break;
	}
	return rt.kind != IR_F32 ? ir_b_cvt(&c->b, rt, y) : y;
}
