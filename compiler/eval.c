/*
 * eval.c — `flyc eval` and `flyc show`: evaluate layout-algebra expressions
 * (compiler/layout/lay_read.c) and print or draw the results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "layout/lay.h"
#include "layout/lay_show.h"
#include "fileio.h"
#include "target/target.h"


static void
eval_usage(FILE *f)
{
	fprintf(f,
"USAGE: flyc eval 'EXPR' ['EXPR' ...]\n"
"       flyc eval < FILE            (one expression per line; '#' starts a comment)\n"
"\n"
"Evaluates layout-algebra expressions and prints one result per line, in CuTe\n"
"notation: flyc eval 'composition((6,2):(8,2), (4,3):(3,1))' prints\n"
"((2,2),3):((24,2),8).  'let NAME = EXPR' binds a name; 'assume K %% 64 == 0'\n"
"declares a run-time value.  A failing expression prints 'error: ...' and the\n"
"exit status is 1.  See docs/layout-algebra.md.\n");
}

/* Evaluate one line; prints its result or error. Returns 0 on success. */
static int
eval_line(lay_reader *r, lay_ctx *c, const char *line, int quiet_let)
{
	const lay_val *v;
	int is_let;
	size_t n;
	const char *p = line;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	lay_clear_error(c);
	v = lay_read_eval(r, p, &is_let);
	if (!v) {
		printf("error: %s\n", c->failed ? c->err : "evaluation failed");
		return 1;
	}
	if (is_let && quiet_let)
		return 0;
	n = lay_print(v, NULL, 0);
	{
		char *buf = malloc(n + 1);
		if (!buf) {
			printf("error: out of memory\n");
			return 1;
		}
		lay_print(v, buf, n + 1);
		printf("%s\n", buf);
		free(buf);
	}
	return 0;
}

int
drv_eval_main(int argc, char **argv)
{
	lay_arena *a;
	lay_ctx c;
	lay_reader *r;
	int i, bad = 0, nexpr = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			eval_usage(stdout);
			return 0;
		}
	}
	a = lay_arena_new();
	if (!a) {
		fprintf(stderr, "flyc: error: out of memory\n");
		return 1;
	}
	lay_ctx_init(&c, a);
	r = lay_reader_new(&c);
	if (!r) {
		lay_arena_free(a);
		fprintf(stderr, "flyc: error: out of memory\n");
		return 1;
	}
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-"))
			continue;
		nexpr++;
		bad |= eval_line(r, &c, argv[i], 1);
	}
	if (nexpr == 0) {
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		while ((len = getline(&line, &cap, stdin)) >= 0) {
			while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
				line[--len] = 0;
			bad |= eval_line(r, &c, line, 1);
		}
		free(line);
	}
	fflush(stdout);
	lay_arena_free(a);
	return bad ? 1 : 0;
}

/* ------------------------------------------------------------- show --- */

static void
show_usage(FILE *f)
{
	fprintf(f,
"USAGE: flyc show [options] 'EXPR'\n"
"\n"
"Draws a rank-1 or rank-2 layout as a grid of offsets, or the result of\n"
"make_layout_tv(THR, VAL) as a grid of T#V# labels.\n"
"\n"
"OPTIONS:\n"
"  --svg FILE             also write an SVG picture (threads colored)\n"
"  --banks=ELEMENT_BYTES  show the LDS bank of every element and count bank\n"
"                         conflicts per access phase\n"
"  --arch=gfx950|gfx1201  bank model for --banks (default gfx950)\n"
"  --vec=BYTES            bytes each lane loads for --banks: 4, 8, 16 (default 16)\n"
"\n"
"flyc show --banks FILE.fly [options] analyses the LDS accesses of the\n"
"kernels of FILE as compiled (flyc show --banks FILE.fly --help).\n");
}

static int
write_svg(lay_ctx *c, const char *path, const lay_val *l, const lay_val *mn)
{
	char err[512];
	FioOut o;
	int rc;

	if (fio_open(&o, path, err, sizeof err)) {
		fprintf(stderr, "flyc: error: %s\n", err);
		return 1;
	}
	rc = lay_show_svg(c, l, mn, o.f);
	if (rc) {
		fio_abort(&o);
		fprintf(stderr, "flyc: error: %s\n", c->failed ? c->err : "cannot draw the layout");
		return 1;
	}
	if (fio_commit(&o, err, sizeof err)) {
		fprintf(stderr, "flyc: error: %s\n", err);
		return 1;
	}
	return 0;
}

int
drv_show_main(int argc, char **argv)
{
	const char *expr = NULL, *svg = NULL, *arch = tgt_default()->name;
	int banks = 0, vec = 16, i, rc = 0, is_let;
	lay_arena *a;
	lay_ctx c;
	lay_reader *r;
	const lay_val *v, *tv = NULL, *mn = NULL;
	const lay_arch_banks *ab;
	lay_arch_banks bank_model;
	const TgtDesc *tgt;

	/* flyc show --banks FILE.fly: the LDS accesses of a compiled kernel */
	for (i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]);
		if (!strcmp(argv[i], "--banks") || (argv[i][0] != '-' && len > 4 && !strcmp(argv[i] + len - 4, ".fly")))
			return drv_show_banks_main(argc, argv);
	}
	for (i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			show_usage(stdout);
			return 0;
		} else if (!strcmp(s, "--svg") && i + 1 < argc) {
			svg = argv[++i];
		} else if (!strncmp(s, "--svg=", 6)) {
			svg = s + 6;
		} else if (!strncmp(s, "--banks=", 8)) {
			banks = atoi(s + 8);
			if (banks <= 0 || banks > 16) {
				fprintf(stderr, "flyc: error: --banks needs the element size in bytes (1 to 16)\n");
				return 1;
			}
		} else if (!strncmp(s, "--arch=", 7)) {
			arch = s + 7;
		} else if (!strncmp(s, "--vec=", 6)) {
			vec = atoi(s + 6);
		} else if (s[0] == '-' && s[1] == '-') {
			fprintf(stderr, "flyc: error: unknown option '%s' (see flyc show --help)\n", s);
			return 1;
		} else if (!expr) {
			expr = s;
		} else {
			fprintf(stderr, "flyc: error: flyc show takes one expression\n");
			return 1;
		}
	}
	if (!expr) {
		show_usage(stderr);
		return 1;
	}
	if (!(tgt = tgt_find(arch)) || strchr(arch, ':')) {
		fprintf(stderr, "flyc: error: unknown architecture '%s' (%s)\n", arch, tgt_names());
		return 1;
	}
	bank_model = tgt_lds_banks(tgt);
	ab = &bank_model;
	a = lay_arena_new();
	if (!a)
		return 1;
	lay_ctx_init(&c, a);
	r = lay_reader_new(&c);
	v = r ? lay_read_eval(r, expr, &is_let) : NULL;
	if (v && v->kind == LAY_TUPLE && v->u.t.n == 2 && v->u.t.e[1]->kind == LAY_LAYOUT && lay_is_inttuple(v->u.t.e[0])) {
		mn = v->u.t.e[0];    /* (tiler_mn, layout_tv) from make_layout_tv */
		tv = v->u.t.e[1];
	}
	if (!v) {
		rc = 1;
	} else if (banks) {
		rc = lay_show_banks(&c, v, banks, vec, ab, stdout) != 0;
	} else if (tv) {
		rc = lay_show_tv(&c, tv, mn, stdout) != 0;
	} else {
		rc = lay_show_grid(&c, v, stdout) != 0;
	}
	if (!rc && svg)
		rc = write_svg(&c, svg, tv ? tv : v, mn);
	if (rc && c.failed)
		fprintf(stderr, "flyc: error: %s\n", c.err);
	fflush(stdout);
	lay_arena_free(a);
	return rc;
}
