#!/bin/sh
# tests/grouped/run.sh — grouped GEMM (flyc.ops.grouped_mm; docs/ops.md) on the simulator:
# test_grouped.py runs the kernels of stdlib/ops/grouped_mm.fly (bf16 and fp16, the three tile
# widths) through the operator library against a float64 reference, with NaN-poisoned inputs,
# guarded outputs and untouched uncovered rows, empty and one-row groups, forced variants,
# refusals, invalid offsets clamped by the kernel itself (launched directly through flyrt.py)
# and an LDS race-checked run; then the kernels' resource usage (no spills, no scratch; the
# persistent kernels of grouped_mm_p.fly too, compiled as the Makefile does) and their main
# loops on llvm-mca (the same instructions as the one-tile kernels').
# FLY_SAN=1: the sanitized libflyrt.so preloaded, one shape per variant.
. "$FLY_TOP/tests/lib.sh"
op_tier grouped tests/grouped/test_grouped.py - ""
if out=$("$FLYC" "$FLY_TOP/stdlib/ops/grouped_mm.fly" --offload-arch=gfx950 --resource-usage -o "$TMP/g.hsaco" 2>&1) &&
   [ "$(printf '%s\n' "$out" | grep -c 'scratch 0 bytes, spills 0 VGPR / 0 SGPR')" = 6 ]; then
	pass grouped/no-spills
else
	fail grouped/no-spills "$out"
fi
out=$("$FLYC" "$FLY_TOP/stdlib/ops/grouped_mm_p.fly" --offload-arch=gfx950 --resource-usage -mllvm -disable-machine-licm \
	-o "$TMP/gp.hsaco" 2>&1)
if [ "$(printf '%s\n' "$out" | grep -c '_p \[gfx950\]: .*scratch 0 bytes, spills 0 VGPR / 0 SGPR')" = 6 ]; then
	pass grouped/persistent-spills
else
	fail grouped/persistent-spills "$out"
fi
if [ -f "$TMP/g.hsaco" ] && mca=$(/usr/bin/python3 "$FLY_TOP/scripts/mca_loop.py" "$TMP/g.hsaco" grouped_mm_nn_bf16 grouped_mm_nn_bf16_n64 2>&1) &&
   mcp=$(/usr/bin/python3 "$FLY_TOP/scripts/mca_loop.py" "$TMP/gp.hsaco" grouped_mm_nn_bf16_p grouped_mm_nn_bf16_n64_p 2>&1) &&
   [ "$(printf '%s\n' "$mca" | tail -n 2 | awk '{print $2, $3, $4}')" = "$(printf '%s\n' "$mcp" | tail -n 2 | awk '{print $2, $3, $4}')" ]; then
	pass grouped/persistent-main-loop
else
	fail grouped/persistent-main-loop "$mca
$mcp"
fi
