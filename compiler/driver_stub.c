/*
 * driver_stub.c — sub-commands whose implementation has not landed yet.
 * Each refuses with a clear message and exit status 1 (never a silent success).
 * A module that implements an entry deletes it from here.
 */
#include <stdio.h>

#include "driver.h"

static int
refuse(const char *what)
{
	fprintf(stderr, "flyc: error: %s is not available in this build yet\n", what);
	return 1;
}

int drv_show_main(int argc, char **argv) { (void)argc; (void)argv; return refuse("'flyc show'"); }

#include "codegen.h"

int
cg_run(const DrvOptions *opt, SemaProgram *prog, Diag *d)
{
	(void)opt;
	(void)prog;
	diag_error(d, SPAN_NONE, "code generation is not available in this build (use -fsyntax-only or --emit=ast)");
	return 1;
}
