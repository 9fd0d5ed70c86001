/*
 * flyrt_module.c — loading modules (raw code objects and offload bundles), the
 * per-device module cache, and kernel/argument descriptions.
 *
 * Loading: sniff the bytes; for a bundle pick the entry for the device's processor;
 * parse the code object (codeobj.c, bounds-checked); refuse a code object built for
 * another processor; parse `.flyc.meta` when present and check it against the
 * AMDGPU note (same explicit arguments, compatible sizes); let the backend load it.
 * Every failure frees everything allocated so far.
 *
 * The cache is a list per device, under the device lock. It is keyed by a 64-bit
 * FNV-1a hash of the bytes given to the loader and confirmed with memcmp, so two
 * loads of the same image share one module (and one backend module).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "flyrt_internal.h"

static uint64_t
fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static void
module_free(flyrt_module *m)
{
	if (!m)
		return;
	m->dev->be->module_unload(m->dev, m);
	for (int i = 0; i < m->nkernels; i++)
		flyrt_kernel_release(&m->kernels[i]);
	free(m->kernels);
	flyrt_meta_free(&m->meta);
	co_free(m->co);
	free(m->image);
	free(m->key);
	free(m);
}

static uint32_t
type_size(flyrt_arg_type t)
{
	switch (t) {
#define X(name, text, size) case name: return size;
	FLYRT_ARG_TYPES(X)
#undef X
	default: return 0;
	}
}

void
flyrt_kernel_release(flyrt_kernel *k)
{
	free(k->explicit_idx);
	free(k->info);
	k->explicit_idx = NULL;
	k->info = NULL;
}

/* Describe kernel k's explicit arguments, merging the note with .flyc.meta. */
flyrt_status
flyrt_kernel_describe(flyrt_kernel *k, const CoKernel *ck, const MetaKernel *meta)
{
	int n = 0;

	k->co = ck;
	k->meta = meta;
	for (int i = 0; i < ck->nargs; i++)
		if (ck->args[i].kind != CO_ARG_HIDDEN)
			n++;
	k->nargs = n;
	k->explicit_idx = calloc((size_t)n + 1, sizeof *k->explicit_idx);
	k->info = calloc((size_t)n + 1, sizeof *k->info);
	if (!k->explicit_idx || !k->info)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory describing kernel '%s'", ck->name);
	if (k->meta && k->meta->nargs != n)
		return flyrt_fail(FLYRT_ERROR_INVALID_METADATA,
		                  "kernel '%s': .flyc.meta lists %d arguments, the AMDGPU note %d",
		                  ck->name, k->meta->nargs, n);
	n = 0;
	for (int i = 0; i < ck->nargs; i++) {
		const CoArg *a = &ck->args[i];
		flyrt_arg_info *inf = &k->info[n];
		if (a->kind == CO_ARG_HIDDEN)
			continue;
		if ((uint64_t)a->offset + a->size > ck->kernarg_segment_size)
			return flyrt_fail(FLYRT_ERROR_INVALID_IMAGE,
			                  "kernel '%s': argument %d (offset %u, size %u) lies outside the "
			                  "%u-byte kernarg segment", ck->name, n, a->offset, a->size,
			                  ck->kernarg_segment_size);
		k->explicit_idx[n] = i;
		inf->offset = a->offset;
		inf->size = a->size;
		inf->name = a->name;
		inf->elem_type = "";
		inf->align = 1;
		inf->layout_rank = -1;
		inf->layout = "";
		if (k->meta) {
			const MetaArg *ma = &k->meta->args[n];
			inf->name = ma->name;
			inf->type = ma->type;
			inf->typed = 1;
			if (ma->is_ptr) {
				inf->elem_type = ma->elem;
				inf->align = ma->align;
				inf->layout_rank = ma->rank;
				inf->layout = ma->layout_text ? ma->layout_text : "";
				if (a->kind != CO_ARG_GLOBAL_BUFFER || a->size != 8)
					return flyrt_fail(FLYRT_ERROR_INVALID_METADATA,
					                  "kernel '%s': argument '%s' is a pointer in .flyc.meta "
					                  "but %s of %u bytes in the AMDGPU note", ck->name,
					                  ma->name, a->value_kind, a->size);
			} else if (type_size(ma->type) != a->size) {
				return flyrt_fail(FLYRT_ERROR_INVALID_METADATA,
				                  "kernel '%s': argument '%s' is %s in .flyc.meta but has %u "
				                  "bytes in the AMDGPU note", ck->name, ma->name,
				                  flyrt_arg_type_name(ma->type), a->size);
			}
		} else if (a->kind == CO_ARG_GLOBAL_BUFFER && a->size == 8) {
			inf->type = FLYRT_ARG_PTR;
		} else if (a->kind == CO_ARG_BY_VALUE && a->size == 4) {
			inf->type = FLYRT_ARG_I32;
		} else if (a->kind == CO_ARG_BY_VALUE && a->size == 8) {
			inf->type = FLYRT_ARG_I64;
		} else {
			inf->type = FLYRT_ARG_BYTES;
		}
		n++;
	}
	return FLYRT_SUCCESS;
}

/* Pick the code object for the device and parse everything. */
static flyrt_status
module_build(flyrt_device *dev, const void *data, size_t size, flyrt_module *m)
{
	char err[512];
	const void *img = data;
	size_t imgsize = size;
	flyrt_status st;

	switch (co_sniff(data, size)) {
	case 1:
		break;
	case 2:
		if (co_bundle_find(data, size, dev->arch, &img, &imgsize, err, sizeof err)) {
			/* the reader says which: a corrupt bundle, or no entry for us */
			if (strstr(err, "has no code object for"))
				return flyrt_fail(FLYRT_ERROR_NO_BINARY_FOR_DEVICE, "%s", err);
			return flyrt_fail(FLYRT_ERROR_INVALID_IMAGE, "corrupt offload bundle: %s", err);
		}
		if (co_sniff(img, imgsize) != 1)
			return flyrt_fail(FLYRT_ERROR_INVALID_IMAGE,
			                  "the offload bundle's %s entry is not an AMDGPU code object", dev->arch);
		break;
	case 3:
		return flyrt_fail(FLYRT_ERROR_INVALID_IMAGE,
		                  "compressed offload bundles (CCOB) are not supported; unpack it with "
		                  "clang-offload-bundler -unbundle");
	default:
		return flyrt_fail(FLYRT_ERROR_INVALID_IMAGE,
		                  "not an AMDGPU code object or clang offload bundle (%zu bytes)", size);
	}
	m->image = malloc(imgsize ? imgsize : 1);
	if (!m->image)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory copying a code object");
	memcpy(m->image, img, imgsize);
	m->image_size = imgsize;
	m->co = co_parse(m->image, imgsize, err, sizeof err);
	if (!m->co)
		return flyrt_fail(FLYRT_ERROR_INVALID_IMAGE, "corrupt code object: %s", err);
	if (strcmp(m->co->processor, dev->arch))
		return flyrt_fail(FLYRT_ERROR_NO_BINARY_FOR_DEVICE,
		                  "code object is built for %s, the device is %s",
		                  m->co->processor[0] ? m->co->processor : "an unknown processor",
		                  dev->arch);
	if (m->co->flyc_meta &&
	    flyrt_meta_parse(m->co->flyc_meta, m->co->flyc_meta_size, &m->meta, err, sizeof err))
		return flyrt_fail(FLYRT_ERROR_INVALID_METADATA, "%s", err);
	for (int i = 0; i < m->meta.nkernels; i++)
		if (!co_find_kernel(m->co, m->meta.kernels[i].name))
			return flyrt_fail(FLYRT_ERROR_INVALID_METADATA,
			                  ".flyc.meta describes kernel '%s', which the code object lacks",
			                  m->meta.kernels[i].name);
	if (m->co->nkernels < 0)
		return flyrt_fail(FLYRT_ERROR_INVALID_IMAGE, "corrupt code object: negative kernel count");
	m->kernels = calloc((size_t)m->co->nkernels + 1, sizeof *m->kernels);
	if (!m->kernels)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	for (int i = 0; i < m->co->nkernels; i++) {
		m->nkernels = i + 1;
		m->kernels[i].mod = m;
		st = flyrt_kernel_describe(&m->kernels[i], &m->co->kernels[i],
		                           flyrt_meta_find(&m->meta, m->co->kernels[i].name));
		if (st != FLYRT_SUCCESS)
			return st;
	}
	return dev->be->module_load(dev, m);
}

static flyrt_status
load(flyrt_device *dev, const void *data, size_t size, int pin, flyrt_module **out)
{
	flyrt_module *m;
	uint64_t h;
	flyrt_status st;

	if (!out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "module load: out is NULL");
	*out = NULL;
	if (!dev || (!data && size))
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "module load: NULL device or data");
	pthread_mutex_lock(&dev->lock);
	/* generated launchers call get_cached with a static array on every launch: find it
	 * by address first, without hashing it again */
	for (m = dev->modules; pin && m; m = m->next)
		if (m->pinned_src == data && m->key_size == size) {
			pthread_mutex_unlock(&dev->lock);
			flyrt_clear_error();
			*out = m;
			return FLYRT_SUCCESS;
		}
	h = fnv1a(data, size);
	for (m = dev->modules; m; m = m->next)
		if (m->hash == h && m->key_size == size && !memcmp(m->key, data, size))
			break;
	if (m) {
		if (!pin)
			m->refs++;
		else if (!m->pinned) {
			m->pinned = 1;
			m->pinned_src = data;
			m->refs++;
		}
		pthread_mutex_unlock(&dev->lock);
		flyrt_clear_error();
		*out = m;
		return FLYRT_SUCCESS;
	}
	m = calloc(1, sizeof *m);
	if (!m) {
		pthread_mutex_unlock(&dev->lock);
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory loading a module");
	}
	m->dev = dev;
	m->hash = h;
	m->key = malloc(size ? size : 1);
	if (!m->key) {
		free(m);
		pthread_mutex_unlock(&dev->lock);
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory loading a module");
	}
	if (size)
		memcpy(m->key, data, size);
	m->key_size = size;
	st = module_build(dev, data, size, m);
	if (st != FLYRT_SUCCESS) {
		module_free(m);
		pthread_mutex_unlock(&dev->lock);
		return st;
	}
	m->refs = 1;
	m->pinned = pin;
	m->pinned_src = pin ? data : NULL;
	m->next = dev->modules;
	dev->modules = m;
	pthread_mutex_unlock(&dev->lock);
	flyrt_clear_error();
	*out = m;
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_module_load_data(flyrt_device *dev, const void *data, size_t size, flyrt_module **out)
{
	return load(dev, data, size, 0, out);
}

flyrt_status
flyrt_module_get_cached(flyrt_device *dev, const void *data, size_t size, flyrt_module **out)
{
	return load(dev, data, size, 1, out);
}

enum { MAX_FILE = 1 << 30 };

flyrt_status
flyrt_module_load_file(flyrt_device *dev, const char *path, flyrt_module **out)
{
	uint8_t *buf;
	size_t n;
	flyrt_status st;

	if (out)
		*out = NULL;
	if (!dev || !path || !out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_module_load_file: NULL parameter");
	if (!(buf = (uint8_t *)fio_read_file(path, MAX_FILE, &n))) {
		if (errno == ENOMEM)
			return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
		return flyrt_fail(FLYRT_ERROR_FILE, "cannot read '%s': %s", path,
		                  errno == EFBIG ? "over 1 GiB" : strerror(errno));
	}
	st = load(dev, buf, n, 0, out);
	free(buf);
	if (st != FLYRT_SUCCESS) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", flyrt_last_error());
		return flyrt_fail(st, "%s: %s", path, msg);
	}
	return st;
}

void
flyrt_module_unload(flyrt_module *m)
{
	flyrt_device *dev;
	flyrt_module **pp;

	if (!m)
		return;
	dev = m->dev;
	pthread_mutex_lock(&dev->lock);
	if (--m->refs > 0) {
		pthread_mutex_unlock(&dev->lock);
		return;
	}
	for (pp = &dev->modules; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	module_free(m);
	pthread_mutex_unlock(&dev->lock);
}

void
flyrt_module_free_all(flyrt_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	while (dev->modules) {
		flyrt_module *m = dev->modules;
		dev->modules = m->next;
		module_free(m);
	}
	pthread_mutex_unlock(&dev->lock);
}

/* ---- kernels --------------------------------------------------------------------- */

int flyrt_module_kernel_count(const flyrt_module *m) { return m ? m->nkernels : 0; }

flyrt_kernel *
flyrt_module_kernel_at(const flyrt_module *m, int i)
{
	return m && i >= 0 && i < m->nkernels ? &m->kernels[i] : NULL;
}

flyrt_status
flyrt_module_get_kernel(const flyrt_module *m, const char *name, flyrt_kernel **out)
{
	const CoKernel *ck;

	if (out)
		*out = NULL;
	if (!m || !name || !out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_module_get_kernel: NULL parameter");
	ck = co_find_kernel(m->co, name);
	for (int i = 0; ck && i < m->nkernels; i++)
		if (m->kernels[i].co == ck) {
			*out = &m->kernels[i];
			return FLYRT_SUCCESS;
		}
	return flyrt_fail(FLYRT_ERROR_NOT_FOUND, "no kernel named '%s' in the module (%d kernels)",
	                  name, m->nkernels);
}

const char *flyrt_kernel_name(const flyrt_kernel *k) { return k ? k->co->name : ""; }

const char *
flyrt_kernel_requires_text(const flyrt_kernel *k, int i)
{
	if (!k || !k->meta || i < 0 || i >= k->meta->nrequires)
		return NULL;
	return k->meta->requires[i].text;
}

flyrt_status
flyrt_kernel_get_info(const flyrt_kernel *k, flyrt_kernel_info *out)
{
	if (!k || !out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_kernel_get_info: NULL parameter");
	memset(out, 0, sizeof *out);
	out->name = k->co->name;
	out->nargs = k->nargs;
	out->kernarg_size = k->co->kernarg_segment_size;
	out->wavefront_size = k->co->wavefront_size;
	out->max_block_threads = k->co->max_flat_workgroup_size;
	out->static_lds = k->co->group_segment_fixed_size;
	out->scratch_per_thread = k->co->private_segment_fixed_size;
	out->sgprs = k->co->sgpr_count;
	out->vgprs = k->co->vgpr_count;
	out->agprs = k->co->agpr_count;
	if (k->meta) {
		out->has_meta = 1;
		if (k->meta->has_block)
			memcpy(out->block, k->meta->block, sizeof out->block);
		out->has_grid = k->meta->has_grid;
		out->nrequires = k->meta->nrequires;
	}
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_kernel_arg_info(const flyrt_kernel *k, int i, flyrt_arg_info *out)
{
	if (!k || !out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_kernel_arg_info: NULL parameter");
	if (i < 0 || i >= k->nargs)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "kernel '%s' has %d arguments, asked for %d",
		                  k->co->name, k->nargs, i);
	*out = k->info[i];
	return FLYRT_SUCCESS;
}
