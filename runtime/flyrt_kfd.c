/*
 * flyrt_kfd.c — the device's XCD count (accelerator complex dies; the kernel driver calls
 * them XCCs), which HIP's device properties do not hold: read from the Linux KFD topology,
 * or derived from the arch and CU count when nothing reports it.
 *
 * The topology (amdkfd, drivers/gpu/drm/amd/amdkfd/kfd_topology.c) is ROOT/nodes/N/properties
 * for N = 0, 1, ..., one "key value\n" a line, values in decimal (node_show prints "%s %u\n"
 * and "%s %llu\n"). CPU nodes and GPU nodes alike; only a GPU node has num_xcc (the XCCs
 * of its xcc_mask). A GPU node's location_id is its PCI (bus << 8) | devfn (pci_dev_id) and
 * domain its PCI domain; a GPU split into partitions (CPX, DPX, QPX ...) is one node per
 * partition, each with its own num_xcc and its partition number ORed into location_id's
 * low bits (the function's, as long as partitions number under 8).
 *
 * A device is matched by PCI domain, bus and device (HIP reports no function): a GPU's
 * partitions all match, and since partition modes split a GPU evenly they agree on num_xcc;
 * if they do not, the answer is "unknown" (0) rather than a guess. ROOT is
 * /sys/class/kfd/kfd/topology, or FLY_KFD_TOPOLOGY (tests feed a made-up one).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyrt_internal.h"

enum { K_LOCATION, K_DOMAIN, K_XCC, NKEYS, ABSENT = -1, MALFORMED = -2, MAX_XCDS = 64 };

/* The properties a node is matched and read by (node_show's names). */
static const char *const keys[NKEYS] = { "location_id", "domain", "num_xcc" };

uint32_t
flyrt_xcds_derived(const char *arch, uint32_t cus)
{
	/* gfx950: 32 CUs per XCD (MI355X 256 CUs = 8 XCDs; /work/shared/docs/amdgpu-facts.md) */
	if (!strcmp(arch, "gfx950") && cus >= 32 && cus % 32 == 0)
		return cus / 32;
	return 1;
}

const char *
flyrt_kfd_root(void)
{
	const char *e = getenv("FLY_KFD_TOPOLOGY");
	return e && *e ? e : "/sys/class/kfd/kfd/topology";
}

/* A property's value: 0..UINT32_MAX, or MALFORMED. */
static int64_t
number(const char *s)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return MALFORMED;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || (*end && strcmp(end, "\n")) || v > UINT32_MAX)
		return MALFORMED;
	return (int64_t)v;
}

/* One "key value" line into v (a key of keys[]; other lines are passed over). A line too
 * long for the buffer is one of none of them, or a malformed one. */
static void
property(FILE *f, char *line, int64_t v[NKEYS])
{
	size_t n = strlen(line);
	int whole = n && line[n - 1] == '\n', c;

	for (int k = 0; k < NKEYS; k++) {
		size_t kl = strlen(keys[k]);
		if (!strncmp(line, keys[k], kl) && line[kl] == ' ')
			v[k] = whole || feof(f) ? number(line + kl + 1) : MALFORMED;
	}
	if (!whole)
		while ((c = getc(f)) != EOF && c != '\n')
			;
}

/* Read a node's properties file into v; 0 when it cannot be opened. */
static int
read_node(const char *path, int64_t v[NKEYS])
{
	char line[128];
	FILE *f = fopen(path, "r");

	for (int k = 0; k < NKEYS; k++)
		v[k] = ABSENT;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		property(f, line, v);
	fclose(f);
	return 1;
}

static int
all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Is v (a GPU node's properties) the PCI device domain:bus:device? */
static int
at(const int64_t v[NKEYS], uint32_t domain, uint32_t bus, uint32_t device)
{
	if (v[K_LOCATION] < 0 || v[K_DOMAIN] < 0)
		return 0;
	return v[K_DOMAIN] == domain && v[K_LOCATION] >> 8 == bus &&
	       (v[K_LOCATION] & 0xff) >> 3 == device;
}

uint32_t
flyrt_kfd_xcds(const char *root, uint32_t domain, uint32_t bus, uint32_t device)
{
	char dir[4096], path[4400];
	struct dirent *e;
	int64_t v[NKEYS], xcds = 0;
	int bad = 0;
	DIR *d;

	if (!root || (size_t)snprintf(dir, sizeof dir, "%s/nodes", root) >= sizeof dir)
		return 0;
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		if (!all_digits(e->d_name) ||
		    (size_t)snprintf(path, sizeof path, "%s/%s/properties", dir, e->d_name) >= sizeof path)
			continue;
		if (!read_node(path, v) || v[K_XCC] == ABSENT || !at(v, domain, bus, device))
			continue;   /* unreadable, a CPU node, or another device */
		if (v[K_XCC] < 1 || v[K_XCC] > MAX_XCDS || (xcds && v[K_XCC] != xcds))
			bad = 1;
		xcds = v[K_XCC];
	}
	closedir(d);
	return bad ? 0 : (uint32_t)xcds;
}
