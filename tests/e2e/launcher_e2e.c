/*
 * launcher_e2e.c — launchers written by `flyc --emit=launcher` for examples/elementwise.fly
 * (basename ew, a gfx950 code object; and basename elementwise, a gfx950+gfx1201 bundle)
 * and examples/reduction.fly (basename red), built with libflyrt and run on the simulator
 * against CPU references. Prints PASS:/FAIL: lines.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise.h"
#include "ew.h"
#include "red.h"

static int fails;

static void
report(int ok, const char *name, const char *detail)
{
	if (ok)
		printf("PASS: launcher: %s\n", name);
	else
		printf("FAIL: launcher: %s\n    %s\n", name, detail);
	fails += !ok;
}

static uint16_t
bf16_of(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	return (uint16_t)((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

static float
f32_of(uint16_t h)
{
	uint32_t b = (uint32_t)h << 16;
	float f;
	memcpy(&f, &b, 4);
	return f;
}

typedef flyrt_status (*ew_fn)(flyrt_device *, const flyrt_launch_config *, flyrt_deviceptr,
                              flyrt_deviceptr, flyrt_deviceptr, float, int32_t);

static void
run_ew(flyrt_device *dev, ew_fn fn, const char *which, int n)
{
	size_t bytes = (size_t)n * 2;
	uint16_t *x = malloc(bytes), *y = malloc(bytes), *o = malloc(bytes);
	flyrt_deviceptr dx, dy, dout;
	char name[128], msg[160];
	int bad = 0;
	float maxerr = 0;

	for (int i = 0; i < n; i++) {
		x[i] = bf16_of((float)(i % 29) * 0.25f - 3.0f);
		y[i] = bf16_of((float)(i % 11) - 5.5f);
	}
	flyrt_malloc(dev, bytes, &dx);
	flyrt_malloc(dev, bytes, &dy);
	flyrt_malloc(dev, bytes, &dout);
	flyrt_memcpy_htod(dev, dx, x, bytes);
	flyrt_memcpy_htod(dev, dy, y, bytes);
	flyrt_status st = fn(dev, NULL, dx, dy, dout, -0.75f, n);
	flyrt_memcpy_dtoh(dev, o, dout, bytes);
	for (int i = 0; i < n; i++) {
		float ref = f32_of(bf16_of(-0.75f * f32_of(x[i]) + f32_of(y[i])));
		float e = fabsf(f32_of(o[i]) - ref);
		bad += e > fabsf(ref) / 128.0f + 1e-30f;
		maxerr = e > maxerr ? e : maxerr;
	}
	snprintf(name, sizeof name, "%s_scale_add N=%d matches the CPU", which, n);
	snprintf(msg, sizeof msg, "status %s (%s), %d bad, max error %g", flyrt_status_name(st),
	         flyrt_last_error(), bad, maxerr);
	report(st == FLYRT_SUCCESS && bad == 0, name, msg);
	if (n == 1000) {
		st = fn(dev, NULL, dx, 0, dout, 1.0f, n);
		report(st == FLYRT_ERROR_NULL_POINTER, "a null pointer is a status, not a crash", flyrt_status_name(st));
		/* the launch checks, before anything runs: the output keeps its sentinels */
		flyrt_deviceptr dshort;
		memset(o, 0x7F, bytes);
		flyrt_malloc(dev, bytes - 2, &dshort);
		flyrt_memcpy_htod(dev, dout, o, bytes);
		flyrt_memcpy_htod(dev, dshort, o, bytes - 2);
		flyrt_launch_config half = { { 0, 0, 0 }, { 128, 1, 1 }, 0, 0 };   /* block(256) */
		st = fn(dev, &half, dx, dy, dout, 1.0f, n);
		report(st == FLYRT_ERROR_INVALID_LAUNCH && strstr(flyrt_last_error(), "block 128x1x1 differs"),
		       "a block of 128 for a block(256) kernel is refused", flyrt_last_error());
		flyrt_launch_config two = { { 2, 1, 1 }, { 0, 0, 0 }, 0, 0 };     /* the formula gives 1 */
		st = fn(dev, &two, dx, dy, dout, 1.0f, n);
		report(st == FLYRT_ERROR_INVALID_LAUNCH && strstr(flyrt_last_error(), "which gives 1x1x1"),
		       "a grid other than the formula's is refused", flyrt_last_error());
		st = fn(dev, NULL, dx, dy, dshort, 1.0f, n);
		report(st == FLYRT_ERROR_ARG_TYPE && strstr(flyrt_last_error(), "argument 2 (out) is too small"),
		       "an output allocation one element short is refused", flyrt_last_error());
		uint16_t probe[2];
		flyrt_memcpy_dtoh(dev, probe, dout, 4);
		report(probe[0] == 0x7F7F && probe[1] == 0x7F7F, "nothing ran for the refused launches",
		       "the output was written");
		two.flags = FLYRT_LAUNCH_ANY_GRID;
		st = fn(dev, &two, dx, dy, dout, 1.0f, n);
		report(st == FLYRT_SUCCESS, "FLYRT_LAUNCH_ANY_GRID launches another grid", flyrt_last_error());
		flyrt_free(dev, dshort);
	}
	flyrt_free(dev, dx);
	flyrt_free(dev, dy);
	flyrt_free(dev, dout);
	free(x);
	free(y);
	free(o);
}

int
main(void)
{
	flyrt_device *dev;
	static const int sizes[] = { 1, 1000, 2048, 5000 };

	if (flyrt_device_open("sim", &dev) != FLYRT_SUCCESS) {
		printf("FAIL: launcher: open the simulator\n    %s\n", flyrt_last_error());
		return 1;
	}
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		run_ew(dev, ew_scale_add, "ew", sizes[i]);
	run_ew(dev, elementwise_scale_add, "elementwise (bundle)", 3001);
	report(!memcmp(ew_codeobj, "\177ELF", 4), "ew embeds a raw code object", "no ELF magic");
	report(!memcmp(elementwise_codeobj, "__CLANG_OFFLOAD_BUNDLE__", 24),
	       "elementwise embeds an offload bundle", "no bundle magic");
	{
		/* row sums; requires C % 64 == 0 */
		enum { R = 5, C = 128, G = 2 };
		float x[R * C], out[R], rm[G];
		flyrt_deviceptr dx, dout, drm;
		int bad = 0;
		for (int i = 0; i < R * C; i++)
			x[i] = (float)(i % 7) - 3.0f;
		flyrt_malloc(dev, sizeof x, &dx);
		flyrt_malloc(dev, sizeof out, &dout);
		flyrt_malloc(dev, sizeof rm, &drm);
		flyrt_memcpy_htod(dev, dx, x, sizeof x);
		flyrt_status st = red_row_sum(dev, NULL, dx, dout, drm, R, C, G);
		flyrt_memcpy_dtoh(dev, out, dout, sizeof out);
		for (int r = 0; r < R; r++) {
			float s = 0;
			for (int j = 0; j < C; j++)
				s += x[r * C + j];
			bad += out[r] != s;
		}
		report(st == FLYRT_SUCCESS && bad == 0, "red_row_sum R=5 C=128 matches the CPU", flyrt_status_name(st));
		memset(out, 0x5A, sizeof out);
		flyrt_memcpy_htod(dev, dout, out, sizeof out);
		st = red_row_sum(dev, NULL, dx, dout, drm, R, 100, G);
		flyrt_memcpy_dtoh(dev, out, dout, sizeof out);
		report(st == FLYRT_ERROR_UNSUPPORTED && ((unsigned char *)out)[0] == 0x5A,
		       "red_row_sum with C=100 (requires C % 64 == 0) returns UNSUPPORTED, nothing written",
		       flyrt_status_name(st));
		st = red_row_sum(dev, NULL, dx, dout, drm, R + 1, C, G);   /* x holds R rows */
		flyrt_memcpy_dtoh(dev, out, dout, sizeof out);
		report(st == FLYRT_ERROR_ARG_TYPE && strstr(flyrt_last_error(), "argument 0 (x) is too small") &&
		       ((unsigned char *)out)[0] == 0x5A,
		       "red_row_sum with R one row beyond x's allocation is refused, nothing written",
		       flyrt_last_error());
		flyrt_free(dev, dx);
		flyrt_free(dev, dout);
		flyrt_free(dev, drm);
	}
	flyrt_device_close(dev);
	return fails != 0;
}
