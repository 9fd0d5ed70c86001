/*
 * sim_arch.c — the simulated architectures (one SimArch row each) and the
 * per-ISA mnemonic tables that map printed mnemonics to the shared semantics
 * rows of sim_ops.h.
 *
 * Sources of the numbers (docs/simulator.md, "Architectures"):
 *   - LDS per workgroup, waves per SIMD, VGPR budgets: llc-22 limits and
 *     occupancy, checked by experiment (/work/shared/docs/amdgpu-facts.md §5);
 *   - LDS banks: ROCm/composable_kernel ck_tile arch.hpp (64 on gfx950, 32 on
 *     gfx12);
 *   - special-register operand numbers: LLVM's SIRegisterInfo.td encodings
 *     (gfx9: vcc_lo 106, m0 124, exec_lo 126; gfx10+: null 124, m0 125);
 *   - the workgroup ids of GFX12 in TTMP9/TTMP7: AMDGPUUsage "architected
 *     SGPRs", and the code LLVM emits for gfx1201 (amdgpu-facts.md §2).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sim/sim_int.h"

const SimArch sim_arch_gfx950 = {
	.name = "gfx950", .cpu = "gfx950", .isa = SIM_ISA_GFX9, .wave_lanes = 64, .wave64_ok = 1,
	.nsgpr = 102, .nvgpr = 256, .nagpr = 256, .lds_max = 163840, .lds_banks = 64, .wave_slots = 8,
	.ttmp_wgid = 0, .hw_vcc = 106, .hw_m0 = 124, .hw_null = 0, .hw_exec = 126, .max_waves = 16,
};
static const SimArch arch_gfx1201 = {
	.name = "gfx1201", .cpu = "gfx1201", .isa = SIM_ISA_GFX12, .wave_lanes = 32, .wave64_ok = 0,
	.nsgpr = 106, .nvgpr = 256, .nagpr = 0, .lds_max = 65536, .lds_banks = 32, .wave_slots = 16,
	.ttmp_wgid = 1, .hw_vcc = 106, .hw_m0 = 125, .hw_null = 124, .hw_exec = 126, .max_waves = 32,
};

const SimArch *sim_arch_find(const char *processor)
{
	if (!processor) return NULL;
	if (!strcmp(processor, "gfx950")) return &sim_arch_gfx950;
	if (!strcmp(processor, "gfx1201")) return &arch_gfx1201;
	return NULL;
}

const char *sim_arch_name(int i)
{
	static const SimArch *const rows[] = { &sim_arch_gfx950, &arch_gfx1201 };
	return i >= 0 && i < (int)(sizeof rows / sizeof rows[0]) ? rows[i]->name : NULL;
}

uint32_t sim_arch_lds_bytes(const char *processor)
{
	const SimArch *a = sim_arch_find(processor);
	return a ? (uint32_t)a->lds_max : 0;
}

/* ---- the GFX12 mnemonic table: sorted by name, looked up by bisection ---- */
typedef struct { const char *name; const char *sem; } Alias;
static const Alias gfx12_names[] = {
#define SIM_GFX12(name, sem) { #name, #sem },
#include "sim/sim_gfx12.h"
#undef SIM_GFX12
};
enum { N_GFX12 = sizeof gfx12_names / sizeof gfx12_names[0] };
static uint16_t gfx12_ops[N_GFX12];
static pthread_once_t gfx12_once = PTHREAD_ONCE_INIT;

static void gfx12_resolve(void)
{
	for (int i = 0; i < N_GFX12; i++) gfx12_ops[i] = (uint16_t)sim_lookup_op(gfx12_names[i].sem);
}

int sim_lookup_arch(const SimArch *arch, const char *name)
{
	if (!arch || arch->isa == SIM_ISA_GFX9) return sim_lookup_op(name);
	pthread_once(&gfx12_once, gfx12_resolve);
	int lo = 0, hi = N_GFX12 - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int c = strcmp(name, gfx12_names[mid].name);
		if (c == 0) return gfx12_ops[mid];
		if (c < 0) hi = mid - 1; else lo = mid + 1;
	}
	return 0;
}
