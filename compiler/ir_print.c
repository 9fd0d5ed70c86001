/* ir_print.c — the stable text form of the IR (see ir.h for an example). */
#include <inttypes.h>

#include "ir.h"

void
ir_print_tuple(FILE *out, const IrTuple *t)
{
	if (!t->n) {
		if (t->dyn)
			fprintf(out, "%%%u", t->dyn);
		else
			fprintf(out, "%" PRId64, t->value);
		return;
	}
	fputc('(', out);
	for (int i = 0; i < t->n; i++) {
		if (i)
			fputc(',', out);
		ir_print_tuple(out, t->kid[i]);
	}
	fputc(')', out);
}

/* CuTe prints a rank-1 layout with a bare leaf as "8:1"; flyc prints the
 * top level parenthesized when it is a single leaf, as "(N):(1)" reads
 * unambiguously with run-time leaves too. */
void
ir_print_layout(FILE *out, const IrLayout *l)
{
	if (l->sw.b)
		fprintf(out, "sw(%d,%d,%d) o ", l->sw.b, l->sw.m, l->sw.s);
	if (!l->shape->n) {
		fputc('(', out); ir_print_tuple(out, l->shape); fputs("):(", out);
		ir_print_tuple(out, l->stride); fputc(')', out);
		return;
	}
	ir_print_tuple(out, l->shape);
	fputc(':', out);
	ir_print_tuple(out, l->stride);
}

static const char *const CMP_NAMES[] = {
	"eq", "ne", "lt", "le", "gt", "ge", "ult", "ule", "ugt", "uge",
	"flt", "fle", "fgt", "fge", "feq", "fne"
};
static const char *const ADDR_NAMES[] = { "auto", "buffer", "global64" };
static const char DIMS[] = "xyz";

static void indent(FILE *out, int d) { for (int i = 0; i < d; i++) fputs("  ", out); }

static void print_region(FILE *out, const IrFunc *f, IrRegion rg, int depth);

static void
print_tensor(FILE *out, const IrFunc *f, const IrTensor *t)
{
	fprintf(out, "%s ", ir_scalar_name(t->elem));
	ir_print_layout(out, &t->layout);
	if (t->space == IR_SPACE_GLOBAL)
		fprintf(out, " addr=%s", ADDR_NAMES[t->addr]);
	else if (t->space == IR_SPACE_LDS)
		fprintf(out, " offset=%u", t->lds_offset);
	if (t->name)
		fprintf(out, " name=%s", t->name);
	(void)f;
}

static void
print_inst(FILE *out, const IrFunc *f, IrRef r, int depth)
{
	const IrInst *I = &f->inst[r];
	char tb[32];
	uint32_t k0 = 0;

	indent(out, depth);
	if (I->ty.kind != IR_VOID)
		fprintf(out, "%%%u = ", r);
	fputs(ir_op_name((IrOp)I->op), out);
	switch ((IrOp)I->op) {
	case IR_OP_CONST:
		if (ir_ty_is_float(I->ty))
			fprintf(out, " %.17g", I->fimm);
		else
			fprintf(out, " %" PRId64, I->imm[0]);
		break;
	case IR_OP_ARG: case IR_OP_RARG: case IR_OP_EXTRACT:
		fprintf(out, " %" PRId64, I->imm[0]);
		break;
	case IR_OP_TID: case IR_OP_BID:
		fprintf(out, " %c", DIMS[I->imm[0] & 3]);
		break;
	case IR_OP_CMP:
		fprintf(out, " %s", CMP_NAMES[I->imm[0] & 15]);
		break;
	case IR_OP_WAIT:
		fprintf(out, " vmem=%" PRId64 " lds=%" PRId64 " stores=%" PRId64, I->imm[0], I->imm[1], I->imm[2]);
		break;
	case IR_OP_SCHEDGRP:
		fprintf(out, " mask=0x%" PRIx64 " count=%" PRId64 " sync=%" PRId64, I->imm[0], I->imm[1], I->imm[2]);
		break;
	case IR_OP_SCHEDBAR:
		fprintf(out, " mask=0x%" PRIx64, I->imm[0]);
		if (I->imm[1])
			fprintf(out, " pipe=%s", I->imm[1] == 1 ? "begin" : "end");
		break;
	case IR_OP_SETPRIO:
		fprintf(out, " %" PRId64, I->imm[0]);
		break;
	case IR_OP_ATOMIC: case IR_OP_FENCE: {
		int k = I->op == IR_OP_ATOMIC;
		if (k)
			fprintf(out, ".%s", I->imm[0] >= 0 && I->imm[0] < IR_ATOMIC_COUNT ? ir_atomic_name[I->imm[0]] : "?");
		fprintf(out, " %s %s", I->imm[k] >= 0 && I->imm[k] < IR_SCOPE_COUNT ? ir_scope_name[I->imm[k]] : "?",
		        I->imm[k + 1] >= 0 && I->imm[k + 1] < IR_ORDER_COUNT ? ir_order_name[I->imm[k + 1]] : "?");
		break;
	}
	case IR_OP_MMA:
		fprintf(out, " %s", I->sym ? I->sym : "?");
		if (I->nops == 5)
			fprintf(out, " fmt=%" PRId64 ",%" PRId64, I->imm[0], I->imm[1]);
		break;
	default:
		break;
	}
	/* operands */
	if (I->op == IR_OP_TLOAD || I->op == IR_OP_TSTORE || I->op == IR_OP_LD || I->op == IR_OP_ST ||
	    I->op == IR_OP_ATOMIC) {
		fprintf(out, " %%%u", I->ops[0]);
		k0 = I->op == IR_OP_ATOMIC ? ir_atomic_first(I) : I->op == IR_OP_TSTORE || I->op == IR_OP_ST ? 2 : 1;
		for (uint32_t k = 1; k < k0; k++)
			fprintf(out, ", %%%u", I->ops[k]);
		fputc('[', out);
		for (uint32_t k = k0; k < I->nops; k++)
			fprintf(out, "%s%%%u", k > k0 ? ", " : "", I->ops[k]);
		fputc(']', out);
	} else {
		for (uint32_t k = 0; k < I->nops; k++)
			fprintf(out, "%s%%%u", k ? ", " : " ", I->ops[k]);
	}
	if (I->op == IR_OP_SHFLXOR && I->imm[0])
		fputs(" wave", out);
	if (I->op == IR_OP_READLANE && I->imm[0])
		fputs(" first", out);
	if (I->op == IR_OP_INSERT || I->op == IR_OP_PROJ)
		fprintf(out, ", %" PRId64, I->imm[0]);
	if (I->op == IR_OP_CVTPK)
		fprintf(out, " fmt=%" PRId64, I->imm[0]);
	if (I->op == IR_OP_FN && I->imm[0] >= 0 && I->imm[0] < IR_FN_COUNT)
		fprintf(out, " %s", ir_fn_name[I->imm[0]]);
	if (I->op == IR_OP_LDTR)
		fprintf(out, " b%" PRId64, I->imm[0]);
	if (I->op == IR_OP_LDSDMA)
		fprintf(out, " bytes=%" PRId64 " lane_stride=%" PRId64, I->imm[0], I->imm[1]);
	if (I->op == IR_OP_TVIEW || I->op == IR_OP_TIDENT) {
		fputs(" : ", out);
		fprintf(out, "%s ", ir_scalar_name(f->tensor[I->aux].elem));
		ir_print_layout(out, &f->tensor[I->aux].layout);
	} else if (I->op == IR_OP_TGLOBAL || I->op == IR_OP_LDSALLOC) {
		fputs(" : ", out);
		print_tensor(out, f, &f->tensor[I->aux]);
	} else if (I->ty.kind != IR_VOID && I->ty.kind != IR_TUPLE) {
		fprintf(out, " : %s", ir_ty_str(I->ty, tb, sizeof tb));
	}
	if (I->op == IR_OP_FOR) {
		fputs(" {\n", out);
		print_region(out, f, I->region[0], depth + 1);
		indent(out, depth);
		fputs("}", out);
	} else if (I->op == IR_OP_IF || I->op == IR_OP_WHILE) {
		fputs(" {\n", out);
		print_region(out, f, I->region[0], depth + 1);
		indent(out, depth);
		fputs(I->op == IR_OP_IF ? "} else {\n" : "} do {\n", out);
		print_region(out, f, I->region[1], depth + 1);
		indent(out, depth);
		fputs("}", out);
	}
	fputc('\n', out);
}

static void
print_region(FILE *out, const IrFunc *f, IrRegion rg, int depth)
{
	const IrRegionData *R = &f->reg[rg];

	for (uint32_t i = 0; i < R->n; i++)
		print_inst(out, f, R->inst[i], depth);
}

void
ir_print_func(FILE *out, const IrFunc *f)
{
	fprintf(out, "kernel @%s(", f->name);
	for (uint32_t i = 0; i < f->nparam; i++) {
		const IrParam *p = &f->param[i];
		if (i)
			fputs(", ", out);
		if (p->kind == IR_PARAM_PTR)
			fprintf(out, "%s: ptr %s align %u", p->name, ir_scalar_name(p->ty), p->align);
		else
			fprintf(out, "%s: %s", p->name, ir_scalar_name(p->ty));
	}
	fprintf(out, ") block(%u,%u,%u)", f->block[0], f->block[1], f->block[2]);
	if (f->waves_per_eu[0])
		fprintf(out, " waves_per_eu(%d,%d)", f->waves_per_eu[0], f->waves_per_eu[1]);
	if (f->lds_bytes)
		fprintf(out, " lds(%u)", f->lds_bytes);
	fputs(" {\n", out);
	print_region(out, f, 1, 1);
	fputs("}\n", out);
}

void
ir_print_module(FILE *out, const IrModule *m)
{
	for (uint32_t i = 0; i < m->nfunc; i++) {
		if (i)
			fputc('\n', out);
		ir_print_func(out, m->func[i]);
	}
}
