#!/bin/sh
# scripts/bench-topk.sh BUILD — TopK's global memory traffic per row, counted by the
# simulator against the ideal (x read once, k values and indices written once):
# scripts/topk_bytes.py (run by scripts/bench.sh).
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$top/scripts/topk_bytes.py" "$build"
