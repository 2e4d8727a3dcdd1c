#!/usr/bin/env python3
"""bench/torch_overhead.py: the Python cost of a luatile call, on CPU tensors.

    python3 bench/torch_overhead.py [-n 5000] [--real] [--profile NAME]

The `c` library's calls go through the same Python as the GPU's (checks,
allocation, variant lookup, ctypes), so on CPU tensors the time of a call less
its kernel's is that overhead.  The c kernels of a tiny matmul or attention
still take hundreds of us, so by default the calls go to a stub library built
here (build/bench/libluatile_c.so: every launcher of build/lib/libluatile_c.h
with the same prototype, returning 0 at once); --real uses the c library.
For each case: the entry point in eager inference (direct call), the same
through the operator (luatile.direct_calls = False), and the launcher alone
with its arguments ready (ctypes, and the kernel with --real); `over` is the
time above the launcher alone.  Three tables: the launchers through ctypes with
the Python fast calls (_kernels.*_fast), through the call module with the same,
and through the call module with its C fast calls (python/luatile/_fast.c,
what the package uses where there is a call module).  Times are the best of 15 runs of n calls
(time.thread_time_ns: this thread's CPU time, which other
processes on a loaded machine disturb less than the wall clock), in us a call.  --profile NAME runs cProfile over n
calls of that case's entry point.  Needs build/lib/libluatile_c.h (./build.sh
lib c) and a C compiler (cc, or $CC).
"""
import cProfile
import importlib.util
import os
import pstats
import re
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# --pkg DIR: the luatile package from DIR (another version, to compare) rather than python/
sys.path.insert(0, sys.argv[sys.argv.index("--pkg") + 1] if "--pkg" in sys.argv else os.path.join(REPO, "python"))

import torch  # noqa: E402

import luatile  # noqa: E402


def stub_library():
    """build/bench/libluatile_c.so: the c library's launchers as stubs that return 0
    (and its call module, where this Python has headers)."""
    hdr = os.path.join(REPO, "build", "lib", "libluatile_c.h")
    d = os.path.join(REPO, "build", "bench")
    os.makedirs(d, exist_ok=True)
    lines = open(hdr).read().splitlines()
    src = ["#include <stdint.h>"] + [re.sub(r";$", " { return 0; }", ln) for ln in lines if ln.startswith("int ")]
    with open(os.path.join(d, "stub.c"), "w") as f:
        f.write("\n".join(src) + "\n")
    with open(os.path.join(d, "libluatile_c.h"), "w") as f:
        f.write("\n".join(lines) + "\n")
    so = os.path.join(d, "libluatile_c.so")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", so, os.path.join(d, "stub.c")],
                   check=True)
    spec = importlib.util.spec_from_file_location("_calls", os.path.join(REPO, "python", "luatile", "_calls.py"))
    calls = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calls)
    try:
        calls.build(os.path.join(d, "libluatile_c.h"))
    except SystemExit as e:
        print(f"# no call module for the stub library: {e}")
    return so


# CPU time of this thread: other processes on a shared machine take less off it than off the wall clock
_clock = time.thread_time_ns


def per_call(fn, n, reps=15):
    for _ in range(min(n, 200)):
        fn()
    best = float("inf")
    for _ in range(reps):
        t0 = _clock()
        for _ in range(n):
            fn()
        best = min(best, (_clock() - t0) / n / 1e3)
    return best


def cases():
    bf = torch.bfloat16
    x = torch.randn(1, 32).to(bf)
    w = torch.randn(32).to(bf)
    a = torch.randn(2, 8).to(bf)
    b = torch.randn(8, 8).to(bf)
    bias = torch.randn(8).to(bf)
    q = torch.randn(1, 1, 2, 32).to(bf)
    y = torch.empty_like(x)
    o, lse = torch.empty_like(q), torch.empty(1, 1, 2)
    mo = torch.empty(2, 8).to(bf)
    lib = luatile.library(x.device)
    px, pw, py, pa, pb, pbias, pq, po, plse, pmo = (t.data_ptr() for t in (x, w, y, a, b, bias, q, o, lse, mo))
    f = lib.fn
    qs = (64, 64, 32)
    cases.keep = (x, w, y, a, b, bias, q, o, lse, mo)   # the launchers' buffers live as long as the cases
    return [
        ("rms_norm bf16 1x32", lambda: luatile.rms_norm(x, (32,), w, 1e-6),
         (f("rmsnorm_bf16"), (px, pw, py, 1, 32, 1e-6, None))),
        ("layer_norm bf16 1x32", lambda: luatile.layer_norm(x, (32,), w, w),
         (f("layernorm_bf16"), (px, pw, pw, py, 1, 32, 1e-5, None))),
        ("softmax bf16 1x32", lambda: luatile.softmax(x, -1),
         (f("softmax_bf16"), (px, py, 1, 32, None))),
        ("matmul+bias+gelu bf16 2x8x8", lambda: luatile.matmul(a, b, bias, "gelu"),
         (f("matmul_bf16_bias_gelu_nn"), (pmo, pa, pb, pmo, pbias, 1, 2, 8, 8, 16, 8, 0, 8, 0, 8, 1.0, 0.0, None))),
        ("attention bf16 1x1x2x32 causal", lambda: luatile.scaled_dot_product_attention(q, q, q, is_causal=True),
         (f("attention_bf16_d32"), (pq, pq, pq, po, plse, 1, 1, 2, 1, 2, *qs, *qs, *qs, *qs, 0.17, -1, 0, None))),
        ("add bf16 32", lambda: luatile.add(x, x), (f("add_bf16"), (px, px, py, 32, None))),
    ]


def table(n, how):
    cs = cases()
    lib = luatile.library(torch.device("cpu"))
    print(f"{'op (CPU tensors), ' + how:40} {'launcher':>8} {'entry':>7} {'over':>6} {'via op':>7} {'over':>6}")
    for name, entry, (f, args) in cs:
        raw = per_call(lambda: f(*args), n)
        e = per_call(entry, n)
        luatile.direct_calls = False
        try:
            op = per_call(entry, n)
        finally:
            luatile.direct_calls = True
        print(f"{name:40} {raw:8.2f} {e:7.2f} {e - raw:6.2f} {op:7.2f} {op - raw:6.2f}")
    return lib


def main(argv):
    n = int(argv[argv.index("-n") + 1]) if "-n" in argv else 5000
    path = stub_library() if "--real" not in argv else luatile.library(torch.device("cpu")).path
    kind = "the c kernels" if "--real" in argv else "stub launchers (no kernel)"
    if "--profile" in argv:
        luatile.load_library(path, "cpu")
        want = argv[argv.index("--profile") + 1]
        fn = next(c[1] for c in cases() if c[0].startswith(want))
        per_call(fn, 200)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(n):
            fn()
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return 0
    print(f"# torch {torch.__version__}, luatile custom ops: {luatile.HAVE_CUSTOM_OP}, {kind}; "
          f"best of 15 x {n} calls, us a call (thread CPU time)")
    modes = [("ctypes", "1", False)]
    if hasattr(luatile.Library, "ctypes_fn"):   # an older package (--pkg) has no call module
        modes.append(("call module", "0", False))
    if hasattr(luatile._kernels, "bind_fast"):   # nor (older still) the C fast calls
        modes[-1] = ("call module, Python checks", "0", False)
        modes.append(("call module, C checks", "0", True))
    for how, no_calls, c_checks in modes:
        os.environ["LUATILE_NO_CALLS"] = no_calls
        lib = luatile.load_library(path, "cpu")
        if no_calls == "0" and getattr(lib, "calls", None) is None:
            print("# no call module beside", path)
            continue
        if hasattr(luatile._kernels, "bind_fast"):
            luatile._kernels.bind_fast(use_c=c_checks)
        table(n, how)
    print("(launcher: the launcher alone, arguments ready (and the kernel with --real); entry: the entry point in")
    print(" eager inference (direct call); via op: through the operator (luatile.direct_calls = False);")
    print(" over: minus the launcher alone)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
