/*
 * corrupt.c — the loader against systematically damaged code objects and bundles.
 * Every mutated image must load or be refused with a clear status and message;
 * a crash, a hang or a sanitizer report fails the tier. Mutations (deterministic):
 * every truncation, every byte of the ELF header and program headers set to 0x00 /
 * 0xff / flipped, the section header table overwritten, bytes of the metadata note
 * and of .flyc.meta replaced, and seeded random multi-byte damage; for bundles, each
 * header field set to boundary values, and truncations.
 * usage: corrupt CODEOBJ BUNDLE   (prints PASS:/FAIL: lines)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "flyrt.h"

static flyrt_device *dev;
static int failures;
static long loads, accepted;
static char first_bad[600];

/* Load one image; 1 if the outcome is acceptable. */
static int
try_load(const uint8_t *p, size_t n, const char *what, size_t where)
{
	flyrt_module *m = NULL;
	flyrt_status st = flyrt_module_load_data(dev, p, n, &m);

	loads++;
	if (st == FLYRT_SUCCESS) {
		accepted++;
		/* walk what the loader built */
		for (int i = 0; i < flyrt_module_kernel_count(m); i++) {
			flyrt_kernel_info ki;
			flyrt_arg_info ai;
			flyrt_kernel *k = flyrt_module_kernel_at(m, i);
			flyrt_kernel_get_info(k, &ki);
			for (int j = 0; j < ki.nargs; j++)
				flyrt_kernel_arg_info(k, j, &ai);
		}
		flyrt_module_unload(m);
		return 1;
	}
	if ((st == FLYRT_ERROR_INVALID_IMAGE || st == FLYRT_ERROR_NO_BINARY_FOR_DEVICE ||
	     st == FLYRT_ERROR_INVALID_METADATA) && m == NULL && flyrt_last_error()[0])
		return 1;
	if (!first_bad[0])
		snprintf(first_bad, sizeof first_bad, "%s at %zu: %s (%s)", what, where,
		         flyrt_status_name(st), flyrt_last_error());
	return 0;
}

static unsigned long long rs = 88172645463325252ull;
static unsigned long long
xorshift(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static void
verdict(const char *name, int bad, long n)
{
	if (bad) {
		printf("FAIL: %s\n    %d of %ld mutations gave a bad outcome; first: %s\n", name, bad, n,
		       first_bad);
		failures++;
	} else {
		printf("PASS: %s (%ld mutations)\n", name, n);
	}
	first_bad[0] = 0;
}

static size_t
find(const uint8_t *p, size_t n, const char *s)
{
	size_t l = strlen(s);
	for (size_t i = 0; i + l <= n; i++)
		if (!memcmp(p + i, s, l))
			return i;
	return 0;
}

static void
raw_object(const uint8_t *orig, size_t n)
{
	uint8_t *p = malloc(n);
	int bad = 0;
	long cnt = 0;
	static const int vals[] = { 0x00, 0xff, -1 };

	bad = 0, cnt = 0;
	for (size_t cut = 0; cut < n; cut += cut < 1024 ? 1 : 37, cnt++)
		bad += !try_load(orig, cut, "truncation", cut);
	verdict("corrupt: truncated code objects", bad, cnt);

	bad = 0, cnt = 0;
	uint64_t phoff, shoff;
	memcpy(&phoff, orig + 32, 8);
	memcpy(&shoff, orig + 40, 8);
	size_t hdr_end = phoff + 56 * 8 < n ? phoff + 56 * 8 : n;
	for (size_t i = 0; i < hdr_end; i++)
		for (int v = 0; v < 3; v++, cnt++) {
			memcpy(p, orig, n);
			p[i] = vals[v] < 0 ? p[i] ^ 0x80 : (uint8_t)vals[v];
			bad += !try_load(p, n, "header byte", i);
		}
	verdict("corrupt: ELF and program header bytes", bad, cnt);

	bad = 0, cnt = 0;
	for (size_t i = shoff; i < n; i += 1, cnt++) {
		memcpy(p, orig, n);
		p[i] = (uint8_t)xorshift();
		bad += !try_load(p, n, "section header byte", i);
	}
	memcpy(p, orig, n);
	memset(p + shoff, 0xff, n - shoff);
	bad += !try_load(p, n, "section headers all 0xff", shoff);
	cnt++;
	verdict("corrupt: section header table", bad, cnt);

	bad = 0, cnt = 0;
	size_t note = find(orig, n, "AMDGPU");
	for (size_t i = note; note && i < note + 1800 && i < n; i++)
		for (int v = 0; v < 3; v++, cnt++) {
			memcpy(p, orig, n);
			p[i] = v == 0 ? 0xc1 : v == 1 ? 0xdf : (uint8_t)(p[i] + 1);
			bad += !try_load(p, n, "metadata note byte", i);
		}
	verdict("corrupt: msgpack metadata note", bad, cnt);

	bad = 0, cnt = 0;
	size_t meta = find(orig, n, "flyc-meta ");
	if (!meta)
		bad = 1;   /* no .flyc.meta text found: nothing would be tested */
	static const char subst[] = { ' ', '\n', '0', ';', '$', '@', '\0', '9', '-' };
	for (size_t i = meta; meta && i < n && orig[i] && i < meta + 600; i++)
		for (size_t s = 0; s < sizeof subst; s++, cnt++) {
			memcpy(p, orig, n);
			p[i] = (uint8_t)subst[s];
			bad += !try_load(p, n, ".flyc.meta byte", i);
		}
	verdict("corrupt: .flyc.meta text", bad, cnt);

	bad = 0, cnt = 0;
	for (int r = 0; r < 3000; r++, cnt++) {
		memcpy(p, orig, n);
		int k = 1 + (int)(xorshift() % 8);
		for (int j = 0; j < k; j++)
			p[xorshift() % n] = (uint8_t)xorshift();
		bad += !try_load(p, n, "random damage", (size_t)r);
	}
	verdict("corrupt: seeded random damage", bad, cnt);
	free(p);
}

static void
bundle(const uint8_t *orig, size_t n)
{
	uint8_t *p = malloc(n);
	int bad = 0;
	long cnt = 0;
	uint64_t ne;

	for (size_t cut = 0; cut < n; cut += cut < 512 ? 1 : 101, cnt++)
		bad += !try_load(orig, cut, "bundle truncation", cut);
	verdict("corrupt: truncated bundles", bad, cnt);

	bad = 0, cnt = 0;
	memcpy(&ne, orig + 24, 8);
	static const uint64_t vals[] = { 0, 1, 2, 0x7fffffffffffffffull, 0xffffffffffffffffull,
	                                 0x1000, 0xfff, 24, 4096 * 16 };
	/* the count, then per entry: offset, size, id length (positions follow the ids) */
	size_t fields[64], nf = 0, pos = 32;
	fields[nf++] = 24;
	for (uint64_t e = 0; e < ne && pos + 24 <= n && nf + 3 < 64; e++) {
		uint64_t len;
		fields[nf++] = pos;
		fields[nf++] = pos + 8;
		fields[nf++] = pos + 16;
		memcpy(&len, orig + pos + 16, 8);
		pos += 24 + len;
	}
	for (size_t f = 0; f < nf; f++)
		for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++, cnt++) {
			memcpy(p, orig, n);
			memcpy(p + fields[f], &vals[v], 8);
			bad += !try_load(p, n, "bundle field", fields[f]);
		}
	for (size_t i = 0; i < pos && i < n; i++, cnt++) {  /* every header byte */
		memcpy(p, orig, n);
		p[i] ^= 0x5a;
		bad += !try_load(p, n, "bundle header byte", i);
	}
	verdict("corrupt: bundle header fields", bad, cnt);
	free(p);
}

int
main(int argc, char **argv)
{
	size_t n1, n2;
	uint8_t *co, *fat;

	if (argc != 3)
		return 2;
	co = (uint8_t *)fio_read_file(argv[1], (size_t)1 << 30, &n1);
	fat = (uint8_t *)fio_read_file(argv[2], (size_t)1 << 30, &n2);
	if (!co || !fat || flyrt_device_open("sim", &dev) != FLYRT_SUCCESS) {
		printf("FAIL: corrupt: setup\n    cannot read inputs or open the simulator\n");
		return 1;
	}
	if (n1 > (1u << 20) || n2 > (1u << 20)) {   /* keep the run short: the inputs are small */
		printf("FAIL: corrupt: setup\n    inputs of %zu and %zu bytes; expected test kernels "
		       "under 1 MiB\n", n1, n2);
		return 1;
	}
	if (!try_load(co, n1, "original", 0) || !accepted) {
		printf("FAIL: corrupt: the original code object loads\n    %s\n", flyrt_last_error());
		return 1;
	}
	raw_object(co, n1);
	bundle(fat, n2);
	printf("# %ld loads, %ld accepted\n", loads, accepted);
	flyrt_device_close(dev);
	free(co);
	free(fat);
	return failures != 0;
}
