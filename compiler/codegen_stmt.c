/*
 * codegen_stmt.c — statements: blocks, let/var (with destructuring and
 * packed conversions), assignment, if/else, for and static for (loop-carried
 * variables), while, waves(...) groups, and expression statements. Pipelines
 * are in codegen_pipe.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"
#include "codegen_span.h"
#include "ir_banks.h"
#include "ir.h"
#include "target/target.h"

/* gfx950 format code of fp6 (2), bf6 (3), fp4 (4), else 0 */
static int
packed_fmt(const Type *t)
{
	if (!t || (t->kind != TY_SCALAR && t->kind != TY_TENSOR))
		return 0;
	return t->scalar == SC_FP6 ? 2 : t->scalar == SC_BF6 ? 3 : t->scalar == SC_FP4 ? 4 : 0;
}

/* convert<fp4|fp6|bf6>(x) of a number, or convert<T>(x) of fp4/fp6/bf6 data */
int
cg_packed_convert(Node *n)
{
	return (packed_fmt(n->type) && !cg_storage_only(n->u.convert.x)) ||
	       (packed_fmt(n->u.convert.x->type) && !cg_storage_only(n));
}

IrRef
cg_convert_packed(Cg *c, Node *n)
{
	int to_narrow = packed_fmt(n->type) != 0;
	int fmt = to_narrow ? packed_fmt(n->type) : packed_fmt(n->u.convert.x->type);
	IrRef x = cg_value_of(c, cg_expr(c, n->u.convert.x), n->u.convert.x->span);
	IrScalar el;
	int ok = 1;
	if (!x)
		return 0;
	unsigned lanes = c->f->inst[x].ty.lanes, group = fmt == 4 ? 2 : 32;
	if (lanes % group || lanes > CG_MAXFRAG) {
		if (!c->failed)
			diag_error(c->d, n->span, "convert to or from %s works on fragments of a multiple of %u elements "
			           "(gfx950 converts %s), and this one has %u", fmt == 4 ? "fp4" : fmt == 2 ? "fp6" : "bf6",
			           group, fmt == 4 ? "pairs" : "groups of 32", lanes);
		c->failed = 1;
		return 0;
	}
	c->b.loc = cg_loc_of(c, n->span);
	if (to_narrow) {
		cg_scalar_of(n->type->scalar, &el);
		x = cg_to_type(c, x, ir_vec(IR_F32, lanes));
		return ir_b_cvt_pk(&c->b, ir_vec(el, lanes), x, fmt);
	}
	IrType t = cg_type_of(c, n, &ok);
	if (!ok) {
		cg_unsupported(c, n->span, "this conversion");
		return 0;
	}
	x = ir_b_cvt_pk(&c->b, ir_vec(IR_F32, lanes), x, fmt);
	return cg_to_type(c, x, ir_vec((IrScalar)t.kind, lanes));
}

void
cg_block(Cg *c, Node *n)
{
	Binding *saved = c->env;

	if (n->kind != S_BLOCK) {
		cg_stmt(c, n);
		return;
	}
	for (int i = 0; i < n->u.block.n && !c->failed; i++)
		cg_stmt(c, n->u.block.v[i]);
	/* let-bindings of the block go out of scope; variables assigned in it
	 * keep their newest value (rebound by the caller via collect_assigned) */
	(void)saved;
}

/* copy(src, x) into a register fragment variable x rebinds x (copy() below):
 * it is an assignment of x, like gemm's accumulator and fill's fragment */
static Symbol *
copy_assigned(Node *e)
{
	if (!e || e->kind != E_CALL || e->u.call.callee->kind != E_NAME || e->u.call.args.n < 2 ||
	    e->u.call.args.n > 3 || cg_builtin(e->u.call.callee) != B_COPY)
		return NULL;
	Node *d = e->u.call.args.v[e->u.call.args.n - 1];
	return d->kind == E_NAME && d->u.name.sym && (d->u.name.sym->kind == SYM_VAR || d->u.name.sym->kind == SYM_REG)
	       ? d->u.name.sym : NULL;
}

static void
add_assigned(Symbol *sym, Symbol **out, int *nout, int max)
{
	for (int i = 0; i < *nout; i++)
		if (out[i] == sym)
			return;
	if (*nout < max)
		out[(*nout)++] = sym;
}

/* the variables of the left side of a tuple assignment */
static void
collect_lhs(Node *l, Symbol **out, int *nout, int max)
{
	if (l->kind == E_TUPLE)
		for (int i = 0; i < l->u.list.n; i++)
			collect_lhs(l->u.list.v[i], out, nout, max);
	else if (l->kind == E_NAME && l->u.name.sym && l->u.name.sym->kind == SYM_VAR)
		add_assigned(l->u.name.sym, out, nout, max);
}

/* variables (declared outside n) assigned somewhere inside n */
void
cg_collect_assigned(Node *n, Symbol **out, int *nout, int max)
{
	if (!n)
		return;
	switch (n->kind) {
	case S_BLOCK:
		for (int i = 0; i < n->u.block.n; i++)
			cg_collect_assigned(n->u.block.v[i], out, nout, max);
		return;
	case S_ASSIGN: {
		Node *l = n->u.assign.lhs;
		if (l->kind == E_TUPLE) {   /* (a, b) = ...: each variable of it */
			collect_lhs(l, out, nout, max);
			return;
		}
		/* v[i] = e on a register fragment var replaces v's value too */
		if (l->kind == E_INDEX && l->u.call.callee->kind == E_NAME) {
			Symbol *fs = l->u.call.callee->u.name.sym;
			if (fs && (fs->kind == SYM_VAR || fs->kind == SYM_REG) && fs->type && fs->type->kind == TY_TENSOR &&
			    fs->type->space == SPACE_REG)
				l = l->u.call.callee;
		}
		if (l->kind == E_NAME && l->u.name.sym && (l->u.name.sym->kind == SYM_VAR || l->u.name.sym->kind == SYM_REG)) {
			for (int i = 0; i < *nout; i++)
				if (out[i] == l->u.name.sym)
					return;
			if (*nout < max)
				out[(*nout)++] = l->u.name.sym;
		}
		return;
	}
	case S_EXPR: {
		Symbol *sym = cg_mma_assigned(n->u.expr);
		if (!sym)
			sym = copy_assigned(n->u.expr);
		if (sym) {
			for (int i = 0; i < *nout; i++)
				if (out[i] == sym)
					return;
			if (*nout < max)
				out[(*nout)++] = sym;
		}
		return;
	}
	case S_IF:
		cg_collect_assigned(n->u.if_.then, out, nout, max);
		cg_collect_assigned(n->u.if_.els, out, nout, max);
		return;
	case S_FOR:
		cg_collect_assigned(n->u.for_.body, out, nout, max);
		return;
	case S_WHILE:
		cg_collect_assigned(n->u.while_.body, out, nout, max);
		return;
	default:
		return;
	}
}

static void
stmt_if(Cg *c, Node *n)
{
	Symbol *vars[MAXCARRY];
	int nv = 0;
	IrRef cond, iff, ys[MAXCARRY];
	IrType tys[MAXCARRY];
	Binding *saved;

	/* a condition the checker folded (compile-time parameters, constants):
	 * only the taken branch is lowered, straight-line */
	if (n->u.if_.cond->cval && n->u.if_.cond->cval->kind == VAL_BOOL) {
		Node *taken = n->u.if_.cond->cval->i ? n->u.if_.then : n->u.if_.els;
		if (taken)
			cg_block(c, taken);
		return;
	}
	cg_collect_assigned(n, vars, &nv, MAXCARRY);
	/* only variables declared outside (bound now) flow out of the branches;
	 * a variable naming a tensor view is stored into, never rebound */
	for (int i = 0, j = 0; i < nv; i++) {
		IrRef v = cg_lookup(c, vars[i]);
		if (v && !cg_is_tensor_val(c, v))
			vars[j++] = vars[i];
		if (i + 1 == nv)
			nv = j;
	}
	for (int i = 0; i < nv; i++)
		tys[i] = c->f->inst[cg_lookup(c, vars[i])].ty;
	cond = cg_expr(c, n->u.if_.cond);
	if (!cond)
		return;
	cond = cg_to_type(c, cond, ir_ty(IR_I1));
	c->b.loc = cg_loc_of(c, n->span);
	iff = ir_b_if(&c->b, cond, (uint32_t)nv, tys);
	saved = c->env;
	cg_block(c, n->u.if_.then);
	if (c->failed)
		return;
	for (int i = 0; i < nv; i++)
		ys[i] = cg_lookup(c, vars[i]);
	ir_b_yield(&c->b, (uint32_t)nv, ys);
	c->env = saved;
	ir_b_else(&c->b);
	if (n->u.if_.els)
		cg_block(c, n->u.if_.els);
	if (c->failed)
		return;
	for (int i = 0; i < nv; i++)
		ys[i] = cg_lookup(c, vars[i]);
	ir_b_yield(&c->b, (uint32_t)nv, ys);
	c->env = saved;
	ir_b_end(&c->b);
	for (int i = 0; i < nv; i++)
		cg_bind(c, vars[i], ir_b_proj(&c->b, iff, (unsigned)i));
}

/* The variables a loop body assigns that are bound outside it (declared before
 * the loop): these are carried. Fills vars and their current values inits;
 * returns how many. */
int
cg_carried(Cg *c, Node *body, Symbol **vars, IrRef *inits)
{
	int nv = 0, j = 0;

	cg_collect_assigned(body, vars, &nv, MAXCARRY);
	for (int i = 0; i < nv; i++)
		if ((inits[j] = cg_lookup(c, vars[i])) && !cg_is_tensor_val(c, inits[j]))
			vars[j++] = vars[i];
	return j;
}

/* Ends a loop body: yields the carried variables (converted to their initial
 * types), closes the loop, restores the outer bindings and rebinds each
 * carried variable to the loop's result. */
void
cg_close_loop(Cg *c, IrRef loop, Symbol **vars, const IrRef *inits, int nv, Binding *saved)
{
	IrRef ys[MAXCARRY] = { 0 };

	for (int i = 0; i < nv; i++)
		ys[i] = cg_to_type(c, cg_lookup(c, vars[i]), c->f->inst[inits[i]].ty);
	ir_b_yield(&c->b, (uint32_t)nv, ys);
	ir_b_end(&c->b);
	c->env = saved;
	for (int i = 0; i < nv; i++)
		cg_bind(c, vars[i], ir_b_proj(&c->b, loop, (unsigned)i));
}

/* static for: the body once per iteration, the variable a constant in each
 * copy (docs/language.md §7), so that schedule controls in the body
 * (sched_group, setprio) land between the instructions of their own copy
 * instead of in a loop LLVM may or may not unroll. Variables assigned in the
 * body are rebound after each copy; unrolling stops with an error once the
 * kernel passes MAXUNROLL instructions. Returns 0 (nothing emitted) when a bound
 * is not a compile-time integer; the checker makes that impossible. */
enum { MAXUNROLL = 1 << 16 };   /* IR instructions of a kernel unrolled by static for */

static int
static_for(Cg *c, Node *n, IrType it, Symbol **vars, int nv)
{
	Value *lo = n->u.for_.lo->cval, *hi = n->u.for_.hi->cval, *st = n->u.for_.step ? n->u.for_.step->cval : NULL;
	Binding *base = c->env;    /* each copy's rebindings replace the last one's */
	IrRef ys[MAXCARRY];

	if (!lo || !hi || lo->kind != VAL_INT || hi->kind != VAL_INT || (n->u.for_.step && (!st || st->kind != VAL_INT)) ||
	    (st && st->i <= 0))
		return 0;
	for (int64_t i = lo->i; i < hi->i && !c->failed; i += st ? st->i : 1) {
		if (c->f->ninst > MAXUNROLL) {
			diag_error(c->d, n->span, "unrolling this static for makes the kernel more than %d IR instructions "
			           "long (at iteration %lld); use a plain for", MAXUNROLL, (long long)i);
			c->failed = 1;
			break;
		}
		if (n->u.for_.sym)
			cg_bind(c, n->u.for_.sym, ir_b_const(&c->b, it, i));
		cg_block(c, n->u.for_.body);
		for (int k = 0; k < nv; k++)
			ys[k] = cg_lookup(c, vars[k]);
		c->env = base;
		for (int k = 0; k < nv; k++)
			cg_bind(c, vars[k], ys[k]);
	}
	return 1;
}

static void
stmt_for(Cg *c, Node *n)
{
	Symbol *vars[MAXCARRY];
	int nv = 0;
	IrRef lo, hi, step, inits[MAXCARRY], iters[MAXCARRY], iv, loop;
	Binding *saved;
	IrType it;

	nv = cg_carried(c, n->u.for_.body, vars, inits);
	lo = cg_expr(c, n->u.for_.lo);
	hi = lo ? cg_expr(c, n->u.for_.hi) : 0;
	step = hi ? (n->u.for_.step ? cg_expr(c, n->u.for_.step) : ir_b_const(&c->b, c->f->inst[lo].ty, 1)) : 0;
	if (!step)
		return;
	it = c->f->inst[lo].ty;
	if (ir_scalar_bits((IrScalar)c->f->inst[hi].ty.kind) > ir_scalar_bits((IrScalar)it.kind))
		it = c->f->inst[hi].ty;
	if (!ir_ty_is_int(it) || it.kind == IR_I1) {
		diag_error(c->d, n->span, "loop bounds must be integers");
		c->failed = 1;
		return;
	}
	lo = cg_to_type(c, lo, it);
	hi = cg_to_type(c, hi, it);
	step = cg_to_type(c, step, it);
	c->b.loc = cg_loc_of(c, n->span);
	if (n->u.for_.unroll && static_for(c, n, it, vars, nv))
		return;
	loop = ir_b_for(&c->b, lo, hi, step, (uint32_t)nv, inits, &iv, iters);
	saved = c->env;
	if (n->u.for_.sym)
		cg_bind(c, n->u.for_.sym, iv);
	for (int i = 0; i < nv; i++)
		cg_bind(c, vars[i], iters[i]);
	cg_block(c, n->u.for_.body);
	if (c->failed)
		return;
	cg_close_loop(c, loop, vars, inits, nv, saved);
}

/* the flat work-item id and the wave index (runtime wave size) */
static IrRef
wave_index(Cg *c)
{
	IrRef t = ir_b_tid(&c->b, 0);
	if (c->f->block[1] > 1 || c->f->block[2] > 1) {
		IrRef bx = ir_b_const(&c->b, ir_ty(IR_I32), c->f->block[0]);
		IrRef by = ir_b_const(&c->b, ir_ty(IR_I32), c->f->block[1]);
		IrRef yz = ir_b_bin(&c->b, IR_OP_ADD, ir_b_tid(&c->b, 1), ir_b_bin(&c->b, IR_OP_MUL, ir_b_tid(&c->b, 2), by));
		t = ir_b_bin(&c->b, IR_OP_ADD, t, ir_b_bin(&c->b, IR_OP_MUL, yz, bx));
	}
	return ir_b_un(&c->b, IR_OP_UNIFORM, ir_b_bin(&c->b, IR_OP_DIV, t, ir_b_wave_size(&c->b)));
}

/* waves N groups { g => {...} ... }: wave w runs arm w % N. The group is
 * computed once from the readfirstlane'd wave index (an SGPR), so each arm is
 * a uniform if: a wave branches over the arms of the other groups with a
 * scalar branch and never runs them with an empty exec mask. The arms are
 * plain regions: a barrier() in an arm is the workgroup's s_barrier, which
 * counts waves, not program points, so the k-th barrier of one group meets
 * the k-th barrier of every other group (the "phases" of docs/language.md). */
static void
stmt_waves(Cg *c, Node *n)
{
	Node *cn = n->u.waves.count;
	if (!cn->cval || cn->cval->kind != VAL_INT || cn->cval->i < 1) {
		cg_unsupported(c, cn->span, "a wave group count that is not a compile-time integer");
		return;
	}
	IrRef g = ir_b_bin(&c->b, IR_OP_REM, wave_index(c), ir_b_const(&c->b, ir_ty(IR_I32), cn->cval->i));
	for (int i = 0; i < n->u.waves.arms.n && !c->failed; i++) {
		Param *arm = n->u.waves.arms.v[i];
		Symbol *vars[MAXCARRY];
		int nv = 0;
		if (!arm->value || !arm->value->cval || arm->value->cval->kind != VAL_INT) {
			cg_unsupported(c, arm->span, "a wave group index that is not a compile-time integer");
			return;
		}
		cg_collect_assigned(arm->body, vars, &nv, MAXCARRY);
		for (int k = 0; k < nv; k++)
			if (cg_lookup(c, vars[k])) {
				cg_unsupported(c, arm->span, "assigning an outer variable inside a wave group arm");
				return;
			}
		IrRef is = ir_b_cmp(&c->b, IR_EQ, g, ir_b_const(&c->b, ir_ty(IR_I32), arm->value->cval->i));
		Binding *saved = c->env;
		ir_b_if(&c->b, is, 0, NULL);
		cg_block(c, arm->body);
		c->env = saved;
		if (c->failed)
			return;
		ir_b_end(&c->b);
	}
}

static void
stmt_while(Cg *c, Node *n)
{
	Symbol *vars[MAXCARRY];
	int nv;
	IrRef inits[MAXCARRY], before[MAXCARRY], body[MAXCARRY], ys[MAXCARRY + 1], cond, loop;
	Binding *saved;

	nv = cg_carried(c, n->u.while_.body, vars, inits);
	c->b.loc = cg_loc_of(c, n->span);
	loop = ir_b_while(&c->b, (uint32_t)nv, inits, before);
	saved = c->env;
	for (int i = 0; i < nv; i++)
		cg_bind(c, vars[i], before[i]);
	if (!(cond = cg_expr(c, n->u.while_.cond)))
		return;
	ys[0] = cg_to_type(c, cond, ir_ty(IR_I1));
	for (int i = 0; i < nv; i++)
		ys[i + 1] = before[i];
	ir_b_yield(&c->b, (uint32_t)nv + 1, ys);
	c->env = saved;
	ir_b_while_body(&c->b, loop, body);
	for (int i = 0; i < nv; i++)
		cg_bind(c, vars[i], body[i]);
	cg_block(c, n->u.while_.body);
	if (c->failed)
		return;
	cg_close_loop(c, loop, vars, inits, nv, saved);
}

/* ---- a kernel body whose threads may return early ---- */

static int
ends_in_return(const Node *b)
{
	return b && b->kind == S_BLOCK && b->u.block.n && b->u.block.v[b->u.block.n - 1]->kind == S_RETURN;
}

/* an if (else if chain) with a branch ending in `return;` */
static int
guard_returns(const Node *st)
{
	for (; st && st->kind == S_IF; st = st->u.if_.els)
		if (ends_in_return(st->u.if_.then) || (st->u.if_.els && ends_in_return(st->u.if_.els)))
			return 1;
	return 0;
}

static void kernel_rest(Cg *c, Node *b, int from);

/* a branch of a returning if: its statements, then (unless it returns) the rest of the kernel */
static void
guard_branch(Cg *c, Node *blk, Node *b, int rest)
{
	int n = blk->u.block.n - (ends_in_return(blk) ? 1 : 0);

	for (int i = 0; i < n && !c->failed; i++)
		cg_stmt(c, blk->u.block.v[i]);
	if (!ends_in_return(blk))
		kernel_rest(c, b, rest);
}

static void
guard_if(Cg *c, Node *st, Node *b, int rest)
{
	Binding *saved = c->env;
	IrRef cond;

	if (st->u.if_.cond->cval && st->u.if_.cond->cval->kind == VAL_BOOL) {
		Node *taken = st->u.if_.cond->cval->i ? st->u.if_.then : st->u.if_.els;
		if (!taken)
			kernel_rest(c, b, rest);
		else if (taken->kind == S_IF)
			guard_if(c, taken, b, rest);
		else
			guard_branch(c, taken, b, rest);
		return;
	}
	if (!(cond = cg_expr(c, st->u.if_.cond)))
		return;
	c->b.loc = cg_loc_of(c, st->span);
	ir_b_if(&c->b, cg_to_type(c, cond, ir_ty(IR_I1)), 0, NULL);
	guard_branch(c, st->u.if_.then, b, rest);
	if (c->failed)
		return;
	c->env = saved;
	ir_b_yield(&c->b, 0, NULL);
	ir_b_else(&c->b);
	if (!st->u.if_.els)
		kernel_rest(c, b, rest);
	else if (st->u.if_.els->kind == S_IF)
		guard_if(c, st->u.if_.els, b, rest);
	else
		guard_branch(c, st->u.if_.els, b, rest);
	if (c->failed)
		return;
	c->env = saved;
	ir_b_yield(&c->b, 0, NULL);
	ir_b_end(&c->b);
}

/* statements from..end of kernel body b: an if whose branch returns takes the rest of the
 * body as its other branch (the checker allows `return;` only there and at the end) */
static void
kernel_rest(Cg *c, Node *b, int from)
{
	for (int i = from; i < b->u.block.n && !c->failed; i++) {
		Node *st = b->u.block.v[i];
		if (st->kind == S_IF && guard_returns(st)) {
			guard_if(c, st, b, i + 1);
			return;
		}
		if (st->kind == S_RETURN)
			return;
		if (st->kind == S_ALLOC && st->u.alloc.space == SPACE_LDS && c->fn_depth == 0 && cg_lookup(c, st->u.alloc.sym))
			continue;   /* allocated before the first returning if */
		cg_stmt(c, st);
	}
}

void
cg_kernel_block(Cg *c, Node *b)
{
	int early = 0;

	for (int i = 0; i < b->u.block.n; i++)
		early |= b->u.block.v[i]->kind == S_IF && guard_returns(b->u.block.v[i]);
	if (!early) {
		cg_stmt(c, b);
		return;
	}
	/* LDS buffers are the workgroup's, whichever threads return: allocated first */
	for (int i = 0; i < b->u.block.n && !c->failed; i++)
		if (b->u.block.v[i]->kind == S_ALLOC && b->u.block.v[i]->u.alloc.space == SPACE_LDS)
			cg_stmt(c, b->u.block.v[i]);
	kernel_rest(c, b, 0);
}

void
cg_stmt(Cg *c, Node *n)
{
	if (c->failed)
		return;
	c->b.loc = cg_loc_of(c, n->span);
	switch (n->kind) {
	case S_BLOCK: {
		Binding *saved = c->env;
		Symbol *vars[MAXCARRY];
		IrRef vals[MAXCARRY];
		int nv = 0;
		cg_collect_assigned(n, vars, &nv, MAXCARRY);
		cg_block(c, n);
		for (int i = 0; i < nv; i++)
			vals[i] = cg_lookup(c, vars[i]);
		c->env = saved;
		for (int i = 0; i < nv; i++)
			if (vals[i])
				cg_bind(c, vars[i], vals[i]);
		return;
	}
	case S_LET: case S_VAR: {
		Node *p = n->u.let.pat;
		IrRef v;
		if (n->u.let.init->cval && n->kind == S_LET) {
			/* a compile-time value (layout, tuple, atom, number): uses fold it */
			if (n->u.let.init->cval->kind == VAL_INT || n->u.let.init->cval->kind == VAL_BOOL ||
			    n->u.let.init->cval->kind == VAL_FLOAT) {
				if (p->kind == E_NAME && p->u.name.sym && (v = cg_expr(c, n->u.let.init)))
					cg_bind(c, p->u.name.sym, v);
			}
			return;
		}
		if (p->kind == E_TUPLE || (n->u.let.init->type && n->u.let.init->type->kind == TY_TUPLE &&
		                           !(p->kind == E_NAME && p->u.name.sym && !p->u.name.sym->used))) {
			IrTuple *t = cg_tuple_val(c, n->u.let.init);
			if (t)
				cg_bind_pattern(c, p, t, n->kind == S_VAR);
			return;
		}
		if (p->kind != E_NAME && p->kind != E_HOLE) {
			cg_unsupported(c, p->span, "this binding pattern");
			return;
		}
		if (n->u.let.init->type && n->u.let.init->type->kind != TY_SCALAR) {
			Type *ty = n->u.let.init->type;
			Node *in = n->u.let.init;
			if (in->kind == E_CALL && in->u.call.callee->kind == E_NAME &&
			    cg_builtin(in->u.call.callee) == B_ELEM_LESS) {
				if (p->kind == E_NAME && p->u.name.sym)
					cg_bind_lazy(c, p->u.name.sym, in);
				return;
			}
			if (ty->kind == TY_TILED_COPY || ty->kind == TY_THR_COPY || ty->kind == TY_TILED_MMA ||
			    ty->kind == TY_THR_MMA) {
				/* resolved where partitions and copies use them */
				if (p->kind == E_NAME && p->u.name.sym)
					cg_bind_lazy(c, p->u.name.sym, in);
				return;
			}
			if (ty->kind == TY_ATOM)
				return;
			if (p->kind == E_NAME && p->u.name.sym && !p->u.name.sym->used &&
			    (ty->kind == TY_TENSOR || ty->kind == TY_LAYOUT || ty->kind == TY_TUPLE)) {
				/* an unused view or layout: nothing to compute */
				return;
			}
			if (ty->kind != TY_TENSOR && in->kind == E_CALL && in->u.call.callee->kind == E_NAME &&
			    (cg_builtin(in->u.call.callee) == B_COMPOSITION ||
			     (cg_builtin(in->u.call.callee) >= 0 && builtins[cg_builtin(in->u.call.callee)].lower == LOWER_QUERY))) {
				/* a layout, or a tuple of run-time integers (shape(T)): its queries are
				 * evaluated where they are used (cg_view_query) */
				if (p->kind == E_NAME && p->u.name.sym)
					cg_bind_lazy(c, p->u.name.sym, in);
				return;
			}
			if (ty->kind != TY_TENSOR) {
				cg_unsupported(c, in->span, "a binding of this kind of value");
				return;
			}
		}
		v = cg_expr(c, n->u.let.init);
		if (!v)
			return;
		if (n->kind == S_VAR && p->kind == E_NAME && p->u.name.sym) {
			int ok = 1;
			IrType t = cg_type_of(c, n->u.let.init, &ok);
			if (p->u.name.sym->type && p->u.name.sym->type->kind == TY_SCALAR) {
				IrScalar s;
				if (cg_scalar_of(p->u.name.sym->type->scalar, &s))
					t = ir_ty(s), ok = 1;
			}
			if (ok)
				v = cg_to_type(c, v, t);
		}
		if (p->kind == E_NAME && p->u.name.sym) {
			cg_bind(c, p->u.name.sym, v);
			if (cg_is_fragment_call(n->u.let.init))
				c->env->frag = n->u.let.init;
		}
		return;
	}
	case S_ASSIGN: {
		Node *l = n->u.assign.lhs;
		IrRef v;
		if (l->kind == E_TUPLE) {
			IrTuple *t = cg_tuple_val(c, n->u.assign.rhs);
			if (t)
				cg_assign_tuple(c, l, t);
			return;
		}
		if (l->kind == E_NAME && l->u.name.sym && (l->u.name.sym->kind == SYM_VAR || l->u.name.sym->kind == SYM_REG)) {
			IrRef old = cg_lookup(c, l->u.name.sym);
			v = cg_value_of(c, cg_expr(c, n->u.assign.rhs), n->u.assign.rhs->span);
			if (!v || !old)
				return;
			if (n->u.assign.op != OP_NONE) {
				IrType ot = c->f->inst[old].ty;
				v = cg_arith(c, n->span, n->u.assign.op, old, v, ir_ty((IrScalar)ot.kind),
				          l->type && cg_is_unsigned(l->type->scalar));
				if (v == (IrRef)-1)
					return;
				if (!v) {
					cg_unsupported(c, n->span, "this compound assignment");
					return;
				}
			}
			cg_bind(c, l->u.name.sym, cg_to_type(c, v, c->f->inst[old].ty));
			return;
		}
		if (n->u.assign.op != OP_NONE) {
			cg_unsupported(c, n->span, "compound assignment to this");
			return;
		}
		if (l->kind == E_INDEX) {
			IrRef t, co[8];
			uint32_t nc;
			Node *cal = l->u.call.callee;
			v = cg_expr(c, n->u.assign.rhs);
			if (!v)
				return;
			if (cal->kind == E_NAME && cal->u.name.sym &&
			    (cal->u.name.sym->kind == SYM_VAR || cal->u.name.sym->kind == SYM_REG)) {
				/* v[i] = e on a fragment var held as a value: a new value with lane i replaced */
				IrRef old = cg_lookup(c, cal->u.name.sym);
				uint32_t lane;
				if (old && old != (IrRef)-1 && c->f->inst[old].ty.kind != IR_TENSOR &&
				    (c->f->inst[old].ty.lanes > 1 || (cal->type && cal->type->kind == TY_TENSOR))) {
					IrType et = ir_ty((IrScalar)c->f->inst[old].ty.kind);
					if (ir_scalar_packed((IrScalar)et.kind)) {
						cg_unsupported(c, l->span, "writing one fp4/fp6/bf6 value of a fragment");
						return;
					}
					if (!(v = cg_value_of(c, v, n->u.assign.rhs->span)) || !cg_fragment_lane(c, l, old, &lane))
						return;
					if (c->f->inst[v].ty.lanes != 1) {
						diag_error(c->d, n->u.assign.rhs->span, "one value of a fragment is assigned a scalar");
						c->failed = 1;
						return;
					}
					cg_bind(c, cal->u.name.sym, c->f->inst[old].ty.lanes > 1
					        ? ir_b_insert(&c->b, old, cg_to_type(c, v, et), lane) : cg_to_type(c, v, et));
					return;
				}
			}
			if (!cg_tensor_coords(c, l, &t, co, &nc))
				return;
			IrTensor *T = &c->f->tensor[c->f->inst[t].aux];
			if (ir_scalar_packed(T->elem)) {
				cg_unsupported(c, l->span, "writing one fp4/fp6/bf6 element (packed below a byte; copy whole bytes)");
				return;
			}
			v = cg_to_type(c, v, ir_ty(T->elem));
			c->b.loc = cg_loc_of(c, n->span);
			ir_b_tstore(&c->b, t, v, nc, co);
			return;
		}
		cg_unsupported(c, l->span, "assigning to this");
		return;
	}
	case S_EXPR:
		if (n->u.expr->kind == E_CALL) {
			cg_call(c, n->u.expr);
			return;
		}
		cg_unsupported(c, n->span, "an expression statement");
		return;
	case S_IF:
		stmt_if(c, n);
		return;
	case S_FOR:
		stmt_for(c, n);
		return;
	case S_WHILE:
		stmt_while(c, n);
		return;
	case S_WAVES:
		stmt_waves(c, n);
		return;
	case S_PIPELINE:
		cg_stmt_pipeline(c, n);
		return;
	case S_ASSUME:
		return;
	case S_RETURN:
		cg_return(c, n);
		return;
	case S_ALLOC: {
		IrLayout lay;
		IrScalar el;
		Symbol *s = n->u.alloc.sym;
		if (n->u.alloc.space == SPACE_REG) {   /* a register fragment: cosize zeros (codegen_frag.c) */
			cg_reg_alloc(c, n);
			return;
		}
		if (!s || !s->type || !cg_scalar_of(s->type->scalar, &el) ||
		    !n->u.alloc.type || !n->u.alloc.type->layout ||
		    cg_layout_of(c, n->u.alloc.type->layout, &lay) || ir_layout_cosize(&lay) < 0) {
			cg_unsupported(c, n->span, "an LDS buffer without a static layout of f32/f16/bf16/integers");
			return;
		}
		cg_bind(c, s, ir_b_lds_alloc(&c->b, el, lay, n->u.alloc.id));
		return;
	}
	default:
		cg_unsupported(c, n->span, "this statement");
		return;
	}
}
