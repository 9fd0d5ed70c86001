/*
 * lay_show.h — drawing layouts for `flyc show`: text grids like
 * cute::print_layout, thread-value (T#V#) grids, SVG pictures like
 * cute::print_latex, and LDS bank maps with conflict counts.
 */
#ifndef FLYC_LAY_SHOW_H
#define FLYC_LAY_SHOW_H

#include <stdio.h>

#include "layout/lay.h"

typedef struct lay_arch_banks {
	const char *arch;    /* "gfx950", "gfx1201" */
	int banks;           /* number of LDS banks */
	int bank_bytes;      /* bytes per bank */
	int lanes;           /* lanes of one wave */
} lay_arch_banks;

/* The bank model of an architecture; NULL if unknown. */
const lay_arch_banks *lay_banks_for(const char *arch);

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
