/*
 * bf16.c: checks the HIP target's f32 -> bf16 conversion (templates/hip.h,
 * lt_f32_to_bf16, written without a compare so that it needs no lane mask)
 * on every f32 whose low 16 bits, the ones rounded off, are at or next to a
 * rounding boundary (0, 1, just under, at and just over half, all ones...)
 * or pseudo-random: 32 low halves for each of the 2^16 high halves.
 *
 * run.sh cuts the function out of templates/hip.h into hip_bf16.inc; this
 * file includes it with the HIP names mapped to host C.  The reference
 * rounds by distance in double: of the two bf16 neighbours of x (its bits
 * truncated, and one bf16 step up), the nearer, the even one on a tie; past
 * the largest finite bf16 the step up is 2^128, which rounds to infinity.
 * A NaN must stay a NaN with the same sign and its quiet bit set.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint16_t lt_bf16;
static uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
#define LT_FN static inline
#define __float_as_uint bits_of
#include "hip_bf16.inc"

/* bf16 bits -> its value as a double; the exponent 0xff pattern above the
** largest finite value stands for 2^128 (sign kept). */
static double value_of(uint32_t hi16) {
  uint32_t u = hi16 << 16;
  if ((u & 0x7fffffffu) == 0x7f800000u) return (u >> 31) ? -ldexp(1.0, 128) : ldexp(1.0, 128);
  float f; memcpy(&f, &u, 4);
  return f;
}

static uint16_t reference(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  if ((u & 0x7fffffffu) == 0x7f800000u) return (uint16_t)(u >> 16);   /* infinity */
  float f; memcpy(&f, &u, 4);
  uint32_t lo = u >> 16, up = lo + 1;          /* up: one step away from zero */
  double dl = fabs((double)f - value_of(lo)), du = fabs(value_of(up) - (double)f);
  if (dl < du) return (uint16_t)lo;
  if (du < dl) return (uint16_t)up;
  return (uint16_t)((lo & 1u) ? up : lo);
}

int main(void) {
  static const uint32_t edges[] = {0x0000u, 0x0001u, 0x0002u, 0x3fffu, 0x4000u, 0x7ffeu, 0x7fffu, 0x8000u,
                                   0x8001u, 0x8002u, 0xbfffu, 0xc000u, 0xfffeu, 0xffffu};
  const int nedge = (int)(sizeof edges / sizeof edges[0]);
  uint64_t bad = 0, n = 0;
  uint32_t first = 0, seed = 12345u;
  for (uint32_t hi = 0; hi <= 0xffffu; ++hi)
    for (int k = 0; k < 32; ++k) {
      seed = seed * 1664525u + 1013904223u;
      uint32_t u = hi << 16 | (k < nedge ? edges[k] : seed >> 16);
      float f; memcpy(&f, &u, 4);
      ++n;
      if (lt_f32_to_bf16(f) != reference(u) && bad++ == 0) first = u;
    }
  if (bad) {
    float f; memcpy(&f, &first, 4);
    printf("FAIL cpu bf16: templates/hip.h lt_f32_to_bf16 is not round-to-nearest-even on %llu of %llu inputs (first 0x%08x: 0x%04x, want 0x%04x)\n",
           (unsigned long long)bad, (unsigned long long)n, first, lt_f32_to_bf16(f), reference(first));
  } else
    printf("PASS cpu bf16: templates/hip.h lt_f32_to_bf16 rounds %llu f32 patterns (every exponent and sign, the rounding edges) to nearest even, NaNs kept quiet NaNs\n",
           (unsigned long long)n);
  return 0;
}
