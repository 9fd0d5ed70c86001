/* Unit tests: the simulator handlers of simx_ops.c, driven with instructions parsed from
 * LLVM text together with their real encodings (from llvm-mc-22 -mcpu=gfx950
 * -show-encoding). They check what the handlers take from the encoding (op_sel, the
 * scale prefix's op_sel/op_sel_hi, f64 neg, blgp), inline-constant C operands, AGPRs and
 * the output modifiers; the semantics themselves are tested in simx_fmt/simx_mfma. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wcomment" /* sim_int.h/codeobj.h nest a comment opener */
#include "sim/sim_int.h"
#include "sim/simx.h"

static SimWave *wave(void)
{
	SimWave *w = calloc(1, sizeof *w);
	assert_non_null(w);
	w->arch = &sim_arch_gfx950; w->lanes = 64; w->lanemask = ~0ull;   /* a gfx950 wave64 */
	sim_set_exec(w, ~0ull);
	return w;
}

/* parse `text` with the encoding bytes enc[0..n) */
static SimInst inst(const char *text, const uint8_t *enc, int n)
{
	SimInst in;
	char err[256];
	memset(&in, 0, sizeof in);
	in.size = (uint8_t)n;
	memcpy(in.raw, enc, (size_t)n);
	if (sim_parse_text(text, &in, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_true(in.op != SIM_OPC_UNSUPPORTED);
	return in;
}

static void run(SimWave *w, const SimInst *in)
{
	assert_int_equal(sim_op_handlers[in->op](w, in), SIM_NEXT);
}

static void cvt_opsel_from_encoding(void **st)
{
	(void)st;
	static const uint8_t e[] = {0x1a, 0x40, 0x3d, 0xd2, 0x14, 0x2b, 0x76, 0x04};
	SimInst in = inst("v_cvt_scalef32_pk_fp4_f32 v26, v20, v21, v29 op_sel:[0,0,0,1]", e, 8);
	SimWave *w = wave();
	for (int l = 0; l < 64; l++) {
		w->v[26][l] = 0x11111111;
		w->v[20][l] = simx_f2u(3.0f * (float)(l % 3));     /* / 1.5 -> 0, 2, 4 */
		w->v[21][l] = simx_f2u(-1.5f);                      /* / 1.5 -> -1 */
		w->v[29][l] = simx_f2u(1.5f);                       /* exponent 127: scale 1 */
	}
	run(w, &in);
	/* the scale 1.5 has exponent 127: divide by 1; 3*(l%3) -> 0, 3 or 6; -1.5 -> 0x3|8 */
	static const uint32_t lo[3] = {0x0, 0x5, 0x7};
	for (int l = 0; l < 64; l++)
		assert_int_equal(w->v[26][l], 0x11001111u | (lo[l % 3] | 0xBu << 4) << 16);
	free(w);
}

static void cvt_clamp_omod(void **st)
{
	(void)st;
	static const uint8_t e[] = {0x01, 0x80, 0x94, 0xd1, 0x02, 0x01, 0x00, 0x08};
	SimInst in = inst("v_cvt_f32_fp8_e64 v1, v2 clamp mul:2", e, 8);
	SimWave *w = wave();
	static const uint32_t codes[5] = {0x30 /* 0.5 */, 0x28 /* 0.25 */, 0xC0 /* -2 */, 0x7F /* NaN */, 0x48 /* 4 */};
	static const float want[5] = {1.0f, 0.5f, 0.0f, 0.0f, 1.0f};
	for (int l = 0; l < 64; l++)
		w->v[2][l] = 0xAAAAAA00u | codes[l % 5];
	run(w, &in);
	for (int l = 0; l < 64; l++)
		assert_true(simx_u2f(w->v[1][l]) == want[l % 5]);
	free(w);
}

static void mfma_inline_c_agpr_blgp(void **st)
{
	(void)st;
	static const uint8_t e[] = {0x00, 0x80, 0xcd, 0xd3, 0x00, 0x05, 0xca, 0x63};
	SimInst in = inst("v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], 1.0 blgp:3", e, 8);
	SimWave *w = wave();
	for (int l = 0; l < 64; l++)
		for (int r = 0; r < 2; r++) {
			w->v[r][l] = simx_f32_to_f16((float)(l % 5)) | (uint32_t)simx_f32_to_f16(1.0f) << 16;
			w->v[2 + r][l] = simx_f32_to_f16((float)(l % 7)) | (uint32_t)simx_f32_to_f16(-2.0f) << 16;
		}
	run(w, &in);
	/* reference: the pure function with C = 1.0 everywhere and blgp 3 */
	static uint32_t c[4 * 64], d[4 * 64];
	for (int x = 0; x < 4 * 64; x++)
		c[x] = simx_f2u(1.0f);
	simx_mfma_mods m = {.blgp = 3};
	assert_int_equal(simx_mfma_exec(simx_mfma_lookup("v_mfma_f32_16x16x16_f16"), &w->v[0][0], &w->v[2][0],
	                                c, d, &m), 0);
	assert_memory_equal(&w->v[SIM_AGPR0][0], d, sizeof d);
	/* and blgp mattered */
	m.blgp = 0;
	simx_mfma_exec(simx_mfma_lookup("v_mfma_f32_16x16x16_f16"), &w->v[0][0], &w->v[2][0], c, d, &m);
	assert_true(memcmp(&w->v[SIM_AGPR0][0], d, sizeof d) != 0);
	free(w);
}

static void mfma_f64_neg_from_encoding(void **st)
{
	(void)st;
	static const uint8_t e[] = {0x00, 0x00, 0xee, 0xd3, 0x08, 0x15, 0x02, 0xa4};
	SimInst in = inst("v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7] neg:[1,0,1]", e, 8);
	SimWave *w = wave();
	for (int l = 0; l < 64; l++) {
		double a = l % 4 + 1, b = 2, c = l;
		memcpy(&w->v[8][l], &a, 4); memcpy(&w->v[9][l], (char *)&a + 4, 4);
		memcpy(&w->v[10][l], &b, 4); memcpy(&w->v[11][l], (char *)&b + 4, 4);
		for (int p = 0; p < 4; p++) {
			memcpy(&w->v[2 * p][l], &c, 4);
			memcpy(&w->v[2 * p + 1][l], (char *)&c + 4, 4);
		}
	}
	static uint32_t ref[8 * 64];
	simx_mfma_mods m = {.neg = 5};
	simx_mfma_exec(simx_mfma_lookup("v_mfma_f64_16x16x4_f64"), &w->v[8][0], &w->v[10][0], &w->v[0][0], ref, &m);
	run(w, &in);
	assert_memory_equal(&w->v[0][0], ref, sizeof ref);
	/* spot check: D[0][0] = -C - sum_k A[0][k]*B[k][0]; A[0][k] is lane 16k (value 1), B = 2 */
	double d00;
	memcpy(&d00, &w->v[0][0], 4);
	memcpy((char *)&d00 + 4, &w->v[1][0], 4);
	assert_true(d00 == -0.0 - 4 * 2.0);
	free(w);
}

static void mfma_scale_opsel_encoding_and_text(void **st)
{
	(void)st;
	static const uint8_t e[] = {0x00, 0x08, 0xac, 0xd3, 0x14, 0x2b, 0x02, 0x10,
	                            0x00, 0x08, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x02};
	const char *text = "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], 0, v20, v21 "
	                   "op_sel:[1,0,0] op_sel_hi:[0,1,0]";
	static const uint8_t zero[16];
	SimWave *w = wave();
	srand(1);
	for (int l = 0; l < 64; l++) {
		for (int r = 4; r < 20; r++)
			w->v[r][l] = (uint32_t)rand() & 0x3F3F3F3Fu; /* finite fp8 codes */
		/* scale A in byte 1 (op_sel 1), scale B in byte 2 (op_sel_hi 1): other bytes junk */
		w->v[20][l] = 0xFF00FFu | (uint32_t)(120 + l % 9) << 8;
		w->v[21][l] = 0xFF00FFFFu | (uint32_t)(126 + l % 3) << 16;
	}
	static uint32_t ref[4 * 64], zeros[4 * 64];
	simx_mfma_mods m = {.scale_a = &w->v[20][0], .scale_b = &w->v[21][0], .opsel_a = 1, .opsel_b = 2};
	assert_int_equal(simx_mfma_exec(simx_mfma_lookup("v_mfma_scale_f32_16x16x128_f8f6f4"), &w->v[4][0],
	                                &w->v[12][0], zeros, ref, &m), 0);
	SimInst in = inst(text, e, 16);
	run(w, &in);
	assert_memory_equal(&w->v[0][0], ref, sizeof ref);
	memset(&w->v[0][0], 0, 4 * 64 * 4);
	in = inst(text, zero, 16); /* no encoding: the parsed op_sel/op_sel_hi are used */
	run(w, &in);
	assert_memory_equal(&w->v[0][0], ref, sizeof ref);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cvt_opsel_from_encoding),
		cmocka_unit_test(cvt_clamp_omod),
		cmocka_unit_test(mfma_inline_c_agpr_blgp),
		cmocka_unit_test(mfma_f64_neg_from_encoding),
		cmocka_unit_test(mfma_scale_opsel_encoding_and_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
