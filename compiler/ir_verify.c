/* ir_verify.c — checks the IR invariants listed in ir.h. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct {
	IrFunc *f;
	IrDiag *d;
	uint8_t *vis;     /* vis[r]: value r is visible here */
	int bad;
} V;

static void
err(V *v, IrRef r, const char *what)
{
	IrInst *I = &v->f->inst[r];
	v->bad++;
	ir_error(v->d, I->loc, "IR verifier: %s: %%%u (%s): %s", v->f->name, r,
	         ir_op_name((IrOp)I->op), what);
}

static int
visible(V *v, IrRef r)
{
	return r > 0 && r < v->f->ninst && v->f->inst[r].op < IR_OP_COUNT && v->vis[r];
}

static int
tuple_ok(V *v, const IrTuple *t)
{
	if (!t)
		return 0;
	if (!t->n) {
		if (t->dyn && (!visible(v, t->dyn) || !ir_ty_is_int(v->f->inst[t->dyn].ty)))
			return 0;
		return 1;
	}
	for (int i = 0; i < t->n; i++)
		if (!tuple_ok(v, t->kid[i]))
			return 0;
	return 1;
}

static IrType ty(V *v, IrRef r) { return v->f->inst[r].ty; }

static void check_region(V *v, IrRegion rg, int need_yield);

static void
check_yield(V *v, IrRegion rg, uint32_t n, const IrRef *tys_from, int from_ops)
{
	IrRegionData *R = &v->f->reg[rg];
	IrInst *Y;
	IrRef owner = R->owner;

	if (!R->n || (Y = &v->f->inst[R->inst[R->n - 1]])->op != IR_OP_YIELD) {
		err(v, owner, "region does not end with yield");
		return;
	}
	if (Y->nops != n) {
		err(v, R->inst[R->n - 1], "yield has the wrong number of values");
		return;
	}
	for (uint32_t i = 0; i < n && from_ops; i++)
		if (!ir_ty_eq(ty(v, Y->ops[i]), ty(v, tys_from[i])))
			err(v, R->inst[R->n - 1], "yielded value's type differs from the loop-carried value's");
}

static void
check_inst(V *v, IrRef r, uint32_t pos, uint32_t nreg)
{
	IrFunc *f = v->f;
	IrInst *I = &f->inst[r];
	IrOp op = (IrOp)I->op;
	int nb = -2;

	if (op >= IR_OP_COUNT) {
		err(v, r, "erased instruction still in a region");
		return;
	}
	for (uint32_t k = 0; k < I->nops; k++)
		if (!visible(v, I->ops[k])) {
			err(v, r, "operand not defined before use");
			return;
		}
	switch (op) {
#define X(e, s, n, fl) case IR_OP_##e: nb = n; break;
	IR_OPS(X)
#undef X
	default: break;
	}
	if (nb >= 0 && I->nops != (uint32_t)nb) {
		err(v, r, "wrong operand count");
		return;
	}
	switch (op) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
	case IR_OP_SDIV: case IR_OP_SREM: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR:
	case IR_OP_SHL: case IR_OP_SHR: case IR_OP_SAR: case IR_OP_MIN: case IR_OP_MAX:
		if (!ir_ty_is_int(I->ty) || !ir_ty_eq(ty(v, I->ops[0]), I->ty) || !ir_ty_eq(ty(v, I->ops[1]), I->ty))
			err(v, r, "integer operation on mismatched or non-integer types");
		break;
	case IR_OP_FADD: case IR_OP_FSUB: case IR_OP_FMUL: case IR_OP_FDIV: case IR_OP_FMIN:
	case IR_OP_FMAX: case IR_OP_FMA: case IR_OP_FNEG: case IR_OP_SQRT: case IR_OP_RSQRT:
	case IR_OP_EXP2: case IR_OP_FN:
		if (I->op == IR_OP_FN && (I->imm[0] < 0 || I->imm[0] >= IR_FN_COUNT))
			err(v, r, "fn names no float function");
		for (uint32_t k = 0; k < I->nops; k++)
			if (!ir_ty_eq(ty(v, I->ops[k]), I->ty))
				err(v, r, "float operation on mismatched types");
		if (I->op == IR_OP_FN && I->imm[0] >= IR_FN_POPCOUNT && I->imm[0] <= IR_FN_CTZ) {
			if (!ir_ty_is_int(I->ty) || I->ty.kind == IR_I1)
				err(v, r, "bit count of a non-integer type");
		} else if (!ir_ty_is_float(I->ty))
			err(v, r, "float operation on a non-float type");
		break;
	case IR_OP_CMP:
		if (!ir_ty_eq(ty(v, I->ops[0]), ty(v, I->ops[1])) || I->ty.kind != IR_I1)
			err(v, r, "comparison of mismatched types");
		break;
	case IR_OP_SELECT:
		if (ty(v, I->ops[0]).kind != IR_I1 || !ir_ty_eq(ty(v, I->ops[1]), I->ty) ||
		    !ir_ty_eq(ty(v, I->ops[2]), I->ty))
			err(v, r, "select: condition must be i1 and both values of the result type");
		break;
	case IR_OP_CVT:
		if (ty(v, I->ops[0]).lanes != I->ty.lanes ||
		    !(ir_ty_is_int(I->ty) || ir_ty_is_float(I->ty)))
			err(v, r, "conversion changes the lane count or targets a non-number");
		break;
	case IR_OP_CVTPK: {
		IrType a = ty(v, I->ops[0]), pk = ir_scalar_packed((IrScalar)a.kind) ? a : I->ty;
		IrType fl = ir_scalar_packed((IrScalar)a.kind) ? I->ty : a;
		unsigned want = I->imm[0] == 4 ? 4 : 6;
		if (a.lanes != I->ty.lanes || fl.kind != IR_F32 || !ir_scalar_packed((IrScalar)pk.kind) ||
		    ir_scalar_bits((IrScalar)pk.kind) != want || I->imm[0] < 2 || I->imm[0] > 4 ||
		    a.lanes % (want == 4 ? 2 : 32))
			err(v, r, "cvt_pk converts f32 vectors to packed fp4 (pairs) or fp6/bf6 (groups of 32) and back");
		break;
	}
	case IR_OP_SPLAT:
		if (ty(v, I->ops[0]).lanes != 1 || ty(v, I->ops[0]).kind != I->ty.kind)
			err(v, r, "splat of a non-scalar or of another element type");
		break;
	case IR_OP_EXTRACT: case IR_OP_INSERT:
		if (ty(v, I->ops[0]).lanes < 2)
			err(v, r, "extract/insert on a scalar");
		else if (I->imm[0] < 0 || I->imm[0] >= ty(v, I->ops[0]).lanes)
			err(v, r, "lane out of range");
		else {
			IrType part = op == IR_OP_EXTRACT ? I->ty : ty(v, I->ops[1]);
			if (part.kind != ty(v, I->ops[0]).kind ||
			    (part.lanes > 1 && (!ir_scalar_packed((IrScalar)part.kind) ||
			                        I->imm[0] + part.lanes > ty(v, I->ops[0]).lanes)))
				err(v, r, "extract/insert of another element type, or of a part that is not a packed "
				    "i4/i6 vector inside the vector");
		}
		break;
	case IR_OP_TGLOBAL:
		if (ty(v, I->ops[0]).kind != IR_PTR)
			err(v, r, "tensor.global needs a pointer argument");
		/* fallthrough */
	case IR_OP_TVIEW: case IR_OP_TIDENT:
		if (op == IR_OP_TVIEW && (!ir_is_tensor((IrOp)f->inst[I->ops[0]].op) ||
		                          !ir_ty_is_int(ty(v, I->ops[1])) || ty(v, I->ops[1]).lanes != 1)) {
			err(v, r, "tensor.view needs a tensor and a scalar integer offset");
			break;
		}
		/* fallthrough */
	case IR_OP_LDSALLOC:
		if (I->aux >= f->ntensor || !tuple_ok(v, f->tensor[I->aux].layout.shape) ||
		    !tuple_ok(v, f->tensor[I->aux].layout.stride))
			err(v, r, "tensor layout refers to an undefined value");
		else if (op == IR_OP_LDSALLOC && ir_layout_cosize(&f->tensor[I->aux].layout) < 0)
			err(v, r, "an LDS buffer needs a static layout");
		break;
	case IR_OP_TLOAD: case IR_OP_TSTORE: case IR_OP_LD: case IR_OP_ST: {
		IrInst *T;
		uint32_t first = (op == IR_OP_TSTORE || op == IR_OP_ST) ? 2 : 1;
		if (I->nops < first) {
			err(v, r, "missing operands");
			break;
		}
		T = &f->inst[I->ops[0]];
		if (!ir_is_tensor((IrOp)T->op)) {
			err(v, r, "first operand is not a tensor");
			break;
		}
		if (op == IR_OP_TLOAD || op == IR_OP_TSTORE) {
			int rank = ir_tuple_rank(f->tensor[T->aux].layout.shape);
			uint32_t nc = I->nops - first;
			if (nc != 1 && nc != (uint32_t)rank)
				err(v, r, "coordinate count differs from the tensor's rank");
		}
		for (uint32_t k = first; k < I->nops; k++)
			if (!ir_ty_is_int(ty(v, I->ops[k])) || ty(v, I->ops[k]).lanes != 1)
				err(v, r, "coordinates and offsets must be scalar integers");
		{
			IrType et = (op == IR_OP_TLOAD || op == IR_OP_LD) ? I->ty : ty(v, I->ops[1]);
			if (et.kind != f->tensor[T->aux].elem)
				err(v, r, "element type differs from the tensor's");
			if (f->tensor[T->aux].space == IR_SPACE_IDENTITY && (op == IR_OP_TSTORE || op == IR_OP_ST || et.lanes != 1))
				err(v, r, "an identity tensor is only read, one element at a time");
		}
		break;
	}
	case IR_OP_ATOMIC: {
		uint32_t first = ir_atomic_first(I);
		const IrTensor *T;
		if (I->imm[0] < 0 || I->imm[0] >= IR_ATOMIC_COUNT || I->imm[1] < 0 || I->imm[1] >= IR_SCOPE_COUNT ||
		    I->imm[2] < 0 || I->imm[2] >= IR_ORDER_COUNT) {
			err(v, r, "atomic with an unknown operation, scope or order");
			break;
		}
		if (I->nops < first + 1 || !ir_is_tensor((IrOp)f->inst[I->ops[0]].op)) {
			err(v, r, "atomic takes a tensor, its value operands and a coordinate or offset");
			break;
		}
		T = &f->tensor[f->inst[ir_tensor_root(f, I->ops[0])].aux];
		if (T->space == IR_SPACE_IDENTITY || I->ty.kind != T->elem ||
		    !((I->ty.lanes == 1 && ir_scalar_bits((IrScalar)T->elem) == 32) ||
		      (I->ty.lanes == 2 && (T->elem == IR_BF16 || T->elem == IR_F16) && I->imm[0] == IR_ATOMIC_FADD)))
			err(v, r, "atomic works on one 32-bit element of a global or LDS tensor (or fadd on a pair of "
			    "16-bit floats) and gives its type");
		for (uint32_t k = 1; k < first; k++)
			if (!ir_ty_eq(ty(v, I->ops[k]), I->ty))
				err(v, r, "atomic value operands have the element type");
		for (uint32_t k = first; k < I->nops; k++)
			if (!ir_ty_is_int(ty(v, I->ops[k])) || ty(v, I->ops[k]).lanes != 1)
				err(v, r, "coordinates and offsets must be scalar integers");
		if ((I->imm[0] == IR_ATOMIC_FADD) != ir_ty_is_float(I->ty) && I->imm[0] != IR_ATOMIC_XCHG &&
		    I->imm[0] != IR_ATOMIC_CAS)
			err(v, r, "fadd is the float atomic; the others (but xchg and cas) take integers");
		break;
	}
	case IR_OP_FENCE:
		if (I->imm[0] < 0 || I->imm[0] >= IR_SCOPE_COUNT || I->imm[1] <= IR_ORDER_RELAXED ||
		    I->imm[1] >= IR_ORDER_COUNT)
			err(v, r, "fence takes a scope and an order other than relaxed");
		break;
	case IR_OP_FOR: {
		IrType it = ty(v, I->ops[0]);
		if (I->nops < 3 || !ir_ty_is_int(it) || !ir_ty_eq(ty(v, I->ops[1]), it) ||
		    !ir_ty_eq(ty(v, I->ops[2]), it)) {
			err(v, r, "for bounds must be integers of one type");
			break;
		}
		{
			IrRegionData *B = &f->reg[I->region[0]];
			if (B->n < I->nops - 2) {
				err(v, r, "for body lacks its region arguments");
				break;
			}
			for (uint32_t k = 0; k < I->nops - 2; k++) {
				IrInst *A = &f->inst[B->inst[k]];
				IrType want = k == 0 ? it : ty(v, I->ops[k + 2]);
				if (A->op != IR_OP_RARG || A->imm[0] != k || !ir_ty_eq(A->ty, want))
					err(v, r, "for body must begin with its iv and iteration arguments");
			}
		}
		check_region(v, I->region[0], 1);
		check_yield(v, I->region[0], I->nops - 3, I->ops + 3, 1);
		break;
	}
	case IR_OP_IF: {
		uint32_t n = (uint32_t)I->imm[0];
		if (ty(v, I->ops[0]).kind != IR_I1 || ty(v, I->ops[0]).lanes != 1)
			err(v, r, "if condition must be a scalar i1");
		check_region(v, I->region[0], 1);
		check_region(v, I->region[1], 1);
		check_yield(v, I->region[0], n, NULL, 0);
		check_yield(v, I->region[1], n, NULL, 0);
		{
			IrRegionData *A = &f->reg[I->region[0]], *B = &f->reg[I->region[1]];
			if (A->n && B->n) {
				IrInst *ya = &f->inst[A->inst[A->n - 1]], *yb = &f->inst[B->inst[B->n - 1]];
				if (ya->nops == n && yb->nops == n)
					for (uint32_t k = 0; k < n; k++)
						if (!ir_ty_eq(ty(v, ya->ops[k]), ty(v, yb->ops[k])))
							err(v, r, "then and else yield different types");
			}
		}
		break;
	}
	case IR_OP_WHILE: {
		IrRegionData *A = &f->reg[I->region[0]], *B = &f->reg[I->region[1]];
		for (int k = 0; k < 2; k++) {
			IrRegionData *R = k ? B : A;
			for (uint32_t a = 0; a < I->nops; a++)
				if (a >= R->n || f->inst[R->inst[a]].op != IR_OP_RARG ||
				    !ir_ty_eq(f->inst[R->inst[a]].ty, ty(v, I->ops[a])))
					err(v, r, "while regions must begin with their carried values");
		}
		check_region(v, I->region[0], 1);
		check_region(v, I->region[1], 1);
		if (A->n && f->inst[A->inst[A->n - 1]].op == IR_OP_YIELD) {
			IrInst *Y = &f->inst[A->inst[A->n - 1]];
			if (Y->nops != I->nops + 1 || ty(v, Y->ops[0]).kind != IR_I1)
				err(v, r, "a while condition region yields the condition and the carried values");
			else
				for (uint32_t a = 0; a < I->nops; a++)
					if (!ir_ty_eq(ty(v, Y->ops[a + 1]), ty(v, I->ops[a])))
						err(v, r, "a while condition region yields values of the wrong type");
		} else {
			err(v, r, "region does not end with yield");
		}
		check_yield(v, I->region[1], I->nops, I->ops, 1);
		break;
	}
	case IR_OP_PROJ: {
		IrInst *M = &f->inst[I->ops[0]];
		uint32_t n = M->op == IR_OP_FOR ? M->nops - 3 : M->op == IR_OP_IF ? (uint32_t)M->imm[0]
		           : M->op == IR_OP_WHILE ? M->nops : 0;
		if ((M->op != IR_OP_FOR && M->op != IR_OP_IF && M->op != IR_OP_WHILE) || I->imm[0] < 0 || (uint32_t)I->imm[0] >= n)
			err(v, r, "proj of a non-tuple or out of range");
		break;
	}
	case IR_OP_RARG:
		if (!v->f->reg[I->parent].owner || (f->inst[v->f->reg[I->parent].owner].op != IR_OP_FOR &&
		                                     f->inst[v->f->reg[I->parent].owner].op != IR_OP_WHILE))
			err(v, r, "region argument outside a for/while body");
		break;
	case IR_OP_YIELD:
		if (pos + 1 != nreg || !f->reg[I->parent].owner)
			err(v, r, "yield must end a for/if region");
		break;
	case IR_OP_RET:
		if (pos + 1 != nreg || I->parent != 1)
			err(v, r, "ret must end the kernel body");
		break;
	case IR_OP_BITCAST:
		if (I->ty.lanes != ty(v, I->ops[0]).lanes || ir_scalar_packed((IrScalar)I->ty.kind) ||
		    ir_scalar_bits((IrScalar)I->ty.kind) < 8 ||
		    ir_scalar_bits((IrScalar)I->ty.kind) != ir_scalar_bits((IrScalar)ty(v, I->ops[0]).kind))
			err(v, r, "bitcast takes and gives values of one width (lanes equal)");
		break;
	case IR_OP_UNIFORM:
		if (I->ty.kind != IR_I32 || I->ty.lanes != 1 || !ir_ty_eq(ty(v, I->ops[0]), I->ty))
			err(v, r, "readfirstlane takes and gives an i32 scalar");
		break;
	case IR_OP_SHFLXOR: case IR_OP_SHFL: case IR_OP_READLANE:
		if (ir_scalar_bits((IrScalar)I->ty.kind) != 32 || I->ty.lanes != 1 || !ir_ty_eq(ty(v, I->ops[0]), I->ty) ||
		    !ir_ty_eq(ty(v, I->ops[1]), ir_ty(IR_I32)))
			err(v, r, "shfl_xor, shfl and readlane move a 32-bit scalar with an i32 lane mask or index");
		break;
	case IR_OP_BALLOT:
		if (!ir_ty_eq(I->ty, ir_ty(IR_I64)) || !ir_ty_eq(ty(v, I->ops[0]), ir_ty(IR_I1)))
			err(v, r, "ballot takes an i1 and gives an i64 lane mask");
		break;
	case IR_OP_MMA:
		if ((I->nops != 3 && I->nops != 5) || !I->sym || !ir_ty_eq(ty(v, I->ops[2]), I->ty) ||
		    ty(v, I->ops[0]).lanes < 2 || ty(v, I->ops[1]).lanes < 2 ||
		    (I->nops == 5 && (!ir_ty_eq(ty(v, I->ops[3]), ir_ty(IR_I32)) || !ir_ty_eq(ty(v, I->ops[4]), ir_ty(IR_I32)))))
			err(v, r, "mma takes vector operands a, b, an accumulator c of the result type and optional i32 scales");
		break;
	case IR_OP_LDSDMA:
		if ((I->nops != 2 && I->nops != 4) || !ir_is_tensor((IrOp)f->inst[I->ops[0]].op) ||
		    !ir_is_tensor((IrOp)f->inst[I->ops[I->nops / 2]].op))
			err(v, r, "lds_dma takes a source and an LDS tensor (with offsets after lower-layout)");
		break;
	case IR_OP_LDTR: {
		int glb = (I->nops == 1 || I->nops == 2) && ir_is_tensor((IrOp)f->inst[I->ops[0]].op) &&
		          f->tensor[f->inst[ir_tensor_root(f, I->ops[0])].aux].space == IR_SPACE_GLOBAL;
		unsigned bits = ir_scalar_bits((IrScalar)I->ty.kind) * I->ty.lanes;
		if ((I->nops != 1 && I->nops != 2) || !ir_is_tensor((IrOp)f->inst[I->ops[0]].op) ||
		    (!glb && bits != (I->imm[0] == 6 ? 96u : 64u)) ||
		    (glb && !((I->imm[0] == 16 && bits == 128) || (I->imm[0] == 8 && bits == 64))))
			err(v, r, "ld_tr reads 64 bits (96 for 6-bit elements) per lane from an LDS tensor, or 8 "
			    "16-bit (8-bit) elements per lane from a global one");
		break;
	}
	case IR_OP_SETPRIO:
		if (I->imm[0] < 0 || I->imm[0] > 3)
			err(v, r, "setprio takes 0..3");
		break;
	default:
		break;
	}
}

static void
check_region(V *v, IrRegion rg, int need_yield)
{
	IrRegionData *R;

	if (rg == 0 || rg >= v->f->nreg) {
		v->bad++;
		ir_error(v->d, v->f->loc, "IR verifier: %s: bad region handle %u", v->f->name, rg);
		return;
	}
	R = &v->f->reg[rg];
	for (uint32_t i = 0; i < R->n; i++) {
		IrRef r = R->inst[i];
		if (r == 0 || r >= v->f->ninst) {
			v->bad++;
			ir_error(v->d, v->f->loc, "IR verifier: %s: bad handle in region %u", v->f->name, rg);
			continue;
		}
		if (v->f->inst[r].parent != rg)
			err(v, r, "instruction's parent is not the region holding it");
		check_inst(v, r, i, R->n);
		v->vis[r] = 1;
	}
	/* values defined inside go out of scope */
	for (uint32_t i = 0; i < R->n; i++)
		if (R->inst[i] < v->f->ninst)
			v->vis[R->inst[i]] = 0;
	(void)need_yield;
}

int
ir_verify(IrFunc *f, IrDiag *d)
{
	V v = { f, d, calloc(f->ninst + 1, 1), 0 };
	IrRegionData *B = &f->reg[1];

	if (!v.vis)
		IR_ICE("out of memory");
	check_region(&v, 1, 0);
	if (!B->n || f->inst[B->inst[B->n - 1]].op != IR_OP_RET) {
		v.bad++;
		ir_error(d, f->loc, "IR verifier: %s: body does not end with ret", f->name);
	}
	free(v.vis);
	return v.bad;
}
