/*
 * codegen_reduce.c — reduce(op, v, over=thread|lanes|wave|workgroup) and
 * sum(v): a fragment folded in a thread, then across lanes by xor shuffles,
 * then across the workgroup's waves through LDS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"
#include "codegen_span.h"
#include "ir_banks.h"
#include "ir.h"
#include "target/target.h"

/* op(a, b) for reduce: add, mul, max, min on ints or floats */
static IrRef
red_op(Cg *c, int op, IrRef a, IrRef b)
{
	int fl = ir_ty_is_float(c->f->inst[a].ty);
	switch (op) {
	case B_ADD: return ir_b_bin(&c->b, fl ? IR_OP_FADD : IR_OP_ADD, a, b);
	case B_MUL: return ir_b_bin(&c->b, fl ? IR_OP_FMUL : IR_OP_MUL, a, b);
	case B_MAX: return ir_b_bin(&c->b, fl ? IR_OP_FMAX : IR_OP_MAX, a, b);
	case B_MIN: return ir_b_bin(&c->b, fl ? IR_OP_FMIN : IR_OP_MIN, a, b);
	}
	return 0;
}

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
		IrRef y = red_op(c, op, x, ir_b_shfl_xor(&c->b, x, ir_b_const(&c->b, ir_ty(IR_I32), 32)));
		IrRef is64 = ir_b_cmp(&c->b, IR_EQ, ir_b_wave_size(&c->b), ir_b_const(&c->b, ir_ty(IR_I32), 64));
		x = ir_b_select(&c->b, is64, y, x);
	}
	return x;
}

/* cg_reduce(op, v, over=thread|lanes|wave|workgroup [, width=n]) and sum(v) */
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
