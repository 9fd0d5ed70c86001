#!/bin/sh
# scripts/bench-attention-bwd.sh BUILD — attention_backward's kernels: static resources and
# modelled time (scripts/bench-attention-bwd.py; run by scripts/bench.sh).
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$top/scripts/bench-attention-bwd.py" "$build"
