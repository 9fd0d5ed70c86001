/*
 * diag.h — clang-style diagnostics.
 *
 * A Diag is a sink: it owns the text of every source file of one compilation
 * (so spans can be shown with their source line), counts errors and warnings,
 * and prints each diagnostic as it arrives:
 *
 *     k.fly:3:9: error: unknown name 'Bm'
 *         let x = Bm * 2;
 *                 ^~
 *     k.fly:1:15: note: did you mean 'BM'? declared here
 *
 * A Span is a half-open byte range [lo, hi) in one file; line and column
 * (1-based, columns count bytes) are computed when printing. Library code
 * never exits: callers ask diag_errors() and main() picks the exit status.
 *
 * Output formats: text (colors only when enabled: diag_set_color, by default
 * on when stderr is a terminal and NO_COLOR is unset) or JSON Lines (one
 * object per diagnostic, notes included, see docs/cli.md).
 */
#ifndef FLYC_DIAG_H
#define FLYC_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A source range: file id from diag_add_file (-1: no location), bytes [lo, hi). */
typedef struct Span {
	int32_t file;
	uint32_t lo, hi;
} Span;

#define SPAN_NONE ((Span){-1, 0, 0})

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;
typedef enum { DIAG_TEXT, DIAG_JSON } DiagFormat;

typedef struct Diag Diag;

Diag *diag_new(FILE *out);
void  diag_free(Diag *d);

/* Registers a file; the Diag copies name and text (text may hold NULs). */
int   diag_add_file(Diag *d, const char *name, const char *text, size_t len);
const char *diag_file_name(const Diag *d, int file);
const char *diag_file_text(const Diag *d, int file, size_t *len);
int   diag_nfiles(const Diag *d);
/* 1-based line and byte column of offset off in file. */
void  diag_line_col(const Diag *d, int file, uint32_t off, int *line, int *col);

void  diag_set_color(Diag *d, bool on);
void  diag_set_format(Diag *d, DiagFormat f);
void  diag_set_werror(Diag *d, bool on);      /* warnings become errors */
void  diag_set_no_warnings(Diag *d, bool on); /* -w: warnings are dropped */
void  diag_set_error_limit(Diag *d, int n);   /* 0: unlimited; default 50 */

void  diag_error(Diag *d, Span s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void  diag_warning(Diag *d, Span s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note belongs to the error or warning before it (dropped if that was dropped). */
void  diag_note(Diag *d, Span s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void  diag_vreport(Diag *d, DiagLevel lv, Span s, const char *fmt, va_list ap);

int   diag_errors(const Diag *d);
int   diag_warnings(const Diag *d);
/* True once the error limit was reached: callers should stop early. */
bool  diag_stopped(const Diag *d);

/* Whether colors are wanted by default for stream f (a tty and NO_COLOR unset). */
bool  diag_color_default(FILE *f);

#endif
