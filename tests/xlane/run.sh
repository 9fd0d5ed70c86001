# Cross-lane tier: the lane builtins of docs/language.md §9.5 (shfl_xor by every
# lowering, shfl, shfl_up, shfl_down, readlane, readfirstlane, ballot) and the
# scans and key-value reductions on the simulator for gfx950 and gfx1201,
# against Python models: whole workgroups and a third of the lanes active; a
# radix selection with LDS atomics and a workgroup scan, and a register-resident
# top-K with bitonic merges through shuffles (select.fly, topk.fly).
. "$FLY_TOP/tests/lib.sh"
SIM=${FLY_SIM_BIN:-$BIN/flyc-sim}
PY=/usr/bin/python3
if [ ! -x "$SIM" ]; then echo "SKIP: xlane (no flyc-sim)"; exit 0; fi
if ! "$PY" -c 'import numpy' 2>/dev/null; then echo "SKIP: xlane (no numpy for $PY)"; exit 0; fi
for arch in gfx950 gfx1201; do
	for t in xlane scan select topk; do
		co=$TMP/$t-$arch.hsaco
		if ! out=$("$FLYC" "$FLY_TOP/tests/xlane/$t.fly" --offload-arch=$arch -o "$co" 2>&1); then
			fail "xlane/$t-compile-$arch" "$out"
			continue
		fi
		"$PY" "$FLY_TOP/tests/xlane/$t.py" "$SIM" "$co" "$TMP" $arch >"$TMP/$t.log" 2>&1
		rc=$?
		cat "$TMP/$t.log"
		if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/$t.log"; then
			fail "xlane/$t-$arch" "$(tail -n 5 "$TMP/$t.log")"
		fi
	done
done
