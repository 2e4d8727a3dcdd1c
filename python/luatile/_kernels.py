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
    r = attention_fast(q, k, v, scale, window_left, window_right, softcap, False)
    if r is not None:
        return r
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
    out = matmul_fast(a, b, bias, activation, False)
    if out is not None:
        return out
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
        if a.is_cuda and lib.has(name + "_ws"):   # sm90a: split-K where the tiles leave SMs idle
            ws, nws = matmul_workspace(a.get_device(), stream)
            lib.call(name + "_ws", *args, batch, M, N, K, M * N, N, sa, lda, sb, ldb, 1.0, 0.0, ws, nws, stream)
        else:
            lib.call(name, *args, batch, M, N, K, M * N, N, sa, lda, sb, ldb, 1.0, 0.0, stream)
    return out


#: matmul's split-K workspaces: (CUDA device index, stream) -> a zeroed uint8 tensor
_WORKSPACES = {}


def matmul_workspace(dev, stream):
    """(address, bytes) of the split-K workspace of matmul launches (NAME_ws,
    gen/lower/splitk.c) on `stream` (an int) of CUDA device `dev`, the current
    device: made zeroed at the stream's first such call, by an allocation and a
    memset on that stream (no host sync; inside a graph capture both are
    captured, and the graph's replays zero it again), then kept.  Each call
    leaves it zero, so one a stream serves every call in stream order.  (0, 0)
    where the library has no split-K launcher (NAME_ws then runs unsplit)."""
    ws = _WORKSPACES.get((dev, stream))
    if ws is None:
        lib = _loaded.get("cuda")
        n = lib.workspace_bytes() if lib is not None else 0
        if n <= 0:
            return 0, 0
        ws = _WORKSPACES[(dev, stream)] = torch.zeros(n, dtype=torch.uint8, device=torch.device("cuda", dev))
    return ws.data_ptr(), ws.numel()


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
    y = rows_fast("rmsnorm", x, None, weight, None, eps, False)
    return _row_launch("rms_norm", "rmsnorm", x, [("weight", weight)], [eps]) if y is None else y


def layer_norm(x, weight, bias, eps):
    y = rows_fast("layernorm", x, None, weight, bias, eps, False)
    return _row_launch("layer_norm", "layernorm", x, [("weight", weight), ("bias", bias)], [eps]) if y is None else y


def softmax(x):
    y = rows_fast("softmax", x, None, None, None, None, False)
    return _row_launch("softmax", "softmax", x, [], []) if y is None else y


def bias_gelu(x, bias):
    y = rows_fast("bias_gelu", x, None, bias, None, None, False)
    return _row_launch("bias_gelu", "bias_gelu", x, [("bias", bias)], []) if y is None else y


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
    z = add_fast(x, y, False)
    if z is not None:
        return z
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


# ---------------------------------------------------------------------------
# fast launches: the common case of each op with the fewest checks
#
# Each *_fast function launches its op's kernel for the common case (plain
# CPU or CUDA tensors the kernel reads as they are, on the current device,
# arguments in range), checked with a few cheap tests, and returns None for
# anything else: the caller then takes the general path, which checks
# everything, raises the errors and copies what needs copying.  gate=True (the
# entry points' direct calls, made only where torch.compiler.is_compiling() is
# False: checked first, so that Dynamo, which folds it to True, traces none of
# this) also returns None in any mode but plain eager inference (an input that
# wants a gradient, a dispatch or function mode, a functorch transform, the
# profiler): the entry point then goes through the operator.  gate=False is the
# operators' own body, called below autograd.  Launchers are looked up once per library, variant and dtype
# (Library.fast); the stream is the device's current one.
#
# These four are the Python versions.  Where a loaded library has a call module
# (python/luatile/_calls.py), its C versions of the same four (python/luatile/_fast.c:
# the same checks and launch in one C call) take their names here (bind_fast, run at
# each library load), and the entry points and operators, which look the names up at
# each call, call those.

_STRIDED = torch.strided
_PLAIN_TYPES = frozenset(_PLAIN)
_grad_enabled = torch.is_grad_enabled
_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (lambda: False)
_dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", None) or (lambda: 0)
_function_modes = getattr(torch._C, "_is_torch_function_mode_enabled", None) or (lambda: False)
_functorch = getattr(torch._C, "_are_functorch_transforms_active", None) or (lambda: False)
_profiling = getattr(getattr(torch._C, "_autograd", None), "_profiler_enabled", None) or (lambda: False)
_loaded = _lib._loaded
_empty, _empty_like = torch.empty, torch.empty_like
_f32 = torch.float32
_HEAD_DIMS = frozenset(HEAD_DIMS)
_INT32 = 1 << 31


_current_stream = _raw_stream or (lambda d: torch.cuda.current_stream(d).cuda_stream)
_current_device = _cur_device or (lambda: torch.cuda.current_device())


_ROW_PARAMS = {"rmsnorm": 1, "layernorm": 2, "softmax": 0, "bias_gelu": 1}
_EPS_DEFAULT = {"rmsnorm": {dt: torch.finfo(dt).eps for dt in DTYPES}, "layernorm": dict.fromkeys(DTYPES, 1e-5)}


def rows_fast(kernel, x, ns, w, b, eps, gate):
    """kernel ("rmsnorm", "layernorm", "softmax", "bias_gelu") over the rows of a
    contiguous x [..., C], where ns (normalized_shape; None: not checked) is C or
    (C,), with w (rmsnorm, layernorm, bias_gelu's bias) and b (layernorm) [C], and
    eps (rmsnorm, layernorm) a float or None (torch.finfo(dtype).eps for rmsnorm,
    1e-5 for layernorm); or None."""
    if type(x) not in _PLAIN_TYPES or x.layout is not _STRIDED:
        return None
    n_params = _ROW_PARAMS.get(kernel)
    if n_params is None or (w is not None) != (n_params >= 1) or (b is not None) != (n_params == 2):
        return None
    dt = x.dtype
    if dt not in DTYPES or not x.is_contiguous():
        return None
    if n_params and kernel != "bias_gelu":
        if eps is None:
            eps = _EPS_DEFAULT[kernel][dt]
        elif type(eps) is not float:
            return None
    grad = gate and _grad_enabled()
    if grad and x.requires_grad:
        return None
    shape = x.shape
    if not shape:
        return None
    C, n = shape[-1], x.numel()
    if n == 0 or C > MAX_SIZE or n // C > MAX_SIZE:
        return None
    if ns is not None and ns != C and (type(ns) is int or len(ns) != 1 or ns[0] != C):
        return None
    if w is not None:
        dev = x.device
        for p in (w, b):
            if p is not None and not (type(p) in _PLAIN_TYPES and p.dtype is dt and p.layout is _STRIDED
                                      and p.dim() == 1 and p.shape[0] == C and p.device == dev
                                      and p.is_contiguous() and not (grad and p.requires_grad)):
                return None
    if gate and (_dispatch_modes() or _function_modes() or _functorch() or _profiling()):
        return None
    if x.is_cuda:
        d = x.get_device()
        lib = _loaded.get("cuda")
        if lib is None or d != _current_device():
            return None
        stream = _current_stream(d)
    else:
        lib = _loaded.get("cpu")
        if lib is None or not x.is_cpu:
            return None
        stream = None
    ent = lib.fast.get((kernel, dt))
    if ent is None:
        ent = lib.fast_entry((kernel, dt), f"{kernel}_{DTYPES[dt]}")
    y = _empty_like(x)
    if w is None:
        rc = ent[0](x.data_ptr(), y.data_ptr(), n // C, C, stream)
    elif b is not None:
        rc = ent[0](x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), n // C, C, eps, stream)
    elif kernel == "rmsnorm":
        rc = ent[0](x.data_ptr(), w.data_ptr(), y.data_ptr(), n // C, C, eps, stream)
    else:
        rc = ent[0](x.data_ptr(), w.data_ptr(), y.data_ptr(), n // C, C, stream)
    if rc:
        lib.fail(ent[1], rc)
    return y


def add_fast(x, y, gate):
    """x + y for two contiguous tensors of one shape, dtype and device; or None."""
    if type(x) not in _PLAIN_TYPES or type(y) not in _PLAIN_TYPES:
        return None
    dt = x.dtype
    if (dt not in DTYPES or y.dtype is not dt or x.layout is not _STRIDED or y.layout is not _STRIDED
            or not x.is_contiguous() or not y.is_contiguous()):
        return None
    if gate and _grad_enabled() and (x.requires_grad or y.requires_grad):
        return None
    n = x.numel()
    if n == 0 or n > MAX_SIZE or x.shape != y.shape or x.device != y.device:
        return None
    if gate and (_dispatch_modes() or _function_modes() or _functorch() or _profiling()):
        return None
    if x.is_cuda:
        d = x.get_device()
        lib = _loaded.get("cuda")
        if lib is None or d != _current_device():
            return None
        stream = _current_stream(d)
    else:
        lib = _loaded.get("cpu")
        if lib is None or not x.is_cpu:
            return None
        stream = None
    ent = lib.fast.get(("add", dt))
    if ent is None:
        ent = lib.fast_entry(("add", dt), f"add_{DTYPES[dt]}")
    z = _empty_like(x)
    rc = ent[0](x.data_ptr(), y.data_ptr(), z.data_ptr(), n, stream)
    if rc:
        lib.fail(ent[1], rc)
    return z


_EPILOGUE = {(False, "none"): "none", (True, "none"): "bias", (True, "relu"): "bias_relu",
             (True, "gelu"): "bias_gelu", (True, "silu"): "bias_silu"}


def matmul_fast(a, b, bias, activation, gate):
    """act(a @ b + bias) for a [..., M, K] @ b [K, N] or a [batch, M, K] @ b [batch, K, N],
    each matrix with its rows or its columns contiguous (an a of more than 2 dims
    with a 2-dim b contiguous), a bias [N] where an activation is given; or None."""
    if type(a) not in _PLAIN_TYPES or type(b) not in _PLAIN_TYPES or type(activation) is not str:
        return None
    dt = a.dtype
    if dt not in DTYPES or b.dtype is not dt or a.layout is not _STRIDED or b.layout is not _STRIDED:
        return None
    epi = _EPILOGUE.get((bias is not None, activation))
    if epi is None:
        return None
    grad = gate and _grad_enabled()
    if grad and (a.requires_grad or b.requires_grad):
        return None
    # the layouts of the general path (_operand): rows contiguous 'n', columns 't', else (there) a copy
    bshape, ashape = b.shape, a.shape
    if len(bshape) == 2:
        K, N = bshape
        batch, sa, sb = 1, 0, 0
        if len(ashape) == 2:
            M, Ka = ashape
            sa0, sa1 = a.stride()
            if sa1 == 1 or Ka == 1:
                la, lda = "n", sa0
            elif sa0 == 1 or M == 1:
                la, lda = "t", sa1
            else:
                return None
            shape = (M, N)
        else:
            if len(ashape) < 2 or not a.is_contiguous():
                return None
            Ka = ashape[-1]
            M = a.numel() // Ka if Ka else 0
            la, lda = "n", Ka
            shape = ashape[:-1] + (N,)
        sb0, sb1 = b.stride()
    elif len(bshape) == 3 and len(ashape) == 3:
        batch, K, N = bshape
        Ba, M, Ka = ashape
        if Ba != batch or batch == 0 or batch > MAX_SIZE:
            return None
        sa, sa0, sa1 = a.stride()
        if sa1 == 1 or Ka == 1:
            la, lda = "n", sa0
        elif sa0 == 1 or M == 1:
            la, lda = "t", sa1
        else:
            return None
        sb, sb0, sb1 = b.stride()
        shape = (batch, M, N)
    else:
        return None
    if sb1 == 1 or N == 1:
        lb, ldb = "n", sb0
    elif sb0 == 1 or K == 1:
        lb, ldb = "t", sb1
    else:
        return None
    if Ka != K or M == 0 or N == 0 or K == 0 or M > MAX_SIZE or N > MAX_SIZE or K > MAX_SIZE:
        return None
    dev = a.device
    if b.device != dev:
        return None
    if bias is not None and not (type(bias) in _PLAIN_TYPES and bias.dtype is dt and bias.layout is _STRIDED
                                 and bias.dim() == 1 and bias.shape[0] == N and bias.device == dev
                                 and bias.is_contiguous() and not (grad and bias.requires_grad)):
        return None
    if gate and (_dispatch_modes() or _function_modes() or _functorch() or _profiling()):
        return None
    if a.is_cuda:
        d = a.get_device()
        lib = _loaded.get("cuda")
        if lib is None or d != _current_device():
            return None
        stream = _current_stream(d)
    else:
        lib = _loaded.get("cpu")
        if lib is None or not a.is_cpu:
            return None
        stream = None
    key = (epi, la, lb, dt)
    ent = lib.fast.get(key)
    if ent is None:   # NAME_ws where the library has it (sm90a's split-K), else NAME
        name = f"matmul_{DTYPES[dt]}_{epi}_{la}{lb}"
        ent = lib.fast_entry(key, name + "_ws" if stream is not None and lib.has(name + "_ws") else name)
    out = a.new_empty(shape)
    po = out.data_ptr()
    tail = (1.0, 0.0, *matmul_workspace(d, stream), stream) if ent[1].endswith("_ws") else (1.0, 0.0, stream)
    if bias is None:
        rc = ent[0](po, a.data_ptr(), b.data_ptr(), po, batch, M, N, K, M * N, N, sa, lda, sb, ldb, *tail)
    else:
        rc = ent[0](po, a.data_ptr(), b.data_ptr(), po, bias.data_ptr(), batch, M, N, K, M * N, N, sa, lda, sb, ldb,
                    *tail)
    if rc:
        lib.fail(ent[1], rc)
    return out


_SCALES = {d: 1.0 / math.sqrt(d) for d in HEAD_DIMS}


def attention_fast(q, k, v, scale, window_left, window_right, softcap, gate, causal=False):
    """(o, lse) of attention for q, k, v [B, H, S, D] with contiguous last dims,
    Sk > 0, scale a float (None: 1 / sqrt(D)), softcap a float (None: 0), the
    windows ints, Sq == Sk where causal (the entry points' is_causal); or None."""
    if type(q) not in _PLAIN_TYPES or type(k) not in _PLAIN_TYPES or type(v) not in _PLAIN_TYPES:
        return None
    dt = q.dtype
    if (dt not in ATTN_DTYPES or k.dtype is not dt or v.dtype is not dt or q.layout is not _STRIDED
            or k.layout is not _STRIDED or v.layout is not _STRIDED):
        return None
    if gate and _grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
        return None
    qs, ks = q.shape, k.shape
    if len(qs) != 4 or len(ks) != 4:
        return None
    B, Hq, Sq, D = qs
    Bk, Hkv, Sk, Dk = ks
    if (Bk != B or Dk != D or D not in _HEAD_DIMS or v.shape != ks or Hkv == 0 or Hq % Hkv
            or B == 0 or Hq == 0 or Sq == 0 or Sk == 0 or (causal and Sq != Sk)
            or B > MAX_SIZE or Hq > MAX_SIZE or Sq > MAX_SIZE or Hkv > MAX_SIZE or Sk > MAX_SIZE):
        return None
    sq, sk, sv = q.stride(), k.stride(), v.stride()
    if sq[3] != 1 or sk[3] != 1 or sv[3] != 1:
        return None
    if scale is None:
        scale = _SCALES[D]
    if softcap is None:
        softcap = 0.0
    if not (type(scale) is float and type(softcap) is float and 0 < scale < math.inf and 0 <= softcap < math.inf
            and -_INT32 <= window_left < _INT32 and -_INT32 <= window_right < _INT32):
        return None
    dev = q.device
    if k.device != dev or v.device != dev:
        return None
    if gate and (_dispatch_modes() or _function_modes() or _functorch() or _profiling()):
        return None
    if q.is_cuda:
        d = q.get_device()
        lib = _loaded.get("cuda")
        if lib is None or d != _current_device():
            return None
        stream = _current_stream(d)
    else:
        lib = _loaded.get("cpu")
        if lib is None or not q.is_cpu:
            return None
        stream = None
    cap = softcap > 0
    key = ("attention", D, cap, dt)
    ent = lib.fast.get(key)
    if ent is None:
        ent = lib.fast_entry(key, f"attention_{ATTN_DTYPES[dt]}_d{D}" + ("_softcap" if cap else ""))
    o = _empty_like(q) if q.is_contiguous() else q.new_empty(qs)
    lse = q.new_empty((B, Hq, Sq), dtype=_f32)
    if cap:
        rc = ent[0](q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(), B, Hq, Sq, Hkv, Sk,
                    sq[0], sq[1], sq[2], sk[0], sk[1], sk[2], sv[0], sv[1], sv[2], Hq * Sq * D, Sq * D, D,
                    scale, softcap, window_left, window_right, stream)
    else:
        rc = ent[0](q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(), B, Hq, Sq, Hkv, Sk,
                    sq[0], sq[1], sq[2], sk[0], sk[1], sk[2], sv[0], sv[1], sv[2], Hq * Sq * D, Sq * D, D,
                    scale, window_left, window_right, stream)
    if rc:
        lib.fail(ent[1], rc)
    return o, lse


_PY_FAST = {"rows_fast": rows_fast, "add_fast": add_fast, "matmul_fast": matmul_fast, "attention_fast": attention_fast}
#: the call module whose C fast calls are bound (None: the Python ones)
fast_module = None


def _resolve(kind, name):
    """For the C fast calls: (address, signature, release_gil, library) of launcher
    `name` in the library loaded for device type `kind`; None where none is loaded,
    False where it has no such launcher."""
    lib = _loaded.get(kind)
    if lib is None:
        return None
    if not lib.has(name):
        return False
    addr, sig = lib.address(name)
    return addr, sig, lib.backend == "cpu", lib


def _fast_setup_args():
    """The arguments of a call module's fast_setup: the torch objects and functions its fast calls use."""
    return (torch.Tensor, torch.nn.Parameter, _STRIDED, torch.float32, torch.float16, torch.bfloat16, _grad_enabled,
            _dispatch_modes, _function_modes, _functorch, _profiling, _current_device, _current_stream, _empty_like,
            _resolve, matmul_workspace)


def bind_fast(use_c=True):
    """Binds rows_fast, add_fast, matmul_fast and attention_fast here to the C
    versions of a loaded library's call module where there is one (and use_c),
    else to the Python versions; empties the C launcher tables.  Returns the
    call module bound, or None."""
    global fast_module
    mod = None
    _WORKSPACES.clear()   # sized for the library replaced (the C calls forget theirs in fast_reset)
    for lib in list(_loaded.values()):
        calls = lib.calls
        if calls is not None and hasattr(calls, "fast_reset"):
            calls.fast_reset()
            if mod is None and use_c:
                mod = calls
    if mod is not None:
        mod.fast_setup(*_fast_setup_args())
        globals().update({n: getattr(mod, n) for n in _PY_FAST})
    else:
        globals().update(_PY_FAST)
    fast_module = mod
    return mod


_lib.on_load = bind_fast
