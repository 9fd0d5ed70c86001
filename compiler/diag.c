/* diag.c — clang-style diagnostics; see diag.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"

typedef struct {
	char *name;
	char *text;
	size_t len;
	uint32_t *lines; /* byte offset of each line start */
	size_t nlines;
} SrcFile;

struct Diag {
	FILE *out;
	SrcFile *files;
	int nfiles, capfiles;
	bool color, werror, nowarn, stopped, last_dropped;
	DiagFormat fmt;
	int errors, warnings, limit;
};

Diag *
diag_new(FILE *out)
{
	Diag *d = calloc(1, sizeof *d);

	if (!d)
		ice("out of memory");
	d->out = out ? out : stderr;
	d->limit = 50;
	return d;
}

void
diag_free(Diag *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < d->nfiles; i++) {
		free(d->files[i].name);
		free(d->files[i].text);
		free(d->files[i].lines);
	}
	free(d->files);
	free(d);
}

int
diag_add_file(Diag *d, const char *name, const char *text, size_t len)
{
	SrcFile *f;
	size_t i, n = 1, k = 0;

	if (d->nfiles == d->capfiles) {
		d->capfiles = d->capfiles ? 2 * d->capfiles : 8;
		d->files = realloc(d->files, sizeof *d->files * (size_t)d->capfiles);
		if (!d->files)
			ice("out of memory");
	}
	f = &d->files[d->nfiles];
	f->name = strdup(name);
	f->text = malloc(len + 1);
	if (!f->name || !f->text)
		ice("out of memory");
	memcpy(f->text, text, len);
	f->text[len] = 0;
	f->len = len;
	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	f->lines = malloc(sizeof *f->lines * n);
	if (!f->lines)
		ice("out of memory");
	f->lines[k++] = 0;
	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			f->lines[k++] = (uint32_t)(i + 1);
	f->nlines = n;
	return d->nfiles++;
}

int diag_nfiles(const Diag *d) { return d->nfiles; }

const char *
diag_file_name(const Diag *d, int file)
{
	return file >= 0 && file < d->nfiles ? d->files[file].name : "<unknown>";
}

const char *
diag_file_text(const Diag *d, int file, size_t *len)
{
	if (file < 0 || file >= d->nfiles)
		return NULL;
	if (len)
		*len = d->files[file].len;
	return d->files[file].text;
}

static size_t
line_index(const SrcFile *f, uint32_t off)
{
	size_t lo = 0, hi = f->nlines;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void
diag_line_col(const Diag *d, int file, uint32_t off, int *line, int *col)
{
	const SrcFile *f;
	size_t li;

	*line = *col = 0;
	if (file < 0 || file >= d->nfiles)
		return;
	f = &d->files[file];
	if (off > f->len)
		off = (uint32_t)f->len;
	li = line_index(f, off);
	*line = (int)li + 1;
	*col = (int)(off - f->lines[li]) + 1;
}

void diag_set_color(Diag *d, bool on) { d->color = on; }
void diag_set_format(Diag *d, DiagFormat f) { d->fmt = f; }
void diag_set_werror(Diag *d, bool on) { d->werror = on; }
void diag_set_no_warnings(Diag *d, bool on) { d->nowarn = on; }
void diag_set_error_limit(Diag *d, int n) { d->limit = n; }
int diag_errors(const Diag *d) { return d->errors; }
int diag_warnings(const Diag *d) { return d->warnings; }
bool diag_stopped(const Diag *d) { return d->stopped; }

bool
diag_color_default(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && *nc)
		return false;
	return isatty(fileno(f)) != 0;
}

#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_MAG "\033[1;35m"
#define C_CYAN "\033[1;36m"
#define C_GREEN "\033[1;32m"
#define C_RESET "\033[0m"

/* Length of the well-formed UTF-8 sequence at p (2 to 4 bytes; no overlong forms or
 * surrogates, so any JSON reader decodes it), or 0. */
static int
utf8_strict(const unsigned char *p)
{
	int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : 0;
	unsigned cp;
	int i;

	if (p[0] >= 0xf5 || n == 0)
		return 0;
	cp = p[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* A JSON string: UTF-8 text as is, control characters escaped, and a byte that is not part of
 * well-formed UTF-8 (a file name in another encoding) as \u00XX, its Latin-1 reading. */
static void
json_str(FILE *o, const char *s)
{
	const unsigned char *p;
	int n;

	fputc('"', o);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(o, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", o);
		else if (*p >= 0x80 && (n = utf8_strict(p)) > 0) {
			fwrite(p, 1, (size_t)n, o);
			p += n - 1;
		} else if (*p < 0x20 || *p >= 0x7f)
			fprintf(o, "\\u%04x", *p);
		else
			fputc(*p, o);
	}
	fputc('"', o);
}

/* Length of a valid UTF-8 sequence at p (1..4), or 0 when invalid. */
static int
utf8_len(const unsigned char *p, const unsigned char *end)
{
	int n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (end - p < n)
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Prints the source line holding s.lo and a caret (plus ~ over the range). */
static void
show_source(Diag *d, Span s)
{
	const SrcFile *f = &d->files[s.file];
	const unsigned char *beg, *end, *p, *t = (const unsigned char *)f->text;
	size_t li = line_index(f, s.lo);
	uint32_t lo = s.lo > f->len ? (uint32_t)f->len : s.lo, hi = s.hi;
	int n;
	size_t shown = 0;

	beg = t + f->lines[li];
	end = li + 1 < f->nlines ? t + f->lines[li + 1] - 1 : t + f->len;
	if (end - beg > 4096)
		end = beg + 4096; /* absurdly long lines: show the head only */
	if (hi > (uint32_t)(end - t))
		hi = (uint32_t)(end - t);
	if (hi <= lo)
		hi = lo + 1;
	for (p = beg; p < end; p += n) {
		n = utf8_len(p, end);
		if (n == 0 || (n == 1 && *p < 0x20 && *p != '\t') || *p == 0x7f) {
			fputc('?', d->out);
			n = 1;
		} else if (*p == '\r' && p + 1 == end) {
			/* CRLF line ending */
		} else
			fwrite(p, 1, (size_t)n, d->out);
	}
	fputc('\n', d->out);
	for (p = beg; p < t + lo && p < end; p += n) {
		n = utf8_len(p, end);
		if (n == 0)
			n = 1;
		fputc(*p == '\t' ? '\t' : ' ', d->out);
	}
	if (d->color)
		fputs(C_GREEN, d->out);
	fputc('^', d->out);
	for (p = t + lo + 1; p < t + hi && p < end; p++, shown++)
		if ((*p & 0xc0) != 0x80)
			fputc('~', d->out);
	if (d->color)
		fputs(C_RESET, d->out);
	fputc('\n', d->out);
}

void
diag_vreport(Diag *d, DiagLevel lv, Span s, const char *fmt, va_list ap)
{
	static const char *names[] = {"error", "warning", "note"};
	static const char *colors[] = {C_RED, C_MAG, C_CYAN};
	char buf[1024];
	int line = 0, col = 0, eline = 0, ecol = 0;
	bool loc = s.file >= 0 && s.file < d->nfiles;

	if (lv == DIAG_NOTE) {
		if (d->last_dropped)
			return;
	} else {
		d->last_dropped = true;
		if (d->stopped)
			return;
		if (lv == DIAG_WARNING) {
			if (d->nowarn)
				return;
			if (d->werror)
				lv = DIAG_ERROR;
		}
		d->last_dropped = false;
	}
	vsnprintf(buf, sizeof buf, fmt, ap);
	if (loc) {
		diag_line_col(d, s.file, s.lo, &line, &col);
		diag_line_col(d, s.file, s.hi > s.lo ? s.hi : s.lo, &eline, &ecol);
	}
	if (lv == DIAG_ERROR)
		d->errors++;
	else if (lv == DIAG_WARNING)
		d->warnings++;
	if (d->fmt == DIAG_JSON) {
		fputs("{\"severity\":", d->out);
		json_str(d->out, names[lv]);
		if (loc) {
			fputs(",\"file\":", d->out);
			json_str(d->out, d->files[s.file].name);
			fprintf(d->out, ",\"line\":%d,\"column\":%d,\"end_line\":%d,\"end_column\":%d", line, col,
				eline, ecol);
		}
		fputs(",\"message\":", d->out);
		json_str(d->out, buf);
		fputs("}\n", d->out);
	} else {
		if (d->color)
			fputs(C_BOLD, d->out);
		if (loc)
			fprintf(d->out, "%s:%d:%d: ", d->files[s.file].name, line, col);
		else
			fputs("flyc: ", d->out);
		if (d->color)
			fputs(colors[lv], d->out);
		fprintf(d->out, "%s: ", names[lv]);
		if (d->color)
			fputs(C_RESET C_BOLD, d->out);
		fputs(buf, d->out);
		if (d->color)
			fputs(C_RESET, d->out);
		fputc('\n', d->out);
		if (loc)
			show_source(d, s);
	}
	if (lv == DIAG_ERROR && d->limit > 0 && d->errors >= d->limit && !d->stopped) {
		d->stopped = true;
		if (d->fmt == DIAG_JSON)
			fputs("{\"severity\":\"fatal\",\"message\":\"too many errors emitted, stopping now\"}\n", d->out);
		else
			fprintf(d->out, "%sflyc: %sfatal error: %stoo many errors emitted, stopping now%s\n",
				d->color ? C_BOLD : "", d->color ? C_RED : "", d->color ? C_RESET C_BOLD : "",
				d->color ? C_RESET : "");
		d->errors++;
	}
}

void
diag_error(Diag *d, Span s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_ERROR, s, fmt, ap);
	va_end(ap);
}

void
diag_warning(Diag *d, Span s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_WARNING, s, fmt, ap);
	va_end(ap);
}

void
diag_note(Diag *d, Span s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_NOTE, s, fmt, ap);
	va_end(ap);
}
