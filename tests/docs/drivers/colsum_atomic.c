/* colsum_atomic.c: drives docs/examples/colsum_atomic.lua (c target). */
#include "common.h"
#include "colsum_atomic.h"

/* S starts at `base` (not zero: the kernel must add to it), then gets the
** column sums of X. */
static void run(int M, int N, double lo, double hi, double base) {
  size_t n = (size_t)M * N;
  double *x;
  void *X = buf_random(F32, n, lo, hi, &x), *S = buf_new(F32, N + 8);
  double *rs = malloc(sizeof *rs * N), worst = 0;
  for (int j = 0; j < N; j++) {
    double s = base, a = fabs(base);
    for (int m = 0; m < M; m++) {
      s += x[(size_t)m * N + j];
      a += fabs(x[(size_t)m * N + j]);
    }
    rs[j] = s;
    worst = fmax(worst, 1e-6 * a);
  }
  buf_poison(F32, S, N + 8);
  for (int j = 0; j < N; j++) ((float *)S)[j] = (float)base;
  char what[96];
  snprintf(what, sizeof what, "colsum_atomic M=%d N=%d x in [%g, %g), S = %g first", M, N, lo, hi, base);
  if (!expect_ok(what, colsum_atomic(X, S, M, N, NULL))) {
    check(what, F32, S, rs, N, 1e-5, worst);
    int tail = 1;   /* past the end of S: still poisoned */
    for (int j = N; j < N + 8; j++) tail &= isnan(((float *)S)[j]);
    if (!tail) {
      printf("%s: wrote past the end of S\n", what);
      failures++;
    }
  }
  free(X); free(S); free(x); free(rs);
}

int main(void) {
  static const int shapes[][2] = {{1, 1}, {15, 129}, {100, 300}, {33, 128}, {257, 5}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) run(shapes[s][0], shapes[s][1], -4, 4, 0);
  run(70, 200, -1, 1, 2.5);
  return finish("colsum_atomic");
}
