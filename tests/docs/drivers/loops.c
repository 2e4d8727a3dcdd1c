/* loops.c: drives docs/examples/loops.lua (c target), both variants. */
#include "common.h"
#include "loops.h"
#include "loops_absolute.h"

typedef int (*Loops)(const void *, void *, void *, int, int, void *);

static void run(const char *name, Loops fn, int absolute, int R, int C) {
  size_t n = (size_t)R * C;
  double *x;
  void *X = buf_random(F32, n, -6, 6, &x), *Y = buf_new(F32, n), *S = buf_new(F32, (size_t)R * 2);
  double *ry = malloc(sizeof *ry * n), *rs = malloc(sizeof *rs * R * 2);
  for (int r = 0; r < R; r++) {
    double lo = INFINITY;
    for (int c = 0; c < C; c++) lo = fmin(lo, absolute ? fabs(x[(size_t)r * C + c]) : x[(size_t)r * C + c]);
    rs[2 * r] = lo;
    rs[2 * r + 1] = C > 128;
    for (int c = 0; c < C; c++) {
      double v = x[(size_t)r * C + c];
      ry[(size_t)r * C + c] = (absolute ? fabs(v) : v) - lo;
    }
  }
  buf_poison(F32, Y, n);
  buf_poison(F32, S, (size_t)R * 2);
  char what[64];
  snprintf(what, sizeof what, "%s R=%d C=%d", name, R, C);
  if (!expect_ok(what, fn(X, Y, S, R, C, NULL))) {
    check(what, F32, S, rs, (size_t)R * 2, 0, 0);
    check(what, F32, Y, ry, n, 1e-6, 1e-6);
  }
  free(X); free(Y); free(S); free(x); free(ry); free(rs);
}

int main(void) {
  /* BC = 128: one chunk, an even and an odd number of chunks */
  static const int shapes[][2] = {{1, 1}, {3, 100}, {4, 500}, {2, 700}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    run("loops", loops, 0, shapes[s][0], shapes[s][1]);
    run("loops_absolute", loops_absolute, 1, shapes[s][0], shapes[s][1]);
  }
  return finish("loops");
}
