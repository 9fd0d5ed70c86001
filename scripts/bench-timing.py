#!/usr/bin/python3
"""scripts/bench-timing.py [BUILD] [--quick] — modelled time of every standard-library
operator variant at PyTorch benchmark shapes on MI355X (make bench, scripts/bench-timing.sh;
docs/simulator.md "make bench").

Each (variant, shape) a variant accepts is called once through flyc.ops with the variant
forced, on the simulator with the timing model in timing-only mode (8 sampled workgroups
per launch). Printed: the modelled µs of the call (all its launches), its throughput —
TFLOPS for mm (2MNK), TB/s of compulsory bytes for the memory-bound operators — and the
share of the roofline: max(FLOP / peak FLOPS, bytes / peak bandwidth) / modelled time, with
the peaks taken from the device row (flyc-sim --timing-devices, i.e.
runtime/sim/sim_timing_params.h):
    peak_bf16_mfma = cus x simds x f16_flops x clock   (mi355x: 256 x 4 x 1024 x 2.4 GHz = 2.52 PFLOPS)
    peak_hbm       = hbm_gbps                          (mi355x: 8.0 TB/s)
    (scaled_mm: 2x the bf16 peak for MXFP8, 4x for MXFP4)
These are the model's figures, good to the calibration's error (docs/simulator.md
"Calibration"), not measurements.

Shapes (PyTorch's, /work/shared/docs/pytorch-ops.md): mm — the squares its FlyDSL GEMM
claims are stated on (2048^3, 4096^3, 8192^3) and LLM projections at 2048 tokens (N x K =
14336x4096, 4096x14336); rms_norm and its backward — the lower edges of PyTorch's bf16
perf-gate bands (M x N = 8192x32, 32768x2048, 8192x4096, 2048x8192, 512x16384, 16x32768;
the backward at 8192x32, 8192x4096, 2048x8192, 16x32768; fp32 at 8192x4096; the fp16 kernels are the bf16 ones' twins and model the same
within 1%, so they are left out); topk — the register kernels' (4096 rows x N = 4096,
k = 2, 4, 8, 16; radix selection also at k = 8) and radix selection's (64 rows x 32768,
k = 64, 256); mm also NN (b row-major) at the same shapes, and decode shapes (M = 1, 16, 64 at
N = K = 4096: split-K); scaled_mm, MXFP8 and MXFP4 with bf16
out, at 16x4096x4096 (decode), 4096^3 and 8192^3; grouped_mm, bf16, G groups of M rows x N x K =
8x512x2048x8192 (PyTorch's grouped FlyDSL claim, g8x512x2048x8192) and 4x1024x4096x4096;
attention forward (bf16, with LSE, causal and not; 4 B H S^2 D FLOP, half causal) at B=1,
H=16, S=4096 (D = 128 and 64) and 16384 (D = 128), every kernel of the head dim (the
ping-pong attn_fwd_pp_* and attn_fwd_*). --quick: one shape per operator."""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing_cases as tc  # noqa: E402

DEVICE, SAMPLE = "mi355x", 8

MM = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
      (2048, 14336, 4096), (2048, 4096, 14336)]
# decode shapes (few rows): split-K against the one-pass kernels
MM_DECODE = [(1, 4096, 4096), (16, 4096, 4096), (64, 4096, 4096)]
# the MFMA peak of MX formats against bf16's: AMD's MI355X figures (2.5 PFLOPS bf16, 5 fp8,
# 10 fp4 dense; the fp4 rate is the f4 calibration row's 4096 FLOP per SIMD and cycle)
MX_PEAK = {"mxfp8": 2, "mxfp4": 4}
# MX GEMMs: a decode shape (the 16-row tile) and two square ones
MX = [(16, 4096, 4096), (4096, 4096, 4096), (8192, 8192, 8192)]
# grouped GEMMs: (G, M per group, N, K)
GROUPED = [(8, 512, 2048, 8192), (4, 1024, 4096, 4096)]
NORM = [(8192, 32), (32768, 2048), (8192, 4096), (2048, 8192), (512, 16384), (16, 32768)]
NORM_BWD = [(8192, 32), (8192, 4096), (2048, 8192), (16, 32768)]
TOPK = [(4096, 4096, 2), (4096, 4096, 4), (4096, 4096, 8), (4096, 4096, 16),
        (64, 32768, 64), (64, 32768, 256)]
# attention forward (B, H, S, D): head dims 64 and 128 at sequence 4096 and D = 128 at 16384
# (the D = 128, S = 4K-16K rows), 16 heads of one batch
ATTN = [(1, 16, 4096, 128), (1, 16, 4096, 64), (1, 16, 16384, 128)]
# radix selection also at one register-kernel shape, for the comparison
RADIX_AT = (4096, 4096, 8)


def cases(quick):
    out = []
    for s in MM[:1] if quick else MM:
        out.append(("mm", s, "bf16"))
        out.append(("mm", s, "bf16:NN"))
    for s in [] if quick else MM_DECODE:
        out.append(("mm", s, "bf16"))
    for s in MX[:1] if quick else MX:
        out.append(("scaled_mm", s, "mxfp8"))
        out.append(("scaled_mm", s, "mxfp4"))
    for s in GROUPED[:1] if quick else GROUPED:
        out.append(("grouped_mm", s, "bf16"))
    for op, shapes in (("rms_norm", NORM), ("rms_norm_backward", NORM_BWD)):
        for s in [(8192, 4096)] if quick else shapes:
            out.append((op, s, "bf16"))
        if not quick:
            out.append((op, (8192, 4096), "f32"))
    for s in TOPK[2:3] if quick else TOPK:
        out.append(("topk", s, "f32"))
    for s in ATTN[:1] if quick else ATTN:
        out.append(("attention", s, "bf16"))
        if not quick:
            out.append(("attention", s, "bf16:causal"))
    return out


def wanted(op, variant, shape, dtype):
    if op == "mm":                        # a variant serves one layout (gemm_nt_*, gemm_nn_*, ...)
        t, _, lay = dtype.partition(":")  # and one operand dtype (_f16), output the operands'
        return (variant.split("_")[1].upper() == (lay or "NT") and ("_f16" in variant) == (t == "f16")
                and not variant.endswith("_f32"))
    if op == "scaled_mm":                 # the format's kernels, bf16 out
        return ("_%s_bf16_" % dtype[2:]) in variant
    if op.startswith("rms_norm"):
        return ("_%s_" % dtype) in variant
    if op == "grouped_mm":
        return ("_%s" % dtype) in variant
    if op == "attention":                 # the dtype's kernels of the head dim, causal or not
        causal = dtype.endswith(":causal")
        return ("_%s_d%d_" % (dtype.partition(":")[0], shape[3])) in variant + "_" and \
            variant.endswith("_causal") == causal
    if variant == "topk_f32_radix":
        return shape[2] > 16 or shape == RADIX_AT
    return True


def peaks(build):
    sim = os.path.join(build, "bin", "flyc-sim")
    rows = [json.loads(l) for l in subprocess.check_output([sim, "--timing-devices"]).decode().splitlines()]
    d = next(r for r in rows if r["name"] == DEVICE)
    return d, d["cus"] * d["simds"] * d["f16_flops"] * d["clock_mhz"] * 1e6, d["hbm_gbps"] * 1e9


def main(argv):
    quick = "--quick" in argv
    args = [a for a in argv if not a.startswith("--")]
    build = args[0] if args else os.environ.get("FLY_BUILD", "build")
    build = build if os.path.isabs(build) else os.path.join(tc.TOP, build)
    tc.setup(build)
    import flyc
    row, pflops, pbw = peaks(build)
    print("modelled on %s (%d CUs, %.0f MHz): peak_bf16_mfma %.2f PFLOPS, peak_hbm %.1f TB/s "
          "(device row, runtime/sim/sim_timing_params.h); timing-only, %d sampled workgroups per launch"
          % (DEVICE, row["cus"], row["clock_mhz"], pflops / 1e15, pbw / 1e12, SAMPLE))
    print("%-18s %-26s %-16s %-5s %10s %12s %8s" % ("op", "variant", "shape", "dtype", "us", "throughput", "roofline"))
    t0, n, best = time.time(), 0, {}
    for op, shape, dtype in cases(quick):
        prepared = tc.inputs(op, shape, dtype)
        for v in dict.fromkeys(flyc.ops.variants(op, "gfx950")):   # a name serves several keys
            if not wanted(op, v, shape, dtype):
                continue
            try:
                t = tc.modelled(op, v, shape, dtype, SAMPLE, DEVICE, prepared)
            except flyc.Unsupported:
                continue   # this variant does not take the shape
            if not t.get("total_launches"):
                continue
            us = t["total_us"]
            roof = max(t["flop"] / (pflops * MX_PEAK.get(dtype, 1)), t["bytes"] / pbw) * 1e6
            thr = ("%7.1f TFLOPS" % (t["flop"] / us / 1e6)) if t["flop"] else ("%7.2f TB/s" % (t["bytes"] / us / 1e6))
            print("%-18s %-26s %-16s %-5s %10.2f %14s %7.1f%%"
                  % (op, v, tc.shape_text(shape), dtype, us, thr, 100 * roof / us))
            sys.stdout.flush()
            k = (op, tc.shape_text(shape), dtype)
            if k not in best or us < best[k][1]:
                best[k] = (v, us)
            n += 1
    print("fastest modelled variant per call:")
    for (op, s, dt), (v, us) in best.items():
        print("  %-18s %-16s %-5s %-26s %10.2f us" % (op, s, dt, v, us))
    print("%d variant-shape pairs in %.0f s" % (n, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
