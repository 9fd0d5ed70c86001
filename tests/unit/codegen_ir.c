/* codegen_ir.c — the layout-aware IR: layouts in CuTe notation, printer,
 * verifier, the passes (lower-layout checked against an independent CuTe
 * evaluation over whole domains, fold, hoist, dce), metadata text, bundles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emit.h"
#include "flyrt_internal.h"
#include "ir.h"
#include "lower_llvm.h"
#include "target/target.h"

static int quiet_errors;
static char last_error[512];

static void
sink(void *ctx, IrLoc loc, const char *msg)
{
	(void)ctx; (void)loc;
	quiet_errors++;
	snprintf(last_error, sizeof last_error, "%s", msg);
}

static IrDiag
diag(void)
{
	IrDiag d = { sink, NULL, 0 };
	quiet_errors = 0;
	last_error[0] = 0;
	return d;
}

static char *
print_to_string(void (*fn)(FILE *, const void *), const void *x)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	fn(f, x);
	fclose(f);
	return p;
}

static void pl(FILE *f, const void *l) { ir_print_layout(f, l); }
static void pf(FILE *f, const void *fn) { ir_print_func(f, fn); }

static void
layout_roundtrip(void **state)
{
	static const char *const ok[] = {
		"((2,2),3):((24,2),8)", "(8,64):(64,1)", "sw(3,3,3) o (8,64):(64,1)", "(4):(1)",
		"((4,2),(2,8)):((2,16),(1,64))",
	};
	IrModule *m = ir_module_new();

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		IrLayout l;
		assert_int_equal(ir_layout_parse(m, ok[i], &l), 0);
		char *s = print_to_string(pl, &l);
		assert_string_equal(s, ok[i]);
		free(s);
	}
	IrLayout l;
	assert_int_equal(ir_layout_parse(m, "8:1", &l), 0);   /* CuTe's bare rank-1 form */
	char *s = print_to_string(pl, &l);
	assert_string_equal(s, "(8):(1)");
	free(s);
	assert_int_not_equal(ir_layout_parse(m, "(4,2):(1)", &l), 0);
	assert_int_not_equal(ir_layout_parse(m, "(4,2)", &l), 0);
	assert_int_not_equal(ir_layout_parse(m, "(4,2):(1,x)", &l), 0);
	assert_int_not_equal(ir_layout_parse(m, "(4,2):(1,4) junk", &l), 0);
	assert_int_not_equal(ir_layout_parse(m, "sw(3,3) o (4):(1)", &l), 0);
	ir_module_free(m);
}

static void
layout_cosize(void **state)
{
	IrModule *m = ir_module_new();
	IrLayout l;

	ir_layout_parse(m, "((2,2),3):((24,2),8)", &l);
	assert_int_equal(ir_layout_cosize(&l), 1 + 24 + 2 + 16);
	ir_layout_parse(m, "(8,64):(64,1)", &l);
	assert_int_equal(ir_layout_cosize(&l), 512);
	ir_layout_parse(m, "(4,2,256):(1,4,8)", &l);
	assert_int_equal(ir_layout_cosize(&l), 2048);
	ir_layout_parse(m, "(%3):(1)", &l);
	assert_int_equal(ir_layout_cosize(&l), -1);
	ir_module_free(m);
}

/* ---- reference CuTe evaluation, written independently of ir_layout.c ---- */

typedef struct { int n; long shape[8], stride[8]; } Flat;   /* a flattened mode */

static void
flatten(const IrTuple *s, const IrTuple *d, Flat *f)
{
	if (!s->n) {
		f->shape[f->n] = s->value;
		f->stride[f->n++] = d->value;
		return;
	}
	for (int i = 0; i < s->n; i++)
		flatten(s->kid[i], d->kid[i], f);
}

/* offset of 1-D coordinate c in a (flattened, colexicographic) mode */
static long
ref_mode(const Flat *f, long c)
{
	long off = 0;
	for (int i = 0; i < f->n; i++) {
		long ci = i + 1 < f->n ? c % f->shape[i] : c;
		c = i + 1 < f->n ? c / f->shape[i] : 0;
		off += ci * f->stride[i];
	}
	return off;
}

static long
ref_swz(IrSwizzle sw, long o)
{
	if (!sw.b)
		return o;
	long yyy = ((1L << sw.b) - 1) << (sw.m + sw.s);
	return o ^ ((o & yyy) >> sw.s);
}

/* Builds a kernel loading tensor(lay) at constant coordinates coords[0..nc),
 * runs the pipeline and returns the offset constant of the resulting ld. */
static long
lowered_offset(const char *lay, int nc, const long *coords, int lds)
{
	IrModule *m = ir_module_new();
	IrFunc *f = ir_func_new(m, "k", (IrLoc){ 0 });
	IrBuilder b = ir_builder(f);
	IrLayout l;
	IrRef t, c[4], ld;
	IrDiag d = diag();
	IrPassOpts po = { 0 };
	long off = -12345;
	int64_t v;

	ir_func_param(f, "p", IR_PARAM_PTR, IR_F32, 4);
	assert_int_equal(ir_layout_parse(m, lay, &l), 0);
	if (lds)
		t = ir_b_lds_alloc(&b, IR_F32, l, "s");
	else
		t = ir_b_tensor_global(&b, ir_b_arg(&b, 0), IR_F32, l, IR_ADDR_AUTO, "p");
	for (int i = 0; i < nc; i++)
		c[i] = ir_b_const(&b, ir_ty(IR_I32), coords[i]);
	ld = ir_b_tload(&b, t, 1, (uint32_t)nc, c);
	ir_b_ret(&b);
	po.verify = 1;
	assert_int_equal(ir_run_passes(m, tgt_find("gfx950"), &po, &d), 0);
	assert_int_equal(f->inst[ld].op, IR_OP_LD);
	if (ir_const_value(f, f->inst[ld].ops[1], &v))
		off = (long)v;
	ir_module_free(m);
	return off;
}

static void
lower_layout_whole_domain(void **state)
{
	static const char *const lays[] = {
		"((2,2),3):((24,2),8)", "(8,64):(64,1)", "(4,(2,3)):(6,(1,2))", "((4,2),(2,8)):((2,16),(1,64))",
	};
	IrModule *m = ir_module_new();

	for (size_t k = 0; k < sizeof lays / sizeof lays[0]; k++) {
		IrLayout l;
		Flat all = { 0 }, m0 = { 0 }, m1 = { 0 };
		ir_layout_parse(m, lays[k], &l);
		flatten(l.shape, l.stride, &all);
		flatten(l.shape->kid[0], l.stride->kid[0], &m0);
		flatten(l.shape->kid[1], l.stride->kid[1], &m1);
		long n = ir_tuple_size(l.shape), n0 = ir_tuple_size(l.shape->kid[0]);
		long n1 = ir_tuple_size(l.shape->kid[1]);
		/* 1-D coordinates over the whole layout (sampled for big ones) */
		for (long c = 0; c < n; c += n > 64 ? 37 : 1)
			assert_int_equal(lowered_offset(lays[k], 1, &c, 0), ref_mode(&all, c));
		/* one coordinate per mode */
		for (long i = 0; i < n0; i += n0 > 8 ? 3 : 1)
			for (long j = 0; j < n1; j += n1 > 8 ? 7 : 1) {
				long cc[2] = { i, j };
				assert_int_equal(lowered_offset(lays[k], 2, cc, 0), ref_mode(&m0, i) + ref_mode(&m1, j));
			}
	}
	ir_module_free(m);
}

static void
lower_layout_swizzle_bijective(void **state)
{
	IrModule *m = ir_module_new();
	IrLayout l;
	Flat m0 = { 0 }, m1 = { 0 };
	unsigned char seen[512] = { 0 };

	ir_layout_parse(m, "sw(3,3,3) o (8,64):(64,1)", &l);
	flatten(l.shape->kid[0], l.stride->kid[0], &m0);
	flatten(l.shape->kid[1], l.stride->kid[1], &m1);
	for (long i = 0; i < 8; i++)
		for (long j = 0; j < 64; j++) {
			long cc[2] = { i, j };
			long want = ref_swz(l.sw, ref_mode(&m0, i) + ref_mode(&m1, j));
			long got = lowered_offset("sw(3,3,3) o (8,64):(64,1)", 2, cc, 1);
			assert_int_equal(got, want);
			assert_true(got >= 0 && got < 512);
			assert_false(seen[got]);
			seen[got] = 1;
		}
	ir_module_free(m);
}

static void
printer_golden(void **state)
{
	IrModule *m = ir_module_new();
	IrFunc *f = ir_func_new(m, "k", (IrLoc){ 0 });
	IrBuilder b = ir_builder(f);
	IrLayout l;
	IrRef iv, acc;

	ir_func_param(f, "a", IR_PARAM_PTR, IR_F32, 16);
	ir_func_param(f, "n", IR_PARAM_VAL, IR_I32, 0);
	f->block[0] = 64;
	IrRef a = ir_b_arg(&b, 0), n = ir_b_arg(&b, 1);
	char lay[32];
	snprintf(lay, sizeof lay, "(%%%u,4):(4,1)", n);
	ir_layout_parse(m, lay, &l);
	IrRef t = ir_b_tensor_global(&b, a, IR_F32, l, IR_ADDR_AUTO, "a");
	IrRef z = ir_b_fconst(&b, ir_ty(IR_F32), 0.5);
	IrRef zero = ir_b_const(&b, ir_ty(IR_I32), 0), one = ir_b_const(&b, ir_ty(IR_I32), 1);
	IrRef loop = ir_b_for(&b, zero, n, one, 1, &z, &iv, &acc);
	IrRef c[2] = { iv, zero };
	IrRef v = ir_b_tload(&b, t, 1, 2, c);
	IrRef s = ir_b_bin(&b, IR_OP_FADD, acc, v);
	ir_b_yield(&b, 1, &s);
	ir_b_end(&b);
	ir_b_barrier(&b);
	ir_b_wait(&b, 0, -1, -1);
	IrRef r = ir_b_proj(&b, loop, 0);
	ir_b_tstore(&b, t, r, 2, c);
	ir_b_ret(&b);
	char *txt = print_to_string(pf, f);
	assert_string_equal(txt,
		"kernel @k(a: ptr f32 align 16, n: i32) block(64,1,1) {\n"
		"  %1 = arg 0 : ptr\n"
		"  %2 = arg 1 : i32\n"
		"  %3 = tensor.global %1 : f32 (%2,4):(4,1) addr=auto name=a\n"
		"  %4 = const 0.5 : f32\n"
		"  %5 = const 0 : i32\n"
		"  %6 = const 1 : i32\n"
		"  %7 = for %5, %2, %6, %4 {\n"
		"    %8 = rarg 0 : i32\n"
		"    %9 = rarg 1 : f32\n"
		"    %10 = tload %3[%8, %5] : f32\n"
		"    %11 = fadd %9, %10 : f32\n"
		"    yield %11\n"
		"  }\n"
		"  barrier\n"
		"  wait vmem=0 lds=-1 stores=-1\n"
		"  %15 = proj %7, 0 : f32\n"
		"  tstore %3, %15[%8, %5]\n"
		"  ret\n"
		"}\n");
	free(txt);
	/* that kernel is invalid: tstore uses %8, the loop's iv, outside the loop */
	IrDiag d = diag();
	assert_int_not_equal(ir_verify(f, &d), 0);
	assert_non_null(strstr(last_error, "operand not defined before use"));
	ir_module_free(m);
}

static void
verifier_catches(void **state)
{
	IrModule *m = ir_module_new();
	IrFunc *f = ir_func_new(m, "k", (IrLoc){ 0 });
	IrBuilder b = ir_builder(f);
	IrDiag d = diag();

	IrRef x = ir_b_const(&b, ir_ty(IR_I32), 1), y = ir_b_const(&b, ir_ty(IR_I64), 2);
	IrRef bad = ir_b_bin(&b, IR_OP_ADD, x, y);
	(void)bad;
	ir_b_ret(&b);
	assert_int_not_equal(ir_verify(f, &d), 0);
	assert_non_null(strstr(last_error, "integer operation on mismatched"));

	f = ir_func_new(m, "k2", (IrLoc){ 0 });
	b = ir_builder(f);
	d = diag();
	IrRef fl = ir_b_fconst(&b, ir_ty(IR_F32), 1.0);
	ir_b_extract(&b, fl, 0);
	ir_b_ret(&b);
	assert_int_not_equal(ir_verify(f, &d), 0);
	assert_non_null(strstr(last_error, "extract/insert on a scalar"));

	f = ir_func_new(m, "k3", (IrLoc){ 0 });   /* no ret */
	b = ir_builder(f);
	d = diag();
	ir_b_barrier(&b);
	assert_int_not_equal(ir_verify(f, &d), 0);
	assert_non_null(strstr(last_error, "does not end with ret"));

	f = ir_func_new(m, "k4", (IrLoc){ 0 });   /* yield type differs from init */
	b = ir_builder(f);
	d = diag();
	IrRef z = ir_b_const(&b, ir_ty(IR_I32), 0), iv, it;
	IrRef init = ir_b_fconst(&b, ir_ty(IR_F32), 0);
	ir_b_for(&b, z, z, z, 1, &init, &iv, &it);
	ir_b_yield(&b, 1, &iv);
	ir_b_end(&b);
	ir_b_ret(&b);
	assert_int_not_equal(ir_verify(f, &d), 0);
	assert_non_null(strstr(last_error, "yielded value's type"));

	f = ir_func_new(m, "k4b", (IrLoc){ 0 });  /* readfirstlane: i32 scalars only */
	b = ir_builder(f);
	d = diag();
	ir_b_un(&b, IR_OP_UNIFORM, ir_b_fconst(&b, ir_ty(IR_F32), 1.0));
	ir_b_ret(&b);
	assert_int_not_equal(ir_verify(f, &d), 0);
	assert_non_null(strstr(last_error, "readfirstlane takes and gives an i32 scalar"));
	f = ir_func_new(m, "k4c", (IrLoc){ 0 });
	b = ir_builder(f);
	d = diag();
	ir_b_un(&b, IR_OP_UNIFORM, ir_b_bin(&b, IR_OP_DIV, ir_b_tid(&b, 0), ir_b_wave_size(&b)));
	ir_b_ret(&b);
	assert_int_equal(ir_verify(f, &d), 0);

	f = ir_func_new(m, "k5", (IrLoc){ 0 });   /* a fine kernel */
	b = ir_builder(f);
	d = diag();
	IrRef c1 = ir_b_const(&b, ir_ty(IR_I32), 3);
	IrRef cond = ir_b_cmp(&b, IR_LT, c1, c1);
	IrType ti = ir_ty(IR_I32);
	IrRef iff = ir_b_if(&b, cond, 1, &ti);
	ir_b_yield(&b, 1, &c1);
	ir_b_else(&b);
	IrRef c2 = ir_b_const(&b, ir_ty(IR_I32), 4);
	ir_b_yield(&b, 1, &c2);
	ir_b_end(&b);
	ir_b_proj(&b, iff, 0);
	ir_b_ret(&b);
	assert_int_equal(ir_verify(f, &d), 0);
	ir_module_free(m);
}

/* vectors of 256 lanes (a register fragment at codegen's limit): the type
 * keeps its lane count (IrType.lanes was 8 bits once: 256 became 0), prints
 * as <256 x f32>, verifies, and lanes past the end are rejected */
static void
wide_vectors(void **state)
{
	IrModule *m = ir_module_new();
	IrFunc *f = ir_func_new(m, "k", (IrLoc){ 0 });
	IrBuilder b = ir_builder(f);
	IrDiag d = diag();
	char buf[32];

	IrType t = ir_vec(IR_F32, 256);
	assert_int_equal(t.lanes, 256);
	assert_string_equal(ir_ty_str(t, buf, sizeof buf), "<256 x f32>");
	assert_int_equal(ir_vec(IR_BF16, IR_MAX_LANES).lanes, IR_MAX_LANES);
	IrRef one = ir_b_fconst(&b, ir_ty(IR_F32), 1.0);
	IrRef v = ir_b_splat(&b, t, one);
	IrRef x = ir_b_extract(&b, v, 255);
	IrRef w = ir_b_insert(&b, v, x, 200);
	assert_true(ir_ty_eq(f->inst[w].ty, t));
	IrRef h = ir_b_cvt(&b, ir_vec(IR_BF16, 256), w);
	assert_int_equal(f->inst[h].ty.lanes, 256);
	ir_b_ret(&b);
	assert_int_equal(ir_verify(f, &d), 0);

	f = ir_func_new(m, "k2", (IrLoc){ 0 });
	b = ir_builder(f);
	d = diag();
	v = ir_b_splat(&b, t, ir_b_fconst(&b, ir_ty(IR_F32), 2.0));
	ir_b_extract(&b, v, 256);
	ir_b_ret(&b);
	assert_int_not_equal(ir_verify(f, &d), 0);
	assert_non_null(strstr(last_error, "lane out of range"));
	ir_module_free(m);
}

static void
fold_and_dce(void **state)
{
	IrModule *m = ir_module_new();
	IrFunc *f = ir_func_new(m, "k", (IrLoc){ 0 });
	IrBuilder b = ir_builder(f);
	IrDiag d = diag();
	int64_t v;

	IrRef a = ir_b_const(&b, ir_ty(IR_I32), 65536);
	IrRef sq = ir_b_bin(&b, IR_OP_MUL, a, a);                 /* wraps to 0 in i32 */
	IrRef s = ir_b_bin(&b, IR_OP_ADD, ir_b_const(&b, ir_ty(IR_I32), 2), ir_b_const(&b, ir_ty(IR_I32), 3));
	IrRef dz = ir_b_bin(&b, IR_OP_DIV, s, ir_b_const(&b, ir_ty(IR_I32), 0));   /* stays */
	IrRef t = ir_b_tid(&b, 0);
	IrRef same = ir_b_bin(&b, IR_OP_MUL, t, ir_b_const(&b, ir_ty(IR_I32), 1));
	IrRef used = ir_b_bin(&b, IR_OP_ADD, same, sq);
	ir_b_setprio(&b, 0);
	ir_b_ret(&b);
	(void)used;
	ir_pass_fold(f, NULL, &d);
	assert_true(ir_const_value(f, sq, &v) && v == 0);
	assert_true(ir_const_value(f, s, &v) && v == 5);
	assert_int_equal(f->inst[dz].op, IR_OP_DIV);
	assert_int_equal(f->inst[same].op, IR_OP_COUNT);          /* t*1 -> t, erased */
	ir_pass_dce(f, NULL, &d);
	/* nothing is used by a side effect: every pure instruction goes */
	assert_int_equal(f->reg[1].n, 2);
	assert_int_equal(f->inst[f->reg[1].inst[0]].op, IR_OP_SETPRIO);
	assert_int_equal(ir_verify(f, &d), 0);
	ir_module_free(m);
}

static void
hoist_invariants(void **state)
{
	IrModule *m = ir_module_new();
	IrFunc *f = ir_func_new(m, "k", (IrLoc){ 0 });
	IrBuilder b = ir_builder(f);
	IrDiag d = diag();
	IrRef iv;

	ir_func_param(f, "n", IR_PARAM_VAL, IR_I32, 0);
	IrRef n = ir_b_arg(&b, 0);
	IrRef z = ir_b_const(&b, ir_ty(IR_I32), 0), one = ir_b_const(&b, ir_ty(IR_I32), 1);
	IrRef loop = ir_b_for(&b, z, n, one, 0, NULL, &iv, NULL);
	IrRef inv = ir_b_bin(&b, IR_OP_MUL, n, n);               /* invariant */
	IrRef var = ir_b_bin(&b, IR_OP_ADD, iv, inv);            /* depends on iv */
	IrRef risky = ir_b_bin(&b, IR_OP_DIV, one, n);           /* n may be 0: stays */
	ir_b_setprio(&b, 1);
	ir_b_end(&b);
	ir_b_ret(&b);
	(void)var;
	ir_pass_hoist(f, NULL, &d);
	assert_int_equal(f->inst[inv].parent, f->inst[loop].parent);
	assert_int_equal(f->inst[var].parent, f->inst[loop].region[0]);
	assert_int_equal(f->inst[risky].parent, f->inst[loop].region[0]);
	assert_int_equal(ir_verify(f, &d), 0);
	ir_module_free(m);
}

static void
meta_text(void **state)
{
	IrModule *m = ir_module_new();
	IrFunc *f = ir_func_new(m, "gemm", (IrLoc){ 0 });
	IrBuilder b = ir_builder(f);

	ir_func_param(f, "A", IR_PARAM_PTR, IR_BF16, 16);
	ir_func_param(f, "K", IR_PARAM_VAL, IR_I32, 0);
	ir_func_param(f, "Q", IR_PARAM_PTR, IR_I8, 1);
	f->param[0].layout_meta = "$K : 1";          /* version 2: after every arg line */
	f->param[2].elem_name = "fp8";               /* the element type as written */
	f->block[0] = 256;
	f->grid_rpn[0] = "device.cus $K 64 ceil_div min";
	ir_func_requires(f, "$K 64 % 0 ==", "K % 64 == 0");
	ir_b_ret(&b);
	char *t = ir_meta_text(m);
	assert_string_equal(t, "flyc-meta 2\nkernel gemm\narg A ptr bf16 16\narg K val i32\narg Q ptr fp8 1\n"
	                       "layout A $K : 1\nblock 256 1 1\n"
	                       "grid device.cus $K 64 ceil_div min ; 1 ; 1\nlds 0\n"
	                       "requires $K 64 % 0 == ; K % 64 == 0\nend\n");
	/* and libflyrt reads it back */
	FlyMeta fm;
	char err[256];
	assert_int_equal(flyrt_meta_parse(t, strlen(t), &fm, err, sizeof err), 0);
	assert_int_equal(fm.kernels[0].args[0].rank, 1);
	assert_true(fm.kernels[0].grid[0].uses_cus);
	flyrt_meta_free(&fm);
	free(t);
	ir_module_free(m);
}

static uint64_t
rd64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void
bundle_layout(void **state)
{
	uint8_t a[5000], c[100];
	const uint8_t *objs[2] = { a, c };
	size_t sizes[2] = { sizeof a, sizeof c }, n;
	const char *archs[2] = { "gfx950", "gfx1201" };
	static const char *const ids[3] = { "host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx950",
	                                    "hipv4-amdgcn-amd-amdhsa--gfx1201" };

	memset(a, 0xA5, sizeof a);
	memset(c, 0x5C, sizeof c);
	uint8_t *bnd = emit_bundle(2, archs, objs, sizes, &n);
	assert_non_null(bnd);
	assert_memory_equal(bnd, "__CLANG_OFFLOAD_BUNDLE__", 24);
	assert_int_equal(rd64(bnd + 24), 3);
	size_t p = 32;
	uint64_t off[3], sz[3];
	for (int i = 0; i < 3; i++) {
		off[i] = rd64(bnd + p);
		sz[i] = rd64(bnd + p + 8);
		uint64_t len = rd64(bnd + p + 16);
		assert_int_equal(len, strlen(ids[i]));
		assert_memory_equal(bnd + p + 24, ids[i], len);
		p += 24 + len;
		assert_int_equal(off[i] % 4096, 0);
	}
	assert_int_equal(sz[0], 0);
	assert_int_equal(off[0], 4096);
	assert_int_equal(off[1], 4096);
	assert_int_equal(off[2], 4096 + 8192);   /* 5000 bytes rounded up */
	assert_memory_equal(bnd + off[1], a, sizeof a);
	assert_memory_equal(bnd + off[2], c, sizeof c);
	assert_int_equal(n, off[2] + sizeof c);
	free(bnd);
}

/* A view's element offset is its own layout plus the offsets of every view
 * up to the root (layouts of views are in the root's memory offsets); an
 * identity tensor yields its offsets. */
static void
views_and_identity(void **state)
{
	for (long base = 0; base < 3; base++)
		for (long c = 0; c < 8; c++) {
			IrModule *m = ir_module_new();
			IrFunc *f = ir_func_new(m, "k", (IrLoc){ 0 });
			IrBuilder b = ir_builder(f);
			IrLayout l, vl, wl, il;
			IrDiag d = diag();
			IrPassOpts po = { 0 };
			int64_t v;

			ir_func_param(f, "p", IR_PARAM_PTR, IR_F32, 4);
			ir_layout_parse(m, "(16,8):(1,16)", &l);
			ir_layout_parse(m, "(4,2):(16,64)", &vl);   /* a 4x2 view with its own strides */
			ir_layout_parse(m, "(8):(2)", &wl);
			ir_layout_parse(m, "(100):(1)", &il);
			IrRef t = ir_b_tensor_global(&b, ir_b_arg(&b, 0), IR_F32, l, IR_ADDR_AUTO, "p");
			IrRef off = ir_b_const(&b, ir_ty(IR_I32), 5 + base);
			IrRef vw = ir_b_tensor_view(&b, t, off, vl);
			IrRef w2 = ir_b_tensor_view(&b, vw, ir_b_const(&b, ir_ty(IR_I32), 1), wl);
			IrRef cc = ir_b_const(&b, ir_ty(IR_I32), c);
			IrRef ld = ir_b_tload(&b, w2, 1, 1, &cc);
			IrRef ld2 = ir_b_tload(&b, vw, 1, 1, &cc);
			IrRef id = ir_b_tensor_identity(&b, il);
			IrRef cid = ir_b_tload(&b, id, 1, 1, &cc);
			ir_b_tstore(&b, t, ir_b_cvt(&b, ir_ty(IR_F32), cid), 1, &cc);
			ir_b_ret(&b);
			po.verify = 1;
			assert_int_equal(ir_run_passes(m, tgt_find("gfx950"), &po, &d), 0);
			assert_int_equal(f->inst[ld].op, IR_OP_LD);
			assert_int_equal(f->inst[ld].ops[0], t);             /* rebased on the root */
			assert_true(ir_const_value(f, f->inst[ld].ops[1], &v));
			/* layouts of views map to the root's memory offsets: w2(c) = 2c + 1 + vw's 5+base */
			assert_int_equal(v, 2 * c + 1 + 5 + base);
			assert_true(ir_const_value(f, f->inst[ld2].ops[1], &v));
			assert_int_equal(v, 5 + base + (c % 4) * 16 + (c / 4) * 64);
			assert_true(ir_const_value(f, cid, &v));                  /* identity: the offset */
			assert_int_equal(v, c);
			ir_module_free(m);
		}
}

static void
while_loop_verifies(void **state)
{
	IrModule *m = ir_module_new();
	IrFunc *f = ir_func_new(m, "k", (IrLoc){ 0 });
	IrBuilder b = ir_builder(f);
	IrDiag d = diag();
	IrRef init = ir_b_const(&b, ir_ty(IR_I32), 0), before, body, ys[2];

	IrRef w = ir_b_while(&b, 1, &init, &before);
	ys[0] = ir_b_cmp(&b, IR_LT, before, ir_b_const(&b, ir_ty(IR_I32), 10));
	ys[1] = before;
	ir_b_yield(&b, 2, ys);
	ir_b_while_body(&b, w, &body);
	IrRef nx = ir_b_bin(&b, IR_OP_ADD, body, ir_b_const(&b, ir_ty(IR_I32), 3));
	ir_b_yield(&b, 1, &nx);
	ir_b_end(&b);
	ir_b_proj(&b, w, 0);
	ir_b_ret(&b);
	assert_int_equal(ir_verify(f, &d), 0);
	/* a condition region yielding a non-boolean is caught */
	f->inst[f->reg[f->inst[w].region[0]].inst[f->reg[f->inst[w].region[0]].n - 1]].ops[0] = before;
	assert_int_not_equal(ir_verify(f, &d), 0);
	assert_non_null(strstr(last_error, "while condition region"));
	ir_module_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout_roundtrip),
		cmocka_unit_test(layout_cosize),
		cmocka_unit_test(lower_layout_whole_domain),
		cmocka_unit_test(lower_layout_swizzle_bijective),
		cmocka_unit_test(printer_golden),
		cmocka_unit_test(verifier_catches),
		cmocka_unit_test(fold_and_dce),
		cmocka_unit_test(wide_vectors),
		cmocka_unit_test(hoist_invariants),
		cmocka_unit_test(meta_text),
		cmocka_unit_test(bundle_layout),
		cmocka_unit_test(views_and_identity),
		cmocka_unit_test(while_loop_verifies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
