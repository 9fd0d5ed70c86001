/*
 * eval.c — `flyc eval` and `flyc show`: evaluate layout-algebra expressions
 * (compiler/layout/lay_read.c) and print or draw the results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "layout/lay.h"


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
