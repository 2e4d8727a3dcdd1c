/*
** check.cpp: numerics of the emulated GPU code (gen --emulate) of every
** shipped kernel, for one target.  tests/emu/run.sh builds it once per
** target with -I the folder of that target's generated headers and links
** it with that target's .emu.cpp objects.
**
** Each case draws random inputs (never zeros) of a ragged shape (not a
** multiple of the tile), rounds them to the variant's dtype, poisons the
** outputs (0xff bytes: NaN in every float format), surrounds every buffer
** with guard bytes (poisoned for AddressSanitizer when built with it,
** checked after the run otherwise), runs the launcher and compares every
** element with a float64 reference computed here from the rounded inputs:
**     |out - ref| <= atol + rtol * |ref|, and no NaN.
** Some cases pass pointers one element past a 16-byte boundary, so the
** kernels take their element-by-element paths.
**
**   check TARGET [VARIANT]   runs the cases (of VARIANT only, if given)
**   check --list             prints the variants it has cases for
** Prints one PASS / FAIL line per case, then "# emu TARGET: done".
*/
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define CHECK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHECK_ASAN 1
#endif
#endif
#ifdef CHECK_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define HAVE(h) __has_include(h)
#if HAVE("add_f32.h")
#include "add_f32.h"
#endif
#if HAVE("add_f16.h")
#include "add_f16.h"
#endif
#if HAVE("add_bf16.h")
#include "add_bf16.h"
#endif
#if HAVE("bias_gelu_f32.h")
#include "bias_gelu_f32.h"
#endif
#if HAVE("bias_gelu_f16.h")
#include "bias_gelu_f16.h"
#endif
#if HAVE("bias_gelu_bf16.h")
#include "bias_gelu_bf16.h"
#endif
#if HAVE("embedding_f32_fwd.h")
#include "embedding_f32_fwd.h"
#endif
#if HAVE("embedding_f32_bwd.h")
#include "embedding_f32_bwd.h"
#endif
#if HAVE("embedding_f32_det.h")
#include "embedding_f32_det.h"
#endif
#if HAVE("embedding_f16_fwd.h")
#include "embedding_f16_fwd.h"
#endif
#if HAVE("embedding_f16_bwd.h")
#include "embedding_f16_bwd.h"
#endif
#if HAVE("embedding_f16_det.h")
#include "embedding_f16_det.h"
#endif
#if HAVE("embedding_bf16_fwd.h")
#include "embedding_bf16_fwd.h"
#endif
#if HAVE("embedding_bf16_bwd.h")
#include "embedding_bf16_bwd.h"
#endif
#if HAVE("embedding_bf16_det.h")
#include "embedding_bf16_det.h"
#endif
#if HAVE("cross_entropy_f32_fwd.h")
#include "cross_entropy_f32_fwd.h"
#endif
#if HAVE("cross_entropy_f32_bwd.h")
#include "cross_entropy_f32_bwd.h"
#endif
#if HAVE("cross_entropy_f16_fwd.h")
#include "cross_entropy_f16_fwd.h"
#endif
#if HAVE("cross_entropy_f16_bwd.h")
#include "cross_entropy_f16_bwd.h"
#endif
#if HAVE("cross_entropy_bf16_fwd.h")
#include "cross_entropy_bf16_fwd.h"
#endif
#if HAVE("cross_entropy_bf16_bwd.h")
#include "cross_entropy_bf16_bwd.h"
#endif
#if HAVE("embedding_f32_i64_fwd.h")
#include "embedding_f32_i64_fwd.h"
#endif
#if HAVE("embedding_f32_i64_bwd.h")
#include "embedding_f32_i64_bwd.h"
#endif
#if HAVE("embedding_f32_i64_det.h")
#include "embedding_f32_i64_det.h"
#endif
#if HAVE("embedding_f16_i64_fwd.h")
#include "embedding_f16_i64_fwd.h"
#endif
#if HAVE("embedding_f16_i64_bwd.h")
#include "embedding_f16_i64_bwd.h"
#endif
#if HAVE("embedding_f16_i64_det.h")
#include "embedding_f16_i64_det.h"
#endif
#if HAVE("embedding_bf16_i64_fwd.h")
#include "embedding_bf16_i64_fwd.h"
#endif
#if HAVE("embedding_bf16_i64_bwd.h")
#include "embedding_bf16_i64_bwd.h"
#endif
#if HAVE("embedding_bf16_i64_det.h")
#include "embedding_bf16_i64_det.h"
#endif
#if HAVE("cross_entropy_f32_i64_fwd.h")
#include "cross_entropy_f32_i64_fwd.h"
#endif
#if HAVE("cross_entropy_f32_i64_bwd.h")
#include "cross_entropy_f32_i64_bwd.h"
#endif
#if HAVE("cross_entropy_f16_i64_fwd.h")
#include "cross_entropy_f16_i64_fwd.h"
#endif
#if HAVE("cross_entropy_f16_i64_bwd.h")
#include "cross_entropy_f16_i64_bwd.h"
#endif
#if HAVE("cross_entropy_bf16_i64_fwd.h")
#include "cross_entropy_bf16_i64_fwd.h"
#endif
#if HAVE("cross_entropy_bf16_i64_bwd.h")
#include "cross_entropy_bf16_i64_bwd.h"
#endif
#if HAVE("softmax_f32.h")
#include "softmax_f32.h"
#endif
#if HAVE("softmax_f16.h")
#include "softmax_f16.h"
#endif
#if HAVE("softmax_bf16.h")
#include "softmax_bf16.h"
#endif
#if HAVE("rmsnorm_f32.h")
#include "rmsnorm_f32.h"
#endif
#if HAVE("rmsnorm_f16.h")
#include "rmsnorm_f16.h"
#endif
#if HAVE("rmsnorm_bf16.h")
#include "rmsnorm_bf16.h"
#endif
#if HAVE("layernorm_f32.h")
#include "layernorm_f32.h"
#endif
#if HAVE("layernorm_f16.h")
#include "layernorm_f16.h"
#endif
#if HAVE("layernorm_bf16.h")
#include "layernorm_bf16.h"
#endif
/* run.sh writes matmul_list.h: the matmul variants to check, as
** LT_MATMULS(X) with X(fn, dtype, trans_a, trans_b, activation, has_bias). */
#if HAVE("matmul_list.h")
#include "matmul_list.h"
#endif

/* The user-style GEMMs of tests/emu/kernels (not matmul.lua): gen gives
** them the schedule it gives matmul.lua on each target. */
#if HAVE("swiglu_f16.h")
#include "swiglu_f16.h"
#endif
#if HAVE("swiglu_bf16.h")
#include "swiglu_bf16.h"
#endif
#if HAVE("gemm_leaky_f16_tall.h")
#include "gemm_leaky_f16_tall.h"
#endif
#if HAVE("gemm_leaky_bf16_tall.h")
#include "gemm_leaky_bf16_tall.h"
#endif
#if HAVE("gemm_leaky_f16_wide.h")
#include "gemm_leaky_f16_wide.h"
#endif
#if HAVE("gemm_leaky_bf16_wide.h")
#include "gemm_leaky_bf16_wide.h"
#endif
#if HAVE("gemm_leaky_f16_one.h")
#include "gemm_leaky_f16_one.h"
#endif
#if HAVE("gemm_leaky_bf16_one.h")
#include "gemm_leaky_bf16_one.h"
#endif
#if HAVE("gemm_odd_nn_n192.h")
#include "gemm_odd_nn_n192.h"
#endif
#if HAVE("gemm_odd_nn_n208.h")
#include "gemm_odd_nn_n208.h"
#endif
#if HAVE("gemm_odd_nn_m192.h")
#include "gemm_odd_nn_m192.h"
#endif
#if HAVE("gemm_odd_nt_n192.h")
#include "gemm_odd_nt_n192.h"
#endif
#if HAVE("gemm_odd_nt_n208.h")
#include "gemm_odd_nt_n208.h"
#endif
#if HAVE("gemm_odd_nt_m192.h")
#include "gemm_odd_nt_m192.h"
#endif
#if HAVE("gemm_colsum_f16.h")
#include "gemm_colsum_f16.h"
#endif
#if HAVE("gemm_tf32_nn.h")
#include "gemm_tf32_nn.h"
#endif
#if HAVE("gemm_tf32_tn.h")
#include "gemm_tf32_tn.h"
#endif
#if HAVE("gemm_tf32_tt.h")
#include "gemm_tf32_tt.h"
#endif
#if HAVE("gemm_tf32_wide_nn.h")
#include "gemm_tf32_wide_nn.h"
#endif
#if HAVE("gemm_tf32_wide_tt.h")
#include "gemm_tf32_wide_tt.h"
#endif
#if HAVE("gemm_colsum_bf16.h")
#include "gemm_colsum_bf16.h"
#endif
#if HAVE("gemm_xt_f16.h")
#include "gemm_xt_f16.h"
#endif
#if HAVE("gemm_xt_bf16.h")
#include "gemm_xt_bf16.h"
#endif

/* run.sh writes attention_list.h: the attention variant groups to check
** (forward, Delta, dQ, dK/dV; then the backward with dQ by atomics: its
** Delta + dQacc clear, dK/dV + dQ, and dQacc -> dQ, or 0s where the group
** has none), as LT_ATTENTIONS(X) with
** X(fwd, pre, dq, dkdv, prea, dkdva, post, dtype, head dim, softcap,
** int_rows): int_rows 1 where the forward's header gives its sequence
** strides the range 0 to 2^31 - 1 (they reach the kernel as int). */
#if HAVE("attention_list.h")
#include "attention_list.h"
#endif

enum Dt { F32, F16, BF16 };
static const size_t dt_bytes[] = {4, 2, 2};
static const double rel_tol[] = {2e-5, 4e-3, 2e-2};
static const double abs_tol[] = {1e-5, 1e-3, 1e-2};

static const char *target = "?";
static const char *only = NULL;   /* run only this variant */
static int listing;
static int fails;

/* ------------------------------------------------------------------ */
/* values                                                               */

/* Element i of a buffer of dtype dt, as a double.  f16 through the host
** compiler's _Float16, bf16 by shifting its bits: independent of the
** conversions the emulated code uses. */
static double get(const void *p, Dt dt, size_t i) {
  if (dt == F32) return ((const float *)p)[i];
  if (dt == F16) return (double)(float)((const _Float16 *)p)[i];
  uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Stores v as element i, rounded to nearest even. */
static void put(void *p, Dt dt, size_t i, double v) {
  if (dt == F32) ((float *)p)[i] = (float)v;
  else if (dt == F16) ((_Float16 *)p)[i] = (_Float16)(float)v;
  else {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    ((uint16_t *)p)[i] = (uint16_t)u;
  }
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static double uniform(double lo, double hi) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* ------------------------------------------------------------------ */
/* guarded buffers                                                      */

enum { GUARD = 256 };

/* A tensor of n elements with GUARD bytes on each side; `skew` shifts the
** data one element off 16-byte alignment. */
struct Buf {
  unsigned char *base;
  void *p;
  size_t n, bytes;
  Dt dt;
};

static Buf make(Dt dt, size_t n, int skew) {
  Buf b;
  b.dt = dt, b.n = n, b.bytes = n * dt_bytes[dt];
  size_t off = GUARD + (skew ? dt_bytes[dt] : 0);
  b.base = (unsigned char *)aligned_alloc(64, (off + b.bytes + GUARD + 63) / 64 * 64);
  memset(b.base, 0xa5, off + b.bytes + GUARD);
  b.p = b.base + off;
#ifdef CHECK_ASAN
  ASAN_POISON_MEMORY_REGION(b.base, off);
  ASAN_POISON_MEMORY_REGION((unsigned char *)b.p + b.bytes, GUARD);
#endif
  return b;
}

/* Random values in [lo, hi], none within 1e-3 of zero, rounded to dt. */
static Buf random_buf(Dt dt, size_t n, double lo, double hi, int skew) {
  Buf b = make(dt, n, skew);
  for (size_t i = 0; i < n; i++) {
    double v;
    do v = uniform(lo, hi);
    while (fabs(v) < 1e-3);
    put(b.p, dt, i, v);
  }
  return b;
}

static Buf poisoned(Dt dt, size_t n, int skew) {
  Buf b = make(dt, n, skew);
  memset(b.p, 0xff, b.bytes);
  return b;
}

/* Whether the guard bytes around b are intact (always, under ASan, which
** reports a touch of them itself). */
static bool guards_ok(const Buf &b) {
  size_t lo = (size_t)((unsigned char *)b.p - b.base);
#ifdef CHECK_ASAN
  ASAN_UNPOISON_MEMORY_REGION(b.base, lo);
  ASAN_UNPOISON_MEMORY_REGION((unsigned char *)b.p + b.bytes, GUARD);
#endif
  for (size_t i = 0; i < lo; i++)
    if (b.base[i] != 0xa5) return false;
  for (size_t i = 0; i < GUARD; i++)
    if (((unsigned char *)b.p)[b.bytes + i] != 0xa5) return false;
  return true;
}

static void drop(Buf &b) {
  guards_ok(b);   /* unpoisons */
  free(b.base);
}

/* ------------------------------------------------------------------ */
/* verdicts                                                             */

static void verdict(const char *name, const char *why) {
  if (why) {
    printf("FAIL emu %s %s: %s\n", target, name, why);
    fails++;
  } else {
    printf("PASS emu %s %s\n", target, name);
  }
  fflush(stdout);
}

/* Compares output `out` with ref, allowing slack[i] more (if slack);
** returns NULL or why not.  A NaN in ref: that element must keep its
** poison (it lies in a gap the kernel must not write). */
static const char *compare(const Buf &out, const double *ref, const double *slack) {
  static char why[256];
  if (!guards_ok(out)) return "a write outside the output tensor (guard bytes changed)";
  for (size_t i = 0; i < out.n; i++) {
    if (isnan(ref[i])) {   /* not to be written: still the 0xff poison */
      for (size_t b = 0; b < dt_bytes[out.dt]; b++)
        if (((unsigned char *)out.p)[i * dt_bytes[out.dt] + b] != 0xff) {
          snprintf(why, sizeof why, "element %zu, in a gap between rows, was written", i);
          return why;
        }
      continue;
    }
    double o = get(out.p, out.dt, i), tol = abs_tol[out.dt] + rel_tol[out.dt] * fabs(ref[i]) + (slack ? slack[i] : 0);
    if (isnan(o) || fabs(o - ref[i]) > tol) {
      snprintf(why, sizeof why, "element %zu is %.9g, reference %.9g (tolerance %.2g)", i, o, ref[i], tol);
      return why;
    }
  }
  return NULL;
}

/* Whether cases of `variant` are to run (and lists it with --list). */
static bool wanted(const char *variant) {
  if (listing) {
    printf("%s\n", variant);
    return false;
  }
  return !only || strcmp(only, variant) == 0;
}

static FILE *hashes;   /* $LT_CHECK_HASHES: "name hash" of every output */

/* Judges one run: the launcher's status, then the output against ref;
** records a hash of the output bytes when asked. */
static void judge(const char *name, int rc, const Buf &out, const double *ref, const double *slack = NULL) {
  char why[96];
  if (rc) {
    snprintf(why, sizeof why, "launcher returned error %d", rc);
    verdict(name, why);
    return;
  }
  verdict(name, compare(out, ref, slack));
  if (hashes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < out.bytes; i++) h = (h ^ ((unsigned char *)out.p)[i]) * 0x100000001b3ull;
    fprintf(hashes, "%s %016llx\n", name, (unsigned long long)h);
  }
}

/* ------------------------------------------------------------------ */
/* the kernels                                                          */

typedef int (*AddFn)(const void *, const void *, void *, int, void *);
typedef int (*BiasGeluFn)(const void *, const void *, void *, int, int, void *);
typedef int (*SoftmaxFn)(const void *, void *, int, int, void *);
typedef int (*RmsFn)(const void *, const void *, void *, int, int, float, void *);
typedef int (*LnFn)(const void *, const void *, const void *, void *, int, int, float, void *);

/* Z = X + Y over ragged lengths (blocks of 4096 elements). */
static void test_add(Dt dt, const char *variant, AddFn fn) {
  if (!wanted(variant)) return;
  static const int sizes[] = {1, 7, 4095, 4097, 9001};
  for (int s = 0; s < 5; s++)
    for (int skew = 0; skew < 2; skew++) {
      int n = sizes[s];
      if (skew && n < 4000) continue;
      Buf x = random_buf(dt, (size_t)n, -3, 3, skew), y = random_buf(dt, (size_t)n, -3, 3, skew);
      Buf z = poisoned(dt, (size_t)n, skew);
      double *ref = (double *)malloc(sizeof(double) * (size_t)n);
      for (int i = 0; i < n; i++) ref[i] = get(x.p, dt, (size_t)i) + get(y.p, dt, (size_t)i);
      char name[96];
      snprintf(name, sizeof name, "%s N=%d%s", variant, n, skew ? " misaligned" : "");
      judge(name, fn(x.p, y.p, z.p, n, NULL), z, ref);
      drop(x), drop(y), drop(z), free(ref);
    }
  Buf ok = random_buf(dt, 8, -1, 1, 0);
  char name[96];
  snprintf(name, sizeof name, "%s rejects bad arguments", variant);
  bool rejects = fn(NULL, ok.p, ok.p, 8, NULL) != 0 && fn(ok.p, ok.p, ok.p, 0, NULL) != 0 &&
                 fn((char *)ok.p + 1, ok.p, ok.p, 4, NULL) != 0;
  verdict(name, rejects ? NULL : "a null pointer, a size of 0 or an odd address was accepted");
  drop(ok);
}

/* Y = gelu(X + B), B broadcast down the rows; tiles of 8 x 512. */
static void test_bias_gelu(Dt dt, const char *variant, BiasGeluFn fn) {
  if (!wanted(variant)) return;
  static const int shapes[][2] = {{1, 1}, {13, 700}, {9, 1025}, {3, 513}};
  for (int s = 0; s < 4; s++)
    for (int skew = 0; skew < 2; skew++) {
      int M = shapes[s][0], N = shapes[s][1];
      if (skew && M == 1) continue;
      size_t n = (size_t)M * (size_t)N;
      Buf x = random_buf(dt, n, -3, 3, skew), b = random_buf(dt, (size_t)N, -1, 1, skew), y = poisoned(dt, n, skew);
      double *ref = (double *)malloc(sizeof(double) * n);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double h = get(x.p, dt, (size_t)i * N + j) + get(b.p, dt, (size_t)j);
          ref[(size_t)i * N + j] = 0.5 * h * (1.0 + erf(h / sqrt(2.0)));
        }
      char name[96];
      snprintf(name, sizeof name, "%s %dx%d%s", variant, M, N, skew ? " misaligned" : "");
      judge(name, fn(x.p, b.p, y.p, M, N, NULL), y, ref);
      drop(x), drop(b), drop(y), free(ref);
    }
}

/* Row shapes: one chunk of 4096 (full, ragged, tiny) and several chunks;
** odd lengths (7, 8191, 30001, a vocabulary of 50257, 128256 + 3), whose
** second row starts off the 16-byte grid (8191 and 30001: softmax's
** buckets whose rows off the grid run another bucket's config, off_grid). */
static const int rows[][2] = {{1, 1}, {3, 1000}, {2, 4096}, {2, 4097}, {3, 9000}, {4, 77},
                              {2, 7}, {2, 8191}, {2, 30001}, {2, 50257}, {2, 128259}};
enum { NROWS = sizeof rows / sizeof rows[0] };

/* Y = softmax over the last dim; odd rows get a ramp, so a long row's
** running max grows from chunk to chunk. */
static void test_softmax(Dt dt, const char *variant, SoftmaxFn fn) {
  if (!wanted(variant)) return;
  for (int s = 0; s < NROWS; s++)
    for (int skew = 0; skew < 2; skew++) {
      int R = rows[s][0], C = rows[s][1];
      if (skew && C < 1000) continue;
      size_t n = (size_t)R * C;
      Buf x = random_buf(dt, n, -6, 6, skew), y = poisoned(dt, n, skew);
      for (int r = 1; r < R; r += 2)
        for (int c = 0; c < C; c++) put(x.p, dt, (size_t)r * C + c, get(x.p, dt, (size_t)r * C + c) + 12.0 * c / C);
      double *ref = (double *)malloc(sizeof(double) * n);
      for (int r = 0; r < R; r++) {
        double m = -INFINITY, sum = 0;
        for (int c = 0; c < C; c++) m = fmax(m, get(x.p, dt, (size_t)r * C + c));
        for (int c = 0; c < C; c++) sum += exp(get(x.p, dt, (size_t)r * C + c) - m);
        for (int c = 0; c < C; c++) ref[(size_t)r * C + c] = exp(get(x.p, dt, (size_t)r * C + c) - m) / sum;
      }
      char name[96];
      snprintf(name, sizeof name, "%s %dx%d%s", variant, R, C, skew ? " misaligned" : "");
      judge(name, fn(x.p, y.p, R, C, NULL), y, ref);
      drop(x), drop(y), free(ref);
    }
}

/* RMSNorm (rms) or LayerNorm (ln) over the last dim, eps 1e-5. */
static void test_norm(Dt dt, const char *variant, RmsFn rms, LnFn ln) {
  if (!wanted(variant)) return;
  const float eps = 1e-5f;
  for (int s = 0; s < NROWS; s++)
    for (int skew = 0; skew < 2; skew++) {
      int R = rows[s][0], C = rows[s][1];
      if (skew && C < 1000) continue;
      size_t n = (size_t)R * C;
      Buf x = random_buf(dt, n, -3, 3, skew), w = random_buf(dt, (size_t)C, 0.5, 1.5, skew);
      Buf b = random_buf(dt, (size_t)C, -1, 1, skew), y = poisoned(dt, n, skew);
      double *ref = (double *)malloc(sizeof(double) * n);
      for (int r = 0; r < R; r++) {
        const size_t o = (size_t)r * C;
        double mean = 0, ss = 0;
        if (ln) {
          for (int c = 0; c < C; c++) mean += get(x.p, dt, o + c);
          mean /= C;
        }
        for (int c = 0; c < C; c++) ss += (get(x.p, dt, o + c) - mean) * (get(x.p, dt, o + c) - mean);
        double rstd = 1.0 / sqrt(ss / C + eps);
        for (int c = 0; c < C; c++)
          ref[o + c] = (get(x.p, dt, o + c) - mean) * rstd * get(w.p, dt, (size_t)c) + (ln ? get(b.p, dt, (size_t)c) : 0);
      }
      char name[96];
      snprintf(name, sizeof name, "%s %dx%d%s", variant, R, C, skew ? " misaligned" : "");
      int rc = rms ? rms(x.p, w.p, y.p, R, C, eps, NULL) : ln(x.p, w.p, b.p, y.p, R, C, eps, NULL);
      judge(name, rc, y, ref);
      drop(x), drop(w), drop(b), drop(y), free(ref);
    }
}


/* ------------------------------------------------------------------ */
/* matmul: C = act(alpha op(A) op(B) + beta C0 + bias), batched          */

enum { ACT_NONE, ACT_RELU, ACT_GELU, ACT_SILU };

typedef int (*MmFn)(const void *C0, const void *A, const void *B, void *C, int batch, int M, int N, int K,
                    int64_t sc, int64_t ldc, int64_t sa, int64_t lda, int64_t sb, int64_t ldb, float alpha,
                    float beta, void *stream);
typedef int (*MmBiasFn)(const void *C0, const void *A, const void *B, void *C, const void *bias, int batch, int M,
                        int N, int K, int64_t sc, int64_t ldc, int64_t sa, int64_t lda, int64_t sb, int64_t ldb,
                        float alpha, float beta, void *stream);

static double activation(int a, double x) {
  if (a == ACT_RELU) return x > 0 ? x : 0;
  if (a == ACT_GELU) return 0.5 * x * (1 + erf(x / sqrt(2.0)));
  if (a == ACT_SILU) return x / (1 + exp(-x));
  return x;
}

/* A case: sizes, scalars, and whether rows are padded (gaps between rows
** and matrices, rows not 16-byte aligned: the element paths) or tight
** and aligned (whole tiles by cp.async or vectors).  The shipped tiles are
** 128 x 256 x 64 (128 x 128 on gfx1100) with a ring of 3 stages: 1 x 1 x 1,
** ragged edges in every dimension, 2 x 2 tiles (the grouped order), a K
** loop long enough to go round the ring twice, a batch, beta (C0 read)
** and beta 0 (C0 NaN, unread).  Then ragged M around the small-M buckets'
** tiles (16, 32 and 64 rows; on sm90a under 64 the swapped operands, in
** every layout): M = 7, 16, 31, 33, 64, 65 over two column tiles of 64
** and a K loop of two steps of 128 (the last short), rows tight (A's rows
** of 16 and 64 elements take the TMA kernel in tn and tt, the others its
** cp.async twin) or padded.  Last, M = 1: tight, A in tn and tt is one row
** of K unit-strided elements (lda 1), which the small-M buckets' launchers
** run through their row twins (pass/row.c; K = 136: its TMA kernel, 131:
** its cp.async twin), and padded (lda 4: the tn and tt kernels).  And
** M = 100, tight: in tn and tt A's rows are 200 bytes apart, every other
** one off the 16-byte grid (no tensor map: the cp.async twin, whose chunks
** there go as 8-byte pieces), and M = 102: rows 204 bytes apart, starting
** 0, 12, 8 and 4 bytes past the grid in turn (one 16-byte piece, four of
** 4, two of 8, four of 4; the padded cases' rows of 34 elements take the
** 4-byte ones too). */
struct MmCase {
  int batch, M, N, K;
  float alpha, beta;
  int gaps;
};

static const MmCase mm_cases[] = {
  {1, 1, 1, 1, 1.0f, 0.0f, 1},      {2, 37, 45, 29, 1.5f, 0.5f, 1},  {1, 150, 300, 70, 1.0f, 0.0f, 1},
  {1, 128, 256, 448, 0.5f, 1.0f, 0}, {2, 136, 8, 64, -1.0f, 0.25f, 0}, {1, 7, 72, 136, 1.0f, 0.5f, 0},
  {1, 16, 72, 136, 1.0f, 0.0f, 0},  {1, 31, 72, 136, 1.5f, 0.0f, 1}, {1, 33, 72, 136, 1.0f, 0.5f, 0},
  {1, 64, 72, 136, 1.0f, 0.0f, 0},  {1, 65, 72, 136, 0.5f, 0.0f, 1},
  {1, 1, 72, 136, 1.0f, 0.5f, 0},   {2, 1, 72, 131, 1.5f, 0.0f, 0},  {2, 1, 72, 136, 1.0f, 0.0f, 1},
  {1, 100, 72, 136, 1.0f, 0.5f, 0}, {1, 102, 72, 136, 1.0f, 0.0f, 0},
};

/* The elements of a buffer as doubles. */
static double *as_doubles(const Buf &b) {
  double *d = (double *)malloc(sizeof(double) * (b.n ? b.n : 1));
  for (size_t i = 0; i < b.n; i++) d[i] = get(b.p, b.dt, i);
  return d;
}

static void test_matmul(const char *variant, void *fn, Dt dt, int ta, int tb, int act, int has_bias) {
  if (!wanted(variant)) return;
  int tf32 = strstr(variant, "_tf32_") != NULL;   /* f32 matrices, tf32 products */
  int tf32_cut = tf32 && ta == 0 && tb == 1 && strcmp(target, "sm90a") == 0;   /* by wgmma: truncated */
  for (const MmCase &c : mm_cases) {
    int ar = ta ? c.K : c.M, ac = ta ? c.M : c.K, br = tb ? c.N : c.K, bc = tb ? c.K : c.N;
    int64_t lda = ac + (c.gaps ? 3 : 0), ldb = bc + (c.gaps ? 1 : 0), ldc = c.N + (c.gaps ? 2 : 0);
    int64_t sa = ar * lda + (c.gaps ? 5 : 0), sb = br * ldb + (c.gaps ? 7 : 0), sc = c.M * ldc + (c.gaps ? 1 : 0);
    size_t na = (size_t)(c.batch * sa), nb = (size_t)(c.batch * sb), nc = (size_t)(c.batch * sc);
    Buf A = random_buf(dt, na, -1, 1, 0), B = random_buf(dt, nb, -1, 1, 0), bias = random_buf(dt, (size_t)c.N, -1, 1, 0);
    Buf C0 = c.beta != 0 ? random_buf(dt, nc, -1, 1, 0) : poisoned(dt, nc, 0);   /* beta 0: C0 must not be read */
    Buf C = poisoned(dt, nc, 0);
    double *ref = (double *)malloc(sizeof(double) * nc), *slack = (double *)calloc(nc, sizeof(double));
    for (size_t i = 0; i < nc; i++) ref[i] = NAN;   /* gaps: must stay poisoned */
    double *a = as_doubles(A), *bb = as_doubles(B);
    for (int bi = 0; bi < c.batch; bi++)
      for (int i = 0; i < c.M; i++)
        for (int j = 0; j < c.N; j++) {
          double acc = 0, mag = 0;
          for (int k = 0; k < c.K; k++) {
            size_t ai = (size_t)(bi * sa + (ta ? k * lda + i : i * lda + k));
            size_t bj = (size_t)(bi * sb + (tb ? j * ldb + k : k * ldb + j));
            acc += a[ai] * bb[bj];
            mag += fabs(a[ai] * bb[bj]);
          }
          size_t ci = (size_t)(bi * sc + i * ldc + j);
          /* f32 accumulation: a sum of K products errs by up to K eps sum |a b|;
          ** tf32 operands (2^-11 each, rounded to nearest) add 2^-10 sum |a b|;
          ** wgmma's (sm90a nt: the f32 words' low 13 bits dropped, 2^-10 each)
          ** 2^-9 */
          slack[ci] = 1.2 * (c.K + 2) * 1.2e-7 * (fabs(c.alpha) * mag + fabs(c.beta) + 1) +
                      (tf32 ? 1.2 * (tf32_cut ? 0x1p-9 : 0x1p-10) * fabs(c.alpha) * mag : 0);
          double v = c.alpha * acc + (c.beta != 0 ? c.beta * get(C0.p, dt, ci) : 0) + (has_bias ? get(bias.p, dt, (size_t)j) : 0);
          ref[ci] = activation(act, v);
        }
    char name[128];
    snprintf(name, sizeof name, "%s %dx%dx%dx%d%s", variant, c.batch, c.M, c.N, c.K, c.gaps ? " gaps" : " aligned");
    int rc = has_bias ? ((MmBiasFn)fn)(C0.p, A.p, B.p, C.p, bias.p, c.batch, c.M, c.N, c.K, sc, ldc, sa, lda, sb, ldb,
                                       c.alpha, c.beta, NULL)
                      : ((MmFn)fn)(C0.p, A.p, B.p, C.p, c.batch, c.M, c.N, c.K, sc, ldc, sa, lda, sb, ldb, c.alpha,
                                   c.beta, NULL);
    judge(name, rc, C, ref, slack);
    drop(A), drop(B), drop(bias), drop(C0), drop(C), free(ref), free(slack), free(a), free(bb);
  }
}

/* ------------------------------------------------------------------ */
/* user-style GEMMs (tests/emu/kernels): a SwiGLU, Y = silu(X W1) * (X W3),  */
/* and C = leaky_relu(A B^T, slope); contiguous row-major matrices        */

typedef int (*SwigluFn)(const void *X, const void *W1, const void *W3, void *Y, int M, int K, int N, void *stream);
typedef int (*LeakyFn)(const void *A, const void *B, void *C, int M, int K, int N, float slope, void *stream);

/* Sizes: one element, ragged in every dimension, a K loop twice round the
** ring, and whole tiles.  On sm90a a tensor map needs rows of a multiple
** of 16 bytes: K = 72 and 448 run the TMA kernel (its boxes zero-filled
** past M, N and K at 72), K = 1 and 70 the cp.async kernel the launcher
** falls back to; so does `skew`, which starts every matrix one element off
** a 16-byte boundary (and the copies take their element paths there).
** K = 448 and 456: two calls long enough for split-K's parts
** (LT_EMU_SPLITS), the second on the counters the first left. */
struct UserCase { int M, N, K, skew; };
static const UserCase user_cases[] = {
  {1, 1, 1, 0}, {150, 300, 70, 0}, {150, 300, 72, 0}, {256, 256, 448, 0}, {77, 136, 40, 1}, {96, 200, 456, 0},
};

/* sum_k a[i k] b[k j] (b_nk: b stored [N, K]) and its magnitude, in double. */
static double dot(const double *a, const double *b, int i, int j, int N, int K, int b_nk, double *mag) {
  double acc = 0;
  *mag = 0;
  for (int k = 0; k < K; k++) {
    double p = a[(size_t)i * K + k] * b[b_nk ? (size_t)j * K + k : (size_t)k * N + j];
    acc += p;
    *mag += fabs(p);
  }
  return acc;
}

static void test_swiglu(const char *variant, SwigluFn fn, Dt dt) {
  if (!wanted(variant)) return;
  for (const UserCase &c : user_cases) {
    size_t nx = (size_t)c.M * c.K, nw = (size_t)c.K * c.N, ny = (size_t)c.M * c.N;
    Buf X = random_buf(dt, nx, -1, 1, c.skew), W1 = random_buf(dt, nw, -1, 1, c.skew);
    Buf W3 = random_buf(dt, nw, -1, 1, c.skew), Y = poisoned(dt, ny, c.skew);
    double *x = as_doubles(X), *w1 = as_doubles(W1), *w3 = as_doubles(W3);
    double *ref = (double *)malloc(sizeof(double) * ny), *slack = (double *)malloc(sizeof(double) * ny);
    for (int i = 0; i < c.M; i++)
      for (int j = 0; j < c.N; j++) {
        double m1, m3, g = dot(x, w1, i, j, c.N, c.K, 0, &m1), u = dot(x, w3, i, j, c.N, c.K, 0, &m3);
        size_t o = (size_t)i * c.N + j;
        ref[o] = g / (1 + exp(-g)) * u;
        /* f32 sums (K eps each), carried through silu (slope below 1.1) times u, and g times u's */
        slack[o] = 1.2 * (c.K + 2) * 1.2e-7 * (1.1 * m1 * fabs(u) + fabs(g) * m3 + 1);
      }
    int rc = fn(X.p, W1.p, W3.p, Y.p, c.M, c.K, c.N, NULL);
    char name[128];
    snprintf(name, sizeof name, "%s %dx%dx%d%s", variant, c.M, c.N, c.K, c.skew ? " skewed" : "");
    judge(name, rc, Y, ref, slack);
    drop(X), drop(W1), drop(W3), drop(Y), free(x), free(w1), free(w3), free(ref), free(slack);
  }
}

/* C = leaky_relu(A op(B)): B stored [N, K] (gemm_leaky.lua; gemm_odd.lua's nt) or
** [K, N] (b_nk = 0: gemm_odd.lua's nn). */
static void test_leaky(const char *variant, LeakyFn fn, Dt dt, int b_nk = 1) {
  if (!wanted(variant)) return;
  const float slope = 0.125f;
  for (const UserCase &c : user_cases) {
    size_t na = (size_t)c.M * c.K, nb = (size_t)c.N * c.K, nc = (size_t)c.M * c.N;
    Buf A = random_buf(dt, na, -1, 1, c.skew), B = random_buf(dt, nb, -1, 1, c.skew), C = poisoned(dt, nc, c.skew);
    double *a = as_doubles(A), *b = as_doubles(B);
    double *ref = (double *)malloc(sizeof(double) * nc), *slack = (double *)malloc(sizeof(double) * nc);
    for (int i = 0; i < c.M; i++)
      for (int j = 0; j < c.N; j++) {
        double mag, v = dot(a, b, i, j, c.N, c.K, b_nk, &mag);
        size_t o = (size_t)i * c.N + j;
        ref[o] = v > 0 ? v : v * slope;
        slack[o] = 1.2 * (c.K + 2) * 1.2e-7 * (mag + 1);
      }
    int rc = fn(A.p, B.p, C.p, c.M, c.K, c.N, slope, NULL);
    char name[128];
    snprintf(name, sizeof name, "%s %dx%dx%d%s", variant, c.M, c.N, c.K, c.skew ? " skewed" : "");
    judge(name, rc, C, ref, slack);
    drop(A), drop(B), drop(C), free(a), free(b), free(ref), free(slack);
  }
}

typedef int (*Tf32Fn)(void *C, const void *A, const void *B, int M, int N, int K, float slope, void *stream);

/* C = leaky_relu(op(A) op(B)) of f32 matrices in tf32 products
** (gemm_tf32.lua, gemm_tf32_wide.lua): A [M, K] or (ta) [K, M], B [K, N]
** or (tb) [N, K].
** Slack: f32 accumulation, and 2^-9 sum |a b| for operands whose low 13
** bits the tensor cores drop (test_matmul's). */
static void test_tf32(const char *variant, Tf32Fn fn, int ta, int tb) {
  if (!wanted(variant)) return;
  const float slope = 0.125f;
  for (const UserCase &c : user_cases) {
    size_t na = (size_t)c.M * c.K, nb = (size_t)c.N * c.K, nc = (size_t)c.M * c.N;
    Buf A = random_buf(F32, na, -1, 1, c.skew), B = random_buf(F32, nb, -1, 1, c.skew), C = poisoned(F32, nc, c.skew);
    double *a = as_doubles(A), *b = as_doubles(B), *am = a;
    if (ta) {   /* A [K, M] as [M, K] for dot() */
      am = (double *)malloc(sizeof(double) * na);
      for (int k = 0; k < c.K; k++)
        for (int i = 0; i < c.M; i++) am[(size_t)i * c.K + k] = a[(size_t)k * c.M + i];
    }
    double *ref = (double *)malloc(sizeof(double) * nc), *slack = (double *)malloc(sizeof(double) * nc);
    for (int i = 0; i < c.M; i++)
      for (int j = 0; j < c.N; j++) {
        double mag, v = dot(am, b, i, j, c.N, c.K, tb, &mag);
        size_t o = (size_t)i * c.N + j;
        ref[o] = v > 0 ? v : v * slope;
        slack[o] = 1.2 * (c.K + 2) * 1.2e-7 * (mag + 1) + 1.2 * 0x1p-9 * mag;
      }
    int rc = fn(C.p, A.p, B.p, c.M, c.N, c.K, slope, NULL);
    char name[128];
    snprintf(name, sizeof name, "%s %dx%dx%d%s", variant, c.M, c.N, c.K, c.skew ? " skewed" : "");
    judge(name, rc, C, ref, slack);
    if (am != a) free(am);
    drop(A), drop(B), drop(C), free(a), free(b), free(ref), free(slack);
  }
}

typedef int (*XtFn)(const void *X, const void *W, void *C, int K, int M, int N, void *stream);

/* C = X^T W, X stored [K, M], W [K, N] (gemm_xt.lua): the user cases, then
** M = 1, where X is one row of K contiguous elements: on sm90a the row
** twin's TMA kernel (K = 136, 456) and its cp.async twin (K = 1 of the
** user cases, 131, and 136 skewed). */
static void test_xt(const char *variant, XtFn fn, Dt dt) {
  if (!wanted(variant)) return;
  static const UserCase one_row[] = {{1, 200, 136, 0}, {1, 72, 456, 0}, {1, 72, 131, 0}, {1, 136, 136, 1}};
  for (int n = 0; n < (int)(sizeof user_cases / sizeof *user_cases + sizeof one_row / sizeof *one_row); n++) {
    int nu = (int)(sizeof user_cases / sizeof *user_cases);
    const UserCase &c = n < nu ? user_cases[n] : one_row[n - nu];
    size_t na = (size_t)c.M * c.K, nb = (size_t)c.K * c.N, nc = (size_t)c.M * c.N;
    Buf X = random_buf(dt, na, -1, 1, c.skew), W = random_buf(dt, nb, -1, 1, c.skew), C = poisoned(dt, nc, c.skew);
    double *x = as_doubles(X), *w = as_doubles(W);
    double *xm = (double *)malloc(sizeof(double) * (na ? na : 1));   /* X [K, M] as [M, K] for dot() */
    for (int k = 0; k < c.K; k++)
      for (int i = 0; i < c.M; i++) xm[(size_t)i * c.K + k] = x[(size_t)k * c.M + i];
    double *ref = (double *)malloc(sizeof(double) * nc), *slack = (double *)malloc(sizeof(double) * nc);
    for (int i = 0; i < c.M; i++)
      for (int j = 0; j < c.N; j++) {
        double mag, v = dot(xm, w, i, j, c.N, c.K, 0, &mag);
        size_t o = (size_t)i * c.N + j;
        ref[o] = v;
        slack[o] = 1.2 * (c.K + 2) * 1.2e-7 * (mag + 1);
      }
    int rc = fn(X.p, W.p, C.p, c.K, c.M, c.N, NULL);
    char name[128];
    snprintf(name, sizeof name, "%s %dx%dx%d%s", variant, c.M, c.N, c.K, c.skew ? " skewed" : "");
    judge(name, rc, C, ref, slack);
    drop(X), drop(W), drop(C), free(x), free(w), free(xm), free(ref), free(slack);
  }
}

typedef int (*ColsumFn)(const void *A, const void *B, void *C, void *S, int M, int K, int N, int T, void *stream);

/* C = A B^T and S [T, N], the sums of C's columns over each tile of 16
** rows (gemm_colsum.lua: on sm90a the swapped operands' layout, whose
** reduction over rows runs across other lanes than mma.sync's). */
static void test_colsum(const char *variant, ColsumFn fn, Dt dt) {
  if (!wanted(variant)) return;
  for (const UserCase &c : user_cases) {
    int T = (c.M + 15) / 16;
    size_t na = (size_t)c.M * c.K, nb = (size_t)c.N * c.K, nc = (size_t)c.M * c.N, ns = (size_t)T * c.N;
    Buf A = random_buf(dt, na, -1, 1, c.skew), B = random_buf(dt, nb, -1, 1, c.skew), C = poisoned(dt, nc, c.skew);
    Buf S = poisoned(F32, ns, c.skew);
    double *a = as_doubles(A), *b = as_doubles(B);
    double *ref = (double *)malloc(sizeof(double) * nc), *slack = (double *)malloc(sizeof(double) * nc);
    double *sref = (double *)calloc(ns, sizeof(double)), *sslack = (double *)calloc(ns, sizeof(double));
    for (int i = 0; i < c.M; i++)
      for (int j = 0; j < c.N; j++) {
        double mag, v = dot(a, b, i, j, c.N, c.K, 1, &mag);
        size_t o = (size_t)i * c.N + j, so = (size_t)(i / 16) * c.N + j;
        ref[o] = v;
        slack[o] = 1.2 * (c.K + 2) * 1.2e-7 * (mag + 1);
        sref[so] += v;   /* f32 sums of 16 such values */
        sslack[so] += 1.2 * (c.K + 18) * 1.2e-7 * (mag + 1);
      }
    int rc = fn(A.p, B.p, C.p, S.p, c.M, c.K, c.N, T, NULL);
    char name[128];
    snprintf(name, sizeof name, "%s %dx%dx%d%s C", variant, c.M, c.N, c.K, c.skew ? " skewed" : "");
    judge(name, rc, C, ref, slack);
    snprintf(name, sizeof name, "%s %dx%dx%d%s S", variant, c.M, c.N, c.K, c.skew ? " skewed" : "");
    judge(name, rc, S, sref, sslack);
    drop(A), drop(B), drop(C), drop(S), free(a), free(b), free(ref), free(slack), free(sref), free(sslack);
  }
}

/* ------------------------------------------------------------------ */
/* attention: FlashAttention-2 forward and backward (docs/attention.md)  */

typedef int (*AttFwd)(const void *, const void *, const void *, void *, void *, int, int, int, int, int, int64_t,
                      int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                      int64_t, float, int, int, void *);
typedef int (*AttFwdCap)(const void *, const void *, const void *, void *, void *, int, int, int, int, int, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, float, float, int, int, void *);
typedef int (*AttPre)(const void *, const void *, void *, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t,
                      int64_t, void *);
typedef int (*AttDq)(const void *, const void *, const void *, const void *, const void *, const void *, void *, int,
                     int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                     int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float, int, int, void *);
typedef int (*AttDqCap)(const void *, const void *, const void *, const void *, const void *, const void *, void *,
                        int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                        int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float, float, int,
                        int, void *);
typedef int (*AttDkdv)(const void *, const void *, const void *, const void *, const void *, const void *, void *,
                       void *, int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, float, int, int, void *);
typedef int (*AttDkdvCap)(const void *, const void *, const void *, const void *, const void *, const void *, void *,
                          void *, int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                          int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                          int64_t, int64_t, float, float, int, int, void *);
/* dQ by atomics: pre also clears dQacc (f32 [B, Hq, Sq, D], contiguous;
** 128 columns at D = 96, the tiles' width),
** dK/dV takes dQacc after dV, post converts it into dQ. */
typedef int (*AttPreA)(const void *, const void *, void *, void *, int, int, int, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, void *);
typedef int (*AttDkdvA)(const void *, const void *, const void *, const void *, const void *, const void *, void *,
                        void *, void *, int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                        int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                        int64_t, int64_t, float, int, int, void *);
typedef int (*AttDkdvACap)(const void *, const void *, const void *, const void *, const void *, const void *, void *,
                           void *, void *, int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t,
                           int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                           int64_t, int64_t, int64_t, float, float, int, int, void *);
typedef int (*AttPost)(const void *, void *, int, int, int, int64_t, int64_t, int64_t, void *);

/* A case: sizes, the window (-1: none), and whether the tensors are laid
** out [B, S, H, D] (strides) instead of [B, H, S, D].  Lengths are not
** multiples of the blocks; Sq > Sk under the causal mask leaves the first
** rows with no key; Sk = 1; GQA and MQA; 600 keys, so that a ring of 3
** stages of 128 keys comes round (its phases flip, its stages go back to
** the producer and are filled again). */
struct AttCase { int B, Hq, Hkv, Sq, Sk, wl, wr, bshd; };
static const AttCase att_cases[] = {
  {1, 2, 1, 72, 150, -1, -1, 0}, {1, 2, 2, 150, 100, -1, 0, 1}, {1, 1, 1, 130, 130, 40, 20, 0}, {2, 2, 1, 33, 1, -1, -1, 0},
  {1, 1, 1, 40, 600, -1, -1, 1},
};

/* Strides of a [B, H, S, D] tensor stored [B, H, S, D] or [B, S, H, D]. */
static void att_strides(const AttCase &c, int H, int S, int D, int64_t st[3]) {
  if (c.bshd) st[0] = (int64_t)S * H * D, st[1] = D, st[2] = (int64_t)H * D;
  else st[0] = (int64_t)H * S * D, st[1] = (int64_t)S * D, st[2] = D;
}

/* Forward and backward reference for one case, in float64 from the rounded
** inputs: O, LSE (+inf for a row with no visible key), dQ, dK, dV. */
static void att_reference(const AttCase &c, int D, double scale, double cap, const double *q, const double *k,
                          const double *v, const double *dout, const int64_t qs[3], const int64_t ks[3], double *o,
                          double *lse, double *dq, double *dk, double *dv) {
  double *s = (double *)malloc(sizeof(double) * c.Sk), *t = (double *)malloc(sizeof(double) * c.Sk);
  double *dp = (double *)malloc(sizeof(double) * c.Sk);
  for (int b = 0; b < c.B; b++)
    for (int h = 0; h < c.Hq; h++) {
      int hk = h / (c.Hq / c.Hkv);
      for (int i = 0; i < c.Sq; i++) {
        const double *qi = q + b * qs[0] + h * qs[1] + i * qs[2], *gi = dout + b * qs[0] + h * qs[1] + i * qs[2];
        double mx = -INFINITY;
        for (int j = 0; j < c.Sk; j++) {
          const double *kj = k + b * ks[0] + hk * ks[1] + j * ks[2];
          int a = i + c.Sk - c.Sq;
          double d = 0;
          for (int x = 0; x < D; x++) d += qi[x] * kj[x];
          d *= scale;
          t[j] = cap > 0 ? tanh(d / cap) : 0;
          if (cap > 0) d = cap * t[j];
          s[j] = (c.wl < 0 || j >= a - c.wl) && (c.wr < 0 || j <= a + c.wr) ? d : -INFINITY;
          if (s[j] > mx) mx = s[j];
        }
        double sum = 0;
        for (int j = 0; j < c.Sk; j++) sum += s[j] == -INFINITY ? 0 : exp(s[j] - mx);
        lse[(b * c.Hq + h) * c.Sq + i] = sum > 0 ? mx + log(sum) : INFINITY;
        double delta = 0;
        for (int j = 0; j < c.Sk; j++) {
          s[j] = sum > 0 && s[j] != -INFINITY ? exp(s[j] - mx) / sum : 0;   /* P */
          const double *vj = v + b * ks[0] + hk * ks[1] + j * ks[2];
          dp[j] = 0;
          for (int x = 0; x < D; x++) dp[j] += gi[x] * vj[x];
        }
        for (int x = 0; x < D; x++) {
          double acc = 0;
          for (int j = 0; j < c.Sk; j++) acc += s[j] * v[b * ks[0] + hk * ks[1] + j * ks[2] + x];
          o[b * qs[0] + h * qs[1] + i * qs[2] + x] = acc;
          delta += acc * gi[x];
        }
        for (int j = 0; j < c.Sk; j++) {
          double ds = s[j] * (dp[j] - delta) * (cap > 0 ? 1 - t[j] * t[j] : 1) * scale;
          for (int x = 0; x < D; x++) {
            size_t kj = (size_t)(b * ks[0] + hk * ks[1] + j * ks[2] + x);
            dq[b * qs[0] + h * qs[1] + i * qs[2] + x] += ds * k[kj];
            dk[kj] += ds * qi[x];
            dv[kj] += s[j] * gi[x];
          }
        }
      }
    }
  free(s), free(t), free(dp);
}

/* Slack for an output whose second gemm takes a probability tile rounded
** to dt: a relative error of the type's epsilon on every term, so
** eps * (largest |ref| of the tensor) per element. */
static double *att_slack(const double *ref, size_t n, Dt dt) {
  double big = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan(ref[i]) && isfinite(ref[i]) && fabs(ref[i]) > big) big = fabs(ref[i]);
  double *sl = (double *)malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; i++) sl[i] = (dt == BF16 ? 8e-3 : 1e-3) * big;
  return sl;
}

/* printf into one of a few rotating buffers (names of checks). */
static const char *ltfmt(const char *fmt, ...) {
  static char bufs[4][256];
  static int next;
  char *b = bufs[next++ % 4];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b, 256, fmt, ap);
  va_end(ap);
  return b;
}

/* Checks dQ, dK and dV of one backward run of case `name` (rc: the launchers'
** status, or-ed) against the reference gs = {dQ, dK, dV}; `how` names the
** path in the check's name. */
static void att_judge_grads(const char *name, const char *how, int rc, Buf *outs[3], double *gs[3], Dt dt) {
  static const char *const what[3] = {"dQ", "dK", "dV"};
  for (int i = 0; i < 3; i++) {
    double *sl = att_slack(gs[i], outs[i]->n, dt);
    judge(ltfmt("%s %s%s", name, what[i], how), rc, *outs[i], gs[i], sl);
    free(sl);
  }
}

/* Whether `name` is one of the comma-separated names of `list`. */
static bool listed(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
    if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == 0)) return true;
  return false;
}

/* The cases of one attention group, forward and backward; VARIANT on the
** command line names the group by its forward or by any of its kernels
** (a mutant of a backward kernel runs the group's cases). */
static void test_attention(const char *variant, const char *names, void *fwd, void *pre, void *dqf, void *dkdvf,
                           void *prea, void *dkdva, void *post, Dt dt, int D, int softcap, int int_rows) {
  if (listing) {   /* the kernels of the group (0 where it has no dQ-by-atomics kernels) */
    for (const char *p = names; *p; p++) putchar(*p == ',' ? '\n' : *p);
    putchar('\n');
  }
  if (!wanted(variant) && !(only && listed(names, only))) return;
  for (const AttCase &c : att_cases) {
    int64_t qs[3], ks[3];
    att_strides(c, c.Hq, c.Sq, D, qs);
    att_strides(c, c.Hkv, c.Sk, D, ks);
    size_t nq = (size_t)c.B * c.Hq * c.Sq * D, nk = (size_t)c.B * c.Hkv * c.Sk * D, nl = (size_t)c.B * c.Hq * c.Sq;
    Buf Q = random_buf(dt, nq, -2, 2, 0), K = random_buf(dt, nk, -2, 2, 0), V = random_buf(dt, nk, -1, 1, 0);
    Buf dO = random_buf(dt, nq, -1, 1, 0);
    Buf O = poisoned(dt, nq, 0), L = poisoned(F32, nl, 0), De = poisoned(F32, nl, 0);
    Buf dQ = poisoned(dt, nq, 0), dK = poisoned(dt, nk, 0), dV = poisoned(dt, nk, 0);
    double *q = as_doubles(Q), *k = as_doubles(K), *v = as_doubles(V), *g = as_doubles(dO);
    double *o = (double *)calloc(nq, 8), *lse = (double *)calloc(nl, 8), *rq = (double *)calloc(nq, 8);
    double *rk = (double *)calloc(nk, 8), *rv = (double *)calloc(nk, 8);
    double scale = 1 / sqrt((double)D), cap = softcap ? 4.0 : 0;
    att_reference(c, D, (float)scale, cap, q, k, v, g, qs, ks, o, lse, rq, rk, rv);
    float sc = (float)scale, cp = (float)cap;
    char name[160];
    snprintf(name, sizeof name, "%s B%d Hq%d Hkv%d Sq%d Sk%d window(%d,%d)%s", variant, c.B, c.Hq, c.Hkv, c.Sq, c.Sk,
             c.wl, c.wr, c.bshd ? " [B,S,H,D]" : "");
#define QS qs[0], qs[1], qs[2]
#define KS ks[0], ks[1], ks[2]
    int rc = softcap ? ((AttFwdCap)fwd)(Q.p, K.p, V.p, O.p, L.p, c.B, c.Hq, c.Sq, c.Hkv, c.Sk, QS, KS, KS, QS, sc, cp,
                                        c.wl, c.wr, NULL)
                     : ((AttFwd)fwd)(Q.p, K.p, V.p, O.p, L.p, c.B, c.Hq, c.Sq, c.Hkv, c.Sk, QS, KS, KS, QS, sc, c.wl,
                                     c.wr, NULL);
    double *sl = att_slack(o, nq, dt);
    judge(ltfmt("%s O", name), rc, O, o, sl);
    free(sl);
    judge(ltfmt("%s LSE", name), rc, L, lse, NULL);
    rc = ((AttPre)pre)(O.p, dO.p, De.p, c.B, c.Hq, c.Sq, QS, QS, NULL);
    if (softcap) {
      rc |= ((AttDqCap)dqf)(Q.p, K.p, V.p, dO.p, L.p, De.p, dQ.p, c.B, c.Hq, c.Sq, c.Hkv, c.Sk, QS, KS, KS, QS, QS, sc,
                            cp, c.wl, c.wr, NULL);
      rc |= ((AttDkdvCap)dkdvf)(Q.p, K.p, V.p, dO.p, L.p, De.p, dK.p, dV.p, c.B, c.Hq, c.Sq, c.Hkv, c.Sk, QS, KS, KS,
                                QS, KS, KS, sc, cp, c.wl, c.wr, NULL);
    } else {
      rc |= ((AttDq)dqf)(Q.p, K.p, V.p, dO.p, L.p, De.p, dQ.p, c.B, c.Hq, c.Sq, c.Hkv, c.Sk, QS, KS, KS, QS, QS, sc,
                         c.wl, c.wr, NULL);
      rc |= ((AttDkdv)dkdvf)(Q.p, K.p, V.p, dO.p, L.p, De.p, dK.p, dV.p, c.B, c.Hq, c.Sq, c.Hkv, c.Sk, QS, KS, KS, QS,
                             KS, KS, sc, c.wl, c.wr, NULL);
    }
    double *gs[3] = {rq, rk, rv};
    Buf *outs[3] = {&dQ, &dK, &dV};
    att_judge_grads(name, "", rc, outs, gs, dt);
    if (prea && dkdva && post) {   /* again, with dQ summed by atomics into dQacc */
      drop(De), drop(dQ), drop(dK), drop(dV);
      De = poisoned(F32, nl, 0), dQ = poisoned(dt, nq, 0), dK = poisoned(dt, nk, 0), dV = poisoned(dt, nk, 0);
      Buf acc = poisoned(F32, nl * (D == 96 ? 128 : D), 0);   /* rows as wide as the tiles */
      rc = ((AttPreA)prea)(O.p, dO.p, De.p, acc.p, c.B, c.Hq, c.Sq, QS, QS, NULL);
      rc |= softcap ? ((AttDkdvACap)dkdva)(Q.p, K.p, V.p, dO.p, L.p, De.p, dK.p, dV.p, acc.p, c.B, c.Hq, c.Sq, c.Hkv,
                                           c.Sk, QS, KS, KS, QS, KS, KS, sc, cp, c.wl, c.wr, NULL)
                    : ((AttDkdvA)dkdva)(Q.p, K.p, V.p, dO.p, L.p, De.p, dK.p, dV.p, acc.p, c.B, c.Hq, c.Sq, c.Hkv,
                                        c.Sk, QS, KS, KS, QS, KS, KS, sc, c.wl, c.wr, NULL);
      rc |= ((AttPost)post)(acc.p, dQ.p, c.B, c.Hq, c.Sq, QS, NULL);
      att_judge_grads(name, " (dQ by atomics)", rc, outs, gs, dt);
      drop(acc);
    }
#undef QS
#undef KS
    drop(Q), drop(K), drop(V), drop(dO), drop(O), drop(L), drop(De), drop(dQ), drop(dK), drop(dV);
    free(q), free(k), free(v), free(g), free(o), free(lse), free(rq), free(rk), free(rv);
  }
  if (int_rows) {   /* the header's range for the sequence strides: the launcher must hold to it */
    Buf t = poisoned(dt, 64, 0), l = poisoned(F32, 64, 0);
    const int64_t big = (int64_t)1 << 31;
    int rc = softcap ? ((AttFwdCap)fwd)(t.p, t.p, t.p, t.p, l.p, 1, 1, 1, 1, 1, 0, 0, big, 0, 0, D, 0, 0, D, 0, 0, D,
                                        1.0f, 4.0f, -1, -1, NULL)
                     : ((AttFwd)fwd)(t.p, t.p, t.p, t.p, l.p, 1, 1, 1, 1, 1, 0, 0, big, 0, 0, D, 0, 0, D, 0, 0, D,
                                     1.0f, -1, -1, NULL);
    verdict(ltfmt("%s rejects a sequence stride of 2^31", variant), rc != 0 ? NULL : "the launcher accepted it");
    drop(t), drop(l);
  }
}

typedef int (*EmbFwdFn)(const void *, const void *, void *, int, int, int, void *);
typedef int (*EmbBwdFn)(const void *, const void *, void *, int, int, int, int, void *);
typedef int (*EmbBwd64Fn)(const void *, const void *, void *, int, int, int, int64_t, void *);

/* The indices as a kernel takes them: int32, or int64 (i64 set). */
static void *index_buf(const int64_t *v, int n, bool i64) {
  void *p = malloc((i64 ? 8 : 4) * (size_t)n);
  for (int i = 0; i < n; i++) {
    if (i64) ((int64_t *)p)[i] = v[i];
    else ((int32_t *)p)[i] = (int32_t)v[i];
  }
  return p;
}

/* Embedding: Y[i] = W[I[i]] (zeros for an index outside W: -1, V + 2,
** and in the int64 variants (bwd64 given) 2^32 + a row inside, which a
** cut to 32 bits would read), and dW[I[i]] += dY[i] for I[i] != pad into
** a dW of 0.5s.  The indices inside W are distinct, so each element of dW
** takes at most one add and the result is the same in every thread order. */
static void test_embedding(Dt dt, const char *fv, EmbFwdFn fwd, const char *bv, EmbBwdFn bwd, EmbBwd64Fn bwd64 = NULL) {
  bool i64 = bwd64 != NULL;
  static const int shapes[][3] = {{50, 37, 64}, {40, 9, 1030}, {7, 5, 77}};
  for (int s = 0; s < 3; s++) {
    int V = shapes[s][0], N = shapes[s][1], D = shapes[s][2], pad = s == 1 ? 3 : -1;
    int64_t *ids = (int64_t *)malloc(sizeof(int64_t) * (size_t)N);
    int *perm = (int *)malloc(sizeof(int) * (size_t)V);
    for (int i = 0; i < V; i++) perm[i] = i;
    for (int i = V - 1; i > 0; i--) {
      int j = (int)uniform(0, i + 0.999), t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    for (int i = 0; i < N; i++) ids[i] = i % 5 == 1 ? -1 : i % 5 == 3 ? V + 2 : i64 && i % 5 == 4 ? (1LL << 32) + i % V : perm[i % V];
    void *I = index_buf(ids, N, i64);
    Buf w = random_buf(dt, (size_t)V * D, -2, 2, 0), y = poisoned(dt, (size_t)N * D, 0);
    Buf dy = random_buf(dt, (size_t)N * D, -2, 2, 0), dw = make(F32, (size_t)V * D, 0);
    double *ry = (double *)malloc(sizeof(double) * (size_t)N * D), *rw = (double *)malloc(sizeof(double) * (size_t)V * D);
    for (size_t i = 0; i < (size_t)V * D; i++) ((float *)dw.p)[i] = 0.5f, rw[i] = 0.5;
    for (int i = 0; i < N; i++)
      for (int d = 0; d < D; d++) {
        int64_t r = ids[i];
        bool in = r >= 0 && r < V;
        ry[(size_t)i * D + d] = in ? get(w.p, dt, (size_t)r * D + d) : 0;
        if (in && r != pad) rw[(size_t)r * D + d] += (float)get(dy.p, dt, (size_t)i * D + d);
      }
    char name[96];
    if (wanted(fv)) {
      snprintf(name, sizeof name, "%s V=%d N=%d D=%d", fv, V, N, D);
      judge(name, fwd(w.p, I, y.p, V, D, N, NULL), y, ry);
    }
    if (wanted(bv)) {
      snprintf(name, sizeof name, "%s V=%d N=%d D=%d pad=%d", bv, V, N, D, pad);
      judge(name, i64 ? bwd64(dy.p, I, dw.p, N, D, V, pad, NULL) : bwd(dy.p, I, dw.p, N, D, V, pad, NULL), dw, rw);
    }
    drop(w), drop(y), drop(dy), drop(dw);
    free(ids), free(I), free(perm), free(ry), free(rw);
  }
}

typedef int (*EmbDetFn)(const void *, const void *, const void *, const void *, void *, int, int, int, int, void *);
typedef int (*EmbDet64Fn)(const void *, const void *, const void *, const void *, void *, int, int, int, int64_t, void *);

/* Embedding's deterministic backward: indices mostly in runs of a few rows
** (-1 and V + 2 among them, and pad on one shape), sorted stably here into
** S with their positions P and each run's end E; the rows named by an index
** inside dW other than pad get their sum of dY's rows in dW's dtype, the
** rest keep their 0.25s. */
static void test_embedding_det(Dt dt, const char *name_, EmbDetFn det, EmbDet64Fn det64 = NULL) {
  if (!wanted(name_)) return;
  bool i64 = det64 != NULL;
  static const int shapes[][3] = {{50, 37, 64}, {40, 90, 1030}, {7, 5, 77}};
  for (int s = 0; s < 3; s++) {
    int V = shapes[s][0], N = shapes[s][1], D = shapes[s][2], pad = s == 1 ? 3 : -1;
    int64_t *ids = (int64_t *)malloc(sizeof(int64_t) * (size_t)N), *S = (int64_t *)malloc(sizeof(int64_t) * (size_t)N);
    int32_t *P = (int32_t *)malloc(sizeof(int32_t) * (size_t)N), *E = (int32_t *)malloc(sizeof(int32_t) * (size_t)N);
    for (int i = 0; i < N; i++) ids[i] = i % 7 == 1 ? -1 : i % 7 == 5 ? V + 2 : (int)uniform(0, 3.999) % V;
    for (int i = 0; i < N; i++) {   /* a stable insertion sort of the positions by index */
      int j = i;
      for (; j > 0 && ids[P[j - 1]] > ids[i]; j--) P[j] = P[j - 1];
      P[j] = i;
    }
    for (int i = 0; i < N; i++) S[i] = ids[P[i]];
    for (int i = N - 1; i >= 0; i--) E[i] = i + 1 < N && S[i + 1] == S[i] ? E[i + 1] : i + 1;
    void *Sb = index_buf(S, N, i64);
    Buf dy = random_buf(dt, (size_t)N * D, -2, 2, 0), dw = make(dt, (size_t)V * D, 0);
    double *rw = (double *)malloc(sizeof(double) * (size_t)V * D);
    for (size_t i = 0; i < (size_t)V * D; i++) put(dw.p, dt, i, 0.25), rw[i] = 0.25;
    for (int i = 0; i < N; i++)
      if (ids[i] >= 0 && ids[i] < V && ids[i] != pad)
        for (int d = 0; d < D; d++) rw[(size_t)ids[i] * D + d] = 0;
    for (int i = 0; i < N; i++)
      if (ids[i] >= 0 && ids[i] < V && ids[i] != pad)
        for (int d = 0; d < D; d++) rw[(size_t)ids[i] * D + d] += get(dy.p, dt, (size_t)i * D + d);
    char name[96];
    snprintf(name, sizeof name, "%s V=%d N=%d D=%d pad=%d", name_, V, N, D, pad);
    judge(name, i64 ? det64(dy.p, Sb, P, E, dw.p, N, D, V, pad, NULL) : det(dy.p, Sb, P, E, dw.p, N, D, V, pad, NULL), dw, rw);
    drop(dy), drop(dw);
    free(ids), free(S), free(P), free(E), free(Sb), free(rw);
  }
}

typedef int (*CeFwdFn)(const void *, const void *, void *, void *, int, int, int, float, void *);
typedef int (*CeBwdFn)(const void *, const void *, const void *, const void *, void *, int, int, int, float, void *);
typedef int (*CeFwd64Fn)(const void *, const void *, void *, void *, int, int, int64_t, float, void *);
typedef int (*CeBwd64Fn)(const void *, const void *, const void *, const void *, void *, int, int, int64_t, float, void *);

/* Cross-entropy forward (Loss, LSE) and backward (dX) of rows that rise
** along the vocabulary, with an ignored label (-100; 2^32 - 100 in the
** int64 variants, given as fwd64 and bwd64, whose row 2 of 3 has a label
** 2^32 past a valid one: X[r, t] reads 0) and label smoothing on every
** other shape. */
static void test_cross_entropy(Dt dt, const char *fv, CeFwdFn fwd, const char *bv, CeBwdFn bwd, CeFwd64Fn fwd64 = NULL,
                               CeBwd64Fn bwd64 = NULL) {
  static const int shapes[][2] = {{3, 77}, {3, 4097}, {2, 9000}};
  bool i64 = fwd64 != NULL;
  for (int s = 0; s < 3; s++) {
    int N = shapes[s][0], V = shapes[s][1];
    int64_t ignore = i64 ? (1LL << 32) - 100 : -100;
    float eps = s % 2 ? 0.1f : 0.0f;
    size_t n = (size_t)N * V;
    Buf x = random_buf(dt, n, -6, 6, 0), dx = poisoned(dt, n, 0);
    for (int r = 0; r < N; r++)
      for (int c = 0; c < V; c++) put(x.p, dt, (size_t)r * V + c, get(x.p, dt, (size_t)r * V + c) + 12.0 * c / V);
    int64_t *t = (int64_t *)malloc(sizeof(int64_t) * (size_t)N);
    Buf loss = poisoned(F32, (size_t)N, 0), lse = poisoned(F32, (size_t)N, 0), dl = make(F32, (size_t)N, 0);
    double *rl = (double *)malloc(sizeof(double) * N), *rlse = (double *)malloc(sizeof(double) * N);
    double *rdx = (double *)malloc(sizeof(double) * n);
    for (int r = 0; r < N; r++) {
      t[r] = r == 1 ? ignore : (int)uniform(0, V - 0.001) + (i64 && r == 2 ? 1LL << 32 : 0);
      bool inside = t[r] >= 0 && t[r] < V;
      ((float *)dl.p)[r] = (float)uniform(0.5, 2);
      double m = -INFINITY, sum = 0, sx = 0;
      for (int c = 0; c < V; c++) m = fmax(m, get(x.p, dt, (size_t)r * V + c));
      for (int c = 0; c < V; c++) sum += exp(get(x.p, dt, (size_t)r * V + c) - m), sx += get(x.p, dt, (size_t)r * V + c);
      rlse[r] = m + log(sum);
      bool ign = t[r] == ignore;
      rl[r] = ign ? 0 : rlse[r] - (1 - (double)eps) * (inside ? get(x.p, dt, (size_t)r * V + t[r]) : 0) - (double)eps / V * sx;
      for (int c = 0; c < V; c++) {
        double p = exp(get(x.p, dt, (size_t)r * V + c) - rlse[r]);
        rdx[(size_t)r * V + c] =
            ign ? 0 : ((float *)dl.p)[r] * (p - (double)eps / V - (c == t[r] ? 1 - (double)eps : 0));
      }
    }
    char name[96];
    void *T = index_buf(t, N, i64);
    if (wanted(fv)) {
      snprintf(name, sizeof name, "%s %dx%d eps=%g loss", fv, N, V, eps);
      judge(name, i64 ? fwd64(x.p, T, loss.p, lse.p, N, V, ignore, eps, NULL) : fwd(x.p, T, loss.p, lse.p, N, V, (int)ignore, eps, NULL),
            loss, rl);
      snprintf(name, sizeof name, "%s %dx%d eps=%g lse", fv, N, V, eps);
      judge(name, 0, lse, rlse);
    } else {   /* the backward needs the LSE */
      for (int r = 0; r < N; r++) ((float *)lse.p)[r] = (float)rlse[r];
    }
    if (wanted(bv)) {
      snprintf(name, sizeof name, "%s %dx%d eps=%g", bv, N, V, eps);
      judge(name, i64 ? bwd64(x.p, T, lse.p, dl.p, dx.p, N, V, ignore, eps, NULL) : bwd(x.p, T, lse.p, dl.p, dx.p, N, V, (int)ignore, eps, NULL),
            dx, rdx);
    }
    drop(x), drop(dx), drop(loss), drop(lse), drop(dl);
    free(T), free(t), free(rl), free(rlse), free(rdx);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--list") == 0) listing = 1;
  else if (argc > 1) target = argv[1];
  if (argc > 2) only = argv[2];
  const char *hp = getenv("LT_CHECK_HASHES");
  if (hp && *hp && !listing) hashes = fopen(hp, "w");
#if HAVE("add_f32.h")
  test_add(F32, "add_f32", add_f32);
#endif
#if HAVE("add_f16.h")
  test_add(F16, "add_f16", add_f16);
#endif
#if HAVE("add_bf16.h")
  test_add(BF16, "add_bf16", add_bf16);
#endif
#if HAVE("bias_gelu_f32.h")
  test_bias_gelu(F32, "bias_gelu_f32", bias_gelu_f32);
#endif
#if HAVE("bias_gelu_f16.h")
  test_bias_gelu(F16, "bias_gelu_f16", bias_gelu_f16);
#endif
#if HAVE("bias_gelu_bf16.h")
  test_bias_gelu(BF16, "bias_gelu_bf16", bias_gelu_bf16);
#endif
#if HAVE("softmax_f32.h")
  test_softmax(F32, "softmax_f32", softmax_f32);
#endif
#if HAVE("softmax_f16.h")
  test_softmax(F16, "softmax_f16", softmax_f16);
#endif
#if HAVE("softmax_bf16.h")
  test_softmax(BF16, "softmax_bf16", softmax_bf16);
#endif
#if HAVE("rmsnorm_f32.h")
  test_norm(F32, "rmsnorm_f32", rmsnorm_f32, NULL);
#endif
#if HAVE("rmsnorm_f16.h")
  test_norm(F16, "rmsnorm_f16", rmsnorm_f16, NULL);
#endif
#if HAVE("rmsnorm_bf16.h")
  test_norm(BF16, "rmsnorm_bf16", rmsnorm_bf16, NULL);
#endif
#if HAVE("layernorm_f32.h")
  test_norm(F32, "layernorm_f32", NULL, layernorm_f32);
#endif
#if HAVE("layernorm_f16.h")
  test_norm(F16, "layernorm_f16", NULL, layernorm_f16);
#endif
#if HAVE("layernorm_bf16.h")
  test_norm(BF16, "layernorm_bf16", NULL, layernorm_bf16);
#endif
#if HAVE("embedding_f32_fwd.h") && HAVE("embedding_f32_bwd.h")
  test_embedding(F32, "embedding_f32_fwd", embedding_f32_fwd, "embedding_f32_bwd", embedding_f32_bwd);
#endif
#if HAVE("embedding_f32_det.h")
  test_embedding_det(F32, "embedding_f32_det", embedding_f32_det);
#endif
#if HAVE("embedding_f16_fwd.h") && HAVE("embedding_f16_bwd.h")
  test_embedding(F16, "embedding_f16_fwd", embedding_f16_fwd, "embedding_f16_bwd", embedding_f16_bwd);
#endif
#if HAVE("embedding_f16_det.h")
  test_embedding_det(F16, "embedding_f16_det", embedding_f16_det);
#endif
#if HAVE("embedding_bf16_fwd.h") && HAVE("embedding_bf16_bwd.h")
  test_embedding(BF16, "embedding_bf16_fwd", embedding_bf16_fwd, "embedding_bf16_bwd", embedding_bf16_bwd);
#endif
#if HAVE("embedding_bf16_det.h")
  test_embedding_det(BF16, "embedding_bf16_det", embedding_bf16_det);
#endif
#if HAVE("cross_entropy_f32_fwd.h") && HAVE("cross_entropy_f32_bwd.h")
  test_cross_entropy(F32, "cross_entropy_f32_fwd", cross_entropy_f32_fwd, "cross_entropy_f32_bwd", cross_entropy_f32_bwd);
#endif
#if HAVE("cross_entropy_f16_fwd.h") && HAVE("cross_entropy_f16_bwd.h")
  test_cross_entropy(F16, "cross_entropy_f16_fwd", cross_entropy_f16_fwd, "cross_entropy_f16_bwd", cross_entropy_f16_bwd);
#endif
#if HAVE("cross_entropy_bf16_fwd.h") && HAVE("cross_entropy_bf16_bwd.h")
  test_cross_entropy(BF16, "cross_entropy_bf16_fwd", cross_entropy_bf16_fwd, "cross_entropy_bf16_bwd", cross_entropy_bf16_bwd);
#endif
#if HAVE("embedding_f32_i64_fwd.h") && HAVE("embedding_f32_i64_bwd.h")
  test_embedding(F32, "embedding_f32_i64_fwd", embedding_f32_i64_fwd, "embedding_f32_i64_bwd", NULL, embedding_f32_i64_bwd);
#endif
#if HAVE("embedding_f32_i64_det.h")
  test_embedding_det(F32, "embedding_f32_i64_det", NULL, embedding_f32_i64_det);
#endif
#if HAVE("embedding_f16_i64_fwd.h") && HAVE("embedding_f16_i64_bwd.h")
  test_embedding(F16, "embedding_f16_i64_fwd", embedding_f16_i64_fwd, "embedding_f16_i64_bwd", NULL, embedding_f16_i64_bwd);
#endif
#if HAVE("embedding_f16_i64_det.h")
  test_embedding_det(F16, "embedding_f16_i64_det", NULL, embedding_f16_i64_det);
#endif
#if HAVE("embedding_bf16_i64_fwd.h") && HAVE("embedding_bf16_i64_bwd.h")
  test_embedding(BF16, "embedding_bf16_i64_fwd", embedding_bf16_i64_fwd, "embedding_bf16_i64_bwd", NULL, embedding_bf16_i64_bwd);
#endif
#if HAVE("embedding_bf16_i64_det.h")
  test_embedding_det(BF16, "embedding_bf16_i64_det", NULL, embedding_bf16_i64_det);
#endif
#if HAVE("cross_entropy_f32_i64_fwd.h") && HAVE("cross_entropy_f32_i64_bwd.h")
  test_cross_entropy(F32, "cross_entropy_f32_i64_fwd", NULL, "cross_entropy_f32_i64_bwd", NULL, cross_entropy_f32_i64_fwd,
                     cross_entropy_f32_i64_bwd);
#endif
#if HAVE("cross_entropy_f16_i64_fwd.h") && HAVE("cross_entropy_f16_i64_bwd.h")
  test_cross_entropy(F16, "cross_entropy_f16_i64_fwd", NULL, "cross_entropy_f16_i64_bwd", NULL, cross_entropy_f16_i64_fwd,
                     cross_entropy_f16_i64_bwd);
#endif
#if HAVE("cross_entropy_bf16_i64_fwd.h") && HAVE("cross_entropy_bf16_i64_bwd.h")
  test_cross_entropy(BF16, "cross_entropy_bf16_i64_fwd", NULL, "cross_entropy_bf16_i64_bwd", NULL, cross_entropy_bf16_i64_fwd,
                     cross_entropy_bf16_i64_bwd);
#endif
#ifdef LT_MATMULS
#define TF32 F32   /* tf32 variants hold f32 matrices (test_matmul widens the slack) */
#define RUN_MM(fn, dt, ta, tb, act, has_bias) test_matmul(#fn, (void *)fn, dt, ta, tb, act, has_bias);
  LT_MATMULS(RUN_MM)
#endif
#if HAVE("swiglu_f16.h")
  test_swiglu("swiglu_f16", swiglu_f16, F16);
#endif
#if HAVE("swiglu_bf16.h")
  test_swiglu("swiglu_bf16", swiglu_bf16, BF16);
#endif
#if HAVE("gemm_leaky_f16_tall.h")
  test_leaky("gemm_leaky_f16_tall", gemm_leaky_f16_tall, F16);
#endif
#if HAVE("gemm_leaky_bf16_tall.h")
  test_leaky("gemm_leaky_bf16_tall", gemm_leaky_bf16_tall, BF16);
#endif
#if HAVE("gemm_leaky_f16_wide.h")
  test_leaky("gemm_leaky_f16_wide", gemm_leaky_f16_wide, F16);
#endif
#if HAVE("gemm_leaky_bf16_wide.h")
  test_leaky("gemm_leaky_bf16_wide", gemm_leaky_bf16_wide, BF16);
#endif
#if HAVE("gemm_leaky_f16_one.h")
  test_leaky("gemm_leaky_f16_one", gemm_leaky_f16_one, F16);
#endif
#if HAVE("gemm_leaky_bf16_one.h")
  test_leaky("gemm_leaky_bf16_one", gemm_leaky_bf16_one, BF16);
#endif
#if HAVE("gemm_odd_nn_n192.h")
  test_leaky("gemm_odd_nn_n192", gemm_odd_nn_n192, BF16, 0);
#endif
#if HAVE("gemm_odd_nn_n208.h")
  test_leaky("gemm_odd_nn_n208", gemm_odd_nn_n208, BF16, 0);
#endif
#if HAVE("gemm_odd_nn_m192.h")
  test_leaky("gemm_odd_nn_m192", gemm_odd_nn_m192, BF16, 0);
#endif
#if HAVE("gemm_odd_nt_n192.h")
  test_leaky("gemm_odd_nt_n192", gemm_odd_nt_n192, BF16, 1);
#endif
#if HAVE("gemm_odd_nt_n208.h")
  test_leaky("gemm_odd_nt_n208", gemm_odd_nt_n208, BF16, 1);
#endif
#if HAVE("gemm_odd_nt_m192.h")
  test_leaky("gemm_odd_nt_m192", gemm_odd_nt_m192, BF16, 1);
#endif
#if HAVE("gemm_colsum_f16.h")
  test_colsum("gemm_colsum_f16", gemm_colsum_f16, F16);
#endif
#if HAVE("gemm_tf32_nn.h")
  test_tf32("gemm_tf32_nn", gemm_tf32_nn, 0, 0);
#endif
#if HAVE("gemm_tf32_tn.h")
  test_tf32("gemm_tf32_tn", gemm_tf32_tn, 1, 0);
#endif
#if HAVE("gemm_tf32_tt.h")
  test_tf32("gemm_tf32_tt", gemm_tf32_tt, 1, 1);
#endif
#if HAVE("gemm_tf32_wide_nn.h")
  test_tf32("gemm_tf32_wide_nn", gemm_tf32_wide_nn, 0, 0);
#endif
#if HAVE("gemm_tf32_wide_tt.h")
  test_tf32("gemm_tf32_wide_tt", gemm_tf32_wide_tt, 1, 1);
#endif
#if HAVE("gemm_colsum_bf16.h")
  test_colsum("gemm_colsum_bf16", gemm_colsum_bf16, BF16);
#endif
#if HAVE("gemm_xt_f16.h")
  test_xt("gemm_xt_f16", gemm_xt_f16, F16);
#endif
#if HAVE("gemm_xt_bf16.h")
  test_xt("gemm_xt_bf16", gemm_xt_bf16, BF16);
#endif
#ifdef LT_ATTENTIONS
#define RUN_ATT(fwd, pre, dq, dkdv, prea, dkdva, post, dt, D, cap, int_rows)                                         \
  test_attention(#fwd, #pre "," #dq "," #dkdv "," #prea "," #dkdva "," #post, (void *)fwd, (void *)pre, (void *)dq, \
                 (void *)dkdv, (void *)prea, (void *)dkdva, (void *)post, dt, D, cap, int_rows);
  LT_ATTENTIONS(RUN_ATT)
#endif
  if (hashes) fclose(hashes);
  if (!listing) printf("# emu %s: done\n", target);   /* run.sh: the run was not cut short */
  return fails ? 1 : 0;
}
