/* softmax_row.c: drives docs/examples/softmax_row.lua (c target). */
#include "common.h"
#include "softmax_row_bf16.h"
#include "softmax_row_f32.h"

typedef int (*Softmax)(const void *, void *, int, int, void *);

/* Naive softmax of each row, in double. */
static void reference(const double *x, double *y, int R, int C) {
  for (int r = 0; r < R; r++) {
    const double *xr = x + (size_t)r * C;
    double m = -INFINITY, s = 0;
    for (int c = 0; c < C; c++) m = fmax(m, xr[c]);
    for (int c = 0; c < C; c++) s += exp(xr[c] - m);
    for (int c = 0; c < C; c++) y[(size_t)r * C + c] = exp(xr[c] - m) / s;
  }
}

static void run(const char *name, Softmax fn, Dt dt, int R, int C) {
  size_t n = (size_t)R * C;
  double *x;
  void *X = buf_random(dt, n, -8, 8, &x), *Y = buf_new(dt, n);
  double *ref = malloc(sizeof *ref * n);
  reference(x, ref, R, C);
  buf_poison(dt, Y, n);
  char what[64];
  snprintf(what, sizeof what, "%s R=%d C=%d", name, R, C);
  if (!expect_ok(what, fn(X, Y, R, C, NULL))) check(what, dt, Y, ref, n, dt_rtol(dt), 1e-7);
  free(X); free(Y); free(x); free(ref);
}

int main(void) {
  static const int shapes[][2] = {{1, 1}, {3, 77}, {17, 1000}, {5, 1023}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    run("softmax_row_f32", softmax_row_f32, F32, shapes[s][0], shapes[s][1]);
    run("softmax_row_bf16", softmax_row_bf16, BF16, shapes[s][0], shapes[s][1]);
  }
  return finish("softmax_row");
}
