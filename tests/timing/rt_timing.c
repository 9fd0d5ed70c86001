/*
 * rt_timing.c — libflyrt's timing API (flyrt.h "timing") on flyc's gemm kernel library.
 *
 *   rt_timing sim GEMM.hsaco FULL_CYCLES SAMPLED_CYCLES   the simulator: FLYRT_LAUNCH_TIMING,
 *             flyrt_device_set_timing, the sums, the JSON, the errors; FULL_CYCLES and
 *             SAMPLED_CYCLES are what flyc-sim --timing reports for gemm_nt_128x128 at
 *             512x512x256 with every workgroup timed and with --timing-sample=4
 *             --timing-only (the same model through two front ends must agree)
 *   rt_timing env GEMM.hsaco SAMPLED_CYCLES   FLY_SIM_TIMING* set by the caller: timing on
 *             from the open
 *   rt_timing env-bad                      FLY_SIM_TIMING names no row: the open fails
 *   rt_timing hip GEMM.hsaco               a (stand-in) HIP device: every call says
 *             FLYRT_ERROR_NEEDS_SIMULATOR
 *
 * Prints PASS:/FAIL: lines; exit 1 when any failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt.h"

static int failures;

static void
check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#include <stdarg.h>

static void
check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	if (ok) {
		printf("PASS: timing-api: %s\n", name);
		return;
	}
	printf("FAIL: timing-api: %s\n    ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures++;
}

enum { M = 512, N = 512, K = 256 };

static float
bf2f(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

typedef struct {
	flyrt_device *dev;
	flyrt_module *mod;
	flyrt_kernel *k;
	flyrt_deviceptr a, b, bias, c;
	uint16_t *ha, *hb, *hc;
	flyrt_arg args[9];
} Gemm;

static int
gemm_open(Gemm *g, flyrt_device *dev, const char *path)
{
	memset(g, 0, sizeof *g);
	g->dev = dev;
	if (flyrt_module_load_file(dev, path, &g->mod) ||
	    flyrt_module_get_kernel(g->mod, "gemm_nt_128x128", &g->k) ||
	    flyrt_malloc(dev, (size_t)M * K * 2, &g->a) || flyrt_malloc(dev, (size_t)N * K * 2, &g->b) ||
	    flyrt_malloc(dev, (size_t)N * 2, &g->bias) || flyrt_malloc(dev, (size_t)M * N * 2, &g->c)) {
		check(0, "load gemm.hsaco and allocate", "%s", flyrt_last_error());
		return -1;
	}
	g->ha = malloc((size_t)M * K * 2);
	g->hb = malloc((size_t)N * K * 2);
	g->hc = malloc((size_t)M * N * 2);
	uint32_t seed = 7;
	for (size_t i = 0; i < (size_t)(M + N) * K; i++) {
		seed = seed * 1664525u + 1013904223u;
		float v = (float)((int)(seed >> 24) - 128) / 64.0f;   /* exact in bf16 */
		uint32_t u;
		memcpy(&u, &v, 4);
		if (i < (size_t)M * K)
			g->ha[i] = (uint16_t)(u >> 16);
		else
			g->hb[i - (size_t)M * K] = (uint16_t)(u >> 16);
	}
	for (size_t i = 0; i < (size_t)M * N; i++)
		g->hc[i] = 0x7fc0;   /* NaN: every element must be written */
	flyrt_memcpy_htod(dev, g->a, g->ha, (size_t)M * K * 2);
	flyrt_memcpy_htod(dev, g->b, g->hb, (size_t)N * K * 2);
	flyrt_memcpy_htod(dev, g->c, g->hc, (size_t)M * N * 2);
	g->args[0] = flyrt_arg_ptr(g->a);
	g->args[1] = flyrt_arg_ptr(g->b);
	g->args[2] = flyrt_arg_ptr(g->bias);   /* has_bias = 0: never read */
	g->args[3] = flyrt_arg_ptr(g->c);
	g->args[4] = flyrt_arg_i32(M);
	g->args[5] = flyrt_arg_i32(N);
	g->args[6] = flyrt_arg_i32(K);
	g->args[7] = flyrt_arg_i32(0);
	g->args[8] = flyrt_arg_i32(8);         /* XCDs of the MI355X */
	return 0;
}

static void
gemm_close(Gemm *g)
{
	flyrt_free(g->dev, g->a);
	flyrt_free(g->dev, g->b);
	flyrt_free(g->dev, g->bias);
	flyrt_free(g->dev, g->c);
	flyrt_module_unload(g->mod);
	free(g->ha);
	free(g->hb);
	free(g->hc);
}

static flyrt_status
gemm_launch(Gemm *g, uint32_t flags)
{
	flyrt_launch_config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.flags = flags;
	return flyrt_launch(g->k, &cfg, g->args, 9);
}

/* the output against a CPU reference (bf16 products summed in double, within bf16) */
static int
gemm_correct(Gemm *g, char *why, size_t n)
{
	flyrt_memcpy_dtoh(g->dev, g->hc, g->c, (size_t)M * N * 2);
	for (int i = 0; i < M; i += 7)
		for (int j = 0; j < N; j += 5) {
			double s = 0;
			for (int k = 0; k < K; k++)
				s += (double)bf2f(g->ha[(size_t)i * K + k]) * bf2f(g->hb[(size_t)j * K + k]);
			double got = bf2f(g->hc[(size_t)i * N + j]);
			if (!(fabs(got - s) <= 1.0 / 128 * fabs(s) + 1e-3)) {
				snprintf(why, n, "C[%d][%d] = %g, expected %g", i, j, got, s);
				return 0;
			}
		}
	return 1;
}

static int
sim_tests(const char *path, unsigned long long full, unsigned long long sampled)
{
	flyrt_device *dev;
	flyrt_timing t;
	Gemm g;
	char why[256], json[4096];
	size_t need = 0;
	flyrt_status st;

	if (flyrt_device_open("sim", &dev)) {
		check(0, "open sim", "%s", flyrt_last_error());
		return 1;
	}
	st = flyrt_last_timing(dev, &t);
	check(st == FLYRT_ERROR_NOT_FOUND && strstr(flyrt_last_error(), "has been timed"),
	      "no timed launch yet: NOT_FOUND", "status %s: %s", flyrt_status_name(st), flyrt_last_error());
	if (gemm_open(&g, dev, path))
		return 1;

	/* a launch flagged FLYRT_LAUNCH_TIMING, every workgroup run and timed */
	st = gemm_launch(&g, FLYRT_LAUNCH_TIMING);
	check(st == FLYRT_SUCCESS, "FLYRT_LAUNCH_TIMING launch", "%s", flyrt_last_error());
	check(gemm_correct(&g, why, sizeof why), "timed launch computes the right product", "%s", why);
	st = flyrt_last_timing(dev, &t);
	check(st == FLYRT_SUCCESS && t.cycles == full && !strcmp(t.device, "mi355x") &&
	      !strcmp(t.kernel, "gemm_nt_128x128") && t.workgroups == 16 && t.sampled_workgroups == 16,
	      "flagged launch: flyc-sim's cycles, device, kernel, workgroups",
	      "status %d: cycles %llu (flyc-sim %llu), device %s, kernel %s, workgroups %llu/%llu", st,
	      (unsigned long long)t.cycles, full, t.device, t.kernel,
	      (unsigned long long)t.sampled_workgroups, (unsigned long long)t.workgroups);
	check(t.eff_clock_mhz > 0 && t.eff_clock_mhz <= t.clock_mhz &&
	      t.us >= t.cycles / t.clock_mhz - 1e-3 && t.us <= t.cycles / t.eff_clock_mhz + 1e-3 && t.cus == 256 &&
	      t.mfma_busy > 0 && t.mfma_busy <= 1 && t.valu_busy >= 0 && t.valu_busy <= 1 &&
	      t.hbm_bytes >= (uint64_t)(M * K + N * K + M * N) * 2 &&
	      fabs(t.mfma_flops - 2.0 * M * N * K) < 1,
	      "us between cycles / clock and cycles / clock under load, busy shares in 0..1, HBM bytes >= the operands, MFMA FLOP = 2MNK",
	      "us %g cycles %llu clock %g (%g under load) cus %d mfma %g valu %g hbm %llu flops %g", t.us,
	      (unsigned long long)t.cycles, t.clock_mhz, t.eff_clock_mhz, t.cus, t.mfma_busy, t.valu_busy,
	      (unsigned long long)t.hbm_bytes, t.mfma_flops);

	/* an unflagged launch with timing off is not timed: the record stays */
	st = gemm_launch(&g, 0);
	flyrt_last_timing(dev, &t);
	check(st == FLYRT_SUCCESS && t.total_launches == 1 && t.total_cycles == full,
	      "untimed launch leaves the record", "total_launches %llu", (unsigned long long)t.total_launches);

	/* timing on for the device: sampled, timing-only, mi350x (slower clock) */
	flyrt_timing_config c = { "mi355x", 4, 1 };
	st = flyrt_device_set_timing(dev, &c);
	check(st == FLYRT_SUCCESS, "set_timing mi355x sample 4 timing-only", "%s", flyrt_last_error());
	flyrt_last_timing(dev, &t);
	check(flyrt_last_timing(dev, &t) == FLYRT_ERROR_NOT_FOUND, "set_timing resets the record",
	      "still a record after set_timing");
	gemm_launch(&g, 0);
	gemm_launch(&g, 0);
	st = flyrt_last_timing(dev, &t);
	check(st == FLYRT_SUCCESS && t.cycles == sampled && t.sampled_workgroups == 4 &&
	      t.total_launches == 2 && t.total_cycles == 2 * sampled && fabs(t.total_us - 2 * t.us) < 1e-6,
	      "sampled timing-only: flyc-sim's cycles, 4 sampled, sums over 2 launches",
	      "cycles %llu (flyc-sim %llu), sampled %llu, launches %llu, total %llu",
	      (unsigned long long)t.cycles, sampled, (unsigned long long)t.sampled_workgroups,
	      (unsigned long long)t.total_launches, (unsigned long long)t.total_cycles);
	double us355 = t.us;
	flyrt_timing_config c350 = { "mi350x", 4, 1 };
	flyrt_device_set_timing(dev, &c350);
	gemm_launch(&g, 0);
	flyrt_last_timing(dev, &t);
	check(!strcmp(t.device, "mi350x") && t.clock_mhz == 2200.0 && t.us > us355,
	      "mi350x row: its clock, slower", "device %s clock %g us %g vs %g", t.device, t.clock_mhz,
	      t.us, us355);

	/* the JSON */
	st = flyrt_last_timing_json(dev, json, sizeof json, &need);
	check(st == FLYRT_SUCCESS && need == strlen(json) && json[need - 1] == '\n' &&
	      strstr(json, "\"device\": \"mi350x\"") && strstr(json, "\"kernel\": \"gemm_nt_128x128\"") &&
	      strstr(json, "\"stalls\": {") && strstr(json, "\"total_launches\": 1,") &&
	      strstr(json, "\"lds_bank_conflict_cycles\": "),
	      "JSON: flyc-sim's keys and the library's", "%s", json);
	st = flyrt_last_timing_json(dev, json, 16, &need);
	check(st == FLYRT_ERROR_INVALID_VALUE && need > 16, "JSON: a short buffer is refused with the length",
	      "status %d need %zu", st, need);

	/* errors */
	flyrt_timing_config bad = { "bogus", 0, 0 }, other = { "rx9070xt", 0, 0 }, neg = { NULL, -1, 0 };
	st = flyrt_device_set_timing(dev, &bad);
	check(st == FLYRT_ERROR_INVALID_VALUE && strstr(flyrt_last_error(), "unknown device row 'bogus'") &&
	      strstr(flyrt_last_error(), "mi355x"), "unknown row refused, rows named", "%d: %s", st,
	      flyrt_last_error());
	st = flyrt_device_set_timing(dev, &other);
	check(st == FLYRT_ERROR_INVALID_VALUE && strstr(flyrt_last_error(), "models gfx1201 code"),
	      "a row of another processor refused", "%d: %s", st, flyrt_last_error());
	st = flyrt_device_set_timing(dev, &neg);
	check(st == FLYRT_ERROR_INVALID_VALUE, "negative sample refused", "%d", st);
	flyrt_launch_config lc;
	memset(&lc, 0, sizeof lc);
	lc.flags = 4;
	st = flyrt_launch(g.k, &lc, g.args, 9);
	check(st == FLYRT_ERROR_INVALID_VALUE && strstr(flyrt_last_error(), "unknown launch flags 0x4"),
	      "unknown launch flag refused", "%d: %s", st, flyrt_last_error());
	check(flyrt_device_set_timing(NULL, &c) == FLYRT_ERROR_INVALID_VALUE &&
	      flyrt_last_timing(dev, NULL) == FLYRT_ERROR_INVALID_VALUE, "null arguments refused", "-");

	/* off: nothing timed, and the last record gone */
	flyrt_device_set_timing(dev, NULL);
	gemm_launch(&g, 0);
	check(flyrt_last_timing(dev, &t) == FLYRT_ERROR_NOT_FOUND, "timing off: no record", "a record");
	gemm_close(&g);
	flyrt_device_close(dev);
	return failures != 0;
}

static int
env_tests(const char *path, unsigned long long sampled)
{
	flyrt_device *dev;
	flyrt_timing t;
	Gemm g;

	if (flyrt_device_open("sim", &dev)) {
		check(0, "open sim with FLY_SIM_TIMING", "%s", flyrt_last_error());
		return 1;
	}
	if (gemm_open(&g, dev, path))
		return 1;
	flyrt_status st = gemm_launch(&g, 0);
	st = st ? st : flyrt_last_timing(dev, &t);
	check(st == FLYRT_SUCCESS && t.cycles == sampled && t.sampled_workgroups == 4 &&
	      !strcmp(t.device, "mi355x"),
	      "FLY_SIM_TIMING=mi355x FLY_SIM_TIMING_SAMPLE=4 FLY_SIM_TIMING_ONLY=1: timed from the open",
	      "status %d: %s; cycles %llu (flyc-sim %llu)", st, flyrt_last_error(),
	      (unsigned long long)t.cycles, sampled);
	gemm_close(&g);
	flyrt_device_close(dev);
	return failures != 0;
}

static int
hip_tests(const char *path)
{
	flyrt_device *dev;
	flyrt_timing t;
	flyrt_timing_config c = { NULL, 0, 0 };
	char json[64];
	flyrt_status st;

	if ((st = flyrt_device_open("hip", &dev))) {
		check(0, "open the stand-in HIP device", "%s", flyrt_last_error());
		return 1;
	}
	st = flyrt_device_set_timing(dev, &c);
	check(st == FLYRT_ERROR_NEEDS_SIMULATOR && strstr(flyrt_last_error(), "timing needs a simulated device"),
	      "HIP: set_timing says timing needs a simulated device", "%s: %s", flyrt_status_name(st),
	      flyrt_last_error());
	st = flyrt_last_timing(dev, &t);
	check(st == FLYRT_ERROR_NEEDS_SIMULATOR, "HIP: last_timing NEEDS_SIMULATOR", "%s", flyrt_status_name(st));
	st = flyrt_last_timing_json(dev, json, sizeof json, NULL);
	check(st == FLYRT_ERROR_NEEDS_SIMULATOR, "HIP: last_timing_json NEEDS_SIMULATOR", "%s", flyrt_status_name(st));
	check(!strcmp(flyrt_status_string(FLYRT_ERROR_NEEDS_SIMULATOR),
	              "timing needs a simulated device (the timing model is the simulator's)"),
	      "status string", "%s", flyrt_status_string(FLYRT_ERROR_NEEDS_SIMULATOR));
	Gemm g;
	if (gemm_open(&g, dev, path) == 0) {
		st = gemm_launch(&g, FLYRT_LAUNCH_TIMING);
		check(st == FLYRT_ERROR_NEEDS_SIMULATOR && strstr(flyrt_last_error(), "FLYRT_LAUNCH_TIMING"),
		      "HIP: a FLYRT_LAUNCH_TIMING launch NEEDS_SIMULATOR", "%s: %s", flyrt_status_name(st),
		      flyrt_last_error());
		gemm_close(&g);
	}
	flyrt_device_close(dev);
	return failures != 0;
}

int
main(int argc, char **argv)
{
	flyrt_device *dev;

	if (argc == 5 && !strcmp(argv[1], "sim"))
		return sim_tests(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "env"))
		return env_tests(argv[2], strtoull(argv[3], NULL, 10));
	if (argc == 2 && !strcmp(argv[1], "env-bad")) {
		flyrt_status st = flyrt_device_open("sim", &dev);
		check(st == FLYRT_ERROR_INVALID_VALUE && strstr(flyrt_last_error(), "FLY_SIM_TIMING=bogus") &&
		      strstr(flyrt_last_error(), "unknown device row"),
		      "FLY_SIM_TIMING=bogus: the open fails naming it", "%s: %s", flyrt_status_name(st),
		      flyrt_last_error());
		return failures != 0;
	}
	if (argc == 3 && !strcmp(argv[1], "hip"))
		return hip_tests(argv[2]);
	fprintf(stderr, "usage: rt_timing sim|env|env-bad|hip ...\n");
	return 2;
}
