/*
 * codegen_reduce.c — reduce(op, v, over=thread|lanes|wave|workgroup) and
 * sum(v): a fragment folded in a thread, then across lanes by xor shuffles,
 * then across the workgroup's waves through LDS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "codegen_int.h"
#include "codegen_span.h"
#include "ir_banks.h"
#include "ir.h"
#include "target/target.h"

/* op(a, b) for reduce and scan: add, mul, max, min on ints (unsigned when
 * uns) or floats */
static IrRef
comb(Cg *c, int op, IrRef a, IrRef b, int uns)
{
	int fl = ir_ty_is_float(c->f->inst[a].ty);
	switch (op) {
	case B_ADD: return ir_b_bin(&c->b, fl ? IR_OP_FADD : IR_OP_ADD, a, b);
	case B_MUL: return ir_b_bin(&c->b, fl ? IR_OP_FMUL : IR_OP_MUL, a, b);
	case B_MAX:
	case B_MIN:
		if (uns && !fl)
			return ir_b_select(&c->b, ir_b_cmp(&c->b, op == B_MAX ? IR_UGT : IR_ULT, a, b), a, b);
		return ir_b_bin(&c->b, op == B_MAX ? (fl ? IR_OP_FMAX : IR_OP_MAX) : (fl ? IR_OP_FMIN : IR_OP_MIN), a, b);
	}
	return 0;
}

static int red_uns;   /* the reduction in progress is on unsigned integers */

static IrRef red_op(Cg *c, int op, IrRef a, IrRef b) { return comb(c, op, a, b, red_uns); }

/* a fragment's lanes folded with op */
static IrRef
red_thread(Cg *c, int op, IrRef x)
{
	unsigned n = c->f->inst[x].ty.lanes;
	IrRef acc;
	if (n <= 1)
		return x;
	acc = ir_b_extract(&c->b, x, 0);
	for (unsigned i = 1; i < n; i++)
		acc = red_op(c, op, acc, ir_b_extract(&c->b, x, i));
	return acc;
}

/* butterfly over lanes 0..width-1 (width a power of two <= 32), then, when
 * whole_wave, one more step across the halves of a 64-lane wave */
static IrRef
red_lanes(Cg *c, int op, IrRef x, unsigned width, int whole_wave)
{
	for (unsigned off = 1; off < width && off < 64; off *= 2)
		x = red_op(c, op, x, ir_b_shfl_xor(&c->b, x, ir_b_const(&c->b, ir_ty(IR_I32), off)));
	if (whole_wave) {
		IrRef y = red_op(c, op, x, ir_b_shfl_xor_wave(&c->b, x, ir_b_const(&c->b, ir_ty(IR_I32), 32)));
		IrRef is64 = ir_b_cmp(&c->b, IR_EQ, ir_b_wave_size(&c->b), ir_b_const(&c->b, ir_ty(IR_I32), 64));
		x = ir_b_select(&c->b, is64, y, x);
	}
	return x;
}

/* reduce(op, v, over=thread|lanes|wave|workgroup [, width=n]) and sum(v) */
IrRef
cg_reduce(Cg *c, Node *n, int is_sum)
{
	const char *scope = "thread";
	int op = B_ADD;
	Node *vn = n->u.call.args.v[is_sum ? 0 : 1];
	unsigned width = 0;
	IrRef x;

	if (!is_sum) {
		Node *on = n->u.call.args.v[0];
		if (on->kind != E_NAME) {
			cg_unsupported(c, on->span, "this reduction operator");
			return 0;
		}
		op = cg_builtin(on);
		for (int i = 0; i < n->u.call.named.n; i++) {
			Param *p = n->u.call.named.v[i];
			if (!strcmp(p->name, "over") && p->value->kind == E_NAME)
				scope = p->value->u.name.id;
			else if (!strcmp(p->name, "over") && p->value->cval && p->value->cval->kind == VAL_ENUM)
				scope = sema_enum_names[p->value->cval->i];
			else if (!strcmp(p->name, "width") && p->value->cval && p->value->cval->kind == VAL_INT)
				width = (unsigned)p->value->cval->i;
		}
	}
	if (!(x = cg_value_of(c, cg_expr(c, vn), vn->span)))
		return 0;
	red_uns = vn->type && (vn->type->kind == TY_SCALAR || vn->type->kind == TY_TENSOR) && cg_is_unsigned(vn->type->scalar);
	if (!red_op(c, op, x, x)) {
		cg_unsupported(c, n->span, "this reduction operator");
		return 0;
	}
	x = red_thread(c, op, x);
	if (!strcmp(scope, "thread"))
		return x;
	if (ir_scalar_bits((IrScalar)c->f->inst[x].ty.kind) != 32) {
		cg_unsupported(c, n->span, "a cross-lane reduction of a value that is not 32-bit");
		return 0;
	}
	if (!strcmp(scope, "lanes")) {
		if (!width || (width & (width - 1)) || width > 32) {
			cg_unsupported(c, n->span, "a lane reduction width that is not a power of two up to 32");
			return 0;
		}
		return red_lanes(c, op, x, width, 0);
	}
	x = red_lanes(c, op, x, 32, 1);
	if (!strcmp(scope, "wave"))
		return x;
	if (strcmp(scope, "workgroup")) {
		cg_unsupported(c, n->span, "this reduction scope");
		return 0;
	}
	/* workgroup: lane 0 of each wave writes its result to LDS, then every
	 * thread folds the slots (one per wave: at most block/32 of them) */
	unsigned threads = c->f->block[0] * c->f->block[1] * c->f->block[2];
	IrScalar el = (IrScalar)c->f->inst[x].ty.kind;
	char lay[32];
	IrLayout L;
	snprintf(lay, sizeof lay, "(%u):(1)", (threads + 31) / 32);
	ir_layout_parse(c->m, lay, &L);
	IrRef buf = ir_b_lds_alloc(&c->b, el, L, "reduce");
	IrRef ws = ir_b_wave_size(&c->b);
	IrRef tid = ir_b_tid(&c->b, 0);
	if (c->f->block[1] > 1 || c->f->block[2] > 1) {
		IrRef bx = ir_b_const(&c->b, ir_ty(IR_I32), c->f->block[0]);
		IrRef by = ir_b_const(&c->b, ir_ty(IR_I32), c->f->block[1]);
		IrRef yz = ir_b_bin(&c->b, IR_OP_ADD, ir_b_tid(&c->b, 1), ir_b_bin(&c->b, IR_OP_MUL, ir_b_tid(&c->b, 2), by));
		tid = ir_b_bin(&c->b, IR_OP_ADD, tid, ir_b_bin(&c->b, IR_OP_MUL, yz, bx));
	}
	IrRef wave = ir_b_bin(&c->b, IR_OP_DIV, tid, ws);
	IrRef lane = ir_b_bin(&c->b, IR_OP_REM, tid, ws);
	ir_b_if(&c->b, ir_b_cmp(&c->b, IR_EQ, lane, ir_b_const(&c->b, ir_ty(IR_I32), 0)), 0, NULL);
	ir_b_tstore(&c->b, buf, x, 1, &wave);
	ir_b_end(&c->b);
	ir_b_barrier(&c->b);
	IrRef nw = ir_b_bin(&c->b, IR_OP_DIV, ir_b_const(&c->b, ir_ty(IR_I32), threads + 0), ws);
	IrRef z = ir_b_const(&c->b, ir_ty(IR_I32), 0), one = ir_b_const(&c->b, ir_ty(IR_I32), 1), iv, acc;
	IrRef first = ir_b_tload(&c->b, buf, 1, 1, &z);
	IrRef loop = ir_b_for(&c->b, one, nw, one, 1, &first, &iv, &acc);
	IrRef nxt = red_op(c, op, acc, ir_b_tload(&c->b, buf, 1, 1, &iv));
	ir_b_yield(&c->b, 1, &nxt);
	ir_b_end(&c->b);
	IrRef res = ir_b_proj(&c->b, loop, 0);
	ir_b_barrier(&c->b);   /* the slots may be reused */
	return res;
}

/* ---- scans ---- */

static IrRef k32(Cg *c, int64_t v) { return ir_b_const(&c->b, ir_ty(IR_I32), v); }

/* op's identity for type t (unsigned when uns): 0, 1, the least or largest value */
static IrRef
identity(Cg *c, int op, IrType t, int uns)
{
	int fl = ir_ty_is_float(t);
	switch (op) {
	case B_ADD: return fl ? ir_b_fconst(&c->b, t, 0.0) : ir_b_const(&c->b, t, 0);
	case B_MUL: return fl ? ir_b_fconst(&c->b, t, 1.0) : ir_b_const(&c->b, t, 1);
	case B_MAX: return fl ? ir_b_fconst(&c->b, t, -__builtin_inf()) : ir_b_const(&c->b, t, uns ? 0 : INT32_MIN);
	default: return fl ? ir_b_fconst(&c->b, t, __builtin_inf()) : ir_b_const(&c->b, t, uns ? -1 : INT32_MAX);
	}
}

/* the flat thread index in the workgroup */
static IrRef
flat_tid(Cg *c)
{
	IrRef tid = ir_b_tid(&c->b, 0);
	if (c->f->block[1] > 1 || c->f->block[2] > 1) {
		IrRef yz = ir_b_bin(&c->b, IR_OP_ADD, ir_b_tid(&c->b, 1),
		                    ir_b_bin(&c->b, IR_OP_MUL, ir_b_tid(&c->b, 2), k32(c, c->f->block[1])));
		tid = ir_b_bin(&c->b, IR_OP_ADD, tid, ir_b_bin(&c->b, IR_OP_MUL, yz, k32(c, c->f->block[0])));
	}
	return tid;
}

/* inclusive scan over the wave (Hillis-Steele: log2(wave) steps of shfl_up);
 * the 32-lane step does nothing in a wave32 (no lane reaches 32) */
static IrRef
scan_wave(Cg *c, int op, IrRef x, IrRef lane, int uns)
{
	for (int d = 1; d < 64; d *= 2) {
		IrRef src = ir_b_bin(&c->b, IR_OP_SUB, lane, k32(c, d));
		IrRef y = cg_shfl_from(c, x, src);
		x = ir_b_select(&c->b, ir_b_cmp(&c->b, IR_UGE, lane, k32(c, d)), comb(c, op, y, x, uns), x);
	}
	return x;
}

/* scan(op, x, over=wave|workgroup, exclusive=false): lane l (thread t of the
 * workgroup) gets op over the values of lanes 0..l (0..l-1 when exclusive,
 * op's identity for the first); a workgroup scan adds the totals of the waves
 * before through LDS ("scan": one slot per wave) between two barriers */
IrRef
cg_scan(Cg *c, Node *n)
{
	Node *vn = n->u.call.args.v[1];
	int op = cg_builtin(n->u.call.args.v[0]), wg = 0, excl = 0;
	int uns = vn->type && cg_is_unsigned(vn->type->scalar);
	IrRef x, lane, incl, res;

	for (int i = 0; i < n->u.call.named.n; i++) {
		Param *p = n->u.call.named.v[i];
		const Value *v = p->value ? p->value->cval : NULL;
		if (!strcmp(p->name, "over") && v && v->kind == VAL_ENUM)
			wg = v->i == EN_WORKGROUP;
		else if (!strcmp(p->name, "exclusive") && v)
			excl = v->i != 0;
	}
	if (!(x = cg_value_of(c, cg_expr(c, vn), vn->span)))
		return 0;
	if (c->f->inst[x].ty.lanes != 1 || ir_scalar_bits((IrScalar)c->f->inst[x].ty.kind) != 32) {
		cg_unsupported(c, vn->span, "a scan of a value that is not a 32-bit scalar");
		return 0;
	}
	c->b.loc = cg_loc_of(c, n->span);
	lane = cg_lane_id(c);
	incl = scan_wave(c, op, x, lane, uns);
	res = incl;
	if (excl) {
		IrRef prev = cg_shfl_from(c, incl, ir_b_bin(&c->b, IR_OP_SUB, lane, k32(c, 1)));
		res = ir_b_select(&c->b, ir_b_cmp(&c->b, IR_EQ, lane, k32(c, 0)),
		                  identity(c, op, c->f->inst[x].ty, uns), prev);
	}
	if (!wg)
		return res;
	{
		unsigned threads = c->f->block[0] * c->f->block[1] * c->f->block[2];
		IrType t = c->f->inst[x].ty;
		char lay[32];
		IrLayout L;
		snprintf(lay, sizeof lay, "(%u):(1)", (threads + 31) / 32);
		ir_layout_parse(c->m, lay, &L);
		IrRef buf = ir_b_lds_alloc(&c->b, (IrScalar)t.kind, L, "scan");
		IrRef ws = ir_b_wave_size(&c->b), tid = flat_tid(c);
		IrRef wave = ir_b_bin(&c->b, IR_OP_DIV, tid, ws), iv, acc;
		/* the wave's last lane (or the workgroup's last thread) holds its total */
		IrRef last = ir_b_bin(&c->b, IR_OP_OR, ir_b_cmp(&c->b, IR_EQ, lane, ir_b_bin(&c->b, IR_OP_SUB, ws, k32(c, 1))),
		                      ir_b_cmp(&c->b, IR_EQ, tid, k32(c, threads - 1)));
		ir_b_if(&c->b, last, 0, NULL);
		ir_b_tstore(&c->b, buf, incl, 1, &wave);
		ir_b_end(&c->b);
		ir_b_barrier(&c->b);
		IrRef init = identity(c, op, t, uns);
		IrRef loop = ir_b_for(&c->b, k32(c, 0), wave, k32(c, 1), 1, &init, &iv, &acc);
		IrRef nxt = comb(c, op, acc, ir_b_tload(&c->b, buf, 1, 1, &iv), uns);
		ir_b_yield(&c->b, 1, &nxt);
		ir_b_end(&c->b);
		IrRef before = ir_b_proj(&c->b, loop, 0);
		ir_b_barrier(&c->b);   /* the slots may be reused */
		return comb(c, op, before, res, uns);
	}
}

/* ---- key-value reductions ---- */

/* argmax/argmin(x, pos, over=...): the winner's value and position through a
 * butterfly of (key, position, value): key is x's order as a u32 (order_key of
 * an f32: every NaN above +inf; i32 with its sign bit flipped), complemented
 * for argmin; the larger key wins, equal keys the lower position */
static void
kv_step(Cg *c, IrRef *k, IrRef *p, IrRef *v, IrRef mask, int whole)
{
	IrRef k2 = whole ? ir_b_shfl_xor_wave(&c->b, *k, mask) : ir_b_shfl_xor(&c->b, *k, mask);
	IrRef p2 = whole ? ir_b_shfl_xor_wave(&c->b, *p, mask) : ir_b_shfl_xor(&c->b, *p, mask);
	IrRef v2 = whole ? ir_b_shfl_xor_wave(&c->b, *v, mask) : ir_b_shfl_xor(&c->b, *v, mask);
	IrRef take = ir_b_bin(&c->b, IR_OP_OR, ir_b_cmp(&c->b, IR_UGT, k2, *k),
	                      ir_b_bin(&c->b, IR_OP_AND, ir_b_cmp(&c->b, IR_EQ, k2, *k), ir_b_cmp(&c->b, IR_LT, p2, *p)));
	*k = ir_b_select(&c->b, take, k2, *k);
	*p = ir_b_select(&c->b, take, p2, *p);
	*v = ir_b_select(&c->b, take, v2, *v);
}

static void
kv_merge(Cg *c, IrRef *k, IrRef *p, IrRef *v, IrRef k2, IrRef p2, IrRef v2)
{
	IrRef take = ir_b_bin(&c->b, IR_OP_OR, ir_b_cmp(&c->b, IR_UGT, k2, *k),
	                      ir_b_bin(&c->b, IR_OP_AND, ir_b_cmp(&c->b, IR_EQ, k2, *k), ir_b_cmp(&c->b, IR_LT, p2, *p)));
	*k = ir_b_select(&c->b, take, k2, *k);
	*p = ir_b_select(&c->b, take, p2, *p);
	*v = ir_b_select(&c->b, take, v2, *v);
}

int
cg_argmax(Cg *c, Node *n, IrRef *val, IrRef *pos)
{
	Node **a = n->u.call.args.v;
	int is_min = cg_builtin(n->u.call.callee) == B_ARGMIN, scope = EN_WAVE;
	unsigned width = 0;
	IrRef x, p, k;
	IrType t;

	for (int i = 0; i < n->u.call.named.n; i++) {
		Param *pr = n->u.call.named.v[i];
		const Value *v = pr->value ? pr->value->cval : NULL;
		if (!strcmp(pr->name, "over") && v && v->kind == VAL_ENUM)
			scope = (int)v->i;
		else if (!strcmp(pr->name, "width") && v && v->kind == VAL_INT)
			width = (unsigned)v->i;
	}
	if (!(x = cg_value_of(c, cg_expr(c, a[0]), a[0]->span)) || !(p = cg_value_of(c, cg_expr(c, a[1]), a[1]->span)))
		return 0;
	t = c->f->inst[x].ty;
	if (t.lanes != 1 || ir_scalar_bits((IrScalar)t.kind) != 32) {
		cg_unsupported(c, a[0]->span, "a key-value reduction of a value that is not a 32-bit scalar");
		return 0;
	}
	p = cg_to_type(c, p, ir_ty(IR_I32));
	c->b.loc = cg_loc_of(c, n->span);
	k = ir_b_inst(&c->b, IR_OP_BITCAST, ir_ty(IR_I32), 1, &x);
	if (ir_ty_is_float(t)) {
		/* order_key: negative values flipped whole, others the sign bit set; NaN all ones */
		IrRef neg = ir_b_cmp(&c->b, IR_LT, k, k32(c, 0));
		IrRef key = ir_b_select(&c->b, neg, ir_b_bin(&c->b, IR_OP_XOR, k, k32(c, -1)),
		                        ir_b_bin(&c->b, IR_OP_OR, k, k32(c, INT32_MIN)));
		IrRef nan = ir_b_cmp(&c->b, IR_FNE, x, x);
		k = ir_b_select(&c->b, nan, k32(c, -1), key);
	} else if (!cg_is_unsigned(a[0]->type->scalar)) {
		k = ir_b_bin(&c->b, IR_OP_XOR, k, k32(c, INT32_MIN));
	}
	if (is_min)
		k = ir_b_bin(&c->b, IR_OP_XOR, k, k32(c, -1));
	{
		unsigned w = scope == EN_LANES ? width : 32;
		for (unsigned m = 1; m < w; m *= 2)
			kv_step(c, &k, &p, &x, k32(c, m), 0);
		if (scope != EN_LANES) {
			/* the halves of a 64-lane wave (a wave32 keeps its own) */
			IrRef k2 = k, p2 = p, x2 = x;
			IrRef is64 = ir_b_cmp(&c->b, IR_EQ, ir_b_wave_size(&c->b), k32(c, 64));
			kv_step(c, &k2, &p2, &x2, k32(c, 32), 1);
			k = ir_b_select(&c->b, is64, k2, k);
			p = ir_b_select(&c->b, is64, p2, p);
			x = ir_b_select(&c->b, is64, x2, x);
		}
	}
	if (scope == EN_WORKGROUP) {
		unsigned threads = c->f->block[0] * c->f->block[1] * c->f->block[2];
		char lay[32];
		IrLayout L;
		IrRef bufs[3], vals[3] = { k, p, x }, inits[3], iter[3], iv;
		snprintf(lay, sizeof lay, "(%u):(1)", (threads + 31) / 32);
		ir_layout_parse(c->m, lay, &L);
		for (int i = 0; i < 3; i++)
			bufs[i] = ir_b_lds_alloc(&c->b, (IrScalar)c->f->inst[vals[i]].ty.kind, L, "argmax");
		IrRef ws = ir_b_wave_size(&c->b), tid = flat_tid(c);
		IrRef wave = ir_b_bin(&c->b, IR_OP_DIV, tid, ws), z = k32(c, 0);
		ir_b_if(&c->b, ir_b_cmp(&c->b, IR_EQ, ir_b_bin(&c->b, IR_OP_REM, tid, ws), z), 0, NULL);
		for (int i = 0; i < 3; i++)
			ir_b_tstore(&c->b, bufs[i], vals[i], 1, &wave);
		ir_b_end(&c->b);
		ir_b_barrier(&c->b);
		for (int i = 0; i < 3; i++)
			inits[i] = ir_b_tload(&c->b, bufs[i], 1, 1, &z);
		IrRef nw = ir_b_bin(&c->b, IR_OP_DIV, k32(c, threads + 0), ws);
		IrRef nwr = ir_b_bin(&c->b, IR_OP_ADD, nw, ir_b_select(&c->b, ir_b_cmp(&c->b, IR_NE,
		                     ir_b_bin(&c->b, IR_OP_REM, k32(c, threads + 0), ws), z), k32(c, 1), z));
		IrRef loop = ir_b_for(&c->b, k32(c, 1), nwr, k32(c, 1), 3, inits, &iv, iter);
		{
			IrRef kk = iter[0], pp = iter[1], xx = iter[2];
			kv_merge(c, &kk, &pp, &xx, ir_b_tload(&c->b, bufs[0], 1, 1, &iv), ir_b_tload(&c->b, bufs[1], 1, 1, &iv),
			         ir_b_tload(&c->b, bufs[2], 1, 1, &iv));
			IrRef ys[3] = { kk, pp, xx };
			ir_b_yield(&c->b, 3, ys);
		}
		ir_b_end(&c->b);
		p = ir_b_proj(&c->b, loop, 1);
		x = ir_b_proj(&c->b, loop, 2);
		ir_b_barrier(&c->b);
	}
	*val = x;
	*pos = p;
	return 1;
}
