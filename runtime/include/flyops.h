/*
 * flyops.h — flyc's operator library: PyTorch's operators as C calls on DLPack tensors.
 *
 * Model. An operator call names its tensors as DLPack 0.6 DLTensors (Debian's
 * libdlpack-dev: no fp8 type codes, so MXFP operands are kDLUInt 8-bit codes) and
 * returns a flyrt_status: FLYRT_SUCCESS with the outputs written, FLYRT_ERROR_INVALID_VALUE
 * for a malformed call (what torch itself would reject: shapes that do not fit together,
 * mismatched dtypes, an output of the wrong shape), or FLYRT_ERROR_UNSUPPORTED for a call
 * no kernel of the library computes yet (a layout, dtype or shape without a kernel, a
 * shape every variant's `requires` refuses) — the caller falls back to another
 * implementation. flyrt_last_error() gives the reason, naming the operand and what is
 * missing. A call never gives a wrong answer, and never reads or writes outside its
 * tensors whatever their strides (negative and zero included), offsets, alignment or
 * overlap: what the kernels cannot take directly is copied (staged) or refused.
 *
 * Where tensors live. A context owns one device (flyrt_device_open's kinds: "sim",
 * "hip", "hip:N", "auto"; FLY_DEVICE overrides). Host tensors (kDLCPU, kDLCUDAHost,
 * kDLROCMHost) are staged through device memory: gathered into compact buffers, the
 * kernel launched, the outputs scattered back through their strides; on the simulator
 * that is how CPU tensors run. ROCm tensors (kDLROCM, device_id = the HIP ordinal) are
 * passed by address when their layout is the kernel's (compact, 16-byte aligned, an
 * output not overlapping an input), and staged otherwise.
 *
 * Kernels and variants. The kernels are flyc code objects of the standard library's
 * operator sources (stdlib/ops/NAME.fly), one per arch: KERNEL_DIR/ARCH/NAME.hsaco.
 * KERNEL_DIR is flyops_options.kernel_dir, else $FLYC_KERNEL_DIR, else found beside
 * the library (build/lib/flyc/kernels in a build tree, PREFIX/lib/flyc/kernels when
 * installed). Each operator has, per arch, a list of variants in a default order. A
 * call tries the tuning database's choice first (flyrt_tuning_lookup: rows keyed by
 * arch, operator, dtypes, layout and shape buckets, with validators), then the
 * default order, and launches the first variant whose `requires` accept the call.
 *
 *   flyops_context *ctx;
 *   flyops_create(NULL, &ctx);                       // device "auto", kernels found, no DB
 *   int64_t sa[2] = { M, K }, sb[2] = { K, N }, sbs[2] = { 1, K }, sc[2] = { M, N };
 *   DLTensor a = { pa, { kDLCPU, 0 }, 2, { kDLBfloat, 16, 1 }, sa, NULL, 0 };
 *   DLTensor b = { pb, { kDLCPU, 0 }, 2, { kDLBfloat, 16, 1 }, sb, sbs, 0 };  // NT: b = B^T
 *   DLTensor c = { pc, { kDLCPU, 0 }, 2, { kDLBfloat, 16, 1 }, sc, NULL, 0 };
 *   flyops_exec ex = { 0 };
 *   if (flyops_mm(ctx, &a, &b, NULL, &c, &ex) == FLYRT_ERROR_UNSUPPORTED)
 *       ... fall back; flyrt_last_error() says why ...
 *   printf("ran %s\n", ex.chosen);                   // e.g. gemm_nt_128x128
 *   flyops_destroy(ctx);
 *
 * Semantics, dtypes, layouts, what is refused and why: docs/ops.md. All calls on one
 * context may be made from several threads.
 */
#ifndef FLYOPS_H
#define FLYOPS_H

#include <dlpack/dlpack.h>

#include "flyrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operators: enum name, name as in flyc.ops and the tuning database. */
#define FLYOPS_OPS(X) \
	X(FLYOPS_MM,                 "mm") \
	X(FLYOPS_GROUPED_MM,         "grouped_mm") \
	X(FLYOPS_SCALED_MM,          "scaled_mm") \
	X(FLYOPS_RMS_NORM,           "rms_norm") \
	X(FLYOPS_RMS_NORM_BACKWARD,  "rms_norm_backward") \
	X(FLYOPS_TOPK,               "topk") \
	X(FLYOPS_ATTENTION,          "attention") \
	X(FLYOPS_ATTENTION_BACKWARD, "attention_backward")

typedef enum {
#define X(e, name) e,
	FLYOPS_OPS(X)
#undef X
	FLYOPS_OP_COUNT_
} flyops_op;

typedef struct flyops_context flyops_context;

typedef struct {
	const char *device;       /* NULL or "auto", "sim", "hip", "hip:N"; FLY_DEVICE overrides */
	const char *kernel_dir;   /* NULL: $FLYC_KERNEL_DIR, else found beside the library */
	const char *tuning_db;    /* NULL: $FLYC_TUNING_DB when set, else none; "": none */
} flyops_options;

/* Open the device and read the tuning database (opt may be NULL). A kernel directory
 * that cannot be found is not an error here: calls needing a kernel then return
 * FLYRT_ERROR_UNSUPPORTED saying so. A tuning database that cannot be read is
 * (FLYRT_ERROR_FILE / FLYRT_ERROR_INVALID_TUNING). */
flyrt_status flyops_create(const flyops_options *opt, flyops_context **out);
void flyops_destroy(flyops_context *ctx);                   /* NULL is a no-op */
flyrt_device *flyops_device(const flyops_context *ctx);
const char *flyops_kernel_dir(const flyops_context *ctx);   /* "" when not found */
const char *flyops_tuning_path(const flyops_context *ctx);  /* "" when none */
/* Kernels launched through ctx so far (a plan or a call needing no kernel adds none). */
uint64_t flyops_launches(flyops_context *ctx);

/* How one call runs. Zero-initialise; NULL means all defaults. */
typedef struct {
	void *stream;             /* hipStream_t; NULL = the default stream (the only one yet:
	                             another is FLYRT_ERROR_UNSUPPORTED) */
	int plan_only;            /* 1: check the call and choose the variant; launch nothing,
	                             write nothing. An output whose data is NULL then stands for
	                             a new compact tensor of its shape and dtype. */
	const char *variant;      /* NULL: choose; else run exactly this variant (tuning, tests) */
	char chosen[64];          /* out: the variant chosen, "" when no kernel was needed
	                             (zero sizes, K = 0) */
} flyops_exec;

/* out[M,N] = a[M,K] @ b[K,N] (+ bias[N]), f32 accumulation. Layout by strides: a is N
 * when its stride(1) is 1 (row-major), T when its stride(0) is 1; likewise b; NT is a
 * row-major and b the transpose of a row-major [N,K]. out's dtype is the output dtype
 * (a's dtype, or f32). */
flyrt_status flyops_mm(flyops_context *ctx, const DLTensor *a, const DLTensor *b,
                       const DLTensor *bias, const DLTensor *out, flyops_exec *exec);

/* out[sum M_g, N] = per group g: a[offs[g-1]:offs[g], K] @ b[g, K, N]; offs int32 [G]
 * cumulative row ends (non-decreasing, last = a's rows). */
flyrt_status flyops_grouped_mm(flyops_context *ctx, const DLTensor *a, const DLTensor *b,
                               const DLTensor *offs, const DLTensor *out, flyops_exec *exec);

/* MX block-scaled GEMM, out[M,N] = (A * 2^(sa-127)) @ (B * 2^(sb-127))^T, f32 accumulation.
 *   FLYOPS_MXFP8: a u8 e4m3 codes [M,K], b u8 [N,K];
 *   FLYOPS_MXFP4: a u8 [M,K/2], b u8 [N,K/2], two e2m1 codes a byte, element 2j low nibble;
 *   scale_a u8 E8M0 [M,K/32], scale_b u8 [N,K/32]; bias NULL or [N] of out's dtype. */
typedef enum { FLYOPS_MXFP8 = 1, FLYOPS_MXFP4 = 2 } flyops_mx_format;
flyrt_status flyops_scaled_mm(flyops_context *ctx, const DLTensor *a, const DLTensor *b,
                              const DLTensor *scale_a, const DLTensor *scale_b,
                              flyops_mx_format format, const DLTensor *bias, const DLTensor *out,
                              flyops_exec *exec);

/* y = x * rstd * weight over the last dim, rstd = 1 / sqrt(mean(x^2) + eps) (f32,
 * shape [..., 1]); eps NaN = float32 eps. With residual: h = x + residual (x's dtype)
 * is written and normalised instead of x (h NULL without residual). weight may be NULL. */
flyrt_status flyops_rms_norm(flyops_context *ctx, const DLTensor *x, const DLTensor *weight,
                             double eps, const DLTensor *residual, const DLTensor *y,
                             const DLTensor *rstd, const DLTensor *h, flyops_exec *exec);
/* grad_x and grad_weight of rms_norm (grad_weight NULL when weight is NULL). */
flyrt_status flyops_rms_norm_backward(flyops_context *ctx, const DLTensor *grad_y,
                                      const DLTensor *x, const DLTensor *weight,
                                      const DLTensor *rstd, const DLTensor *grad_x,
                                      const DLTensor *grad_weight, flyops_exec *exec);

/* The k largest (smallest) values of the last dim and their int64 indices; NaN is
 * largest; equal values ordered by ascending index; sorted or not, the order is sorted. */
flyrt_status flyops_topk(flyops_context *ctx, const DLTensor *x, int64_t k, int largest,
                         int sorted, const DLTensor *values, const DLTensor *indices,
                         flyops_exec *exec);

/* out[B,Hq,Sq,Dv] = softmax(q k^T * scale (+ causal mask)) v with q [B,Hq,Sq,D], k
 * [B,Hkv,Sk,D], v [B,Hkv,Sk,Dv], Hq % Hkv == 0 (query head h reads kv head h / (Hq/Hkv));
 * causal: key j visible to query i iff j <= i; scale NaN = 1/sqrt(D); lse f32 [B,Hq,Sq]
 * (natural log of the softmax denominators) or NULL. */
flyrt_status flyops_attention(flyops_context *ctx, const DLTensor *q, const DLTensor *k,
                              const DLTensor *v, int causal, double scale, const DLTensor *out,
                              const DLTensor *lse, flyops_exec *exec);
flyrt_status flyops_attention_backward(flyops_context *ctx, const DLTensor *grad_out,
                                       const DLTensor *q, const DLTensor *k, const DLTensor *v,
                                       const DLTensor *out, const DLTensor *lse, int causal,
                                       double scale, const DLTensor *dq, const DLTensor *dk,
                                       const DLTensor *dv, flyops_exec *exec);

/* The name of an operator ("mm"), NULL outside the table. */
const char *flyops_op_name(flyops_op op);
/* The variants of operator `op` for processor `arch` in default preference order (a
 * kernel serving several dtype/layout keys once, where it first appears): writes at most
 * max names and returns the count (0: no kernel yet), -1 for a bad parameter. */
int flyops_variants(flyops_op op, const char *arch, const char **names, int max);

#ifdef __cplusplus
}
#endif
#endif
