"""tests/ops/test_torch.py — flyc.torch with Debian's torch 1.13 on the simulator (run by
tests/ops/run.sh with /usr/bin/python3).

enable() routes torch.mm, Tensor.mm, a @ b, 2-D matmul and F.linear through flyc when
flyc.ops supports the call and PyTorch's own gate for its FlyDSL mm holds, and falls
through to ATen otherwise; stats() counts both. The conds are checked by calling them
without launching; references are computed with flyc disabled or in f64. torch.ops.flyc
operators run with autograd (gradcheck in f64 through the reference fallback).
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import flyc  # noqa: E402
import flyc.reference  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, run  # noqa: E402
import flyc.torch as ft  # noqa: E402
from flyc import reference  # noqa: E402

NAN = float("nan")

BF = torch.bfloat16



def rnd(*shape, dtype=BF, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g) * 2 - 1).to(dtype)


def bits_equal(x, y):
    return x.dtype == y.dtype and x.shape == y.shape and torch.equal(
        x.view(torch.int16) if x.dtype == BF else x, y.view(torch.int16) if y.dtype == BF else y)


def within_bound(c, a, b):
    ref = a.double() @ b.double()
    mag = a.double().abs() @ b.double().abs()
    ulp = torch.pow(2.0, torch.floor(torch.log2(ref.abs().clamp(min=2.0 ** -126))) - 7)
    return bool(((c.double() - ref).abs() <= ulp + a.shape[1] * 2.0 ** -24 * mag).all())


def t_taken():
    ft.reset_stats()
    a, w = rnd(256, 128, seed=1), rnd(256, 128, seed=2)
    want = flyc.ops.mm(a, w.t())
    launches = flyc.context().launches
    with ft.enabled():
        got = [a @ w.t(), a.mm(w.t()), torch.mm(a, w.t()), torch.matmul(a, w.t()), F.linear(a, w)]
        o = torch.empty(256, 256, dtype=BF)
        r = torch.mm(a, w.t(), out=o)
    check(r is o, "mm(out=) did not return out")
    for g in got + [o]:
        check(bits_equal(g, want), "a taken call differs from flyc.ops.mm")
    check(within_bound(want, a, w.t()), "outside the bound")
    check(ft.stats() == {"mm": {"taken": 6, "declined": 0}}, ft.stats())
    check(flyc.context().launches == launches + 6, "six calls, six launches")


def t_taken_fp16():
    # fp16 operands within PyTorch's gate run gemm.fly's f16 kernels (128x128 tiles here)
    ft.reset_stats()
    a, w = rnd(256, 128, dtype=torch.float16, seed=7), rnd(256, 128, dtype=torch.float16, seed=8)
    want = flyc.ops.mm(a, w.t())
    check(flyc.ops.plan("mm", a, w.t()) == "gemm_nt_f16_128x128", flyc.ops.plan("mm", a, w.t()))
    with ft.enabled():
        got = [a @ w.t(), F.linear(a, w)]
    for g in got:
        check(g.dtype == torch.float16 and torch.equal(g, want), "a taken fp16 call differs from flyc.ops.mm")
    ref = a.double() @ w.t().double()
    ulp = torch.pow(2.0, torch.floor(torch.log2(ref.abs().clamp(min=2.0 ** -14))) - 10)
    mag = a.double().abs() @ w.t().double().abs()
    check(bool(((want.double() - ref).abs() <= ulp + 128 * 2.0 ** -24 * mag).all()), "outside the bound")
    check(ft.stats() == {"mm": {"taken": 2, "declined": 0}}, ft.stats())


def t_declined():
    ft.reset_stats()
    a, w = rnd(128, 128, seed=3), rnd(128, 128, seed=4)
    calls = [
        ("NN", lambda: a @ w),
        ("fp32", lambda: a.float() @ w.t().float()),
        ("K % 32 (flyc would: K % 8)", lambda: rnd(128, 40) @ rnd(128, 40).t()),
        ("N % 32", lambda: a @ rnd(48, 128).t()),
        ("storage offset", lambda: rnd(129 * 128)[1:1 + 128 * 128].view(128, 128) @ w.t()),
        ("zero size", lambda: rnd(0, 128) @ w.t()),
        ("out of another shape", lambda: torch.mm(a, w.t(), out=torch.empty(0, dtype=BF))),
    ]
    with ft.enabled():
        outs = [f() for _, f in calls]
    check(ft.stats() == {"mm": {"taken": 0, "declined": len(calls)}}, ft.stats())
    # fell through to ATen: the same bits as with flyc disabled
    for (name, f), got in zip(calls, outs):
        check(bits_equal(got, f()), "%s: differs from ATen" % name)
    # 3-D matmul is bmm, not mm: neither taken nor declined
    with ft.enabled():
        rnd(2, 64, 64) @ rnd(2, 64, 64)
    check(ft.stats()["mm"]["taken"] == 0 and ft.stats()["mm"]["declined"] == len(calls), ft.stats())


def t_cond_without_launching():
    a, w = rnd(256, 128, seed=5), rnd(256, 128, seed=6)
    launches = flyc.context().launches
    out = torch.full((256, 256), float("nan"), dtype=BF)
    check(ft.mm_cond(a, w.t()) and ft.mm_cond(a, w.t(), out=out))
    check(not ft.mm_cond(a, w), "NN taken")
    check(not ft.mm_cond(a[:, :120], w[:, :120].t()), "K % 32 taken")
    check(ft.mm_gate(rnd(200, 128), w.t())[0] and ft.mm_cond(rnd(200, 128), w.t()), "ragged M declined")
    check(ft.mm_cond(a.half(), w.t().half()), "fp16 declined")
    check(ft.mm_gate(a.half(), w.t().half())[0], "fp16 is within PyTorch's gate")
    ok, why = ft.mm_gate(rnd(257 * 128)[1:1 + 256 * 128].view(256, 128), w.t())
    check(not ok and "16 bytes" in why, why)
    ok, why = ft.mm_gate(rnd(128, 136)[:, :128], w[:128].t())   # row stride 272 bytes: aligned
    check(ok, why)
    ok, why = ft.mm_gate(rnd(128, 132)[:, :128], w[:128].t())   # 264 bytes: not a multiple of 16
    check(not ok and "row stride" in why, why)
    ok, why = ft.mm_gate(a[:, :100], w[:, :100].t())
    check(not ok and "K % 32" in why, why)
    check(ft.topk_cond(torch.randn(300, 1024), 4), "topk within the gate, a register kernel")
    check(ft.topk_cond(torch.randn(256, 8192), 100), "the radix band: radix selection")
    check(not ft.topk_cond(torch.randn(256, 4096), 100), "outside the bands: ATen")
    check(ft.topk_gate(torch.randn(300, 1024), 4)[0], "topk within PyTorch's gate")
    check(not ft.topk_gate(torch.randn(100, 1024), 4)[0], "fewer rows than CUs")
    check(not ft.topk_gate(torch.randn(300, 1000), 4)[0], "N not a power of two")
    check(not ft.topk_gate(torch.randn(300, 1024), 4, largest=False)[0])
    check(ft.topk_gate(torch.randn(256, 8192), 100)[0], "radix band")
    check(flyc.context().launches == launches and bool(torch.isnan(out.float()).all()),
          "a cond launched or wrote")


def t_topk_taken():
    ft.reset_stats()
    x = torch.randn(300, 1024)
    x[7, 100] = NAN
    x[9, :] = 2.0
    with ft.enabled():
        v, i = torch.topk(x, 4)
        vo, io = torch.empty(0), torch.empty(0, dtype=torch.int64)
        r = torch.topk(x, 16, out=(vo, io))
        y = torch.randn(300, 1000)            # N not a power of two: outside the gate
        v3, i3 = torch.topk(y, 4)
    v2, i2 = torch.topk(x, 4)
    rv, ri = reference.topk(x, 16)
    check(torch.equal(v.view(torch.int32), rv[:, :4].contiguous().view(torch.int32)) and
          torch.equal(i, ri[:, :4]), "torch.topk through flyc = the stable reference")
    check(torch.equal(v2.view(torch.int32), v.view(torch.int32)), "ATen's values, bitwise")
    check(r[0] is vo and vo.shape == (300, 16) and torch.equal(vo.view(torch.int32), rv.view(torch.int32))
          and torch.equal(io, ri), "out= resized and written")
    check(torch.equal(v3, torch.topk(y, 4)[0]), "declined call = ATen")
    check(ft.stats() == {"topk": {"taken": 2, "declined": 1}}, ft.stats())


def t_enable_disable():
    ft.reset_stats()
    a, w = rnd(128, 64, seed=7), rnd(128, 64, seed=8)
    ft.enable()
    ft.enable()                      # idempotent
    check(ft.is_enabled())
    a @ w.t()
    ft.disable()
    ft.disable()
    check(not ft.is_enabled())
    a @ w.t()
    check(ft.stats() == {"mm": {"taken": 1, "declined": 0}}, ft.stats())


def t_autograd():
    ft.reset_stats()
    a0, w0 = rnd(128, 64, seed=9), rnd(128, 64, seed=10)
    a, w = a0.clone().requires_grad_(True), w0.clone().requires_grad_(True)
    with ft.enabled():
        (a @ w.t()).float().sum().backward()
    # forward NT taken; backward: grad_a = g @ w (NN: declined), grad_w = g^T @ a (TN: declined)
    st = ft.stats()["mm"]
    check(st["taken"] >= 1 and st["taken"] + st["declined"] == 3, st)
    ar, wr = a0.clone().requires_grad_(True), w0.clone().requires_grad_(True)
    (ar @ wr.t()).float().sum().backward()
    check(bits_equal(a.grad, ar.grad) and bits_equal(w.grad, wr.grad), "gradients differ")


def t_ops_flyc():
    ft.reset_stats()
    x = torch.randn(3, 8, dtype=torch.float64, requires_grad=True)
    w = torch.randn(8, dtype=torch.float64, requires_grad=True)
    r = torch.randn(3, 8, dtype=torch.float64, requires_grad=True)
    check(torch.autograd.gradcheck(lambda x, w: torch.ops.flyc.rms_norm(x, w, 1e-6)[0], (x, w)))
    check(torch.autograd.gradcheck(lambda x, r, w: torch.ops.flyc.rms_norm_residual(x, r, w, 1e-6)[0],
                                   (x, r, w)))
    check(torch.autograd.gradcheck(lambda x: torch.ops.flyc.rms_norm(x, None)[0], (x,)))
    q = torch.randn(1, 4, 5, 8, dtype=torch.float64, requires_grad=True)
    k = torch.randn(1, 2, 6, 8, dtype=torch.float64, requires_grad=True)
    v = torch.randn(1, 2, 6, 3, dtype=torch.float64, requires_grad=True)
    for causal in (False, True):
        check(torch.autograd.gradcheck(lambda q, k, v: torch.ops.flyc.attention(q, k, v, causal, None)[0],
                                       (q, k, v)))
    y, rstd = torch.ops.flyc.rms_norm(x.detach().float(), w.detach().float())
    check(rstd.shape == (3, 1) and rstd.dtype == torch.float32)
    a = torch.randint(0, 256, (32, 64), dtype=torch.uint8)
    b = torch.randint(0, 256, (16, 64), dtype=torch.uint8)
    s = torch.full((32, 2), 127, dtype=torch.uint8)
    c = torch.ops.flyc.scaled_mm(a, b, s, s[:16], "mxfp8")
    check(c.shape == (32, 16) and c.dtype == BF)
    # K % 128 == 0 and N % 32 == 0: flyc's kernel (stdlib/ops/scaled_mm.fly), the reference's bits
    a, b = torch.randint(0, 256, (3, 64), dtype=torch.uint8), torch.randint(0, 256, (32, 64), dtype=torch.uint8)
    s = torch.full((35, 4), 127, dtype=torch.uint8)
    c = torch.ops.flyc.scaled_mm(a, b, s[:3], s[3:], "mxfp4", torch.float16)
    check(torch.equal(c, flyc.reference.scaled_mm(a, b, s[:3], s[3:], "mxfp4", torch.float16)))
    g = torch.ops.flyc.grouped_mm(rnd(10, 32), rnd(3, 32, 16), torch.tensor([4, 4, 10], dtype=torch.int32))
    check(g.shape == (10, 16))
    # N % 32 == 0: flyc's kernel (stdlib/ops/grouped_mm.fly), within rounding of the reference
    ga, gb, go = rnd(10, 32), rnd(3, 32, 32), torch.tensor([4, 4, 9], dtype=torch.int32)
    g = torch.ops.flyc.grouped_mm(ga, gb, go)
    check(float((g[:9].double() - flyc.reference.grouped_mm(ga, gb, go)[:9].double()).abs().max()) < 0.1)
    st = ft.stats()
    # f64 (gradcheck) has no kernel: the reference; the f32 rms_norm ran flyc's kernel
    check(st["rms_norm"]["taken"] == 1 and st["rms_norm"]["declined"] > 0, st)
    for op in ("rms_norm_backward", "attention", "attention_backward"):
        check(op in st and st[op]["taken"] == 0 and st[op]["declined"] > 0, (op, st))
    check(st["grouped_mm"] == {"taken": 1, "declined": 1}, st)
    check(st["scaled_mm"] == {"taken": 1, "declined": 1}, st)
    # zero sizes are served by flyc itself (no kernel needed): taken
    ft.reset_stats()
    torch.ops.flyc.rms_norm(torch.zeros(0, 8), None)
    check(ft.stats()["rms_norm"] == {"taken": 1, "declined": 0}, ft.stats())


def t_rms_norm_autograd():
    # torch.ops.flyc.rms_norm(_residual) in f32 and bf16: flyc's kernels forward and backward,
    # gradients as the f64 reference's autograd gives them
    for dt, tol in ((torch.float32, 1e-5), (BF, 3e-2)):
        ft.reset_stats()
        g = torch.Generator().manual_seed(3)
        x0 = torch.randn(6, 200, generator=g).to(dt)
        r0 = torch.randn(6, 200, generator=g).to(dt)
        w0 = torch.randn(200, generator=g).to(dt)
        gy = torch.randn(6, 200, generator=g).to(dt)
        x, r, w = (t.clone().requires_grad_(True) for t in (x0, r0, w0))
        y, rstd, h = torch.ops.flyc.rms_norm_residual(x, r, w, 1e-6)
        y.backward(gy)
        st = ft.stats()
        check(st["rms_norm"] == {"taken": 1, "declined": 0} and
              st["rms_norm_backward"] == {"taken": 1, "declined": 0}, st)
        xd, rd, wd = (t.double().requires_grad_(True) for t in (x0, r0, w0))
        hr = (x0.float() + r0.float()).to(dt).double()                 # h as rounded, gradient 1
        hd = (xd + rd) + (hr - (xd + rd)).detach()
        yd = hd * torch.rsqrt((hd * hd).mean(-1, keepdim=True) + 1e-6) * wd
        yd.backward(gy.double())
        for a, b, n in ((x.grad, xd.grad, "x"), (r.grad, rd.grad, "residual"), (w.grad, wd.grad, "weight")):
            err = float(((a.double() - b).abs() / b.abs().max()).max())
            check(err < tol, "%s: grad %s relative error %g" % (dt, n, err))


def t_rms_norm_gate():
    def gate(m, n, dt=BF, w=True, **kw):
        x = torch.empty(m, n, dtype=dt)
        return ft.rms_norm_gate(x, [n], torch.empty(n, dtype=kw.get("wdt", dt)) if w else None, 1e-6)[0]
    # PyTorch's measured bands (docs/pytorch-ops.md §1.3), both sides of each edge
    for m, n, want in ((8192, 4096, True), (8191, 4096, False), (8192, 4095, False), (4096, 8191, False),
                       (4096, 8192, True), (4095, 8192, False), (4096, 16383, True), (2048, 16384, True),
                       (2047, 16384, False), (2048, 114688, True), (2048, 114689, False)):
        check(gate(m, n) == want, (m, n, want))
    check(gate(8192, 4096, dt=torch.float32) and gate(8192, 4096, dt=torch.float16))
    check(not gate(8192, 4096, dt=torch.float64), "f64")
    check(not gate(8192, 4096, w=False), "no weight: PyTorch's gate declines")
    check(not gate(8192, 4096, wdt=torch.float32), "a weight of another dtype")
    x = torch.empty(8192, 4096, dtype=BF)
    w = torch.empty(4096, dtype=BF)
    check(not ft.rms_norm_gate(x.t(), [8192], torch.empty(8192, dtype=BF))[0], "not contiguous")
    check(not ft.rms_norm_gate(x, [8192, 4096], w)[0], "2-D normalized_shape")
    check(not ft.rms_norm_gate(x, [4096], w, -1.0)[0], "eps < 0")
    launches = flyc.context().launches
    check(ft.rms_norm_cond(x, [4096], w, 1e-6) and not ft.rms_norm_cond(x[:16], [4096], w, 1e-6))
    check(flyc.context().launches == launches, "a cond launched")
    has = hasattr(torch.ops.aten, "_fused_rms_norm")
    check(has == any(getattr(k, "name", lambda: "")() == "aten::_fused_rms_norm" for k in ft._HANDLERS),
          "aten::_fused_rms_norm is routed exactly when torch has it")


def main():
    tests = [("flyc.torch: NT matrix products are taken", t_taken),
             ("flyc.torch: fp16 NT matrix products are taken", t_taken_fp16),
             ("flyc.torch: other calls fall through to ATen", t_declined),
             ("flyc.torch: conds decide without launching", t_cond_without_launching),
             ("flyc.torch: torch.topk taken (functional, out=) within the gate, else ATen", t_topk_taken),
             ("flyc.torch: enable and disable", t_enable_disable),
             ("flyc.torch: autograd", t_autograd),
             ("flyc.torch: torch.ops.flyc with autograd", t_ops_flyc),
             ("flyc.torch: torch.ops.flyc.rms_norm runs flyc's kernels, with autograd", t_rms_norm_autograd),
             ("flyc.torch: PyTorch's RMSNorm gate", t_rms_norm_gate)]
    return run("ops", tests)


if __name__ == "__main__":
    sys.exit(main())
