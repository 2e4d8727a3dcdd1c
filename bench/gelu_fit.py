"""gelu_fit.py: the polynomial of bias_gelu.lua's 16-bit GELU, fitted and
checked.

GELU(x) = x * Phi(x), Phi(x) = 1 - q for x >= 0 and q for x < 0, with
q = erfc(|x| / sqrt(2)) / 2 = 2^(P(t) - x^2 / (2 ln 2)), t = min(|x|, T).
P is fitted by least squares (Chebyshev nodes on [0, T]) to
R(t) = log2(q) + t^2 / (2 ln 2), weighted by q + 1e-4 (the error of q that
GELU sees is absolute where q is large and matters little where it is
tiny).  The check evaluates the kernel's arithmetic in f32 (each
coefficient rounded to f32, one rounding a multiply-add, as the FMAs do)
on a grid of x over [-9, 9] against float64 GELU, and prints the largest
absolute error and the largest relative error where |GELU(x)| > 1e-4.
usage: python3 bench/gelu_fit.py [DEGREE [T]]      (default 7 and 5.5; needs mpmath)"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 40
LN2 = mp.log(2)


def r_of(t):
    """R(t) = log2(erfc(t / sqrt 2) / 2) + t^2 / (2 ln 2), in mpmath."""
    return mp.log(mp.erfc(t / mp.sqrt(2)) / 2) / LN2 + t * t / (2 * LN2)


def fit(n, hi, nodes=800):
    """P's coefficients, constant term first: weighted least squares."""
    xs = [hi * (1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / nodes)) / 2 for i in range(nodes)]
    a, b = mp.matrix(nodes, n + 1), mp.matrix(nodes, 1)
    for i, x in enumerate(xs):
        w = mp.erfc(x / mp.sqrt(2)) / 2 + mp.mpf("1e-4")
        for j in range(n + 1):
            a[i, j] = w * x ** j
        b[i] = w * r_of(x)
    c = mp.lu_solve(a.T * a, a.T * b)
    return [c[j] for j in range(n + 1)]


def f32(v):
    """v rounded to the nearest f32."""
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def gelu_f32(coef, hi, x):
    """The kernel's GELU of x in f32 arithmetic."""
    t = f32(min(abs(x), hi))
    r = coef[-1]
    for cj in reversed(coef[:-1]):
        r = f32(r * t + cj)
    q = f32(2.0 ** f32(r - f32(f32(x * x) * f32(1 / (2 * float(LN2))))))
    return f32(x * (f32(1 - q) if x >= 0 else q))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    hi = float(sys.argv[2]) if len(sys.argv) > 2 else 5.5
    coef = [f32(c) for c in fit(n, hi)]
    print("P =", ", ".join(f"{c:.9g}" for c in coef))
    worst_abs = worst_rel = 0.0
    for i in range(-9000, 9001):
        x = i / 1000
        g = x * mp.erfc(-x / mp.sqrt(2)) / 2
        err = abs(gelu_f32(coef, hi, x) - g)
        worst_abs = max(worst_abs, float(err))
        if abs(g) > 1e-4:
            worst_rel = max(worst_rel, float(err / abs(g)))
    print(f"largest error over [-9, 9]: {worst_abs:.3g} absolute, {worst_rel:.3g} relative where |gelu| > 1e-4")


if __name__ == "__main__":
    main()
