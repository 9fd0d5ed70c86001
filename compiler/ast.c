/* ast.c — AST construction helpers, the expression printer and the --emit=ast dump. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "sema.h"

const char *const ast_kind_names[AST_NKINDS] = {
#define X(k, s, m) s,
	AST_KINDS(X)
#undef X
};

const char *const ast_op_names[AST_NOPS] = {
#define X(k, s, p) s,
	AST_OPS(X)
#undef X
};

static const int op_prec[AST_NOPS] = {
#define X(k, s, p) p,
	AST_OPS(X)
#undef X
};

/* Bytes of a node of each kind: the common fields and its own union member only (the column of
 * AST_KINDS), so a name or an integer takes 56 or 48 bytes instead of the 136 of the largest
 * member (a kernel); a module of many small kernels needs half the memory. A node's kind
 * therefore never changes after ast_new, and copies use ast_node_size, never *dst = *src. */
#define none ival /* kinds without a member get the smallest one */
static const unsigned short node_bytes[AST_NKINDS] = {
#define X(k, s, m) (unsigned short)(offsetof(Node, u) + sizeof(((Node *)0)->u.m)),
	AST_KINDS(X)
#undef X
};
#undef none

size_t
ast_node_size(NodeKind k)
{
	return (unsigned)k < AST_NKINDS ? node_bytes[k] : sizeof(Node);
}

Node *
ast_new(Arena *a, NodeKind k, Span s)
{
	Node *n = arena_alloc(a, ast_node_size(k));

	n->kind = k;
	n->span = s;
	return n;
}

void
ast_push(Arena *a, NodeList *l, Node *n)
{
	l->v = arena_grow(a, l->v, l->n, sizeof *l->v);
	l->v[l->n++] = n;
}

void
ast_push_param(Arena *a, ParamList *l, Param *p)
{
	l->v = arena_grow(a, l->v, l->n, sizeof *l->v);
	l->v[l->n++] = p;
}

Span
ast_join(Span a, Span b)
{
	if (a.file < 0)
		return b;
	if (b.file != a.file)
		return a;
	return (Span){a.file, a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

/* ---- expression printer (source syntax, fully parenthesized where needed) ---- */

static int
prec_of(const Node *e)
{
	switch (e->kind) {
	case E_COMPOSE: return -2;
	case E_LAYOUT: return -1;
	case E_BINARY: return op_prec[e->u.binary.op];
	default: return 100;
	}
}

static void print_expr(FILE *o, const Node *e, int depth);

static void
print_list(FILE *o, const NodeList *l, int depth)
{
	int i;

	for (i = 0; i < l->n; i++) {
		if (i)
			fputs(", ", o);
		print_expr(o, l->v[i], depth + 1);
	}
}

static void
print_sub(FILE *o, const Node *e, int min_prec, int depth)
{
	if (prec_of(e) < min_prec) {
		fputc('(', o);
		print_expr(o, e, depth + 1);
		fputc(')', o);
	} else
		print_expr(o, e, depth + 1);
}

static void
print_type(FILE *o, const TypeExpr *t, int depth)
{
	static const char *sp[] = {"global", "lds", "reg"};

	if (!t) {
		fputs("?", o);
		return;
	}
	if (t->tensor) {
		fprintf(o, "%s %s[", sp[t->space], t->name);
		print_expr(o, t->layout, depth + 1);
		fputc(']', o);
	} else if (!t->name) {
		fputc('(', o);
		for (int i = 0; i < t->nelems; i++) {
			if (i)
				fputs(", ", o);
			print_type(o, t->elems[i], depth + 1);
		}
		fputc(')', o);
	} else
		fputs(t->name, o);
}

static void
print_str(FILE *o, const char *s, size_t n)
{
	size_t i;

	fputc('"', o);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", o);
		else if (c == '\t')
			fputs("\\t", o);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(o, "\\x%02x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void
print_expr(FILE *o, const Node *e, int depth)
{
	int i, p;

	if (!e) {
		fputs("<error>", o);
		return;
	}
	if (depth > 200) {
		fputs("...", o);
		return;
	}
	switch (e->kind) {
	case E_INT: fprintf(o, "%lld", (long long)e->u.ival); break;
	case E_FLOAT: fputs(e->u.fval.text, o); break;
	case E_BOOL: fputs(e->u.ival ? "true" : "false", o); break;
	case E_STR: print_str(o, e->u.str.s, e->u.str.len); break;
	case E_NAME: fputs(e->u.name.id, o); break;
	case E_HOLE: fputc('_', o); break;
	case E_TUPLE:
		fputc('(', o);
		print_list(o, &e->u.list, depth);
		if (e->u.list.n == 1)
			fputc(',', o);
		fputc(')', o);
		break;
	case E_TILER:
		fputc('[', o);
		print_list(o, &e->u.list, depth);
		fputc(']', o);
		break;
	case E_UNARY:
		fputs(ast_op_names[e->u.unary.op], o);
		print_sub(o, e->u.unary.x, 100, depth);
		break;
	case E_BINARY:
		p = op_prec[e->u.binary.op];
		print_sub(o, e->u.binary.l, p, depth);
		fprintf(o, " %s ", ast_op_names[e->u.binary.op]);
		print_sub(o, e->u.binary.r, p + 1, depth);
		break;
	case E_LAYOUT:
		print_sub(o, e->u.binary.l, 0, depth);
		fputc(':', o);
		print_sub(o, e->u.binary.r, 0, depth);
		break;
	case E_COMPOSE:
		print_sub(o, e->u.binary.l, -1, depth);
		fputs(" o ", o);
		print_sub(o, e->u.binary.r, -2, depth);
		break;
	case E_CALL:
	case E_INDEX:
		print_sub(o, e->u.call.callee, 100, depth);
		fputc(e->kind == E_CALL ? '(' : '[', o);
		print_list(o, &e->u.call.args, depth);
		for (i = 0; i < e->u.call.named.n; i++) {
			const Param *a = e->u.call.named.v[i];
			if (i || e->u.call.args.n)
				fputs(", ", o);
			fprintf(o, "%s=", a->name);
			print_expr(o, a->value, depth + 1);
		}
		fputc(e->kind == E_CALL ? ')' : ']', o);
		break;
	case E_MEMBER:
		print_sub(o, e->u.member.base, 100, depth);
		fprintf(o, ".%s", e->u.member.id);
		break;
	case E_CONVERT:
		fputs("convert<", o);
		print_type(o, e->u.convert.to, depth);
		fputs(">(", o);
		print_expr(o, e->u.convert.x, depth + 1);
		fputc(')', o);
		break;
	default:
		fprintf(o, "<%s>", ast_kind_names[e->kind]);
	}
}

void
ast_print_expr(FILE *out, const Node *e)
{
	print_expr(out, e, 0);
}

char *
ast_expr_str(Arena *a, const Node *e)
{
	char *buf = NULL, *r;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		ice("open_memstream failed");
	print_expr(f, e, 0);
	fclose(f);
	r = arena_strndup(a, buf, len);
	free(buf);
	return r;
}

/* ---- dump ---- */

typedef struct {
	FILE *o;
	const Diag *d;
} Dump;

static void
loc(Dump *D, Span s)
{
	int l, c;

	diag_line_col(D->d, s.file, s.lo, &l, &c);
	fprintf(D->o, " @%d:%d", l, c);
}

static void
ind(Dump *D, int n)
{
	fprintf(D->o, "%*s", 2 * n, "");
}

static void dump_stmt(Dump *D, const Node *s, int lev);

static void
dump_expr_line(Dump *D, const char *label, const Node *e, int lev)
{
	ind(D, lev);
	fprintf(D->o, "%s ", label);
	print_expr(D->o, e, 0);
	if (e)
		loc(D, e->span);
	fputc('\n', D->o);
}

static void
dump_params(Dump *D, const char *label, const ParamList *l, int lev)
{
	int i;

	for (i = 0; i < l->n; i++) {
		const Param *p = l->v[i];
		ind(D, lev);
		fprintf(D->o, "%s %s", label, p->name);
		if (p->type) {
			fputs(": ", D->o);
			print_type(D->o, p->type, 0);
		}
		if (p->value) {
			fputs(" = ", D->o);
			print_expr(D->o, p->value, 0);
		}
		loc(D, p->span);
		fputc('\n', D->o);
	}
}

static void
dump_block(Dump *D, const char *label, const Node *b, int lev)
{
	int i;

	ind(D, lev);
	fputs(label, D->o);
	if (b)
		loc(D, b->span);
	fputc('\n', D->o);
	if (!b)
		return;
	for (i = 0; i < b->u.block.n; i++)
		dump_stmt(D, b->u.block.v[i], lev + 1);
}

static void
dump_stmt(Dump *D, const Node *s, int lev)
{
	static const char *sp[] = {"global", "lds", "reg"};
	int i;

	if (lev > 400) {
		ind(D, lev);
		fputs("...\n", D->o);
		return;
	}
	switch (s->kind) {
	case S_BLOCK:
		dump_block(D, "block", s, lev);
		return;
	case S_LET:
	case S_VAR:
	case D_CONST:
		ind(D, lev);
		fprintf(D->o, "%s ", ast_kind_names[s->kind]);
		print_expr(D->o, s->u.let.pat, 0);
		if (s->u.let.type) {
			fputs(": ", D->o);
			print_type(D->o, s->u.let.type, 0);
		}
		loc(D, s->span);
		fputc('\n', D->o);
		if (s->u.let.init)
			dump_expr_line(D, "=", s->u.let.init, lev + 1);
		return;
	case S_ALLOC:
		ind(D, lev);
		fprintf(D->o, "%s %s: %s[", sp[s->u.alloc.space], s->u.alloc.id, s->u.alloc.type->name);
		print_expr(D->o, s->u.alloc.type->layout, 0);
		fputc(']', D->o);
		loc(D, s->span);
		fputc('\n', D->o);
		return;
	case S_ASSIGN:
		ind(D, lev);
		fputs("assign ", D->o);
		print_expr(D->o, s->u.assign.lhs, 0);
		fprintf(D->o, " %s=", s->u.assign.op == OP_NONE ? "" : ast_op_names[s->u.assign.op]);
		loc(D, s->span);
		fputc('\n', D->o);
		dump_expr_line(D, "value", s->u.assign.rhs, lev + 1);
		return;
	case S_EXPR:
		dump_expr_line(D, "expr", s->u.expr, lev);
		return;
	case S_ASSUME:
		dump_expr_line(D, "assume", s->u.expr, lev);
		return;
	case S_RETURN:
		if (s->u.expr) {
			dump_expr_line(D, "return", s->u.expr, lev);
			return;
		}
		ind(D, lev);
		fputs("return", D->o);
		loc(D, s->span);
		fputc('\n', D->o);
		return;
	case S_IF:
		ind(D, lev);
		fputs("if", D->o);
		loc(D, s->span);
		fputc('\n', D->o);
		dump_expr_line(D, "cond", s->u.if_.cond, lev + 1);
		dump_block(D, "then", s->u.if_.then, lev + 1);
		if (s->u.if_.els) {
			if (s->u.if_.els->kind == S_IF) {
				ind(D, lev + 1);
				fputs("else\n", D->o);
				dump_stmt(D, s->u.if_.els, lev + 2);
			} else
				dump_block(D, "else", s->u.if_.els, lev + 1);
		}
		return;
	case S_FOR:
		ind(D, lev);
		fprintf(D->o, "%s %s", s->u.for_.unroll ? "static-for" : "for", s->u.for_.var);
		loc(D, s->span);
		fputc('\n', D->o);
		dump_expr_line(D, "from", s->u.for_.lo, lev + 1);
		dump_expr_line(D, "to", s->u.for_.hi, lev + 1);
		if (s->u.for_.step)
			dump_expr_line(D, "step", s->u.for_.step, lev + 1);
		dump_block(D, "body", s->u.for_.body, lev + 1);
		return;
	case S_WHILE:
		ind(D, lev);
		fputs("while", D->o);
		loc(D, s->span);
		fputc('\n', D->o);
		dump_expr_line(D, "cond", s->u.while_.cond, lev + 1);
		dump_block(D, "body", s->u.while_.body, lev + 1);
		return;
	case S_PIPELINE:
		ind(D, lev);
		fprintf(D->o, "pipeline %s", s->u.pipe.var);
		loc(D, s->span);
		fputc('\n', D->o);
		dump_expr_line(D, "from", s->u.pipe.lo, lev + 1);
		dump_expr_line(D, "to", s->u.pipe.hi, lev + 1);
		dump_expr_line(D, "stages", s->u.pipe.stages, lev + 1);
		dump_block(D, "load", s->u.pipe.load, lev + 1);
		dump_block(D, "compute", s->u.pipe.compute, lev + 1);
		return;
	case S_WAVES:
		ind(D, lev);
		fputs("waves", D->o);
		loc(D, s->span);
		fputc('\n', D->o);
		dump_expr_line(D, "count", s->u.waves.count, lev + 1);
		for (i = 0; i < s->u.waves.arms.n; i++) {
			const Param *a = s->u.waves.arms.v[i];
			char lab[64];
			snprintf(lab, sizeof lab, "group %lld", (long long)(a->value ? a->value->u.ival : -1));
			dump_block(D, lab, a->body, lev + 1);
		}
		return;
	default:
		dump_expr_line(D, "?", s, lev);
	}
}

static void
dump_decl(Dump *D, const Node *n)
{
	int i, j;

	switch (n->kind) {
	case D_IMPORT:
		fprintf(D->o, "  import %s", n->u.import.id);
		loc(D, n->span);
		fputc('\n', D->o);
		break;
	case D_CONST:
		dump_stmt(D, n, 1);
		if (n->u.let.init && n->u.let.init->cval) { /* the folded value (sema ran) */
			fputs("    value ", D->o);
			sema_print_value(D->o, n->u.let.init->cval);
			fputc('\n', D->o);
		}
		break;
	case D_ATOM:
		fprintf(D->o, "  atom %s: %s", n->u.atom.id, n->u.atom.kind);
		loc(D, n->span);
		fputc('\n', D->o);
		dump_params(D, "field", &n->u.atom.fields, 2);
		break;
	case D_EXPORT:
		fprintf(D->o, "  export %s as %s", n->u.export.kernel, n->u.export.as);
		loc(D, n->span);
		fputc('\n', D->o);
		dump_params(D, "arg", &n->u.export.args, 2);
		break;
	case D_KERNEL:
		fprintf(D->o, "  kernel %s", n->u.kernel.id);
		loc(D, n->span);
		fputc('\n', D->o);
		dump_params(D, "ctparam", &n->u.kernel.ct, 2);
		dump_params(D, "param", &n->u.kernel.rt, 2);
		for (i = 0; i < n->u.kernel.nclauses; i++) {
			const Clause *c = n->u.kernel.clauses[i];
			fprintf(D->o, "    clause %s(", c->name);
			for (j = 0; j < c->args.n; j++) {
				if (j)
					fputs(", ", D->o);
				print_expr(D->o, c->args.v[j], 0);
			}
			fputc(')', D->o);
			loc(D, c->span);
			fputc('\n', D->o);
		}
		for (i = 0; i < n->u.kernel.requires.n; i++)
			dump_expr_line(D, "requires", n->u.kernel.requires.v[i], 2);
		dump_block(D, "body", n->u.kernel.body, 2);
		break;
	case D_FN:
		fprintf(D->o, "  fn %s", n->u.fn.id);
		loc(D, n->span);
		fputc('\n', D->o);
		dump_params(D, "ctparam", &n->u.fn.ct, 2);
		dump_params(D, "param", &n->u.fn.params, 2);
		if (n->u.fn.ret) {
			fputs("    result ", D->o);
			print_type(D->o, n->u.fn.ret, 0);
			fputc('\n', D->o);
		}
		dump_block(D, "body", n->u.fn.body, 2);
		break;
	default:
		dump_stmt(D, n, 1);
	}
}

void
ast_dump(FILE *out, const Diag *d, const AstModule *m)
{
	Dump D = {out, d};
	int i;

	fprintf(out, "module %s\n", m->name);
	for (i = 0; i < m->decls.n; i++)
		dump_decl(&D, m->decls.v[i]);
}
