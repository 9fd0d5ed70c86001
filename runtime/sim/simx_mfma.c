/* simx_mfma.c — gfx950 MFMA semantics on register arrays.
 *
 * One engine serves every dense MFMA. An instruction is M x N x K with `blocks`
 * independent blocks; per block b, D[b] = A[b'] * B[b] + C[b], where b' is b after the
 * cbsz/abid broadcast and B's lanes are permuted by blgp.
 *
 * Input layout (CDNA3 rule, the same on gfx950; [C] ROCm/amd_matrix_instruction_calculator):
 * with kpl = K*M*blocks/64 elements per lane, element (b, i, k) of A is element k % kpl of
 * lane b*M + (k/kpl)*M*blocks + i, packed little-endian (element e of a lane at bit
 * e*size of its register tuple). B is the same with column j in place of row i.
 * The f8f6f4 forms use the CDNA4 blog's layout instead: fp8/bf8 lanes hold 16 consecutive
 * k, then jump by K/2 (k = (K/2)*(e/16) + 16*(l/M) + e%16); fp6/fp4 lanes hold 32
 * consecutive k (k = 32*(l/M) + e).
 *
 * Output layout (32-bit): rows go in groups of 4 registers; D[b][i][j] is register
 * b*(M*N/64) + (i / (4*(64/N)))*4 + i%4 of lane (b % bpr)*N + ((i/4) % (64/N))*bpr*N + j,
 * with bpr = max(1, 256/(M*N)) blocks per register. 64-bit (f64) outputs use groups of 1.
 *
 * Arithmetic: every product of two inputs is exact in double (for f32 inputs too); a dot
 * product is summed in double in k order, C is added, and the sum is rounded once to f32.
 * The scaled form multiplies each 32-wide K block's partial sum by 2^(sa+sb-254) before
 * adding it. Integers: exact sum, wrapped to 32 bits. f64: fma chain in k order.
 */
#include "sim/simx.h"

#include <math.h>
#include <string.h>

#define F32 SIMX_MT_F32
#define F16 SIMX_MT_F16
#define BF16 SIMX_MT_BF16
#define I8 SIMX_MT_I8
#define F64 SIMX_MT_F64
#define FP8 SIMX_MT_FP8
#define BF8 SIMX_MT_BF8
#define F8F6F4 SIMX_MT_F8F6F4
#define I32 SIMX_MT_I32

/* X(name, M, N, K, blocks, A type, B type, C/D type, kind) — canonical gfx950 names;
 * kind 0 dense, 1 block-scaled (v_mfma_scale_*), 2 4:2 sparse A (v_smfmac_*) */
#define SIMX_MFMA_TABLE(X) \
	X(v_mfma_f32_32x32x1_2b_f32, 32, 32, 1, 2, F32, F32, F32, 0) \
	X(v_mfma_f32_16x16x1_4b_f32, 16, 16, 1, 4, F32, F32, F32, 0) \
	X(v_mfma_f32_4x4x1_16b_f32, 4, 4, 1, 16, F32, F32, F32, 0) \
	X(v_mfma_f32_32x32x2_f32, 32, 32, 2, 1, F32, F32, F32, 0) \
	X(v_mfma_f32_16x16x4_f32, 16, 16, 4, 1, F32, F32, F32, 0) \
	X(v_mfma_f32_32x32x4_2b_f16, 32, 32, 4, 2, F16, F16, F32, 0) \
	X(v_mfma_f32_16x16x4_4b_f16, 16, 16, 4, 4, F16, F16, F32, 0) \
	X(v_mfma_f32_4x4x4_16b_f16, 4, 4, 4, 16, F16, F16, F32, 0) \
	X(v_mfma_f32_32x32x8_f16, 32, 32, 8, 1, F16, F16, F32, 0) \
	X(v_mfma_f32_16x16x16_f16, 16, 16, 16, 1, F16, F16, F32, 0) \
	X(v_mfma_f32_32x32x16_f16, 32, 32, 16, 1, F16, F16, F32, 0) \
	X(v_mfma_f32_16x16x32_f16, 16, 16, 32, 1, F16, F16, F32, 0) \
	X(v_mfma_f32_32x32x4_2b_bf16, 32, 32, 4, 2, BF16, BF16, F32, 0) \
	X(v_mfma_f32_16x16x4_4b_bf16, 16, 16, 4, 4, BF16, BF16, F32, 0) \
	X(v_mfma_f32_4x4x4_16b_bf16, 4, 4, 4, 16, BF16, BF16, F32, 0) \
	X(v_mfma_f32_32x32x8_bf16, 32, 32, 8, 1, BF16, BF16, F32, 0) \
	X(v_mfma_f32_16x16x16_bf16, 16, 16, 16, 1, BF16, BF16, F32, 0) \
	X(v_mfma_f32_32x32x16_bf16, 32, 32, 16, 1, BF16, BF16, F32, 0) \
	X(v_mfma_f32_16x16x32_bf16, 16, 16, 32, 1, BF16, BF16, F32, 0) \
	X(v_mfma_i32_32x32x4_2b_i8, 32, 32, 4, 2, I8, I8, I32, 0) \
	X(v_mfma_i32_16x16x4_4b_i8, 16, 16, 4, 4, I8, I8, I32, 0) \
	X(v_mfma_i32_4x4x4_16b_i8, 4, 4, 4, 16, I8, I8, I32, 0) \
	X(v_mfma_i32_32x32x16_i8, 32, 32, 16, 1, I8, I8, I32, 0) \
	X(v_mfma_i32_16x16x32_i8, 16, 16, 32, 1, I8, I8, I32, 0) \
	X(v_mfma_i32_32x32x32_i8, 32, 32, 32, 1, I8, I8, I32, 0) \
	X(v_mfma_i32_16x16x64_i8, 16, 16, 64, 1, I8, I8, I32, 0) \
	X(v_mfma_f64_16x16x4_f64, 16, 16, 4, 1, F64, F64, F64, 0) \
	X(v_mfma_f64_4x4x4_4b_f64, 4, 4, 4, 4, F64, F64, F64, 0) \
	X(v_mfma_f32_16x16x32_fp8_fp8, 16, 16, 32, 1, FP8, FP8, F32, 0) \
	X(v_mfma_f32_16x16x32_fp8_bf8, 16, 16, 32, 1, FP8, BF8, F32, 0) \
	X(v_mfma_f32_16x16x32_bf8_fp8, 16, 16, 32, 1, BF8, FP8, F32, 0) \
	X(v_mfma_f32_16x16x32_bf8_bf8, 16, 16, 32, 1, BF8, BF8, F32, 0) \
	X(v_mfma_f32_32x32x16_fp8_fp8, 32, 32, 16, 1, FP8, FP8, F32, 0) \
	X(v_mfma_f32_32x32x16_fp8_bf8, 32, 32, 16, 1, FP8, BF8, F32, 0) \
	X(v_mfma_f32_32x32x16_bf8_fp8, 32, 32, 16, 1, BF8, FP8, F32, 0) \
	X(v_mfma_f32_32x32x16_bf8_bf8, 32, 32, 16, 1, BF8, BF8, F32, 0) \
	X(v_mfma_f32_16x16x128_f8f6f4, 16, 16, 128, 1, F8F6F4, F8F6F4, F32, 0) \
	X(v_mfma_f32_32x32x64_f8f6f4, 32, 32, 64, 1, F8F6F4, F8F6F4, F32, 0) \
	X(v_mfma_scale_f32_16x16x128_f8f6f4, 16, 16, 128, 1, F8F6F4, F8F6F4, F32, 1) \
	X(v_mfma_scale_f32_32x32x64_f8f6f4, 32, 32, 64, 1, F8F6F4, F8F6F4, F32, 1) \
	X(v_smfmac_f32_16x16x32_f16, 16, 16, 32, 1, F16, F16, F32, 2) \
	X(v_smfmac_f32_32x32x16_f16, 32, 32, 16, 1, F16, F16, F32, 2) \
	X(v_smfmac_f32_16x16x64_f16, 16, 16, 64, 1, F16, F16, F32, 2) \
	X(v_smfmac_f32_32x32x32_f16, 32, 32, 32, 1, F16, F16, F32, 2) \
	X(v_smfmac_f32_16x16x32_bf16, 16, 16, 32, 1, BF16, BF16, F32, 2) \
	X(v_smfmac_f32_32x32x16_bf16, 32, 32, 16, 1, BF16, BF16, F32, 2) \
	X(v_smfmac_f32_16x16x64_bf16, 16, 16, 64, 1, BF16, BF16, F32, 2) \
	X(v_smfmac_f32_32x32x32_bf16, 32, 32, 32, 1, BF16, BF16, F32, 2) \
	X(v_smfmac_i32_16x16x64_i8, 16, 16, 64, 1, I8, I8, I32, 2) \
	X(v_smfmac_i32_32x32x32_i8, 32, 32, 32, 1, I8, I8, I32, 2) \
	X(v_smfmac_i32_16x16x128_i8, 16, 16, 128, 1, I8, I8, I32, 2) \
	X(v_smfmac_i32_32x32x64_i8, 32, 32, 64, 1, I8, I8, I32, 2) \
	X(v_smfmac_f32_16x16x64_fp8_fp8, 16, 16, 64, 1, FP8, FP8, F32, 2) \
	X(v_smfmac_f32_16x16x64_fp8_bf8, 16, 16, 64, 1, FP8, BF8, F32, 2) \
	X(v_smfmac_f32_16x16x64_bf8_fp8, 16, 16, 64, 1, BF8, FP8, F32, 2) \
	X(v_smfmac_f32_16x16x64_bf8_bf8, 16, 16, 64, 1, BF8, BF8, F32, 2) \
	X(v_smfmac_f32_32x32x32_fp8_fp8, 32, 32, 32, 1, FP8, FP8, F32, 2) \
	X(v_smfmac_f32_32x32x32_fp8_bf8, 32, 32, 32, 1, FP8, BF8, F32, 2) \
	X(v_smfmac_f32_32x32x32_bf8_fp8, 32, 32, 32, 1, BF8, FP8, F32, 2) \
	X(v_smfmac_f32_32x32x32_bf8_bf8, 32, 32, 32, 1, BF8, BF8, F32, 2) \
	X(v_smfmac_f32_16x16x128_fp8_fp8, 16, 16, 128, 1, FP8, FP8, F32, 2) \
	X(v_smfmac_f32_16x16x128_fp8_bf8, 16, 16, 128, 1, FP8, BF8, F32, 2) \
	X(v_smfmac_f32_16x16x128_bf8_fp8, 16, 16, 128, 1, BF8, FP8, F32, 2) \
	X(v_smfmac_f32_16x16x128_bf8_bf8, 16, 16, 128, 1, BF8, BF8, F32, 2) \
	X(v_smfmac_f32_32x32x64_fp8_fp8, 32, 32, 64, 1, FP8, FP8, F32, 2) \
	X(v_smfmac_f32_32x32x64_fp8_bf8, 32, 32, 64, 1, FP8, BF8, F32, 2) \
	X(v_smfmac_f32_32x32x64_bf8_fp8, 32, 32, 64, 1, BF8, FP8, F32, 2) \
	X(v_smfmac_f32_32x32x64_bf8_bf8, 32, 32, 64, 1, BF8, BF8, F32, 2)

/* Older spellings the assembler accepts (the disassembler prints the canonical names). */
static const struct { const char *alias, *name; } aliases[] = {
	{"v_mfma_f32_32x32x1f32", "v_mfma_f32_32x32x1_2b_f32"},
	{"v_mfma_f32_16x16x1f32", "v_mfma_f32_16x16x1_4b_f32"},
	{"v_mfma_f32_4x4x1f32", "v_mfma_f32_4x4x1_16b_f32"},
	{"v_mfma_f32_32x32x2f32", "v_mfma_f32_32x32x2_f32"},
	{"v_mfma_f32_16x16x4f32", "v_mfma_f32_16x16x4_f32"},
	{"v_mfma_f32_32x32x4f16", "v_mfma_f32_32x32x4_2b_f16"},
	{"v_mfma_f32_16x16x4f16", "v_mfma_f32_16x16x4_4b_f16"},
	{"v_mfma_f32_4x4x4f16", "v_mfma_f32_4x4x4_16b_f16"},
	{"v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8_f16"},
	{"v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16"},
	{"v_mfma_f32_32x32x16f16", "v_mfma_f32_32x32x16_f16"},
	{"v_mfma_f32_16x16x32f16", "v_mfma_f32_16x16x32_f16"},
	{"v_mfma_f32_32x32x4bf16_1k", "v_mfma_f32_32x32x4_2b_bf16"},
	{"v_mfma_f32_16x16x4bf16_1k", "v_mfma_f32_16x16x4_4b_bf16"},
	{"v_mfma_f32_4x4x4bf16_1k", "v_mfma_f32_4x4x4_16b_bf16"},
	{"v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_32x32x8_bf16"},
	{"v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16_bf16"},
	{"v_mfma_f32_32x32x16bf16", "v_mfma_f32_32x32x16_bf16"},
	{"v_mfma_f32_16x16x32bf16", "v_mfma_f32_16x16x32_bf16"},
	{"v_mfma_i32_32x32x4i8", "v_mfma_i32_32x32x4_2b_i8"},
	{"v_mfma_i32_16x16x4i8", "v_mfma_i32_16x16x4_4b_i8"},
	{"v_mfma_i32_4x4x4i8", "v_mfma_i32_4x4x4_16b_i8"},
	{"v_mfma_i32_32x32x16i8", "v_mfma_i32_32x32x16_i8"},
	{"v_mfma_i32_16x16x32i8", "v_mfma_i32_16x16x32_i8"},
	{"v_mfma_i32_32x32x32i8", "v_mfma_i32_32x32x32_i8"},
	{"v_mfma_i32_16x16x64i8", "v_mfma_i32_16x16x64_i8"},
	{"v_mfma_f64_16x16x4f64", "v_mfma_f64_16x16x4_f64"},
	{"v_mfma_f64_4x4x4f64", "v_mfma_f64_4x4x4_4b_f64"},
};

static int type_bits(simx_mtype t)
{
	switch (t) {
	case SIMX_MT_F32: case SIMX_MT_I32: return 32;
	case SIMX_MT_F16: case SIMX_MT_BF16: return 16;
	case SIMX_MT_F64: return 64;
	default: return 8;
	}
}

#define TBITS(T) ((T) == F32 || (T) == I32 ? 32 : (T) == F16 || (T) == BF16 ? 16 : (T) == F64 ? 64 : 8)
#define REGS_IN(M, K, B, T) ((T) == F8F6F4 ? 8 : ((K) * (M) * (B) / 64 * TBITS(T) + 31) / 32)
#define KA(K, kind) ((kind) == 2 ? (K) / 2 : (K)) /* sparse A stores half of K */
#define REGS_OUT(M, N, B, T) ((M) * (N) * (B) / 64 * TBITS(T) / 32)

static const simx_mfma_info infos[] = {
#define X(nm, M, N, K, B, ta, tb, tc, kind) \
	{#nm, M, N, K, B, ta, tb, tc, REGS_IN(M, KA(K, kind), B, ta), REGS_IN(N, K, B, tb), \
	 REGS_OUT(M, N, B, tc), (kind) == 1, (kind) == 2},
	SIMX_MFMA_TABLE(X)
#undef X
};
enum { NMFMA = (int)(sizeof infos / sizeof infos[0]) };

int simx_mfma_count(void) { return NMFMA; }
const simx_mfma_info *simx_mfma_get(int id) { return id >= 0 && id < NMFMA ? &infos[id] : NULL; }

int simx_mfma_lookup(const char *mnemonic)
{
	if (!mnemonic)
		return -1;
	size_t len = strlen(mnemonic);
	if (len > 4 && !strcmp(mnemonic + len - 4, "_e64"))
		len -= 4;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < NMFMA; i++)
			if (strlen(infos[i].name) == len && !strncmp(infos[i].name, mnemonic, len))
				return i;
		if (pass == 1)
			break;
		for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
			if (strlen(aliases[a].alias) == len && !strncmp(aliases[a].alias, mnemonic, len)) {
				mnemonic = aliases[a].name;
				len = strlen(mnemonic);
				break;
			}
	}
	return -1;
}

/* f8f6f4 format code -> registers per lane */
static int f8f6f4_regs(int fmt)
{
	switch (fmt) {
	case SIMX_FP8: case SIMX_BF8: return 8;
	case SIMX_FP6: case SIMX_BF6: return 6;
	case SIMX_FP4: return 4;
	default: return -1;
	}
}

int simx_mfma_ab_regs(int id, const simx_mfma_mods *m, int *a_regs, int *b_regs)
{
	const simx_mfma_info *in = simx_mfma_get(id);
	if (!in)
		return -1;
	int ar = in->a_regs, br = in->b_regs;
	if (in->ta == F8F6F4) {
		ar = f8f6f4_regs(m ? m->cbsz : 0);
		br = f8f6f4_regs(m ? m->blgp : 0);
		if (ar < 0 || br < 0)
			return -1;
	}
	if (a_regs)
		*a_regs = ar;
	if (b_regs)
		*b_regs = br;
	return 0;
}

void simx_mfma_in_pos(int id, int fmt, int block, int i, int k, int *lane, int *elem)
{
	const simx_mfma_info *in = simx_mfma_get(id);
	if (!in) {
		*lane = *elem = 0;
		return;
	}
	int M = in->m; /* square shapes: M == N, so this serves B as well */
	if (in->ta == F8F6F4) {
		if (fmt == SIMX_FP8 || fmt == SIMX_BF8) {
			int half = in->k / 2;
			*lane = ((k % half) / 16) * M + i;
			*elem = (k / half) * 16 + k % 16;
		} else {
			*lane = (k / 32) * M + i;
			*elem = k % 32;
		}
		return;
	}
	int kpl = in->k * M * in->blocks / 64;
	*lane = block * M + (k / kpl) * M * in->blocks + i;
	*elem = k % kpl;
}

void simx_mfma_out_pos(int id, int block, int i, int j, int *reg, int *lane)
{
	const simx_mfma_info *in = simx_mfma_get(id);
	if (!in) {
		*reg = *lane = 0;
		return;
	}
	int M = in->m, N = in->n;
	int h = in->tc == F64 ? 1 : 4;          /* rows per register group */
	int rows_per_reg = 64 / N;              /* row groups side by side in one register */
	int bpr = (64 * h) / (M * N);           /* blocks per register */
	if (bpr < 1)
		bpr = 1;
	int r = block * (M * N / 64) + (i / (h * rows_per_reg)) * h + i % h;
	*lane = (block % bpr) * N + ((i / h) % rows_per_reg) * bpr * N + j;
	*reg = in->tc == F64 ? 2 * r : r;
}

/* Element e (of `bits` bits) of lane l in a register-major operand. */
static uint64_t get_elem(const uint32_t *p, int lane, int e, int bits)
{
	if (bits == 64)
		return (uint64_t)p[(2 * e) * 64 + lane] | (uint64_t)p[(2 * e + 1) * 64 + lane] << 32;
	if (bits == 6) {
		int bit = 6 * e, r = bit / 32, sh = bit % 32;
		uint64_t w = p[r * 64 + lane];
		if (sh > 26 && r + 1 < 6)
			w |= (uint64_t)p[(r + 1) * 64 + lane] << 32;
		return (w >> sh) & 63u;
	}
	int bit = e * bits;
	uint32_t w = p[(bit / 32) * 64 + lane] >> (bit % 32);
	return bits >= 32 ? w : (w & ((1u << bits) - 1u));
}

static double elem_val(simx_mtype t, int fmt, uint64_t raw)
{
	switch (t) {
	case SIMX_MT_F32: return simx_u2f((uint32_t)raw);
	case SIMX_MT_F16: return simx_decode(SIMX_F16, (uint32_t)raw);
	case SIMX_MT_BF16: return simx_decode(SIMX_BF16, (uint32_t)raw);
	case SIMX_MT_FP8: return simx_decode(SIMX_FP8, (uint32_t)raw);
	case SIMX_MT_BF8: return simx_decode(SIMX_BF8, (uint32_t)raw);
	case SIMX_MT_F8F6F4: return simx_decode((simx_fmt)fmt, (uint32_t)raw);
	case SIMX_MT_F64: {
		double d;
		memcpy(&d, &raw, 8);
		return d;
	}
	default: return 0;
	}
}

static int fmt_bits_of(int fmt) { return simx_fmt_bits((simx_fmt)fmt); }

/* The lane of B actually read when lane L is wanted, under blgp (CDNA3 patterns). */
static int blgp_lane(int L, int blgp)
{
	switch (blgp) {
	case 1: return L % 32;
	case 2: return L < 32 ? L + 32 : L;
	case 3: return (L + 16) % 64;
	case 4: return L % 16;
	case 5: return 16 + L % 16;
	case 6: return 32 + L % 16;
	case 7: return 48 + L % 16;
	default: return L;
	}
}

/* The largest operand: 32x32x1_2b has 32 output registers; keep a private D. Every input
 * operand holds at most 64 lanes x 32 elements. */
enum { MAX_OUT_REGS = 32, MAX_IN = 64 * 32 };

/* Decode an input operand into x[(blk*rows + r)*K + k] (after the blgp lane pattern for
 * B), as doubles, or as integers for i8. */
static void decode_in(int id, const simx_mfma_info *in, const uint32_t *p, simx_mtype t, int fmt,
                      int bits, int blgp, double *x, int64_t *xi)
{
	int rows = in->m, K = in->k;
	for (int blk = 0; blk < in->blocks; blk++)
		for (int r = 0; r < rows; r++)
			for (int k = 0; k < K; k++) {
				int lane, e;
				simx_mfma_in_pos(id, fmt, blk, r, k, &lane, &e);
				lane = blgp_lane(lane, blgp);
				uint64_t raw = get_elem(p, lane, e, bits);
				size_t at = ((size_t)blk * rows + r) * K + k;
				if (t == SIMX_MT_I8)
					xi[at] = (int8_t)raw;
				else
					x[at] = elem_val(t, fmt, raw);
			}
}

/* Expand a 4:2 sparse A operand into dense rows x[i*K + k] (single block). Lane l holds
 * row l%M and the dense K range starting at (l/M)*2*S, S = K/2*M/64 stored values: stored
 * values 2g and 2g+1 belong to the group of 4 K at 4g, at the positions given by the
 * lane's 4-bit index field g. Two values at one position add up (UNVERIFIED). */
static void decode_sparse(const simx_mfma_info *in, const uint32_t *p, const simx_mfma_mods *m,
                          int bits, double *x, int64_t *xi)
{
	int M = in->m, K = in->k, S = K / 2 * M / 64;
	int off = m->cbsz == 0 ? m->abid * 2 * S : 0;
	if (off + 2 * S > 32)
		off = 0;
	for (int t = 0; t < M * K; t++) {
		x[t] = 0;
		xi[t] = 0;
	}
	for (int l = 0; l < 64; l++) {
		int i = l % M, k0 = (l / M) * 2 * S;
		uint32_t idx = m->sparse_idx[l] >> off;
		for (int e = 0; e < S; e++) {
			int g = e / 2, pos = (int)((idx >> (4 * g + 2 * (e % 2))) & 3);
			size_t at = (size_t)i * K + k0 + 4 * g + pos;
			uint64_t raw = get_elem(p, l, e, bits);
			if (in->ta == SIMX_MT_I8)
				xi[at] += (int8_t)raw;
			else
				x[at] += elem_val(in->ta, 0, raw);
		}
	}
}

int simx_mfma_exec(int id, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                   uint32_t *d, const simx_mfma_mods *mods)
{
	const simx_mfma_info *in = simx_mfma_get(id);
	static const simx_mfma_mods none;
	if (!in || !a || !b || !c || !d)
		return -1;
	const simx_mfma_mods *m = mods ? mods : &none;
	int M = in->m, N = in->n, K = in->k, B = in->blocks;
	int f8 = in->ta == F8F6F4;
	int fa = f8 ? m->cbsz : 0, fb = f8 ? m->blgp : 0;
	if (f8 && (f8f6f4_regs(fa) < 0 || f8f6f4_regs(fb) < 0))
		return -1;
	if (!f8 && (m->cbsz < 0 || m->cbsz > 4 || m->abid < 0 || m->abid > 15 || m->blgp < 0 ||
	            m->blgp > 7))
		return -1;
	if (in->scaled && (m->opsel_a < 0 || m->opsel_a > 3 || m->opsel_b < 0 || m->opsel_b > 3))
		return -1;
	int abits = f8 ? fmt_bits_of(fa) : type_bits(in->ta);
	int bbits = f8 ? fmt_bits_of(fb) : type_bits(in->tb);
	/* blgp permutes B's lanes, except where the field means something else */
	int blgp = (f8 || in->ta == F64) ? 0 : m->blgp;
	double ad[MAX_IN], bd[MAX_IN];
	int64_t ai[MAX_IN], bi[MAX_IN];
	if (in->sparse) {
		if (!m->sparse_idx)
			return -1;
		decode_sparse(in, a, m, abits, ad, ai);
		blgp = 0;
	} else {
		decode_in(id, in, a, in->ta, fa, abits, 0, ad, ai);
	}
	decode_in(id, in, b, in->tb, fb, bbits, blgp, bd, bi);
	if (in->tc == F64) {
		for (int x = 0; x < M * K * B; x++)
			if (m->neg & 1)
				ad[x] = -ad[x];
		for (int x = 0; x < N * K * B; x++)
			if (m->neg & 2)
				bd[x] = -bd[x];
	}
	uint32_t out[MAX_OUT_REGS * 64];
	int nout = in->cd_regs;

	for (int blk = 0; blk < B; blk++) {
		/* A block after the cbsz/abid broadcast; it has no meaning with a single block */
		int ablk = blk;
		if (B > 1 && !f8 && in->ta != F64) {
			int span = 1 << m->cbsz;
			ablk = (blk / span) * span + m->abid;
			if (ablk >= B)
				ablk = blk; /* out of range: UNVERIFIED, keep the block's own A */
		}
		for (int i = 0; i < M; i++) {
			const double *arow = ad + ((size_t)ablk * M + i) * K;
			const int64_t *airow = ai + ((size_t)ablk * M + i) * K;
			for (int j = 0; j < N; j++) {
				const double *bcol = bd + ((size_t)blk * N + j) * K;
				const int64_t *bicol = bi + ((size_t)blk * N + j) * K;
				int oreg, olane;
				simx_mfma_out_pos(id, blk, i, j, &oreg, &olane);
				if (in->tc == SIMX_MT_I32) {
					int64_t acc = (int32_t)c[oreg * 64 + olane];
					for (int k = 0; k < K; k++)
						acc += airow[k] * bicol[k];
					out[oreg * 64 + olane] = (uint32_t)(uint64_t)acc;
					continue;
				}
				if (in->tc == F64) {
					uint64_t craw = (uint64_t)c[oreg * 64 + olane] |
					                (uint64_t)c[(oreg + 1) * 64 + olane] << 32;
					double acc = elem_val(F64, 0, craw);
					if (m->neg & 4)
						acc = -acc;
					for (int k = 0; k < K; k++)
						acc = fma(arow[k], bcol[k], acc);
					uint64_t r;
					memcpy(&r, &acc, 8);
					out[oreg * 64 + olane] = (uint32_t)r;
					out[(oreg + 1) * 64 + olane] = (uint32_t)(r >> 32);
					continue;
				}
				double acc = simx_u2f(c[oreg * 64 + olane]);
				if (!in->scaled) {
					double part = 0;
					for (int k = 0; k < K; k++)
						part += arow[k] * bcol[k];
					acc += part;
				} else {
					for (int kb = 0; kb < K / 32; kb++) {
						double part = 0;
						for (int k = 32 * kb; k < 32 * kb + 32; k++)
							part += arow[k] * bcol[k];
						double sa = 1, sb = 1;
						if (m->scale_a)
							sa = simx_e8m0((uint8_t)(m->scale_a[i + M * kb] >> (8 * m->opsel_a)));
						if (m->scale_b)
							sb = simx_e8m0((uint8_t)(m->scale_b[j + N * kb] >> (8 * m->opsel_b)));
						acc += part * sa * sb;
					}
				}
				out[oreg * 64 + olane] = simx_f2u((float)acc);
			}
		}
	}
	memcpy(d, out, (size_t)nout * 64 * sizeof *d);
	return 0;
}
