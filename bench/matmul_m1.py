"""matmul_m1.py: M = 1 through the tn and tt launchers (A stored [K, M]), A/B
of builds beside cuBLAS in the same process.  Each (library, variant) is
first checked against a float64 reference on fresh random inputs with a
NaN-poisoned output: M = 1 with lda = 1 (A's bytes one row [1, K]: the row
twin, pass/row.c) at ragged N and K, K a multiple of 8 and not (the twin's
cp.async kernel), a batch of 2, alpha and beta (C0 read), through NAME and
through NAME_ws (split-K); and M = 1 with lda = 8 (A a column of a wider
matrix: the tn/tt kernel as before).  A
failed check leaves that library's variant untimed.  Then M = 1 at the
N x K shapes, timed by triton.testing.do_bench (median, L2 flushed),
`--rounds` rounds, every other in reverse order, each keeping its best:
the libraries' tn/tt, cuBLAS (torch.matmul on the same memory: a [1, K]
view of A, B as stored) and, as the target, the first library's nn (nt)
on a [1, K] A; the libraries through NAME_ws with a workspace, as
luatile.matmul calls them.
--xt LIB.so: then gemm_xt_{dtype}_ws of that library (tests/emu/kernels/gemm_xt.lua, a user's
GEMM with X stored [K, M], contiguous) at M = 1, timed the same way beside cuBLAS (checked by
tests/gpu/check_user_gemm.py).
usage: python3 bench/matmul_m1.py [--dtypes bf16,f16] [--layouts tn,tt] [--epilogues none]
       [--shapes NxK,...] [--rounds 2] [--xt LIB.so] [LABEL=LIB.so ...]"""
import ctypes
import math
import os
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, I64, Lib, command_line, named_libs  # noqa: E402

args, opts = command_line(sys.argv[1:])
libs = named_libs(args)
DTS = opts.get("--dtypes", "bf16,f16").split(",")
LAYOUTS = opts.get("--layouts", "tn,tt").split(",")
EPIS = opts.get("--epilogues", "none").split(",")
SHAPES = [tuple(int(x) for x in s.split("x")) for s in opts.get("--shapes", "4096x4096").split(",")]
BOUND = {"f16": 2e-3, "bf16": 1e-2}
ACTS = {"none": lambda x: x, "bias": lambda x: x, "bias_relu": torch.relu,
        "bias_gelu": lambda x: 0.5 * x * (1 + torch.special.erf(x / math.sqrt(2))),
        "bias_silu": lambda x: x / (1 + torch.exp(-x))}
gen = torch.Generator(device="cuda")
gen.manual_seed(2611)


def rand(n, st):
    return (torch.rand(n, device="cuda", dtype=torch.float64, generator=gen) * 2 - 1).to(st)


def operands(lay, batch, N, K, lda, st, pad=0):
    """A stored [batch, K, 1] with row stride lda, B as the layout stores it (pad: extra row stride)."""
    sa = K * lda + pad
    a = rand(batch * sa, st)
    ldb = (N if lay[1] == "n" else K) + pad
    rows = K if lay[1] == "n" else N
    sb = rows * ldb + pad
    b = rand(batch * sb, st)
    return a, sa, b, sb, ldb


WS = {}


def workspace(lib, name):
    """NAME_ws's workspace for lib (zeroed; each call leaves it so), or None where lib has no NAME_ws."""
    if not hasattr(lib.lib, name + "_ws"):
        return None
    if (id(lib), name) not in WS:
        fn = getattr(lib.lib, name + "_workspace")
        fn.restype, fn.argtypes = ctypes.c_int64, []
        WS[(id(lib), name)] = torch.zeros(max(fn(), 16), device="cuda", dtype=torch.uint8)
    return WS[(id(lib), name)]


def call(lib, name, c0, a, b, c, bias, batch, N, K, sc, ldc, sa, lda, sb, ldb, alpha, beta, ws=False):
    """NAME, or with ws NAME_ws with its workspace (split-K where the bucket's kernel takes it)."""
    extra = [bias] if bias is not None else []
    w = workspace(lib, name) if ws else None
    tail = [w, I64(w.numel())] if w is not None else []
    return lib(name + ("_ws" if w is not None else ""),
               *([c0, a, b, c] + extra + [batch, 1, N, K, I64(sc), I64(ldc), I64(sa), I64(lda), I64(sb), I64(ldb),
                                          alpha, beta] + tail))


def check(lib, name, lay, epi, st, batch, N, K, lda, alpha, beta, pad=0, ws=False):
    a, sa, b, sb, ldb = operands(lay, batch, N, K, lda, st, pad)
    ldc, sc = N + pad, N + pad
    bias = rand(N, st) if epi != "none" else None
    c0 = rand(batch * sc, st)
    c = torch.full((batch * sc,), float("nan"), device="cuda", dtype=st)
    rc = call(lib, name, c0, a, b, c, bias, batch, N, K, sc, ldc, sa, lda, sb, ldb, alpha, beta, ws)
    torch.cuda.synchronize()
    if rc != 0:
        return False, f"rc={rc}"
    err = 0.0
    for i in range(batch):
        av = a[i * sa: i * sa + (K - 1) * lda + 1: lda].double()   # A's one row, [K]
        bs = b[i * sb: i * sb + (K if lay[1] == "n" else N) * ldb].view(-1, ldb)
        bm = bs[:, :N].double() if lay[1] == "n" else bs[:, :K].double().t()
        ref = alpha * (av @ bm) + beta * c0[i * sc: i * sc + N].double()
        if bias is not None:
            ref = ref + bias.double()
        ref = ACTS[epi](ref)
        out = c[i * sc: i * sc + N]
        if torch.isnan(out).any():
            return False, f"{int(torch.isnan(out).sum())} NaN (unwritten) in matrix {i}"
        err = max(err, ((out.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item())
    if pad and torch.isnan(c.view(batch, sc)[:, N:]).logical_not().any():
        return False, "a gap between rows written"
    return err <= BOUND[name.split("_")[1]], f"rel err {err:.2e}"


CASES = [(1, 1000, 1000, 1, 0), (1, 264, 136, 1, 0), (2, 300, 1001, 1, 8), (1, 4096, 4096, 1, 0),
         (1, 520, 264, 8, 0), (2, 264, 1000, 8, 8)]   # batch, N, K, lda (1: the row twin; 8: the tn/tt kernel), pad


def bench(fn):
    return triton.testing.do_bench(fn, warmup=10, rep=100, return_mode="median")


for dt in DTS if libs else ():
    st = DTYPES[dt]
    for lay in LAYOUTS:
        for epi in EPIS:
            name = f"matmul_{dt}_{epi}_{lay}"
            ok = {}
            for label, lib in libs:
                ok[label] = hasattr(lib.lib, name)
                if not ok[label]:
                    print(f"SKIP check {label} {name}: not in that library", flush=True)
                for batch, N, K, lda, pad in (CASES if ok[label] else []):
                    for alpha, beta, ws in ((1.0, 0.0, False), (1.25, 0.5, False), (1.0, 0.0, True)):
                        good, why = check(lib, name, lay, epi, st, batch, N, K, lda, alpha, beta, pad, ws)
                        ok[label] &= good
                        print(f"{'PASS' if good else 'FAIL'} check {label} {name}{'_ws' if ws else ''} M=1 "
                              f"batch={batch} N={N} K={K} lda={lda} pad={pad} alpha={alpha} beta={beta}: {why}",
                              flush=True)
            if epi != "none":
                continue
            nn = f"matmul_{dt}_none_n{lay[1]}"
            for N, K in SHAPES:
                a, sa, b, sb, ldb = operands(lay, 1, N, K, 1, st)
                c = torch.empty(N, device="cuda", dtype=st)
                av = a.view(1, K)
                bm = b.view(K, N) if lay[1] == "n" else b.view(N, K).t()
                ts = {"cuBLAS": float("inf")}
                ts.update({label: float("inf") for label, _ in libs})
                ts[f"nn({libs[0][0]})"] = float("inf")
                order = [("cuBLAS", None)] + libs + [(f"nn({libs[0][0]})", libs[0][1])]
                for r in range(int(opts.get("--rounds", "2"))):
                    for label, lib in (order if r % 2 == 0 else order[::-1]):
                        if lib is None:
                            ts[label] = min(ts[label], bench(lambda: torch.matmul(av, bm, out=c.view(1, N))))
                        elif label.startswith("nn("):   # the same bytes as an nn A [1, K] (lda K)
                            fn = (lambda lib=lib: call(lib, nn, c, a, b, c, None, 1, N, K, N, N, K, K, sb, ldb,
                                                       1.0, 0.0, True))
                            ts[label] = min(ts[label], bench(fn))
                        elif ok[label]:
                            fn = (lambda lib=lib: call(lib, name, c, a, b, c, None, 1, N, K, N, N, sa, 1, sb, ldb,
                                                       1.0, 0.0, True))
                            ts[label] = min(ts[label], bench(fn))
                base = ts["cuBLAS"]
                print(f"{name} M=1 N={N} K={K}: " + " | ".join(
                    f"{k} {t * 1e3:.1f} us ({base / t:.2f}x)" if t < float("inf") else f"{k} -"
                    for k, t in ts.items()), flush=True)

xt = Lib(opts["--xt"]) if "--xt" in opts else None
for dt in DTS if xt else ():
    st = DTYPES[dt]
    good = True
    for M, N, K, skew in ((1, 4096, 4096, 0), (1, 520, 72, 0), (1, 333, 129, 0), (1, 256, 512, 1), (300, 520, 72, 0)):
        x = rand(K * M + skew, st)[skew:]   # skew: one element past a 16-byte boundary
        w = rand(K * N + skew, st)[skew:]
        c = torch.full((M * N + skew,), float("nan"), device="cuda", dtype=st)[skew:]
        rc = xt(f"gemm_xt_{dt}", x, w, c, K, M, N)
        torch.cuda.synchronize()
        ref = x.view(K, M).double().t() @ w.view(K, N).double()
        err = ((c.view(M, N).double() - ref).norm() / ref.norm()).item()
        ok = rc == 0 and not torch.isnan(c).any() and err <= BOUND[dt]
        good &= ok
        print(f"{'PASS' if ok else 'FAIL'} check gemm_xt_{dt} {M}x{N}x{K}{' skewed' if skew else ''}: rc {rc}, "
              f"rel err {err:.2e}", flush=True)
    for N, K in SHAPES if good else ():
        x, w = rand(K, st), rand(K * N, st)
        c = torch.empty(N, device="cuda", dtype=st)
        xv, wv, ws = x.view(1, K), w.view(K, N), workspace(xt, f"gemm_xt_{dt}")
        ts = {"cuBLAS": float("inf"), "gemm_xt": float("inf")}
        for r in range(int(opts.get("--rounds", "2"))):
            for label in (("cuBLAS", "gemm_xt") if r % 2 == 0 else ("gemm_xt", "cuBLAS")):
                fn = ((lambda: torch.matmul(xv, wv, out=c.view(1, N))) if label == "cuBLAS"
                      else (lambda: xt(f"gemm_xt_{dt}_ws", x, w, c, K, 1, N, ws, I64(ws.numel()))))
                ts[label] = min(ts[label], bench(fn))
        base = ts["cuBLAS"]
        print(f"gemm_xt_{dt} M=1 N={N} K={K}: " + " | ".join(f"{k} {t * 1e3:.1f} us ({base / t:.2f}x)"
                                                               for k, t in ts.items()), flush=True)
