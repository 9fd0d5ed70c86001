/* parse.y — the .fly grammar (Bison, pure, with locations and error recovery).
 *
 * The grammar rule is the documentation: docs/language.md gives the same
 * grammar in EBNF. Recovery points are ';' (statements, declarations) and
 * '}' (blocks), so one run reports several independent syntax errors.
 */
%define api.pure full
%define api.location.type {Span}
%define parse.error custom
%locations
%param {Parser *P}

%code requires {
#include "syntax.h"
typedef struct Parser Parser;
}

%code provides {
struct Parser {
	Lexer lx;
	Arena *a;
	Diag *d;
	AstModule *mod;
	bool too_deep;
};
}

%code {
#include <string.h>

#define YYMAXDEPTH 4000
#define YYINITDEPTH 200
#define YYLLOC_DEFAULT(Cur, Rhs, N) do { \
	if (N) { (Cur).file = YYRHSLOC(Rhs, 1).file; (Cur).lo = YYRHSLOC(Rhs, 1).lo; (Cur).hi = YYRHSLOC(Rhs, N).hi; } \
	else { (Cur).file = YYRHSLOC(Rhs, 0).file; (Cur).lo = (Cur).hi = YYRHSLOC(Rhs, 0).hi; } \
} while (0)

static int yylex(YYSTYPE *v, Span *loc, Parser *P);
static void yyerror(Span *loc, Parser *P, const char *msg);

#define NEW(k, s) ast_new(P->a, (k), (s))

static int
depth_of(const Node *n)
{
	return n ? n->depth : 0;
}

/* Records the nesting depth of a new expression node; past PARSE_MAX_EXPR_DEPTH it reports
 * one error and returns a child instead, so no later pass ever sees an unbounded tree. */
static Node *
D(Parser *P, Node *n)
{
	int d = 0, i;
	Node *kid = NULL;

	switch (n->kind) {
	case E_UNARY: kid = n->u.unary.x; d = depth_of(kid); break;
	case E_BINARY: case E_LAYOUT: case E_COMPOSE:
		kid = n->u.binary.l;
		d = depth_of(n->u.binary.l) > depth_of(n->u.binary.r) ? depth_of(n->u.binary.l) : depth_of(n->u.binary.r);
		break;
	case E_CALL: case E_INDEX:
		kid = n->u.call.callee;
		d = depth_of(kid);
		for (i = 0; i < n->u.call.args.n; i++)
			if (depth_of(n->u.call.args.v[i]) > d)
				d = depth_of(n->u.call.args.v[i]);
		for (i = 0; i < n->u.call.named.n; i++)
			if (depth_of(n->u.call.named.v[i]->value) > d)
				d = depth_of(n->u.call.named.v[i]->value);
		break;
	case E_MEMBER: kid = n->u.member.base; d = depth_of(kid); break;
	case E_CONVERT: kid = n->u.convert.x; d = depth_of(kid); break;
	case E_TUPLE: case E_TILER:
		for (i = 0; i < n->u.list.n; i++)
			if (depth_of(n->u.list.v[i]) > d)
				d = depth_of(n->u.list.v[i]);
		kid = n->u.list.n ? n->u.list.v[0] : NULL;
		break;
	default: break;
	}
	n->depth = d + 1;
	if (n->depth > PARSE_MAX_EXPR_DEPTH && kid) {
		if (!P->too_deep)
			diag_error(P->d, n->span, "expression is nested too deeply (the limit is %d levels)", PARSE_MAX_EXPR_DEPTH);
		P->too_deep = true;
		return kid;
	}
	return n;
}

static Node *
binop(Parser *P, AstOp op, Node *l, Node *r, Span s)
{
	Node *n = NEW(E_BINARY, s);
	n->u.binary.op = op;
	n->u.binary.l = l;
	n->u.binary.r = r;
	return D(P, n);
}

static Node *
pair(Parser *P, NodeKind k, Node *l, Node *r, Span s)
{
	Node *n = NEW(k, s);
	n->u.binary.l = l;
	n->u.binary.r = r;
	return D(P, n);
}

static Param *
param(Parser *P, const char *name, Span s, TypeExpr *t, Node *v)
{
	Param *p = ARENA_NEW(P->a, Param);
	p->name = name;
	p->span = s;
	p->type = t;
	p->value = v;
	return p;
}

/* Arguments are parsed into one list; named ones are E_CALL nodes with a NULL callee tagged by 'named'. */
typedef struct { NodeList pos; ParamList named; } Args;
}

%union {
	int64_t ival;
	struct { double v; const char *text; } fval;
	struct { const char *s; size_t len; } str;
	const char *id;
	Node *node;
	NodeList list;
	TypeExpr *type;
	Param *param;
	ParamList params;
	Clause *clause;
	struct { Clause **v; int n; } clauses;
	struct { TypeExpr **v; int n; } types;
	struct { NodeList pos; ParamList named; } args;
	int op;
	MemSpace space;
}

%token <id> IDENT "identifier"
%token <ival> INT "integer literal"
%token <fval> FLOAT "floating literal"
%token <str> STRING "string literal"
%token HOLE "'_'"
%token AS "'as'" ASSUME "'assume'" ATOM "'atom'" CONST "'const'" CONVERT "'convert'" ELSE "'else'"
%token EXPORT "'export'" FALSE "'false'" FN "'fn'" FOR "'for'" GLOBAL "'global'" GROUPS "'groups'" IF "'if'"
%token IMPORT "'import'" IN "'in'" KERNEL "'kernel'" LDS "'lds'" LET "'let'" PIPELINE "'pipeline'"
%token REG "'reg'" REQUIRES "'requires'" RETURN "'return'" STAGES "'stages'" STATIC "'static'"
%token STEP "'step'" TRUE "'true'" VAR "'var'" WAVES "'waves'" WHILE "'while'"
%token DOTDOT "'..'" ARROW "'=>'" RARROW "'->'" EQ "'=='" NE "'!='" LE "'<='" GE "'>='" ANDAND "'&&'" OROR "'||'"
%token SHL "'<<'" SHR "'>>'" ADDEQ "'+='" SUBEQ "'-='" MULEQ "'*='" DIVEQ "'/='" MODEQ "'%='"
%token COMPOSE "'o'"

%left OROR
%left ANDAND
%nonassoc EQ NE
%nonassoc '<' LE '>' GE
%right COMPOSE
%nonassoc ':'
%left '|'
%left '^'
%left '&'
%left SHL SHR
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%type <node> decl kernel fn export atom stmt block else_opt expr postfix primary pattern
%type <node> simple_expr for_stmt pipeline waves
%type <list> decls stmts expr_list expr_list1 requires_opt pattern_list
%type <type> type type_opt ret_opt atom_type
%type <types> type_list
%type <param> param ct_param named_arg field arm
%type <params> params params1 ct_params ct_params_opt named_args fields arms
%type <clause> clause
%type <clauses> clauses
%type <args> args args1
%type <op> assign_op
%type <space> space
%type <id> arg_name

%%

module
	: decls { P->mod->decls = $1; }
	;

decls
	: %empty { $$ = (NodeList){0}; }
	| decls decl { $$ = $1; if ($2) ast_push(P->a, &$$, $2); }
	;

decl
	: IMPORT IDENT ';' { $$ = NEW(D_IMPORT, @$); $$->u.import.id = $2; $$->u.import.id_span = @2; }
	| CONST IDENT type_opt '=' expr ';' {
		Node *n = NEW(E_NAME, @2);
		n->u.name.id = $2;
		$$ = NEW(D_CONST, @$);
		$$->u.let.pat = n; $$->u.let.type = $3; $$->u.let.init = $5;
	}
	| kernel
	| fn
	| export
	| atom
	| error ';' { $$ = NULL; }
	| error '}' { $$ = NULL; }
	;

/* kernel NAME [<ct params>] (params) clauses [requires e, ...] { body } */
kernel
	: KERNEL IDENT ct_params_opt '(' params ')' clauses requires_opt block {
		$$ = NEW(D_KERNEL, @$);
		$$->u.kernel.id = $2; $$->u.kernel.id_span = @2;
		$$->u.kernel.ct = $3; $$->u.kernel.rt = $5;
		$$->u.kernel.clauses = $7.v; $$->u.kernel.nclauses = $7.n;
		$$->u.kernel.requires = $8; $$->u.kernel.body = $9;
	}
	;

/* fn NAME [<ct params>] (params) [-> type] { body } */
fn
	: FN IDENT ct_params_opt '(' params ')' ret_opt block {
		$$ = NEW(D_FN, @$);
		$$->u.fn.id = $2; $$->u.fn.id_span = @2;
		$$->u.fn.ct = $3; $$->u.fn.params = $5;
		$$->u.fn.ret = $7; $$->u.fn.body = $8;
	}
	;

ret_opt
	: %empty { $$ = NULL; }
	| RARROW type { $$ = $2; }
	;

ct_params_opt
	: %empty { $$ = (ParamList){0}; }
	| '<' ct_params '>' { $$ = $2; }
	;

ct_params
	: ct_param { $$ = (ParamList){0}; ast_push_param(P->a, &$$, $1); }
	| ct_params ',' ct_param { $$ = $1; ast_push_param(P->a, &$$, $3); }
	;

/* NAME: type [= postfix-expr]  (a default needs parentheses unless it is a postfix expression) */
ct_param
	: IDENT ':' type { $$ = param(P, $1, @1, $3, NULL); }
	| IDENT ':' type '=' simple_expr { $$ = param(P, $1, @1, $3, $5); }
	| IDENT ':' atom_type { $$ = param(P, $1, @1, $3, NULL); }
	| IDENT ':' atom_type '=' simple_expr { $$ = param(P, $1, @1, $3, $5); }
	;

/* the type of an atom parameter: the keyword 'atom', kept as the type name "atom" */
atom_type
	: ATOM { $$ = ARENA_NEW(P->a, TypeExpr); $$->span = @$; $$->name = "atom"; $$->name_span = @1; }
	;

simple_expr
	: postfix
	| '-' postfix { $$ = NEW(E_UNARY, @$); $$->u.unary.op = OP_NEG; $$->u.unary.x = $2; }
	;

params
	: %empty { $$ = (ParamList){0}; }
	| params1
	| params1 ',' { $$ = $1; }
	;

params1
	: param { $$ = (ParamList){0}; ast_push_param(P->a, &$$, $1); }
	| params1 ',' param { $$ = $1; ast_push_param(P->a, &$$, $3); }
	;

param
	: IDENT ':' type { $$ = param(P, $1, @1, $3, NULL); }
	;

type
	: IDENT { $$ = ARENA_NEW(P->a, TypeExpr); $$->span = @$; $$->name = $1; $$->name_span = @1; }
	| space IDENT '[' expr ']' {
		$$ = ARENA_NEW(P->a, TypeExpr); $$->span = @$; $$->tensor = true; $$->space = $1;
		$$->name = $2; $$->name_span = @2; $$->layout = $4;
	}
	;

	| '(' type ')' { $$ = $2; }
	| '(' type ',' type_list ')' {
		$$ = ARENA_NEW(P->a, TypeExpr); $$->span = @$;
		$$->nelems = $4.n + 1;
		$$->elems = ARENA_NEWN(P->a, TypeExpr *, $$->nelems);
		$$->elems[0] = $2;
		memcpy($$->elems + 1, $4.v, sizeof *$$->elems * (size_t)$4.n);
	}
	;

/* the types after the first of a tuple type */
type_list
	: type {
		$$.v = ARENA_NEWN(P->a, TypeExpr *, 1); $$.v[0] = $1; $$.n = 1;
	}
	| type_list ',' type {
		TypeExpr **nv = ARENA_NEWN(P->a, TypeExpr *, $1.n + 1);
		memcpy(nv, $1.v, sizeof *nv * (size_t)$1.n);
		nv[$1.n] = $3; $$.v = nv; $$.n = $1.n + 1;
	}
	;

space
	: GLOBAL { $$ = SPACE_GLOBAL; }
	| LDS { $$ = SPACE_LDS; }
	| REG { $$ = SPACE_REG; }
	;

type_opt
	: %empty { $$ = NULL; }
	| ':' type { $$ = $2; }
	;

clauses
	: %empty { $$.v = NULL; $$.n = 0; }
	| clauses clause {
		$$ = $1;
		if (($$.n & ($$.n - 1)) == 0) {
			Clause **nv = ARENA_NEWN(P->a, Clause *, $$.n ? 2 * $$.n : 1);
			if ($$.n) memcpy(nv, $$.v, sizeof *nv * (size_t)$$.n);
			$$.v = nv;
		}
		$$.v[$$.n++] = $2;
	}
	;

clause
	: IDENT '(' expr_list ')' {
		$$ = ARENA_NEW(P->a, Clause); $$->name = $1; $$->span = @$; $$->args = $3;
	}
	;

requires_opt
	: %empty { $$ = (NodeList){0}; }
	| REQUIRES expr_list1 { $$ = $2; }
	;

/* export KERNEL<NAME = value, ...> as NAME; */
export
	: EXPORT IDENT '<' named_args '>' AS IDENT ';' {
		$$ = NEW(D_EXPORT, @$);
		$$->u.export.kernel = $2; $$->u.export.kernel_span = @2;
		$$->u.export.args = $4; $$->u.export.as = $7; $$->u.export.as_span = @7;
	}
	| EXPORT IDENT AS IDENT ';' {
		$$ = NEW(D_EXPORT, @$);
		$$->u.export.kernel = $2; $$->u.export.kernel_span = @2;
		$$->u.export.as = $4; $$->u.export.as_span = @4;
	}
	;

named_args
	: IDENT '=' simple_expr { $$ = (ParamList){0}; ast_push_param(P->a, &$$, param(P, $1, @1, NULL, $3)); }
	| named_args ',' IDENT '=' simple_expr { $$ = $1; ast_push_param(P->a, &$$, param(P, $3, @3, NULL, $5)); }
	;

/* atom NAME : KIND { field = expr; ... } */
atom
	: ATOM IDENT ':' IDENT '{' fields '}' {
		$$ = NEW(D_ATOM, @$);
		$$->u.atom.id = $2; $$->u.atom.id_span = @2;
		$$->u.atom.kind = $4; $$->u.atom.kind_span = @4;
		$$->u.atom.fields = $6;
	}
	;

fields
	: %empty { $$ = (ParamList){0}; }
	| fields field { $$ = $1; if ($2) ast_push_param(P->a, &$$, $2); }
	;

field
	: IDENT '=' expr ';' { $$ = param(P, $1, @1, NULL, $3); }
	| error ';' { $$ = NULL; }
	;

block
	: '{' stmts '}' { $$ = NEW(S_BLOCK, @$); $$->u.block = $2; }
	;

stmts
	: %empty { $$ = (NodeList){0}; }
	| stmts stmt { $$ = $1; if ($2) ast_push(P->a, &$$, $2); }
	;

stmt
	: LET pattern type_opt '=' expr ';' {
		$$ = NEW(S_LET, @$); $$->u.let.pat = $2; $$->u.let.type = $3; $$->u.let.init = $5;
	}
	| VAR pattern type_opt '=' expr ';' {
		$$ = NEW(S_VAR, @$); $$->u.let.pat = $2; $$->u.let.type = $3; $$->u.let.init = $5;
	}
	| LDS IDENT ':' IDENT '[' expr ']' ';' {
		TypeExpr *t = ARENA_NEW(P->a, TypeExpr);
		t->span = ast_join(@4, @7); t->tensor = true; t->space = SPACE_LDS; t->name = $4; t->name_span = @4; t->layout = $6;
		$$ = NEW(S_ALLOC, @$); $$->u.alloc.space = SPACE_LDS; $$->u.alloc.id = $2; $$->u.alloc.id_span = @2; $$->u.alloc.type = t;
	}
	| REG IDENT ':' IDENT '[' expr ']' ';' {
		TypeExpr *t = ARENA_NEW(P->a, TypeExpr);
		t->span = ast_join(@4, @7); t->tensor = true; t->space = SPACE_REG; t->name = $4; t->name_span = @4; t->layout = $6;
		$$ = NEW(S_ALLOC, @$); $$->u.alloc.space = SPACE_REG; $$->u.alloc.id = $2; $$->u.alloc.id_span = @2; $$->u.alloc.type = t;
	}
	| expr ';' { $$ = NEW(S_EXPR, @$); $$->u.expr = $1; }
	| expr assign_op expr ';' {
		$$ = NEW(S_ASSIGN, @$); $$->u.assign.op = (AstOp)$2; $$->u.assign.lhs = $1; $$->u.assign.rhs = $3;
	}
	| IF expr block else_opt { $$ = NEW(S_IF, @$); $$->u.if_.cond = $2; $$->u.if_.then = $3; $$->u.if_.els = $4; }
	| for_stmt
	| WHILE expr block { $$ = NEW(S_WHILE, @$); $$->u.while_.cond = $2; $$->u.while_.body = $3; }
	| pipeline
	| waves
	| ASSUME expr ';' { $$ = NEW(S_ASSUME, @$); $$->u.expr = $2; }
	| RETURN ';' { $$ = NEW(S_RETURN, @$); }
	| RETURN expr ';' { $$ = NEW(S_RETURN, @$); $$->u.expr = $2; }
	| block
	| ';' { $$ = NULL; }
	| error ';' { $$ = NULL; }
	| error block { $$ = NULL; }
	;

assign_op
	: '=' { $$ = OP_NONE; }
	| ADDEQ { $$ = OP_ADD; }
	| SUBEQ { $$ = OP_SUB; }
	| MULEQ { $$ = OP_MUL; }
	| DIVEQ { $$ = OP_DIV; }
	| MODEQ { $$ = OP_MOD; }
	;

pattern
	: IDENT { $$ = NEW(E_NAME, @$); $$->u.name.id = $1; }
	| HOLE { $$ = NEW(E_HOLE, @$); }
	| '(' pattern_list ')' { $$ = NEW(E_TUPLE, @$); $$->u.list = $2; }
	;

pattern_list
	: pattern { $$ = (NodeList){0}; ast_push(P->a, &$$, $1); }
	| pattern_list ',' pattern { $$ = $1; ast_push(P->a, &$$, $3); }
	;

else_opt
	: %empty { $$ = NULL; }
	| ELSE block { $$ = $2; }
	| ELSE IF expr block else_opt {
		$$ = NEW(S_IF, ast_join(@2, @5)); $$->u.if_.cond = $3; $$->u.if_.then = $4; $$->u.if_.els = $5;
	}
	;

for_stmt
	: FOR IDENT IN expr DOTDOT expr block {
		$$ = NEW(S_FOR, @$); $$->u.for_.var = $2; $$->u.for_.var_span = @2;
		$$->u.for_.lo = $4; $$->u.for_.hi = $6; $$->u.for_.body = $7;
	}
	| FOR IDENT IN expr DOTDOT expr STEP expr block {
		$$ = NEW(S_FOR, @$); $$->u.for_.var = $2; $$->u.for_.var_span = @2;
		$$->u.for_.lo = $4; $$->u.for_.hi = $6; $$->u.for_.step = $8; $$->u.for_.body = $9;
	}
	| STATIC for_stmt { $$ = $2; $$->span = @$; $$->u.for_.unroll = true; }
	;

/* pipeline NAME in lo .. hi stages S { load { ... } compute { ... } } */
pipeline
	: PIPELINE IDENT IN expr DOTDOT expr STAGES expr '{' IDENT block IDENT block '}' {
		$$ = NEW(S_PIPELINE, @$); $$->u.pipe.var = $2; $$->u.pipe.var_span = @2;
		$$->u.pipe.lo = $4; $$->u.pipe.hi = $6; $$->u.pipe.stages = $8;
		if (strcmp($10, "load"))
			diag_error(P->d, @10, "expected 'load' as the first part of a pipeline, found '%s'", $10);
		if (strcmp($12, "compute"))
			diag_error(P->d, @12, "expected 'compute' as the second part of a pipeline, found '%s'", $12);
		$$->u.pipe.load = $11; $$->u.pipe.compute = $13;
	}
	;

/* waves N groups { 0 => { ... } 1 => { ... } } */
waves
	: WAVES expr GROUPS '{' arms '}' { $$ = NEW(S_WAVES, @$); $$->u.waves.count = $2; $$->u.waves.arms = $5; }
	;

arms
	: arm { $$ = (ParamList){0}; ast_push_param(P->a, &$$, $1); }
	| arms arm { $$ = $1; ast_push_param(P->a, &$$, $2); }
	;

arm
	: INT ARROW block {
		Node *i = NEW(E_INT, @1); i->u.ival = $1;
		$$ = param(P, "group", @1, NULL, i); $$->body = $3;
	}
	;

expr
	: postfix
	| '-' expr %prec UNARY { $$ = NEW(E_UNARY, @$); $$->u.unary.op = OP_NEG; $$->u.unary.x = $2; $$ = D(P, $$); }
	| '!' expr %prec UNARY { $$ = NEW(E_UNARY, @$); $$->u.unary.op = OP_NOT; $$->u.unary.x = $2; $$ = D(P, $$); }
	| '~' expr %prec UNARY { $$ = NEW(E_UNARY, @$); $$->u.unary.op = OP_BNOT; $$->u.unary.x = $2; $$ = D(P, $$); }
	| expr OROR expr { $$ = binop(P, OP_OR, $1, $3, @$); }
	| expr ANDAND expr { $$ = binop(P, OP_AND, $1, $3, @$); }
	| expr EQ expr { $$ = binop(P, OP_EQ, $1, $3, @$); }
	| expr NE expr { $$ = binop(P, OP_NE, $1, $3, @$); }
	| expr '<' expr { $$ = binop(P, OP_LT, $1, $3, @$); }
	| expr LE expr { $$ = binop(P, OP_LE, $1, $3, @$); }
	| expr '>' expr { $$ = binop(P, OP_GT, $1, $3, @$); }
	| expr GE expr { $$ = binop(P, OP_GE, $1, $3, @$); }
	| expr '|' expr { $$ = binop(P, OP_BOR, $1, $3, @$); }
	| expr '^' expr { $$ = binop(P, OP_BXOR, $1, $3, @$); }
	| expr '&' expr { $$ = binop(P, OP_BAND, $1, $3, @$); }
	| expr SHL expr { $$ = binop(P, OP_SHL, $1, $3, @$); }
	| expr SHR expr { $$ = binop(P, OP_SHR, $1, $3, @$); }
	| expr '+' expr { $$ = binop(P, OP_ADD, $1, $3, @$); }
	| expr '-' expr { $$ = binop(P, OP_SUB, $1, $3, @$); }
	| expr '*' expr { $$ = binop(P, OP_MUL, $1, $3, @$); }
	| expr '/' expr { $$ = binop(P, OP_DIV, $1, $3, @$); }
	| expr '%' expr { $$ = binop(P, OP_MOD, $1, $3, @$); }
	| expr ':' expr { $$ = pair(P, E_LAYOUT, $1, $3, @$); }
	| expr COMPOSE expr { $$ = pair(P, E_COMPOSE, $1, $3, @$); }
	;

postfix
	: primary
	| postfix '(' args ')' {
		$$ = NEW(E_CALL, @$); $$->u.call.callee = $1; $$->u.call.args = $3.pos; $$->u.call.named = $3.named;
		$$ = D(P, $$);
	}
	| postfix '[' expr_list1 ']' { $$ = NEW(E_INDEX, @$); $$->u.call.callee = $1; $$->u.call.args = $3; $$ = D(P, $$); }
	| postfix '.' IDENT { $$ = NEW(E_MEMBER, @$); $$->u.member.base = $1; $$->u.member.id = $3; $$->u.member.id_span = @3; $$->u.member.method = -1; $$ = D(P, $$); }
	;

primary
	: INT { $$ = NEW(E_INT, @$); $$->u.ival = $1; }
	| FLOAT { $$ = NEW(E_FLOAT, @$); $$->u.fval.v = $1.v; $$->u.fval.text = $1.text; }
	| STRING { $$ = NEW(E_STR, @$); $$->u.str.s = $1.s; $$->u.str.len = $1.len; }
	| TRUE { $$ = NEW(E_BOOL, @$); $$->u.ival = 1; }
	| FALSE { $$ = NEW(E_BOOL, @$); $$->u.ival = 0; }
	| IDENT { $$ = NEW(E_NAME, @$); $$->u.name.id = $1; }
	| HOLE { $$ = NEW(E_HOLE, @$); }
	| '(' expr ')' { $$ = $2; }
	| '(' ')' { $$ = NEW(E_TUPLE, @$); }
	| '(' expr ',' ')' { $$ = NEW(E_TUPLE, @$); ast_push(P->a, &$$->u.list, $2); }
	| '(' expr ',' expr_list1 ')' {
		$$ = NEW(E_TUPLE, @$); ast_push(P->a, &$$->u.list, $2);
		for (int i = 0; i < $4.n; i++) ast_push(P->a, &$$->u.list, $4.v[i]);
		$$ = D(P, $$);
	}
	| '[' expr_list1 ']' { $$ = NEW(E_TILER, @$); $$->u.list = $2; $$ = D(P, $$); }
	| CONVERT '<' type '>' '(' expr ')' { $$ = NEW(E_CONVERT, @$); $$->u.convert.to = $3; $$->u.convert.x = $6; $$ = D(P, $$); }
	;

expr_list
	: %empty { $$ = (NodeList){0}; }
	| expr_list1
	;

expr_list1
	: expr { $$ = (NodeList){0}; ast_push(P->a, &$$, $1); }
	| expr_list1 ',' expr { $$ = $1; ast_push(P->a, &$$, $3); }
	;

args
	: %empty { $$.pos = (NodeList){0}; $$.named = (ParamList){0}; }
	| args1
	| args1 ',' { $$ = $1; }
	;

args1
	: expr { $$.pos = (NodeList){0}; $$.named = (ParamList){0}; ast_push(P->a, &$$.pos, $1); }
	| named_arg { $$.pos = (NodeList){0}; $$.named = (ParamList){0}; ast_push_param(P->a, &$$.named, $1); }
	| args1 ',' expr {
		$$ = $1;
		if ($$.named.n)
			diag_error(P->d, @3, "positional argument after a named argument");
		ast_push(P->a, &$$.pos, $3);
	}
	| args1 ',' named_arg { $$ = $1; ast_push_param(P->a, &$$.named, $3); }
	;

named_arg
	: arg_name '=' expr { $$ = param(P, $1, @1, NULL, $3); }
	;

arg_name
	: IDENT
	| WAVES { $$ = "waves"; }
	| STAGES { $$ = "stages"; }
	| STEP { $$ = "step"; }
	| GROUPS { $$ = "groups"; }
	;

%%

static int
yylex(YYSTYPE *v, Span *loc, Parser *P)
{
	if (diag_stopped(P->d)) {
		*loc = (Span){P->lx.file, (uint32_t)(P->lx.lim - P->lx.src), (uint32_t)(P->lx.lim - P->lx.src)};
		return 0;
	}
	return lex_token(&P->lx, v, loc);
}

static void
yyerror(Span *loc, Parser *P, const char *msg)
{
	if (!strcmp(msg, "memory exhausted"))
		diag_error(P->d, *loc, "program is nested too deeply");
	else
		diag_error(P->d, *loc, "%s", msg);
}

static const char *
tokname(yysymbol_kind_t k)
{
	const char *s = yysymbol_name(k);
	return s;
}

static int
yyreport_syntax_error(const yypcontext_t *ctx, Parser *P)
{
	yysymbol_kind_t exp[6], tok = yypcontext_token(ctx);
	int n = yypcontext_expected_tokens(ctx, exp, 6), i;
	char buf[512];
	size_t len = 0;

	if (diag_stopped(P->d))
		return 0;
	if (tok == YYSYMBOL_YYEOF)
		len += (size_t)snprintf(buf, sizeof buf, "unexpected end of input");
	else
		len += (size_t)snprintf(buf, sizeof buf, "unexpected %s", tokname(tok));
	if (n > 0 && n <= 5) {
		len += (size_t)snprintf(buf + len, sizeof buf - len, "; expected ");
		for (i = 0; i < n && len < sizeof buf; i++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
				i == 0 ? "" : i + 1 == n ? " or " : ", ", tokname(exp[i]));
	}
	diag_error(P->d, *yypcontext_location(ctx), "%s", buf);
	return 0;
}

AstModule *
parse_module(Arena *a, Diag *d, int file, const char *modname)
{
	Parser P;

	memset(&P, 0, sizeof P);
	lex_init(&P.lx, a, d, file);
	P.a = a;
	P.d = d;
	P.mod = ARENA_NEW(a, AstModule);
	P.mod->name = arena_strdup(a, modname);
	P.mod->file = file;
	yyparse(&P);
	return P.mod;
}
