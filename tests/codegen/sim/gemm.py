# CPU reference for the GEMM kernels (tests/codegen/fly/mma_tile.fly,
# examples/gemm_bf16.fly): C = A * B^T with A (M x K) and B (N x K) row-major
# bf16 and C (M x N) row-major, f32 or bf16 (f32cm, bf16cm: column-major, as
# tests/codegen/fly/retile_gemm.fly stores it in two kernels).
# f32acc: C row-major f32 = C0 + A * B^T, with C0 the random f32 matrix that
# gen writes to c0.bin (the kernel's C buffer starts as c0.bin).
# gen ... nn writes B as a K x N row-major matrix (the NN GEMM's B, the same
# values stored transposed); gen ... tn also A as K x M row-major
# (fly/retile_gemm_nn.fly reads them so); the check is the same.
# usage: gemm.py gen M N K [nn|tn] | check M N K f32|bf16|f32cm|bf16cm|f32acc [LDC]
# Inputs are random bf16 (seeded); the check allows rounding of the sum
# (relative 1e-5 of sum |a*b| for f32 results, one bf16 ulp for bf16 results)
# and reports the maximum absolute error.
import random, struct, sys

def bf16_bits(x):
    u = struct.unpack('<I', struct.pack('<f', x))[0]
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16     # round to nearest even

def bf16_val(h):
    return struct.unpack('<f', struct.pack('<I', (h & 0xFFFF) << 16))[0]

mode, M, N, K = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(M * 1000003 + N * 1009 + K)
A = [bf16_bits(rng.uniform(-1, 1)) for _ in range(M * K)]
B = [bf16_bits(rng.uniform(-1, 1)) for _ in range(N * K)]
C0 = [rng.uniform(-4, 4) for _ in range(M * N)]
if mode == 'gen':
    if sys.argv[5:] in (['nn'], ['tn']):
        B = [B[j * K + k] for k in range(K) for j in range(N)]
    if sys.argv[5:] == ['tn']:
        A = [A[i * K + k] for k in range(K) for i in range(M)]
    open('a.bin', 'wb').write(struct.pack('<%dH' % (M * K), *A))
    open('b.bin', 'wb').write(struct.pack('<%dH' % (N * K), *B))
    open('c0.bin', 'wb').write(struct.pack('<%df' % (M * N), *C0))
    sys.exit(0)
ct = sys.argv[5]
acc = ct == 'f32acc'
ct = 'f32' if acc else ct
C0 = struct.unpack('<%df' % (M * N), struct.pack('<%df' % (M * N), *C0))   # as stored (f32)
cm = ct.endswith('cm')
ct = ct[:-2] if cm else ct
ldc = int(sys.argv[6]) if len(sys.argv) > 6 else (M if cm else N)
raw = open('c.bin', 'rb').read()
Av = [bf16_val(h) for h in A]
Bv = [bf16_val(h) for h in B]
bad = 0
maxerr = 0.0
for i in range(M):
    ar = Av[i * K:(i + 1) * K]
    for j in range(N):
        br = Bv[j * K:(j + 1) * K]
        s = sum(x * y for x, y in zip(ar, br))
        mag = sum(abs(x * y) for x, y in zip(ar, br))
        if acc:
            s += C0[i * N + j]
            mag += abs(C0[i * N + j])
        if ct == 'f32':
            got = struct.unpack_from('<f', raw, 4 * (j * ldc + i if cm else i * ldc + j))[0]
            tol = 1e-5 * mag + 1e-30
        else:
            got = bf16_val(struct.unpack_from('<H', raw, 2 * (j * ldc + i if cm else i * ldc + j))[0])
            tol = abs(s) * 2.0 ** -8 + 1e-5 * mag + 1e-30
        err = abs(got - s)
        maxerr = max(maxerr, err)
        if not err <= tol:
            bad += 1
print('gemm %dx%dx%d max_err=%.3g bad=%d %s' % (M, N, K, maxerr, bad, 'PASS' if bad == 0 else 'FAIL'))
