/*
 * sema_fn.c — device functions: `fn NAME<CT params>(params) [-> TYPE] { body }`.
 *
 * Functions are inlined, so a function is checked at each call, as a kernel is
 * at each instance: the call's arguments are checked where the call is, then
 * a copy of the function (ast_clone) is checked with its compile-time
 * parameters bound to values (named arguments `f(x, N=4)`, type parameters
 * inferred from the arguments' types, defaults) and its parameters bound to
 * the arguments (SYM_FNPARAM, .bound = the argument; a compile-time argument
 * makes the parameter a constant of that copy). The copy, annotated, hangs off
 * the call (Node.u.call.fn, sema.h SemaFnCall) for code generation to inline.
 *
 * The body sees its own bindings, its module's constants, atoms, functions and
 * imports, and the builtins — never its caller's locals (sym_lookup). A
 * function returns only at its end: `return e;` is the last statement of its
 * body, so its value is what the body computed last, with no control flow
 * around it. A function that calls itself, directly or through others, is
 * refused: inlining would not end.
 *
 * Parameters are immutable, like `let`; register fragments are passed and
 * returned by value (assigning one's element, fill, copy or gemm into one is an
 * error), tensors in memory by reference (stores through them are stores).
 *
 * Parameter types: a scalar type (`f32`, a type parameter `T`; `int` takes a
 * compile-time integer), a tensor type whose layout may be `_` (any layout:
 * `v: reg f32[_]`, `g: global T[_]`), or a tuple of types `(f32, reg f32[_])`.
 */
#include <string.h>

#include "sema_int.h"

enum { FN_MAX_CALLS = 100000 };   /* copies of function bodies per program */

/* The layout of a tensor type is `_`: any layout. */
static bool
any_layout(const TypeExpr *te)
{
	return te && te->tensor && te->layout && te->layout->kind == E_HOLE;
}

Type *
sema_fn_type(S *s, TypeExpr *te)
{
	if (!te->name) {
		Type *t = ty_new(s, TY_TUPLE);
		t->nelems = te->nelems;
		t->elems = ARENA_NEWN(s->a, Type *, te->nelems);
		for (int i = 0; i < te->nelems; i++)
			if ((t->elems[i] = sema_fn_type(s, te->elems[i]))->kind == TY_ERROR)
				return t->elems[i];
		return t;
	}
	if (any_layout(te)) {
		Symbol *sym = sym_lookup(s, te->name);
		if (!sym || sym->kind != SYM_TYPE) {
			diag_error(s->d, te->name_span, "unknown type '%s'", te->name);
			return ty_simple(TY_ERROR);
		}
		te->layout->type = ty_simple(TY_VOID);
		return ty_tensor(s, te->space, sym->type->scalar, -1, false);
	}
	return sema_type_expr(s, te);
}

/* a value of type t may be passed to (or returned as) want */
static bool
accepts(S *s, Type *want, Type *t)
{
	if (want->kind == TY_ERROR || t->kind == TY_ERROR)
		return true;
	if (want->kind == TY_SCALAR)
		return t->kind == TY_SCALAR && sema_assignable(s, want, t);
	if (want->kind == TY_TENSOR)
		return t->kind == TY_TENSOR && t->space == want->space && t->scalar == want->scalar &&
		       (want->rank < 0 || t->rank < 0 || want->rank == t->rank);
	if (want->kind == TY_TUPLE) {
		if (t->kind != TY_TUPLE || t->nelems != want->nelems)
			return false;
		for (int i = 0; i < want->nelems; i++)
			if (!accepts(s, want->elems[i], t->elems[i]))
				return false;
		return true;
	}
	return want->kind == t->kind;
}

bool
sema_fn_accepts(S *s, Type *want, Node *arg)
{
	if (want->kind == TY_SCALAR && want->scalar == SC_INT && arg->type->kind == TY_SCALAR)
		return arg->type->scalar == SC_INT && arg->cval && arg->cval->kind == VAL_INT;
	return accepts(s, want, arg->type);
}

/* T inferred from an argument of type t passed as a parameter of written type te */
static int
infer_type(const TypeExpr *te, const Type *t, const char *name)
{
	if (!te || t->kind == TY_ERROR)
		return -1;
	if (!te->name) {
		if (t->kind != TY_TUPLE || t->nelems != te->nelems)
			return -1;
		for (int i = 0; i < te->nelems; i++) {
			int k = infer_type(te->elems[i], t->elems[i], name);
			if (k >= 0)
				return k;
		}
		return -1;
	}
	if (strcmp(te->name, name))
		return -1;
	if ((t->kind == TY_SCALAR && !te->tensor) || (t->kind == TY_TENSOR && te->tensor))
		return t->scalar == SC_INT || t->scalar == SC_FLOAT || t->scalar == SC_BOOL ? -1 : (int)t->scalar;
	return -1;
}

/* the type of a call's value: the declared result's scalars, what the body returned elsewhere
 * (a tensor's rank and register layout, which `_` does not say) */
static Type *
result_type(S *s, Type *want, Type *got)
{
	if (want->kind == TY_TUPLE && got->kind == TY_TUPLE && got->nelems == want->nelems) {
		Type *t = ty_new(s, TY_TUPLE);
		t->nelems = want->nelems;
		t->elems = ARENA_NEWN(s->a, Type *, t->nelems);
		for (int i = 0; i < t->nelems; i++)
			t->elems[i] = result_type(s, want->elems[i], got->elems[i]);
		return t;
	}
	return want->kind == TY_SCALAR || got->kind == TY_ERROR ? want : got;
}

static const Param *
named_arg(const Node *call, const char *name)
{
	for (int i = 0; i < call->u.call.named.n; i++)
		if (!strcmp(call->u.call.named.v[i]->name, name))
			return call->u.call.named.v[i];
	return NULL;
}

/* an atom parameter of a function: the atom passed by name (f(x, MMA=gfx950.mfma_...)) or
 * the default, bound as that atom */
static bool
bind_atom_ctparam(S *s, Node *call, Node *fd, Param *p, Type *t, Value *v)
{
	Symbol *sym;

	if (!v && p->value && !(v = sema_const(s, p->value, "the default of a compile-time parameter")))
		return false;
	if (!v) {
		diag_error(s->d, call->span, "compile-time parameter '%s' of function '%s' has no value; pass it "
			"by name (%s(..., %s=gfx950.mfma_f32_32x32x16_bf16)) or give it a default", p->name,
			fd->u.fn.id, fd->u.fn.id, p->name);
		diag_note(s->d, p->span, "'%s' declared here", p->name);
		return false;
	}
	if (v->kind != VAL_ATOM) {
		const Param *a = named_arg(call, p->name);
		diag_error(s->d, a ? a->value->span : p->value->span, "'%s' is an atom parameter; this value is "
			"not an atom", p->name);
		return false;
	}
	t->atom = v->atom;
	sym = sym_new(s, SYM_ATOM, p->name, p->span, t);
	sym->val = v;
	sym->node = v->atom;
	sym->used = true;
	sym_bind(s, sym);
	return true;
}

/* the function's compile-time parameter p, bound for this call; false after an error */
static bool
bind_ctparam(S *s, Node *call, Node *fd, Param *p, Value *given)
{
	bool is_type = !p->type->tensor && p->type->name && !strcmp(p->type->name, "type");
	bool is_atom = !p->type->tensor && p->type->name && !strcmp(p->type->name, "atom");
	Type *t = is_type ? ty_new(s, TY_TYPE) : is_atom ? ty_new(s, TY_ATOM) : sema_type_expr(s, p->type);
	Value *v = given;
	Symbol *sym;

	if (t->kind == TY_ERROR)
		return false;
	if (is_atom)
		return bind_atom_ctparam(s, call, fd, p, t, v);
	if (!is_type && !(ty_is_bool(t) || (t->kind == TY_SCALAR && t->scalar == SC_INT))) {
		diag_error(s->d, p->type->span, "compile-time parameters are 'int', 'bool', 'type' or 'atom', "
			"not '%s'", tyname(s, t));
		return false;
	}
	if (is_type && !v) {
		/* inferred from the first parameter whose type names it */
		for (int i = 0; i < fd->u.fn.params.n && !v; i++) {
			int k = infer_type(fd->u.fn.params.v[i]->type, call->u.call.args.v[i]->type, p->name);
			if (k >= 0) {
				v = val_new(s, VAL_TYPE);
				v->scalar = (ScalarKind)k;
			}
		}
	}
	if (!v && p->value) {
		v = sema_const(s, p->value, "the default of a compile-time parameter");
		if (!v)
			return false;
	}
	if (!v) {
		diag_error(s->d, call->span, "compile-time parameter '%s' of function '%s' has no value; pass it by name "
			"(%s(..., %s=%s))%s or give it a default", p->name, fd->u.fn.id, fd->u.fn.id, p->name,
			is_type ? "f32" : "4", is_type ? ", pass an argument whose type it names," : "");
		diag_note(s->d, p->span, "'%s' declared here", p->name);
		return false;
	}
	if (is_type) {
		if (v->kind != VAL_TYPE || v->scalar == SC_INT || v->scalar == SC_BOOL) {
			diag_error(s->d, given ? named_arg(call, p->name)->value->span : p->span,
				"type parameter '%s' takes a sized element type", p->name);
			return false;
		}
		t->scalar = v->scalar;
	} else {
		Type *vt = v->kind == VAL_BOOL ? ty_scalar(SC_BOOL) : v->kind == VAL_INT ? ty_scalar(SC_INT) : NULL;
		if (!vt || !sema_assignable(s, t, vt)) {
			diag_error(s->d, given ? named_arg(call, p->name)->value->span : p->span,
				"'%s' has type '%s'; this value is not one", p->name, tyname(s, t));
			return false;
		}
	}
	sym = sym_new(s, is_type ? SYM_TYPE : SYM_CTPARAM, p->name, p->span, t);
	sym->val = v;
	sym->used = true;
	sym_bind(s, sym);
	return true;
}

Type *
sema_fn_call(S *s, Node *e, Symbol *fs)
{
	Node *fd = fs->node, *k;
	NodeList *a = &e->u.call.args;
	Value **given;
	SemaFnCall *fc;
	FnCtx ctx, *saved_fn = s->fn;
	SemaModule *saved_mod = s->fn_module;
	int saved_base = s->fn_base, saved_loops = s->loops, saved_blocks = s->blocks, saved_ll = s->loop_level;
	bool saved_quiet = s->quiet, ok = true;
	int mark, errs, i;
	Type *rt;

	for (i = 0; i < a->n; i++)
		if (sema_expr(s, a->v[i])->kind == TY_ERROR)
			ok = false;
	given = ARENA_NEWN(s->a, Value *, fd->u.fn.ct.n + 1);
	for (i = 0; i < e->u.call.named.n; i++) {
		Param *np = e->u.call.named.v[i];
		int j, ct = -1;
		for (j = 0; j < fd->u.fn.ct.n; j++)
			if (!strcmp(fd->u.fn.ct.v[j]->name, np->name))
				ct = j;
		for (j = 0; j < i; j++)
			if (!strcmp(e->u.call.named.v[j]->name, np->name)) {
				diag_error(s->d, np->span, "argument '%s' given twice", np->name);
				ok = false;
			}
		if (ct < 0) {
			diag_error(s->d, np->span, "function '%s' has no compile-time parameter '%s'", fd->u.fn.id, np->name);
			diag_note(s->d, fd->u.fn.id_span, "'%s' declared here", fd->u.fn.id);
			ok = false;
			continue;
		}
		if (!(given[ct] = sema_const(s, np->value, "a compile-time argument")))
			ok = false;
	}
	if (!ok)
		return e->type = ty_simple(TY_ERROR);
	if (a->n != fd->u.fn.params.n) {
		diag_error(s->d, e->span, "function '%s' takes %d argument%s, %d given", fd->u.fn.id,
			fd->u.fn.params.n, fd->u.fn.params.n == 1 ? "" : "s", a->n);
		diag_note(s->d, fd->u.fn.id_span, "'%s' declared here", fd->u.fn.id);
		return e->type = ty_simple(TY_ERROR);
	}
	if (fs->fn_active) {
		diag_error(s->d, e->span, "function '%s' calls itself; functions are inlined, so they cannot be recursive",
			fd->u.fn.id);
		diag_note(s->d, fd->u.fn.id_span, "'%s' declared here", fd->u.fn.id);
		return e->type = ty_simple(TY_ERROR);
	}
	if (++s->fn_calls > FN_MAX_CALLS) {
		if (s->fn_calls == FN_MAX_CALLS + 1)
			diag_error(s->d, e->span, "more than %d function calls to inline in this program", FN_MAX_CALLS);
		return e->type = ty_simple(TY_ERROR);
	}

	/* the function's own scope: its module's names, its parameters */
	k = ast_clone(s->a, fd);
	errs = diag_errors(s->d);
	mark = scope_mark(s);
	s->fn_module = fs->module;
	s->fn_base = s->level;
	for (i = 0; i < k->u.fn.ct.n && ok; i++)
		ok = bind_ctparam(s, e, k, k->u.fn.ct.v[i], given[i]);
	fc = ARENA_NEW(s->a, SemaFnCall);
	fc->fn = fs;
	fc->decl = k;
	fc->nparams = k->u.fn.params.n;
	fc->params = ARENA_NEWN(s->a, Symbol *, fc->nparams + 1);
	for (i = 0; i < k->u.fn.params.n && ok; i++) {
		Param *p = k->u.fn.params.v[i];
		Node *arg = a->v[i];
		Type *want = sema_fn_type(s, p->type), *t;
		Symbol *sym;
		if (want->kind == TY_ERROR) {
			ok = false;
			break;
		}
		if (!sema_fn_accepts(s, want, arg)) {
			if (want->kind == TY_SCALAR && want->scalar == SC_INT && ty_is_int(arg->type))
				diag_error(s->d, arg->span, "parameter '%s' of '%s' is an 'int', which takes a compile-time "
					"integer; this one is known only at run time (declare the parameter i32)", p->name,
					fd->u.fn.id);
			else
				diag_error(s->d, arg->span, "argument %d of '%s' has type '%s', but parameter '%s' is '%s'",
					i + 1, fd->u.fn.id, tyname(s, arg->type), p->name, tyname(s, want));
			diag_note(s->d, p->span, "'%s' declared here", p->name);
			ok = false;
			break;
		}
		/* a scalar takes the parameter's type; a tensor or tuple keeps what the argument knows
		 * (its rank, its register layout) */
		t = want->kind == TY_SCALAR ? want : arg->type;
		sym = sym_new(s, SYM_FNPARAM, p->name, p->span, t);
		sym->val = arg->cval;
		sym->bound = arg;
		sym->used = true;
		sym->node = k;
		sym_bind(s, sym);
		fc->params[i] = sym;
	}
	rt = ok && k->u.fn.ret ? sema_fn_type(s, k->u.fn.ret) : NULL;
	if (rt && rt->kind == TY_ERROR)
		ok = false;
	if (ok) {
		memset(&ctx, 0, sizeof ctx);
		ctx.decl = k;
		ctx.body = k->u.fn.body;
		ctx.ret = rt;
		s->fn = &ctx;
		s->loops = 0;
		s->blocks = 1;    /* not a kernel's top level: no LDS buffers */
		s->loop_level = 0;
		s->quiet = saved_quiet || fs->fn_checked;
		fs->fn_active++;
		errs = diag_errors(s->d);
		sema_check_block(s, k->u.fn.body, false);
		fs->fn_active--;
		fs->fn_checked = true;
		if (rt && !ctx.ret_seen) {
			Span end = k->u.fn.body->span;
			end.lo = end.hi > end.lo ? end.hi - 1 : end.lo;
			diag_error(s->d, end, "function '%s' ends without returning its '%s' result; end it with 'return VALUE;'",
				k->u.fn.id, tyname(s, rt));
		}
		fc->ret = ctx.ret_expr;
	}
	scope_pop(s, mark, false);
	s->fn = saved_fn;
	s->fn_module = saved_mod;
	s->fn_base = saved_base;
	s->loops = saved_loops;
	s->blocks = saved_blocks;
	s->loop_level = saved_ll;
	s->quiet = saved_quiet;
	if (!ok || diag_errors(s->d) > errs) {
		if (ok)   /* an error in the body: where it was called from */
			diag_note(s->d, e->span, "in the call of '%s' here", fd->u.fn.id);
		return e->type = ty_simple(TY_ERROR);
	}
	e->u.call.fn = fc;
	if (!rt)
		return e->type = ty_simple(TY_VOID);
	e->type = result_type(s, rt, fc->ret->type);
	/* a function that only computes a compile-time value folds (nothing else to run) */
	if (fc->ret->cval) {
		bool pure = true;
		NodeList *b = &k->u.fn.body->u.block;
		for (i = 0; i + 1 < b->n; i++)
			pure &= b->v[i]->kind == S_LET && b->v[i]->u.let.init->cval;
		if (pure)
			e->cval = fc->ret->cval;
	}
	return e->type;
}

void
sema_check_return(S *s, Node *st)
{
	FnCtx *f = s->fn;
	Node *v = st->u.expr;

	if (!f) {
		int i;
		if (v) {
			sema_expr(s, v);
			diag_error(s->d, st->span, "a kernel returns no value; 'return;' ends the thread's work");
			return;
		}
		for (i = 0; i < s->nkret && s->kret[i] != st; i++)
			;
		if (i == s->nkret)
			diag_error(s->d, st->span, "a kernel returns at the end of its body, or at the end of a branch of "
				"an 'if' in its body's outermost block (e.g. if i >= N { return; }); not inside loops or "
				"nested blocks");
		return;
	}
	f->ret_seen = true;
	if (f->body->u.block.n == 0 || f->body->u.block.v[f->body->u.block.n - 1] != st)
		diag_error(s->d, st->span, "a function returns at its end only: 'return' must be the last statement of "
			"'%s' (choose the value with a var and if/else, or select)", f->decl->u.fn.id);
	if (!v) {
		if (f->ret)
			diag_error(s->d, st->span, "function '%s' returns a '%s'; give the value: 'return VALUE;'",
				f->decl->u.fn.id, tyname(s, f->ret));
		return;
	}
	if (sema_expr(s, v)->kind == TY_ERROR)
		return;
	if (!f->ret) {
		diag_error(s->d, v->span, "function '%s' has no result; declare its type: fn %s(...) -> TYPE",
			f->decl->u.fn.id, f->decl->u.fn.id);
		return;
	}
	if (!sema_fn_accepts(s, f->ret, v)) {
		diag_error(s->d, v->span, "function '%s' returns '%s', not '%s'", f->decl->u.fn.id, tyname(s, f->ret),
			tyname(s, v->type));
		return;
	}
	f->ret_expr = v;
}

/* fill, copy and gemm into a register fragment give its variable a new value: a function's
 * parameter is the function's own copy of the caller's fragment, so writing it would change
 * nothing the caller sees */
bool
sema_frag_dest(S *s, Node *d, const char *what)
{
	Symbol *sym = d->kind == E_NAME ? d->u.name.sym : NULL;

	if (!sym || sym->kind != SYM_FNPARAM || !d->type || d->type->kind != TY_TENSOR || d->type->space != SPACE_REG)
		return true;
	diag_error(s->d, d->span, "'%s' is a parameter: register fragments are passed by value, so this %s would "
		"change only the function's copy; return the new fragment instead", sym->name, what);
	diag_note(s->d, sym->decl, "'%s' declared here", sym->name);
	return false;
}

/* the last statement of block b when it is a return */
static Node *
tail_return(Node *b)
{
	Node *l = b && b->kind == S_BLOCK && b->u.block.n ? b->u.block.v[b->u.block.n - 1] : NULL;
	return l && l->kind == S_RETURN ? l : NULL;
}

/* A kernel's `return;` ends its threads where code generation can make the rest of the
 * kernel the other branch (cg_kernel_block): as the last statement of its body, or as the
 * last statement of a branch of an `if` (else if chain) standing in the body's outermost
 * block. */
void
sema_kernel_returns(S *s, Node *body)
{
	Node *r;

	s->kret = NULL;
	s->nkret = 0;
	if ((r = tail_return(body)))
		ARENA_PUSH(s->a, s->kret, s->nkret, r);
	for (int i = 0; i < body->u.block.n; i++)
		for (Node *st = body->u.block.v[i]; st && st->kind == S_IF; st = st->u.if_.els) {
			if ((r = tail_return(st->u.if_.then)))
				ARENA_PUSH(s->a, s->kret, s->nkret, r);
			if (st->u.if_.els && (r = tail_return(st->u.if_.els)))
				ARENA_PUSH(s->a, s->kret, s->nkret, r);
		}
}
