/* builds.c: drives docs/examples/builds.lua (c target): both builds, on
** either side of N = 4096, a poisoned guard element past N. */
#include "common.h"
#include "scale_builds.h"

static void run(int n) {
  double *x;
  void *X = buf_random(F32, n, -2, 2, &x);
  float alpha = (float)rnd(-3, 3);
  double *ref = malloc(sizeof *ref * n);
  for (int i = 0; i < n; i++) ref[i] = (double)alpha * x[i];
  char what[64];
  snprintf(what, sizeof what, "scale_builds N=%d", n);
  void *Y = buf_new(F32, n + 1);
  buf_poison(F32, Y, n + 1);
  if (!expect_ok(what, scale_builds(X, Y, n, alpha, NULL))) {
    check(what, F32, Y, ref, n, dt_rtol(F32), 1e-6);
    if (!isnan(buf_get(F32, Y, n))) {
      printf("%s: wrote past N\n", what);
      failures++;
    }
  }
  free(X); free(Y); free(x); free(ref);
}

int main(void) {
  static const int sizes[] = {1, 511, 513, 4096, 4097, 10000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) run(sizes[s]);
  return finish("scale_builds");
}
