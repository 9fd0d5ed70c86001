/*
 * flyrt_xcds.c — the device's XCD count (flyrt_device_xcds; runtime/flyrt_kfd.c): the KFD
 * topology reader on tests/runtime/kfd (a CPU node, GPUs told apart by PCI domain, bus and
 * device, a GPU split into four partitions) and on damaged topologies made here (every
 * failure is 0, "unknown", never a crash or a guess); the derivation HIP falls back to;
 * the simulator's property, FLY_SIM_XCDS, and the values it refuses. Run from the
 * repository root (scripts/check.sh does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "flyrt_internal.h"

#define FIXTURE "tests/runtime/kfd"

static char tmp[64];

/* Write ROOT/nodes/N/properties (text NULL: the node's directory only). */
static void
node(const char *root, int n, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/nodes", root);
	mkdir(root, 0755);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/nodes/%d", root, n);
	mkdir(p, 0755);
	if (!text)
		return;
	snprintf(p, sizeof p, "%s/nodes/%d/properties", root, n);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
}

/* A fresh topology directory under tmp. */
static const char *
topo(const char *name)
{
	static char p[128];
	snprintf(p, sizeof p, "%s/%s", tmp, name);
	return p;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof tmp, "/tmp/flyrt_xcds.XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void
kfd_picks_the_node_at_the_pci_location(void **state)
{
	(void)state;
	assert_int_equal(flyrt_kfd_xcds(FIXTURE, 0, 0x83, 0), 8);
	assert_int_equal(flyrt_kfd_xcds(FIXTURE, 0, 0xc3, 0), 4);
	assert_int_equal(flyrt_kfd_xcds(FIXTURE, 1, 0x83, 0), 1);     /* same bus, other domain */
	assert_int_equal(flyrt_kfd_xcds(FIXTURE, 0, 0x23, 0), 2);     /* four partitions agree */
	assert_int_equal(flyrt_kfd_xcds(FIXTURE, 0, 0, 0), 0);        /* the CPU node: no num_xcc */
	assert_int_equal(flyrt_kfd_xcds(FIXTURE, 0, 0x83, 1), 0);     /* no GPU at that device */
	assert_int_equal(flyrt_kfd_xcds(FIXTURE, 2, 0x83, 0), 0);
	assert_int_equal(flyrt_kfd_xcds(FIXTURE, 0, 0x84, 0), 0);
}

static void
kfd_failures_are_unknown(void **state)
{
	static const char *const bad[] = {
		"num_xcc eight\n", "num_xcc \n", "num_xcc\n", "num_xcc 8 9\n", "num_xcc -8\n",
		"num_xcc 0\n", "num_xcc 65\n", "num_xcc 99999999999999999999\n", "num_xcc 0x8\n",
		"num_xcc  8\n",
	};
	const char *r;
	char text[512], big[400];

	(void)state;
	/* a malformed or impossible num_xcc at the device's location */
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text, "simd_count 1024\nlocation_id 33536\ndomain 0\n%s", bad[i]);
		r = topo("bad");
		node(r, 1, text);
		assert_int_equal(flyrt_kfd_xcds(r, 0, 0x83, 0), 0);
	}
	/* no topology, or not a directory of nodes */
	assert_int_equal(flyrt_kfd_xcds(NULL, 0, 0x83, 0), 0);
	assert_int_equal(flyrt_kfd_xcds(topo("none"), 0, 0x83, 0), 0);
	assert_int_equal(flyrt_kfd_xcds(FIXTURE "/README.md", 0, 0x83, 0), 0);
	/* partitions that disagree, and a malformed location: unknown */
	r = topo("split");
	node(r, 1, "location_id 33536\ndomain 0\nnum_xcc 4\n");
	node(r, 2, "location_id 33537\ndomain 0\nnum_xcc 2\n");
	assert_int_equal(flyrt_kfd_xcds(r, 0, 0x83, 0), 0);
	r = topo("loc");
	node(r, 1, "location_id 0x8300\ndomain 0\nnum_xcc 4\n");
	assert_int_equal(flyrt_kfd_xcds(r, 0, 0x83, 0), 0);
	node(r, 2, "location_id 33536\nnum_xcc 4\n");        /* no domain */
	assert_int_equal(flyrt_kfd_xcds(r, 0, 0x83, 0), 0);
	/* what is passed over: nodes without properties (or a directory in their place),
	 * entries that are not node numbers, an overlong line, a last line without '\n' */
	r = topo("skip");
	node(r, 0, NULL);
	node(r, 1, NULL);
	snprintf(text, sizeof text, "%s/nodes/1/properties", r);
	mkdir(text, 0755);
	node(r, 2, "location_id 33536\ndomain 0\nnum_xcc 3\n");
	snprintf(text, sizeof text, "%s/nodes/x9", r);
	mkdir(text, 0755);
	memset(big, 'k', sizeof big - 1);
	big[sizeof big - 1] = 0;
	snprintf(text, sizeof text, "%s 1\nlocation_id 33536\ndomain 0\nnum_xcc 6", big);
	node(r, 3, text);
	node(r, 4, "location_id 49920\ndomain 0\nnum_xcc 6");
	assert_int_equal(flyrt_kfd_xcds(r, 0, 0xc3, 0), 6);
	assert_int_equal(flyrt_kfd_xcds(r, 0, 0x83, 0), 0);           /* 3 and 6 disagree */
	/* an overlong num_xcc line is malformed, not cut short into a number: its first 127
	 * characters (the reader's buffer) read "num_xcc 00...04", the line goes on "x" */
	snprintf(text, sizeof text, "location_id 49920\ndomain 0\nnum_xcc %.118s4x\n", big);
	for (char *p = strstr(text, "num_xcc ") + 8; *p == 'k'; p++)
		*p = '0';
	node(topo("long"), 1, text);
	assert_int_equal(flyrt_kfd_xcds(topo("long"), 0, 0xc3, 0), 0);
}

static void
kfd_root_from_the_environment(void **state)
{
	(void)state;
	unsetenv("FLY_KFD_TOPOLOGY");
	assert_string_equal(flyrt_kfd_root(), "/sys/class/kfd/kfd/topology");
	setenv("FLY_KFD_TOPOLOGY", "", 1);
	assert_string_equal(flyrt_kfd_root(), "/sys/class/kfd/kfd/topology");
	setenv("FLY_KFD_TOPOLOGY", FIXTURE, 1);
	assert_string_equal(flyrt_kfd_root(), FIXTURE);
	unsetenv("FLY_KFD_TOPOLOGY");
}

static void
derived_counts(void **state)
{
	(void)state;
	assert_int_equal(flyrt_xcds_derived("gfx950", 256), 8);   /* MI350X, MI355X */
	assert_int_equal(flyrt_xcds_derived("gfx950", 128), 4);   /* MI350P */
	assert_int_equal(flyrt_xcds_derived("gfx950", 32), 1);
	assert_int_equal(flyrt_xcds_derived("gfx950", 200), 1);   /* not whole XCDs */
	assert_int_equal(flyrt_xcds_derived("gfx950", 16), 1);
	assert_int_equal(flyrt_xcds_derived("gfx950", 0), 1);     /* CUs unknown */
	assert_int_equal(flyrt_xcds_derived("gfx1201", 64), 1);
	assert_int_equal(flyrt_xcds_derived("gfx942", 304), 1);   /* no rule: KFD or nothing */
}

static flyrt_status
open_with(const char *kind, const char *xcds, const char *cus, flyrt_device **dev)
{
	flyrt_status st;

	if (xcds)
		setenv("FLY_SIM_XCDS", xcds, 1);
	if (cus)
		setenv("FLY_SIM_CUS", cus, 1);
	st = flyrt_device_open(kind, dev);
	unsetenv("FLY_SIM_XCDS");
	unsetenv("FLY_SIM_CUS");
	return st;
}

static void
sim_xcds_property(void **state)
{
	static const struct { const char *kind, *xcds, *cus; uint32_t want; } ok[] = {
		{ "sim", NULL, NULL, 8 }, { "sim:gfx1201", NULL, NULL, 1 },
		{ "sim", NULL, "128", 4 }, { "sim", NULL, "3", 1 },
		{ "sim", "4", NULL, 4 }, { "sim", "1", NULL, 1 }, { "sim", "64", "256", 64 },
		{ "sim", "", NULL, 8 }, { "sim:gfx1201", "2", NULL, 2 }, { "sim", "3", "3", 3 },
	};
	static const struct { const char *kind, *xcds, *cus, *msg; } refused[] = {
		{ "sim", "0", NULL, "1..64" }, { "sim", "65", NULL, "1..64" },
		{ "sim", "-4", NULL, "1..64" }, { "sim", "four", NULL, "1..64" },
		{ "sim", "4x", NULL, "1..64" }, { "sim", " 4", NULL, "1..64" },
		{ "sim", "99999999999999999999", NULL, "1..64" },
		{ "sim", "3", NULL, "does not divide the simulated gfx950's 256 CUs" },
		{ "sim", "8", "100", "does not divide the simulated gfx950's 100 CUs" },
		{ "sim:gfx1201", "5", NULL, "does not divide the simulated gfx1201's 64 CUs" },
	};
	flyrt_device *dev;

	(void)state;
	unsetenv("FLY_DEVICE");
	assert_int_equal(flyrt_device_xcds(NULL), 0);
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		assert_int_equal(open_with(ok[i].kind, ok[i].xcds, ok[i].cus, &dev), FLYRT_SUCCESS);
		assert_int_equal(flyrt_device_xcds(dev), ok[i].want);
		flyrt_device_close(dev);
	}
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		dev = (flyrt_device *)1;
		assert_int_equal(open_with(refused[i].kind, refused[i].xcds, refused[i].cus, &dev),
		                 FLYRT_ERROR_INVALID_VALUE);
		assert_null(dev);
		assert_non_null(strstr(flyrt_last_error(), "FLY_SIM_XCDS"));
		if (!strstr(flyrt_last_error(), refused[i].msg))
			fail_msg("FLY_SIM_XCDS=%s: %s", refused[i].xcds, flyrt_last_error());
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kfd_picks_the_node_at_the_pci_location),
		cmocka_unit_test(kfd_failures_are_unknown),
		cmocka_unit_test(kfd_root_from_the_environment),
		cmocka_unit_test(derived_counts),
		cmocka_unit_test(sim_xcds_property),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
