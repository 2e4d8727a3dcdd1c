/* temperature.c: drives docs/examples/temperature.lua (c target): Y = X / temp
** for temperatures above 0, and the launcher's refusal of temp <= 0 and NaN
** (Y, poisoned, must stay untouched then). */
#include "common.h"
#include "temperature.h"

static void run(int n) {
  double *x;
  void *X = buf_random(F32, n, -4, 4, &x), *Y = buf_new(F32, n);
  float temp = (float)rnd(0.25, 4);
  double *ref = malloc(sizeof *ref * n);
  for (int i = 0; i < n; i++) ref[i] = x[i] / temp;
  char what[64];
  snprintf(what, sizeof what, "temperature N=%d temp=%g", n, temp);
  buf_poison(F32, Y, n);
  if (!expect_ok(what, temperature(X, Y, n, temp, NULL))) check(what, F32, Y, ref, n, dt_rtol(F32), 1e-6);
  static const float bad[] = {0.0f, -1.0f, NAN};
  for (int b = 0; b < 3; b++) {
    snprintf(what, sizeof what, "temperature N=%d temp=%g", n, bad[b]);
    buf_poison(F32, Y, n);
    expect_reject(what, temperature(X, Y, n, bad[b], NULL));
    for (int i = 0; i < n; i++)
      if (!isnan(buf_get(F32, Y, i))) {
        printf("%s: refused, yet wrote Y[%d]\n", what, i);
        failures++;
        break;
      }
  }
  free(X); free(Y); free(x); free(ref);
}

int main(void) {
  static const int sizes[] = {1, 1023, 1025, 5000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) run(sizes[s]);
  return finish("temperature");
}
