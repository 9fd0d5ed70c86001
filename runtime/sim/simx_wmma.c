/* simx_wmma.c — gfx1201 (RDNA4, wave32) WMMA: D = A x B + C, 16 x 16 x K.
 *
 * Lane layouts ([C] ROCm/amd_matrix_instruction_calculator, RDNA4, wave32;
 * docs/simulator-matrix.md): A[i][k] lives in lane 16*g + i, B[k][j] in lane
 * 16*g + j, where the lane holds its K/2 elements n = 0 .. K/2-1 packed
 * little-endian across its registers (element n at bit n*size of the tuple)
 * and blocks of E = min(64/size, K/2) elements alternate between the two lane
 * groups g: k = E*(2*(n/E) + g) + n%E. (f16/bf16: k = 8*(r/2) + 4*g +
 * 2*(r%2) + h; 8-bit: k = 8*g + 4*r + byte; iu4 x16: k = 8*g + nibble; iu4
 * x32: k = 16*g + 8*r + nibble.) 32-bit C/D: D[i][j] is register i%8 of lane
 * 16*(i/8) + j. 16-bit C/D (f16, bf16): register (i/2)%4, half i%2, same lane.
 * GFX12 does not duplicate A/B halves across lane groups (GFX11 did).
 *
 * Arithmetic (as the MFMA engine, simx_mfma.c): every product is exact in
 * double, the dot product is summed in double in k order, C is added and the
 * sum is rounded once to the output type (RNE; f16/bf16 outputs overflow to
 * Inf). Integers are exact; D wraps to 32 bits, or saturates with clamp.
 * Modifiers: neg_lo:[a,b,c] negates A, B, C for the float types and marks A,
 * B as signed for iu8/iu4 (LLVM's A_sign/B_sign); neg_hi:[0,0,1] takes |C|
 * (f32 C). fp8 is OCP E4M3FN and bf8 OCP E5M2 (simx_fmt).
 */
#include "sim/sim_int.h"
#include "sim/simx.h"

#include <math.h>
#include <string.h>

enum { WT_F16, WT_BF16, WT_F32, WT_FP8, WT_BF8, WT_I8, WT_I4, WT_I32 };

/* X(name, K, A type, B type, C/D type) */
#define SIMX_WMMA_TABLE(X) \
	X(v_wmma_f32_16x16x16_f16, 16, WT_F16, WT_F16, WT_F32) \
	X(v_wmma_f32_16x16x16_bf16, 16, WT_BF16, WT_BF16, WT_F32) \
	X(v_wmma_f16_16x16x16_f16, 16, WT_F16, WT_F16, WT_F16) \
	X(v_wmma_bf16_16x16x16_bf16, 16, WT_BF16, WT_BF16, WT_BF16) \
	X(v_wmma_f32_16x16x16_fp8_fp8, 16, WT_FP8, WT_FP8, WT_F32) \
	X(v_wmma_f32_16x16x16_fp8_bf8, 16, WT_FP8, WT_BF8, WT_F32) \
	X(v_wmma_f32_16x16x16_bf8_fp8, 16, WT_BF8, WT_FP8, WT_F32) \
	X(v_wmma_f32_16x16x16_bf8_bf8, 16, WT_BF8, WT_BF8, WT_F32) \
	X(v_wmma_i32_16x16x16_iu8, 16, WT_I8, WT_I8, WT_I32) \
	X(v_wmma_i32_16x16x16_iu4, 16, WT_I4, WT_I4, WT_I32) \
	X(v_wmma_i32_16x16x32_iu4, 32, WT_I4, WT_I4, WT_I32)

static int wbits(int t) { return t == WT_F32 || t == WT_I32 ? 32 : t == WT_F16 || t == WT_BF16 ? 16 : t == WT_I4 ? 4 : 8; }

/* The lane, register and bit of element (row/col x, k) of an A or B operand. */
static void in_pos(int K, int t, int x, int k, int *lane, int *reg, int *bit)
{
	int sz = wbits(t), half = K / 2, E = 64 / sz < half ? 64 / sz : half;
	int blk = k / E, g = blk & 1, n = (blk >> 1) * E + k % E;
	*lane = 16 * g + x;
	*reg = n * sz / 32;
	*bit = n * sz % 32;
}

static double in_val(int t, uint32_t code, int sgn, int neg)
{
	double v;
	switch (t) {
	case WT_F16: v = simx_f16_to_f32((uint16_t)code); break;
	case WT_BF16: v = simx_bf16_to_f32((uint16_t)code); break;
	case WT_FP8: v = simx_decode(SIMX_FP8, code & 0xff); break;
	case WT_BF8: v = simx_decode(SIMX_BF8, code & 0xff); break;
	case WT_I8: return sgn ? (double)(int8_t)code : (double)(code & 0xff);
	case WT_I4: return sgn ? (double)(((int)(code & 15) ^ 8) - 8) : (double)(code & 15);
	default: v = 0;
	}
	return neg ? -v : v;
}

/* Run one WMMA: a, b, c are the operands' register rows (row r of lane l at
 * [r][l], as SimWave.v stores them; c may be NULL with cconst the constant
 * C), d the destination rows. */
static void wmma_exec(int K, int ta, int tb, int tc, const uint32_t (*a)[SIM_LANES], const uint32_t (*b)[SIM_LANES],
                      const uint32_t (*c)[SIM_LANES], const SimOperand *cconst, uint32_t (*d)[SIM_LANES],
                      const SimInst *in)
{
	int neg_a = in->neg_lo & 1, neg_b = (in->neg_lo >> 1) & 1, neg_c = (in->neg_lo >> 2) & 1, abs_c = (in->neg_hi >> 2) & 1;
	int isint = tc == WT_I32;
	uint32_t out[8][32];
	memset(out, 0, sizeof out);
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++) {
			int lane = 16 * (i / 8) + j;
			/* C[i][j] */
			double cv;
			if (tc == WT_F32 || tc == WT_I32) {
				uint32_t u = c ? c[i % 8][lane] : cconst->k32;
				cv = isint ? (double)(int32_t)u : (double)simx_u2f(u);
			} else {
				uint32_t u = c ? c[(i / 2) % 4][lane] >> (16 * (i % 2)) : (tc == WT_F16 ? cconst->kf16 : cconst->kbf16);
				cv = tc == WT_F16 ? simx_f16_to_f32((uint16_t)u) : simx_bf16_to_f32((uint16_t)u);
			}
			if (!isint) { if (abs_c) cv = fabs(cv); if (neg_c) cv = -cv; }
			double s = 0;
			int64_t si = 0;
			for (int k = 0; k < K; k++) {
				int la, ra, ba, lb, rb, bb;
				in_pos(K, ta, i, k, &la, &ra, &ba);
				in_pos(K, tb, j, k, &lb, &rb, &bb);
				uint32_t ca = a[ra][la] >> ba, cb = b[rb][lb] >> bb;
				if (wbits(ta) < 32) ca &= (1u << wbits(ta)) - 1;
				if (wbits(tb) < 32) cb &= (1u << wbits(tb)) - 1;
				if (isint) si += (int64_t)in_val(ta, ca, neg_a, 0) * (int64_t)in_val(tb, cb, neg_b, 0);
				else s += in_val(ta, ca, 0, neg_a) * in_val(tb, cb, 0, neg_b);
			}
			if (isint) {
				int64_t r = si + (int64_t)cv;
				if (in->clamp) r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
				out[i % 8][lane] = (uint32_t)r;
			} else if (tc == WT_F32) {
				out[i % 8][lane] = simx_f2u((float)(s + cv));
			} else {
				/* rounded once, from the double sum to the 16-bit type */
				uint32_t h = simx_encode(tc == WT_F16 ? SIMX_F16 : SIMX_BF16, s + cv, SIMX_OVF_IEEE);
				int r = (i / 2) % 4;
				if (i % 2 == 0) out[r][lane] = (out[r][lane] & 0xffff0000u) | (h & 0xffff);
				else out[r][lane] = (out[r][lane] & 0xffffu) | (h & 0xffff) << 16;
			}
		}
	int dregs = tc == WT_F32 || tc == WT_I32 ? 8 : 4;
	for (int r = 0; r < dregs; r++)
		for (int l = 0; l < 32; l++) d[r][l] = out[r][l];
}

static int wmma(SimWave *w, const SimInst *in, int K, int ta, int tb, int tc)
{
	if (w->lanes != 32)
		return sim_fault(w, "'%s' is modelled in wave32 only", in->text);
	if (sim_exec(w) != 0xffffffffull)
		return sim_fault(w, "'%s' with EXEC 0x%08llx: WMMA needs every lane of the wave active", in->text,
		                 (unsigned long long)sim_exec(w));
	const SimOperand *od = &in->o[0], *oa = &in->o[1], *ob = &in->o[2], *oc = &in->o[3];
	int ar = 32 * K / 2 * wbits(ta) / 32 / 32, br = 32 * K / 2 * wbits(tb) / 32 / 32;
	int cr = tc == WT_F32 || tc == WT_I32 ? 8 : 4;
	if (in->nops < 4 || od->kind != SIM_OPK_VGPR || oa->kind != SIM_OPK_VGPR || ob->kind != SIM_OPK_VGPR ||
	    od->nregs != cr || oa->nregs != ar || ob->nregs != br ||
	    (oc->kind != SIM_OPK_CONST && (oc->kind != SIM_OPK_VGPR || oc->nregs != cr)))
		return sim_fault(w, "unexpected operands in '%s'", in->text);
	wmma_exec(K, ta, tb, tc, (const uint32_t (*)[SIM_LANES])&w->v[oa->reg][0], (const uint32_t (*)[SIM_LANES])&w->v[ob->reg][0],
	          oc->kind == SIM_OPK_VGPR ? (const uint32_t (*)[SIM_LANES])&w->v[oc->reg][0] : NULL, oc,
	          (uint32_t (*)[SIM_LANES])&w->v[od->reg][0], in);
	return SIM_NEXT;
}

#define X(name, K, ta, tb, tc) int sim_op_##name(SimWave *w, const SimInst *in) { return wmma(w, in, K, ta, tb, tc); }
SIMX_WMMA_TABLE(X)
#undef X
