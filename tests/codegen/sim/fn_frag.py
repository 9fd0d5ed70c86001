"""Inputs and CPU references for tests/codegen/fn-frag.test (fly/fn_frag.fly).

gen: writes x.bin (1024 f32, seeded) and xs.bin, ys.bin (256 f32 each).
check-scalar / check-frag: compares the simulator's outputs with NumPy and
prints "bad N" (N mismatching elements), which FileCheck requires to be 0.
"""
import sys

import numpy as np

rng = np.random.default_rng(7)
x = rng.standard_normal(1024).astype(np.float32)
y = rng.standard_normal(1024).astype(np.float32)


def gen():
    x.tofile("x.bin")
    x[:256].tofile("xs.bin")
    y[:256].tofile("ys.bin")


def check_scalar():
    xo = np.fromfile("xo.bin", np.float32)
    yo = np.fromfile("yo.bin", np.float32)
    zo = np.fromfile("zo.bin", np.int32)
    i = np.arange(64)
    ey = y[:256].copy()
    ey[:64] = np.float32(2) * x[:64] + y[:64]
    ex = x[:256].copy()
    ex[64:128] = (x[64:128] + x[64:128]) + x[64:128]
    ez = np.zeros(256, np.int32)
    ez[:64] = np.abs(63 - 2 * i)
    ez[64:128] = [int(k).bit_length() for k in i]
    ez[128:192] = i + 3
    bad = int(np.sum(yo != ey) + np.sum(xo != ex) + np.sum(zo != ez))
    print("bad", bad)


def check_frag():
    yo = np.fromfile("yo.bin", np.float32)
    mo = np.fromfile("mo.bin", np.int32)
    bo = np.fromfile("bo.bin", np.float32)
    bio = np.fromfile("bio.bin", np.int32)
    ey = np.zeros(1024, np.float32)
    em = np.zeros(1024, np.int32)
    eb = np.zeros(64, np.float32)
    ebi = np.zeros(64, np.int32)
    for t in range(64):
        v = x[t * 16:t * 16 + 16].reshape(4, 4)          # v[i, j] = x[16t + 4i + j]
        w = v.T.flatten(order="F")                     # w column-major: w[i, j] = v[j, i]
        s = np.where(w > np.float32(0.25), w * np.float32(3), np.float32(-1))
        best, at = np.float32(-1.0e30), -1
        for e in range(16):
            r, q = 4 * t + e % 4, e // 4               # column-major element e of the tile
            val = s[e] if r % 4 >= q else np.float32(0)
            ey[t * 16 + e] = val
            if val > best:
                best, at = val, r * 4 + q
            em[t * 16 + e] = 1 if (r < 255 and q < 3) else 0
        eb[t], ebi[t] = best, at
    bad = int(np.sum(yo != ey) + np.sum(mo != em) + np.sum(bo != eb) + np.sum(bio != ebi))
    print("bad", bad)


def check_early(n):
    o = np.fromfile("xo.bin", np.float32)
    e = x[:256].copy()
    for i in range(64):
        e[i] = -1.0 if i >= n else 100.0 if i == 0 else max(x[i], np.float32(0)) * np.float32(2)
    print("bad", int(np.sum(o != e)))


if sys.argv[1] == "check-early":
    check_early(int(sys.argv[2]))
else:
    {"gen": gen, "check-scalar": check_scalar, "check-frag": check_frag}[sys.argv[1]]()
