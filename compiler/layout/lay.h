/*
 * lay.h — flyc's layout algebra: CuTe's int tuples, layouts, swizzles and
 * their operations, for compile-time (static) and run-time (dynamic) values.
 *
 * ---------------------------------------------------------------- design ---
 *
 * The model.  An *int tuple* is an integer or a tuple of int tuples:
 * 8, (4,(2,3)).  A *layout* S:D is a pair of congruent int tuples, a shape S
 * and a stride D; it is the function from coordinates to offsets
 * L(c) = sum_i c_i * d_i, where a coordinate may be given at any level of the
 * shape (an integer coordinate is split colexicographically: the left-most
 * mode varies fastest).  A *swizzle* Sw<B,M,S> is the bit function
 * x ^ ((x & Y) >> S) with Y = (2^B-1) << (M+max(0,S)).  A *composed layout*
 * A o O o B is the function c -> A(O + B(c)) where A is a swizzle, O an
 * offset and B a layout (B defines the domain).  A *tiler* is a layout, an
 * integer n (meaning n:1), `_` (keep the mode) or a tuple of tilers, one per
 * mode.  Every operation has CuTe's name and CuTe's exact result, shape and
 * stride alike (not merely the same function): the implementation follows
 * the algorithms of NVIDIA CuTe's include/cute/{layout,int_tuple,stride,
 * layout_composed,swizzle_layout}.hpp step by step, including the choices
 * that depend on whether a value is known (is_static) and equal to 0 or 1.
 *
 * Worked example (CuTe's composition example, checked by hand):
 *     A = (6,2):(8,2)   B = (4,3):(3,1)
 *     B mode 0 = 4:3 over A: stride 3 divides A's first extent 6 -> 2 steps
 *       of 24 (3*8) then the rest 2 lands in A's mode 1 with stride 2: (2,2):(24,2)
 *     B mode 1 = 3:1 over A: stays inside A's mode 0 -> 3:8
 *     composition(A,B) = ((2,2),3):((24,2),8)   and R(c) == A(B(c)) for all c.
 *
 * Static and dynamic.  A leaf is a `lay_expr`: either a known integer
 * (LAY_E_CONST) or a small symbolic expression over run-time values
 * (LAY_E_VAR) built from + - * / % ceil_div min max xor and or shifts.
 * Every operation runs the same code on both: arithmetic folds when both
 * operands are known and otherwise builds a node, simplifying with the
 * divisibility facts attached to every node (a VAR carries the fact
 * "divisible by d" the front end proved, e.g. from `assume K % 64 == 0`;
 * (K*8)/4 folds to K*2, (K*64)%32 folds to 0).  The expression type is a DAG
 * (nodes are shared, immutable) that the code generator walks bottom-up,
 * emitting one LLVM instruction per node kind (see lay_expr_kind below).
 * Run-time values are assumed non-negative (shapes, strides, indices): abs()
 * of a VAR is the VAR, signum() of a VAR is 1.
 *
 * Errors.  No operation aborts.  A failing operation returns NULL and leaves
 * a message in ctx->err naming the violated condition, e.g.
 * "composition: stride divisibility condition violated (rest stride 6 is
 * neither a multiple of nor less than shape 4)"; the first error wins, later
 * calls with a NULL argument return NULL silently.
 *
 * Memory.  All values live in an arena (`lay_arena`) owned by the caller and
 * freed in one call; values are immutable and freely shared.
 *
 * Invariants.  A LAY_LAYOUT's shape and stride are congruent int tuples
 * (LAY_INT or LAY_TUPLE of them).  A LAY_TUPLE of rank 1 is a real rank-1
 * tuple, never folded into its element (CuTe's rank-1 rule): it has rank 1
 * and depth one more than its element, prints "(4)" and reads back as
 * itself; as a tiler (4) divides mode 0 only while 4 is the layout 4:1 over
 * the whole layout; composition with (4):(1) yields a rank-1 layout.  Printing follows CuTe's operator<< minus the
 * leading underscores of static integers: ((2,2),3):((24,2),8),
 * Sw<3,3,3> o 0 o (8,64):(64,1).
 *
 * Differences from CuTe.  (1) CuTe distinguishes static and dynamic integers
 * by type; here a leaf is static exactly when it is a constant, so a value
 * the front end has folded is treated as static (CuTe would treat a run-time
 * int holding 4 as dynamic and sometimes choose a different, equivalent
 * shape).  (2) Operations CuTe rejects at compile time with static_assert are
 * errors here.  (3) ScaledBasis strides (identity layouts) are not modelled.
 * (4) Slicing a swizzled layout at known coordinates decays exactly as CuTe's
 * slice_and_offset does; at run-time coordinates flyc keeps the swizzle and
 * moves the offset inside it (CuTe tracks known bits with MixedBits).  (5) Tensors
 * are modelled as views: an offset and a layout (`lay_view`), printed
 * "OFFSET o LAYOUT".
 */
#ifndef FLYC_LAY_H
#define FLYC_LAY_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ arena --- */

typedef struct lay_arena lay_arena;

lay_arena *lay_arena_new(void);
void       lay_arena_free(lay_arena *a);
void      *lay_alloc(lay_arena *a, size_t n);      /* zeroed, 16-aligned; NULL only when out of memory */
char      *lay_strdup(lay_arena *a, const char *s);

/* Context of one evaluation: the arena and the first error. */
typedef struct lay_ctx {
	lay_arena *arena;
	int        failed;     /* non-zero once an error was recorded */
	char       err[320];   /* "OP: condition violated (...)" */
} lay_ctx;

void lay_ctx_init(lay_ctx *c, lay_arena *a);
/* Record an error (printf-style) unless one is already recorded; returns NULL. */
void *lay_fail(lay_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void lay_clear_error(lay_ctx *c);

/* ------------------------------------------------- integer expressions --- */

/*
 * Node kinds: name, printed operator, arity.  The code generator maps each
 * kind to LLVM: ADD add, SUB sub, MUL mul, DIV sdiv (operands are
 * non-negative), MOD srem, CDIV (a+b-1)/b, MIN smin, MAX smax, XOR xor,
 * AND and, OR or, SHL shl, SHR ashr, NEG sub 0,x.
 */
#define LAY_EXPR_KINDS(X) \
	X(CONST, "",  0)  /* value */ \
	X(VAR,   "",  0)  /* name, id, div */ \
	X(ADD,   "+", 2) \
	X(SUB,   "-", 2) \
	X(MUL,   "*", 2) \
	X(DIV,   "/", 2)  /* truncating, as C and CuTe */ \
	X(MOD,   "%", 2) \
	X(CDIV,  "ceil_div", 2) \
	X(MIN,   "min", 2) \
	X(MAX,   "max", 2) \
	X(XOR,   "^", 2) \
	X(AND,   "&", 2) \
	X(OR,    "|", 2) \
	X(SHL,   "<<", 2) \
	X(SHR,   ">>", 2) \
	X(NEG,   "-", 1)

typedef enum {
#define X(k, op, n) LAY_E_##k,
	LAY_EXPR_KINDS(X)
#undef X
	LAY_E_COUNT
} lay_expr_kind;

typedef struct lay_expr lay_expr;
struct lay_expr {
	lay_expr_kind   kind;
	int64_t         value;   /* CONST: the value */
	int64_t         div;     /* fact: the value is a multiple of div (>= 1); 0 means "is 0" */
	const char     *name;    /* VAR: printed name */
	int             id;      /* VAR: the front end's handle for the run-time value */
	const lay_expr *a, *b;   /* operands (a only for NEG) */
};

const lay_expr *lay_e_const(lay_ctx *c, int64_t v);
/* A run-time value, known to be a multiple of div (>= 1). */
const lay_expr *lay_e_var(lay_ctx *c, const char *name, int id, int64_t div);
/* Build a node of kind k, folding and simplifying; NULL on error (x/0, overflow). */
const lay_expr *lay_e_bin(lay_ctx *c, lay_expr_kind k, const lay_expr *a, const lay_expr *b);
const lay_expr *lay_e_neg(lay_ctx *c, const lay_expr *a);
int   lay_e_is_const(const lay_expr *e, int64_t v);  /* known and equal to v */
int   lay_e_known(const lay_expr *e);                /* a constant */
/* Evaluate with values for the VARs (vals[id]); 0 on success. */
int   lay_e_eval(const lay_expr *e, const int64_t *vals, int nvals, int64_t *out);
/* Print infix into buf (always NUL-terminated); returns the length it needed. */
size_t lay_e_print(const lay_expr *e, char *buf, size_t cap);

/* ------------------------------------------------------------- values --- */

#define LAY_KINDS(X) \
	X(INT,        "integer")          /* u.i */ \
	X(TUPLE,      "tuple")            /* u.t: int tuple, tiler, or mixed */ \
	X(UNDERSCORE, "underscore")       /* `_` in coordinates and tilers */ \
	X(LAYOUT,     "layout")           /* u.l */ \
	X(SWIZZLE,    "swizzle")          /* u.sw */ \
	X(COMPOSED,   "composed layout")  /* u.c */ \
	X(VIEW,       "view")             /* u.v: a tensor without storage */

typedef enum {
#define X(k, s) LAY_##k,
	LAY_KINDS(X)
#undef X
	LAY_KIND_COUNT
} lay_kind;

typedef struct lay_val lay_val;
struct lay_val {
	lay_kind kind;
	union {
		const lay_expr *i;                                   /* INT */
		struct { int n; const lay_val **e; } t;              /* TUPLE: n elements */
		struct { const lay_val *shape, *stride; } l;         /* LAYOUT */
		struct { int b, m, s; } sw;                          /* SWIZZLE Sw<b,m,s> */
		struct { const lay_val *a; const lay_expr *off; const lay_val *b; int keep; } c; /* COMPOSED a o off o b; a SWIZZLE, b LAYOUT; keep: never decays to b (CuTe's offset is not Int<0>) */
		struct { const lay_expr *off; const lay_val *l; } v;  /* VIEW: offset + layout (LAYOUT or COMPOSED) */
	} u;
};

const char *lay_kind_name(lay_kind k);

/* Constructors (NULL arguments propagate errors). */
const lay_val *lay_int(lay_ctx *c, int64_t v);
const lay_val *lay_int_e(lay_ctx *c, const lay_expr *e);
const lay_val *lay_tuple(lay_ctx *c, int n, const lay_val *const *e);
const lay_val *lay_tuple2(lay_ctx *c, const lay_val *a, const lay_val *b);
const lay_val *lay_underscore(lay_ctx *c);
/* shape:stride; checks congruence. */
const lay_val *lay_layout(lay_ctx *c, const lay_val *shape, const lay_val *stride);
/* make_layout(shape): column-major compact strides (shape-1 modes get stride 0). */
const lay_val *lay_make_layout(lay_ctx *c, const lay_val *shape);
const lay_val *lay_make_layout_right(lay_ctx *c, const lay_val *shape);
/* make_layout(L0, L1, ...): concatenate layouts as modes. */
const lay_val *lay_make_layout_n(lay_ctx *c, int n, const lay_val *const *ls);
const lay_val *lay_make_ordered_layout(lay_ctx *c, const lay_val *shape, const lay_val *order);
const lay_val *lay_swizzle(lay_ctx *c, int b, int m, int s);
/* A o off o B; A a swizzle; Sw<0,..> o 0 o B is B (CuTe's identity case). */
const lay_val *lay_composed(lay_ctx *c, const lay_val *a, const lay_expr *off, const lay_val *b);
const lay_val *lay_view(lay_ctx *c, const lay_expr *off, const lay_val *l);

int  lay_is_int(const lay_val *v);        /* INT */
int  lay_is_const(const lay_val *v, int64_t k);
int  lay_is_static(const lay_val *v);     /* every leaf known */
int  lay_is_inttuple(const lay_val *v);   /* INT or TUPLE of int tuples */
int  lay_is_layoutish(const lay_val *v);  /* LAYOUT or COMPOSED */
int  lay_equal(const lay_val *a, const lay_val *b);  /* structural equality */

/* ---------------------------------------------- int tuple operations --- */
/* Each also accepts a LAYOUT (acting on the shape) where CuTe does. */

const lay_val *lay_size(lay_ctx *c, const lay_val *x);       /* product of the shape */
const lay_val *lay_cosize(lay_ctx *c, const lay_val *l);     /* L(size-1)+1 for non-negative strides */
int            lay_rank(const lay_val *x);                   /* 1 for an integer */
int            lay_depth(const lay_val *x);                  /* 0 for an integer */
const lay_val *lay_shape(lay_ctx *c, const lay_val *l);
const lay_val *lay_stride(lay_ctx *c, const lay_val *l);
const lay_val *lay_get(lay_ctx *c, const lay_val *x, int i);                 /* mode i */
const lay_val *lay_take(lay_ctx *c, const lay_val *x, int b, int e);         /* modes [b,e) */
const lay_val *lay_select(lay_ctx *c, const lay_val *x, int n, const int *is);
const lay_val *lay_group(lay_ctx *c, const lay_val *x, int b, int e);        /* group [b,e) into one mode */
const lay_val *lay_append(lay_ctx *c, const lay_val *x, const lay_val *y);   /* y NULL: 1:0 for layouts */
const lay_val *lay_prepend(lay_ctx *c, const lay_val *x, const lay_val *y);
const lay_val *lay_append_n(lay_ctx *c, const lay_val *x, int n, const lay_val *pad); /* CuTe append<N> */
const lay_val *lay_flatten(lay_ctx *c, const lay_val *x);
const lay_val *lay_product_each(lay_ctx *c, const lay_val *shape);
const lay_val *lay_ceil_div(lay_ctx *c, const lay_val *a, const lay_val *b);  /* CuTe int_tuple ceil_div */
const lay_val *lay_shape_div(lay_ctx *c, const lay_val *a, const lay_val *b); /* with divisibility check */
const lay_val *lay_zip(lay_ctx *c, const lay_val *x);
const lay_val *lay_slice(lay_ctx *c, const lay_val *coord, const lay_val *x); /* keep modes at `_` */
const lay_val *lay_dice(lay_ctx *c, const lay_val *coord, const lay_val *x);  /* keep modes at integers */

/* crd2idx(coord, shape, stride); stride NULL: colexicographic index in shape. */
const lay_val *lay_crd2idx(lay_ctx *c, const lay_val *coord, const lay_val *shape, const lay_val *stride);
/* idx2crd(idx, shape, stride); stride NULL: colexicographic coordinate. */
const lay_val *lay_idx2crd(lay_ctx *c, const lay_val *idx, const lay_val *shape, const lay_val *stride);
/* L(coord) for a LAYOUT, COMPOSED or SWIZZLE (integer argument). */
const lay_val *lay_apply(lay_ctx *c, const lay_val *l, const lay_val *coord);

/* ------------------------------------------------- layout operations --- */

const lay_val *lay_coalesce(lay_ctx *c, const lay_val *l, const lay_val *profile /* NULL: whole */);
const lay_val *lay_filter(lay_ctx *c, const lay_val *l, const lay_val *profile /* NULL */);
const lay_val *lay_filter_zeros(lay_ctx *c, const lay_val *l);
/* lhs o rhs; rhs a layout, a tiler (tuple/int/_), a swizzle or a composed layout. */
const lay_val *lay_composition(lay_ctx *c, const lay_val *lhs, const lay_val *rhs);
const lay_val *lay_complement(lay_ctx *c, const lay_val *l, const lay_val *cotarget /* NULL: cosize */);
const lay_val *lay_right_inverse(lay_ctx *c, const lay_val *l);
const lay_val *lay_left_inverse(lay_ctx *c, const lay_val *l);

#define LAY_DIVPROD(X) \
	X(logical_divide) X(zipped_divide) X(tiled_divide) X(flat_divide) \
	X(logical_product) X(zipped_product) X(tiled_product) X(flat_product) \
	X(blocked_product) X(raked_product)
#define X(name) const lay_val *lay_##name(lay_ctx *c, const lay_val *l, const lay_val *tiler);
LAY_DIVPROD(X)
#undef X

const lay_val *lay_max_common_layout(lay_ctx *c, const lay_val *a, const lay_val *b);
const lay_val *lay_max_common_vector(lay_ctx *c, const lay_val *a, const lay_val *b);
const lay_val *lay_upcast(lay_ctx *c, const lay_val *l, int64_t n);
const lay_val *lay_downcast(lay_ctx *c, const lay_val *l, int64_t n);
/* recast_layout<OldType,NewType>: element sizes in bits. */
const lay_val *lay_recast(lay_ctx *c, const lay_val *l, int64_t old_bits, int64_t new_bits);
/* (tiler_mn, layout_tv) of thread layout thr and value layout val, as a 2-tuple. */
const lay_val *lay_make_layout_tv(lay_ctx *c, const lay_val *thr, const lay_val *val);
/* tile_to_shape(block, trg_shape, order); order NULL: column-major. */
const lay_val *lay_tile_to_shape(lay_ctx *c, const lay_val *block, const lay_val *trg, const lay_val *order);
/* local_tile(T, tiler, coord[, proj]) and local_partition(T, layout, index[, proj]);
 * T a layout or view; the result is a VIEW (offset and layout). */
const lay_val *lay_local_tile(lay_ctx *c, const lay_val *t, const lay_val *tiler, const lay_val *coord, const lay_val *proj);
const lay_val *lay_local_partition(lay_ctx *c, const lay_val *t, const lay_val *tile, const lay_val *index, const lay_val *proj);
const lay_val *lay_nullspace(lay_ctx *c, const lay_val *l);
/* sum of products of congruent int tuples */
const lay_val *lay_inner_product(lay_ctx *c, const lay_val *a, const lay_val *b);
/* the largest N for which upcast(L, N) passes its divisibility checks */
const lay_val *lay_max_alignment(lay_ctx *c, const lay_val *l);
/* gcd of all leaves of a and b (known integers) */
const lay_val *lay_gcd(lay_ctx *c, const lay_val *a, const lay_val *b);

/* -------------------------------------------------------- printing --- */

/* CuTe notation without underscores on static ints; into buf, always
 * NUL-terminated; returns the length needed (may exceed cap). */
size_t lay_print(const lay_val *v, char *buf, size_t cap);
/* Same into an arena string. */
const char *lay_to_string(lay_ctx *c, const lay_val *v);

/* -------------------------------------------------------- the reader --- */

/*
 * The expression syntax of `flyc eval` (and the language's layout constants):
 *   expr    := compose
 *   compose := layout ('o' layout)*                swizzle(3,3,3) o (8,64):(64,1)
 *   layout  := arith (':' arith)? call-suffix*      (4,8):(1,4)   L(5)  L((1,2))
 *   arith   := term (('+'|'-') term)*   term := unary (('*'|'/'|'%') unary)*
 *   unary   := '-' unary | primary call-suffix*
 *   primary := INT | NAME | '_' | '(' expr (',' expr)* ','? ')' | '[' expr (',' expr)* ']'
 *            | NAME '(' args ')'                     an operation (lay_read_ops)
 * A bare NAME is a binding (lay_reader_bind) or else a run-time value.
 * CuTe's rank-1 rule: `(x)` and `(x,)` of an int tuple (or `_`) are the
 * rank-1 tuple, never x; `(L)` of a layout, swizzle, composed layout or view
 * only groups; arithmetic reads a rank-1 tuple of an integer as the integer
 * ((3+5)*4 is 32).  `[a,b]` is a tiler (a tuple).
 */
typedef struct lay_reader lay_reader;
lay_reader *lay_reader_new(lay_ctx *c);
/* Bind NAME to a value for later expressions (`let NAME = EXPR` does this too). */
void lay_reader_bind(lay_reader *r, const char *name, const lay_val *v);
/* Declare the run-time value NAME with id and divisibility (for `assume`). */
void lay_reader_var(lay_reader *r, const char *name, int id, int64_t div);
/*
 * Parse and evaluate one line: an expression, or `let NAME = EXPR`.  Returns
 * the value (NULL on error: ctx->err holds "col N: message").  *is_let is set
 * for a `let` line.
 */
const lay_val *lay_read_eval(lay_reader *r, const char *text, int *is_let);
/* Names of the operations the reader knows, NULL-terminated. */
extern const char *const lay_read_ops[];
/*
 * Call operation NAME (one of lay_read_ops, with the spellings of the
 * language: "composition", "logical_divide", ...) on evaluated arguments;
 * checks the argument count.  For a front end that parses its own syntax.
 */
const lay_val *lay_call(lay_ctx *c, const char *name, int n, const lay_val *const *args);

/* ----------------------------------------------------- drawing (show) --- */

/* See lay_show.h (flyc show): grids, T#V# tables, SVG, LDS banks. */

#endif
