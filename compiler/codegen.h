/*
 * codegen.h — the code generator's entry point (implemented on branch codegen).
 *
 * drv_compile_main calls cg_run for every --emit other than ast (and when no
 * --emit is given) after the program checked without errors. The SemaProgram
 * (sema.h) holds one SemaKernel per kernel instance to emit; cg_run writes the
 * outputs named by opt (-o, --offload-arch, --emit, -S, -c, ...), reports
 * problems to d, and returns 0 on success or 1 on error (with at least one
 * error reported and no output file left behind).
 */
#ifndef FLYC_CODEGEN_H
#define FLYC_CODEGEN_H

#include "diag.h"
#include "driver.h"
#include "sema.h"

int cg_run(const DrvOptions *opt, SemaProgram *prog, Diag *d);

#endif
