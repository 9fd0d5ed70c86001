#!/usr/bin/python3
"""tests/xlane/xlane.py: the cross-lane builtins (tests/xlane/xlane.fly) on the simulator.

usage: xlane.py FLYC_SIM CODE_OBJECT TMPDIR ARCH

Random 32-bit words (NaNs and all: moves are bit exact) and random lane
arguments (negative, beyond the wave); against Python's model of
docs/language.md "Cross-lane operations": lanes are taken modulo the wave
size, shfl_up/shfl_down keep their own value when the source lane is outside
the wave, an inactive source lane reads as 0, readlane takes the first active
lane's index, ballot has the bits of the active lanes whose condition holds,
and lanes that do not run a case leave its output untouched.
"""
import os
import subprocess
import sys

import numpy as np

SIM, CO, TMP, ARCH = sys.argv[1:5]
W = 64 if ARCH == 'gfx950' else 32
N = 256
FILL = 0x5A5A5A5A


def model(x, s, active):
    """the 16 cases for the active set; None where a lane does not run the case"""
    t = np.arange(N)
    def src_val(src):  # src: absolute thread index of the source lane, or -1
        return np.array([x[j] if j >= 0 and active[j] else 0 for j in src], np.uint32)
    wb = (t // W) * W
    lane = t % W
    cases = []
    for m in (1, 2, 4, 7, 15, 16, 21, 32, 45):
        cases.append(src_val(wb + ((lane ^ (m % W)))))
    cases.append(src_val(wb + ((lane ^ (s & (W - 1))) % W)))          # shfl_xor(v, s): mask modulo W
    cases.append(src_val(wb + (s & (W - 1))))                          # shfl(v, s)
    up = lane - 3
    cases.append(np.where((up >= 0) & (up < W), src_val(wb + np.clip(up, 0, W - 1)), x))
    dn = lane + (s % 8 if False else np.fmod(s, 8))                    # s % 8: truncating, as i32
    cases.append(np.where((dn >= 0) & (dn < W), src_val(wb + np.clip(dn, 0, W - 1)), x))
    first = np.array([next((j for j in range(b, b + W) if active[j]), -1) for b in wb])
    cases.append(src_val(wb + 5 % W) if True else None)               # readlane(v, 5)
    cases.append(src_val(first))                                       # readfirstlane
    if active.all():
        cases.append(src_val(wb + (s[first] & (W - 1))))              # readlane(v, s): the first active lane's s
    else:
        cases.append(src_val(wb + 4 % W))                              # readlane(v, 4)
    return cases


def ballot(xf, active):
    out = np.zeros(N, np.uint64)
    for b in range(0, N, W):
        bits = 0
        for l in range(W):
            if active[b + l] and xf[b + l] > 0:
                bits |= 1 << l
        out[b:b + W] = bits
    return out


def main():
    rng = np.random.default_rng(19)
    x = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
    x[:8] = [0x7fc00000, 0xffc00001, 0x80000000, 0, 0x7f800000, 0xff800000, 1, 0x3f800000]
    s = rng.integers(-200, 200, N).astype(np.int32)
    xp, sp = os.path.join(TMP, 'x.bin'), os.path.join(TMP, 'k.bin')
    x.tofile(xp)
    s.tofile(sp)
    op, mp = os.path.join(TMP, 'out.bin'), os.path.join(TMP, 'm.bin')
    p = subprocess.run([SIM, CO, 'xl', '--arch=' + ARCH, 'buf=1024,in=' + xp, 'buf=1024,in=' + sp,
                        'buf=32768,fill=0x5A,out=' + op, 'buf=4096,fill=0x5A,out=' + mp], capture_output=True, text=True)
    if p.returncode != 0:
        print('FAIL: xlane/%s-run\n    %s' % (ARCH, p.stderr.strip()))
        return 1
    out = np.fromfile(op, np.uint32).reshape(32, N)
    mk = np.fromfile(mp, np.uint64).reshape(2, N)
    xf = x.view(np.float32)
    names = ['xor1', 'xor2', 'xor4', 'xor7', 'xor15', 'xor16', 'xor21', 'xor32', 'xor45', 'xor_s', 'shfl_s',
             'up3', 'down_s', 'readlane5', 'readfirstlane', 'readlane_s']
    bad = 0
    for part, active in ((0, np.ones(N, bool)), (1, np.arange(N) % 3 == 0)):
        want = model(x, s, active)
        for i, nm in enumerate(names):
            if part == 1 and nm == 'readlane_s':
                nm = 'readlane4'
            got = out[16 * part + i]
            exp = np.where(active, want[i], FILL).astype(np.uint32)
            name = 'xlane/%s-%s%s' % (ARCH, nm, '-partial' if part else '')
            if np.array_equal(got, exp):
                print('PASS: ' + name)
            else:
                j = int(np.nonzero(got != exp)[0][0])
                print('FAIL: %s\n    thread %d: got 0x%08x want 0x%08x (%d wrong)'
                      % (name, j, got[j], exp[j], int((got != exp).sum())))
                bad += 1
        exp = np.where(active, ballot(xf, active), np.uint64(0x5A5A5A5A5A5A5A5A))
        name = 'xlane/%s-ballot%s' % (ARCH, '-partial' if part else '')
        if np.array_equal(mk[part], exp):
            print('PASS: ' + name)
        else:
            j = int(np.nonzero(mk[part] != exp)[0][0])
            print('FAIL: %s\n    thread %d: got 0x%x want 0x%x' % (name, j, mk[part][j], exp[j]))
    return 0


sys.exit(main())
