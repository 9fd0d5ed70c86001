/*
 * flyrt_internal.h — what the pieces of libflyrt share and users do not see.
 *
 * A device holds a backend (a table of functions, one per backend: HIP in
 * runtime/hip/, the simulator in flyrt_sim.c), a lock, and the module cache: a
 * list of loaded modules keyed by a hash of the bytes given to the loader.
 * A module owns the parsed code object (codeobj.h), the bytes of the code object
 * picked for the device, the parsed .flyc.meta (FlyMeta below), and one
 * flyrt_kernel per kernel of the code object.
 */
#ifndef FLYRT_INTERNAL_H
#define FLYRT_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>

#include "codeobj.h"
#include "flyrt.h"

/* ---- .flyc.meta (flyrt_meta.c) ---------------------------------------------------- */

/* An RPN formula compiled at load time: names resolved to argument indices, stack
 * depth checked, so evaluation cannot fail except by division by zero. */
typedef enum {
	RPN_NUM, RPN_VAL, RPN_ADDR,          /* literal; $NAME; @NAME (arg = index) */
	RPN_CUS,                             /* device.cus: the device's compute units */
	RPN_ADD, RPN_SUB, RPN_MUL, RPN_DIV, RPN_MOD,
	RPN_EQ, RPN_NE, RPN_LT, RPN_LE, RPN_GT, RPN_GE,
	RPN_AND, RPN_OR, RPN_NOT, RPN_MIN, RPN_MAX, RPN_CEILDIV
} RpnOp;

typedef struct {
	RpnOp op;
	int arg;          /* RPN_VAL / RPN_ADDR: index of the explicit argument */
	int64_t num;      /* RPN_NUM */
} RpnTok;

typedef struct {
	RpnTok *toks;
	int ntoks;
	char *text;       /* requires: the source text after " ; "; else NULL */
	int uses_cus;     /* has a device.cus token */
} Rpn;

/* Element types of tensor arguments, as .flyc.meta spells them: name, bits, and
 * whether an integer tensor of the same storage width (8 bits for the packed 4- and
 * 6-bit types) is accepted in its place, holding the bits: the types PyTorch or NumPy
 * cannot express. i4/i6 are what flyc wrote for fp4/fp6 in .flyc.meta version 1. */
#define FLYRT_ELEM_TYPES(X) \
	X("f64", 64, 0) X("f32", 32, 0) X("f16", 16, 0) X("bf16", 16, 1) X("tf32", 32, 1) \
	X("i64", 64, 0) X("i32", 32, 0) X("i16", 16, 0) X("i8", 8, 0) \
	X("u64", 64, 1) X("u32", 32, 1) X("u16", 16, 1) X("u8", 8, 0) \
	X("fp8", 8, 1) X("bf8", 8, 1) X("e8m0", 8, 1) X("f8e4m3", 8, 1) X("f8e5m2", 8, 1) \
	X("fp6", 6, 1) X("bf6", 6, 1) X("fp4", 4, 1) X("i6", 6, 1) X("i4", 4, 1)

/* Whether a tensor of type `given` may be passed where `declared` is expected
 * (flyrt_elem_bits, in flyrt.h, gives a type's bits). */
int flyrt_elem_accepts(const char *declared, const char *given);

enum { FLYRT_MAX_RANK = 16 };

typedef struct {
	char name[CO_NAME_MAX];
	int is_ptr;
	flyrt_arg_type type;        /* FLYRT_ARG_PTR or the scalar type */
	char elem[32];              /* pointers: element type */
	uint32_t align;             /* pointers: assumed alignment (bytes) */
	int rank;                   /* pointers: modes of the declared layout; -1 none */
	Rpn *shape, *stride;        /*   rank formulas each (version 2 `layout` line) */
	char *layout_text;          /*   the line's formulas, for messages; else NULL */
} MetaArg;

typedef struct {
	char name[CO_NAME_MAX];
	MetaArg *args;
	int nargs;
	uint32_t block[3];
	int has_block;
	Rpn grid[3];
	int has_grid;
	uint32_t lds;
	Rpn *requires;
	int nrequires;
} MetaKernel;

typedef struct {
	MetaKernel *kernels;
	int nkernels;
	int version;                /* 1 or 2 */
} FlyMeta;

/* Parse .flyc.meta text. Returns 0, or -1 with a message naming the line. */
int flyrt_meta_parse(const char *text, size_t len, FlyMeta *out, char *err, size_t errlen);
void flyrt_meta_free(FlyMeta *m);
const MetaKernel *flyrt_meta_find(const FlyMeta *m, const char *name);
/* Compile one RPN formula against the kernel's argument names. 0 or -1 + message. */
int flyrt_rpn_compile(const char *src, const MetaArg *args, int nargs, Rpn *out,
                      char *err, size_t errlen);
void flyrt_rpn_free(Rpn *r);
/* Evaluate with vals[i] = value (scalars) or address (pointers) of argument i.
 * Returns 0 and *out, or -1 on division by zero or a + - * result outside
 * int64 (never a wrapped value). flyrt_rpn_eval_cus gives device.cus its value (cus
 * 0: unknown, a formula using it fails); flyrt_rpn_eval is that with cus 0. */
int flyrt_rpn_eval(const Rpn *r, const int64_t *vals, int64_t *out);
int flyrt_rpn_eval_cus(const Rpn *r, const int64_t *vals, int64_t cus, int64_t *out);

/* ---- backends ------------------------------------------------------------------------ */

typedef struct {
	const char *name;
	void (*close)(flyrt_device *dev);
	flyrt_status (*alloc)(flyrt_device *dev, size_t bytes, flyrt_deviceptr *out);
	flyrt_status (*free)(flyrt_device *dev, flyrt_deviceptr p);
	flyrt_status (*htod)(flyrt_device *dev, flyrt_deviceptr dst, const void *src, size_t n);
	flyrt_status (*dtoh)(flyrt_device *dev, void *dst, flyrt_deviceptr src, size_t n);
	flyrt_status (*dtod)(flyrt_device *dev, flyrt_deviceptr dst, flyrt_deviceptr src, size_t n);
	flyrt_status (*sync)(flyrt_device *dev);
	flyrt_status (*module_load)(flyrt_device *dev, flyrt_module *mod);
	void (*module_unload)(flyrt_device *dev, flyrt_module *mod);
	/* kernarg: the whole segment (explicit and hidden arguments laid out per the
	 * note); params[i] points at explicit argument i inside it (HIP's kernelParams). */
	flyrt_status (*launch)(flyrt_device *dev, const flyrt_kernel *k, const uint32_t grid[3],
	                       const uint32_t block[3], uint32_t dynamic_lds,
	                       void *kernarg, size_t kernarg_size, void **params,
	                       uint32_t flags);   /* FLYRT_LAUNCH_*: the simulator reads TIMING */
} Backend;

struct flyrt_device {
	const Backend *be;
	flyrt_backend kind;
	char arch[32];                /* "gfx950" */
	char name[320];
	uint32_t lds_limit;           /* bytes of LDS per workgroup */
	uint32_t cus;                 /* compute units (device.cus); 0 if unknown */
	uint32_t xcds;                /* XCDs the CUs are split over, >= 1 (flyrt_device_xcds) */
	pthread_mutex_t lock;         /* the module cache and the allocation table (the
	                                 simulator backend has its own) */
	struct { flyrt_deviceptr base; uint64_t size; } *allocs;   /* flyrt_malloc'd, by base */
	int nallocs, capallocs;
	flyrt_module *modules;        /* the cache: every live module on this device */
	void *be_state;               /* the backend's own state */
};

struct flyrt_kernel {
	flyrt_module *mod;
	const CoKernel *co;           /* in mod->co */
	const MetaKernel *meta;       /* in mod->meta, or NULL */
	int nargs;                    /* explicit arguments */
	int *explicit_idx;            /* note index of explicit argument i */
	flyrt_arg_info *info;         /* nargs entries */
	void *be_fn;                  /* the backend's function handle */
};

struct flyrt_module {
	flyrt_device *dev;
	flyrt_module *next;           /* in dev->modules */
	int refs;
	int pinned;                   /* the cache holds a reference (flyrt_module_get_cached) */
	const void *pinned_src;       /* the caller's bytes when pinned: a lookup by address */
	uint64_t hash;                /* of the bytes given to the loader */
	uint8_t *key;                 /* those bytes, to confirm a hash match */
	size_t key_size;
	uint8_t *image;               /* the code object picked for the device */
	size_t image_size;
	CoObject *co;
	FlyMeta meta;
	flyrt_kernel *kernels;
	int nkernels;
	void *be_mod;                 /* the backend's module handle */
};

/* Describe kernel ck's explicit arguments into k (nargs, explicit_idx, info), merging
 * the AMDGPU note with meta (may be NULL); k->mod is not touched. flyrt_kernel_release
 * frees what it allocated. (Also used by flyc-sim, which has no flyrt_module.) */
flyrt_status flyrt_kernel_describe(flyrt_kernel *k, const CoKernel *ck, const MetaKernel *meta);
void flyrt_kernel_release(flyrt_kernel *k);

/* What the launch checks need to know of the device (flyrt_launch.c). */
typedef struct {
	uint32_t lds_limit;           /* bytes */
	uint32_t cus;                 /* device.cus; 0 unknown */
	flyrt_device *dev;            /* its allocation table, or NULL for none */
} FlyrtLaunchEnv;

/* Every launch check (docs/runtime.md, "Launch checks") against env; on success grid
 * and block hold what the launch uses. */
flyrt_status flyrt_check_launch(const flyrt_kernel *k, const FlyrtLaunchEnv *env,
                                const flyrt_launch_config *cfg, const flyrt_arg *args,
                                int nargs, uint32_t grid[3], uint32_t block[3]);

/* The allocation of dev containing address p (base <= p < base + size), under the
 * device lock: 1 and *base, *size, or 0 when p is in none. */
int flyrt_alloc_find(flyrt_device *dev, flyrt_deviceptr p, flyrt_deviceptr *base, uint64_t *size);

/* Set this thread's last error message; returns st (for `return fail(...)`). */
flyrt_status flyrt_fail(flyrt_status st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void flyrt_clear_error(void);

/* Backend constructors: fill dev (be, arch, name, lds_limit, be_state) or fail. */
flyrt_status flyrt_hip_open(flyrt_device *dev, int ordinal);
flyrt_status flyrt_sim_open(flyrt_device *dev, const char *arch);   /* arch: "gfx950", "gfx1201" */
/* The simulator's CU count for arch (FLY_SIM_CUS overrides; flyrt_sim.c). */
uint32_t flyrt_sim_cus(const char *arch);

/* XCD counts (flyrt_kfd.c). flyrt_xcds_derived: what the arch and CU count imply when
 * nothing reports it (gfx950: 32 CUs per XCD; else 1). flyrt_kfd_xcds: num_xcc of the
 * GPU at PCI domain:bus:device in the KFD topology under root (flyrt_kfd_root: the
 * sysfs one, or FLY_KFD_TOPOLOGY), 0 when it cannot tell (no such GPU node, unreadable
 * or malformed properties, partitions disagreeing, a count outside 1..64). */
uint32_t flyrt_xcds_derived(const char *arch, uint32_t cus);
const char *flyrt_kfd_root(void);
uint32_t flyrt_kfd_xcds(const char *root, uint32_t domain, uint32_t bus, uint32_t device);

/* Unload every module left on a device (flyrt_device_close). */
void flyrt_module_free_all(flyrt_device *dev);

#endif
