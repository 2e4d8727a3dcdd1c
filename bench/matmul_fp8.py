"""matmul_fp8.py: checks the generated matmul_fp8 kernels (both scale
variants) against a float64 reference of the dequantised inputs, then
times them beside torch._scaled_mm (cuBLASLt fp8) in the same process.
Inputs: e4m3 made from randn * 64 (saturating clamp), so subnormal to
large codes occur; per-tensor scales (f32 scalars for luatile, 0-dim
tensors for torch) and per-row scales ([M, 1], [1, N]).
Check: |C - ref| <= 2^-8 |ref| + 2^-20 sum|a b| scale, every element of
ragged shapes, and 256 rows of each timed shape.
Times: triton.testing.do_bench (median, L2 flushed between runs).
TFLOP/s = 2 M N K / time.
usage: python3 bench/matmul_fp8.py LIB.so"""
import sys

import os
import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import Lib  # noqa: E402

lib = Lib(sys.argv[1])
E4 = torch.float8_e4m3fn
torch.manual_seed(0)


def make(M, N, K):
    a = (torch.randn(M, K, device="cuda") * 64).clamp(-448, 448).to(E4)
    b = (torch.randn(N, K, device="cuda") * 64).clamp(-448, 448).to(E4)
    return a, b


def ours(variant, a, b, sa, sb):
    M, K = a.shape
    N = b.shape[0]
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    if variant == "tensor":
        rc = lib("matmul_fp8_tensor", a, b, c, M, K, N, float(sa), float(sb))
    else:
        rc = lib("matmul_fp8_row", a, b, c, sa, sb, M, K, N)
    assert rc == 0, rc
    return c


def scales(variant, M, N):
    if variant == "tensor":
        return 0.01, 0.02
    return (torch.rand(M, 1, device="cuda") * 0.02 + 0.001), (torch.rand(1, N, device="cuda") * 0.02 + 0.001)


def check(variant, M, N, K, rows=None):
    a, b = make(M, N, K)
    sa, sb = scales(variant, M, N)
    c = ours(variant, a, b, sa, sb)
    torch.cuda.synchronize()
    r = slice(None) if rows is None else slice(0, rows)
    ad, bd = a[r].double(), b.double()
    s = (torch.tensor(sa, dtype=torch.float64) if variant == "tensor" else sa[r].double()) * \
        (torch.tensor(sb, dtype=torch.float64) if variant == "tensor" else sb.double())
    s = s.to("cuda") if torch.is_tensor(s) else s
    ref = (ad @ bd.T) * s
    mag = (ad.abs() @ bd.abs().T) * (s.abs() if torch.is_tensor(s) else abs(s))
    got = c[r].double()
    err = (got - ref).abs()
    tol = ref.abs() * 2.0 ** -8 + mag * 2.0 ** -20
    bad = int((~(err <= tol)).sum())
    worst = float((err / tol).max())
    ok = bad == 0
    print(f"{'PASS' if ok else 'FAIL'} check matmul_fp8_{variant} {M}x{N}x{K}"
          f"{'' if rows is None else f' ({rows} rows)'}: {bad} bad, worst {worst:.2f} of the bound", flush=True)
    return ok


ok = True
for variant in ("tensor", "row"):
    for M, N, K in [(1, 1, 1), (37, 45, 29), (130, 129, 70), (257, 300, 130), (16, 1000, 4096), (1000, 77, 1024)]:
        ok &= check(variant, M, N, K)
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 28672, 4096), (16, 28672, 4096), (128, 28672, 4096)]
for variant in ("tensor", "row"):
    for M, N, K in SHAPES:
        ok &= check(variant, M, N, K, rows=256 if M > 256 else None)
if not ok:
    print("checks failed: no timings")
    sys.exit(1)

print(f"{'shape':>20} {'variant':>7} {'luatile TF/s':>12} {'_scaled_mm TF/s':>15} {'ratio':>6}")
for variant in ("tensor", "row"):
    for M, N, K in SHAPES:
        a, b = make(M, N, K)
        sa, sb = scales(variant, M, N)
        if variant == "tensor":
            ta, tb = torch.tensor(sa, device="cuda"), torch.tensor(sb, device="cuda")
        else:
            ta, tb = sa, sb
        t_ours = triton.testing.do_bench(lambda: ours(variant, a, b, sa, sb))
        t_ref = triton.testing.do_bench(
            lambda: torch._scaled_mm(a, b.t(), scale_a=ta, scale_b=tb, out_dtype=torch.bfloat16))
        f = 2 * M * N * K * 1e-9
        print(f"{f'{M}x{N}x{K}':>20} {variant:>7} {f / t_ours:12.1f} {f / t_ref:15.1f} {t_ref / t_ours:6.2f}",
              flush=True)
