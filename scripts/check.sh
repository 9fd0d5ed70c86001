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
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT INT TERM
execlog="" execlib=""
if [ "${FLY_EXECLOG:-}" != 0 ] && cc -std=c11 -O2 -Wall -Werror -shared -fPIC -o "$log/execlog.so" \
	tests/deps/execlog.c -ldl 2>"$log/execlog.err"; then
	execlog=$log/exec.log execlib=$log/execlog.so
	: >"$execlog"
elif [ "${FLY_EXECLOG:-}" != 0 ]; then
	echo "check: cannot build tests/deps/execlog.c (the dependency check will fail):"; cat "$log/execlog.err"
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
	case "$b" in */san) ;; *) logged=$b; break ;; esac
done

count() { # file -> adds to pass/fail/skip
	p=$(grep -c '^PASS: ' "$1"); f=$(grep -c '^FAIL: ' "$1"); s=$(grep -c '^SKIP: ' "$1")
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

# run_tier BUILD SAN SCRIPT [VAR=VALUE...]: one tier script, its lines counted and its failures shown
run_tier() {
	rb=$1 rs=$2 rr=$3; shift 3
	tier=$(basename "$(dirname "$rr")")
	out="${blog:-$log}/$tier.out"
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

# run_build BUILD: the unit tests and every tier against BUILD; its counts go to
# $log/BUILD-ID.counts (it may run in a background shell)
run_build() {
	b=$1 id=$2
	san=0; case "$b" in */san) san=1 ;; esac
	blog="$log/b$id"; mkdir -p "$blog"
	for t in "$b"/tests/unit/*; do
		[ -x "$t" ] || continue
		name="unit/$(basename "$t") [$b]"
		out="$blog/unit.out"
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
	for r in tests/*/run.sh; do
		[ -f "$r" ] || continue
		tier=$(basename "$(dirname "$r")")
		[ "$tier" = deps ] && continue # runs last, once, on the log of all the others
		run_tier "$b" "$san" "$r"
	done
	echo "$pass $fail $skip" >"$log/b$id.counts"
}

# The builds' tiers run side by side when there are cores for it (FLY_CHECK_JOBS, default:
# the number of cores): the simulator runs a launch on one thread, so each build's tiers keep
# about one core busy. Each build's lines are printed together once it is done.
jobs=${FLY_CHECK_JOBS:-$(nproc 2>/dev/null || echo 1)}
i=0
for b in "$@"; do
	i=$((i + 1))
	if [ "$jobs" -gt 1 ] && [ $# -gt 1 ]; then
		( pass=0 fail=0 skip=0; run_build "$b" $i >"$log/b$i.lines" 2>&1 ) &
	else
		( pass=0 fail=0 skip=0; run_build "$b" $i ) 
	fi
done
wait
i=0
for b in "$@"; do
	i=$((i + 1))
	[ -f "$log/b$i.lines" ] && cat "$log/b$i.lines"
	if [ -f "$log/b$i.counts" ]; then
		read -r p f s <"$log/b$i.counts"
	else
		echo "FAIL: the tiers of $b did not finish"; p=0 f=1 s=0
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
done
if [ -f tests/deps/run.sh ]; then
	nolog=1
	run_tier "${logged:-$1}" 0 tests/deps/run.sh FLY_EXECLOG="${execlog:-}" FLY_EXECLOG_LIB="${execlib:-}"
fi
if [ "$skip" != 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ "$fail" = 0 ] && [ "$pass" != 0 ]
