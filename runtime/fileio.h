/*
 * fileio.h — reading whole files, and writing output files so that a failure
 * never leaves a partial file.
 *
 * fio_open writes to a temporary file beside PATH and fio_commit renames it over
 * PATH; fio_abort removes it. Two kinds of path are written directly instead:
 * "-" (standard output) and a path that exists but is not a regular file
 * (/dev/null, a FIFO, a terminal) — renaming over those would replace the
 * device node itself, which is how a root build once turned /dev/null into a
 * regular file. Used by every tool that writes outputs (flyc, flyc-sim, the
 * launcher generator).
 */
#ifndef FLY_FILEIO_H
#define FLY_FILEIO_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
	FILE *f;        /* write here between fio_open and fio_commit/fio_abort */
	char *path;     /* the destination */
	char *tmp;      /* the temporary file, or NULL when writing directly */
} FioOut;

/* Returns 0, or -1 with a message (naming path) in err. */
int fio_open(FioOut *o, const char *path, char *err, size_t errlen);
/* Flushes, closes and moves the file into place. Returns 0, or -1 with a message;
 * on failure the temporary file is removed and PATH is left as it was. */
int fio_commit(FioOut *o, char *err, size_t errlen);
/* Discards everything written since fio_open. */
void fio_abort(FioOut *o);
/* fio_open + fwrite + fio_commit. */
int fio_write_file(const char *path, const void *data, size_t n, char *err, size_t errlen);

/* Reads F to its end (a file, pipe or terminal; F stays open) into a malloc'd
 * buffer with a NUL after the LEN bytes. NULL with errno set on failure:
 * ENOMEM, EFBIG (more than MAX bytes) or EIO. */
char *fio_read(FILE *f, size_t max, size_t *len);
/* fio_read of the file at PATH (NULL with errno from fopen when it cannot be opened). */
char *fio_read_file(const char *path, size_t max, size_t *len);

#endif
