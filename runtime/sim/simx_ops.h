/*
 * simx_ops.h — rows of the simulator's instruction table (sim_ops.h) for the matrix,
 * narrow-float conversion and transposed-LDS instructions. Included from sim_ops.h; no
 * include guard. The handlers are in simx_ops.c; their semantics in simx_*.c.
 * SIMX_MFMA_OP / SIMX_CVT_OP / SIMX_DSTR_OP default to SIM_OP so simx_ops.c can tell
 * the families apart.
 */
#ifndef SIMX_MFMA_OP
#define SIMX_MFMA_OP(name) SIM_OP(name, 0)
#define SIMX_OPS_DEFINED_MFMA
#endif
#ifndef SIMX_CVT_OP
#define SIMX_CVT_OP(name) SIM_OP(name, 0)
#define SIMX_OPS_DEFINED_CVT
#endif
#ifndef SIMX_DSTR_OP
#define SIMX_DSTR_OP(name) SIM_OP(name, 0)
#define SIMX_OPS_DEFINED_DSTR
#endif
/* ---- MFMA (simx_mfma.c) ---- */
SIMX_MFMA_OP(v_mfma_f32_32x32x1_2b_f32)
SIMX_MFMA_OP(v_mfma_f32_16x16x1_4b_f32)
SIMX_MFMA_OP(v_mfma_f32_4x4x1_16b_f32)
SIMX_MFMA_OP(v_mfma_f32_32x32x2_f32)
SIMX_MFMA_OP(v_mfma_f32_16x16x4_f32)
SIMX_MFMA_OP(v_mfma_f32_32x32x4_2b_f16)
SIMX_MFMA_OP(v_mfma_f32_16x16x4_4b_f16)
SIMX_MFMA_OP(v_mfma_f32_4x4x4_16b_f16)
SIMX_MFMA_OP(v_mfma_f32_32x32x8_f16)
SIMX_MFMA_OP(v_mfma_f32_16x16x16_f16)
SIMX_MFMA_OP(v_mfma_f32_32x32x16_f16)
SIMX_MFMA_OP(v_mfma_f32_16x16x32_f16)
SIMX_MFMA_OP(v_mfma_f32_32x32x4_2b_bf16)
SIMX_MFMA_OP(v_mfma_f32_16x16x4_4b_bf16)
SIMX_MFMA_OP(v_mfma_f32_4x4x4_16b_bf16)
SIMX_MFMA_OP(v_mfma_f32_32x32x8_bf16)
SIMX_MFMA_OP(v_mfma_f32_16x16x16_bf16)
SIMX_MFMA_OP(v_mfma_f32_32x32x16_bf16)
SIMX_MFMA_OP(v_mfma_f32_16x16x32_bf16)
SIMX_MFMA_OP(v_mfma_i32_32x32x4_2b_i8)
SIMX_MFMA_OP(v_mfma_i32_16x16x4_4b_i8)
SIMX_MFMA_OP(v_mfma_i32_4x4x4_16b_i8)
SIMX_MFMA_OP(v_mfma_i32_32x32x16_i8)
SIMX_MFMA_OP(v_mfma_i32_16x16x32_i8)
SIMX_MFMA_OP(v_mfma_i32_32x32x32_i8)
SIMX_MFMA_OP(v_mfma_i32_16x16x64_i8)
SIMX_MFMA_OP(v_mfma_f64_16x16x4_f64)
SIMX_MFMA_OP(v_mfma_f64_4x4x4_4b_f64)
SIMX_MFMA_OP(v_mfma_f32_16x16x32_fp8_fp8)
SIMX_MFMA_OP(v_mfma_f32_16x16x32_fp8_bf8)
SIMX_MFMA_OP(v_mfma_f32_16x16x32_bf8_fp8)
SIMX_MFMA_OP(v_mfma_f32_16x16x32_bf8_bf8)
SIMX_MFMA_OP(v_mfma_f32_32x32x16_fp8_fp8)
SIMX_MFMA_OP(v_mfma_f32_32x32x16_fp8_bf8)
SIMX_MFMA_OP(v_mfma_f32_32x32x16_bf8_fp8)
SIMX_MFMA_OP(v_mfma_f32_32x32x16_bf8_bf8)
SIMX_MFMA_OP(v_mfma_f32_16x16x128_f8f6f4)
SIMX_MFMA_OP(v_mfma_f32_32x32x64_f8f6f4)
SIMX_MFMA_OP(v_mfma_scale_f32_16x16x128_f8f6f4)
SIMX_MFMA_OP(v_mfma_scale_f32_32x32x64_f8f6f4)
/* ---- gfx950 conversions (simx_fmt.c) ---- */
SIMX_CVT_OP(v_cvt_scalef32_pk_fp8_f32)
SIMX_CVT_OP(v_cvt_scalef32_pk_bf8_f32)
SIMX_CVT_OP(v_cvt_scalef32_pk_fp8_f16)
SIMX_CVT_OP(v_cvt_scalef32_pk_bf8_f16)
SIMX_CVT_OP(v_cvt_scalef32_pk_fp8_bf16)
SIMX_CVT_OP(v_cvt_scalef32_pk_bf8_bf16)
SIMX_CVT_OP(v_cvt_scalef32_pk_fp4_f32)
SIMX_CVT_OP(v_cvt_scalef32_pk_fp4_f16)
SIMX_CVT_OP(v_cvt_scalef32_pk_fp4_bf16)
SIMX_CVT_OP(v_cvt_scalef32_pk_f32_fp8)
SIMX_CVT_OP(v_cvt_scalef32_pk_f32_bf8)
SIMX_CVT_OP(v_cvt_scalef32_pk_f16_fp8)
SIMX_CVT_OP(v_cvt_scalef32_pk_f16_bf8)
SIMX_CVT_OP(v_cvt_scalef32_pk_bf16_fp8)
SIMX_CVT_OP(v_cvt_scalef32_pk_bf16_bf8)
SIMX_CVT_OP(v_cvt_scalef32_pk_f32_fp4)
SIMX_CVT_OP(v_cvt_scalef32_pk_f16_fp4)
SIMX_CVT_OP(v_cvt_scalef32_pk_bf16_fp4)
SIMX_CVT_OP(v_cvt_scalef32_f32_fp8)
SIMX_CVT_OP(v_cvt_scalef32_f32_bf8)
SIMX_CVT_OP(v_cvt_scalef32_f16_fp8)
SIMX_CVT_OP(v_cvt_scalef32_f16_bf8)
SIMX_CVT_OP(v_cvt_scalef32_pk32_fp6_f16)
SIMX_CVT_OP(v_cvt_scalef32_pk32_bf6_f16)
SIMX_CVT_OP(v_cvt_scalef32_pk32_fp6_bf16)
SIMX_CVT_OP(v_cvt_scalef32_pk32_bf6_bf16)
SIMX_CVT_OP(v_cvt_scalef32_2xpk16_fp6_f32)
SIMX_CVT_OP(v_cvt_scalef32_2xpk16_bf6_f32)
SIMX_CVT_OP(v_cvt_scalef32_pk32_f32_fp6)
SIMX_CVT_OP(v_cvt_scalef32_pk32_f32_bf6)
SIMX_CVT_OP(v_cvt_scalef32_pk32_f16_fp6)
SIMX_CVT_OP(v_cvt_scalef32_pk32_f16_bf6)
SIMX_CVT_OP(v_cvt_scalef32_pk32_bf16_fp6)
SIMX_CVT_OP(v_cvt_scalef32_pk32_bf16_bf6)
SIMX_CVT_OP(v_cvt_pk_fp8_f32)
SIMX_CVT_OP(v_cvt_pk_bf8_f32)
SIMX_CVT_OP(v_cvt_f32_fp8)
SIMX_CVT_OP(v_cvt_f32_bf8)
SIMX_CVT_OP(v_cvt_pk_f32_fp8)
SIMX_CVT_OP(v_cvt_pk_f32_bf8)
SIMX_CVT_OP(v_cvt_scalef32_sr_fp8_f32)
SIMX_CVT_OP(v_cvt_scalef32_sr_bf8_f32)
SIMX_CVT_OP(v_cvt_scalef32_sr_fp8_f16)
SIMX_CVT_OP(v_cvt_scalef32_sr_bf8_f16)
SIMX_CVT_OP(v_cvt_scalef32_sr_fp8_bf16)
SIMX_CVT_OP(v_cvt_scalef32_sr_bf8_bf16)
SIMX_CVT_OP(v_cvt_scalef32_sr_pk_fp4_f32)
SIMX_CVT_OP(v_cvt_scalef32_sr_pk_fp4_f16)
SIMX_CVT_OP(v_cvt_scalef32_sr_pk_fp4_bf16)
SIMX_CVT_OP(v_cvt_scalef32_sr_pk32_fp6_f32)
SIMX_CVT_OP(v_cvt_scalef32_sr_pk32_bf6_f32)
SIMX_CVT_OP(v_cvt_scalef32_sr_pk32_fp6_f16)
SIMX_CVT_OP(v_cvt_scalef32_sr_pk32_bf6_f16)
SIMX_CVT_OP(v_cvt_scalef32_sr_pk32_fp6_bf16)
SIMX_CVT_OP(v_cvt_scalef32_sr_pk32_bf6_bf16)
SIMX_CVT_OP(v_cvt_sr_fp8_f32)
SIMX_CVT_OP(v_cvt_sr_bf8_f32)
SIMX_CVT_OP(v_cvt_sr_f16_f32)
SIMX_CVT_OP(v_cvt_sr_bf16_f32)
/* ---- transposed LDS reads (simx_dstr.c) ---- */
SIMX_DSTR_OP(ds_read_b64_tr_b16)
SIMX_DSTR_OP(ds_read_b64_tr_b8)
SIMX_DSTR_OP(ds_read_b64_tr_b4)
SIMX_DSTR_OP(ds_read_b96_tr_b6)
#ifdef SIMX_OPS_DEFINED_MFMA
#undef SIMX_MFMA_OP
#undef SIMX_OPS_DEFINED_MFMA
#endif
#ifdef SIMX_OPS_DEFINED_CVT
#undef SIMX_CVT_OP
#undef SIMX_OPS_DEFINED_CVT
#endif
#ifdef SIMX_OPS_DEFINED_DSTR
#undef SIMX_DSTR_OP
#undef SIMX_OPS_DEFINED_DSTR
#endif
