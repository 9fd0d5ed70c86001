/*
 * sema_expr.c — types, compile-time values, builtins and expression checking.
 *
 * sema_expr() checks one expression bottom-up, setting e->type and, when the
 * value is known at compile time, e->cval. Integer arithmetic on compile-time
 * values folds with overflow and division-by-zero checks; tuples and static
 * shape:stride layouts fold to VAL_TUPLE / VAL_LAYOUT.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "sema_int.h"

const char *const sema_scalar_names[SC_NKINDS] = {
#define X(k, s, b, c) s,
	SEMA_SCALARS(X)
#undef X
};
const int sema_scalar_bits[SC_NKINDS] = {
#define X(k, s, b, c) b,
	SEMA_SCALARS(X)
#undef X
};
static const char sc_class[SC_NKINDS] = {
#define X(k, s, b, c) c,
	SEMA_SCALARS(X)
#undef X
};
const char *const sema_enum_names[EN_NENUMS] = {
#define X(k, s) s,
	SEMA_ENUMS(X)
#undef X
};
static const char *const type_names[TY_NKINDS] = {
#define X(k, s) s,
	SEMA_TYPES(X)
#undef X
};

/* ---- types ---- */

static Type scalars[SC_NKINDS];
static Type simples[TY_NKINDS];

Type *
ty_scalar(ScalarKind k)
{
	scalars[k].kind = TY_SCALAR;
	scalars[k].scalar = k;
	return &scalars[k];
}

Type *
ty_simple(TypeKind k)
{
	simples[k].kind = k;
	simples[k].rank = -1;
	return &simples[k];
}

Type *
ty_new(S *s, TypeKind k)
{
	Type *t = ARENA_NEW(s->a, Type);

	t->kind = k;
	t->rank = -1;
	return t;
}

Type *
ty_tensor(S *s, MemSpace sp, ScalarKind el, int rank, bool swz)
{
	Type *t = ty_new(s, TY_TENSOR);

	t->space = sp;
	t->scalar = el;
	t->rank = rank;
	t->swizzled = swz;
	return t;
}

static Type *
ty_atomish(S *s, TypeKind k, Node *atom)
{
	Type *t = ty_new(s, k);

	t->atom = atom;
	return t;
}

bool ty_is_int(const Type *t) { return t->kind == TY_SCALAR && strchr("ciu", sc_class[t->scalar]); }
bool ty_is_num(const Type *t) { return t->kind == TY_SCALAR && strchr("ciufF", sc_class[t->scalar]); }
bool ty_is_bool(const Type *t) { return t->kind == TY_SCALAR && t->scalar == SC_BOOL; }
static bool sc_is_float(ScalarKind k) { return sc_class[k] == 'f' || sc_class[k] == 'F'; }
static bool sc_is_int(ScalarKind k) { return strchr("ciu", sc_class[k]) != NULL; }

bool
ty_is_inttuple(const Type *t)
{
	int i;

	if (ty_is_int(t))
		return true;
	if (t->kind != TY_TUPLE)
		return false;
	for (i = 0; i < t->nelems; i++)
		if (!ty_is_inttuple(t->elems[i]))
			return false;
	return true;
}

static void
type_str(FILE *f, const Type *t, int depth)
{
	static const char *sp[] = {"global", "lds", "reg"};
	int i;

	if (depth > 20) {
		fputs("...", f);
		return;
	}
	switch (t->kind) {
	case TY_SCALAR: fputs(sema_scalar_names[t->scalar], f); break;
	case TY_TENSOR:
		if (t->space == SPACE_COORD)
			fprintf(f, "tensor of rank-%d coordinates", t->scalar == SC_I64 ? 2 : 1);
		else
			fprintf(f, "%s %s tensor", sp[t->space], sema_scalar_names[t->scalar]);
		if (t->rank >= 0)
			fprintf(f, " of rank %d", t->rank);
		break;
	case TY_TUPLE:
		fputc('(', f);
		for (i = 0; i < t->nelems; i++) {
			if (i)
				fputs(", ", f);
			type_str(f, t->elems[i], depth + 1);
		}
		fputc(')', f);
		break;
	case TY_TYPE: fprintf(f, "type %s", sema_scalar_names[t->scalar]); break;
	case TY_LAYOUT: fputs(t->swizzled ? "swizzled layout" : "layout", f); break;
	default: fputs(type_names[t->kind], f);
	}
}

const char *
sema_type_str(Arena *a, const Type *t)
{
	char *buf = NULL, *r;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		ice("open_memstream failed");
	type_str(f, t, 0);
	fclose(f);
	r = arena_strndup(a, buf, len);
	free(buf);
	return r;
}

const char *tyname(S *s, const Type *t) { return sema_type_str(s->a, t); }

/* ---- values ---- */

Value *
val_new(S *s, ValueKind k)
{
	Value *v = ARENA_NEW(s->a, Value);

	v->kind = k;
	return v;
}

Value *
val_int(S *s, int64_t i)
{
	Value *v = val_new(s, VAL_INT);

	v->i = i;
	return v;
}

void
sema_print_value(FILE *out, const Value *v)
{
	int i;

	if (!v) {
		fputs("?", out);
		return;
	}
	switch (v->kind) {
	case VAL_INT: fprintf(out, "%lld", (long long)v->i); break;
	case VAL_BOOL: fputs(v->i ? "true" : "false", out); break;
	case VAL_FLOAT: fprintf(out, "%g", v->f); break;
	case VAL_STR: fprintf(out, "\"%.*s\"", (int)v->len, v->s); break;
	case VAL_TUPLE: {
		bool tiler = false; /* a tuple of layouts is a tiler: [l1,l2] */
		for (i = 0; i < v->nelems; i++)
			tiler |= v->elems[i]->kind == VAL_LAYOUT;
		fputc(tiler ? '[' : '(', out);
		for (i = 0; i < v->nelems; i++) {
			if (i)
				fputc(',', out);
			sema_print_value(out, v->elems[i]);
		}
		fputc(tiler ? ']' : ')', out);
		break;
	}
		break;
	case VAL_LAYOUT:
		if (v->swz.on)
			fprintf(out, "swizzle(%d,%d,%d) o ", v->swz.b, v->swz.m, v->swz.s);
		sema_print_value(out, v->shape);
		fputc(':', out);
		sema_print_value(out, v->stride);
		break;
	case VAL_SWIZZLE: fprintf(out, "swizzle(%d,%d,%d)", v->swz.b, v->swz.m, v->swz.s); break;
	case VAL_TYPE: fputs(sema_scalar_names[v->scalar], out); break;
	case VAL_ENUM: fputs(sema_enum_names[v->i], out); break;
	case VAL_ATOM: fprintf(out, "atom %s", v->atom->u.atom.id); break;
	}
}

int64_t
val_size(const Value *v)
{
	int64_t p = 1;
	int i;

	if (!v)
		return -1;
	if (v->kind == VAL_INT)
		return v->i;
	if (v->kind == VAL_LAYOUT)
		return val_size(v->shape);
	if (v->kind != VAL_TUPLE)
		return -1;
	for (i = 0; i < v->nelems; i++) {
		int64_t e = val_size(v->elems[i]);
		if (e < 0 || (e && p > INT64_MAX / e))
			return -1;
		p *= e;
	}
	return p;
}

/* Sum of (shape-1)*|stride| over leaves; -1 when not computable. */
static int64_t
span_of(const Value *sh, const Value *st)
{
	int64_t r = 0, e;
	int i;

	if (sh->kind == VAL_INT && st->kind == VAL_INT) {
		int64_t a = st->i < 0 ? -st->i : st->i;
		if (sh->i <= 0)
			return 0;
		if (a && sh->i - 1 > INT64_MAX / a)
			return -1;
		return (sh->i - 1) * a;
	}
	if (sh->kind != VAL_TUPLE || st->kind != VAL_TUPLE || sh->nelems != st->nelems)
		return -1;
	for (i = 0; i < sh->nelems; i++) {
		e = span_of(sh->elems[i], st->elems[i]);
		if (e < 0 || r > INT64_MAX - e)
			return -1;
		r += e;
	}
	return r;
}

int64_t
val_cosize(const Value *l)
{
	int64_t sp;

	if (!l || l->kind != VAL_LAYOUT)
		return -1;
	sp = span_of(l->shape, l->stride);
	if (sp < 0 || sp > INT64_MAX / 2)
		return -1;
	if (l->swz.on) { /* a swizzle permutes within 2^(b+m+s)-aligned blocks */
		int64_t blk = (int64_t)1 << (l->swz.b + l->swz.m + l->swz.s);
		return ((sp + 1 + blk - 1) / blk) * blk;
	}
	return sp + 1;
}

/* ---- builtins ---- */

const struct Builtin builtins[B_NBUILTINS] = {
#define X(id, n, mn, mx, na, lower) {n, mn, mx, na, LOWER_##lower},
	BUILTINS(X)
#undef X
};

const struct Method methods[M_NMETHODS] = {
#define X(id, n, of, operand) {n, of, operand},
	METHODS(X)
#undef X
};

void
sema_builtins_bind(S *s)
{
	int i;
	Symbol *sym;
	Type *t;

	for (i = 0; i < B_NBUILTINS; i++) {
		t = ty_new(s, TY_FUNC);
		t->builtin = i;
		sym_bind(s, sym_new(s, SYM_BUILTIN, builtins[i].name, SPAN_NONE, t));
	}
	for (i = 0; i < SC_NKINDS; i++) {
		Type *tt;
		if (i == SC_FLOAT)
			continue;
		tt = ty_new(s, TY_TYPE);
		tt->scalar = (ScalarKind)i;
		sym = sym_new(s, SYM_TYPE, sema_scalar_names[i], SPAN_NONE, tt);
		sym->val = val_new(s, VAL_TYPE);
		sym->val->scalar = (ScalarKind)i;
		sym_bind(s, sym);
	}
	/* OCP names as aliases */
	{
		static const struct { const char *n; ScalarKind k; } al[] = {
			{"e4m3", SC_FP8}, {"e5m2", SC_BF8}, {"e2m3", SC_FP6}, {"e3m2", SC_BF6}, {"e2m1", SC_FP4},
		};
		for (i = 0; i < (int)(sizeof al / sizeof al[0]); i++) {
			Type *tt = ty_new(s, TY_TYPE);
			tt->scalar = al[i].k;
			sym = sym_new(s, SYM_TYPE, al[i].n, SPAN_NONE, tt);
			sym->val = val_new(s, VAL_TYPE);
			sym->val->scalar = al[i].k;
			sym_bind(s, sym);
		}
	}
	/* thread.{x,y,z} and block.{x,y,z}: ids; typed i32 */
	sym_bind(s, sym_new(s, SYM_BUILTIN, "thread", SPAN_NONE, ty_new(s, TY_TUPLE)));
	sym_bind(s, sym_new(s, SYM_BUILTIN, "block", SPAN_NONE, ty_new(s, TY_TUPLE)));
	/* device.cus: the launching device's compute units, known only to grid formulas */
	sym_bind(s, sym_new(s, SYM_BUILTIN, "device", SPAN_NONE, ty_new(s, TY_TUPLE)));
}

/* ---- helpers ---- */

static Type *
err(S *s, Node *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static Type *
err(S *s, Node *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(s->d, DIAG_ERROR, e->span, fmt, ap);
	va_end(ap);
	e->type = ty_simple(TY_ERROR);
	return e->type;
}

static void
note_decl(S *s, Symbol *sym)
{
	if (sym && sym->decl.file >= 0)
		diag_note(s->d, sym->decl, "'%s' declared here", sym->name);
}

/* Unifies two numeric scalar kinds for arithmetic; -1 when they do not mix. */
static int
unify_scalar(ScalarKind a, ScalarKind b)
{
	if (a == b)
		return a;
	if (a == SC_INT && (sc_is_int(b) || sc_is_float(b)))
		return b;
	if (b == SC_INT && (sc_is_int(a) || sc_is_float(a)))
		return a;
	if (a == SC_FLOAT && sc_is_float(b))
		return b;
	if (b == SC_FLOAT && sc_is_float(a))
		return a;
	return -1;
}

/*
 * The type of an elementwise builtin over v[0..n) when one of them is a tensor: a register
 * tensor of their unified element type (scalars are broadcast to it, as code generation does),
 * or a located error; so the checker accepts exactly what code generation can lower.
 */
static Type *
elementwise_type(S *s, Node *e, Node **v, int n, const char *what)
{
	int u = -1, rank = -1, i;

	for (i = 0; i < n; i++) {
		Type *t = v[i]->type;
		if (t->kind != TY_TENSOR && !ty_is_num(t) && !ty_is_bool(t))
			return err(s, v[i], "invalid operand to '%s': '%s'", what, tyname(s, t));
		if (t->kind == TY_TENSOR && rank < 0)
			rank = t->rank;
		if (i == 0) {
			u = t->scalar;
		} else {
			int w = unify_scalar((ScalarKind)u, t->scalar);
			if (w < 0)
				return err(s, e, "mismatched element types '%s' and '%s' in '%s'; convert one with convert<T>",
					sema_scalar_names[u], sema_scalar_names[t->scalar], what);
			u = w;
		}
	}
	if (u == SC_INT || u == SC_FLOAT) /* only literals: the tensor holds i32 or f32 */
		u = u == SC_INT ? SC_I32 : SC_F32;
	return ty_tensor(s, SPACE_REG, (ScalarKind)u, rank, false);
}

bool
sema_assignable(S *s, Type *to, Type *from)
{
	if (to->kind == TY_ERROR || from->kind == TY_ERROR)
		return true;
	if (to->kind == TY_SCALAR && from->kind == TY_SCALAR)
		return to->scalar == from->scalar || unify_scalar(to->scalar, from->scalar) == (int)to->scalar;
	if (to->kind == TY_TENSOR && from->kind == TY_TENSOR)
		return to->scalar == from->scalar;
	if (to->kind == TY_TENSOR && from->kind == TY_SCALAR) /* broadcast */
		return to->scalar == from->scalar || unify_scalar(to->scalar, from->scalar) == (int)to->scalar;
	if (to->kind == TY_TUPLE && from->kind == TY_TUPLE) {
		int i;
		if (to->nelems != from->nelems)
			return false;
		for (i = 0; i < to->nelems; i++)
			if (!sema_assignable(s, to->elems[i], from->elems[i]))
				return false;
		return true;
	}
	return to->kind == from->kind;
}

/* The int-tuple type of a folded int tuple. */
static Type *
type_of_value(S *s, const Value *v)
{
	Type *t;
	int i;

	if (v->kind != VAL_TUPLE)
		return ty_scalar(SC_INT);
	t = ty_new(s, TY_TUPLE);
	t->nelems = v->nelems;
	t->elems = ARENA_NEWN(s->a, Type *, v->nelems ? v->nelems : 1);
	for (i = 0; i < v->nelems; i++)
		t->elems[i] = type_of_value(s, v->elems[i]);
	return t;
}

/* Structure of two int-tuple types agrees (both leaves or both tuples of the same length). */
static bool
congruent(const Type *a, const Type *b)
{
	int i;

	if (a->kind != TY_TUPLE || b->kind != TY_TUPLE)
		return a->kind != TY_TUPLE && b->kind != TY_TUPLE;
	if (a->nelems != b->nelems)
		return false;
	for (i = 0; i < a->nelems; i++)
		if (!congruent(a->elems[i], b->elems[i]))
			return false;
	return true;
}

static int
rank_of_shape(const Type *t)
{
	return t->kind == TY_TUPLE ? t->nelems : 1;
}

/* Number of '_' in a (possibly nested) coordinate expression. */
static int
holes(const Node *e)
{
	int i, n = 0;

	if (e->kind == E_HOLE)
		return 1;
	if (e->kind == E_TUPLE)
		for (i = 0; i < e->u.list.n; i++)
			n += holes(e->u.list.v[i]);
	return n;
}

int
sema_holes(const Node *e)
{
	return holes(e);
}

/* A coordinate: an integer, '_', or a tuple of coordinates. */
static bool
check_coord(S *s, Node *e)
{
	int i;

	if (e->kind == E_HOLE) {
		e->type = ty_simple(TY_VOID);
		return true;
	}
	if (e->kind == E_TUPLE) {
		Type *t = ty_new(s, TY_TUPLE);
		t->nelems = e->u.list.n;
		t->elems = ARENA_NEWN(s->a, Type *, t->nelems ? t->nelems : 1);
		for (i = 0; i < e->u.list.n; i++) {
			if (!check_coord(s, e->u.list.v[i]))
				return false;
			t->elems[i] = e->u.list.v[i]->type;
		}
		e->type = t;
		return true;
	}
	if (sema_expr(s, e)->kind == TY_ERROR)
		return false;
	if (!ty_is_int(e->type)) {
		diag_error(s->d, e->span, "a coordinate must be an integer or '_', not '%s'", tyname(s, e->type));
		return false;
	}
	return true;
}

/* The tuple expression a value comes from (a literal tuple, or the shape or
 * stride of a tensor parameter's declared layout), so that known elements of a
 * partly known tuple can be used; NULL when there is none. */
static const Node *
tuple_source(const Node *e)
{
	if (e->kind == E_TUPLE)
		return e;
	if (e->kind == E_CALL && e->u.call.callee->kind == E_NAME && e->u.call.args.n == 1
	    && e->u.call.callee->u.name.sym && e->u.call.callee->u.name.sym->kind == SYM_BUILTIN
	    && (!strcmp(e->u.call.callee->u.name.id, "shape") || !strcmp(e->u.call.callee->u.name.id, "stride"))) {
		const Type *t = e->u.call.args.v[0]->type;
		if (t && t->kind == TY_TENSOR && t->layout && t->layout->kind == E_LAYOUT) {
			const Node *part = e->u.call.callee->u.name.id[1] == 'h' ? t->layout->u.binary.l : t->layout->u.binary.r;
			return part->kind == E_TUPLE ? part : NULL;
		}
	}
	return NULL;
}

static bool
is_layoutish(const Type *t)
{
	return t->kind == TY_LAYOUT || ty_is_inttuple(t) || t->kind == TY_TILER || t->kind == TY_OPERAND;
}

/* ---- arithmetic folding ---- */

static bool
fold_int(S *s, Node *e, AstOp op, int64_t a, int64_t b, int64_t *r)
{
	switch (op) {
	case OP_ADD: if (__builtin_add_overflow(a, b, r)) goto ovf; return true;
	case OP_SUB: if (__builtin_sub_overflow(a, b, r)) goto ovf; return true;
	case OP_MUL: if (__builtin_mul_overflow(a, b, r)) goto ovf; return true;
	case OP_DIV:
	case OP_MOD:
		if (b == 0) {
			err(s, e, "division by zero in a compile-time expression");
			return false;
		}
		if (a == INT64_MIN && b == -1)
			goto ovf;
		*r = op == OP_DIV ? a / b : a % b;
		return true;
	case OP_BAND: *r = a & b; return true;
	case OP_BOR: *r = a | b; return true;
	case OP_BXOR: *r = a ^ b; return true;
	case OP_SHL:
	case OP_SHR:
		if (b < 0 || b > 62) {
			err(s, e, "shift amount %lld is out of range", (long long)b);
			return false;
		}
		if (op == OP_SHL && (a < 0 || a > (INT64_MAX >> b)))
			goto ovf;
		*r = op == OP_SHL ? a << b : a >> b;
		return true;
	case OP_EQ: *r = a == b; return true;
	case OP_NE: *r = a != b; return true;
	case OP_LT: *r = a < b; return true;
	case OP_LE: *r = a <= b; return true;
	case OP_GT: *r = a > b; return true;
	case OP_GE: *r = a >= b; return true;
	case OP_AND: *r = a && b; return true;
	case OP_OR: *r = a || b; return true;
	default: return false;
	}
ovf:
	err(s, e, "integer overflow in a compile-time expression");
	return false;
}

static bool
is_cmp(AstOp op)
{
	return op == OP_EQ || op == OP_NE || op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE;
}

static Type *
check_binary(S *s, Node *e)
{
	AstOp op = e->u.binary.op;
	Type *l = sema_expr(s, e->u.binary.l), *r = sema_expr(s, e->u.binary.r);
	const char *ops = ast_op_names[op];
	int u;

	if (l->kind == TY_ERROR || r->kind == TY_ERROR)
		return e->type = ty_simple(TY_ERROR);
	if ((op == OP_AND || op == OP_OR) && (l->kind == TY_TENSOR || r->kind == TY_TENSOR)) {
		/* bool fragments combine elementwise (a bool scalar broadcast) */
		bool lb = ty_is_bool(l) || (l->kind == TY_TENSOR && l->scalar == SC_BOOL);
		bool rb = ty_is_bool(r) || (r->kind == TY_TENSOR && r->scalar == SC_BOOL);
		if (!lb || !rb)
			return err(s, e, "operator '%s' needs bool operands, not '%s' and '%s'", ops, tyname(s, l),
				tyname(s, r));
		return e->type = ty_tensor(s, SPACE_REG, SC_BOOL, l->kind == TY_TENSOR ? l->rank : r->rank, false);
	}
	if (op == OP_AND || op == OP_OR) {
		if (!ty_is_bool(l) || !ty_is_bool(r))
			return err(s, e, "operator '%s' needs bool operands, not '%s' and '%s'", ops, tyname(s, l),
				tyname(s, r));
		e->type = ty_scalar(SC_BOOL);
		if (e->u.binary.l->cval && e->u.binary.r->cval) {
			e->cval = val_new(s, VAL_BOOL);
			e->cval->i = op == OP_AND ? e->u.binary.l->cval->i && e->u.binary.r->cval->i
						  : e->u.binary.l->cval->i || e->u.binary.r->cval->i;
		}
		return e->type;
	}
	if (l->kind == TY_TENSOR || r->kind == TY_TENSOR) {
		ScalarKind le = l->scalar, re = r->scalar;
		int rank = l->kind == TY_TENSOR ? l->rank : r->rank;
		if ((l->kind != TY_TENSOR && !ty_is_num(l) && !ty_is_bool(l))
		    || (r->kind != TY_TENSOR && !ty_is_num(r) && !ty_is_bool(r)))
			return err(s, e, "invalid operands to '%s': '%s' and '%s'", ops, tyname(s, l), tyname(s, r));
		u = unify_scalar(le, re);
		if (u < 0)
			return err(s, e, "mismatched element types '%s' and '%s' in '%s'; convert one with convert<T>",
				sema_scalar_names[le], sema_scalar_names[re], ops);
		if ((op == OP_MOD || op == OP_BAND || op == OP_BOR || op == OP_BXOR || op == OP_SHL || op == OP_SHR)
		    && !sc_is_int((ScalarKind)u))
			return err(s, e, "operator '%s' needs integer operands, not '%s'", ops, sema_scalar_names[u]);
		if (!is_cmp(op) && u == SC_BOOL)
			return err(s, e, "operator '%s' needs numbers, not bool", ops);
		return e->type = ty_tensor(s, SPACE_REG, is_cmp(op) ? SC_BOOL : (ScalarKind)u, rank, false);
	}
	if (l->kind != TY_SCALAR || r->kind != TY_SCALAR || l->scalar == SC_BOOL || r->scalar == SC_BOOL) {
		if ((op == OP_EQ || op == OP_NE) && ty_is_bool(l) && ty_is_bool(r)) {
			e->type = ty_scalar(SC_BOOL);
			if (e->u.binary.l->cval && e->u.binary.r->cval) {
				e->cval = val_new(s, VAL_BOOL);
				e->cval->i = (e->u.binary.l->cval->i == e->u.binary.r->cval->i) == (op == OP_EQ);
			}
			return e->type;
		}
		return err(s, e, "invalid operands to '%s': '%s' and '%s'", ops, tyname(s, l), tyname(s, r));
	}
	u = unify_scalar(l->scalar, r->scalar);
	if (u < 0)
		return err(s, e, "mismatched operand types '%s' and '%s' in '%s'; convert one with convert<T>",
			tyname(s, l), tyname(s, r), ops);
	if ((op == OP_MOD || op == OP_BAND || op == OP_BOR || op == OP_BXOR || op == OP_SHL || op == OP_SHR)
	    && !sc_is_int((ScalarKind)u))
		return err(s, e, "operator '%s' needs integer operands, not '%s'", ops, sema_scalar_names[u]);
	e->type = is_cmp(op) ? ty_scalar(SC_BOOL) : ty_scalar((ScalarKind)u);
	if (e->u.binary.l->cval && e->u.binary.r->cval) {
		const Value *a = e->u.binary.l->cval, *b = e->u.binary.r->cval;
		if (a->kind == VAL_INT && b->kind == VAL_INT) {
			int64_t res;
			if (!fold_int(s, e, op, a->i, b->i, &res))
				return e->type;
			e->cval = val_int(s, res);
			if (is_cmp(op))
				e->cval->kind = VAL_BOOL;
		} else if ((a->kind == VAL_FLOAT || a->kind == VAL_INT) && (b->kind == VAL_FLOAT || b->kind == VAL_INT)) {
			double x = a->kind == VAL_FLOAT ? a->f : (double)a->i, y = b->kind == VAL_FLOAT ? b->f : (double)b->i;
			double res = 0;
			switch (op) {
			case OP_ADD: res = x + y; break;
			case OP_SUB: res = x - y; break;
			case OP_MUL: res = x * y; break;
			case OP_DIV: res = x / y; break;
			default:
				if (is_cmp(op)) {
					e->cval = val_new(s, VAL_BOOL);
					e->cval->i = op == OP_EQ ? x == y : op == OP_NE ? x != y : op == OP_LT ? x < y
						   : op == OP_LE ? x <= y : op == OP_GT ? x > y : x >= y;
				}
				return e->type;
			}
			e->cval = val_new(s, VAL_FLOAT);
			e->cval->f = res;
		}
	}
	return e->type;
}

static Type *
check_unary(S *s, Node *e)
{
	Type *t = sema_expr(s, e->u.unary.x);
	Value *v = e->u.unary.x->cval;

	if (t->kind == TY_ERROR)
		return e->type = t;
	switch (e->u.unary.op) {
	case OP_NEG:
		if (t->kind == TY_TENSOR && t->scalar != SC_BOOL)
			return e->type = ty_tensor(s, SPACE_REG, t->scalar, t->rank, false);
		if (!ty_is_num(t))
			return err(s, e, "invalid operand to unary '-': '%s'", tyname(s, t));
		if (v && v->kind == VAL_INT) {
			if (v->i == INT64_MIN)
				return err(s, e, "integer overflow in a compile-time expression");
			e->cval = val_int(s, -v->i);
		} else if (v && v->kind == VAL_FLOAT) {
			e->cval = val_new(s, VAL_FLOAT);
			e->cval->f = -v->f;
		}
		return e->type = t;
	case OP_NOT:
		if (t->kind == TY_TENSOR && t->scalar == SC_BOOL)
			return e->type = ty_tensor(s, SPACE_REG, SC_BOOL, t->rank, false);
		if (!ty_is_bool(t))
			return err(s, e, "operator '!' needs a bool operand, not '%s'", tyname(s, t));
		if (v) {
			e->cval = val_new(s, VAL_BOOL);
			e->cval->i = !v->i;
		}
		return e->type = t;
	default:
		/* ~ of an integer fragment: elementwise */
		if (t->kind == TY_TENSOR && sc_is_int(t->scalar) && t->scalar != SC_INT)
			return e->type = ty_tensor(s, SPACE_REG, t->scalar, t->rank, false);
		if (!ty_is_int(t))
			return err(s, e, "operator '~' needs an integer operand, not '%s'", tyname(s, t));
		if (v && v->kind == VAL_INT)
			e->cval = val_int(s, ~v->i);
		return e->type = t;
	}
}

static Type *
check_tuple(S *s, Node *e)
{
	Type *t = ty_new(s, TY_TUPLE);
	bool all = true, err_seen = false;
	int i;

	t->nelems = e->u.list.n;
	t->elems = ARENA_NEWN(s->a, Type *, t->nelems ? t->nelems : 1);
	for (i = 0; i < e->u.list.n; i++) {
		t->elems[i] = sema_expr(s, e->u.list.v[i]);
		err_seen |= t->elems[i]->kind == TY_ERROR;
		all &= e->u.list.v[i]->cval != NULL;
	}
	if (err_seen)
		return e->type = ty_simple(TY_ERROR);
	if (all) {
		e->cval = val_new(s, VAL_TUPLE);
		e->cval->nelems = e->u.list.n;
		e->cval->elems = ARENA_NEWN(s->a, Value *, t->nelems ? t->nelems : 1);
		for (i = 0; i < e->u.list.n; i++)
			e->cval->elems[i] = e->u.list.v[i]->cval;
	}
	return e->type = t;
}

static bool
all_int_leaves(const Value *v)
{
	int i;

	if (v->kind == VAL_INT)
		return true;
	if (v->kind != VAL_TUPLE)
		return false;
	for (i = 0; i < v->nelems; i++)
		if (!all_int_leaves(v->elems[i]))
			return false;
	return true;
}

static Type *
check_layout(S *s, Node *e)
{
	Type *sh = sema_expr(s, e->u.binary.l), *st = sema_expr(s, e->u.binary.r), *t;

	if (sh->kind == TY_ERROR || st->kind == TY_ERROR)
		return e->type = ty_simple(TY_ERROR);
	if (!ty_is_inttuple(sh))
		return err(s, e->u.binary.l, "the shape of a layout must be an integer or a tuple of integers, not '%s'",
			tyname(s, sh));
	if (!ty_is_inttuple(st))
		return err(s, e->u.binary.r, "the stride of a layout must be an integer or a tuple of integers, not '%s'",
			tyname(s, st));
	if (!congruent(sh, st)) {
		err(s, e, "shape '%s' and stride '%s' of a layout are not congruent", tyname(s, sh), tyname(s, st));
		return e->type;
	}
	t = ty_new(s, TY_LAYOUT);
	t->rank = rank_of_shape(sh);
	e->type = t;
	if (e->u.binary.l->cval && e->u.binary.r->cval && all_int_leaves(e->u.binary.l->cval)
	    && all_int_leaves(e->u.binary.r->cval)) {
		e->cval = val_new(s, VAL_LAYOUT);
		e->cval->shape = e->u.binary.l->cval;
		e->cval->stride = e->u.binary.r->cval;
	}
	return t;
}

static Type *
check_compose(S *s, Node *e)
{
	Type *f = sema_expr(s, e->u.binary.l), *g = sema_expr(s, e->u.binary.r), *t;

	if (f->kind == TY_ERROR || g->kind == TY_ERROR)
		return e->type = ty_simple(TY_ERROR);
	if (f->kind != TY_SWIZZLE && f->kind != TY_LAYOUT)
		return err(s, e->u.binary.l, "left operand of 'o' must be a swizzle or a layout, not '%s'", tyname(s, f));
	if (g->kind != TY_LAYOUT)
		return err(s, e->u.binary.r, "right operand of 'o' must be a layout, not '%s'", tyname(s, g));
	t = ty_new(s, TY_LAYOUT);
	t->rank = g->rank;
	t->swizzled = f->kind == TY_SWIZZLE || f->swizzled || g->swizzled;
	if (f->kind == TY_LAYOUT && e->u.binary.l->cval && e->u.binary.r->cval) {
		const lay_val *x = val_to_lay(s, e->u.binary.l->cval), *y = val_to_lay(s, e->u.binary.r->cval), *r;
		if (x && y) {
			r = lay_composition(&s->lc, x, y);
			if (s->lc.failed) {
				err(s, e, "%s", s->lc.err);
				lay_clear_error(&s->lc);
				return e->type;
			}
			e->cval = val_from_lay(s, r);
			if (r && (r->kind == LAY_LAYOUT || r->kind == LAY_COMPOSED))
				t->rank = lay_rank(r->kind == LAY_COMPOSED ? r->u.c.b : r);
		}
		return e->type = t;
	}
	if (f->kind == TY_SWIZZLE && e->u.binary.l->cval && e->u.binary.r->cval && !e->u.binary.r->cval->swz.on) {
		e->cval = val_new(s, VAL_LAYOUT);
		*e->cval = *e->u.binary.r->cval;
		e->cval->swz = e->u.binary.l->cval->swz;
	}
	return e->type = t;
}

/* Resolves a name used as an enumerator argument (over=wave, sched_group(mfma, ...)). */
static int
enum_arg(S *s, Node *e, int lo, int hi, const char *what)
{
	int i;

	if (e->kind == E_NAME)
		for (i = lo; i <= hi; i++)
			if (!strcmp(e->u.name.id, sema_enum_names[i])) {
				e->type = ty_simple(TY_ENUM);
				e->cval = val_new(s, VAL_ENUM);
				e->cval->i = i;
				return i;
			}
	{
		char list[256];
		size_t n = 0;
		for (i = lo; i <= hi && n < sizeof list; i++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i == lo ? "" : ", ", sema_enum_names[i]);
		err(s, e, "%s must be one of: %s", what, list);
	}
	return -1;
}

static Value *
const_int(S *s, Node *e, const char *what)
{
	Type *t = sema_expr(s, e);

	if (t->kind == TY_ERROR)
		return NULL;
	if (!ty_is_int(t)) {
		err(s, e, "%s must be an integer, not '%s'", what, tyname(s, t));
		return NULL;
	}
	if (!e->cval) {
		err(s, e, "%s must be known at compile time", what);
		return NULL;
	}
	return e->cval;
}

static const Param *
named(const Node *call, const char *name)
{
	int i;

	for (i = 0; i < call->u.call.named.n; i++)
		if (!strcmp(call->u.call.named.v[i]->name, name))
			return call->u.call.named.v[i];
	return NULL;
}

static const char *
atom_desc(const char *kind)
{
	return !strcmp(kind, "mma") ? "an MMA atom" : "a copy atom";
}

static bool
atom_kind_is(const Node *atom, const char *k)
{
	return atom && !strcmp(atom->u.atom.kind, k);
}

/* Value of an atom field (already checked), or NULL. */
static Value *
atom_field(const Node *atom, const char *name)
{
	int i;

	for (i = 0; atom && i < atom->u.atom.fields.n; i++)
		if (!strcmp(atom->u.atom.fields.v[i]->name, name))
			return atom->u.atom.fields.v[i]->value ? atom->u.atom.fields.v[i]->value->cval : NULL;
	return NULL;
}

/* integer types the bit counts take, and the types bitcast moves between */
static bool
bits_int(ScalarKind k)
{
	return k == SC_I32 || k == SC_U32 || k == SC_I64 || k == SC_U64;
}

static bool
bits_type(ScalarKind k)
{
	return bits_int(k) || k == SC_I16 || k == SC_U16 || k == SC_F16 || k == SC_BF16 || k == SC_F32;
}

/* whether x is shape(T) or stride(T) of a tensor, or a get of one: a tuple of
 * a view's modes, whose arity the checker may not know (code generation asks
 * the layout engine, codegen_view.c) */
static bool
view_modes(const Node *x)
{
	int b;
	if (x->kind != E_CALL || x->u.call.callee->kind != E_NAME || !x->u.call.callee->u.name.sym ||
	    x->u.call.callee->u.name.sym->kind != SYM_BUILTIN || !x->u.call.callee->u.name.sym->type ||
	    x->u.call.args.n < 1)
		return false;
	b = x->u.call.callee->u.name.sym->type->builtin;
	if (b == B_GET)
		return view_modes(x->u.call.args.v[0]);
	return (b == B_SHAPE || b == B_STRIDE) && x->u.call.args.v[0]->type &&
	       x->u.call.args.v[0]->type->kind == TY_TENSOR;
}

/* The atomic a builtin names (atomic_min/max by the element's signedness). */
static Type *
check_atomic(S *s, Node *e, int b)
{
	Node **v = e->u.call.args.v;
	const Param *sc = named(e, "scope"), *o = named(e, "order");
	const char *nm = builtins[b].name;
	Type *tt;
	ScalarKind k;
	int i, nv = b == B_ATOMIC_CAS ? 2 : 1;

	if (sema_expr(s, v[0])->kind == TY_ERROR)
		return e->type = ty_simple(TY_ERROR);
	tt = v[0]->kind == E_INDEX ? v[0]->u.call.callee->type : NULL;
	if (!tt || tt->kind != TY_TENSOR || v[0]->type->kind != TY_SCALAR)
		return err(s, v[0], "'%s' updates one element of a tensor, written T[i] or T[i, j], not '%s'", nm,
			tyname(s, v[0]->type));
	if (tt->space == SPACE_REG)
		return err(s, v[0], "'%s' updates an element of a global or LDS tensor, not of a register fragment", nm);
	k = tt->scalar;
	if ((k == SC_BF16 || k == SC_F16) && b == B_ATOMIC_ADD) {
		/* a packed add of a pair: v[0] to T[c], v[1] to the next element in memory */
		Type *ti = sema_expr(s, v[1]);
		if (ti->kind == TY_ERROR)
			return e->type = ti;
		if (ti->kind != TY_TENSOR || ti->space != SPACE_REG || ti->scalar != k)
			return err(s, v[1], "'atomic_add' of a %s element adds a pair: the value is a register fragment "
				"of 2 %s values (v[0] goes to T[c], v[1] to the next element in memory), not '%s'",
				sema_scalar_names[k], sema_scalar_names[k], tyname(s, ti));
		if (sc && enum_arg(s, sc->value, EN_WAVE, EN_SYSTEM, "'scope'") < 0)
			return e->type = ty_simple(TY_ERROR);
		if (o && enum_arg(s, o->value, EN_RELAXED, EN_SEQ_CST, "'order'") < 0)
			return e->type = ty_simple(TY_ERROR);
		return e->type = ty_tensor(s, SPACE_REG, k, 1, false);
	}
	if (k != SC_I32 && k != SC_U32 && k != SC_F32)
		return err(s, v[0], "'%s' updates i32, u32 or f32 elements (and atomic_add pairs of bf16 or f16), "
			"not '%s'", nm, sema_scalar_names[k]);
	if (k == SC_F32 && b != B_ATOMIC_ADD && b != B_ATOMIC_EXCHANGE && b != B_ATOMIC_CAS)
		return err(s, v[0], "'%s' of an f32 element is not supported: f32 has atomic_add, atomic_exchange "
			"and atomic_cas (an ordered float maximum is atomic_max of order_key(x) on a u32 tensor)", nm);
	for (i = 1; i <= nv; i++) {
		Type *ti = sema_expr(s, v[i]);
		if (ti->kind == TY_ERROR)
			return e->type = ti;
		if (ti->kind != TY_SCALAR || unify_scalar(ti->scalar, k) != (int)k)
			return err(s, v[i], "the %s of '%s' must be a '%s' scalar like the element, not '%s'",
				i == 1 && nv == 2 ? "expected value" : i == 2 ? "desired value" : "value", nm,
				sema_scalar_names[k], tyname(s, ti));
	}
	if (sc && enum_arg(s, sc->value, EN_WAVE, EN_SYSTEM, "'scope'") < 0)
		return e->type = ty_simple(TY_ERROR);
	if (o && enum_arg(s, o->value, EN_RELAXED, EN_SEQ_CST, "'order'") < 0)
		return e->type = ty_simple(TY_ERROR);
	return e->type = ty_scalar(k);
}

static Type *
check_builtin_type(S *s, Node *e, int b)
{
	NodeList *a = &e->u.call.args;
	Node **v = a->v;
	Type *t0 = NULL, *t1 = NULL, *t2 = NULL, *t;
	int i, n = a->n;

	/* arity and named arguments */
	if (n < builtins[b].min || n > builtins[b].max) {
		if (builtins[b].min == builtins[b].max)
			return err(s, e, "'%s' takes %d argument%s, %d given", builtins[b].name, builtins[b].min,
				builtins[b].min == 1 ? "" : "s", n);
		return err(s, e, "'%s' takes %d to %d arguments, %d given", builtins[b].name, builtins[b].min,
			builtins[b].max, n);
	}
	for (i = 0; i < e->u.call.named.n; i++) {
		const Param *p = e->u.call.named.v[i];
		const char *allowed = builtins[b].named, *f;
		size_t l = strlen(p->name);
		bool ok = false;
		int j;
		for (f = strstr(allowed, p->name); f; f = strstr(f + 1, p->name))
			if ((f == allowed || f[-1] == ' ') && (f[l] == 0 || f[l] == ' '))
				ok = true;
		if (!ok) {
			diag_error(s->d, p->span, "'%s' has no argument named '%s'", builtins[b].name, p->name);
			return e->type = ty_simple(TY_ERROR);
		}
		for (j = 0; j < i; j++)
			if (!strcmp(e->u.call.named.v[j]->name, p->name)) {
				diag_error(s->d, p->span, "argument '%s' given twice", p->name);
				return e->type = ty_simple(TY_ERROR);
			}
	}
	/* enumerator-taking and type-taking builtins check their own arguments */
	switch (b) {
	case B_REDUCE: {
		const Param *over = named(e, "over"), *width = named(e, "width");
		int sc = EN_WAVE;
		Symbol *op = v[0]->kind == E_NAME ? sym_lookup(s, v[0]->u.name.id) : NULL;
		int ob = op && op->kind == SYM_BUILTIN && op->type ? op->type->builtin : -1;
		if (ob != B_ADD && ob != B_MUL && ob != B_MAX && ob != B_MIN)
			return err(s, v[0], "the reduction operator must be add, mul, max or min");
		v[0]->u.name.sym = op;   /* code generation reads the operator's enumerator */
		v[0]->type = ty_simple(TY_ENUM);
		t1 = sema_expr(s, v[1]);
		if (t1->kind == TY_ERROR)
			return e->type = t1;
		if (!ty_is_num(t1) && !(t1->kind == TY_TENSOR))
			return err(s, v[1], "reduce needs a number or a tensor, not '%s'", tyname(s, t1));
		if (over && (sc = enum_arg(s, over->value, EN_THREAD, EN_WORKGROUP, "'over'")) < 0)
			return e->type = ty_simple(TY_ERROR);
		if (sc == EN_LANES && !width)
			return err(s, e, "reduce over=lanes needs width=N (a power of two number of lanes)");
		if (width) {
			Value *w = const_int(s, width->value, "'width'");
			if (!w)
				return e->type = ty_simple(TY_ERROR);
			if (w->i < 1 || w->i > 64 || (w->i & (w->i - 1)))
				return err(s, width->value, "'width' must be a power of two between 1 and 64, not %lld",
					(long long)w->i);
		}
		if (t1->kind == TY_TENSOR && sc != EN_THREAD)
			return e->type = ty_tensor(s, SPACE_REG, t1->scalar, t1->rank, false);
		return e->type = ty_scalar(t1->kind == TY_TENSOR ? t1->scalar : t1->scalar);
	}
	case B_SCAN: {
		/* scan(op, x, over=wave|workgroup, exclusive=b): prefix folds of 32-bit scalars */
		const Param *over = named(e, "over"), *ex = named(e, "exclusive");
		Symbol *op = v[0]->kind == E_NAME ? sym_lookup(s, v[0]->u.name.id) : NULL;
		int ob = op && op->kind == SYM_BUILTIN && op->type ? op->type->builtin : -1;
		if (ob != B_ADD && ob != B_MUL && ob != B_MAX && ob != B_MIN)
			return err(s, v[0], "the scan operator must be add, mul, max or min");
		v[0]->u.name.sym = op;
		v[0]->type = ty_simple(TY_ENUM);
		t1 = sema_expr(s, v[1]);
		if (t1->kind == TY_ERROR)
			return e->type = t1;
		if (t1->kind != TY_SCALAR || (t1->scalar != SC_I32 && t1->scalar != SC_U32 && t1->scalar != SC_F32))
			return err(s, v[1], "scan folds an i32, u32 or f32 scalar, not '%s'", tyname(s, t1));
		if (over && enum_arg(s, over->value, EN_WAVE, EN_WORKGROUP, "'over'") < 0)
			return e->type = ty_simple(TY_ERROR);
		if (ex && (sema_expr(s, ex->value)->kind == TY_ERROR || !ty_is_bool(ex->value->type) || !ex->value->cval))
			return err(s, ex->value, "'exclusive' must be true or false");
		return e->type = t1;
	}
	case B_ARGMAX: case B_ARGMIN: {
		/* (value, position) of the largest (smallest) x over the lanes; ties to the lower position */
		const Param *over = named(e, "over"), *width = named(e, "width");
		int sc = EN_WAVE;
		Type *r;
		t0 = sema_expr(s, v[0]);
		t1 = t0->kind == TY_ERROR ? t0 : sema_expr(s, v[1]);
		if (t1->kind == TY_ERROR)
			return e->type = t1;
		if (t0->kind != TY_SCALAR || (t0->scalar != SC_I32 && t0->scalar != SC_U32 && t0->scalar != SC_F32))
			return err(s, v[0], "'%s' compares i32, u32 or f32 scalars, not '%s'", builtins[b].name, tyname(s, t0));
		if (!ty_is_num(t1) || !(t1->scalar == SC_INT || t1->scalar == SC_I32))
			return err(s, v[1], "the position of '%s' must be an i32, not '%s'", builtins[b].name, tyname(s, t1));
		if (over && (sc = enum_arg(s, over->value, EN_LANES, EN_WORKGROUP, "'over'")) < 0)
			return e->type = ty_simple(TY_ERROR);
		if (sc == EN_LANES && !width)
			return err(s, e, "'%s' over=lanes needs width=N (a power of two number of lanes)", builtins[b].name);
		if (width) {
			Value *w = const_int(s, width->value, "'width'");
			if (!w)
				return e->type = ty_simple(TY_ERROR);
			if (sc != EN_LANES || w->i < 1 || w->i > 32 || (w->i & (w->i - 1)))
				return err(s, width->value, "'width' goes with over=lanes and is a power of two up to 32");
		}
		r = ty_new(s, TY_TUPLE);
		r->nelems = 2;
		r->elems = ARENA_NEWN(s->a, Type *, 2);
		r->elems[0] = t0;
		r->elems[1] = ty_scalar(SC_I32);
		return e->type = r;
	}
	case B_SCHED_GROUP: {
		Value *c, *id;
		if (enum_arg(s, v[0], EN_ALU, EN_DS_WRITE, "the instruction kind of sched_group") < 0)
			return e->type = ty_simple(TY_ERROR);
		if (!(c = const_int(s, v[1], "the instruction count of sched_group"))
		    || !(id = const_int(s, v[2], "the sync id of sched_group")))
			return e->type = ty_simple(TY_ERROR);
		if (c->i < 0 || id->i < 0)
			return err(s, e, "sched_group counts and ids cannot be negative");
		return e->type = ty_simple(TY_VOID);
	}
	case B_ATOMIC_ADD: case B_ATOMIC_SUB: case B_ATOMIC_MIN: case B_ATOMIC_MAX: case B_ATOMIC_AND:
	case B_ATOMIC_OR: case B_ATOMIC_XOR: case B_ATOMIC_INC: case B_ATOMIC_DEC: case B_ATOMIC_EXCHANGE:
	case B_ATOMIC_CAS:
		return check_atomic(s, e, b);
	case B_FENCE: {
		const Param *sc = named(e, "scope"), *o = named(e, "order");
		if (sc && enum_arg(s, sc->value, EN_WAVE, EN_SYSTEM, "'scope'") < 0)
			return e->type = ty_simple(TY_ERROR);
		if (o && (i = enum_arg(s, o->value, EN_RELAXED, EN_SEQ_CST, "'order'")) < 0)
			return e->type = ty_simple(TY_ERROR);
		if (o && i == EN_RELAXED)
			return err(s, o->value, "a fence's order is acquire, release, acq_rel or seq_cst, not relaxed");
		return e->type = ty_simple(TY_VOID);
	}
	case B_SCHED_BARRIER:
		if (n == 1 && enum_arg(s, v[0], EN_ALU, EN_DS_WRITE, "the instruction kind of sched_barrier") < 0)
			return e->type = ty_simple(TY_ERROR);
		return e->type = ty_simple(TY_VOID);
	case B_WAIT:
		for (i = 0; i < e->u.call.named.n; i++) {
			Value *c = const_int(s, e->u.call.named.v[i]->value, "a wait count");
			if (!c)
				return e->type = ty_simple(TY_ERROR);
			if (c->i < 0 || c->i > 63)
				return err(s, e->u.call.named.v[i]->value, "wait count %lld is out of range 0..63",
					(long long)c->i);
		}
		if (e->u.call.named.n == 0)
			return err(s, e, "wait needs at least one of vmem=, lgkm=, exp=");
		return e->type = ty_simple(TY_VOID);
	default:
		break;
	}
	/* everything else: check the arguments first */
	for (i = 0; i < n; i++) {
		if (b == B_LOCAL_TILE && i == 2) {
			if (!check_coord(s, v[2]))
				return e->type = ty_simple(TY_ERROR);
			continue;
		}
		t = sema_expr(s, v[i]);
		if (t->kind == TY_ERROR)
			return e->type = t;
	}
	for (i = 0; i < e->u.call.named.n; i++)
		if (sema_expr(s, e->u.call.named.v[i]->value)->kind == TY_ERROR)
			return e->type = ty_simple(TY_ERROR);
	t0 = n > 0 ? v[0]->type : NULL;
	t1 = n > 1 ? v[1]->type : NULL;
	t2 = n > 2 ? v[2]->type : NULL;
	switch (b) {
	case B_MAKE_LAYOUT:
		if (!ty_is_inttuple(t0) || (t1 && !ty_is_inttuple(t1)))
			return err(s, e, "make_layout needs integer tuples");
		if (t1 && !congruent(t0, t1))
			return err(s, e, "shape '%s' and stride '%s' of a layout are not congruent", tyname(s, t0),
				tyname(s, t1));
		t = ty_new(s, TY_LAYOUT);
		t->rank = rank_of_shape(t0);
		if (t1 && v[0]->cval && v[1]->cval && all_int_leaves(v[0]->cval) && all_int_leaves(v[1]->cval)) {
			e->cval = val_new(s, VAL_LAYOUT);
			e->cval->shape = v[0]->cval;
			e->cval->stride = v[1]->cval;
		}
		return e->type = t;
	case B_SHAPE:
	case B_STRIDE:
		if (t0->kind == TY_LAYOUT || t0->kind == TY_TENSOR) {
			if (t0->kind == TY_TENSOR && t0->layout && t0->layout->kind == E_LAYOUT && t0->layout->type) {
				Node *part = b == B_SHAPE ? t0->layout->u.binary.l : t0->layout->u.binary.r;
				e->cval = part->cval;
				return e->type = part->type;
			}
			if (t0->kind == TY_TENSOR && b == B_SHAPE && t0->layout && ty_is_inttuple(t0->layout->type)) {
				e->cval = t0->layout->cval;
				return e->type = t0->layout->type;
			}
			const Value *lv = v[0]->cval;
			if (lv && lv->kind == VAL_LAYOUT) {
				e->cval = b == B_SHAPE ? lv->shape : lv->stride;
				return e->type = type_of_value(s, e->cval);
			}
			t = ty_new(s, TY_TUPLE);
			if (t0->kind == TY_TENSOR && t0->rank > 0) {
				/* a view's run-time modes (code generation asks the layout engine) */
				t->nelems = t0->rank;
				t->elems = ARENA_NEWN(s->a, Type *, t->nelems);
				for (i = 0; i < t->nelems; i++)
					t->elems[i] = ty_scalar(SC_I32);
			}
			return e->type = t;
		}
		if (b == B_SHAPE && ty_is_inttuple(t0)) {
			e->cval = v[0]->cval;
			return e->type = t0;
		}
		return err(s, e, "'%s' needs a layout or a tensor, not '%s'", builtins[b].name, tyname(s, t0));
	case B_SIZE:
	case B_COSIZE:
	case B_RANK:
	case B_DEPTH:
		if (!is_layoutish(t0) && t0->kind != TY_TENSOR)
			return err(s, e, "'%s' needs a layout, a tuple or a tensor, not '%s'", builtins[b].name,
				tyname(s, t0));
		if (b == B_COSIZE && t0->kind == TY_TENSOR)
			return err(s, v[0], "'cosize' is defined on layouts, not on tensors (as in CuTe); '%s' is a tensor",
				tyname(s, t0));
		e->type = ty_scalar(SC_INT);
		if (b == B_RANK) {
			int r = t0->kind == TY_TUPLE ? t0->nelems : t0->kind == TY_SCALAR ? 1 : t0->rank;
			if (r >= 0)
				e->cval = val_int(s, r);
		} else if (v[0]->cval && n == 1) {
			int64_t r = b == B_SIZE ? val_size(v[0]->cval) : b == B_COSIZE ? val_cosize(v[0]->cval) : -1;
			if (r >= 0)
				e->cval = val_int(s, r);
		}
		if (!e->cval && t0->kind == TY_SCALAR)
			e->type = t0; /* size of a run-time extent */
		else if (!e->cval && b != B_RANK)
			e->type = ty_scalar(SC_I32); /* a run-time size */
		return e->type;
	case B_GET: {
		Value *iv = const_int(s, v[1], "the index of get"), *jv = n > 2 ? const_int(s, v[2], "the index of get") : NULL;
		if (!iv || (n > 2 && !jv))
			return e->type = ty_simple(TY_ERROR);
		if (t0->kind == TY_TUPLE && !t0->nelems && view_modes(v[0]))
			return e->type = ty_scalar(SC_I32); /* a mode of a view of unknown rank: code generation asks the engine */
		if (t0->kind == TY_TUPLE) {
			if (iv->i < 0 || iv->i >= t0->nelems)
				return err(s, v[1], "index %lld is out of range for a tuple of %d elements",
					(long long)iv->i, t0->nelems);
			if (v[0]->cval && v[0]->cval->kind == VAL_TUPLE)
				e->cval = v[0]->cval->elems[iv->i];
			else {
				const Node *src = tuple_source(v[0]);
				if (src && src->u.list.n == t0->nelems)
					e->cval = src->u.list.v[iv->i]->cval; /* a known element of a partly known tuple */
			}
			t = t0->elems[iv->i];
			if (jv) {   /* get(x, i, j) = get(get(x, i), j) */
				Value *c0 = e->cval;
				if (t->kind != TY_TUPLE) {
					if (jv->i != 0)
						return err(s, v[2], "index %lld is out of range for an integer (mode %lld is not a tuple)",
							(long long)jv->i, (long long)iv->i);
					return e->type = t;
				}
				if (jv->i < 0 || jv->i >= t->nelems)
					return err(s, v[2], "index %lld is out of range for a tuple of %d elements",
						(long long)jv->i, t->nelems);
				e->cval = c0 && c0->kind == VAL_TUPLE ? c0->elems[jv->i] : NULL;
				t = t->elems[jv->i];
			}
			return e->type = t;
		}
		if (t0->kind == TY_TENSOR && t0->space == SPACE_COORD) {
			/* get(c, k): the k-th coordinates of this thread's elements, a fragment */
			int nc = t0->scalar == SC_I64 ? 2 : 1;
			if (iv->i < 0 || iv->i >= nc)
				return err(s, v[1], "coordinate %lld of rank-%d coordinates does not exist", (long long)iv->i, nc);
			return e->type = ty_tensor(s, SPACE_REG, SC_I32, t0->rank, false);
		}
		if (t0->kind == TY_LAYOUT) {
			if (t0->rank >= 0 && iv->i >= t0->rank)
				return err(s, v[1], "mode %lld is out of range for a layout of rank %d", (long long)iv->i,
					t0->rank);
			return e->type = ty_new(s, TY_LAYOUT);
		}
		return err(s, e, "'get' needs a tuple or a layout, not '%s'", tyname(s, t0));
	}
	case B_COMPOSITION:
	case B_COMPLEMENT:
	case B_COALESCE:
	case B_LEFT_INVERSE:
	case B_RIGHT_INVERSE:
	case B_LOGICAL_PRODUCT:
	case B_ZIPPED_PRODUCT:
	case B_TILED_PRODUCT:
	case B_FLAT_PRODUCT:
	case B_BLOCKED_PRODUCT:
	case B_RAKED_PRODUCT:
		if (t0->kind == TY_TENSOR && (b == B_COMPOSITION || b == B_COALESCE)) {
			if (t1 && !is_layoutish(t1))
				return err(s, v[1], "'%s' needs a layout as its second argument, not '%s'", builtins[b].name, tyname(s, t1));
			return e->type = ty_tensor(s, t0->space, t0->scalar, t1 && t1->kind == TY_LAYOUT ? t1->rank : -1, t0->swizzled);
		}
		if (t0->kind == TY_TENSOR)
			return err(s, v[0], "'%s' is defined on layouts, not on tensors (as in CuTe: %s), and '%s' is a tensor",
				builtins[b].name, b == B_COMPLEMENT || b == B_LEFT_INVERSE || b == B_RIGHT_INVERSE
					? "its result is not a view of the tensor's elements"
					: "a product would address beyond the tensor", tyname(s, t0));
		if (!is_layoutish(t0) && t0->kind != TY_SWIZZLE)
			return err(s, v[0], "'%s' needs a layout, not '%s'", builtins[b].name, tyname(s, t0));
		if (t1 && !is_layoutish(t1))
			return err(s, v[1], "'%s' needs a layout or tiler as its second argument, not '%s'",
				builtins[b].name, tyname(s, t1));
		t = ty_new(s, TY_LAYOUT);
		t->swizzled = t0->swizzled || t0->kind == TY_SWIZZLE;
		return e->type = t;
	case B_LOGICAL_DIVIDE:
	case B_ZIPPED_DIVIDE:
	case B_TILED_DIVIDE:
	case B_FLAT_DIVIDE:
		if (!is_layoutish(t1))
			return err(s, v[1], "'%s' needs a tiler (a layout, a shape or [l1, l2, ...]), not '%s'",
				builtins[b].name, tyname(s, t1));
		if (t0->kind == TY_TENSOR)
			return e->type = ty_tensor(s, t0->space, t0->scalar, -1, t0->swizzled);
		if (!is_layoutish(t0))
			return err(s, v[0], "'%s' needs a layout or a tensor, not '%s'", builtins[b].name, tyname(s, t0));
		return e->type = ty_new(s, TY_LAYOUT);
	case B_SWIZZLE: {
		Value *bv = NULL, *mv = NULL, *sv = NULL;
		if (!(bv = const_int(s, v[0], "swizzle's B")) || !(mv = const_int(s, v[1], "swizzle's M"))
		    || !(sv = const_int(s, v[2], "swizzle's S")))
			return e->type = ty_simple(TY_ERROR);
		if (bv->i < 0 || mv->i < 0 || sv->i < 0 || bv->i > 30 || mv->i > 30 || sv->i > 30 || bv->i + mv->i + sv->i > 30 || (bv->i > 0 && sv->i < bv->i))
			return err(s, e, "invalid swizzle(%lld,%lld,%lld): need B, M, S >= 0, S >= B and B+M+S <= 30",
				(long long)bv->i, (long long)mv->i, (long long)sv->i);
		e->cval = val_new(s, VAL_SWIZZLE);
		e->cval->swz.b = (int)bv->i;
		e->cval->swz.m = (int)mv->i;
		e->cval->swz.s = (int)sv->i;
		e->cval->swz.on = true;
		return e->type = ty_simple(TY_SWIZZLE);
	}
	case B_LOCAL_TILE:
		if (t0->kind != TY_TENSOR)
			return err(s, v[0], "local_tile needs a tensor, not '%s'", tyname(s, t0));
		if (!is_layoutish(t1))
			return err(s, v[1], "the tile of local_tile must be a shape, a layout or a tiler, not '%s'",
				tyname(s, t1));
		return e->type = ty_tensor(s, t0->space, t0->scalar,
					   (t1->kind == TY_TUPLE ? t1->nelems : t1->kind == TY_SCALAR ? 1 : t1->rank) < 0
						   ? -1
						   : (t1->kind == TY_TUPLE ? t1->nelems : t1->kind == TY_SCALAR ? 1 : t1->rank)
							     + holes(v[2]),
					   t0->swizzled);
	case B_LOCAL_PARTITION:
		if (t0->kind != TY_TENSOR)
			return err(s, v[0], "local_partition needs a tensor, not '%s'", tyname(s, t0));
		if (!is_layoutish(t1))
			return err(s, v[1], "the thread layout of local_partition must be a layout, not '%s'", tyname(s, t1));
		if (!ty_is_int(t2))
			return err(s, v[2], "the thread index of local_partition must be an integer, not '%s'", tyname(s, t2));
		return e->type = ty_tensor(s, t0->space, t0->scalar, -1, t0->swizzled);
	case B_IDX2CRD:
	case B_CRD2IDX:
		if (!ty_is_inttuple(t0) && t0->kind != TY_TUPLE)
			return err(s, v[0], "'%s' needs an integer or a tuple, not '%s'", builtins[b].name, tyname(s, t0));
		if (!ty_is_inttuple(t1))
			return err(s, v[1], "'%s' needs a shape, not '%s'", builtins[b].name, tyname(s, t1));
		if (b == B_CRD2IDX)
			return e->type = ty_is_int(t0) ? t0 : ty_scalar(SC_I32);
		if (t1->kind == TY_TUPLE) {
			Type *r = ty_new(s, TY_TUPLE);
			r->nelems = t1->nelems;
			r->elems = ARENA_NEWN(s->a, Type *, r->nelems ? r->nelems : 1);
			for (i = 0; i < r->nelems; i++)
				r->elems[i] = ty_is_int(t0) ? t0 : ty_scalar(SC_I32);
			if (v[0]->cval && v[1]->cval && v[0]->cval->kind == VAL_INT && all_int_leaves(v[1]->cval)) {
				/* colexicographic: first mode fastest */
				int64_t idx = v[0]->cval->i;
				bool flat = true;
				Value *cv = val_new(s, VAL_TUPLE);
				cv->nelems = r->nelems;
				cv->elems = ARENA_NEWN(s->a, Value *, r->nelems ? r->nelems : 1);
				for (i = 0; i < r->nelems; i++) {
					const Value *ex = v[1]->cval->elems[i];
					if (ex->kind != VAL_INT || ex->i <= 0) {
						flat = false;
						break;
					}
					cv->elems[i] = val_int(s, i + 1 == r->nelems ? idx : idx % ex->i);
					idx /= ex->i;
				}
				if (flat)
					e->cval = cv;
			}
			return e->type = r;
		}
		return e->type = t0;
	case B_CEIL_DIV:
	case B_MIN:
	case B_MAX:
	case B_ADD:
	case B_MUL: {
		int u;
		if (t0->kind == TY_TENSOR || t1->kind == TY_TENSOR) {
			Type *r;
			if (b == B_CEIL_DIV)
				return err(s, e, "ceil_div needs integers");
			r = elementwise_type(s, e, v, 2, builtins[b].name);
			if (r->kind == TY_TENSOR && r->scalar == SC_BOOL)
				return err(s, e, "'%s' needs numbers, not bool", builtins[b].name);
			return e->type = r;
		}
		if (!ty_is_num(t0) || !ty_is_num(t1))
			return err(s, e, "'%s' needs numbers, not '%s' and '%s'", builtins[b].name, tyname(s, t0),
				tyname(s, t1));
		u = unify_scalar(t0->scalar, t1->scalar);
		if (u < 0)
			return err(s, e, "mismatched operand types '%s' and '%s' in '%s'; convert one with convert<T>",
				tyname(s, t0), tyname(s, t1), builtins[b].name);
		if (b == B_CEIL_DIV && !sc_is_int((ScalarKind)u))
			return err(s, e, "ceil_div needs integers, not '%s'", sema_scalar_names[u]);
		if (v[0]->cval && v[1]->cval && v[0]->cval->kind == VAL_INT && v[1]->cval->kind == VAL_INT) {
			int64_t x = v[0]->cval->i, y = v[1]->cval->i, r = 0;
			if (b == B_CEIL_DIV) {
				if (y <= 0)
					return err(s, v[1], "ceil_div by %lld: the divisor must be positive", (long long)y);
				r = x / y + (x % y > 0);
			} else if (b == B_MIN)
				r = x < y ? x : y;
			else if (b == B_MAX)
				r = x > y ? x : y;
			else if (!fold_int(s, e, b == B_ADD ? OP_ADD : OP_MUL, x, y, &r))
				return e->type;
			e->cval = val_int(s, r);
		}
		return e->type = ty_scalar((ScalarKind)u);
	}
	case B_IDENTITY:
		if (!ty_is_inttuple(t0))
			return err(s, v[0], "make_identity needs a shape, not '%s'", tyname(s, t0));
		if (rank_of_shape(t0) > 2 || (t0->kind == TY_TUPLE && (t0->elems[0]->kind == TY_TUPLE ||
		                                                       (t0->nelems > 1 && t0->elems[1]->kind == TY_TUPLE))))
			return err(s, v[0], "make_identity takes a shape of rank 1 or 2 without nested modes, e.g. (M, N)");
		/* coordinates as elements: i32 for rank 1, (i32, i32) for rank 2 (kept packed in an i64) */
		return e->type = ty_tensor(s, SPACE_COORD, rank_of_shape(t0) == 2 ? SC_I64 : SC_I32, rank_of_shape(t0), false);
	case B_ELEM_LESS:
		if (!(ty_is_inttuple(t0) || t0->kind == TY_TENSOR) || !(ty_is_inttuple(t1) || t1->kind == TY_TENSOR))
			return err(s, e, "elem_less needs coordinates and a shape");
		if (t0->kind == TY_TENSOR && t0->space == SPACE_COORD && t0->scalar == SC_I64 && rank_of_shape(t1) != 2)
			return err(s, v[1], "elem_less of rank-2 coordinates needs a shape of rank 2, e.g. (M, N)");
		if (t0->kind == TY_TENSOR)
			return e->type = ty_tensor(s, SPACE_REG, SC_BOOL, t0->rank, false);
		return e->type = ty_scalar(SC_BOOL);
	case B_ALIGNED:
		if (t0->kind != TY_TENSOR)
			return err(s, v[0], "aligned needs a tensor, not '%s'", tyname(s, t0));
		if (!const_int(s, v[1], "the alignment"))
			return e->type = ty_simple(TY_ERROR);
		if (v[1]->cval->i <= 0 || (v[1]->cval->i & (v[1]->cval->i - 1)))
			return err(s, v[1], "the alignment must be a positive power of two");
		return e->type = ty_scalar(SC_BOOL);
	case B_FRAGMENT:
		if (t0->kind != TY_TYPE)
			return err(s, v[0], "the first argument of fragment must be an element type, not '%s'", tyname(s, t0));
		if (t1->kind != TY_LAYOUT && !ty_is_inttuple(t1))
			return err(s, v[1], "the second argument of fragment must be a layout or a shape, not '%s'",
				tyname(s, t1));
		if (!v[1]->cval)
			return err(s, v[1], "a register fragment needs a static layout");
		if (!sema_frag_layout_ok(s, v[1]))
			return e->type = ty_simple(TY_ERROR);
		e->type = ty_tensor(s, SPACE_REG, t0->scalar, t1->kind == TY_LAYOUT ? t1->rank : rank_of_shape(t1), false);
		e->type->layout = v[1];
		return e->type;
	case B_FRAGMENT_LIKE:
		if (t0->kind != TY_TENSOR)
			return err(s, v[0], "fragment_like needs a tensor, not '%s'", tyname(s, t0));
		if (t1 && t1->kind != TY_TYPE)
			return err(s, v[1], "the second argument of fragment_like must be an element type");
		return e->type = ty_tensor(s, SPACE_REG, t1 ? t1->scalar : t0->scalar, t0->rank, false);
	case B_COPY: {
		Type *src = n == 3 ? t1 : t0, *dst = n == 3 ? t2 : t1;
		Node *sn = n == 3 ? v[1] : v[0], *dn = n == 3 ? v[2] : v[1];
		const Param *pred = named(e, "pred");
		if (n == 3) {
			if (t0->kind == TY_ATOM) {
				if (!atom_kind_is(t0->atom, "copy"))
					return err(s, v[0], "copy needs a copy atom, but '%s' is %s", t0->atom->u.atom.id,
						atom_desc(t0->atom->u.atom.kind));
			} else if (t0->kind != TY_TILED_COPY && t0->kind != TY_THR_COPY)
				return err(s, v[0], "the first of three copy arguments must be a tiled copy or a copy atom, not '%s'",
					tyname(s, t0));
		}
		if (src->kind != TY_TENSOR)
			return err(s, sn, "the source of copy must be a tensor, not '%s'", tyname(s, src));
		if (dst->kind != TY_TENSOR)
			return err(s, dn, "the destination of copy must be a tensor, not '%s'", tyname(s, dst));
		if (!sema_frag_dest(s, dn, "copy"))
			return e->type = ty_simple(TY_ERROR);
		if (src->scalar != dst->scalar)
			return err(s, e, "copy from a '%s' tensor to a '%s' tensor; convert the source with convert<%s>",
				sema_scalar_names[src->scalar], sema_scalar_names[dst->scalar], sema_scalar_names[dst->scalar]);
		if (pred) {
			Type *pt = pred->value->type;
			if (!ty_is_bool(pt) && !(pt->kind == TY_TENSOR && pt->scalar == SC_BOOL))
				return err(s, pred->value, "the predicate of copy must be bool or a bool tensor, not '%s'",
					tyname(s, pt));
		}
		return e->type = ty_simple(TY_VOID);
	}
	case B_GEMM: {
		Node *atom = t0->atom;
		if (t0->kind != TY_TILED_MMA && t0->kind != TY_THR_MMA && t0->kind != TY_ATOM)
			return err(s, v[0], "the first argument of gemm must be a tiled MMA, not '%s'", tyname(s, t0));
		if (t0->kind == TY_ATOM && !atom_kind_is(atom, "mma"))
			return err(s, v[0], "gemm needs an MMA atom, but '%s' is %s", atom->u.atom.id, atom_desc(atom->u.atom.kind));
		for (i = 1; i < 4; i++)
			if (v[i]->type->kind != TY_TENSOR)
				return err(s, v[i], "operand %c of gemm must be a tensor, not '%s'", "?ABC"[i],
					tyname(s, v[i]->type));
		if (t0->kind != TY_ATOM && v[3]->type->space != SPACE_REG)
			return err(s, v[3], "the accumulator of gemm must be a register fragment");
		if (!sema_frag_dest(s, v[3], "gemm"))
			return e->type = ty_simple(TY_ERROR);
		{
			const Value *ca = atom_field(atom, "c"), *aa = atom_field(atom, "a"), *ba = atom_field(atom, "b");
			if (ca && ca->kind == VAL_TYPE && v[3]->type->scalar != ca->scalar)
				return err(s, v[3], "the accumulator has element type '%s' but atom '%s' accumulates in '%s'",
					sema_scalar_names[v[3]->type->scalar], atom->u.atom.id, sema_scalar_names[ca->scalar]);
			if (aa && aa->kind == VAL_TYPE && t1->scalar != aa->scalar)
				return err(s, v[1], "operand A has element type '%s' but atom '%s' takes '%s'",
					sema_scalar_names[t1->scalar], atom->u.atom.id, sema_scalar_names[aa->scalar]);
			if (ba && ba->kind == VAL_TYPE && t2->scalar != ba->scalar)
				return err(s, v[2], "operand B has element type '%s' but atom '%s' takes '%s'",
					sema_scalar_names[t2->scalar], atom->u.atom.id, sema_scalar_names[ba->scalar]);
		}
		return e->type = ty_simple(TY_VOID);
	}
	case B_FILL:
		if (t0->kind != TY_TENSOR)
			return err(s, v[0], "fill needs a tensor, not '%s'", tyname(s, t0));
		if (t1->kind != TY_SCALAR)
			return err(s, v[1], "fill takes a scalar value, not '%s'", tyname(s, t1));
		if (!sema_assignable(s, t0, t1))
			return err(s, v[1], "cannot fill a '%s' tensor with '%s'", sema_scalar_names[t0->scalar], tyname(s, t1));
		if (!sema_frag_dest(s, v[0], "fill"))
			return e->type = ty_simple(TY_ERROR);
		return e->type = ty_simple(TY_VOID);
	case B_SUM:
		if (t0->kind != TY_TENSOR)
			return err(s, v[0], "sum needs a tensor, not '%s'", tyname(s, t0));
		return e->type = ty_scalar(t0->scalar);
	case B_TILED_COPY: {
		const Param *thr = named(e, "threads"), *val = named(e, "values"), *of = named(e, "of");
		if (t0->kind != TY_ATOM)
			return err(s, v[0], "tiled_copy needs a copy atom, not '%s'", tyname(s, t0));
		if (!atom_kind_is(t0->atom, "copy"))
			return err(s, v[0], "tiled_copy needs a copy atom, but '%s' is %s", t0->atom->u.atom.id,
				atom_desc(t0->atom->u.atom.kind));
		if (of) {
			if (thr || val)
				return err(s, e, "tiled_copy takes either of= or threads= and values=, not both");
			if (of->value->type->kind != TY_OPERAND)
				return err(s, of->value, "of= needs an MMA operand such as mma.A, not '%s'",
					tyname(s, of->value->type));
		} else {
			if (!thr || !val)
				return err(s, e, "tiled_copy needs threads= and values= layouts (or of=mma.A)");
			if (!is_layoutish(thr->value->type) || !thr->value->cval)
				return err(s, thr->value, "threads= must be a static layout");
			if (!is_layoutish(val->value->type) || !val->value->cval)
				return err(s, val->value, "values= must be a static layout");
			if (s->kern) {
				int64_t nt = val_size(thr->value->cval), bt = s->kern->block[0] * s->kern->block[1] * s->kern->block[2];
				if (nt > 0 && (nt > bt || bt % nt))
					return err(s, thr->value, "the tiled copy is laid out for %lld threads, which does not divide the workgroup of %lld",
						(long long)nt, (long long)bt);
			}
		}
		return e->type = ty_atomish(s, TY_TILED_COPY, t0->atom);
	}
	case B_TILED_MMA: {
		const Param *w = named(e, "waves");
		if (t0->kind != TY_ATOM)
			return err(s, v[0], "tiled_mma needs an MMA atom, not '%s'", tyname(s, t0));
		if (!atom_kind_is(t0->atom, "mma"))
			return err(s, v[0], "tiled_mma needs an MMA atom, but '%s' is %s", t0->atom->u.atom.id,
				atom_desc(t0->atom->u.atom.kind));
		if (w && (!ty_is_inttuple(w->value->type) || !w->value->cval))
			return err(s, w->value, "waves= must be a static shape such as (2, 2, 1)");
		if (s->kern) {
			Value *th = atom_field(t0->atom, "threads");
			int64_t nw = w ? val_size(w->value->cval) : 1, bt = s->kern->block[0] * s->kern->block[1] * s->kern->block[2];
			if (th && th->kind == VAL_INT && nw > 0 && nw <= 1024 && (nw * th->i > bt || bt % (nw * th->i)))
				return err(s, w ? w->value : e, "the tiled MMA needs %lld waves of %lld lanes (%lld threads), which does not divide the workgroup of %lld",
					(long long)nw, (long long)th->i, (long long)(nw * th->i), (long long)bt);
		}
		return e->type = ty_atomish(s, TY_TILED_MMA, t0->atom);
	}
	case B_BARRIER:
	case B_SETPRIO:
		if (b == B_SETPRIO) {
			Value *p = const_int(s, v[0], "the priority");
			if (!p)
				return e->type = ty_simple(TY_ERROR);
			if (p->i < 0 || p->i > 3)
				return err(s, v[0], "setprio takes a priority from 0 to 3, not %lld", (long long)p->i);
		}
		return e->type = ty_simple(TY_VOID);
	case B_LANE_ID:
	case B_WAVE_ID:
	case B_WAVE_SIZE:
		return e->type = ty_scalar(SC_I32);
	case B_FLOAT_BITS:
		/* the i32 whose bits are those of an f32 scalar (no conversion) */
		if (t0->kind != TY_SCALAR || t0->scalar != SC_F32)
			return err(s, v[0], "float_bits takes an f32 scalar, not '%s'", tyname(s, t0));
		return e->type = ty_scalar(SC_I32);
	case B_POPCOUNT:
	case B_CLZ:
	case B_CTZ: {
		/* bit counts of a 32- or 64-bit integer; clz(0) = ctz(0) = the width */
		ScalarKind k = t0->scalar;
		int w = sema_scalar_bits[k];
		if ((t0->kind != TY_SCALAR && t0->kind != TY_TENSOR) || !bits_int(k))
			return err(s, v[0], "'%s' counts the bits of an i32, u32, i64 or u64 scalar or fragment, not '%s'",
				builtins[b].name, tyname(s, t0));
		if (t0->kind == TY_TENSOR)
			return e->type = ty_tensor(s, SPACE_REG, k, t0->rank, false);
		if (v[0]->cval && v[0]->cval->kind == VAL_INT) {
			uint64_t u = (uint64_t)v[0]->cval->i & (w == 32 ? 0xffffffffu : ~(uint64_t)0);
			int r = b == B_POPCOUNT ? __builtin_popcountll(u)
			      : !u ? w : b == B_CLZ ? __builtin_clzll(u) - (64 - w) : __builtin_ctzll(u);
			e->cval = val_int(s, r);
		}
		return e->type = t0;
	}
	case B_BITCAST: {
		/* the bits of a scalar or fragment as another type of the same width */
		ScalarKind to, from = t1->scalar;
		if (t0->kind != TY_TYPE)
			return err(s, v[0], "the first argument of bitcast must be a type such as u32, not '%s'", tyname(s, t0));
		to = t0->scalar;
		if (!bits_type(to))
			return err(s, v[0], "bitcast gives i16, u16, f16, bf16, i32, u32, f32, i64 or u64, not '%s'",
				sema_scalar_names[to]);
		if ((t1->kind != TY_SCALAR && t1->kind != TY_TENSOR) || !bits_type(from))
			return err(s, v[1], "bitcast takes an i16, u16, f16, bf16, i32, u32, f32, i64 or u64 scalar or fragment%s, not '%s'",
				from == SC_INT || from == SC_FLOAT ? " (give a literal its type with convert<T>)" : "",
				tyname(s, t1));
		if (sema_scalar_bits[to] != sema_scalar_bits[from])
			return err(s, v[1], "bitcast from '%s' (%d bits) to '%s' (%d bits): the widths must be equal",
				sema_scalar_names[from], sema_scalar_bits[from], sema_scalar_names[to], sema_scalar_bits[to]);
		if (t1->kind == TY_TENSOR)
			return e->type = ty_tensor(s, SPACE_REG, to, t1->rank, false);
		return e->type = ty_scalar(to);
	}
	case B_ORDER_KEY:
		/* a float's order-preserving unsigned key of its width (codegen_math.c bits_key) */
		if ((t0->kind != TY_SCALAR && t0->kind != TY_TENSOR) ||
		    (t0->scalar != SC_F32 && t0->scalar != SC_F16 && t0->scalar != SC_BF16))
			return err(s, v[0], "order_key takes an f32, f16 or bf16 scalar or fragment, not '%s'", tyname(s, t0));
		if (t0->kind == TY_TENSOR)
			return e->type = ty_tensor(s, SPACE_REG, t0->scalar == SC_F32 ? SC_U32 : SC_U16, t0->rank, false);
		return e->type = ty_scalar(t0->scalar == SC_F32 ? SC_U32 : SC_U16);
	case B_ORDER_KEY_INV: {
		/* order_key_inv(k): a u32 key's f32; order_key_inv(T, k): T's, from a key of T's width */
		ScalarKind to = SC_F32;
		Type *kt = n == 2 ? t1 : t0;
		Node *kn = n == 2 ? v[1] : v[0];
		if (n == 2) {
			if (t0->kind != TY_TYPE || (t0->scalar != SC_F32 && t0->scalar != SC_F16 && t0->scalar != SC_BF16))
				return err(s, v[0], "the first of two arguments of order_key_inv must be f32, f16 or bf16, not '%s'",
					t0->kind == TY_TYPE ? sema_scalar_names[t0->scalar] : tyname(s, t0));
			to = t0->scalar;
		}
		if ((kt->kind != TY_SCALAR && kt->kind != TY_TENSOR) || kt->scalar != (to == SC_F32 ? SC_U32 : SC_U16))
			return err(s, kn, "order_key_inv to '%s' takes a %s key (scalar or fragment), not '%s'",
				sema_scalar_names[to], to == SC_F32 ? "u32" : "u16", tyname(s, kt));
		if (kt->kind == TY_TENSOR)
			return e->type = ty_tensor(s, SPACE_REG, to, kt->rank, false);
		return e->type = ty_scalar(to);
	}
	case B_SHFL_XOR: case B_SHFL: case B_SHFL_UP: case B_SHFL_DOWN: case B_READLANE: case B_READFIRSTLANE: {
		/* a value of another lane of the wave (codegen_lane.c): 32-bit scalars */
		static const char *const what[] = { "lane mask", "source lane", "lane distance", "lane distance", "lane" };
		int k = b == B_SHFL_XOR ? 0 : b == B_SHFL ? 1 : b == B_SHFL_UP ? 2 : b == B_SHFL_DOWN ? 3 : 4;
		if (t0->kind != TY_SCALAR || sema_scalar_bits[t0->scalar] != 32)
			return err(s, v[0], "%s moves a 32-bit scalar (i32, u32, f32), not '%s'", builtins[b].name,
				tyname(s, t0));
		if (b != B_READFIRSTLANE && (!ty_is_num(t1) || !(t1->scalar == SC_INT || t1->scalar == SC_I32)))
			return err(s, v[1], "the %s of %s must be an i32, not '%s'", what[k], builtins[b].name, tyname(s, t1));
		return e->type = t0;
	}
	case B_BALLOT:
		/* the mask of the wave's lanes where the condition holds */
		if (!ty_is_bool(t0))
			return err(s, v[0], "ballot takes a bool scalar, not '%s'", tyname(s, t0));
		return e->type = ty_scalar(SC_U64);
	case B_SELECT:
		if (!ty_is_bool(t0) && !(t0->kind == TY_TENSOR && t0->scalar == SC_BOOL))
			return err(s, v[0], "the condition of select must be bool, not '%s'", tyname(s, t0));
		if (t1->kind == TY_ATOM || t2->kind == TY_ATOM) {
			/* one of two atoms, chosen at compile time (e.g. by a bool parameter) */
			Type *other = t1->kind == TY_ATOM ? t2 : t1;
			if (other->kind != TY_ATOM)
				return err(s, e, "select between an atom and '%s'", tyname(s, other));
			if (!v[0]->cval)
				return err(s, v[0], "select between atoms needs a compile-time condition");
			Node *w = v[0]->cval->i ? v[1] : v[2];
			e->cval = w->cval;
			return e->type = w->type;
		}
		if (t1->kind == TY_SCALAR && t2->kind == TY_SCALAR && t0->kind != TY_TENSOR) {
			int u = unify_scalar(t1->scalar, t2->scalar);
			if (u < 0)
				return err(s, e, "select between mismatched types '%s' and '%s'", tyname(s, t1), tyname(s, t2));
			if (v[0]->cval)
				e->cval = v[0]->cval->i ? v[1]->cval : v[2]->cval;
			return e->type = ty_scalar((ScalarKind)u);
		}
		if (t1->kind != TY_TENSOR && t2->kind != TY_TENSOR && t0->kind == TY_TENSOR) {
			/* a tensor of conditions choosing between two scalars: a tensor of them */
			Type *r = elementwise_type(s, e, v + 1, 2, "select");
			if (r->kind == TY_TENSOR)
				r->rank = t0->rank;
			return e->type = r;
		}
		return e->type = elementwise_type(s, e, v + 1, 2, "select");
	case B_FMA:
	case B_EXP: case B_EXP2: case B_LOG: case B_LOG2: case B_SQRT: case B_RSQRT:
	case B_SIN: case B_COS: case B_TANH: case B_ABS: case B_SQUARE:
	case B_FLOOR: case B_CEIL: case B_FAST_EXP: case B_FAST_EXP2: case B_FAST_LOG2: case B_FAST_RCP:
	case B_FAST_SIN: case B_FAST_COS: case B_ERF:
		for (i = 0; i < n; i++) {
			Type *ti = v[i]->type;
			bool ok = ti->kind == TY_TENSOR ? sc_is_float(ti->scalar) || b == B_ABS || b == B_SQUARE
							: ty_is_num(ti) && (sc_is_float(ti->scalar) || b == B_ABS || b == B_SQUARE
									   || ti->scalar == SC_INT);
			if (!ok)
				return err(s, v[i], "'%s' needs floating-point operands, not '%s'", builtins[b].name,
					tyname(s, ti));
		}
		if (b == B_FMA && (t0->kind == TY_TENSOR || v[1]->type->kind == TY_TENSOR || v[2]->type->kind == TY_TENSOR))
			return e->type = elementwise_type(s, e, v, 3, "fma");
		if (t0->kind == TY_TENSOR)
			return e->type = ty_tensor(s, SPACE_REG, t0->scalar, t0->rank, false);
		if (b == B_FMA) {
			Type *r = elementwise_type(s, e, v, 3, "fma"); /* scalars: their unified type */
			if (r->kind == TY_TENSOR)
				return e->type = ty_scalar(r->scalar);
			return e->type = r;
		}
		if (v[0]->cval && n == 1) {
			double x = v[0]->cval->kind == VAL_INT ? (double)v[0]->cval->i : v[0]->cval->f, r = x;
			switch (b) {
			case B_EXP: r = exp(x); break;
			case B_EXP2: r = exp2(x); break;
			case B_LOG: r = log(x); break;
			case B_LOG2: r = log2(x); break;
			case B_SQRT: r = sqrt(x); break;
			case B_RSQRT: r = 1.0 / sqrt(x); break;
			case B_SIN: r = sin(x); break;
			case B_COS: r = cos(x); break;
			case B_TANH: r = tanh(x); break;
			case B_ABS: r = fabs(x); break;
			case B_SQUARE: r = x * x; break;
			case B_FLOOR: r = floor(x); break;
			case B_CEIL: r = ceil(x); break;
			case B_FAST_EXP: r = exp(x); break;
			case B_FAST_EXP2: r = exp2(x); break;
			case B_FAST_LOG2: r = log2(x); break;
			case B_FAST_RCP: r = 1.0 / x; break;
			case B_FAST_SIN: r = sin(x); break;
			case B_FAST_COS: r = cos(x); break;
			case B_ERF: r = erf(x); break;
			}
			if (v[0]->cval->kind == VAL_INT && (b == B_ABS || b == B_SQUARE)) {
				int64_t xi = v[0]->cval->i, ri;
				if (b == B_ABS ? xi == INT64_MIN : __builtin_mul_overflow(xi, xi, &ri))
					return err(s, e, "integer overflow in a compile-time expression");
				e->cval = val_int(s, b == B_ABS ? (xi < 0 ? -xi : xi) : xi * xi);
				return e->type = t0;
			}
			e->cval = val_new(s, VAL_FLOAT);
			e->cval->f = r;
			return e->type = t0->scalar == SC_INT ? ty_scalar(SC_FLOAT) : t0;
		}
		return e->type = t0->scalar == SC_INT ? ty_scalar(SC_FLOAT) : t0;
	}
	return err(s, e, "'%s' cannot be used here", builtins[b].name);
}

/*
 * Folds a layout-algebra call whose arguments are all static with the layout
 * library; a violated precondition (e.g. composition's divisibility) is a
 * located error. Calls with run-time leaves stay symbolic (cval NULL).
 */
static void
fold_algebra(S *s, Node *e, int b)
{
	NodeList *a = &e->u.call.args;
	const lay_val *x[3] = {0}, *r = NULL;
	lay_ctx *c = &s->lc;
	int i;

	if (e->type->kind == TY_ERROR || a->n > 3 || !c->arena)
		return;
	for (i = 0; i < a->n; i++)
		if (!a->v[i]->cval || !(x[i] = val_to_lay(s, a->v[i]->cval)))
			return;
	switch (b) {
	case B_COMPOSITION: r = lay_composition(c, x[0], x[1]); break;
	case B_COMPLEMENT: r = lay_complement(c, x[0], x[1]); break;
	case B_COALESCE: r = lay_coalesce(c, x[0], x[1]); break;
	case B_LEFT_INVERSE: r = lay_left_inverse(c, x[0]); break;
	case B_RIGHT_INVERSE: r = lay_right_inverse(c, x[0]); break;
#define X(B, name) case B: r = lay_##name(c, x[0], x[1]); break;
	X(B_LOGICAL_DIVIDE, logical_divide) X(B_ZIPPED_DIVIDE, zipped_divide) X(B_TILED_DIVIDE, tiled_divide)
	X(B_FLAT_DIVIDE, flat_divide) X(B_LOGICAL_PRODUCT, logical_product) X(B_ZIPPED_PRODUCT, zipped_product)
	X(B_TILED_PRODUCT, tiled_product) X(B_FLAT_PRODUCT, flat_product) X(B_BLOCKED_PRODUCT, blocked_product)
	X(B_RAKED_PRODUCT, raked_product)
#undef X
	case B_MAKE_LAYOUT: r = a->n == 1 ? lay_make_layout(c, x[0]) : NULL; break;
	case B_COSIZE: r = lay_cosize(c, x[0]); break;
	case B_CRD2IDX: r = lay_crd2idx(c, x[0], x[1], x[2]); break;
	default: return;
	}
	if (c->failed) {
		err(s, e, "%s", c->err);
		lay_clear_error(c);
		return;
	}
	if (!r)
		return;
	e->cval = val_from_lay(s, r);
	if (e->cval && e->cval->kind == VAL_INT)
		e->type = ty_scalar(SC_INT);
	if (e->cval && e->type->kind == TY_LAYOUT && (r->kind == LAY_LAYOUT || r->kind == LAY_COMPOSED)) {
		Type *t = ty_new(s, TY_LAYOUT);
		t->rank = lay_rank(r->kind == LAY_COMPOSED ? r->u.c.b : r);
		t->swizzled = r->kind == LAY_COMPOSED;
		e->type = t;
	} else if (e->cval && e->type->kind != TY_LAYOUT && e->cval->kind != VAL_INT) {
		e->cval = NULL; /* a tensor result: the type carries it */
	}
}

static Type *
check_builtin(S *s, Node *e, int b)
{
	Type *t = check_builtin_type(s, e, b);

	e->type = t; /* an error reported on an argument leaves e->type unset */

	if (t->kind != TY_ERROR && (b == B_MAKE_LAYOUT || b == B_COSIZE || b == B_CRD2IDX || (b >= B_COMPOSITION && b <= B_RAKED_PRODUCT)))
		fold_algebra(s, e, b);
	/* compile-time-only builtins (builtins.h FOLD) that did not fold would fail in
	 * code generation: refuse them here, where the arguments are */
	if (e->type && e->type->kind != TY_ERROR && builtins[b].lower == LOWER_FOLD && !e->cval &&
	    /* coalesce(T) is a view; rank(T), depth(T) come from a view's layout (codegen_view.c) */
	    !(e->type->kind == TY_TENSOR && b == B_COALESCE) &&
	    !((b == B_RANK || b == B_DEPTH) && e->u.call.args.n == 1 && e->u.call.args.v[0]->type &&
	      e->u.call.args.v[0]->type->kind == TY_TENSOR))
		return err(s, e, "'%s' needs compile-time arguments: its result is computed by the compiler, "
		           "and these arguments are known only when the kernel runs", builtins[b].name);
	return e->type;
}

/* Methods: obj.method(args) on tiled copies / MMAs and their slices. */
static Type *
check_method(S *s, Node *e, Node *mem)
{
	Node *base = mem->u.member.base;
	const char *m = mem->u.member.id;
	Type *bt = base->type, *t;
	NodeList *a = &e->u.call.args;
	int i;

	for (i = 0; i < a->n; i++)
		if (sema_expr(s, a->v[i])->kind == TY_ERROR)
			return e->type = ty_simple(TY_ERROR);
	if (e->u.call.named.n)
		return err(s, e, "method '%s' takes no named arguments", m);
#define ARGS(lo, hi) \
	if (a->n < (lo) || a->n > (hi)) \
		return err(s, e, "'%s' takes %d%s%s argument%s, %d given", m, lo, (hi) > (lo) ? " or " : "", \
			(hi) > (lo) ? #hi : "", (hi) == 1 ? "" : "s", a->n)
	int mid = M_NONE;
	for (i = 0; i < M_NMETHODS; i++)
		if (!strcmp(m, methods[i].name))
			mid = i;
	mem->u.member.method = mid;
	if ((bt->kind == TY_TILED_COPY || bt->kind == TY_TILED_MMA) && mid == M_SLICE) {
		ARGS(1, 1);
		if (!ty_is_int(a->v[0]->type))
			return err(s, a->v[0], "slice needs a thread index, not '%s'", tyname(s, a->v[0]->type));
		return e->type = ty_atomish(s, bt->kind == TY_TILED_COPY ? TY_THR_COPY : TY_THR_MMA, bt->atom);
	}
	if (bt->kind == TY_THR_COPY) {
		if (mid == M_PARTITION_S || mid == M_PARTITION_D || mid == M_RETILE_S || mid == M_RETILE_D) {
			ARGS(1, 1);
			t = a->v[0]->type;
			if (t->kind != TY_TENSOR)
				return err(s, a->v[0], "'%s' needs a tensor, not '%s'", m, tyname(s, t));
			if ((mid == M_RETILE_S || mid == M_RETILE_D) && t->space != SPACE_REG)
				return err(s, a->v[0], "'%s' retiles a register fragment, not a %s tensor", m,
					t->space == SPACE_LDS ? "lds" : "global");
			return e->type = ty_tensor(s, t->space, t->scalar, -1, t->swizzled);
		}
	}
	if (bt->kind == TY_THR_MMA) {
		if (mid == M_PARTITION_A || mid == M_PARTITION_B || mid == M_PARTITION_C) {
			ARGS(1, 1);
			t = a->v[0]->type;
			if (t->kind != TY_TENSOR)
				return err(s, a->v[0], "'%s' needs a tensor, not '%s'", m, tyname(s, t));
			return e->type = ty_tensor(s, t->space, t->scalar, -1, t->swizzled);
		}
		if (mid == M_FRAGMENT_A || mid == M_FRAGMENT_B || mid == M_FRAGMENT_C) {
			const char fld[2] = {(char)(methods[mid].operand | 0x20), 0};
			const Value *dflt = atom_field(bt->atom, fld);
			ScalarKind el = dflt && dflt->kind == VAL_TYPE ? dflt->scalar : SC_F32;
			ARGS(1, 2);
			t = a->v[0]->type;
			if (t->kind != TY_TENSOR)
				return err(s, a->v[0], "'%s' needs the tensor it partitions, not '%s'", m, tyname(s, t));
			if (a->n == 2) {
				if (a->v[1]->type->kind != TY_TYPE)
					return err(s, a->v[1], "the element type of '%s' must be a type, not '%s'", m,
						tyname(s, a->v[1]->type));
				el = a->v[1]->type->scalar;
			}
			return e->type = ty_tensor(s, SPACE_REG, el, -1, false);
		}
	}
	return err(s, mem, "'%s' has no method '%s'", tyname(s, bt), m);
#undef ARGS
}

static Type *
check_call(S *s, Node *e)
{
	Node *c = e->u.call.callee;
	Type *t;

	if (c->kind == E_MEMBER) {
		t = sema_expr(s, c->u.member.base);
		if (t->kind == TY_ERROR)
			return e->type = t;
		if (t->kind != TY_MODULE) {
			c->type = ty_simple(TY_FUNC);
			return check_method(s, e, c);
		}
		{   /* module.fn(args): a function of an imported module */
			Node *b = c->u.member.base;
			SemaModule *m = b->kind == E_NAME && b->u.name.sym ? b->u.name.sym->module : NULL;
			Symbol *fs = m ? sema_module_member(s, m, c->u.member.id) : NULL;
			if (fs && fs->kind == SYM_FN) {
				c->type = ty_simple(TY_FUNC);
				return sema_fn_call(s, e, fs);
			}
		}
	}
	if (c->kind == E_NAME) {
		Symbol *sym = sym_lookup(s, c->u.name.id);
		if (sym && sym->kind == SYM_BUILTIN && sym->type->kind == TY_FUNC) {
			sym->used = true;
			c->u.name.sym = sym;
			c->type = sym->type;
			return check_builtin(s, e, sym->type->builtin);
		}
		if (sym && sym->kind == SYM_FN) {
			c->u.name.sym = sym;
			c->type = ty_simple(TY_FUNC);
			return sema_fn_call(s, e, sym);
		}
	}
	t = sema_expr(s, c);
	if (t->kind == TY_ERROR)
		return e->type = t;
	return err(s, c, "'%s' is not a function", ast_expr_str(s->a, c));
}

static Type *
check_index(S *s, Node *e)
{
	Type *t = sema_expr(s, e->u.call.callee);
	NodeList *a = &e->u.call.args;
	int i, h = 0;

	if (t->kind == TY_ERROR)
		return e->type = t;
	for (i = 0; i < a->n; i++) {
		Node *x = a->v[i];
		if (x->kind == E_HOLE) {
			x->type = ty_simple(TY_VOID);
			h++;
			continue;
		}
		if (x->kind == E_TUPLE) {
			h += holes(x);
			if (!check_coord(s, x))
				return e->type = ty_simple(TY_ERROR);
			continue;
		}
		if (sema_expr(s, x)->kind == TY_ERROR)
			return e->type = ty_simple(TY_ERROR);
		if (!ty_is_int(x->type))
			return err(s, x, "a tensor index must be an integer or '_', not '%s'", tyname(s, x->type));
	}
	if (t->kind == TY_TUPLE) {
		if (a->n != 1 || !a->v[0]->cval)
			return err(s, e, "a tuple is indexed by one compile-time integer");
		if (a->v[0]->cval->i < 0 || a->v[0]->cval->i >= t->nelems)
			return err(s, a->v[0], "index %lld is out of range for a tuple of %d elements",
				(long long)a->v[0]->cval->i, t->nelems);
		if (e->u.call.callee->cval && e->u.call.callee->cval->kind == VAL_TUPLE)
			e->cval = e->u.call.callee->cval->elems[a->v[0]->cval->i];
		return e->type = t->elems[a->v[0]->cval->i];
	}
	if (t->kind != TY_TENSOR)
		return err(s, e->u.call.callee, "cannot index a value of type '%s'", tyname(s, t));
	if (t->rank >= 0 && a->n != t->rank && a->n != 1)
		return err(s, e, "a tensor of rank %d is indexed with %d coordinate%s", t->rank, a->n, a->n == 1 ? "" : "s");
	if (h == 0 && t->space == SPACE_REG && !sema_frag_index(s, e, t))
		return e->type = ty_simple(TY_ERROR);
	if (h == 0 && t->space == SPACE_COORD && t->scalar == SC_I64) {
		/* an element of rank-2 coordinates: the tuple (m, n) */
		Type *c = ty_new(s, TY_TUPLE);
		c->nelems = 2;
		c->elems = ARENA_NEWN(s->a, Type *, 2);
		c->elems[0] = c->elems[1] = ty_scalar(SC_I32);
		return e->type = c;
	}
	if (h == 0)
		return e->type = ty_scalar(t->scalar);
	return e->type = ty_tensor(s, t->space, t->scalar, h, t->swizzled);
}

static Type *
check_member(S *s, Node *e)
{
	Node *b = e->u.member.base;
	const char *id = e->u.member.id;
	Type *t;

	if (b->kind == E_NAME && (!strcmp(b->u.name.id, "thread") || !strcmp(b->u.name.id, "block"))) {
		Symbol *sym = sym_lookup(s, b->u.name.id);
		if (sym && sym->kind == SYM_BUILTIN) {
			b->u.name.sym = sym;
			b->type = sym->type;
			if (strcmp(id, "x") && strcmp(id, "y") && strcmp(id, "z"))
				return err(s, e, "'%s' has members x, y and z, not '%s'", b->u.name.id, id);
			return e->type = ty_scalar(SC_I32);
		}
	}
	if (b->kind == E_NAME && !strcmp(b->u.name.id, "device")) {
		Symbol *sym = sym_lookup(s, b->u.name.id);
		if (sym && sym->kind == SYM_BUILTIN) {
			b->u.name.sym = sym;
			b->type = sym->type;
			if (strcmp(id, "cus"))
				return err(s, e, "'device' has one member, cus (its compute units), not '%s'", id);
			if (!s->in_grid)
				return err(s, e, "device.cus is known only when the kernel is launched: it may "
				           "appear in grid(...) formulas only");
			return e->type = ty_scalar(SC_I32);
		}
	}
	t = sema_expr(s, b);
	if (t->kind == TY_ERROR)
		return e->type = t;
	if (t->kind == TY_MODULE) {
		Symbol *ms = b->kind == E_NAME ? b->u.name.sym : NULL;
		SemaModule *m = ms ? ms->module : NULL;
		Symbol *sym = m ? sema_module_member(s, m, id) : NULL;
		if (sym) {
			sym->used = true;
			if (sym->kind == SYM_KERNEL)
				return err(s, e, "kernel '%s' of module '%s' cannot be used as a value", id, m->name);
			if (sym->kind == SYM_FN)
				return err(s, e, "function '%s.%s' must be called", m->name, id);
			if (sym->kind == SYM_ATOM && s->kern && s->kern->targets && sema_target_bit(m->name)
			    && !(s->kern->targets & sema_target_bit(m->name)))
				return err(s, e, "atom '%s.%s' is for %s, but kernel '%s' is only for other targets",
					m->name, id, m->name, s->kern->decl->u.kernel.id);
			e->cval = sym->val;
			return e->type = sym->type;
		}
		diag_error(s->d, e->u.member.id_span, "module '%s' has no member named '%s'", m ? m->name : "?", id);
		return e->type = ty_simple(TY_ERROR);
	}
	if (t->kind == TY_TILED_MMA && (!strcmp(id, "A") || !strcmp(id, "B") || !strcmp(id, "C"))) {
		Type *r = ty_atomish(s, TY_OPERAND, t->atom);
		r->rank = id[0] - 'A';
		return e->type = r;
	}
	if (t->kind == TY_ATOM) {
		Value *v = atom_field(t->atom, id);
		if (v) {
			e->cval = v;
			switch (v->kind) {
			case VAL_INT: return e->type = ty_scalar(SC_INT);
			case VAL_TYPE: e->type = ty_new(s, TY_TYPE); e->type->scalar = v->scalar; return e->type;
			case VAL_STR: return e->type = ty_simple(TY_STR);
			case VAL_LAYOUT: e->type = ty_new(s, TY_LAYOUT); return e->type;
			default: return e->type = type_of_value(s, v);
			}
		}
		return err(s, e, "atom '%s' has no field '%s'", t->atom->u.atom.id, id);
	}
	return err(s, e, "'%s' has no member '%s'", tyname(s, t), id);
}

Type *
sema_type_expr(S *s, TypeExpr *te)
{
	Symbol *sym = sym_lookup(s, te->name);
	ScalarKind el;
	Type *lt;

	if (sym && sym->kind == SYM_CTPARAM && sym->type->kind == TY_ERROR)
		return ty_simple(TY_ERROR);   /* a parameter whose value was refused (reported there) */
	if (!sym || sym->kind != SYM_TYPE) {
		diag_error(s->d, te->name_span, "unknown type '%s'", te->name);
		if (sym)
			note_decl(s, sym);
		return ty_simple(TY_ERROR);
	}
	el = sym->type->scalar;
	if (!te->tensor)
		return ty_scalar(el);
	if (el == SC_INT || el == SC_BOOL) {
		diag_error(s->d, te->name_span, "tensor elements cannot be '%s'; use a sized type such as i32",
			sema_scalar_names[el]);
		return ty_simple(TY_ERROR);
	}
	lt = sema_expr(s, te->layout);
	if (lt->kind == TY_ERROR)
		return lt;
	if (lt->kind != TY_LAYOUT && !ty_is_inttuple(lt)) {
		diag_error(s->d, te->layout->span, "a tensor type needs a layout, not '%s'", tyname(s, lt));
		return ty_simple(TY_ERROR);
	}
	{
		Type *t = ty_tensor(s, te->space, el, lt->kind == TY_LAYOUT ? lt->rank : rank_of_shape(lt), lt->swizzled);
		t->layout = te->layout;
		return t;
	}
}

static Type *
check_name(S *s, Node *e)
{
	Symbol *sym = sym_lookup(s, e->u.name.id);

	if (!sym)
		return err(s, e, "use of undeclared name '%s'", e->u.name.id);
	sym->used = true;
	e->u.name.sym = sym;
	if (sym->kind == SYM_KERNEL)
		return err(s, e, "kernel '%s' cannot be used as a value", sym->name);
	if (sym->kind == SYM_BUILTIN && sym->type->kind == TY_FUNC)
		return err(s, e, "builtin '%s' must be called", sym->name);
	if (sym->kind == SYM_FN)
		return err(s, e, "function '%s' must be called", sym->name);
	if (sym->kind == SYM_BUILTIN)
		return err(s, e, "'%s' has members x, y and z; write %s.x", sym->name, sym->name);
	e->cval = sym->val;
	return e->type = sym->type;
}

Type *
sema_expr(S *s, Node *e)
{
	Type *t;

	if (e->type)
		return e->type;
	if (s->too_deep)
		return e->type = ty_simple(TY_ERROR);
	if (++s->depth > SEMA_MAX_DEPTH) {
		s->too_deep = true;
		s->depth--;
		return err(s, e, "expression is nested too deeply (the limit is %d levels)", SEMA_MAX_DEPTH);
	}
	switch (e->kind) {
	case E_INT:
		e->cval = val_int(s, e->u.ival);
		t = e->type = ty_scalar(SC_INT);
		break;
	case E_FLOAT:
		e->cval = val_new(s, VAL_FLOAT);
		e->cval->f = e->u.fval.v;
		t = e->type = ty_scalar(SC_FLOAT);
		break;
	case E_BOOL:
		e->cval = val_new(s, VAL_BOOL);
		e->cval->i = e->u.ival;
		t = e->type = ty_scalar(SC_BOOL);
		break;
	case E_STR:
		e->cval = val_new(s, VAL_STR);
		e->cval->s = e->u.str.s;
		e->cval->len = e->u.str.len;
		t = e->type = ty_simple(TY_STR);
		break;
	case E_NAME: t = check_name(s, e); break;
	case E_HOLE: t = err(s, e, "'_' can only be used in a tensor coordinate or a binding"); break;
	case E_TUPLE: t = check_tuple(s, e); break;
	case E_TILER: {
		int i;
		bool all = true;
		t = ty_new(s, TY_TILER);
		t->rank = e->u.list.n;
		for (i = 0; i < e->u.list.n; i++) {
			Type *lt = sema_expr(s, e->u.list.v[i]);
			if (lt->kind == TY_ERROR) {
				t = lt;
				break;
			}
			if (!is_layoutish(lt)) {
				t = err(s, e->u.list.v[i], "a tiler holds layouts or shapes, not '%s'", tyname(s, lt));
				break;
			}
			all &= e->u.list.v[i]->cval != NULL;
		}
		if (all && t->kind == TY_TILER) {
			e->cval = val_new(s, VAL_TUPLE);
			e->cval->nelems = e->u.list.n;
			e->cval->elems = ARENA_NEWN(s->a, Value *, e->u.list.n ? e->u.list.n : 1);
			for (i = 0; i < e->u.list.n; i++)
				e->cval->elems[i] = e->u.list.v[i]->cval;
		}
		e->type = t;
		break;
	}
	case E_UNARY: t = check_unary(s, e); break;
	case E_BINARY: t = check_binary(s, e); break;
	case E_LAYOUT: t = check_layout(s, e); break;
	case E_COMPOSE: t = check_compose(s, e); break;
	case E_CALL: t = check_call(s, e); break;
	case E_INDEX: t = check_index(s, e); break;
	case E_MEMBER: t = check_member(s, e); break;
	case E_CONVERT: {
		Type *to = sema_type_expr(s, e->u.convert.to), *x = sema_expr(s, e->u.convert.x);
		if (to->kind == TY_ERROR || x->kind == TY_ERROR)
			t = e->type = ty_simple(TY_ERROR);
		else if (e->u.convert.to->tensor)
			t = err(s, e, "convert<T> takes an element type, not a tensor type");
		else if (x->kind == TY_TENSOR)
			t = e->type = ty_tensor(s, SPACE_REG, to->scalar, x->rank, false);
		else if (x->kind == TY_SCALAR && x->scalar != SC_BOOL) {
			t = e->type = to;
			if (e->u.convert.x->cval && sc_is_int(to->scalar) && e->u.convert.x->cval->kind == VAL_INT)
				e->cval = e->u.convert.x->cval;
		} else
			t = err(s, e, "cannot convert '%s' to '%s'", tyname(s, x), tyname(s, to));
		break;
	}
	default:
		t = err(s, e, "not an expression");
	}
	s->depth--;
	if (!e->type)
		e->type = t;
	sema_frag_layout(s, e);
	return e->type;
}

Value *
sema_const(S *s, Node *e, const char *what)
{
	Type *t = sema_expr(s, e);

	if (t->kind == TY_ERROR)
		return NULL;
	if (!e->cval) {
		diag_error(s->d, e->span, "%s must be known at compile time", what);
		return NULL;
	}
	return e->cval;
}

/* ---- bridge to the layout library (compiler/layout/lay.h) ---- */

const lay_val *
val_to_lay(S *s, Value *v)
{
	const lay_val *r = NULL;
	int i;

	if (!v)
		return NULL;
	if (v->lay)
		return v->lay;
	switch (v->kind) {
	case VAL_INT: r = lay_int(&s->lc, v->i); break;
	case VAL_TUPLE: {
		const lay_val **e = lay_alloc(s->lc.arena, sizeof *e * (size_t)(v->nelems ? v->nelems : 1));
		if (!e)
			return NULL;
		for (i = 0; i < v->nelems; i++)
			if (!(e[i] = val_to_lay(s, v->elems[i])))
				return NULL;
		r = lay_tuple(&s->lc, v->nelems, e);
		break;
	}
	case VAL_LAYOUT:
		r = lay_layout(&s->lc, val_to_lay(s, v->shape), val_to_lay(s, v->stride));
		if (r && v->swz.on)
			r = lay_composed(&s->lc, lay_swizzle(&s->lc, v->swz.b, v->swz.m, v->swz.s), lay_e_const(&s->lc, 0), r);
		break;
	case VAL_SWIZZLE: r = lay_swizzle(&s->lc, v->swz.b, v->swz.m, v->swz.s); break;
	default: return NULL;
	}
	if (s->lc.failed) {
		lay_clear_error(&s->lc);
		return NULL;
	}
	v->lay = r;
	return r;
}

/* A Value for a static library value; NULL when it has run-time leaves or no Value form. */
Value *
val_from_lay(S *s, const lay_val *l)
{
	Value *v;
	int i;

	if (!l)
		return NULL;
	switch (l->kind) {
	case LAY_INT:
		if (!lay_e_known(l->u.i))
			return NULL;
		v = val_int(s, l->u.i->value);
		break;
	case LAY_TUPLE:
		v = val_new(s, VAL_TUPLE);
		v->nelems = l->u.t.n;
		v->elems = ARENA_NEWN(s->a, Value *, v->nelems ? v->nelems : 1);
		for (i = 0; i < v->nelems; i++)
			if (!(v->elems[i] = val_from_lay(s, l->u.t.e[i])))
				return NULL;
		break;
	case LAY_LAYOUT:
		v = val_new(s, VAL_LAYOUT);
		if (!(v->shape = val_from_lay(s, l->u.l.shape)) || !(v->stride = val_from_lay(s, l->u.l.stride)))
			return NULL;
		break;
	case LAY_SWIZZLE:
		v = val_new(s, VAL_SWIZZLE);
		v->swz.b = l->u.sw.b;
		v->swz.m = l->u.sw.m;
		v->swz.s = l->u.sw.s;
		v->swz.on = true;
		break;
	case LAY_COMPOSED:
		if (!lay_e_is_const(l->u.c.off, 0) || l->u.c.a->kind != LAY_SWIZZLE)
			return NULL;
		if (!(v = val_from_lay(s, l->u.c.b)) || v->kind != VAL_LAYOUT)
			return NULL;
		v->swz.b = l->u.c.a->u.sw.b;
		v->swz.m = l->u.c.a->u.sw.m;
		v->swz.s = l->u.c.a->u.sw.s;
		v->swz.on = true;
		break;
	default:
		return NULL;
	}
	v->lay = l;
	return v;
}
