"""flyc.torch: flyc's operators inside PyTorch (torch 1.13 and later).

    import flyc
    flyc.torch.enable()       # torch.mm, Tensor.mm, a @ b (2-D), torch.matmul (2-D), F.linear
    c = a @ b                 # without bias, torch.topk, F.rms_norm (torch >= 2.8's
                              # aten::_fused_rms_norm): flyc when the call qualifies, else ATen
    flyc.torch.stats()        # {"mm": {"taken": 1, "declined": 0}, ...}
    flyc.torch.disable()

The contract is PyTorch's torch._native one (docs/pytorch-ops.md §1.2): for each
overridden aten operator a cheap `cond` with the aten signature decides — flyc.ops
supports the call AND PyTorch's own gate for its FlyDSL backend holds (mm: Inductor's
validator, §1.5; topk and RMSNorm: the eager gates, §1.3) — and the call then runs flyc's `impl`;
otherwise it falls through to the ATen kernel untouched. Torch 1.13 has no torch._native,
and a torch.library override of aten::mm cannot call the ATen kernel it replaced, so
the override is a TorchDispatchMode (entered by enable(), left by disable(); modes are
per thread). Autograd works as usual: the mode sees the operators below autograd,
backward's matrix products included.

Operators torch 1.13 lacks are torch.ops.flyc.* (registered on import): rms_norm,
rms_norm_residual, rms_norm_backward, attention, attention_backward (rms_norm and
attention with autograd through their backward operators), scaled_mm, grouped_mm. Each
runs flyc.ops when it supports the call and flyc.reference otherwise; stats() counts
them too.
"""

import threading

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import _lib, ops, reference

__all__ = ["enable", "disable", "enabled", "is_enabled", "stats", "reset_stats", "mm_gate",
           "mm_cond", "topk_gate", "topk_cond", "rms_norm_gate", "rms_norm_cond"]

_stats = {}
_stats_lock = threading.Lock()
_state = threading.local()


def _count(op, taken):
    with _stats_lock:
        s = _stats.setdefault(op, {"taken": 0, "declined": 0})
        s["taken" if taken else "declined"] += 1


def stats():
    """{op: {"taken": n, "declined": n}} since the last reset_stats()."""
    with _stats_lock:
        return {k: dict(v) for k, v in _stats.items()}


def reset_stats():
    with _stats_lock:
        _stats.clear()


# ---- PyTorch's gates -------------------------------------------------------------------

_GPU_ALIGN = 16          # GPU_ALIGN_BYTES of torch/_inductor
_CUS = 256               # MI355X multi_processor_count (the topk gate's row minimum)


def _arch():
    try:
        return _lib.context().arch
    except Exception:
        return ""


def _fits_descriptor(rows, cols, row_stride, itemsize):
    """One buffer descriptor: extents and row stride below 2^31, the span below 2^32 bytes."""
    return (rows <= 2**31 - 1 and cols <= 2**31 - 1 and row_stride <= 2**31 - 1 and
            ((rows - 1) * row_stride + cols) * itemsize < 2**32)


def mm_gate(a, b, out=None):
    """PyTorch's gate for its FlyDSL mm (Inductor's get_flydsl_mm_template_kwargs, NT,
    docs/pytorch-ops.md §1.5): (bool, reason). Launches nothing."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return False, "operands are not tensors"
    if _arch() != "gfx950":
        return False, "flyc's device is not gfx950"
    if a.dim() != 2 or b.dim() != 2:
        return False, "not 2-D"
    if a.dtype != b.dtype or a.dtype not in (torch.float16, torch.bfloat16):
        return False, "dtypes %s, %s (fp16 or bf16, identical)" % (a.dtype, b.dtype)
    if out is not None and (out.dtype != a.dtype or out.dim() != 2 or out.stride(1) != 1):
        return False, "out is not a row-major matrix of the operands' dtype"
    if a.stride(1) != 1 or b.stride(0) != 1:
        return False, "not NT (a.stride(1) == 1 and b.stride(0) == 1)"
    m, k = a.shape
    n = b.shape[1]
    if m == 0 or n == 0 or k == 0:
        return False, "a zero size"
    if n % 32 or k % 32:
        return False, "N %% 32 or K %% 32 is not 0 (N = %d, K = %d)" % (n, k)
    item = a.element_size()
    for t, row_stride in ((a, a.stride(0)), (b, b.stride(1))) + (((out, out.stride(0)),) if out is not None else ()):
        if (t.storage_offset() * item) % _GPU_ALIGN or (row_stride * item) % _GPU_ALIGN:
            return False, "a storage offset or row stride not a multiple of 16 bytes"
    for rows, cols, rs in ((m, k, a.stride(0)), (n, k, b.stride(1)),
                           (m, n, out.stride(0) if out is not None else n)):
        if not _fits_descriptor(rows, cols, rs, item):
            return False, "an operand spans 4 GiB or more (one buffer descriptor)"
    return True, ""


def mm_cond(a, b, *, out=None):
    """torch._native cond for aten::mm: PyTorch's gate and flyc.ops.supported."""
    if not mm_gate(a, b, out)[0]:
        return False
    return ops.supported("mm", a, b, out=out)[0]


def rms_norm_gate(x, normalized_shape, weight=None, eps=None):
    """PyTorch's eager gate for its FlyDSL RMSNorm, aten::_fused_rms_norm (docs/pytorch-ops.md
    §1.3): (bool, reason). Launches nothing."""
    if not isinstance(x, torch.Tensor):
        return False, "not a tensor"
    if _arch() != "gfx950":
        return False, "flyc's device is not gfx950"
    if x.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        return False, "dtype %s (fp16, bf16 or fp32)" % x.dtype
    shape = list(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else [normalized_shape]
    if len(shape) != 1 or x.dim() < 1 or x.shape[-1] != shape[0]:
        return False, "not a 1-D normalized_shape over the last dim"
    if not x.is_contiguous() or x.numel() == 0:
        return False, "not a non-empty contiguous input"
    if not isinstance(weight, torch.Tensor):
        return False, "no weight (PyTorch's gate requires one)"
    if (weight.dim() != 1 or weight.shape[0] != shape[0] or weight.dtype != x.dtype or
            weight.device != x.device or not weight.is_contiguous()):
        return False, "the weight is not a contiguous [N] of x's dtype and device"
    if eps is not None and not eps >= 0:
        return False, "eps < 0"
    n = x.shape[-1]
    m = x.numel() // n
    if m * n * x.element_size() > 2**32 - 1 or m > 2**31 - 1 or n > 2**31 - 1:
        return False, "the input spans 4 GiB or more (one buffer descriptor)"
    if not ((4096 <= n < 8192 and m >= 8192) or (8192 <= n < 16384 and m >= 4096) or
            (16384 <= n <= 114688 and m >= 2048)):
        return False, "(M, N) = (%d, %d) is outside PyTorch's measured gate" % (m, n)
    return True, ""


def rms_norm_cond(x, normalized_shape, weight=None, eps=None):
    """torch._native cond for aten::_fused_rms_norm: PyTorch's gate and flyc.ops.supported."""
    if not rms_norm_gate(x, normalized_shape, weight, eps)[0]:
        return False
    return ops.supported("rms_norm", x, weight, eps)[0]


def topk_gate(x, k, dim=-1, largest=True, sorted=True):
    """PyTorch's eager gate for its FlyDSL topk (docs/pytorch-ops.md §1.3): (bool, reason)."""
    if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
        return False, "not an f32 tensor"
    if _arch() != "gfx950":
        return False, "flyc's device is not gfx950"
    if not (largest and sorted):
        return False, "only largest=True, sorted=True"
    if x.dim() < 1 or dim not in (-1, x.dim() - 1) or not x.is_contiguous() or x.numel() == 0:
        return False, "not the last dim of a non-empty contiguous tensor"
    n = x.shape[-1]
    m = x.numel() // n if n else 0
    if m < _CUS:
        return False, "fewer rows (%d) than CUs (%d)" % (m, _CUS)
    if m * n * 4 > 2**32 - 1 or m * k * 8 > 2**32 - 1:
        return False, "input or indices span 4 GiB or more"
    pow2 = n & (n - 1) == 0
    radix = ((64 <= k <= 256 and 8192 <= n <= 32768) or (257 <= k <= 383 and 16384 <= n <= 32768) or
             (384 <= k <= 831 and 32768 <= n <= 131072) or (832 <= k <= 1024 and 32768 <= n <= 262144))
    if not ((k in (2, 4, 8, 16) and pow2 and 1024 <= n <= 8192) or radix):
        return False, "(K, N) = (%d, %d) is outside the register and radix kernels' bands" % (k, n)
    return True, ""


def topk_cond(x, k, dim=-1, largest=True, sorted=True):
    if not topk_gate(x, k, dim, largest, sorted)[0]:
        return False
    return ops.supported("topk", x, k, dim, largest, sorted)[0]


# ---- the dispatch mode -------------------------------------------------------------------

def _mm_impl(a, b, *, out=None):
    return ops.mm(a, b, out=out)


def _rms_norm_impl(x, normalized_shape, weight=None, eps=None):
    return ops.rms_norm(x, weight, eps)


def _topk_impl(x, k, dim=-1, largest=True, sorted=True, *, values=None, indices=None):
    v, i = ops.topk(x, k, dim, largest, sorted)
    if values is not None:       # torch.topk(..., out=): resized to the result like ATen's
        values.resize_(v.shape).copy_(v)
        indices.resize_(i.shape).copy_(i)
        return values, indices
    return v, i


def _topk_values_cond(x, k, dim=-1, largest=True, sorted=True, *, values=None, indices=None):
    return topk_cond(x, k, dim, largest, sorted)


aten = torch.ops.aten
# aten overload -> (stats name, cond, impl), each with the overload's signature
_HANDLERS = {
    aten.mm.default: ("mm", mm_cond, _mm_impl),
    aten.mm.out: ("mm", mm_cond, _mm_impl),
    aten.topk.default: ("topk", topk_cond, _topk_impl),
    aten.topk.values: ("topk", _topk_values_cond, _topk_impl),
}
if hasattr(aten, "_fused_rms_norm"):     # torch >= 2.8: F.rms_norm's fused kernel
    _HANDLERS[aten._fused_rms_norm.default] = ("rms_norm", rms_norm_cond, _rms_norm_impl)


class _FlycMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        h = _HANDLERS.get(func)
        if h is None:
            return func(*args, **kwargs)
        name, cond, impl = h
        try:
            take = bool(cond(*args, **kwargs))
        except Exception:       # a cond that cannot decide declines (torch._native's rule)
            take = False
        if take:
            try:
                result = impl(*args, **kwargs)
            except _lib.Unsupported:
                take = False    # declined after all (e.g. the device changed): ATen
        _count(name, take)
        return result if take else func(*args, **kwargs)


def enable():
    """Route this thread's aten::mm and aten::topk calls through flyc (idempotent)."""
    if getattr(_state, "mode", None) is None:
        m = _FlycMode()
        m.__enter__()
        _state.mode = m


def disable():
    """Stop routing (idempotent). Modes nest: disable what you enabled, in order."""
    m = getattr(_state, "mode", None)
    if m is not None:
        _state.mode = None
        m.__exit__(None, None, None)


def is_enabled():
    return getattr(_state, "mode", None) is not None


class enabled:
    """with flyc.torch.enabled(): ... — enable() for the block."""

    def __enter__(self):
        self._was = is_enabled()
        enable()
        return self

    def __exit__(self, *exc):
        if not self._was:
            disable()


# ---- torch.ops.flyc --------------------------------------------------------------------

_LIB = torch.library.Library("flyc", "DEF")
_SCHEMAS = {
    "rms_norm": "rms_norm(Tensor x, Tensor? weight, float? eps=None) -> (Tensor, Tensor)",
    "rms_norm_residual": "rms_norm_residual(Tensor x, Tensor residual, Tensor? weight, "
                         "float? eps=None) -> (Tensor, Tensor, Tensor)",
    "rms_norm_backward": "rms_norm_backward(Tensor grad_y, Tensor x, Tensor? weight, Tensor rstd) "
                         "-> (Tensor, Tensor?)",
    "attention": "attention(Tensor q, Tensor k, Tensor v, bool causal=False, float? scale=None) "
                 "-> (Tensor, Tensor)",
    "attention_backward": "attention_backward(Tensor grad_out, Tensor q, Tensor k, Tensor v, "
                          "Tensor out, Tensor lse, bool causal=False, float? scale=None) "
                          "-> (Tensor, Tensor, Tensor)",
    "scaled_mm": "scaled_mm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, str format, "
                 "ScalarType? out_dtype=None, Tensor? bias=None) -> Tensor",
    "grouped_mm": "grouped_mm(Tensor a, Tensor b, Tensor offs) -> Tensor",
}


def _either(name, flyc_call, ref_call):
    """flyc when it supports the call, else the reference; counted in stats()."""
    try:
        result = flyc_call()
    except _lib.Unsupported:
        _count(name, False)
        return ref_call()
    _count(name, True)
    return result


def _k_rms_norm(x, weight, eps=None):
    return _either("rms_norm", lambda: ops.rms_norm(x, weight, eps),
                   lambda: reference.rms_norm(x, weight, eps))


def _k_rms_norm_residual(x, residual, weight, eps=None):
    return _either("rms_norm", lambda: ops.rms_norm(x, weight, eps, residual=residual),
                   lambda: reference.rms_norm(x, weight, eps, residual))


def _k_rms_norm_backward(grad_y, x, weight, rstd):
    return _either("rms_norm_backward", lambda: ops.rms_norm_backward(grad_y, x, weight, rstd),
                   lambda: reference.rms_norm_backward(grad_y, x, weight, rstd))


def _k_attention(q, k, v, causal=False, scale=None):
    return _either("attention", lambda: ops.attention(q, k, v, causal=causal, scale=scale,
                                                      return_lse=True),
                   lambda: reference.attention(q, k, v, causal, scale))


def _k_attention_backward(grad_out, q, k, v, out, lse, causal=False, scale=None):
    return _either("attention_backward",
                   lambda: ops.attention_backward(grad_out, q, k, v, out, lse, causal=causal,
                                                  scale=scale),
                   lambda: reference.attention_backward(grad_out, q, k, v, out, lse, causal, scale))


def _k_scaled_mm(a, b, scale_a, scale_b, format, out_dtype=None, bias=None):
    dt = out_dtype if out_dtype is not None else torch.bfloat16
    return _either("scaled_mm", lambda: ops.scaled_mm(a, b, scale_a, scale_b, format=format,
                                                      out_dtype=dt, bias=bias),
                   lambda: reference.scaled_mm(a, b, scale_a, scale_b, format, dt, bias))


def _k_grouped_mm(a, b, offs):
    return _either("grouped_mm", lambda: ops.grouped_mm(a, b, offs),
                   lambda: reference.grouped_mm(a, b, offs))


class _Below:
    """Run an operator below autograd (inside an autograd.Function)."""

    def __enter__(self):
        self._g = torch._C._AutoDispatchBelowAutograd()

    def __exit__(self, *exc):
        del self._g


class _RmsNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        with _Below():
            y, rstd = torch.ops.flyc.rms_norm(x, weight, eps)
        ctx.save_for_backward(x, weight, rstd)
        ctx.mark_non_differentiable(rstd)
        return y, rstd

    @staticmethod
    def backward(ctx, gy, grstd):
        x, weight, rstd = ctx.saved_tensors
        gx, gw = torch.ops.flyc.rms_norm_backward(gy.contiguous(), x, weight, rstd)
        return gx, gw, None


class _RmsNormResidualFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, residual, weight, eps):
        with _Below():
            y, rstd, h = torch.ops.flyc.rms_norm_residual(x, residual, weight, eps)
        ctx.save_for_backward(h, weight, rstd)
        ctx.mark_non_differentiable(rstd)
        return y, rstd, h

    @staticmethod
    def backward(ctx, gy, grstd, gh):
        h, weight, rstd = ctx.saved_tensors
        gx, gw = torch.ops.flyc.rms_norm_backward(gy.contiguous(), h, weight, rstd)
        g = gx + gh if gh is not None else gx
        return g, g, gw, None


class _AttentionFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal, scale):
        with _Below():
            out, lse = torch.ops.flyc.attention(q, k, v, causal, scale)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.causal, ctx.scale = causal, scale
        ctx.mark_non_differentiable(lse)
        return out, lse

    @staticmethod
    def backward(ctx, gout, glse):
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = torch.ops.flyc.attention_backward(gout.contiguous(), q, k, v, out, lse,
                                                       ctx.causal, ctx.scale)
        return dq, dk, dv, None, None


for _name, _schema in _SCHEMAS.items():
    _LIB.define(_schema)
    _k = globals()["_k_" + _name]
    for _key in ("CPU", "CUDA"):
        _LIB.impl(_name, _k, _key)
_LIB.impl("rms_norm", lambda x, weight, eps=None: _RmsNormFn.apply(x, weight, eps), "Autograd")
_LIB.impl("rms_norm_residual", lambda x, residual, weight, eps=None:
          _RmsNormResidualFn.apply(x, residual, weight, eps), "Autograd")
_LIB.impl("attention", lambda q, k, v, causal=False, scale=None:
          _AttentionFn.apply(q, k, v, causal, scale), "Autograd")
