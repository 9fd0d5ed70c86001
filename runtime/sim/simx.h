/* simx.h — matrix and narrow-float semantics of the gfx950 simulator.
 *
 * This module holds the parts of the simulator whose meaning is arithmetic rather than
 * control: number formats (bf16, f16, OCP fp8/bf8, fp6/bf6, fp4, E8M0 scales), the gfx950
 * conversion instructions built on them (round-to-nearest and stochastic rounding), the
 * MFMA matrix instructions (dense, block-scaled f8f6f4 and 4:2 sparse v_smfmac) and the
 * transposed LDS reads. Every function is pure: it
 * reads operand values and writes results, and never touches wave state, memory or EXEC.
 * The simulator core decodes an instruction, gathers operand values, calls in here, and
 * writes the results back.
 *
 * Model
 * -----
 * Registers are passed the way the core stores them, register-major: an operand of n
 * VGPRs (or AGPRs) starting at register `base` is `const uint32_t *p = &v[base][0]`, and
 * register r of lane l is p[r*64 + l]. MFMA operands are always passed this way (64 lanes).
 * Conversion instructions are evaluated one lane at a time on plain 32-bit values, because
 * their sources may be SGPRs or constants that the core resolves.
 *
 * Worked example (MFMA): v_mfma_f32_16x16x32_bf16 a[0:3], v[14:17], v[18:21], a[0:3]
 *     int id = simx_mfma_lookup("v_mfma_f32_16x16x32_bf16");
 *     simx_mfma_mods m = {0};
 *     simx_mfma_exec(id, &v[14][0], &v[18][0], &v[256][0], &v[256][0], &m);
 * Lane l of A holds row i = l%16 and columns k = 8*(l/16) + e, element e in bits 16*(e%2)
 * of register e/2; D[i][j] lands in register i%4 of lane 16*(i/4) + j.
 *
 * Invariants
 * ----------
 * - d may alias c (results are computed into a private buffer first).
 * - Inputs are never modified. No function allocates, prints or exits.
 * - Numbers: every narrow value (fp8, fp6, fp4, bf16, f16) is exactly representable in a
 *   double, and so are their products; MFMA sums are formed in double and rounded once to
 *   f32 (see docs/simulator-matrix.md for the order and what real hardware may differ in).
 * - Semantics that are not settled by a public source are listed as UNVERIFIED in
 *   docs/simulator-matrix.md; the choice made here is stated there.
 */
#ifndef FLY_SIMX_H
#define FLY_SIMX_H

#include <stdint.h>

/* ---------------------------------------------------------------- number formats */

/* Narrow formats. The values 0..4 are the MFMA f8f6f4 format codes (cbsz for A, blgp for B). */
typedef enum simx_fmt {
	SIMX_FP8 = 0,  /* OCP E4M3FN: bias 7, no Inf, S.1111.111 = NaN, max 448 */
	SIMX_BF8 = 1,  /* OCP E5M2: bias 15, IEEE-like Inf/NaN, max 57344 */
	SIMX_FP6 = 2,  /* OCP E2M3: bias 1, finite only, max 7.5 */
	SIMX_BF6 = 3,  /* OCP E3M2: bias 3, finite only, max 28 */
	SIMX_FP4 = 4,  /* OCP E2M1: bias 1, finite only, max 6 */
	SIMX_F16 = 5,  /* IEEE binary16 */
	SIMX_BF16 = 6, /* bfloat16 (upper half of binary32) */
	SIMX_NFMT = 7
} simx_fmt;

/* What an out-of-range value becomes when encoding. */
typedef enum simx_ovf {
	SIMX_OVF_IEEE = 0, /* +-Inf where the format has it (f16, bf16, bf8), NaN for fp8 E4M3 */
	SIMX_OVF_SAT = 1   /* clamp to +-max finite (fp6/fp4 always behave like this) */
} simx_ovf;

int simx_fmt_bits(simx_fmt f);                 /* 8, 8, 6, 6, 4, 16, 16 */
double simx_decode(simx_fmt f, uint32_t code); /* exact value of a code (low bits used) */
/* Round x to the nearest value of format f, ties to even (one rounding, from double).
 * NaN gives the format's NaN (canonical quiet NaN; fp6/fp4 have none and give +-max).
 * Inf and overflow follow `ovf`; fp6/fp4 always saturate. */
uint32_t simx_encode(simx_fmt f, double x, simx_ovf ovf);
/* Stochastic rounding (model, UNVERIFIED on hardware): with t = |x| in units of the
 * result's last place, keep `rbits` bits of t's fraction (truncating the rest), add the low
 * `rbits` bits of rng, and truncate: t rounds up with probability frac(t) (to 2^-rbits).
 * rbits is the source's significand width minus the target's (f32 -> fp8: 20). */
uint32_t simx_encode_sr(simx_fmt f, double x, int rbits, uint32_t rng, simx_ovf ovf);
double simx_e8m0(uint8_t s);                   /* 2^(s-127); s = 255 gives NaN */

float simx_f16_to_f32(uint16_t h);
uint16_t simx_f32_to_f16(float x);             /* RNE, overflow to Inf */
float simx_bf16_to_f32(uint16_t h);
uint16_t simx_f32_to_bf16(float x);            /* RNE, NaN stays (quiet) NaN */
float simx_u2f(uint32_t u);
uint32_t simx_f2u(float f);

/* ------------------------------------------------------- conversion instructions */

/* The op_sel field of a VOP3 encoding: bits 14:11 of its first dword. Bit n (n < 3) is
 * op_sel for source n, bit 3 is op_sel for the destination. The disassembler prints this
 * list with a length that depends on the instruction's operand list, so callers should
 * take it from the encoding. */
static inline unsigned simx_vop3_opsel(uint32_t word0) { return (word0 >> 11) & 0xFu; }

/* Look up a conversion mnemonic (as the LLVM disassembler prints it, with or without an
 * _e32/_e64/_sdwa suffix). Returns an id >= 0 or -1. */
int simx_cvt_lookup(const char *mnemonic);
const char *simx_cvt_name(int id);
int simx_cvt_src0_dwords(int id); /* VGPRs read from src0: 1, 6 or 16 */
int simx_cvt_src1_dwords(int id); /* VGPRs read from src1: 1 (a value or the scale) or 16 */
int simx_cvt_nsrc(int id);        /* number of source operands: 1, 2 or 3 */
int simx_cvt_dst_dwords(int id);  /* VGPRs written: 1, 2, 6, 16 or 32 */
int simx_cvt_count(void);
/* Bit n set: source n is an f32 value, so the VOP3 neg/abs modifiers apply to it. */
unsigned simx_cvt_f32_srcs(int id);

/* Evaluate one lane.
 *   src0: simx_cvt_src0_dwords(id) dwords of source 0 (for a multi-register source, the
 *         lane's value of each register in order);
 *   src1: simx_cvt_src1_dwords(id) dwords of source 1 (unused if nsrc < 2);
 *   src2: source 2 (unused if nsrc < 3);
 *   old:  the current value of the (first) destination register, for the forms that write
 *         only part of it;
 *   opsel: simx_vop3_opsel(word0) for VOP3 encodings, 0 otherwise;
 *   sdwa_sel: SDWA src0_sel for the _sdwa forms of v_cvt_f32_{fp8,bf8} and
 *         v_cvt_pk_f32_{fp8,bf8} (BYTE_0..3 = 0..3, WORD_0/1 = 4/5, DWORD = 6), else 6;
 *   dst:  receives simx_cvt_dst_dwords(id) dwords.
 * Source neg/abs modifiers, where the assembler accepts them, are the caller's job (they
 * apply to f32 sources before the call). Returns 0, or -1 for a bad id. */
int simx_cvt_exec(int id, const uint32_t *src0, const uint32_t *src1, uint32_t src2,
                  uint32_t old, unsigned opsel, int sdwa_sel, uint32_t *dst);

/* ------------------------------------------------------------------------- MFMA */

typedef enum simx_mtype {
	SIMX_MT_F32, SIMX_MT_F16, SIMX_MT_BF16, SIMX_MT_I8, SIMX_MT_F64,
	SIMX_MT_FP8, SIMX_MT_BF8,
	SIMX_MT_F8F6F4, /* A/B format from cbsz/blgp (simx_fmt codes 0..4) */
	SIMX_MT_I32     /* output only */
} simx_mtype;

typedef struct simx_mfma_info {
	const char *name;      /* canonical gfx950 mnemonic */
	int m, n, k, blocks;   /* per block: D[m][n] += A[m][k] * B[k][n] */
	simx_mtype ta, tb, tc; /* element types of A, B and C/D */
	int a_regs, b_regs;    /* VGPRs per lane of A and B (f8f6f4: for fp8 inputs) */
	int cd_regs;           /* VGPRs per lane of C and D */
	int scaled;            /* 1 for v_mfma_scale_* */
	int sparse;            /* 1 for v_smfmac_* (4:2 sparse A, a_regs holds K/2 values) */
} simx_mfma_info;

typedef struct simx_mfma_mods {
	int cbsz, abid, blgp;   /* as encoded; f8f6f4: cbsz = A format, blgp = B format */
	int neg;                /* f64 forms only: bit 0 neg A, bit 1 neg B, bit 2 neg C */
	/* scaled forms (v_mfma_scale_*): the scale operands, 64 lanes each, and op_sel byte
	 * selectors 0..3 (opsel_a = op_sel[0] | op_sel_hi[0] << 1, opsel_b likewise with
	 * index 1). NULL scales mean unit scale. */
	const uint32_t *scale_a, *scale_b;
	int opsel_a, opsel_b;
	/* sparse forms (v_smfmac_*): the compression-index VGPR (srcC), 64 lanes. Each group
	 * of 4 consecutive K of a lane's A row stores 2 values; a 4-bit field (bits 1:0 and
	 * 3:2) gives their positions in the group. With cbsz = 0, abid selects the index set
	 * (a lane's fields start at bit abid * (K/2*M/64) * 2). C is the old D. */
	const uint32_t *sparse_idx;
} simx_mfma_mods;

/* Look up an MFMA mnemonic (canonical gfx950 name, the older aliases such as
 * v_mfma_f32_32x32x8bf16_1k, or a v_smfmac_*). Returns an id >= 0 or -1. */
int simx_mfma_lookup(const char *mnemonic);
const simx_mfma_info *simx_mfma_get(int id);
int simx_mfma_count(void);
/* VGPRs per lane read from A and B for these modifiers (differs from the info only for
 * f8f6f4, whose size follows the formats). Returns -1 for a bad format code. */
int simx_mfma_ab_regs(int id, const simx_mfma_mods *m, int *a_regs, int *b_regs);
/* D = A*B + C (per block, with the cbsz/abid broadcast of A and the blgp lane pattern of
 * B). a, b, c, d are register-major 64-lane arrays (register r of lane l at [r*64+l]).
 * Returns 0, or -1 for a bad id or modifier. */
int simx_mfma_exec(int id, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                   uint32_t *d, const simx_mfma_mods *m);

/* Layout helpers (exported for tests and for the documentation's tables):
 * where element (block, i, k) of A (or (block, k, j) of B, with j as `i`) sits before any
 * broadcast: the lane and the element index inside the lane's registers. */
void simx_mfma_in_pos(int id, int fmt, int block, int i, int k, int *lane, int *elem);
/* where D[block][i][j] sits: register (dword index, for f64 the first of the pair) and lane */
void simx_mfma_out_pos(int id, int block, int i, int j, int *reg, int *lane);

/* --------------------------------------------------------- transposed LDS reads */

/* ds_read_b64_tr_b16, ds_read_b64_tr_b8, ds_read_b64_tr_b4, ds_read_b96_tr_b6. */
int simx_dstr_lookup(const char *mnemonic);
int simx_dstr_dwords(int id);     /* 2, or 3 for b96 */
int simx_dstr_elem_bits(int id);  /* 16, 8, 4 or 6 */
int simx_dstr_align(int id);      /* bytes every lane address must be aligned to (16 for b6), 0: unchecked */
/* The exchange: `in` holds what each lane's plain ds_read_b64/b96 at its own address would
 * have returned (register-major, dwords(id) registers); `out` receives the transposed
 * result (same shape; must not alias in). Works in independent groups of 16 lanes: with
 * n = elements per lane, lane m's element e is element m%n of lane (16/n)*e + m/n. */
void simx_dstr_shuffle(int id, const uint32_t *in, uint32_t *out);
/* Convenience: read from an LDS image. addr[l] is lane l's byte address (offset added);
 * lanes not in exec read nothing and their `out` values are left untouched; their
 * contribution to the exchange is zero. Returns -1 on success, or the first active lane
 * whose access leaves [0, lds_size) or breaks simx_dstr_align. */
int simx_dstr_read(int id, const uint32_t *addr, uint64_t exec, const uint8_t *lds,
                   uint32_t lds_size, uint32_t *out);

#endif
