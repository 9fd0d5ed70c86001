#!/bin/sh
# tests/runtime/run.sh — libflyrt end to end: OpenCL kernels (kernels/rt.cl) built with
# clang-22 for gfx950 and gfx1201, a .flyc.meta section (kernels/rt.meta) added with
# llvm-objcopy-22, an offload bundle; then
#   - a C program (rt_e2e.c) loads them and runs them on the simulator against CPU
#     references, with requires failures, bad arguments and tuning-database dispatch;
#   - the Python binding (test_flyrt.py) does the same through ctypes;
#   - a generated launcher (compiler/launcher.c) is built and run (launcher_main.c);
#   - the loader gets thousands of damaged code objects and bundles (corrupt.c);
#   - the HIP backend reports that there is no HIP runtime here, "no device" from a
#     runtime without devices, and runs through a stand-in libamdhip64 (fake_hip.c).
. "$FLY_TOP/tests/lib.sh"
cd "$FLY_TOP" || exit 2
case "$FLY_BUILD" in /*) B=$FLY_BUILD ;; *) B=$FLY_TOP/$FLY_BUILD ;; esac
K=tests/runtime/kernels
LLVM=$(llvm-config-22 --bindir)
SANFLAGS=
[ "$FLY_SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
LIBS="$B/libflyc.a $B/libflyrt.a $(llvm-config-22 --ldflags --libs --system-libs) -lsqlite3 -lm -lpthread -ldl"
CC=${CC:-cc}

# ---- inputs --------------------------------------------------------------------------
build_ok=1
for cpu in gfx950 gfx1201; do
	"$LLVM/clang" -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=$cpu -nogpulib -O2 \
		-cl-kernel-arg-info -c $K/rt.cl -o "$TMP/$cpu.o" 2>"$TMP/err" &&
	"$LLVM/ld.lld" -shared "$TMP/$cpu.o" -o "$TMP/$cpu.hsaco" 2>>"$TMP/err" || build_ok=0
done
"$LLVM/llvm-objcopy" --add-section=.flyc.meta=$K/rt.meta "$TMP/gfx950.hsaco" "$TMP/rt.hsaco" \
	2>>"$TMP/err" || build_ok=0
: >"$TMP/empty"   # the host entry (not /dev/null: a clobbered /dev/null once made it 84 MB)
"$LLVM/clang-offload-bundler" -type=o -bundle-align=4096 \
	-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx1201,hipv4-amdgcn-amd-amdhsa--gfx950 \
	-input="$TMP/empty" -input="$TMP/gfx1201.hsaco" -input="$TMP/rt.hsaco" -output="$TMP/fat.co" \
	2>>"$TMP/err" || build_ok=0
if [ $build_ok = 1 ]; then pass "runtime: test kernels build (clang-22, ld.lld-22, objcopy, bundler)"
else fail "runtime: test kernels build" "$(cat "$TMP/err")"; exit 0; fi

# cc_prog NAME SRC... : build a test program against the build's libraries
cc_prog() {
	name=$1; shift
	if $CC -std=c11 -O1 -g $SANFLAGS -D_GNU_SOURCE -Iruntime/include -Iruntime -Icompiler \
		-I"$TMP" "$@" $LIBS -o "$TMP/$name" 2>"$TMP/cc.err"; then
		return 0
	fi
	fail "runtime: build $name" "$(cat "$TMP/cc.err")"
	return 1
}

# run_prog NAME CMD... : run a program printing PASS:/FAIL: lines; a crash is a failure
run_prog() {
	name=$1; shift
	"$@" >"$TMP/out" 2>"$TMP/stderr"; rc=$?
	grep -E '^(PASS|FAIL|SKIP): |^    ' "$TMP/out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL: ' "$TMP/out"; then
		fail "$name exited with status $rc" "$(tail -n 30 "$TMP/stderr")"
	fi
}

# ---- HIP: absent here; "no device"; a stand-in runtime --------------------------------
if cc_prog hip_absent tests/runtime/hip_absent.c; then
	(unset FLYRT_HIP_LIBRARY FLY_DEVICE; run_prog "runtime: hip_absent" "$TMP/hip_absent" no-runtime)
	for d in 0 1; do
		$CC -shared -fPIC -O1 -DFAKE_DEVICES=$d tests/runtime/fake_hip.c -o "$TMP/fake_hip$d.so"
	done
	(unset FLY_DEVICE; FLYRT_HIP_LIBRARY="$TMP/fake_hip0.so" \
		run_prog "runtime: hip no device" "$TMP/hip_absent" no-device)
	$CC -shared -fPIC -O1 -DFAKE_BAD_PROPS tests/runtime/fake_hip.c -o "$TMP/fake_hip_bad.so"
	(unset FLY_DEVICE; FLYRT_HIP_LIBRARY="$TMP/fake_hip_bad.so" \
		run_prog "runtime: hip bad properties" "$TMP/hip_absent" bad-props)
fi
if cc_prog hip_fake_test tests/runtime/hip_fake_test.c; then
	(unset FLY_DEVICE; FLYRT_HIP_LIBRARY="$TMP/fake_hip1.so" \
		run_prog "runtime: hip_fake_test" "$TMP/hip_fake_test" "$TMP/rt.hsaco" "$TMP/gfx1201.hsaco")
fi
# make check-gpu's program, run against the stand-in (a real GPU run needs /dev/kfd)
if [ -x "$B/bin/flyrt-gpu-tests" ]; then
	(unset FLY_DEVICE; FLYRT_HIP_LIBRARY="$TMP/fake_hip1.so" \
		run_prog "runtime: flyrt-gpu-tests" "$B/bin/flyrt-gpu-tests") | sed 's/^\(PASS\|FAIL\|SKIP\): gpu: /\1: gpu (stand-in HIP): /'
	(unset FLY_DEVICE FLYRT_HIP_LIBRARY; run_prog "runtime: flyrt-gpu-tests" "$B/bin/flyrt-gpu-tests") |
		grep -q '^SKIP: gpu' && pass "gpu: flyrt-gpu-tests skips cleanly without a GPU" ||
		fail "gpu: flyrt-gpu-tests skips cleanly without a GPU"
fi

# ---- the simulator must be able to run kernels for the rest -------------------------
if ! grep -q 'sim_launch' runtime/sim/*.c 2>/dev/null; then
	for t in "c: end to end" "py: end to end" "launcher: build and run" "corrupt inputs"; do
		echo "SKIP: runtime: $t (the simulator (runtime/sim) is not merged yet)"
	done
	exit 0
fi

# ---- flyrt-info ----------------------------------------------------------------------
out=$("$B/bin/flyrt-info" "$TMP/fat.co" 2>&1); rc=$?
miss=
for re in '^kernel vadd$' 'arg a +ptr +f32 align 16 +offset 0 size 8$' 'arg n +i32 +offset 24 size 4$' \
	'^  block 64 1 1$' '^  requires aligned\(a, 16\)$' 'arg m +i64 +offset 16 size 8 +\(from the AMDGPU note\)'; do
	printf '%s\n' "$out" | grep -Eq -- "$re" || miss="$miss /$re/"
done
if [ $rc = 0 ] && [ -z "$miss" ]; then pass "info: lists kernels, typed args and requires"
else fail "info: lists kernels, typed args and requires" "exit $rc; missing:$miss" "$out"; fi
expect_out "info: an arch mismatch is a clear error" 1 \
	'FLYRT_ERROR_NO_BINARY_FOR_DEVICE: .*built for gfx1201, the device is gfx950' -- \
	"$B/bin/flyrt-info" "$TMP/gfx1201.hsaco"
(unset FLYRT_HIP_LIBRARY FLY_DEVICE
expect_out "info: --device=hip says there is no HIP runtime" 1 \
	'FLYRT_ERROR_NO_(HIP_RUNTIME: no HIP runtime|DEVICE: no device)' -- \
	"$B/bin/flyrt-info" --device=hip "$TMP/rt.hsaco")

# ---- C -------------------------------------------------------------------------------
# the tuning database of the saxpy variants, from the rows of rt.tune.csv
if "$B/bin/flyc-tune" --rows=$K/rt.tune.csv -o "$TMP/rt.tunedb" >"$TMP/tune.out" 2>&1; then
	pass "runtime: flyc-tune --rows writes the saxpy tuning database"
else
	fail "runtime: flyc-tune --rows writes the saxpy tuning database" "$(cat "$TMP/tune.out")"
fi
if cc_prog rt_e2e tests/runtime/rt_e2e.c; then
	(unset FLY_DEVICE; run_prog "runtime: rt_e2e" "$TMP/rt_e2e" "$TMP/rt.hsaco" "$TMP/rt.tunedb")
	(unset FLY_DEVICE; run_prog "runtime: rt_e2e (bundle)" "$TMP/rt_e2e" "$TMP/fat.co" "$TMP/rt.tunedb") |
		sed 's/^\(PASS\|FAIL\): c: /\1: c (bundle): /'
fi

# ---- corrupt inputs ------------------------------------------------------------------
if cc_prog corrupt tests/runtime/corrupt.c; then
	run_prog "runtime: corrupt" "$TMP/corrupt" "$TMP/rt.hsaco" "$TMP/fat.co"
fi

# ---- generated launcher --------------------------------------------------------------
if cc_prog emit_launcher tests/runtime/emit_launcher.c; then
	mkdir -p "$TMP/gen"
	if "$TMP/emit_launcher" "$TMP/rt.hsaco" rtk "$TMP/gen" 2>"$TMP/err" &&
	   [ -f "$TMP/gen/rtk.h" ] && [ -f "$TMP/gen/rtk.c" ]; then
		pass "launcher: emitted rtk.h and rtk.c"
		if $CC -std=c11 -Wall -Wextra -Werror -pedantic -Iruntime/include -c "$TMP/gen/rtk.c" \
			-o "$TMP/rtk.o" 2>"$TMP/err"; then
			pass "launcher: generated C compiles warning-free (-std=c11 -pedantic)"
			if cc_prog launcher_main -I"$TMP/gen" tests/runtime/launcher_main.c "$TMP/gen/rtk.c"; then
				(unset FLY_DEVICE; run_prog "runtime: launcher_main" "$TMP/launcher_main")
			fi
		else
			fail "launcher: generated C compiles warning-free" "$(cat "$TMP/err")"
		fi
	else
		fail "launcher: emitted rtk.h and rtk.c" "$(cat "$TMP/err")"
	fi
	expect_out "launcher: a bad name is refused" 1 "not a C identifier" -- \
		"$TMP/emit_launcher" "$TMP/rt.hsaco" "9bad" "$TMP/gen"
	head -c 300 "$TMP/rt.hsaco" >"$TMP/trunc.hsaco"
	expect_out "launcher: a truncated code object is refused" 1 "error: corrupt code object" -- \
		"$TMP/emit_launcher" "$TMP/trunc.hsaco" "trunc" "$TMP/gen"
	if [ -e "$TMP/gen/trunc.h" ] || [ -e "$TMP/gen/trunc.c" ] || ls "$TMP/gen" | grep -q tmp; then
		fail "launcher: no partial output after an error" "$(ls "$TMP/gen")"
	else
		pass "launcher: no partial output after an error"
	fi
fi

# ---- Python --------------------------------------------------------------------------
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: py: end to end (no python3)"
elif [ "$FLY_SAN" = 1 ]; then
	# libflyrt.so is sanitized: the runtime must come first in the process
	asan=$($CC -print-file-name=libasan.so) ubsan=$($CC -print-file-name=libubsan.so)
	(unset FLY_DEVICE; FLYRT_LIB="$B/libflyrt.so" LD_PRELOAD="$asan $ubsan" \
		ASAN_OPTIONS=detect_leaks=0 \
		run_prog "runtime: test_flyrt.py" python3 tests/runtime/test_flyrt.py "$TMP/rt.hsaco" "$TMP/rt.tunedb")
else
	(unset FLY_DEVICE; FLYRT_LIB="$B/libflyrt.so" \
		run_prog "runtime: test_flyrt.py" python3 tests/runtime/test_flyrt.py "$TMP/rt.hsaco" "$TMP/rt.tunedb")
fi
exit 0
