/*
 * flyrt-info — list the kernels of a code object or offload bundle as libflyrt sees
 * them on a device: arguments (name, type, offset, size, alignment), declared tensor
 * layouts, block, grid formula, requires predicates, registers and LDS.
 *
 *   flyrt-info [--device=auto|sim|hip|hip:N] FILE
 *
 * Exit status 0, or 1 with "flyrt-info: error: STATUS: message" when the device cannot
 * be opened or the file cannot be loaded.
 */
#include <stdio.h>
#include <string.h>

#include "flyrt.h"

static int
error(flyrt_status st)
{
	fprintf(stderr, "flyrt-info: error: %s: %s\n", flyrt_status_name(st), flyrt_last_error());
	return 1;
}

int
main(int argc, char **argv)
{
	const char *kind = "sim", *file = NULL;
	flyrt_device *dev;
	flyrt_module *mod;
	flyrt_status st;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--device=", 9))
			kind = argv[i] + 9;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: flyrt-info [--device=auto|sim|hip|hip:N] FILE\n");
			return 0;
		} else if (argv[i][0] == '-' || file) {
			fprintf(stderr, "flyrt-info: error: unexpected argument '%s'\n", argv[i]);
			return 1;
		} else
			file = argv[i];
	}
	if (!file) {
		fprintf(stderr, "flyrt-info: error: no input file\n");
		return 1;
	}
	if ((st = flyrt_device_open(kind, &dev)) != FLYRT_SUCCESS)
		return error(st);
	if ((st = flyrt_module_load_file(dev, file, &mod)) != FLYRT_SUCCESS) {
		flyrt_device_close(dev);
		return error(st);
	}
	printf("device %s\n", flyrt_device_name(dev));
	for (int i = 0; i < flyrt_module_kernel_count(mod); i++) {
		flyrt_kernel *k = flyrt_module_kernel_at(mod, i);
		flyrt_kernel_info ki;
		flyrt_kernel_get_info(k, &ki);
		printf("kernel %s\n", ki.name);
		for (int a = 0; a < ki.nargs; a++) {
			flyrt_arg_info ai;
			flyrt_kernel_arg_info(k, a, &ai);
			printf("  arg %-10s %-5s", ai.name[0] ? ai.name : "?", flyrt_arg_type_name(ai.type));
			if (ai.type == FLYRT_ARG_PTR && ai.elem_type[0])
				printf(" %s align %u", ai.elem_type, ai.align);
			printf("  offset %u size %u%s\n", ai.offset, ai.size, ai.typed ? "" : "  (from the AMDGPU note)");
		}
		for (int a = 0; a < ki.nargs; a++) {
			flyrt_arg_info ai;
			flyrt_kernel_arg_info(k, a, &ai);
			if (ai.layout_rank >= 0)
				printf("  layout %s %s\n", ai.name, ai.layout);
		}
		if (ki.block[0])
			printf("  block %u %u %u\n", ki.block[0], ki.block[1], ki.block[2]);
		printf("  grid %s\n", ki.has_grid ? "from .flyc.meta" : "given by the caller");
		for (int r = 0; r < ki.nrequires; r++)
			printf("  requires %s\n", flyrt_kernel_requires_text(k, r));
		printf("  wave%u, %u SGPRs, %u VGPRs, %u AGPRs, %u bytes LDS, %u bytes scratch, "
		       "kernarg %u bytes, max %u threads\n", ki.wavefront_size, ki.sgprs, ki.vgprs,
		       ki.agprs, ki.static_lds, ki.scratch_per_thread, ki.kernarg_size,
		       ki.max_block_threads);
	}
	flyrt_module_unload(mod);
	flyrt_device_close(dev);
	return 0;
}
