#!/bin/sh
# tests/ops/run.sh — the operator library (docs/ops.md) on the simulator:
#   - the kernel library the build made (BUILD/lib/flyc/kernels/ARCH/NAME.hsaco) holds
#     every variant of the table, and stdlib/ops/*.fly check warning-free;
#   - the C API from C (ops_c.c): hostile DLTensors, plans, malformed calls, threads;
#   - flyc.ops from Python with torch 1.13 (test_ops.py): every mm variant against f64
#     references with NaN guards, refusals with reasons, hostile strides and sizes,
#     determinism across FLY_SIM_THREADS, the checks of the operators without kernels;
#   - flyc.torch (test_torch.py): the dispatch mode, its conds, stats, torch.ops.flyc;
#   - flyc-tune: measurements -> a database that changes the chosen variant
#     (tune_check.py), stale rows ignored, bad input refused,
#     the timing model used on the simulator.
# FLY_SAN=1: the C test sanitized; the Python tests with the sanitized libflyrt.so
# preloaded, one shape per variant.
. "$FLY_TOP/tests/lib.sh"
cd "$FLY_TOP" || exit 2
case "$FLY_BUILD" in /*) B=$FLY_BUILD ;; *) B=$FLY_TOP/$FLY_BUILD ;; esac
KD=$B/lib/flyc/kernels
PY=/usr/bin/python3
CC=${CC:-cc}
SANFLAGS=
[ "$FLY_SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined"

# ---- the kernel library (norm.hsaco's variants: tests/norm) -----------------------------
# (every variant flyc.ops lists for gfx950 is a kernel of one of the library's code objects)
for co in "$KD"/gfx950/*.hsaco; do "$BIN/flyrt-info" "$co" 2>&1; done | sed -n 's/^kernel //p' >"$TMP/kernels"
missing=
for k in $(PYTHONPATH="$FLY_TOP/python" /usr/bin/python3 -c 'import flyc; print(" ".join(flyc.ops.variants("mm", "gfx950")))'); do
	grep -qx "$k" "$TMP/kernels" || missing="$missing $k"
done
[ -s "$TMP/kernels" ] || missing=" (no kernels listed)"
if [ -z "$missing" ]; then pass "ops: the gfx950 kernel library holds every mm variant"
else fail "ops: the gfx950 kernel library holds every mm variant" "missing:$missing"; fi
# (the simulator runs gfx950 only: loading it says whom it is for)
expect_out "ops: the gfx1201 kernel library is built" 1 "built for gfx1201, the device is gfx950" -- \
	env -u FLY_DEVICE "$BIN/flyrt-info" "$KD/gfx1201/gemm.hsaco"
bad=
for f in stdlib/ops/*.fly; do
	"$FLYC" -fsyntax-only -Werror "$f" >"$TMP/lint" 2>&1 || bad="$bad $f: $(head -n 3 "$TMP/lint")"
done
if [ -z "$bad" ]; then pass "ops: stdlib/ops/*.fly check warning-free"; else fail "ops: stdlib/ops/*.fly check warning-free" "$bad"; fi
if [ -L examples/gemm_bf16.fly ] && [ "$(readlink examples/gemm_bf16.fly)" = ../stdlib/ops/gemm.fly ]; then
	pass "ops: examples/gemm_bf16.fly is the library's stdlib/ops/gemm.fly"
else
	fail "ops: examples/gemm_bf16.fly is the library's stdlib/ops/gemm.fly" "$(ls -l examples/gemm_bf16.fly)"
fi

# ---- the C API -----------------------------------------------------------------------
if $CC -std=c11 -O1 -g $SANFLAGS -Wall -Wextra -Werror -D_GNU_SOURCE -Iruntime/include tests/ops/ops_c.c \
	"$B/libflyrt.a" $(llvm-config-22 --ldflags --libs --system-libs) -lsqlite3 -lm -lpthread -ldl \
	-o "$TMP/ops_c" 2>"$TMP/cc.err"; then
	(unset FLY_DEVICE FLYC_TUNING_DB; FLYC_KERNEL_DIR=$KD "$TMP/ops_c" "$TMP" >"$TMP/c.out" 2>&1)
	rc=$?
	cat "$TMP/c.out"
	if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/c.out"; then fail "ops-c: exit status $rc" "$(tail -n 20 "$TMP/c.out")"; fi
else
	fail "ops: build ops_c against libflyrt.a" "$(cat "$TMP/cc.err")"
fi

# ---- the HIP paths, against a stand-in HIP runtime ------------------------------------
FAKE=$TMP/fake_hip_gemm.so
if $CC -shared -fPIC -O1 tests/ops/fake_hip_gemm.c -o "$FAKE" 2>"$TMP/cc.err" &&
   $CC -std=c11 -O1 -g $SANFLAGS -Wall -Wextra -Werror -D_GNU_SOURCE -Iruntime/include tests/ops/hip_c.c \
	"$B/libflyrt.a" $(llvm-config-22 --ldflags --libs --system-libs) -lsqlite3 -lm -lpthread -ldl \
	-o "$TMP/hip_c" 2>>"$TMP/cc.err"; then
	(unset FLY_DEVICE FLYC_TUNING_DB; FLYRT_HIP_LIBRARY=$FAKE FLYC_KERNEL_DIR=$KD "$TMP/hip_c" >"$TMP/hip.out" 2>&1)
	rc=$?
	cat "$TMP/hip.out"
	if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/hip.out"; then fail "ops-hip: exit status $rc" "$(tail -n 20 "$TMP/hip.out")"; fi
	# flyc-tune measures on a (stand-in) GPU: every variant that takes a shape, split-K too
	# (K = 64: one k-tile, so only with the rule's S), a row per bucket
	if (unset FLY_DEVICE; FLYRT_HIP_LIBRARY=$FAKE FLYC_KERNEL_DIR=$KD "$BIN/flyc-tune" --op=mm \
		--shapes=128x128x64,256x256x64 --device=hip --reps=2 --warmup=1 -o "$TMP/hip.db" >"$TMP/hiptune.out" 2>&1) &&
	   [ "$(grep -c ' us$' "$TMP/hiptune.out")" = 9 ] && [ "$(grep -c ' gemm_nt_splitk [0-9x]*: ' "$TMP/hiptune.out")" = 2 ] &&
	   "$BIN/flyc-tune" --dump "$TMP/hip.db" | grep -q '^gfx950,mm,bf16->bf16,NT,M>64 M<=128 N>64 N<=128 K>32 K<=64,gemm_nt_[a-z0-9_]* gemm_nt_[a-z0-9_]* gemm_nt_[a-z0-9_]*,.*,fnv1a64:' &&
	   "$BIN/flyc-tune" --dump "$TMP/hip.db" | grep -q ',M>128 M<=256 N>128 N<=256 K>32 K<=64,'; then
		pass "ops: tune: flyc-tune --op=mm measures every variant on a HIP device (stand-in)"
	else
		fail "ops: tune: flyc-tune --op=mm measures every variant on a HIP device (stand-in)" "$(cat "$TMP/hiptune.out")"
	fi
else
	fail "ops: build the stand-in HIP runtime and hip_c" "$(cat "$TMP/cc.err")"
fi

# ---- Python --------------------------------------------------------------------------
if ! "$PY" -c "import torch, numpy" 2>/dev/null; then
	echo "SKIP: ops: python (no torch/numpy for $PY)"
	exit 0
fi
py() { # the python tests, with the sanitized libflyrt preloaded in a sanitized build
	if [ "$FLY_SAN" = 1 ]; then
		asan=$($CC -print-file-name=libasan.so) ubsan=$($CC -print-file-name=libubsan.so)
		env -u FLY_DEVICE -u FLYC_TUNING_DB -u FLYC_KERNEL_DIR ${PYDEV:+FLY_DEVICE=$PYDEV} FLYRT_LIB="$B/libflyrt.so" \
			LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0 FLY_SAN=1 "$PY" "$@"
	else
		env -u FLY_DEVICE -u FLYC_TUNING_DB -u FLYC_KERNEL_DIR ${PYDEV:+FLY_DEVICE=$PYDEV} FLYRT_LIB="$B/libflyrt.so" "$PY" "$@"
	fi
}
for t in test_ops test_torch test_ops:sim:gfx1201 test_mm_epilogue test_mm_epilogue:sim:gfx1201; do
	dev=${t#*:}; [ "$dev" = "$t" ] && dev=""; t=${t%%:*}   # NAME[:DEVICE]
	PYDEV=$dev py tests/ops/$t.py >"$TMP/$t.out" 2>&1
	rc=$?
	cat "$TMP/$t.out"
	if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/$t.out"; then fail "ops: $t.py exited $rc" "$(tail -n 20 "$TMP/$t.out")"; fi
done

# CPU tensors with FLY_DEVICE=hip: staged to the (stand-in) GPU
if [ "$FLY_SAN" != 1 ] && [ -f "$FAKE" ]; then
	if env -u FLYC_TUNING_DB -u FLYC_KERNEL_DIR FLYRT_LIB="$B/libflyrt.so" FLYRT_HIP_LIBRARY=$FAKE FLY_DEVICE=hip \
		"$PY" -c "
import sys; sys.path.insert(0, 'python')
import flyc, torch
assert flyc.context().device_name.startswith('HIP device 0'), flyc.context().device_name
g = torch.Generator().manual_seed(2)
a = torch.randint(-3, 4, (256, 64), generator=g).to(torch.bfloat16)
b = torch.randint(-3, 4, (128, 64), generator=g).to(torch.bfloat16)
c = flyc.ops.mm(a[:, :64], b.t())
assert torch.equal(c, (a.double() @ b.double().t()).to(torch.bfloat16))
" >"$TMP/pyhip.out" 2>&1; then
		pass "ops: FLY_DEVICE=hip: CPU tensors are staged to the GPU (stand-in)"
	else
		fail "ops: FLY_DEVICE=hip: CPU tensors are staged to the GPU (stand-in)" "$(tail -n 8 "$TMP/pyhip.out")"
	fi
fi

# ---- flyc-tune -----------------------------------------------------------------------
cat >"$TMP/m.csv" <<'CSV'
arch,op,dtypes,layout,shape,variant,time_us
# 256x256x64: the 256x256 tile measured fastest (two repeats: the median counts)
gfx950,mm,bf16->bf16,NT,256x256x64,gemm_nt_128x128,30
gfx950,mm,bf16->bf16,NT,256x256x64,gemm_nt_256x256,10
gfx950,mm,bf16->bf16,NT,256x256x64,gemm_nt_256x256,14

gfx950,mm,bf16->bf16,NT,256x256x64,gemm_nt_256x128,20
# 512x512x128 and 400x300x100 share a bucket: 256x128 is faster over both
gfx950,mm,bf16->bf16,NT,512x512x128,gemm_nt_256x128,5
gfx950,mm,bf16->bf16,NT,512x512x128,gemm_nt_128x128,6
gfx950,mm,bf16->bf16,NT,400x300x100,gemm_nt_128x128,4
gfx950,mm,bf16->bf16,NT,400x300x100,gemm_nt_256x128,4.5
CSV
T="$BIN/flyc-tune"
if "$T" --measurements="$TMP/m.csv" -o "$TMP/t.db" >"$TMP/tune.out" 2>&1 &&
   "$T" --dump "$TMP/t.db" >"$TMP/dump.csv" 2>&1; then
	pass "ops: tune: flyc-tune --measurements writes a database"
	if grep -q '^gfx950,mm,bf16->bf16,NT,M>128 M<=256 N>128 N<=256 K>32 K<=64,gemm_nt_256x256 gemm_nt_256x128 gemm_nt_128x128,12.000 20.000 30.000,' "$TMP/dump.csv" &&
	   grep -q ',M>256 M<=512 N>256 N<=512 K>64 K<=128,gemm_nt_256x128 gemm_nt_128x128,' "$TMP/dump.csv" &&
	   [ "$(grep -c '^gfx950,mm' "$TMP/dump.csv")" = 2 ]; then
		pass "ops: tune: rows per bucket, variants ranked by the median times' geometric mean"
	else
		fail "ops: tune: rows per bucket, variants ranked by the median times' geometric mean" "$(cat "$TMP/dump.csv")"
	fi
else
	fail "ops: tune: flyc-tune --measurements writes a database" "$(cat "$TMP/tune.out")"
fi
# stale copies: another flyc version, another code-object hash (edited dumps, read back by --rows)
sed 's/,[^,]*,fnv1a64:/,0.0.0-old,fnv1a64:/' "$TMP/dump.csv" >"$TMP/old.csv"
sed 's/fnv1a64:[0-9a-f]*/fnv1a64:0000000000000000/' "$TMP/dump.csv" >"$TMP/hash.csv"
if "$T" --rows="$TMP/old.csv" -o "$TMP/old.db" >/dev/null 2>&1 && "$T" --rows="$TMP/hash.csv" -o "$TMP/hash.db" >/dev/null 2>&1 &&
   "$T" --dump "$TMP/old.db" | grep -q '0.0.0-old' && "$T" --dump "$TMP/hash.db" | grep -q 'fnv1a64:0000000000000000'; then
	pass "ops: tune: --dump output reads back through --rows"
else
	fail "ops: tune: --dump output reads back through --rows" "$(cat "$TMP/old.csv")"
fi
py tests/ops/tune_check.py "$TMP/t.db" "$TMP/old.db" "$TMP/hash.db" >"$TMP/tc.out" 2>&1
rc=$?
cat "$TMP/tc.out"
if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/tc.out"; then fail "ops: tune_check.py exited $rc" "$(tail -n 20 "$TMP/tc.out")"; fi
# split-K in rows: ranked first where the rule would not split, a one-pass kernel first
# where it would, with a bias under its own key; a stale copy (another hash) leaves the rule
cat >"$TMP/ms.csv" <<'CSV'
arch,op,dtypes,layout,shape,variant,time_us
gfx950,mm,bf16->bf16,NT,96x256x1024,gemm_nt_splitk.s4,5
gfx950,mm,bf16->bf16,NT,96x256x1024,gemm_nt_ragged,9
gfx950,mm,bf16->bf16,NT,16x512x1024,gemm_nt_ragged,5
gfx950,mm,bf16->bf16,NT,16x512x1024,gemm_nt_splitk,9
gfx950,mm,bf16+bf16->bf16,NT,16x512x1024,gemm_nt_splitk,5
gfx950,mm,bf16+bf16->bf16,NT,16x512x1024,gemm_nt_ragged,9
CSV
if "$T" --measurements="$TMP/ms.csv" -o "$TMP/ts.db" >"$TMP/ts.out" 2>&1 &&
   "$T" --dump "$TMP/ts.db" | sed 's/fnv1a64:[0-9a-f]*/fnv1a64:0000000000000000/' >"$TMP/tsh.csv" &&
   "$T" --rows="$TMP/tsh.csv" -o "$TMP/tsh.db" >>"$TMP/ts.out" 2>&1 &&
   "$T" --dump "$TMP/ts.db" | grep -q ',M>64 M<=128 N>128 N<=256 K>512 K<=1024,gemm_nt_splitk.s4 gemm_nt_ragged,'; then
	pass "ops: tune: split-K measurements rank split-K in the NT row"
	py tests/ops/tune_split_check.py "$TMP/ts.db" "$TMP/tsh.db" >"$TMP/tsc.out" 2>&1
	rc=$?
	cat "$TMP/tsc.out"
	if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/tsc.out"; then fail "ops: tune_split_check.py exited $rc" "$(tail -n 20 "$TMP/tsc.out")"; fi
else
	fail "ops: tune: split-K measurements rank split-K in the NT row" "$(cat "$TMP/ts.out")"
fi
# --merge keeps the rows no new row replaces
printf 'arch,op,dtypes,layout,shape,variant,time_us\ngfx950,mm,bf16->bf16,NT,1024x1024x1024,gemm_nt_256x256_st128,90\n' >"$TMP/m2.csv"
cp "$TMP/t.db" "$TMP/merged.db"
if "$T" --measurements="$TMP/m2.csv" -o "$TMP/merged.db" --merge >/dev/null 2>&1 &&
   [ "$("$T" --dump "$TMP/merged.db" | grep -c '^gfx950,mm')" = 3 ]; then
	pass "ops: tune: --merge keeps the other buckets' rows"
else
	fail "ops: tune: --merge keeps the other buckets' rows" "$("$T" --dump "$TMP/merged.db" 2>&1)"
fi
# bad measurements: refused with the line, nothing written
i=0
for line in 'gfx950,mm,bf16->bf16,NT,256x256,gemm_nt_128x128,1|bad shape' \
            'gfx950,mm,bf16->bf16,NT,256x256x64,gemm_nt_64x64,1|not a mm variant' \
            'gfx950,mm,f16->f16,NT,256x256x64,gemm_nt_128x128,1|not a mm variant' \
            'gfx950,mm,bf16->bf16,NT,16x64x512,gemm_nt_splitk.s0,1|not a mm variant' \
            'gfx950,mm,bf16->bf16,NT,16x64x512,gemm_nt_splitk.s65,1|not a mm variant' \
            'gfx950,mm,bf16->bf16,NT,16x64x512,gemm_nt_splitk_f16,1|not a mm variant' \
            'gfx950,mm,bf16->bf16,NN,16x64x512,gemm_nt_splitk,1|not a mm variant' \
            'gfx950,mm,bf16->bf16,NT,256x256x64,gemm_nt_128x128,-3|positive' \
            'gfx950,mm,bf16->bf16,NT,256x256x64,gemm_nt_128x128,x|bad time' \
            'gfx950,attention,bf16->bf16,bhsd,4x4,v,1|no kernels to tune' \
            'gfx950,rms_norm,bf16->bf16,rows,4x4,rms_norm_bf16_n64,1|not a rms_norm variant' \
            'gfx950,mm,bf16->bf16,NT,256x256x64|expected 7 fields' \
            'gfx950,conv,bf16,NT,1x1x1,v,1|unknown operator'; do
	i=$((i + 1))
	printf 'arch,op,dtypes,layout,shape,variant,time_us\n# a comment\n%s\n' "${line%%|*}" >"$TMP/bad$i.csv"
	expect_out "ops: tune: refuses '${line%%|*}'" 1 "bad$i.csv:3: .*${line#*|}" -- \
		"$T" --measurements="$TMP/bad$i.csv" -o "$TMP/bad$i.db"
	if [ -e "$TMP/bad$i.db" ] || ls "$TMP" | grep -q "bad$i.db.tmp"; then fail "ops: tune: no database after an error" "$(ls "$TMP")"; fi
done
# rms_norm measurements rank its variants per (rows, N) bucket
printf 'arch,op,dtypes,layout,shape,variant,time_us\ngfx950,rms_norm,bf16->bf16,rows,3000x4096,rms_norm_bf16_n8192,2\ngfx950,rms_norm,bf16->bf16,rows,3000x4096,rms_norm_bf16_n4096,3\n' >"$TMP/rn.csv"
if "$T" --measurements="$TMP/rn.csv" -o "$TMP/rn.db" >/dev/null 2>&1 &&
   "$T" --dump "$TMP/rn.db" | grep -q '^gfx950,rms_norm,bf16->bf16,rows,rows>2048 rows<=4096 N>2048 N<=4096,rms_norm_bf16_n8192 rms_norm_bf16_n4096,'; then
	pass "ops: tune: rms_norm measurements give a row per (rows, N) bucket"
else
	fail "ops: tune: rms_norm measurements give a row per (rows, N) bucket" "$("$T" --dump "$TMP/rn.db" 2>&1)"
fi
# on the simulator flyc-tune ranks by the timing model (tests/timing checks the ranking)
expect_out "ops: tune: measuring on the simulator uses the timing model" 0 \
	"gemm_nt_128x128 256x256x64: [0-9.]* us \(modelled, default row\)" -- \
	env FLY_DEVICE=sim "$T" --op=mm --shapes=256x256x64 -o "$TMP/sim.db"
# a decode shape on the simulator: split-K measured (the rule's S and .s2 ... .s16) and
# ranked first in the row it writes (timing 4 workgroups per launch: about a second)
if env FLY_DEVICE=sim "$T" --op=mm --shapes=16x512x1024 --timing-sample=4 -o "$TMP/simk.db" >"$TMP/simk.out" 2>&1 &&
   [ "$(grep -c 'gemm_nt_splitk[.s0-9]* 16x512x1024: [0-9.]* us (modelled' "$TMP/simk.out")" = 5 ] &&
   "$T" --dump "$TMP/simk.db" | grep -q '^gfx950,mm,bf16->bf16,NT,M>8 M<=16 N>256 N<=512 K>512 K<=1024,gemm_nt_splitk[.s0-9]* .*gemm_nt_ragged'; then
	pass "ops: tune: on the simulator a decode shape ranks split-K first"
else
	fail "ops: tune: on the simulator a decode shape ranks split-K first" "$(cat "$TMP/simk.out")"
fi
# --layout=NN: the NN variants (128x128, 256x128, 256x256) on NN operands, one row of key NN
if env FLY_DEVICE=sim "$T" --op=mm --layout=NN --shapes=264x136x64 --timing-sample=4 -o "$TMP/simnn.db" >"$TMP/simnn.out" 2>&1 &&
   [ "$(grep -c '^gfx950 gemm_nn_ragged\(_256x128\|_256x256\)\? 264x136x64: [0-9.]* us (modelled' "$TMP/simnn.out")" = 3 ] &&
   "$T" --dump "$TMP/simnn.db" | grep -q '^gfx950,mm,bf16->bf16,NN,M>256 M<=512 N>128 N<=256 K>32 K<=64,gemm_nn_ragged[_0-9x]* gemm_nn_ragged[_0-9x]* gemm_nn_ragged[_0-9x]*,'; then
	pass "ops: tune: --layout=NN measures and ranks the NN variants"
else
	fail "ops: tune: --layout=NN measures and ranks the NN variants" "$(cat "$TMP/simnn.out")"
fi
# --dtypes: the key's operand and output dtypes and its bias (f16 with a bias of f16): its
# variants measured on such tensors, one row of that key; the bias reaches the kernels (its
# reads make the modelled call slower than the same variant's without one: 8.3 against 7.8
# us when written); a key mm does not have refused
tn_us() { sed -n 's/^gfx950 gemm_tn_f16_128x128 256x256x64: \([0-9.]*\) us (modelled.*/\1/p' "$1"; }
if env FLY_DEVICE=sim "$T" --op=mm --dtypes='f16+f16->f16' --layout=TN --shapes=256x256x64 --timing-sample=4 \
	-o "$TMP/simf16.db" >"$TMP/simf16.out" 2>&1 &&
   env FLY_DEVICE=sim "$T" --op=mm --dtypes='f16->f16' --layout=TN --shapes=256x256x64 --timing-sample=4 \
	-o "$TMP/simf16n.db" >"$TMP/simf16n.out" 2>&1 &&
   awk -v b="$(tn_us "$TMP/simf16.out")" -v n="$(tn_us "$TMP/simf16n.out")" 'BEGIN { exit !(b + 0 > n + 0 && n + 0 > 0) }' &&
   grep -q '^gfx950 gemm_tn_ragged_f16 256x256x64: [0-9.]* us (modelled' "$TMP/simf16.out" &&
   ! grep -q 'gemm_tn_128x128\|gemm_tn_ragged ' "$TMP/simf16.out" &&
   "$T" --dump "$TMP/simf16.db" | grep -q '^gfx950,mm,f16+f16->f16,TN,M>128 M<=256 N>128 N<=256 K>32 K<=64,gemm_tn_f16_'; then
	pass "ops: tune: --dtypes=f16+f16->f16 measures that key's variants with a bias"
else
	fail "ops: tune: --dtypes=f16+f16->f16 measures that key's variants with a bias" "$(cat "$TMP/simf16.out")"
fi
for bad in 'f32->f32' 'bf16->f16' 'bf16+bf16->f32' 'bf16->bf16x' 'f16+f32->f16'; do
	expect_out "ops: tune: --dtypes=$bad is refused" 1 "mm's keys are T->T, T->f32, T.T->T and T.f32->f32" -- \
		env FLY_DEVICE=sim "$T" --op=mm --dtypes="$bad" --shapes=64x64x64 -o "$TMP/bad.db"
done
expect_out "ops: tune: --layout other than NT, NN, TN, TT is refused" 1 "mm's layouts are NT, NN, TN and TT" -- \
	env FLY_DEVICE=sim "$T" --op=mm --layout=NX --shapes=64x64x64 -o "$TMP/bad.db"
expect_out "ops: tune: usage errors exit 2" 2 "usage:" -- "$T" --measurements="$TMP/m.csv"
expect_out "ops: tune: --dump of a text file is a clear error" 1 "is not a SQLite database" -- \
	"$T" --dump "$TMP/m.csv"
exit 0
