"""tests/norm/test_norm.py — flyc.ops.rms_norm and rms_norm_backward on the simulator
(run by tests/norm/run.sh with /usr/bin/python3: Debian's torch 1.13).

Every call runs the kernels of stdlib/ops/norm.fly through the operator library and is
compared with an f64 reference computed here from the same inputs, within the bounds of
docs/ops.md ("rms_norm"):
  rstd   |r - r64| <= (N/1024 + 48) 2^-24 r64
  y      |y - y64| <= ulp_T(y64) + (N/1024 + 52) 2^-24 |y64|
  h      bitwise (x + residual) rounded to T, as torch computes it
  grad_x |gx - gx64| <= ulp_T(gx64) + (N/1024 + 52) 2^-24 r (|g w| + |x| r^2 sum|g w x| / N)
  grad_w |gw - gw64| <= ulp_T(gw64) + (rows + 3) 2^-24 sum over rows |g x r|
Outputs are written through out= views into NaN-filled storage whose guard elements must
stay untouched; inputs must be unchanged. The matrix: bf16, f16, f32; N in {1, 64, 1000,
3000, 4096, 8192, 16384}; 1, 3 and 2x5 rows; with a weight, without one, with the fused
residual; backward with and without a weight. Then every variant forced on ragged rows of
its range, refusals, rows past 512 row blocks, special values, hostile layouts and
determinism across FLY_SIM_THREADS. FLY_SAN=1 (sanitized libflyrt): a reduced matrix.
Prints PASS:/FAIL: lines.
"""
import hashlib
import math
import os
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "ops"))
import flyc  # noqa: E402
from harness import check, raises, run  # noqa: E402

SAN = os.environ.get("FLY_SAN") == "1"
NAN = float("nan")
U = 2.0 ** -24
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
MANT = {torch.bfloat16: 7, torch.float16: 10, torch.float32: 23}
EMIN = {torch.bfloat16: -126, torch.float16: -14, torch.float32: -126}
VEC = {torch.bfloat16: 8, torch.float16: 8, torch.float32: 4}
NS = [1, 64, 1000, 3000, 4096, 8192, 16384]
SHAPES = [(1,), (3,), (2, 5)]
if SAN:
    NS = [1, 1000, 4096]
    SHAPES = [(3,)]


def ulp(ref, dt):
    e = torch.floor(torch.log2(ref.abs().clamp(min=2.0 ** EMIN[dt])))
    return torch.pow(2.0, e - MANT[dt])


def bits(t):
    return t.view(torch.int16) if t.element_size() == 2 else t.view(torch.int32)


class Guarded:
    """A compact view into NaN-filled storage with guard elements around it."""

    def __init__(self, shape, dtype, values=None, pad=7):
        n = 1
        for s in shape:
            n *= s
        self.buf = torch.full((pad + n + pad,), NAN, dtype=dtype)
        self.view = self.buf[pad:pad + n].view(shape)
        if values is not None:
            self.view.copy_(values)
        self.pad = pad
        self.before = self.buf.clone()

    def guards_intact(self):
        p = self.pad
        return (torch.equal(bits(self.buf[:p]), bits(self.before[:p])) and
                torch.equal(bits(self.buf[-p:]), bits(self.before[-p:])))

    def unchanged(self):
        return torch.equal(bits(self.buf), bits(self.before))


def rand(shape, dt, gen):
    return torch.randn(shape, generator=gen).to(dt)


def within(got, ref, tol, what):
    err = (got.double() - ref).abs()
    same_nan = torch.isnan(got.double()) == torch.isnan(ref)
    bad = ~(err <= tol) & ~(torch.isnan(ref) & torch.isnan(got.double()))
    check(bool(same_nan.all()), "%s: NaN where the reference has none (or not where it has)" % what)
    check(not bool(bad.any()), "%s: %d of %d outside the bound (max error %g, bound there %g)"
          % (what, int(bad.sum()), got.numel(), float(err[bad].max()) if bad.any() else 0.0,
             float(tol[bad].min()) if bad.any() else 0.0))


# ---- forward --------------------------------------------------------------------------

def forward_ref(x, w, eps, res=None):
    """(y64, rstd64, h in T) from the inputs, in f64."""
    h = (x.float() + res.float()).to(x.dtype) if res is not None else x
    hd = h.double()
    n = x.shape[-1]
    r = 1.0 / torch.sqrt((hd * hd).sum(-1, keepdim=True) / n + eps)
    y = hd * r
    if w is not None:
        y = y * w.double()
    return y, r, h


def check_forward(x, w, eps, res, y, r, h):
    dt, n = x.dtype, x.shape[-1]
    y64, r64, h_want = forward_ref(x, w, 1.1920928955078125e-07 if eps is None else eps, res)
    within(r, r64, (n / 1024 + 48) * U * r64, "rstd")
    within(y, y64, ulp(y64, dt) + (n / 1024 + 52) * U * y64.abs(), "y")
    if res is not None:
        check(torch.equal(bits(h), bits(h_want)), "h is not x + residual rounded to %s" % dt)


def run_forward(dt, shape, n, form, gen, variant=None, eps=1e-5):
    x = rand(shape + (n,), dt, gen)
    w = rand((n,), dt, gen) if form != "noweight" else None
    res = rand(shape + (n,), dt, gen) if form == "residual" else None
    xs, ws = x.clone(), (w.clone() if w is not None else None)
    gy = Guarded(shape + (n,), dt)
    gr = Guarded(shape + (1,), torch.float32)
    gh = Guarded(shape + (n,), dt) if res is not None else None
    out = (gy.view, gr.view) + ((gh.view,) if gh else ())
    launches = flyc.context().launches
    if variant:
        with flyc.ops.using_variant(variant):
            got = flyc.ops.rms_norm(x, w, eps, residual=res, out=out)
    else:
        got = flyc.ops.rms_norm(x, w, eps, residual=res, out=out)
    check(flyc.context().launches == launches + 1, "one call, one launch")
    check(all(a is b for a, b in zip(got, out)), "rms_norm returned other tensors than out")
    check(torch.equal(bits(x), bits(xs)) and (w is None or torch.equal(bits(w), bits(ws))),
          "an input was written")
    for g, name in ((gy, "y"), (gr, "rstd"), (gh, "h")):
        if g is not None:
            check(g.guards_intact(), "an element beside %s was written" % name)
    check_forward(x, w, eps, res, gy.view, gr.view, gh.view if gh else None)


def expected_fwd(dt, n):
    t = [k for k, v in DTYPES.items() if v == dt][0]
    if n % VEC[dt]:
        bound = [(128, "s128"), (2048, "s2048"), (8192, "s8192")]
        return "rms_norm_%s_%s" % (t, next((v for m, v in bound if n <= m), "sloop"))
    bound = [(128, "r16"), (512, "r64"), (2048, "n2048"), (4096, "n4096"), (8192, "n8192"),
             (16384, "n16384"), (32768, "n32768")]
    return "rms_norm_%s_%s" % (t, next((v for m, v in bound if n <= m), "loop"))


def expected_bwd(dt, n):
    t = [k for k, v in DTYPES.items() if v == dt][0]
    if n % VEC[dt]:
        bound = [(2048, "s2048"), (8192, "s8192")]
        return "rms_norm_bwd_%s_%s" % (t, next((v for m, v in bound if n <= m), "sloop"))
    bound = [(512, "n512"), (2048, "n2048"), (4096, "n4096"), (8192, "n8192"), (16384, "n16384")]
    return "rms_norm_bwd_%s_%s" % (t, next((v for m, v in bound if n <= m), "loop"))


def forward_tests():
    tests = []
    for ti, (t, dt) in enumerate(DTYPES.items()):
        for ni, n in enumerate(NS):
            def f(dt=dt, n=n, seed=100 * ti + ni):
                g = torch.Generator().manual_seed(seed)
                x = torch.zeros(3, n, dtype=dt)
                check(flyc.ops.plan("rms_norm", x, x[0]) == expected_fwd(dt, n),
                      flyc.ops.plan("rms_norm", x, x[0]))
                for shape in SHAPES:
                    for form in ("weight", "noweight", "residual"):
                        run_forward(dt, shape, n, form, g)
            tests.append(("rms_norm/%s/N=%d" % (t, n), f))
    return tests


# ---- backward -------------------------------------------------------------------------

def backward_ref(gy, x, w, r):
    g, xd, rd = gy.double(), x.double(), r.double()
    n = x.shape[-1]
    gw = g * w.double() if w is not None else g
    dot = (gw * xd).sum(-1, keepdim=True)
    absdot = (gw * xd).abs().sum(-1, keepdim=True)
    gx = rd * (gw - xd * rd * rd * dot / n)
    gx_tol = (n / 1024 + 52) * U * rd * (gw.abs() + xd.abs() * rd * rd * absdot / n)
    wgrad = wgrad_tol = None
    if w is not None:
        terms = (g * xd * rd).reshape(-1, n)
        wgrad = terms.sum(0)
        wgrad_tol = (terms.shape[0] + 3) * U * terms.abs().sum(0)
    return gx, gx_tol, wgrad, wgrad_tol


def run_backward(dt, shape, n, with_w, gen, variant=None):
    x = rand(shape + (n,), dt, gen)
    w = rand((n,), dt, gen) if with_w else None
    gy = rand(shape + (n,), dt, gen)
    r = flyc.ops.rms_norm(x, w, 1e-5)[1]
    ggx = Guarded(shape + (n,), dt)
    ggw = Guarded((n,), dt) if with_w else None
    out = (ggx.view, ggw.view if ggw else None)
    ins = [t.clone() for t in (gy, x, r)]
    if variant:
        with flyc.ops.using_variant(variant):
            got = flyc.ops.rms_norm_backward(gy, x, w, r, out=out)
    else:
        got = flyc.ops.rms_norm_backward(gy, x, w, r, out=out)
    check(got[0] is ggx.view and (got[1] is None) == (w is None), "rms_norm_backward's results")
    check(all(torch.equal(bits(a), bits(b)) for a, b in zip((gy, x, r), ins)), "an input was written")
    check(ggx.guards_intact() and (ggw is None or ggw.guards_intact()),
          "an element beside grad_x or grad_weight was written")
    gx64, gx_tol, gw64, gw_tol = backward_ref(gy, x, w, r)
    within(ggx.view, gx64, ulp(gx64, dt) + gx_tol, "grad_x")
    if with_w:
        within(ggw.view, gw64, ulp(gw64, dt) + gw_tol, "grad_weight")


def backward_tests():
    tests = []
    for ti, (t, dt) in enumerate(DTYPES.items()):
        for ni, n in enumerate(NS):
            def f(dt=dt, n=n, seed=500 + 100 * ti + ni):
                g = torch.Generator().manual_seed(seed)
                x = torch.zeros(3, n, dtype=dt)
                check(flyc.ops.plan("rms_norm_backward", x, x, x[0], torch.ones(3, 1)) ==
                      expected_bwd(dt, n))
                for shape in SHAPES:
                    for with_w in (True, False):
                        run_backward(dt, shape, n, with_w, g)
            tests.append(("rms_norm_backward/%s/N=%d" % (t, n), f))
    return tests


# ---- every variant ---------------------------------------------------------------------

def bound_of(v):
    """(largest N, elements per access) of a variant, from its name; N None: any."""
    dt = DTYPES[v.split("_")[-2]]
    kind = v.split("_")[-1]
    vec = 1 if kind.startswith("s") else VEC[dt]
    size = kind.lstrip("s").lstrip("n")
    table = {"r16": 128, "r64": 512, "128": 128, "loop": None}
    return dt, (table[size] if size in table else int(size)), vec


def variant_tests():
    tests = []
    seed = 1000
    for v in flyc.ops.variants("rms_norm"):
        dt, top, vec = bound_of(v)
        ns = [top, top - 5 * vec if top > 5 * vec else 1 if vec == 1 else vec] if top else \
             [3 * vec + (1 if vec == 1 else 0), 40000 + (1 if vec == 1 else 0)]
        rows = (33,) if v.endswith(("r16", "s128")) else (5,) if v.endswith("r64") else (2,)
        if SAN:
            ns = ns[:1]

        def f(v=v, dt=dt, ns=ns, rows=rows, seed=seed):
            g = torch.Generator().manual_seed(seed)
            for n in ns:
                run_forward(dt, rows, n, "residual", g, variant=v)
                run_forward(dt, rows, n, "weight", g, variant=v)
        tests.append(("rms_norm/variant %s" % v, f))
        seed += 1
    for v in flyc.ops.variants("rms_norm_backward"):
        if "wgrad" in v:
            continue
        dt, top, vec = bound_of(v)
        ns = [top, top - 3 * vec if top > 3 * vec else 1 if vec == 1 else vec] if top else \
             [3 * vec + (1 if vec == 1 else 0), 40000 + (1 if vec == 1 else 0)]
        if SAN:
            ns = ns[:1]

        def f(v=v, dt=dt, ns=ns, seed=seed):
            g = torch.Generator().manual_seed(seed)
            for n in ns:
                run_backward(dt, (3,), n, True, g, variant=v)
        tests.append(("rms_norm_backward/variant %s" % v, f))
        seed += 1
    return tests


def t_library():
    import flyrt
    names = {k.name for k in flyrt.Device("sim").load(os.path.join(flyc.context().kernel_dir, "gfx950",
                                                      "norm.hsaco")).kernels}
    want = flyc.ops.variants("rms_norm") + flyc.ops.variants("rms_norm_backward")
    check(len(want) == 3 * (12 + 10), want)
    missing = [v for v in want if v not in names]
    check(not missing, "the kernel library lacks %s" % missing)


# ---- refusals, special cases, layouts ----------------------------------------------------

def t_refusals():
    x = torch.randn(4, 2056).to(torch.bfloat16)
    for v, n, word in (("rms_norm_bf16_n2048", 2056, "N <= TPR * VEC * C"),
                       ("rms_norm_bf16_n2048", 1001, "N % VEC == 0"),
                       ("rms_norm_bf16_r16", 136, "N <= TPR * VEC * C")):
        with flyc.ops.using_variant(v):
            raises(flyc.Unsupported, lambda n=n: flyc.ops.rms_norm(x[:, :n].contiguous(), None), word)
    with flyc.ops.using_variant("rms_norm_bwd_bf16_n512"):
        raises(flyc.Unsupported, lambda: flyc.ops.rms_norm_backward(x, x, None, torch.ones(4, 1)),
               "N <= BLOCK * VEC * C")
    # a weight of another dtype, f64: no kernel (the reference serves them in torch.ops.flyc)
    raises(flyc.Unsupported, lambda: flyc.ops.rms_norm(x, torch.ones(2056)), "bf16,f32->bf16")
    raises(flyc.Unsupported, lambda: flyc.ops.rms_norm(x.double(), None), "f64->f64")
    raises(flyc.Unsupported, lambda: flyc.ops.rms_norm_backward(x, x, torch.ones(2056),
                                                                torch.ones(4, 1)), "bf16,f32->bf16")
    raises(TypeError, lambda: flyc.ops.rms_norm(x, None, out=(x,)), "out must be a tuple")
    raises(ValueError, lambda: flyc.ops.rms_norm_backward(x, x, None, torch.ones(4, 1),
                                                          out=(x.clone(), x[0].clone())), "grad_weight")


def t_many_row_blocks():
    # rows beyond 512 row blocks: several rows per block, partial sums reduced in block order
    g = torch.Generator().manual_seed(7)
    run_backward(torch.bfloat16, (1100,), 64, True, g)
    run_backward(torch.float32, (1030,), 24, True, g)


def t_special_values():
    for dt in DTYPES.values():
        x = torch.randn(5, 200).to(dt)
        x[0] = 0                    # rstd = 1/sqrt(eps), y = 0
        x[1, 7] = math.inf          # sum inf: rstd 0, the inf element NaN, the rest 0
        x[2, 3] = NAN               # NaN everywhere
        x[3] = 1e-20                # tiny: eps dominates
        w = torch.randn(200).to(dt)
        y, r = flyc.ops.rms_norm(x, w, 1e-6)
        check_forward(x, w, 1e-6, None, y, r, None)
        check(torch.equal(y[0].float(), torch.zeros(200)) and abs(r[0, 0] - 1e3) < 1e-2, "a zero row")
        check(bool(torch.isnan(y[1, 7])) and r[1, 0] == 0 and bool((y[1, :7] == 0).all()), "an inf")
        check(bool(torch.isnan(y[2]).all()) and bool(torch.isnan(r[2, 0])), "a NaN")
        y, r = flyc.ops.rms_norm(x[3:], w)            # eps None: float32's epsilon
        check_forward(x[3:], w, None, None, y, r, None)
        y, r = flyc.ops.rms_norm(x[4:], w, 1e39)      # eps = inf in f32: rstd 0
        check(r[0, 0] == 0 and bool((y == 0).all()), "eps beyond f32")


def t_layouts():
    g = torch.Generator().manual_seed(11)
    dt = torch.bfloat16
    big = rand((6, 2 * 1000 + 3), dt, g)
    x = big[:, 3::2]                               # strided rows and columns: staged
    w = rand((2000,), dt, g)[::2]
    y, r = flyc.ops.rms_norm(x, w, 1e-5)
    check_forward(x, w, 1e-5, None, y, r, None)
    # in place: y over x, h over residual (vLLM's fused_add_rms_norm updates the residual)
    x = rand((4, 1000), dt, g)
    res = rand((4, 1000), dt, g)
    x0, res0 = x.clone(), res.clone()
    rr = torch.empty(4, 1)
    got = flyc.ops.rms_norm(x, w, 1e-5, residual=res, out=(x, rr, res))
    check(got[0] is x and got[2] is res)
    check_forward(x0, w, 1e-5, res0, x, rr, res)
    # grad_x over grad_y
    gy = rand((4, 1000), dt, g)
    gy0 = gy.clone()
    gx, gw = flyc.ops.rms_norm_backward(gy, x0, w, rr, out=(gy, torch.empty(1000, dtype=dt)))
    gx64, tol, gw64, gwtol = backward_ref(gy0, x0, w, rr)
    within(gx, gx64, ulp(gx64, dt) + tol, "grad_x in place")
    within(gw, gw64, ulp(gw64, dt) + gwtol, "grad_weight")
    # numpy f32
    import numpy as np
    xn = np.random.default_rng(3).standard_normal((3, 100)).astype(np.float32)
    yn, rn = flyc.ops.rms_norm(xn, None)
    check(isinstance(yn, np.ndarray) and rn.shape == (3, 1))
    check_forward(torch.from_numpy(xn), None, None, None, torch.from_numpy(yn), torch.from_numpy(rn), None)


DET = r"""
import sys, hashlib, torch
sys.path.insert(0, %r)
import flyc
g = torch.Generator().manual_seed(5)
x = torch.randn(700, 1000, generator=g).to(torch.bfloat16)
w = torch.randn(1000, generator=g).to(torch.bfloat16)
gy = torch.randn(700, 1000, generator=g).to(torch.bfloat16)
y, r = flyc.ops.rms_norm(x, w, 1e-5)
gx, gw = flyc.ops.rms_norm_backward(gy, x, w, r)
h = hashlib.sha256()
for t in (y, r, gx, gw):
    h.update(t.contiguous().view(torch.uint8).numpy().tobytes())
print(h.hexdigest())
"""


def t_deterministic():
    outs = set()
    for threads in ("1", "3", "1"):
        env = dict(os.environ, FLY_SIM_THREADS=threads)
        p = subprocess.run([sys.executable, "-c", DET % os.path.join(HERE, "..", "..", "python")],
                           env=env, capture_output=True, text=True, timeout=600)
        check(p.returncode == 0, p.stderr[-2000:])
        outs.add(p.stdout.strip())
    check(len(outs) == 1, "results differ across runs or FLY_SIM_THREADS: %s" % outs)


def main():
    tests = [("rms_norm/the kernel library holds every variant", t_library)]
    tests += forward_tests() + backward_tests() + variant_tests()
    tests += [("rms_norm/refusals", t_refusals), ("rms_norm_backward/rows past 512 row blocks",
                                                   t_many_row_blocks),
              ("rms_norm/special values", t_special_values), ("rms_norm/layouts and in place", t_layouts)]
    if not SAN:
        tests.append(("rms_norm/deterministic across runs and FLY_SIM_THREADS", t_deterministic))
    return run("norm", tests)


if __name__ == "__main__":
    sys.exit(main())
