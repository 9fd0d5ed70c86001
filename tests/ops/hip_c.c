/*
 * hip_c.c — the operator library's HIP paths against a stand-in HIP runtime
 * (tests/ops/fake_hip_gemm.c through FLYRT_HIP_LIBRARY: a gfx950 device whose memory is
 * host memory and whose gemm_nt_* launches are computed on the CPU). Checks which
 * operands reach the kernel by address (ROCm tensors laid out as the kernel reads them)
 * and which are staged (padded, misaligned, an output overlapping an input, a transposed
 * output, host tensors), and that every result is exact for integer inputs;
 * attention_backward's operands and the (batch, head, sequence) strides its dQ kernel gets
 * (a transposed [B, S, H, D] view by address, a padded one staged compactly). The GPU
 * kernels themselves are not run here (no GPU); the simulator tests them.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyops.h"

static int failures;
static void (*fake_last)(uint64_t out[3]);
static const char *(*fake_attn)(int64_t out[32]);
static int (*fake_xcds)(void);

static void
report(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	printf("%s: ops-hip: %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok) {
		printf("    ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		failures++;
	}
}

static float
f32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint16_t
bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

enum { M = 128, N = 128, K = 128 };
static uint16_t A0[M * K], B0[N * K], want[M * N];
static const DLDataType BF16 = { kDLBfloat, 16, 1 };
static const DLDevice GPU = { kDLROCM, 0 };

/* c(i, j) at c + i * s0 + j * s1 equals the exact product (small integers: exact in f32) */
static int
exact(const uint16_t *c, int64_t s0, int64_t s1)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++)
			if (c[i * s0 + j * s1] != want[i * N + j])
				return 0;
	return 1;
}

/* device memory of the stand-in is host memory: its address is usable here */
static uint16_t *
dev_alloc(flyops_context *ctx, size_t elems, const uint16_t *init)
{
	flyrt_deviceptr p;
	if (flyrt_malloc(flyops_device(ctx), elems * 2, &p))
		return NULL;
	if (init)
		flyrt_memcpy_htod(flyops_device(ctx), p, init, elems * 2);
	return (uint16_t *)(uintptr_t)p;
}

/* attention_backward, B = 2, H = 2, S = 8, D = 32: q a transposed [B, S, H, D] view,
 * the rest compact; then q padded along S (staged) */
static void
attention(flyops_context *ctx)
{
	enum { B = 2, H = 2, S = 8, D = 32, E = B * H * S * D };
	static const DLDataType F32 = { kDLFloat, 32, 1 };
	int64_t shape[4] = { B, H, S, D }, bshd[4] = { S * H * D, D, H * D, 1 };
	int64_t pad[4] = { H * S * 40, S * 40, 40, 1 }, lshape[3] = { B, H, S }, st[32];
	uint16_t *t[7], *qp = dev_alloc(ctx, B * H * S * 40, NULL);
	float *lse = (float *)dev_alloc(ctx, 2 * B * H * S, NULL);
	for (int i = 0; i < 7; i++)
		t[i] = dev_alloc(ctx, E, NULL);
	DLTensor q = { t[0], GPU, 4, BF16, shape, bshd, 0 }, x[6], l = { lse, GPU, 3, F32, lshape, NULL, 0 };
	for (int i = 0; i < 6; i++)
		x[i] = (DLTensor){ t[i + 1], GPU, 4, BF16, shape, NULL, 0 };
	/* x: k, v, dO, O, dq, dk (t[1..6]); dv apart */
	uint16_t *dv = dev_alloc(ctx, E, NULL);
	DLTensor dvt = { dv, GPU, 4, BF16, shape, NULL, 0 };
	flyrt_status s = flyops_attention_backward(ctx, &x[2], &q, &x[0], &x[1], &x[3], &l, 1, NAN,
	                                           &x[4], &x[5], &dvt, NULL);
	const char *name = fake_attn(st);
	report(s == FLYRT_SUCCESS && !strcmp(name, "attn_bwd_dq_bf16_d32") && st[0] == (int64_t)(uintptr_t)t[0] &&
	       st[4] == (int64_t)(uintptr_t)t[5] && st[15] == S * H * D && st[16] == D && st[17] == H * D &&
	       st[27] == H * S * D && st[28] == S * D && st[29] == D,
	       "attention_backward reads a transposed [B, S, H, D] ROCm view by address with its strides",
	       "%s %s: %s q %lld %lld %lld dq %lld %lld %lld", flyrt_status_name(s), flyrt_last_error(),
	       name, (long long)st[15], (long long)st[16], (long long)st[17], (long long)st[27],
	       (long long)st[28], (long long)st[29]);
	DLTensor qpad = { qp, GPU, 4, BF16, shape, pad, 0 };
	s = flyops_attention_backward(ctx, &x[2], &qpad, &x[0], &x[1], &x[3], &l, 0, NAN, &x[4], &x[5],
	                              &dvt, NULL);
	fake_attn(st);
	report(s == FLYRT_SUCCESS && st[0] != (int64_t)(uintptr_t)qp && st[15] == H * S * D &&
	       st[16] == S * D && st[17] == D, "attention_backward stages a padded ROCm q compactly",
	       "%s %s", flyrt_status_name(s), flyrt_last_error());
	for (int i = 0; i < 7; i++)
		flyrt_free(flyops_device(ctx), (flyrt_deviceptr)(uintptr_t)t[i]);
	flyrt_free(flyops_device(ctx), (flyrt_deviceptr)(uintptr_t)qp);
	flyrt_free(flyops_device(ctx), (flyrt_deviceptr)(uintptr_t)lse);
	flyrt_free(flyops_device(ctx), (flyrt_deviceptr)(uintptr_t)dv);
}

int
main(void)
{
	flyops_context *ctx;
	flyops_options o = { "hip", NULL, "" };
	const char *lib = getenv("FLYRT_HIP_LIBRARY");
	void *h = lib ? dlopen(lib, RTLD_NOW) : NULL;
	uint64_t last[3];
	flyops_exec ex;
	flyrt_status st;

	if (!h || !(fake_last = (void (*)(uint64_t *))dlsym(h, "fake_hip_last")) ||
	    !(fake_attn = (const char *(*)(int64_t *))dlsym(h, "fake_hip_attn")) ||
	    !(fake_xcds = (int (*)(void))dlsym(h, "fake_hip_xcds"))) {
		printf("FAIL: ops-hip: the stand-in HIP runtime loads\n    %s\n", lib ? dlerror() : "FLYRT_HIP_LIBRARY unset");
		return 1;
	}
	/* the stand-in device is at PCI 0000:23:00.0: 2 XCDs in this KFD topology (its CU
	 * count is unknown, so the derived count would be 1) */
	setenv("FLY_KFD_TOPOLOGY", "tests/runtime/kfd", 1);
	unsetenv("FLY_XCDS");
	if (flyops_create(&o, &ctx) != FLYRT_SUCCESS) {
		printf("FAIL: ops-hip: a HIP context opens\n    %s\n", flyrt_last_error());
		return 1;
	}
	report(flyrt_device_backend(flyops_device(ctx)) == FLYRT_BACKEND_HIP &&
	       !strcmp(flyrt_device_arch(flyops_device(ctx)), "gfx950"), "a HIP context on the stand-in gfx950",
	       "%s", flyrt_device_name(flyops_device(ctx)));
	uint32_t s = 7;
	for (int i = 0; i < M * K; i++)
		s = s * 1664525u + 1013904223u, A0[i] = bf16((float)((int)(s >> 29) - 3));
	for (int i = 0; i < N * K; i++)
		s = s * 1664525u + 1013904223u, B0[i] = bf16((float)((int)(s >> 29) - 3));
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += f32(A0[i * K + k]) * f32(B0[j * K + k]);
			want[i * N + j] = bf16(acc);
		}
	int64_t sa[2] = { M, K }, sb[2] = { K, N }, tb[2] = { 1, K }, sc[2] = { M, N };
	uint16_t *da = dev_alloc(ctx, M * K, A0), *db = dev_alloc(ctx, N * K, B0), *dc = dev_alloc(ctx, M * N, NULL);
	DLTensor a = { da, GPU, 2, BF16, sa, NULL, 0 }, b = { db, GPU, 2, BF16, sb, tb, 0 };
	DLTensor c = { dc, GPU, 2, BF16, sc, NULL, 0 };

	memset(&ex, 0, sizeof ex);
	st = flyops_mm(ctx, &a, &b, NULL, &c, &ex);
	fake_last(last);
	report(st == FLYRT_SUCCESS && last[0] == (uintptr_t)da && last[1] == (uintptr_t)db &&
	       last[2] == (uintptr_t)dc && exact(dc, N, 1), "compact ROCm tensors are passed by address",
	       "%s %s", flyrt_status_name(st), flyrt_last_error());
	report(st == FLYRT_SUCCESS && flyrt_device_xcds(flyops_device(ctx)) == 2 && fake_xcds() == 2,
	       "mm's xcds is the KFD topology's XCD count", "device %u, kernel %d",
	       flyrt_device_xcds(flyops_device(ctx)), fake_xcds());
	setenv("FLY_XCDS", "5", 1);
	memset(dc, 0, (size_t)M * N * 2);
	st = flyops_mm(ctx, &a, &b, NULL, &c, &ex);
	unsetenv("FLY_XCDS");
	report(st == FLYRT_SUCCESS && fake_xcds() == 5 && exact(dc, N, 1), "FLY_XCDS overrides mm's xcds",
	       "%s, kernel %d", flyrt_status_name(st), fake_xcds());

	/* padded rows and a misaligned start: staged */
	uint16_t *pad = dev_alloc(ctx, M * (K + 8) + 1, NULL);
	for (int i = 0; i < M; i++)
		flyrt_memcpy_htod(flyops_device(ctx), (flyrt_deviceptr)(uintptr_t)(pad + 1 + i * (K + 8)), A0 + i * K, K * 2);
	int64_t tp[2] = { K + 8, 1 };
	DLTensor ap = { pad, GPU, 2, BF16, sa, tp, 2 };
	memset(dc, 0, M * N * 2);
	st = flyops_mm(ctx, &ap, &b, NULL, &c, NULL);
	fake_last(last);
	report(st == FLYRT_SUCCESS && last[0] != (uintptr_t)(pad + 1) && last[1] == (uintptr_t)db &&
	       exact(dc, N, 1), "a padded, misaligned ROCm operand is staged", "%s", flyrt_last_error());

	/* out overlapping an input: computed from the input as it was */
	uint16_t *dov = dev_alloc(ctx, M * K, A0);
	DLTensor ao = { dov, GPU, 2, BF16, sa, NULL, 0 }, co = { dov, GPU, 2, BF16, sc, NULL, 0 };
	st = flyops_mm(ctx, &ao, &b, NULL, &co, NULL);
	fake_last(last);
	report(st == FLYRT_SUCCESS && last[0] == (uintptr_t)dov && last[2] != (uintptr_t)dov &&
	       exact(dov, N, 1), "an out overlapping an input goes to a staging buffer", "%s", flyrt_last_error());

	/* a transposed out: scattered through its strides */
	int64_t tt[2] = { 1, M };
	DLTensor ct = { dc, GPU, 2, BF16, sc, tt, 0 };
	memset(dc, 0, M * N * 2);
	st = flyops_mm(ctx, &a, &b, NULL, &ct, NULL);
	report(st == FLYRT_SUCCESS && exact(dc, 1, M), "a column-major ROCm out is scattered", "%s",
	       flyrt_last_error());

	/* host tensors on a HIP device: staged through device memory */
	static uint16_t hc[M * N];
	DLTensor ha = { A0, { kDLCPU, 0 }, 2, BF16, sa, NULL, 0 }, hb = { B0, { kDLCPU, 0 }, 2, BF16, sb, tb, 0 };
	DLTensor hcc = { hc, { kDLCPU, 0 }, 2, BF16, sc, NULL, 0 };
	st = flyops_mm(ctx, &ha, &hb, NULL, &hcc, NULL);
	fake_last(last);
	report(st == FLYRT_SUCCESS && last[0] != (uintptr_t)A0 && exact(hc, N, 1),
	       "host tensors are staged to the HIP device", "%s", flyrt_last_error());

	/* grouped_mm: a ROCm offs is never read on the host (that would synchronise): a plan
	 * with decreasing ends is accepted (the kernel clamps them, tests/grouped) and takes
	 * the persistent kernel (the grid is the bound), the same ends in host memory are
	 * refused */
	int32_t ends[2] = { 100, 40 };
	uint16_t *doffs = dev_alloc(ctx, 4, (const uint16_t *)ends);
	int64_t sg[3] = { 2, K, 64 }, so[1] = { 2 }, sgo[2] = { M, 64 };
	DLTensor gb = { db, GPU, 3, BF16, sg, NULL, 0 }, go = { dc, GPU, 2, BF16, sgo, NULL, 0 };
	DLTensor gofs = { doffs, GPU, 1, { kDLInt, 32, 1 }, so, NULL, 0 };
	DLTensor hofs = { ends, { kDLCPU, 0 }, 1, { kDLInt, 32, 1 }, so, NULL, 0 };
	memset(&ex, 0, sizeof ex);
	ex.plan_only = 1;
	st = flyops_grouped_mm(ctx, &a, &gb, &gofs, &go, &ex);
	report(st == FLYRT_SUCCESS && !strcmp(ex.chosen, "grouped_mm_nn_bf16_n64_p"),
	       "grouped_mm: a ROCm offs is not read on the host", "%s %s", flyrt_status_name(st),
	       flyrt_last_error());
	st = flyops_grouped_mm(ctx, &a, &gb, &hofs, &go, &ex);
	report(st == FLYRT_ERROR_INVALID_VALUE && strstr(flyrt_last_error(), "non-decreasing"),
	       "grouped_mm: a host offs is checked", "%s %s", flyrt_status_name(st), flyrt_last_error());

	attention(ctx);

	DLTensor other = { da, { kDLROCM, 1 }, 2, BF16, sa, NULL, 0 };
	st = flyops_mm(ctx, &other, &b, NULL, &c, NULL);
	report(st == FLYRT_ERROR_UNSUPPORTED && strstr(flyrt_last_error(), "ROCm device 1"),
	       "a tensor on another ROCm device is unsupported", "%s", flyrt_last_error());
	/* HIP keeps device memory past the device's close (docs/runtime.md): free it */
	const uint16_t *bufs[] = { da, db, dc, pad, dov, doffs };
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		flyrt_free(flyops_device(ctx), (flyrt_deviceptr)(uintptr_t)bufs[i]);
	flyops_destroy(ctx);
	return failures != 0;
}
