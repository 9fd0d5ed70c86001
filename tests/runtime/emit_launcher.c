/* emit_launcher.c — calls drv_emit_launcher (compiler/launcher.c) the way
 * `flyc --emit=launcher` does (the driver calls it; tests/e2e/run.sh tests that path).
 * usage: emit_launcher CODEOBJ BASENAME OUT_DIR */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "launcher.h"

int
main(int argc, char **argv)
{
	char err[1024];
	size_t n;
	unsigned char *buf;

	if (argc != 4) {
		fprintf(stderr, "usage: emit_launcher CODEOBJ BASENAME OUT_DIR\n");
		return 2;
	}
	if (!(buf = (unsigned char *)fio_read_file(argv[1], (size_t)1 << 30, &n))) {
		fprintf(stderr, "emit_launcher: cannot read '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (drv_emit_launcher(buf, n, argv[2], argv[3], err, sizeof err)) {
		fprintf(stderr, "emit_launcher: error: %s\n", err);
		free(buf);
		return 1;
	}
	free(buf);
	return 0;
}
