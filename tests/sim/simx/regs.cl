// End-to-end kernels that take MFMA operands as register images (run by
// tests/unit/simx_e2e.c). Buffer X holds lane-major operand registers: X[lane] is the
// lane's vector. The test builds the images from matrices with its own copy of the lane
// layout and checks D against a CPU product. These cover the multi-block forms with
// cbsz/abid/blgp, the f64 form with neg, the fp6/bf6 formats of the scaled MFMA and the
// 32-wide fp6 conversions.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef float f4 __attribute__((ext_vector_type(4)));
typedef float f16v __attribute__((ext_vector_type(16)));
typedef float f32v __attribute__((ext_vector_type(32)));
typedef double d4 __attribute__((ext_vector_type(4)));
typedef half h4 __attribute__((ext_vector_type(4)));
typedef half h32 __attribute__((ext_vector_type(32)));
typedef uint u6 __attribute__((ext_vector_type(6)));
typedef int i8v __attribute__((ext_vector_type(8)));

#define LANE ((int)__builtin_amdgcn_workitem_id_x()) /* no device library */

kernel void f16_4x4x4_16b(global const h4 *A, global const h4 *B, global const f4 *C, global f4 *D)
{
	int l = LANE;
	D[l] = __builtin_amdgcn_mfma_f32_4x4x4f16(A[l], B[l], C[l], 4, 3, 2);
}

kernel void f16_16x16x4_4b(global const h4 *A, global const h4 *B, global const f16v *C, global f16v *D)
{
	int l = LANE;
	D[l] = __builtin_amdgcn_mfma_f32_16x16x4f16(A[l], B[l], C[l], 2, 1, 0);
}

kernel void f64_16x16x4(global const double *A, global const double *B, global const d4 *C, global d4 *D)
{
	int l = LANE;
	D[l] = __builtin_amdgcn_mfma_f64_16x16x4f64(A[l], B[l], C[l], 0, 0, 1); // neg A
}

// A fp6 (format 2), B bf6 (format 3); 6 registers each (the builtin takes 8).
kernel void scale_fp6_bf6_16x16x128(global const u6 *A, global const u6 *B, global const int *S,
                                    global float *D)
{
	int l = LANE;
	u6 a = A[l], b = B[l];
	i8v av = {a.s0, a.s1, a.s2, a.s3, a.s4, a.s5, 0, 0};
	i8v bv = {b.s0, b.s1, b.s2, b.s3, b.s4, b.s5, 0, 0};
	f4 c = {0, 0, 0, 0};
	f4 d = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(av, bv, c, 2, 3, 3, S[l], 0, S[64 + l]);
	D[4 * l] = d.x; D[4 * l + 1] = d.y; D[4 * l + 2] = d.z; D[4 * l + 3] = d.w;
}

// 32 halves -> 32 fp6 codes (scale S[l]) -> 32 floats (scale 4.0, an inline constant).
kernel void pk32_fp6(global const h32 *H, global const float *S, global u6 *P, global f32v *F)
{
	int l = LANE;
	u6 p = __builtin_amdgcn_cvt_scalef32_pk32_fp6_f16(H[l], S[l]);
	P[l] = p;
	F[l] = __builtin_amdgcn_cvt_scalef32_pk32_f32_fp6(p, 4.0f);
}

// 4:2 sparse MFMA: A holds 2 of every 4 K values (8 halves / 16 bytes per lane), IDX the
// positions (abid 1 selects the second index set for f16), D = A*B + D.
typedef half h8 __attribute__((ext_vector_type(8)));
typedef half h16 __attribute__((ext_vector_type(16)));
typedef int i4 __attribute__((ext_vector_type(4)));
kernel void smfmac_f16_16x16x64(global const h8 *A, global const h16 *B, global const int *IDX, global f4 *D)
{
	int l = LANE;
	D[l] = __builtin_amdgcn_smfmac_f32_16x16x64_f16(A[l], B[l], D[l], IDX[l], 0, 1);
}

kernel void smfmac_fp8_bf8_32x32x64(global const i4 *A, global const i8v *B, global const int *IDX, global f16v *D)
{
	int l = LANE;
	D[l] = __builtin_amdgcn_smfmac_f32_32x32x64_fp8_bf8(A[l], B[l], D[l], IDX[l], 0, 0);
}
