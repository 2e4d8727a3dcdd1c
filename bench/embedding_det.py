"""embedding_det.py: embedding's two backward passes (dsl/kernels/embedding.lua)
checked against float64, then timed beside torch's embedding backward in the
same run, each as luatile.embedding runs it: bwd (zero an f32 table, f32
atomic adds, round to the weight's dtype) and det (zero the table in the
weight's dtype, torch.sort and torch.searchsorted of the indices, one
program a row adding its gradient rows in position order), int64 indices
drawn uniformly and, for a skewed case, half of them one of 16 rows.
det must write the same bytes on two calls.  Times: triton.testing.do_bench,
median.
usage: python3 bench/embedding_det.py LIB.so   (LIB.so: embedding_{bf16,f32}_i64_{bwd,det} of out/sm90a)"""
import ctypes
import sys

import torch
import triton.testing

P, I, L64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64
lib = ctypes.CDLL(sys.argv[1])
fails = 0


def fn(name, nptr):
    f = getattr(lib, name)
    f.argtypes = [P] * nptr + [I, I, I, L64, P]
    return f


def ptr(t):
    return ctypes.c_void_p(t.data_ptr())


def bench(f):
    return triton.testing.do_bench(f, warmup=25, rep=150, return_mode="median")


print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
print("| dtype | V | D | N | indices | bwd (atomic) | det | det vs bwd | torch | det vs torch |")
print("|---|---|---|---|---|---|---|---|---|---|")
for dt, t, V, D, N in (("bf16", torch.bfloat16, 128256, 4096, 16384), ("f32", torch.float32, 32000, 4096, 8192)):
    bwd, det = fn(f"embedding_{dt}_i64_bwd", 3), fn(f"embedding_{dt}_i64_det", 5)
    for skew in (False, True):
        ids = torch.randint(0, V, (N,), device="cuda")
        if skew:
            ids[torch.randperm(N, device="cuda")[: N // 2]] = torch.randint(0, 16, (N // 2,), device="cuda")
        dY = torch.randn(N, D, device="cuda", dtype=t)

        def run_bwd():
            dw = torch.zeros(V, D, device="cuda", dtype=torch.float32)
            assert bwd(ptr(dY), ptr(ids), ptr(dw), N, D, V, -1, None) == 0
            return dw.to(t)

        def run_det():
            dw = torch.zeros(V, D, device="cuda", dtype=t)
            s, perm = torch.sort(ids, stable=True)
            ends = torch.searchsorted(s, s, right=True).to(torch.int32)
            perm = perm.to(torch.int32)
            assert det(ptr(dY), ptr(s), ptr(perm), ptr(ends), ptr(dw), N, D, V, -1, None) == 0
            return dw

        ref = torch.zeros(V, D, device="cuda", dtype=torch.float64).index_add_(0, ids, dY.double())
        a, b = run_det(), run_det()
        err = ((a.double() - ref).norm() / ref.norm()).item()
        same = torch.equal(a.view(torch.int16) if t != torch.float32 else a.view(torch.int32),
                           b.view(torch.int16) if t != torch.float32 else b.view(torch.int32))
        ok = err < (1e-2 if t != torch.float32 else 1e-6) and same
        fails += not ok
        print(f"{'PASS' if ok else 'FAIL'} det {dt} V={V} D={D} N={N} skew={skew}: rel err {err:.2e}, "
              f"two calls {'the same bytes' if same else 'DIFFER'}")
        w = torch.zeros(V, D, device="cuda", dtype=t, requires_grad=True)
        y = torch.nn.functional.embedding(ids, w)
        tb, td = bench(run_bwd), bench(run_det)
        tt = bench(lambda: torch.autograd.grad(y, w, dY, retain_graph=True))
        print(f"| {dt} | {V} | {D} | {N} | {'half in 16 rows' if skew else 'uniform'} | {tb * 1e3:.0f} us | "
              f"{td * 1e3:.0f} us | {tb / td:.2f}x | {tt * 1e3:.0f} us | {tt / td:.2f}x |")
        del dY, ref, a, b, w, y
sys.exit(1 if fails else 0)
