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
# Usage: scripts/check.sh BUILD [BUILD...]   (a folder named */san is the sanitized one)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
pass=0 fail=0 skip=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT INT TERM

count() { # file -> adds to pass/fail/skip
	p=$(grep -c '^PASS: ' "$1"); f=$(grep -c '^FAIL: ' "$1"); s=$(grep -c '^SKIP: ' "$1")
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

for b in "$@"; do
	san=0; case "$b" in */san) san=1 ;; esac
	for t in "$b"/tests/unit/*; do
		[ -x "$t" ] || continue
		name="unit/$(basename "$t") [$b]"
		out="$log/out"
		"$t" >"$out" 2>&1; rc=$?
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
		out="$log/$tier.out"
		FLY_BUILD="$b" FLY_SAN=$san FLY_TOP="$top" sh "$r" >"$out" 2>&1; rc=$?
		count "$out"
		p=$(grep -c '^PASS: ' "$out"); f=$(grep -c '^FAIL: ' "$out"); s=$(grep -c '^SKIP: ' "$out")
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
			fail=$((fail + 1)); f=1
			echo "FAIL: $tier [$b] exited $rc without naming a failed test"
			sed 's/^/    /' "$out" | tail -n 40
		elif [ "$f" != 0 ]; then
			echo "FAIL: $tier [$b]: $p passed, $f failed"
			# print each failure and the indented detail lines that follow it
			awk '/^FAIL: /{show=1; print "  " $0; next} /^(PASS|SKIP): /{show=0} show{print "  " $0}' "$out" | head -n 200
		else
			if [ "$s" != 0 ]; then echo "ok    $tier [$b]: $p passed, $s skipped"; else echo "ok    $tier [$b]: $p passed"; fi
		fi
		if [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$rc" = 0 ]; then
			echo "      (tier $tier ran no test)"
		fi
	done
done
if [ "$skip" != 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ "$fail" = 0 ] && [ "$pass" != 0 ]
