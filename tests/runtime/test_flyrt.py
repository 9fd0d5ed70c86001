"""test_flyrt.py: the Python binding (python/flyrt.py) on the simulator.

usage: python3 test_flyrt.py CODEOBJ TUNING_TABLE   (FLYRT_LIB names build/libflyrt.so)
Prints one PASS:/FAIL: line per check; exit status 1 if any failed.
"""
import array
import ctypes
import os
import random
import struct
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import flyrt  # noqa: E402

failures = 0


def check(name, fn):
    global failures
    try:
        fn()
        print("PASS: py: " + name)
    except Exception:
        failures += 1
        print("FAIL: py: " + name)
        for line in traceback.format_exc().splitlines()[-6:]:
            print("    " + line)


def expect_raises(exc, fn, text=None):
    try:
        fn()
    except exc as e:
        if text and text not in str(e):
            raise AssertionError("message %r lacks %r" % (str(e), text))
        return e
    raise AssertionError("%s was not raised" % exc.__name__)


codeobj, table = sys.argv[1], sys.argv[2]
dev = flyrt.Device("sim")
mod = dev.load(codeobj)
rnd = random.Random(7)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def t_describe():
    names = sorted(k.name for k in mod.kernels)
    assert names == ["saxpy_any", "saxpy_v4", "scale", "vadd"], names
    k = mod.kernel("vadd")
    args = k.args
    assert [a.name for a in args] == ["a", "b", "c", "n"], args
    assert args[0].type == "ptr" and args[0].elem_type == "f32" and args[0].align == 16
    assert args[3].type == "i32" and args[3].offset == 24
    info = k.info
    assert info["block"] == (64, 1, 1) and info["has_grid"] and info["wavefront_size"] == 64
    assert info["requires"] == ["n > 0", "aligned(a, 16)"], info["requires"]
    assert dev.backend == "sim" and dev.arch == "gfx950"


def t_vadd_device_buffers():
    n = 1000
    a = array.array("f", [f32(rnd.uniform(-8, 8)) for _ in range(n)])
    b = array.array("f", [f32(rnd.uniform(-8, 8)) for _ in range(n)])
    da, db, dc = dev.upload(a), dev.upload(b), dev.alloc(4 * n)
    mod.kernel("vadd")(da, db, dc, n)
    out = array.array("f", bytes(4 * n))
    dc.download(out)
    ref = [f32(x + y) for x, y in zip(a, b)]
    assert list(out) == ref, next(i for i in range(n) if out[i] != ref[i])
    for d in (da, db, dc):
        d.free()


def t_vadd_host_buffers():
    # plain Python buffers are staged through device memory and copied back
    n = 130
    a = array.array("f", [float(i) for i in range(n)])
    b = bytearray(array.array("f", [0.5] * n).tobytes())
    c = bytearray(4 * n)
    mod.kernel("vadd")(a, memoryview(b), c, n)
    out = array.array("f", bytes(c))
    assert list(out) == [i + 0.5 for i in range(n)], list(out)[:5]


def t_vadd_explicit_grid():
    n = 256
    a = array.array("f", [1.0] * n)
    c = array.array("f", [-1.0] * n)
    k = mod.kernel("vadd")
    # a grid other than the kernel's formula (ceil(256 / 64) = 4) only with any_grid=True
    e = expect_raises(flyrt.FlyrtError, lambda: k(a, a, c, n, grid=(2, 1, 1), block=64),
                      "grid 2x1x1 differs from the kernel's grid formula, which gives 4x1x1")
    assert e.name == "FLYRT_ERROR_INVALID_LAUNCH", e.name
    assert list(c) == [-1.0] * n, "a refused launch wrote its output"
    k(a, a, c, n, grid=(2, 1, 1), block=64, any_grid=True)
    assert list(c) == [2.0] * 128 + [-1.0] * 128, list(c)[120:136]
    # the block must be the kernel's block(64), any_grid or not
    expect_raises(flyrt.FlyrtError, lambda: k(a, a, c, n, block=128),
                  "block 128x1x1 differs from the kernel's block(64, 1, 1)")
    expect_raises(flyrt.FlyrtError, lambda: k(a, a, c, n, grid=8, block=32, any_grid=True),
                  "block 32x1x1 differs")
    k(a, a, c, n, grid=4, block=64)   # the formula's own grid, given explicitly
    assert list(c) == [2.0] * n
    assert k.check(a, a, c, n, grid=3) is not None
    assert k.check(a, a, c, n, grid=3, any_grid=True) is None
    assert dev.cus == 256, dev.cus


def t_buffer_sizes():
    k = mod.kernel("vadd")   # a, b, c: f32 with the layout (n):(1)
    n = 100
    a = array.array("f", [1.0] * n)
    short = array.array("f", [5.0] * (n - 1))
    e = expect_raises(flyrt.FlyrtError, lambda: k(a, a, short, n),
                      "argument 2 (c) is too small: its layout (100):(1)")
    assert e.name == "FLYRT_ERROR_ARG_TYPE", e.name
    assert list(short) == [5.0] * (n - 1), "a refused launch wrote its output"
    expect_raises(flyrt.FlyrtError, lambda: k(a, a, bytearray(4 * n - 1), n), "too small")
    k(a, a, bytearray(4 * n), n)
    d = dev.alloc(4 * (n - 1))
    expect_raises(flyrt.FlyrtError, lambda: k(a, a, d, n), "the allocation of 396 bytes")
    d.free()
    big = dev.alloc(4 * n)
    k(a, a, big.ptr, n)
    expect_raises(flyrt.FlyrtError, lambda: k(a, a, big.ptr + 16, n), "holds bytes [-16, 384)")
    # a Python buffer of floats carries its element type; raw bytes do not
    e = expect_raises(flyrt.FlyrtError, lambda: k(array.array("d", [0.0] * n), a, big, n),
                      "argument 0 (a) is a f64 tensor, the kernel expects f32 elements")
    assert e.name == "FLYRT_ERROR_ARG_TYPE"
    k(bytearray(4 * n), memoryview(bytearray(4 * n)), big, n)
    # DLPack: the element type and the tensor's own extent
    e = expect_raises(flyrt.FlyrtError, lambda: k(FakeDLPack(big.ptr, n, 10, dtype=(4, 16)), a, big, n),
                      "argument 0 (a) is a bf16 tensor, the kernel expects f32 elements")
    expect_raises(flyrt.FlyrtError, lambda: k(a, a, FakeDLPack(big.ptr, n - 1, 10), n),
                  "the tensor (its own elements")
    k(a, a, FakeDLPack(big.ptr, n, 10), n)
    # saxpy_any declares no layout: a strided tensor is refused, sizes are not known
    sx = mod.kernel("saxpy_any")
    wide = (ctypes.c_float * (2 * n))()
    expect_raises(flyrt.FlyrtError, lambda: sx(FakeDLPack(ctypes.addressof(wide), n, 1, stride=2),
                                              a, 1.0, n), "declares no layout")
    big.free()


def t_requires_unsupported():
    da = dev.alloc(1024)
    e = expect_raises(flyrt.Unsupported, lambda: mod.kernel("vadd")(da, da, da, 0), "n > 0")
    assert e.status == 16 and e.name == "FLYRT_ERROR_UNSUPPORTED"
    assert mod.kernel("vadd").check(da, da, da, 0) is not None
    assert mod.kernel("vadd").check(da, da, da, 10) is None
    da.free()


def t_bad_arguments():
    k = mod.kernel("vadd")
    da = dev.alloc(1024)
    expect_raises(flyrt.FlyrtError, lambda: k(da, da, da), "takes 4 arguments")
    expect_raises(flyrt.FlyrtError, lambda: k(da, da, da, 1.5), "is i32")
    expect_raises(flyrt.FlyrtError, lambda: k(da, da, da, 2**31), "out of range")
    expect_raises(flyrt.FlyrtError, lambda: k(da, da, "x", 3), "needs a pointer")
    e = expect_raises(flyrt.FlyrtError, lambda: k(da.ptr + 4, da, da, 3), "aligned")
    assert e.name == "FLYRT_ERROR_MISALIGNED_POINTER"
    e = expect_raises(flyrt.FlyrtError, lambda: k(0, da, da, 3))
    assert e.name == "FLYRT_ERROR_NULL_POINTER"
    da.free()


class FakeTensor:
    """What PyTorch offers: data_ptr() giving a device address."""

    def __init__(self, buf):
        self.buf = buf

    def data_ptr(self):
        return self.buf.ptr


class _DLManaged(ctypes.Structure):
    _fields_ = [("dl_tensor", flyrt._DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class FakeDLPack:
    """A DLPack exporter: a capsule named "dltensor" describing a 1-D f32 tensor."""

    def __init__(self, addr, n, device_type, stride=None, dtype=(2, 32)):
        self.shape = (ctypes.c_int64 * 1)(n)
        self.strides = (ctypes.c_int64 * 1)(stride or 1)
        self.m = _DLManaged()
        t = self.m.dl_tensor
        t.data, t.device.device_type, t.ndim = addr, device_type, 1
        t.dtype.code, t.dtype.bits, t.dtype.lanes = dtype[0], dtype[1], 1
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if stride is not None:
            t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        self.device_type = device_type

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.m), b"dltensor", None)

    def __dlpack_device__(self):
        return (self.device_type, 0)


def t_tensor_protocols():
    n = 64
    a = dev.upload(array.array("f", [3.0] * n))
    b = dev.upload(array.array("f", [4.0] * n))
    c = dev.alloc(4 * n)
    mod.kernel("vadd")(FakeTensor(a), FakeDLPack(b.ptr, n, 10), FakeTensor(c), n)  # 10: ROCm
    out = array.array("f", bytes(4 * n))
    c.download(out)
    assert list(out) == [7.0] * n
    # a host (kDLCPU) DLPack tensor is staged and copied back
    host = (ctypes.c_float * n)(*([0.0] * n))
    mod.kernel("vadd")(a, b, FakeDLPack(ctypes.addressof(host), n, 1), n)
    assert list(host) == [7.0] * n, list(host)[:4]
    # a strided host tensor where the layout (n):(1) is declared: a clear error, nothing leaks
    wide = (ctypes.c_float * (2 * n))()
    e = expect_raises(flyrt.FlyrtError, lambda: mod.kernel("vadd")(a, b, FakeDLPack(
        ctypes.addressof(wide), n, 1, stride=2), n), "argument 2 (c) has strides (2)")
    assert e.name == "FLYRT_ERROR_ARG_TYPE"
    assert list(wide) == [0.0] * (2 * n)
    # an object whose DLPack export fails falls back to data_ptr()

    class NoExport(FakeTensor):
        def __dlpack__(self, stream=None):
            raise BufferError("cannot export a tensor that requires grad")
    c.upload(bytes(4 * n))
    mod.kernel("vadd")(NoExport(a), NoExport(b), NoExport(c), n)
    out = array.array("f", bytes(4 * n))
    c.download(out)
    assert list(out) == [7.0] * n
    for d in (a, b, c):
        d.free()


def t_dispatch():
    tune = flyrt.Tuning(path=table)
    for n, want in ((4096, "saxpy_v4"), (4097, "saxpy_any"), (100, "saxpy_any")):
        x = array.array("f", [f32(rnd.uniform(-2, 2)) for _ in range(n)])
        y = array.array("f", [f32(rnd.uniform(-2, 2)) for _ in range(n)])
        ref = [a * 1.5 + b for a, b in zip(x, y)]
        got = mod.dispatch(tune, "saxpy", y, x, 1.5, n)
        assert got == want, (n, got)
        bad = [i for i in range(n) if abs(y[i] - ref[i]) > 1e-5 * (1 + abs(ref[i]))]
        assert not bad, (n, bad[:3])
    # the same rows built in memory, saved and read back
    js = flyrt.Tuning(rows=[{"family": "saxpy", "bucket": "n>=1024", "variants": ["saxpy_v4", "saxpy_any"]},
                            {"family": "saxpy", "bucket": "n<1024", "variants": "saxpy_any"}])
    assert js.variant_names("saxpy") == ["saxpy_v4", "saxpy_any"], js.variant_names("saxpy")
    assert js.variant_names("gemm") == []
    path = os.path.join(os.path.dirname(table), "py.tunedb")
    js.save(path)
    js = flyrt.Tuning(path=path)
    y = array.array("f", [1.0] * 4096)
    x = array.array("f", [2.0] * 4096)
    assert mod.dispatch(js, "saxpy", y, x, 0.5, 4096) == "saxpy_v4"
    assert list(y) == [2.0] * 4096
    only = flyrt.Tuning(rows=[{"family": "saxpy", "variants": "saxpy_v4"}])
    expect_raises(flyrt.Unsupported, lambda: mod.dispatch(only, "saxpy", y, x, 1.0, 4097))
    expect_raises(flyrt.FlyrtError, lambda: flyrt.Tuning(rows=[{"family": "saxpy", "bucket": "K<<3",
                                                               "variants": "v"}]), "tuning row 1")
    # another arch's row does not apply
    other = flyrt.Tuning(rows=[{"arch": "gfx1201", "family": "saxpy", "variants": "saxpy_any"}])
    expect_raises(flyrt.Unsupported, lambda: mod.dispatch(other, "saxpy", y, x, 1.0, 4096))
    expect_raises(flyrt.FlyrtError, lambda: flyrt.Tuning(path=path + ".missing"), "cannot read")


def t_note_only_kernel():
    xs = array.array("i", [i - 50 for i in range(256)])
    mod.kernel("scale")(xs, -7, 2**33 + 5, grid=4, block=64)   # (int)m keeps the low 32 bits
    assert list(xs) == [(i - 50) * -7 + 5 for i in range(256)], list(xs)[:4]


def t_load_errors():
    e = expect_raises(flyrt.FlyrtError, lambda: dev.load(b"not a code object"))
    assert e.name == "FLYRT_ERROR_INVALID_IMAGE", e.name
    e = expect_raises(flyrt.FlyrtError, lambda: dev.load("/nonexistent.hsaco"))
    assert e.name == "FLYRT_ERROR_FILE"
    with open(codeobj, "rb") as f:
        data = f.read()
    for cut in range(0, len(data), 211):
        try:
            dev.load(data[:cut]).unload()
        except flyrt.FlyrtError as e:
            assert e.name in ("FLYRT_ERROR_INVALID_IMAGE", "FLYRT_ERROR_INVALID_METADATA"), e.name
    m2 = dev.load(data)        # the same bytes: the cached module
    assert m2._h.value == mod._h.value
    m2.unload()
    expect_raises(flyrt.FlyrtError, lambda: flyrt.Device("quantum"), "unknown device")


def t_half_conversions():
    # bit patterns from IEEE 754 binary16 and bfloat16 (truncated binary32), round to even
    assert flyrt._f16_bits(1.0) == 0x3C00 and flyrt._f16_bits(-2.0) == 0xC000
    assert flyrt._f16_bits(65504.0) == 0x7BFF
    assert flyrt._bf16_bits(1.0) == 0x3F80 and flyrt._bf16_bits(-2.5) == 0xC020
    assert flyrt._bf16_bits(struct.unpack("<f", struct.pack("<I", 0x3F808000))[0]) == 0x3F80
    assert flyrt._bf16_bits(struct.unpack("<f", struct.pack("<I", 0x3F818000))[0]) == 0x3F82
    assert flyrt._bf16_bits(struct.unpack("<f", struct.pack("<I", 0x3F808001))[0]) == 0x3F81
    assert flyrt._bf16_bits(float("nan")) & 0x7FC0 == 0x7FC0
    assert flyrt._bf16_bits(float("inf")) == 0x7F80


for name, fn in [("kernels and arguments are described", t_describe),
                 ("vadd on device buffers matches the CPU", t_vadd_device_buffers),
                 ("vadd on plain Python buffers", t_vadd_host_buffers),
                 ("explicit grid and block: the kernel's, or any_grid=True", t_vadd_explicit_grid),
                 ("buffers of known size, element types and extents are checked", t_buffer_sizes),
                 ("requires failure raises Unsupported", t_requires_unsupported),
                 ("bad arguments raise clear errors", t_bad_arguments),
                 ("data_ptr() and DLPack tensors", t_tensor_protocols),
                 ("tuning-database dispatch picks and falls back", t_dispatch),
                 ("a note-only kernel with i32/i64 scalars", t_note_only_kernel),
                 ("load errors and the module cache", t_load_errors),
                 ("f16 and bf16 scalar conversions", t_half_conversions)]:
    check(name, fn)
dev.close()
sys.exit(1 if failures else 0)
