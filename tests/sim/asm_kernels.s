// tests/sim/asm_kernels.s — hand-written gfx950 kernels (assembled with llvm-mc-22),
// for code objects that do not come from clang's C front end.
//   k_squares(int *out): out[i] = i*i for the lanes of one workgroup
//   k_unsupported(int *out): uses s_rfe_b64, which the simulator does not implement
//   k_gpridx(int *out): VGPR indexing mode (s_set_gpr_idx_on)
//   k_salu(int *out): scalar ALU results checked against ref.c
//   k_valu(int *out): DPP, SDWA and other vector ALU results checked against ref.c
//   k_satomic(int *out): scalar stores and scalar (buffer) atomics, checked against ref.c
//   k_satomic_oob(int *out): s_atomic_add at out + 0x100 (a reported violation for a short out)
//   k_kernarg_write: writes into its kernarg segment (a reported violation)
//   k_bitop3(int *out): v_bitop3_b32 with inline-constant sources, as LLVM -O3 emits
//     for swizzled LDS addresses: out[2l] = (x|64)^8 and out[2l+1] = (x|v)^8 with v = 64,
//     x = l + 0x100 (the truth table 0x36 must survive a trailing inline constant)
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

	.globl k_bitop3
	.p2align 8
	.type k_bitop3,@function
k_bitop3:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_and_b32 v0, 0x3ff, v0
	v_add_u32 v2, 0x100, v0
	v_bitop3_b32 v4, v2, 8, 64 bitop3:0x36
	v_mov_b32 v3, 64
	v_bitop3_b32 v5, v2, 8, v3 bitop3:0x36
	v_lshlrev_b32 v1, 3, v0
	s_waitcnt lgkmcnt(0)
	global_store_dwordx2 v1, v[4:5], s[2:3]
	s_endpgm
.Lb3_end:
	.size k_bitop3, .Lb3_end-k_bitop3

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

	// k_salu(int *out): scalar ALU results (s6..s41) stored from lane 0; reference in ref.c "salu"
	.globl k_salu
	.p2align 8
	.type k_salu,@function
k_salu:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_mov_b64 exec, 1
	v_mov_b32 v0, 0
	s_mov_b32 s4, 0x12345678
	s_mov_b32 s5, 0x9abcdef0
	s_bfe_i64 s[6:7], s[4:5], 0x180014
	s_bitreplicate_b64_b32 s[8:9], s4
	s_flbit_i32_i64 s10, s[4:5]
	s_mov_b32 s11, 0
	s_brev_b64 s[12:13], s[4:5]
	s_ff1_i32_b64 s14, s[12:13]
	s_bcnt1_i32_b64 s15, s[4:5]
	s_quadmask_b64 s[16:17], s[4:5]
	s_wqm_b64 s[18:19], s[4:5]
	s_absdiff_i32 s20, s4, s5
	s_lshl3_add_u32 s21, s5, s4
	s_cselect_b32 s22, 1, 0
	s_pack_hh_b32_b16 s23, s4, s5
	s_mul_hi_i32 s24, s4, s5
	s_add_u32 s25, s5, s5
	s_addc_u32 s26, s4, s4
	s_movk_i32 s27, 0x8001
	s_cmpk_lt_u32 s4, 0xffff
	s_cselect_b32 s28, 1, 0
	s_cmp_lg_u64 s[4:5], s[4:5]
	s_cselect_b32 s29, 5, 7
	s_mov_b64 s[30:31], 0
	s_bitset1_b64 s[30:31], 40
	s_ashr_i64 s[32:33], s[4:5], 36
	s_lshl_b64 s[34:35], s[4:5], 3
	s_cselect_b32 s36, 1, 0
	s_mul_hi_u32 s37, s4, s5
	s_sext_i32_i16 s38, s5
	s_mov_b32 s42, 36
	s_mov_b32 s43, 4
	s_bfm_b64 s[40:41], s43, s42
	s_sub_u32 s39, s4, s5
	s_subb_u32 s39, s39, 0
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v1, s6
	global_store_dword v0, v1, s[2:3] offset:0
	v_mov_b32 v1, s7
	global_store_dword v0, v1, s[2:3] offset:4
	v_mov_b32 v1, s8
	global_store_dword v0, v1, s[2:3] offset:8
	v_mov_b32 v1, s9
	global_store_dword v0, v1, s[2:3] offset:12
	v_mov_b32 v1, s10
	global_store_dword v0, v1, s[2:3] offset:16
	v_mov_b32 v1, s11
	global_store_dword v0, v1, s[2:3] offset:20
	v_mov_b32 v1, s12
	global_store_dword v0, v1, s[2:3] offset:24
	v_mov_b32 v1, s13
	global_store_dword v0, v1, s[2:3] offset:28
	v_mov_b32 v1, s14
	global_store_dword v0, v1, s[2:3] offset:32
	v_mov_b32 v1, s15
	global_store_dword v0, v1, s[2:3] offset:36
	v_mov_b32 v1, s16
	global_store_dword v0, v1, s[2:3] offset:40
	v_mov_b32 v1, s17
	global_store_dword v0, v1, s[2:3] offset:44
	v_mov_b32 v1, s18
	global_store_dword v0, v1, s[2:3] offset:48
	v_mov_b32 v1, s19
	global_store_dword v0, v1, s[2:3] offset:52
	v_mov_b32 v1, s20
	global_store_dword v0, v1, s[2:3] offset:56
	v_mov_b32 v1, s21
	global_store_dword v0, v1, s[2:3] offset:60
	v_mov_b32 v1, s22
	global_store_dword v0, v1, s[2:3] offset:64
	v_mov_b32 v1, s23
	global_store_dword v0, v1, s[2:3] offset:68
	v_mov_b32 v1, s24
	global_store_dword v0, v1, s[2:3] offset:72
	v_mov_b32 v1, s25
	global_store_dword v0, v1, s[2:3] offset:76
	v_mov_b32 v1, s26
	global_store_dword v0, v1, s[2:3] offset:80
	v_mov_b32 v1, s27
	global_store_dword v0, v1, s[2:3] offset:84
	v_mov_b32 v1, s28
	global_store_dword v0, v1, s[2:3] offset:88
	v_mov_b32 v1, s29
	global_store_dword v0, v1, s[2:3] offset:92
	v_mov_b32 v1, s30
	global_store_dword v0, v1, s[2:3] offset:96
	v_mov_b32 v1, s31
	global_store_dword v0, v1, s[2:3] offset:100
	v_mov_b32 v1, s32
	global_store_dword v0, v1, s[2:3] offset:104
	v_mov_b32 v1, s33
	global_store_dword v0, v1, s[2:3] offset:108
	v_mov_b32 v1, s34
	global_store_dword v0, v1, s[2:3] offset:112
	v_mov_b32 v1, s35
	global_store_dword v0, v1, s[2:3] offset:116
	v_mov_b32 v1, s36
	global_store_dword v0, v1, s[2:3] offset:120
	v_mov_b32 v1, s37
	global_store_dword v0, v1, s[2:3] offset:124
	v_mov_b32 v1, s38
	global_store_dword v0, v1, s[2:3] offset:128
	v_mov_b32 v1, s39
	global_store_dword v0, v1, s[2:3] offset:132
	v_mov_b32 v1, s40
	global_store_dword v0, v1, s[2:3] offset:136
	v_mov_b32 v1, s41
	global_store_dword v0, v1, s[2:3] offset:140
	s_endpgm
.Lsalu_end:
	.size k_salu, .Lsalu_end-k_salu

	// k_valu(int *out): one wave; out[64*k + lane] = result k (DPP, SDWA, cmpx, perm,
	// alignbyte, med3, cvt_pk_u8, bfi, cndmask with neg, swap, flr/rpi, frexp, ffbh);
	// reference in ref.c "valu"
	.globl k_valu
	.p2align 8
	.type k_valu,@function
k_valu:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_and_b32 v0, 0x3ff, v0
	v_lshlrev_b32 v30, 2, v0
	v_add_u32 v31, 1, v0
	v_add_u32 v2, 0x3e8, v0
	v_mov_b32 v27, -1
	v_mul_u32_u24 v5, 0x1234, v31
	v_add_u32 v6, 0xfff0, v0
	v_mov_b32 v4, 0xaaaa5555
	v_cvt_f32_u32 v20, v0
	v_mul_f32 v20, 0x40933333, v20
	v_mov_b32 v13, 0x11223344
	s_mov_b32 s12, 0x0c050703
	s_mov_b32 s13, 0xff00ff00
	s_mov_b32 s10, 0x55555555
	s_mov_b32 s11, 0x55555555
	v_cvt_f32_u32 v16, v0
	v_cvt_f32_u32 v17, v31
	v_mov_b32 v18, v0
	v_mov_b32 v19, v6
	v_subrev_u32 v32, 32, v0
	v_cvt_f32_i32 v22, v32
	v_mul_f32 v22, 0.5, v22
	s_movk_i32 s14, 0x3039
	v_mul_lo_u32 v26, v32, s14
	v_mov_b32 v9, 0
	v_mov_b32_dpp v1, v0 row_ror:3 row_mask:0xf bank_mask:0xf
	v_mov_b32_dpp v2, v0 row_bcast:15 row_mask:0xa bank_mask:0xf
	v_mov_b32_dpp v3, v0 wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_add_u32_sdwa v4, v5, v6 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_0
	v_add_u32_sdwa v7, sext(v5), v6 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:BYTE_0
	v_mov_b32_sdwa v8, v5 dst_sel:BYTE_0 dst_unused:UNUSED_SEXT src0_sel:BYTE_1
	s_mov_b64 s[20:21], exec
	v_cmpx_gt_u32_e32 vcc, 40, v0
	v_mov_b32 v9, 1
	s_mov_b64 exec, s[20:21]
	v_perm_b32 v10, v5, v6, s12
	v_alignbyte_b32 v11, v5, v6, 3
	v_med3_i32 v12, v0, 20, 40
	v_cvt_pk_u8_f32 v13, v20, 2, v13
	v_bfi_b32 v14, s13, v5, v6
	v_cndmask_b32_e64 v15, v16, -v17, s[10:11]
	v_swap_b32 v18, v19
	v_cvt_flr_i32_f32 v21, v22
	v_cvt_rpi_i32_f32 v23, v22
	v_frexp_exp_i32_f32 v24, v20
	v_ffbh_i32 v25, v26
	v_mov_b32_dpp v27, v0 row_shl:2 row_mask:0xf bank_mask:0x5
	v_mov_b32_dpp v28, v0 row_half_mirror row_mask:0xf bank_mask:0xf
	s_waitcnt lgkmcnt(0)
	global_store_dword v30, v1, s[2:3] offset:0
	global_store_dword v30, v2, s[2:3] offset:256
	global_store_dword v30, v3, s[2:3] offset:512
	global_store_dword v30, v4, s[2:3] offset:768
	global_store_dword v30, v7, s[2:3] offset:1024
	global_store_dword v30, v8, s[2:3] offset:1280
	global_store_dword v30, v9, s[2:3] offset:1536
	global_store_dword v30, v10, s[2:3] offset:1792
	global_store_dword v30, v11, s[2:3] offset:2048
	global_store_dword v30, v12, s[2:3] offset:2304
	global_store_dword v30, v13, s[2:3] offset:2560
	global_store_dword v30, v14, s[2:3] offset:2816
	global_store_dword v30, v15, s[2:3] offset:3072
	global_store_dword v30, v18, s[2:3] offset:3328
	global_store_dword v30, v21, s[2:3] offset:3584
	global_store_dword v30, v23, s[2:3] offset:3840
	v_add_u32 v30, 0x1000, v30
	global_store_dword v30, v24, s[2:3] offset:0
	global_store_dword v30, v25, s[2:3] offset:256
	global_store_dword v30, v27, s[2:3] offset:512
	global_store_dword v30, v28, s[2:3] offset:768
	s_endpgm
.Lvalu_end:
	.size k_valu, .Lvalu_end-k_valu

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

	// k_satomic(int *out): out[0..39] are memory words set with s_store_dword*,
	// then changed by one scalar atomic each (most with glc, returning the old
	// value); out[32..37] are buffer accesses (resource: out + 128, 16 bytes);
	// out[40..63] are the returned values. Reference in ref.c "satomic".
	.globl k_satomic
	.p2align 8
	.type k_satomic,@function
k_satomic:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s4, 0x11111111
	s_mov_b32 s5, 5
	s_mov_b32 s6, 6
	s_mov_b32 s7, 0xfffffff0
	s_store_dwordx4 s[4:7], s[2:3], 0x0
	s_mov_b32 s4, 3
	s_mov_b32 s5, -3
	s_mov_b32 s6, -3
	s_mov_b32 s7, -3
	s_store_dwordx4 s[4:7], s[2:3], 0x10
	s_mov_b32 s4, -3
	s_mov_b32 s5, 0xff00ff00
	s_mov_b32 s6, 0xff00ff00
	s_mov_b32 s7, 0xff00ff00
	s_store_dwordx4 s[4:7], s[2:3], 0x20
	s_mov_b32 s4, 7
	s_mov_b32 s5, 3
	s_mov_b32 s6, 0
	s_mov_b32 s7, 5
	s_store_dwordx4 s[4:7], s[2:3], 0x30
	s_mov_b32 s4, -1
	s_mov_b32 s5, 1
	s_store_dwordx2 s[4:5], s[2:3], 0x40
	s_mov_b32 s4, 0x89abcdef
	s_mov_b32 s5, 0x01234567
	s_store_dwordx2 s[4:5], s[2:3], 0x48
	s_mov_b64 s[4:5], 0
	s_store_dwordx2 s[4:5], s[2:3], 0x50
	s_mov_b64 s[4:5], -1
	s_store_dwordx2 s[4:5], s[2:3], 0x58
	s_mov_b32 s4, 100
	s_store_dword s4, s[2:3], 0x60
	s_mov_b32 s4, 100
	s_mov_b32 s5, 0x77
	s_mov_b32 s6, 0x77
	s_mov_b32 s7, 0x77
	s_store_dwordx4 s[4:7], s[2:3], 0x80
	s_mov_b32 s4, 0x88
	s_store_dword s4, s[2:3], 0x90
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s40, 0x22222222
	s_atomic_swap s40, s[2:3], 0x0 glc
	s_mov_b32 s42, 9
	s_mov_b32 s43, 5
	s_atomic_cmpswap s[42:43], s[2:3], 0x4 glc
	s_mov_b32 s44, 9
	s_mov_b32 s45, 5
	s_atomic_cmpswap s[44:45], s[2:3], 0x8 glc
	s_mov_b32 s30, 0xc
	s_mov_b32 s41, 0x20
	s_atomic_add s41, s[2:3], s30 glc
	s_mov_b32 s46, 5
	s_atomic_sub s46, s[2:3], s30 offset:0x4 glc
	s_mov_b32 s47, 2
	s_atomic_smin s47, s[2:3], 0x14 glc
	s_mov_b32 s48, 2
	s_atomic_umin s48, s[2:3], 0x18 glc
	s_mov_b32 s49, 2
	s_atomic_smax s49, s[2:3], 0x1c glc
	s_mov_b32 s50, 2
	s_atomic_umax s50, s[2:3], 0x20 glc
	s_mov_b32 s51, 0x0ff00ff0
	s_atomic_and s51, s[2:3], 0x24 glc
	s_mov_b32 s52, 0x0ff00ff0
	s_atomic_or s52, s[2:3], 0x28 glc
	s_mov_b32 s53, 0x0ff00ff0
	s_atomic_xor s53, s[2:3], 0x2c glc
	s_mov_b32 s54, 7
	s_atomic_inc s54, s[2:3], 0x30 glc
	s_mov_b32 s55, 7
	s_atomic_inc s55, s[2:3], 0x34 glc
	s_mov_b32 s56, 7
	s_atomic_dec s56, s[2:3], 0x38 glc
	s_mov_b32 s57, 7
	s_atomic_dec s57, s[2:3], 0x3c
	s_mov_b64 s[58:59], 1
	s_atomic_add_x2 s[58:59], s[2:3], 0x40 glc
	s_mov_b32 s60, 0xdeadbeef
	s_mov_b32 s61, 0xfeedface
	s_mov_b32 s62, 0x89abcdef
	s_mov_b32 s63, 0x01234567
	s_atomic_cmpswap_x2 s[60:63], s[2:3], 0x48 glc
	s_mov_b32 s64, 4
	s_mov_b32 s65, 3
	s_atomic_dec_x2 s[64:65], s[2:3], 0x50 glc
	s_mov_b64 s[66:67], 5
	s_atomic_smax_x2 s[66:67], s[2:3], 0x58
	s_add_u32 s8, s2, 0x80
	s_addc_u32 s9, s3, 0
	s_mov_b32 s68, 0x1000
	s_atomic_add s68, s[8:9], -0x10
	s_mov_b32 s10, 16
	s_mov_b32 s11, 0
	s_mov_b32 s69, 5
	s_buffer_atomic_add s69, s[8:11], 0x0 glc
	s_mov_b32 s70, 5
	s_buffer_atomic_add s70, s[8:11], 0x10 glc
	s_mov_b32 s71, 0x55
	s_buffer_store_dword s71, s[8:11], 0x4
	s_mov_b32 s72, 0x66
	s_mov_b32 s73, 0x99
	s_buffer_store_dwordx2 s[72:73], s[8:11], 0xc
	s_mov_b32 s74, -1
	s_mov_b32 s75, 2
	s_buffer_atomic_cmpswap s[74:75], s[8:11], 0x8 glc
	s_waitcnt lgkmcnt(0)
	s_store_dwordx4 s[40:43], s[2:3], 0xa0
	s_store_dwordx4 s[44:47], s[2:3], 0xb0
	s_store_dwordx4 s[48:51], s[2:3], 0xc0
	s_store_dwordx4 s[52:55], s[2:3], 0xd0
	s_store_dwordx4 s[56:59], s[2:3], 0xe0
	s_store_dwordx4 s[60:63], s[2:3], 0xf0
	s_store_dwordx4 s[64:67], s[2:3], 0x100
	s_store_dwordx4 s[68:71], s[2:3], 0x110
	s_store_dwordx4 s[72:75], s[2:3], 0x120
	s_waitcnt lgkmcnt(0)
	s_endpgm
.Lsat_end:
	.size k_satomic, .Lsat_end-k_satomic

	.globl k_satomic_oob
	.p2align 8
	.type k_satomic_oob,@function
k_satomic_oob:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s4, 1
	s_atomic_add s4, s[2:3], 0x100 glc
	s_waitcnt lgkmcnt(0)
	s_endpgm
.Lsato_end:
	.size k_satomic_oob, .Lsato_end-k_satomic_oob

	.rodata
	.p2align 6
	.amdhsa_kernel k_salu
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 48
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.p2align 6
	.amdhsa_kernel k_valu
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 40
		.amdhsa_next_free_sgpr 24
		.amdhsa_accum_offset 40
	.end_amdhsa_kernel
	.p2align 6
	.amdhsa_kernel k_satomic
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 80
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.p2align 6
	.amdhsa_kernel k_satomic_oob
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
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
	.amdhsa_kernel k_bitop3
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 8
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
  - .name: k_bitop3
    .symbol: k_bitop3.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 8
    .max_flat_workgroup_size: 256
    .args: []
  - .name: k_salu
    .symbol: k_salu.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 48
    .vgpr_count: 4
    .max_flat_workgroup_size: 256
    .args: []
  - .name: k_valu
    .symbol: k_valu.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 24
    .vgpr_count: 40
    .max_flat_workgroup_size: 256
    .args: []
  - .name: k_satomic
    .symbol: k_satomic.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 80
    .vgpr_count: 4
    .max_flat_workgroup_size: 256
    .args: []
  - .name: k_satomic_oob
    .symbol: k_satomic_oob.kd
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
