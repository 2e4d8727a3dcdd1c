"""ncu_matmul.py: runs one generated matmul variant at one shape a few
times, for a profiler (Nsight Compute) to look at.  The result is checked
against torch.matmul first, so the profile is of a correct kernel.
usage: ncu [ncu options] python3 bench/ncu_matmul.py LIB.so [VARIANT] [M N K]"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, I64, Lib  # noqa: E402

lib = Lib(sys.argv[1])
name = sys.argv[2] if len(sys.argv) > 2 else "matmul_bf16_none_nn"
M, N, K = (int(x) for x in sys.argv[3:6]) if len(sys.argv) > 5 else (4096, 4096, 4096)
dt = name.split("_")[1]
a = torch.randn(M, K, device="cuda", dtype=DTYPES[dt])
b = torch.randn(K, N, device="cuda", dtype=DTYPES[dt])
c = torch.full((M, N), float("nan"), device="cuda", dtype=DTYPES[dt])
for _ in range(3):
    rc = lib(name, c, a, b, c, 1, M, N, K, I64(M * N), I64(N), I64(M * K), I64(K), I64(K * N), I64(N), 1.0, 0.0)
torch.cuda.synchronize()
ref = a.double() @ b.double()
err = ((c.double() - ref).norm() / ref.norm()).item()
print(f"{name} {M}x{N}x{K}: rc {rc}, rel err {err:.2e}")
sys.exit(0 if rc == 0 and err < 1e-2 else 1)
