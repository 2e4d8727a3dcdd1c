"""The index ops: embedding (dsl/kernels/embedding.lua) and cross_entropy
(dsl/kernels/cross_entropy.lua), forward and backward: torch.library custom
ops on torch 2.4 and later (luatile::embedding, luatile::embedding_backward,
luatile::cross_entropy_forward, luatile::cross_entropy_backward; fake
implementations for torch.compile and FakeTensorMode, autograd registered),
torch.autograd.Function classes on older torch (HAVE_CUSTOM_OP).  embedding()
and cross_entropy() below pick one; the arguments are checked in Python
before either runs.

Indices and labels are int64 (PyTorch's own) or int32, passed to the
kernels' i64 or i32 variants as they are (no conversion pass).  Where torch
raises on an index outside the table or a label outside [0, V), the kernels
never read or write outside a tensor instead: an embedding index outside
[0, V) gives a row of zeros and adds nothing to the gradient; a label
outside [0, V) that is not ignore_index reads its logit as 0.

embedding backward: the gradient is summed into an f32 table by atomic
adds (the order of the adds to one row varies from run to run on a GPU:
not deterministic), then rounded once to the weight's dtype.  With
deterministic=True (or torch.use_deterministic_algorithms(True)) the
indices are sorted (stably, torch.sort) and the kernel's det pass sums each
row's gradient rows in that order, in f32, one program a row, and writes it
rounded once to the weight's dtype: the same bits every run, no f32 table.
"""
from typing import Tuple

import torch
from torch import Tensor

from . import _kernels as K
from . import _lib
from ._ops import HAVE_CUSTOM_OP

INDEX_DTYPES = {torch.int32: "", torch.int64: "_i64"}
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1


def _check_index(op, name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"luatile.{op}: {name} must be a torch.Tensor, not {type(t).__name__}")
    if t.dtype not in INDEX_DTYPES:
        raise TypeError(f"luatile.{op}: {name} has dtype {str(t.dtype).replace('torch.', '')}; "
                        "the kernels take int32 and int64")
    if t.layout != torch.strided:
        raise ValueError(f"luatile.{op}: {name} must be a dense (strided) tensor, not {t.layout}")


def _launch(device, name, *args):
    """Runs launcher `name` with args on the device's current stream."""
    lib = _lib.library(device)
    guard, stream = K._launch_env(device)
    with guard:
        lib.call(name, *args, stream)


# ---------------------------------------------------------------------------
# embedding


def check_embedding(indices, weight, padding_idx):
    K.check_tensor("embedding", "weight", weight, K.DTYPES, dim=2)
    _check_index("embedding", "input", indices)
    if indices.device != weight.device:
        raise ValueError(f"luatile.embedding: input is on {indices.device}, weight on {weight.device}: "
                         "they must be on the same device")
    V, D = weight.shape
    if padding_idx is not None:
        if not isinstance(padding_idx, int) or isinstance(padding_idx, bool):
            raise TypeError("luatile.embedding: padding_idx must be an int or None")
        if not -V <= padding_idx < V:
            raise ValueError(f"luatile.embedding: padding_idx {padding_idx} is outside [-{V}, {V})")
    K.check_sizes("embedding", V=V, D=D, N=indices.numel())


def embedding_forward(indices, weight):
    """Y[..., :] = weight[indices[...], :]; rows of zeros for indices outside."""
    V, D = weight.shape
    ids = indices.reshape(-1).contiguous()
    w = weight.contiguous()
    y = torch.empty((ids.numel(), D), dtype=weight.dtype, device=weight.device)
    if ids.numel() and D:
        name = f"embedding_{K.DTYPES[weight.dtype]}{INDEX_DTYPES[ids.dtype]}_fwd"
        _launch(weight.device, name, w.data_ptr(), ids.data_ptr(), y.data_ptr(), V, D, ids.numel())
    return y.reshape(*indices.shape, D)


def embedding_backward(grad, indices, V, dtype, padding_idx, deterministic=False):
    """dW [V, D] (dtype) = the rows of grad added at their indices, f32 sums;
    the rows of index padding_idx (None: none) add nothing.  deterministic:
    each row's sum in the order of the indices' positions (the det pass)."""
    D = grad.shape[-1]
    ids, g = indices.reshape(-1).contiguous(), grad.reshape(-1, D).contiguous()
    pad = -1 if padding_idx is None else padding_idx % V
    if ids.dtype == torch.int32 and not _I32_MIN <= pad <= _I32_MAX:
        pad = -1
    if deterministic:
        dw = torch.zeros((V, D), dtype=dtype, device=grad.device)
        if ids.numel() and D:
            s, perm = torch.sort(ids, stable=True)
            ends = torch.searchsorted(s, s, right=True).to(torch.int32)   # each run's end, no host sync
            perm = perm.to(torch.int32)
            name = f"embedding_{K.DTYPES[g.dtype]}{INDEX_DTYPES[ids.dtype]}_det"
            _launch(grad.device, name, g.data_ptr(), s.data_ptr(), perm.data_ptr(), ends.data_ptr(), dw.data_ptr(),
                    ids.numel(), D, V, pad)
        return dw
    dw = torch.zeros((V, D), dtype=torch.float32, device=grad.device)
    if ids.numel() and D:
        name = f"embedding_{K.DTYPES[g.dtype]}{INDEX_DTYPES[ids.dtype]}_bwd"
        _launch(grad.device, name, g.data_ptr(), ids.data_ptr(), dw.data_ptr(), ids.numel(), D, V, pad)
    return dw.to(dtype)


class Embedding(torch.autograd.Function):
    @staticmethod
    def forward(ctx, indices, weight, padding_idx, deterministic=None):
        check_embedding(indices, weight, padding_idx)
        if deterministic is not None and not isinstance(deterministic, bool):
            raise TypeError("luatile.embedding: deterministic must be a bool or None")
        ctx.save_for_backward(indices)
        ctx.V, ctx.dtype, ctx.padding_idx = weight.shape[0], weight.dtype, padding_idx
        ctx.deterministic = torch.are_deterministic_algorithms_enabled() if deterministic is None else deterministic
        return embedding_forward(indices, weight)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        if grad.dtype != ctx.dtype:
            grad = grad.to(ctx.dtype)
        dw = embedding_backward(grad, indices, ctx.V, ctx.dtype, ctx.padding_idx, ctx.deterministic)
        return None, dw, None, None


# ---------------------------------------------------------------------------
# cross_entropy

REDUCTIONS = ("mean", "sum", "none")


def check_cross_entropy(x, target, ignore_index, reduction, label_smoothing):
    K.check_tensor("cross_entropy", "input", x, K.DTYPES, dim=2)
    _check_index("cross_entropy", "target", target)
    if target.dim() != 1 or target.shape[0] != x.shape[0]:
        raise ValueError(f"luatile.cross_entropy: target must have shape ({x.shape[0]},) (one label a row of "
                         f"input), has {tuple(target.shape)}")
    if target.device != x.device:
        raise ValueError(f"luatile.cross_entropy: target is on {target.device}, input on {x.device}: "
                         "they must be on the same device")
    if reduction not in REDUCTIONS:
        raise ValueError(f"luatile.cross_entropy: reduction must be one of {', '.join(REDUCTIONS)}, not {reduction!r}")
    if not isinstance(ignore_index, int) or isinstance(ignore_index, bool):
        raise TypeError("luatile.cross_entropy: ignore_index must be an int")
    if not 0.0 <= float(label_smoothing) <= 1.0:
        raise ValueError(f"luatile.cross_entropy: label_smoothing {label_smoothing} is outside [0, 1]")
    N, V = x.shape
    if V == 0:
        raise ValueError("luatile.cross_entropy: input has no classes (its last dim is 0)")
    K.check_sizes("cross_entropy", N=N, V=V)


def _ignore(target, ignore_index):
    """ignore_index as the kernel's scalar; None for int32 labels and an index
    past int32, which no int32 label equals."""
    if target.dtype == torch.int32 and not _I32_MIN <= ignore_index <= _I32_MAX:
        return None
    return ignore_index


def cross_entropy_forward(x, target, ignore_index, label_smoothing):
    """(loss [N] f32, lse [N] f32): each row's loss, 0 where its label is ignore_index."""
    N, V = x.shape
    x, t = x.contiguous(), target.contiguous()
    loss = torch.empty(N, dtype=torch.float32, device=x.device)
    lse = torch.empty(N, dtype=torch.float32, device=x.device)
    if N:
        ign = _ignore(t, ignore_index)
        name = f"cross_entropy_{K.DTYPES[x.dtype]}{INDEX_DTYPES[t.dtype]}_fwd"
        # an ignore_index past int32 with int32 labels: 2^31 - 1, which no label in [0, V) equals
        _launch(x.device, name, x.data_ptr(), t.data_ptr(), loss.data_ptr(), lse.data_ptr(), N, V,
                ign if ign is not None else _I32_MAX, float(label_smoothing))
    return loss, lse


def cross_entropy_backward(dl, x, target, lse, ignore_index, label_smoothing):
    """dX [N, V] (x's dtype) for each row's loss gradient dl [N] (f32)."""
    N, V = x.shape
    x, t = x.contiguous(), target.contiguous()
    lse, dl = lse.contiguous(), dl.float().contiguous()   # kept alive until the launch returns
    dx = torch.empty((N, V), dtype=x.dtype, device=x.device)
    if N:
        ign = _ignore(t, ignore_index)
        name = f"cross_entropy_{K.DTYPES[x.dtype]}{INDEX_DTYPES[t.dtype]}_bwd"
        _launch(x.device, name, x.data_ptr(), t.data_ptr(), lse.data_ptr(), dl.data_ptr(), dx.data_ptr(), N, V,
                ign if ign is not None else _I32_MAX, float(label_smoothing))
    return dx


class CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target, ignore_index, reduction, label_smoothing):
        check_cross_entropy(x, target, ignore_index, reduction, label_smoothing)
        loss, lse = cross_entropy_forward(x, target, ignore_index, label_smoothing)
        count = None
        if reduction == "mean":
            count = (target != ignore_index).sum().to(torch.float32)
            out = loss.sum() / count
        elif reduction == "sum":
            out = loss.sum()
        else:
            out = loss
        ctx.save_for_backward(x, target, lse, count)
        ctx.ignore_index, ctx.reduction, ctx.label_smoothing = ignore_index, reduction, label_smoothing
        return out.to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, target, lse, count = ctx.saved_tensors
        N = x.shape[0]
        g = grad.float()
        if ctx.reduction == "mean":
            dl = (g / count).expand(N)
        elif ctx.reduction == "sum":
            dl = g.expand(N)
        else:
            dl = g
        dx = cross_entropy_backward(dl, x, target, lse, ctx.ignore_index, ctx.label_smoothing)
        return dx, None, None, None, None


# ---------------------------------------------------------------------------
# torch 2.4+: custom ops with fake implementations (shapes and dtypes only)

if HAVE_CUSTOM_OP:
    from torch.library import custom_op

    @custom_op("luatile::embedding", mutates_args=())
    def embedding_op(indices: Tensor, weight: Tensor, pad: int, deterministic: bool) -> Tensor:
        """pad: padding_idx % V, or -1 for none (the backward's)."""
        return embedding_forward(indices, weight)

    @embedding_op.register_fake
    def _(indices, weight, pad, deterministic):
        return weight.new_empty((*indices.shape, weight.shape[1]))

    @custom_op("luatile::embedding_backward", mutates_args=())
    def embedding_backward_op(grad: Tensor, indices: Tensor, V: int, pad: int, deterministic: bool) -> Tensor:
        return embedding_backward(grad, indices, V, grad.dtype, None if pad < 0 else pad, deterministic)

    @embedding_backward_op.register_fake
    def _(grad, indices, V, pad, deterministic):
        return grad.new_empty((V, grad.shape[-1]))

    def _embedding_setup(ctx, inputs, output):
        indices, weight, pad, deterministic = inputs
        ctx.save_for_backward(indices)
        ctx.V, ctx.dtype, ctx.pad, ctx.deterministic = weight.shape[0], weight.dtype, pad, deterministic

    def _embedding_bwd(ctx, grad):
        (indices,) = ctx.saved_tensors
        dw = embedding_backward_op(grad.to(ctx.dtype), indices, ctx.V, ctx.pad, ctx.deterministic)
        return None, dw, None, None

    embedding_op.register_autograd(_embedding_bwd, setup_context=_embedding_setup)

    @custom_op("luatile::cross_entropy_forward", mutates_args=())
    def cross_entropy_op(x: Tensor, target: Tensor, ignore_index: int, label_smoothing: float) -> Tuple[Tensor, Tensor]:
        return cross_entropy_forward(x, target, ignore_index, label_smoothing)

    @cross_entropy_op.register_fake
    def _(x, target, ignore_index, label_smoothing):
        return x.new_empty(x.shape[0], dtype=torch.float32), x.new_empty(x.shape[0], dtype=torch.float32)

    @custom_op("luatile::cross_entropy_backward", mutates_args=())
    def cross_entropy_backward_op(dl: Tensor, x: Tensor, target: Tensor, lse: Tensor, ignore_index: int,
                                  label_smoothing: float) -> Tensor:
        return cross_entropy_backward(dl, x, target, lse, ignore_index, label_smoothing)

    @cross_entropy_backward_op.register_fake
    def _(dl, x, target, lse, ignore_index, label_smoothing):
        return torch.empty_like(x)

    def _ce_setup(ctx, inputs, output):
        x, target, ignore_index, label_smoothing = inputs
        ctx.save_for_backward(x, target, output[1])
        ctx.ignore_index, ctx.label_smoothing = ignore_index, label_smoothing
        ctx.set_materialize_grads(False)

    def _ce_bwd(ctx, dloss, dlse):
        x, target, lse = ctx.saved_tensors
        if dloss is None:
            return None, None, None, None
        dx = cross_entropy_backward_op(dloss.float(), x, target, lse, ctx.ignore_index, ctx.label_smoothing)
        return dx, None, None, None

    cross_entropy_op.register_autograd(_ce_bwd, setup_context=_ce_setup)


def embedding(indices, weight, padding_idx=None, deterministic=None):
    """luatile.embedding: the custom op where torch has them, else Embedding."""
    if not HAVE_CUSTOM_OP:
        return Embedding.apply(indices, weight, padding_idx, deterministic)
    check_embedding(indices, weight, padding_idx)
    if deterministic is not None and not isinstance(deterministic, bool):
        raise TypeError("luatile.embedding: deterministic must be a bool or None")
    det = torch.are_deterministic_algorithms_enabled() if deterministic is None else deterministic
    pad = -1 if padding_idx is None else padding_idx % weight.shape[0]
    return embedding_op(indices, weight, pad, det)


def cross_entropy(x, target, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """luatile.cross_entropy: the custom ops where torch has them (the
    reduction in torch ops), else CrossEntropy."""
    if not HAVE_CUSTOM_OP:
        return CrossEntropy.apply(x, target, ignore_index, reduction, label_smoothing)
    check_cross_entropy(x, target, ignore_index, reduction, label_smoothing)
    loss, _ = cross_entropy_op(x, target, ignore_index, float(label_smoothing))
    if reduction == "mean":
        out = loss.sum() / (target != ignore_index).sum().to(torch.float32)
    elif reduction == "sum":
        out = loss.sum()
    else:
        out = loss
    return out.to(x.dtype)
