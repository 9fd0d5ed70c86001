# CPU reference for the int8, fp4 and fp6 NN GEMMs of tests/codegen/fly/retile_gemm_nn.fly
# and retile_gemm_nn_fp6.fly: C (M x N, row-major; i32 for i8, f32 for fp4/fp6) =
# A (M x K, row-major) * B (K x N, row-major), exact (fp4 products are multiples of
# 1/4 below 37, fp6 ones multiples of 1/64 below 57, and the sums stay exact in f32;
# the scaled MFMA runs with unit scales). fp4 (E2M1) is packed two per byte, element
# 0 in the low nibble; fp6 (E2M3, no NaN or Inf codes) four per three bytes, element
# e at bits 6e.. of a little-endian stream. Every code is drawn, -0 included.
# c.bin may be longer than M x N: the bytes after C are a guard that must keep
# the simulator's fill byte (0xAB).
# usage: gemm_nn.py gen|check M N K i8|fp4|fp6 [tn]  (tn: a.bin holds A stored K x M, row-major)
import random, struct, sys

mode, M, N, K, ty = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rng = random.Random(M * 7919 + N * 104729 + K + {'i8': 0, 'fp4': 1, 'fp6': 2}[ty])
FP4 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]

def fp4_val(c):
    return (-1.0 if c & 8 else 1.0) * FP4[c & 7]

def pack4(codes):
    return bytes(codes[i] | (codes[i + 1] << 4) for i in range(0, len(codes), 2))

def fp6_val(c):
    e, m = (c >> 3) & 3, c & 7
    return (-1.0 if c & 32 else 1.0) * (m / 8 if e == 0 else (1 + m / 8) * 2.0 ** (e - 1))

def pack6(codes):
    x = sum(c << (6 * i) for i, c in enumerate(codes))
    return x.to_bytes(len(codes) * 6 // 8, 'little')

if ty == 'i8':
    A = [rng.randint(-128, 127) for _ in range(M * K)]
    B = [rng.randint(-128, 127) for _ in range(K * N)]   # K x N row-major
    Av, Bv = A, B
else:
    nc, val = (16, fp4_val) if ty == 'fp4' else (64, fp6_val)
    A = [rng.randrange(nc) for _ in range(M * K)]
    B = [rng.randrange(nc) for _ in range(K * N)]
    Av, Bv = [val(c) for c in A], [val(c) for c in B]
if mode == 'gen':
    if ty == 'i8':
        open('a.bin', 'wb').write(struct.pack('<%db' % (M * K), *A))
        open('b.bin', 'wb').write(struct.pack('<%db' % (K * N), *B))
    else:
        pk = pack4 if ty == 'fp4' else pack6
        if sys.argv[6:] == ['tn']:
            open('a.bin', 'wb').write(pk([A[i * K + k] for k in range(K) for i in range(M)]))
        else:
            open('a.bin', 'wb').write(pk(A))
        open('b.bin', 'wb').write(pk(B))
    sys.exit(0)
raw = open('c.bin', 'rb').read()
got = struct.unpack_from('<%d%s' % (M * N, 'i' if ty == 'i8' else 'f'), raw)
bad = 0
for i in range(M):
    for j in range(N):
        if got[i * N + j] != sum(Av[i * K + k] * Bv[k * N + j] for k in range(K)):
            bad += 1
guard = raw[4 * M * N:]
gbad = sum(1 for b in guard if b != 0xAB)
print('gemm_%s %dx%dx%d bad=%d guard_bad=%d of %d %s' % (ty, M, N, K, bad, gbad, len(guard),
      'PASS' if bad == 0 and gbad == 0 else 'FAIL'))
