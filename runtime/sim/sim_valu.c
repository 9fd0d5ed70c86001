/*
 * sim_valu.c — vector ALU: VOP1, VOP2, VOP3, VOPC and VOP3P (packed) operations
 * on 32-bit, 64-bit and 16-bit integers and floats.
 *
 * Float semantics: host IEEE-754 binary32/binary64 arithmetic with round to
 * nearest even, which is what gfx950 computes for add/sub/mul/fma/conversions
 * in the default mode (the kernel descriptor's round mode 0). Denormals are
 * kept (gfx950 kernels run with FP_DENORM = 3 for f32 and f16/f64 by LLVM
 * default); a kernel that selects flushing gets inputs and outputs of f32
 * arithmetic flushed. Transcendentals (v_rcp/v_rsq/v_sqrt/v_exp/v_log/v_sin/
 * v_cos) return the correctly rounded (or libm) value rather than the
 * hardware's approximation (documented to 1 ULP in the ISA guide), and the
 * division helpers v_div_scale/v_div_fmas/v_div_fixup are modelled so that the
 * LLVM division sequence yields the correctly rounded quotient.
 */
/* messages are cut to their buffers on purpose */
#pragma GCC diagnostic ignored "-Wformat-truncation"
/* the per-lane loops are the simulator's hot path: let GCC unswitch them on the operand kinds */
#pragma GCC optimize("O3")
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "sim/sim_int.h"

#define LANES(l) SIM_FOR_LANES(w, l)
#define O(i) (&in->o[(i)])

/* ---- float operand access with input modifiers ---- */
static inline uint32_t mod32(const SimOperand *o, uint32_t u)
{ if (o->abs) u &= 0x7fffffffu; if (o->neg) u ^= 0x80000000u; return u; }
static inline uint64_t mod64(const SimOperand *o, uint64_t u)
{ if (o->abs) u &= ~(1ull << 63); if (o->neg) u ^= 1ull << 63; return u; }
static inline uint16_t mod16(const SimOperand *o, uint16_t u)
{ if (o->abs) u &= 0x7fff; if (o->neg) u ^= 0x8000; return u; }

static inline int flush32(const SimWave *w) { return ((w->mode >> 4) & 3) != 3; }
static inline __attribute__((always_inline)) float F32(const SimWave *w, const SimOperand *o, int l)
{
	uint32_t u = mod32(o, sim_rd32(w, o, l));
	if (((u >> 23) & 0xff) == 0 && flush32(w)) u &= 0x80000000u;
	return sim_f32(u);
}
static inline __attribute__((always_inline)) double F64(const SimWave *w, const SimOperand *o, int l) { return sim_f64(mod64(o, sim_rdf64bits(w, o, l))); }
/* 16-bit source: half sel of the 32-bit value (constants: their f16 form) */
static inline __attribute__((always_inline)) uint16_t H16(const SimWave *w, const SimOperand *o, int l, int hi)
{
	if (o->kind == SIM_OPK_CONST) return hi ? 0 : o->kf16;
	uint32_t v = sim_rd32(w, o, l);
	return (uint16_t)(hi ? v >> 16 : v);
}
static inline float FH(const SimWave *w, const SimOperand *o, int l, int hi) { return sim_f16_to_f32(mod16(o, H16(w, o, l, hi))); }
static inline uint16_t I16(const SimWave *w, const SimOperand *o, int l, int hi)
{
	if (o->kind == SIM_OPK_CONST) return hi ? 0 : (uint16_t)o->k32;
	uint32_t v = sim_rd32(w, o, l);
	return (uint16_t)(hi ? v >> 16 : v);
}

static inline float omod32(const SimInst *in, float f)
{
	switch (in->omod) { case 1: f *= 2.0f; break; case 2: f *= 4.0f; break; case 3: f *= 0.5f; break; default: break; }
	if (in->clamp) { if (f != f) f = 0.0f; else if (f < 0.0f) f = 0.0f; else if (f > 1.0f) f = 1.0f; }
	return f;
}
static inline double omod64(const SimInst *in, double f)
{
	switch (in->omod) { case 1: f *= 2.0; break; case 2: f *= 4.0; break; case 3: f *= 0.5; break; default: break; }
	if (in->clamp) { if (f != f) f = 0.0; else if (f < 0.0) f = 0.0; else if (f > 1.0) f = 1.0; }
	return f;
}
static inline __attribute__((always_inline)) void WF32(SimWave *w, const SimInst *in, int l, float f)
{
	f = omod32(in, f);
	uint32_t u = sim_u32(f);
	if (((u >> 23) & 0xff) == 0 && flush32(w)) u &= 0x80000000u;
	sim_wr(w, O(0), 0, l, u);
}
static inline void WF64(SimWave *w, const SimInst *in, int l, double f) { sim_wr64(w, O(0), l, sim_u64(omod64(in, f))); }
/* 16-bit result: op_sel dst bit (index nsrc of op_sel) picks the high half (low half kept);
 * otherwise the low half is written and the high half cleared. */
static inline void W16(SimWave *w, const SimInst *in, int l, int nsrc, uint16_t v)
{
	const SimOperand *d = O(0);
	if ((in->op_sel >> nsrc) & 1) sim_wr(w, d, 0, l, (sim_rd32(w, d, l) & 0xffff) | (uint32_t)v << 16);
	else sim_wr(w, d, 0, l, v);
}
static inline void WH(SimWave *w, const SimInst *in, int l, int nsrc, float f) { W16(w, in, l, nsrc, sim_f32_to_f16(omod32(in, f))); }
#define SEL(i) ((in->op_sel >> (i)) & 1)

/* ---- VOP1 / generic moves ---- */
int sim_op_v_mov_b32(SimWave *w, const SimInst *in)
{
	LANES(l) sim_wr(w, O(0), 0, l, mod32(O(1), sim_rd32(w, O(1), l)));
	return SIM_NEXT;
}
int sim_op_v_mov_b64(SimWave *w, const SimInst *in) { LANES(l) sim_wr64(w, O(0), l, sim_rd64(w, O(1), l)); return SIM_NEXT; }
int sim_op_v_accvgpr_write_b32(SimWave *w, const SimInst *in) { return sim_op_v_mov_b32(w, in); }
int sim_op_v_accvgpr_read_b32(SimWave *w, const SimInst *in) { return sim_op_v_mov_b32(w, in); }
int sim_op_v_accvgpr_mov_b32(SimWave *w, const SimInst *in) { return sim_op_v_mov_b32(w, in); }
int sim_op_v_nop(SimWave *w, const SimInst *in) { return SIM_NEXT; }
int sim_op_v_swap_b32(SimWave *w, const SimInst *in)
{
	LANES(l) { uint32_t a = sim_rd32(w, O(0), l), b = sim_rd32(w, O(1), l); sim_wr(w, O(0), 0, l, b); sim_wr(w, O(1), 0, l, a); }
	return SIM_NEXT;
}
int sim_op_v_readfirstlane_b32(SimWave *w, const SimInst *in)
{
	uint64_t e = sim_exec(w);
	int l = e ? __builtin_ctzll(e) : 0;
	sim_wr(w, O(0), 0, 0, sim_rd32(w, O(1), l));
	return SIM_NEXT;
}
/* the lane select is taken modulo the wave size (bits 4:0 in wave32; LLVM's
 * AMDGPU combines drop an `and` of it with wavesize-1 on that ground) */
int sim_op_v_readlane_b32(SimWave *w, const SimInst *in)
{
	int l = (int)(sim_rd32(w, O(2), 0) & (uint32_t)(w->lanes - 1));
	sim_wr(w, O(0), 0, 0, sim_rd32(w, O(1), l));
	return SIM_NEXT;
}
int sim_op_v_writelane_b32(SimWave *w, const SimInst *in)
{
	int l = (int)(sim_rd32(w, O(2), 0) & (uint32_t)(w->lanes - 1));
	sim_wr(w, O(0), 0, l, sim_rd32(w, O(1), 0));
	return SIM_NEXT;
}

/* ---- 32-bit integer ---- */
#define VI2(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l); (void)a; (void)b; \
	  sim_wr(w, O(0), 0, l, (uint32_t)(expr)); } return SIM_NEXT; }
#define VI1(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l); (void)a; sim_wr(w, O(0), 0, l, (uint32_t)(expr)); } return SIM_NEXT; }
#define VI3(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l), c = sim_rd32(w, O(3), l); \
	  (void)a; (void)b; (void)c; sim_wr(w, O(0), 0, l, (uint32_t)(expr)); } return SIM_NEXT; }

static inline uint32_t addsat(uint64_t r, const SimInst *in) { return in->clamp && r > 0xffffffffu ? 0xffffffffu : (uint32_t)r; }
VI2(v_add_u32, addsat((uint64_t)a + b, in))
VI2(v_sub_u32, in->clamp && b > a ? 0 : a - b)
VI2(v_subrev_u32, in->clamp && a > b ? 0 : b - a)
VI2(v_and_b32, a & b) VI2(v_or_b32, a | b) VI2(v_xor_b32, a ^ b) VI2(v_xnor_b32, ~(a ^ b))
VI2(v_lshlrev_b32, b << (a & 31)) VI2(v_lshrrev_b32, b >> (a & 31))
VI2(v_ashrrev_i32, (uint32_t)((int32_t)b >> (a & 31)))
VI2(v_min_i32, (int32_t)a < (int32_t)b ? a : b) VI2(v_max_i32, (int32_t)a > (int32_t)b ? a : b)
VI2(v_min_u32, a < b ? a : b) VI2(v_max_u32, a > b ? a : b)
static inline int32_t s24(uint32_t a) { return (int32_t)(a << 8) >> 8; }
VI2(v_mul_i32_i24, (uint32_t)(s24(a) * s24(b)))
VI2(v_mul_hi_i32_i24, (uint32_t)(((int64_t)s24(a) * s24(b)) >> 32))
VI2(v_mul_u32_u24, (a & 0xffffff) * (b & 0xffffff))
VI2(v_mul_hi_u32_u24, ((uint64_t)(a & 0xffffff) * (b & 0xffffff)) >> 32)
VI2(v_mul_lo_u32, a * b)
VI2(v_mul_hi_u32, ((uint64_t)a * b) >> 32)
VI2(v_mul_hi_i32, (uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32)
VI2(v_bcnt_u32_b32, (uint32_t)__builtin_popcount(a) + b)
VI2(v_bfm_b32, ((1u << (a & 31)) - 1) << (b & 31))
VI2(v_mbcnt_lo_u32_b32, (uint32_t)__builtin_popcount(a & (uint32_t)((1ull << (l < 32 ? l : 32)) - 1)) + b)
VI2(v_mbcnt_hi_u32_b32, (uint32_t)__builtin_popcount(a & (uint32_t)(l <= 32 ? 0 : ((1ull << (l - 32)) - 1))) + b)
VI1(v_not_b32, ~a)
static uint32_t brev(uint32_t a) { uint32_t r = 0; for (int i = 0; i < 32; i++) r |= ((a >> i) & 1) << (31 - i); return r; }
VI1(v_bfrev_b32, brev(a))
VI1(v_ffbh_u32, a ? (uint32_t)__builtin_clz(a) : 0xffffffffu)
VI1(v_ffbl_b32, a ? (uint32_t)__builtin_ctz(a) : 0xffffffffu)
VI1(v_ffbh_i32, (a == 0 || a == 0xffffffffu) ? 0xffffffffu : (uint32_t)((int32_t)a < 0 ? __builtin_clz(~a) : __builtin_clz(a)))
VI1(v_cvt_f32_ubyte0, sim_u32((float)(a & 0xff)))
VI1(v_cvt_f32_ubyte1, sim_u32((float)((a >> 8) & 0xff)))
VI1(v_cvt_f32_ubyte2, sim_u32((float)((a >> 16) & 0xff)))
VI1(v_cvt_f32_ubyte3, sim_u32((float)(a >> 24)))
static uint32_t ubfe(uint32_t a, uint32_t off, uint32_t wd)
{ off &= 31; wd &= 31; if (!wd) return 0; return (a >> off) & (wd + off >= 32 ? (0xffffffffu >> off) : ((1u << wd) - 1)); }
static uint32_t sbfe(uint32_t a, uint32_t off, uint32_t wd)
{ off &= 31; wd &= 31; if (!wd) return 0; if (off + wd > 32) wd = 32 - off; uint32_t v = (a >> off) & (wd == 32 ? ~0u : ((1u << wd) - 1));
  if ((v >> (wd - 1)) & 1) v |= wd == 32 ? 0 : ~((1u << wd) - 1);
  return v; }
VI3(v_bfe_u32, ubfe(a, b, c))
VI3(v_bfe_i32, sbfe(a, b, c))
VI3(v_bfi_b32, (a & b) | (~a & c))
VI3(v_alignbit_b32, (uint32_t)((((uint64_t)a << 32) | b) >> (c & 31)))
VI3(v_alignbyte_b32, (uint32_t)((((uint64_t)a << 32) | b) >> (8 * (c & 3))))
VI3(v_mad_u32_u24, (a & 0xffffff) * (b & 0xffffff) + c)
VI3(v_mad_i32_i24, (uint32_t)(s24(a) * s24(b)) + c)
VI3(v_add3_u32, a + b + c)
VI3(v_lshl_add_u32, (a << (b & 31)) + c)
VI3(v_add_lshl_u32, (a + b) << (c & 31))
VI3(v_lshl_or_b32, (a << (b & 31)) | c)
VI3(v_and_or_b32, (a & b) | c)
VI3(v_or3_b32, a | b | c)
VI3(v_xad_u32, (a ^ b) + c)
static int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }
VI3(v_min3_i32, imin(imin((int32_t)a, (int32_t)b), (int32_t)c))
VI3(v_max3_i32, imax(imax((int32_t)a, (int32_t)b), (int32_t)c))
VI3(v_min3_u32, a < b ? (a < c ? a : c) : (b < c ? b : c))
VI3(v_max3_u32, a > b ? (a > c ? a : c) : (b > c ? b : c))
VI3(v_med3_i32, imax(imin((int32_t)a, (int32_t)b), imin(imax((int32_t)a, (int32_t)b), (int32_t)c)))
VI3(v_med3_u32, (a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b))))
static uint32_t perm_byte(uint64_t v, uint32_t s)
{
	s &= 0xff;
	if (s < 8) return (uint32_t)(v >> (8 * s)) & 0xff;
	if (s < 12) { int bit = (int)(s - 8) * 16 + 15; return ((v >> bit) & 1) ? 0xff : 0; }
	return s == 12 ? 0 : 0xff;
}
static uint32_t vperm(uint32_t a, uint32_t b, uint32_t c)
{
	uint64_t v = (uint64_t)a << 32 | b; uint32_t r = 0;
	for (int i = 0; i < 4; i++) r |= perm_byte(v, c >> (8 * i)) << (8 * i);
	return r;
}
VI3(v_perm_b32, vperm(a, b, c))
static uint32_t bitop3(uint32_t a, uint32_t b, uint32_t c, uint32_t t)
{
	uint32_t r = 0;
	for (int i = 0; i < 32; i++) { int k = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1); r |= ((t >> k) & 1) << i; }
	return r;
}
int sim_op_v_bitop3_b32(SimWave *w, const SimInst *in)
{
	uint32_t t = in->imm;
	LANES(l) sim_wr(w, O(0), 0, l, bitop3(sim_rd32(w, O(1), l), sim_rd32(w, O(2), l), sim_rd32(w, O(3), l), t));
	return SIM_NEXT;
}
static uint32_t sad_u8(uint32_t a, uint32_t b)
{ uint32_t s = 0; for (int i = 0; i < 32; i += 8) { int x = (int)((a >> i) & 0xff) - (int)((b >> i) & 0xff); s += (uint32_t)(x < 0 ? -x : x); } return s; }
VI3(v_sad_u8, sad_u8(a, b) + c)
VI3(v_sad_u32, (a > b ? a - b : b - a) + c)
VI3(v_sad_u16, (uint32_t)abs((int)(a & 0xffff) - (int)(b & 0xffff)) + (uint32_t)abs((int)(a >> 16) - (int)(b >> 16)) + c)
VI3(v_msad_u8, sad_u8(a, b) + c)

/* carry-out forms: v_add_co_u32 vD, sD, a, b */
#define VCARRY(name, expr, cin) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ uint64_t m = 0; LANES(l) { uint64_t a = sim_rd32(w, O(2), l), b = sim_rd32(w, O(3), l); \
	  uint64_t c = cin ? (sim_rd64(w, O(4), 0) >> l) & 1 : 0; (void)c; uint64_t r = (expr); \
	  sim_wr(w, O(0), 0, l, (uint32_t)r); if ((r >> 32) & 1) m |= 1ull << l; } \
	  sim_wr64(w, O(1), 0, m); return SIM_NEXT; }
VCARRY(v_add_co_u32, a + b, 0)
VCARRY(v_sub_co_u32, a - b, 0)
VCARRY(v_subrev_co_u32, b - a, 0)
VCARRY(v_addc_co_u32, a + b + c, 1)
VCARRY(v_subb_co_u32, a - b - c, 1)
VCARRY(v_subbrev_co_u32, b - a - c, 1)
int sim_op_v_cndmask_b32(SimWave *w, const SimInst *in)
{
	uint64_t m = sim_rd64(w, O(3), 0);
	if (in->o[3].kind == SIM_OPK_CONST) m = in->o[3].k64;
	LANES(l) {
		const SimOperand *s = ((m >> l) & 1) ? O(2) : O(1);
		sim_wr(w, O(0), 0, l, mod32(s, sim_rd32(w, s, l)));
	}
	return SIM_NEXT;
}

/* ---- 64-bit integer ---- */
int sim_op_v_lshlrev_b64(SimWave *w, const SimInst *in) { LANES(l) sim_wr64(w, O(0), l, sim_rd64(w, O(2), l) << (sim_rd32(w, O(1), l) & 63)); return SIM_NEXT; }
int sim_op_v_lshrrev_b64(SimWave *w, const SimInst *in) { LANES(l) sim_wr64(w, O(0), l, sim_rd64(w, O(2), l) >> (sim_rd32(w, O(1), l) & 63)); return SIM_NEXT; }
int sim_op_v_ashrrev_i64(SimWave *w, const SimInst *in) { LANES(l) sim_wr64(w, O(0), l, (uint64_t)((int64_t)sim_rd64(w, O(2), l) >> (sim_rd32(w, O(1), l) & 63))); return SIM_NEXT; }
int sim_op_v_lshl_add_u64(SimWave *w, const SimInst *in)
{ LANES(l) sim_wr64(w, O(0), l, (sim_rd64(w, O(1), l) << (sim_rd32(w, O(2), l) & 63)) + sim_rd64(w, O(3), l)); return SIM_NEXT; }
int sim_op_v_mad_u64_u32(SimWave *w, const SimInst *in)
{
	uint64_t m = 0;
	LANES(l) {
		unsigned __int128 r = (unsigned __int128)((uint64_t)sim_rd32(w, O(2), l) * sim_rd32(w, O(3), l)) + sim_rd64(w, O(4), l);
		sim_wr64(w, O(0), l, (uint64_t)r);
		if ((uint64_t)(r >> 64)) m |= 1ull << l;
	}
	sim_wr64(w, O(1), 0, m);
	return SIM_NEXT;
}
int sim_op_v_mad_i64_i32(SimWave *w, const SimInst *in)
{
	uint64_t m = 0;
	LANES(l) {
		__int128 r = (__int128)((int64_t)(int32_t)sim_rd32(w, O(2), l) * (int32_t)sim_rd32(w, O(3), l)) + (int64_t)sim_rd64(w, O(4), l);
		sim_wr64(w, O(0), l, (uint64_t)r);
		if (r != (__int128)(int64_t)r) m |= 1ull << l;
	}
	sim_wr64(w, O(1), 0, m);
	return SIM_NEXT;
}

/* ---- f32 ---- */
#define VF2(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { float a = F32(w, O(1), l), b = F32(w, O(2), l); (void)b; WF32(w, in, l, (expr)); } return SIM_NEXT; }
#define VF1(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { float a = F32(w, O(1), l); WF32(w, in, l, (expr)); } return SIM_NEXT; }
#define VF3(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { float a = F32(w, O(1), l), b = F32(w, O(2), l), c = F32(w, O(3), l); WF32(w, in, l, (expr)); } return SIM_NEXT; }
static inline float qnan32(float a) { return sim_f32(sim_u32(a) | 0x400000u); }
/* IEEE-mode minNum/maxNum: a signalling NaN input gives a quiet NaN */
static inline float fmin32(float a, float b)
{ if (a != a) return (sim_u32(a) & 0x400000u) ? b : qnan32(a); if (b != b) return (sim_u32(b) & 0x400000u) ? a : qnan32(b);
  if (a == b) return (sim_u32(a) & 0x80000000u) ? a : b;
  return a < b ? a : b; }
static inline float fmax32(float a, float b)
{ if (a != a) return (sim_u32(a) & 0x400000u) ? b : qnan32(a); if (b != b) return (sim_u32(b) & 0x400000u) ? a : qnan32(b);
  if (a == b) return (sim_u32(a) & 0x80000000u) ? b : a;
  return a > b ? a : b; }
static inline float legacy_mul(float a, float b) { return (a == 0.0f || b == 0.0f) ? 0.0f : a * b; }
VF2(v_add_f32, a + b) VF2(v_sub_f32, a - b) VF2(v_subrev_f32, b - a) VF2(v_mul_f32, a * b)
VF2(v_mul_legacy_f32, legacy_mul(a, b))
VF2(v_min_f32, fmin32(a, b)) VF2(v_max_f32, fmax32(a, b))
VF2(v_ldexp_f32, ldexpf(a, (int32_t)sim_rd32(w, O(2), l)))
VF3(v_fma_f32, fmaf(a, b, c))
VF3(v_mad_f32, (float)(a * b) + c)
VF3(v_mad_legacy_f32, legacy_mul(a, b) + c)
VF3(v_fma_legacy_f32, (a == 0.0f || b == 0.0f) ? c + 0.0f : fmaf(a, b, c))
VF3(v_min3_f32, fmin32(fmin32(a, b), c)) VF3(v_max3_f32, fmax32(fmax32(a, b), c))
static float med3f(float a, float b, float c)
{ if (a != a || b != b || c != c) return fmin32(fmin32(a, b), c); return fmax32(fmin32(a, b), fmin32(fmax32(a, b), c)); }
VF3(v_med3_f32, med3f(a, b, c))
/* VOP2 accumulate forms: D = S0 * S1 + D */
int sim_op_v_fmac_f32(SimWave *w, const SimInst *in)
{ LANES(l) { float a = F32(w, O(1), l), b = F32(w, O(2), l), c = sim_f32(sim_rd32(w, O(0), l)); WF32(w, in, l, fmaf(a, b, c)); } return SIM_NEXT; }
int sim_op_v_mac_f32(SimWave *w, const SimInst *in)
{ LANES(l) { float a = F32(w, O(1), l), b = F32(w, O(2), l), c = sim_f32(sim_rd32(w, O(0), l)); WF32(w, in, l, a * b + c); } return SIM_NEXT; }
/* v_madmk_f32 d, s0, K, s1: s0*K+s1 ; v_madak_f32 d, s0, s1, K: s0*s1+K */
VF3(v_madmk_f32, a * b + c) VF3(v_madak_f32, a * b + c)
VF3(v_fmamk_f32, fmaf(a, b, c)) VF3(v_fmaak_f32, fmaf(a, b, c))
VF1(v_rcp_f32, 1.0f / a) VF1(v_rcp_iflag_f32, 1.0f / a)
VF1(v_rsq_f32, (float)(1.0 / sqrt((double)a)))
VF1(v_sqrt_f32, sqrtf(a))
VF1(v_exp_f32, exp2f(a)) VF1(v_log_f32, log2f(a))
VF1(v_exp_legacy_f32, exp2f(a)) VF1(v_log_legacy_f32, a == 0.0f ? -INFINITY : log2f(a))
VF1(v_sin_f32, (float)sin((double)a * 6.283185307179586))
VF1(v_cos_f32, (float)cos((double)a * 6.283185307179586))
VF1(v_fract_f32, isinf(a) ? NAN : fminf(a - floorf(a), 0x1.fffffep-1f))
VF1(v_trunc_f32, truncf(a)) VF1(v_ceil_f32, ceilf(a)) VF1(v_floor_f32, floorf(a)) VF1(v_rndne_f32, rintf(a))
VF1(v_frexp_mant_f32, (isinf(a) || a != a) ? a : frexpf(a, &(int){ 0 }))
int sim_op_v_frexp_exp_i32_f32(SimWave *w, const SimInst *in)
{ LANES(l) { float a = F32(w, O(1), l); int e = 0; if (!isinf(a) && a == a) frexpf(a, &e); sim_wr(w, O(0), 0, l, (uint32_t)e); } return SIM_NEXT; }
/* classification of the original width (denormal status depends on it) */
static int cls32(uint32_t u, uint32_t mask)
{
	uint32_t e = (u >> 23) & 0xff, m = u & 0x7fffff; int neg = u >> 31, b;
	if (e == 0xff) b = m ? ((m & 0x400000) ? 1 : 0) : (neg ? 2 : 9);
	else if (e == 0) b = m ? (neg ? 4 : 7) : (neg ? 5 : 6);
	else b = neg ? 3 : 8;
	return (mask >> b) & 1;
}
static int cls64(uint64_t u, uint32_t mask)
{
	uint64_t e = (u >> 52) & 0x7ff, m = u & 0xfffffffffffffull; int neg = (int)(u >> 63), b;
	if (e == 0x7ff) b = m ? ((m >> 51) & 1 ? 1 : 0) : (neg ? 2 : 9);
	else if (e == 0) b = m ? (neg ? 4 : 7) : (neg ? 5 : 6);
	else b = neg ? 3 : 8;
	return (mask >> b) & 1;
}
static int cls16(uint16_t u, uint32_t mask)
{
	uint32_t e = (u >> 10) & 0x1f, m = u & 0x3ff; int neg = u >> 15, b;
	if (e == 0x1f) b = m ? ((m & 0x200) ? 1 : 0) : (neg ? 2 : 9);
	else if (e == 0) b = m ? (neg ? 4 : 7) : (neg ? 5 : 6);
	else b = neg ? 3 : 8;
	return (mask >> b) & 1;
}

/* conversions */
static int32_t f2i(double a) { if (a != a) return 0; if (a >= 2147483647.0) return INT32_MAX; if (a <= -2147483648.0) return INT32_MIN; return (int32_t)a; }
static uint32_t f2u(double a) { if (a != a || a <= 0) return 0; if (a >= 4294967295.0) return UINT32_MAX; return (uint32_t)a; }
int sim_op_v_cvt_f32_i32(SimWave *w, const SimInst *in) { LANES(l) WF32(w, in, l, (float)(int32_t)sim_rd32(w, O(1), l)); return SIM_NEXT; }
int sim_op_v_cvt_f32_u32(SimWave *w, const SimInst *in) { LANES(l) WF32(w, in, l, (float)sim_rd32(w, O(1), l)); return SIM_NEXT; }
VI1(v_cvt_i32_f32, (uint32_t)f2i((double)F32(w, O(1), l)))
VI1(v_cvt_u32_f32, f2u((double)F32(w, O(1), l)))
VI1(v_cvt_rpi_i32_f32, (uint32_t)f2i(floor((double)F32(w, O(1), l) + 0.5)))
VI1(v_cvt_flr_i32_f32, (uint32_t)f2i(floor((double)F32(w, O(1), l))))
VI1(v_cvt_i32_f64, (uint32_t)f2i(F64(w, O(1), l)))
VI1(v_cvt_u32_f64, f2u(F64(w, O(1), l)))
int sim_op_v_cvt_f64_i32(SimWave *w, const SimInst *in) { LANES(l) WF64(w, in, l, (double)(int32_t)sim_rd32(w, O(1), l)); return SIM_NEXT; }
int sim_op_v_cvt_f64_u32(SimWave *w, const SimInst *in) { LANES(l) WF64(w, in, l, (double)sim_rd32(w, O(1), l)); return SIM_NEXT; }
int sim_op_v_cvt_f32_f64(SimWave *w, const SimInst *in) { LANES(l) WF32(w, in, l, (float)F64(w, O(1), l)); return SIM_NEXT; }
int sim_op_v_cvt_f64_f32(SimWave *w, const SimInst *in) { LANES(l) WF64(w, in, l, (double)F32(w, O(1), l)); return SIM_NEXT; }
int sim_op_v_cvt_f32_f16(SimWave *w, const SimInst *in) { LANES(l) WF32(w, in, l, FH(w, O(1), l, SEL(0))); return SIM_NEXT; }
int sim_op_v_cvt_f16_f32(SimWave *w, const SimInst *in) { LANES(l) WH(w, in, l, 1, F32(w, O(1), l)); return SIM_NEXT; }
int sim_op_v_cvt_f32_bf16(SimWave *w, const SimInst *in)
{ LANES(l) { uint16_t h = I16(w, O(1), l, SEL(0)); if (in->o[1].kind == SIM_OPK_CONST) h = in->o[1].kbf16; WF32(w, in, l, sim_bf16_to_f32(mod16(O(1), h))); } return SIM_NEXT; }
int sim_op_v_cvt_pkrtz_f16_f32(SimWave *w, const SimInst *in)
{
	LANES(l) {
		float a = F32(w, O(1), l), b = F32(w, O(2), l);
		/* round toward zero: truncate the f32 -> f16 conversion */
		uint16_t ha = sim_f32_to_f16(a), hb = sim_f32_to_f16(b);
		if (fabsf(sim_f16_to_f32(ha)) > fabsf(a) && !isinf(a)) ha--;
		if (fabsf(sim_f16_to_f32(hb)) > fabsf(b) && !isinf(b)) hb--;
		sim_wr(w, O(0), 0, l, ha | (uint32_t)hb << 16);
	}
	return SIM_NEXT;
}
int sim_op_v_cvt_pk_f16_f32(SimWave *w, const SimInst *in)
{ LANES(l) sim_wr(w, O(0), 0, l, sim_f32_to_f16(F32(w, O(1), l)) | (uint32_t)sim_f32_to_f16(F32(w, O(2), l)) << 16); return SIM_NEXT; }
int sim_op_v_cvt_pk_bf16_f32(SimWave *w, const SimInst *in)
{ LANES(l) sim_wr(w, O(0), 0, l, sim_f32_to_bf16(F32(w, O(1), l)) | (uint32_t)sim_f32_to_bf16(F32(w, O(2), l)) << 16); return SIM_NEXT; }
VI2(v_cvt_pk_u16_u32, (a > 0xffff ? 0xffff : a) | (b > 0xffff ? 0xffffu : b) << 16)
static uint32_t sat16(int32_t v) { return (uint16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v); }
VI2(v_cvt_pk_i16_i32, sat16((int32_t)a) | sat16((int32_t)b) << 16)
VI2(v_pack_b32_f16, (uint32_t)mod16(O(1), (uint16_t)(SEL(0) ? a >> 16 : a)) | (uint32_t)mod16(O(2), (uint16_t)(SEL(1) ? b >> 16 : b)) << 16)
static uint32_t u8sat(float f) { if (f != f || f <= 0) return 0; if (f >= 255) return 255; return (uint32_t)rintf(f); }
VI3(v_cvt_pk_u8_f32, (c & ~(0xffu << (8 * (b & 3)))) | u8sat(F32(w, O(1), l)) << (8 * (b & 3)))
VI1(v_cvt_u16_f16, (uint32_t)(uint16_t)(FH(w, O(1), l, SEL(0)) != FH(w, O(1), l, SEL(0)) ? 0 : FH(w, O(1), l, SEL(0)) <= 0 ? 0 : FH(w, O(1), l, SEL(0)) >= 65535 ? 65535 : (uint32_t)FH(w, O(1), l, SEL(0))))
VI1(v_cvt_i16_f16, (uint32_t)sat16(f2i((double)FH(w, O(1), l, SEL(0)))))   /* saturates to the i16 range */
int sim_op_v_cvt_f16_u16(SimWave *w, const SimInst *in) { LANES(l) WH(w, in, l, 1, (float)I16(w, O(1), l, SEL(0))); return SIM_NEXT; }
int sim_op_v_cvt_f16_i16(SimWave *w, const SimInst *in) { LANES(l) WH(w, in, l, 1, (float)(int16_t)I16(w, O(1), l, SEL(0))); return SIM_NEXT; }

/* div helpers: see the header comment */
int sim_op_v_div_scale_f32(SimWave *w, const SimInst *in)
{ LANES(l) sim_wr(w, O(0), 0, l, sim_u32(F32(w, O(2), l))); sim_wr64(w, O(1), 0, 0); return SIM_NEXT; }
int sim_op_v_div_scale_f64(SimWave *w, const SimInst *in)
{ LANES(l) sim_wr64(w, O(0), l, sim_u64(F64(w, O(2), l))); sim_wr64(w, O(1), 0, 0); return SIM_NEXT; }
int sim_op_v_div_fmas_f32(SimWave *w, const SimInst *in)
{ LANES(l) WF32(w, in, l, fmaf(F32(w, O(1), l), F32(w, O(2), l), F32(w, O(3), l))); return SIM_NEXT; }
int sim_op_v_div_fmas_f64(SimWave *w, const SimInst *in)
{ LANES(l) WF64(w, in, l, fma(F64(w, O(1), l), F64(w, O(2), l), F64(w, O(3), l))); return SIM_NEXT; }
/* v_div_fixup(q, den, num): the exact IEEE quotient num/den */
int sim_op_v_div_fixup_f32(SimWave *w, const SimInst *in)
{ LANES(l) WF32(w, in, l, F32(w, O(3), l) / F32(w, O(2), l)); return SIM_NEXT; }
int sim_op_v_div_fixup_f64(SimWave *w, const SimInst *in)
{ LANES(l) WF64(w, in, l, F64(w, O(3), l) / F64(w, O(2), l)); return SIM_NEXT; }
int sim_op_v_div_fixup_f16(SimWave *w, const SimInst *in)
{ LANES(l) WH(w, in, l, 3, FH(w, O(3), l, SEL(2)) / FH(w, O(2), l, SEL(1))); return SIM_NEXT; }

/* ---- f64 ---- */
#define VD2(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { double a = F64(w, O(1), l), b = F64(w, O(2), l); WF64(w, in, l, (expr)); } return SIM_NEXT; }
#define VD1(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { double a = F64(w, O(1), l); WF64(w, in, l, (expr)); } return SIM_NEXT; }
static inline double qnan64(double a) { return sim_f64(sim_u64(a) | (1ull << 51)); }
static inline double fmin64(double a, double b)
{ if (a != a) return (sim_u64(a) >> 51 & 1) ? b : qnan64(a); if (b != b) return (sim_u64(b) >> 51 & 1) ? a : qnan64(b);
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b; }
static inline double fmax64(double a, double b)
{ if (a != a) return (sim_u64(a) >> 51 & 1) ? b : qnan64(a); if (b != b) return (sim_u64(b) >> 51 & 1) ? a : qnan64(b);
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b; }
VD2(v_add_f64, a + b) VD2(v_mul_f64, a * b) VD2(v_min_f64, fmin64(a, b)) VD2(v_max_f64, fmax64(a, b))
int sim_op_v_ldexp_f64(SimWave *w, const SimInst *in) { LANES(l) WF64(w, in, l, ldexp(F64(w, O(1), l), (int32_t)sim_rd32(w, O(2), l))); return SIM_NEXT; }
int sim_op_v_fma_f64(SimWave *w, const SimInst *in) { LANES(l) WF64(w, in, l, fma(F64(w, O(1), l), F64(w, O(2), l), F64(w, O(3), l))); return SIM_NEXT; }
int sim_op_v_fmac_f64(SimWave *w, const SimInst *in)
{ LANES(l) WF64(w, in, l, fma(F64(w, O(1), l), F64(w, O(2), l), sim_f64(sim_rd64(w, O(0), l)))); return SIM_NEXT; }
VD1(v_rcp_f64, 1.0 / a) VD1(v_rsq_f64, 1.0 / sqrt(a)) VD1(v_sqrt_f64, sqrt(a))
VD1(v_trunc_f64, trunc(a)) VD1(v_ceil_f64, ceil(a)) VD1(v_floor_f64, floor(a)) VD1(v_rndne_f64, rint(a))
VD1(v_fract_f64, isinf(a) ? NAN : fmin(a - floor(a), 0x1.fffffffffffffp-1))
VD1(v_frexp_mant_f64, (isinf(a) || a != a) ? a : frexp(a, &(int){ 0 }))
int sim_op_v_frexp_exp_i32_f64(SimWave *w, const SimInst *in)
{ LANES(l) { double a = F64(w, O(1), l); int e = 0; if (!isinf(a) && a == a) frexp(a, &e); sim_wr(w, O(0), 0, l, (uint32_t)e); } return SIM_NEXT; }
/* v_trig_preop_f64: 53-bit segment of 2/pi, scaled (used by sin/cos range reduction) */
static const uint32_t two_over_pi[] = { /* 1200 bits of 2/pi (public constant) */
	0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
	0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
	0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
	0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
	0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08 };
static double trig_preop(double a, uint32_t seg)
{
	int e = ((int)((sim_u64(a) >> 52) & 0x7ff)) - 1077;
	int shift = (int)(seg & 31) * 53 + (e > 0 ? e : 0);
	/* take 53 bits starting at bit `shift` of 2/pi */
	uint64_t m = 0;
	for (int i = 0; i < 53; i++) {
		int bit = shift + i, word = bit / 32;
		uint32_t v = word < (int)(sizeof two_over_pi / 4) ? two_over_pi[word] : 0;
		m = m << 1 | ((v >> (31 - bit % 32)) & 1);
	}
	return ldexp((double)m, -(shift + 53));
}
int sim_op_v_trig_preop_f64(SimWave *w, const SimInst *in)
{ LANES(l) WF64(w, in, l, trig_preop(F64(w, O(1), l), sim_rd32(w, O(2), l))); return SIM_NEXT; }

/* ---- f16 (VOP1/VOP2/VOP3, op_sel) ---- */
#define VH2(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { float a = FH(w, O(1), l, SEL(0)), b = FH(w, O(2), l, SEL(1)); (void)b; WH(w, in, l, 2, (expr)); } return SIM_NEXT; }
#define VH1(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { float a = FH(w, O(1), l, SEL(0)); WH(w, in, l, 1, (expr)); } return SIM_NEXT; }
#define VH3(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { float a = FH(w, O(1), l, SEL(0)), b = FH(w, O(2), l, SEL(1)), c = FH(w, O(3), l, SEL(2)); WH(w, in, l, 3, (expr)); } return SIM_NEXT; }
VH2(v_add_f16, a + b) VH2(v_sub_f16, a - b) VH2(v_subrev_f16, b - a) VH2(v_mul_f16, a * b)
VH2(v_min_f16, fmin32(a, b)) VH2(v_max_f16, fmax32(a, b))
VH2(v_ldexp_f16, ldexpf(a, (int16_t)I16(w, O(2), l, SEL(1))))
VH3(v_fma_f16, (float)fma((double)a, (double)b, (double)c))
VH3(v_mad_f16, sim_f16_to_f32(sim_f32_to_f16(a * b)) + c)
VH3(v_min3_f16, fmin32(fmin32(a, b), c)) VH3(v_max3_f16, fmax32(fmax32(a, b), c)) VH3(v_med3_f16, med3f(a, b, c))
int sim_op_v_fmac_f16(SimWave *w, const SimInst *in)
{ LANES(l) WH(w, in, l, 2, (float)fma((double)FH(w, O(1), l, 0), (double)FH(w, O(2), l, 0), (double)sim_f16_to_f32((uint16_t)sim_rd32(w, O(0), l)))); return SIM_NEXT; }
int sim_op_v_mac_f16(SimWave *w, const SimInst *in)
{ LANES(l) WH(w, in, l, 2, sim_f16_to_f32(sim_f32_to_f16(FH(w, O(1), l, 0) * FH(w, O(2), l, 0))) + sim_f16_to_f32((uint16_t)sim_rd32(w, O(0), l))); return SIM_NEXT; }
VH3(v_madmk_f16, sim_f16_to_f32(sim_f32_to_f16(a * b)) + c) VH3(v_madak_f16, sim_f16_to_f32(sim_f32_to_f16(a * b)) + c)
VH1(v_rcp_f16, 1.0f / a) VH1(v_rsq_f16, 1.0f / sqrtf(a)) VH1(v_sqrt_f16, sqrtf(a))
VH1(v_exp_f16, exp2f(a)) VH1(v_log_f16, log2f(a))
VH1(v_sin_f16, (float)sin((double)a * 6.283185307179586)) VH1(v_cos_f16, (float)cos((double)a * 6.283185307179586))
VH1(v_trunc_f16, truncf(a)) VH1(v_ceil_f16, ceilf(a)) VH1(v_floor_f16, floorf(a)) VH1(v_rndne_f16, rintf(a))
VH1(v_fract_f16, isinf(a) ? NAN : fminf(a - floorf(a), 0x1.ff8p-1f))
VH1(v_frexp_mant_f16, (isinf(a) || a != a) ? a : frexpf(a, &(int){ 0 }))
int sim_op_v_frexp_exp_i16_f16(SimWave *w, const SimInst *in)
{ LANES(l) { float a = FH(w, O(1), l, SEL(0)); int e = 0; if (!isinf(a) && a == a) frexpf(a, &e); W16(w, in, l, 1, (uint16_t)e); } return SIM_NEXT; }
/* 16-bit integer */
#define VS2(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { uint32_t a = I16(w, O(1), l, SEL(0)), b = I16(w, O(2), l, SEL(1)); W16(w, in, l, 2, (uint16_t)(expr)); } return SIM_NEXT; }
#define VS3(name, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { uint32_t a = I16(w, O(1), l, SEL(0)), b = I16(w, O(2), l, SEL(1)), c = I16(w, O(3), l, SEL(2)); W16(w, in, l, 3, (uint16_t)(expr)); } return SIM_NEXT; }
VS2(v_add_u16, in->clamp && a + b > 0xffff ? 0xffff : a + b)
VS2(v_sub_u16, in->clamp && b > a ? 0 : a - b)
VS2(v_subrev_u16, in->clamp && a > b ? 0 : b - a)
VS2(v_mul_lo_u16, a * b)
VS2(v_lshlrev_b16, b << (a & 15)) VS2(v_lshrrev_b16, b >> (a & 15)) VS2(v_ashrrev_i16, (int16_t)b >> (a & 15))
VS2(v_max_u16, a > b ? a : b) VS2(v_min_u16, a < b ? a : b)
VS2(v_max_i16, (int16_t)a > (int16_t)b ? a : b) VS2(v_min_i16, (int16_t)a < (int16_t)b ? a : b)
VS3(v_mad_u16, a * b + c) VS3(v_mad_i16, (int16_t)a * (int16_t)b + (int16_t)c)
VS3(v_min3_i16, imin(imin((int16_t)a, (int16_t)b), (int16_t)c)) VS3(v_max3_i16, imax(imax((int16_t)a, (int16_t)b), (int16_t)c))
VS3(v_min3_u16, a < b ? (a < c ? a : c) : (b < c ? b : c)) VS3(v_max3_u16, a > b ? (a > c ? a : c) : (b > c ? b : c))
VS3(v_med3_i16, imax(imin((int16_t)a, (int16_t)b), imin(imax((int16_t)a, (int16_t)b), (int16_t)c)))
VS3(v_med3_u16, (a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b))))

/* ---- VOPC ---- */
static int vcmp_write(SimWave *w, const SimInst *in, uint64_t m, int x)
{
	sim_wr64(w, O(0), 0, m);
	if (x) sim_set_exec(w, m);
	return SIM_NEXT;
}
#define CMPOP_f(a, b) 0
#define CMPOP_lt(a, b) ((a) < (b))
#define CMPOP_eq(a, b) ((a) == (b))
#define CMPOP_le(a, b) ((a) <= (b))
#define CMPOP_gt(a, b) ((a) > (b))
#define CMPOP_lg(a, b) ((a) < (b) || (a) > (b))
#define CMPOP_ne(a, b) ((a) != (b))
#define CMPOP_ge(a, b) ((a) >= (b))
#define CMPOP_o(a, b) ((a) == (a) && (b) == (b))
#define CMPOP_u(a, b) ((a) != (a) || (b) != (b))
#define CMPOP_nge(a, b) (!((a) >= (b)))
#define CMPOP_nlg(a, b) (!((a) < (b) || (a) > (b)))
#define CMPOP_ngt(a, b) (!((a) > (b)))
#define CMPOP_nle(a, b) (!((a) <= (b)))
#define CMPOP_neq(a, b) (!((a) == (b)))
#define CMPOP_nlt(a, b) (!((a) < (b)))
#define CMPOP_tru(a, b) 1
#define CMPOP_t(a, b) 1
#define VCMP(cmp, ty, T, RD) \
	int sim_op_v_cmp_##cmp##_##ty(SimWave *w, const SimInst *in) \
	{ uint64_t m = 0; LANES(l) { T a = RD(1, 0), b = RD(2, 1); (void)a; (void)b; if (CMPOP_##cmp(a, b)) m |= 1ull << l; } return vcmp_write(w, in, m, 0); } \
	int sim_op_v_cmpx_##cmp##_##ty(SimWave *w, const SimInst *in) \
	{ uint64_t m = 0; LANES(l) { T a = RD(1, 0), b = RD(2, 1); (void)a; (void)b; if (CMPOP_##cmp(a, b)) m |= 1ull << l; } return vcmp_write(w, in, m, 1); }
#define RDF32(i, s) F32(w, O(i), l)
#define RDF64(i, s) F64(w, O(i), l)
#define RDF16(i, s) FH(w, O(i), l, SEL(s))
#define RDI32(i, s) (int32_t)sim_rd32(w, O(i), l)
#define RDU32(i, s) sim_rd32(w, O(i), l)
#define RDI64(i, s) (int64_t)sim_rd64(w, O(i), l)
#define RDU64(i, s) sim_rd64(w, O(i), l)
#define RDI16(i, s) (int16_t)I16(w, O(i), l, SEL(s))
#define RDU16(i, s) I16(w, O(i), l, SEL(s))
#define FCMPS(ty, T, RD) VCMP(f, ty, T, RD) VCMP(lt, ty, T, RD) VCMP(eq, ty, T, RD) VCMP(le, ty, T, RD) \
	VCMP(gt, ty, T, RD) VCMP(lg, ty, T, RD) VCMP(ge, ty, T, RD) VCMP(o, ty, T, RD) VCMP(u, ty, T, RD) \
	VCMP(nge, ty, T, RD) VCMP(nlg, ty, T, RD) VCMP(ngt, ty, T, RD) VCMP(nle, ty, T, RD) VCMP(neq, ty, T, RD) \
	VCMP(nlt, ty, T, RD) VCMP(tru, ty, T, RD)
#define ICMPS(ty, T, RD) VCMP(f, ty, T, RD) VCMP(lt, ty, T, RD) VCMP(eq, ty, T, RD) VCMP(le, ty, T, RD) \
	VCMP(gt, ty, T, RD) VCMP(ne, ty, T, RD) VCMP(ge, ty, T, RD) VCMP(t, ty, T, RD)
FCMPS(f32, float, RDF32) FCMPS(f64, double, RDF64) FCMPS(f16, float, RDF16)
ICMPS(i32, int32_t, RDI32) ICMPS(u32, uint32_t, RDU32) ICMPS(i64, int64_t, RDI64) ICMPS(u64, uint64_t, RDU64)
ICMPS(i16, int32_t, RDI16) ICMPS(u16, uint32_t, RDU16)
#define VCLASS(ty, EXPR) \
	int sim_op_v_cmp_class_##ty(SimWave *w, const SimInst *in) \
	{ uint64_t m = 0; LANES(l) { uint32_t k = sim_rd32(w, O(2), l); if (EXPR) m |= 1ull << l; } return vcmp_write(w, in, m, 0); } \
	int sim_op_v_cmpx_class_##ty(SimWave *w, const SimInst *in) \
	{ uint64_t m = 0; LANES(l) { uint32_t k = sim_rd32(w, O(2), l); if (EXPR) m |= 1ull << l; } return vcmp_write(w, in, m, 1); }
VCLASS(f32, cls32(mod32(O(1), sim_rd32(w, O(1), l)), k))
VCLASS(f64, cls64(mod64(O(1), sim_rdf64bits(w, O(1), l)), k))
VCLASS(f16, cls16(mod16(O(1), H16(w, O(1), l, SEL(0))), k))

/* ---- VOP3P packed math ---- */
/* For packed operand i, the low result half reads half op_sel[i], the high
 * half reads half op_sel_hi[i]; neg_lo/neg_hi negate (floats). */
static inline __attribute__((always_inline)) uint16_t P16(const SimWave *w, const SimInst *in, int i, int l, int hi)
{
	const SimOperand *o = O(i + 1);
	int sel = hi ? (in->op_sel_hi >> i) & 1 : (in->op_sel >> i) & 1;
	uint32_t v;
	if (o->kind == SIM_OPK_CONST) v = o->literal ? o->k32 : ((uint32_t)o->kf16 | (uint32_t)o->kf16 << 16);
	else v = sim_rd32(w, o, l);
	return (uint16_t)(sel ? v >> 16 : v);
}
static inline uint16_t P16I(const SimWave *w, const SimInst *in, int i, int l, int hi)
{
	const SimOperand *o = O(i + 1);
	int sel = hi ? (in->op_sel_hi >> i) & 1 : (in->op_sel >> i) & 1;
	uint32_t v;
	if (o->kind == SIM_OPK_CONST) v = o->literal ? o->k32 : ((o->k32 & 0xffff) | (o->k32 & 0xffff) << 16);
	else v = sim_rd32(w, o, l);
	return (uint16_t)(sel ? v >> 16 : v);
}
static inline __attribute__((always_inline)) float PF(const SimWave *w, const SimInst *in, int i, int l, int hi)
{
	uint16_t h = P16(w, in, i, l, hi);
	if (((hi ? in->neg_hi : in->neg_lo) >> i) & 1) h ^= 0x8000;
	return sim_f16_to_f32(h);
}
static inline uint16_t clamp16(const SimInst *in, float f)
{
	if (in->clamp) { if (f != f || f < 0) f = 0; else if (f > 1) f = 1; }
	return sim_f32_to_f16(f);
}
#define PKF(name, n, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { uint32_t r = 0; for (int h = 0; h < 2; h++) { \
	  float a = PF(w, in, 0, l, h), b = n > 1 ? PF(w, in, 1, l, h) : 0, c = n > 2 ? PF(w, in, 2, l, h) : 0; (void)b; (void)c; \
	  r |= (uint32_t)clamp16(in, (expr)) << (16 * h); } sim_wr(w, O(0), 0, l, r); } return SIM_NEXT; }
PKF(v_pk_add_f16, 2, a + b) PKF(v_pk_mul_f16, 2, a * b) PKF(v_pk_fma_f16, 3, (float)fma((double)a, (double)b, (double)c))
PKF(v_pk_min_f16, 2, fmin32(a, b)) PKF(v_pk_max_f16, 2, fmax32(a, b))
#define PKI(name, n, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { uint32_t r = 0; for (int h = 0; h < 2; h++) { \
	  uint32_t a = P16I(w, in, 0, l, h), b = n > 1 ? P16I(w, in, 1, l, h) : 0, c = n > 2 ? P16I(w, in, 2, l, h) : 0; (void)b; (void)c; \
	  r |= (uint32_t)(uint16_t)(expr) << (16 * h); } sim_wr(w, O(0), 0, l, r); } return SIM_NEXT; }
PKI(v_pk_add_u16, 2, in->clamp && a + b > 0xffff ? 0xffff : a + b)
PKI(v_pk_sub_u16, 2, in->clamp && b > a ? 0 : a - b)
PKI(v_pk_add_i16, 2, (int16_t)a + (int16_t)b) PKI(v_pk_sub_i16, 2, (int16_t)a - (int16_t)b)
PKI(v_pk_mul_lo_u16, 2, a * b)
PKI(v_pk_lshlrev_b16, 2, b << (a & 15)) PKI(v_pk_lshrrev_b16, 2, b >> (a & 15)) PKI(v_pk_ashrrev_i16, 2, (int16_t)b >> (a & 15))
PKI(v_pk_max_u16, 2, a > b ? a : b) PKI(v_pk_min_u16, 2, a < b ? a : b)
PKI(v_pk_max_i16, 2, (int16_t)a > (int16_t)b ? a : b) PKI(v_pk_min_i16, 2, (int16_t)a < (int16_t)b ? a : b)
PKI(v_pk_mad_u16, 3, a * b + c) PKI(v_pk_mad_i16, 3, (int16_t)a * (int16_t)b + (int16_t)c)
/* packed f32 (gfx90a+): operands are 64-bit register pairs; op_sel picks the dword */
static inline __attribute__((always_inline)) float PF32(const SimWave *w, const SimInst *in, int i, int l, int hi)
{
	const SimOperand *o = O(i + 1);
	int sel = hi ? (in->op_sel_hi >> i) & 1 : (in->op_sel >> i) & 1;
	uint32_t u = o->kind == SIM_OPK_CONST ? o->k32 : sim_rd(w, o, sel, l);
	if (((hi ? in->neg_hi : in->neg_lo) >> i) & 1) u ^= 0x80000000u;
	return sim_f32(u);
}
#define PKF32(name, n, expr) int sim_op_##name(SimWave *w, const SimInst *in) \
	{ LANES(l) { float r[2]; for (int h = 0; h < 2; h++) { \
	  float a = PF32(w, in, 0, l, h), b = n > 1 ? PF32(w, in, 1, l, h) : 0, c = n > 2 ? PF32(w, in, 2, l, h) : 0; (void)b; (void)c; \
	  r[h] = omod32(in, (expr)); } sim_wr(w, O(0), 0, l, sim_u32(r[0])); sim_wr(w, O(0), 1, l, sim_u32(r[1])); } return SIM_NEXT; }
PKF32(v_pk_add_f32, 2, a + b) PKF32(v_pk_mul_f32, 2, a * b) PKF32(v_pk_fma_f32, 3, fmaf(a, b, c))
int sim_op_v_pk_mov_b32(SimWave *w, const SimInst *in)
{
	LANES(l) {
		uint32_t lo = sim_rd(w, O(1), in->op_sel & 1, l), hi = sim_rd(w, O(2), (in->op_sel >> 1) & 1, l);
		sim_wr(w, O(0), 0, l, lo); sim_wr(w, O(0), 1, l, hi);
	}
	return SIM_NEXT;
}
/* mixed precision: operand i is f32 unless op_sel_hi[i], then f16 from half op_sel[i]
 * (op_sel_hi absent from the text is [0,0,0] for these: sim_decode.c) */
static inline float MIX(const SimWave *w, const SimInst *in, int i, int l)
{
	const SimOperand *o = O(i + 1);
	float f;
	if ((in->op_sel_hi >> i) & 1) {
		uint16_t h = o->kind == SIM_OPK_CONST ? o->kf16 : (uint16_t)(sim_rd32(w, o, l) >> (((in->op_sel >> i) & 1) * 16));
		f = sim_f16_to_f32(h);
	} else f = sim_f32(o->kind == SIM_OPK_CONST ? o->k32 : sim_rd32(w, o, l));
	if (o->abs) f = fabsf(f);
	if (o->neg) f = -f;
	return f;
}
int sim_op_v_fma_mix_f32(SimWave *w, const SimInst *in)
{ LANES(l) WF32(w, in, l, fmaf(MIX(w, in, 0, l), MIX(w, in, 1, l), MIX(w, in, 2, l))); return SIM_NEXT; }
int sim_op_v_fma_mixlo_f16(SimWave *w, const SimInst *in)
{ LANES(l) { uint16_t h = clamp16(in, fmaf(MIX(w, in, 0, l), MIX(w, in, 1, l), MIX(w, in, 2, l)));
  sim_wr(w, O(0), 0, l, (sim_rd32(w, O(0), l) & 0xffff0000u) | h); } return SIM_NEXT; }
int sim_op_v_fma_mixhi_f16(SimWave *w, const SimInst *in)
{ LANES(l) { uint16_t h = clamp16(in, fmaf(MIX(w, in, 0, l), MIX(w, in, 1, l), MIX(w, in, 2, l)));
  sim_wr(w, O(0), 0, l, (sim_rd32(w, O(0), l) & 0xffffu) | (uint32_t)h << 16); } return SIM_NEXT; }
int sim_op_v_dot2_f32_f16(SimWave *w, const SimInst *in)
{
	LANES(l) {
		float a0 = PF(w, in, 0, l, 0), a1 = PF(w, in, 0, l, 1), b0 = PF(w, in, 1, l, 0), b1 = PF(w, in, 1, l, 1);
		WF32(w, in, l, (float)((double)a0 * b0 + (double)a1 * b1 + sim_f32(sim_rd32(w, O(3), l))));
	}
	return SIM_NEXT;
}
int sim_op_v_dot2c_f32_f16(SimWave *w, const SimInst *in)
{
	LANES(l) {
		uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l);
		double s = (double)sim_f16_to_f32((uint16_t)a) * sim_f16_to_f32((uint16_t)b) + (double)sim_f16_to_f32((uint16_t)(a >> 16)) * sim_f16_to_f32((uint16_t)(b >> 16));
		WF32(w, in, l, (float)(s + sim_f32(sim_rd32(w, O(0), l))));
	}
	return SIM_NEXT;
}
int sim_op_v_dot2_f32_bf16(SimWave *w, const SimInst *in)
{
	LANES(l) {
		uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l);
		double s = (double)sim_bf16_to_f32((uint16_t)a) * sim_bf16_to_f32((uint16_t)b) + (double)sim_bf16_to_f32((uint16_t)(a >> 16)) * sim_bf16_to_f32((uint16_t)(b >> 16));
		WF32(w, in, l, (float)(s + sim_f32(sim_rd32(w, O(3), l))));
	}
	return SIM_NEXT;
}
static int64_t dotsat(const SimInst *in, int64_t v, int sgn)
{
	if (!in->clamp) return v;
	if (sgn) return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
	return v > (int64_t)UINT32_MAX ? (int64_t)UINT32_MAX : v;
}
int sim_op_v_dot2_i32_i16(SimWave *w, const SimInst *in)
{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l); int64_t s = (int64_t)(int16_t)a * (int16_t)b + (int64_t)(int16_t)(a >> 16) * (int16_t)(b >> 16) + (int32_t)sim_rd32(w, O(3), l);
  sim_wr(w, O(0), 0, l, (uint32_t)dotsat(in, s, 1)); } return SIM_NEXT; }
int sim_op_v_dot2_u32_u16(SimWave *w, const SimInst *in)
{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l); int64_t s = (int64_t)(a & 0xffff) * (b & 0xffff) + (int64_t)(a >> 16) * (b >> 16) + sim_rd32(w, O(3), l);
  sim_wr(w, O(0), 0, l, (uint32_t)dotsat(in, s, 0)); } return SIM_NEXT; }
int sim_op_v_dot4_i32_i8(SimWave *w, const SimInst *in)
{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l); int64_t s = (int32_t)sim_rd32(w, O(3), l);
  for (int i = 0; i < 32; i += 8) { s += (int64_t)(int8_t)(a >> i) * (int8_t)(b >> i); }
  sim_wr(w, O(0), 0, l, (uint32_t)dotsat(in, s, 1)); } return SIM_NEXT; }
int sim_op_v_dot4_u32_u8(SimWave *w, const SimInst *in)
{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l); int64_t s = sim_rd32(w, O(3), l);
  for (int i = 0; i < 32; i += 8) { s += (int64_t)((a >> i) & 0xff) * ((b >> i) & 0xff); }
  sim_wr(w, O(0), 0, l, (uint32_t)dotsat(in, s, 0)); } return SIM_NEXT; }
int sim_op_v_dot4c_i32_i8(SimWave *w, const SimInst *in)
{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l); int64_t s = (int32_t)sim_rd32(w, O(0), l);
  for (int i = 0; i < 32; i += 8) { s += (int64_t)(int8_t)(a >> i) * (int8_t)(b >> i); }
  sim_wr(w, O(0), 0, l, (uint32_t)s); } return SIM_NEXT; }

/* ---- cross-lane (gfx950) ---- */
int sim_op_v_permlane16_swap_b32(SimWave *w, const SimInst *in)
{
	/* swap the odd 16-lane rows of vdst with the even rows of src0 */
	uint64_t e = sim_exec(w);
	for (int l = 0; l < 64; l++) {
		if (!((l >> 4) & 1)) continue;
		int p = l - 16;
		if (!((e >> l) & 1) && !((e >> p) & 1)) continue;
		uint32_t a = w->v[in->o[0].reg][l], b = w->v[in->o[1].reg][p];
		w->v[in->o[0].reg][l] = b; w->v[in->o[1].reg][p] = a;
	}
	return SIM_NEXT;
}
int sim_op_v_permlane32_swap_b32(SimWave *w, const SimInst *in)
{
	uint64_t e = sim_exec(w);
	for (int l = 32; l < 64; l++) {
		int p = l - 32;
		if (!((e >> l) & 1) && !((e >> p) & 1)) continue;
		uint32_t a = w->v[in->o[0].reg][l], b = w->v[in->o[1].reg][p];
		w->v[in->o[0].reg][l] = b; w->v[in->o[1].reg][p] = a;
	}
	return SIM_NEXT;
}

/* gfx9 "legacy" 16-bit mads (no op_sel on the destination) */
VS3(v_mad_legacy_u16, a * b + c)
VS3(v_mad_legacy_i16, (int16_t)a * (int16_t)b + (int16_t)c)
VH3(v_mad_legacy_f16, sim_f16_to_f32(sim_f32_to_f16(a * b)) + c)
VH3(v_fma_legacy_f16, (float)fma((double)a, (double)b, (double)c))
int sim_op_v_bitop3_b16(SimWave *w, const SimInst *in)
{
	uint32_t t = in->imm;
	LANES(l) W16(w, in, l, 3, (uint16_t)bitop3(I16(w, O(1), l, SEL(0)), I16(w, O(2), l, SEL(1)), I16(w, O(3), l, SEL(2)), t));
	return SIM_NEXT;
}
int sim_op_v_dot2c_i32_i16(SimWave *w, const SimInst *in)
{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l);
  int64_t s = (int64_t)(int16_t)a * (int16_t)b + (int64_t)(int16_t)(a >> 16) * (int16_t)(b >> 16) + (int32_t)sim_rd32(w, O(0), l);
  sim_wr(w, O(0), 0, l, (uint32_t)s); } return SIM_NEXT; }

/* gfx950 IEEE 754-2019 minimum/maximum of three: NaN propagates, -0 < +0 */
static inline float ieee_minimum(float a, float b)
{
	if (a != a) return qnan32(a);
	if (b != b) return qnan32(b);
	if (a == b) return (sim_u32(a) & 0x80000000u) ? a : b;
	return a < b ? a : b;
}
static inline float ieee_maximum(float a, float b)
{
	if (a != a) return qnan32(a);
	if (b != b) return qnan32(b);
	if (a == b) return (sim_u32(a) & 0x80000000u) ? b : a;
	return a > b ? a : b;
}
VF3(v_minimum3_f32, ieee_minimum(ieee_minimum(a, b), c))
VF3(v_maximum3_f32, ieee_maximum(ieee_maximum(a, b), c))
PKF(v_pk_minimum3_f16, 3, ieee_minimum(ieee_minimum(a, b), c))
PKF(v_pk_maximum3_f16, 3, ieee_maximum(ieee_maximum(a, b), c))

/* ---- more gfx9 VALU (found by enumerating the gfx950 opcode space) ---- */
static uint32_t sat_i32(int64_t v) { return (uint32_t)(int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v); }
VI2(v_add_i32, in->clamp ? sat_i32((int64_t)(int32_t)a + (int32_t)b) : a + b)
VI2(v_sub_i32, in->clamp ? sat_i32((int64_t)(int32_t)a - (int32_t)b) : a - b)
static uint16_t sat_i16(int32_t v) { return (uint16_t)(int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v); }
VS2(v_add_i16, in->clamp ? sat_i16((int16_t)a + (int16_t)b) : (uint16_t)(a + b))
VS2(v_sub_i16, in->clamp ? sat_i16((int16_t)a - (int16_t)b) : (uint16_t)(a - b))
VI3(v_mad_u32_u16, (uint32_t)I16(w, O(1), l, SEL(0)) * I16(w, O(2), l, SEL(1)) + c)
VI3(v_mad_i32_i16, (uint32_t)((int32_t)(int16_t)I16(w, O(1), l, SEL(0)) * (int16_t)I16(w, O(2), l, SEL(1))) + c)
int sim_op_v_pk_fmac_f16(SimWave *w, const SimInst *in)
{
	LANES(l) {
		uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l), d = sim_rd32(w, O(0), l), r = 0;
		if (in->o[1].kind == SIM_OPK_CONST && !in->o[1].literal) a = in->o[1].kf16;
		for (int h = 0; h < 2; h++) {
			double x = sim_f16_to_f32((uint16_t)(a >> 16 * h)), y = sim_f16_to_f32((uint16_t)(b >> 16 * h)), z = sim_f16_to_f32((uint16_t)(d >> 16 * h));
			r |= (uint32_t)sim_f32_to_f16((float)fma(x, y, z)) << 16 * h;
		}
		sim_wr(w, O(0), 0, l, r);
	}
	return SIM_NEXT;
}
int sim_op_v_dot2c_f32_bf16(SimWave *w, const SimInst *in)
{
	LANES(l) {
		uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l);
		double s = (double)sim_bf16_to_f32((uint16_t)a) * sim_bf16_to_f32((uint16_t)b) + (double)sim_bf16_to_f32((uint16_t)(a >> 16)) * sim_bf16_to_f32((uint16_t)(b >> 16));
		WF32(w, in, l, (float)(s + sim_f32(sim_rd32(w, O(0), l))));
	}
	return SIM_NEXT;
}
static int32_t s4(uint32_t v, int i) { return (int32_t)(v << (28 - 4 * i)) >> 28; }
int sim_op_v_dot8_i32_i4(SimWave *w, const SimInst *in)
{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l); int64_t s = (int32_t)sim_rd32(w, O(3), l);
  for (int i = 0; i < 8; i++) { s += (int64_t)s4(a, i) * s4(b, i); }
  sim_wr(w, O(0), 0, l, (uint32_t)dotsat(in, s, 1)); } return SIM_NEXT; }
int sim_op_v_dot8_u32_u4(SimWave *w, const SimInst *in)
{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l); int64_t s = sim_rd32(w, O(3), l);
  for (int i = 0; i < 8; i++) { s += (int64_t)((a >> 4 * i) & 15) * ((b >> 4 * i) & 15); }
  sim_wr(w, O(0), 0, l, (uint32_t)dotsat(in, s, 0)); } return SIM_NEXT; }
int sim_op_v_dot8c_i32_i4(SimWave *w, const SimInst *in)
{ LANES(l) { uint32_t a = sim_rd32(w, O(1), l), b = sim_rd32(w, O(2), l); int64_t s = (int32_t)sim_rd32(w, O(0), l);
  for (int i = 0; i < 8; i++) { s += (int64_t)s4(a, i) * s4(b, i); }
  sim_wr(w, O(0), 0, l, (uint32_t)s); } return SIM_NEXT; }
/* normalised conversions: round(clamp(x, -1 or 0, 1) * max) */
static uint32_t norm_i16(float f) { if (f != f) return 0; f = f < -1 ? -1 : f > 1 ? 1 : f; return (uint16_t)(int16_t)rintf(f * 32767.0f); }
static uint32_t norm_u16(float f) { if (f != f) return 0; f = f < 0 ? 0 : f > 1 ? 1 : f; return (uint16_t)rintf(f * 65535.0f); }
VI2(v_cvt_pknorm_i16_f32, norm_i16(F32(w, O(1), l)) | norm_i16(F32(w, O(2), l)) << 16)
VI2(v_cvt_pknorm_u16_f32, norm_u16(F32(w, O(1), l)) | norm_u16(F32(w, O(2), l)) << 16)
VI2(v_cvt_pknorm_i16_f16, norm_i16(FH(w, O(1), l, SEL(0))) | norm_i16(FH(w, O(2), l, SEL(1))) << 16)
VI2(v_cvt_pknorm_u16_f16, norm_u16(FH(w, O(1), l, SEL(0))) | norm_u16(FH(w, O(2), l, SEL(1))) << 16)
int sim_op_v_cvt_norm_i16_f16(SimWave *w, const SimInst *in) { LANES(l) W16(w, in, l, 1, (uint16_t)norm_i16(FH(w, O(1), l, SEL(0)))); return SIM_NEXT; }
int sim_op_v_cvt_norm_u16_f16(SimWave *w, const SimInst *in) { LANES(l) W16(w, in, l, 1, (uint16_t)norm_u16(FH(w, O(1), l, SEL(0)))); return SIM_NEXT; }
static uint32_t satu8(int32_t v) { return (uint32_t)(v < 0 ? 0 : v > 255 ? 255 : v); }
VI1(v_sat_pk_u8_i16, satu8((int16_t)a) | satu8((int16_t)(a >> 16)) << 8)
VI1(v_cvt_off_f32_i4, sim_u32((float)((int32_t)(a << 28) >> 28) / 16.0f))
static uint32_t lerp_u8(uint32_t a, uint32_t b, uint32_t c)
{ uint32_t r = 0; for (int i = 0; i < 32; i += 8) r |= ((((a >> i) & 0xff) + ((b >> i) & 0xff) + ((c >> i) & 1)) >> 1) << i; return r; }
VI3(v_lerp_u8, lerp_u8(a, b, c))
VI3(v_sad_hi_u8, (sad_u8(a, b) << 16) + c)

/* ---- GFX12 (gfx1201): VALU semantics the gfx9 set does not have ---- */
VF2(v_minimum_f32, ieee_minimum(a, b))
VF2(v_maximum_f32, ieee_maximum(a, b))

/* v_permlane16_b32 / v_permlanex16_b32 vdst, src0, s1, s2 [op_sel:[FI,BC]]
 * (RDNA4 ISA): lane l of each row of 16 reads src0 from lane sel(l%16) of its
 * own row (permlane16) or of the other row of its 32-lane half (permlanex16);
 * sel is the 4-bit field l%16 of the 64-bit value s2:s1. A source lane that is
 * inactive is read anyway with FI; otherwise the lane gets 0 with BC and
 * keeps vdst without it. */
static int permlane16(SimWave *w, const SimInst *in, int cross)
{
	uint64_t sel = sim_rd32(w, O(2), 0) | (uint64_t)sim_rd32(w, O(3), 0) << 32;
	int fi = in->op_sel & 1, bc = (in->op_sel >> 1) & 1;
	uint64_t e = sim_exec(w);
	uint32_t tmp[SIM_LANES];
	for (int l = 0; l < w->lanes; l++) tmp[l] = w->v[in->o[1].reg][l];
	LANES(l) {
		int row = (l >> 4) ^ (cross ? 1 : 0);
		int s = row * 16 + (int)((sel >> (4 * (l & 15))) & 15);
		if (s >= w->lanes) s &= w->lanes - 1;
		if (fi || ((e >> s) & 1)) w->v[in->o[0].reg][l] = in->o[1].kind == SIM_OPK_VGPR ? tmp[s] : sim_rd32(w, O(1), s);
		else if (bc) w->v[in->o[0].reg][l] = 0;
	}
	return SIM_NEXT;
}
int sim_op_v_permlane16_b32(SimWave *w, const SimInst *in) { return permlane16(w, in, 0); }
int sim_op_v_permlanex16_b32(SimWave *w, const SimInst *in) { return permlane16(w, in, 1); }

/* VOPD "v_dual_X vdstX, ... :: v_dual_Y vdstY, ...": both halves read their
 * sources before either writes (X writes a staging row first, copied to
 * vdstX after Y ran). The halves are ordinary VOP2-style records. */
int sim_op_v_dual(SimWave *w, const SimInst *in)
{
	const SimInst *x = in->vopd[0], *y = in->vopd[1];
	if (!x || !y) return sim_fault(w, "malformed VOPD record '%s'", in->text);
	SimInst xs = *x;
	const unsigned tmp = SIM_NVREG + 6;
	unsigned dst = x->o[0].reg;
	memcpy(w->v[tmp], w->v[dst], sizeof w->v[tmp]);    /* fmac reads its destination */
	for (int i = 0; i < xs.nops; i++)
		if (xs.o[i].kind == SIM_OPK_VGPR && xs.o[i].reg == dst && i == 0) xs.o[i].reg = (uint16_t)tmp;
	int r = sim_op_handlers[xs.op](w, &xs);
	if (r != SIM_NEXT) return r;
	r = sim_op_handlers[y->op](w, y);
	if (r != SIM_NEXT) return r;
	LANES(l) w->v[dst][l] = w->v[tmp][l];
	return SIM_NEXT;
}
