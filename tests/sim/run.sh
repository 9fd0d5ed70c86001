#!/bin/sh
# tests/sim/run.sh — the simulator tier.
#
# Compiles tests/sim/kernels.cl (and the fault kernels) with clang-22 for gfx950
# at -O0 and -O3, runs every kernel through flyc-sim and checks the outputs
# against the CPU reference tests/sim/ref.c. Then checks what must fail:
# out-of-bounds global/LDS accesses, traps, runaway kernels, races (with
# --racecheck), unsupported instructions, bad command lines. A hand-written
# assembly kernel checks code objects clang did not compile from C.
. "$FLY_TOP/tests/lib.sh"
SIM="$BIN/flyc-sim"
HERE="$FLY_TOP/tests/sim"
CLANG=${CLANG:-clang-22}
LLD=${LLD:-ld.lld-22}
MC=${MC:-llvm-mc-22}

if [ ! -x "$SIM" ]; then echo "FAIL: sim/flyc-sim (not built: $SIM)"; exit 0; fi
if ! command -v "$CLANG" >/dev/null 2>&1; then echo "SKIP: sim (no $CLANG)"; exit 0; fi

# build the reference
if ! cc -std=c11 -O1 -ffp-contract=off -o "$TMP/ref" "$HERE/ref.c" -lm 2>"$TMP/ref.err"; then
	fail "sim/ref-build" "$(cat "$TMP/ref.err")"; exit 0
fi

compile() { # SRC OPT OUT [MCPU]
	"$CLANG" -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="${4:-gfx950}" -nogpulib -Wno-everything \
		"-$2" -c "$1" -o "$3.o" 2>"$3.err" && "$LLD" -shared "$3.o" -o "$3" 2>>"$3.err"
}

# run_test NAME[:REF] OPT KERNEL GRID BLOCK ARGS... (ARGS may use @D for the test folder;
# REF names the reference in ref.c when it differs from NAME). OPT names the
# code object kernels.OPT.hsaco (gfx1201 ones are "gfx1201-O3" and so on).
run_test() {
	name=${1%%:*} ref=${1#*:} opt=$2 kern=$3 grid=$4 block=$5; shift 5
	d="$TMP/$name.$opt"; mkdir -p "$d"
	if ! "$TMP/ref" gen "$ref" "$d" >"$d/gen.log" 2>&1; then fail "sim/$name -$opt" "$(cat "$d/gen.log")"; return; fi
	set -- $(printf '%s\n' "$@" | sed "s|@D|$d|g")
	if ! "$SIM" "$TMP/kernels.$opt.hsaco" "$kern" --grid="$grid" --block="$block" "$@" >"$d/sim.log" 2>&1; then
		fail "sim/$name -$opt" "flyc-sim failed:" "$(cat "$d/sim.log")"; return
	fi
	if "$TMP/ref" check "$ref" "$d" >"$d/check.log" 2>&1; then pass "sim/$name -$opt"
	else fail "sim/$name -$opt" "$(cat "$d/check.log")"; fi
}

# the OpenCL suite: kernels.cl for gfx950 (wave64) at -O0..-O3 and for
# gfx1201 (wave32) at -O0 and -O3, every output against ref.c. The gfx950-only
# kernels (wave64 cross-lane operations, sdot2, global_load_lds) are compiled
# out for gfx1201 (#ifndef __gfx1201__ in kernels.cl), which has its own
# wave32 cross-lane kernel k_xlane32.
for opt in O0 O1 O2 O3 gfx1201-O0 gfx1201-O3; do
	case $opt in gfx1201-*) cpu=gfx1201 ;; *) cpu=gfx950 ;; esac
	if ! compile "$HERE/kernels.cl" "${opt#gfx1201-}" "$TMP/kernels.$opt.hsaco" $cpu; then
		fail "sim/compile -$opt" "$(cat "$TMP/kernels.$opt.hsaco.err")"; continue
	fi
	pass "sim/compile -$opt"
	N=1024
	run_test int $opt k_int 4 256 buf=$((N*80)),out=@D/out0.bin buf=4096,in=@D/in0.bin buf=4096,in=@D/in1.bin
	# one partial wave (32 lanes) per workgroup, 32 workgroups
	run_test int-partial-wave:int $opt k_int 32 32 buf=$((N*80)),out=@D/out0.bin buf=4096,in=@D/in0.bin buf=4096,in=@D/in1.bin
	run_test float $opt k_float 4 256 buf=$((N*64)),out=@D/out0.bin buf=4096,in=@D/in0.bin buf=4096,in=@D/in1.bin buf=4096,in=@D/in2.bin
	run_test long $opt k_long 4 256 buf=$((N*96)),out=@D/out0.bin buf=8192,in=@D/in0.bin buf=8192,in=@D/in1.bin
	run_test double $opt k_double 4 256 buf=$((N*80)),out=@D/out0.bin buf=8192,in=@D/in0.bin buf=8192,in=@D/in1.bin
	run_test convert $opt k_convert 4 256 buf=$((N*48)),out=@D/out0.bin buf=4096,in=@D/in0.bin buf=4096,in=@D/in1.bin buf=8192,in=@D/in2.bin
	run_test control $opt k_control 4 256 buf=$((N*8)),out=@D/out0.bin buf=4096,in=@D/in0.bin
	run_test scan $opt k_scan 4 256 buf=4096,out=@D/out0.bin buf=16,out=@D/out1.bin buf=4096,in=@D/in0.bin
	run_test transpose $opt k_transpose 4,3 16,16 buf=12288,out=@D/out0.bin buf=12288,in=@D/in0.bin i32=64 i32=48
	run_test ids $opt k_ids 2,3,2 4,4,4 buf=3072,out=@D/out0.bin
	run_test vmem $opt k_vmem 4 256 buf=16384,out=@D/out0.bin buf=1024,out=@D/out1.bin buf=2048,out=@D/out2.bin buf=16384,out=@D/out3.bin \
		buf=16384,in=@D/in0.bin buf=1024,in=@D/in1.bin buf=2048,in=@D/in2.bin buf=16384,in=@D/in3.bin
	run_test atomic $opt k_atomic 4 256 buf=320,out=@D/out0.bin buf=32,in=@D/mm.bin,out=@D/out1.bin buf=8,out=@D/out2.bin \
		buf=4,out=@D/out3.bin buf=4,out=@D/out4.bin buf=4096,in=@D/in0.bin
	if [ $cpu = gfx950 ]; then
	run_test xlane $opt k_xlane 4 256 buf=$((N*32)),out=@D/out0.bin buf=4096,in=@D/in0.bin
	else
	run_test xlane32 $opt k_xlane32 4 256 buf=$((N*48)),out=@D/out0.bin buf=4096,in=@D/in0.bin
	fi
	run_test buffer $opt k_buffer 4 256 buf=4096,out=@D/out0.bin buf=4096,fill=0xee,out=@D/out1.bin buf=4096,in=@D/in0.bin i32=512
	run_test private $opt k_private 4 256 buf=4096,out=@D/out0.bin buf=4096,in=@D/in0.bin
	run_test half2 $opt k_half2 4 256 buf=4096,out=@D/out0.bin buf=4096,in=@D/in0.bin buf=4096,in=@D/in1.bin
	run_test hmath $opt k_hmath 4 256 buf=16384,out=@D/out0.bin buf=2048,in=@D/in0.bin buf=2048,in=@D/in1.bin
	run_test small $opt k_small 4 256 buf=4096,out=@D/out0.bin buf=4096,in=@D/in0.bin buf=4096,out=@D/out1.bin buf=4096,in=@D/in1.bin \
		buf=2048,in=@D/in2.bin,out=@D/out2.bin buf=1024,in=@D/in3.bin,out=@D/out3.bin
	run_test conv64 $opt k_conv64 4 256 buf=65536,out=@D/out0.bin buf=8192,in=@D/in0.bin buf=4096,in=@D/in1.bin buf=8192,in=@D/in2.bin
	[ $cpu = gfx950 ] && run_test builtins $opt k_builtins 4 256 buf=49152,out=@D/out0.bin buf=32768,out=@D/out1.bin buf=4096,in=@D/in0.bin buf=4096,in=@D/in1.bin
	run_test atomic2 $opt k_atomic2 4 256 buf=512,in=@D/f.bin,out=@D/out0.bin buf=1024,fill=0x7f,out=@D/out1.bin buf=32,out=@D/out2.bin \
		buf=1024,fill=0xff,out=@D/out3.bin
	[ $cpu = gfx950 ] && run_test buffer2 $opt k_buffer2 4 256 buf=16384,out=@D/out0.bin buf=4096,in=@D/in0.bin buf=10240,out=@D/out1.bin
	run_test minmax $opt k_minmax 4 256 buf=8192,out=@D/out0.bin buf=4096,in=@D/in0.bin
	run_test append $opt k_append 4 256 buf=4096,out=@D/out0.bin buf=16,out=@D/out1.bin buf=4096,in=@D/in0.bin
	run_test generic $opt k_generic 4 256 buf=8192,out=@D/out0.bin buf=4096,in=@D/in0.bin
	run_test sgemm $opt k_sgemm 4,4 256 buf=16384,out=@D/out0.bin buf=16384,in=@D/in0.bin buf=16384,in=@D/in1.bin
	run_test bitonic $opt k_bitonic 4 256 buf=4096,out=@D/out0.bin buf=4096,in=@D/in0.bin
	run_test const $opt k_const 4 256 buf=4096,out=@D/out0.bin buf=4096,in=@D/in0.bin
done

# LLVM IR kernels of the kind flyc emits (llc-22)
LLC=${LLC:-llc-22}
for iropt in O0 O3; do
	if "$LLC" -mtriple=amdgcn-amd-amdhsa -mcpu=gfx950 "-$iropt" -filetype=obj "$HERE/ir_kernels.ll" -o "$TMP/ir.$iropt.o" 2>"$TMP/ir.err" &&
	   "$LLD" -shared "$TMP/ir.$iropt.o" -o "$TMP/kernels.ir$iropt.hsaco" 2>>"$TMP/ir.err"; then
		run_test ir_preload ir$iropt ir_preload 1 256 buf=1024,out=@D/out0.bin i32=3 i32=5
		run_test ir_buffer_lds ir$iropt ir_buffer_lds 1 64 buf=512,out=@D/out0.bin buf=256,in=@D/in0.bin
		run_test ir_buffer_format ir$iropt ir_buffer_format 1 64 buf=1024,out=@D/out0.bin buf=1024,in=@D/in0.bin
	else
		fail "sim/ir-compile -$iropt" "$(cat "$TMP/ir.err")"
	fi
done

# global atomics from workgroups running on two host threads
if [ -f "$TMP/kernels.O3.hsaco" ]; then
	run_test atomic-threads:atomic O3 k_atomic 16 64 --threads=2 buf=320,out=@D/out0.bin buf=32,in=@D/mm.bin,out=@D/out1.bin buf=8,out=@D/out2.bin \
		buf=4,out=@D/out3.bin buf=4,out=@D/out4.bin buf=4096,in=@D/in0.bin
fi

# several host threads give the same bytes as one
if [ -f "$TMP/kernels.O3.hsaco" ]; then
	d="$TMP/threads"; mkdir -p "$d"; "$TMP/ref" gen int "$d"
	"$SIM" "$TMP/kernels.O3.hsaco" k_int --grid=16 --block=64 buf=81920,out=$d/a.bin buf=4096,in=$d/in0.bin buf=4096,in=$d/in1.bin >/dev/null 2>&1
	"$SIM" "$TMP/kernels.O3.hsaco" k_int --threads=2 --grid=16 --block=64 buf=81920,out=$d/b.bin buf=4096,in=$d/in0.bin buf=4096,in=$d/in1.bin >/dev/null 2>&1
	if [ -s "$d/a.bin" ] && cmp -s "$d/a.bin" "$d/b.bin"; then pass "sim/threads-deterministic"; else fail "sim/threads-deterministic" "outputs differ"; fi
fi

# gfx1201 WMMA, instruction by instruction, against Python (tests/sim/wmma.py)
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$TMP/wmma"
	/usr/bin/python3 "$HERE/wmma.py" "$SIM" "$MC" "$LLD" "$TMP/wmma"
else
	echo "SKIP: sim/wmma (no /usr/bin/python3)"
fi

# gfx1201 v_fma_mix* (f32 and f16 sources by op_sel_hi) against Python (tests/sim/fmamix.py)
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$TMP/fmamix"
	/usr/bin/python3 "$HERE/fmamix.py" "$SIM" "$MC" "$LLD" "$TMP/fmamix"
else
	echo "SKIP: sim/fmamix (no /usr/bin/python3)"
fi

# gfx1201 transposed global loads against Python (tests/sim/loadtr.py)
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$TMP/loadtr"
	/usr/bin/python3 "$HERE/loadtr.py" "$SIM" "$CLANG" "$LLD" "$TMP/loadtr"
else
	echo "SKIP: sim/loadtr (no /usr/bin/python3)"
fi

# buffer range checking: gfx950's rule and gfx1201's OOB_SELECT (tests/sim/bufoob.py)
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$TMP/bufoob"
	/usr/bin/python3 "$HERE/bufoob.py" "$SIM" "${LLC:-llc-22}" "$LLD" "$TMP/bufoob"
else
	echo "SKIP: sim/bufoob (no /usr/bin/python3)"
fi

# ROCm/aiter's hand-written gfx950 split-K bf16 GEMMs (scalar atomics, spin
# waits on a semaphore) against a CPU reference, from a fetched copy of aiter
# named by FLY_AITER (a checkout or a bare git directory; never committed)
if [ -n "${FLY_AITER:-}" ] && [ -e "$FLY_AITER" ]; then
	if out=$(FLYRT_LIB="$BIN/../libflyrt.so" /usr/bin/python3 "$FLY_TOP/scripts/aiter_splitk_check.py" "$FLY_AITER" --quick 2>&1); then
		pass "sim/aiter-splitk-gemm"
	else fail "sim/aiter-splitk-gemm" "$out"; fi
else
	echo "SKIP: sim/aiter-splitk-gemm (set FLY_AITER to a copy of ROCm/aiter)"
fi

# ---- what must fail ----
. "$HERE/faults.sh"
