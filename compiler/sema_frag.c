/*
 * sema_frag.c — register fragments and coordinates in the checker.
 *
 * A register fragment (`reg v: f32[L];`, `fragment(f32, L)`, fragment_like,
 * fragment_A/B/C, elementwise math on them) is a value held in registers, so
 * its elements are addressed by coordinates known in each copy of the code:
 * literals, constants, compile-time parameters, `static for` variables, `let`s
 * and function parameters bound to such, and arithmetic of them
 * (sema_static_int). Where the fragment's layout is static (its type's
 * `layout`), the coordinates go through it, and those whose range the
 * checker can bound (a static for's range, arithmetic on ranges) are checked
 * against its modes here, so code generation finds nothing to refuse.
 *
 * Elementwise results keep the layout of their first fragment operand
 * (sema_frag_layout), so `(v * 2)[i, j]` means what `v[i, j]` means.
 *
 * A coordinate tensor (make_identity and its views: space SPACE_COORD) has its
 * coordinates as elements: `c[i]` is an i32 for rank-1 coordinates and an
 * (i32, i32) tuple for rank-2 ones (the element type i64 records the packed
 * form code generation keeps, language.md §13), and `get(c, k)` is the
 * fragment of the k-th coordinates of this thread's elements.
 */
#include <string.h>

#include "builtins.h"
#include "sema_int.h"

enum { FRAG_MAX = 256 };   /* values per thread a fragment holds (codegen_int.h CG_MAXFRAG) */

/* r = a op b on known ranges; false when the range would overflow */
static bool
range_bin(AstOp op, const SemaRange *a, const SemaRange *b, SemaRange *r)
{
	int64_t p[4];

	switch (op) {
	case OP_ADD:
		return !__builtin_add_overflow(a->lo, b->lo, &r->lo) && !__builtin_add_overflow(a->hi, b->hi, &r->hi);
	case OP_SUB:
		return !__builtin_sub_overflow(a->lo, b->hi, &r->lo) && !__builtin_sub_overflow(a->hi, b->lo, &r->hi);
	case OP_MUL:
		if (__builtin_mul_overflow(a->lo, b->lo, &p[0]) || __builtin_mul_overflow(a->lo, b->hi, &p[1]) ||
		    __builtin_mul_overflow(a->hi, b->lo, &p[2]) || __builtin_mul_overflow(a->hi, b->hi, &p[3]))
			return false;
		r->lo = r->hi = p[0];
		for (int i = 1; i < 4; i++) {
			r->lo = p[i] < r->lo ? p[i] : r->lo;
			r->hi = p[i] > r->hi ? p[i] : r->hi;
		}
		return true;
	case OP_DIV:
		if (b->lo != b->hi || b->lo <= 0 || a->lo < 0)
			return false;
		r->lo = a->lo / b->lo;
		r->hi = a->hi / b->lo;
		return true;
	case OP_MOD:
		if (b->lo != b->hi || b->lo <= 0 || a->lo < 0)
			return false;
		r->lo = 0;
		r->hi = a->hi < b->lo ? a->hi : b->lo - 1;
		if (a->hi < b->lo)
			r->lo = a->lo;
		return true;
	default:
		return false;
	}
}

static bool
static_int(S *s, const Node *e, SemaRange *r, int depth)
{
	SemaRange a, b;

	r->known = false;
	if (depth > 64 || !e)
		return false;
	if (e->cval) {
		if (e->cval->kind != VAL_INT)
			return false;
		r->known = true;
		r->lo = r->hi = e->cval->i;
		return true;
	}
	switch (e->kind) {
	case E_NAME: {
		const Symbol *sym = e->u.name.sym;
		const Node *f = sym ? sym->node : NULL;
		if (!sym)
			return false;
		if (sym->kind == SYM_LOOP && f && f->kind == S_FOR && f->u.for_.unroll) {
			const Value *lo = f->u.for_.lo->cval, *hi = f->u.for_.hi->cval;
			const Value *st = f->u.for_.step ? f->u.for_.step->cval : NULL;
			if (lo && hi && lo->kind == VAL_INT && hi->kind == VAL_INT && hi->i > lo->i &&
			    (!st || (st->kind == VAL_INT && st->i > 0))) {
				int64_t step = st ? st->i : 1;
				r->known = true;
				r->lo = lo->i;
				r->hi = lo->i + (hi->i - 1 - lo->i) / step * step;
			}
			return true;
		}
		if ((sym->kind == SYM_LET || sym->kind == SYM_FNPARAM) && sym->bound)
			return static_int(s, sym->bound, r, depth + 1);
		return false;
	}
	case E_UNARY:
		if (e->u.unary.op != OP_NEG || !static_int(s, e->u.unary.x, &a, depth + 1))
			return false;
		if (a.known && a.lo != INT64_MIN) {
			r->known = true;
			r->lo = -a.hi;
			r->hi = -a.lo;
		}
		return true;
	case E_BINARY:
		if (!static_int(s, e->u.binary.l, &a, depth + 1) || !static_int(s, e->u.binary.r, &b, depth + 1))
			return false;
		if (e->u.binary.op < OP_BOR)
			return false;    /* comparisons, && and || give bools */
		r->known = a.known && b.known && range_bin(e->u.binary.op, &a, &b, r);
		return true;
	case E_CALL: {
		const Node *cal = e->u.call.callee;
		const Symbol *sym = cal->kind == E_NAME ? cal->u.name.sym : NULL;
		int bid = sym && sym->kind == SYM_BUILTIN && sym->type ? sym->type->builtin : -1;
		if ((bid != B_MIN && bid != B_MAX) || e->u.call.args.n != 2 ||
		    !static_int(s, e->u.call.args.v[0], &a, depth + 1) || !static_int(s, e->u.call.args.v[1], &b, depth + 1))
			return false;
		if (a.known && b.known) {
			r->known = true;
			r->lo = bid == B_MIN ? (a.lo < b.lo ? a.lo : b.lo) : (a.lo > b.lo ? a.lo : b.lo);
			r->hi = bid == B_MIN ? (a.hi < b.hi ? a.hi : b.hi) : (a.hi > b.hi ? a.hi : b.hi);
		}
		return true;
	}
	default:
		return false;
	}
}

bool
sema_static_int(S *s, const Node *e, SemaRange *r)
{
	return static_int(s, e, r, 0);
}

/* the first leaf of a coordinate that is not known in each copy of the code, or NULL */
static const Node *
runtime_leaf(S *s, const Node *c)
{
	SemaRange r;

	if (c->kind == E_TUPLE) {
		for (int i = 0; i < c->u.list.n; i++) {
			const Node *x = runtime_leaf(s, c->u.list.v[i]);
			if (x)
				return x;
		}
		return NULL;
	}
	return static_int(s, c, &r, 0) ? NULL : c;
}

static int64_t
value_size(const Value *v)
{
	return v->kind == VAL_LAYOUT ? val_size(v->shape) : val_size(v);
}

/* the shape of mode m of a static layout or shape value */
static const Value *
value_mode(const Value *v, int m)
{
	const Value *sh = v->kind == VAL_LAYOUT ? v->shape : v;
	return sh->kind == VAL_TUPLE ? (m < sh->nelems ? sh->elems[m] : NULL) : (m == 0 ? sh : NULL);
}

/* a coordinate whose range is known, inside extent ext; false after an error */
static bool
in_range(S *s, const Node *c, int64_t ext, const char *what)
{
	SemaRange r;

	if (c->kind == E_TUPLE || ext < 0 || !static_int(s, c, &r, 0) || !r.known)
		return true;
	if (r.lo >= 0 && r.hi < ext)
		return true;
	if (r.lo == r.hi)
		diag_error(s->d, c->span, "coordinate %lld is outside %s (extent %lld)", (long long)r.lo, what,
			(long long)ext);
	else
		diag_error(s->d, c->span, "coordinate %lld .. %lld is outside %s (extent %lld)", (long long)r.lo,
			(long long)r.hi, what, (long long)ext);
	return false;
}

bool
sema_frag_index(S *s, Node *e, Type *t)
{
	NodeList *a = &e->u.call.args;
	const Value *lv = t->layout ? t->layout->cval : NULL;

	for (int i = 0; i < a->n; i++) {
		const Node *x = runtime_leaf(s, a->v[i]);
		if (x) {
			diag_error(s->d, x->span, "a register fragment is indexed by coordinates known at compile time "
				"(literals, constants, static for variables and arithmetic of them); this one is known only "
				"at run time");
			return false;
		}
	}
	if (lv && lv->kind != VAL_LAYOUT && lv->kind != VAL_INT && lv->kind != VAL_TUPLE)
		lv = NULL;
	if (!lv) {
		if (a->n > 1 || a->v[0]->kind == E_TUPLE) {
			diag_error(s->d, e->span, "the layout of this fragment is not known to the checker; index it by one "
				"linear index (0 .. its size - 1), or declare it with reg or fragment(T, L)");
			return false;
		}
		return true;
	}
	if (a->n == 1)
		return in_range(s, a->v[0], value_size(lv), "the fragment");
	for (int i = 0; i < a->n; i++) {
		const Value *m = value_mode(lv, i);
		if (m && !in_range(s, a->v[i], val_size(m), "its mode"))
			return false;
	}
	return true;
}

bool
sema_frag_layout_ok(S *s, Node *layout)
{
	const Value *lv = layout->cval;
	int64_t n;

	if (!lv)
		return true;
	n = lv->kind == VAL_LAYOUT ? val_cosize(lv) : val_size(lv);
	if (n > FRAG_MAX) {
		diag_error(s->d, layout->span, "a register fragment holds at most %d values per thread; this layout "
			"spans %lld", FRAG_MAX, (long long)n);
		return false;
	}
	if (n < 1 || (lv->kind == VAL_LAYOUT && lv->swz.on)) {
		diag_error(s->d, layout->span, "a register fragment needs a layout of non-negative strides without a swizzle");
		return false;
	}
	return true;
}

/* the register layout of a fragment-typed operand, or NULL */
static Node *
reg_layout(const Node *x)
{
	const Type *t = x ? x->type : NULL;
	return t && t->kind == TY_TENSOR && t->space == SPACE_REG && t->layout && t->layout->cval ? t->layout : NULL;
}

static bool
coord_pairs(const Node *x)
{
	return x && x->type && x->type->kind == TY_TENSOR && x->type->space == SPACE_COORD && x->type->scalar == SC_I64;
}

void
sema_frag_layout(S *s, Node *e)
{
	Type *t = e->type;
	Node *ops[3] = { NULL, NULL, NULL }, *l = NULL;
	int n = 0;

	if (!t || t->kind != TY_TENSOR || t->space != SPACE_REG)
		return;
	switch (e->kind) {
	case E_BINARY:
		ops[n++] = e->u.binary.l;
		ops[n++] = e->u.binary.r;
		break;
	case E_UNARY:
		ops[n++] = e->u.unary.x;
		break;
	case E_CONVERT:
		ops[n++] = e->u.convert.x;
		break;
	case E_CALL: {
		const Node *cal = e->u.call.callee;
		const Symbol *sym = cal->kind == E_NAME ? cal->u.name.sym : NULL;
		int bid = sym && sym->kind == SYM_BUILTIN && sym->type ? sym->type->builtin : -1;
		if (bid < 0 || builtins[bid].lower != LOWER_VALUE)
			return;
		for (int i = 0; i < e->u.call.args.n && n < 3; i++)
			ops[n++] = e->u.call.args.v[i];
		break;
	}
	default:
		return;
	}
	for (int i = 0; i < n; i++)
		if (coord_pairs(ops[i])) {
			diag_error(s->d, ops[i]->span, "a tensor of rank-2 coordinates holds (m, n) pairs, not numbers: "
				"take one coordinate of every element with get(c, 0) or get(c, 1), or one element with c[i]");
			e->type = ty_simple(TY_ERROR);
			return;
		}
	for (int i = 0; i < n && !l && !t->layout; i++)
		l = reg_layout(ops[i]);
	if (l)
		t->layout = l;
}
