// End-to-end MFMA kernels for the gfx950 simulator (tests/unit/simx_e2e.c runs them).
// Each kernel is one wave: it loads its operand elements from row-major A (M x K) and
// B (K x N) following the documented lane layout (docs/simulator-matrix.md section 3),
// issues one MFMA builtin, and stores D row-major (M x N). The test compares D with a
// plain CPU matmul.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef float f4 __attribute__((ext_vector_type(4)));
typedef float f16v __attribute__((ext_vector_type(16)));
typedef __bf16 bf8v __attribute__((ext_vector_type(8)));
typedef half h8 __attribute__((ext_vector_type(8)));
typedef half h4 __attribute__((ext_vector_type(4)));
typedef int i4 __attribute__((ext_vector_type(4)));
typedef int i8v __attribute__((ext_vector_type(8)));

#define LANE ((int)__builtin_amdgcn_workitem_id_x()) /* no device library: use the builtin */

// store a 16x16 D: register r of lane l is D[4*(l/16) + r][l%16]
static void store16(global float *D, f4 d)
{
	for (int r = 0; r < 4; r++)
		D[(4 * (LANE / 16) + r) * 16 + LANE % 16] = d[r];
}
// store a 32x32 D: register r of lane l is D[8*(r/4) + 4*(l/32) + r%4][l%32]
static void store32(global float *D, f16v d)
{
	for (int r = 0; r < 16; r++)
		D[(8 * (r / 4) + 4 * (LANE / 32) + r % 4) * 32 + LANE % 32] = d[r];
}

kernel void bf16_16x16x32(global const __bf16 *A, global const __bf16 *B, global float *D)
{
	bf8v a, b;
	for (int e = 0; e < 8; e++) {
		int k = 8 * (LANE / 16) + e;
		a[e] = A[(LANE % 16) * 32 + k];
		b[e] = B[k * 16 + LANE % 16];
	}
	f4 c = {0, 0, 0, 0};
	store16(D, __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, 0, 0, 0));
}

kernel void bf16_32x32x16(global const __bf16 *A, global const __bf16 *B, global float *D)
{
	bf8v a, b;
	for (int e = 0; e < 8; e++) {
		int k = 8 * (LANE / 32) + e;
		a[e] = A[(LANE % 32) * 16 + k];
		b[e] = B[k * 32 + LANE % 32];
	}
	f16v c = 0;
	store32(D, __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, c, 0, 0, 0));
}

kernel void f16_16x16x32(global const half *A, global const half *B, global float *D)
{
	h8 a, b;
	for (int e = 0; e < 8; e++) {
		int k = 8 * (LANE / 16) + e;
		a[e] = A[(LANE % 16) * 32 + k];
		b[e] = B[k * 16 + LANE % 16];
	}
	f4 c = {1, 1, 1, 1}; // C = 1 everywhere
	store16(D, __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, c, 0, 0, 0));
}

kernel void f16_32x32x8(global const half *A, global const half *B, global float *D)
{
	h4 a, b;
	for (int e = 0; e < 4; e++) {
		int k = 4 * (LANE / 32) + e;
		a[e] = A[(LANE % 32) * 8 + k];
		b[e] = B[k * 32 + LANE % 32];
	}
	f16v c = 0;
	store32(D, __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0));
}

kernel void f32_32x32x2(global const float *A, global const float *B, global float *D)
{
	float a = A[(LANE % 32) * 2 + LANE / 32];
	float b = B[(LANE / 32) * 32 + LANE % 32];
	f16v c = 0;
	store32(D, __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c, 0, 0, 0));
}

kernel void i8_16x16x64(global const char *A, global const char *B, global int *D)
{
	union { i4 v; char c[16]; } a, b;
	for (int e = 0; e < 16; e++) {
		int k = 16 * (LANE / 16) + e;
		a.c[e] = A[(LANE % 16) * 64 + k];
		b.c[e] = B[k * 16 + LANE % 16];
	}
	i4 c = {0, 0, 0, 0};
	i4 d = __builtin_amdgcn_mfma_i32_16x16x64_i8(a.v, b.v, c, 0, 0, 0);
	for (int r = 0; r < 4; r++)
		D[(4 * (LANE / 16) + r) * 16 + LANE % 16] = d[r];
}

kernel void i8_32x32x32(global const char *A, global const char *B, global int *D)
{
	union { i4 v; char c[16]; } a, b;
	for (int e = 0; e < 16; e++) {
		int k = 16 * (LANE / 32) + e;
		a.c[e] = A[(LANE % 32) * 32 + k];
		b.c[e] = B[k * 32 + LANE % 32];
	}
	typedef int i16v __attribute__((ext_vector_type(16)));
	i16v c = 0;
	i16v d = __builtin_amdgcn_mfma_i32_32x32x32_i8(a.v, b.v, c, 0, 0, 0);
	for (int r = 0; r < 16; r++)
		D[(8 * (r / 4) + 4 * (LANE / 32) + r % 4) * 32 + LANE % 32] = d[r];
}

kernel void fp8_fp8_16x16x32(global const uchar *A, global const uchar *B, global float *D)
{
	union { long v; uchar c[8]; } a, b;
	for (int e = 0; e < 8; e++) {
		int k = 8 * (LANE / 16) + e;
		a.c[e] = A[(LANE % 16) * 32 + k];
		b.c[e] = B[k * 16 + LANE % 16];
	}
	f4 c = {0, 0, 0, 0};
	store16(D, __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a.v, b.v, c, 0, 0, 0));
}

kernel void fp8_bf8_32x32x16(global const uchar *A, global const uchar *B, global float *D)
{
	union { long v; uchar c[8]; } a, b;
	for (int e = 0; e < 8; e++) {
		int k = 8 * (LANE / 32) + e;
		a.c[e] = A[(LANE % 32) * 16 + k];
		b.c[e] = B[k * 32 + LANE % 32];
	}
	f16v c = 0;
	store32(D, __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8(a.v, b.v, c, 0, 0, 0));
}

// Scaled 16x16x128: A fp8 (format 0), B fp4 (format 4). SA is 16 x 4 E8M0 (row, K block),
// SB is 16 x 4 (column, K block). A fp8 byte e of lane l: k = 64*(e/16) + 16*(l/16) + e%16.
// B fp4 nibble e of lane l: k = 32*(l/16) + e. B is stored K x N as one code per byte.
kernel void scale_fp8_fp4_16x16x128(global const uchar *A, global const uchar *B,
                                    global const uchar *SA, global const uchar *SB, global float *D)
{
	union { i8v v; uchar c[32]; } a, b;
	for (int e = 0; e < 32; e++) {
		int k = 64 * (e / 16) + 16 * (LANE / 16) + e % 16;
		a.c[e] = A[(LANE % 16) * 128 + k];
		b.c[e] = 0;
	}
	for (int e = 0; e < 32; e++) {
		int k = 32 * (LANE / 16) + e;
		b.c[e / 2] |= (B[k * 16 + LANE % 16] & 15) << (4 * (e % 2));
	}
	int sa = SA[(LANE % 16) * 4 + LANE / 16] << 8;   // in byte 1: opsel 1
	int sb = SB[(LANE % 16) * 4 + LANE / 16] << 16;  // in byte 2: opsel 2
	f4 c = {0, 0, 0, 0};
	store16(D, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a.v, b.v, c, 0, 4, 1, sa, 2, sb));
}

// Scaled 32x32x64, both fp4 (blog layout: k = 32*(l/32) + e).
kernel void scale_fp4_32x32x64(global const uchar *A, global const uchar *B,
                               global const uchar *SA, global const uchar *SB, global float *D)
{
	union { i8v v; uchar c[32]; } a, b;
	for (int e = 0; e < 32; e++)
		a.c[e] = b.c[e] = 0;
	for (int e = 0; e < 32; e++) {
		int k = 32 * (LANE / 32) + e;
		a.c[e / 2] |= (A[(LANE % 32) * 64 + k] & 15) << (4 * (e % 2));
		b.c[e / 2] |= (B[k * 32 + LANE % 32] & 15) << (4 * (e % 2));
	}
	int sa = SA[(LANE % 32) * 2 + LANE / 32];
	int sb = SB[(LANE % 32) * 2 + LANE / 32] << 24;
	f16v c = 0;
	store32(D, __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a.v, b.v, c, 4, 4, 0, sa, 3, sb));
}

// Unscaled 16x16x128 with both operands fp8 (the compiler may fold a constant unit scale).
kernel void f8f6f4_fp8_16x16x128(global const uchar *A, global const uchar *B, global float *D)
{
	union { i8v v; uchar c[32]; } a, b;
	for (int e = 0; e < 32; e++) {
		int k = 64 * (e / 16) + 16 * (LANE / 16) + e % 16;
		a.c[e] = A[(LANE % 16) * 128 + k];
		b.c[e] = B[k * 16 + LANE % 16];
	}
	f4 c = {0, 0, 0, 0};
	store16(D, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a.v, b.v, c, 0, 0, 0, 0, 0, 0));
}

// A 64x64x64 bf16 GEMM by one wave: 2x2 tiles of 32x32, four K steps of 16 each.
kernel void gemm_bf16_64(global const __bf16 *A, global const __bf16 *B, global float *D)
{
	for (int ti = 0; ti < 2; ti++)
		for (int tj = 0; tj < 2; tj++) {
			f16v acc = 0;
			for (int kk = 0; kk < 64; kk += 16) {
				bf8v a, b;
				for (int e = 0; e < 8; e++) {
					int k = kk + 8 * (LANE / 32) + e;
					a[e] = A[(32 * ti + LANE % 32) * 64 + k];
					b[e] = B[k * 64 + 32 * tj + LANE % 32];
				}
				acc = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, acc, 0, 0, 0);
			}
			for (int r = 0; r < 16; r++)
				D[(32 * ti + 8 * (r / 4) + 4 * (LANE / 32) + r % 4) * 64 + 32 * tj + LANE % 32] = acc[r];
		}
}
