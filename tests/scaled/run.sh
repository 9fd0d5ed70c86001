#!/bin/sh
# tests/scaled/run.sh — MX scaled GEMM (flyc.ops.scaled_mm; docs/ops.md) on the simulator:
# test_scaled.py runs the kernels of stdlib/ops/scaled_mm.fly (MXFP8 and MXFP4, bf16 and fp16
# out, with and without bias) through the operator library against a float64 reference of the
# MX dequantised product, with NaN-poisoned inputs and guarded outputs, scale extremes, special
# codes, forced variants and refusals; one PASS/FAIL line per test.
# FLY_SAN=1: the sanitized libflyrt.so preloaded, one shape per variant.
. "$FLY_TOP/tests/lib.sh"
op_tier scaled tests/scaled/test_scaled.py - ""
