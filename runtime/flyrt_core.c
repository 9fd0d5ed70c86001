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
	free(dev);
}

flyrt_backend flyrt_device_backend(const flyrt_device *dev) { return dev ? dev->kind : 0; }
const char *flyrt_device_arch(const flyrt_device *dev) { return dev ? dev->arch : ""; }
const char *flyrt_device_name(const flyrt_device *dev) { return dev ? dev->name : ""; }

/* ---- memory ---------------------------------------------------------------------- */

flyrt_status
flyrt_malloc(flyrt_device *dev, size_t bytes, flyrt_deviceptr *out)
{
	if (!dev || !out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_malloc: NULL device or out");
	*out = 0;
	if (bytes == 0)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_malloc: zero bytes");
	return dev->be->alloc(dev, bytes, out);
}

flyrt_status
flyrt_free(flyrt_device *dev, flyrt_deviceptr p)
{
	if (!dev)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_free: NULL device");
	if (!p)
		return FLYRT_SUCCESS;
	return dev->be->free(dev, p);
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
