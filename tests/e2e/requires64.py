"""requires64.py: a requires predicate evaluated without wrapping (FLYRT_LIB names libflyrt.so).

usage: python3 requires64.py MARK.hsaco   (tests/e2e/requires64.fly compiled for gfx950)
The kernel requires M * N * K <= 2^40 and writes M + N + K to out[0..63].
The runtime must evaluate the product exactly: within the bound the kernel runs;
past it, even when the 64-bit product wraps to a small value, the launch is
refused with FLYRT_ERROR_UNSUPPORTED and nothing is written; a product outside
int64 makes the predicate false whatever its sign. Prints PASS:/FAIL: lines.
"""
import array
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import flyrt  # noqa: E402

kern = flyrt.Device("sim").load(sys.argv[1]).kernel("mark")
failures = 0
cases = [
    # (M, N, K, runs): the exact product decides, never its value modulo 2^64
    (1 << 20, 1 << 10, 1 << 10, True),           # 2^40: at the bound
    (1000, 1000, 1000, True),
    ((1 << 20) + 1, 1 << 10, 1 << 10, False),    # just past it
    (1 << 22, 1 << 21, 1 << 21, False),          # 2^64: wraps to 0
    ((1 << 31) - 1, (1 << 31) - 1, (1 << 31) - 1, False),
    (-(1 << 22), 1 << 21, 1 << 21, False),       # -2^64 is outside int64: false, not wrapped
    (1 << 22, -(1 << 21), -(1 << 21) - 1, False),
]
for m, n, k, runs in cases:
    out = array.array("i", [-7] * 64)
    name = "requires M * N * K <= 1 << 40 with %d, %d, %d: %s" % (m, n, k, "runs" if runs else "refused")
    try:
        kern(out, m, n, k)
        ok = runs and all(v == ((m + n + k + 2**31) % 2**32) - 2**31 for v in out)
        why = "ran" + ("" if runs else " past the bound") + ", out[0] = %d" % out[0]
    except flyrt.Unsupported as e:
        ok = not runs and all(v == -7 for v in out)
        why = str(e).splitlines()[0]
    except flyrt.FlyrtError as e:
        ok, why = False, str(e).splitlines()[0]
    print(("PASS: " if ok else "FAIL: ") + "py e2e: " + name)
    if not ok:
        failures += 1
        print("    " + why)
sys.exit(1 if failures else 0)
