"""tests/codegen/shift.test: inputs (gen) and the check of shift.fly's output.
x: 64 i32 (negatives, INT_MIN, -1, 0, positives); u: the same bits as u32."""
import struct, sys
X = [-(1 << 31), -1, 0, 1, 7, -7, 1000, -1000] + [(i * 2654435761) % (1 << 32) - (1 << 31) for i in range(56)]
if sys.argv[1] == 'gen':
    open('x.bin', 'wb').write(struct.pack('<64i', *X))
    open('u.bin', 'wb').write(struct.pack('<64i', *X))
    sys.exit(0)
s = int(sys.argv[2])
y = struct.unpack('<192i', open('out.bin', 'rb').read())
bad = 0
for i, v in enumerate(X):
    want = [v >> s, ((v & 0xffffffff) >> s) - (1 << 32 if ((v & 0xffffffff) >> s) >> 31 else 0), (-1000 >> 3) + (v >> 31)]
    for k in range(3):
        if y[64 * k + i] != want[k]:
            bad += 1
            if bad <= 3:
                print('element %d part %d: got %d want %d' % (i, k, y[64 * k + i], want[k]))
print('bad', bad)
