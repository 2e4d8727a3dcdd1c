"""ctypes_example.py: calls the generated forward launcher attention_bf16_d128
on PyTorch tensors through ctypes, with no extension to build.

`attention(q, k, v, ...)` takes q [B, Sq, Hq, 128] and k, v [B, Sk, Hkv, 128]
bf16 tensors of any strides whose last dim is contiguous (the [B, S, H, D]
layout of most projects, or a transposed [B, H, S, D] view), passes the
device pointers, the sizes, the strides in the launcher's (batch, head,
sequence) order and the current stream, and returns o like q and the f32
log-sum-exp [B, Hq, Sq].  The script then checks one call against a
float64 reference and exits 1 if they differ.

  make cuda-so && python3 ctypes_example.py build/libattention_cuda.so
  make cpu-so && python3 ctypes_example.py --cpu build/libattention_cpu.so   (c target, CPU tensors)
"""
import ctypes
import math
import sys

import torch

I64, I32, F32, PTR = ctypes.c_int64, ctypes.c_int, ctypes.c_float, ctypes.c_void_p


def load(path):
    """The launcher of a shared library built from attention_bf16_d128.{cu,c}, with its prototype."""
    fn = ctypes.CDLL(path).attention_bf16_d128
    fn.restype = I32
    fn.argtypes = [PTR] * 5 + [I32] * 5 + [I64] * 12 + [F32, I32, I32, PTR]
    return fn


def attention(fn, q, k, v, causal=False, window=(-1, -1), scale=None):
    """o, lse = softmax(scale q k^T over the visible keys) v (docs/attention.md), heads last but one."""
    B, Sq, Hq, D = q.shape
    Sk, Hkv = k.shape[1], k.shape[2]
    assert D == 128 and q.dtype == k.dtype == v.dtype == torch.bfloat16 and Hq % Hkv == 0
    assert all(t.stride(-1) == 1 for t in (q, k, v)), "the head dim must be contiguous"
    o = torch.empty_like(q)
    lse = torch.empty(B, Hq, Sq, dtype=torch.float32, device=q.device)
    wl, wr = (-1, 0) if causal else window
    scale = 1 / math.sqrt(D) if scale is None else scale
    stream = torch.cuda.current_stream(q.device).cuda_stream if q.is_cuda else None

    def bhs(t):   # strides in elements, in the launcher's (batch, head, sequence) order
        return t.stride(0), t.stride(2), t.stride(1)

    rc = fn(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(), B, Hq, Sq, Hkv, Sk,
            *bhs(q), *bhs(k), *bhs(v), *bhs(o), scale, wl, wr, stream)
    if rc != 0:
        raise RuntimeError(f"attention_bf16_d128 returned {rc}")
    return o, lse


def reference(q, k, v, causal, scale):
    """float64 attention of [B, S, H, D] tensors (bottom-right causal), and its LSE."""
    q, k, v = (t.double().transpose(1, 2) for t in (q, k, v))   # [B, H, S, D]
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
    s = scale * q @ k.transpose(-1, -2)
    if causal:
        Sq, Sk = s.shape[-2], s.shape[-1]
        i = torch.arange(Sq, device=s.device)[:, None]
        j = torch.arange(Sk, device=s.device)[None, :]
        s = s.masked_fill(j > i + Sk - Sq, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    return (torch.softmax(s, dim=-1) @ v).transpose(1, 2), lse


def main():
    args = [a for a in sys.argv[1:] if a != "--cpu"]
    device = "cpu" if "--cpu" in sys.argv else "cuda"
    fn = load(args[0] if args else "build/libattention_cuda.so")
    torch.manual_seed(0)
    B, S, Hq, Hkv, D = 2, 300, 8, 2, 128
    q = torch.randn(B, S, Hq, D, device=device).to(torch.bfloat16)
    k = torch.randn(B, S, Hkv, D, device=device).to(torch.bfloat16)
    v = torch.randn(B, S, Hkv, D, device=device).to(torch.bfloat16)
    o, lse = attention(fn, q, k, v, causal=True)
    if device == "cuda":
        torch.cuda.synchronize()
    ref, ref_lse = reference(q, k, v, True, 1 / math.sqrt(D))
    err = ((o.double() - ref).norm() / ref.norm()).item()
    lse_err = (lse.double() - ref_lse).abs().max().item()
    ok = err < 1e-2 and lse_err < 1e-3   # bf16 inputs and output, f32 inside
    print(f"attention_bf16_d128 on {device}: B={B} S={S} Hq={Hq} Hkv={Hkv} D={D} causal: "
          f"O relative error {err:.1e}, LSE error {lse_err:.1e}: {'ok' if ok else 'WRONG'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
