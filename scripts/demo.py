"""scripts/demo.py — the `make demo` run (called by scripts/demo.sh).

usage: python3 scripts/demo.py CODE_OBJECT
Launches examples/elementwise.fly's scale_add (out = alpha * x + y in bf16) through
python/flyrt.py on the simulator, on a few shapes (ragged ones included), with the
kernel's own grid formula from .flyc.meta, and compares with a CPU reference.
Prints one line per shape: the shape, the max error, PASS or FAIL; exit status 1 on
any FAIL. To demo another kernel, change KERNEL, SHAPES, TOLERANCE, make_args() and
reference() (e.g. examples/gemm_bf16.fly: shapes (M, N, K), a matrix product).
"""
import array
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import flyrt  # noqa: E402

KERNEL = "scale_add"
SHAPES = [(4096,), (1000,), (2049,), (65539,)]
TOLERANCE = 1.0 / 128   # relative: one bf16 ulp (the kernel may use an fma)
ALPHA = 1.5


def bf16(x):
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def f32(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def make_args(shape, rnd):
    (n,) = shape
    x = array.array("H", (bf16(rnd.uniform(-4, 4)) for _ in range(n)))
    y = array.array("H", (bf16(rnd.uniform(-4, 4)) for _ in range(n)))
    out = array.array("H", [0] * n)
    return (x, y, out, ALPHA, n), out


def reference(args):
    x, y, _, alpha, n = args
    return [f32(bf16(alpha * f32(x[i]) + f32(y[i]))) for i in range(n)]


def main():
    dev = flyrt.Device("sim")
    k = dev.load(sys.argv[1]).kernel(KERNEL)
    rnd = random.Random(1)
    failed = 0
    for shape in SHAPES:
        args, out = make_args(shape, rnd)
        k(*args)   # grid from the kernel's formula in .flyc.meta
        ref = reference(args)
        maxerr, bad = 0.0, 0
        for i, r in enumerate(ref):
            e = abs(f32(out[i]) - r)
            maxerr = max(maxerr, e)
            bad += e > abs(r) * TOLERANCE
        ok = bad == 0
        failed += not ok
        print("shape %-20s max error %.3e  %s" % ("x".join(map(str, shape)), maxerr, "PASS" if ok else "FAIL"))
    dev.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
