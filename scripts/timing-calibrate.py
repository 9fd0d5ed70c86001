#!/usr/bin/python3
"""timing-calibrate.py: calibrate the simulator's gfx950 timing model on the kernel
times ROCm/aiter publishes for its hand-written bf16 and MXFP4 GEMM code objects on
gfx950 (256 CUs), and check the committed calibration tables (docs/simulator.md
"Calibration").

    /usr/bin/python3 scripts/timing-calibrate.py AITER [--smoke] [--published]
                     [--model] [--fit] [--limit=N] [--jobs=N]
    /usr/bin/python3 scripts/timing-calibrate.py AITER --fit-sim=N [--params=FILE] [--search=KEY=V1,V2]
                     [--with=ID,...]
    /usr/bin/python3 scripts/timing-calibrate.py --check

AITER is a copy of the ROCm/aiter repository: a bare git directory (as the fetch
tool gives) or a checkout with its .git. Nothing of aiter is kept: the CSV rows and
the code objects are read at run time only; what is written are the published
figures with their source named (repo, commit, path, line) and our modeled figures.
Without AITER (or with a missing copy) the script prints SKIP and exits 0.

Steps (default: all of --published --smoke --model --fit):
  --published  extract the rows of aiter/configs/**/*bf16*tuned*gemm*.csv with
               gfx=gfx950, cu_num=256, libtype=asm whose kernel is a code object in
               hsa/gfx950/bf16gemm/ that the simulator runs (FAMILIES below), and of
               **/*a4w4_blockscale_tuned_gemm.csv whose kernel is one of
               hsa/gfx950/f4gemm/ (F4_RE); write tests/timing/calib/published.tsv:
               one row per published row, with the commit that last touched the row
               (git blame) and the fetched HEAD; and secondary.tsv (FlyDSL's rows).
  --smoke      run every selected code object functionally at a reduced shape in
               the simulator against a float64 CPU reference (does it run at all:
               no unsupported instruction, right answer).
  --model      run every published launch in the simulator's timing-only sampled
               mode at its full shape; write tests/timing/calib/modeled.tsv.
  --fit        fit the constants of the roofline baseline (below; the timing
               model's own once flyc-sim has it) on the fitting set, write modeled.tsv,
               tests/timing/calib/fit.tsv (constants) and errors.tsv (per family
               and set: n, median and max |modeled/published - 1|).
  --fit-sim=N  fit the timing model's own constants on the N least-work rows of the
               bf16 families that run in timing-only mode (pf3, tile256), each run
               through flyc-sim: mfma_clock_mhz and launch_cycles from every pass without
               rerunning (us = cu_cycles / eff_clock + launch_cycles / clock), and a grid
               over --search=KEY=V1,V2,... (repeatable: the cartesian product, one pass
               per point; keys are columns of sim_timing_params.h); report the committed
               and every point's error on fitting and held-out rows. --params=FILE adds
               FLY_SIM_TIMING_PARAMS assignments to every point; --with=ID,ID adds rows
               of those families by id (e.g. the 8192x8192 ones); FIT_SIM_DUMP=FILE writes
               every pass's figures as JSON. Reads published.tsv, not aiter's CSVs.
  --check      no aiter needed: verify the committed tables (format, every row's
               set is the one its shape hashes to, modeled rows match published
               rows, errors.tsv recomputed from modeled.tsv).

The split (SPLIT below): a row is held out when the first 8 hex digits of
sha256("M,N,K") are, as an integer, = 7, 8 or 9 mod 10 (about 30%); every row of a
shape is in the same set, whichever kernel or file it comes from.
"""

import csv
import hashlib
import io
import json
import math
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, ".."))
# the tables; FLY_CALIB_DIR points --check at another copy (the tier's damaged ones)
CALIB = os.environ.get("FLY_CALIB_DIR") or os.path.join(TOP, "tests", "timing", "calib")
REPO = "ROCm/aiter"
SUB = "hsa/gfx950/bf16gemm"
CSV_RE = re.compile(r"^aiter/configs/(model_configs/)?[^/]*bf16[^/]*tuned[^/]*gemm[^/]*\.csv$")

# The code-object families the simulator runs: code object name -> (family, tileM,
# tileN, B preshuffled, split-K protocol). Grids are aiter's (csrc/py_itfs_cu/
# asm_gemm_a16w16.cu): (ceil(N/tileN), ceil(M/tileM), split-K), block 256.
#   clean: split-K > 1 with the semaphore protocol (the last split resets it);
#   plain: split-K 1, no semaphore argument (the pf3 kernels, the 256x256 one).
FAMILIES = {
    "bf16gemm_fp32bf16_tn_32x64_splitk_clean": ("splitk_clean", 32, 64, False, "clean"),
    "bf16gemm_fp32bf16_tn_48x64_splitk_clean": ("splitk_clean", 48, 64, False, "clean"),
    "bf16gemm_fp32bf16_tn_64x64_splitk_clean": ("splitk_clean", 64, 64, False, "clean"),
    "bf16gemm_fp32bf16_tn_80x64_splitk_clean": ("splitk_clean", 80, 64, False, "clean"),
    "bf16gemm_fp32bf16_tn_96x64_splitk_clean": ("splitk_clean", 96, 64, False, "clean"),
    "bf16gemm_fp32bf16_tn_48x64_pf3_splitk": ("pf3", 48, 64, False, "plain"),
    "bf16gemm_fp32bf16_tn_64x64_pf3_splitk": ("pf3", 64, 64, False, "plain"),
    "bf16gemm_fp32bf16_tn_96x64_pf3_splitk": ("pf3", 96, 64, False, "plain"),
    "bf16gemm_bf16_tn_256x256": ("tile256", 256, 256, False, "plain"),
}
# aiter's MXFP4 GEMMs (hsa/gfx950/f4gemm/f4gemm_bf16_per1x32Fp4_BpreShuffle_MxN.co,
# csrc/py_itfs_cu/asm_gemm_a4w4.cu): A and B fp4 (two per byte, B preshuffled), an
# e8m0 scale per 32 of K, D bf16; grid (ceil(N/tileN), ceil(M/tileM), 1)
F4_RE = re.compile(r"f4gemm_bf16_per1x32Fp4_BpreShuffle_(\d+)x(\d+)")
F4_SUB = "hsa/gfx950/f4gemm"
F4_CSV_RE = re.compile(r"^aiter/configs/(model_configs/)?[^/]*a4w4_blockscale_tuned_gemm\.csv$")


def fam_of(kern):
    """(family, tileM, tileN, B preshuffled, split-K protocol) of a code object, or None."""
    if kern in FAMILIES:
        return FAMILIES[kern]
    m = F4_RE.fullmatch(kern or "")
    return ("f4", int(m.group(1)), int(m.group(2)), True, "plain") if m else None


def sub_of(kern):
    return F4_SUB if F4_RE.fullmatch(kern) else SUB

PUB_COLS = ["id", "family", "kernel", "M", "N", "K", "splitk", "out", "us", "tflops",
            "set", "repo", "commit", "path", "line", "row_commit"]
MOD_COLS = ["id", "family", "kernel", "M", "N", "K", "splitk", "set", "published_us",
            "modeled_us", "ratio", "workgroups", "sampled", "cycles"]
ERR_COLS = ["family", "set", "n", "median_abs_err", "max_abs_err"]


# ---- the split -----------------------------------------------------------------

def split_of(m, n, k):
    """'fit' or 'held' for a shape: held when int(sha256('M,N,K')[:8], 16) % 10 >= 7."""
    h = int(hashlib.sha256(("%d,%d,%d" % (m, n, k)).encode()).hexdigest()[:8], 16)
    return "held" if h % 10 >= 7 else "fit"


# ---- reading the aiter copy ----------------------------------------------------

def git(root, *args, binary=False):
    r = subprocess.run(["git", "--git-dir", root] + list(args), capture_output=True)
    if r.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), r.stderr.decode(errors="replace")))
    return r.stdout if binary else r.stdout.decode()


def git_dir(path):
    """The git directory of a bare copy or a checkout, or None."""
    for cand in (path, os.path.join(path, ".git")):
        if os.path.isfile(os.path.join(cand, "HEAD")) and os.path.isdir(os.path.join(cand, "objects")):
            return cand
    return None


def blame_lines(root, path):
    """{line number: commit} for a file at HEAD."""
    out, cur = {}, None
    for ln in git(root, "blame", "--porcelain", "HEAD", "--", path).splitlines():
        f = ln.split(" ")
        if len(f) >= 3 and re.fullmatch(r"[0-9a-f]{40}", f[0]):
            out[int(f[2])] = f[0]
    return out


def kernel_of(mangled):
    """'_ZN5aiter24bf16gemm_bf16_tn_256x256E' -> 'bf16gemm_bf16_tn_256x256' (or None)."""
    m = re.fullmatch(r"_ZN5aiter(\d+)(\w+)E", mangled)
    if not m or int(m.group(1)) != len(m.group(2)):
        return None
    return m.group(2)


def extract(root):
    """The published rows (dicts with PUB_COLS) of the aiter copy at HEAD."""
    head = git(root, "rev-parse", "HEAD").strip()
    files = sorted(p for p in git(root, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
                   if CSV_RE.match(p))
    have = {os.path.basename(p)[:-3] for p in
            git(root, "ls-tree", "-r", "--name-only", "HEAD", SUB + "/").splitlines()
            if p.endswith(".co")}
    rows = []
    for path in files:
        text = git(root, "show", "HEAD:" + path)
        rd = list(csv.reader(io.StringIO(text)))
        if not rd:
            continue
        hdr = rd[0]
        need = ["gfx", "cu_num", "M", "N", "K", "outdtype", "libtype", "splitK", "us", "kernelName"]
        if any(c not in hdr for c in need):
            continue
        ix = {c: hdr.index(c) for c in hdr}
        blame = None
        for lineno, r in enumerate(rd[1:], start=2):
            if len(r) != len(hdr):
                continue
            if r[ix["gfx"]] != "gfx950" or r[ix["cu_num"]] != "256" or r[ix["libtype"]] != "asm":
                continue
            kern = kernel_of(r[ix["kernelName"]])
            if kern not in FAMILIES or kern not in have:
                continue
            if "bpreshuffle" in ix and r[ix["bpreshuffle"]] != "False":
                continue
            if "bias" in ix and r[ix["bias"]] != "False":
                continue
            if blame is None:
                blame = blame_lines(root, path)
            m, n, k = int(r[ix["M"]]), int(r[ix["N"]]), int(r[ix["K"]])
            out = {"torch.bfloat16": "bf16", "torch.float32": "f32"}[r[ix["outdtype"]]]
            rows.append({"family": fam_of(kern)[0], "kernel": kern, "M": m, "N": n, "K": k,
                         "splitk": int(r[ix["splitK"]]), "out": out,
                         "us": float(r[ix["us"]]),
                         "tflops": float(r[ix["tflops"]]) if "tflops" in ix else float("nan"),
                         "set": split_of(m, n, k), "repo": REPO, "commit": head, "path": path,
                         "line": lineno, "row_commit": blame.get(lineno, "")})
    f4have = {os.path.basename(p)[:-3] for p in
              git(root, "ls-tree", "-r", "--name-only", "HEAD", F4_SUB + "/").splitlines()
              if p.endswith(".co")}
    for path in sorted(p for p in git(root, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
                       if F4_CSV_RE.match(p)):
        rd = list(csv.reader(io.StringIO(git(root, "show", "HEAD:" + path))))
        if not rd or any(c not in rd[0] for c in ("gfx", "cu_num", "M", "N", "K", "splitK",
                                                  "us", "kernelName")):
            continue
        ix = {c: i for i, c in enumerate(rd[0])}
        blame = None
        for lineno, r in enumerate(rd[1:], start=2):
            if len(r) != len(rd[0]) or r[ix["gfx"]] != "gfx950" or r[ix["cu_num"]] != "256":
                continue
            kern = kernel_of(r[ix["kernelName"]])
            if kern is None or not F4_RE.fullmatch(kern) or kern not in f4have \
                    or r[ix["splitK"]] != "0":
                continue
            if blame is None:
                blame = blame_lines(root, path)
            m, n, k = int(r[ix["M"]]), int(r[ix["N"]]), int(r[ix["K"]])
            rows.append({"family": "f4", "kernel": kern, "M": m, "N": n, "K": k,
                         "splitk": 1, "out": "bf16", "us": float(r[ix["us"]]),
                         "tflops": float(r[ix["tflops"]]) if "tflops" in ix else float("nan"),
                         "set": split_of(m, n, k), "repo": REPO, "commit": head, "path": path,
                         "line": lineno, "row_commit": blame.get(lineno, "")})
    for i, r in enumerate(rows, start=1):
        r["id"] = i
    return rows


SEC_COLS = ["id", "library", "kernel", "M", "N", "K", "splitk", "out", "us", "tflops",
            "repo", "commit", "path", "line"]


def extract_secondary(root):
    """FlyDSL's published gfx950 (256 CUs) bf16 GEMM times: the libtype=flydsl rows of
    the same tuned-GEMM CSVs (kernels JIT-compiled by FlyDSL, no code object in the
    repository, so not modeled: facts for comparison only)."""
    head = git(root, "rev-parse", "HEAD").strip()
    files = sorted(p for p in git(root, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
                   if CSV_RE.match(p))
    rows = []
    for path in files:
        rd = list(csv.reader(io.StringIO(git(root, "show", "HEAD:" + path))))
        if not rd or "libtype" not in rd[0] or "tflops" not in rd[0]:
            continue
        ix = {c: i for i, c in enumerate(rd[0])}
        for lineno, r in enumerate(rd[1:], start=2):
            if len(r) != len(rd[0]) or r[ix["libtype"]] != "flydsl":
                continue
            if r[ix["gfx"]] != "gfx950" or r[ix["cu_num"]] != "256":
                continue
            rows.append({"library": "FlyDSL", "kernel": r[ix["kernelName"]],
                         "M": int(r[ix["M"]]), "N": int(r[ix["N"]]), "K": int(r[ix["K"]]),
                         "splitk": int(r[ix["splitK"]]),
                         "out": {"torch.bfloat16": "bf16", "torch.float32": "f32"}
                         .get(r[ix["outdtype"]], r[ix["outdtype"]]),
                         "us": float(r[ix["us"]]), "tflops": float(r[ix["tflops"]]),
                         "repo": REPO, "commit": head, "path": path, "line": lineno})
    for i, r in enumerate(rows, start=1):
        r["id"] = i
    return rows


def code_objects(root, names, tmp):
    """{name: path} of the named code objects, read from the copy into tmp."""
    out = {}
    for n in names:
        q = os.path.join(tmp, n + ".co")
        with open(q, "wb") as f:
            f.write(git(root, "show", "HEAD:%s/%s.co" % (sub_of(n), n), binary=True))
        out[n] = q
    return out


# ---- tables ----------------------------------------------------------------------

def write_tsv(path, cols, rows, fmt=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(fmt(c, r[c]) if fmt else str(r[c]) for c in cols) + "\n")


def read_tsv(path):
    with open(path) as f:
        lines = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
    return lines[0], [dict(zip(lines[0], ln)) for ln in lines[1:]], lines


def fmt_cell(c, v):
    if isinstance(v, float):
        return "%.6g" % v if c not in ("us", "published_us", "modeled_us") else "%.4f" % v
    return str(v)


# ---- running the code objects ------------------------------------------------------

def bf16_round(x):
    import numpy as np
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_val(b):
    import numpy as np
    return (b.astype(np.uint32) << 16).view(np.float32)


def f32_bits(x):
    return struct.unpack("<i", struct.pack("<f", x))[0]


def kernel_args(kern, name, m, n, k, split, out, ptrs):
    """aiter's KernelArgs values for the code object's argument list (pads are 0)."""
    esz = 2 if out == "bf16" else 4
    vals = {"D": ptrs["D"], "C": ptrs["dummy"], "A": ptrs["A"], "B": ptrs["B"],
            "alpha": f32_bits(1.0), "beta": f32_bits(0.0),
            "strideD0": n * esz, "strideD1": 0, "strideC0": n * esz, "strideC1": 0,
            "strideA0": k * 2, "strideA1": 0, "strideB0": k * 2, "strideB1": 0,
            "Mdim": m, "Ndim": n, "Kdim": k, "splitk": split,
            "is_out_b16": 1 if out == "bf16" else 0, "Bias": ptrs["dummy"], "add_bias": 0,
            "ptr_semaphore": ptrs.get("sema", ptrs["dummy"])}
    return [0 if ai.name == "pad" else vals[ai.name] for ai in kern.args]


def grid_of(name, m, n, split):
    _, tm, tn, _, _ = fam_of(name)
    return ((n + tn - 1) // tn, (m + tm - 1) // tm, max(split, 1))


# (code object, M, N, K, split-K, out): reduced shapes of the published launches
# (M not a multiple of the tile where aiter has such rows)
SMOKE = [
    ("bf16gemm_fp32bf16_tn_32x64_splitk_clean", 40, 128, 512, 4, "f32"),
    ("bf16gemm_fp32bf16_tn_48x64_splitk_clean", 50, 64, 256, 2, "f32"),
    ("bf16gemm_fp32bf16_tn_64x64_splitk_clean", 64, 128, 384, 3, "bf16"),
    ("bf16gemm_fp32bf16_tn_80x64_splitk_clean", 100, 128, 512, 2, "bf16"),
    ("bf16gemm_fp32bf16_tn_96x64_splitk_clean", 150, 64, 512, 4, "f32"),
    ("bf16gemm_fp32bf16_tn_48x64_pf3_splitk", 50, 128, 256, 1, "bf16"),
    ("bf16gemm_fp32bf16_tn_64x64_pf3_splitk", 64, 64, 512, 1, "f32"),
    ("bf16gemm_fp32bf16_tn_96x64_pf3_splitk", 100, 128, 256, 1, "bf16"),
    ("bf16gemm_bf16_tn_256x256", 256, 256, 256, 1, "bf16"),
    ("bf16gemm_bf16_tn_256x256", 300, 512, 128, 1, "f32"),
]


def smoke_case(dev, mods, case, rng):
    """Run one reduced launch functionally; the list of problems (empty: right)."""
    import numpy as np
    import flyrt
    name, m, n, k, split, out = case
    kern = mods[name].kernel("_ZN5aiter%d%sE" % (len(name), name))
    a = bf16_round(rng.standard_normal((m, k)).astype(np.float32))
    b = bf16_round(rng.standard_normal((n, k)).astype(np.float32))
    esz = 2 if out == "bf16" else 4
    guard, dbytes = 4096, m * n * esz
    bufs = {"Dall": dev.alloc(guard + dbytes + guard), "A": dev.upload(a.tobytes()),
            "B": dev.upload(b.tobytes()), "sema": dev.upload(bytes(16 * 64 * 4)),
            "dummy": dev.alloc(16)}
    bufs["Dall"].upload(b"\xff" * (guard + dbytes + guard))
    ptrs = {x: v.ptr for x, v in bufs.items()}
    ptrs["D"] = ptrs["Dall"] + guard
    problems = []
    try:
        kern(*kernel_args(kern, name, m, n, k, split, out, ptrs),
             grid=grid_of(name, m, n, split), block=(256, 1, 1))
    except flyrt.FlyrtError as e:
        problems.append("launch failed: %s" % e)
    if not problems:
        raw = np.frombuffer(bufs["Dall"].to_bytes(), dtype=np.uint8)
        if not (raw[:guard] == 0xFF).all() or not (raw[guard + dbytes:] == 0xFF).all():
            problems.append("a NaN guard around D was written")
        body = raw[guard:guard + dbytes]
        ref = bf16_val(a).astype(np.float64) @ bf16_val(b).astype(np.float64).T
        if out == "bf16":
            got = bf16_val(body.view(np.uint16)).astype(np.float64).reshape(m, n)
            # the split-K protocol in numpy: D = 0; for each split s in launch order
            # D = bf16(D + bf16(partial_s)) (global_atomic_pk_add_bf16 of the rounded
            # partial over K slice s); the result within one bf16 ulp of that, plus
            # the fp32 accumulation error (the kernel's order is not numpy's)
            kc, emu = k // split, np.zeros((m, n), np.float32)
            for s in range(split):
                p = (bf16_val(a[:, s * kc:(s + 1) * kc]).astype(np.float64)
                     @ bf16_val(b[:, s * kc:(s + 1) * kc]).astype(np.float64).T)
                emu = bf16_val(bf16_round(emu + bf16_val(bf16_round(p.astype(np.float32)))))
            ref = emu.astype(np.float64)
            tol = 2.0 ** -7 * np.abs(ref) + 1e-6 * np.sqrt(k) * np.abs(ref).max()
        else:
            got = body.view(np.float32).astype(np.float64).reshape(m, n)
            tol = 1e-5 * np.sqrt(k) * np.abs(ref).max() + 1e-6
        bad = ~(np.abs(got - ref) <= tol)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            problems.append("%d of %d outputs wrong, first D[%d,%d] = %r, reference %r"
                            % (bad.sum(), m * n, i, j, got[i, j], ref[i, j]))
        left = set(np.frombuffer(bufs["sema"].to_bytes(), dtype=np.uint32).tolist())
        if split > 1 and left != {0}:
            problems.append("the split-K semaphore holds %s after the launch" % sorted(left))
    for v in bufs.values():
        v.free()
    return problems


# fp4 code objects at reduced shapes: (code object, M, N, K). No reference yet (B
# and the scales are in aiter's preshuffled layouts): the launch must complete, write
# every element of D (NaN before) with a finite value and leave the guards alone.
SMOKE_F4 = [
    ("f4gemm_bf16_per1x32Fp4_BpreShuffle_32x128", 20, 256, 1024),
    ("f4gemm_bf16_per1x32Fp4_BpreShuffle_64x128", 64, 128, 512),
    ("f4gemm_bf16_per1x32Fp4_BpreShuffle_256x256", 256, 512, 512),
]


def f4_bufs(dev, m, n, k, rng):
    """A, B (random fp4 pairs), scales of 1.0 (e8m0 127, rows padded to 256), D."""
    import numpy as np
    mp, np_ = -(-m // 256) * 256, -(-n // 256) * 256
    return {"A": dev.upload(rng.integers(0, 256, m * k // 2, dtype=np.uint8).tobytes()),
            "B": dev.upload(rng.integers(0, 256, n * k // 2, dtype=np.uint8).tobytes()),
            "ScaleA": dev.upload(bytes([127]) * (mp * k // 32)),
            "ScaleB": dev.upload(bytes([127]) * (np_ * k // 32)), "dummy": dev.alloc(16)}


def f4_vals(m, n, k):
    return {"alpha": f32_bits(1.0), "beta": f32_bits(0.0), "strideD0": n, "strideD1": 0,
            "strideC0": n, "strideC1": 0, "strideA0": k, "strideA1": 0, "strideB0": k,
            "strideB1": 0, "Mdim": m, "Ndim": n, "Kdim": k, "strideScaleA0": k // 32,
            "strideScaleA1": 0, "strideScaleB0": k // 32, "strideScaleB1": 0, "log2_k_split": 0}


def smoke_f4(dev, mods, case, rng):
    import numpy as np
    import flyrt
    name, m, n, k = case
    kern = mods[name].kernel("_ZN5aiter%d%sE" % (len(name), name))
    bufs = f4_bufs(dev, m, n, k, rng)
    guard, dbytes = 4096, m * n * 2
    bufs["Dall"] = dev.alloc(guard + dbytes + guard)
    bufs["Dall"].upload(b"\xff" * (guard + dbytes + guard))
    ptr = {"D": bufs["Dall"].ptr + guard, "C": bufs["dummy"].ptr}
    vals = f4_vals(m, n, k)
    args = [0 if ai.name == "pad" else ptr[ai.name] if ai.name in ptr else
            bufs[ai.name].ptr if ai.name in bufs else vals[ai.name] for ai in kern.args]
    problems = []
    try:
        _, tm, tn, _, _ = fam_of(name)
        kern(*args, grid=(-(-n // tn), -(-m // tm), 1), block=(256, 1, 1))
    except flyrt.FlyrtError as e:
        problems.append("launch failed: %s" % e)
    if not problems:
        raw = np.frombuffer(bufs["Dall"].to_bytes(), dtype=np.uint8)
        if not (raw[:guard] == 0xFF).all() or not (raw[guard + dbytes:] == 0xFF).all():
            problems.append("a NaN guard around D was written")
        d = bf16_val(raw[guard:guard + dbytes].view(np.uint16))
        if not np.isfinite(d).all():
            problems.append("%d of %d outputs not written or not finite"
                            % ((~np.isfinite(d)).sum(), m * n))
    for v in bufs.values():
        v.free()
    return problems


def smoke(root):
    import numpy as np
    sys.path.insert(0, os.path.join(TOP, "python"))
    import flyrt
    npass = nfail = 0
    with tempfile.TemporaryDirectory() as tmp:
        cos = code_objects(root, sorted({c[0] for c in SMOKE + SMOKE_F4}), tmp)
        dev = flyrt.Device("sim")
        mods = {n: dev.load(p) for n, p in cos.items()}
        rng = np.random.default_rng(950)
        for c in SMOKE:
            problems = smoke_case(dev, mods, c, rng)
            what = "%s M=%d N=%d K=%d splitk=%d out=%s" % c
            if problems:
                nfail += 1
                print("FAIL: smoke %s: %s" % (what, "; ".join(problems)))
            else:
                npass += 1
                print("ok: smoke %s" % what)
        for c in SMOKE_F4:
            problems = smoke_f4(dev, mods, c, rng)
            what = "%s M=%d N=%d K=%d (runs, D written and finite; no reference)" % c
            if problems:
                nfail += 1
                print("FAIL: smoke %s: %s" % (what, "; ".join(problems)))
            else:
                npass += 1
                print("ok: smoke %s" % what)
        dev.close()
    print("smoke: %d passed, %d failed" % (npass, nfail))
    return nfail == 0


# ---- the timing runs ------------------------------------------------------------------

def sim_argv(sim, co, name, kern, m, n, k, split, out, timing=None, sample=None):
    """flyc-sim's command line for a full-shape launch of a published row: buffers of
    the launch's sizes (zero-filled: the timing does not depend on the values),
    scalars as aiter's KernelArgs, pads as the metadata lists them."""
    esz = 2 if out == "bf16" else 4
    sizes = {"D": m * n * esz, "A": m * k * 2, "B": n * k * 2, "C": 16, "Bias": 16,
             "ptr_semaphore": 16 * 64 * 4}
    vals = {"alpha": f32_bits(1.0), "beta": f32_bits(0.0),
            "strideD0": n * esz, "strideD1": 0, "strideC0": n * esz, "strideC1": 0,
            "strideA0": k * 2, "strideA1": 0, "strideB0": k * 2, "strideB1": 0,
            "Mdim": m, "Ndim": n, "Kdim": k, "splitk": split,
            "is_out_b16": 1 if out == "bf16" else 0, "add_bias": 0}
    argv = [sim, co, "_ZN5aiter%d%sE" % (len(name), name),
            "--grid=%d,%d,%d" % grid_of(name, m, n, split), "--block=256,1,1", "--any-grid"]
    if timing:
        argv += ["--timing=" + timing, "--timing-only"]
        if sample:
            argv.append("--timing-sample=%d" % sample)
    if fam_of(name)[0] == "f4":
        mp, np_ = -(-m // 256) * 256, -(-n // 256) * 256
        sizes = {"D": m * n * 2, "C": 16, "A": m * k // 2, "B": n * k // 2,
                 "ScaleA": mp * k // 32, "ScaleB": np_ * k // 32}
        vals = f4_vals(m, n, k)
    for ai in kern.args:
        if ai.name == "pad":
            argv.append("%s=0" % ai.type)
        elif ai.type == "ptr":
            argv.append("buf=%d,fill=zero" % sizes[ai.name])
        else:
            argv.append("%s=%d" % (ai.type, vals[ai.name]))
    return argv


def sample_of(r):
    """Workgroups timed in full: a whole first wave of CUs for cheap tiles, fewer
    for the 256x256 tile (one workgroup of it at K=16384 is ~2 GFLOP to simulate)."""
    return 4 if r["family"] == "tile256" else 16


def model(root, rows, limit=None):
    """Run each published row in timing-only mode; the modeled rows (or None when
    flyc-sim has no timing mode)."""
    sys.path.insert(0, os.path.join(TOP, "python"))
    import flyrt
    sim = os.path.join(TOP, "build", "bin", "flyc-sim")
    if not os.path.exists(sim):
        print("SKIP: timing-calibrate --model: no %s (make first)" % sim)
        return None
    h = subprocess.run([sim, "--help"], capture_output=True, text=True)
    if "--timing" not in h.stdout + h.stderr:
        print("SKIP: timing-calibrate --model: flyc-sim has no --timing mode yet")
        return None
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        cos = code_objects(root, sorted({r["kernel"] for r in rows}), tmp)
        dev = flyrt.Device("sim")
        kerns = {n: dev.load(p).kernel("_ZN5aiter%d%sE" % (len(n), n)) for n, p in cos.items()}
        for r in rows[:limit] if limit else rows:
            js = os.path.join(tmp, "t.json")
            argv = sim_argv(sim, cos[r["kernel"]], r["kernel"], kerns[r["kernel"]], r["M"], r["N"],
                            r["K"], r["splitk"], r["out"], timing=js, sample=sample_of(r))
            p = subprocess.run(argv, capture_output=True, text=True)
            if p.returncode != 0 or not os.path.exists(js):
                print("FAIL: model row %d (%s M=%d N=%d K=%d): %s" % (r["id"], r["kernel"], r["M"],
                      r["N"], r["K"], (p.stderr or p.stdout).strip()[-300:]))
                continue
            with open(js) as f:
                t = json.load(f)
            out.append({"id": r["id"], "family": r["family"], "kernel": r["kernel"], "M": r["M"],
                        "N": r["N"], "K": r["K"], "splitk": r["splitk"], "set": r["set"],
                        "published_us": r["us"], "modeled_us": float(t["us"]),
                        "ratio": float(t["us"]) / r["us"], "workgroups": t["workgroups"],
                        "sampled": t["sampled_workgroups"], "cycles": t["cycles"]})
            print("model row %d: %s M=%d N=%d K=%d published %.2f us modeled %.2f us"
                  % (r["id"], r["kernel"], r["M"], r["N"], r["K"], r["us"], float(t["us"])))
        dev.close()
    return out


def fit_sim_pass(root, rows, params, tag=""):
    """One pass of --fit-sim: every row through flyc-sim's timing-only mode with
    FLY_SIM_TIMING_PARAMS=params (None: the committed table); [(row, json)]."""
    sys.path.insert(0, os.path.join(TOP, "python"))
    import flyrt
    sim = os.path.join(TOP, "build", "bin", "flyc-sim")
    env = dict(os.environ)
    if params:
        env["FLY_SIM_TIMING_PARAMS"] = params
    got = []
    with tempfile.TemporaryDirectory() as tmp:
        cos = code_objects(root, sorted({r["kernel"] for r in rows}), tmp)
        dev = flyrt.Device("sim")
        kerns = {k: dev.load(q).kernel("_ZN5aiter%d%sE" % (len(k), k)) for k, q in cos.items()}
        for r in rows:
            js = os.path.join(tmp, "t.json")
            argv = sim_argv(sim, cos[r["kernel"]], r["kernel"], kerns[r["kernel"]], r["M"], r["N"],
                            r["K"], r["splitk"], r["out"], timing=js, sample=sample_of(r))
            p = subprocess.run(argv, capture_output=True, text=True, env=env)
            if p.returncode != 0:
                print("FAIL: fit-sim row %d: %s" % (r["id"], (p.stderr or p.stdout).strip()[-300:]))
                continue
            with open(js) as f:
                t = json.load(f)
            got.append((r, t))
            print("fit-sim%s row %d %s %s M=%d N=%d K=%d: published %.2f us, modeled %.2f us (cu %d cycles, "
                  "MFMA busy %.2f)" % (tag, r["id"], r["set"], r["kernel"], r["M"], r["N"], r["K"], r["us"],
                                       t["us"], t["cu_cycles"], t["mfma_busy"]))
            sys.stdout.flush()
        dev.close()
    return got


def sim_us(t, mclk, launch):
    """A row's modeled us with mfma_clock_mhz and launch_cycles replaced (the formula of
    sim_tm_end: us = cu_cycles / eff_clock + launch_cycles / clock_mhz, the effective clock
    moving from clock_mhz toward mfma_clock_mhz with the chip's matrix activity: MFMA busy
    x workgroups / (workgroups per CU, rounded up, x CUs))."""
    clk = t["clock_mhz"]
    per_cu = -(-t["workgroups"] // t["cus"])
    act = t["mfma_busy"] * t["workgroups"] / (per_cu * t["cus"])
    return t["cu_cycles"] / (clk - (clk - mclk) * act) + launch / clk


def sim_errors(got, us_of):
    """{set: (n, median, max)} of |modeled/published - 1| per set and per family."""
    out = {}
    for key in ("fit", "held", "tile256/fit", "tile256/held", "pf3/fit", "pf3/held"):
        fam, _, which = key.rpartition("/")
        e = [abs(us_of(t) / r["us"] - 1) for r, t in got
             if r["set"] == which and (not fam or r["family"] == fam)]
        out[key] = (len(e), statistics.median(e) if e else 0, max(e) if e else 0)
    return out


def fit_inner(got):
    """The constants a pass's figures give without another pass: mfma_clock_mhz and
    launch_cycles, by a grid search minimising the sum of log^2(modeled/published) over
    the fitting rows."""
    fit = [(r, t) for r, t in got if r["set"] == "fit"]

    def loss(m, L):
        return sum(math.log(sim_us(t, m, L) / r["us"]) ** 2 for r, t in fit)
    best = None
    for m in range(1000, 2401, 20):
        for L in range(0, 40001, 400):
            x = loss(m, L)
            if best is None or x < best[0]:
                best = (x, m, L)
    _, m0, L0 = best
    for m in range(m0 - 20, m0 + 21, 2):          # refine
        for L in range(max(0, L0 - 400), L0 + 401, 50):
            x = loss(m, L)
            if x < best[0]:
                best = (x, m, L)
    return best


def fit_sim(root, n, params=None, search=None, extra=()):
    """--fit-sim=N: fit the timing model's own constants on the N least-work rows of the
    bf16 families that run in timing-only mode (pf3, tile256: the split-K "clean" kernels
    spin on a semaphore that workgroups outside the sample never release). Each point of
    the search (search: [(key, [values])], the cartesian product, one pass of flyc-sim per
    point; none: one pass) runs every row once (timing-only, sample_of) with
    FLY_SIM_TIMING_PARAMS = params plus the point's assignments (extra: ids of more rows
    of those families to run, e.g. the large 8192x8192 ones); from each pass
    mfma_clock_mhz and launch_cycles are fitted without rerunning (fit_inner: us is
    cu_cycles / eff_clock + launch_cycles / clock). The point with the least fitting loss
    wins. Reports the committed constants' error and every point's, on the fitting and
    the held-out rows separately (the held-out rows never choose anything)."""
    _, pub, _ = read_tsv(os.path.join(CALIB, "published.tsv"))
    rows = [r for r in pub if r["family"] in ("pf3", "tile256")]
    for r in rows:
        for c in ("id", "M", "N", "K", "splitk"):
            r[c] = int(r[c])
        r["us"] = float(r["us"])
    rows.sort(key=lambda r: (r["M"] * r["N"] * r["K"], r["id"]))
    rows = rows[:n] + [r for r in rows[n:] if r["id"] in extra]
    base = open(params).read() if params else ""
    points = [[]]
    for key, vals in search or []:
        points = [p + [(key, v)] for p in points for v in vals]
    results = []

    def show(name, errs):
        for k in ("fit", "held", "tile256/fit", "tile256/held", "pf3/fit", "pf3/held"):
            c, med, mx = errs[k]
            print("%s: %s rows n=%d median %.1f%% max %.1f%%" % (name, k, c, 100 * med, 100 * mx))

    with tempfile.TemporaryDirectory() as ptmp:
        for i, pt in enumerate(points):
            pfile = None
            if base or pt:
                pfile = os.path.join(ptmp, "p%d.txt" % i)
                with open(pfile, "w") as f:
                    f.write(base + "\n" + "".join("%s = %s\n" % kv for kv in pt))
            tag = " [%s]" % ", ".join("%s=%s" % kv for kv in pt) if pt else ""
            got = fit_sim_pass(root, rows, pfile, tag)
            if not got:
                return None
            if i == 0 and not pt:
                show("as run (the table%s)" % (" + " + params if params else ""), sim_errors(got, lambda t: t["us"]))
            loss, m, L = fit_inner(got)
            errs = sim_errors(got, lambda t, m=m, L=L: sim_us(t, m, L))
            show("point%s, fitted mfma_clock_mhz=%d launch_cycles=%d (loss %.3f)" % (tag, m, L, loss), errs)
            results.append({"point": pt, "mfma_clock_mhz": m, "launch_cycles": L, "loss": loss, "errors": errs,
                            "rows": [(r["id"], r["set"], r["family"], r["us"], t) for r, t in got]})
    best = min(results, key=lambda x: x["loss"])
    print("best: %s mfma_clock_mhz=%d launch_cycles=%d" % (
        ", ".join("%s=%s" % kv for kv in best["point"]) or "(no search)", best["mfma_clock_mhz"], best["launch_cycles"]))
    dump = os.environ.get("FIT_SIM_DUMP")
    if dump:
        with open(dump, "w") as f:
            json.dump(results, f)
    return best


# ---- the roofline baseline and its fit ---------------------------------------------------
#
# Until flyc-sim's timing mode lands, the calibrated model is a roofline of the launch
# on the default device (the constants of the timing model's device row they share:
# 256 CUs, 2400 MHz, 8000 GB/s HBM, 4 SIMDs x 1024 bf16 FLOP per cycle of MFMA) with
# five fitted constants:
#   mfma_eff       share of the MFMA peak a workgroup's main loop reaches;
#   l2_bytes_cycle bytes per cycle one CU's loads of A and B tiles arrive at;
#   hbm_eff        share of the HBM bandwidth the launch's compulsory bytes move at;
#   wg_us          fixed cost of a workgroup (prologue: first tiles' latency, epilogue);
#   launch_us      fixed cost of a launch (dispatch, first wave's start, drain).
# Each of these code objects occupies a whole CU (512 VGPRs per lane: one wave per
# SIMD, four waves per workgroup), so a launch runs ceil(workgroups / 256) rounds of
# workgroups; a round lasts 2 * tileM * tileN * (K / splitk) FLOP at mfma_eff of one
# CU's peak, or its (tileM + tileN) * (K / splitk) * 2 bytes of A and B tiles at
# l2_bytes_cycle, whichever is longer, plus wg_us. Launch bytes: A and B once (bf16),
# D once per split (split-K adds with atomics).
#   t = launch_us + max(rounds * (wg_us + max(t_mfma, t_tiles)),
#                       bytes / (hbm_eff * 8000 GB/s))
# The fit minimises the sum of squared log(modeled / published) over the fitting set
# (a grid search: FIT_GRID); the held-out rows are not seen by it.

DEVICE = {"cus": 256, "clock_mhz": 2400.0, "hbm_gbps": 8000.0, "simds": 4, "f16_flops": 1024.0,
          "f4_flops": 4096.0}
FIT_COLS = ["constant", "value", "unit", "what"]
FIT_GRID = {
    "mfma_eff": [x / 100 for x in range(30, 101, 1)],
    "mfma_eff_f4": [x / 100 for x in range(10, 101, 1)],
    "l2_bytes_cycle": [float(x) for x in range(8, 257, 4)],
    "l2_dev_bytes_cycle": [float(x) for x in range(1024, 16385, 256)],
    "hbm_eff": [x / 100 for x in range(30, 101, 1)],
    "wg_us": [x / 10 for x in range(0, 101, 2)],
    "launch_us": [x / 10 for x in range(0, 201, 2)],
}


def roofline_us(r, c):
    fam, tm, tn, _, _ = fam_of(r["kernel"])
    m, n, k, split = int(r["M"]), int(r["N"]), int(r["K"]), max(int(r["splitk"]), 1)
    wgs = -(-n // tn) * -(-m // tm) * split
    rounds = -(-wgs // DEVICE["cus"])
    # bytes of A or B per element of K (fp4: half a byte and an e8m0 scale per 32)
    ab = 0.5 + 1.0 / 32 if fam == "f4" else 2.0
    rate = DEVICE["f4_flops"] if fam == "f4" else DEVICE["f16_flops"]
    cu_flop_us = DEVICE["simds"] * rate * DEVICE["clock_mhz"]  # FLOP per us
    eff = c["mfma_eff_f4"] if fam == "f4" else c["mfma_eff"]
    t_mfma = 2.0 * tm * tn * (k / split) / (eff * cu_flop_us)
    # a CU's tile loads: at most l2_bytes_cycle, and the device's l2_dev_bytes_cycle
    # shared by the CUs that have a workgroup
    bpc = min(c["l2_bytes_cycle"], c["l2_dev_bytes_cycle"] / min(wgs, DEVICE["cus"]))
    t_tiles = ab * (tm + tn) * (k / split) / (bpc * DEVICE["clock_mhz"])
    t_wg = c["wg_us"] + max(t_mfma, t_tiles)
    esz = 2 if r["out"] == "bf16" else 4
    nbytes = ab * (m + n) * k + esz * m * n * split
    t_mem = nbytes / (c["hbm_eff"] * DEVICE["hbm_gbps"] * 1e3)   # GB/s -> bytes per us
    return c["launch_us"] + max(rounds * t_wg, t_mem)


def fit(pub):
    """The constants minimising sum log^2(modeled/published) over the fitting set."""
    import math
    rows = [r for r in pub if r["set"] == "fit"]
    byfam = [[r for r in rows if r["family"] == f] for f in sorted({r["family"] for r in rows})]
    best, bestc = None, None
    # coordinate descent over the grid from the middle, to a fixed point
    c = {x: v[len(v) // 2] for x, v in FIT_GRID.items()}
    for _ in range(20):
        moved = False
        for name, vals in FIT_GRID.items():
            for v in vals:
                t = dict(c, **{name: v})
                e = sum(sum(math.log(roofline_us(r, t) / float(r["us"])) ** 2 for r in fr) / len(fr)
                        for fr in byfam)
                if best is None or e < best - 1e-12:
                    best, bestc, moved = e, t, True
            c = dict(bestc)
        if not moved:
            break
    return c


def roofline_rows(pub, c):
    out = []
    for r in pub:
        mu = roofline_us(r, c)
        out.append({"id": r["id"], "family": r["family"], "kernel": r["kernel"], "M": r["M"],
                    "N": r["N"], "K": r["K"], "splitk": r["splitk"], "set": r["set"],
                    "published_us": float(r["us"]), "modeled_us": mu, "ratio": mu / float(r["us"]),
                    "workgroups": -(-int(r["N"]) // fam_of(r["kernel"])[2])
                    * -(-int(r["M"]) // fam_of(r["kernel"])[1]) * max(int(r["splitk"]), 1),
                    "sampled": 0, "cycles": int(round(mu * DEVICE["clock_mhz"]))})
    return out


def fit_rows(c):
    return [{"constant": "mfma_eff", "value": "%g" % c["mfma_eff"], "unit": "1",
             "what": "share of the MFMA peak (4 SIMDs x 1024 bf16 FLOP/cycle x 2400 MHz per CU)"},
            {"constant": "mfma_eff_f4", "value": "%g" % c["mfma_eff_f4"], "unit": "1",
             "what": "the same for fp4 (4 SIMDs x 4096 FLOP/cycle x 2400 MHz per CU)"},
            {"constant": "l2_bytes_cycle", "value": "%g" % c["l2_bytes_cycle"], "unit": "B/cycle",
             "what": "per CU: the A and B tiles' load rate at most"},
            {"constant": "l2_dev_bytes_cycle", "value": "%g" % c["l2_dev_bytes_cycle"],
             "unit": "B/cycle", "what": "whole device: shared by the CUs with a workgroup"},
            {"constant": "wg_us", "value": "%g" % c["wg_us"], "unit": "us",
             "what": "fixed cost per workgroup (prologue, epilogue)"},
            {"constant": "hbm_eff", "value": "%g" % c["hbm_eff"], "unit": "1",
             "what": "share of 8000 GB/s HBM for the compulsory bytes"},
            {"constant": "launch_us", "value": "%g" % c["launch_us"], "unit": "us",
             "what": "fixed cost per launch"}]


def read_fit():
    _, rows, _ = read_tsv(os.path.join(CALIB, "fit.tsv"))
    return {r["constant"]: float(r["value"]) for r in rows}


def do_fit():
    _, pub, _ = read_tsv(os.path.join(CALIB, "published.tsv"))
    c = fit(pub)
    mod = roofline_rows(pub, c)
    write_tsv(os.path.join(CALIB, "fit.tsv"), FIT_COLS, fit_rows(c))
    write_tsv(os.path.join(CALIB, "modeled.tsv"), MOD_COLS, mod, fmt_cell)
    write_tsv(os.path.join(CALIB, "errors.tsv"), ERR_COLS, errors(read_tsv(
        os.path.join(CALIB, "modeled.tsv"))[1]))
    print("fit: %s" % ", ".join("%s=%g" % kv for kv in c.items()))
    for e in errors(read_tsv(os.path.join(CALIB, "modeled.tsv"))[1]):
        print("error %-13s %-4s n=%-4d median %s max %s"
              % (e["family"], e["set"], e["n"], e["median_abs_err"], e["max_abs_err"]))


# ---- errors and the check ------------------------------------------------------------

def errors(rows):
    """errors.tsv rows from modeled rows: per family and set, and 'all' families."""
    out = []
    fams = sorted({r["family"] for r in rows}) + ["all"]
    for fam in fams:
        for st in ("fit", "held"):
            e = [abs(float(r["ratio"]) - 1) for r in rows
                 if r["set"] == st and (fam == "all" or r["family"] == fam)]
            if e:
                out.append({"family": fam, "set": st, "n": len(e),
                            "median_abs_err": "%.4f" % statistics.median(e),
                            "max_abs_err": "%.4f" % max(e)})
    return out


def check():
    """Verify the committed tables; returns the number of problems (printed)."""
    bad = []
    pub_path, mod_path = os.path.join(CALIB, "published.tsv"), os.path.join(CALIB, "modeled.tsv")
    if not os.path.exists(pub_path):
        print("FAIL: %s missing" % pub_path)
        return 1
    hdr, pub, lines = read_tsv(pub_path)
    if hdr != PUB_COLS:
        bad.append("published.tsv header %r, want %r" % (hdr, PUB_COLS))
    for ln in lines[1:]:
        if len(ln) != len(PUB_COLS):
            bad.append("published.tsv: a row with %d cells: %r" % (len(ln), ln[:3]))
    seen = set()
    for r in pub:
        try:
            m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
            us = float(r["us"])
        except (KeyError, ValueError):
            bad.append("published.tsv row %s: bad number" % r.get("id"))
            continue
        if r["set"] != split_of(m, n, k):
            bad.append("published.tsv row %s: set %s, the shape hashes to %s"
                       % (r["id"], r["set"], split_of(m, n, k)))
        if fam_of(r["kernel"]) is None or fam_of(r["kernel"])[0] != r["family"]:
            bad.append("published.tsv row %s: unknown kernel/family" % r["id"])
        if not us > 0:
            bad.append("published.tsv row %s: us %s" % (r["id"], r["us"]))
        if r["repo"] != REPO or not re.fullmatch(r"[0-9a-f]{40}", r["commit"]) \
                or not (CSV_RE.match(r["path"]) or F4_CSV_RE.match(r["path"])) \
                or not r["line"].isdigit():
            bad.append("published.tsv row %s: source not named" % r["id"])
        if r["id"] in seen:
            bad.append("published.tsv: id %s twice" % r["id"])
        seen.add(r["id"])
    nfit = sum(r["set"] == "fit" for r in pub)
    print("published.tsv: %d rows (%d fit, %d held out)" % (len(pub), nfit, len(pub) - nfit))
    if os.path.exists(mod_path):
        mh, mod, mlines = read_tsv(mod_path)
        if mh != MOD_COLS:
            bad.append("modeled.tsv header %r, want %r" % (mh, MOD_COLS))
        byid = {r["id"]: r for r in pub}
        for r in mod:
            p = byid.get(r["id"])
            if p is None:
                bad.append("modeled.tsv row %s: no published row" % r["id"])
                continue
            for c in ("family", "kernel", "M", "N", "K", "splitk", "set"):
                if r[c] != p[c]:
                    bad.append("modeled.tsv row %s: %s %s, published %s" % (r["id"], c, r[c], p[c]))
            try:
                pu, mu, ra = float(r["published_us"]), float(r["modeled_us"]), float(r["ratio"])
            except ValueError:
                bad.append("modeled.tsv row %s: bad number" % r["id"])
                continue
            if abs(pu - float(p["us"])) > 1e-3 * float(p["us"]):
                bad.append("modeled.tsv row %s: published_us %s, published.tsv %s"
                           % (r["id"], r["published_us"], p["us"]))
            if not mu > 0 or abs(ra - mu / pu) > 1e-4 * ra:
                bad.append("modeled.tsv row %s: ratio %s is not %s / %s"
                           % (r["id"], r["ratio"], r["modeled_us"], r["published_us"]))
        # modeled.tsv is the roofline of fit.tsv's constants: recompute every row
        fit_path = os.path.join(CALIB, "fit.tsv")
        if os.path.exists(fit_path):
            c = read_fit()
            if sorted(c) != sorted(FIT_GRID):
                bad.append("fit.tsv constants %s, want %s" % (sorted(c), sorted(FIT_GRID)))
            else:
                for r in mod:
                    p = byid.get(r["id"])
                    if p is None:
                        continue
                    want = roofline_us(p, c)
                    try:
                        got = float(r["modeled_us"])
                    except ValueError:
                        continue
                    if abs(got - want) > 1e-3 * want + 1e-4:
                        bad.append("modeled.tsv row %s: modeled_us %s, the roofline of fit.tsv "
                                   "gives %.4f" % (r["id"], r["modeled_us"], want))
        err_path = os.path.join(CALIB, "errors.tsv")
        if os.path.exists(err_path):
            eh, errs, _ = read_tsv(err_path)
            want = errors(mod)
            got = [{c: e[c] for c in ERR_COLS} for e in errs]
            want = [{c: str(e[c]) for c in ERR_COLS} for e in want]
            if eh != ERR_COLS or got != want:
                bad.append("errors.tsv does not match the errors recomputed from modeled.tsv")
            for e in errs:
                print("error %-13s %-4s n=%-4s median %s max %s"
                      % (e["family"], e["set"], e["n"], e["median_abs_err"], e["max_abs_err"]))
        print("modeled.tsv: %d rows" % len(mod))
    for b in bad:
        print("FAIL: %s" % b)
    return len(bad)


# ---- main ------------------------------------------------------------------------------

def main(argv):
    opts = [a for a in argv[1:] if a.startswith("--")]
    pos = [a for a in argv[1:] if not a.startswith("--")]
    if "--check" in opts:
        return 1 if check() else 0
    if opts == ["--fit"] and not pos:
        do_fit()       # from the committed published.tsv alone
        return 0
    root = git_dir(pos[0]) if pos and os.path.exists(pos[0]) else None
    if root is None:
        print("SKIP: timing-calibrate: no copy of ROCm/aiter given")
        return 0
    fs = [o for o in opts if o.startswith("--fit-sim")]
    if fs:
        prm = [o.split("=", 1)[1] for o in opts if o.startswith("--params=")]
        n = int(fs[0].split("=", 1)[1]) if "=" in fs[0] else 40
        search = []
        for o in opts:
            if o.startswith("--search="):
                key, _, vals = o[len("--search="):].partition("=")
                search.append((key, [v for v in vals.split(",") if v]))
        extra = {int(x) for o in opts if o.startswith("--with=") for x in o[len("--with="):].split(",") if x}
        return 0 if fit_sim(root, n, prm[0] if prm else None, search, extra) else 1
    steps = {o for o in opts if o in ("--published", "--smoke", "--model", "--fit")}
    if not steps:
        steps = {"--published", "--smoke", "--model", "--fit"}
    ok = True
    rows = extract(root)
    if "--published" in steps:
        write_tsv(os.path.join(CALIB, "published.tsv"), PUB_COLS, rows, fmt_cell)
        nfit = sum(r["set"] == "fit" for r in rows)
        print("published.tsv: %d rows (%d fit, %d held out) from %d files"
              % (len(rows), nfit, len(rows) - nfit, len({r["path"] for r in rows})))
        sec = extract_secondary(root)
        write_tsv(os.path.join(CALIB, "secondary.tsv"), SEC_COLS, sec, fmt_cell)
        print("secondary.tsv: %d FlyDSL rows" % len(sec))
    if "--smoke" in steps:
        ok = smoke(root) and ok
    if "--model" in steps:
        lim = [int(o.split("=", 1)[1]) for o in opts if o.startswith("--limit=")]
        mod = model(root, rows, lim[0] if lim else None)
        if mod is not None:
            write_tsv(os.path.join(CALIB, "modeled-sim.tsv"), MOD_COLS, mod, fmt_cell)
    if "--fit" in steps:
        do_fit()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
