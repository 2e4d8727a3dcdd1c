/* intops.c: drives docs/examples/intops.lua (c target). */
#include "common.h"
#include "intops.h"

static void run(int N, int shift) {
  int32_t *Q = buf_new(I32, N), *O = buf_new(I32, (size_t)6 * N);
  float *F = buf_new(F32, (size_t)2 * N);
  double *ro = malloc(sizeof *ro * 6 * N), *rf = malloc(sizeof *rf * 2 * N);
  for (int i = 0; i < N; i++) {
    int q = irand(1, 2000);
    Q[i] = q;
    ro[i] = i;
    ro[N + i] = q / 7 + shift;
    ro[2 * N + i] = q % 7;
    ro[3 * N + i] = (q > i ? q : i) < 1000 ? (q > i ? q : i) : 1000;
    ro[4 * N + i] = abs(q - 500) * 2;
    ro[5 * N + i] = trunc(q * -0.75);
    rf[i] = q / 3.0;
    rf[N + i] = (double)q * shift;
  }
  buf_poison(I32, O, (size_t)6 * N);
  buf_poison(F32, F, (size_t)2 * N);
  char what[64];
  snprintf(what, sizeof what, "intops N=%d shift=%d", N, shift);
  if (!expect_ok(what, intops(Q, O, F, N, shift, NULL))) {
    check(what, I32, O, ro, (size_t)6 * N, 0, 0);
    check(what, F32, F, rf, (size_t)2 * N, 1e-6, 0);
  }
  free(Q); free(O); free(F); free(ro); free(rf);
}

int main(void) {
  run(1, 3);
  run(127, -2);
  run(1500, 5);
  return finish("intops");
}
