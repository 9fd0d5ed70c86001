/*
 * sema.h — name resolution, type checking, compile-time evaluation and
 * specialization: from parsed modules to a checked SemaProgram.
 *
 * Model
 * -----
 * sema_check() loads the main module and its imports (search path: -I dirs in
 * order, then the stdlib folder), checks every declaration, and instantiates
 * kernels: each `export K<P=v, ...> as NAME` gives one instance; a kernel that
 * no export names gives one instance under its own name, its compile-time
 * parameters taking their defaults overridden by -D NAME=VALUE.
 *
 * An instance annotates the kernel's AST in place; when a kernel has several
 * instances, each gets a private copy (ast_clone) to annotate. Every
 * expression node gets `type` (a Type) and, when its value is known at
 * compile time, `cval` (a Value); every E_NAME gets `u.name.sym`, and
 * every declaring statement (S_LET/S_VAR patterns, S_ALLOC, S_FOR, S_PIPELINE)
 * gets its Symbol. Compile-time parameters are therefore constants inside an
 * instance: `BM * 2` has cval 512 when BM = 256.
 *
 * Run-time leaves (kernel arguments such as M, thread/block ids, loop
 * variables) have no cval; an expression mixing them stays symbolic and code
 * generation computes it. Layouts fold to VAL_LAYOUT when shape and stride
 * are static int tuples, and layout algebra calls (composition, divides,
 * products, coalesce, complement, inverses, `o`) on static arguments are
 * evaluated by the layout library (compiler/layout/lay.h): the folded
 * Value carries the library value in Value.lay; a violated precondition is a
 * located error. Calls with run-time leaves are type-checked and stay
 * symbolic (cval NULL).
 *
 * Everything lives in the Arena passed to sema_check.
 */
#ifndef FLYC_SEMA_H
#define FLYC_SEMA_H

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "layout/lay.h"

/* Scalar element types: kind, spelling, bits, class (i=int, u=unsigned, f=float, b=bool, c=compile-time int). */
#define SEMA_SCALARS(X) \
	X(SC_INT,  "int",  64, 'c') /* compile-time / untyped integer */ \
	X(SC_BOOL, "bool",  1, 'b') \
	X(SC_I8,   "i8",    8, 'i') X(SC_I16, "i16", 16, 'i') X(SC_I32, "i32", 32, 'i') X(SC_I64, "i64", 64, 'i') \
	X(SC_U8,   "u8",    8, 'u') X(SC_U16, "u16", 16, 'u') X(SC_U32, "u32", 32, 'u') X(SC_U64, "u64", 64, 'u') \
	X(SC_F64,  "f64",  64, 'f') X(SC_F32, "f32", 32, 'f') X(SC_F16, "f16", 16, 'f') X(SC_BF16, "bf16", 16, 'f') \
	X(SC_FP8,  "fp8",   8, 'f') /* OCP E4M3FN */ \
	X(SC_BF8,  "bf8",   8, 'f') /* OCP E5M2 */ \
	X(SC_FP6,  "fp6",   6, 'f') /* E2M3 */ \
	X(SC_BF6,  "bf6",   6, 'f') /* E3M2 */ \
	X(SC_FP4,  "fp4",   4, 'f') /* E2M1 */ \
	X(SC_E8M0, "e8m0",  8, 'f') /* exponent-only scale */ \
	X(SC_FLOAT, "float", 64, 'F') /* untyped floating literal */

typedef enum {
#define X(k, s, b, c) k,
	SEMA_SCALARS(X)
#undef X
	SC_NKINDS
} ScalarKind;

extern const char *const sema_scalar_names[SC_NKINDS];
extern const int sema_scalar_bits[SC_NKINDS];

/* Type kinds: kind, name used in messages. */
#define SEMA_TYPES(X) \
	X(TY_ERROR,      "<error>")     /* after a reported error; silences follow-ups */ \
	X(TY_VOID,       "void") \
	X(TY_SCALAR,     "scalar")      /* .scalar */ \
	X(TY_TUPLE,      "tuple")       /* .elems, .nelems */ \
	X(TY_LAYOUT,     "layout")      /* .rank (-1 unknown); .swizzled */ \
	X(TY_SWIZZLE,    "swizzle") \
	X(TY_TILER,      "tiler")       /* .rank */ \
	X(TY_TENSOR,     "tensor")      /* .space, .scalar (element), .rank (-1 unknown) */ \
	X(TY_ATOM,       "atom")        /* .atom: the D_ATOM node */ \
	X(TY_TILED_COPY, "tiled_copy")  /* .atom */ \
	X(TY_TILED_MMA,  "tiled_mma")   /* .atom */ \
	X(TY_THR_COPY,   "thread copy slice") /* .atom */ \
	X(TY_THR_MMA,    "thread mma slice")  /* .atom */ \
	X(TY_OPERAND,    "mma operand layout") /* mma.A / .B / .C: .atom, .rank = operand index */ \
	X(TY_MODULE,     "module") \
	X(TY_TYPE,       "type")        /* a type used as a value, e.g. fragment_C(gC, f32): .scalar */ \
	X(TY_STR,        "string") \
	X(TY_FUNC,       "function")    /* a builtin: .builtin */ \
	X(TY_ENUM,       "enumerator")  /* wave, workgroup, mfma, ...: see SemaEnum */

typedef enum {
#define X(k, s) k,
	SEMA_TYPES(X)
#undef X
	TY_NKINDS
} TypeKind;

struct Type {
	TypeKind kind;
	ScalarKind scalar;   /* TY_SCALAR, TY_TENSOR (element), TY_TYPE */
	MemSpace space;      /* TY_TENSOR */
	int rank;            /* TY_TENSOR, TY_LAYOUT, TY_TILER: number of top-level modes, -1 unknown */
	bool swizzled;       /* TY_LAYOUT, TY_TENSOR: a swizzle is composed on */
	Type **elems;        /* TY_TUPLE */
	int nelems;
	Node *atom;          /* TY_ATOM and derived kinds: the D_ATOM declaration */
	Node *layout;        /* TY_TENSOR: the layout expression of its declaration (parameters, lds, reg), or NULL */
	int builtin;         /* TY_FUNC: SemaBuiltin */
};

/* Compile-time values. */
typedef enum {
	VAL_INT,     /* .i */
	VAL_BOOL,    /* .i (0/1) */
	VAL_FLOAT,   /* .f */
	VAL_STR,     /* .s, .len */
	VAL_TUPLE,   /* .elems, .nelems (int tuples: leaves VAL_INT) */
	VAL_LAYOUT,  /* .shape, .stride (congruent VAL_INT/VAL_TUPLE trees); .swz when swizzled */
	VAL_SWIZZLE, /* .swz */
	VAL_TYPE,    /* .scalar */
	VAL_ENUM,    /* .i: a SemaEnum */
	VAL_ATOM,    /* .atom: D_ATOM node */
} ValueKind;

struct Value {
	ValueKind kind;
	int64_t i;
	double f;
	const char *s;
	size_t len;
	Value **elems;
	int nelems;
	Value *shape, *stride;
	struct { int b, m, s; bool on; } swz;
	ScalarKind scalar;
	Node *atom;
	const lay_val *lay;  /* VAL_INT/TUPLE/LAYOUT/SWIZZLE: the same value in the layout library (lay.h), or NULL */
};

/* Enumerators accepted by schedule, reduction and atomic builtins (scopes wave..system
 * and orders relaxed..seq_cst are contiguous ranges). */
#define SEMA_ENUMS(X) \
	X(EN_THREAD, "thread") X(EN_LANES, "lanes") X(EN_WAVE, "wave") X(EN_WORKGROUP, "workgroup") \
	X(EN_AGENT, "agent") X(EN_SYSTEM, "system") \
	X(EN_ALU, "alu") X(EN_VALU, "valu") X(EN_SALU, "salu") X(EN_MFMA, "mfma") X(EN_WMMA, "wmma") \
	X(EN_VMEM, "vmem") X(EN_VMEM_READ, "vmem_read") X(EN_VMEM_WRITE, "vmem_write") \
	X(EN_DS, "ds") X(EN_DS_READ, "ds_read") X(EN_DS_WRITE, "ds_write") \
	X(EN_RELAXED, "relaxed") X(EN_ACQUIRE, "acquire") X(EN_RELEASE, "release") X(EN_ACQ_REL, "acq_rel") \
	X(EN_SEQ_CST, "seq_cst")

typedef enum {
#define X(k, s) k,
	SEMA_ENUMS(X)
#undef X
	EN_NENUMS
} SemaEnum;

extern const char *const sema_enum_names[EN_NENUMS];

/* Symbol kinds. */
#define SEMA_SYMS(X) \
	X(SYM_CONST,   "constant") \
	X(SYM_CTPARAM, "compile-time parameter") \
	X(SYM_PARAM,   "parameter")      /* run-time kernel argument: .index */ \
	X(SYM_LET,     "constant binding") \
	X(SYM_VAR,     "variable")       /* mutable; loop-carried when assigned in a loop */ \
	X(SYM_LOOP,    "loop variable") \
	X(SYM_LDS,     "LDS buffer")     /* .decl is the S_ALLOC */ \
	X(SYM_REG,     "register tensor") \
	X(SYM_TYPE,    "type") \
	X(SYM_BUILTIN, "builtin") \
	X(SYM_MODULE,  "module") \
	X(SYM_ATOM,    "atom") \
	X(SYM_KERNEL,  "kernel") \
	X(SYM_FN,      "function")       /* .node is the D_FN, .module its module */ \
	X(SYM_FNPARAM, "function parameter") /* .bound is the argument of this call */

typedef enum {
#define X(k, s) k,
	SEMA_SYMS(X)
#undef X
	SYM_NKINDS
} SymKind;

struct Symbol {
	SymKind kind;
	const char *name;
	Span decl;          /* where declared (for "note: declared here") */
	Type *type;
	Value *val;         /* compile-time value, or NULL */
	Node *node;         /* declaring node (kernel, atom, alloc, ...) when there is one */
	int index;          /* SYM_PARAM: argument position; others: unique id in the instance */
	bool used, assigned_in_loop;
	Node *bound;        /* SYM_LET, SYM_FNPARAM: the expression bound (a let's init, a call's argument) */
	Symbol *shadow;     /* internal: previous binding of the same name */
	int level;          /* internal: scope nesting level where bound */
	struct SemaModule *module; /* SYM_MODULE: the module; SYM_FN: the module declaring it */
	int fn_active;      /* SYM_FN, internal: calls being checked (a second one is recursion) */
	bool fn_checked;    /* SYM_FN, internal: one call was checked (later ones warn no more) */
};

typedef struct SemaModule {
	const char *name;
	const char *path;   /* file as opened */
	AstModule *ast;
	Symbol **syms;      /* its module-level symbols (atoms, consts, kernels, functions) */
	int nsyms;
	Symbol **imports;   /* its imported modules (SYM_MODULE), what its functions' bodies may name */
	int nimports;
	bool loading;       /* internal: being checked (import cycles) */
} SemaModule;

/*
 * A checked call of a device function (`fn`), in Node.u.call.fn of the E_CALL.
 * Every call is checked with its own copy of the function (decl): its
 * parameters bound to the call's arguments (params[i]->bound), compile-time
 * parameters to their values, so code generation inlines decl's body with
 * params[i] bound to the arguments' values. ret is the returned expression
 * (the body's last statement), NULL for a function without a result.
 */
struct SemaFnCall {
	Symbol *fn;             /* the SYM_FN called */
	Node *decl;             /* the D_FN, copied and annotated for this call */
	Symbol **params;        /* SYM_FNPARAM, in order */
	int nparams;
	Node *ret;              /* the value returned, or NULL */
};

/* One instance of a kernel to emit. */
typedef struct SemaKernel {
	const char *name;       /* symbol name of the code object's kernel (export alias or kernel name) */
	Node *decl;             /* the D_KERNEL, cloned and annotated for this instance */
	Symbol **ct;            /* compile-time parameters with their values (val set) */
	int nct;
	Symbol **params;        /* run-time parameters in order (SYM_PARAM, .type TY_TENSOR global or TY_SCALAR) */
	int nparams;
	int64_t block[3];       /* block(x[, y[, z]]) — threads per workgroup, compile-time */
	Node *grid[3];          /* grid(x[, y[, z]]) formulas (may depend on run-time int params); NULL = 1 */
	NodeList requires;      /* support predicates (bool expressions over parameters) */
	int waves_per_eu;       /* waves_per_eu(n) clause, 0 = none */
	unsigned targets;       /* targets(...) clause: tgt_bit bits of the architectures this kernel is for; 0 = all */
	Symbol **lds;           /* LDS buffers of the kernel in declaration order */
	int nlds;
	int64_t lds_bytes;      /* sum of the static LDS buffers' sizes (cosize * element bytes), -1 unknown */
} SemaKernel;

/* An architecture's bit in SemaKernel.targets (targets(...)): its row's bit in
 * the target table (tgt_bit, target/target.h), 0 if flyc does not know it. */
unsigned sema_target_bit(const char *arch);

typedef struct SemaProgram {
	SemaModule *main;
	SemaModule **modules;   /* main first, then imports in load order */
	int nmodules;
	const char **files;     /* every file read (for -MD depfiles) */
	int nfiles;
	SemaKernel **kernels;
	int nkernels;
	lay_arena *lay_arena;   /* owns the lay_val of every Value.lay; freed by sema_program_free */
} SemaProgram;

typedef struct SemaDefine {
	const char *name, *value;
} SemaDefine;

typedef struct SemaOptions {
	const char *const *incdirs;  /* searched in order */
	int nincdirs;
	const char *stdlib_dir;      /* searched last (may be NULL) */
	const SemaDefine *defines;   /* -D NAME=VALUE */
	int ndefines;
} SemaOptions;

/*
 * Checks the parsed main module (from parse_module)
 * and everything it imports. Returns the program (never NULL); the caller
 * must test diag_errors(d) before using it.
 */
SemaProgram *sema_check(Arena *a, Diag *d, AstModule *main, const SemaOptions *o);

/* Releases what sema_check allocated outside the Arena (the layout library's arena). */
void sema_program_free(SemaProgram *p);

/* A deep copy of a subtree (types/values/symbols are not copied). */
Node *ast_clone(Arena *a, const Node *n);

/* Prints every instance: compile-time values, block, LDS, requires (part of --emit=ast). */
void sema_dump_instances(FILE *out, const Diag *d, const SemaProgram *p);

/* Printing helpers for messages and dumps. */
const char *sema_type_str(Arena *a, const Type *t);
void sema_print_value(FILE *out, const Value *v);

#endif
