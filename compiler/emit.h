/*
 * emit.h — from IR to files: flyc's IR passes, LLVM's O-level pipeline, the
 * AMDGPU backend, linking with ld.lld, offload bundles, resource usage.
 *
 * The back half of flyc is a job (emit_begin .. emit_finish) and, for each
 * --offload-arch, these steps in order; each returns EMIT_NEXT to go on,
 * EMIT_DONE when the requested output is reached, or EMIT_ERROR:
 *   emit_arch_begin    the kernels whose targets(...) name the arch
 *   emit_passes        ir_run_passes      (--print-after / --stop-after / --emit=ir, banks)
 *   emit_llvm          ir_lower_llvm + LLVMRunPasses default<On>   (--emit=llvm)
 *   emit_machine_code  LLVMTargetMachineEmitToMemoryBuffer         (--emit=asm, obj)
 *   emit_link          ld.lld-22 -shared: the code object
 *   emit_arch_end
 * emit_finish writes one file, one clang offload bundle for several arches (or
 * one file per arch) and the --resource-usage report read back from each code
 * object. driver.c's drv_compile calls these steps; emit_compile runs them all
 * for tools that hold an IR module.
 */
#ifndef FLY_EMIT_H
#define FLY_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"

typedef enum {
	EMIT_IR,        /* flyc IR text after all IR passes (or --stop-after) */
	EMIT_LLVM,      /* LLVM IR text after the O-level pipeline (.ll) */
	EMIT_LLVM_BC,   /* the same as bitcode (.bc) */
	EMIT_ASM,       /* AMDGPU assembly (.s) */
	EMIT_OBJ,       /* relocatable object before linking (.o) */
	EMIT_CODEOBJ,   /* linked code object (.hsaco); a bundle for several arches */
	EMIT_BANKS      /* LDS bank-conflict report of the IR (ir_banks.h), text */
} EmitKind;

enum { EMIT_MAX_ARCHS = 16 };

typedef struct {
	const char *archs[EMIT_MAX_ARCHS];  /* processor names, e.g. "gfx950" */
	int narchs;                          /* 0: gfx950 */
	int opt_level;                       /* 0..3 */
	EmitKind emit;
	const char *output;                  /* "-" = stdout; NULL = derived from input_name */
	const char *input_name;              /* as given ("-" for stdin), for names and debug info */
	int no_bundle;                       /* several arches: one file per arch instead of a bundle */
	IrPassOpts passes;                   /* --print-after, --print-after-all, --stop-after */
	int save_temps;                      /* keep NAME-ARCH.{ir,ll,opt.ll,s,o,hsaco} in the cwd */
	int debug_info;                      /* -g */
	const char **mllvm; int nmllvm;      /* -mllvm options, passed to LLVM once */
	int resource_usage;                  /* --resource-usage */
	int resource_json;                   /* --resource-usage=json */
	const char *ld_lld;                  /* linker to run; NULL: FLY_LLVM_BINDIR/ld.lld, then PATH */
	struct IrBanksOpts *banks;           /* EMIT_BANKS: kernel filter, draws; receives the counts */
} EmitOptions;

enum { EMIT_NEXT, EMIT_ERROR, EMIT_DONE };

typedef struct EmitJob EmitJob;

/* A job for module m: NULL (reported to d) for an unknown or repeated arch. */
EmitJob *emit_begin(IrModule *m, const EmitOptions *o, IrDiag *d);
int emit_narchs(const EmitJob *j);                /* 0 for NULL */
int emit_arch_begin(EmitJob *j, int i);
int emit_passes(EmitJob *j);
int emit_llvm(EmitJob *j);
int emit_machine_code(EmitJob *j);
int emit_link(EmitJob *j);
void emit_arch_end(EmitJob *j, int r);            /* r: the last step's result */
/* Writes the outputs unless a step failed (no output file is left half-written),
 * frees j (NULL allowed: returns 1); 0 on success, 1 after an error reported to d. */
int emit_finish(EmitJob *j);

/* All of the above in order. */
int emit_compile(IrModule *m, const EmitOptions *o, IrDiag *d);

/* Bytes of a clang offload bundle (format in amdgpu-facts §1.6, the same bytes
 * clang-offload-bundler-22 -type=o -bundle-align=4096 writes) holding an empty
 * host entry and one code object per arch, in order. malloc'ed; NULL on OOM. */
uint8_t *emit_bundle(int n, const char *const *archs, const uint8_t *const *objs,
                     const size_t *sizes, size_t *out_size);

/* Per-kernel resource usage of a linked code object. */
typedef struct {
	char name[256];
	unsigned vgprs, agprs, sgprs;        /* .vgpr_count is vgprs (+ agprs on gfx950) */
	unsigned scratch, vgpr_spills, sgpr_spills;
	unsigned lds;
	unsigned occupancy;                  /* waves per SIMD */
	unsigned block;                      /* .max_flat_workgroup_size */
	int dynamic_stack;
} EmitUsage;

/* Reads the usage of every kernel of code object co (max n entries) for
 * processor arch; returns the count, or -1 with a message in err. */
int emit_usage(const void *co, size_t size, const char *arch, EmitUsage *out, int n,
               char *err, size_t errlen);

/* Finds ld.lld: explicit path, then FLY_LLVM_BINDIR/ld.lld, ld.lld-22 and
 * ld.lld on PATH. Returns a malloc'ed path or NULL. */
char *emit_find_lld(const char *explicit_path);

#endif
