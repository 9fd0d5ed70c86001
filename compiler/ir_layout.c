/* ir_layout.c — the lower-layout pass: tload/tstore by coordinate become
 * ld/st by element offset, computed with integer ops from the tensor's CuTe
 * layout. Static parts fold as they are built (a fully static coordinate
 * gives one constant); run-time parts become plain arithmetic that `hoist`
 * later moves out of loops. It also picks how each global tensor is
 * addressed (buffer descriptor or 64-bit global), refusing a buffer that
 * could wrap.
 *
 * Offsets for a coordinate c of a mode with shape S and stride D:
 *   leaf:   c * D
 *   tuple:  split c colexicographically (CuTe idx2crd): c_i = (c / prod(S_<i)) % S_i,
 *           the last sub-mode taking the quotient unreduced; sum the sub-offsets.
 * A swizzle Swizzle<B,M,S> then maps o to o ^ ((o & (((1<<B)-1) << (M+S))) >> S).
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "target/target.h"

/* New instructions for the access being lowered go right before it: they are
 * made in order (so their indices form one range per access) and placed when
 * the pass rebuilds each region, once (place_new). */
typedef struct {
	IrFunc *f;
	IrRegion rg;
	IrLoc loc;
	IrType ity;       /* index type: i32 or i64 */
} Em;

static IrRef
put(Em *e, IrOp op, IrType ty, uint32_t n, const IrRef *ops)
{
	return ir_new_in(e->f, e->rg, op, ty, n, ops, e->loc);
}

static IrRef
kconst(Em *e, int64_t v)
{
	IrRef r = put(e, IR_OP_CONST, e->ity, 0, NULL);
	e->f->inst[r].imm[0] = v;
	return r;
}

static IrRef
bin(Em *e, IrOp op, IrRef a, IrRef b)
{
	int64_t x, y, r;
	int ca = ir_const_value(e->f, a, &x), cb = ir_const_value(e->f, b, &y);
	IrRef ops[2] = { a, b };

	if (ca && cb && ir_fold_binary(op, e->ity, x, y, &r))
		return kconst(e, r);
	switch (op) {
	case IR_OP_ADD: case IR_OP_XOR: case IR_OP_OR:
		if (cb && y == 0) return a;
		if (ca && x == 0) return b;
		break;
	case IR_OP_MUL:
		if ((cb && y == 0) || (ca && x == 0)) return kconst(e, 0);
		if (cb && y == 1) return a;
		if (ca && x == 1) return b;
		break;
	case IR_OP_DIV: case IR_OP_SHR:
		if (cb && y == (op == IR_OP_DIV)) return a;
		if (ca && x == 0) return a;
		break;
	case IR_OP_REM:
		if (cb && y == 1) return kconst(e, 0);
		if (ca && x == 0) return a;
		break;
	case IR_OP_AND:
		if ((cb && y == 0) || (ca && x == 0)) return kconst(e, 0);
		break;
	default:
		break;
	}
	return put(e, op, e->ity, 2, ops);
}

/* value r as the index type */
static IrRef
as_index(Em *e, IrRef r)
{
	IrInst *I = &e->f->inst[r];
	int64_t v;

	if (ir_ty_eq(I->ty, e->ity))
		return r;
	if (ir_const_value(e->f, r, &v))
		return kconst(e, v);
	return put(e, IR_OP_CVT, e->ity, 1, &r);
}

static IrRef
leaf(Em *e, const IrTuple *t)
{
	return t->dyn ? as_index(e, t->dyn) : kconst(e, t->value);
}

static IrRef
size_of(Em *e, const IrTuple *t)
{
	IrRef p;

	if (!t->n)
		return leaf(e, t);
	p = kconst(e, 1);
	for (int i = 0; i < t->n; i++)
		p = bin(e, IR_OP_MUL, p, size_of(e, t->kid[i]));
	return p;
}

static IrRef
eval(Em *e, const IrTuple *s, const IrTuple *d, IrRef c)
{
	IrRef o;

	if (!s->n)
		return bin(e, IR_OP_MUL, c, leaf(e, d));
	o = kconst(e, 0);
	for (int i = 0; i < s->n; i++) {
		IrRef ci = c;
		if (i + 1 < s->n) {
			IrRef sz = size_of(e, s->kid[i]);
			ci = bin(e, IR_OP_REM, c, sz);
			c = bin(e, IR_OP_DIV, c, sz);
		}
		o = bin(e, IR_OP_ADD, o, eval(e, s->kid[i], d->kid[i], ci));
	}
	return o;
}

/* 1 when x is a multiple of 2^p: such a constant, a product with or a left
 * shift into one, a sum of them */
static int
multiple_of(Em *e, IrRef x, int p)
{
	IrInst *I = &e->f->inst[x];
	int64_t v;

	if (ir_const_value(e->f, x, &v))
		return (v & (((int64_t)1 << p) - 1)) == 0;
	switch (I->op) {
	case IR_OP_MUL:
		return multiple_of(e, I->ops[0], p) || multiple_of(e, I->ops[1], p);
	case IR_OP_SHL:
		return (ir_const_value(e->f, I->ops[1], &v) && v >= p) || multiple_of(e, I->ops[0], p);
	case IR_OP_ADD:
		return multiple_of(e, I->ops[0], p) && multiple_of(e, I->ops[1], p);
	default:
		return 0;
	}
}

/* the terms of sum o: those that are multiples of 2^p added to *hi, or to
 * *hic for constants (the part of a constant above bit p too), the rest to *lo */
static void
split_terms(Em *e, IrRef o, int p, IrRef *hi, int64_t *hic, IrRef *lo)
{
	IrInst *I = &e->f->inst[o];
	int64_t v, low = ((int64_t)1 << p) - 1;

	if (ir_const_value(e->f, o, &v)) {
		*hic += v & ~low;
		*lo = bin(e, IR_OP_ADD, *lo, kconst(e, v & low));
	} else if (multiple_of(e, o, p)) {
		*hi = bin(e, IR_OP_ADD, *hi, o);
	} else if (I->op == IR_OP_ADD) {
		IrRef a = I->ops[0], b = I->ops[1];
		split_terms(e, a, p, hi, hic, lo);
		split_terms(e, b, p, hi, hic, lo);
	} else {
		*lo = bin(e, IR_OP_ADD, *lo, o);
	}
}

/* Swizzle<B,M,S> of offset o. It reads and writes only the low P = M+S+B
 * bits, so swizzle(h + l) = h + swizzle(l) for any multiple h of 2^P (two's
 * complement: adding h changes no low bit and takes no carry from them): the
 * terms of o that are multiples of 2^P (a pipeline's stage, the rows of one
 * MFMA fragment after another) are added after the swizzle, which leaves the
 * swizzled part loop-invariant and shared, the rest an immediate offset. */
static IrRef
swizzle(Em *e, IrSwizzle sw, IrRef o)
{
	int64_t mask, hic = 0;
	IrRef hi, lo;

	if (!sw.b)
		return o;
	mask = (((int64_t)1 << sw.b) - 1) << (sw.m + sw.s);
	hi = lo = kconst(e, 0);
	split_terms(e, o, sw.m + sw.s + sw.b, &hi, &hic, &lo);
	lo = bin(e, IR_OP_XOR, lo, bin(e, IR_OP_SHR, bin(e, IR_OP_AND, lo, kconst(e, mask)), kconst(e, sw.s)));
	/* the constant last, so that it can become the instruction's offset */
	return bin(e, IR_OP_ADD, bin(e, IR_OP_ADD, lo, hi), kconst(e, hic));
}

/* Byte span of a global tensor if known (static layout, or a stated bound), else 0. */
static uint64_t
span_bytes(const IrTensor *T)
{
	int64_t c = ir_layout_cosize(&T->layout);
	if (c >= 0)
		return ir_scalar_bytes(T->elem, (uint64_t)c);
	return T->span_bound;
}

static int
decide_addressing(IrFunc *f, IrRef r, IrDiag *d)
{
	IrTensor *T = &f->tensor[f->inst[r].aux];
	uint64_t span = span_bytes(T);
	int fits = span != 0 && span <= UINT64_C(0xFFFFFFFF);
	const char *nm = T->name ? T->name : "?";

	switch (T->addr) {
	case IR_ADDR_AUTO:
		T->addr = fits ? IR_ADDR_BUFFER : IR_ADDR_GLOBAL64;
		break;
	case IR_ADDR_BUFFER:
		if (!fits) {
			if (span)
				ir_error(d, f->inst[r].loc,
				         "tensor '%s' spans %llu bytes: a buffer descriptor's 32-bit offsets "
				         "would wrap past 4 GiB; use global addressing or tile the tensor",
				         nm, (unsigned long long)span);
			else
				ir_error(d, f->inst[r].loc,
				         "tensor '%s' has a run-time layout whose byte span may exceed 4 GiB: "
				         "a buffer descriptor's 32-bit offsets could wrap; state a bound "
				         "(e.g. requires on its shape) or use global addressing", nm);
			return 1;
		}
		break;
	case IR_ADDR_GLOBAL64:
		break;
	}
	return 0;
}

/* Every region with the instructions made for access r (first[r] up to
 * first[r + 1]) placed before r; n is the instruction count before the pass. */
static void
place_new(IrFunc *f, uint32_t n, const IrRef *first)
{
	for (uint32_t g = 1; g < f->nreg; g++) {
		IrRegionData *R = &f->reg[g];
		uint32_t total = R->n, k = 0;
		IrRef *v;

		for (uint32_t i = 0; i < R->n; i++)
			if (R->inst[i] < n)
				total += first[R->inst[i] + 1] - first[R->inst[i]];
		if (total == R->n)
			continue;
		v = ir_alloc(f->mod, sizeof *v * total);
		for (uint32_t i = 0; i < R->n; i++) {
			IrRef r = R->inst[i];
			if (r < n)
				for (IrRef x = first[r]; x < first[r + 1]; x++)
					v[k++] = x;
			v[k++] = r;
		}
		R->inst = v;
		R->n = R->cap = total;
	}
}

/* the root offset of element 0 of view v: views' offsets, then the root's swizzle */
static IrRef
view_origin(Em *e, IrRef v)
{
	IrFunc *f = e->f;
	IrTensor *R = &f->tensor[f->inst[ir_tensor_root(f, v)].aux];
	IrRef off = kconst(e, 0);
	for (; f->inst[v].op == IR_OP_TVIEW; v = f->inst[v].ops[0])
		off = bin(e, IR_OP_ADD, off, as_index(e, f->inst[v].ops[1]));
	return swizzle(e, R->layout.sw, off);
}

/* lds_dma src, dst -> lds_dma src_root, src_off, lds_root, lds_off;
 * ld_tr src -> ld_tr lds_root, lds_off */
static void
lower_dma(IrFunc *f, IrRef r)
{
	IrRef ops[4], src = f->inst[r].ops[0], dst = f->inst[r].nops > 1 ? f->inst[r].ops[1] : 0;
	IrTensor *S = &f->tensor[f->inst[ir_tensor_root(f, src)].aux];
	Em e;

	e.f = f;
	e.rg = f->inst[r].parent;
	e.loc = f->inst[r].loc;
	e.ity = ir_ty(S->addr == IR_ADDR_GLOBAL64 ? IR_I64 : IR_I32);
	ops[0] = ir_tensor_root(f, src);
	ops[1] = view_origin(&e, src);
	if (dst) {
		e.ity = ir_ty(IR_I32);
		ops[2] = ir_tensor_root(f, dst);
		ops[3] = view_origin(&e, dst);
	}
	f->inst[r].ops = ir_alloc(f->mod, sizeof ops);
	memcpy(f->inst[r].ops, ops, sizeof ops);
	f->inst[r].nops = dst ? 4 : 2;
}

int
ir_pass_lower_layout(IrFunc *f, const TgtDesc *t, IrDiag *d)
{
	uint32_t n = f->ninst;   /* new instructions are index math, not visited */
	IrRef *made = calloc(n + 1, sizeof *made);   /* made[r]: first instruction made for r */

	if (!made)
		IR_ICE("out of memory");
	for (IrRef r = 1; r < n; r++)
		if (f->inst[r].op == IR_OP_TGLOBAL && decide_addressing(f, r, d)) {
			free(made);
			return 1;
		}
	for (IrRef r = 1; r < n; r++) {
		IrInst *I = &f->inst[r];
		IrTensor *T, *R;
		uint32_t first, nc;
		IrRef off, newops[3], root;
		Em e;

		made[r] = f->ninst;
		if ((I->op == IR_OP_LDSDMA && I->nops == 2) || (I->op == IR_OP_LDTR && I->nops == 1)) {
			lower_dma(f, r);
			continue;
		}
		if (I->op != IR_OP_TLOAD && I->op != IR_OP_TSTORE && I->op != IR_OP_ATOMIC)
			continue;
		first = I->op == IR_OP_ATOMIC ? ir_atomic_first(I) : I->op == IR_OP_TSTORE ? 2 : 1;
		nc = I->nops - first;
		T = &f->tensor[f->inst[I->ops[0]].aux];
		root = ir_tensor_root(f, I->ops[0]);
		R = &f->tensor[f->inst[root].aux];
		e.f = f;
		e.rg = I->parent;
		e.loc = I->loc;
		e.ity = ir_ty((R->space == IR_SPACE_GLOBAL && R->addr == IR_ADDR_GLOBAL64) ||
		              (R->space == IR_SPACE_IDENTITY && R->elem == IR_I64) ? IR_I64 : IR_I32);   /* rank-2 identity: packed coordinates */
		if (nc == 1) {
			off = eval(&e, T->layout.shape, T->layout.stride, as_index(&e, f->inst[r].ops[first]));
		} else {
			off = kconst(&e, 0);
			for (uint32_t k = 0; k < nc; k++) {
				IrRef c = as_index(&e, f->inst[r].ops[first + k]);
				off = bin(&e, IR_OP_ADD, off,
				          eval(&e, T->layout.shape->kid[k], T->layout.stride->kid[k], c));
			}
		}
		/* views add their offsets on the way to the root */
		for (IrRef v = f->inst[r].ops[0]; f->inst[v].op == IR_OP_TVIEW; v = f->inst[v].ops[0])
			off = bin(&e, IR_OP_ADD, off, as_index(&e, f->inst[v].ops[1]));
		off = swizzle(&e, R->layout.sw, off);
		I = &f->inst[r];             /* the array may have grown */
		if (R->space == IR_SPACE_IDENTITY) {
			/* a coordinate tensor: the element is the offset itself */
			IrRef zero = kconst(&e, 0);
			I = &f->inst[r];
			I->op = IR_OP_ADD;
			I->nops = 2;
			I->ops = ir_alloc(f->mod, sizeof newops);
			I->ops[0] = off;
			I->ops[1] = zero;
			continue;
		}
		newops[0] = root;
		if (I->op == IR_OP_ATOMIC) {
			/* root, value [, desired], offset */
			IrRef *ops = ir_alloc(f->mod, sizeof *ops * (first + 1));
			memcpy(ops, I->ops, sizeof *ops * first);
			ops[0] = root;
			ops[first] = off;
			I->ops = ops;
			I->nops = first + 1;
			continue;
		}
		if (I->op == IR_OP_TSTORE) {
			newops[1] = I->ops[1];
			newops[2] = off;
			I->op = IR_OP_ST;
			I->nops = 3;
		} else {
			newops[1] = off;
			I->op = IR_OP_LD;
			I->nops = 2;
		}
		I->ops = ir_alloc(f->mod, sizeof newops);
		memcpy(I->ops, newops, sizeof newops);
	}
	made[n] = f->ninst;
	place_new(f, n, made);
	free(made);
	(void)t;
	return 0;
}
