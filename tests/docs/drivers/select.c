/* select.c: drives docs/examples/select.lua (c target). */
#include "common.h"
#include "select_bf16.h"
#include "select_f32.h"

typedef int (*Select)(const void *, const void *, void *, int, void *);

static double op(int r, double a, double b) {
  switch (r) {
  case 0: return a + b;
  case 1: return a - b;
  case 2: return a * b;
  case 3: return a / b;
  case 4: return fmax(a, b);
  case 5: return fmin(a, b);
  case 6: return fmax(((a + b) * 0.5 - b) / 2, -1);
  case 7: return a < b ? a : b * 2;
  case 8: return a > 0 && b >= 0;
  case 9: return !(a > 0 && b >= 0);
  case 10: return a < -1 || b <= -1;
  case 11: return a < -1 || b <= -1 ? 2 : 0;
  case 12: return a == b ? 3 : 0;
  default: return (a >= b) + (a > b) + (a == b ? 10 : 0);
  }
}

static void run(const char *name, Select fn, Dt dt, int N) {
  double *a, *b;
  void *A = buf_random(dt, N, -3, 3, &a), *B = buf_random(dt, N, -3, 3, &b);
  for (int i = 0; i < N; i += 3) b[i] = buf_set(dt, B, i, a[i]);   /* some equal pairs */
  void *Y = buf_new(dt, (size_t)14 * N);
  double *ref = malloc(sizeof *ref * 14 * N);
  for (int r = 0; r < 14; r++)
    for (int i = 0; i < N; i++) ref[(size_t)r * N + i] = op(r, a[i], b[i]);
  buf_poison(dt, Y, (size_t)14 * N);
  char what[64];
  snprintf(what, sizeof what, "%s N=%d", name, N);
  if (!expect_ok(what, fn(A, B, Y, N, NULL))) {
    for (int r = 0; r < 14; r++) {
      char w2[80];
      snprintf(w2, sizeof w2, "%s row %d", what, r);
      check(w2, dt, (char *)Y + dt_size[dt] * r * N, ref + (size_t)r * N, N, dt_rtol(dt), 1e-6);
    }
  }
  free(A); free(B); free(Y); free(a); free(b); free(ref);
}

int main(void) {
  static const int sizes[] = {1, 300, 513, 2000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    run("select_f32", select_f32, F32, sizes[s]);
    run("select_bf16", select_bf16, BF16, sizes[s]);
  }
  return finish("select");
}
