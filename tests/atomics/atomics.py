#!/usr/bin/python3
"""tests/atomics/atomics.py: every atomic builtin (docs/language.md "Atomics") on the simulator.

usage: atomics.py FLYC FLYC_SIM TMPDIR ARCH

Writes one kernel per (operation, element type, memory, returned value used or
not) -- memory: an LDS buffer, a global tensor addressed by a buffer
descriptor (static layout) and one addressed by 64-bit pointers (run-time
extent) -- compiles them with flyc for ARCH, checks that the simulator knows
every instruction in the code object, runs each on four workgroups of 256
threads with different patterns and compares with Python:

  block 0: every lane active, random slots of 64 (some contention);
  block 1: every lane active on one slot (the address is a loaded value, so
           the compiler cannot combine the lanes: 256 updates of one word);
  block 2: one lane active (thread 77), all others inactive;
  block 3: about half the lanes active on 4 slots.

With the old value used, the returned values of the lanes on each slot must
form one serial order of the updates from the slot's initial value to its
final value (found by search; integer and float results exact), and inactive
lanes must leave their output untouched. Without it, order-independent
operations must give the exact serial result; exchange and cas a value some
lane wrote; float add the sum within n*eps*sum|x|.
"""
import os
import struct
import subprocess
import sys

import numpy as np

FLYC, SIM, TMP, ARCH = sys.argv[1:5]
WG, SLOTS, NB = 256, 64, 4
M32 = 0xffffffff

# (builtin, element, value generator name)
OPS = [('add', 'i32'), ('sub', 'u32'), ('min', 'i32'), ('min', 'u32'), ('max', 'i32'), ('max', 'u32'),
       ('and', 'u32'), ('or', 'i32'), ('xor', 'u32'), ('inc', 'u32'), ('dec', 'u32'), ('exchange', 'i32'),
       ('cas', 'u32'), ('add', 'f32'), ('exchange', 'f32'), ('cas', 'f32')]
SPACES = [('lds', 'l'), ('buf', 'b'), ('g64', 'g')]


def kname(op, el, ret):
    return 'a_%s_%s_%s' % (op, el, 'r' if ret else 'n')


def kernel(op, el, ret):
    """the same updates on an LDS buffer (S, loaded from and stored back to L),
    a buffer-addressed tensor (T) and a 64-bit-addressed one (G)"""
    args = 'x[t], y[t]' if op == 'cas' else 'x[t]'
    body = ''
    for sp, tgt in (('l', 'S[i]'), ('b', 'T[block.x * 64 + i]'), ('g', 'G[block.x * 64 + i]')):
        call = 'atomic_%s(%s, %s)' % (op, tgt, args)
        body += ('    o%s[t] = %s;\n' % (sp, call)) if ret else ('    %s;\n' % call)
    return ('kernel %s(L: global %s[(256):(1)], T: global %s[(256):(1)], G: global %s[(N):(1)],\n'
            '  x: global %s[(1024):(1)], y: global %s[(1024):(1)], idx: global i32[(1024):(1)],\n'
            '  act: global i32[(1024):(1)], ol: global %s[(1024):(1)], ob: global %s[(1024):(1)],\n'
            '  og: global %s[(1024):(1)], N: i32)\n  block(256) grid(4)\n{\n'
            '  let t = block.x * 256 + thread.x;\n'
            '  lds S: %s[(64):(1)];\n  if thread.x < 64 { S[thread.x] = L[block.x * 64 + thread.x]; }\n  barrier();\n'
            '  if act[t] != 0 {\n    let i = idx[t];\n%s  }\n'
            '  barrier();\n  if thread.x < 64 { L[block.x * 64 + thread.x] = S[thread.x]; }\n}\n'
            % ((kname(op, el, ret),) + (el,) * 9 + (body,)))


def f32(v):
    return float(np.float32(v))


def bits(el, v):
    if el == 'f32':
        return struct.unpack('<I', struct.pack('<f', v))[0]
    return v & M32


def s32(v):
    v &= M32
    return v - (1 << 32) if v & 0x80000000 else v


def apply(op, el, cur, x, y):
    """the slot's new value after one update (values as Python ints / floats)"""
    if el == 'f32':
        if op == 'add':
            return f32(np.float32(cur) + np.float32(x))
        if op == 'exchange':
            return x
        return y if bits(el, cur) == bits(el, x) else cur   # cas: bitwise compare
    if op == 'add':
        return (cur + x) & M32
    if op == 'sub':
        return (cur - x) & M32
    if op in ('min', 'max'):
        k = s32 if el == 'i32' else (lambda v: v & M32)
        a, b = k(cur), k(x)
        return (min(a, b) if op == 'min' else max(a, b)) & M32
    if op == 'and':
        return cur & x
    if op == 'or':
        return cur | x
    if op == 'xor':
        return cur ^ x
    if op == 'inc':
        return 0 if cur >= x else cur + 1
    if op == 'dec':
        return x if cur == 0 or cur > x else cur - 1
    if op == 'exchange':
        return x
    return y if cur == x else cur    # cas


def inputs(op, el, rng):
    n = NB * WG
    t = np.arange(n)
    blk = t // WG
    idx = rng.integers(0, SLOTS, n)
    idx[blk == 1] = 5
    idx[blk == 3] = rng.integers(0, 4, WG)
    act = np.ones(n, np.int32)
    act[blk == 2] = 0
    act[2 * WG + 77] = 1
    idx[2 * WG + 77] = 9
    act[blk == 3] = rng.integers(0, 2, WG)
    if el == 'f32':
        init = rng.standard_normal(NB * SLOTS).astype(np.float32)
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        if op == 'cas':
            # expected values from a small set so that chains succeed; -0.0 and
            # +0.0 differ bitwise, a NaN equals itself bitwise
            pool = np.array([0.0, -0.0, 1.0, np.nan], np.float32)
            init = pool[rng.integers(0, 4, NB * SLOTS)]
            x = pool[rng.integers(0, 4, n)]
            y = pool[rng.integers(0, 4, n)]
        return idx.astype(np.int32), act, init, x, y
    dt = np.int32 if el == 'i32' else np.uint32
    init = rng.integers(0, 1 << 32, NB * SLOTS, dtype=np.uint64)
    x = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    y = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    if op in ('inc', 'dec'):
        # one bound per slot (so that the result without old values is
        # order-independent), small enough to wrap; initial values also above it
        bound = rng.integers(0, 40, NB * SLOTS, dtype=np.uint64)
        x = bound[(blk * SLOTS + idx)]
        init = rng.integers(0, 48, NB * SLOTS, dtype=np.uint64)
    if op == 'cas':
        init = rng.integers(0, 4, NB * SLOTS, dtype=np.uint64)
        x = rng.integers(0, 4, n, dtype=np.uint64)
        y = rng.integers(0, 4, n, dtype=np.uint64)
    return idx.astype(np.int32), act, init.astype(np.uint32).view(dt), x.astype(np.uint32).view(dt), \
        y.astype(np.uint32).view(dt)


def pyval(el, a):
    if el == 'f32':
        return [float(v) for v in a]
    return [int(v) & M32 for v in a.view(np.uint32)]


def same(el, a, b):
    return bits(el, a) == bits(el, b)


def chain(op, el, init, lanes, final):
    """a serial order of lanes (x, y, old) taking init to final, each lane seeing its old value"""
    budget = [200000]
    memo = set()

    def go(cur, rem):
        # an update that sees the current value and leaves it is safe to place now
        keep = frozenset(k for k in rem if same(el, lanes[k][2], cur) and
                         same(el, apply(op, el, cur, lanes[k][0], lanes[k][1]), cur))
        rem = rem - keep
        if not rem:
            return same(el, cur, final)
        key = (bits(el, cur), rem)
        if key in memo or budget[0] <= 0:
            return False
        budget[0] -= 1
        tried = set()
        for k in rem:
            x, y, o = lanes[k]
            if not same(el, o, cur):
                continue
            nxt = apply(op, el, cur, x, y)
            sig = (bits(el, nxt), x if el != 'f32' else bits(el, x), y if el != 'f32' else bits(el, y))
            if sig in tried:
                continue
            tried.add(sig)
            if go(nxt, rem - {k}):
                return True
        memo.add(key)
        return False

    return go(init, frozenset(range(len(lanes))))


def check(op, el, ret, idx, act, init, x, y, tout, old, fill):
    errs = []
    ini, xs, ys, fin = pyval(el, init), pyval(el, x), pyval(el, y), pyval(el, tout)
    olds = pyval(el, old) if ret else None
    by_slot = {}
    for t in range(NB * WG):
        if act[t]:
            by_slot.setdefault((t // WG) * SLOTS + int(idx[t]), []).append(t)
    for b in range(NB):
        for s in range(SLOTS):
            g = b * SLOTS + s
            ls = by_slot.get(g, [])
            tag = '%s %s block %d slot %d (%d lanes)' % (op, el, b, s, len(ls))
            if ret:
                lanes = [(xs[t], ys[t], olds[t]) for t in ls]
                if not chain(op, el, ini[g], lanes, fin[g]):
                    errs.append('%s: the old values %s and the final value %r form no serial order from %r'
                                % (tag, [l[2] for l in lanes][:6], fin[g], ini[g]))
                continue
            if op in ('exchange', 'cas'):
                ok = [ini[g]] if op == 'cas' or not ls else []
                ok += [(ys if op == 'cas' else xs)[t] for t in ls]
                if not any(same(el, fin[g], v) for v in ok):
                    errs.append('%s: final %r is no value a lane wrote' % (tag, fin[g]))
                continue
            if el == 'f32':
                want = float(np.float64(ini[g]) + sum(np.float64(xs[t]) for t in ls))
                bound = (len(ls) + 1) * 2.0 ** -23 * (abs(ini[g]) + sum(abs(xs[t]) for t in ls)) + 1e-30
                if not abs(fin[g] - want) <= bound:
                    errs.append('%s: final %r, want %r within %g' % (tag, fin[g], want, bound))
                continue
            cur = ini[g]
            for t in ls:
                cur = apply(op, el, cur, xs[t], ys[t])
            if cur != fin[g]:
                errs.append('%s: final 0x%x, want 0x%x' % (tag, fin[g], cur))
    if ret:
        raw = old.view(np.uint32)
        bad = [t for t in range(NB * WG) if not act[t] and raw[t] != fill]
        if bad:
            errs.append('%s %s: inactive lane %d wrote its output' % (op, el, bad[0]))
    return errs


def main():
    src = os.path.join(TMP, 'atomics-%s.fly' % ARCH)
    co = os.path.join(TMP, 'atomics-%s.hsaco' % ARCH)
    ks = [(op, el, ret) for op, el in OPS for ret in (1, 0)]
    with open(src, 'w') as f:
        f.write('// generated by tests/atomics/atomics.py\n')
        for k in ks:
            f.write(kernel(*k))
    p = subprocess.run([FLYC, src, '--offload-arch=' + ARCH, '-o', co], capture_output=True, text=True)
    if p.returncode != 0:
        print('FAIL: atomics/compile-%s' % ARCH)
        print(p.stderr)
        return 1
    print('PASS: atomics/compile-%s (%d kernels)' % (ARCH, len(ks)))
    p = subprocess.run([SIM, '--list-mnemonics', '--arch=' + ARCH, co], capture_output=True, text=True)
    uns = [l.split()[0] for l in p.stdout.splitlines() if 'UNSUPPORTED' in l and not l.startswith('s_code_end')]
    if p.returncode != 0 or uns:
        print('FAIL: atomics/mnemonics-%s: unsupported by the simulator: %s %s' % (ARCH, uns, p.stderr))
    else:
        mn = [l.split()[0] for l in p.stdout.splitlines()]
        print('PASS: atomics/mnemonics-%s (%d atomic mnemonics, all simulated)'
              % (ARCH, sum('atomic' in m or m.startswith('ds_') for m in mn)))
    rng = np.random.default_rng(19)
    fill = 0x5A5A5A5A
    for op, el, ret in ks:
        idx, act, init, x, y = inputs(op, el, rng)
        files = {}
        for nm, a in (('init', init), ('x', x), ('y', y), ('idx', idx), ('act', act)):
            files[nm] = os.path.join(TMP, nm + '.bin')
            a.tofile(files[nm])
        outs = {sp: (os.path.join(TMP, sp + '.out'), os.path.join(TMP, 'old' + sp + '.out')) for _, sp in SPACES}
        cmd = [SIM, co, kname(op, el, ret), '--arch=' + ARCH]
        cmd += ['buf=1024,in=%s,out=%s' % (files['init'], outs[sp][0]) for _, sp in SPACES]
        cmd += ['buf=4096,in=' + files[n] for n in ('x', 'y', 'idx', 'act')]
        cmd += ['buf=4096,fill=0x5A,out=' + outs[sp][1] for _, sp in SPACES]
        cmd += ['i32=256']
        p = subprocess.run(cmd, capture_output=True, text=True)
        dt = np.float32 if el == 'f32' else (np.int32 if el == 'i32' else np.uint32)
        for spn, sp in SPACES:
            name = 'atomics/%s-%s-%s-%s-%s' % (ARCH, op, el, spn, 'ret' if ret else 'noret')
            if p.returncode != 0:
                print('FAIL: %s\n    flyc-sim: %s' % (name, p.stderr.strip()))
                continue
            errs = check(op, el, ret, idx, act, init, x, y, np.fromfile(outs[sp][0], dt),
                         np.fromfile(outs[sp][1], dt), fill)
            if not ret and np.any(np.fromfile(outs[sp][1], np.uint32) != fill):
                errs.append('the old values are not used, but the output changed')
            if errs:
                print('FAIL: %s' % name)
                for e in errs[:5]:
                    print('    ' + e)
            else:
                print('PASS: %s' % name)
    return 0


sys.exit(main())
