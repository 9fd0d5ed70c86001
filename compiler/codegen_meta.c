/*
 * codegen_meta.c — the launch metadata code generation writes beside each
 * kernel (.flyc.meta, docs/codegen.md): grid formulas, requires predicates and
 * parameter layouts as RPN strings over the kernel's scalar parameters, and
 * the source text they came from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"
#include "codegen_span.h"
#include "ir_banks.h"
#include "ir.h"
#include "target/target.h"

typedef struct { char *p; size_t n, cap; int bad; } Str;

static void rpn(Cg *c, Node *n, Str *s);

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
const char *
cg_layout_meta(Cg *c, Node *lay)
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

const char *
cg_rpn_of(Cg *c, Node *n, const char *what)
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

const char *
cg_source_text(Cg *c, Span s)
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
