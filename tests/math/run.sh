# Math tier: every float builtin of docs/language.md "Math" on the simulator
# (tests/math/math.fly, y = f(x) elementwise) over dense sweeps of its domain
# against a double-precision reference, each within its documented ulp bound
# (tests/math/sweep.py), on gfx950 and on a gfx1201 simulator.
. "$FLY_TOP/tests/lib.sh"
SIM=${FLY_SIM_BIN:-$BIN/flyc-sim}
PY=/usr/bin/python3
if [ ! -x "$SIM" ]; then echo "SKIP: math (no flyc-sim)"; exit 0; fi
if ! "$PY" -c 'import numpy' 2>/dev/null; then echo "SKIP: math (no numpy for $PY)"; exit 0; fi
for arch in gfx950 gfx1201; do
	co=$TMP/math-$arch.hsaco
	if ! out=$("$FLYC" "$FLY_TOP/tests/math/math.fly" --offload-arch=$arch -o "$co" 2>&1); then
		fail "math/compile-$arch" "$out"
		continue
	fi
	pass "math/compile-$arch"
	if [ $arch = gfx950 ]; then set -- ; else set -- $arch; fi
	"$PY" "$FLY_TOP/tests/math/sweep.py" "$SIM" "$co" "$TMP" "$@" >"$TMP/sweep.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		PASS:*) t=${line#PASS: }; pass "${t%% *}" ;;
		FAIL:*) t=${line#FAIL: }; fail "${t%% *}" "$line" ;;
		esac
	done <"$TMP/sweep.out"
	if [ $rc != 0 ] && ! grep -q '^FAIL:' "$TMP/sweep.out"; then
		fail "math/sweep-$arch" "$(tail -n 5 "$TMP/sweep.out")"
	fi
	# fragments mixed with run-time scalars (mix.fly, mix.py), bits builtins (bits.fly, bits.py)
	for t in mix bits; do
		co=$TMP/$t-$arch.hsaco
		if ! out=$("$FLYC" "$FLY_TOP/tests/math/$t.fly" --offload-arch=$arch -o "$co" 2>&1); then
			fail "math/$t-compile-$arch" "$out"
			continue
		fi
		"$PY" "$FLY_TOP/tests/math/$t.py" "$SIM" "$co" "$TMP" "$@" >"$TMP/$t.log" 2>&1
		rc=$?
		while IFS= read -r line; do
			case $line in
			PASS:*) n=${line#PASS: }; pass "${n%% *}" ;;
			FAIL:*) n=${line#FAIL: }; fail "${n%% *}" "$(cat "$TMP/$t.log")" ;;
			esac
		done <"$TMP/$t.log"
		if [ $rc != 0 ] && ! grep -q '^FAIL:' "$TMP/$t.log"; then
			fail "math/$t-$arch" "$(tail -n 5 "$TMP/$t.log")"
		fi
	done
done
