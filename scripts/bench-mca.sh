#!/bin/sh
# make bench: the innermost MFMA loop of every gfx950 kernel of the kernel library
# on llvm-mca's gfx950 model (scripts/mca_loop.py): instructions, MFMAs, VALU,
# s_waitcnt, cycles of 100 iterations, the MFMAs' own cycles and their ratio
# (issue #20's target: >= 95% for the large tiles; AITER's asm loop 99.5%).
set -u
build=${1:-build}
case "$build" in /*) ;; *) build=$(pwd)/$build ;; esac
command -v llvm-mca-22 >/dev/null 2>&1 || { echo "bench-mca: llvm-mca-22 not installed"; exit 0; }
for co in "$build"/lib/flyc/kernels/gfx950/*.hsaco; do
	echo "-- $(basename "$co")"
	/usr/bin/python3 scripts/mca_loop.py "$co"
done
