/*
 * codegen_mma.c — tiled MMAs: tiled_mma(atom, waves=(WM, WN, 1)), its slices
 * mma.slice(t), partition_A/B/C(T), fragment_A/B/C(T [, ELEM]) and
 * fill(frag, x), gemm(mma, A, B, C [, scale_a=, scale_b=]) lowered to the IR's `mma`
 * (llvm.amdgcn.mfma.* / mfma.scale.* / wmma.*).
 *
 * Everything about an instruction comes from its atom declaration in the
 * stdlib (stdlib/gfx950.fly, stdlib/gfx1201.fly): the intrinsic, the shape
 * (M, N, K), the element types and the thread-value layouts a_layout,
 * b_layout, c_layout. A TV layout maps (lane, value) to the column-major index
 * of the operand tile: A is M x K (index m + M*k), B is N x K, C is M x N.
 * Nothing here is specific to one instruction.
 *
 * Tiling: thread t is lane l = t % threads of wave w = t / threads; waves are
 * laid out WM x WN (w = wm + WM*wn). A view T of an operand (rank 2, P x Q
 * with P = M or N and Q = K, or P = M, Q = N for C) is covered by atom tiles
 * P x Q, repeated over waves (A: WM along P; B: WN along P; C: WM along P and
 * WN along Q) and then over the rest of T. partition_X(T) is the view of
 * shape (V, RP, RQ): value v of the atom in repeat (rp, rq) at
 *   T(p(l, v) + (rp*WP + wp)*P, q(l, v) + (rq*WQ + wq)*Q),
 * and fragment_X(T) a register vector of the same size, element order
 * v + V*(rp + RP*rq) (colexicographic, as a copy from the partition fills it).
 * gemm issues one instruction per (rm, rn, rk), K repeats outermost.
 *
 * Copies laid out as an operand (tiled_copy(atom, of=mma.X), CuTe's
 * make_tiled_copy_A/B/C) partition exactly as partition_X, and retile_S/D of
 * an MMA fragment is the fragment itself; see the end of this file. Loads
 * straight to LDS laid out as an operand partition both sides so too; the
 * destination's view is recorded with the waves that hold the same values
 * (cg_mma_dups), whose accesses codegen_copy.c deals out among them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"

enum { MAXLEAF = 8 };

typedef struct {
	Node *atom;
	const char *intrinsic;
	int64_t mnk[3];
	int threads;
	ScalarKind ea, eb, ec;
	const Value *lay[3];    /* A, B, C TV layouts */
	int scaled, fa, fb;     /* scaled f8f6f4: A/B format codes */
	int64_t waves[2];       /* WM, WN */
} Mma;

/* one operand's TV layout, flattened: thread leaves and value leaves */
typedef struct {
	int nt, nv;
	int64_t ts[MAXLEAF], td[MAXLEAF], vs[MAXLEAF], vd[MAXLEAF];
	int64_t P, Q, V;        /* tile dims, values per lane */
} Tv;

static const Value *
field(Node *atom, const char *name)
{
	for (int i = 0; atom && i < atom->u.atom.fields.n; i++)
		if (!strcmp(atom->u.atom.fields.v[i]->name, name))
			return atom->u.atom.fields.v[i]->value ? atom->u.atom.fields.v[i]->value->cval : NULL;
	return NULL;
}

static int
fmt_code(ScalarKind k)
{
	switch (k) {
	case SC_FP8: return 0;
	case SC_BF8: return 1;
	case SC_FP6: return 2;
	case SC_BF6: return 3;
	case SC_FP4: return 4;
	default: return -1;
	}
}

static int
atom_of(Cg *c, Node *atom, Mma *o, Span sp)
{
	const Value *in = field(atom, "intrinsic"), *sh = field(atom, "shape"), *th = field(atom, "threads");
	const Value *a = field(atom, "a"), *b = field(atom, "b"), *cc = field(atom, "c");
	memset(o, 0, sizeof *o);
	o->atom = atom;
	o->waves[0] = o->waves[1] = 1;
	if (!in || in->kind != VAL_STR || !sh || sh->kind != VAL_TUPLE || sh->nelems != 3 || !th || th->kind != VAL_INT ||
	    !a || a->kind != VAL_TYPE || !b || b->kind != VAL_TYPE || !cc || cc->kind != VAL_TYPE) {
		cg_unsupported(c, sp, "an MMA atom without intrinsic, shape, threads and a/b/c types");
		return -1;
	}
	o->intrinsic = in->s;
	for (int i = 0; i < 3; i++)
		o->mnk[i] = sh->elems[i]->i;
	o->threads = (int)th->i;
	o->ea = a->scalar;
	o->eb = b->scalar;
	o->ec = cc->scalar;
	o->lay[0] = field(atom, "a_layout");
	o->lay[1] = field(atom, "b_layout");
	o->lay[2] = field(atom, "c_layout");
	for (int i = 0; i < 3; i++)
		if (!o->lay[i] || o->lay[i]->kind != VAL_LAYOUT) {
			cg_unsupported(c, sp, "an MMA atom without a_layout, b_layout and c_layout");
			return -1;
		}
	if (field(atom, "scale")) {
		o->scaled = 1;
		o->fa = fmt_code(o->ea);
		o->fb = fmt_code(o->eb);
		if (o->fa < 0 || o->fb < 0) {
			cg_unsupported(c, sp, "a scaled MMA atom whose operands are not fp8/bf8/fp6/bf6/fp4");
			return -1;
		}
	}
	return 0;
}

/* the tiled MMA (or atom, or slice) n names: atom, waves */
static int
mma_of(Cg *c, Node *n, Mma *o)
{
	Node *x = n;
	for (int depth = 0; depth < 4 && x; depth++) {
		Node *lz = cg_lazy_of(c, x);
		if (lz)
			x = lz;
		if (x->cval && x->cval->kind == VAL_ATOM)
			return atom_of(c, x->cval->atom, o, n->span);
		if (x->kind != E_CALL)
			break;
		Node *cal = x->u.call.callee;
		if (cal->kind == E_MEMBER && cal->u.member.method == M_SLICE) {
			x = cal->u.member.base;
			continue;
		}
		if (cal->kind == E_NAME && cg_builtin(cal) == B_TILED_MMA && x->u.call.args.n == 1) {
			Node *an = x->u.call.args.v[0];
			if (!an->cval || an->cval->kind != VAL_ATOM || atom_of(c, an->cval->atom, o, n->span))
				break;
			for (int i = 0; i < x->u.call.named.n; i++) {
				Param *p = x->u.call.named.v[i];
				const Value *w = p->value ? p->value->cval : NULL;
				if (strcmp(p->name, "waves"))
					continue;
				if (!w || w->kind == VAL_INT) {
					o->waves[0] = w ? w->i : 1;
				} else if (w->kind == VAL_TUPLE && w->nelems >= 1 && w->nelems <= 3) {
					for (int k = 0; k < w->nelems; k++)
						if (w->elems[k]->kind != VAL_INT || (k == 2 && w->elems[k]->i != 1)) {
							cg_unsupported(c, p->span, "waves= other than static (WM, WN[, 1])");
							return -1;
						}
					o->waves[0] = w->elems[0]->i;
					o->waves[1] = w->nelems > 1 ? w->elems[1]->i : 1;
				} else {
					cg_unsupported(c, p->span, "this waves= form");
					return -1;
				}
			}
			if (o->waves[0] < 1 || o->waves[1] < 1 || o->waves[0] * o->waves[1] > 32) {
				diag_error(c->d, x->span, "tiled_mma needs 1 to 32 waves, each count at least 1 (waves=(%lld, %lld))",
				           (long long)o->waves[0], (long long)o->waves[1]);
				c->failed = 1;
				return -1;
			}
			return 0;
		}
		break;
	}
	cg_unsupported(c, n->span, "an MMA that is not tiled_mma(atom, waves=...), its slice or an atom");
	return -1;
}

static int
flat(const Value *v, int64_t *s, int *n, int64_t *d, const Value *dv)
{
	if (v->kind == VAL_INT) {
		if (*n >= MAXLEAF)
			return -1;
		s[*n] = v->i;
		d[(*n)++] = dv->i;
		return 0;
	}
	for (int i = 0; i < v->nelems; i++)
		if (flat(v->elems[i], s, n, d, dv->elems[i]))
			return -1;
	return 0;
}

/* operand k (0 A, 1 B, 2 C) of the atom as flattened thread/value leaves;
 * checks that p and q of (lane, value) split into lane part + value part */
static int
tv_of(Cg *c, const Mma *m, int k, Tv *tv, Span sp)
{
	const Value *L = m->lay[k];
	memset(tv, 0, sizeof *tv);
	tv->P = k == 1 ? m->mnk[1] : m->mnk[0];
	tv->Q = k == 2 ? m->mnk[1] : m->mnk[2];
	if (L->shape->kind != VAL_TUPLE || L->shape->nelems != 2 ||
	    flat(L->shape->elems[0], tv->ts, &tv->nt, tv->td, L->stride->elems[0]) ||
	    flat(L->shape->elems[1], tv->vs, &tv->nv, tv->vd, L->stride->elems[1])) {
		cg_unsupported(c, sp, "an MMA atom whose TV layout is not (thread, value)");
		return -1;
	}
	int64_t nthr = 1;
	tv->V = 1;
	for (int i = 0; i < tv->nt; i++)
		nthr *= tv->ts[i];
	for (int i = 0; i < tv->nv; i++)
		tv->V *= tv->vs[i];
	if (nthr != m->threads || tv->V > 64) {
		cg_unsupported(c, sp, "an MMA atom whose TV layout does not cover its threads");
		return -1;
	}
	for (int64_t l = 0; l < nthr; l++) {
		int64_t il = 0, r = l;
		for (int i = 0; i < tv->nt; i++) {
			il += (r % tv->ts[i]) * tv->td[i];
			r /= tv->ts[i];
		}
		for (int64_t v = 0; v < tv->V; v++) {
			int64_t iv = 0, pv = 0, qv = 0, rv = v;
			for (int i = 0; i < tv->nv; i++) {
				int64_t cv = rv % tv->vs[i];
				rv /= tv->vs[i];
				iv += cv * tv->vd[i];
				pv += cv * (tv->vd[i] % tv->P);
				qv += cv * (tv->vd[i] / tv->P);
			}
			if ((il + iv) % tv->P != il % tv->P + pv || (il + iv) / tv->P != il / tv->P + qv ||
			    il + iv >= tv->P * tv->Q) {
				cg_unsupported(c, sp, "an MMA atom whose value layout crosses the tile's rows");
				return -1;
			}
		}
	}
	return 0;
}

/* partition_X(T) for operand k of thread idx; *reps gets (RP, RQ). The atom's
 * TV layout and T's extents are checked here, the view is the engine's
 * (cg_view_mma_part, codegen_view.c). */
static IrRef
partition(Cg *c, const Mma *m, int k, IrRef t, IrRef idx, Span sp, int64_t *reps, const lay_val *tvl, IrRef *dup)
{
	Tv tv;
	if (tv_of(c, m, k, &tv, sp))
		return 0;
	if (!cg_is_tensor_val(c, t)) {
		cg_unsupported(c, sp, "partitioning a value that is not a tensor view");
		return 0;
	}
	const lay_val *L = cg_lay_of(c, t);
	if (!L || lay_rank(L->u.l.shape) != 2) {
		diag_error(c->d, sp, "an MMA partition needs a tensor of rank 2 (%s x %s), not of rank %d",
		           k == 1 ? "N" : "M", k == 2 ? "N" : "K", L ? lay_rank(L->u.l.shape) : 0);
		c->failed = 1;
		return 0;
	}
	int64_t WP = k == 1 ? m->waves[1] : m->waves[0], WQ = k == 2 ? m->waves[1] : 1;
	int64_t pq[2] = { tv.P, tv.Q }, w[2] = { WP, WQ }, ext[2];
	for (int i = 0; i < 2; i++) {
		ext[i] = cg_lay_known(lay_size(&c->lc, lay_get(&c->lc, L->u.l.shape, i)));
		if (ext[i] < 0) {
			cg_unsupported(c, sp, "an MMA partition of a tensor with a run-time extent");
			return 0;
		}
		if (ext[i] % (pq[i] * w[i])) {
			diag_error(c->d, sp, "mode %d of this tensor has %lld elements, which is not a multiple of the "
			           "tiled MMA's tile (%lld = %lld x %lld waves) of operand %c of '%s'", i, (long long)ext[i],
			           (long long)(pq[i] * w[i]), (long long)pq[i], (long long)w[i], 'A' + k,
			           m->atom && m->atom->u.atom.id ? m->atom->u.atom.id : "?");
			c->failed = 1;
			return 0;
		}
		reps[i] = ext[i] / (pq[i] * w[i]);
	}

	/* lane l = idx % threads of wave idx / threads, waves WM x WN (wm fastest) */
	IrType i32 = ir_ty(IR_I32);
	IrRef id = cg_to_type(c, idx, i32);
	IrRef lane = ir_b_bin(&c->b, IR_OP_REM, id, ir_b_const(&c->b, i32, m->threads));
	IrRef wave = ir_b_bin(&c->b, IR_OP_DIV, id, ir_b_const(&c->b, i32, m->threads));
	IrRef wm = ir_b_bin(&c->b, IR_OP_REM, wave, ir_b_const(&c->b, i32, m->waves[0]));
	IrRef wn = ir_b_bin(&c->b, IR_OP_REM, ir_b_bin(&c->b, IR_OP_DIV, wave, ir_b_const(&c->b, i32, m->waves[0])),
	                    ir_b_const(&c->b, i32, m->waves[1]));
	if (dup)   /* the waves holding the same values: A's differ in wn, B's in wm */
		*dup = k == 0 ? wn : k == 1 ? wm : 0;
	return cg_view_mma_part(c, t, tvl ? tvl : cg_lay_of_value(c, m->lay[k]), pq, w, lane, k == 1 ? wn : wm,
	                        k == 2 ? wn : ir_b_const(&c->b, i32, 0), sp);
}

static IrRef
zeros(Cg *c, IrScalar el, int64_t n)
{
	IrRef z = ir_ty_is_float(ir_ty(el)) ? ir_b_fconst(&c->b, ir_ty(el), 0) : ir_b_const(&c->b, ir_ty(el), 0);
	return n > 1 ? ir_b_splat(&c->b, ir_vec(el, (unsigned)n), z) : z;
}

/* lanes [from, from + n) of v (a vector) as a new vector */
static IrRef
sub(Cg *c, IrRef v, unsigned from, unsigned n, IrScalar el)
{
	if (ir_scalar_packed(el))   /* fp4/fp6/bf6: a whole packed piece */
		return ir_b_extract_vec(&c->b, v, from, n);
	IrRef x = ir_b_splat(&c->b, ir_vec(el, n), ir_b_extract(&c->b, v, from));
	for (unsigned j = 1; j < n; j++)
		x = ir_b_insert(&c->b, x, ir_b_extract(&c->b, v, from + j), j);
	return x;
}

static IrRef
put(Cg *c, IrRef v, IrRef x, unsigned from, unsigned n)
{
	for (unsigned j = 0; j < n; j++)
		v = ir_b_insert(&c->b, v, ir_b_extract(&c->b, x, j), from + j);
	return v;
}

static Node *
named_arg(Node *n, const char *name)
{
	for (int i = 0; i < n->u.call.named.n; i++)
		if (!strcmp(n->u.call.named.v[i]->name, name))
			return n->u.call.named.v[i]->value;
	return NULL;
}

static int64_t
isqrt(int64_t x)
{
	int64_t r = 0;
	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/* A scale operand: one i32 word for every atom, or a fragment of one word per
 * atom of the operand (A: index rm + RM*rk, B: rn + RN*rk, the order of the
 * operand fragments' repeats): each atom of a wave then has its own rows' scales. */
static int
scale_fits(Cg *c, IrRef s, int64_t n)
{
	unsigned l = c->f->inst[s].ty.lanes;
	return l == 1 || l == n;
}

static IrRef
scale_of(Cg *c, IrRef s, int64_t i)
{
	if (c->f->inst[s].ty.lanes == 1)
		return s;
	return ir_b_extract(&c->b, s, (unsigned)i);
}

/* gemm(mma, A, B, C): C's variable gets the new accumulator */
static IrRef
gemm(Cg *c, Node *n)
{
	Mma m;
	Tv ta, tb, tc;
	Node *cn = n->u.call.args.v[3];
	IrRef a, b, acc, sa = 0, sb = 0;
	IrScalar ea, eb, ec;

	if (mma_of(c, n->u.call.args.v[0], &m) || tv_of(c, &m, 0, &ta, n->span) || tv_of(c, &m, 1, &tb, n->span) ||
	    tv_of(c, &m, 2, &tc, n->span))
		return 0;
	if (cn->kind != E_NAME || !cn->u.name.sym || !cg_lookup(c, cn->u.name.sym)) {
		cg_unsupported(c, cn->span, "a gemm accumulator that is not a fragment variable");
		return 0;
	}
	if (!cg_scalar_of(m.ea, &ea) || !cg_scalar_of(m.eb, &eb) || !cg_scalar_of(m.ec, &ec)) {
		cg_unsupported(c, n->span, "this MMA atom's element types");
		return 0;
	}
	a = cg_value_of(c, cg_expr(c, n->u.call.args.v[1]), n->u.call.args.v[1]->span);
	b = a ? cg_value_of(c, cg_expr(c, n->u.call.args.v[2]), n->u.call.args.v[2]->span) : 0;
	acc = b ? cg_lookup(c, cn->u.name.sym) : 0;
	if (!acc)
		return 0;
	if (m.scaled) {
		Node *xa = named_arg(n, "scale_a"), *xb = named_arg(n, "scale_b");
		IrType i32 = ir_ty(IR_I32);
		/* 127 = 2^0 in E8M0 in every byte: unit scales (amdgpu-facts 3.4) */
		sa = xa ? cg_value_of(c, cg_expr(c, xa), xa->span) : ir_b_const(&c->b, i32, 0x7f7f7f7f);
		sb = sa && xb ? cg_value_of(c, cg_expr(c, xb), xb->span) : sa ? ir_b_const(&c->b, i32, 0x7f7f7f7f) : 0;
		if (!sb)
			return 0;
		sa = cg_to_type(c, sa, i32);
		sb = cg_to_type(c, sb, i32);
	} else if (named_arg(n, "scale_a") || named_arg(n, "scale_b")) {
		cg_unsupported(c, n->span, "scales on an MMA atom without scale operands");
		return 0;
	}
	int64_t na = c->f->inst[a].ty.lanes, nb = c->f->inst[b].ty.lanes, nc = c->f->inst[acc].ty.lanes;
	if ((IrScalar)c->f->inst[a].ty.kind != ea || (IrScalar)c->f->inst[b].ty.kind != eb ||
	    (IrScalar)c->f->inst[acc].ty.kind != ec || na % ta.V || nb % tb.V || nc % tc.V) {
		cg_unsupported(c, n->span, "gemm operands that are not fragments of the MMA's operands");
		return 0;
	}
	int64_t xa = na / ta.V, xb = nb / tb.V, xc = nc / tc.V;   /* RM*RK, RN*RK, RM*RN */
	int64_t rk = isqrt(xa * xb / xc), rm = rk ? xa / rk : 0, rn = rk ? xb / rk : 0;
	if (!rk || rm * rk != xa || rn * rk != xb || rm * rn != xc) {
		cg_unsupported(c, n->span, "gemm fragments whose repeat counts do not agree");
		return 0;
	}
	if (m.scaled && (!scale_fits(c, sa, rm * rk) || !scale_fits(c, sb, rn * rk))) {
		cg_unsupported(c, n->span, "scale fragments whose length is not 1 or the atoms' RM*RK (A) / RN*RK (B)");
		return 0;
	}
	c->b.loc = cg_loc_of(c, n->span);
	for (int64_t k = 0; k < rk; k++)
		for (int64_t i = 0; i < rm; i++)
			for (int64_t j = 0; j < rn; j++) {
				unsigned oa = (unsigned)(ta.V * (i + rm * k)), ob = (unsigned)(tb.V * (j + rn * k));
				unsigned oc = (unsigned)(tc.V * (i + rm * j));
				IrRef va = na == ta.V ? a : sub(c, a, oa, (unsigned)ta.V, ea);
				IrRef vb = nb == tb.V ? b : sub(c, b, ob, (unsigned)tb.V, eb);
				IrRef vc = nc == tc.V ? acc : sub(c, acc, oc, (unsigned)tc.V, ec);
				IrRef qa = m.scaled ? scale_of(c, sa, i + rm * k) : 0;
				IrRef qb = m.scaled ? scale_of(c, sb, j + rn * k) : 0;
				IrRef d = ir_b_mma(&c->b, m.intrinsic, va, vb, vc, qa, qb, m.fa, m.fb);
				acc = nc == tc.V ? d : put(c, acc, d, oc, (unsigned)tc.V);
			}
	cg_bind(c, cn->u.name.sym, acc);
	return (IrRef)-1;
}

Symbol *
cg_mma_assigned(Node *e)
{
	if (e && e->kind == E_CALL && e->u.call.callee->kind == E_NAME && e->u.call.args.n == 4 &&
	    cg_builtin(e->u.call.callee) == B_GEMM && e->u.call.args.v[3]->kind == E_NAME)
		return e->u.call.args.v[3]->u.name.sym;
	if (e && e->kind == E_CALL && e->u.call.callee->kind == E_NAME && e->u.call.args.n == 2 &&
	    cg_builtin(e->u.call.callee) == B_FILL && e->u.call.args.v[0]->kind == E_NAME)
		return e->u.call.args.v[0]->u.name.sym;
	return NULL;
}

/* fill(frag, x): the fragment variable becomes x in every element */
static IrRef
fill(Cg *c, Node *n)
{
	Node *fn = n->u.call.args.v[0];
	IrRef old = fn->kind == E_NAME && fn->u.name.sym ? cg_lookup(c, fn->u.name.sym) : 0, x;
	if (!old || cg_is_tensor_val(c, old)) {
		cg_unsupported(c, fn->span, "fill of something other than a register fragment variable");
		return 0;
	}
	if (!(x = cg_value_of(c, cg_expr(c, n->u.call.args.v[1]), n->u.call.args.v[1]->span)))
		return 0;
	IrType t = c->f->inst[old].ty;
	if (ir_scalar_packed((IrScalar)t.kind)) {
		cg_unsupported(c, n->span, "fill of an fp4/fp6/bf6 fragment");
		return 0;
	}
	x = cg_to_type(c, x, ir_ty((IrScalar)t.kind));
	cg_bind(c, fn->u.name.sym, t.lanes > 1 ? ir_b_splat(&c->b, t, x) : x);
	return (IrRef)-1;
}

IrRef
cg_mma_call(Cg *c, Node *n, int *handled)
{
	Node *cal = n->u.call.callee;
	*handled = 0;
	if (cal->kind == E_NAME && cg_builtin(cal) == B_GEMM && n->u.call.args.n == 4) {
		*handled = 1;
		return gemm(c, n);
	}
	if (cal->kind == E_NAME && cg_builtin(cal) == B_FILL && n->u.call.args.n == 2) {
		*handled = 1;
		return fill(c, n);
	}
	if (cal->kind != E_MEMBER || n->u.call.args.n < 1)
		return 0;
	int mid = cal->u.member.method;
	int part = mid == M_PARTITION_A || mid == M_PARTITION_B || mid == M_PARTITION_C;
	int frag = mid == M_FRAGMENT_A || mid == M_FRAGMENT_B || mid == M_FRAGMENT_C;
	if (!part && !frag)
		return 0;
	*handled = 1;
	Node *sl = cg_lazy_of(c, cal->u.member.base);
	if (!sl)
		sl = cal->u.member.base;
	if (sl->kind != E_CALL || sl->u.call.callee->kind != E_MEMBER || sl->u.call.callee->u.member.method != M_SLICE ||
	    sl->u.call.args.n != 1) {
		cg_unsupported(c, n->span, "an MMA partition of something other than mma.slice(thread)");
		return 0;
	}
	Mma m;
	int k = methods[mid].operand - 'A';
	int64_t reps[2];
	if (mma_of(c, sl, &m))
		return 0;
	IrRef t = cg_expr(c, n->u.call.args.v[0]);
	IrRef idx = t ? cg_expr(c, sl->u.call.args.v[0]) : 0;
	if (!idx)
		return 0;
	IrRef v = partition(c, &m, k, t, idx, n->span, reps, NULL, NULL);
	if (!v || part)
		return v;
	/* a zeroed register fragment of the partition's size */
	IrScalar el;
	int64_t sz = cg_view_size(c, v);
	if (!n->type || !cg_scalar_of(n->type->scalar, &el) || sz <= 0) {
		cg_unsupported(c, n->span, "a fragment of this element type or size");
		return 0;
	}
	if (cg_frag_limit(c, n->span, "this fragment", sz))
		return 0;
	return zeros(c, el, sz);
}

/* ---- copies laid out as an MMA operand: tiled_copy(atom, of=mma.X) ----
 *
 * As CuTe's make_tiled_copy_A/B/C: the copy's thread-value layout is the
 * tiled MMA's for operand X (all its waves), so thr.partition_S/D(T) is
 * exactly thr_mma.partition_X(T), of shape (V, RP, RQ), and a fragment made
 * by thr_mma.fragment_X is already in the copy's value order: retile_S/D is
 * the identity on it. The atom moves `bits` per access out of each lane's V
 * values; CuTe requires its values to divide the value mode, and the memory
 * side to be contiguous for each access. Both are checked here against the
 * run of the value mode alone (never across repeats), so a width that does
 * not fit is a located error, not a narrower access. */

/* the MMA and the operand (0 A, 1 B, 2 C) that `of=` names */
static int
operand_of(Cg *c, Node *of, Mma *m, int *k)
{
	const char *id = of->kind == E_MEMBER ? of->u.member.id : NULL;
	if (!id || id[0] < 'A' || id[0] > 'C' || id[1]) {
		cg_unsupported(c, of->span, "of= other than mma.A, mma.B or mma.C");
		return -1;
	}
	*k = id[0] - 'A';
	return mma_of(c, of->u.member.base, m);
}

static const char *
atom_name(const Mma *m)
{
	return m->atom && m->atom->u.atom.id ? m->atom->u.atom.id : "?";
}

/* remember that view v is a partition laid out as an operand held alike by
 * n waves, this thread's index among them being idx (cg_mma_dups) */
static int
note_dups(Cg *c, IrRef v, int64_t n, IrRef idx)
{
	if (c->ndup_part == c->capdup_part) {
		int nc = c->capdup_part ? 2 * c->capdup_part : 16;
		struct CgDupPart *na = ir_alloc(c->m, (size_t)nc * sizeof *na);
		if (c->ndup_part)
			memcpy(na, c->dup_part, (size_t)c->ndup_part * sizeof *na);
		c->dup_part = na;
		c->capdup_part = nc;
	}
	c->dup_part[c->ndup_part++] = (struct CgDupPart){ v, idx, (int)n };
	return 0;
}

int
cg_mma_dups(Cg *c, IrRef v, IrRef *idx)
{
	for (;;) {
		for (int i = c->ndup_part - 1; i >= 0; i--)
			if (c->dup_part[i].view == v) {
				*idx = c->dup_part[i].idx;
				return c->dup_part[i].n;
			}
		if (c->f->inst[v].op != IR_OP_TVIEW)
			return 0;
		v = c->f->inst[v].ops[0];
	}
}

/* The byte alignment a transposed read needs of every lane's address, 0 if
 * none is known: ds_read_b96_tr_b6 reads 128-bit aligned addresses only
 * (rocRoller pads each 12-byte row to 16 bytes for it; docs/codegen.md
 * "Transposed operand reads"). LLVM does not check it: llc-22 emits
 * ds_read_b96_tr_b6 at offset:4 and offset:12. */
static int
tr_align(const CgCopyAtom *a)
{
	return a->kind == CG_COPY_DS_TR && a->elem_bits == 6 ? 16 : 0;
}

/* every lane's read of partition stv of LDS tensor t starts tr_align(a) bytes
 * aligned: its element offset a multiple of g = 64 for fp6 (16 bytes = 128
 * bits, and 6o = 0 mod 128 iff o = 0 mod 64; the LDS buffer itself starts
 * 16-byte aligned, ir_pass_lds_alloc). 1 if shown, else 0 after a located error. */
static int
tr_aligned(Cg *c, Node *n, const CgCopyAtom *a, const Mma *m, int k, const Tv *tv, IrRef t, const lay_val *stv)
{
	int64_t g = 8 * tr_align(a), bad[3] = { 0, 0, 0 };
	for (int64_t x = a->elem_bits; x % 2 == 0; x /= 2)
		g /= 2;
	int64_t pq[2] = { tv->P, tv->Q }, w[2] = { k == 1 ? m->waves[1] : m->waves[0], k == 2 ? m->waves[1] : 1 };
	int64_t E = cg_lay_known(lay_size(&c->lc, lay_get(&c->lc, lay_shape(&c->lc, cg_lay_of_value(c, a->dst_tv)), 1)));
	IrTensor *R = cg_tensor_of(c, ir_tensor_root(c->f, t));
	const char *why = NULL;
	char buf[200];
	int ok = E > 0 ? cg_view_mma_aligned(c, t, stv, pq, w, E, g, bad) : -1;
	int64_t off = cg_view_residue(c, t, g);
	if (ok < 0)
		why = "the tensor's layout is not static";
	else if (!ok && bad[0] >= 0)
		why = buf, snprintf(buf, sizeof buf, "lane %lld's read of values %lld.. starts at element %lld",
		                    (long long)bad[0], (long long)bad[1], (long long)bad[2]);
	else if (!ok)
		why = buf, snprintf(buf, sizeof buf, "repeat %lld of the operand's tile starts at element %lld",
		                    (long long)bad[1], (long long)bad[2]);
	else if (R->layout.sw.b && (INT64_C(1) << R->layout.sw.m) % g)
		why = buf, snprintf(buf, sizeof buf, "the swizzle of '%s' moves runs of %lld element(s)",
		                    R->name ? R->name : "?", (long long)(INT64_C(1) << R->layout.sw.m));
	else if (off < 0)
		why = "the view's offset in its buffer is not known to be a multiple of it";
	else if (off > 0)
		why = buf, snprintf(buf, sizeof buf, "the view starts %lld element(s) past a multiple of it", (long long)off);
	if (!why)
		return 1;
	if (!c->failed)
		diag_error(c->d, n->span, "copy atom '%s' reads %d-byte aligned addresses only, i.e. %u-bit elements "
		           "at offsets that are multiples of %lld, and here %s (pad the LDS layout: e.g. each run of "
		           "16 elements at a multiple of %lld)", a->name, tr_align(a), a->elem_bits, (long long)g, why,
		           (long long)g);
	c->failed = 1;
	return 0;
}

IrRef
cg_mma_copy_partition(Cg *c, Node *n, Node *of, const CgCopyAtom *a, IrRef t, IrRef idx, int is_src)
{
	Mma m;
	Tv tv;
	int k;
	int64_t reps[2];
	char why[200];

	if (operand_of(c, of, &m, &k) || tv_of(c, &m, k, &tv, n->span))
		return 0;
	const lay_val *stv = NULL;
	if ((a->kind == CG_COPY_DS_TR || a->kind == CG_COPY_GLOBAL_TR) && is_src) {
		/* the lanes exchange values: each reads where the atom's src layout says */
		IrScalar te = cg_tensor_of(c, t)->elem;
		if (a->elem_bits && ir_scalar_bits(te) != a->elem_bits) {
			if (!c->failed)
				diag_error(c->d, n->span, "copy atom '%s' exchanges %u-bit elements across lanes, and this "
				           "tensor's are %s", a->name, a->elem_bits, ir_scalar_name(te));
			c->failed = 1;
			return 0;
		}
		if (!a->src_tv || !a->dst_tv) {
			if (!c->failed)
				diag_error(c->d, n->span, "copy atom '%s' exchanges data across lanes but declares no "
				           "src_layout and dst_layout, which a copy laid out as an MMA operand needs", a->name);
			c->failed = 1;
			return 0;
		}
		if (!(stv = cg_lay_copy_src_tv(c, cg_lay_of_value(c, m.lay[k]), cg_lay_of_value(c, a->src_tv),
		                               cg_lay_of_value(c, a->dst_tv), a->name, n->span)))
			return 0;
	}
	IrRef dup = 0;
	IrRef v = partition(c, &m, k, t, idx, n->span, reps, stv, &dup);
	if (!v || note_dups(c, v, k == 0 ? m.waves[1] : k == 1 ? m.waves[0] : 1, dup))
		return 0;
	IrTensor *V = cg_tensor_of(c, v), *R = cg_tensor_of(c, ir_tensor_root(c->f, v));
	const lay_val *vl = cg_lay_of(c, v);
	int64_t run = vl ? cg_run(c, v, lay_layout(&c->lc, lay_get(&c->lc, vl->u.l.shape, 0),
	                                          lay_get(&c->lc, vl->u.l.stride, 0))) : 1;
	/* an identity tensor (coordinates for predicates) is partitioned, never copied by the atom */
	if (R->space != IR_SPACE_IDENTITY &&
	    !cg_copy_check(a, V->elem, (unsigned)tv.V, run, (int)R->space, is_src, why, sizeof why)) {
		if (!c->failed)
			diag_error(c->d, n->span, "copy atom '%s' cannot copy operand %c of '%s' here (%lld values per "
			           "lane, contiguous in runs of %lld in this tensor): %s", a->name, 'A' + k,
			           atom_name(&m), (long long)tv.V, (long long)run, why);
		c->failed = 1;
		return 0;
	}
	if (stv && R->space == IR_SPACE_LDS && tr_align(a) && !tr_aligned(c, n, a, &m, k, &tv, t, stv))
		return 0;
	return v;
}

IrRef
cg_mma_retile(Cg *c, Node *n, Node *of, Node *origin, IrRef v)
{
	Mma m, mo;
	Tv tv;
	int k;

	if (operand_of(c, of, &m, &k) || tv_of(c, &m, k, &tv, n->span))
		return 0;
	if (cg_is_tensor_val(c, v)) {
		cg_unsupported(c, n->span, "retiling a tensor view (retile_S/D take register fragments)");
		return 0;
	}
	if (origin) {
		Node *sl = cg_lazy_of(c, origin->u.call.callee->u.member.base);
		int ko = methods[origin->u.call.callee->u.member.method].operand - 'A';
		if (mma_of(c, sl ? sl : origin->u.call.callee->u.member.base, &mo))
			return 0;
		if (mo.atom != m.atom || mo.waves[0] != m.waves[0] || mo.waves[1] != m.waves[1] || ko != k) {
			if (!c->failed)
				diag_error(c->d, n->span, "this fragment is operand %c of '%s' with %lldx%lld waves, but the "
				           "copy is laid out as operand %c of '%s' with %lldx%lld waves", 'A' + ko,
				           atom_name(&mo), (long long)mo.waves[0], (long long)mo.waves[1], 'A' + k,
				           atom_name(&m), (long long)m.waves[0], (long long)m.waves[1]);
			c->failed = 1;
			return 0;
		}
	}
	if (c->f->inst[v].ty.lanes % tv.V) {
		if (!c->failed)
			diag_error(c->d, n->span, "this fragment has %u values, which is not a multiple of the %lld values "
			           "per lane of operand %c of '%s'", c->f->inst[v].ty.lanes, (long long)tv.V, 'A' + k,
			           atom_name(&m));
		c->failed = 1;
		return 0;
	}
	return v;
}
