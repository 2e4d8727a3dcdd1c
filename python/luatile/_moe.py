"""The mixture-of-experts GEMMs: grouped_matmul (dsl/kernels/grouped_matmul.lua)
and matmul_fp8 (dsl/kernels/matmul_fp8.lua), with their backward:
torch.library custom ops on torch 2.4 and later (luatile::grouped_matmul,
luatile::grouped_matmul_weight_grad, luatile::matmul_fp8; fake
implementations for torch.compile and FakeTensorMode, autograd through
register_autograd), torch.autograd.Function classes on older torch.  The
arguments are checked in Python before either runs.

grouped_matmul(x [T, K], w, offs [G + 1] int32, layout): y [T, N], rows
offs[g] .. offs[g + 1] - 1 of y = the same rows of x @ w[g] (w [G, K, N],
layout "kn") or @ w[g].T (w [G, N, K], layout "nk", as nn.Linear stores
each expert).  offs lies on x's device, non-decreasing within [0, T] (the
kernel reads it there: no host sync); rows of y outside [offs[0], offs[G])
are zeros (the kernel writes only the groups' rows; y starts as zeros).
Offsets that break the rules give wrong rows, never an access outside a
tensor (the kernel masks every view).  Backward: dx by the same kernel in
the other layout (dy's rows of group g @ w[g].T is the nk product of w
read as [G, N, K], and @ w[g] the kn one of w read as [G, K, N]), zeros
outside the groups; dw[g] = x[rows of g].T @ dy[rows of g] (its
transpose for nk), zeros for an empty group, by torch.matmul a group
(f32 accumulation) after one read of offs on the host.

matmul_fp8(a [M, K], b [N, K], scale_a, scale_b, fast_accum): bf16 [M, N] =
(a @ b.T) * scale_a * scale_b, a and b float8_e4m3fn, as torch._scaled_mm
(b given as the [N, K] rows torch's column-major operand holds).  Scales:
f32 tensors of one element (per-tensor; read on the host) or scale_a [M, 1]
and scale_b [1, N] (per row of a, per column of the result).  fast_accum
(the tensor cores' accumulator over all of K) is sm90a's alone.  Backward
in torch f32 ops (fp8_backward): with s = scale_a * scale_b, da = (dc * s)
@ b and db = (dc * s).T @ a, saturated to e4m3fn's +-448 and rounded to
float8_e4m3fn (an input's gradient has its dtype); a scale's gradient is
the sum of dc * (a @ b.T) * the other scale over its element's products.
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
    K.check_sizes("grouped_matmul", T=x.shape[0], K=x.shape[1], N=grouped_n(w, layout), G1=G + 1)


def grouped_n(w, layout):
    return w.shape[2] if layout == "kn" else w.shape[1]


def grouped_matmul_forward(x, w, offs, layout):
    """y [T, N] by the kernel of w's layout; zeros outside the groups."""
    T, Kd = x.shape
    G, N = w.shape[0], grouped_n(w, layout)
    y = x.new_zeros((T, N))
    if T and N and Kd:
        x, w, offs = x.contiguous(), w.contiguous(), offs.contiguous()
        name = f"grouped_matmul_{GM_DTYPES[x.dtype]}_{layout}"
        _launch(x.device, name, x.data_ptr(), w.data_ptr(), offs.data_ptr(), y.data_ptr(), T, Kd, G, N, G + 1)
    return y


def grouped_other(layout):
    """The layout whose product with the same w is the backward's dx."""
    return "nk" if layout == "kn" else "kn"


def grouped_weight_grad(x, dy, offs, G, layout):
    """dw in w's layout ([G, K, N] kn, [G, N, K] nk) for y = grouped_matmul(x,
    w, offs, layout) and its gradient dy [T, N]: x[a:b].T @ dy[a:b] (kn) or
    dy[a:b].T @ x[a:b] (nk) for group g's rows a .. b - 1, zeros for an empty
    group.  Reads offs on the host (one sync), each bound clamped to [0, T]
    and b to >= a, as slices; torch.matmul in x's dtype on a GPU (f32
    accumulation), in f32 on the CPU; rounded once to x's dtype."""
    T, Kd = x.shape
    N = dy.shape[1]
    dw = x.new_zeros((G, Kd, N) if layout == "kn" else (G, N, Kd))
    o = offs.tolist()
    for g in range(G):
        a = min(max(o[g], 0), T)
        b = min(max(o[g + 1], a), T)
        if b == a:
            continue
        xs, gs = x[a:b], dy[a:b]
        if not xs.is_cuda:
            xs, gs = xs.float(), gs.float()
        dw[g] = xs.t() @ gs if layout == "kn" else gs.t() @ xs
    return dw


def grouped_backward(ctx, dy, forward, weight_grad):
    """dx, dw (and None for offs and layout) of y = grouped_matmul(x, w, offs,
    layout), x, w and offs saved in ctx: dx by forward (the grouped kernel,
    in the other layout), dw by weight_grad; each only where needed."""
    x, w, offs = ctx.saved_tensors
    dy = dy.to(x.dtype).contiguous()
    dx = forward(dy, w, offs, grouped_other(ctx.layout)) if ctx.needs_input_grad[0] else None
    dw = weight_grad(x, dy, offs, w.shape[0], ctx.layout) if ctx.needs_input_grad[1] else None
    return dx, dw, None, None


class GroupedMatmul(torch.autograd.Function):
    """grouped_matmul on torch before 2.4 (no custom ops)."""

    @staticmethod
    def forward(ctx, x, w, offs, layout):
        ctx.save_for_backward(x, w, offs)
        ctx.layout = layout
        return grouped_matmul_forward(x, w, offs, layout)

    @staticmethod
    def backward(ctx, dy):
        return grouped_backward(ctx, dy, grouped_matmul_forward, grouped_weight_grad)


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


def fp8_backward(needs, dc, a, b, scale_a, scale_b):
    """The gradients of c = (a @ b.T) * scale_a * scale_b for dc [M, N], those
    of the inputs whose needs (4 bools: a, b, scale_a, scale_b) is true, else
    None; in torch f32 ops.  With s = scale_a * scale_b ([M, N] by broadcast,
    or one number): da = (dc * s) @ b, db = (dc * s).T @ a; dscale_a = the sum
    over n (per row; over everything per tensor) of dc * (a @ b.T) * scale_b,
    dscale_b over m likewise with scale_a.  Each in its input's shape and
    dtype: float8_e4m3fn ones saturated to +-448 (its largest finite value)
    before rounding, so that a large gradient is not NaN."""
    g = dc.float()
    af, bf = a.float(), b.float()
    if fp8_scale_kind(scale_a, scale_b) == "row":
        sa, sb = scale_a.float(), scale_b.float()
        red_a, red_b = (lambda t: t.sum(1, keepdim=True)), (lambda t: t.sum(0, keepdim=True))
    else:
        sa, sb = scale_a.float().reshape(()), scale_b.float().reshape(())
        red_a = red_b = (lambda t: t.sum())
    gs = g * sa * sb
    da = gs @ bf if needs[0] else None
    db = gs.t() @ af if needs[1] else None
    dsa = dsb = None
    if needs[2] or needs[3]:
        gacc = g * (af @ bf.t())
        dsa = red_a(gacc * sb) if needs[2] else None
        dsb = red_b(gacc * sa) if needs[3] else None

    def like(t, x):
        if t is None:
            return None
        if FP8 is not None and x.dtype == FP8:
            t = t.clamp(-448.0, 448.0)
        return t.reshape(x.shape).to(x.dtype)
    return like(da, a), like(db, b), like(dsa, scale_a), like(dsb, scale_b)


class MatmulFp8(torch.autograd.Function):
    """matmul_fp8 on torch 2.1 to 2.3 (float8 dtypes, no custom ops)."""

    @staticmethod
    def forward(ctx, a, b, scale_a, scale_b, fast_accum):
        ctx.save_for_backward(a, b, scale_a, scale_b)
        return matmul_fp8_forward(a, b, scale_a, scale_b, fast_accum)

    @staticmethod
    def backward(ctx, dc):
        a, b, scale_a, scale_b = ctx.saved_tensors
        return (*fp8_backward(ctx.needs_input_grad[:4], dc, a, b, scale_a, scale_b), None)


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

    @custom_op("luatile::grouped_matmul_weight_grad", mutates_args=())
    def grouped_weight_grad_op(x: Tensor, dy: Tensor, offs: Tensor, G: int, layout: str) -> Tensor:
        return grouped_weight_grad(x, dy, offs, G, layout)

    @grouped_weight_grad_op.register_fake
    def _(x, dy, offs, G, layout):
        K_, N_ = x.shape[1], dy.shape[1]
        return x.new_empty((G, K_, N_) if layout == "kn" else (G, N_, K_))

    def _gm_setup(ctx, inputs, output):
        x, w, offs, layout = inputs
        ctx.save_for_backward(x, w, offs)
        ctx.layout = layout

    def _gm_bwd(ctx, dy):
        return grouped_backward(ctx, dy, grouped_matmul_op, grouped_weight_grad_op)

    grouped_matmul_op.register_autograd(_gm_bwd, setup_context=_gm_setup)

    @custom_op("luatile::matmul_fp8", mutates_args=())
    def matmul_fp8_op(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, fast_accum: bool) -> Tensor:
        return matmul_fp8_forward(a, b, scale_a, scale_b, fast_accum)

    @matmul_fp8_op.register_fake
    def _(a, b, scale_a, scale_b, fast_accum):
        return a.new_empty((a.shape[0], b.shape[0]), dtype=torch.bfloat16)

    def _fp8_setup(ctx, inputs, output):
        a, b, scale_a, scale_b, fast_accum = inputs
        ctx.save_for_backward(a, b, scale_a, scale_b)

    matmul_fp8_op.register_autograd(MatmulFp8.backward, setup_context=_fp8_setup)


def grouped_matmul(x, w, offs, layout="kn"):
    """luatile.grouped_matmul: the custom op where torch has them, else GroupedMatmul."""
    check_grouped(x, w, offs, layout)
    if HAVE_CUSTOM_OP:
        return grouped_matmul_op(x, w, offs, layout)
    return GroupedMatmul.apply(x, w, offs, layout)


def matmul_fp8(a, b, scale_a, scale_b, fast_accum=False):
    """luatile.matmul_fp8: the custom op where torch has them, else MatmulFp8."""
    check_fp8(a, b, scale_a, scale_b, fast_accum)
    if HAVE_CUSTOM_OP:
        return matmul_fp8_op(a, b, scale_a, scale_b, fast_accum)
    return MatmulFp8.apply(a, b, scale_a, scale_b, fast_accum)
