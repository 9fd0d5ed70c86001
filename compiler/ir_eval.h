/*
 * ir_eval.h — per-thread interpreter of a kernel's integer IR, shared by the
 * analyses that need one thread's value of an index computation: the LDS
 * bank report (ir_banks.c) and the placement check of loads straight to LDS
 * (codegen_copy.c).
 *
 * Model. ir_eval(e, r) computes the value of scalar integer instruction r
 * for one thread of one workgroup, following its operands recursively:
 *   - const: its value; thread_id d: the thread id e->tid[d]; wave_size:
 *     e->wave_size;
 *   - integer ops: exactly as LLVM would compute them on values of the
 *     instruction's type width, the binary ones (add ... max) through
 *     ir_fold_binary, so constant folding and evaluation cannot disagree:
 *     div/rem/shr/ult.. are unsigned at the type's width, sdiv/srem/min/max/
 *     lt.. signed; cvt sign-extends (zero-extends from i1) or truncates;
 *     select follows only the chosen operand; readfirstlane is its operand
 *     (the op promises a wave-uniform operand);
 *   - workgroup-uniform values the evaluator does not follow (arguments,
 *     block ids, `proj` of a for/if, region arguments) are drawn per seed:
 *     a pseudo-random function of (seed, instruction), arguments as
 *     multiples of 64 in [64, 65536], others in [0, 65535]; the counter of
 *     a `for` (its region argument 0) takes the value fixed by
 *     ir_eval_set_counter when there is one, else a draw.
 * Values are kept in canonical form: sign-extended from the type's width
 * (i1: 0 or 1), as ir_const_value gives constants.
 *
 * Anything else (memory, vectors, floating point, a side effect, a shift
 * by at least the type's width, which is poison in LLVM) sets e->bad: the
 * result is meaningless and stays so (every later ir_eval returns 0) until
 * the caller clears e->bad. Division by zero (immediate undefined behaviour
 * in LLVM, never reached by a correct kernel) evaluates to 0, so a random
 * draw that happens to hit it is not taken for a value the kernel depends on.
 *
 * Values are memoised per thread: ir_eval_thread, ir_eval_seed and
 * ir_eval_set_counter start a fresh evaluation.
 *
 * Example (thread 5 of a block of 64):
 *
 *   IrEval e;
 *   ir_eval_init(&e, f, 64);
 *   ir_eval_seed(&e, 1);
 *   ir_eval_thread(&e, 5, 0, 0);
 *   int64_t off = ir_eval(&e, offset_ref);   // meaningful when !e.bad
 *   ir_eval_free(&e);
 */
#ifndef FLY_IR_EVAL_H
#define FLY_IR_EVAL_H

#include "ir.h"

typedef struct IrEval {
	const IrFunc *f;
	unsigned wave_size;   /* the value of wave_size */
	uint64_t seed;        /* the workgroup-uniform world (ir_eval_seed) */
	int64_t tid[3];       /* the thread (ir_eval_thread) */
	int bad;              /* set when a value cannot be evaluated; cleared only by the caller */
	/* private: memo (valid where stamp == gen), loop counters (where set) */
	int64_t *val;
	uint32_t *stamp, gen;
	int64_t *counter;
	unsigned char *counter_set;
} IrEval;

/* A state for kernel f (seed 0, thread (0,0,0), no counters fixed);
 * release with ir_eval_free. */
void ir_eval_init(IrEval *e, const IrFunc *f, unsigned wave_size);
void ir_eval_free(IrEval *e);
/* Picks the uniform world and forgets every fixed loop counter. */
void ir_eval_seed(IrEval *e, uint64_t seed);
/* Picks the thread (x, y, z) and clears e->bad. */
void ir_eval_thread(IrEval *e, int64_t x, int64_t y, int64_t z);
/* Fixes the counter of `for` loop (an IR_OP_FOR instruction) to v. */
void ir_eval_set_counter(IrEval *e, IrRef loop, int64_t v);
/* The value of integer scalar r for the current thread; 0 with e->bad set
 * when it cannot be evaluated. */
int64_t ir_eval(IrEval *e, IrRef r);
/* v of type t in canonical form (sign-extended from t's width; i1: 0 or 1) */
int64_t ir_eval_wrap(IrType t, int64_t v);
/* v as an unsigned number of t's width */
uint64_t ir_eval_unsigned(IrType t, int64_t v);
/* The 64-bit mixing function the draws use (splitmix64's finaliser), for
 * callers that draw their own choices in step with the evaluator. */
uint64_t ir_eval_mix(uint64_t x);

#endif
