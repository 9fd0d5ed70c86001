#!/usr/bin/python3
"""tests/sim/wmma.py: the gfx1201 WMMA instructions one by one against Python.

    wmma.py FLYC_SIM LLVM_MC LLD TMPDIR

For each v_wmma_* of gfx1201 (and a few modifier forms) it assembles a one-wave
wave32 kernel that loads A, B and C register by register (register r of lane l
from in[r * 32 + l]), runs the instruction once and stores D the same way; it
runs it in flyc-sim on random inputs and compares D with a reference computed
here. The lane layouts below are the formulas ROCm/amd_matrix_instruction_calculator
prints for RDNA4 wave32 ("A[i][k] GPR", "A[i][k] Lane", "C or D[i][j] ..."),
written independently of the simulator's generic rule (runtime/sim/simx_wmma.c).
Arithmetic: products summed in double in k order, plus C, rounded once to the
output type; integers exact (wrapped, or saturated with clamp). Prints one
PASS/FAIL line per case.
"""

import math
import os
import random
import struct
import subprocess
import sys

# name, K, A type, B type, C/D type, modifiers
CASES = [
    ("v_wmma_f32_16x16x16_f16", 16, "f16", "f16", "f32", ""),
    ("v_wmma_f32_16x16x16_f16", 16, "f16", "f16", "f32", "neg_lo:[1,0,1]"),
    ("v_wmma_f32_16x16x16_bf16", 16, "bf16", "bf16", "f32", ""),
    ("v_wmma_f16_16x16x16_f16", 16, "f16", "f16", "f16", ""),
    ("v_wmma_bf16_16x16x16_bf16", 16, "bf16", "bf16", "bf16", ""),
    ("v_wmma_f32_16x16x16_fp8_fp8", 16, "fp8", "fp8", "f32", ""),
    ("v_wmma_f32_16x16x16_fp8_bf8", 16, "fp8", "bf8", "f32", ""),
    ("v_wmma_f32_16x16x16_bf8_fp8", 16, "bf8", "fp8", "f32", ""),
    ("v_wmma_f32_16x16x16_bf8_bf8", 16, "bf8", "bf8", "f32", ""),
    ("v_wmma_i32_16x16x16_iu8", 16, "u8", "u8", "i32", ""),
    ("v_wmma_i32_16x16x16_iu8", 16, "i8", "u8", "i32", "neg_lo:[1,0,0]"),
    ("v_wmma_i32_16x16x16_iu8", 16, "i8", "i8", "i32", "neg_lo:[1,1,0] clamp"),
    ("v_wmma_i32_16x16x16_iu4", 16, "i4", "i4", "i32", "neg_lo:[1,1,0]"),
    ("v_wmma_i32_16x16x16_iu4", 16, "u4", "u4", "i32", ""),
    ("v_wmma_i32_16x16x32_iu4", 32, "i4", "u4", "i32", "neg_lo:[1,0,0]"),
]

BITS = {"f16": 16, "bf16": 16, "fp8": 8, "bf8": 8, "u8": 8, "i8": 8, "u4": 4, "i4": 4, "f32": 32, "i32": 32}


def ab_pos(t, K, x, k):
    """(register, bit, lane) of A[x][k] (or B[k][x]): the calculator's formulas."""
    b = BITS[t]
    if b == 16:
        return 2 * (k // 8) + (k // 2) % 2, 16 * (k % 2), 16 * ((k // 4) % 2) + x
    if b == 8:
        return (k // 4) % 2, 8 * (k % 4), 16 * (k // 8) + x
    if K == 16:
        return 0, 4 * (k % 8), 16 * (k // 8) + x
    return (k // 8) % 2, 4 * (k % 8), 16 * (k // 16) + x


def cd_pos(t, i, j):
    if BITS[t] == 32:
        return i % 8, 0, 16 * (i // 8) + j
    return (i // 2) % 4, 16 * (i % 2), 16 * (i // 8) + j


def f16_val(h):
    return struct.unpack("<e", struct.pack("<H", h))[0]


def bf16_val(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def f32_val(u):
    return struct.unpack("<f", struct.pack("<I", u))[0]


def mini_val(code, ebits, mbits, bias, ocp_e4m3):
    s = -1.0 if code >> (ebits + mbits) & 1 else 1.0
    e = (code >> mbits) & ((1 << ebits) - 1)
    m = code & ((1 << mbits) - 1)
    if e == 0:
        return s * m / (1 << mbits) * 2.0 ** (1 - bias)
    return s * (1 + m / (1 << mbits)) * 2.0 ** (e - bias)


def elem_val(t, c):
    if t == "f16":
        return f16_val(c)
    if t == "bf16":
        return bf16_val(c)
    if t == "fp8":
        return mini_val(c, 4, 3, 7, True)       # OCP E4M3FN
    if t == "bf8":
        return mini_val(c, 5, 2, 15, False)     # OCP E5M2
    if t == "u8":
        return c
    if t == "i8":
        return c - 256 if c & 0x80 else c
    if t == "u4":
        return c
    return c - 16 if c & 8 else c               # i4


def rand_elem(t, rng):
    if t == "f16":
        return struct.unpack("<H", struct.pack("<e", rng.uniform(-2, 2)))[0]
    if t == "bf16":
        return struct.unpack("<I", struct.pack("<f", rng.uniform(-2, 2)))[0] >> 16
    if t in ("fp8", "bf8"):
        while True:   # finite codes only (no NaN, no Inf)
            c = rng.randrange(256)
            if t == "fp8" and (c & 0x7F) != 0x7F:
                return c
            if t == "bf8" and (c >> 2 & 31) != 31:
                return c
    return rng.randrange(1 << BITS[t])


def round_out(t, x):
    """The bits of x (a double) rounded once to the output type."""
    if t == "f32":
        return struct.unpack("<I", struct.pack("<f", x))[0]
    if t == "f16":
        return struct.unpack("<H", struct.pack("<e", x))[0]
    # bf16, round to nearest even from the double (no subnormals or overflow here)
    if x == 0:
        return 0x8000 if math.copysign(1, x) < 0 else 0
    m, e = math.frexp(x)
    q = round(m * 256)
    return struct.unpack("<I", struct.pack("<f", q * 2.0 ** (e - 8)))[0] >> 16


def kernel_asm(name, K, ta, tb, tc, mods):
    ra = K // 2 * BITS[ta] // 32
    rb = K // 2 * BITS[tb] // 32
    rc = 8 if BITS[tc] == 32 else 4
    a0, b0 = 8, 8 + ra
    c0 = b0 + rb
    lines = ["\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx1201\"", "\t.text", "\t.globl k_wmma", "\t.p2align 8",
             "\t.type k_wmma,@function", "k_wmma:",
             "\ts_load_b64 s[0:1], s[0:1], 0x0", "\tv_lshlrev_b32 v40, 2, v0", "\ts_wait_kmcnt 0x0"]
    regs = list(range(a0, a0 + ra)) + list(range(b0, b0 + rb)) + list(range(c0, c0 + rc))
    for n, r in enumerate(regs):
        lines.append("\tglobal_load_b32 v%d, v40, s[0:1] offset:%d" % (r, n * 128))
    lines.append("\ts_wait_loadcnt 0x0")
    rng = lambda b, n: "v%d" % b if n == 1 else "v[%d:%d]" % (b, b + n - 1)
    lines.append("\t%s %s, %s, %s, %s %s" % (name, rng(0, rc), rng(a0, ra), rng(b0, rb), rng(c0, rc), mods))
    out = len(regs) * 128
    for r in range(rc):
        lines.append("\tglobal_store_b32 v40, v%d, s[0:1] offset:%d" % (r, out + r * 128))
    lines += ["\ts_endpgm", ".Lend:", "\t.size k_wmma, .Lend-k_wmma", "\t.rodata", "\t.p2align 6",
              "\t.amdhsa_kernel k_wmma", "\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1",
              "\t\t.amdhsa_wavefront_size32 1", "\t\t.amdhsa_next_free_vgpr 48", "\t\t.amdhsa_next_free_sgpr 8",
              "\t.end_amdhsa_kernel", "\t.amdgpu_metadata", "---", "amdhsa.version: [ 1, 2 ]",
              "amdhsa.target: amdgcn-amd-amdhsa--gfx1201", "amdhsa.kernels:", "  - .name: k_wmma",
              "    .symbol: k_wmma.kd", "    .kernarg_segment_size: 8", "    .kernarg_segment_align: 8",
              "    .group_segment_fixed_size: 0", "    .private_segment_fixed_size: 0", "    .wavefront_size: 32",
              "    .sgpr_count: 8", "    .vgpr_count: 48", "    .max_flat_workgroup_size: 32", "    .args: []",
              "...", "\t.end_amdgpu_metadata"]
    return "\n".join(lines) + "\n", ra, rb, rc


def run_case(n, case, sim, mc, lld, tmp):
    name, K, ta, tb, tc, mods = case
    rng = random.Random(1201 + n)
    asm, ra, rb, rc = kernel_asm(name, K, ta, tb, tc, mods)
    s, o, co = (os.path.join(tmp, "wmma%d.%s" % (n, x)) for x in ("s", "o", "hsaco"))
    with open(s, "w") as f:
        f.write(asm)
    for cmd in ([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1201", "-filetype=obj", s, "-o", o],
                [lld, "-shared", o, "-o", co]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            return "build: " + r.stderr.strip()
    regs = [[0] * 32 for _ in range(ra + rb + rc)]
    A = [[rand_elem(ta, rng) for _ in range(K)] for _ in range(16)]
    B = [[rand_elem(tb, rng) for _ in range(16)] for _ in range(K)]   # B[k][j]
    for i in range(16):
        for k in range(K):
            r, bit, lane = ab_pos(ta, K, i, k)
            regs[r][lane] |= A[i][k] << bit
    for k in range(K):
        for j in range(16):
            r, bit, lane = ab_pos(tb, K, j, k)
            regs[ra + r][lane] |= B[k][j] << bit
    C = [[0] * 16 for _ in range(16)]
    for i in range(16):
        for j in range(16):
            if tc == "f32":
                c = struct.unpack("<I", struct.pack("<f", rng.uniform(-4, 4)))[0]
            elif tc == "i32":
                c = rng.randrange(1 << 32) if "clamp" not in mods else rng.choice([0x7FFFFF00, 0x80000100, 5])
            else:
                c = rand_elem(tc, rng)
            C[i][j] = c
            r, bit, lane = cd_pos(tc, i, j)
            regs[ra + rb + r][lane] |= c << bit
    data = b"".join(struct.pack("<32I", *row) for row in regs)
    inp, outp = os.path.join(tmp, "wmma%d.in" % n), os.path.join(tmp, "wmma%d.out" % n)
    with open(inp, "wb") as f:
        f.write(data)
    size = len(data) + rc * 128
    r = subprocess.run([sim, co, "k_wmma", "--grid=1", "--block=32", "--raw-kernarg",
                        "buf=%d,in=%s,out=%s" % (size, inp, outp)], capture_output=True, text=True)
    if r.returncode:
        return "flyc-sim: " + (r.stdout + r.stderr).strip()
    with open(outp, "rb") as f:
        got = f.read()[len(data):]
    D = [struct.unpack_from("<32I", got, 128 * q) for q in range(rc)]
    neg = [0, 0, 0]
    if "neg_lo" in mods:
        neg = [int(x) for x in mods.split("neg_lo:[")[1].split("]")[0].split(",")]
    bad = 0
    first = None
    for i in range(16):
        for j in range(16):
            r, bit, lane = cd_pos(tc, i, j)
            mask = (1 << BITS[tc]) - 1
            g = (D[r][lane] >> bit) & mask
            if tc == "i32":
                s_ = sum(elem_val(ta, A[i][k]) * elem_val(tb, B[k][j]) for k in range(K))
                c = C[i][j] - (1 << 32) if C[i][j] >> 31 else C[i][j]
                v = s_ + c
                if "clamp" in mods:
                    v = max(-2 ** 31, min(2 ** 31 - 1, v))
                want = v & mask
            else:
                sa = -1.0 if neg[0] else 1.0
                sb = -1.0 if neg[1] else 1.0
                cv = {"f32": f32_val, "f16": f16_val, "bf16": bf16_val}[tc](C[i][j])
                if neg[2]:
                    cv = -cv
                s_ = 0.0
                for k in range(K):
                    s_ += sa * elem_val(ta, A[i][k]) * sb * elem_val(tb, B[k][j])
                want = round_out(tc, s_ + cv)
            if g != want:
                bad += 1
                if first is None:
                    first = "D[%d][%d] = 0x%x, want 0x%x" % (i, j, g, want)
    return "%d of 256 wrong, first %s" % (bad, first) if bad else None


def main(argv):
    sim, mc, lld, tmp = argv[1:5]
    npass = nfail = 0
    for n, c in enumerate(CASES):
        err = run_case(n, c, sim, mc, lld, tmp)
        what = "sim/wmma-%s%s" % (c[0][7:], ("-" + c[5].replace(" ", "-").replace(":", "").replace("[", "").replace("]", "").replace(",", "")) if c[5] else "")
        if c[0].endswith("iu8") or c[0].endswith("iu4"):
            what += "-%s%s" % (c[2], c[3])
        if err:
            nfail += 1
            print("FAIL: %s\n    %s" % (what, err))
        else:
            npass += 1
            print("PASS: %s" % what)
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
