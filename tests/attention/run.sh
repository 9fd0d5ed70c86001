#!/bin/sh
# tests/attention/run.sh — the attention operators (flyc.ops.attention, attention_backward;
# docs/ops.md) on the simulator: every tests/attention/attn_*.py, each printing one PASS/FAIL
# line per test (attn_fwd.py: the forward's kernels against the f32 reference, BHSD and
# transposed BSHD views, direct launches with NaN sentinels around O and LSE, the race check;
# attn_bwd.py: the backward's kernels against torch autograd of the f32 reference). FLY_SAN=1: the sanitized libflyrt.so preloaded, a reduced matrix; FLY_SLOW=1:
# the full matrix.
. "$FLY_TOP/tests/lib.sh"
for t in "$FLY_TOP"/tests/attention/attn_*.py; do
	op_tier attention "$t" - ""
done
