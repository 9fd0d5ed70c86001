/* emit.c — the back half of flyc: see emit.h for the pipeline. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "emit.h"
#include "fileio.h"
#include "ir_banks.h"
#include "lower_llvm.h"
#include "target/target.h"

extern char **environ;

#ifndef FLY_LLVM_BINDIR
#define FLY_LLVM_BINDIR ""
#endif

static void
errl(IrDiag *d, const char *fmt, const char *a, const char *b)
{
	ir_error(d, (IrLoc){ 0 }, fmt, a ? a : "", b ? b : "");
}

/* ---- byte buffers and files ---- */

typedef struct { uint8_t *p; size_t n, cap; } Buf;

static void
buf_add(Buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		while (c < b->n + n)
			c *= 2;
		b->p = realloc(b->p, c);
		if (!b->p)
			IR_ICE("out of memory");
		b->cap = c;
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void buf_str(Buf *b, const char *s) { buf_add(b, s, strlen(s)); }

static int
read_file(const char *path, Buf *out)
{
	size_t n;
	char *p = fio_read_file(path, (size_t)1 << 30, &n);

	if (!p)
		return -1;
	buf_add(out, p, n);
	free(p);
	return 0;
}

/* Writes all bytes to path ("-" = stdout) atomically: see runtime/fileio.h. */
static int
write_output(const char *path, const void *p, size_t n, IrDiag *d)
{
	char err[512];

	if (fio_write_file(path, p, n, err, sizeof err) != 0) {
		errl(d, "%s%s", err, NULL);
		return 1;
	}
	return 0;
}

/* ---- names ---- */

static const char *
ext_of(EmitKind k)
{
	switch (k) {
	case EMIT_IR: return ".ir";
	case EMIT_BANKS: return ".banks";
	case EMIT_LLVM: return ".ll";
	case EMIT_LLVM_BC: return ".bc";
	case EMIT_ASM: return ".s";
	case EMIT_OBJ: return ".o";
	default: return ".hsaco";
	}
}

/* basename of input without .fly (or "out" for stdin) */
static char *
stem_of(const char *input)
{
	const char *b, *dot;
	char *s;

	if (!input || !strcmp(input, "-"))
		return strdup("out");
	b = strrchr(input, '/');
	b = b ? b + 1 : input;
	dot = strrchr(b, '.');
	s = strndup(b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
	if (!s)
		IR_ICE("out of memory");
	return s;
}

/* path with "-ARCH" inserted before the extension */
static char *
per_arch_name(const char *path, const char *arch)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	size_t n = strlen(path) + strlen(arch) + 2;
	char *s = malloc(n);

	if (!s)
		IR_ICE("out of memory");
	if (dot && (!slash || dot > slash + 1))
		snprintf(s, n, "%.*s-%s%s", (int)(dot - path), path, arch, dot);
	else
		snprintf(s, n, "%s-%s", path, arch);
	return s;
}

/* ---- ld.lld ---- */

static int
executable(const char *p)
{
	return access(p, X_OK) == 0;
}

char *
emit_find_lld(const char *explicit_path)
{
	const char *names[] = { "ld.lld-22", "ld.lld" };
	char buf[4096];
	const char *path;

	if (explicit_path)
		return executable(explicit_path) ? strdup(explicit_path) : NULL;
	if (FLY_LLVM_BINDIR[0]) {
		snprintf(buf, sizeof buf, "%s/ld.lld", FLY_LLVM_BINDIR);
		if (executable(buf))
			return strdup(buf);
	}
	path = getenv("PATH");
	for (size_t i = 0; i < 2 && path; i++) {
		const char *p = path;
		while (*p) {
			size_t len = strcspn(p, ":");
			if (len) {
				snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, names[i]);
				if (executable(buf))
					return strdup(buf);
			}
			p += len;
			if (*p == ':')
				p++;
		}
	}
	return NULL;
}

static int
make_temp(char *path, size_t n, const char *tag)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, n, "%s/flyc-%s-XXXXXX", dir && *dir ? dir : "/tmp", tag);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Links object bytes into a code object with ld.lld -shared. */
static int
link_object(const EmitOptions *o, const Buf *obj, Buf *out, IrDiag *d)
{
	char in[4096], res[4096];
	char *lld = emit_find_lld(o->ld_lld);
	int rc = 1, status = 0;
	pid_t pid;
	FILE *f;

	if (!lld) {
		if (o->ld_lld)
			errl(d, "cannot run the linker '%s'%s: not an executable file", o->ld_lld, "");
		else
			errl(d, "cannot find ld.lld (looked for %s/ld.lld, then ld.lld-22 and ld.lld on PATH)%s; "
			        "install lld-22 or pass --ld-path=PATH", FLY_LLVM_BINDIR, "");
		return 1;
	}
	if (make_temp(in, sizeof in, "obj") || make_temp(res, sizeof res, "co")) {
		errl(d, "cannot create a temporary file: %s%s", strerror(errno), "");
		free(lld);
		return 1;
	}
	f = fopen(in, "wb");
	if (!f || fwrite(obj->p, 1, obj->n, f) != obj->n) {
		errl(d, "cannot write temporary file '%s'%s", in, "");
		if (f)
			fclose(f);
		goto out;
	}
	fclose(f);
	{
		char *argv[] = { lld, "-shared", "--no-undefined", "--build-id=none", "-o", res, in, NULL };
		if (posix_spawn(&pid, lld, NULL, NULL, argv, environ) != 0) {
			errl(d, "cannot run the linker '%s': %s", lld, strerror(errno));
			goto out;
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			errl(d, "the linker '%s' failed%s (see its message above)", lld, "");
			goto out;
		}
	}
	if (read_file(res, out)) {
		errl(d, "cannot read the linked code object '%s'%s", res, "");
		goto out;
	}
	rc = 0;
out:
	unlink(in);
	unlink(res);
	free(lld);
	return rc;
}

/* ---- offload bundle ---- */

static void
put64(Buf *b, uint64_t v)
{
	uint8_t x[8];
	for (int i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	buf_add(b, x, 8);
}

uint8_t *
emit_bundle(int n, const char *const *archs, const uint8_t *const *objs, const size_t *sizes,
            size_t *out_size)
{
	static const char HOST[] = "host-x86_64-unknown-linux-gnu-";
	const uint64_t ALIGN = 4096;
	Buf b = { 0 };
	char id[128];
	uint64_t hdr, off;

	/* header size: magic, count, then per entry 3 u64 + id */
	hdr = 24 + 8 + 24 + (sizeof HOST - 1);
	for (int i = 0; i < n; i++)
		hdr += 24 + (uint64_t)snprintf(id, sizeof id, "hipv4-amdgcn-amd-amdhsa--%s", archs[i]);
	buf_add(&b, "__CLANG_OFFLOAD_BUNDLE__", 24);
	put64(&b, (uint64_t)n + 1);
	/* the host entry is empty but, as clang-offload-bundler does, gets an
	 * aligned offset of its own (the first device entry shares it) */
	off = (hdr + ALIGN - 1) / ALIGN * ALIGN;
	put64(&b, off);
	put64(&b, 0);
	put64(&b, sizeof HOST - 1);
	buf_add(&b, HOST, sizeof HOST - 1);
	{
		uint64_t o2 = off;
		for (int i = 0; i < n; i++) {
			int len = snprintf(id, sizeof id, "hipv4-amdgcn-amd-amdhsa--%s", archs[i]);
			o2 = (o2 + ALIGN - 1) / ALIGN * ALIGN;
			put64(&b, o2);
			put64(&b, sizes[i]);
			put64(&b, (uint64_t)len);
			buf_add(&b, id, (size_t)len);
			o2 += sizes[i];
		}
	}
	for (int i = 0; i < n; i++) {
		uint64_t at = (b.n + ALIGN - 1) / ALIGN * ALIGN;
		while (b.n < at)
			buf_add(&b, "", 1);
		buf_add(&b, objs[i], sizes[i]);
	}
	if (b.n < off) {   /* only when every device image is empty */
		while (b.n < off)
			buf_add(&b, "", 1);
	}
	*out_size = b.n;
	return b.p;
}

/* ---- LLVM ---- */

static int llvm_ready;

/* LLVM's fatal errors end the process (LLVM's own choice); say clearly who failed. */
static void
llvm_fatal(const char *reason)
{
	fprintf(stderr, "flyc: internal compiler error in LLVM: %s\n", reason);
}

static void
init_llvm(const EmitOptions *o)
{
	if (llvm_ready)
		return;
	LLVMInitializeAMDGPUTargetInfo();
	LLVMInitializeAMDGPUTarget();
	LLVMInitializeAMDGPUTargetMC();
	LLVMInitializeAMDGPUAsmPrinter();
	LLVMInitializeAMDGPUAsmParser();
	LLVMInstallFatalErrorHandler(llvm_fatal);
	if (o->nmllvm > 0) {
		const char **argv = calloc((size_t)o->nmllvm + 2, sizeof *argv);
		if (!argv)
			IR_ICE("out of memory");
		argv[0] = "flyc";
		for (int i = 0; i < o->nmllvm; i++)
			argv[i + 1] = o->mllvm[i];
		LLVMParseCommandLineOptions(o->nmllvm + 1, argv, "flyc -mllvm options\n");
		free(argv);
	}
	llvm_ready = 1;
}

static LLVMCodeGenOptLevel
cg_level(int o)
{
	return o <= 0 ? LLVMCodeGenLevelNone : o == 1 ? LLVMCodeGenLevelLess
	     : o == 2 ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelAggressive;
}

static void
save_temp(const EmitOptions *o, const char *stem, const char *arch, const char *ext,
          const void *p, size_t n, IrDiag *d)
{
	char name[1024];

	if (!o->save_temps)
		return;
	snprintf(name, sizeof name, "%s-%s%s", stem, arch, ext);
	write_output(name, p, n, d);
}

static void
module_text(LLVMModuleRef mod, Buf *out)
{
	char *s = LLVMPrintModuleToString(mod);
	buf_str(out, s);
	LLVMDisposeMessage(s);
}

static void
ir_text(IrModule *m, Buf *out)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	if (!f)
		IR_ICE("out of memory");
	ir_print_module(f, m);
	fclose(f);
	buf_add(out, p, n);
	free(p);
}

/* Whether f is for arch (its targets(...) list names it, or it has none). */
static int
func_for_arch(const IrFunc *f, const char *arch)
{
	size_t n = strlen(arch);

	if (!f->archs)
		return 1;
	for (const char *p = f->archs; *p; ) {
		size_t w = strcspn(p, " ");
		if (w == n && !strncmp(p, arch, n))
			return 1;
		p += w;
		p += strspn(p, " ");
	}
	return 0;
}

/* the LDS bank report of m's kernels for t into out */
static int
banks_text(IrModule *m, const TgtDesc *t, const EmitOptions *o, Buf *out, IrDiag *d)
{
	IrBanksOpts none = { 0 };
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	int rc;

	if (!f)
		IR_ICE("out of memory");
	rc = ir_banks_report(m, t, o->banks ? o->banks : &none, f, d);
	fclose(f);
	buf_add(out, p, n);
	free(p);
	return rc;
}

/* ---- resource usage report ---- */

static void
report_usage(const EmitOptions *o, const char *arch, const Buf *co, FILE *rep, int *first_json,
             IrDiag *d)
{
	EmitUsage u[64];
	char err[256];
	int n = emit_usage(co->p, co->n, arch, u, 64, err, sizeof err);

	if (n < 0) {
		errl(d, "--resource-usage: %s%s", err, "");
		return;
	}
	for (int i = 0; i < n; i++) {
		if (o->resource_json) {
			fprintf(rep, "%s\n  {\"kernel\": \"%s\", \"arch\": \"%s\", \"vgprs\": %u, \"agprs\": %u, "
			        "\"sgprs\": %u, \"scratch_bytes\": %u, \"vgpr_spills\": %u, \"sgpr_spills\": %u, "
			        "\"lds_bytes\": %u, \"occupancy_waves_per_simd\": %u, \"block\": %u, "
			        "\"dynamic_stack\": %s}",
			        *first_json ? "" : ",", u[i].name, arch, u[i].vgprs, u[i].agprs, u[i].sgprs,
			        u[i].scratch, u[i].vgpr_spills, u[i].sgpr_spills, u[i].lds, u[i].occupancy,
			        u[i].block, u[i].dynamic_stack ? "true" : "false");
			*first_json = 0;
		} else {
			fprintf(rep, "%s [%s]: VGPRs %u, AGPRs %u, SGPRs %u, scratch %u bytes, spills %u VGPR / %u SGPR, "
			        "LDS %u bytes, occupancy %u waves/SIMD\n",
			        u[i].name, arch, u[i].vgprs, u[i].agprs, u[i].sgprs, u[i].scratch, u[i].vgpr_spills,
			        u[i].sgpr_spills, u[i].lds, u[i].occupancy);
		}
	}
}

/* ---- the back end's steps, one arch at a time (emit.h) ---- */

struct EmitJob {
	IrModule *m;
	const EmitOptions *o;
	IrDiag *d;
	int n;                              /* arches */
	const char *archs[EMIT_MAX_ARCHS];
	const TgtDesc *tg[EMIT_MAX_ARCHS];
	Buf outs[EMIT_MAX_ARCHS];
	int failed, stopped;                /* stopped: --stop-after ended an arch early */
	char *stem, *outpath;
	/* the arch in flight (emit_arch_begin .. emit_arch_end) */
	int i;
	IrFunc **all;                       /* the module's own function list while m->func is the arch's subset */
	uint32_t nall;
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMTargetMachineRef tm;
	Buf obj;                            /* the relocatable object */
};

EmitJob *
emit_begin(IrModule *m, const EmitOptions *o, IrDiag *d)
{
	EmitJob *j = calloc(1, sizeof *j);
	int n = o->narchs > 0 ? o->narchs : 1;

	if (!j)
		IR_ICE("out of memory");
	j->m = m;
	j->o = o;
	j->d = d;
	j->i = -1;
	if (n > EMIT_MAX_ARCHS) {
		errl(d, "too many --offload-arch options (at most 16)%s%s", NULL, NULL);
		free(j);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		j->archs[i] = o->narchs > 0 ? o->archs[i] : tgt_default()->name;
		j->tg[i] = tgt_find(j->archs[i]);
		if (!j->tg[i]) {
			errl(d, "unsupported --offload-arch '%s' (flyc supports %s)", j->archs[i], tgt_names());
			free(j);
			return NULL;
		}
		for (int k = 0; k < i; k++)
			if (j->tg[k] == j->tg[i]) {
				errl(d, "--offload-arch '%s' given twice%s", j->archs[i], "");
				free(j);
				return NULL;
			}
	}
	j->n = n;
	j->stem = stem_of(o->input_name);
	if (o->output) {
		j->outpath = strdup(o->output);
	} else {
		j->outpath = malloc(strlen(j->stem) + 8);
		if (j->outpath)
			sprintf(j->outpath, "%s%s", j->stem, ext_of(o->emit));
	}
	if (!j->outpath)
		IR_ICE("out of memory");
	init_llvm(o);
	return j;
}

int emit_narchs(const EmitJob *j) { return j ? j->n : 0; }

/* Arch i's kernels (targets(...)) become the module's function list. */
int
emit_arch_begin(EmitJob *j, int i)
{
	const EmitOptions *o = j->o;
	const TgtDesc *t = j->tg[i];
	IrFunc **some;
	uint32_t n = 0;

	j->i = i;
	j->all = j->m->func;
	j->nall = j->m->nfunc;
	some = calloc(j->nall ? j->nall : 1, sizeof *some);
	if (!some)
		IR_ICE("out of memory");
	for (uint32_t k = 0; k < j->nall; k++)
		if (func_for_arch(j->all[k], t->name) &&
		    !(o->emit == EMIT_BANKS && o->banks && o->banks->any_arch && !j->all[k]->archs && o->narchs > 0 &&
		      strcmp(t->name, o->archs[0])))   /* ir_banks.h: any_arch */
			some[n++] = j->all[k];
	j->m->func = some;
	j->m->nfunc = n;
	if (n == 0 && o->emit == EMIT_BANKS && o->banks && o->banks->any_arch)
		return EMIT_DONE;   /* flyc show --banks without --offload-arch: every arch that has kernels */
	if (n == 0) {
		errl(j->d, "no kernel is for --offload-arch=%s: targets(...) excludes every kernel of the file%s",
		     t->name, "");
		return EMIT_ERROR;
	}
	return EMIT_NEXT;
}

/* flyc's IR passes (ir_pass.h); the output for --emit=ir, --emit=banks, --stop-after */
int
emit_passes(EmitJob *j)
{
	const EmitOptions *o = j->o;
	const TgtDesc *t = j->tg[j->i];
	Buf tmp = { 0 };
	int rc = ir_run_passes(j->m, t, &o->passes, j->d);

	if (rc == 1)
		return EMIT_ERROR;
	if (o->save_temps) {
		ir_text(j->m, &tmp);
		save_temp(o, j->stem, t->name, ".ir", tmp.p, tmp.n, j->d);
		free(tmp.p);
	}
	if (rc == 2)
		j->stopped = 1;
	if (rc == 2 || o->emit == EMIT_IR) {
		ir_text(j->m, &j->outs[j->i]);
		return EMIT_DONE;
	}
	if (o->emit == EMIT_BANKS)
		return banks_text(j->m, t, o, &j->outs[j->i], j->d) ? EMIT_ERROR : EMIT_DONE;
	return EMIT_NEXT;
}

/* lowering to LLVM IR (lower_llvm.h), the verifier, LLVM's default<On>; the output for --emit=llvm */
int
emit_llvm(EmitJob *j)
{
	const EmitOptions *o = j->o;
	const TgtDesc *t = j->tg[j->i];
	LowerOpts lo = { o->opt_level, o->debug_info };
	LLVMTargetRef target;
	LLVMTargetDataRef dl;
	LLVMPassBuilderOptionsRef po;
	LLVMErrorRef e;
	char *msg = NULL, passes[32];
	Buf tmp = { 0 };

	if (LLVMGetTargetFromTriple("amdgcn-amd-amdhsa", &target, &msg)) {
		errl(j->d, "LLVM has no AMDGPU target: %s%s", msg, "");
		LLVMDisposeMessage(msg);
		return EMIT_ERROR;
	}
	j->tm = LLVMCreateTargetMachine(target, "amdgcn-amd-amdhsa", t->name, "", cg_level(o->opt_level),
	                                LLVMRelocPIC, LLVMCodeModelDefault);
	j->ctx = LLVMContextCreate();
	if (!(j->mod = ir_lower_llvm(j->m, j->ctx, t, &lo, j->d)))
		return EMIT_ERROR;
	dl = LLVMCreateTargetDataLayout(j->tm);
	LLVMSetModuleDataLayout(j->mod, dl);
	LLVMDisposeTargetData(dl);
	if (LLVMVerifyModule(j->mod, LLVMReturnStatusAction, &msg)) {
		errl(j->d, "internal: invalid LLVM IR produced: %s%s", msg, "");
		LLVMDisposeMessage(msg);
		return EMIT_ERROR;
	}
	LLVMDisposeMessage(msg);
	if (o->save_temps) {
		module_text(j->mod, &tmp);
		save_temp(o, j->stem, t->name, ".ll", tmp.p, tmp.n, j->d);
		tmp.n = 0;
	}
	po = LLVMCreatePassBuilderOptions();
	snprintf(passes, sizeof passes, "default<O%d>", o->opt_level < 0 ? 0 : o->opt_level > 3 ? 3 : o->opt_level);
	e = LLVMRunPasses(j->mod, passes, j->tm, po);
	LLVMDisposePassBuilderOptions(po);
	if (e) {
		char *em = LLVMGetErrorMessage(e);
		errl(j->d, "LLVM pass pipeline failed: %s%s", em, "");
		LLVMDisposeErrorMessage(em);
		free(tmp.p);
		return EMIT_ERROR;
	}
	if (o->opt_level > 0)
		lower_sched_pipelines(j->mod);
	if (o->save_temps) {
		module_text(j->mod, &tmp);
		save_temp(o, j->stem, t->name, ".opt.ll", tmp.p, tmp.n, j->d);
	}
	free(tmp.p);
	if (o->emit == EMIT_LLVM) {
		module_text(j->mod, &j->outs[j->i]);
		return EMIT_DONE;
	}
	if (o->emit == EMIT_LLVM_BC) {
		LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(j->mod);
		buf_add(&j->outs[j->i], LLVMGetBufferStart(mb), LLVMGetBufferSize(mb));
		LLVMDisposeMemoryBuffer(mb);
		return EMIT_DONE;
	}
	return EMIT_NEXT;
}

/* LLVM's AMDGPU backend: assembly and the relocatable object; the output for --emit=asm, --emit=obj */
int
emit_machine_code(EmitJob *j)
{
	const EmitOptions *o = j->o;
	const TgtDesc *t = j->tg[j->i];
	LLVMMemoryBufferRef mb;
	char *msg = NULL;

	if (o->emit == EMIT_ASM || o->save_temps) {
		/* code generation rewrites the module (control-flow structurizing
		 * inserts amdgcn.if/else), so a second emission needs a fresh copy */
		LLVMModuleRef src = o->emit == EMIT_ASM ? j->mod : LLVMCloneModule(j->mod);
		LLVMBool bad = LLVMTargetMachineEmitToMemoryBuffer(j->tm, src, LLVMAssemblyFile, &msg, &mb);
		if (src != j->mod)
			LLVMDisposeModule(src);
		if (bad) {
			errl(j->d, "AMDGPU backend failed: %s%s", msg, "");
			LLVMDisposeMessage(msg);
			return EMIT_ERROR;
		}
		if (o->emit == EMIT_ASM)
			buf_add(&j->outs[j->i], LLVMGetBufferStart(mb), LLVMGetBufferSize(mb));
		else
			save_temp(o, j->stem, t->name, ".s", LLVMGetBufferStart(mb), LLVMGetBufferSize(mb), j->d);
		LLVMDisposeMemoryBuffer(mb);
		if (o->emit == EMIT_ASM)
			return EMIT_DONE;
	}
	if (LLVMTargetMachineEmitToMemoryBuffer(j->tm, j->mod, LLVMObjectFile, &msg, &mb)) {
		errl(j->d, "AMDGPU backend failed: %s%s", msg, "");
		LLVMDisposeMessage(msg);
		return EMIT_ERROR;
	}
	j->obj.n = 0;
	buf_add(&j->obj, LLVMGetBufferStart(mb), LLVMGetBufferSize(mb));
	LLVMDisposeMemoryBuffer(mb);
	save_temp(o, j->stem, t->name, ".o", j->obj.p, j->obj.n, j->d);
	if (o->emit == EMIT_OBJ) {
		buf_add(&j->outs[j->i], j->obj.p, j->obj.n);
		return EMIT_DONE;
	}
	return EMIT_NEXT;
}

/* ld.lld -shared: the code object */
int
emit_link(EmitJob *j)
{
	if (link_object(j->o, &j->obj, &j->outs[j->i], j->d))
		return EMIT_ERROR;
	save_temp(j->o, j->stem, j->tg[j->i]->name, ".hsaco", j->outs[j->i].p, j->outs[j->i].n, j->d);
	return EMIT_DONE;
}

/* The end of arch i: LLVM's state freed, the module's own function list back. */
void
emit_arch_end(EmitJob *j, int r)
{
	if (r == EMIT_ERROR)
		j->failed = 1;
	if (j->mod)
		LLVMDisposeModule(j->mod);
	if (j->ctx)
		LLVMContextDispose(j->ctx);
	if (j->tm)
		LLVMDisposeTargetMachine(j->tm);
	j->mod = NULL;
	j->ctx = NULL;
	j->tm = NULL;
	if (j->i >= 0) {
		free(j->m->func);
		j->m->func = j->all;
		j->m->nfunc = j->nall;
	}
	j->i = -1;
}

/* Writes the output (one file, one bundle of code objects, or one file per arch)
 * and the resource report, frees the job, and returns 0 or 1. */
int
emit_finish(EmitJob *j)
{
	const EmitOptions *o;
	IrDiag *d;
	int rc, n, first_json = 1;
	FILE *rep;

	if (!j)
		return 1;
	o = j->o;
	d = j->d;
	n = j->n;
	rc = j->failed;
	rep = !strcmp(j->outpath, "-") ? stderr : stdout;
	if (!rc && o->resource_usage && !j->stopped && o->emit == EMIT_CODEOBJ) {
		if (o->resource_json)
			fprintf(rep, "[");
		for (int i = 0; i < n; i++)
			report_usage(o, j->tg[i]->name, &j->outs[i], rep, &first_json, d);
		if (o->resource_json)
			fprintf(rep, "\n]\n");
		if (d->errors)
			rc = 1;
	}
	if (!rc) {
		int binary = (o->emit == EMIT_CODEOBJ || o->emit == EMIT_OBJ || o->emit == EMIT_LLVM_BC) && !j->stopped;
		if (n == 1) {
			rc = write_output(j->outpath, j->outs[0].p, j->outs[0].n, d);
		} else if (o->emit == EMIT_CODEOBJ && !j->stopped && !o->no_bundle) {
			const uint8_t *objs[EMIT_MAX_ARCHS];
			size_t sizes[EMIT_MAX_ARCHS], bn;
			uint8_t *bundle;
			for (int i = 0; i < n; i++) {
				objs[i] = j->outs[i].p;
				sizes[i] = j->outs[i].n;
			}
			bundle = emit_bundle(n, j->archs, objs, sizes, &bn);
			if (!bundle)
				IR_ICE("out of memory");
			rc = write_output(j->outpath, bundle, bn, d);
			free(bundle);
		} else if (!strcmp(j->outpath, "-") && !binary) {
			for (int i = 0; i < n && !rc; i++) {
				if (o->emit != EMIT_BANKS)   /* its lines name the arch */
					printf("%s %s\n", o->emit == EMIT_ASM ? ";" : o->emit == EMIT_IR ? "#" : ";", j->tg[i]->name);
				rc = write_output("-", j->outs[i].p, j->outs[i].n, d);
			}
		} else if (!strcmp(j->outpath, "-")) {
			errl(d, "several code objects cannot go to standard output without a bundle%s%s", NULL, NULL);
			rc = 1;
		} else {
			for (int i = 0; i < n && !rc; i++) {
				char *p = per_arch_name(j->outpath, j->tg[i]->name);
				rc = write_output(p, j->outs[i].p, j->outs[i].n, d);
				free(p);
			}
		}
	}
	for (int i = 0; i < n; i++)
		free(j->outs[i].p);
	free(j->obj.p);
	free(j->outpath);
	free(j->stem);
	free(j);
	return rc;
}

/* The back end's steps in order, for callers that hold an IR module (cgtool);
 * flyc's driver calls the same steps itself (driver.c, drv_compile). */
int
emit_compile(IrModule *m, const EmitOptions *o, IrDiag *d)
{
	EmitJob *j = emit_begin(m, o, d);

	for (int i = 0; i < emit_narchs(j); i++) {
		int r = emit_arch_begin(j, i);
		if (r == EMIT_NEXT)
			r = emit_passes(j);
		if (r == EMIT_NEXT)
			r = emit_llvm(j);
		if (r == EMIT_NEXT)
			r = emit_machine_code(j);
		if (r == EMIT_NEXT)
			r = emit_link(j);
		emit_arch_end(j, r);
		if (r == EMIT_ERROR)
			break;
	}
	return emit_finish(j);
}
