/*
 * flyrt_meta.c — the `.flyc.meta` section (docs/metadata.md): parsing, the RPN
 * formulas of `grid`, `requires` and `layout`, and the element-type vocabulary.
 *
 * A formula is compiled once, at load time: `$NAME`/`@NAME` are resolved to argument
 * indices (an unknown name, a `$` on a float or pointer, an `@` on a scalar, an
 * unknown token, or a stack that does not end with exactly one value is a load-time
 * error, never a silent pass). Evaluating a compiled formula can then only fail by
 * dividing by zero, by a result outside 64 bits (+ - * are exact or fail), or by
 * using `device.cus` where the CU count is unknown.
 *
 * Version 1 has arg, block, grid, lds and requires records; version 2 adds `layout`
 * records (a tensor argument's declared shape and strides) and the `device.cus`
 * token. Either version is read; a version 2 feature in a version 1 text is an error.
 *
 * Example: with args (A ptr f32 16) (K val i32),
 *   "$K 64 % 0 ==" compiles to [VAL 1][NUM 64][MOD][NUM 0][EQ] and gives 1 for K = 128.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt_internal.h"

static const struct { const char *text; RpnOp op; int pops; } rpn_ops[] = {
	{ "+", RPN_ADD, 2 }, { "-", RPN_SUB, 2 }, { "*", RPN_MUL, 2 }, { "/", RPN_DIV, 2 },
	{ "%", RPN_MOD, 2 }, { "==", RPN_EQ, 2 }, { "!=", RPN_NE, 2 }, { "<", RPN_LT, 2 },
	{ "<=", RPN_LE, 2 }, { ">", RPN_GT, 2 }, { ">=", RPN_GE, 2 }, { "&&", RPN_AND, 2 },
	{ "||", RPN_OR, 2 }, { "!", RPN_NOT, 1 }, { "min", RPN_MIN, 2 }, { "max", RPN_MAX, 2 },
	{ "ceil_div", RPN_CEILDIV, 2 },
};

enum { RPN_MAX_DEPTH = 64 };

static int
find_arg(const MetaArg *args, int nargs, const char *name, size_t n)
{
	for (int i = 0; i < nargs; i++)
		if (strlen(args[i].name) == n && !memcmp(args[i].name, name, n))
			return i;
	return -1;
}

static int
parse_int(const char *s, size_t n, int64_t *out)
{
	char buf[32], *end;

	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9')) || (buf[0] == '-' && n == 1))
		return -1;
	errno = 0;
	long long v = strtoll(buf, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int
flyrt_rpn_compile(const char *src, const MetaArg *args, int nargs, Rpn *out,
                  char *err, size_t errlen)
{
	size_t len = strlen(src);
	int depth = 0, cap = 8, n = 0;
	RpnTok *toks = malloc(sizeof *toks * (size_t)cap);

	memset(out, 0, sizeof *out);
	if (!toks) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < len;) {
		while (i < len && src[i] == ' ')
			i++;
		if (i >= len)
			break;
		size_t j = i;
		while (j < len && src[j] != ' ')
			j++;
		const char *t = src + i;
		size_t tn = j - i;
		RpnTok tok = { RPN_NUM, -1, 0 };
		int pops = 0;
		if (t[0] == '$' || t[0] == '@') {
			int a = find_arg(args, nargs, t + 1, tn - 1);
			if (a < 0) {
				snprintf(err, errlen, "unknown argument '%.*s' in formula '%s'", (int)tn, t, src);
				goto fail;
			}
			if (t[0] == '$' && (args[a].is_ptr || args[a].type == FLYRT_ARG_F32 ||
			    args[a].type == FLYRT_ARG_F16 || args[a].type == FLYRT_ARG_BF16)) {
				snprintf(err, errlen, "'%.*s' in formula '%s': only integer scalars have a value",
				         (int)tn, t, src);
				goto fail;
			}
			if (t[0] == '@' && !args[a].is_ptr) {
				snprintf(err, errlen, "'%.*s' in formula '%s': only pointers have an address",
				         (int)tn, t, src);
				goto fail;
			}
			tok.op = t[0] == '$' ? RPN_VAL : RPN_ADDR;
			tok.arg = a;
		} else if (tn == 10 && !memcmp(t, "device.cus", 10)) {
			tok.op = RPN_CUS;
			out->uses_cus = 1;
		} else if (parse_int(t, tn, &tok.num) == 0) {
			tok.op = RPN_NUM;
		} else {
			size_t k;
			for (k = 0; k < sizeof rpn_ops / sizeof rpn_ops[0]; k++)
				if (strlen(rpn_ops[k].text) == tn && !memcmp(rpn_ops[k].text, t, tn))
					break;
			if (k == sizeof rpn_ops / sizeof rpn_ops[0]) {
				snprintf(err, errlen, "unknown token '%.*s' in formula '%s'", (int)tn, t, src);
				goto fail;
			}
			tok.op = rpn_ops[k].op;
			pops = rpn_ops[k].pops;
		}
		if (depth < pops) {
			snprintf(err, errlen, "'%.*s' lacks operands in formula '%s'", (int)tn, t, src);
			goto fail;
		}
		depth = depth - pops + 1;
		if (depth > RPN_MAX_DEPTH) {
			snprintf(err, errlen, "formula '%s' is too deep", src);
			goto fail;
		}
		if (n == cap) {
			cap *= 2;
			RpnTok *nt = realloc(toks, sizeof *toks * (size_t)cap);
			if (!nt) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			toks = nt;
		}
		toks[n++] = tok;
		i = j;
	}
	if (depth != 1) {
		snprintf(err, errlen, "formula '%s' leaves %d values, expected 1", src, depth);
		goto fail;
	}
	out->toks = toks;
	out->ntoks = n;
	return 0;
fail:
	free(toks);
	return -1;
}

void
flyrt_rpn_free(Rpn *r)
{
	if (!r)
		return;
	free(r->toks);
	free(r->text);
	memset(r, 0, sizeof *r);
}

int
flyrt_rpn_eval(const Rpn *r, const int64_t *vals, int64_t *out)
{
	return flyrt_rpn_eval_cus(r, vals, 0, out);
}

int
flyrt_rpn_eval_cus(const Rpn *r, const int64_t *vals, int64_t cus, int64_t *out)
{
	int64_t st[RPN_MAX_DEPTH + 1];
	int sp = 0;

	for (int i = 0; i < r->ntoks; i++) {
		const RpnTok *t = &r->toks[i];
		int64_t a = 0, b = 0, v = 0;
		switch (t->op) {
		case RPN_NUM: st[sp++] = t->num; continue;
		case RPN_VAL: case RPN_ADDR: st[sp++] = vals[t->arg]; continue;
		case RPN_CUS:
			if (cus <= 0)
				return -1;
			st[sp++] = cus;
			continue;
		case RPN_NOT: st[sp - 1] = !st[sp - 1]; continue;
		default: break;
		}
		b = st[--sp];
		a = st[--sp];
		switch (t->op) {
		/* exact over the integers or not at all: an overflow of 64 bits fails the
		 * formula (a predicate is then false), it never wraps into a passing value */
		case RPN_ADD: if (__builtin_add_overflow(a, b, &v)) return -1; break;
		case RPN_SUB: if (__builtin_sub_overflow(a, b, &v)) return -1; break;
		case RPN_MUL: if (__builtin_mul_overflow(a, b, &v)) return -1; break;
		case RPN_DIV: case RPN_MOD: case RPN_CEILDIV:
			if (b == 0)
				return -1;
			if (a == INT64_MIN && b == -1) { /* the one quotient outside int64 */
				if (t->op != RPN_MOD)
					return -1;
				v = 0;
				break;
			}
			if (t->op == RPN_DIV)
				v = a / b;
			else if (t->op == RPN_MOD)
				v = a % b;
			else /* ceil_div: the ceiling of the exact quotient */
				v = a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
			break;
		case RPN_EQ: v = a == b; break;
		case RPN_NE: v = a != b; break;
		case RPN_LT: v = a < b; break;
		case RPN_LE: v = a <= b; break;
		case RPN_GT: v = a > b; break;
		case RPN_GE: v = a >= b; break;
		case RPN_AND: v = a && b; break;
		case RPN_OR: v = a || b; break;
		case RPN_MIN: v = a < b ? a : b; break;
		case RPN_MAX: v = a > b ? a : b; break;
		default: return -1;
		}
		st[sp++] = v;
	}
	*out = st[0];
	return 0;
}

/* In this file, not flyrt_core.c, so that flyc's launcher generator links without
 * the device code. */
const char *
flyrt_arg_type_name(flyrt_arg_type t)
{
	switch (t) {
#define X(name, text, size) case name: return text;
	FLYRT_ARG_TYPES(X)
#undef X
	default: return "?";
	}
}

/* ---- the line-oriented format ---------------------------------------------------- */

static const struct { const char *name; flyrt_arg_type type; } scalar_types[] = {
	{ "i32", FLYRT_ARG_I32 }, { "u32", FLYRT_ARG_U32 }, { "i64", FLYRT_ARG_I64 },
	{ "u64", FLYRT_ARG_U64 }, { "f32", FLYRT_ARG_F32 }, { "f16", FLYRT_ARG_F16 },
	{ "bf16", FLYRT_ARG_BF16 },
};

static const struct { const char *name; unsigned bits; int raw; } elem_types[] = {
#define X(name, bits, raw) { name, bits, raw },
	FLYRT_ELEM_TYPES(X)
#undef X
};

static int
elem_index(const char *t)
{
	for (size_t i = 0; t && i < sizeof elem_types / sizeof elem_types[0]; i++)
		if (!strcmp(elem_types[i].name, t))
			return (int)i;
	return -1;
}

unsigned
flyrt_elem_bits(const char *t)
{
	int i = elem_index(t);
	return i < 0 ? 0 : elem_types[i].bits;
}

int
flyrt_elem_accepts(const char *declared, const char *given)
{
	int d = elem_index(declared), g = elem_index(given);
	unsigned width;

	if (!strcmp(declared, given))
		return 1;
	if (d < 0 || g < 0 || !elem_types[d].raw || (given[0] != 'i' && given[0] != 'u') ||
	    !strcmp(given, "i4") || !strcmp(given, "i6"))
		return 0;
	width = elem_types[d].bits < 8 ? 8 : elem_types[d].bits;
	return elem_types[g].bits == width;
}

/* Element sizes for the default pointer alignment; unknown types get 1. */
static uint32_t
elem_size(const char *t)
{
	unsigned b = flyrt_elem_bits(t);
	return b ? (b + 7) / 8 : 1;
}

/* Split s at single spaces into at most max fields (NUL-terminating in place). */
static int
split(char *s, char **f, int max)
{
	int n = 0;
	while (*s && n < max) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		f[n++] = s;
		while (*s && *s != ' ')
			s++;
		if (*s)
			*s++ = 0;
	}
	return n;
}

static int
parse_u32(const char *s, uint32_t *out)
{
	int64_t v;
	if (parse_int(s, strlen(s), &v) || v < 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static void
layout_free(MetaArg *a)
{
	for (int i = 0; a->shape && i < a->rank; i++)
		flyrt_rpn_free(&a->shape[i]);
	for (int i = 0; a->stride && i < a->rank; i++)
		flyrt_rpn_free(&a->stride[i]);
	free(a->shape);
	free(a->stride);
	free(a->layout_text);
	a->shape = a->stride = NULL;
	a->layout_text = NULL;
	a->rank = -1;
}

static void
kernel_free(MetaKernel *k)
{
	for (int i = 0; i < k->nargs; i++)
		layout_free(&k->args[i]);
	free(k->args);
	for (int i = 0; i < 3; i++)
		flyrt_rpn_free(&k->grid[i]);
	for (int i = 0; i < k->nrequires; i++)
		flyrt_rpn_free(&k->requires[i]);
	free(k->requires);
	memset(k, 0, sizeof *k);
}

void
flyrt_meta_free(FlyMeta *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nkernels; i++)
		kernel_free(&m->kernels[i]);
	free(m->kernels);
	memset(m, 0, sizeof *m);
}

const MetaKernel *
flyrt_meta_find(const FlyMeta *m, const char *name)
{
	for (int i = 0; m && i < m->nkernels; i++)
		if (!strcmp(m->kernels[i].name, name))
			return &m->kernels[i];
	return NULL;
}

static void *
grow(void *p, int n, size_t elem)
{
	return realloc(p, elem * (size_t)(n + 1));
}

/* Split s in place at every " ; " into at most max parts; the count, or -1 if more. */
static int
split_semi(char *s, char **parts, int max)
{
	int n = 0;
	for (;;) {
		char *e = strstr(s, " ; ");
		if (n == max)
			return -1;
		parts[n++] = s;
		if (!e)
			return n;
		*e = 0;
		s = e + 3;
	}
}

/* "layout NAME S0 ; S1 ... : D0 ; D1 ...": pointer argument NAME's declared shape and
 * strides. rest (writable) is everything after "layout ". */
static int
layout_line(MetaKernel *k, char *rest, char *err, size_t errlen)
{
	char *sh[FLYRT_MAX_RANK + 1], *st[FLYRT_MAX_RANK + 1], *colon, *sp, msg[256];
	char *text;
	int a, ns, nd;
	MetaArg *ma;

	sp = strchr(rest, ' ');
	if (!sp || !(colon = strstr(sp, " : ")) || strstr(colon + 3, " : ")) {
		snprintf(err, errlen, "'layout' needs NAME SHAPE... : STRIDE... (formulas separated by ' ; ')");
		return -1;
	}
	*sp = 0;
	a = find_arg(k->args, k->nargs, rest, strlen(rest));
	if (a < 0 || !k->args[a].is_ptr) {
		snprintf(err, errlen, "'layout' names '%s', which is not a pointer argument listed before it", rest);
		return -1;
	}
	ma = &k->args[a];
	if (ma->rank >= 0) {
		snprintf(err, errlen, "second 'layout' for '%s'", rest);
		return -1;
	}
	if (!(text = strdup(sp + 1))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*colon = 0;
	ns = split_semi(sp + 1, sh, FLYRT_MAX_RANK);
	nd = split_semi(colon + 3, st, FLYRT_MAX_RANK);
	if (ns < 0 || nd < 0 || ns != nd) {
		snprintf(err, errlen, "layout of '%s': %s", ma->name, ns < 0 || nd < 0
		         ? "more than 16 modes" : "as many strides as extents are needed");
		free(text);
		return -1;
	}
	ma->shape = calloc((size_t)ns, sizeof *ma->shape);
	ma->stride = calloc((size_t)ns, sizeof *ma->stride);
	ma->layout_text = text;
	ma->rank = ns;
	if (!ma->shape || !ma->stride) {
		layout_free(ma);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < 2 * ns; i++) {
		Rpn *r = i < ns ? &ma->shape[i] : &ma->stride[i - ns];
		if (flyrt_rpn_compile(i < ns ? sh[i] : st[i - ns], k->args, k->nargs, r, msg, sizeof msg)) {
			snprintf(err, errlen, "layout of '%.60s': %.160s", ma->name, msg);
			layout_free(ma);
			return -1;
		}
		for (int t = 0; t < r->ntoks; t++)
			if (r->toks[t].op == RPN_ADDR || r->toks[t].op == RPN_CUS) {
				snprintf(err, errlen, "layout of '%s': only integer scalar arguments and "
				         "numbers may appear", ma->name);
				layout_free(ma);
				return -1;
			}
	}
	return 0;
}

/* One line of a kernel record; line is writable. 0 or -1 with err set. */
static int
kernel_line(MetaKernel *k, int version, char *line, char *err, size_t errlen)
{
	char *f[8], msg[256];
	char *semi;

	if (!strncmp(line, "layout ", 7)) {
		if (version < 2) {
			snprintf(err, errlen, "'layout' needs 'flyc-meta 2'");
			return -1;
		}
		return layout_line(k, line + 7, err, errlen);
	}
	if (!strncmp(line, "arg ", 4)) {
		int n = split(line + 4, f, 5);
		if (n < 3 || n > 4) {
			snprintf(err, errlen, "'arg' needs NAME CLASS TYPE [ALIGN]");
			return -1;
		}
		if (strlen(f[0]) >= CO_NAME_MAX || strlen(f[2]) >= sizeof k->args[0].elem) {
			snprintf(err, errlen, "argument name or type too long");
			return -1;
		}
		if (find_arg(k->args, k->nargs, f[0], strlen(f[0])) >= 0) {
			snprintf(err, errlen, "duplicate argument '%s'", f[0]);
			return -1;
		}
		MetaArg a;
		memset(&a, 0, sizeof a);
		a.rank = -1;
		snprintf(a.name, sizeof a.name, "%s", f[0]);
		if (!strcmp(f[1], "ptr")) {
			a.is_ptr = 1;
			a.type = FLYRT_ARG_PTR;
			snprintf(a.elem, sizeof a.elem, "%s", f[2]);
			a.align = elem_size(f[2]);
			if (n == 4 && (parse_u32(f[3], &a.align) || a.align == 0 ||
			               (a.align & (a.align - 1)))) {
				snprintf(err, errlen, "bad alignment '%s' (a power of two)", f[3]);
				return -1;
			}
		} else if (!strcmp(f[1], "val")) {
			size_t i;
			for (i = 0; i < sizeof scalar_types / sizeof scalar_types[0]; i++)
				if (!strcmp(scalar_types[i].name, f[2]))
					break;
			if (i == sizeof scalar_types / sizeof scalar_types[0] || n == 4) {
				snprintf(err, errlen, "bad scalar argument type '%s'", f[2]);
				return -1;
			}
			a.type = scalar_types[i].type;
		} else {
			snprintf(err, errlen, "argument class '%s' is not ptr or val", f[1]);
			return -1;
		}
		MetaArg *na = grow(k->args, k->nargs, sizeof *na);
		if (!na) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		k->args = na;
		k->args[k->nargs++] = a;
		return 0;
	}
	if (!strncmp(line, "block ", 6)) {
		if (split(line + 6, f, 4) != 3 || parse_u32(f[0], &k->block[0]) ||
		    parse_u32(f[1], &k->block[1]) || parse_u32(f[2], &k->block[2]) ||
		    !k->block[0] || !k->block[1] || !k->block[2]) {
			snprintf(err, errlen, "'block' needs three positive integers");
			return -1;
		}
		k->has_block = 1;
		return 0;
	}
	if (!strncmp(line, "lds ", 4)) {
		if (split(line + 4, f, 2) != 1 || parse_u32(f[0], &k->lds)) {
			snprintf(err, errlen, "'lds' needs one integer");
			return -1;
		}
		return 0;
	}
	if (!strncmp(line, "grid ", 5)) {
		char *p = line + 5;
		if (k->has_grid) {
			snprintf(err, errlen, "second 'grid' line");
			return -1;
		}
		for (int d = 0; d < 3; d++) {
			char *end = strstr(p, " ; ");
			if ((d < 2) != (end != NULL)) {
				snprintf(err, errlen, "'grid' needs three formulas separated by ' ; '");
				return -1;
			}
			if (end)
				*end = 0;
			if (flyrt_rpn_compile(p, k->args, k->nargs, &k->grid[d], msg, sizeof msg)) {
				snprintf(err, errlen, "grid: %s", msg);
				return -1;
			}
			if (k->grid[d].uses_cus && version < 2) {
				snprintf(err, errlen, "grid: 'device.cus' needs 'flyc-meta 2'");
				return -1;
			}
			if (end)
				p = end + 3;
		}
		k->has_grid = 1;
		return 0;
	}
	if (!strncmp(line, "requires ", 9)) {
		Rpn r;
		semi = strstr(line + 9, " ; ");
		if (!semi) {
			snprintf(err, errlen, "'requires' needs 'RPN ; SOURCE_TEXT'");
			return -1;
		}
		*semi = 0;
		if (flyrt_rpn_compile(line + 9, k->args, k->nargs, &r, msg, sizeof msg)) {
			snprintf(err, errlen, "requires: %s", msg);
			return -1;
		}
		if (r.uses_cus && version < 2) {
			flyrt_rpn_free(&r);
			snprintf(err, errlen, "requires: 'device.cus' needs 'flyc-meta 2'");
			return -1;
		}
		r.text = strdup(semi + 3);
		Rpn *nr = r.text ? grow(k->requires, k->nrequires, sizeof *nr) : NULL;
		if (!nr) {
			flyrt_rpn_free(&r);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		k->requires = nr;
		k->requires[k->nrequires++] = r;
		return 0;
	}
	snprintf(err, errlen, "unknown record '%.20s'", line);
	return -1;
}

int
flyrt_meta_parse(const char *text, size_t len, FlyMeta *out, char *err, size_t errlen)
{
	char *buf = malloc(len + 1), msg[512];
	MetaKernel cur;
	int in_kernel = 0, lineno = 0, seen_header = 0;
	size_t pos = 0;

	memset(out, 0, sizeof *out);
	memset(&cur, 0, sizeof cur);
	if (!buf) {
		snprintf(err, errlen, ".flyc.meta: out of memory");
		return -1;
	}
	memcpy(buf, text, len);
	buf[len] = 0;
	if (strlen(buf) != len) {
		/* ld may pad a section with NULs; anything after the first NUL must be NULs */
		for (size_t i = strlen(buf); i < len; i++)
			if (buf[i]) {
				snprintf(err, errlen, ".flyc.meta: NUL byte inside the text");
				goto fail;
			}
		len = strlen(buf);
	}
	while (pos < len) {
		char *line = buf + pos;
		char *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;
		pos += ll + 1;
		line[ll] = 0;
		if (ll && line[ll - 1] == '\r')
			line[--ll] = 0;
		lineno++;
		if (ll == 0 || line[0] == '#')
			continue;
		if (!seen_header) {
			if (strcmp(line, "flyc-meta 1") && strcmp(line, "flyc-meta 2")) {
				snprintf(err, errlen, ".flyc.meta:%d: expected 'flyc-meta 1' or 'flyc-meta 2', "
				         "got '%.40s'", lineno, line);
				goto fail;
			}
			out->version = line[10] - '0';
			seen_header = 1;
			continue;
		}
		if (!strncmp(line, "kernel ", 7)) {
			char *f[2];
			if (in_kernel) {
				snprintf(err, errlen, ".flyc.meta:%d: 'kernel' before 'end'", lineno);
				goto fail;
			}
			if (split(line + 7, f, 2) != 1 || strlen(f[0]) >= CO_NAME_MAX) {
				snprintf(err, errlen, ".flyc.meta:%d: 'kernel' needs one name", lineno);
				goto fail;
			}
			if (flyrt_meta_find(out, f[0])) {
				snprintf(err, errlen, ".flyc.meta:%d: kernel '%s' described twice", lineno, f[0]);
				goto fail;
			}
			snprintf(cur.name, sizeof cur.name, "%s", f[0]);
			in_kernel = 1;
			continue;
		}
		if (!in_kernel) {
			snprintf(err, errlen, ".flyc.meta:%d: '%.20s' outside a kernel record", lineno, line);
			goto fail;
		}
		if (!strcmp(line, "end")) {
			MetaKernel *nk = grow(out->kernels, out->nkernels, sizeof *nk);
			if (!nk) {
				snprintf(err, errlen, ".flyc.meta: out of memory");
				goto fail;
			}
			out->kernels = nk;
			out->kernels[out->nkernels++] = cur;
			memset(&cur, 0, sizeof cur);
			in_kernel = 0;
			continue;
		}
		if (kernel_line(&cur, out->version, line, msg, sizeof msg)) {
			snprintf(err, errlen, ".flyc.meta:%d: %s", lineno, msg);
			goto fail;
		}
	}
	if (!seen_header) {
		snprintf(err, errlen, ".flyc.meta: empty (no 'flyc-meta 1' or 'flyc-meta 2' line)");
		goto fail;
	}
	if (in_kernel) {
		snprintf(err, errlen, ".flyc.meta: kernel '%s' has no 'end'", cur.name);
		goto fail;
	}
	free(buf);
	return 0;
fail:
	kernel_free(&cur);
	flyrt_meta_free(out);
	free(buf);
	return -1;
}
