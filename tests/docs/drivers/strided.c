/* strided.c: drives docs/examples/strided.lua (c target). */
#include "common.h"
#include "strided.h"

static void run(int B, int M, int N, int pad) {
  /* A: B column-major M x N matrices, leading dim M + pad, batch stride
  ** lda * N + pad; T: the same layout, holding A transposed per batch. */
  int64_t lda = M + pad, sab = lda * N + pad;
  size_t na = (size_t)sab * B, n = (size_t)B * M * N;
  double *a;
  float *A = buf_random(F32, na, -4, 4, &a);
  float *Y = buf_new(F32, n), *T = buf_new(F32, na), *D = buf_new(F32, n);
  double *ry = malloc(sizeof *ry * n), *rd = malloc(sizeof *rd * n), *rt = malloc(sizeof *rt * na);
  buf_poison(F32, T, na);
  for (size_t i = 0; i < na; i++) rt[i] = NAN;   /* the padding stays poisoned */
  for (int b = 0; b < B; b++)
    for (int m = 0; m < M; m++)
      for (int j = 0; j < N; j++) {
        double v = a[b * sab + m + j * lda];
        size_t o = ((size_t)b * M + m) * N + j;
        ry[o] = v + 1;
        rd[o] = j + 1 < N ? a[b * sab + m + (j + 1) * lda] : 0;
        rt[b * sab + m + j * lda] = v;
      }
  buf_poison(F32, Y, n);
  buf_poison(F32, D, n);
  char what[64];
  snprintf(what, sizeof what, "strided B=%d M=%d N=%d pad=%d", B, M, N, pad);
  if (!expect_ok(what, strided(A, Y, T, D, B, M, N, sab, lda, sab, lda, NULL))) {
    check(what, F32, Y, ry, n, 1e-6, 0);
    check(what, F32, D, rd, n, 0, 0);
    size_t bad = 0;   /* T: written where A has data, untouched (NaN) in the padding */
    for (size_t i = 0; i < na; i++)
      if (isnan(rt[i]) ? !isnan(T[i]) : T[i] != rt[i]) bad++;
    if (bad) {
      printf("%s: T has %zu wrong elements\n", what, bad);
      failures++;
    }
  }
  if (M > 1) {   /* k:require(p.lda:ge(p.M)), and T's columns would overlap (ldt < M) */
    snprintf(what, sizeof what, "strided B=%d M=%d N=%d: lda = M - 1", B, M, N);
    expect_reject(what, strided(A, Y, T, D, B, M, N, sab, M - 1, sab, lda, NULL));
    snprintf(what, sizeof what, "strided B=%d M=%d N=%d: ldt = M - 1", B, M, N);
    expect_reject(what, strided(A, Y, T, D, B, M, N, sab, lda, sab, M - 1, NULL));
  }
  free(A); free(Y); free(T); free(D); free(a); free(ry); free(rd); free(rt);
}

int main(void) {
  run(1, 1, 1, 0);
  run(2, 17, 33, 3);
  run(3, 40, 70, 0);
  return finish("strided");
}
