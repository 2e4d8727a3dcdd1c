
/* Fast arithmetic that gen's passes choose, included where a kernel uses
** it: division by multiply and shift (Kernel.divs), log by lg2.approx and
** erf and GELU by a polynomial and ex2.approx (Expr.fast).
**
** Division by multiply and shift (pass/fastdiv.c: the persistent grid's
** index math): n / d for n in [0, 2^31) and d in [1, 2^31), d the same for
** many n.  With s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d)
** + 1 (below 2^32, as 2^s < 2d), n / d = (mulhi(n, m) + n) >> s.  2^32 + m
** is 2^(32+s) / d rounded up, over it by e / d with 0 < e <= d <= 2^s;
** times n < 2^31 the excess stays under 1 / d, which the quotient's
** fraction never comes within, and the sum stays under 2^32, as
** mulhi(n, m) < n.  lt_divisor_of once (a 64-bit division), then lt_div a
** multiply-high, an add and a shift. */
typedef struct { uint32_t mul, shift, d; } lt_divisor;
LT_FN lt_divisor lt_divisor_of(int d) {
  lt_divisor r;
  r.shift = 32 - __clz(d - 1);   /* (d 1: 0) */
  r.mul = (uint32_t)(((((uint64_t)1 << r.shift) - (uint32_t)d) << 32) / (uint32_t)d) + 1u;
  r.d = (uint32_t)d;
  return r;
}
LT_FN int lt_div(int n, lt_divisor v) { return (int)((__umulhi((uint32_t)n, v.mul) + (uint32_t)n) >> v.shift); }
LT_FN int lt_mod(int n, lt_divisor v) { return n - lt_div(n, v) * (int)v.d; }

/* log x as lg2.approx.ftz times ln 2 (2^-22 absolute in log2; subnormal x
** flushed to zero, whose log is -inf): the logs plan.c makes fast, in the
** epilogues of warp-specialized kernels (attention's LSE). */
LT_FN float lt_log(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y * 0.693147181f;
}

/* q = erfc(x / sqrt 2) / 2 for x >= 0, the part lt_erf and lt_gelu share:
** q = 2^(P(t) - x^2 / (2 ln 2)), t = min(x, 5.5) and P the degree-7
** polynomial fitted to log2 q + x^2 / (2 ln 2) (bench/gelu_fit.py, as
** dsl/kernels/bias_gelu.lua): one ex2.approx and eight multiply-adds in
** place of erff's two polynomials, its exponential and its branch. */
LT_FN float lt_erfc_half(float x) {
  const float t = fminf(x, 5.5f);
  float r = 1.57627073e-06f;
  r = fmaf(r, t, 1.12683356e-05f);
  r = fmaf(r, t, -0.000651096751f);
  r = fmaf(r, t, 0.00777067337f);
  r = fmaf(r, t, -0.0529987104f);
  r = fmaf(r, t, 0.262305915f);
  r = fmaf(r, t, -1.15112519f);
  r = fmaf(r, t, -0.999999642f);
  return lt_exp2(fmaf(-x * x, 0.721347520f, r));
}

/* erf z for a value rounded to f16 or bf16 after (plan.c, fast_divisions:
** the GELU epilogue of warp-specialized GEMMs): with x = |z| sqrt 2,
** erf z = sign(z) (1 - 2 q), q = lt_erfc_half(x); within 1e-6 of erf. */
LT_FN float lt_erf(float z) {
  return copysignf(fmaf(-2.0f, lt_erfc_half(fabsf(z) * 1.41421356f), 1.0f), z);
}

/* GELU, 0.5 v (1 + erf(v / sqrt 2)), for a value rounded to f16 or bf16
** after (pass/gelu.c): with x = |v| and q = lt_erfc_half(x), max(v, 0) -
** x q (1 + erf is 2 - 2 q for v >= 0, 2 q below).  The product takes
** t = min(x, 5.5) for x: past 5.5, q < 2e-8, so for v > 5.5 that is under
** half an f32 ulp of v, and for v < -5.5 the result (|GELU| < 2e-8 x)
** keeps its sign and magnitude's order where the erf form rounds 1 + erf
** to 0; and v = +inf gives +inf, not inf * 0. */
LT_FN float lt_gelu(float v) {
  const float x = fabsf(v);
  return fmaf(-fminf(x, 5.5f), lt_erfc_half(x), fmaxf(v, 0.0f));
}
