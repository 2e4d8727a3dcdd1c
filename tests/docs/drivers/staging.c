/* staging.c: drives docs/examples/staging.lua (c target). */
#include "common.h"
#include "staging_f16.h"
#include "staging_f32.h"

typedef int (*Staging)(const void *, const void *, void *, void *, int, int, int, void *);

static void run(const char *name, Staging fn, Dt dt, int B, int M, int N) {
  size_t n = (size_t)M * N;
  double *x, *w;
  void *X = buf_random(dt, (size_t)B * n, -2, 2, &x), *W = buf_random(F32, n, -2, 2, &w);
  void *Y = buf_new(F32, n), *Z = buf_new(F32, n);
  double *ref = malloc(sizeof *ref * n), worst = 0;
  for (size_t i = 0; i < n; i++) {
    double s = 0, a = 0;
    for (int b = 0; b < B; b++) {
      s += x[b * n + i];
      a += fabs(x[b * n + i]);
    }
    ref[i] = w[i] * s;
    worst = fmax(worst, 1e-6 * a * fabs(w[i]));
  }
  buf_poison(F32, Y, n);
  buf_poison(F32, Z, n);
  char what[64];
  snprintf(what, sizeof what, "%s B=%d M=%d N=%d", name, B, M, N);
  if (!expect_ok(what, fn(X, W, Y, Z, B, M, N, NULL))) {
    check(what, F32, Y, ref, n, 1e-5, worst);
    check(what, F32, Z, ref, n, 1e-5, worst);
  }
  free(X); free(W); free(Y); free(Z); free(x); free(w); free(ref);
}

int main(void) {
  static const int shapes[][3] = {{1, 1, 1}, {3, 9, 65}, {5, 20, 100}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    run("staging_f32", staging_f32, F32, shapes[s][0], shapes[s][1], shapes[s][2]);
    run("staging_f16", staging_f16, F16, shapes[s][0], shapes[s][1], shapes[s][2]);
  }
  return finish("staging");
}
