/*
 * ast.h — the syntax tree of a .fly module.
 *
 * One Node type covers declarations, statements and expressions. Its kind
 * selects the valid union member; the AST_KINDS table below names it for every
 * kind (the third column), so the enum, the kind names used by the dump and the
 * member documentation come from one place. All nodes live in the Arena of the
 * compilation; lists are (pointer, count) pairs in the same arena.
 *
 * Every node carries a Span (file, byte range) for diagnostics. Sema fills the
 * `type` and `cval` fields of expressions and the `sym` field of names (see
 * sema.h); the parser leaves them zero.
 *
 * Operators of E_UNARY / E_BINARY come from the AST_OPS table.
 */
#ifndef FLYC_AST_H
#define FLYC_AST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"

/* kind, dump name, union member (documentation: which member of Node.u is valid). */
#define AST_KINDS(X) \
	/* declarations (module level) */ \
	X(D_IMPORT,   "import",   import)  /* import NAME;                                      */ \
	X(D_CONST,    "const",    let)     /* const NAME [: type] = expr;  (pat is an E_NAME)   */ \
	X(D_KERNEL,   "kernel",   kernel)  /* kernel NAME<ct params>(rt params) clauses { body } */ \
	X(D_EXPORT,   "export",   export)  /* export KERNEL<NAME=expr, ...> as NAME;            */ \
	X(D_ATOM,     "atom",     atom)    /* atom NAME : KIND { field = expr; ... }             */ \
	X(D_FN,       "fn",       fn)      /* fn NAME<ct params>(params) [-> type] { body }      */ \
	/* statements */ \
	X(S_BLOCK,    "block",    block)   /* { stmt* }                                          */ \
	X(S_LET,      "let",      let)     /* let pattern [: type] = expr;                      */ \
	X(S_VAR,      "var",      let)     /* var NAME [: type] = expr;   (mutable)             */ \
	X(S_ALLOC,    "alloc",    alloc)   /* lds NAME : T[layout];  reg NAME : T[layout];      */ \
	X(S_ASSIGN,   "assign",   assign)  /* lhs op= rhs;  (op OP_NONE for plain =)            */ \
	X(S_EXPR,     "expr",     expr)    /* expr;                                              */ \
	X(S_IF,       "if",       if_)     /* if cond block [else (if ... | block)]             */ \
	X(S_FOR,      "for",      for_)    /* [static] for NAME in lo .. hi [step s] block      */ \
	X(S_WHILE,    "while",    while_)  /* while cond block                                   */ \
	X(S_PIPELINE, "pipeline", pipe)    /* pipeline NAME in lo .. hi stages S { load {..} compute {..} } */ \
	X(S_WAVES,    "waves",    waves)   /* waves N groups { INT => block ... }                */ \
	X(S_ASSUME,   "assume",   expr)    /* assume expr;                                       */ \
	X(S_RETURN,   "return",   expr)    /* return [expr];  (expr NULL: no value)              */ \
	/* expressions */ \
	X(E_INT,      "int",      ival)    /* integer literal                                    */ \
	X(E_FLOAT,    "float",    fval)    /* floating literal (text kept in .str for dumps)     */ \
	X(E_BOOL,     "bool",     ival)    /* true / false                                       */ \
	X(E_STR,      "string",   str)     /* "text" (escapes decoded)                          */ \
	X(E_NAME,     "name",     name)    /* identifier; sema sets name.sym                     */ \
	X(E_HOLE,     "hole",     none)    /* _  (slice everything / unused binding)             */ \
	X(E_TUPLE,    "tuple",    list)    /* (a, b, ...)  a parenthesized single is not a tuple */ \
	X(E_TILER,    "tiler",    list)    /* [l1, l2, ...]  a tiler: one layout per mode        */ \
	X(E_UNARY,    "unary",    unary)   /* op x                                               */ \
	X(E_BINARY,   "binary",   binary)  /* l op r                                             */ \
	X(E_LAYOUT,   "layout",   binary)  /* shape : stride                                     */ \
	X(E_COMPOSE,  "compose",  binary)  /* f o g  (a swizzle or layout composed onto a layout) */ \
	X(E_CALL,     "call",     call)    /* callee(args)  callee is E_NAME or E_MEMBER         */ \
	X(E_MEMBER,   "member",   member)  /* base.NAME                                          */ \
	X(E_INDEX,    "index",    call)    /* base[args]  slicing; callee holds the base         */ \
	X(E_CONVERT,  "convert",  convert) /* convert<T>(x)                                      */

typedef enum {
#define X(k, s, m) k,
	AST_KINDS(X)
#undef X
	AST_NKINDS
} NodeKind;

/* operator, spelling, binary precedence (0: unary only) */
#define AST_OPS(X) \
	X(OP_NONE, "=",  0) \
	X(OP_OR,   "||", 1) \
	X(OP_AND,  "&&", 2) \
	X(OP_EQ,   "==", 3) X(OP_NE, "!=", 3) \
	X(OP_LT,   "<",  4) X(OP_LE, "<=", 4) X(OP_GT, ">", 4) X(OP_GE, ">=", 4) \
	X(OP_BOR,  "|",  5) X(OP_BXOR, "^", 6) X(OP_BAND, "&", 7) \
	X(OP_SHL,  "<<", 8) X(OP_SHR, ">>", 8) \
	X(OP_ADD,  "+",  9) X(OP_SUB, "-", 9) \
	X(OP_MUL,  "*", 10) X(OP_DIV, "/", 10) X(OP_MOD, "%", 10) \
	X(OP_NEG,  "-",  0) X(OP_NOT, "!", 0) X(OP_BNOT, "~", 0)

typedef enum {
#define X(k, s, p) k,
	AST_OPS(X)
#undef X
	AST_NOPS
} AstOp;

/* Where a tensor's elements are. SPACE_COORD: a tensor of coordinates (make_identity and its
 * views; never in memory, never written in source). */
typedef enum { SPACE_GLOBAL, SPACE_LDS, SPACE_REG, SPACE_COORD } MemSpace;

typedef struct Node Node;
typedef struct Type Type;     /* sema.h */
typedef struct Symbol Symbol; /* sema.h */
typedef struct Value Value;   /* sema.h */
typedef struct SemaFnCall SemaFnCall; /* sema.h: a checked call of a device function */

typedef struct {
	Node **v;
	int n;
} NodeList;

/* A type as written: NAME (i32, bf16, int, ...), SPACE NAME[layout] (layout `_`: any,
 * in function parameters and results) or a tuple of types (elems, nelems > 0; name NULL). */
typedef struct TypeExpr TypeExpr;
struct TypeExpr {
	Span span;
	bool tensor;
	MemSpace space;   /* tensor only */
	const char *name; /* the scalar (or element) type's name; NULL for a tuple */
	Span name_span;
	Node *layout;     /* tensor only */
	TypeExpr **elems; /* tuple only */
	int nelems;
};

/* A parameter, a named argument, an atom field, a wave-group arm. */
typedef struct Param {
	const char *name;
	Span span;        /* of the name */
	TypeExpr *type;   /* parameters (may be NULL for export args / fields) */
	Node *value;      /* default, argument value, field value, arm index */
	Node *body;       /* wave-group arm: its S_BLOCK */
} Param;

typedef struct {
	Param **v;
	int n;
} ParamList;

/* A kernel clause: block(...), grid(...), waves_per_eu(...), ... */
typedef struct Clause {
	const char *name;
	Span span;
	NodeList args;
} Clause;

struct Node {
	NodeKind kind;
	int depth;     /* parser: expression nesting depth (bounded by PARSE_MAX_EXPR_DEPTH) */
	Span span;
	Type *type;    /* sema: type of an expression */
	Value *cval;   /* sema: compile-time value of an expression, or NULL */
	union {
		/* E_INT, E_BOOL */
		int64_t ival;
		/* E_FLOAT */
		struct { double v; const char *text; } fval;
		/* E_STR */
		struct { const char *s; size_t len; } str;
		/* E_NAME */
		struct { const char *id; Symbol *sym; } name;
		/* E_TUPLE, E_TILER */
		NodeList list;
		/* E_UNARY */
		struct { AstOp op; Node *x; } unary;
		/* E_BINARY (op), E_LAYOUT (shape l, stride r), E_COMPOSE (outer l, inner r) */
		struct { AstOp op; Node *l, *r; } binary;
		/* E_CALL (callee(args)), E_INDEX (callee[args]); args may be named (E_CALL);
		 * fn: sema, a call of a device function: its instance (NULL otherwise) */
		struct { Node *callee; NodeList args; ParamList named; SemaFnCall *fn; } call;
		/* E_MEMBER */
		struct { Node *base; const char *id; Span id_span; int method; } member;  /* method: builtins.h M_*, set by sema (-1 otherwise) */
		/* E_CONVERT */
		struct { TypeExpr *to; Node *x; } convert;
		/* S_BLOCK */
		NodeList block;
		/* D_CONST, S_LET, S_VAR: pat is E_NAME, E_HOLE or E_TUPLE of patterns */
		struct { Node *pat; TypeExpr *type; Node *init; } let;
		/* S_ALLOC */
		struct { MemSpace space; const char *id; Span id_span; TypeExpr *type; Symbol *sym; } alloc;
		/* S_ASSIGN */
		struct { AstOp op; Node *lhs, *rhs; } assign;
		/* S_EXPR, S_ASSUME */
		Node *expr;
		/* S_IF: els is NULL, an S_BLOCK or an S_IF */
		struct { Node *cond, *then, *els; } if_;
		/* S_FOR: step may be NULL (1) */
		struct { const char *var; Span var_span; Node *lo, *hi, *step, *body; bool unroll; Symbol *sym; } for_;
		/* S_WHILE */
		struct { Node *cond, *body; } while_;
		/* S_PIPELINE: load and compute are S_BLOCKs */
		struct { const char *var; Span var_span; Node *lo, *hi, *stages, *load, *compute; Symbol *sym; } pipe;
		/* S_WAVES: arms[i]->value is the group index (E_INT), arms[i]->body the S_BLOCK */
		struct { Node *count; ParamList arms; } waves;
		/* D_IMPORT */
		struct { const char *id; Span id_span; } import;
		/* D_KERNEL */
		struct {
			const char *id; Span id_span;
			ParamList ct, rt;     /* compile-time <...> and run-time (...) parameters */
			Clause **clauses; int nclauses;
			NodeList requires;
			Node *body;
		} kernel;
		/* D_FN: ret NULL for a function without a result */
		struct {
			const char *id; Span id_span;
			ParamList ct, params;
			TypeExpr *ret;
			Node *body;
		} fn;
		/* D_EXPORT */
		struct { const char *kernel; Span kernel_span; ParamList args; const char *as; Span as_span; } export;
		/* D_ATOM */
		struct { const char *id; Span id_span; const char *kind; Span kind_span; ParamList fields; } atom;
	} u;
};

/* A parsed module: its declarations in source order. */
typedef struct AstModule {
	const char *name;  /* module name (file stem) */
	int file;          /* Diag file id */
	NodeList decls;
} AstModule;

extern const char *const ast_kind_names[AST_NKINDS];
extern const char *const ast_op_names[AST_NOPS];

Node *ast_new(Arena *a, NodeKind k, Span s);
/* Bytes a node of kind k occupies (its kind's union member only); copy nodes with this size. */
size_t ast_node_size(NodeKind k);
/* Growable list helpers for the parser (amortized doubling in the arena). */
void  ast_push(Arena *a, NodeList *l, Node *n);
void  ast_push_param(Arena *a, ParamList *l, Param *p);
Span  ast_join(Span a, Span b);

/* Stable, readable dump (--emit=ast); locations as line:col. */
void  ast_dump(FILE *out, const Diag *d, const AstModule *m);
/* Prints an expression in source syntax (used in messages and dumps). */
void  ast_print_expr(FILE *out, const Node *e);
char *ast_expr_str(Arena *a, const Node *e);

#endif
