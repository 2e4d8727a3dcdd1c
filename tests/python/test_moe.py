"""test_moe.py: luatile.grouped_matmul and luatile.matmul_fp8
(python/luatile/_moe.py) against torch in float64.

    python3 tests/python/test_moe.py [--device cpu|cuda]

grouped_matmul: random inputs of ragged sizes, groups of uneven sizes with
empty ones, rows before the first group and past the last (zeros in the
result), K and N not multiples of a tile, both layouts and dtypes; the
library's result must match float64 to the dtype's rounding and its rows
outside the groups must be exact zeros.  matmul_fp8: per-tensor and per-row
scales against float64 of the fp8 values (torch 2.1 and later: float8_e4m3fn;
without it the op is a SKIP line, and its launcher calls are checked on e4m3
bytes held as uint8, against float64 of the decoded bytes).  Bad arguments raise; on torch 2.4+ the custom ops'
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


def test_grouped():
    for dt in (torch.float16, torch.bfloat16):
        for layout in ("kn", "nk"):
            for _ in range(2):
                T, Kd, N, G = R.randint(20, 300), R.choice((8, 40, 72, 136)), R.choice((8, 24, 136, 264)), R.randint(1, 9)
                pre, post = R.choice((0, 0, 3)), R.choice((0, 5))
                name = f"grouped_matmul/{str(dt)[6:]}/{layout}/T{T}xK{Kd}xN{N}/G{G}/pre{pre}/post{post}"
                check(name, lambda: grouped_case(dt, layout, T, Kd, N, G, pre, post))


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
    raises(RuntimeError, lambda: luatile.grouped_matmul(x, w.clone().requires_grad_(True), offs), "no backward")


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


def test_fp8():
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
