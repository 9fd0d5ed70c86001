/*
 * e2e_flyc.c — flyc's own code objects through libflyrt on the simulator.
 *
 * usage: e2e_flyc ELEMENTWISE.hsaco RMSNORM.hsaco REDUCTION.hsaco
 *
 * Each kernel is launched with the grid from its own .flyc.meta formula (a NULL
 * launch config) on several sizes, ragged ones included, and compared with a CPU
 * reference computed here. A launch whose requires predicate fails must return
 * FLYRT_ERROR_UNSUPPORTED and leave the output untouched. Prints PASS:/FAIL: lines.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt.h"

static int fails;

static void
report(int ok, const char *name, const char *detail)
{
	if (ok)
		printf("PASS: e2e: %s\n", name);
	else
		printf("FAIL: e2e: %s\n    %s\n", name, detail);
	fails += !ok;
}

static uint16_t
bf16_of(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu))
		return (uint16_t)((b >> 16) | 0x40);
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

/* A deterministic pseudo-random value in [-4, 4) with few mantissa bits. */
static float
rnd(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((int)(*s >> 24) - 128) / 32.0f;
}

static flyrt_deviceptr
upload(flyrt_device *dev, const void *p, size_t n)
{
	flyrt_deviceptr d = 0;
	if (flyrt_malloc(dev, n, &d) == FLYRT_SUCCESS && p)
		flyrt_memcpy_htod(dev, d, p, n);
	return d;
}

/* ---- elementwise: out = bf16(alpha * x + y) -------------------------------------- */

static void
t_elementwise(flyrt_device *dev, const char *path)
{
	static const int sizes[] = { 1, 7, 2048, 2049, 4104, 10000 };
	flyrt_module *mod;
	flyrt_kernel *k;
	char name[128], msg[256];

	if (flyrt_module_load_file(dev, path, &mod) != FLYRT_SUCCESS ||
	    flyrt_module_get_kernel(mod, "scale_add", &k) != FLYRT_SUCCESS) {
		report(0, "elementwise: load scale_add", flyrt_last_error());
		return;
	}
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		int n = sizes[s], bad = 0;
		size_t bytes = (size_t)n * 2, pad = 64;
		uint16_t *x = malloc(bytes), *y = malloc(bytes), *o = malloc(bytes + pad);
		uint32_t seed = 17u + (uint32_t)n;
		float alpha = 1.5f, maxerr = 0;
		for (int i = 0; i < n; i++) {
			x[i] = bf16_of(rnd(&seed));
			y[i] = bf16_of(rnd(&seed));
		}
		memset(o, 0xAB, bytes + pad);
		flyrt_deviceptr dx = upload(dev, x, bytes), dy = upload(dev, y, bytes), dout = upload(dev, o, bytes + pad);
		flyrt_arg args[5] = { flyrt_arg_ptr(dx), flyrt_arg_ptr(dy), flyrt_arg_ptr(dout),
		                      flyrt_arg_f32(alpha), flyrt_arg_i32(n) };
		flyrt_status st = flyrt_launch(k, NULL, args, 5);
		flyrt_memcpy_dtoh(dev, o, dout, bytes + pad);
		for (int i = 0; i < n; i++) {
			float ref = f32_of(bf16_of(alpha * f32_of(x[i]) + f32_of(y[i])));
			float got = f32_of(o[i]), e = fabsf(got - ref);
			/* one bf16 ulp: the kernel may contract alpha * x + y into an fma */
			if (e > fabsf(ref) / 128.0f + 1e-30f)
				bad++;
			if (e > maxerr)
				maxerr = e;
		}
		for (size_t i = bytes; i < bytes + pad; i++)
			bad += ((unsigned char *)o)[i] != 0xAB;   /* beyond N: untouched */
		snprintf(name, sizeof name, "elementwise: N=%d against the CPU (grid from .flyc.meta)", n);
		snprintf(msg, sizeof msg, "status %s, %d bad values, max error %g", flyrt_status_name(st), bad, maxerr);
		report(st == FLYRT_SUCCESS && bad == 0, name, msg);
		if (s == 0) {
			/* x + 2 bytes: bf16-aligned, but requires aligned(x, 16) fails: the launch is
			 * declined (unsupported), nothing written */
			memset(o, 0xCD, bytes + pad);
			flyrt_memcpy_htod(dev, dout, o, bytes + pad);
			args[0] = flyrt_arg_ptr(dx + 2);
			st = flyrt_launch(k, NULL, args, 5);
			flyrt_memcpy_dtoh(dev, o, dout, bytes + pad);
			snprintf(msg, sizeof msg, "status %s, output byte 0x%02x", flyrt_status_name(st), ((unsigned char *)o)[0]);
			report(st == FLYRT_ERROR_UNSUPPORTED && ((unsigned char *)o)[0] == 0xCD,
			       "elementwise: x + 2 bytes fails requires aligned(x, 16): UNSUPPORTED, nothing written", msg);
			/* x + 1 byte is not even bf16-aligned: an argument error */
			args[0] = flyrt_arg_ptr(dx + 1);
			st = flyrt_launch(k, NULL, args, 5);
			report(st == FLYRT_ERROR_MISALIGNED_POINTER, "elementwise: x + 1 byte is MISALIGNED_POINTER",
			       flyrt_status_name(st));
		}
		flyrt_free(dev, dx);
		flyrt_free(dev, dy);
		flyrt_free(dev, dout);
		free(x);
		free(y);
		free(o);
	}
	flyrt_module_unload(mod);
}

/* ---- rmsnorm_4096: y = x * rsqrt(mean(x^2) + eps) * w ---------------------------- */

static void
t_rmsnorm(flyrt_device *dev, const char *path)
{
	static const int rows_list[] = { 1, 3, 5 };
	enum { N = 4096 };
	flyrt_module *mod;
	flyrt_kernel *k;
	char name[128], msg[256];

	if (flyrt_module_load_file(dev, path, &mod) != FLYRT_SUCCESS ||
	    flyrt_module_get_kernel(mod, "rmsnorm_4096", &k) != FLYRT_SUCCESS) {
		report(0, "rmsnorm: load rmsnorm_4096", flyrt_last_error());
		return;
	}
	for (size_t s = 0; s < sizeof rows_list / sizeof rows_list[0]; s++) {
		int rows = rows_list[s], bad = 0;
		size_t bytes = (size_t)rows * N * 2;
		uint16_t *x = malloc(bytes), *y = malloc(bytes), w[N];
		uint32_t seed = 99u + (uint32_t)rows;
		float eps = 1e-5f, maxerr = 0;
		for (int i = 0; i < rows * N; i++)
			x[i] = bf16_of(rnd(&seed));
		for (int i = 0; i < N; i++)
			w[i] = bf16_of(rnd(&seed) / 4.0f);
		flyrt_deviceptr dx = upload(dev, x, bytes), dw = upload(dev, w, sizeof w), dy = upload(dev, NULL, bytes);
		flyrt_arg args[5] = { flyrt_arg_ptr(dx), flyrt_arg_ptr(dw), flyrt_arg_ptr(dy),
		                      flyrt_arg_i32(rows), flyrt_arg_f32(eps) };
		flyrt_status st = flyrt_launch(k, NULL, args, 5);
		flyrt_memcpy_dtoh(dev, y, dy, bytes);
		for (int r = 0; r < rows; r++) {
			double ss = 0;
			for (int j = 0; j < N; j++)
				ss += (double)f32_of(x[r * N + j]) * f32_of(x[r * N + j]);
			double scale = 1.0 / sqrt(ss / N + eps);
			for (int j = 0; j < N; j++) {
				double ref = f32_of(x[r * N + j]) * scale * f32_of(w[j]);
				double e = fabs(f32_of(y[r * N + j]) - ref);
				if (e > fabs(ref) / 64.0 + 1e-6)
					bad++;
				if (e > maxerr)
					maxerr = (float)e;
			}
		}
		snprintf(name, sizeof name, "rmsnorm_4096: rows=%d against the CPU (grid from .flyc.meta)", rows);
		snprintf(msg, sizeof msg, "status %s, %d bad values, max error %g", flyrt_status_name(st), bad, maxerr);
		report(st == FLYRT_SUCCESS && bad == 0, name, msg);
		flyrt_free(dev, dx);
		flyrt_free(dev, dw);
		flyrt_free(dev, dy);
		free(x);
		free(y);
	}
	flyrt_module_unload(mod);
}

/* ---- row_sum: out[r] = sum_j x[r, j]; rowmax[g] (see examples/reduction.fly) ---- */

static void
t_reduction(flyrt_device *dev, const char *path)
{
	static const int shapes[][2] = { { 1, 64 }, { 7, 192 }, { 13, 320 }, { 8, 64 } };
	enum { W = 4 };
	flyrt_module *mod;
	flyrt_kernel *k;
	char name[128], msg[256];

	if (flyrt_module_load_file(dev, path, &mod) != FLYRT_SUCCESS ||
	    flyrt_module_get_kernel(mod, "row_sum", &k) != FLYRT_SUCCESS) {
		report(0, "reduction: load row_sum", flyrt_last_error());
		return;
	}
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		int R = shapes[s][0], C = shapes[s][1], G = (R + W - 1) / W, bad = 0;
		float *x = malloc(sizeof(float) * (size_t)R * C), *out = malloc(sizeof(float) * (size_t)R);
		float *rm = malloc(sizeof(float) * (size_t)G);
		uint32_t seed = 5u + (uint32_t)(R * C);
		for (int i = 0; i < R * C; i++)
			x[i] = rnd(&seed);
		flyrt_deviceptr dx = upload(dev, x, sizeof(float) * (size_t)R * C);
		flyrt_deviceptr dout = upload(dev, NULL, sizeof(float) * (size_t)R);
		flyrt_deviceptr drm = upload(dev, NULL, sizeof(float) * (size_t)G);
		flyrt_arg args[6] = { flyrt_arg_ptr(dx), flyrt_arg_ptr(dout), flyrt_arg_ptr(drm),
		                      flyrt_arg_i32(R), flyrt_arg_i32(C), flyrt_arg_i32(G) };
		flyrt_status st = flyrt_launch(k, NULL, args, 6);
		flyrt_memcpy_dtoh(dev, out, dout, sizeof(float) * (size_t)R);
		flyrt_memcpy_dtoh(dev, rm, drm, sizeof(float) * (size_t)G);
		for (int r = 0; r < R; r++) {
			double sum = 0;
			for (int j = 0; j < C; j++)
				sum += x[r * C + j];
			if (fabs(out[r] - sum) > 1e-3)
				bad++;
		}
		for (int g = 0; g < G; g++) {
			double ref = -1e30;
			for (int r = g * W; r < g * W + W; r++) {
				double sum = -1e30;
				if (r < R) {
					sum = 0;
					for (int j = 0; j < C; j++)
						sum += x[r * C + j];
				}
				ref = sum > ref ? sum : ref;
			}
			for (int l = 0; l < 16; l++) {   /* lanes 0..15 of wave 0: partial sums */
				double part = 0;
				if (g * W < R)
					for (int j = l; j < C; j += 64)
						part += x[g * W * C + j];
				ref = part > ref ? part : ref;
			}
			if (fabs(rm[g] - ref) > 1e-3)
				bad++;
		}
		snprintf(name, sizeof name, "reduction: R=%d C=%d against the CPU (grid from .flyc.meta)", R, C);
		snprintf(msg, sizeof msg, "status %s, %d bad values", flyrt_status_name(st), bad);
		report(st == FLYRT_SUCCESS && bad == 0, name, msg);
		if (s == 1) {
			/* requires C % 64 == 0: C = 100 is declined */
			args[4] = flyrt_arg_i32(100);
			st = flyrt_launch(k, NULL, args, 6);
			report(st == FLYRT_ERROR_UNSUPPORTED, "reduction: C=100 fails requires C % 64 == 0: UNSUPPORTED",
			       flyrt_status_name(st));
			st = flyrt_kernel_check(k, NULL, args, 6, NULL);
			report(st == FLYRT_ERROR_UNSUPPORTED && flyrt_kernel_requires_text(k, 0) &&
			       !strcmp(flyrt_kernel_requires_text(k, 0), "C % 64 == 0"),
			       "reduction: flyrt_kernel_check names the predicate", flyrt_status_name(st));
		}
		flyrt_free(dev, dx);
		flyrt_free(dev, dout);
		flyrt_free(dev, drm);
		free(x);
		free(out);
		free(rm);
	}
	flyrt_module_unload(mod);
}

int
main(int argc, char **argv)
{
	flyrt_device *dev;

	if (argc != 4) {
		fprintf(stderr, "usage: e2e_flyc ELEMENTWISE.hsaco RMSNORM.hsaco REDUCTION.hsaco\n");
		return 2;
	}
	if (flyrt_device_open("sim", &dev) != FLYRT_SUCCESS) {
		printf("FAIL: e2e: open the simulator\n    %s\n", flyrt_last_error());
		return 1;
	}
	t_elementwise(dev, argv[1]);
	t_rmsnorm(dev, argv[2]);
	t_reduction(dev, argv[3]);
	flyrt_device_close(dev);
	return fails != 0;
}
