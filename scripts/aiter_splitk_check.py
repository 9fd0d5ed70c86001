#!/usr/bin/python3
"""aiter_splitk_check.py: run ROCm/aiter's hand-written gfx950 bf16 GEMM code
objects (hsa/gfx950/bf16gemm/*.co) in flyc's simulator through libflyrt and
compare them with a CPU reference.

    /usr/bin/python3 scripts/aiter_splitk_check.py AITER [--quick]

AITER is a copy of the ROCm/aiter repository: a checkout (with
hsa/gfx950/bf16gemm/) or a bare git directory (the .co files are read with
`git show HEAD:...` into a temporary directory). Nothing of aiter is kept: the
code objects are read at run time only. Without AITER (or with a missing copy)
the script prints SKIP and exits 0.

What it checks, per case (kernel, M, N, K, split-K, output dtype):
  - the launch runs to completion (no unsupported instruction, no memory
    violation, no timeout);
  - D = A . B^T (A: M x K bf16 row-major, B: N x K bf16 row-major, or B
    preshuffled with aiter's shuffle_weight layout (16, 16) for the
    *_bshuffle_* kernels) against a float64 reference of the same bf16 inputs:
    fp32 output within 1e-5 * sqrt(K) * max|ref| + 1e-6; bf16 output within
    one bf16 ulp of the split-K protocol done in numpy (each split's partial
    over its K/split-K slice rounded to bf16, then added into D and rounded
    again, as global_atomic_pk_add_bf16 does);
  - NaN guards of 4 KiB before and after D are untouched;
  - the split-K semaphore (16 x 64 u32, zero before) is zero again after a
    launch with split-K > 1 (the last split's s_atomic_dec resets it).

The kernel argument layout is aiter's KernelArgs (csrc/py_itfs_cu/
asm_gemm_a16w16.cu): every field padded to 16 bytes, as the code objects'
AMDGPU metadata also lists them. Grid: (N/64, ceil(M/tileM), split-K), block 256.
"""

import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import flyrt  # noqa: E402

SUB = "hsa/gfx950/bf16gemm"

# (code object, tileM, bshuffle, clean split-K protocol)
KERNELS = {
    "bf16gemm_fp32bf16_tn_64x64_splitk_clean": (64, False),
    "bf16gemm_fp32bf16_tn_32x64_splitk_clean": (32, False),
    "bf16gemm_fp32bf16_tn_96x64_bshuffle_splitk_clean": (96, True),
    "bf16gemm_fp32bf16_tn_48x64_bshuffle_splitk_clean": (48, True),
}

# (kernel, M, N, K, splitk, out dtype)
CASES = [
    ("bf16gemm_fp32bf16_tn_64x64_splitk_clean", 64, 64, 256, 2, "f32"),
    ("bf16gemm_fp32bf16_tn_64x64_splitk_clean", 100, 128, 512, 4, "f32"),
    ("bf16gemm_fp32bf16_tn_64x64_splitk_clean", 64, 128, 384, 3, "bf16"),
    ("bf16gemm_fp32bf16_tn_32x64_splitk_clean", 40, 64, 256, 2, "bf16"),
    ("bf16gemm_fp32bf16_tn_96x64_bshuffle_splitk_clean", 96, 64, 512, 2, "f32"),
    ("bf16gemm_fp32bf16_tn_48x64_bshuffle_splitk_clean", 50, 128, 256, 4, "f32"),
    ("bf16gemm_fp32bf16_tn_64x64_splitk_clean", 64, 64, 128, 1, "f32"),
]
QUICK = [0, 3, 4]


def find_cos(root, names, tmp):
    """Paths of the named code objects from a checkout or a bare git directory."""
    out = {}
    for n in names:
        p = os.path.join(root, SUB, n + ".co")
        if os.path.isfile(p):
            out[n] = p
            continue
        r = subprocess.run(["git", "--git-dir", root, "show", "HEAD:%s/%s.co" % (SUB, n)],
                           capture_output=True)
        if r.returncode != 0:
            return None
        q = os.path.join(tmp, n + ".co")
        with open(q, "wb") as f:
            f.write(r.stdout)
        out[n] = q
    return out


def bf16_round(x):
    """float32 array -> uint16 bf16 bits, round to nearest even."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_val(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def shuffle_weight(b):
    """aiter.ops.shuffle.shuffle_weight(x, layout=(16, 16)) for a bf16 N x K array."""
    n, k = b.shape
    return b.reshape(n // 16, 16, k // 32, 4, 8).transpose(0, 2, 3, 1, 4).reshape(n, k).copy()


def f32_bits(x):
    return struct.unpack("<i", struct.pack("<f", x))[0]


def run_case(dev, mods, case, rng):
    name, m, n, k, split, otype = case
    tile_m, bshuf = KERNELS[name]
    kern = mods[name].kernel("_ZN5aiter%d%sE" % (len(name), name))
    a = bf16_round(rng.standard_normal((m, k)).astype(np.float32))
    b = bf16_round(rng.standard_normal((n, k)).astype(np.float32))
    ref = bf16_val(a).astype(np.float64) @ bf16_val(b).astype(np.float64).T
    esz = 2 if otype == "bf16" else 4
    guard = 4096
    dbytes = m * n * esz
    dbuf = dev.alloc(guard + dbytes + guard)
    dbuf.upload(b"\xff" * (guard + dbytes + guard))        # NaN in both dtypes
    abuf = dev.upload(a.tobytes())
    bbuf = dev.upload((shuffle_weight(b) if bshuf else b).tobytes())
    sema = dev.upload(bytes(16 * 64 * 4))
    # aiter passes null for C (beta = 0) and Bias (add_bias = 0); libflyrt refuses
    # null pointers, so they get a 16-byte buffer (a read of either would be a
    # memory violation past it)
    dummy = dev.alloc(16)
    vals = {"D": dbuf.ptr + guard, "C": dummy.ptr, "A": abuf.ptr, "B": bbuf.ptr,
            "alpha": f32_bits(1.0), "beta": f32_bits(0.0),
            "strideD0": n * esz, "strideD1": 0, "strideC0": n * esz, "strideC1": 0,
            "strideA0": k * 2, "strideA1": 0, "strideB0": k * 2, "strideB1": 0,
            "Mdim": m, "Ndim": n, "Kdim": k, "splitk": split,
            "is_out_b16": 1 if otype == "bf16" else 0, "Bias": dummy.ptr, "add_bias": 0,
            "ptr_semaphore": sema.ptr}
    args = [0 if ai.name == "pad" else vals[ai.name] for ai in kern.args]
    grid = (n // 64, (m + tile_m - 1) // tile_m, split)
    kern(*args, grid=grid, block=(256, 1, 1))
    raw = np.frombuffer(dbuf.to_bytes(), dtype=np.uint8)
    pre, body, post = raw[:guard], raw[guard:guard + dbytes], raw[guard + dbytes:]
    problems = []
    if not (pre == 0xFF).all() or not (post == 0xFF).all():
        problems.append("a NaN guard around D was written")
    if otype == "bf16":
        got = bf16_val(body.view(np.uint16)).astype(np.float64).reshape(m, n)
        # the split-K protocol in numpy: D = 0; for each split s (in launch
        # order), D = bf16(D + bf16(partial_s)), partial_s over K slice s of
        # K/split-K (global_atomic_pk_add_bf16 of the bf16-rounded partial);
        # the result must be within one bf16 ulp of that
        kc = k // split
        emu = np.zeros((m, n), np.float32)
        for s in range(split):
            p = (bf16_val(a[:, s * kc:(s + 1) * kc]).astype(np.float64)
                 @ bf16_val(b[:, s * kc:(s + 1) * kc]).astype(np.float64).T).astype(np.float32)
            emu = bf16_val(bf16_round(emu + bf16_val(bf16_round(p))))
        ref = emu.astype(np.float64)
        tol = 2.0 ** -7 * np.abs(ref) + 1e-30
    else:
        got = body.view(np.float32).astype(np.float64).reshape(m, n)
        tol = 1e-5 * np.sqrt(k) * np.abs(ref).max() + 1e-6
    bad = ~(np.abs(got - ref) <= tol)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        problems.append("%d of %d outputs wrong, first D[%d,%d] = %r, reference %r"
                        % (bad.sum(), m * n, i, j, got[i, j], ref[i, j]))
    # split-K > 1: the last split resets the counter to 0. With split-K 1 the
    # kernel stores 1 and takes the path without atomics or the decrement
    # (aiter launches the clean kernels only with split-K > 1).
    left = set(np.frombuffer(sema.to_bytes(), dtype=np.uint32).tolist())
    want = {0, 1} if split == 1 else {0}
    if not left <= want:
        problems.append("the split-K semaphore holds %s after the launch" % sorted(left))
    err = float(np.abs(got - ref).max()) if not np.isnan(got).any() else float("nan")
    for x in (dbuf, abuf, bbuf, sema, dummy):
        x.free()
    return problems, err


def main(argv):
    if len(argv) < 2 or not os.path.exists(argv[1]):
        print("SKIP: aiter_splitk_check: no copy of ROCm/aiter given")
        return 0
    quick = "--quick" in argv
    cases = [CASES[i] for i in QUICK] if quick else CASES
    with tempfile.TemporaryDirectory() as tmp:
        cos = find_cos(argv[1], sorted({c[0] for c in cases}), tmp)
        if cos is None:
            print("SKIP: aiter_splitk_check: %s has no %s code objects" % (argv[1], SUB))
            return 0
        dev = flyrt.Device("sim")
        mods = {n: dev.load(p) for n, p in cos.items()}
        rng = np.random.default_rng(1201)
        npass = nfail = 0
        for c in cases:
            try:
                problems, err = run_case(dev, mods, c, rng)
            except flyrt.FlyrtError as e:
                problems, err = ["launch failed: %s" % e], float("nan")
            what = "%s M=%d N=%d K=%d splitk=%d out=%s" % c
            if problems:
                nfail += 1
                print("FAIL: %s: %s" % (what, "; ".join(problems)))
            else:
                npass += 1
                print("ok: %s (max abs error %.3g)" % (what, err))
        dev.close()
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
