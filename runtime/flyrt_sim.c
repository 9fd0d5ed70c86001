/*
 * flyrt_sim.c — the simulator backend: libflyrt's calls mapped onto the gfx950
 * simulator's API (runtime/sim/sim.h). The simulator runs a launch to completion
 * inside sim_launch, so synchronize has nothing to wait for. Calls into one
 * simulator are serialized by a lock of this backend (the simulator may run a
 * launch on several threads of its own; SimConfig.nthreads, from FLY_SIM_THREADS).
 *
 * Environment: FLY_SIM_THREADS (default 1), FLY_SIM_RACECHECK=1, FLY_SIM_TRACE=1,
 * FLY_SIM_CUS (the CU count grid formulas see as device.cus; default the chip's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt_internal.h"

#include "sim/sim.h"


typedef struct {
	SimDevice *sim;
	pthread_mutex_t lock;
} SimState;

static SimDevice *
sim_of(flyrt_device *dev, SimState **st)
{
	*st = dev->be_state;
	pthread_mutex_lock(&(*st)->lock);
	return (*st)->sim;
}

static void
sim_close(flyrt_device *dev)
{
	SimState *s = dev->be_state;
	sim_destroy(s->sim);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static flyrt_status
sim_alloc_(flyrt_device *dev, size_t bytes, flyrt_deviceptr *out)
{
	SimState *s;
	SimDevice *d = sim_of(dev, &s);
	uint64_t va = sim_alloc(d, bytes);
	pthread_mutex_unlock(&s->lock);
	if (!va)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "simulator: cannot allocate %zu bytes", bytes);
	*out = va;
	return FLYRT_SUCCESS;
}

static flyrt_status
sim_free_(flyrt_device *dev, flyrt_deviceptr p)
{
	SimState *s;
	SimDevice *d = sim_of(dev, &s);
	int rc = sim_free(d, p);
	pthread_mutex_unlock(&s->lock);
	if (rc)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "simulator: 0x%llx is not an allocation",
		                  (unsigned long long)p);
	return FLYRT_SUCCESS;
}

static flyrt_status
sim_htod(flyrt_device *dev, flyrt_deviceptr dst, const void *src, size_t n)
{
	SimState *s;
	SimDevice *d = sim_of(dev, &s);
	int rc = sim_write(d, dst, src, n);
	pthread_mutex_unlock(&s->lock);
	if (rc)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "simulator: cannot write %zu bytes at "
		                  "0x%llx (outside device memory)", n, (unsigned long long)dst);
	return FLYRT_SUCCESS;
}

static flyrt_status
sim_dtoh(flyrt_device *dev, void *dst, flyrt_deviceptr src, size_t n)
{
	SimState *s;
	SimDevice *d = sim_of(dev, &s);
	int rc = sim_read(d, src, dst, n);
	pthread_mutex_unlock(&s->lock);
	if (rc)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "simulator: cannot read %zu bytes at "
		                  "0x%llx (outside device memory)", n, (unsigned long long)src);
	return FLYRT_SUCCESS;
}

static flyrt_status
sim_dtod(flyrt_device *dev, flyrt_deviceptr dst, flyrt_deviceptr src, size_t n)
{
	void *tmp = malloc(n);
	flyrt_status st;

	if (!tmp)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	st = sim_dtoh(dev, tmp, src, n);
	if (st == FLYRT_SUCCESS)
		st = sim_htod(dev, dst, tmp, n);
	free(tmp);
	return st;
}

static flyrt_status sim_sync(flyrt_device *dev) { return FLYRT_SUCCESS; }
static flyrt_status sim_module_load(flyrt_device *dev, flyrt_module *m) { return FLYRT_SUCCESS; }
static void sim_module_unload(flyrt_device *dev, flyrt_module *m) { }

static flyrt_status
sim_launch_(flyrt_device *dev, const flyrt_kernel *k, const uint32_t grid[3],
            const uint32_t block[3], uint32_t dynamic_lds, void *kernarg, size_t kernarg_size,
            void **params)
{
	char err[512] = "";
	SimState *s;
	SimDevice *d;
	int rc;

	if (dynamic_lds)
		return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "simulator: dynamic LDS is not supported "
		                  "(kernel '%s' asked for %u bytes)", k->co->name, dynamic_lds);
	d = sim_of(dev, &s);
	rc = sim_launch(d, k->mod->co, k->co, grid, block, kernarg, kernarg_size, err, sizeof err);
	pthread_mutex_unlock(&s->lock);
	if (rc)
		return flyrt_fail(FLYRT_ERROR_LAUNCH_FAILED, "simulator: kernel '%s' failed: %s",
		                  k->co->name, err[0] ? err : "(no message)");
	return FLYRT_SUCCESS;
}

static const Backend sim_backend = {
	"sim", sim_close, sim_alloc_, sim_free_, sim_htod, sim_dtoh, sim_dtod, sim_sync,
	sim_module_load, sim_module_unload, sim_launch_,
};

/* CUs of the chip the simulator stands for (MI355X 256, RX 9070 XT 64;
 * /work/shared/docs/amdgpu-facts.md), or FLY_SIM_CUS when set (1..65536). */
uint32_t
flyrt_sim_cus(const char *arch)
{
	const char *v = getenv("FLY_SIM_CUS");
	if (v && *v) {
		char *end;
		long n = strtol(v, &end, 10);
		if (!*end && n >= 1 && n <= 65536)
			return (uint32_t)n;
	}
	return !strcmp(arch, "gfx1201") ? 64 : 256;
}

static int
env_int(const char *name, int def)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	long n = strtol(v, NULL, 10);
	return n < 0 ? 0 : n > 256 ? 256 : (int)n;
}

/* A simulated device is one processor: the code objects it loads must be for
 * it (flyrt_module.c compares the processor), as on hardware. */
flyrt_status
flyrt_sim_open(flyrt_device *dev, const char *arch)
{
	SimConfig cfg;
	SimState *s;

	if (!sim_arch_known(arch))
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE,
		                  "unknown simulated device 'sim:%s' (the simulator models gfx950 and gfx1201)", arch);
	s = calloc(1, sizeof *s);
	if (!s)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	memset(&cfg, 0, sizeof cfg);
	cfg.nthreads = env_int("FLY_SIM_THREADS", 1);
	cfg.racecheck = env_int("FLY_SIM_RACECHECK", 0);
	cfg.trace = env_int("FLY_SIM_TRACE", 0);
	cfg.arch = arch;
	if (pthread_mutex_init(&s->lock, NULL)) {
		free(s);
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "cannot create a lock");
	}
	s->sim = sim_create(&cfg);
	if (!s->sim) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return flyrt_fail(FLYRT_ERROR_NO_DEVICE, "the simulator could not be created");
	}
	dev->be = &sim_backend;
	dev->kind = FLYRT_BACKEND_SIM;
	dev->be_state = s;
	dev->lds_limit = sim_arch_lds_bytes(arch);   /* 160 KiB on gfx950, 64 KiB on gfx1201 */
	snprintf(dev->arch, sizeof dev->arch, "%s", arch);
	snprintf(dev->name, sizeof dev->name, "simulator (%s)", arch);
	dev->cus = flyrt_sim_cus(dev->arch);
	return FLYRT_SUCCESS;
}
