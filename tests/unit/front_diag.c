/* front_diag.c — the diagnostic sink: positions, counting, -Werror/-w, notes, limits, JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diag.h"

/* Runs body against a sink writing to a memory stream; returns what was printed. */
static char *
capture(void (*body)(Diag *d, int file), const char *text, bool json, bool werror, bool nowarn, int *errors)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	Diag *d = diag_new(f);
	int file;

	diag_set_format(d, json ? DIAG_JSON : DIAG_TEXT);
	diag_set_werror(d, werror);
	diag_set_no_warnings(d, nowarn);
	file = diag_add_file(d, "t.fly", text, strlen(text));
	body(d, file);
	*errors = diag_errors(d);
	diag_free(d);
	fclose(f);
	return buf;
}

static void
test_line_col(void **state)
{
	Diag *d = diag_new(stderr);
	const char *t = "ab\ncd\n\nxyz";
	int f = diag_add_file(d, "t.fly", t, strlen(t)), l, c;

	(void)state;
	diag_line_col(d, f, 0, &l, &c);
	assert_int_equal(l, 1); assert_int_equal(c, 1);
	diag_line_col(d, f, 4, &l, &c); /* 'd' */
	assert_int_equal(l, 2); assert_int_equal(c, 2);
	diag_line_col(d, f, 6, &l, &c); /* the empty line */
	assert_int_equal(l, 3); assert_int_equal(c, 1);
	diag_line_col(d, f, 9, &l, &c); /* 'z' */
	assert_int_equal(l, 4); assert_int_equal(c, 3);
	diag_line_col(d, f, 1000, &l, &c); /* past the end: clamped to the end */
	assert_int_equal(l, 4); assert_int_equal(c, 4);
	diag_free(d);
}

static void
body_caret(Diag *d, int f)
{
	diag_error(d, (Span){f, 7, 10}, "bad %s", "thing");
}

static void
test_caret_and_range(void **state)
{
	int e;
	char *out = capture(body_caret, "let a = foo + 1;\n", false, false, false, &e);

	(void)state;
	assert_int_equal(e, 1);
	assert_string_equal(out, "t.fly:1:8: error: bad thing\nlet a = foo + 1;\n       ^~~\n");
	free(out);
}

static void
body_warn_note(Diag *d, int f)
{
	diag_warning(d, (Span){f, 0, 1}, "w");
	diag_note(d, (Span){f, 2, 3}, "n");
}

static void
test_werror_and_w(void **state)
{
	int e;
	char *out = capture(body_warn_note, "xyz\n", false, true, false, &e);

	(void)state;
	assert_int_equal(e, 1); /* -Werror: the warning counts as an error */
	assert_non_null(strstr(out, "t.fly:1:1: error: w\n"));
	assert_non_null(strstr(out, "t.fly:1:3: note: n\n"));
	free(out);
	out = capture(body_warn_note, "xyz\n", false, false, true, &e);
	assert_int_equal(e, 0);
	assert_string_equal(out, ""); /* -w drops the warning and its note */
	free(out);
}

static void
body_many(Diag *d, int f)
{
	int i;

	for (i = 0; i < 80; i++)
		diag_error(d, (Span){f, 0, 1}, "e%d", i);
	assert_true(diag_stopped(d));
}

static void
test_error_limit(void **state)
{
	int e;
	char *out = capture(body_many, "x\n", false, false, false, &e);

	(void)state;
	assert_non_null(strstr(out, "e49\n"));
	assert_null(strstr(out, "e50\n"));
	assert_non_null(strstr(out, "too many errors emitted, stopping now"));
	assert_true(e >= 50);
	free(out);
}

static void
body_json(Diag *d, int f)
{
	diag_error(d, (Span){f, 1, 2}, "quote \" and backslash \\ and \x01");
	diag_error(d, SPAN_NONE, "no location");
}

static void
test_json(void **state)
{
	int e;
	char *out = capture(body_json, "a\"b\n", true, false, false, &e);

	(void)state;
	assert_string_equal(out,
		"{\"severity\":\"error\",\"file\":\"t.fly\",\"line\":1,\"column\":2,\"end_line\":1,\"end_column\":3,"
		"\"message\":\"quote \\\" and backslash \\\\ and \\u0001\"}\n"
		"{\"severity\":\"error\",\"message\":\"no location\"}\n");
	free(out);
}

static void
test_invalid_bytes_shown_safely(void **state)
{
	/* a NUL, an invalid byte and a valid 2-byte UTF-8 sequence before the caret */
	const char text[] = {'a', 0, (char)0xff, (char)0xc3, (char)0xa9, 'x', '\n', 0};
	char *buf = NULL;
	size_t len = 0;
	FILE *fo = open_memstream(&buf, &len);
	Diag *d = diag_new(fo);
	int f = diag_add_file(d, "t.fly", text, 7);

	(void)state;
	diag_error(d, (Span){f, 5, 6}, "here");
	diag_free(d);
	fclose(fo);
	/* NUL and 0xff print as '?', the é stays, and the caret sits under 'x' (4 columns in) */
	assert_string_equal(buf, "t.fly:1:6: error: here\na??\xc3\xa9x\n    ^\n");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_col),
		cmocka_unit_test(test_caret_and_range),
		cmocka_unit_test(test_werror_and_w),
		cmocka_unit_test(test_error_limit),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_invalid_bytes_shown_safely),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
