/*
 * fake_hip_gemm.c — a stand-in libamdhip64 (FLYRT_HIP_LIBRARY) for the operator library's
 * HIP paths on a machine without a GPU: one gfx950 device whose memory is host memory,
 * whose hipModuleLaunchKernel computes the gemm_nt_* kernels' C = A * B^T (bf16, f32
 * accumulation in K order, round to nearest even) on the CPU from the kernelParams it is
 * given, and split-K's two (gemm_nt_splitk, gemm_splitk_sum_bf16 and _f32).
 * fake_hip_last() tells the test which addresses the last gemm_nt_* launch received (so
 * it sees what was passed by address and what was staged), fake_hip_xcds() its xcds; the attn_bwd_* kernels of
 * attention_backward compute nothing, fake_hip_attn() returns the last one's name, pointers
 * and stride arguments. Only the entry points libflyrt resolves (runtime/hip/flyrt_hip.c)
 * are defined.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int inited, current = -1, launches;
static uint64_t last[3];
static int last_xcds;        /* the last gemm_nt_* launch's xcds */
static int64_t attn[32];     /* the last attn_bwd_* launch: pointers (0..6), strides (15..) */
static char attn_name[64];

int hipInit(unsigned flags) { (void)flags; inited = 1; return 0; }
int hipGetDeviceCount(int *n) { *n = inited ? 1 : 0; return inited ? 0 : 3; }
int hipSetDevice(int d) { if (d >= 1) return 101; current = d; return 0; }
/* LDS 160 KiB, CUs unknown (0), PCI 0000:23:00.0 (tests/runtime/kfd: 2 XCDs) */
int hipDeviceGetAttribute(int *v, int attr, int dev) { (void)dev; *v = attr == 74 ? 160 * 1024 : attr == 67 ? 0x23 : 0; return 0; }
int hipGetDevicePropertiesR0600(void *prop, int dev) { (void)dev; strcpy((char *)prop + 1160, "gfx950:sramecc+:xnack-"); return 0; }
int hipModuleLoadData(void **mod, const void *image) { (void)image; *mod = malloc(1); return 0; }
int hipModuleUnload(void *mod) { free(mod); return 0; }
int hipMalloc(void **p, size_t n) { *p = calloc(1, n); return *p ? 0 : 2; }
int hipFree(void *p) { free(p); return 0; }
int hipMemcpy(void *d, const void *s, size_t n, int kind) { (void)kind; memmove(d, s, n); return 0; }
int hipDeviceSynchronize(void) { return current < 0 ? 1 : 0; }
const char *hipGetErrorString(int e) { (void)e; return "fake hip error"; }

static char names[256][64];   /* a function per kernel of the loaded code objects */
static int nnames;

int
hipModuleGetFunction(void **fn, void *mod, const char *name)
{
	(void)mod;
	for (int i = 0; i < nnames; i++)
		if (!strcmp(names[i], name)) {
			*fn = names[i];
			return 0;
		}
	if (nnames == 256 || strlen(name) >= 64)
		return 500;
	strcpy(names[nnames], name);
	*fn = names[nnames++];
	return 0;
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

/* split-K's partial sums (bf16): A, B, P [S, M, N] f32, M, N, K, KS, S, xcds; range s
 * takes k-tiles [s KS, (s + 1) KS) of 64 */
static int
splitk(void **params)
{
	const uint16_t *a = *(uint16_t **)params[0], *b = *(uint16_t **)params[1];
	float *p = *(float **)params[2];
	int M = *(int *)params[3], N = *(int *)params[4], K = *(int *)params[5];
	int KS = *(int *)params[6], S = *(int *)params[7];
	for (int s = 0; s < S; s++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				float acc = 0;
				for (int k = s * KS * 64; k < (s + 1) * KS * 64 && k < K; k++)
					acc += f32(a[(size_t)i * K + k]) * f32(b[(size_t)j * K + k]);
				p[((size_t)s * M + i) * N + j] = acc;
			}
	launches++;
	return 0;
}

/* their sum in range order (+ bias): P, bias, C, MN, N, S, has_bias; bf16 or f32 out */
static int
splitk_sum(void **params, int to_bf16)
{
	const float *p = *(float **)params[0];
	void *bias = *(void **)params[1], *c = *(void **)params[2];
	int MN = *(int *)params[3], N = *(int *)params[4], S = *(int *)params[5];
	int has_bias = *(int *)params[6];
	for (int i = 0; i < MN; i++) {
		float acc = p[i];
		for (int s = 1; s < S; s++)
			acc += p[(size_t)s * MN + i];
		if (has_bias)
			acc += to_bf16 ? f32(((uint16_t *)bias)[i % N]) : ((float *)bias)[i % N];
		if (to_bf16)
			((uint16_t *)c)[i] = bf16(acc);
		else
			((float *)c)[i] = acc;
	}
	launches++;
	return 0;
}

int
hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      unsigned bz, unsigned lds, void *stream, void **params, void **extra)
{
	(void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)lds; (void)stream;
	if (!extra && params && !strncmp(fn, "attn_bwd_dq_", 12)) {
		/* Q, K, V, DO, DQ, LSE, Delta, 8 scalars, 15 strides */
		for (int i = 0; i < 30; i++)
			attn[i] = i < 7 ? (int64_t)(uintptr_t)*(void **)params[i] : i < 15 ? 0 : *(int *)params[i];
		strcpy(attn_name, fn);
		launches++;
		return 0;
	}
	if (!extra && params && !strncmp(fn, "attn_bwd_", 9)) {
		launches++;
		return 0;
	}
	if (!extra && params && !strncmp(fn, "gemm_nt_splitk", 14))
		return splitk(params);
	if (!extra && params && (!strcmp(fn, "gemm_splitk_sum_bf16") || !strcmp(fn, "gemm_splitk_sum_f32")))
		return splitk_sum(params, ((const char *)fn)[16] == 'b');
	if (extra || !params || strncmp(fn, "gemm_nt_", 8))
		return 98;
	/* A, B, bias, C, M, N, K, has_bias, xcds */
	const uint16_t *a = *(uint16_t **)params[0], *b = *(uint16_t **)params[1];
	const uint16_t *bias = *(uint16_t **)params[2];
	uint16_t *c = *(uint16_t **)params[3];
	int M = *(int *)params[4], N = *(int *)params[5], K = *(int *)params[6];
	int has_bias = *(int *)params[7];
	last_xcds = *(int *)params[8];
	last[0] = (uint64_t)(uintptr_t)a, last[1] = (uint64_t)(uintptr_t)b, last[2] = (uint64_t)(uintptr_t)c;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float s = 0;
			for (int k = 0; k < K; k++)
				s += f32(a[(size_t)i * K + k]) * f32(b[(size_t)j * K + k]);
			c[(size_t)i * N + j] = bf16(has_bias ? s + f32(bias[j]) : s);
		}
	launches++;
	return 0;
}

/* for the test */
int fake_hip_launches(void) { return launches; }
void fake_hip_last(uint64_t out[3]) { memcpy(out, last, sizeof last); }
int fake_hip_xcds(void) { return last_xcds; }
const char *fake_hip_attn(int64_t out[32]) { memcpy(out, attn, sizeof attn); return attn_name; }
