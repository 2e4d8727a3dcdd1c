"""matmul_ab.py: A/B of builds of the generated matmul (e.g. the cooperative
sm90a schedule and ping-pong), per epilogue, beside cuBLAS in the same
process.  Each (library, variant) is first checked against a float64
reference on fresh random inputs with a NaN-poisoned output: a ragged
shape with alpha and beta (C0 read), then every timed shape on sampled
rows; a failed check leaves that library's variant untimed.  Times:
triton.testing.do_bench, median, L2 flushed between runs; the libraries
are timed in turn, `--rounds` times (every other round in reverse order),
each keeping its best median.  cuBLAS: torch.matmul, then the epilogue in
torch (bias add and activation: separate kernels), so its column is the
plain GEMM's time for `none` and a reference point for the rest.
usage: python3 bench/matmul_ab.py [--dtypes bf16] [--layouts nn,nt] [--epilogues none,bias_gelu]
       [--shapes MxNxK,...] [--rounds 2] LABEL=LIB.so [LABEL=LIB.so ...]"""
import math
import os
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, I64, command_line, named_libs  # noqa: E402

args, opts = command_line(sys.argv[1:])
libs = named_libs(args)
DTS = opts.get("--dtypes", "bf16").split(",")
LAYOUTS = opts.get("--layouts", "nn,nt").split(",")
EPIS = opts.get("--epilogues", "none,bias,bias_gelu,bias_silu").split(",")
SHAPES = [tuple(int(x) for x in s.split("x")) for s in opts.get("--shapes", "4096x4096x4096").split(",")]
BOUND = {"f16": 2e-3, "bf16": 1e-2}
ACTS = {"none": lambda x: x, "bias": lambda x: x, "bias_relu": torch.relu,
        "bias_gelu": lambda x: 0.5 * x * (1 + torch.special.erf(x / math.sqrt(2))),
        "bias_silu": lambda x: x / (1 + torch.exp(-x))}


def call(lib, name, lay, c0, a, b, c, bias, M, N, K, alpha, beta):
    extra = [bias] if bias is not None else []
    return lib(name, *([c0, a, b, c] + extra + [1, M, N, K, I64(M * N), I64(N), I64(M * K), I64(K), I64(K * N),
                                                  I64(N if lay == "nn" else K), alpha, beta]))


def check(lib, name, lay, epi, st, M, N, K, alpha, beta, rows=None):
    a = torch.randn(M, K, device="cuda", dtype=st)
    b = torch.randn(K, N, device="cuda", dtype=st) if lay == "nn" else torch.randn(N, K, device="cuda", dtype=st)
    bias = torch.randn(N, device="cuda", dtype=st) if epi != "none" else None
    c0 = torch.randn(M, N, device="cuda", dtype=st)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=st)
    rc = call(lib, name, lay, c0, a, b, c, bias, M, N, K, alpha, beta)
    torch.cuda.synchronize()
    if rc != 0:
        return False, f"rc={rc}"
    if torch.isnan(c).any():
        return False, f"{int(torch.isnan(c).sum())} NaN (unwritten)"
    r = torch.arange(0, M, max(1, M // 128), device="cuda") if rows else torch.arange(M, device="cuda")
    bm = b.double() if lay == "nn" else b.double().t()
    ref = alpha * (a[r].double() @ bm) + beta * c0[r].double()
    if bias is not None:
        ref = ref + bias.double()
    ref = ACTS[epi](ref)
    err = ((c[r].double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    return err <= BOUND[name.split("_")[1]], f"rel err {err:.2e}"


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=150, return_mode="median")


for dt in DTS:
    st = DTYPES[dt]
    for lay in LAYOUTS:
        for epi in EPIS:
            name = f"matmul_{dt}_{epi}_{lay}"
            ok = {}
            for label, lib in libs:
                good, why = check(lib, name, lay, epi, st, 1000, 1000, 1000 + 8, 1.25, 0.5)
                ok[label] = good
                print(f"{'PASS' if good else 'FAIL'} check {label} {name} 1000x1000x1008 alpha/beta: {why}", flush=True)
            for M, N, K in SHAPES:
                for label, lib in libs:
                    if ok[label]:
                        good, why = check(lib, name, lay, epi, st, M, N, K, 1.0, 0.0, rows=True)
                        ok[label] = good
                        if not good:
                            print(f"FAIL check {label} {name} {M}x{N}x{K}: {why}", flush=True)
                a = torch.randn(M, K, device="cuda", dtype=st)
                b = torch.randn(K, N, device="cuda", dtype=st) if lay == "nn" else torch.randn(N, K, device="cuda", dtype=st)
                bm = b if lay == "nn" else b.t()
                bias = torch.randn(N, device="cuda", dtype=st) if epi != "none" else None
                c = torch.empty(M, N, device="cuda", dtype=st)
                act = ACTS[epi]

                def cub():
                    y = torch.matmul(a, bm, out=c)
                    return y if bias is None else act(y + bias)
                ts = {"cuBLAS": float("inf")}
                ts.update({label: float("inf") for label, _ in libs})
                order = [("cuBLAS", None)] + libs
                for r in range(int(opts.get("--rounds", "2"))):
                    for label, lib in (order if r % 2 == 0 else order[::-1]):
                        if lib is None:
                            ts[label] = min(ts[label], bench(cub))
                        elif ok[label]:
                            fn = (lambda lib=lib: call(lib, name, lay, c, a, b, c, bias, M, N, K, 1.0, 0.0))
                            ts[label] = min(ts[label], bench(fn))
                flop = 2.0 * M * N * K
                base = ts["cuBLAS"]
                print(f"{name} {M}x{N}x{K}: " + " | ".join(
                    f"{k} {flop / t / 1e9:.0f} TFLOP/s ({base / t:.2f}x)" if t < float("inf") else f"{k} -"
                    for k, t in ts.items()), flush=True)
