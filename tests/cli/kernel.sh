# tests/cli/kernel.sh — sourced by tests/cli/run.sh: flyc --kernel=LIST (docs/cli.md) compiles
# and emits only the named kernels. The code object's symbols (llvm-readelf-22), its .flyc.meta
# and --resource-usage list exactly them; a list, a repeated option and a glob select the union;
# each kernel's machine code (llvm-objdump-22 of its symbol, raw bytes) and descriptor equal the
# full compile's; an unknown name or a glob matching nothing is a clear error with exit 1 and no
# output file (an existing one left as it was); so is an arch none of the selected kernels is for.
KLLVM=$(llvm-config-22 --bindir 2>/dev/null)
rms="$FLY_TOP/examples/rmsnorm.fly"        # rmsnorm_4096, rmsnorm_8192
tgf="$FLY_TOP/tests/codegen/fly/targets.fly" # copy950 (gfx950), copy1201 (gfx1201), copyall

# ksyms FILE: the code object's kernel symbols (FUNC), sorted, one line
ksyms() {
	"$KLLVM/llvm-readelf" -s "$1" | awk '$4 == "FUNC" { print $8 }' | sort -u | tr '\n' ' '
}
# kcode FILE NAME: NAME's machine code, the encoded words of each instruction (without
# their addresses: branches are PC-relative, so the words do not depend on where NAME is),
# less the s_nop 0 (BF800000) padding the linker puts after the last function of .text
kcode() {
	"$KLLVM/llvm-objdump" -d --disassemble-symbols="$2" "$1" | sed -n 's|.*// [0-9A-F]*: ||p' |
		awk '{ l[NR] = $0; if ($0 != "BF800000") last = NR } END { for (i = 1; i <= last; i++) print l[i] }'
}
kcase() { # name want got [details]
	if [ "$2" = "$3" ]; then pass "cli/kernel/$1"; else fail "cli/kernel/$1" "expected: $2" "got:      $3" "${4:-}"; fi
}

"$FLYC" "$rms" -o "$TMP/k-all.hsaco" 2>"$TMP/k.err" || fail cli/kernel/full-compile "$(cat "$TMP/k.err")"
"$FLYC" "$rms" --kernel=rmsnorm_8192 --resource-usage -o "$TMP/k-one.hsaco" >"$TMP/k-one.ru" 2>"$TMP/k.err"
kcase one-symbol "rmsnorm_8192 " "$(ksyms "$TMP/k-one.hsaco")" "$(cat "$TMP/k.err")"
"$KLLVM/llvm-objcopy" --dump-section=.flyc.meta="$TMP/k-one.meta" "$TMP/k-one.hsaco" "$TMP/k.junk" 2>/dev/null
kcase one-meta "rmsnorm_8192" "$(sed -n 's/^kernel //p' "$TMP/k-one.meta" | tr '\n' ' ' | sed 's/ $//')"
kcase one-resource-usage "rmsnorm_8192" "$(sed -n 's/^\([a-z0-9_]*\) \[gfx950\]:.*/\1/p' "$TMP/k-one.ru" | tr '\n' ' ' | sed 's/ $//')"
kcase one-notes "1" "$("$KLLVM/llvm-readelf" --notes "$TMP/k-one.hsaco" | grep -c '\.symbol:')"
# a kernel's code is the full compile's (the same IR and LLVM pipeline, one function fewer):
# rmsnorm_4096, first of two in the full compile, alone (so last) in the other
"$FLYC" "$rms" --kernel=rmsnorm_4096 -o "$TMP/k-first.hsaco" 2>/dev/null
a=$(kcode "$TMP/k-all.hsaco" rmsnorm_4096) b=$(kcode "$TMP/k-first.hsaco" rmsnorm_4096)
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass cli/kernel/same-code; else
	fail cli/kernel/same-code "the machine code of rmsnorm_4096 differs from the full compile's" \
		"full: $(printf '%s\n' "$a" | wc -l) lines, --kernel: $(printf '%s\n' "$b" | wc -l) lines"
fi
"$FLYC" "$rms" -S -o "$TMP/k-all.s" 2>/dev/null
"$FLYC" "$rms" --kernel=rmsnorm_8192 -S -o "$TMP/k-one.s" 2>/dev/null
# the kernel's descriptor directives (.amdhsa_*: registers, LDS, ...) are the full compile's
kdirs() { awk -v k="$2" '$1 == ".amdhsa_kernel" { on = ($2 == k) } on && /^[[:space:]]*\.amdhsa_/' "$1"; }
a=$(kdirs "$TMP/k-all.s" rmsnorm_8192) b=$(kdirs "$TMP/k-one.s" rmsnorm_8192)
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass cli/kernel/same-descriptor; else
	fail cli/kernel/same-descriptor "$(printf '%s\n' "$a" >"$TMP/k.a"; printf '%s\n' "$b" >"$TMP/k.b"; diff "$TMP/k.a" "$TMP/k.b" | head -n 20)"
fi

# lists, repetition and globs select the union, in file order
"$FLYC" "$rms" --kernel=rmsnorm_8192,rmsnorm_4096 -o "$TMP/k-list.hsaco" 2>"$TMP/k.err"
kcase comma-list "rmsnorm_4096 rmsnorm_8192 " "$(ksyms "$TMP/k-list.hsaco")" "$(cat "$TMP/k.err")"
"$FLYC" "$rms" --kernel rmsnorm_4096 --kernel=rmsnorm_4096 -o "$TMP/k-rep.hsaco" 2>"$TMP/k.err"
kcase repeated "rmsnorm_4096 " "$(ksyms "$TMP/k-rep.hsaco")" "$(cat "$TMP/k.err")"
"$FLYC" "$rms" --kernel='rmsnorm_8*' -o "$TMP/k-glob.hsaco" 2>"$TMP/k.err"
kcase glob "rmsnorm_8192 " "$(ksyms "$TMP/k-glob.hsaco")" "$(cat "$TMP/k.err")"
"$FLYC" "$tgf" --offload-arch=gfx950 --offload-arch=gfx1201 --no-gpu-bundle-output --kernel='copy[0-9]*' \
	-o "$TMP/k-tg.hsaco" 2>"$TMP/k.err"
kcase targets "copy950 |copy1201 " "$(ksyms "$TMP/k-tg-gfx950.hsaco")|$(ksyms "$TMP/k-tg-gfx1201.hsaco")" "$(cat "$TMP/k.err")"

# errors: exit 1, a message naming the name, the file and its kernels, no output written
printf 'old' >"$TMP/k-keep.hsaco"
expect_out cli/kernel/unknown-name 1 "^flyc: error: no kernel named 'rmsnorm_1024' in [^ ]*examples/rmsnorm.fly \(--kernel; its kernels: rmsnorm_4096, rmsnorm_8192\)$" -- \
	"$FLYC" "$rms" --kernel=rmsnorm_4096,rmsnorm_1024 -o "$TMP/k-keep.hsaco"
kcase unknown-name-output-untouched "old" "$(cat "$TMP/k-keep.hsaco")"
rm -f "$TMP/k-none.hsaco"
expect_out cli/kernel/glob-matches-nothing 1 "^flyc: error: no kernel matches 'gemm\*' in " -- \
	"$FLYC" "$rms" --kernel='gemm*' -o "$TMP/k-none.hsaco"
kcase glob-matches-nothing-no-output "absent" "$([ -e "$TMP/k-none.hsaco" ] && echo present || echo absent)"
expect_out cli/kernel/empty-name 1 "^flyc: error: empty kernel name in '--kernel=rmsnorm_4096,'" -- \
	"$FLYC" "$rms" --kernel=rmsnorm_4096, -o "$TMP/k-none.hsaco"
expect_out cli/kernel/missing-value 1 "^flyc: error: argument to '--kernel' is missing" -- "$FLYC" "$rms" --kernel
expect_out cli/kernel/not-for-arch 1 "^flyc: error: no kernel that --kernel selects is for --offload-arch=gfx1201" -- \
	"$FLYC" "$tgf" --offload-arch=gfx1201 --kernel=copy950 -o "$TMP/k-none.hsaco"
kcase errors-no-output "absent" "$([ -e "$TMP/k-none.hsaco" ] && echo present || echo absent)"
