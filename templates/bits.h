
/* Integer helpers (i64, u32, shifts): a kernel uses some of them. */
#ifndef LT_FN
#define LT_FN static inline __attribute__((unused))
#endif
LT_FN int64_t lt_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
LT_FN int64_t lt_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
LT_FN int64_t lt_abs_i64(int64_t a) { return a < 0 ? -a : a; }
LT_FN uint32_t lt_max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }
LT_FN uint32_t lt_min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
/* Shifts by a count known at run time: 0 past the width (and, right, the
** sign of a signed value); a left shift of a signed value wraps as its
** unsigned bits do. */
LT_FN int lt_shl_i32(int a, int64_t n) { return (uint64_t)n < 32u ? (int)((uint32_t)a << n) : 0; }
LT_FN int64_t lt_shl_i64(int64_t a, int64_t n) { return (uint64_t)n < 64u ? (int64_t)((uint64_t)a << n) : 0; }
LT_FN uint32_t lt_shl_u32(uint32_t a, int64_t n) { return (uint64_t)n < 32u ? a << n : 0u; }
LT_FN int lt_shr_i32(int a, int64_t n) { return (uint64_t)n < 32u ? a >> n : a < 0 ? -1 : 0; }
LT_FN int64_t lt_shr_i64(int64_t a, int64_t n) { return (uint64_t)n < 64u ? a >> n : a < 0 ? -1 : 0; }
LT_FN uint32_t lt_shr_u32(uint32_t a, int64_t n) { return (uint64_t)n < 32u ? a >> n : 0u; }
/* The 64-bit product a * b: its low word, and its high word into *hi.  On
** CUDA one mul.wide.u32, which ptxas makes one IMAD.WIDE.U32 (from
** __umulhi and the low product apart it made an IMAD.HI and an IMAD:
** bias_dropout_add's bf16 kernel 64 SASS instructions longer); on HIP
** __umulhi and the low product; elsewhere the 64-bit product, the same
** bits.  (Written as the 64-bit product in C++, nvcc carried Philox's
** whole state in 64-bit registers: 64-bit multiplies and twice the xors.) */
#if defined(__CUDA_ARCH__)
LT_FN uint32_t lt_mulwide_u32(uint32_t a, uint32_t b, uint32_t *hi) {
  uint64_t p;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(a), "r"(b));
  *hi = (uint32_t)(p >> 32);
  return (uint32_t)p;
}
#elif defined(__HIP_DEVICE_COMPILE__)
LT_FN uint32_t lt_mulwide_u32(uint32_t a, uint32_t b, uint32_t *hi) {
  *hi = __umulhi(a, b);
  return a * b;
}
#else
LT_FN uint32_t lt_mulwide_u32(uint32_t a, uint32_t b, uint32_t *hi) {
  const uint64_t p = (uint64_t)a * b;
  *hi = (uint32_t)(p >> 32);
  return (uint32_t)p;
}
#endif
/* Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
** easy as 1, 2, 3", SC'11): word w of the ten rounds on counter (c0, c1,
** c2, c3) under key (k0, k1). */
LT_FN uint32_t lt_philox(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1, uint32_t w) {
  for (int r = 0; r < 10; ++r) {
    if (r) k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;   /* the key schedule */
    uint32_t h0, h2;
    const uint32_t l0 = lt_mulwide_u32(0xCD9E8D57u, c2, &h0), l2 = lt_mulwide_u32(0xD2511F53u, c0, &h2);
    c0 = h0 ^ c1 ^ k0, c2 = h2 ^ c3 ^ k1, c1 = l0, c3 = l2;
  }
  return w == 0 ? c0 : w == 1 ? c1 : w == 2 ? c2 : c3;
}
/* tile.randint(seed, offset): word offset % 4 of Philox4x32-10 with key
** (seed's low, high 32 bits) and counter (offset / 4's low, high 32 bits,
** 0, 0); four consecutive offsets read one Philox block. */
LT_FN uint32_t lt_randint(uint64_t seed, uint64_t offset) {
  return lt_philox((uint32_t)(offset >> 2), (uint32_t)(offset >> 34), 0u, 0u, (uint32_t)seed, (uint32_t)(seed >> 32),
                   (uint32_t)offset & 3u);
}
/* tile.rand(seed, offset): randint's top 24 bits times 2^-24, exactly: a
** float in [0, 1). */
LT_FN float lt_rand(uint64_t seed, uint64_t offset) { return (float)(lt_randint(seed, offset) >> 8) * 5.9604644775390625e-8f; }
/* The same of offset block * 4 + word (word in [0, 4), block any int64:
** the offset's bits as uint64), as gen prints an offset written so: the
** counter is the block's own words, so the compiler sees one Philox for
** the four words of a block (through the offset's arithmetic, nvcc ran
** 6.5 Philox for bias_dropout_add's 4 blocks a thread). */
LT_FN uint32_t lt_randint_block(uint64_t seed, uint64_t block, uint32_t word) {
  return lt_philox((uint32_t)block, (uint32_t)(block >> 32) & 0x3FFFFFFFu, 0u, 0u, (uint32_t)seed, (uint32_t)(seed >> 32),
                   word);
}
LT_FN float lt_rand_block(uint64_t seed, uint64_t block, uint32_t word) {
  return (float)(lt_randint_block(seed, block, word) >> 8) * 5.9604644775390625e-8f;
}
/* tile.rand(...) < x from the word's bits: rand is (bits >> 8) * 2^-24,
** exactly, so rand < x is (bits >> 8) < ceil(x * 2^24), with x * 2^24
** clamped to [0, 2^24] (NaN to 0: never true): an integer compare, as gen
** prints rand < x and x > rand (and rand >= x, x <= rand as its negation),
** in place of the word's conversion to float (I2F, a quarter-rate
** instruction on sm90), a multiply and a float compare.  t, plus one where
** y has a fraction, is that ceiling; the bound is the same for every
** element of a scalar x, so the compiler computes it once.  (Written with
** selects for the three cases, nvcc branched and ran bias_dropout_add's
** Philox twice over.) */
LT_FN int lt_rand_lt(uint32_t bits, float x) {
  const float y = x * 16777216.0f;   /* exact: a power of two */
  const uint32_t t = (uint32_t)fminf(fmaxf(y, 0.0f), 16777216.0f);
  return (bits >> 8) < t + ((float)t < y);
}
