/*
 * ir_banks.h — LDS bank-conflict analysis of a kernel's own LDS accesses
 * (`flyc show --banks FILE.fly`, `flyc --emit=banks`).
 *
 * Model. After the IR passes every LDS access is an instruction on an
 * lds.alloc root with an element offset computed by plain integer ops from
 * thread ids, block ids, arguments and loop counters: `ld` (ds_read), `st`
 * (ds_write), `ld_tr` (ds_read_b64_tr_b*) and `lds_dma` (a global load
 * straight to LDS). For each such access the analysis interprets the offset
 * computation for every thread of the workgroup, grouped into waves, under
 * several draws of the workgroup-uniform values: block ids and arguments
 * drawn at random (arguments as multiples of 64), loop counters enumerated
 * over every combination of the enclosing loops' iterations when there are at
 * most `samples` of them and drawn otherwise (the first iterations always
 * included). Lanes that the enclosing `if` conditions switch off take no
 * part. Each wave's per-lane byte addresses then go through the bank model
 * of lay_banks.c (lay_bank_cost: phases, banks, broadcast), and the worst
 * over waves and draws is reported per access.
 *
 * Example (one line per source access; the accesses of one `copy` at one
 * location with the same width and buffer are merged, `x8` counting them):
 *
 *   gemm_nt_128x128 [gfx950]: 256 threads = 4 waves of 64, LDS 65536 bytes
 *     examples/gemm_bf16.fly:54:7: read  sA ds_read_b128 x8: 4 phases, 4 cycles (conflict-free minimum 4), conflict-free
 *     ...
 *     summary: all LDS reads conflict-free (2 sites, 16 instructions); all LDS writes conflict-free (2 sites, 16 instructions)
 *
 * A site's cost is that of its costliest wave access (most cycles above the
 * minimum); "K-way bank conflict in A of B wave accesses" counts the wave
 * accesses (waves x draws x instructions) with any conflict.
 *
 * Limits: the width is the one flyc asks LLVM for (the ISA normally matches:
 * access_align promises natural alignment); accesses wider than 16 bytes are
 * counted as consecutive 16-byte pieces. Values the interpreter cannot follow
 * (a loaded index, floating point) make an access "not analysed". Loop-carried
 * values other than a `for`'s counter are treated as workgroup-uniform draws.
 */
#ifndef FLY_IR_BANKS_H
#define FLY_IR_BANKS_H

#include <stdio.h>

#include "ir.h"

struct TgtDesc;

typedef struct IrBanksOpts {
	const char *kernel;   /* only the kernel of this name; NULL = all */
	int samples;          /* draws of the uniform values per access; 0 = 32 */
	int addresses;        /* also print each site's lane addresses (first wave access) */
	int any_arch;         /* the archs were not chosen by the user: a kernel without targets(...) is
	                         analysed for the first arch only, an arch with no kernel is skipped */
	/* results, accumulated over calls */
	int kernels;          /* kernels analysed */
	int reads, writes;    /* LDS access sites (merged lines) */
	int read_conflicts, write_conflicts;  /* sites with a conflict */
	int read_unknown, write_unknown;      /* sites not analysed */
} IrBanksOpts;

/* Analyses the LDS accesses of every kernel of m (after ir_run_passes for
 * target t), printing the report to out and adding to the counts in o.
 * Returns 0, or 1 when t has no bank model (reported to d). */
int ir_banks_report(IrModule *m, const struct TgtDesc *t, IrBanksOpts *o, FILE *out, IrDiag *d);

#endif
