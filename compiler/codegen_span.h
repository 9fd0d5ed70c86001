/* Span bounds for buffer addressing (internal to compiler/codegen*.c).
 *
 * A buffer descriptor addresses a global tensor with 32-bit byte offsets, so
 * a buffer atom may only be used on a tensor whose byte span (the offset of
 * its last element plus one, times the element size) is provably below
 * 2^32. For a run-time layout the span is a polynomial over the kernel's
 * integer parameters:
 *
 *   span = 1 + sum_i (extent_i - 1) * stride_i      (elements)
 *
 * e.g. (M, K):(K, 1) gives (M-1)*K + (K-1) + 1 = M*K after collecting terms,
 * and (M, K):(ld, 1) gives M*ld - ld + K. cg_span_bound bounds it from above
 * over the values the parameters may take: their types (i32: below 2^31),
 * the facts the kernel's `requires` predicates state (read from the RPN
 * recorded in IrFunc.req_rpn, the same formulas the runtime checks before a
 * launch: `M * K <= 1 << 30` bounds the monomial M*K, `N < 65536` the
 * variable N, `x >= 0` makes x non-negative), and the tensor being non-empty
 * (a parameter that is itself an extent is at least 1; an empty tensor has no
 * element to address). Each positive monomial is bounded by the tightest of:
 * a fact on exactly that monomial, products of facts on its factors (when
 * they are non-negative), and the product of per-parameter bounds; a negative
 * monomial is dropped only when it is provably non-negative, otherwise its
 * largest magnitude is added. Every run-time stride must be provably
 * non-negative (a negative offset would wrap in a descriptor).
 *
 * Soundness rests on the runtime: it declines a launch whose predicates are
 * false, and it evaluates them in 64 bits, an overflow making the predicate
 * false (docs/metadata.md), so the facts hold over the integers.
 */
#ifndef FLYC_CODEGEN_SPAN_H
#define FLYC_CODEGEN_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"

/* An upper bound of the byte span of global tensor T (a run-time layout) of
 * kernel F, when it proves the span at most 2^32 - 1; else 0, and WHY (size
 * WN) says why, as a sentence fragment naming the span polynomial and
 * suggesting a bound. Parameters whose bit is set in UNSIGNED_PARAMS (index
 * < 64; higher indices count as unsigned) take no facts from `requires`: the
 * runtime reads them zero-extended while the kernel's 32-bit arithmetic
 * treats them as signed. */
uint64_t cg_span_bound(const IrFunc *f, const IrTensor *T, uint64_t unsigned_params,
                       char *why, size_t wn);

#endif
