/*
 * builtins.h — every builtin function of .fly, once.
 *
 * One row per builtin: its enumerator, its name, the least and most positional
 * arguments, the named arguments it accepts (space separated), and how code
 * generation lowers a call whose value is not known at compile time:
 *
 *   FOLD    compile-time only: the checker folds it, and refuses a call it
 *           cannot fold ("needs compile-time arguments"), so code generation
 *           never sees one
 *   QUERY   size, get, shape, stride, idx2crd of a run-time view: folded when static, else
 *           index arithmetic (grid formulas, requires, destructuring)
 *   VIEW    an operation that makes a view or a register tensor (codegen_view.c)
 *   PRED    a predicate from coordinates or alignment (copy predicates, guards)
 *   COPY    copies and copy atoms (codegen_copy.c)
 *   MMA     MMA atoms, gemm and fill (codegen_mma.c)
 *   REDUCE  reductions over threads, lanes, waves or a workgroup
 *   SYNC    barriers, waits and schedule hints
 *   LANE    lane, wave and cross-lane values
 *   ATOMIC  read-modify-write of one element of a global or LDS tensor
 *           (codegen_atomic.c); a call statement, its value (the old
 *           element) may go unused without a warning
 *   VALUE   elementwise arithmetic and math on scalars and fragments (codegen_math.c)
 *
 * The checker (sema_expr.c) and code generation (codegen.c) both expand this
 * table; code generation dispatches on the enumerator the checker resolved,
 * never on the name.
 */

#ifndef FLYC_BUILTINS_H
#define FLYC_BUILTINS_H

#define BUILTINS(X) \
	X(B_MAKE_LAYOUT, "make_layout", 1, 2, "", FOLD) \
	X(B_SHAPE, "shape", 1, 1, "", QUERY) \
	X(B_STRIDE, "stride", 1, 1, "", QUERY) \
	X(B_SIZE, "size", 1, 2, "", QUERY) \
	X(B_COSIZE, "cosize", 1, 1, "", FOLD) \
	X(B_RANK, "rank", 1, 1, "", FOLD) \
	X(B_DEPTH, "depth", 1, 1, "", FOLD) \
	X(B_GET, "get", 2, 3, "", QUERY) \
	X(B_COMPOSITION, "composition", 2, 2, "", VIEW) \
	X(B_COMPLEMENT, "complement", 1, 2, "", FOLD) \
	X(B_COALESCE, "coalesce", 1, 2, "", FOLD) \
	X(B_LEFT_INVERSE, "left_inverse", 1, 1, "", FOLD) \
	X(B_RIGHT_INVERSE, "right_inverse", 1, 1, "", FOLD) \
	X(B_LOGICAL_DIVIDE, "logical_divide", 2, 2, "", VIEW) \
	X(B_ZIPPED_DIVIDE, "zipped_divide", 2, 2, "", VIEW) \
	X(B_TILED_DIVIDE, "tiled_divide", 2, 2, "", VIEW) \
	X(B_FLAT_DIVIDE, "flat_divide", 2, 2, "", VIEW) \
	X(B_LOGICAL_PRODUCT, "logical_product", 2, 2, "", FOLD) \
	X(B_ZIPPED_PRODUCT, "zipped_product", 2, 2, "", FOLD) \
	X(B_TILED_PRODUCT, "tiled_product", 2, 2, "", FOLD) \
	X(B_FLAT_PRODUCT, "flat_product", 2, 2, "", FOLD) \
	X(B_BLOCKED_PRODUCT, "blocked_product", 2, 2, "", FOLD) \
	X(B_RAKED_PRODUCT, "raked_product", 2, 2, "", FOLD) \
	X(B_SWIZZLE, "swizzle", 3, 3, "", FOLD) \
	X(B_LOCAL_TILE, "local_tile", 3, 3, "", VIEW) \
	X(B_LOCAL_PARTITION, "local_partition", 3, 3, "", VIEW) \
	X(B_IDX2CRD, "idx2crd", 2, 3, "", QUERY) \
	X(B_CRD2IDX, "crd2idx", 2, 3, "", FOLD) \
	X(B_CEIL_DIV, "ceil_div", 2, 2, "", VALUE) \
	X(B_IDENTITY, "make_identity", 1, 1, "", VIEW) \
	X(B_ELEM_LESS, "elem_less", 2, 2, "", PRED) \
	X(B_ALIGNED, "aligned", 2, 2, "", PRED) \
	X(B_FRAGMENT, "fragment", 2, 2, "", VIEW) \
	X(B_FRAGMENT_LIKE, "fragment_like", 1, 2, "", VIEW) \
	X(B_COPY, "copy", 2, 3, "pred", COPY) \
	X(B_GEMM, "gemm", 4, 4, "scale_a scale_b", MMA) \
	X(B_FILL, "fill", 2, 2, "", MMA) \
	X(B_REDUCE, "reduce", 2, 2, "over width", REDUCE) \
	X(B_SUM, "sum", 1, 1, "", REDUCE) \
	X(B_TILED_COPY, "tiled_copy", 1, 1, "threads values of", COPY) \
	X(B_TILED_MMA, "tiled_mma", 1, 1, "waves tile", MMA) \
	X(B_BARRIER, "barrier", 0, 0, "", SYNC) \
	X(B_WAIT, "wait", 0, 0, "vmem lgkm exp", SYNC) \
	X(B_SCHED_GROUP, "sched_group", 3, 3, "", SYNC) \
	X(B_SCHED_BARRIER, "sched_barrier", 0, 1, "", SYNC) \
	X(B_SETPRIO, "setprio", 1, 1, "", SYNC) \
	X(B_LANE_ID, "lane_id", 0, 0, "", LANE) \
	X(B_WAVE_ID, "wave_id", 0, 0, "", LANE) \
	X(B_WAVE_SIZE, "wave_size", 0, 0, "", LANE) \
	X(B_SHFL_XOR, "shfl_xor", 2, 2, "", LANE) \
	X(B_ATOMIC_ADD, "atomic_add", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_SUB, "atomic_sub", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_MIN, "atomic_min", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_MAX, "atomic_max", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_AND, "atomic_and", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_OR, "atomic_or", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_XOR, "atomic_xor", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_INC, "atomic_inc", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_DEC, "atomic_dec", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_EXCHANGE, "atomic_exchange", 2, 2, "scope order", ATOMIC) \
	X(B_ATOMIC_CAS, "atomic_cas", 3, 3, "scope order", ATOMIC) \
	X(B_FENCE, "fence", 0, 0, "scope order", SYNC) \
	X(B_FLOAT_BITS, "float_bits", 1, 1, "", VALUE) \
	X(B_SELECT, "select", 3, 3, "", VALUE) \
	X(B_FMA, "fma", 3, 3, "", VALUE) \
	X(B_MIN, "min", 2, 2, "", VALUE) \
	X(B_MAX, "max", 2, 2, "", VALUE) \
	X(B_ADD, "add", 2, 2, "", VALUE) \
	X(B_MUL, "mul", 2, 2, "", VALUE) \
	X(B_EXP, "exp", 1, 1, "", VALUE) \
	X(B_EXP2, "exp2", 1, 1, "", VALUE) \
	X(B_LOG, "log", 1, 1, "", VALUE) \
	X(B_LOG2, "log2", 1, 1, "", VALUE) \
	X(B_SQRT, "sqrt", 1, 1, "", VALUE) \
	X(B_RSQRT, "rsqrt", 1, 1, "", VALUE) \
	X(B_SIN, "sin", 1, 1, "", VALUE) \
	X(B_COS, "cos", 1, 1, "", VALUE) \
	X(B_TANH, "tanh", 1, 1, "", VALUE) \
	X(B_FLOOR, "floor", 1, 1, "", VALUE) \
	X(B_CEIL, "ceil", 1, 1, "", VALUE) \
	X(B_FAST_EXP, "fast_exp", 1, 1, "", VALUE) \
	X(B_FAST_EXP2, "fast_exp2", 1, 1, "", VALUE) \
	X(B_FAST_LOG2, "fast_log2", 1, 1, "", VALUE) \
	X(B_FAST_RCP, "fast_rcp", 1, 1, "", VALUE) \
	X(B_ABS, "abs", 1, 1, "", VALUE) \
	X(B_SQUARE, "square", 1, 1, "", VALUE) \
	X(B_FAST_SIN, "fast_sin", 1, 1, "", VALUE) \
	X(B_FAST_COS, "fast_cos", 1, 1, "", VALUE) \
	X(B_ERF, "erf", 1, 1, "", VALUE) \
	X(B_POPCOUNT, "popcount", 1, 1, "", VALUE) \
	X(B_CLZ, "clz", 1, 1, "", VALUE) \
	X(B_CTZ, "ctz", 1, 1, "", VALUE) \
	X(B_BITCAST, "bitcast", 2, 2, "", VALUE) \
	X(B_ORDER_KEY, "order_key", 1, 1, "", VALUE) \
	X(B_ORDER_KEY_INV, "order_key_inv", 1, 2, "", VALUE)

enum {
#define X(id, name, lo, hi, named, lower) id,
	BUILTINS(X)
#undef X
	B_NBUILTINS
};

enum {
	LOWER_FOLD, LOWER_QUERY, LOWER_VIEW, LOWER_PRED, LOWER_COPY, LOWER_MMA,
	LOWER_REDUCE, LOWER_SYNC, LOWER_LANE, LOWER_VALUE, LOWER_ATOMIC
};

extern const struct Builtin {
	const char *name;
	int min, max;
	const char *named;
	int lower;
} builtins[B_NBUILTINS];

/*
 * Methods of tiled copies, tiled MMAs and their per-thread slices: enumerator,
 * name, the type they are methods of, and the operand they name (S/D for a copy's
 * source and destination, A/B/C for an MMA's, 0 for none). The checker stores
 * the enumerator in the member node (Node.u.member.method).
 */
#define METHODS(X) \
	X(M_SLICE,       "slice",       "tiled_copy or tiled_mma", 0) \
	X(M_PARTITION_S, "partition_S", "thr_copy", 'S') \
	X(M_PARTITION_D, "partition_D", "thr_copy", 'D') \
	X(M_RETILE_S,    "retile_S",    "thr_copy", 'S') \
	X(M_RETILE_D,    "retile_D",    "thr_copy", 'D') \
	X(M_PARTITION_A, "partition_A", "thr_mma", 'A') \
	X(M_PARTITION_B, "partition_B", "thr_mma", 'B') \
	X(M_PARTITION_C, "partition_C", "thr_mma", 'C') \
	X(M_FRAGMENT_A,  "fragment_A",  "thr_mma", 'A') \
	X(M_FRAGMENT_B,  "fragment_B",  "thr_mma", 'B') \
	X(M_FRAGMENT_C,  "fragment_C",  "thr_mma", 'C')

enum {
	M_NONE = -1,
#define X(id, name, of, operand) id,
	METHODS(X)
#undef X
	M_NMETHODS
};

extern const struct Method {
	const char *name;
	const char *of;
	char operand;
} methods[M_NMETHODS];

#endif
