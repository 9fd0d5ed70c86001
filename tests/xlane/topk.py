#!/usr/bin/python3
"""tests/xlane/topk.py: the register-resident top-8 of tests/xlane/topk.fly on the simulator.

usage: topk.py FLYC_SIM CODE_OBJECT TMPDIR ARCH

Rows of N = 8, 33, 100, 1000 and 4096 values (random floats; rows of a few
values so that most are tied; NaNs of both signs, signed zeros, infinities):
the 8 values and indices must be the first 8 of the row sorted by descending
order_key (every NaN largest, -0 below +0) and ascending index, as Python
sorts them. Values compare by their key (a NaN key gives back a NaN).
"""
import os
import subprocess
import sys

import numpy as np

SIM, CO, TMP, ARCH = sys.argv[1:5]
K = 8


def keyof(f):
    if np.isnan(f):
        return 0xffffffff
    b = int(np.float32(f).view(np.uint32))
    return (b ^ 0xffffffff) if b & 0x80000000 else (b | 0x80000000)


def main():
    rng = np.random.default_rng(1908)
    for n in (8, 33, 100, 1000, 4096):
        rows = [rng.standard_normal(n).astype(np.float32),
                np.array([1.0, -1.0, 0.0, -0.0, 2.0], np.float32)[rng.integers(0, 5, n)],
                np.full(n, -0.0, np.float32)]
        r = rng.standard_normal(n).astype(np.float32)
        r[rng.integers(0, n, 3)] = np.nan
        r[rng.integers(0, n, 2)] = np.float32(-np.nan)
        r[rng.integers(0, n, 2)] = np.inf
        rows.append(r)
        x = np.stack(rows)
        R = x.shape[0]
        xp, vp, ip = (os.path.join(TMP, f) for f in ('tk.x', 'tk.v', 'tk.i'))
        x.tofile(xp)
        p = subprocess.run([SIM, CO, 'topk8', '--arch=' + ARCH, '--grid=%d' % R, 'buf=%d,in=%s' % (x.nbytes, xp),
                            'buf=%d,fill=0x5A,out=%s' % (32 * R, vp), 'buf=%d,fill=0x5A,out=%s' % (32 * R, ip),
                            'i32=%d' % R, 'i32=%d' % n], capture_output=True, text=True)
        name = 'xlane/%s-topk8-n%d' % (ARCH, n)
        if p.returncode != 0:
            print('FAIL: %s\n    %s' % (name, p.stderr.strip()))
            continue
        gv = np.fromfile(vp, np.float32).reshape(R, K)
        gi = np.fromfile(ip, np.int32).reshape(R, K)
        errs = []
        for i in range(R):
            order = sorted(range(n), key=lambda j: (-keyof(x[i][j]), j))[:K]
            wk = [keyof(x[i][j]) for j in order]
            gk = [keyof(v) for v in gv[i]]
            if list(gi[i]) != order or gk != wk:
                errs.append('row %d: indices %s values %s, want %s %s' % (i, list(gi[i]), list(gv[i]), order,
                                                                         [x[i][j] for j in order]))
        if errs:
            print('FAIL: %s\n    %s' % (name, '\n    '.join(errs[:3])))
        else:
            print('PASS: ' + name)
    return 0


sys.exit(main())
