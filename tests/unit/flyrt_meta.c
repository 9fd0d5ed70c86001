/*
 * flyrt_meta.c — tests of the .flyc.meta parser (versions 1 and 2: `layout` records,
 * `device.cus`), the RPN formulas of `grid` and `requires`, the element-type
 * vocabulary of the launch checks, and the tuning database's rows (checks, saving, reading back, damaged files). Formulas are checked against the same
 * expression computed in C over a whole grid of values (including negatives and
 * zero divisors), and every malformed input must be refused with a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fileio.h"
#include "flyrt_internal.h"

static const MetaArg two_args[] = {
	{ "A", 1, FLYRT_ARG_PTR, "f32", 16, -1, NULL, NULL, NULL },
	{ "M", 0, FLYRT_ARG_I32, "", 0, -1, NULL, NULL, NULL },
	{ "K", 0, FLYRT_ARG_I64, "", 0, -1, NULL, NULL, NULL },
	{ "s", 0, FLYRT_ARG_F32, "", 0, -1, NULL, NULL, NULL },
};

static int64_t
eval(const char *src, int64_t a, int64_t m, int64_t k, int *ok)
{
	Rpn r;
	char err[256];
	int64_t vals[4] = { a, m, k, 0 }, out = 0;

	assert_int_equal(flyrt_rpn_compile(src, two_args, 4, &r, err, sizeof err), 0);
	*ok = flyrt_rpn_eval(&r, vals, &out) == 0;
	flyrt_rpn_free(&r);
	return out;
}

/* C's truncating division and a ceiling division computed with floating point. */
static int64_t
ceil_div_ref(int64_t a, int64_t b)
{
	long double q = (long double)a / (long double)b;
	int64_t t = (int64_t)q;
	return (long double)t < q ? t + 1 : t;
}

static void
rpn_matches_c_over_a_grid(void **state)
{
	(void)state;
	for (int64_t m = -9; m <= 9; m++)
		for (int64_t k = -5; k <= 5; k++) {
			int ok;
			assert_int_equal(eval("$M $K +", 0, m, k, &ok), m + k);
			assert_int_equal(eval("$M $K - 3 *", 0, m, k, &ok), (m - k) * 3);
			assert_int_equal(eval("$M $K min $M $K max *", 0, m, k, &ok),
			                 (m < k ? m : k) * (m > k ? m : k));
			assert_int_equal(eval("$M $K < $K $M <= ||", 0, m, k, &ok), (m < k) || (k <= m));
			assert_int_equal(eval("$M $K == !", 0, m, k, &ok), !(m == k));
			assert_int_equal(eval("$M 0 > $K 0 != &&", 0, m, k, &ok), m > 0 && k != 0);
			assert_int_equal(eval("$M $K >= $M $K != +", 0, m, k, &ok), (m >= k) + (m != k));
			int64_t q = eval("$M $K /", 0, m, k, &ok);
			assert_int_equal(ok, k != 0);
			if (k)
				assert_int_equal(q, m / k);
			int64_t r = eval("$M $K %", 0, m, k, &ok);
			assert_int_equal(ok, k != 0);
			if (k)
				assert_int_equal(r, m % k);
			int64_t c = eval("$M $K ceil_div", 0, m, k, &ok);
			assert_int_equal(ok, k != 0);
			if (k)
				assert_int_equal(c, ceil_div_ref(m, k));
		}
	/* addresses, and the example predicates of docs/metadata.md */
	int ok;
	assert_int_equal(eval("@A 16 % 0 ==", 0x1000, 0, 0, &ok), 1);
	assert_int_equal(eval("@A 16 % 0 ==", 0x1004, 0, 0, &ok), 0);
	assert_int_equal(eval("$K 64 % 0 ==", 0, 0, 128, &ok), 1);
	assert_int_equal(eval("$K 64 % 0 ==", 0, 0, 100, &ok), 0);
	assert_int_equal(eval("$M 256 ceil_div $K 256 ceil_div *", 0, 1000, 257, &ok), 4 * 2);
	/* a result outside int64 fails the formula instead of wrapping; INT64_MIN % -1 is 0 */
	eval("9223372036854775807 1 +", 0, 0, 0, &ok);
	assert_false(ok);
	eval("$K -1 /", 0, 0, INT64_MIN, &ok);
	assert_false(ok);
	assert_int_equal(eval("$K -1 %", 0, 0, INT64_MIN, &ok), 0);
	assert_true(ok);
}

/* + - * are exact over the integers or fail (never wrap), checked against
 * 128-bit arithmetic on values around the 32- and 64-bit limits */
static void
rpn_overflow_fails(void **state)
{
	static const int64_t v[] = {
		0, 1, -1, 2, 3, 46341, 65536, INT32_MAX, INT32_MIN, (int64_t)1 << 32, 3037000499,
		3037000500, ((int64_t)1 << 62) - 1, (int64_t)1 << 62, INT64_MAX - 1, INT64_MAX,
		INT64_MIN + 1, INT64_MIN,
	};
	static const char *ops[] = { "$K $M +", "$K $M -", "$K $M *" };
	const size_t nv = sizeof v / sizeof v[0];

	(void)state;
	for (size_t i = 0; i < nv; i++)
		for (size_t j = 0; j < nv; j++)
			for (int o = 0; o < 3; o++) {
				__extension__ __int128 x = v[i], y = v[j];
				__extension__ __int128 want = o == 0 ? x + y : o == 1 ? x - y : x * y;
				int fits = want >= INT64_MIN && want <= INT64_MAX, ok;
				int64_t got = eval(ops[o], 0, v[j], v[i], &ok);
				if (ok != fits)
					fail_msg("%lld %s %lld: ok=%d, expected %d", (long long)v[i], ops[o] + 6,
					         (long long)v[j], ok, fits);
				if (fits)
					assert_int_equal(got, (int64_t)want);
			}
	/* the span bounds of docs/codegen.md: M * K of two i32 maxima is exact in
	 * 64 bits (so the predicate is false, not wrapped to a small value), and a
	 * product of three that leaves 64 bits fails the predicate */
	int ok;
	assert_int_equal(eval("$M $K * 2147483648 <", 0, INT32_MAX, INT32_MAX, &ok), 0);
	assert_true(ok);
	assert_int_equal(eval("$M $K * 2147483648 <", 0, 65536, 32767, &ok), 1);
	assert_int_equal(eval("$M $K * 2147483648 <", 0, 65536, 32768, &ok), 0);
	/* 2^22 * 2^21 * 2^21 = 2^64 wraps to 0 in 64-bit arithmetic */
	eval("$M $K * $K * 1073741824 <=", 0, (int64_t)1 << 22, (int64_t)1 << 21, &ok);
	assert_false(ok);
}

static void
rpn_refuses_malformed(void **state)
{
	static const char *bad[] = {
		"", "1 2", "+", "1 +", "$M $K", "$Nope 1 +", "$A", "@M", "$s 1 >", "1 2 ^",
		"99999999999999999999", "- 1", "ceil_div", "1 !=", "$", "@", "1 2 + +",
	};
	char err[256];
	Rpn r;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		if (flyrt_rpn_compile(bad[i], two_args, 4, &r, err, sizeof err) == 0)
			fail_msg("formula '%s' was accepted", bad[i]);
		assert_true(strlen(err) > 0);
	}
	/* very deep stacks are refused, not overflowed */
	char deep[1024] = "";
	for (int i = 0; i < 100; i++)
		strcat(deep, "1 ");
	for (int i = 0; i < 99; i++)
		strcat(deep, "+ ");
	assert_int_equal(flyrt_rpn_compile(deep, two_args, 4, &r, err, sizeof err), -1);
}

static const char good_meta[] =
	"flyc-meta 1\n"
	"# a comment\n"
	"kernel gemm\n"
	"arg A ptr f16 16\n"
	"arg B ptr bf16\n"
	"arg M val i32\n"
	"arg N val u64\n"
	"arg alpha val f32\n"
	"block 256 1 1\n"
	"grid $M 128 ceil_div ; $N 64 ceil_div ; 1\n"
	"lds 65536\n"
	"requires $M 0 > ; M > 0\n"
	"requires @A 16 % 0 == ; aligned(A, 16)\n"
	"end\n"
	"kernel other\n"
	"end\n";

static void
meta_parses(void **state)
{
	FlyMeta m;
	char err[256] = "";
	const MetaKernel *k;
	int64_t vals[5] = { 0x100, 0x200, 1000, 100, 0 }, v;

	(void)state;
	assert_int_equal(flyrt_meta_parse(good_meta, sizeof good_meta - 1, &m, err, sizeof err), 0);
	assert_int_equal(m.nkernels, 2);
	k = flyrt_meta_find(&m, "gemm");
	assert_non_null(k);
	assert_int_equal(k->nargs, 5);
	assert_true(k->args[0].is_ptr);
	assert_int_equal(k->args[0].align, 16);
	assert_string_equal(k->args[0].elem, "f16");
	assert_int_equal(k->args[1].align, 2);     /* default: the element size */
	assert_int_equal(k->args[2].type, FLYRT_ARG_I32);
	assert_int_equal(k->args[3].type, FLYRT_ARG_U64);
	assert_int_equal(k->args[4].type, FLYRT_ARG_F32);
	assert_int_equal(k->block[0], 256);
	assert_int_equal(k->lds, 65536);
	assert_true(k->has_grid);
	assert_int_equal(flyrt_rpn_eval(&k->grid[0], vals, &v), 0);
	assert_int_equal(v, 8);                    /* ceil(1000 / 128) */
	assert_int_equal(flyrt_rpn_eval(&k->grid[1], vals, &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(k->nrequires, 2);
	assert_string_equal(k->requires[1].text, "aligned(A, 16)");
	assert_non_null(flyrt_meta_find(&m, "other"));
	assert_null(flyrt_meta_find(&m, "gem"));
	flyrt_meta_free(&m);

	/* trailing NUL padding is accepted */
	char padded[sizeof good_meta + 8];
	memset(padded, 0, sizeof padded);
	memcpy(padded, good_meta, sizeof good_meta - 1);
	assert_int_equal(flyrt_meta_parse(padded, sizeof padded, &m, err, sizeof err), 0);
	flyrt_meta_free(&m);
}

static void
meta_refuses_malformed(void **state)
{
	static const char *bad[] = {
		"",
		"flyc-meta 3\n",
		"kernel k\nend\n",
		"flyc-meta 1\nkernel k\n",
		"flyc-meta 1\narg a ptr f32\n",
		"flyc-meta 1\nkernel k\nkernel j\nend\n",
		"flyc-meta 1\nkernel k\nend\nkernel k\nend\n",
		"flyc-meta 1\nkernel k\narg a obj f32\nend\n",
		"flyc-meta 1\nkernel k\narg a val f64\nend\n",
		"flyc-meta 1\nkernel k\narg a val i32 4\nend\n",
		"flyc-meta 1\nkernel k\narg a ptr f32 3\nend\n",
		"flyc-meta 1\nkernel k\narg a ptr f32\narg a ptr f32\nend\n",
		"flyc-meta 1\nkernel k\nblock 0 1 1\nend\n",
		"flyc-meta 1\nkernel k\nblock 64 1\nend\n",
		"flyc-meta 1\nkernel k\ngrid 1 ; 1\nend\n",
		"flyc-meta 1\nkernel k\ngrid 1 ; 1 ; 1 ; 1\nend\n",
		"flyc-meta 1\nkernel k\ngrid $n ; 1 ; 1\nend\n",
		"flyc-meta 1\nkernel k\nrequires 1\nend\n",
		"flyc-meta 1\nkernel k\nrequires 1 1 ; two values\nend\n",
		"flyc-meta 1\nkernel k\nlds many\nend\n",
		"flyc-meta 1\nkernel k\nfrobnicate\nend\n",
		"flyc-meta 1\nkernel k\nend\ntrailing\n",
	};
	FlyMeta m;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		if (flyrt_meta_parse(bad[i], strlen(bad[i]), &m, err, sizeof err) == 0)
			fail_msg("meta #%zu was accepted:\n%s", i, bad[i]);
		assert_non_null(strstr(err, ".flyc.meta"));
	}
	/* an embedded NUL followed by text is refused */
	static const char nul[] = "flyc-meta 1\0kernel k\n";
	assert_int_equal(flyrt_meta_parse(nul, sizeof nul - 1, &m, err, sizeof err), -1);
	/* the error names the line */
	assert_int_equal(flyrt_meta_parse(bad[20], strlen(bad[20]), &m, err, sizeof err), -1);
	assert_non_null(strstr(err, ":3:"));
}

/* Every copy of text (n bytes) with one byte replaced by one of subst[0..ns) either
 * parses or is refused with a message; never a crash (ASan/UBSan watch). */
static void
mutations_parse_or_fail(const char *text, size_t n, const char *subst, size_t ns)
{
	char *buf = malloc(n + 1), err[256];
	FlyMeta m;

	assert_non_null(buf);
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < ns; c++) {
			memcpy(buf, text, n);
			buf[i] = subst[c];
			err[0] = 0;
			if (flyrt_meta_parse(buf, n, &m, err, sizeof err) == 0)
				flyrt_meta_free(&m);
			else
				assert_true(strlen(err) > 0);
		}
	free(buf);
}

static void
meta_truncations_never_crash(void **state)
{
	FlyMeta m;
	char err[256];

	(void)state;
	/* every prefix of a valid record either parses or is refused with a message */
	for (size_t n = 0; n < sizeof good_meta - 1; n++) {
		err[0] = 0;
		if (flyrt_meta_parse(good_meta, n, &m, err, sizeof err) == 0)
			flyrt_meta_free(&m);
		else
			assert_true(strlen(err) > 0);
	}
	/* and every single-byte change */
	mutations_parse_or_fail(good_meta, sizeof good_meta - 1, " \n0;$x\0-", 8);
}

static const char v2_meta[] =
	"flyc-meta 2\n"
	"kernel t\n"
	"arg x ptr bf16\n"
	"arg y ptr fp4\n"
	"arg z ptr f32\n"
	"arg M val i32\n"
	"arg K val i64\n"
	"layout x $M ; $K : $K ; 1\n"
	"layout y $M 2 * : -1\n"
	"grid device.cus $M min ; 1 ; 1\n"
	"requires device.cus 0 > ; device.cus > 0\n"
	"end\n";

static void
meta_v2_layouts_and_cus(void **state)
{
	FlyMeta m;
	char err[256] = "";
	const MetaKernel *k;
	int64_t vals[6] = { 0x1000, 0x2000, 0x3000, 3, 5, 0 }, v;

	(void)state;
	assert_int_equal(flyrt_meta_parse(v2_meta, sizeof v2_meta - 1, &m, err, sizeof err), 0);
	assert_int_equal(m.version, 2);
	k = flyrt_meta_find(&m, "t");
	assert_non_null(k);
	/* x: (M, K):(K, 1) */
	assert_int_equal(k->args[0].rank, 2);
	assert_string_equal(k->args[0].layout_text, "$M ; $K : $K ; 1");
	assert_int_equal(flyrt_rpn_eval(&k->args[0].shape[0], vals, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(flyrt_rpn_eval(&k->args[0].shape[1], vals, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(flyrt_rpn_eval(&k->args[0].stride[0], vals, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(flyrt_rpn_eval(&k->args[0].stride[1], vals, &v), 0);
	assert_int_equal(v, 1);
	/* y: (2M):(-1); z: none */
	assert_int_equal(k->args[1].rank, 1);
	assert_int_equal(flyrt_rpn_eval(&k->args[1].shape[0], vals, &v), 0);
	assert_int_equal(v, 6);
	assert_int_equal(flyrt_rpn_eval(&k->args[1].stride[0], vals, &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(k->args[2].rank, -1);
	assert_null(k->args[2].layout_text);
	/* device.cus: its value when known, a failure when not */
	assert_true(k->grid[0].uses_cus);
	assert_false(k->grid[1].uses_cus);
	assert_int_equal(flyrt_rpn_eval_cus(&k->grid[0], vals, 256, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(flyrt_rpn_eval_cus(&k->grid[0], vals, 2, &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(flyrt_rpn_eval_cus(&k->grid[0], vals, 0, &v), -1);
	assert_int_equal(flyrt_rpn_eval(&k->grid[0], vals, &v), -1);
	assert_int_equal(flyrt_rpn_eval_cus(&k->requires[0], vals, 64, &v), 0);
	assert_int_equal(v, 1);
	flyrt_meta_free(&m);

	/* version 1 texts may not use version 2 records; malformed layouts are refused */
	static const char *bad[] = {
		"flyc-meta 1\nkernel k\narg x ptr f32\nlayout x 4 : 1\nend\n",
		"flyc-meta 1\nkernel k\ngrid device.cus ; 1 ; 1\nend\n",
		"flyc-meta 1\nkernel k\nrequires device.cus 0 > ; cus\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout y 4 : 1\nend\n",
		"flyc-meta 2\nkernel k\narg n val i32\nlayout n 4 : 1\nend\n",
		"flyc-meta 2\nkernel k\nlayout x 4 : 1\narg x ptr f32\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x 4 ; 4 : 1\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x 4 : 1\nlayout x 4 : 1\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x @x : 1\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x device.cus : 1\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x 4\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x 4 : 1 : 1\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x 1 2 : 1\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x  : 1\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x $n : 1\narg n val i32\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\narg f val f32\nlayout x $f : 1\nend\n",
		"flyc-meta 2\nkernel k\narg x ptr f32\nlayout x 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; "
		"1 ; 1 ; 1 ; 1 ; 1 : 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1\nend\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		if (flyrt_meta_parse(bad[i], strlen(bad[i]), &m, err, sizeof err) == 0)
			fail_msg("meta #%zu was accepted:\n%s", i, bad[i]);
		assert_non_null(strstr(err, ".flyc.meta:"));
	}
	assert_int_equal(flyrt_meta_parse(bad[0], strlen(bad[0]), &m, err, sizeof err), -1);
	assert_non_null(strstr(err, "needs 'flyc-meta 2'"));
	/* 16 modes is the limit, not beyond it */
	static const char sixteen[] = "flyc-meta 2\nkernel k\narg x ptr f32\nlayout x 1 ; 1 ; 1 ; 1 ; 1 ; "
		"1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 2 : 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; 1 ; "
		"1 ; 1 ; 1 ; 1\nend\n";
	assert_int_equal(flyrt_meta_parse(sixteen, sizeof sixteen - 1, &m, err, sizeof err), 0);
	assert_int_equal(m.kernels[0].args[0].rank, 16);
	flyrt_meta_free(&m);
	/* every single-byte change of a version 2 text parses or is refused, never crashes */
	mutations_parse_or_fail(v2_meta, sizeof v2_meta - 1, " \n0;:$\0-", 8);
}

static void
element_types(void **state)
{
	static const struct { const char *declared, *given; int ok; } cases[] = {
		{ "bf16", "bf16", 1 }, { "bf16", "f32", 0 }, { "bf16", "f16", 0 },
		{ "bf16", "u16", 1 }, { "bf16", "i16", 1 }, { "bf16", "u8", 0 },
		{ "f16", "u16", 0 }, { "f32", "i32", 0 }, { "f32", "f64", 0 }, { "f64", "f64", 1 },
		{ "fp8", "u8", 1 }, { "fp8", "i8", 1 }, { "fp8", "u16", 0 }, { "bf8", "u8", 1 },
		{ "fp4", "u8", 1 }, { "fp4", "i4", 0 }, { "fp6", "u8", 1 }, { "e8m0", "u8", 1 },
		{ "u32", "i32", 1 }, { "i32", "u32", 0 }, { "u8", "i8", 0 }, { "i8", "u8", 0 },
		{ "i4", "u8", 1 }, { "zz", "zz", 1 }, { "zz", "u8", 0 },
		{ "f32", "dlpack(code=5, bits=64, lanes=1)", 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (flyrt_elem_accepts(cases[i].declared, cases[i].given) != cases[i].ok)
			fail_msg("%s given for %s: expected %s", cases[i].given, cases[i].declared,
			         cases[i].ok ? "accepted" : "refused");
	assert_int_equal(flyrt_elem_bits("fp4"), 4);
	assert_int_equal(flyrt_elem_bits("fp6"), 6);
	assert_int_equal(flyrt_elem_bits("bf16"), 16);
	assert_int_equal(flyrt_elem_bits("f64"), 64);
	assert_int_equal(flyrt_elem_bits("nope"), 0);
	assert_int_equal(flyrt_elem_bits(NULL), 0);
}

/* A row with the given bucket and variants, the other fields ordinary. */
static flyrt_status
add(flyrt_tuning *t, const char *bucket, const char *variants)
{
	flyrt_tuning_row r = { "gfx950", "gemm", "bf16->bf16", "NT", bucket, variants, "", "", "" };
	return flyrt_tuning_add(t, &r);
}

static void
tuning_rows_checked(void **state)
{
	static const char *bad_buckets[] = {
		"M<<128", "M<=x", "", "  ", "K%0==0", "K%4=0", "<=4", "M", "M<=128 N", "9x<4", "M<=1e3",
		"M<=99999999999999999999",
	};
	static const char *bad_variants[] = { "", "  ", "bad-name", "9lives", "a,b" };
	flyrt_tuning *t;
	flyrt_tuning_row r;

	(void)state;
	assert_int_equal(flyrt_tuning_new(&t), FLYRT_SUCCESS);
	assert_int_equal(add(t, "M<=128 N<=128", "gemm_small gemm_generic"), FLYRT_SUCCESS);
	assert_int_equal(add(t, "K%64==0 M>256 N!=3", "gemm_big"), FLYRT_SUCCESS);
	assert_int_equal(add(t, "*", "gemm_generic"), FLYRT_SUCCESS);
	for (size_t i = 0; i < sizeof bad_buckets / sizeof bad_buckets[0]; i++) {
		if (add(t, bad_buckets[i], "v") == FLYRT_SUCCESS)
			fail_msg("bucket '%s' was accepted", bad_buckets[i]);
		assert_non_null(strstr(flyrt_last_error(), "tuning row 4"));
	}
	for (size_t i = 0; i < sizeof bad_variants / sizeof bad_variants[0]; i++)
		if (add(t, "*", bad_variants[i]) == FLYRT_SUCCESS)
			fail_msg("variants '%s' were accepted", bad_variants[i]);
	/* the other fields */
	static const flyrt_tuning_row bad_rows[] = {
		{ "", "f", "", "", "*", "v", "", "", "" },              /* no arch */
		{ "gfx 950", "f", "", "", "*", "v", "", "", "" },
		{ "*", "9f", "", "", "*", "v", "", "", "" },            /* bad family */
		{ "*", "f", "bf16;", "", "*", "v", "", "", "" },
		{ "*", "f", "", "N T", "*", "v", "", "", "" },
		{ "*", "f", "", "", "*", "v w", "1.0", "", "" },        /* one time for two variants */
		{ "*", "f", "", "", "*", "v", "-1", "", "" },
		{ "*", "f", "", "", "*", "v", "", "0.1 0", "" },
		{ "*", "f", "", "", "*", "v", "", "", "fnv1a64:123" },  /* hash too short */
		{ "*", "f", "", "", "*", "v", "", "", "fnv1a64:0123456789ABCDEF" },
		{ "*", "f", "", "", "*", NULL, "", "", "" },
	};
	for (size_t i = 0; i < sizeof bad_rows / sizeof bad_rows[0]; i++) {
		if (flyrt_tuning_add(t, &bad_rows[i]) == FLYRT_SUCCESS)
			fail_msg("bad row %zu was accepted", i);
		assert_int_equal(flyrt_tuning_add(t, &bad_rows[i]), FLYRT_ERROR_INVALID_TUNING);
	}
	flyrt_tuning_row good = { "*", "f", "", "", "*", "v w", "1.5 2", "0.1.0",
	                          "fnv1a64:0123456789abcdef" };
	assert_int_equal(flyrt_tuning_add(t, &good), FLYRT_SUCCESS);
	assert_int_equal(flyrt_tuning_row_count(t), 4);
	assert_int_equal(flyrt_tuning_row_at(t, 1, &r), FLYRT_SUCCESS);
	assert_string_equal(r.bucket, "K%64==0 M>256 N!=3");
	assert_string_equal(r.variants, "gemm_big");
	assert_int_equal(flyrt_tuning_row_at(t, 4, &r), FLYRT_ERROR_INVALID_VALUE);

	/* saved and read back: the same rows in the same order */
	char dir[] = "/tmp/flyrt-tune-XXXXXX", db[300], cmd[400];
	flyrt_tuning *back;
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof db, "%s/t.db", dir);
	assert_int_equal(flyrt_tuning_save(t, db), FLYRT_SUCCESS);
	assert_int_equal(flyrt_tuning_load(db, &back), FLYRT_SUCCESS);
	assert_int_equal(flyrt_tuning_row_count(back), 4);
	for (int i = 0; i < 4; i++) {
		flyrt_tuning_row a, b;
		flyrt_tuning_row_at(t, i, &a);
		flyrt_tuning_row_at(back, i, &b);
		assert_string_equal(a.arch, b.arch);
		assert_string_equal(a.bucket, b.bucket);
		assert_string_equal(a.variants, b.variants);
		assert_string_equal(a.times_us, b.times_us);
		assert_string_equal(a.codeobj_hash, b.codeobj_hash);
	}
	flyrt_tuning_destroy(back);
	/* saving over an existing file replaces it whole; a bad directory is a file error */
	assert_int_equal(flyrt_tuning_save(t, db), FLYRT_SUCCESS);
	snprintf(cmd, sizeof cmd, "%s/no/such/dir/t.db", dir);
	assert_int_equal(flyrt_tuning_save(t, cmd), FLYRT_ERROR_FILE);
	flyrt_tuning_destroy(t);

	/* files that are not tuning databases */
	assert_int_equal(flyrt_tuning_load("/nonexistent/t.db", &t), FLYRT_ERROR_FILE);
	assert_null(t);
	static const char *not_db[] = {
		"printf 'gemm, *, gemm_generic\\n' > %s/x",               /* an old text table */
		": > %s/x",                                                 /* empty */
		"head -c 100 %s/t.db > %s/x",                               /* truncated */
	};
	for (size_t i = 0; i < sizeof not_db / sizeof not_db[0]; i++) {
		char x[320];
		snprintf(cmd, sizeof cmd, not_db[i], dir, dir);
		assert_int_equal(system(cmd), 0);
		snprintf(x, sizeof x, "%s/x", dir);
		assert_int_equal(flyrt_tuning_load(x, &t), FLYRT_ERROR_INVALID_TUNING);
		assert_null(t);
	}
	/* every byte of a database flipped in turn: refused or read, never a crash */
	size_t n;
	char *bytes = fio_read_file(db, 1 << 20, &n);
	assert_non_null(bytes);
	for (size_t i = 0; i < n; i += 97) {
		char x[320];
		snprintf(x, sizeof x, "%s/x", dir);
		bytes[i] ^= 0x5a;
		assert_int_equal(fio_write_file(x, bytes, n, cmd, sizeof cmd), 0);
		bytes[i] ^= 0x5a;
		if (flyrt_tuning_load(x, &t) == FLYRT_SUCCESS)
			flyrt_tuning_destroy(t);
	}
	free(bytes);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void
status_strings(void **state)
{
	(void)state;
	assert_string_equal(flyrt_status_string(FLYRT_SUCCESS), "success");
	assert_non_null(strstr(flyrt_status_string(FLYRT_ERROR_NO_HIP_RUNTIME), "no HIP runtime"));
	assert_non_null(strstr(flyrt_status_string(FLYRT_ERROR_NO_DEVICE), "no device"));
	assert_non_null(strstr(flyrt_status_string(FLYRT_ERROR_UNSUPPORTED), "unsupported"));
	assert_string_equal(flyrt_status_name(FLYRT_ERROR_UNSUPPORTED), "FLYRT_ERROR_UNSUPPORTED");
	assert_string_equal(flyrt_status_string((flyrt_status)12345), "unknown status");
	/* every status has a distinct message */
	for (int i = 0; i < FLYRT_STATUS_COUNT_; i++)
		for (int j = i + 1; j < FLYRT_STATUS_COUNT_; j++)
			assert_string_not_equal(flyrt_status_string((flyrt_status)i),
			                        flyrt_status_string((flyrt_status)j));
	assert_string_equal(flyrt_arg_type_name(FLYRT_ARG_BF16), "bf16");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rpn_matches_c_over_a_grid),
		cmocka_unit_test(rpn_overflow_fails),
		cmocka_unit_test(rpn_refuses_malformed),
		cmocka_unit_test(meta_parses),
		cmocka_unit_test(meta_refuses_malformed),
		cmocka_unit_test(meta_truncations_never_crash),
		cmocka_unit_test(meta_v2_layouts_and_cus),
		cmocka_unit_test(element_types),
		cmocka_unit_test(tuning_rows_checked),
		cmocka_unit_test(status_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
