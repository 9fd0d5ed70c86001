/* lex.re — the .fly lexer (re2c). Token numbers come from Bison (parse.h). */
#include <stdlib.h>
#include <string.h>

#include "syntax.h"
#include "parse.h"

void
lex_init(Lexer *lx, Arena *a, Diag *d, int file)
{
	size_t len = 0;
	const char *t = diag_file_text(d, file, &len);

	memset(lx, 0, sizeof *lx);
	lx->src = (const unsigned char *)t;
	lx->cur = lx->src;
	lx->lim = lx->src + len; /* *lim == 0: the sentinel */
	lx->file = file;
	lx->d = d;
	lx->a = a;
}

static Span
span(Lexer *lx, const unsigned char *b, const unsigned char *e)
{
	return (Span){lx->file, (uint32_t)(b - lx->src), (uint32_t)(e - lx->src)};
}

/* Length of a valid UTF-8 sequence at p, or 0. */
static int
u8len(const unsigned char *p, const unsigned char *lim)
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
	if (lim - p < n)
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && p[0] == 0xe0 && p[1] < 0xa0)
		return 0; /* overlong */
	if (n == 3 && p[0] == 0xed && p[1] >= 0xa0)
		return 0; /* surrogate */
	if (n == 4 && p[0] == 0xf0 && p[1] < 0x90)
		return 0;
	if (n == 4 && p[0] == 0xf4 && p[1] >= 0x90)
		return 0;
	return n;
}

/* Checks p[0..n) for NULs and invalid UTF-8; one error per bad run. */
static void
check_text(Lexer *lx, const unsigned char *p, const unsigned char *e, const char *where)
{
	int n;

	while (p < e) {
		if (*p == 0) {
			diag_error(lx->d, span(lx, p, p + 1), "null character in %s", where);
			p++;
			continue;
		}
		n = u8len(p, e);
		if (n == 0) {
			diag_error(lx->d, span(lx, p, p + 1), "invalid UTF-8 byte 0x%02x in %s", *p, where);
			while (p < e && *p >= 0x80 && u8len(p, e) == 0)
				p++;
			continue;
		}
		p += n;
	}
}

/* Block comment body after the opening slash-star; returns false when unterminated. */
static bool
skip_block_comment(Lexer *lx)
{
	const unsigned char *p = lx->cur;

	while (p + 1 < lx->lim && !(p[0] == '*' && p[1] == '/'))
		p++;
	if (p + 1 >= lx->lim) {
		check_text(lx, lx->cur, lx->lim, "comment");
		lx->cur = lx->lim;
		return false;
	}
	check_text(lx, lx->cur, p, "comment");
	lx->cur = p + 2;
	return true;
}

static int
string_token(Lexer *lx, YYSTYPE *val)
{
	const unsigned char *p = lx->tok + 1, *e = lx->cur - 1; /* between the quotes */
	char *out = arena_alloc(lx->a, (size_t)(e - p) + 1), *q = out;

	check_text(lx, p, e, "string literal");
	while (p < e) {
		if (*p != '\\') {
			*q++ = (char)*p++;
			continue;
		}
		p++;
		switch (*p) {
		case 'n': *q++ = '\n'; p++; break;
		case 't': *q++ = '\t'; p++; break;
		case '0': *q++ = 0; p++; break;
		case '\\': *q++ = '\\'; p++; break;
		case '"': *q++ = '"'; p++; break;
		default:
			diag_error(lx->d, span(lx, p - 1, p + 1), "unknown escape sequence '\\%c'",
				*p >= 0x20 && *p < 0x7f ? *p : '?');
			p++;
		}
	}
	val->str.s = out;
	val->str.len = (size_t)(q - out);
	return STRING;
}

static int
int_token(Lexer *lx, YYSTYPE *val, int base)
{
	const unsigned char *p = lx->tok;
	uint64_t v = 0, lim = (uint64_t)INT64_MAX;
	bool over = false;

	if (base != 10)
		p += 2;
	for (; p < lx->cur; p++) {
		unsigned dg = *p <= '9' ? (unsigned)(*p - '0') : (unsigned)((*p | 0x20) - 'a' + 10);
		if (v > (lim - dg) / (uint64_t)base)
			over = true;
		else
			v = v * (uint64_t)base + dg;
	}
	if (over)
		diag_error(lx->d, span(lx, lx->tok, lx->cur), "integer literal is too large");
	val->ival = over ? 0 : (int64_t)v;
	return INT;
}

static int
keyword_or_ident(Lexer *lx, YYSTYPE *val)
{
	static const struct { const char *s; int tok; } kw[] = {
		{"as", AS}, {"assume", ASSUME}, {"atom", ATOM}, {"const", CONST}, {"convert", CONVERT},
		{"else", ELSE}, {"export", EXPORT}, {"false", FALSE}, {"fn", FN}, {"for", FOR}, {"global", GLOBAL},
		{"groups", GROUPS}, {"if", IF}, {"import", IMPORT}, {"in", IN}, {"kernel", KERNEL},
		{"lds", LDS}, {"let", LET}, {"o", COMPOSE}, {"pipeline", PIPELINE}, {"reg", REG},
		{"requires", REQUIRES}, {"return", RETURN}, {"stages", STAGES}, {"static", STATIC},
		{"step", STEP}, {"true", TRUE}, {"var", VAR}, {"waves", WAVES}, {"while", WHILE},
	};
	size_t n = (size_t)(lx->cur - lx->tok), i;

	for (i = 0; i < sizeof kw / sizeof kw[0]; i++)
		if (strlen(kw[i].s) == n && !memcmp(kw[i].s, lx->tok, n))
			return kw[i].tok;
	val->id = arena_strndup(lx->a, (const char *)lx->tok, n);
	return IDENT;
}

static int
open_bracket(Lexer *lx, int tok)
{
	if (++lx->depth > PARSE_MAX_NESTING) {
		diag_error(lx->d, span(lx, lx->tok, lx->cur),
			"brackets nested too deeply (the limit is %d)", PARSE_MAX_NESTING);
		lx->stop = true;
		return 0;
	}
	return tok;
}

static int
close_bracket(Lexer *lx, int tok)
{
	if (lx->depth > 0)
		lx->depth--;
	return tok;
}

int
lex_token(Lexer *lx, YYSTYPE *val, Span *loc)
{
	int t;

	for (;;) {
		if (lx->stop) {
			*loc = span(lx, lx->lim, lx->lim);
			return 0;
		}
		lx->tok = lx->cur;
		t = -1;
/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:define:YYCURSOR = "lx->cur";
	re2c:define:YYMARKER = "lx->mark";
	re2c:yyfill:enable = 0;
	re2c:indent:top = 2;

	id  = [a-zA-Z_][a-zA-Z0-9_]*;
	dec = [0-9]+;
	exp = [eE] [+-]? [0-9]+;

	"\x00" {
		if (lx->tok >= lx->lim) {
			lx->cur = lx->lim;
			*loc = span(lx, lx->lim, lx->lim);
			return 0;
		}
		diag_error(lx->d, span(lx, lx->tok, lx->cur), "null character in source");
		continue;
	}
	[ \t\r\n\v\f]+ { continue; }
	"//" [^\n\x00]* { check_text(lx, lx->tok + 2, lx->cur, "comment"); continue; }
	"/*" {
		if (!skip_block_comment(lx))
			diag_error(lx->d, span(lx, lx->tok, lx->tok + 2), "unterminated /* comment");
		continue;
	}
	"\"" ([^"\\\n\x00] | "\\" [^\n\x00])* "\"" { t = string_token(lx, val); break; }
	"\"" ([^"\\\n\x00] | "\\" [^\n\x00])* "\\"? {
		diag_error(lx->d, span(lx, lx->tok, lx->tok + 1), "unterminated string literal");
		val->str.s = "";
		val->str.len = 0;
		t = STRING;
		break;
	}
	"0x" [0-9a-fA-F]+ { t = int_token(lx, val, 16); break; }
	"0b" [01]+ { t = int_token(lx, val, 2); break; }
	dec { t = int_token(lx, val, 10); break; }
	dec "." dec exp? | dec exp {
		char buf[128];
		size_t n = (size_t)(lx->cur - lx->tok);
		if (n >= sizeof buf) {
			diag_error(lx->d, span(lx, lx->tok, lx->cur), "floating literal is too long");
			n = 1;
		}
		memcpy(buf, lx->tok, n);
		buf[n] = 0;
		val->fval.v = strtod(buf, NULL);
		val->fval.text = arena_strndup(lx->a, (const char *)lx->tok, n);
		t = FLOAT;
		break;
	}
	"_" { t = HOLE; break; }
	id { t = keyword_or_ident(lx, val); break; }
	"(" { t = open_bracket(lx, '('); break; }
	"[" { t = open_bracket(lx, '['); break; }
	"{" { t = open_bracket(lx, '{'); break; }
	")" { t = close_bracket(lx, ')'); break; }
	"]" { t = close_bracket(lx, ']'); break; }
	"}" { t = close_bracket(lx, '}'); break; }
	".." { t = DOTDOT; break; }
	"=>" { t = ARROW; break; }
	"->" { t = RARROW; break; }
	"==" { t = EQ; break; }
	"!=" { t = NE; break; }
	"<=" { t = LE; break; }
	">=" { t = GE; break; }
	"&&" { t = ANDAND; break; }
	"||" { t = OROR; break; }
	"<<" { t = SHL; break; }
	">>" { t = SHR; break; }
	"+=" { t = ADDEQ; break; }
	"-=" { t = SUBEQ; break; }
	"*=" { t = MULEQ; break; }
	"/=" { t = DIVEQ; break; }
	"%=" { t = MODEQ; break; }
	[-+*/%<>=!~&|^:;,.] { t = lx->tok[0]; break; }
	[\x80-\xff] {
		int n = u8len(lx->tok, lx->lim);
		if (n == 0) {
			diag_error(lx->d, span(lx, lx->tok, lx->cur), "invalid UTF-8 byte 0x%02x", lx->tok[0]);
		} else {
			lx->cur = lx->tok + n;
			diag_error(lx->d, span(lx, lx->tok, lx->cur),
				"non-ASCII character outside a comment or string");
		}
		continue;
	}
	* {
		if (lx->tok[0] >= 0x20 && lx->tok[0] < 0x7f)
			diag_error(lx->d, span(lx, lx->tok, lx->cur), "unexpected character '%c'", lx->tok[0]);
		else
			diag_error(lx->d, span(lx, lx->tok, lx->cur), "unexpected control character 0x%02x",
				lx->tok[0]);
		continue;
	}
*/
	}
	*loc = span(lx, lx->tok, lx->cur);
	return t;
}
