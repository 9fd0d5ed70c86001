#!/bin/sh
# scripts/bench-compile.sh BUILD — compile speed (run by scripts/bench.sh).
#   1. flyc compiling each example to a gfx950 code object at -O3, best of RUNS, against a
#      baseline measured in the same run: llc-22 -O3 turning flyc's own optimized LLVM IR
#      for that kernel into an object, plus ld.lld-22 linking it (the back-end work flyc
#      cannot avoid). The ratio flyc / baseline is what flyc adds (front end, IR passes, the
#      -O3 pipeline, process start); it is comparable across machines.
#   2. the front end alone (-fsyntax-only: lex, parse, check, instantiate) on a ~1 MB
#      source made of copies of examples/elementwise.fly, in seconds per MB.
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case "$build" in /*) ;; *) build=$top/$build ;; esac
flyc=$build/bin/flyc
RUNS=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
[ -x "$flyc" ] || { echo "bench-compile: $flyc not built"; exit 1; }
LLVM=$(llvm-config-22 --bindir)

now() { date +%s.%N; }
# best RUNS CMD... : the fastest wall time of RUNS runs, in seconds
best() {
	n=$1; shift
	b=
	i=0
	while [ $i -lt "$n" ]; do
		t0=$(now); "$@" >/dev/null 2>&1 || return 1; t1=$(now)
		b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { d = z - a; if (b == "" || d < b) b = d; printf "%.4f", b }')
		i=$((i + 1))
	done
	echo "$b"
}
baseline() {
	"$LLVM/llc" -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj "$1" -o "$tmp/b.o" &&
	"$LLVM/ld.lld" -shared --build-id=none "$tmp/b.o" -o "$tmp/b.hsaco"
}

printf '%-16s %10s %12s %8s\n' example "flyc (s)" "llc+lld (s)" ratio
for f in "$top"/examples/*.fly; do
	e=$(basename "$f" .fly)
	if ! "$flyc" "$f" --offload-arch=gfx950 -O3 -o "$tmp/$e.hsaco" 2>/dev/null; then
		printf '%-16s %s\n' "$e" "(does not compile yet)"
		continue
	fi
	"$flyc" "$f" --offload-arch=gfx950 -O3 --emit=llvm -S -o "$tmp/$e.ll" 2>/dev/null
	tf=$(best "$RUNS" "$flyc" "$f" --offload-arch=gfx950 -O3 -o "$tmp/$e.hsaco") || { echo "$e: flyc failed"; continue; }
	tb=$(best "$RUNS" baseline "$tmp/$e.ll") || { echo "$e: llc-22 failed on flyc's IR"; continue; }
	awk -v e="$e" -v f="$tf" -v b="$tb" 'BEGIN { printf "%-16s %10.3f %12.3f %7.2fx\n", e, f, b, f / b }'
done

# front end: copies of elementwise.fly with renamed kernels, about 1 MB
src=$tmp/big.fly
i=0
: >"$src"
while [ "$(wc -c <"$src")" -lt 1000000 ]; do
	j=0
	while [ $j -lt 100 ]; do
		sed "s/scale_add/scale_add_${i}_$j/g" "$top/examples/elementwise.fly" >>"$src"
		j=$((j + 1))
	done
	i=$((i + 1))
done
bytes=$(wc -c <"$src")
kernels=$(grep -c '^kernel ' "$src")
t=$(best 3 "$flyc" "$src" -fsyntax-only) || { echo "front end: flyc -fsyntax-only failed"; exit 1; }
t0=$(best 3 "$flyc" "$top/examples/elementwise.fly" -fsyntax-only)
awk -v t="$t" -v t0="$t0" -v b="$bytes" -v k="$kernels" 'BEGIN {
	printf "front end (-fsyntax-only): %d bytes, %d kernels in %.3f s = %.3f s/MB (%.1f MB/s); one small file %.3f s\n",
		b, k, t, t / (b / 1048576), (b / 1048576) / t, t0 }'

# front-end scaling: N small kernels (each with an export) and one kernel of N statements;
# kernels (statements) per second of CPU time and peak RSS, against a one-kernel file
# (whose RSS is mostly libLLVM mapped at start). Linear: the per-kernel cost stays flat.
rss() { /usr/bin/python3 "$top/scripts/peak_rss.py" "$@"; }
printf 'kernel k(x: global f32[(N):(1)], N: i32) block(64) grid(1) {\n  x[thread.x] = x[thread.x] * 2.0;\n}\n' >"$tmp/one.fly"
set -- $(rss "$flyc" -fsyntax-only "$tmp/one.fly")
base_kb=$1 base_cpu=$4
printf '%-28s %9s %9s %14s %10s %12s\n' "front end (-fsyntax-only)" "items" "cpu (s)" "items/s" "peak MB" "KB/item"
printf '%-28s %9d %9.3f %14s %10d %12s\n' "one kernel" 1 "$base_cpu" - $((base_kb / 1024)) -
for n in 2000 20000 200000; do
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) {
		printf "kernel k%d<B: int = 64>(x: global f32[(N):(1)], N: i32) block(B) grid(1) {\n", i
		printf "  let a = x[thread.x];\n  x[thread.x] = a * 2.0;\n}\nexport k%d<B=64> as e%d;\n", i, i } }' >"$tmp/k.fly"
	set -- $(rss "$flyc" -fsyntax-only "$tmp/k.fly")
	[ "$2" = 0 ] || { echo "front end: $n kernels failed (exit $2)"; continue; }
	awk -v n="$n" -v kb="$1" -v c="$4" -v b="$base_kb" -v c0="$base_cpu" 'BEGIN {
		printf "%-28s %9d %9.3f %14.0f %10d %12.2f\n", "kernels + exports", n, c, n / (c > c0 ? c - c0 : 1e-3), kb / 1024, (kb - b) / n }'
done
for n in 20000 200000; do
	awk -v n="$n" 'BEGIN { print "kernel big(x: global f32[(N):(1)], N: i32) block(64) grid(1) {\n  var acc = 0.0;\n  for i in 0 .. 4 {";
		for (i = 0; i < n; i++) printf "    let a%d = x[thread.x + %d] * 2.0;\n    acc = acc + a%d;\n", i, i % 7, i
		print "  }\n  x[thread.x] = acc;\n}" }' >"$tmp/s.fly"
	set -- $(rss "$flyc" -fsyntax-only "$tmp/s.fly")
	[ "$2" = 0 ] || { echo "front end: $n statements failed (exit $2)"; continue; }
	awk -v n="$((2 * n))" -v kb="$1" -v c="$4" -v b="$base_kb" -v c0="$base_cpu" 'BEGIN {
		printf "%-28s %9d %9.3f %14.0f %10d %12.2f\n", "statements in one kernel", n, c, n / (c > c0 ? c - c0 : 1e-3), kb / 1024, (kb - b) / n }'
done
rm -f "$tmp/k.fly" "$tmp/s.fly"
