#!/bin/sh
# make demo: compile examples/elementwise.fly for gfx950 with flyc, print its resource
# usage, run it through libflyrt (python/flyrt.py) on the simulator on a few shapes
# against a CPU reference (scripts/demo.py). Exit status 1 when any shape fails.
# Another example: set DEMO_FLY and DEMO_PY (a script shaped like scripts/demo.py).
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case "$build" in /*) ;; *) build=$top/$build ;; esac
fly=${DEMO_FLY:-$top/examples/elementwise.fly}
py=${DEMO_PY:-$top/scripts/demo.py}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "demo: $(basename "$fly") for gfx950 (flyc -O3), run on the simulator"
"$build/bin/flyc" "$fly" --offload-arch=gfx950 -O3 --resource-usage -o "$tmp/demo.hsaco" || {
	echo "demo: FAIL (flyc)"; exit 1; }
FLYRT_LIB="$build/libflyrt.so" FLY_DEVICE=sim python3 "$py" "$tmp/demo.hsaco"
rc=$?
[ $rc = 0 ] && echo "demo: PASS" || echo "demo: FAIL"
exit $rc
