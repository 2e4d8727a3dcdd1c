"""matmul_splitk.py: the sm90a matmul's split-K (gen/lower/splitk.c) on
the device: NAME_ws with a workspace of NAME_workspace() bytes (zeroed
once, kept across calls) against NAME (no workspace, no split) and cuBLAS
(torch.matmul) in the same process.  Checked first, per (variant, shape),
on fresh random inputs with a NaN-poisoned output: each of NAME and
NAME_ws against float64 (alpha 1.25 and beta 0.5, C0 read), NAME_ws
three times, bitwise the same each time (the parts add in a fixed order;
the counters left at 0); a failed check leaves the variant untimed.
Times: triton.testing.do_bench, median, L2 flushed; `--rounds` rounds,
every other one in reverse order, each side keeping its best.
usage: python3 bench/matmul_splitk.py [--dtypes bf16,f16] [--layouts nt,nn] [--epilogues none]
       [--shapes MxNxK,...] [--rounds 2] LIB.so"""
import ctypes
import math
import os
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, I64, Lib, command_line  # noqa: E402

args, opts = command_line(sys.argv[1:])
lib = Lib(args[0])
DTS = opts.get("--dtypes", "bf16").split(",")
LAYOUTS = opts.get("--layouts", "nt,nn").split(",")
EPIS = opts.get("--epilogues", "none").split(",")
ROUNDS = int(opts.get("--rounds", "2"))
SHAPES = [tuple(int(x) for x in s.split("x")) for s in opts.get(
    "--shapes", "1x4096x4096,16x6144x4096,37x8192x8192,64x4096x8192,100x6144x4096,16x14336x4096").split(",")]
BOUND = {"f16": 2e-3, "bf16": 1e-2}
ACTS = {"none": lambda x: x, "bias": lambda x: x, "bias_relu": torch.relu,
        "bias_gelu": lambda x: 0.5 * x * (1 + torch.special.erf(x / math.sqrt(2))),
        "bias_silu": lambda x: x / (1 + torch.exp(-x))}



def ws_bytes(name):
    f = getattr(lib.lib, name + "_workspace")
    f.restype = ctypes.c_int64
    return f()


WS_BYTES = max(ws_bytes(f"matmul_{d}_{e}_{l}") for d in DTS for e in EPIS for l in LAYOUTS)
ws = torch.zeros(max(WS_BYTES, 16), dtype=torch.uint8, device="cuda")
COUNTERS = (torch.cuda.get_device_properties(0).multi_processor_count * 4 + 255) // 256 * 256   # every counter
print(f"# workspace: {WS_BYTES} bytes (NAME_workspace(), the largest of the variants)", flush=True)


def call(name, lay, c0, a, b, c, bias, M, N, K, alpha, beta, split):
    extra = [bias] if bias is not None else []
    cargs = [c0, a, b, c] + extra + [1, M, N, K, I64(M * N), I64(N), I64(M * K), I64(K), I64(K * N),
                                     I64(N if lay == "nn" else K), alpha, beta]
    if split:
        return lib(name + "_ws", *(cargs + [ws, I64(WS_BYTES)]))
    return lib(name, *cargs)


def check(name, lay, epi, st, M, N, K):
    a = torch.randn(M, K, device="cuda", dtype=st)
    b = torch.randn(K, N, device="cuda", dtype=st) if lay == "nn" else torch.randn(N, K, device="cuda", dtype=st)
    bias = torch.randn(N, device="cuda", dtype=st) if epi != "none" else None
    c0 = torch.randn(M, N, device="cuda", dtype=st)
    bm = b.double() if lay == "nn" else b.double().t()
    ref = 1.25 * (a.double() @ bm) + 0.5 * c0.double()
    if bias is not None:
        ref = ref + bias.double()
    ref = ACTS[epi](ref)
    outs = []
    for split in (False, True, True, True):
        c = torch.full((M, N), float("nan"), device="cuda", dtype=st)
        rc = call(name, lay, c0, a, b, c, bias, M, N, K, 1.25, 0.5, split)
        torch.cuda.synchronize()
        if rc != 0:
            return False, f"{'ws' if split else 'plain'} rc={rc}"
        if torch.isnan(c).any():
            return False, f"{int(torch.isnan(c).sum())} NaN (unwritten)"
        err = ((c.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
        if err > BOUND[name.split("_")[1]]:
            return False, f"{'ws' if split else 'plain'} rel err {err:.2e}"
        outs.append((c, err))
    same = all(torch.equal(outs[1][0], o[0]) for o in outs[2:])
    if not same:
        return False, "split-K results differ between runs"
    if int(ws[:COUNTERS].count_nonzero()) != 0:
        return False, "counters not back to 0"
    return True, f"rel err plain {outs[0][1]:.2e}, split {outs[1][1]:.2e}, 3 split runs bitwise equal"


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=150, return_mode="median")


print("| variant | M x N x K | plain vs cuBLAS | split-K vs cuBLAS | split / plain | cuBLAS TFLOP/s |")
print("|---|---|---|---|---|---|")
for dt in DTS:
    st = DTYPES[dt]
    for lay in LAYOUTS:
        for epi in EPIS:
            name = f"matmul_{dt}_{epi}_{lay}"
            for M, N, K in SHAPES:
                good, why = check(name, lay, epi, st, M, N, K)
                print(f"{'PASS' if good else 'FAIL'} check {name} {M}x{N}x{K}: {why}", flush=True)
                if not good:
                    continue
                a = torch.randn(M, K, device="cuda", dtype=st)
                b = torch.randn(K, N, device="cuda", dtype=st) if lay == "nn" else torch.randn(N, K, device="cuda", dtype=st)
                bias = torch.randn(N, device="cuda", dtype=st) if epi != "none" else None
                c0 = torch.empty(M, N, device="cuda", dtype=st)
                c = torch.empty(M, N, device="cuda", dtype=st)
                bt = b if lay == "nn" else b.t()
                sides = {"cublas": lambda: torch.matmul(a, bt),
                         "plain": lambda: call(name, lay, c0, a, b, c, bias, M, N, K, 1.0, 0.0, False),
                         "split": lambda: call(name, lay, c0, a, b, c, bias, M, N, K, 1.0, 0.0, True)}
                best = {}
                order = list(sides)
                for r in range(ROUNDS):
                    for s in (order if r % 2 == 0 else order[::-1]):
                        t = bench(sides[s])
                        best[s] = min(best.get(s, t), t)
                tf = 2 * M * N * K / best["cublas"] * 1e-9
                print(f"| {name} | {M}x{N}x{K} | {best['cublas'] / best['plain']:.2f}x | {best['cublas'] / best['split']:.2f}x "
                      f"| {best['plain'] / best['split']:.2f} | {tf:.0f} |", flush=True)
