"""tests/attention/attn_bwd_gfx1201.py — flyc.ops.attention_backward on a sim:gfx1201 device
(stdlib/ops/attention_bwd_gfx1201.fly: Delta, dK/dV and dQ kernels with WMMA in wave32; run
by tests/attention/run.sh with /usr/bin/python3: Debian's torch).

The gfx950 test's cases (attn_bwd.py: its CASES, tolerances and NaN-guarded views are
imported from there) against the gfx1201 variants: each case draws q, k, v and dO in the
dtype; dQ, dK and dV must match torch autograd of the f32 reference (flyc.reference.attention)
within bf16 1.5e-2 / fp16 3e-3 of each gradient's largest magnitude, with no NaN, every
input a view into NaN-filled storage (compact [B, H, S, D] or the transposed view of a
[B, S, H, D] tensor) and the gradients written through grads= into NaN-filled storage whose
guards must stay untouched.

O and LSE, the backward's inputs: from flyc.ops.attention on this device when it computes
the call (a gfx1201 attention forward), else — the fallback while gfx1201 has no forward
variant — from the f32 reference (O rounded to the dtype). The "cases" test's name says
which. The matrix: attn_bwd.CASES (pairwise over dtype, head dim 32-256, causal, Sq vs Sk,
GQA 1:1/2:1/8:1/MQA, layout, ragged lengths); FLY_SLOW=1 its full product; FLY_SAN=1 one
shape per kernel. Also: variants and plans on gfx1201, no kernel uses scratch (flyrt-info),
refusals (head dims 48 and 512, D != Dv, non-unit last dim, dk over an input, a gfx950
variant named), determinism, and a run of every head dim under FLY_SIM_RACECHECK=1.
Prints PASS:/FAIL: lines.
"""
import os
import subprocess
import sys

os.environ["FLY_DEVICE"] = "sim:gfx1201"   # before flyc opens its device

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "ops"))
sys.path.insert(0, HERE)
import flyc  # noqa: E402
from flyc import reference  # noqa: E402
from harness import check, raises, run  # noqa: E402
import attn_bwd as g950  # noqa: E402   the gfx950 test: its cases and helpers

BF, F16, TOL, GUARD = g950.BF, g950.F16, g950.TOL, g950.GUARD
guarded, guards_nan = g950.guarded, g950.guards_nan
HEAD_DIMS = (32, 64, 128, 256)


def flyc_forward(q, k, v, causal, scale):
    """(O, LSE) from flyc.ops.attention when this device computes the call, else None."""
    ok, _ = flyc.ops.supported("attention", q, k, v, causal=causal, scale=scale, return_lse=True)
    if not ok:
        return None
    return flyc.ops.attention(q, k, v, causal=causal, scale=scale, return_lse=True)


def one(dt, B, Hq, Hkv, Sq, Sk, D, causal, layout, seed=0, scale=None):
    """One backward call checked as attn_bwd.one checks it; returns the gradients'
    (view, storage) pairs."""
    g = torch.Generator().manual_seed(seed)
    q, do = (torch.randn(B, Hq, Sq, D, generator=g).to(dt) for _ in range(2))
    k, v = (torch.randn(B, Hkv, Sk, D, generator=g).to(dt) for _ in range(2))
    qf, kf, vf = (x.float().requires_grad_() for x in (q, k, v))
    o, lse = reference.attention(qf, kf, vf, causal=causal, scale=scale)
    o.backward(do.float())
    fwd = flyc_forward(q, k, v, causal, scale)
    src = "flyc" if fwd is not None else "reference"
    o_in, lse_in = fwd if fwd is not None else (o.detach().to(dt), lse.detach())
    ins = [guarded(x, layout) for x in (do, q, k, v, o_in)]
    lse_buf = torch.full((lse_in.numel() + 2 * GUARD,), float("nan"))
    lse_v = lse_buf[GUARD:GUARD + lse_in.numel()].view(lse_in.shape)
    lse_v.copy_(lse_in)
    outs = [guarded(torch.full_like(x, float("nan")), layout) for x in (q, k, v)]
    before = [b.clone() for _, b in ins] + [lse_buf.clone()]
    flyc.ops.attention_backward(*[x for x, _ in ins], lse_v, causal=causal, scale=scale,
                                grads=[x for x, _ in outs])
    name = "gfx1201 %s B%d Hq%d Hkv%d Sq%d Sk%d D%d %s %s scale %s (O, LSE: %s)" % (
        str(dt)[6:], B, Hq, Hkv, Sq, Sk, D, "causal" if causal else "full", layout, scale, src)
    check(all(torch.equal(b1.view(torch.int16), b0.view(torch.int16))
              for (_, b1), b0 in zip(ins, before[:5])) and
          torch.equal(lse_buf.view(torch.int32), before[5].view(torch.int32)), name + ": inputs changed")
    for (got, buf), want, n in zip(outs, (qf.grad, kf.grad, vf.grad), ("dq", "dk", "dv")):
        check(guards_nan(buf), "%s: %s's guards written" % (name, n))
        check(not torch.isnan(got.float()).any(), "%s: %s has NaN" % (name, n))
        err = float((got.float() - want).abs().max() / want.abs().max().clamp(min=1e-6))
        check(err <= TOL[dt], "%s: %s relative error %.2e > %.1e" % (name, n, err, TOL[dt]))
    return outs


# attn_bwd.py's tests that only call its one() (cases, scale, causal Sq > Sk, determinism)
# run as they are, through this one()
g950.one = one


def t_cases():
    # attn_bwd.py's CASES whose head dim gfx1201 serves (D = 512 is refused: t_refusals)
    for c in g950.CASES:
        if c[6] in HEAD_DIMS:
            one(*c)


def t_variants():
    names = flyc.ops.variants("attention_backward")
    want = ["attn_bwd_wmma_%s_%s%s" % (k, t, "" if k == "delta" else "_d%d" % d)
            for t in ("bf16", "f16") for k in ("delta", "dkdv", "dq")
            for d in (HEAD_DIMS if k != "delta" else (0,))]
    check(sorted(names) == sorted(want), names)
    g = torch.Generator().manual_seed(1)
    for dt, d in ((BF, 64), (F16, 128), (BF, 256)):
        q = torch.randn(1, 2, 40, d, generator=g).to(dt)
        lse = torch.zeros(1, 2, 40)
        p = flyc.ops.plan("attention_backward", q, q, q, q, q, lse, causal=True)
        check(p == "attn_bwd_wmma_dkdv_%s_d%d" % (str(dt)[6:].replace("float16", "f16")
                                                   .replace("bfloat16", "bf16"), d), p)


def t_refusals():
    g950.t_refusals()    # head dim 48, Dv != D, dk over q (nothing written), a strided last dim
    lse = torch.zeros(1, 2, 8)
    q = torch.randn(1, 2, 8, 512).to(BF)
    raises(flyc.Unsupported, lambda: flyc.ops.attention_backward(q, q, q, q, q, lse), "head dim 512")
    q = torch.randn(1, 2, 8, 64).to(BF)

    def gfx950_variant():   # a gfx950 kernel is not offered on a gfx1201 device
        with flyc.ops.using_variant("attn_bwd_dkdv_bf16_d64"):
            flyc.ops.attention_backward(q, q, q, q, q, lse)
    raises(ValueError, gfx950_variant, "attn_bwd_dkdv_bf16_d64", "gfx1201")


def t_race_free():
    # the LDS staging (operands, P^T / dS^T, lse and Delta) under the simulator's race check
    # (FLY_SIM_RACECHECK, read when the device opens: a race fails the launch); every head dim
    code = ("import sys; sys.path.insert(0, %r); import attn_bwd_gfx1201 as t\n"
            "for d in t.HEAD_DIMS:\n"
            "    t.one(t.BF, 1, 2, 1, 40, 70, d, True, 'bshd')\n"
            "print('ok')\n" % HERE)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, FLY_SIM_RACECHECK="1"))
    check(p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-800:])


def t_no_scratch():
    g950.no_scratch("gfx1201", "attention_bwd_gfx1201.hsaco", 18)


def src_note():
    ok, _ = flyc.ops.supported("attention", *(torch.zeros(1, 2, 8, 64).to(BF),) * 3, return_lse=True)
    return "O, LSE from flyc's gfx1201 forward" if ok else "O, LSE from the f32 reference: no gfx1201 forward"


TESTS = [("variants and plans", t_variants), ("cases (%s)" % src_note(), t_cases),
         ("no scratch", t_no_scratch), ("causal Sq > Sk", g950.t_causal_rows_past_keys),
         ("scale", g950.t_scale), ("refusals", t_refusals)]
if not g950.SAN:
    TESTS += [("deterministic", g950.t_deterministic), ("race check", t_race_free)]

if __name__ == "__main__":
    sys.exit(run("attention_backward/gfx1201", TESTS))
