/* main.c — flyc's entry point: --version, --help and sub-command dispatch. */
#include <stdio.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "driver.h"
#include "version.h"

void
drv_print_version(void)
{
	unsigned maj, min, pat;

	LLVMGetVersion(&maj, &min, &pat);
	printf("flyc version %s (git %s)\n", FLYC_VERSION, FLYC_GIT_REV);
	printf("LLVM version %u.%u.%u\n", maj, min, pat);
	printf("Targets: gfx950 (CDNA4, wave64), gfx1201 (RDNA4, wave32)\n");
}

static void
usage(FILE *f)
{
	fprintf(f,
"OVERVIEW: flyc, the FlyDSL compiler for AMD gfx950 and gfx1201\n"
"\n"
"USAGE: flyc [options] file.fly\n"
"       flyc <command> [args]\n"
"\n"
"COMMANDS:\n");
#define X(name, fn, help) fprintf(f, "  %-22s %s\n", #name, help);
	FLYC_SUBCOMMANDS(X)
#undef X
	fprintf(f,
"\n"
"OPTIONS:\n"
"  --help                 Display available options\n"
"  --version              Print the flyc, git and LLVM versions\n"
"\n"
"See docs/cli.md for every compiler option.\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "flyc: error: no input files\n");
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-version")) {
		drv_print_version();
		return 0;
	}
#define X(name, fn, help) if (!strcmp(argv[1], #name)) return fn(argc - 2, argv + 2);
	FLYC_SUBCOMMANDS(X)
#undef X
	return drv_compile_main(argc - 1, argv + 1);
}
