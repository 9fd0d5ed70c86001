/*
 * rt_e2e.c — end-to-end test of libflyrt from C: load a code object built from
 * tests/runtime/kernels/rt.cl (with rt.meta as its .flyc.meta section), run kernels
 * on the device FLY_DEVICE names (the simulator here) and compare with CPU references.
 * Prints one PASS:/FAIL: line per check (tests/lib.sh convention).
 * usage: rt_e2e CODEOBJ TUNING_TABLE
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt.h"

static int failures;

static void
report(int ok, const char *name, const char *detail)
{
	if (ok) {
		printf("PASS: %s\n", name);
	} else {
		printf("FAIL: %s\n    %s\n", name, detail);
		failures++;
	}
}

#define CHECK_ST(name, call, want) do { \
	flyrt_status st_ = (call); \
	char d_[1200]; \
	snprintf(d_, sizeof d_, "%s returned %s, expected %s: %s", #call, flyrt_status_name(st_), \
	         flyrt_status_name(want), flyrt_last_error()); \
	report(st_ == (want), name, d_); \
} while (0)

static unsigned rng = 12345;
static float
frand(void)
{
	rng = rng * 1103515245u + 12345u;
	return (float)((rng >> 8) & 0xffff) / 4096.0f - 8.0f;
}

static int
same(const float *a, const float *b, int n, char *detail, size_t dl)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i]) {
			snprintf(detail, dl, "element %d: got %.9g, expected %.9g", i, a[i], b[i]);
			return 0;
		}
	return 1;
}

/* Several threads share one device and one module: each loads the module (the cache
 * gives them the same one), launches vadd on its own buffers and checks its result. */
typedef struct {
	flyrt_device *dev;
	const char *path;
	int id, ok;
	char why[300];
} Worker;

static void *
worker(void *arg)
{
	Worker *w = arg;
	enum { WN = 300 };
	float a[WN], b[WN], c[WN];
	flyrt_module *m;
	flyrt_kernel *k;
	flyrt_deviceptr da = 0, db = 0, dc = 0;

	w->ok = 0;
	for (int i = 0; i < WN; i++) {
		a[i] = (float)(i * (w->id + 1));
		b[i] = (float)w->id;
	}
	for (int rep = 0; rep < 3; rep++) {
		if (flyrt_module_load_file(w->dev, w->path, &m) || flyrt_module_get_kernel(m, "vadd", &k) ||
		    flyrt_malloc(w->dev, sizeof a, &da) || flyrt_malloc(w->dev, sizeof b, &db) ||
		    flyrt_malloc(w->dev, sizeof c, &dc) || flyrt_memcpy_htod(w->dev, da, a, sizeof a) ||
		    flyrt_memcpy_htod(w->dev, db, b, sizeof b)) {
			snprintf(w->why, sizeof w->why, "setup: %s", flyrt_last_error());
			return NULL;
		}
		flyrt_arg args[] = { flyrt_arg_ptr(da), flyrt_arg_ptr(db), flyrt_arg_ptr(dc), flyrt_arg_i32(WN) };
		if (flyrt_launch(k, NULL, args, 4) || flyrt_memcpy_dtoh(w->dev, c, dc, sizeof c)) {
			snprintf(w->why, sizeof w->why, "launch: %s", flyrt_last_error());
			return NULL;
		}
		for (int i = 0; i < WN; i++)
			if (c[i] != a[i] + b[i]) {
				snprintf(w->why, sizeof w->why, "thread %d element %d: %g", w->id, i, c[i]);
				return NULL;
			}
		flyrt_free(w->dev, da);
		flyrt_free(w->dev, db);
		flyrt_free(w->dev, dc);
		flyrt_module_unload(m);
	}
	w->ok = 1;
	return NULL;
}

int
main(int argc, char **argv)
{
	flyrt_device *dev;
	flyrt_module *mod;
	flyrt_kernel *vadd, *scale, *chosen = NULL;
	flyrt_tuning *tune;
	flyrt_deviceptr da, db, dc, dx, dy;
	enum { N = 1000, NS = 4100 };
	static float a[N], b[N], c[N], ref[N], x[NS], y[NS], yref[NS], yout[NS];
	static int xi[256], xiref[256];
	char detail[512] = "";
	flyrt_status st;

	if (argc != 3) {
		fprintf(stderr, "usage: rt_e2e CODEOBJ TUNING_TABLE\n");
		return 2;
	}
	st = flyrt_device_open("sim", &dev);
	if (st != FLYRT_SUCCESS) {
		printf("FAIL: open device\n    %s: %s\n", flyrt_status_name(st), flyrt_last_error());
		return 1;
	}
	st = flyrt_module_load_file(dev, argv[1], &mod);
	if (st != FLYRT_SUCCESS) {
		printf("FAIL: load module\n    %s: %s\n", flyrt_status_name(st), flyrt_last_error());
		flyrt_device_close(dev);
		return 1;
	}
	report(flyrt_module_get_kernel(mod, "vadd", &vadd) == FLYRT_SUCCESS &&
	       flyrt_module_get_kernel(mod, "scale", &scale) == FLYRT_SUCCESS,
	       "c: kernels listed", flyrt_last_error());

	/* vadd with the kernel's own grid formula and block */
	for (int i = 0; i < N; i++) {
		a[i] = frand();
		b[i] = frand();
		ref[i] = a[i] + b[i];
		c[i] = -1;
	}
	flyrt_malloc(dev, sizeof a, &da);
	flyrt_malloc(dev, sizeof b, &db);
	flyrt_malloc(dev, sizeof c, &dc);
	flyrt_memcpy_htod(dev, da, a, sizeof a);
	flyrt_memcpy_htod(dev, db, b, sizeof b);
	flyrt_memcpy_htod(dev, dc, c, sizeof c);
	flyrt_arg args[] = { flyrt_arg_ptr(da), flyrt_arg_ptr(db), flyrt_arg_ptr(dc), flyrt_arg_i32(N) };
	CHECK_ST("c: vadd launches with the kernel's grid", flyrt_launch(vadd, NULL, args, 4), FLYRT_SUCCESS);
	flyrt_synchronize(dev);
	flyrt_memcpy_dtoh(dev, c, dc, sizeof c);
	report(same(c, ref, N, detail, sizeof detail), "c: vadd matches the CPU", detail);

	/* an explicit grid smaller than needed computes only a prefix: only when asked for */
	float init[N];
	for (int i = 0; i < N; i++)
		init[i] = 7.0f;
	flyrt_memcpy_htod(dev, dc, init, sizeof init);
	flyrt_launch_config cfg = { { 4, 1, 1 }, { 64, 1, 1 }, 0, 0 };
	CHECK_ST("c: a grid other than the formula's is refused", flyrt_launch(vadd, &cfg, args, 4),
	         FLYRT_ERROR_INVALID_LAUNCH);
	report(strstr(flyrt_last_error(), "differs from the kernel's grid formula") != NULL,
	       "c: the message says the grid differs from the formula", flyrt_last_error());
	flyrt_launch_config half = { { 0, 0, 0 }, { 32, 1, 1 }, 0, FLYRT_LAUNCH_ANY_GRID };
	CHECK_ST("c: a block other than the kernel's is refused, even with ANY_GRID",
	         flyrt_launch(vadd, &half, args, 4), FLYRT_ERROR_INVALID_LAUNCH);
	flyrt_memcpy_dtoh(dev, c, dc, sizeof c);
	report(c[0] == 7.0f && c[N - 1] == 7.0f, "c: nothing ran for the refused launches",
	       "the output was written");
	cfg.flags = FLYRT_LAUNCH_ANY_GRID;
	CHECK_ST("c: vadd launches with an explicit grid", flyrt_launch(vadd, &cfg, args, 4), FLYRT_SUCCESS);
	flyrt_memcpy_dtoh(dev, c, dc, sizeof c);
	int ok = same(c, ref, 256, detail, sizeof detail);
	for (int i = 256; ok && i < N; i++)
		if (c[i] != 7.0f) {
			snprintf(detail, sizeof detail, "element %d was written: %g", i, c[i]);
			ok = 0;
		}
	report(ok, "c: explicit grid of 4x64 writes exactly 256 elements", detail);

	/* an output allocation one element short: refused before anything runs */
	flyrt_deviceptr dshort;
	flyrt_malloc(dev, sizeof c - 4, &dshort);
	flyrt_memcpy_htod(dev, dshort, init, sizeof c - 4);
	args[2] = flyrt_arg_ptr(dshort);
	CHECK_ST("c: an allocation smaller than the layout (n):(1) reaches is refused",
	         flyrt_launch(vadd, NULL, args, 4), FLYRT_ERROR_ARG_TYPE);
	report(strstr(flyrt_last_error(), "argument 2 (c) is too small") != NULL,
	       "c: the message names the argument", flyrt_last_error());
	flyrt_memcpy_dtoh(dev, c, dshort, sizeof c - 4);
	report(c[0] == 7.0f, "c: nothing ran for the too-small allocation", "the output was written");
	flyrt_free(dev, dshort);
	args[2] = flyrt_arg_ptr(dc);

	/* requires: n > 0 and a 16-byte aligned; both are "unsupported", nothing runs */
	args[3] = flyrt_arg_i32(0);
	CHECK_ST("c: requires n > 0 gives UNSUPPORTED", flyrt_launch(vadd, NULL, args, 4), FLYRT_ERROR_UNSUPPORTED);
	report(strstr(flyrt_last_error(), "n > 0") != NULL, "c: the message names the predicate",
	       flyrt_last_error());
	args[3] = flyrt_arg_i32(N - 4);
	args[0] = flyrt_arg_ptr(da + 8);
	args[1] = flyrt_arg_ptr(db + 8);
	CHECK_ST("c: a declared-16-aligned pointer off by 8 is refused",
	         flyrt_launch(vadd, NULL, args, 4), FLYRT_ERROR_MISALIGNED_POINTER);
	args[0] = flyrt_arg_ptr(da);
	args[2] = flyrt_arg_ptr(0);
	CHECK_ST("c: a null pointer is refused", flyrt_launch(vadd, NULL, args, 4), FLYRT_ERROR_NULL_POINTER);
	CHECK_ST("c: a wrong argument count is refused", flyrt_launch(vadd, NULL, args, 3), FLYRT_ERROR_ARG_COUNT);
	args[2] = flyrt_arg_ptr(dc);
	args[3] = flyrt_arg_f32(3.0f);
	CHECK_ST("c: a wrong argument type is refused", flyrt_launch(vadd, NULL, args, 4), FLYRT_ERROR_ARG_TYPE);

	/* a kernel typed only by the AMDGPU note: x[i] = x[i] * k + m */
	for (int i = 0; i < 256; i++) {
		xi[i] = i - 100;
		xiref[i] = xi[i] * -3 + 11;
	}
	flyrt_deviceptr dxi;
	flyrt_malloc(dev, sizeof xi, &dxi);
	flyrt_memcpy_htod(dev, dxi, xi, sizeof xi);
	flyrt_arg sargs[] = { flyrt_arg_ptr(dxi), flyrt_arg_i32(-3), flyrt_arg_i64(11) };
	flyrt_launch_config scfg = { { 4, 1, 1 }, { 64, 1, 1 }, 0, 0 };
	CHECK_ST("c: scale (note-only metadata) launches", flyrt_launch(scale, &scfg, sargs, 3), FLYRT_SUCCESS);
	flyrt_memcpy_dtoh(dev, xi, dxi, sizeof xi);
	report(!memcmp(xi, xiref, sizeof xi), "c: scale matches the CPU", "integer results differ");

	/* variants: the tuning database picks saxpy_v4 for n % 4 == 0, else falls back */
	CHECK_ST("c: tuning database loads", flyrt_tuning_load(argv[2], &tune), FLYRT_SUCCESS);
	flyrt_malloc(dev, sizeof x, &dx);
	flyrt_malloc(dev, sizeof y, &dy);
	for (int pass = 0; pass < 2; pass++) {
		int n = pass ? 4097 : 4096;
		const char *want = pass ? "saxpy_any" : "saxpy_v4";
		for (int i = 0; i < NS; i++) {
			x[i] = frand();
			y[i] = frand();
			yref[i] = i < n ? 2.5f * x[i] + y[i] : y[i];
		}
		flyrt_memcpy_htod(dev, dx, x, sizeof x);
		flyrt_memcpy_htod(dev, dy, y, sizeof y);
		flyrt_arg xargs[] = { flyrt_arg_ptr(dy), flyrt_arg_ptr(dx), flyrt_arg_f32(2.5f), flyrt_arg_i32(n) };
		char name[80];
		snprintf(name, sizeof name, "c: dispatch n=%d launches", n);
		CHECK_ST(name, flyrt_dispatch(mod, tune, "saxpy", NULL, xargs, 4, &chosen), FLYRT_SUCCESS);
		snprintf(name, sizeof name, "c: dispatch n=%d picks %s", n, want);
		report(chosen && !strcmp(flyrt_kernel_name(chosen), want), name,
		       chosen ? flyrt_kernel_name(chosen) : "none");
		flyrt_memcpy_dtoh(dev, yout, dy, sizeof yout);
		/* a*x+y may be fused (one rounding): allow 1 ulp-ish relative error */
		ok = 1;
		for (int i = 0; i < NS && ok; i++)
			if (fabsf(yout[i] - yref[i]) > 1e-5f * (1.0f + fabsf(yref[i]))) {
				snprintf(detail, sizeof detail, "element %d: got %.9g, expected %.9g", i,
				         yout[i], yref[i]);
				ok = 0;
			}
		snprintf(name, sizeof name, "c: %s matches the CPU for n=%d", want, n);
		report(ok, name, detail);
	}
	flyrt_tuning_destroy(tune);

	{
		Worker w[4];
		pthread_t th[4];
		int all = 1;
		for (int i = 0; i < 4; i++) {
			w[i].dev = dev;
			w[i].path = argv[1];
			w[i].id = i;
			w[i].why[0] = 0;
			pthread_create(&th[i], NULL, worker, &w[i]);
		}
		detail[0] = 0;
		for (int i = 0; i < 4; i++) {
			pthread_join(th[i], NULL);
			if (!w[i].ok && all) {
				all = 0;
				snprintf(detail, sizeof detail, "%s", w[i].why);
			}
		}
		report(all, "c: 4 threads share the device and the module cache", detail);
	}

	flyrt_free(dev, da);
	flyrt_free(dev, db);
	flyrt_free(dev, dc);
	flyrt_free(dev, dx);
	flyrt_free(dev, dy);
	flyrt_free(dev, dxi);
	flyrt_module_unload(mod);
	flyrt_device_close(dev);
	return failures != 0;
}
