/*
** common.h: what the CPU numerics programs share (check.c, matmul.c):
** storage <-> double for f32 / f16 / bf16, a seeded random source, random
** and poisoned buffers, and the PASS / FAIL printing.  Static: each
** program includes it once.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F32, F16, BF16 };
static const char *const dname[] = {"f32", "f16", "bf16"};
static const int dbytes[] = {4, 2, 2};
static const double rel_tol[] = {2e-5, 4e-3, 2e-2};
static const double abs_tol[] = {1e-5, 1e-3, 1e-2};

/* Storage <-> double, written independently of gen's templates: f16 via
** the compiler's _Float16, bf16 by truncating bits after rounding. */
static double get(const void *p, int dt, size_t i) {
  if (dt == F32) return ((const float *)p)[i];
  if (dt == F16) return (double)((const _Float16 *)p)[i];
  uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void put(void *p, int dt, size_t i, double v) {
  if (dt == F32) ((float *)p)[i] = (float)v;
  else if (dt == F16) ((_Float16 *)p)[i] = (_Float16)v;
  else {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    ((uint16_t *)p)[i] = (uint16_t)(u >> 16);
  }
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

/* A buffer of n random non-zero values of dtype dt in [lo, hi]. */
static void *random_buf(int dt, size_t n, double lo, double hi) {
  void *p = malloc(n * (size_t)dbytes[dt]);
  for (size_t i = 0; i < n; i++) {
    double v;
    do v = uniform(lo, hi);
    while (fabs(v) < 1e-3);
    put(p, dt, i, v);
  }
  return p;
}

static void *poisoned(int dt, size_t n) {
  void *p = malloc(n * (size_t)dbytes[dt]);
  memset(p, 0xff, n * (size_t)dbytes[dt]);   /* NaN in every float format */
  return p;
}

static int failures, passes;

/* Compares out with ref; prints one PASS/FAIL line for the case. */
static void compare(const char *name, int dt, const void *out, const double *ref, size_t n) {
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    double o = get(out, dt, i), d = fabs(o - ref[i]);
    double excess = d - (abs_tol[dt] + rel_tol[dt] * fabs(ref[i]));
    if (isnan(o) || excess > worst) {
      worst = isnan(o) ? INFINITY : excess;
      at = i;
      if (isnan(o)) break;
    }
  }
  if (worst > 0) {
    printf("FAIL %s: element %zu is %g, reference %g\n", name, at, get(out, dt, at), ref[at]);
    failures++;
  } else {
    printf("PASS %s\n", name);
    passes++;
  }
}

static void status(const char *name, int ok, const char *why) {
  if (ok) printf("PASS %s\n", name), passes++;
  else printf("FAIL %s: %s\n", name, why), failures++;
}

