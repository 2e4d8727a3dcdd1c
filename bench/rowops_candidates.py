"""rowops_candidates.py: the configs the row-op sweep tries, one line each:
KERNEL DTYPE KEY=VALUE... (gen's -D values).  The rule under test is
single-pass rows (BC = the row length rounded up to a power of two, the
whole row in registers) with 1 to 4 vectors a thread, several rows a
program while a program would hold under 4096 elements; and, for rows too
long for registers, BC-wide chunks in two passes.
usage: python3 bench/rowops_candidates.py [--two-pass] [--only KERNELS DTYPES BCMIN BCMAX] > candidates.txt
  --only softmax,rmsnorm bf16 1024 32768: those kernels and dtypes, one row a
  program, chunk widths in [BCMIN, BCMAX] (a sweep of a few row lengths)"""
import sys

VEC = {"bf16": 8, "f16": 8, "f32": 4}   # elements in a 16-byte access


def row_configs(dt):
    """softmax / RMSNorm / LayerNorm configs for dtype dt: BC from 128 to
    32768, RB while a program holds at most 8192 elements, 1 to 4 vectors a
    thread, 32 to 1024 threads."""
    v = VEC[dt]
    out = []
    bc = 128
    while bc <= 32768:
        rbs = [rb for rb in (1, 2, 4, 8, 16, 32) if rb == 1 or bc * rb <= 8192]
        for rb in rbs:
            n = bc * rb
            for ept in (v, 2 * v, 4 * v):
                t = n // ept
                if 32 <= t <= 1024 and n % ept == 0 and n * (2 if dt == "f32" else 1) <= 32768:
                    out.append(dict(BC=bc, RB=rb, threads=t))
        bc *= 2
    return out


def main():
    """Prints every candidate, one line each."""
    two_pass = "--two-pass" in sys.argv   # only the chunk widths a mid-length row takes in two passes
    only = sys.argv[sys.argv.index("--only") + 1:][:4] if "--only" in sys.argv else None
    for k in ("softmax", "rmsnorm", "layernorm"):
        for dt in VEC:
            if only and (k not in only[0].split(",") or dt not in only[1].split(",")):
                continue
            for c in row_configs(dt):
                if only and not (c["RB"] == 1 and int(only[2]) <= c["BC"] <= int(only[3])):
                    continue
                if not two_pass or (512 <= c["BC"] <= 4096 and c["RB"] <= 4):
                    print(k, dt, " ".join(f"{a}={b}" for a, b in c.items()))
    if two_pass or only:
        return
    for dt in VEC:
        for block in (1024, 2048, 4096, 8192, 16384):
            for t in (128, 256, 512, 1024):
                if VEC[dt] <= block // t <= 8 * VEC[dt]:   # 1 to 8 vectors a thread
                    print("add", dt, f"BLOCK={block} threads={t}")
        for bn in (128, 256, 512, 1024, 2048, 4096, 8192, 16384):
            for bm in (1, 2, 4, 8, 16, 32):
                n = bm * bn
                if n not in (4096, 8192):
                    continue
                for t in (128, 256, 512, 1024):
                    if VEC[dt] <= n // t <= 2 * VEC[dt]:
                        print("bias_gelu", dt, f"BM={bm} BN={bn} threads={t}")


if __name__ == "__main__":
    main()
