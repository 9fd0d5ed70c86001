/* lower_llvm.h — IR to LLVM AMDGPU IR (see lower_llvm.c for the ABI choices). */
#ifndef FLY_LOWER_LLVM_H
#define FLY_LOWER_LLVM_H

#include <llvm-c/Core.h>

#include "ir.h"

struct TgtDesc;

typedef struct {
	int opt_level;      /* 0..3, recorded in debug info */
	int debug_info;     /* -g: line tables */
} LowerOpts;

/* Builds an LLVM module (in ctx) holding every kernel of m, for target t,
 * with the .flyc.meta section attached. m must have been through
 * ir_run_passes. Returns NULL after reporting an error to d. */
LLVMModuleRef ir_lower_llvm(IrModule *m, LLVMContextRef ctx, const struct TgtDesc *t,
                            const LowerOpts *o, IrDiag *d);

/* Interleaves each software pipeline's steady-state iteration (marked by
 * codegen_pipe.c, !flyc.pipe.begin/end) for in-order MFMA issue; run after
 * LLVM's optimization pipeline (lower_sched.c). */
void lower_sched_pipelines(LLVMModuleRef mod);

/* The .flyc.meta text (docs/metadata.md) for m; malloc'ed, caller frees. */
char *ir_meta_text(const IrModule *m);

#endif
