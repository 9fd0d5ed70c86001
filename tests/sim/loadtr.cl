/* tests/sim/loadtr.cl — the gfx1201 transposed global loads, one wave32 each
 * (tests/sim/loadtr.py runs them against its model). At -O3 clang emits the
 * saddr form (v1, s[2:3]); at -O0 the 64-bit vaddr form (v[2:3], off). */
typedef half v8h __attribute__((ext_vector_type(8)));
typedef int v2i __attribute__((ext_vector_type(2)));
/* lane l loads at byte offset idx[l] of src when mask[l] != 0 and stores its 16 (8) bytes to out[l] */
__kernel void k_tr16(__global v8h *out, __global const char *src, __global const uint *idx, __global const int *mask) {
  uint l = __builtin_amdgcn_workitem_id_x();
  if (mask[l]) out[l] = __builtin_amdgcn_global_load_tr_b128_v8f16((__global v8h *)(src + idx[l]));
}
__kernel void k_tr8(__global v2i *out, __global const char *src, __global const uint *idx, __global const int *mask) {
  uint l = __builtin_amdgcn_workitem_id_x();
  if (mask[l]) out[l] = __builtin_amdgcn_global_load_tr_b64_v2i32((__global v2i *)(src + idx[l]));
}
