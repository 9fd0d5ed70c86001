/*
 * hip_fake_test.c — libflyrt's HIP backend against fake_hip.so (FLYRT_HIP_LIBRARY):
 * arch detection from gcnArchName, the XCD count (KFD topology tests/runtime/kfd, or
 * derived), module load, kernelParams placement, memory copies.
 * usage: hip_fake_test CODEOBJ_GFX950 CODEOBJ_GFX1201   (prints PASS:/FAIL: lines; run
 * from the repository root)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt.h"

static int failures;

static void
report(int ok, const char *name, const char *detail)
{
	printf(ok ? "PASS: %s\n" : "FAIL: %s\n    %s\n", name, detail);
	failures += !ok;
}

int
main(int argc, char **argv)
{
	flyrt_device *dev;
	flyrt_module *mod;
	flyrt_kernel *k;
	flyrt_deviceptr da, db, dc;
	enum { N = 300 };
	float a[N], b[N], c[N];
	flyrt_status st;
	int ok = 1;

	if (argc != 3)
		return 2;
	/* the XCD count: num_xcc of the KFD node at the device's PCI location (the stand-in's
	 * 0000:c3:00.0: 4 in tests/runtime/kfd), else derived from its 256 CUs (8) */
	setenv("FLY_KFD_TOPOLOGY", "/nonexistent/kfd/topology", 1);
	st = flyrt_device_open("hip", &dev);
	report(st == FLYRT_SUCCESS && flyrt_device_xcds(dev) == 8 && flyrt_device_cus(dev) == 256,
	       "hip: XCDs derived from the CUs without a KFD topology", flyrt_last_error());
	if (st == FLYRT_SUCCESS)
		flyrt_device_close(dev);
	setenv("FLY_KFD_TOPOLOGY", "tests/runtime/kfd", 1);
	st = flyrt_device_open("hip", &dev);
	report(st == FLYRT_SUCCESS, "hip: fake device opens", flyrt_last_error());
	if (st != FLYRT_SUCCESS)
		return 1;
	report(!strcmp(flyrt_device_arch(dev), "gfx950") && flyrt_device_backend(dev) == FLYRT_BACKEND_HIP,
	       "hip: arch gfx950 read from gcnArchName", flyrt_device_arch(dev));
	report(flyrt_device_xcds(dev) == 4, "hip: XCDs from the KFD topology node at the PCI location",
	       "not 4");
	st = flyrt_module_load_file(dev, argv[2], &mod);
	report(st == FLYRT_ERROR_NO_BINARY_FOR_DEVICE, "hip: a gfx1201 object is refused", flyrt_last_error());
	st = flyrt_module_load_file(dev, argv[1], &mod);
	report(st == FLYRT_SUCCESS, "hip: module loads", flyrt_last_error());
	if (st != FLYRT_SUCCESS)
		return 1;
	flyrt_module_get_kernel(mod, "vadd", &k);
	for (int i = 0; i < N; i++) {
		a[i] = (float)i * 0.5f;
		b[i] = 100.0f - (float)i;
		c[i] = 0;
	}
	flyrt_malloc(dev, sizeof a, &da);
	flyrt_malloc(dev, sizeof b, &db);
	flyrt_malloc(dev, sizeof c, &dc);
	flyrt_memcpy_htod(dev, da, a, sizeof a);
	flyrt_memcpy_htod(dev, db, b, sizeof b);
	flyrt_arg args[] = { flyrt_arg_ptr(da), flyrt_arg_ptr(db), flyrt_arg_ptr(dc), flyrt_arg_i32(N) };
	st = flyrt_launch(k, NULL, args, 4);
	report(st == FLYRT_SUCCESS, "hip: launch through hipModuleLaunchKernel", flyrt_last_error());
	flyrt_synchronize(dev);
	flyrt_memcpy_dtoh(dev, c, dc, sizeof c);
	for (int i = 0; i < N; i++)
		ok &= c[i] == a[i] + b[i];
	report(ok, "hip: kernelParams carried every argument", "results differ");
	args[3] = flyrt_arg_i32(-1);
	report(flyrt_launch(k, NULL, args, 4) == FLYRT_ERROR_UNSUPPORTED,
	       "hip: requires is checked before HIP sees the launch", flyrt_last_error());
	flyrt_free(dev, da);
	flyrt_free(dev, db);
	flyrt_free(dev, dc);
	flyrt_module_unload(mod);
	flyrt_device_close(dev);
	return failures != 0;
}
