"""attention_fwd_ncu.py: one launch each of a library's attention_bf16_d128
forward and of cuDNN's (SDPA's ATen op, as bench/attention_ab.py calls it),
bf16, [B, S, H, D], 16K tokens a batch, model dim 2048, at S = 1K and 4K, full
and causal, each pair inside cudaProfilerStart / Stop after three warm-up
calls, for ncu to compare the two kernels:

  ncu --profile-from-start off --section SpeedOfLight --section WarpStateStats \
      --section SchedulerStats -o OUT python3 bench/attention_fwd_ncu.py LIB.so

(bench/results/2026-11-25-h200-attention-fwd-ncu.txt)."""
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
for S in (1024, 4096):
    for causal in (False, True):
        B, H = 16384 // S, 2048 // D
        q, k, v = (torch.randn(B, S, H, D, device="cuda").to(torch.bfloat16) for _ in range(3))
        o, lse = torch.empty_like(q), torch.empty(B, H, S, device="cuda")
        st = [I64(S * H * D), I64(D), I64(H * D)]
        wl, wr = (-1, 0) if causal else (-1, -1)

        def ours():
            return lib("attention_bf16_d128", q, k, v, o, lse, B, H, S, H, S, *st * 4, 1 / math.sqrt(D), wl, wr)

        def cudnn():
            return torch.ops.aten._scaled_dot_product_cudnn_attention(
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), None, False, 0.0, causal, False,
                scale=1 / math.sqrt(D))
        for _ in range(3):
            ours()
            cudnn()
        torch.cuda.synchronize()
        print(f"S={S} {'causal' if causal else 'full'}: ours, then cudnn", flush=True)
        torch.cuda.cudart().cudaProfilerStart()
        ours()
        cudnn()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
