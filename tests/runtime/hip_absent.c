/*
 * hip_absent.c — on a machine without ROCm the HIP backend must say so cleanly.
 * usage: hip_absent EXPECT   where EXPECT is "no-runtime" (nothing to dlopen; or a
 * HIP runtime present without a GPU, which is "no device" and also accepted) or
 * "no-device" (FLYRT_HIP_LIBRARY names a runtime reporting zero devices), or "bad-props"
 * (a runtime whose device properties hold no gcnArchName at the expected offset).
 * Prints PASS:/FAIL: lines.
 */
#include <stdio.h>
#include <string.h>

#include "flyrt.h"

int
main(int argc, char **argv)
{
	flyrt_device *dev = (flyrt_device *)&dev;   /* must be reset to NULL */
	const char *want = argc > 1 ? argv[1] : "no-runtime";
	int nodev = !strcmp(want, "no-device"), fails = 0;
	flyrt_status st = flyrt_device_open("hip", &dev);

	if (!strcmp(want, "bad-props")) {   /* a HIP device whose properties we cannot read */
		int ok = st == FLYRT_ERROR_BACKEND && dev == NULL &&
		         strstr(flyrt_last_error(), "gcnArchName") != NULL;
		printf("%s: hip: unreadable gcnArchName is a clear error\n", ok ? "PASS" : "FAIL");
		if (!ok)
			printf("    status %s, message '%s'\n", flyrt_status_name(st), flyrt_last_error());
		st = flyrt_device_open("auto", &dev);   /* a real device failing is not hidden */
		int ok2 = st == FLYRT_ERROR_BACKEND && dev == NULL;
		printf("%s: hip: auto reports a failing HIP device instead of falling back\n",
		       ok2 ? "PASS" : "FAIL");
		return !(ok && ok2);
	}
	int ok = nodev ? st == FLYRT_ERROR_NO_DEVICE
	               : st == FLYRT_ERROR_NO_HIP_RUNTIME || st == FLYRT_ERROR_NO_DEVICE;
	const char *msg = flyrt_last_error();

	ok = ok && dev == NULL && strstr(msg, nodev || st == FLYRT_ERROR_NO_DEVICE ? "no device"
	                                                                           : "no HIP runtime");
	printf(ok ? "PASS: hip: %s reported cleanly\n" : "FAIL: hip: %s reported cleanly\n", want);
	if (!ok) {
		printf("    status %s, message '%s'\n", flyrt_status_name(st), msg);
		fails++;
	}
	st = flyrt_device_open("auto", &dev);
	ok = st == FLYRT_SUCCESS && flyrt_device_backend(dev) == FLYRT_BACKEND_SIM;
	printf(ok ? "PASS: hip: auto falls back to the simulator (%s)\n"
	          : "FAIL: hip: auto falls back to the simulator (%s)\n", want);
	if (!ok) {
		printf("    status %s: %s\n", flyrt_status_name(st), flyrt_last_error());
		fails++;
	}
	if (st == FLYRT_SUCCESS)
		flyrt_device_close(dev);
	return fails != 0;
}
