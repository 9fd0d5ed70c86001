/*
 * syntax.h — the lexer and parser of .fly modules (lex.re, parse.y).
 *
 * parse_module() turns the text of one registered Diag file into an AstModule.
 * Syntax errors are reported to the Diag (several per run: the grammar
 * recovers at ';' and '}'); the result is NULL only when nothing usable was
 * parsed, so callers always check diag_errors() as well.
 *
 * Limits that keep hostile inputs harmless: brackets nest at most
 * PARSE_MAX_NESTING deep and the parser stack is bounded; beyond that a
 * located error stops the parse (never a stack overflow).
 */
#ifndef FLYC_SYNTAX_H
#define FLYC_SYNTAX_H

#include "arena.h"
#include "ast.h"
#include "diag.h"

#define PARSE_MAX_NESTING 256
#define PARSE_MAX_EXPR_DEPTH 1000

typedef struct Lexer {
	const unsigned char *src, *cur, *lim, *tok, *mark;
	int file;
	Diag *d;
	Arena *a;
	int depth;     /* open brackets */
	bool stop;     /* a fatal lexical condition: return end of input */
} Lexer;

union YYSTYPE;

/* Next token (a Bison token number, 0 at end of input); *loc gets its span. */
int lex_token(Lexer *lx, union YYSTYPE *val, Span *loc);
void lex_init(Lexer *lx, Arena *a, Diag *d, int file);

AstModule *parse_module(Arena *a, Diag *d, int file, const char *modname);

#endif
