/*
 * codegen.h — code generation: checked kernel instances to flyc IR.
 *
 * Two steps of the pipeline (driver.c, drv_compile), after the checker
 * (sema.h) and before the back end (emit.h):
 *   cg_check_targets  every kernel instance for each arch uses only atoms and
 *                     instructions that arch has (targets(...) decides which
 *                     kernels are for which arch)
 *   cg_module         one IrFunc per kernel instance: signature, metadata, body
 * Both report to d; cg_check_targets returns 0 or 1, cg_module the module (the
 * caller frees it with ir_module_free) or NULL after at least one error.
 */
#ifndef FLYC_CODEGEN_H
#define FLYC_CODEGEN_H

#include "diag.h"
#include "ir.h"
#include "sema.h"
#include "target/target.h"

enum { CG_MAX_ARCHS = 16 };

typedef struct {
	const TgtDesc *archs[CG_MAX_ARCHS];   /* the --offload-arch list, in order */
	int narchs;
	const char *source_name;              /* for IR locations: the input file, or "<stdin>" */
	int banks_any_arch;                   /* flyc show --banks without --offload-arch (ir_banks.h) */
} CgOptions;

int cg_check_targets(SemaProgram *prog, const CgOptions *o, Diag *d);
IrModule *cg_module(SemaProgram *prog, const CgOptions *o, Diag *d);

#endif
