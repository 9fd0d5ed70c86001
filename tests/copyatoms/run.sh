# Copy-atom tier: every gfx950 register/LDS copy atom moves data through a
# round trip on the simulator (global -> registers -> global, and
# global -> registers -> LDS -> registers (another thread's) -> global),
# compared byte for byte with the input. Kernels: tests/copyatoms/atoms_gfx950.fly;
# the same for every gfx1201 copy atom (atoms_gfx1201.fly) on a sim:gfx1201
# device, and the pipeline statement on both targets (pipe*.fly).
# The instructions each atom selects are checked by tests/codegen/copy-atoms.test.
. "$FLY_TOP/tests/lib.sh"
SIM=${FLY_SIM_BIN:-$BIN/flyc-sim}
if [ ! -x "$FLYC" ]; then fail copyatoms/flyc "missing $FLYC (run make)"; exit 1; fi
if [ ! -x "$SIM" ]; then echo "SKIP: copyatoms (no flyc-sim)"; exit 0; fi
src=$FLY_TOP/tests/copyatoms/atoms_gfx950.fly
co=$TMP/atoms.hsaco
if ! out=$("$FLYC" "$src" --offload-arch=gfx950 -o "$co" 2>&1); then
	fail copyatoms/compile "$out"
	exit 0
fi
pass copyatoms/compile

# input bytes: a deterministic pseudo-random pattern (never 0, never the fill 0x5A's whole buffer)
gen() { # bytes file
	LC_ALL=C awk -v n="$1" 'BEGIN { s = 12345; for (i = 0; i < n; i++) { s = (s * 1103515245 + 12345) % 2147483648; printf "%c", 1 + int(s / 65536) % 255 } }' >"$2"
}

# roundtrip KERNEL ELEMS ELEM_BYTES GRID [N [BLOCK]]: y must equal x
roundtrip() {
	k=$1 n=$2 eb=$3 grid=$4 arg=${5:-} block=${6:-64}
	bytes=$((n * eb))
	gen "$bytes" "$TMP/$k.in"
	rm -f "$TMP/$k.out"
	if [ -n "$arg" ]; then set -- "i32=$arg"; else set --; fi
	if ! out=$("$SIM" "$co" "$k" ${SIMARCH:-} --grid="$grid" --block="$block" "buf=$bytes,in=$TMP/$k.in" \
		"buf=$bytes,fill=0x5A,out=$TMP/$k.out" "$@" 2>&1); then
		fail "copyatoms/$k${SFX:-}" "flyc-sim failed:" "$out"
	elif ! cmp "$TMP/$k.in" "$TMP/$k.out" >"$TMP/cmp" 2>&1; then
		fail "copyatoms/$k${SFX:-}" "output differs from input: $(head -n 3 "$TMP/cmp")"
	else
		pass "copyatoms/$k${SFX:-}"
	fi
}

# the register and LDS atoms both targets have (global -> registers -> global, via LDS)
register_atoms() {
	for v in 1:32 2:64 3:96 4:128; do
		V=${v%%:*} b=${v#*:}
		tile=$((64 * V))
		roundtrip "buf_b$b" $((4 * tile)) 4 4
		roundtrip "glb_b$b" $((3 * tile)) 4 3 $((3 * tile))
		roundtrip "lds_b$b" $((2 * tile)) 4 2 $((2 * tile))
	done
	roundtrip buf_b128_bf16 1536 2 3 1536
	roundtrip glb_b64_bf16 512 2 2 512
	roundtrip lds_b128_bf16 1024 2 2 1024
}
register_atoms
# loads straight to LDS (two waves per workgroup: M0 per wave)
for v in 1:32 3:96 4:128; do
	V=${v%%:*} b=${v#*:}
	tile=$((128 * V))
	roundtrip "dma_glb_b$b" $((3 * tile)) 4 3 $((3 * tile)) 128
	roundtrip "dma_buf_b$b" $((4 * tile)) 4 4 "" 128
done
# transposed LDS reads against the CPU model in tr.py (SIMARCH: flyc-sim's arch option;
# TRARGS: tr.py's group and bits per lane)
transposed() { # KERNEL ELEMS ELEM_BITS GRID
	k=$1 n=$2 eb=$3 grid=$4 bytes=$(($2 * $3 / 8))
	gen "$bytes" "$TMP/$k.in"
	if ! out=$("$SIM" "$co" "$k" ${SIMARCH:-} --grid="$grid" --block=64 "buf=$bytes,in=$TMP/$k.in" \
		"buf=$bytes,fill=0x5A,out=$TMP/$k.out" "i32=$n" 2>&1); then
		fail "copyatoms/$k" "flyc-sim failed:" "$out"
	elif ! out=$(python3 "$FLY_TOP/tests/copyatoms/tr.py" "$TMP/$k.in" "$TMP/$k.out" "$eb" ${TRARGS:-} 2>&1); then
		fail "copyatoms/$k" "$out"
	else
		pass "copyatoms/$k"
	fi
}
transposed tr_b16 512 16 2
transposed tr_b8 1024 8 2
# packed fp4 and fp6 (the b4 model is the b16/b8 rule extended, UNVERIFIED on hardware;
# b6 is the exchange rocRoller's hardware test expects, docs/simulator-matrix.md §4)
transposed tr_b4 2048 4 2
transposed tr_b6 2048 6 2

# gfx1201: every copy atom of stdlib/gfx1201.fly (tests/copyatoms/atoms_gfx1201.fly)
# on a sim:gfx1201 device (flyc-sim --arch=gfx1201), two wave32s per workgroup
co=$TMP/atoms1201.hsaco
if ! out=$("$FLYC" "$FLY_TOP/tests/copyatoms/atoms_gfx1201.fly" --offload-arch=gfx1201 -o "$co" 2>&1); then
	fail copyatoms/compile-gfx1201 "$out"
else
	pass copyatoms/compile-gfx1201
	SIMARCH=--arch=gfx1201 SFX=-gfx1201
	register_atoms
	SIMARCH= SFX=
	# transposed global loads against tr.py (8-lane groups, 8 elements per lane)
	SIMARCH=--arch=gfx1201 TRARGS="8 128"
	transposed gtr_b128 1024 16 2
	TRARGS="8 64"
	transposed gtr_b64 1536 8 3
	SIMARCH= TRARGS=
fi

# pipe NAME CODE_OBJECT KERNEL KT [SIM_OPTION]: the pipelined sum of KT tiles against pipe.py
pipe() {
	python3 "$FLY_TOP/tests/copyatoms/pipe.py" gen "$4" "$TMP/px.bin"
	if ! out=$("$SIM" "$2" "$3" ${5:-} --grid=1 --block=64 "buf=$((1024 * $4)),in=$TMP/px.bin" \
		"buf=1024,fill=0x5A,out=$TMP/pout.bin" "i32=$4" 2>&1); then
		fail "$1" "flyc-sim failed:" "$out"
	elif ! out=$(python3 "$FLY_TOP/tests/copyatoms/pipe.py" check "$4" "$TMP/px.bin" "$TMP/pout.bin" 2>&1); then
		fail "$1" "$out"
	else
		pass "$1"
	fi
}

# pipelines (tests/copyatoms/pipe.fly): 1, 2 and 3 ring slots, KT below, equal
# to and above the slot count, against pipe.py
pco=$TMP/pipe.hsaco
if ! out=$("$FLYC" "$FLY_TOP/tests/copyatoms/pipe.fly" --offload-arch=gfx950 -o "$pco" 2>&1); then
	fail copyatoms/pipe-compile "$out"
else
	for s in 1 2 3; do
		for kt in 1 2 5; do pipe "copyatoms/pipe_sum_s$s-kt$kt" "$pco" "pipe_sum_s$s" "$kt"; done
	done
	# the same sum with tiles staged through registers (pipe_regs.fly, no atoms)
	rco=$TMP/pipe_regs.hsaco
	if ! out=$("$FLYC" "$FLY_TOP/tests/copyatoms/pipe_regs.fly" --offload-arch=gfx950 -o "$rco" 2>&1); then
		fail copyatoms/pipe-regs-compile "$out"
	else
		for s in 2 3; do
			for kt in 1 4; do pipe "copyatoms/pipe_regs_s$s-kt$kt" "$rco" "pipe_regs_s$s" "$kt"; done
		done
	fi
	# the same pipelines on gfx1201: through its copy atoms (pipe_gfx1201.fly) and
	# through registers (pipe_regs.fly), on a sim:gfx1201 device
	gco=$TMP/pipe1201.hsaco rco12=$TMP/pipe_regs1201.hsaco
	if ! out=$("$FLYC" "$FLY_TOP/tests/copyatoms/pipe_gfx1201.fly" --offload-arch=gfx1201 -o "$gco" 2>&1) ||
	   ! out=$("$FLYC" "$FLY_TOP/tests/copyatoms/pipe_regs.fly" --offload-arch=gfx1201 -o "$rco12" 2>&1); then
		fail copyatoms/pipe-compile-gfx1201 "$out"
	else
		for run in "$gco pipe_sum12_s1 1" "$gco pipe_sum12_s2 2" "$gco pipe_sum12_s2 5" "$gco pipe_sum12_s3 5" \
		           "$rco12 pipe_regs_s2 4" "$rco12 pipe_regs_s3 1"; do
			set -- $run
			pipe "copyatoms/$2-kt$3-gfx1201" "$1" "$2" "$3" --arch=gfx1201
		done
	fi
	# schedule controls inside the pipeline blocks do not change the result
	pipe copyatoms/pipe_sched "$pco" pipe_sched 5
fi
exit 0
