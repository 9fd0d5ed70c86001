/* Copy atoms in code generation: what an atom moves per access, and whether a
 * copy's layouts allow it (see codegen_copy.h and docs/codegen.md "Copies"). */
#include <stdio.h>
#include <string.h>

#include "codegen_copy.h"

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
	a->load = strcmp(from, "reg") != 0;   /* memory -> registers or LDS */
	if (!strcmp(to, "lds") && !strcmp(from, "global"))
		a->kind = CG_COPY_LDS_DMA;
	else if (strstr(intr, ".ds.read.tr"))
		a->kind = CG_COPY_DS_TR;
	else if (!strcmp(from, "lds") || !strcmp(to, "lds"))
		a->kind = CG_COPY_DS;
	else if (strstr(intr, "buffer"))
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

	if (a->kind == CG_COPY_LDS_DMA || a->kind == CG_COPY_DS_TR) {
		snprintf(why, wn, "copies straight to LDS and transposed LDS reads are not lowered yet");
		return 0;
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

/* max |value| of a leaf: static, or below 2^31 for a 32-bit run-time value; -1 unknown */
static int64_t
leaf_max(const IrFunc *f, const IrTuple *t)
{
	if (!t->dyn)
		return t->value < 0 ? -t->value : t->value;
	if (f->inst[t->dyn].ty.kind == IR_I32 && f->inst[t->dyn].ty.lanes == 1)
		return INT64_C(0x7FFFFFFF);
	return -1;
}

/* adds sum over leaves of (shape-1)*|stride| into *acc, saturating at 2^62; 0 if unknown */
static int
cosize_bound(const IrFunc *f, const IrTuple *s, const IrTuple *d, uint64_t *acc)
{
	const uint64_t cap = UINT64_C(1) << 62;
	if (s->n != d->n)
		return 0;
	if (s->n) {
		for (int i = 0; i < s->n; i++)
			if (!cosize_bound(f, s->kid[i], d->kid[i], acc))
				return 0;
		return 1;
	}
	int64_t ms = leaf_max(f, s), md = leaf_max(f, d);
	if (ms < 0 || md < 0)
		return 0;
	if (ms == 0)
		return 1;
	uint64_t a = (uint64_t)(ms - 1), b = (uint64_t)md;
	uint64_t p = (b && a > cap / b) ? cap : a * b;
	*acc = *acc + p > cap ? cap : *acc + p;
	return 1;
}

uint64_t
cg_span_bound_i32(const IrFunc *f, const IrTensor *T)
{
	uint64_t acc = 0, bytes;
	if (T->layout.sw.b || !cosize_bound(f, T->layout.shape, T->layout.stride, &acc) ||
	    acc >= UINT64_C(0xFFFFFFFF))
		return 0;
	bytes = (acc + 1) * ((ir_scalar_bits(T->elem) + 7) / 8);
	return bytes <= UINT64_C(0xFFFFFFFF) ? bytes : 0;
}
