"""tests/ops/test_ops.py — flyc.ops on the simulator (run by tests/ops/run.sh with
/usr/bin/python3, which has Debian's torch 1.13 and numpy).

mm runs every gfx950 variant of stdlib/ops/gemm.fly (bf16 and f16 operands, the
operands' dtype or f32 out, four layouts) through the operator layer on several shapes:
each output must be within 1 ulp of the output dtype of an f64-accumulated reference plus
K * 2^-24 * sum|a*b|, and exact (bitwise the output rounding of the exact product) for
small integer inputs; operands are views into NaN-filled storage whose
guard elements must stay untouched. Then the calls mm refuses (layouts, dtypes, bias,
shapes every variant's requires refuses) and the malformed ones, hostile strides,
offsets, overlap and sizes, determinism across runs and simulator thread counts, and the
checks of the other operators (RMSNorm's results: tests/norm). FLY_SAN=1 (sanitized libflyrt): one shape
per variant. Prints PASS:/FAIL: lines.
"""
import math
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import flyc  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, raises, run  # noqa: E402
from flyc import reference  # noqa: E402

SAN = os.environ.get("FLY_SAN") == "1"
BF = torch.bfloat16
NAN = float("nan")
results = []




# ---- operands in NaN-guarded storage --------------------------------------------------

class Guarded:
    """A view (shape, strides, offset) into a NaN-filled storage with guards around it."""

    def __init__(self, shape, dtype=BF, strides=None, offset=5, values=None):
        if strides is None:
            strides = []
            s = 1
            for n in reversed(shape):
                strides.insert(0, s)
                s *= max(n, 1)
        span = 1 + sum((n - 1) * abs(st) for n, st in zip(shape, strides)) if all(shape) else 0
        self.buf = torch.full((offset + span + 37,), NAN, dtype=dtype)
        self.view = self.buf.as_strided(shape, strides, offset)
        idx = torch.arange(self.buf.numel()).as_strided(shape, strides, offset)
        self.mask = torch.zeros(self.buf.numel(), dtype=torch.bool)
        self.mask[idx.reshape(-1)] = True
        if values is not None:
            self.view.copy_(values)
        self.before = self.buf.clone()

    def guards_intact(self):
        g = ~self.mask
        bits = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[self.buf.element_size()]
        return bool(torch.equal(self.buf[g].view(bits), self.before[g].view(bits)))

    def unchanged(self):
        return bool(torch.equal(self.buf.view(torch.int16), self.before.view(torch.int16)))


def rand_bf16(*shape, gen=None, integer=False, dtype=BF):
    if integer:
        return torch.randint(-3, 4, shape, generator=gen).to(dtype)
    return (torch.rand(shape, generator=gen) * 2 - 1).to(dtype)


MANTISSA = {BF: 7, torch.float16: 10, torch.float32: 23}


def ulp(x, dtype=BF):
    e = torch.floor(torch.log2(x.abs().clamp(min=2.0 ** -14 if dtype == torch.float16 else 2.0 ** -126)))
    return torch.pow(2.0, e - MANTISSA[dtype])


def check_mm(c, a, b):
    ref = a.double() @ b.double()
    mag = a.double().abs() @ b.double().abs()
    tol = ulp(ref, c.dtype) + a.shape[1] * 2.0 ** -24 * mag
    err = (c.double() - ref).abs()
    bad = ~(err <= tol)
    check(not bool(bad.any()), "%d of %d outputs outside the bound (max error %g)"
          % (int(bad.sum()), c.numel(), float(err.max())))
    return float(err.max())


def variant_dtypes(variant):
    """(operand dtype, output dtype) of a gemm.fly variant: _f16 operands, _f32 output"""
    t = torch.float16 if "_f16" in variant else BF
    return t, torch.float32 if variant.endswith("_f32") else t


def run_variant(variant, M, N, K, seed):
    g = torch.Generator().manual_seed(seed)
    la, lb = variant.split("_")[1].upper()                       # gemm_nt_*: a N (row-major), b T
    T, O = variant_dtypes(variant)
    # storage in the variant's layout: a [M, K] or, for T, [K, M] seen transposed; b [K, N]
    # or, for T, [N, K] seen transposed
    sa, sb = (M, K) if la == "N" else (K, M), (K, N) if lb == "N" else (N, K)
    a_s = Guarded(sa, dtype=T, values=rand_bf16(*sa, gen=g, dtype=T))
    bs = Guarded(sb, dtype=T, values=rand_bf16(*sb, gen=g, dtype=T))
    a = a_s.view if la == "N" else a_s.view.t()
    b = bs.view if lb == "N" else bs.view.t()
    out = Guarded((M, N), dtype=O)
    with flyc.ops.using_variant(variant):
        check(flyc.ops.plan("mm", a, b, out=out.view) == variant)
        r = flyc.ops.mm(a, b, out=out.view)
    check(r is out.view, "mm returned another tensor than out")
    check(a_s.unchanged() and bs.unchanged(), "an input was written")
    check(out.guards_intact(), "an element beside out was written")
    check(not bool(torch.isnan(out.view.float()).any()), "an element of out was not written")
    check_mm(out.view, a, b)
    # small integers: every f32 partial sum is exact, so the result is exactly bf16(a @ b)
    ai, bi = rand_bf16(M, K, gen=g, integer=True, dtype=T), rand_bf16(N, K, gen=g, integer=True, dtype=T)
    with flyc.ops.using_variant(variant):
        ci = flyc.ops.mm(ai if la == "N" else ai.t().contiguous().t(),
                         bi.t().contiguous() if lb == "N" else bi.t(), out_dtype=O)
    want = (ai.double() @ bi.double().t()).to(O)
    check(ci.dtype == O and torch.equal(ci, want), "integer inputs: not exact")


SHAPES = {
    "gemm_nt_128x128": ["128x128x64", "256x128x128", "128x384x64"],
    "gemm_nt_256x128": ["256x128x64", "512x256x128"],
    "gemm_nt_256x256": ["256x256x64", "256x512x128"],
    "gemm_nt_256x256_st128": ["256x256x64", "512x256x128"],
    # NN, TN and TT tile multiples (loads straight to LDS): one tile, tiles along M and N,
    # several k-tiles
    "gemm_nn_128x128": ["128x128x64", "256x128x192", "128x384x64"],
    "gemm_nn_256x256": ["256x256x64", "256x512x128"],
    "gemm_tn_128x128": ["128x128x64", "384x128x128"],
    "gemm_tn_256x256": ["256x256x128", "512x256x64"],
    "gemm_tt_128x128": ["128x128x64", "128x256x192"],
    "gemm_tt_256x256": ["256x256x64", "256x512x128"],
    "gemm_nt_ragged": ["200x136x64", "1x1x8", "257x255x128", "33x700x24", "129x1x136"],
    "gemm_nn_ragged": ["200x136x64", "1x8x8", "257x264x128", "33x704x24", "128x128x64"],
    "gemm_tn_ragged": ["200x136x64", "8x8x3", "264x256x20", "40x704x24", "128x128x64"],
    "gemm_tt_ragged": ["200x136x64", "8x1x8", "264x255x128", "40x700x24", "128x128x64"],
    # the 256x128 and 256x256 tiles (8 waves): M and N past a tile, K tails, tiny shapes
    "gemm_nn_ragged_256x128": ["264x136x72", "8x8x8", "512x128x64"],
    "gemm_nn_ragged_256x256": ["264x264x72", "1x8x8"],
    "gemm_tn_ragged_256x128": ["264x136x20", "8x8x3"],
    "gemm_tn_ragged_256x256": ["264x264x20", "256x512x64"],
    "gemm_tt_ragged_256x128": ["264x137x72", "8x1x8"],
    "gemm_tt_ragged_256x256": ["264x263x72", "8x1x8"],
    # f16 operands (the same kernels with the f16 MFMA atom), f32 outputs
    "gemm_nt_f16_128x128": ["128x256x128"],
    "gemm_nt_f16_256x128": ["256x128x64"],
    "gemm_nt_f16_256x256": ["256x256x64"],
    "gemm_nt_f16_256x256_st128": ["256x256x64"],
    "gemm_nn_f16_128x128": ["128x256x128"],
    "gemm_nn_f16_256x256": ["256x256x64"],
    "gemm_tn_f16_128x128": ["256x128x64"],
    "gemm_tn_f16_256x256": ["256x256x64"],
    "gemm_tt_f16_128x128": ["128x128x128"],
    "gemm_tt_f16_256x256": ["256x256x64"],
    "gemm_nt_ragged_f16": ["200x136x64", "1x1x8", "33x255x24"],
    "gemm_nn_ragged_f16": ["200x136x64", "1x8x8", "33x264x24"],
    "gemm_tn_ragged_f16": ["200x136x64", "8x8x3", "40x256x20"],
    "gemm_tt_ragged_f16": ["200x136x64", "8x1x8", "40x255x24"],
    "gemm_nn_ragged_f16_256x128": ["264x136x72"],
    "gemm_nn_ragged_f16_256x256": ["264x264x72"],
    "gemm_tn_ragged_f16_256x128": ["264x136x20"],
    "gemm_tn_ragged_f16_256x256": ["264x264x20"],
    "gemm_tt_ragged_f16_256x128": ["264x137x72"],
    "gemm_tt_ragged_f16_256x256": ["264x263x72"],
    "gemm_nt_ragged_bf16_f32": ["200x136x64", "1x1x8"],
    "gemm_nn_ragged_bf16_f32": ["200x136x64", "1x8x8"],
    "gemm_tn_ragged_bf16_f32": ["200x136x64", "8x8x3"],
    "gemm_tt_ragged_bf16_f32": ["200x136x64", "8x1x8"],
    "gemm_nt_ragged_f16_f32": ["136x200x72", "1x1x8"],
    "gemm_nn_ragged_f16_f32": ["136x200x72", "1x8x8"],
    "gemm_tn_ragged_f16_f32": ["136x200x72", "8x8x3"],
    "gemm_tt_ragged_f16_f32": ["136x200x72", "8x1x8"],
}
if SAN:
    SHAPES = {v: s[:1] for v, s in SHAPES.items()}


def variant_tests():
    tests = []
    for n, (v, shapes) in enumerate(SHAPES.items()):
        for m, s in enumerate(shapes):
            M, N, K = (int(x) for x in s.split("x"))
            tests.append(("mm/%s/%s" % (v, s), lambda v=v, M=M, N=N, K=K, seed=100 * n + m:
                          run_variant(v, M, N, K, seed)))
    return tests


def t_variants_listed():
    # per key in table order: NT tiles, NN/TN/TT tiles, the ragged kernels, NN/TN/TT's
    # ragged 256x128 and 256x256
    tiles = ["gemm_nt_128x128", "gemm_nt_256x128", "gemm_nt_256x256_st128", "gemm_nt_256x256"]
    tiles += ["gemm_%s_%s" % (lay, t) for lay in ("nn", "tn", "tt") for t in ("128x128", "256x256")]
    ragged = ["gemm_nt_ragged", "gemm_nn_ragged", "gemm_tn_ragged", "gemm_tt_ragged"]
    big = [v + t for v in ragged[1:] for t in ("_256x128", "_256x256")]
    f16 = lambda v: v[:8] + "f16_" + v[8:]              # gemm_nn_f16_128x128, gemm_nn_ragged_f16_256x128
    mm = tiles + ragged + big
    mm += [f16(v) for v in tiles] + [v + "_f16" for v in ragged]
    mm += [v.replace("ragged_", "ragged_f16_") for v in big]
    mm += [v + "_bf16_f32" for v in ragged] + [v + "_f16_f32" for v in ragged]
    check(set(mm) == set(SHAPES), "a variant without test shapes")
    mm += ["gemm_nt_splitk", "gemm_nt_splitk_f16", "gemm_splitk_sum_bf16", "gemm_splitk_sum_f16",
           "gemm_splitk_sum_f32"]
    check(flyc.ops.variants("mm") == mm, flyc.ops.variants("mm"))
    check(flyc.ops.variants("mm", "gfx1201") == ["gemm_nt_wmma_128x128", "gemm_nt_wmma_f16_128x128"],
          flyc.ops.variants("mm", "gfx1201"))
    rn = flyc.ops.variants("rms_norm")
    check(len(rn) == 36 and rn[:3] == ["rms_norm_bf16_r16", "rms_norm_bf16_r64", "rms_norm_bf16_n2048"], rn)
    check(flyc.ops.variants("topk") == ["topk_f32_reg2", "topk_f32_reg4", "topk_f32_reg8",
                                        "topk_f32_reg16", "topk_f32_radix"], flyc.ops.variants("topk"))


def t_default_choice():
    a, b = rand_bf16(256, 128), rand_bf16(256, 128).t()
    check(flyc.ops.plan("mm", a, b) == "gemm_nt_128x128")
    check(flyc.ops.plan("mm", a[:200], b) == "gemm_nt_ragged")
    ok, why = flyc.ops.supported("mm", a, b)
    check(ok and why == "variant gemm_nt_128x128", why)
    # the 256x256 tile when its grid takes clearly fewer rounds (runtime/flyops_ops.c
    # mm_big_tile; 256 CUs: 4096x4096 1 round against 2, 4096x3072 1 against 2; 6144x4096 2
    # against 3 and 2048x2048 1 against 1 keep 128x128); an f32 output has no large tiles
    def plan(M, N, lay, dt=BF, **kw):
        x = torch.zeros(M, 64, dtype=dt) if lay[0] == "N" else torch.zeros(64, M, dtype=dt).t()
        y = torch.zeros(64, N, dtype=dt) if lay[1] == "N" else torch.zeros(N, 64, dtype=dt).t()
        return flyc.ops.plan("mm", x, y, **kw)
    # NN/TN/TT: the tile kernels for tile multiples, the predicated ones for other shapes
    for lay in ("NN", "TN", "TT"):
        v = "gemm_%s_" % lay.lower()
        check(plan(4096, 4096, lay) == v + "256x256", (lay, plan(4096, 4096, lay)))
        check(plan(2048, 2048, lay) == v + "128x128", (lay, plan(2048, 2048, lay)))
        check(plan(4000, 4000, lay) == v + "ragged_256x256", (lay, plan(4000, 4000, lay)))
        check(plan(2000, 2000, lay) == v + "ragged", (lay, plan(2000, 2000, lay)))
    check(plan(4096, 3072, "NN") == "gemm_nn_256x256", plan(4096, 3072, "NN"))
    check(plan(6144, 4096, "NN") == "gemm_nn_128x128", plan(6144, 4096, "NN"))
    check(plan(4096, 4096, "NN", torch.float16) == "gemm_nn_f16_256x256")
    check(plan(4000, 4000, "TT", bias=torch.zeros(4000, dtype=BF)) == "gemm_tt_ragged_256x256")
    check(plan(4096, 4096, "TT", bias=torch.zeros(4096, dtype=BF)) == "gemm_tt_256x256")
    check(plan(4096, 4096, "NN", out_dtype=torch.float32) == "gemm_nn_ragged_bf16_f32")
    # NT too, where the tile kernels take the shape (tile multiples)
    check(plan(4096, 4096, "NT") == "gemm_nt_256x256", plan(4096, 4096, "NT"))
    check(plan(4096, 4096, "NT", torch.float16) == "gemm_nt_f16_256x256")
    check(plan(3072, 4096, "NT") == "gemm_nt_256x256", plan(3072, 4096, "NT"))
    check(plan(6144, 4096, "NT") == "gemm_nt_128x128", plan(6144, 4096, "NT"))
    check(plan(2048, 2048, "NT") == "gemm_nt_128x128", plan(2048, 2048, "NT"))
    check(plan(4000, 4000, "NT") == "gemm_nt_ragged", plan(4000, 4000, "NT"))


def t_unsupported():
    a, bt = rand_bf16(128, 64), rand_bf16(128, 64)
    cases = [
        ("NN N % 8", (a, rand_bf16(64, 20)), {}, ["N % 8 == 0"]),
        ("TN M % 8", (rand_bf16(64, 20).t(), rand_bf16(64, 128)), {}, ["M % 8 == 0"]),
        ("TT M % 8", (rand_bf16(64, 20).t(), bt.t()), {}, ["M % 8 == 0"]),
        ("f32", (a.float(), bt.t().float()), {}, ["f32->f32 NT", "kernels exist for bf16->bf16 NT, "
                                                  "bf16->bf16 NN, bf16->bf16 TN, bf16->bf16 TT"]),
        ("f64", (a.double(), bt.t().double()), {}, ["f64->f64"]),
        ("f32 bias", (a.float(), bt.t().float()), {"bias": rand_bf16(128).float()}, ["f32+f32->f32"]),
        ("bias K % 8", (rand_bf16(128, 60), rand_bf16(128, 60).t()), {"bias": rand_bf16(128)}, ["K % 8 == 0"]),
        ("int", (torch.ones(4, 4, dtype=torch.int32), torch.ones(4, 4, dtype=torch.int32)), {},
         ["floating-point"]),
        ("K % 8", (rand_bf16(128, 60), rand_bf16(128, 60).t()), {}, ["K % 8 == 0"]),
        ("zero strides both", (torch.ones(1, 1, dtype=BF).expand(64, 64), bt[:64, :64].t()), {},
         ["neither row-major"]),
        ("bool", (torch.ones(4, 4, dtype=torch.bool), torch.ones(4, 4, dtype=torch.bool)), {}, ["bool"]),
        ("meta", (torch.empty(8, 8, dtype=BF, device="meta"),) * 2, {}, ["meta"]),
        ("sparse", (a.to_sparse(), bt.t()), {}, ["sparse"]),
    ]
    for name, args, kw, words in cases:
        launches = flyc.context().launches
        ok, why = flyc.ops.supported("mm", *args, **kw)
        check(not ok, "%s: supported" % name)
        for w in words:
            check(w in why, "%s: reason %r lacks %r" % (name, why, w))
        raises(flyc.Unsupported, lambda: flyc.ops.mm(*args, **kw), *words)
        check(flyc.context().launches == launches, "%s launched a kernel" % name)
    e = raises(flyc.Unsupported, lambda: flyc.ops.mm(a.float(), bt.t().float()))
    check(isinstance(e, flyc.Unsupported) and "f32" in e.reason)
    import flyrt
    check(isinstance(e, flyrt.Unsupported), "flyc.Unsupported is not a flyrt.Unsupported")


def t_span_bound():
    # M * K = 2^31 with tensors of a few bytes (zero strides): refused by the kernels'
    # requires before anything is staged
    M, K, N = 65536, 32768, 128
    a = torch.zeros(1, K, dtype=BF).expand(M, K)
    b = torch.zeros(N, K, dtype=BF).t()
    ok, why = flyc.ops.supported("mm", a, b)
    check(not ok and "M * K < 1 << 31" in why, why)
    big = torch.zeros(1, 8, dtype=BF).expand(2 ** 31, 8)
    ok, why = flyc.ops.supported("mm", big, torch.zeros(8, 8, dtype=BF).t())
    check(not ok and ("2^31" in why or "1 << 31" in why), why)


def t_malformed():
    a, b = rand_bf16(8, 16), rand_bf16(16, 8)
    cases = [
        (lambda: flyc.ops.mm(a[0], b), ValueError, "2-D"),
        (lambda: flyc.ops.mm(a, b[:8]), ValueError, "b's rows must equal"),
        (lambda: flyc.ops.mm(a, b.half()), ValueError, "share one dtype"),
        (lambda: flyc.ops.mm(a, b, out=torch.empty(8, 9, dtype=BF)), ValueError, "[M, N] = [8, 8]"),
        (lambda: flyc.ops.mm(a, b, out=torch.empty(8, 8, dtype=torch.float16)), ValueError, "output dtype"),
        (lambda: flyc.ops.mm(a, b, bias=torch.ones(9, dtype=BF)), ValueError, "[N] = [8]"),
        (lambda: flyc.ops.mm(a, b, bias=torch.ones(8)), ValueError, "bias has the output dtype"),
        (lambda: flyc.ops.mm(a, b, out_dtype=torch.float32, out=torch.empty(8, 8, dtype=BF)),
         ValueError, "out_dtype"),
        (lambda: flyc.ops.mm([[1.0]], b), TypeError, "torch tensor or a numpy array"),
        (lambda: flyc.ops.mm(a, np.ones((16, 8), np.float32)), TypeError, "mixes"),
        (lambda: flyc.ops.mm(a, b, out=torch.empty(1, 1, dtype=BF).expand(8, 8)), ValueError,
         "share memory"),
    ]
    for fn, exc, word in cases:
        raises(exc, fn, word)
    ok, why = flyc.ops.supported("mm", a[0], b)
    check(not ok and "2-D" in why, why)
    raises(ValueError, lambda: flyc.ops.supported("no_such_op", a), "no operator")


def t_zero_sizes():
    launches = flyc.context().launches
    z = flyc.ops.mm(rand_bf16(0, 64), rand_bf16(64, 128))
    check(z.shape == (0, 128) and z.dtype == BF)
    z = flyc.ops.mm(rand_bf16(64, 64), rand_bf16(64, 0))
    check(z.shape == (64, 0))
    out = Guarded((5, 7))
    flyc.ops.mm(rand_bf16(5, 0), rand_bf16(0, 7), out=out.view)
    check(torch.equal(out.view, torch.zeros(5, 7, dtype=BF)) and out.guards_intact(), "K = 0: not zeros")
    bias = rand_bf16(7)
    r = flyc.ops.mm(rand_bf16(5, 0), rand_bf16(0, 7), bias=bias)
    check(torch.equal(r, bias.expand(5, 7)), "K = 0: not the bias rows")
    r = flyc.ops.mm(rand_bf16(5, 0).float(), rand_bf16(0, 7).float(), bias=bias.float())
    check(torch.equal(r, bias.float().expand(5, 7)), "K = 0 f32: not the bias rows")
    # bias overlapping out: bias is read whole before out is written
    st = torch.zeros(5 * 7, dtype=BF)
    st[:7] = bias
    o, bb = st.view(5, 7), st[:7]
    flyc.ops.mm(rand_bf16(5, 0), rand_bf16(0, 7), bias=bb, out=o)
    check(torch.equal(o, bias.expand(5, 7)), "K = 0 with bias aliasing out")
    check(flyc.context().launches == launches, "a zero size launched a kernel")
    check(flyc.ops.plan("mm", rand_bf16(5, 0), rand_bf16(0, 7)) == "")


def t_hostile_layouts():
    g = torch.Generator().manual_seed(7)
    M, N, K = 128, 128, 64
    a0, bt0 = rand_bf16(M, K, gen=g), rand_bf16(N, K, gen=g)
    want = flyc.ops.mm(a0, bt0.t())
    check_mm(want, a0, bt0.t())
    variants = [
        # padded rows (row stride > K), an odd storage offset (2-byte aligned data)
        ("padded rows", Guarded((M, K), strides=(K + 24, 1), offset=3, values=a0).view,
         Guarded((N, K), strides=(K + 8, 1), offset=1, values=bt0).view.t()),
        # B given as a column-major [K, N] with padding between columns
        ("padded b", a0, Guarded((K, N), strides=(1, K + 40), values=bt0.t()).view),
        # zero strides: a row repeated (a is N with row stride 0)
        ("zero row stride", a0[:1].expand(M, K), bt0.t()),
        ("requires_grad", a0.clone().requires_grad_(True), bt0.t()),
        ("neg bit", torch._neg_view(-a0), bt0.t()),
    ]
    for name, a, b in variants:
        c = flyc.ops.mm(a, b)
        if name == "zero row stride":
            check_mm(c, a, b)
            check(torch.equal(c, c[:1].expand(M, N)), "zero row stride: rows differ")
        else:
            check(torch.equal(c.view(torch.int16), want.view(torch.int16)), "%s: differs" % name)
    # out: transposed (column-major), padded, at an odd offset
    for strides, off in (((1, M), 0), ((N + 3, 1), 1)):
        out = Guarded((M, N), strides=strides, offset=off)
        flyc.ops.mm(a0, bt0.t(), out=out.view)
        check(torch.equal(out.view.contiguous().view(torch.int16), want.view(torch.int16)),
              "out strides %s" % (strides,))
        check(out.guards_intact(), "out strides %s: guards written" % (strides,))
    # out may not be provably distinct: refused, nothing written
    st = torch.full((M * N,), NAN, dtype=BF)
    odd = st.as_strided((M, N), (2, 3))
    raises(flyc.Unsupported, lambda: flyc.ops.mm(a0, bt0.t(), out=odd), "may make elements share")
    check(bool(torch.isnan(st.float()).all()), "a refused out was written")


def t_out_overlaps_input():
    g = torch.Generator().manual_seed(9)
    n = 128
    a, bt = rand_bf16(n, n, gen=g), rand_bf16(n, n, gen=g)
    want = flyc.ops.mm(a, bt.t())
    a2 = a.clone()
    r = flyc.ops.mm(a2, bt.t(), out=a2)         # out is a: the result of the inputs as given
    check(r is a2 and torch.equal(a2.view(torch.int16), want.view(torch.int16)), "out = a")
    bt2 = bt.clone()
    flyc.ops.mm(a, bt2.t(), out=bt2.t())        # out is b (transposed view of the same storage)
    check(torch.equal(bt2.t().view(torch.int16), want.view(torch.int16)), "out = b")


def t_transposed_reads_race_free():
    # the NN/TN/TT kernels' transposed LDS reads and their 2-stage ring under the simulator's
    # LDS race check (FLY_SIM_RACECHECK, read when the device opens: a race fails the launch,
    # as tests/pingpong's mis-phased export shows), ragged in M, N and K; the 8-wave
    # 256x128 and 256x256 tiles over two rows of tiles; the tile kernels (loads straight
    # to LDS) over several tiles and k-tiles
    code = ("import sys, torch; sys.path.insert(0, %r); import flyc\n"
            "g = torch.Generator().manual_seed(3)\n"
            "for v, la, lb in (('gemm_nn', 'N', 'N'), ('gemm_tn', 'T', 'N'), ('gemm_tt', 'T', 'T')):\n"
            "  for t, (M, N, K) in (('_ragged', (136, 200, 136)), ('_ragged_256x128', (264, 136, 136)),\n"
            "                       ('_ragged_256x256', (264, 200, 136)), ('_128x128', (256, 128, 192)),\n"
            "                       ('_256x256', (256, 256, 192))):\n"
            "    w = v + t\n"
            "    a = torch.randn(K, M, generator=g).to(torch.bfloat16).t() if la == 'T' else torch.randn(M, K, generator=g).to(torch.bfloat16)\n"
            "    b = torch.randn(K, N, generator=g).to(torch.bfloat16) if lb == 'N' else torch.randn(N, K, generator=g).to(torch.bfloat16).t()\n"
            "    with flyc.ops.using_variant(w):\n"
            "        assert flyc.ops.plan('mm', a, b) == w\n"
            "        c = flyc.ops.mm(a, b)\n"
            "    err = float((c.double() - a.double() @ b.double()).abs().max())\n"
            "    assert err < 0.5, (w, err)\n"
            "print('ok')\n"
            % os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, FLY_SIM_RACECHECK="1"))
    check(p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-800:])


def t_deterministic():
    g = torch.Generator().manual_seed(11)
    a, bt = rand_bf16(256, 128, gen=g), rand_bf16(256, 128, gen=g)
    for v in ("gemm_nt_128x128", "gemm_nt_256x256_st128", "gemm_nt_ragged"):
        with flyc.ops.using_variant(v):
            r1, r2 = flyc.ops.mm(a, bt.t()), flyc.ops.mm(a, bt.t())
        check(torch.equal(r1.view(torch.int16), r2.view(torch.int16)), "%s: two runs differ" % v)
    # across the simulator's thread counts (FLY_SIM_THREADS, read when the device opens)
    code = ("import sys, torch; sys.path.insert(0, %r); import flyc; g = torch.Generator()."
            "manual_seed(5); a = (torch.rand(256, 192, generator=g) * 2 - 1).to(torch.bfloat16); "
            "b = (torch.rand(384, 192, generator=g) * 2 - 1).to(torch.bfloat16); "
            "c = flyc.ops.mm(a, b.t()); print(c.view(torch.int16).tolist().__hash__() "
            "if False else hash(tuple(c.view(torch.int16).reshape(-1).tolist())))"
            % os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    outs = []
    for threads in ("1", "2", "5"):
        env = dict(os.environ, FLY_SIM_THREADS=threads, PYTHONHASHSEED="0")
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        check(p.returncode == 0, p.stderr[-800:])
        outs.append(p.stdout.strip())
    check(len(set(outs)) == 1, "results differ across FLY_SIM_THREADS: %s" % outs)


def t_variants_agree():
    # every variant accumulates an output over K in the same order (docs/ops.md)
    # (per operand and output dtype)
    g = torch.Generator().manual_seed(13)
    a, bt = rand_bf16(256, 256, gen=g, dtype=torch.float32), rand_bf16(256, 128, gen=g, dtype=torch.float32)
    groups = {}
    for v in SHAPES:
        groups.setdefault(variant_dtypes(v), []).append(v)
    check(len(groups) == 4, groups)
    for (T, O), vs in groups.items():
        outs = {}
        for v in vs:
            with flyc.ops.using_variant(v):
                la, lb = v.split("_")[1].upper()
                x = a[:, :128].to(T) if la == "N" else a[:, :128].to(T).t().contiguous().t()
                y = bt.t().to(T).contiguous() if lb == "N" else bt.to(T).t()
                outs[v] = flyc.ops.mm(x, y, out_dtype=O)
        first = next(iter(outs.values()))
        check(len(outs) >= 4 and all(torch.equal(o, first) for o in outs.values()),
              "variants differ: %s" % [v for v, o in outs.items() if not torch.equal(o, first)])


SPLITK = [(1, 256, 2048, BF, BF), (16, 136, 4104, BF, BF), (33, 64, 1000, torch.float16, torch.float16),
          (64, 520, 1032, BF, torch.float32), (5, 72, 776, torch.float16, torch.float32)]
if SAN:
    SPLITK = SPLITK[:2]


def run_splitk(M, N, K, T, O, seed):
    # split-K: M <= 64 and a long K are split by default (S ranges of k-tiles, f32 partials
    # added in range order); the K tail, ragged M and N, every output dtype
    g = torch.Generator().manual_seed(seed)
    a_s = Guarded((M, K), dtype=T, values=rand_bf16(M, K, gen=g, dtype=T))
    bs = Guarded((N, K), dtype=T, values=rand_bf16(N, K, gen=g, dtype=T))
    out = Guarded((M, N), dtype=O)
    want = "gemm_nt_splitk_f16" if T == torch.float16 else "gemm_nt_splitk"
    check(flyc.ops.plan("mm", a_s.view, bs.view.t(), out=out.view) == want)
    launches = flyc.context().launches
    r = flyc.ops.mm(a_s.view, bs.view.t(), out=out.view)
    check(r is out.view and flyc.context().launches == launches + 2, "not two launches into out")
    check(a_s.unchanged() and bs.unchanged() and out.guards_intact(), "a guard or input was written")
    check(not bool(torch.isnan(out.view.float()).any()), "an element of out was not written")
    check_mm(out.view, a_s.view, bs.view.t())
    again = flyc.ops.mm(a_s.view, bs.view.t(), out_dtype=O)
    check(torch.equal(again, out.view), "two runs differ")
    ai, bi = rand_bf16(M, K, gen=g, integer=True, dtype=T), rand_bf16(N, K, gen=g, integer=True, dtype=T)
    ci = flyc.ops.mm(ai, bi.t(), out_dtype=O)
    check(torch.equal(ci, (ai.double() @ bi.double().t()).to(O)), "integer inputs: not exact")


def t_splitk_choice():
    a, b = rand_bf16(16, 4096), rand_bf16(4096, 4096).t()
    check(flyc.ops.plan("mm", a, b) == "gemm_nt_splitk", flyc.ops.plan("mm", a, b))
    check(flyc.ops.plan("mm", rand_bf16(65, 4096), b) == "gemm_nt_ragged", "M = 65 split")
    check(flyc.ops.plan("mm", rand_bf16(16, 128), rand_bf16(4096, 128).t()) == "gemm_nt_ragged", "K = 128 split")
    check(flyc.ops.plan("mm", a, rand_bf16(4096, 4096)) == "gemm_nn_ragged", "NN split")
    with flyc.ops.using_variant("gemm_nt_ragged"):          # forcing another variant: no split
        check(flyc.ops.plan("mm", a, b) == "gemm_nt_ragged")
    x, y = rand_bf16(130, 24), rand_bf16(40, 24).t()
    with flyc.ops.using_variant("gemm_nt_splitk"):          # forcing split-K: any NT shape
        c = flyc.ops.mm(x, y)
    check(c.shape == (130, 40))
    check_mm(c, x, y)
    with flyc.ops.using_variant("gemm_nt_splitk.s3"):       # at most 3 ranges (x: 1 k-tile)
        check(flyc.ops.plan("mm", x, y) == "gemm_nt_splitk.s3")
        check_mm(flyc.ops.mm(x, y), x, y)
    with flyc.ops.using_variant("gemm_nt_splitk.s4"):
        check(flyc.ops.plan("mm", a, b) == "gemm_nt_splitk.s4")
    for bad in ("gemm_nt_splitk.s0", "gemm_nt_splitk.s65", "gemm_nt_splitk.s04", "gemm_nt_splitk.4",
                "gemm_nt_ragged.s4", "gemm_nt_splitk_f16.s4"):
        with flyc.ops.using_variant(bad):
            raises(ValueError, lambda: flyc.ops.plan("mm", a, b), "no variant", bad)
    with flyc.ops.using_variant("gemm_nt_splitk.s2"):       # split-K is NT only
        raises(ValueError, lambda: flyc.ops.plan("mm", a, rand_bf16(4096, 4096)), "no variant")
    with flyc.ops.using_variant("gemm_splitk_sum_bf16"):    # the reduction is not a product
        raises(ValueError, lambda: flyc.ops.mm(rand_bf16(8, 64), rand_bf16(8, 64).t()), "no variant")
    # the sum order is fixed: the same bits on 1 and 2 simulator threads; both kernels
    # under the LDS race check
    code = ("import sys, torch; sys.path.insert(0, %r); import flyc; torch.manual_seed(0); "
            "x = (torch.rand(16, 2048) * 2 - 1).to(torch.bfloat16); "
            "y = (torch.rand(256, 2048) * 2 - 1).to(torch.bfloat16); "
            "print(flyc.ops.plan('mm', x, y.t()), flyc.ops.mm(x, y.t()).view(torch.int16).sum().item())"
            % os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    outs = []
    for th in ("1", "2"):
        env = dict(os.environ, FLY_SIM_THREADS=th, FLY_SIM_RACECHECK="1")
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        check(p.returncode == 0, p.stderr[-800:])
        outs.append(p.stdout.strip())
    check(outs[0] == outs[1] and outs[0].startswith("gemm_nt_splitk "), outs)


def t_plan_writes_nothing():
    a, bt = rand_bf16(128, 64), rand_bf16(128, 64)
    out = Guarded((128, 128))
    launches = flyc.context().launches
    check(flyc.ops.supported("mm", a, bt.t(), out=out.view) == (True, "variant gemm_nt_128x128"))
    check(flyc.ops.plan("mm", a, bt.t(), out=out.view) == "gemm_nt_128x128")
    check(out.unchanged(), "a plan wrote out")
    check(flyc.context().launches == launches, "a plan launched")
    flyc.ops.mm(a, bt.t(), out=out.view)
    check(flyc.context().launches == launches + 1, "one call, one launch")


def t_numpy():
    x = np.ones((4, 16), np.float32)
    ok, why = flyc.ops.supported("mm", np.ones((8, 8), np.float16), np.ones((8, 8), np.float16).T)
    check(ok and why == "variant gemm_nt_ragged_f16", why)
    z = flyc.ops.mm(np.full((8, 16), 0.5, np.float16), np.ones((16, 8), np.float16))
    check(isinstance(z, np.ndarray) and z.dtype == np.float16 and np.all(z == 8.0), z)
    ok, why = flyc.ops.supported("mm", np.ones((8, 8)), np.ones((8, 8)).T)
    check(not ok and "f64->f64" in why, why)
    y, r = flyc.ops.rms_norm(x, np.ones(16, np.float32))
    check(isinstance(y, np.ndarray) and y.dtype == np.float32 and np.allclose(y, 1.0) and
          np.allclose(r, 1 / math.sqrt(1 + np.finfo(np.float32).eps)), (y, r))
    raises(flyc.Unsupported, lambda: flyc.ops.rms_norm(x, np.ones(16, np.float16)), "f32,f16->f32")
    v, i = flyc.ops.topk(x, 0)
    check(isinstance(v, np.ndarray) and v.shape == (4, 0) and i.dtype == np.int64)
    y, r = flyc.ops.rms_norm(np.ones((0, 16), np.float32), None)
    check(y.shape == (0, 16) and r.shape == (0, 1) and r.dtype == np.float32)
    z = flyc.ops.mm(np.ones((3, 0), np.float32), np.ones((0, 2), np.float32))
    check(isinstance(z, np.ndarray) and (z == 0).all() and z.shape == (3, 2))
    # negative strides (reversed rows): staged through compact buffers, exact for small integers
    neg = (np.arange(64).reshape(8, 8) % 5 - 2).astype(np.float16)[::-1]
    ok, why = flyc.ops.supported("mm", neg, neg.T)
    check(ok and why == "variant gemm_nt_ragged_f16", why)
    z = flyc.ops.mm(neg, neg.T)
    check(z.dtype == np.float16 and np.array_equal(z, neg.astype(np.float64) @ neg.T.astype(np.float64)), z)
    raises(flyc.Unsupported, lambda: flyc.ops.mm(np.ones((2, 2), ">f4"), np.ones((2, 2), ">f4")),
           "numpy dtype")


# ---- operators without kernels yet: every check is real ---------------------------------

def no_kernel(name, *args, **kw):
    launches = flyc.context().launches
    ok, why = flyc.ops.supported(name, *args, **kw)
    check(not ok and "no gfx950 kernel" in why, "%s: %s" % (name, why))
    raises(flyc.Unsupported, lambda: getattr(flyc.ops, name)(*args, **kw), "no gfx950 kernel")
    check(flyc.context().launches == launches)


def t_grouped_mm():
    # the checks; results: tests/grouped
    a, b = rand_bf16(10, 32), rand_bf16(3, 32, 32)
    offs = torch.tensor([4, 4, 10], dtype=torch.int32)
    check(flyc.ops.plan("grouped_mm", a, b, offs) == "grouped_mm_nn_bf16_n32")
    no_kernel("grouped_mm", a.float(), b.float(), offs)
    raises(flyc.Unsupported, lambda: flyc.ops.grouped_mm(a, rand_bf16(3, 32, 16), offs), "N % 32 == 0")
    z = flyc.ops.grouped_mm(rand_bf16(10, 0), rand_bf16(3, 0, 32), offs)
    check(torch.equal(z, torch.zeros(10, 32, dtype=BF)), "K = 0: zeros")
    check(flyc.ops.grouped_mm(rand_bf16(0, 32), b, torch.zeros(3, dtype=torch.int32)).shape == (0, 32))
    for o, word in ((offs.long(), "expected i32"), (torch.tensor([4, 3, 10], dtype=torch.int32), "non-decreasing"),
                    (torch.tensor([4, 11, 10], dtype=torch.int32), "within"),
                    (torch.tensor([4, 10], dtype=torch.int32), "2 entries for 3 groups")):
        raises(ValueError, lambda o=o: flyc.ops.grouped_mm(a, b, o), word)
    raises(ValueError, lambda: flyc.ops.grouped_mm(a, b[0], offs), "3-D")
    raises(ValueError, lambda: flyc.ops.grouped_mm(a, rand_bf16(3, 31, 16), offs), "K = 31")
    raises(ValueError, lambda: flyc.ops.grouped_mm(a, b.half(), offs), "one dtype")
    raises(ValueError, lambda: flyc.ops.grouped_mm(a, b, offs, out=torch.empty(10, 32)), "dtype")
    # the reference against a loop of products
    ref = reference.grouped_mm(a, b, offs)
    check(torch.equal(ref[4:], (a[4:].double() @ b[2].double()).to(BF)) and bool((ref[:4] ==
          (a[:4].double() @ b[0].double()).to(BF)).all()))


def t_scaled_mm():
    M, N, K = 32, 16, 64
    u8 = torch.uint8
    a, b = torch.randint(0, 256, (M, K), dtype=u8), torch.randint(0, 256, (N, K), dtype=u8)
    sa, sb = torch.full((M, K // 32), 127, dtype=u8), torch.full((N, K // 32), 127, dtype=u8)
    # K = 64 and N = 16: valid, but the kernels (tests/scaled) need N % 32 (the first refusal) and K % 128
    no_kernel("scaled_mm", a, b, sa, sb, format="mxfp8")
    no_kernel("scaled_mm", a[:, :K // 2], b[:, :K // 2], sa, sb, format="mxfp4")
    check("N % (16 * WN) == 0" in flyc.ops.supported("scaled_mm", a, b, sa, sb, format="mxfp8")[1])
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b, sa, sb, format="fp8"), "format")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a[:, :48], b[:, :48], sa, sb, format="mxfp8"),
           "multiple of 32")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b, sa[:, :1], sb, format="mxfp8"), "[M, K/32]")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b, sa, sb[:8], format="mxfp8"), "[N, K/32]")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a.to(torch.int8), b, sa, sb, format="mxfp8"), "uint8")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b[:, :32], sa, sb, format="mxfp8"), "B transposed")
    bias = rand_bf16(N)
    e = torch.zeros(M, 0, dtype=u8)
    r = flyc.ops.scaled_mm(e, torch.zeros(N, 0, dtype=u8), torch.zeros(M, 0, dtype=u8),
                           torch.zeros(N, 0, dtype=u8), format="mxfp8", bias=bias)
    check(torch.equal(r, bias.expand(M, N)) and r.dtype == BF, "K = 0: the bias rows")
    raises(TypeError, lambda: flyc.ops.scaled_mm(a.numpy(), b.numpy(), sa.numpy(), sb.numpy(),
                                                 format="mxfp8"), "out_dtype")
    # the reference's decoding: e4m3 0x38 = 1, 0x7e = 448, 0x01 = 2^-9; e2m1 nibbles
    one = torch.tensor([[0x38, 0x7e, 0x01] + [0] * 29], dtype=u8)
    d = reference.mx_decode(one, torch.tensor([[127]], dtype=u8), "mxfp8")
    check(d[0, :3].tolist() == [1.0, 448.0, 2.0 ** -9], d[0, :3].tolist())
    d = reference.mx_decode(torch.tensor([[0x72] + [0] * 15], dtype=u8), torch.tensor([[128]], dtype=u8),
                            "mxfp4")
    check(d[0, :2].tolist() == [2.0, 12.0], d[0, :2].tolist())   # low nibble 2 (1.0), high 7 (6.0), x2


def t_rms_norm():
    x, w = rand_bf16(4, 64), rand_bf16(64)
    # the kernels (tests/norm checks their results); a weight of another dtype has none
    check(flyc.ops.supported("rms_norm", x, w) == (True, "variant rms_norm_bf16_r16"))
    check(flyc.ops.supported("rms_norm", x, None, 1e-5, residual=rand_bf16(4, 64)) ==
          (True, "variant rms_norm_bf16_r16"))
    no_kernel("rms_norm", x, w.float())
    y, r = flyc.ops.rms_norm(rand_bf16(0, 64), w)
    check(y.shape == (0, 64) and r.shape == (0, 1) and r.dtype == torch.float32)
    y, r = flyc.ops.rms_norm(rand_bf16(3, 0), None)
    check(y.shape == (3, 0) and bool(torch.isnan(r).all()) and r.shape == (3, 1), "N = 0: rstd NaN")
    y, r, h = flyc.ops.rms_norm(rand_bf16(2, 0, 5), None, residual=rand_bf16(2, 0, 5))
    check(h.shape == (2, 0, 5) and r.shape == (2, 0, 1))
    raises(ValueError, lambda: flyc.ops.rms_norm(x, w, -1.0), "eps")
    raises(ValueError, lambda: flyc.ops.rms_norm(x, w, math.inf), "eps")
    raises(TypeError, lambda: flyc.ops.rms_norm(x, w, "1e-5"), "eps")
    raises(ValueError, lambda: flyc.ops.rms_norm(x, rand_bf16(63)), "[N] = [64]")
    raises(ValueError, lambda: flyc.ops.rms_norm(x, w, residual=rand_bf16(4, 63)), "x's shape")
    raises(ValueError, lambda: flyc.ops.rms_norm(x, w, residual=rand_bf16(4, 64).half()), "x's dtype")
    raises(ValueError, lambda: flyc.ops.rms_norm(torch.ones(4, 4, dtype=torch.int32), None), "floating")
    raises(ValueError, lambda: flyc.ops.rms_norm(torch.tensor(1.0), None), "at least one dim")
    # the reference against f64
    xd = torch.randn(3, 40, dtype=torch.float64)
    wd = torch.randn(40, dtype=torch.float64)
    y, r = reference.rms_norm(xd, wd, 1e-6)
    want = xd / torch.sqrt((xd * xd).mean(-1, keepdim=True) + 1e-6) * wd
    check(torch.allclose(y, want, rtol=1e-12, atol=0), "reference rms_norm")


def t_rms_norm_backward():
    x, w = rand_bf16(4, 64), rand_bf16(64)
    r = torch.ones(4, 1)
    check(flyc.ops.supported("rms_norm_backward", rand_bf16(4, 64), x, w, r) ==
          (True, "variant rms_norm_bwd_bf16_n512"))
    no_kernel("rms_norm_backward", rand_bf16(4, 64), x, w.half(), r)
    gx, gw = flyc.ops.rms_norm_backward(rand_bf16(0, 64), rand_bf16(0, 64), w, torch.ones(0, 1))
    check(gx.shape == (0, 64) and torch.equal(gw, torch.zeros(64, dtype=BF)), "rows 0: grad_weight zeros")
    gx, gw = flyc.ops.rms_norm_backward(rand_bf16(0, 64), rand_bf16(0, 64), None, torch.ones(0, 1))
    check(gw is None)
    raises(ValueError, lambda: flyc.ops.rms_norm_backward(rand_bf16(4, 64), x, w, r.double()), "f32")
    raises(ValueError, lambda: flyc.ops.rms_norm_backward(rand_bf16(4, 64), x, w, torch.ones(4)),
           "last dim 1")
    raises(ValueError, lambda: flyc.ops.rms_norm_backward(rand_bf16(4, 64).half(), x, w, r), "x's dtype")
    # the reference backward against autograd in f64, given rstd in f64 (the rstd the forward
    # returns is rounded to f32, as the operator's; with it, cancellation in gw - x*r*r*dot/n
    # makes agreement depend on the draw)
    g64 = torch.Generator().manual_seed(17)
    for weighted in (True, False):
        xd = torch.randn(3, 20, dtype=torch.float64, generator=g64, requires_grad=True)
        wd = torch.randn(20, dtype=torch.float64, generator=g64, requires_grad=True) if weighted else None
        y, rs = reference.rms_norm(xd, wd, 1e-6)
        check(rs.dtype == torch.float32, "reference rms_norm returns rstd in f32")
        rs64 = torch.rsqrt(xd.detach().pow(2).mean(-1, keepdim=True) + 1e-6)
        g = torch.randn(3, 20, dtype=torch.float64, generator=g64)
        y.backward(g)
        gx, gw = reference.rms_norm_backward(g, xd.detach(), None if wd is None else wd.detach(), rs64)
        check(torch.allclose(gx, xd.grad, rtol=1e-12, atol=1e-12), "reference rms_norm_backward: grad x")
        check((gw is None) if wd is None else torch.allclose(gw, wd.grad, rtol=1e-12, atol=1e-12),
              "reference rms_norm_backward: grad weight")


def t_topk():
    x = torch.randn(8, 64)
    v, i = flyc.ops.topk(x, 4)
    rv, ri = reference.topk(x, 4)
    check(torch.equal(v, rv) and torch.equal(i, ri), "topk k=4 of 64 against the reference")
    check(flyc.ops.plan("topk", x, 3) == "topk_f32_reg4", flyc.ops.plan("topk", x, 3))
    ok, why = flyc.ops.supported("topk", x, 4, largest=False)
    check(not ok and "largest=False" in why, why)
    ok, why = flyc.ops.supported("topk", x.double(), 4)
    check(not ok and "no gfx950 kernel for f64" in why, why)
    v, i = flyc.ops.topk(x, 0)
    check(v.shape == (8, 0) and i.dtype == torch.int64)
    v, i = flyc.ops.topk(torch.randn(0, 64), 3)
    check(v.shape == (0, 3))
    raises(ValueError, lambda: flyc.ops.topk(x, 65), "outside 0..64")
    raises(ValueError, lambda: flyc.ops.topk(x, -1), "outside")
    raises(TypeError, lambda: flyc.ops.topk(x, 2.0), "int")
    raises(TypeError, lambda: flyc.ops.topk(x, True), "int")
    raises(flyc.Unsupported, lambda: flyc.ops.topk(torch.tensor(1.0), 1), "0-d")
    # the reference: NaN largest, ties by ascending index
    t = torch.tensor([[1.0, 3.0, NAN, 3.0, 2.0, 3.0]])
    v, i = reference.topk(t, 4)
    check(i.tolist() == [[2, 1, 3, 5]] and math.isnan(v[0, 0]), (v, i))
    v, i = reference.topk(t, 3, largest=False)
    check(i.tolist() == [[0, 4, 1]], i)


def t_attention():
    q, k, v = rand_bf16(2, 4, 16, 32), rand_bf16(2, 2, 24, 32), rand_bf16(2, 2, 24, 8)
    # stdlib/ops/attention.fly serves Dv == D in 32, 64, 128, 256, 512 (tests/attention)
    check(flyc.ops.plan("attention", q, k, k) == "attn_fwd_bf16_d32")
    check(flyc.ops.plan("attention", q, k, k, causal=True, return_lse=True) == "attn_fwd_bf16_d32_causal")
    launches = flyc.context().launches
    raises(flyc.Unsupported, lambda: flyc.ops.attention(q, k, v), "one head dim")
    raises(flyc.Unsupported, lambda: flyc.ops.attention(rand_bf16(1, 1, 4, 48), rand_bf16(1, 1, 4, 48),
                                                        rand_bf16(1, 1, 4, 48)), "D = 32, 64, 128, 256 and 512")
    check(flyc.context().launches == launches)
    out, lse = flyc.ops.attention(q, k[:, :, :0], v[:, :, :0], return_lse=True)
    check(torch.equal(out, torch.zeros(2, 4, 16, 8, dtype=BF)) and bool((lse == -math.inf).all()),
          "Sk = 0: out 0, lse -inf")
    check(flyc.ops.attention(q[:0], k[:0], v[:0]).shape == (0, 4, 16, 8))
    raises(ValueError, lambda: flyc.ops.attention(q, rand_bf16(2, 3, 24, 32), rand_bf16(2, 3, 24, 8)),
           "not a multiple")
    raises(ValueError, lambda: flyc.ops.attention(q, k, v.half()), "one dtype")
    raises(ValueError, lambda: flyc.ops.attention(q, rand_bf16(2, 2, 24, 16), v), "D")
    raises(ValueError, lambda: flyc.ops.attention(q, k, rand_bf16(2, 2, 23, 8)), "Sk")
    raises(ValueError, lambda: flyc.ops.attention(q, k, v, scale=math.inf), "finite")
    raises(ValueError, lambda: flyc.ops.attention(q[0], k, v), "4-D")
    # the reference against a naive softmax (GQA, causal)
    qd, kd, vd = (torch.randn(1, 4, 5, 8, dtype=torch.float64), torch.randn(1, 2, 7, 8, dtype=torch.float64),
                  torch.randn(1, 2, 7, 3, dtype=torch.float64))
    o, l = reference.attention(qd, kd, vd, causal=True, scale=0.5)
    for h in range(4):
        s = qd[0, h] @ kd[0, h // 2].t() * 0.5
        s = s.masked_fill(torch.ones(5, 7, dtype=torch.bool).tril().logical_not(), -math.inf)
        p = torch.softmax(s, -1)
        check(torch.allclose(o[0, h], p @ vd[0, h // 2], rtol=1e-12, atol=1e-12), "reference attention")
        check(torch.allclose(l[0, h].double(), torch.logsumexp(s, -1), rtol=1e-6), "reference lse")


def t_attention_backward():
    q, k, v = rand_bf16(1, 4, 8, 16), rand_bf16(1, 2, 8, 16), rand_bf16(1, 2, 8, 16)
    o, lse = rand_bf16(1, 4, 8, 16), torch.zeros(1, 4, 8)
    # head dim 16: refused with the head dims the kernels take, before any launch
    launches = flyc.context().launches
    raises(flyc.Unsupported, lambda: flyc.ops.attention_backward(rand_bf16(1, 4, 8, 16), q, k, v, o, lse),
           "head dim 16", "32, 64, 128, 256 and 512")
    check(flyc.context().launches == launches, "a refused call launched a kernel")
    # head dim 32 is served (three kernels; results: tests/attention/attn_bwd.py)
    q32, k32 = rand_bf16(1, 4, 8, 32), rand_bf16(1, 2, 8, 32)
    ok, why = flyc.ops.supported("attention_backward", q32, q32, k32, k32, q32, lse)
    check(ok, why)
    flyc.ops.attention_backward(q32, q32, k32, k32, q32, lse)
    check(flyc.context().launches == launches + 3, "Delta, dK/dV and dQ: three launches")
    dq, dk, dv = flyc.ops.attention_backward(rand_bf16(1, 4, 8, 16), q, k[:, :, :0], v[:, :, :0], o, lse)
    check(torch.equal(dq, torch.zeros_like(dq)) and dk.shape == (1, 2, 0, 16), "Sk = 0: zero grads")
    raises(ValueError, lambda: flyc.ops.attention_backward(rand_bf16(1, 4, 8, 16), q, k, v, o, lse[:, :, :7]),
           "[B, Hq, Sq]")
    raises(ValueError, lambda: flyc.ops.attention_backward(rand_bf16(1, 4, 8, 15), q, k, v, o, lse),
           "[B, Hq, Sq, Dv]")
    # the reference backward against autograd in f64 (GQA, causal)
    gen = torch.Generator().manual_seed(17)
    qd = torch.randn(1, 4, 5, 8, dtype=torch.float64, generator=gen).requires_grad_()
    kd = torch.randn(1, 2, 6, 8, dtype=torch.float64, generator=gen).requires_grad_()
    vd = torch.randn(1, 2, 6, 3, dtype=torch.float64, generator=gen).requires_grad_()
    o, l = reference.attention(qd, kd, vd, causal=True)
    g = torch.randn(o.shape, dtype=o.dtype, generator=gen)
    o.backward(g)
    dq, dk, dv = reference.attention_backward(g, qd.detach(), kd.detach(), vd.detach(), o.detach(), l,
                                              causal=True)
    # lse is f32, so P = exp(S - lse) carries its rounding (2^-24 of |lse|): over 300 seeds the
    # error reached 1.8e-7 of |grad| + 1, so atol=1e-7 failed about one run in 75 (unseeded before)
    for got, want in ((dq, qd.grad), (dk, kd.grad), (dv, vd.grad)):
        check(torch.allclose(got, want, rtol=1e-6, atol=1e-6), "reference attention_backward")


def t_outputs_checked():
    # every operator refuses outputs that overlap each other: here through the C API's
    # checks as flyc.ops reaches them (its own outputs never overlap), so via mm's out
    st = torch.zeros(64, dtype=BF)
    raises(ValueError, lambda: flyc.ops.mm(rand_bf16(8, 0), rand_bf16(0, 8), out=st[:1].expand(8, 8)),
           "share memory")


# ---- gfx1201 (run again by run.sh with FLY_DEVICE=sim:gfx1201) -------------------------

SHAPES_1201 = {"gemm_nt_wmma_128x128": ["128x128x32", "256x384x96", "128x256x64"],
               "gemm_nt_wmma_f16_128x128": ["128x128x32", "256x128x96"]}
if SAN:
    SHAPES_1201 = {v: s[:1] for v, s in SHAPES_1201.items()}


def t_1201_variants():
    check(flyc.ops.variants("mm") == ["gemm_nt_wmma_128x128", "gemm_nt_wmma_f16_128x128"],
          flyc.ops.variants("mm"))
    a, b = rand_bf16(256, 128), rand_bf16(128, 128).t()
    check(flyc.ops.plan("mm", a, b) == "gemm_nt_wmma_128x128", flyc.ops.plan("mm", a, b))
    check(flyc.ops.plan("mm", a.half(), b.half()) == "gemm_nt_wmma_f16_128x128")


def t_1201_refused():
    # the WMMA kernel takes tile multiples only: ragged shapes are refused, not computed wrong
    for M, N, K in ((100, 128, 32), (128, 200, 32), (128, 128, 40)):
        out = Guarded((M, N))
        raises(flyc.ops.Unsupported, lambda: flyc.ops.mm(rand_bf16(M, K), rand_bf16(N, K).t(), out=out.view),
               "gfx1201", "requires")
        check(out.unchanged(), "a refused call wrote out")
    # a gfx950 variant is not offered on a gfx1201 device (naming one is a caller error)
    def gfx950_variant():
        with flyc.ops.using_variant("gemm_nt_128x128"):
            flyc.ops.mm(rand_bf16(128, 64), rand_bf16(128, 64).t())
    raises(ValueError, gfx950_variant, "gemm_nt_128x128", "gfx1201")


def main_1201():
    tests = [("mm/gfx1201 variants and default", t_1201_variants)]
    for n, (v, shapes) in enumerate(SHAPES_1201.items()):
        for m, sh in enumerate(shapes):
            M, N, K = (int(x) for x in sh.split("x"))
            tests.append(("mm/%s/%s" % (v, sh), lambda v=v, M=M, N=N, K=K, seed=700 + m:
                          run_variant(v, M, N, K, seed)))
    tests.append(("mm/gfx1201 refusals", t_1201_refused))
    return run("ops-gfx1201", tests)


def main():
    if os.environ.get("FLY_DEVICE") == "sim:gfx1201":
        return main_1201()
    tests = [("mm/variants listed", t_variants_listed), ("mm/default choice", t_default_choice)]
    tests += variant_tests()
    tests += [("mm/splitk/%dx%dx%d %s->%s" % (M, N, K, str(T)[6:], str(O)[6:]),
               lambda M=M, N=N, K=K, T=T, O=O, n=n: run_splitk(M, N, K, T, O, 900 + n))
              for n, (M, N, K, T, O) in enumerate(SPLITK)]
    tests.append(("mm/splitk chosen for few rows and a long K, forced, deterministic", t_splitk_choice))
    tests += [("mm/unsupported with reasons", t_unsupported), ("mm/span bound", t_span_bound),
              ("mm/malformed calls", t_malformed), ("mm/zero sizes", t_zero_sizes),
              ("mm/hostile strides, offsets and outs", t_hostile_layouts),
              ("mm/out overlapping an input", t_out_overlaps_input),
              ("mm/plans write and launch nothing", t_plan_writes_nothing),
              ("mm/every variant gives the same bits", t_variants_agree),
              ("mm/numpy", t_numpy), ("grouped_mm/checks", t_grouped_mm),
              ("scaled_mm/checks", t_scaled_mm), ("rms_norm/checks", t_rms_norm),
              ("rms_norm_backward/checks", t_rms_norm_backward), ("topk/checks", t_topk),
              ("attention/checks", t_attention), ("attention_backward/checks", t_attention_backward),
              ("outputs/checked", t_outputs_checked)]
    if not SAN:
        tests.append(("mm/deterministic across runs and FLY_SIM_THREADS", t_deterministic))
        tests.append(("mm/NN, TN, TT under the LDS race check", t_transposed_reads_race_free))
    return run("ops", tests)


if __name__ == "__main__":
    sys.exit(main())
