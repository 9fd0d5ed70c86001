#!/usr/bin/python3
"""tests/sim/loadtr.py: gfx1201 global_load_tr_b128 / global_load_tr_b64 against Python.

    loadtr.py FLYC_SIM CLANG LLD TMPDIR

Compiles tests/sim/loadtr.cl for gfx1201 at -O0 (64-bit vaddr form) and -O3
(saddr form). Lane l loads at byte offset idx[l] of a random source buffer
when mask[l] is set and stores what it got to out[l]. The model here, written
from the sources in docs/simulator-matrix.md ("Transposed global loads"), not
from the simulator: each active lane reads 8 elements (16-bit for b128, 8-bit
for b64) at its address; in each group of 8 lanes, lane m's element e is
element m % 8 of lane 8 * (m // 8) + e's read (0 when that lane is inactive).
Inactive lanes store nothing (their slots keep the 0xAB fill). Cases: every
lane, a random mask, permuted and scattered row addresses; then a read past
the buffer must stop with the lane and the instruction. One PASS/FAIL line each.
"""
import os
import random
import subprocess
import sys

sim, clang, lld, tmp = sys.argv[1:5]
here = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(1201)
SRC = 4096


def build(opt):
    o, co = os.path.join(tmp, 'loadtr.%s.o' % opt), os.path.join(tmp, 'loadtr.%s.hsaco' % opt)
    r = subprocess.run([clang, '-x', 'cl', '-cl-std=CL2.0', '-target', 'amdgcn-amd-amdhsa', '-mcpu=gfx1201',
                        '-nogpulib', '-Wno-everything', '-' + opt, '-c', os.path.join(here, 'loadtr.cl'), '-o', o],
                       capture_output=True, text=True)
    if r.returncode == 0:
        r = subprocess.run([lld, '-shared', o, '-o', co], capture_output=True, text=True)
    return co if r.returncode == 0 else (None, r.stderr)


def run(co, kern, src, idx, mask, nbytes):
    d = os.path.join(tmp, 'run')
    os.makedirs(d, exist_ok=True)
    for n, b in (('src', src), ('idx', b''.join(i.to_bytes(4, 'little') for i in idx)),
                 ('mask', b''.join(m.to_bytes(4, 'little') for m in mask))):
        open(os.path.join(d, n + '.bin'), 'wb').write(b)
    out = os.path.join(d, 'out.bin')
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([sim, co, kern, '--grid=1', '--block=32', 'buf=%d,fill=0xAB,out=%s' % (32 * nbytes, out),
                        'buf=%d,in=%s/src.bin' % (SRC, d), 'buf=128,in=%s/idx.bin' % d, 'buf=128,in=%s/mask.bin' % d],
                       capture_output=True, text=True)
    return r, (open(out, 'rb').read() if r.returncode == 0 else None)


def model(src, idx, mask, eb):
    n = 8 * eb
    rows = [src[idx[l]:idx[l] + n] if mask[l] else bytes(n) for l in range(32)]
    out = bytearray(b'\xab' * (32 * n))
    for m in range(32):
        if not mask[m]:
            continue
        for e in range(8):
            out[m * n + e * eb:m * n + (e + 1) * eb] = rows[(m & ~7) + e][(m & 7) * eb:(m & 7) * eb + eb]
    return bytes(out)


def main():
    for opt in ('O0', 'O3'):
        co = build(opt)
        if isinstance(co, tuple):
            print('FAIL: sim/loadtr-compile -%s\n    %s' % (opt, co[1].strip().replace('\n', '\n    ')))
            continue
        for kern, eb in (('k_tr16', 2), ('k_tr8', 1)):
            n = 8 * eb
            for case in ('all', 'mask', 'scatter'):
                src = bytes(rng.randrange(256) for _ in range(SRC))
                if case == 'scatter':   # any aligned row anywhere in the buffer, repeats allowed
                    idx = [n * rng.randrange(SRC // n) for _ in range(32)]
                else:                   # a 32 x 8 tile of rows, in a permuted order
                    rows = list(range(32))
                    rng.shuffle(rows)
                    idx = [n * r for r in rows]
                mask = [1] * 32 if case != 'mask' else [int(rng.random() < 0.7) for _ in range(32)]
                r, got = run(co, kern, src, idx, mask, n)
                name = 'sim/loadtr-%s-%s -gfx1201-%s' % (kern[2:], case, opt)
                if r.returncode:
                    print('FAIL: %s\n    flyc-sim failed: %s' % (name, (r.stdout + r.stderr).strip()))
                    continue
                want = model(src, idx, mask, eb)
                bad = [m for m in range(32) if got[m * n:(m + 1) * n] != want[m * n:(m + 1) * n]]
                if bad:
                    m = bad[0]
                    print('FAIL: %s\n    %d lanes wrong; lane %d got %s want %s' % (
                        name, len(bad), m, got[m * n:(m + 1) * n].hex(), want[m * n:(m + 1) * n].hex()))
                else:
                    print('PASS: ' + name)
            # a lane reading past the end of the source is reported with its lane and the instruction
            idx = [0] * 32
            idx[13] = SRC - n + eb
            r, _ = run(co, kern, bytes(SRC), idx, [1] * 32, n)
            msg = (r.stdout + r.stderr)
            name = 'sim/loadtr-%s-oob -gfx1201-%s' % (kern[2:], opt)
            if r.returncode == 1 and 'global read of %d bytes' % n in msg and 'lane 13' in msg and 'global_load_tr_b' in msg:
                print('PASS: ' + name)
            else:
                print('FAIL: %s\n    status %d: %s' % (name, r.returncode, msg.strip()))
        sys.stdout.flush()


main()
