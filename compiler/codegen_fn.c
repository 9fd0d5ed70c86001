/*
 * codegen_fn.c — device function calls and tuples of run-time values.
 *
 * A call of a device function is inlined: the checker made a private copy of
 * the function for the call (SemaFnCall: sema.h) with its parameters bound to
 * the arguments, so code generation evaluates the arguments where the call
 * is, binds the parameters' symbols to their values (a tensor to its view, a
 * register fragment to its vector, a tuple to its leaves, a lazily evaluated
 * predicate to its expression), lowers the copy's body, and takes the value of
 * its last statement, `return e;` (cg_return). Nothing of the callee stays
 * bound afterwards; the callee cannot name the caller's variables, so no
 * variable of the caller changes.
 *
 * A tuple of run-time values (`(lo, hi)`, a function's tuple result, the
 * coordinates idx2crd gives, a coordinate of a rank-2 identity tensor) is an
 * IrTuple whose leaves are IrRefs (or static integers); `let (a, b) = t`, `t[i]`,
 * `get(t, i)` and `(a, b) = t` take it apart. Code never holds a tuple as one
 * value.
 */
#include <string.h>

#include "codegen_int.h"

void
cg_bind_tuple(Cg *c, Symbol *s, IrTuple *t)
{
	cg_bind(c, s, 0);
	c->env->tup = t;
}

IrTuple *
cg_lookup_tuple(Cg *c, Symbol *s)
{
	for (Binding *b = c->env; b; b = b->next)
		if (b->sym == s)
			return b->tup;
	return NULL;
}

IrRef
cg_tuple_leaf(Cg *c, const IrTuple *x, const Type *t)
{
	IrScalar sc = IR_I32;
	IrRef v;

	if (t && t->kind == TY_SCALAR && !cg_scalar_of(t->scalar, &sc))
		sc = IR_I32;
	if (x->n) {
		cg_unsupported(c, SPAN_NONE, "a tuple used as one value");
		return 0;
	}
	if (x->dyn)
		v = x->dyn;
	else
		v = ir_ty_is_float(ir_ty(sc)) ? ir_b_fconst(&c->b, ir_ty(sc), (double)x->value)
		                              : ir_b_const(&c->b, ir_ty(sc), x->value);
	return t && t->kind == TY_SCALAR && c->f->inst[v].ty.kind != IR_TENSOR ? cg_to_type(c, v, ir_ty(sc)) : v;
}

/* a compile-time value as a tuple leaf or tree */
static IrTuple *
tuple_of_cval(Cg *c, const Value *v)
{
	switch (v->kind) {
	case VAL_INT:
		return ir_tuple_int(c->m, v->i);
	case VAL_BOOL:
		return ir_tuple_dyn(c->m, ir_b_const(&c->b, ir_ty(IR_I1), v->i));
	case VAL_FLOAT:
		return ir_tuple_dyn(c->m, ir_b_fconst(&c->b, ir_ty(IR_F32), v->f));
	case VAL_TUPLE: {
		IrTuple **k = ir_alloc(c->m, sizeof *k * (size_t)(v->nelems ? v->nelems : 1));
		for (int i = 0; i < v->nelems; i++)
			if (!(k[i] = tuple_of_cval(c, v->elems[i])))
				return NULL;
		return ir_tuple_of(c->m, v->nelems, k);
	}
	default:
		return NULL;
	}
}

/* idx2crd(i, (S0, S1, ...)) of a run-time i: the colexicographic split by a flat shape
 * (the last coordinate takes the rest) */
static IrTuple *
idx2crd(Cg *c, Node *n)
{
	Node *shp = n->u.call.args.v[1];
	IrTuple **k;
	IrRef i;
	int r;

	if (shp->kind != E_TUPLE && !(shp->cval && shp->cval->kind == VAL_TUPLE)) {
		cg_unsupported(c, shp->span, "idx2crd of a run-time index by a shape that is not a flat tuple");
		return NULL;
	}
	r = shp->kind == E_TUPLE ? shp->u.list.n : shp->cval->nelems;
	if (!(i = cg_expr(c, n->u.call.args.v[0])))
		return NULL;
	i = cg_to_type(c, i, ir_ty(IR_I32));
	k = ir_alloc(c->m, sizeof *k * (size_t)(r ? r : 1));
	for (int j = 0; j < r; j++) {
		IrRef cj = i;
		if (j + 1 < r) {
			IrRef sz;
			if (shp->kind == E_TUPLE) {
				if (shp->u.list.v[j]->type && shp->u.list.v[j]->type->kind == TY_TUPLE) {
					cg_unsupported(c, shp->u.list.v[j]->span, "idx2crd of a run-time index by a nested shape");
					return NULL;
				}
				if (!(sz = cg_expr(c, shp->u.list.v[j])))
					return NULL;
			} else {
				if (shp->cval->elems[j]->kind != VAL_INT) {
					cg_unsupported(c, shp->span, "idx2crd of a run-time index by a nested shape");
					return NULL;
				}
				sz = ir_b_const(&c->b, ir_ty(IR_I32), shp->cval->elems[j]->i);
			}
			sz = cg_to_type(c, sz, ir_ty(IR_I32));
			cj = ir_b_bin(&c->b, IR_OP_REM, i, sz);
			i = ir_b_bin(&c->b, IR_OP_DIV, i, sz);
		}
		k[j] = ir_tuple_dyn(c->m, cj);
	}
	return r == 1 ? k[0] : ir_tuple_of(c->m, r, k);
}

IrTuple *
cg_tuple_val(Cg *c, Node *n)
{
	if (c->failed)
		return NULL;
	if (n->cval) {
		IrTuple *t = tuple_of_cval(c, n->cval);
		if (t)
			return t;
	}
	switch (n->kind) {
	case E_TUPLE: {
		IrTuple **k = ir_alloc(c->m, sizeof *k * (size_t)(n->u.list.n ? n->u.list.n : 1));
		for (int i = 0; i < n->u.list.n; i++) {
			Node *x = n->u.list.v[i];
			if (x->type && x->type->kind == TY_TUPLE) {
				if (!(k[i] = cg_tuple_val(c, x)))
					return NULL;
			} else {
				IrRef v = cg_expr(c, x);
				if (!v)
					return NULL;
				k[i] = ir_tuple_dyn(c->m, v);
			}
		}
		return ir_tuple_of(c->m, n->u.list.n, k);
	}
	case E_NAME: {
		IrTuple *t = n->u.name.sym ? cg_lookup_tuple(c, n->u.name.sym) : NULL;
		if (t)
			return t;
		break;
	}
	case E_CALL: {
		IrTuple *t = NULL;
		int bid = cg_builtin(n->u.call.callee);
		if (n->u.call.fn) {
			if (!cg_fn_call(c, n, &t))
				return NULL;
			return t;
		}
		if (bid == B_IDX2CRD && n->u.call.args.n == 2)
			return idx2crd(c, n);
		if (bid == B_ARGMAX || bid == B_ARGMIN) {   /* (value, position): codegen_reduce.c */
			IrRef kv[2];
			IrTuple *k[2];
			if (!cg_argmax(c, n, &kv[0], &kv[1]))
				return NULL;
			k[0] = ir_tuple_dyn(c->m, kv[0]);
			k[1] = ir_tuple_dyn(c->m, kv[1]);
			return ir_tuple_of(c->m, 2, k);
		}
		if (bid == B_GET && n->u.call.args.n == 2 && n->u.call.args.v[1]->cval) {
			IrTuple *b = cg_tuple_val(c, n->u.call.args.v[0]);
			int64_t i = n->u.call.args.v[1]->cval->i;
			return !b ? NULL : b->n && i >= 0 && i < b->n ? b->kid[i] : b;
		}
		break;
	}
	case E_INDEX: {
		Node *b = n->u.call.callee;
		if (b->type && b->type->kind == TY_TENSOR && b->type->space == SPACE_COORD)
			return cg_coord_elem(c, n);   /* an element of rank-2 coordinates: (m, n) */
		if (b->type && b->type->kind == TY_TUPLE && n->u.call.args.n == 1 && n->u.call.args.v[0]->cval) {
			IrTuple *t = cg_tuple_val(c, b);
			int64_t i = n->u.call.args.v[0]->cval->i;
			return !t ? NULL : t->n && i >= 0 && i < t->n ? t->kid[i] : t;
		}
		break;
	}
	default:
		break;
	}
	cg_unsupported(c, n->span, "this tuple value");
	return NULL;
}

/* let/var PATTERN = tuple t: names bound to leaves (a var's converted to its type) or
 * to sub-tuples, '_' skipped */
void
cg_bind_pattern(Cg *c, Node *pat, IrTuple *t, int is_var)
{
	if (c->failed || pat->kind == E_HOLE)
		return;
	if (pat->kind == E_TUPLE) {
		if (t->n != pat->u.list.n) {
			cg_unsupported(c, pat->span, "destructuring a tuple of another length");
			return;
		}
		for (int i = 0; i < pat->u.list.n; i++)
			cg_bind_pattern(c, pat->u.list.v[i], t->kid[i], is_var);
		return;
	}
	if (pat->kind != E_NAME || !pat->u.name.sym)
		return;
	if (t->n) {
		cg_bind_tuple(c, pat->u.name.sym, t);
		return;
	}
	IrRef v = cg_tuple_leaf(c, t, pat->u.name.sym->type);
	if (v)
		cg_bind(c, pat->u.name.sym, v);
	(void)is_var;
}

/* (a, b) = t: each variable of the left side takes its leaf, converted to its type */
void
cg_assign_tuple(Cg *c, Node *lhs, IrTuple *t)
{
	if (c->failed || lhs->kind == E_HOLE)
		return;
	if (lhs->kind == E_TUPLE) {
		if (t->n != lhs->u.list.n) {
			cg_unsupported(c, lhs->span, "assigning a tuple of another length");
			return;
		}
		for (int i = 0; i < lhs->u.list.n; i++)
			cg_assign_tuple(c, lhs->u.list.v[i], t->kid[i]);
		return;
	}
	if (lhs->kind != E_NAME || !lhs->u.name.sym || lhs->u.name.sym->kind != SYM_VAR || t->n) {
		cg_unsupported(c, lhs->span, "assigning a tuple's element to this");
		return;
	}
	IrRef old = cg_lookup(c, lhs->u.name.sym), v = cg_tuple_leaf(c, t, lhs->u.name.sym->type);
	if (!v || !old)
		return;
	cg_bind(c, lhs->u.name.sym, cg_to_type(c, v, c->f->inst[old].ty));
}

/* `return e;`, the last statement of an inlined function: its value */
void
cg_return(Cg *c, Node *n)
{
	Node *v = n->u.expr;

	if (!v)
		return;      /* a kernel's or a function's end (cg_kernel_block lowers a kernel's early ones) */
	if (v->type && v->type->kind == TY_TUPLE) {
		c->fn_tup = cg_tuple_val(c, v);
		return;
	}
	if (v->kind == E_NAME && v->u.name.sym && cg_lookup_lazy(c, v->u.name.sym)) {
		cg_unsupported(c, v->span, "returning a lazily evaluated value");
		return;
	}
	c->fn_val = cg_value_of(c, cg_expr(c, v), v->span);
}

IrRef
cg_fn_call(Cg *c, Node *n, IrTuple **tup)
{
	SemaFnCall *fc = n->u.call.fn;
	Node *decl = fc->decl;
	Binding *saved = c->env;
	IrRef saved_val = c->fn_val, r;
	IrTuple *saved_tup = c->fn_tup;
	int ok = 1;

	/* the arguments, where the call is; then the parameters bound to them */
	for (int i = 0; i < fc->nparams && ok && !c->failed; i++) {
		Symbol *p = fc->params[i];
		Node *a = n->u.call.args.v[i];
		Node *lz;
		if (p->val)
			continue;              /* compile-time: its uses fold */
		if (p->type && p->type->kind == TY_TUPLE) {
			IrTuple *t = cg_tuple_val(c, a);
			if (!(ok = t != NULL))
				break;
			cg_bind_tuple(c, p, t);
			continue;
		}
		if (a->kind == E_NAME && a->u.name.sym && (lz = cg_lookup_lazy(c, a->u.name.sym))) {
			cg_bind_lazy(c, p, lz);
			continue;
		}
		IrRef v = cg_expr(c, a);
		if (!(ok = v != 0))
			break;
		if (p->type && p->type->kind == TY_SCALAR) {
			IrScalar sc;
			if (cg_scalar_of(p->type->scalar, &sc))
				v = cg_to_type(c, cg_value_of(c, v, a->span), ir_ty(sc));
		}
		cg_bind(c, p, v);
		if (a->kind == E_NAME && a->u.name.sym) {
			for (Binding *b = saved; b; b = b->next)
				if (b->sym == a->u.name.sym) {
					c->env->frag = b->frag;
					break;
				}
		}
	}
	if (!ok || c->failed) {
		c->env = saved;
		return 0;
	}
	c->fn_depth++;
	c->fn_val = (IrRef)-1;
	c->fn_tup = NULL;
	cg_block(c, decl->u.fn.body);
	c->fn_depth--;
	r = c->fn_val;
	if (tup)
		*tup = c->fn_tup;
	c->fn_val = saved_val;
	c->fn_tup = saved_tup;
	c->env = saved;
	if (c->failed)
		return 0;
	if (!fc->ret)
		return (IrRef)-1;
	if (fc->ret->type && fc->ret->type->kind == TY_TUPLE)
		return tup && *tup ? (IrRef)-1 : 0;
	if (r == (IrRef)-1 || !r)
		return 0;
	if (n->type && n->type->kind == TY_SCALAR) {
		IrScalar sc;
		if (cg_scalar_of(n->type->scalar, &sc))
			r = cg_to_type(c, r, ir_ty(sc));
	}
	return r;
}
