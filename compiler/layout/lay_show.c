/*
 * lay_show.c — pictures of layouts for `flyc show`: the offset grid (as
 * cute::print_layout), the thread-value grid (T#V#), an SVG picture with
 * threads colored (as cute::print_latex), and LDS bank maps with conflict
 * counts per access phase.
 */
#include <stdlib.h>
#include <string.h>

#include "layout/lay_show.h"
#include "layout/lay_int.h"

/* Evaluate a static layout (or composed layout) at integer index or (m,n). */
static int
value_at(lay_ctx *c, const lay_val *l, const lay_val *coord, int64_t *out)
{
	const lay_val *v = lay_apply(c, l, coord);

	if (!v || v->kind != LAY_INT || !lay_e_known(v->u.i)) {
		if (!c->failed)
			lay_fail(c, "show: the layout must be static (known integers)");
		return -1;
	}
	*out = v->u.i->value;
	return 0;
}

/* (rows, cols) of a rank-1 or rank-2 layout: rank 1 is one row... like CuTe
 * we show rank-1 layouts as a column (m = index, n = 0). */
static int
grid_dims(lay_ctx *c, const lay_val *l, int64_t *m, int64_t *n)
{
	const lay_val *s;
	int r = lay_rank(l);

	if (!lay_is_layoutish(l) && l->kind != LAY_VIEW) {
		lay_fail(c, "show: expects a layout, not a %s", lay_kind_name(l->kind));
		return -1;
	}
	s = lay_shape(c, l);
	if (!s || !lay_is_static(s)) {
		lay_fail(c, "show: the layout must be static (known integers)");
		return -1;
	}
	if (r == 1) {
		*m = lay_size(c, l)->u.i->value;
		*n = 1;
		return 0;
	}
	if (r != 2) {
		lay_fail(c, "show: expects a rank-1 or rank-2 layout (rank %d); group modes first", r);
		return -1;
	}
	*m = lay_size(c, tget(c, s, 0))->u.i->value;
	*n = lay_size(c, tget(c, s, 1))->u.i->value;
	if (*m * *n > 1 << 20) {
		lay_fail(c, "show: the layout is too large to draw (%lld elements)", (long long)(*m * *n));
		return -1;
	}
	return 0;
}

static int
cell(lay_ctx *c, const lay_val *l, int64_t m, int64_t n, int rank, int64_t *out)
{
	const lay_val *crd = rank == 1 ? lay_int(c, m) : lay_tuple2(c, lay_int(c, m), lay_int(c, n));

	return value_at(c, l, crd, out);
}

static void
rule(FILE *f, int64_t n, int w)
{
	int64_t j;
	int i;

	fprintf(f, "    ");
	for (j = 0; j < n; j++) {
		fputc('+', f);
		for (i = 0; i < w; i++)
			fputc('-', f);
	}
	fprintf(f, "+\n");
}

/* Print a grid of labels; label(i,j) writes into buf. */
typedef int (*label_fn)(lay_ctx *c, void *arg, int64_t m, int64_t n, char *buf, size_t cap);

static int
draw_grid(lay_ctx *c, FILE *f, int64_t rows, int64_t cols, label_fn lab, void *arg)
{
	char buf[64];
	int64_t i, j;
	int w = 1;

	for (i = 0; i < rows; i++)
		for (j = 0; j < cols; j++) {
			int k;
			if (lab(c, arg, i, j, buf, sizeof buf))
				return -1;
			k = (int)strlen(buf);
			if (k > w)
				w = k;
		}
	fprintf(f, "    ");
	for (j = 0; j < cols; j++)
		fprintf(f, "  %*lld ", w, (long long)j);
	fprintf(f, "\n");
	for (i = 0; i < rows; i++) {
		rule(f, cols, w + 2);
		fprintf(f, "%2lld  ", (long long)i);
		for (j = 0; j < cols; j++) {
			lab(c, arg, i, j, buf, sizeof buf);
			fprintf(f, "| %*s ", w, buf);
		}
		fprintf(f, "|\n");
	}
	rule(f, cols, w + 2);
	return 0;
}

struct lay_arg {
	const lay_val *l;
	int rank;
};

static int
offset_label(lay_ctx *c, void *arg, int64_t m, int64_t n, char *buf, size_t cap)
{
	struct lay_arg *a = arg;
	int64_t v;

	if (cell(c, a->l, m, n, a->rank, &v))
		return -1;
	snprintf(buf, cap, "%lld", (long long)v);
	return 0;
}

int
lay_show_grid(lay_ctx *c, const lay_val *l, FILE *f)
{
	int64_t m, n;
	struct lay_arg a;

	if (!l || grid_dims(c, l, &m, &n))
		return -1;
	a.l = l;
	a.rank = lay_rank(l);
	fprintf(f, "%s\n", lay_to_string(c, l));
	return draw_grid(c, f, m, n, offset_label, &a);
}

/* ------------------------------------------------------ thread-value --- */

typedef struct tvmap {
	int64_t rows, cols;
	int64_t *thr, *val;   /* per cell, -1 when no (t,v) maps there */
} tvmap;

static int
tv_build(lay_ctx *c, const lay_val *tv, const lay_val *mn, tvmap *t)
{
	int64_t nt, nv, i, j, off, cells;
	const lay_val *s;

	if (!tv || !mn)
		return -1;
	if (tv->kind != LAY_LAYOUT || lay_rank(tv) != 2) {
		lay_fail(c, "show: a thread-value layout must be a rank-2 layout (thread, value) -> offset");
		return -1;
	}
	s = mn->kind == LAY_TUPLE ? mn : lay_tuple2(c, mn, lay_int(c, 1));
	if (!lay_is_static(s) || !lay_is_static(tv) || rank_of(s) > 2) {
		lay_fail(c, "show: the thread-value layout and its tile must be static and of rank <= 2");
		return -1;
	}
	t->rows = lay_size(c, tget(c, s, 0))->u.i->value;
	t->cols = rank_of(s) > 1 ? lay_size(c, tget(c, s, 1))->u.i->value : 1;
	cells = t->rows * t->cols;
	if (cells > 1 << 20) {
		lay_fail(c, "show: too large to draw");
		return -1;
	}
	t->thr = lay_alloc(c->arena, sizeof(int64_t) * (size_t)cells);
	t->val = lay_alloc(c->arena, sizeof(int64_t) * (size_t)cells);
	if (!t->thr || !t->val) {
		lay_fail(c, "out of memory");
		return -1;
	}
	for (i = 0; i < cells; i++)
		t->thr[i] = t->val[i] = -1;
	nt = lay_size(c, tget(c, tv->u.l.shape, 0))->u.i->value;
	nv = lay_size(c, tget(c, tv->u.l.shape, 1))->u.i->value;
	for (i = 0; i < nt; i++)
		for (j = 0; j < nv; j++) {
			if (value_at(c, tv, lay_tuple2(c, lay_int(c, i), lay_int(c, j)), &off))
				return -1;
			if (off < 0 || off >= cells) {
				lay_fail(c, "show: T%lldV%lld maps to %lld, outside the %lldx%lld tile",
				         (long long)i, (long long)j, (long long)off, (long long)t->rows, (long long)t->cols);
				return -1;
			}
			if (t->thr[off] < 0) {   /* the first (lowest) thread owning a cell is shown */
				t->thr[off] = i;
				t->val[off] = j;
			}
		}
	return 0;
}

static int
tv_label(lay_ctx *c, void *arg, int64_t m, int64_t n, char *buf, size_t cap)
{
	tvmap *t = arg;
	int64_t k = m + n * t->rows;

	if (t->thr[k] < 0)
		snprintf(buf, cap, ".");
	else
		snprintf(buf, cap, "T%lldV%lld", (long long)t->thr[k], (long long)t->val[k]);
	return 0;
}

int
lay_show_tv(lay_ctx *c, const lay_val *tv, const lay_val *mn, FILE *f)
{
	tvmap t;

	if (tv_build(c, tv, mn, &t))
		return -1;
	fprintf(f, "%s  over  %s\n", lay_to_string(c, tv), lay_to_string(c, mn));
	return draw_grid(c, f, t.rows, t.cols, tv_label, &t);
}

/* ------------------------------------------------------------- SVG --- */

/* The colors of CuTe's print_latex: threads by tid % 8 (pastels), plain
 * layouts by offset % 8 (grays: 0, 40, 20, 60, 10, 50, 30, 70 % black). */
static const char *const palette[] = {
	"#afafff", "#afffaf", "#ffffaf", "#ffafaf", "#d2d2ff", "#d2ffd2", "#ffffd2", "#ffd2d2",
};
static const char *const grays[] = {
	"#ffffff", "#999999", "#cccccc", "#666666", "#e6e6e6", "#808080", "#b3b3b3", "#4d4d4d",
};

/* Writes s as XML character data: a layout's text holds '<' and '>' (Sw<3,3,3>). */
static void
xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

int
lay_show_svg(lay_ctx *c, const lay_val *l, const lay_val *tv_mn, FILE *f)
{
	int64_t rows, cols, i, j, v;
	const int cw = 56, ch = 28, pad = 24;
	tvmap t;
	struct lay_arg a;

	if (!l)
		return -1;
	if (tv_mn) {
		if (tv_build(c, l, tv_mn, &t))
			return -1;
		rows = t.rows;
		cols = t.cols;
	} else {
		if (grid_dims(c, l, &rows, &cols))
			return -1;
		a.l = l;
		a.rank = lay_rank(l);
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lld\" height=\"%lld\" "
	        "font-family=\"monospace\" font-size=\"11\">\n",
	        (long long)(cols * cw + 2 * pad), (long long)(rows * ch + 2 * pad + 16));
	fputs("<title>", f);
	xml_text(f, lay_to_string(c, l));
	fprintf(f, "</title>\n<text x=\"%d\" y=\"14\">", pad);
	xml_text(f, lay_to_string(c, l));
	fputs("</text>\n", f);
	for (j = 0; j < cols; j++)
		fprintf(f, "<text x=\"%lld\" y=\"%d\" text-anchor=\"middle\">%lld</text>\n",
		        (long long)(pad + j * cw + cw / 2), pad + 10, (long long)j);
	for (i = 0; i < rows; i++) {
		fprintf(f, "<text x=\"%d\" y=\"%lld\" text-anchor=\"end\">%lld</text>\n",
		        pad - 4, (long long)(pad + 16 + i * ch + ch / 2 + 4), (long long)i);
		for (j = 0; j < cols; j++) {
			char lab[48];
			const char *fill;
			if (tv_mn) {
				int64_t k = i + j * rows;
				if (t.thr[k] < 0) {
					fill = "#ffffff";
					snprintf(lab, sizeof lab, " ");
				} else {
					fill = palette[t.thr[k] % 8];
					snprintf(lab, sizeof lab, "T%lldV%lld", (long long)t.thr[k], (long long)t.val[k]);
				}
			} else {
				if (cell(c, a.l, i, j, a.rank, &v))
					return -1;
				fill = grays[((v % 8) + 8) % 8];
				snprintf(lab, sizeof lab, "%lld", (long long)v);
			}
			fprintf(f, "<rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"black\"/>"
			        "<text x=\"%lld\" y=\"%lld\" text-anchor=\"middle\">%s</text>\n",
			        (long long)(pad + j * cw), (long long)(pad + 16 + i * ch), cw, ch, fill,
			        (long long)(pad + j * cw + cw / 2), (long long)(pad + 16 + i * ch + ch / 2 + 4), lab);
		}
	}
	fprintf(f, "</svg>\n");
	return 0;
}

/* ------------------------------------------------------------ banks --- */

struct bank_arg {
	const lay_val *l;
	int rank, elem_bytes;
	const lay_arch_banks *a;
};

static int
bank_label(lay_ctx *c, void *arg, int64_t m, int64_t n, char *buf, size_t cap)
{
	struct bank_arg *b = arg;
	int64_t v;

	if (cell(c, b->l, m, n, b->rank, &v))
		return -1;
	snprintf(buf, cap, "%lld", (long long)(((v * b->elem_bytes) / b->a->bank_bytes) % b->a->banks));
	return 0;
}

int
lay_show_banks(lay_ctx *c, const lay_val *l, int elem_bytes, int vec_bytes, const lay_arch_banks *a, FILE *f)
{
	int64_t m, n, size, per_lane, nacc, acc, total = 0;
	struct bank_arg b;
	int nph, ph, lane, worst_all = 1;

	if (!l || grid_dims(c, l, &m, &n))
		return -1;
	if (elem_bytes <= 0 || vec_bytes % elem_bytes || (vec_bytes != 4 && vec_bytes != 8 && vec_bytes != 16)) {
		lay_fail(c, "show: --vec must be 4, 8 or 16 bytes and a multiple of the element size");
		return -1;
	}
	b.l = l;
	b.rank = lay_rank(l);
	b.elem_bytes = elem_bytes;
	b.a = a;
	fprintf(f, "%s  element %d B, %s: %d banks x %d B\n", lay_to_string(c, l), elem_bytes, a->arch, a->banks, a->bank_bytes);
	fprintf(f, "bank of each element:\n");
	if (draw_grid(c, f, m, n, bank_label, &b))
		return -1;
	/* accesses: the lanes read the grid row by row (a row-major tile, as a copy
	 * from row-major memory does): lane i of access k reads the vec_bytes /
	 * elem_bytes consecutive cells (k*lanes + i) * per_lane ... of the rows */
	size = m * n;
	per_lane = vec_bytes / elem_bytes;
	nacc = (size + per_lane * a->lanes - 1) / (per_lane * a->lanes);
	nph = lay_bank_nphases(a, vec_bytes, 0);
	fprintf(f, "accesses: %d-byte loads (ds_read_b%d); lanes read the rows in order, %lld element(s) each\n",
	        vec_bytes, vec_bytes * 8, (long long)per_lane);
	if (per_lane > 16 || a->lanes > 64) {
		lay_fail(c, "show: too many elements per lane");
		return -1;
	}
	for (acc = 0; acc < nacc; acc++) {
		/* the dwords of lane i's elements at dw[i * per_lane ..] */
		int64_t dw[64 * 16];
		unsigned char act[64];
		for (lane = 0; lane < a->lanes; lane++) {
			int64_t e;
			act[lane] = 0;
			for (e = 0; e < per_lane; e++) {
				int64_t idx = (acc * a->lanes + lane) * per_lane + e, off;
				if (idx >= size) {
					dw[lane * per_lane + e] = e ? dw[lane * per_lane] : 0;   /* a repeat costs nothing */
					continue;
				}
				if (cell(c, l, idx / n, idx % n, b.rank, &off))
					return -1;
				dw[lane * per_lane + e] = off * elem_bytes / a->bank_bytes;
				act[lane] = 1;
			}
		}
		for (ph = 0; ph < nph; ph++) {
			unsigned char in[64];
			lay_bank_cost_t cost;
			for (lane = 0; lane < a->lanes; lane++)
				in[lane] = act[lane] && lay_bank_phase(a, vec_bytes, 0, lane) == ph;
			if (lay_bank_cost(a, vec_bytes, 0, dw, (int)per_lane, in, &cost)) {
				lay_fail(c, "show: bad access size");
				return -1;
			}
			if (cost.worst > 1) {
				fprintf(f, "access %lld phase %d: %d-way conflict (bank %d holds %d different dwords)\n",
				        (long long)acc, ph, cost.worst, cost.worst_bank, cost.worst);
				total += cost.worst - 1;
			}
			if (cost.worst > worst_all)
				worst_all = cost.worst;
		}
	}
	fprintf(f, "summary: %lld access(es) x %d phase(s), %s, %lld extra cycle(s) from bank conflicts\n",
	        (long long)nacc, nph, worst_all > 1 ? "conflicts" : "conflict-free", (long long)total);
	return 0;
}
