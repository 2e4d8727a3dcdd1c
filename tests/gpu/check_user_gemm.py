"""check_user_gemm.py: the user-style GEMMs of tests/emu/kernels (swiglu.lua,
gemm_leaky.lua, gemm_colsum.lua, gemm_odd.lua, gemm_tf32.lua,
gemm_tf32_wide.lua and gemm_xt.lua: written as a
user writes a GEMM, not matmul.lua; gemm_colsum's 16-row tiles run wgmma on
the swapped operands on sm90a, with a sum over each tile's rows; gemm_odd's
tiles have a side that is not a power of two, bf16 only; gemm_tf32's f32
matrices, an operand stored MN-major, run tf32 wgmma with that operand's
words in registers; gemm_tf32_wide's, on 256 x 128 and 128 x 256 tiles,
through fewer register slots; gemm_xt's X stored [K, M] on 16-row tiles,
and with M = 1 X's one row through the kernel's row twin, gen/pass/row.c) from a
shared library of their generated launchers, against a float64 reference
(torch on upcast inputs), on fresh random inputs with NaN-poisoned outputs.
On sm90a the shapes run both kernels of each file: rows of a multiple of 16
bytes take the warp-specialized TMA kernel (K = 4096, 1000, 72, 512),
K = 129 and a matrix one element off a 16-byte boundary (skew) the cp.async
kernel the launcher falls back to.  Metric: ||out - ref|| / ||ref|| under a
per-dtype bound, no NaN.
usage: python3 tests/gpu/check_user_gemm.py LIB.so TARGETNAME [tf32]
  tf32: only gemm_tf32 (a library of its launchers alone)"""
import sys

import torch

from lt import DTYPES, Lib

BOUND = {"f16": 2e-3, "bf16": 1e-2, "f32": 2e-3}   # f32: gemm_tf32, tf32 products
SHAPES = [(4096, 4096, 4096, 0), (1000, 1000, 1000, 0), (257, 520, 72, 0), (4097, 333, 129, 0), (300, 256, 512, 1)]
lib, target = Lib(sys.argv[1]), sys.argv[2]
only_tf32 = sys.argv[3:] == ["tf32"]
gen = torch.Generator(device="cuda")
gen.manual_seed(1234)


def rand(shape, dt, skew):
    """Random values in [-1, 1] (none near 0); skew: one element past a 16-byte boundary."""
    n = shape[0] * shape[1]
    x = torch.rand((n + skew,), device="cuda", dtype=torch.float64, generator=gen) * 2 - 1
    x = torch.where(x.abs() < 1e-3, torch.full_like(x, 0.5), x)
    return x.to(DTYPES[dt])[skew:].view(shape)


def poisoned(shape, dt, skew):
    return torch.full((shape[0] * shape[1] + skew,), float("nan"), device="cuda", dtype=DTYPES[dt])[skew:].view(shape)


def verdict(label, rc, out, ref, dt):
    o = out.double()
    if rc != 0:
        return False, label, f"launcher returned {rc}"
    if torch.isnan(o).any():
        return False, label, f"{int(torch.isnan(o).sum())} NaN (unwritten or wrong)"
    err = ((o - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    return err <= BOUND[dt], label, f"rel err {err:.2e} (bound {BOUND[dt]:.0e})"


results = []
for dt in () if only_tf32 else ("f16", "bf16"):
    for M, N, K, skew in SHAPES:
        shape = f"{M}x{N}x{K}{' skewed' if skew else ''}"
        X, W1, W3 = rand((M, K), dt, skew), rand((K, N), dt, skew), rand((K, N), dt, skew)
        Y = poisoned((M, N), dt, skew)
        rc = lib(f"swiglu_{dt}", X, W1, W3, Y, M, K, N)
        torch.cuda.synchronize()
        g, u = X.double() @ W1.double(), X.double() @ W3.double()
        results.append(verdict(f"{target} swiglu_{dt} {shape}", rc, Y, g / (1 + torch.exp(-g)) * u, dt))
        for tile in ("tall", "wide", "one"):
            A, B, C = rand((M, K), dt, skew), rand((N, K), dt, skew), poisoned((M, N), dt, skew)
            rc = lib(f"gemm_leaky_{dt}_{tile}", A, B, C, M, K, N, 0.125)
            torch.cuda.synchronize()
            v = A.double() @ B.double().t()
            results.append(verdict(f"{target} gemm_leaky_{dt}_{tile} {shape}", rc, C, torch.where(v > 0, v, v * 0.125),
                                   dt))
        for lay in ("nn", "nt") if dt == "bf16" else ():
            for tile in ("n192", "n208", "m192"):
                A, C = rand((M, K), dt, skew), poisoned((M, N), dt, skew)
                B = rand((N, K) if lay == "nt" else (K, N), dt, skew)
                rc = lib(f"gemm_odd_{lay}_{tile}", A, B, C, M, K, N, 0.125)
                torch.cuda.synchronize()
                v = A.double() @ (B.double().t() if lay == "nt" else B.double())
                results.append(verdict(f"{target} gemm_odd_{lay}_{tile} {shape}", rc, C,
                                       torch.where(v > 0, v, v * 0.125), dt))
        for m in (M, 1):   # gemm_xt: C = X^T W, X [K, M]; M = 1: the row twin (TMA but at K = 129 and skewed)
            X, W, C = rand((K, m), dt, skew), rand((K, N), dt, skew), poisoned((m, N), dt, skew)
            rc = lib(f"gemm_xt_{dt}", X, W, C, K, m, N)
            torch.cuda.synchronize()
            results.append(verdict(f"{target} gemm_xt_{dt} {m}x{N}x{K}{' skewed' if skew else ''}", rc, C,
                                   X.double().t() @ W.double(), dt))
        T = (M + 15) // 16
        A, B, C = rand((M, K), dt, skew), rand((N, K), dt, skew), poisoned((M, N), dt, skew)
        S = torch.full((T, N), float("nan"), device="cuda", dtype=torch.float32)
        rc = lib(f"gemm_colsum_{dt}", A, B, C, S, M, K, N, T)
        torch.cuda.synchronize()
        v = A.double() @ B.double().t()
        sums = torch.nn.functional.pad(v, (0, 0, 0, T * 16 - M)).view(T, 16, N).sum(1)
        results.append(verdict(f"{target} gemm_colsum_{dt} {shape} C", rc, C, v, dt))
        results.append(verdict(f"{target} gemm_colsum_{dt} {shape} S", rc, S, sums, dt))

for M, N, K, skew in SHAPES:   # gemm_tf32: A [M, K] (n) or [K, M] (t), B [K, N] (n) or [N, K] (t)
    shape = f"{M}x{N}x{K}{' skewed' if skew else ''}"
    for name in ("nn", "tn", "tt", "wide_nn", "wide_tt"):
        lay = name[-2:]
        A = rand((K, M) if lay[0] == "t" else (M, K), "f32", skew)
        B = rand((N, K) if lay[1] == "t" else (K, N), "f32", skew)
        C = poisoned((M, N), "f32", skew)
        rc = lib(f"gemm_tf32_{name}", C, A, B, M, N, K, 0.125)
        torch.cuda.synchronize()
        v = (A.double().t() if lay[0] == "t" else A.double()) @ (B.double().t() if lay[1] == "t" else B.double())
        results.append(verdict(f"{target} gemm_tf32_{name} {shape}", rc, C, torch.where(v > 0, v, v * 0.125), "f32"))

for ok, name, why in results:
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why), flush=True)
print(f"{sum(r[0] for r in results)} passed, {sum(not r[0] for r in results)} failed")
