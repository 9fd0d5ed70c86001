#!/bin/sh
# tests/atoms/run.sh — every gfx950 MMA atom of stdlib/gfx950.fly (and every
# gfx1201 WMMA atom of stdlib/gfx1201.fly) proven on the
# simulator: tests/atoms/atoms.py writes a one-wave kernel per atom (A and B
# loaded through the atom's partitions, one gemm, C stored), compiles it with
# flyc, runs it on flyc-sim with random inputs and compares with its own CPU
# matmul. One PASS/FAIL/SKIP line per atom.
. "$FLY_TOP/tests/lib.sh"
SIM="$BIN/flyc-sim"
if [ ! -x "$SIM" ]; then echo "FAIL: atoms/flyc-sim (not built: $SIM)"; exit 0; fi
if ! command -v python3 >/dev/null 2>&1; then echo "SKIP: atoms (no python3)"; exit 0; fi
python3 "$FLY_TOP/tests/atoms/atoms.py" "$FLYC" "$SIM" "$FLY_TOP/stdlib/gfx950.fly" "$TMP" 2>&1 ||
	echo "FAIL: atoms/harness (atoms.py exited with status $?)"
# every gfx1201 WMMA atom of stdlib/gfx1201.fly on a sim:gfx1201 device, also
# with each operand's k order checked against the calculator's (atoms.py)
python3 "$FLY_TOP/tests/atoms/atoms.py" "$FLYC" "$SIM" "$FLY_TOP/stdlib/gfx1201.fly" "$TMP/gfx1201" 2>&1 ||
	echo "FAIL: atoms/harness-gfx1201 (atoms.py exited with status $?)"
# convert<fp4|fp6|bf6> and back (tests/atoms/cvt.fly) against cvt.py's rounding
python3 "$FLY_TOP/tests/atoms/cvt.py" "$FLYC" "$SIM" "$FLY_TOP/tests/atoms/cvt.fly" "$TMP/cvt" 2>&1 ||
	echo "FAIL: atoms/cvt-harness (cvt.py exited with status $?)"
