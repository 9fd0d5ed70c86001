#!/usr/bin/python3
"""tests/math/bits.py: the bits builtins on the simulator (tests/math/bits.fly).

usage: bits.py FLYC_SIM CODE_OBJECT TMPDIR [ARCH]

bits32: popcount, clz, ctz (of u32 and i32 fragments and of a run-time u32
scalar), bitcast, order_key / order_key_inv of f32, &, |, ^, ~, <<, >> (logical
on u32, arithmetic on i32) over edge values (0, 1, the sign bit, all ones, ±0,
±inf, NaNs of both signs, denormals) and random words, bit for bit against
Python; order_key is also checked to be strictly increasing over the sorted
non-NaN inputs with -0 below +0 and every NaN above +inf. bits16: order_key of
f16 and bf16 and order_key_inv back, over all 65,536 encodings. bits64:
popcount, clz, ctz of u64 fragments (edge values, odd and one-bit words).
"""
import os
import subprocess
import sys

import numpy as np

SIM, CO, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
ARCH = sys.argv[4] if len(sys.argv) > 4 else None
M32 = 0xffffffff


def sim(kernel, n, bufs, outsize, scalars):
    paths = []
    cmd = [SIM, CO, kernel, '--grid=%d' % (n // 256), '--block=64']
    if ARCH:
        cmd.append('--arch=' + ARCH)
    for i, b in enumerate(bufs):
        p = os.path.join(TMP, '%s.in%d' % (kernel, i))
        b.tofile(p)
        cmd.append('buf=%d,in=%s' % (b.nbytes, p))
    out = os.path.join(TMP, kernel + '.res')
    cmd.append('buf=%d,fill=0x5A,out=%s' % (outsize, out))
    cmd += ['i32=%d' % n] + scalars
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return open(out, 'rb').read(), ''


def count(u, w):
    pc = bin(u).count('1')
    clz = w - u.bit_length()
    ctz = (u & -u).bit_length() - 1 if u else w
    return pc, clz, ctz


def key(b, w):
    sign, ones = 1 << (w - 1), (1 << w) - 1
    e = (b >> (10 if w == 16 else 23)) & (0x1f if w == 16 else 0xff)
    return b ^ ones if b & sign else b | sign


def check(tag, got, want, xs):
    bad = [i for i in range(len(want)) if int(got[i]) != want[i]]
    if bad:
        i = bad[0]
        return ['%s: x=0x%x got 0x%x want 0x%x (%d wrong)' % (tag, int(xs[i]), int(got[i]), want[i], len(bad))]
    return []


def bits32(s):
    edge = [0, 1, 2, 3, 0x80000000, M32, 0x7fffffff, 0x80000001, 0x00010000, 0x3f800000, 0xbf800000,
            0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x00000001, 0x807fffff,
            0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff]
    rng = np.random.default_rng(18)
    x = np.concatenate([np.array(edge, np.uint32), rng.integers(0, 1 << 32, 1024 - len(edge), dtype=np.uint64).astype(np.uint32),
                        (np.uint32(1) << rng.integers(0, 32, 1024).astype(np.uint32))])
    n = len(x)
    out, err = sim('bits32', n, [x, x.view(np.float32)], 12 * 4 * n, ['u32=%d' % s])
    if out is None:
        return ['flyc-sim: ' + err]
    y = np.frombuffer(out, np.uint32).reshape(12, n)
    xs = [int(v) for v in x]
    f = x.view(np.float32)
    sc = count(s, 32)
    want = [
        [count(u, 32)[0] for u in xs], [count(u, 32)[1] for u in xs], [count(u, 32)[2] for u in xs],
        [(lambda c: (c[0] + c[1] * 64 + c[2] * 4096) & M32)(count(u, 32)) for u in xs],
        [M32 if np.isnan(f[i]) else key(u, 32) for i, u in enumerate(xs)],
        [u ^ 0x80000000 if u & 0x80000000 else u ^ M32 for u in xs],
        xs,
        [(u & s) | (u ^ 0x0f0f0f0f) for u in xs],
        [u ^ M32 for u in xs],
        [((u << 3) + (u >> 5)) & M32 for u in xs],
        [((u - (1 << 32) if u & 0x80000000 else u) >> 7) & M32 for u in xs],
        [(sc[0] + sc[1] * 64 + sc[2] * 4096) & M32] * n,
    ]
    names = ['popcount', 'clz', 'ctz', 'i32 counts', 'order_key', 'order_key_inv', 'bitcast', 'and/or/xor',
             'not', 'shifts', 'sar', 'scalar counts']
    bad = []
    for k in range(12):
        if k == 5:
            # order_key_inv of the all-ones key is a NaN: compare as floats there
            g = y[5].copy()
            w = np.array(want[5], np.uint32)
            nan = np.isnan(g.view(np.float32)) & np.isnan(w.view(np.float32))
            g[nan] = w[nan]
            bad += check(names[k], g, want[k], x)
        else:
            bad += check(names[k], y[k], want[k], x)
    # order: strictly increasing on sorted non-NaN values, -0 below +0, NaN on top
    fin = ~np.isnan(f)
    order = np.lexsort((~np.signbit(f[fin]), f[fin].astype(np.float64)))
    keys = y[4][fin][order].astype(np.int64)
    vals = f[fin][order]
    uniq = np.concatenate([[True], (vals[1:] != vals[:-1]) | (np.signbit(vals[1:]) != np.signbit(vals[:-1]))])
    ku = keys[uniq]
    if np.any(np.diff(ku) <= 0):
        bad.append('order_key is not strictly increasing')
    if np.any(y[4][~fin] != M32) or keys.max() >= M32:
        bad.append('order_key of a NaN is not the largest key')
    return bad


def bits16():
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    n = len(x)
    out, err = sim('bits16', n, [x, x, x], 4 * 2 * n, [])
    if out is None:
        return ['flyc-sim: ' + err]
    y = np.frombuffer(out, np.uint16).reshape(4, n)
    h = x.view(np.float16)
    b = (x.astype(np.uint32) << 16).view(np.float32)
    xs = [int(v) for v in x]
    bad = []
    bad += check('order_key f16', y[0], [0xffff if np.isnan(h[i]) else key(u, 16) for i, u in enumerate(xs)], x)
    bad += check('order_key bf16', y[1], [0xffff if np.isnan(b[i]) else key(u, 16) for i, u in enumerate(xs)], x)
    inv = [u ^ 0x8000 if u & 0x8000 else u ^ 0xffff for u in xs]
    for k, isnan in ((2, lambda v: np.isnan(v.view(np.float16))),
                     (3, lambda v: np.isnan((v.astype(np.uint32) << 16).view(np.float32)))):
        g = y[k].copy()
        w = np.array(inv, np.uint16)
        nan = isnan(g) & isnan(w)
        g[nan] = w[nan]
        bad += check('order_key_inv %s' % ('f16' if k == 2 else 'bf16'), g, inv, x)
    return bad


def bits64():
    rng = np.random.default_rng(64)
    edge = [0, 1, 1 << 63, (1 << 64) - 1, 1 << 32, (1 << 32) - 1, 0x8000000080000000]
    x = np.concatenate([np.array(edge, np.uint64), rng.integers(0, 1 << 63, 256 - len(edge), dtype=np.uint64) * 2 + 1,
                        np.uint64(1) << rng.integers(0, 64, 256).astype(np.uint64)])
    n = len(x)
    out, err = sim('bits64', n, [x], 3 * 8 * n, [])
    if out is None:
        return ['flyc-sim: ' + err]
    y = np.frombuffer(out, np.uint64).reshape(3, n)
    xs = [int(v) for v in x]
    bad = []
    for k, nm in enumerate(('popcount', 'clz', 'ctz')):
        bad += check(nm + ' u64', y[k], [count(u, 64)[k] for u in xs], x)
    return bad


def main():
    failed = 0
    sfx = '-' + ARCH if ARCH else ''
    for tag, fn in (('bits32-s0', lambda: bits32(0)), ('bits32-s1', lambda: bits32(0x80000001)),
                    ('bits32-sff', lambda: bits32(M32)), ('bits16', bits16), ('bits64', bits64)):
        bad = fn()
        if bad:
            failed += 1
            print('FAIL: math/%s%s%s' % (tag, sfx, ''.join('\n  ' + b for b in bad)))
        else:
            print('PASS: math/%s%s' % (tag, sfx))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
