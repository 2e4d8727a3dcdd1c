/* rowstats.c: drives docs/examples/rowstats.lua (c target). */
#include "common.h"
#include "rowstats_bf16.h"
#include "rowstats_f32.h"

typedef int (*Rowstats)(const void *, void *, void *, int, int, void *);

static void run(const char *name, Rowstats fn, Dt dt, int M, int N) {
  size_t n = (size_t)M * N;
  double *x;
  void *X = buf_random(dt, n, -5, 5, &x), *S = buf_new(F32, (size_t)M * 3), *Y = buf_new(dt, n);
  double *rs = malloc(sizeof *rs * M * 3), *ry = malloc(sizeof *ry * n);
  double *atol = malloc(sizeof *atol * M);
  for (int m = 0; m < M; m++) {
    double sum = 0, asum = 0, hi = -INFINITY, lo = INFINITY;
    for (int j = 0; j < N; j++) {
      double v = x[(size_t)m * N + j];
      sum += v;
      asum += fabs(v);
      hi = fmax(hi, v);
      lo = fmin(lo, v);
    }
    rs[m * 3] = sum / N;
    rs[m * 3 + 1] = hi;
    rs[m * 3 + 2] = lo;
    atol[m] = 1e-6 * asum / N;   /* the mean cancels: absolute error scale */
    for (int j = 0; j < N; j++) ry[(size_t)m * N + j] = x[(size_t)m * N + j] - sum / N;
  }
  buf_poison(F32, S, (size_t)M * 3);
  buf_poison(dt, Y, n);
  char what[64];
  snprintf(what, sizeof what, "%s M=%d N=%d", name, M, N);
  if (!expect_ok(what, fn(X, S, Y, M, N, NULL))) {
    double worst = 0;
    for (int m = 0; m < M; m++) worst = fmax(worst, atol[m]);
    char w2[80];
    snprintf(w2, sizeof w2, "%s S", what);
    check(w2, F32, S, rs, (size_t)M * 3, 1e-5, worst);
    snprintf(w2, sizeof w2, "%s Y", what);
    check(w2, dt, Y, ry, n, dt_rtol(dt), dt == F32 ? 1e-5 : 0.05);
  }
  free(X); free(S); free(Y); free(x); free(rs); free(ry); free(atol);
}

int main(void) {
  static const int shapes[][2] = {{1, 1}, {9, 100}, {30, 256}, {13, 255}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    run("rowstats_f32", rowstats_f32, F32, shapes[s][0], shapes[s][1]);
    run("rowstats_bf16", rowstats_bf16, BF16, shapes[s][0], shapes[s][1]);
  }
  return finish("rowstats");
}
