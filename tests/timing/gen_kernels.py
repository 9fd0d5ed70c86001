#!/usr/bin/python3
"""tests/timing/gen_kernels.py — writes the per-pipe timing kernels as assembly
(llvm-mc-22 input): gen_kernels.py gfx950|gfx1201 OUT.s

gfx950 (wave64), each in a short (N) and a long (2N) form so a test can take the
difference and cancel the fixed costs:
  k_mfma16_N:  N dependent v_mfma_f32_16x16x32_bf16 (one wave)
  k_mfma32_N:  N dependent v_mfma_f32_32x32x16_bf16 (one wave)
  k_nop_N:     N s_nop 7 (8 wait states each)
  k_mfmavalu_N: N x (v_mfma_f32_32x32x16_bf16, s_nop 7, s_nop 3, v_add_f32 reading the
               MFMA's result): the 12 wait states LLVM's hazard recognizer requires
               between an 8-pass XDL write and a VALU read on gfx950 (NumPasses + 4)
  k_ldsfree_N: 16 waves, N ds_read_b32 each, lane l at dword l (no conflict)
  k_ldsconf_N: the same at dword 2l (lanes l and l+32 share a bank: 2-way)
  k_lds128_N:  one wave, N ds_read_b128 at byte 128*l (8-way per phase, the
               example of compiler/layout/lay_banks.c)
  k_load_N:    one wave, N global loads each waited for (s_waitcnt vmcnt(0)),
               each of another 64-byte line
gfx1201 (wave32): k_wmma_N (N dependent v_wmma_f32_16x16x16_f16) and k_load_N
(with s_wait_loadcnt)."""
import sys

arch, out = sys.argv[1], sys.argv[2]
N = 32
L = []
w = L.append


def kernel(name, body, vgprs, lds=0, sgprs=8):
    w(f"\t.globl {name}\n\t.p2align 8\n\t.type {name},@function\n{name}:")
    for b in body:
        w("\t" + b)
    w("\ts_endpgm")
    w(f".L{name}_end:\n\t.size {name}, .L{name}_end-{name}\n")
    desc = [f"\t.amdhsa_kernel {name}", "\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1",
            f"\t\t.amdhsa_next_free_vgpr {vgprs}", f"\t\t.amdhsa_next_free_sgpr {sgprs}",
            f"\t\t.amdhsa_group_segment_fixed_size {lds}"]
    if arch == "gfx950":
        desc.append(f"\t\t.amdhsa_accum_offset {(vgprs + 3) // 4 * 4}")
    else:
        desc.append("\t\t.amdhsa_wavefront_size32 1")
    desc.append("\t.end_amdhsa_kernel")
    descs.append("\n".join(desc))
    lanes = 64 if arch == "gfx950" else 32
    metas.append(f"""  - .name: {name}
    .symbol: {name}.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: {lds}
    .private_segment_fixed_size: 0
    .wavefront_size: {lanes}
    .sgpr_count: {sgprs}
    .vgpr_count: {vgprs}
    .max_flat_workgroup_size: 1024
    .args:
      - .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global""")


descs = []
metas = []
w(f'\t.amdgcn_target "amdgcn-amd-amdhsa--{arch}"\n\t.text')
for n in (N, 2 * N):
    if arch == "gfx950":
        kernel(f"k_mfma16_{n}", ["v_mfma_f32_16x16x32_bf16 v[0:3], v[4:7], v[8:11], v[0:3]"] * n, 12)
        kernel(f"k_mfma32_{n}", ["v_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], v[0:15]"] * n, 24)
        kernel(f"k_nop_{n}", ["s_nop 7"] * n, 4)
        kernel(f"k_mfmavalu_{n}", ["v_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], v[0:15]",
                                   "s_nop 7", "s_nop 3", "v_add_f32 v24, v0, v15"] * n, 28)
        pre = ["v_and_b32 v0, 63, v0"]
        kernel(f"k_ldsfree_{n}", pre + ["v_lshlrev_b32 v1, 2, v0"] + ["ds_read_b32 v2, v1"] * n + ["s_waitcnt lgkmcnt(0)"], 4, 1024)
        kernel(f"k_ldsconf_{n}", pre + ["v_lshlrev_b32 v1, 3, v0"] + ["ds_read_b32 v2, v1"] * n + ["s_waitcnt lgkmcnt(0)"], 4, 1024)
        kernel(f"k_lds128_{n}", pre + ["v_lshlrev_b32 v1, 7, v0"] + ["ds_read_b128 v[2:5], v1"] * n + ["s_waitcnt lgkmcnt(0)"], 8, 8192)
        body = ["s_load_dwordx2 s[2:3], s[0:1], 0x0", "v_mov_b32 v1, 0", "s_waitcnt lgkmcnt(0)"]
        for i in range(n):
            body += [f"global_load_dword v2, v1, s[2:3] offset:{64 * i}", "s_waitcnt vmcnt(0)"]
        kernel(f"k_load_{n}", body, 4)
    else:
        kernel(f"k_wmma_{n}", ["v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7]"] * n, 16)
        body = ["s_load_b64 s[2:3], s[0:1], 0x0", "v_mov_b32 v1, 0", "s_wait_kmcnt 0x0"]
        for i in range(n):
            body += [f"global_load_b32 v2, v1, s[2:3] offset:{64 * i}", "s_wait_loadcnt 0x0"]
        kernel(f"k_load_{n}", body, 4)
w("\t.rodata\n\t.p2align 6")
w("\n\t.p2align 6\n".join(descs))
w(f"\t.amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.target: amdgcn-amd-amdhsa--{arch}\namdhsa.kernels:")
w("\n".join(metas))
w("...\n\t.end_amdgpu_metadata")
open(out, "w").write("\n".join(L) + "\n")
