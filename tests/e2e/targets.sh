# tests/e2e/targets.sh — sourced by tests/e2e/run.sh: every example and stdlib kernel compiles
# for gfx950 and for gfx1201 (a file whose every kernel's targets(...) excludes an arch must
# say so), the AMDGPU metadata note is valid (target, wave size, one .name/.symbol per kernel
# of .flyc.meta), and rebuilding (another directory, another output name) is byte-identical.
LLVM=$(llvm-config-22 --bindir)
for f in examples/*.fly stdlib/*.fly; do
	grep -Eq '^[[:space:]]*(kernel|export)[[:space:]]' "$f" || continue
	for arch in gfx950 gfx1201; do
		ws=64; [ $arch = gfx1201 ] && ws=32
		t="targets: $f compiles for $arch with valid metadata"
		o="$TMP/tg-$arch.hsaco"
		rm -f "$o"
		# a link to a stdlib/ops file (examples/gemm_bf16.fly): make compiled that file with this
		# flyc for the arches of its OPS_LIB entries; its code object is the one checked (the
		# plain build's rebuild below compiles the example itself and must give the same bytes)
		lib=
		case "$(readlink "$f" 2>/dev/null)" in
		../stdlib/ops/*.fly) lib=$B/lib/flyc/kernels/$arch/$(basename "$(readlink "$f")" .fly).hsaco ;;
		esac
		if [ -n "$lib" ] && [ -f "$lib" ] && [ "$lib" -nt "$FLYC" ]; then
			cp "$lib" "$o"
		elif ! "$FLYC" "$f" --offload-arch=$arch -O3 -o "$o" 2>"$TMP/tg.err"; then
			if grep -q "no kernel of this file is for --offload-arch=$arch" "$TMP/tg.err" &&
			   grep -q 'targets(' "$f" && ! grep -Eq "targets\([^)]*$arch" "$f"; then
				pass "targets: $f: every kernel is excluded for $arch by targets(...) (a clear error)"
			elif grep -q "not supported by code generation yet" "$TMP/tg.err"; then
				echo "SKIP: $t (code generation pending: $(grep -m1 'error:' "$TMP/tg.err" | sed 's/.*error: //'))"
			else
				fail "$t" "$(head -n 5 "$TMP/tg.err")"
			fi
			continue
		fi
		"$LLVM/llvm-objcopy" --dump-section=.flyc.meta="$TMP/tg.meta" "$o" "$TMP/tg.junk" 2>"$TMP/tg.err"
		"$LLVM/llvm-readelf" --notes "$o" >"$TMP/tg.notes" 2>>"$TMP/tg.err"
		why=
		grep -q "amdhsa.target: *amdgcn-amd-amdhsa--$arch" "$TMP/tg.notes" || why="no amdhsa.target for $arch"
		grep -q "\.wavefront_size: *$ws\$" "$TMP/tg.notes" || why="$why; wavefront_size is not $ws"
		nk=$(grep -c '^kernel ' "$TMP/tg.meta" 2>/dev/null)
		[ "${nk:-0}" -ge 1 ] || why="$why; .flyc.meta lists no kernel"
		for k in $(sed -n 's/^kernel //p' "$TMP/tg.meta"); do
			grep -q "^    \.name: *$k\$" "$TMP/tg.notes" && grep -q "\.symbol: *$k\.kd\$" "$TMP/tg.notes" ||
				why="$why; kernel $k missing from the note"
		done
		[ "$(grep -c '\.symbol:' "$TMP/tg.notes")" = "$nk" ] || why="$why; note and .flyc.meta disagree on the kernel count"
		if [ -z "$why" ]; then pass "$t"; else fail "$t" "$why" "$(cat "$TMP/tg.err")"; fi
		# determinism: another working directory and output name give the same bytes (the plain
		# build only: ASan fills fresh heap memory with a fixed byte, which would hide a
		# dependence on uninitialized memory that the plain build's rebuild can show)
		[ "$FLY_SAN" = 1 ] && continue
		mkdir -p "$TMP/tg-re"
		if (cd "$TMP/tg-re" && "$FLYC" "$FLY_TOP/$f" --offload-arch=$arch -O3 -o again.hsaco 2>/dev/null) &&
		   cmp -s "$o" "$TMP/tg-re/again.hsaco"; then
			pass "targets: $f for $arch: a rebuild is byte-identical"
		else
			fail "targets: $f for $arch: a rebuild is byte-identical" "$(cmp "$o" "$TMP/tg-re/again.hsaco" 2>&1)"
		fi
	done
done
