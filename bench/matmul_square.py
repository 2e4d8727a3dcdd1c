"""matmul_square.py: where the square GEMMs' last percents go, beside cuBLAS
in one process (issue 29: 2048^3 and 4096^3 at 0.94-0.98x).
  1. cuBLAS's kernels (torch.profiler, one call a point after warm-up): name,
     grid, block, shared memory and time, at every timed shape; the same for
     each library's launch (which kernel its launcher picked, its grid).
  2. Each library checked against float64 on fresh random inputs with a
     NaN-poisoned output (every timed shape, sampled rows), then timed beside
     cuBLAS (triton do_bench medians, L2 flushed; `--rounds` rounds, every
     other one in reverse order, each keeping its best median): us, TFLOP/s,
     ratio to cuBLAS, and the 128 x 256 tiles and waves on the SMs.
  3. K scaling: the shapes of one M x N (`--kscale`, at the K of `--ks`)
     fitted per library to t = a + b (K / 64) by least squares: the fixed
     part a (launch, prologue, epilogue, tail) and the rate b (us per 64 of K).
usage: python3 bench/matmul_square.py [--dtypes bf16,f16] [--layouts nn,nt]
       [--shapes MxNxK,...] [--kscale MxN,...] [--ks K,...] [--rounds 3] LABEL=LIB.so ..."""
import json
import os
import sys
import tempfile

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, I64, command_line, named_libs  # noqa: E402

args, opts = command_line(sys.argv[1:])
libs = named_libs(args)
DTS = opts.get("--dtypes", "bf16,f16").split(",")
LAYOUTS = opts.get("--layouts", "nn,nt").split(",")
SHAPES = [tuple(int(x) for x in s.split("x")) for s in opts.get("--shapes", "2048x2048x2048,4096x4096x4096").split(",")]
KSCALE = [tuple(int(x) for x in s.split("x")) for s in opts.get("--kscale", "").split(",") if s]
KS = [int(k) for k in opts.get("--ks", "512,1024,2048,4096,8192").split(",")]
ROUNDS = int(opts.get("--rounds", "3"))
BOUND = {"f16": 2e-3, "bf16": 1e-2}
SMS = torch.cuda.get_device_properties(0).multi_processor_count
POINTS = SHAPES + [(m, n, k) for m, n in KSCALE for k in KS if (m, n, k) not in SHAPES]


def call(lib, name, lay, a, b, c, M, N, K):
    return lib(name, c, a, b, c, 1, M, N, K, I64(M * N), I64(N), I64(M * K), I64(K), I64(K * N),
               I64(N if lay == "nn" else K), 1.0, 0.0)


def operands(st, lay, M, N, K):
    a = torch.randn(M, K, device="cuda", dtype=st)
    b = torch.randn(K, N, device="cuda", dtype=st) if lay == "nn" else torch.randn(N, K, device="cuda", dtype=st)
    return a, b, (b if lay == "nn" else b.t())


def check(lib, name, lay, st, M, N, K):
    """(ok, why): the launch against float64 on sampled rows, every element written."""
    a, b, bm = operands(st, lay, M, N, K)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=st)
    rc = call(lib, name, lay, a, b, c, M, N, K)
    torch.cuda.synchronize()
    if rc != 0:
        return False, f"rc={rc}"
    if torch.isnan(c).any():
        return False, f"{int(torch.isnan(c).sum())} NaN (unwritten)"
    r = torch.arange(0, M, max(1, M // 128), device="cuda")
    ref = a[r].double() @ bm.double()
    err = ((c[r].double() - ref).norm() / ref.norm()).item()
    return err <= BOUND[name.split("_")[1]], f"rel err {err:.2e}"


def kernels(fn):
    """The CUDA kernels one call of fn launches: (name, grid, block, shared memory, us), by torch.profiler."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        trace = json.load(open(f.name))
    out = []
    for e in trace.get("traceEvents", []):
        if e.get("cat") == "kernel":
            g = e.get("args", {})
            out.append((e["name"], g.get("grid"), g.get("block"), g.get("shared memory"), e.get("dur")))
    return out


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=150, return_mode="median")


fits = {}
for dt in DTS:
    st = DTYPES[dt]
    for lay in LAYOUTS:
        name = f"matmul_{dt}_none_{lay}"
        ok = {label: True for label, _ in libs}
        for M, N, K in POINTS:
            for label, lib in libs:
                if ok[label]:
                    good, why = check(lib, name, lay, st, M, N, K)
                    ok[label] = good
                    print(f"{'PASS' if good else 'FAIL'} check {label} {name} {M}x{N}x{K}: {why}", flush=True)
            a, b, bm = operands(st, lay, M, N, K)
            c = torch.empty(M, N, device="cuda", dtype=st)
            fns = {"cuBLAS": lambda: torch.matmul(a, bm, out=c)}
            fns.update({label: (lambda lib=lib: call(lib, name, lay, a, b, c, M, N, K)) for label, lib in libs if ok[label]})
            if (M, N, K) in SHAPES:
                for label, fn in fns.items():
                    for kn, grid, block, smem, us in kernels(fn):
                        print(f"kernel {label} {name} {M}x{N}x{K}: {kn} grid {grid} block {block} smem {smem} {us} us", flush=True)
            ts = {label: float("inf") for label in fns}
            order = list(fns.items())
            for r in range(ROUNDS):
                for label, fn in (order if r % 2 == 0 else order[::-1]):
                    ts[label] = min(ts[label], bench(fn))
            flop = 2.0 * M * N * K
            tiles = -(-M // 128) * -(-N // 256)
            print(f"time {name} {M}x{N}x{K} ({tiles} tiles, {tiles / SMS:.2f} waves): " + " | ".join(
                f"{k} {t * 1e3:.1f} us {flop / t / 1e9:.0f} TFLOP/s ({ts['cuBLAS'] / t:.3f}x)" for k, t in ts.items()), flush=True)
            for label, t in ts.items():
                fits.setdefault((name, M, N, label), []).append((K, t * 1e3))
for (name, M, N, label), pts in fits.items():
    if len(pts) < 3:
        continue
    n = len(pts)
    xs = [k / 64 for k, _ in pts]
    ys = [t for _, t in pts]
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    worst = max(abs(y - (a + b * x)) for x, y in zip(xs, ys))
    print(f"fit {name} {M}x{N}xK {label}: t = {a:.2f} us + {b:.4f} us x K/64 (K {min(k for k, _ in pts)}-{max(k for k, _ in pts)}, "
          f"worst residual {worst:.2f} us)", flush=True)
