/* ir_core.c — IR storage: arena, types, the builder, layout tuples. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* ---- arena ---- */

typedef struct IrChunk IrChunk;
struct IrChunk { IrChunk *next; size_t used, cap; _Alignas(16) unsigned char data[]; };
struct IrArena { IrChunk *head; };

_Noreturn void
ir_ice(const char *file, int line, const char *msg)
{
	fprintf(stderr, "flyc: internal compiler error at %s:%d: %s\n", file, line, msg);
	abort();
}

void *
ir_alloc(IrModule *m, size_t size)
{
	IrChunk *c = m->arena->head;

	size = (size + 15) & ~(size_t)15;
	if (!c || c->used + size > c->cap) {
		size_t cap = size > 65536 ? size : 65536;
		c = calloc(1, sizeof *c + cap);
		if (!c)
			IR_ICE("out of memory");
		c->cap = cap;
		c->next = m->arena->head;
		m->arena->head = c;
	}
	void *p = c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

const char *
ir_strdup(IrModule *m, const char *s)
{
	size_t n;
	char *p;

	if (!s)
		return NULL;
	n = strlen(s);
	p = ir_alloc(m, n + 1);
	memcpy(p, s, n);
	return p;
}

/* grow an arena array: returns a copy with room for newcap elements */
static void *
grow(IrModule *m, void *old, size_t elem, uint32_t n, uint32_t *cap)
{
	uint32_t nc = *cap ? *cap * 2 : 16;
	void *p = ir_alloc(m, elem * nc);
	if (old && n)
		memcpy(p, old, elem * n);
	*cap = nc;
	return p;
}

IrModule *
ir_module_new(void)
{
	IrModule *m = calloc(1, sizeof *m);
	if (!m)
		IR_ICE("out of memory");
	m->arena = calloc(1, sizeof *m->arena);
	if (!m->arena)
		IR_ICE("out of memory");
	return m;
}

void
ir_module_free(IrModule *m)
{
	if (!m)
		return;
	for (IrChunk *c = m->arena->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(m->arena);
	free(m);
}

void
ir_error(IrDiag *d, IrLoc loc, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	d->errors++;
	if (d->fn)
		d->fn(d->ctx, loc, buf);
	else if (loc.file)
		fprintf(stderr, "%s:%d:%d: error: %s\n", loc.file, loc.line, loc.col, buf);
	else
		fprintf(stderr, "flyc: error: %s\n", buf);
}

/* ---- types ---- */

static const char *const SCALAR_NAMES[] = {
#define X(e, s, b) s,
	IR_SCALARS(X)
#undef X
};
static const unsigned SCALAR_BITS[] = {
#define X(e, s, b) b,
	IR_SCALARS(X)
#undef X
};

IrType ir_ty(IrScalar k) { IrType t = { (uint8_t)k, 1 }; return t; }
IrType
ir_vec(IrScalar k, unsigned lanes)
{
	IrType t = { (uint8_t)k, (uint16_t)lanes };
	if (lanes < 1 || lanes > IR_MAX_LANES)
		IR_ICE("vector lane count out of range");
	return t;
}

int ir_ty_eq(IrType a, IrType b) { return a.kind == b.kind && a.lanes == b.lanes; }
int ir_ty_is_int(IrType t) { return t.kind >= IR_I1 && t.kind <= IR_I64; }
int ir_ty_is_float(IrType t) { return t.kind == IR_F16 || t.kind == IR_BF16 || t.kind == IR_F32; }
unsigned ir_scalar_bits(IrScalar k) { return k < IR_SCALAR_COUNT ? SCALAR_BITS[k] : 0; }
const char *ir_scalar_name(IrScalar k) { return k < IR_SCALAR_COUNT ? SCALAR_NAMES[k] : "?"; }
int ir_scalar_packed(IrScalar k) { return k == IR_I4 || k == IR_I6; }

uint64_t
ir_scalar_bytes(IrScalar k, uint64_t n)
{
	unsigned b = ir_scalar_bits(k);
	return ir_scalar_packed(k) ? (n * b + 7) / 8 : n * ((b + 7) / 8);
}

const char *
ir_ty_str(IrType t, char *buf, size_t n)
{
	if (t.lanes > 1)
		snprintf(buf, n, "<%u x %s>", t.lanes, ir_scalar_name(t.kind));
	else
		snprintf(buf, n, "%s", ir_scalar_name(t.kind));
	return buf;
}

/* ---- op table ---- */

static const char *const OP_NAMES[] = {
#define X(e, s, n, f) s,
	IR_OPS(X)
#undef X
};
static const int OP_FLAGS[] = {
#define X(e, s, n, f) f,
	IR_OPS(X)
#undef X
};

const char *ir_op_name(IrOp op) { return op < IR_OP_COUNT ? OP_NAMES[op] : "<erased>"; }
int ir_op_flags(IrOp op) { return op < IR_OP_COUNT ? OP_FLAGS[op] : 0; }

/* ---- functions, regions ---- */

static IrRegion
new_region(IrFunc *f, IrRef owner)
{
	if (f->nreg == f->capreg)
		f->reg = grow(f->mod, f->reg, sizeof *f->reg, f->nreg, &f->capreg);
	f->reg[f->nreg].owner = owner;
	return f->nreg++;
}

IrFunc *
ir_func_new(IrModule *m, const char *name, IrLoc loc)
{
	IrFunc *f = ir_alloc(m, sizeof *f);

	f->mod = m;
	f->name = ir_strdup(m, name);
	f->loc = loc;
	f->block[0] = 256; f->block[1] = 1; f->block[2] = 1;
	f->ninst = 1;                  /* handle 0 = none */
	f->inst = grow(m, NULL, sizeof *f->inst, 0, &f->capinst);
	new_region(f, 0);              /* region 0: unused */
	new_region(f, 0);              /* region 1: the body */
	if (m->nfunc == m->capfunc)
		m->func = grow(m, m->func, sizeof *m->func, m->nfunc, &m->capfunc);
	m->func[m->nfunc++] = f;
	return f;
}

uint32_t
ir_func_param(IrFunc *f, const char *name, IrParamKind kind, IrScalar ty, uint32_t align)
{
	IrParam *np = ir_alloc(f->mod, sizeof *np * (f->nparam + 1));

	if (f->nparam)
		memcpy(np, f->param, sizeof *np * f->nparam);
	np[f->nparam].name = ir_strdup(f->mod, name);
	np[f->nparam].kind = kind;
	np[f->nparam].ty = ty;
	np[f->nparam].align = align ? align : (ir_scalar_bits(ty) + 7) / 8;
	np[f->nparam].noalias = kind == IR_PARAM_PTR;
	f->param = np;
	return f->nparam++;
}

void
ir_func_requires(IrFunc *f, const char *rpn, const char *text)
{
	const char **r = ir_alloc(f->mod, sizeof *r * (f->nreq + 1));
	const char **t = ir_alloc(f->mod, sizeof *t * (f->nreq + 1));

	if (f->nreq) {
		memcpy(r, f->req_rpn, sizeof *r * f->nreq);
		memcpy(t, f->req_text, sizeof *t * f->nreq);
	}
	r[f->nreq] = ir_strdup(f->mod, rpn);
	t[f->nreq] = ir_strdup(f->mod, text);
	f->req_rpn = r;
	f->req_text = t;
	f->nreq++;
}

void
ir_region_insert(IrFunc *f, IrRegion rg, uint32_t pos, IrRef r)
{
	IrRegionData *R = &f->reg[rg];

	if (R->n == R->cap)
		R->inst = grow(f->mod, R->inst, sizeof *R->inst, R->n, &R->cap);
	memmove(R->inst + pos + 1, R->inst + pos, sizeof *R->inst * (R->n - pos));
	R->inst[pos] = r;
	R->n++;
	f->inst[r].parent = rg;
}

static IrRef
new_inst(IrFunc *f, IrOp op, IrType ty, uint32_t nops, const IrRef *ops, IrLoc loc)
{
	IrInst *I;

	if (f->ninst == f->capinst)
		f->inst = grow(f->mod, f->inst, sizeof *f->inst, f->ninst, &f->capinst);
	I = &f->inst[f->ninst];
	memset(I, 0, sizeof *I);
	I->op = (uint16_t)op;
	I->ty = ty;
	I->nops = nops;
	if (nops) {
		I->ops = ir_alloc(f->mod, sizeof *I->ops * nops);
		if (ops)
			memcpy(I->ops, ops, sizeof *I->ops * nops);
	}
	I->loc = loc;
	return f->ninst++;
}

IrRef
ir_new_in(IrFunc *f, IrRegion rg, IrOp op, IrType ty, uint32_t nops, const IrRef *ops, IrLoc loc)
{
	IrRef r = new_inst(f, op, ty, nops, ops, loc);

	f->inst[r].parent = rg;
	return r;
}

void
ir_erase(IrFunc *f, IrRef r)
{
	IrRegionData *R = &f->reg[f->inst[r].parent];

	for (uint32_t i = 0; i < R->n; i++)
		if (R->inst[i] == r) {
			memmove(R->inst + i, R->inst + i + 1, sizeof *R->inst * (R->n - i - 1));
			R->n--;
			break;
		}
	f->inst[r].op = IR_OP_COUNT;
}

void
ir_replace_uses(IrFunc *f, IrRef from, IrRef to)
{
	for (uint32_t i = 1; i < f->ninst; i++) {
		IrInst *I = &f->inst[i];
		if (I->op == IR_OP_COUNT)
			continue;
		for (uint32_t k = 0; k < I->nops; k++)
			if (I->ops[k] == from)
				I->ops[k] = to;
	}
	for (uint32_t t = 0; t < f->ntensor; t++) {
		/* dynamic layout leaves refer to values too */
		IrTuple *st[2] = { f->tensor[t].layout.shape, f->tensor[t].layout.stride };
		for (int k = 0; k < 2; k++) {
			IrTuple *stack[64];
			int sp = 0;
			if (st[k])
				stack[sp++] = st[k];
			while (sp) {
				IrTuple *x = stack[--sp];
				if (x->n == 0) {
					if (x->dyn == from)
						x->dyn = to;
				} else {
					for (int c = 0; c < x->n && sp < 64; c++)
						stack[sp++] = x->kid[c];
				}
			}
		}
	}
}

static IrRef
forwarded(IrRef *fwd, IrRef r)
{
	while (r && fwd[r])
		r = fwd[r];
	return r;
}

static void
forward_tuple(IrTuple *x, IrRef *fwd)
{
	if (!x)
		return;
	if (!x->n) {
		x->dyn = forwarded(fwd, x->dyn);
		return;
	}
	for (int i = 0; i < x->n; i++)
		forward_tuple(x->kid[i], fwd);
}

void
ir_forward_uses(IrFunc *f, IrRef *fwd)
{
	for (uint32_t i = 1; i < f->ninst; i++) {
		IrInst *I = &f->inst[i];
		if (I->op == IR_OP_COUNT)
			continue;
		for (uint32_t k = 0; k < I->nops; k++)
			I->ops[k] = forwarded(fwd, I->ops[k]);
	}
	for (uint32_t t = 0; t < f->ntensor; t++) {
		forward_tuple(f->tensor[t].layout.shape, fwd);
		forward_tuple(f->tensor[t].layout.stride, fwd);
	}
}

void
ir_compact(IrFunc *f)
{
	for (uint32_t g = 1; g < f->nreg; g++) {
		IrRegionData *R = &f->reg[g];
		uint32_t n = 0;
		for (uint32_t i = 0; i < R->n; i++)
			if (f->inst[R->inst[i]].op != IR_OP_COUNT)
				R->inst[n++] = R->inst[i];
		R->n = n;
	}
}

int
ir_const_value(const IrFunc *f, IrRef r, int64_t *v)
{
	const IrInst *I = &f->inst[r];

	if (I->op != IR_OP_CONST || !ir_ty_is_int(I->ty) || I->ty.lanes != 1)
		return 0;
	*v = I->imm[0];
	return 1;
}

/* ---- builder ---- */

IrBuilder
ir_builder(IrFunc *f)
{
	IrBuilder b = { f, 1, f->loc };
	return b;
}

IrRef
ir_b_inst(IrBuilder *b, IrOp op, IrType ty, uint32_t nops, const IrRef *ops)
{
	IrRef r = new_inst(b->fn, op, ty, nops, ops, b->loc);
	ir_region_insert(b->fn, b->cur, b->fn->reg[b->cur].n, r);
	return r;
}

static IrType
ty_of(IrBuilder *b, IrRef r)
{
	return b->fn->inst[r].ty;
}

IrRef
ir_b_const(IrBuilder *b, IrType ty, int64_t v)
{
	IrRef r = ir_b_inst(b, IR_OP_CONST, ty, 0, NULL);
	b->fn->inst[r].imm[0] = v;
	if (ir_ty_is_float(ty))
		b->fn->inst[r].fimm = (double)v;
	return r;
}

IrRef
ir_b_fconst(IrBuilder *b, IrType ty, double v)
{
	IrRef r = ir_b_inst(b, IR_OP_CONST, ty, 0, NULL);
	b->fn->inst[r].fimm = v;
	return r;
}

IrRef
ir_b_arg(IrBuilder *b, uint32_t index)
{
	IrParam *p;
	IrRef r;

	if (index >= b->fn->nparam)
		IR_ICE("argument index out of range");
	p = &b->fn->param[index];
	r = ir_b_inst(b, IR_OP_ARG, p->kind == IR_PARAM_PTR ? ir_ty(IR_PTR) : ir_ty(p->ty), 0, NULL);
	b->fn->inst[r].imm[0] = index;
	return r;
}

static IrRef
id_op(IrBuilder *b, IrOp op, int dim)
{
	IrRef r = ir_b_inst(b, op, ir_ty(IR_I32), 0, NULL);
	b->fn->inst[r].imm[0] = dim;
	return r;
}

IrRef ir_b_tid(IrBuilder *b, int dim) { return id_op(b, IR_OP_TID, dim); }
IrRef ir_b_bid(IrBuilder *b, int dim) { return id_op(b, IR_OP_BID, dim); }
IrRef
ir_b_shfl_xor(IrBuilder *b, IrRef x, IrRef mask)
{
	IrRef ops[2] = { x, mask };
	IrRef r = ir_b_inst(b, IR_OP_SHFLXOR, ty_of(b, x), 2, ops);
	return r;
}

IrRef
ir_b_shfl_xor_wave(IrBuilder *b, IrRef x, IrRef mask)
{
	IrRef r = ir_b_shfl_xor(b, x, mask);
	b->fn->inst[r].imm[0] = 1;
	return r;
}

IrRef
ir_b_mma(IrBuilder *b, const char *intrinsic, IrRef a, IrRef bb, IrRef c, IrRef sa, IrRef sb, int fa, int fb)
{
	IrRef ops[5] = { a, bb, c, sa, sb };
	IrRef r = ir_b_inst(b, IR_OP_MMA, ty_of(b, c), sa ? 5 : 3, ops);
	b->fn->inst[r].sym = ir_strdup(b->fn->mod, intrinsic);
	b->fn->inst[r].imm[0] = fa;
	b->fn->inst[r].imm[1] = fb;
	return r;
}

IrRef ir_b_wave_size(IrBuilder *b) { return ir_b_inst(b, IR_OP_WAVESIZE, ir_ty(IR_I32), 0, NULL); }

IrRef
ir_b_bin(IrBuilder *b, IrOp op, IrRef x, IrRef y)
{
	IrRef ops[2] = { x, y };
	return ir_b_inst(b, op, ty_of(b, x), 2, ops);
}

IrRef
ir_b_un(IrBuilder *b, IrOp op, IrRef x)
{
	return ir_b_inst(b, op, ty_of(b, x), 1, &x);
}

const char *const ir_fn_name[IR_FN_COUNT] = {
#define X(e, s, l) s,
	IR_FNS(X)
#undef X
};

const char *const ir_fn_llvm[IR_FN_COUNT] = {
#define X(e, s, l) l,
	IR_FNS(X)
#undef X
};

IrRef
ir_b_fn(IrBuilder *b, IrFn fn, IrRef x)
{
	IrRef r = ir_b_inst(b, IR_OP_FN, ty_of(b, x), 1, &x);
	b->fn->inst[r].imm[0] = fn;
	return r;
}

IrRef
ir_b_fma(IrBuilder *b, IrRef x, IrRef y, IrRef z)
{
	IrRef ops[3] = { x, y, z };
	return ir_b_inst(b, IR_OP_FMA, ty_of(b, x), 3, ops);
}

IrRef
ir_b_cmp(IrBuilder *b, IrCmp c, IrRef x, IrRef y)
{
	IrRef ops[2] = { x, y };
	IrRef r = ir_b_inst(b, IR_OP_CMP, ir_vec(IR_I1, ty_of(b, x).lanes), 2, ops);
	b->fn->inst[r].imm[0] = c;
	return r;
}

IrRef
ir_b_select(IrBuilder *b, IrRef c, IrRef x, IrRef y)
{
	IrRef ops[3] = { c, x, y };
	return ir_b_inst(b, IR_OP_SELECT, ty_of(b, x), 3, ops);
}

IrRef ir_b_cvt(IrBuilder *b, IrType to, IrRef x) { return ir_b_inst(b, IR_OP_CVT, to, 1, &x); }

IrRef
ir_b_cvt_pk(IrBuilder *b, IrType to, IrRef x, int fmt)
{
	IrRef r = ir_b_inst(b, IR_OP_CVTPK, to, 1, &x);
	b->fn->inst[r].imm[0] = fmt;
	return r;
}
IrRef ir_b_splat(IrBuilder *b, IrType to, IrRef x) { return ir_b_inst(b, IR_OP_SPLAT, to, 1, &x); }

IrRef
ir_b_extract(IrBuilder *b, IrRef v, unsigned lane)
{
	IrRef r = ir_b_inst(b, IR_OP_EXTRACT, ir_ty((IrScalar)ty_of(b, v).kind), 1, &v);
	b->fn->inst[r].imm[0] = lane;
	return r;
}

IrRef
ir_b_extract_vec(IrBuilder *b, IrRef v, unsigned lane, unsigned n)
{
	IrRef r = ir_b_inst(b, IR_OP_EXTRACT, ir_vec((IrScalar)ty_of(b, v).kind, n), 1, &v);
	b->fn->inst[r].imm[0] = lane;
	return r;
}

IrRef
ir_b_insert(IrBuilder *b, IrRef v, IrRef x, unsigned lane)
{
	IrRef ops[2] = { v, x };
	IrRef r = ir_b_inst(b, IR_OP_INSERT, ty_of(b, v), 2, ops);
	b->fn->inst[r].imm[0] = lane;
	return r;
}

static uint32_t
add_tensor(IrFunc *f, IrTensor t)
{
	if (f->ntensor == f->captensor)
		f->tensor = grow(f->mod, f->tensor, sizeof *f->tensor, f->ntensor, &f->captensor);
	f->tensor[f->ntensor] = t;
	return f->ntensor++;
}

IrRef
ir_b_tensor_global(IrBuilder *b, IrRef ptr_arg, IrScalar elem, IrLayout lay, IrAddr addr,
                   const char *name)
{
	IrTensor t = { 0 };
	IrRef r;

	t.space = IR_SPACE_GLOBAL;
	t.elem = elem;
	t.layout = lay;
	t.addr = addr;
	t.name = ir_strdup(b->fn->mod, name);
	t.align = (ir_scalar_bits(elem) + 7) / 8;
	if (b->fn->inst[ptr_arg].op == IR_OP_ARG) {
		const IrParam *p = &b->fn->param[b->fn->inst[ptr_arg].imm[0]];
		if (p->kind == IR_PARAM_PTR)
			t.align = p->align;
	}
	r = ir_b_inst(b, IR_OP_TGLOBAL, ir_ty(IR_TENSOR), 1, &ptr_arg);
	b->fn->inst[r].aux = add_tensor(b->fn, t);
	return r;
}

IrRef
ir_b_lds_alloc(IrBuilder *b, IrScalar elem, IrLayout lay, const char *name)
{
	IrTensor t = { 0 };
	IrRef r;

	t.space = IR_SPACE_LDS;
	t.elem = elem;
	t.layout = lay;
	t.name = ir_strdup(b->fn->mod, name);
	t.align = 16;
	r = ir_b_inst(b, IR_OP_LDSALLOC, ir_ty(IR_TENSOR), 0, NULL);
	b->fn->inst[r].aux = add_tensor(b->fn, t);
	return r;
}

int
ir_is_tensor(IrOp op)
{
	return op == IR_OP_TGLOBAL || op == IR_OP_LDSALLOC || op == IR_OP_TVIEW || op == IR_OP_TIDENT;
}

IrRef
ir_tensor_root(const IrFunc *f, IrRef t)
{
	while (f->inst[t].op == IR_OP_TVIEW)
		t = f->inst[t].ops[0];
	return t;
}

IrRef
ir_b_tensor_view(IrBuilder *b, IrRef parent, IrRef off, IrLayout lay)
{
	IrTensor t = b->fn->tensor[b->fn->inst[parent].aux];
	IrRef ops[2] = { parent, off };
	IrRef r;

	if (!ir_is_tensor((IrOp)b->fn->inst[parent].op))
		IR_ICE("tensor.view of a non-tensor");
	t.layout = lay;
	r = ir_b_inst(b, IR_OP_TVIEW, ir_ty(IR_TENSOR), 2, ops);
	b->fn->inst[r].aux = add_tensor(b->fn, t);
	return r;
}

IrRef
ir_b_tensor_identity(IrBuilder *b, IrLayout lay)
{
	IrTensor t = { 0 };
	IrRef r;

	t.space = IR_SPACE_IDENTITY;
	t.elem = IR_I32;
	t.layout = lay;
	t.name = "identity";
	r = ir_b_inst(b, IR_OP_TIDENT, ir_ty(IR_TENSOR), 0, NULL);
	b->fn->inst[r].aux = add_tensor(b->fn, t);
	return r;
}

IrRef
ir_b_tload(IrBuilder *b, IrRef t, unsigned lanes, uint32_t ncoord, const IrRef *coord)
{
	IrRef ops[16];
	const IrInst *T = &b->fn->inst[t];
	IrScalar elem;

	if (ncoord + 1 > 16)
		IR_ICE("too many coordinates");
	if (!ir_is_tensor((IrOp)T->op))
		IR_ICE("tload of a non-tensor");
	elem = b->fn->tensor[T->aux].elem;
	ops[0] = t;
	memcpy(ops + 1, coord, sizeof *coord * ncoord);
	return ir_b_inst(b, IR_OP_TLOAD, ir_vec(elem, lanes), ncoord + 1, ops);
}

const char *const ir_atomic_name[IR_ATOMIC_COUNT] = {
#define X(e, s) s,
	IR_ATOMICS(X)
#undef X
};
const char *const ir_scope_name[IR_SCOPE_COUNT] = {
#define X(e, s, l) s,
	IR_SCOPES(X)
#undef X
};
const char *const ir_scope_llvm[IR_SCOPE_COUNT] = {
#define X(e, s, l) l,
	IR_SCOPES(X)
#undef X
};
const char *const ir_order_name[IR_ORDER_COUNT] = {
#define X(e, s) s,
	IR_ORDERS(X)
#undef X
};

IrRef
ir_b_atomic(IrBuilder *b, IrAtomic op, IrRef t, IrRef val, IrRef desired, uint32_t ncoord, const IrRef *coord,
            IrScope scope, IrOrder order)
{
	IrRef ops[16], r;
	uint32_t k = 0;
	const IrInst *T = &b->fn->inst[t];

	if (ncoord + 3 > 16)
		IR_ICE("too many coordinates");
	if (!ir_is_tensor((IrOp)T->op))
		IR_ICE("atomic on a non-tensor");
	ops[k++] = t;
	ops[k++] = val;
	if (op == IR_ATOMIC_CAS)
		ops[k++] = desired;
	memcpy(ops + k, coord, sizeof *coord * ncoord);
	/* the value's type: the element, or a packed pair of 16-bit floats */
	r = ir_b_inst(b, IR_OP_ATOMIC, b->fn->inst[val].ty, k + ncoord, ops);
	b->fn->inst[r].imm[0] = op;
	b->fn->inst[r].imm[1] = scope;
	b->fn->inst[r].imm[2] = order;
	return r;
}

void
ir_b_tstore(IrBuilder *b, IrRef t, IrRef val, uint32_t ncoord, const IrRef *coord)
{
	IrRef ops[16];

	if (ncoord + 2 > 16)
		IR_ICE("too many coordinates");
	ops[0] = t;
	ops[1] = val;
	memcpy(ops + 2, coord, sizeof *coord * ncoord);
	ir_b_inst(b, IR_OP_TSTORE, ir_ty(IR_VOID), ncoord + 2, ops);
}

static void
imm3(IrBuilder *b, IrOp op, int a, int c, int d)
{
	IrRef r = ir_b_inst(b, op, ir_ty(IR_VOID), 0, NULL);
	b->fn->inst[r].imm[0] = a;
	b->fn->inst[r].imm[1] = c;
	b->fn->inst[r].imm[2] = d;
}

void ir_b_barrier(IrBuilder *b) { imm3(b, IR_OP_BARRIER, 0, 0, 0); }
void ir_b_wait(IrBuilder *b, int vmem, int lds, int stores) { imm3(b, IR_OP_WAIT, vmem, lds, stores); }
void ir_b_sched_group(IrBuilder *b, int mask, int count, int sid) { imm3(b, IR_OP_SCHEDGRP, mask, count, sid); }
void ir_b_sched_barrier(IrBuilder *b, int mask) { imm3(b, IR_OP_SCHEDBAR, mask, 0, 0); }
void ir_b_pipe_mark(IrBuilder *b, int which) { imm3(b, IR_OP_SCHEDBAR, 0, which, 0); }
void ir_b_setprio(IrBuilder *b, int prio) { imm3(b, IR_OP_SETPRIO, prio, 0, 0); }
void ir_b_fence(IrBuilder *b, IrScope scope, IrOrder order) { imm3(b, IR_OP_FENCE, scope, order, 0); }

IrRef
ir_b_ld_tr(IrBuilder *b, IrRef src, IrType ty, int elem_bits)
{
	IrRef r = ir_b_inst(b, IR_OP_LDTR, ty, 1, &src);
	b->fn->inst[r].imm[0] = elem_bits;
	return r;
}

void
ir_b_lds_dma(IrBuilder *b, IrRef src, IrRef dst, int bytes, int lane_stride)
{
	IrRef ops[2] = { src, dst };
	IrRef r = ir_b_inst(b, IR_OP_LDSDMA, ir_ty(IR_VOID), 2, ops);
	b->fn->inst[r].imm[0] = bytes;
	b->fn->inst[r].imm[1] = lane_stride;
}

static IrRef
rarg(IrFunc *f, IrRegion rg, unsigned index, IrType ty, IrLoc loc)
{
	IrRef r = new_inst(f, IR_OP_RARG, ty, 0, NULL, loc);
	f->inst[r].imm[0] = index;
	ir_region_insert(f, rg, f->reg[rg].n, r);
	return r;
}

IrRef
ir_b_for(IrBuilder *b, IrRef lb, IrRef ub, IrRef step, uint32_t n, const IrRef *inits,
         IrRef *iv, IrRef *iter)
{
	IrRef ops[64];
	IrRef loop;
	IrRegion body;

	if (n + 3 > 64)
		IR_ICE("too many loop-carried values");
	ops[0] = lb; ops[1] = ub; ops[2] = step;
	if (n)
		memcpy(ops + 3, inits, sizeof *inits * n);
	loop = ir_b_inst(b, IR_OP_FOR, ir_ty(IR_TUPLE), n + 3, ops);
	body = new_region(b->fn, loop);
	b->fn->inst[loop].region[0] = body;
	*iv = rarg(b->fn, body, 0, ty_of(b, lb), b->loc);
	for (uint32_t i = 0; i < n; i++) {
		IrRef a = rarg(b->fn, body, i + 1, ty_of(b, inits[i]), b->loc);
		if (iter)
			iter[i] = a;
	}
	b->cur = body;
	return loop;
}

IrRef
ir_b_if(IrBuilder *b, IrRef cond, uint32_t nres, const IrType *res)
{
	IrRef r = ir_b_inst(b, IR_OP_IF, ir_ty(IR_TUPLE), 1, &cond);
	IrRegion th = new_region(b->fn, r), el = new_region(b->fn, r);

	b->fn->inst[r].region[0] = th;
	b->fn->inst[r].region[1] = el;
	/* imm[0] = number of results; their types are those of the yields */
	b->fn->inst[r].imm[0] = nres;
	(void)res;
	b->cur = th;
	return r;
}

IrRef
ir_b_while(IrBuilder *b, uint32_t n, const IrRef *inits, IrRef *before)
{
	IrRef loop = ir_b_inst(b, IR_OP_WHILE, ir_ty(IR_TUPLE), n, inits);
	IrRegion r0 = new_region(b->fn, loop), r1 = new_region(b->fn, loop);

	b->fn->inst[loop].region[0] = r0;
	b->fn->inst[loop].region[1] = r1;
	for (uint32_t i = 0; i < n; i++)
		before[i] = rarg(b->fn, r0, i, ty_of(b, inits[i]), b->loc);
	b->cur = r0;
	return loop;
}

void
ir_b_while_body(IrBuilder *b, IrRef loop, IrRef *body)
{
	IrInst *L = &b->fn->inst[loop];
	IrRegion r1 = L->region[1];

	for (uint32_t i = 0; i < L->nops; i++)
		body[i] = rarg(b->fn, r1, i, b->fn->inst[L->ops[i]].ty, b->loc);
	b->cur = r1;
}

static int
region_terminated(IrFunc *f, IrRegion rg)
{
	IrRegionData *R = &f->reg[rg];
	return R->n && (ir_op_flags((IrOp)f->inst[R->inst[R->n - 1]].op) & IR_TERM);
}

void
ir_b_else(IrBuilder *b)
{
	IrRef owner = b->fn->reg[b->cur].owner;

	if (!region_terminated(b->fn, b->cur))
		ir_b_yield(b, 0, NULL);
	b->cur = b->fn->inst[owner].region[1];
}

void
ir_b_yield(IrBuilder *b, uint32_t n, const IrRef *vals)
{
	ir_b_inst(b, IR_OP_YIELD, ir_ty(IR_VOID), n, vals);
}

void
ir_b_end(IrBuilder *b)
{
	IrRef owner = b->fn->reg[b->cur].owner;
	IrInst *O;

	if (!owner)
		IR_ICE("ir_b_end outside a for/if");
	if (!region_terminated(b->fn, b->cur))
		ir_b_yield(b, 0, NULL);
	O = &b->fn->inst[owner];
	if (O->op == IR_OP_IF && b->cur == O->region[0] && !region_terminated(b->fn, O->region[1])) {
		b->cur = O->region[1];
		ir_b_yield(b, 0, NULL);
	}
	b->cur = O->parent;
}

IrRef
ir_b_proj(IrBuilder *b, IrRef multi, unsigned index)
{
	IrFunc *f = b->fn;
	IrInst *M = &f->inst[multi];
	IrType ty = ir_ty(IR_VOID);
	IrRef r;

	if (M->op == IR_OP_FOR && index + 3 < M->nops)
		ty = f->inst[M->ops[index + 3]].ty;
	else if (M->op == IR_OP_WHILE && index < M->nops)
		ty = f->inst[M->ops[index]].ty;
	else if (M->op == IR_OP_IF) {
		IrRegionData *R = &f->reg[M->region[0]];
		if (R->n) {
			IrInst *Y = &f->inst[R->inst[R->n - 1]];
			if (Y->op == IR_OP_YIELD && index < Y->nops)
				ty = f->inst[Y->ops[index]].ty;
		}
	}
	r = ir_b_inst(b, IR_OP_PROJ, ty, 1, &multi);
	f->inst[r].imm[0] = index;
	return r;
}

void ir_b_ret(IrBuilder *b) { ir_b_inst(b, IR_OP_RET, ir_ty(IR_VOID), 0, NULL); }

/* ---- tuples, layouts ---- */

IrTuple *
ir_tuple_int(IrModule *m, int64_t v)
{
	IrTuple *t = ir_alloc(m, sizeof *t);
	t->value = v;
	return t;
}

IrTuple *
ir_tuple_dyn(IrModule *m, IrRef v)
{
	IrTuple *t = ir_alloc(m, sizeof *t);
	t->dyn = v;
	return t;
}

IrTuple *
ir_tuple_of(IrModule *m, int n, IrTuple **kids)
{
	IrTuple *t = ir_alloc(m, sizeof *t);
	t->n = n;
	t->kid = ir_alloc(m, sizeof *t->kid * (size_t)n);
	memcpy(t->kid, kids, sizeof *kids * (size_t)n);
	return t;
}

int ir_tuple_rank(const IrTuple *t) { return t->n ? t->n : 1; }

int
ir_tuple_is_static(const IrTuple *t)
{
	if (!t->n)
		return t->dyn == 0;
	for (int i = 0; i < t->n; i++)
		if (!ir_tuple_is_static(t->kid[i]))
			return 0;
	return 1;
}

int64_t
ir_tuple_size(const IrTuple *t)
{
	int64_t p = 1;

	if (!t->n)
		return t->dyn ? -1 : t->value;
	for (int i = 0; i < t->n; i++) {
		int64_t k = ir_tuple_size(t->kid[i]);
		if (k < 0)
			return -1;
		p *= k;
	}
	return p;
}

static int64_t
cosize_rec(const IrTuple *s, const IrTuple *d)
{
	int64_t m = 0;

	if (!s->n) {
		if (s->dyn || d->n || d->dyn)
			return -1;
		return s->value > 0 ? (s->value - 1) * (d->value < 0 ? -d->value : d->value) : 0;
	}
	if (d->n != s->n)
		return -1;
	for (int i = 0; i < s->n; i++) {
		int64_t k = cosize_rec(s->kid[i], d->kid[i]);
		if (k < 0)
			return -1;
		m += k;
	}
	return m;
}

int64_t
ir_layout_cosize(const IrLayout *l)
{
	int64_t m = cosize_rec(l->shape, l->stride);
	int64_t c;

	if (m < 0)
		return -1;
	c = m + 1;
	if (l->sw.b) {
		/* a swizzle permutes within aligned blocks of 2^(b+m+s) elements */
		int64_t blk = (int64_t)1 << (l->sw.b + l->sw.m + l->sw.s);
		c = (c + blk - 1) / blk * blk;
	}
	return c;
}

/* tiny recursive-descent parser for "(a,(b,c)):(d,(e,f))" */
typedef struct { IrModule *m; const char *p; int err; } Lp;

static void
skipws(Lp *l)
{
	while (isspace((unsigned char)*l->p))
		l->p++;
}

static IrTuple *
parse_tuple(Lp *l, int depth)
{
	skipws(l);
	if (depth > 32) {
		l->err = 1;
		return NULL;
	}
	if (*l->p == '(') {
		IrTuple *kids[64];
		int n = 0;
		l->p++;
		for (;;) {
			IrTuple *k = parse_tuple(l, depth + 1);
			if (!k || n == 64) {
				l->err = 1;
				return NULL;
			}
			kids[n++] = k;
			skipws(l);
			if (*l->p == ',') {
				l->p++;
				continue;
			}
			if (*l->p == ')') {
				l->p++;
				break;
			}
			l->err = 1;
			return NULL;
		}
		return n == 1 ? kids[0] : ir_tuple_of(l->m, n, kids);
	}
	if (*l->p == '%') {
		char *e;
		unsigned long v;
		l->p++;
		v = strtoul(l->p, &e, 10);
		if (e == l->p || v == 0) {
			l->err = 1;
			return NULL;
		}
		l->p = e;
		return ir_tuple_dyn(l->m, (IrRef)v);
	}
	if (isdigit((unsigned char)*l->p) || *l->p == '-') {
		char *e;
		long long v = strtoll(l->p, &e, 10);
		if (e == l->p) {
			l->err = 1;
			return NULL;
		}
		l->p = e;
		return ir_tuple_int(l->m, v);
	}
	l->err = 1;
	return NULL;
}

static int
congruent(const IrTuple *a, const IrTuple *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (!congruent(a->kid[i], b->kid[i]))
			return 0;
	return 1;
}

int
ir_layout_parse(IrModule *m, const char *text, IrLayout *out)
{
	Lp l = { m, text, 0 };

	memset(out, 0, sizeof *out);
	skipws(&l);
	if (!strncmp(l.p, "sw(", 3)) {
		int b, mm, s, n = 0;
		if (sscanf(l.p, "sw(%d,%d,%d)%n", &b, &mm, &s, &n) != 3 || n == 0)
			return -1;
		if (b < 0 || mm < 0 || s < 0 || b + mm + s > 30)
			return -1;
		out->sw.b = b; out->sw.m = mm; out->sw.s = s;
		l.p += n;
		skipws(&l);
		if (*l.p != 'o')
			return -1;
		l.p++;
	}
	out->shape = parse_tuple(&l, 0);
	skipws(&l);
	if (l.err || *l.p != ':')
		return -1;
	l.p++;
	out->stride = parse_tuple(&l, 0);
	skipws(&l);
	if (l.err || *l.p || !congruent(out->shape, out->stride))
		return -1;
	return 0;
}
