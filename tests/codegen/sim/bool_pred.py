"""tests/codegen/bool-pred.test: gen writes x.bin (x[i] = i - 300, 1024 i32) and z.bin
(zin[i] = 7 i + 1); check LO HI reads y.bin, z_out.bin, u.bin (y and u filled 0xAB) and
compares with y[i] = x[i] + 1 where x[i] >= LO, z[i] = zin[i] where x[i] < HI else x[i],
u[i] = 2 x[i] where x[i] < HI. Thread t holds x[16 t .. 16 t + 15]: with LO = -10 and
HI = 490 some threads have every value in range, some none and one each some."""
import struct
import sys

N, POISON = 1024, struct.unpack("<i", b"\xab" * 4)[0]
x = [i - 300 for i in range(N)]
zin = [7 * i + 1 for i in range(N)]
if sys.argv[1] == "gen":
    open("x.bin", "wb").write(struct.pack("<%di" % N, *x))
    open("z.bin", "wb").write(struct.pack("<%di" % N, *zin))
    sys.exit(0)
lo, hi = int(sys.argv[2]), int(sys.argv[3])
got = {n: struct.unpack("<%di" % N, open(n + ".bin", "rb").read()) for n in ("y", "z_out", "u")}
want = {"y": [v + 1 if v >= lo else POISON for v in x],
        "z_out": [zin[i] if x[i] < hi else x[i] for i in range(N)],
        "u": [2 * v if v < hi else POISON for v in x]}
bad = [(n, i, got[n][i], want[n][i]) for n in want for i in range(N) if got[n][i] != want[n][i]]
print("bad", len(bad), bad[:4])
