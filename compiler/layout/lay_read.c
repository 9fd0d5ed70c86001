/*
 * lay_read.c — a recursive-descent reader and evaluator for layout-algebra
 * expressions (the syntax is in lay.h above lay_reader_new).  Used by
 * `flyc eval` and `flyc show`; the .fly front end can use the same
 * operation table (lay_read_call) for compile-time evaluation.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/lay.h"
#include "layout/lay_int.h"

typedef struct binding {
	const char *name;
	const lay_val *v;
	struct binding *next;
} binding;

struct lay_reader {
	lay_ctx *c;
	binding *names;
	int nvars;
	int depth;           /* nesting depth, bounded */
	/* current line */
	const char *src, *p;
	const char *tok;     /* start of the current token */
};

lay_reader *
lay_reader_new(lay_ctx *c)
{
	lay_reader *r = lay_alloc(c->arena, sizeof *r);

	if (r)
		r->c = c;
	return r;
}

void
lay_reader_bind(lay_reader *r, const char *name, const lay_val *v)
{
	binding *b = lay_alloc(r->c->arena, sizeof *b);

	if (!b || !v)
		return;
	b->name = lay_strdup(r->c->arena, name);
	b->v = v;
	b->next = r->names;
	r->names = b;
}

void
lay_reader_var(lay_reader *r, const char *name, int id, int64_t div)
{
	lay_reader_bind(r, name, lay_int_e(r->c, lay_e_var(r->c, name, id, div)));
	if (id >= r->nvars)
		r->nvars = id + 1;
}

static const lay_val *
lookup(lay_reader *r, const char *name)
{
	binding *b;

	for (b = r->names; b; b = b->next)
		if (!strcmp(b->name, name))
			return b->v;
	return NULL;
}

/* ------------------------------------------------------------ lexing --- */

static void
skip_ws(lay_reader *r)
{
	while (*r->p && isspace((unsigned char)*r->p))
		r->p++;
	r->tok = r->p;
}

static void *
err(lay_reader *r, const char *fmt, const char *arg)
{
	char msg[200];

	snprintf(msg, sizeof msg, fmt, arg);
	return lay_fail(r->c, "col %d: %s", (int)(r->tok - r->src) + 1, msg);
}

static int
peekc(lay_reader *r)
{
	skip_ws(r);
	return (unsigned char)*r->p;
}

static int
accept(lay_reader *r, int ch)
{
	if (peekc(r) == ch) {
		r->p++;
		return 1;
	}
	return 0;
}

static int
expect(lay_reader *r, int ch)
{
	char s[2] = { (char)ch, 0 };

	if (accept(r, ch))
		return 1;
	err(r, "expected '%s'", s);
	return 0;
}

/* reads a NAME at p (without consuming) into buf; returns its length */
static size_t
peek_name(lay_reader *r, char *buf, size_t cap)
{
	const char *q;
	size_t n;

	skip_ws(r);
	q = r->p;
	if (!(isalpha((unsigned char)*q) || *q == '_'))
		return 0;
	while (isalnum((unsigned char)*q) || *q == '_' || *q == '.')
		q++;
	n = (size_t)(q - r->p);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, r->p, n);
	buf[n] = 0;
	return (size_t)(q - r->p);
}

/* ------------------------------------------------------------ parsing --- */

static const lay_val *parse_expr(lay_reader *r);

/* comma-separated expressions up to `close`; *trailing set when "x," */
static int
parse_list(lay_reader *r, int close, vec *out, int *trailing)
{
	*trailing = 0;
	if (accept(r, close))
		return 1;
	for (;;) {
		const lay_val *v = parse_expr(r);
		if (!v)
			return 0;
		vec_push(r->c, out, v);
		if (accept(r, ',')) {
			if (accept(r, close)) {
				*trailing = 1;
				return 1;
			}
			continue;
		}
		return expect(r, close);
	}
}

static int
want_int(lay_ctx *c, const lay_val *v, const char *op, int64_t *out)
{
	if (!v)
		return 0;
	if (v->kind != LAY_INT || !lay_e_known(v->u.i)) {
		lay_fail(c, "%s: expects a compile-time integer, got %s", op, lay_to_string(c, v));
		return 0;
	}
	*out = v->u.i->value;
	return 1;
}

/* get(x, i, j, ...) path */
static const lay_val *
get_path(lay_ctx *c, const lay_val *x, int n, const lay_val *const *a, const char *op)
{
	int i;
	int64_t k;

	for (i = 0; i < n; i++) {
		if (!want_int(c, a[i], op, &k))
			return NULL;
		x = lay_get(c, x, (int)k);
	}
	return x;
}

static int
is_marker(const lay_val *v, const char *name)
{
	return v && v->kind == LAY_INT && v->u.i->kind == LAY_E_VAR && !strcmp(v->u.i->name, name);
}

/* Operation table: name, minimum and maximum argument counts. */
#define LAY_READ_OPS(X) \
	X(size, 1, 8) X(cosize, 1, 8) X(rank, 1, 8) X(depth, 1, 8) X(shape, 1, 8) X(stride, 1, 8) \
	X(get, 2, 8) X(take, 3, 3) X(select, 2, 16) X(group, 3, 3) X(append, 1, 2) X(prepend, 1, 2) \
	X(flatten, 1, 1) X(product, 1, 1) X(product_each, 1, 1) X(ceil_div, 2, 2) X(shape_div, 2, 2) \
	X(min, 2, 2) X(max, 2, 2) X(zip, 1, 1) X(slice, 2, 2) X(dice, 2, 2) \
	X(crd2idx, 2, 3) X(idx2crd, 2, 3) X(coalesce, 1, 2) X(filter, 1, 2) X(filter_zeros, 1, 1) \
	X(composition, 2, 16) X(complement, 1, 2) X(right_inverse, 1, 1) X(left_inverse, 1, 1) \
	X(logical_divide, 2, 2) X(zipped_divide, 2, 2) X(tiled_divide, 2, 2) X(flat_divide, 2, 2) \
	X(logical_product, 2, 2) X(zipped_product, 2, 2) X(tiled_product, 2, 2) X(flat_product, 2, 2) \
	X(blocked_product, 2, 2) X(raked_product, 2, 2) \
	X(max_common_vector, 2, 2) X(max_common_layout, 2, 2) \
	X(upcast, 2, 2) X(downcast, 2, 2) X(recast, 3, 3) X(make_layout_tv, 2, 2) \
	X(local_tile, 3, 4) X(local_partition, 3, 4) X(tile_to_shape, 2, 3) \
	X(make_layout, 1, 16) X(make_ordered_layout, 2, 2) X(swizzle, 3, 3) X(nullspace, 1, 1) \
	X(compact_col_major, 1, 2) X(compact_row_major, 1, 2) X(inner_product, 2, 2) X(max_alignment, 1, 1) \
	X(with_shape, 2, 2) X(gcd, 2, 2)

const char *const lay_read_ops[] = {
#define X(n, lo, hi) #n,
	LAY_READ_OPS(X)
#undef X
	NULL
};

static int op_arity(const char *name, int *lo, int *hi);

const lay_val *
lay_call(lay_ctx *c, const char *name, int n, const lay_val *const *a)
{
	int64_t x, y, z;
	int i, lo, hi;

	for (i = 0; i < n; i++)
		if (!a[i])
			return NULL;
	if (!op_arity(name, &lo, &hi))
		return lay_fail(c, "unknown operation '%s'", name);
	if (n < lo || n > hi) {
		if (lo == hi)
			return lay_fail(c, "%s takes %d argument%s, got %d", name, lo, lo == 1 ? "" : "s", n);
		return lay_fail(c, "%s takes %d to %d arguments, got %d", name, lo, hi, n);
	}

#define IS(s) (!strcmp(name, s))
	if (IS("size") || IS("cosize") || IS("rank") || IS("depth") || IS("shape") || IS("stride")) {
		const lay_val *v = get_path(c, a[0], n - 1, a + 1, name);
		if (!v)
			return NULL;
		if (IS("size")) return lay_size(c, v);
		if (IS("cosize")) return lay_cosize(c, v);
		if (IS("rank")) return lay_int(c, lay_rank(v));
		if (IS("depth")) return lay_int(c, lay_depth(v));
		if (IS("shape")) return lay_shape(c, v);
		return lay_stride(c, v);
	}
	if (IS("get"))
		return get_path(c, a[0], n - 1, a + 1, name);
	if (IS("take") || IS("group")) {
		if (!want_int(c, a[1], name, &x) || !want_int(c, a[2], name, &y))
			return NULL;
		return IS("take") ? lay_take(c, a[0], (int)x, (int)y) : lay_group(c, a[0], (int)x, (int)y);
	}
	if (IS("select")) {
		int *is = lay_alloc(c->arena, sizeof(int) * (size_t)n);
		if (!is)
			return NULL;
		for (i = 1; i < n; i++) {
			if (!want_int(c, a[i], name, &x))
				return NULL;
			is[i - 1] = (int)x;
		}
		return lay_select(c, a[0], n - 1, is);
	}
	if (IS("append")) return lay_append(c, a[0], n > 1 ? a[1] : NULL);
	if (IS("prepend")) return lay_prepend(c, a[0], n > 1 ? a[1] : NULL);
	if (IS("flatten")) return lay_flatten(c, a[0]);
	if (IS("product")) return lay_size(c, a[0]);
	if (IS("product_each")) return lay_product_each(c, shape_of(c, a[0]));
	if (IS("ceil_div")) {
		if (a[1]->kind == LAY_LAYOUT) {
			const lay_val *cm = lay_complement(c, a[1], a[0]);
			return cm ? cm->u.l.shape : NULL;
		}
		return lay_ceil_div(c, a[0], a[1]);
	}
	if (IS("shape_div")) return lay_shape_div(c, a[0], a[1]);
	if (IS("min")) return iop(c, LAY_E_MIN, a[0], a[1]);
	if (IS("max")) return iop(c, LAY_E_MAX, a[0], a[1]);
	if (IS("zip")) return lay_zip(c, a[0]);
	if (IS("slice")) return lay_slice(c, a[0], a[1]);
	if (IS("dice")) return lay_dice(c, a[0], a[1]);
	if (IS("crd2idx")) return lay_crd2idx(c, a[0], a[1], n > 2 ? a[2] : NULL);
	if (IS("idx2crd")) return lay_idx2crd(c, a[0], a[1], n > 2 ? a[2] : NULL);
	if (IS("coalesce")) return lay_coalesce(c, a[0], n > 1 ? a[1] : NULL);
	if (IS("filter")) return lay_filter(c, a[0], n > 1 ? a[1] : NULL);
	if (IS("filter_zeros")) return lay_filter_zeros(c, a[0]);
	if (IS("composition")) {
		if (n == 2)
			return lay_composition(c, a[0], a[1]);
		return lay_composition(c, a[0], lay_tuple(c, n - 1, a + 1));
	}
	if (IS("complement")) return lay_complement(c, a[0], n > 1 ? a[1] : NULL);
	if (IS("right_inverse")) return lay_right_inverse(c, a[0]);
	if (IS("left_inverse")) return lay_left_inverse(c, a[0]);
#define X(op) if (IS(#op)) return lay_##op(c, a[0], a[1]);
	LAY_DIVPROD(X)
#undef X
	if (IS("max_common_vector")) return lay_max_common_vector(c, a[0], a[1]);
	if (IS("max_common_layout")) return lay_max_common_layout(c, a[0], a[1]);
	if (IS("upcast") || IS("downcast")) {
		if (!want_int(c, a[1], name, &x))
			return NULL;
		return IS("upcast") ? lay_upcast(c, a[0], x) : lay_downcast(c, a[0], x);
	}
	if (IS("recast")) {
		if (!want_int(c, a[1], name, &x) || !want_int(c, a[2], name, &y))
			return NULL;
		return lay_recast(c, a[0], x, y);
	}
	if (IS("make_layout_tv")) return lay_make_layout_tv(c, a[0], a[1]);
	if (IS("local_tile")) return lay_local_tile(c, a[0], a[1], a[2], n > 3 ? a[3] : NULL);
	if (IS("local_partition")) return lay_local_partition(c, a[0], a[1], a[2], n > 3 ? a[3] : NULL);
	if (IS("tile_to_shape")) return lay_tile_to_shape(c, a[0], a[1], n > 2 ? a[2] : NULL);
	if (IS("make_layout")) {
		int all = 1;
		for (i = 0; i < n; i++)
			if (a[i]->kind != LAY_LAYOUT)
				all = 0;
		if (all)
			return lay_make_layout_n(c, n, a);
		if (n == 1)
			return lay_make_layout(c, a[0]);
		if (n == 2 && (is_marker(a[1], "LayoutRight") || is_marker(a[1], "GenRowMajor")))
			return lay_make_layout_right(c, a[0]);
		if (n == 2 && (is_marker(a[1], "LayoutLeft") || is_marker(a[1], "GenColMajor")))
			return lay_make_layout(c, a[0]);
		if (n == 2)
			return lay_layout(c, a[0], a[1]);
		return lay_fail(c, "make_layout: expects a shape, a shape and a stride, or layouts");
	}
	if (IS("make_ordered_layout")) return lay_make_ordered_layout(c, a[0], a[1]);
	if (IS("swizzle")) {
		if (!want_int(c, a[0], name, &x) || !want_int(c, a[1], name, &y) || !want_int(c, a[2], name, &z))
			return NULL;
		return lay_swizzle(c, (int)x, (int)y, (int)z);
	}
	if (IS("nullspace")) return lay_nullspace(c, a[0]);
	if (IS("compact_col_major") || IS("compact_row_major")) {
		const lay_val *cur = n > 1 ? a[1] : lay_int(c, 1);
		if (!lay_is_inttuple(a[0]) || cur->kind != LAY_INT)
			return lay_fail(c, "%s: expects a shape and an integer", name);
		return IS("compact_col_major") ? compact_col(c, a[0], &cur) : compact_row(c, a[0], &cur);
	}
	if (IS("inner_product")) return lay_inner_product(c, a[0], a[1]);
	if (IS("max_alignment")) return lay_max_alignment(c, a[0]);
	if (IS("with_shape")) return lay_composition(c, a[0], lay_make_layout(c, a[1]));
	if (IS("gcd")) return lay_gcd(c, a[0], a[1]);
#undef IS
	return lay_fail(c, "unknown operation '%s'", name);
}

static int
op_arity(const char *name, int *lo, int *hi)
{
#define X(n, l, h) if (!strcmp(name, #n)) { *lo = l; *hi = h; return 1; }
	LAY_READ_OPS(X)
#undef X
	return 0;
}

static const lay_val *
apply_args(lay_reader *r, const lay_val *f)
{
	vec args = { 0 };
	int tr;

	if (!parse_list(r, ')', &args, &tr))
		return NULL;
	if (args.bad)
		return NULL;
	if (args.n == 0)
		return lay_fail(r->c, "a layout needs a coordinate: L(i) or L((i,j))");
	return lay_apply(r->c, f, args.n == 1 ? args.e[0] : lay_tuple(r->c, args.n, args.e));
}

static int
callable(const lay_val *v)
{
	return v && (lay_is_layoutish(v) || v->kind == LAY_SWIZZLE || v->kind == LAY_VIEW);
}

static int
is_tupleish(const lay_val *v)
{
	return v->kind == LAY_INT || v->kind == LAY_TUPLE || v->kind == LAY_UNDERSCORE;
}

/* (((x))) of an integer x is x where arithmetic wants an integer */
static const lay_val *
unwrap1(const lay_val *v)
{
	while (v && v->kind == LAY_TUPLE && v->u.t.n == 1)
		v = v->u.t.e[0];
	return v;
}

/* primary := INT | NAME | '_' | '(' list ')' | '[' list ']' | NAME '(' args ')' | 'Sw' '<' B ',' M ',' S '>' */
static const lay_val *
parse_primary(lay_reader *r)
{
	char name[64];
	size_t len;
	int ch = peekc(r), tr;

	if (isdigit(ch)) {
		char *end;
		long long v = strtoll(r->p, &end, 0);
		if (end == r->p)
			return err(r, "bad integer", "");
		r->p = end;
		return lay_int(r->c, v);
	}
	if (ch == '(') {
		vec items = { 0 };
		r->p++;
		if (!parse_list(r, ')', &items, &tr))
			return NULL;
		if (items.bad)
			return NULL;
		/* CuTe's rank-1 rule: (x) of an int tuple (or `_`) is the rank-1
		 * tuple, as CuTe prints it; parentheses around a layout, swizzle,
		 * composed layout or view only group (CuTe never prints those in
		 * parentheses).  Arithmetic reads a rank-1 tuple of an integer as
		 * the integer (see unwrap1), so 4*(3+5) is 32. */
		if (items.n == 1 && !tr && !is_tupleish(items.e[0]))
			return items.e[0];
		return lay_tuple(r->c, items.n, items.e);
	}
	if (ch == '[') {
		vec items = { 0 };
		r->p++;
		if (!parse_list(r, ']', &items, &tr))
			return NULL;
		if (items.bad)
			return NULL;
		return lay_tuple(r->c, items.n, items.e);
	}
	len = peek_name(r, name, sizeof name);
	if (len) {
		const lay_val *b;
		int lo, hi;
		const char *start = r->p;
		r->p += len;
		if (!strcmp(name, "_"))
			return lay_underscore(r->c);
		if (!strcmp(name, "Sw") && peekc(r) == '<') {
			vec items = { 0 };
			int64_t x, y, z;
			r->p++;
			if (!parse_list(r, '>', &items, &tr) || items.bad)
				return NULL;
			if (items.n != 3)
				return err(r, "Sw<B,M,S> needs three integers", "");
			if (!want_int(r->c, items.e[0], "Sw", &x) || !want_int(r->c, items.e[1], "Sw", &y) ||
			    !want_int(r->c, items.e[2], "Sw", &z))
				return NULL;
			return lay_swizzle(r->c, (int)x, (int)y, (int)z);
		}
		b = lookup(r, name);
		if (b)
			return b;
		if (op_arity(name, &lo, &hi)) {
			vec args = { 0 };
			const lay_val *v;
			if (!expect(r, '('))
				return NULL;
			if (!parse_list(r, ')', &args, &tr) || args.bad)
				return NULL;
			v = lay_call(r->c, name, args.n, args.e);
			if (!v && !r->c->failed)
				lay_fail(r->c, "%s failed", name);
			return v;
		}
		if (peekc(r) == '(') {
			r->tok = start;
			return err(r, "unknown operation '%s'", name);
		}
		/* an unbound name: a run-time value */
		lay_reader_var(r, name, r->nvars, 1);
		return lookup(r, name);
	}
	if (ch == 0)
		return err(r, "unexpected end of expression", "");
	{
		char s[2] = { (char)ch, 0 };
		return err(r, "unexpected '%s'", s);
	}
}

/* postfix := primary ('(' args ')')*      -- applying a layout, swizzle or view */
static const lay_val *
parse_postfix(lay_reader *r)
{
	const lay_val *v = parse_primary(r);

	while (v && callable(v) && peekc(r) == '(') {
		r->p++;
		v = apply_args(r, v);
	}
	return v;
}

/* unary := '-'* postfix */
static const lay_val *
parse_unary(lay_reader *r)
{
	const lay_val *v;
	int negs = 0;

	while (accept(r, '-'))
		negs++;
	v = parse_postfix(r);
	if (!v || !negs)
		return v;
	v = unwrap1(v);
	if (v->kind != LAY_INT)
		return lay_fail(r->c, "unary '-' needs an integer");
	if (negs % 2)
		v = lay_int_e(r->c, lay_e_neg(r->c, v->u.i));
	return v;
}

static const lay_val *
arith(lay_reader *r, lay_expr_kind k, const lay_val *a, const lay_val *b, const char *op)
{
	if (!a || !b)
		return NULL;
	a = unwrap1(a);
	b = unwrap1(b);
	if (a->kind != LAY_INT || b->kind != LAY_INT)
		return lay_fail(r->c, "'%s' needs integers, got %s and %s", op, lay_to_string(r->c, a), lay_to_string(r->c, b));
	return iop(r->c, k, a, b);
}

/* term := unary (('*' | '/' | '%') unary)* */
static const lay_val *
parse_term(lay_reader *r)
{
	const lay_val *v = parse_unary(r);

	for (;;) {
		int ch = peekc(r);
		if (ch == '*') { r->p++; v = arith(r, LAY_E_MUL, v, parse_unary(r), "*"); }
		else if (ch == '/') { r->p++; v = arith(r, LAY_E_DIV, v, parse_unary(r), "/"); }
		else if (ch == '%') { r->p++; v = arith(r, LAY_E_MOD, v, parse_unary(r), "%"); }
		else return v;
		if (!v)
			return NULL;
	}
}

/* arith := term (('+' | '-') term)* */
static const lay_val *
parse_arith(lay_reader *r)
{
	const lay_val *v = parse_term(r);

	for (;;) {
		int ch = peekc(r);
		if (ch == '+') { r->p++; v = arith(r, LAY_E_ADD, v, parse_term(r), "+"); }
		else if (ch == '-') { r->p++; v = arith(r, LAY_E_SUB, v, parse_term(r), "-"); }
		else return v;
		if (!v)
			return NULL;
	}
}

/* layout := arith (':' arith)? ('(' args ')')* */
static const lay_val *
parse_layout(lay_reader *r)
{
	const lay_val *v = parse_arith(r);

	if (v && accept(r, ':')) {
		const lay_val *d = parse_arith(r);
		v = lay_layout(r->c, v, d);
	}
	while (v && callable(v) && peekc(r) == '(') {
		r->p++;
		v = apply_args(r, v);
	}
	return v;
}

static int
at_o(lay_reader *r)
{
	char name[8];
	size_t n = peek_name(r, name, sizeof name);

	return n == 1 && name[0] == 'o';
}

static const lay_val *parse_expr1(lay_reader *r);

static const lay_val *
parse_expr(lay_reader *r)
{
	const lay_val *v;

	if (r->depth >= 256)
		return err(r, "expression nested too deeply", "");
	r->depth++;
	v = parse_expr1(r);
	r->depth--;
	return v;
}

/* expr := layout ('o' layout)*   -- Sw o L, Sw o OFF o L, OFF o L (a view), A o B (composition) */
static const lay_val *
parse_expr1(lay_reader *r)
{
	const lay_val *v = parse_layout(r);

	while (v && at_o(r)) {
		const lay_val *rhs;
		r->p++;
		rhs = parse_layout(r);
		if (!rhs)
			return NULL;
		if (v->kind == LAY_SWIZZLE && rhs->kind == LAY_INT && at_o(r)) {
			const lay_val *b;
			r->p++;
			b = parse_layout(r);
			v = lay_composed(r->c, v, rhs->u.i, b);
			continue;
		}
		if (v->kind == LAY_INT && lay_is_layoutish(rhs)) {
			v = lay_view(r->c, v->u.i, rhs);   /* OFFSET o LAYOUT: a view */
			continue;
		}
		v = lay_composition(r->c, v, rhs);
	}
	return v;
}

/* line := 'let' NAME '=' expr | 'assume' NAME '%' INT '==' '0' | expr */
const lay_val *
lay_read_eval(lay_reader *r, const char *text, int *is_let)
{
	char name[64];
	size_t n;
	const lay_val *v;

	*is_let = 0;
	r->depth = 0;
	r->src = r->p = r->tok = text;
	n = peek_name(r, name, sizeof name);
	if (n == 3 && !strcmp(name, "let")) {
		char var[64];
		size_t m;
		r->p += n;
		m = peek_name(r, var, sizeof var);
		if (!m)
			return err(r, "expected a name after 'let'", "");
		r->p += m;
		if (!expect(r, '='))
			return NULL;
		v = parse_expr(r);
		if (v && peekc(r))
			return err(r, "unexpected text after the expression", "");
		if (v)
			lay_reader_bind(r, var, v);
		*is_let = 1;
		return v;
	}
	if (n == 6 && !strcmp(name, "assume")) {
		/* assume NAME % D == 0 */
		char var[64];
		size_t m;
		int64_t d;
		char *end;
		r->p += n;
		m = peek_name(r, var, sizeof var);
		if (!m)
			return err(r, "expected: assume NAME %% D == 0", "");
		r->p += m;
		if (!expect(r, '%'))
			return NULL;
		skip_ws(r);
		d = strtoll(r->p, &end, 0);
		if (end == r->p || d <= 0)
			return err(r, "expected a positive divisor", "");
		r->p = end;
		skip_ws(r);
		if (strncmp(r->p, "==", 2))
			return err(r, "expected '== 0'", "");
		r->p += 2;
		skip_ws(r);
		if (*r->p != '0')
			return err(r, "expected '== 0'", "");
		r->p++;
		if (peekc(r))
			return err(r, "unexpected text after the assumption", "");
		lay_reader_var(r, var, r->nvars, d);
		*is_let = 1;
		return lookup(r, var);
	}
	v = parse_expr(r);
	if (v && peekc(r))
		return err(r, "unexpected text after the expression", "");
	return v;
}
