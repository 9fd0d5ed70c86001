/*
 * target.h — the target description: everything flyc's code generator needs
 * to know about one AMD GPU, in one table row per architecture.
 *
 * Model. A TgtDesc is plain data: wave size, LDS capacity, register files,
 * the occupancy formula's constants, the buffer-descriptor word3 flags, the
 * style of barrier and memory-counter wait the backend wants, and a feature
 * bitmask saying which atoms/intrinsics exist. Nothing outside target.c
 * compares architecture names; code asks the table (tgt_has, tgt->wave_size,
 * tgt_occupancy, ...). Adding an architecture means adding one row to
 * TGT_TABLE in target.c (and, if it has a new feature, one row to
 * TGT_FEATURES below).
 *
 * Sources for the numbers: /work/shared/docs/amdgpu-facts.md (§1.1 e_flags,
 * §3.1 word3, §5 occupancy and LDS), each checked with llc-22 where marked
 * there; see docs/codegen.md for the citations.
 *
 * Example:
 *   const TgtDesc *t = tgt_find("gfx950");
 *   t->wave_size == 64; t->lds_bytes == 163840;
 *   tgt_occupancy(t, 128, 0, 0, 256) == 4   (waves per SIMD)
 */
#ifndef FLY_TARGET_H
#define FLY_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "layout/lay_show.h"

/* Features (atoms and intrinsics) an architecture may have: enum name,
 * spelling used in messages and in `requires`-style queries. */
#define TGT_FEATURES(X) \
	X(MFMA,        "mfma")             /* v_mfma_* matrix cores (CDNA) */ \
	X(MFMA_SCALE,  "mfma_scale")       /* v_mfma_scale_f32_*_f8f6f4 (gfx950) */ \
	X(WMMA,        "wmma")             /* v_wmma_* (RDNA3/4) */ \
	X(AGPR,        "agpr")             /* accumulation VGPRs */ \
	X(LDS_DMA,     "lds_dma")          /* buffer/global load straight to LDS */ \
	X(LDS_DMA_B128,"lds_dma_b128")     /* ... with 12/16-byte sizes (gfx950) */ \
	X(DS_READ_TR,  "ds_read_tr")       /* ds_read_b64_tr_b16 and siblings */ \
	X(FP8_OCP,     "fp8_ocp")          /* OCP e4m3fn/e5m2 conversions */ \
	X(CVT_SCALE,   "cvt_scale")        /* v_cvt_scalef32_* (fp4/fp6/fp8 with scale) */ \
	X(PERMLANE_SWAP,"permlane_swap")   /* v_permlane16/32_swap (gfx950) */ \
	X(PERMLANEX16, "permlanex16")      /* v_permlanex16 (gfx10+) */ \
	X(DPP_BCAST,   "dpp_row_bcast")    /* DPP row_bcast15/31 (gfx9) */ \
	X(SPLIT_WAIT,  "split_wait")       /* s_wait_loadcnt/dscnt/... (gfx12) instead of s_waitcnt */ \
	X(SPLIT_BARRIER,"split_barrier")   /* s_barrier_signal/wait (gfx12) */ \
	X(LDS_CONST_OFFSET,"lds_const_offset") /* codegen: LDS offsets' constants kept for the ds_* \
	                                        offset field (lower_llvm.c address(); gfx950 only: on \
	                                        gfx1201 LLVM then pairs ds_load_b64s and attention spills) */

typedef enum {
#define X(e, s) TGT_F_##e,
	TGT_FEATURES(X)
#undef X
	TGT_F_COUNT
} TgtFeature;

#define TGT_BIT(f) (UINT64_C(1) << (f))

typedef struct TgtDesc {
	const char *name;          /* processor, e.g. "gfx950" */
	const char *family;        /* "CDNA4", "RDNA4" */
	uint32_t e_flags_mach;     /* EF_AMDGPU_MACH (e_flags bits 7:0) */
	unsigned wave_size;        /* 64 or 32 */
	uint32_t lds_bytes;        /* max LDS per workgroup */
	uint32_t lds_pool_bytes;   /* LDS shared by the workgroups of one CU/WGP */
	unsigned lds_banks;        /* 4-byte banks */
	const lay_bank_rule *lds_rules; /* LDS phases that differ from the default (lay_show.h) */
	unsigned simds;            /* SIMDs a workgroup's waves are spread over */
	unsigned max_waves_per_simd;
	unsigned arch_vgprs;       /* max architectural VGPRs per wave */
	unsigned agprs;            /* max AGPRs per wave (0: none) */
	unsigned vgpr_pool;        /* VGPRs per lane available to all waves of one SIMD */
	unsigned vgpr_granule;     /* allocation granule of (v + a) in the occupancy formula */
	unsigned sgprs;            /* addressable SGPRs per wave */
	unsigned max_block;        /* max flat workgroup size */
	uint32_t buf_word3;        /* buffer resource word3 (flags) for raw 32-bit data */
	uint64_t features;         /* TGT_BIT(TGT_F_...) set */
} TgtDesc;

/* The row for processor NAME ("gfx950"; a ":feature+" suffix is ignored),
 * or NULL if flyc does not support it. */
const TgtDesc *tgt_find(const char *name);
/* All rows, for --help and tests; the first is the default arch. */
const TgtDesc *tgt_all(size_t *count);
/* The row's bit in a set of arches (a kernel's targets(...)): 1 << its index,
 * 0 when NAME is not exactly a row's name. */
unsigned tgt_bit(const char *name);
/* The arch used when none is named: the table's first row (gfx950). */
const TgtDesc *tgt_default(void);
int tgt_has(const TgtDesc *t, TgtFeature f);
const char *tgt_feature_name(TgtFeature f);
/* The LDS bank model of row t (wave size, banks, its phase rules), for
 * `flyc show --banks` and the bank report of a kernel's LDS accesses. */
lay_arch_banks tgt_lds_banks(const TgtDesc *t);
/* Comma-separated supported processor names, e.g. "gfx950, gfx1201". */
const char *tgt_names(void);

/* Waves per SIMD a kernel reaches with VGPR_TOTAL vector registers per lane
 * (the metadata's .vgpr_count: on gfx950 that is accum_offset + AGPRs),
 * LDS_BYTES of LDS per workgroup and BLOCK work-items per workgroup: the
 * minimum of the register, LDS and wave-slot limits; 0 if the kernel cannot
 * run at all (too much LDS or too many registers, block too large).
 * Example: gfx950, 128 VGPRs, no LDS, block 256 -> 4. */
unsigned tgt_occupancy(const TgtDesc *t, unsigned vgpr_total, uint32_t lds_bytes,
                       unsigned block);

#endif
