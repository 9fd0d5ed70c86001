/*
 * flyrt_sim.c — the simulator backend: libflyrt's calls mapped onto the gfx950
 * simulator's API (runtime/sim/sim.h). The simulator runs a launch to completion
 * inside sim_launch, so synchronize has nothing to wait for. Calls into one
 * simulator are serialized by a lock of this backend (the simulator may run a
 * launch on several threads of its own; SimConfig.nthreads, from FLY_SIM_THREADS).
 *
 * Environment: FLY_SIM_THREADS (default 1), FLY_SIM_RACECHECK=1, FLY_SIM_TRACE=1,
 * FLY_SIM_CUS (the CU count grid formulas see as device.cus; default the chip's),
 * FLY_SIM_XCDS (the XCD count flyrt_device_xcds gives: 1..64 dividing the CUs; default
 * the chip's, flyrt_xcds_derived),
 * FLY_SIM_TIMING=ROW|1, FLY_SIM_TIMING_SAMPLE=N, FLY_SIM_TIMING_ONLY=1 (timing on from
 * the start: flyrt_device_set_timing; docs/runtime.md, "Timing").
 *
 * Timing: with timing on (or a launch flagged FLYRT_LAUNCH_TIMING) the simulator's
 * timing model (runtime/sim/sim_timing.c) times the launch; this backend keeps the
 * last timed launch and the sums, since the simulator's own record is replaced by
 * every launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt_internal.h"

#include "sim/sim.h"


typedef struct {
	SimDevice *sim;
	pthread_mutex_t lock;
	int timing;                   /* timing on for every launch (flyrt_device_set_timing) */
	SimTimingConfig tcfg;         /* its settings; tcfg.device points at tdevice */
	char tdevice[16];
	int have_last;                /* a launch was timed since open / set_timing */
	SimTiming last;
	char last_kernel[64];
	uint64_t total_launches, total_cycles;
	double total_us;
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
            void **params, uint32_t flags)
{
	char err[512] = "";
	SimState *s;
	SimDevice *d;
	int rc, timed;

	if (dynamic_lds)
		return flyrt_fail(FLYRT_ERROR_INVALID_LAUNCH, "simulator: dynamic LDS is not supported "
		                  "(kernel '%s' asked for %u bytes)", k->co->name, dynamic_lds);
	d = sim_of(dev, &s);
	timed = s->timing || (flags & FLYRT_LAUNCH_TIMING);
	if (timed && !s->timing) {
		SimTimingConfig once = { NULL, 0, 0 };
		sim_set_timing(d, &once);
	}
	rc = sim_launch(d, k->mod->co, k->co, grid, block, kernarg, kernarg_size, err, sizeof err);
	if (timed && !s->timing)
		sim_set_timing(d, NULL);
	if (!rc && timed && sim_last_timing(d, &s->last) == 0) {
		s->have_last = 1;
		size_t kl = strnlen(k->co->name, sizeof s->last_kernel - 1);
		memcpy(s->last_kernel, k->co->name, kl);   /* cut to the field */
		s->last_kernel[kl] = 0;
		s->total_launches++;
		s->total_cycles += s->last.cycles;
		s->total_us += s->last.us;
	}
	pthread_mutex_unlock(&s->lock);
	if (rc)
		return flyrt_fail(FLYRT_ERROR_LAUNCH_FAILED, "simulator: kernel '%s' failed: %s",
		                  k->co->name, err[0] ? err : "(no message)");
	return FLYRT_SUCCESS;
}

/* The arch a timing row models ("" for an unknown row). */
static void
row_arch(const char *row, char *arch, size_t n)
{
	char json[1024];
	const char *p;
	arch[0] = 0;
	if (sim_timing_device_json(row, json, sizeof json) < 0 || !(p = strstr(json, "\"arch\": \"")))
		return;
	p += 9;
	size_t i = 0;
	while (p[i] && p[i] != '"' && i + 1 < n) {
		arch[i] = p[i];
		i++;
	}
	arch[i] = 0;
}

static flyrt_status
set_timing(flyrt_device *dev, SimState *s, const flyrt_timing_config *cfg)
{
	char arch[32], names[128] = "";
	size_t nl = 0;

	if (!cfg) {
		s->timing = 0;
		sim_set_timing(s->sim, NULL);
		s->have_last = 0;
		s->total_launches = s->total_cycles = 0;
		s->total_us = 0;
		return FLYRT_SUCCESS;
	}
	if (cfg->sample < 0)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "timing: sample %d (0: the default, or a "
		                  "count of workgroups)", cfg->sample);
	const char *row = cfg->device && *cfg->device ? cfg->device : NULL;
	if (row) {
		row_arch(row, arch, sizeof arch);
		if (!arch[0]) {
			for (int i = 0; sim_timing_device_name(i); i++)
				nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", i ? ", " : "",
				                       sim_timing_device_name(i));
			return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "timing: unknown device row '%s' (the "
			                  "rows: %s)", row, names);
		}
		if (strcmp(arch, dev->arch))
			return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "timing: device row %s models %s code, "
			                  "this simulated device is %s", row, arch, dev->arch);
	}
	snprintf(s->tdevice, sizeof s->tdevice, "%s", row ? row : "");
	s->tcfg.device = s->tdevice;
	s->tcfg.sample = cfg->sample;
	s->tcfg.timing_only = cfg->timing_only ? 1 : 0;
	if (sim_set_timing(s->sim, &s->tcfg))
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "timing: the simulator refused row '%s'",
		                  s->tdevice);
	s->timing = 1;
	s->have_last = 0;
	s->total_launches = s->total_cycles = 0;
	s->total_us = 0;
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_device_set_timing(flyrt_device *dev, const flyrt_timing_config *cfg)
{
	SimState *s;
	flyrt_status st;

	if (!dev)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_device_set_timing: null device");
	if (dev->kind != FLYRT_BACKEND_SIM)
		return flyrt_fail(FLYRT_ERROR_NEEDS_SIMULATOR, "timing needs a simulated device: %s is "
		                  "not one (open \"sim\", or FLY_DEVICE=sim)", dev->name);
	sim_of(dev, &s);
	st = set_timing(dev, s, cfg);
	pthread_mutex_unlock(&s->lock);
	if (st == FLYRT_SUCCESS)
		flyrt_clear_error();
	return st;
}

static flyrt_status
last_of(flyrt_device *dev, flyrt_timing *out, SimTiming *raw)
{
	SimState *s;

	if (!dev)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_last_timing: null device");
	if (dev->kind != FLYRT_BACKEND_SIM)
		return flyrt_fail(FLYRT_ERROR_NEEDS_SIMULATOR, "timing needs a simulated device: %s is "
		                  "not one (open \"sim\", or FLY_DEVICE=sim)", dev->name);
	sim_of(dev, &s);
	if (!s->have_last) {
		pthread_mutex_unlock(&s->lock);
		return flyrt_fail(FLYRT_ERROR_NOT_FOUND, "no launch on %s has been timed (turn timing "
		                  "on with flyrt_device_set_timing or FLY_SIM_TIMING, or launch with "
		                  "FLYRT_LAUNCH_TIMING)", dev->name);
	}
	const SimTiming *t = &s->last;
	memset(out, 0, sizeof *out);
	snprintf(out->device, sizeof out->device, "%s", t->device);
	snprintf(out->arch, sizeof out->arch, "%s", t->arch);
	snprintf(out->kernel, sizeof out->kernel, "%s", s->last_kernel);
	out->cus = t->cus;
	out->clock_mhz = t->clock_mhz;
	out->eff_clock_mhz = t->eff_clock_mhz;
	out->hbm_gbps = t->hbm_gbps;
	out->workgroups = t->workgroups;
	out->sampled_workgroups = t->sampled_workgroups;
	out->cycles = t->cycles;
	out->us = t->us;
	out->mfma_busy = t->mfma_busy;
	out->valu_busy = t->valu_busy;
	out->lds_busy = t->lds_busy;
	out->lds_bank_conflict_cycles = t->lds_bank_conflict_cycles;
	out->hbm_bytes = t->hbm_bytes;
	out->l2_bytes = t->l2_bytes;
	out->mfma_flops = t->mfma_flops;
	out->total_launches = s->total_launches;
	out->total_cycles = s->total_cycles;
	out->total_us = s->total_us;
	if (raw)
		*raw = *t;
	pthread_mutex_unlock(&s->lock);
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_last_timing(flyrt_device *dev, flyrt_timing *out)
{
	flyrt_status st;
	if (!out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_last_timing: null result");
	st = last_of(dev, out, NULL);
	if (st == FLYRT_SUCCESS)
		flyrt_clear_error();
	return st;
}

flyrt_status
flyrt_last_timing_json(flyrt_device *dev, char *buf, size_t n, size_t *len)
{
	flyrt_timing t;
	SimTiming raw;
	char sim[2048], extra[256];
	flyrt_status st = last_of(dev, &t, &raw);
	int a, b;

	if (st != FLYRT_SUCCESS)
		return st;
	a = sim_timing_json(&raw, sim, sizeof sim);
	if (a < 3 || (size_t)a >= sizeof sim)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "timing: JSON too long");
	/* the simulator's object ends "}}\n": insert the library's keys before its last '}' */
	while (a > 0 && sim[a - 1] != '}')
		a--;
	sim[--a] = 0;
	b = snprintf(extra, sizeof extra, ", \"kernel\": \"%s\", \"total_launches\": %llu, "
	             "\"total_cycles\": %llu, \"total_us\": %.3f}\n", t.kernel,
	             (unsigned long long)t.total_launches, (unsigned long long)t.total_cycles,
	             t.total_us);
	if (len)
		*len = (size_t)a + (size_t)b;
	if (!buf || n <= (size_t)a + (size_t)b)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "timing: buffer of %zu bytes, the JSON "
		                  "needs %zu", n, (size_t)a + (size_t)b + 1);
	memcpy(buf, sim, (size_t)a);
	memcpy(buf + a, extra, (size_t)b + 1);
	flyrt_clear_error();
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

/* The XCD count: FLY_SIM_XCDS when set (1..64, dividing the CUs; else the open fails),
 * or the chip's (gfx950 CUs / 32, gfx1201 1). */
static flyrt_status
sim_xcds(const char *arch, uint32_t cus, uint32_t *out)
{
	const char *v = getenv("FLY_SIM_XCDS");
	char *end;
	long n;

	*out = flyrt_xcds_derived(arch, cus);
	if (!v || !*v)
		return FLYRT_SUCCESS;
	n = strtol(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || n < 1 || n > 64)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "FLY_SIM_XCDS='%s': expected an XCD "
		                  "count, 1..64", v);
	if (cus % (uint32_t)n)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "FLY_SIM_XCDS=%ld does not divide the "
		                  "simulated %s's %u CUs (FLY_SIM_CUS)", n, arch, cus);
	*out = (uint32_t)n;
	return FLYRT_SUCCESS;
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

/* FLY_SIM_TIMING=ROW (or 1, the default row) turns timing on at open, with
 * FLY_SIM_TIMING_SAMPLE=N and FLY_SIM_TIMING_ONLY=1; a bad value fails the open. */
static flyrt_status
env_timing(flyrt_device *dev, SimState *s)
{
	const char *v = getenv("FLY_SIM_TIMING"), *n = getenv("FLY_SIM_TIMING_SAMPLE");
	const char *o = getenv("FLY_SIM_TIMING_ONLY");
	flyrt_timing_config c = { NULL, 0, 0 };
	flyrt_status st;

	if (!v || !*v || !strcmp(v, "0"))
		return FLYRT_SUCCESS;
	c.device = strcmp(v, "1") ? v : NULL;
	c.timing_only = o && !strcmp(o, "1");
	st = FLYRT_SUCCESS;
	if (n && *n) {
		char *end;
		long x = strtol(n, &end, 10);
		if (*end || x < 1 || x > 1 << 20)
			st = flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "FLY_SIM_TIMING_SAMPLE='%s': expected a "
			                "count of workgroups, 1..1048576", n);
		c.sample = (int)x;
	}
	if (st == FLYRT_SUCCESS)
		st = set_timing(dev, s, &c);
	if (st != FLYRT_SUCCESS) {
		char why[600];
		snprintf(why, sizeof why, "%s", flyrt_last_error());
		sim_close(dev);
		dev->be_state = NULL;
		return flyrt_fail(st, "FLY_SIM_TIMING=%s: %s", v, why);
	}
	return FLYRT_SUCCESS;
}

/* A simulated device is one processor: the code objects it loads must be for
 * it (flyrt_module.c compares the processor), as on hardware. */
flyrt_status
flyrt_sim_open(flyrt_device *dev, const char *arch)
{
	SimConfig cfg;
	SimState *s;
	flyrt_status st;

	if (!sim_arch_known(arch))
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE,
		                  "unknown simulated device 'sim:%s' (the simulator models gfx950 and gfx1201)", arch);
	dev->cus = flyrt_sim_cus(arch);
	if ((st = sim_xcds(arch, dev->cus, &dev->xcds)) != FLYRT_SUCCESS)
		return st;
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
	return env_timing(dev, s);
}
