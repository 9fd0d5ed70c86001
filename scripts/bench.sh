#!/bin/sh
# make bench: run every scripts/bench-*.sh with the build folder as argument
# (bench-timing.sh: the timing model's figures for every operator variant).
# Each benchmark measures its subject and a baseline in the same run and prints
# the ratio, so numbers are comparable across machines.
set -u
build=${1:-build}
n=0
for b in scripts/bench-*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	sh "$b" "$build" || echo "bench: $b failed"
	n=$((n + 1))
done
[ "$n" = 0 ] && echo "bench: no benchmarks yet"
exit 0
