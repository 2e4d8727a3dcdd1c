"""check_attention_programs.py: the bf16 forward (D = 64, 128, 256) of one or
more libraries at shapes whose programs outnumber an H200's 132 SMs, so that
on the persistent grid of sm90a every block runs several and reloads its Q
tile and ring stages between them; check_attention.py's cases launch fewer
programs than that.  Fresh random inputs, NaN-poisoned outputs; against
float32 attention of the same bf16 inputs (causal: bottom-right aligned, as
docs/attention.md), every element of O must be within twice the largest error
of SDPA's flash backend (bf16) on the same inputs, plus 1e-3 (where flash's
causal mask means another thing, Sq != Sk: 8e-3, about its error elsewhere),
and LSE within 1e-3 of the float32 one.  Prints PASS / FAIL lines and
"check_attention_programs: N failed".

usage: python3 tests/gpu/check_attention_programs.py LABEL=LIB.so [LABEL=LIB.so ...]"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lt import I64, named_libs  # noqa: E402

if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[1:]):
    sys.exit(__doc__)
libs = named_libs(sys.argv[1:])
torch.manual_seed(0)
bad = 0
for D in (64, 128, 256):
    for S, Sk, B, H in ((2048, 2048, 4, 16), (1000, 1500, 3, 24)):
        for causal in (True, False):
            q, k, v = (torch.randn(B, x, H, D, device="cuda").to(torch.bfloat16) for x in (S, Sk, Sk))
            scale = 1 / math.sqrt(D)
            wl, wr = -1, (0 if causal else -1)
            qf, kf, vf = (t.transpose(1, 2).float() for t in (q, k, v))
            s = (qf @ kf.transpose(-1, -2)) * scale
            if causal:   # bottom-right aligned: query i sees keys <= i + Sk - S
                i, j = torch.arange(S, device="cuda")[:, None], torch.arange(Sk, device="cuda")[None, :]
                s = s.masked_fill(j > i + (Sk - S), float("-inf"))
            lse_ref = torch.logsumexp(s, -1)
            ref = torch.nan_to_num(torch.softmax(s, -1) @ vf)   # a row with no visible key: O = 0
            ferr = 8e-3
            if S == Sk:
                fl = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                    is_causal=causal, scale=scale)
                ferr = (fl.float() - ref).abs().max().item()
            for n, lib in libs:
                o, lse = torch.full_like(q, float("nan")), torch.full((B, H, S), float("nan"), device="cuda")
                sq, sk = [I64(S * H * D), I64(D), I64(H * D)], [I64(Sk * H * D), I64(D), I64(H * D)]
                rc = lib(f"attention_bf16_d{D}", q, k, v, o, lse, B, H, S, H, Sk, *sq, *sk, *sk, *sq, scale, wl, wr)
                torch.cuda.synchronize()
                err = (o.transpose(1, 2).float() - ref).abs().max().item()
                fin = torch.isfinite(lse_ref)
                lerr = (lse - lse_ref)[fin].abs().max().item()
                ok = rc == 0 and err <= 2 * ferr + 1e-3 and lerr <= 1e-3 and bool(torch.isinf(lse[~fin]).all())
                bad += not ok
                print(f"{'PASS' if ok else 'FAIL'} {n} D={D} B={B} H={H} Sq={S} Sk={Sk} "
                      f"{'causal' if causal else 'full'}: max|O-ref| {err:.2e} (flash {ferr:.2e}), "
                      f"max|LSE-ref| {lerr:.1e}", flush=True)
print(f"check_attention_programs: {bad} failed")
