/* sema_int.h — private to sema*.c: the checker's state and shared helpers. */
#ifndef FLYC_SEMA_INT_H
#define FLYC_SEMA_INT_H

#include "sema.h"

#define SEMA_MAX_DEPTH 400 /* recursion guard for nested expressions/statements */

typedef struct Entry Entry;
struct Entry {
	const char *name;
	Symbol *top;
	Entry *next;
};

/* A hash map from (owner, name) to an int, in the arena: module members by module and name,
 * kernels and exports by name, so lookups stay O(1) in modules of any size. */
typedef struct NameMap {
	const void **owners;
	const char **keys;
	int *vals;
	unsigned cap, n;
} NameMap;

/* The device function whose body is being checked (sema_fn.c). */
typedef struct FnCtx {
	Node *decl;         /* the D_FN copy of this call */
	Node *body;         /* its S_BLOCK: a return must be its last statement */
	Type *ret;          /* the declared result type, NULL without one */
	Node *ret_expr;     /* the value returned, once seen */
	bool ret_seen;      /* a return statement was checked */
} FnCtx;

typedef struct S {
	Arena *a;
	Diag *d;
	const SemaOptions *o;
	SemaProgram *prog;
	Entry **buckets;
	unsigned nbuckets, nentries;
	Entry **stack;      /* bound entries, popped on scope exit */
	int nstack, capstack;
	Symbol **syms;      /* bound symbols in the same order (for unused warnings) */
	int depth;          /* recursion depth */
	bool too_deep;
	/* kernel context */
	SemaKernel *kern;
	int loops;          /* enclosing loops */
	int blocks;         /* enclosing blocks inside the kernel body (0 = top level) */
	int pipelines;
	bool in_grid;       /* checking a grid(...) formula: device.cus is known */
	int loop_level;     /* scope level of the innermost loop's body (its variables' level) */
	const char *cur_dir;/* directory of the module being checked */
	int nextid;
	int level;          /* current scope nesting level */
	lay_ctx lc;         /* layout library context (arena in prog->lay_arena) */
	NameMap members;    /* (SemaModule, name) -> index in its syms, the first of that name */
	int *marks;         /* stack heights of open scopes */
	int nmarks, capmarks;
	/* device functions (sema_fn.c) */
	FnCtx *fn;          /* the function body being checked, NULL in a kernel */
	SemaModule *fn_module; /* while checking a function body: its module, whose names it sees ... */
	int fn_base;        /* ... with the bindings at levels >= fn_base (its own) and level 0 (builtins) */
	SemaModule *cur_module; /* the module whose declarations are being checked */
	bool quiet;         /* a function checked again for another call: no warnings */
	int fn_calls;       /* calls checked so far (bounded: each copies the function) */
	Node **kret;        /* the kernel's `return;`s that may end a thread (sema_kernel_returns) */
	int nkret;
} S;

/* types */
Type *ty_scalar(ScalarKind k);
Type *ty_simple(TypeKind k);
Type *ty_tensor(S *s, MemSpace sp, ScalarKind el, int rank, bool swz);
Type *ty_new(S *s, TypeKind k);
bool  ty_is_int(const Type *t);
bool  ty_is_num(const Type *t);
bool  ty_is_bool(const Type *t);
bool  ty_is_inttuple(const Type *t);
const char *tyname(S *s, const Type *t);

/* values */
Value *val_int(S *s, int64_t i);
const lay_val *val_to_lay(S *s, Value *v);
Value *val_from_lay(S *s, const lay_val *l);
Value *val_new(S *s, ValueKind k);

/* scopes */
void    sym_bind(S *s, Symbol *sym);
Symbol *sym_lookup(S *s, const char *name);
Symbol *sym_new(S *s, SymKind k, const char *name, Span decl, Type *t);
int     scope_mark(S *s);
int     namemap_get(const NameMap *m, const void *owner, const char *key);       /* -1 if absent */
int     namemap_put(S *s, NameMap *m, const void *owner, const char *key, int v); /* old value or -1 */
Symbol *sema_module_member(S *s, SemaModule *m, const char *name);               /* or NULL */
void    scope_pop(S *s, int mark, bool warn_unused);

/* statements (sema.c) */
void  sema_check_block(S *s, Node *b, bool nested);

/* device functions (sema_fn.c) */
Type *sema_fn_call(S *s, Node *e, Symbol *fn);        /* the call e of function fn */
Type *sema_fn_type(S *s, TypeExpr *te);               /* a parameter or result type (layout `_`: any) */
bool  sema_fn_accepts(S *s, Type *want, Node *arg);   /* arg may be passed (or returned) as want */
void  sema_check_return(S *s, Node *st);              /* a return statement */
void  sema_kernel_returns(S *s, Node *body);          /* where a kernel body may return */
bool  sema_frag_dest(S *s, Node *d, const char *what); /* d may be written by what (fill, copy, gemm) */

/* register fragments and coordinates (sema_frag.c) */
typedef struct SemaRange {
	bool known;          /* lo .. hi bound the value (else only "known in each copy of the code") */
	int64_t lo, hi;
} SemaRange;
bool  sema_static_int(S *s, const Node *e, SemaRange *r); /* e is known in each copy of the code */
bool  sema_frag_index(S *s, Node *e, Type *t);       /* element e of register fragment type t */
bool  sema_frag_layout_ok(S *s, Node *layout);       /* a reg / fragment layout that fits registers */
void  sema_frag_layout(S *s, Node *e);               /* an elementwise fragment keeps its operand's layout */

/* expressions (sema_expr.c) */
Type *sema_expr(S *s, Node *e);
Value *sema_const(S *s, Node *e, const char *what); /* checks e and requires a compile-time value */
void  sema_builtins_bind(S *s);
Type *sema_type_expr(S *s, TypeExpr *t);
bool  sema_assignable(S *s, Type *to, Type *from);
int64_t val_cosize(const Value *layout);
int   sema_holes(const Node *e);                    /* the '_' in a coordinate */
int64_t val_size(const Value *v);

#endif
