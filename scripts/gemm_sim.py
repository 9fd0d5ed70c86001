#!/usr/bin/env python3
"""scripts/gemm_sim.py — run examples/gemm_bf16.fly's code object on flyc's simulator.

usage: gemm_sim.py [--demo] [--nn] HSACO KERNEL MxNxK [MxNxK ...]

For each shape: random bf16 A (M x K) and B (N x K; with --nn, for
gemm_nn_ragged, the same B stored transposed, K x N row-major), launch through libflyrt
(python/flyrt.py, device "sim"; grid and block from the kernel's .flyc.meta),
compare C (M x N, bf16) with C = A * B^T computed here in double precision.
A and B are followed by NaN guard elements, C by guard elements that
must stay untouched (ragged kernels: no store past M x N).
A shape the kernel's `requires` rejects must raise flyrt.Unsupported (the
runtime's FLYRT_ERROR_UNSUPPORTED) and leave C untouched. A shape written
MxNxK! must be refused: it is passed with small buffers (for shapes beyond
the kernel's 4 GiB span bound, `M * K < 1 << 31`, too large to allocate), and
the refusal must name one of those bounds.
Prints one line per shape:
  PASS: gemm MxNxK max_err=E (bf16 rounding bound B)
  PASS: gemm MxNxK unsupported (requires: ...)
  FAIL: ...
(--demo: "shape MxNxK  max error E  PASS", as scripts/demo.sh prints.)
Exit status 0 when every shape passes.
The kernels take (A, B, bias, C, M, N, K, has_bias, xcds): bias is a NaN vector
passed with has_bias = 0 (never read), xcds is $FLY_XCDS (default 8: the
workgroup order of stdlib/tile_order.fly; any count gives the same C).
"""
import array
import operator
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import flyrt  # noqa: E402


GUARD = 256   # elements after each buffer (see run)
XCDS = int(os.environ.get("FLY_XCDS", "8"))


def bf16_bits(x):
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16       # round to nearest even


def bf16_val(h):
    return struct.unpack("<f", struct.pack("<I", (h & 0xFFFF) << 16))[0]


def refused(kern, M, N, K):
    """MxNxK!: the runtime must refuse the launch before it reads the buffers."""
    name = "gemm %dx%dx%d" % (M, N, K)
    a = array.array("H", [0] * 64)
    b = array.array("H", [0] * 64)
    c = array.array("H", [0xFFFF] * 64)
    try:
        kern(a, b, array.array("H", [0x7FC0] * 64), c, M, N, K, 0, XCDS)
    except flyrt.Unsupported as e:
        msg = str(e).splitlines()[0]
        if "* K < 1 << 31" not in msg:
            return False, "%s: refused, but not by the span bound: %s" % (name, msg)
        if any(x != 0xFFFF for x in c):
            return False, "%s: unsupported, but C was written" % name
        return None, "%s unsupported (%s)" % (name, msg)
    except flyrt.FlyrtError as e:
        return False, "%s: launched although M * K or N * K is not below 2^31 (%s)" % (
            name, str(e).splitlines()[0])
    return False, "%s: launched although M * K or N * K is not below 2^31" % name


def run(kern, dev, M, N, K, seed, nn=False):
    rng = random.Random(seed)
    A = [bf16_bits(rng.uniform(-1, 1)) for _ in range(M * K)]
    B = [bf16_bits(rng.uniform(-1, 1)) for _ in range(N * K)]
    Bs = [B[j * K + k] for k in range(K) for j in range(N)] if nn else B   # as stored
    # guards: NaN bf16 after A and B (a kernel reading past their ends gets
    # NaN, unless it zero-fills by predicates or buffer range checks), and
    # after C (must stay untouched: a ragged kernel may not store past M x N)
    a = array.array("H", A + [0x7FC0] * GUARD)
    b = array.array("H", Bs + [0x7FC0] * GUARD)
    c = array.array("H", [0xFFFF] * (M * N + GUARD))  # NaN pattern: unwritten elements fail
    name = "gemm %dx%dx%d" % (M, N, K)
    try:
        kern(a, b, array.array("H", [0x7FC0] * N), c, M, N, K, 0, XCDS)
    except flyrt.Unsupported as e:
        if any(x != 0xFFFF for x in c):
            return False, "%s: unsupported, but C was written" % name
        return None, "%s unsupported (%s)" % (name, str(e).splitlines()[0])
    except flyrt.FlyrtError as e:
        return False, "%s: %s" % (name, str(e).splitlines()[0])
    if any(x != 0xFFFF for x in c[M * N:]):
        return False, "%s: C's guard after its M x N elements was written" % name
    Av = [bf16_val(h) for h in A]
    Bv = [bf16_val(h) for h in B]
    Ar = [Av[i * K:(i + 1) * K] for i in range(M)]
    Br = [Bv[j * K:(j + 1) * K] for j in range(N)]
    Aa = [[abs(x) for x in r] for r in Ar]            # |a|.|b| = sum |a_k * b_k|
    Ba = [[abs(x) for x in r] for r in Br]
    maxerr = bound = 0.0
    bad = 0
    for i in range(M):
        ar, aa = Ar[i], Aa[i]
        for j in range(N):
            s = sum(map(operator.mul, ar, Br[j]))
            mag = sum(map(operator.mul, aa, Ba[j]))
            got = bf16_val(c[i * N + j])
            # one bf16 rounding of the result, plus f32 accumulation error
            tol = abs(s) * 2.0 ** -8 + mag * 2.0 ** -20 + 1e-30
            err = abs(got - s)
            maxerr = max(maxerr, err)
            bound = max(bound, tol)
            if not err <= tol:
                bad += 1
    if bad:
        return False, "%s max_err=%.4g bad=%d of %d" % (name, maxerr, bad, M * N)
    return True, "%s max_err=%.4g (bf16 rounding bound %.4g)" % (name, maxerr, bound)


def main():
    argv = sys.argv[1:]
    demo = bool(argv) and argv[0] == "--demo"
    if demo:
        argv = argv[1:]
    nn = bool(argv) and argv[0] == "--nn"
    if nn:
        argv = argv[1:]
    if len(argv) < 3:
        print(__doc__)
        return 2
    path, kname = argv[0], argv[1]
    dev = flyrt.Device("sim")
    mod = dev.load(path)
    kern = mod.kernel(kname)
    ok = True
    for n, shape in enumerate(argv[2:]):
        M, N, K = (int(x) for x in shape.rstrip("!").split("x"))
        if shape.endswith("!"):
            st, msg = refused(kern, M, N, K)
        else:
            st, msg = run(kern, dev, M, N, K, 1000 + n, nn)
        if demo:
            ok = ok and st is not False
            err = msg.split("max_err=")[1].split()[0] if "max_err=" in msg else None
            print("shape %-20s %s  %s" % (shape, "max error %.3e" % float(err) if err else
                                           "refused by requires (FLYRT_ERROR_UNSUPPORTED)",
                                           "FAIL" if st is False else "PASS"))
        elif st is False:
            ok = False
            print("FAIL: " + msg)
        else:
            print("PASS: " + msg)
        sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
