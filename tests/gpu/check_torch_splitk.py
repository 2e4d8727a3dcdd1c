"""check_torch_splitk.py: on the device machine (never CI), luatile.matmul's
split-K path on sm90a: the torch op calls NAME_ws with the workspace of the
current stream (python/luatile/_kernels.py matmul_workspace; the C direct
call, _fast.c, keeps the last one a device).  Checked, each on fresh random
inputs against float64, relative error under 1e-2 (bf16):
  - the C direct call, the Python direct call and the general path (a
    strided 3-D a), at shapes that split (1x4096x4096, ...) and that do not;
  - three calls bitwise the same (the parts add in a fixed order), and each
    workspace's counters back at zero after them;
  - a CUDA graph: captured on a stream with no workspace yet (made inside the
    capture) and replayed on new inputs, twice;
  - two streams at once, each with its own workspace.
Then (--bench) times luatile.matmul, the same variant's NAME (no workspace)
and torch.matmul (cuBLAS) in the same process: triton do_bench medians, L2
flushed, three rounds in alternating order, each side's best; each shape's
op and NAME checked first against float64.  --bench-only: the timed shapes'
checks alone (a library of bf16 none variants suffices).
usage: python3 tests/gpu/check_torch_splitk.py LIB.so [--bench | --bench-only] [--layouts nt,nn] [--shapes MxNxK,...]
Prints PASS / FAIL lines (and the table)."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import luatile  # noqa: E402
from luatile import _kernels  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from lt import command_line  # noqa: E402

BENCH = "--bench" in sys.argv or "--bench-only" in sys.argv
ONLY = "--bench-only" in sys.argv
args, opts = command_line([a for a in sys.argv[1:] if a not in ("--bench", "--bench-only")])
lib = luatile.load_library(args[0], "cuda")
SPLIT = [(1, 4096, 4096), (16, 4096, 4096), (37, 4096, 8192), (64, 4096, 4096), (3, 2000, 4104), (100, 4096, 8192)]
PLAIN = [(16, 6144, 4096), (256, 512, 1024), (1000, 1000, 1008)]
fails = 0


def report(ok, what):
    global fails
    fails += not ok
    print(("PASS " if ok else "FAIL ") + what, flush=True)


def operands(M, N, K, lay, dt=torch.bfloat16):
    a = torch.randn(M, K, device="cuda", dtype=dt)
    b = torch.randn(N, K, device="cuda", dtype=dt).t() if lay == "nt" else torch.randn(K, N, device="cuda", dtype=dt)
    return a, b


def reference(a, b, bias, act):
    z = a.double() @ b.double()
    if bias is not None:
        z = z + bias.double()
    return {None: z, "gelu": 0.5 * z * (1 + torch.erf(z / 2 ** 0.5))}[act]


def rel(out, ref):
    return ((out.double() - ref).norm() / ref.norm()).item()


def counters_zero():
    torch.cuda.synchronize()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    n = (sms * 4 + 255) // 256 * 256
    return all(int(w[:n].count_nonzero()) == 0 for w in _kernels._WORKSPACES.values())


def check_calls(how):
    for (M, N, K) in SPLIT + PLAIN:
        for lay, act in (("nt", None), ("nn", None), ("nt", "gelu")):
            a, b = operands(M, N, K, lay)
            bias = torch.randn(N, device="cuda", dtype=a.dtype) if act else None
            if how == "general":   # a strided 3-D a: the general path (a copy, then the launcher)
                a = torch.randn(2, M, K + 8, device="cuda", dtype=a.dtype)[:, :, :K]
                ref = reference(a.reshape(2 * M, K), b, bias, act).reshape(2, M, N)
            else:
                ref = reference(a, b, bias, act)
            outs = [luatile.matmul(a, b, bias, act) for _ in range(3)]
            e = rel(outs[0], ref)
            same = all(torch.equal(outs[0], o) for o in outs[1:])
            report(e < 1e-2 and same and not outs[0].isnan().any().item(),
                   f"{how} {M}x{N}x{K} {lay} {act or 'none'}: rel err {e:.1e}, three calls bitwise equal: {same}")
    report(counters_zero(), f"{how}: every workspace's counters are zero after the calls ({len(_kernels._WORKSPACES)})")


def check_graph():
    M, N, K = 1, 4096, 4096
    a, b = operands(M, N, K, "nt")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    g = torch.cuda.CUDAGraph()
    before = len(_kernels._WORKSPACES)
    with torch.cuda.graph(g, stream=s):   # this stream's first matmul: its workspace is made in the capture
        out = luatile.matmul(a, b)
    report(len(_kernels._WORKSPACES) == before + 1, "graph: the capture stream got a workspace of its own")
    for i in range(2):
        a.copy_(torch.randn_like(a))
        b.copy_(torch.randn_like(b))
        g.replay()
        torch.cuda.synchronize()
        e = rel(out, reference(a, b, None, None))
        report(e < 1e-2, f"graph replay {i}: 1x4096x4096 nt rel err {e:.1e}")
    report(counters_zero(), "graph: the counters are zero after the replays")


def check_streams():
    M, N, K = 16, 4096, 4096
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    ins = [operands(M, N, K, "nt") for _ in range(2)]
    torch.cuda.synchronize()
    outs = [[], []]
    for _ in range(8):
        for i, s in enumerate((s1, s2)):
            with torch.cuda.stream(s):
                outs[i].append(luatile.matmul(*ins[i]))
    torch.cuda.synchronize()
    for i in range(2):
        ref = reference(*ins[i], None, None)
        e = max(rel(o, ref) for o in outs[i])
        report(e < 1e-2, f"two streams at once: stream {i} 16x4096x4096 nt, 8 calls, worst rel err {e:.1e}")
    report(counters_zero(), "two streams: the counters are zero after the calls")


def bench(shapes):
    import triton.testing
    print("# luatile.matmul (torch op, NAME_ws with the stream's workspace) | NAME (no workspace) | torch.matmul; "
          "TFLOP/s, ratio to cuBLAS", flush=True)
    for (M, N, K) in shapes:
        for lay in opts.get("--layouts", "nt,nn").split(","):
            a, b = operands(M, N, K, lay)
            out = torch.full((M, N), float("nan"), device="cuda", dtype=a.dtype)
            fn = lib.fn(f"matmul_bf16_none_{lay}")
            ldb = b.stride(0) if lay == "nn" else b.stride(1)

            def plain():
                fn(out.data_ptr(), a.data_ptr(), b.data_ptr(), out.data_ptr(), 1, M, N, K, M * N, N, 0, K, 0, ldb,
                   1.0, 0.0, torch.cuda.current_stream().cuda_stream)
            ref = reference(a, b, None, None)
            plain()
            e_op, e_plain = rel(luatile.matmul(a, b), ref), rel(out, ref)
            report(e_op < 1e-2 and e_plain < 1e-2, f"bench {M}x{N}x{K} {lay}: rel err op {e_op:.1e}, plain {e_plain:.1e}")
            sides = {"luatile": lambda: luatile.matmul(a, b), "plain": plain, "cuBLAS": lambda: torch.matmul(a, b)}
            best = {k: float("inf") for k in sides}
            for r in range(3):
                for k in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
                    best[k] = min(best[k], triton.testing.do_bench(sides[k], warmup=25, rep=100,
                                                                   return_mode="median"))
            tf = {k: 2 * M * N * K / (v * 1e-3) / 1e12 for k, v in best.items()}
            print(f"bf16 {lay} {M}x{N}x{K}: luatile {tf['luatile']:.1f} ({tf['luatile'] / tf['cuBLAS']:.2f}x) | "
                  f"plain {tf['plain']:.1f} ({tf['plain'] / tf['cuBLAS']:.2f}x) | cuBLAS {tf['cuBLAS']:.1f} | "
                  f"op / plain {best['plain'] / best['luatile']:.2f}", flush=True)


mod = _kernels.bind_fast(True)
report(mod is not None, f"the call module's C direct calls are bound ({lib})")
if not ONLY:
    check_calls("C-direct")
    _kernels.bind_fast(False)
    check_calls("Python-direct")
    check_calls("general")
    mod = _kernels.bind_fast(True)
    check_graph()
    check_streams()
if BENCH:
    bench([tuple(int(x) for x in s.split("x")) for s in opts.get(
        "--shapes", "1x4096x4096,16x4096x4096,37x4096x8192,64x4096x4096,100x4096x8192,16x6144x4096").split(",")])
print(f"{'FAIL' if fails else 'PASS'} check_torch_splitk: {fails} failed", flush=True)
