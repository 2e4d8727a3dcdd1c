"""attention_decode.py: checks the generated split-KV decode kernels
(dsl/kernels/attention_decode.lua) on the GPU against a torch float64
reference, then times them beside a device-to-device copy and torch SDPA
(the best of its backends that runs) in the same process.

Checks (every library given): contiguous and paged caches (pages of 16
and 256, shuffled; pages of 256 also through the paged launcher of 16-key
blocks), Sq in {1, 2, 3, 4, 16}, GQA 8:1, 4:1 and 1:1 (the paged launcher's
rows16 build up to 16 rows a KV head, rows64 past it), ragged lengths with
a 0 among them, a softcap and a left window; O (bf16 or f16) by ||out - ref|| / ||ref|| < 1e-2 and LSE
within 1e-3 (relative) with +inf where a row sees no key; outputs and the
workspace poisoned (NaN) first.  A library that fails is not timed.

Timing: bf16, D 128, Hq 32 / Hkv 8, Sq 1 (and 4, 16 at B = 8), B in
{1, 8, 64}, cache S in {1K, 4K, 16K, 64K, 128K} tokens (every sequence S
long; B x S capped at 2M tokens, 8.6 GB of K and V), and two sizes off
that grid (B 3 x 5000, B 20 x 37000), contiguous and paged (16: the paged
launcher; 256: paged64).  A call of ours is the split launcher then the
combine launcher.  Each call (ours and SDPA's) is captured in a CUDA graph
and the graph replayed (as a serving loop runs decode steps; the time is
the GPU's, not Python's): median time of triton.testing.do_bench (CUDA
events, L2 flushed before each replay); `eager` is our call from Python
through ctypes, as it was timed before 2026-11-25.  Bandwidth: the bytes
of K and V read (2 B S Hkv D 2) / time; copy: a device-to-device copy of
2 GB, (read + written) / time.  SDPA gets [B, H, S, D] views of the same
cache with enable_gqa=True (Sq > 1: a bottom-right causal mask).

usage: python3 bench/attention_decode.py LABEL=LIB.so [LABEL=LIB.so ...]
       (the first library is timed; the others only checked)
  CACHES=contig,page16,page256: the caches timed (default all three);
  SDPA=0: SDPA not timed (a second run that times another library);
  BESIDE=LABEL[,LABEL]: those libraries timed too, at each point right after the
    first (same buffers, same process), as "LABEL us, first's speedup over it";
  PLAIN=LABEL[,LABEL]: libraries built without the softcap and window code
    (a measurement): their checks leave out the cases with either.
Writes attention_decode.txt to $OUT (else bench/results/<date>-attention-decode.txt)."""
import ctypes
import datetime
import math
import os
import sys

import warnings

import torch

P, I, L64, F = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_float


class Lib:
    """The launchers of one library: contig, (paged, paged64), combine and workspace_rows per (dtype, D)."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)

    def fns(self, dt, D):
        n = f"attention_decode_{dt}_d{D}"
        c = getattr(self.lib, n + "_contig")
        c.argtypes = [P] * 5 + [I] * 6 + [L64] * 9 + [F, F, I, P]
        p = getattr(self.lib, n + "_paged"), getattr(self.lib, n + "_paged64")
        for f in p:
            f.argtypes = [P] * 6 + [I] * 8 + [L64] * 9 + [F, F, I, P]
        m = getattr(self.lib, n + "_combine")
        m.argtypes = [P] * 3 + [I] * 5 + [L64] * 3 + [P]
        r = getattr(self.lib, n + "_contig_workspace_rows")
        r.argtypes = [I] * 4
        r.restype = ctypes.c_int64
        return c, p, m, r


def ptr(t):
    return ctypes.c_void_p(t.data_ptr())


def kv_strides(t):
    """A cache's strides in the launcher's order: the kernel declares [B, Hkv, S, D] ([pages, Hkv, PS, D])
    over [B, S, Hkv, D] memory."""
    return L64(t.stride(0)), L64(t.stride(2)), L64(t.stride(1))


class Call:
    """One decode call's buffers and launches: q [B, Sq, Hq, D], the cache (contiguous [B, S, Hkv, D]
    or paged [NP, PS, Hkv, D] with a block table), lengths, the workspace, O and LSE."""

    def __init__(self, lib, dt, q, lens, Hkv, k, v, bt=None, softcap=0.0, window_left=-1, narrow=False):
        self.c, self.p, self.m, rows = lib.fns("bf16" if dt == torch.bfloat16 else "f16", q.shape[3])
        self.q, self.lens, self.k, self.v, self.bt, self.Hkv = q, lens, k, v, bt, Hkv
        B, Sq, Hq, D = q.shape
        self.rows = rows(B, Sq, Hq, Hkv)
        assert self.rows > 0
        self.ws = torch.full((B, Hkv, self.rows, D + 4), float("nan"), device=q.device)
        self.o = torch.full_like(q, float("nan"))
        self.lse = torch.full((B, Hq, Sq), float("nan"), device=q.device)
        self.stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        self.scale = 1 / math.sqrt(D)
        self.softcap, self.wl = softcap, window_left
        self.narrow = narrow   # the paged launcher (16-key blocks) whatever the page size

    def __call__(self):
        q, k, v = self.q, self.k, self.v
        B, Sq, Hq, D = q.shape
        self.stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)   # (a graph captures on its own)
        qs = [L64(x) for x in q.stride()[:3]]
        if self.bt is None:
            rc = self.c(ptr(q), ptr(k), ptr(v), ptr(self.lens), ptr(self.ws), B, Sq, Hq, self.Hkv, k.shape[1],
                        self.rows, *qs, *kv_strides(k), *kv_strides(v), self.scale, self.softcap, self.wl, self.stream)
        else:
            paged = self.p[1] if k.shape[1] % 64 == 0 and not self.narrow else self.p[0]   # paged64 where the pages allow
            rc = paged(ptr(q), ptr(k), ptr(v), ptr(self.bt), ptr(self.lens), ptr(self.ws), B, Sq, Hq, k.shape[0],
                        self.Hkv, k.shape[1], self.bt.shape[1], self.rows, *qs, *kv_strides(k),
                        *kv_strides(v), self.scale, self.softcap, self.wl, self.stream)
        assert rc == 0, f"split launcher returned {rc}"
        rc = self.m(ptr(self.o), ptr(self.lse), ptr(self.ws), B, Sq, Hq, self.Hkv, self.rows,
                    *[L64(x) for x in self.o.stride()[:3]], self.stream)
        assert rc == 0, f"combine launcher returned {rc}"


def reference(q, kc, vc, lens, G, softcap=0.0, window_left=-1):
    """float64 O [B, Sq, Hq, D] and LSE [B, Hq, Sq] from a contiguous cache [B, S, Hkv, D]: query s sees keys
    n - Sq + s - window_left (window_left >= 0) .. n - Sq + s; logits softcap tanh(logit / softcap) (softcap > 0)."""
    B, Sq, Hq, D = q.shape
    o = torch.zeros(q.shape, dtype=torch.float64, device=q.device)
    lse = torch.full((B, Hq, Sq), math.inf, dtype=torch.float64, device=q.device)
    for b in range(B):
        n = int(lens[b])
        if n == 0:
            continue
        qb = q[b].double().transpose(0, 1)                                   # [Hq, Sq, D]
        kb = kc[b, :n].double().transpose(0, 1).repeat_interleave(G, 0)     # [Hq, n, D]
        vb = vc[b, :n].double().transpose(0, 1).repeat_interleave(G, 0)
        s = qb @ kb.transpose(1, 2) / math.sqrt(D)                           # [Hq, Sq, n]
        if softcap > 0:
            s = softcap * torch.tanh(s / softcap)
        key = torch.arange(n, device=q.device)
        own = (n - Sq + torch.arange(Sq, device=q.device))[:, None]
        vis = key[None, :] <= own
        if window_left >= 0:
            vis &= key[None, :] >= own - window_left
        s = s.masked_fill(~vis[None], -math.inf)
        m = s.amax(-1, keepdim=True)
        seen = torch.isfinite(m)
        p = torch.where(seen, torch.exp(s - torch.where(seen, m, 0)), 0)
        l_ = p.sum(-1, keepdim=True)
        o[b] = torch.where(l_ > 0, (p @ vb) / l_, 0).transpose(0, 1)
        lse[b] = torch.where(l_ > 0, m + torch.log(l_), math.inf)[..., 0]
    return o, lse


def paged_copy(kc, PS, gen):
    """The contiguous cache kc [B, S, Hkv, D] as pages of PS rows in shuffled order (and a spare page):
    the pages [NP, PS, Hkv, D] and the block table [B, S / PS] int32."""
    B, S, Hkv, D = kc.shape
    MP = (S + PS - 1) // PS
    NP = B * MP + 1
    perm = torch.randperm(NP, generator=gen).to(kc.device)
    pages = torch.randn((NP, PS, Hkv, D), device=kc.device).to(kc.dtype)
    bt = perm[:B * MP].view(B, MP).to(torch.int32).contiguous()
    padded = torch.zeros((B, MP * PS, Hkv, D), device=kc.device, dtype=kc.dtype)
    padded[:, :S] = kc
    pages[bt.flatten().long()] = padded.view(B * MP, PS, Hkv, D)
    return pages, bt


def check(lib, label, log):
    """Every check case on library lib; returns the number of failures."""
    gen = torch.Generator().manual_seed(1)
    fails = 0
    # dtype, D, B, Sq, Hq, Hkv, S, page size (0: contiguous; < 0: pages of -PS through the paged launcher of
    # 16-key blocks, not paged64), softcap (0: none), window_left (-1: none)
    cases = [
        (torch.bfloat16, 128, 5, 1, 32, 8, 1000, 0, 0, -1), (torch.bfloat16, 128, 3, 4, 8, 8, 777, 0, 0, -1),
        (torch.bfloat16, 128, 4, 16, 32, 8, 300, 0, 0, -1), (torch.float16, 64, 6, 1, 8, 2, 2050, 0, 0, -1),
        (torch.bfloat16, 128, 5, 1, 32, 8, 1000, 16, 0, -1), (torch.bfloat16, 128, 3, 4, 8, 8, 777, 256, 0, -1),
        (torch.bfloat16, 128, 4, 16, 32, 8, 300, 16, 0, -1), (torch.float16, 64, 2, 4, 8, 2, 4100, 256, 0, -1),
        (torch.bfloat16, 128, 1, 1, 32, 8, 70000, 0, 0, -1), (torch.bfloat16, 128, 1, 1, 32, 8, 70000, 16, 0, -1),
        (torch.bfloat16, 128, 5, 4, 32, 8, 3000, 0, 1.0, -1), (torch.bfloat16, 128, 5, 4, 32, 8, 3000, 0, 0, 700),
        (torch.bfloat16, 128, 3, 1, 32, 8, 5000, 16, 1.0, 1000), (torch.float16, 64, 4, 16, 8, 2, 2000, 256, 1.0, 100),
        # the paged launcher's two builds on either side of 16 rows a KV head (Sq x Hq / Hkv)
        (torch.bfloat16, 128, 6, 1, 64, 8, 3000, 16, 0, -1), (torch.bfloat16, 128, 6, 2, 64, 8, 3000, 16, 0, -1),
        (torch.bfloat16, 128, 6, 3, 64, 8, 3000, 16, 0, -1), (torch.bfloat16, 128, 6, 4, 32, 8, 3000, 16, 0, -1),
        (torch.bfloat16, 128, 4, 16, 8, 8, 2000, 16, 0, -1), (torch.bfloat16, 128, 4, 17, 8, 8, 2000, 16, 0, -1),
        (torch.bfloat16, 128, 5, 1, 32, 8, 4000, -256, 0, -1), (torch.bfloat16, 128, 5, 16, 64, 8, 4000, -256, 0, -1),
        (torch.float16, 64, 7, 2, 64, 8, 1500, 16, 1.0, 200), (torch.bfloat16, 128, 64, 1, 32, 8, 1024, 16, 0, -1),
    ]
    plain = label in os.environ.get("PLAIN", "").split(",")
    for dt, D, B, Sq, Hq, Hkv, S, PS, cap, wl in cases:
        if plain and (cap or wl >= 0):
            log(f"SKIP {label}: softcap {cap}, window_left {wl} (built without either)")
            continue
        narrow, PS = PS < 0, abs(PS)
        q = torch.randn((B, Sq, Hq, D), generator=gen).to("cuda", dt)
        kc = torch.randn((B, S, Hkv, D), generator=gen).to("cuda", dt)
        vc = torch.randn((B, S, Hkv, D), generator=gen).to("cuda", dt)
        lens = torch.randint(1, S + 1, (B,), generator=gen, dtype=torch.int32)
        if B > 1:
            lens[1] = 0
        lens[0] = S
        lens = lens.cuda()
        if PS:
            kp, bt = paged_copy(kc, PS, gen)
            vp = torch.empty_like(kp)
            vp[bt.flatten().long()] = torch.nn.functional.pad(vc, (0, 0, 0, 0, 0, bt.shape[1] * PS - S)).view(
                -1, PS, Hkv, D)
            call = Call(lib, dt, q, lens, Hkv, kp, vp, bt, cap, wl, narrow)
        else:
            call = Call(lib, dt, q, lens, Hkv, kc, vc, None, cap, wl)
        call()
        torch.cuda.synchronize()
        ro, rl = reference(q, kc, vc, lens.cpu(), Hq // Hkv, cap, wl)
        err = ((call.o.double() - ro).norm() / ro.norm()).item()
        inf_ok = bool(torch.equal(torch.isinf(call.lse), torch.isinf(rl)))
        fin = torch.isfinite(rl)
        lerr = ((call.lse.double()[fin] - rl[fin]).abs() / rl[fin].abs().clamp(min=1)).max().item() if fin.any() else 0
        ok = err < 1e-2 and lerr < 1e-3 and inf_ok and not torch.isnan(call.o).any().item()
        fails += not ok
        log(f"{'PASS' if ok else 'FAIL'} {label} {str(dt)[6:]} D={D} B={B} Sq={Sq} Hq={Hq} Hkv={Hkv} S={S} "
            f"{'page ' + str(PS) if PS else 'contig'}{' (16-key blocks)' if narrow else ''}{f' softcap {cap}' if cap else ''}"
            f"{f' window_left {wl}' if wl >= 0 else ''}: O rel err {err:.2e}, LSE {lerr:.1e}, inf rows ok {inf_ok}")
    return fails


def graphed(fn):
    """The median time (ms) of fn captured in a CUDA graph and replayed (L2 flushed before each replay)."""
    import triton.testing as tt
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):   # warm-up off the capture (cuDNN plans, ...)
        fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return tt.do_bench(g.replay, warmup=10, rep=100, return_mode="median")


def bench(lib, label, log, beside=()):
    """The timing grid on library lib (bf16, D 128, Hq 32, Hkv 8); beside: (label, Lib) pairs timed at each point
    after it on the same buffers."""
    import triton.testing as tt
    gen = torch.Generator().manual_seed(2)
    dt, D, Hq, Hkv = torch.bfloat16, 128, 32, 8
    n = 1 << 30
    a, b2 = torch.empty(n, dtype=torch.uint8, device="cuda"), torch.empty(n, dtype=torch.uint8, device="cuda")
    t = tt.do_bench(lambda: b2.copy_(a), warmup=50, rep=300, return_mode="median")
    copy_bw = 2 * n / (t * 1e-3) / 1e12
    del a, b2
    log(f"copy: {copy_bw:.2f} TB/s (1 GB read + 1 GB written)")
    log(f"{'B':>3} {'Sq':>3} {'S':>7} {'cache':>7} | {'us':>8} {'TB/s':>6} {'%copy':>6} {'eager':>7} | {'sdpa us':>8}"
        f" {'backend':>9} {'x sdpa':>7}" + "".join(f" | {n + ' us':>9} {'x ' + n:>8}" for n, _ in beside))
    points = [(B, 1, S) for B in (1, 8, 64) for S in (1024, 4096, 16384, 65536, 131072) if B * S <= (1 << 21)]
    points += [(8, Sq, S) for Sq in (4, 16) for S in (4096, 65536)]
    points += [(3, 1, 5000), (20, 1, 37000)]   # off the grid
    for B, Sq, S in points:
        q = torch.randn((B, Sq, Hq, D), generator=gen).to("cuda", dt)
        kc = torch.randn((B, S, Hkv, D), device="cuda").to(dt)
        vc = torch.randn((B, S, Hkv, D), device="cuda").to(dt)
        lens = torch.full((B,), S, dtype=torch.int32, device="cuda")
        kv_bytes = 2 * B * S * Hkv * D * 2
        sd = None
        caches = os.environ.get("CACHES", "contig,page16,page256").split(",")
        qt, kt, vt = q.transpose(1, 2), kc.transpose(1, 2), vc.transpose(1, 2)
        mask = None
        if Sq > 1:
            mask = torch.arange(S, device="cuda")[None, :] <= (S - Sq + torch.arange(Sq, device="cuda"))[:, None]
        from torch.nn.attention import SDPBackend, sdpa_kernel
        for name, be in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                         ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("math", SDPBackend.MATH)):
            if os.environ.get("SDPA") == "0":
                break
            if name == "math" and kv_bytes > (1 << 31):
                continue
            try:
                with sdpa_kernel([be]):
                    ts = graphed(lambda: torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask,
                                                                                          enable_gqa=True))
                if sd is None or ts < sd[1]:
                    sd = (name, ts)
            except Exception:
                pass
        for PS in (0, 16, 256):
            if ("page%d" % PS if PS else "contig") not in caches:
                continue
            if PS:
                kp, bt = paged_copy(kc, PS, gen)
                vp = torch.randn_like(kp)
                calls = [Call(x, dt, q, lens, Hkv, kp, vp, bt) for x in [lib] + [b for _, b in beside]]
            else:
                calls = [Call(x, dt, q, lens, Hkv, kc, vc) for x in [lib] + [b for _, b in beside]]
            call = calls[0]
            call()
            torch.cuda.synchronize()
            te = tt.do_bench(call, warmup=10, rep=100, return_mode="median")
            tm = graphed(call)
            tb = [graphed(c) for c in calls[1:]]
            bw = kv_bytes / (tm * 1e-3) / 1e12
            cache = "contig" if not PS else f"page{PS}"
            s = f" | {sd[1] * 1e3:8.1f} {sd[0]:>9} {sd[1] / tm:6.2f}x" if sd else " | no SDPA backend ran"
            log(f"{B:>3} {Sq:>3} {S:>7} {cache:>7} | {tm * 1e3:8.1f} {bw:6.2f} {100 * bw / copy_bw:5.0f}%"
                f" {te * 1e3:7.1f}" + s + "".join(f" | {t * 1e3:9.1f} {t / tm:7.3f}x" for t in tb))
            del call, calls
            if PS:
                del kp, vp, bt
        del q, kc, vc
        torch.cuda.empty_cache()


def main():
    warnings.filterwarnings("ignore")   # SDPA says why a backend does not run
    libs = [a.split("=", 1) for a in sys.argv[1:]]
    if not libs:
        sys.exit(__doc__)
    out = os.environ.get("OUT")
    path = os.path.join(out, "attention_decode.txt") if out else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results",
        f"{datetime.date.today().isoformat()}-attention-decode.txt")
    f = open(path, "w")

    def log(s):
        print(s, flush=True)
        f.write(s + "\n")
        f.flush()
    log(f"{torch.cuda.get_device_name()}, {torch.cuda.get_device_properties(0).multi_processor_count} SMs, "
        f"torch {torch.__version__}")
    fails = {label: check(Lib(p), label, log) for label, p in libs}
    label, p = libs[0]
    if fails[label]:
        log(f"{label} failed its checks: not timed")
        return
    names = [n for n in os.environ.get("BESIDE", "").split(",") if n]
    beside = [(n, Lib(q)) for n, q in libs if n in names and not fails[n]]
    log(f"timed: {label} ({p})" + "".join(f", beside {n}" for n, _ in beside))
    bench(Lib(p), label, log, beside)


if __name__ == "__main__":
    main()
