"""attention_bwd_ncu.py: one launch each of a library's backward kernels at
D = 128, bf16, [B, S, H, D], 16K tokens a batch, model dim 2048, at S = 4K
and 16K, full and causal: the fused dK/dV kernel with dQ by atomics
(attention_bwd_dkdv_dq_atomic_bf16_d128), then the deterministic pair
(attention_bwd_dkdv_bf16_d128, attention_bwd_dq_bf16_d128), inside
cudaProfilerStart / Stop after two warm-up calls, for ncu to compare:

  ncu --profile-from-start off --clock-control none --section SpeedOfLight \
      --section WarpStateStats --section InstructionStats -o OUT \
      python3 bench/attention_bwd_ncu.py LIB.so

(bench/results/2026-11-26-h200-attention-bwd-dq-fused.txt)."""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "gpu"))
from lt import I64, Lib  # noqa: E402

if len(sys.argv) != 2:
    sys.exit(__doc__)
lib = Lib(sys.argv[1])
D = 128
SEQS = [int(s) for s in os.environ.get("SEQS", "4096,16384").split(",")]
for S in SEQS:
    for causal in (False, True):
        B, H = 16384 // S, 2048 // D
        q, k, v, do = (torch.randn(B, S, H, D, device="cuda").to(torch.bfloat16) for _ in range(4))
        o, dq, dk, dv = (torch.empty_like(q) for _ in range(4))
        lse, delta = torch.empty(B, H, S, device="cuda"), torch.empty(B, H, S, device="cuda")
        acc = torch.zeros(B, H, S, D, device="cuda")
        st = [I64(S * H * D), I64(D), I64(H * D)]
        sc = [1 / math.sqrt(D), -1, 0 if causal else -1]
        lib("attention_bf16_d128", q, k, v, o, lse, B, H, S, H, S, *st * 4, *sc)
        lib("attention_bwd_pre_bf16_d128", o, do, delta, B, H, S, *st * 2)
        calls = [
            lambda: lib("attention_bwd_dkdv_dq_atomic_bf16_d128", q, k, v, do, lse, delta, dk, dv, acc,
                        B, H, S, H, S, *st * 6, *sc),
            lambda: lib("attention_bwd_dkdv_bf16_d128", q, k, v, do, lse, delta, dk, dv, B, H, S, H, S, *st * 6, *sc),
            lambda: lib("attention_bwd_dq_bf16_d128", q, k, v, do, lse, delta, dq, B, H, S, H, S, *st * 5, *sc),
        ]
        for _ in range(2):
            for f in calls:
                assert f() == 0
        torch.cuda.synchronize()
        print(f"S={S} {'causal' if causal else 'full'}: dkdv_dq_atomic, dkdv, dq", flush=True)
        torch.cuda.cudart().cudaProfilerStart()
        for f in calls:
            f()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
