# tests/sim/faults.sh — sourced by tests/sim/run.sh: runs that must fail (or
# must be flagged), with the message naming the kernel, workgroup, wave, lane, PC.
for opt in O0 O3; do
	F="$TMP/faults.$opt.hsaco"
	if ! compile "$HERE/faults.cl" "$opt" "$F"; then fail "sim/faults-compile -$opt" "$(cat "$F.err")"; continue; fi
	expect_out "sim/oob-store -$opt" 1 'memory violation: global write of 4 bytes at 0x[0-9a-f]+ outside every allocation, lane 0, .*kernel f_oob_store, workgroup \(0,0,0\), wave 0, PC f_oob_store[-+]0x' -- \
		"$SIM" "$F" f_oob_store --grid=4 --block=256 buf=4096
	expect_out "sim/oob-load -$opt" 1 'memory violation: global read of 4 bytes .*outside every allocation, lane 0, .*kernel f_oob_load, workgroup \(0,0,0\), wave 0' -- \
		"$SIM" "$F" f_oob_load --grid=1 --block=64 buf=256 buf=256 i32=64
	expect_out "sim/oob-load-last-lane -$opt" 1 'global read of 4 bytes .*lane 63, .*workgroup \(0,0,0\), wave 0' -- \
		"$SIM" "$F" f_oob_load --grid=1 --block=64 buf=256 buf=256 i32=1
	expect_out "sim/in-bounds -$opt" 0 '^$' -- "$SIM" "$F" f_oob_load --grid=1 --block=64 buf=256 buf=260 i32=1
	expect_out "sim/lds-oob -$opt" 1 "memory violation: LDS write of 4 bytes at 0x100 beyond the kernel's LDS size 256, lane 0, .*wave 1" -- \
		"$SIM" "$F" f_lds_oob --grid=1 --block=128 buf=512
	printf '\7\0\0\0' > "$TMP/seven.bin"
	expect_out "sim/trap -$opt" 1 'trap: s_trap .*kernel f_trap, workgroup \(0,0,0\), wave 0' -- \
		"$SIM" "$F" f_trap --grid=1 --block=64 buf=256,in=$TMP/seven.bin
	expect_out "sim/no-trap -$opt" 0 '^$' -- "$SIM" "$F" f_trap --grid=1 --block=64 buf=256
	expect_out "sim/timeout -$opt" 1 'timeout: wave executed more than 100000 instructions' -- \
		env FLYC_SIM_STEP_LIMIT=100000 "$SIM" "$F" f_spin --grid=1 --block=64 buf=4
	expect_out "sim/race-unchecked -$opt" 0 '^$' -- "$SIM" "$F" f_race --grid=1 --block=128 buf=512
	expect_out "sim/racecheck -$opt" 1 "LDS write .*races with another wave's read since the last barrier .*wave 1" -- \
		"$SIM" --racecheck "$F" f_race --grid=1 --block=128 buf=512
	expect_out "sim/reqd-workgroup-size -$opt" 1 'bad launch: kernel f_reqd requires workgroups of 64,1,1 work-items, not 32,1,1' -- \
		"$SIM" "$F" f_reqd --grid=1 --block=32 buf=256
	expect_out "sim/reqd-workgroup-size-ok -$opt" 0 '^$' -- "$SIM" "$F" f_reqd --grid=1 --block=64 buf=256
	expect_out "sim/racecheck-atomics -$opt" 0 '^$' -- \
		"$SIM" --racecheck "$TMP/kernels.$opt.hsaco" k_atomic --grid=4 --block=256 buf=320 buf=32 buf=8 buf=4 buf=4 buf=4096
	expect_out "sim/racecheck-clean -$opt" 0 '^$' -- \
		"$SIM" --racecheck "$TMP/kernels.$opt.hsaco" k_scan --grid=4 --block=256 buf=4096 buf=16 buf=4096
done

# hand-written assembly
if "$MC" -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj "$HERE/asm_kernels.s" -o "$TMP/asm.o" 2>"$TMP/asm.err" &&
   "$LLD" -shared "$TMP/asm.o" -o "$TMP/asm.hsaco" 2>>"$TMP/asm.err"; then
	if "$SIM" "$TMP/asm.hsaco" k_squares --grid=1 --block=100 --raw-kernarg buf=400,out=$TMP/sq.bin >"$TMP/sq.log" 2>&1 &&
	   [ "$(od -An -v -td4 "$TMP/sq.bin" | tr -s ' \n' '\n\n' | sed '/^$/d' | awk '{ if ($1 != (NR-1)*(NR-1)) bad=1 } END { print NR, bad+0 }')" = "100 0" ]; then
		pass "sim/asm-kernel"
	else fail "sim/asm-kernel" "$(cat "$TMP/sq.log")"; fi
	if "$SIM" "$TMP/asm.hsaco" k_gpridx --grid=1 --block=64 --raw-kernarg buf=512,out=$TMP/gi.bin >"$TMP/gi.log" 2>&1 &&
	   [ "$(od -An -v -td4 "$TMP/gi.bin" | tr -s ' \n' '\n\n' | sed '/^$/d' | awk '{ want = NR <= 64 ? 30 + NR - 1 : 7; if ($1 != want) bad=1 } END { print NR, bad+0 }')" = "128 0" ]; then
		pass "sim/asm-gpr-idx"
	else fail "sim/asm-gpr-idx" "$(cat "$TMP/gi.log")" "$(od -An -td4 "$TMP/gi.bin" 2>/dev/null | head -3)"; fi
	if "$SIM" "$TMP/asm.hsaco" k_bitop3 --grid=1 --block=64 --raw-kernarg buf=512,out=$TMP/b3.bin >"$TMP/b3.log" 2>&1 &&
	   [ "$(od -An -v -td4 "$TMP/b3.bin" | tr -s ' \n' '\n\n' | sed '/^$/d' | awk '{ l = int((NR-1)/2); x = 256 + l; want = x - (x % 128 >= 64 ? 64 : 0) + 64; want = xor8(want); if ($1 != want) bad=1 } function xor8(v) { return (v % 16 >= 8) ? v - 8 : v + 8 } END { print NR, bad+0 }')" = "128 0" ]; then
		pass "sim/asm-bitop3-inline-constants"
	else fail "sim/asm-bitop3-inline-constants" "$(cat "$TMP/b3.log")" "$(od -An -tx4 "$TMP/b3.bin" 2>/dev/null | head -3)"; fi
	mkdir -p "$TMP/salu"
	if "$SIM" "$TMP/asm.hsaco" k_salu --grid=1 --block=64 --raw-kernarg buf=144,out=$TMP/salu/out0.bin >"$TMP/salu.log" 2>&1 &&
	   "$TMP/ref" check salu "$TMP/salu" >"$TMP/salu.chk" 2>&1; then pass "sim/asm-salu"
	else fail "sim/asm-salu" "$(cat "$TMP/salu.log" "$TMP/salu.chk" 2>/dev/null)"; fi
	mkdir -p "$TMP/satomic"
	if "$SIM" "$TMP/asm.hsaco" k_satomic --grid=1 --block=64 --raw-kernarg buf=336,out=$TMP/satomic/out0.bin >"$TMP/satomic.log" 2>&1 &&
	   "$TMP/ref" check satomic "$TMP/satomic" >"$TMP/satomic.chk" 2>&1; then pass "sim/asm-scalar-atomics"
	else fail "sim/asm-scalar-atomics" "$(cat "$TMP/satomic.log" "$TMP/satomic.chk" 2>/dev/null)"; fi
	expect_out "sim/scalar-store-oob" 1 'memory violation: global write of 16 bytes at 0x[0-9a-f]+ outside every allocation, scalar, by .s_store_dwordx4 s\[4:7\], s\[2:3\], 0x10.' -- \
		"$SIM" "$TMP/asm.hsaco" k_satomic --grid=1 --block=64 --raw-kernarg buf=16
	expect_out "sim/scalar-atomic-oob" 1 'memory violation: global write of 4 bytes at 0x[0-9a-f]+ outside every allocation, scalar, by .s_atomic_add s4, s\[2:3\], 0x100 glc.' -- \
		"$SIM" "$TMP/asm.hsaco" k_satomic_oob --grid=1 --block=64 --raw-kernarg buf=256
	expect_out "sim/scalar-atomic-in-bounds" 0 '^$' -- "$SIM" "$TMP/asm.hsaco" k_satomic_oob --grid=1 --block=64 --raw-kernarg buf=260
	mkdir -p "$TMP/valu"
	if "$SIM" "$TMP/asm.hsaco" k_valu --grid=1 --block=64 --raw-kernarg buf=5120,out=$TMP/valu/out0.bin >"$TMP/valu.log" 2>&1 &&
	   "$TMP/ref" check valu "$TMP/valu" >"$TMP/valu.chk" 2>&1; then pass "sim/asm-valu"
	else fail "sim/asm-valu" "$(cat "$TMP/valu.log" "$TMP/valu.chk" 2>/dev/null)"; fi
	expect_out "sim/kernarg-read-only" 1 'global write of 4 bytes at 0x[0-9a-f]+ into the read-only kernarg segment or dispatch packet, lane 0' -- \
		"$SIM" "$TMP/asm.hsaco" k_kernarg_write --grid=1 --block=64 --raw-kernarg u64=0
	expect_out "sim/unsupported" 1 'unsupported instruction s_rfe_b64 \(encoding 0xbe801f02\) at k_unsupported\+0xc' -- \
		"$SIM" "$TMP/asm.hsaco" k_unsupported --grid=1 --block=64 --raw-kernarg buf=4
	expect_out "sim/list-mnemonics-unsupported" 0 's_rfe_b64  UNSUPPORTED' -- "$SIM" --list-mnemonics "$TMP/asm.hsaco"
else
	fail "sim/asm-build" "$(cat "$TMP/asm.err")"
fi
if [ -f "$TMP/kernels.O3.hsaco" ]; then
	expect_out "sim/list-mnemonics" 0 'v_add_u32_e32' -- "$SIM" --list-mnemonics "$TMP/kernels.O3.hsaco"
	expect_out "sim/args-too-few" 1 'too few arguments: kernel k_int takes 3' -- \
		"$SIM" "$TMP/kernels.O3.hsaco" k_int --grid=1 --block=64 buf=4096 buf=4096
	expect_out "sim/args-size" 1 'argument 2 is 4 bytes, kernel k_int expects 8' -- \
		"$SIM" "$TMP/kernels.O3.hsaco" k_int --grid=1 --block=64 buf=4096 i32=3 buf=4
	expect_out "sim/args-too-many" 1 'too many arguments' -- \
		"$SIM" "$TMP/kernels.O3.hsaco" k_int --grid=1 --block=64 buf=4 buf=4 buf=4 buf=4
	expect_out "sim/no-kernel" 1 "no kernel 'nope'" -- "$SIM" "$TMP/kernels.O3.hsaco" nope --grid=1 --block=64
	expect_out "sim/bad-grid" 1 'bad --grid=0' -- "$SIM" "$TMP/kernels.O3.hsaco" k_int --grid=0 --block=64
	expect_out "sim/block-too-big" 1 'the kernel allows 256|exceeds the kernel' -- "$SIM" "$TMP/kernels.O3.hsaco" k_int --grid=1 --block=2048 buf=4 buf=4 buf=4
fi

# wave32 (gfx1201): the same checks name the lane (0..31), wave and PC; the
# race check, --trace (a 32-bit EXEC) and --stats work; gfx1201 in wave64 and
# a gfx1201 code object on a gfx950-only path are refused with a reason
F12="$TMP/faults.gfx1201.hsaco"
if ! compile "$HERE/faults.cl" O3 "$F12" gfx1201; then fail "sim/faults-compile -gfx1201" "$(cat "$F12.err")"
else
	expect_out "sim/oob-store -gfx1201" 1 'global write of 4 bytes at 0x[0-9a-f]+ outside every allocation, lane 0, by .global_store_b32 .*kernel f_oob_store, workgroup \(0,0,0\), wave 0, PC f_oob_store\+0x' -- \
		"$SIM" "$F12" f_oob_store --grid=4 --block=256 buf=4096
	expect_out "sim/oob-load-last-lane -gfx1201" 1 'global read of 4 bytes .*lane 31, .*workgroup \(0,0,0\), wave 1' -- \
		"$SIM" "$F12" f_oob_load --grid=1 --block=64 buf=256 buf=256 i32=1
	expect_out "sim/in-bounds -gfx1201" 0 '^$' -- "$SIM" "$F12" f_oob_load --grid=1 --block=64 buf=256 buf=260 i32=1
	expect_out "sim/lds-oob -gfx1201" 1 "LDS write of 4 bytes at 0x100 beyond the kernel's LDS size 256, lane 0, .*wave 2" -- \
		"$SIM" "$F12" f_lds_oob --grid=1 --block=128 buf=512
	expect_out "sim/race-unchecked -gfx1201" 0 '^$' -- "$SIM" "$F12" f_race --grid=1 --block=128 buf=512
	expect_out "sim/racecheck -gfx1201" 1 "LDS write .*races with another wave's read since the last barrier .*wave 2" -- \
		"$SIM" --racecheck "$F12" f_race --grid=1 --block=128 buf=512
	expect_out "sim/trace -gfx1201" 0 '^\[wg 0,0,0 w0\] f_reqd\+0x0 exec=ffffffff: s_load_b64' -- \
		"$SIM" --trace "$F12" f_reqd --grid=1 --block=64 buf=256
	expect_out "sim/stats -gfx1201" 0 '^flyc-sim: [0-9]+ wave instructions, [0-9]+ lane instructions' -- \
		"$SIM" --stats "$F12" f_race --grid=1 --block=128 buf=512
	expect_out "sim/timeout -gfx1201" 1 'timeout: wave executed more than 100000 instructions' -- \
		env FLYC_SIM_STEP_LIMIT=100000 "$SIM" "$F12" f_spin --grid=1 --block=64 buf=4
fi
if "$CLANG" -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx1201 -Xclang -target-feature -Xclang +wavefrontsize64 -nogpulib -Wno-everything -O3 \
	-c "$HERE/faults.cl" -o "$TMP/f64.o" 2>/dev/null && "$LLD" -shared "$TMP/f64.o" -o "$TMP/f64.hsaco" 2>/dev/null; then
	expect_out "sim/gfx1201-wave64-refused" 1 'kernel f_reqd is wave64; the simulator runs gfx1201 code in wave32 only' -- \
		"$SIM" "$TMP/f64.hsaco" f_reqd --grid=1 --block=64 buf=256
else fail "sim/gfx1201-wave64-compile" "clang-22 +wavefrontsize64 failed"; fi

# offload bundles: flyc-sim runs the entry of the device's arch (--arch=), or
# the one entry the simulator models; several need --arch; --arch makes the
# device that processor, so an ELF for another is refused
BUNDLER=${BUNDLER:-/usr/lib/llvm-22/bin/clang-offload-bundler}
if [ -x "$BUNDLER" ] && [ -f "$F12" ] && [ -f "$TMP/faults.O3.hsaco" ]; then
	: >"$TMP/empty.host"
	"$BUNDLER" -type=o -bundle-align=4096 -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx950,hipv4-amdgcn-amd-amdhsa--gfx1201 \
		-input="$TMP/empty.host" -input="$TMP/faults.O3.hsaco" -input="$F12" -output="$TMP/fat.co"
	"$BUNDLER" -type=o -bundle-align=4096 -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx1201 \
		-input="$TMP/empty.host" -input="$F12" -output="$TMP/fat1201.co"
	# the lane in the message tells the arch: wave32 puts lane 31 in wave 1, wave64 lane 63 in wave 0
	expect_out "sim/bundle-arch-gfx1201" 1 'lane 31, .*workgroup \(0,0,0\), wave 1' -- \
		"$SIM" "$TMP/fat.co" f_oob_load --arch=gfx1201 --grid=1 --block=64 buf=256 buf=256 i32=1
	expect_out "sim/bundle-arch-gfx950" 1 'lane 63, .*workgroup \(0,0,0\), wave 0' -- \
		"$SIM" "$TMP/fat.co" f_oob_load --arch=gfx950 --grid=1 --block=64 buf=256 buf=256 i32=1
	expect_out "sim/bundle-two-entries" 1 'offload bundle has entries for gfx950 and gfx1201; choose one with --arch=' -- \
		"$SIM" "$TMP/fat.co" f_oob_load --grid=1 --block=64 buf=256 buf=260 i32=1
	expect_out "sim/bundle-one-entry" 1 'lane 31, .*wave 1' -- \
		"$SIM" "$TMP/fat1201.co" f_oob_load --grid=1 --block=64 buf=256 buf=256 i32=1
	expect_out "sim/bundle-one-entry-ok" 0 '^$' -- "$SIM" "$TMP/fat1201.co" f_oob_load --grid=1 --block=64 buf=256 buf=260 i32=1
	expect_out "sim/bundle-no-entry" 1 'offload bundle has no code object for gfx950 \(entries: .*gfx1201' -- \
		"$SIM" "$TMP/fat1201.co" f_oob_load --arch=gfx950 --grid=1 --block=64 buf=256 buf=260 i32=1
	expect_out "sim/bundle-list-mnemonics" 0 'global_load_b32' -- "$SIM" --list-mnemonics --arch=gfx1201 "$TMP/fat.co"
	expect_out "sim/arch-elf-mismatch" 1 'code object is for gfx1201, the device is gfx950' -- \
		"$SIM" "$F12" f_oob_load --arch=gfx950 --grid=1 --block=64 buf=256 buf=260 i32=1
	expect_out "sim/arch-unknown" 2 "unknown --arch 'gfx942'" -- \
		"$SIM" "$F12" f_oob_load --arch=gfx942 --grid=1 --block=64 buf=256 buf=260 i32=1
else
	fail "sim/bundle" "no $BUNDLER or fault kernels"
fi

# forward progress (docs/simulator.md "Forward progress"): a wave that waits
# for another wave of its workgroup, or for a workgroup at most 7 later in
# launch order per host thread, gets there; a chain longer than the resident
# workgroups times out with a message saying workgroups had not started
for cpu in gfx950 gfx1201; do
	P="$TMP/progress.$cpu.hsaco"
	if ! compile "$HERE/progress.cl" O3 "$P" $cpu; then fail "sim/progress-compile -$cpu" "$(cat "$P.err")"; continue; fi
	for t in 1 2; do
		"$SIM" "$P" p_wait_later --threads=$t --grid=12 --block=64 buf=4 buf=48,out=$TMP/pw.bin i32=11 >"$TMP/pw.log" 2>&1
		got=$(od -An -v -td4 "$TMP/pw.bin" 2>/dev/null | tr -s ' \n' '  ')
		if [ "$got" = " 13 2 3 4 5 6 7 8 9 10 11 12 " ]; then pass "sim/progress-wait-later -$cpu --threads=$t"
		else fail "sim/progress-wait-later -$cpu --threads=$t" "got '$got'" "$(cat "$TMP/pw.log")"; fi
	done
	"$SIM" "$P" p_chain --grid=8 --block=64 buf=32 buf=32,out=$TMP/pc.bin i32=8 >"$TMP/pc.log" 2>&1
	got=$(od -An -v -td4 "$TMP/pc.bin" 2>/dev/null | tr -s ' \n' '  ')
	if [ "$got" = " 8 7 6 5 4 3 2 1 " ]; then pass "sim/progress-chain8 -$cpu"
	else fail "sim/progress-chain8 -$cpu" "got '$got'" "$(cat "$TMP/pc.log")"; fi
	expect_out "sim/progress-chain10-timeout -$cpu" 1 'timeout: wave executed more than 3000000 instructions \(a runaway kernel, or one waiting for a workgroup not yet started\?\) \(workgroups not yet started' -- \
		env FLYC_SIM_STEP_LIMIT=3000000 "$SIM" "$P" p_chain --grid=10 --block=64 buf=40 buf=40 i32=10
	"$SIM" "$P" p_wave_wait --grid=1 --block=128 buf=4,out=$TMP/pv.bin >"$TMP/pv.log" 2>&1
	got=$(od -An -v -td4 "$TMP/pv.bin" 2>/dev/null | tr -s ' \n' '  ')
	if [ "$got" = " 77 " ]; then pass "sim/progress-wave-wait -$cpu"
	else fail "sim/progress-wave-wait -$cpu" "got '$got'" "$(cat "$TMP/pv.log")"; fi
done

# gfx1201 instructions that are refused with their name and PC (not modelled:
# docs/simulator.md): sparse WMMA and s_sendmsg_rtn, both only from builtins
U12="$TMP/unsupported12.hsaco"
if compile "$HERE/unsupported12.cl" O3 "$U12" gfx1201; then
	expect_out "sim/swmmac-refused -gfx1201" 1 'unsupported instruction v_swmmac_f32_16x16x32_f16 \(encoding 0x[0-9a-f]+\) at k_swmmac\+0x[0-9a-f]+' -- \
		"$SIM" "$U12" k_swmmac --grid=1 --block=32 buf=1024 buf=512 buf=1024 buf=128
	expect_out "sim/sendmsg-rtn-refused -gfx1201" 1 'unsupported instruction s_sendmsg_rtn_b32 .* at k_sendmsg_rtn\+0x' -- \
		"$SIM" "$U12" k_sendmsg_rtn --grid=1 --block=32 buf=4
else fail "sim/unsupported12-compile" "$(cat "$U12.err")"; fi
