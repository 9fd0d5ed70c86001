/*
 * ops_c.c — the operator library's C API (flyops.h) on the simulator, from C: DLPack
 * tensors with negative strides, byte offsets (odd ones too), NaN guards around every
 * operand; plans with outputs described but not allocated; malformed tensors and calls;
 * forced variants; a tuning database in the options; two threads sharing a context;
 * rms_norm (fused residual, no weight) and its backward against double references; topk
 * (strided rows, NaN, +-inf, ties) against a selection in C.
 * Run from the repository root with the kernel library of the build (FLYC_KERNEL_DIR or
 * beside libflyrt). Prints PASS:/FAIL: lines; exit status 0.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyops.h"

static int failures;

static void
report(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	printf("%s: ops-c: %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok) {
		printf("    ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		failures++;
	}
}

static uint16_t
bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static float
f32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint32_t seed = 12345;
static float
frand(void)
{
	seed = seed * 1664525u + 1013904223u;
	return (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static const DLDataType BF16 = { kDLBfloat, 16, 1 };
static const DLDevice CPU = { kDLCPU, 0 };

/* Check c[i*cs0 + j*cs1] against sum_k a(i,k) b(k,j) with the bound. */
typedef struct {
	const uint16_t *a, *b, *c;
	int64_t as0, as1, bs0, bs1, cs0, cs1;
	int M, N, K;
} MmCheck;

static int
mm_ok(const MmCheck *m, char *why, size_t n)
{
	for (int i = 0; i < m->M; i++)
		for (int j = 0; j < m->N; j++) {
			double s = 0, mag = 0;
			for (int k = 0; k < m->K; k++) {
				double x = f32(m->a[i * m->as0 + k * m->as1]), y = f32(m->b[k * m->bs0 + j * m->bs1]);
				s += x * y;
				mag += fabs(x * y);
			}
			double got = f32(m->c[i * m->cs0 + j * m->cs1]);
			double ulp = ldexp(1.0, (int)floor(log2(fmax(fabs(s), ldexp(1.0, -126)))) - 7);
			if (!(fabs(got - s) <= ulp + m->K * ldexp(1.0, -24) * mag)) {
				snprintf(why, n, "c[%d][%d] = %g, reference %g", i, j, got, s);
				return 0;
			}
		}
	return 1;
}

static int
all_nan(const uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0x7fc0)
			return 0;
	return 1;
}

/* mm with a stored upside down (negative row stride) at an odd byte offset, b the
 * transpose of a row-major [N, K] with padded rows, c column-major; NaN everywhere else. */
static void
mm_hostile(flyops_context *ctx)
{
	enum { M = 200, N = 136, K = 64, PAD = 8, G = 40 };
	size_t na = G + M * K + G, nb = G + N * (K + PAD) + G, nc = G + M * N + G;
	uint16_t *abuf = malloc(na * 2 + 2), *bbuf = malloc(nb * 2), *cbuf = malloc(nc * 2);
	char why[256] = "";
	flyops_exec ex;

	for (size_t i = 0; i < na + 1; i++) abuf[i] = 0x7fc0;
	for (size_t i = 0; i < nb; i++) bbuf[i] = 0x7fc0;
	for (size_t i = 0; i < nc; i++) cbuf[i] = 0x7fc0;
	/* a: element (i, k) at byte 1 + 2 * (G + (M - 1 - i) * K + k) of abuf (odd: misaligned) */
	uint8_t *abytes = (uint8_t *)abuf + 1;
	uint16_t *a0 = malloc((size_t)M * K * 2);
	for (int i = 0; i < M; i++)
		for (int k = 0; k < K; k++) {
			uint16_t v = bf16(frand());
			a0[i * K + k] = v;
			memcpy(abytes + 2 * (G + (M - 1 - i) * K + k), &v, 2);
		}
	for (int j = 0; j < N; j++)
		for (int k = 0; k < K; k++)
			bbuf[G + j * (K + PAD) + k] = bf16(frand());
	int64_t sa[2] = { M, K }, ta[2] = { -K, 1 };
	int64_t sb[2] = { K, N }, tb[2] = { 1, K + PAD };
	int64_t sc[2] = { M, N }, tc[2] = { 1, M };
	DLTensor a = { abuf, CPU, 2, BF16, sa, ta, 1 + 2 * (G + (uint64_t)(M - 1) * K) };
	DLTensor b = { bbuf + G, CPU, 2, BF16, sb, tb, 0 };
	DLTensor c = { cbuf, CPU, 2, BF16, sc, tc, 2 * G };
	memset(&ex, 0, sizeof ex);
	flyrt_status st = flyops_mm(ctx, &a, &b, NULL, &c, &ex);
	report(st == FLYRT_SUCCESS, "mm with a negative row stride, an odd byte offset, padded b, "
	       "column-major out", "%s: %s", flyrt_status_name(st), flyrt_last_error());
	report(!strcmp(ex.chosen, "gemm_nt_ragged"), "the ragged variant ran", "chosen '%s'", ex.chosen);
	MmCheck m = { a0, bbuf + G, cbuf + G, K, 1, 1, K + PAD, 1, M, M, N, K };
	report(st == FLYRT_SUCCESS && mm_ok(&m, why, sizeof why), "its result is within the bound", "%s", why);
	report(all_nan(cbuf, G) && all_nan(cbuf + G + M * N, G), "out's guards are untouched", "written");
	int untouched = 1;
	for (int i = 0; i < G; i++)
		untouched = untouched && bbuf[i] == 0x7fc0 && bbuf[nb - 1 - i] == 0x7fc0;
	report(untouched, "inputs' guards are untouched", "written");
	free(abuf);
	free(bbuf);
	free(cbuf);
	free(a0);
}

/* a ranks before b in topk's order: NaN largest, then greater, then the lower index */
static int
topk_before(float a, int ia, float b, int ib)
{
	if (isnan(a) != isnan(b))
		return isnan(a);
	if (!isnan(a) && a != b)
		return a > b;
	return ia < ib;
}

/* topk from C: rows of N = 700 (not a power of two) with a padded row stride (staged),
 * NaN of both signs, +-inf, ties and an all-equal row; values (bitwise) and indices
 * against a selection in C, guards around both outputs; a plan; refusals with reasons. */
static void
topk_c(flyops_context *ctx)
{
	enum { R = 6, N = 700, LD = 712, K = 13, G = 16 };
	float *xb = malloc(R * LD * 4), *vb = malloc((G + R * K + G) * 4);
	int64_t *ib = malloc((G + R * K + G) * 8);
	char why[160] = "";
	int ok = 1;

	for (int i = 0; i < R * LD; i++)
		xb[i] = (float)(int)(frand() * 50) / 4;   /* many ties */
	for (int i = 0; i < G + R * K + G; i++) {
		uint32_t guard = 0x7fc01234u;
		memcpy(&vb[i], &guard, 4);
		ib[i] = -7;
	}
	xb[0 * LD + 5] = NAN;
	xb[0 * LD + 600] = -NAN;
	xb[1 * LD + 3] = INFINITY;
	xb[1 * LD + 699] = INFINITY;
	xb[2 * LD + 10] = -INFINITY;
	for (int j = 0; j < N; j++)
		xb[3 * LD + j] = 1.25f;
	for (int j = 0; j < N; j++)
		xb[4 * LD + j] = -INFINITY;
	int64_t sx[2] = { R, N }, tx[2] = { LD, 1 }, so[2] = { R, K };
	DLDataType F32 = { kDLFloat, 32, 1 }, I64 = { kDLInt, 64, 1 };
	DLTensor x = { xb, CPU, 2, F32, sx, tx, 0 };
	DLTensor v = { vb + G, CPU, 2, F32, so, NULL, 0 }, ix = { ib + G, CPU, 2, I64, so, NULL, 0 };
	DLTensor vd = { NULL, CPU, 2, F32, so, NULL, 0 }, id = { NULL, CPU, 2, I64, so, NULL, 0 };
	flyops_exec ex = { .plan_only = 1 };
	uint64_t launches = flyops_launches(ctx);
	flyrt_status st = flyops_topk(ctx, &x, K, 1, 1, &vd, &id, &ex);
	report(st == FLYRT_SUCCESS && !strcmp(ex.chosen, "topk_f32_reg16") && flyops_launches(ctx) == launches,
	       "topk: a plan chooses k = 13 -> the K = 16 kernel, launches nothing", "%s '%s' %s",
	       flyrt_status_name(st), ex.chosen, flyrt_last_error());
	memset(&ex, 0, sizeof ex);
	st = flyops_topk(ctx, &x, K, 1, 0, &v, &ix, &ex);
	report(st == FLYRT_SUCCESS && flyops_launches(ctx) == launches + 1, "topk of rows with a padded "
	       "stride (sorted=0 is served sorted)", "%s: %s", flyrt_status_name(st), flyrt_last_error());
	for (int r = 0; r < R && ok; r++) {
		int taken[N] = { 0 };
		for (int p = 0; p < K && ok; p++) {
			int best = -1;
			for (int j = 0; j < N; j++)
				if (!taken[j] && (best < 0 || topk_before(xb[r * LD + j], j, xb[r * LD + best], best)))
					best = j;
			taken[best] = 1;
			float got = vb[G + r * K + p];
			if (ib[G + r * K + p] != best || memcmp(&got, &xb[r * LD + best], 4)) {
				snprintf(why, sizeof why, "row %d position %d: (%g, %lld), the reference (%g, %d)", r, p,
				         got, (long long)ib[G + r * K + p], xb[r * LD + best], best);
				ok = 0;
			}
		}
	}
	report(st == FLYRT_SUCCESS && ok, "topk: values bitwise and indices as a selection in C "
	       "(NaN, +-inf, ties by ascending index)", "%s", why);
	int guards = 1;
	for (int i = 0; i < G; i++) {
		uint32_t a, b;
		memcpy(&a, &vb[i], 4);
		memcpy(&b, &vb[G + R * K + i], 4);
		guards = guards && a == 0x7fc01234u && b == 0x7fc01234u && ib[i] == -7 && ib[G + R * K + i] == -7;
	}
	report(guards, "topk: the outputs' guards are untouched", "written");
	st = flyops_topk(ctx, &x, K, 0, 1, &v, &ix, NULL);
	report(st == FLYRT_ERROR_UNSUPPORTED && strstr(flyrt_last_error(), "largest=False"),
	       "topk: largest=0 is refused with a reason", "%s: %s", flyrt_status_name(st), flyrt_last_error());
	int64_t s17[2] = { R, 17 };
	DLTensor v17 = { NULL, CPU, 2, F32, s17, NULL, 0 }, i17 = { NULL, CPU, 2, I64, s17, NULL, 0 };
	ex = (flyops_exec){ .plan_only = 1 };
	st = flyops_topk(ctx, &x, 17, 1, 1, &v17, &i17, &ex);
	report(st == FLYRT_SUCCESS && !strcmp(ex.chosen, "topk_f32_radix"), "topk: k = 17 plans radix "
	       "selection", "%s '%s' %s", flyrt_status_name(st), ex.chosen, flyrt_last_error());
	int64_t sbig[2] = { 1, 262145 }, sbo[2] = { 1, 4 };
	float *big = calloc(262145, 4);
	DLTensor xbig = { big, CPU, 2, F32, sbig, NULL, 0 };
	DLTensor vbig = { NULL, CPU, 2, F32, sbo, NULL, 0 }, ibig = { NULL, CPU, 2, I64, sbo, NULL, 0 };
	ex = (flyops_exec){ .plan_only = 1 };
	st = flyops_topk(ctx, &xbig, 4, 1, 1, &vbig, &ibig, &ex);
	report(st == FLYRT_ERROR_UNSUPPORTED && strstr(flyrt_last_error(), "N <= 262144"),
	       "topk: N = 262145 is refused with a reason", "%s: %s", flyrt_status_name(st), flyrt_last_error());
	free(big);
	free(xb);
	free(vb);
	free(ib);
}

static double
bf16_ulp(double x)
{
	return ldexp(1.0, (int)floor(log2(fmax(fabs(x), 0x1p-126))) - 7);
}

/* rms_norm with the fused residual and no weight, then its backward with a weight: x at
 * an odd byte offset, rstd with a padded stride, NaN guards around every output; h must be
 * bf16(x + residual) bitwise, y and grad_x within docs/ops.md's bounds of a double
 * reference; a plan with described outputs launches nothing. */
static void
norm_c(flyops_context *ctx)
{
	enum { R = 5, N = 1000, G = 24 };
	uint16_t *xb = malloc((G + R * N + G) * 2 + 2), *res = malloc(R * N * 2), *w = malloc(N * 2);
	uint16_t *yb = malloc((G + R * N + G) * 2), *hb = malloc((G + R * N + G) * 2);
	uint16_t *gxb = malloc((G + R * N + G) * 2), *gwb = malloc((G + N + G) * 2), *gy = malloc(R * N * 2);
	uint16_t *x0 = malloc(R * N * 2);
	float rs[G + 2 * R + G];
	double worst = 0;
	int ok = 1;

	for (int i = 0; i < G + R * N + G; i++) yb[i] = hb[i] = gxb[i] = 0x7fc0;
	for (int i = 0; i < G + N + G; i++) gwb[i] = 0x7fc0;
	for (int i = 0; i < G + 2 * R + G; i++) rs[i] = NAN;
	for (int i = 0; i < R * N; i++) {
		x0[i] = bf16(frand());
		res[i] = bf16(frand());
		gy[i] = bf16(frand());
		memcpy((uint8_t *)xb + 1 + 2 * (G + i), &x0[i], 2);
	}
	for (int i = 0; i < N; i++) w[i] = bf16(2 * frand());
	int64_t sx[2] = { R, N }, sr[2] = { R, 1 }, tr[2] = { 2, 1 }, sw[1] = { N };
	DLDataType F32 = { kDLFloat, 32, 1 };
	DLTensor x = { xb, CPU, 2, BF16, sx, NULL, 1 + 2 * G }, rt = { res, CPU, 2, BF16, sx, NULL, 0 };
	DLTensor y = { yb + G, CPU, 2, BF16, sx, NULL, 0 }, h = { hb + G, CPU, 2, BF16, sx, NULL, 0 };
	DLTensor r = { rs + G, CPU, 2, F32, sr, tr, 0 };
	DLTensor yd = { NULL, CPU, 2, BF16, sx, NULL, 0 }, hd = { NULL, CPU, 2, BF16, sx, NULL, 0 };
	DLTensor rd = { NULL, CPU, 2, F32, sr, NULL, 0 };
	flyops_exec ex = { .plan_only = 1 };
	uint64_t launches = flyops_launches(ctx);
	flyrt_status st = flyops_rms_norm(ctx, &x, NULL, 1e-5, &rt, &yd, &rd, &hd, &ex);
	report(st == FLYRT_SUCCESS && !strcmp(ex.chosen, "rms_norm_bf16_n2048") &&
	       flyops_launches(ctx) == launches, "rms_norm: a plan chooses and launches nothing",
	       "%s '%s' %s", flyrt_status_name(st), ex.chosen, flyrt_last_error());
	memset(&ex, 0, sizeof ex);
	st = flyops_rms_norm(ctx, &x, NULL, 1e-5, &rt, &y, &r, &h, &ex);
	report(st == FLYRT_SUCCESS && flyops_launches(ctx) == launches + 1, "rms_norm with a residual, "
	       "no weight, x at an odd byte offset", "%s: %s", flyrt_status_name(st), flyrt_last_error());
	for (int i = 0; i < R; i++) {
		double ss = 0;
		for (int j = 0; j < N; j++) {
			uint16_t hv = bf16(f32(x0[i * N + j]) + f32(res[i * N + j]));
			ok = ok && hb[G + i * N + j] == hv;
			ss += (double)f32(hv) * f32(hv);
		}
		double r64 = 1 / sqrt(ss / N + 1e-5);
		ok = ok && fabs(rs[G + 2 * i] - r64) <= (N / 1024.0 + 48) * 0x1p-24 * r64 && isnan(rs[G + 2 * i + 1]);
		for (int j = 0; j < N; j++) {
			double want = f32(hb[G + i * N + j]) * r64, err = fabs(f32(yb[G + i * N + j]) - want);
			worst = fmax(worst, err);
			ok = ok && err <= bf16_ulp(want) + (N / 1024.0 + 52) * 0x1p-24 * fabs(want);
		}
	}
	report(st == FLYRT_SUCCESS && ok, "its h is bitwise x + residual, rstd and y within the bound",
	       "max |y error| %g", worst);
	report(all_nan(yb, G) && all_nan(yb + G + R * N, G) && all_nan(hb, G) && all_nan(hb + G + R * N, G) &&
	       isnan(rs[G - 1]) && isnan(rs[G + 2 * R]), "rms_norm: the outputs' guards are untouched", "written");
	/* backward of y over h with the weight w, the rstd just computed */
	DLTensor g = { gy, CPU, 2, BF16, sx, NULL, 0 }, wt = { w, CPU, 1, BF16, sw, NULL, 0 };
	DLTensor gx = { gxb + G, CPU, 2, BF16, sx, NULL, 0 }, gw = { gwb + G, CPU, 1, BF16, sw, NULL, 0 };
	memset(&ex, 0, sizeof ex);
	st = flyops_rms_norm_backward(ctx, &g, &h, &wt, &r, &gx, &gw, &ex);
	ok = st == FLYRT_SUCCESS && !strcmp(ex.chosen, "rms_norm_bwd_bf16_n2048") &&
	     flyops_launches(ctx) == launches + 3;   /* grad_x and partial sums, then their sum */
	for (int i = 0; i < R && ok; i++) {
		double rr = rs[G + 2 * i], dot = 0, mag = 0;
		for (int j = 0; j < N; j++) {
			double t = (double)f32(gy[i * N + j]) * f32(w[j]) * f32(hb[G + i * N + j]);
			dot += t;
			mag += fabs(t);
		}
		for (int j = 0; j < N; j++) {
			double gwv = (double)f32(gy[i * N + j]) * f32(w[j]), xv = f32(hb[G + i * N + j]);
			double want = rr * (gwv - xv * rr * rr * dot / N);
			double tol = bf16_ulp(want) + (N / 1024.0 + 52) * 0x1p-24 * rr * (fabs(gwv) + fabs(xv) * rr * rr * mag / N);
			ok = ok && fabs(f32(gxb[G + i * N + j]) - want) <= tol;
		}
	}
	for (int j = 0; j < N && ok; j++) {
		double want = 0, mag = 0;
		for (int i = 0; i < R; i++) {
			double t = (double)f32(gy[i * N + j]) * f32(hb[G + i * N + j]) * rs[G + 2 * i];
			want += t;
			mag += fabs(t);
		}
		ok = fabs(f32(gwb[G + j]) - want) <= bf16_ulp(want) + (R + 3) * 0x1p-24 * mag;
	}
	report(ok, "rms_norm_backward: grad_x and grad_weight within the bound", "%s: %s '%s'",
	       flyrt_status_name(st), flyrt_last_error(), ex.chosen);
	report(all_nan(gxb, G) && all_nan(gxb + G + R * N, G) && all_nan(gwb, G) && all_nan(gwb + G + N, G),
	       "rms_norm_backward: the outputs' guards are untouched", "written");
	free(xb); free(res); free(w); free(yb); free(hb); free(gxb); free(gwb); free(gy); free(x0);
}

static void
mm_checks(flyops_context *ctx)
{
	static uint16_t pa[128 * 64], pb[64 * 128], pc[128 * 128];
	int64_t sa[2] = { 128, 64 }, sb[2] = { 64, 128 }, tb[2] = { 1, 64 }, sc[2] = { 128, 128 };
	DLTensor a = { pa, CPU, 2, BF16, sa, NULL, 0 }, b = { pb, CPU, 2, BF16, sb, tb, 0 };
	DLTensor c = { pc, CPU, 2, BF16, sc, NULL, 0 }, cdesc = { NULL, CPU, 2, BF16, sc, NULL, 0 };
	flyops_exec ex;
	uint64_t launches = flyops_launches(ctx);
	flyrt_status st;

	for (int i = 0; i < 128 * 64; i++)
		pa[i] = bf16(frand()), pb[i] = bf16(frand());
	memset(&ex, 0, sizeof ex);
	ex.plan_only = 1;
	st = flyops_mm(ctx, &a, &b, NULL, &cdesc, &ex);
	report(st == FLYRT_SUCCESS && !strcmp(ex.chosen, "gemm_nt_128x128") && flyops_launches(ctx) == launches,
	       "a plan with out described (data NULL) chooses and launches nothing", "%s %s",
	       flyrt_status_name(st), ex.chosen);
	st = flyops_mm(ctx, &a, &b, NULL, &cdesc, NULL);
	report(st == FLYRT_ERROR_INVALID_VALUE && strstr(flyrt_last_error(), "out: data is NULL"),
	       "a call with out data NULL is refused", "%s", flyrt_last_error());
	memset(&ex, 0, sizeof ex);
	ex.variant = "gemm_nt_ragged";
	st = flyops_mm(ctx, &a, &b, NULL, &c, &ex);
	report(st == FLYRT_SUCCESS && !strcmp(ex.chosen, "gemm_nt_ragged") &&
	       flyops_launches(ctx) == launches + 1, "a forced variant runs", "%s %s",
	       flyrt_status_name(st), flyrt_last_error());
	ex.variant = "gemm_nt_64x64";
	st = flyops_mm(ctx, &a, &b, NULL, &c, &ex);
	report(st == FLYRT_ERROR_INVALID_VALUE && strstr(flyrt_last_error(), "no variant 'gemm_nt_64x64'"),
	       "an unknown forced variant is refused", "%s", flyrt_last_error());
	ex.variant = NULL;
	ex.stream = (void *)0x1234;
	st = flyops_mm(ctx, &a, &b, NULL, &c, &ex);
	report(st == FLYRT_ERROR_UNSUPPORTED && strstr(flyrt_last_error(), "stream"),
	       "a non-default stream is unsupported", "%s", flyrt_last_error());
	/* b with NULL strides is a compact [K, N]: NN, the transposed-read tile kernel */
	DLTensor bn = { pb, CPU, 2, BF16, sb, NULL, 0 };
	ex.stream = NULL;
	st = flyops_mm(ctx, &a, &bn, NULL, &c, &ex);
	report(st == FLYRT_SUCCESS && !strcmp(ex.chosen, "gemm_nn_128x128"), "NN runs gemm_nn_128x128",
	       "%s %s", flyrt_status_name(st), flyrt_last_error());

	/* malformed tensors and devices */
	int64_t neg[2] = { -1, 64 }, huge[2] = { INT64_MAX / 2, 1 };
	DLTensor bad[] = {
		{ pa, CPU, -1, BF16, sa, NULL, 0 },
		{ pa, CPU, 2, BF16, NULL, NULL, 0 },
		{ pa, CPU, 2, BF16, neg, NULL, 0 },
		{ NULL, CPU, 2, BF16, sa, NULL, 0 },
		{ pa, CPU, 2, BF16, sa, huge, 0 },
		{ (void *)(uintptr_t)8, CPU, 2, BF16, sa, (int64_t[]){ -64, 1 }, 0 },   /* below address 0 */
	};
	const char *bad_name[] = { "ndim -1", "shape NULL", "a negative extent", "data NULL",
	                           "strides beyond 64-bit offsets", "an address below 0" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char name[96];
		snprintf(name, sizeof name, "a tensor with %s is INVALID_VALUE", bad_name[i]);
		st = flyops_mm(ctx, &bad[i], &b, NULL, &c, NULL);
		report(st == FLYRT_ERROR_INVALID_VALUE, name, "%s: %s", flyrt_status_name(st), flyrt_last_error());
	}
	DLTensor unsup[] = {
		{ pa, CPU, 2, { kDLBfloat, 16, 2 }, sa, NULL, 0 },
		{ pa, CPU, 2, { kDLComplex, 64, 1 }, sa, NULL, 0 },
		{ pa, { kDLCUDA, 0 }, 2, BF16, sa, NULL, 0 },
		{ pa, { kDLROCM, 0 }, 2, BF16, sa, NULL, 0 },
		{ pa, CPU, 9, BF16, (int64_t[9]){ 1, 1, 1, 1, 1, 1, 1, 128, 64 }, NULL, 0 },
	};
	const char *unsup_word[] = { "lanes", "DLPack dtype", "device type 2", "ROCm device tensor",
	                             "at most 8" };
	for (size_t i = 0; i < sizeof unsup / sizeof unsup[0]; i++) {
		char name[96];
		snprintf(name, sizeof name, "a tensor with %s is UNSUPPORTED", unsup_word[i]);
		st = flyops_mm(ctx, &unsup[i], &b, NULL, &c, NULL);
		report(st == FLYRT_ERROR_UNSUPPORTED && strstr(flyrt_last_error(), unsup_word[i]), name,
		       "%s: %s", flyrt_status_name(st), flyrt_last_error());
	}
	report(flyops_mm(NULL, &a, &b, NULL, &c, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_mm(ctx, NULL, &b, NULL, &c, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_grouped_mm(ctx, &a, &b, NULL, &c, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_scaled_mm(ctx, &a, &b, &a, &b, FLYOPS_MXFP8, NULL, NULL, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_scaled_mm(ctx, &a, &b, &a, &b, (flyops_mx_format)7, NULL, &c, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_rms_norm(ctx, &a, NULL, NAN, NULL, NULL, &c, NULL, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_rms_norm(ctx, &a, NULL, NAN, NULL, &a, &c, &c, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_rms_norm_backward(ctx, &a, &a, NULL, &c, NULL, NULL, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_topk(ctx, &a, 1, 1, 1, NULL, &c, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_attention(ctx, &a, &a, &a, 0, NAN, NULL, NULL, NULL) == FLYRT_ERROR_INVALID_VALUE &&
	       flyops_attention_backward(ctx, &a, &a, &a, &a, &a, NULL, 0, NAN, &a, &a, &a, NULL) ==
	       FLYRT_ERROR_INVALID_VALUE,
	       "missing required tensors are INVALID_VALUE for every operator", "%s", flyrt_last_error());
}

typedef struct {
	flyops_context *ctx;
	int ok;
	char why[256];
} Worker;

static void *
worker(void *arg)
{
	Worker *w = arg;
	enum { M = 128, N = 256, K = 64 };
	uint16_t *a = malloc(M * K * 2), *bt = malloc(N * K * 2), *c = malloc(M * N * 2);
	int64_t sa[2] = { M, K }, sb[2] = { K, N }, tb[2] = { 1, K }, sc[2] = { M, N };
	uint32_t s = (uint32_t)(uintptr_t)arg;
	for (int i = 0; i < M * K; i++)
		s = s * 1664525u + 1013904223u, a[i] = bf16((float)((s >> 9) & 0xff) / 128.0f - 1.0f);
	for (int i = 0; i < N * K; i++)
		s = s * 1664525u + 1013904223u, bt[i] = bf16((float)((s >> 9) & 0xff) / 128.0f - 1.0f);
	DLTensor A = { a, CPU, 2, BF16, sa, NULL, 0 }, B = { bt, CPU, 2, BF16, sb, tb, 0 };
	DLTensor C = { c, CPU, 2, BF16, sc, NULL, 0 };
	w->ok = 1;
	for (int r = 0; r < 3 && w->ok; r++) {
		if (flyops_mm(w->ctx, &A, &B, NULL, &C, NULL) != FLYRT_SUCCESS) {
			snprintf(w->why, sizeof w->why, "%s", flyrt_last_error());
			w->ok = 0;
			break;
		}
		MmCheck m = { a, bt, c, K, 1, 1, K, N, 1, M, N, K };
		w->ok = mm_ok(&m, w->why, sizeof w->why);
	}
	free(a);
	free(bt);
	free(c);
	return NULL;
}

static void
threads(flyops_context *ctx)
{
	Worker w[2];
	pthread_t th[2];
	for (int i = 0; i < 2; i++) {
		w[i].ctx = ctx;
		w[i].why[0] = 0;
		pthread_create(&th[i], NULL, worker, &w[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	report(w[0].ok && w[1].ok, "two threads share a context", "%s %s", w[0].why, w[1].why);
}

static void
options(const char *dbdir)
{
	flyops_context *ctx;
	flyops_options o = { "sim", "/nonexistent/kernels", "" };
	static uint16_t pa[256 * 64], pb[64 * 256];
	int64_t sa[2] = { 256, 64 }, sb[2] = { 64, 256 }, tb[2] = { 1, 64 }, sc[2] = { 256, 256 };
	DLTensor a = { pa, CPU, 2, BF16, sa, NULL, 0 }, b = { pb, CPU, 2, BF16, sb, tb, 0 };
	DLTensor c = { NULL, CPU, 2, BF16, sc, NULL, 0 };
	flyops_exec ex;
	flyrt_status st;

	st = flyops_create(&o, &ctx);
	report(st == FLYRT_SUCCESS, "a missing kernel directory is not an error at creation", "%s",
	       flyrt_last_error());
	if (st == FLYRT_SUCCESS) {
		memset(&ex, 0, sizeof ex);
		ex.plan_only = 1;
		st = flyops_mm(ctx, &a, &b, NULL, &c, &ex);
		report(st == FLYRT_ERROR_UNSUPPORTED && strstr(flyrt_last_error(), "/nonexistent/kernels"),
		       "but a call needing a kernel names it", "%s", flyrt_last_error());
		flyops_destroy(ctx);
	}
	o.kernel_dir = NULL;
	o.tuning_db = "/nonexistent/tuning.db";
	report(flyops_create(&o, &ctx) == FLYRT_ERROR_FILE && strstr(flyrt_last_error(), "/nonexistent/tuning.db"),
	       "an unreadable tuning database is a FILE error", "%s", flyrt_last_error());
	/* a database preferring the 256x256 tile for this bucket, with this build's validators */
	char path[512], kpath[600], hash[32];
	flyrt_tuning *t;
	o.tuning_db = "";
	if (flyops_create(&o, &ctx) != FLYRT_SUCCESS) {
		report(0, "a context opens", "%s", flyrt_last_error());
		return;
	}
	snprintf(kpath, sizeof kpath, "%s/gfx950/gemm.hsaco", flyops_kernel_dir(ctx));
	FILE *f = fopen(kpath, "rb");
	static uint8_t bytes[1 << 23];   /* gemm.hsaco is over 1 MiB */
	size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
	if (f)
		fclose(f);
	flyrt_codeobj_hash(bytes, n, hash, sizeof hash);
	flyops_destroy(ctx);
	snprintf(path, sizeof path, "%s/c.db", dbdir);
	flyrt_tuning_row r = { "gfx950", "mm", "bf16->bf16", "NT", "M>128 M<=256 N>128 N<=256",
	                       "gemm_nt_256x256 gemm_nt_128x128", "", flyrt_version(), hash };
	flyrt_tuning_new(&t);
	flyrt_tuning_add(t, &r);
	st = flyrt_tuning_save(t, path);
	flyrt_tuning_destroy(t);
	o.tuning_db = path;
	if (st != FLYRT_SUCCESS || flyops_create(&o, &ctx) != FLYRT_SUCCESS) {
		report(0, "a context with a tuning database opens", "%s", flyrt_last_error());
		return;
	}
	memset(&ex, 0, sizeof ex);
	ex.plan_only = 1;
	st = flyops_mm(ctx, &a, &b, NULL, &c, &ex);
	report(st == FLYRT_SUCCESS && !strcmp(ex.chosen, "gemm_nt_256x256"), "the database's choice is "
	       "taken", "%s %s", ex.chosen, flyrt_last_error());
	sa[0] = 384;                      /* outside the bucket: the default */
	a.shape = sa;
	static uint16_t pa2[384 * 64];
	a.data = pa2;
	sc[0] = 384;
	st = flyops_mm(ctx, &a, &b, NULL, &c, &ex);
	report(st == FLYRT_SUCCESS && !strcmp(ex.chosen, "gemm_nt_128x128"), "outside its bucket the "
	       "default is", "%s %s", ex.chosen, flyrt_last_error());
	report(!strcmp(flyops_tuning_path(ctx), path), "the context names its database", "%s",
	       flyops_tuning_path(ctx));
	flyops_destroy(ctx);
}

int
main(int argc, char **argv)
{
	flyops_context *ctx;
	flyops_options o = { "sim", NULL, "" };

	if (argc != 2) {
		fprintf(stderr, "usage: ops_c TMPDIR\n");
		return 2;
	}
	if (flyops_create(&o, &ctx) != FLYRT_SUCCESS) {
		printf("FAIL: ops-c: a context opens\n    %s\n", flyrt_last_error());
		return 1;
	}
	report(flyops_kernel_dir(ctx)[0] != 0, "the kernel library is found", "not found");
	mm_hostile(ctx);
	mm_checks(ctx);
	norm_c(ctx);
	topk_c(ctx);
	threads(ctx);
	flyops_destroy(ctx);
	options(argv[1]);
	const char *names[8];
	report(flyops_variants(FLYOPS_MM, "gfx950", names, 8) == 53 && !strcmp(names[0], "gemm_nt_128x128") &&
	       !strcmp(names[4], "gemm_nn_128x128") && !strcmp(names[7], "gemm_tn_256x256") &&
	       flyops_variants(FLYOPS_TOPK, "gfx950", names, 8) == 5 && !strcmp(names[4], "topk_f32_radix") &&
	       flyops_variants(FLYOPS_RMS_NORM, "gfx950", names, 8) == 36 &&
	       !strcmp(names[0], "rms_norm_bf16_r16") &&
	       flyops_variants((flyops_op)99, "gfx950", names, 8) == -1 &&
	       !strcmp(flyops_op_name(FLYOPS_ATTENTION_BACKWARD), "attention_backward") &&
	       !flyops_op_name((flyops_op)99), "the variant and operator tables", "");
	return failures != 0;
}
