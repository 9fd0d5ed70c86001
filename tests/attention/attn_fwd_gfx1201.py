"""tests/attention/attn_fwd_gfx1201.py — flyc.ops.attention on a sim:gfx1201 device (the
forward of stdlib/ops/attention_gfx1201.fly, WMMA in wave32; docs/ops.md "Attention forward
on gfx1201"), run by tests/attention/run.sh with /usr/bin/python3.

The gfx950 forward test's cases (attn_fwd.py: its inputs in NaN-filled storage, BHSD and
transposed BSHD views, the f32 CPU reference, the same tolerances) against the gfx1201
kernels: the pairwise subset of dtype x D (32..512) x causal x shapes (Sq != Sk both ways,
GQA 2:1 and 8:1, MQA, ragged lengths, Sq = 1) by default, the full product with FLY_SLOW=1,
one shape per variant with FLY_SAN=1; an explicit scale and a running maximum that moves
every tile; direct launches with BSHD views in place and NaN sentinels around O and LSE
(with and without LSE); cases under the simulator's LDS race check; the code object's
resources (no scratch, LDS within 64 KiB); refusals. Prints PASS:/FAIL: lines.
"""
import os
import subprocess
import sys

os.environ["FLY_DEVICE"] = "sim:gfx1201"   # before the first context or device opens

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import attn_fwd as t  # noqa: E402
from attn_fwd import BF, F16, NAME, check, raises, run, flyc, flyrt  # noqa: E402

NAMES = ["attn_fwd_%s_d%d%s" % (NAME[dt], D, c) for dt in (BF, F16) for c in ("", "_causal")
         for D in (32, 64, 128, 256, 512)]   # the table's order (runtime/flyops.c)


case = t.case   # attn_fwd.py's case (its ping-pong check runs where the table has those kernels)


def t_device():
    check(flyrt.Device().arch == "gfx1201", "not a gfx1201 device")
    check(flyc.ops.variants("attention") == NAMES, flyc.ops.variants("attention"))


def t_direct_strided():
    # the kernels with BSHD transposed views in place: strides as arguments, no copies
    t.direct(BF, 64, True, 2, 4, 2, 50, 77, True)
    t.direct(F16, 128, False, 1, 8, 1, 33, 65, False)
    t.direct(BF, 32, False, 1, 2, 1, 1, 9, True)
    t.direct(F16, 256, True, 1, 2, 1, 70, 40, True)
    t.direct(BF, 512, False, 1, 2, 2, 20, 33, True)


def t_race_free():
    # under the simulator's LDS race check (FLY_SIM_RACECHECK, read when the device opens):
    # the 2-stage K/V ring of D = 64 and 128, the Q tile in LDS of D = 256, the 1-stage ring of 512
    code = ("import sys; sys.path.insert(0, %r); import attn_fwd_gfx1201 as g\n"
            "g.case(g.BF, 64, True, 1, 2, 1, 100, 150, 'bhsd')[1]()\n"
            "g.case(g.F16, 128, False, 1, 2, 2, 40, 200, 'bshd')[1]()\n"
            "g.case(g.BF, 256, True, 1, 1, 1, 50, 70, 'bhsd')[1]()\n"
            "g.case(g.F16, 512, False, 1, 1, 1, 20, 40, 'bhsd')[1]()\n"
            "print('ok')\n" % HERE)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, FLY_SIM_RACECHECK="1"))
    check(p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stdout[-400:] + p.stderr[-800:])


def t_resources():
    # no kernel uses scratch, LDS within gfx1201's 64 KiB, at most 256 VGPRs (wave32)
    dev = flyrt.Device()
    mod = dev.load(os.path.join(flyc.context().kernel_dir, "gfx1201", "attention_gfx1201.hsaco"))
    names = sorted(k.name for k in mod.kernels)
    check(names == sorted(NAMES), names)
    for n in names:
        info = mod.kernel(n).info
        check(info["scratch_per_thread"] == 0, "%s: scratch %d bytes" % (n, info["scratch_per_thread"]))
        check(info["static_lds"] <= 65536, "%s: LDS %d" % (n, info["static_lds"]))
        check(info["vgprs"] <= 256, "%s: %d VGPRs" % (n, info["vgprs"]))


def t_refusals():
    q = torch.randn(1, 2, 16, 48).to(BF)
    launches = flyc.context().launches
    raises(flyc.Unsupported, lambda: flyc.ops.attention(q, q, q), "D = 32, 64, 128, 256 and 512")
    q64 = torch.randn(1, 2, 16, 64).to(BF)
    raises(flyc.Unsupported, lambda: flyc.ops.attention(q64.float(), q64.float(), q64.float()),
           "gfx1201")
    check(flyc.context().launches == launches, "a refused call launched")
    # a gfx950-only variant (the ping-pong kernel) is not offered on this device
    def pp():
        with flyc.ops.using_variant("attn_fwd_pp_bf16_d64"):
            flyc.ops.attention(q64, q64, q64)
    raises(ValueError, pp, "attn_fwd_pp_bf16_d64", "gfx1201")
    t.requires_refused()


def main():
    tests = [("device and variants", t_device)] + [case(*c) for c in t.CASES]
    if not t.SAN:
        tests += [("scale", t.t_scale), ("growing max", t.t_growing_max),
                  ("direct strided", t_direct_strided), ("race free", t_race_free),
                  ("resources", t_resources)]
    tests += [("refusals", t_refusals)]
    return run("attention-gfx1201", tests)


if __name__ == "__main__":
    sys.exit(main())
