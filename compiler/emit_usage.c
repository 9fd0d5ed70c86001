/* emit_usage.c — --resource-usage: per-kernel register, scratch, LDS and
 * occupancy figures read back from a linked code object's metadata note
 * (runtime/codeobj.h), with occupancy from the target table's formula. */
#include <stdio.h>
#include <string.h>

#include "codeobj.h"
#include "emit.h"
#include "target/target.h"

int
emit_usage(const void *data, size_t size, const char *arch, EmitUsage *out, int n, char *err,
           size_t errlen)
{
	const TgtDesc *t = tgt_find(arch);
	CoObject *co;
	int k = 0;

	if (!t) {
		snprintf(err, errlen, "unknown processor '%s'", arch);
		return -1;
	}
	co = co_parse(data, size, err, errlen);
	if (!co)
		return -1;
	for (int i = 0; i < co->nkernels && k < n; i++, k++) {
		const CoKernel *K = &co->kernels[i];
		EmitUsage *u = &out[k];
		memset(u, 0, sizeof *u);
		snprintf(u->name, sizeof u->name, "%s", K->name);
		u->agprs = K->agpr_count;
		/* on gfx950 .vgpr_count = accum_offset + AGPRs; report the
		 * architectural part as accum_offset when AGPRs are in use */
		u->vgprs = K->agpr_count && K->kd.accum_offset ? K->kd.accum_offset : K->vgpr_count;
		if (u->vgprs > K->vgpr_count)
			u->vgprs = K->vgpr_count;
		u->sgprs = K->sgpr_count;
		u->scratch = K->private_segment_fixed_size;
		u->vgpr_spills = K->vgpr_spill_count;
		u->sgpr_spills = K->sgpr_spill_count;
		u->lds = K->group_segment_fixed_size;
		u->block = K->max_flat_workgroup_size;
		u->dynamic_stack = K->uses_dynamic_stack;
		u->occupancy = tgt_occupancy(t, K->vgpr_count, u->lds, u->block ? u->block : 1024);
	}
	co_free(co);
	return k;
}
