/* gemm.c: drives docs/examples/gemm.lua (c target) on ragged shapes. */
#include "common.h"
#include "gemm.h"

static void run(int M, int N, int K) {
  double *a, *b;
  void *A = buf_random(F32, M * K, -1, 1, &a), *B = buf_random(F32, K * N, -1, 1, &b);
  void *C = buf_new(F32, M * N);
  buf_poison(F32, C, M * N);
  double *ref = malloc(sizeof *ref * M * N);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * N + j];
      ref[i * N + j] = s;
    }
  char what[64];
  snprintf(what, sizeof what, "gemm %dx%dx%d", M, N, K);
  if (!expect_ok(what, gemm(A, B, C, M, K, N, NULL))) check(what, F32, C, ref, M * N, 1e-5, 1e-5);
  free(A); free(B); free(C); free(a); free(b); free(ref);
}

int main(void) {
  run(1, 1, 1);
  run(65, 130, 17);
  run(200, 70, 100);
  return finish("gemm");
}
