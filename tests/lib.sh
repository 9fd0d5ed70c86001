# tests/lib.sh — helpers shared by the tests/TIER/run.sh scripts (sourced).
# Each test prints exactly one "PASS: name" or "FAIL: name" line; details of a
# failure follow on lines indented by four spaces.
: "${FLY_BUILD:=build}" "${FLY_TOP:=$(pwd)}" "${FLY_SAN:=0}"
FLYC="$FLY_TOP/$FLY_BUILD/bin/flyc"
case "$FLY_BUILD" in /*) FLYC="$FLY_BUILD/bin/flyc" ;; esac
BIN=$(dirname "$FLYC")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/    /'; done; }

# expect_out NAME EXPECTED_STATUS EXPECTED_REGEX -- CMD...
# Runs CMD; passes when its exit status and combined output match.
expect_out() {
	name=$1 want_rc=$2 want_re=$3; shift 4
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" != "$want_rc" ]; then
		fail "$name" "exit status $rc, expected $want_rc" "$out"
	elif ! printf '%s\n' "$out" | grep -Eq -- "$want_re"; then
		fail "$name" "output does not match /$want_re/:" "$out"
	else
		pass "$name"
	fi
}

# op_tier TIER TEST_PY BYTES_PY WHAT: an operator tier (tests/norm, tests/topk).
# Runs TEST_PY with /usr/bin/python3 against $FLY_BUILD's libflyrt.so (the
# sanitizers preloaded when FLY_SAN=1; the script then runs a reduced matrix),
# passing its PASS/FAIL lines through and failing when it exits non-zero without
# a FAIL line; then BYTES_PY --check (global bytes per row counted by the
# simulator) as one test named "TIER: WHAT" (BYTES_PY "-": none). SKIPs the tier without torch.
op_tier() {
	tier=$1 test_py=$2 bytes_py=$3 what=$4
	case "$FLY_BUILD" in /*) B=$FLY_BUILD ;; *) B=$FLY_TOP/$FLY_BUILD ;; esac
	PY=/usr/bin/python3
	if ! "$PY" -c "import torch" 2>/dev/null; then
		echo "SKIP: $tier (no torch for $PY)"
		exit 0
	fi
	pre=
	if [ "$FLY_SAN" = 1 ]; then
		pre="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libubsan.so)"
	fi
	(cd "$FLY_TOP" && env -u FLY_DEVICE -u FLYC_TUNING_DB -u FLYC_KERNEL_DIR FLYRT_LIB="$B/libflyrt.so" \
		${pre:+LD_PRELOAD="$pre" ASAN_OPTIONS=detect_leaks=0} FLY_SAN="$FLY_SAN" "$PY" "$test_py") >"$TMP/out" 2>&1
	rc=$?
	cat "$TMP/out"
	if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/out"; then
		fail "$tier: $(basename "$test_py") exited $rc" "$(tail -n 20 "$TMP/out")"
	fi
	if [ "$bytes_py" = - ]; then
		:
	elif (cd "$FLY_TOP" && "$PY" "$bytes_py" --check "$B") >"$TMP/bytes" 2>&1; then
		pass "$tier: $what"
	else
		fail "$tier: $what" "$(cat "$TMP/bytes")"
	fi
}
