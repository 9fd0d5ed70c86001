/* Unit tests: every MFMA variant of simx_mfma.c against a plain CPU matmul.
 *
 * The register layouts are written here independently of the implementation, in the
 * opposite direction (register, lane -> matrix coordinates), following the ROCm
 * amd_matrix_instruction_calculator's CDNA3 descriptions and the CDNA4 blog:
 *   inputs:  lane l holds row (or column) l % M of block (l / M) % blocks, and the
 *            consecutive k range starting at (l / (M*blocks)) * kpl, kpl = K*M*blocks/64;
 *   outputs: 16x16 / 32x32: column l % N, row 4*(64/N)*(rr/4) + 4*(l/N) + rr%4 of block
 *            r / (M*N/64) with rr = r % (M*N/64); 4x4: row r, column l%4, block l/4;
 *            f64: 16x16 row 4*pair + l/16; 4x4x4_4b row l/16, block (l/4)%4.
 * Values are chosen so that every sum is exact in f32, so the comparison is exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/simx.h"

typedef struct rng { uint32_t s; } rng;
static uint32_t next(rng *r) { r->s = r->s * 1664525u + 1013904223u; return r->s >> 8; }

/* element (matrix) storage: [block][row][col] up to 16 x 32 x 128 */
enum { MB = 16, MD = 32, MK = 128 };
static double A[MB][MD][MK], Bm[MB][MK][MD], C[MB][MD][MD];
static uint32_t ra[8 * 64], rb[8 * 64], rc[32 * 64], rd[32 * 64];

static int tbits(simx_mtype t, int fmt)
{
	switch (t) {
	case SIMX_MT_F32: return 32;
	case SIMX_MT_F16: case SIMX_MT_BF16: return 16;
	case SIMX_MT_F64: return 64;
	case SIMX_MT_F8F6F4: return simx_fmt_bits((simx_fmt)fmt);
	default: return 8;
	}
}

/* a random exactly-representable value of the type; returns its code */
static uint64_t rand_val(rng *r, simx_mtype t, int fmt, double *v)
{
	for (;;) {
		uint32_t x = next(r);
		switch (t) {
		case SIMX_MT_I8: {
			int8_t s = (int8_t)(x & 0xFF);
			*v = s;
			return (uint8_t)s;
		}
		case SIMX_MT_F32: case SIMX_MT_F64: case SIMX_MT_F16: case SIMX_MT_BF16: {
			double d = ((int)(x % 17) - 8) * 0.5; /* -4 .. 4 in halves */
			*v = d;
			if (t == SIMX_MT_F32)
				return simx_f2u((float)d);
			if (t == SIMX_MT_F16)
				return simx_f32_to_f16((float)d);
			if (t == SIMX_MT_BF16)
				return simx_f32_to_bf16((float)d);
			uint64_t u;
			memcpy(&u, &d, 8);
			return u;
		}
		default: {
			simx_fmt f = t == SIMX_MT_FP8 ? SIMX_FP8 : t == SIMX_MT_BF8 ? SIMX_BF8 : (simx_fmt)fmt;
			int nb = simx_fmt_bits(f);
			uint32_t code = x & ((1u << nb) - 1);
			double d = simx_decode(f, code);
			double a = fabs(d);
			if (isnan(d) || isinf(d) || (a != 0 && (a < 0.25 || a > 8)))
				continue; /* keep sums exact in f32 */
			*v = d;
			return code;
		}
		}
	}
}

static void put(uint32_t *p, int lane, int e, int bits, uint64_t code)
{
	if (bits == 64) {
		p[(2 * e) * 64 + lane] = (uint32_t)code;
		p[(2 * e + 1) * 64 + lane] = (uint32_t)(code >> 32);
		return;
	}
	int bit = e * bits;
	uint64_t x = code << (bit % 32);
	p[(bit / 32) * 64 + lane] |= (uint32_t)x;
	if (bit % 32 + bits > 32)
		p[(bit / 32 + 1) * 64 + lane] |= (uint32_t)(x >> 32);
}

/* k held by element e of lane l, for an operand whose "outer" size is M */
static int k_of(const simx_mfma_info *in, int fmt, int l, int e)
{
	int M = in->m;
	if (in->ta == SIMX_MT_F8F6F4) {
		if (fmt == SIMX_FP8 || fmt == SIMX_BF8)
			return (in->k / 2) * (e / 16) + 16 * (l / M) + e % 16;
		return 32 * (l / M) + e;
	}
	int kpl = in->k * M * in->blocks / 64;
	return (l / (M * in->blocks)) * kpl + e;
}

/* fill A, B (values and registers) and C */
static void fill(rng *r, const simx_mfma_info *in, int fa, int fb)
{
	memset(ra, 0, sizeof ra);
	memset(rb, 0, sizeof rb);
	memset(rc, 0, sizeof rc);
	int M = in->m, N = in->n;
	int abits = tbits(in->ta, fa), bbits = tbits(in->tb, fb);
	int epl_a = in->ta == SIMX_MT_F8F6F4 ? 32 : in->k * M * in->blocks / 64;
	for (int l = 0; l < 64; l++)
		for (int e = 0; e < epl_a; e++) {
			int blk = (l / M) % in->blocks, i = l % M, k = k_of(in, fa, l, e);
			double v;
			uint64_t code = rand_val(r, in->ta, fa, &v);
			A[blk][i][k] = v;
			put(ra, l, e, abits, code);
			blk = (l / N) % in->blocks;
			int j = l % N;
			k = k_of(in, fb, l, e);
			code = rand_val(r, in->tb, fb, &v);
			Bm[blk][k][j] = v;
			put(rb, l, e, bbits, code);
		}
	for (int blk = 0; blk < in->blocks; blk++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++)
				C[blk][i][j] = in->tc == SIMX_MT_I32 ? (int)(next(r) % 2001) - 1000
				                                     : ((int)(next(r) % 33) - 16) * 0.25;
}

/* coordinates of output register r, lane l */
static void out_coord(const simx_mfma_info *in, int r, int l, int *blk, int *i, int *j)
{
	int M = in->m, N = in->n;
	if (in->tc == SIMX_MT_F64) {
		int pair = r / 2;
		if (M == 16) {
			*blk = 0; *i = 4 * pair + l / 16; *j = l % 16;
		} else {
			*blk = (l / 4) % 4; *i = l / 16; *j = l % 4;
		}
		return;
	}
	if (M * N < 64) { /* 4x4 */
		*blk = l / 4; *i = r; *j = l % 4;
		return;
	}
	int rpb = M * N / 64;
	int rr = r % rpb;
	*blk = r / rpb;
	*j = l % N;
	*i = 4 * (64 / N) * (rr / 4) + 4 * (l / N) + rr % 4;
}

static void write_c(const simx_mfma_info *in)
{
	for (int r = 0; r < in->cd_regs; r++)
		for (int l = 0; l < 64; l++) {
			int blk, i, j;
			out_coord(in, r, l, &blk, &i, &j);
			double c = C[blk][i][j];
			if (in->tc == SIMX_MT_F64) {
				uint64_t u;
				memcpy(&u, &c, 8);
				rc[r * 64 + l] = (uint32_t)(u >> (32 * (r % 2)));
			} else if (in->tc == SIMX_MT_I32) {
				rc[r * 64 + l] = (uint32_t)(int32_t)c;
			} else {
				rc[r * 64 + l] = simx_f2u((float)c);
			}
		}
}

/* compare D with the CPU product; ablk(b) is A's block for output block b,
 * sa/sb are optional per (row, kblock) scales as exponents (127 = 1) */
static int check_d(const simx_mfma_info *in, const uint32_t *d, int cbsz, int abid,
                   const int (*sa)[4], const int (*sb)[4], const char *what)
{
	int bad = 0;
	for (int r = 0; r < in->cd_regs; r++)
		for (int l = 0; l < 64; l++) {
			if (in->tc == SIMX_MT_F64 && r % 2)
				continue;
			int blk, i, j;
			out_coord(in, r, l, &blk, &i, &j);
			int ab = blk;
			if (in->blocks > 1 && cbsz) {
				int span = 1 << cbsz;
				ab = blk / span * span + abid;
			}
			double want = C[blk][i][j];
			for (int k = 0; k < in->k; k++) {
				double p = A[ab][i][k] * Bm[blk][k][j];
				if (sa)
					p = ldexp(p, sa[i][k / 32] - 127 + sb[j][k / 32] - 127);
				want += p;
			}
			double got;
			if (in->tc == SIMX_MT_F64) {
				uint64_t u = d[r * 64 + l] | (uint64_t)d[(r + 1) * 64 + l] << 32;
				memcpy(&got, &u, 8);
			} else if (in->tc == SIMX_MT_I32) {
				got = (int32_t)d[r * 64 + l];
				want = (int32_t)(uint32_t)(int64_t)want;
			} else {
				got = simx_u2f(d[r * 64 + l]);
				want = (float)want; /* the exact sum, rounded once */
			}
			if (got != want && bad++ < 3)
				printf("%s %s: D[%d][%d][%d] (reg %d lane %d) = %g, want %g\n", in->name, what,
				       blk, i, j, r, l, got, want);
		}
	return bad;
}

static void all_plain_variants(void **st)
{
	(void)st;
	rng r = {7};
	int n = 0;
	for (int id = 0; id < simx_mfma_count(); id++) {
		const simx_mfma_info *in = simx_mfma_get(id);
		if (in->ta == SIMX_MT_F8F6F4 || in->sparse)
			continue;
		fill(&r, in, 0, 0);
		write_c(in);
		simx_mfma_mods m = {0};
		assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rd, &m), 0);
		assert_int_equal(check_d(in, rd, 0, 0, NULL, NULL, "plain"), 0);
		/* d aliasing c */
		assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rc, &m), 0);
		assert_int_equal(check_d(in, rc, 0, 0, NULL, NULL, "alias"), 0);
		n++;
	}
	assert_int_equal(n, 36);
}

static void broadcast_cbsz_abid(void **st)
{
	(void)st;
	static const char *names[] = {"v_mfma_f32_4x4x4_16b_f16", "v_mfma_f32_16x16x1_4b_f32",
	                              "v_mfma_i32_32x32x4_2b_i8", "v_mfma_f32_4x4x1_16b_f32"};
	rng r = {99};
	for (int t = 0; t < 4; t++) {
		int id = simx_mfma_lookup(names[t]);
		const simx_mfma_info *in = simx_mfma_get(id);
		assert_non_null(in);
		for (int cbsz = 1; (1 << cbsz) <= in->blocks; cbsz++)
			for (int abid = 0; abid < (1 << cbsz); abid += (1 << cbsz) - 1) {
				fill(&r, in, 0, 0);
				write_c(in);
				simx_mfma_mods m = {.cbsz = cbsz, .abid = abid};
				assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rd, &m), 0);
				assert_int_equal(check_d(in, rd, cbsz, abid, NULL, NULL, "cbsz"), 0);
			}
	}
}

static void blgp_lane_patterns(void **st)
{
	(void)st;
	/* With blgp, lane L of B is read from lane src(L): broadcast of the first / second
	 * 32 lanes (1, 2), rotate down by 16 (3), broadcast of 16-lane group g (4 + g). The
	 * reference moves B's register contents accordingly and runs blgp = 0. */
	int id = simx_mfma_lookup("v_mfma_f32_16x16x16_f16");
	const simx_mfma_info *in = simx_mfma_get(id);
	rng r = {5};
	for (int blgp = 1; blgp < 8; blgp++) {
		fill(&r, in, 0, 0);
		write_c(in);
		simx_mfma_mods m = {.blgp = blgp};
		assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rd, &m), 0);
		static uint32_t moved[8 * 64], ref[32 * 64];
		for (int l = 0; l < 64; l++) {
			int src = blgp == 1 ? l % 32 : blgp == 2 ? 32 + l % 32 : blgp == 3 ? (l + 16) % 64
			                                                               : 16 * (blgp - 4) + l % 16;
			for (int reg = 0; reg < in->b_regs; reg++)
				moved[reg * 64 + l] = rb[reg * 64 + src];
		}
		simx_mfma_mods m0 = {0};
		assert_int_equal(simx_mfma_exec(id, ra, moved, rc, ref, &m0), 0);
		assert_memory_equal(rd, ref, (size_t)in->cd_regs * 64 * 4);
		/* and it really changed something */
		assert_int_equal(simx_mfma_exec(id, ra, rb, rc, ref, &m0), 0);
		assert_true(memcmp(rd, ref, (size_t)in->cd_regs * 64 * 4) != 0);
	}
}

static void f8f6f4_all_formats(void **st)
{
	(void)st;
	static const char *names[] = {"v_mfma_f32_16x16x128_f8f6f4", "v_mfma_f32_32x32x64_f8f6f4",
	                              "v_mfma_scale_f32_16x16x128_f8f6f4",
	                              "v_mfma_scale_f32_32x32x64_f8f6f4"};
	rng r = {1234};
	static int sa[32][4], sb[32][4];
	static uint32_t sca[64], scb[64];
	for (int t = 0; t < 4; t++) {
		int id = simx_mfma_lookup(names[t]);
		const simx_mfma_info *in = simx_mfma_get(id);
		assert_non_null(in);
		for (int fa = 0; fa < 5; fa++)
			for (int fb = 0; fb < 5; fb++) {
				fill(&r, in, fa, fb);
				write_c(in);
				simx_mfma_mods m = {.cbsz = fa, .blgp = fb};
				int ar, br;
				assert_int_equal(simx_mfma_ab_regs(id, &m, &ar, &br), 0);
				assert_int_equal(ar, fa < 2 ? 8 : fa < 4 ? 6 : 4);
				assert_int_equal(br, fb < 2 ? 8 : fb < 4 ? 6 : 4);
				if (in->scaled) {
					/* scale bytes: lane i + M*kb holds (row i, K block kb) in byte opsel */
					int opa = (fa + fb) % 4, opb = (fa * 3 + fb) % 4;
					for (int l = 0; l < 64; l++) {
						int i = l % in->m, kb = l / in->m;
						sa[i][kb] = 124 + (int)(next(&r) % 7);
						sb[i][kb] = 124 + (int)(next(&r) % 7);
						sca[l] = next(&r) & ~(0xFFu << (8 * opa));
						sca[l] |= (uint32_t)sa[i][kb] << (8 * opa);
						scb[l] = next(&r) & ~(0xFFu << (8 * opb));
						scb[l] |= (uint32_t)sb[i][kb] << (8 * opb);
					}
					m.scale_a = sca;
					m.scale_b = scb;
					m.opsel_a = opa;
					m.opsel_b = opb;
				}
				assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rd, &m), 0);
				char what[32];
				snprintf(what, sizeof what, "fmt %d x %d", fa, fb);
				const int(*pa)[4] = in->scaled ? (const int(*)[4])sa : NULL;
				const int(*pb)[4] = in->scaled ? (const int(*)[4])sb : NULL;
				assert_int_equal(check_d(in, rd, 0, 0, pa, pb, what), 0);
			}
		simx_mfma_mods bad = {.cbsz = 5};
		assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rd, &bad), -1);
	}
}

static void scale_nan_and_unit(void **st)
{
	(void)st;
	int id = simx_mfma_lookup("v_mfma_scale_f32_16x16x128_f8f6f4");
	const simx_mfma_info *in = simx_mfma_get(id);
	rng r = {77};
	fill(&r, in, SIMX_FP4, SIMX_FP4);
	write_c(in);
	static uint32_t s127[64], s255[64];
	for (int l = 0; l < 64; l++) {
		s127[l] = 127u << 8;
		s255[l] = l == 20 ? 0xFF : 127; /* row 4, K block 1 of A is NaN */
	}
	simx_mfma_mods m = {.cbsz = 4, .blgp = 4, .scale_a = s127, .scale_b = s127, .opsel_a = 1, .opsel_b = 1};
	assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rd, &m), 0);
	assert_int_equal(check_d(in, rd, 0, 0, NULL, NULL, "unit scale"), 0);
	m.scale_a = s255;
	m.opsel_a = m.opsel_b = 0;
	m.scale_b = NULL;
	assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rd, &m), 0);
	for (int r2 = 0; r2 < 4; r2++)
		for (int l = 0; l < 64; l++) {
			int i = 4 * (l / 16) + r2;
			assert_true(isnan(simx_u2f(rd[r2 * 64 + l])) == (i == 4));
		}
}

static void lookup_and_layout_examples(void **st)
{
	(void)st;
	assert_int_equal(simx_mfma_lookup("v_mfma_f32_32x32x8bf16_1k"),
	                 simx_mfma_lookup("v_mfma_f32_32x32x8_bf16"));
	assert_int_equal(simx_mfma_lookup("v_mfma_i32_16x16x64i8"), simx_mfma_lookup("v_mfma_i32_16x16x64_i8"));
	assert_true(simx_mfma_lookup("v_smfmac_f32_16x16x32_f16") >= 0);
	assert_int_equal(simx_mfma_lookup("v_smfmac_f32_16x16x32_xf32"), -1);
	assert_int_equal(simx_mfma_lookup("v_mfma_f32_16x16x8_xf32"), -1); /* removed on gfx950 */
	assert_true(simx_mfma_lookup("v_mfma_f32_16x16x32_bf16_e64") >= 0);
	const simx_mfma_info *in = simx_mfma_get(simx_mfma_lookup("v_mfma_f32_32x32x16_bf16"));
	assert_int_equal(in->a_regs, 4);
	assert_int_equal(in->cd_regs, 16);
	in = simx_mfma_get(simx_mfma_lookup("v_mfma_f32_32x32x1_2b_f32"));
	assert_int_equal(in->cd_regs, 32);
	in = simx_mfma_get(simx_mfma_lookup("v_mfma_f64_4x4x4_4b_f64"));
	assert_int_equal(in->cd_regs, 2);
	assert_int_equal(in->a_regs, 2);
	/* facts-sheet example: 32x32 D[i][j] in register 8*(r/4) ... */
	int reg, lane;
	simx_mfma_out_pos(simx_mfma_lookup("v_mfma_f32_32x32x16_bf16"), 0, 13, 5, &reg, &lane);
	assert_int_equal(reg, 5); /* i = 13 = 8*1 + 4*1 + 1 -> r = 4*1 + 1, lane 32 + 5 */
	assert_int_equal(lane, 37);
}

static void f64_neg(void **st)
{
	(void)st;
	int id = simx_mfma_lookup("v_mfma_f64_16x16x4_f64");
	const simx_mfma_info *in = simx_mfma_get(id);
	rng r = {3};
	fill(&r, in, 0, 0);
	write_c(in);
	simx_mfma_mods m = {.neg = 1 | 4};
	assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rd, &m), 0);
	for (int blk = 0; blk < 1; blk++)
		for (int i = 0; i < 16; i++)
			for (int j = 0; j < 16; j++)
				C[blk][i][j] = -C[blk][i][j];
	for (int i = 0; i < 16; i++)
		for (int k = 0; k < 4; k++)
			A[0][i][k] = -A[0][i][k];
	assert_int_equal(check_d(in, rd, 0, 0, NULL, NULL, "neg"), 0);
}


/* 4:2 sparse MFMA: per group of 4 K of an A row, 2 stored values and two 2-bit positions.
 * Written here from the lane's point of view: lane l holds row l%M and the dense K range
 * from (l/M)*2S (S = stored values per lane); stored value e belongs to group e/2, and its
 * position is bits 2*(e%2)+4*(e/2) (+ the abid set offset 2S*abid) of the index VGPR. */
static void sparse_all(void **st)
{
	(void)st;
	rng r = {4242};
	int n = 0;
	static uint32_t idx[64];
	for (int id = 0; id < simx_mfma_count(); id++) {
		const simx_mfma_info *in = simx_mfma_get(id);
		if (!in->sparse)
			continue;
		n++;
		int M = in->m, N = in->n, K = in->k, S = K / 2 * M / 64;
		int abits = tbits(in->ta, 0), bbits = tbits(in->tb, 0);
		assert_int_equal(in->a_regs * 32, S * abits);
		for (int trial = 0; trial < 2; trial++) {
			int cbsz = trial, abid = trial == 0 ? (int)(next(&r) % (32 / (2 * S) > 0 ? 32 / (2 * S) : 1)) : 3;
			int off = cbsz == 0 && abid * 2 * S + 2 * S <= 32 ? abid * 2 * S : 0;
			memset(ra, 0, sizeof ra);
			memset(rb, 0, sizeof rb);
			memset(A, 0, sizeof A);
			for (int l = 0; l < 64; l++) {
				idx[l] = next(&r); /* junk outside the selected set */
				if (off + 2 * S < 32)
					idx[l] &= ~(((1u << (2 * S)) - 1) << off);
				else
					idx[l] = 0;
				for (int g = 0; g < S / 2; g++) {
					int p0 = (int)(next(&r) % 4), p1 = (p0 + 1 + (int)(next(&r) % 3)) % 4;
					idx[l] |= (uint32_t)(p0 | p1 << 2) << (off + 4 * g);
					for (int j = 0; j < 2; j++) {
						double v;
						uint64_t code = rand_val(&r, in->ta, 0, &v);
						int k = (l / M) * 2 * S + 4 * g + (j ? p1 : p0);
						A[0][l % M][k] = v;
						put(ra, l, 2 * g + j, abits, code);
					}
				}
				int kpl = K * N / 64; /* dense B */
				for (int e = 0; e < kpl; e++) {
					double v;
					uint64_t code = rand_val(&r, in->tb, 0, &v);
					Bm[0][(l / N) * kpl + e][l % N] = v;
					put(rb, l, e, bbits, code);
				}
			}
			for (int i = 0; i < M; i++)
				for (int j = 0; j < N; j++)
					C[0][i][j] = in->tc == SIMX_MT_I32 ? (int)(next(&r) % 2001) - 1000
					                                   : ((int)(next(&r) % 33) - 16) * 0.25;
			write_c(in);
			simx_mfma_mods m = {.cbsz = cbsz, .abid = abid, .sparse_idx = idx};
			assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rc, &m), 0); /* D = C in place */
			assert_int_equal(check_d(in, rc, 0, 0, NULL, NULL, "sparse"), 0);
		}
		simx_mfma_mods none = {0};
		assert_int_equal(simx_mfma_exec(id, ra, rb, rc, rd, &none), -1); /* needs the index */
	}
	assert_int_equal(n, 28);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_plain_variants),
		cmocka_unit_test(broadcast_cbsz_abid),
		cmocka_unit_test(blgp_lane_patterns),
		cmocka_unit_test(f8f6f4_all_formats),
		cmocka_unit_test(scale_nan_and_unit),
		cmocka_unit_test(lookup_and_layout_examples),
		cmocka_unit_test(f64_neg),
		cmocka_unit_test(sparse_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
