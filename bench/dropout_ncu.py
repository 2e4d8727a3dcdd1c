"""dropout_ncu.py: one launch of bias_dropout_add at each point given, for Nsight Compute (what a
build of the kernel waits on, how many bytes reach DRAM); random inputs, p = 0.1.

usage: ncu --kernel-name regex:bias_dropout_add [--metrics ...] \\
         python3 bench/dropout_ncu.py LIB.so DTYPE MxN [MxN ...]"""
import ctypes
import sys

import torch

lib = ctypes.CDLL(sys.argv[1])
dt = sys.argv[2]
t = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dt]
f = getattr(lib, f"bias_dropout_add_{dt}")
P, I, L64, F = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_float
f.argtypes = [P] * 4 + [I, I, F, L64, L64, P]
for shape in sys.argv[3:]:
    M, N = (int(x) for x in shape.split("x"))
    X, R = torch.randn(M, N, device="cuda", dtype=t), torch.randn(M, N, device="cuda", dtype=t)
    B, Y = torch.randn(N, device="cuda", dtype=t), torch.empty(M, N, device="cuda", dtype=t)
    rc = f(*(ctypes.c_void_p(a.data_ptr()) for a in (X, B, R, Y)), M, N, 0.1, 5, 0, None)
    torch.cuda.synchronize()
    if rc != 0:
        sys.exit(f"bias_dropout_add_{dt} {shape}: launcher returned {rc}")
    print(f"bias_dropout_add_{dt} {shape}: {3 * M * N * t.itemsize / 1e6:.1f} MB to move", flush=True)
