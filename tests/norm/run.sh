#!/bin/sh
# tests/norm/run.sh — RMSNorm (flyc.ops.rms_norm, rms_norm_backward; docs/ops.md) on the
# simulator: test_norm.py runs the kernels of stdlib/ops/norm.fly through the operator
# library against f64 references within the documented bounds, with NaN guards around the
# outputs (one PASS/FAIL line per dtype and N, per variant, per special case); and
# scripts/norm_bytes.py --check: the register kernels move exactly the ideal bytes per row.
# FLY_SAN=1: the sanitized libflyrt.so preloaded, a reduced matrix.
. "$FLY_TOP/tests/lib.sh"
op_tier norm tests/norm/test_norm.py scripts/norm_bytes.py "register kernels move the ideal bytes per row (x read once, y written once)"
