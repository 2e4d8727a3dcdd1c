"""matmul.py: times generated matmul kernels side by side with cuBLAS
(torch.matmul) in the same run, bf16 and f16, on the issue's shapes.
Each library (one per config) is first checked against a float64
reference on that shape (rel Frobenius error), then timed.
Times: triton.testing.do_bench, median, L2 flushed between runs.
TFLOP/s = 2 M N K / time.  Writes matmul.json (and matmul.png when
matplotlib is there) to $OUT.
usage: python3 bench/matmul.py [--tf32] [--dtypes bf16,f16,tf32] [--layouts nn,nt] [--shapes MxNxK,...] LABEL=LIB.so ...
  --tf32: also matmul_tf32_none_nn (f32 matrices) beside cuBLAS with
  tf32 allowed (torch.backends.cuda.matmul.allow_tf32)
  --dtypes: the types timed (default bf16 and f16, and tf32 with --tf32)
  --layouts: the layouts timed (default nn; nt: B stored [N, K], cuBLAS
  on B's transpose view; tn, tt: A stored [K, M] too)
  --shapes: the shapes timed (default: the six below)
The reference of a shape with more than 2^30 products is checked on 256
of its rows (float64 of the whole product took seconds a shape)."""
import json
import os
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, I64, named_libs  # noqa: E402

args, opts = [], {}
it = iter(sys.argv[1:])
for a in it:
    if a in ("--layouts", "--shapes", "--dtypes"):
        opts[a] = next(it)
    elif a != "--tf32":
        args.append(a)
libs = named_libs(args)
DTS = ("bf16", "f16") + (("tf32",) if "--tf32" in sys.argv else ())
if "--dtypes" in opts:
    DTS = tuple(opts["--dtypes"].split(","))
BOUND = {"bf16": 1e-2, "f16": 2e-3, "tf32": 2e-3}
SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (4000, 4000, 4000), (8192, 8192, 1024),
          (16, 8192, 8192)]
if "--shapes" in opts:
    SHAPES = [tuple(int(x) for x in s.split("x")) for s in opts["--shapes"].split(",")]
LAYOUTS = opts.get("--layouts", "nn").split(",")
out_dir = os.environ.get("OUT", "build/gpu")
rows = []


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


for dt, lay in [(d, l) for d in DTS for l in LAYOUTS]:
    torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
    st = DTYPES["f32" if dt == "tf32" else dt]
    for M, N, K in SHAPES:
        a = torch.randn(M, K, device="cuda", dtype=st) if lay[0] == "n" else torch.randn(K, M, device="cuda", dtype=st)
        b = torch.randn(K, N, device="cuda", dtype=st) if lay[1] == "n" else torch.randn(N, K, device="cuda", dtype=st)
        am = a if lay[0] == "n" else a.t()   # [M, K] and [K, N] as cuBLAS and the reference take them
        bm = b if lay[1] == "n" else b.t()
        c = torch.empty(M, N, device="cuda", dtype=st)
        sample = torch.arange(0, M, max(1, M // 256), device="cuda") if M * N * K > 2**30 else torch.arange(M, device="cuda")
        ref = am[sample].double() @ bm.double()
        flop = 2.0 * M * N * K
        t_cublas = bench(lambda: torch.matmul(am, bm, out=c))
        row = {"dtype": dt, "layout": lay, "M": M, "N": N, "K": K, "cublas_tflops": flop / t_cublas / 1e9}
        for label, lib in libs:
            def run():
                return lib(f"matmul_{dt}_none_{lay}", c, a, b, c, 1, M, N, K, I64(M * N), I64(N), I64(M * K),
                           I64(K if lay[0] == "n" else M), I64(K * N), I64(N if lay[1] == "n" else K), 1.0, 0.0)
            c.fill_(float("nan"))
            rc = run()
            torch.cuda.synchronize()
            err = ((c[sample].double() - ref).norm() / ref.norm()).item() if not torch.isnan(c).any() else float("nan")
            ok = rc == 0 and err < BOUND[dt]
            t = bench(run) if ok else float("nan")
            row[label] = {"tflops": flop / t / 1e9, "ratio": t_cublas / t, "rel_err": err, "ok": ok}
        rows.append(row)
        print(f"{dt} {lay} {M}x{N}x{K}: cuBLAS {row['cublas_tflops']:.0f} TFLOP/s | " + " | ".join(
            f"{lab} {row[lab]['tflops']:.0f} ({row[lab]['ratio']:.2f}x, rel err {row[lab]['rel_err']:.1e}"
            f"{'' if row[lab]['ok'] else ' WRONG'})" for lab, _ in libs), flush=True)

os.makedirs(out_dir, exist_ok=True)
with open(os.path.join(out_dir, "matmul.json"), "w") as f:
    json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 4))
    names = [f"{r['dtype']} {r['layout']}\n{r['M']}x{r['N']}x{r['K']}" for r in rows]
    w = 0.8 / (1 + len(libs))
    ax.bar([i for i in range(len(rows))], [r["cublas_tflops"] for r in rows], w, label="cuBLAS")
    for j, (lab, _) in enumerate(libs):
        ax.bar([i + (j + 1) * w for i in range(len(rows))], [r[lab]["tflops"] for r in rows], w, label=lab)
    ax.set_xticks([i + 0.4 for i in range(len(rows))], names, fontsize=7)
    ax.set_ylabel("TFLOP/s")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "matmul.png"), dpi=100)
except ImportError:
    print("matplotlib missing: no plot")
