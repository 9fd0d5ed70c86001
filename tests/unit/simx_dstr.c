/* Unit tests: gfx950 transposed LDS reads (simx_dstr.c).
 * Each test lays a row-major tile into an LDS image, gives every lane the address the
 * tile-transpose idiom uses (triton/CK: lanes step along the rows, then along column
 * chunks), and checks that lane m ends up with column m of the tile, rows 0..n-1, as the
 * MFMA B operand wants. This is the model documented in docs/simulator-matrix.md (the
 * b16 case follows triton's description, b6 rocRoller's hardware test; b8/b4 are the
 * same model, UNVERIFIED). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/simx.h"

static uint8_t lds[4096];

/* element e of `bits` bits from a little-endian bit stream */
static uint32_t field(const uint32_t *w, int nwords, int e, int bits)
{
	int bit = e * bits;
	uint64_t x = w[bit / 32];
	if (bit / 32 + 1 < nwords)
		x |= (uint64_t)w[bit / 32 + 1] << 32;
	return (uint32_t)(x >> (bit % 32)) & ((1u << bits) - 1);
}

static void set_field(uint8_t *row, int e, int bits, uint32_t v)
{
	for (int b = 0; b < bits; b++) {
		int bit = e * bits + b;
		if ((v >> b) & 1)
			row[bit / 8] |= (uint8_t)(1u << (bit % 8));
	}
}

/* generic check: bits per element, n elements per lane, row pitch in bytes */
static void check_tr(const char *name, int bits)
{
	int id = simx_dstr_lookup(name);
	assert_true(id >= 0);
	int nd = simx_dstr_dwords(id);
	int n = nd * 32 / bits;      /* elements per lane */
	int chunks = 16 / n;         /* lanes per row */
	int pitch = 64;              /* bytes between tile rows */
	memset(lds, 0, sizeof lds);
	/* four 16-lane groups, each with its own tile of n rows x 16 columns */
	uint32_t val[4][16][16];
	uint32_t seed = 17;
	for (int g = 0; g < 4; g++)
		for (int k = 0; k < n; k++)
			for (int c = 0; c < 16; c++) {
				seed = seed * 1103515245u + 12345u;
				val[g][k][c] = (seed >> 16) & ((1u << bits) - 1);
				set_field(lds + g * 1024 + k * pitch, c, bits, val[g][k][c]);
			}
	uint32_t addr[64], out[3 * 64];
	for (int l = 0; l < 64; l++) {
		int g = l / 16, t = l % 16;
		int k = t / chunks, q = t % chunks;    /* lane t reads row k, column chunk q */
		addr[l] = (uint32_t)(g * 1024 + k * pitch + q * n * bits / 8);
	}
	memset(out, 0xEE, sizeof out);
	assert_int_equal(simx_dstr_read(id, addr, ~0ull, lds, sizeof lds, out), -1);
	for (int l = 0; l < 64; l++) {
		uint32_t w[3];
		for (int r = 0; r < nd; r++)
			w[r] = out[r * 64 + l];
		for (int e = 0; e < n; e++)
			assert_int_equal(field(w, nd, e, bits), val[l / 16][e][l % 16]);
	}
}

static void tr_b16(void **st) { (void)st; check_tr("ds_read_b64_tr_b16", 16); }
static void tr_b8(void **st) { (void)st; check_tr("ds_read_b64_tr_b8", 8); }
static void tr_b4(void **st) { (void)st; check_tr("ds_read_b64_tr_b4", 4); }
static void tr_b6(void **st) { (void)st; check_tr("ds_read_b96_tr_b6", 6); }

static void bounds_and_exec(void **st)
{
	(void)st;
	int id = simx_dstr_lookup("ds_read_b64_tr_b16");
	uint32_t addr[64], out[2 * 64];
	for (int l = 0; l < 64; l++)
		addr[l] = (uint32_t)(8 * l);
	addr[37] = 4090; /* 8 bytes from 4090 leave the 4096-byte image */
	assert_int_equal(simx_dstr_read(id, addr, ~0ull, lds, sizeof lds, out), 37);
	/* an inactive lane is not checked and keeps its old value */
	memset(out, 0x5A, sizeof out);
	uint64_t exec = ~0ull & ~(1ull << 37);
	assert_int_equal(simx_dstr_read(id, addr, exec, lds, sizeof lds, out), -1);
	assert_int_equal(out[37], 0x5A5A5A5A);
	assert_int_equal(out[64 + 37], 0x5A5A5A5A);
	assert_int_equal(simx_dstr_lookup("ds_read_b64"), -1);
	assert_int_equal(simx_dstr_elem_bits(simx_dstr_lookup("ds_read_b96_tr_b6")), 6);
}

/* ds_read_b96_tr_b6 needs every lane's address 16-byte aligned: a 12-byte step
 * (dense fp6 rows of 16) is refused at the first lane off the grid */
static void b6_alignment(void **st)
{
	(void)st;
	int id = simx_dstr_lookup("ds_read_b96_tr_b6");
	uint32_t addr[64], out[3 * 64];
	assert_int_equal(simx_dstr_align(id), 16);
	assert_int_equal(simx_dstr_align(simx_dstr_lookup("ds_read_b64_tr_b16")), 0);
	for (int l = 0; l < 64; l++)
		addr[l] = (uint32_t)(16 * l);
	assert_int_equal(simx_dstr_read(id, addr, ~0ull, lds, sizeof lds, out), -1);
	addr[21] += 8;
	assert_int_equal(simx_dstr_read(id, addr, ~0ull, lds, sizeof lds, out), 21);
	assert_int_equal(simx_dstr_read(id, addr, ~0ull & ~(1ull << 21), lds, sizeof lds, out), -1);
	for (int l = 0; l < 64; l++)
		addr[l] = (uint32_t)(12 * l);
	assert_int_equal(simx_dstr_read(id, addr, ~0ull, lds, sizeof lds, out), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tr_b16),
		cmocka_unit_test(tr_b8),
		cmocka_unit_test(tr_b4),
		cmocka_unit_test(tr_b6),
		cmocka_unit_test(bounds_and_exec),
		cmocka_unit_test(b6_alignment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
