"""test_moe.py: luatile.grouped_matmul and luatile.matmul_fp8
(python/luatile/_moe.py) against torch in float64.

    python3 tests/python/test_moe.py [--device cpu|cuda]

grouped_matmul: random inputs of ragged sizes, groups of uneven sizes with
empty ones, rows before the first group and past the last (zeros in the
result), K and N not multiples of a tile, both layouts and dtypes; the
library's result must match float64 to the dtype's rounding and its rows
outside the groups must be exact zeros; the backward (dx, dw, and dx
alone) against torch's autograd in float64, with a gradient that is not
zero on the rows outside the groups: dx's rows there and an empty group's
dw must be exact zeros.  matmul_fp8: per-tensor and per-row
scales against float64 of the fp8 values (torch 2.1 and later: float8_e4m3fn;
without it the op is a SKIP line, and its launcher calls are checked on e4m3
bytes held as uint8, against float64 of the decoded bytes); its backward's
math (fp8_backward, every torch) on float32 stand-ins against float64
autograd, and with float8 the op's gradients of both scales (and of a and b
where torch lets a float8 tensor require grad).  Bad arguments raise; on torch 2.4+ the custom ops'
fake implementations give the outputs' shapes and dtypes under
FakeTensorMode.  Needs the library of the device (./build.sh lib c for CPU
tensors).  Prints PASS / FAIL / SKIP lines; exits 1 on any FAIL.
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402

import luatile  # noqa: E402
import harness  # noqa: E402
from harness import RESULTS, raises  # noqa: E402

DEV = "cuda" if "--device" in sys.argv and sys.argv[sys.argv.index("--device") + 1] == "cuda" else "cpu"
R = random.Random(34)
torch.manual_seed(34)
TOL = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2}
FP8 = getattr(torch, "float8_e4m3fn", None)


def check(name, fn):
    harness.check("moe", name, fn)


def rel_err(got, ref):
    got, ref = got.double().cpu(), ref.double().cpu()
    if got.shape != ref.shape:
        raise AssertionError(f"shape {tuple(got.shape)}, expected {tuple(ref.shape)}")
    if not torch.isfinite(got).all():
        raise AssertionError("non-finite values in the result")
    return (got - ref).norm().item() / max(ref.norm().item(), 1e-6)


def offsets(T, G, pre, post):
    """G + 1 int32 offsets: uneven groups (a few empty) over rows pre .. T - post."""
    n = [R.choice((0, 0, 1, R.randint(1, 40), R.randint(1, 150))) for _ in range(G)]
    if sum(n) == 0:
        n[-1] = 1
    scale = (T - pre - post) / sum(n)
    n = [int(v * scale) for v in n]
    n[max(range(G), key=lambda i: n[i])] += T - pre - post - sum(n)
    offs = [pre]
    for v in n:
        offs.append(offs[-1] + v)
    return torch.tensor(offs, dtype=torch.int32, device=DEV)


def grouped_case(dt, layout, T, Kd, N, G, pre, post):
    offs = offsets(T, G, pre, post)
    x = torch.randn(T, Kd, dtype=dt, device=DEV)
    w = torch.randn(G, Kd, N, dtype=dt, device=DEV) / Kd ** 0.5
    wl = w if layout == "kn" else w.transpose(1, 2).contiguous()
    y = luatile.grouped_matmul(x, wl, offs, layout)
    if y.dtype != dt or tuple(y.shape) != (T, N):
        raise AssertionError(f"result {y.dtype} {tuple(y.shape)}, expected {dt} {(T, N)}")
    ref = torch.zeros(T, N, dtype=torch.float64)
    o = offs.tolist()
    for g in range(G):
        ref[o[g]:o[g + 1]] = x[o[g]:o[g + 1]].double().cpu() @ w[g].double().cpu()
    e = rel_err(y, ref)
    if e > TOL[dt]:
        raise AssertionError(f"rel err {e:.2e} > {TOL[dt]:.1e}")
    outside = torch.cat((y[: o[0]], y[o[G]:])).cpu()
    if outside.numel() and (outside != 0).any():
        raise AssertionError("rows outside the groups are not zeros")


def grouped_grad_case(dt, layout, T, Kd, N, G, pre, post, want_w):
    offs = offsets(T, G, pre, post)
    x = torch.randn(T, Kd, dtype=dt, device=DEV).requires_grad_(True)
    w = torch.randn(G, Kd, N, dtype=dt, device=DEV) / Kd ** 0.5
    wl = (w if layout == "kn" else w.transpose(1, 2).contiguous()).requires_grad_(want_w)
    dy = torch.randn(T, N, dtype=dt, device=DEV)   # not zero outside the groups: those rows must not count
    luatile.grouped_matmul(x, wl, offs, layout).backward(dy)
    xr = x.detach().double().cpu().requires_grad_(True)
    wr = wl.detach().double().cpu().requires_grad_(True)
    o = offs.tolist()
    ref = torch.zeros(T, N, dtype=torch.float64)
    for g in range(G):
        ref[o[g]:o[g + 1]] = xr[o[g]:o[g + 1]] @ (wr[g] if layout == "kn" else wr[g].t())
    ref.backward(dy.double().cpu())
    if x.grad is None or x.grad.dtype != dt:
        raise AssertionError(f"x.grad {None if x.grad is None else x.grad.dtype}, expected {dt}")
    e = rel_err(x.grad, xr.grad)
    if e > TOL[dt]:
        raise AssertionError(f"dx rel err {e:.2e} > {TOL[dt]:.1e}")
    outside = torch.cat((x.grad[: o[0]], x.grad[o[G]:])).cpu()
    if outside.numel() and (outside != 0).any():
        raise AssertionError("dx is not zero on the rows outside the groups")
    if not want_w:
        if wl.grad is not None:
            raise AssertionError("w got a gradient it did not ask for")
        return
    if wl.grad is None or wl.grad.dtype != dt:
        raise AssertionError(f"w.grad {None if wl.grad is None else wl.grad.dtype}, expected {dt}")
    e = rel_err(wl.grad, wr.grad)
    if e > TOL[dt]:
        raise AssertionError(f"dw rel err {e:.2e} > {TOL[dt]:.1e}")
    for g in range(G):
        if o[g] == o[g + 1] and (wl.grad[g] != 0).any():
            raise AssertionError(f"dw of the empty group {g} is not zero")


def test_grouped():
    for dt in (torch.float16, torch.bfloat16):
        for layout in ("kn", "nk"):
            for _ in range(2):
                T, Kd, N, G = R.randint(20, 300), R.choice((8, 40, 72, 136)), R.choice((8, 24, 136, 264)), R.randint(1, 9)
                pre, post = R.choice((0, 0, 3)), R.choice((0, 5))
                name = f"grouped_matmul/{str(dt)[6:]}/{layout}/T{T}xK{Kd}xN{N}/G{G}/pre{pre}/post{post}"
                check(name, lambda: grouped_case(dt, layout, T, Kd, N, G, pre, post))
            T, Kd, N, G = R.randint(20, 300), R.choice((8, 40, 72, 136)), R.choice((8, 24, 136, 264)), R.randint(2, 9)
            pre, post = R.choice((0, 3)), R.choice((0, 5))
            for want_w in (True, False):
                name = (f"grouped_matmul/backward{'' if want_w else '/dx'}/{str(dt)[6:]}/{layout}/"
                        f"T{T}xK{Kd}xN{N}/G{G}/pre{pre}/post{post}")
                check(name, lambda: grouped_grad_case(dt, layout, T, Kd, N, G, pre, post, want_w))


def grouped_bad():
    x = torch.randn(16, 8, dtype=torch.bfloat16, device=DEV)
    w = torch.randn(2, 8, 24, dtype=torch.bfloat16, device=DEV)
    offs = torch.tensor([0, 10, 16], dtype=torch.int32, device=DEV)
    raises(TypeError, lambda: luatile.grouped_matmul(x.float(), w, offs), "dtype float32")
    raises(TypeError, lambda: luatile.grouped_matmul(x, w.half(), offs), "must be the same")
    raises(TypeError, lambda: luatile.grouped_matmul(x, w, offs.long()), "offs has dtype int64")
    raises(ValueError, lambda: luatile.grouped_matmul(x, w, offs[:2]), "offs has 2 entries")
    raises(ValueError, lambda: luatile.grouped_matmul(x, w, offs, "mk"), "layout must be")
    raises(ValueError, lambda: luatile.grouped_matmul(x, w, offs, "nk"), "w's K (24)")
    raises(ValueError, lambda: luatile.grouped_matmul(x[:, :4], w, offs), "w's K (8)")


def fp8_case(M, Kd, N, row):
    a = (torch.randn(M, Kd, device=DEV) * 2).to(FP8)
    b = (torch.randn(N, Kd, device=DEV) * 2).to(FP8)
    if row:
        sa, sb = torch.rand(M, 1, device=DEV) + 0.5, torch.rand(1, N, device=DEV) + 0.5
    else:
        sa, sb = torch.tensor(0.75, device=DEV), torch.tensor([1.5], device=DEV)
    c = luatile.matmul_fp8(a, b, sa, sb)
    if c.dtype != torch.bfloat16 or tuple(c.shape) != (M, N):
        raise AssertionError(f"result {c.dtype} {tuple(c.shape)}")
    ref = (a.double().cpu() @ b.double().cpu().t()) * sa.double().cpu() * sb.double().cpu()
    e = rel_err(c, ref)
    if e > 1e-2:
        raise AssertionError(f"rel err {e:.2e} > 1e-2")


def e4m3(bits):
    """The float64 values of e4m3fn bytes (uint8): sign, 4 exponent bits of
    bias 7, 3 mantissa bits; exponent 0 subnormal (no NaN bytes here)."""
    b = bits.long()
    e, m = (b >> 3) & 15, (b & 7).double()
    v = torch.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * torch.pow(2.0, (e - 7).double()))
    return torch.where(b >= 128, -v, v)


def fp8_bytes_case(M, Kd, N, row):
    """matmul_fp8's call of the launchers on e4m3 bytes held as uint8 (torch
    before 2.1 has no float8 dtype: the op refuses those tensors, its call
    below takes bytes as bytes), against float64 of the decoded values."""
    from luatile import _moe

    def rand_bytes(r, c):
        t = torch.randint(0, 256, (r, c), dtype=torch.uint8, device=DEV)
        return torch.where((t & 127) == 127, t - 1, t)   # no NaN bytes

    a, b = rand_bytes(M, Kd), rand_bytes(N, Kd)
    if row:
        sa, sb = torch.rand(M, 1, device=DEV) + 0.5, torch.rand(1, N, device=DEV) + 0.5
    else:
        sa, sb = torch.tensor(0.75, device=DEV), torch.tensor([1.5], device=DEV)
    c = _moe.matmul_fp8_forward(a, b, sa, sb, False)
    ref = (e4m3(a.cpu()) @ e4m3(b.cpu()).t()) * sa.double().cpu() * sb.double().cpu()
    e = rel_err(c, ref)
    if e > 1e-2:
        raise AssertionError(f"rel err {e:.2e} > 1e-2")


def fp8_math_case(M, Kd, N, row, needs):
    """_moe.fp8_backward on float32 stand-ins of a and b (the math, on any
    torch) against float64 autograd of (a @ b.T) * scale_a * scale_b."""
    from luatile import _moe
    a, b = torch.randn(M, Kd, device=DEV) * 2, torch.randn(N, Kd, device=DEV) * 2
    if row:
        sa, sb = torch.rand(M, 1, device=DEV) + 0.5, torch.rand(1, N, device=DEV) + 0.5
    else:
        sa, sb = torch.tensor(0.75, device=DEV), torch.tensor([1.5], device=DEV)
    dc = torch.randn(M, N, device=DEV).to(torch.bfloat16)
    got = _moe.fp8_backward(needs, dc, a, b, sa, sb)
    leaves = [t.double().cpu().requires_grad_(True) for t in (a, b, sa, sb)]
    ((leaves[0] @ leaves[1].t()) * leaves[2] * leaves[3]).backward(dc.double().cpu())
    for name, need, g, x, leaf in zip(("da", "db", "dscale_a", "dscale_b"), needs, got, (a, b, sa, sb), leaves):
        if not need:
            if g is not None:
                raise AssertionError(f"{name} computed, not asked for")
            continue
        if g.dtype != x.dtype or g.shape != x.shape:
            raise AssertionError(f"{name}: {g.dtype} {tuple(g.shape)}, expected {x.dtype} {tuple(x.shape)}")
        e = rel_err(g, leaf.grad)
        if e > 1e-5:
            raise AssertionError(f"{name} rel err {e:.2e} > 1e-5")


def fp8_grad_case(M, Kd, N, row):
    """The op's gradients (float8 torch): both scales, and a and b where a
    float8 tensor may require grad, against float64 autograd; a's and b's
    compared after the reference's own rounding to float8 (saturated)."""
    a = (torch.randn(M, Kd, device=DEV) * 2).to(FP8)
    b = (torch.randn(N, Kd, device=DEV) * 2).to(FP8)
    try:
        a.requires_grad_(True)
        b.requires_grad_(True)
    except RuntimeError:
        a, b = a.detach(), b.detach()
    if row:
        sa, sb = torch.rand(M, 1, device=DEV) + 0.5, torch.rand(1, N, device=DEV) + 0.5
    else:
        sa, sb = torch.tensor(0.75, device=DEV), torch.tensor([1.5], device=DEV)
    sa.requires_grad_(True)
    sb.requires_grad_(True)
    dc = torch.randn(M, N, device=DEV).to(torch.bfloat16)
    luatile.matmul_fp8(a, b, sa, sb).backward(dc)
    leaves = [t.detach().double().cpu().requires_grad_(True) for t in (a, b, sa, sb)]
    ((leaves[0] @ leaves[1].t()) * leaves[2] * leaves[3]).backward(dc.double().cpu())
    for name, x, leaf, tol in (("dscale_a", sa, leaves[2], 1e-4), ("dscale_b", sb, leaves[3], 1e-4),
                               ("da", a, leaves[0], 7e-2), ("db", b, leaves[1], 7e-2)):
        if not x.requires_grad:
            continue
        ref = leaf.grad.clamp(-448, 448).to(FP8) if x.dtype == FP8 else leaf.grad   # e4m3's step: 2^-3 relative
        if x.grad is None or x.grad.dtype != x.dtype:
            raise AssertionError(f"{name}: {None if x.grad is None else x.grad.dtype}, expected {x.dtype}")
        e = rel_err(x.grad.float(), ref.float())
        if e > tol:
            raise AssertionError(f"{name} rel err {e:.2e} > {tol:g}")


def test_fp8():
    for row in (False, True):
        for needs in ((True, True, True, True), (False, True, True, False)):
            M, Kd, N = R.randint(1, 150), R.choice((16, 48, 208)), R.choice((8, 40, 136))
            check(f"matmul_fp8/backward math/{'row' if row else 'tensor'}/{''.join('ab12'[i] for i in range(4) if needs[i])}"
                  f"/M{M}xK{Kd}xN{N}", lambda: fp8_math_case(M, Kd, N, row, needs))
    if FP8 is None:
        for row in (False, True):
            M, Kd, N = R.randint(1, 150), R.choice((16, 48, 208)), R.choice((8, 40, 136))
            check(f"matmul_fp8/bytes/{'row' if row else 'tensor'}/M{M}xK{Kd}xN{N}",
                  lambda: fp8_bytes_case(M, Kd, N, row))
        print(f"SKIP python/moe/matmul_fp8: torch {torch.__version__} has no float8_e4m3fn (the op itself; "
              "its launcher calls checked on bytes above)", flush=True)
        return
    check("matmul_fp8/bytes/row/M5xK32xN7", lambda: fp8_bytes_case(5, 32, 7, True))
    for row in (False, True):
        M, Kd, N = R.randint(1, 150), R.choice((16, 48, 208)), R.choice((8, 40, 136))
        check(f"matmul_fp8/{'row' if row else 'tensor'}/M{M}xK{Kd}xN{N}", lambda: fp8_case(M, Kd, N, row))
        check(f"matmul_fp8/backward/{'row' if row else 'tensor'}/M{M}xK{Kd}xN{N}", lambda: fp8_grad_case(M, Kd, N, row))

    def bad():
        a, b = torch.zeros(4, 16, device=DEV).to(FP8), torch.zeros(8, 16, device=DEV).to(FP8)
        one = torch.ones(1, device=DEV)
        raises(TypeError, lambda: luatile.matmul_fp8(a.float(), b, one, one), "dtype float32")
        raises(ValueError, lambda: luatile.matmul_fp8(a, b[:, :8], one, one), "its K must be a's")
        raises(ValueError, lambda: luatile.matmul_fp8(a, b, torch.ones(4, 1, device=DEV), one),
               "they must both have one element")
        raises(TypeError, lambda: luatile.matmul_fp8(a, b, one.double(), one), "scale_a has dtype float64")
    check("matmul_fp8/bad arguments", bad)


def fakes():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x = torch.empty(30, 16, dtype=torch.bfloat16, device=DEV)
        w = torch.empty(3, 40, 16, dtype=torch.bfloat16, device=DEV)
        offs = torch.empty(4, dtype=torch.int32, device=DEV)
        y = torch.ops.luatile.grouped_matmul(x, w, offs, "nk")
        if tuple(y.shape) != (30, 40) or y.dtype != torch.bfloat16:
            raise AssertionError(f"grouped_matmul fake: {y.dtype} {tuple(y.shape)}")
        dw = torch.ops.luatile.grouped_matmul_weight_grad(x, y, offs, 3, "nk")
        if tuple(dw.shape) != (3, 40, 16) or dw.dtype != torch.bfloat16:
            raise AssertionError(f"grouped_matmul_weight_grad fake: {dw.dtype} {tuple(dw.shape)}")
        if FP8 is not None:
            a, b = torch.empty(5, 32, dtype=FP8, device=DEV), torch.empty(7, 32, dtype=FP8, device=DEV)
            c = torch.ops.luatile.matmul_fp8(a, b, torch.empty(5, 1, device=DEV), torch.empty(1, 7, device=DEV), False)
            if tuple(c.shape) != (5, 7) or c.dtype != torch.bfloat16:
                raise AssertionError(f"matmul_fp8 fake: {c.dtype} {tuple(c.shape)}")


def main():
    print(f"torch {torch.__version__}, device {DEV}", flush=True)
    test_grouped()
    check("grouped_matmul/bad arguments", grouped_bad)
    test_fp8()
    if luatile.HAVE_CUSTOM_OP:
        check("fake", fakes)
    else:
        print(f"SKIP python/moe/fake: torch {torch.__version__} has no torch.library.custom_op", flush=True)
    return 1 if "FAIL" in RESULTS else 0


if __name__ == "__main__":
    sys.exit(main())
