"""matmul_smallm.py: sm90a matmuls of small M in every layout (nn, nt, tn,
tt), several builds side by side with cuBLAS (torch.matmul on the same
operands, transposed views where the layout stores them so) in the same
process.  Each build is called through NAME_ws (what luatile.matmul calls:
split-K where the tiles leave SMs idle; NAME where a build has none) with
a zeroed workspace of the largest NAME_workspace() bytes, kept across calls
(a build without the variant: "-").  Checked first, per
(build, variant, shape), on fresh random inputs with a NaN-poisoned output:
against float64 with alpha 1.25 and beta 0.5 (C0 read), three runs bitwise
equal, the counters back to 0; a failed check leaves that build untimed
there.  Times: triton.testing.do_bench, median, L2 flushed; `--rounds`
rounds, every other one in reverse order, each side keeping its best
(`--rounds 0`: the checks alone; `--stat median`: each column the median
over the rounds of that round's cuBLAS time over the build's, with the
least and the most of them in brackets); `--warmup` and `--rep` (ms, 25
and 150) are do_bench's.
usage: python3 bench/matmul_smallm.py [--dtypes bf16] [--layouts nn,nt,tn,tt] [--epilogues none]
       [--ms 1,16,64] [--ns 4096,6144,14336] [--k 4096] [--rounds 2] [--stat best|median] [--warmup 25] [--rep 150]
       NAME=LIB.so ..."""
import ctypes
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
LAYOUTS = opts.get("--layouts", "nn,nt,tn,tt").split(",")
EPIS = opts.get("--epilogues", "none").split(",")
MS = [int(x) for x in opts.get("--ms", "1,16,64").split(",")]
NS = [int(x) for x in opts.get("--ns", "4096,6144,14336").split(",")]
K = int(opts.get("--k", "4096"))
ROUNDS = int(opts.get("--rounds", "2"))
STAT = opts.get("--stat", "best")
WARMUP = int(opts.get("--warmup", "25"))
REP = int(opts.get("--rep", "150"))
BOUND = {"f16": 2e-3, "bf16": 1e-2}
ACTS = {"none": lambda x: x, "bias": lambda x: x, "bias_relu": torch.relu,
        "bias_gelu": lambda x: 0.5 * x * (1 + torch.special.erf(x / math.sqrt(2))),
        "bias_silu": lambda x: x / (1 + torch.exp(-x))}


def ws_bytes(lib, name):
    if not hasattr(lib.lib, name + "_workspace"):   # a build without split-K: NAME alone
        return 0
    f = getattr(lib.lib, name + "_workspace")
    f.restype = ctypes.c_int64
    return f()


def has(lib, name):
    """Whether build lib holds variant name (a candidate build may hold some layouts only)."""
    return hasattr(lib.lib, name)


WS_BYTES = max(ws_bytes(lib, f"matmul_{d}_{e}_{l}") for _, lib in libs for d in DTS for e in EPIS for l in LAYOUTS
               if has(lib, f"matmul_{d}_{e}_{l}"))
ws = torch.zeros(max(WS_BYTES, 16), dtype=torch.uint8, device="cuda")
COUNTERS = (torch.cuda.get_device_properties(0).multi_processor_count * 4 + 255) // 256 * 256
print(f"# workspace: {WS_BYTES} bytes; builds: {', '.join(n for n, _ in libs)}", flush=True)


def operands(lay, st, M, N):
    """A and B as the layout stores them (contiguous), and the [M, K] and [K, N] views torch multiplies."""
    a = torch.randn(K, M, device="cuda", dtype=st) if lay[0] == "t" else torch.randn(M, K, device="cuda", dtype=st)
    b = torch.randn(N, K, device="cuda", dtype=st) if lay[1] == "t" else torch.randn(K, N, device="cuda", dtype=st)
    return a, b, (a.t() if lay[0] == "t" else a), (b.t() if lay[1] == "t" else b)


def call(lib, name, lay, c0, a, b, c, bias, M, N, alpha, beta):
    extra = [bias] if bias is not None else []
    lda = M if lay[0] == "t" else K
    ldb = K if lay[1] == "t" else N
    cargs = [c0, a, b, c] + extra + [1, M, N, K, I64(M * N), I64(N), I64(M * K), I64(lda), I64(K * N), I64(ldb),
                                     alpha, beta]
    if not hasattr(lib.lib, name + "_ws"):
        return lib(name, *cargs)
    return lib(name + "_ws", *(cargs + [ws, I64(WS_BYTES)]))


def check(lib, name, lay, epi, st, M, N):
    a, b, av, bv = operands(lay, st, M, N)
    bias = torch.randn(N, device="cuda", dtype=st) if epi != "none" else None
    c0 = torch.randn(M, N, device="cuda", dtype=st)
    ref = 1.25 * (av.double() @ bv.double()) + 0.5 * c0.double()
    if bias is not None:
        ref = ref + bias.double()
    ref = ACTS[epi](ref)
    outs = []
    for _ in range(3):
        c = torch.full((M, N), float("nan"), device="cuda", dtype=st)
        rc = call(lib, name, lay, c0, a, b, c, bias, M, N, 1.25, 0.5)
        torch.cuda.synchronize()
        if rc != 0:
            return False, f"rc={rc}"
        if torch.isnan(c).any():
            return False, f"{int(torch.isnan(c).sum())} NaN (unwritten)"
        err = ((c.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
        if err > BOUND[name.split("_")[1]]:
            return False, f"rel err {err:.2e}"
        outs.append(c)
    if not all(torch.equal(outs[0], o) for o in outs[1:]):
        return False, "results differ between runs"
    if int(ws[:COUNTERS].count_nonzero()) != 0:
        return False, "counters not back to 0"
    return True, f"rel err {err:.2e}, 3 runs bitwise equal"


def bench(fn):
    return triton.testing.do_bench(fn, warmup=WARMUP, rep=REP, return_mode="median")


names = [n for n, _ in libs]
print("| variant | M x N x K | " + " | ".join(f"{n} vs cuBLAS" for n in names) + " | cuBLAS TFLOP/s |")
print("|---|---|" + "---|" * len(names) + "---|")
for dt in DTS:
    st = DTYPES[dt]
    for lay in LAYOUTS:
        for epi in EPIS:
            name = f"matmul_{dt}_{epi}_{lay}"
            for M in MS:
                for N in NS:
                    good = {}
                    for n, lib in libs:
                        if not has(lib, name):   # not in this build: "-" in the table
                            continue
                        ok, why = check(lib, name, lay, epi, st, M, N)
                        good[n] = ok
                        print(f"{'PASS' if ok else 'FAIL'} check {n} {name} {M}x{N}x{K}: {why}", flush=True)
                    if ROUNDS == 0:   # checks only
                        continue
                    a, b, av, bv = operands(lay, st, M, N)
                    bias = torch.randn(N, device="cuda", dtype=st) if epi != "none" else None
                    c0 = torch.empty(M, N, device="cuda", dtype=st)
                    c = torch.empty(M, N, device="cuda", dtype=st)
                    sides = {"cublas": lambda: torch.matmul(av, bv)}
                    for n, lib in libs:
                        if good.get(n):
                            sides[n] = (lambda lib=lib: call(lib, name, lay, c0, a, b, c, bias, M, N, 1.0, 0.0))
                    best, times = {}, {}
                    order = list(sides)
                    for r in range(ROUNDS):
                        for s in (order if r % 2 == 0 else order[::-1]):
                            t = bench(sides[s])
                            best[s] = min(best.get(s, t), t)
                            times.setdefault(s, []).append(t)
                    tf = 2 * M * N * K / best["cublas"] * 1e-9

                    def col(n):
                        if n not in best:
                            return "FAIL" if n in good else "-"
                        if STAT != "median":
                            return f"{best['cublas'] / best[n]:.2f}x"
                        rs = sorted(c / t for c, t in zip(times["cublas"], times[n]))
                        med = rs[len(rs) // 2] if len(rs) % 2 else (rs[len(rs) // 2 - 1] + rs[len(rs) // 2]) / 2
                        return f"{med:.2f}x ({rs[0]:.2f}-{rs[-1]:.2f})"
                    cols = " | ".join(col(n) for n in names)
                    print(f"| {name} | {M}x{N}x{K} | {cols} | {tf:.1f} |", flush=True)
