/*
 * sema.c — the checker's driver: scopes, modules and imports, declarations,
 * statements, and kernel instantiation (see sema.h for the model).
 * Expressions and builtins are in sema_expr.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtins.h"
#include "sema_int.h"
#include "syntax.h"
#include "target/target.h"

/* ---- scopes: one hash table of names; each name's bindings form a shadow chain ---- */

static unsigned
hash(const char *p)
{
	unsigned h = 2166136261u;

	while (*p)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

static Entry *
entry(S *s, const char *name, bool create)
{
	unsigned h = hash(name) & (s->nbuckets - 1);
	Entry *e;

	for (e = s->buckets[h]; e; e = e->next)
		if (!strcmp(e->name, name))
			return e;
	if (!create)
		return NULL;
	if (++s->nentries > 2 * s->nbuckets) { /* grow: keep chains short for huge modules */
		unsigned nb = 2 * s->nbuckets, i;
		Entry **b = ARENA_NEWN(s->a, Entry *, nb);
		for (i = 0; i < s->nbuckets; i++)
			while (s->buckets[i]) {
				Entry *x = s->buckets[i];
				s->buckets[i] = x->next;
				x->next = b[hash(x->name) & (nb - 1)];
				b[hash(x->name) & (nb - 1)] = x;
			}
		s->buckets = b;
		s->nbuckets = nb;
		h = hash(name) & (nb - 1);
	}
	e = ARENA_NEW(s->a, Entry);
	e->name = name;
	e->next = s->buckets[h];
	s->buckets[h] = e;
	return e;
}

/* ---- name maps: open addressing, linear probing, grown at half load ---- */

static unsigned
namemap_hash(const void *owner, const char *key)
{
	return hash(key) ^ (unsigned)((uintptr_t)owner >> 4) * 2654435761u;
}

static unsigned
namemap_slot(const NameMap *m, const void *owner, const char *key)
{
	unsigned i = namemap_hash(owner, key) & (m->cap - 1);

	while (m->keys[i] && (m->owners[i] != owner || strcmp(m->keys[i], key)))
		i = (i + 1) & (m->cap - 1);
	return i;
}

int
namemap_get(const NameMap *m, const void *owner, const char *key)
{
	unsigned i;

	if (!m->cap)
		return -1;
	i = namemap_slot(m, owner, key);
	return m->keys[i] ? m->vals[i] : -1;
}

int
namemap_put(S *s, NameMap *m, const void *owner, const char *key, int v)
{
	unsigned i;
	int old;

	if (2 * (m->n + 1) > m->cap) {
		NameMap g = {0};
		unsigned j;
		g.cap = m->cap ? 2 * m->cap : 64;
		g.owners = ARENA_NEWN(s->a, const void *, g.cap);
		g.keys = ARENA_NEWN(s->a, const char *, g.cap);
		g.vals = ARENA_NEWN(s->a, int, g.cap);
		for (j = 0; j < m->cap; j++)
			if (m->keys[j]) {
				i = namemap_slot(&g, m->owners[j], m->keys[j]);
				g.owners[i] = m->owners[j];
				g.keys[i] = m->keys[j];
				g.vals[i] = m->vals[j];
			}
		g.n = m->n;
		*m = g;
	}
	i = namemap_slot(m, owner, key);
	if (m->keys[i]) {
		old = m->vals[i];
		m->vals[i] = v;
		return old;
	}
	m->owners[i] = owner;
	m->keys[i] = key;
	m->vals[i] = v;
	m->n++;
	return -1;
}

Symbol *
sema_module_member(S *s, SemaModule *m, const char *name)
{
	int i = namemap_get(&s->members, m, name);

	return i >= 0 ? m->syms[i] : NULL;
}

Symbol *
sym_new(S *s, SymKind k, const char *name, Span decl, Type *t)
{
	Symbol *sym = ARENA_NEW(s->a, Symbol);

	sym->kind = k;
	sym->name = name;
	sym->decl = decl;
	sym->type = t;
	sym->index = s->nextid++;
	return sym;
}

static void
push_bound(S *s, Entry *e, Symbol *sym)
{
	if (s->nstack == s->capstack) {
		s->capstack = s->capstack ? 2 * s->capstack : 256;
		s->stack = realloc(s->stack, sizeof *s->stack * (size_t)s->capstack);
		s->syms = realloc(s->syms, sizeof *s->syms * (size_t)s->capstack);
		if (!s->stack || !s->syms)
			ice("out of memory");
	}
	s->stack[s->nstack] = e;
	s->syms[s->nstack++] = sym;
}

void
sym_bind(S *s, Symbol *sym)
{
	Entry *e = entry(s, sym->name, true);

	if (e->top && e->top->level == s->level && s->level > 0) {
		diag_error(s->d, sym->decl, "redefinition of '%s'", sym->name);
		if (e->top->decl.file >= 0)
			diag_note(s->d, e->top->decl, "previous definition of '%s' is here", sym->name);
		return;
	}
	sym->level = s->level;
	sym->shadow = e->top;
	e->top = sym;
	push_bound(s, e, sym);
}

/* The binding of name in scope. Inside a device function's body only its own
 * bindings (levels >= fn_base), the members and imports of its module, and
 * the builtins (level 0) are visible: never the locals of its caller. */
Symbol *
sym_lookup(S *s, const char *name)
{
	Entry *e = entry(s, name, false);
	Symbol *sym;

	if (!s->fn_module)
		return e ? e->top : NULL;
	sym = e ? e->top : NULL;
	if (sym && sym->level >= s->fn_base)
		return sym;
	if ((sym = sema_module_member(s, s->fn_module, name)))
		return sym;
	for (int i = 0; i < s->fn_module->nimports; i++)
		if (!strcmp(s->fn_module->imports[i]->name, name))
			return s->fn_module->imports[i];
	for (sym = e ? e->top : NULL; sym && sym->level > 0; sym = sym->shadow)
		;
	return sym;
}

int
scope_mark(S *s)
{
	s->level++;
	return s->nstack;
}

void
scope_pop(S *s, int mark, bool warn_unused)
{
	int i;

	for (i = mark; warn_unused && i < s->nstack; i++) {
		Symbol *sym = s->syms[i];
		if (!sym->used && sym->name[0] != '_' && sym->type->kind != TY_ERROR
		    && (sym->kind == SYM_LET || sym->kind == SYM_VAR || sym->kind == SYM_LDS || sym->kind == SYM_REG))
			diag_warning(s->d, sym->decl, "unused %s '%s'", sym->kind == SYM_LDS ? "LDS buffer" : "variable",
				sym->name);
	}
	while (s->nstack > mark) {
		Entry *e = s->stack[--s->nstack];
		e->top = s->syms[s->nstack]->shadow;
	}
	s->level--;
}

/* ---- ast_clone ---- */

static TypeExpr *clone_type(Arena *a, const TypeExpr *t);

static NodeList
clone_list(Arena *a, NodeList l)
{
	NodeList r = {0};
	int i;

	for (i = 0; i < l.n; i++)
		ast_push(a, &r, ast_clone(a, l.v[i]));
	return r;
}

static ParamList
clone_params(Arena *a, ParamList l)
{
	ParamList r = {0};
	int i;

	for (i = 0; i < l.n; i++) {
		Param *p = ARENA_NEW(a, Param);
		*p = *l.v[i];
		p->type = clone_type(a, p->type);
		p->value = ast_clone(a, p->value);
		p->body = ast_clone(a, p->body);
		ast_push_param(a, &r, p);
	}
	return r;
}

static TypeExpr *
clone_type(Arena *a, const TypeExpr *t)
{
	TypeExpr *r;
	int i;

	if (!t)
		return NULL;
	r = ARENA_NEW(a, TypeExpr);
	*r = *t;
	r->layout = ast_clone(a, t->layout);
	if (t->nelems) {
		r->elems = ARENA_NEWN(a, TypeExpr *, t->nelems);
		for (i = 0; i < t->nelems; i++)
			r->elems[i] = clone_type(a, t->elems[i]);
	}
	return r;
}

Node *
ast_clone(Arena *a, const Node *n)
{
	Node *c;
	int i;

	if (!n)
		return NULL;
	c = arena_alloc(a, ast_node_size(n->kind));
	memcpy(c, n, ast_node_size(n->kind));
	c->type = NULL;
	c->cval = NULL;
	switch (n->kind) {
	case E_NAME: c->u.name.sym = NULL; break;
	case E_TUPLE: case E_TILER: c->u.list = clone_list(a, n->u.list); break;
	case E_UNARY: c->u.unary.x = ast_clone(a, n->u.unary.x); break;
	case E_BINARY: case E_LAYOUT: case E_COMPOSE:
		c->u.binary.l = ast_clone(a, n->u.binary.l);
		c->u.binary.r = ast_clone(a, n->u.binary.r);
		break;
	case E_CALL: case E_INDEX:
		c->u.call.callee = ast_clone(a, n->u.call.callee);
		c->u.call.args = clone_list(a, n->u.call.args);
		c->u.call.named = clone_params(a, n->u.call.named);
		c->u.call.fn = NULL;
		break;
	case E_MEMBER: c->u.member.base = ast_clone(a, n->u.member.base); break;
	case E_CONVERT:
		c->u.convert.to = clone_type(a, n->u.convert.to);
		c->u.convert.x = ast_clone(a, n->u.convert.x);
		break;
	case S_BLOCK: c->u.block = clone_list(a, n->u.block); break;
	case S_LET: case S_VAR: case D_CONST:
		c->u.let.pat = ast_clone(a, n->u.let.pat);
		c->u.let.type = clone_type(a, n->u.let.type);
		c->u.let.init = ast_clone(a, n->u.let.init);
		break;
	case S_ALLOC: c->u.alloc.type = clone_type(a, n->u.alloc.type); c->u.alloc.sym = NULL; break;
	case S_ASSIGN:
		c->u.assign.lhs = ast_clone(a, n->u.assign.lhs);
		c->u.assign.rhs = ast_clone(a, n->u.assign.rhs);
		break;
	case S_EXPR: case S_ASSUME: case S_RETURN: c->u.expr = ast_clone(a, n->u.expr); break;
	case S_IF:
		c->u.if_.cond = ast_clone(a, n->u.if_.cond);
		c->u.if_.then = ast_clone(a, n->u.if_.then);
		c->u.if_.els = ast_clone(a, n->u.if_.els);
		break;
	case S_FOR:
		c->u.for_.lo = ast_clone(a, n->u.for_.lo);
		c->u.for_.hi = ast_clone(a, n->u.for_.hi);
		c->u.for_.step = ast_clone(a, n->u.for_.step);
		c->u.for_.body = ast_clone(a, n->u.for_.body);
		c->u.for_.sym = NULL;
		break;
	case S_WHILE:
		c->u.while_.cond = ast_clone(a, n->u.while_.cond);
		c->u.while_.body = ast_clone(a, n->u.while_.body);
		break;
	case S_PIPELINE:
		c->u.pipe.lo = ast_clone(a, n->u.pipe.lo);
		c->u.pipe.hi = ast_clone(a, n->u.pipe.hi);
		c->u.pipe.stages = ast_clone(a, n->u.pipe.stages);
		c->u.pipe.load = ast_clone(a, n->u.pipe.load);
		c->u.pipe.compute = ast_clone(a, n->u.pipe.compute);
		c->u.pipe.sym = NULL;
		break;
	case S_WAVES:
		c->u.waves.count = ast_clone(a, n->u.waves.count);
		c->u.waves.arms = clone_params(a, n->u.waves.arms);
		break;
	case D_KERNEL:
		c->u.kernel.ct = clone_params(a, n->u.kernel.ct);
		c->u.kernel.rt = clone_params(a, n->u.kernel.rt);
		c->u.kernel.clauses = ARENA_NEWN(a, Clause *, n->u.kernel.nclauses ? n->u.kernel.nclauses : 1);
		for (i = 0; i < n->u.kernel.nclauses; i++) {
			Clause *cl = ARENA_NEW(a, Clause);
			*cl = *n->u.kernel.clauses[i];
			cl->args = clone_list(a, cl->args);
			c->u.kernel.clauses[i] = cl;
		}
		c->u.kernel.requires = clone_list(a, n->u.kernel.requires);
		c->u.kernel.body = ast_clone(a, n->u.kernel.body);
		break;
	case D_FN:
		c->u.fn.ct = clone_params(a, n->u.fn.ct);
		c->u.fn.params = clone_params(a, n->u.fn.params);
		c->u.fn.ret = clone_type(a, n->u.fn.ret);
		c->u.fn.body = ast_clone(a, n->u.fn.body);
		break;
	case D_EXPORT: c->u.export.args = clone_params(a, n->u.export.args); break;
	case D_ATOM: c->u.atom.fields = clone_params(a, n->u.atom.fields); break;
	default: break;
	}
	return c;
}

/* ---- statements ---- */

static void check_stmt(S *s, Node *st);

void
sema_check_block(S *s, Node *b, bool nested)
{
	int mark = scope_mark(s), i;

	if (nested)
		s->blocks++;
	for (i = 0; i < b->u.block.n && !s->too_deep && !diag_stopped(s->d); i++)
		check_stmt(s, b->u.block.v[i]);
	if (nested)
		s->blocks--;
	scope_pop(s, mark, !s->quiet);
}

#define check_block sema_check_block

/* Binds a let/var pattern to a value of type t (cval v may be NULL). */
static void
bind_pattern(S *s, Node *pat, Type *t, Value *v, SymKind k, Node *decl)
{
	int i;

	if (pat->kind == E_HOLE)
		return;
	if (pat->kind == E_NAME) {
		Symbol *sym;
		if (k == SYM_VAR && t->kind == TY_SCALAR && (t->scalar == SC_INT || t->scalar == SC_FLOAT))
			t = ty_scalar(t->scalar == SC_INT ? SC_I32 : SC_F32); /* a mutable untyped constant gets a concrete type */
		sym = sym_new(s, k, pat->u.name.id, pat->span, t);
		sym->val = k == SYM_VAR ? NULL : v;
		sym->node = decl;
		if (k == SYM_LET && decl && decl->kind == S_LET && decl->u.let.pat == pat)
			sym->bound = decl->u.let.init;
		pat->u.name.sym = sym;
		pat->type = t;
		sym_bind(s, sym);
		return;
	}
	if (t->kind == TY_ERROR) {
		for (i = 0; i < pat->u.list.n; i++)
			bind_pattern(s, pat->u.list.v[i], t, NULL, k, decl);
		return;
	}
	if (t->kind != TY_TUPLE || t->nelems != pat->u.list.n) {
		if (t->kind == TY_TUPLE)
			diag_error(s->d, pat->span, "cannot bind a tuple of %d elements to a pattern of %d", t->nelems,
				pat->u.list.n);
		else
			diag_error(s->d, pat->span, "cannot destructure a value of type '%s'", tyname(s, t));
		for (i = 0; i < pat->u.list.n; i++)
			bind_pattern(s, pat->u.list.v[i], ty_simple(TY_ERROR), NULL, k, decl);
		return;
	}
	for (i = 0; i < pat->u.list.n; i++)
		bind_pattern(s, pat->u.list.v[i], t->elems[i], v && v->kind == VAL_TUPLE ? v->elems[i] : NULL, k, decl);
}

static bool
storable(const Type *t)
{
	return t->kind != TY_VOID && t->kind != TY_FUNC && t->kind != TY_MODULE && t->kind != TY_ENUM;
}

static void
check_let(S *s, Node *st)
{
	Type *t = sema_expr(s, st->u.let.init);
	SymKind k = st->kind == S_VAR ? SYM_VAR : SYM_LET;

	if (t->kind != TY_ERROR && !storable(t)) {
		diag_error(s->d, st->u.let.init->span, "cannot bind a %s value", tyname(s, t));
		t = ty_simple(TY_ERROR);
	}
	if (k == SYM_VAR && st->u.let.pat->kind == E_NAME && t->kind == TY_TUPLE) {
		diag_error(s->d, st->u.let.pat->span, "a var holds a tuple by its elements: destructure it, "
			"var (a, b) = ...");
		t = ty_simple(TY_ERROR);
	}
	if (st->u.let.type && t->kind != TY_ERROR) {
		Type *want = sema_type_expr(s, st->u.let.type);
		if (want->kind != TY_ERROR && !sema_assignable(s, want, t)) {
			diag_error(s->d, st->u.let.init->span, "cannot initialize a '%s' with a value of type '%s'",
				tyname(s, want), tyname(s, t));
		}
		if (want->kind != TY_ERROR)
			t = want;
	}
	bind_pattern(s, st->u.let.pat, t, st->u.let.init->cval, k, st);
}

static void
mark_loop_carried(S *s, Symbol *sym)
{
	/* a var bound before the innermost loop started (at a shallower scope level) is loop-carried */
	if (s->loops > 0 && sym->level < s->loop_level)
		sym->assigned_in_loop = true;
}

static void
check_lvalue(S *s, Node *lhs, Type *rt, Node *rhs)
{
	Type *lt;

	if (lhs->kind == E_TUPLE) {
		int i;
		if (rt->kind != TY_TUPLE || rt->nelems != lhs->u.list.n) {
			if (rt->kind != TY_ERROR)
				diag_error(s->d, lhs->span, "cannot assign '%s' to a tuple of %d elements", tyname(s, rt),
					lhs->u.list.n);
			return;
		}
		for (i = 0; i < lhs->u.list.n; i++)
			check_lvalue(s, lhs->u.list.v[i], rt->elems[i], rhs);
		lhs->type = rt;
		return;
	}
	if (lhs->kind == E_HOLE) {
		lhs->type = rt;
		return;
	}
	lt = sema_expr(s, lhs);
	if (lt->kind == TY_ERROR || rt->kind == TY_ERROR)
		return;
	if (lhs->kind == E_NAME) {
		Symbol *sym = lhs->u.name.sym;
		if (sym->kind == SYM_VAR) {
			mark_loop_carried(s, sym);
		} else if (lt->kind != TY_TENSOR || (sym->kind == SYM_FNPARAM && lt->space == SPACE_REG)) {
			static const char *what[SYM_NKINDS] = {
#define X(k, n) n,
				SEMA_SYMS(X)
#undef X
			};
			diag_error(s->d, lhs->span, "cannot assign to %s '%s'", what[sym->kind], sym->name);
			diag_note(s->d, sym->decl, "'%s' is declared here%s", sym->name,
				sym->kind == SYM_LET ? "; use 'var' for a mutable variable" : "");
			return;
		}
	} else if (lhs->kind == E_INDEX) {
		Type *bt = lhs->u.call.callee->type;
		Node *b = lhs->u.call.callee;
		Symbol *bs = b->kind == E_NAME ? b->u.name.sym : NULL;
		if (bt->kind != TY_TENSOR) {
			diag_error(s->d, lhs->span, "only tensor elements can be assigned through an index");
			return;
		}
		if (bt->space == SPACE_REG) {
			/* a register fragment is a value: v[i] = e gives its variable a new one */
			if (bs && bs->kind == SYM_FNPARAM) {
				diag_error(s->d, lhs->span, "'%s' is a parameter: register fragments are passed by value, so "
					"assigning its element would change only the function's copy; return the new fragment "
					"instead", bs->name);
				diag_note(s->d, bs->decl, "'%s' declared here", bs->name);
				return;
			}
			if (!bs || (bs->kind != SYM_VAR && bs->kind != SYM_REG)) {
				diag_error(s->d, lhs->span, "only a register fragment held by a 'var' or declared with 'reg' "
					"can have its elements assigned%s", bs && bs->kind == SYM_LET ? "; declare it with 'var'" : "");
				if (bs)
					diag_note(s->d, bs->decl, "'%s' declared here", bs->name);
				return;
			}
			if (bs->kind == SYM_VAR)
				mark_loop_carried(s, bs);
			for (int i = 0; i < lhs->u.call.args.n; i++)
				if (sema_holes(lhs->u.call.args.v[i])) {
					diag_error(s->d, lhs->u.call.args.v[i]->span, "a slice of a register fragment cannot be "
						"assigned; assign its elements one by one (static for)");
					return;
				}
		}
	} else if (lt->kind != TY_TENSOR) {
		diag_error(s->d, lhs->span, "cannot assign to this expression");
		return;
	}
	if (!sema_assignable(s, lt, rt))
		diag_error(s->d, rhs->span, "cannot assign a value of type '%s' to '%s'", tyname(s, rt), tyname(s, lt));
}

static void
check_cond(S *s, Node *c, const char *what)
{
	Type *t = sema_expr(s, c);

	if (t->kind != TY_ERROR && !ty_is_bool(t))
		diag_error(s->d, c->span, "the condition of %s must be bool, not '%s'", what, tyname(s, t));
}

static Type *
check_int(S *s, Node *e, const char *what)
{
	Type *t = sema_expr(s, e);

	if (t->kind != TY_ERROR && !ty_is_int(t)) {
		diag_error(s->d, e->span, "%s must be an integer, not '%s'", what, tyname(s, t));
		return ty_simple(TY_ERROR);
	}
	return t;
}

static void
check_alloc(S *s, Node *st)
{
	TypeExpr *te = st->u.alloc.type;
	Type *t;
	Symbol *sym;
	bool lds = st->u.alloc.space == SPACE_LDS;

	if (lds && (s->blocks > 0 || s->loops > 0))
		diag_error(s->d, st->span, "LDS buffers must be declared at the top level of a kernel body");
	t = sema_type_expr(s, te);
	sym = sym_new(s, lds ? SYM_LDS : SYM_REG, st->u.alloc.id, st->u.alloc.id_span, t);
	sym->node = st;
	st->u.alloc.sym = sym;
	if (t->kind != TY_ERROR) {
		Value *lv = te->layout->cval;
		if (!lv || (lv->kind != VAL_LAYOUT && lv->kind != VAL_INT && lv->kind != VAL_TUPLE)) {
			diag_error(s->d, te->layout->span, "the layout of %s buffer must be known at compile time",
				lds ? "an LDS" : "a register");
		} else if (!lds) {
			if (!sema_frag_layout_ok(s, te->layout))
				t = ty_simple(TY_ERROR);
		} else if (lds && s->kern) {
			int64_t co = lv->kind == VAL_LAYOUT ? val_cosize(lv) : val_size(lv);
			int64_t bytes = co < 0 ? -1 : co > (INT64_C(1) << 40) ? (INT64_C(1) << 40) : (co * sema_scalar_bits[t->scalar] + 7) / 8;
			SemaKernel *k = s->kern;
			ARENA_PUSH(s->a, k->lds, k->nlds, sym);
			if (bytes < 0 || k->lds_bytes < 0)
				k->lds_bytes = -1;
			else if (k->lds_bytes < (INT64_C(1) << 50))
				k->lds_bytes += bytes;
			if (k->lds_bytes > 163840) {
				diag_error(s->d, st->span,
					"LDS use of kernel '%s' reaches %lld bytes, more than the 163840 bytes of gfx950",
					k->name, (long long)k->lds_bytes);
			}
		}
	}
	sym_bind(s, sym);
}

static void
check_loop_body(S *s, Node *body, Symbol *var, Symbol *var2)
{
	int mark = scope_mark(s), saved_level = s->loop_level;

	s->loops++;
	s->loop_level = s->level;
	if (var)
		sym_bind(s, var);
	if (var2)
		sym_bind(s, var2);
	check_block(s, body, true);
	s->loop_level = saved_level;
	s->loops--;
	scope_pop(s, mark, false);
}

static void
check_stmt(S *s, Node *st)
{
	if (++s->depth > SEMA_MAX_DEPTH) {
		if (!s->too_deep)
			diag_error(s->d, st->span, "statements are nested too deeply (the limit is %d levels)", SEMA_MAX_DEPTH);
		s->too_deep = true;
		s->depth--;
		return;
	}
	switch (st->kind) {
	case S_BLOCK: check_block(s, st, true); break;
	case S_LET:
	case S_VAR: check_let(s, st); break;
	case S_ALLOC: check_alloc(s, st); break;
	case S_ASSIGN: {
		Type *rt = sema_expr(s, st->u.assign.rhs);
		if (st->u.assign.op != OP_NONE) {
			/* x op= e  is  x = x op e */
			Node tmp;
			memset(&tmp, 0, sizeof tmp);
			tmp.kind = E_BINARY;
			tmp.span = st->span;
			tmp.u.binary.op = st->u.assign.op;
			tmp.u.binary.l = ast_clone(s->a, st->u.assign.lhs);
			tmp.u.binary.r = st->u.assign.rhs;
			rt = sema_expr(s, &tmp);
		}
		check_lvalue(s, st->u.assign.lhs, rt, st->u.assign.rhs);
		break;
	}
	case S_EXPR: {
		Type *t = sema_expr(s, st->u.expr);
		const Node *cal = st->u.expr->kind == E_CALL ? st->u.expr->u.call.callee : NULL;
		bool atomic = cal && cal->kind == E_NAME && cal->u.name.sym && cal->u.name.sym->kind == SYM_BUILTIN &&
		              cal->u.name.sym->type && builtins[cal->u.name.sym->type->builtin].lower == LOWER_ATOMIC;
		if (t->kind != TY_VOID && t->kind != TY_ERROR && !atomic && !s->quiet)   /* an atomic's old value may go unused */
			diag_warning(s->d, st->u.expr->span, "expression result unused");
		break;
	}
	case S_IF:
		check_cond(s, st->u.if_.cond, "'if'");
		check_block(s, st->u.if_.then, true);
		if (st->u.if_.els) {
			if (st->u.if_.els->kind == S_IF)
				check_stmt(s, st->u.if_.els);
			else
				check_block(s, st->u.if_.els, true);
		}
		break;
	case S_FOR: {
		Type *lo = check_int(s, st->u.for_.lo, "the start of a loop range");
		Type *hi = check_int(s, st->u.for_.hi, "the end of a loop range");
		Type *vt = lo->kind == TY_SCALAR && lo->scalar != SC_INT ? lo : hi;
		Symbol *var;
		if (st->u.for_.step) {
			check_int(s, st->u.for_.step, "the loop step");
			if (st->u.for_.step->cval && st->u.for_.step->cval->i <= 0)
				diag_error(s->d, st->u.for_.step->span, "the loop step must be positive, not %lld",
					(long long)st->u.for_.step->cval->i);
		}
		if (lo->kind == TY_SCALAR && hi->kind == TY_SCALAR && lo->scalar != hi->scalar && lo->scalar != SC_INT
		    && hi->scalar != SC_INT)
			diag_error(s->d, st->span, "the loop range mixes '%s' and '%s'", tyname(s, lo), tyname(s, hi));
		if (st->u.for_.unroll) {
			if (!st->u.for_.lo->cval && lo->kind != TY_ERROR)
				diag_error(s->d, st->u.for_.lo->span, "a static loop needs compile-time bounds");
			else if (!st->u.for_.hi->cval && hi->kind != TY_ERROR)
				diag_error(s->d, st->u.for_.hi->span, "a static loop needs compile-time bounds");
			else if (st->u.for_.step && !st->u.for_.step->cval && st->u.for_.step->type->kind != TY_ERROR)
				diag_error(s->d, st->u.for_.step->span, "a static loop needs a compile-time step");
			else if (st->u.for_.lo->cval && st->u.for_.hi->cval && st->u.for_.lo->cval->kind == VAL_INT
				 && st->u.for_.hi->cval->kind == VAL_INT && (st->u.for_.hi->cval->i > st->u.for_.lo->cval->i)
				 && (uint64_t)st->u.for_.hi->cval->i - (uint64_t)st->u.for_.lo->cval->i > 65536)
				diag_error(s->d, st->span, "a static loop of more than 65536 iterations");
		}
		if (vt->kind != TY_SCALAR)
			vt = ty_scalar(SC_I32);
		else if (vt->scalar == SC_INT)
			vt = st->u.for_.unroll ? ty_scalar(SC_INT) : ty_scalar(SC_I32);
		var = sym_new(s, SYM_LOOP, st->u.for_.var, st->u.for_.var_span, vt);
		var->node = st;
		st->u.for_.sym = var;
		check_loop_body(s, st->u.for_.body, var, NULL);
		break;
	}
	case S_WHILE:
		check_cond(s, st->u.while_.cond, "'while'");
		check_loop_body(s, st->u.while_.body, NULL, NULL);
		break;
	case S_PIPELINE: {
		Value *stages;
		Symbol *var, *stage;
		if (s->pipelines)
			diag_error(s->d, st->span, "pipelines cannot be nested");
		check_int(s, st->u.pipe.lo, "the start of a pipeline range");
		check_int(s, st->u.pipe.hi, "the end of a pipeline range");
		stages = sema_const(s, st->u.pipe.stages, "the number of pipeline stages");
		if (stages && (stages->kind != VAL_INT || stages->i < 1 || stages->i > 8))
			diag_error(s->d, st->u.pipe.stages->span, "a pipeline has 1 to 8 stages");
		var = sym_new(s, SYM_LOOP, st->u.pipe.var, st->u.pipe.var_span, ty_scalar(SC_I32));
		var->node = st;
		st->u.pipe.sym = var;
		s->pipelines++;
		stage = sym_new(s, SYM_LOOP, "stage", st->u.pipe.var_span, ty_scalar(SC_I32));
		stage->used = true;
		stage->node = st;
		check_loop_body(s, st->u.pipe.load, var, stage);
		var = sym_new(s, SYM_LOOP, st->u.pipe.var, st->u.pipe.var_span, ty_scalar(SC_I32));
		*var = *st->u.pipe.sym;
		stage = sym_new(s, SYM_LOOP, "stage", st->u.pipe.var_span, ty_scalar(SC_I32));
		stage->used = true;
		stage->node = st;
		check_loop_body(s, st->u.pipe.compute, st->u.pipe.sym, stage);
		s->pipelines--;
		break;
	}
	case S_WAVES: {
		Value *n = sema_const(s, st->u.waves.count, "the number of wave groups");
		int i, j;
		if (n && (n->kind != VAL_INT || n->i < 1 || n->i > 16)) {
			diag_error(s->d, st->u.waves.count->span, "the number of wave groups must be 1 to 16");
			n = NULL;
		}
		for (i = 0; i < st->u.waves.arms.n; i++) {
			Param *arm = st->u.waves.arms.v[i];
			int64_t g = arm->value->u.ival;
			arm->value->type = ty_scalar(SC_INT);
			arm->value->cval = val_int(s, g);
			if (n && g >= n->i)
				diag_error(s->d, arm->span, "wave group %lld does not exist; groups are 0 to %lld", (long long)g,
					(long long)n->i - 1);
			for (j = 0; j < i; j++)
				if (st->u.waves.arms.v[j]->value->u.ival == g) {
					diag_error(s->d, arm->span, "wave group %lld appears twice", (long long)g);
					diag_note(s->d, st->u.waves.arms.v[j]->span, "first given here");
				}
			check_block(s, arm->body, true);
		}
		break;
	}
	case S_ASSUME: {
		check_cond(s, st->u.expr, "'assume'");
		if (st->u.expr->cval && st->u.expr->cval->kind == VAL_BOOL && !st->u.expr->cval->i)
			diag_error(s->d, st->u.expr->span, "this assumption is false for this instance");
		break;
	}
	case S_RETURN: sema_check_return(s, st); break;
	default: diag_error(s->d, st->span, "not a statement");
	}
	s->depth--;
}

/* ---- modules ---- */

static char *
dir_of(S *s, const char *path)
{
	const char *sl = strrchr(path, '/');

	if (!sl)
		return ".";
	return arena_strndup(s->a, path, (size_t)(sl - path) ? (size_t)(sl - path) : 1);
}

static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	struct stat st;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1L << 30)) {
		fclose(f);
		return NULL;
	}
	n = st.st_size;
	buf = malloc((size_t)n + 1);
	if (!buf)
		ice("out of memory");
	*len = fread(buf, 1, (size_t)n, f);
	fclose(f);
	return buf;
}

static void add_file(S *s, const char *path)
{
	SemaProgram *p = s->prog;

	ARENA_PUSH(s->a, p->files, p->nfiles, arena_strdup(s->a, path));
}

static void check_module(S *s, SemaModule *m, bool is_main);

static SemaModule *
find_loaded(S *s, const char *name)
{
	int i;

	for (i = 0; i < s->prog->nmodules; i++)
		if (!strcmp(s->prog->modules[i]->name, name))
			return s->prog->modules[i];
	return NULL;
}

static void
add_module(S *s, SemaModule *m)
{
	SemaProgram *p = s->prog;

	ARENA_PUSH(s->a, p->modules, p->nmodules, m);
}

static SemaModule *
load_module(S *s, Node *imp)
{
	const char *name = imp->u.import.id;
	SemaModule *m = find_loaded(s, name);
	const char *dirs[258];
	int nd = 0, i;
	char *text = NULL, *path = NULL;
	size_t len = 0;
	int file;
	AstModule *ast;
	const char *saved_dir;

	if (m) {
		if (m->loading) {
			diag_error(s->d, imp->span, "import of module '%s' forms a cycle", name);
			return NULL;
		}
		return m;
	}
	dirs[nd++] = s->cur_dir;
	for (i = 0; i < s->o->nincdirs && nd < 256; i++)
		dirs[nd++] = s->o->incdirs[i];
	if (s->o->stdlib_dir)
		dirs[nd++] = s->o->stdlib_dir;
	for (i = 0; i < nd && !text; i++) {
		path = arena_printf(s->a, "%s/%s.fly", dirs[i], name);
		text = read_file(path, &len);
	}
	if (!text) {
		diag_error(s->d, imp->u.import.id_span, "module '%s' not found", name);
		for (i = 0; i < nd; i++)
			diag_note(s->d, SPAN_NONE, "searched %s/%s.fly", dirs[i], name);
		if (!s->o->stdlib_dir)
			diag_note(s->d, SPAN_NONE, "the standard library folder was not found next to flyc");
		return NULL;
	}
	add_file(s, path);
	file = diag_add_file(s->d, path, text, len);
	free(text);
	m = ARENA_NEW(s->a, SemaModule);
	m->name = name;
	m->path = path;
	m->loading = true;
	add_module(s, m);
	ast = parse_module(s->a, s->d, file, name);
	saved_dir = s->cur_dir;
	s->cur_dir = dir_of(s, path);
	m->ast = ast;
	{
		int before = diag_errors(s->d);
		check_module(s, m, false);
		if (diag_errors(s->d) > before)
			diag_note(s->d, imp->span, "in module '%s' imported here", name);
	}
	m->loading = false;
	s->cur_dir = saved_dir;
	return m;
}

static void
module_sym(S *s, SemaModule *m, Symbol *sym)
{
	if (namemap_get(&s->members, m, sym->name) < 0)
		namemap_put(s, &s->members, m, sym->name, m->nsyms);
	ARENA_PUSH(s->a, m->syms, m->nsyms, sym);
}

/* Atom kinds and their fields: name, required, what ("s" string, "i" int, "t" type, "l" layout, "h" shape). */
static const struct { const char *kind, *field, *what; bool req; } atom_fields[] = {
	{"mma", "instr", "s", true}, {"mma", "intrinsic", "s", true}, {"mma", "shape", "h", true},
	{"mma", "a", "t", true}, {"mma", "b", "t", true}, {"mma", "c", "t", true},
	{"mma", "threads", "i", true}, {"mma", "a_layout", "l", true}, {"mma", "b_layout", "l", true},
	{"mma", "c_layout", "l", true}, {"mma", "cycles", "i", false}, {"mma", "scale", "t", false},
	{"mma", "scale_layout", "l", false},
	{"copy", "instr", "s", true}, {"copy", "intrinsic", "s", true}, {"copy", "bits", "i", true},
	{"copy", "from", "s", true}, {"copy", "to", "s", true}, {"copy", "threads", "i", false},
	{"copy", "src_layout", "l", false}, {"copy", "dst_layout", "l", false}, {"copy", "elem_bits", "i", false},
};

static void
check_atom(S *s, Node *at)
{
	const char *kind = at->u.atom.kind;
	ParamList *f = &at->u.atom.fields;
	size_t k;
	int i, j;
	bool known = false;

	for (k = 0; k < sizeof atom_fields / sizeof atom_fields[0]; k++)
		known |= !strcmp(atom_fields[k].kind, kind);
	if (!known) {
		diag_error(s->d, at->u.atom.kind_span, "unknown atom kind '%s' (expected mma or copy)", kind);
		return;
	}
	for (i = 0; i < f->n; i++) {
		Param *p = f->v[i];
		const char *what = NULL;
		Value *v;
		for (k = 0; k < sizeof atom_fields / sizeof atom_fields[0]; k++)
			if (!strcmp(atom_fields[k].kind, kind) && !strcmp(atom_fields[k].field, p->name))
				what = atom_fields[k].what;
		for (j = 0; j < i; j++)
			if (!strcmp(f->v[j]->name, p->name))
				diag_error(s->d, p->span, "field '%s' given twice", p->name);
		if (!what) {
			diag_error(s->d, p->span, "%s atoms have no field '%s'", kind, p->name);
			continue;
		}
		v = sema_const(s, p->value, "an atom field");
		if (!v)
			continue;
		if ((what[0] == 's' && v->kind != VAL_STR) || (what[0] == 'i' && v->kind != VAL_INT)
		    || (what[0] == 't' && v->kind != VAL_TYPE) || (what[0] == 'l' && v->kind != VAL_LAYOUT)
		    || (what[0] == 'h' && v->kind != VAL_TUPLE)) {
			static const char *names[] = {"a string", "an integer", "a type", "a static layout", "a shape"};
			diag_error(s->d, p->value->span, "field '%s' must be %s", p->name, names[strchr("sitlh", what[0]) - "sitlh"]);
			p->value->cval = NULL;
		}
	}
	for (k = 0; k < sizeof atom_fields / sizeof atom_fields[0]; k++) {
		bool have = false;
		if (strcmp(atom_fields[k].kind, kind) || !atom_fields[k].req)
			continue;
		for (i = 0; i < f->n; i++)
			have |= !strcmp(f->v[i]->name, atom_fields[k].field);
		if (!have)
			diag_error(s->d, at->u.atom.id_span, "%s atom '%s' lacks the field '%s'", kind, at->u.atom.id,
				atom_fields[k].field);
	}
	/* thread-value layouts of an MMA: (threads, values) -> M*K, N*K, M*N elements */
	if (!strcmp(kind, "mma")) {
		Value *sh = NULL, *th = NULL;
		for (i = 0; i < f->n; i++) {
			if (!strcmp(f->v[i]->name, "shape"))
				sh = f->v[i]->value->cval;
			if (!strcmp(f->v[i]->name, "threads"))
				th = f->v[i]->value->cval;
		}
		if (sh && (sh->kind != VAL_TUPLE || sh->nelems != 3 || val_size(sh) < 0)) {
			diag_error(s->d, at->u.atom.id_span, "the shape of an MMA atom is (M, N, K)");
			sh = NULL;
		}
		for (i = 0; sh && i < f->n; i++) {
			const char *nm = f->v[i]->name;
			Value *l = f->v[i]->value->cval;
			int64_t want;
			if (!l || l->kind != VAL_LAYOUT || strlen(nm) != 8 || strcmp(nm + 1, "_layout") || !strchr("abc", nm[0]))
				continue;
			want = nm[0] == 'a' ? sh->elems[0]->i * sh->elems[2]->i
			     : nm[0] == 'b' ? sh->elems[1]->i * sh->elems[2]->i : sh->elems[0]->i * sh->elems[1]->i;
			if (val_size(l) != want)
				diag_error(s->d, f->v[i]->value->span,
					"thread-value layout '%s' covers %lld elements, but the %c operand of a %lldx%lldx%lld MMA has %lld",
					nm, (long long)val_size(l), nm[0] - 32, (long long)sh->elems[0]->i,
					(long long)sh->elems[1]->i, (long long)sh->elems[2]->i, (long long)want);
			else if (th && th->kind == VAL_INT && l->shape->kind == VAL_TUPLE && l->shape->nelems == 2
				 && val_size(l->shape->elems[0]) != th->i)
				diag_error(s->d, f->v[i]->value->span,
					"the thread mode of '%s' has %lld threads, but the atom runs on %lld",
					nm, (long long)val_size(l->shape->elems[0]), (long long)th->i);
			else if (val_cosize(l) != want)
				diag_error(s->d, f->v[i]->value->span,
					"thread-value layout '%s' is not a bijection onto its %lld elements (cosize %lld)",
					nm, (long long)want, (long long)val_cosize(l));
		}
	}
}

/* ---- kernels ---- */

typedef struct {
	Node *decl;        /* the original D_KERNEL */
	Symbol *sym;
	bool failed;
	bool exported;
	int ninst;         /* instances to make; with one, the original is annotated in place */
} KernInfo;

static bool
parse_define(S *s, const char *txt, Type *t, Value **out)
{
	char *end;
	long long v;

	if (ty_is_bool(t)) {
		if (!strcmp(txt, "true") || !strcmp(txt, "1")) {
			*out = val_new(s, VAL_BOOL);
			(*out)->i = 1;
			return true;
		}
		if (!strcmp(txt, "false") || !strcmp(txt, "0")) {
			*out = val_new(s, VAL_BOOL);
			return true;
		}
		return false;
	}
	errno = 0;
	v = strtoll(txt, &end, 0);
	if (errno || end == txt || *end)
		return false;
	*out = val_int(s, v);
	return true;
}

static const SemaDefine *
find_define(S *s, const char *name)
{
	int i;
	const SemaDefine *r = NULL;

	for (i = 0; i < s->o->ndefines; i++)
		if (!strcmp(s->o->defines[i].name, name))
			r = &s->o->defines[i]; /* the last one wins, as with cc */
	return r;
}

/* An atom parameter (MMA: atom = gfx950.mfma_f32_32x32x16_bf16): its value is an atom
 * named by an export argument, -D NAME=MODULE.ATOM or the default, bound as the atom
 * itself, so tiled_mma(MMA, ...) and tiled_copy(MMA, ...) see the named atom. */
static void
bind_atom_param(S *s, KernInfo *ki, Param *p, Node *given)
{
	const SemaDefine *def = given ? NULL : find_define(s, p->name);
	Node *src = given ? given : p->value;
	Value *v = NULL;
	Type *t = ty_simple(TY_ERROR);
	Symbol *sym;

	if (def) {
		const char *dot = strchr(def->value, '.');
		Symbol *ms = NULL, *as = NULL;
		if (dot) {
			char mod[64];
			snprintf(mod, sizeof mod, "%.*s", (int)(dot - def->value), def->value);
			ms = sym_lookup(s, mod);
		}
		if (ms && ms->kind == SYM_MODULE && ms->module)
			as = sema_module_member(s, ms->module, dot + 1);
		if (as && as->kind == SYM_ATOM)
			v = as->val;
		else
			diag_error(s->d, SPAN_NONE, "-D %s=%s: not an atom (write MODULE.ATOM, e.g. "
			           "gfx950.mfma_f32_32x32x16_f16, with the module imported)", def->name, def->value);
	} else if (src) {
		v = sema_const(s, src, given ? "an export argument" : "the default of a compile-time parameter");
		if (v && v->kind != VAL_ATOM) {
			diag_error(s->d, src->span, "'%s' is an atom parameter; this value is not an atom", p->name);
			v = NULL;
		}
	} else {
		diag_error(s->d, p->span, "compile-time parameter '%s' of kernel '%s' has no value; give it a "
		           "default, pass -D %s=MODULE.ATOM, or export an instance", p->name,
		           ki->decl->u.kernel.id, p->name);
	}
	if (v) {
		t = ty_new(s, TY_ATOM);
		t->atom = v->atom;
	}
	sym = sym_new(s, v ? SYM_ATOM : SYM_CTPARAM, p->name, p->span, t);
	sym->val = v;
	sym->node = v ? v->atom : NULL;
	sym->used = true;
	sym_bind(s, sym);
	ARENA_PUSH(s->a, s->kern->ct, s->kern->nct, sym);
}

static void
instantiate(S *s, KernInfo *ki, const char *name, Node *exp)
{
	Node *k = ki->ninst > 1 ? ast_clone(s->a, ki->decl) : ki->decl;
	SemaKernel *sk = ARENA_NEW(s->a, SemaKernel);
	int mark = scope_mark(s), i, j, errs = diag_errors(s->d);
	bool have_block = false, have_grid = false;

	sk->name = name;
	sk->decl = k;
	sk->block[0] = sk->block[1] = sk->block[2] = 1;
	s->kern = sk;
	s->loops = s->blocks = s->pipelines = 0;

	/* compile-time parameters: export argument > -D > default */
	for (i = 0; i < k->u.kernel.ct.n; i++) {
		Param *p = k->u.kernel.ct.v[i];
		bool is_type = !p->type->tensor && !strcmp(p->type->name, "type");
		Type *t;
		Value *v = NULL;
		Node *given = NULL;
		const SemaDefine *def;
		Symbol *sym;
		for (j = 0; exp && j < exp->u.export.args.n; j++)
			if (!strcmp(exp->u.export.args.v[j]->name, p->name))
				given = exp->u.export.args.v[j]->value;
		if (!p->type->tensor && !strcmp(p->type->name, "atom")) {
			bind_atom_param(s, ki, p, given);
			continue;
		}
		t = is_type ? ty_new(s, TY_TYPE) : sema_type_expr(s, p->type);
		if (t->kind != TY_ERROR && !is_type &&
		    !(ty_is_bool(t) || (t->kind == TY_SCALAR && t->scalar == SC_INT))) {
			diag_error(s->d, p->type->span, "compile-time parameters are 'int', 'bool', 'type' or 'atom', "
				"not '%s'", tyname(s, t));
			t = ty_simple(TY_ERROR);
		}
		if (is_type) {
			/* a type parameter: an element type such as bf16, bound as a type name */
			Node *src = given ? given : p->value;
			def = given ? NULL : find_define(s, p->name);
			if (def) {
				Symbol *ts = sym_lookup(s, def->value);
				if (ts && ts->kind == SYM_TYPE)
					v = ts->val;
				else
					diag_error(s->d, SPAN_NONE, "-D %s=%s: not a type name", def->name, def->value);
			} else if (src) {
				v = sema_const(s, src, given ? "an export argument" : "the default of a compile-time parameter");
				if (v && v->kind != VAL_TYPE) {
					diag_error(s->d, src->span, "'%s' is a type parameter; this value is not a type", p->name);
					v = NULL;
				}
			} else {
				diag_error(s->d, p->span,
					"compile-time parameter '%s' of kernel '%s' has no value; give it a default, pass -D %s=TYPE, or export an instance",
					p->name, ki->decl->u.kernel.id, p->name);
			}
			if (v && (v->scalar == SC_INT || v->scalar == SC_BOOL)) {
				diag_error(s->d, src ? src->span : SPAN_NONE, "type parameter '%s' must be a sized element type, not '%s'",
					p->name, sema_scalar_names[v->scalar]);
				v = NULL;
			}
			if (v)
				t->scalar = v->scalar;
			sym = sym_new(s, v ? SYM_TYPE : SYM_CTPARAM, p->name, p->span, v ? t : ty_simple(TY_ERROR));
			sym->val = v;
			sym->used = true;
			sym_bind(s, sym);
			ARENA_PUSH(s->a, sk->ct, sk->nct, sym);
			continue;
		}
		if (given) {
			v = sema_const(s, given, "an export argument");
			if (v && t->kind != TY_ERROR && !sema_assignable(s, t, given->type)) {
				diag_error(s->d, given->span, "'%s' has type '%s', but this value has type '%s'", p->name,
					tyname(s, t), tyname(s, given->type));
				v = NULL;
			}
		} else if ((def = find_define(s, p->name))) {
			if (t->kind != TY_ERROR && !parse_define(s, def->value, t, &v))
				diag_error(s->d, SPAN_NONE, "-D %s=%s: not a valid '%s' value", def->name, def->value,
					tyname(s, t));
		} else if (p->value) {
			v = sema_const(s, p->value, "the default of a compile-time parameter");
			if (v && t->kind != TY_ERROR && !sema_assignable(s, t, p->value->type)) {
				diag_error(s->d, p->value->span, "the default of '%s' has type '%s', not '%s'", p->name,
					tyname(s, p->value->type), tyname(s, t));
				v = NULL;
			}
		} else {
			diag_error(s->d, p->span,
				"compile-time parameter '%s' of kernel '%s' has no value; give it a default, pass -D %s=VALUE, or export an instance",
				p->name, ki->decl->u.kernel.id, p->name);
		}
		sym = sym_new(s, SYM_CTPARAM, p->name, p->span, v ? t : ty_simple(TY_ERROR));
		sym->val = v;
		sym->used = true;
		sym_bind(s, sym);
		ARENA_PUSH(s->a, sk->ct, sk->nct, sym);
	}
	for (j = 0; exp && j < exp->u.export.args.n; j++) {
		bool found = false;
		for (i = 0; i < k->u.kernel.ct.n; i++)
			found |= !strcmp(k->u.kernel.ct.v[i]->name, exp->u.export.args.v[j]->name);
		if (!found) {
			diag_error(s->d, exp->u.export.args.v[j]->span, "kernel '%s' has no compile-time parameter '%s'",
				ki->decl->u.kernel.id, exp->u.export.args.v[j]->name);
			diag_note(s->d, ki->decl->u.kernel.id_span, "'%s' declared here", ki->decl->u.kernel.id);
		}
	}
	/* run-time parameters: bind all, then type the tensors (their layouts may name later parameters) */
	for (i = 0; i < k->u.kernel.rt.n; i++) {
		Param *p = k->u.kernel.rt.v[i];
		Symbol *sym = sym_new(s, SYM_PARAM, p->name, p->span, ty_simple(TY_ERROR));
		sym->index = i;
		sym->used = true;
		if (!p->type->tensor) {
			sym->type = sema_type_expr(s, p->type);
			if (sym->type->kind == TY_SCALAR && (sym->type->scalar == SC_INT)) {
				diag_error(s->d, p->type->span,
					"run-time parameter '%s' needs a sized type such as i32; 'int' is for compile-time parameters", p->name);
				sym->type = ty_simple(TY_ERROR);
			}
		}
		sym_bind(s, sym);
		ARENA_PUSH(s->a, sk->params, sk->nparams, sym);
	}
	for (i = 0; i < k->u.kernel.rt.n; i++) {
		Param *p = k->u.kernel.rt.v[i];
		if (!p->type->tensor)
			continue;
		if (p->type->space != SPACE_GLOBAL) {
			diag_error(s->d, p->type->span, "kernel parameters are global tensors or scalars; '%s' is not global",
				p->name);
			continue;
		}
		sk->params[i]->type = sema_type_expr(s, p->type);
	}
	/* clauses */
	for (i = 0; i < k->u.kernel.nclauses; i++) {
		Clause *c = k->u.kernel.clauses[i];
		for (j = 0; j < i; j++)
			if (!strcmp(k->u.kernel.clauses[j]->name, c->name)) {
				diag_error(s->d, c->span, "clause '%s' given twice", c->name);
				diag_note(s->d, k->u.kernel.clauses[j]->span, "first given here");
			}
		if (!strcmp(c->name, "block")) {
			int64_t total = 1;
			have_block = true;
			if (c->args.n < 1 || c->args.n > 3) {
				diag_error(s->d, c->span, "block() takes 1 to 3 sizes");
				continue;
			}
			for (j = 0; j < c->args.n; j++) {
				Value *v = sema_const(s, c->args.v[j], "the block size");
				if (!v)
					continue;
				if (v->kind != VAL_INT || v->i < 1 || v->i > 1024) {
					diag_error(s->d, c->args.v[j]->span, "a block size must be an integer from 1 to 1024");
					continue;
				}
				sk->block[j] = v->i;
				total *= v->i;
			}
			if (total > 1024)
				diag_error(s->d, c->span, "a workgroup has at most 1024 threads; this one has %lld",
					(long long)total);
		} else if (!strcmp(c->name, "grid")) {
			have_grid = true;
			if (c->args.n < 1 || c->args.n > 3) {
				diag_error(s->d, c->span, "grid() takes 1 to 3 sizes");
				continue;
			}
			s->in_grid = true;   /* device.cus may appear */
			for (j = 0; j < c->args.n; j++) {
				Type *t = check_int(s, c->args.v[j], "a grid size");
				(void)t;
				sk->grid[j] = c->args.v[j];
			}
			s->in_grid = false;
		} else if (!strcmp(c->name, "waves_per_eu")) {
			Value *v;
			if (c->args.n != 1) {
				diag_error(s->d, c->span, "waves_per_eu() takes one number");
				continue;
			}
			v = sema_const(s, c->args.v[0], "waves_per_eu");
			if (v && (v->kind != VAL_INT || v->i < 1 || v->i > 16))
				diag_error(s->d, c->args.v[0]->span, "waves_per_eu must be from 1 to 16");
			else if (v)
				sk->waves_per_eu = (int)v->i;
		} else if (!strcmp(c->name, "targets")) {
			if (c->args.n < 1)
				diag_error(s->d, c->span, "targets() names at least one architecture");
			for (j = 0; j < c->args.n; j++) {
				Node *x = c->args.v[j];
				unsigned bit = x->kind == E_NAME ? sema_target_bit(x->u.name.id) : 0;
				if (!bit)
					diag_error(s->d, x->span, "targets() takes architecture names: gfx950, gfx1201");
				sk->targets |= bit;
				x->type = ty_simple(TY_ENUM);
			}
		} else
			diag_error(s->d, c->span, "unknown kernel clause '%s' (expected block, grid, waves_per_eu or targets)", c->name);
	}
	if (!have_block)
		diag_error(s->d, k->u.kernel.id_span, "kernel '%s' needs a block(N) clause giving its workgroup size",
			k->u.kernel.id);
	if (!have_grid)
		diag_error(s->d, k->u.kernel.id_span, "kernel '%s' needs a grid(...) clause giving its number of workgroups",
			k->u.kernel.id);
	for (i = 0; i < k->u.kernel.requires.n; i++) {
		Node *r = k->u.kernel.requires.v[i];
		check_cond(s, r, "'requires'");
		if (r->cval && r->cval->kind == VAL_BOOL && !r->cval->i)
			diag_error(s->d, r->span, "requirement '%s' is false for instance '%s'", ast_expr_str(s->a, r), name);
	}
	sk->requires = k->u.kernel.requires;
	sema_kernel_returns(s, k->u.kernel.body);
	check_block(s, k->u.kernel.body, false);
	scope_pop(s, mark, false);
	s->kern = NULL;
	s->too_deep = false;
	s->depth = 0;
	if (diag_errors(s->d) > errs) {
		ki->failed = true;
		if (exp)
			diag_note(s->d, exp->span, "in the instance '%s' exported here", name);
		return;
	}
	{
		SemaProgram *p = s->prog;
		ARENA_PUSH(s->a, p->kernels, p->nkernels, sk);
	}
}

static void
check_module(S *s, SemaModule *m, bool is_main)
{
	int mark = scope_mark(s), i, j, nk = 0;
	NodeList *ds = &m->ast->decls;
	KernInfo *ks = ARENA_NEWN(s->a, KernInfo, ds->n + 1);

	/* imports first, so an imported module never sees this module's names */
	for (j = 0; j < 2; j++)
	for (i = 0; i < ds->n && !diag_stopped(s->d); i++) {
		Node *d = ds->v[i];
		Symbol *sym;
		if ((d->kind == D_IMPORT) != (j == 0))
			continue;
		switch (d->kind) {
		case D_IMPORT: {
			SemaModule *im = load_module(s, d);
			sym = sym_new(s, SYM_MODULE, d->u.import.id, d->u.import.id_span, ty_simple(TY_MODULE));
			sym->module = im;
			sym->used = true;
			if (!im)
				sym->type = ty_simple(TY_ERROR);
			sym_bind(s, sym);
			ARENA_PUSH(s->a, m->imports, m->nimports, sym);
			break;
		}
		case D_CONST: {
			Value *v = sema_const(s, d->u.let.init, "the value of a constant");
			Type *t = d->u.let.init->type;
			if (d->u.let.type && t->kind != TY_ERROR) {
				Type *want = sema_type_expr(s, d->u.let.type);
				if (want->kind != TY_ERROR && !sema_assignable(s, want, t))
					diag_error(s->d, d->u.let.init->span, "cannot initialize a '%s' with a value of type '%s'",
						tyname(s, want), tyname(s, t));
				else if (want->kind != TY_ERROR)
					t = want;
			}
			sym = sym_new(s, SYM_CONST, d->u.let.pat->u.name.id, d->u.let.pat->span, t);
			sym->val = v;
			sym->node = d;
			sym->used = true;
			d->u.let.pat->u.name.sym = sym;
			sym_bind(s, sym);
			module_sym(s, m, sym);
			break;
		}
		case D_ATOM: {
			Type *t = ty_new(s, TY_ATOM);
			check_atom(s, d);
			t->atom = d;
			sym = sym_new(s, SYM_ATOM, d->u.atom.id, d->u.atom.id_span, t);
			sym->val = val_new(s, VAL_ATOM);
			sym->val->atom = d;
			sym->node = d;
			sym->used = true;
			sym_bind(s, sym);
			module_sym(s, m, sym);
			break;
		}
		case D_FN:
			/* checked at each call, with the call's arguments (sema_fn.c) */
			sym = sym_new(s, SYM_FN, d->u.fn.id, d->u.fn.id_span, ty_simple(TY_VOID));
			sym->node = d;
			sym->module = m;
			sym->used = true;
			sym_bind(s, sym);
			module_sym(s, m, sym);
			break;
		case D_KERNEL:
			sym = sym_new(s, SYM_KERNEL, d->u.kernel.id, d->u.kernel.id_span, ty_simple(TY_VOID));
			sym->node = d;
			sym->used = true;
			sym_bind(s, sym);
			module_sym(s, m, sym);
			ks[nk].decl = d;
			ks[nk++].sym = sym;
			break;
		default:
			break;
		}
	}
	if (is_main) {
		/* -D names must name some compile-time parameter */
		for (i = 0; i < s->o->ndefines; i++) {
			bool found = false;
			int kk;
			for (kk = 0; kk < nk; kk++)
				for (j = 0; j < ks[kk].decl->u.kernel.ct.n; j++)
					found |= !strcmp(ks[kk].decl->u.kernel.ct.v[j]->name, s->o->defines[i].name);
			if (!found)
				diag_warning(s->d, SPAN_NONE, "-D %s does not name a compile-time parameter of any kernel",
					s->o->defines[i].name);
		}
		/* kernels and exports by name (hash maps, chains for repeated names) keep this linear */
		NameMap byname = {0}, byas = {0};
		int *kprev = ARENA_NEWN(s->a, int, nk + 1), *eprev = ARENA_NEWN(s->a, int, ds->n + 1);
		int *chain = NULL, nchain = 0;
		for (i = 0; i < nk; i++)
			kprev[i] = namemap_put(s, &byname, NULL, ks[i].decl->u.kernel.id, i);
		for (i = 0; i < ds->n; i++) {
			int kk;
			if (ds->v[i]->kind != D_EXPORT)
				continue;
			for (kk = namemap_get(&byname, NULL, ds->v[i]->u.export.kernel); kk >= 0; kk = kprev[kk]) {
				ks[kk].ninst++;
				ks[kk].exported = true;
			}
		}
		for (i = 0; i < nk; i++)
			if (!ks[i].exported)
				ks[i].ninst = 1;
		/* exports */
		for (i = 0; i < ds->n; i++) {
			Node *d = ds->v[i];
			KernInfo *ki = NULL;
			int kk, last;
			if (d->kind != D_EXPORT)
				continue;
			last = namemap_get(&byname, NULL, d->u.export.kernel);
			if (last >= 0)
				ki = &ks[last]; /* the last kernel of that name */
			/* earlier exports of the same name, in source order */
			eprev[i] = namemap_put(s, &byas, NULL, d->u.export.as, i);
			nchain = 0;
			for (j = eprev[i]; j >= 0; j = eprev[j])
				ARENA_PUSH(s->a, chain, nchain, j);
			while (nchain > 0) {
				j = chain[--nchain];
				diag_error(s->d, d->u.export.as_span, "two exports are named '%s'", d->u.export.as);
				diag_note(s->d, ds->v[j]->u.export.as_span, "first exported here");
			}
			nchain = 0;
			for (kk = namemap_get(&byname, NULL, d->u.export.as); kk >= 0; kk = kprev[kk])
				if (&ks[kk] != ki)
					ARENA_PUSH(s->a, chain, nchain, kk);
			while (nchain > 0) {
				kk = chain[--nchain];
				diag_error(s->d, d->u.export.as_span, "export name '%s' is the name of another kernel",
					d->u.export.as);
				diag_note(s->d, ks[kk].decl->u.kernel.id_span, "'%s' declared here", d->u.export.as);
			}
			if (!ki) {
				Symbol *other = sym_lookup(s, d->u.export.kernel);
				diag_error(s->d, d->u.export.kernel_span, "'%s' is not a kernel of this module", d->u.export.kernel);
				if (other && other->decl.file >= 0)
					diag_note(s->d, other->decl, "'%s' declared here", other->name);
				continue;
			}
			ki->exported = true;
			if (diag_stopped(s->d))
				break; /* the error limit was reached: stop checking (the driver exits 1) */
			if (!ki->failed)
				instantiate(s, ki, d->u.export.as, d);
		}
		for (i = 0; i < nk && !diag_stopped(s->d); i++)
			if (!ks[i].exported)
				instantiate(s, &ks[i], ks[i].decl->u.kernel.id, NULL);
	} else {
		for (i = 0; i < ds->n; i++)
			if (ds->v[i]->kind == D_EXPORT || ds->v[i]->kind == D_KERNEL) {
				diag_error(s->d, ds->v[i]->span,
					"imported module '%s' may declare atoms, constants and functions only; kernels and exports belong in the main module",
					m->name);
				break;
			}
	}
	scope_pop(s, mark, false);
}

unsigned
sema_target_bit(const char *arch)
{
	return tgt_bit(arch);
}

void
sema_program_free(SemaProgram *p)
{
	if (p && p->lay_arena) {
		lay_arena_free(p->lay_arena);
		p->lay_arena = NULL;
	}
}

SemaProgram *
sema_check(Arena *a, Diag *d, AstModule *main, const SemaOptions *o)
{
	S st, *s = &st;
	SemaModule *m;
	size_t len = 0;

	memset(s, 0, sizeof *s);
	s->a = a;
	s->d = d;
	s->o = o;
	s->nbuckets = 1024;
	s->buckets = ARENA_NEWN(a, Entry *, s->nbuckets);
	s->prog = ARENA_NEW(a, SemaProgram);
	s->prog->lay_arena = lay_arena_new();
	if (!s->prog->lay_arena)
		ice("out of memory");
	lay_ctx_init(&s->lc, s->prog->lay_arena);
	sema_builtins_bind(s);
	m = ARENA_NEW(a, SemaModule);
	m->name = main->name;
	m->path = diag_file_name(d, main->file);
	(void)diag_file_text(d, main->file, &len);
	s->cur_dir = strcmp(m->path, "<stdin>") ? dir_of(s, m->path) : ".";
	add_file(s, m->path);
	s->prog->main = m;
	add_module(s, m);
	m->ast = main;
	check_module(s, m, true);
	free(s->stack);
	free(s->syms);
	return s->prog;
}

void
sema_dump_instances(FILE *out, const Diag *d, const SemaProgram *p)
{
	int i, j;

	for (i = 0; i < p->nkernels; i++) {
		const SemaKernel *k = p->kernels[i];
		fprintf(out, "instance %s of kernel %s\n", k->name, k->decl->u.kernel.id);
		for (j = 0; j < k->nct; j++) {
			fprintf(out, "  %s = ", k->ct[j]->name);
			sema_print_value(out, k->ct[j]->val);
			fputc('\n', out);
		}
		fprintf(out, "  block %lld, %lld, %lld\n", (long long)k->block[0], (long long)k->block[1],
			(long long)k->block[2]);
		if (k->waves_per_eu)
			fprintf(out, "  waves_per_eu %d\n", k->waves_per_eu);
		if (k->targets)
		{
			size_t nt;
			const TgtDesc *all = tgt_all(&nt);
			fprintf(out, "  targets");
			for (size_t t = 0; t < nt; t++)
				if (k->targets & tgt_bit(all[t].name))
					fprintf(out, " %s", all[t].name);
			fprintf(out, "\n");
		}
		for (j = 0; j < k->nlds; j++) {
			const Node *al = k->lds[j]->node;
			const Value *lv = al->u.alloc.type->layout->cval;
			fprintf(out, "  lds %s: %s[", k->lds[j]->name, al->u.alloc.type->name);
			sema_print_value(out, lv);
			fputs("]\n", out);
		}
		if (k->nlds)
			fprintf(out, "  lds bytes %lld\n", (long long)k->lds_bytes);
		for (j = 0; j < k->requires.n; j++) {
			const Node *r = k->requires.v[j];
			fputs("  requires ", out);
			ast_print_expr(out, r);
			if (r->cval)
				fputs(r->cval->i ? " (true)" : " (false)", out);
			fputc('\n', out);
		}
	}
	(void)d;
}
