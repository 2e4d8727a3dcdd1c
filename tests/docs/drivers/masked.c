/* masked.c: drives docs/examples/masked.lua (c target): lengths from
** negative to past N; the elements of Y outside each row's length keep
** what they held, and X's elements there are never read (NaN in X there
** would show). */
#include "common.h"
#include "masked.h"

static void run(int M, int N) {
  double *x, *s;
  void *X = buf_random(F32, (size_t)M * N, -2, 2, &x), *S = buf_random(F32, N, -1, 1, &s);
  void *L = buf_new(I32, M), *Y = buf_new(F32, (size_t)M * N + 8), *T = buf_new(F32, (size_t)M * N);
  double *ref = malloc(sizeof *ref * M * N), *rt = malloc(sizeof *rt * M * N);
  for (int r = 0; r < M; r++) ((int *)L)[r] = irand(-2, N + 3);
  for (int r = 0; r < M; r++)
    for (int c = 0; c < N; c++) {
      size_t i = (size_t)r * N + c;
      ((float *)Y)[i] = (float)(i % 13);
      if (c >= ((int *)L)[r]) ((float *)X)[i] = NAN;   /* masked out: must not be read */
      rt[i] = c < ((int *)L)[r] ? (float)x[i] : 0;
      ref[i] = c < ((int *)L)[r] ? (double)(float)(2 * (float)x[i]) + (float)s[c] : (double)(i % 13);
    }
  buf_poison(F32, T, (size_t)M * N);
  for (int i = 0; i < 8; i++) ((float *)Y)[(size_t)M * N + i] = NAN;
  char what[64];
  snprintf(what, sizeof what, "masked M=%d N=%d", M, N);
  if (!expect_ok(what, masked(X, L, S, Y, T, M, N, NULL))) {
    check(what, F32, Y, ref, (size_t)M * N, 1e-6, 0);
    check(what, F32, T, rt, (size_t)M * N, 0, 0);
    int tail = 1;
    for (int i = 0; i < 8; i++) tail &= isnan(((float *)Y)[(size_t)M * N + i]);
    if (!tail) {
      printf("%s: wrote past the end of Y\n", what);
      failures++;
    }
  }
  free(X); free(S); free(L); free(Y); free(x); free(s); free(ref); free(T); free(rt);
}

int main(void) {
  run(1, 1);
  run(9, 130);
  run(33, 300);
  run(8, 128);
  return finish("masked");
}
