"""test_index.py: luatile.embedding and luatile.cross_entropy (python/luatile/_index.py)
against torch in float64, forward and backward, int64 and int32 indices.

    python3 tests/python/test_index.py [--device cpu|cuda]

Random inputs of ragged sizes; outputs are allocated by the ops (their
poison would not survive a missed write: a check of every element); the
embedding forward must be bitwise torch's (a copy); the deterministic
embedding backward must write the same bits twice; padding_idx, ignore_index,
label smoothing and every reduction; indices outside the table; bad
arguments raise; on torch 2.4+ the custom ops' fake implementations give the
shapes and dtypes of the outputs and gradients under FakeTensorMode.  Needs the library of the device (./build.sh lib c for CPU
tensors).  Prints PASS / FAIL / SKIP lines; exits 1 on any FAIL.
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import luatile  # noqa: E402
import harness  # noqa: E402
from harness import RESULTS, raises  # noqa: E402

DEV = "cuda" if "--device" in sys.argv and sys.argv[sys.argv.index("--device") + 1] == "cuda" else "cpu"
R = random.Random(34)
torch.manual_seed(34)
TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def check(name, fn):
    harness.check("index", name, fn)


def rel_err(got, ref):
    got, ref = got.double().cpu(), ref.double().cpu()
    if got.shape != ref.shape:
        raise AssertionError(f"shape {tuple(got.shape)}, expected {tuple(ref.shape)}")
    if not torch.isfinite(got).all():
        raise AssertionError("non-finite values in the result")
    n = max(ref.norm().item(), 1e-3 * math.sqrt(max(ref.numel(), 1)))
    return (got - ref).norm().item() / n


def close(what, got, ref, tol):
    e = rel_err(got, ref)
    if e > tol:
        raise AssertionError(f"{what}: rel err {e:.2e} > {tol:.1e}")


def embedding_case(dt, it, V, D, shape, pad, det=None):
    w = torch.randn(V, D, dtype=dt, device=DEV)
    idx = torch.randint(0, V, shape, dtype=it, device=DEV)
    if idx.numel() > 2:   # a repeated index: its gradient rows add up
        idx.view(-1)[1] = idx.view(-1)[0]
    if det and idx.numel() > 4:   # a longer run of one row, in scattered positions
        idx.view(-1)[::3] = idx.view(-1)[2]
    if pad is not None and idx.numel():
        idx.view(-1)[-1] = pad % V
    wl = w.clone().requires_grad_(True)
    y = luatile.embedding(idx, wl, padding_idx=pad, deterministic=det)
    ref = F.embedding(idx.long(), w.double(), padding_idx=pad)
    if y.dtype != dt or y.shape != ref.shape or not torch.equal(y.double().cpu(), ref.cpu()):
        raise AssertionError("forward: not torch's rows bit for bit")
    g = torch.randn(y.shape, dtype=dt, device=DEV)
    y.backward(g)
    wr = w.double().requires_grad_(True)
    F.embedding(idx.long(), wr, padding_idx=pad).backward(g.double())
    if wl.grad.dtype != dt:
        raise AssertionError(f"dweight dtype {wl.grad.dtype}")
    close("dweight", wl.grad, wr.grad, TOL[dt])
    if pad is not None and (wl.grad[pad % V] != 0).any():
        raise AssertionError("the padding row got a gradient")
    if det:
        w2 = w.clone().requires_grad_(True)
        luatile.embedding(idx, w2, padding_idx=pad, deterministic=True).backward(g)
        if not torch.equal(w2.grad.view(torch.uint8 if dt != torch.float32 else torch.int32),
                           wl.grad.view(torch.uint8 if dt != torch.float32 else torch.int32)):
            raise AssertionError("deterministic: a second backward wrote other bits")


def test_embedding():
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        for it in (torch.int64, torch.int32):
            V, D = R.randint(5, 300), R.choice((1, 7, 64, 1000, 1030))
            shape = R.choice(((R.randint(1, 50),), (R.randint(1, 5), R.randint(1, 9))))
            pad = R.choice((None, 0, V - 1, -1))
            name = f"embedding/{str(dt)[6:]}/{str(it)[6:]}/V{V}xD{D}/{'x'.join(map(str, shape))}/pad{pad}"
            check(name, lambda: embedding_case(dt, it, V, D, shape, pad))
            check(name + "/deterministic", lambda: embedding_case(dt, it, V, D, shape, pad, True))


def embedding_outside():
    w = torch.randn(10, 33, device=DEV)
    idx = torch.tensor([3, -1, 10, 1 << 40, 9], dtype=torch.int64, device=DEV)
    y = luatile.embedding(idx, w)
    ok = torch.stack([w[3], torch.zeros(33, device=DEV), torch.zeros(33, device=DEV), torch.zeros(33, device=DEV), w[9]])
    if not torch.equal(y, ok):
        raise AssertionError("indices outside [0, V) did not give rows of zeros")
    ref = torch.zeros(10, 33, device=DEV)
    ref[3] += 1
    ref[9] += 1
    for det in (False, True):
        wl = w.clone().requires_grad_(True)
        luatile.embedding(idx, wl, deterministic=det).sum().backward()
        if not torch.equal(wl.grad, ref):
            raise AssertionError(f"indices outside [0, V) added to the gradient (deterministic={det})")


def embedding_errors():
    w = torch.randn(4, 8, device=DEV)
    raises(TypeError, lambda: luatile.embedding(torch.zeros(3, device=DEV), w), "int32 and int64")
    raises(TypeError, lambda: luatile.embedding(torch.zeros(3, dtype=torch.int16, device=DEV), w), "int32 and int64")
    raises(ValueError, lambda: luatile.embedding(torch.zeros(3, dtype=torch.long, device=DEV), w.view(-1)), "2 dims")
    raises(ValueError, lambda: luatile.embedding(torch.zeros(3, dtype=torch.long, device=DEV), w, padding_idx=4), "padding_idx")
    raises(TypeError, lambda: luatile.embedding(torch.zeros(3, dtype=torch.long, device=DEV), w.double()), "dtype")
    raises(TypeError, lambda: luatile.embedding(torch.zeros(3, dtype=torch.long, device=DEV), w, deterministic="yes"),
           "deterministic")


def ce_case(dt, it, N, V, ignore, reduction, eps):
    x = (torch.randn(N, V, device=DEV) * 3).to(dt)
    t = torch.randint(0, V, (N,), dtype=it, device=DEV)
    if N > 1:
        t[R.randrange(N)] = ignore
    xl = x.clone().requires_grad_(True)
    out = luatile.cross_entropy(xl, t, ignore_index=ignore, reduction=reduction, label_smoothing=eps)
    xr = x.double().requires_grad_(True)
    ref = F.cross_entropy(xr, t.long(), ignore_index=ignore, reduction=reduction, label_smoothing=eps)
    if out.dtype != dt:
        raise AssertionError(f"loss dtype {out.dtype}")
    close("loss", out, ref, max(TOL[dt], 1e-5))
    g = torch.randn(out.shape, dtype=torch.float64, device=DEV)
    out.backward(g.to(dt))
    ref.backward(g.to(dt).double())
    close("dinput", xl.grad, xr.grad, TOL[dt] * 2)
    if (xl.grad[t == ignore] != 0).any():
        raise AssertionError("an ignored row got a gradient")


def test_cross_entropy():
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        for it in (torch.int64, torch.int32):
            for reduction in ("mean", "sum", "none"):
                N, V = R.randint(1, 40), R.choice((2, 17, 1000, 5000, 9000))
                ignore, eps = R.choice((-100, 0, 1)), R.choice((0.0, 0.1))
                name = f"cross_entropy/{str(dt)[6:]}/{str(it)[6:]}/{reduction}/N{N}xV{V}/ignore{ignore}/eps{eps}"
                check(name, lambda: ce_case(dt, it, N, V, ignore, reduction, eps))


def ce_errors():
    x = torch.randn(3, 5, device=DEV)
    t = torch.zeros(3, dtype=torch.long, device=DEV)
    raises(ValueError, lambda: luatile.cross_entropy(x, t[:2]), "shape (3,)")
    raises(TypeError, lambda: luatile.cross_entropy(x, t.float()), "int32 and int64")
    raises(ValueError, lambda: luatile.cross_entropy(x, t, reduction="avg"), "reduction")
    raises(ValueError, lambda: luatile.cross_entropy(x.view(-1), t), "2 dims")
    raises(ValueError, lambda: luatile.cross_entropy(x, t, label_smoothing=1.5), "label_smoothing")


def fake_shapes():
    """Under FakeTensorMode (no kernel runs): the custom ops' fake
    implementations give the outputs' and gradients' shapes and dtypes."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        for det in (False, True):
            w = torch.empty(100, 16, dtype=torch.bfloat16, device=DEV, requires_grad=True)
            idx = torch.empty(3, 5, dtype=torch.int32, device=DEV)
            y = luatile.embedding(idx, w, padding_idx=-1, deterministic=det)
            if y.shape != (3, 5, 16) or y.dtype != torch.bfloat16:
                raise AssertionError(f"embedding: {tuple(y.shape)} {y.dtype}")
            y.sum().backward()
            if w.grad is None or w.grad.shape != (100, 16) or w.grad.dtype != torch.bfloat16:
                raise AssertionError("embedding: no dweight of the weight's shape and dtype")
        for reduction, shape in (("mean", ()), ("sum", ()), ("none", (7,))):
            x = torch.empty(7, 50, dtype=torch.float16, device=DEV, requires_grad=True)
            t = torch.empty(7, dtype=torch.int64, device=DEV)
            out = luatile.cross_entropy(x, t, reduction=reduction, label_smoothing=0.1)
            if out.shape != shape or out.dtype != torch.float16:
                raise AssertionError(f"cross_entropy {reduction}: {tuple(out.shape)} {out.dtype}")
            out.sum().backward()
            if x.grad is None or x.grad.shape != (7, 50) or x.grad.dtype != torch.float16:
                raise AssertionError(f"cross_entropy {reduction}: no dinput of the input's shape and dtype")


def main():
    test_embedding()
    check("embedding/outside", embedding_outside)
    check("embedding/errors", embedding_errors)
    test_cross_entropy()
    check("cross_entropy/errors", ce_errors)
    if luatile.HAVE_CUSTOM_OP:
        check("fake", fake_shapes)
    else:
        print(f"SKIP python/index/fake: needs torch.library.custom_op (torch 2.4+), this is torch {torch.__version__}",
              flush=True)
    print(f"# {RESULTS.count('PASS')} passed, {RESULTS.count('FAIL')} failed", flush=True)
    return 1 if "FAIL" in RESULTS else 0


if __name__ == "__main__":
    sys.exit(main())
