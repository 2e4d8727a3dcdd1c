/* mathops.c: drives docs/examples/mathops.lua (c target). */
#include "common.h"
#include "mathops_f16.h"
#include "mathops_f32.h"

typedef int (*Mathops)(const void *, void *, int, void *);

static double fn(int f, double x) {
  double a = fabs(x);
  switch (f) {
  case 0: return exp(x);
  case 1: return exp2(x);
  case 2: return log(a);
  case 3: return sqrt(a);
  case 4: return 1 / sqrt(a);
  case 5: return tanh(x);
  case 6: return erf(x);
  case 7: return a;
  case 8: return -x;
  default: return sqrt(fabs(tanh(x)));
  }
}

static void run(const char *name, Mathops op, Dt dt, int N) {
  double *x;
  void *X = buf_random(dt, N, -4, 4, &x), *Y = buf_new(dt, (size_t)10 * N);
  double *ref = malloc(sizeof *ref * 10 * N);
  for (int f = 0; f < 10; f++)
    for (int i = 0; i < N; i++) ref[(size_t)f * N + i] = fn(f, x[i]);
  buf_poison(dt, Y, (size_t)10 * N);
  char what[64];
  snprintf(what, sizeof what, "%s N=%d", name, N);
  if (!expect_ok(what, op(X, Y, N, NULL))) {
    for (int f = 0; f < 10; f++) {
      char w2[80];
      snprintf(w2, sizeof w2, "%s row %d", what, f);
      /* f32: libm float functions are within a few ulp */
      check(w2, dt, (char *)Y + dt_size[dt] * f * N, ref + (size_t)f * N, N, dt == F32 ? 1e-6 : dt_rtol(dt), 1e-7);
    }
  }
  free(X); free(Y); free(x); free(ref);
}

int main(void) {
  static const int sizes[] = {1, 255, 257, 1000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    run("mathops_f32", mathops_f32, F32, sizes[s]);
    run("mathops_f16", mathops_f16, F16, sizes[s]);
  }
  return finish("mathops");
}
