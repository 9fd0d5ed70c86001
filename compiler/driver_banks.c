/*
 * driver_banks.c — `flyc show --banks FILE.fly`: compiles FILE through the
 * IR passes (as --emit=banks) and prints the bank-conflict report of every
 * LDS access of its kernels (ir_banks.h); --expect-conflict-free turns
 * conflicts into the exit status, for tests and CI.
 *
 *   flyc show --banks FILE.fly [--kernel LIST] [--offload-arch=ARCH]...
 *             [-D NAME=V]... [-I DIR]... [--samples=N] [--addresses]
 *             [--expect-conflict-free[=reads|all]] [-o FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "ir_banks.h"
#include "target/target.h"

enum { ARCH_MAX = 16 };

static void
usage(FILE *f)
{
	fprintf(f,
"USAGE: flyc show --banks FILE.fly [options]\n"
"\n"
"Analyses every LDS access (ds_read, ds_write, transposed reads, loads to\n"
"LDS) of the kernels of FILE as compiled: per source location, the phases\n"
"and cycles one wave's access needs, the conflict-free minimum and the\n"
"worst bank conflict, over all waves and sampled loop iterations.\n"
"\n"
"OPTIONS:\n"
"  --kernel LIST           only these kernels (export names or globs, comma-\n"
"                          separated, repeatable); default: all\n"
"  --offload-arch=ARCH     gfx950 or gfx1201, repeatable (--arch=ARCH too);\n"
"                          default: every arch the file has kernels for\n"
"  -D NAME=V, -I DIR       as for compiling\n"
"  --samples=N             draws of loop counters and uniform values per\n"
"                          access (default 32)\n"
"  --addresses             also print the byte address of every lane of each\n"
"                          access's first analysed wave access\n"
"  --expect-conflict-free[=reads|all]\n"
"                          exit 1 unless every LDS read (=all: every access)\n"
"                          is conflict-free and analysed\n"
"  -o FILE                 write the report to FILE (default: standard output)\n");
}

int
drv_show_banks_main(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 8, sizeof *args);
	char *archbuf[ARCH_MAX];
	int n = 0, nab = 0, expect = 0, have_arch = 0, have_out = 0, rc;
	const char *kname = NULL;   /* --kernel LIST */
	IrBanksOpts bo = { 0 };
	DrvOptions o;
	size_t ntg;
	const TgtDesc *tg = tgt_all(&ntg);

	if (!args)
		return 1;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			usage(stdout);
			free(args);
			return 0;
		} else if (!strcmp(s, "--banks")) {
			continue;
		} else if (!strcmp(s, "--kernel") && i + 1 < argc) {
			kname = argv[++i];   /* the driver's --kernel: only it is compiled */
			args[n++] = "--kernel";
			args[n++] = argv[i];
		} else if (!strncmp(s, "--kernel=", 9)) {
			kname = s + 9;
			args[n++] = argv[i];
		} else if (!strncmp(s, "--samples=", 10)) {
			bo.samples = atoi(s + 10);
			if (bo.samples < 1 || bo.samples > 4096) {
				fprintf(stderr, "flyc: error: --samples needs a number from 1 to 4096\n");
				free(args);
				return 1;
			}
		} else if (!strcmp(s, "--addresses")) {
			bo.addresses = 1;
		} else if (!strcmp(s, "--expect-conflict-free") || !strcmp(s, "--expect-conflict-free=reads")) {
			expect = 1;
		} else if (!strcmp(s, "--expect-conflict-free=all")) {
			expect = 2;
		} else if (!strncmp(s, "--expect-conflict-free=", 23)) {
			fprintf(stderr, "flyc: error: --expect-conflict-free takes 'reads' or 'all', not '%s'\n", s + 23);
			free(args);
			return 1;
		} else if (!strncmp(s, "--arch=", 7) && nab < ARCH_MAX) {
			/* the spelling of flyc show --banks=BYTES, accepted here too */
			archbuf[nab] = malloc(strlen(s) + 16);
			if (!archbuf[nab])
				break;
			sprintf(archbuf[nab], "--offload-arch=%s", s + 7);
			args[n++] = archbuf[nab++];
			have_arch = 1;
		} else if (!strncmp(s, "--emit", 6) || !strcmp(s, "-S") || !strcmp(s, "-c") || !strncmp(s, "--svg", 5) ||
		           !strncmp(s, "--banks=", 8) || !strncmp(s, "--vec", 5)) {
			fprintf(stderr, "flyc: error: '%s' cannot be used with flyc show --banks FILE.fly\n", s);
			for (int k = 0; k < nab; k++)
				free(archbuf[k]);
			free(args);
			return 1;
		} else {
			if (!strncmp(s, "--offload-arch", 14))
				have_arch = 1;
			if (!strncmp(s, "-o", 2))
				have_out = 1;
			args[n++] = argv[i];
		}
	}
	if (!drv_parse_options(&o, n, args)) {
		drv_options_free(&o);
		for (int k = 0; k < nab; k++)
			free(archbuf[k]);
		free(args);
		return 1;
	}
	o.emit = DRV_EMIT_BANKS;
	if (!have_out)
		o.output = "-";
	if (!have_arch) {
		/* every supported arch; those without kernels are skipped */
		const char **a = realloc(o.archs, sizeof *a * ntg);
		if (!a) {
			drv_options_free(&o);
			free(args);
			return 1;
		}
		o.archs = a;
		o.narchs = 0;
		for (size_t k = 0; k < ntg; k++)
			o.archs[o.narchs++] = tg[k].name;
		bo.any_arch = 1;
	}
	o.banks = &bo;
	rc = drv_compile(&o);
	for (int k = 0; k < nab; k++)
		free(archbuf[k]);
	free(args);
	if (rc)
		return rc;
	if (!bo.kernels) {
		if (kname)
			fprintf(stderr, "flyc: error: no kernel named '%s' in this file (for the arches analysed)\n", kname);
		else
			fprintf(stderr, "flyc: error: no kernel to analyse\n");
		return 1;
	}
	if (expect) {
		int bad = bo.read_conflicts + (expect == 2 ? bo.write_conflicts : 0);
		int unknown = bo.read_unknown + (expect == 2 ? bo.write_unknown : 0);
		if (bad || unknown) {
			fprintf(stderr, "flyc: error: --expect-conflict-free%s: %d LDS %s with bank conflicts, %d not analysed\n",
			        expect == 2 ? "=all" : "", bad, expect == 2 ? "accesses" : "reads", unknown);
			return 1;
		}
	}
	return 0;
}
