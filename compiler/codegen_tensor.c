/*
 * codegen_tensor.c — tensors as views (a pointer plus an IrLayout of static
 * and run-time leaves): their roots and offset types, identity tensors, sizes
 * and contiguous runs (through the layout engine), fragment_like, and a view
 * used as a value. The CuTe operations on views are the layout engine's
 * (codegen_view.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"
#include "codegen_span.h"
#include "ir_banks.h"
#include "ir.h"
#include "target/target.h"

int
cg_is_tensor_val(Cg *c, IrRef r)
{
	return r && r != (IrRef)-1 && c->f->inst[r].ty.kind == IR_TENSOR;
}

IrTensor *
cg_tensor_of(Cg *c, IrRef r)
{
	return &c->f->tensor[c->f->inst[r].aux];
}

/* the index type for offsets into tensor t: i64 for global memory, else i32 */
IrType
cg_off_type(Cg *c, IrRef t)
{
	IrTensor *R = cg_tensor_of(c, ir_tensor_root(c->f, t));
	/* rank-2 identity tensors pack their coordinates in i64 offsets */
	return ir_ty(R->space == IR_SPACE_GLOBAL || (R->space == IR_SPACE_IDENTITY && R->elem == IR_I64)
	             ? IR_I64 : IR_I32);
}

IrRef
cg_leaf_val(Cg *c, const IrTuple *x, IrType t)
{
	if (!x->dyn)
		return ir_b_const(&c->b, t, x->value);
	return cg_to_type(c, x->dyn, t);
}

/* make_identity(S): element c is its own coordinate. Rank 1: the
 * (colexicographic) index itself, an i32. Rank 2 (M, N): the coordinate (m, n)
 * packed in an i64 as m + n * 2^32, i.e. the layout (M, N):(1, 2^32) over i64
 * offsets. Every view of it (local_tile, slices, partitions) composes
 * non-negative strides linearly, so its elements stay exact packed pairs as
 * long as each coordinate stays below 2^32 (extents are i32); elem_less
 * unpacks them (pred_at). */
IrRef
cg_make_identity(Cg *c, Node *n)
{
	Node *sn = n->u.call.args.v[0];
	IrTuple *s = cg_tuple_of_node(c, sn);
	IrLayout l = { 0 };

	if (!s) {
		cg_unsupported(c, sn->span, "make_identity of this shape");
		return 0;
	}
	if (s->n == 2 && !s->kid[0]->n && !s->kid[1]->n) {
		IrTuple *d[2] = { ir_tuple_int(c->m, 1), ir_tuple_int(c->m, INT64_C(1) << 32) };
		IrRef r;
		l.shape = s;
		l.stride = ir_tuple_of(c->m, 2, d);
		r = ir_b_tensor_identity(&c->b, l);
		cg_tensor_of(c, r)->elem = IR_I64;
		return r;
	}
	if (s->n) {
		cg_unsupported(c, sn->span, "make_identity of a shape of rank > 2 or with nested modes");
		return 0;
	}
	l.shape = s;
	l.stride = ir_tuple_int(c->m, 1);
	return ir_b_tensor_identity(&c->b, l);
}

/* number of elements of a view with a static shape, or -1 */
int64_t
cg_view_size(Cg *c, IrRef t)
{
	lay_clear_error(&c->lc);
	return cg_lay_known(lay_size(&c->lc, cg_lay_of(c, t)));
}

/* how many leading elements of the view sit at offsets 0, 1, 2, ... (the
 * run a vector access may cover); 1 when none (cg_run, codegen_view.c) */
int64_t
cg_contiguous(Cg *c, IrRef t)
{
	return cg_run(c, t, cg_lay_of(c, t));
}

/* A view used as a value (convert<f32>(xr), xr * 2, ...) is loaded whole. */
IrRef
cg_value_of(Cg *c, IrRef r, Span s)
{
	int64_t n;
	if (!r || !cg_is_tensor_val(c, r))
		return r;
	if (cg_tensor_of(c, ir_tensor_root(c->f, r))->space == IR_SPACE_IDENTITY &&
	    cg_tensor_of(c, ir_tensor_root(c->f, r))->elem != IR_I64)
		return cg_coord_value(c, r, s);   /* rank-1 coordinates: their i32s */
	if (cg_tensor_of(c, ir_tensor_root(c->f, r))->space == IR_SPACE_IDENTITY ||
	    (n = cg_view_size(c, r)) <= 0) {
		cg_unsupported(c, s, "using this tensor as a value");
		return 0;
	}
	if (cg_frag_limit(c, s, "using this tensor as a value", n))
		return 0;
	if (!cg_packed_ok(c, s, r, (unsigned)n, cg_contiguous(c, r), 0))
		return 0;
	return cg_load_view(c, r, (unsigned)n, cg_contiguous(c, r), 0);
}

/* fragment_like(T [, ELEM]): a zeroed register vector of T's static size */
IrRef
cg_fragment_like(Cg *c, Node *n)
{
	IrRef t = cg_expr(c, n->u.call.args.v[0]), z;
	IrScalar el;
	int64_t sz;

	if (!t)
		return 0;
	if (!cg_is_tensor_val(c, t) || !n->type || !cg_scalar_of(n->type->scalar, &el)) {
		cg_unsupported(c, n->span, "fragment_like of this value");
		return 0;
	}
	if ((sz = cg_view_size(c, t)) <= 0) {
		/* registers are allocated at compile time */
		diag_error(c->d, n->span, "fragment_like needs a view whose size is known at compile time; this one's size "
		           "is known only when the kernel runs");
		c->failed = 1;
		return 0;
	}
	if (cg_frag_limit(c, n->span, "this fragment_like", sz))
		return 0;
	z = ir_ty_is_float(ir_ty(el)) ? ir_b_fconst(&c->b, ir_ty(el), 0) : ir_b_const(&c->b, ir_ty(el), 0);
	return sz > 1 ? ir_b_splat(&c->b, ir_vec(el, (unsigned)sz), z) : z;
}
