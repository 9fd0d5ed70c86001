#!/usr/bin/python3
"""tests/atomics/pk_add.py: packed bf16 / f16 atomic adds (atomic_add(T[c], v) with v a
2-value fragment) on the simulator, against Python.

usage: pk_add.py FLYC FLYC_SIM TMPDIR ARCH

Compiles tests/atomics/pk_add.fly for bf16 and f16 (global_atomic_pk_add_*, returning;
ds_pk_add_* without and ds_pk_add_rtn_* with the old pair), checks that the code object
uses those instructions, and runs it on three workgroups of 256 threads:

  block 0: every lane active, random pair slots of 8 (contention of ~32 per slot);
  block 1: every lane active on one slot (256 updates of one 32-bit word);
  block 2: one lane active (thread 77), all others inactive.

The values are small multiples of 1/2, so every partial sum is exact in bf16 and f16 and
the results do not depend on the order: the final pairs must equal the initial ones plus
the sums, and on each slot the returned old pairs must form one serial order (sorted by
their low half, which grows with every update: each old pair is the previous one plus the
previous lane's values, both halves together). Outputs start as NaN (0xFFFF); an inactive
lane's must stay so.
"""
import os
import random
import struct
import subprocess
import sys

FLYC, SIM, TMP, ARCH = sys.argv[1:5]
HERE = os.path.dirname(os.path.abspath(__file__))
NB, WG = 3, 256
rng = random.Random(20260)


def enc(el, x):
    if el == 'f16':
        return struct.unpack('<H', struct.pack('<e', x))[0]
    u = struct.unpack('<I', struct.pack('<f', x))[0]
    assert u & 0xFFFF == 0, x          # exact in bf16 by construction
    return u >> 16


def dec(el, h):
    if el == 'f16':
        return struct.unpack('<e', struct.pack('<H', h))[0]
    return struct.unpack('<f', struct.pack('<I', h << 16))[0]


def case(el, work):
    src = open(os.path.join(HERE, 'pk_add.fly')).read().replace('ELEM', el)
    fly = os.path.join(work, 'pk_%s.fly' % el)
    co = os.path.join(work, 'pk_%s.hsaco' % el)
    open(fly, 'w').write(src)
    r = subprocess.run([FLYC, fly, '--offload-arch=' + ARCH, '-o', co], capture_output=True, text=True)
    if r.returncode:
        return 'compile', r.stderr.strip()
    asm = subprocess.run([FLYC, fly, '--offload-arch=' + ARCH, '-S', '-o', '-'], capture_output=True, text=True).stdout
    for ins in ('global_atomic_pk_add_%s' % el, 'ds_pk_add_%s' % el, 'ds_pk_add_rtn_%s' % el):
        if ins not in asm:
            return 'isa', 'no %s in the code object' % ins
    n = NB * WG
    act, idx, x = [], [], []
    for b in range(NB):
        for t in range(WG):
            a = 1 if b < 2 or t == 77 else 0
            i = rng.randrange(8) if b == 0 else 0 if b == 1 else 3
            lo, hi = (1.0, 0.5) if b == 1 else (float(rng.randint(1, 3)), 0.5 * rng.randint(1, 3))
            act.append(a)
            idx.append(i)
            x += [lo, hi]
    init = [float(rng.randint(0, 8)) if b != 1 else 0.0 for b in range(NB) for _ in range(16)]
    files = {'x': [enc(el, v) for v in x], 'L': [enc(el, v) for v in init]}
    for k, v in files.items():
        open(os.path.join(work, k + '.bin'), 'wb').write(struct.pack('<%dH' % len(v), *v))
    open(os.path.join(work, 'idx.bin'), 'wb').write(struct.pack('<%di' % n, *idx))
    open(os.path.join(work, 'act.bin'), 'wb').write(struct.pack('<%di' % n, *act))
    w = lambda f: os.path.join(work, f)
    r = subprocess.run([SIM, co, 'pk_add_' + el, '--grid=%d' % NB, '--block=%d' % WG,
                        'buf=96,in=%s,out=%s' % (w('L.bin'), w('G.bin')), 'buf=%d,in=%s' % (4 * n, w('x.bin')),
                        'buf=%d,in=%s' % (4 * n, w('idx.bin')), 'buf=%d,in=%s' % (4 * n, w('act.bin')),
                        'buf=%d,fill=0xFF,out=%s' % (4 * n, w('og.bin')),
                        'buf=%d,fill=0xFF,out=%s' % (4 * n, w('oq.bin')),
                        'buf=96,in=%s' % w('L.bin'), 'buf=192,fill=0xFF,out=%s' % w('R.bin')],
                       capture_output=True, text=True)
    if r.returncode:
        return 'run', (r.stdout + r.stderr).strip()
    rd = lambda f, k: struct.unpack('<%dH' % k, open(w(f), 'rb').read()[:2 * k])
    G, og, oq, R = rd('G.bin', 48), rd('og.bin', 2 * n), rd('oq.bin', 2 * n), rd('R.bin', 96)
    for b in range(NB):
        lanes = [b * WG + t for t in range(WG) if act[b * WG + t]]
        for s in range(8):
            on = [g for g in lanes if idx[g] == s]
            want = [init[b * 16 + 2 * s + h] + sum(x[2 * g + h] for g in on) for h in (0, 1)]
            for name, got in (('global', [dec(el, G[b * 16 + 2 * s + h]) for h in (0, 1)]),
                              ('lds', [dec(el, R[b * 32 + 2 * s + h]) for h in (0, 1)]),
                              ('lds-rtn', [dec(el, R[b * 32 + 16 + 2 * s + h]) for h in (0, 1)])):
                if got != want:
                    return 'final', 'block %d slot %d %s: %s, want %s' % (b, s, name, got, want)
            for name, out in (('global', og), ('lds', oq)):
                olds = sorted(((dec(el, out[2 * g]), dec(el, out[2 * g + 1]), g) for g in on))
                cur = [init[b * 16 + 2 * s], init[b * 16 + 2 * s + 1]]
                for lo, hi, g in olds:
                    if [lo, hi] != cur:
                        return 'order', ('block %d slot %d %s: lane %d saw %s, the serial order wants %s'
                                         % (b, s, name, g - b * WG, [lo, hi], cur))
                    cur = [cur[0] + x[2 * g], cur[1] + x[2 * g + 1]]
        for g in range(b * WG, (b + 1) * WG):
            if not act[g] and (og[2 * g], og[2 * g + 1], oq[2 * g], oq[2 * g + 1]) != (0xFFFF,) * 4:
                return 'inactive', 'block %d: inactive lane %d wrote its output' % (b, g - b * WG)
    return None, '3 blocks, 8 slots'


def main():
    bad = 0
    for el in ('bf16', 'f16'):
        work = os.path.join(TMP, 'pk_%s_%s' % (el, ARCH))
        os.makedirs(work, exist_ok=True)
        what, msg = case(el, work)
        name = 'atomics/pk_add-%s-%s' % (el, ARCH)
        if what:
            bad += 1
            print('FAIL: %s (%s)\n    %s' % (name, what, msg.replace('\n', '\n    ')))
        else:
            print('PASS: ' + name)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
