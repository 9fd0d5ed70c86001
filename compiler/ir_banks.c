/*
 * ir_banks.c — bank-conflict analysis of a kernel's LDS accesses (model and
 * limits in ir_banks.h; the bank model itself is lay_banks.c).
 *
 * Steps, per kernel:
 *   1. collect: walk the regions in order; every ld/st/ld_tr/lds_dma on an
 *      lds.alloc root becomes a Site with its enclosing for/if chain;
 *   2. per site and draw: pick the workgroup-uniform world (a seed) and the
 *      enclosing loops' counters, then interpret the offset for every thread
 *      (memoised per thread) and the enclosing if conditions (active lanes);
 *   3. per wave: lay_bank_cost on the lanes' dwords; keep the worst;
 *   4. print one line per (location, kind, width, tensor), then a summary.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_banks.h"
#include "ir_eval.h"
#include "layout/lay_show.h"
#include "target/target.h"

enum { MAXCTX = 32, MAXLANES = 64 };

typedef enum { K_READ, K_WRITE, K_READ_TR, K_DMA } Kind;

typedef struct {
	IrRef ref;            /* the access */
	Kind kind;
	int bytes;            /* per lane */
	int trbits;           /* ld_tr: the element width exchanged */
	IrRef root, off;      /* lds.alloc and element offset */
	IrRef ctx[MAXCTX];    /* enclosing for/if, outermost first */
	int branch[MAXCTX];   /* if: 0 then, 1 else */
	int nctx;
} Site;

/* the analysis' state: the evaluator and the target */
typedef struct {
	IrEval ev;
	const TgtDesc *t;
} Ev;

/* ---- collecting the accesses ---- */

typedef struct {
	const IrFunc *f;
	Site *s;
	int n, cap;
	IrRef ctx[MAXCTX];
	int branch[MAXCTX];
	int nctx;
} Coll;

static int
is_lds_root(const IrFunc *f, IrRef r)
{
	return r && f->inst[r].op == IR_OP_LDSALLOC;
}

static int
bytes_of(IrType t)
{
	int b = (int)(ir_scalar_bits((IrScalar)t.kind) * t.lanes + 7) / 8;
	return b ? b : 1;
}

static void
add_site(Coll *c, IrRef r, Kind k, int bytes, IrRef root, IrRef off)
{
	Site *s;

	if (c->n == c->cap) {
		int nc = c->cap ? 2 * c->cap : 64;
		Site *ns = realloc(c->s, sizeof *ns * (size_t)nc);
		if (!ns)
			IR_ICE("out of memory");
		c->s = ns;
		c->cap = nc;
	}
	s = &c->s[c->n++];
	memset(s, 0, sizeof *s);
	s->ref = r;
	s->kind = k;
	s->bytes = bytes;
	s->root = root;
	s->off = off;
	s->trbits = k == K_READ_TR ? (int)c->f->inst[r].imm[0] : 0;
	s->nctx = c->nctx;
	memcpy(s->ctx, c->ctx, sizeof c->ctx);
	memcpy(s->branch, c->branch, sizeof c->branch);
}

static void
collect(Coll *c, IrRegion rg)
{
	const IrFunc *f = c->f;

	for (uint32_t i = 0; i < f->reg[rg].n; i++) {
		IrRef r = f->reg[rg].inst[i];
		const IrInst *I = &f->inst[r];
		switch (I->op) {
		case IR_OP_LD:
			if (I->nops == 2 && is_lds_root(f, I->ops[0]))
				add_site(c, r, K_READ, bytes_of(I->ty), I->ops[0], I->ops[1]);
			break;
		case IR_OP_ST:
			if (I->nops == 3 && is_lds_root(f, I->ops[0]))
				add_site(c, r, K_WRITE, bytes_of(f->inst[I->ops[1]].ty), I->ops[0], I->ops[2]);
			break;
		case IR_OP_LDTR:
			if (I->nops == 2 && is_lds_root(f, I->ops[0]))
				add_site(c, r, K_READ_TR, I->imm[0] == 6 ? 12 : 8, I->ops[0], I->ops[1]);
			break;
		case IR_OP_LDSDMA:
			if (I->nops == 4 && is_lds_root(f, I->ops[2]))
				add_site(c, r, K_DMA, (int)I->imm[0], I->ops[2], I->ops[3]);
			break;
		default:
			break;
		}
		for (int k = 0; k < 2; k++) {
			if (!I->region[k])
				continue;
			if (c->nctx < MAXCTX) {
				c->ctx[c->nctx] = r;
				c->branch[c->nctx] = k;
			}
			c->nctx++;
			collect(c, I->region[k]);
			c->nctx--;
		}
	}
}

/* ---- per-site results, merged by source line ---- */

typedef struct {
	const char *file;
	int line, col;
	Kind kind;
	int bytes, trbits;
	IrRef root;
	int count;            /* IR accesses merged */
	int phases, cycles, min_cycles, worst;   /* the costliest wave instance */
	long instances, conflicting;
	int have0;            /* addr0/act0: the first wave access analysed (--addresses) */
	int64_t addr0[MAXLANES];
	unsigned char act0[MAXLANES];
	int unknown;
} Line;

static const char *
insn_name(Kind k, int bytes, int elem_bits, char *buf, size_t n)
{
	switch (k) {
	case K_READ:
		if (bytes < 4)
			snprintf(buf, n, "ds_read_u%d", bytes * 8);
		else
			snprintf(buf, n, "ds_read_b%d", bytes * 8);
		break;
	case K_WRITE: snprintf(buf, n, "ds_write_b%d", bytes * 8); break;
	case K_READ_TR: snprintf(buf, n, "ds_read_b%d_tr_b%d", bytes * 8, elem_bits); break;
	case K_DMA: snprintf(buf, n, "load_to_lds_b%d", bytes * 8); break;
	}
	return buf;
}

/* the loops and the draw count of a site: enumerate when every loop's trip
 * count is the same in two worlds and their product is at most samples */
static int
plan(Ev *e, const Site *s, int samples, int64_t *trip, int *enumerate)
{
	int64_t t2[MAXCTX], prod = 1;
	int same = 1;

	for (int w = 0; w < 2; w++) {
		int64_t *tr = w ? t2 : trip;
		ir_eval_seed(&e->ev, ir_eval_mix(UINT64_C(0x243F6A8885A308D3) + (uint64_t)w));
		for (int k = 0; k < s->nctx && k < MAXCTX; k++) {
			const IrInst *L = &e->ev.f->inst[s->ctx[k]];
			int64_t lb, ub, st;
			tr[k] = 1;
			if (L->op != IR_OP_FOR)
				continue;
			ir_eval_thread(&e->ev, 0, 0, 0);
			lb = ir_eval(&e->ev, L->ops[0]);
			ub = ir_eval(&e->ev, L->ops[1]);
			st = ir_eval(&e->ev, L->ops[2]);
			tr[k] = e->ev.bad || st <= 0 ? -1 : ub > lb ? (ub - lb + st - 1) / st : 0;
			ir_eval_set_counter(&e->ev, s->ctx[k], lb);
		}
	}
	for (int k = 0; k < s->nctx && k < MAXCTX; k++) {
		if (trip[k] != t2[k] || trip[k] < 1)
			same = 0;
		else if (prod <= samples)
			prod *= trip[k];
	}
	*enumerate = same && prod <= samples;
	return *enumerate ? (int)prod : samples;
}

/* analyses site s into line l */
static void
analyse(Ev *e, const Site *s, const lay_arch_banks *ab, int samples, Line *l)
{
	const IrFunc *f = e->ev.f;
	const IrTensor *R = &f->tensor[f->inst[s->root].aux];
	unsigned W = e->t->wave_size, bx = f->block[0], by = f->block[1], bz = f->block[2];
	unsigned nthr = bx * by * bz, nw = (nthr + W - 1) / W;
	int64_t trip[MAXCTX], addr[MAXLANES], dw[MAXLANES * 16];
	unsigned char act[MAXLANES];
	int enumerate, ndraw = plan(e, s, samples, trip, &enumerate);
	int is_write = s->kind == K_WRITE || s->kind == K_DMA;
	unsigned ebits = ir_scalar_bits(R->elem);

	for (int d = 0; d < ndraw && !l->unknown; d++) {
		int64_t digit = d, skip = 0;
		ir_eval_seed(&e->ev, ir_eval_mix(UINT64_C(0x13198A2E03707344) + (uint64_t)d));
		/* the enclosing loops' counters, outermost first */
		for (int k = 0; k < s->nctx && k < MAXCTX; k++) {
			const IrInst *L = &f->inst[s->ctx[k]];
			int64_t lb, ub, st, n, i;
			if (L->op != IR_OP_FOR)
				continue;
			ir_eval_thread(&e->ev, 0, 0, 0);
			lb = ir_eval(&e->ev, L->ops[0]);
			ub = ir_eval(&e->ev, L->ops[1]);
			st = ir_eval(&e->ev, L->ops[2]);
			if (e->ev.bad || st <= 0) {   /* bounds not followed: the first iterations */
				lb = 0;
				st = 1;
				n = 4;
			} else {
				n = ub > lb ? (ub - lb + st - 1) / st : 0;
			}
			if (n <= 0) {
				skip = 1;
				break;
			}
			if (enumerate) {
				i = digit % n;
				digit /= n;
			} else {
				i = d < 4 ? (d < n ? d : n - 1) : (int64_t)(ir_eval_mix(e->ev.seed + (uint64_t)k) % (uint64_t)n);
			}
			ir_eval_set_counter(&e->ev, s->ctx[k], lb + i * st);
		}
		if (skip)
			continue;
		for (unsigned w = 0; w < nw && !l->unknown; w++) {
			int any = 0, piece, total = s->bytes > 0 ? s->bytes : 1;
			for (unsigned lane = 0; lane < W; lane++) {
				unsigned t = w * W + lane;
				int on = 1;
				act[lane] = 0;
				addr[lane] = 0;
				if (t >= nthr)
					continue;
				ir_eval_thread(&e->ev, t % bx, (t / bx) % by, t / (bx * by));
				for (int k = 0; k < s->nctx && k < MAXCTX && on; k++) {
					const IrInst *C = &f->inst[s->ctx[k]];
					int64_t c;
					if (C->op != IR_OP_IF)
						continue;
					c = ir_eval(&e->ev, C->ops[0]);
					if (e->ev.bad) {
						e->ev.bad = 0;   /* a condition not followed: the lane counts as active */
						continue;
					}
					on = s->branch[k] ? !c : c != 0;
				}
				if (!on)
					continue;
				{
					/* LDS addresses are 32-bit: wrap there (no overflow on wild draws) */
					uint64_t o = (uint64_t)ir_eval(&e->ev, s->off);
					o = o * (uint64_t)(ebits ? ebits : 8) / 8;   /* packed fp4/fp6: o·b/8 */
					addr[lane] = (int64_t)((R->lds_offset + o) & UINT64_C(0xFFFFFFFF));
				}
				if (e->ev.bad) {
					l->unknown = 1;
					break;
				}
				act[lane] = 1;
				any = 1;
			}
			if (l->unknown || !any)
				continue;
			if (!l->have0) {
				memcpy(l->addr0, addr, sizeof addr);
				memcpy(l->act0, act, sizeof act);
				l->have0 = 1;
			}
			/* accesses wider than 16 bytes: consecutive 16-byte pieces */
			for (int at = 0; at < total; at += piece) {
				int per = 1;
				lay_bank_cost_t cost;
				piece = total - at > 16 ? 16 : total - at;
				for (unsigned lane = 0; lane < W; lane++) {
					int64_t a0 = addr[lane] + at, first = a0 >> 2, last = (a0 + piece - 1) >> 2;
					if (act[lane] && last - first + 1 > per)
						per = (int)(last - first + 1);
				}
				for (unsigned lane = 0; lane < W; lane++) {
					int64_t first = (addr[lane] + at) >> 2, last = (addr[lane] + at + piece - 1) >> 2;
					for (int k = 0; k < per; k++)
						dw[lane * per + k] = first + k <= last ? first + k : first;
				}
				if (lay_bank_cost(ab, piece, is_write, dw, per, act, &cost))
					continue;
				l->instances++;
				if (cost.worst > 1)
					l->conflicting++;
				if (cost.cycles - cost.min_cycles > l->cycles - l->min_cycles || !l->phases) {
					l->phases = cost.phases;
					l->cycles = cost.cycles;
					l->min_cycles = cost.min_cycles;
				}
				if (cost.worst > l->worst)
					l->worst = cost.worst;
			}
		}
	}
}

static int
same_line(const Line *l, const IrInst *I, const Site *s)
{
	return l->line == I->loc.line && l->col == I->loc.col && l->kind == s->kind && l->bytes == s->bytes &&
	       l->root == s->root && ((!l->file && !I->loc.file) || (l->file && I->loc.file && !strcmp(l->file, I->loc.file)));
}

/* the byte address of every lane of the first wave access analysed */
static void
print_addresses(FILE *out, const Line *l, unsigned lanes)
{
	fprintf(out, "    lane byte addresses (first wave access; - = inactive):");
	for (unsigned i = 0; i < lanes; i++) {
		if (i % 16 == 0)
			fprintf(out, "\n     ");
		if (l->act0[i])
			fprintf(out, " %lld", (long long)l->addr0[i]);
		else
			fprintf(out, " -");
	}
	fprintf(out, "\n");
}

static void
print_line(FILE *out, const IrFunc *f, const Line *l)
{
	char nm[48];
	const IrTensor *R = &f->tensor[f->inst[l->root].aux];
	const char *what = l->kind == K_WRITE || l->kind == K_DMA ? "write" : "read ";

	fprintf(out, "  %s:%d:%d: %s %s %s x%d: ", l->file ? l->file : "?", l->line, l->col, what,
	        R->name ? R->name : "lds", insn_name(l->kind, l->bytes, l->trbits, nm, sizeof nm),
	        l->count);
	if (l->unknown) {
		fprintf(out, "not analysed (its address depends on values the analysis cannot follow)\n");
		return;
	}
	if (!l->instances) {
		fprintf(out, "never executed by any lane in the draws\n");
		return;
	}
	fprintf(out, "%d phase%s, %d cycle%s (conflict-free minimum %d), ", l->phases, l->phases == 1 ? "" : "s",
	        l->cycles, l->cycles == 1 ? "" : "s", l->min_cycles);
	if (l->worst <= 1)
		fprintf(out, "conflict-free\n");
	else
		fprintf(out, "%d-way bank conflict in %ld of %ld wave accesses\n", l->worst, l->conflicting, l->instances);
}

static void
summary_part(FILE *out, const char *what, int n, int insns, int conflicts, int unknown, int worst)
{
	if (!n)
		fprintf(out, "no LDS %s", what);
	else if (!conflicts && !unknown)
		fprintf(out, "all LDS %s conflict-free (%d site%s, %d instruction%s)", what, n, n == 1 ? "" : "s",
		        insns, insns == 1 ? "" : "s");
	else {
		fprintf(out, "LDS %s: %d of %d site%s with bank conflicts", what, conflicts, n, n == 1 ? "" : "s");
		if (conflicts)
			fprintf(out, " (worst %d-way)", worst);
		if (unknown)
			fprintf(out, ", %d not analysed", unknown);
	}
}

static void
report_func(const IrFunc *f, const TgtDesc *t, const lay_arch_banks *ab, IrBanksOpts *o, FILE *out)
{
	Coll c = { f, NULL, 0, 0, { 0 }, { 0 }, 0 };
	Line *lines;
	int nl = 0, samples = o->samples > 0 ? o->samples : 32;
	int nr = 0, nwr = 0, cr = 0, cw = 0, ur = 0, uw = 0, wr = 0, ww = 0, ir = 0, iw = 0;
	unsigned nthr = f->block[0] * f->block[1] * f->block[2];
	Ev e;

	collect(&c, 1);
	ir_eval_init(&e.ev, f, t->wave_size);
	e.t = t;
	lines = calloc((size_t)(c.n ? c.n : 1), sizeof *lines);
	if (!lines)
		IR_ICE("out of memory");
	fprintf(out, "%s [%s]: %u threads = %u wave%s of %u, LDS %u bytes\n", f->name, t->name, nthr,
	        (nthr + t->wave_size - 1) / t->wave_size, nthr > t->wave_size ? "s" : "", t->wave_size, f->lds_bytes);
	for (int i = 0; i < c.n; i++) {
		const Site *s = &c.s[i];
		const IrInst *I = &f->inst[s->ref];
		Line *l = NULL;
		for (int k = 0; k < nl && !l; k++)
			if (same_line(&lines[k], I, s))
				l = &lines[k];
		if (!l) {
			l = &lines[nl++];
			l->file = I->loc.file;
			l->line = I->loc.line;
			l->col = I->loc.col;
			l->kind = s->kind;
			l->bytes = s->bytes;
			l->root = s->root;
			l->trbits = s->trbits;
		}
		l->count++;
		if (!l->unknown)
			analyse(&e, s, ab, samples, l);
	}
	for (int k = 0; k < nl; k++) {
		const Line *l = &lines[k];
		int w = l->kind == K_WRITE || l->kind == K_DMA;
		print_line(out, f, l);
		if (o->addresses && l->have0)
			print_addresses(out, l, t->wave_size);
		if (w) {
			nwr++;
			iw += l->count;
			cw += l->worst > 1;
			uw += l->unknown;
			ww = l->worst > ww ? l->worst : ww;
		} else {
			nr++;
			ir += l->count;
			cr += l->worst > 1;
			ur += l->unknown;
			wr = l->worst > wr ? l->worst : wr;
		}
	}
	fprintf(out, "  summary: ");
	summary_part(out, "reads", nr, ir, cr, ur, wr);
	fprintf(out, "; ");
	summary_part(out, "writes", nwr, iw, cw, uw, ww);
	fprintf(out, "\n");
	o->kernels++;
	o->reads += nr;
	o->writes += nwr;
	o->read_conflicts += cr;
	o->write_conflicts += cw;
	o->read_unknown += ur;
	o->write_unknown += uw;
	free(lines);
	free(c.s);
	ir_eval_free(&e.ev);
}

int
ir_banks_report(IrModule *m, const TgtDesc *t, IrBanksOpts *o, FILE *out, IrDiag *d)
{
	lay_arch_banks banks = tgt_lds_banks(t), *ab = &banks;

	if (ab->lanes > MAXLANES) {
		IrLoc none = { 0 };
		ir_error(d, none, "no LDS bank model for %s", t->name);
		return 1;
	}
	for (uint32_t i = 0; i < m->nfunc; i++)
		if (!o->kernel || !strcmp(o->kernel, m->func[i]->name))
			report_func(m->func[i], t, ab, o, out);
	return 0;
}
