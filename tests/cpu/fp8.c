/*
 * fp8.c: checks the fp8 conversions of templates/fp8.h (the portable code:
 * the c target's, HIP's and the emulator's; the GPU check compares CUDA's
 * cuda_fp8.h conversions with it) and templates/fp8_fnuz_dtypes.h (every
 * target's) against a reference written here from the formats'
 * definitions (OCP 8-bit floats, PyTorch's float8_e4m3fn and float8_e5m2;
 * FNUZ ones, float8_e4m3fnuz and float8_e5m2fnuz: exponent bias 8 and 16,
 * no infinity, no -0, 0x80 the one NaN):
 *   - every one of the 256 codes of each format to f32, exactly (an OCP NaN
 *     code to a NaN of its sign, FNUZ's to a NaN), back to itself (a NaN
 *     code to the NaN byte, an infinity to the largest finite value), and
 *     to f16 as a byte pair (the f16 operands of an fp8 gemm on mma.sync);
 *   - f32 to fp8 on the f32 values at and next to every rounding boundary
 *     (each midpoint between two neighbouring codes, one f32 ulp either
 *     side), around the saturation points, zeros, subnormal f32s,
 *     infinities, NaNs, and for each of the 2^16 high halves of an f32, 24
 *     low halves (edges and pseudo-random ones).  The reference is the
 *     code of the sign of x nearest to |x| among the finite codes, the even
 *     one on a tie; a NaN gives 0x7f (FNUZ: 0x80), and an FNUZ zero is 0x00
 *     whatever the sign of x.
 * Prints PASS/FAIL lines; exits 0.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define LT_FN static inline __attribute__((unused))
#include "../../templates/fp8.h"
#include "../../templates/fp8_fnuz_dtypes.h"

typedef struct Fmt {
  const char *name;
  int ebits, mbits, bias;
  int ieee;                     /* e5m2: infinity and NaN as IEEE's; e4m3: only S.1111.111 is NaN */
  int fnuz;                     /* FNUZ: no infinity, no -0, 0x80 the one NaN */
  float (*to_f32)(uint8_t);
  uint8_t (*from_f32)(float);
  uint32_t (*f16x2)(uint16_t);
} Fmt;

static float e4_to(uint8_t x) { return lt_fp8e4m3_to_f32(x); }
static float e5_to(uint8_t x) { return lt_fp8e5m2_to_f32(x); }
static uint8_t e4_from(float f) { return lt_f32_to_fp8e4m3(f); }
static uint8_t e5_from(float f) { return lt_f32_to_fp8e5m2(f); }

static float e4z_to(uint8_t x) { return lt_fp8e4m3fnuz_to_f32(x); }
static float e5z_to(uint8_t x) { return lt_fp8e5m2fnuz_to_f32(x); }
static uint8_t e4z_from(float f) { return lt_f32_to_fp8e4m3fnuz(f); }
static uint8_t e5z_from(float f) { return lt_f32_to_fp8e5m2fnuz(f); }

static const Fmt fmts[4] = {{"e4m3", 4, 3, 7, 0, 0, e4_to, e4_from, lt_f16x2_of_fp8e4m3},
                            {"e5m2", 5, 2, 15, 1, 0, e5_to, e5_from, lt_f16x2_of_fp8e5m2},
                            {"e4m3fnuz", 4, 3, 8, 0, 1, e4z_to, e4z_from, lt_f16x2_of_fp8e4m3fnuz},
                            {"e5m2fnuz", 5, 2, 16, 0, 1, e5z_to, e5z_from, lt_f16x2_of_fp8e5m2fnuz}};

/* The value of code c by the definition: NAN for a NaN code, +-INFINITY. */
static double decode(const Fmt *f, unsigned c) {
  unsigned s = c >> 7, e = (c >> f->mbits) & ((1u << f->ebits) - 1), m = c & ((1u << f->mbits) - 1);
  unsigned emax = (1u << f->ebits) - 1;
  double v;
  if (f->fnuz && c == 0x80u) return NAN;
  if (!f->fnuz && e == emax && (f->ieee || m == (1u << f->mbits) - 1)) v = f->ieee && m == 0 ? INFINITY : NAN;
  else if (e == 0) v = ldexp((double)m, 1 - f->bias - f->mbits);
  else v = ldexp((double)((1u << f->mbits) + m), (int)e - f->bias - f->mbits);
  return s ? -v : v;
}

/* The value of f16 bits h (IEEE binary16), by its definition. */
static double f16_value(uint32_t h) {
  unsigned e = (h >> 10) & 31u, m = h & 1023u;
  double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1024.0 + m, (int)e - 25) : ldexp(m, -24);
  return h & 0x8000u ? -v : v;
}

static int finite_code(const Fmt *f, unsigned c) { return isfinite(decode(f, c)); }

/* The saturating conversion by the definition (see the top). */
static uint8_t encode(const Fmt *f, float x) {
  if (isnan(x)) return f->fnuz ? 0x80 : 0x7f;
  unsigned sign = signbit(x) ? 0x80u : 0u, best = 0;
  double a = fabs((double)x), bd = INFINITY;
  for (unsigned c = 127; c > 0; c--)   /* at or past the largest finite value: that value */
    if (finite_code(f, c)) {
      if (a >= decode(f, c)) return (uint8_t)(sign | c);
      break;
    }
  for (unsigned c = 0; c < 128; c++) {
    if (!finite_code(f, c)) continue;
    double d = fabs(decode(f, c) - a);
    if (d < bd || (d == bd && (c & 1u) == 0)) bd = d, best = c;
  }
  if (f->fnuz && best == 0) return 0;   /* no -0 */
  return (uint8_t)(sign | best);
}

static float from_bits(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static uint32_t to_bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }

static uint64_t bad, n;

static void one(const Fmt *f, float x) {
  uint8_t want = encode(f, x), got = f->from_f32(x);
  n++;
  if (got != want && bad++ < 5)
    printf("FAIL cpu fp8 %s: f32 %a (bits %08x) -> 0x%02x, want 0x%02x\n", f->name, x, to_bits(x), got, want);
}

int main(void) {
  for (int fi = 0; fi < 4; fi++) {
    const Fmt *f = &fmts[fi];
    bad = n = 0;
    /* every code to f32 */
    for (unsigned c = 0; c < 256; c++) {
      double want = decode(f, c);
      float got = f->to_f32((uint8_t)c);
      int ok = isnan(want) ? isnan(got) && (f->fnuz || !!signbit(got) == !!(c >> 7))
                           : (double)got == want && (want != 0 || !!signbit(got) == !!(c >> 7));
      if (!ok && bad++ < 5) printf("FAIL cpu fp8 %s: code 0x%02x -> %a, want %a\n", f->name, c, got, want);
    }
    /* every code to f32 and back: itself (a NaN code the NaN byte, 0x7f or FNUZ's 0x80; e5m2's infinities
       the largest finite value) */
    for (unsigned c = 0; c < 256; c++) {
      double v = decode(f, c);
      uint8_t back = f->from_f32(f->to_f32((uint8_t)c));
      uint8_t want = isnan(v) ? (f->fnuz ? 0x80 : 0x7f) : isinf(v) ? (uint8_t)((c & 0x80u) | 0x7bu) : (uint8_t)c;
      if (back != want && bad++ < 5) printf("FAIL cpu fp8 %s: code 0x%02x to f32 and back is 0x%02x\n", f->name, c, back);
    }
    /* every pair of codes to an f16 pair (the mma.sync operands of an fp8 gemm), exactly */
    for (unsigned c = 0; c < 256; c++) {
      uint32_t h2 = f->f16x2((uint16_t)(c | 0x3c00u));
      double want = decode(f, c), got = f16_value(h2 & 0xffffu), hi = f16_value(h2 >> 16);
      int ok = (isnan(want) ? isnan(got) : got == want) && hi == decode(f, 0x3c);
      if (!ok && bad++ < 5) printf("FAIL cpu fp8 %s: code 0x%02x -> f16 %04x, want %a\n", f->name, c, h2 & 0xffffu, want);
    }
    /* midpoints between neighbouring codes of a sign, one ulp either side, and the codes themselves */
    for (unsigned s = 0; s < 2; s++)
      for (unsigned c = 0; c < 128; c++) {
        if (!finite_code(f, c)) continue;
        double v = decode(f, c) * (s ? -1 : 1), up = finite_code(f, c + 1) && c + 1 < 128 ? decode(f, c + 1) * (s ? -1 : 1)
                                                                                          : 2 * v - decode(f, c - 1) * (s ? -1 : 1);
        float mid = (float)((v + up) / 2), at = (float)v;
        for (int d = -2; d <= 2; d++) {
          one(f, from_bits(to_bits(mid) + (uint32_t)d));
          if (to_bits(at) + (uint32_t)d != 0xffffffffu) one(f, from_bits(to_bits(at) + (uint32_t)d));
        }
      }
    static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, 448.0f, 464.0f, 480.0f, 57344.0f, 61440.0f,
                                    65536.0f, 3.0e38f, 1e-45f, -1e-45f, 1.17549435e-38f, 0.0009765625f, 0.001953125f,
                                    240.0f, 248.0f, 256.0f, -240.0f, -248.0f, -1e-30f, -0.00048828125f};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) one(f, special[i]);
    one(f, NAN), one(f, -NAN), one(f, from_bits(0x7f800001u)), one(f, from_bits(0xffc00000u));
    /* 2^16 high halves x 24 low halves */
    static const uint32_t edges[] = {0x0000u, 0x0001u, 0x0002u, 0x3fffu, 0x4000u, 0x7ffeu, 0x7fffu, 0x8000u,
                                     0x8001u, 0xbfffu, 0xc000u, 0xfffeu, 0xffffu};
    uint32_t rng = 12345u + (uint32_t)fi;
    for (uint32_t hi = 0; hi < 0x10000u; hi++) {
      for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) one(f, from_bits(hi << 16 | edges[i]));
      for (int i = 0; i < 11; i++) {
        rng = rng * 1664525u + 1013904223u;
        one(f, from_bits(hi << 16 | rng >> 16));
      }
    }
    if (bad) printf("FAIL cpu fp8 %s: %llu of %llu conversions wrong\n", f->name, (unsigned long long)bad,
                    (unsigned long long)n);
    else printf("PASS cpu fp8 %s: 256 codes to f32 and f16, %llu f32 values to fp8 (round to nearest even, saturating)\n",
                f->name, (unsigned long long)n);
  }
  return 0;
}
