/*
 * tests/sim/faults.cl — kernels that must make the simulator stop with an error.
 */
#define LID0 ((int)__builtin_amdgcn_workitem_id_x())
#define GID0 ((int)__builtin_amdgcn_workgroup_id_x() * (int)__builtin_amdgcn_workgroup_size_x() + LID0)

/* writes 4096 ints past the end of o */
__kernel void f_oob_store(__global int *o) { o[GID0 + 4096] = 1; }

/* reads a[i + n]: lane 0 touches the first byte past the allocation */
__kernel void f_oob_load(__global int *o, __global const int *a, int n) { o[GID0] = a[GID0 + n]; }

/* 64 ints of LDS, indexed by a 128-wide workgroup */
__kernel void f_lds_oob(__global int *o)
{
	__local int t[64];
	t[LID0] = LID0;
	o[GID0] = t[LID0 & 63];
}

__kernel void f_trap(__global const int *a) { if (a[GID0] == 7) __builtin_trap(); }

__kernel void f_spin(__global volatile int *a) { while (a[0] == 0) { } }

/* no barrier between the write and the read of another wave's slot */
__kernel void f_race(__global int *o)
{
	__local int t[128];
	t[LID0] = LID0;
	o[GID0] = t[(LID0 + 64) & 127];
}

/* compiled for exactly 64x1x1 work-items per workgroup */
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void f_reqd(__global int *o) { o[LID0] = 1; }
