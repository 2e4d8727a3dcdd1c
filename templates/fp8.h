/* fp8 helpers (dtypes fp8e4m3, fp8e5m2): a kernel that has an fp8 tensor,
** shared tile or cast uses some of them.  The formats are OCP's 8-bit floats,
** as PyTorch's float8_e4m3fn and float8_e5m2:
**   e4m3: sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinity,
**         S.1111.111 is NaN; largest finite 448, subnormals m * 2^-9;
**   e5m2: sign, 5 exponent bits (bias 15), 2 mantissa bits, the top byte of
**         an f16: infinity and NaN as f16's; largest finite 57344.
** A value is kept as its byte.  To f32 is exact.  From f32 saturates:
** rounds to nearest even, a finite result past the largest finite value
** (infinity included) becomes that value with the sign, a NaN becomes 0x7f.
** The portable code below is the definition; on CUDA the cuda_fp8.h
** conversion gives the same bytes (checked on the device against it). */
#ifndef LT_FN
#define LT_FN static inline __attribute__((unused))
#endif
typedef uint8_t lt_fp8e4m3;
typedef uint8_t lt_fp8e5m2;

/* The bits of a float and back, as memcpy: the same on every target. */
LT_FN uint32_t lt_fp8_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
LT_FN float lt_fp8_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* e4m3 byte -> f32: exact; the NaN codes give a quiet NaN with their sign. */
LT_FN float lt_fp8e4m3_to_f32(lt_fp8e4m3 x) {
  uint32_t s = (uint32_t)(x & 0x80u) << 24, e = (x >> 3) & 15u, m = x & 7u;
  if (e == 15u && m == 7u) return lt_fp8_float(s | 0x7fc00000u);
  if (e == 0u) return lt_fp8_float(s | lt_fp8_bits((float)m * 0.001953125f));   /* m * 2^-9 */
  return lt_fp8_float(s | ((e + 120u) << 23) | (m << 20));
}

/* e5m2 byte -> f32: exact (an f16's top byte; infinity and NaN kept, a NaN quiet). */
LT_FN float lt_fp8e5m2_to_f32(lt_fp8e5m2 x) {
  uint32_t s = (uint32_t)(x & 0x80u) << 24, e = (x >> 2) & 31u, m = x & 3u;
  if (e == 31u) return lt_fp8_float(s | 0x7f800000u | (m ? 0x400000u | (m << 21) : 0u));
  if (e == 0u) return lt_fp8_float(s | lt_fp8_bits((float)m * 1.52587890625e-05f));   /* m * 2^-16 */
  return lt_fp8_float(s | ((e + 112u) << 23) | (m << 21));
}

/* f32 -> the fp8 byte of `man` mantissa bits, exponent bias `bias`, largest
** finite byte `max` (sign off), smallest normal 2^emin: round to nearest
** even, saturate, NaN -> 0x7f.  Below the smallest normal the value scaled
** to a whole number of the least subnormal is exact in f32 and rounded by
** adding and subtracting 2^23 (round to nearest even, no library call). */
LT_FN uint8_t lt_f32_to_fp8(float f, int man, int bias, uint32_t max, int emin) {
  uint32_t u = lt_fp8_bits(f), sign = (u >> 24) & 0x80u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return 0x7f;
  uint32_t lim = ((uint32_t)(max >> man) + 127u - (uint32_t)bias) << 23 | (max & ((1u << man) - 1u)) << (23 - man);
  if (a >= lim) return (uint8_t)(sign | max);   /* at or past the largest finite value (rounding down to it or saturated) */
  if (a < (uint32_t)(127 + emin) << 23) {      /* subnormal or zero: multiples of 2^(emin - man) */
    float v = lt_fp8_float(a) * lt_fp8_float((uint32_t)(127 - emin + man) << 23);
    v = (v + 8388608.0f) - 8388608.0f;          /* v < 2^man, so this rounds it to a whole number */
    return (uint8_t)(sign | (uint32_t)v);       /* 2^man is the smallest normal, the same bits */
  }
  uint32_t drop = 23u - (uint32_t)man;
  uint32_t r = a + ((1u << (drop - 1)) - 1u) + ((a >> drop) & 1u) - ((uint32_t)(127 - bias) << 23);
  return (uint8_t)(sign | (r >> drop));
}

#if defined(__CUDACC__)
#include <cuda_fp8.h>
LT_FN lt_fp8e4m3 lt_f32_to_fp8e4m3(float f) { return (lt_fp8e4m3)__nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3); }
LT_FN lt_fp8e5m2 lt_f32_to_fp8e5m2(float f) { return (lt_fp8e5m2)__nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2); }
#else
LT_FN lt_fp8e4m3 lt_f32_to_fp8e4m3(float f) { return lt_f32_to_fp8(f, 3, 7, 0x7eu, -6); }
LT_FN lt_fp8e5m2 lt_f32_to_fp8e5m2(float f) { return lt_f32_to_fp8(f, 2, 15, 0x7bu, -14); }
#endif

/* Two fp8 bytes (the first in the low byte) as an f16 pair, exactly (every
** fp8 value is an f16 value): mma.sync's f16 operands of an fp8 gemm. */
#if defined(__CUDACC__)
LT_FN uint32_t lt_f16x2_of_fp8e4m3(uint16_t x) {
  __half2_raw h = __nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)x, __NV_E4M3);
  return (uint32_t)h.x | (uint32_t)h.y << 16;
}
#else
/* e4m3 byte -> f16 bits: rebias (7 -> 15); a subnormal m * 2^-9 becomes an
** f16 normal: its leading bit 2^p (p = 0, 1, 2) sets the exponent. */
LT_FN uint32_t lt_fp8e4m3_f16_bits(uint32_t x) {
  uint32_t s = (x & 0x80u) << 8, e = (x >> 3) & 15u, m = x & 7u;
  if (e == 15u && m == 7u) return s | 0x7e00u;
  if (e == 0u) {
    if (m == 0u) return s;
    uint32_t p = m >= 4u ? 2u : m >= 2u ? 1u : 0u;
    return s | (p + 6u) << 10 | ((m << (3u - p)) & 7u) << 7;
  }
  return s | (e + 8u) << 10 | m << 7;
}
LT_FN uint32_t lt_f16x2_of_fp8e4m3(uint16_t x) {
  return lt_fp8e4m3_f16_bits(x & 0xffu) | lt_fp8e4m3_f16_bits((uint32_t)x >> 8) << 16;
}
#endif
LT_FN uint32_t lt_f16x2_of_fp8e5m2(uint16_t x) { return (x & 0xffu) << 8 | (uint32_t)(x >> 8) << 24; }

/* f32 rounded to fp8 and back: x:cast("fp8e4m3") in registers. */
LT_FN float lt_round_fp8e4m3(float x) { return lt_fp8e4m3_to_f32(lt_f32_to_fp8e4m3(x)); }
LT_FN float lt_round_fp8e5m2(float x) { return lt_fp8e5m2_to_f32(lt_f32_to_fp8e5m2(x)); }
