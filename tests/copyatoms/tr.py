# CPU model of the gfx950 transposed LDS reads (docs/amdgpu-facts.md 3.3,
# docs/simulator-matrix.md 4): each lane reads n consecutive elements (64 bits,
# 96 for 6-bit elements) at its address; then, in each group of 16 lanes, lane
# m's element e is element m % n of lane (16/n)*e + m/n.
# The gfx1201 transposed global loads (docs/simulator-matrix.md, "gfx1201
# transposed global loads") are the same rule with groups of 8 lanes and 8
# elements per lane (128 bits of 16-bit elements or 64 bits of 8-bit ones).
# usage: tr.py IN OUT ELEM_BITS [GROUP LANE_BITS]  (lane t of the whole grid
# read elements n*t..; 4- and 6-bit elements are one little-endian bit stream,
# element i at bits ELEM_BITS*i..; GROUP lanes exchange, LANE_BITS per lane,
# by default 16 and 64 (96 for 6-bit elements))
import sys
src = open(sys.argv[1], 'rb').read()
out = open(sys.argv[2], 'rb').read()
bits = int(sys.argv[3])
group = int(sys.argv[4]) if len(sys.argv) > 4 else 16
n = (int(sys.argv[5]) if len(sys.argv) > 5 else 96 if bits == 6 else 64) // bits
lanes = len(src) * 8 // (n * bits)
S, O = int.from_bytes(src, 'little'), int.from_bytes(out, 'little')
def elem(buf, lane, e):
    return (buf >> ((lane * n + e) * bits)) & ((1 << bits) - 1)
bad = 0
for lane in range(lanes):
    g, m = lane - lane % group, lane % group
    for e in range(n):
        want = elem(S, g + (group // n) * e + m // n, m % n)
        if elem(O, lane, e) != want:
            bad += 1
            if bad <= 3:
                print('lane %d element %d: got %x want %x' % (lane, e, elem(O, lane, e), want))
print('bad', bad)
sys.exit(1 if bad else 0)
