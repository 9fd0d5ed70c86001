#!/usr/bin/env python3
"""tests/pingpong/attn_sim.py — run examples/pingpong.fly on flyc's simulator.

usage: attn_sim.py HSACO KERNEL NK D CASE [CASE ...]
CASE is M[:AMP[:SCALE]] (defaults AMP 1, SCALE 1/sqrt(D)), or race:M.

For each case: random bf16 Q (M x D, uniform in [-AMP, AMP]), K and V
(NK x D, uniform in [-1, 1]); launch through libflyrt (python/flyrt.py, device
"sim", grid and block from the kernel's metadata); compare with the CPU
reference computed here in double precision:
  S = SCALE * Q K^T, P = softmax(S) row-wise (max subtracted), O = P V.
P is checked to 1e-5 + 1e-4 * P (f32 math, exp2 rounding). O is checked
against sum_j |P_j V_j| * 2^-8 (the kernel rounds P to bf16 for its second
MFMA; one bf16 rounding is at most 2^-9 relative) plus 1e-6.
M not a multiple of 32 must be refused by `requires` (flyrt.Unsupported) with
P and O untouched. race:M expects the launch to fail with an LDS race report
(run with FLY_SIM_RACECHECK=1).
Prints one line per case, "PASS: pingpong/NAME" or "FAIL: pingpong/NAME"
(NAME: the kernel without its attention_pingpong_ prefix, M, AMP and SCALE
when given, -refused or -race for those cases), then its details indented.
Exit status 0 when every case passes.
"""
import array
import math
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import flyrt  # noqa: E402


def bf16_bits(x):
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16       # round to nearest even


def bf16_val(h):
    return struct.unpack("<f", struct.pack("<I", (h & 0xFFFF) << 16))[0]


def inputs(M, NK, D, amp, seed):
    rng = random.Random(seed)
    Q = [bf16_bits(rng.uniform(-amp, amp)) for _ in range(M * D)]
    K = [bf16_bits(rng.uniform(-1, 1)) for _ in range(NK * D)]
    V = [bf16_bits(rng.uniform(-1, 1)) for _ in range(NK * D)]
    return Q, K, V


def launch(kern, M, NK, D, amp, scale, seed, p, o):
    Q, K, V = inputs(M, NK, D, amp, seed)
    q, k, v = array.array("H", Q), array.array("H", K), array.array("H", V)
    t0 = time.time()
    kern(q, k, v, p, o, M, scale)
    return (Q, K, V), time.time() - t0


def check(name, M, NK, D, scale, inp, p, o):
    Qv, Kv, Vv = ([bf16_val(h) for h in x] for x in inp)
    bad = obad = 0
    perr = oerr = 0.0
    for i in range(M):
        q = Qv[i * D:(i + 1) * D]
        s = [scale * sum(a * b for a, b in zip(q, Kv[j * D:(j + 1) * D])) for j in range(NK)]
        m = max(s)
        e = [math.exp(x - m) for x in s]
        t = sum(e)
        pr = [x / t for x in e]
        for j in range(NK):
            err = abs(p[i * NK + j] - pr[j])
            perr = max(perr, err) if err == err else float("inf")
            if not err <= 1e-5 + 1e-4 * pr[j]:
                bad += 1
        for d in range(D):
            ref = sum(pr[j] * Vv[j * D + d] for j in range(NK))
            mag = sum(abs(pr[j] * Vv[j * D + d]) for j in range(NK))
            err = abs(o[i * D + d] - ref)
            oerr = max(oerr, err) if err == err else float("inf")
            if not err <= 2.0 ** -8 * mag + 1e-6:
                obad += 1
    msg = "%s P max_err=%.3g O max_err=%.3g" % (name, perr, oerr)
    if bad or obad:
        return False, "%s bad P=%d of %d, O=%d of %d" % (msg, bad, M * NK, obad, M * D)
    return True, msg


def main():
    if len(sys.argv) < 6:
        print(__doc__)
        return 2
    path, kname, NK, D = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    kern = flyrt.Device("sim").load(path).kernel(kname)
    ok = True
    for n, case in enumerate(sys.argv[5:]):
        race = case.startswith("race:")
        f = case[5:].split(":") if race else case.split(":")
        M = int(f[0])
        amp = float(f[1]) if len(f) > 1 else 1.0
        scale = float(f[2]) if len(f) > 2 else 1.0 / math.sqrt(D)
        name = "pingpong/%s-M%d%s" % (kname.replace("attention_pingpong_", ""), M,
                                       "-amp%g-scale%g" % (amp, scale) if len(f) > 1 else "")
        what = "M=%d NK=%d D=%d amp=%g scale=%g" % (M, NK, D, amp, scale)
        p = array.array("f", [float("nan")] * (M * NK))    # unwritten elements fail
        o = array.array("f", [float("nan")] * (M * D))
        try:
            inp, dt = launch(kern, M, NK, D, amp, scale, 1000 + n, p, o)
        except flyrt.Unsupported as e:
            st = not race and M % 32 != 0 and all(x != x for x in p) and all(x != x for x in o)
            print("%s: %s-refused\n    %s: %s" % ("PASS" if st else "FAIL", name, what, str(e).splitlines()[0]))
            ok = ok and st
            continue
        except flyrt.FlyrtError as e:
            st = race and "racecheck" in str(e)
            print("%s: %s%s\n    %s: %s" % ("PASS" if st else "FAIL", name, "-race" if race else "", what,
                                            " ".join(str(e).split())[:300]))
            ok = ok and st
            continue
        if race:
            print("FAIL: %s-race\n    ran without an LDS race report" % name)
            ok = False
            continue
        if M % 32 != 0:
            print("FAIL: %s-refused\n    ran, but requires M %% 32 == 0" % name)
            ok = False
            continue
        st, msg = check(what, M, NK, D, scale, inp, p, o)
        ok = ok and st
        print("%s: %s\n    %s (simulated in %.2f s)" % ("PASS" if st else "FAIL", name, msg, dt))
        sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
