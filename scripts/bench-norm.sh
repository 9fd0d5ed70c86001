#!/bin/sh
# scripts/bench-norm.sh BUILD — RMSNorm's global memory traffic per row, counted by the
# simulator against the ideal (x read once, y written once, the weight counted once):
# scripts/norm_bytes.py (run by scripts/bench.sh).
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$top/scripts/norm_bytes.py" "$build"
