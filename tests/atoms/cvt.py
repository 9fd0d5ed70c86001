#!/usr/bin/env python3
"""tests/atoms/cvt.py — convert<fp4|fp6|bf6> of f32 fragments and back, on flyc-sim.

Compiles tests/atoms/cvt.fly, runs each kernel on 2 workgroups
and compares with a CPU reference written from the OCP MX format definitions:
to the narrow type by round to nearest, ties to even, saturating to +-max (the
formats have no Inf or NaN); back to f32 exactly. Packed data is one
little-endian bit stream (element i at bits b*i..).

usage: cvt.py FLYC FLYC_SIM CVT_FLY WORKDIR
prints PASS: atoms/cvt-KERNEL | FAIL: ... (+ details)
"""
import os
import random
import struct
import subprocess
import sys

from atoms import mini_val   # the OCP minifloat decoder (tests/atoms/atoms.py)

FMT = {  # name: (bits, exponent bits, mantissa bits, bias)
    'fp4': (4, 2, 1, 1), 'fp6': (6, 2, 3, 1), 'bf6': (6, 3, 2, 3),
}


def decode(t, c):
    _, eb, mb, bias = FMT[t]
    return mini_val(c, eb, mb, bias)


def encode(t, x):
    """round to nearest even, saturate"""
    bits = FMT[t][0]
    sign = 1 << (bits - 1) if x < 0 or (x == 0 and str(x).startswith('-')) else 0
    a = abs(x)
    grid = [decode(t, c) for c in range(1 << (bits - 1))]   # increasing magnitudes
    if a >= grid[-1]:
        return sign | (len(grid) - 1)
    for c in range(len(grid) - 1):
        lo, hi = grid[c], grid[c + 1]
        if lo <= a < hi:
            if a - lo < hi - a or (a - lo == hi - a and c % 2 == 0):
                return sign | c
            return sign | (c + 1)
    raise AssertionError(x)


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def inputs(t, n, rng):
    bits = FMT[t][0]
    grid = [decode(t, c) for c in range(1 << (bits - 1))]
    xs = []
    for i in range(n):
        k = i % 5
        if k == 0:      # exactly representable
            x = rng.choice(grid)
        elif k == 1:    # halfway between neighbours (ties)
            c = rng.randrange(len(grid) - 1)
            x = (grid[c] + grid[c + 1]) / 2
        elif k == 2:    # beyond the largest value (saturates)
            x = grid[-1] * rng.uniform(1.0, 8.0)
        else:           # anywhere in range
            x = rng.uniform(0, grid[-1] * 1.1)
        xs.append(f32(-x if rng.random() < 0.5 else x))
    return xs


def pack(bits, codes):
    acc = 0
    for i, c in enumerate(codes):
        acc |= c << (bits * i)
    return acc.to_bytes(len(codes) * bits // 8, 'little')


def unpack(bits, raw, n):
    acc = int.from_bytes(raw, 'little')
    return [(acc >> (bits * i)) & ((1 << bits) - 1) for i in range(n)]


def run(sim, co, k, n, inb, outn, d, tile):
    fi, fo = os.path.join(d, k + '.in'), os.path.join(d, k + '.out')
    open(fi, 'wb').write(inb)
    r = subprocess.run([sim, co, k, '--grid=%d' % (n // tile), '--block=64', 'buf=%d,in=%s' % (len(inb), fi),
                        'buf=%d,fill=0x5A,out=%s' % (outn, fo), 'i32=%d' % n], capture_output=True, text=True)
    if r.returncode:
        return None, (r.stdout + r.stderr).strip()
    return open(fo, 'rb').read(), None


def main():
    flyc, sim, src, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    co = os.path.join(work, 'cvt.hsaco')
    r = subprocess.run([flyc, src, '--offload-arch=gfx950', '-o', co], capture_output=True, text=True)
    if r.returncode:
        print('FAIL: atoms/cvt-compile\n    ' + r.stderr.strip().replace('\n', '\n    '))
        return
    rng = random.Random(4)
    # (format, kernel suffix, elements per workgroup): 32 per thread, and 12 fp4
    # per thread (48 packed bits: not whole words)
    for t, sfx, tile in (('fp4', '', 2048), ('fp6', '', 2048), ('bf6', '', 2048), ('fp4', '_x12', 768)):
        n = 2 * tile
        bits = FMT[t][0]
        xs = inputs(t, n, rng)
        out, err = run(sim, co, 'to_' + t + sfx, n, struct.pack('<%df' % n, *xs), n * bits // 8, work, tile)
        bad = []
        if err:
            bad = ['flyc-sim failed: ' + err]
        else:
            got = unpack(bits, out, n)
            for i, x in enumerate(xs):
                want = encode(t, x)
                if decode(t, got[i]) != decode(t, want) and len(bad) < 4:
                    bad.append('element %d: %r -> code %#x (%r), expected %#x (%r)'
                               % (i, x, got[i], decode(t, got[i]), want, decode(t, want)))
        print(('FAIL' if bad else 'PASS') + ': atoms/cvt-to_' + t + sfx)
        for b in bad:
            print('    ' + b)
        codes = [rng.randrange(1 << bits) for _ in range(n)]
        out, err = run(sim, co, 'from_' + t + sfx, n, pack(bits, codes), 4 * n, work, tile)
        bad = []
        if err:
            bad = ['flyc-sim failed: ' + err]
        else:
            got = struct.unpack('<%df' % n, out)
            for i, c in enumerate(codes):
                if got[i] != decode(t, c) and len(bad) < 4:
                    bad.append('element %d: code %#x -> %r, expected %r' % (i, c, got[i], decode(t, c)))
        print(('FAIL' if bad else 'PASS') + ': atoms/cvt-from_' + t + sfx)
        for b in bad:
            print('    ' + b)
        sys.stdout.flush()


if __name__ == '__main__':
    main()
