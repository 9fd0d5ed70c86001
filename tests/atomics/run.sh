# Atomics tier: every atomic builtin of docs/language.md "Atomics" on the
# simulator for gfx950 and gfx1201 (tests/atomics/atomics.py: LDS, buffer- and
# 64-bit-addressed global tensors; contention on one address, one active lane,
# returned old values as one serial order, against Python); the simulator must
# know every instruction of the code objects. tests/atomics/pk_add.py: the packed
# bf16 / f16 adds (global and LDS, with and without the old pair).
. "$FLY_TOP/tests/lib.sh"
SIM=${FLY_SIM_BIN:-$BIN/flyc-sim}
PY=/usr/bin/python3
if [ ! -x "$SIM" ]; then echo "SKIP: atomics (no flyc-sim)"; exit 0; fi
if ! "$PY" -c 'import numpy' 2>/dev/null; then echo "SKIP: atomics (no numpy for $PY)"; exit 0; fi
for arch in gfx950 gfx1201; do
	"$PY" "$FLY_TOP/tests/atomics/atomics.py" "$FLYC" "$SIM" "$TMP" $arch >"$TMP/out" 2>&1
	rc=$?
	cat "$TMP/out"
	if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/out"; then
		fail "atomics/$arch" "$(tail -n 20 "$TMP/out")"
	fi
	# packed bf16 / f16 adds (tests/atomics/pk_add.py)
	"$PY" "$FLY_TOP/tests/atomics/pk_add.py" "$FLYC" "$SIM" "$TMP" $arch >"$TMP/out" 2>&1
	rc=$?
	cat "$TMP/out"
	if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/out"; then
		fail "atomics/pk_add-$arch" "$(tail -n 20 "$TMP/out")"
	fi
done
