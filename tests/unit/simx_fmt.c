/* Unit tests: narrow number formats and the gfx950 conversion instructions (simx_fmt.c).
 * References are computed here from the format definitions (OCP MX spec), independently
 * of the implementation: decode by the textbook formula, rounding checked by the
 * neighbours-and-midpoints property, and hand-computed codes for the instructions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sim/simx.h"

/* ---- independent decoders: value = (-1)^s * 2^(E-bias) * (1 + m/2^mb), subnormal at E=0 */
static double ref_value(int code, int eb, int mb, int bias)
{
	int nb = 1 + eb + mb;
	int s = (code >> (nb - 1)) & 1;
	int E = (code >> mb) & ((1 << eb) - 1);
	int m = code & ((1 << mb) - 1);
	double frac = (double)m / (double)(1 << mb);
	double v = E == 0 ? frac * pow(2.0, 1 - bias) : (1.0 + frac) * pow(2.0, E - bias);
	return s ? -v : v;
}

static int same(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return a == b && signbit(a) == signbit(b);
}

static void decode_fp8_all(void **st)
{
	(void)st;
	for (int c = 0; c < 256; c++) {
		double want = (c & 0x7F) == 0x7F ? NAN : ref_value(c, 4, 3, 7);
		assert_true(same(simx_decode(SIMX_FP8, (uint32_t)c), want));
	}
	assert_true(simx_decode(SIMX_FP8, 0x7E) == 448.0);
	assert_true(simx_decode(SIMX_FP8, 0x01) == ldexp(1, -9));
	assert_true(simx_decode(SIMX_FP8, 0x78) == 256.0); /* E=15 is a normal binade in FN */
}

static void decode_bf8_all(void **st)
{
	(void)st;
	for (int c = 0; c < 256; c++) {
		int E = (c >> 2) & 31, m = c & 3;
		double want = ref_value(c, 5, 2, 15);
		if (E == 31)
			want = m ? NAN : ((c & 0x80) ? -INFINITY : INFINITY);
		assert_true(same(simx_decode(SIMX_BF8, (uint32_t)c), want));
	}
	assert_true(simx_decode(SIMX_BF8, 0x7B) == 57344.0);
	assert_true(simx_decode(SIMX_BF8, 0x01) == ldexp(1, -16));
}

static void decode_fp6_bf6_fp4_all(void **st)
{
	(void)st;
	for (int c = 0; c < 64; c++) {
		assert_true(same(simx_decode(SIMX_FP6, (uint32_t)c), ref_value(c, 2, 3, 1)));
		assert_true(same(simx_decode(SIMX_BF6, (uint32_t)c), ref_value(c, 3, 2, 3)));
	}
	static const double fp4[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
	for (int c = 0; c < 16; c++) {
		double want = (c & 8) ? -fp4[c & 7] : fp4[c & 7];
		assert_true(same(simx_decode(SIMX_FP4, (uint32_t)c), want));
	}
	assert_true(simx_decode(SIMX_FP6, 31) == 7.5);
	assert_true(simx_decode(SIMX_BF6, 31) == 28.0);
}

/* Every finite code round-trips; every midpoint between neighbours rounds to the even
 * code; a nudge off the midpoint rounds to the nearer one. */
static void check_rounding(simx_fmt f, int ncodes)
{
	double vals[256];
	int codes[256], n = 0;
	int half = ncodes / 2; /* positive codes: sign bit clear */
	for (int c = 0; c < half; c++) {
		double v = simx_decode(f, (uint32_t)c);
		if (isnan(v) || isinf(v))
			continue;
		assert_int_equal(simx_encode(f, v, SIMX_OVF_IEEE), c);
		assert_int_equal(simx_encode(f, -v, SIMX_OVF_IEEE), c | half);
		vals[n] = v;
		codes[n++] = c;
	}
	for (int t = 0; t + 1 < n; t++) {
		assert_true(vals[t] < vals[t + 1]);
		double mid = (vals[t] + vals[t + 1]) / 2;
		int even = (codes[t] & 1) ? codes[t + 1] : codes[t];
		assert_int_equal(simx_encode(f, mid, SIMX_OVF_IEEE), even);
		double eps = (vals[t + 1] - vals[t]) / 64;
		assert_int_equal(simx_encode(f, mid - eps, SIMX_OVF_IEEE), codes[t]);
		assert_int_equal(simx_encode(f, mid + eps, SIMX_OVF_IEEE), codes[t + 1]);
	}
}

static void encode_rne_all_formats(void **st)
{
	(void)st;
	check_rounding(SIMX_FP8, 256);
	check_rounding(SIMX_BF8, 256);
	check_rounding(SIMX_FP6, 64);
	check_rounding(SIMX_BF6, 64);
	check_rounding(SIMX_FP4, 16);
}

static void encode_overflow_nan_inf(void **st)
{
	(void)st;
	/* fp8 E4M3FN: 464 is the midpoint of 448 and 480 (not representable): ties to even 448 */
	assert_int_equal(simx_encode(SIMX_FP8, 464, SIMX_OVF_IEEE), 0x7E);
	assert_int_equal(simx_encode(SIMX_FP8, 465, SIMX_OVF_IEEE), 0x7F);
	assert_int_equal(simx_encode(SIMX_FP8, -465, SIMX_OVF_IEEE), 0xFF);
	assert_int_equal(simx_encode(SIMX_FP8, 465, SIMX_OVF_SAT), 0x7E);
	assert_int_equal(simx_encode(SIMX_FP8, -1e30, SIMX_OVF_SAT), 0xFE);
	assert_int_equal(simx_encode(SIMX_FP8, INFINITY, SIMX_OVF_IEEE), 0x7F);
	assert_int_equal(simx_encode(SIMX_FP8, NAN, SIMX_OVF_IEEE), 0x7F);
	/* bf8 E5M2: 61440 is the midpoint of 57344 (mantissa 11, odd) and 65536: rounds up, overflows */
	assert_int_equal(simx_encode(SIMX_BF8, 61439, SIMX_OVF_IEEE), 0x7B);
	assert_int_equal(simx_encode(SIMX_BF8, 61440, SIMX_OVF_IEEE), 0x7C);
	assert_int_equal(simx_encode(SIMX_BF8, -INFINITY, SIMX_OVF_IEEE), 0xFC);
	assert_int_equal(simx_encode(SIMX_BF8, 1e9, SIMX_OVF_SAT), 0x7B);
	assert_true(isnan(simx_decode(SIMX_BF8, simx_encode(SIMX_BF8, NAN, SIMX_OVF_IEEE))));
	/* fp4/fp6 have no Inf/NaN: always saturate */
	assert_int_equal(simx_encode(SIMX_FP4, 7, SIMX_OVF_IEEE), 0x7);
	assert_int_equal(simx_encode(SIMX_FP4, -100, SIMX_OVF_IEEE), 0xF);
	assert_int_equal(simx_encode(SIMX_FP4, 5, SIMX_OVF_IEEE), 0x6);  /* tie 4|6 -> 4 (even) */
	assert_int_equal(simx_encode(SIMX_FP4, 0.25, SIMX_OVF_IEEE), 0x0); /* tie 0|0.5 -> 0 */
	assert_int_equal(simx_encode(SIMX_FP4, -0.25, SIMX_OVF_IEEE), 0x8); /* -0 */
	assert_int_equal(simx_encode(SIMX_FP6, 1000, SIMX_OVF_IEEE), 0x1F);
	assert_int_equal(simx_encode(SIMX_BF6, -1000, SIMX_OVF_IEEE), 0x3F);
	/* denormals: fp8 min subnormal 2^-9; 2^-10 ties to 0, 3*2^-10 ties to 2^-8 (code 2) */
	assert_int_equal(simx_encode(SIMX_FP8, ldexp(1, -10), SIMX_OVF_IEEE), 0x00);
	assert_int_equal(simx_encode(SIMX_FP8, 3 * ldexp(1, -10), SIMX_OVF_IEEE), 0x02);
	assert_int_equal(simx_encode(SIMX_FP8, ldexp(1, -6), SIMX_OVF_IEEE), 0x08); /* min normal */
	assert_int_equal(simx_encode(SIMX_FP8, ldexp(7, -9), SIMX_OVF_IEEE), 0x07);  /* max subnormal */
	assert_int_equal(simx_encode(SIMX_FP8, -0.0, SIMX_OVF_IEEE), 0x80);
}

static void bf16_f16(void **st)
{
	(void)st;
	assert_int_equal(simx_f32_to_bf16(simx_u2f(0x3F808000)), 0x3F80); /* tie, even */
	assert_int_equal(simx_f32_to_bf16(simx_u2f(0x3F818000)), 0x3F82); /* tie, odd -> up */
	assert_int_equal(simx_f32_to_bf16(simx_u2f(0x3F808001)), 0x3F81);
	assert_int_equal(simx_f32_to_bf16(simx_u2f(0x7F7FFFFF)), 0x7F80); /* overflow -> Inf */
	assert_true(isnan(simx_bf16_to_f32(simx_f32_to_bf16(NAN))));
	assert_true(simx_bf16_to_f32(0xC0A0) == -5.0f);
#ifdef __FLT16_MAX__
	/* the compiler's _Float16 conversion is an independent IEEE reference */
	uint32_t x = 12345;
	for (int t = 0; t < 200000; t++) {
		x = x * 1664525u + 1013904223u;
		uint32_t bits = (x & 0x8FFFFFFFu) | ((x >> 3) & 0x30000000u); /* bias to |v| < 2^32 */
		float f = simx_u2f(bits);
		if (isnan(f))
			continue;
		_Float16 h = (_Float16)f;
		uint16_t hb;
		memcpy(&hb, &h, 2);
		assert_int_equal(simx_f32_to_f16(f), hb);
		assert_true(simx_f16_to_f32(hb) == (float)h);
	}
#endif
	assert_int_equal(simx_f32_to_f16(65520.0f), 0x7C00);
	assert_int_equal(simx_f32_to_f16(65519.0f), 0x7BFF);
	assert_int_equal(simx_f32_to_f16(ldexp(1, -25)), 0x0000); /* tie 0 | min subnormal */
}

static void e8m0(void **st)
{
	(void)st;
	assert_true(simx_e8m0(127) == 1.0);
	assert_true(simx_e8m0(0) == ldexp(1, -127));
	assert_true(simx_e8m0(254) == ldexp(1, 127));
	assert_true(simx_e8m0(130) == 8.0);
	assert_true(isnan(simx_e8m0(255)));
}

/* ---- instructions ---- */

static uint32_t f(float x) { return simx_f2u(x); }

static uint32_t run1(const char *name, uint32_t s0, uint32_t s1, uint32_t s2, uint32_t old,
                     unsigned opsel, int sdwa, uint32_t *second)
{
	int id = simx_cvt_lookup(name);
	assert_true(id >= 0);
	uint32_t dst[32] = {0};
	assert_int_equal(simx_cvt_exec(id, &s0, &s1, s2, old, opsel, sdwa, dst), 0);
	if (second)
		*second = dst[1];
	return dst[0];
}

static void cvt_scaled_to_fp8(void **st)
{
	(void)st;
	/* 3.0 / 2 = 1.5 = 0 0111 100 = 0x3C; -1.5 / 2 = -0.75 = 1 0110 100 = 0xB4 */
	uint32_t r = run1("v_cvt_scalef32_pk_fp8_f32", f(3.0f), f(-1.5f), f(2.0f), 0xAABBCCDD, 0, 6, NULL);
	assert_int_equal(r, 0xAABBB43C);
	/* op_sel[3] (dst) selects the high word; the low word of old survives */
	r = run1("v_cvt_scalef32_pk_fp8_f32", f(3.0f), f(-1.5f), f(2.0f), 0xAABBCCDD, 8, 6, NULL);
	assert_int_equal(r, 0xB43CCCDD);
	/* only the scale's exponent counts: 3.0 acts like 2.0 */
	r = run1("v_cvt_scalef32_pk_fp8_f32", f(3.0f), f(-1.5f), f(3.0f), 0, 0, 6, NULL);
	assert_int_equal(r, 0xB43C);
	/* the conversion divides by the scale: 1792 / 4 = 448 (0x7E); overflow gives NaN */
	r = run1("v_cvt_scalef32_pk_fp8_f32", f(1792.0f), f(1000.0f), f(1.0f), 0, 0, 6, NULL);
	assert_int_equal(r & 0xFFFF, 0x7F7F);
	r = run1("v_cvt_scalef32_pk_fp8_f32", f(1792.0f), f(-4000.0f), f(4.0f), 0, 0, 6, NULL);
	assert_int_equal(r & 0xFFFF, 0xFF7E);
	/* bf8: 6.0/0.5 = 12 = 0 10010 10 = 0x4A; overflow gives Inf (0x7C) */
	r = run1("v_cvt_scalef32_pk_bf8_f32", f(6.0f), f(1e6f), f(0.5f), 0, 0, 6, NULL);
	assert_int_equal(r, 0x7C4A);
	/* from packed f16 / bf16: f16 2.0 = 0x4000, -0.5 = 0xB800; scale 1 */
	r = run1("v_cvt_scalef32_pk_fp8_f16", 0xB8004000, f(1.0f), 0, 0x12345678, 8, 6, NULL);
	assert_int_equal(r, ((uint32_t)0xB040 << 16) | 0x5678); /* 2.0 = 0x40, -0.5 = 0xB0 */
	r = run1("v_cvt_scalef32_pk_bf8_bf16", 0xBF004000u, f(1.0f), 0, 0, 0, 6, NULL);
	assert_int_equal(r, 0xB840); /* bf8: 2.0 = 0x40, -0.5 = 0xB8 */
}

static void cvt_scaled_fp4(void **st)
{
	(void)st;
	/* fp4: 12/4 = 3 -> 0x5, -2/4 = -0.5 -> 0x9; byte 2 = op_sel[3]<<1 | op_sel[2] = 2 */
	uint32_t r = run1("v_cvt_scalef32_pk_fp4_f32", f(12.0f), f(-2.0f), f(4.0f), 0xFFFFFFFF, 8, 6, NULL);
	assert_int_equal(r, 0xFF95FFFF);
	/* saturation: 100 -> 6 (0x7); byte 1 = op_sel[2] */
	r = run1("v_cvt_scalef32_pk_fp4_f32", f(100.0f), f(0.75f), f(1.0f), 0, 4, 6, NULL);
	assert_int_equal(r, 0x00002700); /* 0.75 ties between 0.5 and 1 -> 1.0 (0x2, even) */
	/* packed f16 (1.0 = 0x3C00, 6.0 = 0x4600), byte 3 */
	r = run1("v_cvt_scalef32_pk_fp4_f16", 0x46003C00, f(1.0f), 0, 0, 12, 6, NULL);
	assert_int_equal(r, 0x72000000);
	/* decode: byte op_sel[0] | op_sel[1] << 1; value * scale */
	uint32_t hi;
	uint32_t lo = run1("v_cvt_scalef32_pk_f32_fp4", 0x00F70000, f(8.0f), 0, 0, 2, 6, &hi);
	assert_true(simx_u2f(lo) == 48.0f && simx_u2f(hi) == -48.0f);
	r = run1("v_cvt_scalef32_pk_f16_fp4", 0x3A, f(0.25f), 0, 0, 0, 6, NULL);
	assert_int_equal(r, 0x3600B400u); /* nibble 0xA = -1.0 -> -0.25; nibble 3 = 1.5 -> 0.375 */
}

static void cvt_scaled_from_fp8(void **st)
{
	(void)st;
	uint32_t hi;
	/* word 1 (op_sel[0]): bytes 0xC0 (-2) and 0x38 (1.0) -> scaled by 4 */
	uint32_t lo = run1("v_cvt_scalef32_pk_f32_fp8", 0x38C00000, f(4.0f), 0, 0, 1, 6, &hi);
	assert_true(simx_u2f(lo) == -8.0f && simx_u2f(hi) == 4.0f);
	/* NaN code stays NaN */
	lo = run1("v_cvt_scalef32_pk_f32_fp8", 0x7F, f(1.0f), 0, 0, 0, 6, &hi);
	assert_true(isnan(simx_u2f(lo)) && simx_u2f(hi) == 0.0f);
	/* bf8 Inf stays Inf whatever the scale; 0x3C (1.0) takes the scale 2^-100 */
	lo = run1("v_cvt_scalef32_pk_f32_bf8", 0x3C7C, f(ldexpf(1, -100)), 0, 0, 0, 6, &hi);
	assert_true(isinf(simx_u2f(lo)) && simx_u2f(hi) == ldexpf(1, -100));
	/* one byte (op_sel 3 = byte 3) */
	uint32_t r = run1("v_cvt_scalef32_f32_fp8", 0x44000000, f(0.5f), 0, 0, 3, 6, NULL);
	assert_true(simx_u2f(r) == 1.5f); /* 0x44 = 0 1000 100 = 3 */
	/* f16 result into word op_sel[3] of old */
	r = run1("v_cvt_scalef32_f16_fp8", 0x00440000, f(1.0f), 0, 0x1111AAAA, 2 | 8, 6, NULL);
	assert_int_equal(r, 0x4200AAAA); /* 3.0 in f16 */
	r = run1("v_cvt_scalef32_pk_bf16_bf8", 0x3C40, f(2.0f), 0, 0, 0, 6, NULL);
	assert_int_equal(r, 0x40004080); /* 2*2 = 4 (0x4080), 1*2 = 2 (0x4000) */
	/* results that overflow f16 become Inf */
	r = run1("v_cvt_scalef32_pk_f16_fp8", 0x7E, f(1024.0f), 0, 0, 0, 6, NULL);
	assert_int_equal(r & 0xFFFF, 0x7C00);
}

static void cvt_unscaled(void **st)
{
	(void)st;
	/* v_cvt_pk_fp8_f32: word op_sel[3], non-saturating */
	uint32_t r = run1("v_cvt_pk_fp8_f32", f(1.0f), f(-448.0f), 0, 0xDEAD0000, 0, 6, NULL);
	assert_int_equal(r, 0xDEADFE38);
	r = run1("v_cvt_pk_bf8_f32_e64", f(1e6f), f(0.25f), 0, 0x0000BEEF, 8, 6, NULL);
	assert_int_equal(r, 0x347CBEEF);
	/* v_cvt_f32_fp8 with SDWA byte select */
	r = run1("v_cvt_f32_fp8_sdwa", 0x00B80000, 0, 0, 0, 0, 2, NULL);
	assert_true(simx_u2f(r) == -1.0f);
	r = run1("v_cvt_f32_bf8_e32", 0xFF0000C0, 0, 0, 0, 0, 6, NULL);
	assert_true(simx_u2f(r) == -2.0f);
	uint32_t hi;
	r = run1("v_cvt_pk_f32_fp8_sdwa", 0x4038FFFF, 0, 0, 0, 0, 5, &hi);
	assert_true(simx_u2f(r) == 1.0f && simx_u2f(hi) == 2.0f);
	assert_int_equal(simx_cvt_lookup("v_cvt_scalef32_pk8_fp8_f32"), -1); /* gfx1250 */
	assert_int_equal(simx_cvt_lookup("v_cvt_scalef32_pk_fp8_f32x"), -1);
}

static void cvt_fp6_pk32(void **st)
{
	(void)st;
	int to = simx_cvt_lookup("v_cvt_scalef32_pk32_fp6_f16");
	int from = simx_cvt_lookup("v_cvt_scalef32_pk32_f32_fp6");
	int tobf = simx_cvt_lookup("v_cvt_scalef32_2xpk16_bf6_f32");
	int frombf = simx_cvt_lookup("v_cvt_scalef32_pk32_bf16_bf6");
	assert_true(to >= 0 && from >= 0 && tobf >= 0 && frombf >= 0);
	assert_int_equal(simx_cvt_src0_dwords(to), 16);
	assert_int_equal(simx_cvt_dst_dwords(to), 6);
	assert_int_equal(simx_cvt_dst_dwords(from), 32);
	assert_int_equal(simx_cvt_dst_dwords(frombf), 16);
	/* 32 halves: element e = (e - 16) * 0.125 * 2, scale 2 -> codes of (e-16)*0.125 */
	uint32_t src[16], packed[6], back[32];
	for (int e = 0; e < 32; e++) {
		uint16_t h = simx_f32_to_f16((float)(e - 16) * 0.25f);
		if (e % 2 == 0)
			src[e / 2] = h;
		else
			src[e / 2] |= (uint32_t)h << 16;
	}
	uint32_t two = f(2.0f);
	assert_int_equal(simx_cvt_exec(to, src, &two, 0, 0, 0, 6, packed), 0);
	/* independent check of the bit packing: element e at bits 6e of the 192-bit value */
	for (int e = 0; e < 32; e++) {
		int bit = 6 * e;
		uint64_t w = packed[bit / 32] | (bit / 32 + 1 < 6 ? (uint64_t)packed[bit / 32 + 1] << 32 : 0);
		int code = (int)((w >> (bit % 32)) & 63);
		double want = (e - 16) * 0.125;
		assert_true(ref_value(code, 2, 3, 1) == want || (want == 0 && code == 0));
	}
	uint32_t quarter = f(0.25f);
	assert_int_equal(simx_cvt_exec(from, packed, &quarter, 0, 0, 0, 6, back), 0);
	for (int e = 0; e < 32; e++)
		assert_true(simx_u2f(back[e]) == (float)((e - 16) * 0.125 * 0.25));
	/* 2xpk16 bf6 from two 16-register f32 sources; saturates at 28 */
	uint32_t s0[16], s1[16], p2[6], h2[16];
	for (int e = 0; e < 16; e++) {
		s0[e] = f((float)e);
		s1[e] = f(-(float)e * 4);
	}
	assert_int_equal(simx_cvt_exec(tobf, s0, s1, f(1.0f), 0, 0, 6, p2), 0);
	assert_int_equal(simx_cvt_exec(frombf, p2, &two, 0, 0, 0, 6, h2), 0);
	for (int e = 0; e < 32; e++) {
		double v = e < 16 ? e : -(e - 16) * 4.0;
		double r = simx_decode(SIMX_BF6, simx_encode(SIMX_BF6, v, SIMX_OVF_SAT)) * 2;
		uint16_t got = (uint16_t)(h2[e / 2] >> (16 * (e % 2)));
		assert_true(simx_bf16_to_f32(got) == (float)r);
	}
	assert_true(simx_bf16_to_f32((uint16_t)(h2[15] >> 16)) == -56.0f); /* -60 -> -28, *2 */
}


/* Stochastic rounding: a value a fraction f of the way from one representable value to
 * the next rounds up for exactly the share f of the random inputs; representable values
 * never move; with rbits random bits, the random input's low rbits bits are used. */
static void sr_model(void **st)
{
	(void)st;
	/* fp8 at 1.0: last place 1/8; x = 1 + (5/16)/8 lies 5/16 of the way to 1.125 */
	double x = 1.0 + 5.0 / 16 / 8;
	int up = 0, n = 0;
	for (uint32_t r = 0; r < (1u << 20); r += 1u << 12, n++) {
		uint32_t c = simx_encode_sr(SIMX_FP8, x, 20, r | 0xFFF00000u /* high bits ignored */, SIMX_OVF_IEEE);
		assert_true(c == 0x38 || c == 0x39);
		up += c == 0x39;
	}
	assert_int_equal(n, 256);
	assert_int_equal(up, 256 * 5 / 16);
	/* exactly representable: never moves; negative values round away from zero likewise */
	for (uint32_t r = 0; r < 4096; r += 7) {
		assert_int_equal(simx_encode_sr(SIMX_FP8, 1.125, 20, r * 997u, SIMX_OVF_IEEE), 0x39);
		uint32_t c = simx_encode_sr(SIMX_BF8, -x, 20, r << 8, SIMX_OVF_IEEE);
		assert_true(c == 0xBC || c == 0xBD); /* -1.0 or -1.25 */
	}
	/* subnormal target: fp4 0.25 lies half-way between 0 and 0.5 */
	up = 0;
	for (uint32_t r = 0; r < 64; r++)
		up += simx_encode_sr(SIMX_FP4, 0.25, 6, r, SIMX_OVF_SAT) == 0x1;
	assert_int_equal(up, 32);
	/* fraction bits beyond rbits are truncated: 1 + (1/8)*(1/16 + tiny) with 4 bits */
	up = 0;
	for (uint32_t r = 0; r < 16; r++)
		up += simx_encode_sr(SIMX_FP8, 1.0 + (1.0 / 16 + 1e-6) / 8, 4, r, SIMX_OVF_IEEE) == 0x39;
	assert_int_equal(up, 1);
	/* overflow: fp8 non-saturating gives NaN, fp4 saturates */
	assert_int_equal(simx_encode_sr(SIMX_FP8, 470, 20, 0xFFFFF, SIMX_OVF_IEEE), 0x7F);
	assert_int_equal(simx_encode_sr(SIMX_FP8, 470, 20, 0, SIMX_OVF_IEEE), 0x7E);
	assert_int_equal(simx_encode_sr(SIMX_FP4, 100, 22, 0, SIMX_OVF_SAT), 0x7);
}

static void cvt_sr_instructions(void **st)
{
	(void)st;
	/* v_cvt_sr_fp8_f32 (value, rng) into byte op_sel[2] | op_sel[3] << 1 of old */
	double x = 1.0 + 5.0 / 16 / 8;
	uint32_t r = run1("v_cvt_sr_fp8_f32", f((float)x), 0, 0, 0xAABBCCDD, 8, 6, NULL);
	assert_int_equal(r, 0xAA38CCDD); /* rng 0: rounds down */
	r = run1("v_cvt_sr_fp8_f32", f((float)x), 0xFFFFF, 0, 0xAABBCCDD, 4 | 8, 6, NULL);
	assert_int_equal(r, 0x39BBCCDD); /* rng all ones: rounds up, byte 3 */
	/* scaled: (value / scale) then stochastic rounding; f16 source uses 10-3 = 7 bits */
	r = run1("v_cvt_scalef32_sr_fp8_f16", simx_f32_to_f16((float)(2 * x)), 0x7F, f(2.0f), 0, 4, 6, NULL);
	assert_int_equal(r, 0x3900);
	r = run1("v_cvt_scalef32_sr_fp8_f16", simx_f32_to_f16((float)(2 * x)), 0x3F, f(2.0f), 0, 4, 6, NULL);
	assert_int_equal(r, 0x3800); /* the fraction is 40/128 of a place: 40 + 63 < 128 */
	/* v_cvt_sr_bf16_f32: 16 random bits; word op_sel[3] */
	r = run1("v_cvt_sr_bf16_f32", 0x3F808000u, 0x7FFF, 0, 0x12345678, 8, 6, NULL);
	assert_int_equal(r, 0x3F805678);
	r = run1("v_cvt_sr_bf16_f32", 0x3F808000u, 0x8000, 0, 0x12345678, 0, 6, NULL);
	assert_int_equal(r, 0x12343F81);
	/* packed fp4 from an f32 pair (2 registers) */
	int id = simx_cvt_lookup("v_cvt_scalef32_sr_pk_fp4_f32");
	assert_int_equal(simx_cvt_src0_dwords(id), 2);
	uint32_t pair[2] = {f(12.0f), f(-1.0f)}, rng = 0, scale = f(4.0f), dst[1];
	assert_int_equal(simx_cvt_exec(id, pair, &rng, scale, 0xFFFFFFFF, 8, 6, dst), 0);
	assert_int_equal(dst[0], 0xFF85FFFF); /* 3 -> 0x5; -0.25 with rng 0 truncates to -0 (0x8) */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_fp8_all),
		cmocka_unit_test(decode_bf8_all),
		cmocka_unit_test(decode_fp6_bf6_fp4_all),
		cmocka_unit_test(encode_rne_all_formats),
		cmocka_unit_test(encode_overflow_nan_inf),
		cmocka_unit_test(bf16_f16),
		cmocka_unit_test(e8m0),
		cmocka_unit_test(cvt_scaled_to_fp8),
		cmocka_unit_test(cvt_scaled_fp4),
		cmocka_unit_test(cvt_scaled_from_fp8),
		cmocka_unit_test(cvt_unscaled),
		cmocka_unit_test(cvt_fp6_pk32),
		cmocka_unit_test(sr_model),
		cmocka_unit_test(cvt_sr_instructions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
