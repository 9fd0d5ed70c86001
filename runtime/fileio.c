/* fileio.c — whole-file reads and atomic output files; see fileio.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

static void
clear(FioOut *o)
{
	free(o->path);
	free(o->tmp);
	o->f = NULL;
	o->path = o->tmp = NULL;
}

int
fio_open(FioOut *o, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof *o);
	if (!path || !*path) {
		snprintf(err, errlen, "empty output file name");
		return -1;
	}
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = strdup(path);
	if (!o->path)
		goto nomem;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "cannot write '%s': it is a directory", path);
			clear(o);
			return -1;
		}
		o->f = fopen(path, "wb");
		if (!o->f) {
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
			clear(o);
			return -1;
		}
		return 0;
	}
	o->tmp = malloc(strlen(path) + 16);
	if (!o->tmp)
		goto nomem;
	sprintf(o->tmp, "%s.tmpXXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		clear(o);
		return -1;
	}
	{
		/* mkstemp creates the file 0600; give it the usual permissions */
		mode_t um = umask(0);
		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	clear(o);
	return -1;
}

int
fio_commit(FioOut *o, char *err, size_t errlen)
{
	int ok;

	if (o->f == stdout) {
		ok = fflush(stdout) == 0 && !ferror(stdout);
		o->f = NULL;
		if (!ok)
			snprintf(err, errlen, "cannot write to standard output");
		return ok ? 0 : -1;
	}
	ok = !ferror(o->f);
	ok = (fclose(o->f) == 0) && ok;
	o->f = NULL;
	if (ok && o->tmp && rename(o->tmp, o->path) != 0)
		ok = 0;
	if (!ok) {
		snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(errno));
		if (o->tmp)
			unlink(o->tmp);
	}
	clear(o);
	return ok ? 0 : -1;
}

void
fio_abort(FioOut *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	clear(o);
}

int
fio_write_file(const char *path, const void *data, size_t n, char *err, size_t errlen)
{
	FioOut o;

	if (fio_open(&o, path, err, errlen))
		return -1;
	if (n && fwrite(data, 1, n, o.f) != n) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		fio_abort(&o);
		return -1;
	}
	return fio_commit(&o, err, errlen);
}

char *
fio_read(FILE *f, size_t max, size_t *len)
{
	char *buf = NULL, *nb;
	size_t n = 0, cap = 0, r;

	errno = 0;
	do {
		if (cap - n < 4096) {
			if (cap > max) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			cap = cap ? 2 * cap : 65536;
			if (!(nb = realloc(buf, cap + 1))) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	if (ferror(f) || n > max) {
		free(buf);
		errno = !ferror(f) ? EFBIG : errno ? errno : EIO;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

char *
fio_read_file(const char *path, size_t max, size_t *len)
{
	FILE *f;
	char *buf;
	int e;

	if (!(f = fopen(path, "rb")))
		return NULL;
	buf = fio_read(f, max, len);
	e = errno;
	fclose(f);
	errno = e;
	return buf;
}
