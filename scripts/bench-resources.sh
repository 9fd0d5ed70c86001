#!/bin/sh
# scripts/bench-resources.sh BUILD — VGPRs, spills, scratch, LDS and occupancy of every
# kernel of stdlib/ops/*.fly for each arch the Makefile's OPS_LIB lists it for
# (scripts/bench-resources.py; run by scripts/bench.sh).
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$top/scripts/bench-resources.py" "$build"
