/*
 * driver.h — entry points of flyc's sub-commands and the compiler's options.
 *
 * main.c only parses the first argument and dispatches: `flyc eval ...`,
 * `flyc show ...`, or (anything else) the compiler proper. Each entry takes the
 * arguments after the sub-command name and returns the process exit status;
 * none of them calls exit().
 *
 * The compiler proper (driver.c) reads the whole command line into a
 * DrvOptions, parses and checks the input (syntax.h, sema.h), and then either
 * stops (-fsyntax-only), prints the AST (--emit=ast) or hands the checked
 * program to the rest of the pipeline (drv_compile: codegen.h, then emit.h).
 */
#ifndef FLYC_DRIVER_H
#define FLYC_DRIVER_H

#include <stdbool.h>

/* Sub-commands: name, entry, one-line help. Add a row to add a sub-command. */
#define FLYC_SUBCOMMANDS(X) \
	X(eval, drv_eval_main, "evaluate layout-algebra expressions and print the results") \
	X(show, drv_show_main, "draw a layout or thread-value layout (text, --svg, --banks)")

#define X(name, fn, help) int fn(int argc, char **argv);
FLYC_SUBCOMMANDS(X)
#undef X

/* The compiler proper: flyc [options] file.fly. */
int drv_compile_main(int argc, char **argv);
/* flyc show --banks FILE.fly [options]: the LDS bank analysis of a kernel's
 * own accesses (driver_banks.c); drv_show_main hands such command lines over. */
int drv_show_banks_main(int argc, char **argv);

/* Version banner printed by --version (three lines). */
void drv_print_version(void);

/* What to produce (--emit=, -S, -c). DRV_EMIT_DEFAULT is a linked code object (.hsaco). */
#define DRV_EMITS(X) \
	X(DRV_EMIT_DEFAULT,  "hsaco") \
	X(DRV_EMIT_AST,      "ast") \
	X(DRV_EMIT_IR,       "ir") \
	X(DRV_EMIT_LLVM,     "llvm") \
	X(DRV_EMIT_ASM,      "asm") \
	X(DRV_EMIT_OBJ,      "obj") \
	X(DRV_EMIT_LAUNCHER, "launcher") \
	X(DRV_EMIT_BANKS,    "banks")

typedef enum {
#define X(k, s) k,
	DRV_EMITS(X)
#undef X
	DRV_NEMITS
} DrvEmit;

extern const char *const drv_emit_names[DRV_NEMITS];

typedef struct DrvDefine {
	const char *name;  /* -D NAME=VALUE */
	const char *value; /* "1" when only -D NAME was given */
} DrvDefine;

/*
 * The whole command line. Strings point into argv (never freed).
 * Lists keep command-line order.
 */
typedef struct DrvOptions {
	const char *input;        /* the .fly file; "-" = stdin */
	const char *output;       /* -o FILE; NULL = default name from the input; "-" = stdout */
	const char **archs;       /* --offload-arch=ARCH (repeatable); default {"gfx950"} */
	int narchs;
	DrvEmit emit;             /* --emit=KIND; -S sets DRV_EMIT_ASM, -c DRV_EMIT_OBJ */
	bool emit_S, emit_c;      /* -S / -c were given (-S with --emit=llvm: textual .ll) */
	int opt_level;            /* -O0..-O3; default 3 */
	DrvDefine *defines;       /* -D */
	int ndefines;
	const char **incdirs;     /* -I DIR, searched in order before the stdlib */
	int nincdirs;
	const char *stdlib_dir;   /* the stdlib folder found (may be NULL) */
	bool dep_MD, dep_MP;      /* -MD, -MP */
	const char *dep_MF;       /* -MF FILE (default: output with .d) */
	const char *dep_MT;       /* -MT TARGET (default: the output) */
	bool save_temps;          /* -save-temps */
	bool debug_info;          /* -g */
	const char **mllvm;       /* -mllvm ARG (repeatable) */
	int nmllvm;
	bool resource_usage;      /* --resource-usage */
	bool resource_usage_json; /* --resource-usage=json */
	bool syntax_only;         /* -fsyntax-only */
	bool werror;              /* -Werror */
	bool no_warnings;         /* -w */
	int color;                /* -1 auto (tty and NO_COLOR unset), 0 off, 1 on */
	bool diag_json;           /* -fdiagnostics-format=json */
	const char **print_after; /* --print-after=PASS (repeatable) */
	int nprint_after;
	bool print_after_all;     /* --print-after-all */
	bool no_gpu_bundle;       /* --no-gpu-bundle-output: one code object per arch (--gpu-bundle-output: one bundle, the default) */
	const char *ld_path;      /* --ld-path=PATH: the ld.lld to run (default: LLVM's bindir, then PATH) */
	const char *stop_after;   /* --stop-after=PASS */
	const char **kernels;     /* --kernel=LIST (repeatable): comma-separated names or fnmatch globs; none = all */
	int nkernels;
	const char *argv0;        /* for locating <bindir>/../share/flyc/stdlib */
	struct IrBanksOpts *banks; /* --emit=banks (flyc show --banks FILE): options and counts (ir_banks.h) */
} DrvOptions;

/*
 * Parses argv (without the program name) into *o. Errors ("unknown argument",
 * missing values, bad values) go to stderr clang-style; returns false on error.
 * The options' arrays are heap-allocated: release them with drv_options_free.
 */
bool drv_parse_options(DrvOptions *o, int argc, char **argv);
void drv_options_free(DrvOptions *o);

/* The compiler proper from parsed options (drv_parse_options); takes them
 * over and releases them. */
int drv_compile(DrvOptions *o);

/* Default output name for an input path and an extension ("hsaco", "s", ...), malloc'd. */
char *drv_default_output(const char *input, const char *ext);

#endif
