"""The operators: torch.library custom ops on torch 2.4 and later
(luatile::attention, ...; fake implementations for torch.compile, autograd
registered), plain torch.autograd.Function classes on older torch.

Backward rules:
  attention   the shipped backward kernels (attention_bwd_pre, _dkdv, _dq)
  matmul      luatile matmuls with transposed layouts (dA = dZ B^T, dB = A^T dZ);
              the activation's derivative and the bias gradient in torch ops;
              gelu and silu recompute the pre-activation with one more matmul
  rms_norm, layer_norm, softmax, bias_gelu   torch ops in f32 (no backward kernels)
  add         the gradient passes through
"""
import os
from typing import Optional, Tuple

import torch
from torch import Tensor

from . import _kernels as K

HAVE_CUSTOM_OP = (hasattr(torch.library, "custom_op") and os.environ.get("LUATILE_NO_CUSTOM_OP", "") in ("", "0"))


# ---------------------------------------------------------------------------
# backward formulas (torch ops and luatile ops; shared by both front ends)


def _sum_to(g, n):
    """g summed over all dims but the last n."""
    return g.reshape(-1, *g.shape[g.dim() - n:]).sum(0) if g.dim() > n else g


def rms_norm_backward(g, x, w, eps):
    xf, wf, gf = x.float(), w.float(), g.float()
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    gw = gf * wf
    dx = r * gw - xf * r.pow(3) * (gw * xf).mean(-1, keepdim=True)
    dw = _sum_to(gf * xf * r, 1)
    return dx.to(x.dtype), dw.to(w.dtype)


def layer_norm_backward(g, x, w, eps):
    xf, wf, gf = x.float(), w.float(), g.float()
    mu = xf.mean(-1, keepdim=True)
    r = torch.rsqrt((xf - mu).pow(2).mean(-1, keepdim=True) + eps)
    xh = (xf - mu) * r
    gx = gf * wf
    dx = r * (gx - gx.mean(-1, keepdim=True) - xh * (gx * xh).mean(-1, keepdim=True))
    return dx.to(x.dtype), _sum_to(gf * xh, 1).to(w.dtype), _sum_to(gf, 1).to(w.dtype)


def softmax_backward(g, y):
    yf, gf = y.float(), g.float()
    return (yf * (gf - (gf * yf).sum(-1, keepdim=True))).to(y.dtype)


def _activation_grad(activation, z):
    """act'(z) in f32."""
    if activation == "relu":
        return (z > 0).float()
    if activation == "gelu":
        return 0.5 * (1 + torch.erf(z * 0.7071067811865476)) + z * torch.exp(-0.5 * z * z) * 0.3989422804014327
    s = torch.sigmoid(z)
    return s * (1 + z * (1 - s))


def bias_gelu_backward(g, x, b):
    z = x.float() + b.float()
    dz = g.float() * _activation_grad("gelu", z)
    return dz.to(x.dtype), _sum_to(dz, 1).to(b.dtype)


def matmul_backward(needs, g, a, b, bias, out, activation, matmul):
    """Gradients of act(a @ b + bias) for a, b and bias (None where not needed)."""
    if activation == "none":
        dz = g
    else:
        if activation == "relu":
            z = out
        else:   # gelu, silu: recompute the pre-activation
            z = matmul(a, b, bias, "none")
        dz = (g.float() * _activation_grad(activation, z.float())).to(g.dtype)
    da = db = dbias = None
    if needs[0]:
        da = matmul(dz, b.transpose(-1, -2), None, "none")
    if needs[1]:
        if b.dim() == 2:
            Kdim, N = b.shape
            db = matmul(a.reshape(-1, Kdim).transpose(0, 1), dz.reshape(-1, N), None, "none")
        else:
            db = matmul(a.transpose(1, 2), dz, None, "none")
    if bias is not None and needs[2]:
        dbias = _sum_to(dz.float(), 1).to(bias.dtype)
    return da, db, dbias


# ---------------------------------------------------------------------------
# torch 2.4+: custom ops

if HAVE_CUSTOM_OP:
    from torch.library import custom_op

    @custom_op("luatile::attention", mutates_args=())
    def attention(q: Tensor, k: Tensor, v: Tensor, scale: float, window_left: int, window_right: int,
                  softcap: float) -> Tuple[Tensor, Tensor]:
        return K.attention(q, k, v, scale, window_left, window_right, softcap)

    @attention.register_fake
    def _(q, k, v, scale, window_left, window_right, softcap):
        return K.attention_fake(q, k, v, scale, window_left, window_right, softcap)

    @custom_op("luatile::attention_backward", mutates_args=())
    def attention_backward(grad_out: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor,
                           grad_lse: Optional[Tensor], scale: float, window_left: int, window_right: int,
                           softcap: float) -> Tuple[Tensor, Tensor, Tensor]:
        return K.attention_backward(grad_out, q, k, v, out, lse, grad_lse, scale, window_left, window_right,
                                    softcap)

    @attention_backward.register_fake
    def _(grad_out, q, k, v, out, lse, grad_lse, scale, window_left, window_right, softcap):
        return K.attention_backward_fake(grad_out, q, k, v, out, lse, grad_lse, scale, window_left,
                                         window_right, softcap)

    def _attention_setup(ctx, inputs, output):
        q, k, v, scale, wl, wr, cap = inputs
        ctx.save_for_backward(q, k, v, *output)
        ctx.params = (scale, wl, wr, cap)
        ctx.set_materialize_grads(False)   # an unused lse passes None, not zeros

    def _attention_bwd(ctx, do, dlse):
        q, k, v, o, lse = ctx.saved_tensors
        if do is None:
            do = torch.zeros_like(o)
        dq, dk, dv = attention_backward(do, q, k, v, o, lse, dlse, *ctx.params)
        return dq, dk, dv, None, None, None, None

    attention.register_autograd(_attention_bwd, setup_context=_attention_setup)

    @custom_op("luatile::matmul", mutates_args=())
    def matmul(a: Tensor, b: Tensor, bias: Optional[Tensor], activation: str) -> Tensor:
        return K.matmul(a, b, bias, activation)

    @matmul.register_fake
    def _(a, b, bias, activation):
        return K.matmul_fake(a, b, bias, activation)

    def _matmul_setup(ctx, inputs, output):
        a, b, bias, activation = inputs
        ctx.save_for_backward(a, b, bias, output if activation == "relu" else None)
        ctx.activation = activation

    def _matmul_bwd(ctx, g):
        a, b, bias, out = ctx.saved_tensors
        return (*matmul_backward(ctx.needs_input_grad, g, a, b, bias, out, ctx.activation, matmul), None)

    matmul.register_autograd(_matmul_bwd, setup_context=_matmul_setup)

    @custom_op("luatile::rms_norm", mutates_args=())
    def rms_norm(x: Tensor, weight: Tensor, eps: float) -> Tensor:
        return K.rms_norm(x, weight, eps)

    @rms_norm.register_fake
    def _(x, weight, eps):
        return K.row_fake("rms_norm", x, [("weight", weight)])

    def _rms_setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], inputs[1])
        ctx.eps = inputs[2]

    def _rms_bwd(ctx, g):
        x, w = ctx.saved_tensors
        return (*rms_norm_backward(g, x, w, ctx.eps), None)

    rms_norm.register_autograd(_rms_bwd, setup_context=_rms_setup)

    @custom_op("luatile::layer_norm", mutates_args=())
    def layer_norm(x: Tensor, weight: Tensor, bias: Tensor, eps: float) -> Tensor:
        return K.layer_norm(x, weight, bias, eps)

    @layer_norm.register_fake
    def _(x, weight, bias, eps):
        return K.row_fake("layer_norm", x, [("weight", weight), ("bias", bias)])

    def _ln_setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], inputs[1])
        ctx.eps = inputs[3]

    def _ln_bwd(ctx, g):
        x, w = ctx.saved_tensors
        return (*layer_norm_backward(g, x, w, ctx.eps), None)

    layer_norm.register_autograd(_ln_bwd, setup_context=_ln_setup)

    @custom_op("luatile::softmax", mutates_args=())
    def softmax(x: Tensor) -> Tensor:
        return K.softmax(x)

    @softmax.register_fake
    def _(x):
        return K.row_fake("softmax", x, [])

    def _sm_setup(ctx, inputs, output):
        ctx.save_for_backward(output)

    def _sm_bwd(ctx, g):
        (y,) = ctx.saved_tensors
        return softmax_backward(g, y)

    softmax.register_autograd(_sm_bwd, setup_context=_sm_setup)

    @custom_op("luatile::bias_gelu", mutates_args=())
    def bias_gelu(x: Tensor, bias: Tensor) -> Tensor:
        return K.bias_gelu(x, bias)

    @bias_gelu.register_fake
    def _(x, bias):
        return K.row_fake("bias_gelu", x, [("bias", bias)])

    def _bg_setup(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    def _bg_bwd(ctx, g):
        x, b = ctx.saved_tensors
        return bias_gelu_backward(g, x, b)

    bias_gelu.register_autograd(_bg_bwd, setup_context=_bg_setup)

    @custom_op("luatile::add", mutates_args=())
    def add(x: Tensor, y: Tensor) -> Tensor:
        return K.add(x, y)

    @add.register_fake
    def _(x, y):
        return K.add_fake(x, y)

    def _add_setup(ctx, inputs, output):
        pass

    def _add_bwd(ctx, g):
        return g, g

    add.register_autograd(_add_bwd, setup_context=_add_setup)

    # What the entry points call: the OpOverloads, one Python call fewer than the CustomOpDef objects.
    attention_op, matmul_op, rms_norm_op, layer_norm_op, softmax_op, bias_gelu_op, add_op = (
        getattr(torch.ops.luatile, n).default
        for n in ("attention", "matmul", "rms_norm", "layer_norm", "softmax", "bias_gelu", "add"))

# ---------------------------------------------------------------------------
# older torch: torch.autograd.Function

else:
    class _Attention(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v, scale, wl, wr, cap):
            o, lse = K.attention(q, k, v, scale, wl, wr, cap)
            ctx.save_for_backward(q, k, v, o, lse)
            ctx.params = (scale, wl, wr, cap)
            ctx.set_materialize_grads(False)
            return o, lse

        @staticmethod
        def backward(ctx, do, dlse):
            q, k, v, o, lse = ctx.saved_tensors
            if do is None:
                do = torch.zeros_like(o)
            dq, dk, dv = K.attention_backward(do, q, k, v, o, lse, dlse, *ctx.params)
            return dq, dk, dv, None, None, None, None

    class _Matmul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, bias, activation):
            out = K.matmul(a, b, bias, activation)
            ctx.save_for_backward(a, b, bias, out if activation == "relu" else None)
            ctx.activation = activation
            return out

        @staticmethod
        def backward(ctx, g):
            a, b, bias, out = ctx.saved_tensors
            return (*matmul_backward(ctx.needs_input_grad, g, a, b, bias, out, ctx.activation, matmul), None)

    class _RmsNorm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, eps):
            ctx.save_for_backward(x, w)
            ctx.eps = eps
            return K.rms_norm(x, w, eps)

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return (*rms_norm_backward(g, x, w, ctx.eps), None)

    class _LayerNorm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b, eps):
            ctx.save_for_backward(x, w)
            ctx.eps = eps
            return K.layer_norm(x, w, b, eps)

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return (*layer_norm_backward(g, x, w, ctx.eps), None)

    class _Softmax(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = K.softmax(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return softmax_backward(g, y)

    class _BiasGelu(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, b):
            ctx.save_for_backward(x, b)
            return K.bias_gelu(x, b)

        @staticmethod
        def backward(ctx, g):
            x, b = ctx.saved_tensors
            return bias_gelu_backward(g, x, b)

    class _Add(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return K.add(x, y)

        @staticmethod
        def backward(ctx, g):
            return g, g

    def attention(q, k, v, scale, window_left, window_right, softcap):
        return _Attention.apply(q, k, v, scale, window_left, window_right, softcap)

    def attention_backward(grad_out, q, k, v, out, lse, grad_lse, scale, window_left, window_right, softcap):
        return K.attention_backward(grad_out, q, k, v, out, lse, grad_lse, scale, window_left, window_right,
                                    softcap)

    def matmul(a, b, bias, activation):
        return _Matmul.apply(a, b, bias, activation)

    def rms_norm(x, weight, eps):
        return _RmsNorm.apply(x, weight, eps)

    def layer_norm(x, weight, bias, eps):
        return _LayerNorm.apply(x, weight, bias, eps)

    def softmax(x):
        return _Softmax.apply(x)

    def bias_gelu(x, bias):
        return _BiasGelu.apply(x, bias)

    def add(x, y):
        return _Add.apply(x, y)

    # What the entry points call (the same, one Python call fewer).
    attention_op, matmul_op, rms_norm_op, layer_norm_op, softmax_op, bias_gelu_op, add_op = (
        _Attention.apply, _Matmul.apply, _RmsNorm.apply, _LayerNorm.apply, _Softmax.apply, _BiasGelu.apply, _Add.apply)
