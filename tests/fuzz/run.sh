# tests/fuzz — a fixed-seed run of the code generator's mutation fuzzer (make check).
#
# tests/fuzz/mutate_codegen.py mutates the kernels of examples/ and tests/codegen/fly/ and
# compiles each mutant; it fails on any exit status above 1, signal, sanitizer report,
# internal compiler error, "internal:" or "IR verifier" message, LLVM error or compile over
# 60 s: every program the checker accepts either compiles or gets a located diagnostic.
# FLY_FUZZ_RUNS mutants (default 300) with seed FLY_FUZZ_SEED (default 2024), plain build only:
# the sanitized build would take several times as long (make fuzz runs it there, for longer).
. "$FLY_TOP/tests/lib.sh"

runs=${FLY_FUZZ_RUNS:-300}
seed=${FLY_FUZZ_SEED:-2024}
if [ "$FLY_SAN" = 1 ]; then
	echo "SKIP: fuzz/codegen-mutations (plain build only; make fuzz runs the sanitized flyc)"
	exit 0
fi
if out=$(python3 "$FLY_TOP/tests/fuzz/mutate_codegen.py" "$FLYC" "$FLY_TOP" "$TMP" 1200 "$seed" --runs "$runs" 2>&1); then
	pass "fuzz/codegen-mutations ($(printf '%s\n' "$out" | tail -n 1 | sed 's/^codegen mutations: //'))"
else
	fail "fuzz/codegen-mutations (seed $seed)" "$out" "$(for f in "$TMP"/codegen-crash-*.txt; do [ -f "$f" ] && head -n 12 "$f"; done | head -n 80)"
fi
