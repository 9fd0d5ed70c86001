// End-to-end kernels for the gfx950 conversion instructions and the transposed LDS reads
// (tests/unit/simx_e2e.c runs them and computes the expected words on the CPU).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef float float2_ __attribute__((ext_vector_type(2)));
typedef short short2_ __attribute__((ext_vector_type(2)));
typedef half half2_ __attribute__((ext_vector_type(2)));
typedef __bf16 bf2 __attribute__((ext_vector_type(2)));
typedef short s4 __attribute__((ext_vector_type(4)));
typedef int i2 __attribute__((ext_vector_type(2)));
typedef int i3 __attribute__((ext_vector_type(3)));

#define LANE ((int)__builtin_amdgcn_workitem_id_x()) /* no device library */
#define NOUT 28

// X: 4 floats per lane; S: one f32 scale per lane; W: one packed word per lane.
// O: NOUT words per lane, O[lane * NOUT + n].
kernel void cvt(global const float *X, global const float *S, global const uint *W, global uint *O)
{
	int l = LANE;
	float a = X[4 * l], b = X[4 * l + 1], c = X[4 * l + 2], d = X[4 * l + 3];
	float s = S[l];
	uint w = W[l];
	global uint *o = O + l * NOUT;
	short2_ z = {0x1234, 0x5678};
	short2_ r = __builtin_amdgcn_cvt_scalef32_pk_fp8_f32(z, a, b, s, false);
	r = __builtin_amdgcn_cvt_scalef32_pk_fp8_f32(r, c, d, s, true);
	o[0] = as_uint(r);
	o[1] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_bf8_f32(z, -a, b, s, true));
	o[2] = __builtin_amdgcn_cvt_scalef32_pk_fp4_f32(0xFFFFFFFFu, a, b, s, 2);
	o[3] = __builtin_amdgcn_cvt_scalef32_pk_fp4_f32(w, c, d, s, 1);
	half2_ h = {(half)a, (half)b};
	bf2 bb = {(__bf16)c, (__bf16)d};
	o[4] = __builtin_amdgcn_cvt_scalef32_pk_fp4_f16(w, h, s, 3);
	o[5] = __builtin_amdgcn_cvt_scalef32_pk_fp4_bf16(w, bb, s, 0);
	o[6] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_fp8_f16(z, h, s, true));
	o[7] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_bf8_bf16(z, bb, s, false));
	float2_ f2 = __builtin_amdgcn_cvt_scalef32_pk_f32_fp8(w, s, true);
	o[8] = as_uint(f2.x);
	o[9] = as_uint(f2.y);
	f2 = __builtin_amdgcn_cvt_scalef32_pk_f32_bf8(w, s, false);
	o[10] = as_uint(f2.x);
	o[11] = as_uint(f2.y);
	f2 = __builtin_amdgcn_cvt_scalef32_pk_f32_fp4(w, s, 3);
	o[12] = as_uint(f2.x);
	o[13] = as_uint(f2.y);
	o[14] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_f16_fp4(w, s, 2));
	o[15] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_bf16_fp4(w, s, 1));
	o[16] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_f16_fp8(w, s, true));
	o[17] = as_uint(__builtin_amdgcn_cvt_scalef32_f32_fp8(w, s, 3));
	half2_ old = {(half)1.0f, (half)2.0f};
	o[18] = as_uint(__builtin_amdgcn_cvt_scalef32_f16_bf8(old, w, s, 2, true));
	o[19] = __builtin_amdgcn_cvt_pk_fp8_f32(a, b, w, true);
	o[20] = __builtin_amdgcn_cvt_pk_bf8_f32(c, d, w, false);
	o[21] = as_uint(__builtin_amdgcn_cvt_f32_fp8(w, 2));
	o[22] = as_uint(__builtin_amdgcn_cvt_f32_bf8(w, 1));
	f2 = __builtin_amdgcn_cvt_pk_f32_fp8(w, true);
	o[23] = as_uint(f2.x + 2 * f2.y);
	// stochastic rounding, the random bits taken from w
	o[24] = __builtin_amdgcn_cvt_sr_fp8_f32(a, w, 0x11223344u, 2);
	o[25] = __builtin_amdgcn_cvt_scalef32_sr_bf8_f16(0x11223344u, h.y, w, s, 1);
	float2_ ab = {a, b};
	o[26] = __builtin_amdgcn_cvt_scalef32_sr_pk_fp4_f32(0x11223344u, ab, w, s, 3);
	bf2 ob = {(__bf16)1.0f, (__bf16)2.0f};
	o[27] = as_uint(__builtin_amdgcn_cvt_sr_bf16_f32(ob, c, w, true));
}

// Transposed LDS reads. T: the tile image, 4 x 1024 bytes (one tile per 16-lane group,
// rows 64 bytes apart). Each lane reads at the address of the transpose idiom:
// lane t of a group reads row t / (16/n), column chunk t % (16/n), n = elements per lane.
// O: 3 words per lane for each of the four instructions (b64 forms leave word 2 at 0).
kernel void tr(global const uint *T, global uint *O)
{
	local uint lds[1024];
	int l = LANE;
	for (int i = l; i < 1024; i += 64)
		lds[i] = T[i];
	__builtin_amdgcn_s_waitcnt(0xC07F); /* lgkmcnt(0); one wave, so no barrier is needed */
	__builtin_amdgcn_s_barrier();
	int g = l / 16, t = l % 16;
	local char *base = (local char *)lds + g * 1024;
	// b16: n = 4, 4 lanes per row, chunk = 8 bytes
	s4 v16 = __builtin_amdgcn_ds_read_tr16_b64_v4i16((local s4 *)(base + (t / 4) * 64 + (t % 4) * 8));
	// b8: n = 8, 2 lanes per row
	i2 v8 = __builtin_amdgcn_ds_read_tr8_b64_v2i32((local i2 *)(base + (t / 2) * 64 + (t % 2) * 8));
	// b4: n = 16, one lane per row
	i2 v4 = __builtin_amdgcn_ds_read_tr4_b64_v2i32((local i2 *)(base + t * 64));
	// b6: n = 16, one lane per row, 12 bytes
	i3 v6 = __builtin_amdgcn_ds_read_tr6_b96_v3i32((local i3 *)(base + t * 64));
	global uint *o = O + l * 12;
	o[0] = (ushort)v16.x | (uint)(ushort)v16.y << 16;
	o[1] = (ushort)v16.z | (uint)(ushort)v16.w << 16;
	o[2] = 0;
	o[3] = v8.x; o[4] = v8.y; o[5] = 0;
	o[6] = v4.x; o[7] = v4.y; o[8] = 0;
	o[9] = v6.x; o[10] = v6.y; o[11] = v6.z;
}
