#!/usr/bin/python3
"""tests/xlane/scan.py: scans and key-value reductions (tests/xlane/scan.fly) on the simulator.

usage: scan.py FLYC_SIM CODE_OBJECT TMPDIR ARCH

Scans against Python: integer scans exactly (i32 add wrapping, u32 max
unsigned, i32 min signed), f32 add against a model of the documented order of
the additions (docs/language.md "Scans": log2(wave) doubling steps in a wave,
then the totals of the waves before, folded first to last) bit for bit, and
within n*eps*sum|x| of the exact prefix sum. Key-value reductions: the value
and position of the largest (smallest) value of each group, equal values to
the lower position, every NaN above +inf, -0 below +0, against Python over
values drawn from a small set (ties) with NaNs, signed zeros and infinities
and positions that are a random permutation (so the lower position is not
the lower lane).
"""
import os
import struct
import subprocess
import sys

import numpy as np

SIM, CO, TMP, ARCH = sys.argv[1:5]
W = 64 if ARCH == 'gfx950' else 32
N = 256
M32 = 0xffffffff


def run(kernel, ins, outs):
    cmd = [SIM, CO, kernel, '--arch=' + ARCH]
    for i, a in enumerate(ins):
        p = os.path.join(TMP, '%s.in%d' % (kernel, i))
        a.tofile(p)
        cmd.append('buf=%d,in=%s' % (a.nbytes, p))
    paths = []
    for i, n in enumerate(outs):
        p = os.path.join(TMP, '%s.out%d' % (kernel, i))
        paths.append(p)
        cmd.append('buf=%d,fill=0x5A,out=%s' % (n, p))
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return [open(p, 'rb').read() for p in paths], ''


def scan_model(x, comb, ident, wg, excl):
    """the compiler's order: doubling steps (shifted op own) per wave, then the waves' totals"""
    x = list(x)
    incl = []
    for b in range(0, N, W):
        y = x[b:b + W]
        d = 1
        while d < W:
            y = [comb(y[l - d], y[l]) if l >= d else y[l] for l in range(W)]
            d *= 2
        incl += y
    res = [ident if t % W == 0 else incl[t - 1] for t in range(N)] if excl else incl
    if not wg:
        return res
    out = []
    for t in range(N):
        acc = ident
        for w in range(t // W):
            acc = comb(acc, incl[w * W + W - 1])
        out.append(comb(acc, res[t]))
    return out


def f32add(a, b):
    return float(np.float32(np.float32(a) + np.float32(b)))


def check(name, got, want, eq=lambda a, b: a == b):
    bad = [i for i in range(N) if not eq(got[i], want[i])]
    if bad:
        print('FAIL: %s\n    thread %d: got %r want %r (%d wrong)' % (name, bad[0], got[bad[0]], want[bad[0]], len(bad)))
        return 1
    print('PASS: ' + name)
    return 0


def scans(rng):
    xi = rng.integers(-(1 << 31), 1 << 31, N, dtype=np.int64).astype(np.int32)
    xu = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
    xu[:4] = [0xffffffff, 0x80000000, 0x7fffffff, 0]
    xf = (rng.standard_normal(N) * 10.0 ** rng.integers(-3, 4, N)).astype(np.float32)
    out, err = run('scans', [xi, xu, xf], [8192, 4096, 4096])
    if out is None:
        print('FAIL: xlane/%s-scans\n    %s' % (ARCH, err))
        return 1
    oi = np.frombuffer(out[0], np.int32).reshape(8, N)
    ou = np.frombuffer(out[1], np.uint32).reshape(4, N)
    of = np.frombuffer(out[2], np.float32).reshape(4, N)
    add = lambda a, b: ((a + b + (1 << 31)) & M32) - (1 << 31)
    bad = 0
    cases = [('add-i32', oi, 0, [int(v) for v in xi], add, 0), ('min-i32', oi, 4, [int(v) for v in xi], min, (1 << 31) - 1)]
    for nm, arr, base, x, comb, ident in cases:
        forms = [(0, 0), (0, 1), (1, 0), (1, 1)] if nm == 'add-i32' else [(0, 0), (1, 1)]
        for k, (wg, excl) in enumerate(forms):
            want = scan_model(x, comb, ident, wg, excl)
            bad += check('xlane/%s-scan-%s-%s%s' % (ARCH, nm, 'workgroup' if wg else 'wave', '-exclusive' if excl else ''),
                         [int(v) for v in arr[base + k]], want)
    for k, (wg, excl) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
        want = scan_model([int(v) for v in xu], max, 0, wg, excl)
        bad += check('xlane/%s-scan-max-u32-%s%s' % (ARCH, 'workgroup' if wg else 'wave', '-exclusive' if excl else ''),
                     [int(v) for v in ou[k]], want)
        want = scan_model([float(v) for v in xf], f32add, 0.0, wg, excl)
        got = [float(v) for v in of[k]]
        name = 'xlane/%s-scan-add-f32-%s%s' % (ARCH, 'workgroup' if wg else 'wave', '-exclusive' if excl else '')
        bad += check(name, got, want, lambda a, b: struct.pack('<f', a) == struct.pack('<f', b))
        # and close to the exact prefix sums
        exact = []
        for t in range(N):
            lo = (t // W) * W if not wg else 0
            hi = t + (0 if excl else 1)
            exact.append((sum(float(v) for v in xf[lo:hi]), sum(abs(float(v)) for v in xf[lo:hi])))
        far = [t for t in range(N) if abs(got[t] - exact[t][0]) > N * 2.0 ** -23 * exact[t][1] + 1e-30]
        if far:
            print('FAIL: %s-exact\n    thread %d: %r vs %r' % (name, far[0], got[far[0]], exact[far[0]][0]))
            bad += 1
        else:
            print('PASS: %s-exact' % name)
    return bad


def key(v, kind):
    if kind == 'f32':
        b = struct.unpack('<I', struct.pack('<f', v))[0]
        if v != v:
            return M32
        return b ^ M32 if b & 0x80000000 else b | 0x80000000
    if kind == 'i32':
        return (v & M32) ^ 0x80000000
    return v


def kv_model(x, p, kind, is_min, group):
    out = []
    for t in range(N):
        g0 = (t // group) * group
        best = None
        for j in range(g0, g0 + group):
            k = key(x[j], kind)
            if is_min:
                k ^= M32
            if best is None or k > best[0] or (k == best[0] and p[j] < best[1]):
                best = (k, p[j], x[j])
        out.append((best[2], best[1]))
    return out


def kvs(rng):
    pool = np.array([1.0, -1.0, 0.0, -0.0, 2.5, np.inf, -np.inf, 7.0], np.float32)
    xf = pool[rng.integers(0, len(pool), N)]
    xf[rng.integers(0, N, 6)] = np.nan
    xf[rng.integers(0, N, 3)] = np.float32(-np.nan)
    xf[W:2 * W] = -0.0                      # a wave of equal values: the lowest position wins
    xf[2 * W:2 * W + 5] = 0.0
    xi = rng.integers(-3, 3, N).astype(np.int32)
    xi[:4] = [-(1 << 31), (1 << 31) - 1, -1, 0]
    xu = rng.integers(0, 4, N).astype(np.uint32)
    xu[7] = 0xffffffff
    pos = rng.permutation(N).astype(np.int32) * 3 - 100
    out, err = run('kv', [xf, xi, xu, pos], [8192, 16384])
    if out is None:
        print('FAIL: xlane/%s-kv\n    %s' % (ARCH, err))
        return 1
    ov = np.frombuffer(out[0], np.float32).reshape(8, N)
    op = np.frombuffer(out[1], np.int32).reshape(16, N)
    fx, ix, ux, ps = [float(v) for v in xf], [int(v) for v in xi], [int(v) for v in xu], [int(v) for v in pos]
    fb = lambda v: struct.pack('<f', v)
    bad = 0
    cases = [('argmax-f32-wave', 0, 0, fx, 'f32', 0, W), ('argmin-f32-wave', 1, 1, fx, 'f32', 1, W),
             ('argmax-f32-workgroup', 2, 2, fx, 'f32', 0, N), ('argmin-f32-workgroup', 3, 3, fx, 'f32', 1, N),
             ('argmax-f32-lanes16', 4, 4, fx, 'f32', 0, 16)]
    for nm, vr, pr, x, kind, mn, grp in cases:
        want = kv_model(x, ps, kind, mn, grp)
        got = [(float(ov[vr][t]), int(op[pr][t])) for t in range(N)]
        bad += check('xlane/%s-%s' % (ARCH, nm), got, want,
                     lambda a, b: a[1] == b[1] and (fb(a[0]) == fb(b[0]) or (a[0] != a[0] and b[0] != b[0])))
    for nm, vr, pr, x, kind, mn, grp in [('argmin-i32-wave', 5, 6, ix, 'i32', 1, W), ('argmax-u32-workgroup', 7, 8, ux, 'u32', 0, N)]:
        want = kv_model(x, ps, kind, mn, grp)
        got = [(int(op[vr][t]) & M32 if kind == 'u32' else int(op[vr][t]), int(op[pr][t])) for t in range(N)]
        bad += check('xlane/%s-%s' % (ARCH, nm), got, want)
    return bad


rng = np.random.default_rng(1919)
scans(rng)
kvs(rng)
