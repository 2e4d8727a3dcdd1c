/* softmax_long.c: drives docs/examples/softmax_long.lua (c target). */
#include "common.h"
#include "softmax_long_f16.h"
#include "softmax_long_f32.h"

typedef int (*Softmax)(const void *, void *, int, int, void *);

static void reference(const double *x, double *y, int R, int C) {
  for (int r = 0; r < R; r++) {
    const double *xr = x + (size_t)r * C;
    double m = -INFINITY, s = 0;
    for (int c = 0; c < C; c++) m = fmax(m, xr[c]);
    for (int c = 0; c < C; c++) s += exp(xr[c] - m);
    for (int c = 0; c < C; c++) y[(size_t)r * C + c] = exp(xr[c] - m) / s;
  }
}

static void run(const char *name, Softmax fn, Dt dt, int R, int C, double lo, double hi) {
  size_t n = (size_t)R * C;
  double *x;
  void *X = buf_random(dt, n, lo, hi, &x), *Y = buf_new(dt, n);
  double *ref = malloc(sizeof *ref * n);
  reference(x, ref, R, C);
  buf_poison(dt, Y, n);
  char what[80];
  snprintf(what, sizeof what, "%s R=%d C=%d x in [%g, %g)", name, R, C, lo, hi);
  if (!expect_ok(what, fn(X, Y, R, C, NULL))) check(what, dt, Y, ref, n, dt_rtol(dt), 1e-7);
  free(X); free(Y); free(x); free(ref);
}

int main(void) {
  /* BC = 512: one chunk, several chunks, a ragged last chunk */
  static const int shapes[][2] = {{1, 1}, {2, 300}, {7, 1500}, {3, 4099}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    run("softmax_long_f32", softmax_long_f32, F32, shapes[s][0], shapes[s][1], -8, 8);
    run("softmax_long_f16", softmax_long_f16, F16, shapes[s][0], shapes[s][1], -8, 8);
  }
  /* a large spread: the running max grows from chunk to chunk */
  run("softmax_long_f32", softmax_long_f32, F32, 4, 2600, -60, 60);
  return finish("softmax_long");
}
