/* tests/sim/unsupported12.cl — gfx1201 instructions the simulator refuses (tests/sim/faults.sh):
 * sparse WMMA and s_sendmsg_rtn, each stopping the run with its name and PC. */
typedef half v8h __attribute__((ext_vector_type(8)));
typedef half v16h __attribute__((ext_vector_type(16)));
typedef float v8f __attribute__((ext_vector_type(8)));
__kernel void k_swmmac(__global v8f *o, __global v8h *a, __global v16h *b, __global int *ix) {
  int l = __builtin_amdgcn_workitem_id_x();
  o[l] = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w32(a[l], b[l], o[l], ix[l]);
}
__kernel void k_sendmsg_rtn(__global uint *o) {
  o[0] = __builtin_amdgcn_s_sendmsg_rtn(0x83);
}
