"""luatile for PyTorch: the shipped luatile kernels as torch operators.

    import luatile
    o = luatile.scaled_dot_product_attention(q, k, v, is_causal=True)   # [B, H, S, D]
    y = luatile.rms_norm(x, (x.shape[-1],), weight)
    z = luatile.matmul(a, b, bias, activation="gelu")

The kernels come from a shared library built beforehand from the generated
sources (nothing is built at import or call time):

    ./build.sh lib c        build/lib/libluatile_c.so      CPU tensors
    ./build.sh lib sm90a    build/lib/libluatile_sm90a.so  CUDA tensors on Hopper (sm80 elsewhere)

(each with its call module for the Python at hand, through which the
launchers are called, and which holds the C fast calls: the checks and the
launch of each op's common case in one C call, python/luatile/_fast.c;
ctypes and the same checks in Python where there is none).

On torch 2.4 and later each op is a torch.library custom op
(torch.ops.luatile.attention, .matmul, .rms_norm, .layer_norm, .softmax,
.bias_gelu, .add, .attention_backward) with a fake implementation for
torch.compile and autograd registered; on older torch they are
torch.autograd.Function classes (HAVE_CUSTOM_OP says which).  In eager
mode, when no input wants a gradient and nothing traces the call, the
entry points call the kernels directly, skipping the dispatcher.  See
docs/python.md.
"""
import math

import torch

from . import _index, _kernels, _ops
from ._lib import Error, LaunchError, Library, LibraryNotFound, library, load_library
from ._ops import HAVE_CUSTOM_OP

__all__ = [
    "scaled_dot_product_attention", "attention", "matmul", "rms_norm", "layer_norm", "softmax",
    "bias_gelu", "add", "embedding", "cross_entropy", "load_library", "library", "Library", "Error", "LaunchError", "LibraryNotFound",
    "HAVE_CUSTOM_OP", "HEAD_DIMS",
]

HEAD_DIMS = _kernels.HEAD_DIMS

_PLAIN = (torch.Tensor, torch.nn.Parameter)
_PLAIN_TYPES = frozenset(_PLAIN)
_compiling = _kernels._compiling   # torch.compiler.is_compiling: Dynamo folds it to True

#: False: the entry points always go through the operators (torch.ops.luatile.*
#: or the autograd.Function classes), never straight to the kernels.
direct_calls = True


def _direct(*tensors):
    """Whether the entry point may call the kernel directly rather than through
    its operator: in eager mode, when no input wants a gradient, the inputs are
    plain tensors (not meta), and no tracing, dispatch or function mode, functorch
    transform or profiler is active.  The operator would then do nothing but
    call the same function.  Outside torch.compile the entry points first try
    their op's common case (_kernels.*_fast with gate=True: the same conditions,
    checked inline, and the launcher called with the fewest checks); this is the
    test for the rest."""
    if (not direct_calls or _compiling() or _kernels._dispatch_modes() or _kernels._function_modes()
            or _kernels._functorch() or _kernels._profiling()):
        return False
    grad = torch.is_grad_enabled()
    for t in tensors:
        if t is None:
            continue
        if type(t) not in _PLAIN or t.is_meta or (grad and t.requires_grad):
            return False
    return True


def _window(is_causal, window, Sq, Sk):
    if window is not None:
        if is_causal:
            raise ValueError("luatile: give is_causal or window, not both (is_causal is window=(-1, 0) when "
                             "Sq == Sk)")
        if len(window) != 2:
            raise ValueError(f"luatile: window must be (left, right), not {window!r}")
        return int(window[0]), int(window[1])
    if is_causal:
        if Sq != Sk:
            raise ValueError(
                f"luatile: is_causal with Sq={Sq} != Sk={Sk}: torch aligns the causal mask to the top left, "
                "luatile's kernels to the bottom right (FlashAttention-2); pass window=(-1, 0) for the "
                "bottom-right mask")
        return -1, 0
    return -1, -1


def _attention_window(q, k, v, window, scale, softcap):
    """(o, lse) by _kernels.attention_fast for window=(left, right) of two ints, else None."""
    if type(window) not in (tuple, list) or len(window) != 2:
        return None
    wl, wr = window
    if type(wl) is not int or type(wr) is not int:
        return None
    return _kernels.attention_fast(q, k, v, scale, wl, wr, softcap, True)


def attention(q, k, v, *, is_causal=False, window=None, scale=None, softcap=None):
    """o, lse = attention of q [B, Hq, Sq, D] over k, v [B, Hkv, Sk, D].

    o is [B, Hq, Sq, D] (contiguous), lse the f32 natural-log log-sum-exp of
    the scaled scores over the visible keys, [B, Hq, Sq] (+inf for a row
    that sees no key, whose o row is 0).  float16 or bfloat16; D one of
    HEAD_DIMS; Hq a multiple of Hkv (GQA, MQA).  window=(left, right) is
    FlashAttention-2's sliding window aligned to the bottom right (key j is
    visible to query i iff i + Sk - Sq - left <= j <= i + Sk - Sq + right; a
    negative side is unbounded); softcap > 0 caps the scores with
    softcap * tanh(s / softcap).  Differentiable in q, k, v and lse, by the
    shipped FlashAttention-2 backward kernels.  Any strides with a
    contiguous last dim are read in place (so a [B, S, H, D] tensor
    .transpose(1, 2) costs no copy); others are copied first.
    """
    if direct_calls and not _compiling():
        r = (_kernels.attention_fast(q, k, v, scale, -1, 0 if is_causal else -1, softcap, True, is_causal)
             if window is None else None if is_causal else _attention_window(q, k, v, window, scale, softcap))
        if r is not None:
            return r
    if not isinstance(q, torch.Tensor) or q.dim() != 4 or not isinstance(k, torch.Tensor) or k.dim() != 4:
        raise ValueError("luatile.attention: q, k, v must be 4-dim tensors [B, H, S, D]")
    wl, wr = _window(is_causal, window, q.shape[2], k.shape[2])
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    if _direct(q, k, v):
        return _kernels.attention(q, k, v, float(scale), wl, wr, float(softcap or 0.0))
    return _ops.attention_op(q, k, v, float(scale), wl, wr, float(softcap or 0.0))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=True, *, window=None, softcap=None):
    """torch.nn.functional.scaled_dot_product_attention on luatile's
    FlashAttention-2 kernels: query [B, Hq, Sq, D], key and value
    [B, Hkv, Sk, D], returns [B, Hq, Sq, D].

    Differences from torch: no attn_mask and no dropout (ValueError);
    is_causal needs Sq == Sk (torch's mask is aligned to the top left,
    the kernels' to the bottom right: window=(-1, 0) asks for the latter);
    GQA is always on (Hq a multiple of Hkv); float16 and bfloat16 only;
    head dims 32, 64, 96, 128, 256.  Extra: window=(left, right) and softcap
    (see luatile.attention).
    """
    if attn_mask is not None:
        raise ValueError("luatile.scaled_dot_product_attention: attn_mask is not supported (use is_causal or "
                         "window)")
    if dropout_p != 0.0:
        raise ValueError("luatile.scaled_dot_product_attention: dropout is not supported (dropout_p must be 0)")
    if direct_calls and not _compiling() and enable_gqa is not False:
        r = (_kernels.attention_fast(query, key, value, scale, -1, 0 if is_causal else -1, softcap, True, is_causal)
             if window is None else None if is_causal else _attention_window(query, key, value, window, scale, softcap))
        if r is not None:
            return r[0]
    if enable_gqa is False and query.shape[1] != key.shape[1]:
        raise ValueError("luatile.scaled_dot_product_attention: Hq != Hkv needs enable_gqa")
    return attention(query, key, value, is_causal=is_causal, window=window, scale=scale, softcap=softcap)[0]


def _act(activation):
    return "none" if activation is None else activation


def matmul(a, b, bias=None, activation=None):
    """act(a @ b + bias) in one kernel with f32 accumulation.

    a [..., M, K] with b [K, N] (a's leading dims are rows of one matrix
    product), or a [batch, M, K] with b [batch, K, N].  bias [N] or None;
    activation None, "relu", "gelu" (erf form) or "silu".  float16,
    bfloat16 or float32 (exact f32 multiply-adds, no tf32), all the same.
    A transposed operand (a.t(), b.mT) is read in place, by the kernel's
    transposed layout.  Backward: luatile matmuls (dA = dZ B^T, dB = A^T dZ);
    for gelu and silu the pre-activation is recomputed with one more matmul;
    the activation's derivative and the bias gradient are torch ops.
    """
    if direct_calls and not _compiling():
        out = _kernels.matmul_fast(a, b, bias, "none" if activation is None else activation, True)
        if out is not None:
            return out
    if _direct(a, b, bias):
        return _kernels.matmul(a, b, bias, _act(activation))
    return _ops.matmul_op(a, b, bias, _act(activation))


def _simple_norm(x, normalized_shape, params):
    """C where normalized_shape is the last dim of x and every given param is
    [C] (the common case, checked cheaply), else None."""
    if type(x) not in _PLAIN or x.dim() == 0:
        return None
    C = x.shape[-1]
    if type(normalized_shape) is int:
        if normalized_shape != C:
            return None
    elif len(normalized_shape) != 1 or normalized_shape[0] != C:
        return None
    for p in params:
        if p is not None and (p.dim() != 1 or p.shape[0] != C):
            return None
    return C


def _flatten_normalized(op, x, normalized_shape, params):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"luatile.{op}: input must be a torch.Tensor, not {type(x).__name__}")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    n = len(normalized_shape)
    if n == 0 or x.dim() < n or tuple(x.shape[x.dim() - n:]) != normalized_shape:
        raise ValueError(f"luatile.{op}: normalized_shape {normalized_shape} is not the last dims of the "
                         f"input {tuple(x.shape)}")
    for name, p in params:
        if p is not None and tuple(p.shape) != normalized_shape:
            raise ValueError(f"luatile.{op}: {name} has shape {tuple(p.shape)}, not normalized_shape "
                             f"{normalized_shape}")
    C = math.prod(normalized_shape)
    shape = x.shape
    return x.reshape(*shape[:x.dim() - n], C), C, lambda y: y.reshape(shape)


_EPS = {dt: torch.finfo(dt).eps for dt in _kernels.DTYPES}


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.nn.functional.rms_norm: input / sqrt(mean(input^2) + eps) * weight over the
    last dims (normalized_shape), f32 inside.  eps None: torch.finfo(dtype).eps.
    Backward: torch ops in f32 (luatile has no RMSNorm backward kernel)."""
    if direct_calls and not _compiling() and weight is not None:
        y = _kernels.rows_fast("rmsnorm", input, normalized_shape, weight, None, eps, True)
        if y is not None:
            return y
    C = _simple_norm(input, normalized_shape, (weight,))
    if C is None:
        x, C, back = _flatten_normalized("rms_norm", input, normalized_shape, (("weight", weight),))
    else:
        x, back = input, None
    w = torch.ones(C, dtype=x.dtype, device=x.device) if weight is None else \
        (weight if back is None else weight.reshape(C))
    if eps is None:
        eps = _EPS.get(x.dtype) or _EPS.setdefault(x.dtype, torch.finfo(x.dtype).eps)
    y = _kernels.rms_norm(x, w, float(eps)) if _direct(x, w) else _ops.rms_norm_op(x, w, float(eps))
    return y if back is None else back(y)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """torch.nn.functional.layer_norm over the last dims, f32 inside.
    Backward: torch ops in f32 (luatile has no LayerNorm backward kernel)."""
    if direct_calls and not _compiling() and weight is not None and bias is not None:
        y = _kernels.rows_fast("layernorm", input, normalized_shape, weight, bias, eps, True)
        if y is not None:
            return y
    C = _simple_norm(input, normalized_shape, (weight, bias))
    if C is None:
        x, C, back = _flatten_normalized("layer_norm", input, normalized_shape,
                                         (("weight", weight), ("bias", bias)))
    else:
        x, back = input, None
    w = torch.ones(C, dtype=x.dtype, device=x.device) if weight is None else \
        (weight if back is None else weight.reshape(C))
    b = torch.zeros(C, dtype=x.dtype, device=x.device) if bias is None else \
        (bias if back is None else bias.reshape(C))
    y = _kernels.layer_norm(x, w, b, float(eps)) if _direct(x, w, b) else _ops.layer_norm_op(x, w, b, float(eps))
    return y if back is None else back(y)


def softmax(input, dim=-1, dtype=None):
    """torch.nn.functional.softmax along dim (f32 inside).  dtype: cast the
    input first, as torch does.  Another dim than the last is moved last
    (a copy) and back.  Backward: torch ops in f32."""
    if (direct_calls and not _compiling() and dtype is None
            and (dim == -1 or (type(input) in _PLAIN_TYPES and dim == input.dim() - 1))):
        y = _kernels.rows_fast("softmax", input, None, None, None, None, True)
        if y is not None:
            return y
    if not isinstance(input, torch.Tensor):
        raise TypeError("luatile.softmax: input must be a torch.Tensor")
    x = input if dtype is None else input.to(dtype)
    if x.dim() == 0:
        raise ValueError("luatile.softmax: input must have at least 1 dim")
    d = dim % x.dim()
    f = _kernels.softmax if _direct(x) else _ops.softmax_op
    if d == x.dim() - 1:
        return f(x)
    return f(x.movedim(d, -1)).movedim(-1, d)


def bias_gelu(input, bias):
    """gelu(input + bias) (erf form), bias [N] broadcast over input [..., N].
    Backward: torch ops in f32."""
    if direct_calls and not _compiling():
        y = _kernels.rows_fast("bias_gelu", input, None, bias, None, None, True)
        if y is not None:
            return y
    if _direct(input, bias):
        return _kernels.bias_gelu(input, bias)
    return _ops.bias_gelu_op(input, bias)


def add(input, other):
    """input + other, same shape and dtype (no broadcasting)."""
    if direct_calls and not _compiling():
        z = _kernels.add_fast(input, other, True)
        if z is not None:
            return z
    if _direct(input, other):
        return _kernels.add(input, other)
    return _ops.add_op(input, other)


def embedding(input, weight, padding_idx=None, deterministic=None):
    """weight[input]: the rows of weight [V, D] at the indices input (int64 or
    int32, any shape), as F.embedding; an index outside [0, V) gives a row of
    zeros (torch raises).  Backward: dweight by the kernel's f32 atomic adds
    (not deterministic on a GPU), none for the row padding_idx; with
    deterministic=True (None: torch.are_deterministic_algorithms_enabled())
    by sorted indices, each row summed in one fixed order (the same bits every
    run).  A torch.library op with a fake implementation on torch 2.4 and
    later (luatile::embedding), else a torch.autograd.Function."""
    return _index.embedding(input, weight, padding_idx, deterministic)


def cross_entropy(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """F.cross_entropy of logits input [N, V] (f32, f16, bf16) and class indices
    target [N] (int64 or int32): ignore_index, reduction "mean" (over the rows
    not ignored), "sum" or "none", label_smoothing.  A label outside [0, V)
    that is not ignore_index reads its logit as 0 (torch raises).  Backward:
    the kernel's dinput.  torch.library ops with fake implementations on torch
    2.4 and later (luatile::cross_entropy_forward, _backward; the reduction in
    torch ops), else a torch.autograd.Function."""
    return _index.cross_entropy(input, target, ignore_index, reduction, label_smoothing)


def grouped_matmul(x, w, offs, layout="kn"):
    """y [T, N]: rows offs[g] .. offs[g + 1] - 1 of x [T, K] (f16, bf16) times
    w[g] (w [G, K, N], layout "kn") or w[g].T (w [G, N, K], layout "nk"), for
    each group g; offs: G + 1 int32 on x's device, non-decreasing within [0, T]
    (a mixture of experts' tokens sorted by expert); rows outside the groups
    are zeros.  One launch, no host sync.  Backward: dx by the same kernel,
    dw by torch.matmul a group after one read of offs on the host.  A
    torch.library op with a fake implementation and autograd on torch 2.4 and
    later (luatile::grouped_matmul, luatile::grouped_matmul_weight_grad), else
    a torch.autograd.Function."""
    return _moe.grouped_matmul(x, w, offs, layout)


def matmul_fp8(a, b, scale_a, scale_b, fast_accum=False):
    """bf16 (a @ b.T) * scale_a * scale_b of float8_e4m3fn a [M, K] and b [N, K]
    (torch._scaled_mm's operands; f32 accumulation), scales f32 of one element
    each or scale_a [M, 1] and scale_b [1, N].  fast_accum: the tensor cores'
    own accumulator over all of K (sm90a only).  Backward in torch f32 ops
    (a's and b's gradients saturated to +-448 and rounded to float8_e4m3fn).
    A torch.library op with a fake implementation and autograd on torch 2.4
    and later (luatile::matmul_fp8), else a torch.autograd.Function."""
    return _moe.matmul_fp8(a, b, scale_a, scale_b, fast_accum)


from . import _moe  # noqa: E402

__all__ += ["grouped_matmul", "matmul_fp8"]
