/*
 * codegen_int.h — what codegen.c shares with the other AST->IR lowering files
 * (codegen_mma.c: tiled MMAs, partitions, fragments, gemm). Not a public
 * interface: only compiler/codegen*.c include it.
 */
#ifndef FLYC_CODEGEN_INT_H
#define FLYC_CODEGEN_INT_H

#include "builtins.h"
#include "codegen.h"
#include "codegen_copy.h"
#include "ir.h"
#include "layout/lay.h"

typedef struct Binding Binding;
struct Binding {
	Symbol *sym;
	IrRef val;
	Node *lazy;         /* a predicate (elem_less call) or tiled copy/MMA evaluated where it is used */
	Node *frag;         /* let/var of thr_mma.fragment_X(...): that call (retile_S/D check it) */
	IrTuple *tup;       /* a tuple of run-time values (leaves: IrRefs or static ints), val 0 */
	Binding *next;
};

enum { CG_PIPEQ = 128 };   /* copies per pipeline load block tracked by the register-staged prefetch */
enum { MAXCARRY = 32 };    /* loop-carried variables of one loop (for, static for, pipeline) */

typedef struct {
	Diag *d;
	SemaKernel *k;
	IrModule *m;
	IrFunc *f;
	IrBuilder b;
	Binding *env;       /* innermost first */
	int failed;
	const char *file;   /* source file name for IR locations */
	IrRef pipe_stage;   /* inside a pipeline block: its `stage` (k % S) */
	int npipes;         /* pipelines lowered so far (ring alias scopes) */
	/* register-staged prefetch (stmt_pipeline): while a load block is lowered
	 * before compute, pipe_split is 1: a copy that writes LDS through registers
	 * loads only and queues its value in pipe_q (every copy takes one entry, 0
	 * when it was done whole); lowered again after compute with pipe_split 2,
	 * each copy takes its entry (pipe_iq) and only writes the queued value */
	int pipe_split;
	IrRef pipe_val;     /* pipe_split 2: the current copy's queued value */
	int pipe_slot;      /* pipe_split 1: the current copy's entry (-1: none) */
	IrRegion pipe_reg;  /* pipe_split 1: the region a copy must be in to be split */
	IrRef pipe_q[CG_PIPEQ];
	int pipe_nq, pipe_iq;
	/* the in-range steady state of a pipeline with predicated copies
	 * (pipe_fast in codegen_pipe.c): while its load block is lowered with
	 * pipe_vote 1, a copy emits nothing but ANDs its all-in-range predicate
	 * into pipe_ok; with pipe_nopred 1 a copy ignores its pred= */
	int pipe_vote, pipe_nopred;
	IrRef pipe_ok;
	lay_ctx lc;         /* the layout engine's context for tensor operations (codegen_view.c) */
	const Node **part_atom;  /* [IrRef] the copy atom of the tiled copy whose partition_S/D made the view */
	uint32_t npart_atom;
	/* partitions by copies laid out as an MMA operand (codegen_mma.c): the
	 * view, how many waves hold the same values (A: WN, B: WM, C: 1) and this
	 * thread's index among them (an i32) */
	struct CgDupPart { IrRef view, idx; int n; } *dup_part;
	int ndup_part, capdup_part;
	/* inlining a device function (codegen_fn.c): its return statement leaves its value here */
	int fn_depth;       /* calls being inlined */
	IrRef fn_val;       /* a value returned ((IrRef)-1: none yet) */
	IrTuple *fn_tup;    /* a tuple returned */
} Cg;

/* Values per thread a register fragment (and so a copy to or from one, a
 * view used as a value, fragment_like, fragment_A/B/C) may hold: 256, i.e.
 * all 256 architectural VGPRs of a gfx950 lane for 32-bit elements (the GEMM's
 * 128 f32 accumulators per lane fit twice). Larger sizes get a located error
 * (cg_frag_limit), never a truncated vector. */
enum { CG_MAXFRAG = 256 };

/* The builtin (builtins.h) that callee names, as the checker resolved it, or -1:
 * code generation dispatches on this enumerator, never on the spelling. */
static inline int
cg_builtin(const Node *callee)
{
	if (!callee || callee->kind != E_NAME || !callee->u.name.sym || callee->u.name.sym->kind != SYM_BUILTIN ||
	    !callee->u.name.sym->type)
		return -1;
	return callee->u.name.sym->type->builtin;
}

/* ---- functions the codegen_*.c files share, by the file that defines them ---- */

/* codegen.c */
IrRef cg_arith(Cg *c, Span sp, AstOp op, IrRef l, IrRef r, IrType rt, int uns);
IrRef cg_call(Cg *c, Node *n);
IrRef cg_tensor_coords(Cg *c, Node *n, IrRef *t, IrRef *coords, uint32_t *nc);
IrTuple *cg_tuple_of_node(Cg *c, Node *n);
IrType cg_type_of(Cg *c, Node *n, int *ok);
Node *cg_lookup_lazy(Cg *c, Symbol *s);
int cg_known_int(Cg *c, IrRef r, int64_t *v);            /* r folds to the integer *v */
int cg_is_unsigned(ScalarKind k);
int cg_storage_only(const Node *n);
void cg_bind_lazy(Cg *c, Symbol *s, Node *n);

/* codegen_meta.c */
const char *cg_layout_meta(Cg *c, Node *lay);
const char *cg_rpn_of(Cg *c, Node *n, const char *what);
const char *cg_source_text(Cg *c, Span s);

/* codegen_tensor.c */
IrRef cg_fragment_like(Cg *c, Node *n);
IrRef cg_local_partition(Cg *c, Node *n);
IrRef cg_make_identity(Cg *c, Node *n);
IrRef cg_slice(Cg *c, Node *n, IrRef t);
int64_t cg_contiguous(Cg *c, IrRef t);

/* codegen_copy.c */
IrRef cg_load_view(Cg *c, IrRef t, unsigned n, int64_t run, unsigned force);
IrRef cg_zero_of(Cg *c, IrType t);
int cg_packed_ok(Cg *c, Span sp, IrRef t, unsigned n, int64_t run, unsigned force);
int64_t cg_view_residue(Cg *c, IrRef t, int64_t g);  /* view offset mod g (power of 2), -1 unknown */
void cg_copy(Cg *c, Node *n);

/* codegen_atomic.c */
IrRef cg_atomic(Cg *c, Node *n, int builtin);
void cg_fence(Cg *c, Node *n);

/* codegen_lane.c */
IrRef cg_lane(Cg *c, Node *n, int builtin);
IrRef cg_lane_id(Cg *c);
IrRef cg_shfl_from(Cg *c, IrRef x, IrRef src);

/* codegen_reduce.c */
IrRef cg_reduce(Cg *c, Node *n, int is_sum);
IrRef cg_scan(Cg *c, Node *n);
/* argmax/argmin(x, pos, over=...): the winner's value and position; 0 after a located error */
int cg_argmax(Cg *c, Node *n, IrRef *val, IrRef *pos);

/* codegen_partition.c */
IrRef cg_partition(Cg *c, Node *n, Node *slice_call, Node *tc, Node *tn);
Node *cg_frag_origin(Cg *c, Node *e);
Node *cg_named_arg(Node *n, const char *name);
Node *cg_tiled_copy_of(Cg *c, Node *base, Node **slice_call);
int cg_is_fragment_call(const Node *n);

/* codegen_fn.c: device function calls (inlined) and tuples of run-time values */
IrRef cg_fn_call(Cg *c, Node *n, IrTuple **tup);        /* tup: where a tuple result goes, or NULL */
IrTuple *cg_tuple_val(Cg *c, Node *n);                  /* a tuple-typed expression; NULL after an error */
IrRef cg_tuple_leaf(Cg *c, const IrTuple *x, const Type *t);  /* a leaf as a value of type t */
void cg_bind_pattern(Cg *c, Node *pat, IrTuple *t, int is_var);
void cg_assign_tuple(Cg *c, Node *lhs, IrTuple *t);
IrTuple *cg_lookup_tuple(Cg *c, Symbol *s);
void cg_bind_tuple(Cg *c, Symbol *s, IrTuple *t);
void cg_return(Cg *c, Node *n);

/* codegen_frag.c: register fragments (reg, fragment(T, L), elements through the layout) and
 * coordinates as values (identity elements, get(c, k), elem_less) */
IrRef cg_reg_alloc(Cg *c, Node *st);
IrRef cg_fragment(Cg *c, Node *n);
int cg_fragment_lane(Cg *c, Node *n, IrRef v, uint32_t *lane);  /* the lane of element n (E_INDEX) of v */
IrTuple *cg_coord_elem(Cg *c, Node *n);
IrRef cg_coord_get(Cg *c, Node *n);
IrRef cg_coord_value(Cg *c, IrRef t, Span sp);
IrRef cg_elem_less_value(Cg *c, Node *n);

/* codegen_stmt.c */
IrRef cg_convert_packed(Cg *c, Node *n);
int cg_carried(Cg *c, Node *body, Symbol **vars, IrRef *inits);
int cg_packed_convert(Node *n);
void cg_block(Cg *c, Node *n);
void cg_close_loop(Cg *c, IrRef loop, Symbol **vars, const IrRef *inits, int nv, Binding *saved);
void cg_collect_assigned(Node *n, Symbol **out, int *nout, int max);
void cg_stmt(Cg *c, Node *n);
void cg_kernel_block(Cg *c, Node *b);   /* a kernel's body, with its early returns */

/* codegen_pipe.c */
void cg_stmt_pipeline(Cg *c, Node *n);

/* codegen.c helpers (thin wrappers over its static functions) */
void cg_unsupported(Cg *c, Span s, const char *what);   /* located "not supported yet", sets failed */
/* 1 when n values per thread exceed CG_MAXFRAG: then a located error naming
 * what (e.g. "this copy") has been reported and c->failed set */
int cg_frag_limit(Cg *c, Span s, const char *what, int64_t n);
void cg_bind(Cg *c, Symbol *s, IrRef v);
IrRef cg_lookup(Cg *c, Symbol *s);
Node *cg_lazy_of(Cg *c, Node *n);                       /* the node a lazily bound name stands for */
IrRef cg_expr(Cg *c, Node *n);
int cg_layout_of(Cg *c, Node *n, IrLayout *out);        /* 0 on success */
int cg_scalar_of(ScalarKind k, IrScalar *out);
IrRef cg_to_type(Cg *c, IrRef v, IrType t);
int cg_is_tensor_val(Cg *c, IrRef r);
IrTensor *cg_tensor_of(Cg *c, IrRef r);
IrType cg_off_type(Cg *c, IrRef t);                     /* i64 for global views, else i32 */
IrRef cg_leaf_val(Cg *c, const IrTuple *x, IrType t);
int64_t cg_view_size(Cg *c, IrRef t);
IrRef cg_value_of(Cg *c, IrRef r, Span s);              /* a view used as a value is loaded whole */
IrLoc cg_loc_of(Cg *c, Span s);

/* codegen_mma.c: calls on tiled MMAs (partition_A/B/C, fragment_A/B/C) and
 * gemm(mma, A, B, C). Sets *handled when n is one of them. */
/* codegen_math.c: a float function of language.md §9.3 applied to x (already of
 * type rt); *handled is 0 when fn is not one of them or rt is not a float type */
IrRef cg_math(Cg *c, int builtin, IrRef x, IrType rt, int *handled);
/* codegen_math.c: the bits builtins (popcount, clz, ctz, bitcast, order_key,
 * order_key_inv) of call n; *handled is 0 when builtin is not one of them */
IrRef cg_bits(Cg *c, Node *n, int builtin, int *handled);

/* codegen_view.c: OP (a lay_call name) of call n on the tensor in its first
 * argument, through the layout engine; 0 after a located error */
IrRef cg_view_op(Cg *c, Node *n, const char *op);
/* size, get, shape, stride, rank, depth, idx2crd of views and run-time tuples
 * with an integer result, through the engine; 0 after a located error */
IrRef cg_view_query(Cg *c, Node *n);
IrRef cg_view_thread_part(Cg *c, IrRef t, const int64_t *ts, const int64_t *td, const int64_t *vs, int r,
                          IrRef idx, Span sp);
const lay_val *cg_lay_of(Cg *c, IrRef t);                 /* the view's layout (without the root's swizzle) */
const lay_val *cg_lay_of_node(Cg *c, Node *n);             /* an argument (tiler, coordinate, layout) */
const lay_val *cg_lay_of_value(Cg *c, const Value *v);     /* a compile-time value */
int cg_lay_int(const lay_val *v, int64_t *out);            /* 1 and *out for a known integer */
int64_t cg_lay_known(const lay_val *v);                    /* a known size (>= 0), else -1 */
int64_t cg_run(Cg *c, IrRef t, const lay_val *l);          /* contiguous run of layout l of view t */
IrRef cg_view_mma_part(Cg *c, IrRef t, const lay_val *tv, const int64_t pq[2], const int64_t w[2], IrRef lane,
                       IrRef wp, IrRef wq, Span sp);
/* the source TV layout of a copy atom with src/dst TV layouts laid out as the
 * operand TV layout tv (CuTe's tidfrg_S); NULL after a located error */
const lay_val *cg_lay_copy_src_tv(Cg *c, const lay_val *tv, const lay_val *src, const lay_val *dst,
                                  const char *atom, Span sp);
/* elements [k, k + n) of view t, contiguous (the caller has checked its run) */
IrRef cg_view_piece(Cg *c, IrRef t, int64_t k, int64_t n, Span sp);
/* 1 if every access start of operand copy partition (tv, tile pq, waves w) of t,
 * lanes' values in accesses of E, is a multiple of g elements; 0 (bad = lane,
 * value, offset; lane -1: a tile repeat) if not; -1 if t's layout is not static */
int cg_view_mma_aligned(Cg *c, IrRef t, const lay_val *tv, const int64_t pq[2], const int64_t w[2], int64_t E,
                        int64_t g, int64_t bad[3]);

IrRef cg_mma_call(Cg *c, Node *n, int *handled);
/* the variable an expression statement assigns through gemm/fill, or NULL */
Symbol *cg_mma_assigned(Node *e);
/* thr.partition_S(T) / partition_D(T) (IS_SRC 1 / 0) of tiled_copy(ATOM, of=OF)
 * (OF: the mma.A / .B / .C node) for thread IDX: the MMA operand's partition,
 * after checking that ATOM's accesses fit in its per-lane value runs. N locates errors. */
IrRef cg_mma_copy_partition(Cg *c, Node *n, Node *of, const CgCopyAtom *atom, IrRef t, IrRef idx, int is_src);
/* thr.retile_S/D(frag) of tiled_copy(ATOM, of=OF): FRAG's value V, unchanged
 * (the copy's value order is the MMA's), after checking that its size is a
 * multiple of the operand's values per lane and, when ORIGIN (the
 * fragment_X call that made it) is known, that it is the same operand of an
 * equal tiled MMA. 0 after a located error at N. */
IrRef cg_mma_retile(Cg *c, Node *n, Node *of, Node *origin, IrRef v);
/* When view v (or the view it was taken of) is a partition made by a copy laid
 * out as an MMA operand: the number of waves holding the same values (>= 1),
 * with *idx this thread's index among them; 0 otherwise. */
int cg_mma_dups(Cg *c, IrRef v, IrRef *idx);

#endif
