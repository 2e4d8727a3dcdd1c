/* axpy.c: drives docs/examples/axpy.lua (c target), all three variants. */
#include "common.h"
#include "axpy_bf16.h"
#include "axpy_f16.h"
#include "axpy_f32.h"

typedef int (*Axpy)(const void *, void *, int, float, void *);

static void run(const char *name, Axpy fn, Dt dt, int n) {
  double *x, *y;
  void *X = buf_random(dt, n, -2, 2, &x), *Y = buf_random(dt, n, -2, 2, &y);
  float alpha = (float)rnd(-3, 3);
  double *ref = malloc(sizeof *ref * n);
  for (int i = 0; i < n; i++) ref[i] = (double)alpha * x[i] + y[i];
  char what[64];
  snprintf(what, sizeof what, "%s N=%d", name, n);
  /* Y is read and written, so it holds inputs, not poison; a poisoned
  ** guard element after it must stay NaN (the store is masked at N) */
  void *Yg = buf_new(dt, n + 1);
  memcpy(Yg, Y, dt_size[dt] * n);
  buf_poison(dt, (char *)Yg + dt_size[dt] * n, 1);
  if (!expect_ok(what, fn(X, Yg, n, alpha, NULL))) {
    check(what, dt, Yg, ref, n, dt_rtol(dt), 1e-6);
    if (!isnan(buf_get(dt, Yg, n))) {
      printf("%s: wrote past N\n", what);
      failures++;
    }
  }
  free(X); free(Y); free(Yg); free(x); free(y); free(ref);
}

int main(void) {
  static const int sizes[] = {1, 2047, 2049, 10000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    run("axpy_f32", axpy_f32, F32, sizes[s]);
    run("axpy_f16", axpy_f16, F16, sizes[s]);
    run("axpy_bf16", axpy_bf16, BF16, sizes[s]);
  }
  return finish("axpy");
}
