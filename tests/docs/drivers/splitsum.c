/* splitsum.c: drives docs/examples/splitsum.lua (c target, where
** k:sm_count() is 1): W's first splitsum_rows(N, C) rows add up to X's
** column sums, the rows past them are not written, and a W one row short
** is refused. */
#include "common.h"
#include "splitsum.h"

static void run(int N, int C) {
  double *x;
  void *X = buf_random(F32, (size_t)N * C, -1, 1, &x);
  int64_t S = splitsum_rows(N, C);
  int WR = (int)S + 1;
  void *W = buf_new(F32, (size_t)WR * C);
  char what[64];
  snprintf(what, sizeof what, "splitsum N=%d C=%d (%lld splits)", N, C, (long long)S);
  buf_poison(F32, W, (size_t)WR * C);
  expect_reject(what, splitsum(X, W, N, C, (int)S - 1, NULL));
  if (!expect_ok(what, splitsum(X, W, N, C, WR, NULL))) {
    double *ref = malloc(sizeof *ref * C), *got = malloc(sizeof *got * C);
    int unwritten = 1;
    for (int j = 0; j < C; j++) {
      ref[j] = got[j] = 0;
      for (int i = 0; i < N; i++) ref[j] += x[(size_t)i * C + j];
      for (int s = 0; s < S; s++) got[j] += ((float *)W)[(size_t)s * C + j];
      unwritten &= isnan(((float *)W)[(size_t)S * C + j]);
    }
    for (int j = 0; j < C; j++) buf_set(F32, W, j, got[j]);
    check(what, F32, W, ref, C, 1e-5, 1e-4);
    if (!unwritten) {
      printf("%s: row %lld of W, past the splits, was written\n", what, (long long)S);
      failures++;
    }
    free(ref); free(got);
  }
  free(X); free(W); free(x);
}

int main(void) {
  if (splitsum_rows(1000, 64) != 4 || splitsum_rows(1000, 256) != 1 || splitsum_rows(40, 64) != 2) {
    printf("splitsum_rows: %lld, %lld, %lld splits; want 4, 1, 2 (4 programs on the CPU's 1)\n",
           (long long)splitsum_rows(1000, 64), (long long)splitsum_rows(1000, 256), (long long)splitsum_rows(40, 64));
    failures++;
  }
  run(1000, 64);   /* 4 splits of 32 row tiles */
  run(40, 64);     /* 2 row tiles: 2 splits, the second ragged */
  run(333, 130);   /* 3 column tiles: 2 splits */
  run(5, 300);     /* 5 column tiles: 1 */
  return finish("splitsum");
}
