"""tests/codegen/float-bits.test: gen writes x.bin (64 f32: signed zeros, infinities, NaNs
of both signs, denormals, ordinary values); check compares out.bin with x's bits."""
import struct
import sys

if sys.argv[1] == "gen":
    vals = [0.0, -0.0, float("inf"), -float("inf"), 1e-45, -1e-45, 1.5, -2.25]
    raw = [struct.pack("<f", v) for v in vals] + [struct.pack("<I", 0x7fc00001), struct.pack("<I", 0xffc00000)]
    raw += [struct.pack("<f", i * 0.37 - 11) for i in range(64 - len(raw))]
    open("x.bin", "wb").write(b"".join(raw))
    sys.exit(0)
x = struct.unpack("<64I", open("x.bin", "rb").read())
y = struct.unpack("<64I", open("out.bin", "rb").read())
print("bad", sum(a != b for a, b in zip(x, y)))
