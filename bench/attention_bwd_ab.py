"""attention_bwd_ab.py: A/B timing of the attention backward from several
builds of the same launchers, next to SDPA's cuDNN backend, in one run.

The backward's counterpart of bench/attention_ab.py.  For each point of
bench/attention.py's grid (bf16, 16K tokens a batch, model dim 2048, Q, K,
V, dO in [B, S, H, D] memory) every build runs its forward and its
deterministic backward (pre, dkdv, dq); its dQ, dK and dV are compared
with cuDNN's (torch.autograd.grad of SDPA under CUDNN_ATTENTION; relative
Frobenius difference under 2e-2) before anything is timed.  Then, in
rotated rounds (ROUNDS, each callable REPS times a round, the L2 flushed
before each call, CUDA events), it times each build's dkdv kernel, its dq
kernel, and its forward + backward, and cuDNN's forward + backward; it
prints the median of the round medians: milliseconds of dkdv and dq, and
the forward + backward's TFLOP/s (3.5 times the forward's FLOPs, halved
when causal) with its ratio to cuDNN, and the largest spread (max - min) /
median of the round medians.

usage: python3 bench/attention_bwd_ab.py LABEL=LIB.so [LABEL=LIB.so ...]
       (ROUNDS and REPS from the environment, default 6 and 3; DIMS, the
       head dims, default 64,128; SEQS, default 1024,4096,16384)"""
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "gpu"))
from lt import I64, named_libs  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_ab import interleaved  # noqa: E402

DIMS = [int(d) for d in os.environ.get("DIMS", "64,128").split(",")]
SEQS = [int(s) for s in os.environ.get("SEQS", "1024,4096,16384").split(",")]


def rel(a, b):
    """Relative Frobenius difference of a to b, in f32."""
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def main():
    if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[1:]):
        sys.exit(__doc__)
    libs = dict(named_libs(sys.argv[1:]))
    rounds, reps = int(os.environ.get("ROUNDS", 6)), int(os.environ.get("REPS", 3))
    dev = "cuda"
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    names = list(libs)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, bf16; dkdv and dq in ms, forward + backward "
          f"in TFLOP/s (ratio to cuDNN); {rounds} rounds of {reps}")
    print(f"{'point':22}" + "".join(f"{n + ' dkdv':>12}{n + ' dq':>10}{n + ' f+b':>16}" for n in names) +
          f"{'cudnn f+b':>10}   spread")
    for S in SEQS:
        for D in DIMS:
            for causal in (True, False):
                B, H = 16384 // S, 2048 // D
                g = torch.Generator(device=dev)
                g.manual_seed(S + D + causal)
                q, k, v, do = (torch.randn(B, S, H, D, device=dev, generator=g).to(torch.bfloat16) for _ in range(4))
                scale = 1 / math.sqrt(D)
                wl, wr = (-1, 0) if causal else (-1, -1)
                st = [I64(S * H * D), I64(D), I64(H * D)]
                flops = 3.5 * 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
                qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))

                def cudnn():
                    o = F.scaled_dot_product_attention(qg.transpose(1, 2), kg.transpose(1, 2), vg.transpose(1, 2),
                                                       is_causal=causal, scale=scale)
                    return torch.autograd.grad(o, (qg, kg, vg), do.transpose(1, 2))
                fns = {}
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    ref = list(cudnn())   # grads of qg, kg, vg: [B, S, H, D] as ours
                    fns["cudnn"] = cudnn
                    for n, lib in libs.items():
                        o, dq, dk, dv = (torch.full_like(q, float("nan")) for _ in range(4))
                        lse, delta = (torch.empty(B, H, S, device=dev) for _ in range(2))

                        def fwd(lib=lib, o=o, lse=lse):
                            return lib(f"attention_bf16_d{D}", q, k, v, o, lse, B, H, S, H, S, *st * 4, scale, wl, wr)

                        def pre(lib=lib, o=o, delta=delta):
                            return lib(f"attention_bwd_pre_bf16_d{D}", o, do, delta, B, H, S, *st * 2)

                        def dkdv(lib=lib, lse=lse, delta=delta, dk=dk, dv=dv):
                            return lib(f"attention_bwd_dkdv_bf16_d{D}", q, k, v, do, lse, delta, dk, dv, B, H, S, H, S,
                                       *st * 6, scale, wl, wr)

                        def dqk(lib=lib, lse=lse, delta=delta, dq=dq):
                            return lib(f"attention_bwd_dq_bf16_d{D}", q, k, v, do, lse, delta, dq, B, H, S, H, S,
                                       *st * 5, scale, wl, wr)

                        def fb(fwd=fwd, pre=pre, dkdv=dkdv, dqk=dqk):
                            return [fwd(), pre(), dkdv(), dqk()]
                        rc = fb()
                        torch.cuda.synchronize()
                        errs = [rel(x, r) for x, r in zip((dq, dk, dv), ref)]
                        if any(rc) or not all(e < 2e-2 for e in errs):
                            sys.exit(f"{n} D={D} S={S} causal={causal}: WRONG (return codes {rc}, rel diff to cuDNN "
                                     f"dQ {errs[0]:.1e} dK {errs[1]:.1e} dV {errs[2]:.1e}); nothing timed")
                        fns[n + " dkdv"], fns[n + " dq"], fns[n + " f+b"] = dkdv, dqk, fb
                    r = interleaved(fns, rounds, reps, flush)
                cd = flops / r["cudnn"][0] / 1e9
                print(f"D={D} S={S} {'causal' if causal else 'full':6}".ljust(22) +
                      "".join(f"{r[n + ' dkdv'][0]:12.3f}{r[n + ' dq'][0]:10.3f}"
                              f"{flops / r[n + ' f+b'][0] / 1e9:10.0f} {flops / r[n + ' f+b'][0] / 1e9 / cd:.2f}x"
                              for n in names) + f"{cd:10.0f}   {max(s for _, s in r.values()):.2f}", flush=True)


if __name__ == "__main__":
    main()
