#!/bin/sh
# tests/pingpong/run.sh — examples/pingpong.fly (wave specialization: an MFMA
# wave group and a softmax wave group alternating phases) end to end: compiled
# for gfx950 with no spills and no scratch, run through libflyrt on the
# simulator with FLY_SIM_RACECHECK=1 (every LDS access between two barriers
# checked against the other waves') against the CPU reference of
# tests/pingpong/attn_sim.py, for one row block (prologue and epilogue only),
# one full workgroup, several workgroups with a ragged last one, logits large
# enough to overflow exp() without the max subtraction, NK = 128, a shape the
# kernel's `requires` refuses, the deliberately mis-phased export, whose
# LDS race the simulator must report, and a copy of the example with the two
# arms' roles swapped (same results). The ISA and the per-wave work of each
# group are checked by tests/codegen/pingpong.test.
. "$FLY_TOP/tests/lib.sh"
case "$FLY_BUILD" in /*) build=$FLY_BUILD ;; *) build=$FLY_TOP/$FLY_BUILD ;; esac
if ! command -v python3 >/dev/null 2>&1; then echo "SKIP: pingpong (no python3)"; exit 0; fi
if [ ! -f "$build/libflyrt.so" ]; then echo "FAIL: pingpong/libflyrt (not built: $build/libflyrt.so)"; exit 0; fi
co=$TMP/pingpong.hsaco
if ! out=$("$FLYC" "$FLY_TOP/examples/pingpong.fly" --offload-arch=gfx950 --resource-usage -o "$co" 2>&1); then
	fail pingpong/compile "$out"; exit 0
fi
pass pingpong/compile
if [ "$(printf '%s\n' "$out" | grep -c 'scratch 0 bytes, spills 0 VGPR / 0 SGPR')" = 3 ]; then
	pass pingpong/no-spills
else
	fail pingpong/no-spills "$out"
fi
cases64="32 128 352 96:16:1 40"
cases128="160"
if [ "${FLY_SAN:-0}" = 1 ]; then cases64="32 96:16:1 40"; cases128="32"; fi
sim() { # HSACO KERNEL NK D CASES...
	if [ "${FLY_SAN:-0}" = 1 ]; then
		# libflyrt.so is sanitized: the sanitizer runtimes must come first in python's process
		asan=$(${CC:-cc} -print-file-name=libasan.so) ubsan=$(${CC:-cc} -print-file-name=libubsan.so)
		FLY_SIM_RACECHECK=1 FLYRT_LIB=$build/libflyrt.so LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0 \
			python3 "$FLY_TOP/tests/pingpong/attn_sim.py" "$@"
	else
		FLY_SIM_RACECHECK=1 FLYRT_LIB=$build/libflyrt.so python3 "$FLY_TOP/tests/pingpong/attn_sim.py" "$@"
	fi
}
# the same kernel with the arms' roles swapped (group 1 = waves 1, 3 run the
# MFMAs, group 0 the softmax): nothing in it depends on which waves a group has
sw=$TMP/swapped.fly
sed -e 's|^    0 => {\( *// MFMA group\)|    1 => {\1|' -e 's|^    1 => {\( *// softmax group\)|    0 => {\1|' \
	"$FLY_TOP/examples/pingpong.fly" >"$sw"
cosw=$TMP/swapped.hsaco
if [ "$(grep -c '^    1 => { *// MFMA group' "$sw")" != 1 ] || [ "$(grep -c '^    0 => { *// softmax group' "$sw")" != 1 ]; then
	fail pingpong/swapped-compile "could not swap the arms of examples/pingpong.fly"
elif ! out=$("$FLYC" "$sw" --offload-arch=gfx950 -o "$cosw" 2>&1); then
	fail pingpong/swapped-compile "$out"
else
	pass pingpong/swapped-compile
fi
casessw="128 352"
if [ "${FLY_SAN:-0}" = 1 ]; then casessw="128"; fi
for run in "attention_pingpong_64 64 64 $cases64" "attention_pingpong_nk128 128 64 $cases128" \
	"attention_pingpong_racy 64 64 race:128" "swapped attention_pingpong_64 64 64 $casessw"; do
	case $run in swapped*) [ -f "$cosw" ] || continue; set -- $run; shift; run="$*"; co_run=$cosw; tag=swapped- ;;
	*) co_run=$co; tag= ;; esac
	# shellcheck disable=SC2086
	sim "$co_run" $run >"$TMP/out" 2>&1; rc=$?
	if grep -q '^\(PASS\|FAIL\): ' "$TMP/out"; then
		sed -e "s#^PASS: pingpong/#PASS: pingpong/$tag#" -e "s#^FAIL: pingpong/#FAIL: pingpong/$tag#" "$TMP/out"
		if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' "$TMP/out"; then fail "pingpong/$tag${run%% *}" "exit status $rc"; fi
	else
		fail "pingpong/$tag${run%% *}" "$(tail -n 20 "$TMP/out")"
	fi
done
exit 0
