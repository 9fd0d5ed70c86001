/* target.c — the target description table (see target.h). */
#include <stdio.h>
#include <string.h>

#include "target/target.h"

#define F(x) TGT_BIT(TGT_F_##x)

/* gfx950 ds_read_b128: lanes {0-3, 12-15, 20-27} form phase 0 and
 * {4-11, 16-19, 28-31} phase 1, the upper 32 lanes phases 2 and 3
 * (amdgpu-facts.md section 5: measured by the HipKittens paper, App. D.2,
 * not an AMD document). */
#define P0 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1
#define P1 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3
static const unsigned char GFX950_READ_B128[64] = { P0, P1 };
#undef P0
#undef P1

/* LDS phases (lay_show.h): gfx950 ds_read_b128 as above; ds_write_b64 over 32
 * banks, so 4 phases of 16 lanes (same source); ds_read_b64 is the default
 * (2 phases of 32 lanes). gfx1201 has no measured rule: the default
 * (128 bytes of consecutive lanes per phase) is an assumption. */
static const lay_bank_rule GFX950_LDS[] = {
	{ .bytes = 16, .is_write = 0, .phase = GFX950_READ_B128 },
	{ .bytes = 8, .is_write = 1, .banks = 32 },
	{ 0 },
};

/* One row per architecture. Numbers: amdgpu-facts.md §1.1 (mach), §3.1
 * (word3, as used by ROCm/composable_kernel), §5 (LDS, occupancy: llc-22's
 * model), AMDGPUUsage "Processors" (wave size, SGPRs). */
static const TgtDesc TGT_TABLE[] = {
	{
		.name = "gfx950", .family = "CDNA4", .e_flags_mach = 0x4F,
		.wave_size = 64, .lds_bytes = 163840, .lds_pool_bytes = 163840,
		.lds_banks = 64, .lds_rules = GFX950_LDS, .simds = 4, .max_waves_per_simd = 8,
		.arch_vgprs = 256, .agprs = 256, .vgpr_pool = 512, .vgpr_granule = 8,
		.sgprs = 102, .max_block = 1024, .buf_word3 = 0x00020000,
		.features = F(MFMA) | F(MFMA_SCALE) | F(AGPR) | F(LDS_DMA) | F(LDS_DMA_B128) |
		            F(DS_READ_TR) | F(FP8_OCP) | F(CVT_SCALE) | F(PERMLANE_SWAP) |
		            F(DPP_BCAST) | F(LDS_CONST_OFFSET),
	},
	{
		.name = "gfx1201", .family = "RDNA4", .e_flags_mach = 0x4E,
		.wave_size = 32, .lds_bytes = 65536, .lds_pool_bytes = 131072,
		.lds_banks = 32, .simds = 4, .max_waves_per_simd = 16,
		.arch_vgprs = 256, .agprs = 0, .vgpr_pool = 1536, .vgpr_granule = 24,
		.sgprs = 106, .max_block = 1024, .buf_word3 = 0x31004000,
		.features = F(WMMA) | F(FP8_OCP) | F(PERMLANEX16) | F(SPLIT_WAIT) |
		            F(SPLIT_BARRIER),
	},
};
#undef F

static const char *const FEATURE_NAMES[] = {
#define X(e, s) s,
	TGT_FEATURES(X)
#undef X
};

const TgtDesc *
tgt_find(const char *name)
{
	size_t n = strcspn(name, ":");

	for (size_t i = 0; i < sizeof TGT_TABLE / sizeof TGT_TABLE[0]; i++)
		if (strlen(TGT_TABLE[i].name) == n && !strncmp(TGT_TABLE[i].name, name, n))
			return &TGT_TABLE[i];
	return NULL;
}

lay_arch_banks
tgt_lds_banks(const TgtDesc *t)
{
	lay_arch_banks b = { t->name, (int)t->lds_banks, 4, (int)t->wave_size, t->lds_rules };
	return b;
}

const TgtDesc *
tgt_all(size_t *count)
{
	*count = sizeof TGT_TABLE / sizeof TGT_TABLE[0];
	return TGT_TABLE;
}

int
tgt_has(const TgtDesc *t, TgtFeature f)
{
	return (unsigned)f < TGT_F_COUNT && (t->features & TGT_BIT(f)) != 0;
}

const char *
tgt_feature_name(TgtFeature f)
{
	return (unsigned)f < TGT_F_COUNT ? FEATURE_NAMES[f] : "?";
}

const char *
tgt_names(void)
{
	static char buf[256];

	if (!buf[0])
		for (size_t i = 0; i < sizeof TGT_TABLE / sizeof TGT_TABLE[0]; i++)
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", TGT_TABLE[i].name);
	return buf;
}

const TgtDesc *
tgt_default(void)
{
	return &TGT_TABLE[0];
}

unsigned
tgt_bit(const char *name)
{
	const TgtDesc *t = tgt_find(name);

	return t && !strcmp(t->name, name) ? 1u << (t - TGT_TABLE) : 0;
}

static unsigned
umin(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

unsigned
tgt_occupancy(const TgtDesc *t, unsigned vgpr_total, uint32_t lds_bytes, unsigned block)
{
	unsigned occ = t->max_waves_per_simd;
	unsigned waves, wg_per_simd_slots;

	if (block == 0 || block > t->max_block || lds_bytes > t->lds_bytes)
		return 0;
	if (vgpr_total > t->arch_vgprs + t->agprs)
		return 0;
	if (vgpr_total > 0) {
		unsigned g = (vgpr_total + t->vgpr_granule - 1) / t->vgpr_granule * t->vgpr_granule;
		occ = umin(occ, t->vgpr_pool / g);
	}
	waves = (block + t->wave_size - 1) / t->wave_size;
	if (lds_bytes > 0) {
		/* workgroups per CU (WGP) that fit the LDS pool, each spreading
		 * its waves over the SIMDs */
		unsigned wgs = t->lds_pool_bytes / lds_bytes;
		unsigned per_simd = (wgs * waves) / t->simds;
		if (per_simd == 0)
			per_simd = 1;   /* one workgroup always fits: lds_bytes <= lds_bytes max */
		occ = umin(occ, per_simd);
	}
	/* a workgroup needs ceil(waves / simds) slots on some SIMD */
	wg_per_simd_slots = (waves + t->simds - 1) / t->simds;
	if (wg_per_simd_slots > occ)
		return 0;
	return occ;
}
