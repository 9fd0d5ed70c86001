// D (256 x 256, f32) = A (256 x 256, bf16, row-major) * B, with B given transposed (BT,
// 256 x 256 bf16, row-major), by v_mfma_f32_32x32x16_bf16. Each wave computes one 32x32
// tile of D over 16 K steps; launch 16 workgroups of 256 threads (4 waves each).
// Used by scripts/bench-sim-mfma.sh.
typedef float f16v __attribute__((ext_vector_type(16)));
typedef __bf16 bf8v __attribute__((ext_vector_type(8)));

#define R4(X) X(0) X(1) X(2) X(3)
#define R16(X) R4(X) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

kernel void gemm256(global const __bf16 *A, global const __bf16 *BT, global float *D)
{
	int lane = (int)__builtin_amdgcn_workitem_id_x() % 64;
	int wave = (int)__builtin_amdgcn_workgroup_id_x() * 4 + (int)__builtin_amdgcn_workitem_id_x() / 64;
	int ti = wave / 8, tj = wave % 8;
	f16v d = 0;
	for (int kk = 0; kk < 256; kk += 16) {
		int k0 = kk + 8 * (lane / 32);
		bf8v a = *(global const bf8v *)(A + (32 * ti + lane % 32) * 256 + k0);
		bf8v b = *(global const bf8v *)(BT + (32 * tj + lane % 32) * 256 + k0);
		d = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, d, 0, 0, 0);
	}
	global float *Dt = D + 32 * ti * 256 + 32 * tj;
#define ST(r) Dt[(8 * (r / 4) + 4 * (lane / 32) + r % 4) * 256 + lane % 32] = d[r];
	R16(ST)
}
