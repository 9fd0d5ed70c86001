#!/bin/sh
# Benchmark: a 256x256x256 BF16 GEMM (1024 v_mfma_f32_32x32x16_bf16, 16 workgroups of 4
# waves) run by flyc-sim, with all inputs 0x3F3F (bf16 0.74609375), so every D element
# must be 256 * 0.74609375^2 = 142.50390625. Prints the wall time and MFMA/s; the
# baseline is the same launch with a kernel that returns at once (simulator start-up).
# Usage: scripts/bench-sim-mfma.sh BUILD
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
sim="$top/$build/bin/flyc-sim"
case "$build" in /*) sim="$build/bin/flyc-sim" ;; esac
bin=$(llvm-config-22 --bindir 2>/dev/null || echo /usr/lib/llvm-22/bin)
[ -x "$sim" ] || { echo "bench-sim-mfma: no $sim (run make first)"; exit 0; }
[ -x "$bin/clang" ] || { echo "bench-sim-mfma: no clang in $bin"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cl="$top/tests/sim/simx/gemm256.cl"
"$bin/clang" -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx950 -nogpulib -O3 -c "$cl" -o "$tmp/g.o" &&
	"$bin/ld.lld" -shared "$tmp/g.o" -o "$tmp/g.hsaco" || { echo "bench-sim-mfma: compile failed"; exit 0; }
printf 'kernel void empty(global float *p) { }\n' > "$tmp/e.cl"
"$bin/clang" -x cl -target amdgcn-amd-amdhsa -mcpu=gfx950 -nogpulib -O3 -c "$tmp/e.cl" -o "$tmp/e.o" &&
	"$bin/ld.lld" -shared "$tmp/e.o" -o "$tmp/e.hsaco" || exit 0
now() { date +%s.%N; }
t0=$(now)
"$sim" "$tmp/e.hsaco" empty --grid=16 --block=256 buf=262144 >/dev/null 2>&1
t1=$(now)
if ! "$sim" "$tmp/g.hsaco" gemm256 --grid=16 --block=256 buf=131072,fill=0x3f buf=131072,fill=0x3f \
	buf=262144,out="$tmp/d.bin" >"$tmp/log" 2>&1; then
	echo "bench-sim-mfma: flyc-sim failed:"; sed 's/^/    /' "$tmp/log"; exit 0
fi
t2=$(now)
# every float must be 142.50390625 = 0x430E8100 (little-endian bytes 00 81 0e 43)
bad=$(od -A n -v -t x4 "$tmp/d.bin" | tr -s ' ' '\n' | grep -v '^$' | grep -cv '^430e8100$')
awk -v a="$t0" -v b="$t1" -v c="$t2" -v bad="$bad" 'BEGIN {
	base = b - a; run = c - b;
	printf "gemm 256x256x256 bf16: %.3f s (start-up baseline %.3f s, ratio %.1f), %.0f MFMA/s, %s\n",
	       run, base, (base > 0 ? run / base : 0), (run > base ? 1024 / (run - base) : 0),
	       (bad == 0 ? "result correct" : "RESULT WRONG in " bad " elements") }'
