/*
 * ir.h — flyc's layout-aware IR, between the checker and LLVM.
 *
 * Model. A module holds kernels (IrFunc). A kernel is a tree of regions of
 * instructions with structured control flow (`for`, `if`) in the style of
 * MLIR's scf dialect: a region is an ordered list of instructions; `for` and
 * `if` own regions; values flow out of them through `yield` and are read with
 * `proj`. Every value is produced by exactly one instruction and is named by
 * that instruction's handle, an IrRef: a small index into the kernel's
 * instruction array (0 is "no value"). Handles never move, so they print
 * stably as %N and passes can rewrite by index without pointer chasing.
 *
 * Tensors are first-class: `tensor.global` binds a pointer argument to an
 * element type and a CuTe layout (shape:stride, static or run-time leaves,
 * optional swizzle), `lds.alloc` declares a workgroup buffer with a static
 * (possibly swizzled, possibly multi-stage) layout. `tload`/`tstore` address
 * a tensor by logical coordinate, one coordinate per top-level mode (a mode's
 * coordinate is a 1-D index into that mode, split colexicographically as in
 * CuTe's idx2crd). The `lower-layout` pass turns coordinates into element
 * offsets with plain integer ops, folding every static part to an immediate
 * (`ld`/`st` with an offset operand); `hoist` moves loop-invariant index math
 * out of loops; `lower_llvm.c` maps the result to LLVM AMDGPU IR.
 *
 * Example (printed by ir_print, the stable text form):
 *
 *   kernel @copy(x: ptr bf16 align 16, out: ptr bf16 align 16, n: i32) block(256,1,1) {
 *     %1 = arg 0 : ptr
 *     %2 = arg 2 : i32
 *     %3 = tensor.global %1 : bf16 (%2):(1) addr=auto
 *     %4 = thread_id x : i32
 *     %5 = tload %3[%4] : <8 x bf16>
 *   }
 *
 * Invariants (checked by ir_verify): operands are defined before use in the
 * same region or an enclosing one; operand and result types agree per op;
 * tload/tstore coordinate counts match the tensor's rank; a `for` body begins
 * with its induction variable and iteration arguments (op `rarg`) and ends
 * with `yield` of one value per iteration argument; `if` regions end with
 * `yield` of one value per result.
 *
 * Memory: all IR storage lives in the module's arena, released by
 * ir_module_free. Nothing is freed individually.
 */
#ifndef FLY_IR_H
#define FLY_IR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint32_t IrRef;     /* instruction (= value) handle in its IrFunc; 0 = none */
typedef uint32_t IrRegion;  /* region handle in its IrFunc; 0 = none, 1 = the body */

/* ---- types ---------------------------------------------------------------- */

/* Scalar kinds: enum name, spelling, bits. */
#define IR_SCALARS(X) \
	X(VOID, "void", 0) \
	X(I1,   "i1",   1) \
	X(I8,   "i8",   8) \
	X(I16,  "i16",  16) \
	X(I32,  "i32",  32) \
	X(I64,  "i64",  64) \
	X(F16,  "f16",  16) \
	X(BF16, "bf16", 16) \
	X(F32,  "f32",  32) \
	X(I4,   "i4",   4)    /* packed 4-bit storage (fp4): 2 per byte, element 0 in the low nibble */ \
	X(I6,   "i6",   6)    /* packed 6-bit storage (fp6, bf6): bit-packed little-endian, 4 in 3 bytes */ \
	X(PTR,  "ptr",  64)   /* a global pointer argument */ \
	X(TENSOR, "tensor", 0) /* a tensor handle (tensor.global, lds.alloc) */ \
	X(TUPLE, "tuple", 0)   /* multi-result op (for/if); read with proj */

typedef enum {
#define X(e, s, b) IR_##e,
	IR_SCALARS(X)
#undef X
	IR_SCALAR_COUNT
} IrScalar;

/* A value type: a scalar kind, or a vector of LANES scalars (lanes > 1, at
 * most IR_MAX_LANES; codegen keeps register fragments far below, see
 * CG_MAXFRAG in codegen_int.h). */
enum { IR_MAX_LANES = 4096 };
typedef struct {
	uint8_t kind;    /* IrScalar */
	uint16_t lanes;  /* 1 for scalars */
} IrType;

IrType ir_ty(IrScalar k);
IrType ir_vec(IrScalar k, unsigned lanes);
int ir_ty_eq(IrType a, IrType b);
int ir_ty_is_int(IrType t);     /* i1..i64, scalar or vector */
int ir_ty_is_float(IrType t);
unsigned ir_scalar_bits(IrScalar k);
/* i4/i6: elements packed below a byte (not integers: no arithmetic, no cvt);
 * vectors of them are bit-packed, element 0 in the lowest bits */
int ir_scalar_packed(IrScalar k);
/* bytes that n elements of k occupy in memory (packed: n * bits / 8, rounded up) */
uint64_t ir_scalar_bytes(IrScalar k, uint64_t n);
const char *ir_scalar_name(IrScalar k);
/* "i32", "<8 x bf16>", ... into buf (at least 32 bytes); returns buf. */
const char *ir_ty_str(IrType t, char *buf, size_t n);

/* ---- layouts --------------------------------------------------------------- */

/* A nested integer tuple: a leaf (n == 0) is a static integer VALUE or, when
 * DYN != 0, the run-time value DYN (an i32/i64 IR value); an inner node has n
 * children. */
typedef struct IrTuple IrTuple;
struct IrTuple {
	int n;                /* 0: leaf */
	int64_t value;        /* leaf: static value (when dyn == 0) */
	IrRef dyn;            /* leaf: run-time value, or 0 */
	IrTuple **kid;        /* n children */
};

/* CuTe Swizzle<B,M,S>: offset ^ ((offset >> S) & (((1<<B)-1) << M)) with the
 * mask applied at bit M+S before the shift; B == 0 means none. Applied to the
 * element offset the layout produces. */
typedef struct { int b, m, s; } IrSwizzle;

typedef struct {
	IrTuple *shape, *stride;   /* congruent trees */
	IrSwizzle sw;
} IrLayout;

/* ---- tensors --------------------------------------------------------------- */

typedef enum { IR_SPACE_GLOBAL, IR_SPACE_LDS, IR_SPACE_IDENTITY } IrSpace;

/* How a global tensor is addressed (decided by lower-layout when AUTO). */
typedef enum {
	IR_ADDR_AUTO,      /* buffer if the byte span provably fits 32 bits, else global64 */
	IR_ADDR_BUFFER,    /* buffer resource descriptor, 32-bit offsets (refused if it may wrap) */
	IR_ADDR_GLOBAL64   /* flat global pointer + 64-bit offsets */
} IrAddr;

typedef struct {
	IrSpace space;
	IrScalar elem;
	IrLayout layout;
	IrAddr addr;
	uint64_t span_bound;  /* global: known upper bound of the byte span, 0 = unknown */
	const char *name;     /* for messages and LDS symbol names */
	uint32_t lds_offset;  /* LDS: byte offset assigned by lds-alloc */
	uint32_t align;       /* bytes the base is aligned to */
} IrTensor;

/* ---- instructions ---------------------------------------------------------- */

/* Op table: enum name, spelling, operand count (-1: variadic), flags.
 * Flags: P pure (no side effects, may be hoisted/folded), R has regions,
 * T terminator. imm/aux use per op is given in the comment. */
enum { IR_PURE = 1, IR_REGIONS = 2, IR_TERM = 4, IR_SIDE = 8 };
#define IR_OPS(X) \
	X(CONST,   "const",   0, IR_PURE)        /* imm[0] integer or fimm, type */ \
	X(ARG,     "arg",     0, IR_PURE)        /* imm[0] = parameter index */ \
	X(TID,     "thread_id", 0, IR_PURE)      /* imm[0] = dim 0..2 */ \
	X(BID,     "block_id",  0, IR_PURE)      /* imm[0] = dim 0..2 */ \
	X(WAVESIZE,"wave_size", 0, IR_PURE)      /* the target's wave size (i32), fixed at LLVM lowering */ \
	X(ADD,     "add",     2, IR_PURE) \
	X(SUB,     "sub",     2, IR_PURE) \
	X(MUL,     "mul",     2, IR_PURE) \
	X(DIV,     "div",     2, IR_PURE)        /* unsigned (index arithmetic) */ \
	X(REM,     "rem",     2, IR_PURE)        /* unsigned */ \
	X(SDIV,    "sdiv",    2, IR_PURE) \
	X(SREM,    "srem",    2, IR_PURE) \
	X(AND,     "and",     2, IR_PURE) \
	X(OR,      "or",      2, IR_PURE) \
	X(XOR,     "xor",     2, IR_PURE) \
	X(SHL,     "shl",     2, IR_PURE) \
	X(SHR,     "shr",     2, IR_PURE)        /* logical */ \
	X(SAR,     "sar",     2, IR_PURE)        /* arithmetic (>> on a signed integer) */ \
	X(MIN,     "min",     2, IR_PURE)        /* signed */ \
	X(MAX,     "max",     2, IR_PURE) \
	X(CMP,     "cmp",     2, IR_PURE)        /* imm[0] = IrCmp; result i1 */ \
	X(SELECT,  "select",  3, IR_PURE)        /* cond, a, b */ \
	X(FADD,    "fadd",    2, IR_PURE) \
	X(FSUB,    "fsub",    2, IR_PURE) \
	X(FMUL,    "fmul",    2, IR_PURE) \
	X(FDIV,    "fdiv",    2, IR_PURE) \
	X(FMIN,    "fmin",    2, IR_PURE) \
	X(FMAX,    "fmax",    2, IR_PURE) \
	X(FMA,     "fma",     3, IR_PURE) \
	X(FNEG,    "fneg",    1, IR_PURE) \
	X(SQRT,    "sqrt",    1, IR_PURE) \
	X(RSQRT,   "rsqrt",   1, IR_PURE) \
	X(EXP2,    "exp2",    1, IR_PURE) \
	X(FN,      "fn",      1, IR_PURE)        /* imm[0] = IrFn: a float function of one operand (IR_FNS) */ \
	X(CVT,     "cvt",     1, IR_PURE)        /* to the result type (int/float, widths, lanes equal) */ \
	X(CVTPK,   "cvt_pk",  1, IR_PURE)        /* f32 vector <-> packed i4/i6 vector (lanes equal); imm[0] = \
	                                            format: 2 fp6, 3 bf6, 4 fp4; round to nearest even, saturating \
	                                            (gfx950 v_cvt_scalef32_* with scale 1.0) */ \
	X(SPLAT,   "splat",   1, IR_PURE)        /* scalar -> vector of result lanes */ \
	X(EXTRACT, "extract", 1, IR_PURE)        /* imm[0] = lane; result a scalar, or (i4/i6 only) a vector of \
	                                            result-lanes elements from lane imm[0] on */ \
	X(INSERT,  "insert",  2, IR_PURE)        /* vector, scalar (or an i4/i6 vector: lanes from imm[0] on); \
	                                            imm[0] = lane */ \
	X(TGLOBAL, "tensor.global", 1, IR_PURE)  /* ptr arg; aux = tensor index */ \
	X(LDSALLOC,"lds.alloc", 0, IR_PURE)      /* aux = tensor index */ \
	X(TVIEW,   "tensor.view", 2, IR_PURE)    /* parent tensor, element offset; aux = tensor index: its layout maps \
	                                            a view coordinate to an offset added to the parent's */ \
	X(TIDENT,  "tensor.identity", 0, IR_PURE)/* aux = tensor index (elem i32): an element is its own offset */ \
	X(TLOAD,   "tload",  -1, IR_SIDE)        /* tensor, coords...; result <lanes x elem> */ \
	X(TSTORE,  "tstore", -1, IR_SIDE)        /* tensor, value, coords... */ \
	X(LD,      "ld",      2, IR_SIDE)        /* tensor, element offset (after lower-layout) */ \
	X(ST,      "st",      3, IR_SIDE)        /* tensor, value, element offset */ \
	X(LDSDMA,  "lds_dma", -1, IR_SIDE)       /* src view, dst view (each at coordinate 0); after lower-layout: \
	                                            src root, src offset, LDS root, LDS offset. imm[0] bytes per lane, \
	                                            imm[1] bytes between lanes in LDS: a load straight to LDS (gfx950) */ \
	X(LDTR,    "ld_tr",  -1, IR_SIDE)        /* LDS or global view (at coordinate 0); after lower-layout: root, \
	                                            offset. Result <n x elem>: from LDS ds_read_b64_tr_b<imm[0]> \
	                                            (gfx950, values exchanged within groups of 16 lanes); from global \
	                                            memory global_load_tr_b128 (imm[0] 16) or _b64 (8) (gfx12, an \
	                                            8x8 transpose within groups of 8 lanes) */ \
	X(BITCAST, "bitcast", 1, IR_PURE)        /* the operand's bits as the result type (32-bit scalars) */ \
	X(UNIFORM, "readfirstlane", 1, IR_PURE)  /* i32 value that is the same in every active lane (a wave index): \
	                                            its first active lane's copy, so it lives in an SGPR and branches on it are scalar */ \
	X(SHFLXOR, "shfl_xor", 2, IR_SIDE)       /* value (32-bit scalar), i32 mask: x of lane (lane ^ mask) (mask modulo \
	                                            the wave size; a constant mask picks DPP, ds_swizzle or permlane, \
	                                            else ds_bpermute); imm[0] 1: the whole wave runs it, so gfx950 \
	                                            may use v_permlane32_swap; convergent */ \
	X(SHFL,    "shfl",    2, IR_SIDE)        /* value (32-bit scalar), i32 lane: x of lane (lane modulo the wave size) \
	                                            via ds_bpermute; an inactive source lane gives 0; convergent */ \
	X(READLANE,"readlane",2, IR_SIDE)        /* value (32-bit scalar), i32 lane the same in every lane: v_readlane; \
	                                            imm[0] 1: the first active lane's (v_readfirstlane, lane unused) */ \
	X(BALLOT,  "ballot",  1, IR_SIDE)        /* i1 -> i64: bit l set when lane l is active and its operand true */ \
	X(ATOMIC,  "atomic", -1, IR_SIDE)        /* tensor, value [, desired (cas)], coords...; after lower-layout: root, \
	                                            value [, desired], element offset. imm[0] IrAtomic, imm[1] IrScope, \
	                                            imm[2] IrOrder; result the element's old value (the tensor's type) */ \
	X(FENCE,   "fence",   0, IR_SIDE)        /* imm[0] IrScope, imm[1] IrOrder (not relaxed) */ \
	X(MMA,     "mma",    -1, IR_SIDE)        /* a, b, c [, scale_a, scale_b]: D = A*B + C by the intrinsic named in sym; \
	                                            imm[0]/imm[1] = A/B format codes of the scaled f8f6f4 form; convergent */ \
	X(BARRIER, "barrier", 0, IR_SIDE)        /* workgroup barrier */ \
	X(WAIT,    "wait",    0, IR_SIDE)        /* imm[0] vmem, imm[1] lds/smem, imm[2] stores; -1 = don't care */ \
	X(SCHEDGRP,"sched_group", 0, IR_SIDE)    /* imm[0] mask, imm[1] count, imm[2] sync id */ \
	X(SCHEDBAR,"sched_barrier", 0, IR_SIDE)  /* imm[0] mask; imm[1] 1/2: a pipeline's compute block \
	                                            begins/ends here (lower_sched.c) */ \
	X(SETPRIO, "setprio", 0, IR_SIDE)        /* imm[0] 0..3 */ \
	X(FOR,     "for",    -1, IR_REGIONS)     /* lb, ub, step, inits...; region[0] body; tuple result */ \
	X(IF,      "if",     -1, IR_REGIONS)     /* cond; region[0] then, region[1] else; tuple result */ \
	X(WHILE,   "while",  -1, IR_REGIONS)     /* inits...; region[0] before: rargs, yield cond, vals...; \
	                                            region[1] body: rargs, yield vals...; tuple result */ \
	X(RARG,    "rarg",    0, IR_PURE)        /* region argument: imm[0] index (0 = for's iv) */ \
	X(PROJ,    "proj",    1, IR_PURE)        /* imm[0]-th result of a for/if */ \
	X(YIELD,   "yield",  -1, IR_TERM)        /* values leaving a region */ \
	X(RET,     "ret",     0, IR_TERM)

typedef enum {
#define X(e, s, n, f) IR_OP_##e,
	IR_OPS(X)
#undef X
	IR_OP_COUNT
} IrOp;

/* Float functions of one operand (IR_OP_FN): enum name, spelling, the LLVM
 * intrinsic it lowers to (suffixed with the type). The llvm.* ones are LLVM's
 * accurate expansions; the amdgcn ones the raw hardware instructions
 * (v_exp_f32, v_log_f32, v_rcp_f32: no denormal scaling), which flyc's
 * fast_* builtins expose (f16 and f32 only). The last three count bits of an
 * integer operand (result its type; clz and ctz of 0 are the width). */
#define IR_FNS(X) \
	X(LOG,     "log",     "llvm.log") \
	X(LOG2,    "log2",    "llvm.log2") \
	X(EXP,     "exp",     "llvm.exp") \
	X(FLOOR,   "floor",   "llvm.floor") \
	X(CEIL,    "ceil",    "llvm.ceil") \
	X(HW_EXP2, "hw_exp2", "llvm.amdgcn.exp2") \
	X(HW_LOG2, "hw_log2", "llvm.amdgcn.log") \
	X(HW_RCP,  "hw_rcp",  "llvm.amdgcn.rcp") \
	X(RINT,    "rint",    "llvm.rint") \
	X(HW_SIN,  "hw_sin",  "llvm.amdgcn.sin") \
	X(HW_COS,  "hw_cos",  "llvm.amdgcn.cos") \
	X(POPCOUNT,"popcount","llvm.ctpop") \
	X(CLZ,     "clz",     "llvm.ctlz") \
	X(CTZ,     "ctz",     "llvm.cttz")

typedef enum {
#define X(e, s, l) IR_FN_##e,
	IR_FNS(X)
#undef X
	IR_FN_COUNT
} IrFn;

extern const char *const ir_fn_name[IR_FN_COUNT];
extern const char *const ir_fn_llvm[IR_FN_COUNT];

/* Atomic read-modify-write operations (IR_OP_ATOMIC imm[0]): enum name,
 * spelling. cas compares the value operand with the element (bitwise) and
 * stores the desired operand when they are equal; inc and dec wrap as
 * LLVM's uinc_wrap/udec_wrap (old >= v ? 0 : old + 1; old == 0 || old > v ?
 * v : old - 1, unsigned); min/max are signed (smin/smax) or unsigned. */
#define IR_ATOMICS(X) \
	X(ADD, "add") X(SUB, "sub") X(SMIN, "smin") X(SMAX, "smax") X(UMIN, "umin") X(UMAX, "umax") \
	X(AND, "and") X(OR, "or") X(XOR, "xor") X(INC, "inc") X(DEC, "dec") X(XCHG, "xchg") \
	X(FADD, "fadd") X(CAS, "cas")

typedef enum {
#define X(e, s) IR_ATOMIC_##e,
	IR_ATOMICS(X)
#undef X
	IR_ATOMIC_COUNT
} IrAtomic;

/* Memory scopes of atomics and fences: enum name, spelling, the LLVM AMDGPU
 * syncscope ("" is the system scope; LLVM AMDGPUUsage "Memory Scopes"). */
#define IR_SCOPES(X) \
	X(WAVE, "wave", "wavefront") X(WORKGROUP, "workgroup", "workgroup") \
	X(AGENT, "agent", "agent") X(SYSTEM, "system", "")

typedef enum {
#define X(e, s, l) IR_SCOPE_##e,
	IR_SCOPES(X)
#undef X
	IR_SCOPE_COUNT
} IrScope;

/* Memory orders (C++ / LLVM: relaxed is LLVM's monotonic). */
#define IR_ORDERS(X) \
	X(RELAXED, "relaxed") X(ACQUIRE, "acquire") X(RELEASE, "release") X(ACQ_REL, "acq_rel") \
	X(SEQ_CST, "seq_cst")

typedef enum {
#define X(e, s) IR_ORDER_##e,
	IR_ORDERS(X)
#undef X
	IR_ORDER_COUNT
} IrOrder;

extern const char *const ir_atomic_name[IR_ATOMIC_COUNT];
extern const char *const ir_scope_name[IR_SCOPE_COUNT];
extern const char *const ir_scope_llvm[IR_SCOPE_COUNT];
extern const char *const ir_order_name[IR_ORDER_COUNT];

typedef enum { IR_EQ, IR_NE, IR_LT, IR_LE, IR_GT, IR_GE, IR_ULT, IR_ULE, IR_UGT, IR_UGE,
               IR_FLT, IR_FLE, IR_FGT, IR_FGE, IR_FEQ, IR_FNE } IrCmp;

/* A source location: file name, line and column for messages and line
 * tables, plus (when span_file > 0) the checker's Span as file id + 1 and
 * byte range, so diagnostics can quote the source line. */
typedef struct { const char *file; int line, col; int32_t span_file; uint32_t span_lo, span_hi; } IrLoc;

typedef struct {
	uint16_t op;          /* IrOp; IR_OP_COUNT marks an erased instruction */
	IrType ty;            /* result type; VOID for none */
	uint32_t nops;
	IrRef *ops;
	int64_t imm[3];
	double fimm;          /* CONST of float type */
	IrRegion region[2];
	IrRegion parent;      /* region it sits in */
	uint32_t aux;         /* TGLOBAL/LDSALLOC: tensor index */
	const char *sym;      /* MMA: the LLVM intrinsic (without overload suffixes) */
	IrLoc loc;
} IrInst;

typedef struct {
	IrRef *inst;          /* instructions in order */
	uint32_t n, cap;
	IrRef owner;          /* the for/if owning it; 0 for the body */
} IrRegionData;

/* A kernel parameter. */
typedef enum { IR_PARAM_PTR, IR_PARAM_VAL } IrParamKind;
typedef struct {
	const char *name;
	IrParamKind kind;
	IrScalar ty;          /* PTR: element type; VAL: value type */
	uint32_t align;       /* PTR: assumed alignment in bytes */
	int noalias;
	const char *elem_name;  /* PTR: the element type as written (fp8, u8, ...), for
	                           .flyc.meta; NULL: ir_scalar_name(ty) */
	const char *layout_meta;/* PTR: the declared layout as .flyc.meta 2 `layout`
	                           formulas ("$N : 1"); NULL: not recorded */
} IrParam;

typedef struct IrModule IrModule;

typedef struct {
	IrModule *mod;
	const char *name;
	IrLoc loc;
	IrParam *param; uint32_t nparam;
	unsigned block[3];
	int waves_per_eu[2];          /* 0 = no hint */
	const char *grid_rpn[3];      /* .flyc.meta grid formulas (NULL = "1") */
	const char **req_rpn, **req_text; uint32_t nreq;  /* requires predicates */
	IrInst *inst; uint32_t ninst, capinst;      /* [0] unused */
	IrRegionData *reg; uint32_t nreg, capreg;   /* [0] unused, [1] body */
	IrTensor *tensor; uint32_t ntensor, captensor;
	uint32_t lds_bytes;           /* total LDS, set by lds-alloc */
	const char *archs;            /* targets(...): the arch names (space-separated) it is for; NULL = all */
} IrFunc;

struct IrModule {
	struct IrArena *arena;
	const char *source_name;      /* as given on the command line, for debug info */
	IrFunc **func; uint32_t nfunc, capfunc;
};

/* ---- diagnostics ----------------------------------------------------------- */

/* Errors from IR passes and lowering go here; fn prints them, one message per
 * call, formatted "file:line:col: error: msg" by the caller's sink. */
typedef struct IrDiag {
	void (*fn)(void *ctx, IrLoc loc, const char *msg);
	void *ctx;
	int errors;
} IrDiag;
void ir_error(IrDiag *d, IrLoc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- module, arena ----------------------------------------------------------- */

IrModule *ir_module_new(void);
void ir_module_free(IrModule *m);
void *ir_alloc(IrModule *m, size_t size);       /* zeroed, never NULL (aborts on OOM via ice) */
const char *ir_strdup(IrModule *m, const char *s);
/* Internal compiler error: prints file:line and message to stderr, aborts. */
_Noreturn void ir_ice(const char *file, int line, const char *msg);
#define IR_ICE(msg) ir_ice(__FILE__, __LINE__, (msg))

/* ---- builder ----------------------------------------------------------------- */

IrFunc *ir_func_new(IrModule *m, const char *name, IrLoc loc);
uint32_t ir_func_param(IrFunc *f, const char *name, IrParamKind kind, IrScalar ty, uint32_t align);
void ir_func_requires(IrFunc *f, const char *rpn, const char *text);
static inline IrInst *ir_inst(IrFunc *f, IrRef r) { return &f->inst[r]; }

/* Cursor: new instructions are appended to region `cur`. */
typedef struct {
	IrFunc *fn;
	IrRegion cur;
	IrLoc loc;            /* given to each new instruction */
} IrBuilder;

IrBuilder ir_builder(IrFunc *f);              /* at the end of the body */
IrRef ir_b_inst(IrBuilder *b, IrOp op, IrType ty, uint32_t nops, const IrRef *ops);
IrRef ir_b_const(IrBuilder *b, IrType ty, int64_t v);
IrRef ir_b_fconst(IrBuilder *b, IrType ty, double v);
IrRef ir_b_arg(IrBuilder *b, uint32_t index);
IrRef ir_b_tid(IrBuilder *b, int dim);
IrRef ir_b_bid(IrBuilder *b, int dim);
IrRef ir_b_wave_size(IrBuilder *b);
/* the value x (32-bit scalar) of lane (this lane ^ mask); whole_wave: every lane
 * of the wave runs it (reductions), which lets gfx950 swap halves with permlane */
IrRef ir_b_shfl_xor(IrBuilder *b, IrRef x, IrRef mask);
IrRef ir_b_shfl_xor_wave(IrBuilder *b, IrRef x, IrRef mask);
/* D = A*B + C by a matrix intrinsic (llvm.amdgcn.mfma.*, mfma.scale.*, wmma.*);
 * a/b are the lane's operand vectors, c the accumulator (result type); sa/sb
 * (0 = none) the i32 E8M0 scale words of the scaled form, fa/fb its formats */
IrRef ir_b_mma(IrBuilder *b, const char *intrinsic, IrRef a, IrRef bb, IrRef c, IrRef sa, IrRef sb, int fa, int fb);
IrRef ir_b_bin(IrBuilder *b, IrOp op, IrRef x, IrRef y);    /* result type of x */
IrRef ir_b_un(IrBuilder *b, IrOp op, IrRef x);
IrRef ir_b_fn(IrBuilder *b, IrFn fn, IrRef x);
IrRef ir_b_fma(IrBuilder *b, IrRef x, IrRef y, IrRef z);
IrRef ir_b_cmp(IrBuilder *b, IrCmp c, IrRef x, IrRef y);
IrRef ir_b_select(IrBuilder *b, IrRef c, IrRef x, IrRef y);
IrRef ir_b_cvt(IrBuilder *b, IrType to, IrRef x);
/* f32 vector -> packed fp4/fp6/bf6 vector or back; fmt 2 fp6, 3 bf6, 4 fp4 */
IrRef ir_b_cvt_pk(IrBuilder *b, IrType to, IrRef x, int fmt);
IrRef ir_b_splat(IrBuilder *b, IrType to, IrRef x);
IrRef ir_b_extract(IrBuilder *b, IrRef v, unsigned lane);
IrRef ir_b_insert(IrBuilder *b, IrRef v, IrRef x, unsigned lane);
/* lanes [lane, lane + n) of the packed (i4/i6) vector v as a vector (whole
 * pieces of packed data move without touching single elements) */
IrRef ir_b_extract_vec(IrBuilder *b, IrRef v, unsigned lane, unsigned n);
/* Tensors. The layout (and its tuples) must be allocated in the module
 * (ir_tuple_*); dynamic leaves are values defined before the tensor. */
IrRef ir_b_tensor_global(IrBuilder *b, IrRef ptr_arg, IrScalar elem, IrLayout lay,
                         IrAddr addr, const char *name);
IrRef ir_b_lds_alloc(IrBuilder *b, IrScalar elem, IrLayout lay, const char *name);
/* A view of tensor PARENT: element offset OFF (in the parent's memory
 * offsets, before the root's swizzle) plus LAY(coordinate). Views chain; the
 * root (tensor.global, lds.alloc, tensor.identity) decides the addressing. */
IrRef ir_b_tensor_view(IrBuilder *b, IrRef parent, IrRef off, IrLayout lay);
/* A coordinate tensor (CuTe make_identity): loading element c gives LAY(c) as i32. */
IrRef ir_b_tensor_identity(IrBuilder *b, IrLayout lay);
int ir_is_tensor(IrOp op);            /* tensor.global, lds.alloc, tensor.view, tensor.identity */
IrRef ir_tensor_root(const IrFunc *f, IrRef t);
IrRef ir_b_tload(IrBuilder *b, IrRef t, unsigned lanes, uint32_t ncoord, const IrRef *coord);
/* op on element coord of global or LDS tensor t with value val (cas: the
 * expected value; desired the value it stores, 0 for the other ops); the
 * element's old value */
IrRef ir_b_atomic(IrBuilder *b, IrAtomic op, IrRef t, IrRef val, IrRef desired, uint32_t ncoord,
                  const IrRef *coord, IrScope scope, IrOrder order);
void ir_b_fence(IrBuilder *b, IrScope scope, IrOrder order);
/* operands before an atomic's coordinates (or, after lower-layout, its offset): 2, or 3 for cas */
static inline uint32_t ir_atomic_first(const IrInst *I) { return I->imm[0] == IR_ATOMIC_CAS ? 3 : 2; }
void ir_b_tstore(IrBuilder *b, IrRef t, IrRef val, uint32_t ncoord, const IrRef *coord);
void ir_b_barrier(IrBuilder *b);
void ir_b_wait(IrBuilder *b, int vmem, int lds, int stores);   /* -1: don't wait on that counter */
void ir_b_sched_group(IrBuilder *b, int mask, int count, int sync_id);
void ir_b_sched_barrier(IrBuilder *b, int mask);
void ir_b_pipe_mark(IrBuilder *b, int which);   /* sched_barrier(0) marking a compute block: 1 begin, 2 end */
void ir_b_setprio(IrBuilder *b, int prio);
/* global view src -> LDS view dst, BYTES per lane, lanes LANE_STRIDE bytes apart in LDS */
void ir_b_lds_dma(IrBuilder *b, IrRef src, IrRef dst, int bytes, int lane_stride);
/* transposed LDS read of view src (64 bits per lane of ELEM_BITS-bit elements) */
IrRef ir_b_ld_tr(IrBuilder *b, IrRef src, IrType ty, int elem_bits);
/* for i in [lb, ub) step s, with N loop-carried values starting at inits.
 * Moves the cursor into the body; *iv and iter[0..n) receive the body's
 * region arguments. Close with ir_b_yield + ir_b_end. Returns the loop (a
 * tuple; read its results with ir_b_proj). */
IrRef ir_b_for(IrBuilder *b, IrRef lb, IrRef ub, IrRef step, uint32_t n,
               const IrRef *inits, IrRef *iv, IrRef *iter);
/* if cond: NRES results of types res[]; the cursor moves into the then
 * region; ir_b_else switches to the else region; close with ir_b_end. Each
 * region must end with ir_b_yield of NRES values (ir_b_yield(b,0,NULL) when
 * NRES is 0: ir_b_end adds it automatically then). */
IrRef ir_b_if(IrBuilder *b, IrRef cond, uint32_t nres, const IrType *res);
void ir_b_else(IrBuilder *b);
/* while loop with N carried values: the cursor moves into the "before"
 * region (arguments in before[0..n)), which must end with
 * ir_b_yield(cond, vals...); then ir_b_while_body moves to the body
 * (arguments in body[0..n)), ending with ir_b_yield(vals...) and ir_b_end. */
IrRef ir_b_while(IrBuilder *b, uint32_t n, const IrRef *inits, IrRef *before);
void ir_b_while_body(IrBuilder *b, IrRef loop, IrRef *body);
void ir_b_yield(IrBuilder *b, uint32_t n, const IrRef *vals);
void ir_b_end(IrBuilder *b);          /* back to the region enclosing the for/if */
IrRef ir_b_proj(IrBuilder *b, IrRef multi, unsigned index);
void ir_b_ret(IrBuilder *b);

/* Layout construction helpers. */
IrTuple *ir_tuple_int(IrModule *m, int64_t v);
IrTuple *ir_tuple_dyn(IrModule *m, IrRef v);
IrTuple *ir_tuple_of(IrModule *m, int n, IrTuple **kids);   /* copies the array */
/* Parse a static CuTe layout "((2,2),3):((24,2),8)" or with a swizzle
 * "sw(3,3,3) o (8,64):(64,1)"; NULL on a syntax error. Run-time leaves can be
 * written as %N (an IR value handle). */
int ir_layout_parse(IrModule *m, const char *text, IrLayout *out);
int ir_tuple_rank(const IrTuple *t);   /* top-level modes (1 for a leaf) */
int ir_tuple_is_static(const IrTuple *t);
int64_t ir_tuple_size(const IrTuple *t);   /* product of static leaves; -1 if dynamic */
/* Static cosize (1 + max offset); -1 if any leaf is dynamic. */
int64_t ir_layout_cosize(const IrLayout *l);

/* ---- printer, verifier ------------------------------------------------------ */

void ir_print_layout(FILE *out, const IrLayout *l);
void ir_print_tuple(FILE *out, const IrTuple *t);
void ir_print_func(FILE *out, const IrFunc *f);
void ir_print_module(FILE *out, const IrModule *m);
const char *ir_op_name(IrOp op);
int ir_op_flags(IrOp op);

/* Checks the invariants above; reports each violation to d; returns the
 * number of violations. */
int ir_verify(IrFunc *f, IrDiag *d);

/* ---- passes ---------------------------------------------------------------- */

struct TgtDesc;

typedef int (*IrPassFn)(IrFunc *f, const struct TgtDesc *t, IrDiag *d);

/* The pipeline, in order: name, function, one-line description. */
#define IR_PASSES(X) \
	X("lower-layout", ir_pass_lower_layout, "coordinates -> element offsets; pick buffer/global64 addressing") \
	X("fold",         ir_pass_fold,         "constant folding and algebraic simplification") \
	X("hoist",        ir_pass_hoist,        "move loop-invariant pure instructions out of loops") \
	X("dce",          ir_pass_dce,          "drop unused pure instructions") \
	X("lds-alloc",    ir_pass_lds_alloc,    "assign LDS offsets, check the target's LDS size")

#define X(name, fn, help) int fn(IrFunc *f, const struct TgtDesc *t, IrDiag *d);
IR_PASSES(X)
#undef X

typedef struct {
	const char *const *print_after;  /* pass names (--print-after, repeatable) */
	int nprint_after;
	int print_after_all;
	const char *stop_after;    /* pass name, or NULL */
	int verify;                /* run ir_verify before the first and after each pass */
	FILE *dump;                /* where --print-after output goes (stderr by default) */
} IrPassOpts;

/* Runs IR_PASSES over every kernel of m. Returns 0 on success, 1 after an
 * error (reported to d), 2 if stopped by stop_after (not an error). Unknown
 * pass names in opts are reported as errors. */
int ir_run_passes(IrModule *m, const struct TgtDesc *t, const IrPassOpts *opts, IrDiag *d);
/* The pass names, space-separated, in pipeline order. */
const char *ir_pass_names(void);
/* 1 if NAME is a pass in IR_PASSES. */
int ir_pass_exists(const char *name);

/* Helpers passes share. */
void ir_erase(IrFunc *f, IrRef r);          /* marks erased and drops it from its region */
void ir_replace_uses(IrFunc *f, IrRef from, IrRef to);
/* Batch forms, linear in the function's size: fwd[r] (0 = keep r) names the
 * value replacing r, followed transitively, in every operand and layout leaf;
 * ir_compact drops every instruction marked erased (op IR_OP_COUNT) from its region. */
void ir_forward_uses(IrFunc *f, IrRef *fwd);
void ir_compact(IrFunc *f);
/* A new instruction of region rg that is not yet in its list: the caller
 * places it (ir_pass_lower_layout rebuilds each region once). */
IrRef ir_new_in(IrFunc *f, IrRegion rg, IrOp op, IrType ty, uint32_t nops, const IrRef *ops, IrLoc loc);
int ir_const_value(const IrFunc *f, IrRef r, int64_t *v);   /* 1 if an integer CONST */
/* Put existing instruction r (not in any region) into region rg at pos. */
void ir_region_insert(IrFunc *f, IrRegion rg, uint32_t pos, IrRef r);
/* Folds integer op(a, b) of type t (wrapping to t's width); 0 if it cannot
 * (division by zero, oversized shift). */
int ir_fold_binary(IrOp op, IrType t, int64_t a, int64_t b, int64_t *res);

#endif
