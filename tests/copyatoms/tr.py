# CPU model of the gfx950 transposed LDS reads (docs/amdgpu-facts.md 3.3): each
# lane reads n consecutive elements (64 bits) at its address; then, in each
# group of 16 lanes, lane m's element e is element m % n of lane (16/n)*e + m/n.
# usage: tr.py IN OUT ELEM_BYTES  (lane t of the whole grid read elements n*t..)
import sys
src = open(sys.argv[1], 'rb').read()
out = open(sys.argv[2], 'rb').read()
eb = int(sys.argv[3])
n = 8 // eb
lanes = len(src) // 8
def elem(buf, lane, e):
    o = (lane * n + e) * eb
    return buf[o:o + eb]
bad = 0
for lane in range(lanes):
    g, m = lane - lane % 16, lane % 16
    for e in range(n):
        want = elem(src, g + (16 // n) * e + m // n, m % n)
        if elem(out, lane, e) != want:
            bad += 1
            if bad <= 3:
                print('lane %d element %d: got %s want %s' % (lane, e, elem(out, lane, e).hex(), want.hex()))
print('bad', bad)
sys.exit(1 if bad else 0)
