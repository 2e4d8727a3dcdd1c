/*
** check.c: CPU numerics of every shipped kernel and variant, through the
** c target (the .c files of out/c, built beside this file).
**
** Each case draws random inputs (never zeros) of a ragged shape, rounds
** them to the variant's dtype, poisons the output with NaN bytes, runs the
** generated launcher and compares every element with a float64 reference
** computed here from the same rounded inputs:
**     |out - ref| <= atol + rtol * |ref|  per dtype, and no NaN anywhere.
** It also checks that the launchers reject null pointers and bad sizes.
** Prints PASS / FAIL lines; exit status 0.
*/
#include "add_bf16.h"
#include "add_f16.h"
#include "add_f32.h"
#include "bias_gelu_bf16.h"
#include "bias_gelu_f16.h"
#include "bias_gelu_f32.h"
#include "layernorm_bf16.h"
#include "layernorm_f16.h"
#include "layernorm_f32.h"
#include "rmsnorm_bf16.h"
#include "rmsnorm_f16.h"
#include "rmsnorm_f32.h"
#include "softmax_bf16.h"
#include "softmax_f16.h"
#include "softmax_f32.h"

#include "common.h"

typedef int (*AddFn)(const void *, const void *, void *, int, void *);
typedef int (*BiasFn)(const void *, const void *, void *, int, int, void *);
typedef int (*SoftmaxFn)(const void *, void *, int, int, void *);
typedef int (*RmsFn)(const void *, const void *, void *, int, int, float, void *);
typedef int (*LnFn)(const void *, const void *, const void *, void *, int, int, float, void *);

static void test_add(int dt, AddFn fn) {
  static const int sizes[] = {1, 7, 4095, 4097, 10001};
  for (int s = 0; s < 5; s++) {
    int n = sizes[s];
    void *x = random_buf(dt, (size_t)n, -3, 3), *y = random_buf(dt, (size_t)n, -3, 3), *z = poisoned(dt, (size_t)n);
    double *ref = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) ref[i] = get(x, dt, (size_t)i) + get(y, dt, (size_t)i);
    char name[64];
    snprintf(name, sizeof name, "cpu add_%s N=%d", dname[dt], n);
    if (fn(x, y, z, n, NULL) != 0) status(name, 0, "launcher returned an error");
    else compare(name, dt, z, ref, (size_t)n);
    free(x), free(y), free(z), free(ref);
  }
  char name[64];
  snprintf(name, sizeof name, "cpu add_%s rejects bad arguments", dname[dt]);
  int buf[4];
  status(name, fn(NULL, buf, buf, 4, NULL) != 0 && fn(buf, buf, buf, 0, NULL) != 0 && fn(buf, buf, buf, -3, NULL) != 0 &&
                   fn(buf, buf, buf, 1 << 30, NULL) != 0 && fn(buf, buf, buf, 2147483647, NULL) != 0,
         "a null pointer, a size <= 0 or a size >= 2^30 (int index overflow) was accepted");
}

static void test_bias_gelu(int dt, BiasFn fn) {
  static const int shapes[][2] = {{1, 1}, {13, 700}, {9, 1025}, {17, 512}};
  for (int s = 0; s < 4; s++) {
    int M = shapes[s][0], N = shapes[s][1];
    size_t n = (size_t)M * (size_t)N;
    void *x = random_buf(dt, n, -3, 3), *b = random_buf(dt, (size_t)N, -1, 1), *y = poisoned(dt, n);
    double *ref = malloc(sizeof(double) * n);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double h = get(x, dt, (size_t)i * (size_t)N + (size_t)j) + get(b, dt, (size_t)j);
        ref[(size_t)i * (size_t)N + (size_t)j] = 0.5 * h * (1 + erf(h / sqrt(2.0)));
      }
    char name[64];
    snprintf(name, sizeof name, "cpu bias_gelu_%s %dx%d", dname[dt], M, N);
    if (fn(x, b, y, M, N, NULL) != 0) status(name, 0, "launcher returned an error");
    else compare(name, dt, y, ref, n);
    free(x), free(b), free(y), free(ref);
  }
}

static const int row_shapes[][2] = {{1, 1}, {3, 1000}, {5, 4096}, {2, 4097}, {3, 9000}, {4, 77}};
#define NROW (int)(sizeof row_shapes / sizeof row_shapes[0])

static void test_softmax(int dt, SoftmaxFn fn) {
  for (int s = 0; s < NROW; s++) {
    int R = row_shapes[s][0], C = row_shapes[s][1];
    size_t n = (size_t)R * (size_t)C;
    void *x = random_buf(dt, n, -6, 6), *y = poisoned(dt, n);
    double *ref = malloc(sizeof(double) * n);
    /* a ramp along odd rows: later chunks raise the running max, which a
    ** long-row kernel must rescale its running sum for */
    for (int r = 1; r < R; r += 2)
      for (int c = 0; c < C; c++) put(x, dt, (size_t)r * C + c, get(x, dt, (size_t)r * C + c) + 12.0 * c / C);
    for (int r = 0; r < R; r++) {
      double m = -INFINITY, sum = 0;
      for (int c = 0; c < C; c++) m = fmax(m, get(x, dt, (size_t)r * C + c));
      for (int c = 0; c < C; c++) sum += exp(get(x, dt, (size_t)r * C + c) - m);
      for (int c = 0; c < C; c++) ref[(size_t)r * C + c] = exp(get(x, dt, (size_t)r * C + c) - m) / sum;
    }
    char name[64];
    snprintf(name, sizeof name, "cpu softmax_%s %dx%d", dname[dt], R, C);
    if (fn(x, y, R, C, NULL) != 0) status(name, 0, "launcher returned an error");
    else compare(name, dt, y, ref, n);
    free(x), free(y), free(ref);
  }
}

static void test_norm(int dt, RmsFn rms, LnFn ln) {
  for (int s = 0; s < NROW; s++) {
    int R = row_shapes[s][0], C = row_shapes[s][1];
    size_t n = (size_t)R * (size_t)C;
    const float eps = 1e-5f;
    /* LayerNorm sees rows around an offset on every other shape: 1000 for
    ** f16 and bf16, where a variance taken as E[x^2] - mean^2 comes out
    ** negative (NaN), and 10 for f32, whose 2e-5 tolerance is finer than what
    ** summing 9000 values near 1000 in f32 keeps of the mean. */
    const double off = !ln || s % 2 == 0 ? 0 : dt == F32 ? 10 : 1000;
    void *x = random_buf(dt, n, off - 3, off + 3), *w = random_buf(dt, (size_t)C, 0.5, 1.5), *b = random_buf(dt, (size_t)C, -1, 1);
    void *y = poisoned(dt, n);
    double *ref = malloc(sizeof(double) * n);
    char name[64];
    if (rms) {
      for (int r = 0; r < R; r++) {
        double ss = 0;
        for (int c = 0; c < C; c++) ss += get(x, dt, (size_t)r * C + c) * get(x, dt, (size_t)r * C + c);
        double rstd = 1 / sqrt(ss / C + eps);
        for (int c = 0; c < C; c++) ref[(size_t)r * C + c] = get(x, dt, (size_t)r * C + c) * rstd * get(w, dt, (size_t)c);
      }
      snprintf(name, sizeof name, "cpu rmsnorm_%s %dx%d", dname[dt], R, C);
      if (rms(x, w, y, R, C, eps, NULL) != 0) status(name, 0, "launcher returned an error");
      else compare(name, dt, y, ref, n);
    } else {
      for (int r = 0; r < R; r++) {
        double mean = 0, var = 0;
        for (int c = 0; c < C; c++) mean += get(x, dt, (size_t)r * C + c);
        mean /= C;
        for (int c = 0; c < C; c++) var += pow(get(x, dt, (size_t)r * C + c) - mean, 2);
        double rstd = 1 / sqrt(var / C + eps);
        for (int c = 0; c < C; c++)
          ref[(size_t)r * C + c] = (get(x, dt, (size_t)r * C + c) - mean) * rstd * get(w, dt, (size_t)c) + get(b, dt, (size_t)c);
      }
      snprintf(name, sizeof name, "cpu layernorm_%s %dx%d", dname[dt], R, C);
      if (ln(x, w, b, y, R, C, eps, NULL) != 0) status(name, 0, "launcher returned an error");
      else compare(name, dt, y, ref, n);
    }
    free(x), free(w), free(b), free(y), free(ref);
  }
}

int main(void) {
  test_add(F32, add_f32), test_add(F16, add_f16), test_add(BF16, add_bf16);
  test_bias_gelu(F32, bias_gelu_f32), test_bias_gelu(F16, bias_gelu_f16), test_bias_gelu(BF16, bias_gelu_bf16);
  test_softmax(F32, softmax_f32), test_softmax(F16, softmax_f16), test_softmax(BF16, softmax_bf16);
  test_norm(F32, rmsnorm_f32, NULL), test_norm(F16, rmsnorm_f16, NULL), test_norm(BF16, rmsnorm_bf16, NULL);
  test_norm(F32, NULL, layernorm_f32), test_norm(F16, NULL, layernorm_f16), test_norm(BF16, NULL, layernorm_bf16);
  fprintf(stderr, "cpu numerics: %d passed, %d failed\n", passes, failures);
  return 0;
}
