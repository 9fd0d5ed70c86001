#!/bin/sh
# tests/topk/run.sh — TopK (flyc.ops.topk; docs/ops.md) on the simulator: test_topk.py runs
# the kernels of stdlib/ops/topk.fly through the operator library against CPU torch
# (values bitwise, indices in the documented order, gather, ties, NaN guards around the
# outputs; one PASS/FAIL line per (k, N) and per special case); and
# scripts/topk_bytes.py --check: the register kernels move exactly the ideal bytes per row.
# FLY_SAN=1: the sanitized libflyrt.so preloaded, a reduced matrix.
. "$FLY_TOP/tests/lib.sh"
op_tier topk tests/topk/test_topk.py scripts/topk_bytes.py "register kernels move the ideal bytes per row (x read once, values and indices written once)"
