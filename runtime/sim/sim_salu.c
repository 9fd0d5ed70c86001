/*
 * sim_salu.c — scalar ALU (SOP1/SOP2/SOPC/SOPK), program control (SOPP) and
 * scalar memory (SMEM). Semantics follow the AMD "CDNA3 Instruction Set
 * Architecture" reference guide (SCC rules per instruction) and LLVM's
 * AMDGPU backend; gfx950 keeps the gfx9 scalar instruction set.
 */
/* messages are cut to their buffers on purpose */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <math.h>
#include <stdio.h>
#include "sim/sim_int.h"

#define D (&in->o[0])
#define S0 (&in->o[1])
#define S1 (&in->o[2])
#define R32(o) sim_rd32(w, (o), 0)
#define R64(o) sim_rd64(w, (o), 0)
#define W32(v) sim_wr(w, D, 0, 0, (uint32_t)(v))
#define W64(v) sim_wr64(w, D, 0, (uint64_t)(v))

/* ---- SOP2 ---- */
#define SOP2_32(name, expr, sccexpr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ uint32_t a = R32(S0), b = R32(S1); uint32_t r = (uint32_t)(expr); (void)a; (void)b; sccexpr; W32(r); return SIM_NEXT; }
#define SOP2_64(name, expr, sccexpr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ uint64_t a = R64(S0), b = R64(S1); uint64_t r = (uint64_t)(expr); (void)a; (void)b; sccexpr; W64(r); return SIM_NEXT; }
#define NZ w->scc = r != 0
#define KEEP (void)0

SOP2_32(s_add_u32, a + b, w->scc = r < a)
SOP2_32(s_sub_u32, a - b, w->scc = b > a)
SOP2_32(s_add_i32, a + b, w->scc = ((~(a ^ b) & (a ^ r)) >> 31) & 1)
SOP2_32(s_sub_i32, a - b, w->scc = (((a ^ b) & (a ^ r)) >> 31) & 1)
int sim_op_s_addc_u32(SimWave *w, const SimInst *in)
{ uint64_t r = (uint64_t)R32(S0) + R32(S1) + w->scc; w->scc = (uint32_t)(r >> 32); W32(r); return SIM_NEXT; }
int sim_op_s_subb_u32(SimWave *w, const SimInst *in)
{ uint64_t r = (uint64_t)R32(S0) - R32(S1) - w->scc; w->scc = (uint32_t)(r >> 63); W32(r); return SIM_NEXT; }
SOP2_32(s_min_i32, (int32_t)a < (int32_t)b ? a : b, w->scc = (int32_t)a < (int32_t)b)
SOP2_32(s_min_u32, a < b ? a : b, w->scc = a < b)
SOP2_32(s_max_i32, (int32_t)a > (int32_t)b ? a : b, w->scc = (int32_t)a > (int32_t)b)
SOP2_32(s_max_u32, a > b ? a : b, w->scc = a > b)
SOP2_32(s_cselect_b32, w->scc ? a : b, KEEP)
SOP2_64(s_cselect_b64, w->scc ? a : b, KEEP)
SOP2_32(s_and_b32, a & b, NZ)
SOP2_64(s_and_b64, a & b, NZ)
SOP2_32(s_or_b32, a | b, NZ)
SOP2_64(s_or_b64, a | b, NZ)
SOP2_32(s_xor_b32, a ^ b, NZ)
SOP2_64(s_xor_b64, a ^ b, NZ)
SOP2_32(s_andn2_b32, a & ~b, NZ)
SOP2_64(s_andn2_b64, a & ~b, NZ)
SOP2_32(s_orn2_b32, a | ~b, NZ)
SOP2_64(s_orn2_b64, a | ~b, NZ)
SOP2_32(s_nand_b32, ~(a & b), NZ)
SOP2_64(s_nand_b64, ~(a & b), NZ)
SOP2_32(s_nor_b32, ~(a | b), NZ)
SOP2_64(s_nor_b64, ~(a | b), NZ)
SOP2_32(s_xnor_b32, ~(a ^ b), NZ)
SOP2_64(s_xnor_b64, ~(a ^ b), NZ)
SOP2_32(s_lshl_b32, a << (b & 31), NZ)
SOP2_32(s_lshr_b32, a >> (b & 31), NZ)
SOP2_32(s_ashr_i32, (uint32_t)((int32_t)a >> (b & 31)), NZ)
int sim_op_s_lshl_b64(SimWave *w, const SimInst *in) { uint64_t r = R64(S0) << (R32(S1) & 63); NZ; W64(r); return SIM_NEXT; }
int sim_op_s_lshr_b64(SimWave *w, const SimInst *in) { uint64_t r = R64(S0) >> (R32(S1) & 63); NZ; W64(r); return SIM_NEXT; }
int sim_op_s_ashr_i64(SimWave *w, const SimInst *in) { uint64_t r = (uint64_t)((int64_t)R64(S0) >> (R32(S1) & 63)); NZ; W64(r); return SIM_NEXT; }
SOP2_32(s_bfm_b32, ((1u << (a & 31)) - 1) << (b & 31), KEEP)
int sim_op_s_bfm_b64(SimWave *w, const SimInst *in)
{ uint32_t a = R32(S0) & 63, b = R32(S1) & 63; W64((a == 64 ? ~0ull : ((1ull << a) - 1)) << b); return SIM_NEXT; }
SOP2_32(s_mul_i32, a * b, KEEP)
SOP2_32(s_mul_hi_u32, ((uint64_t)a * b) >> 32, KEEP)
SOP2_32(s_mul_hi_i32, (uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32, KEEP)
static uint32_t bfe32(uint32_t a, uint32_t b, int sgn)
{
	uint32_t off = b & 31, wdt = (b >> 16) & 0x7f;
	if (!wdt) return 0;
	if (wdt > 32 - off) wdt = 32 - off;
	uint32_t v = a >> off;
	if (wdt < 32) { v &= (1u << wdt) - 1; if (sgn && (v >> (wdt - 1)) & 1) v |= ~((1u << wdt) - 1); }
	return v;
}
SOP2_32(s_bfe_u32, bfe32(a, b, 0), NZ)
SOP2_32(s_bfe_i32, bfe32(a, b, 1), NZ)
static uint64_t bfe64(uint64_t a, uint32_t b, int sgn)
{
	uint32_t off = b & 63, wdt = (b >> 16) & 0x7f;
	if (!wdt) return 0;
	if (wdt > 64 - off) wdt = 64 - off;
	uint64_t v = a >> off;
	if (wdt < 64) { v &= (1ull << wdt) - 1; if (sgn && (v >> (wdt - 1)) & 1) v |= ~((1ull << wdt) - 1); }
	return v;
}
int sim_op_s_bfe_u64(SimWave *w, const SimInst *in) { uint64_t r = bfe64(R64(S0), R32(S1), 0); NZ; W64(r); return SIM_NEXT; }
int sim_op_s_bfe_i64(SimWave *w, const SimInst *in) { uint64_t r = bfe64(R64(S0), R32(S1), 1); NZ; W64(r); return SIM_NEXT; }
SOP2_32(s_absdiff_i32, (int32_t)a > (int32_t)b ? a - b : b - a, NZ)
#define LSHLADD(n) SOP2_32(s_lshl##n##_add_u32, (a << n) + b, w->scc = (((uint64_t)a << n) + b) >> 32 != 0)
LSHLADD(1) LSHLADD(2) LSHLADD(3) LSHLADD(4)
SOP2_32(s_pack_ll_b32_b16, (a & 0xffff) | b << 16, KEEP)
SOP2_32(s_pack_lh_b32_b16, (a & 0xffff) | (b & 0xffff0000u), KEEP)
SOP2_32(s_pack_hh_b32_b16, a >> 16 | (b & 0xffff0000u), KEEP)

/* ---- SOPC ---- */
#define SOPC(name, T, op) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ T a = (T)sim_rd32(w, &in->o[0], 0), b = (T)sim_rd32(w, &in->o[1], 0); w->scc = a op b; return SIM_NEXT; }
SOPC(s_cmp_eq_i32, int32_t, ==) SOPC(s_cmp_lg_i32, int32_t, !=) SOPC(s_cmp_gt_i32, int32_t, >)
SOPC(s_cmp_ge_i32, int32_t, >=) SOPC(s_cmp_lt_i32, int32_t, <) SOPC(s_cmp_le_i32, int32_t, <=)
SOPC(s_cmp_eq_u32, uint32_t, ==) SOPC(s_cmp_lg_u32, uint32_t, !=) SOPC(s_cmp_gt_u32, uint32_t, >)
SOPC(s_cmp_ge_u32, uint32_t, >=) SOPC(s_cmp_lt_u32, uint32_t, <) SOPC(s_cmp_le_u32, uint32_t, <=)
int sim_op_s_cmp_eq_u64(SimWave *w, const SimInst *in) { w->scc = sim_rd64(w, &in->o[0], 0) == sim_rd64(w, &in->o[1], 0); return SIM_NEXT; }
int sim_op_s_cmp_lg_u64(SimWave *w, const SimInst *in) { w->scc = sim_rd64(w, &in->o[0], 0) != sim_rd64(w, &in->o[1], 0); return SIM_NEXT; }
int sim_op_s_bitcmp0_b32(SimWave *w, const SimInst *in) { w->scc = !((sim_rd32(w, &in->o[0], 0) >> (sim_rd32(w, &in->o[1], 0) & 31)) & 1); return SIM_NEXT; }
int sim_op_s_bitcmp1_b32(SimWave *w, const SimInst *in) { w->scc = (sim_rd32(w, &in->o[0], 0) >> (sim_rd32(w, &in->o[1], 0) & 31)) & 1; return SIM_NEXT; }
int sim_op_s_bitcmp0_b64(SimWave *w, const SimInst *in) { w->scc = !((sim_rd64(w, &in->o[0], 0) >> (sim_rd32(w, &in->o[1], 0) & 63)) & 1); return SIM_NEXT; }
int sim_op_s_bitcmp1_b64(SimWave *w, const SimInst *in) { w->scc = (sim_rd64(w, &in->o[0], 0) >> (sim_rd32(w, &in->o[1], 0) & 63)) & 1; return SIM_NEXT; }

/* ---- SOPK ---- */
static int32_t simm16(const SimInst *in) { return (int16_t)(in->o[in->nops - 1].k32 & 0xffff); }
int sim_op_s_movk_i32(SimWave *w, const SimInst *in) { W32(simm16(in)); return SIM_NEXT; }
int sim_op_s_cmovk_i32(SimWave *w, const SimInst *in) { if (w->scc) W32(simm16(in)); return SIM_NEXT; }
int sim_op_s_addk_i32(SimWave *w, const SimInst *in)
{ uint32_t a = R32(D), b = (uint32_t)simm16(in), r = a + b; w->scc = ((~(a ^ b) & (a ^ r)) >> 31) & 1; W32(r); return SIM_NEXT; }
int sim_op_s_mulk_i32(SimWave *w, const SimInst *in) { W32(R32(D) * (uint32_t)simm16(in)); return SIM_NEXT; }
#define SOPK_CMP(name, T, op, sx) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ T a = (T)sim_rd32(w, &in->o[0], 0); T b = sx ? (T)simm16(in) : (T)(in->o[1].k32 & 0xffff); w->scc = a op b; return SIM_NEXT; }
SOPK_CMP(s_cmpk_eq_i32, int32_t, ==, 1) SOPK_CMP(s_cmpk_lg_i32, int32_t, !=, 1) SOPK_CMP(s_cmpk_gt_i32, int32_t, >, 1)
SOPK_CMP(s_cmpk_ge_i32, int32_t, >=, 1) SOPK_CMP(s_cmpk_lt_i32, int32_t, <, 1) SOPK_CMP(s_cmpk_le_i32, int32_t, <=, 1)
SOPK_CMP(s_cmpk_eq_u32, uint32_t, ==, 0) SOPK_CMP(s_cmpk_lg_u32, uint32_t, !=, 0) SOPK_CMP(s_cmpk_gt_u32, uint32_t, >, 0)
SOPK_CMP(s_cmpk_ge_u32, uint32_t, >=, 0) SOPK_CMP(s_cmpk_lt_u32, uint32_t, <, 0) SOPK_CMP(s_cmpk_le_u32, uint32_t, <=, 0)

static uint32_t *hwreg(SimWave *w, int id)
{
	switch (id) {
	case 1: return &w->mode;
	case 3: return &w->trapsts;
	default: return NULL;
	}
}
int sim_op_s_getreg_b32(SimWave *w, const SimInst *in)
{
	uint32_t e = in->o[1].k32, id = e & 63, off = (e >> 6) & 31, sz = ((e >> 11) & 31) + 1;
	uint32_t v = 0;
	if (id == 4) v = (uint32_t)w->id;                            /* HW_ID: wave id only */
	else if (id == 2) v = (w->scc & 1) | (sim_exec(w) == 0) << 9 | (sim_vcc(w) == 0) << 10;
	else if (id == 6) v = ((w->wg->lds_size + 511) / 512) << 12;  /* LDS_ALLOC: size in 128-dword units */
	else { uint32_t *p = hwreg(w, (int)id); v = p ? *p : 0; }
	v >>= off;
	if (sz < 32) v &= (1u << sz) - 1;
	W32(v);
	return SIM_NEXT;
}
static int setreg(SimWave *w, uint32_t e, uint32_t val)
{
	uint32_t id = e & 63, off = (e >> 6) & 31, sz = ((e >> 11) & 31) + 1;
	uint32_t *p = hwreg(w, (int)id);
	if (!p) return SIM_NEXT;   /* other registers: writes ignored */
	uint32_t m = (sz >= 32 ? 0xffffffffu : ((1u << sz) - 1)) << off;
	*p = (*p & ~m) | ((val << off) & m);
	return SIM_NEXT;
}
int sim_op_s_setreg_b32(SimWave *w, const SimInst *in) { return setreg(w, in->o[0].k32, sim_rd32(w, &in->o[1], 0)); }
int sim_op_s_setreg_imm32_b32(SimWave *w, const SimInst *in) { return setreg(w, in->o[0].k32, in->o[1].k32); }

/* ---- SOP1 ---- */
#define SOP1_32(name, expr, sccexpr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ uint32_t a = R32(S0); uint32_t r = (uint32_t)(expr); sccexpr; W32(r); return SIM_NEXT; }
#define SOP1_64(name, expr, sccexpr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ uint64_t a = R64(S0); uint64_t r = (uint64_t)(expr); sccexpr; W64(r); return SIM_NEXT; }
SOP1_32(s_mov_b32, a, KEEP)
SOP1_64(s_mov_b64, a, KEEP)
int sim_op_s_cmov_b32(SimWave *w, const SimInst *in) { if (w->scc) W32(R32(S0)); return SIM_NEXT; }
int sim_op_s_cmov_b64(SimWave *w, const SimInst *in) { if (w->scc) W64(R64(S0)); return SIM_NEXT; }
SOP1_32(s_not_b32, ~a, NZ)
SOP1_64(s_not_b64, ~a, NZ)
static uint64_t wqm(uint64_t a) { uint64_t r = 0; for (int i = 0; i < 64; i += 4) if ((a >> i) & 15) r |= 15ull << i; return r; }
SOP1_32(s_wqm_b32, wqm(a), NZ)
SOP1_64(s_wqm_b64, wqm(a), NZ)
static uint32_t brev32(uint32_t a) { uint32_t r = 0; for (int i = 0; i < 32; i++) r |= ((a >> i) & 1) << (31 - i); return r; }
SOP1_32(s_brev_b32, brev32(a), KEEP)
SOP1_64(s_brev_b64, (uint64_t)brev32((uint32_t)a) << 32 | brev32((uint32_t)(a >> 32)), KEEP)
SOP1_32(s_bcnt0_i32_b32, 32 - __builtin_popcount(a), NZ)
SOP1_32(s_bcnt1_i32_b32, __builtin_popcount(a), NZ)
int sim_op_s_bcnt0_i32_b64(SimWave *w, const SimInst *in) { uint32_t r = 64 - (uint32_t)__builtin_popcountll(R64(S0)); NZ; W32(r); return SIM_NEXT; }
int sim_op_s_bcnt1_i32_b64(SimWave *w, const SimInst *in) { uint32_t r = (uint32_t)__builtin_popcountll(R64(S0)); NZ; W32(r); return SIM_NEXT; }
SOP1_32(s_ff0_i32_b32, ~a ? __builtin_ctz(~a) : -1, KEEP)
SOP1_32(s_ff1_i32_b32, a ? __builtin_ctz(a) : -1, KEEP)
int sim_op_s_ff0_i32_b64(SimWave *w, const SimInst *in) { uint64_t a = R64(S0); W32(~a ? __builtin_ctzll(~a) : -1); return SIM_NEXT; }
int sim_op_s_ff1_i32_b64(SimWave *w, const SimInst *in) { uint64_t a = R64(S0); W32(a ? __builtin_ctzll(a) : -1); return SIM_NEXT; }
SOP1_32(s_flbit_i32_b32, a ? __builtin_clz(a) : -1, KEEP)
int sim_op_s_flbit_i32_b64(SimWave *w, const SimInst *in) { uint64_t a = R64(S0); W32(a ? __builtin_clzll(a) : -1); return SIM_NEXT; }
static int32_t flbit_signed(uint32_t a) { if (a == 0 || a == 0xffffffffu) return -1; return ((int32_t)a < 0) ? __builtin_clz(~a) : __builtin_clz(a); }
SOP1_32(s_flbit_i32, flbit_signed(a), KEEP)
SOP1_32(s_sext_i32_i8, (int32_t)(int8_t)a, KEEP)
SOP1_32(s_sext_i32_i16, (int32_t)(int16_t)a, KEEP)
int sim_op_s_bitset0_b32(SimWave *w, const SimInst *in) { W32(R32(D) & ~(1u << (R32(S0) & 31))); return SIM_NEXT; }
int sim_op_s_bitset1_b32(SimWave *w, const SimInst *in) { W32(R32(D) | (1u << (R32(S0) & 31))); return SIM_NEXT; }
int sim_op_s_bitset0_b64(SimWave *w, const SimInst *in) { W64(R64(D) & ~(1ull << (R32(S0) & 63))); return SIM_NEXT; }
int sim_op_s_bitset1_b64(SimWave *w, const SimInst *in) { W64(R64(D) | (1ull << (R32(S0) & 63))); return SIM_NEXT; }
SOP1_32(s_abs_i32, (int32_t)a < 0 ? -a : a, NZ)
static uint64_t quadmask(uint64_t a) { uint64_t r = 0; for (int i = 0; i < 16; i++) if ((a >> (4 * i)) & 15) r |= 1ull << i; return r; }
SOP1_32(s_quadmask_b32, quadmask(a), NZ)
SOP1_64(s_quadmask_b64, quadmask(a), NZ)
int sim_op_s_getpc_b64(SimWave *w, const SimInst *in) { W64(w->code_va + w->pc + in->size); return SIM_NEXT; }
static int set_pc_va(SimWave *w, uint64_t va)
{
	if (va < w->code_va || va - w->code_va >= w->code_size)
		return sim_fault(w, "jump to 0x%llx, outside the code object", (unsigned long long)va);
	w->pc = va - w->code_va;
	return SIM_JUMP;
}
int sim_op_s_setpc_b64(SimWave *w, const SimInst *in) { return set_pc_va(w, sim_rd64(w, &in->o[0], 0)); }
int sim_op_s_swappc_b64(SimWave *w, const SimInst *in)
{
	uint64_t t = R64(S0);
	W64(w->code_va + w->pc + in->size);
	return set_pc_va(w, t);
}

/* s_<op>_saveexec_b64: D = EXEC; EXEC = op(S0, EXEC); SCC = EXEC != 0 */
#define SAVEEXEC(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ uint64_t a = R64(S0), e = sim_exec(w), r = (expr); W64(e); sim_set_exec(w, r); w->scc = r != 0; return SIM_NEXT; }
SAVEEXEC(s_and_saveexec_b64, a & e)
SAVEEXEC(s_or_saveexec_b64, a | e)
SAVEEXEC(s_xor_saveexec_b64, a ^ e)
SAVEEXEC(s_andn2_saveexec_b64, a & ~e)
SAVEEXEC(s_orn2_saveexec_b64, a | ~e)
SAVEEXEC(s_nand_saveexec_b64, ~(a & e))
SAVEEXEC(s_nor_saveexec_b64, ~(a | e))
SAVEEXEC(s_xnor_saveexec_b64, ~(a ^ e))
SAVEEXEC(s_andn1_saveexec_b64, ~a & e)
SAVEEXEC(s_orn1_saveexec_b64, ~a | e)
/* the wave32 forms (gfx10+): EXEC is exec_lo */
#define SAVEEXEC32(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ uint32_t a = R32(S0), e = (uint32_t)sim_exec(w), r = (expr); W32(e); sim_set_exec(w, r); w->scc = r != 0; return SIM_NEXT; }
SAVEEXEC32(s_and_saveexec_b32, a & e)
SAVEEXEC32(s_or_saveexec_b32, a | e)
SAVEEXEC32(s_xor_saveexec_b32, a ^ e)
SAVEEXEC32(s_andn2_saveexec_b32, a & ~e)
SAVEEXEC32(s_orn2_saveexec_b32, a | ~e)
SAVEEXEC32(s_nand_saveexec_b32, ~(a & e))
SAVEEXEC32(s_nor_saveexec_b32, ~(a | e))
SAVEEXEC32(s_xnor_saveexec_b32, ~(a ^ e))
SAVEEXEC32(s_andn1_saveexec_b32, ~a & e)
SAVEEXEC32(s_orn1_saveexec_b32, ~a | e)
int sim_op_s_andn1_wrexec_b32(SimWave *w, const SimInst *in)
{ uint32_t r = ~R32(S0) & (uint32_t)sim_exec(w); sim_set_exec(w, r); W32(r); w->scc = r != 0; return SIM_NEXT; }
int sim_op_s_andn2_wrexec_b32(SimWave *w, const SimInst *in)
{ uint32_t r = R32(S0) & ~(uint32_t)sim_exec(w); sim_set_exec(w, r); W32(r); w->scc = r != 0; return SIM_NEXT; }
int sim_op_s_andn1_wrexec_b64(SimWave *w, const SimInst *in)
{ uint64_t r = ~R64(S0) & sim_exec(w); sim_set_exec(w, r); W64(r); w->scc = r != 0; return SIM_NEXT; }
int sim_op_s_andn2_wrexec_b64(SimWave *w, const SimInst *in)
{ uint64_t r = R64(S0) & ~sim_exec(w); sim_set_exec(w, r); W64(r); w->scc = r != 0; return SIM_NEXT; }
/* m0-relative moves */
int sim_op_s_movrels_b32(SimWave *w, const SimInst *in) { W32(w->s[(in->o[1].reg + w->s[SIM_M0]) & 127]); return SIM_NEXT; }
int sim_op_s_movrels_b64(SimWave *w, const SimInst *in) { W64(sim_sreg64(w, in->o[1].reg + w->s[SIM_M0])); return SIM_NEXT; }
int sim_op_s_movreld_b32(SimWave *w, const SimInst *in) { w->s[(in->o[0].reg + w->s[SIM_M0]) & 127] = R32(S0); return SIM_NEXT; }
int sim_op_s_movreld_b64(SimWave *w, const SimInst *in)
{ uint64_t v = R64(S0); unsigned r = in->o[0].reg + w->s[SIM_M0]; w->s[r & 127] = (uint32_t)v; w->s[(r + 1) & 127] = (uint32_t)(v >> 32); return SIM_NEXT; }

/* ---- SOPP ---- */
int sim_op_s_endpgm(SimWave *w, const SimInst *in) { return SIM_END; }
int sim_op_s_nop(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_waitcnt(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_setprio(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_sleep(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_icache_inv(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_dcache_inv(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_dcache_wb(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_buffer_wbl2(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_buffer_inv(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_incperflevel(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_decperflevel(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_ttracedata(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_sched_barrier(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_sched_barrier(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_sched_group_barrier(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_barrier(SimWave *w, const SimInst *in) { return w->wg->nwaves > 1 ? SIM_BARRIER : SIM_NEXT; }
/* GFX12 split barrier: s_barrier_signal -1 (the workgroup barrier) waits here
 * for every wave, as s_barrier does; the matching s_barrier_wait is then a
 * no-op. Work placed between signal and wait runs after the release, which
 * is one order the hardware may also take. Named barriers (other operands)
 * are not modelled. */
int sim_op_s_barrier_signal(SimWave *w, const SimInst *in)
{
	if (in->nops < 1 || in->o[0].kind != SIM_OPK_CONST || (int32_t)in->o[0].k32 != -1)
		return sim_fault(w, "s_barrier_signal of a named barrier is not modelled: '%s'", in->text);
	return sim_op_s_barrier(w, in);
}
int sim_op_s_barrier_wait(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_sendmsg(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_sendmsghalt(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_sethalt(SimWave *w, const SimInst *in)
{ return (in->imm & 1) ? sim_fault(w, "s_sethalt: the wave halted itself") : SIM_NEXT; }
int sim_op_s_trap(SimWave *w, const SimInst *in)
{ return sim_fault(w, "trap: s_trap %u (e.g. a failed assertion or __builtin_trap)", in->imm & 0xff); }
int sim_op_s_memtime(SimWave *w, const SimInst *in) { W64(w->steps * 4); return SIM_NEXT; }
int sim_op_s_memrealtime(SimWave *w, const SimInst *in) { W64(w->steps); return SIM_NEXT; }

static int branch(SimWave *w, const SimInst *in, int take)
{
	if (!take) return SIM_NEXT;
	w->pc = in->target;
	return SIM_JUMP;
}
int sim_op_s_branch(SimWave *w, const SimInst *in) { return branch(w, in, 1); }
int sim_op_s_cbranch_scc0(SimWave *w, const SimInst *in) { return branch(w, in, w->scc == 0); }
int sim_op_s_cbranch_scc1(SimWave *w, const SimInst *in) { return branch(w, in, w->scc != 0); }
int sim_op_s_cbranch_vccz(SimWave *w, const SimInst *in) { return branch(w, in, sim_vcc(w) == 0); }
int sim_op_s_cbranch_vccnz(SimWave *w, const SimInst *in) { return branch(w, in, sim_vcc(w) != 0); }
int sim_op_s_cbranch_execz(SimWave *w, const SimInst *in) { return branch(w, in, sim_exec(w) == 0); }
int sim_op_s_cbranch_execnz(SimWave *w, const SimInst *in) { return branch(w, in, sim_exec(w) != 0); }

/* GPR indexing mode (gfx9): while on, VALU VGPR operands selected by the mode
 * mask (bit 0 src0, 1 src1, 2 src2, 3 dst) are offset by the index; the
 * executor applies it (sim_core.c). The state lives in M0 as on hardware:
 * M0[7:0] index, M0[15:12] mode; w->gpr_idx_on says whether it is enabled. */
int sim_op_s_set_gpr_idx_on(SimWave *w, const SimInst *in)
{
	uint32_t idx = sim_rd32(w, &in->o[0], 0) & 0xff, mode = in->o[1].k32 & 15;
	w->s[SIM_M0] = (w->s[SIM_M0] & ~0xf0ffu) | idx | mode << 12;
	w->gpr_idx_on = 1;
	return SIM_NEXT;
}
int sim_op_s_set_gpr_idx_off(SimWave *w, const SimInst *in) { w->gpr_idx_on = 0; return SIM_NEXT; }
int sim_op_s_set_gpr_idx_idx(SimWave *w, const SimInst *in)
{ w->s[SIM_M0] = (w->s[SIM_M0] & ~0xffu) | (sim_rd32(w, &in->o[0], 0) & 0xff); return SIM_NEXT; }
int sim_op_s_set_gpr_idx_mode(SimWave *w, const SimInst *in)
{ w->s[SIM_M0] = (w->s[SIM_M0] & ~0xf000u) | (in->o[0].k32 & 15) << 12; return SIM_NEXT; }

/* ---- SMEM ---- */
static int smem_load(SimWave *w, const SimInst *in, int ndw, int buffer)
{
	const SimOperand *d = &in->o[0], *base = &in->o[1], *off = &in->o[2];
	uint64_t addr;
	uint32_t o = in->nops > 2 ? sim_rd32(w, off, 0) : 0;
	if (in->nops > 3) o += sim_rd32(w, &in->o[3], 0);
	if (in->present & SIM_MOD_OFFSET) o += (uint32_t)in->offset;
	if (!buffer) {
		addr = sim_rd64(w, base, 0) + (uint64_t)(int64_t)(int32_t)o;
		const uint8_t *p = sim_gptr(w, addr & ~3ull, (uint32_t)ndw * 4, -1, 0);
		if (!p) return SIM_FAULT;
		for (int i = 0; i < ndw; i++) { uint32_t v; memcpy(&v, p + 4 * i, 4); sim_wr(w, d, i, 0, v); }
		return SIM_NEXT;
	}
	/* s_buffer_load: resource in base, range-checked per dword */
	uint64_t rb = (sim_rd(w, base, 0, 0) | (uint64_t)(sim_rd(w, base, 1, 0) & 0xffff) << 32);
	uint32_t stride = (sim_rd(w, base, 1, 0) >> 16) & 0x3fff, nrec = sim_rd(w, base, 2, 0);
	uint64_t limit = stride ? (uint64_t)nrec * stride : nrec;
	o &= ~3u;
	for (int i = 0; i < ndw; i++) {
		uint64_t a = (uint64_t)o + 4u * (uint32_t)i;
		uint32_t v = 0;
		if (a + 4 <= limit) {
			const uint8_t *p = sim_gptr(w, rb + a, 4, -1, 0);
			if (!p) return SIM_FAULT;
			memcpy(&v, p, 4);
		}
		sim_wr(w, d, i, 0, v);
	}
	return SIM_NEXT;
}
#define SLOAD(name, n, buf) int sim_op_##name(SimWave *w, const SimInst *in) { return smem_load(w, in, n, buf); }
SLOAD(s_load_dword, 1, 0) SLOAD(s_load_dwordx2, 2, 0) SLOAD(s_load_dwordx4, 4, 0)
SLOAD(s_load_dwordx8, 8, 0) SLOAD(s_load_dwordx16, 16, 0)
SLOAD(s_buffer_load_dword, 1, 1) SLOAD(s_buffer_load_dwordx2, 2, 1) SLOAD(s_buffer_load_dwordx4, 4, 1)
SLOAD(s_buffer_load_dwordx8, 8, 1) SLOAD(s_buffer_load_dwordx16, 16, 1)
SLOAD(s_load_dwordx3, 3, 0) SLOAD(s_buffer_load_dwordx3, 3, 1)
/* GFX12 sub-dword scalar loads s_load_{u8,i8,u16,i16} sdst, sbase, offset: the
 * byte address is not rounded down; the value is zero- or sign-extended */
static int smem_load_small(SimWave *w, const SimInst *in, int bytes, int sgn)
{
	uint32_t o = in->nops > 2 ? sim_rd32(w, &in->o[2], 0) : 0;
	if (in->nops > 3) o += sim_rd32(w, &in->o[3], 0);
	if (in->present & SIM_MOD_OFFSET) o += (uint32_t)in->offset;
	uint64_t addr = sim_rd64(w, &in->o[1], 0) + (uint64_t)(int64_t)(int32_t)o;
	const uint8_t *p = sim_gptr(w, addr, (uint32_t)bytes, -1, 0);
	if (!p) return SIM_FAULT;
	uint32_t v = bytes == 1 ? (sgn ? (uint32_t)(int32_t)(int8_t)p[0] : p[0])
	                        : (sgn ? (uint32_t)(int32_t)(int16_t)(p[0] | p[1] << 8) : (uint32_t)(p[0] | p[1] << 8));
	sim_wr(w, &in->o[0], 0, 0, v);
	return SIM_NEXT;
}
int sim_op_s_load_u8(SimWave *w, const SimInst *in) { return smem_load_small(w, in, 1, 0); }
int sim_op_s_load_i8(SimWave *w, const SimInst *in) { return smem_load_small(w, in, 1, 1); }
int sim_op_s_load_u16(SimWave *w, const SimInst *in) { return smem_load_small(w, in, 2, 0); }
int sim_op_s_load_i16(SimWave *w, const SimInst *in) { return smem_load_small(w, in, 2, 1); }
/* The byte offset of an SMEM access: soffset or immediate operand, plus offset:N. */
static uint32_t smem_off(SimWave *w, const SimInst *in)
{
	uint32_t o = in->nops > 2 ? sim_rd32(w, &in->o[2], 0) : 0;
	if (in->present & SIM_MOD_OFFSET) o += (uint32_t)in->offset;
	return o;
}
/* A scalar buffer access of n bytes at byte offset o of the resource in
 * operand 1: the host pointer, or NULL with *dropped = 1 when it is out of
 * range (num_records; loads read 0, stores and atomics are dropped, as for
 * s_buffer_load), or NULL with *dropped = 0 after a violation was reported. */
static uint8_t *sbuf_ptr(SimWave *w, const SimInst *in, uint32_t o, uint32_t n, int *dropped)
{
	const SimOperand *base = &in->o[1];
	uint64_t rb = (sim_rd(w, base, 0, 0) | (uint64_t)(sim_rd(w, base, 1, 0) & 0xffff) << 32);
	uint32_t stride = (sim_rd(w, base, 1, 0) >> 16) & 0x3fff, nrec = sim_rd(w, base, 2, 0);
	uint64_t limit = stride ? (uint64_t)nrec * stride : nrec;
	*dropped = 0;
	if ((uint64_t)o + n > limit) { *dropped = 1; return NULL; }
	return sim_gptr(w, rb + o, n, -1, 1);
}
/* s_store_dword* sdata, sbase, soffset|imm and s_buffer_store_dword* sdata,
 * srsrc, ...: the address is dword-aligned (its low two bits are ignored, as
 * for the loads); buffer stores are range-checked per dword. */
static int smem_store(SimWave *w, const SimInst *in, int ndw, int buffer)
{
	uint32_t o = smem_off(w, in);
	if (!buffer) {
		uint64_t addr = sim_rd64(w, &in->o[1], 0) + (uint64_t)(int64_t)(int32_t)o;
		uint8_t *p = sim_gptr(w, addr & ~3ull, (uint32_t)ndw * 4, -1, 1);
		if (!p) return SIM_FAULT;
		for (int i = 0; i < ndw; i++) { uint32_t v = sim_rd(w, &in->o[0], i, 0); memcpy(p + 4 * i, &v, 4); }
		return SIM_NEXT;
	}
	o &= ~3u;
	for (int i = 0; i < ndw; i++) {
		int dropped;
		uint8_t *p = sbuf_ptr(w, in, o + 4u * (uint32_t)i, 4, &dropped);
		if (!p && !dropped) return SIM_FAULT;
		if (p) { uint32_t v = sim_rd(w, &in->o[0], i, 0); memcpy(p, &v, 4); }
	}
	return SIM_NEXT;
}
int sim_op_s_store_dword(SimWave *w, const SimInst *in) { return smem_store(w, in, 1, 0); }
int sim_op_s_store_dwordx2(SimWave *w, const SimInst *in) { return smem_store(w, in, 2, 0); }
int sim_op_s_store_dwordx4(SimWave *w, const SimInst *in) { return smem_store(w, in, 4, 0); }
int sim_op_s_buffer_store_dword(SimWave *w, const SimInst *in) { return smem_store(w, in, 1, 1); }
int sim_op_s_buffer_store_dwordx2(SimWave *w, const SimInst *in) { return smem_store(w, in, 2, 1); }
int sim_op_s_buffer_store_dwordx4(SimWave *w, const SimInst *in) { return smem_store(w, in, 4, 1); }

/* Scalar atomics (CDNA3 ISA, "Scalar Memory Operations"): s_atomic_OP sdata,
 * sbase, soffset|imm [offset:N] [glc] and s_buffer_atomic_OP sdata, srsrc, ...
 * One atomic of 4 bytes (8 for _x2) on the dword-aligned address; the data is
 * sdata (cmpswap: sdata[0] (or [0:1]) is the new value, the next one or two
 * registers the compare value). With glc the old value is returned into the
 * first one (two) registers of sdata. A buffer atomic outside num_records is
 * dropped and returns 0. */
static int smem_atomic(SimWave *w, const SimInst *in, int op, int wide, int buffer)
{
	const SimOperand *d = &in->o[0];
	uint32_t o = smem_off(w, in), n = wide ? 8 : 4;
	uint8_t *p;
	int dropped = 0;
	if (buffer) p = sbuf_ptr(w, in, o & ~3u, n, &dropped);
	else p = sim_gptr(w, (sim_rd64(w, &in->o[1], 0) + (uint64_t)(int64_t)(int32_t)o) & ~3ull, n, -1, 1);
	if (!p && !dropped) return SIM_FAULT;
	uint64_t v = wide ? sim_rd64(w, d, 0) : sim_rd32(w, d, 0), c = 0, old = 0;
	if (op == SIM_A_CMPSWAP) c = wide ? (sim_rd(w, d, 2, 0) | (uint64_t)sim_rd(w, d, 3, 0) << 32) : sim_rd(w, d, 1, 0);
	if (p) {
		sim_atomic_lock(w);
		old = sim_atomic_apply(p, op, wide, v, c);
		sim_atomic_unlock(w);
	}
	if (in->glc) { sim_wr(w, d, 0, 0, (uint32_t)old); if (wide) sim_wr(w, d, 1, 0, (uint32_t)(old >> 32)); }
	return SIM_NEXT;
}
#define SATOM(name, op) \
	int sim_op_s_atomic_##name(SimWave *w, const SimInst *in) { return smem_atomic(w, in, op, 0, 0); } \
	int sim_op_s_atomic_##name##_x2(SimWave *w, const SimInst *in) { return smem_atomic(w, in, op, 1, 0); } \
	int sim_op_s_buffer_atomic_##name(SimWave *w, const SimInst *in) { return smem_atomic(w, in, op, 0, 1); } \
	int sim_op_s_buffer_atomic_##name##_x2(SimWave *w, const SimInst *in) { return smem_atomic(w, in, op, 1, 1); }
SATOM(swap, SIM_A_SWAP) SATOM(cmpswap, SIM_A_CMPSWAP) SATOM(add, SIM_A_ADD) SATOM(sub, SIM_A_SUB)
SATOM(smin, SIM_A_SMIN) SATOM(umin, SIM_A_UMIN) SATOM(smax, SIM_A_SMAX) SATOM(umax, SIM_A_UMAX)
SATOM(and, SIM_A_AND) SATOM(or, SIM_A_OR) SATOM(xor, SIM_A_XOR) SATOM(inc, SIM_A_INC) SATOM(dec, SIM_A_DEC)

/* ---- GFX12 SOP2: 64-bit adds and multiply (SCC unchanged), SALU float ---- */
SOP2_64(s_add_nc_u64, a + b, KEEP)
SOP2_64(s_sub_nc_u64, a - b, KEEP)
SOP2_64(s_mul_u64, a * b, KEEP)
/* f32 operands: the 32-bit values as floats (round to nearest even, IEEE) */
#define SF2(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ float a = sim_f32(R32(S0)), b = sim_f32(R32(S1)); W32(sim_u32(expr)); return SIM_NEXT; }
SF2(s_add_f32, a + b)
SF2(s_sub_f32, a - b)
SF2(s_mul_f32, a * b)
SF2(s_max_num_f32, b != b ? a : a != a ? b : (a > b || (a == b && !signbit(a)) ? a : b))
SF2(s_min_num_f32, b != b ? a : a != a ? b : (a < b || (a == b && signbit(a)) ? a : b))
int sim_op_s_fmac_f32(SimWave *w, const SimInst *in)
{ W32(sim_u32(fmaf(sim_f32(R32(S0)), sim_f32(R32(S1)), sim_f32(R32(D))))); return SIM_NEXT; }
int sim_op_s_cvt_f32_i32(SimWave *w, const SimInst *in) { W32(sim_u32((float)(int32_t)R32(S0))); return SIM_NEXT; }
int sim_op_s_cvt_f32_u32(SimWave *w, const SimInst *in) { W32(sim_u32((float)R32(S0))); return SIM_NEXT; }
/* f32 to integer: truncate toward zero, saturate, NaN gives 0 (as v_cvt_*_f32) */
int sim_op_s_cvt_u32_f32(SimWave *w, const SimInst *in)
{ float a = sim_f32(R32(S0)); W32(a != a || a <= 0 ? 0u : a >= 4294967296.0f ? 0xffffffffu : (uint32_t)a); return SIM_NEXT; }
int sim_op_s_cvt_i32_f32(SimWave *w, const SimInst *in)
{ float a = sim_f32(R32(S0)); W32(a != a ? 0 : a >= 2147483648.0f ? 0x7fffffff : a <= -2147483648.0f ? 0x80000000u : (uint32_t)(int32_t)a); return SIM_NEXT; }
#define SF1(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) { float a = sim_f32(R32(S0)); W32(sim_u32(expr)); return SIM_NEXT; }
SF1(s_ceil_f32, ceilf(a)) SF1(s_floor_f32, floorf(a)) SF1(s_trunc_f32, truncf(a)) SF1(s_rndne_f32, rintf(a))
/* s_cmp_<cond>_f32 ssrc0, ssrc1: SCC = the comparison (ordered unless n-prefixed or u) */
#define SCMPF(cond, expr) int sim_op_s_cmp_##cond##_f32(SimWave *w, const SimInst *in) \
	{ float a = sim_f32(R32(&in->o[0])), b = sim_f32(R32(&in->o[1])); w->scc = (expr) ? 1 : 0; return SIM_NEXT; }
SCMPF(lt, a < b) SCMPF(eq, a == b) SCMPF(le, a <= b) SCMPF(gt, a > b) SCMPF(lg, a < b || a > b) SCMPF(ge, a >= b)
SCMPF(o, a == a && b == b) SCMPF(u, a != a || b != b) SCMPF(nge, !(a >= b)) SCMPF(nlg, !(a < b || a > b))
SCMPF(ngt, !(a > b)) SCMPF(nle, !(a <= b)) SCMPF(neq, !(a == b)) SCMPF(nlt, !(a < b))

/* ---- more SOP1/SOPK ---- */
int sim_op_s_flbit_i32_i64(SimWave *w, const SimInst *in)
{
	uint64_t a = R64(S0);
	int32_t r = (a == 0 || a == ~0ull) ? -1 : (int64_t)a < 0 ? __builtin_clzll(~a) : __builtin_clzll(a);
	W32(r);
	return SIM_NEXT;
}
int sim_op_s_bitreplicate_b64_b32(SimWave *w, const SimInst *in)
{
	uint32_t a = R32(S0); uint64_t r = 0;
	for (int i = 0; i < 32; i++) if ((a >> i) & 1) r |= 3ull << (2 * i);
	W64(r);
	return SIM_NEXT;
}
/* s_call_b64 sdst, simm16: sdst = return address; branch like s_branch */
int sim_op_s_call_b64(SimWave *w, const SimInst *in)
{
	W64(w->code_va + w->pc + 4);
	w->pc = w->pc + 4 + (uint64_t)((int64_t)(int16_t)(in->o[1].k32 & 0xffff) * 4);
	return SIM_JUMP;
}
int sim_op_s_dcache_inv_vol(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_dcache_wb_vol(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_s_endpgm_saved(SimWave *w, const SimInst *in) { return SIM_END; }
