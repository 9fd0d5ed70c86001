/*
 * lower_llvm.c — the IR (after ir_run_passes) to LLVM AMDGPU IR, through the
 * LLVM-C API.
 *
 * Kernel ABI: `amdgpu_kernel` (calling convention 91); global tensors are
 * `ptr addrspace(1)` arguments with noalias/align; by-value scalars follow.
 * Attributes: "amdgpu-flat-work-group-size"="B,B" from the block size,
 * "amdgpu-waves-per-eu" when hinted, and every "amdgpu-no-*" hidden-argument
 * attribute except for the work-item/workgroup ids the kernel reads, so the
 * code object has no hidden arguments (codegen-only pipelines do not run the
 * attributor). LDS: one `addrspace(3)` array per kernel, [lds_bytes x i8],
 * buffers placed at the offsets lds-alloc assigned.
 *
 * Memory: a global tensor addressed IR_ADDR_BUFFER gets one resource made by
 * llvm.amdgcn.make.buffer.rsrc (num_records = its byte span, computed at run
 * time for run-time layouts) and raw.ptr.buffer.load/store with a 32-bit
 * byte offset; IR_ADDR_GLOBAL64 uses a 64-bit GEP from the argument.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "ir.h"
#include "lower_llvm.h"
#include "target/target.h"

typedef struct {
	IrFunc *f;
	const TgtDesc *t;
	IrDiag *d;
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	LLVMValueRef *val;        /* per IR value */
	LLVMValueRef **multi;     /* for/if: malloc'ed array of result values */
	struct { LLVMValueRef x, v; int64_t size, hi; } *lds_hi;   /* lds_high()'s values */
	uint32_t nlds_hi, caplds_hi;
	uint8_t *unif;                 /* uniformity()'s answers (UNIF_*) */
	IrRef *ulog;                   /* answers given under an assumption (while_arg) */
	uint32_t nulog, nassume;
	uint32_t *dseen, dgen;         /* lane_varying()'s visits */
	LLVMValueRef lds;         /* the kernel's LDS array, or NULL */
	LLVMMetadataRef sp;       /* debug subprogram, or NULL */
	LLVMDIBuilderRef dib;
	int failed;
} Lw;

/* ---- types ---- */

static LLVMTypeRef
scalar_ty(LLVMContextRef c, IrScalar k)
{
	switch (k) {
	case IR_I1: return LLVMInt1TypeInContext(c);
	case IR_I8: return LLVMInt8TypeInContext(c);
	case IR_I16: return LLVMInt16TypeInContext(c);
	case IR_I32: return LLVMInt32TypeInContext(c);
	case IR_I64: return LLVMInt64TypeInContext(c);
	case IR_F16: return LLVMHalfTypeInContext(c);
	case IR_BF16: return LLVMBFloatTypeInContext(c);
	case IR_F32: return LLVMFloatTypeInContext(c);
	case IR_I4: return LLVMIntTypeInContext(c, 4);
	case IR_I6: return LLVMIntTypeInContext(c, 6);
	case IR_PTR: return LLVMPointerTypeInContext(c, 1);
	default: return LLVMVoidTypeInContext(c);
	}
}

/* Vectors of packed sub-byte elements (i4, i6) hold lanes * bits bits, element
 * e at bits e*bits.. (LLVM's own layout of <n x i4>), as <k x i32> when that is
 * whole words (more than one) and as one integer otherwise. LLVM vectors of
 * i4/i6, and bitcasts between wide integers and i32 vectors, legalize through
 * scratch memory on AMDGPU (verified with llc-22), so extract/insert/splat on
 * packed vectors are word moves where the part is whole words, and shifts and
 * masks within a word otherwise. */
static int
packed_vec(IrType t)
{
	return ir_scalar_packed((IrScalar)t.kind) && t.lanes > 1;
}

static LLVMTypeRef
llty(Lw *w, IrType t)
{
	LLVMTypeRef s = scalar_ty(w->ctx, (IrScalar)t.kind);
	if (packed_vec(t)) {
		unsigned bits = ir_scalar_bits((IrScalar)t.kind) * t.lanes;
		return bits % 32 || bits == 32 ? LLVMIntTypeInContext(w->ctx, bits)
		                               : LLVMVectorType(LLVMInt32TypeInContext(w->ctx), bits / 32);
	}
	return t.lanes > 1 ? LLVMVectorType(s, t.lanes) : s;
}

static LLVMTypeRef i32t(Lw *w) { return LLVMInt32TypeInContext(w->ctx); }
static LLVMTypeRef i64t(Lw *w) { return LLVMInt64TypeInContext(w->ctx); }
static LLVMValueRef ci32(Lw *w, int64_t v) { return LLVMConstInt(i32t(w), (unsigned long long)v, 1); }

/* v converted to type `to` bit for bit. Between a wide packed integer (i96,
 * i192, ...) and a vector of i32 this is shifts and word extracts: LLVM's
 * bitcast between them goes through scratch memory on AMDGPU (llc-22). */
static LLVMValueRef
pcast(Lw *w, LLVMValueRef v, LLVMTypeRef to)
{
	LLVMTypeRef from = LLVMTypeOf(v);
	if (from == to)
		return v;
	if (LLVMGetTypeKind(from) == LLVMIntegerTypeKind && LLVMGetTypeKind(to) == LLVMIntegerTypeKind)
		return LLVMGetIntTypeWidth(from) < LLVMGetIntTypeWidth(to) ? LLVMBuildZExt(w->b, v, to, "")
		                                                            : LLVMBuildTrunc(w->b, v, to, "");
	if (LLVMGetTypeKind(from) == LLVMIntegerTypeKind && LLVMGetTypeKind(to) == LLVMVectorTypeKind &&
	    LLVMGetElementType(to) == i32t(w) && LLVMGetIntTypeWidth(from) == 32 * LLVMGetVectorSize(to)) {
		LLVMValueRef r = LLVMGetPoison(to);
		for (unsigned k = 0; k < LLVMGetVectorSize(to); k++) {
			LLVMValueRef x = LLVMBuildLShr(w->b, v, LLVMConstInt(from, 32 * k, 0), "");
			r = LLVMBuildInsertElement(w->b, r, LLVMBuildTrunc(w->b, x, i32t(w), ""), ci32(w, k), "");
		}
		return r;
	}
	if (LLVMGetTypeKind(to) == LLVMIntegerTypeKind && LLVMGetTypeKind(from) == LLVMVectorTypeKind &&
	    LLVMGetElementType(from) == i32t(w) && LLVMGetIntTypeWidth(to) == 32 * LLVMGetVectorSize(from)) {
		LLVMValueRef r = LLVMConstNull(to);
		for (unsigned k = 0; k < LLVMGetVectorSize(from); k++) {
			LLVMValueRef x = LLVMBuildZExt(w->b, LLVMBuildExtractElement(w->b, v, ci32(w, k), ""), to, "");
			r = LLVMBuildOr(w->b, r, LLVMBuildShl(w->b, x, LLVMConstInt(to, 32 * k, 0), ""), "");
		}
		return r;
	}
	return LLVMBuildBitCast(w->b, v, to, "");
}

/* Declare (once) and return the function NAME of the given type. */
static LLVMValueRef
decl(Lw *w, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n, LLVMTypeRef *fty)
{
	LLVMValueRef f = LLVMGetNamedFunction(w->mod, name);

	*fty = LLVMFunctionType(ret, params, n, 0);
	if (!f)
		f = LLVMAddFunction(w->mod, name, *fty);
	return f;
}

static LLVMValueRef
call(Lw *w, const char *name, LLVMTypeRef ret, LLVMTypeRef *pt, LLVMValueRef *args, unsigned n)
{
	LLVMTypeRef fty;
	LLVMValueRef f = decl(w, name, ret, pt, n, &fty);
	return LLVMBuildCall2(w->b, fty, f, args, n, "");
}

/* overload suffix of a type in intrinsic names: f32, v4i32, bf16, ... */
static void
suffix(IrType t, char *buf, size_t n)
{
	if (t.lanes > 1)
		snprintf(buf, n, "v%u%s", t.lanes, ir_scalar_name((IrScalar)t.kind));
	else
		snprintf(buf, n, "%s", ir_scalar_name((IrScalar)t.kind));
}

static void
fail(Lw *w, IrRef r, const char *msg)
{
	ir_error(w->d, w->f->inst[r].loc, "%s", msg);
	w->failed = 1;
}

/* ---- tensors ---- */

/* i64 value of a layout leaf */
static LLVMValueRef
leaf64(Lw *w, const IrTuple *t)
{
	if (!t->dyn)
		return LLVMConstInt(i64t(w), (unsigned long long)t->value, 1);
	return LLVMBuildSExtOrBitCast(w->b, w->val[t->dyn], i64t(w), "");
}

/* max offset (cosize - 1) in i64 */
static LLVMValueRef
maxoff64(Lw *w, const IrTuple *s, const IrTuple *d)
{
	LLVMValueRef one = LLVMConstInt(i64t(w), 1, 0);

	if (!s->n) {
		LLVMValueRef sm1 = LLVMBuildSub(w->b, leaf64(w, s), one, "");
		LLVMValueRef dd = leaf64(w, d);
		LLVMValueRef neg = LLVMBuildICmp(w->b, LLVMIntSLT, dd, LLVMConstInt(i64t(w), 0, 0), "");
		dd = LLVMBuildSelect(w->b, neg, LLVMBuildNeg(w->b, dd, ""), dd, "");
		return LLVMBuildMul(w->b, sm1, dd, "");
	}
	LLVMValueRef acc = LLVMConstInt(i64t(w), 0, 0);
	for (int i = 0; i < s->n; i++)
		acc = LLVMBuildAdd(w->b, acc, maxoff64(w, s->kid[i], d->kid[i]), "");
	return acc;
}

static unsigned esize(IrScalar k) { return (unsigned)ir_scalar_bytes(k, 1); }

static LLVMValueRef
make_rsrc(Lw *w, IrTensor *T, LLVMValueRef base)
{
	LLVMTypeRef pt[4] = { LLVMPointerTypeInContext(w->ctx, 1), LLVMInt16TypeInContext(w->ctx),
	                      i64t(w), i32t(w) };
	LLVMValueRef args[4], nrec;
	int64_t cos = ir_layout_cosize(&T->layout);

	if (cos >= 0) {
		nrec = LLVMConstInt(i64t(w), (unsigned long long)ir_scalar_bytes(T->elem, (uint64_t)cos), 0);
	} else {
		/* run-time span: (max offset + 1) * esize, clamped to 2^32-1; the
		 * lower-layout pass only picks a buffer when a bound proves it fits */
		LLVMValueRef c = LLVMBuildAdd(w->b, maxoff64(w, T->layout.shape, T->layout.stride),
		                              LLVMConstInt(i64t(w), 1, 0), "");
		LLVMValueRef bytes = LLVMBuildMul(w->b, c, LLVMConstInt(i64t(w), esize(T->elem), 0), "");
		if (ir_scalar_packed(T->elem))   /* (c * bits + 7) / 8 */
			bytes = LLVMBuildLShr(w->b, LLVMBuildAdd(w->b, LLVMBuildMul(w->b, c, LLVMConstInt(i64t(w),
			                      ir_scalar_bits(T->elem), 0), ""), LLVMConstInt(i64t(w), 7, 0), ""),
			                      LLVMConstInt(i64t(w), 3, 0), "");
		LLVMValueRef lim = LLVMConstInt(i64t(w), 0xFFFFFFFFull, 0);
		LLVMValueRef big = LLVMBuildICmp(w->b, LLVMIntUGT, bytes, lim, "");
		nrec = LLVMBuildSelect(w->b, big, lim, bytes, "");
	}
	args[0] = base;
	args[1] = LLVMConstInt(LLVMInt16TypeInContext(w->ctx), 0, 0);
	args[2] = nrec;
	args[3] = LLVMConstInt(i32t(w), w->t->buf_word3, 0);
	return call(w, "llvm.amdgcn.make.buffer.rsrc.p8.p1", LLVMPointerTypeInContext(w->ctx, 8), pt, args, 4);
}

/* the integer type a buffer access of type t moves: i8, i16, i32, v2i32, v3i32, v4i32 */
static int
buffer_word_type(Lw *w, IrType t, LLVMTypeRef *out, char *sfx, size_t n)
{
	unsigned bits = ir_scalar_bits((IrScalar)t.kind) * t.lanes;

	switch (bits) {
	case 8: *out = LLVMInt8TypeInContext(w->ctx); snprintf(sfx, n, "i8"); return 0;
	case 16: *out = LLVMInt16TypeInContext(w->ctx); snprintf(sfx, n, "i16"); return 0;
	case 32: *out = i32t(w); snprintf(sfx, n, "i32"); return 0;
	case 64: case 96: case 128:
		*out = LLVMVectorType(i32t(w), bits / 32);
		snprintf(sfx, n, "v%ui32", bits / 32);
		return 0;
	default:
		return -1;
	}
}

/* packed elements: off * bits / 8 (codegen made every access start on a byte) */
static LLVMValueRef
byte_offset(Lw *w, LLVMValueRef off, IrScalar elem, LLVMTypeRef ity)
{
	if (ir_scalar_packed(elem))
		return LLVMBuildAShr(w->b, LLVMBuildMul(w->b, off, LLVMConstInt(ity, ir_scalar_bits(elem), 0), ""),
		                     LLVMConstInt(ity, 3, 0), "");
	return LLVMBuildMul(w->b, off, LLVMConstInt(ity, esize(elem), 0), "");
}

/* X * SIZE + HI (i32, HI a multiple of 64 KiB) through an empty inline asm,
 * built once per (X, SIZE, HI) right after X's definition: LLVM cannot see
 * through it, so it does not fold HI into the constant offsets added at each
 * access (a ds_read's offset field holds 16 bits), and the accesses with the
 * same X share one register */
static LLVMValueRef
lds_high(Lw *w, LLVMValueRef x, int64_t size, int64_t hi)
{
	for (uint32_t i = 0; i < w->nlds_hi; i++)
		if (w->lds_hi[i].x == x && w->lds_hi[i].size == size && w->lds_hi[i].hi == hi)
			return w->lds_hi[i].v;
	LLVMBasicBlockRef bb = LLVMGetInsertBlock(w->b);
	LLVMValueRef n = LLVMIsAInstruction(x) ? LLVMGetNextInstruction(x)
	               : LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(w->fn));
	while (n && LLVMIsAPHINode(n))
		n = LLVMGetNextInstruction(n);
	if (n)
		LLVMPositionBuilderBefore(w->b, n);
	LLVMTypeRef ft = LLVMFunctionType(i32t(w), (LLVMTypeRef[]){ i32t(w) }, 1, 0);
	LLVMValueRef a = LLVMGetInlineAsm(ft, "", 0, "=v,0", 4, 0, 0, LLVMInlineAsmDialectATT, 0);
	LLVMValueRef y = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, x, ci32(w, (int32_t)size), ""), ci32(w, (int32_t)hi), "");
	LLVMValueRef v = LLVMBuildCall2(w->b, ft, a, &y, 1, "");
	/* memory(none), nounwind, willreturn: LLVM may merge equal ones and hoist them */
	static const char *const attr[] = { "memory", "nounwind", "willreturn" };
	for (int i = 0; i < 3; i++) {
		unsigned k = LLVMGetEnumAttributeKindForName(attr[i], strlen(attr[i]));
		LLVMAddCallSiteAttribute(v, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(w->ctx, k, 0));
	}
	LLVMPositionBuilderAtEnd(w->b, bb);
	if (w->nlds_hi == w->caplds_hi) {
		w->caplds_hi = w->caplds_hi ? 2 * w->caplds_hi : 16;
		if (!(w->lds_hi = realloc(w->lds_hi, w->caplds_hi * sizeof *w->lds_hi)))
			IR_ICE("out of memory");
	}
	w->lds_hi[w->nlds_hi].x = x;
	w->lds_hi[w->nlds_hi].v = v;
	w->lds_hi[w->nlds_hi].size = size;
	w->lds_hi[w->nlds_hi++].hi = hi;
	return v;
}

/* The address of element offset OFF (an IR value) of tensor T. In LDS, the
 * constant addends of OFF (an atom's or a k-step's offset, split from the
 * swizzle by lower-layout) and the tensor's place in LDS go to a GEP of their
 * own: LLVM keeps that one as a constant offset and folds it into the ds_read
 * or ds_write, where (x + c) * size would become an `or` that loses its
 * disjointness once hoisted, and cost each access its own address register.
 * Only where the target table says so (TGT_F_LDS_CONST_OFFSET: gfx950): on
 * gfx1201 the visible offsets let LLVM pair ds_load_b64s into 4-register
 * ds_load_2addr tuples, and attention's forward kernels spilled. */
static LLVMValueRef
address(Lw *w, IrTensor *T, IrRef tref, IrRef off)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(w->ctx);

	if (T->space == IR_SPACE_LDS) {
		int split = tgt_has(w->t, TGT_F_LDS_CONST_OFFSET) && !ir_scalar_packed(T->elem);
		int64_t c = 0;
		while (split && w->f->inst[off].op == IR_OP_ADD) {
			IrInst *A = &w->f->inst[off];
			int k = w->f->inst[A->ops[1]].op == IR_OP_CONST ? 1 : w->f->inst[A->ops[0]].op == IR_OP_CONST ? 0 : -1;
			if (k < 0)
				break;
			c += w->f->inst[A->ops[k]].imm[0];
			off = A->ops[1 - k];
		}
		int64_t cb = T->lds_offset + c * esize(T->elem), hi = split && cb > 0xffff ? cb & ~(int64_t)0xffff : 0;
		LLVMValueRef bo = hi ? lds_high(w, w->val[off], esize(T->elem), hi)
		                     : byte_offset(w, w->val[off], T->elem, i32t(w));
		LLVMValueRef p = LLVMBuildInBoundsGEP2(w->b, i8, w->lds, &bo, 1, "");
		LLVMValueRef co = ci32(w, (int32_t)(cb - hi));
		return LLVMBuildInBoundsGEP2(w->b, i8, p, &co, 1, "");
	}
	/* global64: offset is i64 */
	LLVMValueRef bo = byte_offset(w, w->val[off], T->elem, i64t(w));
	return LLVMBuildInBoundsGEP2(w->b, i8, w->val[tref], &bo, 1, "");
}

static unsigned
access_align(IrTensor *T, IrType t)
{
	unsigned a = (unsigned)ir_scalar_bytes(T->elem, t.lanes);
	if (ir_scalar_packed(T->elem)) {
		/* a packed piece of B bytes starts at a multiple of B (codegen's pieces) */
		a &= -a;
		if (a > 16)
			a = 16;
		if (T->space == IR_SPACE_GLOBAL && T->align && a > T->align)
			a = T->align;
		return a ? a : 1;
	}
	/* vector accesses promise natural alignment (the tiled copy's contract),
	 * capped at 16 and at the base alignment */
	/* 96 bits: ds_read/write_b96 need 16-byte aligned addresses (LLVM selects
	 * them only at align 16; ds_read_b96 atoms promise it); in global memory
	 * dwordx3 needs 4 */
	if (a == 12)
		a = T->space == IR_SPACE_LDS ? 16 : 4;
	if (a > 16)
		a = 16;
	a &= -a;   /* a power of two */
	if (T->space == IR_SPACE_GLOBAL && T->align && a > T->align)
		a = T->align;
	if (a < esize(T->elem))
		a = esize(T->elem);
	return a;
}

/* Pipeline ring accesses (imm[2] = 2p+1: an LDS write of pipeline p's load
 * block, 2p+2: an LDS read of its compute block) carry scoped-noalias
 * metadata: within an iteration the load fills another ring slot than the
 * compute reads, so LLVM need not wait for the prefetch before the reads
 * (without it SIInsertWaitcnts puts vmcnt(0) before every LDS read after a
 * load straight to LDS; verified with llc-22). */
static void
ring_alias(Lw *w, LLVMValueRef inst, int64_t tag)
{
	char nm[3][48];
	LLVMMetadataRef dom, sc[2], own, other;
	int p, role;

	if (tag <= 0 || !inst)
		return;
	p = (int)((tag - 1) / 2);
	role = (int)((tag - 1) % 2);
	snprintf(nm[0], sizeof nm[0], "flyc.pipeline.%d", p);
	snprintf(nm[1], sizeof nm[1], "flyc.pipeline.%d.load", p);
	snprintf(nm[2], sizeof nm[2], "flyc.pipeline.%d.compute", p);
	{
		LLVMMetadataRef s = LLVMMDStringInContext2(w->ctx, nm[0], strlen(nm[0]));
		dom = LLVMMDNodeInContext2(w->ctx, &s, 1);
	}
	for (int i = 0; i < 2; i++) {
		LLVMMetadataRef ops[2] = { LLVMMDStringInContext2(w->ctx, nm[1 + i], strlen(nm[1 + i])), dom };
		sc[i] = LLVMMDNodeInContext2(w->ctx, ops, 2);
	}
	own = LLVMMDNodeInContext2(w->ctx, &sc[role], 1);
	other = LLVMMDNodeInContext2(w->ctx, &sc[1 - role], 1);
	LLVMSetMetadata(inst, LLVMGetMDKindIDInContext(w->ctx, "alias.scope", 11), LLVMMetadataAsValue(w->ctx, own));
	LLVMSetMetadata(inst, LLVMGetMDKindIDInContext(w->ctx, "noalias", 7), LLVMMetadataAsValue(w->ctx, other));
}

static void
lower_ld(Lw *w, IrRef r)
{
	IrInst *I = &w->f->inst[r];
	IrRef tref = I->ops[0];
	IrTensor *T = &w->f->tensor[w->f->inst[tref].aux];
	LLVMValueRef off = w->val[I->ops[1]];
	LLVMTypeRef vt = llty(w, I->ty);

	if (T->space == IR_SPACE_GLOBAL && T->addr == IR_ADDR_BUFFER) {
		LLVMTypeRef wt;
		char sfx[16], name[64];
		if (buffer_word_type(w, I->ty, &wt, sfx, sizeof sfx)) {
			fail(w, r, "a buffer load moves 8, 16, 32, 64, 96 or 128 bits; split wider accesses");
			return;
		}
		snprintf(name, sizeof name, "llvm.amdgcn.raw.ptr.buffer.load.%s", sfx);
		LLVMTypeRef pt[4] = { LLVMPointerTypeInContext(w->ctx, 8), i32t(w), i32t(w), i32t(w) };
		LLVMValueRef args[4] = { w->val[tref], byte_offset(w, off, T->elem, i32t(w)), ci32(w, 0), ci32(w, 0) };
		LLVMValueRef v = call(w, name, wt, pt, args, 4);
		w->val[r] = pcast(w, v, vt);
		return;
	}
	LLVMValueRef p = address(w, T, tref, I->ops[1]);
	LLVMValueRef v = LLVMBuildLoad2(w->b, vt, p, "");
	LLVMSetAlignment(v, access_align(T, I->ty));
	if (T->space == IR_SPACE_LDS)
		ring_alias(w, v, I->imm[2]);
	w->val[r] = v;
}

static void
lower_st(Lw *w, IrRef r)
{
	IrInst *I = &w->f->inst[r];
	IrRef tref = I->ops[0];
	IrTensor *T = &w->f->tensor[w->f->inst[tref].aux];
	LLVMValueRef v = w->val[I->ops[1]], off = w->val[I->ops[2]];
	IrType ty = w->f->inst[I->ops[1]].ty;

	if (T->space == IR_SPACE_GLOBAL && T->addr == IR_ADDR_BUFFER) {
		LLVMTypeRef wt;
		char sfx[16], name[64];
		if (buffer_word_type(w, ty, &wt, sfx, sizeof sfx)) {
			fail(w, r, "a buffer store moves 8, 16, 32, 64, 96 or 128 bits; split wider accesses");
			return;
		}
		snprintf(name, sizeof name, "llvm.amdgcn.raw.ptr.buffer.store.%s", sfx);
		LLVMTypeRef pt[5] = { wt, LLVMPointerTypeInContext(w->ctx, 8), i32t(w), i32t(w), i32t(w) };
		LLVMValueRef args[5] = { pcast(w, v, wt), w->val[tref],
		                         byte_offset(w, off, T->elem, i32t(w)), ci32(w, 0), ci32(w, 0) };
		call(w, name, LLVMVoidTypeInContext(w->ctx), pt, args, 5);
		return;
	}
	LLVMValueRef p = address(w, T, tref, I->ops[2]);
	LLVMValueRef s = LLVMBuildStore(w->b, v, p);
	LLVMSetAlignment(s, access_align(T, ty));
	if (T->space == IR_SPACE_LDS)
		ring_alias(w, s, I->imm[2]);
}

/* ---- atomics and fences (LLVM AMDGPUUsage "Memory Model": syncscope names,
 * orderings; the backend picks the instruction and the cache controls) ---- */

static LLVMAtomicOrdering
llvm_order(int64_t o)
{
	switch (o) {
	case IR_ORDER_RELAXED: return LLVMAtomicOrderingMonotonic;
	case IR_ORDER_ACQUIRE: return LLVMAtomicOrderingAcquire;
	case IR_ORDER_RELEASE: return LLVMAtomicOrderingRelease;
	case IR_ORDER_ACQ_REL: return LLVMAtomicOrderingAcquireRelease;
	default: return LLVMAtomicOrderingSequentiallyConsistent;
	}
}

static unsigned
sync_scope(Lw *w, int64_t s)
{
	const char *n = ir_scope_llvm[s];
	return LLVMGetSyncScopeID(w->ctx, n, strlen(n));
}

/* atomic root, value [, desired], offset: atomicrmw or cmpxchg on the element's
 * address (global_atomic_* or ds_*; a buffer-addressed global tensor through
 * its pointer argument too) */
static void
lower_atomic(Lw *w, IrRef r)
{
	static const LLVMAtomicRMWBinOp RMW[IR_ATOMIC_COUNT] = {
		[IR_ATOMIC_ADD] = LLVMAtomicRMWBinOpAdd, [IR_ATOMIC_SUB] = LLVMAtomicRMWBinOpSub,
		[IR_ATOMIC_SMIN] = LLVMAtomicRMWBinOpMin, [IR_ATOMIC_SMAX] = LLVMAtomicRMWBinOpMax,
		[IR_ATOMIC_UMIN] = LLVMAtomicRMWBinOpUMin, [IR_ATOMIC_UMAX] = LLVMAtomicRMWBinOpUMax,
		[IR_ATOMIC_AND] = LLVMAtomicRMWBinOpAnd, [IR_ATOMIC_OR] = LLVMAtomicRMWBinOpOr,
		[IR_ATOMIC_XOR] = LLVMAtomicRMWBinOpXor, [IR_ATOMIC_INC] = LLVMAtomicRMWBinOpUIncWrap,
		[IR_ATOMIC_DEC] = LLVMAtomicRMWBinOpUDecWrap, [IR_ATOMIC_XCHG] = LLVMAtomicRMWBinOpXchg,
		[IR_ATOMIC_FADD] = LLVMAtomicRMWBinOpFAdd,
	};
	IrInst *I = &w->f->inst[r];
	uint32_t first = ir_atomic_first(I);
	IrRef tref = I->ops[0];
	IrTensor *T = &w->f->tensor[w->f->inst[tref].aux];
	LLVMValueRef off = w->val[I->ops[first]], x = w->val[I->ops[1]], p, v;
	LLVMAtomicOrdering ord = llvm_order(I->imm[2]);
	unsigned ss = sync_scope(w, I->imm[1]);

	if (T->space == IR_SPACE_GLOBAL && T->addr == IR_ADDR_BUFFER) {
		/* the tensor's pointer argument with the offset widened: LLVM has no
		 * wrapping inc/dec on buffer fat pointers, and a global atomic is as
		 * fast as a buffer one */
		LLVMValueRef bo = byte_offset(w, LLVMBuildSExt(w->b, off, i64t(w), ""), T->elem, i64t(w));
		p = LLVMBuildInBoundsGEP2(w->b, LLVMInt8TypeInContext(w->ctx), w->val[w->f->inst[tref].ops[0]], &bo, 1, "");
	} else {
		p = address(w, T, tref, I->ops[first]);
	}
	if (I->imm[0] == IR_ATOMIC_CAS) {
		/* compared bitwise: a float element goes through its bits */
		LLVMValueRef d = w->val[I->ops[2]];
		LLVMAtomicOrdering fail_ord = ord == LLVMAtomicOrderingRelease ? LLVMAtomicOrderingMonotonic
		                            : ord == LLVMAtomicOrderingAcquireRelease ? LLVMAtomicOrderingAcquire : ord;
		v = LLVMBuildAtomicCmpXchgSyncScope(w->b, p, LLVMBuildBitCast(w->b, x, i32t(w), ""),
		                                    LLVMBuildBitCast(w->b, d, i32t(w), ""), ord, fail_ord, ss);
		v = LLVMBuildBitCast(w->b, LLVMBuildExtractValue(w->b, v, 0, ""), llty(w, I->ty), "");
	} else {
		v = LLVMBuildAtomicRMWSyncScope(w->b, RMW[I->imm[0]], p, x, ord, ss);
	}
	w->val[r] = v;
}

/* the lane's index in its wave (mbcnt) */
static LLVMValueRef
lane_index(Lw *w)
{
	LLVMTypeRef i32 = i32t(w), p2[2] = { i32, i32 };
	LLVMValueRef a2[2] = { ci32(w, -1), ci32(w, 0) }, lane;
	lane = call(w, "llvm.amdgcn.mbcnt.lo", i32, p2, a2, 2);
	if (w->t->wave_size == 64) {
		a2[1] = lane;
		lane = call(w, "llvm.amdgcn.mbcnt.hi", i32, p2, a2, 2);
	}
	return lane;
}

/* x (i32) of lane src (modulo the wave size: ds_bpermute reads the address's
 * lane bits only); an inactive source lane gives 0 */
static LLVMValueRef
bpermute(Lw *w, LLVMValueRef x, LLVMValueRef src)
{
	LLVMTypeRef p2[2] = { i32t(w), i32t(w) };
	LLVMValueRef a2[2] = { LLVMBuildShl(w->b, src, ci32(w, 2), ""), x };
	return call(w, "llvm.amdgcn.ds.bpermute", i32t(w), p2, a2, 2);
}

/* a DPP move of x (bound_ctrl: an invalid or inactive source lane gives 0) */
static LLVMValueRef
dpp(Lw *w, LLVMValueRef x, unsigned ctrl)
{
	LLVMTypeRef i1 = LLVMInt1TypeInContext(w->ctx), pt[6] = { i32t(w), i32t(w), i32t(w), i32t(w), i32t(w), i1 };
	LLVMValueRef a[6] = { ci32(w, 0), x, ci32(w, ctrl), ci32(w, 15), ci32(w, 15), LLVMConstInt(i1, 1, 0) };
	return call(w, "llvm.amdgcn.update.dpp.i32", i32t(w), pt, a, 6);
}

/* x (i32) of lane (lane ^ m) for a constant m below the wave size, by the
 * cheapest instruction (docs/codegen.md "Cross-lane operations"): m < 4 a DPP
 * quad_perm; gfx1201 (wave32) m < 16 DPP row_xmask, else v_permlanex16;
 * gfx950 7 and 15 DPP row_half_mirror / row_mirror, m < 32 ds_swizzle (xor
 * within 32 lanes), 32 and above ds_bpermute, or, when the whole wave runs it,
 * v_permlane32_swap (after the low bits). Every form gives 0 for an inactive
 * source lane, but permlane32_swap, which reads it. */
static LLVMValueRef
shfl_xor_const(Lw *w, LLVMValueRef x, unsigned m, int whole_wave)
{
	if (m == 0)
		return x;
	if (m < 4)
		return dpp(w, x, (0 ^ m) | (1 ^ m) << 2 | (2 ^ m) << 4 | (3 ^ m) << 6);
	if (w->t->wave_size == 32) {
		LLVMTypeRef i1 = LLVMInt1TypeInContext(w->ctx), pt[6] = { i32t(w), i32t(w), i32t(w), i32t(w), i1, i1 };
		uint64_t sel = 0;
		if (m < 16)
			return dpp(w, x, 0x160 + m);
		for (unsigned i = 0; i < 16; i++)
			sel |= (uint64_t)((i ^ m) & 15) << (4 * i);
		LLVMValueRef a[6] = { ci32(w, 0), x, ci32(w, (int64_t)(uint32_t)sel), ci32(w, (int64_t)(uint32_t)(sel >> 32)),
		                      LLVMConstInt(i1, 0, 0), LLVMConstInt(i1, 1, 0) };
		return call(w, "llvm.amdgcn.permlanex16.i32", i32t(w), pt, a, 6);
	}
	if (m == 7)
		return dpp(w, x, 0x141);
	if (m == 15)
		return dpp(w, x, 0x140);
	if (m < 32) {
		LLVMTypeRef pt[2] = { i32t(w), i32t(w) };
		LLVMValueRef a[2] = { x, ci32(w, (int64_t)(m << 10 | 0x1f)) };
		return call(w, "llvm.amdgcn.ds.swizzle", i32t(w), pt, a, 2);
	}
	if (!whole_wave)
		return bpermute(w, x, LLVMBuildXor(w->b, lane_index(w), ci32(w, m), ""));
	{
		/* {vdst, src0} after swapping vdst's lanes 32..63 with src0's 0..31:
		 * lanes below 32 find the other half in src0, the others in vdst */
		LLVMTypeRef i1 = LLVMInt1TypeInContext(w->ctx), pt[4] = { i32t(w), i32t(w), i1, i1 };
		LLVMValueRef y = shfl_xor_const(w, x, m & 31, 1), a[4], sw, lo;
		a[0] = y;
		a[1] = y;
		a[2] = a[3] = LLVMConstInt(i1, 0, 0);
		LLVMTypeRef et[2] = { i32t(w), i32t(w) };
		sw = call(w, "llvm.amdgcn.permlane32.swap", LLVMStructTypeInContext(w->ctx, et, 2, 0), pt, a, 4);
		lo = LLVMBuildICmp(w->b, LLVMIntULT, lane_index(w), ci32(w, 32), "");
		return LLVMBuildSelect(w->b, lo, LLVMBuildExtractValue(w->b, sw, 1, ""),
		                       LLVMBuildExtractValue(w->b, sw, 0, ""), "");
	}
}

/* uniformity()'s answers, memoised in Lw.unif */
enum { UNIF_UNKNOWN, UNIF_FIXED, UNIF_NO, UNIF_COUNTED };

static int uniformity(Lw *w, IrRef r);

/* operand I of the yield that ends region RG, or 0 */
static IrRef
yielded(const IrFunc *f, IrRegion rg, uint32_t i)
{
	const IrRegionData *R = &f->reg[rg];
	const IrInst *Y = R->n ? &f->inst[R->inst[R->n - 1]] : NULL;
	return Y && Y->op == IR_OP_YIELD && i < Y->nops ? Y->ops[i] : 0;
}

/* The uniformity of argument R (instruction I) of a region of while loop W:
 * UNIF_COUNTED when every value it takes is uniform (a before-region
 * argument: its init and the body's yield; a body argument: the before
 * region's yield), as pipe_fast's k-tile counter (codegen_pipe.c); else
 * UNIF_NO. The back edge reaches R again, so R is assumed uniform while its
 * sources are asked; the answers given under that assumption are logged and
 * forgotten when it fails. */
static int
while_arg(Lw *w, IrRef r, const IrInst *I, const IrInst *W)
{
	uint32_t i = (uint32_t)I->imm[0], mark = w->nulog;
	IrRef src[2];
	int n = 0, ok = 1;

	if (I->parent == W->region[0]) {
		src[n++] = i < W->nops ? W->ops[i] : 0;
		src[n++] = yielded(w->f, W->region[1], i);
	} else {
		src[n++] = yielded(w->f, W->region[0], i + 1);
	}
	for (int j = 0; j < n; j++)
		if (!src[j])
			return UNIF_NO;
	w->unif[r] = UNIF_COUNTED;
	w->nassume++;
	for (int j = 0; j < n && ok; j++)
		ok = uniformity(w, src[j]) != UNIF_NO;
	w->nassume--;
	if (ok) {
		if (!w->nassume)    /* no outer assumption: the answers stand */
			w->nulog = mark;
		return UNIF_COUNTED;
	}
	while (w->nulog > mark)
		w->unif[w->ulog[--w->nulog]] = 0;
	w->unif[r] = 0;
	return UNIF_NO;
}

/* The uniformity of result R (instruction I) of a while or an if: a while's
 * result is the before region's yield when its condition fails, so uniform
 * when that condition and value are (every active lane leaves at the same
 * trip); an if's when its condition and both yields are (a for's: UNIF_NO) */
static int
result_uniform(Lw *w, const IrInst *I)
{
	const IrInst *O = &w->f->inst[I->ops[0]];
	uint32_t i = (uint32_t)I->imm[0];
	IrRef src[3];
	int n = 0;

	if (O->op == IR_OP_WHILE) {
		src[n++] = yielded(w->f, O->region[0], 0);
		src[n++] = yielded(w->f, O->region[0], i + 1);
	} else if (O->op == IR_OP_IF) {
		src[n++] = O->ops[0];
		src[n++] = yielded(w->f, O->region[0], i);
		src[n++] = yielded(w->f, O->region[1], i);
	} else {
		return UNIF_NO;
	}
	for (int j = 0; j < n; j++)
		if (!src[j] || uniformity(w, src[j]) == UNIF_NO)
			return UNIF_NO;
	return UNIF_COUNTED;
}

/* UNIF_FIXED or UNIF_COUNTED if IR value r is the same in every active lane
 * by construction: pure integer arithmetic on constants, arguments, block
 * ids, readfirstlane results, ballots, the counters of for loops whose start
 * and step are such, while loop arguments that only take such values, and
 * while and if results that are such (result_uniform) (UNIF_COUNTED: it
 * depends on a loop's counter, a ballot or a branch); else UNIF_NO */
static int
uniformity(Lw *w, IrRef r)
{
	const IrFunc *f = w->f;
	const IrInst *I = &f->inst[r];
	int u = UNIF_FIXED;

	if (w->unif[r])
		return w->unif[r];
	switch (I->op) {
	case IR_OP_CONST: case IR_OP_ARG: case IR_OP_BID: case IR_OP_WAVESIZE: case IR_OP_UNIFORM:
		break;
	case IR_OP_BALLOT:
		u = UNIF_COUNTED;      /* the wave's mask, the same in every lane */
		break;
	case IR_OP_PROJ:
		u = result_uniform(w, I);
		break;
	case IR_OP_RARG: {
		IrRef o = f->reg[I->parent].owner;
		if (o && f->inst[o].op == IR_OP_WHILE) {
			u = while_arg(w, r, I, &f->inst[o]);
			break;
		}
		u = I->imm[0] == 0 && o && f->inst[o].op == IR_OP_FOR &&
		    uniformity(w, f->inst[o].ops[0]) != UNIF_NO && uniformity(w, f->inst[o].ops[2]) != UNIF_NO ?
		    UNIF_COUNTED : UNIF_NO;
		break;
	}
	default:
		if (!(I->op >= IR_OP_ADD && I->op <= IR_OP_SELECT) && I->op != IR_OP_CVT) {
			u = UNIF_NO;
			break;
		}
		for (uint32_t i = 0; i < I->nops && u != UNIF_NO; i++) {
			int o = uniformity(w, I->ops[i]);
			if (o != UNIF_FIXED)
				u = o;
		}
	}
	w->unif[r] = (uint8_t)u;
	if (w->nassume)
		w->ulog[w->nulog++] = r;
	return u;
}

/* the terms of the sum OFF (adds of its type) split into those of
 * uniformity in WHICH (a mask of 1 << UNIF_*), summed in *U, and the others in
 * *V (either NULL when none); a counted sum may hold fixed terms */
static void
split_uniform(Lw *w, IrRef off, unsigned which, LLVMValueRef *u, LLVMValueRef *v)
{
	IrInst *I = &w->f->inst[off];
	int un = uniformity(w, off);
	if (I->op == IR_OP_ADD && (!(which >> un & 1) || (un == UNIF_COUNTED && !(which >> UNIF_FIXED & 1)))) {
		split_uniform(w, I->ops[0], which, u, v);
		split_uniform(w, I->ops[1], which, u, v);
		return;
	}
	LLVMValueRef *to = which >> un & 1 ? u : v;
	*to = *to ? LLVMBuildAdd(w->b, *to, w->val[off], "") : w->val[off];
}

/* the element offset OFF of a tensor of ELEM split as split_uniform does
 * (packed elements: all in *V, as their byte offset does not distribute) */
static void
split_offset(Lw *w, IrRef off, IrScalar elem, unsigned which, LLVMValueRef *u, LLVMValueRef *v)
{
	*u = *v = NULL;
	if (ir_scalar_packed(elem))
		*v = w->val[off];
	else
		split_uniform(w, off, which, u, v);
}

/* 1 when integer value R depends, through pure arithmetic, on a region
 * argument or a loop's or an if's result that may differ between the active
 * lanes of a wave (uniformity UNIF_NO). codegen's check of where a load
 * straight to LDS puts each lane's data (cg_lds_dma_placement) evaluates the
 * destination per thread with such values drawn once for the workgroup, so
 * it holds only if they are the same in every lane. */
static int
lane_varying(Lw *w, IrRef r)
{
	const IrInst *I = &w->f->inst[r];

	if (w->dseen[r] == w->dgen)
		return 0;
	w->dseen[r] = w->dgen;
	if (I->op == IR_OP_RARG || I->op == IR_OP_PROJ)
		return uniformity(w, r) == UNIF_NO;
	if (!((I->op >= IR_OP_ADD && I->op <= IR_OP_SELECT) || I->op == IR_OP_CVT))
		return 0;
	for (uint32_t i = 0; i < I->nops; i++)
		if (lane_varying(w, I->ops[i]))
			return 1;
	return 0;
}

/* lds_dma: a load straight to LDS. Lane l's data lands at M0 + l * stride, so
 * M0 = readfirstlane(this lane's LDS address - l * stride) (codegen checked
 * that every lane's destination follows that rule). */
static void
lower_lds_dma(Lw *w, IrRef r)
{
	IrInst *I = &w->f->inst[r];
	IrTensor *S = &w->f->tensor[w->f->inst[I->ops[0]].aux];
	IrTensor *D = &w->f->tensor[w->f->inst[I->ops[2]].aux];
	LLVMTypeRef i32 = i32t(w), i8 = LLVMInt8TypeInContext(w->ctx);
	LLVMTypeRef p3 = LLVMPointerTypeInContext(w->ctx, 3), vt = LLVMVoidTypeInContext(w->ctx);
	/* the wave-uniform terms of the destination offset (a stage's place,
	 * an access's) after the readfirstlane: the accesses of one thread
	 * part share it, and each adds its terms in SGPRs */
	LLVMValueRef vo, uo;
	w->dgen++;
	if (lane_varying(w, I->ops[3])) {
		fail(w, r, "this load straight to LDS puts its data at an LDS place that depends on a "
		     "loop's or a branch's value that may differ between the lanes of a wave, so where "
		     "each lane's data lands cannot be checked (make that value the same in every lane, "
		     "or load through registers)");
		return;
	}
	split_offset(w, I->ops[3], D->elem, 1u << UNIF_FIXED | 1u << UNIF_COUNTED, &uo, &vo);
	LLVMValueRef base = LLVMBuildMul(w->b, lane_index(w), ci32(w, -I->imm[1]), "");
	if (vo)
		base = LLVMBuildAdd(w->b, byte_offset(w, vo, D->elem, i32), base, "");
	LLVMValueRef m0 = LLVMBuildAdd(w->b, call(w, "llvm.amdgcn.readfirstlane.i32", i32, &i32, &base, 1),
	                               ci32(w, D->lds_offset), "");
	if (uo)
		m0 = LLVMBuildAdd(w->b, m0, byte_offset(w, uo, D->elem, i32), "");
	LLVMValueRef lp = LLVMBuildInBoundsGEP2(w->b, i8, w->lds, &m0, 1, "");

	if (S->addr == IR_ADDR_BUFFER) {
		/* the source offset's terms that move with a loop counter (the
		 * k-tile's) go to soffset, one SGPR the accesses share; those fixed
		 * in the loop (the tile's, an access's place) stay in voffset, a
		 * VGPR per access computed before the loop: in the loop an access
		 * is an s_add for M0 and the load */
		LLVMValueRef sv, so;
		split_offset(w, I->ops[1], S->elem, 1u << UNIF_COUNTED, &so, &sv);
		LLVMTypeRef pt[7] = { LLVMPointerTypeInContext(w->ctx, 8), p3, i32, i32, i32, i32, i32 };
		LLVMValueRef a[7] = { w->val[I->ops[0]], lp, ci32(w, I->imm[0]),
		                      sv ? byte_offset(w, sv, S->elem, i32) : ci32(w, 0),
		                      so ? byte_offset(w, so, S->elem, i32) : ci32(w, 0), ci32(w, 0), ci32(w, 0) };
		ring_alias(w, call(w, "llvm.amdgcn.raw.ptr.buffer.load.lds", vt, pt, a, 7), I->imm[2]);
	} else {
		LLVMTypeRef pt[5] = { LLVMPointerTypeInContext(w->ctx, 1), p3, i32, i32, i32 };
		LLVMValueRef a[5] = { address(w, S, I->ops[0], I->ops[1]), lp, ci32(w, I->imm[0]),
		                      ci32(w, 0), ci32(w, 0) };
		ring_alias(w, call(w, "llvm.amdgcn.global.load.lds", vt, pt, a, 5), I->imm[2]);
	}
}

/* ---- schedule controls ---- */

static void
lower_wait(Lw *w, IrInst *I)
{
	int vm = (int)I->imm[0], lgkm = (int)I->imm[1], st = (int)I->imm[2];
	LLVMTypeRef i16 = LLVMInt16TypeInContext(w->ctx);

	if (tgt_has(w->t, TGT_F_SPLIT_WAIT)) {
		/* gfx12: separate counters per kind */
		struct { int v; const char *name; } c[3] = {
			{ vm, "llvm.amdgcn.s.wait.loadcnt" }, { lgkm, "llvm.amdgcn.s.wait.dscnt" },
			{ st, "llvm.amdgcn.s.wait.storecnt" } };
		for (int i = 0; i < 3; i++) {
			if (c[i].v < 0)
				continue;
			LLVMValueRef a = LLVMConstInt(i16, (unsigned)(c[i].v > 63 ? 63 : c[i].v), 0);
			call(w, c[i].name, LLVMVoidTypeInContext(w->ctx), &i16, &a, 1);
		}
		return;
	}
	/* gfx9: one s_waitcnt; stores are counted by vmcnt */
	if (st >= 0 && (vm < 0 || st < vm))
		vm = st;
	if (vm < 0 || vm > 63) vm = 63;
	if (lgkm < 0 || lgkm > 15) lgkm = 15;
	unsigned imm = ((unsigned)vm & 15) | (((unsigned)vm >> 4) & 3) << 14 | 7u << 4 | (unsigned)lgkm << 8;
	LLVMTypeRef i32 = i32t(w);
	LLVMValueRef a = ci32(w, imm);
	call(w, "llvm.amdgcn.s.waitcnt", LLVMVoidTypeInContext(w->ctx), &i32, &a, 1);
}

/* The operand type an AMDGPU matrix intrinsic takes for a lane's elements of
 * IR type t (LLVM 22 signatures, amdgpu-facts 3.4/3.5): 16-bit floats stay
 * vectors except bf16 in the ".1k" MFMAs and in WMMA (i16 vectors); 8-bit
 * data is packed into i32 words (i64 for the 8-byte MFMA fp8/bf8 operand). */
static LLVMTypeRef
mma_operand_ty(Lw *w, const char *name, IrType t)
{
	unsigned bits = ir_scalar_bits((IrScalar)t.kind) * t.lanes;
	int wmma = !strncmp(name, "llvm.amdgcn.wmma.", 17), scaled = !strncmp(name, "llvm.amdgcn.mfma.scale.", 23);
	size_t nl = strlen(name);
	if (ir_scalar_bits((IrScalar)t.kind) == 8 || scaled) {
		if (bits == 64 && !wmma)
			return LLVMInt64TypeInContext(w->ctx);
		return LLVMVectorType(i32t(w), bits / 32);
	}
	if (t.kind == IR_BF16 && (wmma || (nl > 3 && !strcmp(name + nl - 3, ".1k"))))
		return LLVMVectorType(LLVMInt16TypeInContext(w->ctx), t.lanes);
	return llty(w, t);
}

/* The part of packed value v (of IR type vt) that starts at bit `at` and is
 * `bits` wide, as an integer of that width (or, when it is whole words of a
 * word vector, as those words in type `as`). */
static LLVMValueRef
pk_get(Lw *w, IrType vt, LLVMValueRef v, unsigned at, unsigned bits, LLVMTypeRef as)
{
	LLVMTypeRef t = LLVMTypeOf(v), it = LLVMIntTypeInContext(w->ctx, bits);
	if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
		if (at % 32 == 0 && bits % 32 == 0) {
			unsigned n = bits / 32;
			if (n == 1)
				return LLVMBuildExtractElement(w->b, v, ci32(w, at / 32), "");
			LLVMValueRef idx[IR_MAX_LANES * 6 / 32];   /* at most 6-bit elements */
			for (unsigned k = 0; k < n; k++)
				idx[k] = ci32(w, at / 32 + k);
			return pcast(w, LLVMBuildShuffleVector(w->b, v, LLVMGetPoison(t), LLVMConstVector(idx, n), ""), as);
		}
		if (at % 32 + bits <= 32) {   /* inside one word */
			LLVMValueRef x = LLVMBuildExtractElement(w->b, v, ci32(w, at / 32), "");
			x = LLVMBuildLShr(w->b, x, ci32(w, at % 32), "");
			return LLVMBuildTrunc(w->b, x, it, "");
		}
		v = pcast(w, v, LLVMIntTypeInContext(w->ctx, 32 * LLVMGetVectorSize(t)));
		t = LLVMTypeOf(v);
	}
	(void)vt;
	LLVMValueRef x = LLVMBuildLShr(w->b, v, LLVMConstInt(t, at, 0), "");
	return pcast(w, LLVMBuildTrunc(w->b, x, it, ""), as);
}

/* v with the `bits` bits at bit `at` replaced by y (an integer of that width,
 * or whole words of a word vector) */
static LLVMValueRef
pk_set(Lw *w, LLVMValueRef v, LLVMValueRef y, unsigned at, unsigned bits)
{
	LLVMTypeRef t = LLVMTypeOf(v);
	if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
		if (at % 32 == 0 && bits % 32 == 0) {
			unsigned n = bits / 32;
			if (n == 1)
				return LLVMBuildInsertElement(w->b, v, pcast(w, y, i32t(w)), ci32(w, at / 32), "");
			LLVMValueRef yw = pcast(w, y, LLVMVectorType(i32t(w), n));
			for (unsigned k = 0; k < n; k++)
				v = LLVMBuildInsertElement(w->b, v, LLVMBuildExtractElement(w->b, yw, ci32(w, k), ""),
				                           ci32(w, at / 32 + k), "");
			return v;
		}
		if (at % 32 + bits <= 32) {
			LLVMValueRef x = LLVMBuildExtractElement(w->b, v, ci32(w, at / 32), "");
			LLVMValueRef m = LLVMConstInt(i32t(w), (((1ull << bits) - 1) << (at % 32)) & 0xFFFFFFFFull, 0);
			LLVMValueRef yv = LLVMBuildShl(w->b, LLVMBuildZExt(w->b, pcast(w, y, LLVMIntTypeInContext(w->ctx, bits)),
			                               i32t(w), ""), ci32(w, at % 32), "");
			x = LLVMBuildOr(w->b, LLVMBuildAnd(w->b, x, LLVMBuildNot(w->b, m, ""), ""), yv, "");
			return LLVMBuildInsertElement(w->b, v, x, ci32(w, at / 32), "");
		}
		LLVMValueRef iv = pcast(w, v, LLVMIntTypeInContext(w->ctx, 32 * LLVMGetVectorSize(t)));
		return pcast(w, pk_set(w, iv, y, at, bits), t);
	}
	LLVMValueRef yi = pcast(w, y, LLVMIntTypeInContext(w->ctx, bits));
	LLVMValueRef sh = LLVMConstInt(t, at, 0);
	LLVMValueRef m = LLVMBuildShl(w->b, LLVMBuildZExt(w->b, LLVMConstAllOnes(LLVMTypeOf(yi)), t, ""), sh, "");
	LLVMValueRef keep = LLVMBuildAnd(w->b, v, LLVMBuildNot(w->b, m, ""), "");
	return LLVMBuildOr(w->b, keep, LLVMBuildShl(w->b, LLVMBuildZExt(w->b, yi, t, ""), sh, ""), "");
}

/* cvt_pk: gfx950's scaled conversions with scale 1.0 (only its exponent
 * field counts: 2^0), round to nearest even, saturating (amdgpu-facts 3.6):
 * fp4 two values per v_cvt_scalef32_pk_fp4_f32 into byte b of a word (the old
 * word tied), back with v_cvt_scalef32_pk_f32_fp4 per byte; fp6/bf6 32 values
 * per v_cvt_scalef32_2xpk16_{fp6,bf6}_f32 (<6 x i32>), back with
 * v_cvt_scalef32_pk32_f32_{fp6,bf6}. */
static LLVMValueRef
lower_cvt_pk(Lw *w, IrInst *I, LLVMValueRef x)
{
	IrType from = w->f->inst[I->ops[0]].ty, to = I->ty;
	int fmt = (int)I->imm[0], narrow = ir_scalar_packed((IrScalar)to.kind);
	unsigned n = to.lanes;
	LLVMTypeRef f32 = LLVMFloatTypeInContext(w->ctx), i32 = i32t(w);
	LLVMValueRef one = LLVMConstReal(f32, 1.0);
	LLVMTypeRef pt[5];
	LLVMValueRef a[5];

	if (fmt == 4) {
		unsigned words = (n + 7) / 8;
		if (narrow) {
			LLVMValueRef acc = LLVMGetPoison(LLVMVectorType(i32, words));
			for (unsigned wd = 0; wd < words; wd++) {
				LLVMValueRef word = LLVMConstInt(i32, 0, 0);
				for (unsigned b = 0; b < 4 && 8 * wd + 2 * b < n; b++) {
					unsigned e = 8 * wd + 2 * b;
					pt[0] = i32; pt[1] = f32; pt[2] = f32; pt[3] = f32; pt[4] = i32;
					a[0] = word;
					a[1] = LLVMBuildExtractElement(w->b, x, ci32(w, e), "");
					a[2] = LLVMBuildExtractElement(w->b, x, ci32(w, e + 1), "");
					a[3] = one;
					a[4] = ci32(w, b);
					word = call(w, "llvm.amdgcn.cvt.scalef32.pk.fp4.f32", i32, pt, a, 5);
				}
				acc = LLVMBuildInsertElement(w->b, acc, word, ci32(w, wd), "");
			}
			if (words == 1)
				return pcast(w, LLVMBuildExtractElement(w->b, acc, ci32(w, 0), ""), llty(w, to));
			if (n * 4 % 32 == 0)
				return acc;
			return pcast(w, pcast(w, acc, LLVMIntTypeInContext(w->ctx, 32 * words)), llty(w, to));
		}
		LLVMValueRef r = LLVMGetPoison(llty(w, to));
		for (unsigned e = 0; e < n; e += 2) {
			LLVMValueRef word = pk_get(w, from, x, 32 * (e / 8), n * 4 < 32 ? n * 4 : 32, i32);
			if (LLVMTypeOf(word) != i32)
				word = LLVMBuildZExt(w->b, word, i32, "");
			pt[0] = i32; pt[1] = f32; pt[2] = i32;
			a[0] = word; a[1] = one; a[2] = ci32(w, (e % 8) / 2);
			LLVMValueRef p = call(w, "llvm.amdgcn.cvt.scalef32.pk.f32.fp4", LLVMVectorType(f32, 2), pt, a, 3);
			r = LLVMBuildInsertElement(w->b, r, LLVMBuildExtractElement(w->b, p, ci32(w, 0), ""), ci32(w, e), "");
			r = LLVMBuildInsertElement(w->b, r, LLVMBuildExtractElement(w->b, p, ci32(w, 1), ""), ci32(w, e + 1), "");
		}
		return r;
	}
	const char *f6 = fmt == 2 ? "fp6" : "bf6";
	char name[64];
	LLVMTypeRef v6 = LLVMVectorType(i32, 6), v16 = LLVMVectorType(f32, 16);
	if (narrow) {
		LLVMValueRef acc = LLVMGetPoison(LLVMVectorType(i32, n / 32 * 6));
		snprintf(name, sizeof name, "llvm.amdgcn.cvt.scalef32.2xpk16.%s.f32", f6);
		for (unsigned g = 0; g < n / 32; g++) {
			LLVMValueRef idx[16], half[2];
			for (int h = 0; h < 2; h++) {
				for (unsigned k = 0; k < 16; k++)
					idx[k] = ci32(w, 32 * g + 16 * h + k);
				half[h] = LLVMBuildShuffleVector(w->b, x, LLVMGetPoison(LLVMTypeOf(x)), LLVMConstVector(idx, 16), "");
			}
			pt[0] = v16; pt[1] = v16; pt[2] = f32;
			a[0] = half[0]; a[1] = half[1]; a[2] = one;
			LLVMValueRef p = call(w, name, v6, pt, a, 3);
			for (unsigned k = 0; k < 6; k++)
				acc = LLVMBuildInsertElement(w->b, acc, LLVMBuildExtractElement(w->b, p, ci32(w, k), ""),
				                             ci32(w, 6 * g + k), "");
		}
		return acc;   /* n * 6 bits: whole words, so llty(to) is this vector */
	}
	LLVMValueRef r = LLVMGetPoison(llty(w, to));
	snprintf(name, sizeof name, "llvm.amdgcn.cvt.scalef32.pk32.f32.%s", f6);
	for (unsigned g = 0; g < n / 32; g++) {
		LLVMValueRef src = pk_get(w, from, x, 192 * g, 192, v6);
		pt[0] = v6; pt[1] = f32;
		a[0] = src; a[1] = one;
		LLVMValueRef p = call(w, name, LLVMVectorType(f32, 32), pt, a, 2);
		for (unsigned k = 0; k < 32; k++)
			r = LLVMBuildInsertElement(w->b, r, LLVMBuildExtractElement(w->b, p, ci32(w, k), ""),
			                           ci32(w, 32 * g + k), "");
	}
	return r;
}

static void
mangle_ty(LLVMTypeRef t, char *buf, size_t n)
{
	if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
		LLVMTypeRef e = LLVMGetElementType(t);
		const char *en = LLVMGetTypeKind(e) == LLVMFloatTypeKind ? "f32" : LLVMGetTypeKind(e) == LLVMHalfTypeKind ? "f16"
		               : LLVMGetTypeKind(e) == LLVMBFloatTypeKind ? "bf16" : LLVMGetIntTypeWidth(e) == 16 ? "i16" : "i32";
		snprintf(buf, n, "v%u%s", LLVMGetVectorSize(t), en);
	} else {
		snprintf(buf, n, "i%u", LLVMGetIntTypeWidth(t));
	}
}

/* mma: llvm.amdgcn.mfma.* (A, B, C, cbsz 0, abid 0, blgp 0), mfma.scale.*
 * (A, B, C, fmtA, fmtB, opselA 0, scaleA, opselB 0, scaleB; overloaded on A
 * and B), wmma.* (A, B, C; iu8: signA, A, signB, B, C, clamp; overloaded on
 * C and A) */
static void
lower_mma(Lw *w, IrRef r)
{
	IrInst *I = &w->f->inst[r];
	const char *name = I->sym;
	LLVMTypeRef at = mma_operand_ty(w, name, w->f->inst[I->ops[0]].ty);
	LLVMTypeRef bt = mma_operand_ty(w, name, w->f->inst[I->ops[1]].ty);
	LLVMTypeRef ct = llty(w, I->ty), i1 = LLVMInt1TypeInContext(w->ctx);
	LLVMValueRef a = pcast(w, w->val[I->ops[0]], at);
	LLVMValueRef b = pcast(w, w->val[I->ops[1]], bt);
	LLVMValueRef c = w->val[I->ops[2]];
	LLVMValueRef args[9];
	LLVMTypeRef pt[9];
	char full[160], s1[24], s2[24];
	unsigned n = 0;

	if (!strncmp(name, "llvm.amdgcn.mfma.scale.", 23)) {
		if (I->nops != 5) {
			fail(w, r, "a scaled MFMA needs scale operands");
			return;
		}
		mangle_ty(at, s1, sizeof s1);
		mangle_ty(bt, s2, sizeof s2);
		snprintf(full, sizeof full, "%s.%s.%s", name, s1, s2);
		LLVMValueRef v[9] = { a, b, c, ci32(w, I->imm[0]), ci32(w, I->imm[1]), ci32(w, 0), w->val[I->ops[3]],
		                      ci32(w, 0), w->val[I->ops[4]] };
		for (n = 0; n < 9; n++)
			args[n] = v[n];
	} else if (!strncmp(name, "llvm.amdgcn.mfma.", 17)) {
		snprintf(full, sizeof full, "%s", name);
		LLVMValueRef v[6] = { a, b, c, ci32(w, 0), ci32(w, 0), ci32(w, 0) };
		for (n = 0; n < 6; n++)
			args[n] = v[n];
	} else if (!strncmp(name, "llvm.amdgcn.wmma.", 17)) {
		mangle_ty(ct, s1, sizeof s1);
		mangle_ty(at, s2, sizeof s2);
		snprintf(full, sizeof full, "%s.%s.%s", name, s1, s2);
		if (strstr(name, ".iu8")) {
			LLVMValueRef v[6] = { LLVMConstInt(i1, 1, 0), a, LLVMConstInt(i1, 1, 0), b, c, LLVMConstInt(i1, 0, 0) };
			for (n = 0; n < 6; n++)
				args[n] = v[n];
		} else {
			args[n++] = a;
			args[n++] = b;
			args[n++] = c;
		}
	} else {
		fail(w, r, "mma: not an AMDGPU matrix intrinsic");
		return;
	}
	if (!LLVMLookupIntrinsicID(full, strlen(full))) {
		char msg[256];
		snprintf(msg, sizeof msg, "the atom's intrinsic '%s' is not an LLVM intrinsic", full);
		fail(w, r, msg);
		return;
	}
	for (unsigned k = 0; k < n; k++)
		pt[k] = LLVMTypeOf(args[k]);
	w->val[r] = call(w, full, ct, pt, args, n);
}

static void
lower_barrier(Lw *w)
{
	unsigned wg = LLVMGetSyncScopeID(w->ctx, "workgroup", 9);

	/* __syncthreads(): make LDS/global writes visible to the workgroup */
	LLVMBuildFenceSyncScope(w->b, LLVMAtomicOrderingRelease, wg, "");
	call(w, "llvm.amdgcn.s.barrier", LLVMVoidTypeInContext(w->ctx), NULL, NULL, 0);
	LLVMBuildFenceSyncScope(w->b, LLVMAtomicOrderingAcquire, wg, "");
}

/* ---- arithmetic ---- */

static LLVMValueRef
fintr1(Lw *w, const char *base, IrType t, LLVMValueRef x)
{
	char sfx[16], name[64];
	LLVMTypeRef ty = llty(w, t);

	suffix(t, sfx, sizeof sfx);
	snprintf(name, sizeof name, "%s.%s", base, sfx);
	return call(w, name, ty, &ty, &x, 1);
}

static LLVMValueRef
fintrn(Lw *w, const char *base, IrType t, LLVMValueRef *x, unsigned n)
{
	char sfx[16], name[64];
	LLVMTypeRef ty[3] = { llty(w, t), llty(w, t), llty(w, t) };

	suffix(t, sfx, sizeof sfx);
	snprintf(name, sizeof name, "%s.%s", base, sfx);
	return call(w, name, ty[0], ty, x, n);
}

static LLVMValueRef
lower_cvt(Lw *w, IrType to, IrType from, LLVMValueRef x)
{
	LLVMTypeRef t = llty(w, to);
	unsigned fb = ir_scalar_bits((IrScalar)from.kind), tb = ir_scalar_bits((IrScalar)to.kind);

	if (ir_ty_is_int(from) && ir_ty_is_int(to)) {
		if (tb == fb) return x;
		if (from.kind == IR_I1) return LLVMBuildZExt(w->b, x, t, "");
		return tb < fb ? LLVMBuildTrunc(w->b, x, t, "") : LLVMBuildSExt(w->b, x, t, "");
	}
	if (ir_ty_is_int(from))
		return LLVMBuildSIToFP(w->b, x, t, "");
	if (ir_ty_is_int(to))
		return LLVMBuildFPToSI(w->b, x, t, "");
	if (from.kind == to.kind)
		return x;
	if ((from.kind == IR_F16 && to.kind == IR_BF16) || (from.kind == IR_BF16 && to.kind == IR_F16)) {
		IrType mid = ir_vec(IR_F32, from.lanes);
		return LLVMBuildFPTrunc(w->b, LLVMBuildFPExt(w->b, x, llty(w, mid), ""), t, "");
	}
	return tb < fb ? LLVMBuildFPTrunc(w->b, x, t, "") : LLVMBuildFPExt(w->b, x, t, "");
}

static LLVMIntPredicate
ipred(IrCmp c)
{
	switch (c) {
	case IR_EQ: return LLVMIntEQ;
	case IR_NE: return LLVMIntNE;
	case IR_LT: return LLVMIntSLT;
	case IR_LE: return LLVMIntSLE;
	case IR_GT: return LLVMIntSGT;
	case IR_GE: return LLVMIntSGE;
	case IR_ULT: return LLVMIntULT;
	case IR_ULE: return LLVMIntULE;
	case IR_UGT: return LLVMIntUGT;
	default: return LLVMIntUGE;
	}
}

static LLVMRealPredicate
fpred(IrCmp c)
{
	switch (c) {
	case IR_FLT: return LLVMRealOLT;
	case IR_FLE: return LLVMRealOLE;
	case IR_FGT: return LLVMRealOGT;
	case IR_FGE: return LLVMRealOGE;
	case IR_FEQ: return LLVMRealOEQ;
	default: return LLVMRealUNE;
	}
}

static void lower_region(Lw *w, IrRegion rg, LLVMValueRef *yielded);

static void
set_loc(Lw *w, IrInst *I)
{
	if (!w->sp)
		return;
	LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(w->ctx, (unsigned)(I->loc.line > 0 ? I->loc.line : 0),
	                                                       (unsigned)(I->loc.col > 0 ? I->loc.col : 0), w->sp, NULL);
	LLVMSetCurrentDebugLocation2(w->b, loc);
}

static void
lower_for(Lw *w, IrRef r)
{
	IrInst *I = &w->f->inst[r];
	uint32_t n = I->nops - 3;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(w->b);
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(w->ctx, w->fn, "for.head");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(w->ctx, w->fn, "for.body");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(w->ctx, w->fn, "for.exit");
	IrRegionData *B = &w->f->reg[I->region[0]];
	LLVMValueRef *phis = calloc(n + 1, sizeof *phis), *yv = calloc(n + 1, sizeof *yv);
	LLVMValueRef lb = w->val[I->ops[0]], ub = w->val[I->ops[1]], step = w->val[I->ops[2]];

	if (!phis || !yv)
		IR_ICE("out of memory");
	LLVMBuildBr(w->b, head);
	LLVMPositionBuilderAtEnd(w->b, head);
	phis[0] = LLVMBuildPhi(w->b, LLVMTypeOf(lb), "iv");
	LLVMAddIncoming(phis[0], &lb, &pre, 1);
	for (uint32_t k = 0; k < n; k++) {
		LLVMValueRef init = w->val[I->ops[3 + k]];
		phis[k + 1] = LLVMBuildPhi(w->b, LLVMTypeOf(init), "carry");
		LLVMAddIncoming(phis[k + 1], &init, &pre, 1);
	}
	LLVMBuildCondBr(w->b, LLVMBuildICmp(w->b, LLVMIntSLT, phis[0], ub, ""), body, exit);
	LLVMPositionBuilderAtEnd(w->b, body);
	for (uint32_t k = 0; k < n + 1 && k < B->n; k++)
		w->val[B->inst[k]] = phis[k];
	lower_region(w, I->region[0], yv);
	if (!w->failed) {
		LLVMBasicBlockRef latch = LLVMGetInsertBlock(w->b);
		LLVMValueRef next = LLVMBuildAdd(w->b, phis[0], step, "iv.next");
		LLVMAddIncoming(phis[0], &next, &latch, 1);
		for (uint32_t k = 0; k < n; k++)
			LLVMAddIncoming(phis[k + 1], &yv[k], &latch, 1);
		LLVMBuildBr(w->b, head);
	}
	LLVMPositionBuilderAtEnd(w->b, exit);
	w->multi[r] = phis;   /* results: the header phis */
	for (uint32_t k = 0; k < n; k++)
		phis[k] = phis[k + 1];
	free(yv);
}

/* 1 when region g or a region nested in it holds an instruction of op */
static int
region_holds(const IrFunc *f, IrRegion g, IrOp op)
{
	const IrRegionData *R = &f->reg[g];

	for (uint32_t i = 0; i < R->n; i++) {
		const IrInst *I = &f->inst[R->inst[i]];
		if (I->op == op)
			return 1;
		if (ir_op_flags((IrOp)I->op) & IR_REGIONS)
			for (int k = 0; k < 2; k++)
				if (I->region[k] && region_holds(f, I->region[k], op))
					return 1;
	}
	return 0;
}

/* !llvm.loop !{self, !{"llvm.licm.disable"}} on a loop's back branch */
static void
no_licm(Lw *w, LLVMValueRef br)
{
	LLVMMetadataRef str = LLVMMDStringInContext2(w->ctx, "llvm.licm.disable", 17);
	LLVMMetadataRef hint = LLVMMDNodeInContext2(w->ctx, &str, 1);
	LLVMMetadataRef tmp = LLVMTemporaryMDNode(w->ctx, NULL, 0);
	LLVMMetadataRef ops[2] = { tmp, hint };
	LLVMMetadataRef id = LLVMMDNodeInContext2(w->ctx, ops, 2);
	LLVMMetadataReplaceAllUsesWith(tmp, id);
	LLVMSetMetadata(br, LLVMGetMDKindIDInContext(w->ctx, "llvm.loop", 9), LLVMMetadataAsValue(w->ctx, id));
}

static void
lower_while(Lw *w, IrRef r)
{
	IrInst *I = &w->f->inst[r];
	uint32_t n = I->nops;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(w->b);
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(w->ctx, w->fn, "while.head");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(w->ctx, w->fn, "while.body");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(w->ctx, w->fn, "while.exit");
	IrRegionData *A = &w->f->reg[I->region[0]], *B = &w->f->reg[I->region[1]];
	LLVMValueRef *phis = calloc(n + 1, sizeof *phis), *cy = calloc(n + 2, sizeof *cy), *by = calloc(n + 1, sizeof *by);

	if (!phis || !cy || !by)
		IR_ICE("out of memory");
	LLVMBuildBr(w->b, head);
	LLVMPositionBuilderAtEnd(w->b, head);
	for (uint32_t k = 0; k < n; k++) {
		LLVMValueRef init = w->val[I->ops[k]];
		phis[k] = LLVMBuildPhi(w->b, LLVMTypeOf(init), "carry");
		LLVMAddIncoming(phis[k], &init, &pre, 1);
		w->val[A->inst[k]] = phis[k];
	}
	lower_region(w, I->region[0], cy);
	if (w->failed)
		goto out;
	/* the values at exit are the ones the condition region passed on */
	LLVMBuildCondBr(w->b, cy[0], body, exit);
	LLVMBasicBlockRef cond_end = LLVMGetInsertBlock(w->b);
	LLVMPositionBuilderAtEnd(w->b, body);
	for (uint32_t k = 0; k < n; k++)
		w->val[B->inst[k]] = cy[k + 1];
	lower_region(w, I->region[1], by);
	if (w->failed)
		goto out;
	{
		LLVMBasicBlockRef latch = LLVMGetInsertBlock(w->b);
		for (uint32_t k = 0; k < n; k++)
			LLVMAddIncoming(phis[k], &by[k], &latch, 1);
		LLVMValueRef br = LLVMBuildBr(w->b, head);
		if (region_holds(w->f, I->region[1], IR_OP_MMA) &&
		    (region_holds(w->f, I->region[1], IR_OP_WHILE) || region_holds(w->f, I->region[1], IR_OP_FOR)))
			no_licm(w, br);
	}
	LLVMPositionBuilderAtEnd(w->b, exit);
	(void)cond_end;
	for (uint32_t k = 0; k < n; k++)
		phis[k] = cy[k + 1];
out:
	w->multi[r] = phis;
	free(cy);
	free(by);
}

static void
lower_if(Lw *w, IrRef r)
{
	IrInst *I = &w->f->inst[r];
	uint32_t n = (uint32_t)I->imm[0];
	LLVMBasicBlockRef th = LLVMAppendBasicBlockInContext(w->ctx, w->fn, "if.then");
	LLVMBasicBlockRef el = LLVMAppendBasicBlockInContext(w->ctx, w->fn, "if.else");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(w->ctx, w->fn, "if.end");
	LLVMValueRef *a = calloc(n + 1, sizeof *a), *b = calloc(n + 1, sizeof *b);
	LLVMBasicBlockRef ea, eb;

	if (!a || !b)
		IR_ICE("out of memory");
	LLVMBuildCondBr(w->b, w->val[I->ops[0]], th, el);
	LLVMPositionBuilderAtEnd(w->b, th);
	lower_region(w, I->region[0], a);
	ea = LLVMGetInsertBlock(w->b);
	LLVMBuildBr(w->b, join);
	LLVMPositionBuilderAtEnd(w->b, el);
	lower_region(w, I->region[1], b);
	eb = LLVMGetInsertBlock(w->b);
	LLVMBuildBr(w->b, join);
	LLVMPositionBuilderAtEnd(w->b, join);
	for (uint32_t k = 0; k < n && !w->failed; k++) {
		LLVMValueRef p = LLVMBuildPhi(w->b, LLVMTypeOf(a[k]), "");
		LLVMAddIncoming(p, &a[k], &ea, 1);
		LLVMAddIncoming(p, &b[k], &eb, 1);
		a[k] = p;
	}
	free(b);
	w->multi[r] = a;
}

static void
lower_inst(Lw *w, IrRef r, LLVMValueRef *yielded)
{
	IrInst *I = &w->f->inst[r];
	LLVMValueRef x = I->nops > 0 ? w->val[I->ops[0]] : NULL;
	LLVMValueRef y = I->nops > 1 ? w->val[I->ops[1]] : NULL;
	LLVMValueRef z = I->nops > 2 ? w->val[I->ops[2]] : NULL;
	LLVMValueRef v = NULL;
	LLVMTypeRef ty = llty(w, I->ty);

	set_loc(w, I);
	switch ((IrOp)I->op) {
	case IR_OP_CONST:
		v = ir_ty_is_float(I->ty) ? LLVMConstReal(ty, I->fimm)
		                          : LLVMConstInt(ty, (unsigned long long)I->imm[0], 1);
		break;
	case IR_OP_ARG:
		v = LLVMGetParam(w->fn, (unsigned)I->imm[0]);
		break;
	case IR_OP_TID: case IR_OP_BID: {
		char name[48];
		snprintf(name, sizeof name, "llvm.amdgcn.%s.id.%c",
		         I->op == IR_OP_TID ? "workitem" : "workgroup", "xyz"[I->imm[0] & 3]);
		v = call(w, name, i32t(w), NULL, NULL, 0);
		break;
	}
	case IR_OP_WAVESIZE: v = ci32(w, w->t->wave_size); break;
	case IR_OP_ADD: v = LLVMBuildAdd(w->b, x, y, ""); break;
	case IR_OP_SUB: v = LLVMBuildSub(w->b, x, y, ""); break;
	case IR_OP_MUL: v = LLVMBuildMul(w->b, x, y, ""); break;
	case IR_OP_DIV: v = LLVMBuildUDiv(w->b, x, y, ""); break;
	case IR_OP_REM: v = LLVMBuildURem(w->b, x, y, ""); break;
	case IR_OP_SDIV: v = LLVMBuildSDiv(w->b, x, y, ""); break;
	case IR_OP_SREM: v = LLVMBuildSRem(w->b, x, y, ""); break;
	case IR_OP_AND: v = LLVMBuildAnd(w->b, x, y, ""); break;
	case IR_OP_OR: v = LLVMBuildOr(w->b, x, y, ""); break;
	case IR_OP_XOR: v = LLVMBuildXor(w->b, x, y, ""); break;
	case IR_OP_SHL: v = LLVMBuildShl(w->b, x, y, ""); break;
	case IR_OP_SHR: v = LLVMBuildLShr(w->b, x, y, ""); break;
	case IR_OP_SAR: v = LLVMBuildAShr(w->b, x, y, ""); break;
	case IR_OP_MIN: v = LLVMBuildSelect(w->b, LLVMBuildICmp(w->b, LLVMIntSLT, x, y, ""), x, y, ""); break;
	case IR_OP_MAX: v = LLVMBuildSelect(w->b, LLVMBuildICmp(w->b, LLVMIntSGT, x, y, ""), x, y, ""); break;
	case IR_OP_CMP:
		if (I->imm[0] >= IR_FLT)
			v = LLVMBuildFCmp(w->b, fpred((IrCmp)I->imm[0]), x, y, "");
		else
			v = LLVMBuildICmp(w->b, ipred((IrCmp)I->imm[0]), x, y, "");
		break;
	case IR_OP_SELECT: v = LLVMBuildSelect(w->b, x, y, z, ""); break;
	case IR_OP_FADD: v = LLVMBuildFAdd(w->b, x, y, ""); break;
	case IR_OP_FSUB: v = LLVMBuildFSub(w->b, x, y, ""); break;
	case IR_OP_FMUL: v = LLVMBuildFMul(w->b, x, y, ""); break;
	case IR_OP_FDIV: v = LLVMBuildFDiv(w->b, x, y, ""); break;
	case IR_OP_FNEG: v = LLVMBuildFNeg(w->b, x, ""); break;
	case IR_OP_FMIN: { LLVMValueRef a[2] = { x, y }; v = fintrn(w, "llvm.minnum", I->ty, a, 2); break; }
	case IR_OP_FMAX: { LLVMValueRef a[2] = { x, y }; v = fintrn(w, "llvm.maxnum", I->ty, a, 2); break; }
	case IR_OP_FMA: { LLVMValueRef a[3] = { x, y, z }; v = fintrn(w, "llvm.fma", I->ty, a, 3); break; }
	case IR_OP_SQRT: v = fintr1(w, "llvm.sqrt", I->ty, x); break;
	case IR_OP_EXP2: v = fintr1(w, "llvm.exp2", I->ty, x); break;
	case IR_OP_FN:
		if (I->ty.lanes > 1 && !strncmp(ir_fn_llvm[I->imm[0]], "llvm.amdgcn.", 12)) {
			/* the raw instructions' intrinsics have no vector forms: one call per element */
			IrType et = ir_ty((IrScalar)I->ty.kind);
			v = LLVMGetPoison(ty);
			for (unsigned j = 0; j < I->ty.lanes; j++) {
				LLVMValueRef e = LLVMBuildExtractElement(w->b, x, ci32(w, j), "");
				v = LLVMBuildInsertElement(w->b, v, fintr1(w, ir_fn_llvm[I->imm[0]], et, e), ci32(w, j), "");
			}
		} else if (I->imm[0] == IR_FN_CLZ || I->imm[0] == IR_FN_CTZ) {
			/* is_zero_poison false: the count of 0 is the width */
			char sfx[16], name[64];
			LLVMTypeRef pt[2] = { ty, LLVMInt1TypeInContext(w->ctx) };
			LLVMValueRef a2[2] = { x, LLVMConstInt(pt[1], 0, 0) };
			suffix(I->ty, sfx, sizeof sfx);
			snprintf(name, sizeof name, "%s.%s", ir_fn_llvm[I->imm[0]], sfx);
			v = call(w, name, ty, pt, a2, 2);
		} else {
			v = fintr1(w, ir_fn_llvm[I->imm[0]], I->ty, x);
		}
		break;
	case IR_OP_RSQRT: {
		/* 1/sqrt with afn lets the backend use v_rsq */
		LLVMValueRef s = fintr1(w, "llvm.sqrt", I->ty, x);
		LLVMValueRef one = LLVMConstReal(scalar_ty(w->ctx, (IrScalar)I->ty.kind), 1.0);
		if (I->ty.lanes > 1) {
			/* a constant splat (folded by the builder), for any lane count */
			LLVMValueRef u = LLVMBuildInsertElement(w->b, LLVMGetPoison(ty), one, ci32(w, 0), "");
			one = LLVMBuildShuffleVector(w->b, u, LLVMGetPoison(ty), LLVMConstNull(LLVMVectorType(i32t(w), I->ty.lanes)), "");
		}
		LLVMSetFastMathFlags(s, LLVMFastMathApproxFunc);
		v = LLVMBuildFDiv(w->b, one, s, "");
		LLVMSetFastMathFlags(v, LLVMFastMathApproxFunc | LLVMFastMathAllowReciprocal);
		break;
	}
	case IR_OP_CVT: v = lower_cvt(w, I->ty, w->f->inst[I->ops[0]].ty, x); break;
	case IR_OP_CVTPK: v = lower_cvt_pk(w, I, x); break;
	case IR_OP_SPLAT: {
		if (packed_vec(I->ty)) {
			unsigned eb = ir_scalar_bits((IrScalar)I->ty.kind);
			v = LLVMConstNull(ty);
			if (!LLVMIsAConstantInt(x) || LLVMConstIntGetZExtValue(x))
				for (unsigned j = 0; j < I->ty.lanes; j++)
					v = pk_set(w, v, x, eb * j, eb);
			break;
		}
		LLVMValueRef u = LLVMBuildInsertElement(w->b, LLVMGetPoison(ty), x, ci32(w, 0), "");
		LLVMValueRef mask = LLVMConstNull(LLVMVectorType(i32t(w), I->ty.lanes));
		v = LLVMBuildShuffleVector(w->b, u, LLVMGetPoison(ty), mask, "");
		break;
	}
	case IR_OP_EXTRACT:
		if (packed_vec(w->f->inst[I->ops[0]].ty)) {
			unsigned eb = ir_scalar_bits((IrScalar)I->ty.kind);
			v = pk_get(w, w->f->inst[I->ops[0]].ty, x, eb * (unsigned)I->imm[0], eb * I->ty.lanes, ty);
			break;
		}
		v = LLVMBuildExtractElement(w->b, x, ci32(w, I->imm[0]), "");
		break;
	case IR_OP_INSERT:
		if (packed_vec(I->ty)) {
			unsigned eb = ir_scalar_bits((IrScalar)I->ty.kind);
			v = pk_set(w, x, y, eb * (unsigned)I->imm[0], eb * w->f->inst[I->ops[1]].ty.lanes);
			break;
		}
		v = LLVMBuildInsertElement(w->b, x, y, ci32(w, I->imm[0]), "");
		break;
	case IR_OP_TGLOBAL: {
		IrTensor *T = &w->f->tensor[I->aux];
		v = T->addr == IR_ADDR_BUFFER ? make_rsrc(w, T, x) : x;
		break;
	}
	case IR_OP_LDSALLOC:
		v = w->lds;
		break;
	case IR_OP_TVIEW: case IR_OP_TIDENT:
		return;     /* folded into ld/st offsets by lower-layout */
	case IR_OP_LD: lower_ld(w, r); return;
	case IR_OP_ST: lower_st(w, r); return;
	case IR_OP_LDTR: {
		IrTensor *T = &w->f->tensor[w->f->inst[I->ops[0]].aux];
		LLVMTypeRef p3 = LLVMPointerTypeInContext(w->ctx, 3), rt;
		LLVMValueRef p;
		if (T->space == IR_SPACE_GLOBAL) {
			/* gfx12 global_load_tr_b128 (8 x 16 bits) / _b64 (8 x 8 bits) at a 64-bit address */
			LLVMTypeRef p1 = LLVMPointerTypeInContext(w->ctx, 1);
			if (I->nops != 2 || T->addr != IR_ADDR_GLOBAL64 || (I->imm[0] != 16 && I->imm[0] != 8)) {
				fail(w, r, "internal: a transposed global load before lower-layout, not at a 64-bit "
				     "address or of an unsupported width");
				return;
			}
			rt = I->imm[0] == 16 ? LLVMVectorType(LLVMInt16TypeInContext(w->ctx), 8)
			   : LLVMVectorType(i32t(w), 2);
			p = address(w, T, I->ops[0], I->ops[1]);
			v = pcast(w, call(w, I->imm[0] == 16 ? "llvm.amdgcn.global.load.tr.b128.v8i16"
			                                     : "llvm.amdgcn.global.load.tr.b64.v2i32", rt, &p1, &p, 1),
			          llty(w, I->ty));
			break;
		}
		const char *name = I->imm[0] == 16 ? "llvm.amdgcn.ds.read.tr16.b64.v4i16"
		                 : I->imm[0] == 8 ? "llvm.amdgcn.ds.read.tr8.b64.v2i32"
		                 : I->imm[0] == 4 ? "llvm.amdgcn.ds.read.tr4.b64.v2i32" : "llvm.amdgcn.ds.read.tr6.b96.v3i32";
		if (I->nops != 2 || (I->imm[0] != 16 && I->imm[0] != 8 && I->imm[0] != 4 && I->imm[0] != 6)) {
			fail(w, r, "internal: ld_tr before lower-layout or of an unsupported width");
			return;
		}
		rt = I->imm[0] == 16 ? LLVMVectorType(LLVMInt16TypeInContext(w->ctx), 4)
		   : LLVMVectorType(i32t(w), I->imm[0] == 6 ? 3 : 2);
		p = address(w, T, I->ops[0], I->ops[1]);
		{
			LLVMValueRef cl = call(w, name, rt, &p3, &p, 1);
			ring_alias(w, cl, I->imm[2]);
			v = pcast(w, cl, llty(w, I->ty));
		}
		break;
	}
	case IR_OP_LDSDMA:
		if (I->nops != 4)
			fail(w, r, "internal: lds_dma reached LLVM lowering before lower-layout");
		else if (!tgt_has(w->t, TGT_F_LDS_DMA) || (I->imm[0] > 4 && !tgt_has(w->t, TGT_F_LDS_DMA_B128)))
			fail(w, r, "a load straight to LDS (global_load_lds_bN, buffer_load_lds_bN) of this width is "
			     "gfx950 only: this target has no such load (load into registers and store to LDS)");
		else
			lower_lds_dma(w, r);
		return;
	case IR_OP_TLOAD: case IR_OP_TSTORE:
		fail(w, r, "internal: tload/tstore reached LLVM lowering (lower-layout did not run)");
		return;
	case IR_OP_BITCAST:
		v = LLVMBuildBitCast(w->b, x, llty(w, I->ty), "");
		break;
	case IR_OP_UNIFORM: {
		LLVMTypeRef i32 = i32t(w);
		v = call(w, "llvm.amdgcn.readfirstlane.i32", i32, &i32, &x, 1);
		break;
	}
	case IR_OP_SHFLXOR: {
		int64_t m;
		LLVMValueRef xi = LLVMBuildBitCast(w->b, x, i32t(w), "");
		if (ir_const_value(w->f, I->ops[1], &m))
			v = shfl_xor_const(w, xi, (unsigned)m & (w->t->wave_size - 1), (int)I->imm[0]);
		else
			v = bpermute(w, xi, LLVMBuildAnd(w->b, LLVMBuildXor(w->b, lane_index(w), y, ""),
			                                 ci32(w, w->t->wave_size - 1), ""));
		v = LLVMBuildBitCast(w->b, v, llty(w, I->ty), "");
		break;
	}
	case IR_OP_SHFL:
		v = LLVMBuildBitCast(w->b, bpermute(w, LLVMBuildBitCast(w->b, x, i32t(w), ""), y), llty(w, I->ty), "");
		break;
	case IR_OP_READLANE: {
		LLVMTypeRef p2[2] = { i32t(w), i32t(w) };
		LLVMValueRef a2[2] = { LLVMBuildBitCast(w->b, x, i32t(w), ""), y };
		v = I->imm[0] ? call(w, "llvm.amdgcn.readfirstlane.i32", i32t(w), p2, a2, 1)
		              : call(w, "llvm.amdgcn.readlane.i32", i32t(w), p2, a2, 2);
		v = LLVMBuildBitCast(w->b, v, llty(w, I->ty), "");
		break;
	}
	case IR_OP_BALLOT: {
		LLVMTypeRef i1 = LLVMInt1TypeInContext(w->ctx);
		v = call(w, "llvm.amdgcn.ballot.i64", i64t(w), &i1, &x, 1);
		break;
	}
	case IR_OP_ATOMIC: lower_atomic(w, r); return;
	case IR_OP_FENCE:
		LLVMBuildFenceSyncScope(w->b, llvm_order(I->imm[1]), sync_scope(w, I->imm[0]), "");
		return;
	case IR_OP_MMA: lower_mma(w, r); return;
	case IR_OP_BARRIER: lower_barrier(w); return;
	case IR_OP_WAIT: lower_wait(w, I); return;
	case IR_OP_SCHEDGRP: {
		LLVMTypeRef pt[3] = { i32t(w), i32t(w), i32t(w) };
		LLVMValueRef a[3] = { ci32(w, I->imm[0]), ci32(w, I->imm[1]), ci32(w, I->imm[2]) };
		call(w, "llvm.amdgcn.sched.group.barrier", LLVMVoidTypeInContext(w->ctx), pt, a, 3);
		return;
	}
	case IR_OP_SCHEDBAR: {
		LLVMTypeRef pt = i32t(w);
		LLVMValueRef a = ci32(w, I->imm[0]);
		LLVMValueRef sb = call(w, "llvm.amdgcn.sched.barrier", LLVMVoidTypeInContext(w->ctx), &pt, &a, 1);
		if (I->imm[1]) {      /* a pipeline's mark for lower_sched.c */
			const char *k = I->imm[1] == 1 ? "flyc.pipe.begin" : "flyc.pipe.end";
			LLVMSetMetadata(sb, LLVMGetMDKindIDInContext(w->ctx, k, strlen(k)),
			                LLVMMetadataAsValue(w->ctx, LLVMMDNodeInContext2(w->ctx, NULL, 0)));
		}
		return;
	}
	case IR_OP_SETPRIO: {
		LLVMTypeRef pt = LLVMInt16TypeInContext(w->ctx);
		LLVMValueRef a = LLVMConstInt(pt, (unsigned long long)I->imm[0], 0);
		call(w, "llvm.amdgcn.s.setprio", LLVMVoidTypeInContext(w->ctx), &pt, &a, 1);
		return;
	}
	case IR_OP_FOR: lower_for(w, r); return;
	case IR_OP_IF: lower_if(w, r); return;
	case IR_OP_WHILE: lower_while(w, r); return;
	case IR_OP_RARG: return;      /* bound by lower_for */
	case IR_OP_PROJ:
		v = w->multi[I->ops[0]][I->imm[0]];
		break;
	case IR_OP_YIELD:
		for (uint32_t k = 0; k < I->nops; k++)
			yielded[k] = w->val[I->ops[k]];
		return;
	case IR_OP_RET:
		LLVMBuildRetVoid(w->b);
		return;
	default:
		fail(w, r, "internal: operation has no LLVM lowering");
		return;
	}
	w->val[r] = v;
}

static void
lower_region(Lw *w, IrRegion rg, LLVMValueRef *yielded)
{
	IrRegionData *R = &w->f->reg[rg];

	for (uint32_t i = 0; i < R->n && !w->failed; i++)
		lower_inst(w, R->inst[i], yielded);
}

/* ---- kernel ---- */

static const char *const NO_ATTRS[] = {
	"amdgpu-no-implicitarg-ptr", "amdgpu-no-dispatch-ptr", "amdgpu-no-queue-ptr",
	"amdgpu-no-dispatch-id", "amdgpu-no-hostcall-ptr", "amdgpu-no-heap-ptr",
	"amdgpu-no-multigrid-sync-arg", "amdgpu-no-default-queue", "amdgpu-no-completion-action",
	"amdgpu-no-lds-kernel-id", "amdgpu-no-flat-scratch-init",
};

static void
str_attr(Lw *w, const char *k, const char *v)
{
	LLVMAttributeRef a = LLVMCreateStringAttribute(w->ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v));
	LLVMAddAttributeAtIndex(w->fn, LLVMAttributeFunctionIndex, a);
}

static void
enum_attr(Lw *w, unsigned idx, const char *k, uint64_t v)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(k, strlen(k));
	LLVMAddAttributeAtIndex(w->fn, idx, LLVMCreateEnumAttribute(w->ctx, kind, v));
}

static void
kernel_attrs(Lw *w)
{
	IrFunc *f = w->f;
	char buf[64];
	int used_tid[3] = { 0 }, used_bid[3] = { 0 };
	unsigned blk = f->block[0] * f->block[1] * f->block[2];

	for (uint32_t i = 1; i < f->ninst; i++) {
		if (f->inst[i].op == IR_OP_TID) used_tid[f->inst[i].imm[0] & 3] = 1;
		if (f->inst[i].op == IR_OP_BID) used_bid[f->inst[i].imm[0] & 3] = 1;
	}
	snprintf(buf, sizeof buf, "%u,%u", blk, blk);
	str_attr(w, "amdgpu-flat-work-group-size", buf);
	if (f->waves_per_eu[0] > 0) {
		if (f->waves_per_eu[1] > 0)
			snprintf(buf, sizeof buf, "%d,%d", f->waves_per_eu[0], f->waves_per_eu[1]);
		else
			snprintf(buf, sizeof buf, "%d", f->waves_per_eu[0]);
		str_attr(w, "amdgpu-waves-per-eu", buf);
	}
	for (size_t i = 0; i < sizeof NO_ATTRS / sizeof NO_ATTRS[0]; i++)
		str_attr(w, NO_ATTRS[i], "");
	if (!used_tid[1] && f->block[1] <= 1 && f->block[2] <= 1) str_attr(w, "amdgpu-no-workitem-id-y", "");
	if (!used_tid[2] && f->block[2] <= 1) str_attr(w, "amdgpu-no-workitem-id-z", "");
	if (!used_bid[1]) str_attr(w, "amdgpu-no-workgroup-id-y", "");
	if (!used_bid[2]) str_attr(w, "amdgpu-no-workgroup-id-z", "");
	str_attr(w, "uniform-work-group-size", "true");
	str_attr(w, "target-cpu", w->t->name);
	for (uint32_t i = 0; i < f->nparam; i++) {
		if (f->param[i].kind != IR_PARAM_PTR)
			continue;
		if (f->param[i].noalias)
			enum_attr(w, i + 1, "noalias", 0);
		enum_attr(w, i + 1, "align", f->param[i].align ? f->param[i].align : 1);
	}
}

static void
debug_function(Lw *w, LLVMMetadataRef file, LLVMMetadataRef cu)
{
	LLVMMetadataRef st = LLVMDIBuilderCreateSubroutineType(w->dib, file, NULL, 0, LLVMDIFlagZero);
	unsigned line = (unsigned)(w->f->loc.line > 0 ? w->f->loc.line : 0);

	w->sp = LLVMDIBuilderCreateFunction(w->dib, cu, w->f->name, strlen(w->f->name), w->f->name,
	                                    strlen(w->f->name), file, line, st, 0, 1, line,
	                                    LLVMDIFlagZero, 1);
	LLVMSetSubprogram(w->fn, w->sp);
}

static int
lower_func(Lw *w, LLVMMetadataRef file, LLVMMetadataRef cu)
{
	IrFunc *f = w->f;
	LLVMTypeRef *pt = calloc(f->nparam + 1, sizeof *pt);
	LLVMTypeRef fty;

	if (!pt)
		IR_ICE("out of memory");
	for (uint32_t i = 0; i < f->nparam; i++)
		pt[i] = f->param[i].kind == IR_PARAM_PTR ? LLVMPointerTypeInContext(w->ctx, 1)
		                                         : scalar_ty(w->ctx, f->param[i].ty);
	fty = LLVMFunctionType(LLVMVoidTypeInContext(w->ctx), pt, f->nparam, 0);
	free(pt);
	w->fn = LLVMAddFunction(w->mod, f->name, fty);
	LLVMSetFunctionCallConv(w->fn, LLVMAMDGPUKERNELCallConv);
	for (uint32_t i = 0; i < f->nparam; i++)
		LLVMSetValueName2(LLVMGetParam(w->fn, i), f->param[i].name, strlen(f->param[i].name));
	kernel_attrs(w);
	if (f->lds_bytes) {
		char name[300];
		LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(w->ctx), f->lds_bytes);
		snprintf(name, sizeof name, "%s.lds", f->name);
		w->lds = LLVMAddGlobalInAddressSpace(w->mod, at, name, 3);
		LLVMSetInitializer(w->lds, LLVMGetPoison(at));
		LLVMSetLinkage(w->lds, LLVMInternalLinkage);
		LLVMSetAlignment(w->lds, 16);
	} else {
		w->lds = NULL;
	}
	w->sp = NULL;
	if (w->dib)
		debug_function(w, file, cu);
	LLVMPositionBuilderAtEnd(w->b, LLVMAppendBasicBlockInContext(w->ctx, w->fn, "entry"));
	w->val = calloc(f->ninst + 1, sizeof *w->val);
	w->multi = calloc(f->ninst + 1, sizeof *w->multi);
	w->lds_hi = NULL;
	w->nlds_hi = w->caplds_hi = 0;
	w->unif = calloc(f->ninst + 1, 1);
	w->ulog = calloc(f->ninst + 1, sizeof *w->ulog);
	w->nulog = w->nassume = 0;
	w->dseen = calloc(f->ninst + 1, sizeof *w->dseen);
	w->dgen = 0;
	if (!w->val || !w->multi || !w->unif || !w->ulog || !w->dseen)
		IR_ICE("out of memory");
	lower_region(w, 1, NULL);
	for (uint32_t i = 0; i < f->ninst; i++)
		if (w->multi[i])
			free(w->multi[i]);
	free(w->val);
	free(w->multi);
	free(w->lds_hi);
	free(w->unif);
	free(w->ulog);
	free(w->dseen);
	LLVMSetCurrentDebugLocation2(w->b, NULL);
	return w->failed;
}

/* ---- .flyc.meta ---- */

static void meta_line(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
meta_line(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < *cap - *len)
			break;
		*cap = *cap * 2 + (size_t)(n > 0 ? n : 0) + 64;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			IR_ICE("out of memory");
	}
	*len += (size_t)n;
}

char *
ir_meta_text(const IrModule *m)
{
	size_t len = 0, cap = 256;
	char *b = malloc(cap);

	if (!b)
		IR_ICE("out of memory");
	b[0] = 0;
	meta_line(&b, &len, &cap, "flyc-meta 2\n");
	for (uint32_t k = 0; k < m->nfunc; k++) {
		const IrFunc *f = m->func[k];
		meta_line(&b, &len, &cap, "kernel %s\n", f->name);
		for (uint32_t i = 0; i < f->nparam; i++) {
			const IrParam *p = &f->param[i];
			if (p->kind == IR_PARAM_PTR) {
				/* an alignment a requires predicate tests (@NAME ...) is left to it, so a
				 * launch that breaks it is declined (unsupported), not an argument error */
				unsigned al = p->align, el = (ir_scalar_bits(p->ty) + 7) / 8;
				size_t nl = strlen(p->name);
				for (uint32_t r = 0; r < f->nreq; r++)
					if (f->req_rpn[r][0] == '@' && !strncmp(f->req_rpn[r] + 1, p->name, nl) &&
					    f->req_rpn[r][1 + nl] == ' ')
						al = el ? el : 1;
				meta_line(&b, &len, &cap, "arg %s ptr %s %u\n", p->name,
				          p->elem_name ? p->elem_name : ir_scalar_name(p->ty), al);
			}
			else
				meta_line(&b, &len, &cap, "arg %s val %s\n", p->name, ir_scalar_name(p->ty));
		}
		/* after every arg line: a layout may use scalars declared after its tensor */
		for (uint32_t i = 0; i < f->nparam; i++)
			if (f->param[i].kind == IR_PARAM_PTR && f->param[i].layout_meta)
				meta_line(&b, &len, &cap, "layout %s %s\n", f->param[i].name,
				          f->param[i].layout_meta);
		meta_line(&b, &len, &cap, "block %u %u %u\n", f->block[0], f->block[1], f->block[2]);
		meta_line(&b, &len, &cap, "grid %s ; %s ; %s\n", f->grid_rpn[0] ? f->grid_rpn[0] : "1",
		          f->grid_rpn[1] ? f->grid_rpn[1] : "1", f->grid_rpn[2] ? f->grid_rpn[2] : "1");
		meta_line(&b, &len, &cap, "lds %u\n", f->lds_bytes);
		for (uint32_t i = 0; i < f->nreq; i++)
			meta_line(&b, &len, &cap, "requires %s ; %s\n", f->req_rpn[i],
			          f->req_text[i] ? f->req_text[i] : f->req_rpn[i]);
		meta_line(&b, &len, &cap, "end\n");
	}
	return b;
}

/* The metadata as module-level assembly placing it in a non-allocated
 * section (flags 0), which ld.lld keeps in the linked code object. */
static void
attach_meta(LLVMModuleRef mod, const char *text)
{
	size_t n = strlen(text), cap = n * 4 + 128, len = 0;
	char *a = malloc(cap);

	if (!a)
		IR_ICE("out of memory");
	len += (size_t)snprintf(a, cap, "\t.pushsection .flyc.meta,\"\",@progbits\n\t.ascii \"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c >= 32 && c < 127 && c != '"' && c != '\\')
			a[len++] = (char)c;
		else
			len += (size_t)snprintf(a + len, cap - len, "\\%03o", c);
	}
	len += (size_t)snprintf(a + len, cap - len, "\"\n\t.popsection\n");
	LLVMAppendModuleInlineAsm(mod, a, len);
	free(a);
}

LLVMModuleRef
ir_lower_llvm(IrModule *m, LLVMContextRef ctx, const TgtDesc *t, const LowerOpts *o, IrDiag *d)
{
	Lw w = { 0 };
	const char *src = m->source_name ? m->source_name : "<stdin>";
	const char *base = strrchr(src, '/');
	LLVMMetadataRef file = NULL, cu = NULL;
	char *meta;

	base = base ? base + 1 : src;
	w.t = t;
	w.d = d;
	w.ctx = ctx;
	w.mod = LLVMModuleCreateWithNameInContext(base, ctx);
	LLVMSetSourceFileName(w.mod, base, strlen(base));
	LLVMSetTarget(w.mod, "amdgcn-amd-amdhsa");
	w.b = LLVMCreateBuilderInContext(ctx);
	LLVMAddModuleFlag(w.mod, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26,
	                  LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 500, 0)));
	if (o->debug_info) {
		/* relative name, directory "." : no absolute paths in the output */
		w.dib = LLVMCreateDIBuilder(w.mod);
		file = LLVMDIBuilderCreateFile(w.dib, base, strlen(base), ".", 1);
		cu = LLVMDIBuilderCreateCompileUnit(w.dib, LLVMDWARFSourceLanguageC11, file, "flyc", 4,
		                                    o->opt_level > 0, "", 0, 0, "", 0,
		                                    LLVMDWARFEmissionLineTablesOnly, 0, 0, 0, "", 0, "", 0);
		LLVMAddModuleFlag(w.mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
		                  LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx),
		                                                   LLVMDebugMetadataVersion(), 0)));
		LLVMAddModuleFlag(w.mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
		                  LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 5, 0)));
	}
	for (uint32_t k = 0; k < m->nfunc && !w.failed; k++) {
		w.f = m->func[k];
		lower_func(&w, file, cu);
	}
	if (w.dib) {
		LLVMDIBuilderFinalize(w.dib);
		LLVMDisposeDIBuilder(w.dib);
	}
	LLVMDisposeBuilder(w.b);
	if (w.failed) {
		LLVMDisposeModule(w.mod);
		return NULL;
	}
	meta = ir_meta_text(m);
	attach_meta(w.mod, meta);
	free(meta);
	return w.mod;
}
