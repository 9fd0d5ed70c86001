/* Copy atoms in code generation: what an atom moves per access, and whether a
 * copy's layouts allow it (see codegen_copy.h and docs/codegen.md "Copies"). */
#include <stdio.h>
#include <string.h>

#include "codegen_copy.h"
#include "ir_eval.h"

static const char *
field_str(const Node *decl, const char *name)
{
	for (int i = 0; i < decl->u.atom.fields.n; i++) {
		const Param *p = decl->u.atom.fields.v[i];
		if (!strcmp(p->name, name) && p->value && p->value->kind == E_STR)
			return p->value->u.str.s;
	}
	return NULL;
}

static int64_t
field_int(const Node *decl, const char *name)
{
	for (int i = 0; i < decl->u.atom.fields.n; i++) {
		const Param *p = decl->u.atom.fields.v[i];
		if (!strcmp(p->name, name) && p->value && p->value->kind == E_INT)
			return p->value->u.ival;
	}
	return -1;
}

int
cg_copy_atom(const Node *decl, CgCopyAtom *a)
{
	const char *from, *to, *intr;
	int64_t bits;

	if (!decl || decl->kind != D_ATOM || !decl->u.atom.kind || strcmp(decl->u.atom.kind, "copy"))
		return 0;
	from = field_str(decl, "from");
	to = field_str(decl, "to");
	intr = field_str(decl, "intrinsic");
	bits = field_int(decl, "bits");
	if (!from || !to || !intr || bits <= 0 || bits > 128)
		return 0;
	memset(a, 0, sizeof *a);
	a->name = decl->u.atom.id;
	a->bits = (unsigned)bits;
	a->buffer = strstr(intr, "buffer") != NULL;
	a->elem_bits = field_int(decl, "elem_bits") > 0 ? (unsigned)field_int(decl, "elem_bits") : 0;
	a->load = strcmp(from, "reg") != 0;   /* memory -> registers or LDS */
	if (!strcmp(to, "lds") && !strcmp(from, "global"))
		a->kind = CG_COPY_LDS_DMA;
	else if (strstr(intr, ".ds.read.tr"))
		a->kind = CG_COPY_DS_TR;
	else if (strstr(intr, ".global.load.tr"))
		a->kind = CG_COPY_GLOBAL_TR;
	else if (!strcmp(from, "lds") || !strcmp(to, "lds"))
		a->kind = CG_COPY_DS;
	else if (a->buffer)
		a->kind = CG_COPY_BUFFER;
	else
		a->kind = CG_COPY_GLOBAL;
	return 1;
}

unsigned
cg_copy_check(const CgCopyAtom *a, IrScalar elem, unsigned n, int64_t run,
              int space, int is_src, char *why, size_t wn)
{
	unsigned eb = ir_scalar_bits(elem), per;
	int want_lds = a->kind == CG_COPY_DS || a->kind == CG_COPY_DS_TR ||
	               (a->kind == CG_COPY_LDS_DMA && !is_src);

	if (a->kind == CG_COPY_DS_TR) {
		if (a->elem_bits != 16 && a->elem_bits != 8 && a->elem_bits != 4 && a->elem_bits != 6) {
			snprintf(why, wn, "flyc has no %u-bit element type for this transposed read", a->elem_bits);
			return 0;
		}
		if (!is_src || space != IR_SPACE_LDS || eb != a->elem_bits || a->bits / eb != n || run % n) {
			snprintf(why, wn, "a transposed read takes %u contiguous %u-bit elements per lane from LDS, "
			         "and this is %u %s elements %s contiguous in runs of %lld", a->bits / a->elem_bits,
			         a->elem_bits, n, ir_scalar_name(elem), space == IR_SPACE_LDS ? "in LDS" : "not in LDS",
			         (long long)run);
			return 0;
		}
		return n;
	}
	if (a->kind == CG_COPY_GLOBAL_TR) {
		/* 8 lanes each read 8 consecutive elements, then swap them (an 8x8 transpose) */
		if ((a->elem_bits != 16 || a->bits != 128) && (a->elem_bits != 8 || a->bits != 64)) {
			snprintf(why, wn, "a transposed global load moves 8 elements of 16 bits (128 bits) or of "
			         "8 bits (64 bits) per lane, and this atom declares %u elements of %u bits",
			         a->elem_bits ? a->bits / a->elem_bits : 0, a->elem_bits);
			return 0;
		}
		if (!is_src || space != IR_SPACE_GLOBAL || eb != a->elem_bits || n != 8 || run % 8) {
			snprintf(why, wn, "a transposed global load takes 8 contiguous %u-bit elements per lane from "
			         "global memory, and this is %u %s elements %s contiguous in runs of %lld",
			         a->elem_bits, n, ir_scalar_name(elem), space == IR_SPACE_GLOBAL ? "in global memory" :
			         space == IR_SPACE_LDS ? "in LDS" : "not in memory", (long long)run);
			return 0;
		}
		return n;
	}
	if (a->kind == CG_COPY_LDS_DMA && is_src && space == IR_SPACE_GLOBAL) {
		if (!eb || a->bits % eb || a->bits / eb != n || run % n) {
			snprintf(why, wn, "a load straight to LDS moves %u contiguous bits per thread, and this "
			         "thread's part of the source is %u %s elements contiguous in runs of %lld",
			         a->bits, n, ir_scalar_name(elem), (long long)run);
			return 0;
		}
		return n;
	}
	if (a->load != is_src) {
		snprintf(why, wn, "it %s, but here the tensor is the copy's %s",
		         a->load ? "loads from memory" : "stores to memory", is_src ? "source" : "destination");
		return 0;
	}
	if (space == IR_SPACE_IDENTITY || (space == IR_SPACE_LDS) != want_lds) {
		snprintf(why, wn, "it works on %s memory, but this tensor is %s",
		         want_lds ? "LDS" : "global", space == IR_SPACE_LDS ? "in LDS" : "not in LDS");
		return 0;
	}
	if (!eb || a->bits % eb) {
		snprintf(why, wn, "its %u bits are not a whole number of %s elements", a->bits, ir_scalar_name(elem));
		return 0;
	}
	per = a->bits / eb;
	if (n % per) {
		snprintf(why, wn, "it moves %u %s elements per access, and this view has %u", per,
		         ir_scalar_name(elem), n);
		return 0;
	}
	if (run % per) {
		snprintf(why, wn, "it moves %u contiguous %s elements per access, and this view's elements "
		         "are contiguous in runs of %lld", per, ir_scalar_name(elem), (long long)run);
		return 0;
	}
	return per;
}

/* ---- placement of loads straight to LDS ---- */

/* byte address (relative to the LDS buffer) of element 0 of view v */
static int64_t
lds_addr(IrEval *e, IrRef v)
{
	const IrFunc *f = e->f;
	const IrTensor *R = &f->tensor[f->inst[ir_tensor_root(f, v)].aux];
	int64_t off = 0;
	for (; f->inst[v].op == IR_OP_TVIEW; v = f->inst[v].ops[0])
		off += ir_eval(e, f->inst[v].ops[1]);
	if (R->layout.sw.b) {
		const IrSwizzle sw = R->layout.sw;
		int64_t mask = ((INT64_C(1) << sw.b) - 1) << (sw.m + sw.s);
		off ^= (off & mask) >> sw.s;
	}
	if (ir_scalar_packed(R->elem))
		return off * (int64_t)ir_scalar_bits(R->elem) / 8;
	return off * (int64_t)ir_scalar_bytes(R->elem, 1);
}

int
cg_lds_dma_placement(const IrFunc *f, IrRef v, unsigned block, unsigned wave,
                     unsigned lane_stride, char *why, size_t wn)
{
	IrEval e;
	int res = 1;

	/* wave-uniform values (arguments, block ids, loop counters) drawn in two worlds */
	ir_eval_init(&e, f, wave);
	for (uint64_t seed = 1; seed <= 2 && res == 1; seed++) {
		int64_t first = 0;
		ir_eval_seed(&e, seed * UINT64_C(0x5851F42D4C957F2D));
		for (unsigned t = 0; t < block; t++) {
			int64_t a;
			ir_eval_thread(&e, (int64_t)t, 0, 0);
			a = lds_addr(&e, v);
			if (e.bad) {
				snprintf(why, wn, "its LDS address depends on values the compiler cannot follow");
				res = -1;
				break;
			}
			if (t % wave == 0)
				first = a;
			else if (a - first != (int64_t)(t % wave) * lane_stride) {
				snprintf(why, wn, "the hardware writes lane %u's data %u bytes after lane 0's, but this "
				         "layout places thread %u's elements %lld bytes after its wave's first lane",
				         t % wave, (t % wave) * lane_stride, t, (long long)(a - first));
				res = 0;
				break;
			}
		}
	}
	ir_eval_free(&e);
	return res;
}
