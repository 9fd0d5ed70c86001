/* ir_pass.c — the IR pass manager (--print-after, --print-after-all,
 * --stop-after) and the small passes: fold, hoist, dce, lds-alloc. The
 * layout lowering lives in ir_layout.c. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "target/target.h"

typedef struct { const char *name; IrPassFn fn; const char *help; } PassRow;
static const PassRow PASSES[] = {
#define X(name, fn, help) { name, fn, help },
	IR_PASSES(X)
#undef X
};
enum { NPASSES = sizeof PASSES / sizeof PASSES[0] };

int
ir_pass_exists(const char *name)
{
	for (int i = 0; i < NPASSES; i++)
		if (!strcmp(PASSES[i].name, name))
			return 1;
	return 0;
}

const char *
ir_pass_names(void)
{
	return ""
#define X(name, fn, help) name " "
	IR_PASSES(X)
#undef X
	;
}

int
ir_run_passes(IrModule *m, const TgtDesc *t, const IrPassOpts *o, IrDiag *d)
{
	FILE *dump = o->dump ? o->dump : stderr;

	for (int k = 0; k < o->nprint_after; k++)
		if (!ir_pass_exists(o->print_after[k])) {
			ir_error(d, (IrLoc){ 0 }, "unknown IR pass '%s' in --print-after (passes: %s)",
			         o->print_after[k], ir_pass_names());
			return 1;
		}
	if (o->stop_after && !ir_pass_exists(o->stop_after)) {
		ir_error(d, (IrLoc){ 0 }, "unknown IR pass '%s' in --stop-after (passes: %s)",
		         o->stop_after, ir_pass_names());
		return 1;
	}
	if (o->verify)
		for (uint32_t k = 0; k < m->nfunc; k++)
			if (ir_verify(m->func[k], d))
				return 1;
	for (int i = 0; i < NPASSES; i++) {
		for (uint32_t k = 0; k < m->nfunc; k++) {
			int before = d->errors;
			PASSES[i].fn(m->func[k], t, d);
			if (d->errors > before)
				return 1;
			if (o->verify && ir_verify(m->func[k], d))
				return 1;
		}
		int want = o->print_after_all;
		for (int k = 0; k < o->nprint_after; k++)
			if (!strcmp(o->print_after[k], PASSES[i].name))
				want = 1;
		if (want) {
			fprintf(dump, "; *** IR after %s ***\n", PASSES[i].name);
			ir_print_module(dump, m);
		}
		if (o->stop_after && !strcmp(o->stop_after, PASSES[i].name))
			return 2;
	}
	return 0;
}

/* ---- walking ---- */

/* Collect every instruction of region rg and its nested regions, in order. */
static void
collect(IrFunc *f, IrRegion rg, IrRef **out, uint32_t *n, uint32_t *cap)
{
	IrRegionData *R = &f->reg[rg];

	for (uint32_t i = 0; i < R->n; i++) {
		IrRef r = R->inst[i];
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*out = realloc(*out, sizeof **out * *cap);
			if (!*out)
				IR_ICE("out of memory");
		}
		(*out)[(*n)++] = r;
		for (int k = 0; k < 2; k++)
			if (f->inst[r].region[k])
				collect(f, f->inst[r].region[k], out, n, cap);
	}
}

/* ---- fold ---- */

/* ir_fold_binary (ir_eval.c) gives an integer op's value, shared with ir_eval */

static int
is_intbin(IrOp op)
{
	return op >= IR_OP_ADD && op <= IR_OP_MAX;
}

int
ir_pass_fold(IrFunc *f, const TgtDesc *t, IrDiag *d)
{
	IrRef *all = NULL, *fwd = calloc(f->ninst + 1, sizeof *fwd);
	uint32_t n = 0, cap = 0;
	int erased = 0;

	if (!fwd)
		IR_ICE("out of memory");
	collect(f, 1, &all, &n, &cap);
	for (uint32_t i = 0; i < n; i++) {
		IrInst *I = &f->inst[all[i]];
		int64_t a, b, r;
		int ca, cb;
		IrRef keep = 0;

		/* operands come before their users, except values carried around a
		 * loop; ir_forward_uses below catches those */
		for (uint32_t k = 0; k < I->nops; k++)
			while (fwd[I->ops[k]])
				I->ops[k] = fwd[I->ops[k]];
		if (!is_intbin((IrOp)I->op) || I->ty.lanes != 1)
			continue;
		ca = ir_const_value(f, I->ops[0], &a);
		cb = ir_const_value(f, I->ops[1], &b);
		if (ca && cb && ir_fold_binary((IrOp)I->op, I->ty, a, b, &r)) {
			I->op = IR_OP_CONST;
			I->nops = 0;
			I->imm[0] = r;
			continue;
		}
		/* identities: x+0, 0+x, x-0, x*1, 1*x, x|0, x^0, x<<0, x>>0, x/1 */
		switch ((IrOp)I->op) {
		case IR_OP_ADD: case IR_OP_OR: case IR_OP_XOR:
			if (cb && b == 0) keep = I->ops[0];
			else if (ca && a == 0) keep = I->ops[1];
			break;
		case IR_OP_SUB: case IR_OP_SHL: case IR_OP_SHR: case IR_OP_SAR:
			if (cb && b == 0) keep = I->ops[0];
			break;
		case IR_OP_MUL:
			if (cb && b == 1) keep = I->ops[0];
			else if (ca && a == 1) keep = I->ops[1];
			else if ((cb && b == 0) || (ca && a == 0)) {
				I->op = IR_OP_CONST; I->nops = 0; I->imm[0] = 0;
			}
			break;
		case IR_OP_DIV: case IR_OP_SDIV:
			if (cb && b == 1) keep = I->ops[0];
			break;
		case IR_OP_REM: case IR_OP_SREM:
			if (cb && b == 1) { I->op = IR_OP_CONST; I->nops = 0; I->imm[0] = 0; }
			break;
		default:
			break;
		}
		if (keep) {
			fwd[all[i]] = keep;
			I->op = IR_OP_COUNT;
			erased = 1;
		}
	}
	if (erased) {
		ir_forward_uses(f, fwd);
		ir_compact(f);
	}
	free(fwd);
	free(all);
	(void)t; (void)d;
	return 0;
}

/* ---- hoist ---- */

static int
tuple_uses_inside(const IrTuple *x, const uint8_t *inside)
{
	if (!x)
		return 0;
	if (!x->n)
		return x->dyn && inside[x->dyn];
	for (int i = 0; i < x->n; i++)
		if (tuple_uses_inside(x->kid[i], inside))
			return 1;
	return 0;
}

static int
hoistable(IrFunc *f, IrRef r, const uint8_t *inside)
{
	IrInst *I = &f->inst[r];
	IrOp op = (IrOp)I->op;
	int64_t c;

	if (!(ir_op_flags(op) & IR_PURE) || op == IR_OP_RARG)
		return 0;
	/* division by a value that may be zero must not run when the loop doesn't */
	if ((op == IR_OP_DIV || op == IR_OP_REM || op == IR_OP_SDIV || op == IR_OP_SREM) &&
	    !(ir_const_value(f, I->ops[1], &c) && c != 0))
		return 0;
	for (uint32_t k = 0; k < I->nops; k++)
		if (inside[I->ops[k]])
			return 0;
	if (ir_is_tensor(op)) {
		IrTensor *T = &f->tensor[I->aux];
		if (tuple_uses_inside(T->layout.shape, inside) || tuple_uses_inside(T->layout.stride, inside))
			return 0;
	}
	return 1;
}

/* One sweep over every for loop; returns the number of instructions moved. */
static int
hoist_once(IrFunc *f)
{
	IrRef *all = NULL, *body = NULL;
	uint32_t n = 0, cap = 0;
	int moved = 0;
	uint8_t *inside = calloc(f->ninst + 1, 1);

	if (!inside)
		IR_ICE("out of memory");
	collect(f, 1, &all, &n, &cap);
	for (uint32_t i = 0; i < n; i++) {
		IrInst *L = &f->inst[all[i]];
		uint32_t nb = 0, cb = 0;
		if (L->op != IR_OP_FOR)
			continue;
		collect(f, L->region[0], &body, &nb, &cb);
		memset(inside, 0, f->ninst + 1);
		for (uint32_t k = 0; k < nb; k++)
			inside[body[k]] = 1;
		/* only direct children of the body move; nested loops get their
		 * own turn and then their hoisted values come up here next sweep */
		IrRegionData *B = &f->reg[L->region[0]];
		for (uint32_t k = 0; k < B->n;) {
			IrRef r = B->inst[k];
			if (!hoistable(f, r, inside)) {
				k++;
				continue;
			}
			/* move r to just before the loop */
			IrRegionData *P = &f->reg[L->parent];
			uint32_t pos = 0;
			while (pos < P->n && P->inst[pos] != all[i])
				pos++;
			memmove(B->inst + k, B->inst + k + 1, sizeof *B->inst * (B->n - k - 1));
			B->n--;
			ir_region_insert(f, L->parent, pos, r);
			inside[r] = 0;
			moved++;
			L = &f->inst[all[i]];
			B = &f->reg[L->region[0]];
		}
		free(body);
		body = NULL;
	}
	free(all);
	free(inside);
	return moved;
}

int
ir_pass_hoist(IrFunc *f, const TgtDesc *t, IrDiag *d)
{
	for (int it = 0; it < 64 && hoist_once(f); it++)
		;
	(void)t; (void)d;
	return 0;
}

/* ---- dce ---- */

static void
count_tuple(const IrTuple *x, uint32_t *uses)
{
	if (!x)
		return;
	if (!x->n) {
		if (x->dyn)
			uses[x->dyn]++;
		return;
	}
	for (int i = 0; i < x->n; i++)
		count_tuple(x->kid[i], uses);
}

static void
discount(const IrTuple *x, uint32_t *uses)
{
	if (!x)
		return;
	if (!x->n) {
		if (x->dyn)
			uses[x->dyn]--;
		return;
	}
	for (int i = 0; i < x->n; i++)
		discount(x->kid[i], uses);
}

static void
uncount_tuple(IrFunc *f, uint32_t tensor, uint32_t *uses)
{
	discount(f->tensor[tensor].layout.shape, uses);
	discount(f->tensor[tensor].layout.stride, uses);
}

int
ir_pass_dce(IrFunc *f, const TgtDesc *t, IrDiag *d)
{
	int changed = 1;

	while (changed) {
		IrRef *all = NULL;
		uint32_t n = 0, cap = 0;
		uint32_t *uses = calloc(f->ninst + 1, sizeof *uses);

		if (!uses)
			IR_ICE("out of memory");
		changed = 0;
		collect(f, 1, &all, &n, &cap);
		for (uint32_t i = 0; i < n; i++) {
			IrInst *I = &f->inst[all[i]];
			for (uint32_t k = 0; k < I->nops; k++)
				uses[I->ops[k]]++;
			if (ir_is_tensor((IrOp)I->op)) {
				count_tuple(f->tensor[I->aux].layout.shape, uses);
				count_tuple(f->tensor[I->aux].layout.stride, uses);
			}
		}
		/* backwards, so that a dead chain goes in one sweep */
		for (uint32_t i = n; i-- > 0;) {
			IrInst *I = &f->inst[all[i]];
			if ((ir_op_flags((IrOp)I->op) & IR_PURE) && I->op != IR_OP_RARG && !uses[all[i]] &&
			    I->op != IR_OP_LDSALLOC) {
				for (uint32_t k = 0; k < I->nops; k++)
					uses[I->ops[k]]--;
				if (ir_is_tensor((IrOp)I->op))
					uncount_tuple(f, I->aux, uses);
				I->op = IR_OP_COUNT;
				changed = 1;
			}
		}
		if (changed)
			ir_compact(f);
		free(uses);
		free(all);
	}
	(void)t; (void)d;
	return 0;
}

/* ---- lds-alloc ---- */

int
ir_pass_lds_alloc(IrFunc *f, const TgtDesc *t, IrDiag *d)
{
	uint64_t off = 0;

	for (uint32_t i = 1; i < f->ninst; i++) {
		IrInst *I = &f->inst[i];
		IrTensor *T;
		int64_t cos;
		uint64_t bytes;

		if (I->op != IR_OP_LDSALLOC)
			continue;
		T = &f->tensor[I->aux];
		cos = ir_layout_cosize(&T->layout);
		if (cos < 0) {
			ir_error(d, I->loc, "LDS buffer '%s' needs a static layout", T->name ? T->name : "?");
			return 1;
		}
		bytes = ir_scalar_bytes(T->elem, (uint64_t)cos);
		off = (off + 15) & ~(uint64_t)15;
		T->lds_offset = (uint32_t)(off < UINT32_MAX ? off : UINT32_MAX);
		off += bytes;
		if (off > t->lds_bytes) {
			ir_error(d, I->loc,
			         "kernel '%s' needs %llu bytes of LDS, more than the %u bytes %s has "
			         "(buffer '%s' ends at byte %llu)",
			         f->name, (unsigned long long)off, t->lds_bytes, t->name,
			         T->name ? T->name : "?", (unsigned long long)off);
			return 1;
		}
	}
	f->lds_bytes = (uint32_t)off;
	return 0;
}
