/* ir_eval.c — the per-thread IR interpreter (model in ir_eval.h) and the
 * integer semantics it shares with constant folding (ir_fold_binary). */
#include <stdlib.h>
#include <string.h>

#include "ir_eval.h"

int64_t
ir_eval_wrap(IrType t, int64_t v)
{
	unsigned bits = ir_scalar_bits((IrScalar)t.kind);
	if (bits >= 64 || bits == 0)
		return v;
	if (bits == 1)
		return v & 1;
	uint64_t m = (UINT64_C(1) << bits) - 1;
	uint64_t u = (uint64_t)v & m;
	if (u >> (bits - 1))
		u |= ~m;              /* keep a sign-extended canonical form */
	return (int64_t)u;
}

uint64_t
ir_eval_unsigned(IrType t, int64_t v)
{
	unsigned bits = ir_scalar_bits((IrScalar)t.kind);
	return bits >= 64 || bits == 0 ? (uint64_t)v : (uint64_t)v & ((UINT64_C(1) << bits) - 1);
}

int
ir_fold_binary(IrOp op, IrType t, int64_t a, int64_t b, int64_t *res)
{
	uint64_t ua = ir_eval_unsigned(t, a), ub = ir_eval_unsigned(t, b);
	unsigned bits = ir_scalar_bits((IrScalar)t.kind);
	int64_t r;

	switch (op) {
	case IR_OP_ADD: r = (int64_t)((uint64_t)a + (uint64_t)b); break;
	case IR_OP_SUB: r = (int64_t)((uint64_t)a - (uint64_t)b); break;
	case IR_OP_MUL: r = (int64_t)((uint64_t)a * (uint64_t)b); break;
	case IR_OP_DIV: if (!ub) return 0; r = (int64_t)(ua / ub); break;
	case IR_OP_REM: if (!ub) return 0; r = (int64_t)(ua % ub); break;
	case IR_OP_SDIV: if (!b || (a == INT64_MIN && b == -1)) return 0; r = a / b; break;
	case IR_OP_SREM: if (!b || (a == INT64_MIN && b == -1)) return 0; r = a % b; break;
	case IR_OP_AND: r = a & b; break;
	case IR_OP_OR: r = a | b; break;
	case IR_OP_XOR: r = a ^ b; break;
	case IR_OP_SHL: if (ub >= bits) return 0; r = (int64_t)(ua << ub); break;
	case IR_OP_SHR: if (ub >= bits) return 0; r = (int64_t)(ua >> ub); break;
	case IR_OP_SAR: if (ub >= bits) return 0; r = a >> ub; break;
	case IR_OP_MIN: r = a < b ? a : b; break;
	case IR_OP_MAX: r = a > b ? a : b; break;
	default: return 0;
	}
	*res = ir_eval_wrap(t, r);
	return 1;
}

uint64_t
ir_eval_mix(uint64_t x)
{
	x ^= x >> 31;
	x *= UINT64_C(0xBF58476D1CE4E5B9);
	x ^= x >> 29;
	x *= UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 32);
}

/* forget every memoised value */
static void
fresh(IrEval *e)
{
	if (++e->gen == 0) {
		memset(e->stamp, 0, sizeof *e->stamp * e->f->ninst);
		e->gen = 1;
	}
}

void
ir_eval_init(IrEval *e, const IrFunc *f, unsigned wave_size)
{
	size_t n = f->ninst ? f->ninst : 1;

	memset(e, 0, sizeof *e);
	e->f = f;
	e->wave_size = wave_size;
	e->val = calloc(n, sizeof *e->val);
	e->stamp = calloc(n, sizeof *e->stamp);
	e->counter = calloc(n, sizeof *e->counter);
	e->counter_set = calloc(n, 1);
	if (!e->val || !e->stamp || !e->counter || !e->counter_set)
		IR_ICE("out of memory");
	e->gen = 1;
}

void
ir_eval_free(IrEval *e)
{
	free(e->val);
	free(e->stamp);
	free(e->counter);
	free(e->counter_set);
	memset(e, 0, sizeof *e);
}

void
ir_eval_seed(IrEval *e, uint64_t seed)
{
	e->seed = seed;
	memset(e->counter_set, 0, e->f->ninst ? e->f->ninst : 1);
	fresh(e);
}

void
ir_eval_thread(IrEval *e, int64_t x, int64_t y, int64_t z)
{
	e->tid[0] = x;
	e->tid[1] = y;
	e->tid[2] = z;
	e->bad = 0;
	fresh(e);
}

void
ir_eval_set_counter(IrEval *e, IrRef loop, int64_t v)
{
	e->counter[loop] = v;
	e->counter_set[loop] = 1;
	fresh(e);
}

/* a workgroup-uniform value of r in this draw */
static int64_t
uniform(IrEval *e, IrRef r, int is_arg)
{
	uint64_t h = ir_eval_mix(e->seed ^ ((uint64_t)r * UINT64_C(0x9E3779B97F4A7C15)));
	int64_t v = is_arg ? 64 * (int64_t)(1 + h % 1024) : (int64_t)(h % 65536);
	return ir_eval_wrap(e->f->inst[r].ty, v);
}

static int
compare(IrCmp c, IrType t, int64_t a, int64_t b, int *res)
{
	uint64_t ua = ir_eval_unsigned(t, a), ub = ir_eval_unsigned(t, b);

	switch (c) {
	case IR_EQ: *res = a == b; break;
	case IR_NE: *res = a != b; break;
	case IR_LT: *res = a < b; break;
	case IR_LE: *res = a <= b; break;
	case IR_GT: *res = a > b; break;
	case IR_GE: *res = a >= b; break;
	case IR_ULT: *res = ua < ub; break;
	case IR_ULE: *res = ua <= ub; break;
	case IR_UGT: *res = ua > ub; break;
	case IR_UGE: *res = ua >= ub; break;
	default: return 0;
	}
	return 1;
}

int64_t
ir_eval(IrEval *e, IrRef r)
{
	const IrInst *I = &e->f->inst[r];
	IrOp op = (IrOp)I->op;
	int64_t a = 0, b = 0, v = 0;

	if (e->bad)
		return 0;
	if (e->stamp[r] == e->gen)
		return e->val[r];
	if (I->ty.lanes != 1 || !ir_ty_is_int(I->ty)) {
		e->bad = 1;
		return 0;
	}
	switch (op) {
	case IR_OP_CONST: v = I->imm[0]; goto done;
	case IR_OP_TID: v = e->tid[I->imm[0] >= 0 && I->imm[0] < 3 ? I->imm[0] : 0]; goto done;
	case IR_OP_WAVESIZE: v = e->wave_size; goto done;
	case IR_OP_ARG: v = uniform(e, r, 1); goto done;
	case IR_OP_BID: case IR_OP_PROJ: v = uniform(e, r, 0); goto done;
	case IR_OP_RARG: {
		IrRef owner = e->f->reg[I->parent].owner;
		if (owner && e->f->inst[owner].op == IR_OP_FOR && I->imm[0] == 0 && e->counter_set[owner])
			v = e->counter[owner];
		else
			v = uniform(e, r, 0);
		goto done;
	}
	default: break;
	}
	if (!(ir_op_flags(op) & IR_PURE) || I->nops < 1) {
		e->bad = 1;
		return 0;
	}
	a = ir_eval(e, I->ops[0]);
	if (I->nops >= 2 && op != IR_OP_SELECT)
		b = ir_eval(e, I->ops[1]);
	if (e->bad)
		return 0;
	switch (op) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
	case IR_OP_SDIV: case IR_OP_SREM: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR:
	case IR_OP_SHL: case IR_OP_SHR: case IR_OP_SAR: case IR_OP_MIN: case IR_OP_MAX:
		if (!ir_fold_binary(op, I->ty, a, b, &v)) {
			if (op == IR_OP_SHL || op == IR_OP_SHR || op == IR_OP_SAR) {
				e->bad = 1;     /* poison */
				return 0;
			}
			v = 0;              /* division by zero, or INT64_MIN / -1 */
		}
		break;
	case IR_OP_CVT: v = a; break;   /* then wrapped: sext/trunc, zext from i1 (as lower_llvm) */
	case IR_OP_UNIFORM: v = a; break;
	case IR_OP_SELECT: v = a ? ir_eval(e, I->ops[1]) : ir_eval(e, I->ops[2]); break;
	case IR_OP_CMP: {
		int c;
		if (!compare((IrCmp)I->imm[0], e->f->inst[I->ops[0]].ty, a, b, &c)) {
			e->bad = 1;
			return 0;
		}
		v = c;
		break;
	}
	default:
		e->bad = 1;
		return 0;
	}
done:
	if (e->bad)
		return 0;
	v = ir_eval_wrap(I->ty, v);
	e->stamp[r] = e->gen;
	e->val[r] = v;
	return v;
}
