/*
 * codegen_view.c — tensor operations on views through the one layout engine.
 *
 * A view is a tensor handle of the IR: a root (a global argument, an LDS
 * buffer or an identity) plus an element offset and a layout whose leaves are
 * static integers or run-time IR values (ir.h, IrTuple).  The operations of
 * language.md §9.1–9.2 on tensors are the operations of compiler/layout/
 * (lay.h) on the view's layout, so a kernel gets exactly what `flyc eval`
 * prints for the same layout:
 *
 *   1. the view's layout becomes a lay_ value: a static leaf a constant, a
 *      run-time leaf a LAY_E_VAR whose id is the IR value (cg_lay_of);
 *   2. the arguments become lay_ values the same way (compile-time values
 *      through their folded form, run-time integers as VARs, `_` as `_`);
 *   3. lay_call applies the operation; the result is a layout or a VIEW
 *      (an offset and a layout);
 *   4. every leaf and the offset are emitted as IR arithmetic, one IR
 *      instruction per expression node (a node shared in the DAG is emitted
 *      once); static parts have folded in lay_ already, and the IR passes
 *      fold, hoist and simplify the rest (cg_emit_expr).
 *
 * The same way: slices T[c, _] (lay_apply), queries (size, get, shape,
 * stride, rank, depth, idx2crd: cg_view_query), the thread partitions of
 * tiled copies and tiled MMAs (cg_view_thread_part, cg_view_mma_part), and the
 * contiguous run of a view (cg_run: max_common_vector).
 *
 * A swizzled root keeps its swizzle outside: every operation here composes
 * on the right of the layout (divides, tiles, partitions, slices,
 * composition(T, B)), so op(Sw o L) = Sw o op(L) and the root's swizzle still
 * applies to the final offset (lower-layout).  Rank-1 tuples of a result fold
 * into their element when they become IR tuples, as everywhere in code
 * generation: the function is CuTe's, the printed nesting of `(x)` is not kept.
 */
#include <stdio.h>
#include <string.h>

#include "codegen_int.h"
#include "layout/lay.h"

/* ---- IR tuples <-> lay_ values ---- */

/* the lay_ expression of run-time IR value v (an i32) */
static const lay_expr *
expr_of_ir(Cg *c, IrRef v)
{
	char name[24];
	snprintf(name, sizeof name, "%%%u", (unsigned)v);
	return lay_e_var(&c->lc, lay_strdup(c->lc.arena, name), (int)v, 1);
}

/* an IR integer as a lay_ integer: static when it is a constant, so the
 * engine folds it */
static const lay_val *
lay_of_ir(Cg *c, IrRef v)
{
	int64_t k;
	if (ir_const_value(c->f, v, &k))
		return lay_int(&c->lc, k);
	return lay_int_e(&c->lc, expr_of_ir(c, v));
}

static const lay_val *
lay_of_tuple(Cg *c, const IrTuple *x)
{
	if (!x->n)
		return x->dyn ? lay_of_ir(c, x->dyn) : lay_int(&c->lc, x->value);
	const lay_val **e = lay_alloc(c->lc.arena, sizeof *e * (size_t)x->n);
	if (!e)
		return NULL;
	for (int i = 0; i < x->n; i++)
		if (!(e[i] = lay_of_tuple(c, x->kid[i])))
			return NULL;
	return lay_tuple(&c->lc, x->n, e);
}

/* the layout of view t, without the root's swizzle (see above) */
const lay_val *
cg_lay_of(Cg *c, IrRef t)
{
	IrTensor *T = cg_tensor_of(c, t);
	return lay_layout(&c->lc, lay_of_tuple(c, T->layout.shape), lay_of_tuple(c, T->layout.stride));
}

typedef struct {
	const lay_expr *e[64];
	IrType t[64];
	IrRef r[64];
	int n;
} Memo;

/* e as IR arithmetic of type t; 0 after a located error at sp */
static IrRef
emit_expr(Cg *c, Memo *mo, const lay_expr *e, IrType t, Span sp)
{
	static const IrOp op_of[LAY_E_COUNT] = {
		[LAY_E_ADD] = IR_OP_ADD, [LAY_E_SUB] = IR_OP_SUB, [LAY_E_MUL] = IR_OP_MUL,
		[LAY_E_DIV] = IR_OP_DIV, [LAY_E_MOD] = IR_OP_REM, [LAY_E_MIN] = IR_OP_MIN,
		[LAY_E_MAX] = IR_OP_MAX, [LAY_E_XOR] = IR_OP_XOR, [LAY_E_AND] = IR_OP_AND,
		[LAY_E_OR] = IR_OP_OR, [LAY_E_SHL] = IR_OP_SHL, [LAY_E_SHR] = IR_OP_SAR,
	};
	IrRef a, b, r;

	if (e->kind == LAY_E_CONST)
		return ir_b_const(&c->b, t, e->value);
	if (e->kind == LAY_E_VAR)
		return cg_to_type(c, (IrRef)e->id, t);
	for (int i = 0; i < mo->n; i++)
		if (mo->e[i] == e && mo->t[i].kind == t.kind && mo->t[i].lanes == t.lanes)
			return mo->r[i];
	if (!(a = emit_expr(c, mo, e->a, t, sp)))
		return 0;
	if (e->kind == LAY_E_NEG)
		r = ir_b_bin(&c->b, IR_OP_SUB, ir_b_const(&c->b, t, 0), a);
	else {
		if (!(b = emit_expr(c, mo, e->b, t, sp)))
			return 0;
		if (e->kind == LAY_E_CDIV) /* operands are non-negative, b > 0 */
			r = ir_b_bin(&c->b, IR_OP_DIV, ir_b_bin(&c->b, IR_OP_SUB, ir_b_bin(&c->b, IR_OP_ADD, a, b),
			                                           ir_b_const(&c->b, t, 1)), b);
		else if (op_of[e->kind])
			r = ir_b_bin(&c->b, op_of[e->kind], a, b);
		else {
			cg_unsupported(c, sp, "this layout arithmetic");
			return 0;
		}
	}
	if (mo->n < 64) {
		mo->e[mo->n] = e;
		mo->t[mo->n] = t;
		mo->r[mo->n++] = r;
	}
	return r;
}

static IrTuple *
tuple_of_lay(Cg *c, Memo *mo, const lay_val *v, Span sp)
{
	if (v->kind == LAY_INT) {
		if (lay_e_known(v->u.i))
			return ir_tuple_int(c->m, v->u.i->value);
		IrRef r = emit_expr(c, mo, v->u.i, ir_ty(IR_I32), sp);
		return r ? ir_tuple_dyn(c->m, r) : NULL;
	}
	if (v->kind != LAY_TUPLE || v->u.t.n < 1) {
		cg_unsupported(c, sp, "a layout of this form on a tensor");
		return NULL;
	}
	if (v->u.t.n == 1)
		return tuple_of_lay(c, mo, v->u.t.e[0], sp);
	IrTuple **k = ir_alloc(c->m, sizeof *k * (size_t)v->u.t.n);
	for (int i = 0; i < v->u.t.n; i++)
		if (!(k[i] = tuple_of_lay(c, mo, v->u.t.e[i], sp)))
			return NULL;
	return ir_tuple_of(c->m, v->u.t.n, k);
}

/* ---- arguments ---- */

/* a compile-time value (integer, tuple, layout, swizzle) as a lay_ value, or NULL */
const lay_val *
cg_lay_of_value(Cg *c, const Value *v)
{
	switch (v->kind) {
	case VAL_INT:
		return lay_int(&c->lc, v->i);
	case VAL_TUPLE: {
		const lay_val **e = lay_alloc(c->lc.arena, sizeof *e * (size_t)(v->nelems ? v->nelems : 1));
		for (int i = 0; i < v->nelems; i++)
			if (!(e[i] = cg_lay_of_value(c, v->elems[i])))
				return NULL;
		return lay_tuple(&c->lc, v->nelems, e);
	}
	case VAL_LAYOUT: {
		const lay_val *l = lay_layout(&c->lc, cg_lay_of_value(c, v->shape), cg_lay_of_value(c, v->stride));
		if (v->swz.on)
			l = lay_composed(&c->lc, lay_swizzle(&c->lc, v->swz.b, v->swz.m, v->swz.s), lay_e_const(&c->lc, 0), l);
		return l;
	}
	case VAL_SWIZZLE:
		return lay_swizzle(&c->lc, v->swz.b, v->swz.m, v->swz.s);
	default:
		return NULL;
	}
}

/* argument n of a tensor operation as a lay_ value; NULL after a located error */
const lay_val *
cg_lay_of_node(Cg *c, Node *n)
{
	const lay_val *r;

	if (n->kind == E_HOLE)
		return lay_underscore(&c->lc);
	if (n->cval && (r = cg_lay_of_value(c, n->cval)))
		return r;
	if (n->kind == E_TUPLE || n->kind == E_TILER) {
		int k = n->u.list.n;
		const lay_val **e = lay_alloc(c->lc.arena, sizeof *e * (size_t)(k ? k : 1));
		for (int i = 0; i < k; i++)
			if (!(e[i] = cg_lay_of_node(c, n->u.list.v[i])))
				return NULL;
		return lay_tuple(&c->lc, k, e);
	}
	if (n->kind == E_LAYOUT) {
		const lay_val *s = cg_lay_of_node(c, n->u.binary.l), *d = s ? cg_lay_of_node(c, n->u.binary.r) : NULL;
		if (!d)
			return NULL;
		if (!(r = lay_layout(&c->lc, s, d)))
			diag_error(c->d, n->span, "%s", c->lc.err);
		return r;
	}
	if (n->type && n->type->kind == TY_SCALAR) {
		IrScalar s;
		IrRef v;
		if (!cg_scalar_of(n->type->scalar, &s) || !(s == IR_I32 || s == IR_I64 || s == IR_I16 || s == IR_I8)) {
			cg_unsupported(c, n->span, "a coordinate or shape of this type");
			return NULL;
		}
		if (!(v = cg_expr(c, n)))
			return NULL;
		return lay_of_ir(c, cg_to_type(c, v, ir_ty(IR_I32)));
	}
	cg_unsupported(c, n->span, "this argument of a tensor operation");
	return NULL;
}

/* ---- the operations ---- */

/* the view of t that result r (a layout, or a VIEW: an offset and a layout)
 * of an operation on t's layout describes; 0 after a located error at sp */
static IrRef
view_of(Cg *c, IrRef t, const lay_val *r, Span sp)
{
	Memo mo = { .n = 0 };
	IrType ot = cg_off_type(c, t);
	IrRef off = ir_b_const(&c->b, ot, 0);
	IrLayout l = { 0 };

	if (r->kind == LAY_VIEW) {
		if (!(off = emit_expr(c, &mo, r->u.v.off, ot, sp)))
			return 0;
		r = r->u.v.l;
	}
	if (r->kind != LAY_LAYOUT) {
		cg_unsupported(c, sp, "a tensor operation whose result is not a layout");
		return 0;
	}
	if (!(l.shape = tuple_of_lay(c, &mo, r->u.l.shape, sp)) ||
	    !(l.stride = tuple_of_lay(c, &mo, r->u.l.stride, sp)))
		return 0;
	return ir_b_tensor_view(&c->b, t, off, l);
}

static IrRef
engine_error(Cg *c, Span sp)
{
	diag_error(c->d, sp, "%s", c->lc.failed ? c->lc.err : "this layout operation failed");
	c->failed = 1;
	return 0;
}

/* the tensor in argument node tn, or 0 after a located error */
static IrRef
tensor_arg(Cg *c, Node *tn)
{
	IrRef t = cg_expr(c, tn);
	if (t && !cg_is_tensor_val(c, t)) {
		cg_unsupported(c, tn->span, "this operation on a value that is not a tensor");
		return 0;
	}
	return t;
}

/*
 * OP(T, args...) of call n on the view in args[0]: the view at the result's
 * offset (added to T's) with the result's layout.  0 after a located error
 * (the engine's message, e.g. a divisibility condition, at the call).
 */
IrRef
cg_view_op(Cg *c, Node *n, const char *op)
{
	int na = n->u.call.args.n;
	const lay_val *a[4], *r;
	IrRef t;

	if (na < 1 || na > 4)
		return 0;
	if (!(t = tensor_arg(c, n->u.call.args.v[0])))
		return 0;
	lay_clear_error(&c->lc);
	if (!(a[0] = cg_lay_of(c, t)))
		return engine_error(c, n->span);
	for (int i = 1; i < na; i++)
		if (!(a[i] = cg_lay_of_node(c, n->u.call.args.v[i])))
			return 0;
	if (!(r = lay_call(&c->lc, op, na, a)))
		return engine_error(c, n->span);
	return view_of(c, t, r, n->span);
}

/*
 * T[c0, _, ...] (index node n) on view t: the view T(c) of CuTe, its offset the
 * fixed coordinates' and its layout the '_' modes' (lay_apply on the view).
 * A coordinate may be a tuple of a nested mode, `_` inside it included.
 */
IrRef
cg_slice(Cg *c, Node *n, IrRef t)
{
	int na = n->u.call.args.n;
	const lay_val **e, *l, *r;

	lay_clear_error(&c->lc);
	if (!(l = cg_lay_of(c, t)))
		return engine_error(c, n->span);
	if (na != lay_rank(l->u.l.shape)) {
		diag_error(c->d, n->span, "this slice has %d coordinate%s for a tensor of rank %d", na,
		           na == 1 ? "" : "s", lay_rank(l->u.l.shape));
		c->failed = 1;
		return 0;
	}
	if (!(e = lay_alloc(c->lc.arena, sizeof *e * (size_t)na)))
		return engine_error(c, n->span);
	for (int i = 0; i < na; i++)
		if (!(e[i] = cg_lay_of_node(c, n->u.call.args.v[i])))
			return 0;
	if (!(r = lay_apply(&c->lc, lay_view(&c->lc, lay_e_const(&c->lc, 0), l),
	                    na == 1 ? e[0] : lay_tuple(&c->lc, na, e))))
		return engine_error(c, n->span);
	return view_of(c, t, r, n->span);
}

/*
 * local_partition(T, L, i) of a rank-1 T by a (thread, value) layout L (CuTe
 * refuses a rank-1 tensor with a rank-2 tile; flyc reads L as a TV layout):
 * thread i's value v is T(L(i, v)), i.e. composition(T, L)(i, _).
 */
IrRef
cg_local_partition(Cg *c, Node *n)
{
	Node **a = n->u.call.args.v;
	const lay_val *l, *tv, *co, *r;
	IrRef t;

	if (!(t = tensor_arg(c, a[0])))
		return 0;
	lay_clear_error(&c->lc);
	if (!(l = cg_lay_of(c, t)))
		return engine_error(c, n->span);
	if (!(tv = cg_lay_of_node(c, a[1])) || !(co = cg_lay_of_node(c, a[2])))
		return 0;
	if (tv->kind != LAY_LAYOUT) {
		cg_unsupported(c, a[1]->span, "local_partition other than a tensor by a (thread, value) layout");
		return 0;
	}
	if (!(r = lay_composition(&c->lc, l, tv)) ||
	    !(r = lay_apply(&c->lc, lay_view(&c->lc, lay_e_const(&c->lc, 0), r),
	                    lay_tuple2(&c->lc, co, lay_underscore(&c->lc)))))
		return engine_error(c, n->span);
	return view_of(c, t, r, n->span);
}


/*
 * Thread idx's part of view t under a tiled copy with thread layout
 * thr = ts:td and value layout V of shape vs (all of rank r = t's rank), as CuTe's make_tiled_copy
 * (raked): along mode k thread coordinate t_k (idx2crd(idx, thr)) owns the
 * elements t_k * vs_k + v_k of each tile of vs_k * ts_k elements.  Each mode
 * of T is divided by the tiler (vs_k, ts_k):(1, vs_k), giving
 * ((vs_k, ts_k), R_k); the view is T((0, t_k), 0) at offset, its value mode
 * the vs parts ((_, 0), 0) of all modes, then one mode R_k ((0, 0), _) per
 * tensor mode: (V, R_0, R_1, ...).  Any nesting of T's modes divides as in
 * CuTe; the caller has checked thr and V.
 */
IrRef
cg_view_thread_part(Cg *c, IrRef t, const int64_t *ts, const int64_t *td, const int64_t *vs, int r,
                    IrRef idx, Span sp)
{
	lay_ctx *lc = &c->lc;
	const lay_val *tsh[8], *tst[8], *thr, *tl[8], *vsh[8], *vst[8], *rsh[9], *rst[9], *l, *d, *crd, *u = lay_underscore(lc), *z = lay_int(lc, 0);
	const lay_expr *off = lay_e_const(lc, 0);

	if (r < 1 || r > 8)
		return 0;
	lay_clear_error(lc);
	if (!(l = cg_lay_of(c, t)))
		return engine_error(c, sp);
	for (int k = 0; k < r; k++) {
		tsh[k] = lay_int(lc, ts[k]);
		tst[k] = lay_int(lc, td[k]);
	}
	thr = r == 1 ? lay_layout(lc, tsh[0], tst[0]) : lay_layout(lc, lay_tuple(lc, r, tsh), lay_tuple(lc, r, tst));
	for (int k = 0; k < r; k++)
		tl[k] = lay_layout(lc, lay_tuple2(lc, lay_int(lc, vs[k]), lay_int(lc, ts[k])),
		                   lay_tuple2(lc, lay_int(lc, 1), lay_int(lc, vs[k])));
	d = lay_logical_divide(lc, l, r == 1 ? tl[0] : lay_tuple(lc, r, tl));
	crd = d ? lay_idx2crd(lc, lay_of_ir(c, cg_to_type(c, idx, ir_ty(IR_I32))), thr->u.l.shape, thr->u.l.stride) : NULL;
	if (!crd)
		return engine_error(c, sp);
	for (int k = 0; k < r; k++) {
		const lay_val *m = r == 1 ? d : lay_get(lc, d, k), *tk = r == 1 ? crd : lay_get(lc, crd, k);
		const lay_val *v, *rest, *o;
		if (!m || !tk || !(v = lay_apply(lc, m, lay_tuple2(lc, lay_tuple2(lc, u, z), z))) ||
		    !(rest = lay_apply(lc, m, lay_tuple2(lc, lay_tuple2(lc, z, z), u))) ||
		    !(o = lay_apply(lc, m, lay_tuple2(lc, lay_tuple2(lc, z, tk), z))))
			return engine_error(c, sp);
		if (v->kind != LAY_LAYOUT || rest->kind != LAY_LAYOUT || o->kind != LAY_INT)
			return engine_error(c, sp);
		vsh[k] = v->u.l.shape;
		vst[k] = v->u.l.stride;
		rsh[k + 1] = rest->u.l.shape;
		rst[k + 1] = rest->u.l.stride;
		off = lay_e_bin(lc, LAY_E_ADD, off, o->u.i);
	}
	rsh[0] = r == 1 ? vsh[0] : lay_tuple(lc, r, vsh);
	rst[0] = r == 1 ? vst[0] : lay_tuple(lc, r, vst);
	if (!(l = lay_layout(lc, lay_tuple(lc, r + 1, rsh), lay_tuple(lc, r + 1, rst))))
		return engine_error(c, sp);
	return view_of(c, t, lay_view(lc, off, l), sp);
}

/* ---- queries: size, get, shape, stride, rank, depth, idx2crd ---- */

/* n as a lay_ value for a query: a tensor's layout, a query of one, a name
 * bound to a query (a tuple of run-time integers, `let s = shape(T)`), or any
 * other argument; NULL after a located error */
static const lay_val *
query_lay(Cg *c, Node *n)
{
	Node *lz = cg_lazy_of(c, n);
	int b;

	if (lz)
		n = lz;
	if (n->type && n->type->kind == TY_TENSOR) {
		IrRef t = cg_expr(c, n);
		if (t && t != (IrRef)-1 && !cg_is_tensor_val(c, t)) {
			/* a register fragment is a vector: its size is known, its shape is not kept */
			diag_error(c->d, n->span, "a register fragment keeps its %u values, not its shape: ask the view it "
			           "was made from (size(x) of a fragment is its number of values)", c->f->inst[t].ty.lanes);
			c->failed = 1;
			return NULL;
		}
		return t && t != (IrRef)-1 ? cg_lay_of(c, t) : NULL;
	}
	b = n->kind == E_CALL ? cg_builtin(n->u.call.callee) : -1;
	if (!n->cval && (b == B_SIZE || b == B_GET || b == B_SHAPE || b == B_STRIDE || b == B_RANK ||
	                 b == B_DEPTH || b == B_IDX2CRD)) {
		const lay_val *a[3], *r;
		int na = n->u.call.args.n;
		if (na < 1 || na > 3)
			return NULL;
		for (int i = 0; i < na; i++)
			if (!(a[i] = query_lay(c, n->u.call.args.v[i])))
				return NULL;
		if (!(r = lay_call(&c->lc, builtins[b].name, na, a)))
			engine_error(c, n->span);
		return r;
	}
	return cg_lay_of_node(c, n);
}

/* size(T [, i]), get(shape(T), i [, j]), shape/stride of a rank-1 view, rank(T),
 * depth(T), get(idx2crd(i, S), k), ...: the engine's answer on the view's
 * layout, folded when static, else index arithmetic (i32) */
IrRef
cg_view_query(Cg *c, Node *n)
{
	const lay_val *r;
	Memo mo = { .n = 0 };
	IrRef v;
	int ok = 1;

	lay_clear_error(&c->lc);
	if (n->type && n->type->kind == TY_TENSOR) {   /* a query answers with integers, never a tensor */
		cg_unsupported(c, n->span, "this query of a tensor");
		return 0;
	}
	if (cg_builtin(n->u.call.callee) == B_SIZE && n->u.call.args.n == 1 && n->u.call.args.v[0]->type &&
	    n->u.call.args.v[0]->type->kind == TY_TENSOR && n->u.call.args.v[0]->type->space == SPACE_REG) {
		IrRef f = cg_expr(c, n->u.call.args.v[0]);   /* size of a register fragment: its values */
		if (f && f != (IrRef)-1 && !cg_is_tensor_val(c, f))
			return ir_b_const(&c->b, ir_ty(IR_I32), c->f->inst[f].ty.lanes);
	}
	if (!(r = query_lay(c, n)))
		return c->failed ? 0 : engine_error(c, n->span);
	if (r->kind == LAY_TUPLE && r->u.t.n == 1)
		r = r->u.t.e[0];
	if (r->kind != LAY_INT) {
		diag_error(c->d, n->span, "this is the tuple %s, not an integer: take one of its integers with "
		           "get(..., i)", lay_to_string(&c->lc, r));
		c->failed = 1;
		return 0;
	}
	if (!(v = emit_expr(c, &mo, r->u.i, ir_ty(IR_I32), n->span)))
		return 0;
	IrType t = cg_type_of(c, n, &ok);
	return ok && ir_ty_is_int(t) ? cg_to_type(c, v, t) : v;
}

/* 1 and *out when v is an integer known at compile time, else 0 */
int
cg_lay_int(const lay_val *v, int64_t *out)
{
	if (!v || v->kind != LAY_INT || !lay_e_known(v->u.i))
		return 0;
	*out = v->u.i->value;
	return 1;
}

/* a size or extent known at compile time, else -1 */
int64_t
cg_lay_known(const lay_val *v)
{
	int64_t x;
	return cg_lay_int(v, &x) && x >= 0 ? x : -1;
}

/*
 * How many leading elements of layout l (a view of t's root) sit at offsets
 * 0, 1, 2, ...: the run a vector access may cover, 1 when none.  CuTe's
 * max_common_vector(l, make_layout(shape(l))), i.e. the leading stride-1 mode
 * of coalesce(l) when its extent is known (extent-1 modes drop out, whatever
 * their stride).  The root's swizzle (o ^ bits above M) keeps aligned runs of
 * up to 2^M elements whole, so the run is capped there.
 */
int64_t
cg_run(Cg *c, IrRef t, const lay_val *l)
{
	IrTensor *R = cg_tensor_of(c, ir_tensor_root(c->f, t));
	int64_t run;

	lay_clear_error(&c->lc);
	run = cg_lay_known(lay_max_common_vector(&c->lc, l, lay_make_layout(&c->lc, lay_shape(&c->lc, l))));
	lay_clear_error(&c->lc);
	if (run < 1)
		run = 1;
	if (R->layout.sw.b) {
		int64_t p = INT64_C(1) << R->layout.sw.m;
		while (p > 1 && run % p)
			p /= 2;
		if (run > p)
			run = p;
	}
	return run;
}

/*
 * Thread idx's part of view t (rank 2, P' x Q') as operand k of a tiled MMA
 * (codegen_mma.c has checked the atom and the extents): the atom's tile is
 * P x Q, its thread-value layout tv maps (lane, value) to the column-major
 * index p + P*q of the tile, and the tiles repeat over WP x WQ waves, then
 * over the rest of T.  In the engine's terms:
 *
 *   d    = zipped_divide(T, [P:1, Q:1])          ((P, Q), (P'/P, Q'/Q))
 *   atom = composition(d(_, 0), tv)               (lane, value) -> offset
 *   rest = zipped_divide(d(0, _), [WP:1, WQ:1])   ((WP, WQ), (RP, RQ))
 *
 * and the view is atom(lane, _) + rest((wp, wq), _) with layout
 * (atom(lane, _), RP, RQ): value v of repeat (rp, rq) at
 * T(p(lane, v) + (rp*WP + wp)*P, q(lane, v) + (rq*WQ + wq)*Q).  lane, wp and
 * wq are i32 IR values; the modes of T may be nested and its strides run-time.
 */
/* a sliced layout's one kept mode: CuTe's slice keeps the `_` modes as a
 * tuple, so L(0, _) of ((a, b), (c, d)) is ((c, d)) */
static const lay_val *
kept_mode(lay_ctx *lc, const lay_val *l)
{
	if (!l || l->kind != LAY_LAYOUT || lay_rank(l->u.l.shape) != 1 || l->u.l.shape->kind != LAY_TUPLE)
		return l;
	return lay_layout(lc, lay_get(lc, l->u.l.shape, 0), lay_get(lc, l->u.l.stride, 0));
}

/* atom and rest of the comment above for view t (either may be NULL when the
 * engine fails there); -1 if t has no layout or d does not split */
static int
mma_split(Cg *c, IrRef t, const lay_val *tv, const int64_t pq[2], const int64_t w[2], const lay_val **atom,
          const lay_val **rest)
{
	lay_ctx *lc = &c->lc;
	const lay_val *u = lay_underscore(lc), *z = lay_int(lc, 0), *l, *d, *tile, *r, *ti[2], *wi[2];

	if (!(l = cg_lay_of(c, t)))
		return -1;
	for (int i = 0; i < 2; i++) {
		ti[i] = lay_layout(lc, lay_int(lc, pq[i]), lay_int(lc, 1));
		wi[i] = lay_layout(lc, lay_int(lc, w[i]), lay_int(lc, 1));
	}
	d = lay_zipped_divide(lc, l, lay_tuple(lc, 2, ti));
	tile = d ? lay_apply(lc, lay_view(lc, lay_e_const(lc, 0), d), lay_tuple2(lc, u, z)) : NULL;
	r = tile ? lay_apply(lc, lay_view(lc, lay_e_const(lc, 0), d), lay_tuple2(lc, z, u)) : NULL;
	if (!r || tile->kind != LAY_VIEW || r->kind != LAY_VIEW)
		return -1;
	*atom = lay_composition(lc, kept_mode(lc, tile->u.v.l), tv);
	*rest = lay_zipped_divide(lc, kept_mode(lc, r->u.v.l), lay_tuple(lc, 2, wi));
	return 0;
}

IrRef
cg_view_mma_part(Cg *c, IrRef t, const lay_val *tv, const int64_t pq[2], const int64_t w[2], IrRef lane,
                 IrRef wp, IrRef wq, Span sp)
{
	lay_ctx *lc = &c->lc;
	const lay_val *u = lay_underscore(lc), *l, *rest, *atom, *v, *r, *m[3][2];

	lay_clear_error(lc);
	if (mma_split(c, t, tv, pq, w, &atom, &rest))
		return engine_error(c, sp);
	v = atom ? lay_apply(lc, lay_view(lc, lay_e_const(lc, 0), atom), lay_tuple2(lc, lay_of_ir(c, lane), u)) : NULL;
	r = rest ? lay_apply(lc, lay_view(lc, lay_e_const(lc, 0), rest),
	                     lay_tuple2(lc, lay_tuple2(lc, lay_of_ir(c, wp), lay_of_ir(c, wq)), u)) : NULL;
	if (!v || !r || v->kind != LAY_VIEW || r->kind != LAY_VIEW || v->u.v.l->kind != LAY_LAYOUT ||
	    !(rest = kept_mode(lc, r->u.v.l)) || lay_rank(rest->u.l.shape) != 2)
		return engine_error(c, sp);
	m[0][0] = v->u.v.l->u.l.shape;
	m[0][1] = v->u.v.l->u.l.stride;
	for (int i = 0; i < 2; i++) {
		m[i + 1][0] = lay_get(lc, rest->u.l.shape, i);
		m[i + 1][1] = lay_get(lc, rest->u.l.stride, i);
	}
	const lay_val *sh[3] = { m[0][0], m[1][0], m[2][0] }, *st[3] = { m[0][1], m[1][1], m[2][1] };
	if (!(l = lay_layout(lc, lay_tuple(lc, 3, sh), lay_tuple(lc, 3, st))))
		return engine_error(c, sp);
	return view_of(c, t, lay_view(lc, lay_e_bin(lc, LAY_E_ADD, v->u.v.off, r->u.v.off), l), sp);
}

/*
 * Where the accesses of an exchanging copy laid out as an MMA operand start,
 * for an instruction with an alignment rule (ds_read_b96_tr_b6: every lane's
 * 96-bit read 16-byte aligned, i.e. fp6 element offsets multiples of 64).
 * With the terms of cg_view_mma_part, an access starts at
 *
 *   atom(l, e) + rest((wp, wq), (rp, rq))      e a multiple of E
 *
 * and both terms are 0 at the origin, so every start is a multiple of g
 * exactly when every atom(l, e) and every rest(...) is. Both are enumerated
 * on T's static layout (at most lanes * V / E + the tiles: a few thousand).
 * 1: all aligned; 0: not, bad = {lane, value, offset} of the first atom
 * access (lane -1: a tile repeat, value its index) that is not; -1: T's
 * layout is not static, so nothing can be shown.
 */
int
cg_view_mma_aligned(Cg *c, IrRef t, const lay_val *tv, const int64_t pq[2], const int64_t w[2], int64_t E,
                    int64_t g, int64_t bad[3])
{
	lay_ctx *lc = &c->lc;
	const lay_val *rest, *atom, *o;

	lay_clear_error(lc);
	if (mma_split(c, t, tv, pq, w, &atom, &rest))
		return -1;
	int64_t L = atom ? cg_lay_known(lay_size(lc, lay_get(lc, lay_shape(lc, atom), 0))) : -1;
	int64_t V = atom ? cg_lay_known(lay_size(lc, lay_get(lc, lay_shape(lc, atom), 1))) : -1;
	int64_t R = rest ? cg_lay_known(lay_size(lc, lay_shape(lc, rest))) : -1, x;
	if (L <= 0 || V <= 0 || R <= 0)
		return -1;
	for (int64_t ln = 0; ln < L; ln++)
		for (int64_t e = 0; e < V; e += E) {
			o = lay_apply(lc, atom, lay_tuple2(lc, lay_int(lc, ln), lay_int(lc, e)));
			if (!cg_lay_int(o, &x))
				return -1;
			if (x % g) {
				bad[0] = ln, bad[1] = e, bad[2] = x;
				return 0;
			}
		}
	for (int64_t i = 0; i < R; i++) {
		o = lay_apply(lc, rest, lay_int(lc, i));
		if (!cg_lay_int(o, &x))
			return -1;
		if (x % g) {
			bad[0] = -1, bad[1] = i, bad[2] = x;
			return 0;
		}
	}
	return 1;
}

/*
 * A copy atom whose lanes exchange data (src_layout != dst_layout, e.g. the
 * transposed LDS reads) laid out as an MMA operand, as CuTe's
 * TiledCopy::tidfrg_S: the registers hold the operand's TV layout tv, (lane,
 * value) -> tile index, and lane t of an atom block reads element e at
 *
 *   blocks = zipped_divide(tv, [T:1, E:1])      ((T, E), (L/T, V/E))
 *   block  = composition(blocks(_, 0), composition(right_inverse(dst), src))
 *
 * (the atom's T threads and E values per access: its dst layout is the
 * reference, so ref2src maps the atom's source (thread, value) to the
 * (thread, value) of the registers it fills). The result is regrouped to
 * (lane, value) = ((T, L/T), (E, V/E)): lane t + T*g of block g, value e +
 * E*j of block j. The hardware groups T consecutive lanes, which is exactly
 * the lane mode's division by T.
 */
const lay_val *
cg_lay_copy_src_tv(Cg *c, const lay_val *tv, const lay_val *src, const lay_val *dst, const char *atom, Span sp)
{
	lay_ctx *lc = &c->lc;
	const lay_val *ref2src, *d, *blk, *rest, *sh[2], *st[2];
	int64_t T, E, L, V;

	lay_clear_error(lc);
	T = cg_lay_known(lay_size(lc, lay_get(lc, lay_shape(lc, dst), 0)));
	E = cg_lay_known(lay_size(lc, lay_get(lc, lay_shape(lc, dst), 1)));
	L = cg_lay_known(lay_size(lc, lay_get(lc, lay_shape(lc, tv), 0)));
	V = cg_lay_known(lay_size(lc, lay_get(lc, lay_shape(lc, tv), 1)));
	if (T <= 0 || E <= 0 || L <= 0 || V <= 0 || L % T || V % E) {
		if (!c->failed)
			diag_error(c->d, sp, "copy atom '%s' exchanges data within groups of %lld lanes, %lld values "
			           "each, and this MMA operand has %lld lanes with %lld values each (not multiples)",
			           atom, (long long)T, (long long)E, (long long)L, (long long)V);
		c->failed = 1;
		return NULL;
	}
	ref2src = lay_composition(lc, lay_right_inverse(lc, dst), src);
	d = ref2src ? lay_zipped_divide(lc, tv, lay_tuple2(lc, lay_layout(lc, lay_int(lc, T), lay_int(lc, 1)),
	                                                   lay_layout(lc, lay_int(lc, E), lay_int(lc, 1)))) : NULL;
	if (d && d->kind != LAY_LAYOUT)
		d = NULL;
	blk = d ? lay_composition(lc, lay_layout(lc, lay_get(lc, d->u.l.shape, 0), lay_get(lc, d->u.l.stride, 0)),
	                          ref2src) : NULL;
	rest = d ? lay_layout(lc, lay_get(lc, d->u.l.shape, 1), lay_get(lc, d->u.l.stride, 1)) : NULL;
	if (!blk || !rest || blk->kind != LAY_LAYOUT || lay_rank(blk->u.l.shape) != 2 ||
	    lay_rank(rest->u.l.shape) != 2) {
		diag_error(c->d, sp, "%s", lc->failed ? lc->err : "this copy atom's layouts do not compose with the "
		           "MMA operand's");
		c->failed = 1;
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		sh[i] = lay_tuple2(lc, lay_get(lc, blk->u.l.shape, i), lay_get(lc, rest->u.l.shape, i));
		st[i] = lay_tuple2(lc, lay_get(lc, blk->u.l.stride, i), lay_get(lc, rest->u.l.stride, i));
	}
	return lay_layout(lc, lay_tuple(lc, 2, sh), lay_tuple(lc, 2, st));
}

/* elements [k, k + n) of view t as a view n:1 at element k's offset (the
 * caller has checked that they are contiguous: k a multiple of n, n dividing
 * the view's run) */
IrRef
cg_view_piece(Cg *c, IrRef t, int64_t k, int64_t n, Span sp)
{
	lay_ctx *lc = &c->lc;
	const lay_val *l, *o;

	lay_clear_error(lc);
	if (!(l = cg_lay_of(c, t)) || !(o = lay_apply(lc, l, lay_int(lc, k))) || o->kind != LAY_INT)
		return engine_error(c, sp);
	return view_of(c, t, lay_view(lc, o->u.i, lay_layout(lc, lay_int(lc, n), lay_int(lc, 1))), sp);
}
