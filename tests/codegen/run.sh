# Code generator tier: lit + FileCheck tests on flyc IR, LLVM IR, ISA, code
# objects, bundles and metadata. One PASS/FAIL/SKIP line per test.
# sim-examples runs compiled examples on the simulator when BUILD/bin/flyc-sim
# exists (or FLY_SIM_BIN names it); otherwise it is reported as SKIP.
. "$FLY_TOP/tests/lib.sh"
LIT=/usr/lib/llvm-22/bin/lit
case "$FLY_BUILD" in /*) build=$FLY_BUILD ;; *) build=$FLY_TOP/$FLY_BUILD ;; esac
if [ ! -x "$LIT" ]; then echo "SKIP: codegen (no $LIT)"; exit 0; fi
if [ ! -x "$build/bin/cgtool" ]; then fail codegen/cgtool "missing $build/bin/cgtool (run make)"; exit 1; fi
out=$TMP/lit.out
python3 "$LIT" -v --no-progress-bar -j 2 --param build="$build" --param san="$FLY_SAN" "$FLY_TOP/tests/codegen" >"$out" 2>&1
rc=$?
# "PASS: flyc-codegen :: name.test (1 of N)" -> "PASS: codegen/name"
awk '
/^(PASS|FAIL|XFAIL|XPASS|UNSUPPORTED|UNRESOLVED): flyc-codegen :: / {
	st = $1; sub(":", "", st); name = $4; sub(/\.test$/, "", name)
	if (st == "PASS" || st == "XFAIL") print "PASS: codegen/" name
	else if (st == "UNSUPPORTED") print "SKIP: codegen/" name " (unsupported)"
	else { print "FAIL: codegen/" name; infail = 1; nd = 0; next }
	infail = 0; next
}
infail && nd++ < 60 { print "    " $0 }
' "$out"
if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' "$out" && ! grep -q '^UNRESOLVED: ' "$out"; then
	fail codegen/lit "lit exited $rc" "$(tail -n 20 "$out")"
fi
exit 0
