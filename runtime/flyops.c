/*
 * flyops.c — the operator library's contexts, its kernel library and how a variant is
 * chosen and launched.
 *
 * The variant table below lists, per arch and operator, the kernels that compute it,
 * in the default order (the order used when the tuning database has no applicable
 * row), each with the tuning key it serves (dtypes, layout) and the code object of the
 * kernel library that holds it: KERNEL_DIR/ARCH/CODEOBJ.hsaco, compiled by `make` from
 * stdlib/ops/CODEOBJ.fly. Adding a kernel is a table row (and its .fly); adding an
 * arch is rows with that arch. Calls whose key
 * has no row are refused with the keys that do exist.
 *
 * A call (ops_launch) checks its pointers' placement: an operand is passed by address
 * when it is device memory laid out as the kernel reads it (compact, 16-byte aligned,
 * an output not overlapping an input), otherwise it is staged through a compact device
 * buffer. The candidates are the tuning database's (flyrt_tuning_lookup with the
 * operator's name, dtypes and layout; rows for another flyc or another build of the
 * code object are ignored there), then the table's default order; the first whose
 * `requires` accept the arguments runs. A plan stops after the choice.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flyops_internal.h"

/* X(arch, op, dtypes, layout, code object, variant) — default order per (arch, op, key).
 * gfx950 bf16 and f16 GEMMs of stdlib/ops/gemm.fly, per layout: the tile kernels first
 * (loads straight to LDS, tile multiples only; NT 128x128, PyTorch's FlyDSL default tile,
 * 256x128 and 256x256; NN, TN and TT 128x128 and 256x256), then the predicated kernels
 * for any shape (NN, TN and TT read the operands stored K-strided, b row-major and a
 * column-major, with ds_read_b64_tr_b16; 128x128, then 256x128 and 256x256); an f32
 * output by the predicated kernels (128x128). In every layout flyops_mm puts 256x256
 * first by shape (mm_big_tile), after the tuning database's rows.
 * gfx1201 (sim:gfx1201 or an RDNA4 card): gemm.fly's WMMA kernel, 128x128 tiles (tile
 * multiples only; other shapes are refused). */
#define FLYOPS_VARIANTS(X) \
	FLYOPS_NORM_VARIANTS(X, "bf16") FLYOPS_NORM_VARIANTS(X, "f16") FLYOPS_NORM_VARIANTS(X, "f32") \
	FLYOPS_TOPK_VARIANTS(X) \
	FLYOPS_MM_VARIANTS(X, "bf16->bf16", "gemm_nt_", "") FLYOPS_MM_VARIANTS(X, "f16->f16", "gemm_nt_f16_", "_f16") \
	FLYOPS_MM_VARIANTS(X, "bf16+bf16->bf16", "gemm_nt_", "") \
	FLYOPS_MM_VARIANTS(X, "f16+f16->f16", "gemm_nt_f16_", "_f16") \
	FLYOPS_MM_RAGGED(X, "bf16->f32", "_bf16_f32") FLYOPS_MM_RAGGED(X, "f16->f32", "_f16_f32") \
	FLYOPS_MM_RAGGED(X, "bf16+f32->f32", "_bf16_f32") FLYOPS_MM_RAGGED(X, "f16+f32->f32", "_f16_f32") \
	FLYOPS_MM_SPLITK_VARIANTS(X) FLYOPS_MM_SPLITK_SUM(X) \
	X("gfx1201", FLYOPS_MM, "bf16->bf16", "NT", "gemm", "gemm_nt_wmma_128x128") \
	X("gfx1201", FLYOPS_MM, "f16->f16", "NT", "gemm", "gemm_nt_wmma_f16_128x128") \
	X("gfx1201", FLYOPS_MM, "bf16+bf16->bf16", "NT", "gemm", "gemm_nt_wmma_128x128") \
	X("gfx1201", FLYOPS_MM, "f16+f16->f16", "NT", "gemm", "gemm_nt_wmma_f16_128x128") \
	FLYOPS_GROUPED_VARIANTS(X, "bf16") FLYOPS_GROUPED_VARIANTS(X, "f16") \
	FLYOPS_SCALED_VARIANTS(X, "mxfp8", "fp8", "bf16") FLYOPS_SCALED_VARIANTS(X, "mxfp8", "fp8", "f16") \
	FLYOPS_SCALED_VARIANTS(X, "mxfp4", "fp4", "bf16") FLYOPS_SCALED_VARIANTS(X, "mxfp4", "fp4", "f16") \
	FLYOPS_ATTN_BWD_VARIANTS(X, "bf16") FLYOPS_ATTN_BWD_VARIANTS(X, "f16") \
	FLYOPS_ATTN_BWD_1201(X, "bf16") FLYOPS_ATTN_BWD_1201(X, "f16") \
	FLYOPS_ATTN_LAYOUTS(X, "bf16") FLYOPS_ATTN_LAYOUTS(X, "f16") \
	FLYOPS_ATTN_1201_LAYOUTS(X, "bf16") FLYOPS_ATTN_1201_LAYOUTS(X, "f16")

/* Attention backward of stdlib/ops/attention_bwd.fly, per element type T: Delta (layout
 * "delta"), then dK/dV under the call's key ("bhsd", "bhsd_causal"; causal is a run-time
 * flag of the same kernels), then dQ (layout "dq"), one kernel per head dim (its requires
 * take D == 32, 64, 128, 256 or 512); flyops_attention_backward launches the three. */
#define FLYOPS_ATTN_BWD_VARIANTS(X, T) \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, "delta", "attention_bwd", "attn_bwd_delta_" T) \
	FLYOPS_ATTN_BWD_D(X, T, "bhsd") FLYOPS_ATTN_BWD_D(X, T, "bhsd_causal") \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, "dq", "attention_bwd", "attn_bwd_dq_" T "_d32") \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, "dq", "attention_bwd", "attn_bwd_dq_" T "_d64") \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, "dq", "attention_bwd", "attn_bwd_dq_" T "_d128") \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, "dq", "attention_bwd", "attn_bwd_dq_" T "_d256") \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, "dq", "attention_bwd", "attn_bwd_dq_" T "_d512")
#define FLYOPS_ATTN_BWD_D(X, T, LAY) \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, LAY, "attention_bwd", "attn_bwd_dkdv_" T "_d32") \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, LAY, "attention_bwd", "attn_bwd_dkdv_" T "_d64") \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, LAY, "attention_bwd", "attn_bwd_dkdv_" T "_d128") \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, LAY, "attention_bwd", "attn_bwd_dkdv_" T "_d256") \
	X("gfx950", FLYOPS_ATTENTION_BACKWARD, T "->" T, LAY, "attention_bwd", "attn_bwd_dkdv_" T "_d512")

/* ... and on gfx1201, stdlib/ops/attention_bwd_gfx1201.fly's WMMA kernels: the same keys,
 * argument lists and head dims (32, 64, 128, 256). */
#define FLYOPS_ATTN_BWD_1201(X, T) \
	X("gfx1201", FLYOPS_ATTENTION_BACKWARD, T "->" T, "delta", "attention_bwd_gfx1201", "attn_bwd_wmma_delta_" T) \
	FLYOPS_ATTN_BWD_1201_D(X, T, "bhsd", "dkdv") FLYOPS_ATTN_BWD_1201_D(X, T, "bhsd_causal", "dkdv") \
	FLYOPS_ATTN_BWD_1201_D(X, T, "dq", "dq")
#define FLYOPS_ATTN_BWD_1201_D(X, T, LAY, K) \
	X("gfx1201", FLYOPS_ATTENTION_BACKWARD, T "->" T, LAY, "attention_bwd_gfx1201", "attn_bwd_wmma_" K "_" T "_d32") \
	X("gfx1201", FLYOPS_ATTENTION_BACKWARD, T "->" T, LAY, "attention_bwd_gfx1201", "attn_bwd_wmma_" K "_" T "_d64") \
	X("gfx1201", FLYOPS_ATTENTION_BACKWARD, T "->" T, LAY, "attention_bwd_gfx1201", "attn_bwd_wmma_" K "_" T "_d128") \
	X("gfx1201", FLYOPS_ATTENTION_BACKWARD, T "->" T, LAY, "attention_bwd_gfx1201", "attn_bwd_wmma_" K "_" T "_d256")

/* Dense GEMMs of stdlib/ops/gemm.fly under key K (operands and output of one type T,
 * "T->T", or with a bias of type T, "T+T->T": the same kernels, a run-time flag; bf16
 * kernels have no type in their names, f16 ones "_f16"): the NT tile kernels (prefix P),
 * the NN, TN and TT tile kernels, then the predicated kernel per layout (suffix S) and
 * NN/TN/TT's large predicated tiles. An f32 output ("T->f32", "T+f32->f32"): the
 * predicated kernels only (FLYOPS_MM_RAGGED). */
#define FLYOPS_MM_VARIANTS(X, K, P, S) \
	X("gfx950", FLYOPS_MM, K, "NT", "gemm", P "128x128") \
	X("gfx950", FLYOPS_MM, K, "NT", "gemm", P "256x128") \
	X("gfx950", FLYOPS_MM, K, "NT", "gemm", P "256x256_st128") \
	X("gfx950", FLYOPS_MM, K, "NT", "gemm", P "256x256") \
	FLYOPS_MM_TILES(X, K, "NN", "gemm_nn" S) FLYOPS_MM_TILES(X, K, "TN", "gemm_tn" S) \
	FLYOPS_MM_TILES(X, K, "TT", "gemm_tt" S) \
	FLYOPS_MM_RAGGED(X, K, S) FLYOPS_MM_RAGGED_256(X, K, S)

/* NN, TN and TT for tile multiples (loads straight to LDS, as the NT tiles): before the
 * predicated kernels of their layout, 128x128 first */
#define FLYOPS_MM_TILES(X, K, LAY, P) \
	X("gfx950", FLYOPS_MM, K, LAY, "gemm", P "_128x128") \
	X("gfx950", FLYOPS_MM, K, LAY, "gemm", P "_256x256")

/* split-K for few rows (runtime/flyops_ops.c mm_choose; in gemm.fly's code object, so a
 * tuning row of key NT ranks it beside the one-pass kernels: ops_row_variant):
 * gemm_nt_splitk per operand type
 * and key (with a bias, "T+O->O", gemm_splitk_sum adds it), then gemm_splitk_sum per
 * output type */
#define FLYOPS_MM_SPLITK_VARIANTS(X) \
	FLYOPS_MM_SPLITK(X, "bf16->bf16", "") FLYOPS_MM_SPLITK(X, "bf16->f32", "") \
	FLYOPS_MM_SPLITK(X, "f16->f16", "_f16") FLYOPS_MM_SPLITK(X, "f16->f32", "_f16") \
	FLYOPS_MM_SPLITK(X, "bf16+bf16->bf16", "") FLYOPS_MM_SPLITK(X, "bf16+f32->f32", "") \
	FLYOPS_MM_SPLITK(X, "f16+f16->f16", "_f16") FLYOPS_MM_SPLITK(X, "f16+f32->f32", "_f16")
#define FLYOPS_MM_SPLITK(X, K, S) X("gfx950", FLYOPS_MM, K, "NT_splitk", "gemm", "gemm_nt_splitk" S)
#define FLYOPS_MM_SPLITK_SUM(X) \
	X("gfx950", FLYOPS_MM, "f32->bf16", "splitk_sum", "gemm", "gemm_splitk_sum_bf16") \
	X("gfx950", FLYOPS_MM, "f32->f16", "splitk_sum", "gemm", "gemm_splitk_sum_f16") \
	X("gfx950", FLYOPS_MM, "f32->f32", "splitk_sum", "gemm", "gemm_splitk_sum_f32")

#define FLYOPS_MM_RAGGED(X, K, S) \
	X("gfx950", FLYOPS_MM, K, "NT", "gemm", "gemm_nt_ragged" S) \
	X("gfx950", FLYOPS_MM, K, "NN", "gemm", "gemm_nn_ragged" S) \
	X("gfx950", FLYOPS_MM, K, "TN", "gemm", "gemm_tn_ragged" S) \
	X("gfx950", FLYOPS_MM, K, "TT", "gemm", "gemm_tt_ragged" S)

/* NN, TN and TT with 256x128 and 256x256 tiles (8 waves; the same requires as the 128x128
 * ones), after them: flyops_mm puts them first by shape (L.prefer, mm_big_tile) */
#define FLYOPS_MM_RAGGED_256(X, K, S) \
	X("gfx950", FLYOPS_MM, K, "NN", "gemm", "gemm_nn_ragged" S "_256x128") \
	X("gfx950", FLYOPS_MM, K, "NN", "gemm", "gemm_nn_ragged" S "_256x256") \
	X("gfx950", FLYOPS_MM, K, "TN", "gemm", "gemm_tn_ragged" S "_256x128") \
	X("gfx950", FLYOPS_MM, K, "TN", "gemm", "gemm_tn_ragged" S "_256x256") \
	X("gfx950", FLYOPS_MM, K, "TT", "gemm", "gemm_tt_ragged" S "_256x128") \
	X("gfx950", FLYOPS_MM, K, "TT", "gemm", "gemm_tt_ragged" S "_256x256")


/* Grouped GEMMs (2-D a, 3-D b, NN) of stdlib/ops/grouped_mm.fly, per element type T: the
 * 128x128 tile for N % 128 == 0 (modelled 1.3-1.6x faster than 128x64 at PyTorch's grouped
 * shapes), then 128x64 (N % 64) and 128x32 (N % 32), each the first whose requires accept N;
 * then the persistent kernels of grouped_mm_p.fly (the same tiles), which flyops_grouped_mm
 * puts first when offs is device memory (OpLaunch.prefer; docs/ops.md "grouped_mm"). */
#define FLYOPS_GROUPED_VARIANTS(X, T) \
	X("gfx950", FLYOPS_GROUPED_MM, T "->" T, "NN", "grouped_mm", "grouped_mm_nn_" T) \
	X("gfx950", FLYOPS_GROUPED_MM, T "->" T, "NN", "grouped_mm", "grouped_mm_nn_" T "_n64") \
	X("gfx950", FLYOPS_GROUPED_MM, T "->" T, "NN", "grouped_mm", "grouped_mm_nn_" T "_n32") \
	X("gfx950", FLYOPS_GROUPED_MM, T "->" T, "NN", "grouped_mm_p", "grouped_mm_nn_" T "_p") \
	X("gfx950", FLYOPS_GROUPED_MM, T "->" T, "NN", "grouped_mm_p", "grouped_mm_nn_" T "_n64_p") \
	X("gfx950", FLYOPS_GROUPED_MM, T "->" T, "NN", "grouped_mm_p", "grouped_mm_nn_" T "_n32_p")


/* Attention forward of stdlib/ops/attention.fly, per element type T: one kernel per head dim
 * (its requires take hdim == D), non-causal and causal (top-left); then the ping-pong kernels
 * (two wave groups, 256 queries a workgroup; D = 64, and 128 non-causal; Sq > 128), last:
 * the timing model puts them 4-47% behind (docs/ops.md), so they run when forced or when a
 * tuning database prefers them. Under "strided"
 * (some operand's last dim is not unit-stride) the same kernels serve: such operands are
 * staged compact. */
#define FLYOPS_ATTN_LAYOUTS(X, T) \
	FLYOPS_ATTN_VARIANTS(X, T, "bhsd", "") FLYOPS_ATTN_VARIANTS(X, T, "bhsd_causal", "_causal") \
	FLYOPS_ATTN_VARIANTS(X, T, "strided", "") FLYOPS_ATTN_VARIANTS(X, T, "strided_causal", "_causal") \
	X("gfx950", FLYOPS_ATTENTION, T "->" T, "bhsd", "attention", "attn_fwd_pp_" T "_d128") \
	X("gfx950", FLYOPS_ATTENTION, T "->" T, "strided", "attention", "attn_fwd_pp_" T "_d128")
#define FLYOPS_ATTN_VARIANTS(X, T, L, C) \
	X("gfx950", FLYOPS_ATTENTION, T "->" T, L, "attention", "attn_fwd_" T "_d32" C) \
	X("gfx950", FLYOPS_ATTENTION, T "->" T, L, "attention", "attn_fwd_" T "_d64" C) \
	X("gfx950", FLYOPS_ATTENTION, T "->" T, L, "attention", "attn_fwd_" T "_d128" C) \
	X("gfx950", FLYOPS_ATTENTION, T "->" T, L, "attention", "attn_fwd_" T "_d256" C) \
	X("gfx950", FLYOPS_ATTENTION, T "->" T, L, "attention", "attn_fwd_" T "_d512" C) \
	X("gfx950", FLYOPS_ATTENTION, T "->" T, L, "attention", "attn_fwd_pp_" T "_d64" C)

/* Attention forward on gfx1201 (stdlib/ops/attention_gfx1201.fly, WMMA in wave32): the
 * same kernel names and argument list as gfx950's attn_fwd, one kernel per head dim. */
#define FLYOPS_ATTN_1201_LAYOUTS(X, T) \
	FLYOPS_ATTN_1201(X, T, "bhsd", "") FLYOPS_ATTN_1201(X, T, "bhsd_causal", "_causal") \
	FLYOPS_ATTN_1201(X, T, "strided", "") FLYOPS_ATTN_1201(X, T, "strided_causal", "_causal")
#define FLYOPS_ATTN_1201(X, T, L, C) \
	X("gfx1201", FLYOPS_ATTENTION, T "->" T, L, "attention_gfx1201", "attn_fwd_" T "_d32" C) \
	X("gfx1201", FLYOPS_ATTENTION, T "->" T, L, "attention_gfx1201", "attn_fwd_" T "_d64" C) \
	X("gfx1201", FLYOPS_ATTENTION, T "->" T, L, "attention_gfx1201", "attn_fwd_" T "_d128" C) \
	X("gfx1201", FLYOPS_ATTENTION, T "->" T, L, "attention_gfx1201", "attn_fwd_" T "_d256" C) \
	X("gfx1201", FLYOPS_ATTENTION, T "->" T, L, "attention_gfx1201", "attn_fwd_" T "_d512" C)

/* MX scaled GEMMs of stdlib/ops/scaled_mm.fly, per format F (element type E) and output
 * type O, without and with a bias of type O (the same kernels: a run-time flag): the
 * 16x32 tile for M <= 16 (its requires), the 128x128 tile for larger M when N % 128 == 0
 * (its requires), then the 32x32 tile for any M. */
#define FLYOPS_SCALED_VARIANTS(X, F, E, O) FLYOPS_SCALED_BIAS(X, F "->" O, E, O) \
	FLYOPS_SCALED_BIAS(X, F "+" O "->" O, E, O)
#define FLYOPS_SCALED_BIAS(X, D, E, O) \
	X("gfx950", FLYOPS_SCALED_MM, D, "NT", "scaled_mm", "scaled_mm_" E "_" O "_16x32") \
	X("gfx950", FLYOPS_SCALED_MM, D, "NT", "scaled_mm", "scaled_mm_" E "_" O "_128x128") \
	X("gfx950", FLYOPS_SCALED_MM, D, "NT", "scaled_mm", "scaled_mm_" E "_" O "_32x32")

/* TopK of stdlib/ops/topk.fly, f32, largest first: the register kernels for K = 2, 4, 8,
 * 16 (N <= 8192; each takes k in (K/2, K], so k is served at its next power of two),
 * then radix selection for the rest (k <= 1024, N <= 262144). */
#define FLYOPS_TOPK_VARIANTS(X) \
	X("gfx950", FLYOPS_TOPK, "f32", "largest", "topk", "topk_f32_reg2") \
	X("gfx950", FLYOPS_TOPK, "f32", "largest", "topk", "topk_f32_reg4") \
	X("gfx950", FLYOPS_TOPK, "f32", "largest", "topk", "topk_f32_reg8") \
	X("gfx950", FLYOPS_TOPK, "f32", "largest", "topk", "topk_f32_reg16") \
	X("gfx950", FLYOPS_TOPK, "f32", "largest", "topk", "topk_f32_radix")

/* RMSNorm, per element type T, of stdlib/ops/norm.fly: forward and backward kernels from
 * the shortest rows up (each accepts N up to its bound, the first that does runs): 16 and
 * 64 threads a row (several rows a workgroup), one row of up to 2048 ... 32768 (forward) /
 * 16384 (backward) per workgroup in registers, then the two-pass loop kernels for any N;
 * the _s kernels (one element per access) take rows of N % (16 bytes) != 0. The backward's
 * grad_weight reduction (layout "wgrad") is launched after it by flyops_rms_norm_backward. */
#define FLYOPS_NORM_VARIANTS(X, T) \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_r16") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_r64") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_n2048") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_n4096") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_n8192") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_n16384") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_n32768") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_loop") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_s128") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_s2048") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_s8192") \
	X("gfx950", FLYOPS_RMS_NORM, T "->" T, "rows", "norm", "rms_norm_" T "_sloop") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "rows", "norm", "rms_norm_bwd_" T "_n512") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "rows", "norm", "rms_norm_bwd_" T "_n2048") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "rows", "norm", "rms_norm_bwd_" T "_n4096") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "rows", "norm", "rms_norm_bwd_" T "_n8192") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "rows", "norm", "rms_norm_bwd_" T "_n16384") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "rows", "norm", "rms_norm_bwd_" T "_loop") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "rows", "norm", "rms_norm_bwd_" T "_s2048") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "rows", "norm", "rms_norm_bwd_" T "_s8192") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "rows", "norm", "rms_norm_bwd_" T "_sloop") \
	X("gfx950", FLYOPS_RMS_NORM_BACKWARD, T "->" T, "wgrad", "norm", "rms_norm_wgrad_" T)

static const OpVariant variants[] = {
#define X(arch, op, dt, lay, co, name) { arch, op, dt, lay, co, name },
	FLYOPS_VARIANTS(X)
#undef X
};

enum { NVARIANTS = sizeof variants / sizeof variants[0], MAX_CAND = 64, ALIGN = 16 };

static const char *const op_names[] = {
#define X(e, name) name,
	FLYOPS_OPS(X)
#undef X
};

/* The shape dims tuning buckets name per operator (kernel argument names). */
static const char *const bucket_dims[FLYOPS_OP_COUNT_][4] = {
	[FLYOPS_MM] = { "M", "N", "K" },
	[FLYOPS_SCALED_MM] = { "M", "N", "K" },
	[FLYOPS_RMS_NORM] = { "rows", "N" },
	[FLYOPS_RMS_NORM_BACKWARD] = { "rows", "N" },
};

const OpVariant *
ops_variant_at(int i)
{
	return i >= 0 && i < NVARIANTS ? &variants[i] : NULL;
}

const OpVariant *
ops_find_variant(const char *arch, flyops_op op, const char *dtypes, const char *layout,
                 const char *variant)
{
	for (int i = 0; i < NVARIANTS; i++) {
		const OpVariant *v = &variants[i];
		if (v->op == op && !strcmp(v->arch, arch) && !strcmp(v->dtypes, dtypes) &&
		    !strcmp(v->layout, layout) && (!variant || !strcmp(v->variant, variant)))
			return v;
	}
	return NULL;
}

/* A name a tuning row of key (dtypes, layout) may rank (docs/ops.md, "The tuning
 * database"): a variant of the key, or for an mm NT key the key's split-K kernel (key
 * "NT_splitk"), bare (S by the built-in rule) or with ".sN" (at most N ranges, 1 <= N <=
 * OPS_MAX_SPLITS, no leading zero): "gemm_nt_splitk", "gemm_nt_splitk_f16.s8". The table
 * entry of the kernel and *splits = N (0: bare or not split-K), or NULL. */
const OpVariant *
ops_row_variant(const char *arch, flyops_op op, const char *dtypes, const char *layout,
                const char *name, int *splits)
{
	const char *dot = strchr(name, '.');
	const OpVariant *v;
	char base[64];
	long n = 0;

	*splits = 0;
	if ((v = ops_find_variant(arch, op, dtypes, layout, name)))
		return v;
	if (op != FLYOPS_MM || strcmp(layout, "NT"))
		return NULL;
	if (dot) {
		char *end;
		if (dot[1] != 's' || dot[2] < '1' || dot[2] > '9' || (size_t)(dot - name) >= sizeof base)
			return NULL;
		n = strtol(dot + 2, &end, 10);
		if (*end || n > OPS_MAX_SPLITS)
			return NULL;
	}
	snprintf(base, sizeof base, "%.*s", dot ? (int)(dot - name) : 63, name);
	if (!(v = ops_find_variant(arch, op, dtypes, "NT_splitk", base)))
		return NULL;
	*splits = (int)n;
	return v;
}

/* XCDs of the device (the mm kernels' xcds argument: docs/ops.md "mm", XCD order): the
 * device property flyrt_device_xcds (HIP: the KFD topology's num_xcc, else derived from
 * the CUs; the simulator: its own, FLY_SIM_XCDS), FLY_XCDS (1..64) overriding it. Any
 * value is correct (the kernels' order is a bijection for every XCD count); a wrong one
 * only costs L2 locality. */
int32_t
ops_xcds(const flyops_context *ctx)
{
	const char *e = getenv("FLY_XCDS");
	uint32_t x = flyrt_device_xcds(ctx->dev);

	if (e && *e) {
		char *end;
		long n = strtol(e, &end, 10);
		if (!*end && n >= 1 && n <= 64)
			return (int32_t)n;
	}
	return x >= 1 && x <= 64 ? (int32_t)x : 1;
}

const char *
flyops_op_name(flyops_op op)
{
	return (unsigned)op < FLYOPS_OP_COUNT_ ? op_names[op] : NULL;
}

int
flyops_variants(flyops_op op, const char *arch, const char **names, int max)
{
	int n = 0;

	if ((unsigned)op >= FLYOPS_OP_COUNT_ || !arch || (max > 0 && !names))
		return -1;
	for (int i = 0; i < NVARIANTS; i++) {
		int seen = 0;
		if (variants[i].op != op || strcmp(variants[i].arch, arch))
			continue;
		for (int j = 0; j < i && !seen; j++)   /* a kernel serving several keys: once */
			seen = variants[j].op == op && !strcmp(variants[j].arch, arch) &&
			       !strcmp(variants[j].variant, variants[i].variant);
		if (seen)
			continue;
		if (n < max)
			names[n] = variants[i].variant;
		n++;
	}
	return n;
}

int
ops_bucket_dims(flyops_op op, const char **dims, int max)
{
	int n = 0;

	if ((unsigned)op >= FLYOPS_OP_COUNT_)
		return 0;
	for (int i = 0; i < 4 && bucket_dims[op][i]; i++, n++)
		if (n < max)
			dims[n] = bucket_dims[op][i];
	return n;
}

/* ---- contexts --------------------------------------------------------------------- */

static int
is_dir(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The kernel library: given, $FLYC_KERNEL_DIR, or beside the file holding this code
 * (libflyrt.so, or a program linked with libflyrt.a): DIR/flyc/kernels (installed
 * PREFIX/lib), DIR/lib/flyc/kernels (the build folder), DIR/../lib/flyc/kernels (bin/). */
int
ops_kernel_dir(const char *given, char **dir, char *why, size_t whylen)
{
	static const char *const rel[] = { "flyc/kernels", "lib/flyc/kernels", "../lib/flyc/kernels" };
	const char *env = getenv("FLYC_KERNEL_DIR");
	char where[2][PATH_MAX], cand[PATH_MAX + 32], seen[600] = "";
	int nwhere = 0;
	size_t wl = 0;
	Dl_info di;

	*dir = NULL;
	if (given || (env && *env)) {
		const char *d = given ? given : env;
		if (is_dir(d) && (*dir = strdup(d)))
			return 0;
		snprintf(why, whylen, "the kernel library '%.900s' (%s) is not a directory", d,
		         given ? "flyops_options.kernel_dir" : "FLYC_KERNEL_DIR");
		return -1;
	}
	if (dladdr((void *)(uintptr_t)&flyops_create, &di) && di.dli_fname &&
	    realpath(di.dli_fname, where[nwhere]))
		nwhere++;
	ssize_t n = readlink("/proc/self/exe", where[nwhere], PATH_MAX - 1);
	if (n > 0) {
		where[nwhere][n] = 0;
		if (nwhere == 0 || strcmp(where[0], where[1]))
			nwhere++;
	}
	for (int w = 0; w < nwhere; w++) {
		char *slash = strrchr(where[w], '/');
		if (!slash)
			continue;
		*slash = 0;
		for (size_t r = 0; r < sizeof rel / sizeof rel[0]; r++) {
			snprintf(cand, sizeof cand, "%s/%s", where[w], rel[r]);
			if (is_dir(cand)) {
				char real[PATH_MAX];
				*dir = strdup(realpath(cand, real) ? real : cand);
				return *dir ? 0 : -1;
			}
		}
		if (wl < sizeof seen)
			wl += (size_t)snprintf(seen + wl, sizeof seen - wl, "%s%.250s", wl ? ", " : "", where[w]);
	}
	snprintf(why, whylen, "no kernel library found (looked for flyc/kernels, lib/flyc/kernels "
	         "and ../lib/flyc/kernels beside %s): build it with make, or set FLYC_KERNEL_DIR",
	         wl ? seen : "nothing");
	return -1;
}

flyrt_status
flyops_create(const flyops_options *opt, flyops_context **out)
{
	flyops_context *ctx;
	const char *env = getenv("FLY_DEVICE"), *kind = opt ? opt->device : NULL, *db;
	flyrt_status st;

	if (!out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyops_create: out is NULL");
	*out = NULL;
	if (!(ctx = calloc(1, sizeof *ctx)))
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	if (pthread_mutex_init(&ctx->lock, NULL)) {
		free(ctx);
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "cannot create a lock");
	}
	if ((st = flyrt_device_open(kind, &ctx->dev)) != FLYRT_SUCCESS)
		goto fail;
	/* the ordinal kDLROCM tensors must name: as flyrt_device_open read the kind */
	if (env && *env)
		kind = env;
	if (kind && !strncmp(kind, "hip:", 4))
		ctx->hip_ordinal = atoi(kind + 4);
	ops_kernel_dir(opt ? opt->kernel_dir : NULL, &ctx->kernel_dir, ctx->kernel_dir_why,
	               sizeof ctx->kernel_dir_why);
	db = opt && opt->tuning_db ? opt->tuning_db : getenv("FLYC_TUNING_DB");
	if (db && *db) {
		if ((st = flyrt_tuning_load(db, &ctx->tuning)) != FLYRT_SUCCESS)
			goto fail;
		if (!(ctx->tuning_path = strdup(db))) {
			st = flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
			goto fail;
		}
	}
	flyrt_clear_error();
	*out = ctx;
	return FLYRT_SUCCESS;
fail:
	{
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", flyrt_last_error());
		flyops_destroy(ctx);
		return flyrt_fail(st, "%s", msg);
	}
}

void
flyops_destroy(flyops_context *ctx)
{
	if (!ctx)
		return;
	for (int i = 0; i < ctx->nmods; i++)
		flyrt_module_unload(ctx->mods[i].mod);
	flyrt_device_close(ctx->dev);
	flyrt_tuning_destroy(ctx->tuning);
	free(ctx->kernel_dir);
	free(ctx->tuning_path);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

flyrt_device *flyops_device(const flyops_context *ctx) { return ctx ? ctx->dev : NULL; }
const char *flyops_kernel_dir(const flyops_context *ctx) { return ctx && ctx->kernel_dir ? ctx->kernel_dir : ""; }
uint64_t
flyops_launches(flyops_context *ctx)
{
	uint64_t n;

	if (!ctx)
		return 0;
	pthread_mutex_lock(&ctx->lock);
	n = ctx->launches;
	pthread_mutex_unlock(&ctx->lock);
	return n;
}

const char *flyops_tuning_path(const flyops_context *ctx) { return ctx && ctx->tuning_path ? ctx->tuning_path : ""; }

int
ops_codeobj_path(const flyops_context *ctx, const char *arch, const char *codeobj, char *buf, size_t n)
{
	if (!ctx->kernel_dir)
		return -1;
	snprintf(buf, n, "%s/%s/%s.hsaco", ctx->kernel_dir, arch, codeobj);
	return 0;
}

flyrt_status
ops_module(flyops_context *ctx, const char *codeobj, flyrt_module **out)
{
	struct CtxModule *m = NULL;
	flyrt_status st;
	char path[PATH_MAX + 128];

	*out = NULL;
	pthread_mutex_lock(&ctx->lock);
	for (int i = 0; i < ctx->nmods && !m; i++)
		if (!strcmp(ctx->mods[i].name, codeobj))
			m = &ctx->mods[i];
	if (!m) {
		if (ctx->nmods == (int)(sizeof ctx->mods / sizeof ctx->mods[0])) {
			pthread_mutex_unlock(&ctx->lock);
			return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "too many kernel library files");
		}
		m = &ctx->mods[ctx->nmods++];
		snprintf(m->name, sizeof m->name, "%s", codeobj);
		if (ops_codeobj_path(ctx, flyrt_device_arch(ctx->dev), codeobj, path, sizeof path)) {
			m->st = FLYRT_ERROR_UNSUPPORTED;
			snprintf(m->err, sizeof m->err, "%s", ctx->kernel_dir_why);
		} else if (access(path, R_OK)) {
			m->st = FLYRT_ERROR_UNSUPPORTED;
			snprintf(m->err, sizeof m->err, "the kernel library has no '%s' (rebuild it with "
			         "make, or set FLYC_KERNEL_DIR)", path);
		} else if ((m->st = flyrt_module_load_file(ctx->dev, path, &m->mod)) != FLYRT_SUCCESS) {
			snprintf(m->err, sizeof m->err, "%s", flyrt_last_error());
		}
	}
	*out = m->mod;
	st = m->st;
	pthread_mutex_unlock(&ctx->lock);
	if (st != FLYRT_SUCCESS)
		return flyrt_fail(st, "%s", m->err);
	return FLYRT_SUCCESS;
}

flyrt_status
ops_refail(flyrt_status st, const char *fmt, ...)
{
	char prev[1024], head[512];
	va_list ap;

	snprintf(prev, sizeof prev, "%s", flyrt_last_error());
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	return flyrt_fail(st, "%s: %s", head, prev);
}

flyrt_status
ops_check_exec(const flyops_exec *exec, const char *op)
{
	if (exec && exec->stream)
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s: a launch on a stream other than the "
		                  "default one (libflyrt has no streams yet)", op);
	return FLYRT_SUCCESS;
}

/* ---- choosing and launching ------------------------------------------------------- */

/* "bf16->bf16 NT, ..." — the keys the table has for (arch, op). */
static void
keys_of(flyops_op op, const char *arch, char *buf, size_t n)
{
	size_t l = 0;

	buf[0] = 0;
	for (int i = 0; i < NVARIANTS && l < n; i++) {
		const OpVariant *v = &variants[i];
		int seen = 0;
		if (v->op != op || strcmp(v->arch, arch))
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = variants[j].op == op && !strcmp(variants[j].arch, arch) &&
			       !strcmp(variants[j].dtypes, v->dtypes) && !strcmp(variants[j].layout, v->layout);
		if (!seen)
			l += (size_t)snprintf(buf + l, n - l, "%s%s %s", l ? ", " : "", v->dtypes, v->layout);
	}
}

typedef struct {
	flyrt_deviceptr ptr;     /* staging buffer, 0 when passed by address */
	void *host;              /* host copy of a staged operand */
} Stage;

/* A strided operand the kernel can address in place: last dim unit-stride, the others
 * non-negative, below 2^31 and multiples of 16 bytes (the kernel's 128-bit accesses). */
static int
strided_ok(const FtView *v)
{
	if (v->ndim < 1 || (v->shape[v->ndim - 1] > 1 && v->stride[v->ndim - 1] != 1))
		return 0;
	for (int i = 0; i + 1 < v->ndim; i++) {
		int64_t s = v->stride[i];
		if (s < 0 || s > INT32_MAX || (s * (int64_t)v->elsize) % ALIGN)
			return 0;
	}
	return 1;
}

int
ops_by_address(const OpLaunch *L, const OpArg *a)
{
	const FtView *v = a->view;

	if (!v || !v->on_device || v->described || v->base % ALIGN)
		return 0;
	if (!ft_compact(v) && !(a->strided && strided_ok(v)))
		return 0;
	for (int i = 0; a->output && i < L->ninputs; i++)
		if (ft_overlap(v, L->inputs[i]))
			return 0;
	return 1;
}

static flyrt_status
run(flyops_context *ctx, const OpLaunch *L, flyrt_kernel *k, flyrt_arg *args)
{
	Stage stage[OPS_MAX_ARGS];
	flyrt_status st = FLYRT_SUCCESS;
	int staged = 0;

	memset(stage, 0, sizeof stage);
	for (int i = 0; i < L->nargs && st == FLYRT_SUCCESS; i++) {
		const OpArg *a = &L->args[i];
		const FtView *v = a->view;
		size_t bytes;
		if (!a->is_ptr || a->alias || a->scratch || ops_by_address(L, a))
			continue;
		bytes = (size_t)v->numel * v->elsize;
		staged = 1;
		if (!(stage[i].host = malloc(bytes ? bytes : 1))) {
			st = flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory staging %s", v->name);
			break;
		}
		if ((st = flyrt_malloc(ctx->dev, bytes ? bytes : 1, &stage[i].ptr)) != FLYRT_SUCCESS)
			break;
		args[i] = flyrt_arg_ptr(stage[i].ptr);
		if ((!a->output || a->partial) && (st = ft_copy(ctx, v, stage[i].host, 1)) == FLYRT_SUCCESS)
			st = flyrt_memcpy_htod(ctx->dev, stage[i].ptr, stage[i].host, bytes);
	}
	for (int i = 0; i < L->nargs; i++)
		if (L->args[i].is_ptr && L->args[i].alias)
			args[i] = args[L->args[i].alias - 1];
	if (st == FLYRT_SUCCESS && (st = flyrt_launch(k, NULL, args, L->nargs)) == FLYRT_SUCCESS) {
		pthread_mutex_lock(&ctx->lock);
		ctx->launches++;
		pthread_mutex_unlock(&ctx->lock);
	}
	if (st == FLYRT_SUCCESS && staged)
		st = flyrt_synchronize(ctx->dev);
	for (int i = 0; i < L->nargs && st == FLYRT_SUCCESS; i++) {
		const OpArg *a = &L->args[i];
		if (a->is_ptr && a->output && stage[i].ptr &&
		    (st = flyrt_memcpy_dtoh(ctx->dev, stage[i].host, stage[i].ptr,
		                            (size_t)a->view->numel * a->view->elsize)) == FLYRT_SUCCESS)
			st = ft_copy(ctx, a->view, stage[i].host, 0);
	}
	if (st != FLYRT_SUCCESS && staged)
		flyrt_synchronize(ctx->dev);   /* nothing may still use the buffers freed below */
	for (int i = 0; i < L->nargs; i++) {
		if (stage[i].ptr)
			flyrt_free(ctx->dev, stage[i].ptr);
		free(stage[i].host);
	}
	return st;
}

/* L's arguments as the kernels' requires see them: fake aligned addresses for operands
 * that will be staged. */
static void
launch_args(const OpLaunch *L, flyrt_arg *args)
{
	for (int i = 0; i < L->nargs; i++) {
		const OpArg *a = &L->args[i];
		args[i] = !a->is_ptr ? a->scalar :
		          flyrt_arg_ptr(a->scratch && a->dev ? a->dev :
		                        ops_by_address(L, a) ? a->view->base : (flyrt_deviceptr)(i + 1) << 24);
	}
	for (int i = 0; i < L->nargs; i++)
		if (L->args[i].is_ptr && L->args[i].alias)
			args[i] = args[L->args[i].alias - 1];
}

/* The tuning database's names for L (k: a kernel of the key, whose code object validates
 * the rows and whose argument names the buckets use): count, or -1 with the error set. */
static int
tuned(flyops_context *ctx, const OpLaunch *L, const flyrt_kernel *k, const flyrt_arg *args,
      const char **names, int max)
{
	int n = flyrt_tuning_lookup(ctx->tuning, op_names[L->op], L->dtypes, L->layout, k, args,
	                            L->nargs, names, max);
	if (n < 0)
		ops_refail(FLYRT_ERROR_INVALID_TUNING, "%s: tuning database '%s'", op_names[L->op],
		           ctx->tuning_path);
	return n;
}

int
ops_tuned(flyops_context *ctx, const OpLaunch *L, const char **names, int max)
{
	const OpVariant *v = ops_find_variant(flyrt_device_arch(ctx->dev), L->op, L->dtypes,
	                                      L->layout, NULL);
	flyrt_arg args[OPS_MAX_ARGS];
	flyrt_module *m;
	flyrt_kernel *k;
	flyrt_status st;

	if (!ctx->tuning || !v)
		return 0;
	if ((st = ops_module(ctx, v->codeobj, &m)) != FLYRT_SUCCESS) {
		ops_refail(st, "%s", op_names[L->op]);
		return -1;
	}
	if (flyrt_module_get_kernel(m, v->variant, &k) != FLYRT_SUCCESS) {
		flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s: the kernel library's %s has no kernel '%s' "
		           "(rebuild it with make)", op_names[L->op], v->codeobj, v->variant);
		return -1;
	}
	launch_args(L, args);
	return tuned(ctx, L, k, args, names, max);
}

static int
suffixed(const char *s, const char *sfx)
{
	size_t n = strlen(s), m = strlen(sfx);

	return n >= m && !strcmp(s + n - m, sfx);
}

flyrt_status
ops_launch(flyops_context *ctx, const OpLaunch *L, flyops_exec *exec)
{
	const char *arch = flyrt_device_arch(ctx->dev), *op = op_names[L->op];
	const OpVariant *cand[MAX_CAND];
	flyrt_kernel *ks[MAX_CAND];
	flyrt_arg args[OPS_MAX_ARGS];
	int ncand = 0, nk = 0;
	char why[2048] = "";
	size_t wl = 0;
	flyrt_status st;

	/* the table's variants for this key, in default order */
	for (int i = 0; i < NVARIANTS && ncand < MAX_CAND; i++)
		if (variants[i].op == L->op && !strcmp(variants[i].arch, arch) &&
		    !strcmp(variants[i].dtypes, L->dtypes) && !strcmp(variants[i].layout, L->layout))
			cand[ncand++] = &variants[i];
	if (ncand == 0) {
		char have[512];
		keys_of(L->op, arch, have, sizeof have);
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s: no %s kernel for %s %s yet (%s%s)", op,
		                  arch, L->dtypes, L->layout, have[0] ? "kernels exist for " : "no "
		                  "kernel of this operator exists for this arch yet", have);
	}
	if (exec && exec->variant) {
		int i;
		for (i = 0; i < ncand && strcmp(cand[i]->variant, exec->variant); i++)
			;
		if (i == ncand)
			return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: no variant '%s' for %s %s on %s",
			                  op, exec->variant, L->dtypes, L->layout, arch);
		cand[0] = cand[i];
		ncand = 1;
	}
	launch_args(L, args);
	for (int i = 0; i < ncand; i++) {
		flyrt_module *m;
		if ((st = ops_module(ctx, cand[i]->codeobj, &m)) != FLYRT_SUCCESS)
			return ops_refail(st, "%s", op);
		if ((st = flyrt_module_get_kernel(m, cand[i]->variant, &ks[i])) != FLYRT_SUCCESS)
			return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s: the kernel library's %s has no "
			                  "kernel '%s' (rebuild it with make)", op, cand[i]->codeobj,
			                  cand[i]->variant);
	}
	/* the order: the tuning database's applicable rows first, then the default order */
	{
		const OpVariant *order[MAX_CAND];
		flyrt_kernel *korder[MAX_CAND];
		int used[MAX_CAND] = { 0 }, no = 0;
		if (ctx->tuning && ncand > 1) {
			const char *names[MAX_CAND];
			int n = tuned(ctx, L, ks[0], args, names, MAX_CAND);
			if (n < 0)
				return FLYRT_ERROR_INVALID_TUNING;
			for (int j = 0; j < n && j < MAX_CAND; j++)
				for (int i = 0; i < ncand; i++)
					if (!used[i] && !strcmp(cand[i]->variant, names[j])) {
						used[i] = 1;
						order[no] = cand[i];
						korder[no++] = ks[i];
					}
		}
		for (int pass = L->prefer ? 0 : 1; pass < 2; pass++)
			for (int i = 0; i < ncand; i++)
				if (!used[i] && (pass || suffixed(cand[i]->variant, L->prefer))) {
					used[i] = 1;
					order[no] = cand[i];
					korder[no++] = ks[i];
				}
		memcpy(cand, order, sizeof order[0] * (size_t)no);
		memcpy(ks, korder, sizeof korder[0] * (size_t)no);
	}
	for (nk = 0; nk < ncand; nk++) {
		st = flyrt_kernel_check(ks[nk], NULL, args, L->nargs, NULL);
		if (st == FLYRT_SUCCESS)
			break;
		if (st != FLYRT_ERROR_UNSUPPORTED)
			return ops_refail(st, "%s", op);
		if (wl < sizeof why)
			wl += (size_t)snprintf(why + wl, sizeof why - wl, "%s%s", wl ? "; " : "",
			                       flyrt_last_error());
	}
	if (nk == ncand)
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s: no %s kernel for %s %s accepts this "
		                  "call: %s", op, arch, L->dtypes, L->layout, why);
	if (exec)
		snprintf(exec->chosen, sizeof exec->chosen, "%s", cand[nk]->variant);
	if (exec && exec->plan_only)
		return FLYRT_SUCCESS;
	if ((st = run(ctx, L, ks[nk], args)) != FLYRT_SUCCESS)
		return ops_refail(st, "%s (%s)", op, cand[nk]->variant);
	flyrt_clear_error();
	return FLYRT_SUCCESS;
}
