"""tests/attention/attn_bwd.py — flyc.ops.attention_backward (stdlib/ops/attention_bwd.fly:
Delta, dK/dV and dQ kernels) on the simulator (run by tests/attention/run.sh with
/usr/bin/python3: Debian's torch).

Each case draws q, k, v and dO in the dtype, runs the f32 reference forward
(flyc.reference.attention) with autograd, and passes O and LSE of that reference (O rounded to
the dtype) to the kernels; dQ, dK and dV must match torch autograd of the f32 reference within
a tolerance relative to each gradient's largest magnitude (bf16 1.5e-2, fp16 3e-3; measured:
about 0.4% and 0.06%), with no NaN. Every input is a view into NaN-filled storage (compact
[B, H, S, D], or the transposed view of a [B, S, H, D] tensor), and the gradients are written
through grads= into NaN-filled storage whose guards must stay untouched; rows past Sq or Sk of
the NaN-padded inputs are never read (a read would turn a gradient into NaN).
The matrix (pairwise over dtype, head dim, causal, Sq vs Sk, GQA ratio, layout, ragged lengths):
CASES below; FLY_SLOW=1 runs the full product of a wider set; FLY_SAN=1 (sanitized libflyrt) one
shape per kernel. Also: no kernel uses scratch (flyrt-info), refusals (head dims, D != Dv, non-unit last dim, dk or dv over an input), determinism and one run
under FLY_SIM_RACECHECK=1. Prints PASS:/FAIL: lines.
"""
import itertools
import os
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "ops"))
import flyc  # noqa: E402
from flyc import reference  # noqa: E402
from harness import check, raises, run  # noqa: E402

SAN = os.environ.get("FLY_SAN") == "1"
SLOW = os.environ.get("FLY_SLOW") == "1"
BF, F16 = torch.bfloat16, torch.float16
TOL = {BF: 1.5e-2, F16: 3e-3}
GUARD = 29   # NaN elements before and after each tensor

# (dtype, B, Hq, Hkv, Sq, Sk, D, causal, layout): a pairwise cover of dtype x D x causal x
# (Sq < = > Sk) x GQA (1:1, 2:1, 8:1, MQA) x layout, lengths mostly not tile multiples
CASES = [
    (BF, 1, 2, 2, 40, 40, 64, False, "bhsd"),
    (BF, 2, 4, 2, 33, 70, 64, True, "bshd"),
    (F16, 1, 8, 1, 70, 33, 64, True, "bhsd"),
    (F16, 1, 2, 1, 64, 64, 64, False, "bshd"),
    (BF, 1, 8, 1, 65, 100, 128, False, "bhsd"),
    (F16, 2, 2, 2, 100, 65, 128, True, "bshd"),
    (BF, 1, 4, 2, 17, 17, 128, True, "bhsd"),
    (F16, 1, 4, 1, 50, 90, 32, False, "bhsd"),
    (BF, 1, 2, 1, 96, 31, 32, True, "bshd"),
    (BF, 1, 2, 2, 37, 50, 256, True, "bhsd"),
    (F16, 1, 4, 2, 50, 37, 256, False, "bshd"),
    (F16, 1, 2, 2, 1, 45, 64, False, "bhsd"),      # Sq = 1
    (BF, 1, 4, 2, 45, 70, 512, True, "bshd"),
    (F16, 1, 8, 1, 70, 33, 512, False, "bhsd"),
    (F16, 1, 2, 2, 40, 40, 512, True, "bhsd"),
    (BF, 1, 2, 1, 64, 64, 512, False, "bhsd"),     # tile multiples
]
if SLOW:
    CASES = [(dt, 1, hq, hkv, sq, sk, d, c, lay)
             for dt, d, c, (sq, sk), (hq, hkv), lay in itertools.product(
                 (BF, F16), (32, 64, 128, 256, 512), (False, True), ((40, 40), (33, 70), (70, 33), (64, 128)),
                 ((2, 2), (4, 2), (8, 1)), ("bhsd", "bshd"))]
if SAN:
    CASES = [(BF, 1, 2, 1, 33, 40, d, True, "bshd") for d in (32, 64, 128, 256, 512)] + \
            [(F16, 1, 2, 2, 40, 33, d, False, "bhsd") for d in (32, 64, 128, 256, 512)]


def guarded(x, layout):
    """x [B, H, S, D] as a view into NaN storage: compact, or the transposed view of a
    [B, S, H, D] tensor; returns (view, storage)."""
    shape = x.shape if layout == "bhsd" else (x.shape[0], x.shape[2], x.shape[1], x.shape[3])
    buf = torch.full((x.numel() + 2 * GUARD,), float("nan"), dtype=x.dtype)
    v = buf[GUARD:GUARD + x.numel()].view(shape)
    if layout == "bshd":
        v = v.transpose(1, 2)
    v.copy_(x)
    return v, buf


def guards_nan(buf):
    return bool(torch.isnan(buf[:GUARD].float()).all() and torch.isnan(buf[-GUARD:].float()).all())


def one(dt, B, Hq, Hkv, Sq, Sk, D, causal, layout, seed=0, scale=None):
    g = torch.Generator().manual_seed(seed)
    q, do = (torch.randn(B, Hq, Sq, D, generator=g).to(dt) for _ in range(2))
    k, v = (torch.randn(B, Hkv, Sk, D, generator=g).to(dt) for _ in range(2))
    qf, kf, vf = (x.float().requires_grad_() for x in (q, k, v))
    o, lse = reference.attention(qf, kf, vf, causal=causal, scale=scale)
    o.backward(do.float())
    ins = [guarded(x, layout) for x in (do, q, k, v, o.detach().to(dt))]
    lse_buf = torch.full((lse.numel() + 2 * GUARD,), float("nan"))
    lse_v = lse_buf[GUARD:GUARD + lse.numel()].view(lse.shape)
    lse_v.copy_(lse.detach())
    outs = [guarded(torch.full_like(x, float("nan")), layout) for x in (q, k, v)]
    before = [b.clone() for _, b in ins] + [lse_buf.clone()]
    flyc.ops.attention_backward(*[x for x, _ in ins], lse_v, causal=causal, scale=scale,
                                grads=[x for x, _ in outs])
    name = "%s B%d Hq%d Hkv%d Sq%d Sk%d D%d %s %s scale %s" % (
        str(dt)[6:], B, Hq, Hkv, Sq, Sk, D, "causal" if causal else "full", layout, scale)
    check(all(torch.equal(b1.view(torch.int16), b0.view(torch.int16))
              for (_, b1), b0 in zip(ins, before[:5])) and
          torch.equal(lse_buf.view(torch.int32), before[5].view(torch.int32)), name + ": inputs changed")
    for (got, buf), want, n in zip(outs, (qf.grad, kf.grad, vf.grad), ("dq", "dk", "dv")):
        check(guards_nan(buf), "%s: %s's guards written" % (name, n))
        check(not torch.isnan(got.float()).any(), "%s: %s has NaN" % (name, n))
        err = float((got.float() - want).abs().max() / want.abs().max().clamp(min=1e-6))
        check(err <= TOL[dt], "%s: %s relative error %.2e > %.1e" % (name, n, err, TOL[dt]))
    return outs


def t_cases():
    for c in CASES:
        one(*c)


def t_causal_rows_past_keys():
    # causal with Sq > Sk: the rows below the last key see every key; Sk < 32 (one key tile)
    one(BF, 1, 2, 2, 80, 20, 64, True, "bhsd", seed=4)


def t_scale():
    # an explicit softmax scale (dQ and dK carry it once more than dV)
    one(BF, 1, 2, 1, 40, 50, 64, True, "bshd", seed=2, scale=0.3)
    one(F16, 1, 2, 2, 50, 40, 128, False, "bhsd", seed=3, scale=0.02)


def t_refusals():
    q = torch.randn(1, 2, 8, 48).to(BF)
    lse = torch.zeros(1, 2, 8)
    raises(flyc.Unsupported, lambda: flyc.ops.attention_backward(q, q, q, q, q, lse), "head dim 48")
    for d in (96, 320, 384, 448, 544):   # between the kernels' head dims, and past 512
        q = torch.randn(1, 2, 8, d).to(BF)
        raises(flyc.Unsupported, lambda: flyc.ops.attention_backward(q, q, q, q, q, lse),
               "head dim %d" % d, "256 and 512", "do not mask")
    q = torch.randn(1, 2, 8, 64).to(BF)
    v = torch.randn(1, 2, 8, 32).to(BF)
    o = torch.randn(1, 2, 8, 32).to(BF)
    raises(flyc.Unsupported, lambda: flyc.ops.attention_backward(o, q, q, v, o, lse), "Dv = 32")
    # dk written over q (which the dQ kernel reads after dK): refused, nothing written
    k = torch.randn(1, 2, 8, 64).to(BF)
    q0 = q.clone()
    dq, dv = torch.full_like(q, float("nan")), torch.full_like(q, float("nan"))
    raises(flyc.Unsupported, lambda: flyc.ops.attention_backward(q, q, k, k, q, lse, grads=(dq, q, dv)),
           "dk overlaps q")
    check(torch.equal(q.view(torch.int16), q0.view(torch.int16)) and torch.isnan(dq.float()).all(),
          "a refused call wrote")
    qs = torch.randn(1, 2, 64, 8).to(BF).transpose(2, 3)   # last dim not unit-stride
    raises(flyc.Unsupported, lambda: flyc.ops.attention_backward(qs, qs, qs, qs, qs, lse), "strided")


def t_deterministic():
    a = one(F16, 1, 4, 1, 45, 70, 64, False, "bhsd", seed=7)
    b = one(F16, 1, 4, 1, 45, 70, 64, False, "bhsd", seed=7)
    for (x, _), (y, _) in zip(a, b):
        check(torch.equal(x.view(torch.int16), y.view(torch.int16)), "two runs differ")


def t_race_free():
    # the LDS staging (operands, P^T / dS^T, lse and Delta) under the simulator's race check
    # (FLY_SIM_RACECHECK, read when the device opens: a race fails the launch); every head dim
    code = ("import sys; sys.path.insert(0, %r); sys.path.insert(0, %r); import torch\n"
            "import attn_bwd as t\n"
            "for d in (32, 64, 128, 256, 512):\n"
            "    t.one(t.BF, 1, 2, 1, 40, 70, d, True, 'bshd')\n"
            "print('ok')\n" % (os.path.join(HERE, "..", "..", "python"), HERE))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, FLY_SIM_RACECHECK="1"))
    check(p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-800:])


def no_scratch(arch, code_object, count):
    """every kernel of stdlib code object ARCH/CODE_OBJECT (COUNT of them) without scratch
    (no VGPR spills), read by flyrt-info"""
    build = os.path.dirname(os.path.abspath(os.environ.get("FLYRT_LIB", "build/libflyrt.so")))
    co = os.path.join(build, "lib", "flyc", "kernels", arch, code_object)
    p = subprocess.run([os.path.join(build, "bin", "flyrt-info"), co], capture_output=True, text=True)
    check(p.returncode == 0, p.stderr[-400:])
    names = [l.split()[1] for l in p.stdout.splitlines() if l.startswith("kernel ")]
    res = [l for l in p.stdout.splitlines() if "bytes scratch" in l]
    check(len(names) == count and len(res) == count, "expected %d kernels: %s" % (count, names))
    bad = [n for n, r in zip(names, res) if " 0 bytes scratch" not in r]
    check(not bad, "scratch (spills) in %s" % bad)


def t_no_scratch():
    no_scratch("gfx950", "attention_bwd.hsaco", 22)


def t_torch_autograd():
    # torch.ops.flyc.attention's backward (flyc.torch's autograd) runs flyc's kernels: the
    # gradients of a bf16 GQA causal call as autograd of the f32 reference gives them, at
    # D = 64 and D = 512 (forward and backward both on flyc's kernels)
    import flyc.torch as ft
    for D, Sq, Sk in ((64, 45, 60), (512, 40, 33)):
        g = torch.Generator().manual_seed(5)
        q = torch.randn(1, 4, Sq, D, generator=g).to(BF).requires_grad_()
        k = torch.randn(1, 2, Sk, D, generator=g).to(BF).requires_grad_()
        v = torch.randn(1, 2, Sk, D, generator=g).to(BF).requires_grad_()
        do = torch.randn(1, 4, Sq, D, generator=g).to(BF)
        ft.reset_stats()
        out, _ = torch.ops.flyc.attention(q, k, v, True, None)
        out.backward(do)
        check(ft.stats()["attention_backward"] == {"taken": 1, "declined": 0}, ft.stats())
        check(ft.stats()["attention"] == {"taken": 1, "declined": 0}, ft.stats())
        qf, kf, vf = (x.detach().float().requires_grad_() for x in (q, k, v))
        of, _ = reference.attention(qf, kf, vf, causal=True)
        of.backward(do.float())
        for got, want, n in ((q.grad, qf.grad, "dq"), (k.grad, kf.grad, "dk"), (v.grad, vf.grad, "dv")):
            err = float((got.float() - want).abs().max() / want.abs().max())
            check(err <= TOL[BF], "D %d: %s relative error %.2e" % (D, n, err))


TESTS = [("cases", t_cases), ("torch autograd", t_torch_autograd), ("no scratch", t_no_scratch), ("causal Sq > Sk", t_causal_rows_past_keys),
         ("scale", t_scale), ("refusals", t_refusals)]
if not SAN:
    TESTS += [("deterministic", t_deterministic), ("race check", t_race_free)]

if __name__ == "__main__":
    sys.exit(run("attention_backward", TESTS))
