"""scripts/norm_bytes.py [--check] BUILD — global memory bytes per row of the RMSNorm kernels
(stdlib/ops/norm.fly), counted by the simulator, against the ideal (run by
scripts/bench-norm.sh in make bench).

Each kernel runs under flyc-sim --trace=2, which prints every instruction every wave
executes with its EXEC mask. Vector memory instructions (global_*, buffer_*) move
(active lanes) x (their width) bytes; their sum over the launch, divided by the rows, is
the measured traffic per row. Scalar loads (s_load: the kernel arguments, and uniform
values such as the backward's rstd[row]) go through the scalar cache and are listed apart.
The ideal per row: forward, x read once, y written once, the weight counted once (each
row's workgroup reads it), rstd's 4 bytes; with the residual, residual read and h written
once more. Backward (rms_norm_bwd): grad_y and x read once, grad_x written once, plus the
weight read and the f32 partial sums written once per row block (rows / rpb of them).
The loop kernels (rows longer than the register kernels') read x twice by design.
Times (modeled TB/s against MI355X's 8 TB/s) need the simulator's timing model, which
this build lacks. --check (tests/norm): exit 1 unless four register-kernel launches move
exactly the ideal bytes per row.
"""
import os
import re
import subprocess
import sys

WIDTH = {"dwordx16": 64, "dwordx8": 32, "dwordx4": 16, "dwordx3": 12, "dwordx2": 8, "dword": 4, "short_d16_hi": 2, "short_d16": 2,
         "ushort": 2, "sshort": 2, "short": 2, "ubyte_d16_hi": 1, "ubyte_d16": 1, "sbyte_d16": 1,
         "ubyte": 1, "sbyte": 1, "byte_d16_hi": 1, "byte": 1}
LINE = re.compile(r"exec=([0-9a-f]+): (global|buffer|s)_(load|store|buffer_load)_(\w+)")
ES = {"bf16": 2, "f16": 2, "f32": 4}


def count(sim, co, kernel, args):
    """(vector bytes, scalar bytes) of one launch."""
    p = subprocess.run([sim, co, kernel, "--trace=2"] + args, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("%s: %s" % (kernel, p.stderr[-600:]))
    vec = sca = 0
    for m in LINE.finditer(p.stderr):
        kind, width = m.group(2), WIDTH.get(m.group(4))
        if width is None:
            raise RuntimeError("%s: unknown access width in %s" % (kernel, m.group(0)))
        if kind == "s":
            sca += width
        else:
            vec += width * bin(int(m.group(1), 16)).count("1")
    return vec, sca


def forward(sim, co, t, n, rows, residual, variant):
    es = ES[t]
    b = rows * n * es
    args = ["buf=%d" % b, "buf=%d" % (n * es), "buf=%d" % b, "buf=%d" % b, "buf=%d" % b,
            "buf=%d" % (rows * 4), "i32=%d" % rows, "i32=%d" % n, "f32=1e-5", "i32=1",
            "i32=%d" % residual]
    vec, sca = count(sim, co, variant, args)
    ideal = (3 + 2 * residual) * n * es + 4
    return vec / rows, sca / rows, ideal


def backward(sim, co, t, n, rows, rpb, variant):
    es = ES[t]
    b = rows * n * es
    nb = (rows + rpb - 1) // rpb
    np_ = (n + 3) // 4 * 4
    args = ["buf=%d" % b, "buf=%d" % b, "buf=%d" % (n * es), "buf=%d" % (rows * 4), "buf=%d" % b,
            "buf=%d" % (nb * np_ * 4), "i32=%d" % rows, "i32=%d" % n, "i32=%d" % np_, "i32=%d" % rpb,
            "i32=%d" % nb, "i32=1"]
    vec, sca = count(sim, co, variant, args)
    ideal = 3 * n * es + (n * es + n * 4) / rpb
    return vec / rows, sca / rows, ideal


def check(sim, co):
    """tests/norm: the register kernels move exactly the ideal bytes (x read once)."""
    bad = []
    for t, n, rows, size, residual in (("bf16", 3000, 3, "n4096", 1), ("f32", 1000, 2, "n2048", 0),
                                       ("bf16", 64, 17, "r16", 1)):
        got, _, ideal = forward(sim, co, t, n, rows, residual, "rms_norm_%s_%s" % (t, size))
        if got != ideal:
            bad.append("rms_norm_%s_%s N=%d: %g bytes a row, ideal %g" % (t, size, n, got, ideal))
    got, _, ideal = backward(sim, co, "bf16", 2000, 4, 2, "rms_norm_bwd_bf16_n2048")
    if got != ideal:
        bad.append("rms_norm_bwd_bf16_n2048 N=2000: %g bytes a row, ideal %g" % (got, ideal))
    for b in bad:
        print(b)
    return 1 if bad else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        del sys.argv[1]
        chk = True
    else:
        chk = False
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    b = build if os.path.isabs(build) else os.path.join(top, build)
    sim = os.path.join(b, "bin", "flyc-sim")
    co = os.path.join(b, "lib", "flyc", "kernels", "gfx950", "norm.hsaco")
    if not os.path.exists(co):
        print("bench-norm: %s not built" % co)
        return 1
    if chk:
        return check(sim, co)
    print("%-26s %-9s %6s %12s %12s %7s %10s" % ("kernel", "form", "N", "bytes/row", "ideal", "ratio",
                                                "s_load/row"))
    cases = [("bf16", 1000, 16, "n2048"), ("bf16", 4096, 4, "n4096"), ("bf16", 8192, 4, "n8192"),
             ("bf16", 16384, 2, "n16384"), ("bf16", 32768, 2, "n32768"), ("bf16", 40000, 2, "loop"),
             ("bf16", 64, 32, "r16"), ("bf16", 1001, 4, "s2048"), ("f32", 4096, 4, "n4096"),
             ("f32", 16384, 2, "n16384"), ("f16", 8192, 2, "n8192")]
    for t, n, rows, size in cases:
        v = "rms_norm_%s_%s" % (t, size)
        for residual in (0, 1):
            got, sca, ideal = forward(sim, co, t, n, rows, residual, v)
            print("%-26s %-9s %6d %12.0f %12.0f %7.3f %10.0f" % (v, "residual" if residual else "plain",
                                                                n, got, ideal, got / ideal, sca))
    for t, n, rows, rpb, size in (("bf16", 4096, 8, 4, "n4096"), ("bf16", 16384, 4, 2, "n16384"),
                                  ("f32", 8192, 4, 4, "n8192"), ("bf16", 40000, 2, 2, "loop")):
        v = "rms_norm_bwd_%s_%s" % (t, size)
        got, sca, ideal = backward(sim, co, t, n, rows, rpb, v)
        print("%-26s %-9s %6d %12.0f %12.0f %7.3f %10.0f" % (v, "rpb=%d" % rpb, n, got, ideal,
                                                            got / ideal, sca))
    print("(bytes moved by vector memory instructions per row, active lanes x width; modeled "
          "TB/s needs the simulator's timing model, not in this build)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
