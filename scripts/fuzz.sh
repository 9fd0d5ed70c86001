#!/bin/sh
# make fuzz: build and run every libFuzzer harness in tests/fuzz/ for N seconds each.
#
# Usage: scripts/fuzz.sh [SECONDS]   (default 60)
# Harnesses: tests/fuzz/fuzz_NAME.c with a seed corpus in tests/fuzz/corpus/NAME/;
# then tests/fuzz/mutate_codegen.py runs mutated kernels through a sanitized flyc;
# one with its own build script tests/fuzz/fuzz_NAME.sh is run through that script.
# Each is built with clang-22 -fsanitize=fuzzer,address,undefined into build/fuzz/.
# New corpus entries go to build/fuzz/corpus/NAME/ (the seeds in the repo stay
# small); crashes are written to build/fuzz/ and make the script fail.
set -u
secs=${1:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
CC=${FUZZ_CC:-clang-22}
out=build/fuzz
mkdir -p "$out/gen"
command -v "$CC" >/dev/null 2>&1 || { echo "fuzz: $CC not found"; exit 1; }

flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -std=c11 -D_GNU_SOURCE \
 -Icompiler -I$out/gen -DFLY_FUZZ_STDLIB=\"$top/stdlib\""

# generated lexer and parser
re2c -W --no-generation-date --no-version -o "$out/gen/lex.c" compiler/lex.re || exit 1
bison -Wall --no-lines -o "$out/gen/parse.c" --header="$out/gen/parse.h" compiler/parse.y || exit 1

# the front end's sources (plus the layout library when present)
front="compiler/arena.c compiler/diag.c compiler/ast.c compiler/sema.c compiler/sema_expr.c $out/gen/lex.c $out/gen/parse.c"
for f in compiler/layout/*.c; do [ -f "$f" ] && front="$front $f"; done

status=0
for h in tests/fuzz/fuzz_*.c; do
	[ -f "$h" ] || continue
	name=$(basename "$h" .c); name=${name#fuzz_}
	# a harness with its own build script (tests/fuzz/fuzz_NAME.sh) runs through it
	if [ -f "tests/fuzz/fuzz_$name.sh" ]; then
		sh "tests/fuzz/fuzz_$name.sh" "$secs" || status=1
		continue
	fi
	bin="$out/fuzz_$name"
	echo "fuzz: building $bin"
	# shellcheck disable=SC2086
	$CC $flags -o "$bin" "$h" $front -lm || { status=1; continue; }
	mkdir -p "$out/corpus/$name"
	echo "fuzz: running $name for ${secs}s"
	dict=""; [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
	# shellcheck disable=SC2086
	"$bin" $dict -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/$name-" -print_final_stats=1 \
		"$out/corpus/$name" "tests/fuzz/corpus/$name" 2>"$out/$name.log"
	rc=$?
	grep -E "^stat::number_of_executed_units|^Done [0-9]+ runs" "$out/$name.log" | tail -2
	if [ "$rc" != 0 ]; then
		echo "fuzz: $name FAILED (exit $rc); see $out/$name.log"
		tail -40 "$out/$name.log"
		status=1
	fi
done

# the whole compiler: mutated kernels through a sanitized flyc (tests/fuzz/mutate_codegen.py)
if command -v python3 >/dev/null 2>&1; then
	echo "fuzz: building the sanitized flyc (build/san)"
	if make -s BUILD=build/san SAN=1 build/san/bin/flyc >"$out/san-build.log" 2>&1; then
		echo "fuzz: running codegen mutations for ${secs}s"
		python3 tests/fuzz/mutate_codegen.py build/san/bin/flyc "$top" "$out" "$secs" "${FUZZ_SEED:-1}" ||
			{ echo "fuzz: codegen mutations FAILED; see $out/codegen-crash-*.txt"; status=1; }
	else
		echo "fuzz: cannot build build/san/bin/flyc; see $out/san-build.log"
		status=1
	fi
fi
exit $status
