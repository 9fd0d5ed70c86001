# CPU reference for tests/codegen/fly/axpy.fly: y = a*x + y (f32).
# usage: axpy.py gen N | check N
import struct, sys
mode, N = sys.argv[1], int(sys.argv[2])
if mode == 'gen':
    open('x.bin', 'wb').write(struct.pack('<%df' % N, *[i * 0.5 for i in range(N)]))
    open('y.bin', 'wb').write(struct.pack('<%df' % N, *[1.0 + i for i in range(N)]))
else:
    y = struct.unpack('<%df' % N, open('yout.bin', 'rb').read()[:4 * N])
    bad = [i for i in range(N) if abs(y[i] - (2.0 * i * 0.5 + 1.0 + i)) > 1e-4]
    print('axpy N=%d bad=%d %s' % (N, len(bad), 'PASS' if not bad else 'FAIL'))
