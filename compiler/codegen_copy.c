/*
 * codegen_copy.c — copies: what a copy atom moves per access and whether a
 * copy's layouts allow it (codegen_copy.h, docs/codegen.md "Copies"), then
 * copy(src, dst [, pred]) lowered per atom: packed loads and stores of views,
 * predicates from identity tensors, zero-fill, loads straight to LDS, and the
 * register-staged split of copies inside pipelines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_copy.h"
#include "codegen_int.h"
#include "codegen_span.h"
#include "ir_banks.h"
#include "ir_eval.h"

static const char *
field_str(const Node *decl, const char *name)
{
	for (int i = 0; i < decl->u.atom.fields.n; i++) {
		const Param *p = decl->u.atom.fields.v[i];
		if (!strcmp(p->name, name) && p->value && p->value->kind == E_STR)
			return p->value->u.str.s;
	}
	return NULL;
}

static const Value *
field_layout(const Node *decl, const char *name)
{
	for (int i = 0; i < decl->u.atom.fields.n; i++) {
		const Param *p = decl->u.atom.fields.v[i];
		if (!strcmp(p->name, name) && p->value && p->value->cval && p->value->cval->kind == VAL_LAYOUT)
			return p->value->cval;
	}
	return NULL;
}

static int64_t
field_int(const Node *decl, const char *name)
{
	for (int i = 0; i < decl->u.atom.fields.n; i++) {
		const Param *p = decl->u.atom.fields.v[i];
		if (!strcmp(p->name, name) && p->value && p->value->kind == E_INT)
			return p->value->u.ival;
	}
	return -1;
}

int
cg_copy_atom(const Node *decl, CgCopyAtom *a)
{
	const char *from, *to, *intr;
	int64_t bits;

	if (!decl || decl->kind != D_ATOM || !decl->u.atom.kind || strcmp(decl->u.atom.kind, "copy"))
		return 0;
	from = field_str(decl, "from");
	to = field_str(decl, "to");
	intr = field_str(decl, "intrinsic");
	bits = field_int(decl, "bits");
	if (!from || !to || !intr || bits <= 0 || bits > 128)
		return 0;
	memset(a, 0, sizeof *a);
	a->name = decl->u.atom.id;
	a->bits = (unsigned)bits;
	a->buffer = strstr(intr, "buffer") != NULL;
	a->elem_bits = field_int(decl, "elem_bits") > 0 ? (unsigned)field_int(decl, "elem_bits") : 0;
	a->load = strcmp(from, "reg") != 0;   /* memory -> registers or LDS */
	a->src_tv = field_layout(decl, "src_layout");
	a->dst_tv = field_layout(decl, "dst_layout");
	if (!strcmp(to, "lds") && !strcmp(from, "global"))
		a->kind = CG_COPY_LDS_DMA;
	else if (strstr(intr, ".ds.read.tr"))
		a->kind = CG_COPY_DS_TR;
	else if (strstr(intr, ".global.load.tr"))
		a->kind = CG_COPY_GLOBAL_TR;
	else if (!strcmp(from, "lds") || !strcmp(to, "lds"))
		a->kind = CG_COPY_DS;
	else if (a->buffer)
		a->kind = CG_COPY_BUFFER;
	else
		a->kind = CG_COPY_GLOBAL;
	return 1;
}

unsigned
cg_copy_check(const CgCopyAtom *a, IrScalar elem, unsigned n, int64_t run,
              int space, int is_src, char *why, size_t wn)
{
	unsigned eb = ir_scalar_bits(elem), per;
	int want_lds = a->kind == CG_COPY_DS || a->kind == CG_COPY_DS_TR;

	if (a->kind == CG_COPY_DS_TR) {
		if (a->elem_bits != 16 && a->elem_bits != 8 && a->elem_bits != 4 && a->elem_bits != 6) {
			snprintf(why, wn, "flyc has no %u-bit element type for this transposed read", a->elem_bits);
			return 0;
		}
		per = a->bits / a->elem_bits;
		if (!is_src) {
			snprintf(why, wn, "it reads LDS into registers, but here the tensor is the copy's destination");
			return 0;
		}
		if (space != IR_SPACE_LDS || eb != a->elem_bits || n % per || run % per) {
			snprintf(why, wn, "a transposed read takes %u contiguous %u-bit elements per lane and access "
			         "from LDS, and this is %u %s elements %s contiguous in runs of %lld", per,
			         a->elem_bits, n, ir_scalar_name(elem), space == IR_SPACE_LDS ? "in LDS" : "not in LDS",
			         (long long)run);
			return 0;
		}
		return per;
	}
	if (a->kind == CG_COPY_GLOBAL_TR) {
		/* 8 lanes each read 8 consecutive elements, then swap them (an 8x8 transpose) */
		if ((a->elem_bits != 16 || a->bits != 128) && (a->elem_bits != 8 || a->bits != 64)) {
			snprintf(why, wn, "a transposed global load moves 8 elements of 16 bits (128 bits) or of "
			         "8 bits (64 bits) per lane, and this atom declares %u elements of %u bits",
			         a->elem_bits ? a->bits / a->elem_bits : 0, a->elem_bits);
			return 0;
		}
		if (!is_src) {
			snprintf(why, wn, "it reads global memory into registers, but here the tensor is the copy's "
			         "destination");
			return 0;
		}
		if (space != IR_SPACE_GLOBAL || eb != a->elem_bits || n % 8 || run % 8) {
			snprintf(why, wn, "a transposed global load takes 8 contiguous %u-bit elements per lane and "
			         "access from global memory, and this is %u %s elements %s contiguous in runs of %lld",
			         a->elem_bits, n, ir_scalar_name(elem), space == IR_SPACE_GLOBAL ? "in global memory" :
			         space == IR_SPACE_LDS ? "in LDS" : "not in memory", (long long)run);
			return 0;
		}
		return 8;
	}
	if (a->kind == CG_COPY_LDS_DMA) {
		/* one access per `bits / eb` contiguous elements on both sides:
		 * global memory read, LDS written at M0 + lane * stride */
		if ((space == IR_SPACE_GLOBAL) != is_src || (space == IR_SPACE_LDS) == is_src) {
			snprintf(why, wn, "a load straight to LDS reads global memory and writes LDS, and this "
			         "tensor, the copy's %s, is %s", is_src ? "source" : "destination",
			         space == IR_SPACE_LDS ? "in LDS" : space == IR_SPACE_GLOBAL ? "in global memory"
			                                          : "not in memory");
			return 0;
		}
		if (a->bits != 32 && a->bits != 96 && a->bits != 128) {
			snprintf(why, wn, "a load straight to LDS moves 32, 96 or 128 bits per lane, and this atom "
			         "declares %u", a->bits);
			return 0;
		}
		per = eb && !(a->bits % eb) ? a->bits / eb : 0;
		if (!per || n % per || run % per) {
			snprintf(why, wn, "a load straight to LDS moves %u contiguous bits per thread and access, and "
			         "this thread's part of the %s is %u %s elements contiguous in runs of %lld",
			         a->bits, is_src ? "source" : "destination", n, ir_scalar_name(elem), (long long)run);
			return 0;
		}
		return per;
	}
	if (a->load != is_src) {
		snprintf(why, wn, "it %s, but here the tensor is the copy's %s",
		         a->load ? "loads from memory" : "stores to memory", is_src ? "source" : "destination");
		return 0;
	}
	if (space == IR_SPACE_IDENTITY || (space == IR_SPACE_LDS) != want_lds) {
		snprintf(why, wn, "it works on %s memory, but this tensor is %s",
		         want_lds ? "LDS" : "global", space == IR_SPACE_LDS ? "in LDS" : "not in LDS");
		return 0;
	}
	if (!eb || a->bits % eb) {
		snprintf(why, wn, "its %u bits are not a whole number of %s elements", a->bits, ir_scalar_name(elem));
		return 0;
	}
	per = a->bits / eb;
	if (n % per) {
		snprintf(why, wn, "it moves %u %s elements per access, and this view has %u", per,
		         ir_scalar_name(elem), n);
		return 0;
	}
	if (run % per) {
		snprintf(why, wn, "it moves %u contiguous %s elements per access, and this view's elements "
		         "are contiguous in runs of %lld", per, ir_scalar_name(elem), (long long)run);
		return 0;
	}
	return per;
}

/* ---- placement of loads straight to LDS ---- */

/* byte address (relative to the LDS buffer) of element 0 of view v */
static int64_t
lds_addr(IrEval *e, IrRef v)
{
	const IrFunc *f = e->f;
	const IrTensor *R = &f->tensor[f->inst[ir_tensor_root(f, v)].aux];
	int64_t off = 0;
	for (; f->inst[v].op == IR_OP_TVIEW; v = f->inst[v].ops[0])
		off += ir_eval(e, f->inst[v].ops[1]);
	if (R->layout.sw.b) {
		const IrSwizzle sw = R->layout.sw;
		int64_t mask = ((INT64_C(1) << sw.b) - 1) << (sw.m + sw.s);
		off ^= (off & mask) >> sw.s;
	}
	if (ir_scalar_packed(R->elem))
		return off * (int64_t)ir_scalar_bits(R->elem) / 8;
	return off * (int64_t)ir_scalar_bytes(R->elem, 1);
}

/* Whether VAL(v) of every thread of the workgroup (block threads, waves of
 * WAVE) is its wave's first lane's plus STEP per lane, in two draws of the
 * wave-uniform values (arguments, block ids, loop counters): 1 yes, 0 no
 * (*bad_t the first thread off, *bad_d its distance), -1 when the evaluator
 * cannot follow v */
static int
per_wave_steps(const IrFunc *f, IrRef v, int64_t (*val)(IrEval *, IrRef), unsigned block, unsigned wave,
               int64_t step, unsigned *bad_t, int64_t *bad_d)
{
	IrEval e;
	int res = 1;

	ir_eval_init(&e, f, wave);
	for (uint64_t seed = 1; seed <= 2 && res == 1; seed++) {
		int64_t first = 0;
		ir_eval_seed(&e, seed * UINT64_C(0x5851F42D4C957F2D));
		for (unsigned t = 0; t < block && res == 1; t++) {
			int64_t x;
			ir_eval_thread(&e, (int64_t)t, 0, 0);
			x = val(&e, v);
			if (e.bad)
				res = -1;
			else if (t % wave == 0)
				first = x;
			else if (x - first != (int64_t)(t % wave) * step) {
				*bad_t = t;
				*bad_d = x - first;
				res = 0;
			}
		}
	}
	ir_eval_free(&e);
	return res;
}

int
cg_lds_dma_placement(const IrFunc *f, IrRef v, unsigned block, unsigned wave,
                     unsigned lane_stride, char *why, size_t wn)
{
	unsigned t = 0;
	int64_t d = 0;
	int res = per_wave_steps(f, v, lds_addr, block, wave, lane_stride, &t, &d);

	if (res < 0)
		snprintf(why, wn, "its LDS address depends on values the compiler cannot follow");
	else if (!res)
		snprintf(why, wn, "the hardware writes lane %u's data %u bytes after lane 0's, but this "
		         "layout places thread %u's elements %lld bytes after its wave's first lane",
		         t % wave, (t % wave) * lane_stride, t, (long long)d);
	return res;
}

enum { CG_MAXDUP = 16 };   /* duplicate waves whose accesses are selected */

/* 1 if the i32 value v is the same in every thread of each wave of the
 * workgroup; 0 if not or if the evaluator cannot follow it */
static int
wave_uniform(const IrFunc *f, IrRef v, unsigned block, unsigned wave)
{
	unsigned t;
	int64_t d;
	return per_wave_steps(f, v, ir_eval, block, wave, 0, &t, &d) == 1;
}

/* ds_read_b96_tr_b6 reads 16-byte aligned addresses only (docs/codegen.md
 * "Transposed operand reads"): every thread of the workgroup must read view v
 * at a multiple of 16 bytes of its LDS buffer (which starts 16-byte aligned).
 * Checked like the placement above, in two draws of the workgroup-uniform
 * values; an address the evaluator cannot follow passes (the simulator checks
 * it at run time). 1 if fine, else 0 after a located error. */
static int
tr6_placement_ok(Cg *c, Node *n, IrRef v, const char *atom)
{
	const IrFunc *f = c->f;
	unsigned bx = f->block[0] ? f->block[0] : 1, by = f->block[1] ? f->block[1] : 1;
	unsigned nt = bx * by * (f->block[2] ? f->block[2] : 1);
	IrEval e;
	int64_t bad = -1, at = 0;

	ir_eval_init(&e, f, 64);
	for (uint64_t seed = 1; seed <= 2 && bad < 0 && !e.bad; seed++) {
		ir_eval_seed(&e, seed * UINT64_C(0x5851F42D4C957F2D));
		for (unsigned t = 0; t < nt && bad < 0; t++) {
			ir_eval_thread(&e, (int64_t)(t % bx), (int64_t)(t / bx % by), (int64_t)(t / (bx * by)));
			at = lds_addr(&e, v);
			if (e.bad)
				break;
			if (at % 16)
				bad = t;
		}
	}
	ir_eval_free(&e);
	if (bad < 0)
		return 1;
	if (!c->failed)
		diag_error(c->d, n->span, "copy atom '%s' reads 16-byte aligned addresses only, and here thread %lld "
		           "reads byte %lld of its LDS buffer (fp6/bf6 element offsets must be multiples of 64: pad "
		           "the LDS layout, e.g. each run of 16 elements at a multiple of 64)", atom, (long long)bad,
		           (long long)at);
	c->failed = 1;
	return 0;
}

/* ---- copies: copy(src, dst [, pred]) lowered per atom ---- */

static void copy_views(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a);
static void copy_views_pred(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a, Node *pn);
static const CgCopyAtom *inherited_atom(Cg *c, Node *n, IrRef s, IrRef d, CgCopyAtom *buf);

/* elements per access: at most 16 bytes, dividing both the run and n;
 * packed elements (fp4, fp6/bf6) whole bytes only: 0 when none fits */
static unsigned
piece_of(IrScalar elem, unsigned n, int64_t run)
{
	unsigned es = (ir_scalar_bits(elem) + 7) / 8, p = 16 / (es ? es : 1);
	if (ir_scalar_packed(elem)) {
		unsigned g = ir_scalar_bits(elem) == 4 ? 2 : 4;   /* elements per whole byte group */
		for (p = g == 2 ? 32 : 16; p >= g; p /= 2)
			if (!(run % p) && !(n % p))
				return p;
		return 0;
	}
	if (p < 1)
		p = 1;
	while (p > 1 && (run % p || n % p))
		p /= 2;
	return p;
}

/* element u of coordinate view cid: *lo the coordinate (rank 1) or its first
 * mode, *hi its second mode (rank 2: m + n * 2^32 unpacked, make_identity) */
static void
coord_at(Cg *c, IrRef cid, int rank2, IrRef k, IrRef *lo, IrRef *hi)
{
	IrRef x = ir_b_tload(&c->b, cid, 1, 1, &k);
	IrType i64 = ir_ty(IR_I64);
	if (!rank2) {
		*lo = x;
		return;
	}
	*lo = ir_b_bin(&c->b, IR_OP_AND, x, ir_b_const(&c->b, i64, 0xffffffff));
	*hi = ir_b_bin(&c->b, IR_OP_SHR, x, ir_b_const(&c->b, i64, 32));
}

/* 1 when every stride of view t is a known non-negative integer; for a
 * rank-2 identity's packed strides dm + dn * 2^32 also dm below 2^31 (a
 * negative dm with a positive dn packs to a positive stride whose low part is
 * 2^32 + dm) */
static int
nonneg_strides(Cg *c, IrRef t, int rank2)
{
	const lay_val *d = lay_flatten(&c->lc, lay_stride(&c->lc, cg_lay_of(c, t)));
	int n = d && d->kind == LAY_TUPLE ? d->u.t.n : 1;

	for (int i = 0; d && i < n; i++) {
		int64_t v;
		if (!cg_lay_int(d->kind == LAY_TUPLE ? d->u.t.e[i] : d, &v) || v < 0 ||
		    (rank2 && (v & 0xffffffff) >= (INT64_C(1) << 31)))
			return 0;
	}
	return d != NULL;
}

/* A bool fragment that compares a fragment with a scalar by a signed integer
 * order (x k splat(y), or splat(y) k x mirrored): *k, *x and the scalar *y.
 * Its values are compared one by one where each is copied, and "all true" is
 * one compare of the largest x (k < or <=) or the smallest (> or >=) with y:
 * extracts of the vector compare had LLVM compute every value's lane mask
 * before the copy's split and keep them all live through the element-wise
 * path, two SGPRs each (grouped_tile.fly's store: 64 values, 64 SGPRs). Other
 * bool fragments keep those extracts (an AND of separate lanes becomes a
 * bit-packing of the masks in LLVM, ~4 instructions a value). */
static int
bound_cmp(Cg *c, IrRef b, IrCmp *k, IrRef *x, IrRef *y)
{
	static const IrCmp mirror[] = { [IR_LT] = IR_GT, [IR_LE] = IR_GE, [IR_GT] = IR_LT, [IR_GE] = IR_LE };
	IrInst *I = &c->f->inst[b];

	if (I->op != IR_OP_CMP || I->imm[0] < IR_LT || I->imm[0] > IR_GE)
		return 0;
	int left = c->f->inst[I->ops[0]].op == IR_OP_SPLAT;
	IrRef s = I->ops[!left];
	if (c->f->inst[s].op != IR_OP_SPLAT)
		return 0;
	*x = I->ops[left];
	*y = c->f->inst[s].ops[0];
	*k = left ? mirror[I->imm[0]] : (IrCmp)I->imm[0];
	IrType xt = c->f->inst[*x].ty;
	return ir_ty_is_int(xt) && xt.kind != IR_I1;
}

/* value v of bound_cmp's compare */
static IrRef
bound_lane(Cg *c, IrCmp k, IrRef x, IrRef y, unsigned v)
{
	return ir_b_cmp(&c->b, k, ir_b_extract(&c->b, x, v), y);
}

/* every value of bound_cmp's compare (l values) true */
static IrRef
bound_all(Cg *c, IrCmp k, IrRef x, IrRef y, unsigned l)
{
	IrOp op = k == IR_LT || k == IR_LE ? IR_OP_MAX : IR_OP_MIN;
	IrRef r = ir_b_extract(&c->b, x, 0);
	for (unsigned i = 1; i < l; i++)
		r = ir_b_bin(&c->b, op, r, ir_b_extract(&c->b, x, i));
	return ir_b_cmp(&c->b, k, r, y);
}

/* PRED_ALL as pred_at's value: every value of the copy is in range */
enum { PRED_ALL = -1 };

/* predicate for value v of a copy of nn values (or for all of them, v ==
 * PRED_ALL; for the run-time value index kdyn when it is not 0):
 * pred=elem_less(cid, S) evaluated lazily. For all values of an elem_less,
 * the largest coordinate of each mode is compared (one compare per mode
 * instead of nn: the masks of an i1 per value would fill SGPRs): that of the
 * last value when the strides are non-negative, else the maximum over all
 * values (whose coordinates LLVM then keeps live for the split path) */
static IrRef
pred_at_k(Cg *c, Node *p, int v, unsigned nn, IrRef kdyn)
{
	Node *lz = p->kind == E_NAME && p->u.name.sym ? cg_lookup_lazy(c, p->u.name.sym) : NULL;
	Node *el = lz ? lz : p;
	if (el->kind == E_CALL && el->u.call.callee->kind == E_NAME &&
	    cg_builtin(el->u.call.callee) == B_ELEM_LESS && el->u.call.args.n == 2) {
		IrRef cid = cg_expr(c, el->u.call.args.v[0]);
		Node *bn = el->u.call.args.v[1];
		IrRef b, lo = 0, hi = 0;
		if (!cid)
			return 0;
		if (!cg_is_tensor_val(c, cid)) {
			cg_unsupported(c, el->span, "elem_less on this value");
			return 0;
		}
		if (v <= 0 && cg_view_size(c, cid) != (int64_t)nn) {
			if (!c->failed)
				diag_error(c->d, el->span, "the predicate's coordinates have %lld elements per thread, but "
				           "the copy moves %u", (long long)cg_view_size(c, cid), nn);
			c->failed = 1;
			return 0;
		}
		IrTensor *R = cg_tensor_of(c, ir_tensor_root(c->f, cid));
		int rank2 = R->space == IR_SPACE_IDENTITY && R->elem == IR_I64;
		if (v != PRED_ALL) {
			coord_at(c, cid, rank2, kdyn ? kdyn : ir_b_const(&c->b, ir_ty(IR_I32), v), &lo, &hi);
		} else if (nonneg_strides(c, cid, rank2)) {
			/* every mode's coordinate grows with its index: the last value
			 * (the last index of every mode) holds the largest of each */
			coord_at(c, cid, rank2, ir_b_const(&c->b, ir_ty(IR_I32), nn - 1), &lo, &hi);
		} else {
			for (unsigned u = 0; u < nn; u++) {
				IrRef l1, h1 = 0;
				coord_at(c, cid, rank2, ir_b_const(&c->b, ir_ty(IR_I32), u), &l1, &h1);
				lo = u ? ir_b_bin(&c->b, IR_OP_MAX, lo, l1) : l1;
				if (rank2)
					hi = u ? ir_b_bin(&c->b, IR_OP_MAX, hi, h1) : h1;
			}
		}
		if (rank2) {
			/* coordinates of a rank-2 identity */
			IrTuple *bt = cg_tuple_of_node(c, bn);
			IrType i64 = ir_ty(IR_I64);
			if (!bt || bt->n != 2 || bt->kid[0]->n || bt->kid[1]->n) {
				if (!c->failed)
					diag_error(c->d, bn->span, "elem_less of rank-2 coordinates needs a shape of rank 2, "
					           "e.g. (M, N)");
				c->failed = 1;
				return 0;
			}
			IrRef p0 = ir_b_cmp(&c->b, IR_LT, lo, cg_to_type(c, cg_leaf_val(c, bt->kid[0], i64), i64));
			IrRef p1 = ir_b_cmp(&c->b, IR_LT, hi, cg_to_type(c, cg_leaf_val(c, bt->kid[1], i64), i64));
			return ir_b_bin(&c->b, IR_OP_AND, p0, p1);
		}
		if (!(b = cg_expr(c, bn)))
			return 0;
		return ir_b_cmp(&c->b, IR_LT, lo, cg_to_type(c, b, ir_ty(IR_I32)));
	}
	IrRef b = cg_expr(c, p);
	if (b && c->f->inst[b].ty.lanes == 1)
		return cg_to_type(c, b, ir_ty(IR_I1));
	if (b && c->f->inst[b].ty.kind == IR_I1 && !kdyn) {
		/* a bool fragment: one bool per value of the copy, in its order */
		unsigned l = c->f->inst[b].ty.lanes;
		IrRef all;
		if (l != nn) {
			if (!c->failed)
				diag_error(c->d, p->span, "the predicate has %u values per thread, but the copy moves %u", l, nn);
			c->failed = 1;
			return 0;
		}
		IrCmp k;
		IrRef x, y;
		if (bound_cmp(c, b, &k, &x, &y))
			return v != PRED_ALL ? bound_lane(c, k, x, y, (unsigned)v) : bound_all(c, k, x, y, l);
		if (v != PRED_ALL)
			return ir_b_extract(&c->b, b, (unsigned)v);
		all = ir_b_extract(&c->b, b, 0);
		for (unsigned i = 1; i < l; i++)
			all = ir_b_bin(&c->b, IR_OP_AND, all, ir_b_extract(&c->b, b, i));
		return all;
	}
	if (b)
		cg_unsupported(c, p->span, "this predicate");
	return 0;
}

static IrRef
pred_at(Cg *c, Node *p, int v, unsigned nn)
{
	return pred_at_k(c, p, v, nn, 0);
}

static IrRef
zero_i32(Cg *c)
{
	return ir_b_const(&c->b, ir_ty(IR_I32), 0);
}

/* r mod g (g a power of two) when the index arithmetic shows it, else -1 */
static int64_t
residue(Cg *c, IrRef r, int64_t g)
{
	const IrInst *I = &c->f->inst[r];
	int64_t a, b;

	switch (I->op) {
	case IR_OP_CONST: return I->imm[0] & (g - 1);
	case IR_OP_CVT: return residue(c, I->ops[0], g);
	case IR_OP_ADD: case IR_OP_SUB:
		a = residue(c, I->ops[0], g);
		b = residue(c, I->ops[1], g);
		return a < 0 || b < 0 ? -1 : (I->op == IR_OP_ADD ? a + b : a - b) & (g - 1);
	case IR_OP_MUL:
		a = residue(c, I->ops[0], g);
		b = residue(c, I->ops[1], g);
		return !a || !b ? 0 : a < 0 || b < 0 ? -1 : (a * b) & (g - 1);
	case IR_OP_SHL:
		a = residue(c, I->ops[0], g);
		b = c->f->inst[I->ops[1]].op == IR_OP_CONST ? c->f->inst[I->ops[1]].imm[0] : -1;
		return b >= 0 && b < 62 && !((INT64_C(1) << b) & (g - 1)) ? 0 : a < 0 || b < 0 || b >= 62 ? -1
		       : (a << b) & (g - 1);
	default: return -1;
	}
}

/* the offset of view t in its root, mod g (a power of two), when the index
 * arithmetic of every view on the way shows it; else -1 */
int64_t
cg_view_residue(Cg *c, IrRef t, int64_t g)
{
	int64_t off = 0;
	for (IrRef v = t; c->f->inst[v].op == IR_OP_TVIEW && off >= 0; v = c->f->inst[v].ops[0]) {
		int64_t r = residue(c, c->f->inst[v].ops[1], g);
		off = r < 0 ? -1 : (off + r) & (g - 1);
	}
	return off;
}

/* Packed elements (fp4: 2 per byte, fp6/bf6: 4 per 3 bytes) move in whole
 * bytes: every access of a copy of view t (n elements, contiguous in runs of
 * run, `force` per access when an atom fixes it) must start on a byte and
 * cover whole bytes. Checked on the static strides and the offsets whose
 * residue the index arithmetic shows; run-time strides and offsets are
 * assumed to keep whole bytes (docs/codegen.md). 1 if fine, else 0 after a
 * located error. */
int
cg_packed_ok(Cg *c, Span sp, IrRef t, unsigned n, int64_t run, unsigned force)
{
	IrTensor *T = cg_tensor_of(c, t);
	const lay_val *co, *fs, *fd;
	int nf, i;
	unsigned eb = ir_scalar_bits(T->elem), g = eb == 4 ? 2 : 4, per;
	const char *tn = eb == 4 ? "fp4" : "fp6/bf6";
	const char *pk = eb == 4 ? "2 per byte" : "4 per 3 bytes";
	int64_t off;

	if (!ir_scalar_packed(T->elem))
		return 1;
	per = force ? force : piece_of(T->elem, n, run);
	if (!per || per % g) {
		if (!c->failed)
			diag_error(c->d, sp, "this copy would split a byte: %s elements are packed %s, and "
			           "its %u elements are contiguous in runs of %lld (an access needs a multiple of %u "
			           "contiguous elements)", tn, pk, n, (long long)run, g);
		c->failed = 1;
		return 0;
	}
	/* the modes of coalesce(T) past its leading stride-1 run: every static
	 * stride must keep whole bytes */
	co = lay_coalesce(&c->lc, cg_lay_of(c, t), NULL);
	fs = co ? lay_flatten(&c->lc, lay_shape(&c->lc, co)) : NULL;
	fd = fs ? lay_flatten(&c->lc, lay_stride(&c->lc, co)) : NULL;
	nf = fd && fd->kind == LAY_TUPLE ? fd->u.t.n : 1;
	for (i = 0; fd && i < nf; i++) {
		int64_t st, ex = cg_lay_known(fs->kind == LAY_TUPLE ? fs->u.t.e[i] : fs);
		if (!cg_lay_int(fd->kind == LAY_TUPLE ? fd->u.t.e[i] : fd, &st) || (i == 0 && st == 1) || ex == 1 ||
		    st % g == 0)
			continue;
		if (!c->failed)
			diag_error(c->d, sp, "this copy would split a byte: %s elements are packed %s, and a "
			           "mode of this view has stride %lld (not a multiple of %u)", tn, pk, (long long)st, g);
		c->failed = 1;
		return 0;
	}
	IrTensor *R = cg_tensor_of(c, ir_tensor_root(c->f, t));
	if (R->layout.sw.b && (INT64_C(1) << R->layout.sw.m) % g) {
		if (!c->failed)
			diag_error(c->d, sp, "this copy would split a byte: %s elements are packed %s, and the "
			           "swizzle of '%s' moves runs of %lld element(s)", tn, pk, R->name ? R->name : "?",
			           (long long)(INT64_C(1) << R->layout.sw.m));
		c->failed = 1;
		return 0;
	}
	off = cg_view_residue(c, t, g);
	if (off > 0) {
		if (!c->failed)
			diag_error(c->d, sp, "this copy would split a byte: %s elements are packed %s, and this "
			           "view starts %lld element(s) past a byte boundary", tn, pk, (long long)off);
		c->failed = 1;
		return 0;
	}
	return 1;
}

/* loads the n elements of view t into a vector (contiguous: 16-byte pieces) */
IrRef
cg_load_view(Cg *c, IrRef t, unsigned n, int64_t run, unsigned force)
{
	IrTensor *T = cg_tensor_of(c, t);
	unsigned piece = force ? force : piece_of(T->elem, n, run);
	IrRef acc;

	if (n == 1) {
		IrRef z = zero_i32(c);
		return ir_b_tload(&c->b, t, 1, 1, &z);
	}
	if (piece == n) {
		IrRef z = zero_i32(c);
		return ir_b_tload(&c->b, t, n, 1, &z);
	}
	acc = ir_b_splat(&c->b, ir_vec(T->elem, n), ir_ty_is_float(ir_ty(T->elem))
	                 ? ir_b_fconst(&c->b, ir_ty(T->elem), 0) : ir_b_const(&c->b, ir_ty(T->elem), 0));
	for (unsigned k = 0; k < n; k += piece) {
		IrRef co = ir_b_const(&c->b, ir_ty(IR_I32), k);
		IrRef v = ir_b_tload(&c->b, t, piece, 1, &co);
		if (ir_scalar_packed(T->elem)) {   /* whole pieces: packed data never moves per element */
			acc = ir_b_insert(&c->b, acc, v, k);
			continue;
		}
		for (unsigned j = 0; j < piece; j++)
			acc = ir_b_insert(&c->b, acc, piece > 1 ? ir_b_extract(&c->b, v, j) : v, k + j);
	}
	return acc;
}

static void
store_view(Cg *c, IrRef t, IrRef val, unsigned n, int64_t run, unsigned force)
{
	IrTensor *T = cg_tensor_of(c, t);
	unsigned piece = force ? force : piece_of(T->elem, n, run);

	if (piece == n) {
		IrRef co = zero_i32(c);
		ir_b_tstore(&c->b, t, val, 1, &co);
		return;
	}
	for (unsigned k = 0; k < n; k += piece) {
		IrRef co = ir_b_const(&c->b, ir_ty(IR_I32), k), v;
		if (piece == 1) {
			v = ir_b_extract(&c->b, val, k);
		} else if (ir_scalar_packed(T->elem)) {
			v = ir_b_extract_vec(&c->b, val, k, piece);
		} else {
			v = ir_b_splat(&c->b, ir_vec(T->elem, piece), ir_b_extract(&c->b, val, k));
			for (unsigned j = 1; j < piece; j++)
				v = ir_b_insert(&c->b, v, ir_b_extract(&c->b, val, k + j), j);
		}
		ir_b_tstore(&c->b, t, v, 1, &co);
	}
}

/* the fragment variable thr.retile_S/D(x) names (x itself otherwise) */
static Node *
unretile(Node *n)
{
	if (n->kind == E_CALL && n->u.call.callee->kind == E_MEMBER && n->u.call.args.n == 1 &&
	    (n->u.call.callee->u.member.method == M_RETILE_S || n->u.call.callee->u.member.method == M_RETILE_D))
		return n->u.call.args.v[0];
	return n;
}

/* The copy atom named by copy(ATOM|tiled_copy(ATOM, ...), src, dst), or NULL */
static const CgCopyAtom *
copy_atom_of(Node *n, CgCopyAtom *buf)
{
	Node *an = n->u.call.args.n == 3 ? n->u.call.args.v[0] : NULL;
	if (!an || !an->type || !an->type->atom || !cg_copy_atom(an->type->atom, buf))
		return NULL;
	return buf;
}

/* Elements per access that atom a gives the view t (is_src: the copy's
 * source), making the tensor's addressing follow the atom (buffer atoms:
 * a descriptor, under the 4 GiB rule; global atoms: 64-bit addresses).
 * 0 after a located error when the layouts do not allow the atom. */
static unsigned
atom_piece(Cg *c, Node *n, const CgCopyAtom *a, IrRef t, unsigned nn, int64_t run, int is_src)
{
	IrRef root = ir_tensor_root(c->f, t);
	IrTensor *T = cg_tensor_of(c, t), *R = cg_tensor_of(c, root);
	char why[200];
	unsigned per = cg_copy_check(a, T->elem, nn, run, (int)R->space, is_src, why, sizeof why);

	if (!per) {
		if (!c->failed)
			diag_error(c->d, n->span, "copy atom '%s' cannot do this copy: %s", a->name, why);
		c->failed = 1;
		return 0;
	}
	if (a->kind == CG_COPY_BUFFER || a->kind == CG_COPY_GLOBAL || a->kind == CG_COPY_GLOBAL_TR ||
	    (a->kind == CG_COPY_LDS_DMA && is_src)) {
		IrAddr want = a->buffer ? IR_ADDR_BUFFER : IR_ADDR_GLOBAL64;
		if (R->addr != IR_ADDR_AUTO && R->addr != want) {
			if (!c->failed)
				diag_error(c->d, n->span, "copy atom '%s' addresses tensor '%s' %s, but another copy "
				           "addresses it %s", a->name, R->name ? R->name : "?",
				           want == IR_ADDR_BUFFER ? "by a buffer descriptor" : "by 64-bit global addresses",
				           want == IR_ADDR_BUFFER ? "by 64-bit global addresses" : "by a buffer descriptor");
			c->failed = 1;
			return 0;
		}
		R->addr = want;
		if (want == IR_ADDR_BUFFER && !R->span_bound && ir_layout_cosize(&R->layout) < 0) {
			char sw[600];
			uint64_t um = 0;
			for (int i = 0; i < c->k->nparams && i < 64; i++)
				if (c->k->params[i]->type && cg_is_unsigned(c->k->params[i]->type->scalar))
					um |= UINT64_C(1) << i;
			if (!(R->span_bound = cg_span_bound(c->f, R, um, sw, sizeof sw))) {
				if (!c->failed)
					diag_error(c->d, n->span, "tensor '%s' has a run-time layout whose byte span may "
					           "exceed 4 GiB, and copy atom '%s' addresses it by a buffer descriptor "
					           "(32-bit offsets): %s", R->name ? R->name : "?", a->name, sw);
				c->failed = 1;
				return 0;
			}
		}
	}
	return per;
}

/* a transposed read of view t into a vector of type vt: one ld_tr per `per`
 * contiguous elements (a copy laid out as an MMA operand reads several), the
 * pieces in the view's order; 0 after a located error */
static IrRef
load_tr(Cg *c, Node *n, IrRef t, IrType vt, unsigned per, int elem_bits)
{
	IrScalar el = (IrScalar)vt.kind;
	IrType pt = per > 1 ? ir_vec(el, per) : ir_ty(el);
	IrRef acc;

	if (vt.lanes == per)
		return elem_bits == 6 && !tr6_placement_ok(c, n, t, "ds_read_b96_tr_b6") ? 0
		       : ir_b_ld_tr(&c->b, t, vt, elem_bits);
	acc = cg_zero_of(c, vt);
	for (unsigned k = 0; k < vt.lanes; k += per) {
		IrRef p = cg_view_piece(c, t, k, per, n->span), v;
		if (!p || (elem_bits == 6 && !tr6_placement_ok(c, n, p, "ds_read_b96_tr_b6")))
			return 0;
		c->b.loc = cg_loc_of(c, n->span);
		v = ir_b_ld_tr(&c->b, p, pt, elem_bits);
		if (ir_scalar_packed(el)) {   /* fp4/fp6: whole pieces */
			acc = ir_b_insert(&c->b, acc, v, k);
			continue;
		}
		for (unsigned j = 0; j < per; j++)
			acc = ir_b_insert(&c->b, acc, ir_b_extract(&c->b, v, j), k + j);
	}
	return acc;
}

/* a zero of type t (scalar or vector) */
IrRef
cg_zero_of(Cg *c, IrType t)
{
	IrType e = ir_ty((IrScalar)t.kind);
	IrRef z = ir_ty_is_float(e) ? ir_b_fconst(&c->b, e, 0) : ir_b_const(&c->b, e, 0);
	return t.lanes > 1 ? ir_b_splat(&c->b, t, z) : z;
}

/* Register-staged prefetch (stmt_pipeline) at a copy's write of V to view D:
 * with pipe_split 1, a write to LDS straight from the pipeline's load region
 * is deferred (V queued, 1 returned: skip the write); with pipe_split 2, *V
 * becomes the value queued for this copy. 0: write *V now. */
static int
pipe_defer(Cg *c, IrRef d, IrRef *v)
{
	if (c->pipe_split == 2) {
		*v = c->pipe_val;
		return 0;
	}
	if (c->pipe_split == 1 && c->pipe_slot >= 0 && c->b.cur == c->pipe_reg &&
	    cg_tensor_of(c, ir_tensor_root(c->f, d))->space == IR_SPACE_LDS) {
		c->pipe_q[c->pipe_slot] = *v;
		return 1;
	}
	return 0;
}

/* pipe_vote mode (codegen_pipe.c, pipe_fast): AND the all-in-range
 * predicate of a copy of view V with predicate P (NULL: none) into pipe_ok */
static void
pipe_vote(Cg *c, Node *p, IrRef v)
{
	int64_t nn = cg_is_tensor_val(c, v) ? cg_view_size(c, v) : 0;
	IrRef all;

	if (!p)
		return;
	if (nn <= 0) {          /* the copy itself is refused where it is lowered */
		c->pipe_ok = ir_b_const(&c->b, ir_ty(IR_I1), 0);
		return;
	}
	if (!(all = pred_at(c, p, PRED_ALL, (unsigned)nn)))
		return;
	c->pipe_ok = c->pipe_ok ? ir_b_bin(&c->b, IR_OP_AND, c->pipe_ok, all) : all;
}

/* copy([tiled], src, dst [, pred=p]) between a view and a register fragment */
void
cg_copy(Cg *c, Node *n)
{
	int na = n->u.call.args.n;
	Node *sn, *dn, *pn = NULL;
	IrRef s, d, all = 0;

	if (na < 2 || na > 3) {
		cg_unsupported(c, n->span, "this copy");
		return;
	}
	for (int i = 0; i < n->u.call.named.n; i++)
		if (!strcmp(n->u.call.named.v[i]->name, "pred"))
			pn = n->u.call.named.v[i]->value;
	c->pipe_slot = -1;
	if (c->pipe_split == 2) {      /* after compute: only the deferred LDS writes */
		c->pipe_val = c->pipe_iq < c->pipe_nq ? c->pipe_q[c->pipe_iq] : 0;
		c->pipe_iq++;
		if (!c->pipe_val)
			return;                /* done whole before compute */
	} else if (c->pipe_split == 1 && c->pipe_nq < CG_PIPEQ) {
		c->pipe_slot = c->pipe_nq;
		c->pipe_q[c->pipe_nq++] = 0;
	}
	sn = n->u.call.args.v[na - 2];
	dn = n->u.call.args.v[na - 1];
	if (!(s = cg_expr(c, sn)) || !(d = cg_expr(c, dn)))
		return;
	Node *dr = dn;      /* a retiled destination: the copy rebinds the fragment it names */
	dn = unretile(dn);
	CgCopyAtom abuf;
	const CgCopyAtom *atom = copy_atom_of(n, &abuf);
	if (!atom && na == 2 && !(atom = inherited_atom(c, n, s, d, &abuf)) && c->failed)
		return;
	int s_view = cg_is_tensor_val(c, s), d_view = cg_is_tensor_val(c, d);
	if (c->pipe_nopred)
		pn = NULL;
	if (c->pipe_vote) {
		pipe_vote(c, pn, s_view ? s : d);
		return;
	}
	if (s_view && d_view) {
		c->b.loc = cg_loc_of(c, n->span);
		if (pn)
			copy_views_pred(c, n, s, d, atom, pn);
		else
			copy_views(c, n, s, d, atom);
		return;
	}
	if (atom && atom->kind == CG_COPY_LDS_DMA) {
		if (!c->failed)
			diag_error(c->d, n->span, "copy atom '%s' loads global memory straight to LDS, and this copy's %s "
			           "is a register fragment (load it with a buffer or global load atom)", atom->name,
			           s_view ? "destination" : "source");
		c->failed = 1;
		return;
	}
	if (s_view == d_view || (s_view && !(dn->kind == E_NAME && dn->u.name.sym))) {
		cg_unsupported(c, n->span, "a copy other than between a tensor view and a register fragment");
		return;
	}
	IrRef view = s_view ? s : d;
	int64_t nel = cg_view_size(c, view);
	if (nel <= 0) {
		cg_unsupported(c, n->span, "a copy of a view without a static size");
		return;
	}
	if (cg_frag_limit(c, n->span, "this copy", nel))
		return;
	IrTensor *T = cg_tensor_of(c, view);
	unsigned nn = (unsigned)nel;
	IrType vt = nn > 1 ? ir_vec(T->elem, nn) : ir_ty(T->elem);
	int64_t vec = cg_contiguous(c, view);
	unsigned force = 0;
	if (atom && !(force = atom_piece(c, n, atom, view, nn, vec, s_view)))
		return;
	if (ir_scalar_packed(T->elem) && pn) {
		cg_unsupported(c, n->span, "a predicated copy of fp4/fp6/bf6 elements (packed below a byte)");
		return;
	}
	if (!cg_packed_ok(c, n->span, view, nn, vec, force))
		return;
	if (!s_view) {
		if (c->f->inst[s].ty.lanes != vt.lanes) {
			cg_unsupported(c, n->span, "a copy between shapes of different sizes");
			return;
		}
		s = cg_to_type(c, s, vt);
	} else if (dr != dn && !ir_ty_eq(c->f->inst[d].ty, vt)) {
		if (!c->failed)
			diag_error(c->d, dr->span, "the retiled fragment has %u values, but this thread's part of the "
			           "source has %u", c->f->inst[d].ty.lanes, nn);
		c->failed = 1;
		return;
	}
	c->b.loc = cg_loc_of(c, n->span);
	if (atom && (atom->kind == CG_COPY_DS_TR || atom->kind == CG_COPY_GLOBAL_TR)) {
		if (pn) {
			cg_unsupported(c, n->span, atom->kind == CG_COPY_DS_TR ? "a predicated transposed LDS read"
			                                                  : "a predicated transposed global load");
			return;
		}
		cg_bind(c, dn->u.name.sym, load_tr(c, n, s, vt, force, (int)atom->elem_bits));
		return;
	}
	if (!pn) {
		if (s_view)
			cg_bind(c, dn->u.name.sym, cg_load_view(c, s, nn, vec, force));
		else if (!pipe_defer(c, d, &s))
			store_view(c, d, s, nn, vec, force);
		return;
	}
	/* predicated: all values in range -> the vector path; else element by
	 * element, each value's predicate computed where it is used */
	if (!(all = pred_at(c, pn, PRED_ALL, nn)))
		return;
	if (s_view) {
		IrRef old = cg_lookup(c, dn->u.name.sym);
		if (!old || !ir_ty_eq(c->f->inst[old].ty, vt)) {
			cg_unsupported(c, dn->span, "a predicated copy into a fragment of another shape");
			return;
		}
		IrRef iff = ir_b_if(&c->b, all, 1, &vt);
		IrRef fast = cg_load_view(c, s, nn, vec, force);
		ir_b_yield(&c->b, 1, &fast);
		ir_b_else(&c->b);
		IrRef acc = old;
		for (unsigned v = 0; v < nn; v++) {
			IrType et = ir_ty(T->elem);
			IrRef pe = pred_at(c, pn, (int)v, nn);
			if (!pe)
				return;
			IrRef e1 = ir_b_if(&c->b, pe, 1, &et);
			IrRef co = ir_b_const(&c->b, ir_ty(IR_I32), v);
			IrRef x = ir_b_tload(&c->b, s, 1, 1, &co);
			ir_b_yield(&c->b, 1, &x);
			ir_b_else(&c->b);
			IrRef keep = nn > 1 ? ir_b_extract(&c->b, acc, v) : acc;
			ir_b_yield(&c->b, 1, &keep);
			ir_b_end(&c->b);
			IrRef got = ir_b_proj(&c->b, e1, 0);
			acc = nn > 1 ? ir_b_insert(&c->b, acc, got, v) : got;
		}
		ir_b_yield(&c->b, 1, &acc);
		ir_b_end(&c->b);
		cg_bind(c, dn->u.name.sym, ir_b_proj(&c->b, iff, 0));
		return;
	}
	ir_b_if(&c->b, all, 0, NULL);
	store_view(c, d, s, nn, vec, force);
	ir_b_else(&c->b);
	for (unsigned v = 0; v < nn; v++) {
		IrRef pe = pred_at(c, pn, (int)v, nn);
		if (!pe)
			return;
		ir_b_if(&c->b, pe, 0, NULL);
		IrRef co = ir_b_const(&c->b, ir_ty(IR_I32), v);
		ir_b_tstore(&c->b, d, nn > 1 ? ir_b_extract(&c->b, s, v) : s, 1, &co);
		ir_b_end(&c->b);
	}
	ir_b_end(&c->b);
}

/* The copy atom of the tiled copy whose partition_S/D made view r (or the
 * view r was taken of), or NULL. */
static const Node *
partition_atom(Cg *c, IrRef r)
{
	for (;;) {
		if (r < c->npart_atom && c->part_atom[r])
			return c->part_atom[r];
		if (c->f->inst[r].op != IR_OP_TVIEW)
			return NULL;
		r = c->f->inst[r].ops[0];
	}
}

/* copy(src, dst) between views that tiled copies partitioned uses their
 * atom, as copy(tc, src, dst) would: a load atom of the source's tiled copy,
 * a store atom of the destination's. NULL when neither has one; sets
 * c->failed when they name two different atoms. */
static const CgCopyAtom *
inherited_atom(Cg *c, Node *n, IrRef s, IrRef d, CgCopyAtom *buf)
{
	CgCopyAtom as, ad;
	const Node *ns = cg_is_tensor_val(c, s) ? partition_atom(c, s) : NULL;
	const Node *nd = cg_is_tensor_val(c, d) ? partition_atom(c, d) : NULL;
	int use_s = ns && cg_copy_atom(ns, &as) && as.load;
	int use_d = nd && cg_copy_atom(nd, &ad) && !ad.load;

	if (use_s && use_d && ns != nd) {
		diag_error(c->d, n->span, "the source was partitioned for copy atom '%s' and the destination for "
		           "'%s'; name the one this copy uses: copy(tiled_copy, src, dst)", as.name, ad.name);
		c->failed = 1;
		return NULL;
	}
	if (use_s)
		*buf = as;
	else if (use_d)
		*buf = ad;
	else
		return NULL;
	return buf;
}

/* access J (of NS elements, PER per access) of a load straight to LDS: the
 * pieces of S and D in *SJ, *DJ, D's placement checked; 0 after a located
 * error */
static int
dma_piece(Cg *c, Node *n, const CgCopyAtom *a, IrRef s, IrRef d, unsigned j, unsigned ns, unsigned per,
          int ndup, unsigned stride, IrRef *sj, IrRef *dj)
{
	unsigned block = c->f->block[0] * c->f->block[1] * c->f->block[2];
	char why[240];

	*sj = ns == per ? s : cg_view_piece(c, s, j, per, n->span);
	*dj = !*sj ? 0 : ns == per ? d : cg_view_piece(c, d, j, per, n->span);
	if (!*dj)
		return 0;
	if (cg_lds_dma_placement(c->f, *dj, block, 64, stride, why, sizeof why) == 1)
		return 1;
	if (!c->failed && ns == per && !ndup)
		diag_error(c->d, n->span, "copy atom '%s' cannot do this copy: %s", a->name, why);
	else if (!c->failed)
		diag_error(c->d, n->span, "copy atom '%s' cannot do this copy: in access %u of %u per "
		           "thread, %s%s", a->name, j / per, ns / per, why, ndup ? " (a load straight to LDS "
		           "laid out as an MMA operand needs an LDS layout that puts each access's lanes "
		           "side by side: the tile in fragment order, docs/language.md 9.4)" : "");
	c->failed = 1;
	return 0;
}

/* copy(global_load_lds_bN | buffer_load_lds_bN, global view, LDS view): one
 * load straight to LDS per `bits` of the thread's part (each piece of
 * bits / element-bits contiguous elements on both sides). The hardware puts
 * lane l's bits at M0 + l * stride (4 bytes for b32, 16 for b96/b128), so the
 * destination layout must place each thread's piece there: checked for every
 * thread of the workgroup and every piece (a located error otherwise). When
 * the destination is a partition laid out as an MMA operand whose value some
 * waves share (operand A: the WN waves of a row), the pieces are dealt out
 * among those waves (piece j by the wave whose duplicate index is j mod n), so
 * each LDS byte is written once. */
static void
copy_lds_dma(Cg *c, Node *n, const CgCopyAtom *a, IrRef s, IrRef d, unsigned ns, int64_t rs, int64_t rd)
{
	IrTensor *D = cg_tensor_of(c, ir_tensor_root(c->f, d));
	unsigned block = c->f->block[0] * c->f->block[1] * c->f->block[2];
	unsigned stride = a->bits == 32 ? 4 : 16, per;
	IrRef dup = 0;
	int ndup;

	if (!(per = atom_piece(c, n, a, s, ns, rs, 1)))
		return;
	if (D->space != IR_SPACE_LDS || rd % per) {
		if (!c->failed)
			diag_error(c->d, n->span, "copy atom '%s' cannot do this copy: its destination must be %u "
			           "contiguous elements in LDS per access", a->name, per);
		c->failed = 1;
		return;
	}
	if (c->f->block[1] > 1 || c->f->block[2] > 1) {
		cg_unsupported(c, n->span, "a load straight to LDS in a workgroup that is not one-dimensional");
		return;
	}
	ndup = cg_mma_dups(c, d, &dup);
	/* the index among the duplicate waves is a wave's (the usual thread.x
	 * slice): in an SGPR, each group of ndup accesses becomes one, its
	 * source and destination selected by the index (no branch) */
	if (ndup > 1 && ndup <= CG_MAXDUP && (ns / per) % (unsigned)ndup == 0 && wave_uniform(c->f, dup, block, 64)) {
		dup = ir_b_un(&c->b, IR_OP_UNIFORM, dup);
		for (unsigned j = 0; j < ns; j += per * (unsigned)ndup) {
			IrRef sv[CG_MAXDUP], dv[CG_MAXDUP];
			for (int r = 0; r < ndup; r++)
				if (!dma_piece(c, n, a, s, d, j + (unsigned)r * per, ns, per, ndup, stride, &sv[r], &dv[r]))
					return;
			IrRef so = c->f->inst[sv[ndup - 1]].ops[1], dof = c->f->inst[dv[ndup - 1]].ops[1];
			for (int r = ndup - 2; r >= 0; r--) {
				IrRef is = ir_b_cmp(&c->b, IR_EQ, dup, ir_b_const(&c->b, ir_ty(IR_I32), r));
				so = ir_b_select(&c->b, is, c->f->inst[sv[r]].ops[1], so);
				dof = ir_b_select(&c->b, is, c->f->inst[dv[r]].ops[1], dof);
			}
			ir_b_lds_dma(&c->b, ir_b_tensor_view(&c->b, s, so, cg_tensor_of(c, sv[0])->layout),
			             ir_b_tensor_view(&c->b, d, dof, cg_tensor_of(c, dv[0])->layout), (int)(a->bits / 8), (int)stride);
		}
		return;
	}
	for (unsigned j = 0; j < ns; j += per) {
		IrRef sj, dj;
		if (!dma_piece(c, n, a, s, d, j, ns, per, ndup, stride, &sj, &dj))
			return;
		if (ndup > 1)
			ir_b_if(&c->b, ir_b_cmp(&c->b, IR_EQ, dup, ir_b_const(&c->b, ir_ty(IR_I32), (j / per) % (unsigned)ndup)),
			        0, NULL);
		ir_b_lds_dma(&c->b, sj, dj, (int)(a->bits / 8), (int)stride);
		if (ndup > 1)
			ir_b_end(&c->b);
	}
}

/* copy between two views of equal static size, element order colexicographic */
static void
copy_views(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a)
{
	int64_t ns = cg_view_size(c, s), nd = cg_view_size(c, d);
	if (ns <= 0 || ns != nd) {
		cg_unsupported(c, n->span, "a copy between views of different or run-time sizes");
		return;
	}
	if (cg_frag_limit(c, n->span, "this copy", ns))
		return;
	if (cg_tensor_of(c, s)->elem != cg_tensor_of(c, d)->elem) {
		cg_unsupported(c, n->span, "a copy between element types");
		return;
	}
	int64_t rs = cg_contiguous(c, s), rd = cg_contiguous(c, d);
	unsigned fs = 0, fd = 0;
	if (a && a->kind == CG_COPY_LDS_DMA) {
		unsigned per = ir_scalar_bits(cg_tensor_of(c, s)->elem) ? a->bits / ir_scalar_bits(cg_tensor_of(c, s)->elem) : 0;
		if (!cg_packed_ok(c, n->span, s, (unsigned)ns, rs, per) || !cg_packed_ok(c, n->span, d, (unsigned)ns, rd, per))
			return;
		copy_lds_dma(c, n, a, s, d, (unsigned)ns, rs, rd);
		return;
	}
	if (a && !(a->load ? (fs = atom_piece(c, n, a, s, (unsigned)ns, rs, 1))
	                   : (fd = atom_piece(c, n, a, d, (unsigned)ns, rd, 0))))
		return;
	if (!cg_packed_ok(c, n->span, s, (unsigned)ns, rs, fs) || !cg_packed_ok(c, n->span, d, (unsigned)ns, rd, fd))
		return;
	IrRef v = c->pipe_split == 2 ? 0 : cg_load_view(c, s, (unsigned)ns, rs, fs);
	if (!pipe_defer(c, d, &v))
		store_view(c, d, v, (unsigned)ns, rd, fd);
}

/* The split path of a piece of packed fp4 values (2 to a byte) that is not
 * all in range: byte by byte, a byte holding an in-range value is loaded
 * whole (it lies inside the tensor) and its out-of-range value replaced by
 * zero; a byte of none is not read. Returns the piece, 0 on failure. */
static IrRef
split_bytes(Cg *c, IrRef s, Node *pn, unsigned j, unsigned piece, unsigned nn, IrRef part, IrRef zero)
{
	IrTensor *S = cg_tensor_of(c, s);
	IrType bt = ir_vec(S->elem, 2), i32 = ir_ty(IR_I32);

	for (unsigned e = 0; e < piece; e += 2) {
		IrRef p0 = pred_at(c, pn, (int)(j + e), nn), p1 = p0 ? pred_at(c, pn, (int)(j + e + 1), nn) : 0;
		if (!p1)
			return 0;
		IrRef co = ir_b_const(&c->b, i32, j + e);
		IrRef iff = ir_b_if(&c->b, ir_b_bin(&c->b, IR_OP_OR, p0, p1), 1, &bt);
		IrRef x = ir_b_tload(&c->b, s, 2, 1, &co);
		x = ir_b_insert(&c->b, x, ir_b_select(&c->b, p0, ir_b_extract(&c->b, x, 0), zero), 0);
		x = ir_b_insert(&c->b, x, ir_b_select(&c->b, p1, ir_b_extract(&c->b, x, 1), zero), 1);
		ir_b_yield(&c->b, 1, &x);
		ir_b_else(&c->b);
		IrRef z = ir_b_splat(&c->b, bt, zero);
		ir_b_yield(&c->b, 1, &z);
		ir_b_end(&c->b);
		IrRef got = ir_b_proj(&c->b, iff, 0);
		part = ir_b_insert(&c->b, part, ir_b_extract(&c->b, got, 0), e);
		part = ir_b_insert(&c->b, part, ir_b_extract(&c->b, got, 1), e + 1);
	}
	return part;
}

/* The split path of a predicated copy into LDS: per source access (the
 * atom's or the run's width, e.g. 8 bf16 for buffer_load_b128), the whole
 * access when all its values are in range, else value by value with zero
 * for the out-of-range ones; then the destination written whole (every LDS
 * element gets a value, so its vector stores stay). */
static void
split_zfill(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a, Node *pn, unsigned nn, IrRef zero)
{
	IrTensor *S = cg_tensor_of(c, s);
	IrType et = ir_ty(S->elem), i32 = ir_ty(IR_I32);
	int64_t rs = cg_contiguous(c, s), rd = cg_contiguous(c, d);
	unsigned fs = a && a->load ? atom_piece(c, n, a, s, nn, rs, 1) : 0;
	unsigned fd = a && !a->load ? atom_piece(c, n, a, d, nn, rd, 0) : 0;
	unsigned piece = fs ? fs : piece_of(S->elem, nn, rs);
	IrRef acc = nn > 1 ? ir_b_splat(&c->b, ir_vec(S->elem, nn), zero) : zero;

	if (c->failed || !piece)
		return;
	for (unsigned j = 0; j < nn; j += piece) {
		IrType pt = piece > 1 ? ir_vec(S->elem, piece) : et;
		IrRef pe[16], all = 0, co = ir_b_const(&c->b, i32, j), r;
		for (unsigned e = 0; e < piece; e++) {   /* fp4 pieces reach 32 values (128 bits) */
			IrRef p = pred_at(c, pn, (int)(j + e), nn);
			if (!p)
				return;
			if (e < 16)
				pe[e] = p;
			all = all ? ir_b_bin(&c->b, IR_OP_AND, all, p) : p;
		}
		IrRef iff = ir_b_if(&c->b, all, 1, &pt);
		r = ir_b_tload(&c->b, s, piece, 1, &co);
		ir_b_yield(&c->b, 1, &r);
		ir_b_else(&c->b);
		IrRef part = piece > 1 ? ir_b_splat(&c->b, pt, zero) : zero;
		if (ir_scalar_packed(S->elem)) {
			if (!(part = split_bytes(c, s, pn, j, piece, nn, part, zero)))
				return;
		}
		for (unsigned e = 0; e < piece && !ir_scalar_packed(S->elem); e++) {
			IrRef ce = ir_b_const(&c->b, i32, j + e);
			IrRef e1 = ir_b_if(&c->b, pe[e], 1, &et);
			IrRef x = ir_b_tload(&c->b, s, 1, 1, &ce);
			ir_b_yield(&c->b, 1, &x);
			ir_b_else(&c->b);
			ir_b_yield(&c->b, 1, &zero);
			ir_b_end(&c->b);
			IrRef got = ir_b_proj(&c->b, e1, 0);
			part = piece > 1 ? ir_b_insert(&c->b, part, got, e) : got;
		}
		ir_b_yield(&c->b, 1, &part);
		ir_b_end(&c->b);
		r = ir_b_proj(&c->b, iff, 0);
		if (nn == 1)
			acc = r;
		for (unsigned e = 0; e < piece && nn > 1; e++)
			acc = ir_b_insert(&c->b, acc, piece > 1 ? ir_b_extract(&c->b, r, e) : r, j + e);
	}
	store_view(c, d, acc, nn, rd, fd);
}

/* copy(src, dst, pred=p) between two views (a tiled copy's partitions, e.g.
 * global -> LDS or LDS -> global). When every element of this thread's copy
 * is in range, the unpredicated accesses run (the atom's vector width); else
 * the copy is split into single elements: an in-range element is copied, an
 * out-of-range one is never read, and its destination is written with zero
 * when it is in LDS (zero fill, so an MMA reading the tile adds nothing) and
 * left untouched when it is in global memory. A vector access straddling
 * the edge is so split, never refused. A load straight to LDS is the
 * in-range path (its lanes masked by EXEC: a lane not all in range writes no
 * LDS by it) and the element-wise path writes the same LDS places through
 * registers; refused when the destination is an MMA operand some waves share
 * (each would write it element-wise). Packed (sub-byte) elements are refused
 * but fp4 into LDS. */
static void
copy_views_pred(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a, Node *pn)
{
	int64_t ns = cg_view_size(c, s);
	IrRef all;
	IrTensor *S = cg_tensor_of(c, s);
	int zfill = cg_tensor_of(c, ir_tensor_root(c->f, d))->space == IR_SPACE_LDS;

	IrRef dup;
	if (a && a->kind == CG_COPY_LDS_DMA && cg_mma_dups(c, d, &dup) > 1) {
		cg_unsupported(c, n->span, "a predicated load straight to LDS laid out as an MMA operand that "
		               "several waves share (the element-wise path would write it from each)");
		return;
	}
	if (ir_scalar_packed(S->elem) && (!zfill || ir_scalar_bits(S->elem) != 4)) {
		cg_unsupported(c, n->span, zfill ? "a predicated copy of fp6/bf6 elements (packed below a byte)"
		                                 : "a predicated copy of fp4/fp6/bf6 elements (packed below a byte) "
		                                   "out of LDS");
		return;
	}
	if (ns <= 0 || ns != cg_view_size(c, d) || cg_frag_limit(c, n->span, "this copy", ns)) {
		if (!c->failed)
			cg_unsupported(c, n->span, "a copy between views of different or run-time sizes");
		return;
	}
	unsigned nn = (unsigned)ns;
	IrType et = ir_ty(S->elem);
	if (!(all = pred_at(c, pn, PRED_ALL, nn)))
		return;
	ir_b_if(&c->b, all, 0, NULL);
	copy_views(c, n, s, d, a);           /* checks the sizes, types and the atom */
	if (c->failed)
		return;
	ir_b_else(&c->b);
	IrRef zero = ir_ty_is_float(et) ? ir_b_fconst(&c->b, et, 0) : ir_b_const(&c->b, et, 0);
	if (zfill) {
		split_zfill(c, n, s, d, a, pn, nn, zero);
		ir_b_end(&c->b);
		return;
	}
	for (unsigned v = 0; v < nn; v++) {
		IrRef co = ir_b_const(&c->b, ir_ty(IR_I32), v), pe = pred_at(c, pn, (int)v, nn);
		if (!pe)
			return;
		ir_b_if(&c->b, pe, 0, NULL);
		ir_b_tstore(&c->b, d, ir_b_tload(&c->b, s, 1, 1, &co), 1, &co);
		ir_b_end(&c->b);
	}
	ir_b_end(&c->b);
}
