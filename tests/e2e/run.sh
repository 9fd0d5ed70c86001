#!/bin/sh
# tests/e2e/run.sh — flyc's own code objects end to end on the simulator:
#   - flyc compiles examples/elementwise.fly, rmsnorm.fly and reduction.fly;
#   - a C program (e2e_flyc.c) loads them with libflyrt and launches them with the
#     kernels' own grid formulas (.flyc.meta) on several sizes, against CPU references,
#     including requires failures (FLYRT_ERROR_UNSUPPORTED);
#   - the Python binding does the same (test_e2e.py), and checks that requires
#     predicates are evaluated in 64 bits without wrapping (requires64.py);
#   - `flyc --emit=launcher` writes launchers (a raw code object, a two-arch bundle) that a
#     small C program (launcher_e2e.c) builds against libflyrt.a (and LLVM) and runs;
#   - every example and stdlib kernel compiles for gfx950 and gfx1201 with valid metadata,
#     byte-identically when rebuilt (targets.sh).
. "$FLY_TOP/tests/lib.sh"
cd "$FLY_TOP" || exit 2
case "$FLY_BUILD" in /*) B=$FLY_BUILD ;; *) B=$FLY_TOP/$FLY_BUILD ;; esac
SANFLAGS=
[ "$FLY_SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CC=${CC:-cc}
# libflyrt.a needs LLVM too: the simulator decodes instructions with LLVM's disassembler
RTLIBS="$B/libflyrt.a $(llvm-config-22 --ldflags --libs --system-libs) -lm -lpthread -ldl"

# run_prog NAME CMD... : run a program printing PASS:/FAIL: lines; a crash is a failure
run_prog() {
	name=$1; shift
	"$@" >"$TMP/out" 2>"$TMP/stderr"; rc=$?
	grep -E '^(PASS|FAIL|SKIP): |^    ' "$TMP/out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL: ' "$TMP/out"; then
		fail "$name exited with status $rc" "$(tail -n 30 "$TMP/stderr")"
	fi
}

ok=1
for e in elementwise rmsnorm reduction; do
	"$FLYC" examples/$e.fly --offload-arch=gfx950 -o "$TMP/$e.hsaco" 2>"$TMP/err" || { ok=0; break; }
done
if [ $ok = 1 ]; then pass "e2e: flyc compiles elementwise, rmsnorm, reduction for gfx950"
else fail "e2e: flyc compiles elementwise, rmsnorm, reduction for gfx950" "$(cat "$TMP/err")"; exit 0; fi

# ---- C, through libflyrt -------------------------------------------------------------
if $CC -std=c11 -O1 -g $SANFLAGS -Wall -Wextra -Werror -D_GNU_SOURCE -Iruntime/include \
	tests/e2e/e2e_flyc.c $RTLIBS -o "$TMP/e2e_flyc" 2>"$TMP/cc.err"; then
	(unset FLY_DEVICE; run_prog "e2e: e2e_flyc" "$TMP/e2e_flyc" "$TMP/elementwise.hsaco" \
		"$TMP/rmsnorm.hsaco" "$TMP/reduction.hsaco")
else
	fail "e2e: build e2e_flyc against libflyrt.a" "$(cat "$TMP/cc.err")"
fi

# ---- flyc --emit=launcher ------------------------------------------------------------
mkdir -p "$TMP/gen"
if "$FLYC" examples/elementwise.fly --emit=launcher -o "$TMP/gen/ew.c" 2>"$TMP/err" &&
   "$FLYC" examples/reduction.fly --emit=launcher -o "$TMP/gen/red.c" 2>>"$TMP/err" &&
   "$FLYC" examples/elementwise.fly --emit=launcher --offload-arch=gfx950 --offload-arch=gfx1201 \
	-o "$TMP/gen" 2>>"$TMP/err" &&
   [ -f "$TMP/gen/ew.h" ] && [ -f "$TMP/gen/red.h" ] && [ -f "$TMP/gen/elementwise.c" ]; then
	pass "launcher: flyc --emit=launcher writes NAME.h/NAME.c (-o NAME.c, -o DIR, a bundle)"
	if $CC -std=c11 -O1 -g $SANFLAGS -Wall -Wextra -Werror -pedantic -Iruntime/include -I"$TMP/gen" \
		tests/e2e/launcher_e2e.c "$TMP/gen/ew.c" "$TMP/gen/red.c" "$TMP/gen/elementwise.c" \
		$RTLIBS -o "$TMP/launcher_e2e" 2>"$TMP/cc.err"; then
		pass "launcher: the generated C builds warning-free with libflyrt.a"
		(unset FLY_DEVICE; run_prog "launcher: launcher_e2e" "$TMP/launcher_e2e")
	else
		fail "launcher: the generated C builds warning-free with libflyrt.a" "$(cat "$TMP/cc.err")"
	fi
else
	fail "launcher: flyc --emit=launcher writes NAME.h/NAME.c" "$(cat "$TMP/err")" "$(ls "$TMP/gen")"
fi
expect_out "launcher: -o - is refused" 1 "error: --emit=launcher writes two files" -- \
	"$FLYC" examples/elementwise.fly --emit=launcher -o -
expect_out "launcher: a name that is not a C identifier is refused" 1 "not a C identifier" -- \
	"$FLYC" examples/elementwise.fly --emit=launcher -o "$TMP/gen/9bad.c"
if [ -e "$TMP/gen/9bad.c" ] || [ -e "$TMP/gen/9bad.h" ]; then
	fail "launcher: no output after an error" "$(ls "$TMP/gen")"
else
	pass "launcher: no output after an error"
fi
# a default name from the input: examples/elementwise.fly -> ./elementwise.{c,h}
mkdir -p "$TMP/cwd"
if (cd "$TMP/cwd" && "$FLYC" "$FLY_TOP/examples/elementwise.fly" --emit=launcher 2>"$TMP/err") &&
   [ -f "$TMP/cwd/elementwise.c" ] && [ -f "$TMP/cwd/elementwise.h" ] &&
   [ -z "$(ls "$TMP/cwd" | grep -v '^elementwise\.[ch]$')" ]; then
	pass "launcher: without -o, NAME.c and NAME.h in the current directory (and nothing else)"
else
	fail "launcher: without -o, NAME.c and NAME.h in the current directory" "$(cat "$TMP/err")" "$(ls "$TMP/cwd")"
fi

# ---- every example and stdlib kernel, both targets ------------------------------------
. tests/e2e/targets.sh

# ---- Python --------------------------------------------------------------------------
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: py e2e: end to end (no python3)"
elif [ "$FLY_SAN" = 1 ]; then
	asan=$($CC -print-file-name=libasan.so) ubsan=$($CC -print-file-name=libubsan.so)
	(unset FLY_DEVICE; FLYRT_LIB="$B/libflyrt.so" LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0 \
		run_prog "e2e: test_e2e.py" python3 tests/e2e/test_e2e.py "$TMP/elementwise.hsaco" "$TMP/reduction.hsaco")
else
	(unset FLY_DEVICE; FLYRT_LIB="$B/libflyrt.so" \
		run_prog "e2e: test_e2e.py" python3 tests/e2e/test_e2e.py "$TMP/elementwise.hsaco" "$TMP/reduction.hsaco")
fi
# requires predicates are evaluated in 64 bits without wrapping (requires64.fly)
if ! command -v python3 >/dev/null 2>&1; then
	:
elif ! "$FLYC" tests/e2e/requires64.fly --offload-arch=gfx950 -o "$TMP/requires64.hsaco" 2>"$TMP/err"; then
	fail "e2e: requires64.fly compiles" "$(cat "$TMP/err")"
elif [ "$FLY_SAN" = 1 ]; then
	(unset FLY_DEVICE; FLYRT_LIB="$B/libflyrt.so" LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0 \
		run_prog "e2e: requires64.py" python3 tests/e2e/requires64.py "$TMP/requires64.hsaco")
else
	(unset FLY_DEVICE; FLYRT_LIB="$B/libflyrt.so" \
		run_prog "e2e: requires64.py" python3 tests/e2e/requires64.py "$TMP/requires64.hsaco")
fi
exit 0
