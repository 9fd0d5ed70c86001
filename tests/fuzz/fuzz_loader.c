/*
 * fuzz_loader.c — libFuzzer harness for libflyrt's loader: the bytes are tried as a
 * code object or offload bundle (co_sniff, co_bundle_find, co_parse), as a module on
 * a simulator device (flyrt_module_load_data: bundle entry choice, arch check,
 * .flyc.meta, argument descriptions), as .flyc.meta text, and as the bucket and variants
 * of a tuning-database row.
 * Built and run by tests/fuzz/fuzz_loader.sh (scripts/fuzz.sh, `make fuzz`).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj.h"
#include "flyrt.h"
#include "flyrt_internal.h"

static flyrt_device *dev;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	const void *entry;
	size_t esize;
	CoObject *co;
	flyrt_module *m;
	FlyMeta meta;
	flyrt_tuning *t;

	if (!dev && flyrt_device_open("sim", &dev) != FLYRT_SUCCESS)
		abort();
	switch (co_sniff(data, size)) {
	case 2:
		if (!co_bundle_find(data, size, "gfx950", &entry, &esize, err, sizeof err) &&
		    (co = co_parse(entry, esize, err, sizeof err)))
			co_free(co);
		co_bundle_find(data, size, "gfx1201", &entry, &esize, err, sizeof err);
		break;
	case 1:
		if ((co = co_parse(data, size, err, sizeof err)))
			co_free(co);
		break;
	default:
		break;
	}
	if (flyrt_module_load_data(dev, data, size, &m) == FLYRT_SUCCESS) {
		for (int i = 0; i < flyrt_module_kernel_count(m); i++) {
			flyrt_kernel_info ki;
			flyrt_arg_info ai;
			flyrt_kernel *k = flyrt_module_kernel_at(m, i);
			flyrt_kernel_get_info(k, &ki);
			for (int j = 0; j < ki.nargs; j++)
				flyrt_kernel_arg_info(k, j, &ai);
		}
		flyrt_module_unload(m);
	}
	if (!flyrt_meta_parse((const char *)data, size, &meta, err, sizeof err))
		flyrt_meta_free(&meta);
	if (flyrt_tuning_new(&t) == FLYRT_SUCCESS) {
		char *text = malloc(size + 1);
		if (text) {
			memcpy(text, data, size);
			text[size] = 0;
			flyrt_tuning_row r = { "*", "f", "", "", text, "v", "", "", "" };
			flyrt_tuning_add(t, &r);
			r.bucket = "*";
			r.variants = text;
			flyrt_tuning_add(t, &r);
			free(text);
		}
		flyrt_tuning_destroy(t);
	}
	return 0;
}
