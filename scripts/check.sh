#!/bin/sh
# Run every test tier against one or more build folders and print one closing line,
# "N passed, M failed". Exit status is non-zero when anything failed.
#
# Tiers:
#   - CMocka unit tests: every binary in BUILD/tests/unit/ (counted per test case);
#   - scripts tests/TIER/run.sh, run with FLY_BUILD=BUILD (and FLY_SAN=1 for a
#     sanitized build); each prints one line per test: "PASS: name", "FAIL: name"
#     or "SKIP: name (why)", followed by details of failures on their own lines.
#
# While it runs the tiers of the first build that is not sanitized, it logs every program they
# execute and every Python module they import (tests/deps/execlog.so preloaded, built here with
# cc; tests/deps/pysite on PYTHONPATH); the tier tests/deps then runs last and checks that
# scripts/install-deps.sh installs the Debian package of each (docs/testing.md). FLY_EXECLOG=0
# turns the log off (tests/deps then skips).
#
# Usage: scripts/check.sh BUILD [BUILD...]   (a folder named */san is the sanitized one)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
pass=0 fail=0 skip=0
execlog="" execlib=""
if [ "${1:-}" = --job ]; then   # one job of the pool below, in the parent's folders
	log=$FLY_CHECK_LOG execlog=$FLY_CHECK_EXECLOG execlib=$FLY_CHECK_EXECLIB
else
	log=$(mktemp -d)
	trap 'rm -rf "$log"' EXIT INT TERM
	if [ "${FLY_EXECLOG:-}" != 0 ] && cc -std=c11 -O2 -Wall -Werror -shared -fPIC -o "$log/execlog.so" \
		tests/deps/execlog.c -ldl 2>"$log/execlog.err"; then
		execlog=$log/exec.log execlib=$log/execlog.so
		: >"$execlog"
	elif [ "${FLY_EXECLOG:-}" != 0 ]; then
		echo "check: cannot build tests/deps/execlog.c (the dependency check will fail):"; cat "$log/execlog.err"
	fi
fi
logged=""  # the build whose tiers are logged
# logged_run BUILD CMD...: CMD, under the exec log when BUILD is the logged build
logged_run() {
	lb=$1; shift
	if [ -n "$execlog" ] && [ "$lb" = "$logged" ] && [ -z "${nolog:-}" ]; then
		FLY_EXECLOG="$execlog" FLY_EXECLOG_TREE="$top:${TMPDIR:-/tmp}" LD_PRELOAD="$execlib" \
			PYTHONPATH="$top/tests/deps/pysite${PYTHONPATH:+:$PYTHONPATH}" "$@"
	else
		"$@"
	fi
}
for b in "$@"; do
	case "$b" in */san|--job) ;; *) logged=$b; break ;; esac
done
[ "${1:-}" = --job ] && logged=$FLY_CHECK_LOGGED

count() { # file -> adds to pass/fail/skip
	p=$(grep -c '^PASS: ' "$1"); f=$(grep -c '^FAIL: ' "$1"); s=$(grep -c '^SKIP: ' "$1")
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

# run_tier BUILD SAN SCRIPT [VAR=VALUE...]: one tier script, its lines counted and its failures shown
run_tier() {
	rb=$1 rs=$2 rr=$3; shift 3
	tier=$(basename "$(dirname "$rr")")
	out="$log/$tier.$$.out"
	t0=$(date +%s)
	logged_run "$rb" env FLY_BUILD="$rb" FLY_SAN="$rs" FLY_TOP="$top" "$@" sh "$rr" >"$out" 2>&1; rc=$?
	count "$out"
	secs=$(( $(date +%s) - t0 ))
	p=$(grep -c '^PASS: ' "$out"); f=$(grep -c '^FAIL: ' "$out"); s=$(grep -c '^SKIP: ' "$out")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		fail=$((fail + 1)); f=1
		echo "FAIL: $tier [$rb] exited $rc without naming a failed test"
		sed 's/^/    /' "$out" | tail -n 40
	elif [ "$f" != 0 ]; then
		echo "FAIL: $tier [$rb]: $p passed, $f failed (${secs} s)"
		# print each failure and the indented detail lines that follow it
		awk '/^FAIL: /{show=1; print "  " $0; next} /^(PASS|SKIP): /{show=0} show{print "  " $0}' "$out" | head -n 200
	else
		if [ "$s" != 0 ]; then echo "ok    $tier [$rb]: $p passed, $s skipped (${secs} s)"; else echo "ok    $tier [$rb]: $p passed (${secs} s)"; fi
	fi
	if [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$rc" = 0 ]; then
		echo "      (tier $tier ran no test)"
	fi
}

# run_units BUILD: every CMocka program of BUILD, counted per test case
run_units() {
	b=$1
	for t in "$b"/tests/unit/*; do
		[ -x "$t" ] || continue
		name="unit/$(basename "$t") [$b]"
		out="$log/unit.$(basename "$t").$$.out"
		logged_run "$b" "$t" >"$out" 2>&1; rc=$?
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
		p=${p:-0}; f=${f:-0}
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
		pass=$((pass + p)); fail=$((fail + f))
		if [ "$f" != 0 ]; then
			echo "FAIL: $name (exit $rc)"; sed 's/^/    /' "$out" | tail -n 40
		else
			echo "ok    $name: $p passed"
		fi
	done
}

# One job: the unit tests or one tier of one build; its lines go to $log/job.N.lines and its
# counts to $log/job.N.counts. scripts/check.sh --job N BUILD TIER runs one (from xargs).
run_job() {
	n=$1 b=$2 t=$3
	san=0; case "$b" in */san) san=1 ;; esac
	pass=0 fail=0 skip=0
	{
		if [ "$t" = unit ]; then run_units "$b"; else run_tier "$b" "$san" "tests/$t/run.sh"; fi
	} >"$log/job.$n.lines" 2>&1
	echo "$pass $fail $skip" >"$log/job.$n.counts"
}
if [ "${1:-}" = --job ]; then
	run_job "$2" "$3" "$4"
	exit 0
fi

# The jobs (every build's unit tests and tiers but deps) run FLY_CHECK_JOBS at a time (default:
# the number of cores; the simulator runs a launch on one thread, so a tier keeps about one core
# busy), longest first so that the last ones are short; their lines are printed in the order of
# the builds and tiers once all are done.
jobs=${FLY_CHECK_JOBS:-$(nproc 2>/dev/null || echo 1)}
tiers="unit"
for r in tests/*/run.sh; do
	t=$(basename "$(dirname "$r")")
	[ "$t" = deps ] || tiers="$tiers $t"
done
if [ -n "${FLY_CHECK_TIERS:-}" ]; then   # e.g. FLY_CHECK_TIERS="unit layout views": only those
	tiers=""
	for t in $FLY_CHECK_TIERS; do [ "$t" = deps ] || tiers="$tiers $t"; done
fi
long="codegen fuzz math gemm copyatoms e2e atomics timing install ops atoms lang norm"
n=0
for b in "$@"; do
	for t in $tiers; do
		n=$((n + 1))
		rank=50
		k=0; for l in $long; do k=$((k + 1)); [ "$l" = "$t" ] && rank=$k; done
		case "$b" in */san) rank=$((rank * 2 - 1)) ;; *) rank=$((rank * 2)) ;; esac
		printf '%03d %d %s %s\n' "$rank" "$n" "$b" "$t"
	done
done | sort -n | cut -d' ' -f2- >"$log/jobs"
FLY_CHECK_LOG=$log FLY_CHECK_EXECLOG=$execlog FLY_CHECK_EXECLIB=$execlib FLY_CHECK_LOGGED=$logged \
	xargs -P "$jobs" -L 1 sh "$0" --job <"$log/jobs"
n=0
for b in "$@"; do
	for t in $tiers; do
		n=$((n + 1))
		[ -f "$log/job.$n.lines" ] && cat "$log/job.$n.lines"
		if [ -f "$log/job.$n.counts" ]; then
			read -r p f s <"$log/job.$n.counts"
		else
			echo "FAIL: $t [$b] did not finish"; p=0 f=1 s=0
		fi
		pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	done
done
if [ -f tests/deps/run.sh ]; then
	nolog=1
	run_tier "${logged:-$1}" 0 tests/deps/run.sh FLY_EXECLOG="${execlog:-}" FLY_EXECLOG_LIB="${execlib:-}"
fi
if [ "$skip" != 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ "$fail" = 0 ] && [ "$pass" != 0 ]
