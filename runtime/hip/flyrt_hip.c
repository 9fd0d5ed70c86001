/*
 * flyrt_hip.c — the HIP backend. libamdhip64 is resolved at run time with dlopen
 * (libamdhip64.so, then .so.7, then .so.6), so building flyc needs no ROCm. Every
 * entry point is one row of HIP_ENTRY_POINTS below; the struct of function pointers,
 * the dlsym loop and the error messages all come from that table (as Triton's AMD
 * driver does). Signatures are from ROCm's hip_runtime_api.h (docs/amdgpu-facts.md §6).
 *
 * The device's processor comes from hipDeviceProp_tR0600.gcnArchName, read at byte
 * offset 1160 of a zeroed 8 KiB buffer (computed from the ROCm 6 field list, not yet
 * verified on a ROCm install: the value is checked to look like "gfx..." before use).
 *
 * The XCD count is not among HIP's properties: it is num_xcc of the KFD topology node at
 * the device's PCI location (flyrt_kfd.c), else derived from the CU count. The location
 * is hipDeviceAttributePciBusId = 67, PciDeviceId = 68, PciDomainID = 69 (hipDeviceAttribute_t
 * in ROCm/HIP include/hip/hip_runtime_api.h, counted on from MultiprocessorCount = 63 and
 * agreeing with MaxSharedMemoryPerBlock = 74).
 *
 * FLYRT_HIP_LIBRARY=/path/lib.so replaces the search (tests use a stand-in library).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt_internal.h"

/* name, return type, parameters */
#define HIP_ENTRY_POINTS(X) \
	X(hipInit, int, (unsigned flags)) \
	X(hipGetDeviceCount, int, (int *count)) \
	X(hipSetDevice, int, (int dev)) \
	X(hipDeviceGetAttribute, int, (int *value, int attr, int dev)) \
	X(hipGetDevicePropertiesR0600, int, (void *prop, int dev)) \
	X(hipModuleLoadData, int, (void **mod, const void *image)) \
	X(hipModuleGetFunction, int, (void **fn, void *mod, const char *name)) \
	X(hipModuleLaunchKernel, int, (void *fn, unsigned gx, unsigned gy, unsigned gz, \
	                               unsigned bx, unsigned by, unsigned bz, unsigned lds, \
	                               void *stream, void **params, void **extra)) \
	X(hipMalloc, int, (void **p, size_t bytes)) \
	X(hipFree, int, (void *p)) \
	X(hipMemcpy, int, (void *dst, const void *src, size_t bytes, int kind)) \
	X(hipDeviceSynchronize, int, (void)) \
	X(hipModuleUnload, int, (void *mod)) \
	X(hipGetErrorString, const char *, (int err))

enum {
	HIP_SUCCESS = 0, HIP_ERROR_NO_DEVICE = 100, HIP_ERROR_INVALID_IMAGE = 200,
	HIP_ERROR_NO_BINARY_FOR_GPU = 209, HIP_ERROR_OUT_OF_MEMORY = 2,
	HIP_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 74, HIP_ATTR_MULTIPROCESSOR_COUNT = 63,
	HIP_ATTR_PCI_BUS_ID = 67, HIP_ATTR_PCI_DEVICE_ID = 68, HIP_ATTR_PCI_DOMAIN_ID = 69,
	HIP_MEMCPY_H2D = 1, HIP_MEMCPY_D2H = 2, HIP_MEMCPY_D2D = 3,
	PROP_BUFFER = 8192, PROP_GCN_ARCH_NAME = 1160, GCN_ARCH_NAME_LEN = 256,
};

typedef struct {
	void *lib;
	int ordinal;
#define X(name, ret, params) ret (*name) params;
	HIP_ENTRY_POINTS(X)
#undef X
} Hip;

static const char *
hip_msg(const Hip *h, int err)
{
	const char *s = h->hipGetErrorString ? h->hipGetErrorString(err) : NULL;
	return s ? s : "unknown HIP error";
}

static flyrt_status
hip_err(const Hip *h, flyrt_status st, int err, const char *what)
{
	return flyrt_fail(st, "HIP: %s failed: %s (hipError %d)", what, hip_msg(h, err), err);
}

/* Make the device current on this thread (HIP's current device is per thread). */
static int
use(const Hip *h)
{
	return h->hipSetDevice(h->ordinal);
}

static void
hip_close(flyrt_device *dev)
{
	Hip *h = dev->be_state;
	dlclose(h->lib);
	free(h);
}

static flyrt_status
hip_alloc(flyrt_device *dev, size_t bytes, flyrt_deviceptr *out)
{
	Hip *h = dev->be_state;
	void *p = NULL;
	int e = use(h);
	if (e == HIP_SUCCESS)
		e = h->hipMalloc(&p, bytes);
	if (e != HIP_SUCCESS)
		return hip_err(h, e == HIP_ERROR_OUT_OF_MEMORY ? FLYRT_ERROR_OUT_OF_MEMORY
		                                               : FLYRT_ERROR_BACKEND, e, "hipMalloc");
	*out = (flyrt_deviceptr)(uintptr_t)p;
	return FLYRT_SUCCESS;
}

static flyrt_status
hip_free(flyrt_device *dev, flyrt_deviceptr p)
{
	Hip *h = dev->be_state;
	int e = use(h);
	if (e == HIP_SUCCESS)
		e = h->hipFree((void *)(uintptr_t)p);
	return e == HIP_SUCCESS ? FLYRT_SUCCESS : hip_err(h, FLYRT_ERROR_BACKEND, e, "hipFree");
}

static flyrt_status
copy(flyrt_device *dev, void *dst, const void *src, size_t n, int kind)
{
	Hip *h = dev->be_state;
	int e = use(h);
	if (e == HIP_SUCCESS)
		e = h->hipMemcpy(dst, src, n, kind);
	return e == HIP_SUCCESS ? FLYRT_SUCCESS : hip_err(h, FLYRT_ERROR_BACKEND, e, "hipMemcpy");
}

static flyrt_status
hip_htod(flyrt_device *dev, flyrt_deviceptr dst, const void *src, size_t n)
{
	return copy(dev, (void *)(uintptr_t)dst, src, n, HIP_MEMCPY_H2D);
}

static flyrt_status
hip_dtoh(flyrt_device *dev, void *dst, flyrt_deviceptr src, size_t n)
{
	return copy(dev, dst, (const void *)(uintptr_t)src, n, HIP_MEMCPY_D2H);
}

static flyrt_status
hip_dtod(flyrt_device *dev, flyrt_deviceptr dst, flyrt_deviceptr src, size_t n)
{
	return copy(dev, (void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, HIP_MEMCPY_D2D);
}

static flyrt_status
hip_sync(flyrt_device *dev)
{
	Hip *h = dev->be_state;
	int e = use(h);
	if (e == HIP_SUCCESS)
		e = h->hipDeviceSynchronize();
	return e == HIP_SUCCESS ? FLYRT_SUCCESS
	                        : hip_err(h, FLYRT_ERROR_LAUNCH_FAILED, e, "hipDeviceSynchronize");
}

static void
hip_module_unload(flyrt_device *dev, flyrt_module *m)
{
	Hip *h = dev->be_state;
	if (m->be_mod && use(h) == HIP_SUCCESS)
		h->hipModuleUnload(m->be_mod);
	m->be_mod = NULL;
}

static flyrt_status
hip_module_load(flyrt_device *dev, flyrt_module *m)
{
	Hip *h = dev->be_state;
	int e = use(h);

	if (e == HIP_SUCCESS)
		e = h->hipModuleLoadData(&m->be_mod, m->image);
	if (e != HIP_SUCCESS) {
		m->be_mod = NULL;
		return hip_err(h, e == HIP_ERROR_INVALID_IMAGE ? FLYRT_ERROR_INVALID_IMAGE :
		                  e == HIP_ERROR_NO_BINARY_FOR_GPU ? FLYRT_ERROR_NO_BINARY_FOR_DEVICE :
		                  FLYRT_ERROR_BACKEND, e, "hipModuleLoadData");
	}
	for (int i = 0; i < m->nkernels; i++) {
		e = h->hipModuleGetFunction(&m->kernels[i].be_fn, m->be_mod, m->kernels[i].co->name);
		if (e != HIP_SUCCESS) {
			char what[CO_NAME_MAX + 32];
			snprintf(what, sizeof what, "hipModuleGetFunction(%s)", m->kernels[i].co->name);
			hip_module_unload(dev, m);
			return hip_err(h, FLYRT_ERROR_BACKEND, e, what);
		}
	}
	return FLYRT_SUCCESS;
}

static flyrt_status
hip_launch(flyrt_device *dev, const flyrt_kernel *k, const uint32_t grid[3],
           const uint32_t block[3], uint32_t dynamic_lds, void *kernarg, size_t kernarg_size,
           void **params, uint32_t flags)
{
	Hip *h = dev->be_state;
	int e = use(h);
	if (e == HIP_SUCCESS)
		e = h->hipModuleLaunchKernel(k->be_fn, grid[0], grid[1], grid[2], block[0], block[1],
		                             block[2], dynamic_lds, NULL, params, NULL);
	if (e != HIP_SUCCESS)
		return flyrt_fail(FLYRT_ERROR_LAUNCH_FAILED, "HIP: hipModuleLaunchKernel(%s) failed: "
		                  "%s (hipError %d)", k->co->name, hip_msg(h, e), e);
	return FLYRT_SUCCESS;
}

static const Backend hip_backend = {
	"hip", hip_close, hip_alloc, hip_free, hip_htod, hip_dtoh, hip_dtod, hip_sync,
	hip_module_load, hip_module_unload, hip_launch,
};

/* The device's XCDs: the KFD topology's count at its PCI location, else the derived one. */
static uint32_t
hip_xcds(const Hip *h, int ordinal, const char *arch, uint32_t cus)
{
	int dom = -1, bus = -1, pdev = -1;
	uint32_t x = 0;

	if (h->hipDeviceGetAttribute(&dom, HIP_ATTR_PCI_DOMAIN_ID, ordinal) == HIP_SUCCESS &&
	    h->hipDeviceGetAttribute(&bus, HIP_ATTR_PCI_BUS_ID, ordinal) == HIP_SUCCESS &&
	    h->hipDeviceGetAttribute(&pdev, HIP_ATTR_PCI_DEVICE_ID, ordinal) == HIP_SUCCESS &&
	    dom >= 0 && bus >= 0 && pdev >= 0)
		x = flyrt_kfd_xcds(flyrt_kfd_root(), (uint32_t)dom, (uint32_t)bus, (uint32_t)pdev);
	return x ? x : flyrt_xcds_derived(arch, cus);
}

static void *
open_library(char *why, size_t whylen)
{
	static const char *names[] = { "libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6" };
	const char *env = getenv("FLYRT_HIP_LIBRARY");
	void *lib;

	if (env && *env) {
		lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
		if (!lib)
			snprintf(why, whylen, "%s", dlerror());
		return lib;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if ((lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)))
			return lib;
	snprintf(why, whylen, "none of libamdhip64.so, libamdhip64.so.7, libamdhip64.so.6 "
	         "could be loaded");
	return NULL;
}

flyrt_status
flyrt_hip_open(flyrt_device *dev, int ordinal)
{
	char why[512] = "";
	Hip *h;
	int e, count = 0, lds = 0, cus = 0;
	unsigned char *prop;
	const char *arch;
	void *sym;

	h = calloc(1, sizeof *h);
	if (!h)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	h->ordinal = ordinal;
	h->lib = open_library(why, sizeof why);
	if (!h->lib) {
		free(h);
		return flyrt_fail(FLYRT_ERROR_NO_HIP_RUNTIME, "no HIP runtime: %s", why);
	}
#define X(name, ret, params) \
	sym = dlsym(h->lib, #name); \
	memcpy(&h->name, &sym, sizeof sym); \
	if (!sym) { \
		dlclose(h->lib); \
		free(h); \
		return flyrt_fail(FLYRT_ERROR_NO_HIP_RUNTIME, "no HIP runtime: the HIP library " \
		                  "lacks %s", #name); \
	}
	HIP_ENTRY_POINTS(X)
#undef X
	e = h->hipInit(0);
	if (e == HIP_SUCCESS)
		e = h->hipGetDeviceCount(&count);
	if (e != HIP_SUCCESS || count <= ordinal) {
		flyrt_status st;
		if (e != HIP_SUCCESS && e != HIP_ERROR_NO_DEVICE)
			st = flyrt_fail(FLYRT_ERROR_NO_DEVICE, "no device: HIP initialization failed: %s "
			                "(hipError %d)", hip_msg(h, e), e);
		else
			st = flyrt_fail(FLYRT_ERROR_NO_DEVICE, "no device: HIP reports %d device(s), "
			                "device %d was asked for", count, ordinal);
		dlclose(h->lib);
		free(h);
		return st;
	}
	prop = calloc(1, PROP_BUFFER);
	if (!prop) {
		dlclose(h->lib);
		free(h);
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	e = h->hipSetDevice(ordinal);
	if (e == HIP_SUCCESS)
		e = h->hipGetDevicePropertiesR0600(prop, ordinal);
	arch = (const char *)prop + PROP_GCN_ARCH_NAME;
	if (e != HIP_SUCCESS || !memchr(arch, 0, GCN_ARCH_NAME_LEN) || strncmp(arch, "gfx", 3)) {
		flyrt_status st = e != HIP_SUCCESS
			? hip_err(h, FLYRT_ERROR_BACKEND, e, "hipGetDevicePropertiesR0600")
			: flyrt_fail(FLYRT_ERROR_BACKEND, "HIP: gcnArchName of device %d does not look "
			             "like 'gfx...' at offset %d of hipDeviceProp_tR0600", ordinal,
			             PROP_GCN_ARCH_NAME);
		free(prop);
		dlclose(h->lib);
		free(h);
		return st;
	}
	snprintf(dev->name, sizeof dev->name, "HIP device %d (%s)", ordinal, arch);
	snprintf(dev->arch, sizeof dev->arch, "%.*s", (int)strcspn(arch, ":"), arch);
	free(prop);
	if (h->hipDeviceGetAttribute(&lds, HIP_ATTR_MAX_SHARED_MEMORY_PER_BLOCK, ordinal) !=
	    HIP_SUCCESS || lds <= 0)
		lds = 64 * 1024;
	dev->lds_limit = (uint32_t)lds;
	if (h->hipDeviceGetAttribute(&cus, HIP_ATTR_MULTIPROCESSOR_COUNT, ordinal) != HIP_SUCCESS ||
	    cus <= 0)
		cus = 0;   /* unknown: a grid formula using device.cus is then an error */
	dev->cus = (uint32_t)cus;
	dev->xcds = hip_xcds(h, ordinal, dev->arch, dev->cus);
	dev->be = &hip_backend;
	dev->kind = FLYRT_BACKEND_HIP;
	dev->be_state = h;
	return FLYRT_SUCCESS;
}
