"""matmul_fp8.py: checks the generated matmul_fp8 kernels (both scale
variants; on sm90a both fast_accum variants) against a float64 reference
of the dequantised inputs, then times them beside torch._scaled_mm
(cuBLASLt fp8) in the same process, fast_accum beside its
use_fast_accum=True.
Inputs: e4m3 made from randn * 64 (saturating clamp), so subnormal to
large codes occur; per-tensor scales (f32 scalars for luatile, 0-dim
tensors for torch) and per-row scales ([M, 1], [1, N]).
Check: first exactness on inputs of {-1, 0, 1} (every sum fits the
tensor cores' accumulator: any wrong element, row or column is a bug);
then |C - ref| <= 2^-8 |ref| + e sum|a b| scale, every element of ragged
shapes and 256 rows of each timed shape, where e is the accumulation's:
2^-20 for f32 sums of exact products (mma.sync on f16 pairs, FMA); 2^-12
where the tensor cores sum each K step of 128 in fp8 wgmma (sm90a;
torch._scaled_mm's default errs the same), 2^-10 with fast_accum (the
tensor cores' sums over all of K; as use_fast_accum=True): about 4 times
the worst seen on an H200 (2026-11-25, bench/results).
Times: triton.testing.do_bench (median, L2 flushed between runs), the
output allocated once outside the timed call.
TFLOP/s = 2 M N K / time.
usage: python3 bench/matmul_fp8.py LIB.so [sm90a]"""
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


SM90A = len(sys.argv) > 2 and sys.argv[2] == "sm90a"
FAST = (False, True) if SM90A else (False,)
EPS = {False: 2.0 ** -12 if SM90A else 2.0 ** -20, True: 2.0 ** -10}


def ours(variant, a, b, sa, sb, fast=False, c=None):
    M, K = a.shape
    N = b.shape[0]
    if c is None:
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    name = f"matmul_fp8{'_fast_accum' if fast else ''}_{variant}"
    if variant == "tensor":
        rc = lib(name, a, b, c, M, K, N, float(sa), float(sb))
    else:
        rc = lib(name, a, b, c, sa, sb, M, K, N)
    assert rc == 0, rc
    return c


def exact(variant, fast, M, N, K):
    """{-1, 0, 1} inputs, scales 1: C must be the exact sums (bf16 of them)."""
    a = torch.randint(-1, 2, (M, K), device="cuda").float().to(E4)
    b = torch.randint(-1, 2, (N, K), device="cuda").float().to(E4)
    one = 1.0 if variant == "tensor" else torch.ones(M, 1, device="cuda")
    c = ours(variant, a, b, one, 1.0 if variant == "tensor" else torch.ones(1, N, device="cuda"), fast)
    ref = (a.double() @ b.double().T).to(torch.bfloat16)
    bad = int((c != ref).sum())
    print(f"{'PASS' if bad == 0 else 'FAIL'} exact matmul_fp8{'_fast_accum' if fast else ''}_{variant} {M}x{N}x{K}: "
          f"{bad} elements differ from the exact sums", flush=True)
    return bad == 0


def scales(variant, M, N):
    if variant == "tensor":
        return 0.01, 0.02
    return (torch.rand(M, 1, device="cuda") * 0.02 + 0.001), (torch.rand(1, N, device="cuda") * 0.02 + 0.001)


def check(variant, M, N, K, rows=None, fast=False):
    a, b = make(M, N, K)
    sa, sb = scales(variant, M, N)
    c = ours(variant, a, b, sa, sb, fast)
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
    tol = ref.abs() * 2.0 ** -8 + mag * EPS[fast]
    bad = int((~(err <= tol)).sum())
    worst = float((err / tol).max())
    ok = bad == 0
    print(f"{'PASS' if ok else 'FAIL'} check matmul_fp8{'_fast_accum' if fast else ''}_{variant} {M}x{N}x{K}"
          f"{'' if rows is None else f' ({rows} rows)'}: {bad} bad, worst {worst:.2f} of the bound", flush=True)
    return ok


ok = True
for fast in FAST:
    for variant in ("tensor", "row"):
        for M, N, K in [(37, 45, 29), (257, 300, 130), (16, 1000, 4096), (300, 4096, 8192)]:
            ok &= exact(variant, fast, M, N, K)
        for M, N, K in [(1, 1, 1), (37, 45, 29), (130, 129, 70), (257, 300, 130), (16, 1000, 4096), (1000, 77, 1024)]:
            ok &= check(variant, M, N, K, fast=fast)
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 28672, 4096), (16, 28672, 4096), (128, 28672, 4096)]
for fast in FAST:
    for variant in ("tensor", "row"):
        for M, N, K in SHAPES:
            ok &= check(variant, M, N, K, rows=256 if M > 256 else None, fast=fast)
if not ok:
    print("checks failed: no timings")
    sys.exit(1)

print(f"{'shape':>20} {'variant':>18} {'luatile TF/s':>12} {'_scaled_mm TF/s':>15} {'ratio':>6}")
for fast in FAST:
    for variant in ("tensor", "row"):
        for M, N, K in SHAPES:
            a, b = make(M, N, K)
            sa, sb = scales(variant, M, N)
            if variant == "tensor":
                ta, tb = torch.tensor(sa, device="cuda"), torch.tensor(sb, device="cuda")
            else:
                ta, tb = sa, sb
            c = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
            t_ours = triton.testing.do_bench(lambda: ours(variant, a, b, sa, sb, fast, c))
            try:
                t_ref = triton.testing.do_bench(
                    lambda: torch._scaled_mm(a, b.t(), scale_a=ta, scale_b=tb, out_dtype=torch.bfloat16,
                                             use_fast_accum=fast))
            except RuntimeError as e:   # a torch without this combination
                print(f"torch._scaled_mm {variant} use_fast_accum={fast}: {str(e)[:100]}")
                t_ref = float("nan")
            f = 2 * M * N * K * 1e-9
            name = f"{'fast_accum_' if fast else ''}{variant}"
            print(f"{f'{M}x{N}x{K}':>20} {name:>18} {f / t_ours:12.1f} {f / t_ref:15.1f} {t_ref / t_ours:6.2f}",
                  flush=True)
