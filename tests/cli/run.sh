# Command-line behaviour of flyc that needs no input file.
. "$FLY_TOP/tests/lib.sh"

expect_out cli/version 0 "^flyc version [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]+|unknown\)" -- "$FLYC" --version
expect_out cli/version-llvm 0 "^LLVM version 22\." -- "$FLYC" --version
expect_out cli/help 0 "^USAGE: flyc \[options\] file\.fly" -- "$FLYC" --help
expect_out cli/help-lists-commands 0 "^  eval " -- "$FLYC" --help
expect_out cli/no-input 1 "flyc: error: no input files" -- "$FLYC"

# -o /dev/null writes into the device, never replaces it (outputs are otherwise
# written to a temporary file and renamed into place)
if "$FLYC" "$FLY_TOP/examples/elementwise.fly" --offload-arch=gfx950 -o /dev/null 2>"$TMP/null.err" &&
   [ -c /dev/null ]; then
	pass cli/output-dev-null
else
	fail cli/output-dev-null "$(cat "$TMP/null.err")" "$(ls -l /dev/null)"
fi

# ---- every file flyc writes parses as what it claims to be ----
PY=python3
OUTS="$FLY_TOP/tests/cli/outputs.py"
# SVG pictures (flyc show --svg): an XML parser, then rsvg-convert draws each to a PNG of the
# size the SVG states; the title is the layout's own text, escaped (Sw<3,3,3> holds '<', '>')
svg_case() { # name expected-title-regex expression
	n=$1 want=$2; shift 2
	rm -f "$TMP/$n.svg" "$TMP/$n.png"
	if ! out=$("$FLYC" show --svg "$TMP/$n.svg" "$@" 2>&1 >/dev/null); then
		fail "cli/svg/$n" "flyc show failed: $out"
	elif ! got=$($PY "$OUTS" svg "$TMP/$n.svg" "$TMP/$n.png" 2>&1); then
		fail "cli/svg/$n" "$got" "$(head -c 600 "$TMP/$n.svg")"
	elif ! printf '%s\n' "$got" | grep -Eq -- "$want"; then
		fail "cli/svg/$n" "title does not match /$want/: $got"
	else
		pass "cli/svg/$n"
	fi
}
if command -v rsvg-convert >/dev/null 2>&1; then
	svg_case plain "^svg [0-9]+x[0-9]+ title '\(4,8\):\(8,1\)'$" '(4,8):(8,1)'
	svg_case rank1 "title '\(8\):\(2\)'$" '(8):(2)'
	svg_case swizzled "title 'Sw<3,3,3> o 0 o \(16,64\):\(64,1\)'$" 'swizzle(3,3,3) o (16,64):(64,1)'
	svg_case swizzle-small "title 'Sw<1,0,1> o 0 o \(2,4\):\(4,1\)'$" 'swizzle(1,0,1) o (2,4):(4,1)'
	svg_case composed "^svg " 'composition((6,2):(8,2), (4,3):(3,1))'
	svg_case tv "^svg " 'make_layout_tv((2,2):(2,1), (2,2):(2,1))'
	svg_case tv-mfma "^svg " 'make_layout_tv((64,1):(1,0), (1,4):(0,1))'
else
	echo "FAIL: cli/svg (rsvg-convert is missing: Debian package librsvg2-bin, installed by scripts/install-deps.sh)"
fi

# JSON: --resource-usage=json (one arch, two arches) and -fdiagnostics-format=json (one object
# per line, file names with quotes, backslashes, UTF-8 and a Latin-1 byte, the error-limit line)
json_case() { # name file kind regex
	if ! got=$($PY "$OUTS" "$3" "$2" 2>&1); then fail "cli/json/$1" "$got" "$(head -c 600 "$2")"
	elif ! printf '%s\n' "$got" | grep -Eq -- "$4"; then fail "cli/json/$1" "no /$4/ in:" "$got"
	else pass "cli/json/$1"; fi
}
"$FLYC" "$FLY_TOP/examples/elementwise.fly" --resource-usage=json -o "$TMP/ew.hsaco" >"$TMP/ru1.json" 2>&1
json_case resource-usage "$TMP/ru1.json" json '^\[\{"agprs": [0-9]+, "arch": "gfx950", "block": 256, "dynamic_stack": false, .*"kernel": "scale_add"'
"$FLYC" "$FLY_TOP/examples/reduction.fly" --offload-arch=gfx950 --offload-arch=gfx1201 --resource-usage=json \
	-o "$TMP/red.hsaco" >"$TMP/ru2.json" 2>&1
json_case resource-usage-two-arches "$TMP/ru2.json" json '"arch": "gfx950".*"arch": "gfx1201"'
"$FLYC" "$FLY_TOP/examples/elementwise.fly" --resource-usage=json -o - >/dev/null 2>"$TMP/ru3.json"
json_case resource-usage-stderr "$TMP/ru3.json" json '"kernel": "scale_add"'
mkdir -p "$TMP/j"
printf 'const A = $;\nconst B = "tab\there";\n' >"$TMP/j/q\"uo\\te é.fly"
"$FLYC" -fsyntax-only -fdiagnostics-format=json "$TMP/j/q\"uo\\te é.fly" >"$TMP/d1.jsonl" 2>&1
json_case diagnostics "$TMP/d1.jsonl" jsonl "\"file\": \"$TMP/j/q\\\\\"uo\\\\\\\\te é.fly\", \"line\": 1, \"message\": \"unexpected character '\\\$'\""
lat=$(printf 'lat\351n.fly')
printf 'const A = $;\n' >"$TMP/j/$lat"
"$FLYC" -fsyntax-only -fdiagnostics-format=json "$TMP/j/$lat" >"$TMP/d2.jsonl" 2>&1
json_case diagnostics-latin1-name "$TMP/d2.jsonl" jsonl '"file": "[^"]*/latén.fly"'
awk 'BEGIN { for (i = 0; i < 60; i++) print "const A = $;" }' >"$TMP/j/many.fly"
"$FLYC" -fsyntax-only -fdiagnostics-format=json "$TMP/j/many.fly" >"$TMP/d3.jsonl" 2>&1
json_case diagnostics-error-limit "$TMP/d3.jsonl" jsonl '"message": "too many errors emitted, stopping now", "severity": "fatal"'

# depfiles (-MD -MF -MP) read by make: the output is up to date, then out of date after touching
# the main file or the imported one, for folders with spaces and make's special characters; names
# make cannot read (newline, tab, ';', '=', '|', a trailing "(...)") are refused with an error
if out=$($PY "$OUTS" dep "$FLYC" "$TMP/dep" 'plain' 'a b' 'a  b' 'x#y' 'x$y' 'x$$(y)' 'x:y' 'x%y' 'x\y' 'x\ y' \
	'x\\ y' 'tail\' "x'y" 'x"y' 'x*y' 'x?y' 'x[1]y' 'x{y}' 'x&y' 'x!y' '~x' '-x' 'é' 'x(y)z' 'x(y)' 2>&1); then
	pass "cli/depfile/make-reads-it ($(printf '%s\n' "$out" | grep -c '^ok') names)"
else
	fail cli/depfile/make-reads-it "$out"
fi
nl='x
y'
if out=$($PY "$OUTS" dep "$FLYC" "$TMP/dep2" 'x;y' 'x=y' 'x|y' "$nl" 'x	y' 2>&1) &&
   [ "$(printf '%s\n' "$out" | grep -c '^refused')" = 5 ]; then
	pass cli/depfile/unreadable-names-refused
else
	fail cli/depfile/unreadable-names-refused "$out"
fi

printf 'const C = 1;\n' >"$TMP/c.fly"
expect_out cli/depfile/archive-member-target-refused 1 "make cannot read the file name '[^']*/lib\(m\)'" -- \
	"$FLYC" -fsyntax-only -MD -MF "$TMP/c.d" -o "$TMP/lib(m)" "$TMP/c.fly"

# compiler outputs read back by LLVM's own tools and a C compiler
ew="$FLY_TOP/examples/elementwise.fly"
LLVM=$(llvm-config-22 --bindir 2>/dev/null)
tool_case() { # name cmd...
	n=$1; shift
	if out=$("$@" 2>&1); then pass "cli/outputs/$n"; else fail "cli/outputs/$n" "$*" "$out"; fi
}
"$FLYC" "$ew" --emit=llvm -S -o "$TMP/ew.ll" && tool_case llvm-text "$LLVM/llvm-as" "$TMP/ew.ll" -o "$TMP/ew-as.bc"
"$FLYC" "$ew" --emit=llvm -o "$TMP/ew.bc" && tool_case llvm-bitcode "$LLVM/llvm-dis" "$TMP/ew.bc" -o "$TMP/ew-dis.ll"
"$FLYC" "$ew" -S -o "$TMP/ew.s" &&
	tool_case assembly "$LLVM/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj "$TMP/ew.s" -o "$TMP/ew-mc.o"
"$FLYC" "$ew" -c -o "$TMP/ew.o" && tool_case object "$LLVM/llvm-readelf" -h -s "$TMP/ew.o"
tool_case code-object "$LLVM/llvm-readelf" -h --notes "$TMP/ew.hsaco"
"$FLYC" "$ew" --offload-arch=gfx950 --offload-arch=gfx1201 -o "$TMP/ew2.hsaco" &&
	tool_case bundle clang-offload-bundler-22 -list -type=o -input="$TMP/ew2.hsaco"
"$FLYC" "$ew" --emit=launcher -o "$TMP/gen/ew.c" 2>/dev/null || { mkdir -p "$TMP/gen" && "$FLYC" "$ew" --emit=launcher -o "$TMP/gen/ew.c"; }
tool_case launcher cc -std=c11 -Wall -Werror -fsyntax-only -I"$FLY_TOP/runtime/include" "$TMP/gen/ew.c"

# --kernel=LIST: only the named kernels compiled and emitted
. "$FLY_TOP/tests/cli/kernel.sh"
