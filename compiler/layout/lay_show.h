/*
 * lay_show.h — drawing layouts for `flyc show`: text grids like
 * cute::print_layout, thread-value (T#V#) grids, SVG pictures like
 * cute::print_latex, and LDS bank maps with conflict counts.
 */
#ifndef FLYC_LAY_SHOW_H
#define FLYC_LAY_SHOW_H

#include <stdio.h>

#include "layout/lay.h"

/* An LDS bank model (lay_banks.c). The rows are the architecture's facts and
 * live in the target table (compiler/target/target.c, TgtDesc.lds); the
 * layout engine only applies them. A rule overrides the default phases of
 * one access kind; accesses of 1, 2 and 4 bytes are one phase of the whole
 * wave, every other kind without a rule takes 128 bytes of consecutive
 * lanes per phase over all banks. */
typedef struct lay_bank_rule {
	int bytes;                   /* bytes per lane of the access (0 ends the list) */
	int is_write;
	int banks;                   /* banks serving one phase; 0: all of them */
	const unsigned char *phase;  /* the phase of each lane; NULL: consecutive lanes */
} lay_bank_rule;

typedef struct lay_arch_banks {
	const char *arch;            /* "gfx950", "gfx1201" (for messages) */
	int banks;                   /* number of LDS banks */
	int bank_bytes;              /* bytes per bank */
	int lanes;                   /* lanes of one wave */
	const lay_bank_rule *rules;  /* terminated by bytes == 0; may be NULL */
} lay_arch_banks;

/* The phase (0 ..) that serves LANE of one LDS access of BYTES per lane
 * (1, 2, 4, 8, 12, 16), a write when IS_WRITE; how many phases there are. */
int lay_bank_phase(const lay_arch_banks *a, int bytes, int is_write, int lane);
int lay_bank_nphases(const lay_arch_banks *a, int bytes, int is_write);

/* The cost of one LDS access of a wave. */
typedef struct lay_bank_cost_t {
	int phases;       /* phases of the instruction */
	int min_cycles;   /* phases with an active lane: the conflict-free cost */
	int cycles;       /* sum over those phases of the worst bank's distinct dwords */
	int worst;        /* the largest such count (1: conflict-free; 0: no active lane) */
	int worst_phase, worst_bank;
} lay_bank_cost_t;

/* Applies the bank model to one access of BYTES per lane: lane i touches
 * the PER_LANE (1..16) dwords (byte address / 4) DWORDS[i * PER_LANE ..]
 * and takes part when ACTIVE is NULL or ACTIVE[i]. 0, or -1 for bad sizes. */
int lay_bank_cost(const lay_arch_banks *a, int bytes, int is_write, const int64_t *dwords, int per_lane,
                  const unsigned char *active, lay_bank_cost_t *out);

/* Grid of offsets of a rank-1 or rank-2 static layout (cute::print_layout). */
int lay_show_grid(lay_ctx *c, const lay_val *l, FILE *f);
/* Grid of T#V# labels: `tv` maps (thread,value) -> offset into a
 * rank-2 region of shape `mn` (M rows, N columns, column-major offsets). */
int lay_show_tv(lay_ctx *c, const lay_val *tv, const lay_val *mn, FILE *f);
/* SVG of a layout (offsets) or of a thread-value layout (tv with mn). */
int lay_show_svg(lay_ctx *c, const lay_val *l, const lay_val *tv_mn, FILE *f);
/* Bank of every element and conflicts per access phase: lane i of access k
 * loads vec_bytes (4, 8, 16) of consecutive elements of the layout's domain. */
int lay_show_banks(lay_ctx *c, const lay_val *l, int elem_bytes, int vec_bytes, const lay_arch_banks *arch, FILE *f);

#endif
