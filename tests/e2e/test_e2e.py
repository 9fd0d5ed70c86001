"""test_e2e.py: flyc-compiled examples through the Python binding on the simulator.

usage: python3 test_e2e.py ELEMENTWISE.hsaco REDUCTION.hsaco   (FLYRT_LIB names libflyrt.so)
Launches with the kernels' own grid formulas (.flyc.meta) on several sizes, ragged ones
included, against CPU references computed here. Prints PASS:/FAIL: lines.
"""
import array
import os
import struct
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import flyrt  # noqa: E402

failures = 0


def check(name, fn):
    global failures
    try:
        fn()
        print("PASS: py e2e: " + name)
    except Exception:
        failures += 1
        print("FAIL: py e2e: " + name)
        for line in traceback.format_exc().splitlines()[-6:]:
            print("    " + line)


def bf16(x):
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def f32_of_bf16(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


ew_path, red_path = sys.argv[1], sys.argv[2]
dev = flyrt.Device("sim")
ew = dev.load(ew_path).kernel("scale_add")
red = dev.load(red_path).kernel("row_sum")


def t_ew(n, alpha):
    def run():
        x = array.array("H", (bf16((i % 37) * 0.125 - 2.0) for i in range(n)))
        y = array.array("H", (bf16(((i * 7) % 19) - 9.0) for i in range(n)))
        out = array.array("H", [0xABAB] * (n + 8))
        ew(x, y, out, alpha, n)
        bad = 0
        for i in range(n):
            ref = f32_of_bf16(bf16(f32(f32(alpha * f32_of_bf16(x[i])) + f32_of_bf16(y[i]))))
            if abs(f32_of_bf16(out[i]) - ref) > abs(ref) / 128.0:
                bad += 1
        assert bad == 0, "%d of %d values differ" % (bad, n)
        assert all(v == 0xABAB for v in out[n:]), "wrote beyond N"
    return run


def t_red(r, c):
    def run():
        g = (r + 3) // 4
        x = array.array("f", (float((i * 5) % 13 - 6) for i in range(r * c)))
        out = array.array("f", [0.0] * r)
        rm = array.array("f", [0.0] * g)
        red(x, out, rm, r, c, g)
        for i in range(r):
            assert out[i] == sum(x[i * c:(i + 1) * c]), "row %d: %g" % (i, out[i])
    return run


def t_unsupported():
    x = array.array("f", [1.0] * 400)
    out = array.array("f", [7.0] * 4)
    rm = array.array("f", [7.0])
    try:
        red(x, out, rm, 4, 100, 1)
    except flyrt.Unsupported as e:
        assert "C % 64 == 0" in str(e), str(e)
        assert list(out) == [7.0] * 4, "launched anyway"
        return
    raise AssertionError("C=100 was launched; requires C % 64 == 0 should decline it")


for n in (1, 255, 2048, 2050, 6000):
    check("elementwise N=%d matches the CPU" % n, t_ew(n, 1.25))
for r, c in ((1, 64), (6, 192), (9, 128)):
    check("row_sum R=%d C=%d matches the CPU" % (r, c), t_red(r, c))
check("row_sum with C=100 raises flyrt.Unsupported", t_unsupported)
check("metadata: requires text and block", lambda: (
    red.info["requires"] == ["C % 64 == 0"] or (_ for _ in ()).throw(AssertionError(red.info["requires"]))))
dev.close()
sys.exit(1 if failures else 0)
