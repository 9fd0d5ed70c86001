/* simx_dstr.c — gfx950 transposed LDS reads (ds_read_b64_tr_b{16,8,4}, ds_read_b96_tr_b6).
 *
 * Model (see docs/simulator-matrix.md for the sources; b16 and b6 are checked against
 * hardware tests, b8 and b4 are the same rule, UNVERIFIED): each lane
 * first reads 64 (or 96) bits at its own address, holding n = 64/bits (96/6 = 16)
 * elements. Then, independently in each group of 16 lanes, lane m's element e is element
 * m%n of lane (16/n)*e + m/n. For b16 (n = 4): lane t = 4k+q read row k, columns 4q..4q+3
 * of a tile; afterwards lane m holds column m, rows 0..3 — a 4x16 tile transposed to the
 * MFMA operand layout.
 */
#include "sim/simx.h"

#include <string.h>

/* align: the byte alignment every lane's address must have, 0 where none is
 * known. ds_read_b96_tr_b6 needs 16 (rocRoller pads its LDS rows for it); the
 * b64 forms' rule is not known here, so they are not checked. */
static const struct {
	const char *name;
	int bits, dwords, align;
} trs[] = {
	{"ds_read_b64_tr_b16", 16, 2, 0},
	{"ds_read_b64_tr_b8", 8, 2, 0},
	{"ds_read_b64_tr_b4", 4, 2, 0},
	{"ds_read_b96_tr_b6", 6, 3, 16},
};
enum { NTR = (int)(sizeof trs / sizeof trs[0]) };

int simx_dstr_lookup(const char *mnemonic)
{
	if (!mnemonic)
		return -1;
	for (int i = 0; i < NTR; i++)
		if (!strcmp(mnemonic, trs[i].name))
			return i;
	return -1;
}

int simx_dstr_dwords(int id) { return id >= 0 && id < NTR ? trs[id].dwords : 0; }
int simx_dstr_elem_bits(int id) { return id >= 0 && id < NTR ? trs[id].bits : 0; }
int simx_dstr_align(int id) { return id >= 0 && id < NTR ? trs[id].align : 0; }

/* element e (of `bits` bits) of lane l in a register-major tuple of `nd` registers */
static uint32_t get_bits(const uint32_t *p, int nd, int lane, int e, int bits)
{
	int bit = e * bits, r = bit / 32, sh = bit % 32;
	uint64_t w = p[r * 64 + lane];
	if (r + 1 < nd)
		w |= (uint64_t)p[(r + 1) * 64 + lane] << 32;
	return (uint32_t)(w >> sh) & ((1u << bits) - 1u);
}

static void put_bits(uint32_t *p, int nd, int lane, int e, int bits, uint32_t v)
{
	int bit = e * bits, r = bit / 32, sh = bit % 32;
	uint64_t x = (uint64_t)v << sh;
	p[r * 64 + lane] |= (uint32_t)x;
	if (r + 1 < nd)
		p[(r + 1) * 64 + lane] |= (uint32_t)(x >> 32);
}

void simx_dstr_shuffle(int id, const uint32_t *in, uint32_t *out)
{
	if (id < 0 || id >= NTR)
		return;
	int bits = trs[id].bits, nd = trs[id].dwords;
	int n = nd * 32 / bits; /* elements per lane: 4, 8, 16, 16 */
	memset(out, 0, (size_t)nd * 64 * sizeof *out);
	for (int g = 0; g < 64; g += 16)
		for (int m = 0; m < 16; m++)
			for (int e = 0; e < n; e++) {
				int src = g + (16 / n) * e + m / n;
				put_bits(out, nd, g + m, e, bits, get_bits(in, nd, src, m % n, bits));
			}
}

int simx_dstr_read(int id, const uint32_t *addr, uint64_t exec, const uint8_t *lds,
                   uint32_t lds_size, uint32_t *out)
{
	if (id < 0 || id >= NTR)
		return 0;
	int nd = trs[id].dwords;
	uint32_t in[3 * 64], res[3 * 64];
	memset(in, 0, sizeof in);
	for (int l = 0; l < 64; l++) {
		if (!((exec >> l) & 1))
			continue;
		uint64_t end = (uint64_t)addr[l] + 4u * (uint32_t)nd;
		if (end > lds_size || (trs[id].align && addr[l] % (uint32_t)trs[id].align))
			return l;
		for (int r = 0; r < nd; r++) {
			uint32_t w;
			memcpy(&w, lds + addr[l] + 4 * r, 4);
			in[r * 64 + l] = w;
		}
	}
	simx_dstr_shuffle(id, in, res);
	for (int l = 0; l < 64; l++)
		if ((exec >> l) & 1)
			for (int r = 0; r < nd; r++)
				out[r * 64 + l] = res[r * 64 + l];
	return -1;
}
