/*
 * sim_core.c — the simulated device: address space, launches, workgroup and
 * wave scheduling, memory checking and fault reports.
 *
 * Scheduling: a workgroup's waves run one at a time, each until it reaches
 * s_barrier or s_endpgm or has run a slice of instructions; when every live
 * wave waits at the barrier they are released together. A host thread keeps
 * up to MAX_RESIDENT workgroups in flight when they run long ("Forward
 * progress" below). Workgroups may run on several host threads
 * (SimConfig.nthreads); each thread owns its wave storage. Only the order of
 * global atomics racing between workgroups depends on the threads.
 */
/* messages are cut to their buffers on purpose */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/sim_int.h"

enum { MAX_WAVES = 32 };   /* 1024 work-items in wave32 */
#define VA_BASE 0x100000000ull
#define VA_GUARD 0x10000ull
#define STEP_LIMIT 200000000ull

typedef struct {
	uint64_t va, size;
	uint8_t *mem;
	int internal;       /* 1: code image (writable: program-scope globals); 2: kernarg segment,
	                       dispatch packet, queue (read-only to kernels) */
} Alloc;

typedef struct {
	const SimArch *arch;/* the instruction set the image is decoded as */
	uint8_t *image;     /* private copy of the code object image */
	uint64_t size;
	uint64_t va;        /* where the image lives in the device address space */
	SimInst **cache;    /* per 4-byte slot, decoded lazily */
	pthread_mutex_t lock;
} Code;

struct SimDevice {
	SimConfig cfg;
	const SimArch *arch;        /* the device's architecture; NULL: each code object's own */
	Alloc *allocs;
	int nallocs, cap;
	uint64_t next_va;
	Code *codes;
	int ncodes;
	pthread_mutex_t atomic_lock;
	SimStats last;
	int timing;                 /* timing model on for the next launches */
	SimTimingConfig tcfg;
	char tdevice[32];
	int have_timing;            /* last_timing is the last launch's */
	SimTiming last_timing;
};

struct SimRun {
	SimDevice *d;
	const CoObject *co;
	const CoKernel *k;
	Code *code;
	uint32_t grid[3], block[3];
	uint64_t kernarg_va, dispatch_va, queue_va;
	int nwaves;                 /* per workgroup */
	const SimArch *arch;
	int lanes;                  /* per wave: 64 or 32 */
	uint32_t lds_size, scratch_size;
	uint32_t mode;
	/* error reporting: the first fault in workgroup order wins */
	pthread_mutex_t lock;
	uint64_t next_wg, nwg;
	int failed;
	uint64_t fail_wg;
	char err[1024];
	uint64_t wave_insts, lane_insts;
	int trace;
	int racecheck;
	uint64_t step_limit;
	SimTmRun *tm;               /* timing model, NULL when off */
	const uint64_t *list;       /* the workgroups to run (timing-only), NULL: all */
	uint64_t nrun;              /* workgroups to run */
};

/* ---- address space ---- */
SimDevice *sim_create(const SimConfig *cfg)
{
	SimDevice *d = calloc(1, sizeof *d);
	if (!d) return NULL;
	if (cfg) d->cfg = *cfg;
	if (d->cfg.arch && !(d->arch = sim_arch_find(d->cfg.arch))) { free(d); return NULL; }
	if (d->cfg.nthreads <= 0) d->cfg.nthreads = 1;
	if (d->cfg.nthreads > 64) d->cfg.nthreads = 64;
	d->next_va = VA_BASE;
	pthread_mutex_init(&d->atomic_lock, NULL);
	return d;
}

void sim_destroy(SimDevice *d)
{
	if (!d) return;
	for (int i = 0; i < d->nallocs; i++) free(d->allocs[i].mem);
	free(d->allocs);
	for (int i = 0; i < d->ncodes; i++) {
		Code *c = &d->codes[i];
		for (uint64_t j = 0; j < c->size / 4; j++) if (c->cache[j]) { sim_inst_release(c->cache[j]); free(c->cache[j]); }
		free(c->cache);
		free(c->image);
		pthread_mutex_destroy(&c->lock);
	}
	free(d->codes);
	pthread_mutex_destroy(&d->atomic_lock);
	free(d);
}

static uint64_t alloc_internal(SimDevice *d, uint64_t bytes, int internal)
{
	if (bytes == 0) bytes = 1;
	if (bytes > (1ull << 40)) return 0;
	if (d->nallocs == d->cap) {
		int nc = d->cap ? d->cap * 2 : 16;
		Alloc *na = realloc(d->allocs, (size_t)nc * sizeof *na);
		if (!na) return 0;
		d->allocs = na; d->cap = nc;
	}
	uint8_t *mem = calloc(1, (size_t)bytes);
	if (!mem) return 0;
	uint64_t va = d->next_va;
	d->next_va = (va + bytes + VA_GUARD + 0xffff) & ~0xffffull;
	/* allocations are appended in address order */
	d->allocs[d->nallocs++] = (Alloc){ va, bytes, mem, internal };
	return va;
}

uint64_t sim_alloc(SimDevice *d, uint64_t bytes) { return d ? alloc_internal(d, bytes, 0) : 0; }

static int find_alloc(const SimDevice *d, uint64_t va)
{
	int lo = 0, hi = d->nallocs - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const Alloc *a = &d->allocs[mid];
		if (va < a->va) hi = mid - 1;
		else if (va >= a->va + a->size) lo = mid + 1;
		else return mid;
	}
	return -1;
}

int sim_free(SimDevice *d, uint64_t va)
{
	if (!d) return -1;
	int i = find_alloc(d, va);
	if (i < 0 || d->allocs[i].va != va || d->allocs[i].internal) return -1;
	free(d->allocs[i].mem);
	memmove(&d->allocs[i], &d->allocs[i + 1], (size_t)(d->nallocs - i - 1) * sizeof d->allocs[0]);
	d->nallocs--;
	return 0;
}

static uint8_t *host_range(const SimDevice *d, uint64_t va, uint64_t n)
{
	int i = find_alloc(d, va);
	if (i < 0) return NULL;
	const Alloc *a = &d->allocs[i];
	if (n > a->size - (va - a->va)) return NULL;
	return a->mem + (va - a->va);
}

int sim_write(SimDevice *d, uint64_t va, const void *src, uint64_t n)
{
	if (!d) return -1;
	if (n == 0) return 0;
	uint8_t *p = host_range(d, va, n);
	if (!p) return -1;
	memcpy(p, src, (size_t)n);
	return 0;
}

int sim_read(SimDevice *d, uint64_t va, void *dst, uint64_t n)
{
	if (!d) return -1;
	if (n == 0) return 0;
	uint8_t *p = host_range(d, va, n);
	if (!p) return -1;
	memcpy(dst, p, (size_t)n);
	return 0;
}

void sim_last_stats(const SimDevice *d, SimStats *out) { if (d && out) *out = d->last; }

int sim_set_timing(SimDevice *d, const SimTimingConfig *cfg)
{
	if (!d) return -1;
	if (!cfg) { d->timing = 0; return 0; }
	if (cfg->device && *cfg->device) {
		int ok = 0;
		for (int i = 0; sim_timing_device_name(i); i++) if (!strcmp(sim_timing_device_name(i), cfg->device)) ok = 1;
		if (!ok) return -1;
	}
	d->tcfg = *cfg;
	snprintf(d->tdevice, sizeof d->tdevice, "%s", cfg->device ? cfg->device : "");
	d->tcfg.device = d->tdevice;
	d->timing = 1;
	return 0;
}

int sim_last_timing(const SimDevice *d, SimTiming *out)
{
	if (!d || !d->have_timing) return -1;
	if (out) *out = d->last_timing;
	return 0;
}
const char *sim_device_arch(const SimDevice *d) { return d && d->arch ? d->arch->name : NULL; }
int sim_arch_known(const char *processor) { return sim_arch_find(processor) != NULL; }

/* ---- faults ---- */
static void kernel_pc(const SimWave *w, char *buf, size_t n)
{
	const CoKernel *k = w->run->k;
	/* relative to the kernel's entry (negative when in a function placed before it) */
	if (w->pc >= k->entry_addr) snprintf(buf, n, "%s+0x%llx", k->name, (unsigned long long)(w->pc - k->entry_addr));
	else snprintf(buf, n, "%s-0x%llx", k->name, (unsigned long long)(k->entry_addr - w->pc));
}

int sim_fault(SimWave *w, const char *fmt, ...)
{
	SimRun *r = w->run;
	char msg[600], at[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	kernel_pc(w, at, sizeof at);
	uint64_t wgl = w->wg->id[0] + (uint64_t)r->grid[0] * (w->wg->id[1] + (uint64_t)r->grid[1] * w->wg->id[2]);
	pthread_mutex_lock(&r->lock);
	if (!r->failed || wgl < r->fail_wg) {
		r->failed = 1; r->fail_wg = wgl;
		snprintf(r->err, sizeof r->err, "%s (kernel %s, workgroup (%u,%u,%u), wave %d, PC %s)",
		         msg, r->k->name, w->wg->id[0], w->wg->id[1], w->wg->id[2], w->id, at);
	}
	pthread_mutex_unlock(&r->lock);
	return SIM_FAULT;
}

static const char *cur_text(SimWave *w)
{
	Code *c = w->run->code;
	SimInst *in = w->pc / 4 < c->size / 4 ? c->cache[w->pc / 4] : NULL;
	return in ? in->text : "?";
}

static void *violation(SimWave *w, const char *space, uint64_t addr, uint32_t n, int lane, int write, const char *why)
{
	char ln[32];
	if (lane >= 0) snprintf(ln, sizeof ln, "lane %d", lane); else snprintf(ln, sizeof ln, "scalar");
	sim_fault(w, "memory violation: %s %s of %u bytes at 0x%llx %s, %s, by '%s'", space,
	          write ? "write" : "read", n, (unsigned long long)addr, why, ln, cur_text(w));
	return NULL;
}

void *sim_gptr_try(SimWave *w, uint64_t va, uint32_t n)
{
	SimDevice *d = w->run->d;
	if ((int)w->lastalloc < d->nallocs) {
		Alloc *a = &d->allocs[w->lastalloc];
		if (va >= a->va && va - a->va <= a->size && n <= a->size - (va - a->va)) {
			if (w->tm) sim_tm_access(w, 0, va, n, -1, 0);
			return a->mem + (va - a->va);
		}
	}
	int i = find_alloc(d, va);
	if (i < 0) return NULL;
	Alloc *a = &d->allocs[i];
	if (n > a->size - (va - a->va)) return NULL;
	w->lastalloc = (uint32_t)i;
	if (w->tm) sim_tm_access(w, 0, va, n, -1, 0);
	return a->mem + (va - a->va);
}

void *sim_gptr(SimWave *w, uint64_t va, uint32_t n, int lane, int write)
{
	void *p = sim_gptr_try(w, va, n);
	if (p && write && w->run->d->allocs[w->lastalloc].internal == 2)
		return violation(w, "global", va, n, lane, write, "into the read-only kernarg segment or dispatch packet");
	if (p) return p;
	return violation(w, "global", va, n, lane, write, "outside every allocation");
}

void *sim_lptr(SimWave *w, uint32_t addr, uint32_t n, int lane, int write)
{
	SimWG *g = w->wg;
	if ((uint64_t)addr + n > g->lds_size) {
		char why[64];
		snprintf(why, sizeof why, "beyond the kernel's LDS size %u", g->lds_size);
		return violation(w, "LDS", addr, n, lane, write != 0, why);
	}
	if (w->tm) sim_tm_access(w, 1, addr, n, lane, write);
	if (w->run->racecheck && g->race && write != 2) {   /* 2 = atomic: never a race */
		for (uint32_t a = addr / 4; a <= (addr + n - 1) / 4; a++) {
			uint32_t *e = &g->race[3 * a];
			uint32_t me = (uint32_t)w->id + 1;
			/* e[0]: epoch<<8 | last writer (wave + 1); e[1]: epoch of the readers; e[2]: reader mask */
			int wsame = (e[0] >> 8) == (g->epoch & 0xffffff);
			int rsame = e[1] == g->epoch;
			if (wsame && (e[0] & 0xff) != me)
				return violation(w, "LDS", addr, n, lane, write, "races with another wave's write since the last barrier (racecheck)");
			if (write && rsame && (e[2] & ~(1u << w->id)))
				return violation(w, "LDS", addr, n, lane, write, "races with another wave's read since the last barrier (racecheck)");
			if (write) e[0] = (g->epoch & 0xffffff) << 8 | me;
			else { if (!rsame) { e[1] = g->epoch; e[2] = 0; } e[2] |= 1u << w->id; }
		}
	}
	return g->lds + addr;
}

void *sim_pptr(SimWave *w, uint32_t addr, uint32_t n, int lane, int write)
{
	if (lane < 0 || (uint64_t)addr + n > w->scratch_size) {
		char why[80];
		snprintf(why, sizeof why, "beyond the kernel's scratch size %u per lane", w->scratch_size);
		return violation(w, "scratch", addr, n, lane, write, why);
	}
	return w->scratch + (size_t)lane * w->scratch_size + addr;
}

void *sim_fptr(SimWave *w, uint64_t va, uint32_t n, int lane, int write)
{
	uint64_t hi = va & SIM_APERTURE_MASK;
	if (hi == SIM_SHARED_APERTURE) return sim_lptr(w, (uint32_t)va, n, lane, write);
	if (hi == SIM_PRIVATE_APERTURE) return sim_pptr(w, (uint32_t)va, n, lane, write);
	return sim_gptr(w, va, n, lane, write);
}

void sim_atomic_lock(SimWave *w) { if (w->run->d->cfg.nthreads > 1) pthread_mutex_lock(&w->run->d->atomic_lock); }
void sim_atomic_unlock(SimWave *w) { if (w->run->d->cfg.nthreads > 1) pthread_mutex_unlock(&w->run->d->atomic_lock); }

/* ---- code images ---- */
static Code *get_code(SimDevice *d, const CoObject *co, const SimArch *arch, char *err, size_t errlen)
{
	for (int i = 0; i < d->ncodes; i++)
		if (d->codes[i].arch == arch && d->codes[i].size == co->image_size && !memcmp(d->codes[i].image, co->image, (size_t)co->image_size))
			return &d->codes[i];
	Code *nc = realloc(d->codes, (size_t)(d->ncodes + 1) * sizeof *nc);
	if (!nc) { snprintf(err, errlen, "out of memory"); return NULL; }
	d->codes = nc;
	Code *c = &d->codes[d->ncodes];
	memset(c, 0, sizeof *c);
	c->arch = arch;
	c->size = co->image_size;
	c->image = malloc((size_t)c->size + 16);
	c->cache = calloc((size_t)(c->size / 4 + 1), sizeof *c->cache);
	/* the image is visible to the kernel (constant data is addressed PC-relative) */
	c->va = alloc_internal(d, c->size, 1);
	if (!c->image || !c->cache || !c->va) {
		free(c->image); free(c->cache);
		snprintf(err, errlen, "out of memory for the code object image");
		return NULL;
	}
	memcpy(c->image, co->image, (size_t)c->size);
	memset(c->image + c->size, 0, 16);
	sim_write(d, c->va, co->image, c->size);
	pthread_mutex_init(&c->lock, NULL);
	d->ncodes++;
	return c;
}

static SimInst *fetch(SimWave *w)
{
	Code *c = w->run->code;
	uint64_t pc = w->pc;
	if ((pc & 3) || pc / 4 >= c->size / 4) {
		sim_fault(w, "PC 0x%llx is outside the code object", (unsigned long long)pc);
		return NULL;
	}
	SimInst *in = __atomic_load_n(&c->cache[pc / 4], __ATOMIC_ACQUIRE);
	if (in) return in;
	pthread_mutex_lock(&c->lock);
	in = c->cache[pc / 4];
	if (!in) {
		char err[300];
		in = calloc(1, sizeof *in);
		CoObject tmp;
		memset(&tmp, 0, sizeof tmp);
		tmp.image = c->image; tmp.image_size = c->size;
		snprintf(tmp.processor, sizeof tmp.processor, "%s", c->arch->name);
		if (!in || sim_decode(&tmp, pc, in, err, sizeof err)) {
			pthread_mutex_unlock(&c->lock);
			if (in) sim_inst_release(in);
			free(in);
			sim_fault(w, "%s", in ? err : "out of memory");
			return NULL;
		}
		sim_tm_classify(c->arch, in);
		__atomic_store_n(&c->cache[pc / 4], in, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&c->lock);
	return in;
}

/* ---- DPP and SDWA around a handler ---- */
static int dpp_src_lane(const SimInst *in, int l)
{
	unsigned c = in->dpp_ctrl;
	int row = l & ~15, r = l & 15;
	if (c <= 0xff) return (l & ~3) | (int)((c >> ((l & 3) * 2)) & 3);
	if (c >= 0x101 && c <= 0x10f) { int s = r + (int)(c & 15); return s > 15 ? -1 : row + s; }
	if (c >= 0x111 && c <= 0x11f) { int s = r - (int)(c & 15); return s < 0 ? -1 : row + s; }
	if (c >= 0x121 && c <= 0x12f) return row + ((r - (int)(c & 15)) & 15);
	if (c == 0x130) return l + 1 > 63 ? -1 : l + 1;            /* wave_shl:1 */
	if (c == 0x134) return (l + 1) & 63;                       /* wave_rol:1 */
	if (c == 0x138) return l - 1 < 0 ? -1 : l - 1;             /* wave_shr:1 */
	if (c == 0x13c) return (l - 1) & 63;                       /* wave_ror:1 */
	if (c == 0x140) return row + 15 - r;                       /* row_mirror */
	if (c == 0x141) return row + ((r & 8) | (7 - (r & 7)));    /* row_half_mirror */
	if (c >= 0x150 && c <= 0x15f) return row + (int)(c & 15); /* row_newbcast (gfx9), row_share (gfx10+) */
	if (c >= 0x160 && c <= 0x16f) return row + (r ^ (int)(c & 15)); /* row_xmask (gfx10+) */
	if (c == SIM_DPP8) return (l & ~7) | (int)((in->dpp8 >> (3 * (l & 7))) & 7);
	return -3;
}

static int run_dpp(SimWave *w, const SimInst *in, int src_index)
{
	SimInst t = *in;
	const SimOperand *so = &in->o[src_index];
	SimOperand *s = &t.o[src_index];
	const unsigned tmp = SIM_NVREG + 4;           /* staging rows (up to 2 registers: v_mov_b64_dpp) */
	int nr = so->nregs > 2 ? 2 : so->nregs ? so->nregs : 1;
	uint64_t exec = sim_exec(w), live = 0;
	if (so->kind != SIM_OPK_VGPR) return sim_fault(w, "DPP source is not a VGPR in '%s'", in->text);
	int dpp8 = in->dpp_ctrl == SIM_DPP8;
	for (int l = 0; l < w->lanes; l++) {
		/* DPP8 has no row and bank masks and no bound_ctrl: inactive sources are read (fi) */
		if (!dpp8 && (!((in->row_mask >> (l >> 4)) & 1) || !((in->bank_mask >> ((l >> 2) & 3)) & 1))) continue;
		int sl;
		unsigned c = in->dpp_ctrl;
		if (c == 0x142) sl = l < 16 ? l : (l & ~15) - 1;     /* row_bcast:15: lane 15 of the previous row */
		else if (c == 0x143) sl = l < 32 ? l : 31;           /* row_bcast:31: lane 31 to rows 2 and 3 */
		else sl = dpp_src_lane(in, l);
		if (sl == -3 || (w->arch->isa == SIM_ISA_GFX12 && c >= 0x130 && c <= 0x143 && c != 0x140 && c != 0x141))
			return sim_fault(w, "unsupported DPP control 0x%x in '%s'", c, in->text);
		if (sl >= w->lanes) sl = -1;
		if (sl >= 0 && (dpp8 || in->fi) && !((exec >> sl) & 1)) {
			/* fetch inactive: the source lane's register is read even if it is off */
			for (int k = 0; k < nr; k++) w->v[tmp + (unsigned)k][l] = w->v[so->reg + k][sl];
		} else if (sl < 0 || !((exec >> sl) & 1)) {
			if (!in->bound_ctrl) continue;       /* lane disabled: dst keeps its value */
			for (int k = 0; k < nr; k++) w->v[tmp + (unsigned)k][l] = 0;
		} else for (int k = 0; k < nr; k++) w->v[tmp + (unsigned)k][l] = w->v[so->reg + k][sl];
		live |= 1ull << l;
	}
	s->kind = SIM_OPK_VGPR; s->reg = tmp;
	sim_set_exec(w, exec & live);
	int r = sim_op_handlers[t.op](w, &t);
	/* the handler may write EXEC (v_cmpx): keep what it wrote for live lanes */
	uint64_t e2 = sim_exec(w);
	sim_set_exec(w, (e2 & live) | (exec & ~live));
	return r;
}

static uint32_t sdwa_extract(uint32_t v, int sel, int sext)
{
	switch (sel) {
	case SIM_SEL_BYTE0: case SIM_SEL_BYTE1: case SIM_SEL_BYTE2: case SIM_SEL_BYTE3: {
		uint32_t b = (v >> (8 * sel)) & 0xff;
		return sext ? (uint32_t)(int32_t)(int8_t)b : b;
	}
	case SIM_SEL_WORD0: case SIM_SEL_WORD1: {
		uint32_t h = (v >> (16 * (sel - SIM_SEL_WORD0))) & 0xffff;
		return sext ? (uint32_t)(int32_t)(int16_t)h : h;
	}
	default: return v;
	}
}

static int run_sdwa(SimWave *w, const SimInst *in, int src_index)
{
	SimInst t = *in;
	uint64_t exec = sim_exec(w);
	for (int k = 0; k < 2 && src_index + k < in->nops; k++) {
		const SimOperand *o = &in->o[src_index + k];
		if (o->kind == SIM_OPK_CONST || in->src_sel[k] == SIM_SEL_DWORD) continue;
		unsigned row = SIM_NVREG + 1 + (unsigned)k;
		SIM_FOR_LANES(w, l) w->v[row][l] = sdwa_extract(sim_rd32(w, o, l), in->src_sel[k], o->sext);
		SimOperand *so = &t.o[src_index + k];
		so->kind = SIM_OPK_VGPR; so->reg = (uint16_t)row; so->sext = 0;
	}
	const SimOperand *d = &in->o[0];
	int vdst = d->kind == SIM_OPK_VGPR && !(in->mnem[0] == 'v' && !strncmp(in->mnem, "v_cmp", 5));
	if (vdst) { t.o[0].reg = SIM_NVREG + 3; }
	int r = sim_op_handlers[t.op](w, &t);
	if (r != SIM_NEXT || !vdst) return r;
	int sel = in->dst_sel;
	for (uint64_t m = exec; m; m &= m - 1) {
		int l = __builtin_ctzll(m);
		uint32_t v = w->v[SIM_NVREG + 3][l], old = w->v[d->reg][l], res;
		if (sel == SIM_SEL_DWORD) res = v;
		else {
			int sh = sel <= SIM_SEL_BYTE3 ? 8 * sel : 16 * (sel - SIM_SEL_WORD0);
			int bits = sel <= SIM_SEL_BYTE3 ? 8 : 16;
			uint32_t fm = (bits == 8 ? 0xffu : 0xffffu) << sh;
			uint32_t field = (v << sh) & fm;
			if (in->dst_unused == 2) res = (old & ~fm) | field;
			else if (in->dst_unused == 1) {
				res = field;
				if ((v >> (bits - 1)) & 1) res |= ~((1u << (sh + bits)) - 1) & (sh + bits < 32 ? 0xffffffffu : 0);
			} else res = field;
		}
		w->v[d->reg][l] = res;
	}
	return r;
}

/* ---- the wave loop ---- */
static void trace_inst(SimWave *w, const SimInst *in)
{
	char at[300];
	kernel_pc(w, at, sizeof at);
	fprintf(stderr, "[wg %u,%u,%u w%d] %s exec=%0*llx: %s\n", w->wg->id[0], w->wg->id[1], w->wg->id[2],
	        w->id, at, w->lanes / 4, (unsigned long long)sim_exec(w), in->text);
}

/* Run w until barrier, end or fault. Returns SIM_BARRIER, SIM_END or SIM_FAULT. */
static int run_wave(SimWave *w)
{
	SimRun *run = w->run;
	int trace = run->trace;
	for (;;) {
		SimInst *in = fetch(w);
		if (!in) return SIM_FAULT;
		if (in->op == SIM_OPC_UNSUPPORTED) {
			char enc[48]; int n = 0;
			for (int i = 0; i < in->size / 4 && i < 4; i++)
				n += snprintf(enc + n, sizeof enc - (size_t)n, i ? "%08x" : "0x%08x", in->raw[i]);
			char at[300];
			kernel_pc(w, at, sizeof at);
			return sim_fault(w, "unsupported instruction %s (encoding %s) at %s: '%s'", in->mnem, enc, at, in->text);
		}
		if (trace && (trace > 1 || (w->id == 0 && w->wg->id[0] == 0 && w->wg->id[1] == 0 && w->wg->id[2] == 0)))
			trace_inst(w, in);
		if (++w->steps > w->quota) {
			if (w->steps <= run->step_limit) { w->steps--; return SIM_YIELD; }   /* its slice is used up */
			uint64_t left = run->nwg - run->next_wg;   /* read racily: a count for the message only */
			return sim_fault(w, "timeout: wave executed more than %llu instructions (a runaway kernel%s?)%s",
			                 (unsigned long long)run->step_limit, left ? ", or one waiting for a workgroup not yet started" : "",
			                 left ? " (workgroups not yet started; see \"Forward progress\" in docs/simulator.md)" : "");
		}
		w->lane_insts += (in->flags & SIM_F_SCALAR) ? 1 : (uint64_t)__builtin_popcountll(sim_exec(w));
		int r;
		SimInst idx;
		if (w->gpr_idx_on && in->mnem[0] == 'v' && !(in->flags & SIM_F_SCALAR)) {
			/* VGPR indexing: offset the selected operands by M0[7:0] */
			uint32_t m0 = w->s[SIM_M0], mode = (m0 >> 12) & 15;
			idx = *in;
			for (int i = 0; i < idx.nops && i < 4; i++) {
				int bit = i == 0 ? 3 : i - 1;
				if (((mode >> bit) & 1) && idx.o[i].kind == SIM_OPK_VGPR) idx.o[i].reg = (uint16_t)(idx.o[i].reg + (m0 & 0xff));
				if (idx.o[i].kind == SIM_OPK_VGPR && idx.o[i].reg + idx.o[i].nregs > SIM_NVREG)
					return sim_fault(w, "VGPR index out of range in '%s' (M0 = 0x%x)", in->text, m0);
			}
			in = &idx;
		}
		if (in->enc == SIM_ENC_DPP) r = run_dpp(w, in, (in->flags & SIM_F_2DST) ? 2 : 1);
		else if (in->enc == SIM_ENC_SDWA) r = run_sdwa(w, in, (in->flags & SIM_F_2DST) ? 2 : 1);
		else r = sim_op_handlers[in->op](w, in);
		if (w->tm && r != SIM_FAULT) sim_tm_record(w, in, r);
		switch (r) {
		case SIM_NEXT: w->pc += in->size; break;
		case SIM_JUMP: break;
		case SIM_BARRIER: w->pc += in->size; return SIM_BARRIER;
		case SIM_END: return SIM_END;
		default: return SIM_FAULT;
		}
	}
}

static uint32_t mode_from_rsrc1(uint32_t rsrc1)
{
	uint32_t round = (rsrc1 >> 12) & 0xf, denorm = (rsrc1 >> 16) & 0xf;
	return round | denorm << 4 | ((rsrc1 >> 21) & 1) << 8 | ((rsrc1 >> 23) & 1) << 9;
}

static void init_wave(SimRun *r, SimWG *g, SimWave *w, int wid)
{
	const CoKernelDesc *kd = &r->k->kd;
	uint32_t bx = r->block[0], by = r->block[1];
	uint32_t nthreads = r->block[0] * r->block[1] * r->block[2];
	memset(w->s, 0, sizeof w->s);
	w->scc = 0; w->pc = r->k->entry_addr; w->id = wid; w->state = 0; w->steps = 0; w->lane_insts = 0;
	w->wg = g; w->run = r; w->mode = r->mode; w->gpr_idx_on = 0; w->code_va = r->code->va; w->code_size = r->code->size; w->trapsts = 0; w->lastalloc = 0;
	w->arch = r->arch; w->lanes = r->lanes; w->lanemask = r->lanes == 64 ? ~0ull : (1ull << r->lanes) - 1;
	uint64_t exec = 0;
	for (int l = 0; l < 64; l++) {
		uint32_t t = (uint32_t)wid * (uint32_t)w->lanes + (uint32_t)l;
		if (l >= w->lanes) { w->v[0][l] = 0; continue; }
		if (t >= nthreads) { w->v[0][l] = 0; continue; }
		uint32_t x = t % bx, y = (t / bx) % by, z = t / (bx * by);
		w->v[0][l] = x | y << 10 | z << 20;
		/* also the unpacked forms, harmless if the kernel uses packed ids */
		exec |= 1ull << l;
	}
	w->init_exec = exec;
	sim_set_exec(w, exec);
	unsigned s = 0;
	if (kd->kernel_code_properties & 1) s += 4;   /* private segment buffer (not used with flat scratch) */
	if (kd->has_dispatch_ptr) { w->s[s] = (uint32_t)r->dispatch_va; w->s[s + 1] = (uint32_t)(r->dispatch_va >> 32); s += 2; }
	if (kd->has_queue_ptr) { w->s[s] = (uint32_t)r->queue_va; w->s[s + 1] = (uint32_t)(r->queue_va >> 32); s += 2; }
	if (kd->has_kernarg_ptr) { w->s[s] = (uint32_t)r->kernarg_va; w->s[s + 1] = (uint32_t)(r->kernarg_va >> 32); s += 2; }
	if (kd->has_dispatch_id) { s += 2; }
	if (kd->kernel_code_properties & 0x20) s += 2; /* flat scratch init */
	if (kd->has_private_segment_size) { w->s[s++] = r->scratch_size; }
	if (kd->preload_dwords) {
		for (unsigned i = 0; i < kd->preload_dwords && s < 102; i++, s++) {
			uint32_t v = 0;
			sim_read(r->d, r->kernarg_va + kd->preload_offset * 4 + i * 4, &v, 4);
			w->s[s] = v;
		}
	}
	s = kd->user_sgpr_count;
	if (r->arch->ttmp_wgid) {
		/* GFX12 architected SGPRs: the ids are in TTMP9 and TTMP7, not in system SGPRs */
		w->s[SIM_TTMP0 + 9] = g->id[0];
		w->s[SIM_TTMP0 + 7] = (g->id[1] & 0xffff) | g->id[2] << 16;
	} else
		for (int i = 0; i < 3; i++) if (kd->enable_wgid[i]) w->s[s++] = g->id[i];
	if (kd->enable_wg_info) w->s[s++] = 0;
	if (kd->enable_private_segment) w->s[s++] = 0;  /* private segment wave offset */
}

/* ---- workgroups ----
 * Forward progress. A host thread keeps up to MAX_RESIDENT workgroups in
 * flight and gives each wave at most SLICE instructions per turn, round robin
 * over the waves of a workgroup and over the resident workgroups. A workgroup
 * that finishes within its slices runs alone, as before (one at a time, in
 * linear order); once a resident workgroup has used a whole slice (it runs
 * long, or spins waiting for memory another workgroup writes), the thread
 * starts the next workgroups beside it, up to MAX_RESIDENT. So a wave that
 * waits for another wave of its workgroup, or for a workgroup at most
 * MAX_RESIDENT - 1 later in launch order (per host thread), gets there; one
 * that waits for a workgroup further on spins to the step limit, and the
 * timeout message says how many workgroups had not started. */
enum { MAX_RESIDENT = 8 };
#define SLICE 1000000ull

typedef struct {
	SimWave *waves[MAX_WAVES];
	SimWG g;
	uint8_t *lds;
	uint8_t *scratch;
	uint32_t *race;
	uint64_t lin;
	int busy;
} Slot;

typedef struct {
	SimRun *r;
	Slot slot[MAX_RESIDENT];
	int nslots;          /* slots with storage */
	uint64_t wave_insts, lane_insts;
} Worker;

static void start_workgroup(Worker *wk, Slot *sl, uint64_t lin)
{
	SimRun *r = wk->r;
	SimWG *g = &sl->g;
	sl->lin = lin; sl->busy = 1;
	g->id[0] = (uint32_t)(lin % r->grid[0]);
	g->id[1] = (uint32_t)((lin / r->grid[0]) % r->grid[1]);
	g->id[2] = (uint32_t)(lin / ((uint64_t)r->grid[0] * r->grid[1]));
	g->lds = sl->lds; g->lds_size = r->lds_size; g->nwaves = r->nwaves; g->waves = sl->waves;
	g->race = sl->race; g->epoch = 1;
	memset(sl->lds, 0, r->lds_size ? r->lds_size : 1);
	if (sl->race) memset(sl->race, 0, (size_t)(r->lds_size / 4 + 1) * 12);
	size_t scr = (size_t)r->scratch_size * 64;   /* storage for 64 lanes, whatever the wave size */
	for (int i = 0; i < r->nwaves; i++) {
		SimWave *w = sl->waves[i];
		init_wave(r, g, w, i);
		w->tm = r->tm ? sim_tm_wave(r->tm, lin, i) : NULL;
		w->scratch = sl->scratch + scr * (size_t)i;
		w->scratch_size = r->scratch_size;
		if (scr) memset(w->scratch, 0, scr);
	}
}

/* One turn of a resident workgroup: its waves run (releasing barriers) until
 * the workgroup ends (1), faults (-1), or a wave used up its slice (0). */
static int turn_workgroup(Worker *wk, Slot *sl)
{
	SimRun *r = wk->r;
	int rc = 0, yielded = 0;
	while (!yielded) {
		int live = 0, waiting = 0;
		for (int i = 0; i < r->nwaves; i++) {
			SimWave *w = sl->waves[i];
			if (w->state != 0) continue;
			w->quota = w->steps + SLICE < r->step_limit ? w->steps + SLICE : r->step_limit;
			int x = run_wave(w);
			if (x == SIM_FAULT) { rc = -1; goto out; }
			if (x == SIM_YIELD) { yielded = 1; continue; }
			w->state = x == SIM_BARRIER ? 1 : 2;
		}
		for (int i = 0; i < r->nwaves; i++) {
			if (sl->waves[i]->state != 2) live++;
			if (sl->waves[i]->state == 1) waiting++;
		}
		if (!live) { rc = 1; break; }
		if (waiting == live) {
			for (int i = 0; i < r->nwaves; i++) if (sl->waves[i]->state == 1) sl->waves[i]->state = 0;
			sl->g.epoch++;
		}
	}
	if (rc == 0) return 0;
out:
	for (int i = 0; i < r->nwaves; i++) {
		wk->wave_insts += sl->waves[i]->steps;
		wk->lane_insts += sl->waves[i]->lane_insts;
	}
	sl->busy = 0;
	return rc;
}

static int slot_init(Slot *sl, const SimRun *r)
{
	for (int i = 0; i < r->nwaves; i++) if (!(sl->waves[i] = calloc(1, sizeof(SimWave)))) return -1;
	sl->lds = calloc(1, r->lds_size ? r->lds_size : 1);
	sl->scratch = calloc(1, (size_t)r->scratch_size * 64 * (size_t)r->nwaves + 1);
	if (r->racecheck) sl->race = calloc((size_t)(r->lds_size / 4 + 1), 12);
	if (!sl->lds || !sl->scratch || (r->racecheck && !sl->race)) return -1;
	return 0;
}
static void slot_free(Slot *sl)
{
	for (int i = 0; i < MAX_WAVES; i++) free(sl->waves[i]);
	free(sl->lds); free(sl->scratch); free(sl->race);
}

static void *worker_main(void *arg)
{
	Worker *wk = arg;
	SimRun *r = wk->r;
	int nbusy = 0, yielded = 0, more = 1;
	for (;;) {
		/* admit workgroups: one when none is resident; more beside a workgroup that used a slice */
		while (more && (nbusy == 0 || (yielded && nbusy < MAX_RESIDENT))) {
			int k = 0;
			while (k < MAX_RESIDENT && wk->slot[k].busy) k++;
			if (k == wk->nslots && slot_init(&wk->slot[k], r)) {   /* no memory for another: go on with those resident */
				slot_free(&wk->slot[k]); memset(&wk->slot[k], 0, sizeof wk->slot[k]);
				break;                                          /* (k == nslots: all are busy, so nbusy > 0) */
			}
			if (k == wk->nslots) wk->nslots++;
			pthread_mutex_lock(&r->lock);
			uint64_t idx = r->next_wg, lin = idx < r->nrun && r->list ? r->list[idx] : idx;
			int stop = idx >= r->nrun || (r->failed && lin > r->fail_wg);
			if (!stop) r->next_wg++;
			pthread_mutex_unlock(&r->lock);
			if (stop) { more = 0; break; }
			start_workgroup(wk, &wk->slot[k], lin);
			nbusy++;
		}
		if (!nbusy) break;
		yielded = 0;
		for (int k = 0; k < wk->nslots; k++) {
			Slot *sl = &wk->slot[k];
			if (!sl->busy) continue;
			pthread_mutex_lock(&r->lock);
			int abandon = r->failed && sl->lin > r->fail_wg;   /* a fault earlier in launch order wins */
			pthread_mutex_unlock(&r->lock);
			int x = abandon ? -1 : turn_workgroup(wk, sl);
			if (abandon) sl->busy = 0;
			if (x == 0) yielded = 1; else nbusy--;
		}
	}
	return NULL;
}

static void worker_free(Worker *wk)
{
	for (int k = 0; k < wk->nslots; k++) slot_free(&wk->slot[k]);
}

static int worker_init(Worker *wk, SimRun *r)
{
	memset(wk, 0, sizeof *wk);
	wk->r = r;
	wk->nslots = 1;
	return slot_init(&wk->slot[0], r);
}

/* The allocation holding va, for the timing model's footprint. */
static int alloc_of(void *ctx, uint64_t va, uint64_t *base, uint64_t *size)
{
	SimDevice *d = ctx;
	int i = find_alloc(d, va);
	if (i < 0) return -1;
	*base = d->allocs[i].va; *size = d->allocs[i].size;
	return 0;
}

/* Fill the hidden arguments the metadata asks for. */
static void fill_hidden(SimRun *r, uint8_t *ka, size_t kasize)
{
	const CoKernel *k = r->k;
	for (int i = 0; i < k->nargs; i++) {
		const CoArg *a = &k->args[i];
		if (a->kind != CO_ARG_HIDDEN || a->offset + a->size > kasize) continue;
		const char *v = a->value_kind + 7; /* after "hidden_" */
		uint64_t val = 0;
		int dims = r->grid[2] > 1 || r->block[2] > 1 ? 3 : r->grid[1] > 1 || r->block[1] > 1 ? 2 : 1;
		if (!strncmp(v, "block_count_", 12)) val = r->grid[v[12] - 'x'];
		else if (!strncmp(v, "group_size_", 11)) val = r->block[v[11] - 'x'];
		else if (!strncmp(v, "remainder_", 10)) val = 0;
		else if (!strcmp(v, "grid_dims")) val = (uint64_t)dims;
		else if (!strcmp(v, "queue_ptr")) val = r->queue_va;
		else if (!strcmp(v, "private_base")) val = SIM_PRIVATE_APERTURE >> 32;
		else if (!strcmp(v, "shared_base")) val = SIM_SHARED_APERTURE >> 32;
		else val = 0;   /* global offsets, hostcall/printf buffers, heap, queues, completion action */
		memcpy(ka + a->offset, &val, a->size < 8 ? a->size : 8);
	}
}

int sim_launch(SimDevice *d, const CoObject *co, const CoKernel *k,
               const uint32_t grid[3], const uint32_t block[3],
               const void *kernarg, size_t kernarg_size, char *err, size_t errlen)
{
	if (!errlen) err = NULL;
	char dummy[8];
	if (!err) { err = dummy; errlen = sizeof dummy; }
	err[0] = 0;
	if (!d || !co || !k || !grid || !block || (kernarg_size && !kernarg)) { snprintf(err, errlen, "bad launch: null argument"); return -1; }
	uint64_t nthreads = (uint64_t)block[0] * block[1] * block[2];
	if (!grid[0] || !grid[1] || !grid[2] || !nthreads) { snprintf(err, errlen, "bad launch: empty grid or block"); return -1; }
	if (nthreads > 1024 || (k->max_flat_workgroup_size && nthreads > k->max_flat_workgroup_size)) {
		snprintf(err, errlen, "bad launch: workgroup of %llu work-items exceeds the kernel's maximum %u",
		         (unsigned long long)nthreads, k->max_flat_workgroup_size ? k->max_flat_workgroup_size : 1024);
		return -1;
	}
	if (k->reqd_workgroup_size[0] && (block[0] != k->reqd_workgroup_size[0] || block[1] != k->reqd_workgroup_size[1] ||
	                                  block[2] != k->reqd_workgroup_size[2])) {
		snprintf(err, errlen, "bad launch: kernel %s requires workgroups of %u,%u,%u work-items, not %u,%u,%u", k->name,
		         k->reqd_workgroup_size[0], k->reqd_workgroup_size[1], k->reqd_workgroup_size[2], block[0], block[1], block[2]);
		return -1;
	}
	/* the architecture comes from the code object (e_flags), the wave size from
	 * the kernel descriptor's WAVEFRONT_SIZE32 bit */
	const SimArch *arch = sim_arch_find(co->processor[0] ? co->processor : "gfx950");
	if (!arch) {
		snprintf(err, errlen, "bad launch: code object is for %s; the simulator models gfx950 and gfx1201", co->processor); return -1;
	}
	int lanes = k->kd.wave32 ? 32 : 64;
	if (k->wavefront_size && k->wavefront_size != (uint32_t)lanes) {
		snprintf(err, errlen, "bad launch: kernel %s: the metadata's wavefront size %u disagrees with the kernel descriptor (wave%d)",
		         k->name, k->wavefront_size, lanes); return -1;
	}
	if (lanes == 64 && !arch->wave64_ok) {
		snprintf(err, errlen, "bad launch: kernel %s is wave64; the simulator runs %s code in wave32 only", k->name, arch->name); return -1;
	}
	if (lanes == 32 && arch->wave_lanes != 32) {
		snprintf(err, errlen, "bad launch: kernel %s is wave32; %s runs wave64", k->name, arch->name); return -1;
	}
	if (d->arch && d->arch != arch) {
		snprintf(err, errlen, "bad launch: code object is for %s, the device is %s", arch->name, d->arch->name); return -1;
	}
	if (k->entry_addr >= co->image_size) { snprintf(err, errlen, "bad launch: kernel %s has no code in the image", k->name); return -1; }
	uint32_t lds = k->kd.group_segment_fixed_size > k->group_segment_fixed_size ? k->kd.group_segment_fixed_size : k->group_segment_fixed_size;
	if (lds > arch->lds_max) { snprintf(err, errlen, "bad launch: kernel %s needs %u bytes of LDS, %s has %u", k->name, lds, arch->name, arch->lds_max); return -1; }
	/* explicit argument bytes = up to the first hidden argument */
	uint32_t explicit_end = 0, segsize = k->kernarg_segment_size;
	if (k->kd.kernarg_size > segsize) segsize = k->kd.kernarg_size;
	for (int i = 0; i < k->nargs; i++)
		if (k->args[i].kind != CO_ARG_HIDDEN && k->args[i].offset + k->args[i].size > explicit_end)
			explicit_end = k->args[i].offset + k->args[i].size;
	if (kernarg_size > segsize && kernarg_size > explicit_end) {
		snprintf(err, errlen, "bad launch: %zu bytes of kernel arguments, kernel %s takes %u", kernarg_size, k->name, segsize);
		return -1;
	}
	if (kernarg_size < explicit_end) {
		snprintf(err, errlen, "bad launch: %zu bytes of kernel arguments, kernel %s needs %u", kernarg_size, k->name, explicit_end);
		return -1;
	}
	SimRun r;
	memset(&r, 0, sizeof r);
	r.d = d; r.co = co; r.k = k;
	memcpy(r.grid, grid, sizeof r.grid); memcpy(r.block, block, sizeof r.block);
	r.arch = arch; r.lanes = lanes;
	r.nwaves = (int)((nthreads + (uint64_t)lanes - 1) / (uint64_t)lanes);
	r.lds_size = lds;
	r.scratch_size = (k->kd.private_segment_fixed_size > k->private_segment_fixed_size ? k->kd.private_segment_fixed_size : k->private_segment_fixed_size);
	if (k->uses_dynamic_stack) r.scratch_size += 16384;
	r.scratch_size = (r.scratch_size + 15) & ~15u;
	r.mode = mode_from_rsrc1(k->kd.pgm_rsrc1);
	r.trace = d->cfg.trace; r.racecheck = d->cfg.racecheck;
	r.step_limit = STEP_LIMIT;
	{   /* FLYC_SIM_STEP_LIMIT overrides the per-wave instruction limit */
		const char *e = getenv("FLYC_SIM_STEP_LIMIT");
		if (e && strtoull(e, NULL, 0) > 0) r.step_limit = strtoull(e, NULL, 0);
	}
	r.nwg = (uint64_t)grid[0] * grid[1] * grid[2];
	r.nrun = r.nwg;
	d->have_timing = 0;
	if (d->timing) {
		r.tm = sim_tm_begin(&d->tcfg, arch, k, r.nwg, r.nwaves, lds, lanes, err, errlen);
		if (!r.tm) return -1;
		if (d->tcfg.timing_only) r.list = sim_tm_samples(r.tm, &r.nrun);
	}
	pthread_mutex_init(&r.lock, NULL);
	r.code = get_code(d, co, arch, err, errlen);
	int rc = -1;
	size_t kasize = segsize > kernarg_size ? segsize : kernarg_size;
	kasize = (kasize + 255) & ~(size_t)255;
	uint8_t *ka = calloc(1, kasize);
	if (!r.code || !ka) { if (!r.code) goto done0; snprintf(err, errlen, "out of memory"); goto done0; }
	r.kernarg_va = alloc_internal(d, kasize, 2);
	r.dispatch_va = alloc_internal(d, 64, 2);
	r.queue_va = alloc_internal(d, 256, 2);
	if (!r.kernarg_va || !r.dispatch_va || !r.queue_va) { snprintf(err, errlen, "out of memory"); goto done; }
	if (kernarg_size) memcpy(ka, kernarg, kernarg_size);
	fill_hidden(&r, ka, kasize);
	sim_write(d, r.kernarg_va, ka, kasize);
	{
		uint8_t pk[64] = { 0 };
		uint16_t setup = (uint16_t)(r.grid[2] > 1 || block[2] > 1 ? 3 : r.grid[1] > 1 || block[1] > 1 ? 2 : 1);
		uint32_t gs[3] = { grid[0] * block[0], grid[1] * block[1], grid[2] * block[2] };
		memcpy(pk + 2, &setup, 2);
		for (int i = 0; i < 3; i++) { uint16_t b = (uint16_t)block[i]; memcpy(pk + 4 + 2 * i, &b, 2); memcpy(pk + 12 + 4 * i, &gs[i], 4); }
		memcpy(pk + 24, &r.scratch_size, 4); memcpy(pk + 28, &lds, 4);
		memcpy(pk + 32, &k->kd_addr, 8); memcpy(pk + 40, &r.kernarg_va, 8);
		sim_write(d, r.dispatch_va, pk, 64);
	}
	{
		int nt = d->cfg.nthreads;
		if ((uint64_t)nt > r.nrun) nt = (int)r.nrun;
		Worker *wk = calloc((size_t)nt, sizeof *wk);
		pthread_t *th = calloc((size_t)nt, sizeof *th);
		int ok = wk && th;
		for (int i = 0; ok && i < nt; i++) if (worker_init(&wk[i], &r)) ok = 0;
		if (!ok) snprintf(err, errlen, "out of memory for %d waves", r.nwaves);
		else if (nt == 1) worker_main(&wk[0]);
		else {
			int started = 0;
			for (int i = 1; i < nt; i++) if (!pthread_create(&th[i], NULL, worker_main, &wk[i])) started |= 0, th[i] = th[i]; else wk[i].r = NULL;
			worker_main(&wk[0]);
			for (int i = 1; i < nt; i++) if (wk[i].r) pthread_join(th[i], NULL);
		}
		for (int i = 0; wk && i < nt; i++) { r.wave_insts += wk[i].wave_insts; r.lane_insts += wk[i].lane_insts; worker_free(&wk[i]); }
		free(wk); free(th);
		if (ok) {
			if (r.failed) snprintf(err, errlen, "%s", r.err);
			else rc = 0;
		}
		if (rc == 0 && r.tm) {
			sim_tm_end(r.tm, alloc_of, d, &d->last_timing);
			r.tm = NULL;
			d->have_timing = 1;
		}
	}
	d->last.wave_instructions = r.wave_insts;
	d->last.lane_instructions = r.lane_insts;
done:
	/* internal per-launch allocations are released (the code image stays mapped) */
	for (int i = d->nallocs - 1; i >= 0; i--) {
		uint64_t va = d->allocs[i].va;
		if (va == r.kernarg_va || va == r.dispatch_va || va == r.queue_va) {
			free(d->allocs[i].mem);
			memmove(&d->allocs[i], &d->allocs[i + 1], (size_t)(d->nallocs - i - 1) * sizeof d->allocs[0]);
			d->nallocs--;
		}
	}
done0:
	sim_tm_free(r.tm);
	free(ka);
	pthread_mutex_destroy(&r.lock);
	return rc;
}
