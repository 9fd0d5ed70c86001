/*
 * flyc-tune — write the tuning database the operators read (docs/ops.md, "Tuning").
 *
 *   flyc-tune --measurements=FILE -o DB      rank variants by the times in FILE (CSV)
 *   flyc-tune --op=mm --shapes=MxNxK,... -o DB   measure them on the device
 *   flyc-tune --rows=FILE -o DB              rows written by hand (plain kernel families)
 *   flyc-tune --dump DB                      print a database's rows
 *
 * Measurements, one per line (a header row starting "arch," and '#' comments skipped):
 *   arch,op,dtypes,layout,shape,variant,time_us
 *   gfx950,mm,bf16->bf16,NT,256x256x64,gemm_nt_128x128,12.5
 * Each shape falls into one bucket per operator dim, the power-of-two interval holding
 * it (M = 200 -> M>128 M<=256). Per (arch, op, dtypes, layout, bucket) one row lists the
 * variants best first: measured on more of the bucket's shapes first, then by the
 * geometric mean over its shapes of each shape's median time. Rows carry this flyc's
 * version and the hash of the kernel library's code object holding the variants, so a
 * rebuilt kernel library or another flyc ignores them (and falls back to the default
 * order). The output is written to a temporary file and renamed when complete.
 *
 * An mm NT row may rank split-K too (gemm_nt_splitk, S by the runtime's rule, or
 * gemm_nt_splitk.sN, at most N ranges: ops_row_variant); measuring NT times it (both
 * launches) with the rule's S and at most 2, 4, 8, 16 ranges beside the one-pass variants.
 *
 * Measuring needs a timing source: on a GPU (HIP) each variant runs --warmup times,
 * then --reps times, each launch timed on the host around a synchronize (median taken).
 * Without a GPU (the simulator) each variant is launched once with the simulator's
 * timing model on (libflyrt's flyrt_device_set_timing; docs/simulator.md "Timing model")
 * in timing-only mode — only the sampled workgroups run, so 4096-sized shapes take
 * seconds — and ranked by the modelled time of the call (--timing-device=ROW, default
 * the processor's row, mi355x for gfx950; --timing-sample=N, default the model's:
 * every workgroup of a grid of at most 64). Never by the simulator's wall time.
 *
 * Exit status: 0 success, 1 an error (with a message naming the file and line), 2 usage.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "flyops_internal.h"

enum { MAX_DIMS = 4, MAX_MEAS = 1 << 20 };

typedef struct {
	char arch[32], op[32], dtypes[64], layout[32], variant[64];
	int64_t dims[MAX_DIMS];
	int ndims;
	double time_us;
	flyops_op opid;
	int64_t bins[MAX_DIMS];
} Meas;

static const char *prog = "flyc-tune";

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: flyc-tune --measurements=FILE -o DB [--merge] [--kernel-dir=DIR]\n"
	        "       flyc-tune --op=mm --shapes=MxNxK[,MxNxK...] -o DB [--dtypes=bf16->bf16]\n"
	        "                 [--layout=NT] [--device=KIND] [--reps=N] [--warmup=N] [--merge]\n"
	        "       flyc-tune --rows=FILE -o DB [--merge]\n"
	        "       flyc-tune --dump DB\n"
	        "Writes the SQLite tuning database the operators read (docs/ops.md, \"Tuning\").\n"
	        "  --measurements=FILE  CSV arch,op,dtypes,layout,shape,variant,time_us\n"
	        "  --rows=FILE          CSV arch,family,dtypes,layout,bucket,variants[,times_us,\n"
	        "                       flyc_version,codeobj_hash] (written by hand, or --dump's)\n"
	        "  --merge              keep the rows of an existing DB that no new row replaces\n"
	        "  --device=KIND        sim, hip, hip:N, auto (FLY_DEVICE overrides)\n"
	        "  --timing-device=ROW  on the simulator: the timing model's device row (mi355x, mi350x)\n"
	        "  --timing-sample=N    on the simulator: workgroups timed per launch (0: the model's default)\n"
	        "  --layout=L           mm: NT (default: a row-major, b column-major), NN, TN or TT\n"
	        "  --dtypes=KEY         mm: T->T, T->f32, T+T->T or T+f32->f32, T bf16 or f16 (+: a bias)\n"
	        "Without a GPU (--device=sim) variants are ranked by the simulator's modelled time.\n"
	        "mm NT rows rank split-K too (gemm_nt_splitk, gemm_nt_splitk.sN: at most N ranges).\n");
}

static int
err(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static char *
trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

/* The next line of *p (NUL-terminated in place), or NULL at the end. */
static char *
next_line(char **p)
{
	char *line = *p, *nl;
	if (!line || !*line)
		return NULL;
	if ((nl = strchr(line, '\n'))) {
		*nl = 0;
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

/* Split a CSV line (no quoting) into at most max trimmed fields; the count. */
static int
fields(char *line, char **f, int max)
{
	int n = 0;
	for (char *p = line;; ) {
		char *c = strchr(p, ',');
		if (n == max)
			return max + 1;
		if (c)
			*c = 0;
		f[n++] = trim(p);
		if (!c)
			return n;
		p = c + 1;
	}
}

static int
op_of(const char *name, flyops_op *out)
{
	for (int i = 0; i < FLYOPS_OP_COUNT_; i++)
		if (!strcmp(flyops_op_name((flyops_op)i), name)) {
			*out = (flyops_op)i;
			return 0;
		}
	return -1;
}

static int
parse_shape(const char *s, int64_t *dims, int want)
{
	int n = 0;
	while (n < MAX_DIMS) {
		char *end;
		errno = 0;
		long long v = strtoll(s, &end, 10);
		if (end == s || errno || v < 1)
			return -1;
		dims[n++] = v;
		if (*end == 0)
			break;
		if (*end != 'x')
			return -1;
		s = end + 1;
	}
	return n == want ? 0 : -1;
}

static int64_t
bin_of(int64_t x)
{
	int64_t p = 1;
	while (p < x && p < ((int64_t)1 << 62))
		p <<= 1;
	return p;
}

/* Check one measurement's names against the variant table and bin its shape. */
static int
check_meas(Meas *m, const char *where)
{
	const char *dims[MAX_DIMS];

	if (op_of(m->op, &m->opid))
		return err("%s: unknown operator '%s'", where, m->op);
	m->ndims = ops_bucket_dims(m->opid, dims, MAX_DIMS);
	if (m->ndims == 0)
		return err("%s: operator '%s' has no kernels to tune yet", where, m->op);
	int splits;
	if (!ops_row_variant(m->arch, m->opid, m->dtypes, m->layout, m->variant, &splits))
		return err("%s: '%s' is not a %s variant for %s %s on %s", where, m->variant, m->op,
		           m->dtypes, m->layout, m->arch);
	if (!(m->time_us > 0) || isinf(m->time_us))
		return err("%s: time %g must be a positive number of microseconds", where, m->time_us);
	for (int i = 0; i < m->ndims; i++)
		m->bins[i] = bin_of(m->dims[i]);
	return 0;
}

static int
read_measurements(const char *path, Meas **out, int *nout)
{
	size_t len;
	char *text = fio_read_file(path, (size_t)1 << 28, &len), *cur = text;
	Meas *ms = NULL;
	int n = 0, lineno = 0, rc = 0;

	if (!text)
		return err("cannot read '%s': %s", path, strerror(errno));
	if (strlen(text) != len) {
		free(text);
		return err("%s: contains a NUL byte", path);
	}
	for (char *line; (line = next_line(&cur)); ) {
		char *f[8], where[512], *s = trim(line), *end;
		Meas m;
		lineno++;
		if (!*s || *s == '#' || (n == 0 && !strncmp(s, "arch,", 5)))
			continue;
		snprintf(where, sizeof where, "%s:%d", path, lineno);
		if (fields(s, f, 7) != 7) {
			rc = err("%s: expected 7 fields: arch,op,dtypes,layout,shape,variant,time_us", where);
			break;
		}
		memset(&m, 0, sizeof m);
		if (strlen(f[0]) >= sizeof m.arch || strlen(f[1]) >= sizeof m.op ||
		    strlen(f[2]) >= sizeof m.dtypes || strlen(f[3]) >= sizeof m.layout ||
		    strlen(f[5]) >= sizeof m.variant) {
			rc = err("%s: a field is too long", where);
			break;
		}
		strcpy(m.arch, f[0]);
		strcpy(m.op, f[1]);
		strcpy(m.dtypes, f[2]);
		strcpy(m.layout, f[3]);
		strcpy(m.variant, f[5]);
		errno = 0;
		m.time_us = strtod(f[6], &end);
		if (errno || end == f[6] || *end) {
			rc = err("%s: bad time '%s'", where, f[6]);
			break;
		}
		flyops_op opid;
		const char *dn[MAX_DIMS];
		int want = op_of(m.op, &opid) ? 0 : ops_bucket_dims(opid, dn, MAX_DIMS);
		if (want && parse_shape(f[4], m.dims, want)) {
			rc = err("%s: bad shape '%s' (%d positive sizes joined by x, e.g. 256x256x64)", where,
			         f[4], want);
			break;
		}
		if ((rc = check_meas(&m, where)))
			break;
		if (n == MAX_MEAS) {
			rc = err("%s: more than %d measurements", path, MAX_MEAS);
			break;
		}
		Meas *nm = realloc(ms, sizeof *nm * (size_t)(n + 1));
		if (!nm) {
			rc = err("out of memory");
			break;
		}
		ms = nm;
		ms[n++] = m;
	}
	free(text);
	if (!rc && n == 0)
		rc = err("%s: no measurements", path);
	if (rc) {
		free(ms);
		return rc;
	}
	*out = ms;
	*nout = n;
	return 0;
}

static int
same_group(const Meas *a, const Meas *b)
{
	if (strcmp(a->arch, b->arch) || a->opid != b->opid || strcmp(a->dtypes, b->dtypes) ||
	    strcmp(a->layout, b->layout))
		return 0;
	for (int i = 0; i < a->ndims; i++)
		if (a->bins[i] != b->bins[i])
			return 0;
	return 1;
}

static int
same_shape(const Meas *a, const Meas *b)
{
	for (int i = 0; i < a->ndims; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	return 1;
}

static int
cmp_group(const void *pa, const void *pb)
{
	const Meas *a = pa, *b = pb;
	int c;
	if ((c = strcmp(a->arch, b->arch)) || (c = (int)a->opid - (int)b->opid) ||
	    (c = strcmp(a->dtypes, b->dtypes)) || (c = strcmp(a->layout, b->layout)))
		return c;
	for (int i = 0; i < a->ndims; i++)
		if (a->bins[i] != b->bins[i])
			return a->bins[i] < b->bins[i] ? -1 : 1;
	if ((c = strcmp(a->variant, b->variant)))
		return c;
	for (int i = 0; i < a->ndims; i++)
		if (a->dims[i] != b->dims[i])
			return a->dims[i] < b->dims[i] ? -1 : 1;
	return a->time_us < b->time_us ? -1 : a->time_us > b->time_us;
}

typedef struct {
	const char *variant;
	int shapes;          /* distinct shapes measured */
	double score;        /* geometric mean of per-shape medians */
} Rank;

static int
cmp_rank(const void *pa, const void *pb)
{
	const Rank *a = pa, *b = pb;
	if (a->shapes != b->shapes)
		return b->shapes - a->shapes;
	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return strcmp(a->variant, b->variant);
}

static int
codeobj_hash(const char *kdir, const char *arch, const char *codeobj, char *hash, size_t n)
{
	char path[4200];
	size_t len;
	char *bytes;

	snprintf(path, sizeof path, "%s/%s/%s.hsaco", kdir, arch, codeobj);
	if (!(bytes = fio_read_file(path, (size_t)1 << 30, &len)))
		return err("cannot read the kernel library's '%s' for its hash: %s", path, strerror(errno));
	flyrt_codeobj_hash(bytes, len, hash, n);
	free(bytes);
	return 0;
}

/* Rows from measurements: one per group, variants ranked. */
static int
rank_rows(Meas *ms, int n, const char *kdir, flyrt_tuning *t, int verbose)
{
	qsort(ms, (size_t)n, sizeof *ms, cmp_group);
	for (int g0 = 0; g0 < n; ) {
		int g1 = g0, nr = 0, rc;
		Rank *ranks;
		const Meas *m = &ms[g0];
		const OpVariant *first;
		char bucket[256] = "", variants[2048] = "", times[1024] = "", hash[32];
		const char *dn[MAX_DIMS];
		size_t bl = 0, vl = 0, tl = 0;

		while (g1 < n && same_group(&ms[g0], &ms[g1]))
			g1++;
		if (!(ranks = calloc((size_t)(g1 - g0), sizeof *ranks)))
			return err("out of memory");
		/* per variant (sorted together), per shape: the median; then the geometric mean */
		for (int i = g0; i < g1; ) {
			int j = i, shapes = 0;
			double logsum = 0;
			while (j < g1 && !strcmp(ms[j].variant, ms[i].variant))
				j++;
			for (int s = i; s < j; ) {
				int e = s;
				while (e < j && same_shape(&ms[s], &ms[e]))
					e++;
				double med = (e - s) % 2 ? ms[s + (e - s) / 2].time_us :
				             0.5 * (ms[s + (e - s) / 2 - 1].time_us + ms[s + (e - s) / 2].time_us);
				logsum += log(med);
				shapes++;
				s = e;
			}
			ranks[nr++] = (Rank){ ms[i].variant, shapes, exp(logsum / shapes) };
			i = j;
		}
		qsort(ranks, (size_t)nr, sizeof *ranks, cmp_rank);
		int splits;
		first = ops_row_variant(m->arch, m->opid, m->dtypes, m->layout, ranks[0].variant, &splits);
		for (int r = 0; r < nr; r++) {
			const OpVariant *v = ops_row_variant(m->arch, m->opid, m->dtypes, m->layout,
			                                     ranks[r].variant, &splits);
			if (strcmp(v->codeobj, first->codeobj)) {
				free(ranks);
				return err("%s %s: variants %s and %s live in different code objects; one row "
				           "cannot validate both", m->arch, m->op, first->variant, v->variant);
			}
			vl += (size_t)snprintf(variants + vl, sizeof variants - vl, "%s%s", r ? " " : "",
			                       ranks[r].variant);
			tl += (size_t)snprintf(times + tl, sizeof times - tl, "%s%.3f", r ? " " : "",
			                       ranks[r].score);
		}
		ops_bucket_dims(m->opid, dn, MAX_DIMS);
		for (int i = 0; i < m->ndims; i++) {
			if (m->bins[i] == 1)
				bl += (size_t)snprintf(bucket + bl, sizeof bucket - bl, "%s%s<=1", bl ? " " : "", dn[i]);
			else
				bl += (size_t)snprintf(bucket + bl, sizeof bucket - bl, "%s%s>%lld %s<=%lld",
				                       bl ? " " : "", dn[i], (long long)(m->bins[i] / 2), dn[i],
				                       (long long)m->bins[i]);
		}
		free(ranks);
		if ((rc = codeobj_hash(kdir, m->arch, first->codeobj, hash, sizeof hash)))
			return rc;
		flyrt_tuning_row row = { m->arch, m->op, m->dtypes, m->layout, bucket, variants, times,
		                         flyrt_version(), hash };
		if (flyrt_tuning_add(t, &row) != FLYRT_SUCCESS)
			return err("%s", flyrt_last_error());
		if (verbose)
			printf("%s %s %s %s [%s]: %s (%s us)\n", m->arch, m->op, m->dtypes, m->layout, bucket,
			       variants, times);
		g0 = g1;
	}
	return 0;
}

/* --rows: arch,family,dtypes,layout,bucket,variants[,times_us,flyc_version,codeobj_hash]
 * (the last three together: what --dump prints) */
static int
read_rows(const char *path, flyrt_tuning *t)
{
	size_t len;
	char *text = fio_read_file(path, (size_t)1 << 28, &len), *cur = text;
	int lineno = 0, rc = 0, nrows = 0;

	if (!text)
		return err("cannot read '%s': %s", path, strerror(errno));
	if (strlen(text) != len) {
		free(text);
		return err("%s: contains a NUL byte", path);
	}
	for (char *line; (line = next_line(&cur)); ) {
		char *f[10], *s = trim(line);
		int nf;
		lineno++;
		if (!*s || *s == '#' || (nrows == 0 && !strncmp(s, "arch,", 5)))
			continue;
		nf = fields(s, f, 9);
		if (nf != 6 && nf != 9) {
			rc = err("%s:%d: expected arch,family,dtypes,layout,bucket,variants"
			         "[,times_us,flyc_version,codeobj_hash]", path, lineno);
			break;
		}
		flyrt_tuning_row row = { f[0], f[1], f[2], f[3], f[4], f[5], nf == 9 ? f[6] : "",
		                         nf == 9 ? f[7] : "", nf == 9 ? f[8] : "" };
		if (flyrt_tuning_add(t, &row) != FLYRT_SUCCESS) {
			rc = err("%s:%d: %s", path, lineno, flyrt_last_error());
			break;
		}
		nrows++;
	}
	free(text);
	return rc;
}

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The names measured for (arch, op, dtypes, layout): the key's variants in default order,
 * then for mm NT split-K (gemm_splitk.fly's two launches), with the rule's S (bare
 * name) and at most 2, 4, 8 and 16 ranges (".sN"). The count. */
enum { NSPLITS = 5 };
static int
candidates(const char *arch, flyops_op op, const char *dtypes, const char *layout,
           char (*names)[64], int max)
{
	static const int splits[NSPLITS] = { 0, 2, 4, 8, 16 };
	const char *all[64];
	const OpVariant *sk = ops_find_variant(arch, op, dtypes, "NT_splitk", NULL);
	int n = 0, nall = flyops_variants(op, arch, all, 64);

	for (int i = 0; i < nall && i < 64 && n < max; i++)
		if (ops_find_variant(arch, op, dtypes, layout, all[i]))
			snprintf(names[n++], 64, "%s", all[i]);
	for (int i = 0; sk && op == FLYOPS_MM && !strcmp(layout, "NT") && i < NSPLITS && n < max; i++)
		if (splits[i])
			snprintf(names[n++], 64, "%s.s%d", sk->variant, splits[i]);
		else
			snprintf(names[n++], 64, "%s", sk->variant);
	return n;
}

/* One modelled run of variant ex->variant on the simulator: the call's modelled time
 * (every launch of it summed), or -1 with a message. */
static double
modelled_us(flyops_context *ctx, const flyrt_timing_config *tc, DLTensor *A, DLTensor *B,
            const DLTensor *bias, DLTensor *C, flyops_exec *ex)
{
	flyrt_device *dev = flyops_device(ctx);
	flyrt_timing t;

	if (flyrt_device_set_timing(dev, tc) != FLYRT_SUCCESS)
		return -1;
	flyrt_status st = flyops_mm(ctx, A, B, bias, C, ex);
	if (st == FLYRT_SUCCESS)
		st = flyrt_last_timing(dev, &t);
	flyrt_device_set_timing(dev, NULL);
	if (st != FLYRT_SUCCESS)
		return -1;
	return t.total_us;
}

/* mm's key "T->O" or "T+O->O" (a bias of the output type): T bf16 or f16, O T or f32;
 * *t and *o the DLPack types, *bias 1 with a bias. 0, or 1 after an error */
static int
mm_dtypes(const char *dtypes, DLDataType *t, DLDataType *o, int *bias)
{
	static const struct { const char *name; DLDataType dt; } types[] = {
		{ "bf16", { kDLBfloat, 16, 1 } }, { "f16", { kDLFloat, 16, 1 } }, { "f32", { kDLFloat, 32, 1 } },
	};
	char in[16], b[16], out[16];
	int it = -1, ib = -1, io = -1;

	*bias = sscanf(dtypes, "%15[a-z0-9]+%15[a-z0-9]->%15[a-z0-9]", in, b, out) == 3;
	if (!*bias && sscanf(dtypes, "%15[a-z0-9]->%15[a-z0-9]", in, out) != 2)
		goto bad;
	for (int i = 0; i < (int)(sizeof types / sizeof types[0]); i++) {
		if (!strcmp(in, types[i].name))
			it = i;
		if (!strcmp(out, types[i].name))
			io = i;
		if (*bias && !strcmp(b, types[i].name))
			ib = i;
	}
	/* the whole text matched, operands bf16/f16, output theirs or f32, bias the output's */
	char back[64];
	snprintf(back, sizeof back, *bias ? "%s+%s->%s" : "%s->%s", in, *bias ? b : out, out);
	if (strcmp(back, dtypes) || it < 0 || it > 1 || io < 0 || (io != it && io != 2) || (*bias && ib != io))
		goto bad;
	*t = types[it].dt;
	*o = types[io].dt;
	return 0;
bad:
	return err("--dtypes=%s: mm's keys are T->T, T->f32, T+T->T and T+f32->f32 (T bf16 or f16; "
	           "the bias has the output's type)", dtypes);
}

/* Measure op on the device: device tensors of the key's dtypes (with a bias for "T+O->O"),
 * each variant forced through flyops. */
static int
measure(const char *device, const char *opname, const char *shapes, const char *dtypes,
        const char *layout, int reps, int warmup, const flyrt_timing_config *tc,
        Meas **out, int *nout)
{
	flyops_options o = { device, NULL, "" };
	flyops_context *ctx;
	flyops_op op;
	const char *dn[MAX_DIMS];
	Meas *ms = NULL;
	int n = 0, rc = 0;

	if (op_of(opname, &op))
		return err("unknown operator '%s'", opname);
	if (op != FLYOPS_MM || !ops_bucket_dims(op, dn, MAX_DIMS))
		return err("operator '%s' has no kernels to measure yet", opname);
	if (strlen(layout) != 2 || !strchr("NT", layout[0]) || !strchr("NT", layout[1]))
		return err("--layout=%s: mm's layouts are NT, NN, TN and TT", layout);
	DLDataType tin, tout;
	int has_bias;
	if (mm_dtypes(dtypes, &tin, &tout, &has_bias))
		return 1;
	if (flyops_create(&o, &ctx) != FLYRT_SUCCESS)
		return err("%s", flyrt_last_error());
	int sim = flyrt_device_backend(flyops_device(ctx)) == FLYRT_BACKEND_SIM;
	if (sim && flyrt_device_set_timing(flyops_device(ctx), tc) != FLYRT_SUCCESS) {
		rc = err("--timing-device: %s", flyrt_last_error());
		flyops_destroy(ctx);
		return rc;
	}
	if (sim)
		flyrt_device_set_timing(flyops_device(ctx), NULL);
	if (!sim && (tc->device || tc->sample)) {
		flyops_destroy(ctx);
		return err("--timing-device and --timing-sample apply to the simulator's timing model; "
		           "the device is a GPU, whose launches are timed");
	}
	const char *arch = flyrt_device_arch(flyops_device(ctx));
	char names[64 + NSPLITS][64];
	int nv = candidates(arch, op, dtypes, layout, names, 64 + NSPLITS);
	char *list = strdup(shapes), *save = NULL;
	for (char *s = strtok_r(list, ",", &save); s && !rc; s = strtok_r(NULL, ",", &save)) {
		int64_t d[MAX_DIMS];
		if (parse_shape(trim(s), d, 3)) {
			rc = err("bad shape '%s' (MxNxK)", s);
			break;
		}
		int64_t M = d[0], N = d[1], K = d[2];
		size_t ob = tout.bits / 8;
		size_t sa = (size_t)(M * K) * 2, sb = (size_t)(N * K) * 2, sc = (size_t)(M * N) * ob;
		size_t sbias = has_bias ? (size_t)N * ob : 0;
		flyrt_deviceptr pa = 0, pb = 0, pc = 0, pbias = 0;
		/* on a GPU device tensors; on the simulator host tensors (staged by flyops); the
		 * bias zeros (its values do not change the time) */
		uint16_t *host = malloc(sa > sb ? sa : sb), *hc = sim ? malloc(sc) : NULL;
		void *hbias = has_bias ? calloc(1, sbias) : NULL;
		if (!host || (sim && !hc) || (has_bias && !hbias)) {
			rc = err("cannot allocate the operands of %s: out of memory", s);
		} else if (!sim && (flyrt_malloc(flyops_device(ctx), sa, &pa) || flyrt_malloc(flyops_device(ctx), sb, &pb) ||
		           flyrt_malloc(flyops_device(ctx), sc, &pc) ||
		           (has_bias && flyrt_malloc(flyops_device(ctx), sbias, &pbias)))) {
			rc = err("cannot allocate the operands of %s: %s", s, flyrt_last_error());
		} else {
			uint32_t seed = 1;
			for (size_t i = 0; i < (sa > sb ? sa : sb) / 2; i++) {
				seed = seed * 1664525u + 1013904223u;
				host[i] = (uint16_t)(0x3c00 | ((seed >> 16) & 0x7f) | ((seed >> 8) & 0x8000));
			}
			if (!sim) {
				flyrt_memcpy_htod(flyops_device(ctx), pa, host, sa);
				flyrt_memcpy_htod(flyops_device(ctx), pb, host, sb);
				if (has_bias)
					flyrt_memcpy_htod(flyops_device(ctx), pbias, hbias, sbias);
			}
			/* a row-major (N) or column-major (T); b column-major (T: NT's b = b^T
			 * row-major) or row-major (N) */
			int64_t shA[2] = { M, K }, shB[2] = { K, N }, shC[2] = { M, N }, shBias[1] = { N };
			int64_t stA[2] = { K, 1 }, stB[2] = { 1, K };
			if (layout[0] == 'T')
				stA[0] = 1, stA[1] = M;
			if (layout[1] == 'N')
				stB[0] = N, stB[1] = 1;
			DLDevice dev = { kDLROCM, ctx->hip_ordinal };
			if (sim)
				dev = (DLDevice){ kDLCPU, 0 };
			void *da = sim ? (void *)host : (void *)(uintptr_t)pa;
			void *db = sim ? (void *)host : (void *)(uintptr_t)pb;
			void *dc = sim ? (void *)hc : (void *)(uintptr_t)pc;
			void *dbias = sim ? hbias : (void *)(uintptr_t)pbias;
			DLTensor A = { da, dev, 2, tin, shA, stA, 0 };
			DLTensor B = { db, dev, 2, tin, shB, stB, 0 };
			DLTensor C = { dc, dev, 2, tout, shC, NULL, 0 };
			DLTensor Bias = { dbias, dev, 1, tout, shBias, NULL, 0 };
			const DLTensor *bias = has_bias ? &Bias : NULL;
			for (int v = 0; v < nv && !rc; v++) {
				flyops_exec ex = { NULL, 1, names[v], "" };
				int splits;
				ops_row_variant(arch, op, dtypes, layout, names[v], &splits);
				if (splits > (K + 63) / 64)
					continue;   /* more ranges than k-tiles: as many as k-tiles, measured */
				double *t = calloc((size_t)reps, sizeof *t);
				if (flyops_mm(ctx, &A, &B, bias, &C, &ex) != FLYRT_SUCCESS) {
					free(t);
					continue;   /* this variant does not take the shape */
				}
				ex.plan_only = 0;
				if (sim) {
					/* the model is deterministic: one timed run is the time */
					double us = modelled_us(ctx, tc, &A, &B, bias, &C, &ex);
					if (us < 0)
						rc = err("%s on %s: %s", names[v], s, flyrt_last_error());
					for (int r = 0; r < reps; r++)
						t[r] = us;
				}
				for (int r = 0; r < (sim ? 0 : warmup + reps) && !rc; r++) {
					double t0 = now_us();
					if (flyops_mm(ctx, &A, &B, bias, &C, &ex) != FLYRT_SUCCESS ||
					    flyrt_synchronize(flyops_device(ctx)) != FLYRT_SUCCESS)
						rc = err("%s on %s: %s", names[v], s, flyrt_last_error());
					if (r >= warmup)
						t[r - warmup] = now_us() - t0;
				}
				if (!rc) {
					qsort(t, (size_t)reps, sizeof *t, cmp_double);
					Meas m;
					memset(&m, 0, sizeof m);
					snprintf(m.arch, sizeof m.arch, "%s", arch);
					snprintf(m.op, sizeof m.op, "%s", opname);
					snprintf(m.dtypes, sizeof m.dtypes, "%s", dtypes);
					snprintf(m.layout, sizeof m.layout, "%s", layout);
					snprintf(m.variant, sizeof m.variant, "%s", names[v]);
					m.dims[0] = M, m.dims[1] = N, m.dims[2] = K;
					m.time_us = t[reps / 2] > 0 ? t[reps / 2] : 1e-3;
					Meas *nm = NULL;
					if (check_meas(&m, "measurement"))
						rc = 1;
					else if (!(nm = realloc(ms, sizeof *nm * (size_t)(n + 1))))
						rc = err("out of memory");
					else
						(ms = nm)[n++] = m;
					if (sim)
						printf("%s %s %s: %.3f us (modelled, %s)\n", arch, names[v], s,
						       m.time_us, tc->device && *tc->device ? tc->device : "default row");
					else
						printf("%s %s %s: %.3f us\n", arch, names[v], s, m.time_us);
				}
				free(t);
			}
		}
		free(host);
		free(hc);
		free(hbias);
		flyrt_free(flyops_device(ctx), pbias);
		flyrt_free(flyops_device(ctx), pa);
		flyrt_free(flyops_device(ctx), pb);
		flyrt_free(flyops_device(ctx), pc);
	}
	free(list);
	flyops_destroy(ctx);
	if (!rc && n == 0)
		rc = err("no variant ran any of the shapes");
	if (rc) {
		free(ms);
		return rc;
	}
	*out = ms;
	*nout = n;
	return 0;
}

static int
dump(const char *path)
{
	flyrt_tuning *t;
	flyrt_tuning_row r;

	if (flyrt_tuning_load(path, &t) != FLYRT_SUCCESS)
		return err("%s", flyrt_last_error());
	printf("arch,family,dtypes,layout,bucket,variants,times_us,flyc_version,codeobj_hash\n");
	for (int i = 0; i < flyrt_tuning_row_count(t); i++) {
		flyrt_tuning_row_at(t, i, &r);
		printf("%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r.arch, r.family, r.dtypes, r.layout, r.bucket,
		       r.variants, r.times_us, r.flyc_version, r.codeobj_hash);
	}
	flyrt_tuning_destroy(t);
	return 0;
}

/* Rows of old not replaced by a row of t with the same key and bucket, then t's rows. */
static int
merge(const char *path, flyrt_tuning **t)
{
	flyrt_tuning *old, *m;
	flyrt_tuning_row r, q;

	flyrt_status st = flyrt_tuning_load(path, &old);
	if (st == FLYRT_ERROR_FILE && access(path, F_OK))
		return 0;   /* nothing to merge with yet */
	if (st != FLYRT_SUCCESS)
		return err("--merge: %s", flyrt_last_error());
	if (flyrt_tuning_new(&m) != FLYRT_SUCCESS) {
		flyrt_tuning_destroy(old);
		return err("out of memory");
	}
	for (int i = 0; i < flyrt_tuning_row_count(old); i++) {
		int replaced = 0;
		flyrt_tuning_row_at(old, i, &r);
		for (int j = 0; j < flyrt_tuning_row_count(*t) && !replaced; j++) {
			flyrt_tuning_row_at(*t, j, &q);
			replaced = !strcmp(r.arch, q.arch) && !strcmp(r.family, q.family) &&
			           !strcmp(r.dtypes, q.dtypes) && !strcmp(r.layout, q.layout) &&
			           !strcmp(r.bucket, q.bucket);
		}
		if (!replaced)
			flyrt_tuning_add(m, &r);
	}
	for (int j = 0; j < flyrt_tuning_row_count(*t); j++) {
		flyrt_tuning_row_at(*t, j, &q);
		flyrt_tuning_add(m, &q);
	}
	flyrt_tuning_destroy(old);
	flyrt_tuning_destroy(*t);
	*t = m;
	return 0;
}

static const char *
opt_val(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

int
main(int argc, char **argv)
{
	const char *meas = NULL, *rows = NULL, *out = NULL, *dumpdb = NULL, *op = NULL, *shapes = NULL;
	const char *device = NULL, *kdir_opt = NULL, *dtypes = "bf16->bf16", *layout = "NT", *v;
	int reps = 20, warmup = 3, do_merge = 0, rc;
	flyrt_timing_config tc = { NULL, 0, 1 };   /* the simulator: timing-only, the model's sample */
	Meas *ms = NULL;
	int nms = 0;
	flyrt_tuning *t = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if ((v = opt_val(a, "--measurements"))) {
			meas = v;
		} else if ((v = opt_val(a, "--rows"))) {
			rows = v;
		} else if ((v = opt_val(a, "--op"))) {
			op = v;
		} else if ((v = opt_val(a, "--shapes"))) {
			shapes = v;
		} else if ((v = opt_val(a, "--dtypes"))) {
			dtypes = v;
		} else if ((v = opt_val(a, "--layout"))) {
			layout = v;
		} else if ((v = opt_val(a, "--device"))) {
			device = v;
		} else if ((v = opt_val(a, "--timing-device"))) {
			tc.device = v;
		} else if ((v = opt_val(a, "--timing-sample"))) {
			char *end;
			long x = strtol(v, &end, 10);
			if (*end || !*v || x < 0 || x > 1 << 20) {
				fprintf(stderr, "%s: error: bad %s (a count of workgroups, 0: the default)\n", prog, a);
				return 2;
			}
			tc.sample = (int)x;
		} else if ((v = opt_val(a, "--kernel-dir"))) {
			kdir_opt = v;
		} else if ((v = opt_val(a, "--reps")) || (v = opt_val(a, "--warmup"))) {
			char *end;
			long x = strtol(v, &end, 10);
			if (*end || x < (a[2] == 'r') || x > 100000) {
				fprintf(stderr, "%s: error: bad %s\n", prog, a);
				return 2;
			}
			*(a[2] == 'r' ? &reps : &warmup) = (int)x;
		} else if (!strcmp(a, "--merge")) {
			do_merge = 1;
		} else if (!strcmp(a, "--dump") && i + 1 < argc) {
			dumpdb = argv[++i];
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			out = argv[++i];
		} else {
			fprintf(stderr, "%s: error: unknown argument '%s'\n", prog, a);
			usage(stderr);
			return 2;
		}
	}
	if (dumpdb)
		return dump(dumpdb);
	if (!out || (!!meas + !!rows + !!op) != 1 || (op && !shapes)) {
		usage(stderr);
		return 2;
	}
	if (flyrt_tuning_new(&t) != FLYRT_SUCCESS)
		return err("%s", flyrt_last_error());
	if (rows) {
		rc = read_rows(rows, t);
	} else {
		char *kdir = NULL, why[1200];
		rc = meas ? read_measurements(meas, &ms, &nms) :
		     measure(device, op, shapes, dtypes, layout, reps, warmup, &tc, &ms, &nms);
		if (!rc && ops_kernel_dir(kdir_opt, &kdir, why, sizeof why))
			rc = err("%s", why);
		if (!rc)
			rc = rank_rows(ms, nms, kdir, t, 1);
		free(kdir);
		free(ms);
	}
	if (!rc && do_merge)
		rc = merge(out, &t);
	if (!rc && flyrt_tuning_save(t, out) != FLYRT_SUCCESS)
		rc = err("%s", flyrt_last_error());
	if (!rc)
		printf("wrote %s: %d rows\n", out, flyrt_tuning_row_count(t));
	flyrt_tuning_destroy(t);
	return rc;
}
