/* grouped.c: dsl/kernels/grouped_matmul.lua's four variants (f16 / bf16,
** W as [G, K, N] or [G, N, K]) against a float64 reference: ragged group
** sizes that are not multiples of the row tile, empty groups (first, last,
** several in a row), one group holding every row, more groups than row
** tiles; Y poisoned first, so a row no group owns or a missed row shows.
** Two kinds of input: random floats (checked within the dtype's rounding),
** and small integers whose products and sums are exact in f32 and in the
** stored dtype, so every target's Y must be the same bytes (those runs go
** to $LT_DUMP).  Rows outside [offs[0], offs[G]) must keep their poison.  Built against out/c by tests/cpu/run.sh and against each
** GPU target's emulated code by tests/emu/drivers.sh.  Prints PASS/FAIL. */
#include "../docs/drivers/common.h"
#include "grouped_matmul_bf16_kn.h"
#include "grouped_matmul_bf16_nk.h"
#include "grouped_matmul_f16_kn.h"
#include "grouped_matmul_f16_nk.h"

typedef int (*Fn)(const void *, const void *, const void *, void *, int, int, int, int, int, void *);

/* One call: G groups of the sizes in rows[], after `pre` rows no group
** owns and before `post` more (Y's rows there must keep their poison). */
static void run(Dt dt, Fn fn, int nk, const int *rows, int G, int K, int N, int exact, int pre, int post) {
  int T = pre;
  int32_t *offs = buf_new(I32, (size_t)G + 1);
  offs[0] = pre;
  for (int g = 0; g < G; g++) offs[g + 1] = T += rows[g];
  T += post;
  double *x, *w;
  void *X, *W;
  if (exact) {   /* X in {-1, 0, 1}, W in {-2, ..., 2}: |sums| <= 2 K <= 256, whole numbers */
    X = buf_new(dt, (size_t)T * K), W = buf_new(dt, (size_t)G * K * N);
    x = malloc(sizeof *x * (size_t)T * K), w = malloc(sizeof *w * (size_t)G * K * N);
    for (size_t i = 0; i < (size_t)T * K; i++) x[i] = buf_set(dt, X, i, irand(-1, 1));
    for (size_t i = 0; i < (size_t)G * K * N; i++) w[i] = buf_set(dt, W, i, irand(-2, 2));
  } else {
    X = buf_random(dt, (size_t)T * K, -1, 1, &x), W = buf_random(dt, (size_t)G * K * N, -1, 1, &w);
  }
  void *Y = buf_new(dt, (size_t)T * N);
  buf_poison(dt, Y, (size_t)T * N);
  double *ref = malloc(sizeof *ref * (size_t)T * N);
  for (size_t i = 0; i < (size_t)T * N; i++) ref[i] = 0;
  for (int g = 0; g < G; g++)
    for (int m = offs[g]; m < offs[g + 1]; m++)
      for (int n = 0; n < N; n++) {
        double s = 0;
        for (int k = 0; k < K; k++)
          s += x[(size_t)m * K + k] * w[nk ? ((size_t)g * N + n) * K + k : ((size_t)g * K + k) * N + n];
        ref[(size_t)m * N + n] = s;
      }
  char what[160];
  int n = snprintf(what, sizeof what, "cpu grouped_matmul_%s_%s T=%d K=%d N=%d G=%d%s rows %d +", dt_name[dt],
                   nk ? "nk" : "kn", T, K, N, G, exact ? " exact" : "", pre);
  for (int g = 0; g < G && g < 6 && n < (int)sizeof what - 8; g++) n += snprintf(what + n, sizeof what - n, " %d", rows[g]);
  if (G > 6) snprintf(what + n, sizeof what - n, " ...");
  int bad = failures;
  if (!expect_ok(what, fn(X, W, offs, Y, T, K, G, N, G + 1, NULL))) {
    /* sums of K products of values below 1: the dtype's rounding of Y plus f32 accumulation */
    size_t at = (size_t)pre * N, in = (size_t)(T - pre - post) * N, written = 0;
    check(what, dt, (const char *)Y + at * dt_size[dt], ref + at, in, exact ? 0 : dt_rtol(dt) * 2,
          exact ? 0 : dt_rtol(dt) * 2 * sqrt(K));
    for (size_t i = 0; i < (size_t)T * N; i++) written += (i < at || i >= at + in) && !isnan(buf_get(dt, Y, i));
    if (written) printf("%s: %zu elements written outside the groups' rows\n", what, written), failures++;
    if (exact) dump(Y, (size_t)T * N * dt_size[dt]);
    printf("%s %s\n", failures > bad ? "FAIL" : "PASS", what);
  }
  free(offs), free(X), free(W), free(Y), free(x), free(w), free(ref);
}

int main(void) {
  static const struct { Dt dt; int nk; Fn fn; } v[] = {
    {F16, 0, grouped_matmul_f16_kn}, {F16, 1, grouped_matmul_f16_nk},
    {BF16, 0, grouped_matmul_bf16_kn}, {BF16, 1, grouped_matmul_bf16_nk},
  };
  static const int ragged[] = {0, 131, 5, 0, 0, 260, 1, 37};   /* empty groups first, in a row and between */
  static const int last_empty[] = {200, 0};
  static const int one[] = {300};
  static const int many[] = {3, 0, 1, 2, 0, 0, 7, 1, 1, 4, 0, 2, 9, 0, 1, 3, 0};   /* more groups than row tiles */
  for (int i = 0; i < 4; i++) {
    run(v[i].dt, v[i].fn, v[i].nk, ragged, 8, 72, 300, 0, 0, 0);
    run(v[i].dt, v[i].fn, v[i].nk, ragged, 8, 40, 136, 1, 0, 45);   /* a buffer padded past the last group */
    run(v[i].dt, v[i].fn, v[i].nk, last_empty, 2, 40, 72, 1, 0, 0);
    run(v[i].dt, v[i].fn, v[i].nk, one, 1, 128, 264, 1, 9, 3);
    run(v[i].dt, v[i].fn, v[i].nk, many, 17, 37, 40, 1, 130, 0);   /* rows before the first group, a tile and more; rows of X of 74 bytes (sm90a: no tensor map) */
  }
  /* bad arguments: the launcher refuses them */
  char z[64] = {0};
  expect_reject("cpu grouped_matmul offs of G entries", grouped_matmul_bf16_kn(z, z, z, z, 4, 4, 2, 4, 2, NULL));
  expect_reject("cpu grouped_matmul G past max_groups", grouped_matmul_bf16_kn(z, z, z, z, 4, 4, 1025, 4, 1026, NULL));
  printf("%s cpu grouped_matmul launcher checks\n", failures ? "FAIL" : "PASS");
  return 0;
}
