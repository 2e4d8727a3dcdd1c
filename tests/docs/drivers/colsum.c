/* colsum.c: drives docs/examples/colsum.lua (c target). */
#include "common.h"
#include "colsum.h"

static void run(int M, int N, double lo, double hi) {
  size_t n = (size_t)M * N;
  double *x;
  void *X = buf_random(F32, n, lo, hi, &x), *S = buf_new(F32, N), *H = buf_new(F32, N);
  double *rs = malloc(sizeof *rs * N), *rh = malloc(sizeof *rh * N), worst = 0;
  for (int j = 0; j < N; j++) {
    double s = 0, a = 0, h = -INFINITY;
    for (int m = 0; m < M; m++) {
      double v = x[(size_t)m * N + j];
      s += v;
      a += fabs(v);
      h = fmax(h, v);
    }
    rs[j] = s;
    rh[j] = h;
    worst = fmax(worst, 1e-6 * a);
  }
  buf_poison(F32, S, N);
  buf_poison(F32, H, N);
  char what[80];
  snprintf(what, sizeof what, "colsum M=%d N=%d x in [%g, %g)", M, N, lo, hi);
  if (!expect_ok(what, colsum(X, S, H, M, N, NULL))) {
    check(what, F32, S, rs, N, 1e-5, worst);
    check(what, F32, H, rh, N, 0, 0);
  }
  free(X); free(S); free(H); free(x); free(rs); free(rh);
}

int main(void) {
  static const int shapes[][2] = {{1, 1}, {15, 129}, {100, 300}, {33, 128}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) run(shapes[s][0], shapes[s][1], -4, 4);
  run(37, 200, -9, -1);   /* all negative: masked rows must not win the max */
  return finish("colsum");
}
