/*
 * sim_timing.c — the timing model: the modelled cost of a launch on a whole
 * device (docs/simulator.md "Timing model"; every constant is a column of
 * sim_timing_params.h).
 *
 * Trace-driven. While the functional simulator runs the sampled workgroups,
 * each of their waves records one compact event per instruction (class,
 * pipe cycles, LDS bank cycles from the real lane addresses, bytes of the
 * distinct lines a vector memory instruction touches, s_waitcnt thresholds,
 * barriers, s_setprio). After the launch the events are replayed on a model
 * of one CU: SIMDs taking issue turns, one instruction per type per turn from
 * different waves (s_setprio, then age), a VALU and an MFMA pipe per SIMD, one
 * LDS pipe per CU, an address unit and a share of L2 and HBM bandwidth per
 * CU, in-order memory counters that s_waitcnt waits on, and barriers. The
 * busiest CU's time (workgroups dealt round robin over the CUs, as many
 * resident at once as occupancy allows) plus a launch overhead is the
 * launch's. The replay is single-threaded and depends only on the traces,
 * so the figures do not depend on host threads.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/sim_int.h"
#include "sim/sim_timing_params.h"

static const SimTimingDevice builtin[] = {
#define X(n, a, cu, mhz, bw, simd, per, slots, vf, vg, ldscu, wg, banks, valu, trans, salu, ldsl, smeml, l2l, hbml, l2b, line, ta, bar, disp, launch, f16, f8, f4, f32, f64, mclk) \
	{ n, a, cu, mhz, bw, simd, per, slots, vf, vg, ldscu, wg, banks, valu, trans, salu, ldsl, smeml, l2l, hbml, l2b, line, ta, bar, disp, launch, f16, f8, f4, f32, f64, mclk },
	SIM_TIMING_DEVICES
#undef X
};
enum { NDEV = sizeof builtin / sizeof builtin[0] };

/* ---- run-time override of the rows (FLY_SIM_TIMING_PARAMS=FILE) ----------
 * The rows the model uses: the built-in table, then the assignments of the
 * file FLY_SIM_TIMING_PARAMS names, read once per process: one per line,
 * `KEY = VALUE` (every row) or `ROW.KEY = VALUE` (one row), '#' comments; the
 * keys are the columns of sim_timing_params.h (flyc-sim --timing-devices prints
 * the result). For calibration (scripts/timing-calibrate.py --model --params).
 * A bad file fails every timed launch with its message (file:line). */
static const struct { const char *key; size_t off; int dbl; } param_keys[] = {
#define P(k, d) { #k, offsetof(SimTimingDevice, k), d }
	P(cus, 0), P(clock_mhz, 1), P(hbm_gbps, 1), P(simds, 0), P(issue_period, 0), P(wave_slots, 0),
	P(vgpr_file, 0), P(vgpr_gran, 0), P(lds_cu, 0), P(max_wg_cu, 0), P(lds_banks, 0), P(valu_cycles, 0),
	P(trans_cycles, 0), P(salu_cycles, 0), P(lds_latency, 0), P(smem_latency, 0), P(l2_latency, 0),
	P(hbm_latency, 0), P(l2_bytes_cycle, 1), P(line_bytes, 0), P(vmem_issue, 0), P(barrier_cycles, 0),
	P(dispatch_cycles, 0), P(launch_cycles, 0), P(f16_flops, 1), P(f8_flops, 1), P(f4_flops, 1),
	P(f32_flops, 1), P(f64_flops, 1), P(mfma_clock_mhz, 1),
#undef P
};
static SimTimingDevice devices[NDEV];
static char params_err[512];
static pthread_once_t params_once = PTHREAD_ONCE_INIT;

/* One assignment; 0, or -1 with params_err set. */
static int param_set(const char *path, int line, char *lhs, const char *val)
{
	char *dot = strchr(lhs, '.'), *end;
	const char *key = dot ? dot + 1 : lhs;
	int row = -1, k = -1;
	if (dot) {
		*dot = 0;
		for (int i = 0; i < NDEV; i++) if (!strcmp(builtin[i].name, lhs)) row = i;
		if (row < 0) { snprintf(params_err, sizeof params_err, "%.200s:%d: no device row '%.64s'", path, line, lhs); return -1; }
	}
	for (size_t i = 0; i < sizeof param_keys / sizeof param_keys[0]; i++) if (!strcmp(param_keys[i].key, key)) k = (int)i;
	if (k < 0) { snprintf(params_err, sizeof params_err, "%.200s:%d: unknown key '%.64s' (the columns of sim_timing_params.h, e.g. hbm_latency)", path, line, key); return -1; }
	double v = strtod(val, &end);
	while (*end == ' ' || *end == '\t' || *end == '\r') end++;
	if (end == val || *end || !(v > 0) || v > 1e12 || (!param_keys[k].dbl && v != (double)(long long)v)) {
		snprintf(params_err, sizeof params_err, "%.200s:%d: %.64s = '%.64s': expected a positive %s", path, line, key, val,
		         param_keys[k].dbl ? "number" : "integer");
		return -1;
	}
	for (int i = 0; i < NDEV; i++) {
		if (row >= 0 && i != row) continue;
		char *f = (char *)&devices[i] + param_keys[k].off;
		if (param_keys[k].dbl) *(double *)f = v; else *(int *)f = (int)v;
	}
	return 0;
}

static void params_load(void)
{
	memcpy(devices, builtin, sizeof devices);
	const char *path = getenv("FLY_SIM_TIMING_PARAMS");
	if (!path || !*path) return;
	FILE *f = fopen(path, "r");
	if (!f) { snprintf(params_err, sizeof params_err, "FLY_SIM_TIMING_PARAMS: cannot read '%.400s'", path); return; }
	char buf[512];
	for (int line = 1; fgets(buf, sizeof buf, f); line++) {
		char *h = strchr(buf, '#'), *eq, *a, *e;
		if (h) *h = 0;
		for (a = buf; *a == ' ' || *a == '\t'; a++) ;
		for (e = a + strlen(a); e > a && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'); ) *--e = 0;
		if (!*a) continue;
		if (!(eq = strchr(a, '='))) { snprintf(params_err, sizeof params_err, "%.200s:%d: expected KEY = VALUE", path, line); break; }
		for (e = eq; e > a && (e[-1] == ' ' || e[-1] == '\t'); ) e--;
		*e = 0;
		for (eq++; *eq == ' ' || *eq == '\t'; eq++) ;
		if (param_set(path, line, a, eq)) break;
	}
	fclose(f);
	if (params_err[0]) memcpy(devices, builtin, sizeof devices);
}

/* The override's error, or NULL. */
static const char *params_error(void)
{
	pthread_once(&params_once, params_load);
	return params_err[0] ? params_err : NULL;
}

static const SimTimingDevice *find_device(const char *name)
{
	params_error();
	if (!name || !*name) return &devices[0];
	for (int i = 0; i < NDEV; i++) if (!strcmp(devices[i].name, name)) return &devices[i];
	return NULL;
}
static const SimTimingDevice *device_for_arch(const char *arch)
{
	params_error();
	for (int i = 0; i < NDEV; i++) if (!strcmp(devices[i].arch, arch)) return &devices[i];
	return &devices[0];
}

const char *sim_timing_device_name(int i) { return i >= 0 && i < NDEV ? builtin[i].name : NULL; }
const char *sim_timing_params_error(void) { return params_error(); }

/* ---- classes ------------------------------------------------------------ */
typedef enum {
	TM_NONE, TM_FREE, TM_SALU, TM_BRANCH, TM_VALU, TM_TRANS, TM_MFMA, TM_LDS, TM_VLOAD, TM_VSTORE,
	TM_SMEM, TM_WAIT, TM_SETPRIO, TM_NOP, TM_SLEEP, TM_END, TM_BARRIER
} SimTmClass;

/* issue types: one instruction of each per SIMD turn */
enum { IT_SCALAR, IT_BRANCH, IT_VECTOR, IT_LDS, IT_VMEM, IT_NONE };
static const uint8_t class_issue[] = {
	[TM_NONE] = IT_NONE, [TM_FREE] = IT_NONE, [TM_SALU] = IT_SCALAR, [TM_BRANCH] = IT_BRANCH,
	[TM_VALU] = IT_VECTOR, [TM_TRANS] = IT_VECTOR, [TM_MFMA] = IT_VECTOR, [TM_LDS] = IT_LDS,
	[TM_VLOAD] = IT_VMEM, [TM_VSTORE] = IT_VMEM, [TM_SMEM] = IT_SCALAR, [TM_WAIT] = IT_NONE,
	[TM_SETPRIO] = IT_NONE, [TM_NOP] = IT_NONE, [TM_SLEEP] = IT_NONE, [TM_END] = IT_NONE, [TM_BARRIER] = IT_NONE,
};

/* Mnemonic prefixes, first match wins (applied once per decoded instruction). */
static const struct { const char *prefix; uint8_t cls; } class_table[] = {
	{ "s_waitcnt", TM_WAIT }, { "s_wait_alu", TM_FREE }, { "s_wait_idle", TM_FREE }, { "s_wait_event", TM_FREE },
	{ "s_wait_", TM_WAIT }, { "s_setprio", TM_SETPRIO }, { "s_nop", TM_NOP }, { "s_sleep", TM_SLEEP },
	{ "s_endpgm", TM_END }, { "s_clause", TM_FREE }, { "s_delay_alu", TM_FREE }, { "s_prefetch", TM_FREE },
	{ "s_load", TM_SMEM }, { "s_buffer_load", TM_SMEM }, { "s_store", TM_SMEM }, { "s_buffer_store", TM_SMEM },
	{ "s_atomic", TM_SMEM }, { "s_buffer_atomic", TM_SMEM }, { "s_dcache", TM_SMEM }, { "s_scratch", TM_SMEM },
	{ "s_branch", TM_BRANCH }, { "s_cbranch", TM_BRANCH }, { "s_setpc", TM_BRANCH }, { "s_swappc", TM_BRANCH },
	{ "s_", TM_SALU },
	{ "v_mfma", TM_MFMA }, { "v_smfmac", TM_MFMA }, { "v_wmma", TM_MFMA }, { "v_swmmac", TM_MFMA },
	{ "v_exp_", TM_TRANS }, { "v_log_", TM_TRANS }, { "v_rcp_", TM_TRANS }, { "v_rsq_", TM_TRANS },
	{ "v_sqrt_", TM_TRANS }, { "v_sin_", TM_TRANS }, { "v_cos_", TM_TRANS },
	{ "v_", TM_VALU },
	{ "ds_", TM_LDS },
	{ "global_store", TM_VSTORE }, { "buffer_store", TM_VSTORE }, { "flat_store", TM_VSTORE }, { "scratch_store", TM_VSTORE },
	{ "global_wb", TM_FREE }, { "global_inv", TM_FREE }, { "buffer_wb", TM_FREE }, { "buffer_inv", TM_FREE },
	{ "global_", TM_VLOAD }, { "buffer_", TM_VLOAD }, { "flat_", TM_VLOAD }, { "scratch_", TM_VLOAD },
};

/* counters: 0 vector loads (gfx9 vmcnt: loads and stores), 1 vector stores
 * (gfx12 storecnt), 2 LDS (gfx9 lgkmcnt: LDS and scalar memory), 3 scalar memory (gfx12 kmcnt) */
enum { CNT_VM, CNT_VS, CNT_LGKM, CNT_KM, NCNT };

static uint32_t wait_thresholds(const SimArch *arch, const SimInst *in)
{
	uint32_t imm = in->raw[0] & 0xffff, v = 0xffffffffu;
	const char *m = in->mnem;
#define SETC(c, x) (v = (v & ~(0xffu << (8 * (c)))) | (uint32_t)(x) << (8 * (c)))
	if (arch->isa == SIM_ISA_GFX12) {
		if (!strncmp(m, "s_wait_loadcnt_dscnt", 20)) { SETC(CNT_VM, (imm >> 8) & 0x3f); SETC(CNT_LGKM, imm & 0x3f); }
		else if (!strncmp(m, "s_wait_storecnt_dscnt", 21)) { SETC(CNT_VS, (imm >> 8) & 0x3f); SETC(CNT_LGKM, imm & 0x3f); }
		else if (!strncmp(m, "s_wait_loadcnt", 14)) SETC(CNT_VM, imm & 0x3f);
		else if (!strncmp(m, "s_wait_storecnt", 15)) SETC(CNT_VS, imm & 0x3f);
		else if (!strncmp(m, "s_wait_dscnt", 12)) SETC(CNT_LGKM, imm & 0x3f);
		else if (!strncmp(m, "s_wait_kmcnt", 12)) SETC(CNT_KM, imm & 0x1f);
	} else if (!strcmp(m, "s_waitcnt")) {
		uint32_t vm = (imm & 0xf) | ((imm >> 14) & 3) << 4, lgkm = (imm >> 8) & 0xf;
		if (vm < 63) SETC(CNT_VM, vm);
		if (lgkm < 15) SETC(CNT_LGKM, lgkm);
	}
#undef SETC
	return v;
}

/* MFMA/WMMA pipe cycles from the shape and operand types in the mnemonic:
 * 2*M*N*K / (FLOP per cycle per SIMD of the type), at least one pass (4). */
static int matrix_shape(const char *m, int *M, int *N, int *K)
{
	for (const char *p = m; *p; p++) {
		if (*p < '0' || *p > '9' || (p > m && p[-1] != '_')) continue;
		if (sscanf(p, "%dx%dx%d", M, N, K) == 3) return 0;
	}
	return -1;
}
static double matrix_rate(const SimTimingDevice *dv, const char *m, int fmt_a, int fmt_b)
{
	if (strstr(m, "f8f6f4")) return (fmt_a <= 1 || fmt_b <= 1) ? dv->f8_flops : dv->f4_flops;
	if (strstr(m, "_f64")) return dv->f64_flops;
	if (strstr(m, "xf32") || strstr(m, "_f32_f32") || (strstr(m, "x4_f32") || strstr(m, "x2_f32") || strstr(m, "x1_f32")))
		return dv->f32_flops;
	if (!strncmp(m, "v_wmma", 6) || !strncmp(m, "v_swmmac", 8)) {
		if (strstr(m, "fp8") || strstr(m, "bf8") || strstr(m, "iu8") || strstr(m, "iu4")) return dv->f8_flops;
		return dv->f16_flops;
	}
	/* gfx950 v_mfma_*_fp8_fp8 16x16x32 / 32x32x16: 16 / 32 cycles, the f16 rate (amdgpu-facts.md 5) */
	if (strstr(m, "_i8")) return dv->f8_flops;
	return dv->f16_flops;
}
static int matrix_cycles(const SimTimingDevice *dv, const char *m, int fmt_a, int fmt_b, double *flops)
{
	int M, N, K;
	if (matrix_shape(m, &M, &N, &K)) { *flops = 0; return 16; }
	double f = 2.0 * M * N * K;
	if (strstr(m, "smfmac") || strstr(m, "swmmac")) f /= 2;   /* sparse: half the products are done */
	*flops = f;
	int c = (int)(f / matrix_rate(dv, m, fmt_a, fmt_b) + 0.5);
	return c < 4 ? 4 : c;
}

void sim_tm_classify(const SimArch *arch, SimInst *in)
{
	const SimTimingDevice *dv = device_for_arch(arch->name);
	in->tcls = TM_NONE; in->tcyc = 0; in->twait = 0xffffffffu;
	for (size_t i = 0; i < sizeof class_table / sizeof class_table[0]; i++) {
		size_t n = strlen(class_table[i].prefix);
		if (strncmp(in->mnem, class_table[i].prefix, n)) continue;
		in->tcls = class_table[i].cls;
		break;
	}
	switch (in->tcls) {
	case TM_VALU: in->tcyc = (uint16_t)dv->valu_cycles; break;
	case TM_TRANS: in->tcyc = (uint16_t)dv->trans_cycles; break;
	case TM_SALU: case TM_BRANCH: case TM_SMEM: in->tcyc = (uint16_t)dv->salu_cycles; break;
	case TM_MFMA: { double f; in->tcyc = (uint16_t)matrix_cycles(dv, in->mnem, 0, 0, &f); break; }
	case TM_NOP:   /* N+1 wait states, one issue turn each (docs/simulator.md, "Timing model") */
		in->tcyc = (uint16_t)(((in->raw[0] & 0xf) + 1) * (dv->issue_period > 1 ? dv->issue_period : 1)); break;
	case TM_SLEEP: in->tcyc = (uint16_t)(64 * ((in->raw[0] & 0x7f) ? (in->raw[0] & 0x7f) : 1)); break;
	case TM_WAIT: in->twait = wait_thresholds(arch, in); break;
	default: break;
	}
	if (in->vopd[0]) in->tcls = TM_VALU, in->tcyc = (uint16_t)dv->valu_cycles;
}

/* ---- records ------------------------------------------------------------ */
typedef struct { uint8_t cls, aux; uint16_t cyc; uint32_t val; } TmEv;

enum { MAXACC = 2048 };
typedef struct { uint64_t addr; uint32_t n; int16_t lane; uint8_t space, write; } TmAcc;

struct SimTmWave {
	TmEv *ev; uint32_t n, cap;
	struct TmWG *wg;
	SimTmRun *run;
	int nacc;
	TmAcc *acc;             /* the accesses of the instruction being run (while the wave runs) */
};

typedef struct TmWG {
	uint64_t lin;
	int nwaves;
	SimTmWave **waves;
	uint64_t *lines; size_t nlines, caplines;  /* distinct lines per instruction, appended */
	uint64_t l2_bytes, conflict_cycles;
	double flops;
} TmWG;

struct SimTmRun {
	const SimTimingDevice *dv;
	const SimArch *arch;
	uint64_t nwg;
	int nwaves, lanes, gfx12;
	uint32_t lds, vgprs;
	int wps, wpc;            /* waves per SIMD, workgroups per CU */
	uint64_t *samples; uint64_t nsamples;
	TmWG *wgs;
	int timing_only;
};

static int grow(void **p, uint32_t *cap, size_t elem, uint32_t need)
{
	if (need <= *cap) return 0;
	uint32_t nc = *cap ? *cap * 2 : 256;
	while (nc < need) nc *= 2;
	void *q = realloc(*p, (size_t)nc * elem);
	if (!q) return -1;
	*p = q; *cap = nc;
	return 0;
}

void sim_tm_access(SimWave *w, int space, uint64_t addr, uint32_t n, int lane, int write)
{
	SimTmWave *t = w->tm;
	if (t->nacc >= MAXACC || !t->acc) return;
	TmAcc *a = &t->acc[t->nacc++];
	a->addr = addr; a->n = n; a->lane = (int16_t)lane; a->space = (uint8_t)space; a->write = (uint8_t)write;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* LDS bank cycles of one access group (the k-th access of each lane): the
 * phase rules of compiler/layout/lay_banks.c (amdgpu-facts.md section 5). */
static int lds_phase(const SimTmRun *r, int bytes, int write, int lane, int *banks)
{
	*banks = r->dv->lds_banks;
	if (bytes == 12) bytes = 16;
	if (!r->gfx12 && bytes == 16 && !write) {
		int l = lane % 32, hi = lane >= 32 ? 2 : 0;
		int p0 = l <= 3 || (l >= 12 && l <= 15) || (l >= 20 && l <= 27);
		return hi + (p0 ? 0 : 1);
	}
	if (!r->gfx12 && write && bytes == 8) *banks = 32;
	if (bytes <= 4) return 0;
	int per = *banks * 4 / bytes;
	if (per > r->lanes) per = r->lanes;
	return lane / per;
}

static void lds_cost(const SimTmRun *r, const TmAcc *acc, int nacc, int *cycles, int *extra)
{
	/* group the accesses: the k-th access of each lane forms group k */
	int seen_lane[64] = { 0 };
	int grp[MAXACC];
	int ngrp = 0;
	for (int i = 0; i < nacc; i++) {
		int l = acc[i].lane & 63;
		grp[i] = seen_lane[l]++;
		if (grp[i] + 1 > ngrp) ngrp = grp[i] + 1;
	}
	*cycles = 0; *extra = 0;
	for (int g = 0; g < ngrp; g++) {
		int bytes = 0, write = 0;
		for (int i = 0; i < nacc; i++) if (grp[i] == g && acc[i].space == 1) { bytes = (int)acc[i].n; write = acc[i].write != 0; break; }
		if (!bytes) continue;
		int banks, nph = 0;
		for (int l = 0; l < r->lanes; l++) { int p = lds_phase(r, bytes, write, l, &banks) + 1; if (p > nph) nph = p; }
		for (int ph = 0; ph < nph; ph++) {
			/* distinct dwords of this phase, then the most in one bank */
			uint64_t dw[64 * 8]; int nd = 0, any = 0;
			for (int i = 0; i < nacc; i++) {
				if (grp[i] != g || acc[i].space != 1) continue;
				if (lds_phase(r, bytes, write, acc[i].lane, &banks) != ph) continue;
				any = 1;
				for (uint32_t b = 0; b < acc[i].n; b += 4) {
					uint64_t d = (acc[i].addr + b) / 4;
					int k = 0;
					while (k < nd && dw[k] != d) k++;
					if (k == nd && nd < 64 * 8) dw[nd++] = d;
				}
			}
			if (!any) continue;
			int cnt[64] = { 0 }, worst = 0;
			for (int k = 0; k < nd; k++) { int b = (int)(dw[k] % (uint64_t)banks); if (++cnt[b] > worst) worst = cnt[b]; }
			*cycles += worst;
			*extra += worst - 1;
		}
	}
	if (*cycles < 1) *cycles = 1;
}

void sim_tm_record(SimWave *w, const SimInst *in, int res)
{
	SimTmWave *t = w->tm;
	SimTmRun *r = t->run;
	TmWG *g = t->wg;
	TmEv e = { in->tcls, 0, in->tcyc, 0 };
	switch (in->tcls) {
	case TM_LDS: {
		int cyc, extra;
		lds_cost(r, t->acc, t->nacc, &cyc, &extra);
		e.cyc = (uint16_t)(cyc > 65535 ? 65535 : cyc);
		e.val = (uint32_t)extra;
		g->conflict_cycles += (uint64_t)extra;
		break;
	}
	case TM_VLOAD: case TM_VSTORE: {
		uint64_t ln[MAXACC * 2]; int nl = 0;
		unsigned lb = (unsigned)r->dv->line_bytes;
		for (int i = 0; i < t->nacc; i++) {
			if (t->acc[i].space != 0) continue;
			uint64_t a0 = t->acc[i].addr / lb, a1 = (t->acc[i].addr + (t->acc[i].n ? t->acc[i].n : 1) - 1) / lb;
			for (uint64_t a = a0; a <= a1 && nl < MAXACC * 2; a++) ln[nl++] = a;
		}
		qsort(ln, (size_t)nl, sizeof ln[0], cmp_u64);
		int nu = 0;
		for (int i = 0; i < nl; i++) if (!nu || ln[nu - 1] != ln[i]) ln[nu++] = ln[i];
		e.val = (uint32_t)nu * lb;
		g->l2_bytes += e.val;
		if (g->nlines + (size_t)nu > g->caplines) {
			size_t nc = g->caplines ? g->caplines * 2 : 4096;
			while (nc < g->nlines + (size_t)nu) nc *= 2;
			uint64_t *q = realloc(g->lines, nc * sizeof *q);
			if (q) { g->lines = q; g->caplines = nc; }
		}
		if (nu && g->nlines + (size_t)nu <= g->caplines) { memcpy(g->lines + g->nlines, ln, (size_t)nu * sizeof ln[0]); g->nlines += (size_t)nu; }
		if (in->tcls == TM_VSTORE && r->gfx12) e.aux = CNT_VS; else e.aux = CNT_VM;
		break;
	}
	case TM_SMEM: e.aux = r->gfx12 ? CNT_KM : CNT_LGKM; break;
	case TM_MFMA: {
		double f;
		int c = matrix_cycles(r->dv, in->mnem, in->cbsz, in->blgp, &f);
		e.cyc = (uint16_t)c;
		g->flops += f;
		break;
	}
	case TM_WAIT: e.val = in->twait; break;
	case TM_SETPRIO: e.aux = (uint8_t)(in->raw[0] & 3); break;
	default: break;
	}
	t->nacc = 0;
	if (res == SIM_END) { free(t->acc); t->acc = NULL; }
	if (res == SIM_BARRIER) e = (TmEv){ TM_BARRIER, 0, 0, 0 };
	else if (res == SIM_END) e = (TmEv){ TM_END, 0, 0, 0 };
	else if (e.cls == TM_NONE || e.cls == TM_FREE || e.cls == TM_END) return;
	if (grow((void **)&t->ev, &t->cap, sizeof *t->ev, t->n + 1)) return;
	t->ev[t->n++] = e;
}

/* ---- launches ------------------------------------------------------------ */
SimTmRun *sim_tm_begin(const SimTimingConfig *cfg, const SimArch *arch, const CoKernel *k, uint64_t nwg,
                       int nwaves, uint32_t lds, int lanes, char *err, size_t errlen)
{
	const char *perr = params_error();
	if (perr) { snprintf(err, errlen, "%s", perr); return NULL; }
	const SimTimingDevice *dv = cfg->device && *cfg->device ? find_device(cfg->device) : device_for_arch(arch->name);
	if (!dv) { snprintf(err, errlen, "unknown timing device '%s'", cfg->device); return NULL; }
	if (strcmp(dv->arch, arch->name)) {
		snprintf(err, errlen, "timing device %s models %s code, the kernel is %s", dv->name, dv->arch, arch->name);
		return NULL;
	}
	SimTmRun *r = calloc(1, sizeof *r);
	if (!r) { snprintf(err, errlen, "out of memory"); return NULL; }
	r->dv = dv; r->arch = arch; r->nwg = nwg; r->nwaves = nwaves; r->lanes = lanes; r->lds = lds;
	r->gfx12 = arch->isa == SIM_ISA_GFX12;
	r->timing_only = cfg->timing_only;
	/* occupancy: VGPRs (RSRC1 granules of 8), LDS, wave slots, workgroups per CU */
	r->vgprs = ((k->kd.pgm_rsrc1 & 0x3f) + 1) * 8;
	if (k->vgpr_count > r->vgprs) r->vgprs = k->vgpr_count;
	int vr = (int)((r->vgprs + (uint32_t)dv->vgpr_gran - 1) / (uint32_t)dv->vgpr_gran * (uint32_t)dv->vgpr_gran);
	int wps = dv->vgpr_file / (vr ? vr : 1);
	if (wps > dv->wave_slots) wps = dv->wave_slots;
	if (wps < 1) wps = 1;
	r->wps = wps;
	int per_simd = (nwaves + dv->simds - 1) / dv->simds;
	int wpc = nwaves >= dv->simds ? wps / per_simd : wps * dv->simds / nwaves;
	if (lds && (int)(dv->lds_cu / lds) < wpc) wpc = (int)(dv->lds_cu / lds);
	if (wpc > dv->max_wg_cu) wpc = dv->max_wg_cu;
	if (wpc < 1) wpc = 1;
	r->wpc = wpc;
	uint64_t s = cfg->sample > 0 ? (uint64_t)cfg->sample : nwg <= 64 ? nwg : (uint64_t)(2 * wpc > 8 ? 2 * wpc : 8);
	if (s > nwg) s = nwg;
	r->nsamples = s;
	r->samples = calloc((size_t)s, sizeof *r->samples);
	r->wgs = calloc((size_t)s, sizeof *r->wgs);
	if (!r->samples || !r->wgs) { sim_tm_free(r); snprintf(err, errlen, "out of memory"); return NULL; }
	for (uint64_t i = 0; i < s; i++) {
		r->samples[i] = (uint64_t)((unsigned __int128)i * nwg / s);
		TmWG *g = &r->wgs[i];
		g->lin = r->samples[i]; g->nwaves = nwaves;
		g->waves = calloc((size_t)nwaves, sizeof *g->waves);
		if (!g->waves) { sim_tm_free(r); snprintf(err, errlen, "out of memory"); return NULL; }
	}
	return r;
}

const uint64_t *sim_tm_samples(const SimTmRun *t, uint64_t *n) { *n = t->nsamples; return t->samples; }

SimTmWave *sim_tm_wave(SimTmRun *t, uint64_t lin, int wid)
{
	uint64_t lo = 0, hi = t->nsamples;
	while (lo < hi) { uint64_t mid = (lo + hi) / 2; if (t->samples[mid] < lin) lo = mid + 1; else hi = mid; }
	if (lo >= t->nsamples || t->samples[lo] != lin) return NULL;
	TmWG *g = &t->wgs[lo];
	if (!g->waves[wid]) {
		g->waves[wid] = calloc(1, sizeof(SimTmWave));
		if (!g->waves[wid]) return NULL;
	}
	SimTmWave *w = g->waves[wid];
	w->n = 0; w->nacc = 0; w->wg = g; w->run = t;   /* a re-run (never, today) starts afresh */
	if (!w->acc) w->acc = malloc(MAXACC * sizeof *w->acc);
	return w;
}

void sim_tm_free(SimTmRun *r)
{
	if (!r) return;
	for (uint64_t i = 0; r->wgs && i < r->nsamples; i++) {
		TmWG *g = &r->wgs[i];
		for (int j = 0; g->waves && j < g->nwaves; j++) if (g->waves[j]) { free(g->waves[j]->ev); free(g->waves[j]->acc); free(g->waves[j]); }
		free(g->waves); free(g->lines);
	}
	free(r->wgs); free(r->samples); free(r);
}

/* ---- the CU replay ------------------------------------------------------- */
enum { FIFO = 64 };
typedef struct {
	const TmEv *ev; uint32_t n, pos;
	int64_t ready;          /* earliest cycle of its next issue */
	int64_t since;          /* when it became ready to issue its next instruction */
	int simd, prio, state;  /* state 0 runs, 1 at a barrier, 2 ended */
	int wg;                 /* resident slot */
	int64_t fifo[NCNT][FIFO]; int head[NCNT], len[NCNT];
	int64_t last[NCNT];
} RWave;

typedef struct { int live, at_barrier, nw, rot; int64_t arrive_max; RWave *w; } RSlot;

typedef struct {
	int64_t cycles;
	uint64_t mfma_busy, valu_busy, lds_busy;
	uint64_t stall[SIM_NSTALL];
	uint64_t insts;
} CuResult;

static int64_t fifo_pop_to(RWave *w, int c, int keep)
{
	int64_t t = 0;
	while (w->len[c] > keep) {
		int64_t x = w->fifo[c][w->head[c]];
		if (x > t) t = x;
		w->head[c] = (w->head[c] + 1) % FIFO; w->len[c]--;
	}
	return t;
}
static void fifo_push(RWave *w, int c, int64_t done)
{
	if (done < w->last[c]) done = w->last[c];   /* in order */
	w->last[c] = done;
	if (w->len[c] == FIFO) fifo_pop_to(w, c, FIFO - 1);
	w->fifo[c][(w->head[c] + w->len[c]) % FIFO] = done;
	w->len[c]++;
}

typedef struct {
	const SimTmRun *r;
	double hbm_per_cycle;   /* bytes per cycle of this CU's HBM share */
	double miss;            /* share of L2 bytes that go to HBM */
} ReplayCtx;

/* Replay workgroups wgs[0..n) (indices into r->wgs) on one CU. */
static void replay_cu(const ReplayCtx *cx, const int *wgs, int n, CuResult *res)
{
	const SimTmRun *r = cx->r;
	const SimTimingDevice *dv = r->dv;
	int nw = r->nwaves, wpc = r->wpc, nsimd = dv->simds;
	memset(res, 0, sizeof *res);
	RSlot *slot = calloc((size_t)wpc, sizeof *slot);
	RWave *waves = calloc((size_t)wpc * (size_t)nw, sizeof *waves);
	int64_t *valu_free = calloc((size_t)nsimd, sizeof(int64_t)), *mfma_free = calloc((size_t)nsimd, sizeof(int64_t));
	int64_t *slot_free_at = calloc((size_t)wpc, sizeof(int64_t));
	if (!slot || !waves || !valu_free || !mfma_free || !slot_free_at) goto out;
	int64_t lds_free = 0, ta_free = 0;
	double l2_free = 0, hbm_free = 0;
	double lat = dv->l2_latency + cx->miss * (dv->hbm_latency - dv->l2_latency);
	int next = 0, resident = 0, dispatched = 0;
	uint64_t age_ctr = 0;
	uint64_t *age = calloc((size_t)wpc * (size_t)nw, sizeof *age);
	if (!age) goto out;
	for (int s = 0; s < wpc; s++) { slot[s].w = waves + (size_t)s * (size_t)nw; slot_free_at[s] = 0; }
	int64_t t = 0, end = 0;
	for (;;) {
		/* dispatch into free slots */
		for (int s = 0; s < wpc && next < n; s++) {
			if (slot[s].live) continue;
			const TmWG *g = &r->wgs[wgs[next]];
			int64_t t0 = (slot_free_at[s] > t ? slot_free_at[s] : t) + dv->dispatch_cycles;
			slot[s].live = 0; slot[s].at_barrier = 0; slot[s].nw = nw; slot[s].arrive_max = 0;
			slot[s].rot = dispatched % nsimd;   /* the workgroup's first wave goes to the next SIMD in turn */
			for (int i = 0; i < nw; i++) {
				RWave *w = &slot[s].w[i];
				memset(w, 0, sizeof *w);
				w->ev = g->waves[i] ? g->waves[i]->ev : NULL;
				w->n = g->waves[i] ? g->waves[i]->n : 0;
				w->ready = w->since = t0;
				w->simd = (i + slot[s].rot) % nsimd;
				w->wg = s;
				w->state = w->n ? 0 : 2;
				if (w->n) slot[s].live++;
				age[(size_t)s * (size_t)nw + (size_t)i] = age_ctr++;
			}
			if (!slot[s].live) { slot_free_at[s] = t0; next++; dispatched++; s--; continue; }
			next++; dispatched++; resident++;
		}
		if (!resident) break;
		int progressed = 0;
		int64_t soonest = INT64_MAX;
		for (int simd = 0; simd < nsimd; simd++) {
			if (dv->issue_period > 1 && (t % dv->issue_period) != (simd % dv->issue_period)) continue;
			unsigned used = 0;
			{
				/* waves of this SIMD: highest s_setprio first, then the oldest */
				for (;;) {
					RWave *best = NULL; uint64_t best_key = 0;
					for (int s = 0; s < wpc; s++) {
						if (!slot[s].live) continue;
						for (int i = (simd - slot[s].rot + nsimd) % nsimd; i < nw; i += nsimd) {
							RWave *w = &slot[s].w[i];
							if (w->state || w->ready > t || w->pos >= w->n) continue;
							const TmEv *e = &w->ev[w->pos];
							int it = class_issue[e->cls];
							if (it != IT_NONE && (used >> it & 1)) continue;
							/* the pipe must be free */
							if (e->cls == TM_MFMA && mfma_free[simd] > t) continue;
							if ((e->cls == TM_VALU || e->cls == TM_TRANS) && valu_free[simd] > t) continue;
							if (e->cls == TM_LDS && lds_free > t) continue;
							if ((e->cls == TM_VLOAD || e->cls == TM_VSTORE) && ta_free > t) continue;
							uint64_t key = (uint64_t)(w->prio + 1) << 56 | ((1ull << 56) - 1 - age[(size_t)s * (size_t)nw + (size_t)i]);
							if (key > best_key) { best_key = key; best = w; }
						}
					}
					if (!best) break;
					RWave *w = best;
					const TmEv *e = &w->ev[w->pos++];
					progressed = 1;
					int it = class_issue[e->cls];
					if (it != IT_NONE) {
						used |= 1u << it;
						res->stall[SIM_STALL_PIPE] += (uint64_t)(t - w->since);
						res->insts++;
					}
					int64_t nxt = t + (dv->issue_period > 1 ? dv->issue_period : 1);
					switch (e->cls) {
					case TM_SALU: case TM_BRANCH: break;
					case TM_SMEM: fifo_push(w, e->aux, t + dv->smem_latency); break;
					case TM_VALU: case TM_TRANS:
						valu_free[simd] = t + e->cyc; res->valu_busy += e->cyc; break;
					case TM_MFMA:
						mfma_free[simd] = t + e->cyc; res->mfma_busy += e->cyc; break;
					case TM_LDS:
						lds_free = t + e->cyc; res->lds_busy += e->cyc;
						fifo_push(w, r->gfx12 ? CNT_LGKM : CNT_LGKM, t + e->cyc + dv->lds_latency);
						break;
					case TM_VLOAD: case TM_VSTORE: {
						ta_free = t + dv->vmem_issue;
						double b = (double)e->val;
						double s0 = l2_free > (double)t ? l2_free : (double)t;
						l2_free = s0 + b / dv->l2_bytes_cycle;
						/* a stored line is written back to DRAM (compulsory); a loaded
						 * one misses L2 at the launch's ratio */
						double h0 = hbm_free > (double)t ? hbm_free : (double)t;
						hbm_free = h0 + b * (e->cls == TM_VSTORE ? 1.0 : cx->miss) / cx->hbm_per_cycle;
						double done = (l2_free > hbm_free ? l2_free : hbm_free) + lat;
						fifo_push(w, e->aux, (int64_t)(done + 0.999));
						break;
					}
					case TM_WAIT: {
						int64_t sat = 0;
						for (int c = 0; c < NCNT; c++) {
							unsigned th = (e->val >> (8 * c)) & 0xff;
							if (th == 0xff) continue;
							/* gfx9 vmcnt counts loads and stores: CNT_VS stays empty there */
							int64_t x = fifo_pop_to(w, c, (int)th);
							if (x > sat) sat = x;
						}
						if (sat > t) {
							int which = ((e->val & 0xff) != 0xff || ((e->val >> 8) & 0xff) != 0xff) ? SIM_STALL_VMCNT : SIM_STALL_LGKMCNT;
							res->stall[which] += (uint64_t)(sat - t);
							nxt = sat;
						} else nxt = t;
						break;
					}
					case TM_SETPRIO: w->prio = e->aux; nxt = t; break;
					case TM_NOP: case TM_SLEEP:
						res->stall[SIM_STALL_NOP] += e->cyc; nxt = t + e->cyc; break;
					case TM_BARRIER: {
						RSlot *sl = &slot[w->wg];
						w->state = 1; sl->at_barrier++;
						if (t > sl->arrive_max) sl->arrive_max = t;
						w->ready = t;
						if (sl->at_barrier == sl->live) {
							int64_t rel = sl->arrive_max + dv->barrier_cycles;
							for (int i = 0; i < nw; i++) {
								RWave *x = &sl->w[i];
								if (x->state != 1) continue;
								res->stall[SIM_STALL_BARRIER] += (uint64_t)(rel - x->ready);
								x->state = 0; x->ready = x->since = rel;
							}
							sl->at_barrier = 0; sl->arrive_max = 0;
						}
						continue;
					}
					case TM_END: {
						RSlot *sl = &slot[w->wg];
						w->state = 2;
						int64_t fin = t;
						for (int c = 0; c < NCNT; c++) if (w->last[c] > fin) fin = w->last[c];
						if (fin > end) end = fin;
						sl->live--;
						if (sl->live > 0 && sl->at_barrier == sl->live) {   /* the others wait at a barrier */
							int64_t rel = (sl->arrive_max > t ? sl->arrive_max : t) + dv->barrier_cycles;
							for (int i = 0; i < nw; i++) {
								RWave *x = &sl->w[i];
								if (x->state != 1) continue;
								res->stall[SIM_STALL_BARRIER] += (uint64_t)(rel - x->ready);
								x->state = 0; x->ready = x->since = rel;
							}
							sl->at_barrier = 0; sl->arrive_max = 0;
						}
						if (!sl->live) { resident--; slot_free_at[w->wg] = t; }
						continue;
					}
					default: nxt = t; break;
					}
					if (w->pos >= w->n && w->state == 0) {   /* a trace cut short (no s_endpgm): the wave ends */
						RSlot *sl = &slot[w->wg];
						w->state = 2; sl->live--;
						if (!sl->live) resident--;
						if (t > end) end = t;
					}
					w->ready = w->since = nxt;
				}
			}
		}
		if (!resident && next >= n) break;
		if (progressed) { t++; continue; }
		/* nothing issued: jump to the next cycle anything can change */
		for (int s = 0; s < wpc; s++) {
			if (!slot[s].live) continue;
			for (int i = 0; i < nw; i++) {
				RWave *w = &slot[s].w[i];
				if (w->state) continue;
				int64_t c = w->ready > t ? w->ready : t + 1;
				if (w->pos < w->n) {
					uint8_t cl = w->ev[w->pos].cls;
					int64_t p = 0;
					if (cl == TM_MFMA) p = mfma_free[w->simd];
					else if (cl == TM_VALU || cl == TM_TRANS) p = valu_free[w->simd];
					else if (cl == TM_LDS) p = lds_free;
					else if (cl == TM_VLOAD || cl == TM_VSTORE) p = ta_free;
					if (p > c) c = p;
				}
				if (c < soonest) soonest = c;
			}
		}
		if (soonest == INT64_MAX) soonest = t + 1;   /* waves at a barrier only wait for one another */
		t = soonest > t ? soonest : t + 1;
	}
	if (t > end) end = t;
	res->cycles = end;
	free(age);
out:
	free(slot); free(waves); free(valu_free); free(mfma_free); free(slot_free_at);
}

/* ---- extrapolation -------------------------------------------------------- */
void sim_tm_end(SimTmRun *r, int (*alloc_of)(void *, uint64_t, uint64_t *, uint64_t *), void *ctx, SimTiming *out)
{
	const SimTimingDevice *dv = r->dv;
	memset(out, 0, sizeof *out);
	snprintf(out->device, sizeof out->device, "%s", dv->name);
	snprintf(out->arch, sizeof out->arch, "%s", dv->arch);
	out->cus = dv->cus; out->clock_mhz = dv->clock_mhz; out->hbm_gbps = dv->hbm_gbps;
	out->workgroups = r->nwg; out->sampled_workgroups = r->nsamples;
	out->wgs_per_cu = r->wpc; out->waves_per_simd = r->wps; out->waves_per_wg = r->nwaves;
	double scale = (double)r->nwg / (double)r->nsamples;
	/* L2 bytes and DRAM bytes: every sampled line once per allocation, scaled
	 * over the grid and clamped to the allocation (the launch's footprint) */
	uint64_t l2 = 0, conflicts = 0; double flops = 0;
	size_t nl = 0;
	for (uint64_t i = 0; i < r->nsamples; i++) { l2 += r->wgs[i].l2_bytes; conflicts += r->wgs[i].conflict_cycles; flops += r->wgs[i].flops; nl += r->wgs[i].nlines; }
	uint64_t *all = malloc((nl ? nl : 1) * sizeof *all);
	double hbm = 0;
	if (all) {
		size_t k = 0;
		for (uint64_t i = 0; i < r->nsamples; i++) {
			if (!r->wgs[i].nlines) continue;
			memcpy(all + k, r->wgs[i].lines, r->wgs[i].nlines * sizeof *all);
			k += r->wgs[i].nlines;
		}
		qsort(all, nl, sizeof *all, cmp_u64);
		size_t nu = 0;
		for (size_t i = 0; i < nl; i++) if (!nu || all[nu - 1] != all[i]) all[nu++] = all[i];
		uint64_t lb = (uint64_t)dv->line_bytes;
		for (size_t i = 0; i < nu;) {
			uint64_t base, size;
			if (alloc_of(ctx, all[i] * lb, &base, &size)) { hbm += (double)lb * scale; i++; continue; }
			size_t j = i; uint64_t end = base + size;
			while (j < nu && all[j] * lb < end) j++;
			double fp = (double)(j - i) * (double)lb * scale, cap = (double)((size + lb - 1) / lb * lb);
			hbm += fp < cap ? fp : cap;
			i = j;
		}
		free(all);
	}
	double l2_launch = (double)l2 * scale;
	if (hbm > l2_launch) hbm = l2_launch;
	out->hbm_bytes = (uint64_t)(hbm + 0.5);
	out->l2_bytes = (uint64_t)(l2_launch + 0.5);
	out->lds_bank_conflict_cycles = (uint64_t)((double)conflicts * scale + 0.5);
	out->mfma_flops = flops * scale;
	ReplayCtx cx = { r, 0, l2_launch > 0 ? hbm / l2_launch : 0 };
	uint64_t active = r->nwg < (uint64_t)dv->cus ? r->nwg : (uint64_t)dv->cus;
	cx.hbm_per_cycle = dv->hbm_gbps * 1e3 / dv->clock_mhz / (double)active;
	/* which workgroups run on which CU */
	uint64_t per_cu = (r->nwg + (uint64_t)dv->cus - 1) / (uint64_t)dv->cus;
	int full = r->nsamples == r->nwg;
	int ncu, L;
	if (full) { ncu = (int)active; L = (int)per_cu; }
	else {
		ncu = r->nsamples < 8 ? (int)r->nsamples : 8;
		uint64_t cap = (uint64_t)(4 * r->wpc > 8 ? 4 * r->wpc : 8);
		L = (int)(per_cu < cap ? per_cu : cap);
	}
	int *list = calloc((size_t)L + 1, sizeof *list);
	uint64_t busy_m = 0, busy_v = 0, busy_l = 0; double simd_cycles = 0, cu_cycles = 0;
	int64_t worst = 0;
	for (int c = 0; list && c < ncu; c++) {
		int m = 0;
		for (int k = 0; k < L; k++) {
			if (full) { uint64_t lin = (uint64_t)c + (uint64_t)k * (uint64_t)dv->cus; if (lin >= r->nwg) break; list[m++] = (int)lin; }
			else list[m++] = (int)(((uint64_t)c * (uint64_t)L + (uint64_t)k) % r->nsamples);
		}
		CuResult cr;
		replay_cu(&cx, list, m, &cr);
		int64_t cyc = cr.cycles;
		if (!full && (uint64_t)L < per_cu) cyc = (int64_t)((double)cyc * (double)per_cu / (double)L + 0.5);
		if (cyc > worst) worst = cyc;
		busy_m += cr.mfma_busy; busy_v += cr.valu_busy; busy_l += cr.lds_busy;
		simd_cycles += (double)cr.cycles * dv->simds; cu_cycles += (double)cr.cycles;
		for (int s = 0; s < SIM_NSTALL; s++) out->stall[s] += cr.stall[s];
		out->wave_instructions += cr.insts;
	}
	free(list);
	out->cu_cycles = (uint64_t)worst;
	out->cycles = (uint64_t)worst + (uint64_t)dv->launch_cycles;
	out->mfma_busy = simd_cycles > 0 ? (double)busy_m / simd_cycles : 0;
	/* the clock under load: the chip's matrix activity (busy share x share of the
	 * CU-time with work: workgroups / (per_cu x CUs), the last round's idle CUs
	 * counted) moves it from the peak clock toward mfma_clock_mhz, linearly; the
	 * launch overhead runs at the peak clock */
	double act = out->mfma_busy * (double)r->nwg / ((double)per_cu * (double)dv->cus);
	out->eff_clock_mhz = dv->clock_mhz - (dv->clock_mhz - dv->mfma_clock_mhz) * act;
	out->us = (double)worst / out->eff_clock_mhz + (double)dv->launch_cycles / dv->clock_mhz;
	out->valu_busy = simd_cycles > 0 ? (double)busy_v / simd_cycles : 0;
	out->lds_busy = cu_cycles > 0 ? (double)busy_l / cu_cycles : 0;
	sim_tm_free(r);
}

/* ---- JSON ------------------------------------------------------------------ */
int sim_timing_json(const SimTiming *t, char *buf, size_t n)
{
	return snprintf(buf, n,
	        "{\"device\": \"%s\", \"arch\": \"%s\", \"cus\": %d, \"clock_mhz\": %.1f, \"hbm_gbps\": %.1f, "
	        "\"workgroups\": %llu, \"sampled_workgroups\": %llu, \"wgs_per_cu\": %d, \"waves_per_simd\": %d, "
	        "\"waves_per_wg\": %d, \"cycles\": %llu, \"cu_cycles\": %llu, \"eff_clock_mhz\": %.1f, \"us\": %.3f, \"mfma_busy\": %.4f, "
	        "\"valu_busy\": %.4f, \"lds_busy\": %.4f, \"lds_bank_conflict_cycles\": %llu, \"hbm_bytes\": %llu, "
	        "\"l2_bytes\": %llu, \"mfma_flops\": %.0f, \"wave_instructions\": %llu, "
	        "\"stalls\": {\"vmcnt\": %llu, \"lgkmcnt\": %llu, \"barrier\": %llu, \"pipe\": %llu, \"nop\": %llu}}\n",
	        t->device, t->arch, t->cus, t->clock_mhz, t->hbm_gbps, (unsigned long long)t->workgroups,
	        (unsigned long long)t->sampled_workgroups, t->wgs_per_cu, t->waves_per_simd, t->waves_per_wg,
	        (unsigned long long)t->cycles, (unsigned long long)t->cu_cycles, t->eff_clock_mhz, t->us, t->mfma_busy, t->valu_busy, t->lds_busy,
	        (unsigned long long)t->lds_bank_conflict_cycles, (unsigned long long)t->hbm_bytes,
	        (unsigned long long)t->l2_bytes, t->mfma_flops, (unsigned long long)t->wave_instructions,
	        (unsigned long long)t->stall[SIM_STALL_VMCNT], (unsigned long long)t->stall[SIM_STALL_LGKMCNT],
	        (unsigned long long)t->stall[SIM_STALL_BARRIER], (unsigned long long)t->stall[SIM_STALL_PIPE],
	        (unsigned long long)t->stall[SIM_STALL_NOP]);
}

int sim_timing_device_json(const char *name, char *buf, size_t n)
{
	const SimTimingDevice *d = find_device(name);
	if (!d || params_error()) return -1;
	return snprintf(buf, n,
	        "{\"name\": \"%s\", \"arch\": \"%s\", \"cus\": %d, \"clock_mhz\": %.1f, \"hbm_gbps\": %.1f, \"simds\": %d, "
	        "\"issue_period\": %d, \"wave_slots\": %d, \"vgpr_file\": %d, \"vgpr_gran\": %d, \"lds_cu\": %d, "
	        "\"max_wg_cu\": %d, \"lds_banks\": %d, \"valu_cycles\": %d, \"trans_cycles\": %d, \"salu_cycles\": %d, "
	        "\"lds_latency\": %d, \"smem_latency\": %d, \"l2_latency\": %d, \"hbm_latency\": %d, "
	        "\"l2_bytes_cycle\": %.2f, \"line_bytes\": %d, \"vmem_issue\": %d, \"barrier_cycles\": %d, "
	        "\"dispatch_cycles\": %d, \"launch_cycles\": %d, \"f16_flops\": %.0f, \"f8_flops\": %.0f, "
	        "\"f4_flops\": %.0f, \"f32_flops\": %.0f, \"f64_flops\": %.0f, \"mfma_clock_mhz\": %.1f}\n",
	        d->name, d->arch, d->cus, d->clock_mhz, d->hbm_gbps, d->simds, d->issue_period, d->wave_slots,
	        d->vgpr_file, d->vgpr_gran, d->lds_cu, d->max_wg_cu, d->lds_banks, d->valu_cycles, d->trans_cycles,
	        d->salu_cycles, d->lds_latency, d->smem_latency, d->l2_latency, d->hbm_latency, d->l2_bytes_cycle,
	        d->line_bytes, d->vmem_issue, d->barrier_cycles, d->dispatch_cycles, d->launch_cycles, d->f16_flops,
	        d->f8_flops, d->f4_flops, d->f32_flops, d->f64_flops, d->mfma_clock_mhz);
}
