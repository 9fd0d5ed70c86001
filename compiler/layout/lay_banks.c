/*
 * lay_banks.c — the LDS bank model, shared by `flyc show --banks=BYTES`
 * (a layout typed on the command line, lay_show.c) and `flyc show --banks
 * FILE.fly` (the LDS accesses a kernel compiles to, ir_banks.c).
 *
 * Model. The LDS of one workgroup is split into banks of bank_bytes bytes;
 * dword w (byte address / 4) lives in bank w % banks. One LDS instruction of
 * a wave is served in phases: each phase takes a fixed group of lanes, and a
 * phase costs as many cycles as the largest number of *different* dwords its
 * lanes touch in one bank (lanes reading the same dword share it, a
 * broadcast). A phase whose lanes all hit different banks, or the same
 * dwords, costs one cycle: conflict-free.
 *
 * Which lanes share a phase (amdgpu-facts.md section 5; measured by the
 * HipKittens paper, App. D.2, not an AMD document):
 *   gfx950 ds_read_b128:  4 phases {0-3,12-15,20-27} {4-11,16-19,28-31} and
 *                         the same +32;
 *   gfx950 ds_read_b64:   2 phases of 32 lanes;
 *   gfx950 ds_write_b64:  4 phases of 16 lanes over 32 banks;
 *   1-, 2- and 4-byte accesses: one phase of the whole wave.
 * Everything else (writes of 16 bytes, all of gfx1201, 12-byte accesses
 * counted as 16) is an assumption: 128 bytes per phase, consecutive lanes
 * (gfx1201 b128: 4 phases of 8 lanes; b64: 2 of 16). docs/layout-algebra.md
 * states the same table.
 *
 * Example: gfx950 ds_read_b128, lane l reading the 16 bytes at 128 * l (the
 * first chunk of row l of a row-major 64-element bf16 tile): lane l touches
 * dwords 32l .. 32l+3, banks 0-3 for even l and 32-35 for odd l. Phase 0
 * (lanes 0-3, 12-15, 20-27) puts 8 different rows into banks 0-3: an 8-way
 * conflict, 8 cycles per phase, 32 for the instruction instead of 4.
 */
#include <string.h>

#include "layout/lay_show.h"

static const lay_arch_banks archs[] = {
	{ "gfx950", 64, 4, 64 },    /* amdgpu-facts.md section 5 (CK arch.hpp) */
	{ "gfx1201", 32, 4, 32 },
};

const lay_arch_banks *
lay_banks_for(const char *arch)
{
	size_t i;

	for (i = 0; i < sizeof archs / sizeof archs[0]; i++)
		if (!strcmp(archs[i].arch, arch))
			return &archs[i];
	return NULL;
}

/* banks that serve one phase of an access of BYTES per lane */
static int
banks_of(const lay_arch_banks *a, int bytes, int is_write)
{
	if (!strcmp(a->arch, "gfx950") && is_write && bytes == 8)
		return 32;
	return a->banks;
}

int
lay_bank_phase(const lay_arch_banks *a, int bytes, int is_write, int lane)
{
	int per_phase;

	if (bytes == 12)
		bytes = 16;
	if (!strcmp(a->arch, "gfx950") && bytes == 16 && !is_write) {
		int l = lane % 32, hi = lane >= 32 ? 2 : 0;
		int p0 = (l <= 3) || (l >= 12 && l <= 15) || (l >= 20 && l <= 27);
		return hi + (p0 ? 0 : 1);
	}
	if (bytes <= 4)
		return 0;
	per_phase = banks_of(a, bytes, is_write) * a->bank_bytes / bytes;
	if (per_phase > a->lanes)
		per_phase = a->lanes;
	return lane / per_phase;
}

int
lay_bank_nphases(const lay_arch_banks *a, int bytes, int is_write)
{
	return lay_bank_phase(a, bytes, is_write, a->lanes - 1) + 1;
}

int
lay_bank_cost(const lay_arch_banks *a, int bytes, int is_write, const int64_t *dwords, int per_lane,
              const unsigned char *active, lay_bank_cost_t *out)
{
	int nph = lay_bank_nphases(a, bytes, is_write), nb = banks_of(a, bytes, is_write);
	int64_t seen[64 * 16];
	int bank_of_seen[64 * 16];

	if (per_lane < 1 || per_lane > 16 || a->lanes > 64)
		return -1;
	memset(out, 0, sizeof *out);
	out->phases = nph;
	for (int ph = 0; ph < nph; ph++) {
		int ns = 0, any = 0, worst = 0, worst_bank = 0;
		for (int lane = 0; lane < a->lanes; lane++) {
			if ((active && !active[lane]) || lay_bank_phase(a, bytes, is_write, lane) != ph)
				continue;
			any = 1;
			for (int e = 0; e < per_lane; e++) {
				int64_t w = dwords[lane * per_lane + e];
				int k;
				for (k = 0; k < ns && seen[k] != w; k++)
					;
				if (k == ns) {
					seen[ns] = w;
					bank_of_seen[ns++] = (int)(((w % nb) + nb) % nb);
				}
			}
		}
		if (!any)
			continue;
		for (int b = 0; b < nb; b++) {
			int cnt = 0;
			for (int k = 0; k < ns; k++)
				cnt += bank_of_seen[k] == b;
			if (cnt > worst) {
				worst = cnt;
				worst_bank = b;
			}
		}
		out->min_cycles++;
		out->cycles += worst;
		if (worst > out->worst) {
			out->worst = worst;
			out->worst_phase = ph;
			out->worst_bank = worst_bank;
		}
	}
	return 0;
}
