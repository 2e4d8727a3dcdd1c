"""attention_ab.py: A/B timing of the attention forward from several builds
of the same launchers, next to SDPA's flash and cuDNN backends, in one run.

bench/attention.py times each implementation once per point, one after the
other; a change of a few percent is then within the drift of the GPU's
clocks.  This script interleaves: each point runs ROUNDS rounds, every
implementation REPS times a round (L2 flushed before each call, CUDA
events), the order rotated each round, and reports the median of the round
medians, its ratios to flash and to cuDNN, and the spread (max - min) /
median of the round medians.  cuDNN is called through its ATen op
(torch.ops.aten._scaled_dot_product_cudnn_attention, no context manager
inside the timed call); where that op is missing or refuses, its column is
left out.  Each build's O is checked against flash (relative Frobenius
difference under 1e-2) before anything is timed.  bf16, Q/K/V in
[B, S, H, D] memory, the grid of bench/attention.py (16K tokens a batch,
model dim 2048).

Other dtypes, sequence lengths and head counts from the environment: DTYPE
(bf16 or f16), SEQS (default 1024,4096,16384; B = 16384 // S, so 16K tokens
a batch or fewer where S does not divide it), HEADS=HQ/HKV (default
2048 / D query heads, as many key/value heads; with fewer key/value heads,
GQA, flash and cuDNN get K and V repeated to HQ heads, as SDPA without
enable_gqa takes them).

usage: python3 bench/attention_ab.py LABEL=LIB.so [LABEL=LIB.so ...]
       (ROUNDS and REPS from the environment, default 10 and 6; DIMS, the
       head dims, default 64,128)"""
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "gpu"))
from lt import I64, named_libs  # noqa: E402

DIMS = [int(d) for d in os.environ.get("DIMS", "64,128").split(",")]
SEQS = [int(s) for s in os.environ.get("SEQS", "1024,4096,16384").split(",")]
DTYPE = os.environ.get("DTYPE", "bf16")
HEADS = os.environ.get("HEADS")   # "HQ/HKV", else 2048 // D each
POINTS = [(D, S, causal) for S in SEQS for D in DIMS for causal in (True, False)]


def interleaved(fns, rounds, reps, flush):
    """{name: (median ms, spread)} of each fn, timed in rotated rounds."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def once(fn):
        flush.zero_()
        start.record()
        fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end)
    for fn in fns.values():
        fn()
        fn()
    ts = {n: [] for n in fns}
    order = list(fns)
    for r in range(rounds):
        for n in order[r % len(order):] + order[:r % len(order)]:
            ts[n].append(statistics.median(once(fns[n]) for _ in range(reps)))
    return {n: (statistics.median(v), (max(v) - min(v)) / statistics.median(v)) for n, v in ts.items()}


def main():
    if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[1:]):
        sys.exit(__doc__)
    libs = dict(named_libs(sys.argv[1:]))
    rounds, reps = int(os.environ.get("ROUNDS", 10)), int(os.environ.get("REPS", 6))
    dev = "cuda"
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    names = list(libs)
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[DTYPE]
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {DTYPE}"
          f"{', heads ' + HEADS if HEADS else ''}; TFLOP/s (ratio to flash, to cuDNN), {rounds} rounds of {reps}")
    print(f"{'point':22}" + "".join(f"{n:>20}" for n in names) + f"{'flash':>8}{'cudnn':>8}   spread")
    for D, S, causal in POINTS:
        B = max(1, 16384 // S)
        H, Hkv = (int(h) for h in HEADS.split("/")) if HEADS else (2048 // D, 2048 // D)
        q = torch.randn(B, S, H, D, device=dev).to(dt)
        k, v = (torch.randn(B, S, Hkv, D, device=dev).to(dt) for _ in range(2))
        kx, vx = (t.repeat_interleave(H // Hkv, dim=2) if Hkv != H else t for t in (k, v))   # for flash, cuDNN
        scale = 1 / math.sqrt(D)
        wl, wr = (-1, 0) if causal else (-1, -1)
        st = [I64(S * H * D), I64(D), I64(H * D)]
        skv = [I64(S * Hkv * D), I64(D), I64(Hkv * D)]
        flops = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
        o = {n: torch.full_like(q, float("nan")) for n in names}
        lse = torch.empty(B, H, S, device=dev)

        def ours(n):
            return lambda: libs[n](f"attention_{DTYPE}_d{D}", q, k, v, o[n], lse, B, H, S, Hkv, S, *st, *skv, *skv,
                                   *st, scale, wl, wr)

        def flash():   # called inside sdpa_kernel(FLASH_ATTENTION), entered once (it costs host time)
            return F.scaled_dot_product_attention(q.transpose(1, 2), kx.transpose(1, 2), vx.transpose(1, 2),
                                                  is_causal=causal, scale=scale)
        def cudnn():   # the ATen op SDPA's CUDNN_ATTENTION backend calls
            return torch.ops.aten._scaled_dot_product_cudnn_attention(
                q.transpose(1, 2), kx.transpose(1, 2), vx.transpose(1, 2), None, False, 0.0, causal, False,
                scale=scale)[0]
        fns = {n: ours(n) for n in names}
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            ref = flash().transpose(1, 2).float()
            for n, fn in fns.items():
                rc = fn()
                torch.cuda.synchronize()
                err = ((o[n].float() - ref).norm() / ref.norm()).item()
                if rc != 0 or not err < 1e-2:
                    sys.exit(f"{n} D={D} S={S}: WRONG (return code {rc}, rel diff to flash {err:.1e}); nothing timed")
            fns["flash"] = flash
            try:
                err = ((cudnn().transpose(1, 2).float() - ref).norm() / ref.norm()).item()
                if err < 1e-2:
                    fns["cudnn"] = cudnn
                else:
                    print(f"cudnn D={D} S={S}: rel diff to flash {err:.1e}; not timed")
            except (AttributeError, RuntimeError, TypeError) as e:
                print(f"cudnn D={D} S={S}: {str(e).splitlines()[0][:120]}; not timed")
            r = interleaved(fns, rounds, reps, flush)
        t = {n: flops / ms / 1e9 for n, (ms, _) in r.items()}
        cd = t.get("cudnn")
        print(f"D={D} S={S} {'causal' if causal else 'full':6}".ljust(22) +
              "".join(f"{t[n]:7.0f} {t[n] / t['flash']:.2f}x" + (f" {t[n] / cd:.2f}x" if cd else "       ")
                      for n in names) + f"{t['flash']:8.0f}" + (f"{cd:8.0f}" if cd else f"{'-':>8}") + "   " +
              " ".join(f"{s:.2f}" for _, s in r.values()), flush=True)


if __name__ == "__main__":
    main()
