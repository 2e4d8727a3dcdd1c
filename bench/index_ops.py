"""index_ops.py: the gather / scatter kernels (embedding, cross_entropy)
checked against torch in float64, then timed beside torch in the same run:
embedding forward against F.embedding and a device-to-device copy of the
same bytes (the ceiling: a gather reads each row once and writes it once),
embedding backward against torch's embedding backward, and cross_entropy
forward + backward against F.cross_entropy with autograd (mean reduction;
ours: the forward kernel, then the backward kernel with dL = 1 / rows kept).
Times: triton.testing.do_bench, median.
usage: python3 bench/index_ops.py LIB.so   (a table; JSON to $OUT/index_ops.json)"""
import json
import os
import sys

import torch
import torch.nn.functional as F
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, Lib  # noqa: E402

lib = Lib(sys.argv[1])
res = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": []}
fails = 0


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=150, return_mode="median")


def rel(out, ref):
    out, ref = out.double(), ref.double()
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item() if torch.isfinite(out).all() else float("inf")


def check(name, out, ref, tol):
    global fails
    e = rel(out, ref)
    ok = e <= tol
    fails += not ok
    print(f"{'PASS' if ok else 'FAIL'} {name}: rel err {e:.2e} (tol {tol:.0e})")
    return ok


print(f"device: {res['device']}  torch {res['torch']}")
# ---- embedding ----
for dt, V, D, N in (("bf16", 128256, 4096, 16384), ("f32", 32000, 4096, 8192), ("bf16", 50257, 768, 65536)):
    t = DTYPES[dt]
    W = torch.randn(V, D, device="cuda", dtype=t)
    I = torch.randint(0, V, (N,), device="cuda", dtype=torch.int32)
    I[::97] = -1                                  # outside W: a row of zeros
    I[1::101] = V + 5
    inside = (I >= 0) & (I < V)
    Y = torch.full((N, D), float("nan"), device="cuda", dtype=t)
    rc = lib(f"embedding_{dt}_fwd", W, I, Y, V, D, N)
    torch.cuda.synchronize()
    ref = torch.where(inside[:, None], W.double()[I.clamp(0, V - 1).long()], 0)
    ok = rc == 0 and check(f"embedding_{dt}_fwd V={V} D={D} N={N}", Y, ref, 0)
    dY = torch.randn(N, D, device="cuda", dtype=t)
    pad = 7
    dW = torch.zeros(V, D, device="cuda", dtype=torch.float32)
    rc = lib(f"embedding_{dt}_bwd", dY, I, dW, N, D, V, pad)
    torch.cuda.synchronize()
    keep = inside & (I != pad)
    refw = torch.zeros(V, D, device="cuda", dtype=torch.float64).index_add_(0, I[keep].long(), dY[keep].double())
    ok &= rc == 0 and check(f"embedding_{dt}_bwd V={V} D={D} N={N} pad={pad}", dW, refw, 1e-6)
    Il = I.clamp(0, V - 1).long()
    Y2 = torch.empty_like(Y)
    src = torch.randn(N, D, device="cuda", dtype=t)
    t_lt = bench(lambda: lib(f"embedding_{dt}_fwd", W, I, Y, V, D, N))
    t_th = bench(lambda: F.embedding(Il, W))
    t_cp = bench(lambda: Y2.copy_(src))
    Wg = W.clone().requires_grad_(True)
    out = F.embedding(Il, Wg)
    t_thb = bench(lambda: torch.autograd.grad(out, Wg, dY, retain_graph=True))
    t_ltb = bench(lambda: (dW.zero_(), lib(f"embedding_{dt}_bwd", dY, I, dW, N, D, V, -1)))
    gb = 2 * N * D * W.element_size() / 1e9
    row = {"op": "embedding", "dtype": dt, "V": V, "D": D, "N": N, "ok": bool(ok), "fwd_ms": t_lt, "torch_fwd_ms": t_th,
           "copy_ms": t_cp, "fwd_GBs": gb / t_lt * 1e3, "copy_GBs": gb / t_cp * 1e3, "bwd_ms": t_ltb, "torch_bwd_ms": t_thb}
    res["rows"].append(row)
    print(f"embedding {dt} V={V} D={D} N={N}: fwd {t_lt * 1e3:.1f} us ({row['fwd_GBs']:.0f} GB/s, "
          f"{t_cp / t_lt:.2f}x copy, {t_th / t_lt:.2f}x torch); bwd {t_ltb * 1e3:.1f} us ({t_thb / t_ltb:.2f}x torch)")
    del W, Y, Y2, src, dY, dW, refw, ref, Wg, out
    torch.cuda.empty_cache()

# ---- cross_entropy ----
for dt, N, V, eps in (("bf16", 8192, 32000, 0.0), ("bf16", 4096, 128256, 0.1), ("bf16", 2048, 256000, 0.0),
                      ("f16", 4096, 128256, 0.0), ("f32", 4096, 32000, 0.1)):
    t = DTYPES[dt]
    X = torch.randn(N, V, device="cuda", dtype=t) * 3
    T = torch.randint(0, V, (N,), device="cuda", dtype=torch.int32)
    T[::13] = -100
    loss = torch.full((N,), float("nan"), device="cuda")
    lse = torch.full((N,), float("nan"), device="cuda")
    rc = lib(f"cross_entropy_{dt}_fwd", X, T, loss, lse, N, V, -100, eps)
    n_kept = int((T != -100).sum())
    dL = torch.full((N,), 1.0 / n_kept, device="cuda")
    dX = torch.full_like(X, float("nan"))
    rc |= lib(f"cross_entropy_{dt}_bwd", X, T, lse, dL, dX, N, V, -100, eps)
    torch.cuda.synchronize()
    Xd = X.double().requires_grad_(True)
    ref = F.cross_entropy(Xd, T.long(), ignore_index=-100, label_smoothing=eps, reduction="none")
    (gref,) = torch.autograd.grad(ref.sum() / n_kept, Xd)
    tol = 1e-5 if dt == "f32" else 1e-2
    ok = rc == 0 and check(f"cross_entropy_{dt} loss N={N} V={V} eps={eps}", loss, ref.detach(), 1e-5)
    ok &= check(f"cross_entropy_{dt} lse", lse, torch.logsumexp(X.double(), 1), 1e-6)
    ok &= check(f"cross_entropy_{dt} dX", dX, gref, tol)
    del Xd, gref, ref
    Tl = T.long()
    Xg = X.clone().requires_grad_(True)

    def torch_step():
        lo = F.cross_entropy(Xg, Tl, ignore_index=-100, label_smoothing=eps)
        return torch.autograd.grad(lo, Xg)

    def lt_step():
        lib(f"cross_entropy_{dt}_fwd", X, T, loss, lse, N, V, -100, eps)
        lib(f"cross_entropy_{dt}_bwd", X, T, lse, dL, dX, N, V, -100, eps)

    t_th = bench(torch_step)
    t_lt = bench(lt_step)
    gb = 3 * N * V * X.element_size() / 1e9   # X read twice, dX written once
    row = {"op": "cross_entropy", "dtype": dt, "N": N, "V": V, "eps": eps, "ok": bool(ok), "ms": t_lt,
           "torch_ms": t_th, "GBs": gb / t_lt * 1e3}
    res["rows"].append(row)
    print(f"cross_entropy {dt} N={N} V={V} eps={eps}: fwd+bwd {t_lt * 1e3:.0f} us ({row['GBs']:.0f} GB/s), "
          f"torch {t_th * 1e3:.0f} us: {t_th / t_lt:.2f}x")
    del X, Xg, dX
    torch.cuda.empty_cache()

if os.environ.get("OUT"):
    with open(os.path.join(os.environ["OUT"], "index_ops.json"), "w") as f:
        json.dump(res, f, indent=1)
print(f"{fails} check(s) failed")
sys.exit(1 if fails else 0)
