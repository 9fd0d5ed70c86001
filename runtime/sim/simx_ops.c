/* simx_ops.c — instruction handlers of the matrix, conversion and transposed-LDS rows
 * (simx_ops.h). They gather operands from the wave, call the pure semantics in simx_*.c
 * and write the results back. */
/* sim_int.h and codeobj.h (other owners) currently nest a comment opener inside comments. */
#pragma GCC diagnostic ignored "-Wcomment"
#include "sim/sim_int.h"
#include "sim/simx.h"

#include <string.h>

/* A 64-lane register row for a scalar or constant operand (MFMA C or scale). */
static void splat(uint32_t *row, uint32_t v)
{
	for (int l = 0; l < SIM_LANES; l++)
		row[l] = v;
}

/* Register-major view of an MFMA source: VGPR/AGPR rows in place, anything else copied. */
static const uint32_t *mfma_src(SimWave *w, const SimOperand *o, int nregs, int f64, uint32_t *tmp)
{
	if (o->kind == SIM_OPK_VGPR)
		return &w->v[o->reg][0];
	for (int r = 0; r < nregs; r++) {
		uint32_t v;
		if (o->kind == SIM_OPK_CONST)
			v = f64 ? (uint32_t)(o->kf64 >> (32 * (r % 2))) : o->k32;
		else
			v = sim_rd(w, o, r, 0);
		splat(tmp + r * SIM_LANES, v);
	}
	return tmp;
}

static int simx_op_mfma(SimWave *w, const SimInst *in)
{
	int id = simx_mfma_lookup(in->mnem);
	const simx_mfma_info *info = simx_mfma_get(id);
	if (!info)
		return sim_fault(w, "unsupported instruction %s", in->mnem);
	int nops = info->scaled ? 6 : 4;
	if (in->nops < nops)
		return sim_fault(w, "%s: expected %d operands", in->mnem, nops);
	simx_mfma_mods m = {0};
	/* The modifiers come from the encoding (the MAI dword pair is the last 8 bytes):
	 * cbsz = bits 10:8, abid = bits 14:11 of its first dword, blgp (neg for f64) = bits
	 * 31:29 of its second. The scaled form's v_mfma_ld_scale_b32 prefix carries op_sel in
	 * bits 12:11 and op_sel_hi in bits 28:27 of its second dword. */
	int mai = info->scaled ? 2 : 0;
	if (in->raw[mai] != 0) {
		m.cbsz = (int)((in->raw[mai] >> 8) & 7);
		m.abid = (int)((in->raw[mai] >> 11) & 15);
		m.blgp = (int)(in->raw[mai + 1] >> 29);
		if (info->scaled) {
			m.opsel_a = (int)(((in->raw[0] >> 11) & 1) | ((in->raw[1] >> 27) & 1) << 1);
			m.opsel_b = (int)(((in->raw[0] >> 12) & 1) | ((in->raw[1] >> 28) & 1) << 1);
		}
	} else { /* parsed from text only */
		m.cbsz = in->cbsz;
		m.abid = in->abid;
		m.blgp = in->blgp;
		if (info->scaled) {
			m.opsel_a = (in->op_sel & 1) | (in->op_sel_hi & 1) << 1;
			m.opsel_b = (in->op_sel >> 1 & 1) | (in->op_sel_hi >> 1 & 1) << 1;
		}
	}
	if (info->tc == SIMX_MT_F64) {
		m.neg = m.blgp;
		m.blgp = 0;
	}
	int ar, br;
	if (simx_mfma_ab_regs(id, &m, &ar, &br) < 0)
		return sim_fault(w, "%s: invalid format code (cbsz %d, blgp %d)", in->mnem, m.cbsz, m.blgp);
	const SimOperand *od = &in->o[0], *oa = &in->o[1], *ob = &in->o[2], *oc = &in->o[3];
	if (od->kind != SIM_OPK_VGPR || oa->kind != SIM_OPK_VGPR || ob->kind != SIM_OPK_VGPR ||
	    od->nregs < info->cd_regs || oa->nregs < ar || ob->nregs < br)
		return sim_fault(w, "%s: unexpected operands", in->mnem);
	if (od->reg + info->cd_regs > SIM_NVREG || oa->reg + ar > SIM_NVREG || ob->reg + br > SIM_NVREG)
		return sim_fault(w, "%s: register tuple out of range", in->mnem);
	static _Thread_local uint32_t ctmp[32 * SIM_LANES], sa[SIM_LANES], sb[SIM_LANES];
	const uint32_t *c;
	if (info->sparse) {
		/* v_smfmac: srcC is the compression index; D accumulates onto itself */
		m.sparse_idx = mfma_src(w, oc, 1, 0, sa);
		c = &w->v[od->reg][0];
	} else {
		c = mfma_src(w, oc, info->cd_regs, info->tc == SIMX_MT_F64, ctmp);
		if (oc->kind == SIM_OPK_VGPR && oc->reg + info->cd_regs > SIM_NVREG)
			return sim_fault(w, "%s: register tuple out of range", in->mnem);
	}
	if (info->scaled) {
		m.scale_a = mfma_src(w, &in->o[4], 1, 0, sa);
		m.scale_b = mfma_src(w, &in->o[5], 1, 0, sb);
	}
	if (simx_mfma_exec(id, &w->v[oa->reg][0], &w->v[ob->reg][0], c, &w->v[od->reg][0], &m) < 0)
		return sim_fault(w, "%s: invalid modifiers (cbsz %d abid %d blgp %d)", in->mnem, m.cbsz,
		                 m.abid, m.blgp);
	return SIM_NEXT;
}

static int simx_op_cvt(SimWave *w, const SimInst *in)
{
	int id = simx_cvt_lookup(in->mnem);
	if (id < 0)
		return sim_fault(w, "unsupported instruction %s", in->mnem);
	int nsrc = simx_cvt_nsrc(id), n0 = simx_cvt_src0_dwords(id), n1 = simx_cvt_src1_dwords(id);
	int nd = simx_cvt_dst_dwords(id);
	if (in->nops < 1 + nsrc)
		return sim_fault(w, "%s: expected %d operands", in->mnem, 1 + nsrc);
	const SimOperand *od = &in->o[0];
	/* (the executor stages SDWA destinations in the rows after the register file) */
	if (od->kind != SIM_OPK_VGPR || od->reg + nd > SIM_NVREG + SIM_NTMPREG)
		return sim_fault(w, "%s: unexpected destination", in->mnem);
	/* The SDWA executor copies back only the first staged row. For v_cvt_pk_f32_*_sdwa
	 * (two destination registers) the second one is written straight to the register
	 * named by the VOP1 vdst field (bits 24:17 of the first dword). */
	int sdwa_hi = -1;
	if (in->enc == SIM_ENC_SDWA && nd > 1 && od->reg >= SIM_NVREG) {
		sdwa_hi = (int)((in->raw[0] >> 17) & 0xFF) + 1;
		if (sdwa_hi + nd - 1 > 256)
			return sim_fault(w, "%s: unexpected destination", in->mnem);
	}
	/* VOP3 forms carry op_sel in the encoding; SDWA byte/word selection of src0 is applied
	 * by the executor when it stages the operand, so the handler reads byte/word 0. */
	unsigned opsel = 0;
	if (in->enc != SIM_ENC_E32 && in->enc != SIM_ENC_SDWA && in->enc != SIM_ENC_DPP)
		opsel = simx_vop3_opsel(in->raw[0]);
	unsigned f32s = simx_cvt_f32_srcs(id);
	/* The _e64 forms of v_cvt_f32_{fp8,bf8} and v_cvt_pk_f32_{fp8,bf8} accept the output
	 * modifiers omod and clamp (clamp to [0, 1], NaN to 0 as with DX10_CLAMP); the scaled
	 * forms do not (the assembler rejects clamp there). */
	int outmod = (in->clamp || in->omod) && (!strncmp(in->mnem, "v_cvt_f32_", 10) ||
	                                         !strncmp(in->mnem, "v_cvt_pk_f32_", 13));
	SIM_FOR_LANES(w, l) {
		uint32_t s0[32], s1[16], s2 = 0, dst[32];
		const SimOperand *o0 = &in->o[1];
		for (int r = 0; r < n0; r++)
			s0[r] = sim_rd(w, o0, r, l);
		for (int r = 0; r < n1; r++)
			s1[r] = nsrc > 1 ? sim_rd(w, &in->o[2], r, l) : 0;
		if (nsrc > 2)
			s2 = sim_rd32(w, &in->o[3], l);
		for (int k = 0; k < 2 && k < nsrc; k++) {
			if (!((f32s >> k) & 1))
				continue;
			const SimOperand *o = &in->o[1 + k];
			uint32_t *v = k == 0 ? &s0[0] : &s1[0];
			if (o->abs)
				*v &= 0x7FFFFFFFu;
			if (o->neg)
				*v ^= 0x80000000u;
		}
		uint32_t old = w->v[od->reg][l];
		if (simx_cvt_exec(id, s0, s1, s2, old, opsel, SIM_SEL_DWORD, dst) < 0)
			return sim_fault(w, "%s: cannot execute", in->mnem);
		for (int r = 0; outmod && r < nd; r++) {
			float x = sim_f32(dst[r]);
			if (in->omod)
				x *= in->omod == 1 ? 2.0f : in->omod == 2 ? 4.0f : 0.5f;
			if (in->clamp)
				x = x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f; /* NaN fails both tests: 0 */
			dst[r] = sim_u32(x);
		}
		for (int r = 0; r < nd; r++)
			w->v[od->reg + r][l] = dst[r];
		for (int r = 1; sdwa_hi >= 0 && r < nd; r++)
			w->v[sdwa_hi + r - 1][l] = dst[r];
	}
	return SIM_NEXT;
}

static int simx_op_dstr(SimWave *w, const SimInst *in)
{
	int id = simx_dstr_lookup(in->mnem);
	if (id < 0)
		return sim_fault(w, "unsupported instruction %s", in->mnem);
	int nd = simx_dstr_dwords(id);
	if (in->nops < 2 || in->o[0].kind != SIM_OPK_VGPR || in->o[0].reg + nd > SIM_NVREG ||
	    in->o[1].kind != SIM_OPK_VGPR)
		return sim_fault(w, "%s: unexpected operands", in->mnem);
	uint32_t raw[3 * SIM_LANES], res[3 * SIM_LANES];
	memset(raw, 0, sizeof raw);
	uint64_t exec = sim_exec(w);
	SIM_FOR_LANES(w, l) {
		uint32_t addr = w->v[in->o[1].reg][l] + (uint32_t)in->offset;
		uint32_t al = (uint32_t)simx_dstr_align(id);
		if (al && addr % al)
			return sim_fault(w, "%s: lane %d reads LDS address 0x%x, which is not %u-byte aligned "
			                 "(the instruction needs aligned addresses; what hardware does is not modelled)",
			                 in->mnem, l, addr, al);
		const uint8_t *p = sim_lptr(w, addr, 4u * (uint32_t)nd, l, 0);
		if (!p)
			return SIM_FAULT;
		for (int r = 0; r < nd; r++)
			memcpy(&raw[r * SIM_LANES + l], p + 4 * r, 4);
	}
	simx_dstr_shuffle(id, raw, res);
	for (int l = 0; l < SIM_LANES; l++)
		if ((exec >> l) & 1)
			for (int r = 0; r < nd; r++)
				w->v[in->o[0].reg + r][l] = res[r * SIM_LANES + l];
	return SIM_NEXT;
}

#define SIMX_MFMA_OP(name) \
	int sim_op_##name(SimWave *w, const SimInst *in) { return simx_op_mfma(w, in); }
#define SIMX_CVT_OP(name) \
	int sim_op_##name(SimWave *w, const SimInst *in) { return simx_op_cvt(w, in); }
#define SIMX_DSTR_OP(name) \
	int sim_op_##name(SimWave *w, const SimInst *in) { return simx_op_dstr(w, in); }
#include "sim/simx_ops.h"
#undef SIMX_MFMA_OP
#undef SIMX_CVT_OP
#undef SIMX_DSTR_OP
