/* scripts/bench-sim.sh: 256x256x256 BF16 GEMM with v_mfma_f32_16x16x32_bf16.
 * C[M][N] = A[M][K] * B[K][N], A row-major, B column-major (both bf16),
 * C f32 row-major. One wave per 16x16 tile of C; grid (N/16, M/16).
 * Operand layout per docs/amdgpu-facts.md section 4: lane l holds
 * A[i = l%16][k = 8*(l/16) + e], e = 0..7, and C rows 4*(l/16)+r, column l%16. */
typedef __attribute__((ext_vector_type(8))) __bf16 bf16x8;
typedef __attribute__((ext_vector_type(4))) float f32x4;
#define K 256
#define M 256
#define N 256
__kernel void gemm_bf16(__global const __bf16 *A, __global const __bf16 *B, __global float *C)
{
	int l = (int)__builtin_amdgcn_workitem_id_x();
	int ti = (int)__builtin_amdgcn_workgroup_id_y() * 16, tj = (int)__builtin_amdgcn_workgroup_id_x() * 16;
	f32x4 acc = (f32x4)(0.0f);
	for (int k0 = 0; k0 < K; k0 += 32) {
		bf16x8 a, b;
		for (int e = 0; e < 8; e++) {
			a[e] = A[(ti + l % 16) * K + k0 + 8 * (l / 16) + e];
			b[e] = B[(tj + l % 16) * K + k0 + 8 * (l / 16) + e];
		}
		acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, acc, 0, 0, 0);
	}
	for (int r = 0; r < 4; r++) C[(ti + 4 * (l / 16) + r) * N + tj + l % 16] = acc[r];
}
