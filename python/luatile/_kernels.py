"""The forward computations: argument checks, output allocation, launcher calls.

Each op has a checking function used by both the real implementation and
the fake (meta) one, so that torch.compile sees the same errors, shapes and
strides as eager.  Outputs are always fresh contiguous tensors (their strides
never depend on the inputs'); inputs the kernels cannot read as they are
(a last dim that is not contiguous, rows that are not packed) are copied
with .contiguous() first, so no layout gives a wrong result.
"""
import math

import torch

from . import _lib

DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32"}
ATTN_DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16"}
HEAD_DIMS = (32, 64, 96, 128, 256)
ACTIVATIONS = ("none", "relu", "gelu", "silu")
MAX_SIZE = (1 << 30) - 1   # every launcher takes sizes below 2^30
_PLAIN = (torch.Tensor, torch.nn.Parameter)


def _dtype_names(dtypes):
    return ", ".join(str(d).replace("torch.", "") for d in dtypes)


def check_tensor(op, name, t, dtypes, dim=None):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"luatile.{op}: {name} must be a torch.Tensor, not {type(t).__name__}")
    if t.dtype not in dtypes:
        raise TypeError(f"luatile.{op}: {name} has dtype {str(t.dtype).replace('torch.', '')}; "
                        f"the kernels take {_dtype_names(dtypes)}")
    if dim is not None and t.dim() != dim:
        raise ValueError(f"luatile.{op}: {name} must have {dim} dims, has shape {tuple(t.shape)}")
    if t.layout != torch.strided:
        raise ValueError(f"luatile.{op}: {name} must be a dense (strided) tensor, not {t.layout}")


def check_same(op, ref_name, ref, others):
    for name, t in others:
        if t.dtype != ref.dtype:
            raise TypeError(f"luatile.{op}: {name} has dtype {str(t.dtype).replace('torch.', '')}, "
                            f"{ref_name} {str(ref.dtype).replace('torch.', '')}: they must match")
        if t.device != ref.device:
            raise ValueError(f"luatile.{op}: {name} is on {t.device}, {ref_name} on {ref.device}: "
                             "they must be on the same device")


def check_sizes(op, **sizes):
    for k, v in sizes.items():
        if v > MAX_SIZE:
            raise ValueError(f"luatile.{op}: size {k} = {v} is over the launchers' limit of 2^30 - 1")


_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_cur_device = getattr(torch._C, "_cuda_getDevice", None)


class _NoGuard:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


_NO_GUARD = _NoGuard()


def _launch_env(device):
    """(context, stream) of a launch on device: a context that makes its GPU
    the current one (launchers run on the current device; nothing on the CPU or
    when it already is), and its current stream as an int (None on the CPU)."""
    if device.type == "cpu":
        return _NO_GUARD, None
    cur = _cur_device() if _cur_device is not None else torch.cuda.current_device()
    index = cur if device.index is None else device.index
    guard = _NO_GUARD if index == cur else torch.cuda.device(index)
    if _raw_stream is not None:
        return guard, _raw_stream(index)
    return guard, torch.cuda.current_stream(index).cuda_stream


def _last_contiguous(t):
    """t, or a contiguous copy where its last dim is not contiguous."""
    return t if t.stride(-1) == 1 or t.size(-1) == 1 else t.contiguous()


_NAMES = {}


def _name(fmt, dtype):
    """The launcher name: fmt with the dtype's name for {} (cached)."""
    n = _NAMES.get((fmt, dtype))
    if n is None:
        n = _NAMES[(fmt, dtype)] = fmt.format(DTYPES[dtype])
    return n


# ---------------------------------------------------------------------------
# attention


def check_attention(q, k, v, scale, window_left, window_right, softcap):
    op = "attention"
    for n, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(op, n, t, ATTN_DTYPES, dim=4)
    check_same(op, "q", q, (("k", k), ("v", v)))
    B, Hq, Sq, D = q.shape
    if k.shape != v.shape:
        raise ValueError(f"luatile.attention: k {tuple(k.shape)} and v {tuple(v.shape)} must have the same shape")
    if k.shape[0] != B or k.shape[3] != D:
        raise ValueError(f"luatile.attention: q {tuple(q.shape)} and k {tuple(k.shape)} must agree on batch "
                         "and head dim ([B, H, S, D] each)")
    Hkv, Sk = k.shape[1], k.shape[2]
    if D not in HEAD_DIMS:
        raise ValueError(f"luatile.attention: head dim {D} has no kernel (head dims: "
                         f"{', '.join(map(str, HEAD_DIMS))})")
    if Hkv == 0 or Hq % Hkv != 0:
        raise ValueError(f"luatile.attention: {Hq} query heads are not a multiple of {Hkv} kv heads")
    if not (scale > 0 and math.isfinite(scale)):
        raise ValueError(f"luatile.attention: scale must be a finite number > 0, not {scale}")
    if not (softcap >= 0 and math.isfinite(softcap)):
        raise ValueError(f"luatile.attention: softcap must be >= 0 (0: none), not {softcap}")
    for n, w in (("window_left", window_left), ("window_right", window_right)):
        if not isinstance(w, int) or not -(1 << 31) <= w < (1 << 31):
            raise ValueError(f"luatile.attention: {n} must be a 32-bit int, not {w!r}")
    check_sizes(op, B=B, Hq=Hq, Sq=Sq, Hkv=Hkv, Sk=Sk)
    return B, Hq, Sq, Hkv, Sk, D


def _attention_outputs(q):
    B, Hq, Sq, D = q.shape
    return (torch.empty(B, Hq, Sq, D, dtype=q.dtype, device=q.device),
            torch.empty(B, Hq, Sq, dtype=torch.float32, device=q.device))


def attention_fake(q, k, v, scale, window_left, window_right, softcap):
    check_attention(q, k, v, scale, window_left, window_right, softcap)
    return _attention_outputs(q)


def _bhs(t):
    return t.stride(0), t.stride(1), t.stride(2)


def attention(q, k, v, scale, window_left, window_right, softcap):
    """o [B, Hq, Sq, D] and the f32 log-sum-exp [B, Hq, Sq] (docs/attention.md)."""
    B, Hq, Sq, Hkv, Sk, D = check_attention(q, k, v, scale, window_left, window_right, softcap)
    o, lse = _attention_outputs(q)
    if o.numel() == 0:
        return o, lse
    if Sk == 0:   # no key is visible: O = 0, LSE = +inf
        return o.zero_(), lse.fill_(math.inf)
    q, k, v = _last_contiguous(q), _last_contiguous(k), _last_contiguous(v)
    device = q.device
    lib = _lib.library(device)
    name = _name(("attention_{}_d%d_softcap" if softcap > 0 else "attention_{}_d%d") % D, q.dtype)
    cap = (softcap,) if softcap > 0 else ()
    guard, stream = _launch_env(device)
    with guard:
        lib.call(name, q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(),
                 B, Hq, Sq, Hkv, Sk, *_bhs(q), *_bhs(k), *_bhs(v), *_bhs(o),
                 scale, *cap, window_left, window_right, stream)
    return o, lse


def check_attention_backward(do, q, k, v, o, lse, dlse):
    op = "attention_backward"
    check_tensor(op, "grad_out", do, ATTN_DTYPES, dim=4)
    check_tensor(op, "out", o, ATTN_DTYPES, dim=4)
    check_tensor(op, "lse", lse, (torch.float32,), dim=3)
    check_same(op, "q", q, (("grad_out", do), ("out", o)))
    if do.shape != q.shape or o.shape != q.shape or lse.shape != q.shape[:3]:
        raise ValueError(f"luatile.attention_backward: grad_out {tuple(do.shape)}, out {tuple(o.shape)} "
                         f"and lse {tuple(lse.shape)} do not match q {tuple(q.shape)}")
    if dlse is not None:
        check_tensor(op, "grad_lse", dlse, (torch.float32,), dim=3)
        if dlse.shape != lse.shape or dlse.device != lse.device:
            raise ValueError("luatile.attention_backward: grad_lse must be like lse")


def _grads(q, k, v):
    return (torch.empty(q.shape, dtype=q.dtype, device=q.device),
            torch.empty(k.shape, dtype=k.dtype, device=k.device),
            torch.empty(v.shape, dtype=v.dtype, device=v.device))


def attention_backward_fake(do, q, k, v, o, lse, dlse, scale, window_left, window_right, softcap):
    check_attention(q, k, v, scale, window_left, window_right, softcap)
    check_attention_backward(do, q, k, v, o, lse, dlse)
    return _grads(q, k, v)


def attention_backward(do, q, k, v, o, lse, dlse, scale, window_left, window_right, softcap):
    """dq, dk, dv by the deterministic FlashAttention-2 backward (pre, dkdv, dq).

    A gradient of the log-sum-exp (dlse) is folded into Delta: d lse / d S = P,
    so dS = P (dP - Delta + dlse)."""
    B, Hq, Sq, Hkv, Sk, D = check_attention(q, k, v, scale, window_left, window_right, softcap)
    check_attention_backward(do, q, k, v, o, lse, dlse)
    dq, dk, dv = _grads(q, k, v)
    if B * Hq * Sq == 0 or Sk == 0:
        return dq.zero_(), dk.zero_(), dv.zero_()
    q, k, v, o, do = (_last_contiguous(t) for t in (q, k, v, o, do))
    lse = lse.contiguous()
    lib = _lib.library(q.device)
    dt = ATTN_DTYPES[q.dtype]
    sfx = f"{dt}_d{D}" + ("_softcap" if softcap > 0 else "")
    cap = (softcap,) if softcap > 0 else ()
    guard, stream = _launch_env(q.device)
    delta = torch.empty(B, Hq, Sq, dtype=torch.float32, device=q.device)
    with guard:
        lib.call(f"attention_bwd_pre_{dt}_d{D}", o.data_ptr(), do.data_ptr(), delta.data_ptr(),
                 B, Hq, Sq, *_bhs(o), *_bhs(do), stream)
        if dlse is not None:
            delta.sub_(dlse)
        common = (B, Hq, Sq, Hkv, Sk, *_bhs(q), *_bhs(k), *_bhs(v), *_bhs(do))
        lib.call(f"attention_bwd_dkdv_{sfx}", q.data_ptr(), k.data_ptr(), v.data_ptr(), do.data_ptr(),
                 lse.data_ptr(), delta.data_ptr(), dk.data_ptr(), dv.data_ptr(), *common,
                 *_bhs(dk), *_bhs(dv), scale, *cap, window_left, window_right, stream)
        lib.call(f"attention_bwd_dq_{sfx}", q.data_ptr(), k.data_ptr(), v.data_ptr(), do.data_ptr(),
                 lse.data_ptr(), delta.data_ptr(), dq.data_ptr(), *common,
                 *_bhs(dq), scale, *cap, window_left, window_right, stream)
    return dq, dk, dv


# ---------------------------------------------------------------------------
# matmul


def check_matmul(a, b, bias, activation):
    op = "matmul"
    check_tensor(op, "a", a, DTYPES)
    check_tensor(op, "b", b, DTYPES)
    check_same(op, "a", a, (("b", b),))
    if activation not in ACTIVATIONS:
        raise ValueError(f"luatile.matmul: activation must be one of {', '.join(ACTIVATIONS)} (or None), "
                         f"not {activation!r}")
    if b.dim() not in (2, 3) or a.dim() < 2:
        raise ValueError(f"luatile.matmul: a must have 2 or more dims and b 2 or 3, not {tuple(a.shape)} "
                         f"and {tuple(b.shape)}")
    if b.dim() == 3 and (a.dim() != 3 or a.shape[0] != b.shape[0]):
        raise ValueError(f"luatile.matmul: a batched b {tuple(b.shape)} needs a of the same batch "
                         f"[batch, M, K], not {tuple(a.shape)}")
    K, N = b.shape[-2], b.shape[-1]
    if a.shape[-1] != K:
        raise ValueError(f"luatile.matmul: a {tuple(a.shape)} and b {tuple(b.shape)} do not chain "
                         f"({a.shape[-1]} != {K})")
    if bias is not None:
        check_tensor(op, "bias", bias, DTYPES, dim=1)
        check_same(op, "a", a, (("bias", bias),))
        if bias.shape[0] != N:
            raise ValueError(f"luatile.matmul: bias has {bias.shape[0]} elements, b {N} columns")
    if b.dim() == 3:
        batch, M = a.shape[0], a.shape[1]
    else:
        batch, M = 1, math.prod(a.shape[:-1])
    check_sizes(op, batch=batch, M=M, N=N, K=K)
    return batch, M, N, K, tuple(a.shape[:-1]) + (N,)


def matmul_fake(a, b, bias, activation):
    *_, shape = check_matmul(a, b, bias, activation)
    return torch.empty(shape, dtype=a.dtype, device=a.device)


def _operand(t):
    """A [.., R, C] matrix operand as (tensor, 'n' or 't', leading dim, batch stride):
    'n' where its rows are contiguous, 't' where its columns are (a transposed
    view, read as it is), else a contiguous copy."""
    if not (t.stride(-1) == 1 or t.size(-1) == 1) and (t.stride(-2) == 1 or t.size(-2) == 1):
        lay, ld = "t", t.stride(-1)
    else:
        t = _last_contiguous(t)
        lay, ld = "n", t.stride(-2)
    return t, lay, ld, t.stride(0) if t.dim() == 3 else 0


def matmul(a, b, bias, activation):
    """act(a @ b + bias) in one kernel, f32 accumulation."""
    batch, M, N, K, shape = check_matmul(a, b, bias, activation)
    out = torch.empty(shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    if K == 0:   # no product: act(bias), or 0
        z = torch.zeros(shape, dtype=torch.float32, device=a.device)
        if bias is not None:
            z = z + bias.float()
        return out.copy_(activation_fn(activation)(z))
    if b.dim() == 2:
        a = a.reshape(M, K)
    a, la, lda, sa = _operand(a)
    b, lb, ldb, sb = _operand(b)
    if activation != "none" and bias is None:
        bias = torch.zeros(N, dtype=a.dtype, device=a.device)
    epi = "none" if bias is None else ("bias" if activation == "none" else "bias_" + activation)
    bias = bias.contiguous() if bias is not None else None
    lib = _lib.library(a.device)
    name = _name(f"matmul_{{}}_{epi}_{la}{lb}", a.dtype)
    args = [out.data_ptr(), a.data_ptr(), b.data_ptr(), out.data_ptr()]
    if bias is not None:
        args.append(bias.data_ptr())
    guard, stream = _launch_env(a.device)
    with guard:
        lib.call(name, *args, batch, M, N, K, M * N, N, sa, lda, sb, ldb, 1.0, 0.0, stream)
    return out


def activation_fn(activation):
    return {
        "none": lambda z: z,
        "relu": torch.relu,
        "gelu": lambda z: 0.5 * z * (1 + torch.erf(z * 0.7071067811865476)),
        "silu": lambda z: z / (1 + torch.exp(-z)),
    }[activation]


# ---------------------------------------------------------------------------
# row ops: the kernels take X [R, C] with packed rows


def _rows_ok(x, params):
    """The common case of check_rows, checked cheaply: True when it would pass."""
    dt = x.dtype
    if dt not in DTYPES or x.dim() == 0 or x.layout != torch.strided:
        return False
    C, dev = x.shape[-1], x.device
    for _, p in params:
        if (type(p) not in _PLAIN or p.dtype != dt or p.dim() != 1 or p.shape[0] != C or p.device != dev
                or p.layout != torch.strided):
            return False
    return C <= MAX_SIZE and x.numel() <= MAX_SIZE * max(C, 1)


def check_rows(op, x, params):
    if type(x) in _PLAIN and _rows_ok(x, params):
        return
    check_tensor(op, "input", x, DTYPES)
    if x.dim() == 0:
        raise ValueError(f"luatile.{op}: input must have at least 1 dim")
    C = x.shape[-1]
    for name, p in params:
        check_tensor(op, name, p, DTYPES, dim=1)
        check_same(op, "input", x, ((name, p),))
        if p.shape[0] != C:
            raise ValueError(f"luatile.{op}: {name} has {p.shape[0]} elements, input's last dim {C}")
    check_sizes(op, R=x.numel() // C if C else 0, C=C)


def row_fake(op, x, params):
    check_rows(op, x, params)
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


def _row_launch(op, kernel, x, params, scalars):
    check_rows(op, x, params)
    x = x.contiguous()
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    C = x.shape[-1]
    R = x.numel() // C if C else 0
    if R == 0:
        return y
    device = x.device
    lib = _lib.library(device)
    params = [p.contiguous() for _, p in params]   # kept alive until the launch returns
    guard, stream = _launch_env(device)
    with guard:
        lib.call(_name(kernel + "_{}", x.dtype), x.data_ptr(), *[p.data_ptr() for p in params],
                 y.data_ptr(), R, C, *scalars, stream)
    return y


def rms_norm(x, weight, eps):
    return _row_launch("rms_norm", "rmsnorm", x, [("weight", weight)], [eps])


def layer_norm(x, weight, bias, eps):
    return _row_launch("layer_norm", "layernorm", x, [("weight", weight), ("bias", bias)], [eps])


def softmax(x):
    return _row_launch("softmax", "softmax", x, [], [])


def bias_gelu(x, bias):
    return _row_launch("bias_gelu", "bias_gelu", x, [("bias", bias)], [])


def check_add(x, y):
    check_tensor("add", "input", x, DTYPES)
    check_tensor("add", "other", y, DTYPES)
    check_same("add", "input", x, (("other", y),))
    if x.shape != y.shape:
        raise ValueError(f"luatile.add: shapes {tuple(x.shape)} and {tuple(y.shape)} differ (no broadcasting)")
    check_sizes("add", N=x.numel())


def add_fake(x, y):
    check_add(x, y)
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


def add(x, y):
    check_add(x, y)
    x, y = x.contiguous(), y.contiguous()
    z = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if z.numel() == 0:
        return z
    lib = _lib.library(x.device)
    guard, stream = _launch_env(x.device)
    with guard:
        lib.call(_name("add_{}", x.dtype), x.data_ptr(), y.data_ptr(), z.data_ptr(), x.numel(), stream)
    return z
