/*
 * tests/sim/kernels.cl — OpenCL C kernels exercising each instruction class of
 * the simulator. Compiled by tests/sim/run.sh with clang-22 for gfx950 at -O0
 * and -O3; every output is checked against tests/sim/ref.c (a CPU reference
 * written independently of the simulator). There is no device library, so
 * work-item functions are spelled with __builtin_amdgcn_* builtins.
 */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#define LID0 ((int)__builtin_amdgcn_workitem_id_x())
#define LID1 ((int)__builtin_amdgcn_workitem_id_y())
#define LID2 ((int)__builtin_amdgcn_workitem_id_z())
#define GRP(d) ((int)__builtin_amdgcn_workgroup_id_##d())
/* buffer resource word 3: 32-bit data, raw range checking (gfx9: DATA_FORMAT 32;
 * gfx12: FORMAT 4 and OOB_SELECT 3, CK's value; a gfx9 word 3 on gfx12 is
 * OOB_SELECT 0, which with stride 0 puts every access out of range) */
#ifdef __gfx1201__
#define BUF_W3 0x31004000
#else
#define BUF_W3 0x00020000
#endif
#define GID0 (GRP(x) * (int)__builtin_amdgcn_workgroup_size_x() + LID0)
#define BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); \
                       __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)

/* 32-bit integer arithmetic: 20 results per work-item */
__kernel void k_int(__global int *o, __global const int *pa, __global const int *pb)
{
	int i = GID0;
	int a = pa[i], b = pb[i];
	uint ua = (uint)a, ub = (uint)b;
	int d = b | 1;
	__global int *r = o + i * 20;
	r[0] = a + b;
	r[1] = a - b;
	r[2] = a * b;
	r[3] = (int)(((long)a * (long)b) >> 32);
	r[4] = a / d;
	r[5] = a % d;
	r[6] = (int)(ua / (uint)d);
	r[7] = (int)(ua % (uint)d);
	r[8] = a << (b & 31);
	r[9] = a >> (b & 31);
	r[10] = (int)(ua >> (ub & 31));
	r[11] = (a & b) ^ (~a | (b >> 3));
	r[12] = __builtin_popcount(ua) + 100 * __builtin_clz(ua | 1) + 10000 * __builtin_ctz(ua | 0x80000000u);
	r[13] = a < b ? a : b;
	r[14] = ua > ub ? a : b;
	r[15] = a < 0 ? -a : a;
	r[16] = (int)((ua << (ub & 31)) | (ua >> ((32 - (ub & 31)) & 31)));
	r[17] = (short)a * (short)b;
	r[18] = (int)((uchar)(ua >> 8)) + ((ua >> 5) & 0x3ff);
	r[19] = (a > 0 && b < 0) ? a * 3 + 1 : (a == b ? 7 : b - 5);
}

/* f32 arithmetic: 16 results per work-item */
__kernel void k_float(__global float *o, __global const float *pa, __global const float *pb, __global const float *pc)
{
	int i = GID0;
	float a = pa[i], b = pb[i], c = pc[i];
	__global float *r = o + i * 16;
	r[0] = a + b;
	r[1] = a - b;
	r[2] = a * b;
	r[3] = a / b;
	r[4] = __builtin_fmaf(a, b, c);
	r[5] = __builtin_sqrtf(__builtin_fabsf(a));
	r[6] = __builtin_fminf(a, b);
	r[7] = __builtin_fmaxf(a, c);
	r[8] = __builtin_floorf(a) + __builtin_ceilf(b) * 2.0f;
	r[9] = __builtin_truncf(c) - __builtin_rintf(a);
	r[10] = __builtin_copysignf(a, b);
	r[11] = __builtin_ldexpf(a, (i % 21) - 10);
	r[12] = a < b ? a : b * 2.0f;
	r[13] = (float)(int)(a * 100.0f);
	r[14] = __builtin_amdgcn_rcpf(b);
	r[15] = __builtin_amdgcn_rsqf(__builtin_fabsf(c) + 1.0f);
}

/* 64-bit integer arithmetic: 12 results per work-item */
__kernel void k_long(__global long *o, __global const long *pa, __global const long *pb)
{
	int i = GID0;
	long a = pa[i], b = pb[i];
	ulong ua = (ulong)a, ub = (ulong)b;
	long d = b | 1;
	__global long *r = o + i * 12;
	r[0] = a + b;
	r[1] = a - b;
	r[2] = a * b;
	r[3] = a / d;
	r[4] = a % d;
	r[5] = (long)(ua / (ulong)d);
	r[6] = (long)(ua % (ulong)d);
	r[7] = a << (b & 63);
	r[8] = a >> (b & 63);
	r[9] = (long)(ua >> (ub & 63));
	r[10] = a < b ? a : b;
	r[11] = (long)__builtin_popcountl(ua) + 1000 * (long)__builtin_clzl(ua | 1);
}

/* f64 arithmetic: 10 results per work-item */
__kernel void k_double(__global double *o, __global const double *pa, __global const double *pb)
{
	int i = GID0;
	double a = pa[i], b = pb[i];
	__global double *r = o + i * 10;
	r[0] = a + b;
	r[1] = a * b;
	r[2] = a / b;
	r[3] = __builtin_fma(a, b, 1.5);
	r[4] = __builtin_sqrt(__builtin_fabs(a));
	r[5] = __builtin_floor(a) + __builtin_ceil(b);
	r[6] = __builtin_trunc(a) * __builtin_rint(b);
	r[7] = __builtin_fmin(a, b) - __builtin_fmax(a, b);
	r[8] = (double)(long)(a * 1000.0);
	r[9] = a > b ? a - b : b;
}

/* conversions: 12 results (as float bits / ints) per work-item */
__kernel void k_convert(__global int *o, __global const float *pf, __global const int *pi, __global const double *pd)
{
	int i = GID0;
	float f = pf[i];
	int n = pi[i];
	double d = pd[i];
	__global int *r = o + i * 12;
	r[0] = (int)f;
	r[1] = (int)(uint)__builtin_fabsf(f);
	r[2] = __builtin_bit_cast(int, (float)n);
	r[3] = __builtin_bit_cast(int, (float)(uint)n);
	r[4] = __builtin_bit_cast(int, (float)d);
	long l = (long)d;
	r[5] = (int)l;
	r[6] = (int)(l >> 32);
	half h = (half)f;
	r[7] = (int)__builtin_bit_cast(ushort, h);
	r[8] = __builtin_bit_cast(int, (float)h * 3.0f);
	r[9] = (int)(char)n + (int)(short)(n >> 4);
	r[10] = __builtin_bit_cast(int, (float)(long)n * 0.25f);
	double back = (double)f + (double)n;
	r[11] = __builtin_bit_cast(int, (float)back);
}

/* divergent control flow */
__kernel void k_control(__global int *o, __global const int *pa)
{
	int i = GID0;
	int a = pa[i];
	int acc = 0;
	int n = (a & 0x7fffffff) % 37;
	for (int k = 0; k < n; k++) {
		if (k & 1) acc += k * a;
		else acc ^= k;
		if (acc == 12345) break;
	}
	uint x = (uint)(a & 0xffff) + 1;
	int steps = 0;
	while (x != 1 && steps < 200) { x = (x & 1) ? 3 * x + 1 : x / 2; steps++; }
	switch (i % 5) {
	case 0: acc += 1; break;
	case 1: acc *= 3; break;
	case 2: if (a > 0) { acc -= 7; } else { acc += 9; } break;
	case 3: acc = ~acc; break;
	default: break;
	}
	if (i % 3 == 0) { o[2 * i] = acc; o[2 * i + 1] = steps; return; }
	o[2 * i] = acc + 1;
	o[2 * i + 1] = steps * 2;
}

/* LDS with barriers: per-workgroup inclusive scan (Hillis-Steele) and a sum */
__kernel void k_scan(__global int *o, __global int *sums, __global const int *pa)
{
	__local int t[256];
	__local int s2[256];
	int l = LID0;
	t[l] = pa[GID0];
	BARRIER();
	__local int *src = t, *dst = s2;
	for (int off = 1; off < 256; off <<= 1) {
		int v = src[l];
		if (l >= off) v += src[l - off];
		dst[l] = v;
		BARRIER();
		__local int *tmp = src; src = dst; dst = tmp;
	}
	o[GID0] = src[l];
	if (l == 0) sums[GRP(x)] = src[255];
}

/* 2-D tiles through LDS: transpose a (W x H) float matrix with 16x16 blocks */
__kernel void k_transpose(__global float *out, __global const float *in, int W, int H)
{
	__local float tile[16][17];
	int x = GRP(x) * 16 + LID0, y = GRP(y) * 16 + LID1;
	tile[LID1][LID0] = in[y * W + x];
	BARRIER();
	int ox = GRP(y) * 16 + LID0, oy = GRP(x) * 16 + LID1;
	out[oy * H + ox] = tile[LID0][LID1] * 2.0f;
}

/* 3-D ids: each work-item writes its linear global id and packed ids */
__kernel void k_ids(__global int *o)
{
	int gx = GRP(x) * (int)__builtin_amdgcn_workgroup_size_x() + LID0;
	int gy = GRP(y) * (int)__builtin_amdgcn_workgroup_size_y() + LID1;
	int gz = GRP(z) * (int)__builtin_amdgcn_workgroup_size_z() + LID2;
	int nx = (int)__builtin_amdgcn_workgroup_size_x() * 2, ny = (int)__builtin_amdgcn_workgroup_size_y() * 3;
	int lin = (gz * ny + gy) * nx + gx;
	o[lin] = gx | gy << 8 | gz << 16 | (GRP(x) + GRP(y) * 2 + GRP(z) * 6) << 24;
}

/* vector memory of several widths */
typedef struct { int a; short b; char c; char d; long e; } S;
__kernel void k_vmem(__global int4 *o4, __global uchar *ob, __global short *os, __global S *ost,
                     __global const int4 *i4, __global const uchar *ib, __global const short *is, __global const S *ist)
{
	int i = GID0;
	int4 v = i4[i];
	o4[i] = v.wzyx + (int4)(ib[i], is[i], 1, 2);
	ob[i] = (uchar)(ib[i] * 3 + 1);
	os[i] = (short)(is[i] - ib[(i + 1) % 1024]);
	S s = ist[i];
	s.a += 1; s.b = (short)(s.b * 2); s.c ^= 0x55; s.e -= s.a;
	ost[i] = s;
}

/* atomics on global and LDS memory */
__kernel void k_atomic(__global int *hist, __global int *mm, __global long *l64, __global float *fsum,
                       __global uint *cas, __global const int *pa)
{
	__local int lh[16];
	int l = LID0, i = GID0;
	int a = pa[i];
	if (l < 16) lh[l] = 0;
	BARRIER();
	__atomic_fetch_add(&lh[(uint)a % 16], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&hist[16 + (uint)a % 64], 1, __ATOMIC_RELAXED);
	__atomic_fetch_min(&mm[0], a, __ATOMIC_RELAXED);
	__atomic_fetch_max(&mm[1], a, __ATOMIC_RELAXED);
	__atomic_fetch_or(&mm[2], 1 << (a & 31), __ATOMIC_RELAXED);
	__atomic_fetch_add(&l64[0], (long)a * 65536, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fsum[0], (float)(a & 255), __ATOMIC_RELAXED);
	uint old = cas[0];
	for (;;) {
		uint seen = __sync_val_compare_and_swap(&cas[0], old, old + 3);
		if (seen == old) break;
		old = seen;
	}
	int prev = __atomic_exchange_n(&mm[3 + i % 4], a, __ATOMIC_RELAXED);
	(void)prev;
	BARRIER();
	if (l < 16) __atomic_fetch_add(&hist[l], lh[l], __ATOMIC_RELAXED);
}

#ifndef __gfx1201__   /* wave64 cross-lane operations */
/* cross-lane operations */
__kernel void k_xlane(__global int *o, __global const int *pa)
{
	int i = GID0, l = LID0 & 63;
	int a = pa[i];
	__global int *r = o + i * 8;
	r[0] = __builtin_amdgcn_ds_bpermute(((l + 1) & 63) * 4, a);
	r[1] = __builtin_amdgcn_mov_dpp(a, 0x111, 0xf, 0xf, true);      /* row_shr:1, bound_ctrl */
	r[2] = __builtin_amdgcn_mov_dpp(a, 0x1b, 0xf, 0xf, false);      /* quad_perm [3,2,1,0] */
	r[3] = __builtin_amdgcn_readfirstlane(a) + __builtin_amdgcn_readlane(a, 5);
	r[4] = __builtin_amdgcn_ds_swizzle(a, 0x041f);                  /* swap neighbours */
	ulong m = __builtin_amdgcn_ballot_w64(a > 0);
	r[5] = (int)m ^ (int)(m >> 32);
	r[6] = (int)__builtin_amdgcn_mbcnt_hi((uint)(m >> 32), __builtin_amdgcn_mbcnt_lo((uint)m, 0));
	r[7] = __builtin_amdgcn_update_dpp(-1, a, 0x140, 0xf, 0xf, false); /* row_mirror */
}

#endif

#ifdef __gfx1201__
/* wave32 cross-lane operations (gfx1201): the k_xlane set for 32 lanes, plus
 * the GFX10+ ones: v_permlane16/v_permlanex16, DPP8, row_share and row_xmask */
__kernel void k_xlane32(__global int *o, __global const int *pa)
{
	int i = GID0, l = LID0 & 31;
	int a = pa[i];
	__global int *r = o + i * 12;
	r[0] = __builtin_amdgcn_ds_bpermute(((l + 1) & 31) * 4, a);
	r[1] = __builtin_amdgcn_mov_dpp(a, 0x111, 0xf, 0xf, true);      /* row_shr:1, bound_ctrl */
	r[2] = __builtin_amdgcn_mov_dpp(a, 0x1b, 0xf, 0xf, false);      /* quad_perm [3,2,1,0] */
	r[3] = __builtin_amdgcn_readfirstlane(a) + __builtin_amdgcn_readlane(a, 5);
	r[4] = __builtin_amdgcn_ds_swizzle(a, 0x041f);                  /* swap neighbours */
	uint m = __builtin_amdgcn_ballot_w32(a > 0);
	r[5] = (int)m;
	r[6] = (int)__builtin_amdgcn_mbcnt_lo(m, 0);
	r[7] = __builtin_amdgcn_update_dpp(-1, a, 0x140, 0xf, 0xf, false); /* row_mirror */
	r[8] = __builtin_amdgcn_permlane16(0, a, 0x12345678, 0x9abcdef0, false, false);
	r[9] = __builtin_amdgcn_permlanex16(0, a, 0x12345678, 0x9abcdef0, false, false);
	r[10] = __builtin_amdgcn_mov_dpp8(a, 7 | 0 << 3 | 6 << 6 | 1 << 9 | 5 << 12 | 2 << 15 | 4 << 18 | 3 << 21);
	r[11] = __builtin_amdgcn_update_dpp(-1, a, 0x163, 0xf, 0xf, false) /* row_xmask:3 */
	      + __builtin_amdgcn_update_dpp(-1, a, 0x152, 0xf, 0xf, false); /* row_share:2 */
}
#endif

/* buffer resources with range checking: loads through a resource of n*4 bytes
 * over 'a' (past it: 0), stores through one of n*2 bytes over 'o2' (past it: dropped) */
__kernel void k_buffer(__global int *o, __global int *o2, __global int *a, int n)
{
	int i = GID0;
	__amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(a, (short)0, (long)n * 4, BUF_W3);
	__amdgpu_buffer_rsrc_t w = __builtin_amdgcn_make_buffer_rsrc(o2, (short)0, (long)n * 2, BUF_W3);
	int v = __builtin_amdgcn_raw_buffer_load_b32(r, i * 4, 0, 0);
	o[i] = v * 2 + 1;
	__builtin_amdgcn_raw_buffer_store_b32(v + 1000, w, i * 4, 0, 0);
}

/* private (scratch) arrays with dynamic indexing */
__kernel void k_private(__global int *o, __global const int *pa)
{
	int i = GID0;
	int p[40];
	for (int k = 0; k < 40; k++) p[k] = pa[(i + k) % 1024] ^ k;
	int a = pa[i];
	int s = 0;
	for (int k = 0; k < 8; k++) s += p[(uint)(a + k * 7) % 40];
	p[(uint)a % 40] = s;
	o[i] = s + p[(uint)(a >> 3) % 40];
}

/* packed half math */
__kernel void k_half2(__global half2 *o, __global const half2 *pa, __global const half2 *pb)
{
	int i = GID0;
	half2 a = pa[i], b = pb[i];
	o[i] = (a + b) * b - a;
}

/* scalar half math, one result per operation */
__kernel void k_hmath(__global half *o, __global const half *pa, __global const half *pb)
{
	int i = GID0;
	half x = pa[i], y = pb[i];
	__global half *r = o + i * 8;
	r[0] = x * y;
	r[1] = x - y;
	r[2] = x / (y + (half)1.0f);
	r[3] = x < y ? x : y;
	r[4] = (half)(int)(x * (half)4.0f);
	r[5] = __builtin_fmaf16(x, y, x);
	r[6] = __builtin_sqrtf16(y);
	r[7] = (half)((float)x * 0.3f);
}

/* small integer vectors (SDWA, 16-bit and packed forms) */
__kernel void k_small(__global uchar4 *o, __global const uchar4 *a, __global short2 *s, __global const short2 *t,
                      __global ushort *u, __global char *c)
{
	int i = GID0;
	uchar4 x = a[i];
	o[i] = x + x.wzyx * (uchar4)(3) - (x >> (uchar4)(1));
	short2 v = t[i];
	s[i] = v * (short2)(3, -2) + (v >> 1) + (short2)((short)(v.x / (short)7), (short)(v.y % (short)5));
	u[i] = (ushort)(u[i] * 5u + (u[i] >> 3));
	c[i] = (char)(c[i] / (char)3) + (char)(c[i] < 0 ? -c[i] : c[i]);
}

/* 64-bit <-> float conversions */
__kernel void k_conv64(__global long *o, __global const double *d, __global const float *f, __global const ulong *ul)
{
	int i = GID0;
	__global long *r = o + i * 8;
	r[0] = (long)f[i];
	r[1] = (long)(ulong)__builtin_fabsf(f[i] * 1e6f);
	r[2] = __builtin_bit_cast(long, (double)ul[i]);
	r[3] = __builtin_bit_cast(int, (float)ul[i]);
	r[4] = __builtin_bit_cast(int, (float)(long)ul[i]);
	r[5] = (long)(ulong)__builtin_fabs(d[i]);
	r[6] = (ushort)__builtin_fabsf(f[i]) + (uchar)__builtin_fabs(d[i] * 1e-10);
	r[7] = __builtin_bit_cast(long, (double)(long)ul[i]);
}

#ifndef __gfx1201__   /* gfx950 builtins (sdot2) */
/* gfx9 builtins with direct instruction mappings */
__kernel void k_builtins(__global float *o, __global uint *u, __global const float *pa, __global const uint *pu)
{
	int i = GID0;
	float x = pa[i];
	uint v = pu[i];
	__global float *r = o + i * 12;
	r[0] = __builtin_amdgcn_sinf(x * 0.01f);
	r[1] = __builtin_amdgcn_cosf(x * 0.01f);
	r[2] = __builtin_amdgcn_exp2f(x * 0.1f);
	r[3] = __builtin_amdgcn_logf(__builtin_fabsf(x) + 1.0f);
	r[4] = __builtin_amdgcn_fractf(x);
	r[5] = __builtin_amdgcn_frexp_mantf(x);
	r[6] = (float)__builtin_amdgcn_frexp_expf(x);
	r[7] = __builtin_amdgcn_fmed3f(x, -1.0f, 2.0f);
	r[8] = __builtin_amdgcn_class(x, 0x60) ? 1.0f : 0.0f;   /* +-0 */
	r[9] = __builtin_amdgcn_ldexpf(x, (int)(v & 15) - 8);
	r[10] = __builtin_amdgcn_sqrtf(__builtin_fabsf(x));
	r[11] = __builtin_amdgcn_fdot2((half2)(1.0h, 2.0h), (half2)(3.0h, (half)1.5f), x, false);
	__global uint *q = u + i * 8;
	q[0] = __builtin_amdgcn_alignbit(v, v * 3u, v & 31);
	q[1] = __builtin_amdgcn_perm(v, v >> 3, 0x0c070501);
	q[2] = __builtin_amdgcn_ubfe(v, v & 31, (v >> 5) & 31);
	q[3] = (uint)__builtin_amdgcn_sbfe((int)v, v & 31, (v >> 10) & 31);
	q[4] = __builtin_amdgcn_udot4(v, v * 7u, 3u, false);
	q[5] = (uint)__builtin_amdgcn_sdot2((short2)((short)v, (short)(v >> 16)), (short2)(3, -5), 4, false);
	q[6] = __builtin_bit_cast(uint, __builtin_amdgcn_cvt_pkrtz(x, x * 3.0f));
	q[7] = __builtin_amdgcn_readfirstlane(v) ^ v;
}

#endif

/* LDS and global atomics on float, long and double, inc/dec */
__kernel void k_atomic2(__global float *f, __global long *l, __global double *d, __global uint *u)
{
	__local float lf[64];
	__local long ll[64];
	__local double ld[4];
	int i = GID0, t = LID0 & 63;
	if (LID0 < 64) { lf[t] = 0; ll[t] = 0; }
	if (LID0 < 4) ld[t] = 0;
	BARRIER();
	__atomic_fetch_add(&lf[t], 1.5f, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ll[t], 3L, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ld[t & 3], 0.5, __ATOMIC_RELAXED);
	BARRIER();
	if (LID0 < 64) {
		__atomic_fetch_add(&f[t], lf[t], __ATOMIC_RELAXED);
		__atomic_fetch_min(&l[t], ll[t], __ATOMIC_RELAXED);
		__atomic_fetch_xor(&l[t + 64], ll[t], __ATOMIC_RELAXED);
	}
	if (LID0 < 4) __atomic_fetch_add(&d[t], ld[t], __ATOMIC_RELAXED);
	__builtin_amdgcn_atomic_inc32(&u[t], 100u, __ATOMIC_RELAXED, "agent");
	__builtin_amdgcn_atomic_dec32(&u[t + 64], 100u, __ATOMIC_RELAXED, "agent");
	__atomic_fetch_sub(&u[t + 128], 2u, __ATOMIC_RELAXED);
	__atomic_fetch_and(&u[t + 192], ~(1u << (i & 31)), __ATOMIC_RELAXED);
	__atomic_fetch_min(&f[t + 64], (float)i, __ATOMIC_RELAXED);
}

#ifndef __gfx1201__   /* global_load_lds: gfx950 only */
/* buffer loads/stores of 8..128 bits and a global load straight to LDS */
__kernel void k_buffer2(__global int *o, __global int *a, __global int *st)
{
	__local int lds[256];
	int i = GID0;
	__amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(a, (short)0, 4096L, BUF_W3);
	__amdgpu_buffer_rsrc_t w = __builtin_amdgcn_make_buffer_rsrc(st, (short)0, 10240L, BUF_W3);
	uint4 v = __builtin_amdgcn_raw_buffer_load_b128(r, i * 16, 0, 0);      /* in range for i < 256 */
	uint2 x = __builtin_amdgcn_raw_buffer_load_b64(r, i * 8, 16, 0);
	short s = __builtin_amdgcn_raw_buffer_load_b16(r, i * 2, 0, 0);
	char c = __builtin_amdgcn_raw_buffer_load_b8(r, i, 0, 0);
	__builtin_amdgcn_raw_buffer_store_b64(x, w, i * 8, 0, 0);
	__builtin_amdgcn_raw_buffer_store_b16(s, w, i * 2 + 8192, 0, 0);
	__builtin_amdgcn_global_load_lds(a + i, lds + (LID0 & ~63), 4, 0, 0);   /* one 64-dword slice per wave */
	__builtin_amdgcn_s_waitcnt(0);
	BARRIER();
	o[i * 4] = (int)(v.x + v.w);
	o[i * 4 + 1] = (int)(x.y - x.x);
	o[i * 4 + 2] = s + c;
	o[i * 4 + 3] = lds[LID0];
}

#endif

/* program-scope constant and global data (addressed PC-relative from the code) */
__constant int k_table[16] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3 };
__global int k_counter[4];
__kernel void k_const(__global int *o, __global const int *pa)
{
	int i = GID0;
	int a = pa[i];
	__atomic_fetch_add(&k_counter[a & 3], 1, __ATOMIC_RELAXED);
	o[i] = k_table[a & 15] * 100 + k_table[(a >> 4) & 15];
}

/* IEEE 754-2019 minimum/maximum (gfx950 v_minimum3/v_maximum3) and packed f16 */
__kernel void k_minmax(__global float *o, __global const float *pa)
{
	int i = GID0;
	float a = pa[i], b = pa[(i + 1) & 1023], c = pa[(i + 2) & 1023];
	o[2 * i] = __builtin_elementwise_minimum(__builtin_elementwise_minimum(a, b), c);
	o[2 * i + 1] = __builtin_elementwise_maximum(__builtin_elementwise_maximum(a, b), c);
}

/* stream compaction with ds_append: positive inputs of each workgroup, in any order */
__kernel void k_append(__global int *o, __global int *counts, __global const int *pa)
{
	__local int cnt;
	int l = LID0, i = GID0;
	if (l == 0) cnt = 0;
	BARRIER();
	int a = pa[i];
	if (a > 0) {
		ulong m = __builtin_amdgcn_ballot_w64(true);
		int base = __builtin_amdgcn_ds_append(&cnt);
		int slot = base + (int)__builtin_amdgcn_mbcnt_hi((uint)(m >> 32), __builtin_amdgcn_mbcnt_lo((uint)m, 0));
		o[GRP(x) * 256 + slot] = a;
	}
	BARRIER();
	if (l == 0) counts[GRP(x)] = cnt;
}

/* generic (flat) pointers into LDS, private and global memory */
__attribute__((noinline)) void k_generic_store(int *p, int v) { *p = v; }
__attribute__((noinline)) int k_generic_load(const int *p) { return *p; }
__kernel void k_generic(__global int *o, __global const int *pa)
{
	__local int t[256];
	int priv[4];
	int l = LID0, i = GID0, a = pa[i];
	k_generic_store(&t[l], a * 2);
	k_generic_store(&priv[l & 3], a + 1);
	k_generic_store(&o[2 * i + 1], a - 1);
	BARRIER();
	o[2 * i] = k_generic_load(&t[255 - l]) + k_generic_load(&priv[l & 3]);
}

/* tiled SGEMM: C[M][N] = A[M][K] * B[K][N], 16x16 tiles through LDS, M = N = K = 64 */
__kernel void k_sgemm(__global float *C, __global const float *A, __global const float *B)
{
	__local float As[16][16], Bs[16][16];
	int tx = LID0 & 15, ty = LID0 >> 4;
	int row = GRP(y) * 16 + ty, col = GRP(x) * 16 + tx;
	float acc = 0.0f;
	for (int k0 = 0; k0 < 64; k0 += 16) {
		As[ty][tx] = A[row * 64 + k0 + tx];
		Bs[ty][tx] = B[(k0 + ty) * 64 + col];
		BARRIER();
		for (int k = 0; k < 16; k++) acc = __builtin_fmaf(As[ty][k], Bs[k][tx], acc);
		BARRIER();
	}
	C[row * 64 + col] = acc;
}

/* bitonic sort of 256 ints per workgroup in LDS */
__kernel void k_bitonic(__global int *o, __global const int *pa)
{
	__local int t[256];
	int l = LID0;
	t[l] = pa[GID0];
	BARRIER();
	for (int size = 2; size <= 256; size <<= 1) {
		for (int stride = size >> 1; stride > 0; stride >>= 1) {
			int p = l ^ stride;
			if (p > l) {
				int a = t[l], b = t[p];
				int up = (l & size) == 0;
				if ((a > b) == up) { t[l] = b; t[p] = a; }
			}
			BARRIER();
		}
	}
	o[GID0] = t[l];
}
