/*
 * codeobj.c — tests of the code object and offload bundle reader against
 * objects that clang-22 and ld.lld-22 build at test time, cross-checked with
 * llvm-nm-22, and against systematically corrupted copies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "codeobj.h"
#include "fileio.h"

static char dir[256];

static const char kernel_src[] =
	"kernel void add(global float *a, global const float *b, int n, float s) {\n"
	"  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 256;\n"
	"  if (i < n) a[i] += s * b[i];\n"
	"}\n"
	"kernel void two(global int *x) { x[__builtin_amdgcn_workitem_id_x()] = 7; }\n";

static int
sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	return system(cmd);
}


static int
setup(void **state)
{
	FILE *f;
	const char *bin = FLY_LLVM_BINDIR;

	snprintf(dir, sizeof dir, "/tmp/flyc-codeobj-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "%s", "");
	{
		char path[300];
		snprintf(path, sizeof path, "%s/k.cl", dir);
		f = fopen(path, "w");
		if (!f)
			return -1;
		fputs(kernel_src, f);
		fclose(f);
	}
	for (int t = 0; t < 2; t++) {
		const char *cpu = t ? "gfx1201" : "gfx950";
		if (sh("cd %s && %s/clang -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=%s "
		       "-nogpulib -O2 -cl-kernel-arg-info -c k.cl -o %s.o && %s/ld.lld -shared %s.o -o %s.hsaco",
		       dir, bin, cpu, cpu, bin, cpu, cpu))
			return -1;
	}
	if (sh("cd %s && : > empty && %s/clang-offload-bundler -type=o -bundle-align=4096 "
	       "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx950,"
	       "hipv4-amdgcn-amd-amdhsa--gfx1201 -input=empty -input=gfx950.hsaco "
	       "-input=gfx1201.hsaco -output=fat.co", dir, bin))
		return -1;
	if (sh("cd %s && printf 'flyc-meta 1\\nkernel two\\nend\\n' > meta.txt && "
	       "%s/llvm-objcopy --add-section=.flyc.meta=meta.txt gfx950.hsaco meta.hsaco", dir, bin))
		return -1;
	(void)state;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	return 0;
}

static uint8_t *
load(const char *name, size_t *n)
{
	char path[300];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return (uint8_t *)fio_read_file(path, (size_t)1 << 30, n);
}

/* Value of symbol NAME according to llvm-nm-22, or ~0 if absent. */
static uint64_t
nm_value(const char *file, const char *name)
{
	char cmd[600], line[512], sym[256], type;
	unsigned long long v = ~0ull, x;
	FILE *p;

	snprintf(cmd, sizeof cmd, "%s/llvm-nm %s/%s", FLY_LLVM_BINDIR, dir, file);
	p = popen(cmd, "r");
	if (!p)
		return ~0ull;
	while (fgets(line, sizeof line, p))
		if (sscanf(line, "%llx %c %255s", &x, &type, sym) == 3 && !strcmp(sym, name))
			v = x;
	pclose(p);
	return v;
}

static void
parses_real_object(void **state)
{
	size_t n;
	uint8_t *d = load("gfx950.hsaco", &n);
	char err[256] = "";
	CoObject *co;
	const CoKernel *k;

	(void)state;
	assert_non_null(d);
	assert_int_equal(co_sniff(d, n), 1);
	co = co_parse(d, n, err, sizeof err);
	assert_non_null(co);
	assert_string_equal(co->processor, "gfx950");
	assert_non_null(strstr(co->target, "gfx950"));
	assert_int_equal(co->nkernels, 2);

	k = co_find_kernel(co, "add");
	assert_non_null(k);
	assert_ptr_equal(k, co_find_kernel(co, "add.kd"));
	assert_int_equal(k->kd_addr, nm_value("gfx950.hsaco", "add.kd"));
	assert_int_equal(k->entry_addr, nm_value("gfx950.hsaco", "add"));
	assert_true(k->nargs >= 4);
	assert_int_equal(k->args[0].kind, CO_ARG_GLOBAL_BUFFER);
	assert_int_equal(k->args[0].offset, 0);
	assert_int_equal(k->args[0].size, 8);
	assert_int_equal(k->args[1].offset, 8);
	assert_int_equal(k->args[2].kind, CO_ARG_BY_VALUE);
	assert_int_equal(k->args[2].offset, 16);
	assert_int_equal(k->args[2].size, 4);
	assert_int_equal(k->args[3].offset, 20);
	assert_string_equal(k->args[0].name, "a");
	assert_string_equal(k->args[3].name, "s");
	assert_int_equal(k->wavefront_size, 64);
	assert_true(k->kd.has_kernarg_ptr);
	assert_false(k->kd.wave32);
	assert_true(k->kd.enable_wgid[0]);
	assert_true(k->code_size > 0);
	/* the first instruction word is in the image at the entry */
	assert_true(k->entry_addr + 4 <= co->image_size);
	assert_null(co_find_kernel(co, "nosuch"));
	co_free(co);
	free(d);
}

static void
wave32_on_gfx1201(void **state)
{
	size_t n;
	uint8_t *d = load("gfx1201.hsaco", &n);
	char err[256];
	CoObject *co = co_parse(d, n, err, sizeof err);

	(void)state;
	assert_non_null(co);
	assert_string_equal(co->processor, "gfx1201");
	assert_true(co_find_kernel(co, "two")->kd.wave32);
	assert_int_equal(co_find_kernel(co, "two")->wavefront_size, 32);
	co_free(co);
	free(d);
}

static void
bundle_entries(void **state)
{
	size_t n, n950, nout;
	uint8_t *fat = load("fat.co", &n), *raw = load("gfx950.hsaco", &n950);
	const void *out;
	char err[512];

	(void)state;
	assert_int_equal(co_sniff(fat, n), 2);
	assert_int_equal(co_bundle_find(fat, n, "gfx950", &out, &nout, err, sizeof err), 0);
	assert_int_equal(nout, n950);
	assert_memory_equal(out, raw, n950);
	assert_int_equal(co_bundle_find(fat, n, "gfx1201", &out, &nout, err, sizeof err), 0);
	assert_int_equal(co_sniff(out, nout), 1);
	/* gfx120 must not match gfx1201, nor gfx95 gfx950 */
	assert_int_equal(co_bundle_find(fat, n, "gfx120", &out, &nout, err, sizeof err), -1);
	assert_int_equal(co_bundle_find(fat, n, "gfx942", &out, &nout, err, sizeof err), -1);
	assert_non_null(strstr(err, "gfx942"));
	assert_non_null(strstr(err, "hipv4-amdgcn-amd-amdhsa--gfx950"));
	/* a bundle is refused by co_parse with a hint */
	assert_null(co_parse(fat, n, err, sizeof err));
	assert_non_null(strstr(err, "bundle"));
	free(fat);
	free(raw);
}

/* Every truncation and many byte corruptions give NULL+message or a valid object. */
static void
corrupt_inputs_never_crash(void **state)
{
	size_t n, i, nfat;
	uint8_t *d = load("gfx950.hsaco", &n), *fat = load("fat.co", &nfat), *m;
	char err[256];
	unsigned seed = 12345;
	int refused = 0;

	(void)state;
	for (i = 0; i < n; i += (i < 256 ? 1 : 7)) {
		CoObject *co = co_parse(d, i, err, sizeof err);
		if (!co) {
			assert_true(err[0] != 0);
			refused++;
		}
		co_free(co);
	}
	assert_true(refused > 0);
	m = malloc(n);
	for (i = 0; i < 3000; i++) {
		CoObject *co;
		int flips = 1 + (int)(i % 4);
		memcpy(m, d, n);
		while (flips--) {
			seed = seed * 1103515245u + 12345u;
			m[(seed >> 8) % n] ^= (uint8_t)(1u << ((seed >> 3) % 8));
		}
		co = co_parse(m, n, err, sizeof err);
		if (co) {
			for (int k = 0; k < co->nkernels; k++) {
				assert_true(co->kernels[k].entry_addr < co->image_size);
				assert_true(co->kernels[k].kd_addr + 64 <= co->image_size);
			}
		}
		co_free(co);
	}
	free(m);
	m = malloc(nfat);
	for (i = 0; i < 2000; i++) {
		const void *out;
		size_t nout;
		memcpy(m, fat, nfat);
		seed = seed * 1103515245u + 12345u;
		m[(seed >> 8) % 4096] ^= (uint8_t)(1u << ((seed >> 3) % 8));
		if (co_bundle_find(m, nfat, "gfx950", &out, &nout, err, sizeof err) == 0)
			assert_true((const uint8_t *)out >= m && (const uint8_t *)out + nout <= m + nfat);
		co_bundle_find(m, i % nfat, "gfx950", &out, &nout, err, sizeof err);
	}
	free(m);
	assert_int_equal(co_sniff(NULL, 0), 0);
	assert_null(co_parse("\177ELF", 4, err, sizeof err));
	free(d);
	free(fat);
}

static void
flyc_meta_section(void **state)
{
	size_t n;
	uint8_t *d = load("meta.hsaco", &n);
	char err[256];
	CoObject *co;
	const void *sec;
	size_t secn;

	(void)state;
	co = co_parse(d, n, err, sizeof err);
	assert_non_null(co);
	assert_string_equal(co->flyc_meta, "flyc-meta 1\nkernel two\nend\n");
	assert_int_equal(co->flyc_meta_size, strlen(co->flyc_meta));
	assert_int_equal(co->flyc_meta_size, 27);
	assert_int_equal(co_find_section(d, n, ".flyc.meta", &sec, &secn), 0);
	assert_int_equal(secn, 27);
	assert_int_equal(co_find_section(d, n, ".flyc", &sec, &secn), -1);
	co_free(co);
	free(d);
	d = load("gfx950.hsaco", &n);
	co = co_parse(d, n, err, sizeof err);
	assert_null(co->flyc_meta);
	co_free(co);
	free(d);
}

static void
mach_names(void **state)
{
	(void)state;
	assert_string_equal(co_mach_name(0x54f), "gfx950");
	assert_string_equal(co_mach_name(0x4e), "gfx1201");
	assert_null(co_mach_name(0x01));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_real_object),
		cmocka_unit_test(wave32_on_gfx1201),
		cmocka_unit_test(bundle_entries),
		cmocka_unit_test(corrupt_inputs_never_crash),
		cmocka_unit_test(flyc_meta_section),
		cmocka_unit_test(mach_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
