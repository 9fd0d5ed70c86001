/* emit_launcher.c — calls drv_emit_launcher (compiler/launcher.c) the way
 * `flyc --emit=launcher` does (the driver calls it; tests/e2e/run.sh tests that path).
 * usage: emit_launcher CODEOBJ BASENAME OUT_DIR */
#include <stdio.h>
#include <stdlib.h>

#include "launcher.h"

int
main(int argc, char **argv)
{
	char err[1024];
	FILE *f;
	long n;
	unsigned char *buf;

	if (argc != 4) {
		fprintf(stderr, "usage: emit_launcher CODEOBJ BASENAME OUT_DIR\n");
		return 2;
	}
	if (!(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "emit_launcher: cannot open '%s'\n", argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "emit_launcher: cannot read '%s'\n", argv[1]);
		return 1;
	}
	fclose(f);
	if (drv_emit_launcher(buf, (size_t)n, argv[2], argv[3], err, sizeof err)) {
		fprintf(stderr, "emit_launcher: error: %s\n", err);
		free(buf);
		return 1;
	}
	free(buf);
	return 0;
}
