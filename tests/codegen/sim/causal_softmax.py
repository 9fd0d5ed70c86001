"""CPU reference for examples/causal_softmax.fly (tests/codegen/causal-softmax.test).

usage: causal_softmax.py FLYC_SIM HSACO
Runs the kernel on the simulator for several shapes (row lengths that are and are
not multiples of the tile, fewer rows than a workgroup, causal offsets that mask
whole rows) and compares with a float64 softmax over the unmasked columns
(c <= r + offset; rows with none are zeros). Prints one line per shape and "bad N".
"""
import subprocess
import sys

import numpy as np

SHAPES = [(64, 64, 0), (70, 37, 0), (5, 100, -3), (130, 8, 2), (1, 1, 0), (3, 9, -5), (65, 17, 40)]


def reference(s, off):
    rows, cols = s.shape
    p = np.zeros(s.shape)
    for r in range(rows):
        keep = np.arange(cols) <= r + off
        if keep.any():
            x = s[r, keep].astype(np.float64)
            e = np.exp(x - x.max())
            p[r, keep] = e / e.sum()
    return p


def main():
    sim, hsaco = sys.argv[1], sys.argv[2]
    bad = 0
    for rows, cols, off in SHAPES:
        rng = np.random.default_rng(rows * 1000 + cols)
        s = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
        s.tofile("s.bin")
        n = 4 * rows * cols
        subprocess.run([sim, hsaco, "causal_softmax", "buf=%d,in=s.bin" % n, "buf=%d,fill=0xAB,out=p.bin" % n,
                        "i32=%d" % rows, "i32=%d" % cols, "i32=%d" % off], check=True)
        p = np.fromfile("p.bin", np.float32).reshape(rows, cols)
        err = np.abs(p - reference(s, off))
        wrong = int(np.sum(~(err <= 2e-6)))      # NaN counts as wrong
        masked = sum(1 for r in range(rows) if r + off < 0)
        print("%dx%d offset %d: max error %.3g, %d fully masked rows, %d wrong" %
              (rows, cols, off, float(np.nanmax(err)), masked, wrong))
        bad += wrong
    print("bad", bad)


main()
