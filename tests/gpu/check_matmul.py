"""check_matmul.py: every matmul variant (dtype x layout x epilogue) in a
shared library of generated launchers against a float64 reference (torch on
upcast inputs), on fresh random inputs, NaN-poisoned outputs, the issue's
shapes: 1000^3, 4097x333x129, 1x4096x4096, 4096x1x4096, batches of 3
and 2 with padded leading dimensions and batch strides, and M of 37 and 64.
beta = 0 runs with a NaN-filled C0 (it must not be read); one case updates
C in place (C0 = C); the 4097x333x129 case's bias starts one element past
a 16-byte boundary.
Metric: ||out - ref|| / ||ref|| under a per-dtype bound, no NaN.
--dtypes, --layouts, --epilogues: only those variants (a library built with
-D overrides for some of them, e.g. other tile sizes); default all.
usage: python3 tests/gpu/check_matmul.py LIB.so TARGETNAME [--dtypes bf16,f16] [--layouts nn,nt] [--epilogues none]"""
import math
import sys

import torch

from lt import DTYPES, I64, Lib, command_line

BOUND = {"f32": 1e-5, "tf32": 2e-3, "f16": 2e-3, "bf16": 1e-2}   # tf32: f32 matrices, 10-bit mantissa products
args, opts = command_line(sys.argv[1:])
lib, target = Lib(args[0]), args[1]
gen = torch.Generator(device="cuda")
gen.manual_seed(4321)
ACTS = {"none": lambda x: x, "bias": lambda x: x, "bias_relu": torch.relu,
        "bias_gelu": lambda x: 0.5 * x * (1 + torch.special.erf(x / math.sqrt(2))),
        "bias_silu": lambda x: x / (1 + torch.exp(-x))}
SHAPES = [(1, 1000, 1000, 1000, 0), (1, 4097, 333, 129, 0), (1, 1, 4096, 4096, 0), (1, 4096, 1, 4096, 0),
          (3, 257, 300, 200, 8), (2, 200, 264, 72, 8), (2, 37, 264, 136, 0), (1, 64, 1000, 1000, 8),
          (1, 100, 520, 264, 8), (1, 16, 1000, 1000, 8), (2, 24, 264, 136, 8), (1, 7, 520, 264, 1)]
# batch, M, N, K, padding of the leading dims (the last four but three: strides of 16-byte multiples, so that
# sm90a's TMA copies and stores take them, with ragged tiles at M, N and K; 200 x 264: sm90a's bucket
# M=256,N=4096, the next two its small-M bucket, M <= 64, the next its bucket M=128,N=8192); then M = 16 and
# 24 (sm90a: the swapped operands' buckets, A's rows of 24 and 32 elements in tn and tt, TMA) and 7 (rows off
# the 16-byte grid: the cp.async twins)


def rand(shape, dt):
    dt = "f32" if dt == "tf32" else dt
    x = torch.rand(shape, device="cuda", dtype=torch.float64, generator=gen) * 2 - 1
    x = torch.where(x.abs() < 1e-3, torch.full_like(x, 0.5), x)
    return x.to(DTYPES[dt])


def matrix(batch, rows, cols, pad, dt):
    """A [batch, rows, cols] view with row stride cols + pad, batch stride + pad."""
    ld, sb = cols + pad, rows * (cols + pad) + pad
    store = rand((batch * sb + 8,), dt)
    return store.as_strided((batch, rows, cols), (sb, ld, 1)), sb, ld


results = []
for dt in opts.get("--dtypes", "f16,bf16,f32,tf32").split(","):
    for lay in opts.get("--layouts", "nn,nt,tn,tt").split(","):
        for epi in opts.get("--epilogues", ",".join(ACTS)).split(","):
            name = f"matmul_{dt}_{epi}_{lay}"
            for i, (bt, M, N, K, pad) in enumerate(SHAPES):
                ta, tb = lay[0] == "t", lay[1] == "t"
                A, sa, lda = matrix(bt, K if ta else M, M if ta else K, pad, dt)
                B, sb, ldb = matrix(bt, N if tb else K, K if tb else N, pad, dt)
                C, sc, ldc = matrix(bt, M, N, pad, dt)
                C.fill_(float("nan"))
                beta = 0.5 if i % 2 else 0.0
                C0 = matrix(bt, M, N, pad, dt)[0] if beta else C.clone()   # NaN when beta = 0
                if i == 4:
                    C0 = C.copy_(rand((bt, M, N), dt))  # in place: C = alpha A B + beta C
                    beta = -1.0
                # (4097 x 333: a bias one element off the 16-byte grid, which sm90a's staged copy takes element-wise)
                bias = rand((N + 1,), dt)[1:] if i == 1 else rand((N,), dt)
                alpha = 1.25
                ref_c0 = C0.double().clone() if beta else None
                args = [C0, A, B, C] + ([bias] if epi != "none" else []) + [
                    bt, M, N, K, I64(sc), I64(ldc), I64(sa), I64(lda), I64(sb), I64(ldb), alpha, beta]
                rc = lib(name, *args)
                torch.cuda.synchronize()
                a = A.double().transpose(1, 2) if ta else A.double()
                b = B.double().transpose(1, 2) if tb else B.double()
                ref = alpha * (a @ b)
                if beta:
                    ref = ref + beta * ref_c0
                if epi != "none":
                    ref = ref + bias.double()
                ref = ACTS[epi](ref)
                o = C.double()
                label = f"{target} {name} {bt}x{M}x{N}x{K} rc={rc}"
                if torch.isnan(o).any():
                    results.append((False, label, f"{int(torch.isnan(o).sum())} NaN (unwritten or wrong)"))
                    continue
                err = ((o - ref).norm() / ref.norm().clamp_min(1e-30)).item()
                results.append((err <= BOUND[dt] and rc == 0, label, f"rel err {err:.2e} (bound {BOUND[dt]:.0e})"))
    if "nn" not in opts.get("--layouts", "nn") or "none" not in opts.get("--epilogues", "none"):
        continue   # (the argument checks call matmul_DT_none_nn)
    x = rand((64,), dt)
    bad = [lib(f"matmul_{dt}_none_nn", x, None, x, x, 1, 4, 4, 4, I64(16), I64(4), I64(16), I64(4), I64(16),
               I64(4), 1.0, 0.0),
           lib(f"matmul_{dt}_none_nn", x, x, x, x, 1, 4, 0, 4, I64(16), I64(4), I64(16), I64(4), I64(16), I64(4),
               1.0, 0.0)]
    results.append((all(r != 0 for r in bad), f"{target} matmul_{dt} launchers refuse bad arguments", f"codes {bad}"))

for ok, name, why in results:
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why), flush=True)
print(f"{sum(r[0] for r in results)} passed, {sum(not r[0] for r in results)} failed")
