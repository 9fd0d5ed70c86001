#!/bin/sh
# tests/install/run.sh — `make install PREFIX=...` into a temporary prefix, then, outside
# the source tree: the installed flyc compiles a kernel that imports gfx950 from the
# installed stdlib; the installed header and library build and run a tiny C program on the
# simulator; the installed python/flyrt.py finds the installed libflyrt.so; the installed
# flyc package (PYTHONPATH=PREFIX/share/flyc/python) runs flyc.ops.mm on the installed
# kernel library; a small CMake project (find_package(flyc), flyc_add_kernels with a
# depfile) and pkg-config builds (flyrt, flyrt-static) consume the installed tree.
. "$FLY_TOP/tests/lib.sh"
cd "$FLY_TOP" || exit 2
P=$TMP/prefix
SANFLAGS=
[ "$FLY_SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
sanopt=
[ "$FLY_SAN" = 1 ] && sanopt="SAN=1"
CC=${CC:-cc}

if FLY_SKIP_DEPS=1 make --no-print-directory BUILD="$FLY_BUILD" $sanopt PREFIX="$P" install \
	>"$TMP/make.log" 2>&1; then
	pass "install: make install PREFIX=<tmp>"
else
	fail "install: make install PREFIX=<tmp>" "$(tail -n 20 "$TMP/make.log")"
	exit 0
fi
missing=
for f in bin/flyc bin/flyc-sim bin/flyc-tune lib/libflyrt.a lib/libflyrt.so include/flyrt.h \
	include/flyops.h share/flyc/stdlib/gfx950.fly share/flyc/stdlib/gfx1201.fly \
	share/flyc/stdlib/ops/gemm.fly share/flyc/python/flyrt.py share/flyc/python/flyc/__init__.py \
	share/flyc/python/flyc/ops.py share/flyc/python/flyc/torch.py lib/flyc/kernels/gfx950/gemm.hsaco \
	lib/flyc/kernels/gfx1201/gemm.hsaco lib/cmake/flyc/flycConfig.cmake \
	lib/cmake/flyc/flycConfigVersion.cmake lib/pkgconfig/flyrt.pc lib/pkgconfig/flyrt-static.pc; do
	[ -f "$P/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then pass "install: binaries, libraries, header, stdlib and python/flyrt.py installed"
else fail "install: files installed" "missing:$missing"; fi

# a kernel outside the source tree, importing gfx950 from the installed stdlib; the
# installed flyc is copied nowhere else, so only PREFIX/share/flyc/stdlib can serve it
W=$TMP/work
mkdir -p "$W"
cat >"$W/k.fly" <<'FLY'
import gfx950;

kernel fill(out: global f32[(N):(1)], v: f32, N: i32)
  block(gfx950.WAVE_SIZE) grid(ceil_div(N, gfx950.WAVE_SIZE))
{
  let i = block.x * gfx950.WAVE_SIZE + thread.x;
  if i < N { out[i] = v + convert<f32>(i); }
}
FLY
if (cd "$W" && env -u FLY_STDLIB "$P/bin/flyc" k.fly --offload-arch=gfx950 -o k.hsaco -MD \
	2>"$TMP/flyc.err") && [ -s "$W/k.hsaco" ]; then
	if grep -q "$P/share/flyc/stdlib/gfx950.fly" "$W/k.d" 2>/dev/null ||
	   grep -q "share/flyc/stdlib/gfx950.fly" "$W/k.d" 2>/dev/null; then
		pass "install: the installed flyc imports gfx950 from PREFIX/share/flyc/stdlib"
	else
		fail "install: the installed flyc imports gfx950 from PREFIX/share/flyc/stdlib" \
			"depfile: $(cat "$W/k.d" 2>/dev/null)"
	fi
else
	fail "install: the installed flyc compiles a kernel importing gfx950" "$(cat "$TMP/flyc.err")"
fi

cat >"$W/main.c" <<'C'
#include <stdio.h>
#include "flyrt.h"
int main(int argc, char **argv)
{
	flyrt_device *dev;
	flyrt_module *mod;
	flyrt_kernel *k;
	flyrt_deviceptr d;
	enum { N = 200 };
	float out[N];
	int bad = 0;
	if (argc != 2 || flyrt_device_open("sim", &dev) || flyrt_module_load_file(dev, argv[1], &mod) ||
	    flyrt_module_get_kernel(mod, "fill", &k) || flyrt_malloc(dev, sizeof out, &d)) {
		printf("setup failed: %s\n", flyrt_last_error());
		return 1;
	}
	flyrt_arg a[3] = { flyrt_arg_ptr(d), flyrt_arg_f32(0.5f), flyrt_arg_i32(N) };
	if (flyrt_launch(k, NULL, a, 3) || flyrt_memcpy_dtoh(dev, out, d, sizeof out)) {
		printf("launch failed: %s\n", flyrt_last_error());
		return 1;
	}
	for (int i = 0; i < N; i++)
		bad += out[i] != 0.5f + (float)i;
	printf("%d bad\n", bad);
	flyrt_free(dev, d);
	flyrt_module_unload(mod);
	flyrt_device_close(dev);
	return bad != 0;
}
C
if $CC -std=c11 -O1 $SANFLAGS -Wall -Werror -I"$P/include" "$W/main.c" "$P/lib/libflyrt.a" \
	$(llvm-config-22 --ldflags --libs --system-libs) -lsqlite3 -lm -lpthread -ldl -o "$W/main" 2>"$TMP/cc.err"; then
	pass "install: the installed flyrt.h and libflyrt.a build a C program"
	if (cd "$W" && unset FLY_DEVICE && ./main k.hsaco >"$TMP/run.out" 2>&1); then
		pass "install: that program runs the installed flyc's kernel on the simulator correctly"
	else
		fail "install: that program runs the installed flyc's kernel on the simulator correctly" "$(cat "$TMP/run.out")"
	fi
else
	fail "install: the installed flyrt.h and libflyrt.a build a C program" "$(cat "$TMP/cc.err")"
fi

if [ "$FLY_SAN" = 1 ]; then
	echo "SKIP: install: installed python/flyrt.py (sanitized libflyrt.so needs LD_PRELOAD; covered by the normal build)"
elif (cd "$W" && unset FLYRT_LIB FLY_DEVICE && python3 -c "
import sys; sys.path.insert(0, '$P/share/flyc/python')
import flyrt, array
d = flyrt.Device('sim'); k = d.load('k.hsaco').kernel('fill')
out = array.array('f', [0.0] * 70); k(out, 2.0, 70)
assert list(out) == [2.0 + i for i in range(70)], list(out)[:8]
assert flyrt._lib._name.startswith('$P/'), flyrt._lib._name
" >"$TMP/py.out" 2>&1); then
	pass "install: the installed python/flyrt.py finds PREFIX/lib/libflyrt.so and runs the kernel"
else
	fail "install: the installed python/flyrt.py finds PREFIX/lib/libflyrt.so and runs the kernel" "$(tail -n 8 "$TMP/py.out")"
fi

# ---- the operator library from the installed tree ----------------------------------
if [ "$FLY_SAN" = 1 ]; then
	echo "SKIP: install: installed flyc package (sanitized libflyrt.so; covered by the normal build)"
elif ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
	echo "SKIP: install: installed flyc package (no torch for /usr/bin/python3)"
elif (cd "$W" && env -u FLYRT_LIB -u FLY_DEVICE -u FLYC_KERNEL_DIR -u FLYC_TUNING_DB \
	PYTHONPATH="$P/share/flyc/python" /usr/bin/python3 -c "
import flyc, torch
assert flyc.__file__.startswith('$P/'), flyc.__file__
assert flyc.context().kernel_dir == '$P/lib/flyc/kernels', flyc.context().kernel_dir
g = torch.Generator().manual_seed(1)
a = torch.randint(-3, 4, (128, 64), generator=g).to(torch.bfloat16)
b = torch.randint(-3, 4, (128, 64), generator=g).to(torch.bfloat16)
c = flyc.ops.mm(a, b.t())
assert torch.equal(c, (a.double() @ b.double().t()).to(torch.bfloat16))
assert flyc.context().launches == 1
" >"$TMP/flyc.out" 2>&1); then
	pass "install: PYTHONPATH=PREFIX/share/flyc/python: flyc.ops.mm runs the installed kernel library"
else
	fail "install: PYTHONPATH=PREFIX/share/flyc/python: flyc.ops.mm runs the installed kernel library" "$(tail -n 8 "$TMP/flyc.out")"
fi

# a consumer: a kernel importing a module of its own (-I), and the operator API
C=$TMP/consumer
mkdir -p "$C/inc"
printf 'const VALUE = 1.5;\n' >"$C/inc/consts.fly"
cat >"$C/k.fly" <<'FLY'
import gfx950;
import consts;

kernel fill(out: global f32[(N):(1)], N: i32)
  block(gfx950.WAVE_SIZE) grid(ceil_div(N, gfx950.WAVE_SIZE))
{
  let i = block.x * gfx950.WAVE_SIZE + thread.x;
  if i < N { out[i] = consts.VALUE + convert<f32>(i); }
}
FLY
cat >"$C/app.c" <<'CC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flyops.h"
/* app CODEOBJ VALUE: the consumer's kernel, then flyc's own mm operator */
int main(int argc, char **argv)
{
	flyops_context *ctx;
	flyops_options o = { "sim", getenv("APP_KERNEL_DIR"), "" };
	flyrt_module *mod;
	flyrt_kernel *k;
	flyrt_deviceptr d;
	float out[100];
	int bad = 0;
	if (argc != 3 || flyops_create(&o, &ctx) || flyrt_module_load_file(flyops_device(ctx), argv[1], &mod) ||
	    flyrt_module_get_kernel(mod, "fill", &k) || flyrt_malloc(flyops_device(ctx), sizeof out, &d)) {
		printf("setup failed: %s\n", flyrt_last_error());
		return 1;
	}
	flyrt_arg a[2] = { flyrt_arg_ptr(d), flyrt_arg_i32(100) };
	if (flyrt_launch(k, NULL, a, 2) || flyrt_memcpy_dtoh(flyops_device(ctx), out, d, sizeof out)) {
		printf("launch failed: %s\n", flyrt_last_error());
		return 1;
	}
	for (int i = 0; i < 100; i++)
		bad += out[i] != (float)atof(argv[2]) + (float)i;
	/* mm: ones(128, 64) @ ones(64, 128) = 64 everywhere (bf16 0x4280) */
	static uint16_t pa[128 * 64], pb[64 * 128], pc[128 * 128];
	for (int i = 0; i < 128 * 64; i++)
		pa[i] = pb[i] = 0x3f80;
	int64_t sa[2] = { 128, 64 }, sb[2] = { 64, 128 }, tb[2] = { 1, 64 }, sc[2] = { 128, 128 };
	DLDataType bf = { kDLBfloat, 16, 1 };
	DLTensor A = { pa, { kDLCPU, 0 }, 2, bf, sa, NULL, 0 }, B = { pb, { kDLCPU, 0 }, 2, bf, sb, tb, 0 };
	DLTensor Cc = { pc, { kDLCPU, 0 }, 2, bf, sc, NULL, 0 };
	flyops_exec ex;
	memset(&ex, 0, sizeof ex);
	if (flyops_mm(ctx, &A, &B, NULL, &Cc, &ex)) {
		printf("mm failed: %s\n", flyrt_last_error());
		return 1;
	}
	for (int i = 0; i < 128 * 128; i++)
		bad += pc[i] != 0x4280;
	printf("%d bad, mm ran %s from %s\n", bad, ex.chosen, flyops_kernel_dir(ctx));
	flyrt_free(flyops_device(ctx), d);
	flyrt_module_unload(mod);
	flyops_destroy(ctx);
	return bad != 0;
}
CC
cat >"$C/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(flyc_consumer C)
find_package(flyc 0.1 REQUIRED)
flyc_add_kernels(consumer_kernels SOURCES k.fly ARCHS gfx950 INCLUDE_DIRS inc)
add_executable(app app.c)
target_link_libraries(app PRIVATE flyc::flyrt)
add_dependencies(app consumer_kernels)
add_executable(app_static app.c)
target_link_libraries(app_static PRIVATE flyc::flyrt_static)
get_target_property(dir consumer_kernels FLYC_OUTPUT_DIR)
file(WRITE "${CMAKE_BINARY_DIR}/kernels.txt" "${dir}/gfx950/k.hsaco\n${FLYC_KERNEL_DIR}\n")
CMAKE
cmk_flags=
[ "$FLY_SAN" = 1 ] && cmk_flags="-DCMAKE_C_FLAGS=$SANFLAGS"
if ! command -v cmake >/dev/null 2>&1; then
	echo "SKIP: install: CMake consumer (no cmake)"
elif (cd "$C" && env -u FLY_DEVICE cmake -S . -B build -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$CC" \
	"$cmk_flags" >"$TMP/cmake.log" 2>&1 && cmake --build build >>"$TMP/cmake.log" 2>&1); then
	pass "install: a CMake project builds against the installed tree (find_package(flyc), flyc_add_kernels)"
	co=$(sed -n 1p "$C/build/kernels.txt") kd=$(sed -n 2p "$C/build/kernels.txt")
	if [ "$kd" = "$P/lib/flyc/kernels" ] && [ -s "$co" ] &&
	   (cd "$C" && env -u FLY_DEVICE -u FLYC_KERNEL_DIR ./build/app "$co" 1.5 >"$TMP/app.out" 2>&1) &&
	   grep -q "^0 bad, mm ran gemm_nt_128x128 from $P/lib/flyc/kernels" "$TMP/app.out"; then
		pass "install: its program runs its kernel and flyc's mm (kernels found beside the installed libflyrt.so)"
	else
		fail "install: its program runs its kernel and flyc's mm (kernels found beside the installed libflyrt.so)" "$kd $co" "$(cat "$TMP/app.out")"
	fi
	if (cd "$C" && env -u FLY_DEVICE APP_KERNEL_DIR="$kd" ./build/app_static "$co" 1.5 >"$TMP/apps.out" 2>&1) &&
	   grep -q "^0 bad, mm ran gemm_nt_128x128" "$TMP/apps.out"; then
		pass "install: flyc::flyrt_static links and runs (FLYC_KERNEL_DIR from the package)"
	else
		fail "install: flyc::flyrt_static links and runs (FLYC_KERNEL_DIR from the package)" "$(cat "$TMP/apps.out")"
	fi
	# the depfile: a changed imported module rebuilds the code object; nothing else does
	before=$(cksum <"$co")
	sleep 1
	(cd "$C" && cmake --build build >"$TMP/noop.log" 2>&1)
	if grep -q "flyc k.fly for gfx950" "$TMP/noop.log"; then
		fail "install: an up-to-date build runs no flyc" "$(cat "$TMP/noop.log")"
	else
		pass "install: an up-to-date build runs no flyc"
	fi
	printf 'const VALUE = 2.5;\n' >"$C/inc/consts.fly"
	if (cd "$C" && cmake --build build >"$TMP/dep.log" 2>&1) && grep -q "flyc k.fly for gfx950" "$TMP/dep.log" &&
	   [ "$(cksum <"$co")" != "$before" ] &&
	   (cd "$C" && env -u FLY_DEVICE -u FLYC_KERNEL_DIR ./build/app "$co" 2.5 >"$TMP/app2.out" 2>&1); then
		pass "install: changing an imported module rebuilds the kernel (flyc_add_kernels' depfile)"
	else
		fail "install: changing an imported module rebuilds the kernel (flyc_add_kernels' depfile)" "$(cat "$TMP/dep.log" "$TMP/app2.out" 2>&1)"
	fi
else
	fail "install: a CMake project builds against the installed tree (find_package(flyc), flyc_add_kernels)" "$(tail -n 30 "$TMP/cmake.log")"
fi
mkdir -p "$TMP/v"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(x C)\nfind_package(flyc 0.9 REQUIRED)\n' >"$TMP/v/CMakeLists.txt"
if command -v cmake >/dev/null 2>&1; then
	if (cd "$TMP/v" && cmake -S . -B b -DCMAKE_PREFIX_PATH="$P" >"$TMP/v.log" 2>&1); then
		fail "install: find_package(flyc 0.9) refuses an older flyc" "$(tail -n 5 "$TMP/v.log")"
	else
		pass "install: find_package(flyc 0.9) refuses an older flyc"
	fi
fi

# pkg-config: shared (with an rpath) and static
if ! command -v pkg-config >/dev/null 2>&1; then
	echo "SKIP: install: pkg-config (not installed)"
else
	export PKG_CONFIG_PATH="$P/lib/pkgconfig"
	co=$C/build/consumer_kernels/gfx950/k.hsaco
	if $CC -std=c11 $SANFLAGS $(pkg-config --cflags flyrt) "$C/app.c" $(pkg-config --libs flyrt) \
		-Wl,-rpath,"$(pkg-config --variable=libdir flyrt)" -o "$TMP/app_pc" 2>"$TMP/pc.err" &&
	   (env -u FLY_DEVICE -u FLYC_KERNEL_DIR "$TMP/app_pc" "$co" 2.5 >"$TMP/pc.out" 2>&1) &&
	   grep -q "^0 bad, mm ran gemm_nt_128x128 from $P/lib/flyc/kernels" "$TMP/pc.out"; then
		pass "install: pkg-config flyrt builds and runs a program"
	else
		fail "install: pkg-config flyrt builds and runs a program" "$(cat "$TMP/pc.err" "$TMP/pc.out" 2>&1)"
	fi
	if $CC -std=c11 $SANFLAGS $(pkg-config --cflags flyrt-static) "$C/app.c" $(pkg-config --libs flyrt-static) \
		-o "$TMP/app_pcs" 2>"$TMP/pcs.err" &&
	   (env -u FLY_DEVICE APP_KERNEL_DIR="$(pkg-config --variable=kerneldir flyrt-static)" \
		"$TMP/app_pcs" "$co" 2.5 >"$TMP/pcs.out" 2>&1) && grep -q "^0 bad" "$TMP/pcs.out"; then
		pass "install: pkg-config flyrt-static builds and runs a program"
	else
		fail "install: pkg-config flyrt-static builds and runs a program" "$(cat "$TMP/pcs.err" "$TMP/pcs.out" 2>&1)"
	fi
fi
exit 0
