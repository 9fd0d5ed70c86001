#!/bin/sh
# tests/topk/run.sh — TopK (flyc.ops.topk; docs/ops.md) on the simulator: test_topk.py runs
# the kernels of stdlib/ops/topk.fly through the operator library against CPU torch
# (values bitwise, indices in the documented order, gather, ties, NaN guards around the
# outputs; one PASS/FAIL line per (k, N) and per special case); and
# scripts/topk_bytes.py --check: the register kernels move exactly the ideal bytes per row.
# FLY_SAN=1: the sanitized libflyrt.so preloaded, a reduced matrix.
. "$FLY_TOP/tests/lib.sh"
cd "$FLY_TOP" || exit 2
case "$FLY_BUILD" in /*) B=$FLY_BUILD ;; *) B=$FLY_TOP/$FLY_BUILD ;; esac
PY=/usr/bin/python3
CC=${CC:-cc}
if ! "$PY" -c "import torch" 2>/dev/null; then
	echo "SKIP: topk (no torch for $PY)"
	exit 0
fi
if [ "$FLY_SAN" = 1 ]; then
	asan=$($CC -print-file-name=libasan.so) ubsan=$($CC -print-file-name=libubsan.so)
	env -u FLY_DEVICE -u FLYC_TUNING_DB -u FLYC_KERNEL_DIR FLYRT_LIB="$B/libflyrt.so" \
		LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0 FLY_SAN=1 "$PY" tests/topk/test_topk.py >"$TMP/out" 2>&1
else
	env -u FLY_DEVICE -u FLYC_TUNING_DB -u FLYC_KERNEL_DIR FLYRT_LIB="$B/libflyrt.so" "$PY" tests/topk/test_topk.py >"$TMP/out" 2>&1
fi
rc=$?
cat "$TMP/out"
if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/out"; then fail "topk: test_topk.py exited $rc" "$(tail -n 20 "$TMP/out")"; fi
# the register kernels read each row once: bytes moved, counted from flyc-sim's trace
if "$PY" scripts/topk_bytes.py --check "$B" >"$TMP/bytes" 2>&1; then
	pass "topk: register kernels move the ideal bytes per row (x read once, values and indices written once)"
else
	fail "topk: register kernels move the ideal bytes per row (x read once, values and indices written once)" "$(cat "$TMP/bytes")"
fi
exit 0
