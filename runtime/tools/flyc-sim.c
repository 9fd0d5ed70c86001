/*
 * flyc-sim — run one kernel of a gfx950 or gfx1201 code object on the simulator.
 *
 *   flyc-sim CODE_OBJECT KERNEL [--grid=GX[,GY[,GZ]]] [--block=BX[,BY[,BZ]]] ARG...
 *   flyc-sim --list-mnemonics [--arch=PROC] CODE_OBJECT
 *
 * CODE_OBJECT is an ELF or a clang offload bundle. --arch=PROC makes the
 * device that processor (a code object for another is refused) and picks the
 * bundle's PROC entry; without it the device takes the code object's own
 * arch, and a bundle must hold exactly one entry the simulator models.
 *
 * ARG: i32=V u32=V i64=V u64=V f32=V pad=N buf=SIZE[,in=FILE][,out=FILE][,fill=zero|0xNN]
 * Arguments are packed at the metadata's offsets and sizes (count and size
 * must match), or with --raw-kernarg in order at natural alignment.
 * Options: --any-grid, --arch=PROC, --threads=N, --racecheck, --trace[=2], --stats. Exit 0 on success.
 *
 * Timing (docs/simulator.md "Timing model"): --timing[=FILE] writes the
 * modelled cost of the launch on a whole device as JSON to FILE (or stdout)
 * and a summary to stderr; --device=NAME picks the device row (default: the
 * first row for the code object's arch, mi355x for gfx950, rx9070xt for
 * gfx1201), --timing-sample=N times N workgroups and extrapolates, and
 * --timing-only runs only those (out= buffers then hold partial results).
 * flyc-sim --timing-devices prints every device row's parameters.
 *
 * Before anything runs, the call goes through libflyrt's launch checks
 * (flyrt_check_launch, docs/runtime.md "Launch checks") with each buf= as a buffer of
 * known size: the block must be the kernel's block(...), the grid its formula (unless
 * --any-grid), the requires predicates must hold and every buffer must hold what the
 * declared layout reaches. --grid/--block default to the kernel's own from .flyc.meta.
 * With --raw-kernarg the arguments are not checked, only the block.
 */
/* messages are cut to their buffers on purpose */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "codeobj.h"
#include "fileio.h"
#include "flyrt_internal.h"
#include "sim/sim.h"
#include "sim/sim_int.h"

typedef struct {
	int kind;          /* 0 scalar, 1 pad, 2 buf */
	size_t size;       /* bytes in the kernarg */
	uint8_t val[8];
	uint64_t bufsize;
	const char *in, *out;
	int fill;          /* -1 zero, else byte */
	uint64_t va;
} Arg;

static int usage(void)
{
	fprintf(stderr,
	        "usage: flyc-sim CODE_OBJECT KERNEL [--grid=GX[,GY[,GZ]]] [--block=BX[,BY[,BZ]]] ARG...\n"
	        "       flyc-sim --list-mnemonics [--arch=PROC] CODE_OBJECT\n"
	        "ARG: i32=V u32=V i64=V u64=V f32=V pad=N buf=SIZE[,in=FILE][,out=FILE][,fill=zero|0xNN]\n"
	        "options: --any-grid --arch=gfx950|gfx1201 --raw-kernarg --threads=N --racecheck --trace[=2] --stats\n"
	        "         --timing[=FILE] --device=NAME --timing-sample=N --timing-only   (flyc-sim --timing-devices lists NAMEs)\n"
	        "--grid and --block default to the kernel's .flyc.meta; a block other than the kernel's\n"
	        "is refused, and a grid other than its formula's unless --any-grid\n");
	return 2;
}

static uint8_t *read_file(const char *path, size_t *size)
{
	return (uint8_t *)fio_read_file(path, (size_t)1 << 32, size);
}

static int parse_dims(const char *s, uint32_t d[3])
{
	d[0] = d[1] = d[2] = 1;
	for (int i = 0; i < 3; i++) {
		char *e;
		errno = 0;
		unsigned long v = strtoul(s, &e, 0);
		if (e == s || errno || v == 0 || v > 0xffffffffu) return -1;
		d[i] = (uint32_t)v;
		if (!*e) return 0;
		if (*e != ',' || i == 2) return -1;
		s = e + 1;
	}
	return -1;
}

static int parse_arg(const char *s, Arg *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof *a);
	a->fill = -1;
	const char *eq = strchr(s, '=');
	if (!eq) { snprintf(err, errlen, "bad argument '%s' (expected KIND=VALUE)", s); return -1; }
	size_t kl = (size_t)(eq - s);
	const char *v = eq + 1;
	char *e;
	errno = 0;
	if (kl == 3 && !strncmp(s, "i32", 3)) { long long x = strtoll(v, &e, 0); if (*e || errno || x < INT32_MIN || x > INT32_MAX) goto bad; int32_t t = (int32_t)x; memcpy(a->val, &t, 4); a->size = 4; }
	else if (kl == 3 && !strncmp(s, "u32", 3)) { unsigned long long x = strtoull(v, &e, 0); if (*e || errno || x > UINT32_MAX || *v == '-') goto bad; uint32_t t = (uint32_t)x; memcpy(a->val, &t, 4); a->size = 4; }
	else if (kl == 3 && !strncmp(s, "i64", 3)) { long long x = strtoll(v, &e, 0); if (*e || errno) goto bad; memcpy(a->val, &x, 8); a->size = 8; }
	else if (kl == 3 && !strncmp(s, "u64", 3)) { unsigned long long x = strtoull(v, &e, 0); if (*e || errno || *v == '-') goto bad; memcpy(a->val, &x, 8); a->size = 8; }
	else if (kl == 3 && !strncmp(s, "f32", 3)) { float x = strtof(v, &e); if (*e || e == v) goto bad; memcpy(a->val, &x, 4); a->size = 4; }
	else if (kl == 3 && !strncmp(s, "pad", 3)) { unsigned long long x = strtoull(v, &e, 0); if (*e || errno || x > 4096) goto bad; a->kind = 1; a->size = (size_t)x; }
	else if (kl == 3 && !strncmp(s, "buf", 3)) {
		a->kind = 2; a->size = 8;
		unsigned long long x = strtoull(v, &e, 0);
		if (e == v || errno || x > (1ull << 36)) goto bad;
		a->bufsize = x;
		while (*e == ',') {
			const char *o = e + 1;
			const char *next = strchr(o, ',');
			size_t ol = next ? (size_t)(next - o) : strlen(o);
			char opt[4096];
			if (ol >= sizeof opt) goto bad;
			memcpy(opt, o, ol); opt[ol] = 0;
			if (!strncmp(opt, "in=", 3)) a->in = o + 3;
			else if (!strncmp(opt, "out=", 4)) a->out = o + 4;
			else if (!strcmp(opt, "fill=zero")) a->fill = -1;
			else if (!strncmp(opt, "fill=", 5)) { char *fe; unsigned long b = strtoul(opt + 5, &fe, 0); if (*fe || b > 255) goto bad; a->fill = (int)b; }
			else goto bad;
			e = (char *)(next ? next : o + ol);
		}
		if (*e) goto bad;
	} else goto bad;
	return 0;
bad:
	snprintf(err, errlen, "bad argument '%s'", s);
	return -1;
}

/* in=/out= paths end at the next ',' */
static char *dup_path(const char *p)
{
	size_t n = strcspn(p, ",");
	char *s = malloc(n + 1);
	if (s) { memcpy(s, p, n); s[n] = 0; }
	return s;
}

static const char *const known_prefix = "";

/* Argument a as the flyrt_arg libflyrt's checks take for explicit argument inf: a
 * buffer as a tensor of known storage, a scalar by its bits in the declared type
 * (flyc-sim's i32=/u32=/... give sizes, the metadata the type). */
static flyrt_arg
check_arg(const Arg *a, const flyrt_arg_info *inf, flyrt_tensor *t)
{
	flyrt_arg f;
	memset(&f, 0, sizeof f);
	if (a->kind == 2) {
		memset(t, 0, sizeof *t);
		t->data = a->va;
		t->ndim = -1;
		t->storage = a->va;
		t->storage_bytes = a->bufsize;
		return flyrt_arg_tensor(t);
	}
	if (inf->type == FLYRT_ARG_PTR && a->size == 8) {
		uint64_t p;
		memcpy(&p, a->val, 8);
		return flyrt_arg_ptr(p);
	}
	f.type = inf->typed && inf->type != FLYRT_ARG_PTR ? inf->type
	       : a->size == 4 ? FLYRT_ARG_I32 : FLYRT_ARG_I64;
	f.size = (uint32_t)a->size;
	memcpy(&f.v, a->val, a->size < sizeof f.v ? a->size : sizeof f.v);
	if (a->size != 4 && a->size != 8) {   /* no flyc-sim scalar has another size */
		f.type = FLYRT_ARG_BYTES;
		f.v.bytes = a->val;
	}
	return f;
}

/* The code object to run from a file's bytes: the file itself (an ELF), or
 * the entry of an offload bundle for arch; without arch, the bundle's one
 * entry for a processor the simulator models (several: an error asking for
 * --arch). With arch, an ELF built for another processor is refused here, as
 * a device of that arch would. Returns 0, or -1 with a message. */
static int pick_code_object(const uint8_t *data, size_t size, const char *arch,
                            const void **elf, size_t *esz, char *err, size_t errlen)
{
	*elf = data; *esz = size;
	int kind = co_sniff(data, size);
	if (kind == 2 || kind == 3) {
		if (arch) return co_bundle_find(data, size, arch, elf, esz, err, errlen);
		const char *found = NULL;
		for (int i = 0; sim_arch_name(i); i++) {
			const void *e; size_t n; char e2[16];
			if (co_bundle_find(data, size, sim_arch_name(i), &e, &n, e2, sizeof e2)) continue;
			if (found) {
				snprintf(err, errlen, "offload bundle has entries for %s and %s; choose one with --arch=", found,
				         sim_arch_name(i));
				return -1;
			}
			found = sim_arch_name(i); *elf = e; *esz = n;
		}
		if (found) return 0;
		/* none: co_bundle_find's message lists the entries */
		if (co_bundle_find(data, size, sim_arch_name(0), elf, esz, err, errlen) == 0) return 0;
		if (kind == 2) { size_t l = strlen(err); snprintf(err + l, errlen - l, "; the simulator models gfx950 and gfx1201"); }
		return -1;
	}
	return 0;
}

static int list_mnemonics(const char *path, const char *arch)
{
	size_t size;
	uint8_t *data = read_file(path, &size);
	if (!data) { fprintf(stderr, "flyc-sim: cannot read %s: %s\n", path, strerror(errno)); return 1; }
	char err[512];
	const void *elf; size_t esz;
	if (pick_code_object(data, size, arch, &elf, &esz, err, sizeof err)) {
		fprintf(stderr, "flyc-sim: %s: %s\n", path, err); free(data); return 1;
	}
	CoObject *co = co_parse(elf, esz, err, sizeof err);
	if (!co) { fprintf(stderr, "flyc-sim: %s: %s\n", path, err); free(data); return 1; }
	/* walk the whole .text section (kernels and the functions they call);
	 * without one, each kernel's code from its entry */
	enum { MAXM = 4096 };
	char (*names)[48] = calloc(MAXM, 48);
	int n = 0, bad = 0;
	const void *text_sec = NULL;
	size_t text_size = 0;
	CoObject sec;
	memset(&sec, 0, sizeof sec);
	memcpy(sec.processor, co->processor, sizeof sec.processor);   /* disassemble as the code object's arch */
	if (!co_find_section(elf, esz, ".text", &text_sec, &text_size)) { sec.image = (uint8_t *)text_sec; sec.image_size = text_size; }
	for (int k = 0; k < (sec.image ? 1 : co->nkernels) && names; k++) {
		const CoObject *src = sec.image ? &sec : co;
		uint64_t pc = sec.image ? 0 : co->kernels[k].entry_addr;
		uint64_t end = sec.image ? text_size : co->kernels[k].code_size ? pc + co->kernels[k].code_size : co->image_size;
		while (pc < end && pc < src->image_size) {
			char text[256];
			int sz = sim_disasm(src, pc, text, sizeof text);
			if (sz <= 0) { pc += 4; continue; }
			pc += (uint64_t)sz;
			char m[48];
			size_t ml = strcspn(text, " \t");
			if (ml == 0 || ml >= sizeof m) continue;
			memcpy(m, text, ml); m[ml] = 0;
			int found = 0;
			for (int i = 0; i < n; i++) if (!strcmp(names[i], m)) { found = 1; break; }
			if (!found && n < MAXM) snprintf(names[n++], 48, "%s", m);
			if (!sec.image && !co->kernels[k].code_size && !strcmp(m, "s_endpgm")) break;
		}
	}
	for (int i = 0; i < n; i++) {
		int ok = sim_mnemonic_supported(names[i]);
		if (!ok) bad++;
		printf("%s%s\n", names[i], ok ? "" : "  UNSUPPORTED");
	}
	(void)known_prefix;
	free(names);
	co_free(co);
	free(data);
	(void)bad;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--list-mnemonics")) {
		if (argc == 3) return list_mnemonics(argv[2], NULL);
		if (argc == 4 && !strncmp(argv[2], "--arch=", 7) && sim_arch_known(argv[2] + 7))
			return list_mnemonics(argv[3], argv[2] + 7);
		if (argc == 4 && !strncmp(argv[2], "--arch=", 7)) {
			fprintf(stderr, "flyc-sim: unknown --arch '%s' (the simulator models gfx950 and gfx1201)\n", argv[2] + 7);
			return 2;
		}
		return usage();
	}
	if (argc == 2 && !strcmp(argv[1], "--timing-devices")) {
		char buf[2048];
		if (sim_timing_params_error()) {
			fprintf(stderr, "flyc-sim: error: %s\n", sim_timing_params_error());
			return 1;
		}
		for (int i = 0; sim_timing_device_name(i); i++) {
			sim_timing_device_json(sim_timing_device_name(i), buf, sizeof buf);
			fputs(buf, stdout);
		}
		return 0;
	}
	if (argc < 3) return usage();
	const char *path = NULL, *kname = NULL;
	int timing = 0;
	const char *timing_file = NULL;
	SimTimingConfig tcfg = { NULL, 0, 0 };
	uint32_t grid[3] = { 0, 0, 0 }, block[3] = { 0, 0, 0 };
	int have_grid = 0, have_block = 0, raw = 0, stats = 0, any_grid = 0;
	SimConfig cfg = { 0, 0, 0, NULL };
	Arg *args = calloc((size_t)argc, sizeof *args);
	int nargs = 0, rc = 1;
	char err[1024];
	if (!args) return 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--grid=", 7)) { if (parse_dims(a + 7, grid)) { fprintf(stderr, "flyc-sim: bad %s\n", a); goto out; } have_grid = 1; }
		else if (!strncmp(a, "--block=", 8)) { if (parse_dims(a + 8, block)) { fprintf(stderr, "flyc-sim: bad %s\n", a); goto out; } have_block = 1; }
		else if (!strcmp(a, "--raw-kernarg")) raw = 1;
		else if (!strcmp(a, "--any-grid")) any_grid = 1;
		else if (!strcmp(a, "--racecheck")) cfg.racecheck = 1;
		else if (!strcmp(a, "--stats")) stats = 1;
		else if (!strcmp(a, "--trace")) cfg.trace = 1;
		else if (!strcmp(a, "--trace=2")) cfg.trace = 2;
		else if (!strncmp(a, "--threads=", 10)) cfg.nthreads = atoi(a + 10);
		else if (!strcmp(a, "--timing")) timing = 1;
		else if (!strncmp(a, "--timing=", 9) && a[9]) { timing = 1; timing_file = a + 9; }
		else if (!strcmp(a, "--timing-only")) { timing = 1; tcfg.timing_only = 1; }
		else if (!strncmp(a, "--timing-sample=", 16)) {
			char *e; errno = 0;
			long v = strtol(a + 16, &e, 10);
			if (*e || e == a + 16 || errno || v < 1 || v > 1000000000) { fprintf(stderr, "flyc-sim: bad %s (a workgroup count >= 1)\n", a); rc = 2; goto out; }
			tcfg.sample = (int)v; timing = 1;
		}
		else if (!strncmp(a, "--device=", 9)) {
			int ok = 0;
			for (int j = 0; sim_timing_device_name(j); j++) if (!strcmp(sim_timing_device_name(j), a + 9)) ok = 1;
			if (!ok) {
				fprintf(stderr, "flyc-sim: unknown --device '%s' (devices:", a + 9);
				for (int j = 0; sim_timing_device_name(j); j++) fprintf(stderr, " %s", sim_timing_device_name(j));
				fprintf(stderr, ")\n"); rc = 2; goto out;
			}
			tcfg.device = a + 9; timing = 1;
		}
		else if (!strncmp(a, "--arch=", 7)) {
			if (!sim_arch_known(a + 7)) {
				fprintf(stderr, "flyc-sim: unknown --arch '%s' (the simulator models gfx950 and gfx1201)\n", a + 7);
				rc = 2; goto out;
			}
			cfg.arch = a + 7;
		}
		else if (!strncmp(a, "--", 2)) { fprintf(stderr, "flyc-sim: unknown option %s\n", a); rc = usage(); goto out; }
		else if (!path) path = a;
		else if (!kname) kname = a;
		else if (parse_arg(a, &args[nargs++], err, sizeof err)) { fprintf(stderr, "flyc-sim: %s\n", err); goto out; }
	}
	if (!path || !kname || (raw && (!have_grid || !have_block))) { rc = usage(); goto out; }
	size_t size;
	uint8_t *data = read_file(path, &size);
	if (!data) { fprintf(stderr, "flyc-sim: cannot read %s: %s\n", path, strerror(errno)); goto out; }
	const void *elf; size_t esz;
	if (pick_code_object(data, size, cfg.arch, &elf, &esz, err, sizeof err)) {
		fprintf(stderr, "flyc-sim: %s: %s\n", path, err); free(data); goto out;
	}
	CoObject *co = co_parse(elf, esz, err, sizeof err);
	if (!co) { fprintf(stderr, "flyc-sim: %s: %s\n", path, err); free(data); goto out; }
	const CoKernel *k = co_find_kernel(co, kname);
	SimDevice *d = NULL;
	uint8_t *ka = NULL;
	size_t kasize = 0;
	FlyMeta meta;
	memset(&meta, 0, sizeof meta);
	flyrt_kernel fk;
	memset(&fk, 0, sizeof fk);
	int *amap = NULL;   /* args index of explicit argument i */
	if (!k) {
		fprintf(stderr, "flyc-sim: no kernel '%s' in %s (kernels:", kname, path);
		for (int i = 0; i < co->nkernels; i++) fprintf(stderr, " %s", co->kernels[i].name);
		fprintf(stderr, ")\n");
		goto done;
	}
	if (co->flyc_meta && flyrt_meta_parse(co->flyc_meta, co->flyc_meta_size, &meta, err, sizeof err)) {
		fprintf(stderr, "flyc-sim: %s: %s\n", path, err);
		goto done;
	}
	if (flyrt_kernel_describe(&fk, k, flyrt_meta_find(&meta, k->name)) != FLYRT_SUCCESS) {
		fprintf(stderr, "flyc-sim: %s: %s\n", path, flyrt_last_error());
		goto done;
	}
	if (raw && fk.meta && fk.meta->has_block && memcmp(block, fk.meta->block, sizeof block)) {
		fprintf(stderr, "flyc-sim: FLYRT_ERROR_INVALID_LAUNCH: kernel '%s': block %ux%ux%u differs "
		        "from the kernel's block(%u, %u, %u)\n", k->name, block[0], block[1], block[2],
		        fk.meta->block[0], fk.meta->block[1], fk.meta->block[2]);
		goto done;
	}
	amap = calloc((size_t)fk.nargs + 1, sizeof *amap);
	if (!amap) goto done;
	d = sim_create(&cfg);
	if (!d) { fprintf(stderr, "flyc-sim: out of memory\n"); goto done; }
	/* place the arguments */
	size_t *offs = calloc((size_t)nargs + 1, sizeof *offs);
	if (!offs) goto done;
	if (raw) {
		size_t o = 0;
		for (int i = 0; i < nargs; i++) {
			size_t al = args[i].kind == 1 ? 1 : args[i].size;
			o = (o + al - 1) / al * al;
			offs[i] = o; o += args[i].size;
		}
		kasize = o;
	} else {
		int ne = 0;
		for (int i = 0; i < k->nargs; i++) if (k->args[i].kind != CO_ARG_HIDDEN) ne++;
		int ai = 0, nex = 0;
		size_t o = 0;
		for (int i = 0; i < nargs; i++) {
			if (args[i].kind == 1) { offs[i] = o; o += args[i].size; continue; }  /* pad: raw bytes at the cursor */
			while (ai < k->nargs && k->args[ai].kind == CO_ARG_HIDDEN) ai++;
			if (ai >= k->nargs) { fprintf(stderr, "flyc-sim: too many arguments: kernel %s takes %d\n", k->name, ne); free(offs); goto done; }
			if (nex < fk.nargs) amap[nex] = i;
			nex++;
			const CoArg *m = &k->args[ai++];
			if (m->size != args[i].size) {
				fprintf(stderr, "flyc-sim: argument %d is %zu bytes, kernel %s expects %u (%s%s%s)\n", i + 1, args[i].size, k->name,
				        m->size, m->value_kind, m->name[0] ? " " : "", m->name);
				free(offs); goto done;
			}
			offs[i] = m->offset; o = m->offset + m->size;
		}
		int left = 0;
		for (; ai < k->nargs; ai++) if (k->args[ai].kind != CO_ARG_HIDDEN) left++;
		if (left) { fprintf(stderr, "flyc-sim: too few arguments: kernel %s takes %d\n", k->name, ne); free(offs); goto done; }
		kasize = o;
		for (int i = 0; i < k->nargs; i++)
			if (k->args[i].kind != CO_ARG_HIDDEN && k->args[i].offset + k->args[i].size > kasize) kasize = k->args[i].offset + k->args[i].size;
	}
	ka = calloc(1, kasize + 8);
	if (!ka) { free(offs); goto done; }
	for (int i = 0; i < nargs; i++) {
		Arg *a = &args[i];
		if (a->kind == 2) {
			a->va = sim_alloc(d, a->bufsize);
			if (!a->va) { fprintf(stderr, "flyc-sim: cannot allocate %llu bytes\n", (unsigned long long)a->bufsize); free(offs); goto done; }
			if (a->fill >= 0) {
				uint8_t *tmp = malloc(a->bufsize ? (size_t)a->bufsize : 1);
				if (!tmp) { free(offs); goto done; }
				memset(tmp, a->fill, (size_t)a->bufsize);
				sim_write(d, a->va, tmp, a->bufsize);
				free(tmp);
			}
			if (a->in) {
				char *p = dup_path(a->in);
				size_t fs;
				uint8_t *fd = p ? read_file(p, &fs) : NULL;
				if (!fd) { fprintf(stderr, "flyc-sim: cannot read %s: %s\n", p ? p : "?", strerror(errno)); free(p); free(offs); goto done; }
				if (fs > a->bufsize) { fprintf(stderr, "flyc-sim: %s has %zu bytes, more than the buffer's %llu\n", p, fs, (unsigned long long)a->bufsize); free(fd); free(p); free(offs); goto done; }
				sim_write(d, a->va, fd, fs);
				free(fd); free(p);
			}
			memcpy(ka + offs[i], &a->va, 8);
		} else if (a->kind == 0) memcpy(ka + offs[i], a->val, a->size);
	}
	free(offs);
	if (!raw) {   /* libflyrt's launch checks, before anything runs */
		flyrt_arg *fa = calloc((size_t)fk.nargs + 1, sizeof *fa);
		flyrt_tensor *ft = calloc((size_t)fk.nargs + 1, sizeof *ft);
		flyrt_launch_config lc;
		const char *arch = cfg.arch ? cfg.arch : co->processor;
		FlyrtLaunchEnv env = { sim_arch_lds_bytes(arch), 0, NULL };
		flyrt_status st = FLYRT_ERROR_OUT_OF_MEMORY;
		env.cus = flyrt_sim_cus(arch);
		memset(&lc, 0, sizeof lc);
		if (have_grid) memcpy(lc.grid, grid, sizeof grid);
		if (have_block) memcpy(lc.block, block, sizeof block);
		lc.flags = any_grid ? FLYRT_LAUNCH_ANY_GRID : 0;
		if (fa && ft) {
			for (int i = 0; i < fk.nargs; i++)
				fa[i] = check_arg(&args[amap[i]], &fk.info[i], &ft[i]);
			st = flyrt_check_launch(&fk, &env, &lc, fa, fk.nargs, grid, block);
		}
		free(fa);
		free(ft);
		if (st != FLYRT_SUCCESS) {
			fprintf(stderr, "flyc-sim: %s: %s\n", flyrt_status_name(st),
			        st == FLYRT_ERROR_OUT_OF_MEMORY ? "out of memory" : flyrt_last_error());
			goto done;
		}
	}
	if (timing && sim_set_timing(d, &tcfg)) { fprintf(stderr, "flyc-sim: unknown timing device\n"); goto done; }
	clock_t c0 = clock();
	if (sim_launch(d, co, k, grid, block, ka, kasize, err, sizeof err)) {
		fprintf(stderr, "flyc-sim: %s\n", err);
		goto done;
	}
	if (stats) {
		SimStats st;
		sim_last_stats(d, &st);
		double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
		fprintf(stderr, "flyc-sim: %llu wave instructions, %llu lane instructions, %.3f s CPU\n",
		        (unsigned long long)st.wave_instructions, (unsigned long long)st.lane_instructions, cpu);
	}
	rc = 0;
	if (timing) {
		SimTiming tm;
		char js[2048];
		if (sim_last_timing(d, &tm)) { fprintf(stderr, "flyc-sim: the launch was not timed\n"); rc = 1; goto done; }
		sim_timing_json(&tm, js, sizeof js);
		if (timing_file) {
			char ferr[512] = "";
			if (fio_write_file(timing_file, js, strlen(js), ferr, sizeof ferr)) { fprintf(stderr, "flyc-sim: cannot write %s: %s\n", timing_file, ferr); rc = 1; }
		} else fputs(js, stdout);
		fprintf(stderr, "flyc-sim: timing on %s (%d CUs, %.0f MHz, %.0f under this load): %.3f us, %llu cycles; %llu of %llu workgroups timed, "
		        "%d per CU; MFMA busy %.1f%%, VALU busy %.1f%%, LDS busy %.1f%%; %llu LDS bank-conflict cycles; %.3f MB HBM, %.3f MB L2\n",
		        tm.device, tm.cus, tm.clock_mhz, tm.eff_clock_mhz, tm.us, (unsigned long long)tm.cycles, (unsigned long long)tm.sampled_workgroups,
		        (unsigned long long)tm.workgroups, tm.wgs_per_cu, 100 * tm.mfma_busy, 100 * tm.valu_busy, 100 * tm.lds_busy,
		        (unsigned long long)tm.lds_bank_conflict_cycles, tm.hbm_bytes / 1e6, tm.l2_bytes / 1e6);
		if (tm.mfma_flops > 0)
			fprintf(stderr, "flyc-sim: timing: %.1f TFLOPS (matrix)\n", tm.mfma_flops / (tm.us * 1e6));
	}
	for (int i = 0; i < nargs; i++) {
		Arg *a = &args[i];
		if (a->kind != 2 || !a->out) continue;
		char *p = dup_path(a->out);
		uint8_t *buf = malloc(a->bufsize ? (size_t)a->bufsize : 1);
		char ferr[512] = "out of memory";
		int ok = p && buf && !sim_read(d, a->va, buf, a->bufsize) &&
		         !fio_write_file(p, buf, (size_t)a->bufsize, ferr, sizeof ferr);
		if (!ok) { fprintf(stderr, "flyc-sim: cannot write %s: %s\n", p ? p : "?", ferr); rc = 1; }
		free(buf); free(p);
	}
done:
	free(amap);
	flyrt_kernel_release(&fk);
	flyrt_meta_free(&meta);
	free(ka);
	sim_destroy(d);
	co_free(co);
	free(data);
out:
	free(args);
	return rc;
}
