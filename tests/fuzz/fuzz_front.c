/*
 * fuzz_front.c — libFuzzer harness for the front end: lexer, parser, AST dump
 * and checker (imports resolve against FLY_FUZZ_STDLIB, the source tree's
 * stdlib/). Built and run by scripts/fuzz.sh; seed corpus in
 * tests/fuzz/corpus/front/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "sema.h"
#include "syntax.h"

#ifndef FLY_FUZZ_STDLIB
#define FLY_FUZZ_STDLIB "stdlib"
#endif

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Diag *d;
	Arena *a;
	int file;
	AstModule *m;
	static const SemaDefine defs[] = {{"BM", "64"}};
	SemaOptions o = {NULL, 0, FLY_FUZZ_STDLIB, defs, 1};

	if (size > (1u << 20))
		return 0;
	if (!sink)
		sink = fopen("/dev/null", "w");
	d = diag_new(sink);
	diag_set_color(d, size & 1);
	diag_set_format(d, size & 2 ? DIAG_JSON : DIAG_TEXT);
	a = arena_new();
	file = diag_add_file(d, "fuzz.fly", (const char *)data, size);
	m = parse_module(a, d, file, "fuzz");
	if (m && diag_errors(d) == 0) {
		SemaProgram *p = sema_check(a, d, m, &o);
		ast_dump(sink, d, m);
		if (diag_errors(d) == 0)
			sema_dump_instances(sink, d, p);
		sema_program_free(p);
	}
	arena_free(a);
	diag_free(d);
	return 0;
}
