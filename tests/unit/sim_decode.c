/*
 * sim_decode.c — unit tests of the simulator's instruction decoder (LLVM text
 * -> SimInst), of decoding real encodings through the LLVM disassembler, of
 * the f16/bf16 helpers and of the device address space API.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/sim_int.h"

static SimInst parse(const char *text)
{
	SimInst in;
	char err[256];
	memset(&in, 0, sizeof in);
	in.pc = 0x100; in.size = 4;
	int rc = sim_parse_text(text, &in, err, sizeof err);
	if (rc) fprintf(stderr, "%s\n", err);
	assert_int_equal(rc, 0);
	return in;
}

static void registers_and_tuples(void **state)
{
	SimInst in = parse("v_lshl_add_u64 v[2:3], s[0:1], 0, v[0:1]");
	assert_int_equal(in.op, sim_lookup_op("v_lshl_add_u64"));
	assert_int_equal(in.nops, 4);
	assert_int_equal(in.o[0].kind, SIM_OPK_VGPR); assert_int_equal(in.o[0].reg, 2); assert_int_equal(in.o[0].nregs, 2);
	assert_int_equal(in.o[1].kind, SIM_OPK_SGPR); assert_int_equal(in.o[1].reg, 0); assert_int_equal(in.o[1].nregs, 2);
	assert_int_equal(in.o[2].kind, SIM_OPK_CONST); assert_int_equal(in.o[2].k32, 0);
	in = parse("v_mfma_f32_16x16x32_bf16 a[0:3], v[0:3], v[4:7], a[0:3] cbsz:1 abid:1 blgp:2");
	assert_int_equal(in.o[0].reg, SIM_AGPR0); assert_int_equal(in.o[0].nregs, 4);
	assert_int_equal(in.cbsz, 1); assert_int_equal(in.abid, 1); assert_int_equal(in.blgp, 2);
	in = parse("s_and_saveexec_b64 s[2:3], vcc");
	assert_int_equal(in.o[1].kind, SIM_OPK_SGPR); assert_int_equal(in.o[1].reg, SIM_VCC); assert_int_equal(in.o[1].nregs, 2);
	in = parse("s_mov_b32 m0, ttmp9");
	assert_int_equal(in.o[0].reg, SIM_M0); assert_int_equal(in.o[1].reg, SIM_TTMP0 + 9);
	in = parse("s_or_b64 exec, exec, s[0:1]");
	assert_int_equal(in.o[0].reg, SIM_EXEC); assert_int_equal(in.o[0].nregs, 2);
}

static void constants(void **state)
{
	SimInst in = parse("v_add_f64 v[0:1], 0.5, v[2:3]");
	assert_int_equal(in.o[1].kind, SIM_OPK_CONST);
	assert_true(in.o[1].kf64 == 0x3fe0000000000000ull);
	assert_int_equal(in.o[1].k32, 0x3f000000);
	assert_int_equal(in.o[1].kf16, 0x3800);
	in = parse("v_add_f64 v[0:1], 0x40100000, v[2:3]");    /* 32-bit literal of an f64 operand = high half */
	assert_true(in.o[1].kf64 == 0x4010000000000000ull);
	assert_int_equal(in.o[1].literal, 1);
	in = parse("v_mov_b32_e32 v0, -16");
	assert_int_equal(in.o[1].k32, 0xfffffff0u);
	assert_true(in.o[1].k64 == 0xfffffffffffffff0ull);
	assert_int_equal(in.o[1].literal, 0);
	in = parse("v_mov_b32_e32 v0, 0.15915494");            /* 1/(2*pi) */
	assert_int_equal(in.o[1].k32, 0x3e22f983); assert_int_equal(in.o[1].kf16, 0x3118);
	in = parse("v_mov_b32_e32 v0, lit(0x3f000000)");
	assert_int_equal(in.o[1].k32, 0x3f000000); assert_int_equal(in.o[1].literal, 1);
	in = parse("s_mov_b64 s[0:1], src_private_base");
	assert_true(in.o[1].k64 == SIM_PRIVATE_APERTURE);
	in = parse("s_getreg_b32 s0, hwreg(HW_REG_MODE, 4, 4)");
	assert_int_equal(in.o[1].k32, 1 | 4 << 6 | 3 << 11);
}

static void modifiers(void **state)
{
	SimInst in = parse("v_add_f32_e64 v0, -|v1|, |s2| clamp mul:2");
	assert_int_equal(in.enc, SIM_ENC_E64);
	assert_int_equal(in.o[1].neg, 1); assert_int_equal(in.o[1].abs, 1);
	assert_int_equal(in.o[2].neg, 0); assert_int_equal(in.o[2].abs, 1);
	assert_int_equal(in.clamp, 1); assert_int_equal(in.omod, 1);
	in = parse("v_fma_mix_f32 v0, v1, v2, v3 op_sel:[0,1,0] op_sel_hi:[1,1,0]");
	assert_int_equal(in.op_sel, 2); assert_int_equal(in.op_sel_hi, 3);
	in = parse("v_pk_add_f16 v0, v1, v2");
	assert_int_equal(in.op_sel_hi, 7);                       /* default when not printed */
	in = parse("v_fma_mixlo_f16 v26, v9, v28, 0");            /* mix: f32 operands when not printed */
	assert_int_equal(in.op_sel_hi, 0);
	in = parse("v_fma_mix_f32 v0, v1, v2, v3");
	assert_int_equal(in.op_sel_hi, 0);
	in = parse("v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xa bank_mask:0x5 bound_ctrl:1");
	assert_int_equal(in.enc, SIM_ENC_DPP); assert_int_equal(in.dpp_ctrl, 0x111);
	assert_int_equal(in.row_mask, 0xa); assert_int_equal(in.bank_mask, 5); assert_int_equal(in.bound_ctrl, 1);
	in = parse("v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf");
	assert_int_equal(in.dpp_ctrl, 0xb1); assert_int_equal(in.bound_ctrl, 0);
	in = parse("v_add_u32_sdwa v0, v1, sext(v2) dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:WORD_1");
	assert_int_equal(in.enc, SIM_ENC_SDWA);
	assert_int_equal(in.dst_sel, SIM_SEL_WORD1); assert_int_equal(in.dst_unused, 2);
	assert_int_equal(in.src_sel[0], SIM_SEL_BYTE0); assert_int_equal(in.src_sel[1], SIM_SEL_WORD1);
	assert_int_equal(in.o[2].sext, 1);
	in = parse("global_load_dword v1, v2, s[2:3] offset:-8 sc0 nt");
	assert_int_equal(in.offset, -8); assert_int_equal(in.sc0, 1); assert_int_equal(in.nt, 1);
	assert_int_equal(in.o[2].kind, SIM_OPK_SGPR);
	in = parse("scratch_load_dword v1, off, s33 offset:4");
	assert_int_equal(in.o[1].kind, SIM_OPK_OFF); assert_int_equal(in.o[2].reg, 33);
	in = parse("buffer_load_dword v1, v2, s[4:7], 0 offen offset:4");
	assert_int_equal(in.offen, 1); assert_int_equal(in.idxen, 0); assert_int_equal(in.offset, 4);
	in = parse("ds_read2st64_b32 v[2:3], v1 offset1:2");
	assert_int_equal(in.offset0, 0); assert_int_equal(in.offset1, 2);
	in = parse("ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,1)");
	assert_int_equal(in.offset, 0x041f);
	in = parse("ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,0,0,0,0)");
	assert_int_equal(in.offset, 0x8000);
	in = parse("v_bitop3_b32 v0, v1, v2, v3 bitop3:0x96");
	assert_int_equal(in.imm, 0x96);
}

static void branches_and_nops(void **state)
{
	SimInst in = parse("s_cbranch_execz 18");
	assert_true(in.target == 0x100 + 4 + 18 * 4);
	in = parse("s_branch -3");
	assert_true(in.target == 0x100 + 4 - 12);
	in = parse("s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)");
	assert_true(in.flags & SIM_F_NOP);
	in = parse("s_rfe_b64 s[2:3]");
	assert_int_equal(in.op, SIM_OPC_UNSUPPORTED);
	assert_string_equal(in.mnem, "s_rfe_b64");
	assert_true(sim_mnemonic_supported("v_add_f32_e64"));
	assert_true(sim_mnemonic_supported("v_mov_b32_dpp"));
	assert_false(sim_mnemonic_supported("s_rfe_b64"));
}

static void bad_text(void **state)
{
	SimInst in;
	char err[256];
	memset(&in, 0, sizeof in);
	assert_int_equal(sim_parse_text("v_add_f32_e32 v0, v[3:1], v2", &in, err, sizeof err), -1);
	assert_non_null(strstr(err, "v[3:1]"));
	assert_int_equal(sim_parse_text("v_add_f32_e32 v0, v1, v2 bogus:3", &in, err, sizeof err), -1);
	assert_int_equal(sim_parse_text("v_add_f32_e32 v0, v300, v2", &in, err, sizeof err), -1);
}

/* real encodings through the LLVM disassembler (bytes from llvm-mc-22 -show-encoding) */
static void disassembles_bytes(void **state)
{
	static const uint8_t code[] = {
		0x00, 0x00, 0x80, 0xd2, 0xf0, 0x04, 0x02, 0x00,  /* v_add_f64 v[0:1], 0.5, v[2:3] */
		0xfa, 0x02, 0x00, 0x7e, 0x01, 0xb1, 0x00, 0xa5,  /* v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] ... */
		0x00, 0x00, 0x81, 0xbf,                          /* s_endpgm */
		0xff, 0xff, 0xff, 0xff };                        /* not an instruction */
	CoObject co;
	memset(&co, 0, sizeof co);
	co.image = (uint8_t *)code; co.image_size = sizeof code;
	SimInst in;
	char err[256];
	assert_int_equal(sim_decode(&co, 0, &in, err, sizeof err), 0);
	assert_int_equal(in.size, 8); assert_string_equal(in.mnem, "v_add_f64");
	assert_true(in.o[1].kf64 == 0x3fe0000000000000ull);
	assert_int_equal(in.raw[0], 0xd2800000u);
	assert_int_equal(sim_decode(&co, 8, &in, err, sizeof err), 0);
	assert_int_equal(in.enc, SIM_ENC_DPP); assert_int_equal(in.dpp_ctrl, 0xb1); assert_int_equal(in.row_mask, 0xa);
	assert_int_equal(sim_decode(&co, 16, &in, err, sizeof err), 0);
	assert_string_equal(in.mnem, "s_endpgm"); assert_int_equal(in.size, 4);
	int rc = sim_decode(&co, 20, &in, err, sizeof err);
	if (rc == 0) assert_int_equal(in.op, SIM_OPC_UNSUPPORTED);   /* decodes to something we do not run */
	else assert_non_null(strstr(err, "undecodable"));
	assert_int_equal(sim_decode(&co, 24, &in, err, sizeof err), -1);
}

static void half_and_bfloat(void **state)
{
	assert_int_equal(sim_f32_to_f16(1.0f), 0x3c00);
	assert_int_equal(sim_f32_to_f16(65504.0f), 0x7bff);
	assert_int_equal(sim_f32_to_f16(65520.0f), 0x7c00);        /* rounds up to inf */
	assert_int_equal(sim_f32_to_f16(5.9604645e-8f), 0x0001);   /* smallest subnormal */
	assert_int_equal(sim_f32_to_f16(2.9802322e-8f), 0x0000);   /* half of it: ties to even */
	assert_int_equal(sim_f32_to_f16(-0.0f), 0x8000);
	/* every f16 survives f16 -> f32 -> f16 */
	for (uint32_t h = 0; h < 0x10000; h++) {
		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;    /* NaNs: quieted */
		assert_int_equal(sim_f32_to_f16(sim_f16_to_f32((uint16_t)h)), h);
	}
	assert_true(sim_f16_to_f32(0x0001) == 5.9604645e-8f);
	assert_int_equal(sim_f32_to_bf16(1.0f), 0x3f80);
	assert_int_equal(sim_f32_to_bf16(sim_f32(0x3f808000)), 0x3f80);   /* tie to even */
	assert_int_equal(sim_f32_to_bf16(sim_f32(0x3f818000)), 0x3f82);
	assert_true(sim_bf16_to_f32(0xc040) == -3.0f);
}

static void address_space(void **state)
{
	SimDevice *d = sim_create(NULL);
	assert_non_null(d);
	uint64_t a = sim_alloc(d, 100), b = sim_alloc(d, 4096);
	assert_true(a != 0 && b != 0 && b > a + 100);
	uint8_t buf[128], z[100];
	memset(z, 0, sizeof z);
	assert_int_equal(sim_read(d, a, buf, 100), 0);
	assert_memory_equal(buf, z, 100);                        /* zero-filled */
	memset(buf, 0x5a, sizeof buf);
	assert_int_equal(sim_write(d, a + 50, buf, 50), 0);
	assert_int_equal(sim_write(d, a + 50, buf, 51), -1);     /* one byte past the end */
	assert_int_equal(sim_read(d, a - 1, buf, 1), -1);
	assert_int_equal(sim_read(d, a + 99, buf, 1), 0);
	assert_int_equal(sim_free(d, a + 1), -1);
	assert_int_equal(sim_free(d, a), 0);
	assert_int_equal(sim_read(d, a, buf, 1), -1);            /* freed */
	assert_int_equal(sim_read(d, b, buf, 4), 0);
	sim_destroy(d);
}

/* every encoding the disassembler accepts decodes or is refused with a message,
 * never a crash (random words in every major encoding class) */
static void random_encodings(void **state)
{
	static const uint32_t classes[][2] = {   /* fixed bits, mask of random bits */
		{ 0xbe800000, 0x007fffff }, { 0x80000000, 0x3fffffff }, { 0xb0000000, 0x0fffffff },
		{ 0xbf000000, 0x007fffff }, { 0xbf800000, 0x007fffff }, { 0xc0000000, 0x03ffffff },
		{ 0x7e000000, 0x01ffffff }, { 0x00000000, 0x7fffffff }, { 0x7c000000, 0x01ffffff },
		{ 0xd0000000, 0x03ffffff }, { 0xd3800000, 0x007fffff }, { 0xd8000000, 0x03ffffff },
		{ 0xdc000000, 0x03ffffff }, { 0xe0000000, 0x0fffffff } };
	uint64_t seed = 12345;
	uint32_t code[4];
	CoObject co;
	memset(&co, 0, sizeof co);
	co.image = (uint8_t *)code; co.image_size = sizeof code;
	int ok = 0;
	for (int n = 0; n < 30000; n++) {
		for (int k = 0; k < 4; k++) { seed = seed * 6364136223846793005ull + 1442695040888963407ull; code[k] = (uint32_t)(seed >> 32); }
		const uint32_t *c = classes[n % (int)(sizeof classes / sizeof classes[0])];
		code[0] = c[0] | (code[0] & c[1]);
		SimInst in;
		char err[256];
		err[0] = 0;
		if (sim_decode(&co, 0, &in, err, sizeof err) == 0) {
			ok++;
			assert_true(in.size >= 4 && in.size <= 16);
			assert_true(in.nops <= SIM_MAX_OPS);
		} else assert_true(err[0] != 0);
	}
	assert_true(ok > 5000);   /* the rest are not gfx950 encodings, or ones LLVM prints as invalid */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registers_and_tuples),
		cmocka_unit_test(constants),
		cmocka_unit_test(modifiers),
		cmocka_unit_test(branches_and_nops),
		cmocka_unit_test(bad_text),
		cmocka_unit_test(disassembles_bytes),
		cmocka_unit_test(half_and_bfloat),
		cmocka_unit_test(address_space),
		cmocka_unit_test(random_encodings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
