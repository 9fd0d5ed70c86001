"""tests/topk/test_topk.py — flyc.ops.topk on the simulator (run by tests/topk/run.sh with
/usr/bin/python3: Debian's torch 1.13).

Every call runs the kernels of stdlib/ops/topk.fly through the operator library and is
compared with CPU torch: the values must be bitwise torch.topk's values (NaN where it has
NaN: it picks any of several NaNs, of either sign), and bitwise those of a stable descending
sort, the indices the sort's (NaN largest, equal values by ascending index: the documented
order), x.gather(-1, indices) bitwise the values, and equal values in ascending index
order. Outputs are written through out= views into guarded storage (NaN values, -7
indices) whose guards must stay untouched; inputs must be unchanged. The matrix: k in
1 .. 16 (every register kernel, k at and below its power of two), N from 1 to 8192,
powers of two and not; radix selection for k from 17 to 1024 (k = N too) and for N
beyond 8192 up to 262144; each call's rows: random, many ties, NaN of both signs and +-inf
sprinkled, all equal, all -inf / all NaN. Then more rows than a workgroup holds, other
dims, numpy, +-0, forced variants and refusals with reasons. FLY_SAN=1 (sanitized
libflyrt): a reduced matrix. Prints PASS:/FAIL: lines.
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "ops"))
import flyc  # noqa: E402
from harness import check, raises, run  # noqa: E402

SAN = os.environ.get("FLY_SAN") == "1"
NAN = float("nan")
INF = float("inf")
KS = [1, 2, 3, 4, 5, 8, 9, 13, 16]
NS = [1, 2, 16, 63, 64, 65, 100, 700, 1000, 1024, 4095, 4096, 8191, 8192]
# radix selection: k beyond 16 or N beyond 8192
RADIX = [(17, 17), (17, 100), (31, 2000), (64, 8192), (100, 8193), (256, 3000), (1000, 1000),
         (1024, 1024), (1024, 5000), (333, 50000), (1, 20000), (16, 9000), (5, 65536),
         (1024, 262144), (40, 262144)]
if SAN:
    KS = [1, 3, 8, 16]
    NS = [16, 65, 1000, 8192]
    RADIX = [(17, 100), (1024, 1024), (100, 9000)]


def bits(t):
    return t.contiguous().view(torch.int32)


def ref(x, k):
    """(indices, values) in the documented order: a stable descending sort (NaN largest)."""
    v, i = torch.sort(x, dim=-1, descending=True, stable=True)
    return i[..., :k], v[..., :k]


def rows(n, gen):
    """Five rows of n: random, ties, specials, all equal, all -inf (NaN for odd n)."""
    x = torch.randn(5, n, generator=gen)
    x[1] = torch.randint(-3, 4, (n,), generator=gen).float() * 0.5
    if n > 1:
        p = torch.randperm(n, generator=gen)
        m = max(1, n // 8)
        x[2, p[:m]] = NAN
        x[2, p[m:2 * m]] = -NAN
        x[2, p[2 * m:3 * m]] = INF
        x[2, p[3 * m:4 * m]] = -INF
    x[3] = 0.75
    x[4] = -INF if n % 2 == 0 else NAN
    if n % 2:
        x[4, n // 2] = -NAN
    return x


class Guarded:
    """A compact view into storage filled with a guard value, guard elements around it."""

    def __init__(self, shape, dtype, fill, pad=5):
        n = 1
        for s in shape:
            n *= s
        self.buf = torch.full((pad + n + pad,), fill, dtype=dtype)
        self.view = self.buf[pad:pad + n].view(shape)
        self.pad = pad
        self.before = self.buf.clone()

    def guards_intact(self):
        p = self.pad
        b, o = self.buf.view(torch.int32 if self.buf.dtype == torch.float32 else self.buf.dtype), \
            self.before.view(torch.int32 if self.before.dtype == torch.float32 else self.before.dtype)
        return torch.equal(b[:p], o[:p]) and torch.equal(b[-p:], o[-p:])


def check_result(x, k, v, i, what):
    ri, rv = ref(x, k)
    tv, _ = torch.topk(x, k)
    check(v.shape == rv.shape and i.shape == ri.shape and i.dtype == torch.int64, "%s: shapes" % what)
    # torch.topk picks any of equal NaNs (their signs differ): NaN where it has NaN, its
    # bits elsewhere; all bits as the stable sort's (the same elements as the indices)
    tn = torch.isnan(tv)
    check(torch.equal(torch.isnan(v), tn) and torch.equal(bits(v)[~tn], bits(tv)[~tn]),
          "%s: values differ from torch.topk's" % what)
    check(torch.equal(bits(v), bits(rv)), "%s: values differ from the stable sort's" % what)
    bad = (i != ri).nonzero()
    check(bad.numel() == 0, "%s: indices differ from the stable order at %s: %s vs %s" % (
        what, bad[:3].tolist(), i[tuple(bad[0])].item() if bad.numel() else "",
        ri[tuple(bad[0])].item() if bad.numel() else ""))
    check(torch.equal(bits(x.gather(-1, i)), bits(v)), "%s: x.gather(indices) is not the values" % what)
    if k > 1:
        same = (bits(v[..., 1:]) == bits(v[..., :-1])) | (torch.isnan(v[..., 1:]) & torch.isnan(v[..., :-1]))
        check(bool((i[..., 1:] > i[..., :-1])[same].all()), "%s: ties not in ascending index order" % what)


def call(x, k, variant=None, **kw):
    shape = x.shape[:-1] + (k,)
    gv, gi = Guarded(shape, torch.float32, NAN), Guarded(shape, torch.int64, -7)
    xs = x.clone()
    launches = flyc.context().launches
    if variant:
        with flyc.ops.using_variant(variant):
            got = flyc.ops.topk(x, k, out=(gv.view, gi.view), **kw)
    else:
        got = flyc.ops.topk(x, k, out=(gv.view, gi.view), **kw)
    check(flyc.context().launches == launches + 1, "one call, one launch")
    check(got[0] is gv.view and got[1] is gi.view, "topk returned other tensors than out")
    check(torch.equal(bits(x), bits(xs)), "x was written")
    check(gv.guards_intact() and gi.guards_intact(), "an element beside the outputs was written")
    return gv.view, gi.view


def pow2(k):
    p = 2
    while p < k:
        p *= 2
    return p


def matrix():
    out = []
    for n, k in [(n, k) for n in NS for k in KS] + [(n, k) for k, n in RADIX]:
        if k > n:
            continue
        if True:

            def t(n=n, k=k):
                gen = torch.Generator().manual_seed(1000 * n + k)
                x = rows(n, gen)
                want = "topk_f32_reg%d" % pow2(k) if k <= 16 and n <= 8192 else "topk_f32_radix"
                check(flyc.ops.plan("topk", x, k) == want, flyc.ops.plan("topk", x, k))
                v, i = call(x, k)
                check_result(x, k, v, i, "k=%d N=%d" % (k, n))
            out.append(("k=%d N=%d %s (random, ties, NaN/inf, all equal, all -inf/NaN rows)" % (
                k, n, "register" if k <= 16 and n <= 8192 else "radix"), t))
    return out


def t_many_rows():
    # 1037 rows: 260 workgroups of four rows, the last one partial
    gen = torch.Generator().manual_seed(7)
    x = torch.randint(-20, 20, (1037, 300), generator=gen).float()
    v, i = call(x, 7)
    check_result(x, 7, v, i, "1037 rows")


def t_batch_dims_and_dim():
    gen = torch.Generator().manual_seed(8)
    x = torch.randn(2, 3, 130, generator=gen)
    v, i = flyc.ops.topk(x, 6)
    check_result(x, 6, v, i, "[2, 3, 130]")
    # another dim: moved last and back, like torch.topk(x, k, dim=1)
    y = torch.randint(-4, 4, (4, 50, 3), generator=gen).float()
    v, i = flyc.ops.topk(y, 5, dim=1)
    ri, rv = ref(y.movedim(1, -1), 5)
    check(v.shape == (4, 5, 3) and torch.equal(bits(v), bits(torch.topk(y, 5, dim=1)[0])) and
          torch.equal(i, ri.movedim(-1, 1)), "dim=1")
    check(torch.equal(bits(y.gather(1, i)), bits(v)), "dim=1: gather")
    raises(ValueError, lambda: flyc.ops.topk(y, 2, dim=3), "out of range")


def t_strided_input():
    gen = torch.Generator().manual_seed(9)
    base = torch.randn(6, 900, generator=gen)
    x = base[:, 50:850]                        # padded rows: staged
    v, i = call(x, 11)
    check_result(x, 11, v, i, "strided rows")
    x = base.t()[:700, :]                      # column-major: the last dim strided
    v, i = flyc.ops.topk(x, 4)
    check_result(x, 4, v, i, "a transposed x")


def t_signed_zeros():
    # -0 and +0 are equal: ascending index decides, whatever the sign
    x = torch.tensor([[0.0, -0.0, 1.0, -0.0, 0.0, -1.0, 0.0, -0.0]])
    v, i = flyc.ops.topk(x, 4)
    check(i.tolist() == [[2, 0, 1, 3]] and torch.equal(bits(v), bits(x[0, [2, 0, 1, 3]].unsqueeze(0))),
          (v, i))


def t_numpy():
    import numpy as np
    x = np.arange(40, dtype=np.float32).reshape(2, 20) % 7
    v, i = flyc.ops.topk(x, 3)
    check(isinstance(v, np.ndarray) and v.dtype == np.float32 and i.dtype == np.int64)
    check(i.tolist() == [[6, 13, 5], [0, 7, 14]] and v.tolist() == [[6, 6, 5], [6, 6, 6]], (v, i))


def t_variants():
    check(flyc.ops.variants("topk") == ["topk_f32_reg2", "topk_f32_reg4", "topk_f32_reg8", "topk_f32_reg16",
                                        "topk_f32_radix"])
    gen = torch.Generator().manual_seed(10)
    x = rows(777, gen)
    for kp in (2, 4, 8, 16):
        for k in sorted({kp // 2 + 1, kp}):
            v, i = call(x, k, variant="topk_f32_reg%d" % kp)
            check_result(x, k, v, i, "reg%d k=%d" % (kp, k))
    # a kernel serves k in (K/2, K] only
    raises(flyc.Unsupported, lambda: call(x, 3, variant="topk_f32_reg16"), "topk_f32_reg16")
    raises(flyc.Unsupported, lambda: call(torch.randn(2, 9000), 3, variant="topk_f32_reg4"), "topk_f32_reg4")
    # radix selection serves small k too (forced)
    for k in (1, 2, 16, 17):
        v, i = call(x, k, variant="topk_f32_radix")
        check_result(x, k, v, i, "radix k=%d" % k)


def t_refusals():
    x = torch.randn(4, 64)
    launches = flyc.context().launches
    for args, kw, words in (((x, 4), {"largest": False}, ["largest=False"]),
                            ((torch.randn(1, 262145), 4), {}, ["N = 262145", "262144"]),
                            ((torch.randn(1, 2000), 1025), {}, ["k <= 1024"]),
                            ((x.double(), 4), {}, ["f64"]),
                            ((x.to(torch.bfloat16), 4), {}, ["bf16"])):
        ok, why = flyc.ops.supported("topk", *args, **kw)
        check(not ok and all(w in why for w in words), why)
        raises(flyc.Unsupported, lambda: flyc.ops.topk(*args, **kw), *words)
    raises(ValueError, lambda: flyc.ops.topk(x, 65), "outside 0..64")
    raises(TypeError, lambda: flyc.ops.topk(x, 2, dim=1.0), "dim")
    vo = torch.empty(4, 3)
    raises(ValueError, lambda: flyc.ops.topk(x, 4, out=(vo, torch.empty(4, 4, dtype=torch.int64))))
    check(flyc.context().launches == launches, "a refused call launched")
    # sorted=False is served (sorted)
    v, i = flyc.ops.topk(x, 4, sorted=False)
    check_result(x, 4, v, i, "sorted=False")


tests = matrix() + [
    ("1037 rows (a partial last workgroup)", t_many_rows),
    ("batch dims; dim=1 moved last and back", t_batch_dims_and_dim),
    ("strided and transposed x (staged)", t_strided_input),
    ("+0 and -0 tie by ascending index", t_signed_zeros),
    ("numpy arrays", t_numpy),
    ("every variant forced at both ends of its k range; outside it refused", t_variants),
    ("refusals with reasons (largest=False, N > 262144, k > 1024, dtypes), malformed calls",
     t_refusals),
]
sys.exit(run("topk", tests))
