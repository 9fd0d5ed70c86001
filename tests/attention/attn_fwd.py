"""tests/attention/attn_fwd.py — flyc.ops.attention (the forward of stdlib/ops/attention.fly,
docs/ops.md "Attention forward") on the simulator (run by tests/attention/run.sh with
/usr/bin/python3).

Every case runs through the operator library and is compared with the f32 CPU reference
(flyc.reference.attention of the same bf16/f16 inputs widened to f32): the relative error of O
(||O - ref|| / ||ref||, and the largest error against the largest |ref|) and the absolute error
of LSE (natural log). Inputs are views into NaN-filled storage: [B, H, S, D] with a NaN row
before each head, NaN rows after and a NaN gap after each row's D values ("bhsd"), or
[B, S, H, D] storage seen as [B, H, S, D] through transpose(1, 2) with NaN heads and gaps
("bshd"); a kernel that reads past a tensor's extent (keys past Sk, queries past Sq, D past
the head) gets NaN into O. The direct-launch tests call the kernel itself with the transposed
views in place (their strides as arguments, no copies) and outputs inside NaN storage whose
NaN sentinels must stay, with and without LSE (has_lse = 0 leaves LSE untouched); one case
runs under the simulator's LDS race check.

The default run is a pairwise subset of the matrix (both dtypes; D 32, 64, 128, 256, 512;
causal or not; Sq = Sk and Sq != Sk (both ways); GQA 2:1 and 8:1, MQA; lengths that are not
tile multiples; Sq = 1; both layouts); FLY_SLOW=1 runs the full product of dtypes x D x
causal x shapes; FLY_SAN=1 (sanitized libflyrt) one shape per variant. Prints PASS:/FAIL: lines.
"""
import itertools
import math
import os
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "ops"))
import flyc  # noqa: E402
import flyrt  # noqa: E402
from flyc import reference  # noqa: E402
from harness import check, raises, run  # noqa: E402

SAN = os.environ.get("FLY_SAN") == "1"
SLOW = os.environ.get("FLY_SLOW") == "1"
BF, F16 = torch.bfloat16, torch.float16
NAME = {BF: "bf16", F16: "f16"}
# relative error of O (norm, and max against max |ref|): the output's rounding and P rounded
# to the operand type before P V (bf16: 2^-9, f16: 2^-12 per element); LSE: f32 sums
TOL_O = {BF: (1.5e-2, 3e-2), F16: (2e-3, 4e-3)}
TOL_LSE = 2e-4
GEN = torch.Generator().manual_seed(22)


def poisoned(x, lay):
    """x [B, H, S, D] as a view into NaN-filled storage (module docstring)."""
    B, H, S, D = x.shape
    if lay == "bhsd":
        big = torch.full((B, H, S + 3, D + 16), math.nan, dtype=x.dtype)
        big[:, :, 1:S + 1, :D] = x
        return big[:, :, 1:S + 1, :D]
    big = torch.full((B, S + 2, H + 1, D + 8), math.nan, dtype=x.dtype)
    big[:, 1:S + 1, :H, :D] = x.transpose(1, 2)
    return big[:, 1:S + 1, :H, :D].transpose(1, 2)


def inputs(dt, B, Hq, Hkv, Sq, Sk, D, gen=GEN):
    q = torch.randn(B, Hq, Sq, D, generator=gen).to(dt)
    k = torch.randn(B, Hkv, Sk, D, generator=gen).to(dt)
    v = torch.randn(B, Hkv, Sk, D, generator=gen).to(dt)
    return q, k, v


def compare(dt, o, lse, q, k, v, causal, scale, what):
    ro, rl = reference.attention(q.float(), k.float(), v.float(), causal=causal, scale=scale)
    check(not o.isnan().any() and not lse.isnan().any(), "%s: NaN in the output" % what)
    d = (o.float() - ro)
    rel = float(d.norm() / ro.norm())
    rmax = float(d.abs().max() / ro.abs().max())
    el = float((lse - rl).abs().max())
    tn, tm = TOL_O[dt]
    check(rel <= tn and rmax <= tm, "%s: O relative error %.2e (max %.2e), tolerance %.0e (%.0e)"
          % (what, rel, rmax, tn, tm))
    check(el <= TOL_LSE * max(1.0, float(rl.abs().max())), "%s: LSE error %.2e" % (what, el))
    return rel, el


def case(dt, D, causal, B, Hq, Hkv, Sq, Sk, lay, scale=None):
    def t():
        q, k, v = inputs(dt, B, Hq, Hkv, Sq, Sk, D)
        want = "attn_fwd_%s_d%d%s" % (NAME[dt], D, "_causal" if causal else "")
        # the ping-pong kernels' (gfx950: this device's table has them)
        pp = (D == 64 or (D == 128 and not causal)) and Sq > 128 and \
            want.replace("attn_fwd_", "attn_fwd_pp_") in flyc.ops.variants("attention")
        qv, kv, vv = poisoned(q, lay), poisoned(k, lay), poisoned(v, lay)
        got = flyc.ops.plan("attention", qv, kv, vv, causal=causal, scale=scale, return_lse=True)
        check(got == want, "plan chose %r, expected %r" % (got, want))
        launches = flyc.context().launches
        o, lse = flyc.ops.attention(qv, kv, vv, causal=causal, scale=scale, return_lse=True)
        check(flyc.context().launches == launches + 1, "no kernel ran")
        check(o.shape == (B, Hq, Sq, D) and o.dtype == dt and lse.shape == (B, Hq, Sq)
              and lse.dtype == torch.float32, "shapes")
        compare(dt, o, lse, q, k, v, causal, scale, "")
        o2 = flyc.ops.attention(qv, kv, vv, causal=causal, scale=scale)   # without LSE
        check(torch.equal(o2.view(torch.int16), o.view(torch.int16)), "O differs without LSE")
        if pp:   # and the ping-pong kernel on the same call
            with flyc.ops.using_variant(want.replace("attn_fwd_", "attn_fwd_pp_")):
                o, lse = flyc.ops.attention(qv, kv, vv, causal=causal, scale=scale, return_lse=True)
            compare(dt, o, lse, q, k, v, causal, scale, "attn_fwd_pp")
    name = "%s D=%d %s B=%d Hq=%d Hkv=%d Sq=%d Sk=%d %s%s" % (
        NAME[dt], D, "causal" if causal else "full", B, Hq, Hkv, Sq, Sk, lay,
        "" if scale is None else " scale=%g" % scale)
    return name, t


# (dtype, D, causal, B, Hq, Hkv, Sq, Sk, layout): every dtype x D x causal pair, each shape
# feature (Sq < Sk, Sq > Sk, Sq = 1, Sq = Sk = 1, GQA 2:1, 8:1, MQA, ragged, tile multiples,
# several query tiles and batches) and both layouts at least twice
PAIRWISE = [
    (BF, 32, False, 1, 2, 2, 64, 64, "bhsd"),
    (F16, 32, True, 2, 4, 2, 37, 100, "bshd"),
    (BF, 32, True, 3, 3, 3, 200, 17, "bhsd"),
    (F16, 32, False, 1, 8, 1, 1, 130, "bhsd"),
    (BF, 64, True, 1, 8, 1, 130, 130, "bhsd"),
    (F16, 64, False, 1, 2, 1, 1, 200, "bshd"),
    (BF, 64, False, 1, 2, 2, 128, 256, "bshd"),
    (F16, 64, True, 2, 2, 2, 96, 161, "bhsd"),
    (BF, 128, False, 2, 2, 1, 100, 33, "bshd"),
    (F16, 128, True, 1, 16, 2, 129, 129, "bhsd"),
    (BF, 128, True, 1, 1, 1, 1, 1, "bhsd"),
    (F16, 128, False, 1, 2, 2, 256, 64, "bshd"),
    (BF, 256, False, 1, 2, 2, 70, 150, "bhsd"),
    (F16, 256, True, 1, 4, 2, 65, 40, "bshd"),
    (BF, 512, True, 1, 2, 1, 40, 70, "bshd"),
    (F16, 512, False, 1, 1, 1, 33, 33, "bhsd"),
]
SHAPES = [(1, 2, 2, 64, 64), (2, 4, 2, 37, 100), (1, 8, 1, 130, 130), (1, 2, 1, 1, 200),
          (2, 2, 1, 100, 33), (1, 16, 2, 129, 129), (1, 1, 1, 1, 1), (1, 2, 2, 256, 64)]
if SLOW:   # every dtype x D x causal on every shape, the layouts alternating
    CASES = [(dt, D, c) + s + (lay,) for dt, D, c in itertools.product((BF, F16), (32, 64, 128, 256, 512),
                                                                     (False, True))
             for s, lay in zip(SHAPES, itertools.cycle(("bhsd", "bshd")))]
elif SAN:   # one shape per variant
    CASES = [(dt, D, c, 1, 2, 1, 40, 70, "bshd") for dt in (BF, F16) for D in (32, 64, 128, 256, 512)
             for c in (False, True)]
else:
    CASES = PAIRWISE


def t_scale():
    # an explicit scale (large logits: the running maximum and the rescale matter)
    q, k, v = inputs(BF, 1, 2, 2, 70, 90, 64)
    o, lse = flyc.ops.attention(q, k, v, scale=1.5, return_lse=True)
    compare(BF, o, lse, q, k, v, False, 1.5, "scale 1.5")
    q, k, v = inputs(F16, 1, 2, 2, 70, 90, 64)
    o, lse = flyc.ops.attention(q, k, v, causal=True, scale=0.05, return_lse=True)
    compare(F16, o, lse, q, k, v, True, 0.05, "scale 0.05")


def t_growing_max():
    # keys whose scores grow tile by tile (the maximum moves in every key tile: every tile
    # rescales the accumulator) and a huge first score (later tiles add ~nothing)
    q = torch.ones(1, 1, 40, 64, dtype=BF) * 0.25
    k = (torch.arange(300, dtype=torch.float32) / 20.0).view(1, 1, 300, 1).expand(1, 1, 300, 64).to(BF)
    v = torch.randn(1, 1, 300, 64, generator=GEN).to(BF)
    o, lse = flyc.ops.attention(q, k.contiguous(), v, return_lse=True)
    compare(BF, o, lse, q, k, v, False, None, "growing")
    k2 = k.clone()
    k2[0, 0, 0] = 40.0
    o, lse = flyc.ops.attention(q, k2, v, causal=True, return_lse=True)
    compare(BF, o, lse, q, k2, v, True, None, "huge first key")


# the forward's code object per arch (attn_fwd_gfx1201.py runs these tests on sim:gfx1201)
CODE_OBJECT = {"gfx950": "attention", "gfx1201": "attention_gfx1201"}


def kernel(name):
    dev = flyrt.Device()
    mod = dev.load(os.path.join(flyc.context().kernel_dir, dev.arch, CODE_OBJECT[dev.arch] + ".hsaco"))
    return dev, mod.kernel(name)


def bshd_storage(x, pad_s=2, pad_h=1, pad_d=8):
    """x [B, H, S, D] stored as [B, S, H, D] inside NaN storage; (view [B, H, S, D], storage)."""
    B, H, S, D = x.shape
    big = torch.full((B, S + pad_s, H + pad_h, D + pad_d), math.nan, dtype=x.dtype)
    big[:, 1:S + 1, :H, :D] = x.transpose(1, 2)
    return big[:, 1:S + 1, :H, :D].transpose(1, 2), big


def strides3(t):
    return list(t.stride()[:3])


def direct(dt, D, causal, B, Hq, Hkv, Sq, Sk, has_lse, pp=False):
    q, k, v = inputs(dt, B, Hq, Hkv, Sq, Sk, D)
    (qv, _), (kv, _), (vv, _) = bshd_storage(q), bshd_storage(k), bshd_storage(v)
    ov, obig = bshd_storage(torch.zeros(B, Hq, Sq, D, dtype=dt))
    ov.fill_(math.nan)
    obig_before = obig.clone()
    lbig = torch.full((B * Hq * Sq + 64,), math.nan)
    lv = lbig[32:32 + B * Hq * Sq]
    name = "attn_fwd_%s%s_d%d%s" % ("pp_" if pp else "", NAME[dt], D, "_causal" if causal else "")
    _dev, k_ = kernel(name)
    scale = 1.0 / math.sqrt(D)
    # the tensors in the kernel's mode order: Q, K (S, D, H, B), V, O (D, S, H, B), LSE (S, H, B)
    sdhb, dshb = (2, 3, 1, 0), (3, 2, 1, 0)
    k_(qv.permute(sdhb), kv.permute(sdhb), vv.permute(dshb), ov.permute(dshb),
       lv.view(B, Hq, Sq).permute(2, 1, 0), Sq, Sk, Hq, Hkv, D, scale, *strides3(qv), *strides3(kv),
       *strides3(vv), *strides3(ov), B, 1 if has_lse else 0)
    # the storage around O (other heads, gaps, rows before and after) is untouched
    inside = torch.zeros_like(obig, dtype=torch.bool)
    inside[:, 1:Sq + 1, :Hq, :D] = True
    check(obig[~inside].isnan().all(), "%s: a NaN sentinel around O was overwritten" % name)
    check(not torch.equal(obig, obig_before), "O not written")
    lse = lv.view(B, Hq, Sq)
    if has_lse:
        check(lbig[:32].isnan().all() and lbig[32 + B * Hq * Sq:].isnan().all(),
              "%s: a sentinel around LSE was overwritten" % name)
    else:
        check(lbig.isnan().all(), "%s: has_lse = 0 wrote LSE" % name)
        lse = reference.attention(q.float(), k.float(), v.float(), causal=causal)[1]
    compare(dt, ov.clone(), lse, q, k, v, causal, None, name)


def t_direct_strided():
    # the kernels with BSHD transposed views in place: strides as arguments, no copies
    direct(BF, 64, True, 2, 4, 2, 50, 77, True)
    direct(F16, 128, False, 1, 8, 1, 33, 65, False)
    direct(BF, 32, False, 1, 2, 1, 1, 9, True)
    direct(F16, 64, True, 1, 2, 1, 300, 200, True, pp=True)
    direct(BF, 128, False, 2, 2, 2, 129, 333, False, pp=True)


def t_refusals():
    q = torch.randn(1, 2, 16, 48).to(BF)
    launches = flyc.context().launches
    raises(flyc.Unsupported, lambda: flyc.ops.attention(q, q, q), "D = 32, 64, 128, 256 and 512")
    q64 = torch.randn(1, 2, 16, 64).to(BF)
    raises(flyc.Unsupported, lambda: flyc.ops.attention(q64, q64, q64[..., :32]), "one head dim")
    raises(flyc.Unsupported, lambda: flyc.ops.attention(q64.float(), q64.float(), q64.float()),
           "no gfx950 kernel")
    check(flyc.context().launches == launches, "a refused call launched")
    requires_refused()


def requires_refused():
    # a kernel's requires refuse what it cannot address: hdim other than its D, a stride not a
    # multiple of 8 elements (16 bytes)
    _dev, k_ = kernel("attn_fwd_bf16_d64")
    x = torch.zeros(1, 1, 8, 64, dtype=BF)
    lse = torch.zeros(8).view(1, 1, 8)
    sdhb, dshb = (2, 3, 1, 0), (3, 2, 1, 0)
    base = [x.permute(sdhb), x.permute(sdhb), x.permute(dshb), x.clone().permute(dshb),
            lse.permute(2, 1, 0), 8, 8, 1, 1, 64, 0.125] + [512, 512, 64] * 4 + [1, 1]
    bad = list(base)
    bad[9] = 32
    raises(flyrt.Unsupported, lambda: k_(*bad), "hdim == D")
    bad = list(base)
    bad[13] = 60
    raises(flyrt.Unsupported, lambda: k_(*bad), "sqs % 8 == 0")
    bad = list(base)   # a span a buffer descriptor cannot address (32-bit offsets)
    bad[13] = 1 << 26
    raises(flyrt.Unsupported, lambda: k_(*bad), "Sq * sqs < 1 << 29")


def t_resources():
    # the code objects' resources (flyc --resource-usage): no kernel uses scratch (SGPRs spill
    # to VGPR lanes only), LDS within gfx950's 160 KiB, at most 256 VGPRs + AGPRs
    dev = flyrt.Device()
    mod = dev.load(os.path.join(flyc.context().kernel_dir, "gfx950", "attention.hsaco"))
    names = sorted(k.name for k in mod.kernels)
    check(len(names) == 26, names)
    for n in names:
        info = mod.kernel(n).info
        check(info["scratch_per_thread"] == 0, "%s: scratch %d bytes" % (n, info["scratch_per_thread"]))
        check(info["static_lds"] <= 163840, "%s: LDS %d" % (n, info["static_lds"]))
        check(info["vgprs"] <= 512, "%s: %d VGPRs" % (n, info["vgprs"]))


def t_race_free():
    # one case per dtype under the simulator's LDS race check (FLY_SIM_RACECHECK, read when
    # the device opens; a race fails the launch): the 2-stage K/V ring and the transposed V reads
    code = ("import sys, torch; sys.path.insert(0, %r); sys.path.insert(0, %r); import attn_fwd as t\n"
            "t.case(t.BF, 64, True, 1, 2, 1, 100, 150, 'bhsd')[1]()\n"
            "t.case(t.F16, 128, False, 1, 2, 2, 40, 200, 'bshd')[1]()\n"
            "t.case(t.BF, 64, True, 1, 2, 1, 300, 290, 'bhsd')[1]()\n"
            "t.case(t.F16, 128, False, 1, 1, 1, 257, 200, 'bhsd')[1]()\n"
            "print('ok')\n" % (os.path.join(HERE, "..", "..", "python"), HERE))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, FLY_SIM_RACECHECK="1"))
    check(p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stdout[-400:] + p.stderr[-800:])


def main():
    tests = [case(*c) for c in CASES]
    if not SAN:
        tests += [("scale", t_scale), ("growing max", t_growing_max),
                  ("direct strided", t_direct_strided), ("race free", t_race_free),
                  ("resources", t_resources)]
    tests += [("refusals", t_refusals)]
    return run("attention", tests)


if __name__ == "__main__":
    sys.exit(main())
