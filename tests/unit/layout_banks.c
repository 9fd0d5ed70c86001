/*
 * layout_banks.c — the LDS bank model (lay_banks.c): the phase tables of
 * amdgpu-facts.md section 5, broadcast, conflict degrees of hand-counted
 * patterns, and a property over random addresses (the cost never drops below
 * the conflict-free minimum, and equals it when every lane of a phase has a
 * bank of its own).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "layout/lay_show.h"
#include "target/target.h"

/* the bank model of a row of the target table */
static const lay_arch_banks *
banks_of_arch(const char *name)
{
	static lay_arch_banks b[2];
	static int k;
	const TgtDesc *t = tgt_find(name);
	if (!t)
		return NULL;
	k ^= 1;
	b[k] = tgt_lds_banks(t);
	return &b[k];
}

static void
test_phases(void **state)
{
	const lay_arch_banks *a = banks_of_arch("gfx950"), *r = banks_of_arch("gfx1201");
	/* gfx950 ds_read_b128: {0-3,12-15,20-27}, {4-11,16-19,28-31}, the same +32 */
	static const int p0[] = { 0, 1, 2, 3, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25, 26, 27 };
	int count[4] = { 0 };

	(void)state;
	assert_non_null(a);
	assert_non_null(r);
	assert_null(banks_of_arch("gfx900"));
	for (size_t i = 0; i < sizeof p0 / sizeof p0[0]; i++) {
		assert_int_equal(lay_bank_phase(a, 16, 0, p0[i]), 0);
		assert_int_equal(lay_bank_phase(a, 16, 0, p0[i] + 32), 2);
	}
	for (int l = 0; l < 64; l++)
		count[lay_bank_phase(a, 16, 0, l)]++;
	for (int p = 0; p < 4; p++)
		assert_int_equal(count[p], 16);
	assert_int_equal(lay_bank_nphases(a, 16, 0), 4);
	assert_int_equal(lay_bank_nphases(a, 8, 0), 2);
	assert_int_equal(lay_bank_phase(a, 8, 0, 31), 0);
	assert_int_equal(lay_bank_phase(a, 8, 0, 32), 1);
	assert_int_equal(lay_bank_nphases(a, 8, 1), 4);     /* ds_write_b64: 4 of 16 lanes */
	assert_int_equal(lay_bank_phase(a, 8, 1, 16), 1);
	assert_int_equal(lay_bank_nphases(a, 4, 0), 1);
	assert_int_equal(lay_bank_nphases(a, 2, 1), 1);
	assert_int_equal(lay_bank_nphases(r, 16, 0), 4);    /* gfx1201: 128 bytes per phase */
	assert_int_equal(lay_bank_phase(r, 16, 0, 8), 1);
	assert_int_equal(lay_bank_nphases(r, 8, 0), 2);
	assert_int_equal(lay_bank_nphases(r, 4, 0), 1);
}

static void
test_patterns(void **state)
{
	const lay_arch_banks *a = banks_of_arch("gfx950");
	int64_t dw[64 * 4];
	lay_bank_cost_t c;

	(void)state;
	/* 4-byte column of a 64 x 64 f32 tile: every lane in bank 0 */
	for (int l = 0; l < 64; l++)
		dw[l] = 64 * l;
	assert_int_equal(lay_bank_cost(a, 4, 0, dw, 1, NULL, &c), 0);
	assert_int_equal(c.worst, 64);
	assert_int_equal(c.cycles, 64);
	assert_int_equal(c.min_cycles, 1);
	/* padded by one dword: free */
	for (int l = 0; l < 64; l++)
		dw[l] = 65 * l;
	lay_bank_cost(a, 4, 0, dw, 1, NULL, &c);
	assert_int_equal(c.worst, 1);
	assert_int_equal(c.cycles, 1);
	/* all lanes read one dword: a broadcast */
	for (int l = 0; l < 64; l++)
		dw[l] = 7;
	lay_bank_cost(a, 4, 0, dw, 1, NULL, &c);
	assert_int_equal(c.worst, 1);
	/* only lanes 0 and 1 active, two rows apart in bank 0: 2-way */
	{
		unsigned char act[64] = { 1, 1 };
		for (int l = 0; l < 64; l++)
			dw[l] = 64 * l;
		lay_bank_cost(a, 4, 0, dw, 1, act, &c);
		assert_int_equal(c.worst, 2);
		memset(act, 0, sizeof act);
		lay_bank_cost(a, 4, 0, dw, 1, act, &c);
		assert_int_equal(c.worst, 0);
		assert_int_equal(c.min_cycles, 0);
	}
	/* ds_read_b128, lane l at byte 128 l (row l of a 64-element bf16 tile):
	 * even lanes in banks 0-3, odd ones in 32-35; phase 0 holds 8 even lanes
	 * -> 8 rows in bank 0: 8-way, 4 phases x 8 cycles */
	for (int l = 0; l < 64; l++)
		for (int k = 0; k < 4; k++)
			dw[l * 4 + k] = 32 * l + k;
	lay_bank_cost(a, 16, 0, dw, 4, NULL, &c);
	assert_int_equal(c.phases, 4);
	assert_int_equal(c.worst, 8);
	assert_int_equal(c.cycles, 32);
	assert_int_equal(c.min_cycles, 4);
	/* contiguous b128: free */
	for (int l = 0; l < 64; l++)
		for (int k = 0; k < 4; k++)
			dw[l * 4 + k] = 4 * l + k;
	lay_bank_cost(a, 16, 0, dw, 4, NULL, &c);
	assert_int_equal(c.worst, 1);
	assert_int_equal(c.cycles, 4);
	assert_int_equal(lay_bank_cost(a, 16, 0, dw, 17, NULL, &c), -1);
}

/* for random dwords: min_cycles <= cycles <= min_cycles * lanes per phase,
 * worst >= 1; and distinct banks per phase give exactly the minimum */
static void
test_random_property(void **state)
{
	const lay_arch_banks *archs[2] = { banks_of_arch("gfx950"), banks_of_arch("gfx1201") };
	static const int widths[] = { 2, 4, 8, 16 };
	unsigned seed = 12345;

	(void)state;
	for (int it = 0; it < 400; it++) {
		const lay_arch_banks *a = archs[it % 2];
		int w = widths[(it / 2) % 4], per = w < 4 ? 1 : w / 4, wr = (it / 8) % 2;
		int64_t dw[64 * 4];
		lay_bank_cost_t c;
		for (int l = 0; l < a->lanes * per; l++) {
			seed = seed * 1103515245u + 12345u;
			dw[l] = (seed >> 8) % 4096;
		}
		lay_bank_cost(a, w, wr, dw, per, NULL, &c);
		assert_true(c.min_cycles == lay_bank_nphases(a, w, wr));
		assert_true(c.cycles >= c.min_cycles);
		assert_true(c.worst >= 1);
		assert_true(c.cycles <= c.min_cycles * c.worst);
		/* lanes of a phase at consecutive dwords: free */
		for (int l = 0; l < a->lanes; l++)
			for (int k = 0; k < per; k++)
				dw[l * per + k] = (int64_t)l * per + k + 1000;
		lay_bank_cost(a, w, wr, dw, per, NULL, &c);
		assert_int_equal(c.worst, 1);
		assert_int_equal(c.cycles, c.min_cycles);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_random_property),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
