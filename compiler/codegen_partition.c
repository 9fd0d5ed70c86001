/*
 * codegen_partition.c — tiled copies and their per-thread slices:
 * thr.partition_S/D(T) of tiled_copy(atom, threads=, values=), the lazily
 * evaluated slice and tiled-copy bindings, and where a register fragment came
 * from (fragment_A/B/C) for retile_S/D.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"
#include "codegen_span.h"
#include "ir_banks.h"
#include "ir.h"
#include "target/target.h"

/* named argument NAME of call n, or NULL */
Node *
cg_named_arg(Node *n, const char *name)
{
	for (int i = 0; i < n->u.call.named.n; i++)
		if (!strcmp(n->u.call.named.v[i]->name, name))
			return n->u.call.named.v[i]->value;
	return NULL;
}

/* the node a lazily bound name stands for (tiled copies, their slices) */
Node *
cg_lazy_of(Cg *c, Node *n)
{
	return n->kind == E_NAME && n->u.name.sym ? cg_lookup_lazy(c, n->u.name.sym) : NULL;
}

/* The tiled_copy(...) call that BASE (a thread copy slice: a name bound to
 * tc.slice(i), or the call itself) slices, and *SLICE_CALL the slice call; NULL
 * when it is not one. */
Node *
cg_tiled_copy_of(Cg *c, Node *base, Node **slice_call)
{
	Node *sl = cg_lazy_of(c, base), *tc;
	if (!sl)
		sl = base;
	*slice_call = sl;
	if (sl->kind != E_CALL || sl->u.call.callee->kind != E_MEMBER ||
	    sl->u.call.callee->u.member.method != M_SLICE || sl->u.call.args.n != 1)
		return NULL;
	tc = cg_lazy_of(c, sl->u.call.callee->u.member.base);
	if (!tc)
		tc = sl->u.call.callee->u.member.base;
	if (tc->kind != E_CALL || tc->u.call.callee->kind != E_NAME || cg_builtin(tc->u.call.callee) != B_TILED_COPY)
		return NULL;
	return tc;
}

/* whether n is thr_mma.fragment_A/B/C(...) */
int
cg_is_fragment_call(const Node *n)
{
	int m;
	if (n->kind != E_CALL || n->u.call.callee->kind != E_MEMBER)
		return 0;
	m = n->u.call.callee->u.member.method;
	return m == M_FRAGMENT_A || m == M_FRAGMENT_B || m == M_FRAGMENT_C;
}

/* the fragment_X call that made the fragment e names (through convert<T>), or NULL */
Node *
cg_frag_origin(Cg *c, Node *e)
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
 * tiles along mode k: the layout engine's division of T (cg_view_thread_part,
 * codegen_view.c), so T's modes may be nested. L must be a compact layout (a
 * permutation of the thread indices), and each mode's size a static multiple
 * of its tile. */
IrRef
cg_partition(Cg *c, Node *n, Node *slice_call, Node *tc, Node *tn)
{
	Node *thr = cg_named_arg(tc, "threads"), *val = cg_named_arg(tc, "values");
	const lay_val *L = thr ? cg_lay_of_node(c, thr) : NULL, *V = val ? cg_lay_of_node(c, val) : NULL, *TL;
	IrRef t, idx;
	int r;

	if (!L || !V || L->kind != LAY_LAYOUT || V->kind != LAY_LAYOUT || !lay_is_static(L) ||
	    !lay_is_static(V->u.l.shape)) {
		if (!c->failed)
			cg_unsupported(c, tc->span, "a tiled copy without static threads= and values= layouts");
		return 0;
	}
	if (!(t = cg_expr(c, tn)) || !(idx = cg_expr(c, slice_call->u.call.args.v[0])))
		return 0;
	if (!cg_is_tensor_val(c, t)) {
		cg_unsupported(c, tn->span, "partitioning this value");
		return 0;
	}
	TL = cg_lay_of(c, t);
	r = lay_rank(TL);
	if (r != lay_rank(L) || r != lay_rank(V) || r > 4) {
		cg_unsupported(c, n->span, "a partition whose ranks differ from the tiled copy's");
		return 0;
	}
	/* L compact: sorted by stride, each stride is the product of the smaller modes' sizes */
	int64_t ts[4], td[4], vs[4];
	for (int k = 0; k < r; k++) {
		const lay_val *a = lay_get(&c->lc, L, k), *v = lay_get(&c->lc, V, k);
		if (!a || !v || !cg_lay_int(a->u.l.shape, &ts[k]) || !cg_lay_int(a->u.l.stride, &td[k]) ||
		    !cg_lay_int(v->u.l.shape, &vs[k])) {
			cg_unsupported(c, n->span, "nested thread or value layouts in a tiled copy");
			return 0;
		}
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
				cg_unsupported(c, thr->span, "a thread layout that is not a compact permutation");
				return 0;
			}
			covered *= ts[found];
		}
	}
	for (int k = 0; k < r; k++) {
		int64_t sz = cg_lay_known(lay_size(&c->lc, lay_get(&c->lc, TL, k)));
		if (sz < 0) {
			cg_unsupported(c, tn->span, "partitioning a tensor with a run-time extent");
			return 0;
		}
		if (sz % (ts[k] * vs[k])) {
			cg_unsupported(c, tn->span, "a tensor whose extent is not a multiple of the tiled copy's tile");
			return 0;
		}
	}
	IrRef v = cg_view_thread_part(c, t, ts, td, vs, r, idx, n->span);
	if (!v)
		return 0;
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
