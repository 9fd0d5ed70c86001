/*
 * cgtool — drives flyc's code generator on kernels built directly with the
 * IR builder (ir.h), with the code-generation half of flyc's command line.
 * It exists so the IR, the lowering and the emission can be tested (see
 * tests/codegen/) independently of the front end.
 *
 * usage: cgtool KERNEL [options]     (cgtool --list shows the kernels)
 * options: --offload-arch=ARCH (repeatable), -O0..-O3, --emit=ir|llvm|bc|asm|obj|hsaco,
 *   -S, -o FILE, --print-after=PASS, --print-after-all, --stop-after=PASS,
 *   -save-temps, -g, -mllvm OPT, --resource-usage[=json], --no-gpu-bundle-output,
 *   --ld-path=PATH, --bound=BYTES (span bound for the kernel's global tensors),
 *   --addr=auto|buffer|global64 (addressing of the kernel's global tensors)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "ir.h"

static IrAddr g_addr = IR_ADDR_AUTO;
static uint64_t g_bound;

static IrLayout
lay(IrModule *m, const char *text)
{
	IrLayout l;
	if (ir_layout_parse(m, text, &l)) {
		fprintf(stderr, "cgtool: bad layout '%s'\n", text);
		exit(2);
	}
	return l;
}

static IrRef
gtensor(IrBuilder *b, IrRef arg, IrScalar elem, IrLayout l, const char *name)
{
	IrRef t = ir_b_tensor_global(b, arg, elem, l, g_addr, name);
	b->fn->tensor[b->fn->inst[t].aux].span_bound = g_bound;
	return t;
}

static IrRef
k32(IrBuilder *b, int64_t v)
{
	return ir_b_const(b, ir_ty(IR_I32), v);
}

/* out[i] = bf16(alpha * f32(x[i]) + f32(y[i])), 8 elements per thread,
 * x, y, out : bf16[(N):(1)] with run-time N; grid ceil_div(N, 2048). */
static void
k_scale_add(IrModule *m)
{
	IrFunc *f = ir_func_new(m, "scale_add", (IrLoc){ .file = "scale_add.fly", .line = 3, .col = 1 });
	IrBuilder b = ir_builder(f);
	char buf[64];

	ir_func_param(f, "x", IR_PARAM_PTR, IR_BF16, 16);
	ir_func_param(f, "y", IR_PARAM_PTR, IR_BF16, 16);
	ir_func_param(f, "out", IR_PARAM_PTR, IR_BF16, 16);
	ir_func_param(f, "alpha", IR_PARAM_VAL, IR_F32, 0);
	ir_func_param(f, "N", IR_PARAM_VAL, IR_I32, 0);
	f->block[0] = 256;
	f->grid_rpn[0] = "$N 2048 ceil_div";
	ir_func_requires(f, "$N 8 % 0 ==", "N % 8 == 0");
	ir_func_requires(f, "@x 16 % 0 ==", "aligned(x, 16)");
	IrRef x = ir_b_arg(&b, 0), y = ir_b_arg(&b, 1), o = ir_b_arg(&b, 2);
	IrRef alpha = ir_b_arg(&b, 3), n = ir_b_arg(&b, 4);
	snprintf(buf, sizeof buf, "(%%%u):(1)", n);
	IrRef tx = gtensor(&b, x, IR_BF16, lay(m, buf), "x");
	IrRef ty = gtensor(&b, y, IR_BF16, lay(m, buf), "y");
	IrRef to = gtensor(&b, o, IR_BF16, lay(m, buf), "out");
	b.loc.line = 7;
	IrRef i = ir_b_bin(&b, IR_OP_MUL, ir_b_bin(&b, IR_OP_ADD, ir_b_bin(&b, IR_OP_MUL, ir_b_bid(&b, 0), k32(&b, 256)),
	                                          ir_b_tid(&b, 0)), k32(&b, 8));
	IrRef in = ir_b_cmp(&b, IR_LT, i, n);
	ir_b_if(&b, in, 0, NULL);
	b.loc.line = 9;
	IrRef vx = ir_b_cvt(&b, ir_vec(IR_F32, 8), ir_b_tload(&b, tx, 8, 1, &i));
	IrRef vy = ir_b_cvt(&b, ir_vec(IR_F32, 8), ir_b_tload(&b, ty, 8, 1, &i));
	IrRef va = ir_b_splat(&b, ir_vec(IR_F32, 8), alpha);
	IrRef r = ir_b_fma(&b, va, vx, vy);
	b.loc.line = 10;
	ir_b_tstore(&b, to, ir_b_cvt(&b, ir_vec(IR_BF16, 8), r), 1, &i);
	ir_b_end(&b);
	ir_b_ret(&b);
}

/* static layout: a (64,128):(128,1) f32 tile; each thread reads the fixed
 * element (3,5) and element (t/128, t%128) and writes their sum to out(t). */
static void
k_static_tile(IrModule *m)
{
	IrFunc *f = ir_func_new(m, "static_tile", (IrLoc){ .file = "static_tile.fly", .line = 1, .col = 1 });
	IrBuilder b = ir_builder(f);

	ir_func_param(f, "a", IR_PARAM_PTR, IR_F32, 16);
	ir_func_param(f, "out", IR_PARAM_PTR, IR_F32, 16);
	f->block[0] = 128;
	IrRef a = ir_b_arg(&b, 0), o = ir_b_arg(&b, 1);
	IrRef ta = gtensor(&b, a, IR_F32, lay(m, "(64,128):(128,1)"), "a");
	IrRef to = gtensor(&b, o, IR_F32, lay(m, "(128):(1)"), "out");
	IrRef c[2] = { k32(&b, 3), k32(&b, 5) };
	IrRef v0 = ir_b_tload(&b, ta, 1, 2, c);
	IrRef t = ir_b_tid(&b, 0);
	IrRef v1 = ir_b_tload(&b, ta, 1, 1, &t);    /* 1-D coordinate over (64,128) */
	ir_b_tstore(&b, to, ir_b_bin(&b, IR_OP_FADD, v0, v1), 1, &t);
	ir_b_ret(&b);
}

/* swizzled LDS: bf16 sw(3,3,3) o (8,64):(64,1); thread t (64 threads)
 * stores 8 values at row t%8, column 8*(t/8), then after a barrier reads
 * them back transposed (row (t/8), column 8*(t%8)) and writes to global. */
static void
k_lds_swizzle(IrModule *m)
{
	IrFunc *f = ir_func_new(m, "lds_swizzle", (IrLoc){ .file = "lds_swizzle.fly", .line = 1, .col = 1 });
	IrBuilder b = ir_builder(f);

	ir_func_param(f, "in", IR_PARAM_PTR, IR_BF16, 16);
	ir_func_param(f, "out", IR_PARAM_PTR, IR_BF16, 16);
	f->block[0] = 64;
	IrRef in = ir_b_arg(&b, 0), o = ir_b_arg(&b, 1);
	IrRef ti = gtensor(&b, in, IR_BF16, lay(m, "(512):(1)"), "in");
	IrRef to = gtensor(&b, o, IR_BF16, lay(m, "(512):(1)"), "out");
	IrRef s = ir_b_lds_alloc(&b, IR_BF16, lay(m, "sw(3,3,3) o (8,64):(64,1)"), "sA");
	IrRef t = ir_b_tid(&b, 0);
	IrRef g = ir_b_bin(&b, IR_OP_MUL, t, k32(&b, 8));
	IrRef v = ir_b_tload(&b, ti, 8, 1, &g);
	IrRef c[2] = { ir_b_bin(&b, IR_OP_REM, t, k32(&b, 8)),
	               ir_b_bin(&b, IR_OP_MUL, ir_b_bin(&b, IR_OP_DIV, t, k32(&b, 8)), k32(&b, 8)) };
	ir_b_tstore(&b, s, v, 2, c);
	ir_b_barrier(&b);
	IrRef c2[2] = { ir_b_bin(&b, IR_OP_DIV, t, k32(&b, 8)),
	                ir_b_bin(&b, IR_OP_MUL, ir_b_bin(&b, IR_OP_REM, t, k32(&b, 8)), k32(&b, 8)) };
	IrRef w = ir_b_tload(&b, s, 8, 2, c2);
	ir_b_tstore(&b, to, w, 1, &g);
	ir_b_ret(&b);
}

/* Static coordinates into a swizzled LDS buffer fold to constants:
 * sw(3,3,3) o (8,64):(64,1), (3,16) -> 208 ^ 24 = 200, (5,40) -> 360 ^ 40 = 320
 * (elements; bf16, so bytes 400 and 640). 256 threads, so the barrier stays. */
static void
k_lds_static(IrModule *m)
{
	IrFunc *f = ir_func_new(m, "lds_static", (IrLoc){ .file = "lds_static.fly", .line = 1, .col = 1 });
	IrBuilder b = ir_builder(f);

	ir_func_param(f, "out", IR_PARAM_PTR, IR_BF16, 2);
	f->block[0] = 256;
	IrRef o = ir_b_arg(&b, 0);
	IrRef to = gtensor(&b, o, IR_BF16, lay(m, "(256):(1)"), "out");
	IrRef s = ir_b_lds_alloc(&b, IR_BF16, lay(m, "sw(3,3,3) o (8,64):(64,1)"), "sA");
	IrRef t = ir_b_tid(&b, 0);
	IrRef c1[2] = { k32(&b, 3), k32(&b, 16) }, c2[2] = { k32(&b, 5), k32(&b, 40) };
	IrRef v = ir_b_cvt(&b, ir_ty(IR_BF16), t);
	ir_b_tstore(&b, s, v, 2, c1);
	ir_b_tstore(&b, s, v, 2, c2);
	ir_b_barrier(&b);
	IrRef sum = ir_b_bin(&b, IR_OP_FADD, ir_b_tload(&b, s, 1, 2, c2), ir_b_tload(&b, s, 1, 2, c1));
	ir_b_tstore(&b, to, sum, 1, &t);
	ir_b_ret(&b);
}

/* A two-stage pipeline skeleton (256 threads): for k in [0, K/64), each
 * thread copies 64 values of its row of A (M,K):(K,1) (run-time K) in 16
 * vectors of 4 through its slot of stage k%2 of an LDS ring
 * (4,2,256):(1,4,8) f32, waits, and accumulates in f32 (a loop-carried
 * value); sched_group and setprio hints; a barrier per k step. Shows
 * hoisting: the row base row*K is loop-invariant. */
static void
k_pipeline(IrModule *m)
{
	IrFunc *f = ir_func_new(m, "pipeline", (IrLoc){ .file = "pipeline.fly", .line = 1, .col = 1 });
	IrBuilder b = ir_builder(f);
	char buf[64];

	ir_func_param(f, "A", IR_PARAM_PTR, IR_F32, 16);
	ir_func_param(f, "out", IR_PARAM_PTR, IR_F32, 4);
	ir_func_param(f, "M", IR_PARAM_VAL, IR_I32, 0);
	ir_func_param(f, "K", IR_PARAM_VAL, IR_I32, 0);
	f->block[0] = 256;
	f->waves_per_eu[0] = 2;
	f->waves_per_eu[1] = 2;
	f->grid_rpn[0] = "$M 256 ceil_div";
	ir_func_requires(f, "$K 64 % 0 ==", "K % 64 == 0");
	IrRef A = ir_b_arg(&b, 0), o = ir_b_arg(&b, 1), M = ir_b_arg(&b, 2), K = ir_b_arg(&b, 3);
	snprintf(buf, sizeof buf, "(%%%u,%%%u):(%%%u,1)", M, K, K);
	IrRef tA = gtensor(&b, A, IR_F32, lay(m, buf), "A");
	snprintf(buf, sizeof buf, "(%%%u):(1)", M);
	IrRef tO = gtensor(&b, o, IR_F32, lay(m, buf), "out");
	IrRef s = ir_b_lds_alloc(&b, IR_F32, lay(m, "(4,2,256):(1,4,8)"), "ring");
	IrRef t = ir_b_tid(&b, 0);
	IrRef row = ir_b_bin(&b, IR_OP_ADD, ir_b_bin(&b, IR_OP_MUL, ir_b_bid(&b, 0), k32(&b, 256)), t);
	IrRef kt = ir_b_bin(&b, IR_OP_DIV, K, k32(&b, 64));
	IrRef zero = ir_b_fconst(&b, ir_ty(IR_F32), 0.0);
	IrRef iv, acc;
	IrRef loop = ir_b_for(&b, k32(&b, 0), kt, k32(&b, 1), 1, &zero, &iv, &acc);
	{
		IrRef stage = ir_b_bin(&b, IR_OP_AND, iv, k32(&b, 1));
		IrRef col = ir_b_bin(&b, IR_OP_MUL, iv, k32(&b, 64));
		IrRef inner, accs;
		ir_b_setprio(&b, 1);
		IrRef l2 = ir_b_for(&b, k32(&b, 0), k32(&b, 16), k32(&b, 1), 1, &acc, &inner, &accs);
		{
			IrRef cc = ir_b_bin(&b, IR_OP_ADD, col, ir_b_bin(&b, IR_OP_MUL, inner, k32(&b, 4)));
			IrRef ga[2] = { row, cc };
			IrRef v = ir_b_tload(&b, tA, 4, 2, ga);
			IrRef sc[3] = { k32(&b, 0), stage, t };
			ir_b_tstore(&b, s, v, 3, sc);
			ir_b_sched_group(&b, 0x20, 1, 0);
			ir_b_sched_group(&b, 0x200, 1, 0);
			ir_b_wait(&b, 0, -1, -1);
			IrRef back = ir_b_tload(&b, s, 1, 3, sc);
			IrRef sum = ir_b_bin(&b, IR_OP_FADD, accs, back);
			ir_b_yield(&b, 1, &sum);
		}
		ir_b_end(&b);
		ir_b_setprio(&b, 0);
		ir_b_wait(&b, -1, 0, -1);
		ir_b_barrier(&b);
		IrRef nxt = ir_b_proj(&b, l2, 0);
		ir_b_yield(&b, 1, &nxt);
	}
	ir_b_end(&b);
	IrRef res = ir_b_proj(&b, loop, 0);
	ir_b_tstore(&b, tO, res, 1, &row);
	ir_b_ret(&b);
}

/* A tensor of 2^30 x 8 f32 (32 GiB) with a static layout: cannot be
 * addressed by a buffer descriptor. */
static void
k_huge(IrModule *m)
{
	IrFunc *f = ir_func_new(m, "huge", (IrLoc){ .file = "huge.fly", .line = 4, .col = 3 });
	IrBuilder b = ir_builder(f);

	ir_func_param(f, "a", IR_PARAM_PTR, IR_F32, 4);
	f->block[0] = 64;
	IrRef a = ir_b_arg(&b, 0);
	b.loc = (IrLoc){ .file = "huge.fly", .line = 5, .col = 7 };
	IrRef ta = gtensor(&b, a, IR_F32, lay(m, "(1073741824,8):(8,1)"), "a");
	IrRef c[2] = { ir_b_bid(&b, 0), ir_b_const(&b, ir_ty(IR_I32), 7) };
	IrRef v = ir_b_tload(&b, ta, 1, 2, c);
	ir_b_tstore(&b, ta, ir_b_bin(&b, IR_OP_FADD, v, v), 2, c);
	ir_b_ret(&b);
}

/* Uses 200 KiB of LDS: fits neither target. */
static void
k_lds_overflow(IrModule *m)
{
	IrFunc *f = ir_func_new(m, "lds_overflow", (IrLoc){ .file = "lds_overflow.fly", .line = 2, .col = 5 });
	IrBuilder b = ir_builder(f);

	f->block[0] = 64;
	b.loc = (IrLoc){ .file = "lds_overflow.fly", .line = 3, .col = 5 };
	IrRef s = ir_b_lds_alloc(&b, IR_F32, lay(m, "(51200):(1)"), "big");
	IrRef t = ir_b_tid(&b, 0);
	ir_b_tstore(&b, s, ir_b_fconst(&b, ir_ty(IR_F32), 1.0), 1, &t);
	ir_b_ret(&b);
}

static const struct { const char *name; void (*build)(IrModule *); } KERNELS[] = {
	{ "scale_add", k_scale_add },
	{ "static_tile", k_static_tile },
	{ "lds_swizzle", k_lds_swizzle },
	{ "lds_static", k_lds_static },
	{ "pipeline", k_pipeline },
	{ "huge", k_huge },
	{ "lds_overflow", k_lds_overflow },
};

static int
starts(const char *a, const char *p, const char **rest)
{
	size_t n = strlen(p);
	if (strncmp(a, p, n))
		return 0;
	*rest = a + n;
	return 1;
}

int
main(int argc, char **argv)
{
	EmitOptions o = { 0 };
	const char *mllvm[32], *pa[32], *v;
	int npa = 0, found = -1, rc;
	IrModule *m;
	IrDiag d = { 0 };

	o.opt_level = 3;
	o.emit = EMIT_CODEOBJ;
	o.mllvm = mllvm;
	o.passes.print_after = pa;
	o.passes.verify = 1;
	if (argc < 2) {
		fprintf(stderr, "usage: cgtool KERNEL [options] (cgtool --list)\n");
		return 2;
	}
	if (!strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0]; i++)
			puts(KERNELS[i].name);
		return 0;
	}
	for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0]; i++)
		if (!strcmp(argv[1], KERNELS[i].name))
			found = (int)i;
	if (found < 0) {
		fprintf(stderr, "cgtool: unknown kernel '%s'\n", argv[1]);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (starts(a, "--offload-arch=", &v) && o.narchs < EMIT_MAX_ARCHS) o.archs[o.narchs++] = v;
		else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) o.opt_level = a[2] - '0';
		else if (!strcmp(a, "-S")) o.emit = EMIT_ASM;
		else if (starts(a, "--emit=", &v)) {
			if (!strcmp(v, "ir")) o.emit = EMIT_IR;
			else if (!strcmp(v, "llvm")) o.emit = EMIT_LLVM;
			else if (!strcmp(v, "bc")) o.emit = EMIT_LLVM_BC;
			else if (!strcmp(v, "asm")) o.emit = EMIT_ASM;
			else if (!strcmp(v, "obj")) o.emit = EMIT_OBJ;
			else if (!strcmp(v, "hsaco")) o.emit = EMIT_CODEOBJ;
			else { fprintf(stderr, "cgtool: bad --emit '%s'\n", v); return 2; }
		} else if (!strcmp(a, "-o") && i + 1 < argc) o.output = argv[++i];
		else if (starts(a, "--print-after=", &v) && npa < 32) pa[npa++] = v;
		else if (!strcmp(a, "--print-after-all")) o.passes.print_after_all = 1;
		else if (starts(a, "--stop-after=", &v)) o.passes.stop_after = v;
		else if (!strcmp(a, "-save-temps")) o.save_temps = 1;
		else if (!strcmp(a, "-g")) o.debug_info = 1;
		else if (!strcmp(a, "-mllvm") && i + 1 < argc && o.nmllvm < 32) mllvm[o.nmllvm++] = argv[++i];
		else if (!strcmp(a, "--resource-usage")) o.resource_usage = 1;
		else if (!strcmp(a, "--resource-usage=json")) o.resource_usage = o.resource_json = 1;
		else if (!strcmp(a, "--no-gpu-bundle-output")) o.no_bundle = 1;
		else if (starts(a, "--ld-path=", &v)) o.ld_lld = v;
		else if (starts(a, "--bound=", &v)) g_bound = strtoull(v, NULL, 0);
		else if (starts(a, "--addr=", &v)) {
			g_addr = !strcmp(v, "buffer") ? IR_ADDR_BUFFER : !strcmp(v, "global64") ? IR_ADDR_GLOBAL64 : IR_ADDR_AUTO;
		} else { fprintf(stderr, "cgtool: unknown option '%s'\n", a); return 2; }
	}
	o.passes.nprint_after = npa;
	m = ir_module_new();
	o.input_name = KERNELS[found].name;
	m->source_name = KERNELS[found].name;
	KERNELS[found].build(m);
	rc = emit_compile(m, &o, &d);
	ir_module_free(m);
	return rc;
}
