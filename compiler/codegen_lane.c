/*
 * codegen_lane.c — values of other lanes of the wave: shfl(x, src),
 * shfl_up(x, d), shfl_down(x, d), readlane(x, l), readfirstlane(x),
 * ballot(c) (shfl_xor is IR_OP_SHFLXOR, built in codegen.c). What each
 * lowers to, and the results for out-of-range and inactive source lanes, are
 * in docs/language.md "Cross-lane operations" and docs/codegen.md.
 */
#include "codegen_int.h"

static IrRef k32(Cg *c, int64_t v) { return ir_b_const(&c->b, ir_ty(IR_I32), v); }

/* the lane's index in its wave */
IrRef
cg_lane_id(Cg *c)
{
	IrRef t = ir_b_tid(&c->b, 0);
	if (c->f->block[1] > 1 || c->f->block[2] > 1) {
		IrRef yz = ir_b_bin(&c->b, IR_OP_ADD, ir_b_tid(&c->b, 1),
		                    ir_b_bin(&c->b, IR_OP_MUL, ir_b_tid(&c->b, 2), k32(c, c->f->block[1])));
		t = ir_b_bin(&c->b, IR_OP_ADD, t, ir_b_bin(&c->b, IR_OP_MUL, yz, k32(c, c->f->block[0])));
	}
	return ir_b_bin(&c->b, IR_OP_REM, t, ir_b_wave_size(&c->b));
}

/* x of lane src of the wave when 0 <= src < wave size (signed), else x itself */
IrRef
cg_shfl_from(Cg *c, IrRef x, IrRef src)
{
	IrRef ops[2] = { x, src };
	IrRef got = ir_b_inst(&c->b, IR_OP_SHFL, c->f->inst[x].ty, 2, ops);
	IrRef in = ir_b_cmp(&c->b, IR_ULT, src, ir_b_wave_size(&c->b));
	return ir_b_select(&c->b, in, got, x);
}

/* the cross-lane builtins of call n; 0 after a located error */
IrRef
cg_lane(Cg *c, Node *n, int bid)
{
	Node **a = n->u.call.args.v;
	IrRef x = cg_value_of(c, cg_expr(c, a[0]), a[0]->span), y = 0, ops[2];

	if (!x)
		return 0;
	if (bid == B_BALLOT)
		return ir_b_inst(&c->b, IR_OP_BALLOT, ir_ty(IR_I64), 1, &x);
	if (c->f->inst[x].ty.lanes != 1 || ir_scalar_bits((IrScalar)c->f->inst[x].ty.kind) != 32) {
		cg_unsupported(c, a[0]->span, "a cross-lane move of a value that is not a 32-bit scalar");
		return 0;
	}
	if (bid == B_READFIRSTLANE) {
		/* the first active lane's value (readlane with imm[0] 1: not a pure
		 * op, so never moved out of the branch that decides which lanes run) */
		IrRef r;
		ops[0] = x;
		ops[1] = k32(c, 0);
		r = ir_b_inst(&c->b, IR_OP_READLANE, c->f->inst[x].ty, 2, ops);
		c->f->inst[r].imm[0] = 1;
		return r;
	}
	if (!(y = cg_value_of(c, cg_expr(c, a[1]), a[1]->span)))
		return 0;
	y = cg_to_type(c, y, ir_ty(IR_I32));
	switch (bid) {
	case B_SHFL:
		/* lane src modulo the wave size */
		ops[0] = x;
		ops[1] = ir_b_bin(&c->b, IR_OP_AND, y, ir_b_bin(&c->b, IR_OP_SUB, ir_b_wave_size(&c->b), k32(c, 1)));
		return ir_b_inst(&c->b, IR_OP_SHFL, c->f->inst[x].ty, 2, ops);
	case B_SHFL_UP:
		return cg_shfl_from(c, x, ir_b_bin(&c->b, IR_OP_SUB, cg_lane_id(c), y));
	case B_SHFL_DOWN:
		return cg_shfl_from(c, x, ir_b_bin(&c->b, IR_OP_ADD, cg_lane_id(c), y));
	case B_READLANE: {
		/* the first active lane's index, modulo the wave size; an inactive lane reads as 0 */
		IrRef l = ir_b_bin(&c->b, IR_OP_AND, ir_b_un(&c->b, IR_OP_UNIFORM, y),
		                   ir_b_bin(&c->b, IR_OP_SUB, ir_b_wave_size(&c->b), k32(c, 1)));
		IrRef t = ir_b_const(&c->b, ir_ty(IR_I1), 1), live, r;
		ops[0] = x;
		ops[1] = l;
		r = ir_b_inst(&c->b, IR_OP_READLANE, c->f->inst[x].ty, 2, ops);
		live = ir_b_inst(&c->b, IR_OP_BALLOT, ir_ty(IR_I64), 1, &t);
		live = ir_b_bin(&c->b, IR_OP_AND, ir_b_bin(&c->b, IR_OP_SHR, live, ir_b_cvt(&c->b, ir_ty(IR_I64), l)),
		                ir_b_const(&c->b, ir_ty(IR_I64), 1));
		return ir_b_select(&c->b, ir_b_cmp(&c->b, IR_NE, live, ir_b_const(&c->b, ir_ty(IR_I64), 0)), r,
		                   cg_zero_of(c, c->f->inst[x].ty));
	}
	}
	cg_unsupported(c, n->span, "this cross-lane builtin");
	return 0;
}
