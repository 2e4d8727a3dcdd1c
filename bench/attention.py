"""attention.py: times the generated FlashAttention-2 kernels side by side
with torch SDPA's FLASH_ATTENTION and CUDNN_ATTENTION backends, in the same
run, bf16.

Grid: 16K tokens per batch (B = 16384 / S), model dim 2048 (H = 2048 / D),
D in {64, 128}, S in {1K, 4K, 16K}, causal and full; forward, and forward +
backward (ours: forward, then the deterministic backward: pre, dkdv, dq;
LABEL-atomic: the backward with dQ by atomics, as FA2 does it: pre and dkdv
of the dq_atomic variants, then post; SDPA: the forward and
torch.autograd.grad of it).  Q, K, V, dO live in [B, S, H, D] memory; SDPA
gets them as [B, H, S, D] views, our launchers through strides.
FLOPs: forward 4 B H S^2 D (halved when causal), forward + backward 3.5x that.
Before a point is timed, our O (and dQ, dK, dV) are checked once against
SDPA's flash backend (cuDNN's if flash is not there): relative Frobenius
difference under 1e-2 (O) and 2e-2 (gradients), both sides bf16; a wrong or
failing implementation is not timed.  Times: CUDA events around each call
after a warm-up, the L2 flushed (256 MB memset) before each repetition,
median of up to 50 repetitions (the spread, IQR / median, goes to the JSON).
Writes attention.json and attention.png (if matplotlib is there) to $OUT,
else to bench/results/<date>-attention.{json,png}; prints the table.

usage: python3 bench/attention.py LABEL=LIB.so [LABEL=LIB.so ...]
       (DIMS from the environment: the head dims, default 64,128; a variant
       the library lacks, such as dQ by atomics at d256, is noted, not timed)
       python3 bench/attention.py --replot FILE.json   (table and plot again)"""
import datetime
import json
import math
import os
import statistics
import sys

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
DIMS = [int(d) for d in os.environ.get("DIMS", "64,128").split(",")]   # the head dims of the grid


def out_paths():
    """Where attention.json and attention.png go."""
    if os.environ.get("OUT"):
        return os.path.join(os.environ["OUT"], "attention.json"), os.path.join(os.environ["OUT"], "attention.png")
    stem = os.path.join(RESULTS, f"{datetime.date.today().isoformat()}-attention")
    return stem + ".json", stem + ".png"


def table(res):
    """The results as text: TFLOP/s of each implementation and our ratios to flash and cuDNN."""
    labels = res["labels"]
    head = f"{'D':>4} {'S':>6} {'B':>3} {'H':>3} {'mask':>6} {'pass':>8} |" + "".join(
        f" {lab:>8}" for lab in labels) + f" {'flash':>8} {'cudnn':>8} |" + "".join(
        f" {lab + '/fa':>10} {lab + '/cudnn':>12}" for lab in labels)
    lines = [f"{res['device']}, torch {res['torch']}, {res['dtype']}; TFLOP/s (median)", head, "-" * len(head)]

    def f(x):
        return f"{x:8.0f}" if x else f"{'-':>8}"

    def r(a, b, w):
        return f"{a / b:{w}.2f}x" if a and b else f"{'-':>{w + 1}}"
    for row in res["rows"]:
        t = row["tflops"]
        lines.append(f"{row['D']:>4} {row['S']:>6} {row['B']:>3} {row['H']:>3} {row['mask']:>6} {row['pass']:>8} |" +
                     "".join(" " + f(t.get(lab)) for lab in labels) + " " + f(t.get("flash")) + " " +
                     f(t.get("cudnn")) + " |" + "".join(f" {r(t.get(lab), t.get('flash'), 9)} "
                                                        f"{r(t.get(lab), t.get('cudnn'), 11)}" for lab in labels))
    for row in res["rows"]:
        for k, why in row.get("notes", {}).items():
            lines.append(f"note: D={row['D']} S={row['S']} {row['mask']} {row['pass']} {k}: {why}")
    return "\n".join(lines)


def plot(res, path):
    """Bars of TFLOP/s per point, forward and forward + backward; a message instead if no matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    impls = res["labels"] + ["flash", "cudnn"]
    fig, axes = plt.subplots(2, 1, figsize=(12, 7))
    for ax, ps in zip(axes, ("fwd", "fwd+bwd")):
        rows = [r for r in res["rows"] if r["pass"] == ps]
        w = 0.8 / len(impls)
        for j, name in enumerate(impls):
            ax.bar([i + j * w for i in range(len(rows))], [r["tflops"].get(name) or 0 for r in rows], w,
                   label=name)
        ax.set_xticks([i + 0.4 - w / 2 for i in range(len(rows))],
                      [f"D{r['D']} S{r['S'] // 1024}K\n{r['mask']}" for r in rows], fontsize=7)
        ax.set_ylabel("TFLOP/s")
        ax.set_title(f"attention {ps}, {res['dtype']}, 16K tokens, model dim 2048 ({res['device']})", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"plot: {path}")


def progress(rows, labels):
    """One line for a point just measured: TFLOP/s of each implementation, forward and forward + backward."""
    r = rows[0]
    parts = [f"D={r['D']} S={r['S']} {r['mask']}:"]
    for row in rows:
        parts.append(row["pass"] + " " + ", ".join(f"{n} {row['tflops'][n]:.0f}" for n in labels + ["flash", "cudnn"]
                                                    if n in row["tflops"]))
    return " | ".join(parts) + "".join(f"\n  {k}: {v}" for k, v in r["notes"].items())


def bench(libs):
    """Checks and times every point; returns the results."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "gpu"))
    from lt import I64  # noqa: E402

    dev = "cuda"
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=dev)

    def time_ms(fn):
        """Median ms of fn over up to 50 repetitions (events, L2 flushed first), and IQR / median."""
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        ts = []
        while len(ts) < 50 and (len(ts) < 5 or sum(ts) < 1000):
            flush.zero_()
            start.record()
            fn()
            end.record()
            end.synchronize()
            ts.append(start.elapsed_time(end))
        q = statistics.quantiles(ts, n=4)
        med = statistics.median(ts)
        return med, (q[2] - q[0]) / med

    def rel(a, b):
        return ((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-30)).item()

    rows = []
    labels = [x for lab, _ in libs for x in (lab, lab + "-atomic")]
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    for D in DIMS:
        for S in (1024, 4096, 16384):
            for causal in (False, True):
                B, H = 16384 // S, 2048 // D
                g = torch.Generator(device=dev)
                g.manual_seed(S + D + causal)
                q, k, v, do = (torch.randn(B, S, H, D, device=dev, generator=g).to(torch.bfloat16) for _ in range(4))
                scale = 1 / math.sqrt(D)
                flops = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
                wl, wr = (-1, 0) if causal else (-1, -1)
                st = [I64(S * H * D), I64(D), I64(H * D)]   # (b, h, s) strides of [B, S, H, D]
                fb = {"fwd": {}, "fwd+bwd": {}}
                notes = {}
                ref = None   # SDPA's o, dq, dk, dv for the check
                for name, be in backends.items():
                    qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))

                    def sdpa_fwd():
                        return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                                              v.transpose(1, 2), is_causal=causal, scale=scale)

                    def sdpa_fb():
                        o = F.scaled_dot_product_attention(qg.transpose(1, 2), kg.transpose(1, 2),
                                                           vg.transpose(1, 2), is_causal=causal, scale=scale)
                        return o, torch.autograd.grad(o, (qg, kg, vg), do.transpose(1, 2))
                    try:
                        with sdpa_kernel(be):
                            o, grads = sdpa_fb()
                            if ref is None:
                                ref = (o.detach().transpose(1, 2), *grads)
                            fb["fwd"][name] = time_ms(sdpa_fwd)
                            fb["fwd+bwd"][name] = time_ms(sdpa_fb)
                    except RuntimeError as e:
                        notes[name] = str(e).splitlines()[0][:160]
                for label, lib in libs:
                    o = torch.empty_like(q)
                    lse = torch.empty(B, H, S, device=dev, dtype=torch.float32)
                    delta = torch.empty(B, H, S, device=dev, dtype=torch.float32)
                    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
                    dqacc = torch.empty(B, H, S, 128 if D == 96 else D, device=dev, dtype=torch.float32)   # rows as wide as the tiles

                    def ours_fwd():
                        return lib(f"attention_bf16_d{D}", q, k, v, o, lse, B, H, S, H, S, *st * 4, scale, wl, wr)

                    def ours_fb_atomic():   # dQ by atomics
                        r = [ours_fwd(), lib(f"attention_bwd_pre_dq_atomic_bf16_d{D}", o, do, delta, dqacc, B, H, S,
                                             *st * 2)]
                        r.append(lib(f"attention_bwd_dkdv_dq_atomic_bf16_d{D}", q, k, v, do, lse, delta, dk, dv,
                                     dqacc, B, H, S, H, S, *st * 6, scale, wl, wr))
                        r.append(lib(f"attention_bwd_post_bf16_d{D}", dqacc, dq, B, H, S, *st))
                        return r

                    def ours_fb():   # the deterministic backward
                        r = [ours_fwd(), lib(f"attention_bwd_pre_bf16_d{D}", o, do, delta, B, H, S, *st * 2)]
                        r.append(lib(f"attention_bwd_dkdv_bf16_d{D}", q, k, v, do, lse, delta, dk, dv, B, H, S, H, S,
                                     *st * 6, scale, wl, wr))
                        r.append(lib(f"attention_bwd_dq_bf16_d{D}", q, k, v, do, lse, delta, dq, B, H, S, H, S,
                                     *st * 5, scale, wl, wr))
                        return r
                    for x in (o, dq, dk, dv):
                        x.fill_(float("nan"))
                    if ref is None:
                        notes[label] = "not timed: no SDPA backend to check it against"
                        continue
                    try:   # forward: checked, then timed
                        rc = ours_fwd()
                        torch.cuda.synchronize()
                    except (AttributeError, RuntimeError) as e:   # a launcher not in the library, a fault
                        notes[label] = str(e).splitlines()[0][:160]
                        continue
                    err = rel(o, ref[0])
                    notes[label + " check"] = f"rel diff to SDPA: O {err:.1e}"
                    if rc != 0 or not err < 1e-2:
                        notes[label] = f"WRONG forward: return code {rc}, rel diff to SDPA O {err:.1e}"
                        continue
                    fb["fwd"][label] = time_ms(ours_fwd)
                    for lab, fn in ((label, ours_fb), (label + "-atomic", ours_fb_atomic)):
                        for x in (dq, dk, dv):
                            x.fill_(float("nan"))
                        try:   # forward + backward: checked, then timed
                            rc = fn()
                            torch.cuda.synchronize()
                        except (AttributeError, RuntimeError) as e:
                            notes[lab] = "backward: " + str(e).splitlines()[0][:160]
                            continue
                        errs = [rel(a, b) for a, b in zip((dq, dk, dv), ref[1:])]
                        notes[lab + " check"] = (notes[lab + " check"] + "," if lab == label else "rel diff to SDPA:") \
                            + f" dQ {errs[0]:.1e}, dK {errs[1]:.1e}, dV {errs[2]:.1e}"
                        if any(rc) or not max(errs) < 2e-2:
                            notes[lab] = f"WRONG backward: return codes {rc}, rel diff to SDPA dQ {errs[0]:.1e}, " \
                                         f"dK {errs[1]:.1e}, dV {errs[2]:.1e}"
                            continue
                        fb["fwd+bwd"][lab] = time_ms(fn)
                for ps, mult in (("fwd", 1.0), ("fwd+bwd", 3.5)):
                    ms = {n: t[0] for n, t in fb[ps].items()}
                    rows.append({"D": D, "S": S, "B": B, "H": H, "mask": "causal" if causal else "full", "pass": ps,
                                 "flop": flops * mult, "ms": ms, "spread": {n: t[1] for n, t in fb[ps].items()},
                                 "tflops": {n: flops * mult / t / 1e9 for n, t in ms.items()},
                                 "notes": notes if ps == "fwd" else {}})
                print(progress(rows[-2:], labels), flush=True)
                del q, k, v, do
    return {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "dtype": "bf16",
            "date": datetime.date.today().isoformat(), "labels": labels, "rows": rows}


def main():
    if sys.argv[1:2] == ["--replot"]:
        res = json.load(open(sys.argv[2]))
        print(table(res))
        plot(res, os.path.splitext(sys.argv[2])[0] + ".png")
        return
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "gpu"))
    from lt import named_libs
    libs = named_libs(sys.argv[1:])
    res = bench(libs)
    jpath, ppath = out_paths()
    os.makedirs(os.path.dirname(jpath), exist_ok=True)
    with open(jpath, "w") as f:
        json.dump(res, f, indent=1)
    print(table(res))
    print(f"results: {jpath}")
    plot(res, ppath)


if __name__ == "__main__":
    main()
