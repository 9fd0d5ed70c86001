/*
 * sim_vmem.c — vector memory: FLAT, GLOBAL, SCRATCH, MUBUF (buffer) and DS
 * (LDS) instructions, including atomics, loads straight to LDS and the
 * cross-lane DS operations (bpermute, permute, swizzle).
 *
 * Operand order is LLVM's printed order, e.g.
 *   global_load_dword  vdst, vaddr, saddr|off [offset:N]
 *   global_store_dword vaddr, vdata, saddr|off
 *   global_atomic_add  [vdst,] vaddr, vdata, saddr|off   (vdst when the old value is returned)
 *   scratch_load_dword vdst, vaddr|off, saddr|off
 *   flat_load_dword    vdst, vaddr
 *   buffer_load_dword  vdata, vaddr|off, srsrc, soffset [offen] [idxen] [offset:N] [lds]
 *   ds_read_b32 vdst, vaddr [offset:N];  ds_write_b32 vaddr, vdata;  ds_add_rtn_u32 vdst, vaddr, vdata
 * Every access is checked (sim_core.c); buffer accesses are range-checked
 * against the resource instead (out of range: loads give 0, stores dropped).
 */
/* messages are cut to their buffers on purpose */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <math.h>
#include <stdio.h>
#include "sim/sim_int.h"

#define O(i) (&in->o[(i)])
#define LANES(l) SIM_FOR_LANES(w, l)

/* ---- address spaces ---- */
enum { SP_GLOBAL, SP_SCRATCH, SP_FLAT };

/* Per-lane address for FLAT/GLOBAL/SCRATCH; ai = index of the vaddr operand. */
static uint64_t lane_addr(SimWave *w, const SimInst *in, int sp, int ai, int si, int l)
{
	const SimOperand *va = O(ai), *sa = si >= 0 && si < in->nops ? O(si) : NULL;
	int64_t off = in->offset;
	if (sp == SP_FLAT) return sim_rd64(w, va, l) + (uint64_t)off;
	if (sp == SP_GLOBAL) {
		if (sa && sa->kind == SIM_OPK_SGPR) return sim_rd64(w, sa, 0) + sim_rd32(w, va, l) + (uint64_t)off;
		return sim_rd64(w, va, l) + (uint64_t)off;
	}
	uint64_t a = (uint64_t)off;
	if (va->kind == SIM_OPK_VGPR) a += sim_rd32(w, va, l);
	if (sa && sa->kind == SIM_OPK_SGPR) a += sim_rd32(w, sa, 0);
	return (uint32_t)a;
}
static void *lane_ptr(SimWave *w, int sp, uint64_t a, uint32_t n, int l, int wr)
{
	if (sp == SP_GLOBAL) return sim_gptr(w, a, n, l, wr);
	if (sp == SP_SCRATCH) return sim_pptr(w, (uint32_t)a, n, l, wr);
	return sim_fptr(w, a, n, l, wr);
}

/* load kinds */
enum { LD_U8, LD_I8, LD_U16, LD_I16, LD_B32, LD_D16_U8, LD_D16_HI_U8, LD_D16_I8, LD_D16_HI_I8, LD_D16, LD_D16_HI };
static const uint8_t ld_bytes[] = { 1, 1, 2, 2, 4, 1, 1, 1, 1, 2, 2 };

static void put_loaded(SimWave *w, const SimOperand *d, int l, int kind, const uint8_t *p, int ndw)
{
	uint32_t v = 0;
	switch (kind) {
	case LD_U8: v = p[0]; break;
	case LD_I8: v = (uint32_t)(int32_t)(int8_t)p[0]; break;
	case LD_U16: v = (uint32_t)(p[0] | p[1] << 8); break;
	case LD_I16: v = (uint32_t)(int32_t)(int16_t)(p[0] | p[1] << 8); break;
	case LD_B32:
		for (int i = 0; i < ndw; i++) { memcpy(&v, p + 4 * i, 4); sim_wr(w, d, i, l, v); }
		return;
	default: {
		uint32_t old = sim_rd32(w, d, l), h;
		if (kind == LD_D16 || kind == LD_D16_HI) h = (uint32_t)(p[0] | p[1] << 8);
		else if (kind == LD_D16_I8 || kind == LD_D16_HI_I8) h = (uint16_t)(int16_t)(int8_t)p[0];
		else h = p[0];
		int hi = kind == LD_D16_HI || kind == LD_D16_HI_U8 || kind == LD_D16_HI_I8;
		v = hi ? (old & 0xffff) | h << 16 : (old & 0xffff0000u) | h;
		break;
	}
	}
	sim_wr(w, d, 0, l, v);
}

static int mem_load(SimWave *w, const SimInst *in, int sp, int kind, int ndw)
{
	uint32_t n = kind == LD_B32 ? 4u * (uint32_t)ndw : ld_bytes[kind];
	LANES(l) {
		uint64_t a = lane_addr(w, in, sp, 1, 2, l);
		const uint8_t *p = lane_ptr(w, sp, a, n, l, 0);
		if (!p) return SIM_FAULT;
		put_loaded(w, O(0), l, kind, p, ndw);
	}
	return SIM_NEXT;
}

/* store kinds: bytes 1/2 (optionally from the high half), or ndw dwords */
static int mem_store(SimWave *w, const SimInst *in, int sp, uint32_t n, int hi)
{
	LANES(l) {
		uint64_t a = lane_addr(w, in, sp, 0, 2, l);
		uint8_t *p = lane_ptr(w, sp, a, n, l, 1);
		if (!p) return SIM_FAULT;
		if (n >= 4) for (uint32_t i = 0; i < n / 4; i++) { uint32_t v = sim_rd(w, O(1), (int)i, l); memcpy(p + 4 * i, &v, 4); }
		else { uint32_t v = sim_rd32(w, O(1), l); if (hi) v >>= 16; memcpy(p, &v, n); }
	}
	return SIM_NEXT;
}

#define FGS_LOADS(pfx, sp) \
	int sim_op_##pfx##_load_ubyte(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_U8, 1); } \
	int sim_op_##pfx##_load_sbyte(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_I8, 1); } \
	int sim_op_##pfx##_load_ushort(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_U16, 1); } \
	int sim_op_##pfx##_load_sshort(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_I16, 1); } \
	int sim_op_##pfx##_load_dword(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_B32, 1); } \
	int sim_op_##pfx##_load_dwordx2(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_B32, 2); } \
	int sim_op_##pfx##_load_dwordx3(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_B32, 3); } \
	int sim_op_##pfx##_load_dwordx4(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_B32, 4); } \
	int sim_op_##pfx##_load_ubyte_d16(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_D16_U8, 1); } \
	int sim_op_##pfx##_load_ubyte_d16_hi(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_D16_HI_U8, 1); } \
	int sim_op_##pfx##_load_sbyte_d16(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_D16_I8, 1); } \
	int sim_op_##pfx##_load_sbyte_d16_hi(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_D16_HI_I8, 1); } \
	int sim_op_##pfx##_load_short_d16(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_D16, 1); } \
	int sim_op_##pfx##_load_short_d16_hi(SimWave *w, const SimInst *in) { return mem_load(w, in, sp, LD_D16_HI, 1); } \
	int sim_op_##pfx##_store_byte(SimWave *w, const SimInst *in) { return mem_store(w, in, sp, 1, 0); } \
	int sim_op_##pfx##_store_byte_d16_hi(SimWave *w, const SimInst *in) { return mem_store(w, in, sp, 1, 1); } \
	int sim_op_##pfx##_store_short(SimWave *w, const SimInst *in) { return mem_store(w, in, sp, 2, 0); } \
	int sim_op_##pfx##_store_short_d16_hi(SimWave *w, const SimInst *in) { return mem_store(w, in, sp, 2, 1); } \
	int sim_op_##pfx##_store_dword(SimWave *w, const SimInst *in) { return mem_store(w, in, sp, 4, 0); } \
	int sim_op_##pfx##_store_dwordx2(SimWave *w, const SimInst *in) { return mem_store(w, in, sp, 8, 0); } \
	int sim_op_##pfx##_store_dwordx3(SimWave *w, const SimInst *in) { return mem_store(w, in, sp, 12, 0); } \
	int sim_op_##pfx##_store_dwordx4(SimWave *w, const SimInst *in) { return mem_store(w, in, sp, 16, 0); }
FGS_LOADS(global, SP_GLOBAL)
FGS_LOADS(scratch, SP_SCRATCH)
FGS_LOADS(flat, SP_FLAT)

/* ---- atomics (shared by global/flat/buffer/DS) ---- */
/* The operations are SIM_A_* (sim_int.h); the scalar atomics (sim_salu.c) use this too. */
uint64_t sim_atomic_apply(uint8_t *p, int op, int wide, uint64_t v, uint64_t c)
{
	uint64_t old = 0, r;
	memcpy(&old, p, wide ? 8 : 4);
	uint64_t mask = wide ? ~0ull : 0xffffffffull;
	int64_t so = wide ? (int64_t)old : (int32_t)old, sv = wide ? (int64_t)v : (int32_t)v;
	switch (op) {
	case SIM_A_SWAP: r = v; break;
	case SIM_A_CMPSWAP: r = old == (c & mask) ? v : old; break;   /* v = new data, c = compare */
	case SIM_A_ADD: r = old + v; break;
	case SIM_A_SUB: r = old - v; break;
	case SIM_A_RSUB: r = v - old; break;
	case SIM_A_SMIN: r = so < sv ? old : v; break;
	case SIM_A_UMIN: r = old < (v & mask) ? old : v; break;
	case SIM_A_SMAX: r = so > sv ? old : v; break;
	case SIM_A_UMAX: r = old > (v & mask) ? old : v; break;
	case SIM_A_AND: r = old & v; break;
	case SIM_A_OR: r = old | v; break;
	case SIM_A_XOR: r = old ^ v; break;
	case SIM_A_MSKOR: r = (old & ~v) | c; break;
	case SIM_A_INC: r = (old & mask) >= (v & mask) ? 0 : old + 1; break;
	case SIM_A_DEC: r = ((old & mask) == 0 || (old & mask) > (v & mask)) ? v : old - 1; break;
	case SIM_A_ADD_F32: r = sim_u32(sim_f32((uint32_t)old) + sim_f32((uint32_t)v)); break;
	case SIM_A_MIN_F32: { float a = sim_f32((uint32_t)old), b = sim_f32((uint32_t)v); r = sim_u32(b != b ? a : a != a ? b : fminf(a, b)); break; }
	case SIM_A_MAX_F32: { float a = sim_f32((uint32_t)old), b = sim_f32((uint32_t)v); r = sim_u32(b != b ? a : a != a ? b : fmaxf(a, b)); break; }
	case SIM_A_PK_ADD_F16:
		r = sim_f32_to_f16(sim_f16_to_f32((uint16_t)old) + sim_f16_to_f32((uint16_t)v)) |
		    (uint32_t)sim_f32_to_f16(sim_f16_to_f32((uint16_t)(old >> 16)) + sim_f16_to_f32((uint16_t)(v >> 16))) << 16;
		break;
	case SIM_A_PK_ADD_BF16:
		r = sim_f32_to_bf16(sim_bf16_to_f32((uint16_t)old) + sim_bf16_to_f32((uint16_t)v)) |
		    (uint32_t)sim_f32_to_bf16(sim_bf16_to_f32((uint16_t)(old >> 16)) + sim_bf16_to_f32((uint16_t)(v >> 16))) << 16;
		break;
	case SIM_A_ADD_F64: r = sim_u64(sim_f64(old) + sim_f64(v)); break;
	case SIM_A_MIN_F64: r = sim_u64(fmin(sim_f64(old), sim_f64(v))); break;
	case SIM_A_MAX_F64: r = sim_u64(fmax(sim_f64(old), sim_f64(v))); break;
	default: r = old; break;
	}
	memcpy(p, &r, wide ? 8 : 4);
	return old;
}

/* FLAT/GLOBAL atomics. Return form has 4 operands (global) / 3 (flat). */
static int mem_atomic(SimWave *w, const SimInst *in, int sp, int op, int wide)
{
	int ret = sp == SP_FLAT ? in->nops >= 3 : (in->nops >= 4);
	int ai = ret ? 1 : 0, di = ai + 1, si = di + 1;
	uint32_t n = wide ? 8 : 4;
	sim_atomic_lock(w);
	LANES(l) {
		uint64_t a = lane_addr(w, in, sp, ai, si, l);
		uint8_t *p = lane_ptr(w, sp, a, n, l, 1);
		if (!p) { sim_atomic_unlock(w); return SIM_FAULT; }
		uint64_t v = wide ? sim_rd64(w, O(di), l) : sim_rd32(w, O(di), l), c = 0;
		if (op == SIM_A_CMPSWAP) c = wide ? (sim_rd(w, O(di), 2, l) | (uint64_t)sim_rd(w, O(di), 3, l) << 32) : sim_rd(w, O(di), 1, l);
		uint64_t old = sim_atomic_apply(p, op, wide, v, c);
		if (ret) { if (wide) sim_wr64(w, O(0), l, old); else sim_wr(w, O(0), 0, l, (uint32_t)old); }
	}
	sim_atomic_unlock(w);
	return SIM_NEXT;
}
#define ATOMS(pfx, sp) \
	int sim_op_##pfx##_atomic_swap(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_SWAP, 0); } \
	int sim_op_##pfx##_atomic_cmpswap(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_CMPSWAP, 0); } \
	int sim_op_##pfx##_atomic_add(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_ADD, 0); } \
	int sim_op_##pfx##_atomic_sub(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_SUB, 0); } \
	int sim_op_##pfx##_atomic_smin(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_SMIN, 0); } \
	int sim_op_##pfx##_atomic_umin(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_UMIN, 0); } \
	int sim_op_##pfx##_atomic_smax(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_SMAX, 0); } \
	int sim_op_##pfx##_atomic_umax(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_UMAX, 0); } \
	int sim_op_##pfx##_atomic_and(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_AND, 0); } \
	int sim_op_##pfx##_atomic_or(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_OR, 0); } \
	int sim_op_##pfx##_atomic_xor(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_XOR, 0); } \
	int sim_op_##pfx##_atomic_inc(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_INC, 0); } \
	int sim_op_##pfx##_atomic_dec(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_DEC, 0); } \
	int sim_op_##pfx##_atomic_add_f32(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_ADD_F32, 0); } \
	int sim_op_##pfx##_atomic_pk_add_f16(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_PK_ADD_F16, 0); } \
	int sim_op_##pfx##_atomic_pk_add_bf16(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_PK_ADD_BF16, 0); } \
	int sim_op_##pfx##_atomic_add_f64(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_ADD_F64, 1); } \
	int sim_op_##pfx##_atomic_min_f64(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_MIN_F64, 1); } \
	int sim_op_##pfx##_atomic_max_f64(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_MAX_F64, 1); } \
	int sim_op_##pfx##_atomic_swap_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_SWAP, 1); } \
	int sim_op_##pfx##_atomic_cmpswap_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_CMPSWAP, 1); } \
	int sim_op_##pfx##_atomic_add_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_ADD, 1); } \
	int sim_op_##pfx##_atomic_sub_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_SUB, 1); } \
	int sim_op_##pfx##_atomic_smin_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_SMIN, 1); } \
	int sim_op_##pfx##_atomic_umin_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_UMIN, 1); } \
	int sim_op_##pfx##_atomic_smax_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_SMAX, 1); } \
	int sim_op_##pfx##_atomic_umax_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_UMAX, 1); } \
	int sim_op_##pfx##_atomic_and_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_AND, 1); } \
	int sim_op_##pfx##_atomic_or_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_OR, 1); } \
	int sim_op_##pfx##_atomic_xor_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_XOR, 1); } \
	int sim_op_##pfx##_atomic_inc_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_INC, 1); } \
	int sim_op_##pfx##_atomic_dec_x2(SimWave *w, const SimInst *in) { return mem_atomic(w, in, sp, SIM_A_DEC, 1); }
ATOMS(global, SP_GLOBAL)
ATOMS(flat, SP_FLAT)
/* GFX12 f32 min/max atomics (global_atomic_min_num_f32 ...) */
int sim_op_global_atomic_min_num_f32(SimWave *w, const SimInst *in) { return mem_atomic(w, in, SP_GLOBAL, SIM_A_MIN_F32, 0); }
int sim_op_global_atomic_max_num_f32(SimWave *w, const SimInst *in) { return mem_atomic(w, in, SP_GLOBAL, SIM_A_MAX_F32, 0); }
int sim_op_flat_atomic_min_num_f32(SimWave *w, const SimInst *in) { return mem_atomic(w, in, SP_FLAT, SIM_A_MIN_F32, 0); }
int sim_op_flat_atomic_max_num_f32(SimWave *w, const SimInst *in) { return mem_atomic(w, in, SP_FLAT, SIM_A_MAX_F32, 0); }

/* global_load_lds_*: each lane's data lands at M0 + offset + lane*stride in LDS */
static int global_load_lds(SimWave *w, const SimInst *in, uint32_t n, uint32_t stride, int sgn)
{
	uint32_t base = w->s[SIM_M0] + (uint32_t)in->offset;
	LANES(l) {
		uint64_t a;
		const SimOperand *va = O(0), *sa = in->nops > 1 ? O(1) : NULL;
		if (sa && sa->kind == SIM_OPK_SGPR) a = sim_rd64(w, sa, 0) + sim_rd32(w, va, l) + (uint64_t)(int64_t)in->offset;
		else a = sim_rd64(w, va, l) + (uint64_t)(int64_t)in->offset;
		const uint8_t *p = sim_gptr(w, a, n, l, 0);
		if (!p) return SIM_FAULT;
		uint8_t buf[16] = { 0 };
		memcpy(buf, p, n);
		if (n < 4 && sgn && (buf[n - 1] & 0x80)) memset(buf + n, 0xff, 4 - n);
		uint8_t *q = sim_lptr(w, base + (uint32_t)l * stride, n < 4 ? 4 : n, l, 1);
		if (!q) return SIM_FAULT;
		memcpy(q, buf, n < 4 ? 4 : n);
	}
	return SIM_NEXT;
}
int sim_op_global_load_lds_ubyte(SimWave *w, const SimInst *in) { return global_load_lds(w, in, 1, 4, 0); }
int sim_op_global_load_lds_sbyte(SimWave *w, const SimInst *in) { return global_load_lds(w, in, 1, 4, 1); }
int sim_op_global_load_lds_ushort(SimWave *w, const SimInst *in) { return global_load_lds(w, in, 2, 4, 0); }
int sim_op_global_load_lds_sshort(SimWave *w, const SimInst *in) { return global_load_lds(w, in, 2, 4, 1); }
int sim_op_global_load_lds_dword(SimWave *w, const SimInst *in) { return global_load_lds(w, in, 4, 4, 0); }
int sim_op_global_load_lds_dwordx3(SimWave *w, const SimInst *in) { return global_load_lds(w, in, 12, 16, 0); }
int sim_op_global_load_lds_dwordx4(SimWave *w, const SimInst *in) { return global_load_lds(w, in, 16, 16, 0); }

/* GFX12 transposed global loads (wave32): global_load_tr_b128 (8 16-bit
 * elements per lane) and global_load_tr_b64 (8 bytes per lane). Each active
 * lane loads 8 consecutive elements at its address; then, in each group of 8
 * lanes, lane m's element e is element m%8 of the load of lane 8*(m/8) + e
 * (the 8x8 block of the group is transposed), which turns 8 lanes' columns of
 * a matrix into the rows a WMMA operand wants. Sources (docs/simulator-matrix.md,
 * "Transposed global loads"): triton's gfx12 transposed-load layouts and its
 * comment "eight lanes load an 8x8 block of values and transpose them", the
 * MLIR amdgpu.global_transpose_load description (each thread reads a column
 * and receives the transposed row), and the RDNA4 ISA guide section triton
 * cites (11.6.2). Inactive lanes contribute zeros and their registers are kept. */
static int global_load_tr(SimWave *w, const SimInst *in, uint32_t ebytes)
{
	if (w->lanes != 32) return sim_fault(w, "unsupported instruction %s in wave64 (the simulator runs it in wave32)", in->mnem);
	uint8_t buf[32][16];
	uint32_t n = 8 * ebytes;
	memset(buf, 0, sizeof buf);
	uint64_t ex = sim_exec(w);
	LANES(l) {
		const uint8_t *p = lane_ptr(w, SP_GLOBAL, lane_addr(w, in, SP_GLOBAL, 1, 2, l), n, l, 0);
		if (!p) return SIM_FAULT;
		memcpy(buf[l], p, n);
	}
	for (int m = 0; m < 32; m++) {
		if (!(ex >> m & 1)) continue;
		uint8_t out[16];
		for (int e = 0; e < 8; e++) memcpy(out + e * ebytes, buf[(m & ~7) + e] + (m & 7) * ebytes, ebytes);
		for (uint32_t r = 0; r < n / 4; r++) { uint32_t v; memcpy(&v, out + 4 * r, 4); sim_wr(w, O(0), (int)r, m, v); }
	}
	return SIM_NEXT;
}
int sim_op_global_load_tr_b128(SimWave *w, const SimInst *in) { return global_load_tr(w, in, 2); }
int sim_op_global_load_tr_b64(SimWave *w, const SimInst *in) { return global_load_tr(w, in, 1); }

/* ---- MUBUF ----
 * Range checking. gfx9 (CDNA3 ISA "Buffer addressing"): raw (stride 0, or no
 * idxen) in range when offset + size <= num_records; structured when index <
 * num_records. gfx12 (RDNA4) chooses the rule with word3's OOB_SELECT (bits
 * 29:28), as RADV/Mesa program it (V_008F0C_OOB_SELECT_*):
 *   0 structured with offset: out when index >= num_records or the offset
 *     inside the record + size > stride;
 *   1 structured: out when index >= num_records;
 *   2 disabled: out only when num_records == 0;
 *   3 raw: out when the byte offset (index * stride + offsets) + size > num_records.
 * Each dword of a multi-dword access is checked on its own (both ISAs). The
 * gfx12 word1 swizzle bits (31:30) and word3 ADD_TID_ENABLE (bit 23) are not
 * modelled: a resource with them set stops the run. */
typedef struct { uint64_t base; uint32_t stride, nrec; int oob; } Rsrc;   /* oob -1: the gfx9 rule */
static int rsrc(SimWave *w, const SimInst *in, const SimOperand *o, Rsrc *r)
{
	uint32_t w0 = sim_rd(w, o, 0, 0), w1 = sim_rd(w, o, 1, 0), w3 = sim_rd(w, o, 3, 0);
	r->base = w0 | (uint64_t)(w1 & 0xffff) << 32;
	r->stride = (w1 >> 16) & 0x3fff;
	r->nrec = sim_rd(w, o, 2, 0);
	r->oob = -1;
	if (w->arch->isa == SIM_ISA_GFX12) {
		if (w1 >> 30 || (w3 >> 23 & 1))
			return sim_fault(w, "unsupported buffer resource for %s: %s (word1 0x%08x, word3 0x%08x)", in->mnem,
			                 w1 >> 30 ? "swizzled addressing" : "ADD_TID_ENABLE", w1, w3);
		r->oob = (int)(w3 >> 28 & 3);
	}
	return 0;
}
/* Byte offset of a lane's access from the resource base, and whether byte k of
 * an n-byte access is in range. Operands: vdata, vaddr|off, srsrc, soffset. */
static uint64_t buf_off(SimWave *w, const SimInst *in, const Rsrc *r, int l, uint32_t *idx)
{
	const SimOperand *va = O(1);
	uint32_t vo = 0, vi = 0;
	if (in->idxen && in->offen) { vi = sim_rd(w, va, 0, l); vo = sim_rd(w, va, 1, l); }
	else if (in->idxen) vi = sim_rd32(w, va, l);
	else if (in->offen) vo = sim_rd32(w, va, l);
	*idx = vi;
	uint32_t so = in->nops > 3 ? sim_rd32(w, O(3), 0) : 0;
	return (uint64_t)so + (uint32_t)in->offset + vo + (uint64_t)r->stride * vi;
}
static int buf_in_range(const SimInst *in, const Rsrc *r, uint64_t off, uint32_t idx, uint32_t n)
{
	switch (r->oob) {
	case 0: return idx < r->nrec && off - (uint64_t)r->stride * idx + n <= r->stride;
	case 1: return idx < r->nrec;
	case 2: return r->nrec != 0;
	case 3: return off + n <= r->nrec;
	default:
		if (r->stride && in->idxen) return idx < r->nrec;
		return off + n <= r->nrec;
	}
}
static int buf_load(SimWave *w, const SimInst *in, int kind, int ndw)
{
	uint32_t n = kind == LD_B32 ? 4u * (uint32_t)ndw : ld_bytes[kind];
	SimInst shifted;
	if (in->lds && in->nops < 4) {
		/* "buffer_load_dword vaddr|off, srsrc, soffset lds" has no vdata:
		 * shift the operands to the usual positions */
		shifted = *in;
		memmove(&shifted.o[1], &shifted.o[0], sizeof shifted.o[0] * (SIM_MAX_OPS - 1));
		memset(&shifted.o[0], 0, sizeof shifted.o[0]);
		shifted.nops++;
		in = &shifted;
	}
	Rsrc r;
	if (rsrc(w, in, O(2), &r)) return SIM_FAULT;
	if (in->lds) {
		uint32_t base = w->s[SIM_M0] + (uint32_t)in->offset;
		LANES(l) {
			uint32_t idx; uint64_t off = buf_off(w, in, &r, l, &idx);
			uint8_t buf[16] = { 0 };
			if (buf_in_range(in, &r, off, idx, n)) { const uint8_t *p = sim_gptr(w, r.base + off, n, l, 0); if (!p) return SIM_FAULT; memcpy(buf, p, n); }
			uint8_t *q = sim_lptr(w, base + (uint32_t)l * (n <= 4 ? 4 : 16), n < 4 ? 4 : n, l, 1);
			if (!q) return SIM_FAULT;
			memcpy(q, buf, n < 4 ? 4 : n);
		}
		return SIM_NEXT;
	}
	LANES(l) {
		uint32_t idx; uint64_t off = buf_off(w, in, &r, l, &idx);
		uint8_t buf[16] = { 0 };
		if (kind == LD_B32) {
			for (int i = 0; i < ndw; i++)   /* per dword */
				if (buf_in_range(in, &r, off + 4u * (uint32_t)i, idx, 4)) {
					const uint8_t *p = sim_gptr(w, r.base + off + 4u * (uint32_t)i, 4, l, 0);
					if (!p) return SIM_FAULT;
					memcpy(buf + 4 * i, p, 4);
				}
		} else if (buf_in_range(in, &r, off, idx, n)) {
			const uint8_t *p = sim_gptr(w, r.base + off, n, l, 0);
			if (!p) return SIM_FAULT;
			memcpy(buf, p, n);
		}
		put_loaded(w, O(0), l, kind, buf, ndw);
	}
	return SIM_NEXT;
}
static int buf_store(SimWave *w, const SimInst *in, uint32_t n, int hi)
{
	Rsrc r;
	if (rsrc(w, in, O(2), &r)) return SIM_FAULT;
	LANES(l) {
		uint32_t idx; uint64_t off = buf_off(w, in, &r, l, &idx);
		if (n >= 4) {
			for (uint32_t i = 0; i < n / 4; i++) {
				if (!buf_in_range(in, &r, off + 4 * i, idx, 4)) continue;   /* dropped */
				uint8_t *p = sim_gptr(w, r.base + off + 4 * i, 4, l, 1);
				if (!p) return SIM_FAULT;
				uint32_t v = sim_rd(w, O(0), (int)i, l); memcpy(p, &v, 4);
			}
		} else if (buf_in_range(in, &r, off, idx, n)) {
			uint8_t *p = sim_gptr(w, r.base + off, n, l, 1);
			if (!p) return SIM_FAULT;
			uint32_t v = sim_rd32(w, O(0), l); if (hi) v >>= 16; memcpy(p, &v, n);
		}
	}
	return SIM_NEXT;
}
static int buf_atomic(SimWave *w, const SimInst *in, int op, int wide)
{
	Rsrc r;
	if (rsrc(w, in, O(2), &r)) return SIM_FAULT;
	int ret = in->glc || in->sc0;
	uint32_t n = wide ? 8 : 4;
	sim_atomic_lock(w);
	LANES(l) {
		uint32_t idx; uint64_t off = buf_off(w, in, &r, l, &idx);
		uint64_t old = 0;
		if (buf_in_range(in, &r, off, idx, n)) {
			uint8_t *p = sim_gptr(w, r.base + off, n, l, 1);
			if (!p) { sim_atomic_unlock(w); return SIM_FAULT; }
			uint64_t v = wide ? sim_rd64(w, O(0), l) : sim_rd32(w, O(0), l), c = 0;
			if (op == SIM_A_CMPSWAP) c = wide ? (sim_rd(w, O(0), 2, l) | (uint64_t)sim_rd(w, O(0), 3, l) << 32) : sim_rd(w, O(0), 1, l);
			old = sim_atomic_apply(p, op, wide, v, c);
		}
		if (ret) { if (wide) sim_wr64(w, O(0), l, old); else sim_wr(w, O(0), 0, l, (uint32_t)old); }
	}
	sim_atomic_unlock(w);
	return SIM_NEXT;
}
#define BUFOPS \
	int sim_op_buffer_load_ubyte(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_U8, 1); } \
	int sim_op_buffer_load_sbyte(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_I8, 1); } \
	int sim_op_buffer_load_ushort(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_U16, 1); } \
	int sim_op_buffer_load_sshort(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_I16, 1); } \
	int sim_op_buffer_load_dword(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_B32, 1); } \
	int sim_op_buffer_load_dwordx2(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_B32, 2); } \
	int sim_op_buffer_load_dwordx3(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_B32, 3); } \
	int sim_op_buffer_load_dwordx4(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_B32, 4); } \
	int sim_op_buffer_load_ubyte_d16(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_D16_U8, 1); } \
	int sim_op_buffer_load_ubyte_d16_hi(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_D16_HI_U8, 1); } \
	int sim_op_buffer_load_sbyte_d16(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_D16_I8, 1); } \
	int sim_op_buffer_load_sbyte_d16_hi(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_D16_HI_I8, 1); } \
	int sim_op_buffer_load_short_d16(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_D16, 1); } \
	int sim_op_buffer_load_short_d16_hi(SimWave *w, const SimInst *in) { return buf_load(w, in, LD_D16_HI, 1); } \
	int sim_op_buffer_store_byte(SimWave *w, const SimInst *in) { return buf_store(w, in, 1, 0); } \
	int sim_op_buffer_store_byte_d16_hi(SimWave *w, const SimInst *in) { return buf_store(w, in, 1, 1); } \
	int sim_op_buffer_store_short(SimWave *w, const SimInst *in) { return buf_store(w, in, 2, 0); } \
	int sim_op_buffer_store_short_d16_hi(SimWave *w, const SimInst *in) { return buf_store(w, in, 2, 1); } \
	int sim_op_buffer_store_dword(SimWave *w, const SimInst *in) { return buf_store(w, in, 4, 0); } \
	int sim_op_buffer_store_dwordx2(SimWave *w, const SimInst *in) { return buf_store(w, in, 8, 0); } \
	int sim_op_buffer_store_dwordx3(SimWave *w, const SimInst *in) { return buf_store(w, in, 12, 0); } \
	int sim_op_buffer_store_dwordx4(SimWave *w, const SimInst *in) { return buf_store(w, in, 16, 0); }
BUFOPS
#define BATOM(name, op, wide) int sim_op_buffer_atomic_##name(SimWave *w, const SimInst *in) { return buf_atomic(w, in, op, wide); }
BATOM(swap, SIM_A_SWAP, 0) BATOM(cmpswap, SIM_A_CMPSWAP, 0) BATOM(add, SIM_A_ADD, 0) BATOM(sub, SIM_A_SUB, 0)
BATOM(smin, SIM_A_SMIN, 0) BATOM(umin, SIM_A_UMIN, 0) BATOM(smax, SIM_A_SMAX, 0) BATOM(umax, SIM_A_UMAX, 0)
BATOM(and, SIM_A_AND, 0) BATOM(or, SIM_A_OR, 0) BATOM(xor, SIM_A_XOR, 0) BATOM(inc, SIM_A_INC, 0) BATOM(dec, SIM_A_DEC, 0)
BATOM(add_f32, SIM_A_ADD_F32, 0) BATOM(pk_add_f16, SIM_A_PK_ADD_F16, 0) BATOM(pk_add_bf16, SIM_A_PK_ADD_BF16, 0)
BATOM(add_f64, SIM_A_ADD_F64, 1) BATOM(min_f64, SIM_A_MIN_F64, 1) BATOM(max_f64, SIM_A_MAX_F64, 1)
BATOM(swap_x2, SIM_A_SWAP, 1) BATOM(cmpswap_x2, SIM_A_CMPSWAP, 1) BATOM(add_x2, SIM_A_ADD, 1) BATOM(sub_x2, SIM_A_SUB, 1)
BATOM(smin_x2, SIM_A_SMIN, 1) BATOM(umin_x2, SIM_A_UMIN, 1) BATOM(smax_x2, SIM_A_SMAX, 1) BATOM(umax_x2, SIM_A_UMAX, 1)
BATOM(and_x2, SIM_A_AND, 1) BATOM(or_x2, SIM_A_OR, 1) BATOM(xor_x2, SIM_A_XOR, 1) BATOM(inc_x2, SIM_A_INC, 1) BATOM(dec_x2, SIM_A_DEC, 1)

/* ---- DS ---- */
static inline uint32_t ds_addr(SimWave *w, const SimInst *in, int ai, int l) { return sim_rd32(w, O(ai), l) + (uint32_t)in->offset; }
static int ds_read(SimWave *w, const SimInst *in, int kind, int ndw)
{
	uint32_t n = kind == LD_B32 ? 4u * (uint32_t)ndw : ld_bytes[kind];
	LANES(l) {
		const uint8_t *p = sim_lptr(w, ds_addr(w, in, 1, l), n, l, 0);
		if (!p) return SIM_FAULT;
		put_loaded(w, O(0), l, kind, p, ndw);
	}
	return SIM_NEXT;
}
static int ds_write(SimWave *w, const SimInst *in, uint32_t n, int hi)
{
	LANES(l) {
		uint8_t *p = sim_lptr(w, ds_addr(w, in, 0, l), n, l, 1);
		if (!p) return SIM_FAULT;
		if (n >= 4) for (uint32_t i = 0; i < n / 4; i++) { uint32_t v = sim_rd(w, O(1), (int)i, l); memcpy(p + 4 * i, &v, 4); }
		else { uint32_t v = sim_rd32(w, O(1), l); if (hi) v >>= 16; memcpy(p, &v, n); }
	}
	return SIM_NEXT;
}
/* read2/write2: two elements of esz bytes at offset0/offset1 * esz * mul */
static int ds_read2(SimWave *w, const SimInst *in, uint32_t esz, uint32_t mul)
{
	LANES(l) {
		uint32_t a = sim_rd32(w, O(1), l);
		const uint8_t *p0 = sim_lptr(w, a + in->offset0 * esz * mul, esz, l, 0);
		if (!p0) return SIM_FAULT;
		const uint8_t *p1 = sim_lptr(w, a + in->offset1 * esz * mul, esz, l, 0);
		if (!p1) return SIM_FAULT;
		uint32_t v[4];
		memcpy(v, p0, esz); memcpy((uint8_t *)v + esz, p1, esz);
		for (uint32_t i = 0; i < esz / 2; i++) sim_wr(w, O(0), (int)i, l, v[i]);
	}
	return SIM_NEXT;
}
static int ds_write2(SimWave *w, const SimInst *in, uint32_t esz, uint32_t mul)
{
	LANES(l) {
		uint32_t a = sim_rd32(w, O(0), l);
		uint8_t *p0 = sim_lptr(w, a + in->offset0 * esz * mul, esz, l, 1);
		if (!p0) return SIM_FAULT;
		uint8_t *p1 = sim_lptr(w, a + in->offset1 * esz * mul, esz, l, 1);
		if (!p1) return SIM_FAULT;
		for (uint32_t i = 0; i < esz / 4; i++) {
			uint32_t v0 = sim_rd(w, O(1), (int)i, l), v1 = sim_rd(w, O(2), (int)i, l);
			memcpy(p0 + 4 * i, &v0, 4); memcpy(p1 + 4 * i, &v1, 4);
		}
	}
	return SIM_NEXT;
}
int sim_op_ds_read_u8(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_U8, 1); }
int sim_op_ds_read_i8(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_I8, 1); }
int sim_op_ds_read_u16(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_U16, 1); }
int sim_op_ds_read_i16(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_I16, 1); }
int sim_op_ds_read_u8_d16(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_D16_U8, 1); }
int sim_op_ds_read_u8_d16_hi(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_D16_HI_U8, 1); }
int sim_op_ds_read_i8_d16(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_D16_I8, 1); }
int sim_op_ds_read_i8_d16_hi(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_D16_HI_I8, 1); }
int sim_op_ds_read_u16_d16(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_D16, 1); }
int sim_op_ds_read_u16_d16_hi(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_D16_HI, 1); }
int sim_op_ds_read_b32(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_B32, 1); }
int sim_op_ds_read_b64(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_B32, 2); }
int sim_op_ds_read_b96(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_B32, 3); }
int sim_op_ds_read_b128(SimWave *w, const SimInst *in) { return ds_read(w, in, LD_B32, 4); }
int sim_op_ds_read2_b32(SimWave *w, const SimInst *in) { return ds_read2(w, in, 4, 1); }
int sim_op_ds_read2st64_b32(SimWave *w, const SimInst *in) { return ds_read2(w, in, 4, 64); }
int sim_op_ds_read2_b64(SimWave *w, const SimInst *in) { return ds_read2(w, in, 8, 1); }
int sim_op_ds_read2st64_b64(SimWave *w, const SimInst *in) { return ds_read2(w, in, 8, 64); }
int sim_op_ds_write_b8(SimWave *w, const SimInst *in) { return ds_write(w, in, 1, 0); }
int sim_op_ds_write_b8_d16_hi(SimWave *w, const SimInst *in) { return ds_write(w, in, 1, 1); }
int sim_op_ds_write_b16(SimWave *w, const SimInst *in) { return ds_write(w, in, 2, 0); }
int sim_op_ds_write_b16_d16_hi(SimWave *w, const SimInst *in) { return ds_write(w, in, 2, 1); }
int sim_op_ds_write_b32(SimWave *w, const SimInst *in) { return ds_write(w, in, 4, 0); }
int sim_op_ds_write_b64(SimWave *w, const SimInst *in) { return ds_write(w, in, 8, 0); }
int sim_op_ds_write_b96(SimWave *w, const SimInst *in) { return ds_write(w, in, 12, 0); }
int sim_op_ds_write_b128(SimWave *w, const SimInst *in) { return ds_write(w, in, 16, 0); }
int sim_op_ds_write2_b32(SimWave *w, const SimInst *in) { return ds_write2(w, in, 4, 1); }
int sim_op_ds_write2st64_b32(SimWave *w, const SimInst *in) { return ds_write2(w, in, 4, 64); }
int sim_op_ds_write2_b64(SimWave *w, const SimInst *in) { return ds_write2(w, in, 8, 1); }
int sim_op_ds_write2st64_b64(SimWave *w, const SimInst *in) { return ds_write2(w, in, 8, 64); }
int sim_op_ds_nop(SimWave *w, const SimInst *in) { return SIM_NEXT; }

/* DS atomics: no-return "ds_add_u32 vaddr, vdata[, vdata2]", return "ds_add_rtn_u32 vdst, vaddr, vdata[, vdata2]".
 * ds_cmpst_b32 vaddr, cmp, data (swap in data if mem == cmp); ds_mskor_b32 vaddr, mask, data. */
static int ds_atomic(SimWave *w, const SimInst *in, int op, int wide, int ret)
{
	int ai = ret ? 1 : 0, di = ai + 1;
	uint32_t n = wide ? 8 : 4;
	LANES(l) {
		uint8_t *p = sim_lptr(w, ds_addr(w, in, ai, l), n, l, 2);
		if (!p) return SIM_FAULT;
		uint64_t v = wide ? sim_rd64(w, O(di), l) : sim_rd32(w, O(di), l), c = 0;
		if (op == SIM_A_CMPSWAP) { c = v; v = wide ? sim_rd64(w, O(di + 1), l) : sim_rd32(w, O(di + 1), l); }
		if (op == SIM_A_MSKOR) c = wide ? sim_rd64(w, O(di + 1), l) : sim_rd32(w, O(di + 1), l);
		uint64_t old = sim_atomic_apply(p, op, wide, v, c);
		if (ret) { if (wide) sim_wr64(w, O(0), l, old); else sim_wr(w, O(0), 0, l, (uint32_t)old); }
	}
	return SIM_NEXT;
}
/* GFX11+ ds_cmpstore_b32 vaddr, data, cmp (RDNA4 ISA: the new value first,
 * then the compare value; gfx9's ds_cmpst has them the other way round) */
static int ds_cmpstore(SimWave *w, const SimInst *in, int wide, int ret)
{
	SimInst t = *in;
	int di = ret ? 2 : 1;
	SimOperand o = t.o[di]; t.o[di] = t.o[di + 1]; t.o[di + 1] = o;
	return ds_atomic(w, &t, SIM_A_CMPSWAP, wide, ret);
}
int sim_op_ds_cmpstore_b32(SimWave *w, const SimInst *in) { return ds_cmpstore(w, in, 0, 0); }
int sim_op_ds_cmpstore_rtn_b32(SimWave *w, const SimInst *in) { return ds_cmpstore(w, in, 0, 1); }
int sim_op_ds_cmpstore_b64(SimWave *w, const SimInst *in) { return ds_cmpstore(w, in, 1, 0); }
int sim_op_ds_cmpstore_rtn_b64(SimWave *w, const SimInst *in) { return ds_cmpstore(w, in, 1, 1); }
#define DSA(name, op, wide) \
	int sim_op_ds_##name(SimWave *w, const SimInst *in) { return ds_atomic(w, in, op, wide, 0); }
#define DSAR(name, rname, op, wide) DSA(name, op, wide) \
	int sim_op_ds_##rname(SimWave *w, const SimInst *in) { return ds_atomic(w, in, op, wide, 1); }
DSAR(add_u32, add_rtn_u32, SIM_A_ADD, 0) DSAR(sub_u32, sub_rtn_u32, SIM_A_SUB, 0) DSAR(rsub_u32, rsub_rtn_u32, SIM_A_RSUB, 0)
DSAR(inc_u32, inc_rtn_u32, SIM_A_INC, 0) DSAR(dec_u32, dec_rtn_u32, SIM_A_DEC, 0)
DSAR(min_i32, min_rtn_i32, SIM_A_SMIN, 0) DSAR(max_i32, max_rtn_i32, SIM_A_SMAX, 0)
DSAR(min_u32, min_rtn_u32, SIM_A_UMIN, 0) DSAR(max_u32, max_rtn_u32, SIM_A_UMAX, 0)
DSAR(and_b32, and_rtn_b32, SIM_A_AND, 0) DSAR(or_b32, or_rtn_b32, SIM_A_OR, 0) DSAR(xor_b32, xor_rtn_b32, SIM_A_XOR, 0)
DSAR(mskor_b32, mskor_rtn_b32, SIM_A_MSKOR, 0) DSAR(cmpst_b32, cmpst_rtn_b32, SIM_A_CMPSWAP, 0)
DSAR(add_f32, add_rtn_f32, SIM_A_ADD_F32, 0) DSAR(min_f32, min_rtn_f32, SIM_A_MIN_F32, 0) DSAR(max_f32, max_rtn_f32, SIM_A_MAX_F32, 0)
DSAR(pk_add_f16, pk_add_rtn_f16, SIM_A_PK_ADD_F16, 0) DSAR(pk_add_bf16, pk_add_rtn_bf16, SIM_A_PK_ADD_BF16, 0)
DSAR(add_u64, add_rtn_u64, SIM_A_ADD, 1) DSAR(sub_u64, sub_rtn_u64, SIM_A_SUB, 1) DSAR(rsub_u64, rsub_rtn_u64, SIM_A_RSUB, 1)
DSAR(inc_u64, inc_rtn_u64, SIM_A_INC, 1) DSAR(dec_u64, dec_rtn_u64, SIM_A_DEC, 1)
DSAR(min_i64, min_rtn_i64, SIM_A_SMIN, 1) DSAR(max_i64, max_rtn_i64, SIM_A_SMAX, 1)
DSAR(min_u64, min_rtn_u64, SIM_A_UMIN, 1) DSAR(max_u64, max_rtn_u64, SIM_A_UMAX, 1)
DSAR(and_b64, and_rtn_b64, SIM_A_AND, 1) DSAR(or_b64, or_rtn_b64, SIM_A_OR, 1) DSAR(xor_b64, xor_rtn_b64, SIM_A_XOR, 1)
DSAR(cmpst_b64, cmpst_rtn_b64, SIM_A_CMPSWAP, 1) DSAR(add_f64, add_rtn_f64, SIM_A_ADD_F64, 1)
DSAR(min_f64, min_rtn_f64, SIM_A_MIN_F64, 1) DSAR(max_f64, max_rtn_f64, SIM_A_MAX_F64, 1)
int sim_op_ds_wrxchg_rtn_b32(SimWave *w, const SimInst *in) { return ds_atomic(w, in, SIM_A_SWAP, 0, 1); }
int sim_op_ds_wrxchg_rtn_b64(SimWave *w, const SimInst *in) { return ds_atomic(w, in, SIM_A_SWAP, 1, 1); }

/* cross-lane through the LDS crossbar (no LDS memory is touched) */
int sim_op_ds_bpermute_b32(SimWave *w, const SimInst *in)
{
	uint32_t tmp[64];
	uint64_t e = sim_exec(w);
	LANES(l) {
		int s = (int)(((sim_rd32(w, O(1), l) + (uint32_t)in->offset) >> 2) & 63);
		tmp[l] = ((e >> s) & 1) ? sim_rd32(w, O(2), s) : 0;
	}
	LANES(l) sim_wr(w, O(0), 0, l, tmp[l]);
	return SIM_NEXT;
}
int sim_op_ds_permute_b32(SimWave *w, const SimInst *in)
{
	uint32_t tmp[64] = { 0 };
	LANES(l) {
		int d = (int)(((sim_rd32(w, O(1), l) + (uint32_t)in->offset) >> 2) & 63);
		tmp[d] = sim_rd32(w, O(2), l);
	}
	LANES(l) sim_wr(w, O(0), 0, l, tmp[l]);
	return SIM_NEXT;
}
int sim_op_ds_swizzle_b32(SimWave *w, const SimInst *in)
{
	uint32_t tmp[64], off = (uint32_t)in->offset & 0xffff;
	uint64_t e = sim_exec(w);
	LANES(l) {
		int s;
		if (off & 0x8000) s = (l & ~3) | (int)((off >> ((l & 3) * 2)) & 3);
		else {
			int andm = (int)(off & 0x1f), orm = (int)((off >> 5) & 0x1f), xorm = (int)((off >> 10) & 0x1f);
			s = (l & 32) | ((((l & 31) & andm) | orm) ^ xorm);
		}
		tmp[l] = ((e >> s) & 1) ? sim_rd32(w, O(1), s) : 0;
	}
	LANES(l) sim_wr(w, O(0), 0, l, tmp[l]);
	return SIM_NEXT;
}

/* ds_append / ds_consume vdst [offset:N]: one atomic add (sub) of the number of
 * active lanes to the LDS dword at M0[15:0] + offset; every lane gets the old value */
static int ds_append_consume(SimWave *w, const SimInst *in, int sub)
{
	uint64_t e = sim_exec(w);
	if (!e) return SIM_NEXT;
	int first = __builtin_ctzll(e);
	uint8_t *p = sim_lptr(w, (w->s[SIM_M0] & 0xffff) + (uint32_t)in->offset, 4, first, 2);
	if (!p) return SIM_FAULT;
	uint32_t old, n = (uint32_t)__builtin_popcountll(e);
	memcpy(&old, p, 4);
	uint32_t v = sub ? old - n : old + n;
	memcpy(p, &v, 4);
	LANES(l) sim_wr(w, O(0), 0, l, old);
	return SIM_NEXT;
}
int sim_op_ds_append(SimWave *w, const SimInst *in) { return ds_append_consume(w, in, 0); }
int sim_op_ds_consume(SimWave *w, const SimInst *in) { return ds_append_consume(w, in, 1); }

/* buffer_load_format_* / buffer_store_format_*: typed access through the
 * resource's DATA_FORMAT (word3 bits 18:15). Only the 32-bit-per-component
 * formats are modelled (4 = 32, 11 = 32_32, 13 = 32_32_32, 14 = 32_32_32_32),
 * where a format access is a plain dword access; other formats, and d16
 * forms, stop the run as unsupported. */
static int format_dwords(SimWave *w, const SimInst *in, int rsrc_index, int want)
{
	if (w->arch->isa == SIM_ISA_GFX12)
		return sim_fault(w, "unsupported instruction %s on %s (the GFX12 buffer formats are not modelled)", in->mnem,
		                 w->arch->name);
	uint32_t w3 = sim_rd(w, &in->o[rsrc_index], 3, 0), df = (w3 >> 15) & 15;
	int have = df == 4 ? 1 : df == 11 ? 2 : df == 13 ? 3 : df == 14 ? 4 : 0;
	if (have < want)
		return sim_fault(w, "unsupported instruction %s with buffer DATA_FORMAT %u (only 32-bit component formats are modelled)",
		                 in->mnem, df);
	return 0;
}
#define BUF_FMT(n, cnt) \
	int sim_op_buffer_load_format_##n(SimWave *w, const SimInst *in) \
	{ if (format_dwords(w, in, 2, cnt)) return SIM_FAULT; return buf_load(w, in, LD_B32, cnt); } \
	int sim_op_buffer_store_format_##n(SimWave *w, const SimInst *in) \
	{ if (format_dwords(w, in, 2, cnt)) return SIM_FAULT; return buf_store(w, in, 4 * cnt, 0); }
BUF_FMT(x, 1) BUF_FMT(xy, 2) BUF_FMT(xyz, 3) BUF_FMT(xyzw, 4)
