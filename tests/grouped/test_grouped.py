"""tests/grouped/test_grouped.py — flyc.ops.grouped_mm (stdlib/ops/grouped_mm.fly) on the simulator
(run by tests/grouped/run.sh with /usr/bin/python3: Debian's torch 1.13).

Every call runs through the operator library and is compared with a float64 CPU reference
(group g: rows offs[g-1]:offs[g] of a times b[g]): each output must be within one unit in the last
place of its dtype of the f64 value plus the f32 accumulation's order error K * 2^-24 * sum|a*b|,
and bit-exact for small integer inputs. Inputs are views into NaN-poisoned storage (a row before,
a column gap after each row, elements after the end); out= is a view into NaN-filled storage whose
guards must stay untouched, and so must the rows from offs[-1] on (no group covers them). The
staged device buffers are sized exactly and the simulator's allocations have guard gaps, so an
access past a, b, offs or out faults.

The matrix: bf16 and fp16; uniform and ragged groups, empty groups first, in the middle and last,
G = 1, groups of one row, sum M = 0, offs[-1] < a.shape[0]; N = 32 .. 256 (each of the three
tile widths), K = 8 .. 200 (K tails of the 64-wide k-tile); every variant forced where it applies.
Invalid offsets (decreasing, above T, negative) are refused on the host when offs is host memory;
the kernel's own clamping (e_g = min(max(0, offs[0..g]), T), s_g = e_{g-1}) is tested by launching
the code object directly through flyrt.py with such offsets, out in guarded device memory. One run
under FLY_SIM_RACECHECK=1. FLY_SAN=1 (sanitized libflyrt): one shape per variant.
Prints PASS:/FAIL: lines.
"""
import os
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.join(HERE, "..", "..", "python")
sys.path.insert(0, PY)
sys.path.insert(0, os.path.join(HERE, "..", "ops"))
import flyc  # noqa: E402
from harness import check, raises, run, ulp  # noqa: E402

SAN = os.environ.get("FLY_SAN") == "1"
BF, F16, I32 = torch.bfloat16, torch.float16, torch.int32
NAME = {BF: "bf16", F16: "f16"}
GEN = torch.Generator().manual_seed(20)


def ranges(offs, T):
    """The groups' row ranges as the kernel computes them (docs/ops.md): a running maximum of
    the ends clamped to [0, T]; equal to PyTorch's for valid offsets."""
    out, s, m = [], 0, 0
    for o in offs:
        m = max(m, o)
        e = min(m, T)
        out.append((s, e))
        s = e
    return out


def reference(a, b, offs):
    """f64 product per group and sum|a*b| (NaN where no group covers a row)."""
    T, N = a.shape[0], b.shape[2]
    ref = torch.full((T, N), float("nan"), dtype=torch.float64)
    mag = torch.full((T, N), float("nan"), dtype=torch.float64)
    for g, (s, e) in enumerate(ranges(offs, T)):
        ref[s:e] = a[s:e].double() @ b[g].double()
        mag[s:e] = a[s:e].double().abs() @ b[g].double().abs()
    return ref, mag


def poisoned(t):
    """t as a view into NaN storage: a row before, a 3-column gap after each row, 5 after the end."""
    shape = list(t.shape)
    big = torch.full(shape[:-2] + [shape[-2] + 2, shape[-1] + 3], float("nan"), dtype=t.dtype)
    v = big[..., 1:shape[-2] + 1, :shape[-1]]
    v.copy_(t)
    return v


def operands(T, K, N, G, dt, integer=False):
    if integer:
        a = torch.randint(-3, 4, (T, K), generator=GEN).to(dt)
        b = torch.randint(-3, 4, (G, K, N), generator=GEN).to(dt)
    else:
        a = (torch.rand(T, K, generator=GEN) * 2 - 1).to(dt)
        b = (torch.rand(G, K, N, generator=GEN) * 2 - 1).to(dt)
    return a, b


def call(a, b, offs, variant=None):
    """grouped_mm through poisoned input views into a guarded out; returns (out, covered rows)."""
    T, N = a.shape[0], b.shape[2]
    pa, pb = poisoned(a), poisoned(b)
    before = [pa.clone(), pb.clone()]
    store = torch.full((T + 2, N + 4), float("nan"), dtype=a.dtype)
    out = store[1:T + 1, 2:N + 2]
    o = torch.tensor(offs, dtype=I32)
    launches = flyc.context().launches
    if variant:
        with flyc.ops.using_variant(variant):
            r = flyc.ops.grouped_mm(pa, pb, o, out=out)
    else:
        r = flyc.ops.grouped_mm(pa, pb, o, out=out)
    check(r is out or r.data_ptr() == out.data_ptr(), "out= is returned")
    check(flyc.context().launches == launches + (1 if T and N else 0), "one launch")
    guard = store.clone()
    guard[1:T + 1, 2:N + 2] = 0
    check(bool(torch.isnan(guard).sum() == store.numel() - T * N), "the guards around out were written")
    for t, u in zip((pa, pb), before):
        check(torch.equal(t.view(torch.int16), u.view(torch.int16)), "an input changed")
    return out.clone()


def compare(c, a, b, offs):
    """Covered rows within the bound, uncovered rows untouched (NaN)."""
    K = a.shape[1]
    ref, mag = reference(a, b, offs)
    cov = ~torch.isnan(ref)
    check(bool(torch.isnan(c[~cov].double()).all()), "%d elements of rows no group covers were written"
          % int((~torch.isnan(c[~cov].double())).sum()))
    cd = c.double()
    bound = ulp(ref, c.dtype) + K * 2.0 ** -24 * mag
    bad = cov & ~((cd - ref).abs() <= bound)
    if bad.any():
        i = bad.nonzero()[0].tolist()
        raise AssertionError("%d outputs beyond the bound; at %s: got %r, exact %r, bound %r"
                             % (int(bad.sum()), i, cd[i[0], i[1]].item(), ref[i[0], i[1]].item(),
                                bound[i[0], i[1]].item()))


def variant_of(dt, N):
    return "grouped_mm_nn_%s%s" % (NAME[dt], "" if N % 128 == 0 else "_n64" if N % 64 == 0 else "_n32")


# (T, K, N, offs): uniform, ragged, empty groups first / middle / last, G = 1, one-row groups,
# offs[-1] < T, groups inside one tile and across tiles, K tails (K % 64 != 0)
CASES = [
    (256, 64, 128, [64, 128, 192, 256]),               # uniform
    (300, 96, 160, [0, 130, 130, 250, 290]),           # empty first and middle; offs[-1] < T
    (200, 200, 64, [37, 37, 150, 200, 200]),           # empty middle and last; K tail
    (129, 72, 96, [129]),                              # G = 1, one row past a tile
    (9, 24, 32, [1, 2, 3, 4, 5, 6, 7, 8, 9]),          # one-row groups
    (140, 8, 256, [1, 128, 129, 131]),                 # single-row groups across a tile edge, K = 8
    (517, 40, 192, [100, 101, 300, 450, 517]),         # ragged
]
if SAN:
    CASES = [CASES[1], CASES[4]]


def matrix(dt):
    def t():
        for T, K, N, offs in CASES:
            a, b = operands(T, K, N, len(offs), dt)
            try:
                check(flyc.ops.plan("grouped_mm", a, b, torch.tensor(offs, dtype=I32)) == variant_of(dt, N),
                      "chose %s" % flyc.ops.plan("grouped_mm", a, b, torch.tensor(offs, dtype=I32)))
                compare(call(a, b, offs), a, b, offs)
            except AssertionError as e:
                raise AssertionError("T=%d K=%d N=%d offs=%s: %s" % (T, K, N, offs, e))
    return t


def forced(dt):
    def t():
        T, K, N, offs = (150, 72, 128, [10, 10, 140]) if not SAN else (40, 16, 128, [5, 30])
        a, b = operands(T, K, N, len(offs), dt)
        outs = []
        for v in ("", "_n64", "_n32", "_p", "_n64_p", "_n32_p"):
            c = call(a, b, offs, variant="grouped_mm_nn_%s%s" % (NAME[dt], v))
            compare(c, a, b, offs)
            outs.append(c)
        # the same f32 sums per element in every tile width, persistent or not: bit-identical
        check(all(torch.equal(outs[0].view(torch.int16), o.view(torch.int16)) for o in outs[1:]),
              "the variants' results differ")
        raises(flyc.Unsupported, lambda: call(a[:, :8], b[:, :8, :96], offs,
                                              variant="grouped_mm_nn_%s" % NAME[dt]), "N % BN == 0")
    return t


def t_exact():
    for dt in (BF, F16):
        T, K, N, offs = 130, 136, 64, [3, 70, 70, 130]
        a, b = operands(T, K, N, len(offs), dt, integer=True)
        c = call(a, b, offs)
        ref, _ = reference(a, b, offs)
        check(torch.equal(c.view(torch.int16), ref.to(dt).view(torch.int16)), "%s: not exact" % NAME[dt])


def t_empty():
    for dt in (BF, F16):
        a, b = operands(0, 32, 64, 3, dt)
        r = flyc.ops.grouped_mm(a, b, torch.zeros(3, dtype=I32))
        check(r.shape == (0, 64), "sum M = 0")
        # every group empty: nothing written
        a, b = operands(20, 32, 64, 3, dt)
        compare(call(a, b, [0, 0, 0]), a, b, [0, 0, 0])
        # K = 0: zeros in the groups' rows, the rows past offs[-1] untouched
        a, b = operands(20, 0, 64, 2, dt)
        c = call(a, b, [5, 12])
        check(bool((c[:12] == 0).all()) and bool(torch.isnan(c[12:].double()).all()), "K = 0")


def t_nan_isolation():
    # NaN rows of one group share 128-row tiles with the next group's rows (computed for both,
    # each storing its own): they must not reach the other rows; NaN in b of an empty group
    # and of the other groups reaches nothing else
    for dt in (BF, F16):
        T, K, N, offs = 130, 72, 64, [10, 70, 70, 130]
        a, b = operands(T, K, N, len(offs), dt)
        a[:10] = float("nan")
        b[2] = float("nan")
        c = call(a, b, offs)
        check(bool(torch.isnan(c[:10].double()).all()), "NaN rows give NaN")
        check(bool(torch.isfinite(c[10:].double()).all()), "a neighbouring group's NaN rows leaked")
        compare(c[10:], a[10:], b[1:], [60, 60, 120])


def t_exact_grid():
    # host offs: one workgroup per tile (the m-tiles counted on the host), none idle
    a, b = operands(300, 64, 256, 5, BF)
    offs = [0, 130, 130, 250, 290]            # m-tiles per group: 0, 2 (0, 1), 0, 1 (1), 2 (1, 2)
    with flyc.ops.timing(device="mi355x", timing_only=True) as t:
        flyc.ops.grouped_mm(a, b, torch.tensor(offs, dtype=I32))
    check(dict(t)["workgroups"] == 5 * (256 // 128), "workgroups %r" % dict(t).get("workgroups"))


def t_host_offs_checked():
    a, b = operands(10, 32, 32, 3, BF)
    for o, word in (([4, 3, 10], "non-decreasing"), ([4, 11, 10], "within"), ([-1, 4, 10], "offs[0] = -1")):
        raises(ValueError, lambda o=o: flyc.ops.grouped_mm(a, b, torch.tensor(o, dtype=I32)), word)
    c = flyc.ops.grouped_mm(a, b, torch.tensor([4, 4, 9], dtype=I32))   # offs[-1] < T: allowed
    check(c.shape == (10, 32))


def t_refusals():
    a, b = operands(10, 32, 32, 2, BF)
    o = torch.tensor([4, 10], dtype=I32)
    for bb, word in ((operands(10, 32, 48, 2, BF)[1], "N % 32 == 0"),
                     (operands(10, 32, 40, 2, BF)[1], "N = 40")):
        raises(flyc.Unsupported, lambda bb=bb: flyc.ops.grouped_mm(a, bb, o), word)
    a12, b12 = operands(10, 12, 32, 2, BF)
    raises(flyc.Unsupported, lambda: flyc.ops.grouped_mm(a12, b12, o), "K % 8 == 0")
    af, bf = a.float(), b.float()
    raises(flyc.Unsupported, lambda: flyc.ops.grouped_mm(af, bf, o), "no gfx950 kernel for f32->f32")
    bt = b.transpose(1, 2).contiguous().transpose(1, 2)                 # b[g] column-major
    raises(flyc.Unsupported, lambda: flyc.ops.grouped_mm(a, bt, o), "NT")


# ---- invalid offsets: the kernel on its own ----------------------------------------------

def launch_direct(a, b, offs, N_pad=6, chunks=None, cus=None):
    """grouped_mm_nn_<dt>[_nBN] launched through flyrt.py with offs as given (no host check,
    the grid from the bound on m-tiles, as for a device offs); out in device memory between
    NaN guards. chunks: [(G0, GB), ...], one launch per chunk of groups, each with its own
    buffer of b[G0:G0 + GB] (as flyops launches a b beyond 4 GiB); default one launch of
    every group. cus: launch the persistent kernel (grouped_mm_p.fly) as on a device of
    that many CUs (its grid min(tiles, cus x occupancy)). Returns (out, the guards intact)."""
    import flyrt
    dt = a.dtype
    T, K = a.shape
    G, _, N = b.shape
    name = variant_of(dt, N) + ("_p" if cus else "")
    dev = flyrt.Device("sim")
    mod = dev.load(os.path.join(os.environ.get("FLYC_KERNEL_DIR", os.path.join(
        HERE, "..", "..", "build", "lib", "flyc", "kernels")), "gfx950",
        "grouped_mm_p.hsaco" if cus else "grouped_mm.hsaco"))
    k = mod.kernel(name)
    nan = torch.full((N_pad * N + T * N + N_pad * N,), float("nan"), dtype=dt)
    dc = dev.upload(nan.view(torch.int16).numpy().tobytes())
    da = dev.upload(a.contiguous().view(torch.int16).numpy().tobytes())
    do = dev.upload(torch.tensor(offs, dtype=I32).numpy().tobytes())
    for g0, gb in chunks or [(0, G)]:
        db = dev.upload(b[g0:g0 + gb].contiguous().view(torch.int16).numpy().tobytes())
        k(da.ptr, db.ptr, do.ptr, dc.ptr + 2 * N_pad * N, T, N, K, G, T // 128 + 1 + gb, g0, gb,
          cus or 256)                                                  # MT: the bound
        dev.synchronize()
        db.free()
    raw = torch.frombuffer(bytearray(dc.to_bytes()), dtype=torch.int16).view(dt)
    guards = torch.cat([raw[:N_pad * N], raw[N_pad * N + T * N:]])
    out = raw[N_pad * N:N_pad * N + T * N].reshape(T, N).clone()
    for d in (da, do, dc):
        d.free()
    dev.close()
    return out, bool(torch.isnan(guards.double()).all())


def t_invalid_offs_in_kernel():
    cases = [(100, 64, 64, [40, 20, 90]),              # decreasing: group 1 empty
             (100, 64, 64, [30, 250, 60]),             # above T: group 1 ends at T, group 2 empty
             (100, 64, 128, [-5, 50, -100, 100]),      # negative: empty groups
             (70, 32, 32, [1 << 30, 5, (1 << 31) - 1]),  # huge ends: one group takes every row
             (50, 32, 64, [-1, -2, -3])]               # no row covered: out untouched
    # the persistent kernel too, as on one CU: 2 or 3 workgroups walk every tile id (sanitized
    # build: the first case only)
    for dt in (BF, F16):
        for i, (T, K, N, offs) in enumerate(cases):
            a, b = operands(T, K, N, len(offs), dt)
            for cus in ((None, 1) if i == 0 or not SAN else (None,)):
                c, guards = launch_direct(a, b, offs, cus=cus)
                try:
                    check(guards, "the guards around out were written")
                    compare(c, a, b, offs)
                except AssertionError as e:
                    raise AssertionError("%s%s T=%d offs=%s: %s" % (NAME[dt], " persistent" if cus else "",
                                                                   T, offs, e))


def t_chunks_in_kernel():
    # b split over launches by groups (G0, GB: what flyops does for a b beyond 4 GiB): every
    # launch reads all of offs for the ranges and computes its own groups only; valid and
    # invalid offsets, chunk edges inside a 128-row tile
    cases = [(150, 40, 64, [10, 60, 60, 140, 150], [(0, 2), (2, 2), (4, 1)]),
             (100, 32, 32, [40, 20, 90, 250], [(0, 1), (1, 3)]),        # decreasing, above T
             (60, 16, 128, [-5, 30, 30], [(0, 1), (1, 1), (2, 1)])]     # negative, empty
    for dt in (BF, F16):
        for T, K, N, offs, chunks in (cases if not SAN else cases[:1]):
            a, b = operands(T, K, N, len(offs), dt)
            for cus in (None, 1):
                c, guards = launch_direct(a, b, offs, chunks=chunks, cus=cus)
                try:
                    check(guards, "the guards around out were written")
                    compare(c, a, b, offs)
                except AssertionError as e:
                    raise AssertionError("%s%s T=%d offs=%s chunks=%s: %s" % (
                        NAME[dt], " persistent" if cus else "", T, offs, chunks, e))


def t_b_beyond_4g():
    # b [2060, 1024, 1024] bf16 = 4.02 GiB (torch.empty: untouched pages cost nothing): one
    # buffer descriptor spans at most 2047 groups (2^31 elements), so flyops launches per chunk
    # of groups, each through its own base; the first chunk has no rows (host offs: skipped,
    # never staged), groups 2049 and 2059 lie beyond 4 GiB of b's base. NaN in every other
    # group of the chunk staged, out= NaN-guarded, rows past offs[-1] untouched.
    G, K, N, T = 2060, 1024, 1024, 12
    b = torch.empty((G, K, N), dtype=BF)
    b[2047:] = float("nan")
    b[2049] = ((torch.rand(K, N, generator=GEN) * 2 - 1)).to(BF)
    b[2059] = ((torch.rand(K, N, generator=GEN) * 2 - 1)).to(BF)
    a = (torch.rand(T, K, generator=GEN) * 2 - 1).to(BF)
    offs = [0] * 2049 + [5] * 10 + [9]
    store = torch.full((T + 2, N + 4), float("nan"), dtype=BF)
    out = store[1:T + 1, 2:N + 2]
    launches = flyc.context().launches
    flyc.ops.grouped_mm(a, b, torch.tensor(offs, dtype=I32), out=out)
    check(flyc.context().launches == launches + 1, "one launch (the chunk without rows skipped)")
    guard = store.clone()
    guard[1:T + 1, 2:N + 2] = 0
    check(bool(torch.isnan(guard).sum() == store.numel() - T * N), "the guards around out were written")
    sub = [5, 9]                                  # the groups 2049 and 2059 alone
    compare(out.clone(), a, torch.stack([b[2049], b[2059]]), sub)
    # one group's b at 4 GiB, and a of 4 GiB, are refused with the reason (nothing is touched)
    raises(flyc.Unsupported, lambda: flyc.ops.grouped_mm(
        a[:, :8], torch.empty((1, 8, 1 << 28), dtype=BF), torch.tensor([T], dtype=I32)),
        "one group's b through one buffer descriptor")
    big = torch.empty((1 << 21, 1024), dtype=BF)
    raises(flyc.Unsupported, lambda: flyc.ops.grouped_mm(
        big, b[:1, :, :32], torch.tensor([5], dtype=I32)), "a through one buffer descriptor")


def t_racecheck():
    code = ("import sys, torch; sys.path.insert(0, %r); import flyc\n"
            "g = torch.Generator().manual_seed(3)\n"
            "for dt, N, v in [(d, n, p) for d in (torch.bfloat16, torch.float16) for n in (128, 64, 32)\n"
            "                 for p in ('', '_p')]:\n"
            "    with flyc.ops.using_variant('grouped_mm_nn_%%s%%s%%s' %% ('bf16' if dt == torch.bfloat16 else 'f16',\n"
            "                                {128: '', 64: '_n64', 32: '_n32'}[N], v)):\n"
            "        a = torch.randn(150, 72, generator=g).to(dt)\n"
            "        b = torch.randn(3, 72, N, generator=g).to(dt)\n"
            "        o = torch.tensor([10, 10, 140], dtype=torch.int32)\n"
            "        c = flyc.ops.grouped_mm(a, b, o)\n"
            "        err = float((c[:140].double() - torch.cat([a[:10].double() @ b[0].double(),\n"
            "                     a[10:140].double() @ b[2].double()])).abs().max())\n"
            "        assert err < 0.5, (dt, N, v, err)\n"
            "print('ok')\n" % PY)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, FLY_SIM_RACECHECK="1", FLY_SIM_CUS="1"))
    check(p.returncode == 0 and p.stdout.strip() == "ok", (p.stdout + p.stderr)[-800:])


TESTS = [("matrix/bf16", matrix(BF)), ("matrix/f16", matrix(F16)), ("forced/bf16", forced(BF)),
         ("forced/f16", forced(F16)), ("exact", t_exact), ("empty", t_empty),
         ("NaN rows stay in their group", t_nan_isolation), ("exact grid", t_exact_grid),
         ("host offs checked", t_host_offs_checked), ("refusals", t_refusals),
         ("invalid offs clamped in the kernel", t_invalid_offs_in_kernel),
         ("b split over launches (G0, GB)", t_chunks_in_kernel)]
if not SAN:
    TESTS += [("b beyond 4 GiB", t_b_beyond_4g), ("LDS race check", t_racecheck)]

if __name__ == "__main__":
    sys.exit(run("grouped", TESTS))
