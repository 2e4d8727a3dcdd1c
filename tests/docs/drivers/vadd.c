/* vadd.c: drives docs/examples/vadd.lua (c target). */
#include "common.h"
#include "vadd.h"

int main(void) {
  static const int sizes[] = {1, 1000, 1025, 5000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int n = sizes[s];
    double *x, *y;
    void *X = buf_random(F32, n, -4, 4, &x), *Y = buf_random(F32, n, -4, 4, &y);
    void *Z = buf_new(F32, n);
    double *ref = malloc(sizeof *ref * n);
    for (int i = 0; i < n; i++) ref[i] = x[i] + y[i];
    buf_poison(F32, Z, n);
    char what[64];
    snprintf(what, sizeof what, "vadd N=%d", n);
    if (!expect_ok(what, vadd(X, Y, Z, n, NULL))) check(what, F32, Z, ref, n, 1e-6, 0);
    free(X); free(Y); free(Z); free(x); free(y); free(ref);
  }
  float one = 1;
  expect_reject("vadd N=0", vadd(&one, &one, &one, 0, NULL));
  expect_reject("vadd X=NULL", vadd(NULL, &one, &one, 1, NULL));
  return finish("vadd");
}
