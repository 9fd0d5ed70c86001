/*
 * flyrt_api.c — tests of libflyrt's C API on the simulator backend with a test double
 * of the simulator (flyrt_simdouble.h): opening devices (and the HIP backend's clean
 * refusal here), device memory, loading raw code objects and bundles built by clang-22
 * at test time, arch mismatches, .flyc.meta, argument checks, requires, grid
 * formulas, the kernarg layout handed to the simulator, variant dispatch and the
 * thread-safe module cache; the launch checks (block, grid and FLYRT_LAUNCH_ANY_GRID,
 * device.cus, tensors' element types, strides and extents, allocations). Kernels:
 * tests/runtime/kernels/rt.cl (+ rt.meta, and layouts.meta written here); run from the
 * repository root (scripts/check.sh does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include <cmocka.h>

#include "fileio.h"
#include "flyrt.h"
#include "flyrt_simdouble.h"

static char dir[256];

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

static uint8_t *
slurp(const char *name, size_t *n)
{
	char p[400];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return (uint8_t *)fio_read_file(p, (size_t)1 << 30, n);
}

static char *
path(const char *name)
{
	static char buf[400];
	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

static int
setup(void **state)
{
	const char *bin = FLY_LLVM_BINDIR, *src = "tests/runtime/kernels";

	(void)state;
	unsetenv("FLY_DEVICE");
	snprintf(dir, sizeof dir, "/tmp/flyrt-api-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	for (int t = 0; t < 2; t++) {
		const char *cpu = t ? "gfx1201" : "gfx950";
		if (sh("%s/clang -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=%s -nogpulib -O2 "
		       "-cl-kernel-arg-info -c %s/rt.cl -o %s/%s.o && %s/ld.lld -shared %s/%s.o -o %s/%s.hsaco",
		       bin, cpu, src, dir, cpu, bin, dir, cpu, dir, cpu))
			return -1;
	}
	if (sh("%s/llvm-objcopy --add-section=.flyc.meta=%s/rt.meta %s/gfx950.hsaco %s/meta.hsaco",
	       bin, src, dir, dir))
		return -1;
	if (sh("printf 'flyc-meta 1\\nkernel vadd\\narg a ptr f32\\nend\\n' > %s/short.meta && "
	       "%s/llvm-objcopy --add-section=.flyc.meta=%s/short.meta %s/gfx950.hsaco %s/short.hsaco && "
	       "printf 'flyc-meta 1\\nkernel vadd\\nblock x\\nend\\n' > %s/bad.meta && "
	       "%s/llvm-objcopy --add-section=.flyc.meta=%s/bad.meta %s/gfx950.hsaco %s/badmeta.hsaco",
	       dir, bin, dir, dir, dir, dir, bin, dir, dir, dir))
		return -1;
	/* vadd with a reversed a (n):(-1), a broadcast b (4, n):(0, 1), a two-column c
	 * (n, 2):(2, 1) and a persistent grid min(device.cus, n) */
	if (sh("printf 'flyc-meta 2\\nkernel vadd\\narg a ptr f32\\narg b ptr f32\\narg c ptr f32\\n"
	       "arg n val i32\\nlayout a $n : -1\\nlayout b 4 ; $n : 0 ; 1\\nlayout c $n ; 2 : 2 ; 1\\n"
	       "block 64 1 1\\ngrid device.cus $n min ; 1 ; 1\\nend\\n' > %s/layouts.meta && "
	       "%s/llvm-objcopy --add-section=.flyc.meta=%s/layouts.meta %s/gfx950.hsaco %s/layouts.hsaco",
	       dir, bin, dir, dir, dir))
		return -1;
	if (sh("cd %s && : > empty && %s/clang-offload-bundler -type=o -bundle-align=4096 "
	       "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx1201,"
	       "hipv4-amdgcn-amd-amdhsa--gfx950 -input=empty -input=gfx1201.hsaco "
	       "-input=meta.hsaco -output=fat.co && %s/clang-offload-bundler -type=o "
	       "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx1201 "
	       "-input=empty -input=gfx1201.hsaco -output=fat1201.co", dir, bin, bin))
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	return 0;
}

static flyrt_device *
sim(void)
{
	flyrt_device *dev = NULL;
	assert_int_equal(flyrt_device_open("sim", &dev), FLYRT_SUCCESS);
	return dev;
}

static void
devices_open_and_hip_is_absent(void **state)
{
	flyrt_device *dev = NULL;
	flyrt_status st;

	(void)state;
	dev = sim();
	assert_int_equal(flyrt_device_backend(dev), FLYRT_BACKEND_SIM);
	assert_string_equal(flyrt_device_arch(dev), "gfx950");
	assert_non_null(strstr(flyrt_device_name(dev), "simulator"));
	flyrt_device_close(dev);

	assert_int_equal(flyrt_device_open("tpu", &dev), FLYRT_ERROR_INVALID_VALUE);
	assert_null(dev);
	assert_non_null(strstr(flyrt_last_error(), "tpu"));
	assert_int_equal(flyrt_device_open("hip:x", &dev), FLYRT_ERROR_INVALID_VALUE);
	assert_int_equal(flyrt_device_open("sim", NULL), FLYRT_ERROR_INVALID_VALUE);

	/* no ROCm on this machine: "hip" reports it, "auto" falls back to the simulator */
	setenv("FLYRT_HIP_LIBRARY", "/nonexistent/libamdhip64.so", 1);
	assert_int_equal(flyrt_device_open("hip", &dev), FLYRT_ERROR_NO_HIP_RUNTIME);
	assert_null(dev);
	assert_non_null(strstr(flyrt_last_error(), "no HIP runtime"));
	assert_int_equal(flyrt_device_open("auto", &dev), FLYRT_SUCCESS);
	assert_int_equal(flyrt_device_backend(dev), FLYRT_BACKEND_SIM);
	flyrt_device_close(dev);
	assert_int_equal(flyrt_device_open(NULL, &dev), FLYRT_SUCCESS);
	assert_int_equal(flyrt_device_backend(dev), FLYRT_BACKEND_SIM);
	flyrt_device_close(dev);
	/* a library without the HIP entry points is "no HIP runtime" too */
	setenv("FLYRT_HIP_LIBRARY", "libm.so.6", 1);
	assert_int_equal(flyrt_device_open("hip", &dev), FLYRT_ERROR_NO_HIP_RUNTIME);
	assert_non_null(strstr(flyrt_last_error(), "lacks hipInit"));
	unsetenv("FLYRT_HIP_LIBRARY");
	st = flyrt_device_open("hip", &dev);   /* the real search: nothing installed here */
	assert_true(st == FLYRT_ERROR_NO_HIP_RUNTIME || st == FLYRT_ERROR_NO_DEVICE);
	assert_null(dev);

	/* FLY_DEVICE overrides the kind asked for */
	setenv("FLY_DEVICE", "sim", 1);
	assert_int_equal(flyrt_device_open("hip", &dev), FLYRT_SUCCESS);
	assert_int_equal(flyrt_device_backend(dev), FLYRT_BACKEND_SIM);
	flyrt_device_close(dev);
	setenv("FLY_DEVICE", "bogus", 1);
	assert_int_equal(flyrt_device_open("sim", &dev), FLYRT_ERROR_INVALID_VALUE);
	unsetenv("FLY_DEVICE");
	assert_int_equal(dbl.devices, 0);   /* every simulator created was destroyed */
}

static void
memory_round_trips(void **state)
{
	flyrt_device *dev = sim();
	flyrt_deviceptr a, b;
	int in[100], out[100];

	(void)state;
	for (int i = 0; i < 100; i++)
		in[i] = i * 7 - 3;
	assert_int_equal(flyrt_malloc(dev, sizeof in, &a), FLYRT_SUCCESS);
	assert_int_equal(flyrt_malloc(dev, sizeof in, &b), FLYRT_SUCCESS);
	assert_true(a && b && a != b);
	assert_int_equal(flyrt_memcpy_htod(dev, a, in, sizeof in), FLYRT_SUCCESS);
	assert_int_equal(flyrt_memcpy_dtod(dev, b, a, sizeof in), FLYRT_SUCCESS);
	memset(out, 0, sizeof out);
	assert_int_equal(flyrt_memcpy_dtoh(dev, out, b, sizeof out), FLYRT_SUCCESS);
	assert_memory_equal(in, out, sizeof in);
	/* out of range copies and bad frees are statuses */
	assert_int_equal(flyrt_memcpy_dtoh(dev, out, b, sizeof out + 4096), FLYRT_ERROR_INVALID_VALUE);
	assert_int_equal(flyrt_memcpy_htod(dev, 0, in, 4), FLYRT_ERROR_INVALID_VALUE);
	assert_int_equal(flyrt_memcpy_htod(dev, a, NULL, 4), FLYRT_ERROR_INVALID_VALUE);
	assert_int_equal(flyrt_malloc(dev, 0, &a), FLYRT_ERROR_INVALID_VALUE);
	assert_int_equal(flyrt_malloc(NULL, 4, &a), FLYRT_ERROR_INVALID_VALUE);
	assert_int_equal(flyrt_free(dev, 0), FLYRT_SUCCESS);
	assert_int_equal(flyrt_free(dev, b), FLYRT_SUCCESS);
	assert_int_equal(flyrt_free(dev, b), FLYRT_ERROR_INVALID_VALUE);
	assert_int_equal(flyrt_synchronize(dev), FLYRT_SUCCESS);
	assert_int_equal(flyrt_synchronize(NULL), FLYRT_ERROR_INVALID_VALUE);
	flyrt_device_close(dev);   /* a is released with the device */
}

static void
modules_load_and_describe_kernels(void **state)
{
	flyrt_device *dev = sim();
	flyrt_module *m, *m2;
	flyrt_kernel *k;
	flyrt_kernel_info ki;
	flyrt_arg_info ai;

	(void)state;
	assert_int_equal(flyrt_module_load_file(dev, path("meta.hsaco"), &m), FLYRT_SUCCESS);
	assert_int_equal(flyrt_module_kernel_count(m), 4);
	assert_null(flyrt_module_kernel_at(m, 4));
	assert_int_equal(flyrt_module_get_kernel(m, "nosuch", &k), FLYRT_ERROR_NOT_FOUND);
	assert_null(k);
	assert_int_equal(flyrt_module_get_kernel(m, "vadd", &k), FLYRT_SUCCESS);
	assert_string_equal(flyrt_kernel_name(k), "vadd");
	assert_int_equal(flyrt_kernel_get_info(k, &ki), FLYRT_SUCCESS);
	assert_int_equal(ki.nargs, 4);
	assert_true(ki.has_meta && ki.has_grid);
	assert_int_equal(ki.block[0], 64);
	assert_int_equal(ki.nrequires, 2);
	assert_int_equal(ki.wavefront_size, 64);
	assert_string_equal(flyrt_kernel_requires_text(k, 1), "aligned(a, 16)");
	assert_null(flyrt_kernel_requires_text(k, 2));
	assert_int_equal(flyrt_kernel_arg_info(k, 0, &ai), FLYRT_SUCCESS);
	assert_string_equal(ai.name, "a");
	assert_int_equal(ai.type, FLYRT_ARG_PTR);
	assert_string_equal(ai.elem_type, "f32");
	assert_int_equal(ai.align, 16);
	assert_int_equal(ai.offset, 0);
	assert_int_equal(flyrt_kernel_arg_info(k, 3, &ai), FLYRT_SUCCESS);
	assert_int_equal(ai.type, FLYRT_ARG_I32);
	assert_int_equal(ai.offset, 24);   /* OpenCL ABI: three 8-byte pointers, then n */
	assert_true(ai.typed);
	assert_int_equal(flyrt_kernel_arg_info(k, 4, &ai), FLYRT_ERROR_INVALID_VALUE);
	/* a kernel without a .flyc.meta record is typed from the note */
	assert_int_equal(flyrt_module_get_kernel(m, "scale.kd", &k), FLYRT_SUCCESS);
	assert_int_equal(flyrt_kernel_get_info(k, &ki), FLYRT_SUCCESS);
	assert_false(ki.has_meta);
	assert_int_equal(flyrt_kernel_arg_info(k, 1, &ai), FLYRT_SUCCESS);
	assert_int_equal(ai.type, FLYRT_ARG_I32);
	assert_false(ai.typed);
	assert_string_equal(ai.name, "k");  /* -cl-kernel-arg-info names */
	assert_int_equal(flyrt_kernel_arg_info(k, 2, &ai), FLYRT_SUCCESS);
	assert_int_equal(ai.type, FLYRT_ARG_I64);
	assert_int_equal(ai.offset, 16);

	/* the cache: same bytes, same module; each load needs an unload */
	size_t n;
	uint8_t *bytes = slurp("meta.hsaco", &n);
	assert_int_equal(flyrt_module_load_data(dev, bytes, n, &m2), FLYRT_SUCCESS);
	assert_ptr_equal(m, m2);
	flyrt_module_unload(m2);
	assert_int_equal(flyrt_module_get_cached(dev, bytes, n, &m2), FLYRT_SUCCESS);
	assert_ptr_equal(m, m2);
	assert_int_equal(flyrt_module_get_cached(dev, bytes, n, &m2), FLYRT_SUCCESS);  /* by address */
	assert_ptr_equal(m, m2);
	uint8_t *copy = malloc(n);
	memcpy(copy, bytes, n);
	assert_int_equal(flyrt_module_get_cached(dev, copy, n, &m2), FLYRT_SUCCESS);  /* by content */
	assert_ptr_equal(m, m2);
	free(copy);
	flyrt_module_unload(m);      /* the cache still holds it */
	assert_int_equal(flyrt_module_load_data(dev, bytes, n, &m2), FLYRT_SUCCESS);
	assert_ptr_equal(m, m2);
	flyrt_module_unload(m2);
	free(bytes);
	flyrt_device_close(dev);     /* frees the cached module */
}

static void
images_are_checked(void **state)
{
	flyrt_device *dev = sim();
	flyrt_module *m = NULL;
	flyrt_kernel *k;
	size_t n;
	uint8_t *bytes;
	static const char junk[] = "this is not a code object";

	(void)state;
	assert_int_equal(flyrt_module_load_file(dev, path("gfx1201.hsaco"), &m),
	                 FLYRT_ERROR_NO_BINARY_FOR_DEVICE);
	assert_null(m);
	assert_non_null(strstr(flyrt_last_error(), "gfx1201"));
	/* a bundle: the gfx950 entry is picked from between others */
	assert_int_equal(flyrt_module_load_file(dev, path("fat.co"), &m), FLYRT_SUCCESS);
	assert_int_equal(flyrt_module_get_kernel(m, "vadd", &k), FLYRT_SUCCESS);
	flyrt_kernel_info ki;
	flyrt_kernel_get_info(k, &ki);
	assert_true(ki.has_meta);   /* the gfx950 entry is the one with .flyc.meta */
	flyrt_module_unload(m);
	assert_int_equal(flyrt_module_load_file(dev, path("fat1201.co"), &m),
	                 FLYRT_ERROR_NO_BINARY_FOR_DEVICE);
	assert_non_null(strstr(flyrt_last_error(), "gfx950"));
	assert_int_equal(flyrt_module_load_data(dev, junk, sizeof junk, &m), FLYRT_ERROR_INVALID_IMAGE);
	assert_int_equal(flyrt_module_load_data(dev, junk, 0, &m), FLYRT_ERROR_INVALID_IMAGE);
	assert_int_equal(flyrt_module_load_file(dev, path("nonexistent"), &m), FLYRT_ERROR_FILE);
	assert_int_equal(flyrt_module_load_file(dev, dir, &m), FLYRT_ERROR_FILE);
	assert_int_equal(flyrt_module_load_file(dev, path("badmeta.hsaco"), &m),
	                 FLYRT_ERROR_INVALID_METADATA);
	assert_non_null(strstr(flyrt_last_error(), ".flyc.meta:3"));
	assert_int_equal(flyrt_module_load_file(dev, path("short.hsaco"), &m),
	                 FLYRT_ERROR_INVALID_METADATA);
	assert_non_null(strstr(flyrt_last_error(), "1 arguments, the AMDGPU note 4"));
	/* a compressed bundle is refused by name */
	bytes = slurp("fat.co", &n);
	uint8_t ccob[64] = "CCOB";
	assert_int_equal(flyrt_module_load_data(dev, ccob, sizeof ccob, &m), FLYRT_ERROR_INVALID_IMAGE);
	assert_non_null(strstr(flyrt_last_error(), "CCOB"));
	/* every truncation of a bundle is a status, never a crash */
	for (size_t cut = 0; cut < n; cut += 97) {
		flyrt_status st = flyrt_module_load_data(dev, bytes, cut, &m);
		if (st == FLYRT_SUCCESS)
			flyrt_module_unload(m);
		else
			assert_true(st == FLYRT_ERROR_INVALID_IMAGE || st == FLYRT_ERROR_NO_BINARY_FOR_DEVICE);
	}
	free(bytes);
	flyrt_device_close(dev);
}

static flyrt_kernel *
kernel(flyrt_device *dev, flyrt_module **m, const char *name)
{
	flyrt_kernel *k;
	assert_int_equal(flyrt_module_load_file(dev, path("meta.hsaco"), m), FLYRT_SUCCESS);
	assert_int_equal(flyrt_module_get_kernel(*m, name, &k), FLYRT_SUCCESS);
	return k;
}

static uint64_t
rd(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void
launch_checks_arguments(void **state)
{
	flyrt_device *dev = sim();
	flyrt_module *m;
	flyrt_kernel *k = kernel(dev, &m, "vadd");
	flyrt_deviceptr a, b, c;
	flyrt_launch_config cfg = { { 2, 1, 1 }, { 64, 1, 1 }, 0, 0 }, res;

	(void)state;
	assert_int_equal(flyrt_malloc(dev, 4096, &a), FLYRT_SUCCESS);
	assert_int_equal(flyrt_malloc(dev, 4096, &b), FLYRT_SUCCESS);
	assert_int_equal(flyrt_malloc(dev, 4096, &c), FLYRT_SUCCESS);
	flyrt_arg ok[] = { flyrt_arg_ptr(a), flyrt_arg_ptr(b), flyrt_arg_ptr(c), flyrt_arg_i32(100) };
	flyrt_arg args[4];

	dbl.launches = 0;
	assert_int_equal(flyrt_launch(k, &cfg, ok, 3), FLYRT_ERROR_ARG_COUNT);
	assert_int_equal(flyrt_launch(k, &cfg, ok, 5), FLYRT_ERROR_ARG_COUNT);
	assert_int_equal(flyrt_launch(k, &cfg, NULL, 4), FLYRT_ERROR_INVALID_VALUE);
	assert_int_equal(flyrt_launch(NULL, &cfg, ok, 4), FLYRT_ERROR_INVALID_VALUE);
	memcpy(args, ok, sizeof ok);
	args[3] = flyrt_arg_u32(100);           /* typed by .flyc.meta: i32 exactly */
	assert_int_equal(flyrt_launch(k, &cfg, args, 4), FLYRT_ERROR_ARG_TYPE);
	assert_non_null(strstr(flyrt_last_error(), "expects i32"));
	args[3] = flyrt_arg_i64(100);
	assert_int_equal(flyrt_launch(k, &cfg, args, 4), FLYRT_ERROR_ARG_TYPE);
	args[3] = flyrt_arg_i32(100);
	args[3].size = 8;                        /* a malformed value */
	assert_int_equal(flyrt_launch(k, &cfg, args, 4), FLYRT_ERROR_ARG_TYPE);
	args[3] = flyrt_arg_i32(100);
	args[1] = flyrt_arg_i64((int64_t)b);    /* a scalar where a pointer goes */
	assert_int_equal(flyrt_launch(k, &cfg, args, 4), FLYRT_ERROR_ARG_TYPE);
	args[1] = flyrt_arg_ptr(0);
	assert_int_equal(flyrt_launch(k, &cfg, args, 4), FLYRT_ERROR_NULL_POINTER);
	args[1] = flyrt_arg_ptr(b + 2);          /* f32: 4-byte alignment by default */
	assert_int_equal(flyrt_launch(k, &cfg, args, 4), FLYRT_ERROR_MISALIGNED_POINTER);
	args[1] = flyrt_arg_ptr(b + 4);
	args[0] = flyrt_arg_ptr(a + 4);          /* a is declared 16-byte aligned */
	assert_int_equal(flyrt_launch(k, &cfg, args, 4), FLYRT_ERROR_MISALIGNED_POINTER);
	args[0].type = (flyrt_arg_type)99;
	assert_int_equal(flyrt_launch(k, &cfg, args, 4), FLYRT_ERROR_ARG_TYPE);
	assert_int_equal(dbl.launches, 0);

	/* block too large for the kernel; a zero grid needs the formula */
	flyrt_launch_config big = { { 1, 1, 1 }, { 2048, 1, 1 }, 0, FLYRT_LAUNCH_ANY_GRID };
	assert_int_equal(flyrt_launch(k, &big, ok, 4), FLYRT_ERROR_INVALID_LAUNCH);
	flyrt_launch_config lds = { { 0, 1, 1 }, { 64, 1, 1 }, 1u << 20, 0 };
	assert_int_equal(flyrt_launch(k, &lds, ok, 4), FLYRT_ERROR_INVALID_LAUNCH);
	assert_non_null(strstr(flyrt_last_error(), "bytes of LDS"));

	/* the kernel's own grid and block: n = 100 -> ceil(100/64) = 2 workgroups of 64 */
	assert_int_equal(flyrt_kernel_check(k, NULL, ok, 4, &res), FLYRT_SUCCESS);
	assert_int_equal(res.grid[0], 2);
	assert_int_equal(res.block[0], 64);
	assert_int_equal(flyrt_launch(k, NULL, ok, 4), FLYRT_SUCCESS);
	assert_int_equal(dbl.launches, 1);
	assert_int_equal(dbl.grid[0], 2);
	assert_int_equal(dbl.grid[1], 1);
	assert_int_equal(dbl.block[0], 64);
	/* the kernarg segment: explicit args at the note's offsets, hidden args filled */
	assert_int_equal(dbl.kernarg_size, 288);
	assert_int_equal(rd(dbl.kernarg + 0, 8), a);
	assert_int_equal(rd(dbl.kernarg + 8, 8), b);
	assert_int_equal(rd(dbl.kernarg + 16, 8), c);
	assert_int_equal(rd(dbl.kernarg + 24, 4), 100);
	assert_int_equal(rd(dbl.kernarg + 32, 4), 2);    /* hidden_block_count_x */
	assert_int_equal(rd(dbl.kernarg + 36, 4), 1);    /* hidden_block_count_y */
	assert_int_equal(rd(dbl.kernarg + 44, 2), 64);   /* hidden_group_size_x */
	assert_int_equal(rd(dbl.kernarg + 46, 2), 1);    /* hidden_group_size_y */
	assert_int_equal(rd(dbl.kernarg + 96, 2), 1);    /* hidden_grid_dims */
	/* another grid only with FLYRT_LAUNCH_ANY_GRID */
	flyrt_launch_config two_d = { { 3, 2, 1 }, { 64, 1, 1 }, 0, 0 };
	assert_int_equal(flyrt_launch(k, &two_d, ok, 4), FLYRT_ERROR_INVALID_LAUNCH);
	two_d.flags = FLYRT_LAUNCH_ANY_GRID;
	assert_int_equal(flyrt_launch(k, &two_d, ok, 4), FLYRT_SUCCESS);
	assert_int_equal(dbl.grid[0], 3);
	assert_int_equal(dbl.grid[1], 2);
	assert_int_equal(rd(dbl.kernarg + 44, 2), 64);
	assert_int_equal(rd(dbl.kernarg + 96, 2), 2);
	/* a failing simulator run is LAUNCH_FAILED with its message */
	dbl.fail_next = 1;
	assert_int_equal(flyrt_launch(k, NULL, ok, 4), FLYRT_ERROR_LAUNCH_FAILED);
	assert_non_null(strstr(flyrt_last_error(), "injected failure"));

	/* requires: n > 0 */
	memcpy(args, ok, sizeof ok);
	args[3] = flyrt_arg_i32(0);
	dbl.launches = 0;
	assert_int_equal(flyrt_launch(k, &cfg, args, 4), FLYRT_ERROR_UNSUPPORTED);
	assert_non_null(strstr(flyrt_last_error(), "n > 0"));
	assert_int_equal(flyrt_kernel_check(k, &cfg, args, 4, NULL), FLYRT_ERROR_UNSUPPORTED);
	assert_int_equal(dbl.launches, 0);
	flyrt_module_unload(m);

	/* note-only kernel: any 4-byte scalar for an int, pointer for a buffer, no formula */
	k = kernel(dev, &m, "scale");
	flyrt_arg s[] = { flyrt_arg_ptr(a), flyrt_arg_u32(3), flyrt_arg_i64(-5) };
	assert_int_equal(flyrt_launch(k, NULL, s, 3), FLYRT_ERROR_INVALID_LAUNCH);
	assert_int_equal(flyrt_launch(k, &cfg, s, 3), FLYRT_SUCCESS);
	assert_int_equal(rd(dbl.kernarg + 8, 4), 3);
	assert_int_equal((int64_t)rd(dbl.kernarg + 16, 8), -5);
	s[1] = flyrt_arg_f32(1.5f);
	assert_int_equal(flyrt_launch(k, &cfg, s, 3), FLYRT_SUCCESS);
	s[1] = flyrt_arg_i64(3);
	assert_int_equal(flyrt_launch(k, &cfg, s, 3), FLYRT_ERROR_ARG_TYPE);
	int32_t raw = 9;
	s[1] = flyrt_arg_bytes(&raw, 4);
	assert_int_equal(flyrt_launch(k, &cfg, s, 3), FLYRT_SUCCESS);
	assert_int_equal(rd(dbl.kernarg + 8, 4), 9);
	flyrt_module_unload(m);
	flyrt_device_close(dev);
}

static void
launch_checks_block_and_grid(void **state)
{
	flyrt_device *dev = sim();
	flyrt_module *m;
	flyrt_kernel *k = kernel(dev, &m, "vadd");
	flyrt_deviceptr a;
	flyrt_launch_config res;

	(void)state;
	assert_int_equal(flyrt_malloc(dev, 4096, &a), FLYRT_SUCCESS);
	flyrt_arg args[] = { flyrt_arg_ptr(a), flyrt_arg_ptr(a), flyrt_arg_ptr(a), flyrt_arg_i32(100) };
	dbl.launches = 0;
	/* the formula's grid (ceil(100 / 64) = 2) given explicitly is accepted */
	flyrt_launch_config c = { { 2, 1, 1 }, { 64, 1, 1 }, 0, 0 };
	assert_int_equal(flyrt_launch(k, &c, args, 4), FLYRT_SUCCESS);
	assert_int_equal(dbl.launches, 1);
	/* a block of 128 threads for a block(64) kernel: never, not even with ANY_GRID */
	flyrt_launch_config b = { { 0, 0, 0 }, { 128, 1, 1 }, 0, 0 };
	assert_int_equal(flyrt_launch(k, &b, args, 4), FLYRT_ERROR_INVALID_LAUNCH);
	assert_non_null(strstr(flyrt_last_error(), "block 128x1x1 differs from the kernel's block(64, 1, 1)"));
	b.flags = FLYRT_LAUNCH_ANY_GRID;
	assert_int_equal(flyrt_launch(k, &b, args, 4), FLYRT_ERROR_INVALID_LAUNCH);
	flyrt_launch_config b2 = { { 0, 0, 0 }, { 64, 2, 1 }, 0, 0 };
	assert_int_equal(flyrt_kernel_check(k, &b2, args, 4, NULL), FLYRT_ERROR_INVALID_LAUNCH);
	flyrt_launch_config b3 = { { 0, 0, 0 }, { 64, 0, 0 }, 0, 0 };   /* 0 counts as 1 */
	assert_int_equal(flyrt_kernel_check(k, &b3, args, 4, &res), FLYRT_SUCCESS);
	assert_int_equal(res.grid[0], 2);
	/* a grid other than the formula's: refused, unless the caller opts in */
	flyrt_launch_config g = { { 1, 1, 1 }, { 0, 0, 0 }, 0, 0 };
	assert_int_equal(flyrt_launch(k, &g, args, 4), FLYRT_ERROR_INVALID_LAUNCH);
	assert_non_null(strstr(flyrt_last_error(), "grid 1x1x1 differs from the kernel's grid "
	                                            "formula, which gives 2x1x1"));
	flyrt_launch_config g2 = { { 2, 2, 1 }, { 0, 0, 0 }, 0, 0 };
	assert_int_equal(flyrt_launch(k, &g2, args, 4), FLYRT_ERROR_INVALID_LAUNCH);
	assert_int_equal(dbl.launches, 1);
	g.flags = FLYRT_LAUNCH_ANY_GRID;
	assert_int_equal(flyrt_launch(k, &g, args, 4), FLYRT_SUCCESS);
	assert_int_equal(dbl.launches, 2);
	assert_int_equal(dbl.grid[0], 1);
	assert_int_equal(dbl.block[0], 64);
	assert_int_equal(flyrt_kernel_check(k, &g, args, 4, &res), FLYRT_SUCCESS);
	assert_int_equal(res.flags, FLYRT_LAUNCH_ANY_GRID);
	g.flags = 4;   /* unknown flags are refused (2 is FLYRT_LAUNCH_TIMING) */
	assert_int_equal(flyrt_launch(k, &g, args, 4), FLYRT_ERROR_INVALID_VALUE);
	flyrt_module_unload(m);

	/* a kernel without .flyc.meta: any grid and block the code object allows */
	k = kernel(dev, &m, "scale");
	flyrt_arg s[] = { flyrt_arg_ptr(a), flyrt_arg_i32(3), flyrt_arg_i64(1) };
	flyrt_launch_config free_cfg = { { 7, 1, 1 }, { 32, 1, 1 }, 0, 0 };
	assert_int_equal(flyrt_launch(k, &free_cfg, s, 3), FLYRT_SUCCESS);
	assert_int_equal(dbl.grid[0], 7);
	assert_int_equal(dbl.block[0], 32);
	flyrt_module_unload(m);

	/* device.cus in a grid formula: the simulator's 256 CUs, or FLY_SIM_CUS */
	assert_int_equal(flyrt_device_cus(dev), 256);
	assert_int_equal(flyrt_module_load_file(dev, path("layouts.hsaco"), &m), FLYRT_SUCCESS);
	assert_int_equal(flyrt_module_get_kernel(m, "vadd", &k), FLYRT_SUCCESS);
	flyrt_arg big[] = { flyrt_arg_ptr(a + 4 * 999), flyrt_arg_ptr(a), flyrt_arg_ptr(a),
	                    flyrt_arg_i32(1000) };
	flyrt_deviceptr h;
	assert_int_equal(flyrt_malloc(dev, 8 * 1000, &h), FLYRT_SUCCESS);
	big[0] = flyrt_arg_ptr(h + 4 * 999);
	big[1] = flyrt_arg_ptr(h);
	big[2] = flyrt_arg_ptr(h);
	assert_int_equal(flyrt_kernel_check(k, NULL, big, 4, &res), FLYRT_SUCCESS);
	assert_int_equal(res.grid[0], 256);          /* min(256, 1000) */
	big[3] = flyrt_arg_i32(10);
	assert_int_equal(flyrt_kernel_check(k, NULL, big, 4, &res), FLYRT_SUCCESS);
	assert_int_equal(res.grid[0], 10);
	flyrt_module_unload(m);
	flyrt_device_close(dev);
	setenv("FLY_SIM_CUS", "3", 1);
	dev = sim();
	unsetenv("FLY_SIM_CUS");
	assert_int_equal(flyrt_device_cus(dev), 3);
	assert_int_equal(flyrt_malloc(dev, 8 * 1000, &h), FLYRT_SUCCESS);
	assert_int_equal(flyrt_module_load_file(dev, path("layouts.hsaco"), &m), FLYRT_SUCCESS);
	assert_int_equal(flyrt_module_get_kernel(m, "vadd", &k), FLYRT_SUCCESS);
	big[0] = flyrt_arg_ptr(h + 4 * 999);
	big[1] = flyrt_arg_ptr(h);
	big[2] = flyrt_arg_ptr(h);
	big[3] = flyrt_arg_i32(1000);
	assert_int_equal(flyrt_kernel_check(k, NULL, big, 4, &res), FLYRT_SUCCESS);
	assert_int_equal(res.grid[0], 3);
	flyrt_launch_config three = { { 256, 1, 1 }, { 64, 1, 1 }, 0, 0 };
	assert_int_equal(flyrt_kernel_check(k, &three, big, 4, NULL), FLYRT_ERROR_INVALID_LAUNCH);
	flyrt_module_unload(m);
	flyrt_device_close(dev);
}

static flyrt_tensor
tensor(flyrt_deviceptr data, const char *dtype, int ndim, const int64_t *shape,
       const int64_t *strides, flyrt_deviceptr storage, uint64_t bytes)
{
	flyrt_tensor t;
	t.data = data;
	t.dtype = dtype;
	t.ndim = ndim;
	t.shape = shape;
	t.strides = strides;
	t.storage = storage;
	t.storage_bytes = bytes;
	return t;
}

/* flyrt_launch(k, NULL, args, 4) gives want and, for a failure, a message with text. */
static void
expect(const flyrt_kernel *k, const flyrt_arg *args, flyrt_status want, const char *text)
{
	int before = dbl.launches;
	flyrt_status st = flyrt_launch(k, NULL, args, 4);
	if (st != want)
		fail_msg("got %s (%s), expected %s", flyrt_status_name(st), flyrt_last_error(),
		         flyrt_status_name(want));
	if (text && !strstr(flyrt_last_error(), text))
		fail_msg("message '%s' lacks '%s'", flyrt_last_error(), text);
	assert_int_equal(dbl.launches, before + (want == FLYRT_SUCCESS));
}

static void
launch_checks_memory(void **state)
{
	flyrt_device *dev = sim();
	flyrt_module *m;
	flyrt_kernel *k = kernel(dev, &m, "vadd");   /* a, b, c: f32 (n):(1) */
	flyrt_deviceptr a, c, big;
	flyrt_tensor t;

	(void)state;
	assert_int_equal(flyrt_malloc(dev, 4096, &a), FLYRT_SUCCESS);
	assert_int_equal(flyrt_malloc(dev, 256, &c), FLYRT_SUCCESS);
	assert_int_equal(flyrt_malloc(dev, 4096, &big), FLYRT_SUCCESS);
	flyrt_arg args[] = { flyrt_arg_ptr(a), flyrt_arg_ptr(a), flyrt_arg_ptr(c), flyrt_arg_i32(64) };
	dbl.launches = 0;
	expect(k, args, FLYRT_SUCCESS, NULL);        /* 64 floats fill the 256 bytes */
	/* allocations: 100 floats do not fit in 256 bytes; nothing runs */
	args[3] = flyrt_arg_i32(100);
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "argument 2 (c) is too small: its layout (100):(1) "
	       "(f32, 32 bits each) reaches bytes [0, 400) from its address; the allocation of 256 bytes");
	/* an address inside an allocation: what is left of it from there */
	args[2] = flyrt_arg_ptr(big + 4096 - 400);
	expect(k, args, FLYRT_SUCCESS, NULL);
	args[2] = flyrt_arg_ptr(big + 4096 - 396);
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "holds bytes [-3700, 396)");
	/* a freed allocation is forgotten (its memory is no longer known) */
	assert_int_equal(flyrt_free(dev, c), FLYRT_SUCCESS);
	args[2] = flyrt_arg_ptr(c);
	expect(k, args, FLYRT_SUCCESS, NULL);

	/* tensors: element type, strides, storage */
	int64_t n100[] = { 100 }, s1[] = { 1 }, s2[] = { 2 }, n99[] = { 99 }, n0[] = { 0 };
	int64_t sh2[] = { 4, 25 }, st2[] = { 25, 1 }, tsh[] = { 25, 4 }, tst[] = { 1, 25 };
	int64_t gsh[] = { 10, 10 }, gst[] = { 20, 1 }, one[] = { 1, 100 }, onest[] = { 7, 1 };
	t = tensor(big, "f32", 1, n100, s1, big, 400);
	args[2] = flyrt_arg_tensor(&t);
	expect(k, args, FLYRT_SUCCESS, NULL);
	assert_int_equal(rd(dbl.kernarg + 16, 8), big);   /* the kernel gets the data pointer */
	t.dtype = "bf16";                                  /* the f32 <-> bf16 mix-up */
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "argument 2 (c) is a bf16 tensor, the kernel expects f32 elements");
	t.dtype = "i32";
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "is a i32 tensor");
	t.dtype = NULL;                                    /* unknown: not checked */
	expect(k, args, FLYRT_SUCCESS, NULL);
	t.dtype = "f32";
	t.strides = s2;                                    /* every other element */
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "argument 2 (c) has strides (2) (shape (100)); the "
	       "kernel's layout (100):(1) needs other strides");
	t.ndim = 2, t.shape = sh2, t.strides = st2;        /* contiguous (4, 25) is (100):(1) */
	expect(k, args, FLYRT_SUCCESS, NULL);
	t.shape = tsh, t.strides = tst;                    /* its transpose is not */
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "has strides (1, 25) (shape (25, 4))");
	t.shape = gsh, t.strides = gst;                    /* rows with gaps */
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "has strides (20, 1)");
	t.shape = one, t.strides = onest;                  /* an extent-1 mode's stride is free */
	expect(k, args, FLYRT_SUCCESS, NULL);
	t.ndim = 1, t.shape = n100, t.strides = s1;
	t.storage_bytes = 396;                             /* storage one element short */
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "the tensor's storage (396 bytes at");
	t.storage_bytes = 400;
	t.data = big + 8;                                  /* a storage offset past the end */
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "reaches bytes [0, 400) from its address; the "
	       "tensor's storage (400 bytes at");
	t.storage_bytes = 408;
	expect(k, args, FLYRT_SUCCESS, NULL);
	t.data = big - 4;                                  /* before its storage */
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "lies outside the tensor's storage");
	t = tensor(big, "f32", 1, n99, s1, 0, 0);          /* no storage: its own 99 elements */
	args[2] = flyrt_arg_tensor(&t);
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "the tensor (its own elements");
	int64_t n1[] = { 1 };
	t.shape = n1, t.strides = s2;                      /* one element: its stride says nothing */
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "is too small");
	t.strides = s1;
	t.shape = n0;                                      /* empty, nothing known around it */
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "holds bytes [0, 0)");
	t = tensor(big, "f32", -1, NULL, NULL, 0, 0);      /* nothing known: the allocation */
	expect(k, args, FLYRT_SUCCESS, NULL);
	t.ndim = 17;
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "modes");
	t.ndim = 1, t.shape = NULL;
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "without shape or strides");
	int64_t neg[] = { -1 };
	t.shape = neg, t.strides = s1;
	expect(k, args, FLYRT_ERROR_ARG_TYPE, "negative");
	t = tensor(0, "f32", 1, n100, s1, big, 400);
	expect(k, args, FLYRT_ERROR_NULL_POINTER, NULL);
	t = tensor(big + 2, "f32", 1, n100, s1, big, 4096);
	expect(k, args, FLYRT_ERROR_MISALIGNED_POINTER, NULL);
	args[2].v.tensor = NULL;
	expect(k, args, FLYRT_ERROR_INVALID_VALUE, "NULL");
	args[2] = flyrt_arg_ptr(big);
	args[3] = flyrt_arg_i32(0);                         /* requires n > 0 declines first */
	expect(k, args, FLYRT_ERROR_UNSUPPORTED, "n > 0");
	/* the declared layout for given scalars */
	int64_t lsh[4], lst[4];
	args[3] = flyrt_arg_i32(77);
	assert_int_equal(flyrt_kernel_arg_layout(k, 2, args, 4, lsh, lst, 4), 1);
	assert_int_equal(lsh[0], 77);
	assert_int_equal(lst[0], 1);
	assert_int_equal(flyrt_kernel_arg_layout(k, 3, args, 4, lsh, lst, 4), -1);
	assert_int_equal(flyrt_kernel_arg_layout(k, 9, args, 4, lsh, lst, 4), -1);
	flyrt_arg_info ai;
	assert_int_equal(flyrt_kernel_arg_info(k, 1, &ai), FLYRT_SUCCESS);
	assert_int_equal(ai.layout_rank, 1);
	assert_string_equal(ai.layout, "$n : 1");
	flyrt_module_unload(m);

	/* saxpy_any declares no layouts: sizes unknown, but a tensor must be contiguous */
	k = kernel(dev, &m, "saxpy_any");
	assert_int_equal(flyrt_malloc(dev, 16, &c), FLYRT_SUCCESS);
	flyrt_arg sx[] = { flyrt_arg_ptr(c), flyrt_arg_ptr(big), flyrt_arg_f32(1.0f), flyrt_arg_i32(1000) };
	expect(k, sx, FLYRT_SUCCESS, NULL);
	t = tensor(big, "f32", 1, n100, s2, 0, 0);
	sx[1] = flyrt_arg_tensor(&t);
	expect(k, sx, FLYRT_ERROR_ARG_TYPE, "declares no layout for it, so it takes a contiguous tensor");
	t.strides = s1;
	expect(k, sx, FLYRT_SUCCESS, NULL);
	t.dtype = "f16";
	expect(k, sx, FLYRT_ERROR_ARG_TYPE, "is a f16 tensor");
	assert_int_equal(flyrt_kernel_arg_info(k, 1, &ai), FLYRT_SUCCESS);
	assert_int_equal(ai.layout_rank, -1);
	assert_string_equal(ai.layout, "");
	flyrt_module_unload(m);

	/* negative and zero strides, two-mode layouts, zero extents (layouts.meta) */
	assert_int_equal(flyrt_module_load_file(dev, path("layouts.hsaco"), &m), FLYRT_SUCCESS);
	assert_int_equal(flyrt_module_get_kernel(m, "vadd", &k), FLYRT_SUCCESS);
	flyrt_deviceptr rv;
	assert_int_equal(flyrt_malloc(dev, 400, &rv), FLYRT_SUCCESS);
	flyrt_arg l[] = { flyrt_arg_ptr(rv + 396), flyrt_arg_ptr(big), flyrt_arg_ptr(big),
	                  flyrt_arg_i32(100) };
	expect(k, l, FLYRT_SUCCESS, NULL);           /* a: (100):(-1) ends at rv */
	l[0] = flyrt_arg_ptr(rv + 392);               /* one element below the allocation */
	expect(k, l, FLYRT_ERROR_ARG_TYPE, "reaches bytes [-396, 4) from its address; the "
	       "allocation of 400 bytes");
	int64_t rneg[] = { -1 }, bsh[] = { 4, 100 }, bst[] = { 0, 1 }, bct[] = { 100, 1 };
	flyrt_tensor ta = tensor(rv + 396, "f32", 1, n100, rneg, rv, 400);   /* numpy's x[::-1] */
	l[0] = flyrt_arg_tensor(&ta);
	expect(k, l, FLYRT_SUCCESS, NULL);
	ta.strides = s1;                              /* the same memory read forwards */
	expect(k, l, FLYRT_ERROR_ARG_TYPE, "has strides (1)");
	ta.strides = rneg;
	ta.storage = 0, ta.storage_bytes = 0;         /* its own span: [-396, 4) */
	expect(k, l, FLYRT_SUCCESS, NULL);
	flyrt_tensor tb = tensor(big, "f32", 2, bsh, bst, big, 400);   /* torch expand(4, 100) */
	l[1] = flyrt_arg_tensor(&tb);
	expect(k, l, FLYRT_SUCCESS, NULL);
	tb.strides = bct;                             /* a contiguous (4, 100) is not broadcast */
	expect(k, l, FLYRT_ERROR_ARG_TYPE, "has strides (100, 1)");
	tb.strides = bst;
	tb.storage_bytes = 396;
	expect(k, l, FLYRT_ERROR_ARG_TYPE, "too small");
	tb.storage_bytes = 400;
	int64_t csh[] = { 100, 2 }, cst[] = { 2, 1 }, cfl[] = { 200 };
	flyrt_tensor tc = tensor(big, "f32", 2, csh, cst, big, 800);
	l[2] = flyrt_arg_tensor(&tc);
	expect(k, l, FLYRT_SUCCESS, NULL);
	tc.ndim = 1, tc.shape = cfl, tc.strides = s1; /* the same memory, flat */
	expect(k, l, FLYRT_SUCCESS, NULL);
	tc.storage_bytes = 796;
	expect(k, l, FLYRT_ERROR_ARG_TYPE, "reaches bytes [0, 800)");
	/* n = 0: every layout reaches nothing (no size is needed); the grid min(cus, 0) is
	 * 0 workgroups, so only an explicit grid with ANY_GRID launches */
	flyrt_tensor tiny = tensor(big, "f32", 1, n0, s1, big, 0);
	l[0] = l[1] = l[2] = flyrt_arg_tensor(&tiny);
	l[3] = flyrt_arg_i32(0);
	assert_int_equal(flyrt_launch(k, NULL, l, 4), FLYRT_ERROR_INVALID_LAUNCH);
	assert_non_null(strstr(flyrt_last_error(), "gives 0 workgroups"));
	flyrt_launch_config any = { { 1, 1, 1 }, { 64, 1, 1 }, 0, FLYRT_LAUNCH_ANY_GRID };
	assert_int_equal(flyrt_launch(k, &any, l, 4), FLYRT_SUCCESS);
	assert_int_equal(flyrt_kernel_arg_layout(k, 1, l, 4, lsh, lst, 1), 2);   /* max 1: one written */
	assert_int_equal(lsh[0], 4);
	assert_int_equal(lst[0], 0);
	/* a layout whose reach leaves 64 bits */
	l[3] = flyrt_arg_i32(INT32_MAX);
	int64_t huge[] = { INT32_MAX, 2 }, hst[] = { 2, 1 };
	flyrt_tensor th = tensor(big, "f32", 2, huge, hst, big, 400);
	l[2] = flyrt_arg_tensor(&th);
	l[0] = flyrt_arg_ptr(rv + 396);
	l[1] = flyrt_arg_ptr(big);
	expect(k, l, FLYRT_ERROR_ARG_TYPE, NULL);
	flyrt_module_unload(m);
	flyrt_device_close(dev);
}

static void
dispatch_picks_variants(void **state)
{
	flyrt_device *dev = sim();
	flyrt_module *m;
	flyrt_kernel *chosen, *k;
	flyrt_tuning *t;
	flyrt_deviceptr x, y;
	const char *names[4];

	(void)state;
	kernel(dev, &m, "saxpy_v4");
	assert_int_equal(flyrt_malloc(dev, 1 << 16, &x), FLYRT_SUCCESS);
	assert_int_equal(flyrt_malloc(dev, 1 << 16, &y), FLYRT_SUCCESS);
	/* the rows of tests/runtime/kernels/rt.tune.csv, and one for another arch */
	flyrt_tuning_row rows[] = {
		{ "gfx1201", "saxpy", "", "", "*", "saxpy_any", "", "", "" },
		{ "*", "saxpy", "", "", "n>=1024", "saxpy_v4 saxpy_any", "", "", "" },
		{ "gfx950", "saxpy", "", "", "n<1024", "saxpy_any", "", "", "" },
		{ "*", "saxpy", "f32", "", "*", "saxpy_any", "", "", "" },   /* an operator key */
	};
	assert_int_equal(flyrt_tuning_new(&t), FLYRT_SUCCESS);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		assert_int_equal(flyrt_tuning_add(t, &rows[i]), FLYRT_SUCCESS);
	flyrt_arg args[] = { flyrt_arg_ptr(y), flyrt_arg_ptr(x), flyrt_arg_f32(2.0f), flyrt_arg_i32(4096) };

	assert_int_equal(flyrt_module_get_kernel(m, "saxpy_any", &k), FLYRT_SUCCESS);
	assert_int_equal(flyrt_tuning_candidates(t, "saxpy", k, args, 4, names, 4), 2);
	assert_string_equal(names[0], "saxpy_v4");
	assert_string_equal(names[1], "saxpy_any");
	args[3] = flyrt_arg_i32(16);
	assert_int_equal(flyrt_tuning_candidates(t, "saxpy", k, args, 4, names, 4), 1);
	assert_string_equal(names[0], "saxpy_any");
	/* the operator key only sees its own row */
	assert_int_equal(flyrt_tuning_lookup(t, "saxpy", "f32", "", k, args, 4, names, 4), 1);
	assert_int_equal(flyrt_tuning_lookup(t, "saxpy", "f16", "", k, args, 4, names, 4), 0);
	const char *jnames[4];
	assert_int_equal(flyrt_tuning_variants(t, "saxpy", jnames, 4), 2);
	assert_string_equal(jnames[0], "saxpy_any");
	assert_string_equal(jnames[1], "saxpy_v4");
	assert_int_equal(flyrt_tuning_variants(t, "saxpy", jnames, 1), 2);   /* count beyond max */
	assert_int_equal(flyrt_tuning_variants(t, "gemm", jnames, 4), 0);
	assert_int_equal(flyrt_tuning_variants(NULL, "saxpy", jnames, 4), -1);
	/* validators: a row for another flyc or another build of the code object is ignored */
	{
		flyrt_tuning *tv;
		char h[32];
		assert_int_equal(flyrt_module_hash(m, h, sizeof h), 0);
		assert_int_equal(strlen(h), 24);
		size_t nbytes;
		uint8_t *bytes = slurp("meta.hsaco", &nbytes);
		char hf[32];
		assert_int_equal(flyrt_codeobj_hash(bytes, nbytes, hf, sizeof hf), 0);
		assert_string_equal(h, hf);        /* the module's hash is its file's */
		free(bytes);
		flyrt_tuning_row v[] = {
			{ "*", "saxpy", "", "", "*", "saxpy_v4", "", "0.0.0-other", "" },
			{ "*", "saxpy", "", "", "*", "saxpy_v4", "", "", "fnv1a64:0000000000000000" },
			{ "*", "saxpy", "", "", "*", "saxpy_any", "", flyrt_version(), h },
		};
		assert_int_equal(flyrt_tuning_new(&tv), FLYRT_SUCCESS);
		for (int i = 0; i < 3; i++)
			assert_int_equal(flyrt_tuning_add(tv, &v[i]), FLYRT_SUCCESS);
		args[3] = flyrt_arg_i32(4096);
		assert_int_equal(flyrt_tuning_candidates(tv, "saxpy", k, args, 4, names, 4), 1);
		assert_string_equal(names[0], "saxpy_any");
		flyrt_tuning_destroy(tv);
	}
	args[3] = flyrt_arg_i32(4096);
	/* big and divisible by 4: the vector variant, 4096/256 = 16 workgroups */
	assert_int_equal(flyrt_dispatch(m, t, "saxpy", NULL, args, 4, &chosen), FLYRT_SUCCESS);
	assert_string_equal(flyrt_kernel_name(chosen), "saxpy_v4");
	assert_int_equal(dbl.grid[0], 16);
	/* big but not divisible by 4: its requires fails, the next one runs */
	args[3] = flyrt_arg_i32(4097);
	assert_int_equal(flyrt_dispatch(m, t, "saxpy", NULL, args, 4, &chosen), FLYRT_SUCCESS);
	assert_string_equal(flyrt_kernel_name(chosen), "saxpy_any");
	assert_int_equal(dbl.grid[0], 65);
	/* small: only saxpy_any is listed */
	args[3] = flyrt_arg_i32(16);
	assert_int_equal(flyrt_dispatch(m, t, "saxpy", NULL, args, 4, &chosen), FLYRT_SUCCESS);
	assert_string_equal(flyrt_kernel_name(chosen), "saxpy_any");
	/* an unknown family: unsupported */
	assert_int_equal(flyrt_dispatch(m, t, "gemm", NULL, args, 4, &chosen), FLYRT_ERROR_UNSUPPORTED);
	assert_null(chosen);
	flyrt_tuning_destroy(t);

	/* a database whose only variant declines: unsupported, naming why */
	flyrt_tuning_row only_v4 = { "*", "saxpy", "", "", "*", "saxpy_v4 saxpy_missing", "", "", "" };
	assert_int_equal(flyrt_tuning_new(&t), FLYRT_SUCCESS);
	assert_int_equal(flyrt_tuning_add(t, &only_v4), FLYRT_SUCCESS);
	args[3] = flyrt_arg_i32(4097);
	assert_int_equal(flyrt_dispatch(m, t, "saxpy", NULL, args, 4, &chosen), FLYRT_ERROR_UNSUPPORTED);
	assert_non_null(strstr(flyrt_last_error(), "n % 4 == 0"));
	flyrt_tuning_destroy(t);
	/* a bucket naming an argument the kernel lacks */
	flyrt_tuning_row bad = { "*", "saxpy", "", "", "q<4", "saxpy_v4", "", "", "" };
	assert_int_equal(flyrt_tuning_new(&t), FLYRT_SUCCESS);
	assert_int_equal(flyrt_tuning_add(t, &bad), FLYRT_SUCCESS);
	assert_int_equal(flyrt_dispatch(m, t, "saxpy", NULL, args, 4, &chosen), FLYRT_ERROR_INVALID_TUNING);
	flyrt_tuning_destroy(t);
	/* without a table: the kernel named like the family */
	assert_int_equal(flyrt_dispatch(m, NULL, "saxpy_any", NULL, args, 4, &chosen), FLYRT_SUCCESS);
	assert_int_equal(flyrt_dispatch(m, NULL, "saxpy_v4", NULL, args, 4, &chosen), FLYRT_ERROR_UNSUPPORTED);
	/* launch_first with a list */
	flyrt_kernel *list[3] = { NULL, NULL, NULL };
	flyrt_module_get_kernel(m, "saxpy_v4", &list[0]);
	flyrt_module_get_kernel(m, "saxpy_any", &list[2]);
	assert_int_equal(flyrt_launch_first(list, 3, NULL, args, 4, &chosen), FLYRT_SUCCESS);
	assert_ptr_equal(chosen, list[2]);
	assert_int_equal(flyrt_launch_first(list, 1, NULL, args, 4, &chosen), FLYRT_ERROR_UNSUPPORTED);
	flyrt_module_unload(m);
	flyrt_device_close(dev);
}

static flyrt_device *shared_dev;
static uint8_t *shared_bytes;
static size_t shared_n;

static void *
loader_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 50; i++) {
		flyrt_module *m;
		flyrt_kernel *k;
		if (flyrt_module_load_data(shared_dev, shared_bytes, shared_n, &m) != FLYRT_SUCCESS)
			return (void *)1;
		if (flyrt_module_get_kernel(m, "vadd", &k) != FLYRT_SUCCESS)
			return (void *)1;
		flyrt_module_unload(m);
	}
	return NULL;
}

static void
module_cache_is_thread_safe(void **state)
{
	pthread_t th[4];

	(void)state;
	shared_dev = sim();
	shared_bytes = slurp("meta.hsaco", &shared_n);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, loader_thread, NULL), 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(th[i], &r);
		assert_null(r);
	}
	free(shared_bytes);
	flyrt_device_close(shared_dev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(devices_open_and_hip_is_absent),
		cmocka_unit_test(memory_round_trips),
		cmocka_unit_test(modules_load_and_describe_kernels),
		cmocka_unit_test(images_are_checked),
		cmocka_unit_test(launch_checks_arguments),
		cmocka_unit_test(launch_checks_block_and_grid),
		cmocka_unit_test(launch_checks_memory),
		cmocka_unit_test(dispatch_picks_variants),
		cmocka_unit_test(module_cache_is_thread_safe),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
