# CPU reference for examples/transpose.fly: dst (N x M) = src (M x N)^T, bf16 bits.
# usage: tr.py M N gen|check
import struct, sys
M, N = int(sys.argv[1]), int(sys.argv[2])
if sys.argv[3] == 'gen':
    open('ts.bin', 'wb').write(struct.pack('<%dH' % (M * N), *[(i * 7 + 3) & 0x7FFF for i in range(M * N)]))
else:
    s = struct.unpack('<%dH' % (M * N), open('ts.bin', 'rb').read())
    d = struct.unpack('<%dH' % (M * N), open('td.bin', 'rb').read())
    bad = sum(1 for m in range(M) for n in range(N) if d[n * M + m] != s[m * N + n])
    print('transpose M=%d N=%d bad=%d %s' % (M, N, bad, 'PASS' if bad == 0 else 'FAIL'))
