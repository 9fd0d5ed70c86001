"""scripts/timing_cases.py — modelled time of one standard-library operator variant at one
shape, through flyc.ops on the simulator (flyc.ops.timing, timing-only and sampled):
shared by scripts/timing-guard.py (the regression guard) and scripts/bench-timing.py
(make bench). Needs /usr/bin/python3 with torch, FLYRT_LIB naming libflyrt.so and
PYTHONPATH holding python/ (the scripts set both from FLY_BUILD / the repository).

A case is (op, variant, shape, dtype):
  mm                 shape (M, N, K), dtype bf16 (NT: a [M, K], b = [N, K]^T) or bf16:LAYOUT,
                     LAYOUT NN, TN or TT (a T: [K, M]^T; b N: [K, N])
  rms_norm           shape (rows, N), dtype bf16|f16|f32, with a weight
  rms_norm_backward  shape (rows, N), as rms_norm
  topk               shape (rows, N, k), dtype f32, largest along the last dim
  scaled_mm          shape (M, N, K), dtype mxfp8|mxfp4 (the format), bf16 out, no bias
  grouped_mm         shape (G, M, N, K): G groups of M rows (a [G M, K], b [G, K, N]), dtype bf16|f16
  attention          shape (B, H, S, D), Sq = Sk = S, dtype bf16|f16 or bf16:causal, with LSE
Work per call (for TFLOPS / TB/s): mm and scaled_mm 2MNK FLOP, grouped_mm 2GMNK; rms_norm reads x and w, writes y and rstd;
its backward reads grad_y, x, w, rstd, writes grad_x and grad_w; topk reads x, writes k
values and indices per row; attention 4 B H S^2 D FLOP (half of it causal), reads q, k, v and
writes out and lse. These are the compulsory bytes, not the kernel's traffic."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def setup(build=None):
    """Point flyc at the build's libflyrt and kernel library (before importing it)."""
    b = build or os.environ.get("FLY_BUILD", "build")
    b = b if os.path.isabs(b) else os.path.join(TOP, b)
    os.environ.setdefault("FLYRT_LIB", os.path.join(b, "libflyrt.so"))
    os.environ.setdefault("FLYC_KERNEL_DIR", os.path.join(b, "lib", "flyc", "kernels"))
    for v in ("FLY_DEVICE", "FLYC_TUNING_DB", "FLY_SIM_TIMING"):
        os.environ.pop(v, None)
    sys.path.insert(0, os.path.join(TOP, "python"))


DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}
ESIZE = {"bf16": 2, "f16": 2, "f32": 4}


def inputs(op, shape, dtype):
    """(callable, work) for one call: work = (flop, bytes)."""
    import torch
    import flyc
    g = torch.Generator().manual_seed(17)
    if op == "scaled_mm":
        M, N, K = shape
        kc = K // 2 if dtype == "mxfp4" else K
        a = torch.randint(0, 0x70, (M, kc), dtype=torch.uint8, generator=g)
        b = torch.randint(0, 0x70, (N, kc), dtype=torch.uint8, generator=g)
        sa = torch.randint(120, 134, (M, K // 32), dtype=torch.uint8, generator=g)
        sb = torch.randint(120, 134, (N, K // 32), dtype=torch.uint8, generator=g)
        return (lambda: flyc.ops.scaled_mm(a, b, sa, sb, format=dtype)), \
            (2.0 * M * N * K, (M + N) * (kc + K // 32) + M * N * 2)
    dtype, _, layout = dtype.partition(":")
    dt = getattr(torch, DTYPES[dtype])
    e = ESIZE[dtype]
    if op == "mm":
        M, N, K = shape
        la, lb = layout or "NT"
        a = torch.randn(K, M, generator=g).to(dt).t() if la == "T" else torch.randn(M, K, generator=g).to(dt)
        b = torch.randn(K, N, generator=g).to(dt) if lb == "N" else torch.randn(N, K, generator=g).to(dt).t()
        return (lambda: flyc.ops.mm(a, b)), (2.0 * M * N * K, (M * K + N * K + M * N) * e)
    if op == "grouped_mm":
        G, M, N, K = shape
        a = torch.randn(G * M, K, generator=g).to(dt)
        b = torch.randn(G, K, N, generator=g).to(dt)
        offs = torch.arange(1, G + 1, dtype=torch.int32) * M
        return (lambda: flyc.ops.grouped_mm(a, b, offs)), \
            (2.0 * G * M * N * K, (G * M * K + G * K * N + G * M * N) * e + G * 4)
    if op == "rms_norm":
        rows, n = shape
        x = torch.randn(rows, n, generator=g).to(dt)
        w = torch.randn(n, generator=g).to(dt)
        return (lambda: flyc.ops.rms_norm(x, w)), (0.0, (2 * rows * n + n) * e + rows * 4)
    if op == "rms_norm_backward":
        rows, n = shape
        x = torch.randn(rows, n, generator=g).to(dt)
        w = torch.randn(n, generator=g).to(dt)
        gy = torch.randn(rows, n, generator=g).to(dt)
        rstd = torch.rand(rows, 1, generator=g) + 0.5
        return (lambda: flyc.ops.rms_norm_backward(gy, x, w, rstd)), \
            (0.0, (3 * rows * n + 2 * n) * e + rows * 4)
    if op == "topk":
        rows, n, k = shape
        x = torch.randn(rows, n, generator=g).to(dt)
        return (lambda: flyc.ops.topk(x, k)), (0.0, rows * n * e + rows * k * (e + 8))
    if op == "attention":
        B, H, S, D = shape
        q, k, v = (torch.randn(B, H, S, D, generator=g).to(dt) for _ in range(3))
        causal = layout == "causal"
        return (lambda: flyc.ops.attention(q, k, v, causal=causal, return_lse=True)), \
            ((2.0 if causal else 4.0) * B * H * S * S * D, 4 * B * H * S * D * e + B * H * S * 4)
    raise ValueError("no case for operator %r" % op)


def modelled(op, variant, shape, dtype, sample, device="mi355x", prepared=None):
    """The flyc.ops.timing dict of one call of variant (timing-only, `sample` workgroups per
    launch), with 'flop' and 'bytes' of the call added; prepared: inputs(op, shape, dtype)
    made once for several variants. flyc.Unsupported when the variant does not take it."""
    import flyc
    call, (flop, nbytes) = prepared or inputs(op, shape, dtype)
    with flyc.ops.using_variant(variant):
        with flyc.ops.timing(device=device, sample=sample, timing_only=True) as t:
            call()
    t = dict(t)
    t["flop"], t["bytes"] = flop, nbytes
    return t


def parse_shape(s):
    return tuple(int(x) for x in s.split("x"))


def shape_text(shape):
    return "x".join(str(x) for x in shape)
