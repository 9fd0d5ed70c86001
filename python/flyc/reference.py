"""flyc.reference: every flyc.ops operator written with plain torch operations.

These define the operators' semantics (docs/ops.md) and are what torch.ops.flyc.* run
when flyc's kernels decline a call. They compute in float32 (float64 for float64
inputs; GEMMs accumulate in float64) and round once to the output dtype.
"""

import math

import torch

# e4m3 (fn: no infinities, S.1111.111 is NaN) and e2m1 code points, OCP MX v1.0
def _e4m3_table():
    vals = []
    for c in range(256):
        s, e, m = c >> 7, (c >> 3) & 15, c & 7
        if e == 15 and m == 7:
            v = math.nan
        elif e == 0:
            v = m / 8 * 2.0 ** -6
        else:
            v = (1 + m / 8) * 2.0 ** (e - 7)
        vals.append(-v if s else v)
    return torch.tensor(vals, dtype=torch.float64)


_E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
_FP4 = torch.tensor(_E2M1 + [-x for x in _E2M1], dtype=torch.float64)
_FP8 = _e4m3_table()


def _acc(dtype):
    return torch.float64 if dtype == torch.float64 else torch.float32


def mm(a, b, bias=None, out_dtype=None):
    c = a.double() @ b.double()
    if bias is not None:
        c = c + bias.double()
    return c.to(out_dtype or a.dtype)


def grouped_mm(a, b, offs):
    out = torch.zeros(a.shape[0], b.shape[2], dtype=torch.float64, device=a.device)
    start = 0
    for g, end in enumerate(offs.tolist()):
        out[start:end] = a[start:end].double() @ b[g].double()
        start = end
    return out.to(a.dtype)


def mx_decode(codes, scales, fmt):
    """Values of MX operand codes [R, K or K/2] with E8M0 scales [R, K/32], as float64."""
    if fmt == "mxfp4":
        lo, hi = (codes & 15).long(), (codes >> 4).long()
        v = torch.stack([_FP4.to(codes.device)[lo], _FP4.to(codes.device)[hi]], dim=-1)
        v = v.reshape(codes.shape[0], codes.shape[1] * 2)
    else:
        v = _FP8.to(codes.device)[codes.long()]
    e = scales.double()
    s = torch.where(scales == 255, torch.full_like(e, math.nan), torch.pow(2.0, e - 127))
    return v * s.repeat_interleave(32, dim=1)


def scaled_mm(a, b, scale_a, scale_b, fmt, out_dtype=torch.bfloat16, bias=None):
    c = mx_decode(a, scale_a, fmt) @ mx_decode(b, scale_b, fmt).t()
    if bias is not None:
        c = c + bias.double()
    return c.to(out_dtype)


def rms_norm(x, weight=None, eps=None, residual=None):
    """(y, rstd) or, with residual, (y, rstd, h)."""
    eps = torch.finfo(torch.float32).eps if eps is None else eps
    h = x + residual if residual is not None else x
    acc = _acc(x.dtype)
    hf = h.to(acc)
    rstd = torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps)
    y = hf * rstd
    if weight is not None:
        y = y * weight.to(acc)
    out = (y.to(x.dtype), rstd.float())
    return out + (h,) if residual is not None else out


def rms_norm_backward(grad_y, x, weight, rstd):
    acc = _acc(x.dtype)
    g, xf, r = grad_y.to(acc), x.to(acc), rstd.to(acc)
    n = x.shape[-1]
    gw = g * weight.to(acc) if weight is not None else g
    dot = (gw * xf).sum(-1, keepdim=True)
    gx = r * (gw - xf * r * r * dot / max(n, 1))
    gweight = None
    if weight is not None:
        gweight = (g * xf * r).reshape(-1, n).sum(0).to(weight.dtype)
    return gx.to(x.dtype), gweight


def topk(x, k, largest=True):
    """Sorted; NaN largest; equal values by ascending index (a stable sort)."""
    v, i = torch.sort(x, dim=-1, descending=largest, stable=True)
    return v[..., :k].contiguous(), i[..., :k].contiguous()


def _attn_scores(q, k, causal, scale):
    hq, hkv = q.shape[1], k.shape[1]
    acc = _acc(q.dtype)
    kk = k.to(acc).repeat_interleave(hq // hkv, dim=1) if hkv else k.to(acc)
    s = (q.to(acc) @ kk.transpose(-1, -2)) * scale
    if causal:
        sq, sk = q.shape[2], k.shape[2]
        mask = torch.ones(sq, sk, dtype=torch.bool, device=q.device).tril()
        s = s.masked_fill(~mask, -math.inf)
    return s


def attention(q, k, v, causal=False, scale=None):
    """(out, lse)."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    hq, hkv = q.shape[1], k.shape[1]
    acc = _acc(q.dtype)
    s = _attn_scores(q, k, causal, scale)
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0) if s.shape[-1] else s
    vv = v.to(acc).repeat_interleave(hq // hkv, dim=1) if hkv else v.to(acc)
    return (p @ vv).to(q.dtype), lse.float()


def attention_backward(grad_out, q, k, v, out, lse, causal=False, scale=None):
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    hq, hkv = q.shape[1], k.shape[1]
    g = hq // hkv if hkv else 1
    acc = _acc(q.dtype)
    s = _attn_scores(q, k, causal, scale)
    p = torch.exp(s - lse.to(acc).unsqueeze(-1)).nan_to_num(0.0)
    do, o = grad_out.to(acc), out.to(acc)
    kk = k.to(acc).repeat_interleave(g, dim=1)
    vv = v.to(acc).repeat_interleave(g, dim=1)
    dp = do @ vv.transpose(-1, -2)
    delta = (do * o).sum(-1, keepdim=True)
    ds = p * (dp - delta) * scale
    dq = ds @ kk
    dk = (ds.transpose(-1, -2) @ q.to(acc))
    dv = (p.transpose(-1, -2) @ do)
    b, sk = k.shape[0], k.shape[2]
    dk = dk.reshape(b, hkv, g, sk, k.shape[3]).sum(2)
    dv = dv.reshape(b, hkv, g, sk, v.shape[3]).sum(2)
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)
