# Round-trip check for tests/codegen/fly/retile_c.fly: N f32 values in x.bin
# (seeded, finite, distinct) must come back unchanged in y.bin.
# usage: same.py gen N | check N
import random, struct, sys
mode, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(n)
x = [rng.uniform(-1000, 1000) for _ in range(n)]
if mode == 'gen':
    open('x.bin', 'wb').write(struct.pack('<%df' % n, *x))
    sys.exit(0)
want = open('x.bin', 'rb').read()
got = open('y.bin', 'rb').read()
bad = [i for i in range(n) if got[4 * i:4 * i + 4] != want[4 * i:4 * i + 4]]
print('roundtrip n=%d bad=%d%s %s' % (n, len(bad), ' first=%d' % bad[0] if bad else '', 'PASS' if not bad else 'FAIL'))
