/*
 * flyrt.h — libflyrt, the thin runtime that loads and launches flyc code objects.
 *
 * Model (in the spirit of the CUDA driver API and HIP's module API, but smaller):
 *
 *   flyrt_device   an open device: a HIP GPU (libamdhip64 resolved at run time with
 *                  dlopen, no build dependency on ROCm) or the gfx950 simulator.
 *   flyrt_module   a loaded code object. Loaded from a file or from memory; the bytes
 *                  may be a raw AMDGPU code object or a clang offload bundle, from which
 *                  the entry for the device's processor is picked. Modules are cached
 *                  per device by content (thread-safe): loading the same bytes twice
 *                  returns the same module with one more reference.
 *   flyrt_kernel   a kernel of a module (borrowed: lives as long as its module). Its
 *                  arguments come from the AMDGPU metadata note and, when present, from
 *                  flyc's `.flyc.meta` section (argument types, block, grid formula,
 *                  `requires` support predicates; docs/metadata.md).
 *   flyrt_tuning   a tuning database (SQLite) mapping classes of calls to kernel variants.
 *
 * Every call returns a flyrt_status; FLYRT_SUCCESS is 0. On failure a message naming
 * the cause is kept per thread and returned by flyrt_last_error(). The library never
 * exits and never prints. Every object has a destroy call, and a failing call leaves
 * nothing allocated.
 *
 * Worked example (error handling shortened; see docs/runtime.md for the full program):
 *
 *   flyrt_device *dev;  flyrt_module *mod;  flyrt_kernel *k;  flyrt_deviceptr a;
 *   flyrt_device_open("auto", &dev);                 // FLY_DEVICE overrides "auto"
 *   flyrt_module_load_file(dev, "vadd.hsaco", &mod);
 *   flyrt_module_get_kernel(mod, "vadd", &k);
 *   flyrt_malloc(dev, n * 4, &a);  flyrt_memcpy_htod(dev, a, host, n * 4);
 *   flyrt_arg args[] = { flyrt_arg_ptr(a), flyrt_arg_ptr(b), flyrt_arg_ptr(c), flyrt_arg_i32(n) };
 *   flyrt_status st = flyrt_launch(k, NULL, args, 4);  // the kernel's own grid and block
 *   if (st == FLYRT_ERROR_UNSUPPORTED) ... use another implementation ...
 *   flyrt_synchronize(dev);  flyrt_memcpy_dtoh(dev, host, c, n * 4);
 *   flyrt_free(dev, a);  flyrt_module_unload(mod);  flyrt_device_close(dev);
 *
 * Launch checks (docs/runtime.md, "Launch checks"): before anything runs, the block
 * must equal the kernel's block(...), the grid its grid formula (unless the caller sets
 * FLYRT_LAUNCH_ANY_GRID), and every pointer argument whose memory is known (a
 * flyrt_tensor, or an address inside a flyrt_malloc allocation) must have the declared
 * element type and strides and hold every offset the declared layout reaches.
 *
 * Thread safety: all calls on one device may be made from several threads; the
 * module cache and the simulator are protected by a per-device lock. Destroying an
 * object while another thread uses it is the caller's error.
 */
#ifndef FLYRT_H
#define FLYRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: name, value, message (flyrt_status_string). */
#define FLYRT_STATUSES(X) \
	X(FLYRT_SUCCESS,                   0, "success") \
	X(FLYRT_ERROR_INVALID_VALUE,       1, "invalid value (null handle or bad parameter)") \
	X(FLYRT_ERROR_OUT_OF_MEMORY,       2, "out of memory") \
	X(FLYRT_ERROR_NO_HIP_RUNTIME,      3, "no HIP runtime (libamdhip64 could not be loaded)") \
	X(FLYRT_ERROR_NO_DEVICE,           4, "no device") \
	X(FLYRT_ERROR_BACKEND,             5, "backend call failed") \
	X(FLYRT_ERROR_FILE,                6, "cannot read file") \
	X(FLYRT_ERROR_INVALID_IMAGE,       7, "invalid or corrupt code object or bundle") \
	X(FLYRT_ERROR_NO_BINARY_FOR_DEVICE, 8, "no code object for this device's architecture") \
	X(FLYRT_ERROR_INVALID_METADATA,    9, "invalid kernel metadata (.flyc.meta)") \
	X(FLYRT_ERROR_NOT_FOUND,          10, "kernel not found") \
	X(FLYRT_ERROR_ARG_COUNT,          11, "wrong number of kernel arguments") \
	X(FLYRT_ERROR_ARG_TYPE,           12, "kernel argument has the wrong type or size") \
	X(FLYRT_ERROR_NULL_POINTER,       13, "null pointer passed as a kernel argument") \
	X(FLYRT_ERROR_MISALIGNED_POINTER, 14, "misaligned pointer passed as a kernel argument") \
	X(FLYRT_ERROR_INVALID_LAUNCH,     15, "invalid launch configuration (grid, block or LDS)") \
	X(FLYRT_ERROR_UNSUPPORTED,        16, "unsupported: the kernel's requires predicates reject these arguments") \
	X(FLYRT_ERROR_LAUNCH_FAILED,      17, "kernel launch failed") \
	X(FLYRT_ERROR_INVALID_TUNING,     18, "invalid tuning database") \
	X(FLYRT_ERROR_NEEDS_SIMULATOR,    19, "timing needs a simulated device (the timing model is the simulator's)")

typedef enum {
#define X(name, value, msg) name = value,
	FLYRT_STATUSES(X)
#undef X
	FLYRT_STATUS_COUNT_
} flyrt_status;

/* A fixed message for a status ("unknown status" for values outside the table). */
const char *flyrt_status_string(flyrt_status st);
/* The symbolic name, e.g. "FLYRT_ERROR_UNSUPPORTED". */
const char *flyrt_status_name(flyrt_status st);
/* The detailed message of the last failing call on this thread ("" if none). Valid
 * until the next flyrt call on the same thread. */
const char *flyrt_last_error(void);

/* ---- devices ------------------------------------------------------------------- */

typedef struct flyrt_device flyrt_device;
typedef uint64_t flyrt_deviceptr;   /* a device virtual address; 0 is null */

typedef enum { FLYRT_BACKEND_HIP = 1, FLYRT_BACKEND_SIM = 2 } flyrt_backend;

/* Open a device. kind is "auto", "hip", "sim", or "hip:N" (HIP device N; "hip" is 0);
 * NULL means "auto". When the environment variable FLY_DEVICE is set and non-empty it
 * replaces kind. "auto" picks HIP when a HIP runtime with at least one device exists,
 * else the simulator. Errors: FLYRT_ERROR_NO_HIP_RUNTIME / FLYRT_ERROR_NO_DEVICE (for
 * "hip"), FLYRT_ERROR_INVALID_VALUE (unknown kind). */
flyrt_status flyrt_device_open(const char *kind, flyrt_device **out);
/* Close a device (NULL is a no-op): unloads every module still loaded on it. Device
 * memory not freed is released with the simulator; on HIP it stays with the HIP runtime
 * (free it first). Handles of the device's modules and kernels become invalid. */
void flyrt_device_close(flyrt_device *dev);
flyrt_backend flyrt_device_backend(const flyrt_device *dev);
/* The processor, e.g. "gfx950" (the ISA name cut at the first ':'). */
const char *flyrt_device_arch(const flyrt_device *dev);
/* A human-readable name, e.g. "simulator (gfx950)" or "HIP device 0 (gfx950:sramecc+:xnack-)". */
const char *flyrt_device_name(const flyrt_device *dev);
/* The number of compute units (the `device.cus` of grid formulas): 256 on the gfx950
 * simulator (FLY_SIM_CUS overrides), hipDeviceAttributeMultiprocessorCount on HIP; 0 if
 * unknown (a grid formula using it is then an error). */
uint32_t flyrt_device_cus(const flyrt_device *dev);
/* The number of XCDs (accelerator complex dies, the driver's XCCs) the device's CUs are
 * split over; >= 1 on an open device, 0 for NULL. HIP: num_xcc of the device's node in the
 * Linux KFD topology, matched by PCI location (a partition's own count in CPX/DPX/QPX
 * modes; FLY_KFD_TOPOLOGY=DIR replaces /sys/class/kfd/kfd/topology); when that fails,
 * derived: gfx950 CUs / 32, else 1. The simulator: that derivation (8 for gfx950's 256
 * CUs, 1 for gfx1201), or FLY_SIM_XCDS. */
uint32_t flyrt_device_xcds(const flyrt_device *dev);

/* ---- memory -------------------------------------------------------------------- */

/* Allocations are remembered (base and size) until freed: a pointer argument inside one
 * is checked against it at launch (docs/runtime.md, "Launch checks"). */
flyrt_status flyrt_malloc(flyrt_device *dev, size_t bytes, flyrt_deviceptr *out);
flyrt_status flyrt_free(flyrt_device *dev, flyrt_deviceptr p);     /* 0 is a no-op */
flyrt_status flyrt_memcpy_htod(flyrt_device *dev, flyrt_deviceptr dst, const void *src, size_t bytes);
flyrt_status flyrt_memcpy_dtoh(flyrt_device *dev, void *dst, flyrt_deviceptr src, size_t bytes);
flyrt_status flyrt_memcpy_dtod(flyrt_device *dev, flyrt_deviceptr dst, flyrt_deviceptr src, size_t bytes);
/* Wait for every launch on the device to finish. */
flyrt_status flyrt_synchronize(flyrt_device *dev);

/* ---- modules and kernels ------------------------------------------------------- */

typedef struct flyrt_module flyrt_module;
typedef struct flyrt_kernel flyrt_kernel;

/* Load a raw code object or a clang offload bundle. The bytes are copied; the caller
 * may free them on return. Errors: FLYRT_ERROR_INVALID_IMAGE (not a code object or
 * bundle, truncated, corrupt, compressed bundle), FLYRT_ERROR_NO_BINARY_FOR_DEVICE
 * (built for another processor, or no bundle entry for it), FLYRT_ERROR_INVALID_METADATA
 * (malformed .flyc.meta). The same bytes loaded twice on one device give the same
 * module with one more reference; each load needs one flyrt_module_unload. */
flyrt_status flyrt_module_load_data(flyrt_device *dev, const void *data, size_t size, flyrt_module **out);
flyrt_status flyrt_module_load_file(flyrt_device *dev, const char *path, flyrt_module **out);
/* Like load_data, but the device keeps the module until it is closed: the caller does
 * not unload it. Used by generated launchers: the bytes must stay unchanged while the
 * device is open (a static array), since later calls find the module by their address. */
flyrt_status flyrt_module_get_cached(flyrt_device *dev, const void *data, size_t size, flyrt_module **out);
/* Drop one reference; the module and its kernels are freed at zero. NULL is a no-op. */
void flyrt_module_unload(flyrt_module *mod);

int flyrt_module_kernel_count(const flyrt_module *mod);
flyrt_kernel *flyrt_module_kernel_at(const flyrt_module *mod, int i);  /* NULL if out of range */
/* FLYRT_ERROR_NOT_FOUND when no kernel has that name (NAME or NAME.kd). */
flyrt_status flyrt_module_get_kernel(const flyrt_module *mod, const char *name, flyrt_kernel **out);

/* Argument value types. */
#define FLYRT_ARG_TYPES(X) \
	X(FLYRT_ARG_PTR,   "ptr",   8) \
	X(FLYRT_ARG_I32,   "i32",   4) \
	X(FLYRT_ARG_U32,   "u32",   4) \
	X(FLYRT_ARG_I64,   "i64",   8) \
	X(FLYRT_ARG_U64,   "u64",   8) \
	X(FLYRT_ARG_F32,   "f32",   4) \
	X(FLYRT_ARG_F16,   "f16",   2) \
	X(FLYRT_ARG_BF16,  "bf16",  2) \
	X(FLYRT_ARG_BYTES, "bytes", 0) \
	X(FLYRT_ARG_TENSOR, "tensor", 8)

typedef enum {
#define X(name, text, size) name,
	FLYRT_ARG_TYPES(X)
#undef X
	FLYRT_ARG_TYPE_COUNT_
} flyrt_arg_type;

const char *flyrt_arg_type_name(flyrt_arg_type t);   /* "i32", ...; "?" if unknown */
/* Bits of a tensor element type as .flyc.meta names it ("bf16" 16, "fp4" 4, ...), 0 if
 * unknown. */
unsigned flyrt_elem_bits(const char *type);

/* What a kernel expects for one explicit argument. */
typedef struct {
	const char *name;        /* from .flyc.meta, else the note's .name; may be "" */
	flyrt_arg_type type;     /* FLYRT_ARG_PTR for buffers; a scalar type from .flyc.meta;
	                            without .flyc.meta: I32/I64 for 4/8-byte by-value
	                            arguments (any 4/8-byte scalar type is accepted),
	                            FLYRT_ARG_BYTES otherwise */
	const char *elem_type;   /* pointers with .flyc.meta: element type, e.g. "f32"; else "" */
	uint32_t offset, size;   /* place in the kernarg segment */
	uint32_t align;          /* pointers: alignment the kernel assumes (1 if unknown) */
	int typed;               /* 1 when the type comes from .flyc.meta (checked exactly) */
	int layout_rank;         /* pointers: modes of the declared layout (.flyc.meta 2
	                            `layout`, flattened); -1 when none is recorded */
	const char *layout;      /* pointers: that layout's formulas as .flyc.meta writes
	                            them ("$N : 1"), or "" */
} flyrt_arg_info;

typedef struct {
	const char *name;
	int nargs;                    /* explicit arguments */
	uint32_t kernarg_size;        /* .kernarg_segment_size, hidden arguments included */
	uint32_t wavefront_size, max_block_threads;
	uint32_t static_lds, scratch_per_thread;
	uint32_t sgprs, vgprs, agprs;
	int has_meta;                 /* a .flyc.meta record was found for this kernel */
	uint32_t block[3];            /* .flyc.meta block, or 0 0 0 */
	int has_grid;                 /* .flyc.meta gives a grid formula */
	int nrequires;                /* number of requires predicates */
} flyrt_kernel_info;

flyrt_status flyrt_kernel_get_info(const flyrt_kernel *k, flyrt_kernel_info *out);
flyrt_status flyrt_kernel_arg_info(const flyrt_kernel *k, int i, flyrt_arg_info *out);
const char *flyrt_kernel_name(const flyrt_kernel *k);
/* The source text of requires predicate i (for messages), or NULL. */
const char *flyrt_kernel_requires_text(const flyrt_kernel *k, int i);

/* ---- launching ----------------------------------------------------------------- */

/* A pointer argument together with what is known of the memory behind it: a DLPack or
 * PyTorch tensor, or any buffer of known size. The kernel receives `data`. Unknown
 * parts are not checked: dtype NULL or ""; ndim -1 (no shape and strides); storage 0
 * (then a tensor with a shape is taken to own exactly the elements it spans).
 * The pointed-to arrays must stay valid for the call. */
typedef struct {
	flyrt_deviceptr data;         /* the address of the element at coordinate 0 */
	const char *dtype;            /* "f32", "bf16", "u8", "i32", ... (docs/runtime.md) */
	int ndim;                     /* modes in shape and strides, or -1 */
	const int64_t *shape;         /* ndim extents */
	const int64_t *strides;       /* ndim strides, in elements (may be negative or 0) */
	flyrt_deviceptr storage;      /* the memory the tensor lives in: */
	uint64_t storage_bytes;       /*   [storage, storage + storage_bytes) */
} flyrt_tensor;

/* One argument value. Build with the flyrt_arg_* helpers below. */
typedef struct {
	flyrt_arg_type type;
	uint32_t size;                /* bytes of the value (set by the helpers) */
	union {
		flyrt_deviceptr ptr;      /* FLYRT_ARG_PTR */
		int32_t i32;              /* FLYRT_ARG_I32 */
		uint32_t u32;             /* FLYRT_ARG_U32 */
		int64_t i64;              /* FLYRT_ARG_I64 */
		uint64_t u64;             /* FLYRT_ARG_U64 */
		float f32;                /* FLYRT_ARG_F32 */
		uint16_t bits16;          /* FLYRT_ARG_F16 and FLYRT_ARG_BF16: the raw bits */
		const void *bytes;        /* FLYRT_ARG_BYTES: size bytes copied as they are */
		const flyrt_tensor *tensor; /* FLYRT_ARG_TENSOR: for a pointer argument */
	} v;
} flyrt_arg;

static inline flyrt_arg flyrt_arg_ptr(flyrt_deviceptr p) { flyrt_arg a; a.type = FLYRT_ARG_PTR; a.size = 8; a.v.ptr = p; return a; }
static inline flyrt_arg flyrt_arg_i32(int32_t x) { flyrt_arg a; a.type = FLYRT_ARG_I32; a.size = 4; a.v.i32 = x; return a; }
static inline flyrt_arg flyrt_arg_u32(uint32_t x) { flyrt_arg a; a.type = FLYRT_ARG_U32; a.size = 4; a.v.u32 = x; return a; }
static inline flyrt_arg flyrt_arg_i64(int64_t x) { flyrt_arg a; a.type = FLYRT_ARG_I64; a.size = 8; a.v.i64 = x; return a; }
static inline flyrt_arg flyrt_arg_u64(uint64_t x) { flyrt_arg a; a.type = FLYRT_ARG_U64; a.size = 8; a.v.u64 = x; return a; }
static inline flyrt_arg flyrt_arg_f32(float x) { flyrt_arg a; a.type = FLYRT_ARG_F32; a.size = 4; a.v.f32 = x; return a; }
static inline flyrt_arg flyrt_arg_f16(uint16_t bits) { flyrt_arg a; a.type = FLYRT_ARG_F16; a.size = 2; a.v.bits16 = bits; return a; }
static inline flyrt_arg flyrt_arg_bf16(uint16_t bits) { flyrt_arg a; a.type = FLYRT_ARG_BF16; a.size = 2; a.v.bits16 = bits; return a; }
static inline flyrt_arg flyrt_arg_bytes(const void *p, uint32_t n) { flyrt_arg a; a.type = FLYRT_ARG_BYTES; a.size = n; a.v.bytes = p; return a; }
static inline flyrt_arg flyrt_arg_tensor(const flyrt_tensor *t) { flyrt_arg a; a.type = FLYRT_ARG_TENSOR; a.size = 8; a.v.tensor = t; return a; }

/* grid counts workgroups (blocks), as hipModuleLaunchKernel does. A zero grid[0] means
 * "use the kernel's grid formula from .flyc.meta"; a zero block[0] means "use the
 * kernel's block from .flyc.meta". Passing no config at all means both. A block given
 * must equal the kernel's; a grid given must equal its formula's unless flags has
 * FLYRT_LAUNCH_ANY_GRID. */
typedef struct {
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t dynamic_lds;         /* extra LDS bytes (HIP's sharedMemBytes) */
	uint32_t flags;               /* FLYRT_LAUNCH_* */
} flyrt_launch_config;

/* Launch a grid other than the kernel's grid formula (the caller knows the kernel
 * guards every access for it, e.g. a partial grid in a test). */
#define FLYRT_LAUNCH_ANY_GRID 1u

/* Time this launch with the simulator's timing model (docs/runtime.md, "Timing"): the
 * device's timing settings when flyrt_device_set_timing turned timing on, else the
 * default row for the device's processor, every workgroup run. Read the result with
 * flyrt_last_timing. FLYRT_ERROR_NEEDS_SIMULATOR on a HIP device. */
#define FLYRT_LAUNCH_TIMING 2u

/* Check everything a launch would check, without launching: argument count, types,
 * sizes, null and misaligned pointers, the requires predicates (FLYRT_ERROR_UNSUPPORTED
 * when one is false), tensor element types, strides and extents, then the block and
 * grid. resolved (may be NULL) receives the grid and block the launch would use. */
flyrt_status flyrt_kernel_check(const flyrt_kernel *k, const flyrt_launch_config *cfg,
                                const flyrt_arg *args, int nargs, flyrt_launch_config *resolved);
/* flyrt_kernel_check, then launch. Launches are asynchronous on HIP; on the simulator
 * the kernel has run when this returns. */
flyrt_status flyrt_launch(const flyrt_kernel *k, const flyrt_launch_config *cfg,
                          const flyrt_arg *args, int nargs);

/* The declared layout of pointer argument i for the scalar values in args (all nargs
 * arguments, as for a launch; pointer values are not read): writes up to max extents
 * and strides (in elements, the layout flattened) and returns the rank, or -1 with
 * flyrt_last_error set (no layout recorded, bad index, a formula that divides by zero
 * or leaves 64 bits). */
int flyrt_kernel_arg_layout(const flyrt_kernel *k, int i, const flyrt_arg *args, int nargs,
                            int64_t *shape, int64_t *strides, int max);

/* ---- timing (the simulator's timing model; docs/runtime.md, "Timing") ------------ */

/* Which modelled device, and how much of the grid to time. */
typedef struct {
	const char *device;        /* a device row: "mi355x", "mi350x" (gfx950), "rx9070xt"
	                              (gfx1201); NULL or "": the processor's default */
	int sample;                /* workgroups timed in full, then extrapolated; 0: the
	                              default (every workgroup of a grid of at most 64) */
	int timing_only;           /* 1: run only the sampled workgroups. The outputs are then
	                              incomplete: for ranking and benchmarks only */
} flyrt_timing_config;

/* The modelled cost of one launch on a whole device (the names are the JSON keys of
 * flyc-sim --timing; docs/simulator.md, "Timing model"), and the sums since timing was
 * last turned on or reset. */
typedef struct {
	char device[16];           /* the row used, e.g. "mi355x" */
	char arch[16];
	char kernel[64];           /* the kernel launched (cut to 63 bytes) */
	int cus;
	double clock_mhz, hbm_gbps;
	uint64_t workgroups, sampled_workgroups;
	uint64_t cycles;           /* device cycles of the launch, launch overhead included */
	double us;                 /* CU cycles / eff_clock_mhz + launch cycles / clock_mhz */
	double mfma_busy, valu_busy, lds_busy;   /* 0..1, share of the pipe cycles in use */
	uint64_t lds_bank_conflict_cycles;       /* extra LDS cycles from bank conflicts */
	uint64_t hbm_bytes, l2_bytes;            /* modelled DRAM and L2->CU bytes */
	double mfma_flops;                       /* matrix FLOP of the launch */
	uint64_t total_launches;   /* timed launches since flyrt_device_set_timing / reset */
	uint64_t total_cycles;     /* their cycles, summed */
	double total_us;           /* their us, summed */
	double eff_clock_mhz;      /* the clock under the launch's matrix load (docs/simulator.md) */
} flyrt_timing;

/* Turn timing on for every later launch on a simulated device (cfg NULL: off), and
 * reset the sums. FLYRT_ERROR_NEEDS_SIMULATOR on a HIP device; FLYRT_ERROR_INVALID_VALUE
 * for an unknown row, a row of another processor, or sample < 0. A simulated device also
 * starts with timing on when FLY_SIM_TIMING names a row (FLY_SIM_TIMING=1: the default
 * row), with FLY_SIM_TIMING_SAMPLE=N and FLY_SIM_TIMING_ONLY=1. */
flyrt_status flyrt_device_set_timing(flyrt_device *dev, const flyrt_timing_config *cfg);
/* The last timed launch on the device and the sums. FLYRT_ERROR_NEEDS_SIMULATOR on a
 * HIP device, FLYRT_ERROR_NOT_FOUND when no launch has been timed since the device was
 * opened or timing was turned on. */
flyrt_status flyrt_last_timing(flyrt_device *dev, flyrt_timing *out);
/* The same launch as one JSON object (every key of flyc-sim --timing, stalls included,
 * plus "kernel", "total_launches", "total_cycles", "total_us"), newline-terminated, into
 * buf; *len (may be NULL) receives the length it needs. Errors as flyrt_last_timing, and
 * FLYRT_ERROR_INVALID_VALUE when n is too small. */
flyrt_status flyrt_last_timing_json(flyrt_device *dev, char *buf, size_t n, size_t *len);

/* ---- variants and dispatch ----------------------------------------------------- */

/* Try the kernels in order; launch the first one whose check passes (argument errors
 * other than UNSUPPORTED are returned at once, since every variant shares the
 * signature). *chosen (may be NULL) receives the one launched. FLYRT_ERROR_UNSUPPORTED
 * when no kernel accepts the call. NULL entries are skipped. */
flyrt_status flyrt_launch_first(flyrt_kernel *const *kernels, int nkernels,
                                const flyrt_launch_config *cfg, const flyrt_arg *args,
                                int nargs, flyrt_kernel **chosen);

/* A tuning database: rows naming the variants to try for a class of calls, best first,
 * kept in a SQLite file (written by flyc-tune or flyrt_tuning_save; schema and row
 * semantics in docs/runtime.md, "Tuning databases"). A row applies to a call when its
 * arch is the device's processor (or "*"), its family, dtypes and layout are the ones
 * looked up, its non-empty validators match (flyc_version the running library's
 * flyrt_version(), codeobj_hash the flyrt_module_hash of the kernels' module: rows
 * written for another build are ignored), and its bucket holds: "*" or conditions on
 * the kernels' integer arguments joined by spaces, all of which must hold, e.g.
 * "M<=128 N<=128 K%64==0". A flyrt_tuning is not changed by lookups (threads may share
 * one); flyrt_tuning_add is not thread-safe. */
typedef struct flyrt_tuning flyrt_tuning;

typedef struct {
	const char *arch;          /* a processor ("gfx950"), or "*" for any */
	const char *family;        /* a kernel family or an operator: "saxpy", "mm" */
	const char *dtypes;        /* operators: their dtypes, e.g. "bf16->bf16"; "" otherwise */
	const char *layout;        /* operators: their layout, e.g. "NT"; "" otherwise */
	const char *bucket;        /* "*" or conditions, e.g. "M>128 M<=256" */
	const char *variants;      /* kernel names, best first, separated by spaces */
	const char *times_us;      /* measured times of the variants in that order, or "" */
	const char *flyc_version;  /* validator, or "" (any) */
	const char *codeobj_hash;  /* validator "fnv1a64:<16 hex>", or "" (any) */
} flyrt_tuning_row;

/* Read a database. FLYRT_ERROR_FILE when it cannot be read, FLYRT_ERROR_INVALID_TUNING
 * (naming the row) when it is not a flyc tuning database or a row is malformed. */
flyrt_status flyrt_tuning_load(const char *path, flyrt_tuning **out);
/* An empty database in memory, to fill with flyrt_tuning_add. */
flyrt_status flyrt_tuning_new(flyrt_tuning **out);
/* Append a row (its strings are copied); FLYRT_ERROR_INVALID_TUNING when malformed. */
flyrt_status flyrt_tuning_add(flyrt_tuning *t, const flyrt_tuning_row *row);
/* Write the database to path (a temporary file beside it, renamed when complete). */
flyrt_status flyrt_tuning_save(const flyrt_tuning *t, const char *path);
void flyrt_tuning_destroy(flyrt_tuning *t);
/* The rows in database order; the strings stay valid while t lives. */
int flyrt_tuning_row_count(const flyrt_tuning *t);
flyrt_status flyrt_tuning_row_at(const flyrt_tuning *t, int i, flyrt_tuning_row *out);

/* Candidate variant names for a call of operator `family` with these dtypes and layout
 * (kernel k: its module gives the arch and the code-object hash, its argument names
 * the buckets' names; any variant will do, they share the signature): the variants of
 * every applying row, rows in database order, without repeats. Writes at most max
 * names to names[] (pointers into the database) and returns the number found (may
 * exceed max), or -1 with the error set (a bucket naming an argument k lacks:
 * FLYRT_ERROR_INVALID_TUNING). */
int flyrt_tuning_lookup(const flyrt_tuning *t, const char *family, const char *dtypes,
                        const char *layout, const flyrt_kernel *k, const flyrt_arg *args,
                        int nargs, const char **names, int max);
/* flyrt_tuning_lookup for a plain kernel family (dtypes and layout ""). */
int flyrt_tuning_candidates(const flyrt_tuning *t, const char *family, const flyrt_kernel *k,
                            const flyrt_arg *args, int nargs, const char **names, int max);

/* Every variant the database names for kernel family `family` (dtypes and layout ""),
 * whatever the arch, bucket or validators, in database order without repeats: writes at
 * most max names (pointers into the database) and returns the count (may exceed max),
 * or -1 on a bad parameter. */
int flyrt_tuning_variants(const flyrt_tuning *t, const char *family, const char **names, int max);

/* The validators: "fnv1a64:" and 16 lowercase hex digits of the FNV-1a 64 hash of a
 * code object's bytes (of a module: of the bytes it was loaded from), and the version
 * of this library (FLYC_VERSION, e.g. "0.1.0"). The hashes return 0, or -1 for a bad
 * parameter (len must be at least 25). */
int flyrt_codeobj_hash(const void *bytes, size_t size, char *buf, size_t len);
int flyrt_module_hash(const flyrt_module *mod, char *buf, size_t len);
const char *flyrt_version(void);

/* Pick and launch a variant of `family` from mod: the database's candidates in order,
 * skipping names the module lacks and variants whose requires reject the call.
 * With t == NULL the only candidate is the kernel named `family`.
 * FLYRT_ERROR_UNSUPPORTED when none applies; *chosen (may be NULL) gets the variant. */
flyrt_status flyrt_dispatch(const flyrt_module *mod, const flyrt_tuning *t, const char *family,
                            const flyrt_launch_config *cfg, const flyrt_arg *args, int nargs,
                            flyrt_kernel **chosen);

#ifdef __cplusplus
}
#endif
#endif
