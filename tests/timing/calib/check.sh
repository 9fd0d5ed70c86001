#!/bin/sh
# tests/timing/calib/check.sh — the timing model's calibration tables, without aiter:
#   calib/tables: published.tsv / modeled.tsv / errors.tsv are well formed, every row
#     names its source, its fit/held set is the one its shape hashes to, modeled rows
#     match published ones, and errors.tsv is what modeled.tsv gives
#     (scripts/timing-calibrate.py --check);
#   calib/check-fails: a damaged copy of the tables (a row moved to the other set, a
#     modeled figure changed) is refused;
# and, with FLY_AITER naming a fetched copy of ROCm/aiter (never committed),
#   calib/aiter-smoke: every calibrated code object runs in the simulator at a
#     reduced shape and matches a CPU reference.
# Called from tests/timing/run.sh as: sh "$FLY_TOP/tests/timing/calib/check.sh"
# (with FLY_TOP and FLY_BUILD set as for any tier).
. "$FLY_TOP/tests/lib.sh"
cd "$FLY_TOP" || exit 2
PY=/usr/bin/python3
S="$FLY_TOP/scripts/timing-calibrate.py"
if [ ! -x "$PY" ]; then
	echo "SKIP: calib (no /usr/bin/python3)"
	exit 0
fi

if out=$("$PY" "$S" --check 2>&1); then pass "calib/tables"
else fail "calib/tables" "$out"; fi

# the check must be able to fail: damaged copies of the tables are refused
mkdir -p "$TMP/bad1" "$TMP/bad2"
cp tests/timing/calib/*.tsv "$TMP/bad1/" && cp tests/timing/calib/*.tsv "$TMP/bad2/"
# (1) the first fitting row moved to the held-out set
awk -F'\t' 'BEGIN{OFS="\t"} NR>1 && !d && $11=="fit" {$11="held"; d=1} {print}' \
	tests/timing/calib/published.tsv >"$TMP/bad1/published.tsv"
r1=$(FLY_CALIB_DIR="$TMP/bad1" "$PY" "$S" --check 2>&1); rc1=$?
rc2=1 r2=
if [ -f tests/timing/calib/modeled.tsv ]; then
	# (2) the first modeled time doubled (ratio and errors.tsv left as they were)
	awk -F'\t' 'BEGIN{OFS="\t"} NR==2 {$10=$10*2} {print}' \
		tests/timing/calib/modeled.tsv >"$TMP/bad2/modeled.tsv"
	r2=$(FLY_CALIB_DIR="$TMP/bad2" "$PY" "$S" --check 2>&1); rc2=$?
fi
if [ $rc1 != 0 ] && [ $rc2 != 0 ]; then pass "calib/check-fails"
else fail "calib/check-fails" "a damaged table was accepted:" "$r1" "$r2"; fi

if [ -n "${FLY_AITER:-}" ] && [ -e "$FLY_AITER" ]; then
	case "$FLY_BUILD" in /*) B=$FLY_BUILD ;; *) B=$FLY_TOP/$FLY_BUILD ;; esac
	if out=$(FLYRT_LIB="$B/libflyrt.so" "$PY" "$S" "$FLY_AITER" --smoke 2>&1); then
		pass "calib/aiter-smoke"
	else fail "calib/aiter-smoke" "$out"; fi
else
	echo "SKIP: calib/aiter-smoke (set FLY_AITER to a copy of ROCm/aiter)"
fi
