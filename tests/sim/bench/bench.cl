/* scripts/bench-sim.sh: simulator throughput kernels. */
#define LID0 ((int)__builtin_amdgcn_workitem_id_x())
#define GID0 ((int)__builtin_amdgcn_workgroup_id_x() * (int)__builtin_amdgcn_workgroup_size_x() + LID0)

/* a mix of f32, integer, LDS and global memory work per iteration */
__kernel void b_mix(__global float *o, __global const float *in, int iters)
{
	__local float t[256];
	int l = LID0;
	float a = in[GID0], b = 1.0001f, c = 0.5f;
	uint x = (uint)GID0;
	for (int k = 0; k < iters; k++) {
		a = __builtin_fmaf(a, b, c);
		x = x * 1664525u + 1013904223u;
		c = c * 0.999f + (float)(x & 7);
		t[l] = a;
		__builtin_amdgcn_s_barrier();
		a += t[(l + 1) & 255] * 0.25f;
		__builtin_amdgcn_s_barrier();
	}
	o[GID0] = a + (float)x;
}
