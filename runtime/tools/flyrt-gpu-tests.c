/*
 * flyrt-gpu-tests — libflyrt on a real AMD GPU through HIP (`make check-gpu`).
 * Builds tests/runtime/kernels/rt.cl for the GPU's processor with the clang of the
 * LLVM flyc was built with, attaches rt.meta as .flyc.meta, and checks vadd (kernel
 * grid formula), requires -> UNSUPPORTED, tuning-database dispatch of the saxpy variants,
 * an offload bundle, and device-to-device copies against CPU references.
 * Without a HIP runtime or device it prints SKIP and exits 0. Run from the repository
 * root. Prints PASS:/FAIL:/SKIP: lines; exit status 1 if anything failed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyrt.h"

static int failures;

static void
report(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s: gpu: %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok) {
		printf("    ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		failures++;
	}
}

static int
sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	return system(cmd);
}

static unsigned rng = 99;
static float
frand(void)
{
	rng = rng * 1103515245u + 12345u;
	return (float)((rng >> 9) & 0xffff) / 8192.0f - 4.0f;
}

int
main(void)
{
	const char *src = "tests/runtime/kernels";
	char dir[] = "/tmp/flyrt-gpu-XXXXXX", path[512];
	flyrt_device *dev;
	flyrt_module *mod = NULL, *fat = NULL;
	flyrt_kernel *vadd = NULL, *chosen = NULL;
	flyrt_tuning *tune = NULL;
	flyrt_status st;
	enum { N = 100000 };
	static float a[N], b[N], c[N], y[N], yref[N];
	flyrt_deviceptr da = 0, db = 0, dc = 0;

	st = flyrt_device_open("hip", &dev);
	if (st == FLYRT_ERROR_NO_HIP_RUNTIME || st == FLYRT_ERROR_NO_DEVICE) {
		printf("SKIP: gpu: all (%s)\n", flyrt_last_error());
		return 0;
	}
	if (st != FLYRT_SUCCESS) {
		report(0, "open the HIP device", "%s: %s", flyrt_status_name(st), flyrt_last_error());
		return 1;
	}
	printf("# %s: %u CUs, %u XCDs\n", flyrt_device_name(dev), flyrt_device_cus(dev),
	       flyrt_device_xcds(dev));
	/* from the KFD topology (or derived): whole XCDs, partitions included */
	report(flyrt_device_xcds(dev) >= 1 && flyrt_device_xcds(dev) <= 64 &&
	       flyrt_device_cus(dev) % flyrt_device_xcds(dev) == 0, "the XCD count divides the CUs",
	       "%u XCDs, %u CUs", flyrt_device_xcds(dev), flyrt_device_cus(dev));
	if (access("tests/runtime/kernels/rt.cl", R_OK) || !mkdtemp(dir)) {
		printf("SKIP: gpu: all (run from the repository root)\n");
		flyrt_device_close(dev);
		return 0;
	}
	const char *arch = flyrt_device_arch(dev), *bin = FLY_LLVM_BINDIR;
	int built = !sh("%s/clang -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=%s -nogpulib "
	                "-O2 -cl-kernel-arg-info -c %s/rt.cl -o %s/k.o && %s/ld.lld -shared %s/k.o "
	                "-o %s/k0.hsaco && %s/llvm-objcopy --add-section=.flyc.meta=%s/rt.meta "
	                "%s/k0.hsaco %s/k.hsaco && : > %s/empty && %s/clang-offload-bundler -type=o "
	                "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--%s "
	                "-input=%s/empty -input=%s/k.hsaco -output=%s/fat.co",
	                bin, arch, src, dir, bin, dir, dir, bin, src, dir, dir, dir, bin, arch, dir,
	                dir, dir);
	report(built, "kernels build for the device's processor", "clang/ld.lld failed for %s", arch);
	if (!built)
		goto out;
	snprintf(path, sizeof path, "%s/k.hsaco", dir);
	st = flyrt_module_load_file(dev, path, &mod);
	report(st == FLYRT_SUCCESS, "module loads", "%s", flyrt_last_error());
	if (st != FLYRT_SUCCESS)
		goto out;
	snprintf(path, sizeof path, "%s/fat.co", dir);
	st = flyrt_module_load_file(dev, path, &fat);
	report(st == FLYRT_SUCCESS, "offload bundle loads", "%s", flyrt_last_error());
	flyrt_module_get_kernel(mod, "vadd", &vadd);

	for (int i = 0; i < N; i++) {
		a[i] = frand();
		b[i] = frand();
	}
	if (flyrt_malloc(dev, sizeof a, &da) || flyrt_malloc(dev, sizeof b, &db) ||
	    flyrt_malloc(dev, sizeof c, &dc)) {
		report(0, "device memory", "%s", flyrt_last_error());
		goto out;
	}
	flyrt_memcpy_htod(dev, da, a, sizeof a);
	flyrt_memcpy_htod(dev, db, b, sizeof b);
	flyrt_arg args[] = { flyrt_arg_ptr(da), flyrt_arg_ptr(db), flyrt_arg_ptr(dc), flyrt_arg_i32(N) };
	st = flyrt_launch(vadd, NULL, args, 4);
	if (st == FLYRT_SUCCESS)
		st = flyrt_synchronize(dev);
	report(st == FLYRT_SUCCESS, "vadd launches with its grid formula", "%s", flyrt_last_error());
	flyrt_memcpy_dtoh(dev, c, dc, sizeof c);
	int bad = -1;
	for (int i = 0; i < N && bad < 0; i++)
		if (c[i] != a[i] + b[i])
			bad = i;
	report(bad < 0, "vadd matches the CPU", "element %d: %g", bad, bad < 0 ? 0.0 : c[bad]);
	args[3] = flyrt_arg_i32(0);
	report(flyrt_launch(vadd, NULL, args, 4) == FLYRT_ERROR_UNSUPPORTED,
	       "requires failure is UNSUPPORTED", "%s", flyrt_last_error());

	/* dispatch: y = 2.5 x + y with x = a, y = b (copied on the device) */
	flyrt_memcpy_dtod(dev, dc, db, sizeof b);
	for (int pass = 0; pass < 2; pass++) {
		int n = pass ? 4097 : 4096;
		const char *want = pass ? "saxpy_any" : "saxpy_v4";
		flyrt_memcpy_dtod(dev, dc, db, sizeof b);
		for (int i = 0; i < N; i++)
			yref[i] = i < n ? 2.5f * a[i] + b[i] : b[i];
		if (!tune) {   /* the rows of tests/runtime/kernels/rt.tune.csv */
			flyrt_tuning_row r1 = { "*", "saxpy", "", "", "n>=1024", "saxpy_v4 saxpy_any", "", "", "" };
			flyrt_tuning_row r2 = { "*", "saxpy", "", "", "n<1024", "saxpy_any", "", "", "" };
			if (flyrt_tuning_new(&tune) || flyrt_tuning_add(tune, &r1) || flyrt_tuning_add(tune, &r2)) {
				report(0, "tuning database builds", "%s", flyrt_last_error());
				break;
			}
		}
		flyrt_arg xa[] = { flyrt_arg_ptr(dc), flyrt_arg_ptr(da), flyrt_arg_f32(2.5f), flyrt_arg_i32(n) };
		st = flyrt_dispatch(mod, tune, "saxpy", NULL, xa, 4, &chosen);
		if (st == FLYRT_SUCCESS)
			st = flyrt_synchronize(dev);
		report(st == FLYRT_SUCCESS && chosen && !strcmp(flyrt_kernel_name(chosen), want),
		       pass ? "dispatch falls back to saxpy_any (n % 4 != 0)" : "dispatch picks saxpy_v4",
		       "%s %s", flyrt_status_name(st), chosen ? flyrt_kernel_name(chosen) : flyrt_last_error());
		flyrt_memcpy_dtoh(dev, y, dc, sizeof y);
		bad = -1;
		for (int i = 0; i < N && bad < 0; i++)
			if (fabsf(y[i] - yref[i]) > 1e-5f * (1.0f + fabsf(yref[i])))
				bad = i;
		report(bad < 0, pass ? "saxpy_any matches the CPU" : "saxpy_v4 matches the CPU",
		       "element %d: %g, expected %g", bad, bad < 0 ? 0.0 : y[bad], bad < 0 ? 0.0 : yref[bad]);
	}
out:
	flyrt_tuning_destroy(tune);
	flyrt_free(dev, da);
	flyrt_free(dev, db);
	flyrt_free(dev, dc);
	flyrt_module_unload(fat);
	flyrt_module_unload(mod);
	flyrt_device_close(dev);
	sh("rm -rf %s", dir);
	return failures != 0;
}
