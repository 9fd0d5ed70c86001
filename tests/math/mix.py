#!/usr/bin/python3
"""tests/math/mix.py: builtins on fragments mixed with scalars (tests/math/mix.fly).

usage: mix.py FLYC_SIM CODE_OBJECT TMPDIR [ARCH]

Runs kernel mix on flyc-sim over inputs with the special values (NaN, +-inf,
+-0, +-0.5, halves, huge and denormal values) and random ones, for several run-time
scalars a, and compares each of its eight results with NumPy in f32: bit for
bit (NaN as any NaN, zeros with their sign), exp within 1 ulp.
"""
import os
import subprocess
import sys

import numpy as np

SIM, CO, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
ARCH = sys.argv[4] if len(sys.argv) > 4 else None
f32 = np.float32


def inputs():
    sp = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1.0, -1.0,
          3.4028235e38, -3.4028235e38, 1e-45, -1e-45, 1.1754942e-38, 2.0 ** 23 + 0.5, -(2.0 ** 23) - 0.5,
          8388609.0, 1e30, -1e30, 0.49999997, -0.49999997, 80.0, 100.0, -100.0]
    rng = np.random.default_rng(18)
    r = (rng.uniform(-1, 1, 512 - len(sp)) * 2.0 ** rng.integers(-10, 30, 512 - len(sp)))
    return np.concatenate([np.array(sp), r]).astype(f32)


def reference(x, a):
    a = f32(a)
    with np.errstate(all='ignore'):
        return [np.fmax(x, f32(0)), np.fmin(a, x), np.where(x > a, x, f32(1)), np.where(x < 0, a, f32(2)),
                np.floor(x) - np.floor(a), np.ceil(x) + np.ceil(a), np.abs(x) * (a * a),
                np.exp(np.fmin(x, f32(80)).astype(np.float64))]


def main():
    x = inputs()
    n = len(x)
    xin, yout = os.path.join(TMP, 'mix.in'), os.path.join(TMP, 'mix.out')
    x.tofile(xin)
    failed = 0
    for a in (-0.5, 2.5, -3.0, 0.0):
        cmd = [SIM, CO, 'mix', '--grid=%d' % (n // 256), '--block=64', 'buf=%d,in=%s' % (4 * n, xin),
               'buf=%d,fill=0x7F,out=%s' % (32 * n, yout), 'i32=%d' % n, 'f32=%r' % a]
        if ARCH:
            cmd.insert(3, '--arch=' + ARCH)
        p = subprocess.run(cmd, capture_output=True, text=True)
        tag = 'math/mix-a%g%s' % (a, '-' + ARCH if ARCH else '')
        if p.returncode != 0:
            print('FAIL: %s flyc-sim: %s' % (tag, p.stderr.strip()))
            failed += 1
            continue
        y = np.fromfile(yout, f32).reshape(8, n)
        bad = []
        for k, r in enumerate(reference(x, a)):
            g = y[k].astype(np.float64)
            r = np.asarray(r, np.float64)
            if k == 7:
                ok = np.abs(g - r) <= np.spacing(np.abs(r.astype(f32))).astype(np.float64)
                ok |= (np.isinf(r) & (g == r)) | (np.isnan(r) & np.isnan(g))
            else:
                ok = (g == r) & (np.signbit(g) == np.signbit(r)) | (np.isnan(r) & np.isnan(g))
            for i in np.nonzero(~ok)[0][:3]:
                bad.append('y%d(x=%r) = %r, want %r' % (k, float(x[i]), float(g[i]), float(r[i])))
        if bad:
            failed += 1
            print('FAIL: %s%s' % (tag, ''.join('\n  ' + b for b in bad)))
        else:
            print('PASS: %s (8 results x %d inputs)' % (tag, n))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
