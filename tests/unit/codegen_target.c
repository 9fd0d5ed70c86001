/* codegen_target.c — the target description table (compiler/target/target.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "target/target.h"

static void
find_and_fields(void **state)
{
	const TgtDesc *a = tgt_find("gfx950"), *b = tgt_find("gfx1201");

	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_equal(tgt_find("gfx950:sramecc+:xnack-"), a);
	assert_null(tgt_find("gfx942"));
	assert_null(tgt_find("gfx95"));
	assert_null(tgt_find(""));
	/* amdgpu-facts §1.1, §3.1, §5 */
	assert_int_equal(a->wave_size, 64);
	assert_int_equal(b->wave_size, 32);
	assert_int_equal(a->lds_bytes, 160 * 1024);
	assert_int_equal(b->lds_bytes, 64 * 1024);
	assert_int_equal(a->e_flags_mach, 0x4F);
	assert_int_equal(b->e_flags_mach, 0x4E);
	assert_int_equal(a->buf_word3, 0x00020000);
	assert_int_equal(b->buf_word3, 0x31004000);
	assert_int_equal(a->agprs, 256);
	assert_int_equal(b->agprs, 0);
}

static void
features(void **state)
{
	const TgtDesc *a = tgt_find("gfx950"), *b = tgt_find("gfx1201");

	assert_true(tgt_has(a, TGT_F_MFMA));
	assert_false(tgt_has(a, TGT_F_WMMA));
	assert_true(tgt_has(b, TGT_F_WMMA));
	assert_false(tgt_has(b, TGT_F_MFMA));
	assert_true(tgt_has(a, TGT_F_DS_READ_TR));
	assert_false(tgt_has(b, TGT_F_DS_READ_TR));
	assert_true(tgt_has(b, TGT_F_SPLIT_WAIT));
	assert_false(tgt_has(a, TGT_F_SPLIT_WAIT));
	assert_false(tgt_has(a, TGT_F_COUNT));
	assert_string_equal(tgt_feature_name(TGT_F_MFMA), "mfma");
	assert_string_equal(tgt_feature_name(TGT_F_COUNT), "?");
}

/* llc-22's occupancy for the given VGPR totals (amdgpu-facts §5). */
static void
occupancy_registers(void **state)
{
	const TgtDesc *a = tgt_find("gfx950"), *b = tgt_find("gfx1201");
	static const unsigned v950[][2] = { { 64, 8 }, { 72, 7 }, { 96, 5 }, { 128, 4 }, { 136, 3 },
	                                    { 176, 2 }, { 512, 1 }, { 1, 8 } };
	static const unsigned v1201[][2] = { { 96, 16 }, { 128, 10 }, { 168, 9 }, { 176, 8 }, { 256, 5 } };

	for (size_t i = 0; i < sizeof v950 / sizeof v950[0]; i++)
		assert_int_equal(tgt_occupancy(a, v950[i][0], 0, 64), v950[i][1]);
	for (size_t i = 0; i < sizeof v1201 / sizeof v1201[0]; i++)
		assert_int_equal(tgt_occupancy(b, v1201[i][0], 0, 32), v1201[i][1]);
	assert_int_equal(tgt_occupancy(a, 513, 0, 64), 0);
	assert_int_equal(tgt_occupancy(b, 257, 0, 32), 0);
}

static void
occupancy_lds_and_block(void **state)
{
	const TgtDesc *a = tgt_find("gfx950");

	/* 160 KiB LDS: one 256-thread workgroup (4 waves) per CU = 1 wave per SIMD */
	assert_int_equal(tgt_occupancy(a, 32, 163840, 256), 1);
	/* 64 KiB: two such workgroups = 8 waves over 4 SIMDs */
	assert_int_equal(tgt_occupancy(a, 32, 65536, 256), 2);
	assert_int_equal(tgt_occupancy(a, 32, 163841, 256), 0);
	assert_int_equal(tgt_occupancy(a, 32, 0, 1025), 0);
	assert_int_equal(tgt_occupancy(a, 32, 0, 0), 0);
	/* 1024 threads = 16 waves need 4 slots per SIMD: 512 VGPRs (1 wave) cannot */
	assert_int_equal(tgt_occupancy(a, 512, 0, 1024), 0);
	assert_int_equal(tgt_occupancy(a, 128, 0, 1024), 4);
}

static void
table_is_consistent(void **state)
{
	size_t n;
	const TgtDesc *all = tgt_all(&n);

	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(tgt_find(all[i].name), &all[i]);
		assert_true(all[i].wave_size == 32 || all[i].wave_size == 64);
		assert_true(all[i].lds_pool_bytes >= all[i].lds_bytes);
		assert_true(all[i].max_waves_per_simd > 0 && all[i].simds > 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(find_and_fields),
		cmocka_unit_test(features),
		cmocka_unit_test(occupancy_registers),
		cmocka_unit_test(occupancy_lds_and_block),
		cmocka_unit_test(table_is_consistent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
