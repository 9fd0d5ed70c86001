/*
 * fake_hip.c — a stand-in for libamdhip64.so used through FLYRT_HIP_LIBRARY to test
 * libflyrt's HIP backend on a machine without ROCm. Built twice:
 *   -DFAKE_DEVICES=0: hipGetDeviceCount reports no device (the "no device" path);
 *   -DFAKE_DEVICES=1: one "gfx950:sramecc+:xnack-" device whose memory is host memory
 *     and whose hipModuleLaunchKernel runs the kernels "vadd", "saxpy_v4" and
 *     "saxpy_any" of tests/runtime/kernels/rt.cl on the CPU from the kernelParams it is
 *     given (so the tests see exactly what the backend passed).
 *   -DFAKE_BAD_PROPS: the device's properties do not hold a gcnArchName at offset 1160.
 * The device is at PCI 0000:c3:00.0, a gfx950 with 4 XCDs in tests/runtime/kfd.
 * Only the entry points libflyrt resolves are defined (the ROCm 6 C ABI).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_DEVICES
#define FAKE_DEVICES 1
#endif

static int inited, current = -1, loaded, launches;

int hipInit(unsigned flags) { (void)flags; inited = 1; return 0; }
int hipGetDeviceCount(int *n) { *n = inited ? FAKE_DEVICES : 0; return inited ? (FAKE_DEVICES ? 0 : 100) : 3; }
int hipSetDevice(int d) { if (d >= FAKE_DEVICES) return 101; current = d; return 0; }
/* LDS 160 KiB, 256 CUs, PCI 0000:c3:00.0 (bus, device, domain: tests/runtime/kfd's node 2) */
int
hipDeviceGetAttribute(int *v, int attr, int dev)
{
	(void)dev;
	*v = attr == 74 ? 160 * 1024 : attr == 63 ? 256 : attr == 67 ? 0xc3 : 0;
	return 0;
}
int
hipGetDevicePropertiesR0600(void *prop, int dev)
{
	(void)dev;
#ifdef FAKE_BAD_PROPS   /* a hipDeviceProp_t layout that does not match offset 1160 */
	memset(prop, 'x', 2048);
#else
	strcpy((char *)prop + 1160, "gfx950:sramecc+:xnack-");
#endif
	return 0;
}
int
hipModuleLoadData(void **mod, const void *image)
{
	const unsigned char *p = image;
	if (p[0] != 0x7f || p[1] != 'E')
		return 200;
	*mod = malloc(1);
	loaded++;
	return 0;
}
static char names[256][256];   /* a function per kernel of the loaded code objects */
static int nnames;

int
hipModuleGetFunction(void **fn, void *mod, const char *name)
{
	(void)mod;
	for (int i = 0; i < nnames; i++)
		if (!strcmp(names[i], name)) {
			*fn = names[i];
			return 0;
		}
	if (nnames == 256 || strlen(name) >= 256)
		return 500;
	strcpy(names[nnames], name);
	*fn = names[nnames++];
	return 0;
}
int hipModuleUnload(void *mod) { free(mod); loaded--; return 0; }
int hipMalloc(void **p, size_t n) { *p = calloc(1, n); return *p ? 0 : 2; }
int hipFree(void *p) { free(p); return 0; }
int hipMemcpy(void *d, const void *s, size_t n, int kind) { (void)kind; memmove(d, s, n); return 0; }
int hipDeviceSynchronize(void) { return current < 0 ? 1 : 0; }
const char *hipGetErrorString(int e) { return e == 200 ? "hipErrorInvalidImage" : "fake hip error"; }

int
hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                      unsigned by, unsigned bz, unsigned lds, void *stream, void **params,
                      void **extra)
{
	(void)gy; (void)gz; (void)by; (void)bz; (void)lds; (void)stream;
	if (extra || !params)
		return 1;
	launches++;
	if (!strcmp(fn, "vadd")) {
		const float *a = *(const float **)params[0], *b = *(const float **)params[1];
		float *c = *(float **)params[2];
		int n = *(int *)params[3];
		for (unsigned i = 0; i < gx * bx; i++)
			if ((int)i < n)
				c[i] = a[i] + b[i];
		return 0;
	}
	if (!strcmp(fn, "saxpy_v4") || !strcmp(fn, "saxpy_any")) {
		float *y = *(float **)params[0];
		const float *x = *(const float **)params[1];
		float a = *(float *)params[2];
		int n = *(int *)params[3], per = ((const char *)fn)[6] == 'v' ? 4 : 1;
		for (unsigned t = 0; t < gx * bx; t++)
			if ((int)(t * per) < n)
				for (int j = 0; j < per; j++)
					y[t * per + j] = a * x[t * per + j] + y[t * per + j];
		return 0;
	}
	return 98;
}

/* for the test: counters */
int fake_hip_loaded(void) { return loaded; }
int fake_hip_launches(void) { return launches; }
