/*
 * flyops_tensor.c — DLTensors as the operator library sees them: checked views (dtype,
 * strides in elements, the byte span touched, host or device), overlap tests, and the
 * copies that stage an operand: gathering its elements into a compact buffer or
 * scattering a compact buffer back through its strides, one contiguous run at a time.
 *
 * Every address is computed from the view's own shape and strides after the span was
 * checked to stay within 64-bit offsets, so a copy touches exactly the tensor's bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyops_internal.h"

static const struct {
	const char *name;
	uint8_t code, bits;
} dtypes[] = {
	[FD_NONE] = { "?", 0, 0 },
#define X(e, name, code, bits) [e] = { name, code, bits },
	FLYOPS_DTYPES(X)
#undef X
};

const char *
ft_dtype_name(FtDtype d)
{
	return (unsigned)d < sizeof dtypes / sizeof dtypes[0] ? dtypes[d].name : "?";
}

int
ft_is_float(FtDtype d)
{
	return d == FD_F32 || d == FD_F16 || d == FD_BF16 || d == FD_F64;
}

const char *
ft_shape_str(const FtView *v, char *buf, size_t n)
{
	size_t l = 0;

	l += (size_t)snprintf(buf, n, "[");
	for (int i = 0; i < v->ndim && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s%lld", i ? ", " : "", (long long)v->shape[i]);
	if (l < n)
		snprintf(buf + l, n - l, "]");
	return buf;
}

flyrt_status
ft_view(flyops_context *ctx, FtView *v, const DLTensor *t, const char *name, int output, int plan)
{
	const char *n = name;
	int64_t lo = 0, hi = 0, expect = 1;

	memset(v, 0, sizeof *v);
	v->name = name;
	if (!t)
		return FLYRT_SUCCESS;
	v->t = t;
	if (t->ndim < 0)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: ndim is %d", n, t->ndim);
	if (t->ndim > FT_MAX_DIMS)
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s: %d dimensions (flyc takes at most %d)",
		                  n, t->ndim, FT_MAX_DIMS);
	if (t->ndim > 0 && !t->shape)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: shape is NULL", n);
	if (t->dtype.lanes != 1)
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s: a vector dtype of %u lanes", n,
		                  (unsigned)t->dtype.lanes);
	for (size_t d = 1; d < sizeof dtypes / sizeof dtypes[0]; d++)
		if (dtypes[d].code == t->dtype.code && dtypes[d].bits == t->dtype.bits)
			v->dtype = (FtDtype)d;
	if (v->dtype == FD_NONE)
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s: DLPack dtype (code %u, %u bits) is not "
		                  "one flyc takes (f32 f16 bf16 f64 u8 i8 i16 i32 i64)", n,
		                  (unsigned)t->dtype.code, (unsigned)t->dtype.bits);
	v->elsize = dtypes[v->dtype].bits / 8;
	switch (t->device.device_type) {
	case kDLCPU: case kDLCUDAHost: case kDLROCMHost:
		break;
	case kDLROCM:
		if (flyrt_device_backend(ctx->dev) != FLYRT_BACKEND_HIP)
			return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s is a ROCm device tensor, but flyc's "
			                  "device is %s (FLY_DEVICE)", n, flyrt_device_name(ctx->dev));
		if (t->device.device_id != ctx->hip_ordinal)
			return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s is on ROCm device %d, flyc's device "
			                  "is HIP device %d", n, t->device.device_id, ctx->hip_ordinal);
		v->on_device = 1;
		break;
	default:
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "%s is on DLPack device type %d: flyc runs "
		                  "host tensors (staged, e.g. on the simulator) and ROCm tensors", n,
		                  (int)t->device.device_type);
	}
	v->ndim = t->ndim;
	v->numel = 1;
	for (int i = 0; i < t->ndim; i++) {
		if (t->shape[i] < 0)
			return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: negative extent %lld in dim %d",
			                  n, (long long)t->shape[i], i);
		v->shape[i] = t->shape[i];
		if (__builtin_mul_overflow(v->numel, t->shape[i], &v->numel))
			return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: more than 2^63 elements", n);
	}
	for (int i = t->ndim - 1; i >= 0; i--) {
		if (t->strides) {
			v->stride[i] = t->strides[i];
		} else {
			v->stride[i] = expect;
			if (v->numel && __builtin_mul_overflow(expect, t->shape[i], &expect))
				return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: too large", n);
		}
	}
	if (v->numel == 0)
		return FLYRT_SUCCESS;
	if (!t->data) {
		if (!(output && plan))
			return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: data is NULL", n);
		/* a plan's output to be allocated: compact, aligned, overlapping nothing */
		v->described = 1;
		expect = 1;
		for (int i = t->ndim - 1; i >= 0; i--) {
			v->stride[i] = expect;
			expect *= t->shape[i];
		}
		v->lo = 0;
		v->hi = v->numel * (int64_t)v->elsize;
		return FLYRT_SUCCESS;
	}
	for (int i = 0; i < t->ndim; i++) {
		int64_t reach;
		if (t->shape[i] <= 1)
			continue;
		if (__builtin_mul_overflow(t->shape[i] - 1, v->stride[i], &reach) ||
		    __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi))
			return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: its strides reach beyond 64-bit "
			                  "offsets", n);
	}
	if (__builtin_mul_overflow(lo, (int64_t)v->elsize, &v->lo) ||
	    __builtin_add_overflow(hi, 1, &hi) || __builtin_mul_overflow(hi, (int64_t)v->elsize, &v->hi))
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: its strides reach beyond 64-bit offsets", n);
	v->base = (uint64_t)(uintptr_t)t->data + t->byte_offset;
	if (v->base < (uint64_t)(uintptr_t)t->data || (v->lo < 0 && v->base < (uint64_t)-v->lo) ||
	    v->base + (uint64_t)v->hi < v->base)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: data + byte_offset + its strides leave "
		                  "the address space", n);
	return FLYRT_SUCCESS;
}

void
ft_permute(FtView *dst, const FtView *v, const int *perm)
{
	FtView src = *v;

	*dst = src;
	for (int i = 0; i < src.ndim; i++) {
		dst->shape[i] = src.shape[perm[i]];
		dst->stride[i] = src.stride[perm[i]];
	}
}

void
ft_narrow(FtView *dst, const FtView *v, int64_t start, int64_t len)
{
	FtView src = *v;
	int64_t lo = 0, hi = 0;

	*dst = src;
	dst->base = src.base + (uint64_t)(start * src.stride[0] * (int64_t)src.elsize);
	dst->shape[0] = len;
	dst->numel = src.shape[0] ? src.numel / src.shape[0] * len : 0;
	for (int i = 0; i < src.ndim; i++) {
		int64_t reach = (dst->shape[i] > 1 ? dst->shape[i] - 1 : 0) * src.stride[i];
		*(reach < 0 ? &lo : &hi) += reach;
	}
	dst->lo = lo * (int64_t)src.elsize;
	dst->hi = (hi + 1) * (int64_t)src.elsize;
}

int
ft_overlap(const FtView *a, const FtView *b)
{
	if (!a->t || !b->t || !a->numel || !b->numel || a->described || b->described ||
	    a->on_device != b->on_device)
		return 0;
	uint64_t a0 = a->base + (uint64_t)a->lo, a1 = a->base + (uint64_t)a->hi;
	uint64_t b0 = b->base + (uint64_t)b->lo, b1 = b->base + (uint64_t)b->hi;
	return a0 < b1 && b0 < a1;
}

int
ft_self_overlap(const FtView *v)
{
	int idx[FT_MAX_DIMS], n = 0;
	int64_t reach = 0;

	if (v->described || v->numel <= 1)
		return 0;
	for (int i = 0; i < v->ndim; i++) {
		if (v->shape[i] <= 1)
			continue;
		if (v->stride[i] == 0)
			return 1;
		idx[n++] = i;
	}
	/* mixed radix: every stride beyond what the smaller ones reach makes offsets unique */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && llabs(v->stride[idx[j]]) < llabs(v->stride[idx[j - 1]]); j--) {
			int tmp = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = tmp;
		}
	for (int i = 0; i < n; i++) {
		int64_t s = llabs(v->stride[idx[i]]), r;
		if (s <= reach)
			return 2;
		if (__builtin_mul_overflow(s, v->shape[idx[i]] - 1, &r) || __builtin_add_overflow(reach, r, &reach))
			return 2;
	}
	return 0;
}

int
ft_compact(const FtView *v)
{
	int64_t expect = 1;

	if (v->described || v->numel == 0)
		return 1;
	for (int i = v->ndim - 1; i >= 0; i--) {
		if (v->shape[i] != 1 && v->stride[i] != expect)
			return 0;
		expect *= v->shape[i];
	}
	return 1;
}

/* Call fn for each contiguous run of v's elements in row-major order: byte offset of
 * the run from v->base, and its length in bytes. */
typedef flyrt_status (*RunFn)(flyops_context *ctx, const FtView *v, int64_t off, size_t bytes,
                              void *state);

static flyrt_status
for_runs(flyops_context *ctx, const FtView *v, RunFn fn, void *state)
{
	int64_t run = 1, idx[FT_MAX_DIMS] = { 0 };
	int k = v->ndim;
	flyrt_status st;

	if (v->numel == 0)
		return FLYRT_SUCCESS;
	while (k > 0 && (v->shape[k - 1] == 1 || v->stride[k - 1] == run)) {
		run *= v->shape[k - 1];
		k--;
	}
	for (;;) {
		int64_t off = 0;
		for (int i = 0; i < k; i++)
			off += idx[i] * v->stride[i];
		if ((st = fn(ctx, v, off * (int64_t)v->elsize, (size_t)run * v->elsize, state)) != FLYRT_SUCCESS)
			return st;
		int i = k - 1;
		while (i >= 0 && ++idx[i] == v->shape[i])
			idx[i--] = 0;
		if (i < 0)
			return FLYRT_SUCCESS;
	}
}

typedef struct {
	uint8_t *buf;
	int to_host;
	const uint8_t *elem;     /* fill: one element */
	uint8_t *pattern;        /* fill: one run of elements */
} CopyState;

static flyrt_status
copy_run(flyops_context *ctx, const FtView *v, int64_t off, size_t bytes, void *state)
{
	CopyState *s = state;
	uint64_t addr = v->base + (uint64_t)off;
	flyrt_status st = FLYRT_SUCCESS;

	if (!v->on_device) {
		void *p = (void *)(uintptr_t)addr;
		if (s->to_host)
			memcpy(s->buf, p, bytes);
		else
			memmove(p, s->buf, bytes);
	} else if (s->to_host) {
		st = flyrt_memcpy_dtoh(ctx->dev, s->buf, addr, bytes);
	} else {
		st = flyrt_memcpy_htod(ctx->dev, addr, s->buf, bytes);
	}
	s->buf += bytes;
	return st;
}

flyrt_status
ft_copy(flyops_context *ctx, const FtView *v, void *buf, int to_host)
{
	CopyState s = { buf, to_host, NULL, NULL };

	if (v->described)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: data is NULL", v->name);
	return for_runs(ctx, v, copy_run, &s);
}

static flyrt_status
fill_run(flyops_context *ctx, const FtView *v, int64_t off, size_t bytes, void *state)
{
	CopyState *s = state;
	uint64_t addr = v->base + (uint64_t)off;

	if (!s->pattern) {
		if (!(s->pattern = malloc(bytes)))
			return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		for (size_t i = 0; i < bytes; i += v->elsize)
			memcpy(s->pattern + i, s->elem, v->elsize);
	}
	if (!v->on_device) {
		memcpy((void *)(uintptr_t)addr, s->pattern, bytes);
		return FLYRT_SUCCESS;
	}
	return flyrt_memcpy_htod(ctx->dev, addr, s->pattern, bytes);
}

flyrt_status
ft_fill(flyops_context *ctx, const FtView *v, const void *elem)
{
	CopyState s = { NULL, 0, elem, NULL };
	flyrt_status st;

	if (!v->t || v->numel == 0)
		return FLYRT_SUCCESS;
	if (v->described)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "%s: data is NULL", v->name);
	st = for_runs(ctx, v, fill_run, &s);
	free(s.pattern);
	return st;
}
