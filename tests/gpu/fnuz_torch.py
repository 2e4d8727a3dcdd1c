"""fnuz_torch.py: the FNUZ fp8 dtypes on the GPU against torch's
float8_e4m3fnuz and float8_e5m2fnuz (run by tests/gpu/fnuz.sh):
1. CONV.so (tests/gpu/fnuz_convert.cu: templates/fp8_fnuz_dtypes.h): all
   256 codes of each FNUZ format to f32 against torch's
   .view(float8_*fnuz).float(), bit for bit (NaN: any NaN), and to f16
   pairs against torch's .half(); f32 values
   (every 2^16 high half with 16 low halves, specials) to the format
   against torch's .to(float8_*fnuz): equal wherever torch gives a code
   other than NaN for a non-NaN value; where torch gives NaN for a finite
   value or an infinity (no saturation in torch), ours must give the
   largest finite value with the sign; the least |x| where that happens is
   printed.
2. GEMM.so, gen's fnuz_gemm (tests/cpu/fnuz_gemm.lua, sm90a: mma.sync on
   f16 pairs) against float64 torch: random codes but 0x80, ragged
   shapes, C poisoned with NaN, the bound of tests/cpu/fnuz_gemm.c.
Usage: python3 tests/gpu/fnuz_torch.py CONV.so GEMM.so.  Prints PASS/FAIL
lines and the count of failures.
"""
import ctypes, sys
import torch

dev = "cuda"
fails = 0
def report(ok, what):
    global fails
    print(("PASS " if ok else "FAIL ") + what)
    fails += 0 if ok else 1

fmts = [(0, "e4m3fnuz", getattr(torch, "float8_e4m3fnuz", None), 240.0),
        (1, "e5m2fnuz", getattr(torch, "float8_e5m2fnuz", None), 57344.0)]
print("torch", torch.__version__, torch.cuda.get_device_name())
conv = ctypes.CDLL(sys.argv[1])
for fn in (conv.fnuz_dec, conv.fnuz_enc, conv.fnuz_f16x2):
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int]

# f32 inputs: every high half with 16 low halves, and specials
hi = torch.arange(65536, dtype=torch.int64) << 16
lows = torch.tensor([0, 1, 2, 0x3fff, 0x4000, 0x7fff, 0x8000, 0x8001, 0xbfff, 0xc000, 0xfffe, 0xffff,
                     0x1234, 0x5555, 0xaaaa, 0xedcb], dtype=torch.int64)
bits = (hi[:, None] | lows[None, :]).reshape(-1)
x = bits.to(torch.int32).view(torch.float32)   # wraps to the same 32 bits
specials = torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 240.0, 247.0, 247.99, 248.0, 255.9,
                         256.0, 57344.0, 61439.0, 61440.0, 65536.0, 1e-30, -1e-30, 2.0**-11, -2.0**-11, 2.0**-18],
                        dtype=torch.float32)
x = torch.cat([x, specials, -specials]).to(dev)
n = x.numel()

for fi, name, tdt, mx in fmts:
    if tdt is None:
        report(False, f"{name}: torch {torch.__version__} has no such dtype")
        continue
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8).to(dev)
    got = torch.empty(256, dtype=torch.float32, device=dev)
    assert conv.fnuz_dec(codes.data_ptr(), got.data_ptr(), 256, fi) == 0
    want = codes.view(tdt).float()
    same = (got.view(torch.int32) == want.view(torch.int32)) | (got.isnan() & want.isnan())
    report(bool(same.all()), f"{name}: 256 codes to f32 as torch's .float() ({int((~same).sum())} differ)")
    pairs = (codes.to(torch.int32) | (0x40 << 8)).to(torch.int16)   # high byte 0x40: 1.0 in both formats
    h2 = torch.empty(256, dtype=torch.int32, device=dev)
    assert conv.fnuz_f16x2(pairs.data_ptr(), h2.data_ptr(), 256, fi) == 0
    lo = (h2 & 0xffff).to(torch.int16).view(torch.float16)
    hi16 = ((h2 >> 16) & 0xffff).to(torch.int16).view(torch.float16)
    wl = codes.view(tdt).half()
    wh = torch.full((256,), 0x40, dtype=torch.uint8, device=dev).view(tdt).half()
    same = ((lo.view(torch.int16) == wl.view(torch.int16)) | (lo.isnan() & wl.isnan())) & (hi16 == wh)
    report(bool(same.all()), f"{name}: 256 codes to f16 pairs as torch's .half() ({int((~same).sum())} differ)")
    ours = torch.empty(n, dtype=torch.uint8, device=dev)
    assert conv.fnuz_enc(x.data_ptr(), ours.data_ptr(), n, fi) == 0
    theirs = x.to(tdt).view(torch.uint8)
    tnan = theirs == 0x80
    xnan = x.isnan()
    agree = (ours == theirs) & ~tnan
    sat = tnan & ~xnan   # torch: NaN for a finite value past the range or an infinity
    maxcode = torch.where(x < 0, torch.tensor(0xff, device=dev), torch.tensor(0x7f, device=dev)).to(torch.uint8)
    sat_ok = bool((ours[sat] == maxcode[sat]).all())
    nan_ok = bool((ours[xnan] == 0x80).all()) and bool((theirs[xnan] == 0x80).all())
    wrong = ~agree & ~sat & ~xnan
    least = float(x[sat & x.isfinite()].abs().min()) if bool((sat & x.isfinite()).any()) else float("nan")
    report(int(wrong.sum()) == 0, f"{name}: {n} f32 values to fp8 as torch's .to() where torch gives a number "
           f"({int(agree.sum())} agree, {int(wrong.sum())} differ)")
    report(sat_ok, f"{name}: {int(sat.sum())} values torch makes NaN (finite from |x| = {least:g} up, and infinities) "
           f"saturate to +-{mx:g} here")
    report(nan_ok, f"{name}: NaN to 0x80 (torch too)")
    if int(wrong.sum()):
        idx = wrong.nonzero()[:5, 0]
        for i in idx.tolist():
            print(f"  x {float(x[i])!r} (bits {int(x[i:i+1].view(torch.int32)) & 0xffffffff:08x}): ours 0x{int(ours[i]):02x}, torch 0x{int(theirs[i]):02x}")

# gen's fnuz_gemm on sm90a against float64
gemm = ctypes.CDLL(sys.argv[2])
torch.manual_seed(0)
for fi, name, tdt, mx in fmts:
    if tdt is None:
        continue
    fn = getattr(gemm, f"fnuz_gemm_fp8{name}")
    fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int] * 3 + [ctypes.c_float, ctypes.c_void_p]
    for M, N, K in [(1, 1, 1), (257, 129, 200), (1000, 777, 513), (64, 4096, 1024)]:
        A = torch.randint(0, 255, (M, K), dtype=torch.int32, device=dev)
        B = torch.randint(0, 255, (N, K), dtype=torch.int32, device=dev)
        A = torch.where(A >= 0x80, A + 1, A).to(torch.uint8)   # every code but 0x80
        B = torch.where(B >= 0x80, B + 1, B).to(torch.uint8)
        scale = 2.0 ** -12
        C = torch.full((M, N), float("nan"), dtype=torch.float32, device=dev)
        rc = fn(A.data_ptr(), B.data_ptr(), C.data_ptr(), M, K, N, scale, None)
        torch.cuda.synchronize()
        a, b = A.view(tdt).double(), B.view(tdt).double()
        want = (a @ b.T) * scale
        mag = (a.abs() @ b.abs().T) * scale
        tol = want.abs() * 2.0**-23 + mag * K * 2.0**-23 + 1e-30
        err = (C.double() - want).abs()
        bad = int((~(err <= tol)).sum())
        report(rc == 0 and bad == 0, f"fnuz_gemm sm90a {name} {M}x{N}x{K}: {bad} of {M * N} outside the bound "
               f"(worst {float((err / tol).max()):.3f} of it)")
print(f"{fails} failed")
