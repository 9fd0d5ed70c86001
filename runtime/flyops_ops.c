/*
 * flyops_ops.c — each operator's rules: which shapes and dtypes fit together (else
 * FLYRT_ERROR_INVALID_VALUE, as torch would refuse the call), the sizes that need no
 * kernel (empty outputs; K = 0 gives zeros plus bias; softmax over no keys), and the
 * tuning key (dtypes, layout) under which ops_launch looks for a kernel. Every operator
 * checks everything now, whether or not a kernel exists for it yet: a kernel issue only
 * adds variant rows (flyops.c) and, for an operator without kernels, the launch
 * arguments marked below.
 *
 * Outputs: an output that shares memory with itself is refused (a zero stride:
 * INVALID_VALUE; strides whose offsets the stride test cannot prove distinct:
 * UNSUPPORTED); two outputs that overlap are refused; an output that overlaps an input
 * is allowed and gets the result computed from the inputs as they were before the call
 * (the kernels read staged copies, or write a staging buffer when passed by address).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyops_internal.h"

#define TRY(x) do { flyrt_status st_ = (x); if (st_ != FLYRT_SUCCESS) return st_; } while (0)
#define INVALID(...) flyrt_fail(FLYRT_ERROR_INVALID_VALUE, __VA_ARGS__)
#define UNSUPPORTED(...) flyrt_fail(FLYRT_ERROR_UNSUPPORTED, __VA_ARGS__)

/* rms_norm_backward: at most this many row blocks, each a grad_weight partial sum (a
 * constant, so the summation order, and the bits, do not depend on the device). */
enum { NORM_BLOCKS = 512 };

/* grouped_mm: the kernels' row tile and smallest column tile (stdlib/ops/grouped_mm.fly,
 * BM x BN), for the m-tile count of their grids and the bound on it. */
enum { GROUPED_BM = 128, GROUPED_BN = 32 };

static flyrt_status
begin(flyops_context *ctx, flyops_exec *exec, const char *op)
{
	if (!ctx)
		return INVALID("%s: the context is NULL", op);
	if (exec)
		exec->chosen[0] = 0;
	return ops_check_exec(exec, op);
}

static int plan_of(const flyops_exec *exec) { return exec && exec->plan_only; }

/* A call's tensors and their views, ended by { NULL }. */
typedef struct {
	FtView *v;
	const DLTensor *t;
	const char *name;
	int output;
} ViewOf;

/* View each tensor in order; the first malformed one fails. */
static flyrt_status
view_all(flyops_context *ctx, const flyops_exec *exec, const ViewOf *vs)
{
	for (; vs->v; vs++)
		TRY(ft_view(ctx, vs->v, vs->t, vs->name, vs->output, plan_of(exec)));
	return FLYRT_SUCCESS;
}

/* v must be ndim-D with the given extents (-1: any). */
static flyrt_status
want_shape(const char *op, const FtView *v, int ndim, const int64_t *ext, const char *what)
{
	char got[128];
	int ok = v->ndim == ndim;

	for (int i = 0; ok && i < ndim; i++)
		ok = ext[i] < 0 || v->shape[i] == ext[i];
	if (ok)
		return FLYRT_SUCCESS;
	return INVALID("%s: %s is %s, expected %s", op, v->name, ft_shape_str(v, got, sizeof got), what);
}

/* v has the shape of ref, with the last dim replaced by last (-1: kept). */
static flyrt_status
want_like(const char *op, const FtView *v, const FtView *ref, int64_t last, const char *what)
{
	int64_t ext[FT_MAX_DIMS];

	for (int i = 0; i < ref->ndim; i++)
		ext[i] = ref->shape[i];
	if (last >= 0 && ref->ndim)
		ext[ref->ndim - 1] = last;
	return want_shape(op, v, ref->ndim, ext, what);
}

static flyrt_status
want_dtype(const char *op, const FtView *v, FtDtype d, const char *why)
{
	if (v->dtype == d)
		return FLYRT_SUCCESS;
	return INVALID("%s: %s is %s, expected %s (%s)", op, v->name, ft_dtype_name(v->dtype),
	               ft_dtype_name(d), why);
}

static flyrt_status
want_float(const char *op, const FtView *v)
{
	if (ft_is_float(v->dtype))
		return FLYRT_SUCCESS;
	return INVALID("%s: %s is %s; it must be a floating-point tensor", op, v->name,
	               ft_dtype_name(v->dtype));
}

/* The outputs may not share memory with themselves or each other. */
static flyrt_status
check_outputs(const char *op, const FtView *const *outs, int n)
{
	for (int i = 0; i < n; i++) {
		if (!outs[i]->t)
			continue;
		int so = ft_self_overlap(outs[i]);
		if (so == 1)
			return INVALID("%s: %s has elements that share memory (a zero stride)", op, outs[i]->name);
		if (so == 2)
			return UNSUPPORTED("%s: %s's strides may make elements share memory (not provably "
			                   "distinct); pass a contiguous output", op, outs[i]->name);
		for (int j = 0; j < i; j++)
			if (ft_overlap(outs[i], outs[j]))
				return INVALID("%s: outputs %s and %s overlap", op, outs[j]->name, outs[i]->name);
	}
	return FLYRT_SUCCESS;
}

static flyrt_status
fill_zero(flyops_context *ctx, const FtView *v)
{
	static const uint8_t zero[8];
	return ft_fill(ctx, v, zero);
}

static flyrt_status
fill_f32(flyops_context *ctx, const FtView *v, float x)
{
	return ft_fill(ctx, v, &x);
}

/* out[M, N] = bias[N] in every row, or zeros without bias (bias is read whole first:
 * out may overlap it). */
static flyrt_status
fill_bias_rows(flyops_context *ctx, const FtView *out, const FtView *bias, int64_t M, int64_t N)
{
	uint8_t *row, *all;
	flyrt_status st;

	if (!bias->t)
		return fill_zero(ctx, out);
	if (!(row = malloc((size_t)N * bias->elsize)) || !(all = malloc((size_t)(M * N) * bias->elsize))) {
		free(row);
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	if ((st = ft_copy(ctx, bias, row, 1)) == FLYRT_SUCCESS) {
		for (int64_t i = 0; i < M; i++)
			memcpy(all + (size_t)(i * N) * bias->elsize, row, (size_t)N * bias->elsize);
		st = ft_copy(ctx, out, all, 0);
	}
	free(row);
	free(all);
	return st;
}

/* "N" if stride(dim) is 1 (or the extent is at most 1). */
static int
unit(const FtView *v, int dim)
{
	return v->shape[dim] <= 1 || v->stride[dim] == 1;
}

/* The product of all dims but the last (rows of a last-dim operator). */
static int64_t
rows_of(const FtView *v)
{
	int64_t r = 1;
	for (int i = 0; i + 1 < v->ndim; i++)
		r *= v->shape[i];
	return r;
}

/* Launch arguments: operands (views), absent operands, scalars. */
static OpArg
arg_in(const FtView *v)
{
	return (OpArg){ .is_ptr = 1, .view = v };
}

static OpArg
arg_out(const FtView *v)
{
	return (OpArg){ .is_ptr = 1, .view = v, .output = 1 };
}

/* An absent operand: the pointer of argument i again, never touched by the kernel. */
static OpArg
arg_alias(int i)
{
	return (OpArg){ .is_ptr = 1, .alias = i + 1 };
}

static OpArg
arg_scalar(flyrt_arg a)
{
	return (OpArg){ .scalar = a };
}

/* ---- mm --------------------------------------------------------------------------- */

/* Split-K (docs/ops.md "mm"): for few rows and a long K, gemm_nt_splitk of
 * stdlib/ops/gemm.fly runs ceil(M/32) x ceil(N/64) tiles x S ranges of KS k-tiles (64
 * each) into f32 partial sums, and gemm_splitk_sum adds them in range order. S is at
 * most a number the variant's name gives (".sN"), else the rule's min(ceil(4 CUs /
 * tiles), k-tiles / 4, 16): about 4 workgroups per CU (the kernel fits 6), every range at
 * least 4 k-tiles (modelled on MI355X at 16x4096x4096: 28 us total; with 1 workgroup per
 * CU 39 us, with 8 and ranges of 2 k-tiles 37 us). mm_choose says when it runs. */
enum { SPLIT_BM = 32, SPLIT_BN = 64, SPLIT_BK = 64, SPLIT_MAX_M = 64, SPLIT_MIN_KT = 4,
       SPLIT_MAX_S = 16 };

/* An mm call: a [M, K] and bt = b^T [N, K] row-major (NT), bias (t NULL: none), out. */
typedef struct {
	const FtView *a, *bt, *bias, *out;
	const char *dtypes;
	int64_t M, N, K;
} MmCall;

typedef struct {
	const OpVariant *v;      /* the key's gemm_nt_splitk */
	int32_t ks, s;           /* k-tiles per range, ranges */
	char name[64];           /* what a plan reports: the kernel, or KERNEL.sN */
} Split;

/* The rule's S (may be below 1). */
static int64_t
split_rule(flyops_context *ctx, const MmCall *c)
{
	int64_t kt = (c->K + SPLIT_BK - 1) / SPLIT_BK;
	int64_t tiles = (c->M + SPLIT_BM - 1) / SPLIT_BM * ((c->N + SPLIT_BN - 1) / SPLIT_BN);
	int64_t S = (4 * (int64_t)flyrt_device_cus(ctx->dev) + tiles - 1) / tiles;

	S = S < kt / SPLIT_MIN_KT ? S : kt / SPLIT_MIN_KT;
	return S < SPLIT_MAX_S ? S : SPLIT_MAX_S;
}

/* Split-K with variant v into at most n ranges (0: the rule's S, at least 1). */
static void
split_of(flyops_context *ctx, const MmCall *c, const OpVariant *v, int n, Split *sp)
{
	int64_t kt = (c->K + SPLIT_BK - 1) / SPLIT_BK, S = n ? n : split_rule(ctx, c);

	S = S < 1 ? 1 : S;
	sp->v = v;
	sp->ks = (int32_t)((kt + S - 1) / S);
	sp->s = (int32_t)((kt + sp->ks - 1) / sp->ks);
	if (n)
		snprintf(sp->name, sizeof sp->name, "%s.s%d", v->variant, n);
	else
		snprintf(sp->name, sizeof sp->name, "%s", v->variant);
}

/* The two launches of split-K: partial sums into a device buffer P [S, M, N] (f32), then
 * their sum into out. Both kernels' requires are checked before anything runs. */
static flyrt_status
mm_splitk(flyops_context *ctx, flyops_exec *exec, const MmCall *c, const Split *sp)
{
	flyops_exec part_ex = { .plan_only = 1, .variant = sp->v->variant }, sum_ex = { .plan_only = 1 };
	flyrt_deviceptr part = 0;
	size_t bytes = (size_t)(c->M * c->N * sp->s) * 4;
	flyrt_status st;
	char sum_key[24];

	snprintf(sum_key, sizeof sum_key, "f32->%s", ft_dtype_name(c->out->dtype));
	OpLaunch L = { .op = FLYOPS_MM, .dtypes = c->dtypes, .layout = "NT_splitk",
	               .args = { arg_in(c->a), arg_in(c->bt), { .is_ptr = 1, .scratch = 1, .output = 1 },
	                         arg_scalar(flyrt_arg_i32((int32_t)c->M)), arg_scalar(flyrt_arg_i32((int32_t)c->N)),
	                         arg_scalar(flyrt_arg_i32((int32_t)c->K)), arg_scalar(flyrt_arg_i32(sp->ks)),
	                         arg_scalar(flyrt_arg_i32(sp->s)), arg_scalar(flyrt_arg_i32(ops_xcds(ctx))) },
	               .nargs = 9, .inputs = { c->a, c->bt }, .ninputs = 2 };
	/* gemm_splitk_sum(P, bias (absent: out's pointer, never read), C, MN, N, S, has_bias) */
	OpLaunch R = { .op = FLYOPS_MM, .dtypes = sum_key, .layout = "splitk_sum",
	               .args = { { .is_ptr = 1, .scratch = 1 },
	                         c->bias->t ? arg_in(c->bias) : arg_alias(2), arg_out(c->out),
	                         arg_scalar(flyrt_arg_i32((int32_t)(c->M * c->N))),
	                         arg_scalar(flyrt_arg_i32((int32_t)c->N)), arg_scalar(flyrt_arg_i32(sp->s)),
	                         arg_scalar(flyrt_arg_i32(c->bias->t != NULL)) },
	               .nargs = 7, .inputs = { c->a, c->bt }, .ninputs = 2 };
	if (c->bias->t)
		R.inputs[R.ninputs++] = c->bias;
	if ((st = ops_launch(ctx, &L, &part_ex)) != FLYRT_SUCCESS ||
	    (st = ops_launch(ctx, &R, &sum_ex)) != FLYRT_SUCCESS)
		return st;
	if (exec)
		snprintf(exec->chosen, sizeof exec->chosen, "%s", sp->name);
	if (plan_of(exec))
		return FLYRT_SUCCESS;
	if ((st = flyrt_malloc(ctx->dev, bytes, &part)) != FLYRT_SUCCESS)
		return ops_refail(st, "mm: split-K's partial sums (%zu bytes)", bytes);
	L.args[2].dev = R.args[0].dev = part;
	part_ex.plan_only = sum_ex.plan_only = 0;
	st = ops_launch(ctx, &L, &part_ex);
	if (st == FLYRT_SUCCESS)
		st = ops_launch(ctx, &R, &sum_ex);
	flyrt_synchronize(ctx->dev);   /* the kernels are done with part */
	flyrt_free(ctx->dev, part);
	return st;
}

/* How an NT call runs: *split 1, split-K as *sp says, or 0, one pass (L).
 * A forced variant splits when it names split-K (bare or ".sN": ops_row_variant).
 * Else the tuning database's rows for the call (validated, bucket holding) decide when
 * one of their names takes it: the first such, split-K or a one-pass variant. Else the
 * rule: M <= 64, S >= 2 and M N % 4 == 0 (gemm_splitk_sum's 4 outputs per thread). */
static flyrt_status
mm_choose(flyops_context *ctx, const flyops_exec *exec, const MmCall *c, const OpLaunch *L,
          Split *sp, int *split)
{
	const char *arch = flyrt_device_arch(ctx->dev), *names[64];
	const OpVariant *sk = ops_find_variant(arch, FLYOPS_MM, c->dtypes, "NT_splitk", NULL), *v;
	int n, splits;

	*split = 0;
	if (!sk)
		return FLYRT_SUCCESS;
	if (exec && exec->variant) {
		v = ops_row_variant(arch, FLYOPS_MM, c->dtypes, "NT", exec->variant, &splits);
		if ((*split = v && !strcmp(v->layout, "NT_splitk")))
			split_of(ctx, c, v, splits, sp);
		return FLYRT_SUCCESS;
	}
	if ((n = ops_tuned(ctx, L, names, 64)) < 0)
		return FLYRT_ERROR_INVALID_TUNING;
	for (int i = 0; i < n && i < 64; i++) {
		flyops_exec probe = { .plan_only = 1 };
		flyrt_status st;
		if (!(v = ops_row_variant(arch, FLYOPS_MM, c->dtypes, "NT", names[i], &splits)))
			continue;                /* not for this key: as ops_launch skips it */
		*split = !strcmp(v->layout, "NT_splitk");
		if (*split) {
			split_of(ctx, c, v, splits, sp);
			st = mm_splitk(ctx, &probe, c, sp);
		} else {
			probe.variant = v->variant;
			st = ops_launch(ctx, L, &probe);
		}
		if (st != FLYRT_ERROR_UNSUPPORTED)
			return st;       /* taken (FLYRT_SUCCESS), or an error */
	}
	flyrt_clear_error();
	*split = 0;
	if (c->M > SPLIT_MAX_M || split_rule(ctx, c) < 2 || (c->M * c->N) % 4)
		return FLYRT_SUCCESS;
	split_of(ctx, c, sk, 0, sp);
	*split = c->M * c->N * sp->s < INT32_MAX;
	return FLYRT_SUCCESS;
}

/* Every layout: the 256x256 tile first (L.prefer) when its grid takes clearly fewer
 * rounds of workgroups than 128x128's, else the table's order (128x128 first). A CU holds
 * one 256x256 workgroup (128 KiB of LDS) or two 128x128 ones (64 KiB each, 2 waves per
 * SIMD either way), and the model (MI355X, docs/ops.md "mm") puts a round of 256x256 at
 * about 1.75 rounds of 128x128: so 256x256 when 4 r128 >= 7 r256 (4096x4096x1024: 1
 * round against 2, 38.7 us against 43.9; 6144x4096x1024: 2 against 3, 66.5 against 62.7,
 * not taken; NT: 34.8 against 39.4 us, and 57.9 against 56.0, gemm_nt_256x256 taking only
 * tile multiples). 256x128 (one 96 KiB workgroup per CU) is slower than 128x128 at every
 * shape measured: it runs when forced or tuned. */
static const char *
mm_big_tile(flyops_context *ctx, int64_t M, int64_t N)
{
	int64_t cus = flyrt_device_cus(ctx->dev);
	int64_t t256 = (M + 255) / 256 * ((N + 255) / 256), t128 = (M + 127) / 128 * ((N + 127) / 128);

	if (cus < 1)
		return NULL;
	return 4 * ((t128 + 2 * cus - 1) / (2 * cus)) >= 7 * ((t256 + cus - 1) / cus) ? "_256x256" : NULL;
}

flyrt_status
flyops_mm(flyops_context *ctx, const DLTensor *a, const DLTensor *b, const DLTensor *bias,
          const DLTensor *out, flyops_exec *exec)
{
	static const char op[] = "mm";
	FtView va, vb, vbias, vout, vat, vbt;
	int plan = plan_of(exec);
	char want[96], dtypes[48], layout[3];

	TRY(begin(ctx, exec, op));
	if (!a || !b || !out)
		return INVALID("mm: a, b and out are required");
	TRY(view_all(ctx, exec, (ViewOf[]){ { &va, a, "a", 0 }, { &vb, b, "b", 0 },
	                                   { &vbias, bias, "bias", 0 }, { &vout, out, "out", 1 },
	                                   { NULL } }));
	if (va.ndim != 2 || vb.ndim != 2)
		return INVALID("mm: a and b must be 2-D (a is %d-D, b is %d-D)", va.ndim, vb.ndim);
	int64_t M = va.shape[0], K = va.shape[1], N = vb.shape[1];
	if (vb.shape[0] != K)
		return INVALID("mm: a is [%lld, %lld] and b [%lld, %lld]: b's rows must equal a's columns",
		               (long long)M, (long long)K, (long long)vb.shape[0], (long long)N);
	if (va.dtype != vb.dtype)
		return INVALID("mm: a is %s and b is %s (the operands share one dtype)",
		               ft_dtype_name(va.dtype), ft_dtype_name(vb.dtype));
	if (!ft_is_float(va.dtype))
		return UNSUPPORTED("mm: %s operands: flyc's GEMMs take floating-point tensors",
		                   ft_dtype_name(va.dtype));
	snprintf(want, sizeof want, "[M, N] = [%lld, %lld]", (long long)M, (long long)N);
	TRY(want_shape(op, &vout, 2, (int64_t[]){ M, N }, want));
	if (vout.dtype != va.dtype && vout.dtype != FD_F32)
		return INVALID("mm: out is %s: the output dtype is the operands' (%s) or f32",
		               ft_dtype_name(vout.dtype), ft_dtype_name(va.dtype));
	if (vbias.t) {
		snprintf(want, sizeof want, "[N] = [%lld]", (long long)N);
		TRY(want_shape(op, &vbias, 1, (int64_t[]){ N }, want));
		TRY(want_dtype(op, &vbias, vout.dtype, "bias has the output dtype"));
	}
	TRY(check_outputs(op, (const FtView *[]){ &vout }, 1));
	if (M == 0 || N == 0)
		return FLYRT_SUCCESS;
	if (K == 0)                          /* zeros, plus bias: no kernel */
		return plan ? FLYRT_SUCCESS : fill_bias_rows(ctx, &vout, &vbias, M, N);
	/* the layout from the strides: N = row-major (stride(1) == 1), T = column-major */
	char la = unit(&va, 1) ? 'N' : unit(&va, 0) ? 'T' : 0;
	char lb = unit(&vb, 0) ? 'T' : unit(&vb, 1) ? 'N' : 0;
	if (!la || !lb) {
		const FtView *v = !la ? &va : &vb;
		return UNSUPPORTED("mm: %s has strides (%lld, %lld): neither row-major (stride(1) == 1) "
		                   "nor column-major (stride(0) == 1); pass a contiguous copy", v->name,
		                   (long long)v->stride[0], (long long)v->stride[1]);
	}
	layout[0] = la;
	layout[1] = lb;
	layout[2] = 0;
	if (vbias.t)
		snprintf(dtypes, sizeof dtypes, "%s+%s->%s", ft_dtype_name(va.dtype),
		         ft_dtype_name(vbias.dtype), ft_dtype_name(vout.dtype));
	else
		snprintf(dtypes, sizeof dtypes, "%s->%s", ft_dtype_name(va.dtype), ft_dtype_name(vout.dtype));
	if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)
		return UNSUPPORTED("mm: M = %lld, N = %lld, K = %lld: the kernels take sizes below 2^31",
		                   (long long)M, (long long)N, (long long)K);
	/* the kernels' operands as they lie, each a compact row-major view when staged: a
	 * ('N', [M, K]) or a^T ('T', [K, M]: column-major a); b ('N', [K, N]) or b^T ('T',
	 * [N, K]: column-major b); C [M, N] row-major */
	ft_permute(&vat, &va, (int[]){ 1, 0 });
	ft_permute(&vbt, &vb, (int[]){ 1, 0 });
	/* stdlib/ops/gemm.fly gemm_*(A, B, bias (a stride-0 [M, N] view of [N]; absent: out's
	 * pointer, never read), C, M, N, K, has_bias, xcds) */
	OpLaunch L = {
		.op = FLYOPS_MM, .dtypes = dtypes, .layout = layout,
		.args = {
			arg_in(la == 'T' ? &vat : &va), arg_in(lb == 'N' ? &vb : &vbt),
			vbias.t ? arg_in(&vbias) : arg_alias(3), arg_out(&vout),
			arg_scalar(flyrt_arg_i32((int32_t)M)), arg_scalar(flyrt_arg_i32((int32_t)N)),
			arg_scalar(flyrt_arg_i32((int32_t)K)), arg_scalar(flyrt_arg_i32(vbias.t != NULL)),
			arg_scalar(flyrt_arg_i32(ops_xcds(ctx))),
		},
		.nargs = 9, .inputs = { &va, &vb }, .ninputs = 2,
	};
	if (vbias.t)
		L.inputs[L.ninputs++] = &vbias;
	if (la == 'N' && lb == 'T') {
		MmCall c = { &va, &vbt, &vbias, &vout, dtypes, M, N, K };
		Split sp;
		int split;
		TRY(mm_choose(ctx, exec, &c, &L, &sp, &split));
		if (split)
			return mm_splitk(ctx, exec, &c, &sp);
	}
	L.prefer = mm_big_tile(ctx, M, N);
	return ops_launch(ctx, &L, exec);
}

/* ---- grouped_mm -------------------------------------------------------------------- */

/* m-tiles of groups [g0, g0 + n) (ends: the host-visible group ends, valid), or the bound
 * T / BM + 1 + n when the ends are on the device (tiles aligned to a's rows: a group adds at
 * most one partial tile at each end, docs/ops.md) */
static int64_t
grouped_mtiles(const int32_t *ends, int64_t T, int64_t g0, int64_t n)
{
	int64_t m = 0;

	if (!ends)
		return T / GROUPED_BM + 1 + n;
	for (int64_t g = g0; g < g0 + n; g++) {
		int64_t s = g ? ends[g - 1] : 0, e = ends[g];
		if (e > s)
			m += (e + GROUPED_BM - 1) / GROUPED_BM - s / GROUPED_BM;
	}
	return m;
}

/* Launch grouped_mm_nn_E[_nBN][_p](A, B, offs, C, T, N, K, G, MT, G0, GB, CUS) once per chunk of
 * groups whose b fits one buffer descriptor (GB K N < 2^31 elements): B is the chunk's own
 * view of b (b[G0 ..], its base moved on the host, so no offset into b ever exceeds 32
 * bits); the kernel reads every end of offs and computes tiles of groups G0 .. G0 + GB - 1
 * only. One workgroup per tile id of MT m-tiles x N / BN (the kernel's grid formula), or
 * for the persistent kernels (_p, grouped_mm_p.fly) min(that, CUS x occupancy) workgroups
 * looping over the tile ids; those come first when offs is device memory (the grid is then
 * the bound, whose surplus workgroups would only scan offs), the others when the host
 * counted the tiles (modelled within 1%: docs/ops.md). With host-visible ends a chunk
 * without rows is skipped (when there are several). */
static flyrt_status
grouped_launch(flyops_context *ctx, const FtView *va, const FtView *vb, const FtView *vo,
               const FtView *vout, const int32_t *ends, flyops_exec *exec)
{
	int64_t T = va->shape[0], K = va->shape[1], G = vb->shape[0], N = vb->shape[2];
	char dtypes[48], layout[3];

	if (T == 0 || N == 0)
		return FLYRT_SUCCESS;
	/* K = 0 runs the kernel too: zeros in the groups' rows only (offs may be on the device) */
	layout[0] = unit(va, 1) ? 'N' : 'T';
	layout[1] = unit(vb, 2) ? 'N' : 'T';
	layout[2] = 0;
	snprintf(dtypes, sizeof dtypes, "%s->%s", ft_dtype_name(va->dtype), ft_dtype_name(vout->dtype));
	if (T > INT32_MAX || N > INT32_MAX || K > INT32_MAX || G > INT32_MAX ||
	    (T / GROUPED_BM + 1 + G) * ((N + GROUPED_BN - 1) / GROUPED_BN) > INT32_MAX / 2)
		return UNSUPPORTED("grouped_mm: T = %lld, N = %lld, K = %lld, G = %lld: the kernels take "
		                   "sizes below 2^31 and fewer than 2^30 tiles", (long long)T, (long long)N,
		                   (long long)K, (long long)G);
	if ((va->dtype == FD_BF16 || va->dtype == FD_F16) && !strcmp(layout, "NN") && (N % 32 || K % 8))
		return UNSUPPORTED("grouped_mm: N = %lld, K = %lld: flyc's grouped kernels take N %% 32 == 0 "
		                   "(whole 32-column tiles, no N tail) and K %% 8 == 0 (16-byte rows of a)",
		                   (long long)N, (long long)K);
	if (T * K > INT32_MAX)
		return UNSUPPORTED("grouped_mm: a is %lld x %lld = %lld elements: the kernels address a "
		                   "through one buffer descriptor, below 2^31 elements (4 GiB)", (long long)T,
		                   (long long)K, (long long)(T * K));
	if (K * N > INT32_MAX)
		return UNSUPPORTED("grouped_mm: b[g] is %lld x %lld = %lld elements: the kernels address "
		                   "one group's b through one buffer descriptor, below 2^31 elements (4 GiB)",
		                   (long long)K, (long long)N, (long long)(K * N));
	uint32_t ncu = flyrt_device_cus(ctx->dev);
	int32_t cus = ncu >= 1 && ncu <= 65536 ? (int32_t)ncu : 1;   /* persistent grids: CUs x occupancy */
	int64_t GB = K > 0 ? INT32_MAX / (K * N) : G;
	if (GB > G)
		GB = G;
	for (int64_t g0 = 0; g0 < G; g0 += GB) {          /* T > 0: G >= 1, GB >= 1 */
		int64_t gb = G - g0 < GB ? G - g0 : GB;
		int64_t mtiles = grouped_mtiles(ends, T, g0, gb);
		FtView vbc;
		if (ends && mtiles == 0 && G > GB)
			continue;          /* several chunks: one without rows needs no launch */
		if (mtiles < 1)
			mtiles = 1;
		ft_narrow(&vbc, vb, g0, gb);
		OpLaunch L = { .op = FLYOPS_GROUPED_MM, .dtypes = dtypes, .layout = layout,
		               .args = { arg_in(va), arg_in(&vbc), arg_in(vo),
		                         { .is_ptr = 1, .view = vout, .output = 1, .partial = 1 },
		                         arg_scalar(flyrt_arg_i32((int32_t)T)),
		                         arg_scalar(flyrt_arg_i32((int32_t)N)),
		                         arg_scalar(flyrt_arg_i32((int32_t)K)),
		                         arg_scalar(flyrt_arg_i32((int32_t)G)),
		                         arg_scalar(flyrt_arg_i32((int32_t)mtiles)),
		                         arg_scalar(flyrt_arg_i32((int32_t)g0)),
		                         arg_scalar(flyrt_arg_i32((int32_t)gb)),
		                         arg_scalar(flyrt_arg_i32(cus)) },
		               .nargs = 12, .inputs = { va, &vbc, vo }, .ninputs = 3,
		               .prefer = ends ? NULL : "_p" };
		TRY(ops_launch(ctx, &L, exec));
		if (plan_of(exec))
			break;
	}
	return FLYRT_SUCCESS;
}

flyrt_status
flyops_grouped_mm(flyops_context *ctx, const DLTensor *a, const DLTensor *b, const DLTensor *offs,
                  const DLTensor *out, flyops_exec *exec)
{
	static const char op[] = "grouped_mm";
	FtView va, vb, vo, vout;
	char want[96];

	TRY(begin(ctx, exec, op));
	if (!a || !b || !offs || !out)
		return INVALID("grouped_mm: a, b, offs and out are required");
	TRY(view_all(ctx, exec, (ViewOf[]){ { &va, a, "a", 0 }, { &vb, b, "b", 0 },
	                                   { &vo, offs, "offs", 0 }, { &vout, out, "out", 1 },
	                                   { NULL } }));
	if (va.ndim != 2 || vb.ndim != 3 || vo.ndim != 1)
		return INVALID("grouped_mm: a must be 2-D [sum M_g, K], b 3-D [G, K, N] and offs 1-D [G] "
		               "(got %d-D, %d-D, %d-D)", va.ndim, vb.ndim, vo.ndim);
	int64_t T = va.shape[0], K = va.shape[1], G = vb.shape[0], N = vb.shape[2];
	if (vb.shape[1] != K)
		return INVALID("grouped_mm: a has K = %lld columns, b is [G, K, N] with K = %lld",
		               (long long)K, (long long)vb.shape[1]);
	if (vo.shape[0] != G)
		return INVALID("grouped_mm: offs has %lld entries for %lld groups", (long long)vo.shape[0],
		               (long long)G);
	TRY(want_dtype(op, &vo, FD_I32, "cumulative group ends"));
	if (va.dtype != vb.dtype)
		return INVALID("grouped_mm: a is %s and b is %s (the operands share one dtype)",
		               ft_dtype_name(va.dtype), ft_dtype_name(vb.dtype));
	TRY(want_float(op, &va));
	snprintf(want, sizeof want, "[sum M_g, N] = [%lld, %lld]", (long long)T, (long long)N);
	TRY(want_shape(op, &vout, 2, (int64_t[]){ T, N }, want));
	TRY(want_dtype(op, &vout, va.dtype, "the operands' dtype"));
	TRY(check_outputs(op, (const FtView *[]){ &vout }, 1));
	/* the group ends, when they are host-visible (reading device memory would be a host
	 * synchronisation): non-decreasing and within the rows. A device offs is not read: the
	 * kernel clamps every group into [the previous end, T] (docs/ops.md). */
	int32_t *ends = NULL;
	if (G > 0 && !vo.on_device && !vo.described) {
		flyrt_status st;
		if (!(ends = malloc((size_t)G * sizeof *ends)))
			return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		st = ft_copy(ctx, &vo, ends, 1);
		for (int64_t g = 0; st == FLYRT_SUCCESS && g < G; g++) {
			int64_t s = g ? ends[g - 1] : 0, e = ends[g];
			if (e < s || e > T)
				st = INVALID("grouped_mm: offs[%lld] = %d: the group ends must be non-decreasing "
				             "and within the %lld rows of a", (long long)g, (int)e, (long long)T);
		}
		if (st != FLYRT_SUCCESS) {
			free(ends);
			return st;
		}
	} else if (G == 0 && T > 0) {
		return INVALID("grouped_mm: no groups, but a has %lld rows", (long long)T);
	}
	flyrt_status st = grouped_launch(ctx, &va, &vb, &vo, &vout, ends, exec);
	free(ends);
	return st;
}

/* ---- scaled_mm --------------------------------------------------------------------- */

flyrt_status
flyops_scaled_mm(flyops_context *ctx, const DLTensor *a, const DLTensor *b, const DLTensor *scale_a,
                 const DLTensor *scale_b, flyops_mx_format format, const DLTensor *bias,
                 const DLTensor *out, flyops_exec *exec)
{
	static const char op[] = "scaled_mm";
	FtView va, vb, vsa, vsb, vbias, vout;
	int plan = plan_of(exec);
	char want[96], dtypes[48], layout[3];

	TRY(begin(ctx, exec, op));
	if (format != FLYOPS_MXFP8 && format != FLYOPS_MXFP4)
		return INVALID("scaled_mm: format %d (expected mxfp8 or mxfp4)", (int)format);
	if (!a || !b || !scale_a || !scale_b || !out)
		return INVALID("scaled_mm: a, b, scale_a, scale_b and out are required");
	TRY(view_all(ctx, exec, (ViewOf[]){ { &va, a, "a", 0 }, { &vb, b, "b", 0 },
	                                   { &vsa, scale_a, "scale_a", 0 },
	                                   { &vsb, scale_b, "scale_b", 0 }, { &vbias, bias, "bias", 0 },
	                                   { &vout, out, "out", 1 }, { NULL } }));
	const char *fmt = format == FLYOPS_MXFP8 ? "mxfp8" : "mxfp4";
	for (int i = 0; i < 4; i++) {
		const FtView *v = (const FtView *[]){ &va, &vb, &vsa, &vsb }[i];
		if (v->ndim != 2)
			return INVALID("scaled_mm: %s must be 2-D (is %d-D)", v->name, v->ndim);
		TRY(want_dtype(op, v, FD_U8, i < 2 ? "MX operands are uint8 codes" : "E8M0 scales are uint8"));
	}
	int64_t M = va.shape[0], Ka = va.shape[1], N = vb.shape[0];
	int64_t K = format == FLYOPS_MXFP4 ? 2 * Ka : Ka;
	if (vb.shape[1] != Ka)
		return INVALID("scaled_mm: a is [%lld, %lld] and b [%lld, %lld]: b is [N, %s] (B transposed, "
		               "row-major)", (long long)M, (long long)Ka, (long long)N,
		               (long long)vb.shape[1], format == FLYOPS_MXFP4 ? "K/2" : "K");
	if (K % 32)
		return INVALID("scaled_mm: K = %lld is not a multiple of 32 (one E8M0 scale per 32 values "
		               "along K)", (long long)K);
	snprintf(want, sizeof want, "[M, K/32] = [%lld, %lld]", (long long)M, (long long)(K / 32));
	TRY(want_shape(op, &vsa, 2, (int64_t[]){ M, K / 32 }, want));
	snprintf(want, sizeof want, "[N, K/32] = [%lld, %lld]", (long long)N, (long long)(K / 32));
	TRY(want_shape(op, &vsb, 2, (int64_t[]){ N, K / 32 }, want));
	snprintf(want, sizeof want, "[M, N] = [%lld, %lld]", (long long)M, (long long)N);
	TRY(want_shape(op, &vout, 2, (int64_t[]){ M, N }, want));
	TRY(want_float(op, &vout));
	if (vbias.t) {
		snprintf(want, sizeof want, "[N] = [%lld]", (long long)N);
		TRY(want_shape(op, &vbias, 1, (int64_t[]){ N }, want));
		TRY(want_dtype(op, &vbias, vout.dtype, "bias has the output dtype"));
	}
	TRY(check_outputs(op, (const FtView *[]){ &vout }, 1));
	if (M == 0 || N == 0)
		return FLYRT_SUCCESS;
	if (K == 0)
		return plan ? FLYRT_SUCCESS : fill_bias_rows(ctx, &vout, &vbias, M, N);
	layout[0] = unit(&va, 1) ? 'N' : 'T';
	layout[1] = unit(&vb, 1) ? 'T' : 'N';
	layout[2] = 0;
	if (vbias.t)
		snprintf(dtypes, sizeof dtypes, "%s+%s->%s", fmt, ft_dtype_name(vbias.dtype),
		         ft_dtype_name(vout.dtype));
	else
		snprintf(dtypes, sizeof dtypes, "%s->%s", fmt, ft_dtype_name(vout.dtype));
	if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)
		return UNSUPPORTED("scaled_mm: M = %lld, N = %lld, K = %lld: the kernels take sizes below "
		                   "2^31", (long long)M, (long long)N, (long long)K);
	/* stdlib/ops/scaled_mm.fly scaled_mm_{fp8,fp4}(A [M, K] values, B [N, K], SA [M, K/32],
	 * SB [N, K/32], bias (a stride-0 [M, N] view of [N]; absent: out's pointer, never
	 * read), C [M, N], M, N, K, K/32, has_bias); "NT" only: a row-major, b [N, K] row-major */
	OpLaunch L = {
		.op = FLYOPS_SCALED_MM, .dtypes = dtypes, .layout = layout,
		.args = {
			arg_in(&va), arg_in(&vb), arg_in(&vsa), arg_in(&vsb),
			vbias.t ? arg_in(&vbias) : arg_alias(5), arg_out(&vout),
			arg_scalar(flyrt_arg_i32((int32_t)M)), arg_scalar(flyrt_arg_i32((int32_t)N)),
			arg_scalar(flyrt_arg_i32((int32_t)K)), arg_scalar(flyrt_arg_i32((int32_t)(K / 32))),
			arg_scalar(flyrt_arg_i32(vbias.t != NULL)),
		},
		.nargs = 11, .inputs = { &va, &vb, &vsa, &vsb }, .ninputs = 4,
	};
	if (vbias.t)
		L.inputs[L.ninputs++] = &vbias;
	return ops_launch(ctx, &L, exec);
}

/* ---- rms_norm ---------------------------------------------------------------------- */

/* The tuning key's dtypes: "x->y" when the weight is absent or of x's dtype (the kernels
 * take both), "x,w->y" for another weight dtype (no kernel yet). */
static flyrt_status
norm_dtypes(char *buf, size_t n, const FtView *x, const FtView *w, const FtView *y)
{
	if (w->t && w->dtype != x->dtype)
		snprintf(buf, n, "%s,%s->%s", ft_dtype_name(x->dtype), ft_dtype_name(w->dtype),
		         ft_dtype_name(y->dtype));
	else
		snprintf(buf, n, "%s->%s", ft_dtype_name(x->dtype), ft_dtype_name(y->dtype));
	return FLYRT_SUCCESS;
}

/* The norm kernels index rows and columns in i32. */
static flyrt_status
norm_fits_i32(const char *op, int64_t rows, int64_t N)
{
	if (rows > INT32_MAX - 1024 || N > INT32_MAX - 65536)
		return UNSUPPORTED("%s: %lld rows of %lld: the kernels take fewer than 2^31 rows and "
		                   "columns", op, (long long)rows, (long long)N);
	return FLYRT_SUCCESS;
}


/* weight: absent or [N], floating point. */
static flyrt_status
check_weight(const char *op, const FtView *w, int64_t N)
{
	char want[48];

	if (!w->t)
		return FLYRT_SUCCESS;
	snprintf(want, sizeof want, "[N] = [%lld]", (long long)N);
	TRY(want_shape(op, w, 1, (int64_t[]){ N }, want));
	return want_float(op, w);
}

/* rstd: f32 shaped like x with the last dim 1. */
static flyrt_status
check_rstd(const char *op, const FtView *r, const FtView *x)
{
	TRY(want_like(op, r, x, 1, "x's shape with the last dim 1"));
	return want_dtype(op, r, FD_F32, "rstd is f32");
}

flyrt_status
flyops_rms_norm(flyops_context *ctx, const DLTensor *x, const DLTensor *weight, double eps,
                const DLTensor *residual, const DLTensor *y, const DLTensor *rstd, const DLTensor *h,
                flyops_exec *exec)
{
	static const char op[] = "rms_norm";
	FtView vx, vw, vr, vy, vrs, vh;
	int plan = plan_of(exec);
	char dtypes[48];

	TRY(begin(ctx, exec, op));
	if (!x || !y || !rstd)
		return INVALID("rms_norm: x, y and rstd are required");
	if (!residual != !h)
		return INVALID("rms_norm: h (x + residual) is written exactly when residual is given");
	if (isnan(eps))
		eps = FLT_EPSILON;
	if (!(eps >= 0) || isinf(eps))
		return INVALID("rms_norm: eps = %g; it must be finite and non-negative", eps);
	TRY(view_all(ctx, exec, (ViewOf[]){ { &vx, x, "x", 0 }, { &vw, weight, "weight", 0 },
	                                   { &vr, residual, "residual", 0 }, { &vy, y, "y", 1 },
	                                   { &vrs, rstd, "rstd", 1 }, { &vh, h, "h", 1 }, { NULL } }));
	if (vx.ndim < 1)
		return INVALID("rms_norm: x must have at least one dim");
	TRY(want_float(op, &vx));
	int64_t N = vx.shape[vx.ndim - 1], rows = rows_of(&vx);
	TRY(check_weight(op, &vw, N));
	if (vr.t) {
		TRY(want_like(op, &vr, &vx, -1, "x's shape"));
		TRY(want_dtype(op, &vr, vx.dtype, "x's dtype"));
		TRY(want_like(op, &vh, &vx, -1, "x's shape"));
		TRY(want_dtype(op, &vh, vx.dtype, "h = x + residual has x's dtype"));
	}
	TRY(want_like(op, &vy, &vx, -1, "x's shape"));
	TRY(want_dtype(op, &vy, vx.dtype, "y has x's dtype"));
	TRY(check_rstd(op, &vrs, &vx));
	TRY(check_outputs(op, (const FtView *[]){ &vy, &vrs, &vh }, 3));
	if (rows == 0)
		return FLYRT_SUCCESS;
	if (N == 0)   /* the mean of no squares is 0/0 */
		return plan ? FLYRT_SUCCESS : fill_f32(ctx, &vrs, NAN);
	norm_dtypes(dtypes, sizeof dtypes, &vx, &vw, &vy);
	TRY(norm_fits_i32(op, rows, N));
	/* stdlib/ops/norm.fly rms_norm(x, w, res, y, h, rstd, rows, N, eps, has_w, has_res):
	 * an absent weight or residual is x's pointer again, an absent h y's */
	OpLaunch L = { .op = FLYOPS_RMS_NORM, .dtypes = dtypes, .layout = "rows",
	               .args = { arg_in(&vx), vw.t ? arg_in(&vw) : arg_alias(0),
	                         vr.t ? arg_in(&vr) : arg_alias(0), arg_out(&vy),
	                         vh.t ? arg_out(&vh) : arg_alias(3), arg_out(&vrs),
	                         arg_scalar(flyrt_arg_i32((int32_t)rows)),
	                         arg_scalar(flyrt_arg_i32((int32_t)N)),
	                         arg_scalar(flyrt_arg_f32((float)eps)),
	                         arg_scalar(flyrt_arg_i32(vw.t != NULL)),
	                         arg_scalar(flyrt_arg_i32(vr.t != NULL)) },
	               .nargs = 11, .inputs = { &vx, &vw, &vr }, .ninputs = 3 };
	return ops_launch(ctx, &L, exec);
}

flyrt_status
flyops_rms_norm_backward(flyops_context *ctx, const DLTensor *grad_y, const DLTensor *x,
                         const DLTensor *weight, const DLTensor *rstd, const DLTensor *grad_x,
                         const DLTensor *grad_weight, flyops_exec *exec)
{
	static const char op[] = "rms_norm_backward";
	FtView vg, vx, vw, vrs, vgx, vgw;
	int plan = plan_of(exec);
	char dtypes[48];
	flyrt_status st;

	TRY(begin(ctx, exec, op));
	if (!grad_y || !x || !rstd || !grad_x)
		return INVALID("rms_norm_backward: grad_y, x, rstd and grad_x are required");
	if (!weight != !grad_weight)
		return INVALID("rms_norm_backward: grad_weight is written exactly when weight is given");
	TRY(view_all(ctx, exec, (ViewOf[]){ { &vg, grad_y, "grad_y", 0 }, { &vx, x, "x", 0 },
	                                   { &vw, weight, "weight", 0 }, { &vrs, rstd, "rstd", 0 },
	                                   { &vgx, grad_x, "grad_x", 1 },
	                                   { &vgw, grad_weight, "grad_weight", 1 }, { NULL } }));
	if (vx.ndim < 1)
		return INVALID("rms_norm_backward: x must have at least one dim");
	TRY(want_float(op, &vx));
	int64_t N = vx.shape[vx.ndim - 1], rows = rows_of(&vx);
	TRY(want_like(op, &vg, &vx, -1, "x's shape"));
	TRY(want_dtype(op, &vg, vx.dtype, "x's dtype"));
	TRY(check_weight(op, &vw, N));
	TRY(check_rstd(op, &vrs, &vx));
	TRY(want_like(op, &vgx, &vx, -1, "x's shape"));
	TRY(want_dtype(op, &vgx, vx.dtype, "x's dtype"));
	if (vw.t) {
		TRY(want_like(op, &vgw, &vw, -1, "weight's shape"));
		TRY(want_dtype(op, &vgw, vw.dtype, "weight's dtype"));
	}
	TRY(check_outputs(op, (const FtView *[]){ &vgx, &vgw }, 2));
	if (rows == 0 || N == 0)   /* nothing flows back: grad_weight is a sum of no terms */
		return plan ? FLYRT_SUCCESS : fill_zero(ctx, &vgw);
	norm_dtypes(dtypes, sizeof dtypes, &vx, &vw, &vgx);
	TRY(norm_fits_i32(op, rows, N));
	/* two kernels of stdlib/ops/norm.fly: rms_norm_bwd(g, x, w, rstd, gx, part, rows, N,
	 * NP, rpb, nb, has_w) writes grad_x and per-block partial sums of grad_weight (f32
	 * part[nb, N], row stride NP), then rms_norm_wgrad(part, gw, nb, N, NP) adds them up
	 * in block order. part lives on the device between the two. */
	int64_t nb = rows < NORM_BLOCKS ? rows : NORM_BLOCKS, rpb = (rows + nb - 1) / nb;
	int64_t NP = (N + 3) / 4 * 4;
	nb = (rows + rpb - 1) / rpb;
	flyrt_deviceptr part = 0;
	size_t part_bytes = (size_t)(nb * NP) * 4;
	if (!plan && (st = flyrt_malloc(ctx->dev, part_bytes, &part)) != FLYRT_SUCCESS)
		return ops_refail(st, "%s: the grad_weight partial sums (%zu bytes)", op, part_bytes);
	OpLaunch L = { .op = FLYOPS_RMS_NORM_BACKWARD, .dtypes = dtypes, .layout = "rows",
	               .args = { arg_in(&vg), arg_in(&vx), vw.t ? arg_in(&vw) : arg_alias(1),
	                         arg_in(&vrs), arg_out(&vgx),
	                         { .is_ptr = 1, .scratch = 1, .output = 1, .dev = part },
	                         arg_scalar(flyrt_arg_i32((int32_t)rows)),
	                         arg_scalar(flyrt_arg_i32((int32_t)N)),
	                         arg_scalar(flyrt_arg_i32((int32_t)NP)),
	                         arg_scalar(flyrt_arg_i32((int32_t)rpb)),
	                         arg_scalar(flyrt_arg_i32((int32_t)nb)),
	                         arg_scalar(flyrt_arg_i32(vw.t != NULL)) },
	               .nargs = 12, .inputs = { &vg, &vx, &vw, &vrs }, .ninputs = 4 };
	st = ops_launch(ctx, &L, exec);
	if (st == FLYRT_SUCCESS && !plan && vw.t) {
		/* the reduction: the wgrad kernel of the same element type */
		flyops_exec sub = { .variant = NULL };
		OpLaunch R = { .op = FLYOPS_RMS_NORM_BACKWARD, .dtypes = dtypes, .layout = "wgrad",
		               .args = { { .is_ptr = 1, .scratch = 1, .dev = part }, arg_out(&vgw),
		                         arg_scalar(flyrt_arg_i32((int32_t)nb)),
		                         arg_scalar(flyrt_arg_i32((int32_t)N)),
		                         arg_scalar(flyrt_arg_i32((int32_t)NP)) },
		               .nargs = 5, .inputs = { &vg, &vx, &vw, &vrs }, .ninputs = 4 };
		st = ops_launch(ctx, &R, &sub);
	}
	if (part) {
		flyrt_synchronize(ctx->dev);   /* the kernels are done with part */
		flyrt_free(ctx->dev, part);
	}
	return st;
}

/* ---- topk -------------------------------------------------------------------------- */

/* The kernels' bounds (stdlib/ops/topk.fly: radix selection's). */
enum { TOPK_MAX_N = 262144, TOPK_MAX_K = 1024 };

flyrt_status
flyops_topk(flyops_context *ctx, const DLTensor *x, int64_t k, int largest, int sorted,
            const DLTensor *values, const DLTensor *indices, flyops_exec *exec)
{
	static const char op[] = "topk";
	FtView vx, vv, vi;
	char dtypes[48];

	TRY(begin(ctx, exec, op));
	if (!x || !values || !indices)
		return INVALID("topk: x, values and indices are required");
	TRY(view_all(ctx, exec, (ViewOf[]){ { &vx, x, "x", 0 }, { NULL } }));
	if (vx.ndim < 1)
		return UNSUPPORTED("topk: a 0-d x (flyc's topk works on the last dim of a tensor)");
	int64_t N = vx.shape[vx.ndim - 1], rows = rows_of(&vx);
	if (k < 0 || k > N)
		return INVALID("topk: k = %lld is outside 0..%lld (the last dim)", (long long)k, (long long)N);
	TRY(view_all(ctx, exec, (ViewOf[]){ { &vv, values, "values", 1 }, { &vi, indices, "indices", 1 },
	                                   { NULL } }));
	TRY(want_like(op, &vv, &vx, k, "x's shape with the last dim k"));
	TRY(want_dtype(op, &vv, vx.dtype, "x's dtype"));
	TRY(want_like(op, &vi, &vx, k, "x's shape with the last dim k"));
	TRY(want_dtype(op, &vi, FD_I64, "indices are int64"));
	TRY(check_outputs(op, (const FtView *[]){ &vv, &vi }, 2));
	if (rows == 0 || k == 0)
		return FLYRT_SUCCESS;
	if (!largest)
		return UNSUPPORTED("topk: largest=False (the k smallest): flyc's kernels select the "
		                   "largest only");
	if (k > TOPK_MAX_K)
		return UNSUPPORTED("topk: k = %lld; flyc's kernels take k <= %d", (long long)k, TOPK_MAX_K);
	if (N > TOPK_MAX_N)
		return UNSUPPORTED("topk: N = %lld; flyc's kernels take rows of N <= %d", (long long)N,
		                   TOPK_MAX_N);
	if (rows > INT32_MAX - 4)
		return UNSUPPORTED("topk: %lld rows; the kernels take fewer than 2^31 - 4", (long long)rows);
	snprintf(dtypes, sizeof dtypes, "%s", ft_dtype_name(vx.dtype));
	(void)sorted;   /* results are always sorted (a valid answer for sorted=False too) */
	/* stdlib/ops/topk.fly topk_reg(x, vals, idx, rows, N, k, ninf): the first of K = 2, 4,
	 * 8, 16 whose requires take k serves (k in (K/2, K], N <= 8192); else topk_radix */
	OpLaunch L = { .op = FLYOPS_TOPK, .dtypes = dtypes, .layout = "largest",
	               .args = { arg_in(&vx), arg_out(&vv), arg_out(&vi),
	                         arg_scalar(flyrt_arg_i32((int32_t)rows)),
	                         arg_scalar(flyrt_arg_i32((int32_t)N)),
	                         arg_scalar(flyrt_arg_i32((int32_t)k)),
	                         arg_scalar(flyrt_arg_f32(-INFINITY)) },
	               .nargs = 7, .inputs = { &vx }, .ninputs = 1 };
	return ops_launch(ctx, &L, exec);
}

/* ---- attention --------------------------------------------------------------------- */

typedef struct {
	int64_t B, Hq, Hkv, Sq, Sk, D, Dv;
} AttnDims;

static flyrt_status
attn_dims(const char *op, const FtView *q, const FtView *k, const FtView *v, AttnDims *d)
{
	char want[96];

	if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
		return INVALID("%s: q, k and v must be 4-D [B, H, S, D] (got %d-D, %d-D, %d-D)", op,
		               q->ndim, k->ndim, v->ndim);
	d->B = q->shape[0];
	d->Hq = q->shape[1];
	d->Sq = q->shape[2];
	d->D = q->shape[3];
	d->Hkv = k->shape[1];
	d->Sk = k->shape[2];
	d->Dv = v->shape[3];
	snprintf(want, sizeof want, "[B, Hkv, Sk, D] = [%lld, -, -, %lld]", (long long)d->B, (long long)d->D);
	TRY(want_shape(op, k, 4, (int64_t[]){ d->B, -1, -1, d->D }, want));
	snprintf(want, sizeof want, "[B, Hkv, Sk, Dv] = [%lld, %lld, %lld, -]", (long long)d->B,
	         (long long)d->Hkv, (long long)d->Sk);
	TRY(want_shape(op, v, 4, (int64_t[]){ d->B, d->Hkv, d->Sk, -1 }, want));
	if (d->Hkv == 0 ? d->Hq != 0 : d->Hq % d->Hkv)
		return INVALID("%s: Hq = %lld query heads are not a multiple of Hkv = %lld kv heads", op,
		               (long long)d->Hq, (long long)d->Hkv);
	if (q->dtype != k->dtype || q->dtype != v->dtype)
		return INVALID("%s: q, k and v are %s, %s, %s (one dtype)", op, ft_dtype_name(q->dtype),
		               ft_dtype_name(k->dtype), ft_dtype_name(v->dtype));
	return want_float(op, q);
}

static flyrt_status
check_lse(const char *op, const FtView *l, const AttnDims *d)
{
	char want[96];

	snprintf(want, sizeof want, "[B, Hq, Sq] = [%lld, %lld, %lld]", (long long)d->B, (long long)d->Hq,
	         (long long)d->Sq);
	TRY(want_shape(op, l, 3, (int64_t[]){ d->B, d->Hq, d->Sq }, want));
	return want_dtype(op, l, FD_F32, "lse is f32");
}

static flyrt_status
check_scale(const char *op, double *scale, const AttnDims *d)
{
	if (isnan(*scale))
		*scale = d->D > 0 ? 1.0 / sqrt((double)d->D) : 1.0;
	if (isinf(*scale))
		return INVALID("%s: scale = %g; it must be finite", op, *scale);
	return FLYRT_SUCCESS;
}

/* "bhsd" when every operand's last dim is unit-stride, else "strided"; "_causal" */
static void
attn_layout(char *buf, size_t n, const FtView *const *v, int nv, int causal)
{
	int ok = 1;
	for (int i = 0; i < nv; i++)
		ok = ok && (!v[i]->t || unit(v[i], v[i]->ndim - 1));
	snprintf(buf, n, "%s%s", ok ? "bhsd" : "strided", causal ? "_causal" : "");
}

/* The head dims the forward kernels serve (one code object variant each). */
#define ATTN_HEAD_DIMS "32, 64, 128, 256 and 512"

static int
attn_head_dim(int64_t D)
{
	return D == 32 || D == 64 || D == 128 || D == 256 || D == 512;
}

/* An operand whose (batch, head, seq) strides the kernel takes as arguments. */
static OpArg
arg_strided(const FtView *v, int output)
{
	return (OpArg){ .is_ptr = 1, .view = v, .output = output, .strided = 1 };
}

/* Append a's three strides (batch, head, seq) to L: its own when it is passed in place,
 * a compact [B, H, S, D]'s when it is staged. */
static flyrt_status
attn_strides(const char *op, OpLaunch *L, const OpArg *a)
{
	const FtView *v = a->view;
	int64_t s[3];

	if (ops_by_address(L, a)) {
		for (int i = 0; i < 3; i++)
			s[i] = v->stride[i];
	} else {
		s[2] = v->shape[3];
		s[1] = s[2] * v->shape[2];
		s[0] = s[1] * v->shape[1];
	}
	for (int i = 0; i < 3; i++) {
		if (s[i] > INT32_MAX)
			return UNSUPPORTED("%s: %s's stride %lld does not fit the kernels' 32-bit strides", op,
			                   v->name, (long long)s[i]);
		L->args[L->nargs++] = arg_scalar(flyrt_arg_i32((int32_t)s[i]));
	}
	return FLYRT_SUCCESS;
}

flyrt_status
flyops_attention(flyops_context *ctx, const DLTensor *q, const DLTensor *k, const DLTensor *v,
                 int causal, double scale, const DLTensor *out, const DLTensor *lse, flyops_exec *exec)
{
	static const char op[] = "attention";
	FtView vq, vk, vv, vo, vl;
	AttnDims d;
	int plan = plan_of(exec);
	char want[96], dtypes[48], layout[32];

	TRY(begin(ctx, exec, op));
	if (!q || !k || !v || !out)
		return INVALID("attention: q, k, v and out are required");
	TRY(view_all(ctx, exec, (ViewOf[]){ { &vq, q, "q", 0 }, { &vk, k, "k", 0 }, { &vv, v, "v", 0 },
	                                   { &vo, out, "out", 1 }, { &vl, lse, "lse", 1 }, { NULL } }));
	TRY(attn_dims(op, &vq, &vk, &vv, &d));
	TRY(check_scale(op, &scale, &d));
	snprintf(want, sizeof want, "[B, Hq, Sq, Dv] = [%lld, %lld, %lld, %lld]", (long long)d.B,
	         (long long)d.Hq, (long long)d.Sq, (long long)d.Dv);
	TRY(want_shape(op, &vo, 4, (int64_t[]){ d.B, d.Hq, d.Sq, d.Dv }, want));
	TRY(want_dtype(op, &vo, vq.dtype, "q's dtype"));
	if (vl.t)
		TRY(check_lse(op, &vl, &d));
	TRY(check_outputs(op, (const FtView *[]){ &vo, &vl }, 2));
	if (d.B == 0 || d.Hq == 0 || d.Sq == 0)
		return FLYRT_SUCCESS;
	if (d.Sk == 0) {   /* softmax over no keys: out 0, lse log(0) */
		if (plan)
			return FLYRT_SUCCESS;
		TRY(fill_zero(ctx, &vo));
		return fill_f32(ctx, &vl, -INFINITY);
	}
	if (d.Dv == 0 && !vl.t)
		return FLYRT_SUCCESS;
	snprintf(dtypes, sizeof dtypes, "%s->%s", ft_dtype_name(vq.dtype), ft_dtype_name(vo.dtype));
	attn_layout(layout, sizeof layout, (const FtView *[]){ &vq, &vk, &vv, &vo }, 4, causal);
	if (d.Dv != d.D)
		return UNSUPPORTED("attention: q and k have head dim %lld, v %lld: flyc's kernels take "
		                   "one head dim", (long long)d.D, (long long)d.Dv);
	if (!attn_head_dim(d.D))
		return UNSUPPORTED("attention: head dim %lld; flyc's kernels serve D = %s", (long long)d.D,
		                   ATTN_HEAD_DIMS);
	if (d.B > INT32_MAX || d.Hq > INT32_MAX || d.Sq > INT32_MAX || d.Sk > INT32_MAX)
		return UNSUPPORTED("attention: B = %lld, Hq = %lld, Sq = %lld, Sk = %lld: the kernels take "
		                   "sizes below 2^31", (long long)d.B, (long long)d.Hq, (long long)d.Sq,
		                   (long long)d.Sk);
	/* stdlib/ops/attention.fly attn_fwd(Q, K, V, O, LSE, Sq, Sk, Hq, Hkv, hdim, sm_scale,
	 * the (batch, head, seq) strides of Q, K, V, O, B, has_lse): AOTriton's forward order
	 * (docs/ops.md); each tensor in place with its own strides when it is device memory with
	 * a unit-stride last dim, else staged compact [B, H, S, D]; without lse, LSE repeats
	 * O's pointer and has_lse = 0 */
	OpLaunch L = {
		.op = FLYOPS_ATTENTION, .dtypes = dtypes, .layout = layout,
		.args = { arg_strided(&vq, 0), arg_strided(&vk, 0), arg_strided(&vv, 0),
		          arg_strided(&vo, 1), vl.t ? arg_out(&vl) : arg_alias(3),
		          arg_scalar(flyrt_arg_i32((int32_t)d.Sq)), arg_scalar(flyrt_arg_i32((int32_t)d.Sk)),
		          arg_scalar(flyrt_arg_i32((int32_t)d.Hq)), arg_scalar(flyrt_arg_i32((int32_t)d.Hkv)),
		          arg_scalar(flyrt_arg_i32((int32_t)d.D)), arg_scalar(flyrt_arg_f32((float)scale)) },
		.nargs = 11, .inputs = { &vq, &vk, &vv }, .ninputs = 3,
	};
	for (int i = 0; i < 4; i++)
		TRY(attn_strides(op, &L, &L.args[i]));
	L.args[L.nargs++] = arg_scalar(flyrt_arg_i32((int32_t)d.B));
	L.args[L.nargs++] = arg_scalar(flyrt_arg_i32(vl.t != NULL));
	return ops_launch(ctx, &L, exec);
}

/* An operand [B, H, S, D] as the attention kernels read it: by address when it is compact
 * as [B, H, S, D] or as the transposed view of a compact [B, S, H, D] (*as is then that
 * permuted view, which ops_launch finds compact); otherwise staged compactly as
 * [B, H, S, D]. st gets the (batch, head, sequence) strides in elements of what the
 * kernel will read, 0 for dims of extent 1. */
static void
attn_operand(const FtView *v, FtView *as, int64_t st[3])
{
	FtView p;

	ft_permute(&p, v, (int[]){ 0, 2, 1, 3 });
	*as = ft_compact(v) || !ft_compact(&p) ? *v : p;
	for (int i = 0; i < 3; i++)
		st[i] = v->shape[i] <= 1 ? 0 : ft_compact(as) ? v->stride[i] :
		        v->shape[3] * (i == 2 ? 1 : v->shape[2] * (i == 1 ? 1 : v->shape[1]));
}

/* The three kernels of stdlib/ops/attention_bwd.fly, in order (argument lists in
 * docs/ops.md, "Attention backward"): attn_bwd_delta_T (layout "delta") writes
 * Delta = rowsum(dO * O) to a device scratch buffer, attn_bwd_dkdv_T_dD (the call's
 * layout, exec's choice) dK and dV, attn_bwd_dq_T_dD (layout "dq") dQ. t: q, k, v, dO,
 * O, lse, dq, dk, dv. */
static flyrt_status
attn_bwd_launch(flyops_context *ctx, flyops_exec *exec, const char *dtypes, const char *layout,
                const AttnDims *d, int causal, double scale, const FtView *const *t)
{
	static const char op[] = "attention_backward";
	FtView as[9];
	int64_t st[9][3];
	OpArg sa[9][3];
	int plan = plan_of(exec);
	flyrt_status s;

	for (int i = 0; i < 9; i++) {
		if (i == 5) {   /* lse [B, Hq, Sq] f32: compact as the kernels read it (else staged) */
			as[i] = *t[i];
			continue;
		}
		attn_operand(t[i], &as[i], st[i]);
		for (int j = 0; j < 3; j++) {
			if (st[i][j] > INT32_MAX || t[i]->numel > INT32_MAX)
				return UNSUPPORTED("%s: %s spans 2^31 elements or more; the kernels index "
				                   "in 32 bits", op, t[i]->name);
			sa[i][j] = arg_scalar(flyrt_arg_i32((int32_t)st[i][j]));
		}
	}
	/* dK and dV are written back before the dQ kernel reads q, k, v, dO and lse */
	for (int i = 7; i < 9; i++)
		for (int j = 0; j < 6; j++)
			if (j != 4 && ft_overlap(t[i], t[j]))
				return UNSUPPORTED("%s: %s overlaps %s, which the dQ kernel reads after dK and "
				                   "dV are written; pass separate outputs", op, t[i]->name,
				                   t[j]->name);
	if (d->B > 65535 || d->Hq > 65535)
		return UNSUPPORTED("%s: B = %lld, Hq = %lld; the kernels' grids take at most 65535 of "
		                   "each", op, (long long)d->B, (long long)d->Hq);
	if (d->B * d->Hq * d->Sq > INT32_MAX)
		return UNSUPPORTED("%s: B * Hq * Sq = %lld rows; the kernels take fewer than 2^31", op,
		                   (long long)(d->B * d->Hq * d->Sq));
	flyrt_arg Sq = flyrt_arg_i32((int32_t)d->Sq), Sk = flyrt_arg_i32((int32_t)d->Sk);
	flyrt_arg Hq = flyrt_arg_i32((int32_t)d->Hq), Hkv = flyrt_arg_i32((int32_t)d->Hkv);
	flyrt_arg Dh = flyrt_arg_i32((int32_t)d->D), B = flyrt_arg_i32((int32_t)d->B);
	flyrt_arg sc = flyrt_arg_f32((float)scale), cz = flyrt_arg_i32(causal != 0);
	flyrt_deviceptr delta = 0;
	size_t delta_bytes = (size_t)(d->B * d->Hq * d->Sq) * 4;
	OpArg dl = { .is_ptr = 1, .scratch = 1, .dev = 0 };
	/* dK/dV: Q, K, V, dO, dK, dV, LSE, Delta, Sq, Sk, Hq, Hkv, D, scale, causal, B, then
	 * the (batch, head, sequence) strides of Q, K, V, dO, dK, dV */
	OpLaunch L = { .op = FLYOPS_ATTENTION_BACKWARD, .dtypes = dtypes, .layout = layout,
	               .args = { arg_in(&as[0]), arg_in(&as[1]), arg_in(&as[2]), arg_in(&as[3]),
	                         arg_out(&as[7]), arg_out(&as[8]), arg_in(&as[5]), dl,
	                         arg_scalar(Sq), arg_scalar(Sk), arg_scalar(Hq), arg_scalar(Hkv),
	                         arg_scalar(Dh), arg_scalar(sc), arg_scalar(cz), arg_scalar(B) },
	               .nargs = 16, .inputs = { t[0], t[1], t[2], t[3], t[4], t[5] }, .ninputs = 6 };
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 3; j++)
			L.args[L.nargs++] = sa[(int[]){ 0, 1, 2, 3, 7, 8 }[i]][j];
	if (plan)
		return ops_launch(ctx, &L, exec);
	if ((s = flyrt_malloc(ctx->dev, delta_bytes, &delta)) != FLYRT_SUCCESS)
		return ops_refail(s, "%s: Delta (%zu bytes)", op, delta_bytes);
	L.args[7].dev = delta;
	/* Delta: O, dO, Delta, B, Hq, Sq, D, strides of O and dO */
	flyops_exec sub = { .variant = NULL };
	OpLaunch P = { .op = FLYOPS_ATTENTION_BACKWARD, .dtypes = dtypes, .layout = "delta",
	               .args = { arg_in(&as[4]), arg_in(&as[3]), { .is_ptr = 1, .scratch = 1,
	                         .output = 1, .dev = delta }, arg_scalar(B), arg_scalar(Hq),
	                         arg_scalar(Sq), arg_scalar(Dh), sa[4][0], sa[4][1], sa[4][2],
	                         sa[3][0], sa[3][1], sa[3][2] },
	               .nargs = 13, .inputs = { t[3], t[4] }, .ninputs = 2 };
	s = ops_launch(ctx, &P, &sub);
	if (s == FLYRT_SUCCESS)
		s = ops_launch(ctx, &L, exec);
	if (s == FLYRT_SUCCESS) {
		/* dQ: Q, K, V, dO, dQ, LSE, Delta, the same scalars, strides of Q, K, V, dO, dQ */
		OpLaunch Q = { .op = FLYOPS_ATTENTION_BACKWARD, .dtypes = dtypes, .layout = "dq",
		               .args = { L.args[0], L.args[1], L.args[2], L.args[3], arg_out(&as[6]),
		                         L.args[6], L.args[7] },
		               .nargs = 7, .inputs = { t[0], t[1], t[2], t[3], t[4], t[5] }, .ninputs = 6 };
		for (int i = 8; i < 16; i++)
			Q.args[Q.nargs++] = L.args[i];
		for (int i = 0; i < 5; i++)
			for (int j = 0; j < 3; j++)
				Q.args[Q.nargs++] = sa[(int[]){ 0, 1, 2, 3, 6 }[i]][j];
		s = ops_launch(ctx, &Q, &sub);
	}
	flyrt_synchronize(ctx->dev);   /* the kernels are done with Delta */
	flyrt_free(ctx->dev, delta);
	return s;
}

flyrt_status
flyops_attention_backward(flyops_context *ctx, const DLTensor *grad_out, const DLTensor *q,
                          const DLTensor *k, const DLTensor *v, const DLTensor *out,
                          const DLTensor *lse, int causal, double scale, const DLTensor *dq,
                          const DLTensor *dk, const DLTensor *dv, flyops_exec *exec)
{
	static const char op[] = "attention_backward";
	FtView vg, vq, vk, vv, vo, vl, vdq, vdk, vdv;
	AttnDims d;
	int plan = plan_of(exec);
	char want[96], dtypes[48], layout[32];

	TRY(begin(ctx, exec, op));
	if (!grad_out || !q || !k || !v || !out || !lse || !dq || !dk || !dv)
		return INVALID("attention_backward: grad_out, q, k, v, out, lse, dq, dk and dv are required");
	TRY(view_all(ctx, exec, (ViewOf[]){ { &vg, grad_out, "grad_out", 0 }, { &vq, q, "q", 0 },
	                                   { &vk, k, "k", 0 }, { &vv, v, "v", 0 }, { &vo, out, "out", 0 },
	                                   { &vl, lse, "lse", 0 }, { &vdq, dq, "dq", 1 },
	                                   { &vdk, dk, "dk", 1 }, { &vdv, dv, "dv", 1 }, { NULL } }));
	TRY(attn_dims(op, &vq, &vk, &vv, &d));
	TRY(check_scale(op, &scale, &d));
	snprintf(want, sizeof want, "[B, Hq, Sq, Dv] = [%lld, %lld, %lld, %lld]", (long long)d.B,
	         (long long)d.Hq, (long long)d.Sq, (long long)d.Dv);
	for (int i = 0; i < 2; i++) {
		const FtView *t = i ? &vo : &vg;
		TRY(want_shape(op, t, 4, (int64_t[]){ d.B, d.Hq, d.Sq, d.Dv }, want));
		TRY(want_dtype(op, t, vq.dtype, "q's dtype"));
	}
	TRY(check_lse(op, &vl, &d));
	for (int i = 0; i < 3; i++) {
		const FtView *g = (const FtView *[]){ &vdq, &vdk, &vdv }[i];
		const FtView *ref = (const FtView *[]){ &vq, &vk, &vv }[i];
		TRY(want_like(op, g, ref, -1, i == 0 ? "q's shape" : i == 1 ? "k's shape" : "v's shape"));
		TRY(want_dtype(op, g, vq.dtype, "q's dtype"));
	}
	TRY(check_outputs(op, (const FtView *[]){ &vdq, &vdk, &vdv }, 3));
	/* no query, no key or no value dims: every gradient is zero (or empty) */
	if (d.B == 0 || d.Hq == 0 || d.Sq == 0 || d.Sk == 0 || d.Dv == 0) {
		if (plan)
			return FLYRT_SUCCESS;
		TRY(fill_zero(ctx, &vdq));
		TRY(fill_zero(ctx, &vdk));
		return fill_zero(ctx, &vdv);
	}
	snprintf(dtypes, sizeof dtypes, "%s->%s", ft_dtype_name(vq.dtype), ft_dtype_name(vdq.dtype));
	attn_layout(layout, sizeof layout, (const FtView *[]){ &vg, &vq, &vk, &vv, &vo }, 5, causal);
	if (d.Dv != d.D)
		return UNSUPPORTED("%s: head dims D = %lld and Dv = %lld differ; flyc's kernels take "
		                   "one head dim", op, (long long)d.D, (long long)d.Dv);
	if (!attn_head_dim(d.D))
		return UNSUPPORTED("%s: head dim %lld; flyc's kernels serve D = %s (one kernel "
		                   "per head dim; they do not mask a shorter one)", op, (long long)d.D, ATTN_HEAD_DIMS);
	if (d.D == 512 && !strcmp(flyrt_device_arch(ctx->dev), "gfx1201"))
		return UNSUPPORTED("%s: head dim 512 on gfx1201: K and V of one 32-key tile alone "
		                   "take its 64 KiB of LDS (its kernels serve D = 32, 64, 128, 256)", op);
	return attn_bwd_launch(ctx, exec, dtypes, layout, &d, causal, scale,
	                       (const FtView *[]){ &vq, &vk, &vv, &vg, &vo, &vl, &vdq, &vdk, &vdv });
}
