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
