"""bench/index_ops_python.py: the python ops on the GPU: luatile.cross_entropy (fwd + bwd) and luatile.embedding (fwd, fwd + bwd)
beside torch.nn.functional in the same process; run tests/python/test_index.py --device cuda first (the check
against float64).  usage: LUATILE_LIB_CUDA=build/lib/libluatile_sm90a.so python3 bench/index_ops_python.py"""
import os
import sys

import torch, torch.nn.functional as F
import triton.testing
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import luatile

def t(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")

print("device:", torch.cuda.get_device_name(), "torch", torch.__version__)
for dt, N, V, eps in ((torch.bfloat16, 8192, 32000, 0.0), (torch.bfloat16, 4096, 128256, 0.1)):
    x = torch.randn(N, V, device="cuda", dtype=dt, requires_grad=True)
    y = torch.randint(0, V, (N,), device="cuda")
    def ours():
        luatile.cross_entropy(x, y, label_smoothing=eps).backward()
    def ref():
        F.cross_entropy(x, y, label_smoothing=eps).backward()
    a, b = t(ours), t(ref)
    print(f"| cross_entropy fwd+bwd {str(dt)[6:]} | N={N} V={V} eps={eps} | {a*1e3:.0f} us | {b*1e3:.0f} us | {b/a:.2f}x |")
for dt, V, D, N in ((torch.bfloat16, 128256, 4096, 16384), (torch.float32, 32000, 4096, 8192)):
    w = torch.randn(V, D, device="cuda", dtype=dt, requires_grad=True)
    i = torch.randint(0, V, (N,), device="cuda")
    with torch.no_grad():
        a, b = t(lambda: luatile.embedding(i, w)), t(lambda: F.embedding(i, w))
    print(f"| embedding fwd {str(dt)[6:]} | V={V} D={D} N={N} | {a*1e3:.0f} us | {b*1e3:.0f} us | {b/a:.2f}x |")
    g = torch.randn(N, D, device="cuda", dtype=dt)
    a, b = t(lambda: luatile.embedding(i, w).backward(g)), t(lambda: F.embedding(i, w).backward(g))
    print(f"| embedding fwd+bwd {str(dt)[6:]} | V={V} D={D} N={N} | {a*1e3:.0f} us | {b*1e3:.0f} us | {b/a:.2f}x |")
