#!/bin/sh
# tests/fuzz/fuzz_loader.sh [SECONDS] — build tests/fuzz/fuzz_loader.c with clang-22
# (-fsanitize=fuzzer,address,undefined) into build/fuzz/, seed a corpus with real code
# objects (raw, with .flyc.meta, a bundle), .flyc.meta text and a tuning bucket, and run
# it for SECONDS (default 60). Crashes are written to build/fuzz/loader-crashes/.
set -u
secs=${1:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
out=build/fuzz
bin=$(llvm-config-22 --bindir)
mkdir -p "$out/loader-corpus" "$out/loader-crashes"
srcs="tests/fuzz/fuzz_loader.c $(ls runtime/*.c runtime/hip/*.c runtime/sim/*.c 2>/dev/null)"
# shellcheck disable=SC2086
"$bin/clang" -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -DFLYC_VERSION='"fuzz"' \
	-Iruntime -Iruntime/include -I"$(llvm-config-22 --includedir)" $srcs \
	$(llvm-config-22 --ldflags --libs --system-libs) -lsqlite3 -lm -lpthread -ldl \
	-o "$out/fuzz_loader" || { echo "fuzz_loader: build failed"; exit 1; }
k=tests/runtime/kernels c=$out/loader-corpus
: >"$out/empty"
"$bin/clang" -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx950 -nogpulib -O2 \
	-cl-kernel-arg-info -c $k/rt.cl -o "$out/rt.o" && "$bin/ld.lld" -shared "$out/rt.o" -o "$c/raw" &&
"$bin/llvm-objcopy" --add-section=.flyc.meta=$k/rt.meta "$c/raw" "$c/meta" &&
"$bin/clang-offload-bundler" -type=o -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx950 \
	-input="$out/empty" -input="$c/meta" -output="$c/bundle" || echo "fuzz_loader: seeding code objects failed"
cp $k/rt.meta "$c/meta.txt"; printf 'n>=1024 K%%64==0' >"$c/bucket.txt"
"$out/fuzz_loader" -max_total_time="$secs" -max_len=65536 -artifact_prefix="$out/loader-crashes/" \
	"$c" 2>"$out/fuzz_loader.log"
rc=$?
tail -n 3 "$out/fuzz_loader.log"
[ $rc = 0 ] && echo "fuzz_loader: no crash in ${secs}s" || echo "fuzz_loader: FAILED (see $out/fuzz_loader.log)"
exit $rc
