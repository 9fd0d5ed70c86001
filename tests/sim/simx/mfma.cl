// End-to-end MFMA kernels for the gfx950 simulator (run by tests/unit/simx_e2e.c).
// Each kernel is one wave. A is row-major M x K; B is given transposed (BT, N x K, so that
// a lane's K run is contiguous); D is stored row-major M x N. Each lane loads its operand
// elements following the documented lane layout (docs/simulator-matrix.md section 3),
// issues one MFMA builtin and stores its D registers. Loops are written out with the
// R4/R16 macros so that -O0 code has no dynamically indexed vectors.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef float f4 __attribute__((ext_vector_type(4)));
typedef float f16v __attribute__((ext_vector_type(16)));
typedef __bf16 bf8v __attribute__((ext_vector_type(8)));
typedef half h8 __attribute__((ext_vector_type(8)));
typedef half h4 __attribute__((ext_vector_type(4)));
typedef int i4 __attribute__((ext_vector_type(4)));
typedef int i8v __attribute__((ext_vector_type(8)));
typedef int i16v __attribute__((ext_vector_type(16)));

#define LANE ((int)__builtin_amdgcn_workitem_id_x()) /* no device library: use the builtin */
#define R4(X) X(0) X(1) X(2) X(3)
#define R16(X) R4(X) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

// 16x16 D: register r of lane l is D[4*(l/16) + r][l%16]
#define ST16(r) D[(4 * (LANE / 16) + r) * 16 + LANE % 16] = d[r];
// 32x32 D: register r of lane l is D[8*(r/4) + 4*(l/32) + r%4][l%32]
#define ST32(r) D[(8 * (r / 4) + 4 * (LANE / 32) + r % 4) * 32 + LANE % 32] = d[r];

kernel void bf16_16x16x32(global const __bf16 *A, global const __bf16 *BT, global float *D)
{
	int k0 = 8 * (LANE / 16);
	bf8v a = *(global const bf8v *)(A + (LANE % 16) * 32 + k0);
	bf8v b = *(global const bf8v *)(BT + (LANE % 16) * 32 + k0);
	f4 c = {0, 0, 0, 0};
	f4 d = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, 0, 0, 0);
	R4(ST16)
}

kernel void bf16_32x32x16(global const __bf16 *A, global const __bf16 *BT, global float *D)
{
	int k0 = 8 * (LANE / 32);
	bf8v a = *(global const bf8v *)(A + (LANE % 32) * 16 + k0);
	bf8v b = *(global const bf8v *)(BT + (LANE % 32) * 16 + k0);
	f16v c = 0;
	f16v d = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, c, 0, 0, 0);
	R16(ST32)
}

kernel void f16_16x16x32(global const half *A, global const half *BT, global float *D)
{
	int k0 = 8 * (LANE / 16);
	h8 a = *(global const h8 *)(A + (LANE % 16) * 32 + k0);
	h8 b = *(global const h8 *)(BT + (LANE % 16) * 32 + k0);
	f4 c = {1, 1, 1, 1}; // C = 1 everywhere
	f4 d = __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, c, 0, 0, 0);
	R4(ST16)
}

kernel void f16_32x32x8(global const half *A, global const half *BT, global float *D)
{
	int k0 = 4 * (LANE / 32);
	h4 a = *(global const h4 *)(A + (LANE % 32) * 8 + k0);
	h4 b = *(global const h4 *)(BT + (LANE % 32) * 8 + k0);
	f16v c = 0;
	f16v d = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
	R16(ST32)
}

kernel void f32_32x32x2(global const float *A, global const float *BT, global float *D)
{
	float a = A[(LANE % 32) * 2 + LANE / 32];
	float b = BT[(LANE % 32) * 2 + LANE / 32];
	f16v c = 0;
	f16v d = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c, 0, 0, 0);
	R16(ST32)
}

kernel void i8_16x16x64(global const char *A, global const char *BT, global int *D)
{
	int k0 = 16 * (LANE / 16);
	i4 a = *(global const i4 *)(A + (LANE % 16) * 64 + k0);
	i4 b = *(global const i4 *)(BT + (LANE % 16) * 64 + k0);
	i4 c = {0, 0, 0, 0};
	i4 d = __builtin_amdgcn_mfma_i32_16x16x64_i8(a, b, c, 0, 0, 0);
	R4(ST16)
}

kernel void i8_32x32x32(global const char *A, global const char *BT, global int *D)
{
	int k0 = 16 * (LANE / 32);
	i4 a = *(global const i4 *)(A + (LANE % 32) * 32 + k0);
	i4 b = *(global const i4 *)(BT + (LANE % 32) * 32 + k0);
	i16v c = 0;
	i16v d = __builtin_amdgcn_mfma_i32_32x32x32_i8(a, b, c, 0, 0, 0);
	R16(ST32)
}

kernel void fp8_fp8_16x16x32(global const uchar *A, global const uchar *BT, global float *D)
{
	int k0 = 8 * (LANE / 16);
	long a = *(global const long *)(A + (LANE % 16) * 32 + k0);
	long b = *(global const long *)(BT + (LANE % 16) * 32 + k0);
	f4 c = {0, 0, 0, 0};
	f4 d = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, b, c, 0, 0, 0);
	R4(ST16)
}

kernel void fp8_bf8_32x32x16(global const uchar *A, global const uchar *BT, global float *D)
{
	int k0 = 8 * (LANE / 32);
	long a = *(global const long *)(A + (LANE % 32) * 16 + k0);
	long b = *(global const long *)(BT + (LANE % 32) * 16 + k0);
	f16v c = 0;
	f16v d = __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8(a, b, c, 0, 0, 0);
	R16(ST32)
}

// Scaled 16x16x128: A fp8 (format 0), B fp4 (format 4). SA is 16 x 4 E8M0 scales
// (row, K block of 32), SB 16 x 4 (column, K block). fp8 byte e of lane l holds
// k = 64*(e/16) + 16*(l/16) + e%16: two 16-byte runs. fp4 nibble e of lane l holds
// k = 32*(l/16) + e: one 16-byte run of packed nibbles (BT is N x K/2 bytes).
kernel void scale_fp8_fp4_16x16x128(global const uchar *A, global const uchar *BT,
                                    global const uchar *SA, global const uchar *SB, global float *D)
{
	global const uchar *ar = A + (LANE % 16) * 128 + 16 * (LANE / 16);
	i8v a = (i8v)(*(global const i4 *)ar, *(global const i4 *)(ar + 64));
	i4 bp = *(global const i4 *)(BT + (LANE % 16) * 64 + 16 * (LANE / 16));
	i8v b = (i8v)(bp, (i4)(0));
	int sa = SA[(LANE % 16) * 4 + LANE / 16] << 8;  // byte 1: opsel 1
	int sb = SB[(LANE % 16) * 4 + LANE / 16] << 16; // byte 2: opsel 2
	f4 c = {0, 0, 0, 0};
	f4 d = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a, b, c, 0, 4, 1, sa, 2, sb);
	R4(ST16)
}

// Scaled 32x32x64, both fp4 (blog layout: nibble e of lane l holds k = 32*(l/32) + e).
kernel void scale_fp4_32x32x64(global const uchar *A, global const uchar *BT,
                               global const uchar *SA, global const uchar *SB, global float *D)
{
	i4 ap = *(global const i4 *)(A + (LANE % 32) * 32 + 16 * (LANE / 32));
	i4 bp = *(global const i4 *)(BT + (LANE % 32) * 32 + 16 * (LANE / 32));
	i8v a = (i8v)(ap, (i4)(0)), b = (i8v)(bp, (i4)(0));
	int sa = SA[(LANE % 32) * 2 + LANE / 32];       // byte 0
	int sb = SB[(LANE % 32) * 2 + LANE / 32] << 24; // byte 3
	f16v c = 0;
	f16v d = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a, b, c, 4, 4, 0, sa, 3, sb);
	R16(ST32)
}

// Unscaled 16x16x128 with both operands fp8: scale 0 with opsel 0 makes LLVM select the
// unscaled opcode (v_mfma_f32_16x16x128_f8f6f4), which the simulator runs with scale 1.
kernel void f8f6f4_fp8_16x16x128(global const uchar *A, global const uchar *BT, global float *D)
{
	global const uchar *ar = A + (LANE % 16) * 128 + 16 * (LANE / 16);
	global const uchar *br = BT + (LANE % 16) * 128 + 16 * (LANE / 16);
	i8v a = (i8v)(*(global const i4 *)ar, *(global const i4 *)(ar + 64));
	i8v b = (i8v)(*(global const i4 *)br, *(global const i4 *)(br + 64));
	f4 c = {0, 0, 0, 0};
	f4 d = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a, b, c, 0, 0, 0, 0, 0, 0);
	R4(ST16)
}

// A 64x64x64 bf16 GEMM by one wave: 2x2 tiles of 32x32, four K steps of 16 each,
// accumulating in the MFMA's C operand.
kernel void gemm_bf16_64(global const __bf16 *A, global const __bf16 *BT, global float *D0)
{
	for (int ti = 0; ti < 2; ti++)
		for (int tj = 0; tj < 2; tj++) {
			f16v d = 0;
			for (int kk = 0; kk < 64; kk += 16) {
				int k0 = kk + 8 * (LANE / 32);
				bf8v a = *(global const bf8v *)(A + (32 * ti + LANE % 32) * 64 + k0);
				bf8v b = *(global const bf8v *)(BT + (32 * tj + LANE % 32) * 64 + k0);
				d = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, d, 0, 0, 0);
			}
			global float *D = D0 + 32 * ti * 64 + 32 * tj;
#define STG(r) D[(8 * (r / 4) + 4 * (LANE / 32) + r % 4) * 64 + LANE % 32] = d[r];
			R16(STG)
		}
}
