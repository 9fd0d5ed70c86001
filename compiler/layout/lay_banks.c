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
 * Which lanes share a phase is a fact of the architecture: the rows of
 * lay_arch_banks.rules, which the target table holds (TgtDesc.lds in
 * compiler/target/target.c, with their sources). Without a rule, 1-, 2- and
 * 4-byte accesses are one phase of the whole wave and other sizes
 * (12 bytes counted as 16) take 128 bytes of consecutive lanes per phase
 * over all banks. docs/layout-algebra.md states the table.
 *
 * Example: gfx950 ds_read_b128, lane l reading the 16 bytes at 128 * l (the
 * first chunk of row l of a row-major 64-element bf16 tile): lane l touches
 * dwords 32l .. 32l+3, banks 0-3 for even l and 32-35 for odd l. Phase 0
 * (lanes 0-3, 12-15, 20-27) puts 8 different rows into banks 0-3: an 8-way
 * conflict, 8 cycles per phase, 32 for the instruction instead of 4.
 */
#include <string.h>

#include "layout/lay_show.h"

/* the rule for an access of BYTES per lane, or NULL */
static const lay_bank_rule *
rule_of(const lay_arch_banks *a, int bytes, int is_write)
{
	for (const lay_bank_rule *r = a->rules; r && r->bytes; r++)
		if (r->bytes == bytes && r->is_write == is_write)
			return r;
	return NULL;
}

/* banks that serve one phase of an access of BYTES per lane */
static int
banks_of(const lay_arch_banks *a, int bytes, int is_write)
{
	const lay_bank_rule *r = rule_of(a, bytes == 12 ? 16 : bytes, is_write);
	return r && r->banks ? r->banks : a->banks;
}

int
lay_bank_phase(const lay_arch_banks *a, int bytes, int is_write, int lane)
{
	int per_phase;

	const lay_bank_rule *r;

	if (bytes == 12)
		bytes = 16;
	if ((r = rule_of(a, bytes, is_write)) && r->phase)
		return r->phase[lane];
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
