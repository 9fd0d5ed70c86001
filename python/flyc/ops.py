"""flyc.ops: PyTorch's operators on flyc's kernel library (docs/ops.md).

Arguments are torch tensors (numpy arrays where numpy has the dtype). CPU tensors run on
the simulator (or, with FLY_DEVICE=hip, are staged to the GPU); ROCm tensors run through
HIP. A call returns the right answer or raises flyc.Unsupported (no kernel computes this
call: fall back), ValueError (a malformed call, as torch would refuse it) or TypeError
(an argument of the wrong kind). Every check is done by libflyrt's operator API
(flyops.h); this module converts, allocates outputs and reports.

    import torch, flyc
    a = torch.randn(256, 128, dtype=torch.bfloat16)
    b = torch.randn(256, 128, dtype=torch.bfloat16).t()      # NT: b is [K, N], stride(0) == 1
    c = flyc.ops.mm(a, b)                                      # gemm_nt_128x128 on the simulator
    ok, why = flyc.ops.supported("mm", a, b.contiguous())      # (False, "... layout NN ...")
"""

import contextlib
import math
import threading

from . import _lib
from ._lib import Unsupported, describe, describe_new, empty, is_numpy, is_torch

__all__ = ["mm", "grouped_mm", "scaled_mm", "rms_norm", "rms_norm_backward", "topk", "attention",
           "attention_backward", "supported", "plan", "using_variant", "variants", "timing",
           "last_timing", "Unsupported"]

_tls = threading.local()


def _check_tensors(op, named):
    """All given operands are torch tensors on one device, or all numpy arrays."""
    given = [(n, t) for n, t in named if t is not None]
    for n, t in given:
        if not (is_torch(t) or is_numpy(t)):
            raise TypeError("%s: %s must be a torch tensor or a numpy array, got %s"
                            % (op, n, type(t).__name__))
    kinds = {is_torch(t) for _, t in given}
    if not given:
        return
    if len(kinds) > 1:
        raise TypeError("%s: mixes torch tensors and numpy arrays" % op)
    if is_torch(given[0][1]):
        devs = {str(t.device) for _, t in given}
        if len(devs) > 1:
            raise ValueError("%s: expected all tensors on one device, got %s"
                             % (op, ", ".join("%s on %s" % (n, t.device) for n, t in given)))


def _desc(t, name):
    return None if t is None else describe(t, name)


def _exec(op, ins, outs, args, result, like):
    """ins: [(name, tensor or None)]; outs: [(name, given tensor or None, shape, dtype)];
    args(in_descs, out_descs) -> the C call's arguments; result(out tensors) -> value."""
    _check_tensors(op, ins + [(n, t) for n, t, _, _ in outs])
    din = {n: _desc(t, n) for n, t in ins}
    stream = _lib.stream_of([t for _, t in ins])
    variant = getattr(_tls, "variant", None)
    dplan = [describe(t, n) if t is not None else
             (None if shape is None else describe_new(shape, dt, like, n)) for n, t, shape, dt in outs]
    chosen = _lib.call(op, args(din, dplan), plan=True, variant=variant, stream=stream)
    if getattr(_tls, "plan", False):
        return chosen
    tensors = [t if t is not None else (None if shape is None else empty(shape, dt, like))
               for n, t, shape, dt in outs]
    dout = [None if t is None else describe(t, o[0]) for t, o in zip(tensors, outs)]
    _lib.call(op, args(din, dout), plan=False, variant=variant, stream=stream)
    return result(tensors)


def _shape(t):
    return tuple(t.shape) if t is not None and hasattr(t, "shape") else ()


def _dtype_of(op, out, out_dtype, default):
    if out is not None and out_dtype is not None and out.dtype != out_dtype:
        raise ValueError("%s: out is %s but out_dtype is %s" % (op, out.dtype, out_dtype))
    return out.dtype if out is not None else out_dtype if out_dtype is not None else default


def _float_or_nan(op, name, x):
    if x is None:
        return math.nan
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError("%s: %s must be a number or None, got %s" % (op, name, type(x).__name__))
    return float(x)


def mm(a, b, *, bias=None, out_dtype=None, out=None):
    """out[M, N] = a[M, K] @ b[K, N] (+ bias[N]), f32 accumulation. Layout by strides (a is
    N when a.stride(1) == 1, T when a.stride(0) == 1; likewise b); out_dtype: a's dtype
    (default) or float32."""
    sa, sb = _shape(a), _shape(b)
    dt = _dtype_of("mm", out, out_dtype, getattr(a, "dtype", None))
    shape = (sa[0] if sa else 0, sb[-1] if sb else 0)
    return _exec("mm", [("a", a), ("b", b), ("bias", bias)], [("out", out, shape, dt)],
                 lambda i, o: [i["a"], i["b"], i["bias"], o[0]], lambda o: o[0], a)


def grouped_mm(a, b, offs, *, out=None):
    """out[sum M_g, N]: rows offs[g-1]:offs[g] of a times b[g] (offs int32 cumulative ends)."""
    sa, sb = _shape(a), _shape(b)
    shape = (sa[0] if sa else 0, sb[-1] if sb else 0)
    return _exec("grouped_mm", [("a", a), ("b", b), ("offs", offs)],
                 [("out", out, shape, getattr(a, "dtype", None))],
                 lambda i, o: [i["a"], i["b"], i["offs"], o[0]], lambda o: o[0], a)


_FORMATS = {"mxfp8": 1, "mxfp4": 2}


def scaled_mm(a, b, scale_a, scale_b, *, format, out_dtype=None, bias=None, out=None):
    """MX block-scaled GEMM (docs/ops.md): format "mxfp8" (a u8 e4m3 [M, K], b u8 [N, K]) or
    "mxfp4" (a u8 [M, K/2], b u8 [N, K/2], element 2j in the low nibble); scales u8 E8M0
    [M, K/32], [N, K/32]; out_dtype default torch.bfloat16."""
    if format not in _FORMATS:
        raise ValueError("scaled_mm: format %r (expected 'mxfp8' or 'mxfp4')" % (format,))
    if out_dtype is None and out is None and is_torch(a):
        import torch
        out_dtype = torch.bfloat16
    elif out_dtype is None and out is None:
        raise TypeError("scaled_mm: numpy operands need out_dtype (numpy has no bfloat16)")
    sa, sb = _shape(a), _shape(b)
    dt = _dtype_of("scaled_mm", out, out_dtype, None)
    shape = (sa[0] if sa else 0, sb[0] if sb else 0)
    return _exec("scaled_mm", [("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b),
                               ("bias", bias)], [("out", out, shape, dt)],
                 lambda i, o: [i["a"], i["b"], i["scale_a"], i["scale_b"], _FORMATS[format],
                               i["bias"], o[0]], lambda o: o[0], a)


def _outs(op, out, names):
    """The given output tensors of an out= tuple (None: all allocated)."""
    if out is None:
        return [None] * len(names)
    if not isinstance(out, (tuple, list)) or len(out) != len(names):
        raise TypeError("%s: out must be a tuple (%s)" % (op, ", ".join(names)))
    return list(out)


def rms_norm(x, weight, eps=None, *, residual=None, out=None):
    """(y, rstd) with y = x * rstd * weight over the last dim, rstd = 1/sqrt(mean(x^2) + eps)
    (f32, [..., 1]); eps None = float32 eps; weight may be None. With residual:
    (y, rstd, h), h = x + residual (x's dtype) normalised instead of x. out: the output
    tensors to write, (y, rstd) or (y, rstd, h)."""
    e = _float_or_nan("rms_norm", "eps", eps)
    sx = _shape(x)
    dt = getattr(x, "dtype", None)
    rdt = _f32_like(x)
    given = _outs("rms_norm", out, ("y", "rstd") if residual is None else ("y", "rstd", "h"))
    given += [None] * (3 - len(given))
    outs = [("y", given[0], sx, dt), ("rstd", given[1], sx[:-1] + (1,), rdt),
            ("h", given[2], sx if residual is not None else None, dt)]
    return _exec("rms_norm", [("x", x), ("weight", weight), ("residual", residual)], outs,
                 lambda i, o: [i["x"], i["weight"], e, i["residual"], o[0], o[1], o[2]],
                 lambda o: (o[0], o[1]) if residual is None else (o[0], o[1], o[2]), x)


def rms_norm_backward(grad_y, x, weight, rstd, *, out=None):
    """(grad_x, grad_weight) of rms_norm (grad_weight None when weight is None). out: the
    output tensors to write, (grad_x, grad_weight or None)."""
    sx = _shape(x)
    given = _outs("rms_norm_backward", out, ("grad_x", "grad_weight"))
    if weight is None and given[1] is not None:
        raise ValueError("rms_norm_backward: grad_weight is written exactly when weight is given")
    outs = [("grad_x", given[0], sx, getattr(x, "dtype", None)),
            ("grad_weight", given[1], _shape(weight) if weight is not None else None,
             getattr(weight, "dtype", None))]
    return _exec("rms_norm_backward", [("grad_y", grad_y), ("x", x), ("weight", weight),
                                       ("rstd", rstd)], outs,
                 lambda i, o: [i["grad_y"], i["x"], i["weight"], i["rstd"], o[0], o[1]],
                 lambda o: (o[0], o[1]), x)


def topk(x, k, dim=-1, largest=True, sorted=True, *, out=None):
    """(values, indices int64) of the k largest along dim (torch.topk's arguments); NaN is
    largest; equal values by ascending index; always sorted (also for sorted=False).
    Another dim than the last is served by moving it last (the operator stages the
    strided view). out: (values, indices) to write, like torch.topk(..., out=)."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError("topk: k must be an int, got %s" % type(k).__name__)
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError("topk: dim must be an int, got %s" % type(dim).__name__)
    sx = _shape(x)
    nd = max(len(sx), 1)
    if not -nd <= dim < nd:
        raise ValueError("topk: dim %d is out of range for a %d-d x" % (dim, len(sx)))
    d = dim % nd
    given = _outs("topk", out, ("values", "indices"))
    if sx and d != len(sx) - 1:
        def last(t):
            if t is None:
                return None
            if is_torch(t):
                return t.movedim(d, -1) if t.dim() == len(sx) else t
            import numpy as np
            return np.moveaxis(t, d, -1) if t.ndim == len(sx) else t

        def back(t):
            if is_torch(t):
                return t.movedim(-1, d)
            import numpy as np
            return np.moveaxis(t, -1, d)
        v, i = topk(last(x), k, -1, largest, sorted, out=None if out is None else
                    (last(given[0]), last(given[1])))
        return (given[0], given[1]) if out is not None else (back(v), back(i))
    shape = sx[:-1] + (max(k, 0),) if sx else (max(k, 0),)
    outs = [("values", given[0], shape, getattr(x, "dtype", None)),
            ("indices", given[1], shape, _i64_like(x))]
    return _exec("topk", [("x", x)], outs,
                 lambda i, o: [i["x"], k, 1 if largest else 0, 1 if sorted else 0, o[0], o[1]],
                 lambda o: (o[0], o[1]), x)


def attention(q, k, v, *, causal=False, scale=None, return_lse=False):
    """softmax(q k^T * scale (+ causal mask)) v; q [B, Hq, Sq, D], k [B, Hkv, Sk, D],
    v [B, Hkv, Sk, Dv], Hq % Hkv == 0; scale None = 1/sqrt(D); causal: key j visible to
    query i iff j <= i. return_lse: (out, lse f32 [B, Hq, Sq], natural log)."""
    s = _float_or_nan("attention", "scale", scale)
    sq, sv = _shape(q), _shape(v)
    out_shape = sq[:3] + sv[3:4] if len(sq) == 4 and len(sv) == 4 else sq
    outs = [("out", None, out_shape, getattr(q, "dtype", None)),
            ("lse", None, sq[:3] if return_lse else None, _f32_like(q))]
    return _exec("attention", [("q", q), ("k", k), ("v", v)], outs,
                 lambda i, o: [i["q"], i["k"], i["v"], 1 if causal else 0, s, o[0], o[1]],
                 lambda o: (o[0], o[1]) if return_lse else o[0], q)


def attention_backward(grad_out, q, k, v, out, lse, *, causal=False, scale=None, grads=None):
    """(dq, dk, dv) of attention; grads: (dq, dk, dv) tensors to write them to (else new)."""
    s = _float_or_nan("attention_backward", "scale", scale)
    given = tuple(grads) if grads is not None else (None, None, None)
    if len(given) != 3:
        raise ValueError("attention_backward: grads must be (dq, dk, dv)")
    outs = [(n, g, _shape(t), getattr(t, "dtype", None))
            for (n, t), g in zip((("dq", q), ("dk", k), ("dv", v)), given)]
    return _exec("attention_backward", [("grad_out", grad_out), ("q", q), ("k", k), ("v", v),
                                        ("out", out), ("lse", lse)], outs,
                 lambda i, o: [i["grad_out"], i["q"], i["k"], i["v"], i["out"], i["lse"],
                               1 if causal else 0, s, o[0], o[1], o[2]],
                 lambda o: (o[0], o[1], o[2]), q)


def _f32_like(x):
    if is_torch(x):
        import torch
        return torch.float32
    return "float32"


def _i64_like(x):
    if is_torch(x):
        import torch
        return torch.int64
    return "int64"


_OPS = {f.__name__: f for f in (mm, grouped_mm, scaled_mm, rms_norm, rms_norm_backward, topk,
                                attention, attention_backward)}


def plan(name, *args, **kwargs):
    """The variant a call would run ('' when it needs no kernel), launching nothing;
    raises as the call would."""
    if name not in _OPS:
        raise ValueError("no operator %r (flyc.ops has %s)" % (name, ", ".join(_OPS)))
    _tls.plan = True
    try:
        return _OPS[name](*args, **kwargs)
    finally:
        _tls.plan = False


def supported(name, *args, **kwargs):
    """(True, "variant NAME" or "no kernel needed") when flyc.ops.NAME computes this call,
    else (False, reason). Launches nothing and writes nothing."""
    try:
        chosen = plan(name, *args, **kwargs)
    except ValueError as e:
        if name not in _OPS:
            raise
        return False, str(e)
    except _lib.flyrt.FlyrtError as e:
        return False, e.detail or str(e)
    except TypeError as e:
        return False, str(e)
    return True, ("variant " + chosen) if chosen else "no kernel needed"


@contextlib.contextmanager
def using_variant(name):
    """Within the block, calls on this thread run exactly variant `name` (for tests and
    benchmarks; a call it cannot serve raises Unsupported)."""
    prev = getattr(_tls, "variant", None)
    _tls.variant = name
    try:
        yield
    finally:
        _tls.variant = prev


def variants(name, arch=None):
    """The variants of operator `name` for arch (default: the device's), default order."""
    return _lib.variants(name, arch or _lib.context().arch)


class Timing(dict):
    """What flyc.ops.timing() yields: empty inside the block, then the modelled cost of
    the block's launches: the keys of flyc-sim --timing's JSON for the last launch
    (device, cycles, us, mfma_busy, valu_busy, lds_bank_conflict_cycles, hbm_bytes,
    workgroups, sampled_workgroups, stalls, ...), its kernel, and total_launches,
    total_cycles, total_us over every launch of the block. total_launches is 0 (and no
    other key is set) when the block launched nothing."""


@contextlib.contextmanager
def timing(device=None, sample=0, timing_only=False):
    """Within the block, every launch on the operator context's simulated device is timed
    by the simulator's timing model (docs/simulator.md "Timing model"):

        with flyc.ops.timing() as t:          # device="mi355x" (default), "mi350x"
            y, rstd = flyc.ops.rms_norm(x, w)
        print(t["us"], t["cycles"], t["hbm_bytes"])

    sample: workgroups timed in full and extrapolated (0: the default); timing_only: run
    only those (the outputs are then incomplete: for ranking and benchmarks). Timing is off
    after the block. flyrt.FlyrtError (FLYRT_ERROR_NEEDS_SIMULATOR) on a HIP device;
    ValueError for an unknown device row or a negative sample."""
    res = Timing()
    _lib.set_timing(True, device, sample, timing_only)
    try:
        yield res
        got = _lib.last_timing()
        res.update(got if got is not None else {"total_launches": 0})
    finally:
        _lib.set_timing(False)


def last_timing():
    """The last timed launch on the operator context's device (timing turned on by
    flyc.ops.timing or FLY_SIM_TIMING), as timing() reports it; None when none."""
    return _lib.last_timing()
