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
} Rpn;

typedef struct {
	char name[CO_NAME_MAX];
	int is_ptr;
	flyrt_arg_type type;        /* FLYRT_ARG_PTR or the scalar type */
	char elem[32];              /* pointers: element type */
	uint32_t align;             /* pointers: assumed alignment (bytes) */
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
 * int64 (never a wrapped value). */
int flyrt_rpn_eval(const Rpn *r, const int64_t *vals, int64_t *out);

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
	                       void *kernarg, size_t kernarg_size, void **params);
} Backend;

struct flyrt_device {
	const Backend *be;
	flyrt_backend kind;
	char arch[32];                /* "gfx950" */
	char name[320];
	uint32_t lds_limit;           /* bytes of LDS per workgroup */
	pthread_mutex_t lock;         /* the module cache (the simulator backend has its own) */
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

/* Set this thread's last error message; returns st (for `return fail(...)`). */
flyrt_status flyrt_fail(flyrt_status st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void flyrt_clear_error(void);

/* Backend constructors: fill dev (be, arch, name, lds_limit, be_state) or fail. */
flyrt_status flyrt_hip_open(flyrt_device *dev, int ordinal);
flyrt_status flyrt_sim_open(flyrt_device *dev, const char *arch);   /* arch: "gfx950", "gfx1201" */

/* Unload every module left on a device (flyrt_device_close). */
void flyrt_module_free_all(flyrt_device *dev);

#endif
