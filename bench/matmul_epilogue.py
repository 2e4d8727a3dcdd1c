"""matmul_epilogue.py: times each epilogue of the generated matmul (none,
bias, bias_relu, bias_gelu, bias_silu) on the same shapes and library,
beside `none`: the cost of the epilogue over the plain store.
Times: triton.testing.do_bench, median, L2 flushed between runs; the
epilogues are timed in turn, `rounds` times (every other round in reverse
order, so that neither the clocks' drift nor the order favours one), and
each keeps its best median.
usage: python3 bench/matmul_epilogue.py [--dtypes bf16,f16] [--layouts nn] [--shapes MxNxK,...] [--rounds 3] LIB.so"""
import os
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, I64, Lib, command_line  # noqa: E402

args, opts = command_line(sys.argv[1:])
lib = Lib(args[0])
DTS = opts.get("--dtypes", "bf16").split(",")
LAYOUTS = opts.get("--layouts", "nn").split(",")
SHAPES = [tuple(int(x) for x in s.split("x")) for s in opts.get("--shapes", "4096x4096x4096,8192x8192x1024").split(",")]
EPIS = ("none", "bias", "bias_relu", "bias_gelu", "bias_silu")
for dt in DTS:
    st = DTYPES[dt]
    for lay in LAYOUTS:
        for M, N, K in SHAPES:
            a = torch.randn(M, K, device="cuda", dtype=st)
            b = torch.randn(K, N, device="cuda", dtype=st) if lay == "nn" else torch.randn(N, K, device="cuda", dtype=st)
            bias = torch.randn(N, device="cuda", dtype=st)
            c = torch.empty(M, N, device="cuda", dtype=st)
            flop = 2.0 * M * N * K
            ts = {e: float("inf") for e in EPIS}
            for r in range(int(opts.get("--rounds", "3"))):
                for epi in (EPIS if r % 2 == 0 else EPIS[::-1]):
                    extra = [bias] if epi != "none" else []

                    def run():
                        return lib(f"matmul_{dt}_{epi}_{lay}", *([c, a, b, c] + extra + [1, M, N, K, I64(M * N), I64(N),
                                   I64(M * K), I64(K), I64(K * N), I64(N if lay == "nn" else K), 1.0, 0.0]))
                    rc = run()
                    torch.cuda.synchronize()
                    t = triton.testing.do_bench(run, warmup=25, rep=200, return_mode="median") if rc == 0 else float("nan")
                    ts[epi] = min(ts[epi], t)
            print(f"{dt} {lay} {M}x{N}x{K}: " + " | ".join(
                f"{e} {flop / ts[e] / 1e9:.0f} TFLOP/s ({ts['none'] / ts[e]:.3f}x none)" for e in EPIS), flush=True)
