/* fileio.c — atomic output files (runtime/fileio.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <cmocka.h>

#include "fileio.h"

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/flyc-fileio-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd);
}

static int
count_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

static void
writes_whole_file_and_leaves_no_temporary(void **state)
{
	char path[128], err[256], buf[16] = {0};
	FILE *f;

	(void)state;
	snprintf(path, sizeof path, "%s/out.bin", dir);
	assert_int_equal(fio_write_file(path, "hello", 5, err, sizeof err), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof buf, f), 5);
	fclose(f);
	assert_string_equal(buf, "hello");
	assert_int_equal(count_entries(), 1);
}

static void
abort_keeps_the_old_contents(void **state)
{
	char path[128], err[256], buf[16] = {0};
	FioOut o;
	FILE *f;

	(void)state;
	snprintf(path, sizeof path, "%s/keep.txt", dir);
	assert_int_equal(fio_write_file(path, "old", 3, err, sizeof err), 0);
	assert_int_equal(fio_open(&o, path, err, sizeof err), 0);
	fputs("new and half-written", o.f);
	fio_abort(&o);
	f = fopen(path, "rb");
	assert_int_equal(fread(buf, 1, sizeof buf, f), 3);
	fclose(f);
	assert_string_equal(buf, "old");
	unlink(path);
	assert_int_equal(count_entries(), 1);
}

/* Writing to /dev/null must not replace the device node with a file. */
static void
special_files_are_written_in_place(void **state)
{
	struct stat st;
	char err[256];

	(void)state;
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(fio_write_file("/dev/null", "x", 1, err, sizeof err), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_size, 0);
}

static void
errors_name_the_path(void **state)
{
	char path[128], err[256];

	(void)state;
	assert_int_equal(fio_write_file(dir, "x", 1, err, sizeof err), -1);
	assert_non_null(strstr(err, "directory"));
	snprintf(path, sizeof path, "%s/no/such/dir/f", dir);
	assert_int_equal(fio_write_file(path, "x", 1, err, sizeof err), -1);
	assert_non_null(strstr(err, path));
	assert_int_equal(fio_write_file("", "x", 1, err, sizeof err), -1);
}

static void
reads_files_and_pipes_whole(void **state)
{
	char path[128], err[256], *big, *got;
	size_t n = 200000, len = 0, i;
	FILE *p;

	(void)state;
	big = malloc(n);
	assert_non_null(big);
	for (i = 0; i < n; i++)
		big[i] = (char)(i * 7 + i / 251);
	snprintf(path, sizeof path, "%s/in.bin", dir);
	assert_int_equal(fio_write_file(path, big, n, err, sizeof err), 0);
	got = fio_read_file(path, n, &len);
	assert_non_null(got);
	assert_int_equal(len, n);
	assert_memory_equal(got, big, n);
	assert_int_equal(got[n], 0);
	free(got);
	/* one byte over the limit */
	errno = 0;
	assert_null(fio_read_file(path, n - 1, &len));
	assert_int_equal(errno, EFBIG);
	/* an empty file */
	assert_int_equal(fio_write_file(path, "", 0, err, sizeof err), 0);
	got = fio_read_file(path, 10, &len);
	assert_non_null(got);
	assert_int_equal(len, 0);
	assert_int_equal(got[0], 0);
	free(got);
	/* a pipe, whose size is unknown in advance */
	p = popen("seq 1 30000", "r");
	assert_non_null(p);
	got = fio_read(p, (size_t)1 << 20, &len);
	pclose(p);
	assert_non_null(got);
	assert_int_equal(len, strlen(got));
	assert_non_null(strstr(got, "\n29999\n30000\n"));
	assert_int_equal(strncmp(got, "1\n2\n3\n", 6), 0);
	free(got);
	/* missing file and a directory */
	snprintf(path, sizeof path, "%s/missing", dir);
	errno = 0;
	assert_null(fio_read_file(path, 10, &len));
	assert_int_equal(errno, ENOENT);
	assert_null(fio_read_file(dir, 10, &len));
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writes_whole_file_and_leaves_no_temporary),
		cmocka_unit_test(abort_keeps_the_old_contents),
		cmocka_unit_test(special_files_are_written_in_place),
		cmocka_unit_test(errors_name_the_path),
		cmocka_unit_test(reads_files_and_pipes_whole),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
