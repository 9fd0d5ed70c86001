/*
 * flyrt_dispatch.c — kernel variants and the tuning database.
 *
 * A tuning database is a SQLite file (as AOTriton keeps its operator tuning) with one
 * table of rows, each naming the variants to try for a class of calls, best first:
 *
 *   arch    family  dtypes       layout  bucket                        variants
 *   gfx950  mm      bf16->bf16   NT      M>128 M<=256 N>128 N<=256 ..  gemm_nt_128x128 gemm_nt_256x128
 *   *       saxpy                        n>=1024                       saxpy_v4 saxpy_any
 *
 * plus two validators per row: the flyc version that wrote it and the hash of the code
 * object holding its variants ("fnv1a64:<16 hex digits>", FNV-1a 64 of the bytes loaded).
 * A row applies to a call when its arch is the device's processor (or "*"), family,
 * dtypes and layout are the ones asked for ("" for plain kernel families), each
 * non-empty validator equals the running library's value (a row written for another
 * flyc or another build of the code object is stale and ignored), and its bucket
 * holds. A bucket is "*" or conditions separated by spaces, all of which must hold:
 * NAME OP INT with OP one of < <= > >= == !=, or NAME%INT==INT / NAME%INT!=INT, where
 * NAME is an integer scalar argument of the kernel (e.g. M, N, K of the GEMMs).
 *
 * For a call, the candidates are the variants of every applying row, rows in the
 * database's order (column id), each name once. flyrt_dispatch tries them in that
 * order and launches the first that the module has and whose requires accept the call.
 *
 * Schema (docs/runtime.md, "Tuning databases"):
 *   CREATE TABLE flyc_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);  -- schema = 1
 *   CREATE TABLE tuning (id INTEGER PRIMARY KEY, arch, family, dtypes, layout, bucket,
 *                        variants, times_us, flyc_version, codeobj_hash  -- all TEXT NOT NULL);
 * A database is read whole at load (it is small); a flyrt_tuning is not changed by
 * lookups, so several threads may share one. Saving writes a temporary file beside
 * the destination and renames it, so a failure never leaves a half-written database.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "flyrt_internal.h"

enum {
	SCHEMA_VERSION = 1,
	MAX_ROWS = 1 << 20,          /* a database larger than this is refused */
	MAX_TEXT = 4096,             /* any one field */
	MAX_CANDIDATES = 64,
};

typedef enum { C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE, C_MOD_EQ, C_MOD_NE } CondOp;

typedef struct {
	char *name;
	CondOp op;
	int64_t a, b;          /* NAME OP a; or NAME % a ==/!= b */
} Cond;

/* The text fields of a row, in schema order (one table for the struct, SQL and checks). */
#define ROW_FIELDS(X) \
	X(arch) X(family) X(dtypes) X(layout) X(bucket) X(variants) X(times_us) \
	X(flyc_version) X(codeobj_hash)

typedef struct {
#define X(f) char *f;
	ROW_FIELDS(X)
#undef X
	Cond *conds;
	int nconds;            /* 0: "*" */
	char **names;          /* variants split at spaces */
	int nnames;
	long long id;          /* order in the database (1, 2, ... for rows added in memory) */
} Row;

struct flyrt_tuning {
	Row *rows;
	int nrows, cap;
};

/* ---- rows ------------------------------------------------------------------------- */

static void
row_free(Row *r)
{
#define X(f) free(r->f);
	ROW_FIELDS(X)
#undef X
	for (int i = 0; i < r->nconds; i++)
		free(r->conds[i].name);
	free(r->conds);
	for (int i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	memset(r, 0, sizeof *r);
}

void
flyrt_tuning_destroy(flyrt_tuning *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nrows; i++)
		row_free(&t->rows[i]);
	free(t->rows);
	free(t);
}

flyrt_status
flyrt_tuning_new(flyrt_tuning **out)
{
	if (!out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_new: out is NULL");
	*out = calloc(1, sizeof **out);
	if (!*out)
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	return FLYRT_SUCCESS;
}

static int
is_ident(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

/* Characters a field may hold besides letters and digits ("" = none). */
static int
chars_ok(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

static int
int_at(const char *s, int64_t *out)
{
	char *end;
	if (!*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* One condition word, e.g. "M<=128" or "K%64==0". */
static int
parse_cond(const char *word, Cond *c)
{
	static const struct { const char *t; CondOp op; } ops[] = {
		{ "<=", C_LE }, { ">=", C_GE }, { "==", C_EQ }, { "!=", C_NE }, { "<", C_LT }, { ">", C_GT },
	};
	char w[256];
	size_t n;
	char *rest;

	memset(c, 0, sizeof *c);
	if (strlen(word) >= sizeof w)
		return -1;
	strcpy(w, word);
	n = strcspn(w, "<>=!%");
	rest = w + n;
	if (n == 0 || !*rest)
		return -1;
	if (*rest == '%') {
		char *e = rest + 1 + strcspn(rest + 1, "=!");
		if (strncmp(e, "==", 2) && strncmp(e, "!=", 2))
			return -1;
		c->op = e[0] == '=' ? C_MOD_EQ : C_MOD_NE;
		char save = *e;
		*e = 0;
		int bad = int_at(rest + 1, &c->a) || c->a <= 0;
		*e = save;
		if (bad || int_at(e + 2, &c->b))
			return -1;
	} else {
		size_t k;
		for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
			if (!strncmp(rest, ops[k].t, strlen(ops[k].t)))
				break;
		if (k == sizeof ops / sizeof ops[0] || int_at(rest + strlen(ops[k].t), &c->a))
			return -1;
		c->op = ops[k].op;
	}
	*rest = 0;
	if (!is_ident(w))
		return -1;
	return (c->name = strdup(w)) ? 0 : -2;
}

/* Split s at spaces into newly allocated words. 0, or -1 when out of memory. */
static int
split(const char *s, char ***v, int *n)
{
	*v = NULL;
	*n = 0;
	while (*s) {
		size_t l;
		while (*s == ' ')
			s++;
		if (!(l = strcspn(s, " ")))
			break;
		char **nv = realloc(*v, sizeof **v * (size_t)(*n + 1));
		if (!nv)
			return -1;
		*v = nv;
		if (!((*v)[*n] = strndup(s, l)))
			return -1;
		(*n)++;
		s += l;
	}
	return 0;
}

static void
free_words(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int
is_hash(const char *s)
{
	if (strncmp(s, "fnv1a64:", 8) || strlen(s) != 24)
		return 0;
	for (s += 8; *s; s++)
		if (!isxdigit((unsigned char)*s) || isupper((unsigned char)*s))
			return 0;
	return 1;
}

/* Check a row's fields and fill its parsed parts. where names the row in messages. */
static flyrt_status
row_init(Row *r, const flyrt_tuning_row *src, const char *where)
{
	char **bw = NULL;
	int nbw = 0;
	flyrt_status st = FLYRT_SUCCESS;
#define BAD(...) do { st = flyrt_fail(FLYRT_ERROR_INVALID_TUNING, __VA_ARGS__); goto out; } while (0)

	memset(r, 0, sizeof *r);
#define X(f) if (!src->f) BAD("%s: %s is NULL", where, #f); \
	if (strlen(src->f) > MAX_TEXT) BAD("%s: %s is longer than %d bytes", where, #f, MAX_TEXT);
	ROW_FIELDS(X)
#undef X
	if (strcmp(src->arch, "*") && !(chars_ok(src->arch, "_") && src->arch[0]))
		BAD("%s: bad arch '%s' (a processor such as gfx950, or *)", where, src->arch);
	if (!is_ident(src->family))
		BAD("%s: bad family name '%s'", where, src->family);
	if (!chars_ok(src->dtypes, "_>-,+"))
		BAD("%s: bad dtypes '%s'", where, src->dtypes);
	if (!chars_ok(src->layout, "_"))
		BAD("%s: bad layout '%s'", where, src->layout);
	if (!chars_ok(src->flyc_version, ".-+_"))
		BAD("%s: bad flyc_version '%s'", where, src->flyc_version);
	if (src->codeobj_hash[0] && !is_hash(src->codeobj_hash))
		BAD("%s: bad codeobj_hash '%s' (expected fnv1a64: and 16 lowercase hex digits)", where,
		    src->codeobj_hash);
	if (split(src->variants, &r->names, &r->nnames) || split(src->bucket, &bw, &nbw))
		goto nomem;
	if (r->nnames == 0)
		BAD("%s: no variant", where);
	for (int i = 0; i < r->nnames; i++)
		if (!is_ident(r->names[i]))
			BAD("%s: bad variant name '%s'", where, r->names[i]);
	if (src->times_us[0]) {
		char **tw;
		int ntw, bad = 0;
		if (split(src->times_us, &tw, &ntw)) {
			free_words(tw, ntw);
			goto nomem;
		}
		for (int i = 0; i < ntw && !bad; i++) {
			char *end;
			errno = 0;
			double v = strtod(tw[i], &end);
			bad = errno || *end || !(v >= 0);
		}
		free_words(tw, ntw);
		if (bad || ntw != r->nnames)
			BAD("%s: times_us '%s' must be one non-negative number per variant", where,
			    src->times_us);
	}
	if (nbw == 0)
		BAD("%s: empty bucket (write * for any shape)", where);
	if (!(nbw == 1 && !strcmp(bw[0], "*"))) {
		if (!(r->conds = calloc((size_t)nbw, sizeof *r->conds)))
			goto nomem;
		for (int i = 0; i < nbw; i++) {
			int rc = parse_cond(bw[i], &r->conds[i]);
			if (rc == -2)
				goto nomem;
			if (rc)
				BAD("%s: bad condition '%s' (expected e.g. M<=128 or K%%64==0)", where, bw[i]);
			r->nconds = i + 1;
		}
	}
#define X(f) if (!(r->f = strdup(src->f))) goto nomem;
	ROW_FIELDS(X)
#undef X
	goto out;
nomem:
	st = flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
out:
	free_words(bw, nbw);
	if (st != FLYRT_SUCCESS)
		row_free(r);
	return st;
#undef BAD
}

static flyrt_status
add_row(flyrt_tuning *t, const flyrt_tuning_row *src, long long id, const char *where)
{
	flyrt_status st;

	if (t->nrows >= MAX_ROWS)
		return flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning database: more than %d rows", MAX_ROWS);
	if (t->nrows == t->cap) {
		int nc = t->cap ? 2 * t->cap : 16;
		Row *nr = realloc(t->rows, sizeof *nr * (size_t)nc);
		if (!nr)
			return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		t->rows = nr;
		t->cap = nc;
	}
	if ((st = row_init(&t->rows[t->nrows], src, where)) != FLYRT_SUCCESS)
		return st;
	t->rows[t->nrows++].id = id;
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_tuning_add(flyrt_tuning *t, const flyrt_tuning_row *row)
{
	char where[64];

	if (!t || !row)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_add: NULL parameter");
	snprintf(where, sizeof where, "tuning row %d", t->nrows + 1);
	flyrt_status st = add_row(t, row, t->nrows ? t->rows[t->nrows - 1].id + 1 : 1, where);
	if (st == FLYRT_SUCCESS)
		flyrt_clear_error();
	return st;
}

int
flyrt_tuning_row_count(const flyrt_tuning *t)
{
	return t ? t->nrows : -1;
}

flyrt_status
flyrt_tuning_row_at(const flyrt_tuning *t, int i, flyrt_tuning_row *out)
{
	if (!t || !out || i < 0 || i >= t->nrows)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_row_at: no row %d", i);
#define X(f) out->f = t->rows[i].f;
	ROW_FIELDS(X)
#undef X
	return FLYRT_SUCCESS;
}

/* ---- SQLite ----------------------------------------------------------------------- */

static const char schema_sql[] =
	"CREATE TABLE flyc_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE tuning (id INTEGER PRIMARY KEY, arch TEXT NOT NULL, family TEXT NOT NULL,"
	" dtypes TEXT NOT NULL, layout TEXT NOT NULL, bucket TEXT NOT NULL, variants TEXT NOT NULL,"
	" times_us TEXT NOT NULL, flyc_version TEXT NOT NULL, codeobj_hash TEXT NOT NULL);"
	"CREATE INDEX tuning_key ON tuning (arch, family, dtypes, layout);";

static flyrt_status
db_fail(sqlite3 *db, const char *path, const char *what)
{
	return flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning database '%s': %s: %s", path, what,
	                  db ? sqlite3_errmsg(db) : "cannot open");
}

flyrt_status
flyrt_tuning_load(const char *path, flyrt_tuning **out)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	flyrt_tuning *t = NULL;
	flyrt_status st;
	int rc;
	FILE *f;
	char head[16] = "";

	if (out)
		*out = NULL;
	if (!path || !out)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_load: NULL parameter");
	/* a missing or unreadable file is a file error, and anything that is not SQLite is
	 * named as such before SQLite is asked (it would create or misread it) */
	if (!(f = fopen(path, "rb")))
		return flyrt_fail(FLYRT_ERROR_FILE, "cannot read tuning database '%s': %s", path,
		                  strerror(errno));
	size_t got = fread(head, 1, sizeof head, f);
	fclose(f);
	if (got != sizeof head || memcmp(head, "SQLite format 3", 16))
		return flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning database '%s' is not a SQLite "
		                  "database (flyc-tune writes them; docs/runtime.md)", path);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		st = db_fail(db, path, "cannot open");
		goto out;
	}
	sqlite3_busy_timeout(db, 2000);
	if (sqlite3_prepare_v2(db, "SELECT value FROM flyc_meta WHERE name = 'schema'", -1, &q, NULL)
	    != SQLITE_OK) {
		st = db_fail(db, path, "not a flyc tuning database (no flyc_meta table)");
		goto out;
	}
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW || sqlite3_column_int(q, 0) != SCHEMA_VERSION) {
		st = flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning database '%s': schema %s, this "
		                "libflyrt reads schema %d", path,
		                rc == SQLITE_ROW && sqlite3_column_text(q, 0) ?
		                (const char *)sqlite3_column_text(q, 0) : "missing", SCHEMA_VERSION);
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(db, "SELECT id, arch, family, dtypes, layout, bucket, variants, "
	                       "times_us, flyc_version, codeobj_hash FROM tuning ORDER BY id",
	                       -1, &q, NULL) != SQLITE_OK) {
		st = db_fail(db, path, "no tuning table of the expected columns");
		goto out;
	}
	if ((st = flyrt_tuning_new(&t)) != FLYRT_SUCCESS)
		goto out;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		flyrt_tuning_row r;
		char where[4200];
		long long id = sqlite3_column_int64(q, 0);
		int col = 1;
		snprintf(where, sizeof where, "tuning database '%s' row id %lld", path, id);
#define X(f) r.f = (const char *)sqlite3_column_text(q, col++);
		ROW_FIELDS(X)
#undef X
		if ((st = add_row(t, &r, id, where)) != FLYRT_SUCCESS)
			goto out;
	}
	if (rc != SQLITE_DONE) {
		st = db_fail(db, path, "reading rows");
		goto out;
	}
	st = FLYRT_SUCCESS;
out:
	sqlite3_finalize(q);
	sqlite3_close(db);
	if (st != FLYRT_SUCCESS) {
		flyrt_tuning_destroy(t);
		return st;
	}
	flyrt_clear_error();
	*out = t;
	return FLYRT_SUCCESS;
}

flyrt_status
flyrt_tuning_save(const flyrt_tuning *t, const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *ins = NULL;
	char *tmp, meta[160];
	flyrt_status st = FLYRT_SUCCESS;
	int fd;

	if (!t || !path || !*path)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_save: NULL parameter");
	if (!(tmp = malloc(strlen(path) + 16)))
		return flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
	sprintf(tmp, "%s.tmpXXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0) {
		st = flyrt_fail(FLYRT_ERROR_FILE, "cannot write tuning database '%s': %s", path,
		                strerror(errno));
		free(tmp);
		return st;
	}
	close(fd);
	snprintf(meta, sizeof meta, "INSERT INTO flyc_meta VALUES ('schema', '%d'), "
	         "('writer', 'flyc %s');", SCHEMA_VERSION, FLYC_VERSION);
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA journal_mode=OFF; BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, meta, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO tuning VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1,
	                       &ins, NULL) != SQLITE_OK) {
		st = db_fail(db, path, "cannot create");
		goto out;
	}
	for (int i = 0; i < t->nrows; i++) {
		const Row *r = &t->rows[i];
		int col = 2;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, r->id);
#define X(f) sqlite3_bind_text(ins, col++, r->f, -1, SQLITE_STATIC);
		ROW_FIELDS(X)
#undef X
		if (sqlite3_step(ins) != SQLITE_DONE) {
			st = db_fail(db, path, "cannot write a row");
			goto out;
		}
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		st = db_fail(db, path, "cannot commit");
out:
	sqlite3_finalize(ins);
	if (db && sqlite3_close(db) != SQLITE_OK && st == FLYRT_SUCCESS)
		st = flyrt_fail(FLYRT_ERROR_FILE, "cannot close tuning database '%s'", path);
	if (st == FLYRT_SUCCESS && rename(tmp, path) != 0)
		st = flyrt_fail(FLYRT_ERROR_FILE, "cannot write tuning database '%s': %s", path,
		                strerror(errno));
	if (st != FLYRT_SUCCESS)
		unlink(tmp);
	else
		flyrt_clear_error();
	free(tmp);
	return st;
}

/* ---- validators and matching ------------------------------------------------------ */

/* FNV-1a 64, as flyrt_module.c keys its module cache (so flyrt_module_hash can use the
 * module's cache key; tests/unit/flyrt_api.c checks the two agree on a file). */
static uint64_t
fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

int
flyrt_codeobj_hash(const void *bytes, size_t size, char *buf, size_t len)
{
	if ((!bytes && size) || !buf || len < 25)
		return -1;
	snprintf(buf, len, "fnv1a64:%016llx", (unsigned long long)fnv1a(bytes, size));
	return 0;
}

int
flyrt_module_hash(const flyrt_module *mod, char *buf, size_t len)
{
	if (!mod || !buf || len < 25)
		return -1;
	/* the module cache keys modules by the same hash of the bytes given to the loader */
	snprintf(buf, len, "fnv1a64:%016llx", (unsigned long long)mod->hash);
	return 0;
}

const char *flyrt_version(void) { return FLYC_VERSION; }

/* 1 if the row's bucket holds for the call, 0 if not, -1 (error set) for a bad name. */
static int
bucket_holds(const Row *r, const flyrt_kernel *k, const flyrt_arg *args, int nargs)
{
	for (int i = 0; i < r->nconds; i++) {
		const Cond *c = &r->conds[i];
		int a;
		int64_t v;
		for (a = 0; a < k->nargs; a++)
			if (k->info[a].name && !strcmp(k->info[a].name, c->name))
				break;
		if (a == k->nargs || a >= nargs) {
			flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning row id %lld: kernel '%s' has no "
			           "argument '%s'", r->id, k->co->name, c->name);
			return -1;
		}
		switch (args[a].type) {
		case FLYRT_ARG_I32: v = args[a].v.i32; break;
		case FLYRT_ARG_U32: v = args[a].v.u32; break;
		case FLYRT_ARG_I64: v = args[a].v.i64; break;
		case FLYRT_ARG_U64: memcpy(&v, &args[a].v.u64, 8); break;
		default:
			flyrt_fail(FLYRT_ERROR_INVALID_TUNING, "tuning row id %lld: argument '%s' is not "
			           "an integer", r->id, c->name);
			return -1;
		}
		int ok = 0;
		switch (c->op) {
		case C_LT: ok = v < c->a; break;
		case C_LE: ok = v <= c->a; break;
		case C_GT: ok = v > c->a; break;
		case C_GE: ok = v >= c->a; break;
		case C_EQ: ok = v == c->a; break;
		case C_NE: ok = v != c->a; break;
		case C_MOD_EQ: ok = v % c->a == c->b; break;
		case C_MOD_NE: ok = v % c->a != c->b; break;
		}
		if (!ok)
			return 0;
	}
	return 1;
}

/* The row applies to calls of kernel k (arch, key and validators; not the bucket). */
static int
row_applies(const Row *r, const char *family, const char *dtypes, const char *layout,
            const flyrt_kernel *k)
{
	char h[32];

	if (strcmp(r->family, family) || strcmp(r->dtypes, dtypes) || strcmp(r->layout, layout))
		return 0;
	if (!k)
		return 1;
	if (strcmp(r->arch, "*") && strcmp(r->arch, k->mod->dev->arch))
		return 0;
	if (r->flyc_version[0] && strcmp(r->flyc_version, FLYC_VERSION))
		return 0;
	if (r->codeobj_hash[0] && (flyrt_module_hash(k->mod, h, sizeof h) || strcmp(h, r->codeobj_hash)))
		return 0;
	return 1;
}

/* The variants of the applying rows (all rows of the key when k is NULL), in database
 * order without repeats; the first max go to names. Count, or -1 with the error set. */
static int
collect(const flyrt_tuning *t, const char *family, const char *dtypes, const char *layout,
        const flyrt_kernel *k, const flyrt_arg *args, int nargs, const char **names, int max)
{
	int total = 0, n = 0;
	const char **all;

	for (int i = 0; i < t->nrows; i++)
		total += t->rows[i].nnames;
	if (!(all = calloc((size_t)total + 1, sizeof *all))) {
		flyrt_fail(FLYRT_ERROR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	for (int i = 0; i < t->nrows; i++) {
		const Row *r = &t->rows[i];
		if (!row_applies(r, family, dtypes, layout, k))
			continue;
		int m = k ? bucket_holds(r, k, args, nargs) : 1;
		if (m < 0) {
			free(all);
			return -1;
		}
		for (int j = 0; m && j < r->nnames; j++) {
			int q;
			for (q = 0; q < n && strcmp(all[q], r->names[j]); q++)
				;
			if (q == n)
				all[n++] = r->names[j];
		}
	}
	for (int q = 0; q < n && q < max; q++)
		names[q] = all[q];
	free(all);
	return n;
}

int
flyrt_tuning_lookup(const flyrt_tuning *t, const char *family, const char *dtypes,
                    const char *layout, const flyrt_kernel *k, const flyrt_arg *args, int nargs,
                    const char **names, int max)
{
	if (!t || !family || !dtypes || !layout || !k || (nargs && !args) || (max > 0 && !names)) {
		flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_lookup: NULL parameter");
		return -1;
	}
	return collect(t, family, dtypes, layout, k, args, nargs, names, max);
}

int
flyrt_tuning_candidates(const flyrt_tuning *t, const char *family, const flyrt_kernel *k,
                        const flyrt_arg *args, int nargs, const char **names, int max)
{
	return flyrt_tuning_lookup(t, family, "", "", k, args, nargs, names, max);
}

int
flyrt_tuning_variants(const flyrt_tuning *t, const char *family, const char **names, int max)
{
	if (!t || !family || (max > 0 && !names)) {
		flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_tuning_variants: NULL parameter");
		return -1;
	}
	return collect(t, family, "", "", NULL, NULL, 0, names, max);
}

/* ---- dispatch --------------------------------------------------------------------- */

flyrt_status
flyrt_launch_first(flyrt_kernel *const *kernels, int nkernels, const flyrt_launch_config *cfg,
                   const flyrt_arg *args, int nargs, flyrt_kernel **chosen)
{
	char why[1024] = "";
	size_t wl = 0;

	if (chosen)
		*chosen = NULL;
	if (!kernels && nkernels)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_launch_first: kernels is NULL");
	for (int i = 0; i < nkernels; i++) {
		if (!kernels[i])
			continue;
		flyrt_status st = flyrt_kernel_check(kernels[i], cfg, args, nargs, NULL);
		if (st == FLYRT_ERROR_UNSUPPORTED) {
			if (wl < sizeof why)
				wl += (size_t)snprintf(why + wl, sizeof why - wl, "%s%s", wl ? "; " : "",
				                       flyrt_last_error());
			continue;
		}
		if (st != FLYRT_SUCCESS)
			return st;
		if (chosen)
			*chosen = kernels[i];
		return flyrt_launch(kernels[i], cfg, args, nargs);
	}
	return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "no variant supports this call%s%s",
	                  wl ? ": " : "", why);
}

flyrt_status
flyrt_dispatch(const flyrt_module *mod, const flyrt_tuning *t, const char *family,
               const flyrt_launch_config *cfg, const flyrt_arg *args, int nargs,
               flyrt_kernel **chosen)
{
	const char *names[MAX_CANDIDATES];
	flyrt_kernel *ks[MAX_CANDIDATES], *rep = NULL;
	int n = 0, nk = 0;

	if (chosen)
		*chosen = NULL;
	if (!mod || !family)
		return flyrt_fail(FLYRT_ERROR_INVALID_VALUE, "flyrt_dispatch: NULL module or family");
	if (!t) {
		if (flyrt_module_get_kernel(mod, family, &rep) != FLYRT_SUCCESS)
			return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "no kernel '%s' in the module", family);
		return flyrt_launch_first(&rep, 1, cfg, args, nargs, chosen);
	}
	/* any variant present in the module names the arguments */
	n = flyrt_tuning_variants(t, family, names, MAX_CANDIDATES);
	for (int i = 0; i < n && i < MAX_CANDIDATES && !rep; i++)
		if (flyrt_module_get_kernel(mod, names[i], &rep) != FLYRT_SUCCESS)
			rep = NULL;
	if (!rep)
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "the module has no variant of '%s' listed "
		                  "in the tuning database", family);
	n = flyrt_tuning_candidates(t, family, rep, args, nargs, names, MAX_CANDIDATES);
	if (n < 0)
		return FLYRT_ERROR_INVALID_TUNING;
	if (n > MAX_CANDIDATES)
		n = MAX_CANDIDATES;
	for (int i = 0; i < n; i++)
		if (flyrt_module_get_kernel(mod, names[i], &ks[nk]) == FLYRT_SUCCESS)
			nk++;
	if (nk == 0)
		return flyrt_fail(FLYRT_ERROR_UNSUPPORTED, "no tuning row for '%s' applies to this "
		                  "call with a variant the module has", family);
	return flyrt_launch_first(ks, nk, cfg, args, nargs, chosen);
}
