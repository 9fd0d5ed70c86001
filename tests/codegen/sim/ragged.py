# Check for tests/codegen/fly/ragged_copy.fly: X is M x N f32 (seeded,
# distinct, followed by NaN guards); Y (M x N, then G guard words) must equal X
# with its guard untouched (0xABABABAB fill); Z (MP x NP, the tiles' extent)
# must hold X inside M x N and +0.0 outside (LDS zero fill).
# usage: ragged.py gen M N | check M N
import math, random, struct, sys
mode, M, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
G = 64
MP, NP = -(-M // 32) * 32, -(-N // 32) * 32
rng = random.Random(M * 1000 + N)
x = [float(rng.randint(1, 1 << 20)) for _ in range(M * N)]
if mode == 'gen':
    open('x.bin', 'wb').write(struct.pack('<%df' % (M * N), *x) + struct.pack('<f', math.nan) * G)
    print('buf=%d,in=x.bin buf=%d,fill=0xAB,out=y.bin buf=%d,fill=0xAB,out=z.bin' %
          (4 * (M * N + G), 4 * (M * N + G), 4 * MP * NP))
    sys.exit(0)
y = open('y.bin', 'rb').read()
z = struct.unpack('<%df' % (MP * NP), open('z.bin', 'rb').read())
bad = sum(1 for i in range(M * N) if struct.unpack_from('<f', y, 4 * i)[0] != x[i])
guard = sum(1 for i in range(M * N, M * N + G) if y[4 * i:4 * i + 4] != b'\xab' * 4)
zbad = 0
for i in range(MP):
    for j in range(NP):
        want = x[i * N + j] if i < M and j < N else 0.0
        got = z[i * NP + j]
        if got != want or (want == 0.0 and math.copysign(1, got) < 0):
            zbad += 1
ok = not bad and not guard and not zbad
print('ragged %dx%d bad=%d guard=%d zfill_bad=%d %s' % (M, N, bad, guard, zbad, 'PASS' if ok else 'FAIL'))
