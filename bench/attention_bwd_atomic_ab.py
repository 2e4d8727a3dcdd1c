"""attention_bwd_atomic_ab.py: A/B timing of the attention backward with dQ by
atomics (pre_dq_atomic, dkdv_dq_atomic, post) from several builds of the same
launchers, beside the first build's deterministic backward (pre, dkdv, dq) and
SDPA's cuDNN backend, in one run.

bench/attention_bwd_ab.py's grid (bf16, 16K tokens a batch, model dim 2048,
Q, K, V, dO in [B, S, H, D] memory).  Every build's dQ, dK and dV by atomics
are compared with cuDNN's (relative Frobenius difference under 2e-2) before
anything is timed.  Then, in rotated rounds (ROUNDS, default 6, each callable
REPS times a round, default 3, the L2 flushed before each call), it times
each build's dkdv_dq_atomic kernel and its forward + backward by atomics,
the first build's deterministic forward + backward, and cuDNN's; it prints
the median of the round medians: the kernel in ms, forward + backward in
TFLOP/s (3.5 times the forward's FLOPs, halved when causal) with the ratio
to cuDNN, and the largest spread (max - min) / median of the round medians.

usage: python3 bench/attention_bwd_atomic_ab.py LABEL=LIB.so [LABEL=LIB.so ...]
       (ROUNDS, REPS; DIMS, default 64,128; SEQS, default 1024,4096,16384)"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gpu"))
sys.path.insert(0, HERE)
from lt import I64, named_libs  # noqa: E402
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
    names = list(libs)
    rounds, reps = int(os.environ.get("ROUNDS", 6)), int(os.environ.get("REPS", 3))
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, bf16; dkdv_dq_atomic in ms, forward + "
          f"backward in TFLOP/s (ratio to cuDNN); {rounds} rounds of {reps}")
    print(f"{'point':22}" + "".join(f"{n + ' dkdv':>12}{n + ' f+b':>16}" for n in names) +
          f"{'determ. f+b':>16}{'cudnn f+b':>10}   spread")
    for S in SEQS:
        for D in DIMS:
            for causal in (True, False):
                B, H = 16384 // S, 2048 // D
                g = torch.Generator(device="cuda")
                g.manual_seed(S + D + causal)
                q, k, v, do = (torch.randn(B, S, H, D, device="cuda", generator=g).to(torch.bfloat16) for _ in range(4))
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
                    ref = list(cudnn())
                    fns["cudnn"] = cudnn
                    for i, (n, lib) in enumerate(libs.items()):
                        o, dq, dk, dv = (torch.full_like(q, float("nan")) for _ in range(4))
                        lse, delta = (torch.empty(B, H, S, device="cuda") for _ in range(2))
                        acc = torch.empty(B, H, S, D, device="cuda")

                        def fwd(lib=lib, o=o, lse=lse):
                            return lib(f"attention_bf16_d{D}", q, k, v, o, lse, B, H, S, H, S, *st * 4, scale, wl, wr)

                        def dkdv(lib=lib, lse=lse, delta=delta, dk=dk, dv=dv, acc=acc):
                            return lib(f"attention_bwd_dkdv_dq_atomic_bf16_d{D}", q, k, v, do, lse, delta, dk, dv, acc,
                                       B, H, S, H, S, *st * 6, scale, wl, wr)

                        def fb(lib=lib, fwd=fwd, dkdv=dkdv, o=o, delta=delta, acc=acc, dq=dq):
                            return [fwd(), lib(f"attention_bwd_pre_dq_atomic_bf16_d{D}", o, do, delta, acc, B, H, S,
                                               *st * 2), dkdv(), lib(f"attention_bwd_post_bf16_d{D}", acc, dq, B, H, S, *st)]
                        rc = fb()
                        torch.cuda.synchronize()
                        errs = [rel(x, r) for x, r in zip((dq, dk, dv), ref)]
                        if any(rc) or not all(e < 2e-2 for e in errs):
                            sys.exit(f"{n} D={D} S={S} causal={causal}: WRONG (return codes {rc}, rel diff to cuDNN "
                                     f"dQ {errs[0]:.1e} dK {errs[1]:.1e} dV {errs[2]:.1e}); nothing timed")
                        fns[n + " dkdv"], fns[n + " f+b"] = dkdv, fb
                        if i == 0:
                            dq2, dk2, dv2 = (torch.full_like(q, float("nan")) for _ in range(3))

                            def det(lib=lib, fwd=fwd, o=o, lse=lse, delta=delta):
                                return [fwd(), lib(f"attention_bwd_pre_bf16_d{D}", o, do, delta, B, H, S, *st * 2),
                                        lib(f"attention_bwd_dkdv_bf16_d{D}", q, k, v, do, lse, delta, dk2, dv2, B, H, S,
                                            H, S, *st * 6, scale, wl, wr),
                                        lib(f"attention_bwd_dq_bf16_d{D}", q, k, v, do, lse, delta, dq2, B, H, S, H, S,
                                            *st * 5, scale, wl, wr)]
                            fns["det"] = det
                    r = interleaved(fns, rounds, reps, flush)
                cd = flops / r["cudnn"][0] / 1e9
                tf = {n: flops / r[n][0] / 1e9 for n in fns if n.endswith("f+b") or n == "det"}
                print(f"D={D} S={S} {'causal' if causal else 'full':6}".ljust(22) +
                      "".join(f"{r[n + ' dkdv'][0]:12.3f}{tf[n + ' f+b']:10.0f} {tf[n + ' f+b'] / cd:.2f}x"
                              for n in names) + f"{tf['det']:10.0f} {tf['det'] / cd:.2f}x{cd:10.0f}   "
                      f"{max(s for _, s in r.values()):.2f}", flush=True)


if __name__ == "__main__":
    main()
