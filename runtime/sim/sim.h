/*
 * sim.h — the simulator: runs gfx950 (wave64) and gfx1201 (wave32) AMDGPU
 * code objects on the CPU.
 *
 * A SimDevice owns a device address space (allocations made with sim_alloc)
 * and runs kernels from parsed code objects (codeobj.h) to completion. The
 * simulator interprets machine code, decoded once per PC with LLVM's MC
 * disassembler, so it runs any gfx950 code object, not only flyc's.
 *
 * Every global/LDS/scratch access is checked: an access outside every
 * allocation (or beyond the kernel's LDS or scratch size) stops the run with
 * kernel, workgroup, wave, lane and PC in the error text. An instruction the
 * simulator does not implement stops the run with its mnemonic, encoding and
 * address. See docs/simulator.md.
 *
 * Example:
 *   SimDevice *d = sim_create(NULL);
 *   uint64_t buf = sim_alloc(d, 4096);
 *   struct { uint64_t p; } ka = { buf };
 *   uint32_t grid[3] = {4,1,1}, block[3] = {256,1,1};
 *   char err[512];
 *   if (sim_launch(d, co, co_find_kernel(co, "k"), grid, block, &ka, sizeof ka, err, sizeof err))
 *       fprintf(stderr, "%s\n", err);
 *   sim_read(d, buf, host, 4096);
 *   sim_destroy(d);
 */
#ifndef FLY_SIM_H
#define FLY_SIM_H

#include <stddef.h>
#include <stdint.h>
#include "codeobj.h"

typedef struct SimDevice SimDevice;

/* 0 in any field means the default: nthreads 1 (workgroups run on this many
 * host threads; results are deterministic except for the order of atomics
 * racing between workgroups), racecheck off (1: report LDS races between
 * barriers), trace off (1: print each executed instruction of wave 0 of
 * workgroup 0 to stderr; 2: all waves), arch NULL (the device runs each code
 * object as the architecture it was built for; "gfx950" or "gfx1201": the
 * device is that processor and refuses code objects for another, as hardware
 * does). */
typedef struct { int nthreads; int racecheck; int trace; const char *arch; } SimConfig;

SimDevice *sim_create(const SimConfig *cfg);             /* NULL cfg = defaults; NULL for an unknown arch */
/* The device's architecture ("gfx950", "gfx1201"), or NULL when it takes each
 * code object's own. sim_arch_known: 1 if the simulator models processor. */
const char *sim_device_arch(const SimDevice *d);
int sim_arch_known(const char *processor);
/* The i-th processor the simulator models ("gfx950", "gfx1201"), NULL past the last. */
const char *sim_arch_name(int i);
/* LDS bytes per workgroup of a modelled processor (0 for another). */
uint32_t sim_arch_lds_bytes(const char *processor);
void sim_destroy(SimDevice *d);
uint64_t sim_alloc(SimDevice *d, uint64_t bytes);         /* device VA, 0 on failure; zero-filled */
int sim_free(SimDevice *d, uint64_t va);                  /* 0 ok, -1 if va is not an allocation */
int sim_write(SimDevice *d, uint64_t va, const void *src, uint64_t n); /* 0 ok, -1 if outside an allocation */
int sim_read(SimDevice *d, uint64_t va, void *dst, uint64_t n);

/* Run one kernel to completion. kernarg holds the explicit arguments as laid
 * out by the metadata (the simulator appends/fills hidden arguments per the
 * metadata itself). grid counts workgroups. Returns 0 on success; otherwise
 * -1 with a message in err (unsupported instruction, memory violation with
 * kernel/workgroup/wave/lane/PC, trap, timeout, bad launch). */
int sim_launch(SimDevice *d, const CoObject *co, const CoKernel *k,
               const uint32_t grid[3], const uint32_t block[3],
               const void *kernarg, size_t kernarg_size, char *err, size_t errlen);

/* Statistics of the last launch (for benchmarks). */
typedef struct { uint64_t wave_instructions, lane_instructions; } SimStats;
void sim_last_stats(const SimDevice *d, SimStats *out);

/* Mnemonic support, for flyc-sim --list-mnemonics: 1 if the simulator has a
 * handler for the (printed, LLVM) mnemonic, e.g. "v_add_f32_e64". */
int sim_mnemonic_supported(const char *mnemonic);

/* Disassemble one instruction at image offset off of co; writes the LLVM text
 * (without leading whitespace) to out and returns the instruction size in
 * bytes, or 0 if it cannot be decoded. */
int sim_disasm(const CoObject *co, uint64_t off, char *out, size_t outlen);

/* ---- timing model (sim_timing.c, docs/simulator.md "Timing model") ----
 * With timing on, a launch also yields the modelled cost of the launch on a
 * whole device: the instructions of a sample of workgroups are recorded while
 * they run and replayed on a model of one CU (SIMDs, issue rules, pipes,
 * LDS banks, memory counters, barriers, a per-CU share of L2 and HBM
 * bandwidth), then extrapolated over the grid. Off by default, and then free. */
typedef struct {
	const char *device;  /* "mi355x" (NULL: the default row), "mi350x", "rx9070xt" */
	int sample;          /* workgroups timed in full; 0: the default (all of a small grid) */
	int timing_only;     /* 1: run only the sampled workgroups (functional results incomplete) */
} SimTimingConfig;

enum { SIM_STALL_VMCNT, SIM_STALL_LGKMCNT, SIM_STALL_BARRIER, SIM_STALL_PIPE, SIM_STALL_NOP, SIM_NSTALL };

typedef struct {
	char device[16], arch[16];
	int cus;
	double clock_mhz, hbm_gbps;
	uint64_t workgroups, sampled_workgroups;
	int wgs_per_cu, waves_per_simd, waves_per_wg;
	uint64_t cycles;                 /* device cycles of the launch */
	double us;
	double mfma_busy, valu_busy;     /* share of the MFMA / VALU pipe cycles in use on the modelled CUs */
	double lds_busy;
	uint64_t lds_bank_conflict_cycles; /* extra LDS cycles from bank conflicts, whole launch */
	uint64_t hbm_bytes, l2_bytes;    /* modelled DRAM bytes and L2->CU bytes, whole launch */
	double mfma_flops;               /* matrix FLOP of the whole launch */
	uint64_t cu_cycles;              /* cycles of the modelled CU (before launch overhead) */
	uint64_t stall[SIM_NSTALL];      /* wave-cycles stalled, summed over the sampled waves */
	uint64_t wave_instructions;      /* instructions of the sampled waves */
	double eff_clock_mhz;            /* the clock under the launch's matrix load: us = cu_cycles / it + launch cycles / clock_mhz */
} SimTiming;

/* Turn timing on for the device's next launches (cfg NULL: off). Returns 0,
 * or -1 for an unknown device name. */
int sim_set_timing(SimDevice *d, const SimTimingConfig *cfg);
/* The timing of the last launch: 0, or -1 when it was not timed. */
int sim_last_timing(const SimDevice *d, SimTiming *out);
/* The timing as JSON (one object, newline-terminated) into buf; returns the
 * length it needs (as snprintf). */
int sim_timing_json(const SimTiming *t, char *buf, size_t n);
/* The i-th device row's name, NULL past the last; its parameters as JSON (after the
 * FLY_SIM_TIMING_PARAMS override; -1 for an unknown name or a bad override file). */
const char *sim_timing_device_name(int i);
int sim_timing_device_json(const char *name, char *buf, size_t n);
/* FLY_SIM_TIMING_PARAMS=FILE overrides columns of the rows (KEY = VALUE or ROW.KEY =
 * VALUE per line; docs/simulator.md "Overriding the constants"): its error (file:line),
 * or NULL when there is none or the file is good. A bad file fails every timed launch. */
const char *sim_timing_params_error(void);

#endif
