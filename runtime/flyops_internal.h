/*
 * flyops_internal.h — what the operator library's files share (flyops.c: contexts, the
 * kernel library and variant choice; flyops_tensor.c: tensor views and staging;
 * flyops_ops.c: each operator's checks) and flyc-tune uses.
 *
 * A call turns each DLTensor into an FtView (dtype from one table, strides in elements,
 * the byte span it touches, where it lives), checks the operator's rules on the views,
 * handles sizes that need no kernel (zeros, empty outputs), and for the rest asks
 * ops_launch to pick a variant and run it: operands the kernel can take by address are
 * passed so, the others staged (gathered into a compact device buffer; outputs
 * scattered back through their strides after the launch).
 */
#ifndef FLYOPS_INTERNAL_H
#define FLYOPS_INTERNAL_H

#include <limits.h>
#include <pthread.h>

#include "flyops.h"
#include "flyrt_internal.h"

/* Element types: enum, name (also the tuning database's dtypes spelling), DLPack code, bits. */
#define FLYOPS_DTYPES(X) \
	X(FD_F32,  "f32",  kDLFloat,  32) \
	X(FD_F16,  "f16",  kDLFloat,  16) \
	X(FD_BF16, "bf16", kDLBfloat, 16) \
	X(FD_F64,  "f64",  kDLFloat,  64) \
	X(FD_U8,   "u8",   kDLUInt,    8) \
	X(FD_I8,   "i8",   kDLInt,     8) \
	X(FD_I16,  "i16",  kDLInt,    16) \
	X(FD_I32,  "i32",  kDLInt,    32) \
	X(FD_I64,  "i64",  kDLInt,    64)

typedef enum {
	FD_NONE,
#define X(e, name, code, bits) e,
	FLYOPS_DTYPES(X)
#undef X
} FtDtype;

const char *ft_dtype_name(FtDtype d);
int ft_is_float(FtDtype d);

enum { FT_MAX_DIMS = 8 };

/* One tensor of a call. */
typedef struct {
	const DLTensor *t;       /* NULL: the optional operand is absent */
	const char *name;        /* for messages: "a", "bias", ... */
	FtDtype dtype;
	size_t elsize;
	int ndim;
	int64_t shape[FT_MAX_DIMS];
	int64_t stride[FT_MAX_DIMS];   /* in elements */
	int64_t numel;
	int on_device;           /* kDLROCM: a device address; else host memory */
	int described;           /* an output of a plan with data NULL: compact, not yet allocated */
	uint64_t base;           /* address of element 0 (data + byte_offset) */
	int64_t lo, hi;          /* bytes touched: [base + lo, base + hi) */
} FtView;

struct flyops_context {
	flyrt_device *dev;
	int hip_ordinal;         /* HIP devices: the ordinal kDLROCM tensors must name */
	char *kernel_dir;        /* NULL: not found (why in kernel_dir_why) */
	char kernel_dir_why[1200];
	char *tuning_path;       /* NULL: none */
	flyrt_tuning *tuning;
	uint64_t launches;       /* kernels launched (flyops_launches) */
	pthread_mutex_t lock;    /* the module list and launches */
	struct CtxModule {
		char name[64];       /* code object name, e.g. "gemm" */
		flyrt_module *mod;   /* NULL: loading failed with st and err */
		flyrt_status st;
		char err[PATH_MAX + 1400];
	} mods[16];
	int nmods;
};

/* ---- tensor views (flyops_tensor.c) ---- */

/* View of t (NULL: v->t = NULL, success). output: an output tensor (a plan may leave its
 * data NULL). INVALID_VALUE for a malformed tensor, UNSUPPORTED for a dtype or device
 * flyc does not take. */
flyrt_status ft_view(flyops_context *ctx, FtView *v, const DLTensor *t, const char *name,
                     int output, int plan);
/* A view of v with dims permuted (perm[i] = source dim of dim i). */
void ft_permute(FtView *dst, const FtView *v, const int *perm);
/* dst = v narrowed to [start, start + len) along dim 0 (0 <= start, start + len <=
 * v->shape[0], len >= 1): its base moves by start strides, its byte span shrinks. */
void ft_narrow(FtView *dst, const FtView *v, int64_t start, int64_t len);
/* 1 when the two views' bytes may overlap (same memory space and spans intersect). */
int ft_overlap(const FtView *a, const FtView *b);
/* Elements of v that share memory: 0 none, 1 certainly (a zero stride on an extent
 * over 1), 2 cannot be ruled out by the stride test. */
int ft_self_overlap(const FtView *v);
/* 1 when v is compact row-major (strides of extent-1 dims ignored). */
int ft_compact(const FtView *v);
/* Copy between v's elements and a compact row-major host buffer of v's numel elements
 * (to_host: gather v into buf; else scatter buf into v). Host views are read and written
 * in place, device views through flyrt_memcpy. */
flyrt_status ft_copy(flyops_context *ctx, const FtView *v, void *buf, int to_host);
/* Write the element at elem (v->elsize bytes) to every element of v. */
flyrt_status ft_fill(flyops_context *ctx, const FtView *v, const void *elem);
/* "[2, 3]" */
const char *ft_shape_str(const FtView *v, char *buf, size_t n);

/* ---- variants and launching (flyops.c) ---- */

/* Arguments of a kernel launch built from views: pointers to operands (by address or
 * staged) and scalars. */
typedef struct {
	int is_ptr;
	const FtView *view;      /* pointers: the operand, viewed as the kernel reads it; NULL
	                            with alias or scratch */
	int output;              /* pointers: written by the kernel */
	int partial;             /* outputs: the kernel may leave elements unwritten (a staged
	                            copy starts as the output's contents) */
	int alias;               /* pointers: 1 + the index of the argument whose pointer this
	                            one repeats (an absent operand the kernel never touches) */
	int scratch;             /* pointers: a device buffer of the operator's, passed by
	                            address (dev; 0 in a plan: not allocated) */
	flyrt_deviceptr dev;
	int strided;             /* pointers: the kernel takes the operand's strides as arguments
	                            (ops_by_address: passed in place when its last dim is
	                            unit-stride, else staged compact) */
	flyrt_arg scalar;        /* scalars */
} OpArg;

/* At most this many arguments per launch (attention_backward's dK/dV kernel takes 34, attention's 25). */
enum { OPS_MAX_ARGS = 40 };

typedef struct {
	flyops_op op;
	const char *dtypes, *layout;   /* the tuning key */
	OpArg args[OPS_MAX_ARGS];
	int nargs;
	const FtView *inputs[8];       /* every input of the call (for overlap with outputs) */
	int ninputs;
	const char *prefer;            /* or NULL: in the default order, the variants whose names
	                                  end so come first (after the tuning database's) */
} OpLaunch;

/* 1 when argument a of L is passed by address (device memory laid out as the kernel
 * reads it), 0 when it is staged through a compact buffer. */
int ops_by_address(const OpLaunch *L, const OpArg *a);
/* The tuning database's names for L's key and arguments (rows validated by the code
 * object of the key's first variant), best first: count (0 without a database or an
 * applying row), or -1 with the error set. */
int ops_tuned(flyops_context *ctx, const OpLaunch *L, const char **names, int max);
/* Choose a variant for L (exec->variant, else the tuning database's candidates, else
 * the default order) and, unless exec->plan_only, stage, launch and write back. */
flyrt_status ops_launch(flyops_context *ctx, const OpLaunch *L, flyops_exec *exec);
/* flyrt_fail with the message fmt... + ": " + the current last error. */
flyrt_status ops_refail(flyrt_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* exec->stream must be the default stream; NULL exec is the defaults. */
flyrt_status ops_check_exec(const flyops_exec *exec, const char *op);

/* The variant table (flyops.c): per arch and operator, the kernels in default order,
 * each for one tuning key (dtypes, layout) and held by one code object of the library. */
typedef struct {
	const char *arch;
	flyops_op op;
	const char *dtypes, *layout;
	const char *codeobj;
	const char *variant;
} OpVariant;
/* Entry i of the table (NULL past the end). */
const OpVariant *ops_variant_at(int i);
/* A name a tuning row of (arch, op, dtypes, layout) may rank: a variant of the key, or
 * for mm NT its split-K kernel, bare or with ".sN" (*splits = N, else 0); NULL if not. */
enum { OPS_MAX_SPLITS = 64 };
const OpVariant *ops_row_variant(const char *arch, flyops_op op, const char *dtypes,
                                 const char *layout, const char *name, int *splits);
/* The shape dims an operator's tuning buckets name, in order (mm: M N K); count. */
int ops_bucket_dims(flyops_op op, const char **dims, int max);
/* The device's XCD count for the mm kernels' tile order (FLY_XCDS overrides; >= 1). */
int32_t ops_xcds(const flyops_context *ctx);
/* Load (once) the code object holding a variant; FLYRT_ERROR_UNSUPPORTED naming the
 * missing file when the kernel library lacks it. */
flyrt_status ops_module(flyops_context *ctx, const char *codeobj, flyrt_module **out);
/* Find the kernel library (given, $FLYC_KERNEL_DIR, or beside libflyrt): 0 and a malloc'd
 * *dir, or -1 with why. */
int ops_kernel_dir(const char *given, char **dir, char *why, size_t whylen);
/* Path of the kernel library file for (arch, codeobj) into buf; -1 without a library. */
int ops_codeobj_path(const flyops_context *ctx, const char *arch, const char *codeobj,
                     char *buf, size_t n);
/* The variant table's entry for (arch, op, dtypes, layout, variant) — the key's first
 * with variant NULL — or NULL. */
const OpVariant *ops_find_variant(const char *arch, flyops_op op, const char *dtypes,
                                  const char *layout, const char *variant);

#endif
