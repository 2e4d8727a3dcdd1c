"""ab.py: embedding bf16 forward configs (A: shipped BM=8 BD=1024 256 threads,
B: BM=16, C: BM=4 BD=2048, E: BM=16 512 threads, S: A with the Y store
cache="stream") timed against each other and a copy in the same process,
three rounds in rotated order, best median; each checked bitwise first.
usage (on the GPU machine, in a folder holding each config's
embedding_bf16_fwd.cu as emb_X.cu, from gen -D dtype=bf16 -D pass=fwd -D ...):
  for n in A B C E S; do nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC emb_$n.cu -o lib_$n.so; done
  python3 embedding_ab.py A B C E S"""
import ctypes, sys
import torch, triton.testing
names = sys.argv[1:]
libs = {n: ctypes.CDLL(f"./lib_{n}.so") for n in names}
def call(n, *a):
    f = libs[n].embedding_bf16_fwd
    f.restype = ctypes.c_int
    return f(*[ctypes.c_void_p(x.data_ptr()) if isinstance(x, torch.Tensor) else ctypes.c_int(x) for x in a],
             ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
for V, D, N in ((128256, 4096, 16384), (50257, 768, 65536), (32000, 2048, 32768)):
    W = torch.randn(V, D, device="cuda", dtype=torch.bfloat16)
    I = torch.randint(0, V, (N,), device="cuda", dtype=torch.int32)
    ref = W[I.long()]
    Y = torch.empty(N, D, device="cuda", dtype=torch.bfloat16)
    src = torch.randn(N, D, device="cuda", dtype=torch.bfloat16)
    for n in names:
        Y.fill_(float("nan"))
        assert call(n, W, I, Y, V, D, N) == 0
        torch.cuda.synchronize()
        assert torch.equal(Y, ref), n
    best = {}
    for r in range(3):
        order = names[r % len(names):] + names[:r % len(names)] + ["copy"]
        for n in order:
            fn = (lambda: Y.copy_(src)) if n == "copy" else (lambda n=n: call(n, W, I, Y, V, D, N))
            t = triton.testing.do_bench(fn, warmup=20, rep=100, return_mode="median")
            best[n] = min(best.get(n, 1e9), t)
    gb = 2 * N * D * 2 / 1e9
    print(f"V={V} D={D} N={N}: " + "  ".join(f"{n} {best[n]*1e3:.1f}us {gb/best[n]*1e3:.0f}GB/s ({best['copy']/best[n]:.3f}x copy)" for n in names + ["copy"]))
