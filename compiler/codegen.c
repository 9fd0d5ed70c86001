/*
 * codegen.c — cg_run: checked kernels (sema.h) to flyc IR (ir.h), then the
 * back end (emit.h). This is the pipeline in one place:
 *
 *   for each SemaKernel: signature + metadata -> IR params, block, grid, requires
 *                        body statements     -> IR instructions (this file)
 *   emit_compile: IR passes, LLVM lowering, O-level pipeline, objects, ld.lld,
 *                 bundles, resource usage
 *
 * Supported in this version (everything else is a located "not supported by
 * code generation yet" error, never a wrong program):
 *   - kernel signatures: global tensors with static or run-time layouts
 *     (leaves are integers, compile-time values or run-time integer
 *     parameters), scalar parameters, block/grid/requires/waves_per_eu;
 *   - let/var bindings, assignment (variables, and tensor elements t[i, j]),
 *     if/else and for loops (variables assigned inside become loop-carried
 *     values), lds buffers with static (swizzled, multi-stage) layouts;
 *   - expressions: literals and compile-time values, parameters, thread.x/y/z,
 *     block.x/y/z, integer/float/boolean arithmetic and comparisons,
 *     convert<T>, tensor element reads t[i, j], min/max/ceil_div, sqrt,
 *     rsqrt, exp2, fma;
 *   - schedule controls: barrier(), wait(vmem=N, lds=N), sched_group(kind, n),
 *     sched_barrier(), setprio(n);
 *   - tiled MMAs, their partitions and fragments, gemm, fill, and copies
 *     laid out as an MMA operand (tiled_copy(atom, of=mma.A), retile_S/D):
 *     codegen_mma.c (dispatched from call(); shared helpers in codegen_int.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "codegen_copy.h"
#include "codegen_int.h"
#include "codegen_span.h"
#include "emit.h"
#include "ir.h"
#include "ir_banks.h"
#include "target/target.h"

/* ---- locations, errors ---- */

static IrLoc
loc_of(Cg *c, Span s)
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

static void
unsupported(Cg *c, Span s, const char *what)
{
	if (!c->failed)
		diag_error(c->d, s, "%s is not supported by code generation yet", what);
	c->failed = 1;
}

/* n values per thread over CG_MAXFRAG: a located error, 1 */
static int
frag_limit(Cg *c, Span s, const char *what, int64_t n)
{
	if (n <= CG_MAXFRAG)
		return 0;
	if (!c->failed)
		diag_error(c->d, s, "%s needs %lld values per thread in registers; register fragments hold at most %d",
		           what, (long long)n, CG_MAXFRAG);
	c->failed = 1;
	return 1;
}

static void
ir_sink(void *ctx, IrLoc loc, const char *msg)
{
	Diag *d = ctx;
	Span s = SPAN_NONE;

	if (loc.span_file > 0) {
		s.file = loc.span_file - 1;
		s.lo = loc.span_lo;
		s.hi = loc.span_hi;
	}
	diag_error(d, s, "%s", msg);
}

/* ---- environment ---- */

static void
bind(Cg *c, Symbol *s, IrRef v)
{
	Binding *b = ir_alloc(c->m, sizeof *b);
	b->sym = s;
	b->val = v;
	b->next = c->env;
	c->env = b;
}

static void
bind_lazy(Cg *c, Symbol *s, Node *n)
{
	Binding *b = ir_alloc(c->m, sizeof *b);
	b->sym = s;
	b->lazy = n;
	b->next = c->env;
	c->env = b;
}

static Node *
lookup_lazy(Cg *c, Symbol *s)
{
	for (Binding *b = c->env; b; b = b->next)
		if (b->sym == s)
			return b->lazy;
	return NULL;
}

static IrRef
lookup(Cg *c, Symbol *s)
{
	for (Binding *b = c->env; b; b = b->next)
		if (b->sym == s)
			return b->val;
	return 0;
}

/* ---- types ---- */

static int
scalar_of(ScalarKind k, IrScalar *out)
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

static int
storage_only(const Node *n)
{
	return n && n->type && (n->type->kind == TY_SCALAR || n->type->kind == TY_TENSOR) &&
	       (n->type->scalar == SC_FP8 || n->type->scalar == SC_BF8 || n->type->scalar == SC_E8M0 ||
	        n->type->scalar == SC_FP4 || n->type->scalar == SC_FP6 || n->type->scalar == SC_BF6);
}

static int
is_unsigned(ScalarKind k)
{
	return k == SC_U8 || k == SC_U16 || k == SC_U32 || k == SC_U64;
}

/* ---- RPN for .flyc.meta (grid, requires) ---- */

typedef struct { char *p; size_t n, cap; int bad; } Str;

static void
sput(Str *s, const char *t)
{
	size_t k = strlen(t);
	if (s->n + k + 2 > s->cap) {
		s->cap = (s->n + k + 2) * 2;
		s->p = realloc(s->p, s->cap);
		if (!s->p)
			IR_ICE("out of memory");
	}
	if (s->n)
		s->p[s->n++] = ' ';
	memcpy(s->p + s->n, t, k);
	s->n += k;
	s->p[s->n] = 0;
}

static void rpn(Cg *c, Node *n, Str *s);

/* The declared layout's shape (which 0) or stride (which 1) of a tensor
 * parameter named by n, or NULL. A shape-only declaration has no stride. */
static Node *
param_layout_part(Node *n, int which)
{
	const Type *t;
	const Node *lay;

	if (n->kind != E_NAME || !n->u.name.sym || n->u.name.sym->kind != SYM_PARAM)
		return NULL;
	t = n->u.name.sym->type;
	if (!t || t->kind != TY_TENSOR || !t->layout)
		return NULL;
	lay = t->layout;
	if (lay->kind == E_LAYOUT)
		return which ? lay->u.binary.r : lay->u.binary.l;
	return which ? NULL : (Node *)lay;
}

/* shape(A) / stride(A) of a tensor parameter, as its declared tuple (or leaf). */
static Node *
layout_query(Node *n)
{
	int bid;

	if (n->kind != E_CALL || n->u.call.args.n != 1)
		return NULL;
	bid = cg_builtin(n->u.call.callee);
	if (bid == B_SHAPE)
		return param_layout_part(n->u.call.args.v[0], 0);
	if (bid == B_STRIDE)
		return param_layout_part(n->u.call.args.v[0], 1);
	return NULL;
}

/* The product of every leaf of a (nested) shape tuple. */
static void
rpn_product(Cg *c, Node *n, Str *s)
{
	if (n->kind != E_TUPLE || (n->cval && n->cval->kind == VAL_INT)) {
		rpn(c, n, s);
		return;
	}
	if (n->u.list.n == 0) {
		sput(s, "1");
		return;
	}
	for (int i = 0; i < n->u.list.n; i++) {
		rpn_product(c, n->u.list.v[i], s);
		if (i)
			sput(s, "*");
	}
}

static void
rpn(Cg *c, Node *n, Str *s)
{
	char buf[64];

	if (n->cval && (n->cval->kind == VAL_INT || n->cval->kind == VAL_BOOL)) {
		snprintf(buf, sizeof buf, "%lld", (long long)n->cval->i);
		sput(s, buf);
		return;
	}
	switch (n->kind) {
	case E_INT:
		snprintf(buf, sizeof buf, "%lld", (long long)n->u.ival);
		sput(s, buf);
		return;
	case E_MEMBER:   /* device.cus (the checker allows it in grid formulas only) */
		if (n->u.member.base->kind == E_NAME && !strcmp(n->u.member.base->u.name.id, "device") &&
		    n->u.member.base->u.name.sym && n->u.member.base->u.name.sym->kind == SYM_BUILTIN &&
		    !strcmp(n->u.member.id, "cus")) {
			sput(s, "device.cus");
			return;
		}
		break;
	case E_NAME:
		if (n->u.name.sym && n->u.name.sym->kind == SYM_PARAM && n->u.name.sym->type &&
		    n->u.name.sym->type->kind == TY_SCALAR) {
			snprintf(buf, sizeof buf, "$%s", n->u.name.id);
			sput(s, buf);
			return;
		}
		break;
	case E_UNARY:
		if (n->u.unary.op == OP_NEG) {
			sput(s, "0");
			rpn(c, n->u.unary.x, s);
			sput(s, "-");
			return;
		}
		if (n->u.unary.op == OP_NOT) {
			rpn(c, n->u.unary.x, s);
			sput(s, "!");
			return;
		}
		break;
	case E_BINARY: {
		static const struct { AstOp op; const char *t; } ops[] = {
			{ OP_ADD, "+" }, { OP_SUB, "-" }, { OP_MUL, "*" }, { OP_DIV, "/" }, { OP_MOD, "%" },
			{ OP_EQ, "==" }, { OP_NE, "!=" }, { OP_LT, "<" }, { OP_LE, "<=" }, { OP_GT, ">" },
			{ OP_GE, ">=" }, { OP_AND, "&&" }, { OP_OR, "||" } };
		for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
			if (ops[i].op == n->u.binary.op) {
				rpn(c, n->u.binary.l, s);
				rpn(c, n->u.binary.r, s);
				sput(s, ops[i].t);
				return;
			}
		break;
	}
	case E_CALL: {
		Node *cal = n->u.call.callee;
		int bid = cg_builtin(cal);
		if (n->u.call.args.n == 2 &&
		    (bid == B_CEIL_DIV || bid == B_MIN || bid == B_MAX)) {
			rpn(c, n->u.call.args.v[0], s);
			rpn(c, n->u.call.args.v[1], s);
			sput(s, builtins[bid].name);
			return;
		}
		/* get(shape(A), i), get(stride(A), i): the declared mode i */
		if (bid == B_GET && n->u.call.args.n == 2 && n->u.call.args.v[1]->cval &&
		    n->u.call.args.v[1]->cval->kind == VAL_INT) {
			Node *tup = layout_query(n->u.call.args.v[0]);
			if (!tup && n->u.call.args.v[0]->kind == E_TUPLE)
				tup = n->u.call.args.v[0];
			int64_t i = n->u.call.args.v[1]->cval->i;
			if (tup && tup->kind == E_TUPLE && i >= 0 && i < tup->u.list.n) {
				rpn(c, tup->u.list.v[i], s);
				return;
			}
			if (tup && tup->kind != E_TUPLE && i == 0) {
				rpn(c, tup, s);
				return;
			}
			break;
		}
		/* shape(A) / stride(A) of a rank-1 tensor: its one mode */
		if ((bid == B_SHAPE || bid == B_STRIDE) && n->u.call.args.n == 1) {
			Node *tup = layout_query(n);
			while (tup && tup->kind == E_TUPLE && tup->u.list.n == 1)
				tup = tup->u.list.v[0];
			if (tup && tup->kind != E_TUPLE) {
				rpn(c, tup, s);
				return;
			}
			break;
		}
		/* size(A), size(shape(A)), size(A, i): products of the declared shape */
		if (bid == B_SIZE && (n->u.call.args.n == 1 || n->u.call.args.n == 2)) {
			Node *a0 = n->u.call.args.v[0];
			Node *tup = param_layout_part(a0, 0);
			if (!tup)
				tup = layout_query(a0);
			if (!tup && a0->kind == E_TUPLE)
				tup = a0;
			if (tup && n->u.call.args.n == 2) {
				Node *ix = n->u.call.args.v[1];
				if (!ix->cval || ix->cval->kind != VAL_INT)
					break;
				if (tup->kind == E_TUPLE && ix->cval->i >= 0 && ix->cval->i < tup->u.list.n)
					tup = tup->u.list.v[ix->cval->i];
				else if (tup->kind == E_TUPLE || ix->cval->i != 0)
					break;
			}
			if (tup) {
				rpn_product(c, tup, s);
				return;
			}
			break;
		}
		if (bid == B_ALIGNED && n->u.call.args.n == 2 &&
		    n->u.call.args.v[0]->kind == E_NAME) {
			snprintf(buf, sizeof buf, "@%s", n->u.call.args.v[0]->u.name.id);
			sput(s, buf);
			rpn(c, n->u.call.args.v[1], s);
			sput(s, "%");
			sput(s, "0");
			sput(s, "==");
			return;
		}
		break;
	}
	default:
		break;
	}
	s->bad = 1;
}

/* The leaves of one side of a declared layout, flattened in order: values (a
 * compile-time part) or nodes (run-time formulas). -1 when more than max. */
typedef struct { const Value *v; Node *n; } MetaLeaf;

static int
flat_value(const Value *v, MetaLeaf *out, int n, int max)
{
	if (v->kind == VAL_INT) {
		if (n >= max)
			return -1;
		out[n].v = v;
		out[n].n = NULL;
		return n + 1;
	}
	if (v->kind != VAL_TUPLE)
		return -1;
	for (int i = 0; i < v->nelems && n >= 0; i++)
		n = flat_value(v->elems[i], out, n, max);
	return n;
}

static int
flat_node(Node *x, MetaLeaf *out, int n, int max)
{
	if (x->cval)
		return flat_value(x->cval, out, n, max);
	if (x->kind == E_TUPLE) {
		for (int i = 0; i < x->u.list.n && n >= 0; i++)
			n = flat_node(x->u.list.v[i], out, n, max);
		return n;
	}
	if (n >= max)
		return -1;
	out[n].v = NULL;
	out[n].n = x;
	return n + 1;
}

static void
leaf_rpn(Cg *c, const MetaLeaf *l, Str *s)
{
	char buf[32];
	if (l->v) {
		snprintf(buf, sizeof buf, "%lld", (long long)l->v->i);
		sput(s, buf);
	} else {
		rpn(c, l->n, s);
	}
}

/* A tensor parameter's declared layout as the formulas of a .flyc.meta 2 `layout`
 * record, its modes flattened: (M, K):(K, 1) gives "$M ; $K : $K ; 1". NULL when it
 * cannot be written (a swizzle, a formula outside the RPN vocabulary): the runtime
 * then checks what it can without it (docs/metadata.md). */
static const char *
layout_meta(Cg *c, Node *lay)
{
	enum { MAXM = 16 };
	MetaLeaf sh[MAXM], st[MAXM];
	int ns, nd;
	Str s = { 0 };
	const char *r;

	if (lay->cval && lay->cval->kind == VAL_LAYOUT) {
		if (lay->cval->swz.on)
			return NULL;
		ns = flat_value(lay->cval->shape, sh, 0, MAXM);
		nd = flat_value(lay->cval->stride, st, 0, MAXM);
	} else if (lay->kind == E_LAYOUT) {
		ns = flat_node(lay->u.binary.l, sh, 0, MAXM);
		nd = flat_node(lay->u.binary.r, st, 0, MAXM);
	} else {
		return NULL;
	}
	if (ns < 1 || ns != nd)
		return NULL;
	for (int i = 0; i < 2 * ns; i++) {
		if (i)
			sput(&s, i == ns ? ":" : ";");
		leaf_rpn(c, i < ns ? &sh[i] : &st[i - ns], &s);
	}
	r = s.bad || !s.p ? NULL : ir_strdup(c->m, s.p);
	free(s.p);
	return r;
}

static const char *
rpn_of(Cg *c, Node *n, const char *what)
{
	Str s = { 0 };
	const char *r;

	rpn(c, n, &s);
	if (s.bad || !s.p) {
		diag_error(c->d, n->span, "this %s cannot be written as launch metadata (integers, scalar "
		           "parameters, + - * / %% comparisons, && || !, min, max, ceil_div, aligned)", what);
		c->failed = 1;
		free(s.p);
		return NULL;
	}
	r = ir_strdup(c->m, s.p);
	free(s.p);
	return r;
}

static const char *
source_text(Cg *c, Span s)
{
	size_t len;
	const char *t;
	char *r;

	if (s.file < 0 || !(t = diag_file_text(c->d, s.file, &len)) || s.hi > len || s.lo > s.hi)
		return NULL;
	r = ir_alloc(c->m, s.hi - s.lo + 1);
	for (uint32_t i = s.lo; i < s.hi; i++)
		r[i - s.lo] = (t[i] == '\n' || t[i] == '\r' || t[i] == '\t') ? ' ' : t[i];
	return r;
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

static IrRef expr(Cg *c, Node *n);
static int packed_convert(Node *n);
static IrRef convert_packed(Cg *c, Node *n);

static IrTuple *
tuple_of_node(Cg *c, Node *n)
{
	if (n->cval)
		return tuple_of_value(c, n->cval);
	if (n->kind == E_TUPLE) {
		IrTuple **k = ir_alloc(c->m, sizeof *k * (size_t)(n->u.list.n ? n->u.list.n : 1));
		for (int i = 0; i < n->u.list.n; i++)
			if (!(k[i] = tuple_of_node(c, n->u.list.v[i])))
				return NULL;
		return n->u.list.n == 1 ? k[0] : ir_tuple_of(c->m, n->u.list.n, k);
	}
	/* a run-time integer leaf */
	if (n->type && n->type->kind == TY_SCALAR) {
		IrScalar s;
		if (!scalar_of(n->type->scalar, &s) || !(s == IR_I32 || s == IR_I64))
			return NULL;
		IrRef v = expr(c, n);
		return v ? ir_tuple_dyn(c->m, v) : NULL;
	}
	return NULL;
}

static int
layout_of(Cg *c, Node *n, IrLayout *out)
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
		out->shape = tuple_of_node(c, n->u.binary.l);
		out->stride = tuple_of_node(c, n->u.binary.r);
		return out->shape && out->stride ? 0 : -1;
	}
	return -1;
}

/* ---- expressions ---- */

static IrType
type_of(Cg *c, Node *n, int *ok)
{
	IrScalar s;
	/* scalars, and register fragments (their element type; lanes come from values) */
	if (n->type && (n->type->kind == TY_SCALAR || (n->type->kind == TY_TENSOR && n->type->space == SPACE_REG)) &&
	    !storage_only(n) && scalar_of(n->type->scalar, &s))
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
static IrRef
to_type(Cg *c, IrRef v, IrType t)
{
	IrType vt = c->f->inst[v].ty;
	if (vt.lanes > 1 && t.lanes == 1)
		t = ir_vec((IrScalar)t.kind, vt.lanes);
	if (ir_ty_eq(vt, t))
		return v;
	if (vt.lanes == 1 && t.lanes > 1) {
		v = to_type(c, v, ir_ty((IrScalar)t.kind));
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

/* v[i] of a register fragment held as a value (a vector: a `var` made by fragment_like,
 * fill or elementwise math): i must be one compile-time coordinate inside it; *lane is
 * the value's index. 0 (and a located error) otherwise. */
static int
known_int(Cg *c, IrRef r, int64_t *v, int depth)
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
		return known_int(c, I->ops[0], &a, depth + 1) && known_int(c, I->ops[1], &b, depth + 1) &&
		       ir_fold_binary(I->op, I->ty, a, b, v);
	default:
		return 0;
	}
}

static int
fragment_lane(Cg *c, Node *n, IrRef v, uint32_t *lane)
{
	unsigned lanes = c->f->inst[v].ty.lanes;
	int64_t i;
	IrRef k;

	if (n->u.call.args.n != 1) {
		unsupported(c, n->span, "a fragment value indexed by more than one coordinate");
		return 0;
	}
	if (!(k = expr(c, n->u.call.args.v[0])))
		return 0;
	if (!known_int(c, k, &i, 0)) {
		unsupported(c, n->span, "a fragment value indexed at a run-time coordinate (use a compile-time one, e.g. a static for's variable)");
		return 0;
	}
	if (i < 0 || i >= (int64_t)lanes) {
		diag_error(c->d, n->u.call.args.v[0]->span, "coordinate %lld is outside the fragment (%u values)",
		           (long long)i, lanes);
		c->failed = 1;
		return 0;
	}
	*lane = (uint32_t)i;
	return 1;
}

static IrRef
tensor_coords(Cg *c, Node *n, IrRef *t, IrRef *coords, uint32_t *nc)
{
	Node *base = n->u.call.callee;
	*t = expr(c, base);
	if (!*t)
		return 0;
	if (c->f->inst[*t].ty.kind != IR_TENSOR) {
		unsupported(c, n->span, "indexing a value that is not a tensor");
		return 0;
	}
	if (n->u.call.args.n > 8) {
		unsupported(c, n->span, "more than 8 coordinates");
		return 0;
	}
	*nc = (uint32_t)n->u.call.args.n;
	for (int i = 0; i < n->u.call.args.n; i++) {
		Node *a = n->u.call.args.v[i];
		if (a->kind == E_HOLE) {
			unsupported(c, a->span, "slicing with '_'");
			return 0;
		}
		IrRef v = expr(c, a);
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
	IrTensor *T = &c->f->tensor[c->f->inst[*t].aux];
	int rank = ir_tuple_rank(T->layout.shape);
	for (uint32_t i = 0; i < *nc && (*nc == 1 || (int)*nc == rank); i++) {
		const IrTuple *m = *nc == 1 ? T->layout.shape : (rank == 1 ? T->layout.shape : T->layout.shape->kid[i]);
		int64_t ext = ir_tuple_size(m), v;
		if (ext >= 0 && ir_const_value(c->f, coords[i], &v) && (v < 0 || v >= ext)) {
			diag_error(c->d, n->u.call.args.v[i]->span, "coordinate %lld is outside %s (extent %lld)",
			           (long long)v, *nc == 1 ? "the tensor" : "its mode", (long long)ext);
			c->failed = 1;
			return 0;
		}
	}
	return *t;
}

/* ---- tensor views, fragments, copies ---- */

static int
is_tensor_val(Cg *c, IrRef r)
{
	return r && r != (IrRef)-1 && c->f->inst[r].ty.kind == IR_TENSOR;
}

static IrTensor *
tensor_of(Cg *c, IrRef r)
{
	return &c->f->tensor[c->f->inst[r].aux];
}

/* the index type for offsets into tensor t: i64 for global memory, else i32 */
static IrType
off_type(Cg *c, IrRef t)
{
	IrTensor *R = tensor_of(c, ir_tensor_root(c->f, t));
	/* rank-2 identity tensors pack their coordinates in i64 offsets */
	return ir_ty(R->space == IR_SPACE_GLOBAL || (R->space == IR_SPACE_IDENTITY && R->elem == IR_I64)
	             ? IR_I64 : IR_I32);
}

static IrRef
leaf_val(Cg *c, const IrTuple *x, IrType t)
{
	if (!x->dyn)
		return ir_b_const(&c->b, t, x->value);
	return to_type(c, x->dyn, t);
}

static IrRef
tsize(Cg *c, const IrTuple *x, IrType t)
{
	IrRef p;
	if (!x->n)
		return leaf_val(c, x, t);
	p = ir_b_const(&c->b, t, 1);
	for (int i = 0; i < x->n; i++)
		p = ir_b_bin(&c->b, IR_OP_MUL, p, tsize(c, x->kid[i], t));
	return p;
}

/* offset of 1-D coordinate k in mode (s, d), colexicographic, as IR ops */
static IrRef
eval_mode(Cg *c, const IrTuple *s, const IrTuple *d, IrRef k, IrType t)
{
	IrRef o;
	k = to_type(c, k, t);
	if (!s->n)
		return ir_b_bin(&c->b, IR_OP_MUL, k, leaf_val(c, d, t));
	o = ir_b_const(&c->b, t, 0);
	for (int i = 0; i < s->n; i++) {
		IrRef ki = k;
		if (i + 1 < s->n) {
			IrRef sz = tsize(c, s->kid[i], t);
			ki = ir_b_bin(&c->b, IR_OP_REM, k, sz);
			k = ir_b_bin(&c->b, IR_OP_DIV, k, sz);
		}
		o = ir_b_bin(&c->b, IR_OP_ADD, o, eval_mode(c, s->kid[i], d->kid[i], ki, t));
	}
	return o;
}

/* stride tree d scaled by leaf f (static or run-time) */
static IrTuple *
scale(Cg *c, const IrTuple *d, const IrTuple *f)
{
	if (d->n) {
		IrTuple **k = ir_alloc(c->m, sizeof *k * (size_t)d->n);
		for (int i = 0; i < d->n; i++)
			k[i] = scale(c, d->kid[i], f);
		return ir_tuple_of(c->m, d->n, k);
	}
	if (!d->dyn && !f->dyn)
		return ir_tuple_int(c->m, d->value * f->value);
	if (!d->dyn && d->value == 1)
		return (IrTuple *)f;
	IrType t = ir_ty(IR_I32);
	return ir_tuple_dyn(c->m, ir_b_bin(&c->b, IR_OP_MUL, leaf_val(c, d, t), leaf_val(c, f, t)));
}

static IrTuple *
mode_of(const IrTuple *x, int m)
{
	return x->n ? x->kid[m] : (IrTuple *)x;
}

static IrLayout
layout_of_modes(Cg *c, IrTuple **s, IrTuple **d, int n)
{
	IrLayout l = { 0 };
	if (n == 1) {
		l.shape = s[0];
		l.stride = d[0];
	} else {
		l.shape = ir_tuple_of(c->m, n, s);
		l.stride = ir_tuple_of(c->m, n, d);
	}
	return l;
}

/* local_partition(T, L, i): thread i's values of T under the thread-value
 * layout L = (thread mode, value mode), T of rank 1: value v is T(L(i, v)). */
static IrRef
local_partition(Cg *c, Node *n)
{
	Node *tn = n->u.call.args.v[0], *ln = n->u.call.args.v[1], *in = n->u.call.args.v[2];
	IrRef t = expr(c, tn), i, off;
	IrTensor *T;
	IrLayout L;
	IrType ot;

	if (!t)
		return 0;
	if (!is_tensor_val(c, t) || layout_of(c, ln, &L) || ir_tuple_rank(L.shape) != 2 || L.sw.b) {
		unsupported(c, n->span, "local_partition other than a tensor by a (thread, value) layout");
		return 0;
	}
	T = tensor_of(c, t);
	if (T->layout.shape->n || T->layout.sw.b) {
		unsupported(c, tn->span, "local_partition of a tensor of rank > 1");
		return 0;
	}
	if (!(i = expr(c, in)))
		return 0;
	ot = off_type(c, t);
	/* thread part: T's stride times L's thread-mode offset */
	off = ir_b_bin(&c->b, IR_OP_MUL, eval_mode(c, L.shape->kid[0], L.stride->kid[0], i, ot),
	               leaf_val(c, T->layout.stride, ot));
	IrLayout v = { L.shape->kid[1], scale(c, L.stride->kid[1], T->layout.stride), { 0, 0, 0 } };
	return ir_b_tensor_view(&c->b, t, off, v);
}

/* T[c0, _, ...]: fixed modes add their offsets, '_' modes stay */
static IrRef
slice(Cg *c, Node *n, IrRef t)
{
	IrTensor *T = tensor_of(c, t);
	int r = ir_tuple_rank(T->layout.shape), ns = 0;
	IrTuple *s[16], *d[16];
	IrType ot = off_type(c, t);
	IrRef off = ir_b_const(&c->b, ot, 0);

	/* a swizzled root is fine: its swizzle applies to the final offset of
	 * every view of it (lower-layout); views carry no swizzle of their own */
	if (n->u.call.args.n != r || r > 16 || (T->layout.sw.b && ir_tensor_root(c->f, t) != t)) {
		unsupported(c, n->span, "this slice");
		return 0;
	}
	for (int m = 0; m < r; m++) {
		Node *a = n->u.call.args.v[m];
		if (a->kind == E_HOLE) {
			s[ns] = mode_of(T->layout.shape, m);
			d[ns++] = mode_of(T->layout.stride, m);
			continue;
		}
		IrRef k = expr(c, a);
		if (!k)
			return 0;
		off = ir_b_bin(&c->b, IR_OP_ADD, off, eval_mode(c, mode_of(T->layout.shape, m),
		                                              mode_of(T->layout.stride, m), k, ot));
	}
	return ir_b_tensor_view(&c->b, t, off, layout_of_modes(c, s, d, ns));
}

/* make_identity(S): element c is its own coordinate. Rank 1: the
 * (colexicographic) index itself, an i32. Rank 2 (M, N): the coordinate (m, n)
 * packed in an i64 as m + n * 2^32, i.e. the layout (M, N):(1, 2^32) over i64
 * offsets. Every view of it (local_tile, slices, partitions) composes
 * non-negative strides linearly, so its elements stay exact packed pairs as
 * long as each coordinate stays below 2^32 (extents are i32); elem_less
 * unpacks them (pred_at). */
static IrRef
make_identity(Cg *c, Node *n)
{
	Node *sn = n->u.call.args.v[0];
	IrTuple *s = tuple_of_node(c, sn);
	IrLayout l = { 0 };

	if (!s) {
		unsupported(c, sn->span, "make_identity of this shape");
		return 0;
	}
	if (s->n == 2 && !s->kid[0]->n && !s->kid[1]->n) {
		IrTuple *d[2] = { ir_tuple_int(c->m, 1), ir_tuple_int(c->m, INT64_C(1) << 32) };
		IrRef r;
		l.shape = s;
		l.stride = ir_tuple_of(c->m, 2, d);
		r = ir_b_tensor_identity(&c->b, l);
		tensor_of(c, r)->elem = IR_I64;
		return r;
	}
	if (s->n) {
		unsupported(c, sn->span, "make_identity of a shape of rank > 2 or with nested modes");
		return 0;
	}
	l.shape = s;
	l.stride = ir_tuple_int(c->m, 1);
	return ir_b_tensor_identity(&c->b, l);
}

/* number of elements of a view with a static shape, or -1 */
static int64_t
view_size(Cg *c, IrRef t)
{
	return ir_tuple_size(tensor_of(c, t)->layout.shape);
}

static void
flatten_modes(const IrTuple *s, const IrTuple *d, const IrTuple **fs, const IrTuple **fd, int *n)
{
	if (!s->n) {
		if (*n < 32) {
			fs[*n] = s;
			fd[(*n)++] = d;
		}
		return;
	}
	for (int i = 0; i < s->n; i++)
		flatten_modes(s->kid[i], d->kid[i], fs, fd, n);
}

/* how many leading elements of the view sit at offsets 0, 1, 2, ... (the
 * run a vector access may cover); 1 when none */
static int64_t
contiguous(Cg *c, IrRef t)
{
	IrTensor *T = tensor_of(c, t);
	return cg_run_of(c, t, T->layout.shape, T->layout.stride);
}

/* the run of the modes (s, d) of view t (all of them, or one of its modes) */
int64_t
cg_run_of(Cg *c, IrRef t, const IrTuple *s, const IrTuple *d)
{
	const IrTuple *fs[32], *fd[32];
	int nf = 0;
	int64_t expect = 1;

	IrTensor *R = tensor_of(c, ir_tensor_root(c->f, t));

	flatten_modes(s, d, fs, fd, &nf);
	for (int i = 0; i < nf; i++) {
		if (!fs[i]->dyn && fs[i]->value == 1)
			continue;   /* an extent-1 mode, whatever its stride */
		if (fs[i]->dyn || fd[i]->dyn)
			break;
		if (fd[i]->value != expect)
			break;
		expect *= fs[i]->value;
	}
	/* a swizzle (o ^ bits above M) keeps aligned runs of up to 2^M elements whole */
	if (R->layout.sw.b) {
		int64_t p = INT64_C(1) << R->layout.sw.m;
		while (p > 1 && expect % p)
			p /= 2;
		if (expect > p)
			expect = p;
	}
	return expect;
}

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

/* 1 when every stride is a known non-negative integer; for a rank-2
 * identity's packed strides dm + dn * 2^32 also dm below 2^31 (a negative dm
 * with a positive dn packs to a positive stride whose low part is 2^32 + dm) */
static int
nonneg_strides(const IrTuple *d, int rank2)
{
	if (!d->n)
		return !d->dyn && d->value >= 0 && (!rank2 || (d->value & 0xffffffff) < (INT64_C(1) << 31));
	for (int i = 0; i < d->n; i++)
		if (!nonneg_strides(d->kid[i], rank2))
			return 0;
	return 1;
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
	Node *lz = p->kind == E_NAME && p->u.name.sym ? lookup_lazy(c, p->u.name.sym) : NULL;
	Node *el = lz ? lz : p;
	if (el->kind == E_CALL && el->u.call.callee->kind == E_NAME &&
	    cg_builtin(el->u.call.callee) == B_ELEM_LESS && el->u.call.args.n == 2) {
		IrRef cid = expr(c, el->u.call.args.v[0]);
		Node *bn = el->u.call.args.v[1];
		IrRef b, lo = 0, hi = 0;
		if (!cid)
			return 0;
		if (!is_tensor_val(c, cid)) {
			unsupported(c, el->span, "elem_less on this value");
			return 0;
		}
		if (v <= 0 && view_size(c, cid) != (int64_t)nn) {
			if (!c->failed)
				diag_error(c->d, el->span, "the predicate's coordinates have %lld elements per thread, but "
				           "the copy moves %u", (long long)view_size(c, cid), nn);
			c->failed = 1;
			return 0;
		}
		IrTensor *R = tensor_of(c, ir_tensor_root(c->f, cid));
		int rank2 = R->space == IR_SPACE_IDENTITY && R->elem == IR_I64;
		if (v != PRED_ALL) {
			coord_at(c, cid, rank2, kdyn ? kdyn : ir_b_const(&c->b, ir_ty(IR_I32), v), &lo, &hi);
		} else if (nonneg_strides(tensor_of(c, cid)->layout.stride, rank2)) {
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
			IrTuple *bt = tuple_of_node(c, bn);
			IrType i64 = ir_ty(IR_I64);
			if (!bt || bt->n != 2 || bt->kid[0]->n || bt->kid[1]->n) {
				if (!c->failed)
					diag_error(c->d, bn->span, "elem_less of rank-2 coordinates needs a shape of rank 2, "
					           "e.g. (M, N)");
				c->failed = 1;
				return 0;
			}
			IrRef p0 = ir_b_cmp(&c->b, IR_LT, lo, to_type(c, leaf_val(c, bt->kid[0], i64), i64));
			IrRef p1 = ir_b_cmp(&c->b, IR_LT, hi, to_type(c, leaf_val(c, bt->kid[1], i64), i64));
			return ir_b_bin(&c->b, IR_OP_AND, p0, p1);
		}
		if (!(b = expr(c, bn)))
			return 0;
		return ir_b_cmp(&c->b, IR_LT, lo, to_type(c, b, ir_ty(IR_I32)));
	}
	IrRef b = expr(c, p);
	if (b && c->f->inst[b].ty.lanes == 1)
		return to_type(c, b, ir_ty(IR_I1));
	if (b)
		unsupported(c, p->span, "this predicate");
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

/* Packed elements (fp4: 2 per byte, fp6/bf6: 4 per 3 bytes) move in whole
 * bytes: every access of a copy of view t (n elements, contiguous in runs of
 * run, `force` per access when an atom fixes it) must start on a byte and
 * cover whole bytes. Checked on the static strides and the offsets whose
 * residue the index arithmetic shows; run-time strides and offsets are
 * assumed to keep whole bytes (docs/codegen.md). 1 if fine, else 0 after a
 * located error. */
static int
packed_ok(Cg *c, Span sp, IrRef t, unsigned n, int64_t run, unsigned force)
{
	IrTensor *T = tensor_of(c, t);
	const IrTuple *fs[32], *fd[32];
	int nf = 0, i;
	unsigned eb = ir_scalar_bits(T->elem), g = eb == 4 ? 2 : 4, per;
	const char *tn = eb == 4 ? "fp4" : "fp6/bf6";
	const char *pk = eb == 4 ? "2 per byte" : "4 per 3 bytes";
	int64_t expect = 1, off;

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
	flatten_modes(T->layout.shape, T->layout.stride, fs, fd, &nf);
	for (i = 0; i < nf; i++) {   /* past the leading contiguous modes */
		if (!fs[i]->dyn && fs[i]->value == 1)
			continue;
		if (fs[i]->dyn || fd[i]->dyn || fd[i]->value != expect || expect >= run)
			break;
		expect *= fs[i]->value;
	}
	for (; i < nf; i++)
		if (!fd[i]->dyn && !(!fs[i]->dyn && fs[i]->value == 1) && fd[i]->value % g) {
			if (!c->failed)
				diag_error(c->d, sp, "this copy would split a byte: %s elements are packed %s, and a "
				           "mode of this view has stride %lld (not a multiple of %u)", tn, pk,
				           (long long)fd[i]->value, g);
			c->failed = 1;
			return 0;
		}
	IrTensor *R = tensor_of(c, ir_tensor_root(c->f, t));
	if (R->layout.sw.b && (INT64_C(1) << R->layout.sw.m) % g) {
		if (!c->failed)
			diag_error(c->d, sp, "this copy would split a byte: %s elements are packed %s, and the "
			           "swizzle of '%s' moves runs of %lld element(s)", tn, pk, R->name ? R->name : "?",
			           (long long)(INT64_C(1) << R->layout.sw.m));
		c->failed = 1;
		return 0;
	}
	off = 0;
	for (IrRef v = t; c->f->inst[v].op == IR_OP_TVIEW && off >= 0; v = c->f->inst[v].ops[0]) {
		int64_t r = residue(c, c->f->inst[v].ops[1], g);
		off = r < 0 ? -1 : (off + r) & (g - 1);
	}
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
static IrRef
load_view(Cg *c, IrRef t, unsigned n, int64_t run, unsigned force)
{
	IrTensor *T = tensor_of(c, t);
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
	IrTensor *T = tensor_of(c, t);
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

static void copy_views(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a);
static void copy_views_pred(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a, Node *pn);
static const CgCopyAtom *inherited_atom(Cg *c, Node *n, IrRef s, IrRef d, CgCopyAtom *buf);

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
	IrTensor *T = tensor_of(c, t), *R = tensor_of(c, root);
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
				if (c->k->params[i]->type && is_unsigned(c->k->params[i]->type->scalar))
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

/* a zero of type t (scalar or vector) */
static IrRef
zero_of(Cg *c, IrType t)
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
	    tensor_of(c, ir_tensor_root(c->f, d))->space == IR_SPACE_LDS) {
		c->pipe_q[c->pipe_slot] = *v;
		return 1;
	}
	return 0;
}

/* copy([tiled], src, dst [, pred=p]) between a view and a register fragment */
static void
copy(Cg *c, Node *n)
{
	int na = n->u.call.args.n;
	Node *sn, *dn, *pn = NULL;
	IrRef s, d, all = 0;

	if (na < 2 || na > 3) {
		unsupported(c, n->span, "this copy");
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
	if (!(s = expr(c, sn)) || !(d = expr(c, dn)))
		return;
	Node *dr = dn;      /* a retiled destination: the copy rebinds the fragment it names */
	dn = unretile(dn);
	CgCopyAtom abuf;
	const CgCopyAtom *atom = copy_atom_of(n, &abuf);
	if (!atom && na == 2 && !(atom = inherited_atom(c, n, s, d, &abuf)) && c->failed)
		return;
	int s_view = is_tensor_val(c, s), d_view = is_tensor_val(c, d);
	if (s_view && d_view) {
		c->b.loc = loc_of(c, n->span);
		if (pn)
			copy_views_pred(c, n, s, d, atom, pn);
		else
			copy_views(c, n, s, d, atom);
		return;
	}
	if (s_view == d_view || (s_view && !(dn->kind == E_NAME && dn->u.name.sym))) {
		unsupported(c, n->span, "a copy other than between a tensor view and a register fragment");
		return;
	}
	IrRef view = s_view ? s : d;
	int64_t nel = view_size(c, view);
	if (nel <= 0) {
		unsupported(c, n->span, "a copy of a view without a static size");
		return;
	}
	if (frag_limit(c, n->span, "this copy", nel))
		return;
	IrTensor *T = tensor_of(c, view);
	unsigned nn = (unsigned)nel;
	IrType vt = nn > 1 ? ir_vec(T->elem, nn) : ir_ty(T->elem);
	int64_t vec = contiguous(c, view);
	unsigned force = 0;
	if (atom && !(force = atom_piece(c, n, atom, view, nn, vec, s_view)))
		return;
	if (ir_scalar_packed(T->elem) && pn) {
		unsupported(c, n->span, "a predicated copy of fp4/fp6/bf6 elements (packed below a byte)");
		return;
	}
	if (!packed_ok(c, n->span, view, nn, vec, force))
		return;
	if (!s_view) {
		if (c->f->inst[s].ty.lanes != vt.lanes) {
			unsupported(c, n->span, "a copy between shapes of different sizes");
			return;
		}
		s = to_type(c, s, vt);
	} else if (dr != dn && !ir_ty_eq(c->f->inst[d].ty, vt)) {
		if (!c->failed)
			diag_error(c->d, dr->span, "the retiled fragment has %u values, but this thread's part of the "
			           "source has %u", c->f->inst[d].ty.lanes, nn);
		c->failed = 1;
		return;
	}
	c->b.loc = loc_of(c, n->span);
	if (atom && (atom->kind == CG_COPY_DS_TR || atom->kind == CG_COPY_GLOBAL_TR)) {
		if (pn) {
			unsupported(c, n->span, atom->kind == CG_COPY_DS_TR ? "a predicated transposed LDS read"
			                                                  : "a predicated transposed global load");
			return;
		}
		bind(c, dn->u.name.sym, ir_b_ld_tr(&c->b, s, vt, (int)atom->elem_bits));
		return;
	}
	if (!pn) {
		if (s_view)
			bind(c, dn->u.name.sym, load_view(c, s, nn, vec, force));
		else if (!pipe_defer(c, d, &s))
			store_view(c, d, s, nn, vec, force);
		return;
	}
	/* predicated: all values in range -> the vector path; else element by
	 * element, each value's predicate computed where it is used */
	if (!(all = pred_at(c, pn, PRED_ALL, nn)))
		return;
	if (s_view) {
		IrRef old = lookup(c, dn->u.name.sym);
		if (!old || !ir_ty_eq(c->f->inst[old].ty, vt)) {
			unsupported(c, dn->span, "a predicated copy into a fragment of another shape");
			return;
		}
		IrRef iff = ir_b_if(&c->b, all, 1, &vt);
		IrRef fast = load_view(c, s, nn, vec, force);
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
		bind(c, dn->u.name.sym, ir_b_proj(&c->b, iff, 0));
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

/* A view used as a value (convert<f32>(xr), xr * 2, ...) is loaded whole. */
static IrRef
value_of(Cg *c, IrRef r, Span s)
{
	int64_t n;
	if (!r || !is_tensor_val(c, r))
		return r;
	if (tensor_of(c, ir_tensor_root(c->f, r))->space == IR_SPACE_IDENTITY ||
	    (n = view_size(c, r)) <= 0) {
		unsupported(c, s, "using this tensor as a value");
		return 0;
	}
	if (frag_limit(c, s, "using this tensor as a value", n))
		return 0;
	if (!packed_ok(c, s, r, (unsigned)n, contiguous(c, r), 0))
		return 0;
	return load_view(c, r, (unsigned)n, contiguous(c, r), 0);
}

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

/* reduce(op, v, over=thread|lanes|wave|workgroup [, width=n]) and sum(v) */
static IrRef
reduce(Cg *c, Node *n, int is_sum)
{
	const char *scope = "thread";
	int op = B_ADD;
	Node *vn = n->u.call.args.v[is_sum ? 0 : 1];
	unsigned width = 0;
	IrRef x;

	if (!is_sum) {
		Node *on = n->u.call.args.v[0];
		if (on->kind != E_NAME) {
			unsupported(c, on->span, "this reduction operator");
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
	if (!(x = value_of(c, expr(c, vn), vn->span)))
		return 0;
	if (!red_op(c, op, x, x)) {
		unsupported(c, n->span, "this reduction operator");
		return 0;
	}
	x = red_thread(c, op, x);
	if (!strcmp(scope, "thread"))
		return x;
	if (ir_scalar_bits((IrScalar)c->f->inst[x].ty.kind) != 32) {
		unsupported(c, n->span, "a cross-lane reduction of a value that is not 32-bit");
		return 0;
	}
	if (!strcmp(scope, "lanes")) {
		if (!width || (width & (width - 1)) || width > 32) {
			unsupported(c, n->span, "a lane reduction width that is not a power of two up to 32");
			return 0;
		}
		return red_lanes(c, op, x, width, 0);
	}
	x = red_lanes(c, op, x, 32, 1);
	if (!strcmp(scope, "wave"))
		return x;
	if (strcmp(scope, "workgroup")) {
		unsupported(c, n->span, "this reduction scope");
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

/* named argument NAME of call n, or NULL */
static Node *
named_arg(Node *n, const char *name)
{
	for (int i = 0; i < n->u.call.named.n; i++)
		if (!strcmp(n->u.call.named.v[i]->name, name))
			return n->u.call.named.v[i]->value;
	return NULL;
}

/* the node a lazily bound name stands for (tiled copies, their slices) */
static Node *
lazy_of(Cg *c, Node *n)
{
	return n->kind == E_NAME && n->u.name.sym ? lookup_lazy(c, n->u.name.sym) : NULL;
}

/* The tiled_copy(...) call that BASE (a thread copy slice: a name bound to
 * tc.slice(i), or the call itself) slices, and *SLICE_CALL the slice call; NULL
 * when it is not one. */
static Node *
tiled_copy_of(Cg *c, Node *base, Node **slice_call)
{
	Node *sl = lazy_of(c, base), *tc;
	if (!sl)
		sl = base;
	*slice_call = sl;
	if (sl->kind != E_CALL || sl->u.call.callee->kind != E_MEMBER ||
	    sl->u.call.callee->u.member.method != M_SLICE || sl->u.call.args.n != 1)
		return NULL;
	tc = lazy_of(c, sl->u.call.callee->u.member.base);
	if (!tc)
		tc = sl->u.call.callee->u.member.base;
	if (tc->kind != E_CALL || tc->u.call.callee->kind != E_NAME || cg_builtin(tc->u.call.callee) != B_TILED_COPY)
		return NULL;
	return tc;
}

/* whether n is thr_mma.fragment_A/B/C(...) */
static int
is_fragment_call(const Node *n)
{
	int m;
	if (n->kind != E_CALL || n->u.call.callee->kind != E_MEMBER)
		return 0;
	m = n->u.call.callee->u.member.method;
	return m == M_FRAGMENT_A || m == M_FRAGMENT_B || m == M_FRAGMENT_C;
}

/* the fragment_X call that made the fragment e names (through convert<T>), or NULL */
static Node *
frag_origin(Cg *c, Node *e)
{
	while (e->kind == E_CONVERT)
		e = e->u.convert.x;
	if (e->kind != E_NAME || !e->u.name.sym)
		return NULL;
	for (Binding *b = c->env; b; b = b->next)
		if (b->sym == e->u.name.sym && b->frag)
			return b->frag;
	return NULL;
}

/* slice.partition_S(T) / partition_D(T) of tiled_copy(atom, threads=L, values=V):
 * as CuTe's make_tiled_copy (raked product), thread i at thread coordinate
 * t (L(t) = i) owns element c_k = t_k * V_k + v_k of each tile of
 * size T_k * V_k, for every value coordinate v of V; the tiles repeat over
 * T. The result is a view of shape (V, R_0, R_1, ...) with R_k the number of
 * tiles along mode k. L must be a compact layout (a permutation of the
 * thread indices) and T's modes leaves. */
static IrRef
partition(Cg *c, Node *n, Node *slice_call, Node *tc, Node *tn)
{
	Node *thr = named_arg(tc, "threads"), *val = named_arg(tc, "values");
	IrLayout L, V;
	IrRef t, idx, off;
	IrTensor *T;
	int r;

	if (!thr || !val || layout_of(c, thr, &L) || layout_of(c, val, &V) || L.sw.b || V.sw.b ||
	    !ir_tuple_is_static(L.shape) || !ir_tuple_is_static(L.stride) || !ir_tuple_is_static(V.shape)) {
		unsupported(c, tc->span, "a tiled copy without static threads= and values= layouts");
		return 0;
	}
	if (!(t = expr(c, tn)) || !(idx = expr(c, slice_call->u.call.args.v[0])))
		return 0;
	if (!is_tensor_val(c, t)) {
		unsupported(c, tn->span, "partitioning this value");
		return 0;
	}
	T = tensor_of(c, t);
	r = ir_tuple_rank(T->layout.shape);
	if (r != ir_tuple_rank(L.shape) || r != ir_tuple_rank(V.shape) || r > 4) {
		unsupported(c, n->span, "a partition whose ranks differ from the tiled copy's");
		return 0;
	}
	/* L compact: sorted by stride, each stride is the product of the smaller modes' sizes */
	int64_t ts[4], td[4], vs[4];
	for (int k = 0; k < r; k++) {
		IrTuple *a = mode_of(L.shape, k), *b = mode_of(L.stride, k), *v = mode_of(V.shape, k);
		if (a->n || b->n || v->n) {
			unsupported(c, n->span, "nested thread or value layouts in a tiled copy");
			return 0;
		}
		ts[k] = a->value; td[k] = b->value; vs[k] = v->value;
		if (ts[k] < 1 || vs[k] < 1) {
			diag_error(c->d, (ts[k] < 1 ? thr : n)->span, "the %s layout of a tiled copy needs extents of "
			           "at least 1 (mode %d is %lld)", ts[k] < 1 ? "thread" : "value", k,
			           (long long)(ts[k] < 1 ? ts[k] : vs[k]));
			c->failed = 1;
			return 0;
		}
	}
	{
		int64_t covered = 1;
		for (int step = 0; step < r; step++) {
			int found = -1;
			for (int k = 0; k < r; k++)
				if (td[k] == covered)
					found = k;
			if (found < 0) {
				unsupported(c, thr->span, "a thread layout that is not a compact permutation");
				return 0;
			}
			covered *= ts[found];
		}
	}
	IrType ot = off_type(c, t);
	IrType i32 = ir_ty(IR_I32);
	IrTuple *s[8], *d[8];
	int ns = 0;
	IrTuple *vsh[4], *vst[4];
	off = ir_b_const(&c->b, ot, 0);
	idx = to_type(c, idx, i32);
	for (int k = 0; k < r; k++) {
		IrTuple *sm = mode_of(T->layout.shape, k), *dm = mode_of(T->layout.stride, k);
		if (sm->n) {
			unsupported(c, tn->span, "partitioning a tensor with nested modes");
			return 0;
		}
		/* thread coordinate t_k = (idx / stride_k) % size_k */
		IrRef tk = ir_b_bin(&c->b, IR_OP_REM, ir_b_bin(&c->b, IR_OP_DIV, idx, ir_b_const(&c->b, i32, td[k])),
		                    ir_b_const(&c->b, i32, ts[k]));
		IrRef e = ir_b_bin(&c->b, IR_OP_MUL, to_type(c, tk, ot), ir_b_const(&c->b, ot, vs[k]));
		off = ir_b_bin(&c->b, IR_OP_ADD, off, ir_b_bin(&c->b, IR_OP_MUL, e, leaf_val(c, dm, ot)));
		vsh[k] = ir_tuple_int(c->m, vs[k]);
		vst[k] = dm;
	}
	/* the value mode, then one repeat mode per tensor mode */
	IrLayout vm = layout_of_modes(c, vsh, vst, r);
	s[ns] = vm.shape; d[ns++] = vm.stride;
	for (int k = 0; k < r; k++) {
		IrTuple *sm = mode_of(T->layout.shape, k), *dm = mode_of(T->layout.stride, k);
		int64_t tile = ts[k] * vs[k];
		if (sm->dyn) {
			unsupported(c, tn->span, "partitioning a tensor with a run-time extent");
			return 0;
		}
		if (sm->value % tile) {
			unsupported(c, tn->span, "a tensor whose extent is not a multiple of the tiled copy's tile");
			return 0;
		}
		s[ns] = ir_tuple_int(c->m, sm->value / tile);
		d[ns++] = scale(c, dm, ir_tuple_int(c->m, tile));
	}
	IrRef v = ir_b_tensor_view(&c->b, t, off, layout_of_modes(c, s, d, ns));
	Node *an = tc->u.call.args.n ? tc->u.call.args.v[0] : NULL;
	if (an && an->type && an->type->atom) {
		if (v >= c->npart_atom) {
			uint32_t nn = c->f->capinst > v ? c->f->capinst : v + 1;
			const Node **na = ir_alloc(c->m, nn * sizeof *na);
			if (c->npart_atom)
				memcpy(na, c->part_atom, c->npart_atom * sizeof *na);
			c->part_atom = na;
			c->npart_atom = nn;
		}
		c->part_atom[v] = an->type->atom;
	}
	return v;
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
	const Node *ns = is_tensor_val(c, s) ? partition_atom(c, s) : NULL;
	const Node *nd = is_tensor_val(c, d) ? partition_atom(c, d) : NULL;
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

/* copy(global_load_lds_bN | buffer_load_lds_bN, global view, LDS view): one
 * load straight to LDS per thread. The hardware puts lane l's bits at
 * M0 + l * stride (4 bytes for b32, 16 for b96/b128), so the destination
 * layout must place each thread there: checked for every thread of the
 * workgroup (a located error otherwise). */
static void
copy_lds_dma(Cg *c, Node *n, const CgCopyAtom *a, IrRef s, IrRef d, unsigned ns, int64_t rs, int64_t rd)
{
	IrTensor *D = tensor_of(c, ir_tensor_root(c->f, d));
	unsigned block = c->f->block[0] * c->f->block[1] * c->f->block[2];
	unsigned stride = a->bits == 32 ? 4 : 16;
	char why[240];
	int ok;

	if (!atom_piece(c, n, a, s, ns, rs, 1))
		return;
	if (D->space != IR_SPACE_LDS || rd % ns) {
		if (!c->failed)
			diag_error(c->d, n->span, "copy atom '%s' cannot do this copy: its destination must be %u "
			           "contiguous elements in LDS", a->name, ns);
		c->failed = 1;
		return;
	}
	if (c->f->block[1] > 1 || c->f->block[2] > 1) {
		unsupported(c, n->span, "a load straight to LDS in a workgroup that is not one-dimensional");
		return;
	}
	ok = cg_lds_dma_placement(c->f, d, block, 64, stride, why, sizeof why);
	if (ok != 1) {
		if (!c->failed)
			diag_error(c->d, n->span, "copy atom '%s' cannot do this copy: %s", a->name, why);
		c->failed = 1;
		return;
	}
	ir_b_lds_dma(&c->b, s, d, (int)(a->bits / 8), (int)stride);
}

/* copy between two views of equal static size, element order colexicographic */
static void
copy_views(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a)
{
	int64_t ns = view_size(c, s), nd = view_size(c, d);
	if (ns <= 0 || ns != nd) {
		unsupported(c, n->span, "a copy between views of different or run-time sizes");
		return;
	}
	if (frag_limit(c, n->span, "this copy", ns))
		return;
	if (tensor_of(c, s)->elem != tensor_of(c, d)->elem) {
		unsupported(c, n->span, "a copy between element types");
		return;
	}
	int64_t rs = contiguous(c, s), rd = contiguous(c, d);
	unsigned fs = 0, fd = 0;
	if (a && a->kind == CG_COPY_LDS_DMA) {
		unsigned per = ir_scalar_bits(tensor_of(c, s)->elem) ? a->bits / ir_scalar_bits(tensor_of(c, s)->elem) : 0;
		if (!packed_ok(c, n->span, s, (unsigned)ns, rs, per) || !packed_ok(c, n->span, d, (unsigned)ns, rd, per))
			return;
		copy_lds_dma(c, n, a, s, d, (unsigned)ns, rs, rd);
		return;
	}
	if (a && !(a->load ? (fs = atom_piece(c, n, a, s, (unsigned)ns, rs, 1))
	                   : (fd = atom_piece(c, n, a, d, (unsigned)ns, rd, 0))))
		return;
	if (!packed_ok(c, n->span, s, (unsigned)ns, rs, fs) || !packed_ok(c, n->span, d, (unsigned)ns, rd, fd))
		return;
	IrRef v = c->pipe_split == 2 ? 0 : load_view(c, s, (unsigned)ns, rs, fs);
	if (!pipe_defer(c, d, &v))
		store_view(c, d, v, (unsigned)ns, rd, fd);
}

/* The split path of a predicated copy into LDS: per source access (the
 * atom's or the run's width, e.g. 8 bf16 for buffer_load_b128), the whole
 * access when all its values are in range, else value by value with zero
 * for the out-of-range ones; then the destination written whole (every LDS
 * element gets a value, so its vector stores stay). */
static void
split_zfill(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a, Node *pn, unsigned nn, IrRef zero)
{
	IrTensor *S = tensor_of(c, s);
	IrType et = ir_ty(S->elem), i32 = ir_ty(IR_I32);
	int64_t rs = contiguous(c, s), rd = contiguous(c, d);
	unsigned fs = a && a->load ? atom_piece(c, n, a, s, nn, rs, 1) : 0;
	unsigned fd = a && !a->load ? atom_piece(c, n, a, d, nn, rd, 0) : 0;
	unsigned piece = fs ? fs : piece_of(S->elem, nn, rs);
	IrRef acc = nn > 1 ? ir_b_splat(&c->b, ir_vec(S->elem, nn), zero) : zero;

	if (c->failed || !piece)
		return;
	for (unsigned j = 0; j < nn; j += piece) {
		IrType pt = piece > 1 ? ir_vec(S->elem, piece) : et;
		IrRef pe[16], all = 0, co = ir_b_const(&c->b, i32, j), r;
		for (unsigned e = 0; e < piece && e < 16; e++) {
			if (!(pe[e] = pred_at(c, pn, (int)(j + e), nn)))
				return;
			all = all ? ir_b_bin(&c->b, IR_OP_AND, all, pe[e]) : pe[e];
		}
		IrRef iff = ir_b_if(&c->b, all, 1, &pt);
		r = ir_b_tload(&c->b, s, piece, 1, &co);
		ir_b_yield(&c->b, 1, &r);
		ir_b_else(&c->b);
		IrRef part = piece > 1 ? ir_b_splat(&c->b, pt, zero) : zero;
		for (unsigned e = 0; e < piece; e++) {
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
 * the edge is so split, never refused. Loads straight to LDS and packed
 * (sub-byte) elements are refused. */
static void
copy_views_pred(Cg *c, Node *n, IrRef s, IrRef d, const CgCopyAtom *a, Node *pn)
{
	int64_t ns = view_size(c, s);
	IrRef all;
	IrTensor *S = tensor_of(c, s);
	int zfill = tensor_of(c, ir_tensor_root(c->f, d))->space == IR_SPACE_LDS;

	if (a && a->kind == CG_COPY_LDS_DMA) {
		unsupported(c, n->span, "a predicated load straight to LDS (use a buffer load and an LDS store)");
		return;
	}
	if (ir_scalar_packed(S->elem)) {
		unsupported(c, n->span, "a predicated copy of fp4/fp6/bf6 elements (packed below a byte)");
		return;
	}
	if (ns <= 0 || ns != view_size(c, d) || frag_limit(c, n->span, "this copy", ns)) {
		if (!c->failed)
			unsupported(c, n->span, "a copy between views of different or run-time sizes");
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

/* fragment_like(T [, ELEM]): a zeroed register vector of T's static size */
static IrRef
fragment_like(Cg *c, Node *n)
{
	IrRef t = expr(c, n->u.call.args.v[0]), z;
	IrScalar el;
	int64_t sz;

	if (!t)
		return 0;
	if (!is_tensor_val(c, t) || (sz = view_size(c, t)) <= 0 ||
	    !n->type || !scalar_of(n->type->scalar, &el)) {
		unsupported(c, n->span, "fragment_like of a view without a static size");
		return 0;
	}
	if (frag_limit(c, n->span, "this fragment_like", sz))
		return 0;
	z = ir_ty_is_float(ir_ty(el)) ? ir_b_fconst(&c->b, ir_ty(el), 0) : ir_b_const(&c->b, ir_ty(el), 0);
	return sz > 1 ? ir_b_splat(&c->b, ir_vec(el, (unsigned)sz), z) : z;
}

static IrRef
call(Cg *c, Node *n)
{
	Node *cal = n->u.call.callee;
	int bid = cg_builtin(cal);
	int na = n->u.call.args.n, ok = 1;
	IrRef a[3] = { 0 };

	{
		int handled = 0;
		IrRef r = cg_mma_call(c, n, &handled);
		if (handled)
			return r;
	}
	if (bid < 0 && cal->kind == E_MEMBER &&
	    (cal->u.member.method == M_PARTITION_S || cal->u.member.method == M_PARTITION_D) && na == 1) {
		Node *sl, *tc = tiled_copy_of(c, cal->u.member.base, &sl), *of = tc ? named_arg(tc, "of") : NULL;
		CgCopyAtom ca;
		if (!tc) {
			unsupported(c, n->span, "partitions of this kind of slice");
			return 0;
		}
		if (!of)
			return partition(c, n, sl, tc, n->u.call.args.v[0]);
		/* tiled_copy(atom, of=mma.X): the MMA operand's partition */
		IrRef t = expr(c, n->u.call.args.v[0]), idx = t ? expr(c, sl->u.call.args.v[0]) : 0;
		if (!idx)
			return 0;
		if (!tc->type || !cg_copy_atom(tc->type->atom, &ca)) {
			unsupported(c, tc->span, "this copy atom");
			return 0;
		}
		return cg_mma_copy_partition(c, n, of, &ca, t, idx, cal->u.member.method == M_PARTITION_S);
	}
	if (bid < 0 && cal->kind == E_MEMBER &&
	    (cal->u.member.method == M_RETILE_S || cal->u.member.method == M_RETILE_D) && na == 1) {
		Node *sl, *tc = tiled_copy_of(c, cal->u.member.base, &sl), *of = tc ? named_arg(tc, "of") : NULL;
		IrRef v;
		if (!of) {
			unsupported(c, n->span, "retile_S/retile_D of a tiled copy without of=mma.A|B|C");
			return 0;
		}
		if (!(v = expr(c, n->u.call.args.v[0])))
			return 0;
		return cg_mma_retile(c, n, of, frag_origin(c, n->u.call.args.v[0]), v);
	}
	if (bid < 0) {
		unsupported(c, n->span, "this call");
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
			return local_partition(c, n);
		return cg_view_op(c, n, builtins[bid].name);
	}
	if ((bid == B_LOGICAL_DIVIDE || bid == B_ZIPPED_DIVIDE || bid == B_TILED_DIVIDE ||
	     bid == B_FLAT_DIVIDE || bid == B_COMPOSITION) && na == 2 &&
	    n->u.call.args.v[0]->type && n->u.call.args.v[0]->type->kind == TY_TENSOR)
		return cg_view_op(c, n, builtins[bid].name);
	if (bid == B_IDENTITY && na == 1)
		return make_identity(c, n);
	if (bid == B_FRAGMENT_LIKE && (na == 1 || na == 2))
		return fragment_like(c, n);
	if (bid == B_COPY) {
		copy(c, n);
		return (IrRef)-1;
	}
	if (bid == B_REDUCE && na == 2)
		return reduce(c, n, 0);
	if (bid == B_SUM && na == 1)
		return reduce(c, n, 1);
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
				unsupported(c, p->span, "this wait counter");
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
			unsupported(c, n->span, "this sched_barrier kind");
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
			unsupported(c, n->span, "this sched_group form");
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
		IrRef x = value_of(c, expr(c, n->u.call.args.v[0]), n->u.call.args.v[0]->span);
		if (!x)
			return 0;
		x = to_type(c, x, ir_ty(IR_F32));
		return ir_b_inst(&c->b, IR_OP_BITCAST, ir_ty(IR_I32), 1, &x);
	}
	if (na == 2 && bid == B_SHFL_XOR) {
		IrRef x = value_of(c, expr(c, n->u.call.args.v[0]), n->u.call.args.v[0]->span);
		IrRef m = x ? value_of(c, expr(c, n->u.call.args.v[1]), n->u.call.args.v[1]->span) : 0;
		if (!m)
			return 0;
		return ir_b_shfl_xor(&c->b, x, to_type(c, m, ir_ty(IR_I32)));
	}
	{   /* popcount, clz, ctz, bitcast, order_key, order_key_inv (codegen_math.c) */
		int bits;
		IrRef y = cg_bits(c, n, bid, &bits);
		if (bits)
			return y;
	}
	if (na > 3) {
		unsupported(c, n->span, "this call");
		return 0;
	}
	IrType rt = type_of(c, n, &ok);
	if (!ok) {
		unsupported(c, n->span, "this call");
		return 0;
	}
	if (bid == B_SELECT && na == 3) {
		IrRef cnd = expr(c, n->u.call.args.v[0]);
		IrRef x = cnd ? expr(c, n->u.call.args.v[1]) : 0;
		IrRef y = x ? expr(c, n->u.call.args.v[2]) : 0;
		IrRef ops[3] = { cnd, x, y };
		IrType ct = ir_ty(IR_I1);
		if (!y || !elementwise(c, n->span, &rt, ops, 3) || !elementwise(c, n->span, &ct, ops, 3))
			return 0;
		return ir_b_select(&c->b, to_type(c, cnd, ct), to_type(c, x, rt), to_type(c, y, rt));
	}
	for (int i = 0; i < na; i++)
		if (!(a[i] = value_of(c, expr(c, n->u.call.args.v[i]), n->u.call.args.v[i]->span)))
			return 0;
	/* fragments and scalars mix elementwise: the scalars are broadcast */
	if (!elementwise(c, n->span, &rt, a, na))
		return 0;
	for (int i = 0; i < na; i++)
		a[i] = to_type(c, a[i], rt);
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
static IrRef
arith(Cg *c, Span sp, AstOp op, IrRef l, IrRef r, IrType rt, int uns)
{
	IrRef lr[2] = { l, r };
	if (!elementwise(c, sp, &rt, lr, 2))
		return (IrRef)-1;
	l = to_type(c, l, rt);
	r = to_type(c, r, rt);
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

static IrRef
expr(Cg *c, Node *n)
{
	int ok = 1;

	if (c->failed)
		return 0;
	c->b.loc = loc_of(c, n->span);
	/* compile-time scalars fold to constants */
	if (n->cval && (n->cval->kind == VAL_INT || n->cval->kind == VAL_BOOL || n->cval->kind == VAL_FLOAT)) {
		IrType t = type_of(c, n, &ok);
		if (!ok)
			t = n->cval->kind == VAL_FLOAT ? ir_ty(IR_F32) : n->cval->kind == VAL_BOOL ? ir_ty(IR_I1) : ir_ty(IR_I32);
		return konst(c, t, n->cval);
	}
	switch (n->kind) {
	case E_NAME: {
		Symbol *s = n->u.name.sym;
		IrRef v = s ? lookup(c, s) : 0;
		if (!v && s && s->kind == SYM_LOOP && s->node && s->node->kind == S_PIPELINE &&
		    !strcmp(s->name, "stage"))
			v = c->pipe_stage;
		if (!v)
			unsupported(c, n->span, s ? "this kind of name" : "an unresolved name");
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
		IrRef x = storage_only(n->u.unary.x) ? 0 : expr(c, n->u.unary.x);
		IrType t;
		if (storage_only(n->u.unary.x)) {
			unsupported(c, n->span, "arithmetic on fp8/bf8/fp6/bf6/fp4 or e8m0 values");
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
		IrType rt = type_of(c, n, &ok);
		IrRef l, r;
		if (!ok)
			break;
		l = value_of(c, expr(c, L), L->span);
		r = l ? value_of(c, expr(c, R), R->span) : 0;
		if (!r)
			return 0;
		c->b.loc = loc_of(c, n->span);
		if (op >= OP_EQ && op <= OP_GE) {
			/* compare in the wider operand type */
			int okl = 1, okr = 1;
			IrType lt = type_of(c, L, &okl), rt2 = type_of(c, R, &okr);
			IrType ct = ir_ty_is_float(lt) || ir_ty_is_float(rt2) ? ir_ty(IR_F32)
			          : (ir_scalar_bits((IrScalar)lt.kind) >= ir_scalar_bits((IrScalar)rt2.kind) ? lt : rt2);
			int uns = L->type && R->type && is_unsigned(L->type->scalar) && is_unsigned(R->type->scalar);
			IrRef lr[2] = { l, r };
			if (!elementwise(c, n->span, &ct, lr, 2))
				return 0;
			l = to_type(c, l, ct);
			r = to_type(c, r, ct);
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
			return ir_b_bin(&c->b, op == OP_AND ? IR_OP_AND : IR_OP_OR, to_type(c, l, bt), to_type(c, r, bt));
		}
		{
			IrRef v = arith(c, n->span, op, l, r, rt, n->type && is_unsigned(n->type->scalar));
			if (v == (IrRef)-1)
				return 0;
			if (v)
				return v;
		}
		break;
	}
	case E_CONVERT: {
		if (packed_convert(n))
			return convert_packed(c, n);
		if (storage_only(n->u.convert.x)) {
			unsupported(c, n->span, "conversion from fp8/bf8/fp6/bf6/fp4 or e8m0 values");
			return 0;
		}
		if (storage_only(n)) {
			unsupported(c, n->span, "conversion to fp8/bf8/fp6/bf6/fp4 or e8m0");
			return 0;
		}
		IrRef x = value_of(c, expr(c, n->u.convert.x), n->u.convert.x->span);
		IrType t = type_of(c, n, &ok);
		if (!x)
			return 0;
		if (!ok)
			break;
		return to_type(c, x, lanes_of(c, t, x, 0));
	}
	case E_INDEX: {
		IrRef t, co[8];
		uint32_t nc;
		for (int i = 0; i < n->u.call.args.n; i++)
			if (n->u.call.args.v[i]->kind == E_HOLE) {
				IrRef base = expr(c, n->u.call.callee);
				if (!base)
					return 0;
				if (!is_tensor_val(c, base)) {
					unsupported(c, n->span, "slicing this value");
					return 0;
				}
				return slice(c, n, base);
			}
		{
			IrRef b = expr(c, n->u.call.callee);
			uint32_t lane;
			if (!b)
				return 0;
			if (b != (IrRef)-1 && c->f->inst[b].ty.kind != IR_TENSOR && c->f->inst[b].ty.lanes > 1) {
				if (ir_scalar_packed((IrScalar)c->f->inst[b].ty.kind)) {
					unsupported(c, n->span, "reading one fp4/fp6/bf6 value of a fragment");
					return 0;
				}
				return fragment_lane(c, n, b, &lane) ? ir_b_extract(&c->b, b, lane) : 0;
			}
		}
		if (!tensor_coords(c, n, &t, co, &nc))
			return 0;
		if (ir_scalar_packed(tensor_of(c, t)->elem)) {
			unsupported(c, n->span, "reading one fp4/fp6/bf6 element (packed below a byte; copy whole bytes)");
			return 0;
		}
		c->b.loc = loc_of(c, n->span);
		return ir_b_tload(&c->b, t, 1, nc, co);
	}
	case E_CALL: {
		IrRef r = call(c, n);
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
	unsupported(c, n->span, "this expression");
	return 0;
}

/* ---- statements ---- */

/* gfx950 format code of fp6 (2), bf6 (3), fp4 (4), else 0 */
static int
packed_fmt(const Type *t)
{
	if (!t || (t->kind != TY_SCALAR && t->kind != TY_TENSOR))
		return 0;
	return t->scalar == SC_FP6 ? 2 : t->scalar == SC_BF6 ? 3 : t->scalar == SC_FP4 ? 4 : 0;
}

/* convert<fp4|fp6|bf6>(x) of a number, or convert<T>(x) of fp4/fp6/bf6 data */
static int
packed_convert(Node *n)
{
	return (packed_fmt(n->type) && !storage_only(n->u.convert.x)) ||
	       (packed_fmt(n->u.convert.x->type) && !storage_only(n));
}

static IrRef
convert_packed(Cg *c, Node *n)
{
	int to_narrow = packed_fmt(n->type) != 0;
	int fmt = to_narrow ? packed_fmt(n->type) : packed_fmt(n->u.convert.x->type);
	IrRef x = value_of(c, expr(c, n->u.convert.x), n->u.convert.x->span);
	IrScalar el;
	int ok = 1;
	if (!x)
		return 0;
	unsigned lanes = c->f->inst[x].ty.lanes, group = fmt == 4 ? 2 : 32;
	if (lanes % group || lanes > CG_MAXFRAG) {
		if (!c->failed)
			diag_error(c->d, n->span, "convert to or from %s works on fragments of a multiple of %u elements "
			           "(gfx950 converts %s), and this one has %u", fmt == 4 ? "fp4" : fmt == 2 ? "fp6" : "bf6",
			           group, fmt == 4 ? "pairs" : "groups of 32", lanes);
		c->failed = 1;
		return 0;
	}
	c->b.loc = loc_of(c, n->span);
	if (to_narrow) {
		scalar_of(n->type->scalar, &el);
		x = to_type(c, x, ir_vec(IR_F32, lanes));
		return ir_b_cvt_pk(&c->b, ir_vec(el, lanes), x, fmt);
	}
	IrType t = type_of(c, n, &ok);
	if (!ok) {
		unsupported(c, n->span, "this conversion");
		return 0;
	}
	x = ir_b_cvt_pk(&c->b, ir_vec(IR_F32, lanes), x, fmt);
	return to_type(c, x, ir_vec((IrScalar)t.kind, lanes));
}

static void stmt(Cg *c, Node *n);

/* let (a, b, ...) = idx2crd(i, (S0, S1, ...)): colexicographic split of a
 * run-time index by a flat shape (the last coordinate takes the rest). */
static void
destructure(Cg *c, Node *pat, Node *init)
{
	Node *cal = init->kind == E_CALL ? init->u.call.callee : NULL;
	Node *shp;
	IrRef i;

	if (!cal || cal->kind != E_NAME || cg_builtin(cal) != B_IDX2CRD || init->u.call.args.n != 2) {
		unsupported(c, pat->span, "destructuring this value");
		return;
	}
	shp = init->u.call.args.v[1];
	if (shp->kind != E_TUPLE || shp->u.list.n != pat->u.list.n) {
		unsupported(c, shp->span, "idx2crd with a shape that is not a flat tuple of the pattern's size");
		return;
	}
	if (!(i = expr(c, init->u.call.args.v[0])))
		return;
	i = to_type(c, i, ir_ty(IR_I32));
	for (int k = 0; k < pat->u.list.n && !c->failed; k++) {
		Node *pk = pat->u.list.v[k];
		IrRef ck = i;
		if (k + 1 < pat->u.list.n) {
			IrRef sz = expr(c, shp->u.list.v[k]);
			if (!sz)
				return;
			sz = to_type(c, sz, ir_ty(IR_I32));
			ck = ir_b_bin(&c->b, IR_OP_REM, i, sz);
			i = ir_b_bin(&c->b, IR_OP_DIV, i, sz);
		}
		if (pk->kind == E_NAME && pk->u.name.sym)
			bind(c, pk->u.name.sym, ck);
		else if (pk->kind != E_HOLE) {
			unsupported(c, pk->span, "a nested binding pattern");
			return;
		}
	}
}

static void
block(Cg *c, Node *n)
{
	Binding *saved = c->env;

	if (n->kind != S_BLOCK) {
		stmt(c, n);
		return;
	}
	for (int i = 0; i < n->u.block.n && !c->failed; i++)
		stmt(c, n->u.block.v[i]);
	/* let-bindings of the block go out of scope; variables assigned in it
	 * keep their newest value (rebound by the caller via collect_assigned) */
	(void)saved;
}

/* copy(src, x) into a register fragment variable x rebinds x (copy() below):
 * it is an assignment of x, like gemm's accumulator and fill's fragment */
static Symbol *
copy_assigned(Node *e)
{
	if (!e || e->kind != E_CALL || e->u.call.callee->kind != E_NAME || e->u.call.args.n < 2 ||
	    e->u.call.args.n > 3 || cg_builtin(e->u.call.callee) != B_COPY)
		return NULL;
	Node *d = e->u.call.args.v[e->u.call.args.n - 1];
	return d->kind == E_NAME && d->u.name.sym && d->u.name.sym->kind == SYM_VAR ? d->u.name.sym : NULL;
}

/* variables (declared outside n) assigned somewhere inside n */
static void
collect_assigned(Node *n, Symbol **out, int *nout, int max)
{
	if (!n)
		return;
	switch (n->kind) {
	case S_BLOCK:
		for (int i = 0; i < n->u.block.n; i++)
			collect_assigned(n->u.block.v[i], out, nout, max);
		return;
	case S_ASSIGN: {
		Node *l = n->u.assign.lhs;
		/* v[i] = e on a register fragment var replaces v's value too */
		if (l->kind == E_INDEX && l->u.call.callee->kind == E_NAME) {
			Symbol *fs = l->u.call.callee->u.name.sym;
			if (fs && fs->kind == SYM_VAR && fs->type && fs->type->kind == TY_TENSOR &&
			    fs->type->space == SPACE_REG)
				l = l->u.call.callee;
		}
		if (l->kind == E_NAME && l->u.name.sym && l->u.name.sym->kind == SYM_VAR) {
			for (int i = 0; i < *nout; i++)
				if (out[i] == l->u.name.sym)
					return;
			if (*nout < max)
				out[(*nout)++] = l->u.name.sym;
		}
		return;
	}
	case S_EXPR: {
		Symbol *sym = cg_mma_assigned(n->u.expr);
		if (!sym)
			sym = copy_assigned(n->u.expr);
		if (sym) {
			for (int i = 0; i < *nout; i++)
				if (out[i] == sym)
					return;
			if (*nout < max)
				out[(*nout)++] = sym;
		}
		return;
	}
	case S_IF:
		collect_assigned(n->u.if_.then, out, nout, max);
		collect_assigned(n->u.if_.els, out, nout, max);
		return;
	case S_FOR:
		collect_assigned(n->u.for_.body, out, nout, max);
		return;
	case S_WHILE:
		collect_assigned(n->u.while_.body, out, nout, max);
		return;
	default:
		return;
	}
}

enum { MAXCARRY = 32 };

static void
stmt_if(Cg *c, Node *n)
{
	Symbol *vars[MAXCARRY];
	int nv = 0;
	IrRef cond, iff, ys[MAXCARRY];
	IrType tys[MAXCARRY];
	Binding *saved;

	/* a condition the checker folded (compile-time parameters, constants):
	 * only the taken branch is lowered, straight-line */
	if (n->u.if_.cond->cval && n->u.if_.cond->cval->kind == VAL_BOOL) {
		Node *taken = n->u.if_.cond->cval->i ? n->u.if_.then : n->u.if_.els;
		if (taken)
			block(c, taken);
		return;
	}
	collect_assigned(n, vars, &nv, MAXCARRY);
	/* only variables declared outside (bound now) flow out of the branches;
	 * a variable naming a tensor view is stored into, never rebound */
	for (int i = 0, j = 0; i < nv; i++) {
		IrRef v = lookup(c, vars[i]);
		if (v && !is_tensor_val(c, v))
			vars[j++] = vars[i];
		if (i + 1 == nv)
			nv = j;
	}
	for (int i = 0; i < nv; i++)
		tys[i] = c->f->inst[lookup(c, vars[i])].ty;
	cond = expr(c, n->u.if_.cond);
	if (!cond)
		return;
	cond = to_type(c, cond, ir_ty(IR_I1));
	c->b.loc = loc_of(c, n->span);
	iff = ir_b_if(&c->b, cond, (uint32_t)nv, tys);
	saved = c->env;
	block(c, n->u.if_.then);
	if (c->failed)
		return;
	for (int i = 0; i < nv; i++)
		ys[i] = lookup(c, vars[i]);
	ir_b_yield(&c->b, (uint32_t)nv, ys);
	c->env = saved;
	ir_b_else(&c->b);
	if (n->u.if_.els)
		block(c, n->u.if_.els);
	if (c->failed)
		return;
	for (int i = 0; i < nv; i++)
		ys[i] = lookup(c, vars[i]);
	ir_b_yield(&c->b, (uint32_t)nv, ys);
	c->env = saved;
	ir_b_end(&c->b);
	for (int i = 0; i < nv; i++)
		bind(c, vars[i], ir_b_proj(&c->b, iff, (unsigned)i));
}

/* The variables a loop body assigns that are bound outside it (declared before
 * the loop): these are carried. Fills vars and their current values inits;
 * returns how many. */
static int
carried(Cg *c, Node *body, Symbol **vars, IrRef *inits)
{
	int nv = 0, j = 0;

	collect_assigned(body, vars, &nv, MAXCARRY);
	for (int i = 0; i < nv; i++)
		if ((inits[j] = lookup(c, vars[i])) && !is_tensor_val(c, inits[j]))
			vars[j++] = vars[i];
	return j;
}

/* Ends a loop body: yields the carried variables (converted to their initial
 * types), closes the loop, restores the outer bindings and rebinds each
 * carried variable to the loop's result. */
static void
close_loop(Cg *c, IrRef loop, Symbol **vars, const IrRef *inits, int nv, Binding *saved)
{
	IrRef ys[MAXCARRY] = { 0 };

	for (int i = 0; i < nv; i++)
		ys[i] = to_type(c, lookup(c, vars[i]), c->f->inst[inits[i]].ty);
	ir_b_yield(&c->b, (uint32_t)nv, ys);
	ir_b_end(&c->b);
	c->env = saved;
	for (int i = 0; i < nv; i++)
		bind(c, vars[i], ir_b_proj(&c->b, loop, (unsigned)i));
}

/* static for: the body once per iteration, the variable a constant in each
 * copy (docs/language.md §7), so that schedule controls in the body
 * (sched_group, setprio) land between the instructions of their own copy
 * instead of in a loop LLVM may or may not unroll. Variables assigned in the
 * body are rebound after each copy; unrolling stops with an error once the
 * kernel passes MAXUNROLL instructions. Returns 0 (nothing emitted) when a bound
 * is not a compile-time integer; the checker makes that impossible. */
enum { MAXUNROLL = 1 << 16 };   /* IR instructions of a kernel unrolled by static for */

static int
static_for(Cg *c, Node *n, IrType it, Symbol **vars, int nv)
{
	Value *lo = n->u.for_.lo->cval, *hi = n->u.for_.hi->cval, *st = n->u.for_.step ? n->u.for_.step->cval : NULL;
	Binding *base = c->env;    /* each copy's rebindings replace the last one's */
	IrRef ys[MAXCARRY];

	if (!lo || !hi || lo->kind != VAL_INT || hi->kind != VAL_INT || (n->u.for_.step && (!st || st->kind != VAL_INT)) ||
	    (st && st->i <= 0))
		return 0;
	for (int64_t i = lo->i; i < hi->i && !c->failed; i += st ? st->i : 1) {
		if (c->f->ninst > MAXUNROLL) {
			diag_error(c->d, n->span, "unrolling this static for makes the kernel more than %d IR instructions "
			           "long (at iteration %lld); use a plain for", MAXUNROLL, (long long)i);
			c->failed = 1;
			break;
		}
		if (n->u.for_.sym)
			bind(c, n->u.for_.sym, ir_b_const(&c->b, it, i));
		block(c, n->u.for_.body);
		for (int k = 0; k < nv; k++)
			ys[k] = lookup(c, vars[k]);
		c->env = base;
		for (int k = 0; k < nv; k++)
			bind(c, vars[k], ys[k]);
	}
	return 1;
}

static void
stmt_for(Cg *c, Node *n)
{
	Symbol *vars[MAXCARRY];
	int nv = 0;
	IrRef lo, hi, step, inits[MAXCARRY], iters[MAXCARRY], iv, loop;
	Binding *saved;
	IrType it;

	nv = carried(c, n->u.for_.body, vars, inits);
	lo = expr(c, n->u.for_.lo);
	hi = lo ? expr(c, n->u.for_.hi) : 0;
	step = hi ? (n->u.for_.step ? expr(c, n->u.for_.step) : ir_b_const(&c->b, c->f->inst[lo].ty, 1)) : 0;
	if (!step)
		return;
	it = c->f->inst[lo].ty;
	if (ir_scalar_bits((IrScalar)c->f->inst[hi].ty.kind) > ir_scalar_bits((IrScalar)it.kind))
		it = c->f->inst[hi].ty;
	if (!ir_ty_is_int(it) || it.kind == IR_I1) {
		diag_error(c->d, n->span, "loop bounds must be integers");
		c->failed = 1;
		return;
	}
	lo = to_type(c, lo, it);
	hi = to_type(c, hi, it);
	step = to_type(c, step, it);
	c->b.loc = loc_of(c, n->span);
	if (n->u.for_.unroll && static_for(c, n, it, vars, nv))
		return;
	loop = ir_b_for(&c->b, lo, hi, step, (uint32_t)nv, inits, &iv, iters);
	saved = c->env;
	if (n->u.for_.sym)
		bind(c, n->u.for_.sym, iv);
	for (int i = 0; i < nv; i++)
		bind(c, vars[i], iters[i]);
	block(c, n->u.for_.body);
	if (c->failed)
		return;
	close_loop(c, loop, vars, inits, nv, saved);
}

/* one pipeline block (load or compute) for iteration k: k and stage bound;
 * KEEP: the block's assignments stay visible (compute, read by the yield) */
static void
pipe_block(Cg *c, Node *n, Node *body, IrRef k, IrRef S, int keep, int tag)
{
	Binding *saved = c->env;
	IrRef old = c->pipe_stage;
	uint32_t first = c->f->ninst;
	bind(c, n->u.pipe.sym, k);
	c->pipe_stage = ir_b_bin(&c->b, IR_OP_REM, k, S);
	block(c, body);
	c->pipe_stage = old;
	/* with 2+ slots, the load block's LDS writes and the compute block's LDS
	 * reads of one iteration touch different slots: say so to LLVM (ring_alias
	 * in lower_llvm.c) so a prefetch need not complete before the reads */
	if (tag)
		for (uint32_t r = first; r < c->f->ninst; r++) {
			IrInst *I = &c->f->inst[r];
			int lds_w = (I->op == IR_OP_TSTORE || I->op == IR_OP_LDSDMA) && body == n->u.pipe.load;
			int lds_r = (I->op == IR_OP_TLOAD || I->op == IR_OP_LDTR) && body == n->u.pipe.compute;
			if (!lds_w && !lds_r)
				continue;
			IrRef t = I->op == IR_OP_LDSDMA ? I->ops[1] : I->ops[0];
			if (tensor_of(c, ir_tensor_root(c->f, t))->space == IR_SPACE_LDS)
				I->imm[2] = tag;
		}
	if (!keep)
		c->env = saved;
}

/* 1 when load block L can be lowered twice (register-staged prefetch): its
 * statements are declarations, assignments to its own variables, assumptions
 * and copies, so lowering it again after compute repeats no side effect but
 * the LDS writes it defers */
static int
pipe_splittable(Node *l)
{
	for (int i = 0; i < l->u.block.n; i++) {
		Node *st = l->u.block.v[i], *cal;
		switch (st->kind) {
		case S_LET: case S_VAR: case S_ASSUME:
			break;
		case S_ASSIGN:
			if (st->u.assign.lhs->kind != E_NAME)
				return 0;
			break;
		case S_EXPR:
			cal = st->u.expr->kind == E_CALL ? st->u.expr->u.call.callee : NULL;
			if (!cal || cal->kind != E_NAME || cg_builtin(cal) != B_COPY)
				return 0;
			break;
		default:
			return 0;
		}
	}
	return 1;
}

/* pipeline k in lo .. hi stages S { load {L} compute {C} }:
 *   for j in 0 .. S-2:  if lo + j < hi: L(lo + j)               (prologue)
 *   for k in lo .. hi:
 *     wait(vmem=0, lds=0); barrier   L(k)'s data is in its slot for every
 *                                    thread, and every thread is done with
 *                                    C(k-1)'s slot, which L(k+S-1) refills
 *     if k + S - 1 < hi: L(k + S - 1)   (overlaps C(k); the epilogue is the
 *     C(k)                               last S-1 iterations, with no load)
 *   wait(vmem=0, lds=0); barrier     the ring may be reused after the loop
 * With S > 1 and L made of declarations and copies (pipe_splittable), L's
 * copies that write LDS through registers are split (register-staged
 * prefetch, as in CUTLASS and Triton): L(k + S - 1) before C(k) only loads
 * their values into registers (results of its if), and
 *     if k + S - 1 < hi: the LDS writes of L(k + S - 1)
 * follows C(k), so the loads' latency is covered by C(k); the slot written
 * is still (k + S - 1) % S, which C(k) does not read and which the barrier
 * of iteration k + 1 publishes. Loads straight to LDS and the copies'
 * other writes stay before C(k).
 * Variables assigned in C are carried through the loop; L may not assign
 * variables declared outside it. */
static void
stmt_pipeline(Cg *c, Node *n)
{
	Symbol *vars[MAXCARRY], *lv[MAXCARRY];
	int nv = 0, nl = 0;
	IrRef lo, hi, inits[MAXCARRY], iters[MAXCARRY], iv, loop, one, S;
	IrType i32 = ir_ty(IR_I32);
	Binding *saved;
	int64_t stages = n->u.pipe.stages->cval && n->u.pipe.stages->cval->kind == VAL_INT
	                 ? n->u.pipe.stages->cval->i : 0;

	if (stages < 1 || stages > 8) {
		unsupported(c, n->u.pipe.stages->span, "a pipeline whose stage count is not a constant 1..8");
		return;
	}
	collect_assigned(n->u.pipe.load, lv, &nl, MAXCARRY);
	for (int i = 0; i < nl; i++)
		if (lookup(c, lv[i])) {
			unsupported(c, n->u.pipe.load->span, "a pipeline load block assigning variables declared outside it");
			return;
		}
	nv = carried(c, n->u.pipe.compute, vars, inits);
	if (!(lo = expr(c, n->u.pipe.lo)) || !(hi = expr(c, n->u.pipe.hi)))
		return;
	lo = to_type(c, lo, i32);
	hi = to_type(c, hi, i32);
	c->b.loc = loc_of(c, n->span);
	S = ir_b_const(&c->b, i32, stages);
	one = ir_b_const(&c->b, i32, 1);
	/* prologue */
	for (int64_t j = 0; j + 1 < stages && !c->failed; j++) {
		IrRef kj = ir_b_bin(&c->b, IR_OP_ADD, lo, ir_b_const(&c->b, i32, j));
		ir_b_if(&c->b, ir_b_cmp(&c->b, IR_LT, kj, hi), 0, NULL);
		pipe_block(c, n, n->u.pipe.load, kj, S, 0, 0);
		ir_b_else(&c->b);
		ir_b_end(&c->b);
	}
	if (c->failed)
		return;
	loop = ir_b_for(&c->b, lo, hi, one, (uint32_t)nv, inits, &iv, iters);
	saved = c->env;
	for (int i = 0; i < nv; i++)
		bind(c, vars[i], iters[i]);
	ir_b_wait(&c->b, 0, 0, -1);
	ir_b_barrier(&c->b);
	/* pipelines do not nest (sema: pipeline-nested), so the queue is this one's */
	IrRef kn = ir_b_bin(&c->b, IR_OP_ADD, iv, ir_b_const(&c->b, i32, stages - 1)), in = 0;
	int ndef = 0;
	c->pipe_nq = 0;
	if (stages > 1) {
		IrRef vals[CG_PIPEQ], iff;
		in = ir_b_cmp(&c->b, IR_LT, kn, hi);
		iff = ir_b_if(&c->b, in, 0, NULL);
		c->pipe_split = pipe_splittable(n->u.pipe.load);
		c->pipe_reg = c->f->inst[iff].region[0];
		pipe_block(c, n, n->u.pipe.load, kn, S, 0, 2 * c->npipes + 1);
		c->pipe_split = 0;
		for (int i = 0; i < c->pipe_nq; i++)     /* the queued values leave the if */
			if (c->pipe_q[i])
				vals[ndef++] = c->pipe_q[i];
		if (ndef) {
			ir_b_yield(&c->b, (uint32_t)ndef, vals);
			ir_b_else(&c->b);
			for (int i = 0; i < ndef; i++)
				vals[i] = zero_of(c, c->f->inst[vals[i]].ty);
			ir_b_yield(&c->b, (uint32_t)ndef, vals);
			c->f->inst[iff].imm[0] = (int64_t)ndef;
		}
		ir_b_end(&c->b);
		for (int i = 0, j = 0; i < c->pipe_nq; i++)   /* entries: the if's results */
			if (c->pipe_q[i])
				c->pipe_q[i] = ir_b_proj(&c->b, iff, (unsigned)j++);
	} else {
		pipe_block(c, n, n->u.pipe.load, iv, S, 0, 0);
		ir_b_wait(&c->b, 0, 0, -1);
		ir_b_barrier(&c->b);
	}
	if (c->failed)
		return;
	pipe_block(c, n, n->u.pipe.compute, iv, S, 1, stages > 1 ? 2 * c->npipes + 2 : 0);
	if (c->failed)
		return;
	if (ndef) {         /* the deferred LDS writes of L(k + S - 1) */
		ir_b_if(&c->b, in, 0, NULL);
		c->pipe_split = 2;
		c->pipe_iq = 0;
		pipe_block(c, n, n->u.pipe.load, kn, S, 0, 2 * c->npipes + 1);
		c->pipe_split = 0;
		ir_b_else(&c->b);
		ir_b_end(&c->b);
		if (c->failed)
			return;
	}
	close_loop(c, loop, vars, inits, nv, saved);
	ir_b_wait(&c->b, 0, 0, -1);
	ir_b_barrier(&c->b);
	c->npipes++;
}

/* the flat work-item id and the wave index (runtime wave size) */
static IrRef
wave_index(Cg *c)
{
	IrRef t = ir_b_tid(&c->b, 0);
	if (c->f->block[1] > 1 || c->f->block[2] > 1) {
		IrRef bx = ir_b_const(&c->b, ir_ty(IR_I32), c->f->block[0]);
		IrRef by = ir_b_const(&c->b, ir_ty(IR_I32), c->f->block[1]);
		IrRef yz = ir_b_bin(&c->b, IR_OP_ADD, ir_b_tid(&c->b, 1), ir_b_bin(&c->b, IR_OP_MUL, ir_b_tid(&c->b, 2), by));
		t = ir_b_bin(&c->b, IR_OP_ADD, t, ir_b_bin(&c->b, IR_OP_MUL, yz, bx));
	}
	return ir_b_un(&c->b, IR_OP_UNIFORM, ir_b_bin(&c->b, IR_OP_DIV, t, ir_b_wave_size(&c->b)));
}

/* waves N groups { g => {...} ... }: wave w runs arm w % N. The group is
 * computed once from the readfirstlane'd wave index (an SGPR), so each arm is
 * a uniform if: a wave branches over the arms of the other groups with a
 * scalar branch and never runs them with an empty exec mask. The arms are
 * plain regions: a barrier() in an arm is the workgroup's s_barrier, which
 * counts waves, not program points, so the k-th barrier of one group meets
 * the k-th barrier of every other group (the "phases" of docs/language.md). */
static void
stmt_waves(Cg *c, Node *n)
{
	Node *cn = n->u.waves.count;
	if (!cn->cval || cn->cval->kind != VAL_INT || cn->cval->i < 1) {
		unsupported(c, cn->span, "a wave group count that is not a compile-time integer");
		return;
	}
	IrRef g = ir_b_bin(&c->b, IR_OP_REM, wave_index(c), ir_b_const(&c->b, ir_ty(IR_I32), cn->cval->i));
	for (int i = 0; i < n->u.waves.arms.n && !c->failed; i++) {
		Param *arm = n->u.waves.arms.v[i];
		Symbol *vars[MAXCARRY];
		int nv = 0;
		if (!arm->value || !arm->value->cval || arm->value->cval->kind != VAL_INT) {
			unsupported(c, arm->span, "a wave group index that is not a compile-time integer");
			return;
		}
		collect_assigned(arm->body, vars, &nv, MAXCARRY);
		for (int k = 0; k < nv; k++)
			if (lookup(c, vars[k])) {
				unsupported(c, arm->span, "assigning an outer variable inside a wave group arm");
				return;
			}
		IrRef is = ir_b_cmp(&c->b, IR_EQ, g, ir_b_const(&c->b, ir_ty(IR_I32), arm->value->cval->i));
		Binding *saved = c->env;
		ir_b_if(&c->b, is, 0, NULL);
		block(c, arm->body);
		c->env = saved;
		if (c->failed)
			return;
		ir_b_end(&c->b);
	}
}

static void
stmt_while(Cg *c, Node *n)
{
	Symbol *vars[MAXCARRY];
	int nv;
	IrRef inits[MAXCARRY], before[MAXCARRY], body[MAXCARRY], ys[MAXCARRY + 1], cond, loop;
	Binding *saved;

	nv = carried(c, n->u.while_.body, vars, inits);
	c->b.loc = loc_of(c, n->span);
	loop = ir_b_while(&c->b, (uint32_t)nv, inits, before);
	saved = c->env;
	for (int i = 0; i < nv; i++)
		bind(c, vars[i], before[i]);
	if (!(cond = expr(c, n->u.while_.cond)))
		return;
	ys[0] = to_type(c, cond, ir_ty(IR_I1));
	for (int i = 0; i < nv; i++)
		ys[i + 1] = before[i];
	ir_b_yield(&c->b, (uint32_t)nv + 1, ys);
	c->env = saved;
	ir_b_while_body(&c->b, loop, body);
	for (int i = 0; i < nv; i++)
		bind(c, vars[i], body[i]);
	block(c, n->u.while_.body);
	if (c->failed)
		return;
	close_loop(c, loop, vars, inits, nv, saved);
}

static void
stmt(Cg *c, Node *n)
{
	if (c->failed)
		return;
	c->b.loc = loc_of(c, n->span);
	switch (n->kind) {
	case S_BLOCK: {
		Binding *saved = c->env;
		Symbol *vars[MAXCARRY];
		IrRef vals[MAXCARRY];
		int nv = 0;
		collect_assigned(n, vars, &nv, MAXCARRY);
		block(c, n);
		for (int i = 0; i < nv; i++)
			vals[i] = lookup(c, vars[i]);
		c->env = saved;
		for (int i = 0; i < nv; i++)
			if (vals[i])
				bind(c, vars[i], vals[i]);
		return;
	}
	case S_LET: case S_VAR: {
		Node *p = n->u.let.pat;
		IrRef v;
		if (n->u.let.init->cval && n->kind == S_LET) {
			/* a compile-time value (layout, tuple, atom, number): uses fold it */
			if (n->u.let.init->cval->kind == VAL_INT || n->u.let.init->cval->kind == VAL_BOOL ||
			    n->u.let.init->cval->kind == VAL_FLOAT) {
				if (p->kind == E_NAME && p->u.name.sym && (v = expr(c, n->u.let.init)))
					bind(c, p->u.name.sym, v);
			}
			return;
		}
		if (p->kind == E_TUPLE) {
			destructure(c, p, n->u.let.init);
			return;
		}
		if (p->kind != E_NAME && p->kind != E_HOLE) {
			unsupported(c, p->span, "this binding pattern");
			return;
		}
		if (n->u.let.init->type && n->u.let.init->type->kind != TY_SCALAR) {
			Type *ty = n->u.let.init->type;
			Node *in = n->u.let.init;
			if (in->kind == E_CALL && in->u.call.callee->kind == E_NAME &&
			    cg_builtin(in->u.call.callee) == B_ELEM_LESS) {
				if (p->kind == E_NAME && p->u.name.sym)
					bind_lazy(c, p->u.name.sym, in);
				return;
			}
			if (ty->kind == TY_TILED_COPY || ty->kind == TY_THR_COPY || ty->kind == TY_TILED_MMA ||
			    ty->kind == TY_THR_MMA) {
				/* resolved where partitions and copies use them */
				if (p->kind == E_NAME && p->u.name.sym)
					bind_lazy(c, p->u.name.sym, in);
				return;
			}
			if (ty->kind == TY_ATOM)
				return;
			if (p->kind == E_NAME && p->u.name.sym && !p->u.name.sym->used &&
			    (ty->kind == TY_TENSOR || ty->kind == TY_LAYOUT || ty->kind == TY_TUPLE)) {
				/* an unused view or layout: nothing to compute */
				return;
			}
			if (ty->kind != TY_TENSOR && in->kind == E_CALL && in->u.call.callee->kind == E_NAME &&
			    cg_builtin(in->u.call.callee) == B_COMPOSITION) {
				if (p->kind == E_NAME && p->u.name.sym)
					bind_lazy(c, p->u.name.sym, in);
				return;
			}
			if (ty->kind != TY_TENSOR) {
				unsupported(c, in->span, "a binding of this kind of value");
				return;
			}
		}
		v = expr(c, n->u.let.init);
		if (!v)
			return;
		if (n->kind == S_VAR && p->kind == E_NAME && p->u.name.sym) {
			int ok = 1;
			IrType t = type_of(c, n->u.let.init, &ok);
			if (p->u.name.sym->type && p->u.name.sym->type->kind == TY_SCALAR) {
				IrScalar s;
				if (scalar_of(p->u.name.sym->type->scalar, &s))
					t = ir_ty(s), ok = 1;
			}
			if (ok)
				v = to_type(c, v, t);
		}
		if (p->kind == E_NAME && p->u.name.sym) {
			bind(c, p->u.name.sym, v);
			if (is_fragment_call(n->u.let.init))
				c->env->frag = n->u.let.init;
		}
		return;
	}
	case S_ASSIGN: {
		Node *l = n->u.assign.lhs;
		IrRef v;
		if (l->kind == E_NAME && l->u.name.sym && l->u.name.sym->kind == SYM_VAR) {
			IrRef old = lookup(c, l->u.name.sym);
			v = value_of(c, expr(c, n->u.assign.rhs), n->u.assign.rhs->span);
			if (!v || !old)
				return;
			if (n->u.assign.op != OP_NONE) {
				IrType ot = c->f->inst[old].ty;
				v = arith(c, n->span, n->u.assign.op, old, v, ir_ty((IrScalar)ot.kind),
				          l->type && is_unsigned(l->type->scalar));
				if (v == (IrRef)-1)
					return;
				if (!v) {
					unsupported(c, n->span, "this compound assignment");
					return;
				}
			}
			bind(c, l->u.name.sym, to_type(c, v, c->f->inst[old].ty));
			return;
		}
		if (n->u.assign.op != OP_NONE) {
			unsupported(c, n->span, "compound assignment to this");
			return;
		}
		if (l->kind == E_INDEX) {
			IrRef t, co[8];
			uint32_t nc;
			Node *cal = l->u.call.callee;
			v = expr(c, n->u.assign.rhs);
			if (!v)
				return;
			if (cal->kind == E_NAME && cal->u.name.sym && cal->u.name.sym->kind == SYM_VAR) {
				/* v[i] = e on a fragment var held as a value: a new value with lane i replaced */
				IrRef old = lookup(c, cal->u.name.sym);
				uint32_t lane;
				if (old && old != (IrRef)-1 && c->f->inst[old].ty.kind != IR_TENSOR &&
				    c->f->inst[old].ty.lanes > 1) {
					IrType et = ir_ty((IrScalar)c->f->inst[old].ty.kind);
					if (ir_scalar_packed((IrScalar)et.kind)) {
						unsupported(c, l->span, "writing one fp4/fp6/bf6 value of a fragment");
						return;
					}
					if (!(v = value_of(c, v, n->u.assign.rhs->span)) || !fragment_lane(c, l, old, &lane))
						return;
					if (c->f->inst[v].ty.lanes != 1) {
						diag_error(c->d, n->u.assign.rhs->span, "one value of a fragment is assigned a scalar");
						c->failed = 1;
						return;
					}
					bind(c, cal->u.name.sym, ir_b_insert(&c->b, old, to_type(c, v, et), lane));
					return;
				}
			}
			if (!tensor_coords(c, l, &t, co, &nc))
				return;
			IrTensor *T = &c->f->tensor[c->f->inst[t].aux];
			if (ir_scalar_packed(T->elem)) {
				unsupported(c, l->span, "writing one fp4/fp6/bf6 element (packed below a byte; copy whole bytes)");
				return;
			}
			v = to_type(c, v, ir_ty(T->elem));
			c->b.loc = loc_of(c, n->span);
			ir_b_tstore(&c->b, t, v, nc, co);
			return;
		}
		unsupported(c, l->span, "assigning to this");
		return;
	}
	case S_EXPR:
		if (n->u.expr->kind == E_CALL) {
			call(c, n->u.expr);
			return;
		}
		unsupported(c, n->span, "an expression statement");
		return;
	case S_IF:
		stmt_if(c, n);
		return;
	case S_FOR:
		stmt_for(c, n);
		return;
	case S_WHILE:
		stmt_while(c, n);
		return;
	case S_WAVES:
		stmt_waves(c, n);
		return;
	case S_PIPELINE:
		stmt_pipeline(c, n);
		return;
	case S_ASSUME:
		return;
	case S_ALLOC: {
		IrLayout lay;
		IrScalar el;
		Symbol *s = n->u.alloc.sym;
		if (n->u.alloc.space != SPACE_LDS) {
			unsupported(c, n->span, "register tensors");
			return;
		}
		if (!s || !s->type || !scalar_of(s->type->scalar, &el) ||
		    !n->u.alloc.type || !n->u.alloc.type->layout ||
		    layout_of(c, n->u.alloc.type->layout, &lay) || ir_layout_cosize(&lay) < 0) {
			unsupported(c, n->span, "an LDS buffer without a static layout of f32/f16/bf16/integers");
			return;
		}
		bind(c, s, ir_b_lds_alloc(&c->b, el, lay, n->u.alloc.id));
		return;
	}
	default:
		unsupported(c, n->span, "this statement");
		return;
	}
}

/* ---- atoms per target ---- */

typedef struct {
	Cg *c;
	SemaProgram *prog;
	const TgtDesc *t;
	int reported;
} AtomCheck;

/* the module declaring atom decl, or NULL */
static SemaModule *
atom_module(SemaProgram *p, Node *decl)
{
	for (int i = 0; i < p->nmodules; i++)
		for (int k = 0; k < p->modules[i]->nsyms; k++)
			if (p->modules[i]->syms[k]->node == decl)
				return p->modules[i];
	return NULL;
}

static void check_atoms(AtomCheck *a, Node *n);

static void
check_list(AtomCheck *a, NodeList l)
{
	for (int i = 0; i < l.n; i++)
		check_atoms(a, l.v[i]);
}

/* Using an atom declared for another target (stdlib/gfxNNN.fly) is a located error. */
static void
check_atoms(AtomCheck *a, Node *n)
{
	if (!n || a->reported)
		return;
	if (n->type && n->type->atom && (n->type->kind == TY_ATOM || n->kind == E_MEMBER)) {
		SemaModule *m = atom_module(a->prog, n->type->atom);
		const TgtDesc *owner = m ? tgt_find(m->name) : NULL;
		if (owner && owner != a->t) {
			diag_error(a->c->d, n->span, "atom '%s.%s' belongs to %s; --offload-arch=%s does not have it "
			           "(use the %s atoms, e.g. import %s)", m->name, n->type->atom->u.atom.id,
			           owner->name, a->t->name, a->t->name, a->t->name);
			a->reported = 1;
			a->c->failed = 1;
			return;
		}
	}
	switch (n->kind) {
	case S_BLOCK: check_list(a, n->u.block); break;
	case S_LET: case S_VAR: check_atoms(a, n->u.let.init); break;
	case S_ASSIGN: check_atoms(a, n->u.assign.lhs); check_atoms(a, n->u.assign.rhs); break;
	case S_EXPR: case S_ASSUME: check_atoms(a, n->u.expr); break;
	case S_IF: check_atoms(a, n->u.if_.cond); check_atoms(a, n->u.if_.then); check_atoms(a, n->u.if_.els); break;
	case S_FOR:
		check_atoms(a, n->u.for_.lo); check_atoms(a, n->u.for_.hi);
		check_atoms(a, n->u.for_.step); check_atoms(a, n->u.for_.body);
		break;
	case S_WHILE: check_atoms(a, n->u.while_.cond); check_atoms(a, n->u.while_.body); break;
	case S_PIPELINE:
		check_atoms(a, n->u.pipe.lo); check_atoms(a, n->u.pipe.hi);
		check_atoms(a, n->u.pipe.load); check_atoms(a, n->u.pipe.compute);
		break;
	case S_WAVES:
		for (int i = 0; i < n->u.waves.arms.n; i++)
			check_atoms(a, n->u.waves.arms.v[i]->body);
		break;
	case E_TUPLE: case E_TILER: check_list(a, n->u.list); break;
	case E_UNARY: check_atoms(a, n->u.unary.x); break;
	case E_BINARY: case E_LAYOUT: case E_COMPOSE:
		check_atoms(a, n->u.binary.l); check_atoms(a, n->u.binary.r);
		break;
	case E_CALL: case E_INDEX:
		check_atoms(a, n->u.call.callee);
		check_list(a, n->u.call.args);
		for (int i = 0; i < n->u.call.named.n; i++)
			check_atoms(a, n->u.call.named.v[i]->value);
		break;
	case E_MEMBER: check_atoms(a, n->u.member.base); break;
	case E_CONVERT: check_atoms(a, n->u.convert.x); break;
	default: break;
	}
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
	l = loc_of(c, decl->span);
	c->f = ir_func_new(c->m, k->name, l);
	c->b = ir_builder(c->f);
	for (int i = 0; i < 3; i++)
		c->f->block[i] = (unsigned)(k->block[i] > 0 ? k->block[i] : 1);
	c->f->waves_per_eu[0] = k->waves_per_eu;
	if (k->targets) {
		static const char *const names[] = { "gfx950", "gfx1201" };
		char buf[64] = "";
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (k->targets & sema_target_bit(names[i]))
				snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " " : "", names[i]);
		c->f->archs = ir_strdup(c->m, buf);
	}
	/* parameters: first all declared, then their values (layouts may refer
	 * to scalar parameters declared later) */
	for (int i = 0; i < k->nparams; i++) {
		Symbol *s = k->params[i];
		IrScalar el;
		if (!s->type || !scalar_of(s->type->scalar, &el)) {
			unsupported(c, s->decl, "a parameter of this type");
			return;
		}
		if (s->type->kind == TY_TENSOR) {
			uint32_t pi = ir_func_param(c->f, s->name, IR_PARAM_PTR, el, 0);
			c->f->param[pi].elem_name = sema_scalar_names[s->type->scalar];
		}
		else if (s->type->kind == TY_SCALAR)
			ir_func_param(c->f, s->name, IR_PARAM_VAL, el, 0);
		else {
			unsupported(c, s->decl, "a parameter of this kind");
			return;
		}
	}
	for (int i = 0; i < k->nparams; i++)
		if (k->params[i]->type->kind == TY_SCALAR)
			bind(c, k->params[i], ir_b_arg(&c->b, (uint32_t)i));
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
		c->b.loc = loc_of(c, s->decl);
		if (!p || !p->type || !p->type->layout || layout_of(c, p->type->layout, &lay)) {
			if (!c->failed)
				unsupported(c, s->decl, "this tensor parameter's layout");
			return;
		}
		c->f->param[i].layout_meta = layout_meta(c, p->type->layout);
		bind(c, s, ir_b_tensor_global(&c->b, ir_b_arg(&c->b, (uint32_t)i), c->f->param[i].ty, lay,
		                              IR_ADDR_AUTO, s->name));
	}
	for (int i = 0; i < 3 && !c->failed; i++)
		if (k->grid[i])
			c->f->grid_rpn[i] = rpn_of(c, k->grid[i], "grid formula");
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
		const char *q = rpn_of(c, rq, "requires predicate");
		if (q)
			ir_func_requires(c->f, q, source_text(c, k->requires.v[r]->span));
	}
	if (!c->failed)
		stmt(c, decl->u.kernel.body);
	if (!c->failed) {
		c->b.cur = 1;
		c->b.loc = loc_of(c, decl->span);
		ir_b_ret(&c->b);
	}
}

int
cg_run(const DrvOptions *opt, SemaProgram *prog, Diag *d)
{
	Cg c = { 0 };
	EmitOptions eo = { 0 };
	IrDiag id = { ir_sink, d, 0 };
	int rc;

	c.d = d;
	lay_ctx_init(&c.lc, prog->lay_arena);  /* the program's arena: freed with it */
	c.m = ir_module_new();
	c.m->source_name = opt->input && strcmp(opt->input, "-") ? opt->input : "<stdin>";
	if (prog->nkernels == 0) {
		diag_error(d, SPAN_NONE, "the program has no kernel to compile");
		ir_module_free(c.m);
		return 1;
	}
	for (int a = 0; a < opt->narchs && !c.failed; a++) {
		const TgtDesc *t = tgt_find(opt->archs[a]);
		if (!t)
			continue;   /* emit_compile reports unknown arches */
		int nfor = 0;
		for (int i = 0; i < prog->nkernels && !c.failed; i++) {
			AtomCheck ac = { &c, prog, t, 0 };
			if (prog->kernels[i]->targets && !(prog->kernels[i]->targets & sema_target_bit(t->name)))
				continue;   /* targets(...) excludes this arch */
			if (opt->banks && opt->banks->any_arch && !prog->kernels[i]->targets && a > 0)
				continue;   /* flyc show --banks: kernels without targets(...) only for the first arch */
			nfor++;
			check_atoms(&ac, prog->kernels[i]->decl->u.kernel.body);
		}
		if (!nfor && !c.failed && !(opt->banks && opt->banks->any_arch)) {
			diag_error(d, SPAN_NONE, "no kernel of this file is for --offload-arch=%s: the targets(...) "
			           "clause of every kernel excludes it", t->name);
			c.failed = 1;
		}
	}
	for (int i = 0; i < prog->nkernels && !c.failed; i++)
		kernel(&c, prog->kernels[i]);
	if (c.failed || diag_errors(d)) {
		ir_module_free(c.m);
		return 1;
	}
	/* the driver's options, mapped onto the back end's */
	if (opt->narchs > EMIT_MAX_ARCHS) {
		diag_error(d, SPAN_NONE, "too many --offload-arch options (at most %d)", EMIT_MAX_ARCHS);
		ir_module_free(c.m);
		return 1;
	}
	for (int i = 0; i < opt->narchs; i++)
		eo.archs[i] = opt->archs[i];
	eo.narchs = opt->narchs;
	eo.opt_level = opt->opt_level;
	switch (opt->emit) {
	case DRV_EMIT_IR: eo.emit = EMIT_IR; break;
	case DRV_EMIT_BANKS: eo.emit = EMIT_BANKS; break;
	case DRV_EMIT_LLVM: eo.emit = opt->emit_S || (opt->output && !strcmp(opt->output, "-")) ? EMIT_LLVM : EMIT_LLVM_BC; break;
	case DRV_EMIT_ASM: eo.emit = EMIT_ASM; break;
	case DRV_EMIT_OBJ: eo.emit = EMIT_OBJ; break;
	case DRV_EMIT_DEFAULT: eo.emit = EMIT_CODEOBJ; break;
	default:
		diag_error(d, SPAN_NONE, "--emit=%s is not produced by the code generator", drv_emit_names[opt->emit]);
		ir_module_free(c.m);
		return 1;
	}
	eo.output = opt->output;
	eo.input_name = opt->input;
	eo.passes.print_after = opt->print_after;
	eo.passes.nprint_after = opt->nprint_after;
	eo.passes.print_after_all = opt->print_after_all;
	eo.passes.stop_after = opt->stop_after;
#ifndef NDEBUG
	eo.passes.verify = 1;
#endif
	eo.no_bundle = opt->no_gpu_bundle;
	eo.ld_lld = opt->ld_path;
	eo.banks = opt->banks;
	eo.save_temps = opt->save_temps;
	eo.debug_info = opt->debug_info;
	eo.mllvm = opt->mllvm;
	eo.nmllvm = opt->nmllvm;
	eo.resource_usage = opt->resource_usage || opt->resource_usage_json;
	eo.resource_json = opt->resource_usage_json;
	rc = emit_compile(c.m, &eo, &id);
	ir_module_free(c.m);
	return rc || id.errors ? 1 : 0;
}

/* ---- internal interface for codegen_*.c (codegen_int.h) ---- */

void cg_unsupported(Cg *c, Span s, const char *what) { unsupported(c, s, what); }
int cg_frag_limit(Cg *c, Span s, const char *what, int64_t n) { return frag_limit(c, s, what, n); }
void cg_bind(Cg *c, Symbol *s, IrRef v) { bind(c, s, v); }
IrRef cg_lookup(Cg *c, Symbol *s) { return lookup(c, s); }
Node *cg_lazy_of(Cg *c, Node *n) { return lazy_of(c, n); }
IrRef cg_expr(Cg *c, Node *n) { return expr(c, n); }
int cg_layout_of(Cg *c, Node *n, IrLayout *out) { return layout_of(c, n, out); }
int cg_scalar_of(ScalarKind k, IrScalar *out) { return scalar_of(k, out); }
IrRef cg_to_type(Cg *c, IrRef v, IrType t) { return to_type(c, v, t); }
int cg_is_tensor_val(Cg *c, IrRef r) { return is_tensor_val(c, r); }
IrTensor *cg_tensor_of(Cg *c, IrRef r) { return tensor_of(c, r); }
IrType cg_off_type(Cg *c, IrRef t) { return off_type(c, t); }
IrRef cg_leaf_val(Cg *c, const IrTuple *x, IrType t) { return leaf_val(c, x, t); }
IrTuple *cg_scale(Cg *c, const IrTuple *d, const IrTuple *f) { return scale(c, d, f); }
IrLayout cg_layout_of_modes(Cg *c, IrTuple **s, IrTuple **d, int n) { return layout_of_modes(c, s, d, n); }
int64_t cg_view_size(Cg *c, IrRef t) { return view_size(c, t); }
IrRef cg_value_of(Cg *c, IrRef r, Span s) { return value_of(c, r, s); }
IrLoc cg_loc_of(Cg *c, Span s) { return loc_of(c, s); }
