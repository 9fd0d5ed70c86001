"""tests/ops/test_mm_epilogue.py — mm's bias epilogue and XCD-aware tile order on the
simulator (run by tests/ops/run.sh with /usr/bin/python3).

tile order: stdlib/tile_order.fly compiled into a probe kernel (tile_order_probe.fly)
whose workgroups write their tile and logical index; for every grid of 1..12 x 1..12
tiles, XCD counts 1, 4 and 8 and groups of 8, 3 and 1 rows, both must be permutations
of [0, G), and each XCD's workgroups must own one contiguous range of logical indices.
bias: flyc.ops.mm(a, b, bias=...) for NT, NN, TN and TT, bf16 and fp16 operands, the
operands' dtype and f32 out, ragged shapes (M = 1, M and N not tile multiples, a K
tail), the tile kernels of every layout (each forced; all variants give the same bits), split-K; operands in NaN-filled storage whose
guards must stay untouched, against a CPU f64 reference of a @ b + bias with one
rounding; the same shapes with 1, 4, 8 XCDs (FLY_XCDS, or the simulator's FLY_SIM_XCDS
device property) give the same bits. With
FLY_DEVICE=sim:gfx1201: the bias on the WMMA kernels, and the calls they refuse.
"""
import array
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(TOP, "python"))
import flyc  # noqa: E402
import flyrt  # noqa: E402
sys.path.insert(0, HERE)
from harness import check, raises, run  # noqa: E402
from test_ops import Guarded, rand_bf16, ulp  # noqa: E402

BF, F16, F32 = torch.bfloat16, torch.float16, torch.float32
SAN = os.environ.get("FLY_SAN") == "1"


# ---- tile order -------------------------------------------------------------------------

def flyc_bin():
    b = os.environ.get("FLYC")
    if b:
        return b
    lib = os.environ.get("FLYRT_LIB", os.path.join(TOP, "build", "libflyrt.so"))
    return os.path.join(os.path.dirname(lib), "bin", "flyc")


def t_tile_order_bijection():
    with tempfile.TemporaryDirectory() as d:
        co = os.path.join(d, "probe.hsaco")
        p = subprocess.run([flyc_bin(), os.path.join(HERE, "tile_order_probe.fly"),
                            "--offload-arch=gfx950", "-o", co], capture_output=True, text=True)
        check(p.returncode == 0, p.stderr[-800:])
        mod = flyrt.Device("sim").load(co)
        sizes = range(1, 13) if not SAN else (1, 3, 7, 9)
        for name in ("tile_order_probe", "tile_order_probe_gm3", "tile_order_probe_gm1"):
            k = mod.kernel(name)
            for tm in sizes:
                for tn in sizes:
                    for x in (1, 4, 8):
                        G = tm * tn
                        T = array.array("i", [-1] * G)
                        L = array.array("i", [-1] * G)
                        k(T, L, G, tm, tn, x)
                        what = "%s %dx%d tiles, %d XCDs" % (name, tm, tn, x)
                        check(sorted(T) == list(range(G)), "%s: tiles %s" % (what, list(T)))
                        check(sorted(L) == list(range(G)), "%s: logical %s" % (what, list(L)))
                        for xc in range(min(x, G)):        # XCD xc: ids xc, xc + x, ...
                            mine = [L[p] for p in range(xc, G, x)]
                            check(mine == list(range(mine[0], mine[0] + len(mine))),
                                  "%s: XCD %d's range %s" % (what, xc, mine))
                        if x == 1 and name == "tile_order_probe_gm1":   # row order, N fastest
                            check(list(T) == list(range(G)), what)


# ---- bias -------------------------------------------------------------------------------

def operands(M, N, K, T, lay, gen):
    """a and b of layout lay ("NT": a row-major, b = b^T of a row-major [N, K]) in NaN-guarded
    storage."""
    av, bv = rand_bf16(M, K, gen=gen, dtype=T), rand_bf16(K, N, gen=gen, dtype=T)
    ga = Guarded((M, K), dtype=T, values=av) if lay[0] == "N" else Guarded((K, M), dtype=T, values=av.t())
    gb = Guarded((K, N), dtype=T, values=bv) if lay[1] == "N" else Guarded((N, K), dtype=T, values=bv.t())
    a = ga.view if lay[0] == "N" else ga.view.t()
    b = gb.view if lay[1] == "N" else gb.view.t()
    return ga, gb, a, b


def check_bias(c, a, b, bias):
    ref = a.double() @ b.double() + bias.double()
    mag = a.double().abs() @ b.double().abs() + bias.double().abs()
    tol = (ulp(ref, c.dtype) if c.dtype != F32 else 0) + (a.shape[1] + 1) * 2.0 ** -24 * mag
    err = (c.double() - ref).abs()
    bad = ~(err <= tol)
    check(not bool(bad.any()), "%d of %d outputs outside the bound (max error %g)"
          % (int(bad.sum()), c.numel(), float(err.max())))


def run_bias(M, N, K, T, O, lay, seed, variant=None, want=None):
    g = torch.Generator().manual_seed(seed)
    ga, gb, a, b = operands(M, N, K, T, lay, g)
    gbias = Guarded((N,), dtype=O, values=rand_bf16(N, gen=g, dtype=O) * 4)
    out = Guarded((M, N), dtype=O)
    what = "%s %dx%dx%d %s+%s->%s" % (lay, M, N, K, T, O, O)
    if variant:
        with flyc.ops.using_variant(variant):
            chosen = flyc.ops.plan("mm", a, b, bias=gbias.view, out=out.view)
            r = flyc.ops.mm(a, b, bias=gbias.view, out=out.view)
    else:
        chosen = flyc.ops.plan("mm", a, b, bias=gbias.view, out=out.view)
        r = flyc.ops.mm(a, b, bias=gbias.view, out=out.view)
    check(want is None or chosen == want, "%s: ran %s, not %s" % (what, chosen, want))
    check(r is out.view, what)
    check(ga.unchanged() and gb.unchanged() and gbias.unchanged() and out.guards_intact(),
          "%s: a guard or input was written" % what)
    check(not bool(torch.isnan(out.view.float()).any()), "%s: an output was not written" % what)
    check_bias(out.view, a, b, gbias.view)
    return chosen, out.view.clone()


SHAPES = [(1, 136, 64), (200, 136, 72), (130, 264, 200)]     # M = 1, ragged M/N, K tail


def t_bias_layouts():
    for lay in ("NT", "NN", "TN", "TT"):
        for T in (BF, F16):
            for O in (T, F32):
                for i, (M, N, K) in enumerate(SHAPES if not SAN else SHAPES[1:2]):
                    if lay[0] == "T" and M % 8:
                        M = 8                               # TN, TT: M % 8 == 0
                    suffix = ("_f16" if T == F16 else "") + ("" if O == T else ("_bf16_f32" if T == BF else "_f32"))
                    if O == F32:
                        suffix = "_f16_f32" if T == F16 else "_bf16_f32"
                    want = "gemm_%s_ragged%s" % (lay.lower(), suffix)
                    if lay == "NT" and M <= 64 and K >= 256:
                        want = None                         # split-K may take it
                    run_bias(M, N, K, T, O, lay, 10 * i + 1, want=want)


def t_bias_tile_kernels():
    # the NT tile kernels, each forced, bf16 and fp16
    for T in (BF, F16):
        p = "gemm_nt_f16_" if T == F16 else "gemm_nt_"
        for v, (M, N, K) in (("128x128", (256, 384, 128)), ("256x128", (512, 128, 64)),
                             ("256x256", (256, 512, 128)), ("256x256_st128", (512, 256, 64))):
            if SAN and v != "128x128":
                continue
            run_bias(M, N, K, T, T, "NT", 7, variant=p + v, want=p + v)
    # NN, TN and TT's tile kernels, each forced, bf16 and fp16, and the same bits as the
    # layout's predicated kernel
    for lay in ("NN", "TN", "TT"):
        for T in (BF, F16):
            p = "gemm_%s_%s" % (lay.lower(), "f16_" if T == F16 else "")
            r = "gemm_%s_ragged%s" % (lay.lower(), "_f16" if T == F16 else "")
            for v, (M, N, K) in (("128x128", (256, 128, 128)), ("256x256", (256, 512, 64))):
                if SAN and (v != "128x128" or T == F16):
                    continue
                o = run_bias(M, N, K, T, T, lay, 9, variant=p + v, want=p + v)[1]
                o2 = run_bias(M, N, K, T, T, lay, 9, variant=r, want=r)[1]
                check(torch.equal(o.view(torch.int16), o2.view(torch.int16)), "%s and %s differ" % (p + v, r))
    # the default choice for a tile multiple is the 128x128 kernel, bias or not
    run_bias(256, 256, 64, BF, BF, "NT", 3, want="gemm_nt_128x128")
    run_bias(256, 256, 64, BF, BF, "TN", 3, want="gemm_tn_128x128")
    # every kernel starts its f32 sums from the bias and adds the products in the same
    # order: all variants give the same bits
    outs = [(v, run_bias(512, 256, 192, BF, BF, "NT", 11, variant=v, want=v)[1])
            for v in ("gemm_nt_128x128", "gemm_nt_256x128", "gemm_nt_256x256",
                      "gemm_nt_256x256_st128", "gemm_nt_ragged")[:2 if SAN else 5]]
    for v, o in outs[1:]:
        check(torch.equal(o.view(torch.int16), outs[0][1].view(torch.int16)),
              "%s and %s differ" % (v, outs[0][0]))


def t_bias_splitk():
    for T in (BF, F16):
        for O in (T, F32):
            # M <= 64, long K: split-K (the bias is added once, by the sum kernel)
            want = "gemm_nt_splitk_f16" if T == F16 else "gemm_nt_splitk"
            run_bias(16, 256, 512, T, O, "NT", 5, want=want)
            if not SAN:
                run_bias(33, 132, 1000, T, O, "NT", 6, want=want)   # ragged M, N, K tail
    # M N % 4 != 0: gemm_splitk_sum takes 4 outputs per thread, so no split (the ragged kernel)
    run_bias(33, 130, 1000, BF, BF, "NT", 8, want="gemm_nt_ragged")


def t_bias_ragged_edges():
    # the predicated kernels read the bias unpredicated in a column of tiles below N (any
    # M) and under C's predicate in the last one: N not a multiple of 8 nor of the tile,
    # one column past a tile, M of one row and of a partial row tile; the bias in
    # NaN-guarded storage (NaN before and beyond its N elements)
    cases = [(16, 130, 64, BF, BF, "NT"), (1, 257, 72, F16, F32, "NT"), (200, 128, 64, BF, BF, "NT"),
             (136, 135, 64, BF, BF, "TT"), (40, 200, 64, F16, F16, "NN")]
    for M, N, K, T, O, lay in cases if not SAN else cases[:2]:
        suffix = ("_f16" if T == F16 else "") if O == T else ("_f16_f32" if T == F16 else "_bf16_f32")
        v = "gemm_%s_ragged%s" % (lay.lower(), suffix)
        run_bias(M, N, K, T, O, lay, 21, variant=v, want=v)


def t_bias_refused():
    a, b = rand_bf16(8, 16), rand_bf16(16, 8)
    raises(ValueError, lambda: flyc.ops.mm(a, b, bias=torch.ones(8, dtype=F16)), "bias has the output dtype")
    raises(ValueError, lambda: flyc.ops.mm(a, b, bias=torch.ones(8)), "bias has the output dtype")
    raises(ValueError, lambda: flyc.ops.mm(a, b, bias=torch.ones(8, dtype=BF), out_dtype=F32),
           "bias has the output dtype")
    raises(ValueError, lambda: flyc.ops.mm(a, b, bias=torch.ones(2, 8, dtype=BF)), "[N] = [8]")


def t_xcds_same_bits():
    # the tile order changes which workgroup computes a tile, never its value: the same
    # bits for 1, 4 and 8 XCDs (odd grids: 3 x 5 tiles of 128x128; split-K's 2 x 6 tiles x
    # 5 ranges = 60 workgroups), the count from FLY_XCDS or from the simulated device's
    # property (FLY_SIM_XCDS, default 8; FLY_XCDS over a device's count: tests/ops/hip_c.c)
    code = ("import sys, torch; sys.path.insert(0, %r); import flyc, flyrt; g = torch.Generator().manual_seed(4); "
            "r = lambda *s: (torch.rand(s, generator=g) * 2 - 1).to(torch.bfloat16); "
            "a, b, bias, c, d, bias2 = r(300, 136), r(600, 136), r(600), r(40, 1280), r(330, 1280), r(330); "
            "x = flyc.ops.mm(a, b.t(), bias=bias); y = flyc.ops.mm(c, d.t(), bias=bias2); "
            "print(x.view(torch.int16).double().sum().item(), y.view(torch.int16).double().sum().item(), "
            "flyc.ops.plan('mm', c, d.t(), bias=bias2)); print(flyrt.Device('sim').xcds)" % os.path.join(TOP, "python"))
    outs = []
    envs = ({"FLY_XCDS": "1"}, {"FLY_SIM_XCDS": "4"}, {})
    for e in envs:
        env = {k: v for k, v in os.environ.items() if k not in ("FLY_XCDS", "FLY_SIM_XCDS")}
        p = subprocess.run([sys.executable, "-c", code], env=dict(env, **e), capture_output=True, text=True)
        check(p.returncode == 0, p.stderr[-800:])
        outs.append(p.stdout.split())
    check(all(o[:-1] == outs[0][:-1] for o in outs) and outs[0][-2] == "gemm_nt_splitk", outs)
    check([o[-1] for o in outs] == ["8", "4", "8"], ("the simulator's XCD property", outs))


def t_1201_bias():
    # gfx1201's WMMA kernels take the bias (tile multiples, NT, out in the operands' dtype)
    for T, v in ((BF, "gemm_nt_wmma_128x128"), (F16, "gemm_nt_wmma_f16_128x128")):
        run_bias(256, 128, 64, T, T, "NT", 9, want=v)
        run_bias(128, 384, 96, T, T, "NT", 10, want=v)
    a, b = rand_bf16(128, 64), rand_bf16(128, 64).t()
    raises(flyc.ops.Unsupported, lambda: flyc.ops.mm(a, b, bias=torch.ones(128), out_dtype=F32),
           "bf16+f32->f32")
    out = Guarded((100, 128))
    raises(flyc.ops.Unsupported, lambda: flyc.ops.mm(rand_bf16(100, 64), b, bias=rand_bf16(128), out=out.view),
           "gfx1201", "requires")
    check(out.unchanged(), "a refused call wrote out")


def main():
    flyc.context()
    if os.environ.get("FLY_DEVICE") == "sim:gfx1201":
        return run("mm-epilogue-gfx1201", [("bias on gfx1201's WMMA kernels", t_1201_bias)])
    tests = [("the XCD tile order is a permutation for every grid and XCD count", t_tile_order_bijection),
             ("bias: NT, NN, TN, TT, bf16/fp16, same dtype and f32 out, ragged shapes", t_bias_layouts),
             ("bias: the NT tile kernels", t_bias_tile_kernels),
             ("bias: split-K", t_bias_splitk),
             ("bias: the predicated kernels' column edges, NaN beyond N", t_bias_ragged_edges),
             ("bias of another dtype or shape refused", t_bias_refused)]
    if not SAN:
        tests.append(("1, 4 and 8 XCDs (FLY_XCDS, FLY_SIM_XCDS) give the same bits", t_xcds_same_bits))
    return run("mm-epilogue", tests)


if __name__ == "__main__":
    sys.exit(main())
