#!/usr/bin/env python3
"""tests/atoms/atoms.py — every MMA atom of stdlib/gfx950.fly (or stdlib/gfx1201.fly), run on flyc-sim.

For each `atom NAME: mma { ... }` in the stdlib (read from the declaration: shape,
operand types, scale), write a one-wave .fly kernel that loads A (M x K, row-major)
and B (N x K, row-major) from global memory through the atom's partitions, issues
one `gemm` (one instruction), and stores C (M x N, row-major); compile it with flyc
for gfx950, run it on flyc-sim with random inputs and compare with a CPU matmul
computed here from the raw bytes (the decoders below are written from the format
definitions: IEEE half, bfloat16, OCP E4M3FN / E5M2 / E2M3 / E3M2 / E2M1, E8M0 =
2^(s-127)). fp4 operands are packed two per byte, element 0 in the low nibble;
fp6/bf6 operands are one little-endian bit stream, element i at bits 6i..6i+5.

gfx1201 (stdlib/gfx1201.fly, one wave32, flyc-sim --arch=gfx1201): each WMMA atom
through its partitions, and twice more with one operand given as register images
laid out by the matrix instruction calculator's formulas instead of the atom's
partition. What that can and cannot see: a single D = A*B sums over k, so a
permutation of k shared by the stdlib's A and B layouts leaves it unchanged and
the plain run cannot detect it (nor can two chained K steps, each a sum over its
own k); with one operand fixed to the hardware's k order, the other operand's
stdlib layout must put every k where the hardware reads it, so any k permutation
in either layout (shared or not) changes D and fails (checked by mutating the
formulas here). It cannot see an error shared by the calculator and the
simulator's WMMA, whose layouts come from the calculator too.

Exact comparison where the sum is exact (int8, fp8/bf8 with a bounded exponent
range, scaled fp8/bf8/fp6/bf6/fp4), a relative tolerance for f16/bf16.

usage: atoms.py FLYC FLYC_SIM STDLIB WORKDIR [NAME-FILTER]
prints PASS: atoms/NAME | FAIL: atoms/NAME (+ indented details) | SKIP: atoms/NAME (why)
"""
import os
import random
import re
import struct
import subprocess
import sys


def parse_atoms(path):
    text = open(path).read()
    out = []
    for m in re.finditer(r'atom\s+(\w+)\s*:\s*mma\s*\{(.*?)\n\}', text, re.S):
        name, body = m.group(1), m.group(2)
        f = {}
        for fm in re.finditer(r'(\w+)\s*=\s*([^;]+);', body):
            f[fm.group(1)] = fm.group(2).strip()
        shape = tuple(int(x) for x in f['shape'].strip('()').split(','))
        out.append(dict(name=name, M=shape[0], N=shape[1], K=shape[2], a=f['a'], b=f['b'], c=f['c'],
                        scale=f.get('scale')))
    return out


# ---- number formats (decoders from the definitions) ----

def f16_val(h):
    s = -1.0 if h & 0x8000 else 1.0
    e = (h >> 10) & 31
    m = h & 1023
    if e == 0:
        return s * m * 2.0 ** -24
    return s * (1024 + m) * 2.0 ** (e - 25)


def bf16_val(h):
    return struct.unpack('<f', struct.pack('<I', h << 16))[0]


def mini_val(b, ebits, mbits, bias):
    """An OCP minifloat (sign, ebits exponent, mbits mantissa) without
    infinities; callers keep the NaN codes out of the inputs."""
    s = -1.0 if (b >> (ebits + mbits)) & 1 else 1.0
    e = (b >> mbits) & ((1 << ebits) - 1)
    m = b & ((1 << mbits) - 1)
    if e == 0:
        return s * m * 2.0 ** (1 - bias - mbits)
    return s * ((1 << mbits) + m) * 2.0 ** (e - bias - mbits)


def fp8_val(b): return mini_val(b, 4, 3, 7)      # E4M3FN; S.1111.111 = NaN
def bf8_val(b): return mini_val(b, 5, 2, 15)     # E5M2
def fp6_val(b): return mini_val(b, 2, 3, 1)      # E2M3
def bf6_val(b): return mini_val(b, 3, 2, 3)      # E3M2
def fp4_val(b): return mini_val(b, 2, 1, 1)      # E2M1


def rand_elem(t, rng):
    """(raw bits, value) of a random element of type t"""
    if t == 'bf16':
        x = rng.gauss(0.0, 1.0)
        h = struct.unpack('<I', struct.pack('<f', x))[0] >> 16
        return h, bf16_val(h)
    if t == 'f16':
        x = rng.gauss(0.0, 1.0)
        h = struct.unpack('<H', struct.pack('<e', x))[0]
        return h, f16_val(h)
    if t == 'i8':
        v = rng.randint(-128, 127)
        return v & 0xFF, float(v)
    if t == 'fp8':   # exponent field 5..9 keeps every sum exact in f32
        b = (rng.randint(0, 1) << 7) | (rng.randint(5, 9) << 3) | rng.randint(0, 7)
        return b, fp8_val(b)
    if t == 'bf8':   # exponent field 13..17
        b = (rng.randint(0, 1) << 7) | (rng.randint(13, 17) << 2) | rng.randint(0, 3)
        return b, bf8_val(b)
    if t in ('fp6', 'bf6', 'fp4'):   # every code: the sums stay exact
        b = rng.randint(0, (1 << BITS[t]) - 1)
        return b, {'fp6': fp6_val, 'bf6': bf6_val, 'fp4': fp4_val}[t](b)
    raise ValueError(t)


BITS = {'bf16': 16, 'f16': 16, 'i8': 8, 'fp8': 8, 'bf8': 8, 'f32': 32, 'i32': 32, 'fp6': 6, 'bf6': 6, 'fp4': 4}


def nbytes(t, n):
    return n * BITS[t] // 8


def pack(t, bits):
    """raw codes as bytes: element i at bits BITS*i.. of one little-endian stream"""
    w, acc = BITS[t], 0
    for i, x in enumerate(bits):
        acc |= int(x) << (w * i)
    return acc.to_bytes(nbytes(t, len(bits)), 'little')


KERNEL = """import {arch};
// generated by tests/atoms/atoms.py: one {name} on one wave
kernel atom_test(A: global {a}[({M}, {K}):({K}, 1)], B: global {b}[({N}, {K}):({K}, 1)],
                 C: global {c}[({M}, {N}):({N}, 1)]{sargs})
  block({lanes}) grid(1)
{{
  let mma = tiled_mma({arch}.{name}, waves=(1, 1, 1));
  let thr = mma.slice(thread.x);
  var rA = thr.fragment_A(A);
  var rB = thr.fragment_B(B);
  var acc = thr.fragment_C(C, {c});
  copy({srcA}, rA);
  copy({srcB}, rB);
{lds}{scales}  gemm(mma, {ra}, {rb}, acc{sgemm});
  copy(acc, thr.partition_C(C));
}}
"""

# the same operands staged through LDS (stored and loaded back through the
# atom's partitions of row-major LDS tiles)
LDS = """  lds sA: {a}[({M}, {K}):({K}, 1)];
  lds sB: {b}[({N}, {K}):({K}, 1)];
  copy(rA, thr.partition_A(sA));
  copy(rB, thr.partition_B(sB));
  barrier();
  var qA = thr.fragment_A(A);
  var qB = thr.fragment_B(B);
  copy(thr.partition_A(sA), qA);
  copy(thr.partition_B(sB), qB);
"""


def calc_pos(t, x, k):
    """gfx1201 WMMA: (register, bit, lane) of A[x][k] (B: column x), from
    ROCm/amd_matrix_instruction_calculator's RDNA4 wave32 formulas (as in
    tests/sim/wmma.py), independent of the stdlib's layouts"""
    if BITS[t] == 16:
        return 2 * (k // 8) + (k // 2) % 2, 16 * (k % 2), 16 * ((k // 4) % 2) + x
    return (k // 4) % 2, 8 * (k % 4), 16 * (k // 8) + x


def run_atom(at, flyc, sim, work, rng, kreps=1, via_lds=False, arch='gfx950', raw=None):
    """kreps > 1: K = kreps * the atom's K, so one gemm issues kreps MMAs on
    parts of the fragments (unit scales); via_lds: A and B go through LDS;
    raw 'A' or 'B' (gfx1201): that operand is not loaded through the atom's
    partition but as register images laid out here by the calculator's
    formulas (lane l's value v from element 8l + v of the buffer), so the
    other operand's stdlib layout is checked against the hardware's k order"""
    name, M, N, K = at['name'], at['M'], at['N'], at['K'] * kreps
    lanes = 32 if arch == 'gfx1201' else 64
    ta, tb, tc = at['a'], at['b'], at['c']
    d = os.path.join(work, name + ('-k%d' % kreps if kreps > 1 else '') + ('-lds' if via_lds else '') +
                     ('-raw' + raw if raw else ''))
    os.makedirs(d, exist_ok=True)
    scaled = at['scale'] is not None and kreps == 1
    KB = K // 32
    sargs = scales = sgemm = ''
    if scaled:
        # scale operand layout (stdlib scale_layout, facts sheet 4): lane l holds the
        # scale of row (column) l % M and K-block l / M: SA is (M, K/32) column-major
        sargs = ',\n                 SA: global u8[({M}, {KB}):(1, {M})], SB: global u8[({N}, {KB}):(1, {N})]'.format(
            M=M, N=N, KB=KB)
        scales = ('  let sa = convert<i32>(SA[thread.x % {M}, thread.x / {M}]);\n'
                  '  let sb = convert<i32>(SB[thread.x % {N}, thread.x / {N}]);\n').format(M=M, N=N)
        sgemm = ', scale_a=sa, scale_b=sb'
    lds = LDS.format(a=ta, b=tb, M=M, N=N, K=K) if via_lds else ''
    per = M * K // lanes                      # values per lane of one operand
    srcA, srcB = 'thr.partition_A(A)', 'thr.partition_B(B)'
    if raw:
        sargs += ',\n                 R: global %s[(%d):(1)]' % (ta if raw == 'A' else tb, lanes * per)
        part = 'local_partition(R, (%d, %d):(%d, 1), thread.x)' % (lanes, per, per)
        srcA, srcB = (part, srcB) if raw == 'A' else (srcA, part)
    src = KERNEL.format(name=name, a=ta, b=tb, c=tc, M=M, N=N, K=K, sargs=sargs, scales=scales, sgemm=sgemm,
                        lds=lds, ra='qA' if via_lds else 'rA', rb='qB' if via_lds else 'rB', arch=arch,
                        lanes=lanes, srcA=srcA, srcB=srcB)
    fly = os.path.join(d, 'k.fly')
    open(fly, 'w').write(src)
    co = os.path.join(d, 'k.hsaco')
    r = subprocess.run([flyc, fly, '--offload-arch=' + arch, '-o', co], capture_output=True, text=True)
    if r.returncode:
        return 'FAIL', ['flyc failed:', r.stderr.strip()]
    A = [rand_elem(ta, rng) for _ in range(M * K)]
    B = [rand_elem(tb, rng) for _ in range(N * K)]
    open(os.path.join(d, 'a.bin'), 'wb').write(pack(ta, [x[0] for x in A]))
    open(os.path.join(d, 'b.bin'), 'wb').write(pack(tb, [x[0] for x in B]))
    args = [sim, co, 'atom_test', '--arch=' + arch, '--grid=1', '--block=%d' % lanes,
            'buf=%d,in=%s' % (nbytes(ta, M * K), os.path.join(d, 'a.bin')),
            'buf=%d,in=%s' % (nbytes(tb, N * K), os.path.join(d, 'b.bin')),
            'buf=%d,fill=0xAB,out=%s' % (M * N * 4, os.path.join(d, 'c.bin'))]
    sa = [[127] * KB for _ in range(M)]
    sb = [[127] * KB for _ in range(N)]
    if scaled:
        sa = [[rng.randint(124, 130) for _ in range(KB)] for _ in range(M)]
        sb = [[rng.randint(124, 130) for _ in range(KB)] for _ in range(N)]
        # column-major (row + M * kblock)
        open(os.path.join(d, 'sa.bin'), 'wb').write(bytes(sa[i % M][i // M] for i in range(M * KB)))
        open(os.path.join(d, 'sb.bin'), 'wb').write(bytes(sb[i % N][i // N] for i in range(N * KB)))
        args += ['buf=%d,in=%s' % (M * KB, os.path.join(d, 'sa.bin')),
                 'buf=%d,in=%s' % (N * KB, os.path.join(d, 'sb.bin'))]
    if raw:
        t, X = (ta, A) if raw == 'A' else (tb, B)
        img = [0] * (lanes * per)
        for x in range(M):
            for k in range(K):
                reg, bit, lane = calc_pos(t, x, k)
                img[lane * per + (reg * 32 + bit) // BITS[t]] = X[x * K + k][0]
        open(os.path.join(d, 'r.bin'), 'wb').write(pack(t, img))
        args += ['buf=%d,in=%s' % (nbytes(t, lanes * per), os.path.join(d, 'r.bin'))]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        return 'FAIL', ['flyc-sim failed:', (r.stdout + r.stderr).strip()]
    raw = open(os.path.join(d, 'c.bin'), 'rb').read()
    fmt = '<%d%s' % (M * N, 'i' if tc == 'i32' else 'f')
    got = struct.unpack(fmt, raw)
    exact = ta not in ('bf16', 'f16')
    bad = []
    for i in range(M):
        for j in range(N):
            s = mag = 0.0
            for kb in range(KB if scaled else 1):
                part = 0.0
                ks = range(kb * 32, kb * 32 + 32) if scaled else range(K)
                for k in ks:
                    p = A[i * K + k][1] * B[j * K + k][1]
                    part += p
                    mag += abs(p)
                if scaled:
                    f = 2.0 ** (sa[i][kb] - 127) * 2.0 ** (sb[j][kb] - 127)
                    part *= f
                s += part
            if tc == 'i32':
                want = ((int(s) + 2 ** 31) % 2 ** 32) - 2 ** 31
                ok = got[i * N + j] == want
            else:
                want = struct.unpack('<f', struct.pack('<f', s))[0]
                ok = got[i * N + j] == want if exact else abs(got[i * N + j] - s) <= 1e-5 * mag + 1e-30
            if not ok and len(bad) < 4:
                bad.append('C[%d][%d] = %r, expected %r' % (i, j, got[i * N + j], want))
            elif not ok:
                bad.append(None)
    if bad:
        return 'FAIL', ['%d of %d elements wrong' % (len(bad), M * N)] + [b for b in bad if b]
    return 'PASS', []


def main():
    flyc, sim, stdlib, work = sys.argv[1:5]
    filt = sys.argv[5] if len(sys.argv) > 5 else ''
    rng = random.Random(8)
    arch = 'gfx1201' if 'gfx1201' in os.path.basename(stdlib) else 'gfx950'
    atoms = parse_atoms(stdlib)
    if not atoms:
        print('FAIL: atoms/parse\n    no mma atoms found in ' + stdlib)
    for at in atoms:
        if filt and filt not in at['name']:
            continue
        # packed operands also with two K steps per gemm (parts of the fragments),
        # and staged through LDS
        packed = at['a'] in ('fp6', 'bf6', 'fp4') or at['b'] in ('fp6', 'bf6', 'fp4')
        runs = ((1, False, None), (2, False, None), (1, True, None)) if packed else ((1, False, None),)
        if arch == 'gfx1201':   # plus each operand's k order against the hardware's (see run_atom);
            # two K steps per gemm for one atom of each element width
            k2 = ((2, False, None),) if at['name'] in ('wmma_f32_16x16x16_f16', 'wmma_f32_16x16x16_fp8_fp8') else ()
            runs = ((1, False, None),) + k2 + ((1, False, 'A'), (1, False, 'B'))
        for kreps, via_lds, raw in runs:
            st, det = run_atom(at, flyc, sim, work, rng, kreps, via_lds, arch, raw)
            nm = at['name'] + ('-k%d' % kreps if kreps > 1 else '') + ('-lds' if via_lds else '') + \
                ('-raw' + raw if raw else '')
            if st == 'SKIP':
                print('SKIP: atoms/%s (%s)' % (nm, det[0]))
            else:
                print('%s: atoms/%s' % (st, nm))
                for l in det:
                    for ll in str(l).splitlines():
                        print('    ' + ll)
            sys.stdout.flush()


if __name__ == '__main__':
    main()
