
/* Division by multiply and shift (gen's Kernel.divs, pass/fastdiv.c;
** included where a kernel prepares divisors for its persistent grid's
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
