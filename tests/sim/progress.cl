/* tests/sim/progress.cl — forward progress between waves and workgroups
 * (tests/sim/faults.sh): kernels that wait for memory another wave or
 * workgroup writes, as split-K and stream-K kernels do. */
#define WG ((int)__builtin_amdgcn_workgroup_id_x())
#define LID ((int)__builtin_amdgcn_workitem_id_x())

static int wait_nonzero(__global int *p)
{
	int v;
	while ((v = __atomic_load_n(p, __ATOMIC_ACQUIRE)) == 0) ;
	return v;
}
#define SET(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* workgroup 0 waits for the flag workgroup `target` sets; out[g] = g + 1, and
 * out[0] = 1 + the flag value (target + 1) */
__kernel void p_wait_later(__global int *flag, __global int *out, int target)
{
	if (LID == 0) {
		if (WG == 0) out[0] = 1 + wait_nonzero(flag);
		else out[WG] = WG + 1;
		if (WG == target) SET(flag, target + 1);
	}
}

/* a chain: workgroup g waits for flag[g + 1], then sets flag[g]; the last one
 * (n - 1) sets its flag at once. out[g] = flag[g + 1] seen + 1 */
__kernel void p_chain(__global int *flag, __global int *out, int n)
{
	if (LID == 0) {
		int seen = WG + 1 < n ? wait_nonzero(&flag[WG + 1]) : 0;
		out[WG] = seen + 1;
		SET(&flag[WG], seen + 1);
	}
}

/* in one workgroup, wave 0 waits for an LDS flag the last wave sets (no barrier between) */
__kernel void p_wave_wait(__global int *out)
{
	__local int f;
	if (LID == 0) f = 0;
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
	__builtin_amdgcn_s_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
	int last = (int)__builtin_amdgcn_workgroup_size_x() - 1;
	if (LID == 0) {
		int v;
		while ((v = __atomic_load_n(&f, __ATOMIC_ACQUIRE)) == 0) ;
		out[0] = v;
	}
	if (LID == last) __atomic_store_n(&f, 77, __ATOMIC_RELEASE);
}
