# CLI tests of `flyc eval` and `flyc show` (the layout algebra engine).
# Expected results are CuTe's (checked by hand from the definitions in
# docs/layout-algebra.md and against NVIDIA CuTe).
. "$FLY_TOP/tests/lib.sh"

# expect_eval NAME EXPR EXPECTED: exact output, exit status 0
expect_eval() {
	name=$1 expr=$2 want=$3
	out=$("$FLYC" eval "$expr" 2>&1); rc=$?
	if [ "$rc" != 0 ] || [ "$out" != "$want" ]; then
		fail "$name" "flyc eval '$expr'" "got (exit $rc): $out" "want: $want"
	else
		pass "$name"
	fi
}

expect_eval eval/composition-issue 'composition((6,2):(8,2), (4,3):(3,1))' '((2,2),3):((24,2),8)'
expect_eval eval/integer '4 * (3 + 5) - 7 % 4' '29'
expect_eval eval/ceil-div 'ceil_div(17, 4)' '5'
expect_eval eval/tuple '(4,(2,3))' '(4,(2,3))'
expect_eval eval/rank1-tuple '(4,)' '(4)'
expect_eval eval/size 'size((4,(2,3)))' '24'
expect_eval eval/tiler-plain-shape 'zipped_divide((8,8):(1,8), (4,2))' '((4,2),(2,4)):((1,8),(4,16))'
expect_eval eval/tiler-bracket 'zipped_divide((8,8):(1,8), [4:1,(2,2):(1,4)])' '((4,(2,2)),(2,2)):((1,(8,32)),(4,16))'
expect_eval eval/apply-int '((4,8):(1,4))(5)' '5'
# 5 -> coordinate (1,1) -> 1*8 + 1*1
expect_eval eval/apply-int-nocolon '(4,8):(8,1)(5)' '9'
expect_eval eval/apply-coord '((4,8):(8,1))((1,2))' '10'
expect_eval eval/swizzle 'swizzle(3,3,3) o (8,64):(64,1)' 'Sw<3,3,3> o 0 o (8,64):(64,1)'
# (1,8) -> 72 = 0b1001000; bits 6..8 (= 1) xor into bits 3..5: 72 ^ 8 = 64
expect_eval eval/swizzle-apply '(swizzle(3,3,3) o (8,64):(64,1))((1,8))' '64'
expect_eval eval/complement 'complement(4:2, 24)' '(2,3):(1,8)'
expect_eval eval/local-tile 'local_tile((8,8):(1,8), (4,4), (1,1))' '36 o (4,4):(1,8)'
expect_eval eval/symbolic 'local_tile((M,K):(K,1), (128,64), (bm,bk))' 'bm*(K*128)+bk*64 o (128,64):(K,1)'

# CuTe's rank-1 rule (issue 13): (x) is a rank-1 tuple, not x.  Results are
# NVIDIA CuTe's (printed by cute::print, underscores of static ints removed).
expect_eval rank1/paren '(4)' '(4)'
expect_eval rank1/paren-arith '(3+5)*4' '32'
expect_eval rank1/composition-rank1-rhs 'composition((4,3):(3,1),(12):(1))' '((4,3)):((3,1))'
expect_eval rank1/composition-rank1-both 'composition((4):(1),(4):(2))' '(4):(2)'
expect_eval rank1/composition-int-vs-rank1 'composition((4):(1),4:2)' '4:2'
expect_eval rank1/logical-product 'logical_product((3):(1),(2,4):(1,2))' '((3),(2,4)):((1),(3,6))'
expect_eval rank1/depth 'depth(((8)):((1)))' '2'
expect_eval rank1/depth-int 'depth(8:1)' '0'
expect_eval rank1/depth-rank1 'depth((8):(1))' '1'
expect_eval rank1/rank 'rank(((4,2)):((1,4)))' '1'
expect_eval rank1/rank-int 'rank(8)' '1'
expect_eval rank1/zipped-divide-rank1-tiler 'zipped_divide((5,3):(1,5),(10))' '((10),(1,3)):((1),(0,5))'
expect_eval rank1/tiled-divide-rank1-tiler 'tiled_divide((4,16):(12,8),(8))' '((8),1,16):((12),0,8)'
expect_eval rank1/composition-rank1-tiler 'composition((2,1,2):(2,1,1),(4))' '(4):(2)'
expect_eval rank1/flat-product 'flat_product((2,2):(4,2),(3))' '((2),3,2):((4),1,2)'

# preconditions CuTe states but does not check: located errors here
expect_out domain/complement-negative-stride 1 "^error: complement: negative stride" -- "$FLYC" eval 'complement(4:-1, 8)'
expect_out domain/left-inverse-non-injective 1 "^error: left_inverse: non-injective layout" -- "$FLYC" eval 'left_inverse((2,2):(1,1))'
expect_out domain/divide-tiler-non-injective 1 "^error: complement: non-injective layout" -- "$FLYC" eval 'logical_divide(16:1, (2,2):(1,1))'
expect_out domain/product-negative 1 "^error: complement: negative stride" -- "$FLYC" eval 'logical_product(4:-1, 2:1)'

# several expressions, one result per line
out=$("$FLYC" eval 'size(8:1)' 'cosize((4,8):(1,5))' 'rank((2,(3,4)))' 2>&1)
if [ "$out" = "$(printf '8\n39\n2')" ]; then pass eval/multiple; else fail eval/multiple "$out"; fi

# stdin, comments, let and assume
out=$(printf '%s\n' '# comment' 'let L = (4,8):(8,1)' 'L(5)' 'assume K % 64 == 0' '(K*8)/4' '' 'coalesce(L)' | "$FLYC" eval 2>&1); rc=$?
if [ "$rc" = 0 ] && [ "$out" = "$(printf '9\nK*2\n(4,8):(8,1)')" ]; then pass eval/stdin; else fail eval/stdin "exit $rc" "$out"; fi

# a failing line prints error: ... in its place and the exit status is 1
out=$("$FLYC" eval 'size(4:1)' 'complement((2,2):(1,1))' 'size(2:1)' 2>&1); rc=$?
if [ "$rc" = 1 ] && [ "$out" = "$(printf '4\nerror: complement: non-injective layout ((2,2):(1,1))\n2')" ]; then
	pass eval/error-line
else
	fail eval/error-line "exit $rc" "$out"
fi
expect_out eval/error-divisibility 1 "^error: composition: stride divisibility condition violated" -- "$FLYC" eval 'composition((4,3):(3,1), 2:6)'
expect_out eval/error-syntax 1 "^error: col 9: unexpected end" -- "$FLYC" eval 'size((4,'
expect_out eval/error-unknown-op 1 "^error: col 1: unknown operation 'frobnicate'" -- "$FLYC" eval 'frobnicate(1)'
expect_out eval/help 0 "^USAGE: flyc eval" -- "$FLYC" eval --help

# flyc show: offset grid like cute::print_layout
out=$("$FLYC" show '(2,3):(3,1)' 2>&1)
want='(2,3):(3,1)
      0   1   2 
    +---+---+---+
 0  | 0 | 1 | 2 |
    +---+---+---+
 1  | 3 | 4 | 5 |
    +---+---+---+'
if [ "$out" = "$want" ]; then pass show/grid; else fail show/grid "$out"; fi

# thread-value grid: 2x2 threads (row-major) with 2x2 values each (row-major):
# raked_product gives thread t the 2x2 block at rows 2*(t/2).., columns 2*(t%2)..
out=$("$FLYC" show 'make_layout_tv((2,2):(2,1), (2,2):(2,1))' 2>&1); rc=$?
if [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q '^ 0  | T0V0 | T0V1 | T1V0 | T1V1 |$' \
   && printf '%s\n' "$out" | grep -q '^ 3  | T2V2 | T2V3 | T3V2 | T3V3 |$'; then
	pass show/tv-grid
else
	fail show/tv-grid "$out"
fi

# SVG: written atomically, one colored cell per element
"$FLYC" show --svg "$TMP/tv.svg" 'make_layout_tv((2,2):(2,1), (2,2):(2,1))' >/dev/null 2>&1; rc=$?
if [ "$rc" = 0 ] && head -n 1 "$TMP/tv.svg" | grep -q '^<svg ' && [ "$(grep -c '<rect ' "$TMP/tv.svg")" = 16 ] \
   && grep -q '>T3V3<' "$TMP/tv.svg" && tail -n 1 "$TMP/tv.svg" | grep -q '^</svg>$'; then
	pass show/svg
else
	fail show/svg "exit $rc"
fi
"$FLYC" show --svg "$TMP/bad.svg" 'complement((2,2):(1,1))' >/dev/null 2>&1; rc=$?
if [ "$rc" = 1 ] && [ ! -e "$TMP/bad.svg" ] && [ ! -e "$TMP/bad.svg.tmp" ]; then pass show/svg-no-partial-file; else fail show/svg-no-partial-file "exit $rc"; fi

# banks: a 32x32 fp32 tile stored column-major, read row by row with
# ds_read_b32 on gfx1201 (32 banks x 4 B): every lane of a row hits the
# same bank -> 32-way conflicts on each of the 32 accesses.
out=$("$FLYC" show --banks=4 --arch=gfx1201 --vec=4 '(32,32):(1,32)' 2>&1)
if printf '%s\n' "$out" | grep -q '^access 0 phase 0: 32-way conflict' \
   && printf '%s\n' "$out" | grep -q '^summary: 32 access(es) x 1 phase(s), conflicts, 992 extra cycle(s)'; then
	pass show/banks-column-major-conflicts
else
	fail show/banks-column-major-conflicts "$out"
fi
# row-major: conflict-free
expect_out show/banks-row-major-free 0 "conflict-free, 0 extra" -- "$FLYC" show --banks=4 --arch=gfx1201 --vec=4 '(32,32):(32,1)'
# gfx950, bf16, 8 rows of 32 elements (64 B used) at a 128-B row pitch, read
# with ds_read_b128 (4 lanes per row): row m starts at bank 32*m mod 64, so
# even rows use banks 0-15 and odd rows 32-47.  Phase 0 = lanes 0-3,12-15,20-27
# = rows 0,3,5,6: rows 0/6 and 3/5 collide (2-way); phase 1 = rows 1,2,4,7 too.
# Swizzle(1,5,2) moves rows with bit 1 set by 32 elements (16 banks): free.
out=$("$FLYC" show --banks=2 '(8,32):(64,1)' 2>&1)
if printf '%s\n' "$out" | grep -q '^access 0 phase 0: 2-way conflict' && printf '%s\n' "$out" | grep -q '^access 0 phase 1: 2-way conflict' \
   && ! printf '%s\n' "$out" | grep -q '^access 0 phase 2'; then
	pass show/banks-gfx950-b128-conflict
else
	fail show/banks-gfx950-b128-conflict "$out"
fi
expect_out show/banks-gfx950-b128-dense-free 0 "conflict-free" -- "$FLYC" show --banks=2 '(8,32):(32,1)'
expect_out show/banks-gfx950-swizzled 0 "conflict-free" -- "$FLYC" show --banks=2 'swizzle(1,5,2) o (8,32):(64,1)'
# the bank of element (1,0) of a bf16 (8,64):(64,1) tile: byte 128 -> bank 32
out=$("$FLYC" show --banks=2 '(8,64):(64,1)' 2>&1)
if printf '%s\n' "$out" | grep -q '^ 1  | 32 | 32 | 33 '; then pass show/banks-map; else fail show/banks-map "$out"; fi
expect_out show/banks-unknown-arch 1 "unknown architecture 'gfx900'" -- "$FLYC" show --banks=2 --arch=gfx900 '(8,8):(8,1)'
expect_out show/rank3-refused 1 "rank-1 or rank-2" -- "$FLYC" show '(2,2,2):(1,2,4)'

# Every example in docs/layout-algebra.md evaluates to the result it states:
# indented "EXPR   RESULT" lines and table cells "`EXPR` = `RESULT`".
doc="$FLY_TOP/docs/layout-algebra.md"
awk '/^    [^ $]/ { line=substr($0,5); if (line ~ /:=/) next; n=match(line, /   +/);
	if (n) { expr=substr(line,1,n-1); rest=substr(line,n+RLENGTH); sub(/   +#.*/, "", rest); print expr "\t" rest } }' "$doc" > "$TMP/ex.tsv"
grep -o '`[^`]*` = `[^`]*`' "$doc" | sed 's/^`\([^`]*\)` = `\([^`]*\)`$/\1	\2/' >> "$TMP/ex.tsv"
cut -f1 "$TMP/ex.tsv" | "$FLYC" eval > "$TMP/ex.out" 2>&1
n=$(wc -l < "$TMP/ex.tsv")
bad=$(paste "$TMP/ex.tsv" "$TMP/ex.out" | awk -F'\t' '$2 != $3 {print $1 " -> " $3 " (doc says " $2 ")"}')
if [ "$n" -ge 80 ] && [ -z "$bad" ]; then
	pass "docs/examples ($n)"
else
	fail "docs/examples" "$n examples" "$bad"
fi

# flyc eval against NVIDIA CuTe itself (tests/layout/oracle/, docs/testing.md)
. "$FLY_TOP/tests/layout/oracle/compare.sh"
