#!/bin/sh
# tests/timing/run.sh — the timing-model tier (docs/simulator.md "Timing model").
#
# Per-pipe tests on hand-written kernels (gen_kernels.py, assembled with
# llvm-mc-22): each kernel comes in a short and a long form (N and 2N
# instructions) and the test takes the difference of their modelled CU cycles,
# which cancels dispatch, launch and drain. Expected values come from the
# device row (flyc-sim --timing-devices) and the sourced tables, never from a
# previous run. Then the interface (JSON keys, errors), determinism over runs
# and host threads, a sampled estimate against the full one, timing-only
# mode, "a bigger GEMM tile is modelled faster per FLOP" at 4096x4096x1024,
# and the cost of timing against the functional run.
. "$FLY_TOP/tests/lib.sh"
SIM="$BIN/flyc-sim"
HERE="$FLY_TOP/tests/timing"
MC=${MC:-llvm-mc-22}
LLD=${LLD:-ld.lld-22}
PY=/usr/bin/python3
case "$FLY_BUILD" in /*) B=$FLY_BUILD ;; *) B=$FLY_TOP/$FLY_BUILD ;; esac
GEMM="$B/lib/flyc/kernels/gfx950/gemm.hsaco"

if [ ! -x "$SIM" ]; then echo "FAIL: timing/flyc-sim (not built: $SIM)"; exit 0; fi
if ! command -v "$MC" >/dev/null 2>&1; then echo "SKIP: timing (no $MC)"; exit 0; fi

# jget FILE KEY: a number of the JSON object in FILE (stalls.X for the breakdown)
jget() { "$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); k=sys.argv[2].split('.'); v=j[k[0]] if len(k)==1 else j[k[0]][k[1]]; print(v)" "$1" "$2"; }
"$SIM" --timing-devices >"$TMP/devices.json" 2>&1 || { fail timing/devices "$(cat "$TMP/devices.json")"; exit 0; }
# dev NAME KEY: a parameter of a device row
dev() { "$PY" -c "import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if j['name']==sys.argv[2]: print(j[sys.argv[3]])" "$TMP/devices.json" "$1" "$2"; }

for a in gfx950 gfx1201; do
	if ! { "$PY" "$HERE/gen_kernels.py" $a "$TMP/k$a.s" && "$MC" -triple=amdgcn-amd-amdhsa -mcpu=$a -filetype=obj "$TMP/k$a.s" -o "$TMP/k$a.o" &&
	       "$LLD" -shared "$TMP/k$a.o" -o "$TMP/k$a.hsaco"; } >"$TMP/asm$a.log" 2>&1; then
		fail "timing/assemble-$a" "$(cat "$TMP/asm$a.log")"; exit 0
	fi
done
pass timing/assemble

# tm ARCH KERNEL BLOCK OUT: time a one-workgroup launch of a per-pipe kernel
tm() { "$SIM" "$TMP/k$1.hsaco" "$2" --raw-kernarg --grid=1 --block="$3" buf=8192 --timing="$4" >"$4.log" 2>&1; }
# delta NAME ARCH KERNEL BLOCK KEY: KEY of the 2N form minus the N form (printed)
N=32
delta() {
	tm "$2" "$3_$N" "$4" "$TMP/$1.a.json" && tm "$2" "$3_$((2 * N))" "$4" "$TMP/$1.b.json" || { echo "ERR $(cat "$TMP/$1.a.json.log" "$TMP/$1.b.json.log")"; return; }
	echo $(( $(jget "$TMP/$1.b.json" "$5") - $(jget "$TMP/$1.a.json" "$5") ))
}
# within NAME GOT LO HI
within() {
	case $2 in ERR*) fail "$1" "$2"; return ;; esac
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then pass "$1"; else fail "$1" "got $2, expected $3..$4"; fi
}

# MFMA: a dependent chain runs at the instruction's cycles (CDNA4 table,
# amdgpu-facts.md section 5: 16x16x32 bf16 16 cycles, 32x32x16 bf16 32)
d=$(delta mfma16 gfx950 k_mfma16 64 cu_cycles); within "timing/mfma-16x16x32-bf16: $N more cost $N x 16" "$d" $((N * 16)) $((N * 16 + 4))
d=$(delta mfma32 gfx950 k_mfma32 64 cu_cycles); within "timing/mfma-32x32x16-bf16: $N more cost $N x 32" "$d" $((N * 32)) $((N * 32 + 4))
# s_nop N is N+1 wait states, one issue turn each (issue_period cycles on gfx950):
# LLVM's gfx940 hazard table asks NumPasses + 3 wait states between an XDL write
# and a VALU read, which only covers the MFMA's passes (4 cycles each) if a wait
# state is a turn of 4 cycles
per=$(dev mi355x issue_period)
d=$(delta nop gfx950 k_nop 64 cu_cycles); within "timing/s_nop-7-costs-8-issue-turns: $N more cost $N x 8 x $per" "$d" $((N * 8 * per)) $((N * 8 * per))
# a VALU reading an MFMA's result waits through the 12 wait states the code puts
# between them (8-pass 32x32x16: MFMA turn, 8 + 4 nop turns, VALU turn = 14 turns,
# more than the MFMA's 32 cycles; the old model, a cycle per wait state, gave 32)
d=$(delta mfmavalu gfx950 k_mfmavalu 64 cu_cycles); within "timing/mfma-result-read-by-valu-waits-its-wait-states: $N more cost $N x 14 x $per" "$d" $((N * 14 * per)) $((N * 14 * per + 4))
# the clock under matrix load (power-limited, docs/simulator.md): 1024 one-wave
# workgroups of an MFMA chain fill every SIMD of the 256 CUs, so the clock is
# near mfma_clock_mhz; us = cu_cycles / eff_clock + launch_cycles / clock; an
# LDS-only kernel runs at the peak clock
tm gfx950 k_ldsfree_$((2 * N)) 1024 "$TMP/lf.json"
"$SIM" "$TMP/kgfx950.hsaco" k_mfma32_64 --raw-kernarg --grid=1024 --block=64 buf=64 --timing="$TMP/clk.json" >"$TMP/clk.log" 2>&1
if "$PY" -c "
import json,sys
j=json.load(open(sys.argv[1])); d={}
for l in open(sys.argv[2]):
    r=json.loads(l); d[r['name']]=r
dv=d['mi355x']; clk, m = dv['clock_mhz'], dv['mfma_clock_mhz']
assert j['mfma_busy'] > 0.9, j
per_cu = -(-j['workgroups'] // j['cus'])
eff = clk - (clk - m) * j['mfma_busy'] * j['workgroups'] / (per_cu * j['cus'])
assert abs(j['eff_clock_mhz'] - eff) < 0.1, (j['eff_clock_mhz'], eff)
assert j['eff_clock_mhz'] < m + 0.1 * (clk - m), j
us = j['cu_cycles'] / eff + (j['cycles'] - j['cu_cycles']) / clk
assert abs(j['us'] - us) < 2e-3, (j['us'], us)
l=json.load(open(sys.argv[3]))
assert l['mfma_busy'] == 0 and l['eff_clock_mhz'] == clk and abs(l['us'] - l['cycles'] / clk) < 2e-3, l
" "$TMP/clk.json" "$TMP/devices.json" "$TMP/lf.json" 2>"$TMP/clk.err"; then pass "timing/clock-under-matrix-load ($(jget "$TMP/clk.json" eff_clock_mhz) MHz at MFMA busy $(jget "$TMP/clk.json" mfma_busy)); LDS-only at the peak clock"
else fail timing/clock-under-matrix-load "$(cat "$TMP/clk.err" "$TMP/clk.log")"; fi
# WMMA on gfx1201 wave32: 16x16x16 f16 16 cycles
d=$(delta wmma gfx1201 k_wmma 32 cu_cycles); within "timing/wmma-16x16x16-f16 (gfx1201 wave32): $N more cost $N x 16" "$d" $((N * 16)) $((N * 16 + 2))

# LDS: ds_read_b32 at dword 2l is 2-way (lanes l, l+32 share a bank): one
# extra cycle per instruction; 16 waves keep the CU's LDS pipe busy, so the
# conflicts cost their cycles in full
n2=$((2 * N))
tm gfx950 k_ldsfree_$n2 1024 "$TMP/lf.json"; tm gfx950 k_ldsconf_$n2 1024 "$TMP/lc.json"
cf=$(jget "$TMP/lf.json" lds_bank_conflict_cycles); cc=$(jget "$TMP/lc.json" lds_bank_conflict_cycles)
within "timing/lds-conflict-free: 0 conflict cycles" "$cf" 0 0
within "timing/lds-2way: 1 extra cycle per instruction (16 waves x $n2)" "$cc" $((16 * n2)) $((16 * n2))
d=$(( $(jget "$TMP/lc.json" cu_cycles) - $(jget "$TMP/lf.json" cu_cycles) ))
within "timing/lds-2way: costs its conflict cycles (LDS-bound)" "$d" $((16 * n2 * 9 / 10)) $((16 * n2 * 11 / 10))
# gfx950 ds_read_b128 at byte 128*l: 8-way in each of the 4 phases (lay_banks.c's example): 32 cycles, 28 extra
d=$(delta lds128 gfx950 k_lds128 64 cu_cycles); within "timing/lds-b128-8way: $N more cost $N x 32" "$d" $((N * 32)) $((N * 32 + 4))
d=$(delta lds128c gfx950 k_lds128 64 lds_bank_conflict_cycles); within "timing/lds-b128-8way: 28 conflict cycles each" "$d" $((N * 28)) $((N * 28))

# a dependent load (s_waitcnt vmcnt(0) / gfx12 s_wait_loadcnt 0 after each)
# waits its latency: each touches a new line, so an L2 miss (hbm_latency)
for a in gfx950:mi355x:64 gfx1201:rx9070xt:32; do
	arch=${a%%:*} r=${a#*:}; name=${r%%:*} blk=${r#*:}
	lat=$(dev $name hbm_latency) per=$(dev $name issue_period) ta=$(dev $name vmem_issue)
	d=$(delta load$arch $arch k_load $blk cu_cycles)
	case $d in ERR*) fail "timing/load-latency-$arch" "$d"; continue ;; esac
	within "timing/dependent-load-waits-latency-$arch ($N loads: $d cycles, latency $lat)" "$d" $((N * lat)) $((N * (lat + 2 * per + ta + 2)))
done

# the interface: JSON keys
if "$PY" -c "
import json,sys
j=json.load(open(sys.argv[1]))
for k in ['device','cus','clock_mhz','workgroups','sampled_workgroups','cycles','us','mfma_busy','valu_busy','lds_bank_conflict_cycles','hbm_bytes','stalls']:
    assert k in j, k
assert j['device']=='mi355x' and j['cus']==256 and j['clock_mhz']==2400.0, j
assert 0 <= j['mfma_busy'] <= 1 and 0 <= j['valu_busy'] <= 1
assert abs(j['us'] - j['cu_cycles']/j['eff_clock_mhz'] - (j['cycles'] - j['cu_cycles'])/j['clock_mhz']) < 1e-3 * j['us'] + 1e-3
for k in ['vmcnt','lgkmcnt','barrier','pipe']: assert k in j['stalls'], k
" "$TMP/lc.json" 2>"$TMP/keys.err"; then pass timing/json-keys; else fail timing/json-keys "$(cat "$TMP/keys.err")"; fi
expect_out timing/unknown-device 2 "unknown --device 'bogus'.*mi355x" -- "$SIM" "$TMP/kgfx950.hsaco" k_mfma16_32 --raw-kernarg --grid=1 --block=64 buf=64 --device=bogus
expect_out timing/bad-sample 2 "bad --timing-sample=0" -- "$SIM" "$TMP/kgfx950.hsaco" k_mfma16_32 --raw-kernarg --grid=1 --block=64 buf=64 --timing-sample=0
expect_out timing/device-arch-mismatch 1 "timing device rx9070xt models gfx1201 code, the kernel is gfx950" -- "$SIM" "$TMP/kgfx950.hsaco" k_mfma16_32 --raw-kernarg --grid=1 --block=64 buf=64 --device=rx9070xt
expect_out timing/summary-on-stderr 0 "timing on rx9070xt \(64 CUs, 2970 MHz, 2970 under this load\)" -- "$SIM" "$TMP/kgfx1201.hsaco" k_wmma_32 --raw-kernarg --grid=1 --block=32 buf=64 --timing=$TMP/x.json

if [ ! -f "$GEMM" ]; then fail "timing/gemm" "not built: $GEMM"; exit 0; fi
# gemm ARGS for M N K
# gemm_nt_*(A, B, bias, C, M, N, K, has_bias = 0, xcds = 8)
gargs() { echo "buf=$(($1 * $3 * 2)) buf=$(($2 * $3 * 2)) buf=$(($2 * 2)) buf=$(($1 * $2 * 2)) i32=$1 i32=$2 i32=$3 i32=0 i32=8"; }
# determinism: two runs and two host threads give the same figures
g=$(gargs 1024 1024 256)
"$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/d1.json" 2>/dev/null; "$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/d2.json" 2>/dev/null
"$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/d3.json" --threads=2 2>/dev/null
if [ -s "$TMP/d1.json" ] && cmp -s "$TMP/d1.json" "$TMP/d2.json" && cmp -s "$TMP/d1.json" "$TMP/d3.json"; then pass timing/deterministic-runs-and-threads
else fail timing/deterministic-runs-and-threads "$(cat "$TMP/d1.json" "$TMP/d2.json" "$TMP/d3.json")"; fi
# a sampled estimate within 5% of the full one (64 workgroups, all timed by default)
"$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/s8.json" --timing-sample=8 2>/dev/null
"$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/o8.json" --timing-sample=8 --timing-only 2>/dev/null
full=$(jget "$TMP/d1.json" cycles) s8=$(jget "$TMP/s8.json" cycles) o8=$(jget "$TMP/o8.json" cycles)
within "timing/sampled-8-of-64-within-5% (full $full, sampled $s8)" "$s8" $((full * 95 / 100)) $((full * 105 / 100))
within "timing/timing-only-same-estimate" "$o8" "$s8" "$s8"
within "timing/full-timed-all-64" "$(jget "$TMP/d1.json" sampled_workgroups)" 64 64
# timing-only runs only the sampled workgroups
wi_full=$("$SIM" "$GEMM" gemm_nt_128x128 $g --stats 2>&1 | sed -n 's/.*: \([0-9]*\) wave instructions.*/\1/p')
wi_only=$("$SIM" "$GEMM" gemm_nt_128x128 $g --stats --timing-only --timing-sample=8 --timing="$TMP/o.json" 2>&1 | sed -n 's/.*: \([0-9]*\) wave instructions.*/\1/p')
within "timing/timing-only-runs-8-of-64 ($wi_only of $wi_full wave instructions)" "$((wi_only * 8))" $((wi_full * 95 / 100)) $((wi_full * 105 / 100))

# the bigger tile is modelled faster per FLOP on a large GEMM (same FLOPs)
g=$(gargs 4096 4096 1024)
"$SIM" "$GEMM" gemm_nt_128x128 $g --timing-only --timing="$TMP/big128.json" 2>/dev/null
"$SIM" "$GEMM" gemm_nt_256x256 $g --timing-only --timing="$TMP/big256.json" 2>/dev/null
c128=$(jget "$TMP/big128.json" cycles 2>/dev/null || echo ERR) c256=$(jget "$TMP/big256.json" cycles 2>/dev/null || echo ERR)
case "$c128$c256" in *ERR*) fail timing/bigger-tile-faster "$(cat "$TMP/big128.json" "$TMP/big256.json")" ;;
*) if [ "$c256" -lt "$c128" ]; then pass "timing/bigger-tile-faster-per-flop-4096x4096x1024 (256x256 $c256 < 128x128 $c128 cycles)"
   else fail timing/bigger-tile-faster-per-flop "256x256: $c256 cycles, 128x128: $c128"; fi ;;
esac

# flyc-tune without a GPU ranks the mm variants by the modelled time: at 4096x4096x1024
# gemm_nt_256x256 first (the table order puts gemm_nt_128x128 first; flyops_mm's shape rule also picks 256x256 there), at 256x256x64
# gemm_nt_128x128 first; the times are flyc-sim's timing-only figures for the same launches;
# split-K (the rule's S and .s2 ... .s16) measured too and ranked after the one-pass kernels
TUNE="$BIN/flyc-tune"
if (unset FLY_DEVICE FLYC_TUNING_DB; FLYC_KERNEL_DIR="$B/lib/flyc/kernels" "$TUNE" --op=mm --device=sim \
	--shapes=4096x4096x1024,256x256x64 -o "$TMP/tune.db") >"$TMP/tune.out" 2>&1 &&
   "$TUNE" --dump "$TMP/tune.db" >"$TMP/tune.csv" 2>&1 && "$PY" - "$TMP/tune.csv" "$TMP/big128.json" "$TMP/big256.json" <<'PYEOF' 2>"$TMP/tune.err"
import json, sys
rows = [l.rstrip("\n").split(",") for l in open(sys.argv[1])][1:]
big = [r for r in rows if "M>2048 M<=4096 N>2048 N<=4096 K>512 K<=1024" in r[4]]
small = [r for r in rows if "M>128 M<=256 N>128 N<=256 K>32 K<=64" in r[4]]
assert len(big) == 1 and len(small) == 1, rows
v, t = big[0][5].split(), [float(x) for x in big[0][6].split()]
assert v[0] == "gemm_nt_256x256", v
assert v.index("gemm_nt_256x256") < v.index("gemm_nt_128x128"), v
assert t == sorted(t) and len(v) == 10, (v, t)
assert all(x.startswith("gemm_nt_splitk") for x in v[5:]), v     # split-K measured, last here
for name, f in (("gemm_nt_128x128", sys.argv[2]), ("gemm_nt_256x256", sys.argv[3])):
    us = json.load(open(f))["us"]
    assert abs(t[v.index(name)] - us) <= 0.002, (name, t[v.index(name)], us)
sv = small[0][5].split()
assert sv[0] == "gemm_nt_128x128", sv
assert big[0][8].startswith("fnv1a64:") and big[0][7], big[0]
PYEOF
then pass "timing/flyc-tune-ranks-by-model (4096x4096x1024: $(sed -n 's/.*K<=1024,\([^,]*\),\([^,]*\),.*/\1 (\2 us)/p' "$TMP/tune.csv"))"
else fail timing/flyc-tune-ranks-by-model "$(cat "$TMP/tune.out" "$TMP/tune.csv" "$TMP/tune.err" 2>/dev/null | tail -20)"; fi
expect_out timing/flyc-tune-bad-timing-device 1 "unknown device row 'bogus'" -- env -u FLY_DEVICE "$TUNE" --op=mm --device=sim --shapes=256x256x64 --timing-device=bogus -o "$TMP/x.db"
expect_out timing/flyc-tune-bad-timing-sample 2 "bad --timing-sample=x" -- env -u FLY_DEVICE "$TUNE" --op=mm --device=sim --shapes=256x256x64 --timing-sample=x -o "$TMP/x.db"
if (unset FLY_DEVICE; "$TUNE" --op=mm --device=sim --shapes=256x256x64 --timing-device=mi350x -o "$TMP/t350.db") >"$TMP/t350.out" 2>&1 &&
   grep -q "gemm_nt_128x128 256x256x64: .* us (modelled, mi350x)" "$TMP/t350.out"; then pass timing/flyc-tune-timing-device-mi350x
else fail timing/flyc-tune-timing-device-mi350x "$(cat "$TMP/t350.out")"; fi

# timing costs at most 3x the functional run (CPU seconds, 1024x1024x256, every workgroup timed)
g=$(gargs 1024 1024 256)
cpu() { "$SIM" "$GEMM" gemm_nt_128x128 $g --stats "$@" 2>&1 | sed -n 's/.* \([0-9.]*\) s CPU.*/\1/p'; }
f=$(cpu) t=$(cpu --timing="$TMP/c.json")
if "$PY" -c "import sys; f,t=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if t <= 3*f + 0.05 else 1)" "$f" "$t" 2>/dev/null; then
	pass "timing/cost-at-most-3x-functional ($t s vs $f s CPU)"
else fail timing/cost-at-most-3x-functional "timing $t s, functional $f s CPU"; fi

# FLY_SIM_TIMING_PARAMS=FILE overrides the device rows' constants at run time
printf '# a comment\nlaunch_cycles = 4800\nmi350x.clock_mhz=2000\n\nhbm_latency=1000  # every row\n' >"$TMP/params.txt"
FLY_SIM_TIMING_PARAMS="$TMP/params.txt" "$SIM" --timing-devices >"$TMP/pdev.json" 2>&1
if "$PY" -c "
import json,sys
r={j['name']:j for j in map(json.loads,open(sys.argv[1]))}
assert r['mi355x']['launch_cycles']==4800 and r['rx9070xt']['launch_cycles']==4800, r
assert r['mi350x']['clock_mhz']==2000.0 and r['mi355x']['clock_mhz']==2400.0, r
assert all(x['hbm_latency']==1000 for x in r.values()), r
" "$TMP/pdev.json" 2>"$TMP/pdev.err"; then pass timing/params-override-rows; else fail timing/params-override-rows "$(cat "$TMP/pdev.json" "$TMP/pdev.err")"; fi
g=$(gargs 512 512 256)
"$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/p0.json" --timing-sample=4 --timing-only 2>/dev/null
printf 'mi355x.launch_cycles = 4800\n' >"$TMP/plaunch.txt"
FLY_SIM_TIMING_PARAMS="$TMP/plaunch.txt" "$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/p1.json" --timing-sample=4 --timing-only 2>/dev/null
l0=$(dev mi355x launch_cycles)
within "timing/params-launch-cycles-moves-cycles-by-the-difference" "$(( $(jget "$TMP/p1.json" cycles 2>/dev/null || echo 0) - $(jget "$TMP/p0.json" cycles 2>/dev/null || echo 0) ))" $((4800 - l0)) $((4800 - l0))
d=$(FLY_SIM_TIMING_PARAMS="$TMP/params.txt" delta pload gfx950 k_load 64 cu_cycles)
within "timing/params-hbm-latency-1000: a dependent load waits it ($d cycles for $N)" "$d" $((N * 1000)) $((N * (1000 + 2 * 4 + 4 + 2)))
printf 'hbm_latency = 1000\nbogus = 3\n' >"$TMP/pbad1.txt"; printf 'hbm_latency = -3\n' >"$TMP/pbad2.txt"; printf 'mi999.cus = 3\n' >"$TMP/pbad3.txt"
printf 'cus = 2.5\n' >"$TMP/pbad4.txt"; printf 'just words\n' >"$TMP/pbad5.txt"
expect_out timing/params-unknown-key 1 "pbad1.txt:2: unknown key 'bogus'" -- env FLY_SIM_TIMING_PARAMS="$TMP/pbad1.txt" "$SIM" --timing-devices
expect_out timing/params-bad-value 1 "pbad2.txt:1: hbm_latency = '-3': expected a positive integer" -- env FLY_SIM_TIMING_PARAMS="$TMP/pbad2.txt" "$SIM" --timing-devices
expect_out timing/params-unknown-row 1 "pbad3.txt:1: no device row 'mi999'" -- env FLY_SIM_TIMING_PARAMS="$TMP/pbad3.txt" "$SIM" --timing-devices
expect_out timing/params-integer-column 1 "pbad4.txt:1: cus = '2.5': expected a positive integer" -- env FLY_SIM_TIMING_PARAMS="$TMP/pbad4.txt" "$SIM" --timing-devices
expect_out timing/params-no-equals 1 "pbad5.txt:1: expected KEY = VALUE" -- env FLY_SIM_TIMING_PARAMS="$TMP/pbad5.txt" "$SIM" --timing-devices
expect_out timing/params-missing-file 1 "cannot read '$TMP/nonexistent'" -- env FLY_SIM_TIMING_PARAMS="$TMP/nonexistent" "$SIM" --timing-devices
expect_out timing/params-bad-file-fails-a-timed-launch 1 "unknown key 'bogus'" -- env FLY_SIM_TIMING_PARAMS="$TMP/pbad1.txt" "$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/px.json"

# libflyrt's timing API (rt_timing.c) against flyc-sim's figures for the same launch
LIBS="$B/libflyc.a $B/libflyrt.a $(llvm-config-22 --ldflags --libs --system-libs) -lsqlite3 -lm -lpthread -ldl"
SANFLAGS=; [ "$FLY_SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
g=$(gargs 512 512 256)
"$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/rf.json" 2>/dev/null
"$SIM" "$GEMM" gemm_nt_128x128 $g --timing="$TMP/rs.json" --timing-sample=4 --timing-only 2>/dev/null
rf=$(jget "$TMP/rf.json" cycles 2>/dev/null || echo 0) rs=$(jget "$TMP/rs.json" cycles 2>/dev/null || echo 0)
if ${CC:-cc} -std=c11 -O1 -g $SANFLAGS -D_GNU_SOURCE -I"$FLY_TOP/runtime/include" "$HERE/rt_timing.c" $LIBS \
	-o "$TMP/rt_timing" 2>"$TMP/rtcc.err"; then
	# run PROG...: its PASS/FAIL lines; a crash without a FAIL line is a failure
	rprog() { "$@" >"$TMP/rt.out" 2>"$TMP/rt.err"; rc=$?; grep -E '^(PASS|FAIL): |^    ' "$TMP/rt.out"
		[ $rc -ne 0 ] && ! grep -q '^FAIL: ' "$TMP/rt.out" && fail "timing-api: $1 $2 exited $rc" "$(tail -n 20 "$TMP/rt.err")"; }
	(unset FLY_DEVICE FLY_SIM_TIMING; rprog "$TMP/rt_timing" sim "$GEMM" "$rf" "$rs")
	(unset FLY_DEVICE; FLY_SIM_TIMING=mi355x FLY_SIM_TIMING_SAMPLE=4 FLY_SIM_TIMING_ONLY=1 rprog "$TMP/rt_timing" env "$GEMM" "$rs")
	(unset FLY_DEVICE; FLY_SIM_TIMING=bogus rprog "$TMP/rt_timing" env-bad)
	if ${CC:-cc} -shared -fPIC -O1 -DFAKE_DEVICES=1 "$FLY_TOP/tests/runtime/fake_hip.c" -o "$TMP/fake_hip1.so" 2>>"$TMP/rtcc.err"; then
		(unset FLY_DEVICE FLY_SIM_TIMING; FLYRT_HIP_LIBRARY="$TMP/fake_hip1.so" rprog "$TMP/rt_timing" hip "$GEMM")
	else fail "timing-api: build the stand-in HIP runtime" "$(cat "$TMP/rtcc.err")"; fi
else fail "timing-api: build rt_timing" "$(cat "$TMP/rtcc.err")"; fi

# flyc.ops.timing (test_timing.py, /usr/bin/python3 with torch): on the simulator, and on
# the stand-in HIP device
pyt() { # pyt [hip]: the Python tests, with the sanitized libflyrt preloaded in a sanitized build
	pre=; [ "$FLY_SAN" = 1 ] && pre="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libubsan.so)"
	env -u FLY_DEVICE -u FLYC_TUNING_DB -u FLYC_KERNEL_DIR -u FLY_SIM_TIMING FLYRT_LIB="$B/libflyrt.so" \
		PYTHONPATH="$FLY_TOP/python" ${pre:+LD_PRELOAD="$pre" ASAN_OPTIONS=detect_leaks=0} \
		${1:+FLY_DEVICE=hip FLYRT_HIP_LIBRARY="$TMP/fake_hip1.so"} "$PY" "$HERE/test_timing.py" "$@" >"$TMP/py.out" 2>&1
	rc=$?; cat "$TMP/py.out"
	if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/py.out"; then fail "timing-py: test_timing.py $* exited $rc" "$(tail -n 20 "$TMP/py.out")"; fi
}
if "$PY" -c "import torch" 2>/dev/null; then pyt; [ -f "$TMP/fake_hip1.so" ] && pyt hip
else echo "SKIP: timing-py (no torch for $PY)"; fi

# the regression guard: flyc's kernels' modelled cycles against tests/timing/guard.tsv (±2%),
# then damaged copies: one row 3% off must fail naming it, one 1.5% off must pass, a missing
# row must fail
if "$PY" -c "import torch" 2>/dev/null; then
	gpre=; [ "$FLY_SAN" = 1 ] && gpre="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libubsan.so)"
	grd() { env -u FLY_DEVICE -u FLYC_TUNING_DB -u FLY_SIM_TIMING FLYRT_LIB="$B/libflyrt.so" FLYC_KERNEL_DIR="$B/lib/flyc/kernels" \
		${gpre:+LD_PRELOAD="$gpre" ASAN_OPTIONS=detect_leaks=0} "$PY" "$FLY_TOP/scripts/timing-guard.py" --check "$@"; }
	# the figures do not depend on the build: the sanitized build checks the guard's logic only
	if [ "$FLY_SAN" = 1 ]; then echo "SKIP: timing/guard (the plain build checks the figures; sanitized: the guard's own tests)"
	else
		grd "$FLY_TOP/tests/timing/guard.tsv" >"$TMP/guard.out" 2>&1; rc=$?
		grep -E '^(PASS|FAIL): ' "$TMP/guard.out"
		[ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/guard.out" && fail "timing/guard exited $rc" "$(tail -n 20 "$TMP/guard.out")"
	fi
	# perturb FACTOR VARIANT OUT: guard.tsv's header and VARIANT's first row with total_cycles x FACTOR
	perturb() { awk -F'\t' -v OFS='\t' -v f="$1" -v v="$2" '/^#/ { next } !h { print; h = 1; next } $2 == v && !done { $10 = int($10 * f); print; done = 1 }' \
		"$FLY_TOP/tests/timing/guard.tsv" >"$3"; }
	perturb 1.03 rms_norm_bf16_r16 "$TMP/g3.tsv"; perturb 0.985 gemm_nt_ragged "$TMP/g15.tsv"
	grep -v 'rms_norm_bf16_r16' "$FLY_TOP/tests/timing/guard.tsv" >"$TMP/gmiss.tsv"
	if grd "$TMP/g3.tsv" --subset >"$TMP/g3.out" 2>&1; then fail "timing/guard-refuses-a-row-3%-off" "$(cat "$TMP/g3.out")"
	elif grep -q 'FAIL: timing/guard: rms_norm_bf16_r16 4096x64 bf16: .*-2.9%' "$TMP/g3.out"; then pass "timing/guard-refuses-a-row-3%-off"
	else fail "timing/guard-refuses-a-row-3%-off" "$(cat "$TMP/g3.out")"; fi
	if grd "$TMP/g15.tsv" --subset >"$TMP/g15.out" 2>&1; then pass "timing/guard-accepts-a-row-1.5%-off"
	else fail "timing/guard-accepts-a-row-1.5%-off" "$(cat "$TMP/g15.out")"; fi
	# the missing-row check reads the whole file, so damage a copy whose rows would all pass
	if grd "$TMP/gmiss.tsv" >"$TMP/gmiss.out" 2>&1; then fail "timing/guard-refuses-a-missing-row" "$(cat "$TMP/gmiss.out")"
	elif grep -q 'rms_norm_bf16_r16 4096x64 bf16 is not in' "$TMP/gmiss.out"; then pass "timing/guard-refuses-a-missing-row"
	else fail "timing/guard-refuses-a-missing-row" "$(cat "$TMP/gmiss.out")"; fi
else echo "SKIP: timing/guard (no torch for $PY)"; fi

# the calibration tables (tests/timing/calib: consistent without a copy of aiter)
sh "$FLY_TOP/tests/timing/calib/check.sh" || fail timing/calib "tests/timing/calib/check.sh failed"
