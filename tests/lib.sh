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
