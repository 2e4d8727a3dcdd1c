#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* f16 and bf16 are kept as their 16 bits; conversions round to nearest even. */
typedef uint16_t lt_f16;
typedef uint16_t lt_bf16;

static inline float lt_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t lt_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static inline float lt_bf16_to_f32(lt_bf16 h) { return lt_bits_f32((uint32_t)h << 16); }
static inline lt_bf16 lt_f32_to_bf16(float f) {
  uint32_t u = lt_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (lt_bf16)((u >> 16) | 0x40u);  /* NaN stays NaN */
  return (lt_bf16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static inline float lt_f16_to_f32(lt_f16 h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return lt_bits_f32(sign | 0x7f800000u | (man << 13));       /* inf, NaN */
  if (exp == 0) {                                                               /* zero, subnormal */
    float v = (float)man * 5.9604644775390625e-8f;                              /* man * 2^-24 */
    return sign ? -v : v;
  }
  return lt_bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}
static inline lt_f16 lt_f32_to_f16(float f) {
  uint32_t u = lt_f32_bits(f), sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (lt_f16)(sign | 0x7e00u);                       /* NaN */
  if (a >= 0x477ff000u) return (lt_f16)(sign | 0x7c00u);                       /* overflow: inf */
  if (a < 0x38800000u) {                                                        /* subnormal or zero */
    float v = lt_bits_f32(a) * 16777216.0f;                                     /* x * 2^24, exact */
    return (lt_f16)(sign | (uint32_t)nearbyintf(v));
  }
  uint32_t r = a + 0xfffu + ((a >> 13) & 1u) - (112u << 23);                   /* rebias, round even */
  return (lt_f16)(sign | (r >> 13));
}
static inline float lt_round_f16(float x) { return lt_f16_to_f32(lt_f32_to_f16(x)); }
static inline float lt_round_bf16(float x) { return lt_bf16_to_f32(lt_f32_to_bf16(x)); }
static inline int lt_imax(int a, int b) { return a > b ? a : b; }
static inline int lt_imin(int a, int b) { return a < b ? a : b; }
static inline int lt_iabs(int a) { return a < 0 ? -a : a; }
static inline float lt_rsqrtf(float x) { return 1.0f / sqrtf(x); }
/* k:atomic_add: the launcher runs the blocks one after another. */
static inline void lt_atomic_add(float *p, float v) { *p += v; }
