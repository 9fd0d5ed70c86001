"""test_launch_checks.py: libflyrt's launch checks through the Python binding, with PyTorch
CPU tensors and NumPy arrays, on flyc-compiled kernels running on the simulator.

usage: /usr/bin/python3 test_launch_checks.py ELEMENTWISE.hsaco REDUCTION.hsaco CHECKS.hsaco
  (FLYRT_LIB names libflyrt.so; CHECKS is tests/e2e/launch_checks.fly compiled)

Every refusal must happen before anything runs (outputs hold their NaN sentinels) and
name the argument, what was given and what was expected; every accepted launch is
compared with a CPU reference. Prints PASS:/FAIL: lines (SKIP without torch/numpy).
"""
import os
import sys
import traceback

try:
    import numpy as np
    import torch
except ImportError as e:   # Debian's python3-torch / python3-numpy (scripts/install-deps.sh)
    print("SKIP: py checks: launch checks with torch and numpy (%s)" % e)
    sys.exit(0)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import flyrt  # noqa: E402

failures = 0


def check(name, fn):
    global failures
    try:
        fn()
        print("PASS: py checks: " + name)
    except Exception:
        failures += 1
        print("FAIL: py checks: " + name)
        for line in traceback.format_exc().splitlines()[-8:]:
            print("    " + line)


def refused(fn, status, *texts):
    """fn() must raise FlyrtError with this status and a message containing every text."""
    try:
        fn()
    except flyrt.FlyrtError as e:
        if e.name != status:
            raise AssertionError("%s instead of %s: %s" % (e.name, status, e))
        for t in texts:
            if t not in str(e):
                raise AssertionError("message %r lacks %r" % (str(e), t))
        return e
    raise AssertionError("the launch was accepted; expected %s" % status)


ARG, LAUNCH = "FLYRT_ERROR_ARG_TYPE", "FLYRT_ERROR_INVALID_LAUNCH"
ew_path, red_path, lc_path = sys.argv[1:4]
dev = flyrt.Device("sim")
ew = dev.load(ew_path).kernel("scale_add")      # x, y, out: bf16 (N):(1); block(256)
red = dev.load(red_path).kernel("row_sum")      # x: f32 (R, C):(C, 1); out (R):(1); rowmax (G):(1)
lc = dev.load(lc_path)
rev, bcast, per_cu = lc.kernel("reverse"), lc.kernel("bcast"), lc.kernel("per_cu")
torch.manual_seed(3)


def nan_bf16(n):
    return torch.full((n,), float("nan"), dtype=torch.bfloat16)


def ew_ref(x, y, alpha):
    return (alpha * x.float() + y.float()).bfloat16()


def t_ew_ok():
    for n in (8, 1000, 4096):
        x = torch.randn(n).bfloat16()
        y = torch.randn(n).bfloat16()
        store = nan_bf16(n + 16)
        out = store[8:8 + n]                       # a storage offset, sentinels around it
        ew(x, y, out, 1.5, n)
        assert torch.equal(out, ew_ref(x, y, 1.5)), (n, (out.float() - ew_ref(x, y, 1.5).float()).abs().max())
        assert torch.isnan(store[:8]).all() and torch.isnan(store[8 + n:]).all(), "wrote outside out"
    # a contiguous 2-D tensor is the same memory as the declared (N):(1)
    x2, y2, o2 = torch.randn(8, 128).bfloat16(), torch.randn(8, 128).bfloat16(), nan_bf16(1024).view(8, 128)
    ew(x2, y2, o2, -0.5, 1024)
    assert torch.equal(o2, ew_ref(x2, y2, -0.5))


def t_ew_wrong_dtype():
    n = 1024
    x = torch.randn(n)                             # float32 where bf16 is declared
    y = torch.randn(n).bfloat16()
    out = nan_bf16(n)
    refused(lambda: ew(x, y, out, 1.0, n), ARG,
            "argument 0 (x) is a f32 tensor, the kernel expects bf16 elements")
    refused(lambda: ew(y, y, out.half(), 1.0, n), ARG, "argument 2 (out) is a f16 tensor")
    refused(lambda: ew(y, y, torch.zeros(n, dtype=torch.int32), 1.0, n), ARG, "is a i32 tensor")
    assert torch.isnan(out).all(), "a refused launch wrote its output"
    # a tensor that requires grad goes through DLPack (detached): checked and staged too
    g = torch.randn(n, requires_grad=True)
    refused(lambda: ew(g, y, out, 1.0, n), ARG, "argument 0 (x) is a f32 tensor")
    # int16 holding bf16 bits is accepted (types NumPy/PyTorch cannot name take raw bits)
    ew(y, y, out.view(torch.int16), 1.0, n)
    assert torch.equal(out, ew_ref(y, y, 1.0))


def t_ew_too_small():
    # the case: out of 1024 elements where (N):(1) with N = 4096 is declared
    n = 4096
    x, y = torch.randn(n).bfloat16(), torch.randn(n).bfloat16()
    out = nan_bf16(1024)
    refused(lambda: ew(x, y, out, 1.0, n), ARG, "argument 2 (out) is too small",
            "its layout (4096):(1)", "reaches bytes [0, 8192)", "holds bytes [0, 2048)")
    assert torch.isnan(out).all()
    refused(lambda: ew(torch.randn(n - 1).bfloat16(), y, nan_bf16(n), 1.0, n), ARG,
            "argument 0 (x) is too small")


def t_ew_storage_offset():
    n = 2048
    x, y = torch.randn(n).bfloat16(), torch.randn(n).bfloat16()
    store = nan_bf16(n + 8)
    # offset 16 leaves n - 8 elements of storage: the layout's reach passes the end
    refused(lambda: ew(x, y, store[16:], 1.0, n), ARG, "argument 2 (out) is too small",
            "the tensor's storage (4112 bytes", "holds bytes [-32, 4080)")
    assert torch.isnan(store).all()
    # offset 8 leaves exactly n: accepted, and nothing outside it is written
    ew(x, y, store[8:], 1.0, n)
    assert torch.equal(store[8:], ew_ref(x, y, 1.0)) and torch.isnan(store[:8]).all()
    # a short view whose storage holds the whole reach is accepted (the check is the
    # storage, as on a GPU where writing it stays inside the allocation)
    store = nan_bf16(n)
    ew(x, y, store[:10], 1.0, n)
    assert torch.equal(store, ew_ref(x, y, 1.0))


def t_ew_block_grid():
    n = 4096                                       # the formula: ceil(4096 / 2048) = 2 workgroups
    x, y = torch.randn(n).bfloat16(), torch.randn(n).bfloat16()
    out = nan_bf16(n)
    # the case: block(256) launched with 128 threads
    refused(lambda: ew(x, y, out, 1.0, n, block=128), LAUNCH,
            "block 128x1x1 differs from the kernel's block(256, 1, 1)")
    refused(lambda: ew(x, y, out, 1.0, n, grid=1), LAUNCH,
            "grid 1x1x1 differs from the kernel's grid formula, which gives 2x1x1")
    refused(lambda: ew(x, y, out, 1.0, n, grid=1, block=128, any_grid=True), LAUNCH, "block 128x1x1")
    assert torch.isnan(out).all()
    ew(x, y, out, 1.0, n, grid=1, any_grid=True)   # opted in: the first 2048 only
    ref = ew_ref(x, y, 1.0)
    assert torch.equal(out[:2048], ref[:2048]) and torch.isnan(out[2048:]).all()
    ew(x, y, out, 1.0, n, grid=2, block=256)       # the kernel's own, given explicitly
    assert torch.equal(out, ref)


def t_red_strides():
    r, c = 9, 128
    base = torch.randn(r, c)
    out, rowmax = torch.full((r,), float("nan")), torch.full((3,), float("nan"))
    red(base, out, rowmax, r, c, 3)
    assert torch.allclose(out, base.sum(1), rtol=1e-5, atol=1e-4), (out, base.sum(1))
    out.fill_(float("nan"))
    rowmax.fill_(float("nan"))
    # transposed: the same elements, column-major strides
    xt = torch.randn(c, r).t()
    assert xt.shape == (r, c) and xt.stride() == (1, r)
    refused(lambda: red(xt, out, rowmax, r, c, 3), ARG,
            "argument 0 (x) has strides (1, 9) (shape (9, 128))", "the kernel's layout (9,128):(128,1)")
    # non-contiguous rows: every other column of a wider tensor
    wide = torch.randn(r, 2 * c)
    refused(lambda: red(wide[:, ::2], out, rowmax, r, c, 3), ARG, "has strides (256, 2)")
    refused(lambda: red(wide[:, :c], out, rowmax, r, c, 3), ARG, "has strides (256, 1)")
    assert torch.isnan(out).all() and torch.isnan(rowmax).all()
    red(wide[:, :c].contiguous(), out, rowmax, r, c, 3)
    assert torch.allclose(out, wide[:, :c].sum(1), rtol=1e-5, atol=1e-4)
    # too few rows for R
    refused(lambda: red(torch.randn(r - 1, c), out, rowmax, r, c, 3), ARG, "argument 0 (x) is too small")


def t_negative_strides():
    n = 300
    base = np.arange(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    rev(base[::-1], out, n)                       # x[i] = base[n - 1 - i], as declared (N):(-1)
    assert np.array_equal(out, base[::-1]), out[:4]
    out[:] = np.nan
    refused(lambda: rev(base, out, n), ARG, "argument 0 (x) has strides (1)", "(300):(-1)")
    refused(lambda: rev(base[1:][::-1], out, n), ARG, "argument 0 (x) is too small",
            "reaches bytes [-1196, 4)")
    assert np.isnan(out).all()
    # a torch view of a reversed array keeps its strides, so it goes through the same way
    t = torch.from_numpy(base.copy())
    refused(lambda: rev(t, out, n), ARG, "has strides (1)")


def t_zero_strides():
    m, n = 5, 100
    row = torch.randn(n)
    out = torch.full((m, n), float("nan"))
    bcast(row.expand(m, n), out, m, n)            # strides (0, 1), as declared
    assert torch.equal(out, row.expand(m, n))
    out.fill_(float("nan"))
    refused(lambda: bcast(row.expand(m, n).contiguous(), out, m, n), ARG,
            "argument 0 (row) has strides (100, 1)", "the kernel's layout (5,100):(0,1)")
    refused(lambda: bcast(torch.randn(n - 1).expand(m, n - 1), out, m, n), ARG,
            "argument 0 (row) is too small")
    # M and N swapped: row's strides (0, 1) still fit (it reaches 5 elements), out.t() not
    refused(lambda: bcast(row.expand(m, n), out.t(), n, m), ARG,
            "argument 1 (out) has strides (1, 100) (shape (100, 5))", "layout (100,5):(5,1)")
    assert torch.isnan(out).all()
    # zero extents reach nothing: no size is needed, but the grid is then 0 workgroups
    refused(lambda: bcast(row.expand(m, n), out, 0, n), LAUNCH, "gives 0 workgroups")


def t_device_cus():
    g = 1000
    out = torch.zeros(g, dtype=torch.int32)
    per_cu(out, g)                                 # min(256 CUs, 1000) workgroups
    want = torch.cat([torch.arange(1, 257, dtype=torch.int32), torch.zeros(g - 256, dtype=torch.int32)])
    assert dev.cus == 256 and torch.equal(out, want), out[250:260]
    refused(lambda: per_cu(out, g, grid=300), LAUNCH, "which gives 256x1x1")
    per_cu(out, g, grid=300, any_grid=True)
    assert torch.equal(out[:300], torch.arange(1, 301, dtype=torch.int32))
    os.environ["FLY_SIM_CUS"] = "5"
    try:
        d5 = flyrt.Device("sim")
    finally:
        del os.environ["FLY_SIM_CUS"]
    k5 = d5.load(lc_path).kernel("per_cu")
    out = torch.zeros(g, dtype=torch.int32)
    k5(out, g)
    assert d5.cus == 5 and out[:6].tolist() == [1, 2, 3, 4, 5, 0], out[:8]
    d5.close()


for name, fn in [("bf16 elementwise on torch tensors matches the CPU", t_ew_ok),
                 ("a float32 tensor for a bf16 argument is refused", t_ew_wrong_dtype),
                 ("a tensor smaller than the declared extent is refused", t_ew_too_small),
                 ("a storage offset pushing the reach past the end is refused", t_ew_storage_offset),
                 ("block must be the kernel's; another grid only with any_grid", t_ew_block_grid),
                 ("transposed and non-contiguous tensors are refused", t_red_strides),
                 ("negative strides (NumPy x[::-1]) as declared", t_negative_strides),
                 ("zero strides (torch expand) as declared", t_zero_strides),
                 ("device.cus in a grid formula", t_device_cus)]:
    check(name, fn)
dev.close()
sys.exit(1 if failures else 0)
