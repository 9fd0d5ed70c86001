/*
 * codeobj.c — AMDGPU code object (ELF64 + msgpack metadata) and offload
 * bundle reader. See codeobj.h. Every read goes through a bounds check; the
 * input is never trusted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj.h"

enum {
	EM_AMDGPU = 224,
	ELFOSABI_AMDGPU_HSA = 64,
	PT_LOAD = 1,
	SHT_SYMTAB = 2,
	SHT_NOTE = 7,
	SHT_DYNSYM = 11,
	NT_AMDGPU_METADATA = 32,
	STT_FUNC = 2,
	MAX_IMAGE = 1u << 30, /* refuse absurd virtual address ranges */
	MAX_DEPTH = 32,       /* msgpack nesting limit */
};

static const char bundle_magic[] = "__CLANG_OFFLOAD_BUNDLE__";

/* Processor names by EF_AMDGPU_MACH (llvm/BinaryFormat/ELF.h). */
static const struct { unsigned mach; const char *name; } machs[] = {
	{0x2c, "gfx900"}, {0x2f, "gfx906"}, {0x30, "gfx908"}, {0x3f, "gfx90a"},
	{0x4c, "gfx942"}, {0x4f, "gfx950"}, {0x36, "gfx1030"}, {0x41, "gfx1100"},
	{0x48, "gfx1200"}, {0x4e, "gfx1201"},
};

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* 1 when [off, off+len) lies inside [0, size). */
static int
inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

const char *
co_mach_name(uint32_t e_flags)
{
	size_t i;

	for (i = 0; i < sizeof machs / sizeof machs[0]; i++)
		if (machs[i].mach == (e_flags & 0xff))
			return machs[i].name;
	return NULL;
}

int
co_sniff(const void *data, size_t size)
{
	const uint8_t *p = data;

	if (!p)
		return 0;
	if (size >= 64 && !memcmp(p, "\177ELF", 4) && p[4] == 2 && p[5] == 1 &&
	    rd16(p + 18) == EM_AMDGPU && p[7] == ELFOSABI_AMDGPU_HSA)
		return 1;
	if (size >= 24 && !memcmp(p, bundle_magic, 24))
		return 2;
	if (size >= 4 && !memcmp(p, "CCOB", 4))
		return 3;
	return 0;
}

/* ---- msgpack ----------------------------------------------------------- */

typedef struct {
	const uint8_t *p, *end;
	int bad;
} Mp;

enum { MP_NIL, MP_BOOL, MP_INT, MP_FLOAT, MP_STR, MP_BIN, MP_ARRAY, MP_MAP, MP_EXT, MP_BAD };

typedef struct {
	int type;
	int64_t i;        /* MP_INT, MP_BOOL */
	const char *s;    /* MP_STR, MP_BIN */
	uint32_t n;       /* string/bin length, array/map count */
} MpVal;

static int
mp_need(Mp *m, size_t n)
{
	if (m->bad || (size_t)(m->end - m->p) < n) {
		m->bad = 1;
		return 0;
	}
	return 1;
}

static uint64_t
mp_be(Mp *m, int n)
{
	uint64_t v = 0;
	int i;

	if (!mp_need(m, (size_t)n))
		return 0;
	for (i = 0; i < n; i++)
		v = v << 8 | m->p[i];
	m->p += n;
	return v;
}

static MpVal
mp_next(Mp *m)
{
	MpVal v = {MP_BAD, 0, NULL, 0};
	uint8_t c;
	uint64_t len;

	if (!mp_need(m, 1))
		return v;
	c = *m->p++;
	if (c <= 0x7f) { v.type = MP_INT; v.i = c; return v; }
	if (c >= 0xe0) { v.type = MP_INT; v.i = (int8_t)c; return v; }
	if ((c & 0xf0) == 0x80) { v.type = MP_MAP; v.n = c & 0x0f; return v; }
	if ((c & 0xf0) == 0x90) { v.type = MP_ARRAY; v.n = c & 0x0f; return v; }
	if ((c & 0xe0) == 0xa0) { len = c & 0x1f; goto str; }
	switch (c) {
	case 0xc0: v.type = MP_NIL; return v;
	case 0xc2: case 0xc3: v.type = MP_BOOL; v.i = c & 1; return v;
	case 0xc4: len = mp_be(m, 1); v.type = MP_BIN; goto bytes;
	case 0xc5: len = mp_be(m, 2); v.type = MP_BIN; goto bytes;
	case 0xc6: len = mp_be(m, 4); v.type = MP_BIN; goto bytes;
	case 0xca: mp_be(m, 4); v.type = MP_FLOAT; return v;
	case 0xcb: mp_be(m, 8); v.type = MP_FLOAT; return v;
	case 0xcc: v.type = MP_INT; v.i = (int64_t)mp_be(m, 1); return v;
	case 0xcd: v.type = MP_INT; v.i = (int64_t)mp_be(m, 2); return v;
	case 0xce: v.type = MP_INT; v.i = (int64_t)mp_be(m, 4); return v;
	case 0xcf: v.type = MP_INT; v.i = (int64_t)mp_be(m, 8); return v;
	case 0xd0: v.type = MP_INT; v.i = (int8_t)mp_be(m, 1); return v;
	case 0xd1: v.type = MP_INT; v.i = (int16_t)mp_be(m, 2); return v;
	case 0xd2: v.type = MP_INT; v.i = (int32_t)mp_be(m, 4); return v;
	case 0xd3: v.type = MP_INT; v.i = (int64_t)mp_be(m, 8); return v;
	case 0xd9: len = mp_be(m, 1); goto str;
	case 0xda: len = mp_be(m, 2); goto str;
	case 0xdb: len = mp_be(m, 4); goto str;
	case 0xdc: v.type = MP_ARRAY; v.n = (uint32_t)mp_be(m, 2); return v;
	case 0xdd: v.type = MP_ARRAY; v.n = (uint32_t)mp_be(m, 4); return v;
	case 0xde: v.type = MP_MAP; v.n = (uint32_t)mp_be(m, 2); return v;
	case 0xdf: v.type = MP_MAP; v.n = (uint32_t)mp_be(m, 4); return v;
	case 0xd4: mp_be(m, 1); mp_need(m, 1); if (!m->bad) m->p += 1; v.type = MP_EXT; return v;
	case 0xd5: mp_be(m, 1); mp_need(m, 2); if (!m->bad) m->p += 2; v.type = MP_EXT; return v;
	case 0xd6: mp_be(m, 1); mp_need(m, 4); if (!m->bad) m->p += 4; v.type = MP_EXT; return v;
	case 0xd7: mp_be(m, 1); mp_need(m, 8); if (!m->bad) m->p += 8; v.type = MP_EXT; return v;
	case 0xd8: mp_be(m, 1); mp_need(m, 16); if (!m->bad) m->p += 16; v.type = MP_EXT; return v;
	case 0xc7: len = mp_be(m, 1); mp_be(m, 1); v.type = MP_EXT; goto bytes;
	case 0xc8: len = mp_be(m, 2); mp_be(m, 1); v.type = MP_EXT; goto bytes;
	case 0xc9: len = mp_be(m, 4); mp_be(m, 1); v.type = MP_EXT; goto bytes;
	default: m->bad = 1; return v;
	}
str:
	v.type = MP_STR;
bytes:
	if (!mp_need(m, len)) {
		v.type = MP_BAD;
		return v;
	}
	v.s = (const char *)m->p;
	v.n = (uint32_t)len;
	m->p += len;
	return v;
}

/* Skip one complete value (with its children). */
static void
mp_skip(Mp *m, int depth)
{
	MpVal v;
	uint64_t i, n;

	if (depth > MAX_DEPTH) {
		m->bad = 1;
		return;
	}
	v = mp_next(m);
	if (v.type == MP_ARRAY || v.type == MP_MAP) {
		n = v.type == MP_MAP ? 2 * (uint64_t)v.n : v.n;
		for (i = 0; i < n && !m->bad; i++)
			mp_skip(m, depth + 1);
	}
}

static int
mp_is(MpVal v, const char *key)
{
	size_t n = strlen(key);

	return v.type == MP_STR && v.n == n && !memcmp(v.s, key, n);
}

static void
mp_copystr(MpVal v, char *dst, size_t cap)
{
	size_t n;

	if (v.type != MP_STR) {
		dst[0] = 0;
		return;
	}
	n = v.n < cap - 1 ? v.n : cap - 1;
	memcpy(dst, v.s, n);
	dst[n] = 0;
}

static uint32_t
mp_u32(Mp *m)
{
	MpVal v = mp_next(m);

	if (v.type == MP_BOOL || v.type == MP_INT)
		return v.i < 0 || v.i > 0xffffffffLL ? 0 : (uint32_t)v.i;
	if (v.type == MP_ARRAY || v.type == MP_MAP) {
		uint64_t i, n = v.type == MP_MAP ? 2 * (uint64_t)v.n : v.n;
		for (i = 0; i < n && !m->bad; i++)
			mp_skip(m, 1);
	}
	return 0;
}

static CoArgKind
arg_kind(const char *vk)
{
	if (!strcmp(vk, "by_value"))
		return CO_ARG_BY_VALUE;
	if (!strcmp(vk, "global_buffer"))
		return CO_ARG_GLOBAL_BUFFER;
	if (!strncmp(vk, "hidden_", 7))
		return CO_ARG_HIDDEN;
	return CO_ARG_OTHER;
}

static int
parse_arg(Mp *m, CoArg *a)
{
	MpVal map = mp_next(m), k;
	uint32_t i;

	memset(a, 0, sizeof *a);
	a->address_space = -1;
	if (map.type != MP_MAP)
		return -1;
	for (i = 0; i < map.n && !m->bad; i++) {
		k = mp_next(m);
		if (mp_is(k, ".name")) mp_copystr(mp_next(m), a->name, sizeof a->name);
		else if (mp_is(k, ".type_name")) mp_copystr(mp_next(m), a->type_name, sizeof a->type_name);
		else if (mp_is(k, ".value_kind")) mp_copystr(mp_next(m), a->value_kind, sizeof a->value_kind);
		else if (mp_is(k, ".offset")) a->offset = mp_u32(m);
		else if (mp_is(k, ".size")) a->size = mp_u32(m);
		else if (mp_is(k, ".is_const")) a->is_const = (int)mp_u32(m);
		else if (mp_is(k, ".address_space")) {
			char as[32];
			mp_copystr(mp_next(m), as, sizeof as);
			a->address_space = !strcmp(as, "global") ? 1 : !strcmp(as, "constant") ? 4 :
			                   !strcmp(as, "local") ? 3 : !strcmp(as, "private") ? 5 :
			                   !strcmp(as, "generic") ? 0 : -1;
		} else
			mp_skip(m, 1);
	}
	a->kind = arg_kind(a->value_kind);
	return m->bad ? -1 : 0;
}

static int
parse_kernel(Mp *m, CoKernel *k, char *err, size_t errlen)
{
	MpVal map = mp_next(m), key, arr;
	uint32_t i, j;

	if (map.type != MP_MAP) {
		seterr(err, errlen, "metadata: a kernel entry is not a map");
		return -1;
	}
	for (i = 0; i < map.n && !m->bad; i++) {
		key = mp_next(m);
		if (mp_is(key, ".name")) mp_copystr(mp_next(m), k->name, sizeof k->name);
		else if (mp_is(key, ".symbol")) mp_copystr(mp_next(m), k->symbol, sizeof k->symbol);
		else if (mp_is(key, ".kernarg_segment_size")) k->kernarg_segment_size = mp_u32(m);
		else if (mp_is(key, ".kernarg_segment_align")) k->kernarg_segment_align = mp_u32(m);
		else if (mp_is(key, ".group_segment_fixed_size")) k->group_segment_fixed_size = mp_u32(m);
		else if (mp_is(key, ".private_segment_fixed_size")) k->private_segment_fixed_size = mp_u32(m);
		else if (mp_is(key, ".wavefront_size")) k->wavefront_size = mp_u32(m);
		else if (mp_is(key, ".max_flat_workgroup_size")) k->max_flat_workgroup_size = mp_u32(m);
		else if (mp_is(key, ".sgpr_count")) k->sgpr_count = mp_u32(m);
		else if (mp_is(key, ".vgpr_count")) k->vgpr_count = mp_u32(m);
		else if (mp_is(key, ".agpr_count")) k->agpr_count = mp_u32(m);
		else if (mp_is(key, ".sgpr_spill_count")) k->sgpr_spill_count = mp_u32(m);
		else if (mp_is(key, ".vgpr_spill_count")) k->vgpr_spill_count = mp_u32(m);
		else if (mp_is(key, ".uses_dynamic_stack")) k->uses_dynamic_stack = (int)mp_u32(m);
		else if (mp_is(key, ".reqd_workgroup_size")) {
			arr = mp_next(m);
			if (arr.type != MP_ARRAY) { m->bad = 1; break; }
			for (j = 0; j < arr.n && !m->bad; j++) {
				uint32_t v = mp_u32(m);
				if (j < 3) k->reqd_workgroup_size[j] = v;
			}
		} else if (mp_is(key, ".args")) {
			arr = mp_next(m);
			if (arr.type != MP_ARRAY) { m->bad = 1; break; }
			if (arr.n > CO_MAX_ARGS) {
				seterr(err, errlen, "metadata: kernel has %u arguments (at most %d supported)",
				       arr.n, CO_MAX_ARGS);
				return -1;
			}
			for (j = 0; j < arr.n && !m->bad; j++)
				if (parse_arg(m, &k->args[j]) < 0)
					m->bad = 1;
			k->nargs = (int)arr.n;
		} else
			mp_skip(m, 1);
	}
	if (m->bad) {
		seterr(err, errlen, "metadata: malformed kernel entry");
		return -1;
	}
	if (!k->name[0] || !k->symbol[0]) {
		seterr(err, errlen, "metadata: kernel entry without .name or .symbol");
		return -1;
	}
	for (j = 0; j < (uint32_t)k->nargs; j++) {
		const CoArg *a = &k->args[j];
		if ((uint64_t)a->offset + a->size > k->kernarg_segment_size) {
			seterr(err, errlen, "metadata: kernel %s argument %u (offset %u, size %u) lies "
			       "outside its %u-byte kernarg segment", k->name, j, a->offset, a->size,
			       k->kernarg_segment_size);
			return -1;
		}
	}
	return 0;
}

static int
parse_metadata(CoObject *co, const uint8_t *p, size_t n, char *err, size_t errlen)
{
	Mp m = {p, p + n, 0};
	MpVal top = mp_next(&m), key, arr;
	uint32_t i, j;

	if (top.type != MP_MAP) {
		seterr(err, errlen, "metadata: the AMDGPU note is not a msgpack map");
		return -1;
	}
	for (i = 0; i < top.n && !m.bad; i++) {
		key = mp_next(&m);
		if (mp_is(key, "amdhsa.target"))
			mp_copystr(mp_next(&m), co->target, sizeof co->target);
		else if (mp_is(key, "amdhsa.kernels")) {
			arr = mp_next(&m);
			if (arr.type != MP_ARRAY || co->kernels) {
				seterr(err, errlen, "metadata: amdhsa.kernels is not a single array");
				return -1;
			}
			/* every entry needs at least one byte: bounds the allocation */
			if (arr.n > (size_t)(m.end - m.p)) {
				seterr(err, errlen, "metadata: truncated kernel list");
				return -1;
			}
			co->kernels = calloc(arr.n ? arr.n : 1, sizeof *co->kernels);
			if (!co->kernels) {
				seterr(err, errlen, "out of memory");
				return -1;
			}
			for (j = 0; j < arr.n; j++) {
				if (parse_kernel(&m, &co->kernels[j], err, errlen) < 0)
					return -1;
				co->nkernels++;
			}
		} else
			mp_skip(&m, 1);
	}
	if (m.bad) {
		seterr(err, errlen, "metadata: malformed or truncated msgpack");
		return -1;
	}
	return 0;
}

/* ---- ELF ---------------------------------------------------------------- */

static void
decode_kd(const uint8_t *d, CoKernelDesc *kd)
{
	kd->group_segment_fixed_size = rd32(d + 0);
	kd->private_segment_fixed_size = rd32(d + 4);
	kd->kernarg_size = rd32(d + 8);
	kd->kernel_code_entry_byte_offset = (int64_t)rd64(d + 16);
	kd->pgm_rsrc3 = rd32(d + 44);
	kd->pgm_rsrc1 = rd32(d + 48);
	kd->pgm_rsrc2 = rd32(d + 52);
	kd->kernel_code_properties = rd16(d + 56);
	kd->kernarg_preload = rd16(d + 58);
	kd->enable_private_segment = kd->pgm_rsrc2 & 1;
	kd->user_sgpr_count = (kd->pgm_rsrc2 >> 1) & 0x1f;
	kd->enable_wgid[0] = (kd->pgm_rsrc2 >> 7) & 1;
	kd->enable_wgid[1] = (kd->pgm_rsrc2 >> 8) & 1;
	kd->enable_wgid[2] = (kd->pgm_rsrc2 >> 9) & 1;
	kd->enable_wg_info = (kd->pgm_rsrc2 >> 10) & 1;
	kd->vgpr_workitem_id = (kd->pgm_rsrc2 >> 11) & 3;
	kd->has_dispatch_ptr = (kd->kernel_code_properties >> 1) & 1;
	kd->has_queue_ptr = (kd->kernel_code_properties >> 2) & 1;
	kd->has_kernarg_ptr = (kd->kernel_code_properties >> 3) & 1;
	kd->has_dispatch_id = (kd->kernel_code_properties >> 4) & 1;
	kd->has_private_segment_size = (kd->kernel_code_properties >> 6) & 1;
	kd->wave32 = (kd->kernel_code_properties >> 10) & 1;
	kd->accum_offset = ((kd->pgm_rsrc3 & 0x3f) + 1) * 4;
	kd->preload_dwords = kd->kernarg_preload & 0x7f;
	kd->preload_offset = kd->kernarg_preload >> 7;
}

typedef struct {
	const uint8_t *d;
	size_t size;
	uint64_t shoff;
	unsigned shnum, shentsize;
} Elf;

static const uint8_t *
shdr(const Elf *e, unsigned i)
{
	return e->d + e->shoff + (uint64_t)i * e->shentsize;
}

/* Look up a symbol's value and size in .dynsym or .symtab. Returns 0 if found. */
static int
find_symbol(const Elf *e, const char *name, uint64_t *value, uint64_t *size)
{
	unsigned i, pass;
	size_t nlen = strlen(name);

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < e->shnum; i++) {
			const uint8_t *s = shdr(e, i), *str;
			uint32_t type = rd32(s + 4), link = rd32(s + 40);
			uint64_t off = rd64(s + 24), sz = rd64(s + 32), ent = rd64(s + 56), j, stroff, strsz;

			if (type != (pass ? SHT_SYMTAB : SHT_DYNSYM) || ent < 24 || link >= e->shnum ||
			    !inside(off, sz, e->size))
				continue;
			stroff = rd64(shdr(e, link) + 24);
			strsz = rd64(shdr(e, link) + 32);
			if (!inside(stroff, strsz, e->size))
				continue;
			str = e->d + stroff;
			for (j = 0; j + 1 <= sz / ent; j++) {
				const uint8_t *sym = e->d + off + j * ent;
				uint32_t nm = rd32(sym);
				if (nm >= strsz || strsz - nm <= nlen)
					continue;
				if (!memcmp(str + nm, name, nlen) && str[nm + nlen] == 0) {
					*value = rd64(sym + 8);
					*size = rd64(sym + 16);
					return 0;
				}
			}
		}
	}
	return -1;
}

static int
elf_section(const Elf *e, const uint8_t *d, const char *name, const void **out, size_t *outsize)
{
	unsigned shstrndx = rd16(d + 62), i;
	uint64_t stroff, strsz;
	size_t nlen = strlen(name);

	if (shstrndx >= e->shnum)
		return -1;
	stroff = rd64(shdr(e, shstrndx) + 24);
	strsz = rd64(shdr(e, shstrndx) + 32);
	if (!inside(stroff, strsz, e->size))
		return -1;
	for (i = 0; i < e->shnum; i++) {
		const uint8_t *s = shdr(e, i);
		uint32_t nm = rd32(s);
		uint64_t off = rd64(s + 24), sz = rd64(s + 32);
		if (nm >= strsz || strsz - nm <= nlen || memcmp(d + stroff + nm, name, nlen + 1))
			continue;
		if (rd32(s + 4) == 8 /* SHT_NOBITS */ || !inside(off, sz, e->size))
			return -1;
		*out = d + off;
		*outsize = sz;
		return 0;
	}
	return -1;
}

static int
elf_open(Elf *e, const void *data, size_t size)
{
	const uint8_t *d = data;

	if (co_sniff(data, size) != 1)
		return -1;
	e->d = d;
	e->size = size;
	e->shoff = rd64(d + 40);
	e->shentsize = rd16(d + 58);
	e->shnum = rd16(d + 60);
	if (e->shentsize < 64 || !inside(e->shoff, (uint64_t)e->shnum * e->shentsize, size))
		return -1;
	return 0;
}

int
co_find_section(const void *data, size_t size, const char *name, const void **out, size_t *outsize)
{
	Elf e;

	if (!name || !out || !outsize || elf_open(&e, data, size) < 0)
		return -1;
	return elf_section(&e, data, name, out, outsize);
}

void
co_free(CoObject *co)
{
	if (!co)
		return;
	free(co->flyc_meta);
	free(co->kernels);
	free(co->image);
	free(co->note_msgpack);
	free(co);
}

static int
load_image(CoObject *co, const Elf *e, uint64_t phoff, unsigned phnum, unsigned phentsize,
           char *err, size_t errlen)
{
	uint64_t end = 0;
	unsigned i;

	for (i = 0; i < phnum; i++) {
		const uint8_t *ph = e->d + phoff + (uint64_t)i * phentsize;
		uint64_t off = rd64(ph + 8), va = rd64(ph + 16), fsz = rd64(ph + 32), msz = rd64(ph + 40);
		if (rd32(ph) != PT_LOAD)
			continue;
		if (fsz > msz || !inside(off, fsz, e->size) || va > MAX_IMAGE || msz > MAX_IMAGE - va) {
			seterr(err, errlen, "ELF: program header %u is out of range", i);
			return -1;
		}
		if (va + msz > end)
			end = va + msz;
	}
	if (!end) {
		seterr(err, errlen, "ELF: no loadable segment");
		return -1;
	}
	co->image = calloc(1, end);
	if (!co->image) {
		seterr(err, errlen, "out of memory for a %llu-byte image", (unsigned long long)end);
		return -1;
	}
	co->image_size = end;
	for (i = 0; i < phnum; i++) {
		const uint8_t *ph = e->d + phoff + (uint64_t)i * phentsize;
		if (rd32(ph) == PT_LOAD)
			memcpy(co->image + rd64(ph + 16), e->d + rd64(ph + 8), rd64(ph + 32));
	}
	return 0;
}

static int
find_note(CoObject *co, const Elf *e, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < e->shnum; i++) {
		const uint8_t *s = shdr(e, i);
		uint64_t off = rd64(s + 24), sz = rd64(s + 32), pos;

		if (rd32(s + 4) != SHT_NOTE)
			continue;
		if (!inside(off, sz, e->size)) {
			seterr(err, errlen, "ELF: note section %u is out of range", i);
			return -1;
		}
		for (pos = 0; pos + 12 <= sz;) {
			const uint8_t *n = e->d + off + pos;
			uint32_t namesz = rd32(n), descsz = rd32(n + 4), type = rd32(n + 8);
			uint64_t namepad = ((uint64_t)namesz + 3) & ~3ull, descpad = ((uint64_t)descsz + 3) & ~3ull;
			if (12 + namepad > sz - pos || descsz > sz - pos - 12 - namepad) {
				seterr(err, errlen, "ELF: truncated note");
				return -1;
			}
			if (type == NT_AMDGPU_METADATA && namesz == 7 && !memcmp(n + 12, "AMDGPU", 7)) {
				co->note_msgpack = malloc(descsz ? descsz : 1);
				if (!co->note_msgpack) {
					seterr(err, errlen, "out of memory");
					return -1;
				}
				memcpy(co->note_msgpack, n + 12 + namepad, descsz);
				co->note_size = descsz;
				return parse_metadata(co, co->note_msgpack, descsz, err, errlen);
			}
			pos += 12 + namepad + descpad;
		}
	}
	seterr(err, errlen, "ELF: no AMDGPU metadata note (NT_AMDGPU_METADATA); is this a code "
	       "object built for amdhsa with code object version 3 or later?");
	return -1;
}

CoObject *
co_parse(const void *data, size_t size, char *err, size_t errlen)
{
	const uint8_t *d = data;
	CoObject *co;
	Elf e;
	uint64_t phoff;
	unsigned phnum, phentsize, i;
	const char *mach;

	switch (co_sniff(data, size)) {
	case 1: break;
	case 2: case 3:
		seterr(err, errlen, "this is an offload bundle, not a code object; extract the entry for your target first");
		return NULL;
	default:
		seterr(err, errlen, "not an AMDGPU code object (expected an ELF64 file with e_machine EM_AMDGPU and OS/ABI AMDGPU_HSA)");
		return NULL;
	}
	phoff = rd64(d + 32);
	phentsize = rd16(d + 54);
	phnum = rd16(d + 56);
	if (phentsize < 56 || !inside(phoff, (uint64_t)phnum * phentsize, size)) {
		seterr(err, errlen, "ELF: program headers are out of range");
		return NULL;
	}
	if (elf_open(&e, data, size) < 0) {
		seterr(err, errlen, "ELF: section headers are out of range");
		return NULL;
	}
	co = calloc(1, sizeof *co);
	if (!co) {
		seterr(err, errlen, "out of memory");
		return NULL;
	}
	co->e_flags = rd32(d + 48);
	co->abi_version = d[8];
	mach = co_mach_name(co->e_flags);
	snprintf(co->processor, sizeof co->processor, "%s", mach ? mach : "unknown");
	if (load_image(co, &e, phoff, phnum, phentsize, err, errlen) < 0 ||
	    find_note(co, &e, err, errlen) < 0)
		goto fail;
	{
		const void *meta;
		size_t msz;
		if (elf_section(&e, d, ".flyc.meta", &meta, &msz) == 0) {
			co->flyc_meta = malloc(msz + 1);
			if (!co->flyc_meta) {
				seterr(err, errlen, "out of memory");
				goto fail;
			}
			memcpy(co->flyc_meta, meta, msz);
			co->flyc_meta[msz] = 0;
			co->flyc_meta_size = msz;
		}
	}
	for (i = 0; i < (unsigned)co->nkernels; i++) {
		CoKernel *k = &co->kernels[i];
		uint64_t va, sz;

		if (find_symbol(&e, k->symbol, &va, &sz) < 0) {
			seterr(err, errlen, "kernel %s: descriptor symbol %s not found", k->name, k->symbol);
			goto fail;
		}
		if (!inside(va, 64, co->image_size) || (va & 63)) {
			seterr(err, errlen, "kernel %s: descriptor at 0x%llx is outside the image or misaligned",
			       k->name, (unsigned long long)va);
			goto fail;
		}
		k->kd_addr = va;
		decode_kd(co->image + va, &k->kd);
		k->entry_addr = va + (uint64_t)k->kd.kernel_code_entry_byte_offset;
		if (k->entry_addr >= co->image_size || (k->entry_addr & 3)) {
			seterr(err, errlen, "kernel %s: code entry 0x%llx is outside the image or misaligned",
			       k->name, (unsigned long long)k->entry_addr);
			goto fail;
		}
		if (find_symbol(&e, k->name, &va, &sz) == 0 && va == k->entry_addr &&
		    inside(va, sz, co->image_size))
			k->code_size = sz;
	}
	return co;
fail:
	co_free(co);
	return NULL;
}

const CoKernel *
co_find_kernel(const CoObject *co, const char *name)
{
	int i;

	if (!co || !name)
		return NULL;
	for (i = 0; i < co->nkernels; i++)
		if (!strcmp(co->kernels[i].name, name) || !strcmp(co->kernels[i].symbol, name))
			return &co->kernels[i];
	return NULL;
}

/* ---- offload bundles ---------------------------------------------------- */

/* Does bundle entry id (e.g. hipv4-amdgcn-amd-amdhsa--gfx950:sramecc+) name processor? */
static int
id_matches(const char *id, size_t n, const char *processor)
{
	size_t i, plen = strlen(processor);
	const char *p = NULL;

	for (i = 0; i + 2 <= n; i++)
		if (id[i] == '-' && id[i + 1] == '-')
			p = id + i + 2;
	if (!p || (size_t)(id + n - p) < plen || memcmp(p, processor, plen))
		return 0;
	return p + plen == id + n || p[plen] == ':';
}

int
co_bundle_find(const void *data, size_t size, const char *processor,
               const void **out, size_t *outsize, char *err, size_t errlen)
{
	const uint8_t *d = data;
	uint64_t n, i, pos = 32;
	char ids[512];
	size_t idl = 0;

	ids[0] = 0;
	if (co_sniff(data, size) == 3) {
		seterr(err, errlen, "compressed offload bundles (CCOB) are not supported; "
		       "bundle without compression");
		return -1;
	}
	if (co_sniff(data, size) != 2 || size < 32) {
		seterr(err, errlen, "not a clang offload bundle");
		return -1;
	}
	n = rd64(d + 24);
	if (n > size / 24) {
		seterr(err, errlen, "offload bundle: corrupt entry count %llu", (unsigned long long)n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t off, sz, len;
		if (!inside(pos, 24, size)) {
			seterr(err, errlen, "offload bundle: truncated entry table");
			return -1;
		}
		off = rd64(d + pos);
		sz = rd64(d + pos + 8);
		len = rd64(d + pos + 16);
		pos += 24;
		if (!inside(pos, len, size) || !inside(off, sz, size)) {
			seterr(err, errlen, "offload bundle: entry %llu is out of range", (unsigned long long)i);
			return -1;
		}
		if (id_matches((const char *)d + pos, len, processor) && sz > 0) {
			*out = d + off;
			*outsize = sz;
			return 0;
		}
		if (idl + len + 3 < sizeof ids) {
			idl += (size_t)snprintf(ids + idl, sizeof ids - idl, "%s%.*s", idl ? ", " : "",
			                        (int)len, (const char *)d + pos);
		}
		pos += len;
	}
	seterr(err, errlen, "offload bundle has no code object for %s (entries: %s)", processor,
	       ids[0] ? ids : "none");
	return -1;
}
