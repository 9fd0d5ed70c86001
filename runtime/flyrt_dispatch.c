/*
 * flyrt_dispatch.c — kernel variants and tuning tables.
 *
 * A tuning table maps a shape bucket of a kernel family to variant names, best first.
 * Two spellings, mixed freely, one row per line, '#' starts a comment line:
 *
 *   gemm, M<=128 N<=128, gemm_64x64 gemm_generic        (CSV: family, bucket, variants)
 *   gemm  K%64==0  ->  gemm_256x256 gemm_generic          (text: family bucket -> variants)
 *   gemm, *, gemm_generic
 *
 * A JSON table is an array of rows, each an object with "kernel" (or "family"),
 * "bucket" (optional, default "*") and "variants" (an array of names, or one string):
 *
 *   [ {"kernel": "gemm", "bucket": "M<=128 N<=128", "variants": ["gemm_64x64", "gemm_generic"]},
 *     {"kernel": "gemm", "variants": "gemm_generic"} ]
 *
 * A bucket is "*" (any call) or conditions separated by spaces, all of which must
 * hold: NAME OP INT with OP one of < <= > >= == !=, or NAME%INT==INT / NAME%INT!=INT.
 * NAME is an integer scalar argument of the kernel. A CSV header row whose first field
 * is "kernel" or "family" is skipped.
 *
 * For a call, the candidates are the variants of every matching row, rows in file
 * order, each name once. flyrt_dispatch tries them in that order and launches the
 * first that the module has and whose requires accept the call.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "flyrt_internal.h"

typedef enum { C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE, C_MOD_EQ, C_MOD_NE } CondOp;

typedef struct {
	char *name;
	CondOp op;
	int64_t a, b;          /* NAME OP a; or NAME % a ==/!= b */
} Cond;

typedef struct {
	char *family;
	Cond *conds;
	int nconds;            /* 0: "*" */
	char **variants;
	int nvariants;
	int line;
} Row;

struct flyrt_tuning {
	Row *rows;
	int nrows;
};

static void
row_free(Row *r)
{
	free(r->family);
	for (int i = 0; i < r->nconds; i++)
		free(r->conds[i].name);
	free(r->conds);
	for (int i = 0; i < r->nvariants; i++)
		free(r->variants[i]);
	free(r->variants);
}

void
flyrt_tuning_destroy(flyrt_tuning *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nrows; i++)
		row_free(&t->rows[i]);
	free(t->rows);
	free(t);
}

static char *
trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static int
is_ident(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

static int
int_at(const char *s, int64_t *out)
{
	char *end;
	if (!*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* One condition word, e.g. "M<=128" or "K%64==0". */
static int
parse_cond(char *w, Cond *c)
{
	static const struct { const char *t; CondOp op; } ops[] = {
		{ "<=", C_LE }, { ">=", C_GE }, { "==", C_EQ }, { "!=", C_NE }, { "<", C_LT }, { ">", C_GT },
	};
	size_t n = strcspn(w, "<>=!%");
	char *rest = w + n;

	memset(c, 0, sizeof *c);
	if (n == 0 || !*rest)
		return -1;
	if (*rest == '%') {
		char *e = rest + 1 + strcspn(rest + 1, "=!");
		if (strncmp(e, "==", 2) && strncmp(e, "!=", 2))
			return -1;
		c->op = e[0] == '=' ? C_MOD_EQ : C_MOD_NE;
		char save = *e;
		*e = 0;
		int bad = int_at(rest + 1, &c->a) || c->a <= 0;
		*e = save;
		if (bad || int_at(e + 2, &c->b))
			return -1;
	} else {
		size_t k;
		for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
			if (!strncmp(rest, ops[k].t, strlen(ops[k].t)))
				break;
		if (k == sizeof ops / sizeof ops[0] || int_at(rest + strlen(ops[k].t), &c->a))
			return -1;
		c->op = ops[k].op;
	}
	c->name = strndup(w, n);
	if (!c->name || !is_ident(c->name)) {
		free(c->name);
		c->name = NULL;
		return -1;
	}
	return 0;
}

/* Split s at spaces/tabs into newly allocated words appended to *v. */
static int
words(char *s, char ***v, int *n)
{
	char *save = NULL;
	for (char *w = strtok_r(s, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		char **nv = realloc(*v, sizeof **v * (size_t)(*n + 1));
		if (!nv)
			return -1;
		*v = nv;
		if (!((*v)[*n] = strdup(w)))
			return -1;
		(*n)++;
	}
	return 0;
}

static flyrt_status
parse_row(char *line, int lineno, Row *r)
{
	char *fam, *bucket, *vars, *p;
	char **bw = NULL;
	int nbw = 0;
	flyrt_status st = FLYRT_SUCCESS;

	memset(r, 0, sizeof *r);
	r->line = lineno;
	if ((p = strchr(line, ','))) {
		fam = line;
		*p = 0;
		bucket = p + 1;
		if (!(p = strchr(bucket, ',')))
			return flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: a CSV row "
			                  "needs three fields: family, bucket, variants", lineno);
		*p = 0;
		vars = p + 1;
		if (strchr(vars, ','))  /* allow variants listed as further CSV fields */
			for (char *q = vars; *q; q++)
				if (*q == ',')
					*q = ' ';
		fam = trim(fam);
	} else {
		if (!(p = strstr(line, "->")))
			return flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: expected "
			                  "'family, bucket, variants' or 'family bucket -> variants'", lineno);
		*p = 0;
		vars = p + 2;
		fam = trim(line);
		bucket = fam + strcspn(fam, " \t");
		if (*bucket)
			*bucket++ = 0;
	}
	if (!is_ident(fam))
		return flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: bad family name "
		                  "'%s'", lineno, fam);
	if (!(r->family = strdup(fam)))
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	if (words(trim(bucket), &bw, &nbw) || words(trim(vars), &r->variants, &r->nvariants)) {
		st = flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	if (nbw == 0) {
		st = flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: empty bucket "
		                "(write * for any shape)", lineno);
		goto out;
	}
	if (r->nvariants == 0) {
		st = flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: no variant", lineno);
		goto out;
	}
	for (int i = 0; i < r->nvariants; i++)
		if (!is_ident(r->variants[i])) {
			st = flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: bad variant "
			                "name '%s'", lineno, r->variants[i]);
			goto out;
		}
	if (!(nbw == 1 && !strcmp(bw[0], "*"))) {
		r->conds = calloc((size_t)nbw, sizeof *r->conds);
		if (!r->conds) {
			st = flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
			goto out;
		}
		for (int i = 0; i < nbw; i++) {
			if (parse_cond(bw[i], &r->conds[i])) {
				st = flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: bad "
				                "condition '%s' (expected e.g. M<=128 or K%%64==0)", lineno, bw[i]);
				goto out;
			}
			r->nconds = i + 1;
		}
	}
out:
	for (int i = 0; i < nbw; i++)
		free(bw[i]);
	free(bw);
	if (st != FLYRT_SUCCESS)
		row_free(r);
	return st;
}

/* ---- JSON tables: [{"kernel": F, "bucket": B, "variants": [V, ...]}, ...] ------------- */

typedef struct {
	const char *s;
	size_t i;
	int line;
} Js;

static void
js_ws(Js *j)
{
	for (;; j->i++) {
		char c = j->s[j->i];
		if (c == '\n')
			j->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			return;
	}
}

/* The next character, consumed; at the end of the text 0, not consumed. */
static char
js_get(Js *j)
{
	char c = j->s[j->i];
	if (c)
		j->i++;
	return c;
}

static flyrt_status
js_err(const Js *j, const char *what)
{
	return flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: JSON: %s", j->line, what);
}

/* A string into out (cap bytes); only ASCII escapes. */
static flyrt_status
js_str(Js *j, char *out, size_t cap)
{
	size_t n = 0;

	if (j->s[j->i] != '"')
		return js_err(j, "expected a string");
	j->i++;
	for (;;) {
		char c = js_get(j);
		if (!c || c == '\n')
			return js_err(j, "unterminated string");
		if (c == '"')
			break;
		if (c == '\\') {
			char e = js_get(j);
			const char *map = strchr("\"\"\\\\//b\bf\fn\nr\rt\t", e);
			if (e == 'u') {
				unsigned v = 0;
				for (int k = 0; k < 4; k++) {
					char h = js_get(j);
					if (!isxdigit((unsigned char)h))
						return js_err(j, "bad \\u escape");
					v = v * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : (h | 32) - 'a' + 10);
				}
				if (v == 0 || v > 0x7f)
					return js_err(j, "only ASCII \\u escapes are accepted");
				c = (char)v;
			} else if (e && map && (map - "\"\"\\\\//b\bf\fn\nr\rt\t") % 2 == 0) {
				c = map[1];
			} else {
				return js_err(j, "bad escape");
			}
		}
		if (c == ',' || c == '\n')
			return js_err(j, "a name or bucket cannot contain ',' or a newline");
		if (n + 1 >= cap)
			return js_err(j, "string too long");
		out[n++] = c;
	}
	out[n] = 0;
	return FLYRT_SUCCESS;
}

static flyrt_status
parse_json(const char *text, flyrt_tuning *t)
{
	Js j = { text, 0, 1 };
	flyrt_status st;

	js_ws(&j);
	if (js_get(&j) != '[')
		return js_err(&j, "expected '[' (an array of rows)");
	js_ws(&j);
	if (text[j.i] == ']') {
		j.i++;
		goto end;
	}
	for (;;) {
		char fam[256] = "", bucket[1024] = "", vars[2048] = "", key[64], line[3400];
		int row_line;
		js_ws(&j);
		row_line = j.line;
		if (js_get(&j) != '{')
			return js_err(&j, "expected '{' (a row object)");
		for (;;) {
			js_ws(&j);
			if ((st = js_str(&j, key, sizeof key)) != FLYRT_SUCCESS)
				return st;
			js_ws(&j);
			if (js_get(&j) != ':')
				return js_err(&j, "expected ':'");
			js_ws(&j);
			if (!strcmp(key, "kernel") || !strcmp(key, "family")) {
				st = js_str(&j, fam, sizeof fam);
			} else if (!strcmp(key, "bucket")) {
				st = js_str(&j, bucket, sizeof bucket);
			} else if (!strcmp(key, "variants") && text[j.i] == '[') {
				j.i++;
				js_ws(&j);
				st = FLYRT_SUCCESS;
				while (st == FLYRT_SUCCESS && text[j.i] != ']') {
					size_t l = strlen(vars);
					if (l + 2 >= sizeof vars)
						return js_err(&j, "too many variants");
					if (l)
						vars[l++] = ' ';
					st = js_str(&j, vars + l, sizeof vars - l);
					js_ws(&j);
					if (st == FLYRT_SUCCESS && text[j.i] == ',') {
						j.i++;
						js_ws(&j);
						if (text[j.i] == ']')
							return js_err(&j, "',' before ']'");
					} else if (st == FLYRT_SUCCESS && text[j.i] != ']') {
						return js_err(&j, "expected ',' or ']' in variants");
					}
				}
				if (st == FLYRT_SUCCESS)
					j.i++;   /* the ']' */
			} else if (!strcmp(key, "variants")) {
				st = js_str(&j, vars, sizeof vars);
			} else {
				return js_err(&j, "unknown key (expected kernel, bucket, variants)");
			}
			if (st != FLYRT_SUCCESS)
				return st;
			js_ws(&j);
			if (text[j.i] == ',') {
				j.i++;
				continue;
			}
			if (js_get(&j) != '}')
				return js_err(&j, "expected ',' or '}'");
			break;
		}
		if (!fam[0] || !vars[0])
			return flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: JSON: a row "
			                  "needs \"kernel\" and \"variants\"", row_line);
		snprintf(line, sizeof line, "%s, %s, %s", fam, bucket[0] ? bucket : "*", vars);
		Row *nr = realloc(t->rows, sizeof *nr * (size_t)(t->nrows + 1));
		if (!nr)
			return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		t->rows = nr;
		if ((st = parse_row(line, row_line, &t->rows[t->nrows])) != FLYRT_SUCCESS)
			return st;
		t->nrows++;
		js_ws(&j);
		if (text[j.i] == ',') {
			j.i++;
			continue;
		}
		if (js_get(&j) != ']')
			return js_err(&j, "expected ',' or ']' after a row");
		break;
	}
end:
	js_ws(&j);
	if (text[j.i])
		return js_err(&j, "text after the closing ']'");
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_tuning_parse(const char *text, size_t len, flyrt_tuning **out)
{
	flyrt_tuning *t;
	char *buf;
	size_t pos = 0;
	int lineno = 0;
	flyrt_status st = FLYRT_SUCCESS;

	if (!out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_parse: out is NULL");
	*out = NULL;
	if (!text && len)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_parse: text is NULL");
	t = calloc(1, sizeof *t);
	buf = malloc(len + 1);
	if (!t || !buf) {
		free(t);
		free(buf);
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	if (len)
		memcpy(buf, text, len);
	buf[len] = 0;
	if (strlen(buf) != len) {
		st = flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table contains a NUL byte");
		goto out;
	}
	if (buf[strspn(buf, " \t\r\n")] == '[') {
		st = parse_json(buf, t);
		goto out;
	}
	while (pos < len) {
		char *line = buf + pos, *nl = strchr(line, '\n'), *s;
		if (nl)
			*nl = 0;
		pos += strlen(line) + 1;
		lineno++;
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		if (t->nrows == 0 && (!strncmp(s, "kernel,", 7) || !strncmp(s, "family,", 7)))
			continue;
		Row *nr = realloc(t->rows, sizeof *nr * (size_t)(t->nrows + 1));
		if (!nr) {
			st = flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
			goto out;
		}
		t->rows = nr;
		st = parse_row(s, lineno, &t->rows[t->nrows]);
		if (st != FLYRT_SUCCESS)
			goto out;
		t->nrows++;
	}
out:
	free(buf);
	if (st != FLYRT_SUCCESS) {
		flyrt_tuning_destroy(t);
		return st;
	}
	flyrt_clear_error();
	*out = t;
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_tuning_load(const char *path, flyrt_tuning **out)
{
	char *buf;
	size_t n;
	flyrt_status st;

	if (out)
		*out = NULL;
	if (!path || !out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_load: NULL parameter");
	if (!(buf = fio_read_file(path, (size_t)1 << 24, &n))) {
		if (errno == EFBIG)
			return flyrt_fail(FLYRT_ERROR_FILE, "tuning table '%s' is too large", path);
		return flyrt_fail(FLYRT_ERROR_FILE, "cannot read tuning table '%s': %s", path, strerror(errno));
	}
	st = flyrt_tuning_parse(buf, n, out);
	free(buf);
	if (st != FLYRT_SUCCESS) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", flyrt_last_error());
		return flyrt_fail(st, "%s: %s", path, msg);
	}
	return st;
}

/* 1 if the row matches, 0 if not, -1 (error set) for a bad argument name. */
static int
row_matches(const Row *r, const flyrt_kernel *k, const flyrt_arg *args, int nargs)
{
	for (int i = 0; i < r->nconds; i++) {
		const Cond *c = &r->conds[i];
		int a;
		int64_t v;
		for (a = 0; a < k->nargs; a++)
			if (k->info[a].name && !strcmp(k->info[a].name, c->name))
				break;
		if (a == k->nargs || a >= nargs) {
			flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: kernel '%s' has no "
			           "argument '%s'", r->line, k->co->name, c->name);
			return -1;
		}
		switch (args[a].type) {
		case FLYRT_ARG_I32: v = args[a].v.i32; break;
		case FLYRT_ARG_U32: v = args[a].v.u32; break;
		case FLYRT_ARG_I64: v = args[a].v.i64; break;
		case FLYRT_ARG_U64: memcpy(&v, &args[a].v.u64, 8); break;
		default:
			flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning table line %d: argument '%s' is not "
			           "an integer", r->line, c->name);
			return -1;
		}
		int ok = 0;
		switch (c->op) {
		case C_LT: ok = v < c->a; break;
		case C_LE: ok = v <= c->a; break;
		case C_GT: ok = v > c->a; break;
		case C_GE: ok = v >= c->a; break;
		case C_EQ: ok = v == c->a; break;
		case C_NE: ok = v != c->a; break;
		case C_MOD_EQ: ok = v % c->a == c->b; break;
		case C_MOD_NE: ok = v % c->a != c->b; break;
		}
		if (!ok)
			return 0;
	}
	return 1;
}

/* The variants of the family's rows (only rows matching the call when k is given), in
 * file order without repeats; the first max go to names. Count, or -1 with the error set. */
static int
collect(const flyrt_tuning *t, const char *family, const flyrt_kernel *k, const flyrt_arg *args,
        int nargs, const char **names, int max)
{
	int total = 0, n = 0;
	const char **all;

	for (int i = 0; i < t->nrows; i++)
		total += t->rows[i].nvariants;
	all = calloc((size_t)total + 1, sizeof *all);
	if (!all) {
		flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	for (int i = 0; i < t->nrows; i++) {
		const Row *r = &t->rows[i];
		if (strcmp(r->family, family))
			continue;
		int m = k ? row_matches(r, k, args, nargs) : 1;
		if (m < 0) {
			free(all);
			return -1;
		}
		for (int j = 0; m && j < r->nvariants; j++) {
			int q;
			for (q = 0; q < n && strcmp(all[q], r->variants[j]); q++)
				;
			if (q == n)
				all[n++] = r->variants[j];
		}
	}
	for (int q = 0; q < n && q < max; q++)
		names[q] = all[q];
	free(all);
	return n;
}

int
flyrt_tuning_candidates(const flyrt_tuning *t, const char *family, const flyrt_kernel *k,
                        const flyrt_arg *args, int nargs, const char **names, int max)
{
	if (!t || !family || !k || (nargs && !args) || (max > 0 && !names)) {
		flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_candidates: NULL parameter");
		return -1;
	}
	return collect(t, family, k, args, nargs, names, max);
}

int
flyrt_tuning_variants(const flyrt_tuning *t, const char *family, const char **names, int max)
{
	if (!t || !family || (max > 0 && !names)) {
		flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_variants: NULL parameter");
		return -1;
	}
	return collect(t, family, NULL, NULL, 0, names, max);
}

flyrt_status
flyrt_launch_first(flyrt_kernel *const *kernels, int nkernels, const flyrt_launch_config *cfg,
                   const flyrt_arg *args, int nargs, flyrt_kernel **chosen)
{
	char why[1024] = "";
	size_t wl = 0;

	if (chosen)
		*chosen = NULL;
	if (!kernels && nkernels)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_launch_first: kernels is NULL");
	for (int i = 0; i < nkernels; i++) {
		if (!kernels[i])
			continue;
		flyrt_status st = flyrt_kernel_check(kernels[i], cfg, args, nargs, NULL);
		if (st == FLYRT_ERROR_UNSUPPORTED) {
			if (wl < sizeof why)
				wl += (size_t)snprintf(why + wl, sizeof why - wl, "%s%s", wl ? "; " : "",
				                       flyrt_last_error());
			continue;
		}
		if (st != FLYRT_SUCCESS)
			return st;
		if (chosen)
			*chosen = kernels[i];
		return flyrt_launch(kernels[i], cfg, args, nargs);
	}
	return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "no variant supports this call%s%s",
	                  wl ? ": " : "", why);
}

enum { MAX_CANDIDATES = 64 };

flyrt_status
flyrt_dispatch(const flyrt_module *mod, const flyrt_tuning *t, const char *family,
               const flyrt_launch_config *cfg, const flyrt_arg *args, int nargs,
               flyrt_kernel **chosen)
{
	const char *names[MAX_CANDIDATES];
	flyrt_kernel *ks[MAX_CANDIDATES], *rep = NULL;
	int n = 0, nk = 0;

	if (chosen)
		*chosen = NULL;
	if (!mod || !family)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_dispatch: NULL module or family");
	if (!t) {
		if (flyrt_module_get_kernel(mod, family, &rep) != FLYRT_SUCCESS)
			return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "no kernel '%s' in the module", family);
		return flyrt_launch_first(&rep, 1, cfg, args, nargs, chosen);
	}
	/* any variant present in the module names the arguments */
	n = flyrt_tuning_variants(t, family, names, MAX_CANDIDATES);
	for (int i = 0; i < n && i < MAX_CANDIDATES && !rep; i++)
		if (flyrt_module_get_kernel(mod, names[i], &rep) != FLYRT_SUCCESS)
			rep = NULL;
	if (!rep)
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "the module has no variant of '%s' listed "
		                  "in the tuning table", family);
	n = flyrt_tuning_candidates(t, family, rep, args, nargs, names, MAX_CANDIDATES);
	if (n < 0)
		return FLYRT_ERROR_INVALID_TUNING;
	if (n > MAX_CANDIDATES)
		n = MAX_CANDIDATES;
	for (int i = 0; i < n; i++)
		if (flyrt_module_get_kernel(mod, names[i], &ks[nk]) == FLYRT_SUCCESS)
			nk++;
	if (nk == 0)
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "no tuning table row for '%s' matches this "
		                  "call with a variant the module has", family);
	return flyrt_launch_first(ks, nk, cfg, args, nargs, chosen);
}
