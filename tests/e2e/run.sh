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
#     byte-identically when rebuilt (targets.sh);
#   - libflyrt's launch checks (docs/runtime.md): flyc-sim refuses a wrong block, another
#     grid (unless --any-grid) and a buf= too small before running; with torch and numpy
#     (Debian's /usr/bin/python3), test_launch_checks.py refuses wrong dtypes, strides,
#     storage offsets and sizes, and runs negative/zero-stride layouts and device.cus
#     grids (launch_checks.fly) against CPU references.
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

# ---- flyc-sim: the launch checks before anything runs -------------------------------
SIM=$B/bin/flyc-sim
EW=$TMP/elementwise.hsaco
# scale_add(x, y, out: bf16 (N):(1), alpha, N), block(256), grid ceil(N / 2048); x bytes
# 0x3f3f (bf16 0.74609375), y 0: out = 2 * x = 1.4921875 = bf16 0x3fbf exactly
if "$SIM" "$EW" scale_add buf=2048,fill=0x3f buf=2048 buf=2048,out=$TMP/sim.out f32=2 i32=1024 	>"$TMP/sim.log" 2>&1 && [ "$(od -An -tx1 -v "$TMP/sim.out" | tr -s ' 
' '

' | grep -v '^$' | sort | uniq -c | awk '{print $1, $2}' | tr '
' ' ')" = "1024 3f 1024 bf " ]; then
	pass "flyc-sim: grid and block default to the kernel's .flyc.meta; the result is right"
else
	fail "flyc-sim: grid and block default to the kernel's .flyc.meta" "$(cat "$TMP/sim.log")" 		"$(od -An -tx1 "$TMP/sim.out" 2>&1 | head -3)"
fi
rm -f "$TMP/sim.out"
expect_out "flyc-sim: a buf= smaller than the layout reaches is refused" 1 	"FLYRT_ERROR_ARG_TYPE: kernel 'scale_add': argument 2 \(out\) is too small: its layout \(1024\):\(1\)" -- 	"$SIM" "$EW" scale_add buf=2048 buf=2048 buf=2046,out=$TMP/sim.out f32=2 i32=1024
if [ -e "$TMP/sim.out" ]; then fail "flyc-sim: a refused launch writes no out= file"
else pass "flyc-sim: a refused launch writes no out= file"; fi
expect_out "flyc-sim: --block other than the kernel's block(256) is refused" 1 	"FLYRT_ERROR_INVALID_LAUNCH: .*block 128x1x1 differs from the kernel's block\(256, 1, 1\)" -- 	"$SIM" "$EW" scale_add --block=128 buf=2048 buf=2048 buf=2048 f32=2 i32=1024
expect_out "flyc-sim: --grid other than the formula's is refused" 1 	"FLYRT_ERROR_INVALID_LAUNCH: .*grid 2x1x1 differs from the kernel's grid formula, which gives 1x1x1" -- 	"$SIM" "$EW" scale_add --grid=2 buf=2048 buf=2048 buf=2048 f32=2 i32=1024
expect_out "flyc-sim: --any-grid launches another grid" 0 "" -- 	"$SIM" "$EW" scale_add --grid=2 --any-grid buf=4096 buf=4096 buf=4096 f32=2 i32=1024
expect_out "flyc-sim: the kernel's own grid and block given explicitly" 0 "" -- 	"$SIM" "$EW" scale_add --grid=1 --block=256 buf=2048 buf=2048 buf=2048 f32=2 i32=1024
expect_out "flyc-sim: --any-grid does not allow another block" 1 "block 64x1x1 differs" -- 	"$SIM" "$EW" scale_add --grid=8 --block=64 --any-grid buf=2048 buf=2048 buf=2048 f32=2 i32=1024
expect_out "flyc-sim: --raw-kernarg still checks the block" 1 "block 128x1x1 differs" -- 	"$SIM" "$EW" scale_add --grid=1 --block=128 --raw-kernarg buf=2048 buf=2048 buf=2048 f32=2 i32=1024

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
# the launch checks with PyTorch CPU tensors and NumPy arrays (Debian's /usr/bin/python3)
if ! "$FLYC" tests/e2e/launch_checks.fly --offload-arch=gfx950 -o "$TMP/launch_checks.hsaco" 2>"$TMP/err"; then
	fail "e2e: launch_checks.fly compiles" "$(cat "$TMP/err")"
elif [ ! -x /usr/bin/python3 ]; then
	echo "SKIP: py checks: launch checks with torch and numpy (no /usr/bin/python3)"
elif [ "$FLY_SAN" = 1 ]; then
	(unset FLY_DEVICE FLY_SIM_CUS; FLYRT_LIB="$B/libflyrt.so" LD_PRELOAD="$asan $ubsan" 		ASAN_OPTIONS=detect_leaks=0 run_prog "e2e: test_launch_checks.py" /usr/bin/python3 		tests/e2e/test_launch_checks.py "$TMP/elementwise.hsaco" "$TMP/reduction.hsaco" "$TMP/launch_checks.hsaco")
else
	(unset FLY_DEVICE FLY_SIM_CUS; FLYRT_LIB="$B/libflyrt.so" run_prog "e2e: test_launch_checks.py" 		/usr/bin/python3 tests/e2e/test_launch_checks.py "$TMP/elementwise.hsaco" "$TMP/reduction.hsaco" 		"$TMP/launch_checks.hsaco")
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
