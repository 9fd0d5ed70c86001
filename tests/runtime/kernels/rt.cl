/* Kernels for the libflyrt tests (tests/runtime/run.sh, tests/unit/flyrt_api.c).
 * Built with clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx950. */
#define GID(bs) ((int)(__builtin_amdgcn_workgroup_id_x() * (bs) + __builtin_amdgcn_workitem_id_x()))

kernel void vadd(global const float *a, global const float *b, global float *c, int n) {
  int i = GID(__builtin_amdgcn_workgroup_size_x());
  if (i < n) c[i] = a[i] + b[i];
}

/* y = a*x + y, four elements per work-item: needs n % 4 == 0 */
kernel void saxpy_v4(global float *y, global const float *x, float a, int n) {
  int i = 4 * GID(64);
  if (i < n)
    for (int j = 0; j < 4; j++) y[i + j] = a * x[i + j] + y[i + j];
}

kernel void saxpy_any(global float *y, global const float *x, float a, int n) {
  int i = GID(64);
  if (i < n) y[i] = a * x[i] + y[i];
}

/* no .flyc.meta record: typed from the AMDGPU note only */
kernel void scale(global int *x, int k, long m) {
  int i = GID(64);
  x[i] = x[i] * k + (int)m;
}
