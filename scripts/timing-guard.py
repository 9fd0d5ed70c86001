#!/usr/bin/python3
"""scripts/timing-guard.py — the regression guard of flyc's own kernels' modelled time
(docs/simulator.md, "Regression guard"): the standard-library operator variants below, at
fixed shapes, timed by the simulator's timing model (MI355X row, timing-only, a fixed
sample) through flyc.ops; tests/timing/guard.tsv holds the committed figures.

    /usr/bin/python3 scripts/timing-guard.py --write          # regenerate tests/timing/guard.tsv
    /usr/bin/python3 scripts/timing-guard.py --check          # what tests/timing/run.sh runs
    /usr/bin/python3 scripts/timing-guard.py --check --subset FILE   # only FILE's rows

--check fails (exit 1, one FAIL line per row) when a row's modelled cycles or µs (summed
over the call's launches; µs is not cycles / clock since the clock under matrix load) moved
by more than ±2%, when its workgroups or launches changed, and
(without --subset, checked first, before anything runs) when the file's rows are not
exactly the cases below. A change of the
compiler, the kernels or the timing model that moves a figure on purpose regenerates the
file (--write) in the same commit, so the move is visible in review.
FLY_BUILD (default build) names the build holding libflyrt.so and the kernel library."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing_cases as tc  # noqa: E402

TOL = 0.02
DEVICE, SAMPLE = "mi355x", 16
GUARD = os.path.join(tc.TOP, "tests", "timing", "guard.tsv")
COLS = ["op", "variant", "shape", "dtype", "device", "sample", "workgroups",
        "sampled_workgroups", "launches", "total_cycles", "total_us"]

# (op, variant, shape, dtype): every NT mm tile at a large and a small GEMM, NN/TN/TT tile
# kernels at the large one, RMSNorm's
# register, short-row and loop kernels (and its backward), TopK's register and radix kernels,
# the MX scaled GEMMs' tiles (bf16 out) at a large and a decode shape, the grouped GEMM's
# 128x64 and 128x128 tiles at 8 groups of 512 rows
CASES = [
    ("mm", "gemm_nt_128x128", (4096, 4096, 1024), "bf16"),
    ("mm", "gemm_nt_256x128", (4096, 4096, 1024), "bf16"),
    ("mm", "gemm_nt_256x256", (4096, 4096, 1024), "bf16"),
    ("mm", "gemm_nt_256x256_st128", (4096, 4096, 1024), "bf16"),
    ("mm", "gemm_nt_ragged", (4096, 4096, 1024), "bf16"),
    ("mm", "gemm_nn_256x256", (4096, 4096, 1024), "bf16:NN"),
    ("mm", "gemm_tn_128x128", (4096, 4096, 1024), "bf16:TN"),
    ("mm", "gemm_tt_256x256", (4096, 4096, 1024), "bf16:TT"),
    ("mm", "gemm_nt_128x128", (512, 512, 512), "bf16"),
    ("mm", "gemm_nt_256x256", (512, 512, 512), "bf16"),
    ("rms_norm", "rms_norm_bf16_r16", (4096, 64), "bf16"),
    ("rms_norm", "rms_norm_bf16_r64", (4096, 256), "bf16"),
    ("rms_norm", "rms_norm_bf16_n4096", (4096, 4096), "bf16"),
    ("rms_norm", "rms_norm_bf16_loop", (4096, 4096), "bf16"),
    ("rms_norm", "rms_norm_f32_n4096", (2048, 4096), "f32"),
    ("rms_norm_backward", "rms_norm_bwd_bf16_n4096", (2048, 4096), "bf16"),
    ("topk", "topk_f32_reg8", (4096, 1024, 8), "f32"),
    ("topk", "topk_f32_reg16", (1024, 4096, 16), "f32"),
    ("topk", "topk_f32_radix", (64, 65536, 64), "f32"),
    ("scaled_mm", "scaled_mm_fp8_bf16_32x32", (4096, 4096, 1024), "mxfp8"),
    ("scaled_mm", "scaled_mm_fp4_bf16_32x32", (4096, 4096, 1024), "mxfp4"),
    ("scaled_mm", "scaled_mm_fp8_bf16_128x128", (4096, 4096, 1024), "mxfp8"),
    ("scaled_mm", "scaled_mm_fp4_bf16_128x128", (4096, 4096, 1024), "mxfp4"),
    ("scaled_mm", "scaled_mm_fp8_bf16_16x32", (16, 4096, 4096), "mxfp8"),
    ("scaled_mm", "scaled_mm_fp4_bf16_16x32", (16, 4096, 4096), "mxfp4"),
    ("grouped_mm", "grouped_mm_nn_bf16_n64", (8, 512, 2048, 1024), "bf16"),
    ("grouped_mm", "grouped_mm_nn_bf16", (8, 512, 2048, 1024), "bf16"),
    ("grouped_mm", "grouped_mm_nn_bf16_p", (8, 512, 2048, 1024), "bf16"),
]


def key(op, variant, shape, dtype):
    return (op, variant, tc.shape_text(shape), dtype)


def measure(op, variant, shape, dtype):
    t = tc.modelled(op, variant, shape, dtype, SAMPLE, DEVICE)
    if not t.get("total_launches"):
        raise RuntimeError("%s %s %s: no launch was timed" % (op, variant, tc.shape_text(shape)))
    return {"op": op, "variant": variant, "shape": tc.shape_text(shape), "dtype": dtype,
            "device": t["device"], "sample": str(SAMPLE), "workgroups": str(t["workgroups"]),
            "sampled_workgroups": str(t["sampled_workgroups"]),
            "launches": str(t["total_launches"]), "total_cycles": str(t["total_cycles"]),
            "total_us": "%.3f" % t["total_us"]}


def read(path):
    rows = []
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    if not lines or lines[0].split("\t") != COLS:
        raise SystemExit("%s: the header must be %s" % (path, "\t".join(COLS)))
    for n, l in enumerate(lines[1:], 2):
        cells = l.split("\t")
        if len(cells) != len(COLS):
            raise SystemExit("%s: row %d has %d cells, expected %d" % (path, n, len(cells), len(COLS)))
        rows.append(dict(zip(COLS, cells)))
    return rows


def write(path):
    out = ["# tests/timing/guard.tsv — modelled time of flyc's standard-library kernels, written by",
           "# scripts/timing-guard.py --write; checked (±2% of total_cycles and of total_us) by --check in",
           "# tests/timing/run.sh. The simulator's timing model, device %s, timing-only, %d" % (DEVICE, SAMPLE),
           "# sampled workgroups per launch; total_* sum the call's launches.",
           "\t".join(COLS)]
    for c in CASES:
        r = measure(*c)
        out.append("\t".join(r[k] for k in COLS))
        print("\t".join(r[k] for k in COLS))
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(path + ".tmp", path)
    print("wrote %s: %d rows" % (path, len(CASES)))


def check(path, subset):
    rows = read(path)
    bad = 0
    want = {key(*c): c for c in CASES}
    have = {(r["op"], r["variant"], r["shape"], r["dtype"]) for r in rows}
    if not subset:
        for k in sorted(set(want) - have):
            print("FAIL: timing/guard: %s %s %s %s is not in %s (regenerate: --write)" % (k + (path,)))
            bad += 1
        for k in sorted(have - set(want)):
            print("FAIL: timing/guard: %s holds %s %s %s %s, not a case (regenerate: --write)"
                  % ((path,) + k))
            bad += 1
        if bad:
            return 1   # a stale file: nothing to measure against
    for r in rows:
        if r["device"] != DEVICE or r["sample"] != str(SAMPLE):
            print("FAIL: timing/guard: %s %s: device %s sample %s, the guard uses %s %d"
                  % (r["variant"], r["shape"], r["device"], r["sample"], DEVICE, SAMPLE))
            bad += 1
            continue
        got = measure(r["op"], r["variant"], tc.parse_shape(r["shape"]), r["dtype"])
        old, new = int(r["total_cycles"]), int(got["total_cycles"])
        moved = (new - old) / old if old else float("inf")
        # the time too: us is not cycles / clock (the clock under matrix load)
        uold, unew = float(r["total_us"]), float(got["total_us"])
        umoved = (unew - uold) / uold if uold else float("inf")
        if abs(umoved) > abs(moved) + 1e-3:   # beyond the rounding of the file's us
            moved = umoved
        name = "%s %s %s" % (r["variant"], r["shape"], r["dtype"])
        if abs(moved) > TOL or got["workgroups"] != r["workgroups"] or got["launches"] != r["launches"]:
            print("FAIL: timing/guard: %s: %d cycles (%s us), the guard has %d (%s us): %+.1f%% "
                  "(±%.0f%% allowed); workgroups %s/%s, launches %s/%s"
                  % (name, new, got["total_us"], old, r["total_us"], 100 * moved, 100 * TOL,
                     got["workgroups"], r["workgroups"], got["launches"], r["launches"]))
            bad += 1
        else:
            print("ok %s: %d cycles, %+.2f%%" % (name, new, 100 * moved))
    if not bad:
        print("PASS: timing/guard: %d rows of %s within ±%.0f%%" % (len(rows), os.path.basename(path), 100 * TOL))
    return 1 if bad else 0


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    path = args[0] if args else GUARD
    tc.setup()
    if "--write" in argv:
        write(path)
        return 0
    if "--check" in argv:
        return check(path, "--subset" in argv)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
