#!/usr/bin/python3
"""tests/xlane/select.py: radix selection with LDS atomics and a workgroup scan (select.fly).

usage: select.py FLYC_SIM CODE_OBJECT TMPDIR ARCH

For rows of N values (N = 1, 37, 1000, 4096; random floats, rows drawn from a
few values so that many are equal, NaNs of both signs, signed zeros and
infinities) and k from 1 to N, the kernel's (key, rank) must be the order_key
of the k-th largest value (every NaN largest, -0 below +0) and k minus the
number of values with a larger key, computed by sorting in Python.
"""
import os
import struct
import subprocess
import sys

import numpy as np

SIM, CO, TMP, ARCH = sys.argv[1:5]


def okey(b):
    return (b ^ 0xffffffff) if b & 0x80000000 else (b | 0x80000000)


def keyof(f):
    b = int(f.view(np.uint32))
    if np.isnan(f):
        return 0xffffffff
    return okey(b)


def main():
    rng = np.random.default_rng(1901)
    bad = 0
    for n in (1, 37, 1000, 4096):
        rows = []
        rows.append(rng.standard_normal(n).astype(np.float32))
        rows.append(np.array([1.0, -1.0, 0.0, -0.0, 2.0], np.float32)[rng.integers(0, 5, n)])
        r = rng.standard_normal(n).astype(np.float32)
        r[rng.integers(0, n, max(1, n // 50))] = np.nan
        r[rng.integers(0, n, max(1, n // 50))] = np.float32(-np.inf)
        rows.append(r)
        rows.append(np.full(n, 3.5, np.float32))
        x = np.stack(rows)
        R = x.shape[0]
        ks = np.array([1, n, max(1, n // 2), int(rng.integers(1, n + 1))], np.uint32)
        xp, kp, op = (os.path.join(TMP, f) for f in ('sel.x', 'sel.k', 'sel.out'))
        x.tofile(xp)
        ks.tofile(kp)
        p = subprocess.run([SIM, CO, 'radix_select', '--arch=' + ARCH, '--grid=%d' % R,
                            'buf=%d,in=%s' % (x.nbytes, xp), 'buf=%d,in=%s' % (ks.nbytes, kp),
                            'buf=%d,fill=0x5A,out=%s' % (8 * R, op), 'i32=%d' % R, 'i32=%d' % n],
                           capture_output=True, text=True)
        name = 'xlane/%s-radix-select-n%d' % (ARCH, n)
        if p.returncode != 0:
            print('FAIL: %s\n    %s' % (name, p.stderr.strip()))
            bad += 1
            continue
        got = np.fromfile(op, np.uint32).reshape(R, 2)
        errs = []
        for i in range(R):
            keys = sorted((keyof(v) for v in x[i]), reverse=True)
            k = int(ks[i])
            kth = keys[k - 1]
            rank = k - sum(1 for v in keys if v > kth)
            if (int(got[i][0]), int(got[i][1])) != (kth, rank):
                errs.append('row %d k=%d: got (0x%08x, %d) want (0x%08x, %d)' % (i, k, got[i][0], got[i][1], kth, rank))
        if errs:
            print('FAIL: %s\n    %s' % (name, '\n    '.join(errs[:4])))
            bad += 1
        else:
            print('PASS: ' + name)
    return 0


sys.exit(main())
