/*
 * codegen_pipe.c — software pipelines: `pipeline k in lo .. hi stages S {
 * load { ... } compute { ... } }` as a prologue of S-1 loads, a steady-state
 * loop whose load block runs S-1 iterations ahead of compute (split around
 * compute for register-staged LDS copies), and an epilogue.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"
#include "codegen_span.h"
#include "ir_banks.h"
#include "ir.h"
#include "target/target.h"

/* one pipeline cg_block (load or compute) for iteration k: k and stage bound;
 * KEEP: the block's assignments stay visible (compute, read by the yield) */
static void
pipe_block(Cg *c, Node *n, Node *body, IrRef k, IrRef stage, int keep, int tag)
{
	Binding *saved = c->env;
	IrRef old = c->pipe_stage;
	uint32_t first = c->f->ninst;
	cg_bind(c, n->u.pipe.sym, k);
	c->pipe_stage = stage;
	cg_block(c, body);
	c->pipe_stage = old;
	/* with 2+ slots, the load block's LDS writes and the compute block's LDS
	 * reads of one iteration touch different slots: say so to LLVM (ring_alias
	 * in lower_llvm.c) so a prefetch need not complete before the reads */
	if (tag)
		for (uint32_t r = first; r < c->f->ninst; r++) {
			IrInst *I = &c->f->inst[r];
			int lds_w = (I->op == IR_OP_TSTORE || I->op == IR_OP_LDSDMA) && body == n->u.pipe.load;
			int lds_r = (I->op == IR_OP_TLOAD || I->op == IR_OP_LDTR) && body == n->u.pipe.compute;
			if (!lds_w && !lds_r)
				continue;
			IrRef t = I->op == IR_OP_LDSDMA ? I->ops[1] : I->ops[0];
			if (cg_tensor_of(c, ir_tensor_root(c->f, t))->space == IR_SPACE_LDS)
				I->imm[2] = tag;
		}
	if (!keep)
		c->env = saved;
}

/* 1 when load block L can be lowered twice (register-staged prefetch): its
 * statements are declarations, assignments to its own variables, assumptions
 * and copies, so lowering it again after compute repeats no side effect but
 * the LDS writes it defers */
static int
pipe_splittable(Node *l)
{
	for (int i = 0; i < l->u.block.n; i++) {
		Node *st = l->u.block.v[i], *cal;
		switch (st->kind) {
		case S_LET: case S_VAR: case S_ASSUME:
			break;
		case S_ASSIGN:
			if (st->u.assign.lhs->kind != E_NAME)
				return 0;
			break;
		case S_EXPR:
			cal = st->u.expr->kind == E_CALL ? st->u.expr->u.call.callee : NULL;
			if (!cal || cal->kind != E_NAME || cg_builtin(cal) != B_COPY)
				return 0;
			break;
		default:
			return 0;
		}
	}
	return 1;
}

/* 1 when load block L has a predicated copy (pred=): its predicates' arithmetic
 * dominates the iteration, and unrolling doubles it for little (gemm_nn_ragged
 * spilled SGPRs unrolled) */
static int
pipe_predicated(Node *l)
{
	for (int i = 0; i < l->u.block.n; i++) {
		Node *st = l->u.block.v[i];
		if (st->kind != S_EXPR || st->u.expr->kind != E_CALL)
			continue;
		for (int j = 0; j < st->u.expr->u.call.named.n; j++)
			if (!strcmp(st->u.expr->u.call.named.v[j]->name, "pred"))
				return 1;
	}
	return 0;
}

/* 1 when compute block C is straight-line: declarations, assignments,
 * assumptions and calls (a GEMM's fragment copies and gemm), no if or loop.
 * Only such pipelines get pipe_fast: the attention kernels' compute blocks
 * (ifs, static fors, reductions) spilled VGPRs with it on gfx1201 */
static int
pipe_straight(Node *b)
{
	for (int i = 0; i < b->u.block.n; i++)
		switch (b->u.block.v[i]->kind) {
		case S_LET: case S_VAR: case S_ASSUME: case S_ASSIGN: case S_EXPR:
			break;
		default:
			return 0;
		}
	return 1;
}

/* the stage of iteration k: k % S, a constant when k is lo + j for a constant lo */
static IrRef
pipe_stage_of(Cg *c, IrRef k, int64_t stages, const Value *lo, int64_t j)
{
	IrType i32 = ir_ty(IR_I32);
	if (lo && lo->kind == VAL_INT)
		return ir_b_const(&c->b, i32, (((lo->i + j) % stages) + stages) % stages);
	return ir_b_bin(&c->b, IR_OP_REM, k, ir_b_const(&c->b, i32, stages));
}

/* one steady-state iteration k of a pipeline with S > 1 stages (below):
 * wait; barrier; L(k + S - 1) (its LDS writes through registers deferred);
 * C(k); the deferred writes. LO (a constant or NULL) and J give the stages;
 * FAST: L's copies ignore their pred= (pipe_fast) */
static void
pipe_steady(Cg *c, Node *n, IrRef k, int64_t stages, const Value *lo, int64_t j, int fast)
{
	IrType i32 = ir_ty(IR_I32);
	ir_b_wait(&c->b, 0, 0, -1);
	ir_b_barrier(&c->b);
	/* pipelines do not nest (sema: pipeline-nested), so the queue is this one's */
	IrRef kn = ir_b_bin(&c->b, IR_OP_ADD, k, ir_b_const(&c->b, i32, stages - 1));
	IrRef sn = pipe_stage_of(c, kn, stages, lo, j + stages - 1);
	c->pipe_nq = 0;
	c->pipe_split = pipe_splittable(n->u.pipe.load);
	c->pipe_reg = c->b.cur;
	c->pipe_nopred = fast;
	uint32_t first = c->f->ninst;
	pipe_block(c, n, n->u.pipe.load, kn, sn, 0, 2 * c->npipes + 1);
	c->pipe_split = 0;
	c->pipe_nopred = 0;
	if (c->failed)
		return;
	/* marked for lower_sched.c: a load block with deferred writes or with
	 * loads straight to LDS (which need no writes after C(k)) */
	int ndef = 0, ndma = 0;
	for (int i = 0; i < c->pipe_nq; i++)
		ndef += c->pipe_q[i] != 0;
	for (uint32_t i = first; i < c->f->ninst && !ndma; i++)
		ndma += c->f->inst[i].op == IR_OP_LDSDMA;
	if (ndef || ndma)   /* the loads stay ahead of C(k), whose MFMAs cover their latency */
		ir_b_pipe_mark(&c->b, 1);
	pipe_block(c, n, n->u.pipe.compute, k, pipe_stage_of(c, k, stages, lo, j), 1, 2 * c->npipes + 2);
	if (c->failed || !(ndef || ndma))
		return;
	/* the deferred LDS writes of L(k + S - 1), kept after C(k) by a
	 * scheduling barrier: LLVM would otherwise hoist them above the MFMAs,
	 * and their waits for the global loads with them (lower_sched.c
	 * interleaves the three parts for MFMA issue after LLVM's pipeline) */
	ir_b_pipe_mark(&c->b, 2);
	if (!ndef)
		return;
	c->pipe_split = 2;
	c->pipe_iq = 0;
	c->pipe_nopred = fast;
	pipe_block(c, n, n->u.pipe.load, kn, sn, 0, 2 * c->npipes + 1);
	c->pipe_split = 0;
	c->pipe_nopred = 0;
}

/* a loop k in lo .. hi step STEP carrying VARS, whose body is BODY(k) below */
enum { PIPE_UNROLLED, PIPE_REST, PIPE_DRAIN };
/* the most stages a steady state is unrolled over: the compute block is lowered
 * S + 2 times, and at S = 8 examples/gemm_bf16.fly took minutes to compile */
enum { PIPE_MAXUNROLL = 3 };

static void
pipe_loop(Cg *c, Node *n, int what, IrRef lo, IrRef hi, int64_t stages, const Value *clo,
          Symbol **vars, int nv)
{
	IrType i32 = ir_ty(IR_I32);
	IrRef inits[MAXCARRY], iters[MAXCARRY], iv;
	int64_t step = what == PIPE_UNROLLED ? stages : 1;
	for (int i = 0; i < nv; i++)
		inits[i] = cg_lookup(c, vars[i]);
	IrRef loop = ir_b_for(&c->b, lo, hi, ir_b_const(&c->b, i32, step), (uint32_t)nv, inits, &iv, iters);
	Binding *saved = c->env;
	for (int i = 0; i < nv; i++)
		cg_bind(c, vars[i], iters[i]);
	if (what == PIPE_DRAIN) {
		ir_b_wait(&c->b, 0, 0, -1);
		ir_b_barrier(&c->b);
		pipe_block(c, n, n->u.pipe.compute, iv, pipe_stage_of(c, iv, stages, NULL, 0), 1, 0);
	} else if (what == PIPE_REST) {
		pipe_steady(c, n, iv, stages, NULL, 0, 0);
	} else {
		for (int64_t j = 0; j < stages && !c->failed; j++)
			pipe_steady(c, n, ir_b_bin(&c->b, IR_OP_ADD, iv, ir_b_const(&c->b, i32, j)), stages, clo, j, 0);
	}
	if (!c->failed)
		cg_close_loop(c, loop, vars, inits, nv, saved);
}

/* 1 when iterations k .. k + U - 1 are in the steady state (k + U <= mid)
 * and in every lane of the wave every predicated copy of L(k + S - 1) ..
 * L(k + U + S - 2) is all in range (pipe_fast): L is lowered in vote mode,
 * without its memory accesses, each copy's all-in-range predicate (one
 * compare per mode: pred_at) ANDed into pipe_ok, and the ballot makes the
 * result uniform in the wave. CLO (with U > 1): k is lo + a multiple of S. */
static IrRef
pipe_vote(Cg *c, Node *n, IrRef k, IrRef mid, int64_t stages, int64_t u, const Value *clo)
{
	IrType i1 = ir_ty(IR_I1), i32 = ir_ty(IR_I32), i64 = ir_ty(IR_I64);
	IrRef in = ir_b_cmp(&c->b, IR_LE, ir_b_bin(&c->b, IR_OP_ADD, k, ir_b_const(&c->b, i32, u)), mid);

	c->pipe_ok = 0;
	c->pipe_vote = 1;
	for (int64_t j = 0; j < u && !c->failed; j++) {
		IrRef kn = ir_b_bin(&c->b, IR_OP_ADD, k, ir_b_const(&c->b, i32, j + stages - 1));
		pipe_block(c, n, n->u.pipe.load, kn, pipe_stage_of(c, kn, stages, clo, j + stages - 1), 0, 0);
	}
	c->pipe_vote = 0;
	if (c->failed || !c->pipe_ok)
		return in;
	IrRef out = ir_b_bin(&c->b, IR_OP_XOR, c->pipe_ok, ir_b_const(&c->b, i1, 1));
	IrRef b = ir_b_inst(&c->b, IR_OP_BALLOT, i64, 1, &out);
	c->pipe_ok = 0;
	return ir_b_bin(&c->b, IR_OP_AND, in, ir_b_cmp(&c->b, IR_EQ, b, ir_b_const(&c->b, i64, 0)));
}

/* The in-range steady state of a pipeline whose load block L has predicated
 * copies (pipe_predicated, pipe_splittable, pipe_straight): a wave runs
 *     k = lo; go = vote(k)
 *     while go:
 *         U steady-state iterations k .. k + U - 1, L's copies unpredicated
 *         k += U; go = vote(k)
 * (pipe_vote) and returns k, where the predicated steady state (PIPE_REST)
 * goes on. So the element-wise paths of L's copies are not in this loop,
 * and its copies are split (register-staged prefetch) and, with a constant
 * lo and S <= PIPE_MAXUNROLL, unrolled U = S times, as in an unpredicated
 * pipeline. The vote for the next trip is taken at the end of the body: in
 * the loop's header it kept LLVM from rotating the loop (the ballot is
 * convergent), and the accumulators were copied on every trip (gemm_nt_ragged
 * 437 instructions per trip instead of 154). The waves of a workgroup may
 * leave at different k: both loops run one barrier per iteration, so they
 * still meet (a barrier counts waves, not program counters), and a wave
 * writes the same slots in either. The vote is taken per trip, not once, so
 * nothing is assumed of how the predicates change with k. */
static IrRef
pipe_fast(Cg *c, Node *n, IrRef lo, IrRef mid, int64_t stages, const Value *clo, Symbol **vars, int nv)
{
	IrType i32 = ir_ty(IR_I32);
	int64_t u = clo && stages <= PIPE_MAXUNROLL ? stages : 1;
	const Value *ulo = u > 1 ? clo : NULL;
	IrRef inits[MAXCARRY + 2], before[MAXCARRY + 2], body[MAXCARRY + 2], ys[MAXCARRY + 3], loop, k;
	Binding *saved = c->env;

	inits[0] = lo;
	if (!(inits[1] = pipe_vote(c, n, lo, mid, stages, u, ulo)))
		return 0;
	for (int i = 0; i < nv; i++)
		inits[i + 2] = cg_lookup(c, vars[i]);
	loop = ir_b_while(&c->b, (uint32_t)nv + 2, inits, before);
	ys[0] = before[1];
	for (int i = 0; i < nv + 2; i++)
		ys[i + 1] = before[i];
	ir_b_yield(&c->b, (uint32_t)nv + 3, ys);
	ir_b_while_body(&c->b, loop, body);
	for (int i = 0; i < nv; i++)
		cg_bind(c, vars[i], body[i + 2]);
	for (int64_t j = 0; j < u && !c->failed; j++)
		pipe_steady(c, n, ir_b_bin(&c->b, IR_OP_ADD, body[0], ir_b_const(&c->b, i32, j)), stages, ulo, j, 1);
	if (c->failed)
		return 0;
	ys[0] = k = ir_b_bin(&c->b, IR_OP_ADD, body[0], ir_b_const(&c->b, i32, u));
	if (!(ys[1] = pipe_vote(c, n, k, mid, stages, u, ulo)))
		return 0;
	for (int i = 0; i < nv; i++)
		ys[i + 2] = cg_to_type(c, cg_lookup(c, vars[i]), c->f->inst[inits[i + 2]].ty);
	ir_b_yield(&c->b, (uint32_t)nv + 2, ys);
	ir_b_end(&c->b);
	c->env = saved;
	for (int i = 0; i < nv; i++)
		cg_bind(c, vars[i], ir_b_proj(&c->b, loop, (unsigned)i + 2));
	return ir_b_proj(&c->b, loop, 0);
}

/* pipeline k in lo .. hi stages S { load {L} compute {C} }:
 *   for j in 0 .. S-2:  if lo + j < hi: L(lo + j)               (prologue)
 *   for k in lo .. hi:
 *     wait(vmem=0, lds=0); barrier   L(k)'s data is in its slot for every
 *                                    thread, and every thread is done with
 *                                    C(k-1)'s slot, which L(k+S-1) refills
 *     if k + S - 1 < hi: L(k + S - 1)   (overlaps C(k); the epilogue is the
 *     C(k)                               last S-1 iterations, with no load)
 *   wait(vmem=0, lds=0); barrier     the ring may be reused after the loop
 * With S > 1 and L made of declarations and copies (pipe_splittable), L's
 * copies that write LDS through registers are split (register-staged
 * prefetch, as in CUTLASS and Triton): L(k + S - 1) before C(k) only loads
 * their values into registers (results of its if), and
 *     if k + S - 1 < hi: the LDS writes of L(k + S - 1)
 * follows C(k), so the loads' latency is covered by C(k); the slot written
 * is still (k + S - 1) % S, which C(k) does not read and which the barrier
 * of iteration k + 1 publishes. Loads straight to LDS and the copies'
 * other writes stay before C(k).
 * Variables assigned in C are carried through the loop; L may not assign
 * variables declared outside it. */
void
cg_stmt_pipeline(Cg *c, Node *n)
{
	Symbol *vars[MAXCARRY], *lv[MAXCARRY];
	int nv = 0, nl = 0;
	IrRef lo, hi, inits[MAXCARRY], iters[MAXCARRY], iv, loop, one, S;
	IrType i32 = ir_ty(IR_I32);
	Binding *saved;
	int64_t stages = n->u.pipe.stages->cval && n->u.pipe.stages->cval->kind == VAL_INT
	                 ? n->u.pipe.stages->cval->i : 0;

	if (stages < 1 || stages > 8) {
		cg_unsupported(c, n->u.pipe.stages->span, "a pipeline whose stage count is not a constant 1..8");
		return;
	}
	cg_collect_assigned(n->u.pipe.load, lv, &nl, MAXCARRY);
	for (int i = 0; i < nl; i++)
		if (cg_lookup(c, lv[i])) {
			cg_unsupported(c, n->u.pipe.load->span, "a pipeline load block assigning variables declared outside it");
			return;
		}
	nv = cg_carried(c, n->u.pipe.compute, vars, inits);
	if (!(lo = cg_expr(c, n->u.pipe.lo)) || !(hi = cg_expr(c, n->u.pipe.hi)))
		return;
	lo = cg_to_type(c, lo, i32);
	hi = cg_to_type(c, hi, i32);
	c->b.loc = cg_loc_of(c, n->span);
	S = ir_b_const(&c->b, i32, stages);
	one = ir_b_const(&c->b, i32, 1);
	/* prologue */
	for (int64_t j = 0; j + 1 < stages && !c->failed; j++) {
		IrRef kj = ir_b_bin(&c->b, IR_OP_ADD, lo, ir_b_const(&c->b, i32, j));
		ir_b_if(&c->b, ir_b_cmp(&c->b, IR_LT, kj, hi), 0, NULL);
		pipe_block(c, n, n->u.pipe.load, kj, pipe_stage_of(c, kj, stages, n->u.pipe.lo->cval, j), 0, 0);
		ir_b_else(&c->b);
		ir_b_end(&c->b);
	}
	if (c->failed)
		return;
	if (stages == 1) {
		loop = ir_b_for(&c->b, lo, hi, one, (uint32_t)nv, inits, &iv, iters);
		saved = c->env;
		for (int i = 0; i < nv; i++)
			cg_bind(c, vars[i], iters[i]);
		ir_b_wait(&c->b, 0, 0, -1);
		ir_b_barrier(&c->b);
		pipe_block(c, n, n->u.pipe.load, iv, ir_b_const(&c->b, i32, 0), 0, 0);
		ir_b_wait(&c->b, 0, 0, -1);
		ir_b_barrier(&c->b);
		pipe_block(c, n, n->u.pipe.compute, iv, ir_b_const(&c->b, i32, 0), 1, 0);
		if (c->failed)
			return;
		cg_close_loop(c, loop, vars, inits, nv, saved);
	} else {
		/* the steady state, k in lo .. mid with mid = max(lo, hi - (S - 1)),
		 * loads unconditionally; with a constant lo, S <= PIPE_MAXUNROLL
		 * and no predicated copy in L it is unrolled S times, so that every copy's stages are
		 * constants (LDS offsets fold into the instructions), and the rest,
		 * fewer than S iterations, follow as a plain loop; then the drain,
		 * k in mid .. hi, only computes */
		const Value *clo = n->u.pipe.lo->cval && n->u.pipe.lo->cval->kind == VAL_INT ? n->u.pipe.lo->cval : NULL;
		IrRef last = ir_b_bin(&c->b, IR_OP_SUB, hi, ir_b_const(&c->b, i32, stages - 1));
		IrRef mid = ir_b_select(&c->b, ir_b_cmp(&c->b, IR_LT, last, lo), lo, last);
		IrRef rest = lo;
		if (pipe_predicated(n->u.pipe.load)) {
			if (pipe_splittable(n->u.pipe.load) && pipe_straight(n->u.pipe.compute))
				rest = pipe_fast(c, n, lo, mid, stages, clo, vars, nv);
		} else if (clo && stages <= PIPE_MAXUNROLL) {
			rest = ir_b_bin(&c->b, IR_OP_SUB, mid, ir_b_bin(&c->b, IR_OP_REM, ir_b_bin(&c->b, IR_OP_SUB, mid, lo), S));
			pipe_loop(c, n, PIPE_UNROLLED, lo, rest, stages, clo, vars, nv);
		}
		if (!c->failed)
			pipe_loop(c, n, PIPE_REST, rest, mid, stages, NULL, vars, nv);
		if (!c->failed)
			pipe_loop(c, n, PIPE_DRAIN, mid, hi, stages, NULL, vars, nv);
		if (c->failed)
			return;
	}
	ir_b_wait(&c->b, 0, 0, -1);
	ir_b_barrier(&c->b);
	c->npipes++;
}
