# tests/layout/oracle/compare.sh — `flyc eval` against NVIDIA CuTe on every
# case of tests/layout/oracle/cute.tsv (made by scripts/cute-oracle/gen.sh;
# the comparison itself is compare.py): the static rows as written, the
# dynamic rows with run-time names for CuTe's int leaves.  One PASS/FAIL line
# per operation and form with its match count; a known mismatch
# (known-mismatch.txt, known-mismatch-dynamic.txt) is tolerated, a new one
# fails, and so does a listed case that now matches.  Sourced by
# tests/layout/run.sh, or run alone:
#   FLY_BUILD=build FLY_TOP=$PWD sh tests/layout/oracle/compare.sh [--update-known] [--report]
if ! command -v pass >/dev/null 2>&1; then . "$FLY_TOP/tests/lib.sh"; fi
/usr/bin/python3 "$FLY_TOP/tests/layout/oracle/compare.py" "$FLYC" "$@" > "$TMP/oracle.out" 2> "$TMP/oracle.err"
if [ $? != 0 ] || [ -s "$TMP/oracle.err" ]; then
	fail oracle/compare "compare.py failed" "$(tail -n 5 "$TMP/oracle.err")"
fi
while IFS='	' read -r kind name rest; do
	case "$kind" in
	pass) pass "$name" ;;
	fail) fail "$name" "$(printf '%s\n' "$rest" | tr '\t' '\n')" ;;
	info) printf '%s\n' "$name${rest:+	$rest}" ;;
	*) fail oracle/compare "unexpected output: $kind $name" ;;
	esac
done < "$TMP/oracle.out"
