#!/usr/bin/env python3
"""tests/python/test_torch.py: the luatile PyTorch package against torch itself.

    python3 tests/python/test_torch.py [--device cpu|cuda] [--quick]

Loads python/luatile and the library for the device (build/lib/libluatile_c.so
for CPU tensors: ./build.sh lib c; sm90a or sm80 for CUDA tensors) and checks,
printing one PASS / FAIL / SKIP line per check:

  fwd/*      each op on random inputs of ragged shapes, against torch's own
             ops in float64 on the same (rounded) inputs: rms_norm, layer_norm,
             softmax, bias_gelu, add (f32, bf16, f16); matmul (every layout,
             epilogue, 2-d, batched, transposed views); attention (f16, bf16,
             each head dim; GQA, causal, windows, softcap, Sq != Sk, rows that
             see no key, [B, S, H, D] views)
  bwd/*      gradients against float64 autograd of the same reference
  layout/*   non-contiguous inputs give the right result (read in place or copied)
  op-path    the entry points' direct calls and the operators agree
  fast-path  the common cases launch through the fast calls (_kernels.*_fast: the
             C ones of the call module, python/luatile/_fast.c, and the Python
             ones), with the general path's results; the rest falls back to it;
             C and Python agree on random cases; a failing launcher raises
  error/*    bad inputs raise the documented Python exception (dtype, device,
             shape, arguments), a failing launcher raises LaunchError, a
             missing library LibraryNotFound with the build command
  opcheck/*  (torch 2.4+) torch.library.opcheck on every custom op

Inputs are fresh random draws each run (seed printed; SEED=N repeats one).
Exits 0 unless a check failed.
"""
import math
import os
import random
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import luatile  # noqa: E402
from luatile import _lib  # noqa: E402

DEV = "cpu"
QUICK = False
RESULTS = []
R = random.Random()


class Skip(Exception):
    pass


def check(name, fn):
    try:
        fn()
    except Skip as e:
        RESULTS.append("SKIP")
        print(f"SKIP python/{name}: {e}", flush=True)
    except Exception as e:  # noqa: BLE001
        RESULTS.append("FAIL")
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"FAIL python/{name}: {type(e).__name__}: {msg[:300]}", flush=True)
        if os.environ.get("VERBOSE"):
            traceback.print_exc()
    else:
        RESULTS.append("PASS")
        print(f"PASS python/{name}", flush=True)


def rel_err(got, ref, scale=None):
    got, ref = got.double().cpu(), ref.double().cpu()
    if got.shape != ref.shape:
        raise AssertionError(f"shape {tuple(got.shape)}, expected {tuple(ref.shape)}")
    if not torch.isfinite(got).all():
        raise AssertionError("non-finite values in the result")
    n = max(ref.norm().item(), 1e-3 * math.sqrt(ref.numel()))   # results near 0: an absolute error
    if scale is not None:
        n = max(n, scale.double().cpu().norm().item())
    return (got - ref).norm().item() / (n if n > 0 else 1.0)


def close(what, got, ref, tol, scale=None):
    """Fails unless got is within tol of ref, relative to ref's norm, or to
    scale's where larger: for ops whose rounding error grows with their input
    rather than their output (GELU at negative inputs, where 1 + erf(z)
    cancels)."""
    e = rel_err(got, ref, scale)
    if not e <= tol:
        raise AssertionError(f"{what}: relative error {e:.2e} > {tol:.0e}")


TOL = {torch.float32: 2e-5, torch.bfloat16: 1.5e-2, torch.float16: 2e-3}
NAMES = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}


def randn(*shape, dtype=torch.float32, scale=1.0):
    return (torch.randn(*shape, dtype=torch.float64) * scale).to(dtype).to(DEV)


def raises(exc, fn, *words):
    try:
        fn()
    except exc as e:
        for w in words:
            if w not in str(e):
                raise AssertionError(f"{type(e).__name__} without '{w}': {e}")
        return
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"raised {type(e).__name__} ({e}), expected {exc.__name__}") from None
    raise AssertionError(f"no {exc.__name__} raised")


# ---------------------------------------------------------------------------
# references (float64)


def ref_attention(q, k, v, scale, wl=-1, wr=-1, softcap=0.0):
    """o, lse of docs/attention.md in float64; lse +inf where no key is visible."""
    q, k, v = q.double(), k.double(), v.double()
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
    s = scale * q @ k.transpose(-1, -2)
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    Sq, Sk = s.shape[-2], s.shape[-1]
    i = torch.arange(Sq, device=s.device)[:, None]
    j = torch.arange(Sk, device=s.device)[None, :]
    vis = torch.ones(Sq, Sk, dtype=torch.bool, device=s.device)
    if wl >= 0:
        vis &= j >= i + Sk - Sq - wl
    if wr >= 0:
        vis &= j <= i + Sk - Sq + wr
    any_vis = vis.any(-1, keepdim=True)
    sm = torch.where(vis, s, torch.full_like(s, -math.inf))
    sm = torch.where(any_vis, sm, torch.zeros_like(s))
    lse = torch.logsumexp(sm, -1, keepdim=True)
    p = torch.where(vis, torch.exp(sm - lse), torch.zeros_like(s))
    lse = torch.where(any_vis, lse, torch.full_like(lse, math.inf))
    return p @ v, lse.squeeze(-1)


def act_ref(z, activation):
    return {None: lambda t: t, "relu": torch.relu, "gelu": F.gelu, "silu": F.silu}[activation](z)


def ref_rms(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


# ---------------------------------------------------------------------------
# forward


def fwd_rows(dtype):
    def run():
        for _ in range(2 if QUICK else 6):
            lead = [R.randint(1, 9) for _ in range(R.randint(0, 2))]
            C = R.choice([1, 3, R.randint(2, 300), R.randint(300, 3000)])
            x = randn(*lead, C, dtype=dtype)
            w, b = randn(C, dtype=dtype), randn(C, dtype=dtype)
            xd, wd, bd = x.double(), w.double(), b.double()
            tol = TOL[dtype]
            close(f"rms_norm {tuple(x.shape)}", luatile.rms_norm(x, (C,), w, eps=1e-6), ref_rms(xd, wd, 1e-6), tol)
            close(f"rms_norm no weight {tuple(x.shape)}", luatile.rms_norm(x, C),
                  ref_rms(xd, 1.0, torch.finfo(dtype).eps), tol)
            close(f"layer_norm {tuple(x.shape)}", luatile.layer_norm(x, (C,), w, b, eps=1e-5),
                  F.layer_norm(xd, (C,), wd, bd, 1e-5), tol)
            close(f"layer_norm no affine {tuple(x.shape)}", luatile.layer_norm(x, C),
                  F.layer_norm(xd, (C,)), tol)
            close(f"softmax {tuple(x.shape)}", luatile.softmax(x, -1), torch.softmax(xd, -1), tol)
            if x.dim() > 1:
                close(f"softmax dim 0 {tuple(x.shape)}", luatile.softmax(x, 0), torch.softmax(xd, 0), tol)
            close(f"bias_gelu {tuple(x.shape)}", luatile.bias_gelu(x, b), F.gelu(xd + bd), tol, xd + bd)
            y = randn(*x.shape, dtype=dtype)
            close(f"add {tuple(x.shape)}", luatile.add(x, y), xd + y.double(), tol)
        # normalized over the last two dims
        x = randn(3, 5, 7, dtype=dtype)
        w = randn(5, 7, dtype=dtype)
        close("rms_norm over 2 dims", luatile.rms_norm(x, (5, 7), w, 1e-6),
              ref_rms(x.double().reshape(3, 35), w.double().reshape(35), 1e-6).reshape(3, 5, 7), TOL[dtype])
        close("layer_norm over 2 dims", luatile.layer_norm(x, (5, 7), w, w),
              F.layer_norm(x.double(), (5, 7), w.double(), w.double()), TOL[dtype])
        close("softmax float32 out", luatile.softmax(x, 1, dtype=torch.float32),
              torch.softmax(x.double(), 1), TOL[dtype])
    return run


def matmul_case(dtype, M, N, K, la, lb, batch=None, activation=None, bias=True, lead=()):
    """A [.., M, K] and B [.., K, N] stored as layouts la, lb ('t': a transposed view)."""
    bs = () if batch is None else (batch,)
    a = randn(*bs, *lead, K, M, dtype=dtype).transpose(-1, -2) if la == "t" else randn(*bs, *lead, M, K, dtype=dtype)
    b = randn(*bs, N, K, dtype=dtype).transpose(-1, -2) if lb == "t" else randn(*bs, K, N, dtype=dtype)
    c = randn(N, dtype=dtype) if bias else None
    return a, b, c


def fwd_matmul(dtype):
    def run():
        tol = TOL[dtype] * (3 if dtype == torch.float32 else 1)
        for la in "nt":
            for lb in "nt":
                for activation in (None, "relu", "gelu", "silu"):
                    M, N, K = R.randint(1, 150), R.randint(1, 150), R.randint(1, 200)
                    bias = activation is not None or R.random() < 0.5
                    a, b, c = matmul_case(dtype, M, N, K, la, lb, activation=activation, bias=bias)
                    ref = a.double() @ b.double() + (c.double() if bias else 0)
                    close(f"{la}{lb} {activation} {M}x{N}x{K}", luatile.matmul(a, b, c, activation),
                          act_ref(ref, activation), tol)
        a, b, c = matmul_case(dtype, 37, 29, 41, "n", "t", batch=3, activation="gelu")
        close("batched", luatile.matmul(a, b, c, "gelu"), F.gelu(a.double() @ b.double() + c.double()), tol)
        a, b, c = matmul_case(dtype, 7, 19, 23, "n", "n", lead=(2, 3), bias=False)
        close("a [2, 3, 7, 23] @ b [23, 19]", luatile.matmul(a, b), a.double() @ b.double(), tol)
        a, b, _ = matmul_case(dtype, 5, 6, 1, "n", "n", bias=False)
        close("K = 1", luatile.matmul(a, b), a.double() @ b.double(), tol)
        a = randn(4, 0, dtype=dtype)
        b = randn(0, 3, dtype=dtype)
        c = randn(3, dtype=dtype)
        close("K = 0", luatile.matmul(a, b, c, "relu"), torch.relu(c.double()).expand(4, 3), tol)
    return run


ATTN_CASES = [
    # B, Hq, Hkv, Sq, Sk, window, softcap, bshd
    (2, 2, 2, 77, 77, None, 0.0, False),
    (1, 4, 2, 100, 100, "causal", 0.0, True),
    (1, 3, 1, 150, 37, (-1, 0), 0.0, False),    # Sq > Sk: rows that see no key
    (1, 2, 2, 130, 150, (17, 5), 5.0, True),
    (2, 2, 1, 1, 129, None, 0.0, False),        # decoding
    (1, 2, 2, 19, 1, None, 3.0, False),         # Sk = 1
    (1, 2, 1, 90, 60, (-1, 3), 0.0, True),      # right-only window, Sq > Sk
]


def run_attention_case(dtype, D, case, backward=False):
    B, Hq, Hkv, Sq, Sk, window, softcap, bshd = case
    scale = R.uniform(0.5, 3.0) / math.sqrt(D)

    def make(H, S):
        if bshd:   # [B, S, H, D] memory, a [B, H, S, D] view
            return randn(B, S, H, D, dtype=dtype).transpose(1, 2)
        return randn(B, H, S, D, dtype=dtype)

    q, k, v = make(Hq, Sq), make(Hkv, Sk), make(Hkv, Sk)
    if window == "causal":
        kw = dict(is_causal=True)
        wl, wr = -1, 0
    elif window is None:
        kw = {}
        wl, wr = -1, -1
    else:
        kw = dict(window=window)
        wl, wr = window
    ro, rlse = ref_attention(q, k, v, scale, wl, wr, softcap)
    if backward:
        q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    o, lse = luatile.attention(q, k, v, scale=scale, softcap=softcap or None, **kw)
    what = f"B={B} Hq={Hq} Hkv={Hkv} Sq={Sq} Sk={Sk} window={window} softcap={softcap} bshd={bshd}"
    tol = {torch.bfloat16: 2e-2, torch.float16: 4e-3}[dtype]
    close(f"o {what}", o, ro, tol)
    inf = torch.isinf(rlse)
    if not torch.equal(torch.isinf(lse).cpu(), inf.cpu()) or (lse[torch.isinf(lse)] < 0).any():
        raise AssertionError(f"lse {what}: +inf not exactly where no key is visible")
    e = (lse.double()[~inf.to(lse.device)].cpu() - rlse[~inf].cpu()).abs().max().item() if (~inf).any() else 0.0
    if e > 1e-3:
        raise AssertionError(f"lse {what}: error {e:.1e} > 1e-3")
    if not backward:
        return
    do = randn(*o.shape, dtype=dtype)
    dl = randn(*lse.shape, dtype=torch.float32)
    dl = torch.where(torch.isinf(lse), torch.zeros_like(dl), dl)
    qd, kd, vd = (t.detach().double().requires_grad_() for t in (q, k, v))
    ro, rlse = ref_attention(qd, kd, vd, scale, wl, wr, softcap)
    rfin = torch.where(torch.isinf(rlse), torch.zeros_like(rlse), rlse)
    torch.autograd.backward([ro, rfin], [do.double(), dl.double()])
    lfin = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    torch.autograd.backward([o, lfin], [do, dl])
    gtol = {torch.bfloat16: 3e-2, torch.float16: 8e-3}[dtype]
    for n, t, r in (("dq", q, qd), ("dk", k, kd), ("dv", v, vd)):
        close(f"{n} {what}", t.grad, r.grad, gtol)


def fwd_attention(dtype, D):
    def run():
        lib = _lib.library(torch.device(DEV))
        if not lib.has(f"attention_{NAMES[dtype]}_d{D}"):
            raise Skip(f"no attention_{NAMES[dtype]}_d{D} in {lib.path}")
        cases = ATTN_CASES[:3] if QUICK else ATTN_CASES
        if D == 256:
            cases = cases[1:2]
        for case in cases:
            run_attention_case(dtype, D, case)
    return run


def fwd_sdpa():
    q, k, v = randn(2, 3, 40, 64, dtype=torch.float16), randn(2, 3, 40, 64, dtype=torch.float16), \
        randn(2, 3, 40, 64, dtype=torch.float16)
    for causal in (False, True):
        ref = ref_attention(q, k, v, 1 / 8, -1, 0 if causal else -1)[0]
        close(f"sdpa causal={causal}", luatile.scaled_dot_product_attention(q, k, v, is_causal=causal), ref, 4e-3)
        if not torch.__version__.startswith("1."):
            got = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal)
            close(f"torch sdpa causal={causal}", luatile.scaled_dot_product_attention(q, k, v, is_causal=causal),
                  got, 4e-3)


# ---------------------------------------------------------------------------
# backward


def grads(fn, inputs, dy):
    for t in inputs:
        t.grad = None
    y = fn(*inputs)
    y.backward(dy)
    return [t.grad for t in inputs]


def bwd_rows():
    dtype = torch.float32
    for lead, C in (((3, 5), 37), ((7,), 300), ((1,), 1)):
        x = randn(*lead, C, dtype=dtype).requires_grad_()
        w = randn(C, dtype=dtype).requires_grad_()
        b = randn(C, dtype=dtype).requires_grad_()
        xd, wd, bd = (t.detach().double().requires_grad_() for t in (x, w, b))
        dy = randn(*lead, C, dtype=dtype)
        pairs = [
            ("rms_norm", lambda x, w, b: luatile.rms_norm(x, (C,), w, 1e-5),
             lambda x, w, b: ref_rms(x, w, 1e-5) + 0 * b.sum(), 2),
            ("layer_norm", lambda x, w, b: luatile.layer_norm(x, (C,), w, b, 1e-5),
             lambda x, w, b: F.layer_norm(x, (C,), w, b, 1e-5), 3),
            ("softmax", lambda x, w, b: luatile.softmax(x, -1), lambda x, w, b: torch.softmax(x, -1), 1),
            ("bias_gelu", lambda x, w, b: luatile.bias_gelu(x, b), lambda x, w, b: F.gelu(x + b), 3),
            ("add", lambda x, w, b: luatile.add(x, x * 2), lambda x, w, b: x + 2 * x, 1),
        ]
        for name, ours, ref, n in pairs:
            g = grads(ours, [x, w, b], dy)
            gr = grads(ref, [xd, wd, bd], dy.double())
            for i, nm in enumerate("xwb"[:n]):
                if name == "bias_gelu" and nm == "w":
                    continue
                if C == 1 and name in ("rms_norm", "layer_norm", "softmax") and nm == "x":
                    continue   # the gradient is 0 up to rounding: no relative error to speak of
                close(f"{name} d{nm} {tuple(x.shape)}", g[i], gr[i], 5e-5)


def bwd_matmul(dtype):
    def run():
        tol = {torch.float32: 5e-5, torch.bfloat16: 2e-2, torch.float16: 4e-3}[dtype]
        cases = [(None, "n", "n", None), ("relu", "t", "n", None), ("gelu", "n", "t", 2), ("silu", "t", "t", None)]
        for activation, la, lb, batch in cases:
            M, N, K = R.randint(1, 50), R.randint(1, 50), R.randint(1, 60)
            a, b, c = matmul_case(dtype, M, N, K, la, lb, batch=batch, activation=activation,
                                  bias=activation is not None)
            ins = [t.detach().requires_grad_() for t in (a, b, c) if t is not None]
            ind = [t.detach().double().requires_grad_() for t in ins]
            dy = randn(*((batch,) if batch else ()), M, N, dtype=dtype)
            g = grads(lambda *t: luatile.matmul(t[0], t[1], t[2] if len(t) > 2 else None, activation), ins, dy)
            gr = grads(lambda *t: act_ref(t[0] @ t[1] + (t[2] if len(t) > 2 else 0), activation), ind, dy.double())
            for nm, x, r in zip(("da", "db", "dbias"), g, gr):
                close(f"{nm} {la}{lb} {activation} {M}x{N}x{K} batch={batch}", x, r, tol)
        # a [2, 3, M, K] @ b [K, N]: db sums over every row
        a = randn(2, 3, 9, 11, dtype=dtype).requires_grad_()
        b = randn(11, 13, dtype=dtype).requires_grad_()
        ad, bd = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
        dy = randn(2, 3, 9, 13, dtype=dtype)
        for nm, x, r in zip(("da", "db"), grads(luatile.matmul, [a, b], dy), grads(torch.matmul, [ad, bd], dy.double())):
            close(f"{nm} a [2, 3, 9, 11] @ b [11, 13]", x, r, tol)
    return run


def bwd_attention(dtype, D):
    def run():
        lib = _lib.library(torch.device(DEV))
        if not lib.has(f"attention_bwd_dq_{NAMES[dtype]}_d{D}"):
            raise Skip(f"no attention_bwd_dq_{NAMES[dtype]}_d{D} in {lib.path}")
        for case in (ATTN_CASES[1], ATTN_CASES[2], ATTN_CASES[3]) if not QUICK else (ATTN_CASES[1],):
            run_attention_case(dtype, D, case, backward=True)
        # loss = o.sum(): an expanded (stride 0) gradient
        q, k, v = (randn(1, 2, 30, D, dtype=dtype).requires_grad_() for _ in range(3))
        luatile.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
        qd, kd, vd = (t.detach().double().requires_grad_() for t in (q, k, v))
        ref_attention(qd, kd, vd, 1 / math.sqrt(D), -1, 0)[0].sum().backward()
        for n, t, r in (("dq", q, qd), ("dk", k, kd), ("dv", v, vd)):
            close(f"{n} of o.sum()", t.grad, r.grad, {torch.bfloat16: 3e-2, torch.float16: 8e-3}[dtype])
    return run


# ---------------------------------------------------------------------------
# layouts: non-contiguous inputs


def layout_checks():
    x = randn(20, 64)[:, 5:45]          # rows not packed
    w = randn(80)[::2]                  # strided weight
    close("rms_norm of a column slice", luatile.rms_norm(x, 40, w, 1e-6), ref_rms(x.double(), w.double(), 1e-6), 2e-5)
    xt = randn(30, 20).t()              # transposed
    close("layer_norm of a transposed view", luatile.layer_norm(xt, 30), F.layer_norm(xt.double(), (30,)), 2e-5)
    close("softmax of a transposed view", luatile.softmax(xt, -1), torch.softmax(xt.double(), -1), 2e-5)
    a = randn(17, 40)[:, ::2]           # neither dim contiguous: copied
    b = randn(21, 30).t()[:20]          # transposed view: the 't' layout, read in place
    close("matmul of strided views", luatile.matmul(a, b), a.double() @ b.double(), 6e-5)
    e = randn(1, 13).expand(9, 13)      # stride 0 rows
    close("matmul of an expanded a", luatile.matmul(e, b[:13, :4]), e.double() @ b[:13, :4].double(), 6e-5)
    q = randn(1, 2, 20, 128, dtype=torch.float16)[..., ::2]   # last dim not contiguous: copied
    k = randn(1, 2, 25, 64, dtype=torch.float16)
    close("attention, q's last dim strided", luatile.scaled_dot_product_attention(q, k, k),
          ref_attention(q, k, k, 1 / 8)[0], 4e-3)


# ---------------------------------------------------------------------------
# errors


def error_checks():
    f32, bf = torch.float32, torch.bfloat16
    x = randn(4, 8)
    w = randn(8)
    raises(TypeError, lambda: luatile.rms_norm(x.double(), 8, w.double()), "dtype float64", "float16, bfloat16, float32")
    raises(TypeError, lambda: luatile.softmax(torch.ones(3, 4, dtype=torch.int32, device=DEV)), "int32")
    raises(TypeError, lambda: luatile.rms_norm(x, 8, w.to(bf)), "weight has dtype bfloat16")
    raises(ValueError, lambda: luatile.rms_norm(x, 8, randn(7)), "weight has shape")
    raises(ValueError, lambda: luatile.rms_norm(x, (4, 9)), "normalized_shape")
    raises(ValueError, lambda: luatile.layer_norm(x, 8, w, randn(8)[None]), "bias has shape")
    raises(TypeError, lambda: luatile.rms_norm([1.0, 2.0], 2), "torch.Tensor")
    raises(ValueError, lambda: luatile.add(x, randn(8)), "no broadcasting")
    raises(ValueError, lambda: luatile.bias_gelu(x, randn(9)), "bias has 9 elements")
    meta = torch.empty(8, device="meta")
    raises(ValueError, lambda: luatile.rms_norm(x, 8, meta), "same device")
    if luatile.HAVE_CUSTOM_OP:   # meta tensors run the fake implementation: shapes only
        y = luatile.softmax(torch.empty(3, 4, device="meta"))
        if y.device.type != "meta" or y.shape != (3, 4):
            raise AssertionError(f"softmax of a meta tensor gave {y.device} {tuple(y.shape)}")
    else:
        raises(luatile.LibraryNotFound, lambda: luatile.softmax(torch.empty(3, 4, device="meta")), "no luatile target")
    # matmul
    a, b = randn(5, 6), randn(6, 7)
    raises(ValueError, lambda: luatile.matmul(a, randn(5, 7)), "do not chain")
    raises(ValueError, lambda: luatile.matmul(a, b, randn(6)), "bias has 6 elements")
    raises(ValueError, lambda: luatile.matmul(a, b, randn(7), "tanh"), "activation must be one of")
    raises(TypeError, lambda: luatile.matmul(a, b.to(bf)), "must match")
    raises(ValueError, lambda: luatile.matmul(randn(2, 5, 6), randn(3, 6, 7)), "same batch")
    raises(ValueError, lambda: luatile.matmul(randn(6), b), "2 or more dims")
    # attention
    q = randn(1, 4, 16, 64, dtype=bf)
    kv = randn(1, 2, 16, 64, dtype=bf)
    raises(TypeError, lambda: luatile.scaled_dot_product_attention(q.float(), kv.float(), kv.float()),
           "dtype float32", "float16, bfloat16")
    raises(TypeError, lambda: luatile.scaled_dot_product_attention(q, kv.half(), kv), "must match")
    raises(ValueError, lambda: luatile.scaled_dot_product_attention(q[..., :48], kv[..., :48], kv[..., :48]),
           "head dim 48 has no kernel")
    raises(ValueError, lambda: luatile.scaled_dot_product_attention(q, randn(1, 3, 16, 64, dtype=bf),
                                                                    randn(1, 3, 16, 64, dtype=bf)), "multiple")
    raises(ValueError, lambda: luatile.scaled_dot_product_attention(q, kv, kv[:, :, :8]), "same shape")
    raises(ValueError, lambda: luatile.scaled_dot_product_attention(q, kv, kv, attn_mask=torch.ones(16, 16)),
           "attn_mask")
    raises(ValueError, lambda: luatile.scaled_dot_product_attention(q, kv, kv, dropout_p=0.1), "dropout")
    raises(ValueError, lambda: luatile.scaled_dot_product_attention(q, kv[:, :, :8], kv[:, :, :8], is_causal=True),
           "window=(-1, 0)")
    raises(ValueError, lambda: luatile.scaled_dot_product_attention(q, kv, kv, scale=-1.0), "scale")
    raises(ValueError, lambda: luatile.scaled_dot_product_attention(q[0], kv[0], kv[0]), "4-dim")
    raises(ValueError, lambda: luatile.attention(q, kv, kv, is_causal=True, window=(3, 0)), "not both")
    # a launcher's own refusal, and a launcher that is not in the library
    lib = luatile.library(torch.device(DEV))
    raises(luatile.LaunchError, lambda: lib.call("rmsnorm_f32", None, None, None, 1, 1, 1e-5, None), "returned")
    raises(luatile.Error, lambda: lib.call("no_such_kernel_f32"), "has no launcher no_such_kernel_f32")


def library_checks():
    raises(luatile.LibraryNotFound, lambda: luatile.load_library("/nonexistent/libluatile_c.so"), "no library file")
    saved_loaded, saved_repo = dict(_lib._loaded), _lib._REPO
    saved_env = {k: os.environ.pop(k, None) for k in ("LUATILE_LIB_CPU", "LUATILE_LIB_DIR")}
    try:
        _lib._loaded.clear()
        _lib.on_load()   # what a load does: the fast calls forget the launchers they found
        _lib._REPO = "/nonexistent"
        raises(luatile.LibraryNotFound, lambda: luatile.softmax(torch.ones(2, 2)), "./build.sh lib c", "LUATILE_LIB_CPU")
    finally:
        _lib._loaded.clear()
        _lib._loaded.update(saved_loaded)
        _lib.on_load()
        _lib._REPO = saved_repo
        for k, v in saved_env.items():
            if v is not None:
                os.environ[k] = v


def op_path():
    """The entry points call the kernels directly in plain eager inference and
    go through the operators otherwise; both give the same results."""
    x, w = randn(5, 300), randn(300)
    a, b = randn(20, 30), randn(30, 40)
    q = randn(1, 2, 50, 64, dtype=torch.bfloat16)
    calls = [lambda: luatile.rms_norm(x, 300, w), lambda: luatile.layer_norm(x, 300, w, w),
             lambda: luatile.softmax(x, 0), lambda: luatile.matmul(a, b, b[0], "silu"),
             lambda: luatile.scaled_dot_product_attention(q, q, q, is_causal=True),
             lambda: luatile.bias_gelu(x, w), lambda: luatile.add(x, x)]
    if not luatile._direct(x, w):
        raise AssertionError("no direct call for plain tensors in eager inference")
    if luatile._direct(x, w.detach().requires_grad_()):
        raise AssertionError("a direct call for an input that wants a gradient")
    with torch.no_grad():
        if not luatile._direct(x, w.detach().requires_grad_()):
            raise AssertionError("no direct call under no_grad")
    direct = [f() for f in calls]
    luatile.direct_calls = False
    try:
        for i, f in enumerate(calls):
            if not torch.equal(f(), direct[i]):
                raise AssertionError(f"call {i}: the operator's result differs from the direct call's")
    finally:
        luatile.direct_calls = True


def fast_impls():
    """{name: {function name: function}} of the fast calls to check: "c", the call
    module's (python/luatile/_fast.c) where one is bound, and "python", _kernels' own."""
    K = luatile._kernels
    impls = {}
    if K.fast_module is not None:
        impls["c"] = {n: getattr(K.fast_module, n) for n in K._PY_FAST}
    impls["python"] = dict(K._PY_FAST)
    return impls


class using:
    """with using(functions): _kernels' fast calls are those functions inside."""

    def __init__(self, functions):
        self.functions = functions

    def __enter__(self):
        K = luatile._kernels
        self.saved = {n: getattr(K, n) for n in self.functions}
        for n, f in self.functions.items():
            setattr(K, n, f)

    def __exit__(self, *exc):
        for n, f in self.saved.items():
            setattr(luatile._kernels, n, f)
        return False


def fast_paths(impl):
    """The common cases launch through the fast calls (_kernels.*_fast, the C or the
    Python ones) with the same results as the general path (bitwise: the same kernels
    on the same arguments), never reach the general path from the entry points, and
    the rest falls back (None)."""
    def run():
        functions = fast_impls().get(impl)
        if functions is None:
            raise Skip("no call module bound (LUATILE_NO_CALLS set, or the library has no call module for this "
                       "Python)")
        with using(functions):
            fast_cases()
    return run


def fast_cases():
    K = luatile._kernels
    bf = torch.bfloat16
    x, x3, w, b = randn(6, 40, dtype=bf), randn(2, 3, 40, dtype=bf), randn(40, dtype=bf), randn(40, dtype=bf)
    a, m, bias = randn(9, 12, dtype=bf), randn(12, 40, dtype=bf), randn(40, dtype=bf)
    at, mt = randn(12, 9, dtype=bf).t(), randn(40, 12, dtype=bf).t()          # 't' layouts, read in place
    a3, ab, mb = randn(2, 9, 12, dtype=bf), randn(2, 9, 12, dtype=bf), randn(2, 12, 40, dtype=bf)
    abt, mbt = randn(2, 12, 9, dtype=bf).transpose(1, 2), randn(2, 40, 12, dtype=bf).transpose(1, 2)
    q, k = randn(1, 2, 20, 64, dtype=bf), randn(1, 1, 24, 64, dtype=bf)
    qv = randn(1, 20, 2, 64, dtype=bf).transpose(1, 2)                          # a [B, S, H, D] view
    cases = [   # (what, fast launch (gate=True), the op's function in _kernels)
        ("rms_norm", lambda: K.rows_fast("rmsnorm", x3, 40, w, None, 1e-5, True), lambda: K.rms_norm(x3, w, 1e-5)),
        ("rms_norm default eps", lambda: K.rows_fast("rmsnorm", x, (40,), w, None, None, True),
         lambda: K.rms_norm(x, w, torch.finfo(bf).eps)),
        ("layer_norm", lambda: K.rows_fast("layernorm", x, (40,), w, b, 1e-5, True),
         lambda: K.layer_norm(x, w, b, 1e-5)),
        ("softmax", lambda: K.rows_fast("softmax", x, None, None, None, None, True), lambda: K.softmax(x)),
        ("bias_gelu", lambda: K.rows_fast("bias_gelu", x3, None, b, None, None, True), lambda: K.bias_gelu(x3, b)),
        ("add", lambda: K.add_fast(x, x.flip(0), True), lambda: K.add(x, x.flip(0))),
        ("matmul nn gelu", lambda: K.matmul_fast(a, m, bias, "gelu", True), lambda: K.matmul(a, m, bias, "gelu")),
        ("matmul tt", lambda: K.matmul_fast(at, mt, None, "none", True), lambda: K.matmul(at, mt, None, "none")),
        ("matmul leading dims", lambda: K.matmul_fast(a3, mt, bias, "silu", True),
         lambda: K.matmul(a3, mt, bias, "silu")),
        ("matmul batched", lambda: K.matmul_fast(ab, mbt, None, "none", True), lambda: K.matmul(ab, mbt, None, "none")),
        ("matmul batched t", lambda: K.matmul_fast(abt, mb, None, "none", True),
         lambda: K.matmul(abt, mb, None, "none")),
        ("attention", lambda: K.attention_fast(q, k, k, 0.125, -1, 0, 0.0, True),
         lambda: K.attention(q, k, k, 0.125, -1, 0, 0.0)),
        ("attention default scale, causal", lambda: K.attention_fast(q, q, q, None, -1, 0, None, True, True),
         lambda: K.attention(q, q, q, 0.125, -1, 0, 0.0)),
        ("attention view, window, softcap", lambda: K.attention_fast(qv, k, k, 0.125, 5, 3, 30.0, True),
         lambda: K.attention(qv, k, k, 0.125, 5, 3, 30.0)),
    ]
    fast = []
    for what, f, _ in cases:
        r = f()
        if r is None:
            raise AssertionError(f"{what}: no fast launch for the common case")
        fast.append(r)
    with using({n: (lambda *args: None) for n in K._PY_FAST}):   # the general path alone
        for (what, _, g), r in zip(cases, fast):
            for got, ref in zip(r if isinstance(r, tuple) else (r,), g() if isinstance(r, tuple) else (g(),)):
                if got.shape != ref.shape or not got.is_contiguous() or not torch.equal(got, ref):
                    raise AssertionError(f"{what}: the fast launch differs from the general path")
    # the entry points' common cases never reach the general path
    general = {n: getattr(K, n) for n in ("_row_launch", "attention", "matmul", "add")}

    def refuse(*args):
        raise AssertionError("the general path was taken")
    try:
        for n in general:
            setattr(K, n, refuse)
        luatile.rms_norm(x3, 40, w)
        luatile.rms_norm(x, (40,), w, 1e-6)
        luatile.layer_norm(x3, (40,), w, b)
        luatile.softmax(x)
        luatile.softmax(x3, 2)
        luatile.bias_gelu(x3, b)
        luatile.add(x, x)
        luatile.matmul(a3, m, bias, "relu")
        luatile.matmul(at, mt)
        luatile.matmul(ab, mb)
        luatile.scaled_dot_product_attention(q, k, k, is_causal=False)
        luatile.scaled_dot_product_attention(qv, qv, qv, is_causal=True)
        luatile.attention(q, k, k, window=(4, 0), softcap=20.0)
    finally:
        for n, f in general.items():
            setattr(K, n, f)
    # what falls back
    wg = w.detach().requires_grad_()
    meta = torch.empty(40, dtype=bf, device="meta")
    falls = [
        ("an input that wants a gradient", lambda: K.rows_fast("rmsnorm", x, 40, wg, None, 1e-5, True)),
        ("float64", lambda: K.rows_fast("softmax", x.double(), None, None, None, None, True)),
        ("int32", lambda: K.add_fast(x.int(), x.int(), True)),
        ("dtypes that differ", lambda: K.rows_fast("rmsnorm", x, 40, w.half(), None, 1e-5, True)),
        ("rows not packed", lambda: K.rows_fast("softmax", x[:, ::2], None, None, None, None, True)),
        ("a strided weight", lambda: K.rows_fast("rmsnorm", x[:, :20], 20, w[::2], None, 1e-5, True)),
        ("normalized_shape not the last dim", lambda: K.rows_fast("rmsnorm", x, (6, 40), w, None, 1e-5, True)),
        ("normalized_shape of another size", lambda: K.rows_fast("rmsnorm", x, 39, w[:39], None, 1e-5, True)),
        ("an eps that is not a float", lambda: K.rows_fast("rmsnorm", x, 40, w, None, "1e-5", True)),
        ("no weight", lambda: K.rows_fast("rmsnorm", x, 40, None, None, 1e-5, True)),
        ("an unknown kernel", lambda: K.rows_fast("tanh", x, None, None, None, None, True)),
        ("a meta tensor", lambda: K.rows_fast("softmax", torch.empty(3, 4, device="meta"), None, None, None, None,
                                              True)),
        ("a weight on another device", lambda: K.rows_fast("rmsnorm", x, 40, meta, None, 1e-5, True)),
        ("a list", lambda: K.rows_fast("softmax", [1.0, 2.0], None, None, None, None, True)),
        ("a sparse tensor", lambda: K.rows_fast("softmax", x.float().to_sparse(), None, None, None, None, True)),
        ("shapes that differ", lambda: K.add_fast(x, x3[0], True)),
        ("a transposed add", lambda: K.add_fast(x, x.t().contiguous().t(), True)),
        ("an activation without bias", lambda: K.matmul_fast(a, m, None, "gelu", True)),
        ("a matrix with no contiguous dim", lambda: K.matmul_fast(randn(9, 24, dtype=bf)[:, ::2], m, None, "none",
                                                                  True)),
        ("an unknown activation", lambda: K.matmul_fast(a, m, bias, "tanh", True)),
        ("matmul, b on another device", lambda: K.matmul_fast(a, m.to("meta"), None, "none", True)),
        ("matmul, a strided bias", lambda: K.matmul_fast(a, m, randn(80, dtype=bf)[::2], "none", True)),
        ("matmul, K that differ", lambda: K.matmul_fast(a, m[:11], None, "none", True)),
        ("matmul, a batched b with a 2-d a", lambda: K.matmul_fast(a, mb, None, "none", True)),
        ("head dim 48", lambda: K.attention_fast(q[..., :48], k[..., :48], k[..., :48], 0.1, -1, -1, 0.0, True)),
        ("attention in float32", lambda: K.attention_fast(q.float(), k.float(), k.float(), 0.1, -1, -1, 0.0, True)),
        ("a strided last dim", lambda: K.attention_fast(randn(1, 2, 20, 128, dtype=bf)[..., ::2], k, k, 0.1, -1, -1,
                                                        0.0, True)),
        ("no key", lambda: K.attention_fast(q, k[:, :, :0], k[:, :, :0], 0.1, -1, -1, 0.0, True)),
        ("scale 0", lambda: K.attention_fast(q, k, k, 0.0, -1, -1, 0.0, True)),
        ("an int scale", lambda: K.attention_fast(q, k, k, 1, -1, -1, 0.0, True)),
        ("a NaN softcap", lambda: K.attention_fast(q, k, k, 0.1, -1, -1, math.nan, True)),
        ("a window past int32", lambda: K.attention_fast(q, k, k, 0.1, 1 << 31, -1, 0.0, True)),
        ("causal with Sq != Sk", lambda: K.attention_fast(q, k, k, 0.1, -1, 0, 0.0, True, True)),
        ("Hq not a multiple of Hkv", lambda: K.attention_fast(k, q, q, 0.1, -1, -1, 0.0, True)),
        ("v on another device", lambda: K.attention_fast(q, k, k.to("meta"), 0.1, -1, -1, 0.0, True)),
    ]
    for what, f in falls:
        if f() is not None:
            raise AssertionError(f"a fast launch for {what}")
    with torch.no_grad():
        if K.rows_fast("rmsnorm", x, 40, wg, None, 1e-5, True) is None:
            raise AssertionError("no fast launch under no_grad")
    if K.rows_fast("rmsnorm", x, 40, wg, None, 1e-5, False) is None:
        raise AssertionError("no fast launch in the operator's body (gate=False) for an input that wants a gradient")
    if K.rows_fast("rmsnorm", torch.nn.Parameter(x), 40, w, None, 1e-5, False) is None:
        raise AssertionError("no fast launch for a Parameter")
    with torch.autograd.profiler.profile():
        if K.rows_fast("softmax", x, None, None, None, None, True) is not None:
            raise AssertionError("a direct fast launch under the profiler")


def fast_c_vs_python():
    """The C and the Python fast calls agree on random cases: the same result
    (bitwise) where both launch, None from both where they fall back."""
    K = luatile._kernels
    impls = fast_impls()
    if "c" not in impls:
        raise Skip("no call module bound")
    c, py = impls["c"], impls["python"]

    def variants(t):
        """t (more often than not), or a form of it that some fast call may refuse."""
        if R.random() < 0.6:
            return [t]
        return [t.detach().requires_grad_(), t.double(), torch.stack([t, t], -1)[..., 0],   # strided last dim
                t.transpose(0, -1), t.to("meta"), torch.nn.Parameter(t)]

    launched = fell = 0
    for _ in range(30 if QUICK else 120):
        dt = R.choice(list(NAMES))
        C = R.randint(1, 70)
        x = randn(*[R.randint(1, 4) for _ in range(R.randint(0, 2))], C, dtype=dt)
        w, b = randn(C, dtype=dt), randn(C, dtype=dt)
        op = R.choice(["rmsnorm", "layernorm", "softmax", "bias_gelu", "add", "matmul", "attention"])
        xs, ws = R.choice(variants(x)), R.choice(variants(w))
        gate = R.random() < 0.7
        if op == "add":
            args = ("add_fast", (xs, R.choice(variants(x.clone())), gate))
        elif op == "matmul":
            M, N = R.randint(1, 9), R.randint(1, 9)
            a, m = randn(M, C, dtype=dt), randn(C, N, dtype=dt)
            args = ("matmul_fast", (R.choice(variants(a)), R.choice(variants(m)),
                                    R.choice([None, randn(N, dtype=dt)]), R.choice(["none", "relu", "gelu", "silu"]),
                                    gate))
        elif op == "attention":
            adt = R.choice([torch.float16, torch.bfloat16])
            Hkv, S = R.randint(1, 2), R.randint(1, 9)
            qq = randn(1, 2 * Hkv, S, R.choice([32, 64]), dtype=adt)
            kk = randn(1, Hkv, R.choice([S, S + 3]), qq.shape[-1], dtype=adt)
            args = ("attention_fast", (R.choice(variants(qq)), kk, R.choice(variants(kk.clone())),
                                       R.choice([None, 0.2, 0.0]), R.choice([-1, 2]), R.choice([-1, 0]),
                                       R.choice([None, 0.0, 5.0]), gate, R.random() < 0.3))
        else:
            params = {"rmsnorm": (ws, None), "layernorm": (ws, b), "softmax": (None, None), "bias_gelu": (ws, None)}[op]
            args = ("rows_fast", (op, xs, R.choice([None, C, (C,), (C + 1,)]), *params,
                                  R.choice([None, 1e-5]) if op in ("rmsnorm", "layernorm") else None, gate))
        name, a = args
        rc, rp = c[name](*a), py[name](*a)
        if (rc is None) != (rp is None):
            raise AssertionError(f"{name}{tuple(type(v).__name__ for v in a)}: C gave "
                                 f"{'None' if rc is None else 'a result'}, Python {'None' if rp is None else 'a result'}")
        if rc is None:
            fell += 1
            continue
        launched += 1
        for u, v in zip(rc if isinstance(rc, tuple) else (rc,), rp if isinstance(rp, tuple) else (rp,)):
            if u.shape != v.shape or u.dtype != v.dtype or not torch.equal(u, v):
                raise AssertionError(f"{name}: the C and Python fast calls differ")
    if launched < 10 or fell < 10:
        raise AssertionError(f"too few cases of one kind: {launched} launched, {fell} fell back")
    print(f"# fast-path/c-vs-python: {launched} cases launched, {fell} fell back, all alike", flush=True)


def fast_launch_error():
    """A launcher's non-zero return through a fast call raises LaunchError (Library.fail), C and Python."""
    import ctypes
    K = luatile._kernels
    x = randn(3, 8, dtype=torch.bfloat16)
    lib = luatile.library(x.device)
    proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                             ctypes.c_void_p)
    seen = []
    failing = proto(lambda X, Y, R, C, stream: seen.append((R, C)) or 7)
    addr = ctypes.cast(failing, ctypes.c_void_p).value
    impls = fast_impls()
    if "c" in impls:
        saved = K._resolve
        K._resolve = lambda kind, name: (addr, "PPIIP", False, lib) if name == "softmax_bf16" else saved(kind, name)
        try:
            K.fast_module.fast_setup(*K._fast_setup_args())
            with using(impls["c"]):
                raises(luatile.LaunchError, lambda: luatile.softmax(x), "softmax_bf16", "returned 7")
        finally:
            K._resolve = saved
            K.fast_module.fast_setup(*K._fast_setup_args())
    key = ("softmax", torch.bfloat16)
    saved_entry = lib.fast.get(key)
    lib.fast[key] = (failing, "softmax_bf16")
    try:
        with using(impls["python"]):
            raises(luatile.LaunchError, lambda: luatile.softmax(x), "softmax_bf16", "returned 7")
    finally:
        if saved_entry is None:
            lib.fast.pop(key)
        else:
            lib.fast[key] = saved_entry
    if seen != [(3, 8)] * len(seen) or len(seen) != len(impls):
        raise AssertionError(f"the failing launcher saw {seen}")


def opcheck_all():
    if not luatile.HAVE_CUSTOM_OP:
        why = "LUATILE_NO_CUSTOM_OP is set" if hasattr(torch.library, "custom_op") else "no torch.library.custom_op"
        raise Skip(f"the ops are autograd.Functions here (torch {torch.__version__}: {why})")
    if not hasattr(torch.library, "opcheck"):
        raise Skip("no torch.library.opcheck")
    ops = torch.ops.luatile
    bf = torch.bfloat16
    x, w, b = randn(6, 40), randn(40), randn(40)
    a, m = randn(9, 12), randn(12, 40)
    q, k = randn(1, 2, 20, 64, dtype=bf), randn(1, 1, 24, 64, dtype=bf)
    cases = [
        (ops.rms_norm, (x, w, 1e-5)), (ops.layer_norm, (x, w, b, 1e-5)), (ops.softmax, (x,)),
        (ops.bias_gelu, (x, b)), (ops.add, (x, w.expand(6, 40).contiguous())),
        (ops.matmul, (a, m, b, "gelu")), (ops.matmul, (a, m, None, "none")),
        (ops.attention, (q, k, k, 0.125, -1, 0, 0.0)),
    ]
    for op, args in cases:
        args = tuple(t.requires_grad_() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in args)
        torch.library.opcheck(op, args)
    o, lse = ops.attention(q, k, k, 0.125, -1, 0, 0.0)
    do = randn(*o.shape, dtype=bf)
    torch.library.opcheck(ops.attention_backward, (do, q.detach(), k.detach(), k.detach(), o.detach(), lse.detach(),
                                                   None, 0.125, -1, 0, 0.0))


def main(args):
    global DEV, QUICK
    if "--device" in args:
        DEV = args[args.index("--device") + 1]
    QUICK = "--quick" in args
    seed = int(os.environ.get("SEED", random.SystemRandom().randrange(1 << 30)))
    R.seed(seed)
    torch.manual_seed(seed)
    print(f"# luatile test_torch: torch {torch.__version__}, device {DEV}, custom ops: {luatile.HAVE_CUSTOM_OP}, "
          f"seed {seed}", flush=True)
    try:
        lib = luatile.library(torch.device(DEV))
    except luatile.LibraryNotFound as e:
        print(f"FAIL python/library: {e}")
        return 1
    print(f"# library: {lib}", flush=True)
    tag = "" if luatile.HAVE_CUSTOM_OP else "fn/"
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        check(f"{tag}fwd/rows/{NAMES[dt]}", fwd_rows(dt))
        check(f"{tag}fwd/matmul/{NAMES[dt]}", fwd_matmul(dt))
    for dt in (torch.float16, torch.bfloat16):
        for D in luatile.HEAD_DIMS:
            check(f"{tag}fwd/attention/{NAMES[dt]}_d{D}", fwd_attention(dt, D))
    check(f"{tag}fwd/sdpa", fwd_sdpa)
    check(f"{tag}bwd/rows", bwd_rows)
    for dt in (torch.float32, torch.bfloat16):
        check(f"{tag}bwd/matmul/{NAMES[dt]}", bwd_matmul(dt))
    for dt in (torch.float16, torch.bfloat16):
        for D in ((64,) if QUICK else (64, 128)):
            check(f"{tag}bwd/attention/{NAMES[dt]}_d{D}", bwd_attention(dt, D))
    check(f"{tag}layout/non-contiguous", layout_checks)
    check(f"{tag}op-path", op_path)
    check(f"{tag}fast-path/c", fast_paths("c"))
    check(f"{tag}fast-path/python", fast_paths("python"))
    check(f"{tag}fast-path/c-vs-python", fast_c_vs_python)
    check(f"{tag}fast-path/launch-error", fast_launch_error)
    check(f"{tag}error/bad-inputs", error_checks)
    check(f"{tag}error/library", library_checks)
    check(f"{tag}opcheck", opcheck_all)
    return 1 if "FAIL" in RESULTS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
