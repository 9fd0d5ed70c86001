# tests/lang — the .fly front end: golden AST dumps (NAME.ast), golden
# diagnostics (NAME.err, one test per checker rule, named after the rule),
# every example and stdlib module, and hostile inputs.
#
# Each NAME.fly may start with "// flags: ..." giving extra flyc options.
# NAME.err: `flyc -fsyntax-only` must print exactly that (the stdlib path is
# shown as <stdlib>) and exit 1 if it holds an "error:", else 0.
# NAME.ast: `flyc --emit=ast` must print exactly that and exit 0.
. "$FLY_TOP/tests/lib.sh"

dir="$FLY_TOP/tests/lang"
stdlib=$(cd "$FLY_TOP/stdlib" && pwd -P)
cd "$dir" || exit 2

flags_of() { sed -n '1s|^// flags: ||p' "$1"; }

for f in *.fly; do
	n=${f%.fly}
	fl=$(flags_of "$f")
	if [ -f "$n.err" ]; then
		want_rc=0
		grep -q 'error:' "$n.err" && want_rc=1
		# shellcheck disable=SC2086
		"$FLYC" -fsyntax-only -fno-color-diagnostics -I inc $fl "$f" >"$TMP/out" 2>&1
		rc=$?
		sed "s|$stdlib|<stdlib>|g" "$TMP/out" >"$TMP/got"
		if [ "$rc" != "$want_rc" ]; then
			fail "lang/$n" "exit status $rc, expected $want_rc" "$(cat "$TMP/got")"
		elif ! cmp -s "$TMP/got" "$n.err"; then
			fail "lang/$n" "diagnostics differ from $n.err:" "$(diff "$n.err" "$TMP/got" | head -40)"
		else
			pass "lang/$n"
		fi
	elif [ -f "$n.ast" ]; then
		if [ "$n" = stdin-input ]; then
			"$FLYC" --emit=ast - <"$f" >"$TMP/got" 2>&1; rc=$?
		else
			# shellcheck disable=SC2086
			"$FLYC" --emit=ast $fl "$f" >"$TMP/got" 2>&1; rc=$?
		fi
		if [ "$rc" != 0 ]; then
			fail "lang/$n" "exit status $rc" "$(head -20 "$TMP/got")"
		elif ! cmp -s "$TMP/got" "$n.ast"; then
			fail "lang/$n" "AST differs from $n.ast:" "$(diff "$n.ast" "$TMP/got" | head -40)"
		else
			pass "lang/$n"
		fi
	else
		fail "lang/$n" "no expectation file ($n.err or $n.ast)"
	fi
done

# every example and every stdlib module checks, warning-free
for f in "$FLY_TOP"/examples/*.fly "$FLY_TOP"/stdlib/*.fly; do
	name="lang/check/$(basename "$(dirname "$f")")/$(basename "$f" .fly)"
	expect_out "$name" 0 '^$' -- "$FLYC" -fsyntax-only -Werror "$f"
done

# ---- diagnostics machinery ----
printf 'const A = 1 +;\n' >"$TMP/e.fly"
expect_out lang/diag/json 1 '^\{"severity":"error","file":"[^"]*e\.fly","line":1,"column":14,"end_line":1,"end_column":15,"message":"unexpected .;.' \
	-- "$FLYC" -fsyntax-only -fdiagnostics-format=json "$TMP/e.fly"
out=$("$FLYC" -fsyntax-only -fcolor-diagnostics "$TMP/e.fly" 2>&1)
case "$out" in *"$(printf '\033')["*) pass lang/diag/color-forced ;; *) fail lang/diag/color-forced "no escape sequence" "$out" ;; esac
out=$("$FLYC" -fsyntax-only "$TMP/e.fly" 2>&1)
case "$out" in *"$(printf '\033')"*) fail lang/diag/color-not-tty "escape sequence on a pipe" ;; *) pass lang/diag/color-not-tty ;; esac
out=$(NO_COLOR=1 "$FLYC" -fsyntax-only -fno-color-diagnostics "$TMP/e.fly" 2>&1)
case "$out" in *"$(printf '\033')"*) fail lang/diag/no-color "escape sequence" ;; *) pass lang/diag/no-color ;; esac
# NO_COLOR on a terminal: only testable with a pty; script(1) gives one when present
if command -v script >/dev/null 2>&1; then
	out=$(NO_COLOR=1 script -qec "$FLYC -fsyntax-only $TMP/e.fly" /dev/null 2>&1)
	case "$out" in *"$(printf '\033')["*) fail lang/diag/no-color-tty "NO_COLOR ignored on a terminal" "$out" ;; *) pass lang/diag/no-color-tty ;; esac
	out=$(script -qec "$FLYC -fsyntax-only $TMP/e.fly" /dev/null 2>&1)
	case "$out" in *"$(printf '\033')["*) pass lang/diag/color-tty ;; *) fail lang/diag/color-tty "no colors on a terminal" "$out" ;; esac
else
	echo "SKIP: lang/diag/no-color-tty (no script(1) for a pseudo-terminal)"
fi

# ---- driver ----
expect_out lang/cli/unknown-flag 1 "^flyc: error: unknown argument: '-fbogus'$" -- "$FLYC" -fbogus x.fly
expect_out lang/cli/bad-emit 1 "invalid value 'bin' in '--emit'" -- "$FLYC" --emit=bin x.fly
expect_out lang/cli/bad-arch 1 "unsupported offload architecture 'gfx90a'" -- "$FLYC" --offload-arch=gfx90a x.fly
expect_out lang/cli/missing-value 1 "argument to '-o' is missing" -- "$FLYC" x.fly -o
expect_out lang/cli/missing-file 1 "cannot read 'no/such.fly'" -- "$FLYC" -fsyntax-only no/such.fly
expect_out lang/cli/two-inputs 1 "more than one input file" -- "$FLYC" a.fly b.fly
expect_out lang/cli/S-and-c 1 "'-S' and '-c' cannot be used together" -- "$FLYC" -S -c x.fly
expect_out lang/cli/all-flags-parse 0 '^$' -- "$FLYC" -fsyntax-only -O2 -g -S --offload-arch=gfx950 --offload-arch gfx1201 \
	-DBM=128 -D BN=64 -I inc -Iinc -MD -MF "$TMP/x.d" -MT t -MP -save-temps -mllvm -debug-pass=None \
	--resource-usage=json -Wno-error -fdiagnostics-color=never -fdiagnostics-format=clang -o "$TMP/x.o" \
	--print-after=lower --print-after-all --stop-after=lower --emit=asm "$FLY_TOP/examples/gemm_bf16.fly"

# no output file after an error
rm -f "$TMP/bad.ast"
"$FLYC" --emit=ast -o "$TMP/bad.ast" "$TMP/e.fly" >/dev/null 2>&1
if [ -e "$TMP/bad.ast" ]; then fail lang/cli/no-output-on-error "$TMP/bad.ast exists"; else pass lang/cli/no-output-on-error; fi
"$FLYC" --emit=ast -o "$TMP/good.ast" syntax-all.fly >/dev/null 2>&1
if cmp -s "$TMP/good.ast" syntax-all.ast; then pass lang/cli/emit-ast-to-file; else fail lang/cli/emit-ast-to-file "-o output differs"; fi
ls "$TMP" | grep -q '\.tmp' && fail lang/cli/no-temp-left "temporary files left" || pass lang/cli/no-temp-left

# ---- hostile inputs: located error, exit 1, no crash, bounded time ----
hostile() { # name file expected-regex
	out=$(timeout 20 "$FLYC" -fsyntax-only "$2" 2>&1); rc=$?
	if [ "$rc" = 124 ]; then fail "lang/hostile/$1" "timed out"
	elif [ "$rc" != 1 ]; then fail "lang/hostile/$1" "exit status $rc, expected 1" "$(printf '%s\n' "$out" | head -5)"
	elif ! printf '%s\n' "$out" | grep -Eq -- "$3"; then fail "lang/hostile/$1" "no located error /$3/" "$(printf '%s\n' "$out" | head -5)"
	else pass "lang/hostile/$1"; fi
}
awk 'BEGIN { printf "const A = "; for (i = 0; i < 100000; i++) printf "("; print "1;" }' >"$TMP/parens.fly"
hostile deep-parens "$TMP/parens.fly" ':1:[0-9]+: error: brackets nested too deeply'
awk 'BEGIN { printf "const A = "; for (i = 0; i < 100000; i++) printf "-"; print "1;" }' >"$TMP/neg.fly"
hostile deep-unary "$TMP/neg.fly" ':1:[0-9]+: error: program is nested too deeply'
awk 'BEGIN { printf "kernel k(N: i32) block(64) grid(1) {"; for (i = 0; i < 100000; i++) printf "{"; print "" }' >"$TMP/braces.fly"
hostile deep-blocks "$TMP/braces.fly" ':1:[0-9]+: error: brackets nested too deeply'
awk 'BEGIN { printf "const A = 1"; for (i = 0; i < 200000; i++) printf " + 1"; print ";" }' >"$TMP/chain.fly"
hostile long-chain "$TMP/chain.fly" ':1:11: error: expression is nested too deeply'
awk 'BEGIN { printf "kernel k(x: global f32[(N):(1)], N: i32) block(64) grid(1) { x[0] = 1.0"; for (i = 0; i < 200000; i++) printf "[0]"; print "; }" }' >"$TMP/kchain.fly"
hostile long-postfix-chain "$TMP/kchain.fly" ':1:69: error: expression is nested too deeply'
awk 'BEGIN { printf "const A = o o o"; for (i = 0; i < 100000; i++) printf " o 1"; print ";" }' >"$TMP/compose.fly"
hostile compose-chain "$TMP/compose.fly" ':1:[0-9]+: error: '
head -c 300000 /dev/urandom >"$TMP/random.fly"
hostile random-bytes "$TMP/random.fly" ':[0-9]+:[0-9]+: error: '
printf 'const A = "never closed' >"$TMP/str.fly"
hostile unterminated-string-eof "$TMP/str.fly" ':1:11: error: unterminated string literal'
printf 'const A = 1; /* never closed' >"$TMP/cmt.fly"
hostile unterminated-comment-eof "$TMP/cmt.fly" ':1:14: error: unterminated /\* comment'
printf 'kernel' >"$TMP/eof.fly"
hostile truncated "$TMP/eof.fly" ':1:7: error: unexpected end of input'
printf '\000\000\000' >"$TMP/nul.fly"
hostile nul-only "$TMP/nul.fly" ':1:1: error: null character in source'
# a multi-megabyte valid module: near-linear time (well under the timeout) and exit 0
awk 'BEGIN { print "kernel big(x: global f32[(N):(1)], N: i32) block(64) grid(1) {";
	for (i = 0; i < 60000; i++) printf "  let v%d = x[%d] * 2.0 + 1.0; x[%d] = v%d;\n", i, i % 64, i % 64, i; print "}" }' >"$TMP/big.fly"
start=$(date +%s)
out=$(timeout 60 "$FLYC" -fsyntax-only "$TMP/big.fly" 2>&1); rc=$?
secs=$(( $(date +%s) - start ))
if [ "$rc" = 0 ] && [ "$secs" -le 20 ]; then pass "lang/hostile/multi-megabyte ($(wc -c <"$TMP/big.fly") bytes, ${secs}s)"
else fail lang/hostile/multi-megabyte "exit $rc after ${secs}s" "$(printf '%s\n' "$out" | head -5)"; fi
# ---- scaling: memory linear in kernels, exports and statements ----
# Peak RSS above that of a one-kernel file (which is mostly libLLVM, ~55 MB) stays under a bound
# that a quadratic front end misses by far (copying per-kernel tables needed 3.3 GB for 20,000
# kernels); 20,000 small kernels take about 70 MB, 20,000 statements about 35 MB.
scale() { # name file bound-MB
	base=$(python3 "$FLY_TOP/scripts/peak_rss.py" "$FLYC" -fsyntax-only "$TMP/one.fly")
	got=$(python3 "$FLY_TOP/scripts/peak_rss.py" "$FLYC" -fsyntax-only "$2")
	set -- "$1" "$2" "$3" ${base:-0 9 0 0} ${got:-0 9 0 0}
	mb=$(( ($8 - $4) / 1024 ))
	if [ "$5" != 0 ] || [ "$9" != 0 ]; then fail "lang/scaling/$1" "flyc exited $5 (one kernel) and $9 ($1)"
	elif [ "$mb" -gt "$3" ]; then fail "lang/scaling/$1" "peak RSS $(($8 / 1024)) MB, $mb MB above one kernel (bound $3 MB)"
	else pass "lang/scaling/$1 ($mb MB above one kernel)"; fi
}
bound=150; [ "$FLY_SAN" = 1 ] && bound=300
printf 'kernel k(x: global f32[(N):(1)], N: i32) block(64) grid(1) {\n  x[thread.x] = x[thread.x] * 2.0;\n}\n' >"$TMP/one.fly"
awk 'BEGIN { for (i = 0; i < 20000; i++) {
	printf "kernel k%d<B: int = 64>(x: global f32[(N):(1)], N: i32) block(B) grid(1) {\n", i
	printf "  let a = x[thread.x];\n  x[thread.x] = a * 2.0;\n}\nexport k%d<B=64> as e%d;\n", i, i } }' >"$TMP/kernels.fly"
scale 20000-kernels-exports "$TMP/kernels.fly" $bound
awk 'BEGIN { print "kernel big(x: global f32[(N):(1)], N: i32) block(64) grid(1) {\n  var acc = 0.0;\n  for i in 0 .. 4 {";
	for (i = 0; i < 20000; i++) printf "    let a%d = x[thread.x + %d] * 2.0;\n    acc = acc + a%d;\n", i, i % 7, i
	print "  }\n  x[thread.x] = acc;\n}" }' >"$TMP/stmts.fly"
scale 20000-statements "$TMP/stmts.fly" $bound
# many errors: stops at the error limit
awk 'BEGIN { for (i = 0; i < 100000; i++) print "const A = $;" }' >"$TMP/many.fly"
hostile many-errors "$TMP/many.fly" 'too many errors emitted, stopping now'

# ---- dependency files: every imported file is listed, -MP adds phony targets ----
(cd "$dir" && "$FLYC" -fsyntax-only -I inc -MD -MF "$TMP/dep.d" -MT out.hsaco -MP import-search.fly) >/dev/null 2>&1
printf 'out.hsaco: \\\n  import-search.fly \\\n  inc/mathconst.fly\n\ninc/mathconst.fly:\n' >"$TMP/dep.want"
if cmp -s "$TMP/dep.d" "$TMP/dep.want"; then pass lang/cli/depfile; else fail lang/cli/depfile "depfile differs:" "$(cat "$TMP/dep.d" 2>&1)"; fi

# ---- the stdlib is found relative to the binary: <bindir>/../share/flyc/stdlib (installed layout) ----
mkdir -p "$TMP/inst/bin" "$TMP/inst/share/flyc/stdlib" "$TMP/work"
cp "$FLYC" "$TMP/inst/bin/flyc" && cp "$FLY_TOP"/stdlib/*.fly "$TMP/inst/share/flyc/stdlib/"
printf 'import gfx1201;\nconst W = gfx1201.WAVE_SIZE;\n' >"$TMP/work/k.fly"
expect_out lang/cli/stdlib-installed 0 '^$' -- "$TMP/inst/bin/flyc" -fsyntax-only "$TMP/work/k.fly"
rm -rf "$TMP/inst/share"
expect_out lang/cli/stdlib-missing 1 "module 'gfx1201' not found" -- "$TMP/inst/bin/flyc" -fsyntax-only "$TMP/work/k.fly"

# ---- the manual covers the language: every builtin is documented, every rule test is listed ----
missing=""
names=$(grep -o 'X(B_[A-Z0-9_]*, "[a-z0-9_]*"' "$FLY_TOP/compiler/builtins.h" | sed 's/.*"\(.*\)"/\1/')
[ "$(echo "$names" | wc -w)" -ge 70 ] || missing=" (only $(echo "$names" | wc -w) builtins found in compiler/builtins.h)"
for b in $names; do
	grep -q "\`$b\`\|\`$b(" "$FLY_TOP/docs/language.md" || missing="$missing $b"
done
if [ -z "$missing" ]; then pass lang/doc/builtins-documented; else fail lang/doc/builtins-documented "not in docs/language.md:$missing"; fi
missing=""
for e in "$dir"/*.err; do
	n=$(basename "$e" .err)
	grep -q "\`$n\`" "$FLY_TOP/docs/language.md" || missing="$missing $n"
done
if [ -z "$missing" ]; then pass lang/doc/rules-listed; else fail lang/doc/rules-listed "not listed in docs/language.md section 11:$missing"; fi

# ---- a builtin the checker accepts always lowers (VALUE and LANE rows of builtins.h) ----
mkdir -p "$TMP/lower"
python3 "$dir/builtins_lower.py" "$FLYC" "$FLY_TOP/compiler/builtins.h" "$TMP/lower" >"$TMP/lower.out" 2>&1
rc=$?
cat "$TMP/lower.out"
if [ "$rc" != 0 ] && ! grep -q '^FAIL' "$TMP/lower.out"; then fail lang/builtins-lower "builtins_lower.py exited $rc" "$(tail -n 20 "$TMP/lower.out")"; fi
