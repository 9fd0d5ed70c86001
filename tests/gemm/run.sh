#!/bin/sh
# tests/gemm/run.sh — examples/gemm_bf16.fly end to end: compiled for gfx950,
# no spills and no scratch (flyc --resource-usage), run through libflyrt on the
# simulator (scripts/gemm_sim.py: CPU reference, bf16 rounding bound) for
# shapes with several workgroups and k-tiles, and shapes its `requires`
# refuses (FLYRT_ERROR_UNSUPPORTED, C untouched), among them shapes beyond its 4 GiB
# span bound; every export once more under the LDS race check. FLY_SLOW=1 adds
# larger shapes.
. "$FLY_TOP/tests/lib.sh"
case "$FLY_BUILD" in /*) build=$FLY_BUILD ;; *) build=$FLY_TOP/$FLY_BUILD ;; esac
if ! command -v python3 >/dev/null 2>&1; then echo "SKIP: gemm (no python3)"; exit 0; fi
if [ ! -f "$build/libflyrt.so" ]; then echo "FAIL: gemm/libflyrt (not built: $build/libflyrt.so)"; exit 0; fi
# examples/gemm_bf16.fly is stdlib/ops/gemm.fly (a symlink), which make has compiled for both
# arches into the kernel library with this build's flyc (the sanitized build's with the
# sanitized flyc); flyc is deterministic, so those are the bytes a compile here would give.
# They are used when the files are the same and the code object is newer than flyc;
# otherwise the file is compiled here.
kdir=$build/lib/flyc/kernels
gemm_co() { # ARCH OUT
	if cmp -s "$FLY_TOP/examples/gemm_bf16.fly" "$FLY_TOP/stdlib/ops/gemm.fly" &&
	   [ -f "$kdir/$1/gemm.hsaco" ] && [ "$kdir/$1/gemm.hsaco" -nt "$FLYC" ]; then
		cp "$kdir/$1/gemm.hsaco" "$2"
	else
		"$FLYC" "$FLY_TOP/examples/gemm_bf16.fly" --offload-arch="$1" -o "$2"
	fi
}
co=$TMP/gemm.hsaco
if ! out=$(gemm_co gfx950 "$co" 2>&1); then
	fail gemm/compile "$out"; exit 0
fi
pass gemm/compile
# no scratch and no spills in any of the 53 gfx950 kernels (split-K's 5, NN/TN/TT's 12
# predicated 256x128 and 256x256 tiles and their 12 tile kernels among them): the
# code object's metadata note,
# which flyc --resource-usage reads too
notes=$(llvm-readelf-22 --notes "$co" 2>&1)
nk=$(printf '%s\n' "$notes" | grep -c '^ *\.symbol: *gemm_.*\.kd$')
if [ "$nk" = 53 ] && [ "$(printf '%s\n' "$notes" | grep -c '^ *\.private_segment_fixed_size: *0$')" = 53 ] &&
   [ "$(printf '%s\n' "$notes" | grep -c '^ *\.vgpr_spill_count: *0$')" = 53 ] &&
   [ "$(printf '%s\n' "$notes" | grep -c '^ *\.sgpr_spill_count: *0$')" = 53 ]; then
	pass gemm/no-spills
else
	fail gemm/no-spills "$nk kernels; $(printf '%s\n' "$notes" | grep -E 'spill_count|private_segment_fixed_size' | sort | uniq -c)"
fi
# MxNxK!: beyond `M * K < 1 << 31` or `N * K < 1 << 31` (A or B over 4 GiB, which
# the buffer loads cannot address): refused before launch, with small buffers
big="128x128x16777216! 128x131072x16384! 65536x65536x32768!"
shapes="256x128x128 128x384x64 200x128x64 128x128x96 $big"
shapes8="256x256x64 128x128x64 256x128x8388608!"
# the 256x256 tiles (8 waves of 128x64): one tile, several tiles along M or N,
# several k-tiles (pipeline steady state), and ragged M, N, K (refused)
shapes256="256x256x64 512x256x128 256x512x192 768x512x64 320x256x64 256x384x64 256x256x96 256x256x8388608!"
# the same tiles with C written through LDS by 128-bit stores (EPI=1)
shapes256w="256x256x64 512x256x128 256x512x192 256x320x64"
# gemm_nt_ragged: any M and N, K % 8 == 0 (predicated edges: zero fill of A
# and B past M, N, K; C past M x N untouched, checked by gemm_sim.py's guard):
# ragged in M, N and K, one element, a partial k-tile, tile multiples; K % 8 != 0
# and the span bound refused
shapesr="200x136x64 1x1x64 257x255x128 130x390x192 128x128x64 256x384x128 33x700x24 1x129x8 129x1x136 64x64x68 200x100x16777216!"
# gemm_nn_ragged: B stored K x N (gemm_sim.py --nn), read from LDS by
# ds_read_b64_tr_b16 laid out as the MMA's B; any M, N % 8 == 0, K % 8 == 0:
# ragged in M, N and K, tiny shapes, a partial k-tile, tile multiples; N or K
# not a multiple of 8 and the span bound refused
shapesnn="200x136x64 8x8x8 257x264x128 130x392x192 256x384x128 33x704x24 1x128x8 129x8x136 64x64x72 1x1x64 64x64x68 200x104x16777216!"
if [ "${FLY_SAN:-0}" = 1 ]; then
	shapes="128x128x64 200x128x64 $big"; shapes8="256x128x64"; shapes256="256x256x128 256x256x96"; shapes256w="256x512x64"
	shapesr="200x136x72 1x1x64"
	shapesnn="200x136x72 8x8x8 1x1x64"
fi
if [ "${FLY_SLOW:-0}" = 1 ]; then
	shapes="$shapes 512x512x256 384x256x512"; shapes8="$shapes8 512x384x256"; shapes256="$shapes256 768x768x256"
fi
sim() { # [--nn] KERNEL SHAPES...
	nnopt=; if [ "$1" = --nn ]; then nnopt=--nn; shift; fi
	if [ "${FLY_SAN:-0}" = 1 ]; then
		# libflyrt.so is sanitized: the sanitizer runtimes must come first in python's process
		asan=$(${CC:-cc} -print-file-name=libasan.so) ubsan=$(${CC:-cc} -print-file-name=libubsan.so)
		FLYRT_LIB=$build/libflyrt.so LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0 \
			python3 "$FLY_TOP/scripts/gemm_sim.py" $nnopt "$co" "$@"
	else
		FLYRT_LIB=$build/libflyrt.so python3 "$FLY_TOP/scripts/gemm_sim.py" $nnopt "$co" "$@"
	fi
}
sim gemm_nt_128x128 $shapes >"$TMP/out" 2>&1; r1=$?
sim gemm_nt_256x128 $shapes8 >"$TMP/out8" 2>&1; r2=$?
sim gemm_nt_256x256 $shapes256 >"$TMP/out256" 2>&1; r3=$?
sim gemm_nt_256x256_st128 $shapes256w >"$TMP/out256w" 2>&1; r4=$?
sim gemm_nt_ragged $shapesr >"$TMP/outr" 2>&1; r5=$?
sim --nn gemm_nn_ragged $shapesnn >"$TMP/outnn" 2>&1; r6=$?
# the XCD-aware tile order (stdlib/tile_order.fly) with 1 and 4 XCDs (8 above):
# odd grids (3x2, 3x1, 1x2 tiles of 128x128; 1x3 of 256x256)
FLY_XCDS=1 sim gemm_nt_ragged 257x255x128 130x390x192 >"$TMP/outx1" 2>&1; r7=$?
FLY_XCDS=4 sim gemm_nt_ragged 257x255x128 300x100x64 33x200x24 >"$TMP/outx4" 2>&1; r8=$?
FLY_XCDS=4 sim gemm_nt_256x256 256x768x64 >>"$TMP/outx4" 2>&1 || r8=1
sed -e 's/^PASS: gemm /PASS: gemm xcd1-/' -e 's/^FAIL: gemm /FAIL: gemm xcd1-/' "$TMP/outx1" >>"$TMP/out"
sed -e 's/^PASS: gemm /PASS: gemm xcd4-/' -e 's/^FAIL: gemm /FAIL: gemm xcd4-/' "$TMP/outx4" >>"$TMP/out"
sed -e 's/^PASS: gemm /PASS: gemm 8w-/' -e 's/^FAIL: gemm /FAIL: gemm 8w-/' "$TMP/out8" >>"$TMP/out"
sed -e 's/^PASS: gemm /PASS: gemm 256x256-/' -e 's/^FAIL: gemm /FAIL: gemm 256x256-/' "$TMP/out256" >>"$TMP/out"
sed -e 's/^PASS: gemm /PASS: gemm st128-/' -e 's/^FAIL: gemm /FAIL: gemm st128-/' "$TMP/out256w" >>"$TMP/out"
sed -e 's/^PASS: gemm /PASS: gemm ragged-/' -e 's/^FAIL: gemm /FAIL: gemm ragged-/' "$TMP/outr" >>"$TMP/out"
sed -e 's/^PASS: gemm /PASS: gemm nn-/' -e 's/^FAIL: gemm /FAIL: gemm nn-/' "$TMP/outnn" >>"$TMP/out"
rc=0; [ $r1 = 0 ] && [ $r2 = 0 ] && [ $r3 = 0 ] && [ $r4 = 0 ] && [ $r5 = 0 ] && [ $r6 = 0 ] && [ $r7 = 0 ] && [ $r8 = 0 ] || rc=1
# "PASS: gemm 256x128x128 max_err=..." -> "PASS: gemm/256x128x128"; unsupported
# shapes -> "PASS: gemm/200x128x64-refused"; failures keep their details
awk '/^(PASS|FAIL): gemm / {
	st = $1; name = $3; if ($4 == "unsupported") name = name "-refused"
	print st " gemm/" name
	if (st == "FAIL:") { $1 = ""; $2 = ""; print "   " $0 }
	seen++; next }
	{ other = other "\n    " $0 }
	END { if (other != "" && !seen) printf "FAIL: gemm/harness%s\n", other }' "$TMP/out"
if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' "$TMP/out"; then fail gemm/harness "exit status $rc" "$(tail -n 20 "$TMP/out")"; fi
# the gfx1201 WMMA kernel (wave32) on a sim:gfx1201 device: several tiles
# along M and N, several k-tiles, refused shapes; once more race-checked; and a
# gfx950 device refuses its code object
co12=$TMP/gemm1201.hsaco
if ! out=$(gemm_co gfx1201 "$co12" 2>&1); then
	fail gemm/gfx1201-compile "$out"
else
	s12="128x128x32 128x128x64 256x128x96 128x384x32 200x128x64 128x128x16777216!"
	[ "${FLY_SAN:-0}" = 1 ] && s12="128x128x64 200x128x64"
	co=$co12 FLY_DEVICE=sim:gfx1201 sim gemm_nt_wmma_128x128 $s12 >"$TMP/out12" 2>&1
	co=$co12 FLY_DEVICE=sim:gfx1201 FLY_SIM_RACECHECK=1 sim gemm_nt_wmma_128x128 256x128x96 >>"$TMP/out12" 2>&1
	n12=$(($(echo $s12 | wc -w) + 1))
	awk -v n="$n12" '/^(PASS|FAIL): gemm / { st = $1; name = $3; if ($4 == "unsupported") name = name "-refused"
	     print st " gemm/gfx1201-" name; if (st == "FAIL:") { $1 = ""; $2 = ""; print "   " $0 }; seen++ }
	     END { if (seen != n) print "FAIL: gemm/gfx1201-harness (" seen + 0 " results)" }' "$TMP/out12" | awk '{ if (seen[$0]++) $0 = $0 "-racecheck"; print }'
	grep -q '^PASS: gemm ' "$TMP/out12" || tail -n 5 "$TMP/out12" | sed 's/^/    /'
	if out=$(co=$co12 FLY_DEVICE=sim sim gemm_nt_wmma_128x128 128x128x32 2>&1); then
		fail gemm/gfx1201-on-gfx950-refused "a gfx950 device ran it"
	elif printf '%s\n' "$out" | grep -q 'code object is built for gfx1201, the device is gfx950'; then
		pass gemm/gfx1201-on-gfx950-refused
	else fail gemm/gfx1201-on-gfx950-refused "$(printf '%s\n' "$out" | tail -n 3)"; fi
fi
# the pipeline's schedule under the simulator's LDS race check
# (FLY_SIM_RACECHECK=1): with 3 k-tiles, iteration 0 writes the slot of k-tile
# 2 after its MFMAs (register-staged prefetch) while other waves may still
# read the slot of k-tile 0, and the last iteration reads without loading;
# MxNxK entries: the predicated pipelines' two steady states (docs/codegen.md,
# "Predicated pipelines"): M = 232 leaves 104 rows in the second row of tiles, where
# wave 0 (rows 0..7 + 32 i, all below 104) takes the in-range loop and waves 1..3 the
# predicated one, their barriers still paired; with a K tail (264) and an N edge too
rk=192; [ "${FLY_SAN:-0}" = 1 ] && rk=128
for kern in gemm_nt_128x128:256x128 gemm_nt_256x128:256x128 gemm_nt_256x256:256x256 gemm_nt_256x256_st128:256x256 gemm_nn_ragged:256x128 \
	gemm_nt_ragged:232x128x256 gemm_nt_ragged:232x200x264 gemm_nn_ragged:232x128x256 gemm_nn_ragged:128x232x320; do
	name=${kern%%:*} shape=${kern#*:} nnopt=
	case "$shape" in *x*x*) ;; *) shape=${shape}x$rk ;; esac
	[ "$name" = gemm_nn_ragged ] && nnopt=--nn
	if out=$(FLY_SIM_RACECHECK=1 sim $nnopt "$name" "$shape" 2>&1) && printf '%s\n' "$out" | grep -q '^PASS: gemm '; then
		pass "gemm/racecheck-$name-$shape"
	else
		fail "gemm/racecheck-$name-$shape" "$(printf '%s\n' "$out" | tail -n 5)"
	fi
done
# three stages (the 128x128 export with a 3-slot ring, 96 KiB of LDS): the
# deferred LDS writes of k-tile k+2 go to slot (k+2) % 3 while slot k % 3 is
# read; 1, 2, 3 and 5 k-tiles (prologue only, drain, steady state), race-checked; only
# that kernel compiled (--kernel: the file's other exports are not run here)
s3=$TMP/gemm_s3.fly
sed -e 's/stages 2/stages 3/' -e 's/(BM, BK, 2):(BK, 1, BM \* BK)/(BM, BK, 3):(BK, 1, BM * BK)/' \
	-e 's/(BN, BK, 2):(BK, 1, BN \* BK)/(BN, BK, 3):(BK, 1, BN * BK)/' -e '/^export gemm_nt</d' \
	"$FLY_TOP/examples/gemm_bf16.fly" >"$s3"
if ! grep -q 'stages 3' "$s3" || [ "$(grep -c ', 3):(BK, 1, B[MN] \* BK)' "$s3")" -lt 4 ] ||
   grep -q 'stages 2\|, 2):(BK, 1, B[MN] \* BK)' "$s3"; then
	fail gemm/s3-source "the sed edit of examples/gemm_bf16.fly no longer applies"
elif ! out=$("$FLYC" "$s3" --offload-arch=gfx950 --kernel=gemm_nt_128x128 -o "$TMP/gemm_s3.hsaco" 2>&1); then
	fail gemm/s3-compile "$out"
else
	s3shapes="128x128x64 128x128x128 256x128x192 128x256x320"
	[ "${FLY_SAN:-0}" = 1 ] && s3shapes="128x128x192"
	co=$TMP/gemm_s3.hsaco FLY_SIM_RACECHECK=1 sim gemm_nt_128x128 $s3shapes >"$TMP/outs3" 2>&1
	awk '/^(PASS|FAIL): gemm / { st = $1; print st " gemm/s3-" $3; if (st == "FAIL:") { $1 = ""; $2 = ""; print "   " $0 }; seen++ }
	     END { if (!seen) print "FAIL: gemm/s3-harness" }' "$TMP/outs3"
	grep -q '^PASS: gemm ' "$TMP/outs3" || tail -n 5 "$TMP/outs3" | sed 's/^/    /'
fi
# make bench's main-loop figures (scripts/mca_loop.py, llvm-mca's gfx950 model): the
# 256x256 kernel's steady-state loop is unrolled over its 2 stages, so it holds 64 MFMAs
# (8 waves' 256x256x64 k-tile: 2 x 4 x 4 per wave, twice), their own cycles are at most
# the loop's, its address arithmetic is out of the loop (at most 16 VALU: 1 is left,
# 98 before), and with its loads straight to LDS and interleaved among the MFMAs with
# their LDS reads (compiler/lower_sched.c) it keeps >= 95% of mca's MFMA-bound figure
# (96.7% with each MFMA pinned on both sides, 96.4% before; 93.9% with the fixed offsets
# in soffset, 87.4% register-staged, 80.9% before the interleave, 74% before the pipeline
# was unrolled, docs/codegen.md); the 128x128 and 256x128 loops >= 90% (94.2% with the
# first two MFMAs' reads before the first loads, 93.6% before; 88.1% and 89.3% with the
# offsets in soffset, 76.8% and 79.4% register-staged)
if command -v llvm-mca-22 >/dev/null 2>&1; then
	# one mca_loop.py run (one disassembly) for every loop checked below; mca_floors NAME
	# COUNT RULES passes when COUNT rows were checked by the awk RULES and none failed
	# (columns: kernel, instructions, MFMA, VALU, waits, cycles, MFMA-bound, efficiency)
	mca=$(/usr/bin/python3 "$FLY_TOP/scripts/mca_loop.py" "$TMP/gemm.hsaco" gemm_nt_256x256 gemm_nt_128x128 \
		gemm_nt_256x128 gemm_nt_ragged gemm_nn_ragged gemm_tn_ragged gemm_tt_ragged gemm_nn_ragged_256x128 gemm_tn_ragged_256x128 \
		gemm_tt_ragged_256x128 gemm_nn_ragged_256x256 gemm_tn_ragged_256x256 gemm_tt_ragged_256x256 \
		gemm_nn_128x128 gemm_tn_128x128 gemm_tt_128x128 gemm_nn_256x256 gemm_tn_256x256 gemm_tt_256x256 2>&1)
	mca_floors() {
		if printf '%s\n' "$mca" | awk '{ e = $8; sub(/%/, "", e) } '"$3"' END { exit !(n == '"$2"' && !bad) }'; then
			pass "$1"
		else
			fail "$1" "$mca"
		fi
	}
	mca_floors gemm/mca-main-loop 3 '
		$1 == "gemm_nt_256x256" { n++; if (!($3 == 64 && $4 <= 16 && $7 > 0 && $7 <= $6 && $2 > $3 && e + 0 >= 95)) bad++ }
		$1 == "gemm_nt_128x128" || $1 == "gemm_nt_256x128" { n++; if (!($3 == 32 && e + 0 >= 90)) bad++ }'
	# the predicated GEMMs' steady state (docs/codegen.md, "Predicated pipelines"): the
	# loop of unpredicated load blocks, unrolled over 2 stages (32 MFMAs), none of the copies'
	# element-wise path in it (was: 1127 instructions, 560 VALU, 16 MFMAs, 6.8%); when written
	# nt 185 instructions / 23 VALU / 66.7%, nn 203 / 35 / 66.5%, against 128x128's 73.9%
	# (then 76.8% with its reads interleaved, nt 69.0%, nn 66.3%, 68.1% once its transposed
	# reads were interleaved too; 128x128 88.1% with its loads straight to LDS); since the
	# predicated kernels load straight to LDS too, with the while loop's k in soffset and the
	# vote among the MFMAs (fillers, the ballot too), nt 162 / 16 / 93.6%, tn 195 / 16 / 91.2%:
	# at most 200 instructions and 20 VALU, >= 90% (a register-staged loop or the vote after
	# the MFMAs fails it)
	mca_floors gemm/mca-ragged-loop 4 '
		$1 ~ /^gemm_(nt|nn|tn|tt)_ragged$/ { n++; if (!($3 == 32 && $4 <= 20 && $2 <= 200 && $7 > 0 && $7 <= $6 && e + 0 >= 90)) bad++ }'
	# NN/TN/TT's 8-wave tiles: 256x128 (32 MFMAs per trip, as 128x128) and 256x256 (64);
	# when written (register-staged) 256x128 nn/tn/tt 191/219/198 instructions, 27/32/27 VALU,
	# 71.5/69.2/70.5%, 256x256 284/319/296, 35/40/31, 80.0/79.4/80.7%; loading straight to LDS
	# 173/186/170, 16 VALU, 91.2/90.9/91.6% and 246/276/259, 16, 94.6/94.9/95.5%
	mca_floors gemm/mca-ragged256-loop 6 '
		$1 ~ /_ragged_256x128$/ { n++; if (!($3 == 32 && $4 <= 20 && $2 <= 200 && $7 > 0 && $7 <= $6 && e + 0 >= 90)) bad++ }
		$1 ~ /_ragged_256x256$/ { n++; if (!($3 == 64 && $4 <= 20 && $2 <= 290 && $7 > 0 && $7 <= $6 && e + 0 >= 94)) bad++ }'
	# NN/TN/TT's tile kernels (loads straight to LDS, as gemm_nt): 256x256 nn/tn/tt
	# 95.6/95.6/96.2% (215/245/228 instructions, 2/1/2 VALU), 128x128 92.9/92.9/93.2% since
	# each MFMA is pinned on both sides (94.6/93.2/94.1% and 87.5/88.4/89.3% before, when
	# LLVM issued each MFMA after the reads meant to follow it, docs/codegen.md): >= 95%
	# (the issue's figure) and >= 90%, at most 4 VALU
	mca_floors gemm/mca-tile-loop 6 '
		$1 ~ /^gemm_(nn|tn|tt)_128x128$/ { n++; if (!($3 == 32 && $4 <= 4 && $7 > 0 && $7 <= $6 && e + 0 >= 90)) bad++ }
		$1 ~ /^gemm_(nn|tn|tt)_256x256$/ { n++; if (!($3 == 64 && $4 <= 4 && $7 > 0 && $7 <= $6 && e + 0 >= 95)) bad++ }'
	# scripts/mca_idle.py (where the MFMA pipe idles, from mca's timeline) on the 256x256
	# NN loop: its trip of 64 MFMAs, whose idle cycles are fewer than 5% of the trip (the
	# floor above) and include the trip's boundary (wait and barrier)
	idle=$(cd "$FLY_TOP/scripts" && /usr/bin/python3 mca_idle.py "$TMP/gemm.hsaco" gemm_nn_256x256 2>&1)
	if printf '%s
' "$idle" | awk '/^idle .* boundary .*s_barrier/ { b = 1 }
		/^trip [0-9]+ cycles, 64 MFMAs, MFMA pipe idle [0-9]+ cycles$/ { t = $2; i = $(NF - 1) }
		END { exit !(b && t > 512 && i > 0 && i * 20 < t) }'; then
		pass gemm/mca-idle
	else
		fail gemm/mca-idle "$idle"
	fi
fi
exit 0
