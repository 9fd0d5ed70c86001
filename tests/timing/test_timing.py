"""tests/timing/test_timing.py — flyc.ops.timing / last_timing (python/flyc/ops.py) on the
simulator: an operator timed through the Python API gives positive, consistent figures
with flyc-sim --timing's keys, the results stay right, and bad calls are refused.

    /usr/bin/python3 tests/timing/test_timing.py            # the simulator
    /usr/bin/python3 tests/timing/test_timing.py hip        # a (stand-in) HIP device
Prints PASS:/FAIL: lines; exit 1 when any failed."""

import sys

import torch

import flyc
import flyrt

failures = 0
# the keys flyc-sim --timing writes (docs/simulator.md "Timing model") and the library adds
SIM_KEYS = ["device", "arch", "cus", "clock_mhz", "hbm_gbps", "workgroups", "sampled_workgroups",
            "wgs_per_cu", "waves_per_simd", "waves_per_wg", "cycles", "cu_cycles", "us",
            "mfma_busy", "valu_busy", "lds_busy", "lds_bank_conflict_cycles", "hbm_bytes",
            "l2_bytes", "mfma_flops", "wave_instructions", "stalls"]
LIB_KEYS = ["kernel", "total_launches", "total_cycles", "total_us"]


def check(ok, name, detail=""):
    global failures
    if ok:
        print("PASS: timing-py: %s" % name)
    else:
        failures += 1
        print("FAIL: timing-py: %s\n    %s" % (name, detail))


def consistent(t, name):
    missing = [k for k in SIM_KEYS + LIB_KEYS if k not in t]
    ok = not missing and t["cycles"] > 0 and t["us"] > 0 and \
        abs(t["us"] - t["cu_cycles"] / t["eff_clock_mhz"] - (t["cycles"] - t["cu_cycles"]) / t["clock_mhz"]) \
            < 1e-3 + 1e-6 * t["us"] and 0 < t["eff_clock_mhz"] <= t["clock_mhz"] and \
        0 <= t["mfma_busy"] <= 1 and 0 <= t["valu_busy"] <= 1 and 0 <= t["lds_busy"] <= 1 and \
        1 <= t["sampled_workgroups"] <= t["workgroups"] and t["cus"] > 0 and \
        t["cu_cycles"] < t["cycles"] and t["total_cycles"] >= t["cycles"] and \
        all(k in t["stalls"] for k in ("vmcnt", "lgkmcnt", "barrier", "pipe", "nop"))
    check(ok, "%s: positive cycles, us = cu_cycles / clock under load + launch / clock, shares in 0..1, every key" % name,
          "missing %s; %s" % (missing, t))


def sim_tests():
    torch.manual_seed(1)
    # rms_norm: one kernel launch, memory-bound
    rows, n = 64, 4096
    x = torch.randn(rows, n, dtype=torch.bfloat16)
    w = torch.randn(n, dtype=torch.bfloat16)
    variant = flyc.ops.plan("rms_norm", x, w)
    with flyc.ops.timing() as t:
        y, rstd = flyc.ops.rms_norm(x, w)
    consistent(t, "rms_norm 64x4096 bf16")
    check(t.get("kernel") == variant and t.get("total_launches") == 1 and t.get("device") == "mi355x",
          "rms_norm: one launch of the planned variant %s on mi355x" % variant, str(t))
    # x is read, y written (bf16): the compulsory DRAM bytes
    check(t.get("hbm_bytes", 0) >= 2 * rows * n * 2, "rms_norm: HBM bytes at least x and y",
          "hbm_bytes %s < %d" % (t.get("hbm_bytes"), 4 * rows * n))
    check(t.get("mfma_flops") == 0 and t.get("valu_busy", 0) > 0, "rms_norm: no MFMA, some VALU", str(t))
    xf = x.float()
    ref = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + torch.finfo(torch.float32).eps)
           * w.float())
    err = (y.float() - ref).abs().max().item()
    check(err <= 0.02 * ref.abs().max().item(), "rms_norm timed: still the right answer", "max err %g" % err)
    check(flyc.ops.last_timing() is None, "after the block timing is off and the record gone",
          str(flyc.ops.last_timing()))
    flyc.ops.rms_norm(x, w)
    check(flyc.ops.last_timing() is None, "a call outside the block is not timed", "")

    # mm: MFMA FLOP = 2MNK; mi350x (2.2 GHz) slower than mi355x; sampled timing-only
    M, N, K = 512, 512, 256
    a = torch.randn(M, K, dtype=torch.bfloat16)
    b = torch.randn(N, K, dtype=torch.bfloat16).t()
    with flyc.ops.timing() as t355:
        c = flyc.ops.mm(a, b)
    consistent(t355, "mm 512x512x256")
    check(t355.get("mfma_flops") == 2 * M * N * K and t355.get("mfma_busy", 0) > 0,
          "mm: MFMA FLOP 2MNK, MFMA pipe busy", str(t355))
    ref = a.double() @ b.double()
    err = ((c.double() - ref).abs() / (ref.abs() + 1)).max().item()
    check(err < 0.02, "mm timed: still the right answer", "rel err %g" % err)
    with flyc.ops.timing(device="mi350x") as t350:
        flyc.ops.mm(a, b)
    check(t350.get("device") == "mi350x" and t350.get("cu_cycles") == t355.get("cu_cycles") and
          t350.get("us", 0) > t355.get("us", 0),
          "mm on mi350x: same CU cycles, slower clock, more us", "%s vs %s" % (t350, t355))
    with flyc.ops.timing(sample=4, timing_only=True) as ts:
        flyc.ops.mm(a, b)
    check(ts.get("sampled_workgroups") == 4 and ts.get("workgroups") == t355.get("workgroups"),
          "mm sample=4 timing_only: 4 sampled", str(ts))
    check(abs(ts.get("cycles", 0) - t355["cycles"]) <= 0.05 * t355["cycles"],
          "mm sampled within 5% of full", "%s vs %s" % (ts.get("cycles"), t355["cycles"]))
    with flyc.ops.timing() as t2:
        flyc.ops.mm(a, b)
        flyc.ops.rms_norm(x, w)
    check(t2.get("total_launches") == 2 and
          abs(t2.get("total_us", 0) - t355["us"] - t["us"]) < 0.01,
          "two calls in one block: the sums", str(t2))
    with flyc.ops.timing() as t0:
        flyc.ops.mm(a[:, :0], b[:0, :])   # K = 0: no kernel
    check(t0 == {"total_launches": 0}, "a block without launches: total_launches 0", str(t0))

    # refusals
    for kw, what in (({"device": "bogus"}, "unknown device row 'bogus'"),
                     ({"device": "rx9070xt"}, "models gfx1201 code"),
                     ({"sample": -1}, "sample -1")):
        try:
            with flyc.ops.timing(**kw):
                pass
            check(False, "timing(%s) refused" % kw, "no error")
        except ValueError as e:
            check(what in str(e), "timing(%s) refused: %s" % (kw, what), str(e))
    try:
        with flyc.ops.timing(sample="4"):
            pass
        check(False, "timing(sample='4') refused", "no error")
    except TypeError as e:
        check("sample must be an int" in str(e), "timing(sample='4'): TypeError", str(e))


def hip_tests():
    try:
        with flyc.ops.timing():
            pass
        check(False, "HIP: timing() refused", "no error")
    except flyrt.FlyrtError as e:
        check(e.name == "FLYRT_ERROR_NEEDS_SIMULATOR" and "timing needs a simulated device" in str(e),
              "HIP: timing() raises FLYRT_ERROR_NEEDS_SIMULATOR", str(e))
    try:
        flyc.ops.last_timing()
        check(False, "HIP: last_timing() refused", "no error")
    except flyrt.FlyrtError as e:
        check(e.name == "FLYRT_ERROR_NEEDS_SIMULATOR", "HIP: last_timing() NEEDS_SIMULATOR", str(e))


if __name__ == "__main__":
    (hip_tests if sys.argv[1:] == ["hip"] else sim_tests)()
    sys.exit(1 if failures else 0)
