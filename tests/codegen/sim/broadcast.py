# CPU reference for tests/codegen/fly/broadcast.fly: fragments mixed with broadcast scalars.
# usage: broadcast.py gen | broadcast.py check      (m = 0.75, mi = 5, N = 256; files in .)
# Inputs are followed by NaN (x) and 0x7fffffff (xi) sentinels, out by 0xAB bytes that must
# stay untouched. Exact expressions must match bit for bit (NaN matches NaN); fma within
# 1 ulp, exp2 within 2 ulps, exp (computed as exp2(x * log2 e)) within 2e-5 relative.
import math, struct, sys

N, M, MI, NOUT = 256, 0.75, 5, 20
def f32(v):
    try:
        return struct.unpack('<f', struct.pack('<f', v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)
def i32(v): return (v + 2**31) % 2**32 - 2**31
def bits(v): return struct.unpack('<I', struct.pack('<f', v))[0]
def ulps(a, b):
    if math.isnan(a) or math.isnan(b): return 0 if math.isnan(a) and math.isnan(b) else 1 << 40
    if a == b: return 0
    ia, ib = bits(a), bits(b)
    ia = ia if ia < 1 << 31 else (1 << 31) - ia
    ib = ib if ib < 1 << 31 else (1 << 31) - ib
    return abs(ia - ib)
def maxnum(a, b): return b if math.isnan(a) else a if math.isnan(b) else max(a, b)
def minnum(a, b): return b if math.isnan(a) else a if math.isnan(b) else min(a, b)

def inputs():
    x = [f32(math.sin(i * 0.7) * 8) for i in range(N)]
    x[1:9] = [0.0, -0.0, M, -M, 0.5, math.nan, math.inf, -math.inf]
    x[9:12] = [100.0, -100.0, f32(1e-3)]
    xi = [((i * 37) % 41) - 20 for i in range(N)]
    xi[1:5] = [MI, -MI, -2**31, 2**31 - 1]
    return x, xi

def ref(x, xi):
    s = x[0]
    rows = []
    for v, vi in zip(x, xi):
        r = [None] * NOUT
        r[0] = ('exp', v if math.isnan(v) else f32(math.exp(v)) if v < 89 else math.inf)
        r[1] = ('=', maxnum(v, 0.5))
        r[2] = ('=', maxnum(v, M))
        r[3] = ('=', minnum(v, M))
        r[4] = ('=', v if v > M else M)
        r[5] = ('=', 0.5 if M < v else v)
        r[6] = ('fma', f32(v * M + 0.5) if math.isfinite(v) else v * M + 0.5)
        r[7] = ('=', f32(float(i32(abs(vi)))))
        r[8] = ('=', f32(float(i32(-vi + MI))))
        r[9] = ('=', (f32(v * M) if v > 0.0 else -v) if vi < MI else 2.0)
        r[10] = ('=', f32(M - v / 2.0))
        r[11] = ('=', f32(float(i32(min(vi, MI) + max(3, vi)))))
        r[12] = ('=', f32(f32(v + s) + f32(M * v)))
        e2 = f32(2.0 ** v) if v < 128 else math.inf
        r[13] = ('exp2', e2) if v >= s else (('exp2', e2) if vi == MI else ('=', f32(v * v)))
        r[14] = ('=', f32(float(i32((vi & MI) * 2 - (MI ^ vi)))))
        r[15] = ('=', 1.0 if v != v else abs(f32(v - M)))
        r[16] = ('=', 1.0 if v > M else 2.0)
        r[17] = ('fma', f32(M * M + v) if math.isfinite(v) else v)
        r[18] = ('fma', f32(M * v + 0.25) if math.isfinite(v) else M * v)
        r[19] = ('=', f32(float(i32(max(vi, 0) * 3))))
        rows.append(r)
    return rows

x, xi = inputs()
if sys.argv[1] == 'gen':
    open('x.bin', 'wb').write(struct.pack('<%df' % (N + 16), *(x + [math.nan] * 16)))
    open('xi.bin', 'wb').write(struct.pack('<%di' % (N + 16), *(xi + [2**31 - 1] * 16)))
else:
    raw = open('out.bin', 'rb').read()
    got = struct.unpack('<%df' % (N * NOUT), raw[:4 * N * NOUT])
    bad = []
    for e, row in enumerate(ref(x, xi)):
        for j, (kind, want) in enumerate(row):
            g = got[e * NOUT + j]
            if kind == 'exp':
                ok = (math.isnan(g) and math.isnan(want)) or g == want or \
                     (math.isfinite(want) and abs(g - want) <= 2e-5 * abs(want))
            else:
                ok = ulps(g, want) <= {'=': 0, 'fma': 1, 'exp2': 2}[kind]
            if not ok:
                bad.append((e, j, x[e], xi[e], g, want))
    print('checked', N * NOUT, 'bad', len(bad))
    for b in bad[:12]:
        print('  element %d expr %d: x=%r xi=%r got %r want %r' % b)
    print('beyond out untouched:', all(b == 0xAB for b in raw[4 * N * NOUT:]))
