/*
 * codegen_atomic.c — atomic_OP(T[c], v [, desired], scope=, order=) and
 * fence(scope=, order=): one read-modify-write of an element of a global or
 * LDS tensor (IR_OP_ATOMIC, addressed like a store by lower-layout) and a
 * memory fence (IR_OP_FENCE). lower_llvm.c makes them LLVM atomicrmw,
 * cmpxchg and fence with AMDGPU syncscopes; docs/codegen.md "Atomics" lists
 * the instructions the backend picks.
 */
#include <string.h>

#include "codegen_int.h"

/* scope= and order= of call n: the enumerators the checker resolved */
static void
scope_order(Node *n, IrScope *scope, IrOrder *order)
{
	for (int i = 0; i < n->u.call.named.n; i++) {
		Param *p = n->u.call.named.v[i];
		const Value *v = p->value ? p->value->cval : NULL;
		if (!v || v->kind != VAL_ENUM)
			continue;
		if (!strcmp(p->name, "scope") && v->i >= EN_WAVE && v->i <= EN_SYSTEM)
			*scope = (IrScope)(IR_SCOPE_WAVE + (v->i - EN_WAVE));
		else if (!strcmp(p->name, "order") && v->i >= EN_RELAXED && v->i <= EN_SEQ_CST)
			*order = (IrOrder)(IR_ORDER_RELAXED + (v->i - EN_RELAXED));
	}
}

/* fence(scope=agent, order=acq_rel) */
void
cg_fence(Cg *c, Node *n)
{
	IrScope scope = IR_SCOPE_AGENT;
	IrOrder order = IR_ORDER_ACQ_REL;

	scope_order(n, &scope, &order);
	c->b.loc = cg_loc_of(c, n->span);
	ir_b_fence(&c->b, scope, order);
}

/* atomic_add(T[c], v) on bf16/f16: v is 2 values, added to the pair of
 * elements at T[c]'s address and the next one (global/ds_pk_add_bf16/f16);
 * the old pair, as a 2-value fragment */
static IrRef
packed_add(Cg *c, Node *n, IrRef t, IrType et, IrRef *co, uint32_t nc)
{
	IrScope scope = IR_SCOPE_AGENT;
	IrOrder order = IR_ORDER_RELAXED;
	Node *vn = n->u.call.args.v[1];
	IrRef val = cg_expr(c, vn);

	if (!val)
		return 0;
	if (cg_is_tensor_val(c, val) || c->f->inst[val].ty.lanes != 2 || c->f->inst[val].ty.kind != et.kind) {
		if (!c->failed)
			diag_error(c->d, vn->span, "'atomic_add' of a %s element adds a pair: the value must be a register "
			           "fragment of exactly 2 %s values, and this one has %u", ir_scalar_name((IrScalar)et.kind),
			           ir_scalar_name((IrScalar)et.kind), cg_is_tensor_val(c, val) ? 0 : c->f->inst[val].ty.lanes);
		c->failed = 1;
		return 0;
	}
	scope_order(n, &scope, &order);
	c->b.loc = cg_loc_of(c, n->span);
	return ir_b_atomic(&c->b, IR_ATOMIC_FADD, t, val, 0, nc, co, scope, order);
}

/* atomic_OP(T[c], v [, desired]): the element's old value */
IrRef
cg_atomic(Cg *c, Node *n, int bid)
{
	Node *en = n->u.call.args.v[0];
	const Type *tt = en->kind == E_INDEX ? en->u.call.callee->type : NULL;
	IrScope scope = IR_SCOPE_AGENT;
	IrOrder order = IR_ORDER_RELAXED;
	IrRef t, co[8], val, des = 0;
	uint32_t nc;
	IrType et;
	IrAtomic op;
	int uns, fl;

	if (!tt || tt->kind != TY_TENSOR || !cg_tensor_coords(c, en, &t, co, &nc))
		return 0;
	if (c->f->tensor[c->f->inst[ir_tensor_root(c->f, t)].aux].space == IR_SPACE_IDENTITY) {
		cg_unsupported(c, en->span, "an atomic on a coordinate tensor");
		return 0;
	}
	et = ir_ty(cg_tensor_of(c, t)->elem);
	uns = cg_is_unsigned(tt->scalar);
	fl = ir_ty_is_float(et);
	switch (bid) {
	case B_ATOMIC_ADD: op = fl ? IR_ATOMIC_FADD : IR_ATOMIC_ADD; break;
	case B_ATOMIC_SUB: op = IR_ATOMIC_SUB; break;
	case B_ATOMIC_MIN: op = uns ? IR_ATOMIC_UMIN : IR_ATOMIC_SMIN; break;
	case B_ATOMIC_MAX: op = uns ? IR_ATOMIC_UMAX : IR_ATOMIC_SMAX; break;
	case B_ATOMIC_AND: op = IR_ATOMIC_AND; break;
	case B_ATOMIC_OR: op = IR_ATOMIC_OR; break;
	case B_ATOMIC_XOR: op = IR_ATOMIC_XOR; break;
	case B_ATOMIC_INC: op = IR_ATOMIC_INC; break;
	case B_ATOMIC_DEC: op = IR_ATOMIC_DEC; break;
	case B_ATOMIC_EXCHANGE: op = IR_ATOMIC_XCHG; break;
	case B_ATOMIC_CAS: op = IR_ATOMIC_CAS; break;
	default:
		cg_unsupported(c, n->span, "this atomic");
		return 0;
	}
	if (op == IR_ATOMIC_FADD && (et.kind == IR_BF16 || et.kind == IR_F16))
		return packed_add(c, n, t, et, co, nc);
	if (ir_scalar_bits((IrScalar)et.kind) != 32 || (fl && op != IR_ATOMIC_FADD && op != IR_ATOMIC_XCHG &&
	                                                 op != IR_ATOMIC_CAS)) {
		cg_unsupported(c, n->span, "this atomic on this element type");
		return 0;
	}
	if (!(val = cg_value_of(c, cg_expr(c, n->u.call.args.v[1]), n->u.call.args.v[1]->span)))
		return 0;
	if (op == IR_ATOMIC_CAS &&
	    !(des = cg_value_of(c, cg_expr(c, n->u.call.args.v[2]), n->u.call.args.v[2]->span)))
		return 0;
	if (c->f->inst[val].ty.lanes != 1 || (des && c->f->inst[des].ty.lanes != 1)) {
		cg_unsupported(c, n->span, "an atomic of a fragment (one element at a time)");
		return 0;
	}
	val = cg_to_type(c, val, et);
	if (des)
		des = cg_to_type(c, des, et);
	scope_order(n, &scope, &order);
	c->b.loc = cg_loc_of(c, n->span);
	return ir_b_atomic(&c->b, op, t, val, des, nc, co, scope, order);
}
