"""sass_fences.py: the memory fences of each kernel of an sm_90a cubin, where
no cuobjdump is at hand (nvcc and ptxas alone): MEMBAR at GPU and at CTA
scope, ERRBAR, CGAERRBAR and CCTL, counted and placed (instruction index) by
their opcodes, the low 12 bits of each 16-byte instruction.  The opcodes are
not documented: --calibrate compiles four small kernels (no fence,
fence.acq_rel.gpu, fence.sc.gpu, fence.acq_rel.cta) and checks that each
compiles to the fences this file reads, failing otherwise; run it first.
usage: python3 bench/sass_fences.py --calibrate
       python3 bench/sass_fences.py CUBIN [SUBSTRING]   (kernels whose name holds it)
build a cubin: nvcc -cubin -O3 -std=c++17 -arch=sm_90a -o x.cubin x.cu"""
import os
import struct
import subprocess
import sys
import tempfile

MEMBAR, ERRBAR, CGAERRBAR, CCTL = 0x992, 0x9AB, 0x5AB, 0x98F
NAMES = ("MEMBAR.GPU", "MEMBAR.CTA", "ERRBAR", "CGAERRBAR", "CCTL")


def text_sections(path):
    """(kernel name, code bytes) of each .text.NAME section of an ELF64 cubin."""
    b = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    for h in hdrs:
        name = b[names + h[0]:b.index(b"\0", names + h[0])].decode()
        if name.startswith(".text."):
            yield name[6:], b[h[4]:h[4] + h[5]]


def fences(code):
    """[(fence name, instruction index)] of one kernel's code; a MEMBAR is at
    GPU scope where bit 13 of the instruction's high word is set."""
    out = []
    for i in range(0, len(code), 16):
        lo, hi = struct.unpack_from("<QQ", code, i)
        op = lo & 0xFFF
        if op == MEMBAR:
            out.append(("MEMBAR.GPU" if hi >> 13 & 1 else "MEMBAR.CTA", i // 16))
        elif op in (ERRBAR, CGAERRBAR, CCTL):
            out.append(({ERRBAR: "ERRBAR", CGAERRBAR: "CGAERRBAR", CCTL: "CCTL"}[op], i // 16))
    return out


CALIBRATION = r"""
__global__ void k_none(int *p) { p[threadIdx.x] = 1; p[threadIdx.x + 64] = 2; }
#define K(name, f) __global__ void name(int *p) { p[threadIdx.x] = 1; asm volatile(f ::: "memory"); p[threadIdx.x + 64] = 2; }
K(k_gpu, "fence.acq_rel.gpu;") K(k_sc, "fence.sc.gpu;") K(k_cta, "fence.acq_rel.cta;")
"""
EXPECTED = {"k_none": [], "k_gpu": ["CCTL", "CGAERRBAR", "ERRBAR", "MEMBAR.GPU"],
            "k_sc": ["CCTL", "CGAERRBAR", "ERRBAR", "MEMBAR.GPU"], "k_cta": ["MEMBAR.CTA"]}


def calibrate():
    """Compiles CALIBRATION for sm_90a and compares its fences with EXPECTED; 0 when all match."""
    with tempfile.TemporaryDirectory() as d:
        src, cubin = os.path.join(d, "cal.cu"), os.path.join(d, "cal.cubin")
        open(src, "w").write(CALIBRATION)
        subprocess.run(["nvcc", "-cubin", "-O3", "-arch=sm_90a", "-o", cubin, src], check=True)
        bad = 0
        for name, code in text_sections(cubin):
            short = next(k for k in EXPECTED if name.startswith("_Z%d%s" % (len(k), k)))
            got = sorted(f for f, _ in fences(code))
            ok = got == EXPECTED[short]
            bad += not ok
            print("%s calibration %-6s %s" % ("PASS" if ok else "FAIL", short, " ".join(got) or "no fence"))
        return 1 if bad else 0


def main(argv):
    if argv[1:2] == ["--calibrate"]:
        return calibrate()
    sub = argv[2] if len(argv) > 2 else ""
    print("%-90s %6s %s" % ("kernel", "instr", " ".join(NAMES)))
    for name, code in sorted(text_sections(argv[1])):
        if sub not in name:
            continue
        f = fences(code)
        counts = " ".join("%*d" % (len(n), sum(1 for g, _ in f if g == n)) for n in NAMES)
        print("%-90s %6d %s  at %s" % (name[:90], len(code) // 16, counts, " ".join("%s@%d" % (g, i) for g, i in f)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
