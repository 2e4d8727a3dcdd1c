"""The mixture-of-experts GEMMs: grouped_matmul (dsl/kernels/grouped_matmul.lua)
and matmul_fp8 (dsl/kernels/matmul_fp8.lua), forward only: torch.library
custom ops on torch 2.4 and later (luatile::grouped_matmul,
luatile::matmul_fp8; fake implementations for torch.compile and
FakeTensorMode), plain calls on older torch.  The arguments are checked in
Python before either runs.  Neither has a backward yet: a tensor that needs
a gradient is refused rather than given a wrong one.

grouped_matmul(x [T, K], w, offs [G + 1] int32, layout): y [T, N], rows
offs[g] .. offs[g + 1] - 1 of y = the same rows of x @ w[g] (w [G, K, N],
layout "kn") or @ w[g].T (w [G, N, K], layout "nk", as nn.Linear stores
each expert).  offs lies on x's device, non-decreasing within [0, T] (the
kernel reads it there: no host sync); rows of y outside [offs[0], offs[G])
are zeros (the kernel writes only the groups' rows; y starts as zeros).
Offsets that break the rules give wrong rows, never an access outside a
tensor (the kernel masks every view).

matmul_fp8(a [M, K], b [N, K], scale_a, scale_b, fast_accum): bf16 [M, N] =
(a @ b.T) * scale_a * scale_b, a and b float8_e4m3fn, as torch._scaled_mm
(b given as the [N, K] rows torch's column-major operand holds).  Scales:
f32 tensors of one element (per-tensor; read on the host) or scale_a [M, 1]
and scale_b [1, N] (per row of a, per column of the result).  fast_accum
(the tensor cores' accumulator over all of K) is sm90a's alone.
"""
import torch
from torch import Tensor

from . import _kernels as K
from . import _lib
from ._ops import HAVE_CUSTOM_OP

GM_DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16"}
LAYOUTS = ("kn", "nk")
FP8 = getattr(torch, "float8_e4m3fn", None)   # torch 2.1 and later


def _launch(device, name, *args):
    """Runs launcher `name` with args on the device's current stream."""
    lib = _lib.library(device)
    guard, stream = K._launch_env(device)
    with guard:
        lib.call(name, *args, stream)


def _no_grad(op, **tensors):
    for name, t in tensors.items():
        if t.requires_grad and torch.is_grad_enabled():
            raise RuntimeError(f"luatile.{op}: {name} requires grad, and {op} has no backward yet")


# ---------------------------------------------------------------------------
# grouped_matmul


def check_grouped(x, w, offs, layout):
    K.check_tensor("grouped_matmul", "x", x, GM_DTYPES, dim=2)
    K.check_tensor("grouped_matmul", "w", w, GM_DTYPES, dim=3)
    K.check_tensor("grouped_matmul", "offs", offs, {torch.int32: "i32"}, dim=1)
    if w.dtype != x.dtype:
        raise TypeError(f"luatile.grouped_matmul: w has dtype {str(w.dtype)[6:]}, x {str(x.dtype)[6:]}: "
                        "they must be the same")
    if layout not in LAYOUTS:
        raise ValueError(f"luatile.grouped_matmul: layout must be 'kn' (w [G, K, N]) or 'nk' (w [G, N, K]), "
                         f"not {layout!r}")
    if w.device != x.device or offs.device != x.device:
        raise ValueError(f"luatile.grouped_matmul: x is on {x.device}, w on {w.device}, offs on {offs.device}: "
                         "they must be on one device")
    G = w.shape[0]
    k_w = w.shape[1] if layout == "kn" else w.shape[2]
    if k_w != x.shape[1]:
        raise ValueError(f"luatile.grouped_matmul: x is {tuple(x.shape)}, w ({layout}) {tuple(w.shape)}: "
                         f"w's K ({k_w}) must be x's last dim ({x.shape[1]})")
    if offs.shape[0] != G + 1:
        raise ValueError(f"luatile.grouped_matmul: offs has {offs.shape[0]} entries; w has {G} groups, so "
                         f"offs needs {G + 1}")
    if G < 1:
        raise ValueError("luatile.grouped_matmul: w has no groups")
    _no_grad("grouped_matmul", x=x, w=w)
    K.check_sizes("grouped_matmul", T=x.shape[0], K=x.shape[1], N=grouped_n(w, layout), G1=G + 1)


def grouped_n(w, layout):
    return w.shape[2] if layout == "kn" else w.shape[1]


def grouped_matmul_forward(x, w, offs, layout):
    T, Kd = x.shape
    G, N = w.shape[0], grouped_n(w, layout)
    y = x.new_zeros((T, N))
    if T and N and Kd:
        x, w, offs = x.contiguous(), w.contiguous(), offs.contiguous()
        name = f"grouped_matmul_{GM_DTYPES[x.dtype]}_{layout}"
        _launch(x.device, name, x.data_ptr(), w.data_ptr(), offs.data_ptr(), y.data_ptr(), T, Kd, G, N, G + 1)
    return y


# ---------------------------------------------------------------------------
# matmul_fp8


def fp8_scale_kind(scale_a, scale_b):
    """'tensor' where both scales have one element (so too an [M, 1] and a
    [1, N] one of M = N = 1: the same product), else 'row'."""
    return "tensor" if scale_a.numel() == 1 and scale_b.numel() == 1 else "row"


def check_fp8(a, b, scale_a, scale_b, fast_accum):
    if FP8 is None:
        raise TypeError(f"luatile.matmul_fp8: torch {torch.__version__} has no float8_e4m3fn")
    K.check_tensor("matmul_fp8", "a", a, {FP8: "float8_e4m3fn"}, dim=2)
    K.check_tensor("matmul_fp8", "b", b, {FP8: "float8_e4m3fn"}, dim=2)
    if b.device != a.device:
        raise ValueError(f"luatile.matmul_fp8: a is on {a.device}, b on {b.device}: they must be on one device")
    if b.shape[1] != a.shape[1]:
        raise ValueError(f"luatile.matmul_fp8: a is {tuple(a.shape)}, b {tuple(b.shape)}: b holds the [N, K] rows "
                         "of the right operand, its K must be a's")
    M, N = a.shape[0], b.shape[0]
    for name, s in (("scale_a", scale_a), ("scale_b", scale_b)):
        K.check_tensor("matmul_fp8", name, s, {torch.float32: "f32"})
        if s.device != a.device:
            raise ValueError(f"luatile.matmul_fp8: {name} is on {s.device}, a on {a.device}: they must be on one "
                             "device")
    if fp8_scale_kind(scale_a, scale_b) == "row" and (tuple(scale_a.shape) != (M, 1) or tuple(scale_b.shape) != (1, N)):
        raise ValueError(f"luatile.matmul_fp8: scales of shapes {tuple(scale_a.shape)} and {tuple(scale_b.shape)}; "
                         f"they must both have one element (per-tensor) or be ({M}, 1) and (1, {N}) (per row)")
    if not isinstance(fast_accum, bool):
        raise TypeError("luatile.matmul_fp8: fast_accum must be a bool")
    K.check_sizes("matmul_fp8", M=M, K=a.shape[1], N=N)


def matmul_fp8_forward(a, b, scale_a, scale_b, fast_accum):
    M, Kd = a.shape
    N = b.shape[0]
    scale = fp8_scale_kind(scale_a, scale_b)
    c = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    if not (M and N):
        return c
    if Kd == 0:
        return c.zero_()
    a, b = a.contiguous(), b.contiguous()
    name = f"matmul_fp8{'_fast_accum' if fast_accum else ''}_{scale}"
    if scale == "tensor":
        _launch(a.device, name, a.data_ptr(), b.data_ptr(), c.data_ptr(), M, Kd, N, float(scale_a.reshape(())),
                float(scale_b.reshape(())))
    else:
        sa, sb = scale_a.contiguous(), scale_b.contiguous()
        _launch(a.device, name, a.data_ptr(), b.data_ptr(), c.data_ptr(), sa.data_ptr(), sb.data_ptr(), M, Kd, N)
    return c


# ---------------------------------------------------------------------------
# torch 2.4+: custom ops with fake implementations (shapes and dtypes only)

if HAVE_CUSTOM_OP:
    from torch.library import custom_op

    @custom_op("luatile::grouped_matmul", mutates_args=())
    def grouped_matmul_op(x: Tensor, w: Tensor, offs: Tensor, layout: str) -> Tensor:
        return grouped_matmul_forward(x, w, offs, layout)

    @grouped_matmul_op.register_fake
    def _(x, w, offs, layout):
        return x.new_empty((x.shape[0], grouped_n(w, layout)))

    @custom_op("luatile::matmul_fp8", mutates_args=())
    def matmul_fp8_op(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, fast_accum: bool) -> Tensor:
        return matmul_fp8_forward(a, b, scale_a, scale_b, fast_accum)

    @matmul_fp8_op.register_fake
    def _(a, b, scale_a, scale_b, fast_accum):
        return a.new_empty((a.shape[0], b.shape[0]), dtype=torch.bfloat16)


def grouped_matmul(x, w, offs, layout="kn"):
    """luatile.grouped_matmul: the custom op where torch has them, else the call."""
    check_grouped(x, w, offs, layout)
    if HAVE_CUSTOM_OP:
        return grouped_matmul_op(x, w, offs, layout)
    return grouped_matmul_forward(x, w, offs, layout)


def matmul_fp8(a, b, scale_a, scale_b, fast_accum=False):
    """luatile.matmul_fp8: the custom op where torch has them, else the call."""
    check_fp8(a, b, scale_a, scale_b, fast_accum)
    _no_grad("matmul_fp8", scale_a=scale_a, scale_b=scale_b)
    if HAVE_CUSTOM_OP:
        return matmul_fp8_op(a, b, scale_a, scale_b, fast_accum)
    return matmul_fp8_forward(a, b, scale_a, scale_b, fast_accum)
