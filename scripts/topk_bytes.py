"""scripts/topk_bytes.py [--check] BUILD — global memory bytes per row of the TopK kernels
(stdlib/ops/topk.fly), counted by the simulator, against the ideal (run by
scripts/bench-topk.sh in make bench).

Each kernel runs under flyc-sim --trace=2; vector memory instructions move (active lanes)
x (their width) bytes, counted as in scripts/norm_bytes.py (its counter is reused). The
ideal per row: x read once (4 N bytes), the k values (4 k) and int64 indices (8 k)
written once. Times (modeled TB/s against MI355X's 8 TB/s) need the simulator's timing
model, which this build lacks. Radix selection (topk_f32_radix) reads x nine times (eight
counting passes and the gather) and the k values once more: about 9x the ideal. --check (tests/topk): exit 1 unless register-kernel
launches on rows not a multiple of 64 long, in a partly filled last workgroup, move
exactly the ideal bytes per row.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from norm_bytes import count  # noqa: E402


def launch(sim, co, kp, n, k, rows):
    name = "topk_f32_radix" if kp == 0 else "topk_f32_reg%d" % kp
    args = ["buf=%d" % (rows * n * 4), "buf=%d" % (rows * k * 4), "buf=%d" % (rows * k * 8),
            "i32=%d" % rows, "i32=%d" % n, "i32=%d" % k, "f32=-inf"]
    vec, sca = count(sim, co, name, args)
    return vec / rows, sca / rows, 4 * n + 12 * k


CASES = [(2, 1024, 2, 8), (4, 1000, 3, 6), (8, 4096, 8, 4), (16, 8192, 16, 4), (16, 777, 13, 5),
         (16, 8191, 9, 3), (0, 8192, 100, 2), (0, 65536, 1024, 1)]


def main():
    chk = len(sys.argv) > 1 and sys.argv[1] == "--check"
    if chk:
        del sys.argv[1]
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    b = build if os.path.isabs(build) else os.path.join(top, build)
    sim = os.path.join(b, "bin", "flyc-sim")
    co = os.path.join(b, "lib", "flyc", "kernels", "gfx950", "topk.hsaco")
    if not os.path.exists(co):
        print("bench-topk: %s not built" % co)
        return 1
    bad = []
    if not chk:
        print("%-18s %6s %4s %5s %12s %12s %7s %10s" % ("kernel", "N", "k", "rows", "bytes/row", "ideal",
                                                      "ratio", "s_load/row"))
    for kp, n, k, rows in (CASES[1:3] + CASES[4:6] if chk else CASES):
        kname = "topk_f32_radix" if kp == 0 else "topk_f32_reg%d" % kp
        got, sca, ideal = launch(sim, co, kp, n, k, rows)
        if got != ideal:
            bad.append("%s N=%d k=%d rows=%d: %g bytes a row, ideal %g" % (kname, n, k, rows, got, ideal))
        if not chk:
            print("%-18s %6d %4d %5d %12.0f %12.0f %7.3f %10.0f" % (kname, n, k, rows, got, ideal,
                                                                  got / ideal, sca))
    if chk:
        for m in bad:
            print(m)
        return 1 if bad else 0
    print("(bytes moved by vector memory instructions per row, active lanes x width; modeled "
          "TB/s needs the simulator's timing model, not in this build)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
