/*
 * flyrt_core.c — status codes, the per-thread error message, opening devices,
 * device memory and synchronization. Modules live in flyrt_module.c, launches in
 * flyrt_launch.c, variant dispatch in flyrt_dispatch.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt_internal.h"

static _Thread_local char last_error[1024];

flyrt_status
flyrt_fail(flyrt_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return st;
}

void flyrt_clear_error(void) { last_error[0] = 0; }
const char *flyrt_last_error(void) { return last_error; }

const char *
flyrt_status_string(flyrt_status st)
{
	switch (st) {
#define X(name, value, msg) case name: return msg;
	FLYRT_STATUSES(X)
#undef X
	default: return "unknown status";
	}
}

const char *
flyrt_status_name(flyrt_status st)
{
	switch (st) {
#define X(name, value, msg) case name: return #name;
	FLYRT_STATUSES(X)
#undef X
	default: return "FLYRT_UNKNOWN_STATUS";
	}
}

/* ---- devices --------------------------------------------------------------------- */

static flyrt_status
open_kind(const char *kind, flyrt_device *dev)
{
	if (!strcmp(kind, "sim"))
		return flyrt_sim_open(dev, "gfx950");
	if (!strncmp(kind, "sim:", 4))   /* sim:gfx950, sim:gfx1201 */
		return flyrt_sim_open(dev, kind + 4);
	if (!strcmp(kind, "hip"))
		return flyrt_hip_open(dev, 0);
	if (!strncmp(kind, "hip:", 4)) {
		char *end;
		long n = strtol(kind + 4, &end, 10);
		if (kind[4] < '0' || kind[4] > '9' || *end || n > 1000000)
			return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "bad device '%s' (expected hip:N)", kind);
		return flyrt_hip_open(dev, (int)n);
	}
	if (!strcmp(kind, "auto")) {
		flyrt_status st = flyrt_hip_open(dev, 0);
		if (st == FLYRT_SUCCESS)
			return st;
		if (st != FLYRT_ERROR_NO_HIP_RUNTIME && st != FLYRT_ERROR_NO_DEVICE)
			return st;  /* a HIP device exists but failed: say so, do not hide it */
		return flyrt_sim_open(dev, "gfx950");
	}
	return flyrt_fail(FLYRT_ERROR_INVALID_VALUE,
	                  "unknown device kind '%s' (expected auto, hip, hip:N, sim, sim:gfx950 or sim:gfx1201)", kind);
}

flyrt_status
flyrt_device_open(const char *kind, flyrt_device **out)
{
	const char *env = getenv("FLY_DEVICE");
	flyrt_device *dev;
	flyrt_status st;

	if (!out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_device_open: out is NULL");
	*out = NULL;
	if (env && *env)
		kind = env;
	if (!kind)
		kind = "auto";
	dev = calloc(1, sizeof *dev);
	if (!dev)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory opening a device");
	if (pthread_mutex_init(&dev->lock, NULL)) {
		free(dev);
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "cannot create a device lock");
	}
	st = open_kind(kind, dev);
	if (st != FLYRT_SUCCESS) {
		pthread_mutex_destroy(&dev->lock);
		free(dev);
		return st;
	}
	flyrt_clear_error();
	*out = dev;
	return FLYRT_SUCCESS;
}

void
flyrt_device_close(flyrt_device *dev)
{
	if (!dev)
		return;
	flyrt_module_free_all(dev);
	dev->be->close(dev);
	pthread_mutex_destroy(&dev->lock);
	free(dev->allocs);
	free(dev);
}

flyrt_backend flyrt_device_backend(const flyrt_device *dev) { return dev ? dev->kind : 0; }
const char *flyrt_device_arch(const flyrt_device *dev) { return dev ? dev->arch : ""; }
const char *flyrt_device_name(const flyrt_device *dev) { return dev ? dev->name : ""; }
uint32_t flyrt_device_cus(const flyrt_device *dev) { return dev ? dev->cus : 0; }
uint32_t flyrt_device_xcds(const flyrt_device *dev) { return dev ? dev->xcds : 0; }

/* ---- memory ---------------------------------------------------------------------- */

/* The allocation table: every live flyrt_malloc allocation, sorted by base, under the
 * device lock; the launch checks look pointer arguments up in it. */

/* Index of the first allocation with base > p. */
static int
alloc_upper(const flyrt_device *dev, flyrt_deviceptr p)
{
	int lo = 0, hi = dev->nallocs;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (dev->allocs[mid].base <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
flyrt_alloc_find(flyrt_device *dev, flyrt_deviceptr p, flyrt_deviceptr *base, uint64_t *size)
{
	int i, found = 0;

	pthread_mutex_lock(&dev->lock);
	i = alloc_upper(dev, p) - 1;
	if (i >= 0 && p - dev->allocs[i].base < dev->allocs[i].size) {
		*base = dev->allocs[i].base;
		*size = dev->allocs[i].size;
		found = 1;
	}
	pthread_mutex_unlock(&dev->lock);
	return found;
}

flyrt_status
flyrt_malloc(flyrt_device *dev, size_t bytes, flyrt_deviceptr *out)
{
	flyrt_status st;
	int i;

	if (!dev || !out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_malloc: NULL device or out");
	*out = 0;
	if (bytes == 0)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_malloc: zero bytes");
	pthread_mutex_lock(&dev->lock);
	if (dev->nallocs == dev->capallocs) {
		int cap = dev->capallocs ? 2 * dev->capallocs : 16;
		void *na = realloc(dev->allocs, sizeof *dev->allocs * (size_t)cap);
		if (!na) {
			pthread_mutex_unlock(&dev->lock);
			return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		}
		dev->allocs = na;
		dev->capallocs = cap;
	}
	pthread_mutex_unlock(&dev->lock);
	st = dev->be->alloc(dev, bytes, out);
	if (st != FLYRT_SUCCESS)
		return st;
	pthread_mutex_lock(&dev->lock);
	if (dev->nallocs == dev->capallocs) {   /* another thread took the room */
		int cap = 2 * dev->capallocs;
		void *na = realloc(dev->allocs, sizeof *dev->allocs * (size_t)cap);
		if (!na) {
			pthread_mutex_unlock(&dev->lock);
			dev->be->free(dev, *out);
			*out = 0;
			return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		}
		dev->allocs = na;
		dev->capallocs = cap;
	}
	i = alloc_upper(dev, *out);
	memmove(&dev->allocs[i + 1], &dev->allocs[i], sizeof *dev->allocs * (size_t)(dev->nallocs - i));
	dev->allocs[i].base = *out;
	dev->allocs[i].size = bytes;
	dev->nallocs++;
	pthread_mutex_unlock(&dev->lock);
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_free(flyrt_device *dev, flyrt_deviceptr p)
{
	flyrt_status st;
	int i;

	if (!dev)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_free: NULL device");
	if (!p)
		return FLYRT_SUCCESS;
	st = dev->be->free(dev, p);
	if (st != FLYRT_SUCCESS)
		return st;
	pthread_mutex_lock(&dev->lock);
	i = alloc_upper(dev, p) - 1;
	if (i >= 0 && dev->allocs[i].base == p) {
		memmove(&dev->allocs[i], &dev->allocs[i + 1],
		        sizeof *dev->allocs * (size_t)(dev->nallocs - i - 1));
		dev->nallocs--;
	}
	pthread_mutex_unlock(&dev->lock);
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_memcpy_htod(flyrt_device *dev, flyrt_deviceptr dst, const void *src, size_t n)
{
	if (!dev || (n && (!dst || !src)))
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_memcpy_htod: NULL device or pointer");
	return n ? dev->be->htod(dev, dst, src, n) : FLYRT_SUCCESS;
}

flyrt_status
flyrt_memcpy_dtoh(flyrt_device *dev, void *dst, flyrt_deviceptr src, size_t n)
{
	if (!dev || (n && (!dst || !src)))
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_memcpy_dtoh: NULL device or pointer");
	return n ? dev->be->dtoh(dev, dst, src, n) : FLYRT_SUCCESS;
}

flyrt_status
flyrt_memcpy_dtod(flyrt_device *dev, flyrt_deviceptr dst, flyrt_deviceptr src, size_t n)
{
	if (!dev || (n && (!dst || !src)))
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_memcpy_dtod: NULL device or pointer");
	return n ? dev->be->dtod(dev, dst, src, n) : FLYRT_SUCCESS;
}

flyrt_status
flyrt_synchronize(flyrt_device *dev)
{
	if (!dev)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_synchronize: NULL device");
	return dev->be->sync(dev);
}
