"""attention_bwd_split.py: where forward + backward's time goes, ours kernel
by kernel, next to SDPA's cuDNN backend, in one run.

For bench/attention_bwd_ab.py's grid (bf16, 16K tokens a batch, model dim
2048, Q, K, V, dO in [B, S, H, D] memory) one build's dQ, dK and dV are
compared with cuDNN's first (relative Frobenius difference under 2e-2, as
there).  Then, in rotated rounds (ROUNDS, each callable REPS times a round,
the L2 flushed before each call, CUDA events), it times each of our kernels
alone (forward, pre, dkdv, dq), our forward + backward, cuDNN's forward
(SDPA alone) and cuDNN's forward + backward (SDPA and torch.autograd.grad
of it), and prints the medians of the round medians in milliseconds; cuDNN's
backward is its forward + backward less its forward.  Last, torch.profiler
records PROFILE calls of cuDNN's forward + backward (the flush between
them, as in the timing) and prints each of its kernels' device time a call
(the flush's fill left out), so the backward's kernels are seen one by one.
Columns: fwd x and bwd x are our time over cuDNN's (above 1: slower), x
cuDNN's forward + backward time over ours (as attention_bwd_ab.py's ratio).

usage: python3 bench/attention_bwd_split.py LIB.so
       (ROUNDS, REPS and PROFILE from the environment, default 6, 3 and 10;
       DIMS, default 64,128; SEQS, default 1024,4096,16384)"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gpu"))
sys.path.insert(0, HERE)
from lt import I64, Lib  # noqa: E402
from attention_ab import interleaved  # noqa: E402
from attention_bwd_ab import DIMS, SEQS, backward, rel  # noqa: E402


def cudnn_kernels(fn, flush, calls):
    """[(device ms a call, launches a call, kernel name)] of fn's kernels,
    from torch.profiler over `calls` calls, each after a flush of the L2;
    the flush's own fill left out.  Largest first."""
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            flush.zero_()
            fn()
        torch.cuda.synchronize()
    rows = []
    for e in prof.key_averages():
        t = getattr(e, "device_time_total", None)
        t = e.cuda_time_total if t is None else t
        if t <= 0 or "FillFunctor<unsigned char>" in e.key:
            continue
        rows.append((t / 1e3 / calls, e.count / calls, e.key))
    return sorted(rows, reverse=True)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    lib = Lib(sys.argv[1])
    rounds, reps = int(os.environ.get("ROUNDS", 6)), int(os.environ.get("REPS", 3))
    calls = int(os.environ.get("PROFILE", 10))
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    parts = ["fwd", "pre", "dkdv", "dq"]
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, bf16; ms (median of round medians), "
          f"{rounds} rounds of {reps}; f+b in TFLOP/s and its ratio to cuDNN's")
    print(f"{'point':22}" + "".join(f"{x:>8}" for x in parts) + f"{'sum':>8}{'f+b':>8}"
          f"{'cd fwd':>8}{'cd bwd':>8}{'cd f+b':>8}{'fwd x':>7}{'bwd x':>7}{'TF/s':>6}{'x':>6}  spread")
    for S in SEQS:
        for D in DIMS:
            for causal in (True, False):
                B, H = 16384 // S, 2048 // D
                g = torch.Generator(device="cuda")
                g.manual_seed(S + D + causal)
                q, k, v, do = (torch.randn(B, S, H, D, device="cuda", generator=g).to(torch.bfloat16) for _ in range(4))
                scalars = [1 / math.sqrt(D), -1, 0 if causal else -1]
                st = [I64(S * H * D), I64(D), I64(H * D)]
                flops = 3.5 * 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
                qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))
                qt, kt, vt = (x.transpose(1, 2) for x in (qg, kg, vg))

                def cudnn():
                    o = F.scaled_dot_product_attention(qg.transpose(1, 2), kg.transpose(1, 2), vg.transpose(1, 2),
                                                       is_causal=causal, scale=scalars[0])
                    return torch.autograd.grad(o, (qg, kg, vg), do.transpose(1, 2))

                def cudnn_fwd():   # on inputs that need grad: the training forward, which keeps LSE
                    return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, scale=scalars[0])
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    ref = list(cudnn())
                    o, dq, dk, dv = (torch.full_like(q, float("nan")) for _ in range(4))
                    lse = torch.empty(B, H, S, device="cuda")
                    fs = backward(lib, False, D, q, k, v, do, o, lse, dq, dk, dv, (B, H, S), st, scalars)
                    rc = fs["f+b"]()
                    torch.cuda.synchronize()
                    errs = [rel(x, r) for x, r in zip((dq, dk, dv), ref)]
                    if any(rc) or not all(e < 2e-2 for e in errs):
                        sys.exit(f"D={D} S={S} causal={causal}: WRONG (return codes {rc}, rel diff to cuDNN "
                                 f"dQ {errs[0]:.1e} dK {errs[1]:.1e} dV {errs[2]:.1e}); nothing timed")
                    fns = {x: fs[x] for x in parts + ["f+b"]}
                    fns.update({"cd fwd": cudnn_fwd, "cd f+b": cudnn})
                    r = interleaved(fns, rounds, reps, flush)
                    try:
                        prof = cudnn_kernels(cudnn, flush, calls)
                    except Exception as e:   # a machine without CUPTI: the timings still stand
                        prof = [(0.0, 0, f"(torch.profiler failed: {e})")]
                t = {x: r[x][0] for x in fns}
                ours_bwd, cd_bwd = t["pre"] + t["dkdv"] + t["dq"], t["cd f+b"] - t["cd fwd"]
                print(f"D={D} S={S} {'causal' if causal else 'full':6}".ljust(22) +
                      "".join(f"{t[x]:8.3f}" for x in parts) + f"{sum(t[x] for x in parts):8.3f}{t['f+b']:8.3f}" +
                      f"{t['cd fwd']:8.3f}{cd_bwd:8.3f}{t['cd f+b']:8.3f}" +
                      f"{t['fwd'] / t['cd fwd']:7.2f}{ours_bwd / cd_bwd:7.2f}" +
                      f"{flops / t['f+b'] / 1e9:6.0f}{t['cd f+b'] / t['f+b']:6.2f}  {max(s for _, s in r.values()):.2f}",
                      flush=True)
                for ms, n, name in prof:
                    print(f"    cuDNN {ms:8.3f} ms  x{n:g}  {name[:110]}", flush=True)


if __name__ == "__main__":
    main()
