/*
** common.h: helpers shared by the drivers of the doc examples.
**
** Each driver (tests/docs/drivers/NAME.c) calls the c-target launchers of
** docs/examples/NAME.lua on random inputs, with sizes that are not
** multiples of the tile and outputs filled with NaN first, and compares
** with a naive reference computed in double.  It prints one line per
** failed comparison and exits 1 if any failed, 0 otherwise.
**
** Conversions to f16 and bf16 are written here, independently of gen's
** templates, so that a wrong conversion in gen cannot hide itself.
**
** Built with -DLT_CUDA (tests/docs/gpu.sh), the same drivers check the
** sm80 output on a GPU: buffers are CUDA managed memory, so the pointers
** are valid on both sides, and expect_ok() waits for the kernel and
** checks its error before the driver reads the results.
*/
#ifndef DOCS_COMMON_H
#define DOCS_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LT_CUDA
#include <cuda_runtime_api.h>

static inline void *lt_alloc(size_t n) {
  void *p = NULL;
  if (cudaMallocManaged(&p, n, cudaMemAttachGlobal) != cudaSuccess) return NULL;
  return p;
}

/* free() of a managed buffer goes to cudaFree, of anything else to free. */
static inline void lt_free(void *p) {
  struct cudaPointerAttributes a;
  if (p && cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeManaged) cudaFree(p);
  else (free)(p);
}
#define free(p) lt_free(p)
#else
#define lt_alloc malloc
#endif

typedef enum { F32, F16, BF16, I32 } Dt;

static const char *const dt_name[] = {"f32", "f16", "bf16", "i32"};
static const size_t dt_size[] = {4, 2, 2, 4};

static int failures;

/* ---- random numbers (xorshift64*, fixed seed: runs are reproducible) ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static inline double urand(void) {   /* [0, 1) */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* A random number in [lo, hi) that is never within 1/64 of zero. */
static inline double rnd(double lo, double hi) {
  for (;;) {
    double x = lo + (hi - lo) * urand();
    if (fabs(x) >= 1.0 / 64) return x;
  }
}

static inline int irand(int lo, int hi) {   /* [lo, hi] */
  return lo + (int)(urand() * (hi - lo + 1));
}

/* ---- f16 and bf16 ---- */

static inline float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static inline double bf16_to_double(uint16_t h) { return bits_f32((uint32_t)h << 16); }

static inline uint16_t bf16_from_float(float f) {   /* round to nearest even */
  uint32_t u = f32_bits(f);
  if (isnan(f)) return 0x7fc0;
  uint32_t lsb = (u >> 16) & 1;
  return (uint16_t)((u + 0x7fff + lsb) >> 16);
}

static inline double f16_to_double(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexp(m, -24);
  else v = ldexp(1024 + m, e - 25);
  return s ? -v : v;
}

static inline uint16_t f16_from_float(float f) {   /* round to nearest even */
  if (isnan(f)) return 0x7e00;
  uint16_t s = signbit(f) ? 0x8000 : 0;
  double a = fabs((double)f);
  if (a >= 65520.0) return s | 0x7c00;             /* rounds to inf */
  if (a < ldexp(1, -14)) {                         /* subnormal: units of 2^-24 */
    double q = nearbyint(ldexp(a, 24));
    return s | (uint16_t)q;                        /* q = 1024 is the smallest normal */
  }
  int e;
  double fr = frexp(a, &e);                        /* a = fr * 2^e, fr in [0.5, 1) */
  double q = nearbyint(ldexp(fr, 11));             /* 11 significant bits */
  if (q == 2048) { q = 1024; e++; }
  if (e + 14 >= 31) return s | 0x7c00;
  return s | (uint16_t)((e + 14) << 10) | (uint16_t)((int)q - 1024);
}

/* ---- typed buffers ---- */

static inline void *buf_new(Dt dt, size_t n) {
  void *p = lt_alloc(dt_size[dt] * (n ? n : 1));
  if (!p) { fprintf(stderr, "out of memory\n"); exit(2); }
  return p;
}

/* Stores x rounded to dt and returns the value actually stored. */
static inline double buf_set(Dt dt, void *p, size_t i, double x) {
  switch (dt) {
  case F32: ((float *)p)[i] = (float)x; return ((float *)p)[i];
  case F16: ((uint16_t *)p)[i] = f16_from_float((float)x); return f16_to_double(((uint16_t *)p)[i]);
  case BF16: ((uint16_t *)p)[i] = bf16_from_float((float)x); return bf16_to_double(((uint16_t *)p)[i]);
  case I32: ((int32_t *)p)[i] = (int32_t)x; return ((int32_t *)p)[i];
  }
  return 0;
}

static inline double buf_get(Dt dt, const void *p, size_t i) {
  switch (dt) {
  case F32: return ((const float *)p)[i];
  case F16: return f16_to_double(((const uint16_t *)p)[i]);
  case BF16: return bf16_to_double(((const uint16_t *)p)[i]);
  case I32: return ((const int32_t *)p)[i];
  }
  return 0;
}

/* A new buffer of n random values in [lo, hi) (never near 0); *vals gets
** the stored values as doubles (malloc'd). */
static inline void *buf_random(Dt dt, size_t n, double lo, double hi, double **vals) {
  void *p = buf_new(dt, n);
  double *v = malloc(sizeof *v * (n ? n : 1));
  for (size_t i = 0; i < n; i++) v[i] = buf_set(dt, p, i, rnd(lo, hi));
  *vals = v;
  return p;
}

/* Fills with NaN (floats) or INT32_MIN (i32): a value no kernel writes. */
static inline void buf_poison(Dt dt, void *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (dt == I32) ((int32_t *)p)[i] = INT32_MIN;
    else buf_set(dt, p, i, NAN);
  }
}

/* Default relative tolerance of an output of dtype dt. */
static inline double dt_rtol(Dt dt) {
  return dt == F32 ? 2e-5 : dt == F16 ? 2e-3 : dt == BF16 ? 1.6e-2 : 0;
}

/* Compares n outputs with the reference: |got - ref| <= atol + rtol |ref|
** (NaN never passes; infinities must match).  Reports the first misses. */
static inline int check(const char *what, Dt dt, const void *got, const double *ref, size_t n, double rtol, double atol) {
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    double g = buf_get(dt, got, i), r = ref[i];
    int ok = isinf(r) ? g == r : fabs(g - r) <= atol + rtol * fabs(r);
    if (!ok) {
      if (bad < 3) printf("%s: element %zu is %.9g, want %.9g\n", what, i, g, r);
      bad++;
    }
  }
  if (bad) {
    printf("%s: %zu of %zu elements wrong\n", what, bad, n);
    failures++;
    return 1;
  }
  return 0;
}

/* Appends n bytes at p to the file $LT_DUMP, when it is set: tests/emu/drivers.sh
** compares what each target's run wrote with the c target's. */
static inline void dump(const void *p, size_t n) {
  const char *path = getenv("LT_DUMP");
  if (!path) return;
  FILE *f = fopen(path, "ab");
  if (!f || fwrite(p, 1, n, f) != n) {
    printf("cannot write %s\n", path);
    failures++;
  }
  if (f) fclose(f);
}

/* Checks that a launcher returned 0. */
static inline int expect_ok(const char *what, int rc) {
#ifdef LT_CUDA
  if (rc == 0) rc = (int)cudaDeviceSynchronize();
#endif
  if (rc != 0) {
    printf("%s: launcher returned %d\n", what, rc);
    failures++;
  }
  return rc;
}

/* Checks that a launcher rejected its arguments (nonzero return). */
static inline void expect_reject(const char *what, int rc) {
  if (rc == 0) {
    printf("%s: launcher accepted bad arguments\n", what);
    failures++;
  }
}

static inline int finish(const char *name) {
  if (failures) {
    printf("%s: %d check(s) failed\n", name, failures);
    return 1;
  }
  return 0;
}

#endif
