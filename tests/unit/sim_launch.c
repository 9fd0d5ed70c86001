/*
 * sim_launch.c — tests of the simulator's library API (runtime/sim/sim.h):
 * launching clang-built kernels (compiled at test time), hidden arguments,
 * multi-dimensional launches, errors (kernarg size, wave32 code objects,
 * memory violations) and the statistics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "codeobj.h"
#include "sim/sim.h"

static char dir[256];
static CoObject *co;

static const char src[] =
	"#define GID ((int)(__builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x()))\n"
	"kernel void axpb(global int *o, int a, int b) { int i = GID; o[i] = a * i + b; }\n"
	"kernel void dims(global int *o) {\n"
	"  int x = __builtin_amdgcn_workitem_id_x(), y = __builtin_amdgcn_workitem_id_y();\n"
	"  int gx = __builtin_amdgcn_workgroup_id_x(), gy = __builtin_amdgcn_workgroup_id_y();\n"
	"  int w = __builtin_amdgcn_workgroup_size_x() * __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x();\n"
	"  o[(gy * __builtin_amdgcn_workgroup_size_y() + y) * w + gx * __builtin_amdgcn_workgroup_size_x() + x] = gx + 10 * gy + 100 * x + 1000 * y;\n"
	"}\n"
	"kernel void oob(global int *o) { o[GID + 64] = 1; }\n";

static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	return system(cmd);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc((size_t)len + 1);
	if (p && fread(p, 1, (size_t)len, f) != (size_t)len) { free(p); p = NULL; }
	fclose(f);
	*n = (size_t)len;
	return p;
}

static CoObject *build(const char *mcpu)
{
	char path[300], err[256];
	snprintf(path, sizeof path, "%s/k.cl", dir);
	FILE *f = fopen(path, "w");
	if (!f) return NULL;
	fputs(src, f);
	fclose(f);
	if (sh("%s/clang -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=%s -nogpulib -O2 -Wno-everything -c %s/k.cl -o %s/k.o && "
	       "%s/ld.lld -shared %s/k.o -o %s/k.hsaco", FLY_LLVM_BINDIR, mcpu, dir, dir, FLY_LLVM_BINDIR, dir, dir))
		return NULL;
	snprintf(path, sizeof path, "%s/k.hsaco", dir);
	size_t n;
	uint8_t *data = slurp(path, &n);
	if (!data) return NULL;
	CoObject *c = co_parse(data, n, err, sizeof err);
	free(data);
	return c;
}

static int setup(void **state)
{
	snprintf(dir, sizeof dir, "/tmp/flyc-simlaunch-XXXXXX");
	if (!mkdtemp(dir)) return -1;
	co = build("gfx950");
	return co ? 0 : -1;
}

static int teardown(void **state)
{
	co_free(co);
	sh("rm -rf %s", dir);
	return 0;
}

static void runs_a_kernel(void **state)
{
	SimDevice *d = sim_create(NULL);
	uint64_t o = sim_alloc(d, 1000 * 4);
	struct { uint64_t o; int32_t a, b; } ka = { o, 7, -3 };
	uint32_t grid[3] = { 10, 1, 1 }, block[3] = { 100, 1, 1 };   /* 100 = one full and one partial wave */
	char err[512];
	const CoKernel *k = co_find_kernel(co, "axpb");
	assert_non_null(k);
	int rc = sim_launch(d, co, k, grid, block, &ka, sizeof ka, err, sizeof err);
	if (rc) fprintf(stderr, "%s\n", err);
	assert_int_equal(rc, 0);
	int32_t out[1000];
	assert_int_equal(sim_read(d, o, out, sizeof out), 0);
	for (int i = 0; i < 1000; i++) assert_int_equal(out[i], 7 * i - 3);
	SimStats st;
	sim_last_stats(d, &st);
	assert_true(st.wave_instructions > 0 && st.lane_instructions > st.wave_instructions);
	/* a second launch of the same object reuses the decoded code */
	ka.a = 1; ka.b = 0;
	assert_int_equal(sim_launch(d, co, k, grid, block, &ka, sizeof ka, err, sizeof err), 0);
	assert_int_equal(sim_read(d, o + 999 * 4, out, 4), 0);
	assert_int_equal(out[0], 999);
	sim_destroy(d);
}

static void two_dimensions_and_hidden_args(void **state)
{
	SimConfig cfg = { 2, 0, 0, NULL };                                  /* two host threads */
	SimDevice *d = sim_create(&cfg);
	enum { GX = 3, GY = 2, BX = 8, BY = 4, W = GX * BX, H = GY * BY };
	uint64_t o = sim_alloc(d, W * H * 4);
	uint32_t grid[3] = { GX, GY, 1 }, block[3] = { BX, BY, 1 };
	char err[512];
	int rc = sim_launch(d, co, co_find_kernel(co, "dims"), grid, block, &o, sizeof o, err, sizeof err);
	if (rc) fprintf(stderr, "%s\n", err);
	assert_int_equal(rc, 0);
	int32_t out[W * H];
	assert_int_equal(sim_read(d, o, out, sizeof out), 0);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			assert_int_equal(out[y * W + x], x / BX + 10 * (y / BY) + 100 * (x % BX) + 1000 * (y % BY));
	sim_destroy(d);
}

static void errors(void **state)
{
	SimDevice *d = sim_create(NULL);
	uint64_t o = sim_alloc(d, 64 * 4);
	uint32_t grid[3] = { 1, 1, 1 }, block[3] = { 64, 1, 1 };
	char err[512];
	const CoKernel *k = co_find_kernel(co, "axpb");
	struct { uint64_t o; int32_t a, b; } ka = { o, 1, 2 };
	/* too few argument bytes */
	assert_int_equal(sim_launch(d, co, k, grid, block, &ka, 8, err, sizeof err), -1);
	assert_non_null(strstr(err, "needs 16"));
	/* workgroup too large */
	uint32_t big[3] = { 2048, 1, 1 };
	assert_int_equal(sim_launch(d, co, k, grid, big, &ka, sizeof ka, err, sizeof err), -1);
	assert_non_null(strstr(err, "exceeds"));
	uint32_t zero[3] = { 0, 1, 1 };
	assert_int_equal(sim_launch(d, co, k, zero, block, &ka, sizeof ka, err, sizeof err), -1);
	/* out of bounds: reported with kernel, workgroup, wave, lane and PC */
	assert_int_equal(sim_launch(d, co, co_find_kernel(co, "oob"), grid, block, &o, sizeof o, err, sizeof err), -1);
	assert_non_null(strstr(err, "memory violation: global write of 4 bytes"));
	assert_non_null(strstr(err, "lane 0"));
	assert_non_null(strstr(err, "kernel oob, workgroup (0,0,0), wave 0, PC oob+0x"));
	/* the device still works after a failed launch */
	assert_int_equal(sim_launch(d, co, k, grid, block, &ka, sizeof ka, err, sizeof err), 0);
	sim_destroy(d);
}

/* a gfx1201 code object runs in wave32 on a device that takes each code
 * object's architecture (the violation names a lane of 32 and the wave), and
 * a gfx950 device refuses it with a reason */
static void gfx1201_wave32(void **state)
{
	CoObject *c = build("gfx1201");
	assert_non_null(c);
	SimDevice *d = sim_create(NULL);
	uint64_t o = sim_alloc(d, 256);
	uint32_t grid[3] = { 1, 1, 1 }, block[3] = { 64, 1, 1 };
	char err[512];
	/* o[GID + 64] = 1 with 256 bytes: item 0 writes past the end first, in lane 0 of wave 0 */
	assert_int_equal(sim_launch(d, c, co_find_kernel(c, "oob"), grid, block, &o, sizeof o, err, sizeof err), -1);
	assert_non_null(strstr(err, "outside every allocation, lane 0,"));
	assert_non_null(strstr(err, "kernel oob, workgroup (0,0,0), wave 0, PC oob+0x"));
	sim_destroy(d);
	SimConfig cfg = { 1, 0, 0, "gfx950" };
	d = sim_create(&cfg);
	assert_non_null(d);
	assert_string_equal(sim_device_arch(d), "gfx950");
	o = sim_alloc(d, 1024);
	assert_int_equal(sim_launch(d, c, co_find_kernel(c, "oob"), grid, block, &o, sizeof o, err, sizeof err), -1);
	assert_non_null(strstr(err, "code object is for gfx1201, the device is gfx950"));
	sim_destroy(d);
	SimConfig bad = { 1, 0, 0, "gfx942" };
	assert_null(sim_create(&bad));
	co_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(runs_a_kernel),
		cmocka_unit_test(two_dimensions_and_hidden_args),
		cmocka_unit_test(errors),
		cmocka_unit_test(gfx1201_wave32),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
