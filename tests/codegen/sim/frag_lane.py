"""tests/codegen/frag-lane.test: gen N writes x.bin (256 f32); check N reads out.bin and
compares with y[4l + i] = x[4l + (i + N) % 4] for i = 2, 3, y[4l] = that of lane l ^ 5,
y[4l + 1] = l ^ (N + 1)."""
import struct
import sys

n = int(sys.argv[2])
if sys.argv[1] == "gen":
    with open("x.bin", "wb") as f:
        f.write(struct.pack("<256f", *[i * 0.5 - 17 for i in range(256)]))
    sys.exit(0)
x = struct.unpack("<256f", open("x.bin", "rb").read())
y = struct.unpack("<256f", open("out.bin", "rb").read())
bad = []
for l in range(64):
    want = [x[4 * (l ^ 5) + n % 4], float(l ^ (n + 1)), x[4 * l + (2 + n) % 4], x[4 * l + (3 + n) % 4]]
    for i in range(4):
        if y[4 * l + i] != want[i]:
            bad.append((l, i, y[4 * l + i], want[i]))
print("bad", len(bad), bad[:4])
