"""flyrt.py: Python binding of libflyrt (standard-library ctypes only).

    import flyrt
    dev = flyrt.Device("auto")              # FLY_DEVICE overrides; "sim", "hip", "hip:1"
    mod = dev.load("vadd.hsaco")            # a path, or bytes of a code object / bundle
    vadd = mod.kernel("vadd")
    a = dev.upload(array.array("f", xs))    # a DeviceBuffer
    c = dev.alloc(4 * n)
    vadd(a, b, c, n)                        # grid/block from .flyc.meta, or grid=, block=
    out = array.array("f", bytes(4 * n)); c.download(out)

Pointer arguments accept a DeviceBuffer, an int (a device address), an object with
__dlpack__ (a DLPack capsule, e.g. a PyTorch or NumPy tensor: device tensors pass their
address, host tensors are staged through device memory), an object with data_ptr() (a
device address, used when DLPack export is not available), or a plain Python buffer
(bytearray, array.array, memoryview, ...): it is copied to the device before the launch
and, when writable, copied back after it. Scalars are Python ints and floats, converted
to the argument's type from the metadata (range-checked).

Before anything runs libflyrt checks the launch (docs/runtime.md, "Launch checks"): a
tensor's element type and strides against the kernel's declared layout, and that every
offset the layout reaches lies in the tensor's storage (Python buffers and DeviceBuffers:
in the buffer); block= must be the kernel's block, grid= its formula's unless
any_grid=True.

Errors raise FlyrtError (status, message); a kernel whose `requires` rejects the call
raises Unsupported, the subclass a caller catches to fall back to another
implementation. The library is $FLYRT_LIB, else build/libflyrt.so next to this package's
checkout, else PREFIX/lib/libflyrt.so when installed (make install puts this file in
PREFIX/share/flyc/python/).
"""

import ctypes
import ctypes.util
import os
import struct

__all__ = ["Device", "Module", "Kernel", "DeviceBuffer", "Tuning", "FlyrtError",
           "Unsupported", "status_string", "ArgInfo", "dlpack_dtype"]

# ---- the C library -------------------------------------------------------------------

def _find_library():
    env = os.environ.get("FLYRT_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "..", "build", "libflyrt.so"),
                 os.path.join(here, "libflyrt.so"),
                 # installed: PREFIX/share/flyc/python/flyrt.py, PREFIX/lib/libflyrt.so
                 os.path.join(here, "..", "..", "..", "lib", "libflyrt.so")):
        if os.path.exists(cand):
            return cand
    found = ctypes.util.find_library("flyrt")
    if found:
        return found
    raise OSError("libflyrt.so not found: build it with make, or set FLYRT_LIB")

_lib = ctypes.CDLL(_find_library())

SUCCESS = 0
UNSUPPORTED = 16
_STATUS_NAMES = {}

# flyrt_arg_type values (FLYRT_ARG_TYPES in flyrt.h, in order)
PTR, I32, U32, I64, U64, F32, F16, BF16, BYTES, TENSOR = range(10)
_TYPE_NAMES = ["ptr", "i32", "u32", "i64", "u64", "f32", "f16", "bf16", "bytes", "tensor"]
ANY_GRID = 1   # FLYRT_LAUNCH_ANY_GRID


class _ArgValue(ctypes.Union):
    _fields_ = [("ptr", ctypes.c_uint64), ("i32", ctypes.c_int32), ("u32", ctypes.c_uint32),
                ("i64", ctypes.c_int64), ("u64", ctypes.c_uint64), ("f32", ctypes.c_float),
                ("bits16", ctypes.c_uint16), ("bytes", ctypes.c_void_p),
                ("tensor", ctypes.c_void_p)]


class _Tensor(ctypes.Structure):   # flyrt_tensor
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_char_p), ("ndim", ctypes.c_int),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("storage", ctypes.c_uint64), ("storage_bytes", ctypes.c_uint64)]


class _Arg(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("size", ctypes.c_uint32), ("v", _ArgValue)]


class _ArgInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("elem_type", ctypes.c_char_p),
                ("offset", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("align", ctypes.c_uint32), ("typed", ctypes.c_int),
                ("layout_rank", ctypes.c_int), ("layout", ctypes.c_char_p)]


class _KernelInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("nargs", ctypes.c_int),
                ("kernarg_size", ctypes.c_uint32), ("wavefront_size", ctypes.c_uint32),
                ("max_block_threads", ctypes.c_uint32), ("static_lds", ctypes.c_uint32),
                ("scratch_per_thread", ctypes.c_uint32), ("sgprs", ctypes.c_uint32),
                ("vgprs", ctypes.c_uint32), ("agprs", ctypes.c_uint32),
                ("has_meta", ctypes.c_int), ("block", ctypes.c_uint32 * 3),
                ("has_grid", ctypes.c_int), ("nrequires", ctypes.c_int)]


class _LaunchConfig(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("dynamic_lds", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


_vp, _u64, _sz, _int, _cp = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_int, ctypes.c_char_p
_P = ctypes.POINTER


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_status_string = _fn("flyrt_status_string", _cp, _int)
_status_name = _fn("flyrt_status_name", _cp, _int)
_last_error = _fn("flyrt_last_error", _cp)
_device_open = _fn("flyrt_device_open", _int, _cp, _P(_vp))
_device_close = _fn("flyrt_device_close", None, _vp)
_device_backend = _fn("flyrt_device_backend", _int, _vp)
_device_arch = _fn("flyrt_device_arch", _cp, _vp)
_device_name = _fn("flyrt_device_name", _cp, _vp)
_device_cus = _fn("flyrt_device_cus", ctypes.c_uint32, _vp)
_device_xcds = _fn("flyrt_device_xcds", ctypes.c_uint32, _vp)
_elem_bits = _fn("flyrt_elem_bits", ctypes.c_uint, _cp)
_malloc = _fn("flyrt_malloc", _int, _vp, _sz, _P(_u64))
_free = _fn("flyrt_free", _int, _vp, _u64)
_htod = _fn("flyrt_memcpy_htod", _int, _vp, _u64, _vp, _sz)
_dtoh = _fn("flyrt_memcpy_dtoh", _int, _vp, _vp, _u64, _sz)
_sync = _fn("flyrt_synchronize", _int, _vp)
_load_data = _fn("flyrt_module_load_data", _int, _vp, _vp, _sz, _P(_vp))
_load_file = _fn("flyrt_module_load_file", _int, _vp, _cp, _P(_vp))
_unload = _fn("flyrt_module_unload", None, _vp)
_kernel_count = _fn("flyrt_module_kernel_count", _int, _vp)
_kernel_at = _fn("flyrt_module_kernel_at", _vp, _vp, _int)
_get_kernel = _fn("flyrt_module_get_kernel", _int, _vp, _cp, _P(_vp))
_kernel_info = _fn("flyrt_kernel_get_info", _int, _vp, _P(_KernelInfo))
_arg_info = _fn("flyrt_kernel_arg_info", _int, _vp, _int, _P(_ArgInfo))
_kernel_name = _fn("flyrt_kernel_name", _cp, _vp)
_requires_text = _fn("flyrt_kernel_requires_text", _cp, _vp, _int)
_arg_layout = _fn("flyrt_kernel_arg_layout", _int, _vp, _int, _P(_Arg), _int,
                  _P(ctypes.c_int64), _P(ctypes.c_int64), _int)
_check = _fn("flyrt_kernel_check", _int, _vp, _P(_LaunchConfig), _P(_Arg), _int, _P(_LaunchConfig))
_launch = _fn("flyrt_launch", _int, _vp, _P(_LaunchConfig), _P(_Arg), _int)
_tuning_load = _fn("flyrt_tuning_load", _int, _cp, _P(_vp))
_tuning_new = _fn("flyrt_tuning_new", _int, _P(_vp))
_tuning_add = _fn("flyrt_tuning_add", _int, _vp, _vp)
_tuning_save = _fn("flyrt_tuning_save", _int, _vp, _cp)
_tuning_destroy = _fn("flyrt_tuning_destroy", None, _vp)
_tuning_variants = _fn("flyrt_tuning_variants", _int, _vp, _cp, _P(_cp), _int)
_dispatch = _fn("flyrt_dispatch", _int, _vp, _vp, _cp, _P(_LaunchConfig), _P(_Arg), _int, _P(_vp))


def status_string(st):
    """The fixed message of a status code."""
    return _status_string(st).decode()


class FlyrtError(RuntimeError):
    """A libflyrt call failed: .status (int), .name (e.g. FLYRT_ERROR_ARG_TYPE), .detail."""

    def __init__(self, status, detail=""):
        self.status = status
        self.name = _status_name(status).decode()
        self.detail = detail
        super().__init__("%s: %s" % (self.name, detail or status_string(status)))


class Unsupported(FlyrtError):
    """The kernel's requires predicates (or every variant) reject the call: fall back."""


def _check_status(st):
    if st != SUCCESS:
        detail = _last_error().decode(errors="replace")
        raise (Unsupported if st == UNSUPPORTED else FlyrtError)(st, detail)


# ---- devices and memory --------------------------------------------------------------

class Device:
    """An open device. kind: "auto" (default), "sim", "hip" or "hip:N"; FLY_DEVICE wins."""

    def __init__(self, kind="auto"):
        h = _vp()
        _check_status(_device_open(kind.encode() if kind else None, ctypes.byref(h)))
        self._h = h
        self._modules = []

    @property
    def backend(self):
        return {1: "hip", 2: "sim"}.get(_device_backend(self._h), "?")

    @property
    def arch(self):
        return _device_arch(self._h).decode()

    @property
    def name(self):
        return _device_name(self._h).decode()

    @property
    def cus(self):
        """Compute units (what grid formulas see as device.cus); 0 if unknown."""
        return _device_cus(self._h)

    @property
    def xcds(self):
        """XCDs the CUs are split over (flyrt_device_xcds: the KFD topology on HIP, else
        derived; FLY_SIM_XCDS on the simulator); >= 1."""
        return _device_xcds(self._h)

    def close(self):
        """Unload every module and release the device (also done by a with-block)."""
        if self._h:
            for m in self._modules:
                m._h = None
            _device_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def alloc(self, nbytes):
        p = _u64()
        _check_status(_malloc(self._h, nbytes, ctypes.byref(p)))
        return DeviceBuffer(self, p.value, nbytes)

    def upload(self, buf):
        """A new DeviceBuffer holding a copy of a Python buffer."""
        mv = memoryview(buf).cast("B")
        d = self.alloc(max(len(mv), 1))
        d.upload(mv)
        return d

    def synchronize(self):
        _check_status(_sync(self._h))

    def load(self, src):
        """Load a module from a path (str/os.PathLike) or from bytes-like code object data."""
        h = _vp()
        if isinstance(src, (str, os.PathLike)):
            _check_status(_load_file(self._h, os.fsencode(src), ctypes.byref(h)))
        else:
            data = bytes(src)
            _check_status(_load_data(self._h, data, len(data), ctypes.byref(h)))
        m = Module(self, h)
        self._modules.append(m)
        return m


def _host_address(mv):
    """Address of a contiguous memoryview's bytes (copying read-only ones)."""
    if mv.readonly:
        tmp = ctypes.create_string_buffer(mv.tobytes(), len(mv))
        return ctypes.addressof(tmp), tmp
    arr = (ctypes.c_char * len(mv)).from_buffer(mv)
    return ctypes.addressof(arr), arr


class DeviceBuffer:
    """Device memory: .ptr is the device address, .nbytes its size."""

    def __init__(self, dev, ptr, nbytes):
        self.dev, self.ptr, self.nbytes = dev, ptr, nbytes

    def upload(self, buf, offset=0):
        mv = memoryview(buf).cast("B")
        if offset < 0 or offset + len(mv) > self.nbytes:
            raise ValueError("upload of %d bytes at %d overflows a %d-byte buffer"
                             % (len(mv), offset, self.nbytes))
        if len(mv):
            addr, keep = _host_address(mv)
            _check_status(_htod(self.dev._h, self.ptr + offset, addr, len(mv)))
            del keep

    def download(self, buf, offset=0):
        """Copy into a writable Python buffer (as many bytes as it holds)."""
        mv = memoryview(buf).cast("B")
        if mv.readonly:
            raise ValueError("download needs a writable buffer")
        if offset < 0 or offset + len(mv) > self.nbytes:
            raise ValueError("download of %d bytes at %d overflows a %d-byte buffer"
                             % (len(mv), offset, self.nbytes))
        if len(mv):
            addr, keep = _host_address(mv)
            _check_status(_dtoh(self.dev._h, addr, self.ptr + offset, len(mv)))
            del keep

    def to_bytes(self):
        out = bytearray(self.nbytes)
        self.download(out)
        return bytes(out)

    def free(self):
        if self.ptr and self.dev._h:
            _check_status(_free(self.dev._h, self.ptr))
        self.ptr = 0

    def data_ptr(self):
        return self.ptr


# ---- DLPack --------------------------------------------------------------------------

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", _P(ctypes.c_int64)),
                ("strides", _P(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_CPU, _DL_CUDA_HOST, _DL_ROCM_HOST = 1, 3, 11
_capsule_get = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get.restype = ctypes.c_void_p
_capsule_get.argtypes = [ctypes.py_object, ctypes.c_char_p]

# DLPack type codes (kDLInt, kDLUInt, kDLFloat, kDLBfloat) -> .flyc.meta element names
_DL_NAMES = {(0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64",
             (1, 8): "u8", (1, 16): "u16", (1, 32): "u32", (1, 64): "u64",
             (2, 16): "f16", (2, 32): "f32", (2, 64): "f64", (4, 16): "bf16"}


def dlpack_dtype(code, bits, lanes=1):
    """The element type name libflyrt checks for a DLPack dtype (e.g. (4, 16) -> "bf16");
    a description that matches no kernel type for the others."""
    if lanes == 1 and (code, bits) in _DL_NAMES:
        return _DL_NAMES[(code, bits)]
    return "dlpack(code=%d, bits=%d, lanes=%d)" % (code, bits, lanes)


class _DLView:
    """What a DLPack export says: address, dtype name, shape, strides (elements), element
    bits, whether the memory is the host's, and the capsule (kept alive)."""

    def __init__(self, obj):
        self.cap = obj.__dlpack__()
        p = _capsule_get(self.cap, b"dltensor")
        t = _DLTensor.from_address(p)   # DLManagedTensor starts with its DLTensor
        self.addr = (t.data or 0) + t.byte_offset
        self.dtype = dlpack_dtype(t.dtype.code, t.dtype.bits, t.dtype.lanes)
        self.bits = t.dtype.bits * t.dtype.lanes
        self.shape = [t.shape[i] for i in range(t.ndim)]
        if t.strides:
            self.strides = [t.strides[i] for i in range(t.ndim)]
        else:   # NULL strides: compact row-major
            self.strides, acc = [0] * t.ndim, 1
            for i in reversed(range(t.ndim)):
                self.strides[i] = acc
                acc *= self.shape[i]
        self.on_host = t.device.device_type in (_DL_CPU, _DL_CUDA_HOST, _DL_ROCM_HOST)
        self.storage = _storage_of(obj)

    def span(self):
        """Bytes [lo, hi) the tensor's own elements occupy around addr; None if empty."""
        return _byte_span(self.shape, self.strides, self.bits)


def _byte_span(shape, strides, bits):
    if any(n <= 0 for n in shape):
        return None
    lo = sum((n - 1) * d for n, d in zip(shape, strides) if d < 0)
    hi = sum((n - 1) * d for n, d in zip(shape, strides) if d > 0)
    return (lo * bits) // 8, -((-(hi + 1) * bits) // 8)


def _storage_of(obj):
    """(address, bytes) of a PyTorch tensor's storage, or None when not known."""
    try:
        if hasattr(obj, "untyped_storage"):
            st = obj.untyped_storage()
        elif hasattr(obj, "storage") and hasattr(obj, "storage_offset"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                st = obj.storage()
        else:
            return None
        return int(st.data_ptr()), int(st.nbytes())
    except Exception:   # not a PyTorch tensor after all
        return None


def _tensor_desc(data, dtype, shape, strides, storage, keep):
    """A flyrt_tensor (kept alive in keep)."""
    t = _Tensor()
    t.data = data
    t.dtype = dtype.encode() if dtype else None
    if shape is None:
        t.ndim = -1
    else:
        n = len(shape)
        sh, st = (ctypes.c_int64 * max(n, 1))(*shape), (ctypes.c_int64 * max(n, 1))(*strides)
        keep += [sh, st]
        t.ndim, t.shape, t.strides = n, sh, st
    if storage:
        t.storage, t.storage_bytes = storage
    keep.append(t)
    return ctypes.addressof(t)


_FORMAT_DTYPES = {"f": "f32", "d": "f64", "e": "f16"}   # Python buffer formats with a float type


# ---- modules and kernels -------------------------------------------------------------

class ArgInfo:
    def __init__(self, ai):
        self.name = (ai.name or b"").decode()
        self.type = _TYPE_NAMES[ai.type] if 0 <= ai.type < len(_TYPE_NAMES) else "?"
        self.type_code = ai.type
        self.elem_type = (ai.elem_type or b"").decode()
        self.offset, self.size, self.align, self.typed = ai.offset, ai.size, ai.align, bool(ai.typed)
        self.layout_rank = ai.layout_rank            # -1: no declared layout recorded
        self.layout = (ai.layout or b"").decode()    # .flyc.meta formulas, e.g. "$N : 1"

    def __repr__(self):
        t = "ptr %s align %d" % (self.elem_type or "?", self.align) if self.type == "ptr" else self.type
        return "%s: %s" % (self.name or "?", t)


class Module:
    def __init__(self, dev, h):
        self.dev, self._h = dev, h

    def unload(self):
        if self._h:
            _unload(self._h)
            self._h = None
            self.dev._modules.remove(self)

    @property
    def kernels(self):
        return [Kernel(self, _kernel_at(self._h, i)) for i in range(_kernel_count(self._h))]

    def kernel(self, name):
        h = _vp()
        _check_status(_get_kernel(self._h, name.encode(), ctypes.byref(h)))
        return Kernel(self, h.value)

    def dispatch(self, tuning, family, *args, grid=None, block=None, any_grid=False):
        """Launch the variant of `family` the tuning database (or None) picks; returns its name."""
        rep = None
        if tuning is None:
            rep = self.kernel(family)
        else:
            for name in tuning.variant_names(family):
                try:
                    rep = self.kernel(name)
                    break
                except FlyrtError:
                    continue
        if rep is None:
            raise Unsupported(UNSUPPORTED, "no variant of '%s' in the module" % family)
        cargs, post = rep._marshal(args)
        chosen = _vp()
        st = _dispatch(self._h, tuning._h if tuning else None, family.encode(),
                       _config(grid, block, any_grid), cargs, len(args), ctypes.byref(chosen))
        _finish(post, st == SUCCESS)
        _check_status(st)
        return _kernel_name(chosen).decode()


def _config(grid, block, any_grid=False):
    if grid is None and block is None and not any_grid:
        return None
    c = _LaunchConfig()
    c.flags = ANY_GRID if any_grid else 0
    for src, dst in ((grid, c.grid), (block, c.block)):
        if src is None:
            continue
        if isinstance(src, int):
            src = (src,)
        for i, v in enumerate(tuple(src) + (1,) * (3 - len(src))):
            dst[i] = v
    return ctypes.byref(c)


def _f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def _bf16_bits(x):
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    if (b & 0x7F800000) == 0x7F800000 and b & 0x7FFFFF:
        return (b >> 16) | 0x40   # a quiet NaN stays a NaN
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF   # round to nearest even


def _copy_back(dev, d, mv):
    """After a launch: copy a staged buffer back to the host (if ok and writable), free it."""
    def run(ok):
        try:
            if ok and mv is not None:
                dev.synchronize()
                d.download(mv)
        finally:
            d.free()
    return run


def _finish(post, ok):
    err = None
    for f in post:
        try:
            f(ok)
        except FlyrtError as e:
            err = err or e
    if err is not None and ok:
        raise err


_INT_RANGE = {I32: (-2**31, 2**31 - 1), U32: (0, 2**32 - 1), I64: (-2**63, 2**63 - 1),
              U64: (0, 2**64 - 1)}


class Kernel:
    def __init__(self, mod, h):
        self.mod, self._h = mod, h

    @property
    def name(self):
        return _kernel_name(self._h).decode()

    @property
    def args(self):
        out = []
        for i in range(self.info["nargs"]):
            ai = _ArgInfo()
            _check_status(_arg_info(self._h, i, ctypes.byref(ai)))
            out.append(ArgInfo(ai))
        return out

    @property
    def info(self):
        ki = _KernelInfo()
        _check_status(_kernel_info(self._h, ctypes.byref(ki)))
        d = {f: getattr(ki, f) for f, _ in _KernelInfo._fields_}
        d["name"] = d["name"].decode()
        d["block"] = tuple(ki.block)
        d["requires"] = [_requires_text(self._h, i).decode() for i in range(ki.nrequires)]
        return d

    def __repr__(self):
        return "<flyrt.Kernel %s(%s)>" % (self.name, ", ".join(map(repr, self.args)))

    def layout(self, arg, *args):
        """The declared layout of pointer argument `arg` (index or name) for the scalar
        values among args (a full argument list; pointers may be None): (shape, strides)
        tuples in elements, or None when the kernel records no layout for it."""
        infos = self.args
        i = arg if isinstance(arg, int) else [a.name for a in infos].index(arg)
        if infos[i].layout_rank < 0:
            return None
        arr = self._scalars(args, infos)
        n = infos[i].layout_rank
        sh, st = (ctypes.c_int64 * max(n, 1))(), (ctypes.c_int64 * max(n, 1))()
        r = _arg_layout(self._h, i, arr, len(args), sh, st, n)
        if r < 0:
            raise FlyrtError(12, _last_error().decode(errors="replace"))
        return tuple(sh[:r]), tuple(st[:r])

    def _scalars(self, args, infos):
        """A flyrt_arg array with the scalar arguments set (pointers left 0)."""
        if len(args) != len(infos):
            raise FlyrtError(11, "kernel '%s' takes %d arguments, got %d"
                             % (self.name, len(infos), len(args)))
        arr = (_Arg * max(len(args), 1))()
        keep = []
        for i, (v, ai) in enumerate(zip(args, infos)):
            if ai.type_code == PTR:
                arr[i].type, arr[i].size = PTR, 8
            else:
                self._scalar_into(arr[i], v, i, ai, keep)
        return arr

    def _marshal(self, args):
        """ctypes flyrt_arg array for args, and actions to run after the launch."""
        infos = self.args
        if len(args) != len(infos):
            raise FlyrtError(11, "kernel '%s' takes %d arguments, got %d"
                             % (self.name, len(infos), len(args)))
        arr = (_Arg * max(len(args), 1))()
        post, keep = [], []
        try:
            self._marshal_into(arr, args, infos, post, keep)
        except BaseException:
            _finish(post, False)   # free what was staged before the bad argument
            raise
        post.append(lambda ok, keep=keep: keep.clear())
        return arr, post

    def _declared_span(self, arr, i, ai):
        """Bytes [lo, hi) around the pointer that argument i's declared layout reaches for
        the scalars already in arr, or None (no layout, reaches nothing, not computable)."""
        bits = _elem_bits(ai.elem_type.encode())
        if ai.layout_rank < 0 or not bits:
            return None
        n = ai.layout_rank
        sh, st = (ctypes.c_int64 * max(n, 1))(), (ctypes.c_int64 * max(n, 1))()
        if _arg_layout(self._h, i, arr, len(arr), sh, st, n) != n:
            return None   # the launch check reports it
        return _byte_span(sh[:n], st[:n], bits)

    def _dlpack_arg(self, arr, a, v, i, ai, post, keep):
        """A DLPack tensor as pointer argument; False if it cannot export (try data_ptr)."""
        try:
            try:
                t = _DLView(v)
            except RuntimeError:
                if not hasattr(v, "detach"):
                    raise
                t = _DLView(v.detach())   # a PyTorch tensor that requires grad: same memory
        except (TypeError, ValueError, RuntimeError, BufferError, AttributeError):
            if hasattr(v, "data_ptr"):
                return False
            raise
        keep.append(t.cap)
        a.type, a.size = TENSOR, 8
        if not t.on_host:   # device memory: pass its address, shape, strides and storage
            a.v.tensor = _tensor_desc(t.addr, t.dtype, t.shape, t.strides, t.storage, keep)
            return True
        # a host tensor is staged: with its storage known, the bytes of the storage that
        # the tensor or the declared layout reaches (so the check sees what a GPU would);
        # else only the tensor's own bytes (nothing else around it is known to exist)
        spans = [x for x in (t.span(), self._declared_span(arr, i, ai) if t.storage else None) if x]
        lo = min([x[0] for x in spans] + [0])
        hi = max([x[1] for x in spans] + [0])
        if t.storage:
            base, nbytes = t.storage
            if base <= t.addr <= base + nbytes:
                lo, hi = max(lo, base - t.addr), min(hi, base + nbytes - t.addr)
            else:
                lo = hi = 0
        hi = max(hi, lo)
        host = (ctypes.c_char * max(hi - lo, 1)).from_address(t.addr + lo)
        d = self.mod.dev.upload(memoryview(host)[:hi - lo] if hi > lo else b"\0")
        data = d.ptr - lo
        storage = None
        if t.storage:
            # the storage's bounds as they map to the device: the check compares against
            # them and the kernel only reaches what was staged (both inside the storage)
            base, nbytes = t.storage
            storage = (data - (t.addr - base), nbytes) if base <= t.addr <= base + nbytes else (data, 0)
        a.v.tensor = _tensor_desc(data, t.dtype, t.shape, t.strides, storage, keep)
        post.append(_copy_back(self.mod.dev, d, memoryview(host)[:hi - lo] if hi > lo else None))
        return True

    def _scalar_into(self, a, v, i, ai, keep):
        t = ai.type_code
        if not ai.typed:   # typed from the note: pick by the Python value
            if isinstance(v, float) and ai.size == 4:
                t = F32
            elif isinstance(v, float) and ai.size == 8:
                raw = ctypes.create_string_buffer(struct.pack("<d", v), 8)
                keep.append(raw)
                a.type, a.size, a.v.bytes = BYTES, 8, ctypes.addressof(raw)
                return
            elif t == BYTES:
                raw = ctypes.create_string_buffer(bytes(v), ai.size)
                if len(bytes(v)) != ai.size:
                    raise FlyrtError(12, "argument %d (%s) takes %d bytes, got %d"
                                     % (i, ai.name, ai.size, len(bytes(v))))
                keep.append(raw)
                a.type, a.size, a.v.bytes = BYTES, ai.size, ctypes.addressof(raw)
                return
        a.type = t
        if t in _INT_RANGE:
            if isinstance(v, bool) or not isinstance(v, int):
                raise FlyrtError(12, "argument %d (%s) is %s, got %s"
                                 % (i, ai.name, _TYPE_NAMES[t], type(v).__name__))
            lo, hi = _INT_RANGE[t]
            if not lo <= v <= hi:
                raise FlyrtError(12, "argument %d (%s) = %d is out of range for %s"
                                 % (i, ai.name, v, _TYPE_NAMES[t]))
            a.size = 4 if t in (I32, U32) else 8
            setattr(a.v, _TYPE_NAMES[t], v)
        elif t in (F32, F16, BF16):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise FlyrtError(12, "argument %d (%s) is %s, got %s"
                                 % (i, ai.name, _TYPE_NAMES[t], type(v).__name__))
            if t == F32:
                a.size, a.v.f32 = 4, float(v)
            else:
                a.size = 2
                a.v.bits16 = _f16_bits(float(v)) if t == F16 else _bf16_bits(float(v))
        else:
            raise FlyrtError(12, "argument %d (%s) has an unsupported type" % (i, ai.name))

    def _marshal_into(self, arr, args, infos, post, keep):
        dev = self.mod.dev
        # scalars first: a host tensor's staging asks for its declared layout, which may
        # use scalars that come after it
        for i, (v, ai) in enumerate(zip(args, infos)):
            if ai.type_code == PTR:
                arr[i].type, arr[i].size = PTR, 8
            else:
                self._scalar_into(arr[i], v, i, ai, keep)
        for i, (v, ai) in enumerate(zip(args, infos)):
            a = arr[i]
            if ai.type_code != PTR:
                continue
            if isinstance(v, DeviceBuffer):
                a.v.ptr = v.ptr
            elif isinstance(v, int) and not isinstance(v, bool):
                a.v.ptr = v
            elif hasattr(v, "__dlpack__") and self._dlpack_arg(arr, a, v, i, ai, post, keep):
                pass
            elif hasattr(v, "data_ptr"):   # e.g. a tensor that cannot export DLPack
                a.v.ptr = int(v.data_ptr())
            else:
                try:
                    mv = memoryview(v)
                    fmt = mv.format.lstrip("@=<>!")
                    mv = mv.cast("B")
                except TypeError:
                    raise FlyrtError(12, "argument %d (%s) needs a pointer: a DeviceBuffer, "
                                     "an address, a tensor or a contiguous Python buffer, got %s"
                                     % (i, ai.name, type(v).__name__)) from None
                d = dev.upload(mv)
                # a buffer of known size (and, for float formats, element type)
                a.type, a.size = TENSOR, 8
                a.v.tensor = _tensor_desc(d.ptr, _FORMAT_DTYPES.get(fmt), None, None,
                                          (d.ptr, len(mv)), keep)
                post.append(_copy_back(dev, d, None if mv.readonly else mv))

    def check(self, *args, grid=None, block=None, any_grid=False):
        """None if a launch with these arguments would be accepted, else the FlyrtError."""
        cargs, post = self._marshal(args)
        st = _check(self._h, _config(grid, block, any_grid), cargs, len(args), None)
        err = None
        if st != SUCCESS:
            detail = _last_error().decode(errors="replace")
            err = (Unsupported if st == UNSUPPORTED else FlyrtError)(st, detail)
        _finish(post, False)   # no copy-back for a check
        return err

    def __call__(self, *args, grid=None, block=None, any_grid=False):
        """Launch; host buffers passed as pointers are copied back after it. block= must be
        the kernel's block; grid= its grid formula's, unless any_grid=True."""
        cargs, post = self._marshal(args)
        st = _launch(self._h, _config(grid, block, any_grid), cargs, len(args))
        _finish(post, st == SUCCESS)
        _check_status(st)


class _TuningRow(ctypes.Structure):
    _fields_ = [(f, ctypes.c_char_p) for f in ("arch", "family", "dtypes", "layout", "bucket",
                                               "variants", "times_us", "flyc_version",
                                               "codeobj_hash")]


class Tuning:
    """A tuning database (SQLite; docs/runtime.md): Tuning(path=...) reads one, Tuning(rows=...)
    builds one in memory from dicts with the row fields (family and variants required;
    variants a list or a space-separated string; arch default "*", bucket default "*")."""

    def __init__(self, path=None, rows=None):
        if (path is None) == (rows is None):
            raise ValueError("give path or rows")
        h = _vp()
        if path is not None:
            _check_status(_tuning_load(os.fsencode(path), ctypes.byref(h)))
            self._h = h
            return
        _check_status(_tuning_new(ctypes.byref(h)))
        self._h = h
        for r in rows:
            v = r.get("variants", "")
            row = dict(arch="*", dtypes="", layout="", bucket="*", times_us="", flyc_version="",
                       codeobj_hash="")
            row.update(r)
            row["variants"] = v if isinstance(v, str) else " ".join(v)
            c = _TuningRow(*(str(row[f]).encode() for f, _ in _TuningRow._fields_))
            _check_status(_tuning_add(self._h, ctypes.byref(c)))

    def save(self, path):
        _check_status(_tuning_save(self._h, os.fsencode(path)))

    def variant_names(self, family):
        """Every variant the database names for family, in its order."""
        n = _tuning_variants(self._h, family.encode(), None, 0)
        if n <= 0:
            return []
        arr = (_cp * n)()
        _tuning_variants(self._h, family.encode(), arr, n)
        return [x.decode() for x in arr]

    def __del__(self):
        if getattr(self, "_h", None):
            _tuning_destroy(self._h)
            self._h = None
