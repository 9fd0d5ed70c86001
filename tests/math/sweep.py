#!/usr/bin/python3
"""tests/math/sweep.py: the math builtins' errors on the simulator.

usage: sweep.py FLYC_SIM CODE_OBJECT TMPDIR [ARCH]

Runs each kernel of tests/math/math.fly (y = f(x) elementwise) on flyc-sim over
a dense sweep of its domain: f32 over bit patterns spread across every binade
of the domain plus a dense grid where the function bends, f16 and bf16 over
all 65,536 encodings. Each result is compared with the exact value computed in
double precision (numpy), in units in the last place of the result type
(spacing of the correctly rounded result). Special values (0, -0, +-inf, NaN,
denormals) must give IEEE's results exactly. Prints one PASS/FAIL line per
kernel with its measured maximum error; fails when it exceeds the bound that
docs/language.md ("Math") documents, kept here in BOUND.
"""
import math
import os
import subprocess
import sys

import numpy as np

SIM, CO, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
ARCH = sys.argv[4] if len(sys.argv) > 4 else None
SAN = os.environ.get('FLY_SAN') == '1'

# documented maximum error in ulp of the result type (docs/language.md "Math")
BOUND = {
    'exp': 1.0, 'exp2': 1.0, 'log': 1.5, 'log2': 1.0, 'sqrt': 0.5, 'rsqrt': 1.0,
    'floor': 0.0, 'ceil': 0.0, 'tanh': 1.5, 'sin': 2.0, 'cos': 2.0, 'erf': 1.0,
    # v_exp_f32(x * log2(e)): the product's rounding grows the error with |x| (0.5 + |x| ulp)
    'fast_exp': 89.0, 'fast_exp2': 1.0, 'fast_log2': 1.0, 'fast_rcp': 1.0,
}
# f16/bf16: computed in f32, rounded once
HALF_BOUND = 0.5 + 2.0 ** -8

REF = {
    'exp': np.exp, 'exp2': np.exp2, 'log': np.log, 'log2': np.log2, 'sqrt': np.sqrt,
    'rsqrt': lambda x: 1.0 / np.sqrt(x), 'floor': np.floor, 'ceil': np.ceil, 'tanh': np.tanh,
    'fast_exp': np.exp, 'fast_exp2': np.exp2, 'fast_log2': np.log2, 'fast_rcp': lambda x: 1.0 / x,
    'sin': np.sin, 'cos': np.cos, 'fast_sin': np.sin, 'fast_cos': np.cos,
    # numpy has no erf: Python's, in double (well under an ulp of f32)
    'erf': lambda x: np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64),
}
# v_sin_f32 / v_cos_f32 of x / (2 pi): absolute error on [-pi, pi] (the rounded
# argument moves the zeros, so no bound in ulp), documented in ABS_BOUND
ABS_BOUND = {'fast_sin': 4e-7, 'fast_cos': 4e-7}

# f32 sweep domain per function: (low, high) of the inputs whose results are
# normal or zero/inf by IEEE rules (denormal results are checked separately)
DOMAIN = {
    'exp': (-87.33, 88.72), 'fast_exp': (-87.33, 88.72), 'exp2': (-126.0, 127.99),
    'fast_exp2': (-126.0, 127.99), 'tanh': (-12.0, 12.0),
    'fast_sin': (-np.pi, np.pi), 'fast_cos': (-np.pi, np.pi),
}
POSITIVE = {'log', 'log2', 'sqrt', 'rsqrt', 'fast_log2', 'fast_rcp'}

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5,
                    1e-45, -1e-45, 1.1754942e-38, 3.4028235e38, -3.4028235e38, 2.0 ** 23 + 0.5,
                    -(2.0 ** 23) - 0.5, 8388609.0], dtype=np.float32)


def f32_sweep(name):
    """bit patterns spread over the domain's binades, a dense grid, the special values"""
    rng = np.random.default_rng(2024)
    if name in POSITIVE:
        bits = np.arange(1, 0x7f800000, 0x7f800000 // (1 << 20), dtype=np.uint32)
        xs = [bits.view(np.float32)]
        if name != 'fast_rcp' and name != 'rsqrt':
            xs.append(np.linspace(0.5, 2.0, 1 << 18, dtype=np.float32))
    elif name in DOMAIN:
        lo, hi = DOMAIN[name]
        xs = [np.linspace(lo, hi, 1 << 20, dtype=np.float32),
              (rng.uniform(-1.0, 1.0, 1 << 16) * 2.0 ** rng.integers(-40, 0, 1 << 16)).astype(np.float32)]
    else:
        bits = np.arange(0, 0xff800000, 0xff800000 // (1 << 20), dtype=np.uint64).astype(np.uint32)
        xs = [bits.view(np.float32), np.linspace(-4.0, 4.0, 1 << 16, dtype=np.float32)]
    if name in ('sin', 'cos'):
        # the f32 values nearest multiples of pi/2 (where reduction cancels) and
        # their neighbours, small and up to 2^40; both sides of Payne-Hanek's start
        k = np.concatenate([np.arange(1, 4096), rng.integers(1, 1 << 40, 1 << 14)]).astype(np.float64)
        near = (k * (np.pi / 2)).astype(np.float32)
        xs += [near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, np.float32(0)),
               np.linspace(131000.0, 131200.0, 1 << 14, dtype=np.float32),
               rng.uniform(-1e5, 1e5, 1 << 16).astype(np.float32)]
    if name == 'erf':
        # every piece of the approximation densely (boundaries 0.75, 1.5, 2.5, 4),
        # and every f32 in [0.5, 4.5) a few ulp apart
        xs += [np.linspace(-5.0, 5.0, 1 << 20, dtype=np.float32),
               np.arange(0x3f000000, 0x40900000, 13, dtype=np.uint32).view(np.float32)]
    if SAN:
        # the sanitized build (FLY_SAN=1) checks the simulator's and compiler's memory, which
        # every input exercises alike: one input in 16 of each sweep and all special values
        # (the plain build checks the accuracy over the whole sweep)
        xs = [a[::16] for a in xs]
    x = np.concatenate(xs + [SPECIAL]).astype(np.float32)
    x = x[np.isfinite(x) | np.isin(x, SPECIAL)]
    if name.startswith('fast_'):
        # the raw instructions flush denormal inputs and results on hardware (they
        # are for flush-to-zero code); the simulator does not, so neither is checked
        a = np.abs(x)
        keep = (a >= 2.0 ** -126) | ~np.isfinite(x)
        if name == 'fast_rcp':
            keep &= (a <= 2.0 ** 126) | ~np.isfinite(x)
        if name in ABS_BOUND:
            keep &= (a <= np.float32(np.pi)) | ~np.isfinite(x)
        x = x[keep]
    pad = (-len(x)) % 256
    return np.concatenate([x, np.full(pad, 1.0, np.float32)])


def run(kernel, raw, ebytes):
    n = len(raw) // ebytes
    xin, yout = os.path.join(TMP, kernel + '.in'), os.path.join(TMP, kernel + '.out')
    with open(xin, 'wb') as f:
        f.write(raw)
    cmd = [SIM, CO, kernel, '--grid=%d' % (n // 256), '--block=64', 'buf=%d,in=%s' % (len(raw), xin),
           'buf=%d,fill=0x7F,out=%s' % (len(raw), yout), 'i32=%d' % n]
    if ARCH:
        cmd.insert(3, '--arch=' + ARCH)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    with open(yout, 'rb') as f:
        return f.read(), ''


def ulp_error(name, x64, y64, ftype):
    """error of y in ulp of the correctly rounded result; special results must match exactly"""
    with np.errstate(all='ignore'):
        r = REF[name](x64)
    bad = []
    nan_r, nan_y = np.isnan(r), np.isnan(y64)
    mism = nan_r != nan_y
    inf_r = np.isinf(r)
    mism |= inf_r & (y64 != r)
    # zeros keep their sign (floor(-0.5) is -1, ceil(-0.5) is -0, tanh(-0) is -0)
    zero_r = (r == 0) & ~nan_r
    mism |= zero_r & ((y64 != 0) | (np.signbit(y64) != np.signbit(r)))
    for i in np.nonzero(mism)[0][:3]:
        bad.append('f(%r) = %r, want %r' % (float(x64[i]), float(y64[i]), float(r[i])))
    fin = ~nan_r & ~inf_r & ~zero_r
    rf = r[fin].astype(ftype)
    # a result that rounds to inf in the type: the exact value is past its largest finite value
    over = np.isinf(rf)
    err = np.zeros(np.count_nonzero(fin))
    if np.any(~over):
        big = np.abs(r[fin][~over])
        ulp = np.spacing(np.abs(rf[~over])).astype(np.float64)
        # the spacing below a power of two is half the one above it
        exact_pow2 = np.abs(rf[~over]).astype(np.float64) == big
        ulp = np.where(exact_pow2 & (big < np.abs(rf[~over]).astype(np.float64)), ulp / 2, ulp)
        err[~over] = np.abs(y64[fin][~over] - r[fin][~over]) / ulp
    err[over] = np.where(np.isinf(y64[fin][over]) | (np.abs(y64[fin][over]) == np.finfo(ftype).max), 0.0, np.inf)
    worst = (float(err.max()), float(x64[fin][err.argmax()])) if len(err) else (0.0, 0.0)
    return worst, bad


def abs_error(name, x64, y64):
    """absolute error of y; NaN and inf results must match"""
    with np.errstate(all='ignore'):
        r = REF[name](x64)
    bad = []
    mism = (np.isnan(r) != np.isnan(y64)) | (np.isinf(r) & (y64 != r))
    for i in np.nonzero(mism)[0][:3]:
        bad.append('f(%r) = %r, want %r' % (float(x64[i]), float(y64[i]), float(r[i])))
    fin = np.isfinite(r)
    err = np.abs(y64[fin] - r[fin])
    worst = (float(err.max()), float(x64[fin][err.argmax()])) if len(err) else (0.0, 0.0)
    return worst, bad


def bf16_all():
    """every bf16 encoding as uint16, and its value as float32"""
    u = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    return u, (u.astype(np.uint32) << 16).view(np.float32)


def main():
    np.seterr(all='ignore')
    kernels = sorted(set(open(os.path.join(os.path.dirname(__file__), 'math.fly')).read().split('kernel ')[1:]))
    names = [k.split('(')[0] for k in kernels]
    if os.environ.get('FLY_MATH_ONLY'):   # a comma-separated list of kernels (while developing)
        names = [k for k in names if k in os.environ['FLY_MATH_ONLY'].split(',')]
    failed = 0
    for k in names:
        fn, ty = k.rsplit('_', 1)
        if ty == 'f32':
            x = f32_sweep(fn)
            out, err = run(k, x.tobytes(), 4)
            if out is None:
                print('FAIL: math/%s%s flyc-sim: %s' % (k, '-' + ARCH if ARCH else '', err))
                failed += 1
                continue
            y = np.frombuffer(out, np.float32)
            if fn in ABS_BOUND:
                (worst, at), bad = abs_error(fn, x.astype(np.float64), y.astype(np.float64))
                bound = ABS_BOUND[fn]
            else:
                (worst, at), bad = ulp_error(fn, x.astype(np.float64), y.astype(np.float64), np.float32)
                bound = BOUND[fn]
        else:
            if ty == 'f16':
                u = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
                x = u.view(np.float16)
                out, err = run(k, u.tobytes(), 2)
                y = np.frombuffer(out, np.float16).astype(np.float64) if out is not None else None
                ftype = np.float16
            else:
                u, x = bf16_all()
                out, err = run(k, u.tobytes(), 2)
                y = ((np.frombuffer(out, np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
                     if out is not None else None)
                ftype = None
            if out is None:
                print('FAIL: math/%s%s flyc-sim: %s' % (k, '-' + ARCH if ARCH else '', err))
                failed += 1
                continue
            x64 = x.astype(np.float64)
            if ftype is None:
                (worst, at), bad = bf16_error(fn, x64, y)
            else:
                (worst, at), bad = ulp_error(fn, x64, y, ftype)
            bound = 0.0 if fn in ('floor', 'ceil') else HALF_BOUND
            if fn in ('fast_exp2',):
                bound = HALF_BOUND + 2.0 ** -15
        tag = 'math/%s%s' % (k, '-' + ARCH if ARCH else '')
        unit = 'abs' if ty == 'f32' and fn in ABS_BOUND else 'ulp'
        if bad or worst > bound:
            failed += 1
            print('FAIL: %s max %.3g %s at x=%r (bound %.3g)%s' % (tag, worst, unit, at, bound,
                                                                ''.join('\n  ' + b for b in bad)))
        else:
            print('PASS: %s max %.3g %s at x=%r (bound %.3g)' % (tag, worst, unit, at, bound))
    return 1 if failed else 0


def bf16_error(fn, x64, y64):
    """ulp of bf16 (8 significant bits): scale the f32 machinery by 2^16 in the spacing"""
    with np.errstate(all='ignore'):
        r = REF[fn](x64)
    bad = []
    nan_r, nan_y = np.isnan(r), np.isnan(y64)
    mism = (nan_r != nan_y) | (np.isinf(r) & (y64 != r))
    zero_r = (r == 0) & ~nan_r
    mism |= zero_r & ((y64 != 0) | (np.signbit(y64) != np.signbit(r)))
    for i in np.nonzero(mism)[0][:3]:
        bad.append('f(%r) = %r, want %r' % (float(x64[i]), float(y64[i]), float(r[i])))
    fin = ~nan_r & ~np.isinf(r) & ~zero_r
    a = np.abs(r[fin])
    # bf16 spacing at |r|: 2^(exponent - 7), with bf16's smallest normal 2^-126
    e = np.floor(np.log2(np.maximum(a, 2.0 ** -126)))
    ulp = 2.0 ** (e - 7)
    big = a > 3.3895313892515355e38   # past bf16's largest finite value
    err = np.where(big, np.where(np.isinf(y64[fin]) | (np.abs(y64[fin]) >= 3.3895313892515355e38), 0.0, np.inf),
                   np.abs(y64[fin] - r[fin]) / ulp)
    worst = (float(err.max()), float(x64[fin][err.argmax()])) if len(err) else (0.0, 0.0)
    return worst, bad


if __name__ == '__main__':
    sys.exit(main())
