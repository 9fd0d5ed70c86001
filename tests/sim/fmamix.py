#!/usr/bin/python3
"""tests/sim/fmamix.py: gfx1201 v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16 against Python.

    fmamix.py FLYC_SIM LLVM_MC LLD TMPDIR

Each case assembles a one-wave wave32 kernel that loads three source registers and the
destination's old value per lane (register r of lane l from in[r * 32 + l]), runs the
instruction once and stores the destination. Operand i is f32 unless op_sel_hi[i] is set,
then the f16 in half op_sel[i]; the disassembler prints op_sel_hi only when a bit is set,
so the forms without it (all f32: what LLVM emits for convert<f16>(a * (b - c)) on gfx1201)
are cases of their own. mixlo/mixhi write one half and keep the other. Inputs are
f16-representable (11-bit mantissas, |x| < 8) so a * b + c is exact in a double and the
reference rounds once (RNE), as the fused instruction does. One PASS/FAIL line per case.
"""
import os
import random
import struct
import subprocess
import sys

# instruction, modifiers
CASES = [
    ("v_fma_mix_f32", ""),
    ("v_fma_mix_f32", "op_sel_hi:[1,1,0]"),
    ("v_fma_mix_f32", "op_sel:[1,0,1] op_sel_hi:[1,0,1]"),
    ("v_fma_mixlo_f16", ""),
    ("v_fma_mixhi_f16", ""),
    ("v_fma_mixlo_f16", "op_sel_hi:[1,1,1]"),
    ("v_fma_mixhi_f16", "op_sel:[0,1,0] op_sel_hi:[0,1,0]"),
]


def bits_list(mods, key):
    if key + ":[" not in mods:
        return [0, 0, 0]
    return [int(x) for x in mods.split(key + ":[")[1].split("]")[0].split(",")]


def kernel_asm(name, mods):
    lines = ["\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx1201\"", "\t.text", "\t.globl k_mix", "\t.p2align 8",
             "\t.type k_mix,@function", "k_mix:",
             "\ts_load_b64 s[0:1], s[0:1], 0x0", "\tv_lshlrev_b32 v40, 2, v0", "\ts_wait_kmcnt 0x0"]
    for r in range(4):   # v1..v3 sources, v4 the destination's old value
        lines.append("\tglobal_load_b32 v%d, v40, s[0:1] offset:%d" % (r + 1, r * 128))
    lines += ["\ts_wait_loadcnt 0x0", "\t%s v4, v1, v2, v3 %s" % (name, mods),
              "\tglobal_store_b32 v40, v4, s[0:1] offset:512", "\ts_endpgm", ".Lend:",
              "\t.size k_mix, .Lend-k_mix", "\t.rodata", "\t.p2align 6",
              "\t.amdhsa_kernel k_mix", "\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1",
              "\t\t.amdhsa_wavefront_size32 1", "\t\t.amdhsa_next_free_vgpr 48", "\t\t.amdhsa_next_free_sgpr 8",
              "\t.end_amdhsa_kernel", "\t.amdgpu_metadata", "---", "amdhsa.version: [ 1, 2 ]",
              "amdhsa.target: amdgcn-amd-amdhsa--gfx1201", "amdhsa.kernels:", "  - .name: k_mix",
              "    .symbol: k_mix.kd", "    .kernarg_segment_size: 8", "    .kernarg_segment_align: 8",
              "    .group_segment_fixed_size: 0", "    .private_segment_fixed_size: 0", "    .wavefront_size: 32",
              "    .sgpr_count: 8", "    .vgpr_count: 48", "    .max_flat_workgroup_size: 32", "    .args: []",
              "...", "\t.end_amdgpu_metadata"]
    return "\n".join(lines) + "\n"


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def run_case(n, case, sim, mc, lld, tmp):
    name, mods = case
    rng = random.Random(1201 + n)
    osel, ohi = bits_list(mods, "op_sel"), bits_list(mods, "op_sel_hi")
    s, o, co = (os.path.join(tmp, "mix%d.%s" % (n, x)) for x in ("s", "o", "hsaco"))
    with open(s, "w") as f:
        f.write(kernel_asm(name, mods))
    for cmd in ([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1201", "-filetype=obj", s, "-o", o],
                [lld, "-shared", o, "-o", co]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            return "build: " + r.stderr.strip()
    regs, vals = [], []
    for i in range(3):
        row, v = [], []
        for _ in range(32):
            lo, hi = (struct.unpack("<e", struct.pack("<e", rng.uniform(-8, 8)))[0] for _ in range(2))
            if ohi[i]:   # f16 in half op_sel[i], the other half another value
                row.append(f16_bits(lo) | f16_bits(hi) << 16)
                v.append(hi if osel[i] else lo)
            else:        # an f32 with an f16's mantissa
                row.append(f32_bits(lo))
                v.append(lo)
        regs.append(row)
        vals.append(v)
    old = [rng.randrange(1 << 32) for _ in range(32)]
    data = b"".join(struct.pack("<32I", *row) for row in regs + [old])
    inp, outp = os.path.join(tmp, "mix%d.in" % n), os.path.join(tmp, "mix%d.out" % n)
    with open(inp, "wb") as f:
        f.write(data)
    r = subprocess.run([sim, co, "k_mix", "--grid=1", "--block=32", "--raw-kernarg",
                        "buf=%d,in=%s,out=%s" % (len(data) + 128, inp, outp)], capture_output=True, text=True)
    if r.returncode:
        return "flyc-sim: " + (r.stdout + r.stderr).strip()
    with open(outp, "rb") as f:
        got = struct.unpack_from("<32I", f.read(), len(data))
    bad, first = 0, None
    for l in range(32):
        x = vals[0][l] * vals[1][l] + vals[2][l]          # exact in a double
        if name == "v_fma_mix_f32":
            want = f32_bits(x)
        elif name == "v_fma_mixlo_f16":
            want = (old[l] & 0xFFFF0000) | f16_bits(x)
        else:
            want = (old[l] & 0xFFFF) | f16_bits(x) << 16
        if got[l] != want:
            bad += 1
            first = first or "lane %d: 0x%08x, want 0x%08x" % (l, got[l], want)
    return "%d of 32 lanes wrong, first %s" % (bad, first) if bad else None


def main(argv):
    sim, mc, lld, tmp = argv[1:5]
    nfail = 0
    for n, c in enumerate(CASES):
        err = run_case(n, c, sim, mc, lld, tmp)
        what = "sim/fmamix-%s%s" % (c[0][2:], ("-" + c[1].replace(" ", "-").replace(":", "").replace("[", "")
                                                .replace("]", "").replace(",", "")) if c[1] else "")
        if err:
            nfail += 1
            print("FAIL: %s\n    %s" % (what, err))
        else:
            print("PASS: %s" % what)
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
