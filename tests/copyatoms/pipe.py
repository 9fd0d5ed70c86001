# CPU reference for tests/copyatoms/pipe.fly: x is 256 x KT f32 (column k = tile
# k), out[i] = sum over k of x[i, k]. Small integers: every sum is exact.
# usage: pipe.py gen KT X.bin | pipe.py check KT X.bin OUT.bin
import struct, sys
kt = int(sys.argv[2])
vals = [float((i * 7 + k * 3) % 17 - 8) for k in range(kt) for i in range(256)]
if sys.argv[1] == 'gen':
    open(sys.argv[3], 'wb').write(struct.pack('<%df' % len(vals), *vals))
    sys.exit(0)
out = struct.unpack('<256f', open(sys.argv[4], 'rb').read()[:1024])
want = [sum(vals[k * 256 + i] for k in range(kt)) for i in range(256)]
bad = [i for i in range(256) if out[i] != want[i]]
print('KT', kt, 'bad', len(bad), [(i, out[i], want[i]) for i in bad[:3]])
sys.exit(1 if bad else 0)
