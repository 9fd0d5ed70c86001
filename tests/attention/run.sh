#!/bin/sh
# tests/attention/run.sh — attention forward (flyc.ops.attention; docs/ops.md "Attention
# forward") on the simulator: attn_fwd.py runs the kernels of stdlib/ops/attention.fly through
# the operator library against the f32 CPU reference, inputs poisoned with NaN around them,
# BHSD and transposed BSHD views, the kernels launched directly with strided views in place
# and NaN sentinels around O and LSE, one case under the LDS race check, and refusals; one
# PASS/FAIL line per test. FLY_SLOW=1: the full matrix; FLY_SAN=1: one shape per variant.
. "$FLY_TOP/tests/lib.sh"
op_tier attention tests/attention/attn_fwd.py - ""
