/* simx_fmt.c — number formats (bf16, f16, OCP fp8/bf8/fp6/bf6/fp4, E8M0) and the gfx950
 * conversion instructions built on them. See simx.h for the interface and
 * docs/simulator-matrix.md for the sources and the open questions. */
#include "sim/simx.h"

#include <math.h>
#include <string.h>

/* One description per format. kind: how the all-ones exponent is used. */
enum { K_IEEE, K_FN, K_FINITE };
typedef struct fmtdesc {
	int ebits, mbits, bias, kind;
} fmtdesc;

static const fmtdesc fmts[SIMX_NFMT] = {
	[SIMX_FP8] = {4, 3, 7, K_FN},
	[SIMX_BF8] = {5, 2, 15, K_IEEE},
	[SIMX_FP6] = {2, 3, 1, K_FINITE},
	[SIMX_BF6] = {3, 2, 3, K_FINITE},
	[SIMX_FP4] = {2, 1, 1, K_FINITE},
	[SIMX_F16] = {5, 10, 15, K_IEEE},
	[SIMX_BF16] = {8, 7, 127, K_IEEE},
};

int simx_fmt_bits(simx_fmt f)
{
	if ((unsigned)f >= SIMX_NFMT)
		return 0;
	return 1 + fmts[f].ebits + fmts[f].mbits;
}

float simx_u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

uint32_t simx_f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

double simx_decode(simx_fmt f, uint32_t code)
{
	if ((unsigned)f >= SIMX_NFMT)
		return NAN;
	const fmtdesc *d = &fmts[f];
	int nb = 1 + d->ebits + d->mbits;
	code &= (1u << nb) - 1;
	int sign = (code >> (nb - 1)) & 1;
	uint32_t e = (code >> d->mbits) & ((1u << d->ebits) - 1);
	uint32_t m = code & ((1u << d->mbits) - 1);
	uint32_t eall = (1u << d->ebits) - 1;
	double v;
	if (d->kind == K_IEEE && e == eall)
		v = m ? NAN : INFINITY;
	else if (d->kind == K_FN && e == eall && m == (1u << d->mbits) - 1)
		v = NAN;
	else if (e == 0)
		v = ldexp((double)m, 1 - d->bias - d->mbits);
	else
		v = ldexp((double)(m | (1u << d->mbits)), (int)e - d->bias - d->mbits);
	return sign ? -v : v;
}

/* Largest exponent (unbiased) of a finite value and the largest integer significand
 * (with the implicit bit, in units of 2^(E - mbits)) allowed at that exponent. */
static void fmt_max(const fmtdesc *d, int *emax, uint32_t *mimax)
{
	int eall = (1 << d->ebits) - 1;
	uint32_t full = (2u << d->mbits) - 1;
	switch (d->kind) {
	case K_IEEE: *emax = eall - 1 - d->bias; *mimax = full; break;
	case K_FN: *emax = eall - d->bias; *mimax = full - 1; break;
	default: *emax = eall - d->bias; *mimax = full; break;
	}
}

static uint32_t fmt_maxcode(const fmtdesc *d, int sign)
{
	int emax;
	uint32_t mimax;
	fmt_max(d, &emax, &mimax);
	int nb = 1 + d->ebits + d->mbits;
	uint32_t c = ((uint32_t)(emax + d->bias) << d->mbits) | (mimax - (1u << d->mbits));
	return c | ((uint32_t)sign << (nb - 1));
}

static uint32_t fmt_nancode(const fmtdesc *d, int sign)
{
	int nb = 1 + d->ebits + d->mbits;
	uint32_t s = (uint32_t)sign << (nb - 1);
	uint32_t eall = (1u << d->ebits) - 1;
	if (d->kind == K_IEEE) /* canonical quiet NaN: top mantissa bit */
		return s | (eall << d->mbits) | (1u << (d->mbits - 1));
	if (d->kind == K_FN) /* the only NaN: all ones */
		return s | (eall << d->mbits) | ((1u << d->mbits) - 1);
	return fmt_maxcode(d, sign); /* no NaN: saturate (UNVERIFIED on hardware) */
}

static uint32_t fmt_overflow(const fmtdesc *d, int sign, simx_ovf ovf)
{
	int nb = 1 + d->ebits + d->mbits;
	if (ovf == SIMX_OVF_SAT || d->kind == K_FINITE)
		return fmt_maxcode(d, sign);
	if (d->kind == K_FN)
		return fmt_nancode(d, sign);
	return ((uint32_t)sign << (nb - 1)) | (((1u << d->ebits) - 1) << d->mbits);
}

uint32_t simx_encode(simx_fmt f, double x, simx_ovf ovf)
{
	if ((unsigned)f >= SIMX_NFMT)
		return 0;
	const fmtdesc *d = &fmts[f];
	int nb = 1 + d->ebits + d->mbits;
	int sign = signbit(x) ? 1 : 0;
	uint32_t s = (uint32_t)sign << (nb - 1);
	if (isnan(x))
		return fmt_nancode(d, sign);
	if (isinf(x))
		return fmt_overflow(d, sign, ovf);
	double a = fabs(x);
	if (a == 0)
		return s;
	int emax;
	uint32_t mimax;
	fmt_max(d, &emax, &mimax);
	int emin = 1 - d->bias;
	int ex;
	(void)frexp(a, &ex);
	int E = ex - 1; /* a in [2^E, 2^(E+1)) */
	if (E < emin)
		E = emin;
	if (E > emax + 1) /* far above the range: no need to form the significand */
		return fmt_overflow(d, sign, ovf);
	/* scaling by a power of two is exact; rint rounds to nearest, ties to even under the
	 * default rounding mode */
	double mi = rint(ldexp(a, d->mbits - E));
	if (mi >= (double)(2u << d->mbits)) {
		mi = ldexp(mi, -1); /* exactly 2^(mbits+1) -> 2^mbits at the next exponent */
		E++;
	}
	uint32_t m = (uint32_t)mi;
	if (E > emax || (E == emax && m > mimax))
		return fmt_overflow(d, sign, ovf);
	if (m == 0)
		return s;
	if (m < (1u << d->mbits)) /* subnormal (only at E == emin) */
		return s | m;
	return s | ((uint32_t)(E + d->bias) << d->mbits) | (m - (1u << d->mbits));
}

uint32_t simx_encode_sr(simx_fmt f, double x, int rbits, uint32_t rng, simx_ovf ovf)
{
	if ((unsigned)f >= SIMX_NFMT)
		return 0;
	const fmtdesc *d = &fmts[f];
	int nb = 1 + d->ebits + d->mbits;
	int sign = signbit(x) ? 1 : 0;
	uint32_t s = (uint32_t)sign << (nb - 1);
	if (isnan(x) || isinf(x) || rbits <= 0 || rbits > 31)
		return simx_encode(f, x, ovf);
	double a = fabs(x);
	if (a == 0)
		return s;
	int emax;
	uint32_t mimax;
	fmt_max(d, &emax, &mimax);
	int emin = 1 - d->bias;
	int ex;
	(void)frexp(a, &ex);
	int E = ex - 1;
	if (E < emin)
		E = emin;
	if (E > emax + 1)
		return fmt_overflow(d, sign, ovf);
	/* t = a in units of the target's last place; keep rbits bits of its fraction
	 * (truncating the rest), add rbits random bits, and keep the integer part */
	double t = ldexp(a, d->mbits - E);
	double ip = floor(t);
	uint32_t frac = (uint32_t)ldexp(t - ip, rbits);
	uint32_t r = rng & ((1u << rbits) - 1u);
	double mi = ip + (double)(((uint64_t)frac + r) >> rbits);
	if (mi >= (double)(2u << d->mbits)) {
		mi = ldexp(mi, -1);
		E++;
	}
	uint32_t m = (uint32_t)mi;
	if (E > emax || (E == emax && m > mimax))
		return fmt_overflow(d, sign, ovf);
	if (m == 0)
		return s;
	if (m < (1u << d->mbits))
		return s | m;
	return s | ((uint32_t)(E + d->bias) << d->mbits) | (m - (1u << d->mbits));
}

double simx_e8m0(uint8_t s)
{
	return s == 255 ? NAN : ldexp(1.0, (int)s - 127);
}

float simx_f16_to_f32(uint16_t h) { return (float)simx_decode(SIMX_F16, h); }
uint16_t simx_f32_to_f16(float x) { return (uint16_t)simx_encode(SIMX_F16, x, SIMX_OVF_IEEE); }
float simx_bf16_to_f32(uint16_t h) { return simx_u2f((uint32_t)h << 16); }
uint16_t simx_f32_to_bf16(float x) { return (uint16_t)simx_encode(SIMX_BF16, x, SIMX_OVF_IEEE); }

/* ---------------------------------------------------------------- instructions */

/* Instruction shapes. OSn is bit n of the VOP3 op_sel field (simx_vop3_opsel).
 *   TO8_F32   (a f32, b f32, scale)   -> 2 codes into 16-bit word OS3 of old
 *   TO8_P16   (2 x 16-bit, scale)     -> 2 codes into word OS3 of old
 *   TO4_F32   (a, b, scale)           -> 2 nibbles into byte OS2|OS3<<1 of old
 *   TO4_P16   (2 x 16-bit, scale)     -> 2 nibbles into byte OS2|OS3<<1 of old
 *   FROM8_PK  (src, scale)            -> 2 values from word OS0 (f32 pair or packed 16-bit)
 *   FROM4_PK  (src, scale)            -> 2 values from byte OS0|OS1<<1 (low nibble first)
 *   FROM8_1   (src, scale)            -> 1 f32 from byte OS0|OS1<<1
 *   FROM8_H   (src, scale)            -> 1 16-bit value from byte OS0|OS1<<1 into word OS3 of old
 *   TO6_32    (32 x 16-bit in 16 regs, scale)     -> 6 regs of packed 6-bit codes
 *   TO6_2X16  (16 f32, 16 f32, scale)             -> 6 regs
 *   FROM6_32  (6 regs, scale)                     -> 32 f32 or 16 regs of 16-bit pairs
 *   U_TO8     v_cvt_pk_{fp8,bf8}_f32 (a, b)       -> word OS3 of old, unscaled
 *   U_FROM8_1 v_cvt_f32_{fp8,bf8} (src)           -> byte from SDWA sel
 *   U_FROM8_PK v_cvt_pk_f32_{fp8,bf8} (src)       -> word from SDWA sel
 * Stochastic rounding (simx_encode_sr; rng is a 32-bit source operand):
 *   SR8       (value, rng, scale)                 -> 1 code into byte OS2|OS3<<1 of old
 *   SR4       (value pair: 2 f32 regs or 1 packed, rng, scale) -> byte OS2|OS3<<1 of old
 *   SR6_32    (32 values: 32 f32 regs or 16 packed, rng, scale) -> 6 regs
 *   U_SR8     v_cvt_sr_{fp8,bf8}_f32 (value, rng) -> byte OS2|OS3<<1 of old
 *   U_SR16    v_cvt_sr_{f16,bf16}_f32 (value, rng) -> word OS3 of old
 * The narrow code is x / scale (rounded once); a decoded value is code * scale. */
enum shape {
	TO8_F32, TO8_P16, TO4_F32, TO4_P16, FROM8_PK, FROM4_PK, FROM8_1, FROM8_H,
	TO6_32, TO6_2X16, FROM6_32, U_TO8, U_FROM8_1, U_FROM8_PK,
	SR8, SR4, SR6_32, U_SR8, U_SR16
};

/* X(name, shape, narrow format, wide format (SIMX_F16/SIMX_BF16, or -1 for f32)) */
#define SIMX_CVT_TABLE(X) \
	X(v_cvt_scalef32_pk_fp8_f32, TO8_F32, SIMX_FP8, -1) \
	X(v_cvt_scalef32_pk_bf8_f32, TO8_F32, SIMX_BF8, -1) \
	X(v_cvt_scalef32_pk_fp8_f16, TO8_P16, SIMX_FP8, SIMX_F16) \
	X(v_cvt_scalef32_pk_bf8_f16, TO8_P16, SIMX_BF8, SIMX_F16) \
	X(v_cvt_scalef32_pk_fp8_bf16, TO8_P16, SIMX_FP8, SIMX_BF16) \
	X(v_cvt_scalef32_pk_bf8_bf16, TO8_P16, SIMX_BF8, SIMX_BF16) \
	X(v_cvt_scalef32_pk_fp4_f32, TO4_F32, SIMX_FP4, -1) \
	X(v_cvt_scalef32_pk_fp4_f16, TO4_P16, SIMX_FP4, SIMX_F16) \
	X(v_cvt_scalef32_pk_fp4_bf16, TO4_P16, SIMX_FP4, SIMX_BF16) \
	X(v_cvt_scalef32_pk_f32_fp8, FROM8_PK, SIMX_FP8, -1) \
	X(v_cvt_scalef32_pk_f32_bf8, FROM8_PK, SIMX_BF8, -1) \
	X(v_cvt_scalef32_pk_f16_fp8, FROM8_PK, SIMX_FP8, SIMX_F16) \
	X(v_cvt_scalef32_pk_f16_bf8, FROM8_PK, SIMX_BF8, SIMX_F16) \
	X(v_cvt_scalef32_pk_bf16_fp8, FROM8_PK, SIMX_FP8, SIMX_BF16) \
	X(v_cvt_scalef32_pk_bf16_bf8, FROM8_PK, SIMX_BF8, SIMX_BF16) \
	X(v_cvt_scalef32_pk_f32_fp4, FROM4_PK, SIMX_FP4, -1) \
	X(v_cvt_scalef32_pk_f16_fp4, FROM4_PK, SIMX_FP4, SIMX_F16) \
	X(v_cvt_scalef32_pk_bf16_fp4, FROM4_PK, SIMX_FP4, SIMX_BF16) \
	X(v_cvt_scalef32_f32_fp8, FROM8_1, SIMX_FP8, -1) \
	X(v_cvt_scalef32_f32_bf8, FROM8_1, SIMX_BF8, -1) \
	X(v_cvt_scalef32_f16_fp8, FROM8_H, SIMX_FP8, SIMX_F16) \
	X(v_cvt_scalef32_f16_bf8, FROM8_H, SIMX_BF8, SIMX_F16) \
	X(v_cvt_scalef32_pk32_fp6_f16, TO6_32, SIMX_FP6, SIMX_F16) \
	X(v_cvt_scalef32_pk32_bf6_f16, TO6_32, SIMX_BF6, SIMX_F16) \
	X(v_cvt_scalef32_pk32_fp6_bf16, TO6_32, SIMX_FP6, SIMX_BF16) \
	X(v_cvt_scalef32_pk32_bf6_bf16, TO6_32, SIMX_BF6, SIMX_BF16) \
	X(v_cvt_scalef32_2xpk16_fp6_f32, TO6_2X16, SIMX_FP6, -1) \
	X(v_cvt_scalef32_2xpk16_bf6_f32, TO6_2X16, SIMX_BF6, -1) \
	X(v_cvt_scalef32_pk32_f32_fp6, FROM6_32, SIMX_FP6, -1) \
	X(v_cvt_scalef32_pk32_f32_bf6, FROM6_32, SIMX_BF6, -1) \
	X(v_cvt_scalef32_pk32_f16_fp6, FROM6_32, SIMX_FP6, SIMX_F16) \
	X(v_cvt_scalef32_pk32_f16_bf6, FROM6_32, SIMX_BF6, SIMX_F16) \
	X(v_cvt_scalef32_pk32_bf16_fp6, FROM6_32, SIMX_FP6, SIMX_BF16) \
	X(v_cvt_scalef32_pk32_bf16_bf6, FROM6_32, SIMX_BF6, SIMX_BF16) \
	X(v_cvt_pk_fp8_f32, U_TO8, SIMX_FP8, -1) \
	X(v_cvt_pk_bf8_f32, U_TO8, SIMX_BF8, -1) \
	X(v_cvt_f32_fp8, U_FROM8_1, SIMX_FP8, -1) \
	X(v_cvt_f32_bf8, U_FROM8_1, SIMX_BF8, -1) \
	X(v_cvt_pk_f32_fp8, U_FROM8_PK, SIMX_FP8, -1) \
	X(v_cvt_pk_f32_bf8, U_FROM8_PK, SIMX_BF8, -1) \
	X(v_cvt_scalef32_sr_fp8_f32, SR8, SIMX_FP8, -1) \
	X(v_cvt_scalef32_sr_bf8_f32, SR8, SIMX_BF8, -1) \
	X(v_cvt_scalef32_sr_fp8_f16, SR8, SIMX_FP8, SIMX_F16) \
	X(v_cvt_scalef32_sr_bf8_f16, SR8, SIMX_BF8, SIMX_F16) \
	X(v_cvt_scalef32_sr_fp8_bf16, SR8, SIMX_FP8, SIMX_BF16) \
	X(v_cvt_scalef32_sr_bf8_bf16, SR8, SIMX_BF8, SIMX_BF16) \
	X(v_cvt_scalef32_sr_pk_fp4_f32, SR4, SIMX_FP4, -1) \
	X(v_cvt_scalef32_sr_pk_fp4_f16, SR4, SIMX_FP4, SIMX_F16) \
	X(v_cvt_scalef32_sr_pk_fp4_bf16, SR4, SIMX_FP4, SIMX_BF16) \
	X(v_cvt_scalef32_sr_pk32_fp6_f32, SR6_32, SIMX_FP6, -1) \
	X(v_cvt_scalef32_sr_pk32_bf6_f32, SR6_32, SIMX_BF6, -1) \
	X(v_cvt_scalef32_sr_pk32_fp6_f16, SR6_32, SIMX_FP6, SIMX_F16) \
	X(v_cvt_scalef32_sr_pk32_bf6_f16, SR6_32, SIMX_BF6, SIMX_F16) \
	X(v_cvt_scalef32_sr_pk32_fp6_bf16, SR6_32, SIMX_FP6, SIMX_BF16) \
	X(v_cvt_scalef32_sr_pk32_bf6_bf16, SR6_32, SIMX_BF6, SIMX_BF16) \
	X(v_cvt_sr_fp8_f32, U_SR8, SIMX_FP8, -1) \
	X(v_cvt_sr_bf8_f32, U_SR8, SIMX_BF8, -1) \
	X(v_cvt_sr_f16_f32, U_SR16, SIMX_F16, -1) \
	X(v_cvt_sr_bf16_f32, U_SR16, SIMX_BF16, -1)

typedef struct cvtdesc {
	const char *name;
	enum shape shape;
	int narrow, wide;
} cvtdesc;

static const cvtdesc cvts[] = {
#define X(n, s, nf, wf) {#n, s, nf, wf},
	SIMX_CVT_TABLE(X)
#undef X
};
enum { NCVT = (int)(sizeof cvts / sizeof cvts[0]) };

int simx_cvt_count(void) { return NCVT; }

/* Compare a disassembler mnemonic with a table name, ignoring an encoding suffix. */
static int name_matches(const char *mn, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(mn, name, n) != 0)
		return 0;
	const char *rest = mn + n;
	return !*rest || !strcmp(rest, "_e32") || !strcmp(rest, "_e64") || !strcmp(rest, "_sdwa") ||
	       !strcmp(rest, "_dpp");
}

int simx_cvt_lookup(const char *mnemonic)
{
	if (!mnemonic)
		return -1;
	for (int i = 0; i < NCVT; i++)
		if (name_matches(mnemonic, cvts[i].name))
			return i;
	return -1;
}

const char *simx_cvt_name(int id) { return id >= 0 && id < NCVT ? cvts[id].name : NULL; }

int simx_cvt_src0_dwords(int id)
{
	if (id < 0 || id >= NCVT)
		return 0;
	switch (cvts[id].shape) {
	case TO6_32: case TO6_2X16: return 16;
	case FROM6_32: return 6;
	case SR4: return cvts[id].wide < 0 ? 2 : 1;
	case SR6_32: return cvts[id].wide < 0 ? 32 : 16;
	default: return 1;
	}
}

int simx_cvt_src1_dwords(int id)
{
	if (id < 0 || id >= NCVT)
		return 0;
	return cvts[id].shape == TO6_2X16 ? 16 : 1;
}

int simx_cvt_nsrc(int id)
{
	if (id < 0 || id >= NCVT)
		return 0;
	switch (cvts[id].shape) {
	case TO8_F32: case TO4_F32: case TO6_2X16: case SR8: case SR4: case SR6_32: return 3;
	case U_FROM8_1: case U_FROM8_PK: return 1;
	default: return 2;
	}
}

int simx_cvt_dst_dwords(int id)
{
	if (id < 0 || id >= NCVT)
		return 0;
	const cvtdesc *c = &cvts[id];
	switch (c->shape) {
	case FROM8_PK: case FROM4_PK: return c->wide < 0 ? 2 : 1;
	case U_FROM8_PK: return 2;
	case TO6_32: case TO6_2X16: case SR6_32: return 6;
	case FROM6_32: return c->wide < 0 ? 32 : 16;
	default: return 1;
	}
}

unsigned simx_cvt_f32_srcs(int id)
{
	if (id < 0 || id >= NCVT)
		return 0;
	switch (cvts[id].shape) {
	case TO8_F32: case TO4_F32: case U_TO8: return 3;
	case SR8: case U_SR8: case U_SR16: return cvts[id].wide < 0 ? 1 : 0;
	default: return 0;
	}
}

/* The scale operand: only its exponent field (bits 30:23) counts, as an E8M0 value. */
static int scale_exp(uint32_t scale) { return (int)((scale >> 23) & 0xFF); }

/* x / 2^(s-127), exactly (double has the range), or NaN for s = 255 */
static double unscale(double x, int s) { return s == 255 ? NAN : ldexp(x, 127 - s); }
static double rescale(double x, int s) { return s == 255 ? NAN : ldexp(x, s - 127); }

/* significand bits of a source type: f32 23, f16 10, bf16 7 */
static int src_mbits(int wide) { return wide < 0 ? 23 : fmts[wide].mbits; }

/* 16-bit half h (0 = low) of a packed pair, as a double */
static double half_val(int wide, uint32_t v, int h)
{
	uint16_t bits = (uint16_t)(v >> (16 * h));
	return simx_decode((simx_fmt)wide, bits);
}

/* a double rounded to the wide output type, as a 32-bit (f32) or 16-bit pattern */
static uint32_t wide_out(int wide, double x)
{
	if (wide < 0)
		return simx_f2u((float)x); /* C conversion rounds to nearest even */
	return simx_encode((simx_fmt)wide, x, SIMX_OVF_IEEE);
}

static uint32_t put_bits(uint32_t old, int shift, int width, uint32_t val)
{
	uint32_t mask = (width == 32 ? 0xFFFFFFFFu : ((1u << width) - 1)) << shift;
	return (old & ~mask) | ((val << shift) & mask);
}

/* 6-bit element e of a 192-bit little-endian packing in 6 dwords */
static uint32_t get6(const uint32_t *w, int e)
{
	int bit = 6 * e;
	uint64_t lo = w[bit / 32];
	uint64_t hi = (bit / 32 + 1 < 6) ? w[bit / 32 + 1] : 0;
	return (uint32_t)(((lo | (hi << 32)) >> (bit % 32)) & 63u);
}

static void put6(uint32_t *w, int e, uint32_t code)
{
	int bit = 6 * e;
	uint64_t v = (uint64_t)(code & 63u) << (bit % 32);
	w[bit / 32] |= (uint32_t)v;
	if (bit / 32 + 1 < 6)
		w[bit / 32 + 1] |= (uint32_t)(v >> 32);
}

int simx_cvt_exec(int id, const uint32_t *src0, const uint32_t *src1, uint32_t src2,
                  uint32_t old, unsigned opsel, int sdwa_sel, uint32_t *dst)
{
	if (id < 0 || id >= NCVT || !src0 || !dst)
		return -1;
	const cvtdesc *c = &cvts[id];
	simx_fmt nf = (simx_fmt)c->narrow;
	int os0 = opsel & 1, os1 = (opsel >> 1) & 1, os2 = (opsel >> 2) & 1, os3 = (opsel >> 3) & 1;
	uint32_t s1 = src1 ? src1[0] : 0;
	switch (c->shape) {
	case TO8_F32: {
		int s = scale_exp(src2);
		uint32_t lo = simx_encode(nf, unscale(simx_u2f(src0[0]), s), SIMX_OVF_IEEE);
		uint32_t hi = simx_encode(nf, unscale(simx_u2f(s1), s), SIMX_OVF_IEEE);
		dst[0] = put_bits(old, 16 * os3, 16, lo | hi << 8);
		return 0;
	}
	case TO8_P16: {
		int s = scale_exp(s1);
		uint32_t lo = simx_encode(nf, unscale(half_val(c->wide, src0[0], 0), s), SIMX_OVF_IEEE);
		uint32_t hi = simx_encode(nf, unscale(half_val(c->wide, src0[0], 1), s), SIMX_OVF_IEEE);
		dst[0] = put_bits(old, 16 * os3, 16, lo | hi << 8);
		return 0;
	}
	case TO4_F32: {
		int s = scale_exp(src2);
		uint32_t lo = simx_encode(nf, unscale(simx_u2f(src0[0]), s), SIMX_OVF_SAT);
		uint32_t hi = simx_encode(nf, unscale(simx_u2f(s1), s), SIMX_OVF_SAT);
		dst[0] = put_bits(old, 8 * (os2 | os3 << 1), 8, lo | hi << 4);
		return 0;
	}
	case TO4_P16: {
		int s = scale_exp(s1);
		uint32_t lo = simx_encode(nf, unscale(half_val(c->wide, src0[0], 0), s), SIMX_OVF_SAT);
		uint32_t hi = simx_encode(nf, unscale(half_val(c->wide, src0[0], 1), s), SIMX_OVF_SAT);
		dst[0] = put_bits(old, 8 * (os2 | os3 << 1), 8, lo | hi << 4);
		return 0;
	}
	case FROM8_PK: {
		int s = scale_exp(s1);
		uint32_t w = src0[0] >> (16 * os0);
		double v0 = rescale(simx_decode(nf, w & 0xFF), s);
		double v1 = rescale(simx_decode(nf, (w >> 8) & 0xFF), s);
		if (c->wide < 0) {
			dst[0] = wide_out(-1, v0);
			dst[1] = wide_out(-1, v1);
		} else {
			dst[0] = wide_out(c->wide, v0) | wide_out(c->wide, v1) << 16;
		}
		return 0;
	}
	case FROM4_PK: {
		int s = scale_exp(s1);
		uint32_t b = src0[0] >> (8 * (os0 | os1 << 1));
		double v0 = rescale(simx_decode(nf, b & 0xF), s);
		double v1 = rescale(simx_decode(nf, (b >> 4) & 0xF), s);
		if (c->wide < 0) {
			dst[0] = wide_out(-1, v0);
			dst[1] = wide_out(-1, v1);
		} else {
			dst[0] = wide_out(c->wide, v0) | wide_out(c->wide, v1) << 16;
		}
		return 0;
	}
	case FROM8_1: {
		int s = scale_exp(s1);
		uint32_t b = (src0[0] >> (8 * (os0 | os1 << 1))) & 0xFF;
		dst[0] = wide_out(-1, rescale(simx_decode(nf, b), s));
		return 0;
	}
	case FROM8_H: {
		int s = scale_exp(s1);
		uint32_t b = (src0[0] >> (8 * (os0 | os1 << 1))) & 0xFF;
		dst[0] = put_bits(old, 16 * os3, 16, wide_out(c->wide, rescale(simx_decode(nf, b), s)));
		return 0;
	}
	case TO6_32: {
		int s = scale_exp(s1);
		memset(dst, 0, 6 * sizeof *dst);
		for (int e = 0; e < 32; e++)
			put6(dst, e, simx_encode(nf, unscale(half_val(c->wide, src0[e / 2], e % 2), s),
			                         SIMX_OVF_SAT));
		return 0;
	}
	case TO6_2X16: {
		if (!src1)
			return -1;
		int s = scale_exp(src2);
		memset(dst, 0, 6 * sizeof *dst);
		for (int e = 0; e < 32; e++) {
			uint32_t v = e < 16 ? src0[e] : src1[e - 16];
			put6(dst, e, simx_encode(nf, unscale(simx_u2f(v), s), SIMX_OVF_SAT));
		}
		return 0;
	}
	case FROM6_32: {
		int s = scale_exp(s1);
		for (int e = 0; e < 32; e++) {
			double v = rescale(simx_decode(nf, get6(src0, e)), s);
			if (c->wide < 0)
				dst[e] = wide_out(-1, v);
			else if (e % 2 == 0)
				dst[e / 2] = wide_out(c->wide, v);
			else
				dst[e / 2] |= wide_out(c->wide, v) << 16;
		}
		return 0;
	}
	case U_TO8: {
		uint32_t lo = simx_encode(nf, simx_u2f(src0[0]), SIMX_OVF_IEEE);
		uint32_t hi = simx_encode(nf, simx_u2f(s1), SIMX_OVF_IEEE);
		dst[0] = put_bits(old, 16 * os3, 16, lo | hi << 8);
		return 0;
	}
	case U_FROM8_1: {
		int byte = (sdwa_sel >= 0 && sdwa_sel <= 3) ? sdwa_sel : 0;
		dst[0] = wide_out(-1, simx_decode(nf, (src0[0] >> (8 * byte)) & 0xFF));
		return 0;
	}
	case U_FROM8_PK: {
		int word = sdwa_sel == 5 ? 1 : 0;
		uint32_t w = src0[0] >> (16 * word);
		dst[0] = wide_out(-1, simx_decode(nf, w & 0xFF));
		dst[1] = wide_out(-1, simx_decode(nf, (w >> 8) & 0xFF));
		return 0;
	}
	case SR8: case U_SR8: {
		int sc = c->shape == SR8 ? scale_exp(src2) : 127;
		double v = c->wide < 0 ? simx_u2f(src0[0]) : half_val(c->wide, src0[0], 0);
		uint32_t code = simx_encode_sr(nf, unscale(v, sc), src_mbits(c->wide) - fmts[nf].mbits, s1,
		                               SIMX_OVF_IEEE);
		dst[0] = put_bits(old, 8 * (os2 | os3 << 1), 8, code);
		return 0;
	}
	case SR4: {
		int sc = scale_exp(src2), rb = src_mbits(c->wide) - fmts[nf].mbits;
		double v0 = c->wide < 0 ? simx_u2f(src0[0]) : half_val(c->wide, src0[0], 0);
		double v1 = c->wide < 0 ? simx_u2f(src0[1]) : half_val(c->wide, src0[0], 1);
		uint32_t lo = simx_encode_sr(nf, unscale(v0, sc), rb, s1, SIMX_OVF_SAT);
		uint32_t hi = simx_encode_sr(nf, unscale(v1, sc), rb, s1, SIMX_OVF_SAT);
		dst[0] = put_bits(old, 8 * (os2 | os3 << 1), 8, lo | hi << 4);
		return 0;
	}
	case SR6_32: {
		int sc = scale_exp(src2), rb = src_mbits(c->wide) - fmts[nf].mbits;
		memset(dst, 0, 6 * sizeof *dst);
		for (int e = 0; e < 32; e++) {
			double v = c->wide < 0 ? simx_u2f(src0[e]) : half_val(c->wide, src0[e / 2], e % 2);
			put6(dst, e, simx_encode_sr(nf, unscale(v, sc), rb, s1, SIMX_OVF_SAT));
		}
		return 0;
	}
	case U_SR16: {
		uint32_t h = simx_encode_sr(nf, simx_u2f(src0[0]), 23 - fmts[nf].mbits, s1, SIMX_OVF_IEEE);
		dst[0] = put_bits(old, 16 * os3, 16, h);
		return 0;
	}
	}
	return -1;
}
