/*
 * codegen_frag.c — register fragments and coordinates as values.
 *
 * A register fragment is a value: a vector of its values per thread (one
 * scalar when it has one value), never memory. `reg v: T[L];` and
 * `fragment(T, L)` start as cosize(L) zeros; element c is lane L(c), so
 * `v[i, j]` goes through the layout (the checker bounded the coordinates and
 * saw that they are known in each copy of the code); a fragment whose layout
 * only code generation knows (fragment_like, fragment_A/B/C) takes one linear
 * index, its value order. `v[c] = e` replaces one lane: the variable gets a new
 * vector, which loops and branches carry like any variable.
 *
 * Coordinates: an identity tensor's view keeps a rank-2 coordinate packed in
 * an i64 (m + n * 2^32, codegen_tensor.c); an element read from one is split
 * into the tuple (m, n) of i32s, get(c, k) makes the fragment of the k-th
 * coordinates of the view's elements, and elem_less(c, S) used as a value the
 * bool fragment (or bool) of the comparisons a predicated copy would make.
 */
#include <string.h>

#include "codegen_int.h"

/* a compile-time layout or shape value in the layout library */
static const lay_val *
lay_of_value(Cg *c, const Value *v)
{
	switch (v->kind) {
	case VAL_INT:
		return lay_int(&c->lc, v->i);
	case VAL_TUPLE: {
		const lay_val **e = ir_alloc(c->m, sizeof *e * (size_t)(v->nelems ? v->nelems : 1));
		for (int i = 0; i < v->nelems; i++)
			if (!(e[i] = lay_of_value(c, v->elems[i])))
				return NULL;
		return lay_tuple(&c->lc, v->nelems, e);
	}
	case VAL_LAYOUT: {
		const lay_val *s = lay_of_value(c, v->shape), *d = s ? lay_of_value(c, v->stride) : NULL;
		return d ? lay_layout(&c->lc, s, d) : NULL;
	}
	default:
		return NULL;
	}
}

/* the register layout that layout node ln states (a layout; a shape made column-major), or NULL */
static const lay_val *
layout_lay(Cg *c, const Node *ln)
{
	const Value *v = ln ? ln->cval : NULL;
	const lay_val *l;

	if (!v || !(l = lay_of_value(c, v)))
		return NULL;
	return v->kind == VAL_LAYOUT ? l : lay_make_layout(&c->lc, l);
}

/* the register layout of a fragment-typed node, or NULL */
static const lay_val *
frag_layout(Cg *c, const Node *n)
{
	const Type *t = n ? n->type : NULL;
	return t && t->kind == TY_TENSOR && t->space == SPACE_REG ? layout_lay(c, t->layout) : NULL;
}

static int
lay_const(const lay_val *v, int64_t *out)
{
	if (!v || v->kind != LAY_INT || v->u.i->kind != LAY_E_CONST)
		return 0;
	*out = v->u.i->value;
	return 1;
}

/* zeros of element type el in the cosize of layout node ln: a reg declaration, fragment(T, L) */
static IrRef
zeros(Cg *c, Node *ln, ScalarKind k, Span sp)
{
	const lay_val *l = layout_lay(c, ln);
	int64_t n;
	IrScalar el;
	IrRef z;

	if (!l || !lay_const(lay_cosize(&c->lc, l), &n) || n < 1 || !cg_scalar_of(k, &el)) {
		cg_unsupported(c, sp, "a register fragment of this layout");
		return 0;
	}
	if (cg_frag_limit(c, sp, "this register fragment", n))
		return 0;
	z = ir_ty_is_float(ir_ty(el)) ? ir_b_fconst(&c->b, ir_ty(el), 0) : ir_b_const(&c->b, ir_ty(el), 0);
	return n > 1 ? ir_b_splat(&c->b, ir_vec(el, (unsigned)n), z) : z;
}

IrRef
cg_reg_alloc(Cg *c, Node *st)
{
	Symbol *s = st->u.alloc.sym;
	IrRef v;

	if (!s || !s->type || s->type->kind != TY_TENSOR || !(v = zeros(c, st->u.alloc.type->layout, s->type->scalar, st->span)))
		return 0;
	cg_bind(c, s, v);
	return v;
}

IrRef
cg_fragment(Cg *c, Node *n)
{
	return n->type && n->type->kind == TY_TENSOR ? zeros(c, n->u.call.args.v[1], n->type->scalar, n->span) : 0;
}

/* a coordinate node (an integer or a tuple of them, each known in this copy of the code) as a layout value */
static const lay_val *
coord_val(Cg *c, Node *x)
{
	if (x->kind == E_TUPLE) {
		const lay_val **e = ir_alloc(c->m, sizeof *e * (size_t)(x->u.list.n ? x->u.list.n : 1));
		for (int i = 0; i < x->u.list.n; i++)
			if (!(e[i] = coord_val(c, x->u.list.v[i])))
				return NULL;
		return lay_tuple(&c->lc, x->u.list.n, e);
	}
	IrRef k = cg_expr(c, x);
	int64_t v;
	if (!k)
		return NULL;
	if (!cg_known_int(c, k, &v)) {
		cg_unsupported(c, x->span, "a fragment value indexed at a run-time coordinate (use a compile-time one, "
		               "e.g. a static for's variable)");
		return NULL;
	}
	return lay_int(&c->lc, v);
}

/* the lane of element n (an E_INDEX) of the fragment value v */
int
cg_fragment_lane(Cg *c, Node *n, IrRef v, uint32_t *lane)
{
	unsigned lanes = c->f->inst[v].ty.lanes;
	const lay_val *l = frag_layout(c, n->u.call.callee), *co;
	int na = n->u.call.args.n;
	int64_t i;

	if (!l && (na != 1 || n->u.call.args.v[0]->kind == E_TUPLE)) {
		cg_unsupported(c, n->span, "a fragment value of unknown layout indexed by more than one coordinate");
		return 0;
	}
	if (na == 1)
		co = coord_val(c, n->u.call.args.v[0]);
	else {
		const lay_val **e = ir_alloc(c->m, sizeof *e * (size_t)na);
		for (int k = 0; k < na; k++)
			if (!(e[k] = coord_val(c, n->u.call.args.v[k])))
				return 0;
		co = lay_tuple(&c->lc, na, e);
	}
	if (!co)
		return 0;
	if (!l)
		i = co->u.i->value;
	else if (!lay_const(lay_apply(&c->lc, l, co), &i)) {
		if (!c->failed)
			diag_error(c->d, n->span, "these coordinates do not fit the fragment's layout");
		c->failed = 1;
		return 0;
	}
	if (i < 0 || i >= (int64_t)lanes) {
		if (!c->failed)
			diag_error(c->d, na == 1 ? n->u.call.args.v[0]->span : n->span,
			           "coordinate %lld is outside the fragment (%u values)", (long long)i, lanes);
		c->failed = 1;
		return 0;
	}
	*lane = (uint32_t)i;
	return 1;
}

/* x, an element of a coordinate view, as its coordinates: an i32 (rank 1), or m and n of a packed
 * rank-2 coordinate m + n * 2^32 */
static void
coord_split(Cg *c, IrRef x, IrRef *m, IrRef *n)
{
	IrType i64 = ir_ty(IR_I64), i32 = ir_ty(IR_I32);

	if (c->f->inst[x].ty.kind != IR_I64) {
		*m = cg_to_type(c, x, i32);
		*n = 0;
		return;
	}
	*m = cg_to_type(c, ir_b_bin(&c->b, IR_OP_AND, x, ir_b_const(&c->b, i64, 0xffffffff)), i32);
	*n = cg_to_type(c, ir_b_bin(&c->b, IR_OP_SHR, x, ir_b_const(&c->b, i64, 32)), i32);
}

/* element i (its index in the view) of coordinate view t, split */
static void
coord_at(Cg *c, IrRef t, int64_t i, IrRef *m, IrRef *n)
{
	IrRef k = ir_b_const(&c->b, ir_ty(IR_I32), i);
	coord_split(c, ir_b_tload(&c->b, t, 1, 1, &k), m, n);
}

/* c[i, ...] of a view of rank-2 coordinates: the tuple (m, n) */
IrTuple *
cg_coord_elem(Cg *c, Node *n)
{
	IrRef t, co[8], k[2];
	uint32_t nc;

	if (!cg_tensor_coords(c, n, &t, co, &nc))
		return NULL;
	c->b.loc = cg_loc_of(c, n->span);
	coord_split(c, ir_b_tload(&c->b, t, 1, nc, co), &k[0], &k[1]);
	IrTuple *kids[2] = { ir_tuple_dyn(c->m, k[0]), ir_tuple_dyn(c->m, k[1]) };
	return ir_tuple_of(c->m, 2, kids);
}

/* the view of coordinates node x, with its static size */
static IrRef
coord_view(Cg *c, Node *x, int64_t *sz)
{
	IrRef t = cg_expr(c, x);

	if (!t)
		return 0;
	if (!cg_is_tensor_val(c, t) || cg_tensor_of(c, ir_tensor_root(c->f, t))->space != IR_SPACE_IDENTITY ||
	    (*sz = cg_view_size(c, t)) <= 0) {
		cg_unsupported(c, x->span, "coordinates of a view without a static size");
		return 0;
	}
	if (cg_frag_limit(c, x->span, "these coordinates", *sz))
		return 0;
	return t;
}

/* get(c, k) of a coordinate view: the fragment of the k-th coordinates of its elements */
IrRef
cg_coord_get(Cg *c, Node *n)
{
	int64_t sz, k = n->u.call.args.v[1]->cval->i;
	IrRef t = coord_view(c, n->u.call.args.v[0], &sz), r = 0;

	if (!t)
		return 0;
	c->b.loc = cg_loc_of(c, n->span);
	for (int64_t i = 0; i < sz; i++) {
		IrRef m, q;
		coord_at(c, t, i, &m, &q);
		IrRef e = k ? q : m;
		r = sz == 1 ? e : ir_b_insert(&c->b, i ? r : ir_b_splat(&c->b, ir_vec(IR_I32, (unsigned)sz), e), e,
		                              (unsigned)i);
	}
	return r;
}

/* a rank-1 coordinate view used as a value: its coordinates, a fragment of i32 */
IrRef
cg_coord_value(Cg *c, IrRef t, Span sp)
{
	int64_t sz = cg_view_size(c, t);
	IrRef r = 0;

	if (sz <= 0) {
		cg_unsupported(c, sp, "coordinates of a view without a static size");
		return 0;
	}
	if (cg_frag_limit(c, sp, "these coordinates", sz))
		return 0;
	for (int64_t i = 0; i < sz; i++) {
		IrRef m, q;
		coord_at(c, t, i, &m, &q);
		r = sz == 1 ? m : ir_b_insert(&c->b, i ? r : ir_b_splat(&c->b, ir_vec(IR_I32, (unsigned)sz), m), m,
		                              (unsigned)i);
	}
	return r;
}

/* elem_less(c, S) as a value: a bool per element of a coordinate view (one bool for a tuple) */
IrRef
cg_elem_less_value(Cg *c, Node *n)
{
	Node *cn = n->u.call.args.v[0], *sn = n->u.call.args.v[1];
	IrTuple *bt, *ct;
	IrRef r = 0;
	int64_t sz;

	if (!(bt = cg_tuple_of_node(c, sn))) {
		cg_unsupported(c, sn->span, "elem_less against this shape");
		return 0;
	}
	if (!cn->type || cn->type->kind != TY_TENSOR) {
		/* a coordinate tuple against a shape: every mode below its extent */
		if (!(ct = cg_tuple_of_node(c, cn)))
			return 0;
		int nm = ct->n ? ct->n : 1;
		if ((bt->n ? bt->n : 1) != nm) {
			cg_unsupported(c, n->span, "elem_less of a coordinate and a shape of different ranks");
			return 0;
		}
		for (int i = 0; i < nm; i++) {
			const IrTuple *a = ct->n ? ct->kid[i] : ct, *b = bt->n ? bt->kid[i] : bt;
			if (a->n || b->n) {
				cg_unsupported(c, n->span, "elem_less of nested coordinates");
				return 0;
			}
			IrRef p = ir_b_cmp(&c->b, IR_LT, cg_leaf_val(c, a, ir_ty(IR_I32)), cg_leaf_val(c, b, ir_ty(IR_I32)));
			r = i ? ir_b_bin(&c->b, IR_OP_AND, r, p) : p;
		}
		return r;
	}
	IrRef t = coord_view(c, cn, &sz);
	if (!t)
		return 0;
	int rank2 = cg_tensor_of(c, ir_tensor_root(c->f, t))->elem == IR_I64;
	if ((bt->n == 2) != rank2 || (bt->n && bt->n != 2) || (bt->n == 2 && (bt->kid[0]->n || bt->kid[1]->n))) {
		if (!c->failed)
			diag_error(c->d, sn->span, "elem_less of rank-%d coordinates needs a shape of rank %d", rank2 ? 2 : 1,
			           rank2 ? 2 : 1);
		c->failed = 1;
		return 0;
	}
	IrRef b0 = cg_leaf_val(c, rank2 ? bt->kid[0] : bt, ir_ty(IR_I32));
	IrRef b1 = rank2 ? cg_leaf_val(c, bt->kid[1], ir_ty(IR_I32)) : 0;
	c->b.loc = cg_loc_of(c, n->span);
	for (int64_t i = 0; i < sz; i++) {
		IrRef m, q;
		coord_at(c, t, i, &m, &q);
		IrRef p = ir_b_cmp(&c->b, IR_LT, m, b0);
		if (rank2)
			p = ir_b_bin(&c->b, IR_OP_AND, p, ir_b_cmp(&c->b, IR_LT, q, b1));
		r = sz == 1 ? p : ir_b_insert(&c->b, i ? r : ir_b_splat(&c->b, ir_vec(IR_I1, (unsigned)sz), p), p,
		                              (unsigned)i);
	}
	return r;
}
