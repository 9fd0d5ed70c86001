"""tests/scaled/test_scaled.py — flyc.ops.scaled_mm (MXFP8 / MXFP4, stdlib/ops/scaled_mm.fly) on
the simulator (run by tests/scaled/run.sh with /usr/bin/python3: Debian's torch 1.13).

Every call runs through the operator library and is compared with a float64 CPU reference of the
MX dequantised product (flyc.reference.scaled_mm, whose e4m3 / e2m1 / E8M0 decoding is checked
here against the OCP MX v1.0 code points): each output must be within one unit in the last place
of its dtype of the f64 value, plus the f32 accumulation's order error (the kernel rounds its
sums to f32 once per 128-wide k-tile and once more when adding the bias: (K/128 + 1) * 2^-24 *
sum|a*b| (+|bias|)); NaN exactly where the reference has NaN, +-inf where it has +-inf.
Inputs are views into storage poisoned with NaN codes (e4m3 0x7f, E8M0 255; e2m1 has no NaN:
0x77, the largest value) beyond each tensor and in the gaps of padded rows; outputs are written
through out= views into NaN-filled storage whose guards must stay untouched. The staged device
buffers are sized exactly and the simulator's allocations have guard gaps, so a kernel access
past A, B, the scales, the bias or C faults.

The matrix: both formats, bf16 and fp16 out, with and without bias, M from 1 up (1, 2, 15, 16,
17, 33, 64, 100, 128, 130, 200), N 32 .. 256, K 128 .. 1024, the variant the runtime picks checked
(16x32 for M <= 16, 128x128 for N % 128, else 32x32), every variant forced on shapes it accepts
(the 128x128 tile at M = 1, 16, 129, and every tile at a ragged M: rows past M read as 0 by
the buffer loads, A's copy has no predicate); the 128x128
tile with M not a multiple of 128 and 1, 2, 3, 5 and 8 k-tiles (its pipelines' prologue, rest and
drain); specials: NaN / -0 / the largest / subnormal e4m3 codes, every e2m1 code, E8M0 0 (2^-127),
254 and 255 (NaN) scales, on the small and the 128x128 tiles; refusals for each gate condition
(K % 128, N % 32, dtypes, shapes, strides, the 16-row variant above 16 rows, the 128x128 tile at
N % 128 != 0); resources (no scratch, the small tiles within 64 VGPRs: 8 waves per SIMD).
The simulator's LDS race check is on (FLY_SIM_RACECHECK=1 unless set).
FLY_SAN=1 (sanitized libflyrt): one shape per variant. Prints PASS:/FAIL: lines.
"""
import math
import os
import sys

import torch

os.environ.setdefault("FLY_SIM_RACECHECK", "1")    # LDS races between barriers stop the run
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "ops"))
import flyc  # noqa: E402
from flyc import reference  # noqa: E402
from harness import check, raises, run, ulp  # noqa: E402

SAN = os.environ.get("FLY_SAN") == "1"
U8 = torch.uint8
BF, F16 = torch.bfloat16, torch.float16
FMTS = ("mxfp8", "mxfp4")
POISON = {"mxfp8": 0x7F, "mxfp4": 0x77, "scale": 255}
GEN = torch.Generator().manual_seed(20)

# (M, N, K): M from 1, not tile multiples; N 32..256; K 128..1024; the 128x128 tile (N % 128,
# M > 16): M below, at and past one tile, K of 1 to 5 k-tiles (prologue only, drain, rest)
SHAPES = [(1, 32, 128), (2, 64, 256), (15, 32, 512), (16, 96, 128), (17, 32, 384), (33, 160, 256),
          (64, 256, 1024), (100, 64, 640), (5, 256, 1024), (16, 128, 256), (17, 128, 128),
          (130, 128, 384), (128, 256, 640), (200, 128, 256)]
if SAN:
    SHAPES = [(1, 32, 128), (33, 64, 256), (130, 128, 256)]


def poisoned(t, fill):
    """t as a view into a larger storage: one poisoned row before, a poisoned column gap after
    each row, poisoned bytes after the end."""
    R, C = t.shape
    big = torch.full((R + 2, C + 3), fill, dtype=t.dtype)
    big[1:R + 1, :C] = t
    return big[1:R + 1, :C]


def codes(R, Kc, fmt, gen=GEN):
    """Random operand codes: e4m3 without NaN codes (NaN tests set their own), any e2m1 byte."""
    c = torch.randint(0, 256, (R, Kc), dtype=U8, generator=gen)
    if fmt == "mxfp8":
        c[(c & 0x7F) == 0x7F] = 0x3A
    return c


def scales(R, KB, lo=118, hi=136, gen=GEN):
    return torch.randint(lo, hi, (R, KB), dtype=U8, generator=gen)


def operands(M, N, K, fmt):
    kc = K // 2 if fmt == "mxfp4" else K
    return codes(M, kc, fmt), codes(N, kc, fmt), scales(M, K // 32), scales(N, K // 32)


def compare(c, a, b, sa, sb, fmt, dt, bias=None):
    """c against the f64 reference: NaN and inf positions equal, finite values within the bound."""
    K = sa.shape[1] * 32
    da, db = reference.mx_decode(a, sa, fmt), reference.mx_decode(b, sb, fmt)
    exact = da @ db.t()
    mag = da.abs() @ db.abs().t()
    if bias is not None:
        exact = exact + bias.double()
        mag = mag + bias.double().abs()
    want = exact.to(dt)
    cd, wd = c.double(), want.double()
    nan_c, nan_w = torch.isnan(cd), torch.isnan(wd)
    check(torch.equal(nan_c, nan_w), "NaN at %d places, the reference at %d (first difference %s)"
          % (int(nan_c.sum()), int(nan_w.sum()), (nan_c != nan_w).nonzero()[:3].tolist()))
    inf_w = torch.isinf(wd)
    dif = inf_w & (cd != wd)
    check(not dif.any(), "infinities differ: at %s got %s, the reference %s (exact %s)"
          % (dif.nonzero()[:3].tolist(), cd[dif][:3].tolist(), wd[dif][:3].tolist(), exact[dif][:3].tolist()))
    fin = ~nan_w & ~inf_w & ~torch.isnan(mag)
    bound = ulp(exact, dt) + (K // 128 + 1) * 2.0 ** -24 * mag
    err = (cd - exact).abs()
    bad = fin & ~(err <= bound)
    if bad.any():
        i = bad.nonzero()[0].tolist()
        raise AssertionError("%d outputs beyond the bound; at %s: got %r, exact %r, bound %r"
                             % (int(bad.sum()), i, cd[i[0], i[1]].item(), exact[i[0], i[1]].item(),
                                bound[i[0], i[1]].item()))
    return want


def call(a, b, sa, sb, fmt, dt, bias=None, variant=None):
    """scaled_mm through poisoned input views into a guarded output; returns the output."""
    M, N = a.shape[0], b.shape[0]
    pa, pb = poisoned(a, POISON[fmt]), poisoned(b, POISON[fmt])
    psa, psb = poisoned(sa, POISON["scale"]), poisoned(sb, POISON["scale"])
    before = [t.clone() for t in (pa, pb, psa, psb)]
    store = torch.full((M + 2, N + 4), float("nan"), dtype=dt)
    out = store[1:M + 1, 2:N + 2]
    launches = flyc.context().launches
    if variant:
        with flyc.ops.using_variant(variant):
            r = flyc.ops.scaled_mm(pa, pb, psa, psb, format=fmt, bias=bias, out=out)
    else:
        r = flyc.ops.scaled_mm(pa, pb, psa, psb, format=fmt, bias=bias, out=out)
    check(r is out or r.data_ptr() == out.data_ptr(), "out= is returned")
    check(flyc.context().launches == launches + 1, "one launch")
    guard = store.clone()
    guard[1:M + 1, 2:N + 2] = 0
    check(bool(torch.isnan(guard[0]).all() and torch.isnan(guard[-1]).all() and
               torch.isnan(guard[:, :2]).all() and torch.isnan(guard[:, -2:]).all()),
          "the guards around out were written")
    for t, u in zip((pa, pb, psa, psb), before):
        check(torch.equal(t, u), "an input changed")
    return out.clone()


def tile_of(M, N):
    """The variant the runtime picks: 16x32 for M <= 16, 128x128 for N % 128 == 0, else 32x32."""
    return "16x32" if M <= 16 else "128x128" if N % 128 == 0 else "32x32"


def variant_of(fmt, dt, M, N):
    return "scaled_mm_%s_%s_%s" % ("fp8" if fmt == "mxfp8" else "fp4", "bf16" if dt == BF else "f16",
                                   tile_of(M, N))


def t_decode():
    """The reference's decoding against OCP MX v1.0 code points."""
    one = torch.tensor([[0x38, 0x7E, 0x01, 0x08, 0x80, 0xB8, 0x7F, 0xFF, 0x07, 0x77] + [0] * 22], dtype=U8)
    d = reference.mx_decode(one, torch.tensor([[127]], dtype=U8), "mxfp8")[0, :10].tolist()
    check(d[:6] == [1.0, 448.0, 2.0 ** -9, 2.0 ** -6, 0.0, -1.0] and math.copysign(1, d[4]) == -1, d)
    check(math.isnan(d[6]) and math.isnan(d[7]) and d[8] == 7 * 2.0 ** -9 and d[9] == 240.0, d)
    nib = torch.tensor([[0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE] + [0] * 8], dtype=U8)
    f = reference.mx_decode(nib, torch.tensor([[127]], dtype=U8), "mxfp4")[0, :16].tolist()
    check(f == [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0], f)
    s = reference.mx_decode(torch.full((1, 32), 0x38, dtype=U8), torch.tensor([[0]], dtype=U8), "mxfp8")
    check(s[0, 0].item() == 2.0 ** -127)
    s = reference.mx_decode(torch.full((1, 32), 0x38, dtype=U8), torch.tensor([[254]], dtype=U8), "mxfp8")
    check(s[0, 0].item() == 2.0 ** 127)
    s = reference.mx_decode(torch.full((1, 32), 0x00, dtype=U8), torch.tensor([[255]], dtype=U8), "mxfp8")
    check(math.isnan(s[0, 0].item()), "E8M0 255 is NaN, even on a zero")


def matrix(fmt):
    def t():
        for i, (M, N, K) in enumerate(SHAPES):
            dt = (BF, F16)[i % 2]
            a, b, sa, sb = operands(M, N, K, fmt)
            for with_bias in (False, True):
                bias = (torch.randn(N, generator=GEN) * 64).to(dt) if with_bias else None
                c = call(a, b, sa, sb, fmt, dt, bias)
                compare(c, a, b, sa, sb, fmt, dt, bias)
                check(flyc.ops.plan("scaled_mm", a, b, sa, sb, format=fmt, out_dtype=dt, bias=bias)
                      == variant_of(fmt, dt, M, N))
    return t


def forced(fmt):
    """Every variant of the format on shapes it accepts, both out dtypes."""
    def t():
        for dt in (BF, F16):
            for M, N, K in ((1, 32, 128), (16, 64, 256), (17, 96, 128), (40, 32, 384), (1, 128, 128),
                            (16, 128, 256), (129, 128, 384)):
                if SAN and (M, N) not in ((1, 32), (1, 128)):
                    continue
                a, b, sa, sb = operands(M, N, K, fmt)
                for tile in ("16x32", "32x32", "128x128"):
                    if (tile == "16x32" and M > 16) or (tile == "128x128" and N % 128):
                        continue
                    v = "scaled_mm_%s_%s_%s" % ("fp8" if fmt == "mxfp8" else "fp4",
                                                "bf16" if dt == BF else "f16", tile)
                    compare(call(a, b, sa, sb, fmt, dt, None, v), a, b, sa, sb, fmt, dt)
    return t


def t_exact():
    """Small integers and unit scales: every partial sum is exact in f32, so the output is the
    exact product's rounding, bitwise; also the bias added before the one rounding."""
    M, N, K = 19, 64, 256
    for fmt, dt in (("mxfp8", BF), ("mxfp4", F16), ("mxfp8", F16), ("mxfp4", BF)):
        if fmt == "mxfp8":   # e4m3 codes of -4 .. 4 in steps of 0.5
            vals = torch.tensor([0x00, 0x30, 0x38, 0x3C, 0x40, 0x42, 0x44, 0x46, 0x48])
            idx = torch.randint(0, 9, (M + N, K), generator=GEN)
            c = vals[idx] | (torch.randint(0, 2, (M + N, K), generator=GEN) << 7)
            c = c.to(U8)
        else:
            c = codes(M + N, K // 2, fmt)
        a, b = c[:M], c[M:]
        sa = torch.full((M, K // 32), 127, dtype=U8)
        sb = torch.full((N, K // 32), 127, dtype=U8)
        bias = torch.arange(N, dtype=torch.float32).sub(N / 2).to(dt)
        for bi in (None, bias):
            got = call(a, b, sa, sb, fmt, dt, bi)
            want = compare(got, a, b, sa, sb, fmt, dt, bi)
            check(torch.equal(got, want), "%s %s not bitwise: %d differ" % (fmt, dt, int((got != want).sum())))


def t_specials_fp8():
    """NaN codes (0x7f, 0xff) poison their row of C (A) or column (B); -0, the largest (448),
    subnormal codes; sums overflowing to inf with large scales."""
    for N in (64, 128):         # the 32x32 and the 128x128 tile
        specials_fp8(21, N, 256)
    # one k-tile, every value 448 and scales 2^127 * 2^0: +-inf in f32 already
    a2, b2 = torch.full((2, 128), 0x7E, dtype=U8), torch.full((32, 128), 0x7E, dtype=U8)
    b2[16:] = 0xFE          # -448
    sa2 = torch.full((2, 4), 254, dtype=U8)
    sb2 = torch.full((32, 4), 127, dtype=U8)
    c = call(a2, b2, sa2, sb2, "mxfp8", BF)
    compare(c, a2, b2, sa2, sb2, "mxfp8", BF)
    check(bool((c[:, :16] == float("inf")).all() and (c[:, 16:] == -float("inf")).all()))


def specials_fp8(M, N, K):
    a, b, sa, sb = operands(M, N, K, "mxfp8")
    a[3, 5] = 0x7F
    a[7, 200] = 0xFF
    b[10, 129] = 0x7F
    a[4] = 0x80             # -0 everywhere in row 4: its sums are +0 (-0 * x + ... from +0)
    a[5] = 0x7E             # 448
    a[6] = 0x01             # 2^-9
    b[11] = 0x07            # 7 * 2^-9
    for dt in (BF, F16):
        c = call(a, b, sa, sb, "mxfp8", dt)
        compare(c, a, b, sa, sb, "mxfp8", dt)
        check(bool(torch.isnan(c[3]).all() and torch.isnan(c[7]).all() and torch.isnan(c[:, 10]).all()))
        check(int(torch.isnan(c).sum()) == 2 * N + M - 2, "NaN only in rows 3, 7 and column 10")


def t_specials_fp4():
    """Every e2m1 code in both nibbles (-0 included) against the reference, bitwise with unit scales."""
    M, N, K = 16, 32, 128
    a = torch.arange(256, dtype=torch.int32).reshape(4, 64).repeat(4, 1).to(U8)
    b = codes(N, K // 2, "mxfp4")
    sa, sb = torch.full((M, 4), 127, dtype=U8), torch.full((N, 4), 127, dtype=U8)
    for dt in (BF, F16):
        got = call(a, b, sa, sb, "mxfp4", dt)
        check(torch.equal(got, compare(got, a, b, sa, sb, "mxfp4", dt)))


def t_scale_extremes():
    """E8M0 0 (2^-127), 254 (2^127), 255 (NaN) per row of A and per column of B, per K block."""
    for fmt, (M, N, K) in [(f, s) for f in FMTS for s in ((9, 32, 256), (20, 128, 256))]:
        a, b, sa, sb = operands(M, N, K, fmt)
        sa[0] = 0
        sb[0, :4] = 254         # 2^-127 * 2^127 in row 0; overflow elsewhere in column 0,
        sb[0, 4:] = 127         # the first k-tile only (no inf - inf across k-tiles)
        sa[1, 2] = 255          # NaN in row 1
        sb[5, 7] = 255          # NaN in column 5
        sa[2, :4] = 254         # 2^127 over the first k-tile: +-inf or huge in f32, and
        sa[2, 4:] = 0           # tiny over the second (so no inf - inf across k-tiles)
        sb[3] = 0               # 2^127 * 2^-127 in row 2, column 3
        sa[4] = 0
        sb[6] = 0               # 2^-254: zero after rounding to f32
        sa[8, 1] = 0            # one tiny K block in row 8
        for dt in (BF, F16):
            c = call(a, b, sa, sb, fmt, dt)
            compare(c, a, b, sa, sb, fmt, dt)
            check(bool(torch.isnan(c[1]).all() and torch.isnan(c[:, 5]).all()))
            check(int(torch.isnan(c).sum()) == N + M - 1, "NaN only in row 1 and column 5")
            check(bool(torch.isinf(c[2]).any() and torch.isinf(c[3:, 0]).any()), "no overflow tested")
            check(bool((c[4, 6] == 0) and torch.isfinite(c[0, 1:5]).all() and torch.isfinite(c[0, 6:]).all()))


def t_refusals():
    u = U8
    a, b, sa, sb = operands(32, 64, 256, "mxfp8")

    def unsup(*words, **kw):
        args = kw.pop("args", (a, b, sa, sb))
        launches = flyc.context().launches
        ok, why = flyc.ops.supported("scaled_mm", *args, **kw)
        check(not ok and all(w in why for w in words), why)
        raises(flyc.Unsupported, lambda: flyc.ops.scaled_mm(*args, **kw), *words)
        check(flyc.context().launches == launches, "a refused call launched")

    # K % 128 (K % 32 == 0: valid, no kernel): both formats
    k160 = (a[:, :160], b[:, :160], sa[:, :5], sb[:, :5])
    unsup("K % 128 == 0", args=k160, format="mxfp8")
    unsup("K % 128 == 0", args=(a[:, :80], b[:, :80], sa[:, :5], sb[:, :5]), format="mxfp4")
    # N % 32
    unsup("N % (16 * WN) == 0", args=(a, b[:48], sa, sb[:48]), format="mxfp8")
    unsup("N % (16 * WN) == 0", args=(a[:, :128], b[:16, :128], sa, sb[:16]), format="mxfp4")
    # f32 out: no kernel for the key
    unsup("no gfx950 kernel for mxfp8->f32", format="mxfp8", out_dtype=torch.float32)
    # a column-major / b column-major: layouts without a kernel
    at = a.t().contiguous().t()
    unsup("mxfp8->bf16 TT", args=(at, b, sa, sb), format="mxfp8")
    bt = b.t().contiguous().t()
    unsup("mxfp8->bf16 NN", args=(a, bt, sa, sb), format="mxfp8")
    # a bias of another dtype than out is malformed; f32 bias with f32 out has no kernel
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b, sa, sb, format="mxfp8",
                                                  bias=torch.zeros(64, dtype=F16)), "bias")
    unsup("mxfp8+f32->f32", format="mxfp8", out_dtype=torch.float32, bias=torch.zeros(64))
    # the 16-row variant beyond 16 rows
    raises(flyc.Unsupported, lambda: call(a, b, sa, sb, "mxfp8", BF, None, "scaled_mm_fp8_bf16_16x32"),
           "M <= MB")
    # the 128x128 tile needs N % 128 (N = 64 here)
    raises(flyc.Unsupported, lambda: call(a, b, sa, sb, "mxfp8", BF, None, "scaled_mm_fp8_bf16_128x128"),
           "N % BN == 0")
    raises(ValueError, lambda: call(a, b, sa, sb, "mxfp8", BF, None, "scaled_mm_fp4_bf16_32x32"),
           "no variant")
    # malformed: dtypes, shapes
    raises(ValueError, lambda: flyc.ops.scaled_mm(a.to(torch.int8), b, sa, sb, format="mxfp8"), "uint8")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b, sa.to(torch.int8), sb, format="mxfp8"), "uint8")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b[:, :128], sa, sb, format="mxfp8"), "B transposed")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b, sa[:, :4], sb, format="mxfp8"), "[M, K/32]")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b, sa, sb[:, :4], format="mxfp8"), "[N, K/32]")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b, sa, sb, format="mxfp4"), "[M, K/32]")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a, b, sa, sb, format="mxfp8",
                                                  out=torch.empty(32, 64, dtype=torch.int32)), "floating")
    raises(ValueError, lambda: flyc.ops.scaled_mm(a[None], b, sa, sb, format="mxfp8"), "2-D")
    check(u == U8)


def t_layouts():
    """Strided rows, odd storage offsets (unaligned bases: staged) and transposed-then-copied
    scales compute the same bits as compact operands."""
    M, N, K = 20, 64, 256
    for fmt in FMTS:
        a, b, sa, sb = operands(M, N, K, fmt)
        want = call(a, b, sa, sb, fmt, BF)
        big = torch.zeros(a.numel() + 1, dtype=U8)
        a1 = big[1:].view(a.shape)
        a1.copy_(a)
        sa_t = sa.t().contiguous().t()                   # column-major scales: staged
        got = flyc.ops.scaled_mm(a1, b, sa_t, sb, format=fmt)
        check(torch.equal(got, want), "%s: offset / strided operands differ" % fmt)


def t_determinism():
    a, b, sa, sb = operands(33, 96, 384, "mxfp8")
    c1 = flyc.ops.scaled_mm(a, b, sa, sb, format="mxfp8")
    c2 = flyc.ops.scaled_mm(a, b, sa, sb, format="mxfp8")
    check(torch.equal(c1, c2))


def t_k0_and_empty():
    e = torch.zeros(3, 0, dtype=U8)
    bias = torch.randn(32).to(BF)
    r = flyc.ops.scaled_mm(e, torch.zeros(32, 0, dtype=U8), e, torch.zeros(32, 0, dtype=U8),
                           format="mxfp8", bias=bias)
    check(torch.equal(r, bias.expand(3, 32)))
    r = flyc.ops.scaled_mm(torch.zeros(0, 64, dtype=U8), torch.zeros(32, 64, dtype=U8),
                           torch.zeros(0, 4, dtype=U8), torch.zeros(32, 4, dtype=U8), format="mxfp4")
    check(r.shape == (0, 32))


def t_resources():
    # the code objects' resources: no scratch; the small tiles (A's copy unpredicated: no
    # in-range fast loop and predicated rest loop, which took fp8 32x32 to 86 VGPRs, 5 waves
    # per SIMD) within 64 VGPRs, 8 waves per SIMD (docs/ops.md, scaled_mm)
    import flyrt
    mod = flyrt.Device().load(os.path.join(flyc.context().kernel_dir, "gfx950", "scaled_mm.hsaco"))
    names = sorted(k.name for k in mod.kernels)
    check(len(names) == 12, names)
    for n in names:
        info = mod.kernel(n).info
        check(info["scratch_per_thread"] == 0, "%s: scratch %d bytes" % (n, info["scratch_per_thread"]))
        small = n.endswith("_32x32") or n.endswith("_16x32")
        check(info["vgprs"] <= (64 if small else 256), "%s: %d VGPRs" % (n, info["vgprs"]))


TESTS = [("decode", t_decode)] + [("matrix/%s" % f, matrix(f)) for f in FMTS] + \
    [("forced/%s" % f, forced(f)) for f in FMTS] + \
    [("exact", t_exact), ("specials/fp8", t_specials_fp8), ("specials/fp4", t_specials_fp4),
     ("scale_extremes", t_scale_extremes), ("refusals", t_refusals), ("layouts", t_layouts),
     ("determinism", t_determinism), ("k0_and_empty", t_k0_and_empty), ("resources", t_resources)]

if __name__ == "__main__":
    sys.exit(run("scaled", TESTS))
