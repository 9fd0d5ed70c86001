// tests/sim/asm_kernels.s — hand-written gfx950 kernels (assembled with llvm-mc-22),
// for code objects that do not come from clang's C front end.
//   k_squares(int *out): out[i] = i*i for the lanes of one workgroup
//   k_unsupported(int *out): uses s_rfe_b64, which the simulator does not implement
	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.text
	.globl k_squares
	.p2align 8
	.type k_squares,@function
k_squares:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_and_b32 v0, 0x3ff, v0
	v_lshlrev_b32 v1, 2, v0
	v_mul_lo_u32 v2, v0, v0
	s_waitcnt lgkmcnt(0)
	global_store_dword v1, v2, s[2:3]
	s_endpgm
.Lsq_end:
	.size k_squares, .Lsq_end-k_squares

	.globl k_unsupported
	.p2align 8
	.type k_unsupported,@function
k_unsupported:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	s_rfe_b64 s[2:3]
	s_endpgm
.Lun_end:
	.size k_unsupported, .Lun_end-k_unsupported

	.rodata
	.p2align 6
	.amdhsa_kernel k_squares
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.p2align 6
	.amdhsa_kernel k_unsupported
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: k_squares
    .symbol: k_squares.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 4
    .max_flat_workgroup_size: 256
    .args: []
  - .name: k_unsupported
    .symbol: k_unsupported.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 4
    .max_flat_workgroup_size: 256
    .args: []
...
	.end_amdgpu_metadata
