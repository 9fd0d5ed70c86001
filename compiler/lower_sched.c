/*
 * lower_sched.c — the steady state of a software pipeline, interleaved for
 * MFMA issue (issue #20: main loops as lean as hand-written ones).
 *
 * Runs on LLVM IR after LLVM's own pipeline (emit_llvm), when the IR is
 * clean: LDS loads and stores, buffer loads, MFMA calls and the shuffles
 * between them. codegen_pipe.c marks each steady-state iteration's compute
 * block with two sched.barrier(0) calls carrying !flyc.pipe.begin and
 * !flyc.pipe.end; before the first sit the iteration's global loads, after the
 * second its deferred LDS writes (to the other ring slot, which the compute
 * block does not read: the writes may pass its reads).
 *
 * A wave issues in order, and an MFMA occupies its pipe for several cycles
 * (8 for a 32x32x16, 4 for a 16x16x32 on gfx950's LLVM model) during which
 * the wave issues anything else that is ready. Only loops of 8-cycle MFMAs
 * are rewritten: between 4-cycle ones there is too little room. The
 * iteration becomes:
 *   1. the global loads, first: the earlier they leave, the shorter the
 *      wait before their LDS writes; or, when all of them load straight to
 *      LDS (no register stage), the first MFMA_READ_FIRST MFMAs' LDS reads,
 *      then a few loads that cover the reads' latency, the others
 *      GLOAD_PER_MFMA after each MFMA of step 2, where their issue (and
 *      M0's) hides behind it;
 *   2. the MFMAs in their order, each followed by up to (its cycles - 2) LDS
 *      reads of the MFMAs issuing within the next LOOKAHEAD_CYCLES, in the
 *      order the MFMAs need them (lgkmcnt counts in order), and its loads,
 *      each in a group of its own with its share of the reads; then, in the
 *      slots left, fillers: pure instructions nothing in the iteration
 *      needs (a loop's counters, pipe_fast's vote for its next trip);
 *   3. the rest in program order: the deferred LDS writes after the last
 *      MFMA, since their vmcnt wait (a global load's latency, ~1000 cycles
 *      in the timing model) would hold up every MFMA issued after it;
 * pinned with sched.barrier(0) before and after each MFMA and between the
 * groups, so that LLVM's schedulers keep the interleave (they would read each
 * operand right before its MFMA; with a barrier only before it, they issued
 * each MFMA after the reads and loads placed behind it). Shuffles and
 * address arithmetic go right before their first user. An iteration holding
 * anything else with side effects (a global store, a wait, a call) is left as
 * LLVM scheduled it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "lower_llvm.h"

/* LDS reads are issued this many MFMA cycles ahead of their use (tuned on
 * gemm_bf16.fly's three tiles, docs/codegen.md "Interleaved main loops"; 64
 * when LLVM still issued each MFMA after the reads placed behind it, the
 * same distance); an MFMA of C cycles is followed by at most C - 2 of them */
enum { LOOKAHEAD_CYCLES = 72 };
/* loads straight to LDS: the LDS reads of the first MFMA_READ_FIRST MFMAs
 * first (the second MFMA's then need not wait: a transposed operand takes
 * two reads), then one load per MFMA_PER_GLOAD_FIRST MFMAs of the iteration
 * (covering the reads' latency), the rest GLOAD_PER_MFMA after each MFMA
 * (tuned on gemm_nt's and gemm_nn/tn/tt's tiles against both llvm-mca and the
 * timing model, docs/codegen.md "Loads straight to LDS in the main loop"; the
 * second MFMA's reads: mca +0.6 to +1.4 points, the model -0.6% to +0.6%) */
enum { GLOAD_PER_MFMA = 2, MFMA_PER_GLOAD_FIRST = 16, MFMA_READ_FIRST = 2 };

typedef enum { K_PURE, K_MFMA, K_GLOAD, K_LDSR, K_LDSW, K_MARK, K_FENCE } Kind;

typedef struct {
	LLVMValueRef v;
	Kind k;
	int part;               /* 0 load block, 1 compute, 2 deferred writes */
	int need;               /* K_LDSR: the first MFMA (index) that needs it */
	int done;
	int pred;               /* ordering predecessor (item index) or -1 */
} Item;

typedef struct {
	Item *it;
	int n;
	LLVMValueRef *out;
	int nout;
	int *hash;              /* open addressing: value -> item index + 1 */
	unsigned hcap;
	int *seen;              /* mark_need: the MFMA that last visited an item + 1 */
	int *fseen, fgen;       /* fill_ok: the query that last visited an item, its answer */
	char *fans;
} Sched;

static const char *
callee_name(LLVMValueRef v)
{
	LLVMValueRef f = LLVMGetCalledValue(v);
	size_t len;
	if (!f || LLVMIsAInlineAsm(f) || !LLVMIsAFunction(f))
		return "";
	return LLVMGetValueName2(f, &len);
}

/* 1 or 2: V is codegen_pipe.c's mark before or after a compute block */
static int
pipe_mark(LLVMValueRef v, const unsigned kind[2])
{
	if (!LLVMIsACallInst(v) || strcmp(callee_name(v), "llvm.amdgcn.sched.barrier"))
		return 0;
	return LLVMGetMetadata(v, kind[0]) ? 1 : LLVMGetMetadata(v, kind[1]) ? 2 : 0;
}

static int
lds_ptr(LLVMValueRef p)
{
	return LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == 3;
}

static Kind
classify(LLVMValueRef v, const unsigned mdk[2])
{
	if (LLVMIsAPHINode(v) || LLVMIsATerminatorInst(v))
		return K_FENCE;
	if (LLVMIsALoadInst(v))
		return lds_ptr(LLVMGetOperand(v, 0)) && !LLVMGetVolatile(v) ? K_LDSR : K_FENCE;
	if (LLVMIsAStoreInst(v))
		return lds_ptr(LLVMGetOperand(v, 1)) && !LLVMGetVolatile(v) ? K_LDSW : K_FENCE;
	if (LLVMIsACallInst(v)) {
		const char *n = callee_name(v);
		if (LLVMIsAInlineAsm(LLVMGetCalledValue(v)))
			return K_PURE;   /* lower_llvm's opaque address: memory(none) */
		if (pipe_mark(v, mdk))
			return K_MARK;
		if (!strncmp(n, "llvm.amdgcn.mfma.", 17))
			return K_MFMA;
		if (!strncmp(n, "llvm.amdgcn.raw.ptr.buffer.load.", 32))
			return K_GLOAD;   /* also .lds: the other ring slot (lower_llvm's alias scopes) */
		if (!strncmp(n, "llvm.amdgcn.ds.read.tr", 22))
			return K_LDSR;    /* a transposed LDS read: memory(argmem: read) */
		if (!strncmp(n, "llvm.amdgcn.readfirstlane.", 26) || !strncmp(n, "llvm.amdgcn.mbcnt.", 18))
			return K_PURE;    /* a load straight to LDS's M0 */
		if (!strncmp(n, "llvm.amdgcn.ballot.", 19))
			return K_PURE;    /* pipe_fast's vote: EXEC is the same throughout the block */
		return K_FENCE;
	}
	if (LLVMIsAFenceInst(v) || LLVMIsAAtomicRMWInst(v) || LLVMIsAAtomicCmpXchgInst(v))
		return K_FENCE;
	return K_PURE;
}

/* cycles an MFMA keeps its pipe busy (LLVM's gfx950 model) */
static int
mfma_cycles(LLVMValueRef v)
{
	const char *n = callee_name(v);
	return strstr(n, "32x32") ? 8 : 4;
}

static unsigned
hash_of(Sched *s, LLVMValueRef v)
{
	uintptr_t h = (uintptr_t)v;
	return (unsigned)((h >> 4) ^ (h >> 20)) & (s->hcap - 1);
}

static int
find(Sched *s, LLVMValueRef v)
{
	for (unsigned h = hash_of(s, v); s->hash[h]; h = (h + 1) & (s->hcap - 1))
		if (s->it[s->hash[h] - 1].v == v)
			return s->hash[h] - 1;
	return -1;
}

static void
enter(Sched *s, int i)
{
	unsigned h = hash_of(s, s->it[i].v);
	while (s->hash[h])
		h = (h + 1) & (s->hcap - 1);
	s->hash[h] = i + 1;
}

/* place item I after its operands (in the region) and its ordering predecessor */
static void
place(Sched *s, int i)
{
	Item *x = &s->it[i];
	if (x->done)
		return;
	x->done = 1;
	int no = LLVMGetNumOperands(x->v);
	for (int j = 0; j < no; j++) {
		int d = find(s, LLVMGetOperand(x->v, j));
		if (d >= 0)
			place(s, d);
	}
	if (x->pred >= 0)
		place(s, x->pred);
	s->out[s->nout++] = x->v;
}

/* place the next N global loads not yet placed; returns how many it placed */
static int
place_gloads(Sched *s, int n)
{
	int g = 0;
	for (int i = 0; i < s->n && g < n; i++)
		if (s->it[i].k == K_GLOAD && !s->it[i].done) {
			place(s, i);
			g++;
		}
	return g;
}

/* the first MFMA that needs each LDS read, through shuffles */
static void
mark_need(Sched *s, int i, int m)
{
	Item *x = &s->it[i];
	if (s->seen[i] == m + 1)
		return;
	s->seen[i] = m + 1;
	if (x->k == K_LDSR) {
		if (x->need < 0 || m < x->need)
			x->need = m;
		return;
	}
	if (x->k != K_PURE && x->k != K_MFMA)
		return;
	int no = LLVMGetNumOperands(x->v);
	for (int j = 0; j < no; j++) {
		int d = find(s, LLVMGetOperand(x->v, j));
		if (d >= 0 && !(s->it[d].k == K_MFMA && x->k == K_MFMA && d != i))
			mark_need(s, d, m);
	}
}

/* mark the pure items that item I needs, through pure items */
static void
mark_feeds(Sched *s, int i, char *need)
{
	int no = LLVMGetNumOperands(s->it[i].v);
	for (int j = 0; j < no; j++) {
		int d = find(s, LLVMGetOperand(s->it[i].v, j));
		if (d >= 0 && s->it[d].k == K_PURE && !need[d]) {
			need[d] = 1;
			mark_feeds(s, d, need);
		}
	}
}

/* 1 when pure item I can be placed now: its operands in the region are
 * placed or are pure items that can be (memoised per query: s->fgen) */
static int
fill_ok(Sched *s, int i)
{
	if (s->fseen[i] == s->fgen)
		return s->fans[i];
	s->fseen[i] = s->fgen;
	s->fans[i] = 1;
	int no = LLVMGetNumOperands(s->it[i].v);
	for (int j = 0; j < no && s->fans[i]; j++) {
		int d = find(s, LLVMGetOperand(s->it[i].v, j));
		if (d >= 0 && !s->it[d].done && (s->it[d].k != K_PURE || !fill_ok(s, d)))
			s->fans[i] = 0;
	}
	return s->fans[i];
}

/* fill_ok as a new query */
static int
fillable(Sched *s, int i)
{
	s->fgen++;
	return fill_ok(s, i);
}

/* one iteration, the N instructions INS of a block before ANCHOR: reorder
 * it, or leave it */
static void
schedule(LLVMContextRef ctx, LLVMModuleRef mod, LLVMValueRef *ins, int n, LLVMValueRef anchor, const unsigned mdk[2])
{
	Sched s = { calloc((size_t)n, sizeof(Item)), 0, calloc((size_t)n + 1, sizeof(LLVMValueRef)), 0,
	            NULL, 16, calloc((size_t)n, sizeof(int)), NULL, 0, NULL };
	/* LDS order: a read follows the last write before it; a write follows
	 * the last write and the one read since (more reads since: left alone) */
	int part = 0, nm = 0, laststore = -1, lastread = -1, nreads = 0, lastw = -1, ok = 1, m2 = 0;
	int *mf = calloc((size_t)n, sizeof(int));
	while (s.hcap < 2 * (unsigned)n)
		s.hcap *= 2;
	s.hash = calloc(s.hcap, sizeof(int));
	if (!s.it || !s.out || !mf || !s.hash || !s.seen)
		goto out;
	for (int i = 0; i < n; i++) {
		Item *x = &s.it[s.n];
		x->v = ins[i];
		x->k = classify(ins[i], mdk);
		x->pred = -1;
		x->need = -1;
		if (x->k == K_FENCE) {
			ok = 0;
			break;
		}
		if (x->k == K_MARK) {
			part = pipe_mark(ins[i], mdk);
			m2 += part == 2;
			continue;     /* dropped: the interleave's barriers replace it */
		}
		x->part = part;
		/* LDS accesses keep their order, but for the deferred writes,
		 * which may pass the compute block's reads (other ring slot) */
		if (x->k == K_LDSW && x->part == 2) {
			x->pred = lastw >= 0 ? lastw : laststore;
			lastw = s.n;
		} else if (x->k == K_LDSR && x->part < 2) {
			x->pred = laststore;
			lastread = s.n;
			nreads++;
		} else if (x->k == K_LDSW && x->part == 0 && nreads <= 1) {
			x->pred = nreads ? lastread : laststore;
			laststore = s.n;
			nreads = 0;
		} else if (x->k == K_LDSR || x->k == K_LDSW) {
			ok = 0;   /* a read among the writes, a write in compute, or after reads */
			break;
		}
		if (x->k == K_MFMA) {
			/* a 4-cycle MFMA leaves 2 issue slots, fewer than its operand
			 * reads (scaled_mm's 16x16x128 measured worse interleaved) */
			if (x->part != 1 || mfma_cycles(x->v) < 8) {
				ok = 0;
				break;
			}
			mf[nm++] = s.n;
		}
		enter(&s, s.n);
		s.n++;
	}
	if (!ok || nm < 2 || m2 != 1)
		goto out;
	for (int m = 0; m < nm; m++)
		mark_need(&s, mf[m], m);
	/* fillers: the pure items nothing in the iteration needs (a loop's
	 * counters, the vote of codegen_pipe.c's pipe_fast for its next trip),
	 * issued in the MFMAs' spare slots rather than after the last MFMA */
	char *need = calloc((size_t)n, 1);
	s.fseen = calloc((size_t)n, sizeof(int));
	s.fans = calloc((size_t)n, 1);
	if (!need || !s.fseen || !s.fans) {
		free(need);
		goto out;
	}
	for (int i = 0; i < s.n; i++)
		if (s.it[i].k != K_PURE)
			mark_feeds(&s, i, need);

	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &i32, 1, 0);
	LLVMValueRef sb = LLVMGetNamedFunction(mod, "llvm.amdgcn.sched.barrier");
	if (!sb)
		sb = LLVMAddFunction(mod, "llvm.amdgcn.sched.barrier", ft);
	LLVMValueRef zero = LLVMConstInt(i32, 0, 0);
	int *bar = calloc((size_t)n + 1, sizeof(int));   /* a barrier before out[k] */
	if (!bar) {
		LLVMDisposeBuilder(b);
		free(need);
		goto out;
	}
	/* loads straight to LDS only: the first MFMAs' reads, a load per
	 * MFMA_PER_GLOAD_FIRST MFMAs, then GLOAD_PER_MFMA loads after each
	 * MFMA; register-staged: the loads first, for the writes' vmcnt wait */
	int spread = 1;
	for (int i = 0; i < s.n && spread; i++)
		if (s.it[i].k == K_GLOAD) {
			const char *cn = callee_name(s.it[i].v);
			size_t len = strlen(cn);
			spread = len > 4 && !strcmp(cn + len - 4, ".lds");
		}
	for (int i = 0; i < s.n; i++)
		if (spread ? s.it[i].k == K_LDSR && s.it[i].need >= 0 && s.it[i].need < MFMA_READ_FIRST
		           : s.it[i].k == K_GLOAD)
			place(&s, i);
	if (spread) {
		/* kept ahead of the loads, which then cover their latency */
		bar[s.nout] = 1;
		place_gloads(&s, (nm + MFMA_PER_GLOAD_FIRST - 1) / MFMA_PER_GLOAD_FIRST);
	}
	for (int m = 0; m < nm; m++) {
		bar[s.nout] = 1;
		place(&s, mf[m]);
		bar[s.nout] = 1;
		int slots = mfma_cycles(s.it[mf[m]].v) - 2, gl = 0, nr = 0, rd[8];
		for (int i = 0; spread && i < s.n && gl < GLOAD_PER_MFMA; i++)
			gl += s.it[i].k == K_GLOAD && !s.it[i].done;
		slots -= 2 * gl;   /* a load and its M0 each */
		if (slots > 8)
			slots = 8;   /* rd's size: 32x32 MFMAs take 8 cycles */
		/* the LDS reads of the MFMAs within the lookahead, in need order */
		for (int j = m + 1, ahead = 0; j < nm && nr < slots && ahead < LOOKAHEAD_CYCLES; j++) {
			ahead += mfma_cycles(s.it[mf[j]].v);
			for (int i = 0; i < s.n && nr < slots; i++)
				if (s.it[i].k == K_LDSR && s.it[i].need == j && !s.it[i].done)
					rd[nr++] = i;
		}
		/* each load in a group of its own with its share of the reads:
		 * LLVM fills the wait state between M0's write and the load with
		 * a read (else an s_nop) only within the group */
		int groups = gl > 1 ? gl : 1;
		for (int g = 0, r = 0; g < groups; g++) {
			if (g)
				bar[s.nout] = 1;
			if (g < gl)
				place_gloads(&s, 1);
			for (int e = g + 1 < groups ? r + nr / groups : nr; r < e; r++)
				place(&s, rd[r]);
		}
		for (int i = 0, fill = slots - nr; i < s.n && fill > 0; i++)
			if (s.it[i].k == K_PURE && !need[i] && !s.it[i].done && fillable(&s, i)) {
				int before = s.nout;
				place(&s, i);
				fill -= s.nout - before;
			}
	}
	bar[s.nout] = 1;
	for (int i = 0; i < s.n; i++)
		place(&s, i);
	/* move everything, in the new order, before the anchor */
	for (int k = 0; k < s.nout; k++)
		LLVMInstructionRemoveFromParent(s.out[k]);
	LLVMPositionBuilderBefore(b, anchor);
	for (int k = 0; k < s.nout; k++) {
		if (bar[k])
			LLVMBuildCall2(b, ft, sb, &zero, 1, "");
		LLVMInsertIntoBuilder(b, s.out[k]);
	}
	if (bar[s.nout])
		LLVMBuildCall2(b, ft, sb, &zero, 1, "");
	for (int i = 0; i < n; i++)
		if (classify(ins[i], mdk) == K_MARK)
			LLVMInstructionEraseFromParent(ins[i]);
	free(bar);
	free(need);
	LLVMDisposeBuilder(b);
out:
	free(s.fseen);
	free(s.fans);
	free(s.hash);
	free(s.seen);
	free(mf);
	free(s.it);
	free(s.out);
}

/* every marked steady-state iteration of every function of MOD */
void
lower_sched_pipelines(LLVMModuleRef mod)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	const unsigned mdk[2] = { LLVMGetMDKindIDInContext(ctx, "flyc.pipe.begin", 15),
	                          LLVMGetMDKindIDInContext(ctx, "flyc.pipe.end", 13) };
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
			int n = 0, cap = 0;
			LLVMValueRef *ins = NULL;
			for (LLVMValueRef v = LLVMGetFirstInstruction(bb); v; v = LLVMGetNextInstruction(v)) {
				if (n == cap) {
					cap = cap ? 2 * cap : 256;
					LLVMValueRef *g = realloc(ins, (size_t)cap * sizeof *g);
					if (!g)
						break;
					ins = g;
				}
				ins[n++] = v;
			}
			/* each iteration: from after the side effect before its first
			 * mark to before the side effect after its second */
			for (int i = 0; i < n; i++) {
				if (pipe_mark(ins[i], mdk) != 1)
					continue;
				int lo = i, hi = i + 1;
				while (lo > 0 && classify(ins[lo - 1], mdk) != K_FENCE)
					lo--;
				while (hi < n && pipe_mark(ins[hi], mdk) != 2 && classify(ins[hi], mdk) != K_FENCE)
					hi++;
				if (hi >= n || pipe_mark(ins[hi], mdk) != 2)
					continue;
				hi++;
				while (hi < n && classify(ins[hi], mdk) != K_FENCE && pipe_mark(ins[hi], mdk) != 1)
					hi++;
				if (hi >= n || pipe_mark(ins[hi], mdk) == 1)
					continue;
				schedule(ctx, mod, ins + lo, hi - lo, ins[hi], mdk);
				i = hi;
			}
			free(ins);
		}
}
