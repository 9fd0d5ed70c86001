/*
 * flyrt_simdouble.h — a test double of the simulator API (runtime/sim/sim.h) for the
 * libflyrt unit tests: device memory is host memory handed out at fake addresses, and
 * sim_launch records what it was given (grid, block, kernarg bytes) instead of running
 * anything, so the tests can check the runtime's kernarg layout and checks exactly.
 * Included by one test program only; it defines the sim_* functions, so the linker
 * takes them instead of the real simulator's.
 */
#ifndef FLYRT_SIMDOUBLE_H
#define FLYRT_SIMDOUBLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj.h"

typedef struct SimDevice SimDevice;
typedef struct { int nthreads; int racecheck; int trace; } SimConfig;

enum { DBL_MAX_ALLOCS = 64, DBL_BASE = 0x100000 };

struct SimDevice {
	struct { uint64_t va, size; uint8_t *mem; } a[DBL_MAX_ALLOCS];
	uint64_t next;
};

static struct {
	int launches, fail_next, devices;
	uint32_t grid[3], block[3];
	uint8_t kernarg[1024];
	size_t kernarg_size;
	const CoKernel *k;
} dbl;

SimDevice *
sim_create(const SimConfig *cfg)
{
	SimDevice *d = calloc(1, sizeof *d);
	(void)cfg;
	if (d) {
		d->next = DBL_BASE;
		dbl.devices++;
	}
	return d;
}

void
sim_destroy(SimDevice *d)
{
	if (!d)
		return;
	for (int i = 0; i < DBL_MAX_ALLOCS; i++)
		free(d->a[i].mem);
	free(d);
	dbl.devices--;
}

uint64_t
sim_alloc(SimDevice *d, uint64_t bytes)
{
	for (int i = 0; i < DBL_MAX_ALLOCS; i++)
		if (!d->a[i].mem) {
			d->a[i].mem = calloc(1, bytes);
			if (!d->a[i].mem)
				return 0;
			d->a[i].va = d->next;
			d->a[i].size = bytes;
			d->next += (bytes + 0xfff) & ~0xfffull;
			return d->a[i].va;
		}
	return 0;
}

int
sim_free(SimDevice *d, uint64_t va)
{
	for (int i = 0; i < DBL_MAX_ALLOCS; i++)
		if (d->a[i].mem && d->a[i].va == va) {
			free(d->a[i].mem);
			d->a[i].mem = NULL;
			return 0;
		}
	return -1;
}

static uint8_t *
dbl_at(SimDevice *d, uint64_t va, uint64_t n)
{
	for (int i = 0; i < DBL_MAX_ALLOCS; i++)
		if (d->a[i].mem && va >= d->a[i].va && va - d->a[i].va + n <= d->a[i].size)
			return d->a[i].mem + (va - d->a[i].va);
	return NULL;
}

int
sim_write(SimDevice *d, uint64_t va, const void *src, uint64_t n)
{
	uint8_t *p = dbl_at(d, va, n);
	if (!p)
		return -1;
	memcpy(p, src, n);
	return 0;
}

int
sim_read(SimDevice *d, uint64_t va, void *dst, uint64_t n)
{
	uint8_t *p = dbl_at(d, va, n);
	if (!p)
		return -1;
	memcpy(dst, p, n);
	return 0;
}

int
sim_launch(SimDevice *d, const CoObject *co, const CoKernel *k, const uint32_t grid[3],
           const uint32_t block[3], const void *kernarg, size_t kernarg_size, char *err,
           size_t errlen)
{
	(void)d;
	(void)co;
	if (dbl.fail_next) {
		dbl.fail_next = 0;
		snprintf(err, errlen, "double: injected failure");
		return -1;
	}
	dbl.launches++;
	dbl.k = k;
	memcpy(dbl.grid, grid, sizeof dbl.grid);
	memcpy(dbl.block, block, sizeof dbl.block);
	dbl.kernarg_size = kernarg_size < sizeof dbl.kernarg ? kernarg_size : sizeof dbl.kernarg;
	memcpy(dbl.kernarg, kernarg, dbl.kernarg_size);
	return 0;
}

/* the architectures libflyrt may ask for (sim:gfx950, sim:gfx1201) */
int
sim_arch_known(const char *processor)
{
	return processor && (!strcmp(processor, "gfx950") || !strcmp(processor, "gfx1201"));
}

uint32_t
sim_arch_lds_bytes(const char *processor)
{
	return !sim_arch_known(processor) ? 0 : !strcmp(processor, "gfx1201") ? 65536 : 163840;
}

/* the timing model: never times a launch (flyrt_sim.c's timing calls link against these) */
int sim_set_timing(SimDevice *d, const void *cfg) { (void)d; (void)cfg; return 0; }
int sim_last_timing(const SimDevice *d, void *out) { (void)d; (void)out; return -1; }
int sim_timing_json(const void *t, char *buf, size_t n) { (void)t; return snprintf(buf, n, "{}\n"); }
const char *sim_timing_device_name(int i) { return i == 0 ? "mi355x" : NULL; }
int
sim_timing_device_json(const char *name, char *buf, size_t n)
{
	return name && !strcmp(name, "mi355x") ? snprintf(buf, n, "{\"arch\": \"gfx950\"}") : -1;
}

#endif
