/*
 * flyrt_launch.c — checking a call against a kernel's metadata, evaluating its
 * `requires` predicates and grid formula, laying out the kernarg segment, launching.
 *
 * Order of checks (the first failure is returned):
 *   1. argument count, then each argument's type and size, null and misaligned pointers
 *      (FLYRT_ERROR_ARG_COUNT / ARG_TYPE / NULL_POINTER / MISALIGNED_POINTER);
 *   2. the requires predicates, in order (FLYRT_ERROR_UNSUPPORTED names the first false
 *      one; a division by zero, or a + - * result outside 64 bits, inside a predicate
 *      makes it false);
 *   3. block and grid: given, or from .flyc.meta (FLYRT_ERROR_INVALID_LAUNCH when
 *      neither, when a formula divides by zero, leaves 64 bits or gives a count outside
 *      1..2^32-1, when the block exceeds the kernel's max_flat_workgroup_size, or LDS
 *      exceeds the device's limit).
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
		const char *an = inf->name && inf->name[0] ? inf->name : "?";
		int ok;

		if ((unsigned)a->type >= FLYRT_ARG_TYPE_COUNT_)
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s) has an "
			                  "unknown type code %d", kn, i, an, (int)a->type);
		if (a->type == FLYRT_ARG_BYTES ? (a->size == 0 || !a->v.bytes)
		                               : a->size != arg_type_size(a->type))
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s): a %s "
			                  "value of %u bytes is malformed", kn, i, an,
			                  flyrt_arg_type_name(a->type), a->size);
		if (inf->typed || inf->type == FLYRT_ARG_PTR)
			ok = a->type == inf->type;
		else
			ok = a->type != FLYRT_ARG_PTR && a->size == inf->size;
		if (!ok)
			return flyrt_fail(FLYRT_ERROR_ARG_TYPE, "kernel '%s': argument %d (%s) expects %s "
			                  "(%u bytes), got %s (%u bytes)", kn, i, an,
			                  flyrt_arg_type_name(inf->type), inf->size,
			                  flyrt_arg_type_name(a->type), a->size);
		vals[i] = 0;
		switch (a->type) {
		case FLYRT_ARG_PTR:
			if (!a->v.ptr)
				return flyrt_fail(FLYRT_ERROR_NULL_POINTER, "kernel '%s': argument %d (%s) "
				                  "is a null pointer", kn, i, an);
			if (a->v.ptr % inf->align)
				return flyrt_fail(FLYRT_ERROR_MISALIGNED_POINTER, "kernel '%s': argument %d "
				                  "(%s) = 0x%llx is not aligned to %u bytes", kn, i, an,
				                  (unsigned long long)a->v.ptr, inf->align);
			vals[i] = (int64_t)a->v.ptr;
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
check_requires(const flyrt_kernel *k, const int64_t *vals)
{
	for (int i = 0; k->meta && i < k->meta->nrequires; i++) {
		int64_t v;
		if (flyrt_rpn_eval(&k->meta->requires[i], vals, &v) || !v)
			return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "kernel '%s' does not support these "
			                  "arguments: requires %s", k->co->name,
			                  k->meta->requires[i].text);
	}
	return FLYRT_SUCCESS;
}

static flyrt_status
resolve_dims(const flyrt_kernel *k, const flyrt_launch_config *cfg, const int64_t *vals,
             uint32_t grid[3], uint32_t block[3])
{
	const char *kn = k->co->name, *dn = "xyz";
	uint64_t threads;

	if (cfg && cfg->block[0]) {
		for (int d = 0; d < 3; d++)
			block[d] = cfg->block[d] ? cfg->block[d] : 1;
	} else if (k->meta && k->meta->has_block) {
		memcpy(block, k->meta->block, 3 * sizeof *block);
	} else {
		return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': no block size given and "
		                  "the kernel has no 'block' in .flyc.meta", kn);
	}
	if (cfg && cfg->grid[0]) {
		for (int d = 0; d < 3; d++)
			grid[d] = cfg->grid[d] ? cfg->grid[d] : 1;
	} else if (k->meta && k->meta->has_grid) {
		for (int d = 0; d < 3; d++) {
			int64_t v;
			if (flyrt_rpn_eval(&k->meta->grid[d], vals, &v))
				return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': the grid formula "
				                  "for %c divides by zero or leaves 64 bits", kn, dn[d]);
			if (v < 1 || v > UINT32_MAX)
				return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s': the grid formula "
				                  "for %c gives %lld workgroups", kn, dn[d], (long long)v);
			grid[d] = (uint32_t)v;
		}
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

static flyrt_status
check(const flyrt_kernel *k, const flyrt_launch_config *cfg, const flyrt_arg *args, int nargs,
      uint32_t grid[3], uint32_t block[3])
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
		st = check_requires(k, vals);
	if (st == FLYRT_SUCCESS)
		st = resolve_dims(k, cfg, vals, grid, block);
	free(vals);
	if (st != FLYRT_SUCCESS)
		return st;
	lds = (uint64_t)k->co->group_segment_fixed_size + (cfg ? cfg->dynamic_lds : 0);
	if (k->meta && k->meta->lds > lds)
		lds = k->meta->lds;
	if (lds > k->mod->dev->lds_limit)
		return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "kernel '%s' needs %llu bytes of LDS, the "
		                  "device has %u", k->co->name, (unsigned long long)lds,
		                  k->mod->dev->lds_limit);
	return FLYRT_SUCCESS;
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
	}
	flyrt_clear_error();
	return FLYRT_SUCCESS;
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
		else
			memcpy(seg + inf->offset, &a->v, a->size < inf->size ? a->size : inf->size);
		params[i] = seg + inf->offset;
	}
	for (int i = 0; i < k->co->nargs; i++)
		if (k->co->args[i].kind == CO_ARG_HIDDEN)
			fill_hidden(&k->co->args[i], seg, segsize, grid, block);
	st = k->mod->dev->be->launch(k->mod->dev, k, grid, block, cfg ? cfg->dynamic_lds : 0,
	                             seg, segsize, params);
	free(seg);
	free(params);
	if (st == FLYRT_SUCCESS)
		flyrt_clear_error();
	return st;
}
