/* rows_batched.c: tests/cpu/rows_batched.lua against a float64 reference:
** B batches of Y[b, lo:hi] = X[b, lo:hi] @ W, with [lo, hi) not on the
** 128-row tile grid (a warpgroup's 64 rows partly outside it, another's
** wholly inside) and columns not a multiple of the tile; Y poisoned first,
** and its rows outside [lo, hi) in every batch must keep the poison.
** Small integers, so every target's Y is the same bytes ($LT_DUMP).  Run
** by tests/emu/drivers.sh against the c target and each emulated GPU
** target.  Prints PASS/FAIL. */
#include "../docs/drivers/common.h"
#include "rows_batched.h"

static void run(int B, int T, int K, int N, int lo, int hi) {
  double *x, *w;
  void *X = buf_new(BF16, (size_t)B * T * K), *W = buf_new(BF16, (size_t)K * N), *Y = buf_new(BF16, (size_t)B * T * N);
  x = malloc(sizeof *x * (size_t)B * T * K), w = malloc(sizeof *w * (size_t)K * N);
  for (size_t i = 0; i < (size_t)B * T * K; i++) x[i] = buf_set(BF16, X, i, irand(-1, 1));
  for (size_t i = 0; i < (size_t)K * N; i++) w[i] = buf_set(BF16, W, i, irand(-2, 2));
  buf_poison(BF16, Y, (size_t)B * T * N);
  int32_t *lh = buf_new(I32, 2);
  lh[0] = lo, lh[1] = hi;
  double *ref = malloc(sizeof *ref * (size_t)(hi - lo) * N);
  char what[96];
  snprintf(what, sizeof what, "rows_batched B=%d T=%d K=%d N=%d rows [%d, %d)", B, T, K, N, lo, hi);
  int bad = failures;
  if (!expect_ok(what, rows_batched(X, W, lh, Y, B, T, K, N, NULL))) {
    size_t written = 0;
    for (int b = 0; b < B; b++) {
      for (int m = lo; m < hi; m++)
        for (int n = 0; n < N; n++) {
          double s = 0;
          for (int k = 0; k < K; k++) s += x[((size_t)b * T + m) * K + k] * w[(size_t)k * N + n];
          ref[(size_t)(m - lo) * N + n] = s;
        }
      check(what, BF16, (const char *)Y + ((size_t)b * T + lo) * N * 2, ref, (size_t)(hi - lo) * N, 0, 0);
      for (int m = 0; m < T; m++)
        for (int n = 0; n < N && (m < lo || m >= hi); n++) written += !isnan(buf_get(BF16, Y, ((size_t)b * T + m) * N + n));
    }
    if (written) printf("%s: %zu elements written outside the rows\n", what, written), failures++;
    dump(Y, (size_t)B * T * N * 2);
    printf("%s %s\n", failures > bad ? "FAIL" : "PASS", what);
  }
  free(X), free(W), free(Y), free(lh), free(x), free(w), free(ref);
}

int main(void) {
  run(3, 300, 72, 136, 37, 261);   /* rows 37-260: tiles from row 37, the last one's second warpgroup clipped */
  run(2, 256, 64, 128, 0, 256);    /* whole tiles: every warpgroup by the copy engine */
  run(2, 200, 40, 72, 150, 151);   /* one row */
  return 0;
}
