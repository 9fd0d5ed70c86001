/*
 * tests/sim/ref.c — CPU reference for the simulator tests (tests/sim/run.sh).
 *
 *   ref gen TEST DIR     write the inputs DIR/in*.bin
 *   ref check TEST DIR   compare DIR/out*.bin with the reference; prints the
 *                        first mismatches and exits 1 on any difference
 *
 * The reference is plain C computed on the host, written from the OpenCL
 * source's meaning (kernels.cl), not from the simulator. Inputs come from a
 * fixed LCG so runs are reproducible. Build: cc -O1 -ffp-contract=off.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t seed = 88172645463325252ull;
static uint32_t rnd(void) { seed = seed * 6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(seed >> 33); }
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() & 0xffffff) / 16777216.0f; }

static const char *dir;
static int fails;

static void wr(const char *name, const void *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n) { fprintf(stderr, "ref: cannot write %s\n", path); exit(2); }
	fclose(f);
}
static void *rd(const char *name, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	void *p = calloc(1, n + 1);
	if (!f || !p || fread(p, 1, n, f) != n) { fprintf(stderr, "ref: cannot read %zu bytes of %s\n", n, path); exit(2); }
	fclose(f);
	return p;
}
static void mism(const char *what, long idx, const char *got, const char *want)
{
	if (fails++ < 8) printf("mismatch %s[%ld]: got %s, want %s\n", what, idx, got, want);
}
static void cmp_i32(const char *what, const int32_t *got, const int32_t *want, long n)
{
	for (long i = 0; i < n; i++) if (got[i] != want[i]) {
		char g[32], w[32]; snprintf(g, sizeof g, "%d", got[i]); snprintf(w, sizeof w, "%d", want[i]); mism(what, i, g, w);
	}
}
static void cmp_i64(const char *what, const int64_t *got, const int64_t *want, long n)
{
	for (long i = 0; i < n; i++) if (got[i] != want[i]) {
		char g[32], w[32]; snprintf(g, sizeof g, "%lld", (long long)got[i]); snprintf(w, sizeof w, "%lld", (long long)want[i]); mism(what, i, g, w);
	}
}
/* ulp distance between floats (NaN equals NaN) */
static int64_t ulp32(float a, float b)
{
	if (a != a && b != b) return 0;
	int32_t x, y; memcpy(&x, &a, 4); memcpy(&y, &b, 4);
	if (x < 0) x = (int32_t)0x80000000 - x;
	if (y < 0) y = (int32_t)0x80000000 - y;
	return llabs((long long)x - y);
}
static int64_t ulp64(double a, double b)
{
	if (a != a && b != b) return 0;
	int64_t x, y; memcpy(&x, &a, 8); memcpy(&y, &b, 8);
	if (x < 0) x = INT64_MIN - x;
	if (y < 0) y = INT64_MIN - y;
	return x > y ? x - y : y - x;
}
static void cmp_f32(const char *what, long idx, float got, float want, int tol)
{
	if (ulp32(got, want) > tol) { char g[48], w[48]; snprintf(g, sizeof g, "%.9g", got); snprintf(w, sizeof w, "%.9g (tolerance %d ulp)", want, tol); mism(what, idx, g, w); }
}
static void cmp_f64(const char *what, long idx, double got, double want, int tol)
{
	if (ulp64(got, want) > tol) { char g[48], w[64]; snprintf(g, sizeof g, "%.17g", got); snprintf(w, sizeof w, "%.17g (tolerance %d ulp)", want, tol); mism(what, idx, g, w); }
}

enum { N = 1024 };

/* ---- inputs ---- */
static int32_t A[N], B[N];
static float FA[N], FB[N], FC[N];
static int64_t LA[N], LB[N];
static double DA[N], DB[N];
static void gen_common(void)
{
	for (int i = 0; i < N; i++) {
		A[i] = (int32_t)rnd(); B[i] = (int32_t)rnd();
		if (i % 17 == 0) A[i] = i % 2 ? -1 : 0;
		if (i % 29 == 0) A[i] = INT32_MIN + i;
		if ((B[i] | 1) == -1) B[i] = 3;
		FA[i] = frand(-100, 100); FB[i] = frand(0.5f, 100) * (rnd() & 1 ? -1.0f : 1.0f); FC[i] = frand(-100, 100);
		LA[i] = (int64_t)((uint64_t)rnd() << 32 | rnd()); LB[i] = (int64_t)((uint64_t)rnd() << 32 | rnd());
		if (i % 3 == 0) LB[i] >>= 20 + i % 30;
		if ((LB[i] | 1) == -1) LB[i] = 5;
		DA[i] = (double)frand(-1000, 1000) * 1.000123456789; DB[i] = (double)frand(0.25f, 1000) * (rnd() & 1 ? -1.0 : 1.0) * 1.0000987654321;
	}
}

typedef struct { int32_t a; int16_t b; int8_t c; int8_t d; int64_t e; } S;


/* One 32-bit scalar atomic on *w (k_satomic): CDNA3 ISA definitions; returns the old value. */
static uint32_t sat32(uint32_t *w, char op, uint32_t d)
{
	uint32_t o = *w;
	switch (op) {
	case 'x': *w = d; break;
	case '+': *w = o + d; break;
	case '-': *w = o - d; break;
	case 'm': *w = (int32_t)o < (int32_t)d ? o : d; break;
	case 'u': *w = o < d ? o : d; break;
	case 'M': *w = (int32_t)o > (int32_t)d ? o : d; break;
	case 'U': *w = o > d ? o : d; break;
	case '&': *w = o & d; break;
	case '|': *w = o | d; break;
	case '^': *w = o ^ d; break;
	case 'i': *w = o >= d ? 0 : o + 1; break;             /* inc wraps to 0 at d */
	case 'd': *w = (o == 0 || o > d) ? d : o - 1; break;  /* dec wraps to d at 0 */
	}
	return o;
}

static int run(const char *test, int check)
{
	gen_common();
	if (!strcmp(test, "int")) {
		if (!check) { wr("in0.bin", A, sizeof A); wr("in1.bin", B, sizeof B); return 0; }
		int32_t *got = rd("out0.bin", N * 20 * 4), *want = calloc(N * 20, 4);
		for (int i = 0; i < N; i++) {
			int32_t a = A[i], b = B[i], d = b | 1; uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
			int32_t *r = want + i * 20;
			r[0] = (int32_t)(ua + ub); r[1] = (int32_t)(ua - ub); r[2] = (int32_t)(ua * ub);
			r[3] = (int32_t)(((int64_t)a * b) >> 32);
			r[4] = (a == INT32_MIN && d == -1) ? a : a / d; r[5] = (d == -1) ? 0 : a % d;
			r[6] = (int32_t)(ua / (uint32_t)d); r[7] = (int32_t)(ua % (uint32_t)d);
			r[8] = (int32_t)(ua << (b & 31)); r[9] = a >> (b & 31); r[10] = (int32_t)(ua >> (ub & 31));
			r[11] = (a & b) ^ (~a | (b >> 3));
			r[12] = __builtin_popcount(ua) + 100 * __builtin_clz(ua | 1) + 10000 * __builtin_ctz(ua | 0x80000000u);
			r[13] = a < b ? a : b; r[14] = ua > ub ? a : b; r[15] = (int32_t)(a < 0 ? 0u - ua : ua);
			uint32_t s = ub & 31; r[16] = (int32_t)((ua << s) | (ua >> ((32 - s) & 31)));
			r[17] = (int16_t)a * (int16_t)b;
			r[18] = (int32_t)((uint8_t)(ua >> 8)) + (int32_t)((ua >> 5) & 0x3ff);
			r[19] = (a > 0 && b < 0) ? (int32_t)(ua * 3u + 1u) : (a == b ? 7 : (int32_t)(ub - 5u));
		}
		cmp_i32("int", got, want, N * 20);
		return 0;
	}
	if (!strcmp(test, "float")) {
		if (!check) { wr("in0.bin", FA, sizeof FA); wr("in1.bin", FB, sizeof FB); wr("in2.bin", FC, sizeof FC); return 0; }
		float *got = rd("out0.bin", N * 16 * 4);
		/* tolerances: exact except divide (OpenCL 2.5 ulp), sqrt (3 ulp), rcp/rsq (1 ulp) */
		static const int tol[16] = { 0, 0, 0, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1 };
		for (int i = 0; i < N; i++) {
			float a = FA[i], b = FB[i], c = FC[i], r[16];
			r[0] = a + b; r[1] = a - b; r[2] = a * b; r[3] = a / b; r[4] = fmaf(a, b, c);
			r[5] = sqrtf(fabsf(a)); r[6] = fminf(a, b); r[7] = fmaxf(a, c);
			r[8] = floorf(a) + ceilf(b) * 2.0f; r[9] = truncf(c) - rintf(a); r[10] = copysignf(a, b);
			r[11] = ldexpf(a, (i % 21) - 10); r[12] = a < b ? a : b * 2.0f; r[13] = (float)(int)(a * 100.0f);
			r[14] = 1.0f / b; r[15] = 1.0f / sqrtf(fabsf(c) + 1.0f);
			for (int k = 0; k < 16; k++) cmp_f32("float", i * 16 + k, got[i * 16 + k], r[k], tol[k]);
		}
		return 0;
	}
	if (!strcmp(test, "long")) {
		if (!check) { wr("in0.bin", LA, sizeof LA); wr("in1.bin", LB, sizeof LB); return 0; }
		int64_t *got = rd("out0.bin", N * 12 * 8), *want = calloc(N * 12, 8);
		for (int i = 0; i < N; i++) {
			int64_t a = LA[i], b = LB[i], d = b | 1; uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
			int64_t *r = want + i * 12;
			r[0] = (int64_t)(ua + ub); r[1] = (int64_t)(ua - ub); r[2] = (int64_t)(ua * ub);
			r[3] = a / d; r[4] = a % d; r[5] = (int64_t)(ua / (uint64_t)d); r[6] = (int64_t)(ua % (uint64_t)d);
			r[7] = (int64_t)(ua << (b & 63)); r[8] = a >> (b & 63); r[9] = (int64_t)(ua >> (ub & 63));
			r[10] = a < b ? a : b; r[11] = __builtin_popcountll(ua) + 1000LL * __builtin_clzll(ua | 1);
		}
		cmp_i64("long", got, want, N * 12);
		return 0;
	}
	if (!strcmp(test, "double")) {
		if (!check) { wr("in0.bin", DA, sizeof DA); wr("in1.bin", DB, sizeof DB); return 0; }
		double *got = rd("out0.bin", N * 10 * 8);
		for (int i = 0; i < N; i++) {
			double a = DA[i], b = DB[i], r[10];
			r[0] = a + b; r[1] = a * b; r[2] = a / b; r[3] = fma(a, b, 1.5); r[4] = sqrt(fabs(a));
			r[5] = floor(a) + ceil(b); r[6] = trunc(a) * rint(b); r[7] = fmin(a, b) - fmax(a, b);
			r[8] = (double)(int64_t)(a * 1000.0); r[9] = a > b ? a - b : b;
			for (int k = 0; k < 10; k++) cmp_f64("double", i * 10 + k, got[i * 10 + k], r[k], 0);
		}
		return 0;
	}
	if (!strcmp(test, "convert")) {
		float F[N]; double D[N];
		for (int i = 0; i < N; i++) { F[i] = frand(-1000, 1000); D[i] = (double)frand(-1, 1) * 1e12; }
		if (!check) { wr("in0.bin", F, sizeof F); wr("in1.bin", A, sizeof A); wr("in2.bin", D, sizeof D); return 0; }
		int32_t *got = rd("out0.bin", N * 12 * 4), *want = calloc(N * 12, 4);
		for (int i = 0; i < N; i++) {
			float f = F[i]; int32_t n = A[i]; double d = D[i]; int32_t *r = want + i * 12; float t;
			r[0] = (int32_t)f; r[1] = (int32_t)(uint32_t)fabsf(f);
			t = (float)n; memcpy(&r[2], &t, 4);
			t = (float)(uint32_t)n; memcpy(&r[3], &t, 4);
			t = (float)d; memcpy(&r[4], &t, 4);
			int64_t l = (int64_t)d; r[5] = (int32_t)l; r[6] = (int32_t)(l >> 32);
			_Float16 h = (_Float16)f; uint16_t hb; memcpy(&hb, &h, 2); r[7] = hb;
			t = (float)h * 3.0f; memcpy(&r[8], &t, 4);
			r[9] = (int32_t)(int8_t)n + (int32_t)(int16_t)(n >> 4);
			t = (float)(int64_t)n * 0.25f; memcpy(&r[10], &t, 4);
			t = (float)((double)f + (double)n); memcpy(&r[11], &t, 4);
		}
		cmp_i32("convert", got, want, N * 12);
		return 0;
	}
	if (!strcmp(test, "control")) {
		if (!check) { wr("in0.bin", A, sizeof A); return 0; }
		int32_t *got = rd("out0.bin", N * 2 * 4), *want = calloc(N * 2, 4);
		for (int i = 0; i < N; i++) {
			int32_t a = A[i]; uint32_t acc = 0; int n = (a & 0x7fffffff) % 37;
			for (int k = 0; k < n; k++) {
				if (k & 1) acc += (uint32_t)k * (uint32_t)a; else acc ^= (uint32_t)k;
				if (acc == 12345) break;
			}
			uint32_t x = (uint32_t)(a & 0xffff) + 1; int steps = 0;
			while (x != 1 && steps < 200) { x = (x & 1) ? 3 * x + 1 : x / 2; steps++; }
			switch (i % 5) {
			case 0: acc += 1; break;
			case 1: acc *= 3; break;
			case 2: if (a > 0) acc -= 7; else acc += 9; break;
			case 3: acc = ~acc; break;
			default: break;
			}
			if (i % 3 == 0) { want[2 * i] = (int32_t)acc; want[2 * i + 1] = steps; }
			else { want[2 * i] = (int32_t)(acc + 1); want[2 * i + 1] = steps * 2; }
		}
		cmp_i32("control", got, want, N * 2);
		return 0;
	}
	if (!strcmp(test, "scan")) {
		int32_t v[N];
		for (int i = 0; i < N; i++) v[i] = (int32_t)(rnd() % 1000) - 500;
		if (!check) { wr("in0.bin", v, sizeof v); return 0; }
		int32_t *got = rd("out0.bin", N * 4), *sums = rd("out1.bin", 4 * 4), want[N], ws[4];
		for (int g = 0; g < 4; g++) { int s = 0; for (int l = 0; l < 256; l++) { s += v[g * 256 + l]; want[g * 256 + l] = s; } ws[g] = s; }
		cmp_i32("scan", got, want, N);
		cmp_i32("sums", sums, ws, 4);
		return 0;
	}
	if (!strcmp(test, "transpose")) {
		enum { W = 64, H = 48 };
		float m[W * H];
		for (int i = 0; i < W * H; i++) m[i] = frand(-10, 10);
		if (!check) { wr("in0.bin", m, sizeof m); return 0; }
		float *got = rd("out0.bin", sizeof m);
		for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) cmp_f32("transpose", x * H + y, got[x * H + y], m[y * W + x] * 2.0f, 0);
		return 0;
	}
	if (!strcmp(test, "ids")) {
		if (!check) return 0;
		enum { NX = 8, NY = 12, NZ = 8 };
		int32_t *got = rd("out0.bin", NX * NY * NZ * 4), want[NX * NY * NZ];
		for (int z = 0; z < NZ; z++) for (int y = 0; y < NY; y++) for (int x = 0; x < NX; x++)
			want[(z * NY + y) * NX + x] = x | y << 8 | z << 16 | ((x / 4) + (y / 4) * 2 + (z / 4) * 6) << 24;
		cmp_i32("ids", got, want, NX * NY * NZ);
		return 0;
	}
	if (!strcmp(test, "vmem")) {
		static int32_t i4[N * 4]; static uint8_t ib[N]; static int16_t is[N]; static S st[N];
		for (int i = 0; i < N * 4; i++) i4[i] = (int32_t)rnd();
		for (int i = 0; i < N; i++) { ib[i] = (uint8_t)rnd(); is[i] = (int16_t)rnd();
			st[i].a = (int32_t)rnd(); st[i].b = (int16_t)rnd(); st[i].c = (int8_t)rnd(); st[i].d = (int8_t)rnd(); st[i].e = (int64_t)rnd() << 20; }
		if (!check) { wr("in0.bin", i4, sizeof i4); wr("in1.bin", ib, sizeof ib); wr("in2.bin", is, sizeof is); wr("in3.bin", st, sizeof st); return 0; }
		int32_t *g4 = rd("out0.bin", sizeof i4); uint8_t *gb = rd("out1.bin", N); int16_t *gs = rd("out2.bin", N * 2); S *gst = rd("out3.bin", sizeof st);
		static int32_t w4[N * 4]; int32_t gsi[N], wsi[N], gbi[N], wbi[N];
		for (int i = 0; i < N; i++) {
			w4[4 * i + 0] = (int32_t)((uint32_t)i4[4 * i + 3] + ib[i]); w4[4 * i + 1] = i4[4 * i + 2] + is[i];
			w4[4 * i + 2] = (int32_t)((uint32_t)i4[4 * i + 1] + 1u); w4[4 * i + 3] = (int32_t)((uint32_t)i4[4 * i] + 2u);
			wbi[i] = (uint8_t)(ib[i] * 3 + 1); gbi[i] = gb[i];
			wsi[i] = (int16_t)(is[i] - ib[(i + 1) % N]); gsi[i] = gs[i];
			S s = st[i]; s.a = (int32_t)((uint32_t)s.a + 1u); s.b = (int16_t)(s.b * 2); s.c ^= 0x55; s.e -= s.a;
			if (memcmp(&s, &gst[i], 8) || s.e != gst[i].e) { char g[64], w[64]; snprintf(g, sizeof g, "{%d,%d,%d,%d,%lld}", gst[i].a, gst[i].b, gst[i].c, gst[i].d, (long long)gst[i].e);
				snprintf(w, sizeof w, "{%d,%d,%d,%d,%lld}", s.a, s.b, s.c, s.d, (long long)s.e); mism("struct", i, g, w); }
		}
		cmp_i32("int4", g4, w4, N * 4); cmp_i32("uchar", gbi, wbi, N); cmp_i32("short", gsi, wsi, N);
		return 0;
	}
	if (!strcmp(test, "atomic")) {
		int32_t mm[8] = { INT32_MAX, INT32_MIN, 0, -1, -1, -1, -1, 0 };
		if (!check) { wr("in0.bin", A, sizeof A); wr("mm.bin", mm, sizeof mm); return 0; }
		int32_t *hist = rd("out0.bin", 80 * 4), *gm = rd("out1.bin", 8 * 4); int64_t *l64 = rd("out2.bin", 8);
		float *fs = rd("out3.bin", 4); uint32_t *cas = rd("out4.bin", 4);
		int32_t wh[80] = { 0 }; int64_t ls = 0; float fsum = 0; int32_t mn = INT32_MAX, mx = INT32_MIN, orv = 0;
		for (int i = 0; i < N; i++) {
			uint32_t a = (uint32_t)A[i];
			wh[a % 16]++; wh[16 + a % 64]++;
			if (A[i] < mn) mn = A[i];
			if (A[i] > mx) mx = A[i];
			orv |= (int32_t)(1u << (a & 31)); ls += (int64_t)A[i] * 65536; fsum += (float)(a & 255);
		}
		cmp_i32("hist", hist, wh, 80);
		int32_t wm[3] = { mn, mx, orv };
		cmp_i32("minmaxor", gm, wm, 3);
		cmp_i64("sum64", l64, &ls, 1);
		cmp_f32("fsum", 0, fs[0], fsum, 0);
		int32_t c = (int32_t)cas[0], wc = 3 * N; cmp_i32("cas", &c, &wc, 1);
		for (int k = 0; k < 4; k++) {   /* the exchange's final value is one of the values written */
			int ok = 0;
			for (int i = k; i < N; i += 4) if (A[i] == gm[3 + k]) ok = 1;
			if (!ok) { char g[32]; snprintf(g, sizeof g, "%d", gm[3 + k]); mism("xchg", k, g, "a value written by one of its work-items"); }
		}
		return 0;
	}
	if (!strcmp(test, "xlane")) {
		int32_t v[N];
		for (int i = 0; i < N; i++) v[i] = (int32_t)(rnd() % 2000) - 1000;
		if (!check) { wr("in0.bin", v, sizeof v); return 0; }
		int32_t *got = rd("out0.bin", N * 8 * 4), *want = calloc(N * 8, 4);
		for (int i = 0; i < N; i++) {
			int w0 = i & ~63, l = i & 63, row = l & ~15, rl = l & 15;
			int32_t *r = want + i * 8;
			r[0] = v[w0 + ((l + 1) & 63)];
			r[1] = rl == 0 ? 0 : v[i - 1];
			r[2] = v[w0 + (l & ~3) + (3 - (l & 3))];
			r[3] = v[w0] + v[w0 + 5];
			r[4] = v[i ^ 1];
			uint64_t m = 0;
			for (int k = 0; k < 64; k++) if (v[w0 + k] > 0) m |= 1ull << k;
			r[5] = (int32_t)((uint32_t)m ^ (uint32_t)(m >> 32));
			r[6] = __builtin_popcountll(m & ((1ull << l) - 1));
			r[7] = v[w0 + row + 15 - rl];
		}
		cmp_i32("xlane", got, want, N * 8);
		return 0;
	}
	if (!strcmp(test, "xlane32")) {   /* k_xlane32, gfx1201 wave32 */
		int32_t v[N];
		for (int i = 0; i < N; i++) v[i] = (int32_t)(rnd() % 2000) - 1000;
		if (!check) { wr("in0.bin", v, sizeof v); return 0; }
		int32_t *got = rd("out0.bin", N * 12 * 4), *want = calloc(N * 12, 4);
		const uint64_t sel = 0x9abcdef012345678ull;              /* permlane selects, nibble per lane */
		const int d8[8] = { 7, 0, 6, 1, 5, 2, 4, 3 };            /* dpp8 selects */
		for (int i = 0; i < N; i++) {
			int w0 = i & ~31, l = i & 31, row = l & ~15, rl = l & 15;
			int32_t *r = want + i * 12;
			r[0] = v[w0 + ((l + 1) & 31)];
			r[1] = rl == 0 ? 0 : v[i - 1];
			r[2] = v[w0 + (l & ~3) + (3 - (l & 3))];
			r[3] = v[w0] + v[w0 + 5];
			r[4] = v[i ^ 1];
			uint32_t m = 0;
			for (int k = 0; k < 32; k++) if (v[w0 + k] > 0) m |= 1u << k;
			r[5] = (int32_t)m;
			r[6] = __builtin_popcount(m & ((1u << l) - 1));
			r[7] = v[w0 + row + 15 - rl];
			int s16 = (int)((sel >> (4 * rl)) & 15);
			r[8] = v[w0 + row + s16];
			r[9] = v[w0 + (row ^ 16) + s16];
			r[10] = v[w0 + (l & ~7) + d8[l & 7]];
			r[11] = (int32_t)((uint32_t)v[w0 + row + (rl ^ 3)] + (uint32_t)v[w0 + row + 2]);
		}
		cmp_i32("xlane32", got, want, N * 12);
		return 0;
	}
	if (!strcmp(test, "buffer")) {
		if (!check) { wr("in0.bin", A, sizeof A); return 0; }
		int32_t *o = rd("out0.bin", N * 4), *o2 = rd("out1.bin", N * 4), wo[N], wo2[N];
		/* n = 512: loads past 512 ints give 0; stores past 256 ints are dropped (o2 starts as 0xeeeeeeee) */
		for (int i = 0; i < N; i++) {
			int32_t v = i < 512 ? A[i] : 0;
			wo[i] = (int32_t)((uint32_t)v * 2u + 1u);
			wo2[i] = i < 256 ? (int32_t)((uint32_t)v + 1000u) : (int32_t)0xeeeeeeee;
		}
		cmp_i32("buffer.load", o, wo, N); cmp_i32("buffer.store", o2, wo2, N);
		return 0;
	}
	if (!strcmp(test, "private")) {
		if (!check) { wr("in0.bin", A, sizeof A); return 0; }
		int32_t *got = rd("out0.bin", N * 4), want[N];
		for (int i = 0; i < N; i++) {
			int32_t p[40];
			for (int k = 0; k < 40; k++) p[k] = A[(i + k) % N] ^ k;
			int32_t a = A[i]; uint32_t s = 0;
			for (int k = 0; k < 8; k++) s += (uint32_t)p[((uint32_t)a + (uint32_t)k * 7) % 40];
			p[(uint32_t)a % 40] = (int32_t)s;
			want[i] = (int32_t)(s + (uint32_t)p[(uint32_t)(a >> 3) % 40]);
		}
		cmp_i32("private", got, want, N);
		return 0;
	}
	if (!strcmp(test, "half2")) {
		_Float16 a[2 * N], b[2 * N];
		for (int i = 0; i < 2 * N; i++) { a[i] = (_Float16)(0.5f + (float)(rnd() % 224) / 64.0f); b[i] = (_Float16)(0.5f + (float)(rnd() % 224) / 64.0f); }
		if (!check) { wr("in0.bin", a, sizeof a); wr("in1.bin", b, sizeof b); return 0; }
		uint16_t *got = rd("out0.bin", sizeof a);
		for (int i = 0; i < 2 * N; i++) {
			_Float16 t = a[i] + b[i];
			t = t * b[i];
			t = t - a[i];
			uint16_t wb; memcpy(&wb, &t, 2);
			if (got[i] != wb) { char g[16], w[16]; snprintf(g, sizeof g, "0x%04x", got[i]); snprintf(w, sizeof w, "0x%04x", wb); mism("half2", i, g, w); }
		}
		return 0;
	}

	if (!strcmp(test, "hmath")) {
		_Float16 a[N], b[N];
		for (int i = 0; i < N; i++) { a[i] = (_Float16)(0.5f + (float)(rnd() % 224) / 64.0f); b[i] = (_Float16)(0.5f + (float)(rnd() % 224) / 64.0f); }
		if (!check) { wr("in0.bin", a, sizeof a); wr("in1.bin", b, sizeof b); return 0; }
		uint16_t *got = rd("out0.bin", N * 8 * 2);
		static const int tol[8] = { 0, 0, 1, 0, 0, 0, 1, 0 };
		for (int i = 0; i < N; i++) {
			_Float16 x = a[i], y = b[i], r[8], one = (_Float16)1.0f, t;
			r[0] = x * y; r[1] = x - y; t = y + one; r[2] = (_Float16)((double)x / (double)t); r[3] = x < y ? x : y;
			t = x * (_Float16)4.0f; r[4] = (_Float16)(int)t;
			r[5] = (_Float16)((double)x * (double)y + (double)x); r[6] = (_Float16)sqrt((double)y);
			r[7] = (_Float16)((float)x * 0.3f);
			for (int k = 0; k < 8; k++) {
				uint16_t w; memcpy(&w, &r[k], 2);
				int d = (int)got[i * 8 + k] - (int)w;   /* all positive: ulp distance = bit distance */
				if (d < -tol[k] || d > tol[k]) { char g[16], ws[32]; snprintf(g, sizeof g, "0x%04x", got[i * 8 + k]); snprintf(ws, sizeof ws, "0x%04x (op %d)", w, k); mism("hmath", i * 8 + k, g, ws); }
			}
		}
		return 0;
	}
	if (!strcmp(test, "small")) {
		static uint8_t a4[N * 4]; static int16_t t2[N * 2]; static uint16_t u[N]; static int8_t c[N];
		for (int i = 0; i < N * 4; i++) a4[i] = (uint8_t)rnd();
		for (int i = 0; i < N * 2; i++) t2[i] = (int16_t)rnd();
		for (int i = 0; i < N; i++) { u[i] = (uint16_t)rnd(); c[i] = (int8_t)rnd(); }
		c[0] = -128; c[1] = 127; c[2] = -3;
		if (!check) { wr("in0.bin", a4, sizeof a4); wr("in1.bin", t2, sizeof t2); wr("in2.bin", u, sizeof u); wr("in3.bin", c, sizeof c); return 0; }
		uint8_t *go = rd("out0.bin", sizeof a4); int16_t *gs = rd("out1.bin", sizeof t2); uint16_t *gu = rd("out2.bin", sizeof u); int8_t *gc = rd("out3.bin", sizeof c);
		static int32_t g[N * 8], w[N * 8];
		for (int i = 0; i < N; i++) {
			for (int k = 0; k < 4; k++) {
				uint8_t x = a4[4 * i + k], xr = a4[4 * i + 3 - k];
				w[8 * i + k] = (uint8_t)(x + (uint8_t)(xr * 3) - (x >> 1)); g[8 * i + k] = go[4 * i + k];
			}
			int16_t vx = t2[2 * i], vy = t2[2 * i + 1];
			w[8 * i + 4] = (int16_t)((int16_t)(vx * 3) + (vx >> 1) + (int16_t)(vx / 7)); g[8 * i + 4] = gs[2 * i];
			w[8 * i + 5] = (int16_t)((int16_t)(vy * -2) + (vy >> 1) + (int16_t)(vy % 5)); g[8 * i + 5] = gs[2 * i + 1];
			w[8 * i + 6] = (uint16_t)(u[i] * 5u + (u[i] >> 3)); g[8 * i + 6] = gu[i];
			w[8 * i + 7] = (int8_t)((int8_t)(c[i] / 3) + (int8_t)(c[i] < 0 ? -c[i] : c[i])); g[8 * i + 7] = gc[i];
		}
		cmp_i32("small", g, w, N * 8);
		return 0;
	}
	if (!strcmp(test, "conv64")) {
		static double d[N]; static float f[N]; static uint64_t ul[N];
		for (int i = 0; i < N; i++) { d[i] = (double)frand(-1, 1) * 1e12; f[i] = frand(-1000, 1000); ul[i] = (uint64_t)rnd() << 32 | rnd(); if (i % 4 == 1) ul[i] >>= 11 + i % 40; }
		if (!check) { wr("in0.bin", d, sizeof d); wr("in1.bin", f, sizeof f); wr("in2.bin", ul, sizeof ul); return 0; }
		int64_t *got = rd("out0.bin", N * 8 * 8), *want = calloc(N * 8, 8);
		for (int i = 0; i < N; i++) {
			int64_t *r = want + 8 * i; double dd; float ff; int32_t b32;
			r[0] = (int64_t)f[i]; r[1] = (int64_t)(uint64_t)fabsf(f[i] * 1e6f);
			dd = (double)ul[i]; memcpy(&r[2], &dd, 8);
			ff = (float)ul[i]; memcpy(&b32, &ff, 4); r[3] = b32;
			ff = (float)(int64_t)ul[i]; memcpy(&b32, &ff, 4); r[4] = b32;
			r[5] = (int64_t)(uint64_t)fabs(d[i]);
			r[6] = (uint16_t)fabsf(f[i]) + (uint8_t)fabs(d[i] * 1e-10);
			dd = (double)(int64_t)ul[i]; memcpy(&r[7], &dd, 8);
		}
		cmp_i64("conv64", got, want, N * 8);
		return 0;
	}
	if (!strcmp(test, "builtins")) {
		uint32_t V[N];
		for (int i = 0; i < N; i++) V[i] = rnd();
		FA[3] = 0.0f; FA[5] = -0.0f;
		if (!check) { wr("in0.bin", FA, sizeof FA); wr("in1.bin", V, sizeof V); return 0; }
		float *gf = rd("out0.bin", N * 12 * 4); uint32_t *gu = rd("out1.bin", N * 8 * 4);
		static const int tol[12] = { 4, 4, 2, 2, 0, 0, 0, 0, 0, 0, 1, 0 };
		static int32_t wu[N * 8];
		for (int i = 0; i < N; i++) {
			float x = FA[i], r[12]; uint32_t v = V[i]; int e;
			const double tau = 6.283185307179586;
			r[0] = (float)sin(tau * (double)(x * 0.01f)); r[1] = (float)cos(tau * (double)(x * 0.01f));
			r[2] = exp2f(x * 0.1f); r[3] = log2f(fabsf(x) + 1.0f);
			r[4] = x - floorf(x); if (r[4] >= 1.0f) r[4] = 0x1.fffffep-1f;
			r[5] = frexpf(x, &e); r[6] = (float)(x == 0 ? 0 : e);
			r[7] = x < -1.0f ? -1.0f : x > 2.0f ? 2.0f : x; r[8] = x == 0.0f ? 1.0f : 0.0f;
			r[9] = ldexpf(x, (int)(v & 15) - 8); r[10] = sqrtf(fabsf(x));
			r[11] = (float)(6.0 + (double)x);
			for (int k = 0; k < 12; k++) cmp_f32("builtins.f", i * 12 + k, gf[i * 12 + k], r[k], tol[k]);
			uint32_t *q = (uint32_t *)wu + 8 * i, v3 = v * 3u, off = v & 31;
			q[0] = (uint32_t)((((uint64_t)v << 32) | v3) >> off);
			/* v_perm_b32 bytes: selector 0..3 = bytes of src1, 4..7 = bytes of src0, 12 = 0x00 */
			uint32_t s1 = v >> 3, sel = 0x0c070501, pr = 0;
			for (int k = 0; k < 4; k++) {
				uint32_t sb = (sel >> (8 * k)) & 0xff, byte = sb == 12 ? 0 : sb < 4 ? (s1 >> (8 * sb)) & 0xff : (v >> (8 * (sb - 4))) & 0xff;
				pr |= byte << (8 * k);
			}
			q[1] = pr;
			uint32_t w5 = (v >> 5) & 31; q[2] = w5 ? (v >> off) & ((1u << w5) - 1) : 0;
			uint32_t w10 = (v >> 10) & 31;
			if (!w10) q[3] = 0;
			else { int32_t t = (int32_t)v >> off; uint32_t m = (1u << w10) - 1, f2 = (uint32_t)t & m; if ((f2 >> (w10 - 1)) & 1) f2 |= ~m; q[3] = f2; }
			uint32_t v7 = v * 7u, dot = 3;
			for (int k = 0; k < 4; k++) dot += ((v >> (8 * k)) & 0xff) * ((v7 >> (8 * k)) & 0xff);
			q[4] = dot;
			q[5] = (uint32_t)((int16_t)v * 3 + (int16_t)(v >> 16) * -5 + 4);
			uint32_t hb[2]; float src[2] = { x, x * 3.0f };
			for (int k = 0; k < 2; k++) {   /* f32 -> f16 rounding toward zero, by truncation */
				uint32_t fb; memcpy(&fb, &src[k], 4);
				uint32_t sg = (fb >> 16) & 0x8000; float ax = fabsf(src[k]);
				if (ax >= 65504.0f) hb[k] = sg | 0x7bff;
				else if (ax >= 0x1p-14f) { uint32_t ab = fb & 0x7fffffff; hb[k] = sg | (((ab >> 23) - 112) << 10) | ((ab >> 13) & 0x3ff); }
				else hb[k] = sg | (uint32_t)(ax * 0x1p24f);
			}
			q[6] = hb[0] | hb[1] << 16;
			q[7] = V[i & ~63] ^ v;
		}
		cmp_i32("builtins.u", (int32_t *)gu, wu, N * 8);
		return 0;
	}
	if (!strcmp(test, "atomic2")) {
		float f[128];
		for (int k = 0; k < 128; k++) f[k] = k < 64 ? 0.0f : 1e9f;
		if (!check) { wr("f.bin", f, sizeof f); return 0; }
		float *gf = rd("out0.bin", 128 * 4); int64_t *gl = rd("out1.bin", 128 * 8); double *gd = rd("out2.bin", 4 * 8); uint32_t *gu = rd("out3.bin", 256 * 4);
		for (int t = 0; t < 64; t++) {
			cmp_f32("f.add", t, gf[t], 24.0f, 0);
			cmp_f32("f.min", 64 + t, gf[64 + t], (float)t, 0);
			int64_t w12 = 12, init = 0x7f7f7f7f7f7f7f7fll;
			cmp_i64("l.min", gl + t, &w12, 1);
			cmp_i64("l.xor", gl + 64 + t, &init, 1);
			int32_t wi[4] = { 15, 85, (int32_t)(0xffffffffu - 32u), (int32_t)~(1u << (t & 31)) };
			int32_t gi[4] = { (int32_t)gu[t], (int32_t)gu[64 + t], (int32_t)gu[128 + t], (int32_t)gu[192 + t] };
			cmp_i32("u.inc/dec/sub/and", gi, wi, 4);
		}
		for (int t = 0; t < 4; t++) cmp_f64("d.add", t, gd[t], 128.0, 0);
		return 0;
	}
	if (!strcmp(test, "buffer2")) {
		if (!check) { wr("in0.bin", A, sizeof A); return 0; }
		int32_t *o = rd("out0.bin", N * 16), *st = rd("out1.bin", 10240), *w = calloc(N * 4, 4), *wst = calloc(2560, 4);
		const uint8_t *ab = (const uint8_t *)A;
		for (int i = 0; i < N; i++) {
			uint32_t vx = i < 256 ? (uint32_t)A[4 * i] : 0, vw = i < 256 ? (uint32_t)A[4 * i + 3] : 0;
			uint32_t x0 = i * 8 + 16 + 4 <= 4096 ? (uint32_t)A[2 * i + 4] : 0, x1 = i * 8 + 20 + 4 <= 4096 ? (uint32_t)A[2 * i + 5] : 0;
			int16_t s; memcpy(&s, ab + 2 * i, 2);
			int8_t c = (int8_t)ab[i];
			w[4 * i] = (int32_t)(vx + vw); w[4 * i + 1] = (int32_t)(x1 - x0); w[4 * i + 2] = s + c; w[4 * i + 3] = A[i];
			wst[2 * i] = (int32_t)x0; wst[2 * i + 1] = (int32_t)x1;
			memcpy((uint8_t *)wst + 8192 + 2 * i, &s, 2);
		}
		cmp_i32("buffer2", o, w, N * 4);
		cmp_i32("buffer2.store", st, wst, 2560);
		return 0;
	}
	if (!strcmp(test, "const")) {
		static const int tbl[16] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3 };
		if (!check) { wr("in0.bin", A, sizeof A); return 0; }
		int32_t *got = rd("out0.bin", N * 4), want[N];
		for (int i = 0; i < N; i++) want[i] = tbl[A[i] & 15] * 100 + tbl[(A[i] >> 4) & 15];
		cmp_i32("const", got, want, N);
		return 0;
	}
	if (!strcmp(test, "minmax")) {
		float v[N];
		for (int i = 0; i < N; i++) v[i] = (float)((int)(rnd() % 9) - 4);
		for (int i = 0; i < N; i += 37) v[i] = NAN;
		for (int i = 5; i < N; i += 41) v[i] = -0.0f;
		if (!check) { wr("in0.bin", v, sizeof v); return 0; }
		float *got = rd("out0.bin", N * 8);
		for (int i = 0; i < N; i++) {
			float t[3] = { v[i], v[(i + 1) % N], v[(i + 2) % N] }, mn = t[0], mx = t[0];
			int nan = 0;
			for (int k = 0; k < 3; k++) {
				if (t[k] != t[k]) nan = 1;
				if (t[k] < mn || (t[k] == mn && signbit(t[k]))) mn = t[k];
				if (t[k] > mx || (t[k] == mx && !signbit(t[k]))) mx = t[k];
			}
			if (nan) mn = mx = NAN;
			/* compare bit patterns (signed zeros matter), NaN with NaN */
			float g[2] = { got[2 * i], got[2 * i + 1] }, wnt[2] = { mn, mx };
			for (int k = 0; k < 2; k++)
				if (!(g[k] != g[k] && wnt[k] != wnt[k]) && memcmp(&g[k], &wnt[k], 4)) {
					char gs[32], ws[32]; snprintf(gs, sizeof gs, "%g", g[k]); snprintf(ws, sizeof ws, "%g", wnt[k]); mism("minmax", 2 * i + k, gs, ws);
				}
		}
		return 0;
	}
	if (!strcmp(test, "ir_preload")) {   /* out[i] = i * 3 + 5 (a = 3, b = 5 on the command line) */
		if (!check) return 0;
		int32_t *got = rd("out0.bin", 256 * 4), want[256];
		for (int i = 0; i < 256; i++) want[i] = i * 3 + 5;
		cmp_i32("ir_preload", got, want, 256);
		return 0;
	}
	if (!strcmp(test, "ir_buffer_lds")) {
		int32_t in[64];
		for (int i = 0; i < 64; i++) in[i] = (int32_t)rnd();
		if (!check) { wr("in0.bin", in, sizeof in); return 0; }
		int32_t *got = rd("out0.bin", 128 * 4), want[128];
		for (int i = 0; i < 64; i++) { want[i] = in[63 - i]; want[64 + i] = i < 30 ? in[2 * i + 1] : 0; }
		cmp_i32("ir_buffer_lds", got, want, 128);
		return 0;
	}
	if (!strcmp(test, "salu")) {   /* tests/sim/asm_kernels.s k_salu, from the ISA definitions */
		if (!check) return 0;
		int32_t *got = rd("out0.bin", 36 * 4);
		uint32_t r[48] = { 0 };
		const uint32_t a = 0x12345678u, b = 0x9abcdef0u;
		const uint64_t ab = (uint64_t)b << 32 | a;
		#define SET64(i, v) do { uint64_t _v = (v); r[i] = (uint32_t)_v; r[(i) + 1] = (uint32_t)(_v >> 32); } while (0)
		/* s_bfe_i64: offset 20, width 24, sign-extended */
		{ uint64_t f = (ab >> 20) & 0xffffff; if (f & 0x800000) f |= ~0xffffffull; SET64(6, f); }
		{ uint64_t v = 0; for (int i = 0; i < 32; i++) if ((a >> i) & 1) v |= 3ull << (2 * i); SET64(8, v); }
		{ int n = 0; uint64_t x = ab; if ((int64_t)x < 0) x = ~x; while (n < 64 && !((x >> (63 - n)) & 1)) n++; r[10] = (uint32_t)n; }
		r[11] = 0;
		{ uint64_t v = 0; for (int i = 0; i < 64; i++) if ((ab >> i) & 1) v |= 1ull << (63 - i); SET64(12, v);
		  int n = 0; while (!((v >> n) & 1)) n++; r[14] = (uint32_t)n; }
		{ int c = 0; for (int i = 0; i < 64; i++) c += (int)((ab >> i) & 1); r[15] = (uint32_t)c; }
		{ uint64_t v = 0; for (int i = 0; i < 16; i++) if ((ab >> (4 * i)) & 15) v |= 1ull << i; SET64(16, v); }
		{ uint64_t v = 0; for (int i = 0; i < 16; i++) if ((ab >> (4 * i)) & 15) v |= 15ull << (4 * i); SET64(18, v); }
		{ int64_t d = (int64_t)(int32_t)a - (int32_t)b; r[20] = (uint32_t)(d < 0 ? -d : d); }
		{ uint64_t v = ((uint64_t)b << 3) + a; r[21] = (uint32_t)v; r[22] = (v >> 32) != 0; }
		r[23] = (a >> 16) | (b & 0xffff0000u);
		r[24] = (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32);
		{ uint64_t s1 = (uint64_t)b + b; r[25] = (uint32_t)s1; r[26] = a + a + (uint32_t)(s1 >> 32); }
		r[27] = 0xffff8001u;
		r[28] = a < 0xffffu;
		r[29] = 7;
		SET64(30, 1ull << 40);
		SET64(32, (uint64_t)((int64_t)ab >> 36));
		SET64(34, ab << 3); r[36] = (ab << 3) != 0;
		r[37] = (uint32_t)(((uint64_t)a * b) >> 32);
		r[38] = (uint32_t)(int32_t)(int16_t)(b & 0xffff);
		{ uint32_t borrow = b > a; r[39] = a - b - borrow; }   /* s_sub_u32 sets SCC = borrow; s_subb_u32 x, 0 subtracts it */
		SET64(40, ((1ull << 4) - 1) << 36);
		cmp_i32("salu", got, (int32_t *)r + 6, 36);
		return 0;
	}
	if (!strcmp(test, "satomic")) {   /* tests/sim/asm_kernels.s k_satomic, from the ISA definitions */
		if (!check) return 0;
		int32_t *got = rd("out0.bin", 84 * 4);
		uint32_t m[84] = { 0 }, *rv = m + 40;   /* memory words, returned registers s40.. */
		/* the s_store_dword* initial values */
		const uint32_t init[25] = { 0x11111111, 5, 6, 0xfffffff0, 3, (uint32_t)-3, (uint32_t)-3, (uint32_t)-3,
			(uint32_t)-3, 0xff00ff00, 0xff00ff00, 0xff00ff00, 7, 3, 0, 5, 0xffffffff, 1, 0x89abcdef, 0x01234567,
			0, 0, 0xffffffff, 0xffffffff, 100 };
		memcpy(m, init, sizeof init);
		m[32] = 100; m[33] = m[34] = m[35] = 0x77; m[36] = 0x88;
		rv[0] = sat32(&m[0], 'x', 0x22222222);                                   /* swap */
		rv[2] = m[1]; if (m[1] == 5) m[1] = 9; rv[3] = 5;                    /* cmpswap {9, 5} */
		rv[4] = m[2]; if (m[2] == 5) m[2] = 9; rv[5] = 5;
		rv[1] = sat32(&m[3], '+', 0x20);                                     /* add at soffset 0xc */
		rv[6] = sat32(&m[4], '-', 5);                                        /* sub at soffset + offset:4 */
		rv[7] = sat32(&m[5], 'm', 2);
		rv[8] = sat32(&m[6], 'u', 2);
		rv[9] = sat32(&m[7], 'M', 2);
		rv[10] = sat32(&m[8], 'U', 2);
		rv[11] = sat32(&m[9], '&', 0x0ff00ff0);
		rv[12] = sat32(&m[10], '|', 0x0ff00ff0);
		rv[13] = sat32(&m[11], '^', 0x0ff00ff0);
		rv[14] = sat32(&m[12], 'i', 7);                        /* inc */
		rv[15] = sat32(&m[13], 'i', 7);
		rv[16] = sat32(&m[14], 'd', 7);            /* dec */
		(void)sat32(&m[15], 'd', 7); rv[17] = 7;   /* no glc: s57 keeps 7 */
		{ uint64_t o = m[16] | (uint64_t)m[17] << 32, n = o + 1; rv[18] = m[16]; rv[19] = m[17];
		  m[16] = (uint32_t)n; m[17] = (uint32_t)(n >> 32); }                 /* add_x2 */
		{ uint64_t o = m[18] | (uint64_t)m[19] << 32, cmp = 0x0123456789abcdefull;
		  rv[20] = m[18]; rv[21] = m[19]; rv[22] = 0x89abcdef; rv[23] = 0x01234567;
		  if (o == cmp) { m[18] = 0xdeadbeef; m[19] = 0xfeedface; } }         /* cmpswap_x2 */
		{ uint64_t o = m[20] | (uint64_t)m[21] << 32, d = 0x300000004ull, n = (o == 0 || o > d) ? d : o - 1;
		  rv[24] = m[20]; rv[25] = m[21]; m[20] = (uint32_t)n; m[21] = (uint32_t)(n >> 32); }  /* dec_x2 */
		{ int64_t o = (int64_t)(m[22] | (uint64_t)m[23] << 32), n = o > 5 ? o : 5;
		  m[22] = (uint32_t)n; m[23] = (uint32_t)((uint64_t)n >> 32); rv[26] = 5; rv[27] = 0; }   /* smax_x2, no glc */
		m[28] += 0x1000; rv[28] = 0x1000;                                     /* add at base 0x80, offset -0x10, no glc */
		/* buffer: base out + 0x80, num_records 16: dwords 32..35 in range */
		rv[29] = m[32]; m[32] += 5;
		rv[30] = 0;                                                          /* offset 16: out of range, returns 0 */
		m[33] = 0x55; rv[31] = 0x55;
		m[35] = 0x66; rv[32] = 0x66; rv[33] = 0x99;                           /* x2 at 12: the second dword is dropped */
		rv[34] = m[34]; if (m[34] == 2) m[34] = (uint32_t)-1; rv[35] = 2;    /* cmpswap {-1, 2} */
		cmp_i32("satomic", got, (int32_t *)m, 84);
		return 0;
	}
	if (!strcmp(test, "valu")) {   /* tests/sim/asm_kernels.s k_valu, from the ISA definitions */
		if (!check) return 0;
		int32_t *got = rd("out0.bin", 20 * 64 * 4);
		static int32_t want[20 * 64];
		for (int l = 0; l < 64; l++) {
			int row = l & ~15, r = l & 15;
			uint32_t v5 = 0x1234u * (uint32_t)(l + 1), v6 = 0xfff0u + (uint32_t)l;
			uint32_t *w = (uint32_t *)want;
			w[0 * 64 + l] = (uint32_t)(row + ((r - 3) & 15));
			w[1 * 64 + l] = (row == 16 || row == 48) ? (uint32_t)(row - 1) : 1000u + (uint32_t)l;
			w[2 * 64 + l] = l == 0 ? 0 : (uint32_t)(l - 1);
			{ uint32_t sum = ((v5 >> 8) & 0xff) + (v6 & 0xffff); w[3 * 64 + l] = (0xaaaa5555u & 0xffff) | (sum & 0xffff) << 16; }
			w[4 * 64 + l] = (uint32_t)((int32_t)(int8_t)(v5 & 0xff) + (int32_t)(v6 & 0xff));
			{ uint32_t b = (v5 >> 8) & 0xff; w[5 * 64 + l] = (b & 0x80) ? (b | 0xffffff00u) : b; }
			w[6 * 64 + l] = l < 40;
			{ uint32_t b0 = (v6 >> 24) & 0xff, b1 = (v5 >> 24) & 0xff, b2 = (v5 >> 8) & 0xff; w[7 * 64 + l] = b0 | b1 << 8 | b2 << 16; }
			w[8 * 64 + l] = (v6 >> 24) | (v5 << 8);
			w[9 * 64 + l] = (uint32_t)(l < 20 ? 20 : l > 40 ? 40 : l);
			{ float f = (float)l * 4.6f, q = rintf(f); uint32_t u = q <= 0 ? 0 : q >= 255 ? 255 : (uint32_t)q;
			  w[10 * 64 + l] = (0x11223344u & ~0xff0000u) | u << 16; }
			w[11 * 64 + l] = (0xff00ff00u & v5) | (~0xff00ff00u & v6);
			{ float f = (l & 1) ? (float)l : -(float)(l + 1); memcpy(&w[12 * 64 + l], &f, 4); }
			w[13 * 64 + l] = v6;
			{ float x = (float)(l - 32) * 0.5f; w[14 * 64 + l] = (uint32_t)(int32_t)floorf(x); w[15 * 64 + l] = (uint32_t)(int32_t)floorf(x + 0.5f); }
			{ int e = 0; float f = (float)l * 4.6f; if (f != 0) frexpf(f, &e); w[16 * 64 + l] = (uint32_t)e; }
			{ int32_t x = (l - 32) * 12345; uint32_t u = (uint32_t)(x < 0 ? ~x : x); w[17 * 64 + l] = (x == 0 || x == -1) ? 0xffffffffu : (uint32_t)__builtin_clz(u); }
			{ int bank = (l >> 2) & 3; w[18 * 64 + l] = ((bank == 0 || bank == 2) && r + 2 <= 15) ? (uint32_t)(l + 2) : 0xffffffffu; }
			w[19 * 64 + l] = (uint32_t)(row + ((r & 8) | (7 - (r & 7))));
		}
		cmp_i32("valu", got, want, 20 * 64);
		return 0;
	}
	if (!strcmp(test, "append")) {
		if (!check) { wr("in0.bin", A, sizeof A); return 0; }
		int32_t *o = rd("out0.bin", N * 4), *cnt = rd("out1.bin", 16);
		for (int g = 0; g < 4; g++) {
			int32_t want[256], got[256]; int n = 0;
			for (int l = 0; l < 256; l++) if (A[g * 256 + l] > 0) want[n++] = A[g * 256 + l];
			cmp_i32("count", &cnt[g], &n, 1);
			if (cnt[g] != n) continue;
			memcpy(got, o + g * 256, (size_t)n * 4);
			/* same multiset: sort both */
			for (int x = 0; x < n; x++) for (int y = x + 1; y < n; y++) {
				if (got[y] < got[x]) { int32_t t = got[x]; got[x] = got[y]; got[y] = t; }
				if (want[y] < want[x]) { int32_t t = want[x]; want[x] = want[y]; want[y] = t; }
			}
			cmp_i32("compacted", got, want, n);
		}
		return 0;
	}
	if (!strcmp(test, "generic")) {
		if (!check) { wr("in0.bin", A, sizeof A); return 0; }
		int32_t *got = rd("out0.bin", N * 8), *want = calloc(N * 2, 4);
		for (int i = 0; i < N; i++) {
			int g = i & ~255, l = i & 255;
			want[2 * i] = (int32_t)((uint32_t)A[g + 255 - l] * 2u + (uint32_t)A[i] + 1u);
			want[2 * i + 1] = (int32_t)((uint32_t)A[i] - 1u);
		}
		cmp_i32("generic", got, want, N * 2);
		return 0;
	}
	if (!strcmp(test, "sgemm")) {
		static float a[64 * 64], b[64 * 64];
		for (int i = 0; i < 64 * 64; i++) { a[i] = frand(-1, 1); b[i] = frand(-1, 1); }
		if (!check) { wr("in0.bin", a, sizeof a); wr("in1.bin", b, sizeof b); return 0; }
		float *got = rd("out0.bin", sizeof a);
		for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) {
			float acc = 0;   /* the same order and fused multiply-adds as the kernel */
			for (int k = 0; k < 64; k++) acc = fmaf(a[i * 64 + k], b[k * 64 + j], acc);
			cmp_f32("sgemm", i * 64 + j, got[i * 64 + j], acc, 0);
		}
		return 0;
	}
	if (!strcmp(test, "bitonic")) {
		if (!check) { wr("in0.bin", A, sizeof A); return 0; }
		int32_t *got = rd("out0.bin", sizeof A), want[N];
		memcpy(want, A, sizeof want);
		for (int g = 0; g < 4; g++)   /* insertion sort of each 256-element block */
			for (int x = 1; x < 256; x++) {
				int32_t v = want[g * 256 + x]; int y = x - 1;
				while (y >= 0 && want[g * 256 + y] > v) { want[g * 256 + y + 1] = want[g * 256 + y]; y--; }
				want[g * 256 + y + 1] = v;
			}
		cmp_i32("bitonic", got, want, N);
		return 0;
	}
	if (!strcmp(test, "ir_buffer_format")) {
		float in[256];
		for (int i = 0; i < 256; i++) in[i] = frand(-10, 10);
		if (!check) { wr("in0.bin", in, sizeof in); return 0; }
		float *got = rd("out0.bin", sizeof in);
		for (int i = 0; i < 256; i++) cmp_f32("ir_buffer_format", i, got[i], in[i] + 1.0f, 0);
		return 0;
	}
	fprintf(stderr, "ref: unknown test %s\n", test);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "gen") && strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: ref gen|check TEST DIR\n");
		return 2;
	}
	dir = argv[3];
	int rc = run(argv[2], !strcmp(argv[1], "check"));
	if (rc) return rc;
	if (fails) { printf("%d mismatches\n", fails); return 1; }
	return 0;
}
