/*
 * sim_decode.c — instruction decoding: LLVM's MC disassembler prints each
 * instruction; the text is parsed here once into a SimInst (sim_int.h).
 *
 * Why text: the LLVM-C API exposes only the printer (llvm-c/Disassembler.h),
 * and the printed AMDGPU syntax is stable, regular and documented by the
 * assembler tests. Everything the executor needs (registers, tuple widths,
 * inline constants, literals, modifiers) is recovered from it.
 */
/* messages are cut to their buffers on purpose */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>
#include "sim/sim_int.h"

#define SIM_OP(name, flags) #name,
const char *const sim_op_names[SIM_OPC_COUNT] = { "(unsupported)",
#include "sim/sim_ops.h"
};
#undef SIM_OP
#define SIM_OP(name, flags) sim_op_##name,
const SimHandler sim_op_handlers[SIM_OPC_COUNT] = { NULL,
#include "sim/sim_ops.h"
};
#undef SIM_OP
#define SIM_OP(name, flags) (uint8_t)(flags),
const uint8_t sim_op_flags[SIM_OPC_COUNT] = { 0,
#include "sim/sim_ops.h"
};
#undef SIM_OP

/* ---- mnemonic lookup: sorted index, built once ---- */
static uint16_t sorted_ops[SIM_OPC_COUNT];
static pthread_once_t lookup_once = PTHREAD_ONCE_INIT;

static int cmp_op(const void *a, const void *b)
{
	return strcmp(sim_op_names[*(const uint16_t *)a], sim_op_names[*(const uint16_t *)b]);
}
static void build_lookup(void)
{
	for (int i = 1; i < SIM_OPC_COUNT; i++) sorted_ops[i - 1] = (uint16_t)i;
	qsort(sorted_ops, SIM_OPC_COUNT - 1, sizeof sorted_ops[0], cmp_op);
}
int sim_lookup_op(const char *name)
{
	pthread_once(&lookup_once, build_lookup);
	int lo = 0, hi = SIM_OPC_COUNT - 2;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int c = strcmp(name, sim_op_names[sorted_ops[mid]]);
		if (c == 0) return sorted_ops[mid];
		if (c < 0) hi = mid - 1; else lo = mid + 1;
	}
	return 0;
}

/* Split "v_add_f32_e64" into base "v_add_f32" and SIM_ENC_E64. */
static int split_suffix(const char *m, char *base, size_t n)
{
	static const struct { const char *s; int enc; } suf[] = {
		{ "_e32", SIM_ENC_E32 }, { "_e64", SIM_ENC_E64 }, { "_dpp", SIM_ENC_DPP }, { "_sdwa", SIM_ENC_SDWA } };
	size_t len = strlen(m);
	snprintf(base, n, "%s", m);
	/* GFX11+ DPP on a VOP3 encoding: v_add_f32_e64_dpp */
	if (len > 8 && !strcmp(m + len - 8, "_e64_dpp")) { base[len - 8] = 0; return SIM_ENC_DPP; }
	for (size_t i = 0; i < sizeof suf / sizeof suf[0]; i++) {
		size_t sl = strlen(suf[i].s);
		if (len > sl && strcmp(m + len - sl, suf[i].s) == 0) { base[len - sl] = 0; return suf[i].enc; }
	}
	return SIM_ENC_PLAIN;
}

/* A mnemonic of either instruction set (gfx9 names, or the GFX12 table). */
int sim_mnemonic_supported(const char *mnemonic)
{
	char base[64];
	split_suffix(mnemonic, base, sizeof base);
	return sim_lookup_op(base) != 0 || sim_lookup_arch(sim_arch_find("gfx1201"), base) != 0;
}

/* ---- operand parsing ---- */
static uint16_t f32_to_f16_bits(float f) { return sim_f32_to_f16(f); }

static void set_float_const(SimOperand *o, double d)
{
	float f = (float)d;
	o->kind = SIM_OPK_CONST; o->nregs = 1;
	o->k32 = sim_u32(f);
	o->kf16 = f32_to_f16_bits(f);
	o->kbf16 = sim_f32_to_bf16(f);
	if (fabs(d - 0.15915494) < 1e-7) {   /* 1/(2*pi): each width has its own rounding */
		o->kf64 = 0x3fc45f306dc9c882ull; o->k32 = 0x3e22f983; o->kf16 = 0x3118; o->kbf16 = 0x3e22;
	} else {
		o->kf64 = sim_u64(d);
	}
	o->k64 = o->kf64;
}

static void set_int_const(SimOperand *o, int64_t v, int literal)
{
	o->kind = SIM_OPK_CONST; o->nregs = 1; o->literal = (uint8_t)literal;
	o->k32 = (uint32_t)v;
	o->k64 = (uint64_t)v;
	o->kf16 = (uint16_t)v;
	o->kbf16 = (uint16_t)v;
	o->kf64 = (uint64_t)v;
}

static const struct { const char *name; int reg; int n; } special_regs[] = {
	{ "vcc", SIM_VCC, 2 }, { "vcc_lo", SIM_VCC, 1 }, { "vcc_hi", SIM_VCC + 1, 1 },
	{ "exec", SIM_EXEC, 2 }, { "exec_lo", SIM_EXEC, 1 }, { "exec_hi", SIM_EXEC + 1, 1 },
	{ "m0", SIM_M0, 1 }, { "null", SIM_NULL, 1 },
	{ "flat_scratch", SIM_FLAT_SCRATCH, 2 }, { "flat_scratch_lo", SIM_FLAT_SCRATCH, 1 },
	{ "flat_scratch_hi", SIM_FLAT_SCRATCH + 1, 1 },
	{ "xnack_mask", SIM_XNACK_MASK, 2 }, { "xnack_mask_lo", SIM_XNACK_MASK, 1 },
	{ "xnack_mask_hi", SIM_XNACK_MASK + 1, 1 },
};

/* hwreg(NAME[, offset, size]) -> simm16 */
static int parse_hwreg(const char *t, int32_t *out)
{
	static const struct { const char *n; int id; } ids[] = {
		{ "HW_REG_MODE", 1 }, { "HW_REG_STATUS", 2 }, { "HW_REG_TRAPSTS", 3 }, { "HW_REG_HW_ID", 4 },
		{ "HW_REG_GPR_ALLOC", 5 }, { "HW_REG_LDS_ALLOC", 6 }, { "HW_REG_IB_STS", 7 },
		{ "HW_REG_SH_MEM_BASES", 15 }, { "HW_REG_XCC_ID", 20 },
		/* GFX12 names */
		{ "HW_REG_WAVE_MODE", 1 }, { "HW_REG_WAVE_STATUS", 2 }, { "HW_REG_WAVE_GPR_ALLOC", 5 },
		{ "HW_REG_WAVE_LDS_ALLOC", 6 } };
	const char *p = t + 6;
	char name[40]; int k = 0;
	while (*p && *p != ',' && *p != ')' && k < 39) { if (*p != ' ') name[k++] = *p; p++; }
	name[k] = 0;
	int id = -1;
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) if (!strcmp(name, ids[i].n)) id = ids[i].id;
	if (id < 0 && !strncmp(name, "HW_REG_", 7)) id = 0;   /* other registers (trap base, ...) read as 0 */
	if (id < 0) { char *e; id = (int)strtol(name, &e, 0); if (*e) return -1; }
	int off = 0, size = 32;
	if (*p == ',') { off = (int)strtol(p + 1, (char **)&p, 0); if (*p == ',') size = (int)strtol(p + 1, (char **)&p, 0); }
	*out = id | off << 6 | (size - 1) << 11;
	return 0;
}

static int parse_reg_range(const char *t, int *first, int *n)
{
	/* t points after the prefix letter(s): "5" or "[4:7]" */
	char *e;
	if (*t == '[') {
		long a = strtol(t + 1, &e, 10);
		if (*e != ':') return -1;
		long b = strtol(e + 1, &e, 10);
		if (*e != ']' || e[1] || b < a) return -1;
		*first = (int)a; *n = (int)(b - a + 1);
		return 0;
	}
	if (!isdigit((unsigned char)*t)) return -1;
	long a = strtol(t, &e, 10);
	if (*e) return -1;
	*first = (int)a; *n = 1;
	return 0;
}

static int parse_operand(const char *tok, SimOperand *o, int nsgpr)
{
	char buf[96];
	memset(o, 0, sizeof *o);
	snprintf(buf, sizeof buf, "%s", tok);
	char *t = buf;
	size_t len;
	/* modifiers: -x, |x|, -|x|, neg(x), abs(x), sext(x) */
	for (;;) {
		len = strlen(t);
		if (t[0] == '-' && !isdigit((unsigned char)t[1]) && t[1] != '.') { o->neg ^= 1; t++; continue; }
		if (t[0] == '|' && len >= 2 && t[len - 1] == '|') { o->abs = 1; t[len - 1] = 0; t++; continue; }
		if (!strncmp(t, "neg(", 4) && t[len - 1] == ')') { o->neg ^= 1; t[len - 1] = 0; t += 4; continue; }
		if (!strncmp(t, "abs(", 4) && t[len - 1] == ')') { o->abs = 1; t[len - 1] = 0; t += 4; continue; }
		if (!strncmp(t, "sext(", 5) && t[len - 1] == ')') { o->sext = 1; t[len - 1] = 0; t += 5; continue; }
		break;
	}
	int first, n;
	if (!strcmp(t, "off")) { o->kind = SIM_OPK_OFF; return 0; }
	if (!strcmp(t, "src_scc")) { o->kind = SIM_OPK_SCC; o->nregs = 1; return 0; }
	if (!strcmp(t, "src_execz")) { o->kind = SIM_OPK_EXECZ; o->nregs = 1; return 0; }
	if (!strcmp(t, "src_vccz")) { o->kind = SIM_OPK_VCCZ; o->nregs = 1; return 0; }
	if (!strcmp(t, "src_flat_scratch_base_lo") || !strcmp(t, "src_flat_scratch_base_hi")) { set_int_const(o, 0, 0); return 0; }
	if (!strcmp(t, "src_shared_base")) { set_int_const(o, (int64_t)(SIM_SHARED_APERTURE >> 32), 0); o->k64 = o->kf64 = SIM_SHARED_APERTURE; return 0; }
	if (!strcmp(t, "src_private_base")) { set_int_const(o, (int64_t)(SIM_PRIVATE_APERTURE >> 32), 0); o->k64 = o->kf64 = SIM_PRIVATE_APERTURE; return 0; }
	if (!strcmp(t, "src_shared_limit")) { set_int_const(o, (int64_t)(SIM_SHARED_APERTURE >> 32), 0); o->k64 = o->kf64 = SIM_SHARED_APERTURE | 0xffffffffull; return 0; }
	if (!strcmp(t, "src_private_limit")) { set_int_const(o, (int64_t)(SIM_PRIVATE_APERTURE >> 32), 0); o->k64 = o->kf64 = SIM_PRIVATE_APERTURE | 0xffffffffull; return 0; }
	for (size_t i = 0; i < sizeof special_regs / sizeof special_regs[0]; i++)
		if (!strcmp(t, special_regs[i].name)) {
			o->kind = SIM_OPK_SGPR; o->reg = (uint16_t)special_regs[i].reg; o->nregs = (uint8_t)special_regs[i].n;
			return 0;
		}
	if (!strncmp(t, "ttmp", 4) && !parse_reg_range(t + 4, &first, &n)) {
		if (first + n > 16) return -1;
		o->kind = SIM_OPK_SGPR; o->reg = (uint16_t)(SIM_TTMP0 + first); o->nregs = (uint8_t)n; return 0;
	}
	if ((t[0] == 'v' || t[0] == 'a' || t[0] == 's') && !parse_reg_range(t + 1, &first, &n)) {
		if (t[0] == 's') {
			if (first + n > nsgpr) return -1;
			o->kind = SIM_OPK_SGPR; o->reg = (uint16_t)first;
		} else {
			if (first + n > 256) return -1;
			o->kind = SIM_OPK_VGPR; o->reg = (uint16_t)(first + (t[0] == 'a' ? SIM_AGPR0 : 0));
		}
		o->nregs = (uint8_t)n;
		return 0;
	}
	if (!strncmp(t, "gpr_idx(", 8)) {   /* s_set_gpr_idx_on mode: gpr_idx(SRC0,SRC1,SRC2,DST) */
		int32_t m = 0;
		if (strstr(t, "SRC0")) m |= 1;
		if (strstr(t, "SRC1")) m |= 2;
		if (strstr(t, "SRC2")) m |= 4;
		if (strstr(t, "DST")) m |= 8;
		set_int_const(o, m, 0);
		return 0;
	}
	if (!strncmp(t, "hwreg(", 6)) {
		int32_t v;
		if (parse_hwreg(t, &v)) return -1;
		set_int_const(o, v, 0);
		return 0;
	}
	int lit = 0;
	if (!strncmp(t, "lit(", 4) || !strncmp(t, "lit64(", 6)) {
		t = strchr(t, '(') + 1; len = strlen(t);
		if (len && t[len - 1] == ')') t[len - 1] = 0;
		lit = 1;
	}
	/* numbers */
	char *e;
	if (strchr(t, '.') || strstr(t, "inf") || strstr(t, "nan")) {
		double d = strtod(t, &e);
		if (*e) return -1;
		set_float_const(o, d);
		return 0;
	}
	int neg = 0;
	if (*t == '-') { neg = 1; t++; }
	if (!isdigit((unsigned char)*t)) return -1;
	unsigned long long u = strtoull(t, &e, 0);
	if (*e) return -1;
	int hex = t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
	int64_t v = neg ? -(int64_t)u : (int64_t)u;
	int inl = !hex && v >= -16 && v <= 64;
	set_int_const(o, v, lit || !inl);
	if (hex && !neg && u <= 0xffffffffull) {
		/* a 32-bit literal: as an f64 operand it is the high half */
		o->kf64 = (uint64_t)u << 32;
	}
	return 0;
}

/* "[1,0,1]" -> bit mask in list order */
static uint8_t parse_bitlist(const char *v)
{
	uint8_t m = 0; int i = 0;
	if (*v != '[') return (uint8_t)strtol(v, NULL, 0);
	for (v++; *v && *v != ']'; v++) {
		if (*v == ',') { i++; continue; }
		if (*v == '1') m |= (uint8_t)(1u << i);
	}
	return m;
}

static int parse_sel(const char *v)
{
	static const char *n[] = { "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD" };
	for (int i = 0; i < 7; i++) if (!strcmp(v, n[i])) return i;
	return -1;
}

/* A modifier token "name:value" or a flag word; returns 1 if it was one, -1 on a bad value. */
static int parse_modifier(const char *tok, SimInst *in)
{
	static const char *flags[] = { "glc", "slc", "nt", "sc0", "sc1", "lds", "offen", "idxen", "gds",
		"clamp", "row_mirror", "row_half_mirror", "tfe", "lwe", "dlc", "scc", "nv", NULL };
	for (int i = 0; flags[i]; i++) if (!strcmp(tok, flags[i])) {
		switch (i) {
		case 0: in->glc = 1; break; case 1: in->slc = 1; break; case 2: in->nt = 1; break;
		case 3: in->sc0 = 1; break; case 4: in->sc1 = 1; break; case 5: in->lds = 1; break;
		case 6: in->offen = 1; break; case 7: in->idxen = 1; break; case 8: in->gds = 1; break;
		case 9: in->clamp = 1; in->present |= SIM_MOD_CLAMP; break;
		case 10: in->dpp_ctrl = 0x140; break; case 11: in->dpp_ctrl = 0x141; break;
		default: break;
		}
		return 1;
	}
	const char *c = strchr(tok, ':');
	const char *br = strchr(tok, '[');
	if (!c || c == tok || (br && br < c)) return 0;
	char name[32];
	size_t nl = (size_t)(c - tok);
	if (nl >= sizeof name) return 0;
	memcpy(name, tok, nl); name[nl] = 0;
	const char *v = c + 1;
	long n = strtol(v, NULL, 0);
	if (!strcmp(name, "offset")) {
		in->present |= SIM_MOD_OFFSET;
		if (!strncmp(v, "swizzle(", 8)) {
			/* swizzle(SWAP,n) / (REVERSE,n) / (BROADCAST,g,l) / (QUAD_PERM,a,b,c,d) / (BITMASK_PERM,"...") */
			char kind[24]; int a[4] = { 0, 0, 0, 0 };
			if (sscanf(v + 8, "%23[A-Z_],%d,%d,%d,%d", kind, &a[0], &a[1], &a[2], &a[3]) < 1) return -1;
			if (!strcmp(kind, "SWAP")) in->offset = 0x1f | a[0] << 10;
			else if (!strcmp(kind, "REVERSE")) in->offset = (0x1f ^ (a[0] - 1)) | (a[0] - 1) << 10; /* and=0x1f, xor=n-1 */
			else if (!strcmp(kind, "BROADCAST")) in->offset = ((0x1f & ~(a[0] - 1)) | a[1] << 5);
			else if (!strcmp(kind, "QUAD_PERM")) in->offset = 0x8000 | a[0] | a[1] << 2 | a[2] << 4 | a[3] << 6;
			else if (!strcmp(kind, "BITMASK_PERM")) {
				/* 5 chars, most significant lane bit first: 0 clear, 1 set, p keep, i invert */
				const char *q = strchr(v, '"');
				int andm = 0, orm = 0, xorm = 0;
				if (!q) return -1;
				for (int i = 0; i < 5; i++) {
					int bit = 4 - i; char ch = q[1 + i];
					if (ch == '1') orm |= 1 << bit;
					else if (ch == 'p') andm |= 1 << bit;
					else if (ch == 'i') { andm |= 1 << bit; xorm |= 1 << bit; }
				}
				in->offset = andm | orm << 5 | xorm << 10;
			} else return -1;
			if (!strcmp(kind, "REVERSE")) in->offset = 0x1f | (a[0] - 1) << 10;
		} else in->offset = (int32_t)n;
	} else if (!strcmp(name, "offset0")) in->offset0 = (uint16_t)n;
	else if (!strcmp(name, "offset1")) in->offset1 = (uint16_t)n;
	else if (!strcmp(name, "op_sel")) { in->op_sel = parse_bitlist(v); in->present |= SIM_MOD_OP_SEL; }
	else if (!strcmp(name, "op_sel_hi")) { in->op_sel_hi = parse_bitlist(v); in->present |= SIM_MOD_OP_SEL_HI; }
	else if (!strcmp(name, "neg_lo")) { in->neg_lo = parse_bitlist(v); in->present |= SIM_MOD_NEG_LO; }
	else if (!strcmp(name, "neg_hi")) { in->neg_hi = parse_bitlist(v); in->present |= SIM_MOD_NEG_HI; }
	/* neg:[a,b,c] is printed for the f64 MFMAs (the VOP3P neg field; simx_ops.c reads it
	 * from the encoding) */
	else if (!strcmp(name, "neg")) { in->neg_lo = parse_bitlist(v); in->present |= SIM_MOD_NEG_LO; }
	else if (!strcmp(name, "mul")) in->omod = n == 2 ? 1 : 2;
	else if (!strcmp(name, "div")) in->omod = 3;
	else if (!strcmp(name, "quad_perm")) { uint8_t q[4] = { 0 }; sscanf(v, "[%hhu,%hhu,%hhu,%hhu]", &q[0], &q[1], &q[2], &q[3]);
		in->dpp_ctrl = (uint16_t)(q[0] | q[1] << 2 | q[2] << 4 | q[3] << 6); }
	else if (!strcmp(name, "row_shl")) in->dpp_ctrl = (uint16_t)(0x100 + n);
	else if (!strcmp(name, "row_shr")) in->dpp_ctrl = (uint16_t)(0x110 + n);
	else if (!strcmp(name, "row_ror")) in->dpp_ctrl = (uint16_t)(0x120 + n);
	else if (!strcmp(name, "wave_shl")) in->dpp_ctrl = 0x130;
	else if (!strcmp(name, "wave_rol")) in->dpp_ctrl = 0x134;
	else if (!strcmp(name, "wave_shr")) in->dpp_ctrl = 0x138;
	else if (!strcmp(name, "wave_ror")) in->dpp_ctrl = 0x13c;
	else if (!strcmp(name, "row_bcast")) in->dpp_ctrl = n == 15 ? 0x142 : 0x143;
	else if (!strcmp(name, "row_newbcast")) in->dpp_ctrl = (uint16_t)(0x150 + n);
	else if (!strcmp(name, "row_mask")) in->row_mask = (uint8_t)n;
	else if (!strcmp(name, "bank_mask")) in->bank_mask = (uint8_t)n;
	else if (!strcmp(name, "bound_ctrl")) in->bound_ctrl = 1;
	else if (!strcmp(name, "fi")) in->fi = (uint8_t)n;
	else if (!strcmp(name, "dst_sel")) { int s = parse_sel(v); if (s < 0) return -1; in->dst_sel = (uint8_t)s; }
	else if (!strcmp(name, "src0_sel")) { int s = parse_sel(v); if (s < 0) return -1; in->src_sel[0] = (uint8_t)s; }
	else if (!strcmp(name, "src1_sel")) { int s = parse_sel(v); if (s < 0) return -1; in->src_sel[1] = (uint8_t)s; }
	else if (!strcmp(name, "dst_unused")) {
		in->dst_unused = !strcmp(v, "UNUSED_PAD") ? 0 : !strcmp(v, "UNUSED_SEXT") ? 1 : !strcmp(v, "UNUSED_PRESERVE") ? 2 : 9;
		if (in->dst_unused == 9) return -1;
	}
	else if (!strcmp(name, "cbsz")) in->cbsz = (uint8_t)n;
	else if (!strcmp(name, "abid")) in->abid = (uint8_t)n;
	else if (!strcmp(name, "blgp")) in->blgp = (uint8_t)n;
	else if (!strcmp(name, "bitop3")) { in->imm = (uint32_t)n; in->imm_is_mod = 1; } /* v_bitop3 truth table */
	else if (!strcmp(name, "format")) { /* MTBUF format: ignored */ }
	/* GFX12 cache controls (scope:SCOPE_SYS, th:TH_LOAD_NT): no effect here */
	else if (!strcmp(name, "scope")) { }
	else if (!strcmp(name, "th")) { if (strstr(v, "RETURN")) in->glc = 1; }   /* TH_ATOMIC_RETURN */
	else if (!strcmp(name, "dpp8")) {   /* dpp8:[s0,...,s7]: lane i of each 8 reads lane s_i */
		unsigned q[8] = { 0 };
		if (sscanf(v, "[%u,%u,%u,%u,%u,%u,%u,%u]", &q[0], &q[1], &q[2], &q[3], &q[4], &q[5], &q[6], &q[7]) != 8) return -1;
		in->dpp8 = 0;
		for (int i = 0; i < 8; i++) in->dpp8 |= (q[i] & 7) << (3 * i);
		in->dpp_ctrl = SIM_DPP8;
	}
	else if (!strcmp(name, "row_share")) in->dpp_ctrl = (uint16_t)(0x150 + n);
	else if (!strcmp(name, "row_xmask")) in->dpp_ctrl = (uint16_t)(0x160 + n);
	else return -1;
	return 1;
}

static int is_branch(const char *m)
{
	return !strcmp(m, "s_branch") || !strncmp(m, "s_cbranch_", 10);
}

static int parse_one(const SimArch *arch, const char *text, SimInst *in, char *err, size_t errlen)
{
	uint64_t pc = in->pc; uint8_t size = in->size; uint32_t raw[4];
	memcpy(raw, in->raw, sizeof raw);
	memset(in, 0, sizeof *in);
	in->pc = pc; in->size = size; memcpy(in->raw, raw, sizeof raw);
	in->row_mask = in->bank_mask = 0xf;
	in->op_sel_hi = 0x7;
	in->dst_sel = in->src_sel[0] = in->src_sel[1] = SIM_SEL_DWORD;
	while (isspace((unsigned char)*text)) text++;
	snprintf(in->text, sizeof in->text, "%s", text);
	/* strip a trailing comment */
	const char *p = text;
	size_t ml = 0;
	while (p[ml] && !isspace((unsigned char)p[ml])) ml++;
	if (ml == 0 || ml >= sizeof in->mnem) { snprintf(err, errlen, "cannot parse '%s'", text); return -1; }
	memcpy(in->mnem, p, ml); in->mnem[ml] = 0;
	char base[48];
	in->enc = (uint8_t)split_suffix(in->mnem, base, sizeof base);
	in->op = (uint16_t)sim_lookup_arch(arch, base);
	in->flags = sim_op_flags[in->op];
	/* unsupported mnemonics are still parsed as far as possible (for traces);
	 * they are reported when executed */
	int unsupported = in->op == 0;
	if (in->flags & SIM_F_NOP) return 0;
	p += ml;
	/* tokenize at bracket depth 0 on ',' and ' ' */
	char tok[128];
	int depth = 0; size_t tl = 0;
	for (;; p++) {
		char ch = *p;
		int end = ch == 0 || ch == ';' || (ch == '/' && p[1] == '/');
		if (!end && (depth > 0 || (ch != ',' && !isspace((unsigned char)ch)))) {
			if (ch == '[' || ch == '(') depth++;
			if (ch == ']' || ch == ')') depth--;
			if (tl + 1 < sizeof tok) tok[tl++] = ch;
			continue;
		}
		if (tl) {
			tok[tl] = 0; tl = 0;
			int r = parse_modifier(tok, in);
			if (r < 0) { if (unsupported) return 0; snprintf(err, errlen, "bad modifier '%s' in '%s'", tok, in->text); return -1; }
			if (r == 0) {
				if (in->nops >= SIM_MAX_OPS) { if (unsupported) return 0; snprintf(err, errlen, "too many operands in '%s'", in->text); return -1; }
				if (parse_operand(tok, &in->o[in->nops], arch->nsgpr)) {
					if (unsupported) return 0;
					snprintf(err, errlen, "cannot parse operand '%s' in '%s'", tok, in->text); return -1;
				}
				in->nops++;
			}
		}
		if (end) break;
	}
	/* the mixed-precision FMAs print op_sel_hi only when some operand is f16: absent means
	 * [0,0,0] (all f32), not the packed ops' [1,1,1] (llvm-mc-22 -show-encoding, gfx950
	 * and gfx1201) */
	if (!(in->present & SIM_MOD_OP_SEL_HI) && (!strncmp(base, "v_fma_mix", 9) || !strncmp(base, "v_mad_mix", 9)))
		in->op_sel_hi = 0;
	if (is_branch(base) && in->nops >= 1 && in->o[0].kind == SIM_OPK_CONST)
		in->target = in->pc + 4 + (uint64_t)((int64_t)(int16_t)in->o[0].k32 * 4);
	if (in->nops >= 1 && in->o[in->nops - 1].kind == SIM_OPK_CONST && !in->imm_is_mod)
		in->imm = in->o[in->nops - 1].k32;
	/* GFX12 v_cmpx writes EXEC only (no SGPR destination is printed): give the
	 * handlers the gfx9 layout "v_cmpx sdst, a, b" with sdst = null */
	if (arch->isa == SIM_ISA_GFX12 && !strncmp(base, "v_cmpx_", 7) && !unsupported && in->nops < SIM_MAX_OPS) {
		memmove(&in->o[1], &in->o[0], sizeof in->o[0] * (size_t)in->nops);
		memset(&in->o[0], 0, sizeof in->o[0]);
		in->o[0].kind = SIM_OPK_SGPR; in->o[0].reg = SIM_NULL; in->o[0].nregs = 2;
		in->nops++;
	}
	return 0;
}

/* VOPD (GFX11+ dual issue): "v_dual_X ... :: v_dual_Y ...". Each half is
 * parsed as its own instruction (the v_dual_ names map to the VOP2 semantics
 * in the GFX12 table); the record runs them with sim_op_v_dual. */
static int parse_vopd(const SimArch *arch, const char *text, const char *sep, SimInst *in, char *err, size_t errlen)
{
	char half[2][160];
	size_t n0 = (size_t)(sep - text);
	if (n0 >= sizeof half[0]) n0 = sizeof half[0] - 1;
	memcpy(half[0], text, n0); half[0][n0] = 0;
	snprintf(half[1], sizeof half[1], "%s", sep + 2);
	uint64_t pc = in->pc; uint8_t size = in->size; uint32_t raw[4];
	memcpy(raw, in->raw, sizeof raw);
	memset(in, 0, sizeof *in);
	in->pc = pc; in->size = size; memcpy(in->raw, raw, sizeof raw);
	while (isspace((unsigned char)*text)) text++;
	snprintf(in->text, sizeof in->text, "%s", text);
	snprintf(in->mnem, sizeof in->mnem, "v_dual");
	in->op = (uint16_t)sim_lookup_op("v_dual");
	in->flags = sim_op_flags[in->op];
	int unsupported = 0;
	for (int k = 0; k < 2; k++) {
		SimInst *h = calloc(1, sizeof *h);
		if (!h) { sim_inst_release(in); snprintf(err, errlen, "out of memory"); return -1; }
		h->pc = pc; h->size = size;
		in->vopd[k] = h;
		if (parse_one(arch, half[k], h, err, errlen)) { sim_inst_release(in); return -1; }
		/* v_dual_cndmask_b32 vdst, src0, vsrc1 selects with vcc_lo, which is not printed */
		if (!strcmp(h->mnem, "v_dual_cndmask_b32") && h->nops == 3) {
			h->o[3].kind = SIM_OPK_SGPR; h->o[3].reg = SIM_VCC; h->o[3].nregs = 1; h->nops = 4;
		}
		if (h->op == SIM_OPC_UNSUPPORTED || h->o[0].kind != SIM_OPK_VGPR) unsupported = 1;
	}
	if (unsupported) {
		/* report the unsupported half by its mnemonic */
		const SimInst *b = in->vopd[0]->op == SIM_OPC_UNSUPPORTED ? in->vopd[0] : in->vopd[1];
		snprintf(in->mnem, sizeof in->mnem, "%s", b->mnem);
		in->op = SIM_OPC_UNSUPPORTED;
	}
	return 0;
}

void sim_inst_release(SimInst *in)
{
	for (int k = 0; k < 2; k++) { free(in->vopd[k]); in->vopd[k] = NULL; }
}

int sim_parse_text_arch(const SimArch *arch, const char *text, SimInst *in, char *err, size_t errlen)
{
	if (!arch) arch = &sim_arch_gfx950;
	const char *sep = arch->isa == SIM_ISA_GFX12 ? strstr(text, "::") : NULL;
	if (sep) return parse_vopd(arch, text, sep, in, err, errlen);
	return parse_one(arch, text, in, err, errlen);
}

int sim_parse_text(const char *text, SimInst *in, char *err, size_t errlen)
{
	return sim_parse_text_arch(&sim_arch_gfx950, text, in, err, errlen);
}



/* ---- LLVM disassembler: one context per architecture ---- */
static pthread_mutex_t dis_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { const SimArch *arch; LLVMDisasmContextRef ctx; } dis_ctx[4];

static LLVMDisasmContextRef get_ctx(const SimArch *arch)
{
	static int init;
	if (!init) {
		LLVMInitializeAMDGPUTargetInfo();
		LLVMInitializeAMDGPUTargetMC();
		LLVMInitializeAMDGPUDisassembler();
		init = 1;
	}
	for (int i = 0; i < 4; i++) {
		if (dis_ctx[i].arch == arch) return dis_ctx[i].ctx;
		if (!dis_ctx[i].arch) {
			dis_ctx[i].arch = arch;
			dis_ctx[i].ctx = LLVMCreateDisasmCPUFeatures("amdgcn-amd-amdhsa", arch->cpu, "", NULL, 0, NULL, NULL);
			return dis_ctx[i].ctx;
		}
	}
	return NULL;
}

static int disasm_bytes(const SimArch *arch, const uint8_t *bytes, uint64_t avail, uint64_t pc, char *out, size_t outlen)
{
	pthread_mutex_lock(&dis_lock);
	LLVMDisasmContextRef c = get_ctx(arch);
	size_t n = 0;
	if (c) n = LLVMDisasmInstruction(c, (uint8_t *)bytes, avail, pc, out, outlen);
	pthread_mutex_unlock(&dis_lock);
	return (int)n;
}

/* The architecture of a code object (gfx950 when it names none the simulator knows). */
static const SimArch *co_arch(const CoObject *co)
{
	const SimArch *a = sim_arch_find(co->processor);
	return a ? a : &sim_arch_gfx950;
}

int sim_disasm(const CoObject *co, uint64_t off, char *out, size_t outlen)
{
	if (!co || off >= co->image_size) return 0;
	uint64_t avail = co->image_size - off;
	if (avail > 16) avail = 16;
	int n = disasm_bytes(co_arch(co), co->image + off, avail, off, out, outlen);
	if (n > 0) {
		char *s = out;
		while (isspace((unsigned char)*s)) s++;
		memmove(out, s, strlen(s) + 1);
	}
	return n;
}

int sim_decode(const CoObject *co, uint64_t pc, SimInst *in, char *err, size_t errlen)
{
	char text[256];
	if (pc + 4 > co->image_size) { snprintf(err, errlen, "PC 0x%llx is outside the code object", (unsigned long long)pc); return -1; }
	int n = sim_disasm(co, pc, text, sizeof text);
	memset(in->raw, 0, sizeof in->raw);
	uint64_t avail = co->image_size - pc;
	memcpy(in->raw, co->image + pc, avail < 16 ? (size_t)avail : 16);
	if (n <= 0) {
		snprintf(err, errlen, "undecodable instruction (encoding 0x%08x) at PC 0x%llx", in->raw[0], (unsigned long long)pc);
		return -1;
	}
	in->pc = pc; in->size = (uint8_t)n;
	return sim_parse_text_arch(co_arch(co), text, in, err, errlen);
}
