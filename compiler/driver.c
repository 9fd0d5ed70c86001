/*
 * driver.c — the compiler proper: command line, then the pipeline in order
 * (drv_compile, one function):
 *
 *     read -> parse (syntax.h) -> check (sema.h) -> target check, code
 *     generation (codegen.h) -> per arch: IR passes, LLVM IR, machine code,
 *     link (emit.h) -> outputs
 *
 * Only this file decides what is printed where; every stage reports to one
 * Diag and the exit status is 1 as soon as it holds an error.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "ast.h"
#include "codegen.h"
#include "diag.h"
#include "driver.h"
#include "emit.h"
#include "fileio.h"
#include "ir_banks.h"
#include "launcher.h"
#include "sema.h"
#include "syntax.h"
#include "target/target.h"

const char *const drv_emit_names[DRV_NEMITS] = {
#define X(k, s) s,
	DRV_EMITS(X)
#undef X
};

static void
opt_error(const char *fmt, const char *arg)
{
	fputs("flyc: error: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

static void
push_str(const char ***v, int *n, const char *s)
{
	const char **nv = realloc(*v, sizeof **v * (size_t)(*n + 1));

	if (!nv)
		ice("out of memory");
	nv[(*n)++] = s;
	*v = nv;
}

/* -XVALUE or -X VALUE: returns the value or NULL (error reported). */
static const char *
joined_or_next(const char *flag, int argc, char **argv, int *i)
{
	size_t fl = strlen(flag);

	if (argv[*i][fl])
		return argv[*i] + fl;
	if (*i + 1 >= argc) {
		opt_error("argument to '%s' is missing (expected 1 value)", flag);
		return NULL;
	}
	return argv[++*i];
}

/* --flag=VALUE or --flag VALUE */
static const char *
eq_or_next(const char *flag, int argc, char **argv, int *i)
{
	size_t fl = strlen(flag);

	if (argv[*i][fl] == '=')
		return argv[*i] + fl + 1;
	if (argv[*i][fl] == 0 && *i + 1 < argc)
		return argv[++*i];
	opt_error("argument to '%s' is missing (expected 1 value)", flag);
	return NULL;
}

static bool
starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p)) && (s[strlen(p)] == 0 || s[strlen(p)] == '=');
}

static bool
valid_ident(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !(s[0] == '_' || (s[0] | 0x20) >= 'a') || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return false;
	}
	return true;
}

bool
drv_parse_options(DrvOptions *o, int argc, char **argv)
{
	int i;
	bool ok = true;
	const char *v;

	memset(o, 0, sizeof *o);
	o->opt_level = 3;
	o->color = -1;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || !strcmp(a, "-")) {
			if (o->input) {
				opt_error("more than one input file ('%s'); flyc compiles one module per run", a);
				ok = false;
			} else
				o->input = a;
		} else if (!strncmp(a, "-o", 2)) {
			if (!(v = joined_or_next("-o", argc, argv, &i)))
				ok = false;
			else
				o->output = v;
		} else if (starts(a, "--offload-arch")) {
			if (!(v = eq_or_next("--offload-arch", argc, argv, &i)))
				ok = false;
			else if (!tgt_bit(v)) {
				fprintf(stderr, "flyc: error: unsupported offload architecture '%s' (flyc supports %s)\n", v,
				        tgt_names());
				ok = false;
			} else
				push_str(&o->archs, &o->narchs, v);
		} else if (!strcmp(a, "-S")) {
			o->emit_S = true;
		} else if (!strcmp(a, "-c")) {
			o->emit_c = true;
		} else if (starts(a, "--emit")) {
			int k;
			if (!(v = eq_or_next("--emit", argc, argv, &i))) {
				ok = false;
				continue;
			}
			for (k = 1; k < DRV_NEMITS; k++)
				if (!strcmp(v, drv_emit_names[k]))
					break;
			if (k == DRV_NEMITS) {
				opt_error("invalid value '%s' in '--emit' (expected ast, ir, llvm, asm, obj, launcher or banks)", v);
				ok = false;
			} else
				o->emit = (DrvEmit)k;
		} else if (a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && a[3] == 0) {
			o->opt_level = a[2] - '0';
		} else if (!strcmp(a, "-O")) {
			o->opt_level = 1;
		} else if (!strncmp(a, "-D", 2)) {
			const char *eq;
			DrvDefine *nd;
			size_t nl;
			if (!(v = joined_or_next("-D", argc, argv, &i))) {
				ok = false;
				continue;
			}
			eq = strchr(v, '=');
			nl = eq ? (size_t)(eq - v) : strlen(v);
			if (!valid_ident(v, nl)) {
				opt_error("macro name in '-D %s' is not an identifier", v);
				ok = false;
				continue;
			}
			nd = realloc(o->defines, sizeof *nd * (size_t)(o->ndefines + 1));
			if (!nd)
				ice("out of memory");
			o->defines = nd;
			nd[o->ndefines].name = strndup(v, nl);
			nd[o->ndefines].value = eq ? eq + 1 : "1";
			o->ndefines++;
		} else if (!strncmp(a, "-I", 2)) {
			if (!(v = joined_or_next("-I", argc, argv, &i)))
				ok = false;
			else
				push_str(&o->incdirs, &o->nincdirs, v);
		} else if (!strcmp(a, "-MD")) {
			o->dep_MD = true;
		} else if (!strcmp(a, "-MP")) {
			o->dep_MP = true;
		} else if (!strncmp(a, "-MF", 3)) {
			if (!(v = joined_or_next("-MF", argc, argv, &i)))
				ok = false;
			else
				o->dep_MF = v;
		} else if (!strncmp(a, "-MT", 3)) {
			if (!(v = joined_or_next("-MT", argc, argv, &i)))
				ok = false;
			else
				o->dep_MT = v;
		} else if (!strcmp(a, "-save-temps") || !strcmp(a, "--save-temps")) {
			o->save_temps = true;
		} else if (!strcmp(a, "-g")) {
			o->debug_info = true;
		} else if (!strcmp(a, "-g0")) {
			o->debug_info = false;
		} else if (!strcmp(a, "-mllvm")) {
			if (i + 1 >= argc) {
				opt_error("argument to '%s' is missing (expected 1 value)", a);
				ok = false;
			} else
				push_str(&o->mllvm, &o->nmllvm, argv[++i]);
		} else if (!strcmp(a, "--resource-usage")) {
			o->resource_usage = true;
		} else if (!strcmp(a, "--resource-usage=json")) {
			o->resource_usage = o->resource_usage_json = true;
		} else if (!strcmp(a, "-fsyntax-only")) {
			o->syntax_only = true;
		} else if (!strcmp(a, "-Werror")) {
			o->werror = true;
		} else if (!strcmp(a, "-Wno-error")) {
			o->werror = false;
		} else if (!strcmp(a, "-w")) {
			o->no_warnings = true;
		} else if (!strcmp(a, "-fcolor-diagnostics") || !strcmp(a, "-fdiagnostics-color")
			   || !strcmp(a, "-fdiagnostics-color=always")) {
			o->color = 1;
		} else if (!strcmp(a, "-fno-color-diagnostics") || !strcmp(a, "-fno-diagnostics-color")
			   || !strcmp(a, "-fdiagnostics-color=never")) {
			o->color = 0;
		} else if (!strcmp(a, "-fdiagnostics-color=auto")) {
			o->color = -1;
		} else if (starts(a, "-fdiagnostics-format")) {
			if (!(v = eq_or_next("-fdiagnostics-format", argc, argv, &i)))
				ok = false;
			else if (!strcmp(v, "json"))
				o->diag_json = true;
			else if (!strcmp(v, "clang") || !strcmp(v, "text"))
				o->diag_json = false;
			else {
				opt_error("invalid value '%s' in '-fdiagnostics-format' (expected clang or json)", v);
				ok = false;
			}
		} else if (starts(a, "--print-after")) {
			if (!(v = eq_or_next("--print-after", argc, argv, &i)))
				ok = false;
			else
				push_str(&o->print_after, &o->nprint_after, v);
		} else if (!strcmp(a, "--print-after-all")) {
			o->print_after_all = true;
		} else if (!strcmp(a, "--no-gpu-bundle-output")) {
			o->no_gpu_bundle = true;
		} else if (!strcmp(a, "--gpu-bundle-output")) {
			o->no_gpu_bundle = false;
		} else if (!strncmp(a, "--ld-path=", 10) && a[10]) {
			o->ld_path = a + 10;
		} else if (starts(a, "--kernel")) {
			if (!(v = eq_or_next("--kernel", argc, argv, &i)))
				ok = false;
			else if (!*v || *v == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,")) {
				opt_error("empty kernel name in '--kernel=%s'", v);
				ok = false;
			} else
				push_str(&o->kernels, &o->nkernels, v);
		} else if (starts(a, "--stop-after")) {
			if (!(v = eq_or_next("--stop-after", argc, argv, &i)))
				ok = false;
			else
				o->stop_after = v;
		} else {
			opt_error("unknown argument: '%s'", a);
			ok = false;
		}
	}
	if (o->emit_S && o->emit_c) {
		opt_error("%s", "'-S' and '-c' cannot be used together");
		ok = false;
	}
	if (o->emit == DRV_EMIT_DEFAULT) {
		if (o->emit_S)
			o->emit = DRV_EMIT_ASM;
		else if (o->emit_c)
			o->emit = DRV_EMIT_OBJ;
	}
	if (o->narchs == 0)
		push_str(&o->archs, &o->narchs, tgt_default()->name);
	if (ok && !o->input) {
		opt_error("%s", "no input files");
		ok = false;
	}
	return ok;
}

void
drv_options_free(DrvOptions *o)
{
	int i;

	for (i = 0; i < o->ndefines; i++)
		free((char *)o->defines[i].name);
	free(o->defines);
	free(o->archs);
	free(o->incdirs);
	free(o->mllvm);
	free(o->print_after);
	free(o->kernels);
	free((char *)o->stdlib_dir);
	memset(o, 0, sizeof *o);
}

char *
drv_default_output(const char *input, const char *ext)
{
	const char *base = strrchr(input, '/'), *dot;
	size_t n;
	char *r;

	base = base ? base + 1 : input;
	if (!strcmp(input, "-"))
		base = "stdin.fly";
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	r = malloc(n + strlen(ext) + 2);
	if (!r)
		ice("out of memory");
	memcpy(r, base, n);
	r[n] = '.';
	strcpy(r + n + 1, ext);
	return r;
}

/* Reads a whole file (or stdin for "-"), at most 1 GiB (offsets are 32-bit);
 * NULL with errno on failure. */
static char *
read_all(const char *path, size_t *len)
{
	const size_t max = (size_t)1 << 30;

	return strcmp(path, "-") ? fio_read_file(path, max, len) : fio_read(stdin, max, len);
}

/* Module name of a path: its file name without extension. */
static char *
module_name(const char *path)
{
	const char *b = strrchr(path, '/'), *dot;

	b = b ? b + 1 : path;
	if (!strcmp(path, "-"))
		return strdup("stdin");
	dot = strrchr(b, '.');
	return strndup(b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
}

static bool
is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* <bindir>/../share/flyc/stdlib, else the source tree's stdlib/ (build/bin or build/san/bin). */
static char *
find_stdlib(const char *argv0)
{
	static const char *rel[] = {"/../share/flyc/stdlib", "/../../stdlib", "/../../../stdlib"};
	char exe[PATH_MAX], path[PATH_MAX + 64], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	size_t i;

	if (n <= 0) {
		if (!argv0 || !realpath(argv0, exe))
			return NULL;
	} else
		exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	for (i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		snprintf(path, sizeof path, "%s%s", exe, rel[i]);
		if (is_dir(path)) {
			char *r = realpath(path, NULL);
			return r ? r : strdup(path);
		}
	}
	return NULL;
}

/* Writes text to path atomically (see runtime/fileio.h); "-" = stdout. */
static bool
write_output(const char *path, const char *text, size_t len, Diag *d)
{
	char err[512];

	if (fio_write_file(path, text, len, err, sizeof err) != 0) {
		diag_error(d, SPAN_NONE, "%s", err);
		return false;
	}
	return true;
}

/*
 * A file name as make reads it in a rule (GNU make's quoting, as GCC and clang write it):
 * a space is preceded by a backslash (and the backslashes before it doubled), '$' is
 * '$$', '#', ':' and the wildcards '*', '?', '[' take a backslash, trailing backslashes are
 * doubled, and in a target '%' takes one. make cannot read a name holding a newline, a tab
 * (a target's becomes a space), ';', '=' or '|', or one ending in "(...)" (an archive member):
 * those return false, for a clear error.
 */
static bool
dep_name(FILE *f, const char *s, bool target)
{
	size_t n = strlen(s), i, j;

	if (strpbrk(s, "\n\r\t;=|") || (n && s[n - 1] == ')' && strchr(s, '(')))
		return false;
	for (i = 0; i < n; i++) {
		char ch = s[i];
		if (ch == ' ') {
			for (j = i; j > 0 && s[j - 1] == '\\'; j--)
				fputc('\\', f);
			fputc('\\', f);
		} else if (ch == '$') {
			fputc('$', f);
		} else if (strchr("#:*?[", ch) || (target && ch == '%')) {
			fputc('\\', f);
		} else if (ch == '\\' && s[i + strspn(s + i, "\\")] == 0) {
			fputc('\\', f); /* a trailing backslash would escape the separator */
		}
		fputc(ch, f);
	}
	return true;
}

static void
write_depfile(const DrvOptions *o, const SemaProgram *p, const char *out, Diag *d)
{
	char *buf = NULL, *mf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *bad = NULL;
	int i;

	if (!f)
		ice("open_memstream failed");
	if (o->dep_MT)
		fputs(o->dep_MT, f); /* -MT is written as given, as with cc */
	else if (!dep_name(f, out, true))
		bad = out;
	fputc(':', f);
	for (i = 0; i < p->nfiles; i++) {
		fputs(" \\\n  ", f);
		if (!dep_name(f, p->files[i], false) && !bad)
			bad = p->files[i];
	}
	fputc('\n', f);
	if (o->dep_MP)
		for (i = 1; i < p->nfiles; i++) {
			fputc('\n', f);
			dep_name(f, p->files[i], true);
			fputs(":\n", f);
		}
	fclose(f);
	if (bad) {
		diag_error(d, SPAN_NONE,
			"cannot write a make dependency file: make cannot read the file name '%s' (a newline, a tab, "
			"';', '=' or '|', or a trailing '(...)')", bad);
		free(buf);
		return;
	}
	if (o->dep_MF)
		write_output(o->dep_MF, buf, len, d);
	else {
		mf = drv_default_output(out, "d");
		write_output(mf, buf, len, d);
		free(mf);
	}
	free(buf);
}

/*
 * --emit=launcher: the pipeline writes the code object (every --offload-arch)
 * to a temporary file (launcher_begin), then NAME.h and NAME.c are written
 * next to each other (launcher_end, launcher.h). -o names the .c file (its .h
 * goes beside it), or an existing directory (NAME is then the input's base
 * name); without -o, NAME.c and NAME.h in the current directory.
 */
static int
launcher_begin(const DrvOptions *o, char *tmp, Diag *d)
{
	int fd;

	if (o->output && !strcmp(o->output, "-")) {
		diag_error(d, SPAN_NONE, "--emit=launcher writes two files (NAME.h, NAME.c): -o names the .c "
		           "file or a directory, not standard output");
		return 1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		diag_error(d, SPAN_NONE, "cannot create a temporary file: %s", strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

static int
launcher_end(const DrvOptions *o, const char *tmp, Diag *d)
{
	char err[512];
	char *dir = NULL, *name = NULL, *obj = NULL;
	const char *in = strcmp(o->input, "-") ? o->input : "out.fly";
	const char *out = o->output;
	struct stat st;
	size_t n = 0;
	int rc = 1;

	if (!out || (stat(out, &st) == 0 && S_ISDIR(st.st_mode))) {
		const char *b = strrchr(in, '/');
		b = b ? b + 1 : in;
		dir = strdup(out ? out : ".");
		name = strdup(b);
		if (!dir || !name)
			ice("out of memory");
		if (strlen(name) > 4 && !strcmp(name + strlen(name) - 4, ".fly"))
			name[strlen(name) - 4] = 0;
		for (char *p = name; *p; p++)   /* the input's base name as a C identifier */
			if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (p > name && *p >= '0' && *p <= '9')))
				*p = '_';
	} else {
		const char *b = strrchr(out, '/');
		size_t bl;
		dir = b ? strndup(out, (size_t)(b - out) + (b == out)) : strdup(".");
		name = strdup(b ? b + 1 : out);
		if (!dir || !name)
			ice("out of memory");
		bl = strlen(name);
		if (bl > 2 && (!strcmp(name + bl - 2, ".c") || !strcmp(name + bl - 2, ".h")))
			name[bl - 2] = 0;
	}
	obj = read_all(tmp, &n);
	if (!obj) {
		diag_error(d, SPAN_NONE, "cannot read the code object back: %s", strerror(errno));
		goto done;
	}
	if (drv_emit_launcher(obj, n, name, dir, err, sizeof err)) {
		diag_error(d, SPAN_NONE, "--emit=launcher: %s", err);
		goto done;
	}
	rc = 0;
done:
	free(obj);
	free(dir);
	free(name);
	return rc;
}

/* Code generation's options and the back end's, from the command line. */
static int
stage_options(const DrvOptions *o, CgOptions *co, EmitOptions *eo, Diag *d)
{
	if (o->narchs > CG_MAX_ARCHS || o->narchs > EMIT_MAX_ARCHS) {
		diag_error(d, SPAN_NONE, "too many --offload-arch options (at most %d)", EMIT_MAX_ARCHS);
		return 1;
	}
	*co = (CgOptions){ .source_name = strcmp(o->input, "-") ? o->input : "<stdin>",
	                   .banks_any_arch = o->banks && o->banks->any_arch };
	*eo = (EmitOptions){ 0 };
	for (int i = 0; i < o->narchs; i++) {
		const TgtDesc *t = tgt_find(o->archs[i]);
		if (!t) {
			diag_error(d, SPAN_NONE, "unsupported --offload-arch '%s' (flyc supports %s)", o->archs[i],
			           tgt_names());
			return 1;
		}
		co->archs[co->narchs++] = t;
		eo->archs[i] = o->archs[i];
	}
	eo->narchs = o->narchs;
	eo->opt_level = o->opt_level;
	switch (o->emit) {
	case DRV_EMIT_IR: eo->emit = EMIT_IR; break;
	case DRV_EMIT_BANKS: eo->emit = EMIT_BANKS; break;
	case DRV_EMIT_LLVM: eo->emit = o->emit_S || (o->output && !strcmp(o->output, "-")) ? EMIT_LLVM : EMIT_LLVM_BC; break;
	case DRV_EMIT_ASM: eo->emit = EMIT_ASM; break;
	case DRV_EMIT_OBJ: eo->emit = EMIT_OBJ; break;
	case DRV_EMIT_DEFAULT: case DRV_EMIT_LAUNCHER: eo->emit = EMIT_CODEOBJ; break;
	default:
		diag_error(d, SPAN_NONE, "--emit=%s is not produced by the code generator", drv_emit_names[o->emit]);
		return 1;
	}
	eo->output = o->output;
	eo->input_name = o->input;
	eo->passes.print_after = o->print_after;
	eo->passes.nprint_after = o->nprint_after;
	eo->passes.print_after_all = o->print_after_all;
	eo->passes.stop_after = o->stop_after;
#ifndef NDEBUG
	eo->passes.verify = 1;
#endif
	eo->no_bundle = o->no_gpu_bundle;
	eo->ld_lld = o->ld_path;
	eo->banks = o->banks;
	eo->save_temps = o->save_temps;
	eo->debug_info = o->debug_info;
	eo->mllvm = o->mllvm;
	eo->nmllvm = o->nmllvm;
	eo->resource_usage = o->resource_usage || o->resource_usage_json;
	eo->resource_json = o->resource_usage_json;
	return 0;
}

/* The back end reports with IR locations; they become source spans. */
static void
ir_sink(void *ctx, IrLoc loc, const char *msg)
{
	Diag *d = ctx;
	Span s = SPAN_NONE;

	if (loc.span_file > 0) {
		s.file = loc.span_file - 1;
		s.lo = loc.span_lo;
		s.hi = loc.span_hi;
	}
	diag_error(d, s, "%s", msg);
}

/* Whether the kernel named name is one --kernel=LIST pattern of o selects
 * (pat: one comma-free piece, a name or an fnmatch glob). */
static bool
kernel_match(const char *pat, size_t n, const char *name)
{
	char buf[256];

	if (n >= sizeof buf)
		return strlen(name) == n && !strncmp(pat, name, n);
	memcpy(buf, pat, n);
	buf[n] = 0;
	return fnmatch(buf, name, 0) == 0;
}

/* "its kernels: a, b, c" for the message of a --kernel pattern matching nothing */
static void
kernel_names_note(const SemaProgram *p, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < p->nkernels && len + 8 < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", p->kernels[i]->name);
		if (w < 0 || (size_t)w >= size - len || i == 12) {
			snprintf(buf + len, size - len, ", ...");
			break;
		}
		len += (size_t)w;
	}
}

/*
 * --kernel=LIST (repeatable; LIST: comma-separated kernel names or fnmatch
 * globs, e.g. 'gemm_nt_256x256*'): only the kernel instances whose code-object
 * names match stay in p, in file order, so only they are generated and
 * emitted. A piece that matches no kernel is an error listing the file's
 * kernels; so is an --offload-arch that none of the kept kernels is for
 * (targets(...)), except for flyc show --banks, which skips such arches.
 * Returns 0, or 1 with the errors reported to d (nothing written yet).
 */
static int
select_kernels(SemaProgram *p, const DrvOptions *o, Diag *d)
{
	bool *keep = calloc((size_t)p->nkernels + 1, sizeof *keep);
	char names[512];
	int i, k, n, bad = 0;

	if (!keep)
		ice("out of memory");
	for (i = 0; i < o->nkernels; i++) {
		const char *s = o->kernels[i];
		while (*s) {
			size_t len = strcspn(s, ",");
			for (k = n = 0; k < p->nkernels; k++)
				if (kernel_match(s, len, p->kernels[k]->name))
					keep[k] = true, n++;
			if (!n) {
				kernel_names_note(p, names, sizeof names);
				diag_error(d, SPAN_NONE, "no kernel %s '%.*s' in %s (--kernel; its kernels: %s)",
				           strcspn(s, "*?[") < len ? "matches" : "named", (int)len, s,
				           strcmp(o->input, "-") ? o->input : "<stdin>", p->nkernels ? names : "none");
				bad = 1;
			}
			s += len + (s[len] == ',');
		}
	}
	for (k = n = 0; k < p->nkernels; k++)
		if (keep[k])
			p->kernels[n++] = p->kernels[k];
	free(keep);
	if (bad)
		return 1;
	p->nkernels = n;
	for (i = 0; i < o->narchs && !o->banks; i++) {
		unsigned bit = sema_target_bit(o->archs[i]);
		for (k = 0; k < n; k++)
			if (!p->kernels[k]->targets || (p->kernels[k]->targets & bit))
				break;
		if (k == n) {
			diag_error(d, SPAN_NONE, "no kernel that --kernel selects is for --offload-arch=%s "
			           "(their targets(...) clauses exclude it)", o->archs[i]);
			bad = 1;
		}
	}
	return bad;
}

int
drv_compile_main(int argc, char **argv)
{
	DrvOptions o;

	if (!drv_parse_options(&o, argc, argv)) {
		drv_options_free(&o);
		return 1;
	}
	return drv_compile(&o);
}

/*
 * The whole pipeline, in order. Every step reports to d; the first step that
 * leaves an error stops the rest, and no output file is left half-written.
 */
int
drv_compile(DrvOptions *op)
{
	DrvOptions o = *op;
	Diag *d;
	Arena *a;
	char *text, *modname, launcher_tmp[] = "/tmp/flyc-launcher-XXXXXX";
	size_t len = 0;
	int file, rc = 1, launcher = 0;
	SemaProgram *prog = NULL;
	SemaOptions so;
	SemaDefine *defs = NULL;
	AstModule *m;
	CgOptions co;
	EmitOptions eo;
	IrModule *ir = NULL;
	IrDiag id;
	EmitJob *job;
	int i;

	o.argv0 = NULL;
	d = diag_new(stderr);
	diag_set_color(d, o.color < 0 ? diag_color_default(stderr) : o.color == 1);
	diag_set_format(d, o.diag_json ? DIAG_JSON : DIAG_TEXT);
	diag_set_werror(d, o.werror);
	diag_set_no_warnings(d, o.no_warnings);
	id = (IrDiag){ ir_sink, d, 0 };
	a = arena_new();

	/* 0. read the input */
	text = read_all(o.input, &len);
	if (!text) {
		diag_error(d, SPAN_NONE, "cannot read '%s': %s", o.input, strerror(errno));
		goto out;
	}
	file = diag_add_file(d, strcmp(o.input, "-") ? o.input : "<stdin>", text, len);
	free(text);
	modname = module_name(o.input);

	/* 1. parse (syntax.h) */
	m = parse_module(a, d, file, modname);
	if (diag_errors(d)) {
		free(modname);
		goto out;
	}

	/* 2. check (sema.h): imports, names, types, compile-time evaluation, instances */
	o.stdlib_dir = find_stdlib(NULL);
	defs = calloc((size_t)o.ndefines + 1, sizeof *defs);
	for (i = 0; i < o.ndefines; i++) {
		defs[i].name = o.defines[i].name;
		defs[i].value = o.defines[i].value;
	}
	so = (SemaOptions){o.incdirs, o.nincdirs, o.stdlib_dir, defs, o.ndefines};
	prog = sema_check(a, d, m, &so);
	free(modname);
	if (diag_errors(d))
		goto out;
	if (o.nkernels && select_kernels(prog, &o, d))   /* --kernel: only the kernels named */
		goto out;
	if (o.syntax_only) {
		rc = 0;
		if (o.dep_MD || o.dep_MF) { /* as with clang, -fsyntax-only still writes the depfile */
			char *def = drv_default_output(o.input, "hsaco");
			write_depfile(&o, prog, o.output && strcmp(o.output, "-") ? o.output : def, d);
			free(def);
			rc = diag_errors(d) ? 1 : 0;
		}
		goto out;
	}
	if (o.emit == DRV_EMIT_AST) {
		char *buf = NULL;
		size_t blen = 0;
		FILE *f = open_memstream(&buf, &blen);
		if (!f)
			ice("open_memstream failed");
		ast_dump(f, d, m);
		sema_dump_instances(f, d, prog);
		fclose(f);
		rc = write_output(o.output ? o.output : "-", buf, blen, d) ? 0 : 1;
		free(buf);
		goto out;
	}
	if (o.emit == DRV_EMIT_LAUNCHER) {
		if (launcher_begin(&o, launcher_tmp, d))
			goto out;
		launcher = 1;
	}
	if (stage_options(&o, &co, &eo, d))
		goto out;
	if (launcher)
		eo.output = launcher_tmp;

	/* 3. target check (codegen.h): each arch has the atoms its kernels use */
	if (cg_check_targets(prog, &co, d))
		goto out;

	/* 4. code generation (codegen.h): one IR function per kernel instance */
	if (!(ir = cg_module(prog, &co, d)))
		goto out;

	/* 5.-8. per arch (emit.h): IR passes, LLVM IR, machine code, link */
	job = emit_begin(ir, &eo, &id);
	for (i = 0; i < emit_narchs(job); i++) {
		int r = emit_arch_begin(job, i);        /* the kernels for this arch */
		if (r == EMIT_NEXT)
			r = emit_passes(job);               /* 5. flyc IR passes (ir_pass.h) */
		if (r == EMIT_NEXT)
			r = emit_llvm(job);                 /* 6. LLVM IR (lower_llvm.h), O-level pipeline */
		if (r == EMIT_NEXT)
			r = emit_machine_code(job);         /* 7. AMDGPU backend: assembly, object */
		if (r == EMIT_NEXT)
			r = emit_link(job);                 /* 8. ld.lld: the code object */
		emit_arch_end(job, r);
		if (r == EMIT_ERROR)
			break;
	}

	/* 9. outputs: the file(s) or bundle, --resource-usage, the launcher, the depfile */
	rc = emit_finish(job) || id.errors || diag_errors(d);
	if (rc == 0 && launcher)
		rc = launcher_end(&o, launcher_tmp, d);
	if (rc == 0 && (o.dep_MD || o.dep_MF)) {
		char *def = NULL;
		const char *out = o.output;
		if (!out || !strcmp(out, "-"))
			out = def = drv_default_output(o.input, "hsaco");
		write_depfile(&o, prog, out, d);
		free(def);
		if (diag_errors(d))
			rc = 1;
	}
out:
	if (launcher)
		unlink(launcher_tmp);
	if (ir)
		ir_module_free(ir);
	if (diag_errors(d))
		rc = 1;
	sema_program_free(prog);
	free(defs);
	arena_free(a);
	diag_free(d);
	drv_options_free(&o);
	return rc;
}
