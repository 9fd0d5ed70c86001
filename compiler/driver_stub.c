/*
 * driver_stub.c — entry points whose implementation has not landed yet.
 * Each refuses with a clear message and exit status 1 (never a silent success).
 * A module that implements an entry deletes it from here.
 */
#include <stdio.h>

#include "codegen.h"
#include "driver.h"

/* Code generation (branch codegen): until it lands, compiling refuses. */
int
cg_run(const DrvOptions *opt, SemaProgram *prog, Diag *d)
{
	(void)opt;
	(void)prog;
	diag_error(d, SPAN_NONE, "code generation is not available in this build (use -fsyntax-only or --emit=ast)");
	return 1;
}
