/*
 * flyrt_launch.c — the launch checks (docs/runtime.md, "Launch checks"): a call against
 * a kernel's metadata, its `requires` predicates, the memory behind its pointer
 * arguments, its block and grid; then laying out the kernarg segment and launching.
 *
 * Order of checks (the first failure is returned; nothing runs before all pass):
 *   1. argument count, then each argument's type and size, null and misaligned pointers
 *      (FLYRT_ERROR_ARG_COUNT / ARG_TYPE / NULL_POINTER / MISALIGNED_POINTER);
 *   2. the requires predicates, in order (FLYRT_ERROR_UNSUPPORTED names the first false
 *      one; a division by zero, or a + - * result outside 64 bits, inside a predicate
 *      makes it false);
 *   3. pointer arguments whose memory is known — a flyrt_tensor, or an address inside a
 *      flyrt_malloc allocation — (FLYRT_ERROR_ARG_TYPE): the tensor's element type is the
 *      declared one; its strides are the declared layout's (both normalized: modes of
 *      extent 1 dropped, a mode merged into the next where it continues it row-major,
 *      so a contiguous (4, 1024) tensor matches (4096):(1), a transposed one does not);
 *      every offset the declared layout reaches for these scalar values lies inside the
 *      tensor's storage (or the tensor's own elements, or the allocation). Without a
 *      declared layout a tensor must be contiguous;
 *   4. block and grid (FLYRT_ERROR_INVALID_LAUNCH): a block given must equal the
 *      kernel's block(...); a grid given must equal its grid formula unless the caller
 *      sets FLYRT_LAUNCH_ANY_GRID; with neither given, the kernel's own; a formula that
 *      divides by zero, leaves 64 bits, uses device.cus on a device whose CU count is
 *      unknown or gives a count outside 1..2^32-1; a block over the kernel's
 *      max_flat_workgroup_size; LDS over the device's limit.
 *
 * Example: vadd(a, b, c: f32 (n):(1), n: i32) with n = 4096 and c a 1024-element
 * allocation: "kernel 'vadd': argument 2 (c) is too small: its layout (4096):(1)
 * reaches bytes [0, 16384) from its address; the allocation of 4096 bytes at
 * 0x102000 holds bytes [0, 4096) from there".
 *
 * Kernarg segment: .kernarg_segment_size bytes, zeroed; explicit arguments at their
 * note offsets; hidden arguments the runtime knows (block counts, group sizes,
 * remainders, grid dims, global offsets 0) filled, all others left 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt_internal.h"

static uint32_t
arg_type_size(flyrt_arg_type t)
{
	switch (t) {
#define X(name, text, size) case name: return size;
	FLYRT_ARG_TYPES(X)
#undef X
	default: return 0;
	}
}

static const char *
arg_name(const flyrt_kernel *k, int i)
{
	const char *n = k->info[i].name;
	return n && n[0] ? n : "?";
}

/* The address a pointer argument passes (0 for a malformed tensor). */
static flyrt_deviceptr
ptr_of(const flyrt_arg *a)
{
	if (a->type == FLYRT_ARG_TENSOR)
		return a->v.tensor ? a->v.tensor->data : 0;
	return a->v.ptr;
}

static flyrt_status
check_tensor_desc(const flyrt_kernel *k, int i, const flyrt_tensor *t)
{
	const char *kn = k->co->name, *an = arg_name(k, i);

	if (!t)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "kernel '%s': argument %d (%s): the "
		                  "flyrt_tensor is NULL", kn, i, an);
	if (t->ndim < -1 || t->ndim > FLYRT_MAX_RANK || (t->ndim > 0 && (!t->shape || !t->strides)))
		return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s): a tensor of "
		                  "%d modes%s (at most %d, with shape and strides)", kn, i, an, t->ndim,
		                  t->ndim > 0 ? " without shape or strides" : "", FLYRT_MAX_RANK);
	for (int d = 0; d < t->ndim; d++)
		if (t->shape[d] < 0)
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s): extent %d "
			                  "of the tensor is negative (%lld)", kn, i, an, d,
			                  (long long)t->shape[d]);
	return FLYRT_SUCCESS;
}

static flyrt_status
check_args(const flyrt_kernel *k, const flyrt_arg *args, int nargs, int64_t *vals)
{
	const char *kn = k->co->name;

	if (nargs != k->nargs)
		return flyrt_fail(FLYRT_ERROR_ARG_COUNT, "kernel '%s' takes %d arguments, got %d",
		                  kn, k->nargs, nargs);
	if (nargs && !args)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "kernel '%s': args is NULL", kn);
	for (int i = 0; i < nargs; i++) {
		const flyrt_arg *a = &args[i];
		const flyrt_arg_info *inf = &k->info[i];
		const char *an = arg_name(k, i);
		flyrt_deviceptr p;
		flyrt_status st;
		int ok;

		if ((unsigned)a->type >= FLYRT_ARG_TYPE_COUNT_)
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s) has an "
			                  "unknown type code %d", kn, i, an, (int)a->type);
		if (a->type == FLYRT_ARG_BYTES ? (a->size == 0 || !a->v.bytes)
		                               : a->size != arg_type_size(a->type))
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s): a %s "
			                  "value of %u bytes is malformed", kn, i, an,
			                  flyrt_arg_type_name(a->type), a->size);
		if (inf->type == FLYRT_ARG_PTR)
			ok = a->type == FLYRT_ARG_PTR || a->type == FLYRT_ARG_TENSOR;
		else if (inf->typed)
			ok = a->type == inf->type;
		else
			ok = a->type != FLYRT_ARG_PTR && a->type != FLYRT_ARG_TENSOR && a->size == inf->size;
		if (!ok)
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s) expects %s "
			                  "(%u bytes), got %s (%u bytes)", kn, i, an,
			                  flyrt_arg_type_name(inf->type), inf->size,
			                  flyrt_arg_type_name(a->type), a->size);
		vals[i] = 0;
		switch (a->type) {
		case FLYRT_ARG_TENSOR:
			if ((st = check_tensor_desc(k, i, a->v.tensor)) != FLYRT_SUCCESS)
				return st;
			/* fall through */
		case FLYRT_ARG_PTR:
			p = ptr_of(a);
			if (!p)
				return flyrt_fail(FLYRT_ERROR_NULL_POINTER, "kernel '%s': argument %d (%s) "
				                  "is a null pointer", kn, i, an);
			if (p % inf->align)
				return flyrt_fail(FLYRT_ERROR_MISALIGNED_POINTER, "kernel '%s': argument %d "
				                  "(%s) = 0x%llx is not aligned to %u bytes", kn, i, an,
				                  (unsigned long long)p, inf->align);
			vals[i] = (int64_t)p;
			break;
		case FLYRT_ARG_I32: vals[i] = a->v.i32; break;
		case FLYRT_ARG_U32: vals[i] = a->v.u32; break;
		case FLYRT_ARG_I64: vals[i] = a->v.i64; break;
		case FLYRT_ARG_U64: memcpy(&vals[i], &a->v.u64, 8); break;
		default: break;
		}
	}
	return FLYRT_SUCCESS;
}

static flyrt_status
check_requires(const flyrt_kernel *k, const int64_t *vals, uint32_t cus)
{
	for (int i = 0; k->meta && i < k->meta->nrequires; i++) {
		int64_t v;
		if (flyrt_rpn_eval_cus(&k->meta->requires[i], vals, cus, &v) || !v)
			return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "kernel '%s' does not support these "
			                  "arguments: requires %s", k->co->name,
			                  k->meta->requires[i].text);
	}
	return FLYRT_SUCCESS;
}

/* ---- layouts: evaluation, normalization, reach -------------------------------------- */

/* "(4096,8):(1,4096)" */
static const char *
fmt_layout(char *buf, size_t n, int rank, const int64_t *sh, const int64_t *st)
{
	size_t o = 0;

	for (int pass = 0; pass < 2; pass++) {
		o += (size_t)snprintf(buf + o, o < n ? n - o : 0, "%s(", pass ? ":" : "");
		for (int i = 0; i < rank; i++)
			o += (size_t)snprintf(buf + o, o < n ? n - o : 0, "%s%lld", i ? "," : "",
			                      (long long)(pass ? st[i] : sh[i]));
		o += (size_t)snprintf(buf + o, o < n ? n - o : 0, ")");
	}
	return buf;
}

/* Modes of extent 1 dropped, a mode merged into the next where it continues it
 * row-major (stride_i == extent_{i+1} * stride_{i+1}). Returns the modes left, or -1
 * when some extent is 0 (the layout reaches nothing). */
static int
normalize(int rank, const int64_t *sh, const int64_t *st, int64_t *osh, int64_t *ost)
{
	int n = 0;

	for (int i = 0; i < rank; i++)
		if (sh[i] <= 0)
			return -1;
	for (int i = 0; i < rank; i++) {
		int64_t prod, ext;
		if (sh[i] == 1)
			continue;
		if (n && !__builtin_mul_overflow(sh[i], st[i], &prod) && prod == ost[n - 1] &&
		    !__builtin_mul_overflow(osh[n - 1], sh[i], &ext)) {
			osh[n - 1] = ext;
			ost[n - 1] = st[i];
			continue;
		}
		osh[n] = sh[i];
		ost[n++] = st[i];
	}
	return n;
}

/* The least and greatest offsets (in elements) a layout reaches: 1, 0 when it
 * reaches nothing (an extent <= 0), -1 when they leave 64 bits. */
static int
reach(int rank, const int64_t *sh, const int64_t *st, int64_t *lo, int64_t *hi)
{
	*lo = *hi = 0;
	for (int i = 0; i < rank; i++)
		if (sh[i] <= 0)
			return 0;
	for (int i = 0; i < rank; i++) {
		int64_t t;
		if (__builtin_mul_overflow(sh[i] - 1, st[i], &t) ||
		    __builtin_add_overflow(t < 0 ? *lo : *hi, t, t < 0 ? lo : hi))
			return -1;
	}
	return 1;
}

/* Element offsets [lo, hi] of `bits`-bit elements as bytes from the pointer:
 * [*blo, *bhi) with blo <= 0. 0, or -1 beyond 64 bits. */
static int
to_bytes(int64_t lo, int64_t hi, unsigned bits, int64_t *blo, int64_t *bhi)
{
	int64_t a, b;

	if (__builtin_mul_overflow(lo, (int64_t)bits, &a) || __builtin_add_overflow(hi, 1, &b) ||
	    __builtin_mul_overflow(b, (int64_t)bits, &b) || __builtin_add_overflow(b, 7, &b))
		return -1;
	*blo = a >= 0 ? a / 8 : -((-(a + 1)) / 8) - 1;   /* floor(a / 8), a >= INT64_MIN + 1 */
	*bhi = b / 8;
	return 0;
}

/* Evaluate pointer argument i's declared layout: rank, or -1 (none: no error set),
 * or -2 with the error set. */
static int
eval_layout(const flyrt_kernel *k, int i, const int64_t *vals, int64_t *sh, int64_t *st)
{
	const MetaArg *ma = k->meta ? &k->meta->args[i] : NULL;

	if (!ma || ma->rank < 0)
		return -1;
	for (int d = 0; d < ma->rank; d++)
		if (flyrt_rpn_eval(&ma->shape[d], vals, &sh[d]) ||
		    flyrt_rpn_eval(&ma->stride[d], vals, &st[d])) {
			flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s): the declared "
			           "layout %s cannot be evaluated for these arguments (a division by zero "
			           "or a value beyond 64 bits)", k->co->name, i, arg_name(k, i),
			           ma->layout_text);
			return -2;
		}
	return ma->rank;
}

/* Bytes known to be usable around pointer argument i's address p: *before below it,
 * *after from it on, and what they are, for messages. 1 if known, 0 if not, -1 with
 * the error set. */
static int
known_memory(const flyrt_kernel *k, const FlyrtLaunchEnv *env, int i, const flyrt_arg *a,
             unsigned declared_bits, uint64_t *before, uint64_t *after, char *what, size_t wn)
{
	const flyrt_tensor *t = a->type == FLYRT_ARG_TENSOR ? a->v.tensor : NULL;
	flyrt_deviceptr p = ptr_of(a), base;
	uint64_t size;

	if (t && t->storage) {
		if (p < t->storage || p - t->storage > t->storage_bytes) {
			flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s): the data pointer "
			           "0x%llx lies outside the tensor's storage (%llu bytes at 0x%llx)",
			           k->co->name, i, arg_name(k, i), (unsigned long long)p,
			           (unsigned long long)t->storage_bytes, (unsigned long long)t->storage);
			return -1;
		}
		*before = p - t->storage;
		*after = t->storage_bytes - *before;
		snprintf(what, wn, "%s (%llu bytes at 0x%llx)", t->ndim >= 0 || (t->dtype && t->dtype[0])
		         ? "the tensor's storage" : "the buffer", (unsigned long long)t->storage_bytes,
		         (unsigned long long)t->storage);
		return 1;
	}
	if (t && t->ndim >= 0) {
		unsigned bits = flyrt_elem_bits(t->dtype) ? flyrt_elem_bits(t->dtype) : declared_bits;
		int64_t lo, hi, blo = 0, bhi = 0;
		int r = reach(t->ndim, t->shape, t->strides, &lo, &hi);
		if (r < 0 || (r > 0 && to_bytes(lo, hi, bits, &blo, &bhi))) {
			flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s): the tensor's "
			           "extent leaves 64 bits", k->co->name, i, arg_name(k, i));
			return -1;
		}
		*before = (uint64_t)-blo;
		*after = (uint64_t)bhi;
		snprintf(what, wn, "the tensor (its own elements; its storage is not known)");
		return 1;
	}
	if (env->dev && flyrt_alloc_find(env->dev, p, &base, &size)) {
		*before = p - base;
		*after = size - *before;
		snprintf(what, wn, "the allocation of %llu bytes at 0x%llx", (unsigned long long)size,
		         (unsigned long long)base);
		return 1;
	}
	return 0;
}

static int
fmt_modes(char *buf, size_t n, int rank, const int64_t *v)
{
	size_t o = (size_t)snprintf(buf, n, "(");
	for (int i = 0; i < rank; i++)
		o += (size_t)snprintf(buf + o, o < n ? n - o : 0, "%s%lld", i ? ", " : "", (long long)v[i]);
	snprintf(buf + o, o < n ? n - o : 0, ")");
	return 0;
}

static flyrt_status
check_tensor(const flyrt_kernel *k, const FlyrtLaunchEnv *env, int i, const flyrt_arg *a,
             const int64_t *vals)
{
	const char *kn = k->co->name, *an = arg_name(k, i);
	const flyrt_tensor *t = a->type == FLYRT_ARG_TENSOR ? a->v.tensor : NULL;
	const char *decl = k->info[i].elem_type ? k->info[i].elem_type : "";
	unsigned dbits = flyrt_elem_bits(decl);
	int64_t sh[FLYRT_MAX_RANK], st[FLYRT_MAX_RANK], nsh[FLYRT_MAX_RANK], nst[FLYRT_MAX_RANK];
	int64_t tsh[FLYRT_MAX_RANK], tst[FLYRT_MAX_RANK];
	char lay[400], what[160], b1[200], b2[200];
	int rank;

	if (t && t->dtype && t->dtype[0] && decl[0] && !flyrt_elem_accepts(decl, t->dtype))
		return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s) is a %s tensor, "
		                  "the kernel expects %s elements", kn, i, an, t->dtype, decl);
	rank = eval_layout(k, i, vals, sh, st);
	if (rank == -2)
		return FLYRT_ERROR_ARG_TYPE;
	if (rank >= 0)
		fmt_layout(lay, sizeof lay, rank, sh, st);
	if (t && t->ndim >= 0) {
		int tn = normalize(t->ndim, t->shape, t->strides, tsh, tst);
		if (rank >= 0 && dbits >= 8) {
			int dn = normalize(rank, sh, st, nsh, nst);
			/* no strides to compare when either side is empty or one element (then
			 * the extent check below decides) */
			int same = tn <= 0 || dn <= 0 || tn == dn;
			for (int d = 0; same && tn > 0 && dn > 0 && d < tn; d++)
				same = tst[d] == nst[d];
			if (!same) {
				fmt_modes(b1, sizeof b1, t->ndim, t->strides);
				fmt_modes(b2, sizeof b2, t->ndim, t->shape);
				return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s) has "
				                  "strides %s (shape %s); the kernel's layout %s needs other "
				                  "strides (pass a tensor laid out as declared, e.g. "
				                  "contiguous for a row-major layout)", kn, i, an, b1, b2, lay);
			}
		} else if (rank < 0 && tn > 0 && !(tn == 1 && tst[0] == 1)) {
			fmt_modes(b1, sizeof b1, t->ndim, t->strides);
			fmt_modes(b2, sizeof b2, t->ndim, t->shape);
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s) has strides "
			                  "%s (shape %s); the kernel declares no layout for it, so it takes "
			                  "a contiguous tensor", kn, i, an, b1, b2);
		}
	}
	if (rank >= 0 && dbits) {
		int64_t lo, hi, blo, bhi;
		uint64_t before, after;
		int r = reach(rank, sh, st, &lo, &hi), known;
		if (r < 0 || (r > 0 && to_bytes(lo, hi, dbits, &blo, &bhi)))
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s): the layout "
			                  "%s reaches offsets beyond 64 bits", kn, i, an, lay);
		if (r == 0)
			return FLYRT_SUCCESS;   /* reaches nothing */
		known = known_memory(k, env, i, a, dbits, &before, &after, what, sizeof what);
		if (known < 0)
			return FLYRT_ERROR_ARG_TYPE;
		if (known && ((uint64_t)-blo > before || (uint64_t)bhi > after))
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s) is too "
			                  "small: its layout %s (%s, %u bits each) reaches bytes [%lld, %lld) "
			                  "from its address; %s holds bytes [%s%llu, %llu) from there", kn, i,
			                  an, lay, decl, dbits, (long long)blo, (long long)bhi, what,
			                  before ? "-" : "", (unsigned long long)before,
			                  (unsigned long long)after);
	}
	return FLYRT_SUCCESS;
}

static flyrt_status
check_memory(const flyrt_kernel *k, const FlyrtLaunchEnv *env, const flyrt_arg *args,
             const int64_t *vals)
{
	for (int i = 0; i < k->nargs; i++) {
		flyrt_status st;
		if (k->info[i].type != FLYRT_ARG_PTR)
			continue;
		if ((st = check_tensor(k, env, i, &args[i], vals)) != FLYRT_SUCCESS)
			return st;
	}
	return FLYRT_SUCCESS;
}

/* ---- block and grid ------------------------------------------------------------------ */

/* The kernel's grid for these arguments into g, or an error naming why not. */
static flyrt_status
formula_grid(const flyrt_kernel *k, const FlyrtLaunchEnv *env, const int64_t *vals, uint32_t g[3])
{
	const char *kn = k->co->name, *dn = "xyz";

	for (int d = 0; d < 3; d++) {
		int64_t v;
		if (k->meta->grid[d].uses_cus && !env->cus)
			return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': the grid formula for %c "
			                  "uses device.cus, but this device's CU count is unknown", kn, dn[d]);
		if (flyrt_rpn_eval_cus(&k->meta->grid[d], vals, env->cus, &v))
			return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': the grid formula "
			                  "for %c divides by zero or leaves 64 bits", kn, dn[d]);
		if (v < 1 || v > UINT32_MAX)
			return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': the grid formula "
			                  "for %c gives %lld workgroups", kn, dn[d], (long long)v);
		g[d] = (uint32_t)v;
	}
	return FLYRT_SUCCESS;
}

static flyrt_status
resolve_dims(const flyrt_kernel *k, const FlyrtLaunchEnv *env, const flyrt_launch_config *cfg,
             const int64_t *vals, uint32_t grid[3], uint32_t block[3])
{
	const char *kn = k->co->name, *dn = "xyz";
	int has_block = k->meta && k->meta->has_block, has_grid = k->meta && k->meta->has_grid;
	uint64_t threads;
	flyrt_status st;

	if (cfg && (cfg->flags & ~(FLYRT_LAUNCH_ANY_GRID | FLYRT_LAUNCH_TIMING)))
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "kernel '%s': unknown launch flags 0x%x",
		                  kn, cfg->flags & ~(FLYRT_LAUNCH_ANY_GRID | FLYRT_LAUNCH_TIMING));
	if (cfg && cfg->block[0]) {
		for (int d = 0; d < 3; d++)
			block[d] = cfg->block[d] ? cfg->block[d] : 1;
		if (has_block && memcmp(block, k->meta->block, 3 * sizeof *block))
			return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': block %ux%ux%u differs "
			                  "from the kernel's block(%u, %u, %u); it runs only with the block "
			                  "it was compiled for", kn, block[0], block[1], block[2],
			                  k->meta->block[0], k->meta->block[1], k->meta->block[2]);
	} else if (has_block) {
		memcpy(block, k->meta->block, 3 * sizeof *block);
	} else {
		return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': no block size given and "
		                  "the kernel has no 'block' in .flyc.meta", kn);
	}
	if (cfg && cfg->grid[0]) {
		uint32_t g[3];
		for (int d = 0; d < 3; d++)
			grid[d] = cfg->grid[d] ? cfg->grid[d] : 1;
		if (has_grid && !(cfg->flags & FLYRT_LAUNCH_ANY_GRID)) {
			if ((st = formula_grid(k, env, vals, g)) != FLYRT_SUCCESS)
				return st;
			if (memcmp(g, grid, sizeof g))
				return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': grid %ux%ux%u "
				                  "differs from the kernel's grid formula, which gives %ux%ux%u "
				                  "for these arguments (FLYRT_LAUNCH_ANY_GRID, any_grid=True in "
				                  "Python or flyc-sim --any-grid launches another grid)", kn,
				                  grid[0], grid[1], grid[2], g[0], g[1], g[2]);
		}
	} else if (has_grid) {
		if ((st = formula_grid(k, env, vals, grid)) != FLYRT_SUCCESS)
			return st;
	} else {
		return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': no grid given and the "
		                  "kernel has no 'grid' formula in .flyc.meta", kn);
	}
	threads = (uint64_t)block[0] * block[1] * block[2];
	if (threads > 1024 || (k->co->max_flat_workgroup_size &&
	                       threads > k->co->max_flat_workgroup_size))
		return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': block %ux%ux%u has %llu "
		                  "threads, the kernel allows %u", kn, block[0], block[1], block[2],
		                  (unsigned long long)threads,
		                  k->co->max_flat_workgroup_size ? k->co->max_flat_workgroup_size : 1024);
	for (int d = 0; d < 3; d++)
		if ((uint64_t)grid[d] * block[d] > UINT32_MAX)
			return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': grid %c of %u "
			                  "workgroups of %u threads exceeds 2^32 work-items", kn, dn[d],
			                  grid[d], block[d]);
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_check_launch(const flyrt_kernel *k, const FlyrtLaunchEnv *env, const flyrt_launch_config *cfg,
                   const flyrt_arg *args, int nargs, uint32_t grid[3], uint32_t block[3])
{
	int64_t *vals;
	flyrt_status st;
	uint64_t lds;

	if (!k)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "launch: kernel is NULL");
	vals = calloc((size_t)k->nargs + 1, sizeof *vals);
	if (!vals)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	st = check_args(k, args, nargs, vals);
	if (st == FLYRT_SUCCESS)
		st = check_requires(k, vals, env->cus);
	if (st == FLYRT_SUCCESS)
		st = check_memory(k, env, args, vals);
	if (st == FLYRT_SUCCESS)
		st = resolve_dims(k, env, cfg, vals, grid, block);
	free(vals);
	if (st != FLYRT_SUCCESS)
		return st;
	lds = (uint64_t)k->co->group_segment_fixed_size + (cfg ? cfg->dynamic_lds : 0);
	if (k->meta && k->meta->lds > lds)
		lds = k->meta->lds;
	if (lds > env->lds_limit)
		return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s' needs %llu bytes of LDS, the "
		                  "device has %u", k->co->name, (unsigned long long)lds, env->lds_limit);
	return FLYRT_SUCCESS;
}

static flyrt_status
check(const flyrt_kernel *k, const flyrt_launch_config *cfg, const flyrt_arg *args, int nargs,
      uint32_t grid[3], uint32_t block[3])
{
	FlyrtLaunchEnv env;

	if (!k)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "launch: kernel is NULL");
	env.lds_limit = k->mod->dev->lds_limit;
	env.cus = k->mod->dev->cus;
	env.dev = k->mod->dev;
	return flyrt_check_launch(k, &env, cfg, args, nargs, grid, block);
}

flyrt_status
flyrt_kernel_check(const flyrt_kernel *k, const flyrt_launch_config *cfg, const flyrt_arg *args,
                   int nargs, flyrt_launch_config *resolved)
{
	uint32_t grid[3], block[3];
	flyrt_status st = check(k, cfg, args, nargs, grid, block);

	if (st != FLYRT_SUCCESS)
		return st;
	if (resolved) {
		memcpy(resolved->grid, grid, sizeof grid);
		memcpy(resolved->block, block, sizeof block);
		resolved->dynamic_lds = cfg ? cfg->dynamic_lds : 0;
		resolved->flags = cfg ? cfg->flags : 0;
	}
	flyrt_clear_error();
	return FLYRT_SUCCESS;
}

int
flyrt_kernel_arg_layout(const flyrt_kernel *k, int i, const flyrt_arg *args, int nargs,
                        int64_t *shape, int64_t *strides, int max)
{
	int64_t *vals, sh[FLYRT_MAX_RANK], st[FLYRT_MAX_RANK];
	int rank;

	if (!k || (nargs && !args) || max < 0 || (max && (!shape || !strides))) {
		flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_kernel_arg_layout: NULL parameter");
		return -1;
	}
	if (i < 0 || i >= k->nargs || nargs != k->nargs) {
		flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "kernel '%s' has %d arguments: asked for the "
		           "layout of %d with %d values", k->co->name, k->nargs, i, nargs);
		return -1;
	}
	if (!(vals = calloc((size_t)nargs + 1, sizeof *vals))) {
		flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	for (int a = 0; a < nargs; a++)
		switch (args[a].type) {
		case FLYRT_ARG_I32: vals[a] = args[a].v.i32; break;
		case FLYRT_ARG_U32: vals[a] = args[a].v.u32; break;
		case FLYRT_ARG_I64: vals[a] = args[a].v.i64; break;
		case FLYRT_ARG_U64: memcpy(&vals[a], &args[a].v.u64, 8); break;
		default: break;
		}
	rank = eval_layout(k, i, vals, sh, st);
	free(vals);
	if (rank == -1)
		flyrt_fail(FLYRT_ERROR_NOT_FOUND, "kernel '%s': argument %d (%s) has no declared layout "
		           "in .flyc.meta", k->co->name, i, arg_name(k, i));
	if (rank < 0)
		return -1;
	for (int d = 0; d < rank && d < max; d++) {
		shape[d] = sh[d];
		strides[d] = st[d];
	}
	flyrt_clear_error();
	return rank;
}

static void
put(uint8_t *seg, size_t segsize, uint32_t off, uint32_t size, uint64_t v)
{
	if ((uint64_t)off + size > segsize)
		return;
	for (uint32_t i = 0; i < size && i < 8; i++)
		seg[off + i] = (uint8_t)(v >> (8 * i));
}

static void
fill_hidden(const CoArg *a, uint8_t *seg, size_t segsize, const uint32_t grid[3],
            const uint32_t block[3])
{
	const char *vk = a->value_kind;
	static const char *xyz[] = { "_x", "_y", "_z" };

	for (int d = 0; d < 3; d++) {
		char name[64];
		snprintf(name, sizeof name, "hidden_block_count%s", xyz[d]);
		if (!strcmp(vk, name))
			put(seg, segsize, a->offset, a->size, grid[d]);
		snprintf(name, sizeof name, "hidden_group_size%s", xyz[d]);
		if (!strcmp(vk, name))
			put(seg, segsize, a->offset, a->size, block[d]);
		/* hidden_remainder_*: grid is whole workgroups, so 0; global offsets are 0 */
	}
	if (!strcmp(vk, "hidden_grid_dims"))
		put(seg, segsize, a->offset, a->size, grid[2] * block[2] > 1 ? 3 :
		                                      grid[1] * block[1] > 1 ? 2 : 1);
}

flyrt_status
flyrt_launch(const flyrt_kernel *k, const flyrt_launch_config *cfg, const flyrt_arg *args,
             int nargs)
{
	uint32_t grid[3], block[3];
	flyrt_status st = check(k, cfg, args, nargs, grid, block);
	size_t segsize;
	uint8_t *seg;
	void **params;

	if (st != FLYRT_SUCCESS)
		return st;
	if (cfg && (cfg->flags & FLYRT_LAUNCH_TIMING) && k->mod->dev->kind != FLYRT_BACKEND_SIM)
		return flyrt_fail(FLYRT_ERROR_NEEDS_SIMULATOR, "kernel '%s': FLYRT_LAUNCH_TIMING needs a "
		                  "simulated device (%s is not one; open \"sim\")", k->co->name,
		                  k->mod->dev->name);
	segsize = k->co->kernarg_segment_size;
	seg = calloc(segsize + 8, 1);
	params = calloc((size_t)k->nargs + 1, sizeof *params);
	if (!seg || !params) {
		free(seg);
		free(params);
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	for (int i = 0; i < k->nargs; i++) {
		const flyrt_arg_info *inf = &k->info[i];
		const flyrt_arg *a = &args[i];
		/* offset + size <= segsize was checked at load time */
		if (a->type == FLYRT_ARG_BYTES)
			memcpy(seg + inf->offset, a->v.bytes, inf->size);
		else if (a->type == FLYRT_ARG_TENSOR)
			memcpy(seg + inf->offset, &a->v.tensor->data, 8);
		else
			memcpy(seg + inf->offset, &a->v, a->size < inf->size ? a->size : inf->size);
		params[i] = seg + inf->offset;
	}
	for (int i = 0; i < k->co->nargs; i++)
		if (k->co->args[i].kind == CO_ARG_HIDDEN)
			fill_hidden(&k->co->args[i], seg, segsize, grid, block);
	st = k->mod->dev->be->launch(k->mod->dev, k, grid, block, cfg ? cfg->dynamic_lds : 0,
	                             seg, segsize, params, cfg ? cfg->flags : 0);
	free(seg);
	free(params);
	if (st == FLYRT_SUCCESS)
		flyrt_clear_error();
	return st;
}
