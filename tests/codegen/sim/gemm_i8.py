# CPU reference for the int8 NN GEMM of tests/codegen/fly/retile_gemm_tr.fly:
# C (M x N, i32, row-major) = A (M x K, i8, row-major) * B (K x N, i8,
# row-major), exact. c.bin may be longer than M x N: the bytes after C are a
# guard that must keep the simulator's fill byte (0xAB).
# usage: gemm_i8.py gen M N K | check M N K
import random, struct, sys

mode, M, N, K = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(M * 7919 + N * 104729 + K)
A = [rng.randint(-128, 127) for _ in range(M * K)]
B = [rng.randint(-128, 127) for _ in range(K * N)]   # K x N row-major
if mode == 'gen':
    open('a.bin', 'wb').write(struct.pack('<%db' % (M * K), *A))
    open('b.bin', 'wb').write(struct.pack('<%db' % (K * N), *B))
    sys.exit(0)
raw = open('c.bin', 'rb').read()
got = struct.unpack_from('<%di' % (M * N), raw)
bad = 0
for i in range(M):
    for j in range(N):
        if got[i * N + j] != sum(A[i * K + k] * B[k * N + j] for k in range(K)):
            bad += 1
guard = raw[4 * M * N:]
gbad = sum(1 for b in guard if b != 0xAB)
print('gemm_i8 %dx%dx%d bad=%d guard_bad=%d of %d %s' % (M, N, K, bad, gbad, len(guard),
      'PASS' if bad == 0 and gbad == 0 else 'FAIL'))
