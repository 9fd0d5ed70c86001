"""flyc._lib: the ctypes binding of libflyrt's operator API (runtime/include/flyops.h).

The library is the one python/flyrt.py loads. Tensors (torch tensors, numpy arrays) are
described to C as DLPack DLTensors built here from their shape, strides, dtype, device
and data pointer; C checks everything (flyops.h), so this module only converts.
"""

import ctypes
import os
import threading

import flyrt

_lib = flyrt._lib
_P = ctypes.POINTER
_DLTensor, _DLDevice, _DLDataType = flyrt._DLTensor, flyrt._DLDevice, flyrt._DLDataType

SUCCESS, INVALID_VALUE, UNSUPPORTED = 0, 1, flyrt.UNSUPPORTED
KDL_CPU, KDL_CUDA, KDL_ROCM = 1, 2, 10
KDL_INT, KDL_UINT, KDL_FLOAT, KDL_BFLOAT, KDL_COMPLEX = 0, 1, 2, 4, 5


class Unsupported(flyrt.Unsupported):
    """No kernel of flyc's operator library computes this call (yet): fall back.
    .reason says why (also str(e))."""

    def __init__(self, reason):
        super().__init__(UNSUPPORTED, reason)
        self.reason = reason


class _Options(ctypes.Structure):
    _fields_ = [("device", ctypes.c_char_p), ("kernel_dir", ctypes.c_char_p),
                ("tuning_db", ctypes.c_char_p)]


class Exec(ctypes.Structure):
    _fields_ = [("stream", ctypes.c_void_p), ("plan_only", ctypes.c_int),
                ("variant", ctypes.c_char_p), ("chosen", ctypes.c_char * 64)]


_fnr = flyrt._fn      # (name, restype, *argtypes)


def _fn(name, *argtypes):
    """A flyops entry point returning a flyrt_status."""
    return _fnr(name, ctypes.c_int, *argtypes)


_T = _P(_DLTensor)
_vp, _E, _cp = ctypes.c_void_p, _P(Exec), ctypes.c_char_p
_create = _fn("flyops_create", _P(_Options), _P(_vp))
_destroy = _fnr("flyops_destroy", None, _vp)
_kernel_dir = _fnr("flyops_kernel_dir", _cp, _vp)
_tuning_path = _fnr("flyops_tuning_path", _cp, _vp)
_launches = _fnr("flyops_launches", ctypes.c_uint64, _vp)
_device = _fnr("flyops_device", _vp, _vp)
_dev_arch = _fnr("flyrt_device_arch", _cp, _vp)
_dev_name = _fnr("flyrt_device_name", _cp, _vp)
_variants = _fnr("flyops_variants", ctypes.c_int, ctypes.c_int, _cp, _P(_cp), ctypes.c_int)
_version = _fnr("flyrt_version", _cp)


class _TimingConfig(ctypes.Structure):
    _fields_ = [("device", ctypes.c_char_p), ("sample", ctypes.c_int), ("timing_only", ctypes.c_int)]


_set_timing = _fnr("flyrt_device_set_timing", ctypes.c_int, _vp, _P(_TimingConfig))
_last_timing_json = _fnr("flyrt_last_timing_json", ctypes.c_int, _vp, _cp, ctypes.c_size_t,
                         _P(ctypes.c_size_t))
NOT_FOUND = 10               # FLYRT_ERROR_NOT_FOUND
NEEDS_SIMULATOR = 19         # FLYRT_ERROR_NEEDS_SIMULATOR
_last_error = flyrt._last_error
_d, _i64, _int = ctypes.c_double, ctypes.c_int64, ctypes.c_int

# the operators, each with its C entry point and argument types (flyops.h)
OPS = {
    "mm": _fn("flyops_mm", _vp, _T, _T, _T, _T, _E),
    "grouped_mm": _fn("flyops_grouped_mm", _vp, _T, _T, _T, _T, _E),
    "scaled_mm": _fn("flyops_scaled_mm", _vp, _T, _T, _T, _T, _int, _T, _T, _E),
    "rms_norm": _fn("flyops_rms_norm", _vp, _T, _T, _d, _T, _T, _T, _T, _E),
    "rms_norm_backward": _fn("flyops_rms_norm_backward", _vp, _T, _T, _T, _T, _T, _T, _E),
    "topk": _fn("flyops_topk", _vp, _T, _i64, _int, _int, _T, _T, _E),
    "attention": _fn("flyops_attention", _vp, _T, _T, _T, _int, _d, _T, _T, _E),
    "attention_backward": _fn("flyops_attention_backward", _vp, _T, _T, _T, _T, _T, _T, _int, _d,
                              _T, _T, _T, _E),
}
OP_INDEX = {name: i for i, name in enumerate(OPS)}   # flyops_op order (FLYOPS_OPS)

version = _version().decode()


# ---- the context -----------------------------------------------------------------------

class Context:
    """A libflyrt operator context: one device, the kernel library, the tuning database."""

    def __init__(self, device=None, kernel_dir=None, tuning_db=None):
        o = _Options(device.encode() if device else None,
                     os.fsencode(kernel_dir) if kernel_dir else None,
                     None if tuning_db is None else os.fsencode(tuning_db))
        h = _vp()
        st = _create(ctypes.byref(o), ctypes.byref(h))
        if st != SUCCESS:
            raise flyrt.FlyrtError(st, _last_error().decode(errors="replace"))
        self.h = h

    def close(self):
        if getattr(self, "h", None):
            _destroy(self.h)
            self.h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def arch(self):
        return _dev_arch(_device(self.h)).decode()

    @property
    def device_name(self):
        return _dev_name(_device(self.h)).decode()

    @property
    def launches(self):
        """Kernels launched through this context so far."""
        return _launches(self.h)

    @property
    def kernel_dir(self):
        return _kernel_dir(self.h).decode()

    @property
    def tuning_db(self):
        return _tuning_path(self.h).decode()


_ctx = None
_ctx_lock = threading.Lock()
_settings = {}


def context():
    """The process's operator context, created on first use (FLY_DEVICE, FLYC_KERNEL_DIR
    and FLYC_TUNING_DB apply unless configure() said otherwise)."""
    global _ctx
    with _ctx_lock:
        if _ctx is None:
            _ctx = Context(**_settings)
        return _ctx


def configure(device=None, kernel_dir=None, tuning_db=None):
    """Replace the operator context: device ("auto", "sim", "hip", "hip:N"; FLY_DEVICE
    still overrides), kernel library folder, tuning database path ("" none)."""
    global _ctx
    new = Context(device, kernel_dir, tuning_db)
    with _ctx_lock:
        old, _ctx = _ctx, new
        _settings.clear()
        _settings.update(device=device, kernel_dir=kernel_dir, tuning_db=tuning_db)
    if old is not None:
        old.close()
    return new


def variants(op, arch):
    """The variants of an operator for an arch in default order (flyops_variants)."""
    n = _variants(OP_INDEX[op], arch.encode(), None, 0)
    arr = (ctypes.c_char_p * max(n, 1))()
    _variants(OP_INDEX[op], arch.encode(), arr, n)
    return [arr[i].decode() for i in range(n)]


# ---- tensors ---------------------------------------------------------------------------

def _torch():
    import torch
    return torch


_NP_DTYPES = {"float16": (KDL_FLOAT, 16), "float32": (KDL_FLOAT, 32), "float64": (KDL_FLOAT, 64),
              "uint8": (KDL_UINT, 8), "int8": (KDL_INT, 8), "int16": (KDL_INT, 16),
              "int32": (KDL_INT, 32), "int64": (KDL_INT, 64)}


def torch_dtypes():
    torch = _torch()
    return {torch.float32: (KDL_FLOAT, 32), torch.float16: (KDL_FLOAT, 16),
            torch.bfloat16: (KDL_BFLOAT, 16), torch.float64: (KDL_FLOAT, 64),
            torch.uint8: (KDL_UINT, 8), torch.int8: (KDL_INT, 8), torch.int16: (KDL_INT, 16),
            torch.int32: (KDL_INT, 32), torch.int64: (KDL_INT, 64),
            torch.complex64: (KDL_COMPLEX, 64), torch.complex128: (KDL_COMPLEX, 128)}


def is_numpy(x):
    return type(x).__module__ == "numpy" and type(x).__name__ == "ndarray"


def is_torch(x):
    if "torch" not in __import__("sys").modules:
        return False
    return isinstance(x, _torch().Tensor)


class Desc:
    """A DLTensor for one operand, with what must stay alive while C reads it."""

    def __init__(self, shape, strides, code, bits, dev_type, dev_id, ptr, keep=None):
        n = len(shape)
        self.shape = (ctypes.c_int64 * max(n, 1))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * max(n, 1))(*strides)
        self.dl = _DLTensor(ptr or None, _DLDevice(dev_type, dev_id), n, _DLDataType(code, bits, 1),
                            self.shape, self.strides, 0)
        self.keep = keep

    @property
    def ref(self):
        return ctypes.byref(self.dl)


def describe(x, name):
    """A Desc of a torch tensor or numpy array (Unsupported for what DLPack cannot say)."""
    if is_torch(x):
        torch = _torch()
        if x.layout != torch.strided:
            raise Unsupported("%s: a %s tensor (flyc takes strided tensors)" % (name, x.layout))
        if x.is_quantized:
            raise Unsupported("%s: a quantized tensor" % name)
        if x.device.type == "meta":
            raise Unsupported("%s: a meta tensor has no data" % name)
        if x.is_conj():
            x = x.resolve_conj()
        if x.is_neg():
            x = x.resolve_neg()   # a negative-bit view: the stored values are not the values
        code = torch_dtypes().get(x.dtype)
        if code is None:
            raise Unsupported("%s: dtype %s" % (name, x.dtype))
        if x.device.type == "cpu":
            dev, idx = KDL_CPU, 0
        elif x.device.type == "cuda":
            dev, idx = (KDL_ROCM if torch.version.hip else KDL_CUDA), x.device.index or 0
        else:
            raise Unsupported("%s: a tensor on device %s" % (name, x.device))
        ptr = x.data_ptr() if x.numel() else 0
        return Desc(tuple(x.shape), x.stride(), code[0], code[1], dev, idx, ptr, keep=x)
    if is_numpy(x):
        code = _NP_DTYPES.get(x.dtype.name)
        if code is None or not x.dtype.isnative:
            raise Unsupported("%s: numpy dtype %s" % (name, x.dtype.str))
        item = x.dtype.itemsize
        if any(s % item for s in x.strides):
            raise Unsupported("%s: numpy strides %s are not multiples of the element size"
                              % (name, x.strides))
        ptr = x.ctypes.data if x.size else 0
        return Desc(x.shape, [s // item for s in x.strides], code[0], code[1], KDL_CPU, 0, ptr,
                    keep=x)
    raise TypeError("%s: expected a torch tensor or a numpy array, got %s" % (name, type(x).__name__))


def describe_new(shape, dtype, like, name):
    """A Desc of an output to be allocated (data NULL: a plan reads only its shape)."""
    code = dtype_code(dtype, like, name)
    dev, idx = KDL_CPU, 0
    if is_torch(like) and like.device.type == "cuda":
        dev, idx = (KDL_ROCM if _torch().version.hip else KDL_CUDA), like.device.index or 0
    return Desc(tuple(shape), None, code[0], code[1], dev, idx, 0)


def dtype_code(dtype, like, name):
    if is_torch(like):
        code = torch_dtypes().get(dtype)
    else:
        import numpy
        try:
            code = _NP_DTYPES.get(numpy.dtype(dtype).name)
        except TypeError:
            code = None
    if code is None:
        raise Unsupported("%s: dtype %s" % (name, dtype))
    return code


def empty(shape, dtype, like):
    """A new compact output on like's device (a tensor for tensors, an array for arrays)."""
    if is_torch(like):
        return _torch().empty(tuple(shape), dtype=dtype, device=like.device)
    import numpy
    return numpy.empty(tuple(shape), dtype=dtype)


def stream_of(tensors):
    """The current HIP stream of ROCm tensors (None on CPU and on the default stream)."""
    for t in tensors:
        if is_torch(t) and t.device.type == "cuda":
            s = _torch().cuda.current_stream(t.device).cuda_stream
            return s or None
    return None


def call(op, args, plan=False, variant=None, stream=None):
    """Run the C entry point of op; returns the variant chosen ('' = no kernel needed).
    Raises Unsupported, ValueError (malformed call) or flyrt.FlyrtError."""
    ex = Exec(stream, 1 if plan else 0, variant.encode() if variant else None, b"")
    cargs = [context().h] + [a.ref if isinstance(a, Desc) else a for a in args] + [ctypes.byref(ex)]
    st = OPS[op](*cargs)
    if st == SUCCESS:
        return ex.chosen.decode()
    msg = _last_error().decode(errors="replace")
    if st == UNSUPPORTED:
        raise Unsupported(msg)
    if st == INVALID_VALUE:
        raise ValueError(msg)
    raise flyrt.FlyrtError(st, msg)


# ---- timing (the simulator's timing model; flyrt.h "timing") ----------------------------

def set_timing(on, device=None, sample=0, timing_only=False):
    """Turn the timing model on (or off) for every later launch of the context's device;
    resets the record. flyrt.FlyrtError NEEDS_SIMULATOR on a HIP device, INVALID_VALUE for
    a bad row or sample."""
    if isinstance(sample, bool) or not isinstance(sample, int):
        raise TypeError("timing: sample must be an int, got %s" % type(sample).__name__)
    cfg = _TimingConfig(device.encode() if device else None, sample, 1 if timing_only else 0)
    st = _set_timing(_device(context().h), ctypes.byref(cfg) if on else None)
    if st != SUCCESS:
        msg = _last_error().decode(errors="replace")
        if st == INVALID_VALUE:
            raise ValueError(msg)
        raise flyrt.FlyrtError(st, msg)


def last_timing():
    """The last timed launch as a dict (the keys of flyc-sim --timing's JSON, plus kernel,
    total_launches, total_cycles, total_us), or None when nothing has been timed."""
    import json
    dev = _device(context().h)
    need = ctypes.c_size_t(0)
    buf = ctypes.create_string_buffer(4096)
    st = _last_timing_json(dev, buf, len(buf), ctypes.byref(need))
    if st == INVALID_VALUE and need.value >= len(buf):
        buf = ctypes.create_string_buffer(need.value + 1)
        st = _last_timing_json(dev, buf, len(buf), ctypes.byref(need))
    if st == NOT_FOUND:
        return None
    if st != SUCCESS:
        raise flyrt.FlyrtError(st, _last_error().decode(errors="replace"))
    return json.loads(buf.value.decode())
