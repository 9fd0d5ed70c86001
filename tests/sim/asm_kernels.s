// tests/sim/asm_kernels.s — hand-written gfx950 kernels (assembled with llvm-mc-22),
// for code objects that do not come from clang's C front end.
//   k_squares(int *out): out[i] = i*i for the lanes of one workgroup
//   k_unsupported(int *out): uses s_rfe_b64, which the simulator does not implement
//   k_gpridx(int *out): VGPR indexing mode (s_set_gpr_idx_on)
//   k_kernarg_write: writes into its kernarg segment (a reported violation)
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

	// k_gpridx(int *out): VGPR indexing mode; out[lane] = v[1 + 2] (= 30 + lane) read through
	// s_set_gpr_idx_on with index 2, then out[64 + lane] = 7 written to v[0 + 3] through DST
	.globl k_gpridx
	.p2align 8
	.type k_gpridx,@function
k_gpridx:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_and_b32 v0, 0x3ff, v0
	v_add_u32 v1, 10, v0
	v_add_u32 v2, 20, v0
	v_add_u32 v3, 30, v0
	v_mov_b32 v4, 0
	s_mov_b32 s4, 2
	s_set_gpr_idx_on s4, gpr_idx(SRC0)
	v_mov_b32 v5, v1
	s_set_gpr_idx_off
	s_mov_b32 s4, 3
	s_set_gpr_idx_on s4, gpr_idx(DST)
	v_mov_b32 v1, 7
	s_set_gpr_idx_off
	v_lshlrev_b32 v6, 2, v0
	s_waitcnt lgkmcnt(0)
	global_store_dword v6, v5, s[2:3]
	global_store_dword v6, v4, s[2:3] offset:256
	s_endpgm
.Lgi_end:
	.size k_gpridx, .Lgi_end-k_gpridx

	// k_kernarg_write: stores into its own kernarg segment, which must be reported
	.globl k_kernarg_write
	.p2align 8
	.type k_kernarg_write,@function
k_kernarg_write:
	v_mov_b32 v1, 0
	v_mov_b32 v2, 42
	global_store_dword v1, v2, s[0:1]
	s_endpgm
.Lkw_end:
	.size k_kernarg_write, .Lkw_end-k_kernarg_write

	.rodata
	.p2align 6
	.amdhsa_kernel k_kernarg_write
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.p2align 6
	.amdhsa_kernel k_gpridx
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 8
	.end_amdhsa_kernel
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
  - .name: k_kernarg_write
    .symbol: k_kernarg_write.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 4
    .max_flat_workgroup_size: 256
    .args: []
  - .name: k_gpridx
    .symbol: k_gpridx.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 8
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
