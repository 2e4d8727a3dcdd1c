"""rowskip_ab.py: two builds of grouped_matmul and of matmul (bf16) checked,
then timed against each other and torch in one process, interleaved.

A build's warpgroup whose 64 rows all lie past the rows its store writes
skips its wgmmas (pass/rowskip.c); this times that build ("new") against
one without ("old"):
  grouped_matmul bf16, T = 8192, K = 4096, G in {8, 64}, N in {14336, 4096},
  kn and nk, beside a loop of torch.matmul over the groups and (nk)
  torch._grouped_mm; groups as bench/moe.py draws them (uneven, some empty);
  matmul_bf16_none_nn and _nt at M in {4000, 4032, 4100} x 4096 x 4096
  beside cuBLAS (torch.matmul).
Every build is first checked against float64 on each timed shape's sizes
(grouped: ragged groups, NaN-poisoned rows outside them must stay NaN;
matmul: the whole product, 256 sampled rows and every row of the last tile)
and on small ragged cases.  Then ROUNDS rounds, each timing every
contender once (triton.testing.do_bench median, 25 ms warm-up, 100 ms);
reported: the median of the rounds and their spread (min-max).
usage: python3 bench/rowskip_ab.py NEW_GM=lib.so OLD_GM=lib.so NEW_MM=lib.so OLD_MM=lib.so
Writes $OUT/rowskip_ab.txt."""
import ctypes
import os
import statistics
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moe_groups import groups  # noqa: E402

P, I, L64, F = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_float
libs = {k: ctypes.CDLL(v) for k, v in (a.split("=", 1) for a in sys.argv[1:])}
ROUNDS = int(os.environ.get("ROUNDS", "5"))
lines, fails = [], 0


def say(s):
    print(s, flush=True)
    lines.append(s)


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def ptr(t):
    return ctypes.c_void_p(t.data_ptr())


def gm_fn(lib, lay):
    f = getattr(lib, f"grouped_matmul_bf16_{lay}")
    f.argtypes = [P] * 4 + [I] * 5 + [P]
    return f


def gm_call(f, X, W, offs, Y):
    T, K = X.shape
    G = offs.numel() - 1
    rc = f(ptr(X), ptr(W), ptr(offs), ptr(Y), T, K, G, Y.shape[1], G + 1, None)
    assert rc == 0, f"launcher returned {rc}"


def mm_fn(lib, lay):
    f = getattr(lib, f"matmul_bf16_none_{lay}")
    f.argtypes = [P] * 4 + [I] * 4 + [L64] * 6 + [F, F, P]
    return f


def mm_call(f, A, B, C, lay):
    M, K = A.shape
    N = C.shape[1]
    ldb = K if lay == "nt" else N
    rc = f(ptr(C), ptr(A), ptr(B), ptr(C), 1, M, N, K, M * N, N, M * K, K, K * N, ldb, 1.0, 0.0, None)
    assert rc == 0, f"launcher returned {rc}"


def gm_check(name, f, lay, T, K, N, G, pre, post, gen):
    global fails
    offs = groups(T, G, pre, post, gen)
    X = torch.randn(T, K, device="cuda", dtype=torch.bfloat16)
    W = torch.randn(G, K, N, device="cuda", dtype=torch.bfloat16) / K ** 0.5
    Wl = W if lay == "kn" else W.transpose(1, 2).contiguous()
    Y = torch.full((T, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    gm_call(f, X, Wl, offs.cuda(), Y)
    torch.cuda.synchronize()
    o = offs.tolist()
    ref = torch.empty(o[G] - o[0], N, device="cuda", dtype=torch.float64)
    for g in range(G):
        ref[o[g] - o[0]:o[g + 1] - o[0]] = X[o[g]:o[g + 1]].double() @ W[g].double()
    inside = Y[o[0]:o[G]].double()
    err = ((inside - ref).norm() / ref.norm()).item() if torch.isfinite(inside).all() else float("inf")
    untouched = bool(torch.isnan(Y[: o[0]]).all() and torch.isnan(Y[o[G]:]).all())
    ok = err < 1e-2 and untouched
    fails += not ok
    say(f"{'PASS' if ok else 'FAIL'} {name} grouped_matmul_bf16_{lay} T={T} K={K} N={N} G={G} pre={pre} post={post}: "
        f"rel err {err:.2e}{'' if untouched else ', rows outside the groups written'}")


def mm_check(name, f, lay, M, N, K):
    global fails
    A = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    B = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) if lay == "nt" else \
        torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    Bm = B.t() if lay == "nt" else B
    C = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    mm_call(f, A, B, C, lay)
    torch.cuda.synchronize()
    last = (M - 1) // 128 * 128
    rows = torch.cat([torch.randperm(M, device="cuda")[:256], torch.arange(last, M, device="cuda")])
    ref = A[rows].double() @ Bm.double()
    got = C[rows].double()
    err = ((got - ref).norm() / ref.norm()).item() if torch.isfinite(C).all() else float("inf")
    ok = err < 1e-2
    fails += not ok
    say(f"{'PASS' if ok else 'FAIL'} {name} matmul_bf16_none_{lay} {M}x{N}x{K}: rel err {err:.2e} "
        f"(256 rows and rows {last}-{M - 1}), every element written: {bool(torch.isfinite(C).all())}")


def rounds(fns):
    """ROUNDS rounds of each contender in turn: {name: [ms, ...]}."""
    ts = {k: [] for k in fns}
    for _ in range(ROUNDS):
        for k, fn in fns.items():
            ts[k].append(bench(fn))
    return ts


def fmt(ts):
    m = statistics.median(ts)
    return m, f"{m * 1e3:.0f} us ({min(ts) * 1e3:.0f}-{max(ts) * 1e3:.0f})"


say(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}  rounds {ROUNDS}")
gen = torch.Generator().manual_seed(1)
for name in ("NEW_GM", "OLD_GM"):
    for lay in ("kn", "nk"):
        f = gm_fn(libs[name], lay)
        for T, K, N, G, pre, post in ((1000, 520, 768, 8, 0, 0), (777, 333, 264, 13, 5, 40),
                                      (4096, 1024, 1536, 64, 0, 3), (8192, 4096, 4096, 64, 0, 0)):
            gm_check(name, f, lay, T, K, N, G, pre, post, gen)
for name in ("NEW_MM", "OLD_MM"):
    for lay in ("nn", "nt"):
        f = mm_fn(libs[name], lay)
        for M, N, K in ((4000, 4096, 4096), (4032, 4096, 4096), (4100, 4096, 4096), (4097, 333, 136), (150, 300, 72)):
            mm_check(name, f, lay, M, N, K)
if fails:
    say(f"{fails} check(s) failed: nothing timed")
    sys.exit(1)

say("")
say("| grouped_matmul bf16 | G | N | new | old | new vs old | torch loop | new vs loop | _grouped_mm | new vs it |")
say("|---|---|---|---|---|---|---|---|---|---|")
T, K = 8192, 4096
gmm = getattr(torch, "_grouped_mm", None)
tgen = torch.Generator().manual_seed(2)
for lay in ("kn", "nk"):
    fn_new, fn_old = gm_fn(libs["NEW_GM"], lay), gm_fn(libs["OLD_GM"], lay)
    for G in (8, 64):
        for N in (14336, 4096):
            offs = groups(T, G, gen=tgen)
            o = offs.tolist()
            X = torch.randn(T, K, device="cuda", dtype=torch.bfloat16)
            W = torch.randn(G, K, N, device="cuda", dtype=torch.bfloat16) / K ** 0.5
            Wl = W if lay == "kn" else W.transpose(1, 2).contiguous()
            del W
            Y, Yo, Yt = (torch.empty(T, N, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            od = offs.cuda()
            Wg = [Wl[g] if lay == "kn" else Wl[g].t() for g in range(G)]

            def loop():
                for g in range(G):
                    if o[g + 1] > o[g]:
                        torch.matmul(X[o[g]:o[g + 1]], Wg[g], out=Yt[o[g]:o[g + 1]])
            fns = {"new": lambda: gm_call(fn_new, X, Wl, od, Y), "old": lambda: gm_call(fn_old, X, Wl, od, Yo),
                   "loop": loop}
            if gmm is not None and lay == "nk":
                ends = od[1:].contiguous()
                fns["gmm"] = lambda: gmm(X, Wl.transpose(1, 2), offs=ends, out_dtype=torch.bfloat16)
            for fn in fns.values():
                fn()
            torch.cuda.synchronize()
            same = bool(torch.equal(Y[o[0]:o[G]], Yo[o[0]:o[G]]))
            ts = rounds(fns)
            mn, sn = fmt(ts["new"])
            mo, so = fmt(ts["old"])
            ml, sl = fmt(ts["loop"])
            g_s, g_v = "-", "-"
            if "gmm" in ts:
                mg, g_s = fmt(ts["gmm"])
                g_v = f"{mg / mn:.2f}x"
            say(f"| {lay} (new = old bitwise: {same}) | {G} | {N} | {sn} | {so} | {mo / mn:.3f}x | {sl} | {ml / mn:.2f}x | "
                f"{g_s} | {g_v} |")
            del X, Wl, Y, Yo, Yt, Wg, fns

say("")
say("| matmul bf16 | M x N x K | new | old | new vs old | cuBLAS | new vs cuBLAS |")
say("|---|---|---|---|---|---|---|")
for lay in ("nn", "nt"):
    fn_new, fn_old = mm_fn(libs["NEW_MM"], lay), mm_fn(libs["OLD_MM"], lay)
    for M in (4000, 4032, 4100):
        N = K = 4096
        A = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        B = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) if lay == "nt" else \
            torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        Bm = B.t() if lay == "nt" else B
        C, Co, Ct = (torch.empty(M, N, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        fns = {"new": lambda: mm_call(fn_new, A, B, C, lay), "old": lambda: mm_call(fn_old, A, B, Co, lay),
               "cublas": lambda: torch.matmul(A, Bm, out=Ct)}
        ts = rounds(fns)
        mn, sn = fmt(ts["new"])
        mo, so = fmt(ts["old"])
        mc, sc = fmt(ts["cublas"])
        say(f"| {lay} | {M} x {N} x {K} | {sn} | {so} | {mo / mn:.3f}x | {sc} | {mc / mn:.2f}x |")
out = os.environ.get("OUT")
if out:
    with open(os.path.join(out, "rowskip_ab.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
