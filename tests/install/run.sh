#!/bin/sh
# tests/install/run.sh — `make install PREFIX=...` into a temporary prefix, then, outside
# the source tree: the installed flyc compiles a kernel that imports gfx950 from the
# installed stdlib; the installed header and library build and run a tiny C program on the
# simulator; the installed python/flyrt.py finds the installed libflyrt.so.
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
for f in bin/flyc bin/flyc-sim lib/libflyrt.a lib/libflyrt.so include/flyrt.h \
	share/flyc/stdlib/gfx950.fly share/flyc/stdlib/gfx1201.fly share/flyc/python/flyrt.py; do
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
	$(llvm-config-22 --ldflags --libs --system-libs) -lm -lpthread -ldl -o "$W/main" 2>"$TMP/cc.err"; then
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
exit 0
