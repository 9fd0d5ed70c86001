/*
 * launcher.c — `flyc --emit=launcher`: a C header and source per code object with
 * the code object embedded and one typed entry point per kernel (launcher.h).
 *
 * The kernels and their arguments are read the way libflyrt reads them (codeobj.c
 * for the AMDGPU note, flyrt_meta.c for .flyc.meta), so a generated entry point
 * passes exactly the flyrt_arg types flyrt_launch checks. Both files are written to
 * temporary names (runtime/fileio.h) and moved into place only when both are complete.
 *
 * Example: for vadd.hsaco with kernel vadd(a, b, c: ptr f32; n: i32), basename vadd:
 *
 *   flyrt_status vadd_vadd(flyrt_device *dev, const flyrt_launch_config *cfg,
 *                          flyrt_deviceptr a, flyrt_deviceptr b, flyrt_deviceptr c,
 *                          int32_t n);
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyrt_internal.h"
#include "fileio.h"
#include "launcher.h"
#include "target/target.h"

typedef struct {
	char name[CO_NAME_MAX + 8];   /* C parameter name */
	flyrt_arg_type type;
	uint32_t size;
	const char *desc;             /* for the comment: "ptr f32 align 16", "i32", ... */
	char descbuf[64];
} Param;

static int
is_c_ident(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

static int
is_reserved(const char *s)
{
	static const char *words[] = {
		"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
		"else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
		"register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
		"switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
		"bool", "true", "false", "dev", "cfg", "m", "k", "st", "args", "NULL",
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(words[i], s))
			return 1;
	return !strncmp(s, "flyrt_", 6);
}

/* A C identifier from a kernel name: other characters become '_'. */
static void
c_name(const char *s, char *out, size_t n)
{
	size_t i = 0;
	if (!isalpha((unsigned char)*s) && *s != '_' && i + 1 < n)
		out[i++] = '_';
	for (; *s && i + 1 < n; s++)
		out[i++] = isalnum((unsigned char)*s) ? *s : '_';
	out[i] = 0;
}

static const char *
c_type(flyrt_arg_type t)
{
	switch (t) {
	case FLYRT_ARG_PTR: return "flyrt_deviceptr";
	case FLYRT_ARG_I32: return "int32_t";
	case FLYRT_ARG_U32: return "uint32_t";
	case FLYRT_ARG_I64: return "int64_t";
	case FLYRT_ARG_U64: return "uint64_t";
	case FLYRT_ARG_F32: return "float";
	case FLYRT_ARG_F16: case FLYRT_ARG_BF16: return "uint16_t";
	default: return "const void *";
	}
}

static const char *
c_ctor(flyrt_arg_type t)
{
	switch (t) {
	case FLYRT_ARG_PTR: return "flyrt_arg_ptr";
	case FLYRT_ARG_I32: return "flyrt_arg_i32";
	case FLYRT_ARG_U32: return "flyrt_arg_u32";
	case FLYRT_ARG_I64: return "flyrt_arg_i64";
	case FLYRT_ARG_U64: return "flyrt_arg_u64";
	case FLYRT_ARG_F32: return "flyrt_arg_f32";
	case FLYRT_ARG_F16: return "flyrt_arg_f16";
	case FLYRT_ARG_BF16: return "flyrt_arg_bf16";
	default: return "flyrt_arg_bytes";
	}
}

/* The explicit parameters of kernel k; returns the count, or -1 with err set. */
static int
params_of(const CoKernel *k, const MetaKernel *mk, Param **out, char *err, size_t errlen)
{
	int n = 0;
	Param *p;

	for (int i = 0; i < k->nargs; i++)
		n += k->args[i].kind != CO_ARG_HIDDEN;
	if (mk && mk->nargs != n) {
		snprintf(err, errlen, "kernel '%s': .flyc.meta lists %d arguments, the AMDGPU note %d",
		         k->name, mk->nargs, n);
		return -1;
	}
	p = calloc((size_t)n + 1, sizeof *p);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = 0;
	for (int i = 0; i < k->nargs; i++) {
		const CoArg *a = &k->args[i];
		Param *q = &p[n];
		const char *name;
		if (a->kind == CO_ARG_HIDDEN)
			continue;
		q->size = a->size;
		name = a->name;
		if (mk) {
			const MetaArg *ma = &mk->args[n];
			name = ma->name;
			q->type = ma->type;
			if (ma->is_ptr)
				snprintf(q->descbuf, sizeof q->descbuf, "ptr %s align %u", ma->elem, ma->align);
			else
				snprintf(q->descbuf, sizeof q->descbuf, "%s", flyrt_arg_type_name(ma->type));
		} else {
			q->type = a->kind == CO_ARG_GLOBAL_BUFFER && a->size == 8 ? FLYRT_ARG_PTR
			        : a->kind == CO_ARG_BY_VALUE && a->size == 4 ? FLYRT_ARG_I32
			        : a->kind == CO_ARG_BY_VALUE && a->size == 8 ? FLYRT_ARG_I64
			        : FLYRT_ARG_BYTES;
			snprintf(q->descbuf, sizeof q->descbuf, "%s, %u bytes (%s)", a->value_kind, a->size,
			         a->type_name[0] ? a->type_name : "no type name");
		}
		q->desc = q->descbuf;
		if (is_c_ident(name) && !is_reserved(name))
			snprintf(q->name, sizeof q->name, "%s", name);
		else
			snprintf(q->name, sizeof q->name, "arg%d", n);
		for (int j = 0; j < n; j++)
			if (!strcmp(p[j].name, q->name))
				snprintf(q->name, sizeof q->name, "arg%d", n);
		n++;
	}
	*out = p;
	return n;
}

typedef struct {
	FILE *h, *c;
	int failed;
} Out;

static void
emit(FILE *f, Out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vfprintf(f, fmt, ap) < 0)
		o->failed = 1;
	va_end(ap);
}

/* idx: the kernel's index, used to keep names unique when two kernel names map to the
 * same C identifier (e.g. "a.b" and "a_b"). */
static void
emit_kernel(Out *o, const char *base, const CoObject *co, int idx, const MetaKernel *mk,
            const Param *p, int n)
{
	const CoKernel *k = &co->kernels[idx];
	char fn[CO_NAME_MAX + 80], cn[CO_NAME_MAX + 8], other[CO_NAME_MAX + 8];
	FILE *hs[2] = { o->h, o->c };

	c_name(k->name, cn, sizeof cn);
	snprintf(fn, sizeof fn, "%s_%s", base, cn);
	for (int i = 0; i < co->nkernels; i++) {
		c_name(co->kernels[i].name, other, sizeof other);
		if (i != idx && !strcmp(other, cn)) {
			snprintf(fn, sizeof fn, "%s_%s_%d", base, cn, idx);
			break;
		}
	}
	emit(o->h, o, "\n/* kernel %s(", k->name);
	for (int i = 0; i < n; i++)
		emit(o->h, o, "%s%s: %s", i ? ", " : "", p[i].name, p[i].desc);
	emit(o->h, o, ")\n");
	if (mk && mk->has_block)
		emit(o->h, o, " *   block %u %u %u (a cfg->block given must be this)\n", mk->block[0],
		     mk->block[1], mk->block[2]);
	if (mk && mk->has_grid)
		emit(o->h, o, " *   grid from the kernel's formula when cfg is NULL or cfg->grid[0] is 0;\n"
		     " *     another grid only with cfg->flags |= FLYRT_LAUNCH_ANY_GRID\n");
	for (int i = 0; mk && i < mk->nargs; i++)
		if (mk->args[i].rank >= 0)
			emit(o->h, o, " *   %s: layout %s (%s elements; an allocation too small for it is "
			     "FLYRT_ERROR_ARG_TYPE)\n", p[i].name, mk->args[i].layout_text, mk->args[i].elem);
	for (int i = 0; mk && i < mk->nrequires; i++)
		emit(o->h, o, " *   requires %s (else FLYRT_ERROR_UNSUPPORTED)\n", mk->requires[i].text);
	emit(o->h, o, " */\n");
	for (int f = 0; f < 2; f++) {
		emit(hs[f], o, "flyrt_status %s(flyrt_device *dev, const flyrt_launch_config *cfg", fn);
		for (int i = 0; i < n; i++)
			emit(hs[f], o, ",\n\t%s%s%s", c_type(p[i].type),
			     p[i].type == FLYRT_ARG_BYTES ? "" : " ", p[i].name);
		emit(hs[f], o, ")%s", f == 0 ? ";\n" : "\n");
	}
	emit(o->c, o, "{\n\tflyrt_module *m;\n\tflyrt_kernel *k;\n\tflyrt_status st;\n");
	emit(o->c, o, "\tflyrt_arg args[%d] = {", n ? n : 1);
	for (int i = 0; i < n; i++) {
		if (p[i].type == FLYRT_ARG_BYTES)
			emit(o->c, o, "%s\n\t\tflyrt_arg_bytes(%s, %u)", i ? "," : "", p[i].name, p[i].size);
		else
			emit(o->c, o, "%s\n\t\t%s(%s)", i ? "," : "", c_ctor(p[i].type), p[i].name);
	}
	emit(o->c, o, "%s};\n\n", n ? "\n\t" : " { FLYRT_ARG_I32, 0, { 0 } } ");
	emit(o->c, o, "\tst = flyrt_module_get_cached(dev, %s_codeobj, %s_codeobj_size, &m);\n",
	     base, base);
	emit(o->c, o, "\tif (st != FLYRT_SUCCESS)\n\t\treturn st;\n");
	emit(o->c, o, "\tst = flyrt_module_get_kernel(m, \"");
	for (const char *s = k->name; *s; s++)  /* a C string literal of the name */
		emit(o->c, o, isalnum((unsigned char)*s) || *s == '_' || *s == '.' ? "%c" : "\\%03o",
		     (unsigned char)*s);
	emit(o->c, o, "\", &k);\n\tif (st != FLYRT_SUCCESS)\n\t\treturn st;\n");
	emit(o->c, o, "\treturn flyrt_launch(k, cfg, args, %d);\n}\n\n", n);
}

static int
generate(Out *o, const uint8_t *data, size_t size, const CoObject *co, const FlyMeta *meta,
         const char *base, char *err, size_t errlen)
{
	char guard[300];

	snprintf(guard, sizeof guard, "%s_LAUNCHER_H", base);
	for (char *s = guard; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	emit(o->h, o, "/* %s.h: generated by flyc --emit=launcher; do not edit.\n"
	     " * Launchers for the kernels of a %s code object (%zu bytes, embedded in %s.c).\n"
	     " * Each returns a flyrt_status and never exits. Link with libflyrt. */\n"
	     "#ifndef %s\n#define %s\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
	     "#include \"flyrt.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
	     "extern const unsigned char %s_codeobj[];\nextern const size_t %s_codeobj_size;\n",
	     base, co->processor, size, base, guard, guard, base, base);
	emit(o->c, o, "/* %s.c: generated by flyc --emit=launcher; do not edit. */\n"
	     "#include \"%s.h\"\n\nconst unsigned char %s_codeobj[] = {", base, base, base);
	for (size_t i = 0; i < size; i++)
		emit(o->c, o, "%s0x%02x,", i % 16 ? " " : "\n\t", data[i]);
	emit(o->c, o, "\n};\nconst size_t %s_codeobj_size = sizeof %s_codeobj;\n\n", base, base);
	for (int i = 0; i < co->nkernels; i++) {
		const CoKernel *k = &co->kernels[i];
		const MetaKernel *mk = flyrt_meta_find(meta, k->name);
		Param *p = NULL;
		int n = params_of(k, mk, &p, err, errlen);
		if (n < 0)
			return -1;
		emit_kernel(o, base, co, i, mk, p, n);
		free(p);
	}
	emit(o->h, o, "\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
	if (o->failed)
		snprintf(err, errlen, "cannot write the launcher files");
	return o->failed ? -1 : 0;
}

int
drv_emit_launcher(const void *codeobj, size_t size, const char *basename, const char *out_dir,
                  char *err, size_t errlen)
{
	size_t nprocs;
	const TgtDesc *procs = tgt_all(&nprocs);
	const void *img = codeobj;
	size_t imgsize = size;
	char hpath[4096], cpath[4096], msg[512];
	FioOut fh, fc;
	CoObject *co = NULL;
	FlyMeta meta;
	Out o = { NULL, NULL, 0 };
	int rc = -1;

	memset(&meta, 0, sizeof meta);
	if (!basename || !is_c_ident(basename) || strlen(basename) > 200) {
		snprintf(err, errlen, "launcher name '%s' is not a C identifier", basename ? basename : "");
		return -1;
	}
	switch (co_sniff(codeobj, size)) {
	case 1:
		break;
	case 2: {
		size_t i;
		for (i = 0; i < nprocs; i++)
			if (!co_bundle_find(codeobj, size, procs[i].name, &img, &imgsize, msg, sizeof msg))
				break;
		if (i == nprocs) {
			snprintf(err, errlen, "offload bundle: %s", msg);
			return -1;
		}
		break;
	}
	case 3:
		snprintf(err, errlen, "compressed offload bundles (CCOB) are not supported");
		return -1;
	default:
		snprintf(err, errlen, "not an AMDGPU code object or clang offload bundle");
		return -1;
	}
	if (!(co = co_parse(img, imgsize, msg, sizeof msg))) {
		snprintf(err, errlen, "corrupt code object: %s", msg);
		return -1;
	}
	if (co->flyc_meta && flyrt_meta_parse(co->flyc_meta, co->flyc_meta_size, &meta, msg, sizeof msg)) {
		snprintf(err, errlen, "%s", msg);
		goto out;
	}
	snprintf(hpath, sizeof hpath, "%s/%s.h", out_dir, basename);
	snprintf(cpath, sizeof cpath, "%s/%s.c", out_dir, basename);
	if (fio_open(&fh, hpath, err, errlen))
		goto out;
	if (fio_open(&fc, cpath, err, errlen)) {
		fio_abort(&fh);
		goto out;
	}
	o.h = fh.f;
	o.c = fc.f;
	if (generate(&o, codeobj, size, co, &meta, basename, err, errlen)) {
		fio_abort(&fh);
		fio_abort(&fc);
		goto out;
	}
	if (fio_commit(&fh, err, errlen)) {
		fio_abort(&fc);
		goto out;
	}
	if (fio_commit(&fc, err, errlen)) {
		remove(hpath);
		goto out;
	}
	rc = 0;
out:
	flyrt_meta_free(&meta);
	co_free(co);
	return rc;
}
