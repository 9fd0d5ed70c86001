/*
 * codeobj.h — reading AMDGPU code objects and clang offload bundles.
 *
 * A code object is an ELF64 shared object (e_machine EM_AMDGPU = 224, OSABI
 * 64 = AMDGPU_HSA) as ld.lld writes it. From it we need: the target (from
 * e_flags and the metadata), each kernel's 64-byte kernel descriptor (symbol
 * NAME.kd), the entry address of its code, the loadable image (segments
 * mapped at their virtual addresses), and the NT_AMDGPU_METADATA note, a
 * msgpack map decoded here into plain structs.
 *
 * Everything is bounds-checked: a truncated or corrupt input gives an error
 * string, never a crash. The parsed object owns copies of everything it
 * returns; co_free releases it. No function here exits or prints.
 *
 * A clang offload bundle ("__CLANG_OFFLOAD_BUNDLE__", then a u64 entry count
 * and per entry u64 offset, u64 size, u64 id length, id bytes) can hold one
 * code object per target; co_bundle_find picks the entry whose id names the
 * wanted processor (ids look like hipv4-amdgcn-amd-amdhsa--gfx950[:feat±...]).
 */
#ifndef FLY_CODEOBJ_H
#define FLY_CODEOBJ_H

#include <stddef.h>
#include <stdint.h>

enum { CO_MAX_ARGS = 128, CO_NAME_MAX = 256 };

/* One entry of a kernel's .args metadata. */
typedef enum {
	CO_ARG_BY_VALUE,
	CO_ARG_GLOBAL_BUFFER,
	CO_ARG_HIDDEN,          /* any hidden_* kind; see hidden_kind */
	CO_ARG_OTHER
} CoArgKind;

typedef struct {
	char name[CO_NAME_MAX];        /* .name, may be empty */
	char type_name[CO_NAME_MAX];   /* .type_name, may be empty */
	char value_kind[64];           /* .value_kind as written, e.g. "hidden_block_count_x" */
	CoArgKind kind;
	uint32_t offset, size;         /* .offset, .size in the kernarg segment */
	int address_space;             /* 1 = global, 4 = constant, 3 = local, -1 absent */
	int is_const;                  /* .is_const */
} CoArg;

/* The decoded 64-byte kernel descriptor (AMDGPUUsage, "Kernel Descriptor"). */
typedef struct {
	uint32_t group_segment_fixed_size;   /* static LDS bytes */
	uint32_t private_segment_fixed_size; /* scratch bytes per work-item */
	uint32_t kernarg_size;
	int64_t  kernel_code_entry_byte_offset;
	uint32_t pgm_rsrc1, pgm_rsrc2, pgm_rsrc3;
	uint16_t kernel_code_properties;
	uint16_t kernarg_preload;
	/* fields unpacked from the above */
	unsigned user_sgpr_count;            /* RSRC2[5:1] */
	int enable_private_segment;          /* RSRC2[0] */
	int enable_wgid[3];                  /* RSRC2[7], [8], [9] */
	int enable_wg_info;                  /* RSRC2[10] */
	unsigned vgpr_workitem_id;           /* RSRC2[12:11]: 0 x, 1 xy, 2 xyz */
	int has_dispatch_ptr, has_queue_ptr, has_kernarg_ptr, has_dispatch_id,
	    has_private_segment_size, wave32;/* kernel_code_properties bits */
	unsigned accum_offset;               /* RSRC3[5:0]: (value+1)*4, gfx90a+ */
	unsigned preload_dwords, preload_offset; /* kernarg_preload */
} CoKernelDesc;

typedef struct {
	char name[CO_NAME_MAX];        /* .name */
	char symbol[CO_NAME_MAX];      /* .symbol, NAME.kd */
	CoKernelDesc kd;
	uint64_t kd_addr;              /* virtual address of the descriptor */
	uint64_t entry_addr;           /* virtual address of the first instruction */
	uint64_t code_size;            /* size of the kernel's function symbol (0 if unknown) */
	CoArg args[CO_MAX_ARGS];
	int nargs;
	uint32_t kernarg_segment_size, kernarg_segment_align;
	uint32_t group_segment_fixed_size, private_segment_fixed_size;
	uint32_t wavefront_size, max_flat_workgroup_size;
	uint32_t sgpr_count, vgpr_count, agpr_count;
	uint32_t sgpr_spill_count, vgpr_spill_count;
	int uses_dynamic_stack;
	uint32_t reqd_workgroup_size[3];  /* .reqd_workgroup_size, 0 if absent */
} CoKernel;

typedef struct CoObject CoObject;
struct CoObject {
	char target[CO_NAME_MAX];      /* amdhsa.target, e.g. amdgcn-amd-amdhsa--gfx950 */
	char processor[32];            /* from e_flags: "gfx950", "gfx1201", ... */
	uint32_t e_flags;
	unsigned abi_version;          /* EI_ABIVERSION: 3 = v5, 4 = v6 */
	CoKernel *kernels;
	int nkernels;
	uint8_t *image;                /* loadable segments laid out at their vaddrs */
	uint64_t image_size;           /* bytes from vaddr 0 to the end of the last segment */
	uint8_t *note_msgpack;         /* raw metadata note payload (owned), for dumping */
	size_t note_size;
	char *flyc_meta;               /* contents of the .flyc.meta section, NUL-terminated
	                                  (see docs/metadata.md), or NULL when absent */
	size_t flyc_meta_size;
};

/* Parse a raw code object. On failure returns NULL and writes a message to err. */
CoObject *co_parse(const void *data, size_t size, char *err, size_t errlen);
void co_free(CoObject *co);
const CoKernel *co_find_kernel(const CoObject *co, const char *name); /* name or NAME.kd */

/* Find a section by name in a raw code object. Returns 0 and sets out/outsize
 * (pointing into data), or -1 when absent or out of range. */
int co_find_section(const void *data, size_t size, const char *name,
                    const void **out, size_t *outsize);

/* 1 if the bytes look like an AMDGPU HSA ELF, 2 if a clang offload bundle,
 * 3 if a compressed bundle (CCOB), 0 otherwise. */
int co_sniff(const void *data, size_t size);

/* Find the bundle entry for processor (e.g. "gfx950"). Returns 0 and sets
 * out and outsize (pointing into data) on success; -1 with a message otherwise
 * (corrupt bundle, or no entry for that processor: the message lists the ids). */
int co_bundle_find(const void *data, size_t size, const char *processor,
                   const void **out, size_t *outsize, char *err, size_t errlen);

/* Processor name from ELF e_flags (EF_AMDGPU_MACH), or NULL if unknown. */
const char *co_mach_name(uint32_t e_flags);

#endif
