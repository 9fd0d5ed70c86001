#!/bin/sh
# make demo: compile examples/gemm_bf16.fly (C = A * B^T, bf16 in, f32 accumulation,
# MFMA 32x32x16) for gfx950 with flyc, print its resource usage, run it through
# libflyrt (python/flyrt.py) on the simulator for a few shapes against a CPU
# reference (scripts/gemm_sim.py), including a shape its `requires` refuses:
# first the 256x256x64-tile variant (issue 8's headline kernel) and its
# 128-bit-store epilogue, then the 128x128 and 256x128 ones, then the ragged
# one (predicated edges) on a shape that is no multiple of its tile.
# Exit status 1 when any shape fails.
# Another example: set DEMO_FLY and DEMO_PY (a script shaped like scripts/demo.py,
# which runs examples/elementwise.fly).
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case "$build" in /*) ;; *) build=$top/$build ;; esac
fly=${DEMO_FLY:-$top/examples/gemm_bf16.fly}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "demo: $(basename "$fly") for gfx950 (flyc -O3), run on the simulator"
"$build/bin/flyc" "$fly" --offload-arch=gfx950 -O3 --resource-usage -o "$tmp/demo.hsaco" || {
	echo "demo: FAIL (flyc)"; exit 1; }
if [ -n "${DEMO_FLY:-}" ]; then
	FLYRT_LIB="$build/libflyrt.so" FLY_DEVICE=sim python3 "${DEMO_PY:-$top/scripts/demo.py}" "$tmp/demo.hsaco"
	rc=$?
else
	echo "gemm_nt_256x256 (8 waves of 128x64, 256x256x64 tiles, two stages of swizzled LDS = 128 KiB):"
	FLYRT_LIB="$build/libflyrt.so" python3 "$top/scripts/gemm_sim.py" --demo "$tmp/demo.hsaco" gemm_nt_256x256 \
		512x512x64 256x256x192 320x256x64
	rc=$?
	echo "gemm_nt_256x256_st128 (the same, C stored through LDS with 128-bit stores):"
	FLYRT_LIB="$build/libflyrt.so" python3 "$top/scripts/gemm_sim.py" --demo "$tmp/demo.hsaco" gemm_nt_256x256_st128 \
		256x512x128 || rc=1
	echo "gemm_nt_128x128 (4 waves, 128x128x64 tiles):"
	FLYRT_LIB="$build/libflyrt.so" python3 "$top/scripts/gemm_sim.py" --demo "$tmp/demo.hsaco" gemm_nt_128x128 \
		256x256x128 200x128x64 || rc=1
	echo "gemm_nt_256x128 (8 waves, 256x128x64 tiles):"
	FLYRT_LIB="$build/libflyrt.so" python3 "$top/scripts/gemm_sim.py" --demo "$tmp/demo.hsaco" gemm_nt_256x128 \
		512x256x128 || rc=1
	echo "gemm_nt_ragged (the 128x128 tiles with predicated edges: any M, N; K % 8 == 0):"
	FLYRT_LIB="$build/libflyrt.so" python3 "$top/scripts/gemm_sim.py" --demo "$tmp/demo.hsaco" gemm_nt_ragged \
		200x136x72 || rc=1
fi
[ $rc = 0 ] && echo "demo: PASS" || echo "demo: FAIL"
exit $rc
