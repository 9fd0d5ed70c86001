#!/bin/sh
# scripts/bench-timing.sh BUILD — modelled time, TFLOPS or TB/s and the share of the MI355X
# roofline of every standard-library operator variant at PyTorch benchmark shapes, from the
# simulator's timing model in timing-only sampled mode: scripts/bench-timing.py (run by
# scripts/bench.sh; a few minutes). BENCH_QUICK=1: one shape per operator.
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
	echo "bench-timing: skipped (needs /usr/bin/python3 with torch)"
	exit 0
fi
exec /usr/bin/python3 "$top/scripts/bench-timing.py" "$build" ${BENCH_QUICK:+--quick}
