/*
 * codegen.c — code generation's core: checked kernel instances (sema.h) to
 * flyc IR (ir.h). cg_module lowers each SemaKernel: its signature and launch
 * metadata (IR parameters, block, grid, requires: codegen_meta.c), then its
 * body (statements: codegen_stmt.c). This file holds what every part uses —
 * locations and errors, the environment of bindings, types, constants — and
 * expressions: arithmetic, comparisons, conversions, element reads, and the
 * builtin calls, dispatched on the enumerator the checker resolved
 * (builtins.h) to the file of each concern:
 *
 *   codegen_view.c       CuTe operations on run-time tensors, via the layout engine
 *   codegen_tensor.c     views: sizes, slices, identity tensors, fragments
 *   codegen_partition.c  tiled copies, their slices and partitions
 *   codegen_copy.c       copy atoms and copy(src, dst [, pred])
 *   codegen_mma.c        tiled MMAs, their partitions and fragments, gemm, fill
 *   codegen_reduce.c     reduce and sum over threads, lanes, waves, workgroups
 *   codegen_math.c       math builtins (exp, log, sin, tanh, ...)
 *   codegen_stmt.c       statements; codegen_pipe.c software pipelines
 *   codegen_fn.c         device function calls (inlined) and tuples of run-time values
 *   codegen_frag.c       register fragments (reg, fragment(T, L), lanes) and coordinates as values
 *   codegen_span.c       byte-span bounds of global tensors (buffer addressing)
 *   codegen_target.c     the target check that runs before all of this
 *
 * What cannot be lowered is a located "not supported by code generation yet"
 * error, never a wrong program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "codegen_copy.h"
#include "codegen_int.h"
#include "codegen_span.h"
#include "ir.h"
#include "ir_banks.h"
#include "target/target.h"

/* ---- locations, errors ---- */

IrLoc
cg_loc_of(Cg *c, Span s)
{
	IrLoc l = { 0 };
	int line = 0, col = 0;

	if (s.file >= 0) {
		diag_line_col(c->d, s.file, s.lo, &line, &col);
		l.file = diag_file_name(c->d, s.file);
		l.line = line;
		l.col = col;
		l.span_file = s.file + 1;
		l.span_lo = s.lo;
		l.span_hi = s.hi;
	}
	return l;
}

void
cg_unsupported(Cg *c, Span s, const char *what)
{
	if (!c->failed)
		diag_error(c->d, s, "%s is not supported by code generation yet", what);
	c->failed = 1;
}

/* n values per thread over CG_MAXFRAG: a located error, 1 */
int
cg_frag_limit(Cg *c, Span s, const char *what, int64_t n)
{
	if (n <= CG_MAXFRAG)
		return 0;
	if (!c->failed)
		diag_error(c->d, s, "%s needs %lld values per thread in registers; register fragments hold at most %d",
		           what, (long long)n, CG_MAXFRAG);
	c->failed = 1;
	return 1;
}

/* ---- environment ---- */

void
cg_bind(Cg *c, Symbol *s, IrRef v)
{
	Binding *b = ir_alloc(c->m, sizeof *b);
	b->sym = s;
	b->val = v;
	b->next = c->env;
	c->env = b;
}

void
cg_bind_lazy(Cg *c, Symbol *s, Node *n)
{
	Binding *b = ir_alloc(c->m, sizeof *b);
	b->sym = s;
	b->lazy = n;
	b->next = c->env;
	c->env = b;
}

Node *
cg_lookup_lazy(Cg *c, Symbol *s)
{
	for (Binding *b = c->env; b; b = b->next)
		if (b->sym == s)
			return b->lazy;
	return NULL;
}

IrRef
cg_lookup(Cg *c, Symbol *s)
{
	for (Binding *b = c->env; b; b = b->next)
		if (b->sym == s)
			return b->val;
	return 0;
}

/* ---- types ---- */

int
cg_scalar_of(ScalarKind k, IrScalar *out)
{
	switch (k) {
	case SC_BOOL: *out = IR_I1; return 1;
	case SC_I8: case SC_U8: *out = IR_I8; return 1;
	case SC_I16: case SC_U16: *out = IR_I16; return 1;
	case SC_INT: case SC_I32: case SC_U32: *out = IR_I32; return 1;
	case SC_I64: case SC_U64: *out = IR_I64; return 1;
	case SC_F16: *out = IR_F16; return 1;
	case SC_BF16: *out = IR_BF16; return 1;
	case SC_F32: case SC_FLOAT: *out = IR_F32; return 1;
	/* 8-bit floats and E8M0 scales: bytes that only MMA atoms interpret
	 * (storage_only: no arithmetic or conversion on them yet) */
	case SC_FP8: case SC_BF8: case SC_E8M0: *out = IR_I8; return 1;
	/* fp4, fp6, bf6: packed below a byte (ir.h i4/i6), storage only as well */
	case SC_FP4: *out = IR_I4; return 1;
	case SC_FP6: case SC_BF6: *out = IR_I6; return 1;
	default: return 0;
	}
}

int
cg_storage_only(const Node *n)
{
	return n && n->type && (n->type->kind == TY_SCALAR || n->type->kind == TY_TENSOR) &&
	       (n->type->scalar == SC_FP8 || n->type->scalar == SC_BF8 || n->type->scalar == SC_E8M0 ||
	        n->type->scalar == SC_FP4 || n->type->scalar == SC_FP6 || n->type->scalar == SC_BF6);
}

int
cg_is_unsigned(ScalarKind k)
{
	return k == SC_U8 || k == SC_U16 || k == SC_U32 || k == SC_U64;
}

/* ---- layouts ---- */

static IrTuple *
tuple_of_value(Cg *c, const Value *v)
{
	if (v->kind == VAL_INT)
		return ir_tuple_int(c->m, v->i);
	if (v->kind == VAL_TUPLE) {
		IrTuple **k = ir_alloc(c->m, sizeof *k * (size_t)(v->nelems ? v->nelems : 1));
		for (int i = 0; i < v->nelems; i++)
			if (!(k[i] = tuple_of_value(c, v->elems[i])))
				return NULL;
		return v->nelems == 1 ? k[0] : ir_tuple_of(c->m, v->nelems, k);
	}
	return NULL;
}

IrTuple *
cg_tuple_of_node(Cg *c, Node *n)
{
	if (n->cval)
		return tuple_of_value(c, n->cval);
	if (n->kind == E_TUPLE) {
		IrTuple **k = ir_alloc(c->m, sizeof *k * (size_t)(n->u.list.n ? n->u.list.n : 1));
		for (int i = 0; i < n->u.list.n; i++)
			if (!(k[i] = cg_tuple_of_node(c, n->u.list.v[i])))
				return NULL;
		return n->u.list.n == 1 ? k[0] : ir_tuple_of(c->m, n->u.list.n, k);
	}
	if (n->type && n->type->kind == TY_TUPLE && (n->kind == E_NAME || n->kind == E_CALL || n->kind == E_INDEX))
		return cg_tuple_val(c, n);   /* a tuple of run-time values */
	/* a run-time integer leaf */
	if (n->type && n->type->kind == TY_SCALAR) {
		IrScalar s;
		if (!cg_scalar_of(n->type->scalar, &s) || !(s == IR_I32 || s == IR_I64))
			return NULL;
		IrRef v = cg_expr(c, n);
		return v ? ir_tuple_dyn(c->m, v) : NULL;
	}
	return NULL;
}

int
cg_layout_of(Cg *c, Node *n, IrLayout *out)
{
	memset(out, 0, sizeof *out);
	if (n->cval && n->cval->kind == VAL_LAYOUT) {
		const Value *v = n->cval;
		out->shape = tuple_of_value(c, v->shape);
		out->stride = tuple_of_value(c, v->stride);
		if (v->swz.on) {
			out->sw.b = v->swz.b;
			out->sw.m = v->swz.m;
			out->sw.s = v->swz.s;
		}
		return out->shape && out->stride ? 0 : -1;
	}
	if (n->kind == E_LAYOUT) {
		out->shape = cg_tuple_of_node(c, n->u.binary.l);
		out->stride = cg_tuple_of_node(c, n->u.binary.r);
		return out->shape && out->stride ? 0 : -1;
	}
	return -1;
}

/* ---- expressions ---- */

IrType
cg_type_of(Cg *c, Node *n, int *ok)
{
	IrScalar s;
	/* scalars, and register fragments (their element type; lanes come from values) */
	if (n->type && (n->type->kind == TY_SCALAR || (n->type->kind == TY_TENSOR && n->type->space == SPACE_REG)) &&
	    !cg_storage_only(n) && cg_scalar_of(n->type->scalar, &s))
		return ir_ty(s);
	*ok = 0;
	return ir_ty(IR_VOID);
}

static IrRef
konst(Cg *c, IrType t, const Value *v)
{
	if (ir_ty_is_float(t))
		return ir_b_fconst(&c->b, t, v->kind == VAL_FLOAT ? v->f : (double)v->i);
	return ir_b_const(&c->b, t, v->kind == VAL_FLOAT ? (int64_t)v->f : v->i);
}

/* value v converted to type t (ints/floats/bools), no-op when equal; a
 * scalar meets a vector type by conversion then splat, a vector keeps its
 * lanes when t is a scalar type */
IrRef
cg_to_type(Cg *c, IrRef v, IrType t)
{
	IrType vt = c->f->inst[v].ty;
	if (vt.lanes > 1 && t.lanes == 1)
		t = ir_vec((IrScalar)t.kind, vt.lanes);
	if (ir_ty_eq(vt, t))
		return v;
	if (vt.lanes == 1 && t.lanes > 1) {
		v = cg_to_type(c, v, ir_ty((IrScalar)t.kind));
		return ir_b_splat(&c->b, t, v);
	}
	return ir_b_cvt(&c->b, t, v);
}

/* the wider lane count of two values (for elementwise math on fragments) */
static IrType
lanes_of(Cg *c, IrType t, IrRef a, IrRef b)
{
	unsigned la = c->f->inst[a].ty.lanes, lb = b ? c->f->inst[b].ty.lanes : 1;
	unsigned l = la > lb ? la : lb;
	return l > 1 ? ir_vec((IrScalar)t.kind, l) : t;
}

/* Elementwise operands: *t widened to the length of the fragments among v[0..n), to which
 * scalars are broadcast; two fragments of different lengths are a located error (0). */
static int
elementwise(Cg *c, Span sp, IrType *t, const IrRef *v, int n)
{
	unsigned l = 1;

	for (int i = 0; i < n; i++) {
		unsigned li = c->f->inst[v[i]].ty.lanes;
		if (li > 1 && l > 1 && li != l) {
			if (!c->failed)
				diag_error(c->d, sp, "elementwise operation on fragments of %u and %u values per thread; "
				           "the operands must have the same length (or be scalars)", l, li);
			c->failed = 1;
			return 0;
		}
		if (li > 1)
			l = li;
	}
	*t = l > 1 ? ir_vec((IrScalar)t->kind, l) : ir_ty((IrScalar)t->kind);
	return 1;
}

/* the constant v of type t, broadcast when t is a vector */
static IrRef
const_of(Cg *c, IrType t, int64_t iv, double fv)
{
	IrType s = ir_ty((IrScalar)t.kind);
	IrRef k = ir_ty_is_float(s) ? ir_b_fconst(&c->b, s, fv) : ir_b_const(&c->b, s, iv);
	return t.lanes > 1 ? ir_b_splat(&c->b, t, k) : k;
}

/* an integer IR value known at compile time (a constant, or integer arithmetic of constants) */
static int
known_int_d(Cg *c, IrRef r, int64_t *v, int depth)
{
	const IrInst *I = &c->f->inst[r];
	int64_t a, b;

	if (ir_const_value(c->f, r, v))
		return 1;
	if (depth > 32 || I->ty.lanes != 1 || !ir_ty_is_int(I->ty) || I->nops != 2)
		return 0;
	switch (I->op) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
	case IR_OP_SDIV: case IR_OP_SREM: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR:
	case IR_OP_SHL: case IR_OP_SHR: case IR_OP_SAR: case IR_OP_MIN: case IR_OP_MAX:
		return known_int_d(c, I->ops[0], &a, depth + 1) && known_int_d(c, I->ops[1], &b, depth + 1) &&
		       ir_fold_binary(I->op, I->ty, a, b, v);
	default:
		return 0;
	}
}

int
cg_known_int(Cg *c, IrRef r, int64_t *v)
{
	return known_int_d(c, r, v, 0);
}

IrRef
cg_tensor_coords(Cg *c, Node *n, IrRef *t, IrRef *coords, uint32_t *nc)
{
	Node *base = n->u.call.callee;
	*t = cg_expr(c, base);
	if (!*t)
		return 0;
	if (c->f->inst[*t].ty.kind != IR_TENSOR) {
		cg_unsupported(c, n->span, "indexing a value that is not a tensor");
		return 0;
	}
	if (n->u.call.args.n > 8) {
		cg_unsupported(c, n->span, "more than 8 coordinates");
		return 0;
	}
	*nc = (uint32_t)n->u.call.args.n;
	for (int i = 0; i < n->u.call.args.n; i++) {
		Node *a = n->u.call.args.v[i];
		if (a->kind == E_HOLE) {
			cg_unsupported(c, a->span, "slicing with '_'");
			return 0;
		}
		IrRef v = cg_expr(c, a);
		if (!v)
			return 0;
		if (!ir_ty_is_int(c->f->inst[v].ty) || c->f->inst[v].ty.kind == IR_I1) {
			diag_error(c->d, a->span, "a tensor coordinate must be an integer");
			c->failed = 1;
			return 0;
		}
		coords[i] = v;
	}
	/* a compile-time coordinate outside a static mode (or a static size, for
	 * one linear index) would address memory outside the tensor */
	const lay_val *L = cg_lay_of(c, *t);
	int rank = lay_rank(L);
	for (uint32_t i = 0; i < *nc && (*nc == 1 || (int)*nc == rank); i++) {
		int64_t ext = cg_lay_known(lay_size(&c->lc, *nc == 1 ? L : lay_get(&c->lc, L, (int)i))), v;
		if (ext >= 0 && ir_const_value(c->f, coords[i], &v) && (v < 0 || v >= ext)) {
			diag_error(c->d, n->u.call.args.v[i]->span, "coordinate %lld is outside %s (extent %lld)",
			           (long long)v, *nc == 1 ? "the tensor" : "its mode", (long long)ext);
			c->failed = 1;
			return 0;
		}
	}
	return *t;
}

/* a shape, stride or idx2crd call: get() of it is a query of the engine (cg_view_query) */
static int
cg_is_query(Node *n)
{
	int b = n->kind == E_CALL ? cg_builtin(n->u.call.callee) : -1;
	return b == B_SHAPE || b == B_STRIDE || b == B_IDX2CRD;
}

IrRef
cg_call(Cg *c, Node *n)
{
	Node *cal = n->u.call.callee;
	int bid = cg_builtin(cal);
	int na = n->u.call.args.n, ok = 1;
	IrRef a[3] = { 0 };

	if (n->u.call.fn) {          /* a device function, inlined (codegen_fn.c) */
		IrTuple *t = NULL;
		return cg_fn_call(c, n, &t);
	}
	if (bid == B_GET && na == 2 && n->u.call.args.v[0]->type && n->u.call.args.v[0]->type->kind == TY_TUPLE &&
	    !cg_is_query(n->u.call.args.v[0])) {
		IrTuple *t = cg_tuple_val(c, n);   /* an element of a run-time tuple */
		return t ? cg_tuple_leaf(c, t, n->type) : 0;
	}
	{
		int handled = 0;
		IrRef r = cg_mma_call(c, n, &handled);
		if (handled)
			return r;
	}
	if (bid < 0 && cal->kind == E_MEMBER &&
	    (cal->u.member.method == M_PARTITION_S || cal->u.member.method == M_PARTITION_D) && na == 1) {
		Node *sl, *tc = cg_tiled_copy_of(c, cal->u.member.base, &sl), *of = tc ? cg_named_arg(tc, "of") : NULL;
		CgCopyAtom ca;
		if (!tc) {
			cg_unsupported(c, n->span, "partitions of this kind of slice");
			return 0;
		}
		if (!of)
			return cg_partition(c, n, sl, tc, n->u.call.args.v[0]);
		/* tiled_copy(atom, of=mma.X): the MMA operand's partition */
		IrRef t = cg_expr(c, n->u.call.args.v[0]), idx = t ? cg_expr(c, sl->u.call.args.v[0]) : 0;
		if (!idx)
			return 0;
		if (!tc->type || !cg_copy_atom(tc->type->atom, &ca)) {
			cg_unsupported(c, tc->span, "this copy atom");
			return 0;
		}
		return cg_mma_copy_partition(c, n, of, &ca, t, idx, cal->u.member.method == M_PARTITION_S);
	}
	if (bid < 0 && cal->kind == E_MEMBER &&
	    (cal->u.member.method == M_RETILE_S || cal->u.member.method == M_RETILE_D) && na == 1) {
		Node *sl, *tc = cg_tiled_copy_of(c, cal->u.member.base, &sl), *of = tc ? cg_named_arg(tc, "of") : NULL;
		IrRef v;
		if (!of) {
			cg_unsupported(c, n->span, "retile_S/retile_D of a tiled copy without of=mma.A|B|C");
			return 0;
		}
		if (!(v = cg_expr(c, n->u.call.args.v[0])))
			return 0;
		return cg_mma_retile(c, n, of, cg_frag_origin(c, n->u.call.args.v[0]), v);
	}
	if (bid < 0) {
		cg_unsupported(c, n->span, "this call");
		return 0;
	}
	if (bid == B_LOCAL_TILE && na == 3)
		return cg_view_op(c, n, builtins[bid].name);
	if (bid == B_LOCAL_PARTITION && na == 3) {
		/* flyc's thread-value partition of a rank-1 tensor, where CuTe refuses */
		Type *tt = n->u.call.args.v[0]->type;
		const Value *lv = n->u.call.args.v[1]->cval;
		if (tt && tt->kind == TY_TENSOR && tt->rank == 1 && lv && lv->kind == VAL_LAYOUT &&
		    lv->shape->kind == VAL_TUPLE && lv->shape->nelems == 2)
			return cg_local_partition(c, n);
		return cg_view_op(c, n, builtins[bid].name);
	}
	if ((bid == B_LOGICAL_DIVIDE || bid == B_ZIPPED_DIVIDE || bid == B_TILED_DIVIDE ||
	     bid == B_FLAT_DIVIDE || bid == B_COMPOSITION || bid == B_COALESCE) && na >= 1 && na <= 2 &&
	    n->u.call.args.v[0]->type && n->u.call.args.v[0]->type->kind == TY_TENSOR)
		return cg_view_op(c, n, builtins[bid].name);
	if (bid == B_GET && na == 2 && n->u.call.args.v[0]->type && n->u.call.args.v[0]->type->kind == TY_TENSOR &&
	    n->u.call.args.v[0]->type->space == SPACE_COORD)
		return cg_coord_get(c, n);
	if (bid == B_SIZE || bid == B_GET || bid == B_SHAPE || bid == B_STRIDE || bid == B_RANK || bid == B_DEPTH ||
	    bid == B_IDX2CRD)
		return cg_view_query(c, n);
	if (bid == B_IDENTITY && na == 1)
		return cg_make_identity(c, n);
	if (bid == B_FRAGMENT && na == 2)
		return cg_fragment(c, n);
	if (bid == B_ELEM_LESS && na == 2)
		return cg_elem_less_value(c, n);
	if (bid == B_FRAGMENT_LIKE && (na == 1 || na == 2))
		return cg_fragment_like(c, n);
	if (bid == B_COPY) {
		cg_copy(c, n);
		return (IrRef)-1;
	}
	if ((bid == B_SHFL || bid == B_SHFL_UP || bid == B_SHFL_DOWN || bid == B_READLANE || bid == B_READFIRSTLANE ||
	     bid == B_BALLOT) && na == builtins[bid].min)
		return cg_lane(c, n, bid);
	if (builtins[bid].lower == LOWER_ATOMIC)
		return cg_atomic(c, n, bid);
	if (bid == B_FENCE) {
		cg_fence(c, n);
		return (IrRef)-1;
	}
	if (bid == B_REDUCE && na == 2)
		return cg_reduce(c, n, 0);
	if (bid == B_SUM && na == 1)
		return cg_reduce(c, n, 1);
	if (bid == B_SCAN && na == 2)
		return cg_scan(c, n);
	if (bid == B_ARGMAX || bid == B_ARGMIN) {
		diag_error(c->d, n->span, "'%s' gives a (value, position) tuple: bind it with let (v, i) = %s(...) or take get(%s(...), k)",
		           builtins[bid].name, builtins[bid].name, builtins[bid].name);
		c->failed = 1;
		return 0;
	}
	if (bid == B_BARRIER && na == 0) {
		ir_b_barrier(&c->b);
		return (IrRef)-1;
	}
	if (bid == B_WAIT) {
		int vm = -1, lds = -1;
		for (int i = 0; i < n->u.call.named.n; i++) {
			Param *p = n->u.call.named.v[i];
			if (!p->value || !p->value->cval || p->value->cval->kind != VAL_INT) {
				diag_error(c->d, p->span, "wait counts must be compile-time integers");
				c->failed = 1;
				return 0;
			}
			if (!strcmp(p->name, "vmem")) vm = (int)p->value->cval->i;
			else if (!strcmp(p->name, "lgkm") || !strcmp(p->name, "lds")) lds = (int)p->value->cval->i;
			else {
				cg_unsupported(c, p->span, "this wait counter");
				return 0;
			}
		}
		if (vm < 0 && lds < 0)
			vm = lds = 0;
		ir_b_wait(&c->b, vm, lds, -1);
		return (IrRef)-1;
	}
	if (bid == B_SETPRIO && na == 1 && n->u.call.args.v[0]->cval) {
		ir_b_setprio(&c->b, (int)n->u.call.args.v[0]->cval->i);
		return (IrRef)-1;
	}
	/* instruction-kind masks of sched_barrier / sched_group_barrier (amdgpu-facts §3) */
	static const int MASK[EN_NENUMS] = {
		[EN_ALU] = 1, [EN_VALU] = 2, [EN_SALU] = 4, [EN_MFMA] = 8, [EN_WMMA] = 8, [EN_VMEM] = 0x10,
		[EN_VMEM_READ] = 0x20, [EN_VMEM_WRITE] = 0x40, [EN_DS] = 0x80, [EN_DS_READ] = 0x100,
		[EN_DS_WRITE] = 0x200 };
	if (bid == B_SCHED_BARRIER && na <= 1) {
		Value *k = na == 1 ? n->u.call.args.v[0]->cval : NULL;
		if (na == 1 && (!k || k->kind != VAL_ENUM || k->i < 0 || k->i >= EN_NENUMS || !MASK[k->i])) {
			cg_unsupported(c, n->span, "this sched_barrier kind");
			return 0;
		}
		ir_b_sched_barrier(&c->b, k ? MASK[k->i] : 0);
		return (IrRef)-1;
	}
	if (bid == B_SCHED_GROUP && (na == 2 || na == 3)) {
		Value *k = n->u.call.args.v[0]->cval, *cnt = n->u.call.args.v[1]->cval;
		Value *sid = na == 3 ? n->u.call.args.v[2]->cval : NULL;
		if (!k || k->kind != VAL_ENUM || k->i < 0 || k->i >= EN_NENUMS || !MASK[k->i] || !cnt ||
		    (na == 3 && !sid)) {
			cg_unsupported(c, n->span, "this sched_group form");
			return 0;
		}
		ir_b_sched_group(&c->b, MASK[k->i], (int)cnt->i, sid ? (int)sid->i : 0);
		return (IrRef)-1;
	}
	if (na == 0 && (bid == B_LANE_ID || bid == B_WAVE_ID || bid == B_WAVE_SIZE)) {
		IrRef ws = ir_b_wave_size(&c->b), t;
		if (bid == B_WAVE_SIZE)
			return ws;
		/* the flat work-item id, then split by the wave size */
		t = ir_b_tid(&c->b, 0);
		if (c->f->block[1] > 1 || c->f->block[2] > 1) {
			IrRef bx = ir_b_const(&c->b, ir_ty(IR_I32), c->f->block[0]);
			IrRef by = ir_b_const(&c->b, ir_ty(IR_I32), c->f->block[1]);
			IrRef yz = ir_b_bin(&c->b, IR_OP_ADD, ir_b_tid(&c->b, 1), ir_b_bin(&c->b, IR_OP_MUL, ir_b_tid(&c->b, 2), by));
			t = ir_b_bin(&c->b, IR_OP_ADD, t, ir_b_bin(&c->b, IR_OP_MUL, yz, bx));
		}
		t = ir_b_bin(&c->b, bid == B_LANE_ID ? IR_OP_REM : IR_OP_DIV, t, ws);
		/* the wave index is the same in all lanes: readfirstlane puts it in
		 * an SGPR, so branches on it are scalar (s_cbranch_scc0/1, s_cbranch_vccnz) */
		return bid == B_WAVE_ID ? ir_b_un(&c->b, IR_OP_UNIFORM, t) : t;
	}
	if (na == 1 && bid == B_FLOAT_BITS) {
		IrRef x = cg_value_of(c, cg_expr(c, n->u.call.args.v[0]), n->u.call.args.v[0]->span);
		if (!x)
			return 0;
		x = cg_to_type(c, x, ir_ty(IR_F32));
		return ir_b_inst(&c->b, IR_OP_BITCAST, ir_ty(IR_I32), 1, &x);
	}
	if (na == 2 && bid == B_SHFL_XOR) {
		IrRef x = cg_value_of(c, cg_expr(c, n->u.call.args.v[0]), n->u.call.args.v[0]->span);
		IrRef m = x ? cg_value_of(c, cg_expr(c, n->u.call.args.v[1]), n->u.call.args.v[1]->span) : 0;
		if (!m)
			return 0;
		return ir_b_shfl_xor(&c->b, x, cg_to_type(c, m, ir_ty(IR_I32)));
	}
	{   /* popcount, clz, ctz, bitcast, order_key, order_key_inv (codegen_math.c) */
		int bits;
		IrRef y = cg_bits(c, n, bid, &bits);
		if (bits)
			return y;
	}
	if (na > 3) {
		cg_unsupported(c, n->span, "this call");
		return 0;
	}
	IrType rt = cg_type_of(c, n, &ok);
	if (!ok) {
		cg_unsupported(c, n->span, "this call");
		return 0;
	}
	if (bid == B_SELECT && na == 3) {
		IrRef cnd = cg_expr(c, n->u.call.args.v[0]);
		IrRef x = cnd ? cg_expr(c, n->u.call.args.v[1]) : 0;
		IrRef y = x ? cg_expr(c, n->u.call.args.v[2]) : 0;
		IrRef ops[3] = { cnd, x, y };
		IrType ct = ir_ty(IR_I1);
		if (!y || !elementwise(c, n->span, &rt, ops, 3) || !elementwise(c, n->span, &ct, ops, 3))
			return 0;
		return ir_b_select(&c->b, cg_to_type(c, cnd, ct), cg_to_type(c, x, rt), cg_to_type(c, y, rt));
	}
	for (int i = 0; i < na; i++)
		if (!(a[i] = cg_value_of(c, cg_expr(c, n->u.call.args.v[i]), n->u.call.args.v[i]->span)))
			return 0;
	/* fragments and scalars mix elementwise: the scalars are broadcast */
	if (!elementwise(c, n->span, &rt, a, na))
		return 0;
	for (int i = 0; i < na; i++)
		a[i] = cg_to_type(c, a[i], rt);
	if ((bid == B_MIN || bid == B_MAX) && na == 2) {
		if (ir_ty_is_float(rt))
			return ir_b_bin(&c->b, bid == B_MIN ? IR_OP_FMIN : IR_OP_FMAX, a[0], a[1]);
		return ir_b_bin(&c->b, bid == B_MIN ? IR_OP_MIN : IR_OP_MAX, a[0], a[1]);
	}
	if (bid == B_CEIL_DIV && na == 2 && ir_ty_is_int(rt)) {
		IrRef one = const_of(c, rt, 1, 1);
		return ir_b_bin(&c->b, IR_OP_SDIV, ir_b_bin(&c->b, IR_OP_SUB, ir_b_bin(&c->b, IR_OP_ADD, a[0], a[1]), one), a[1]);
	}
	if (ir_ty_is_float(rt) && na == 1) {
		if (bid == B_SQRT) return ir_b_un(&c->b, IR_OP_SQRT, a[0]);
		if (bid == B_RSQRT) return ir_b_un(&c->b, IR_OP_RSQRT, a[0]);
		if (bid == B_EXP2) return ir_b_un(&c->b, IR_OP_EXP2, a[0]);
	}
	if (ir_ty_is_float(rt) && na == 3 && bid == B_FMA)
		return ir_b_fma(&c->b, a[0], a[1], a[2]);
	if (na == 1 && bid == B_SQUARE)
		return ir_b_bin(&c->b, ir_ty_is_float(rt) ? IR_OP_FMUL : IR_OP_MUL, a[0], a[0]);
	if (na == 1 && bid == B_ABS) {
		if (ir_ty_is_float(rt))
			return ir_b_bin(&c->b, IR_OP_FMAX, a[0], ir_b_un(&c->b, IR_OP_FNEG, a[0]));
		return ir_b_bin(&c->b, IR_OP_MAX, a[0], ir_b_bin(&c->b, IR_OP_SUB, const_of(c, rt, 0, 0), a[0]));
	}
	if (na == 2 && (bid == B_ADD || bid == B_MUL))
		return ir_b_bin(&c->b, ir_ty_is_float(rt) ? (bid == B_ADD ? IR_OP_FADD : IR_OP_FMUL)
		                                          : (bid == B_ADD ? IR_OP_ADD : IR_OP_MUL), a[0], a[1]);
	if (na == 1) {
		int handled;
		IrRef y = cg_math(c, bid, a[0], rt, &handled);
		if (handled)
			return y;
	}
	diag_error(c->d, n->span, "'%s' is not supported by code generation yet", builtins[bid].name);
	c->failed = 1;
	return 0;
}

/* l op r in type rt (lanes widened to the operands'); 0 if op is not arithmetic */
IrRef
cg_arith(Cg *c, Span sp, AstOp op, IrRef l, IrRef r, IrType rt, int uns)
{
	IrRef lr[2] = { l, r };
	if (!elementwise(c, sp, &rt, lr, 2))
		return (IrRef)-1;
	l = cg_to_type(c, l, rt);
	r = cg_to_type(c, r, rt);
	if (ir_ty_is_float(rt)) {
		switch (op) {
		case OP_ADD: return ir_b_bin(&c->b, IR_OP_FADD, l, r);
		case OP_SUB: return ir_b_bin(&c->b, IR_OP_FSUB, l, r);
		case OP_MUL: return ir_b_bin(&c->b, IR_OP_FMUL, l, r);
		case OP_DIV: return ir_b_bin(&c->b, IR_OP_FDIV, l, r);
		default: return 0;
		}
	}
	switch (op) {
	case OP_ADD: return ir_b_bin(&c->b, IR_OP_ADD, l, r);
	case OP_SUB: return ir_b_bin(&c->b, IR_OP_SUB, l, r);
	case OP_MUL: return ir_b_bin(&c->b, IR_OP_MUL, l, r);
	case OP_DIV: return ir_b_bin(&c->b, uns ? IR_OP_DIV : IR_OP_SDIV, l, r);
	case OP_MOD: return ir_b_bin(&c->b, uns ? IR_OP_REM : IR_OP_SREM, l, r);
	case OP_BAND: return ir_b_bin(&c->b, IR_OP_AND, l, r);
	case OP_BOR: return ir_b_bin(&c->b, IR_OP_OR, l, r);
	case OP_BXOR: return ir_b_bin(&c->b, IR_OP_XOR, l, r);
	case OP_SHL: return ir_b_bin(&c->b, IR_OP_SHL, l, r);
	case OP_SHR: return ir_b_bin(&c->b, uns ? IR_OP_SHR : IR_OP_SAR, l, r);
	default: return 0;
	}
}

IrRef
cg_expr(Cg *c, Node *n)
{
	int ok = 1;

	if (c->failed)
		return 0;
	c->b.loc = cg_loc_of(c, n->span);
	/* compile-time scalars fold to constants */
	if (n->cval && (n->cval->kind == VAL_INT || n->cval->kind == VAL_BOOL || n->cval->kind == VAL_FLOAT)) {
		IrType t = cg_type_of(c, n, &ok);
		if (!ok)
			t = n->cval->kind == VAL_FLOAT ? ir_ty(IR_F32) : n->cval->kind == VAL_BOOL ? ir_ty(IR_I1) : ir_ty(IR_I32);
		return konst(c, t, n->cval);
	}
	switch (n->kind) {
	case E_NAME: {
		Symbol *s = n->u.name.sym;
		IrRef v = s ? cg_lookup(c, s) : 0;
		if (!v && s && s->kind == SYM_LOOP && s->node && s->node->kind == S_PIPELINE &&
		    !strcmp(s->name, "stage"))
			v = c->pipe_stage;
		if (!v && s) {   /* a predicate bound lazily (for copies), used as a value */
			Node *lz = cg_lookup_lazy(c, s);
			if (lz && lz->kind == E_CALL && cg_builtin(lz->u.call.callee) == B_ELEM_LESS)
				return cg_expr(c, lz);
		}
		if (!v)
			cg_unsupported(c, n->span, s ? "this kind of name" : "an unresolved name");
		return v;
	}
	case E_MEMBER: {
		Node *b = n->u.member.base;
		const char *id = n->u.member.id;
		int dim = !strcmp(id, "x") ? 0 : !strcmp(id, "y") ? 1 : !strcmp(id, "z") ? 2 : -1;
		if (b->kind == E_NAME && dim >= 0 &&
		    (!b->u.name.sym || b->u.name.sym->kind == SYM_BUILTIN)) {
			if (!strcmp(b->u.name.id, "thread")) return ir_b_tid(&c->b, dim);
			if (!strcmp(b->u.name.id, "block")) return ir_b_bid(&c->b, dim);
		}
		break;
	}
	case E_UNARY: {
		IrRef x = cg_storage_only(n->u.unary.x) ? 0 : cg_expr(c, n->u.unary.x);
		IrType t;
		if (cg_storage_only(n->u.unary.x)) {
			cg_unsupported(c, n->span, "arithmetic on fp8/bf8/fp6/bf6/fp4 or e8m0 values");
			return 0;
		}
		if (!x)
			return 0;
		t = c->f->inst[x].ty;
		switch (n->u.unary.op) {
		case OP_NEG:
			if (ir_ty_is_float(t))
				return ir_b_un(&c->b, IR_OP_FNEG, x);
			return ir_b_bin(&c->b, IR_OP_SUB, const_of(c, t, 0, 0), x);
		case OP_NOT:
			return ir_b_bin(&c->b, IR_OP_XOR, x, const_of(c, t, t.kind == IR_I1 ? 1 : -1, 0));
		case OP_BNOT:
			return ir_b_bin(&c->b, IR_OP_XOR, x, const_of(c, t, -1, 0));
		default:
			break;
		}
		break;
	}
	case E_BINARY: {
		Node *L = n->u.binary.l, *R = n->u.binary.r;
		AstOp op = n->u.binary.op;
		IrType rt = cg_type_of(c, n, &ok);
		IrRef l, r;
		if (!ok)
			break;
		l = cg_value_of(c, cg_expr(c, L), L->span);
		r = l ? cg_value_of(c, cg_expr(c, R), R->span) : 0;
		if (!r)
			return 0;
		c->b.loc = cg_loc_of(c, n->span);
		if (op >= OP_EQ && op <= OP_GE) {
			/* compare in the wider operand type */
			int okl = 1, okr = 1;
			IrType lt = cg_type_of(c, L, &okl), rt2 = cg_type_of(c, R, &okr);
			IrType ct = ir_ty_is_float(lt) || ir_ty_is_float(rt2) ? ir_ty(IR_F32)
			          : (ir_scalar_bits((IrScalar)lt.kind) >= ir_scalar_bits((IrScalar)rt2.kind) ? lt : rt2);
			int uns = L->type && R->type && cg_is_unsigned(L->type->scalar) && cg_is_unsigned(R->type->scalar);
			IrRef lr[2] = { l, r };
			if (!elementwise(c, n->span, &ct, lr, 2))
				return 0;
			l = cg_to_type(c, l, ct);
			r = cg_to_type(c, r, ct);
			static const IrCmp si[] = { IR_EQ, IR_NE, IR_LT, IR_LE, IR_GT, IR_GE };
			static const IrCmp ui[] = { IR_EQ, IR_NE, IR_ULT, IR_ULE, IR_UGT, IR_UGE };
			static const IrCmp fl[] = { IR_FEQ, IR_FNE, IR_FLT, IR_FLE, IR_FGT, IR_FGE };
			int k = (int)(op - OP_EQ);
			return ir_b_cmp(&c->b, ir_ty_is_float(ct) ? fl[k] : uns ? ui[k] : si[k], l, r);
		}
		if (op == OP_AND || op == OP_OR) {
			IrRef lr[2] = { l, r };
			IrType bt = ir_ty(IR_I1);
			if (!elementwise(c, n->span, &bt, lr, 2))
				return 0;
			return ir_b_bin(&c->b, op == OP_AND ? IR_OP_AND : IR_OP_OR, cg_to_type(c, l, bt), cg_to_type(c, r, bt));
		}
		{
			IrRef v = cg_arith(c, n->span, op, l, r, rt, n->type && cg_is_unsigned(n->type->scalar));
			if (v == (IrRef)-1)
				return 0;
			if (v)
				return v;
		}
		break;
	}
	case E_CONVERT: {
		if (cg_packed_convert(n))
			return cg_convert_packed(c, n);
		if (cg_storage_only(n->u.convert.x)) {
			cg_unsupported(c, n->span, "conversion from fp8/bf8/fp6/bf6/fp4 or e8m0 values");
			return 0;
		}
		if (cg_storage_only(n)) {
			cg_unsupported(c, n->span, "conversion to fp8/bf8/fp6/bf6/fp4 or e8m0");
			return 0;
		}
		IrRef x = cg_value_of(c, cg_expr(c, n->u.convert.x), n->u.convert.x->span);
		IrType t = cg_type_of(c, n, &ok);
		if (!x)
			return 0;
		if (!ok)
			break;
		return cg_to_type(c, x, lanes_of(c, t, x, 0));
	}
	case E_INDEX: {
		IrRef t, co[8];
		uint32_t nc;
		if (n->u.call.callee->type && n->u.call.callee->type->kind == TY_TUPLE) {
			IrTuple *tv = cg_tuple_val(c, n);   /* an element of a run-time tuple */
			return tv ? cg_tuple_leaf(c, tv, n->type) : 0;
		}
		for (int i = 0; i < n->u.call.args.n; i++)
			if (n->u.call.args.v[i]->kind == E_HOLE) {
				IrRef base = cg_expr(c, n->u.call.callee);
				if (!base)
					return 0;
				if (!cg_is_tensor_val(c, base)) {
					cg_unsupported(c, n->span, "slicing this value");
					return 0;
				}
				return cg_slice(c, n, base);
			}
		{
			IrRef b = cg_expr(c, n->u.call.callee);
			Type *bt = n->u.call.callee->type;
			uint32_t lane;
			if (!b)
				return 0;
			if (b != (IrRef)-1 && c->f->inst[b].ty.kind != IR_TENSOR &&
			    (c->f->inst[b].ty.lanes > 1 || (bt && bt->kind == TY_TENSOR && bt->space == SPACE_REG))) {
				if (ir_scalar_packed((IrScalar)c->f->inst[b].ty.kind)) {
					cg_unsupported(c, n->span, "reading one fp4/fp6/bf6 value of a fragment");
					return 0;
				}
				if (!cg_fragment_lane(c, n, b, &lane))
					return 0;
				return c->f->inst[b].ty.lanes > 1 ? ir_b_extract(&c->b, b, lane) : b;
			}
		}
		if (!cg_tensor_coords(c, n, &t, co, &nc))
			return 0;
		if (ir_scalar_packed(cg_tensor_of(c, t)->elem)) {
			cg_unsupported(c, n->span, "reading one fp4/fp6/bf6 element (packed below a byte; copy whole bytes)");
			return 0;
		}
		c->b.loc = cg_loc_of(c, n->span);
		return ir_b_tload(&c->b, t, 1, nc, co);
	}
	case E_CALL: {
		IrRef r = cg_call(c, n);
		if (r == (IrRef)-1) {
			diag_error(c->d, n->span, "this call has no value");
			c->failed = 1;
			return 0;
		}
		return r;
	}
	default:
		break;
	}
	cg_unsupported(c, n->span, "this expression");
	return 0;
}

/* ---- kernels ---- */

static void
kernel(Cg *c, SemaKernel *k)
{
	Node *decl = k->decl;
	IrLoc l;

	c->k = k;
	c->env = NULL;
	c->part_atom = NULL;
	c->npart_atom = 0;
	c->dup_part = NULL;
	c->ndup_part = c->capdup_part = 0;
	l = cg_loc_of(c, decl->span);
	c->f = ir_func_new(c->m, k->name, l);
	c->b = ir_builder(c->f);
	for (int i = 0; i < 3; i++)
		c->f->block[i] = (unsigned)(k->block[i] > 0 ? k->block[i] : 1);
	c->f->waves_per_eu[0] = k->waves_per_eu;
	if (k->targets) {
		size_t nt;
		const TgtDesc *all = tgt_all(&nt);
		char buf[256] = "";
		for (size_t i = 0; i < nt; i++)
			if (k->targets & tgt_bit(all[i].name))
				snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " " : "", all[i].name);
		c->f->archs = ir_strdup(c->m, buf);
	}
	/* parameters: first all declared, then their values (layouts may refer
	 * to scalar parameters declared later) */
	for (int i = 0; i < k->nparams; i++) {
		Symbol *s = k->params[i];
		IrScalar el;
		if (!s->type || !cg_scalar_of(s->type->scalar, &el)) {
			cg_unsupported(c, s->decl, "a parameter of this type");
			return;
		}
		if (s->type->kind == TY_TENSOR) {
			uint32_t pi = ir_func_param(c->f, s->name, IR_PARAM_PTR, el, 0);
			c->f->param[pi].elem_name = sema_scalar_names[s->type->scalar];
		}
		else if (s->type->kind == TY_SCALAR)
			ir_func_param(c->f, s->name, IR_PARAM_VAL, el, 0);
		else {
			cg_unsupported(c, s->decl, "a parameter of this kind");
			return;
		}
	}
	for (int i = 0; i < k->nparams; i++)
		if (k->params[i]->type->kind == TY_SCALAR)
			cg_bind(c, k->params[i], ir_b_arg(&c->b, (uint32_t)i));
	/* alignment promises from requires aligned(x, N) */
	for (int r = 0; r < k->requires.n; r++) {
		Node *q = k->requires.v[r];
		if (q->kind == E_CALL && q->u.call.callee->kind == E_NAME &&
		    cg_builtin(q->u.call.callee) == B_ALIGNED && q->u.call.args.n == 2 &&
		    q->u.call.args.v[0]->kind == E_NAME && q->u.call.args.v[1]->cval)
			for (int i = 0; i < k->nparams; i++)
				if (k->params[i] == q->u.call.args.v[0]->u.name.sym)
					c->f->param[i].align = (uint32_t)q->u.call.args.v[1]->cval->i;
	}
	for (int i = 0; i < k->nparams && !c->failed; i++) {
		Symbol *s = k->params[i];
		Param *p = NULL;
		IrLayout lay;
		if (s->type->kind != TY_TENSOR)
			continue;
		for (int j = 0; j < decl->u.kernel.rt.n; j++)
			if (!strcmp(decl->u.kernel.rt.v[j]->name, s->name))
				p = decl->u.kernel.rt.v[j];
		c->b.loc = cg_loc_of(c, s->decl);
		if (!p || !p->type || !p->type->layout || cg_layout_of(c, p->type->layout, &lay)) {
			if (!c->failed)
				cg_unsupported(c, s->decl, "this tensor parameter's layout");
			return;
		}
		c->f->param[i].layout_meta = cg_layout_meta(c, p->type->layout);
		cg_bind(c, s, ir_b_tensor_global(&c->b, ir_b_arg(&c->b, (uint32_t)i), c->f->param[i].ty, lay,
		                              IR_ADDR_AUTO, s->name));
	}
	for (int i = 0; i < 3 && !c->failed; i++)
		if (k->grid[i])
			c->f->grid_rpn[i] = cg_rpn_of(c, k->grid[i], "grid formula");
	for (int r = 0; r < k->requires.n && !c->failed; r++) {
		Node *rq = k->requires.v[r];
		if (rq->cval && (rq->cval->kind == VAL_BOOL || rq->cval->kind == VAL_INT)) {
			/* folded by the checker: true ones hold for every launch */
			if (!rq->cval->i) {
				diag_error(c->d, rq->span, "requirement is false for instance '%s'", k->name);
				c->failed = 1;
			}
			continue;
		}
		const char *q = cg_rpn_of(c, rq, "requires predicate");
		if (q)
			ir_func_requires(c->f, q, cg_source_text(c, k->requires.v[r]->span));
	}
	if (!c->failed)
		cg_kernel_block(c, decl->u.kernel.body);
	if (!c->failed) {
		c->b.cur = 1;
		c->b.loc = cg_loc_of(c, decl->span);
		ir_b_ret(&c->b);
	}
}

IrModule *
cg_module(SemaProgram *prog, const CgOptions *o, Diag *d)
{
	Cg c = { 0 };

	c.d = d;
	lay_ctx_init(&c.lc, prog->lay_arena);  /* the program's arena: freed with it */
	c.m = ir_module_new();
	c.m->source_name = o->source_name;
	for (int i = 0; i < prog->nkernels && !c.failed; i++)
		kernel(&c, prog->kernels[i]);
	if (c.failed || diag_errors(d)) {
		ir_module_free(c.m);
		return NULL;
	}
	return c.m;
}
