#!/bin/sh
# scripts/bench-sim.sh BUILD — simulator throughput (run by scripts/bench.sh).
# Prints simulated lane-instructions per second for a mixed f32/int/LDS kernel
# and the slowdown against the same work written in plain C on this host, and
# the time of a 256x256x256 BF16 MFMA GEMM when the simulator supports MFMA.
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
sim="$top/$build/bin/flyc-sim"
case "$build" in /*) sim="$build/bin/flyc-sim" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
[ -x "$sim" ] || { echo "bench-sim: $sim not built"; exit 1; }
clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx950 -nogpulib -O3 -Wno-everything -c "$top/tests/sim/bench/bench.cl" -o "$tmp/b.o" &&
	ld.lld-22 -shared "$tmp/b.o" -o "$tmp/b.hsaco" || { echo "bench-sim: cannot compile the kernel"; exit 1; }
cc -O2 -o "$tmp/native" "$top/tests/sim/bench/native.c" -lm || exit 1
G=16 B=256 IT=2000
# CPU time of the launch (flyc-sim --stats) and of the native loop: robust on a busy machine
"$sim" "$tmp/b.hsaco" b_mix --grid=$G --block=$B --stats buf=$((G*B*4)) buf=$((G*B*4)) i32=$IT 2>"$tmp/stats" || { cat "$tmp/stats"; exit 1; }
"$tmp/native" $G $B $IT 2>"$tmp/native.txt" >/dev/null
lanes=$(sed -n 's/.* \([0-9]*\) lane instructions.*/\1/p' "$tmp/stats")
s=$(sed -n 's/.*, \([0-9.]*\) s CPU.*/\1/p' "$tmp/stats")
n=$(sed -n 's/native: \([0-9.]*\) s CPU.*/\1/p' "$tmp/native.txt")
awk -v l="$lanes" -v s="$s" -v n="$n" 'BEGIN {
	if (s <= 0) s = 1e-6; if (n <= 0) n = 1e-6;
	printf "sim: %d lane-instructions in %.2f s CPU = %.1f M lane-instructions/s\n", l, s, l / s / 1e6;
	printf "sim: %.0fx slower than the same work in native C (%.3f s CPU)\n", s / n, n }'
if [ -f "$top/tests/sim/bench/gemm.cl" ]; then
	if clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx950 -nogpulib -O3 -c "$top/tests/sim/bench/gemm.cl" -o "$tmp/g.o" 2>/dev/null &&
	   ld.lld-22 -shared "$tmp/g.o" -o "$tmp/g.hsaco"; then
		if "$sim" "$tmp/g.hsaco" gemm_bf16 --grid=16,16 --block=64 --stats buf=131072 buf=131072 buf=262144 >"$tmp/g.log" 2>&1; then
			echo "sim: 256x256x256 BF16 MFMA GEMM in $(sed -n 's/.*, \([0-9.]*\) s CPU.*/\1/p' "$tmp/g.log") s CPU"
		else echo "sim: 256x256x256 BF16 MFMA GEMM not run: $(head -c 300 "$tmp/g.log")"; fi
	fi
fi
