/* types.c: drives docs/examples/types.lua (c target): i64 and u32
** arithmetic, bit operations and shifts checked bit for bit, the math
** functions against double, and :cast("bf16") rounding a bf16 sum. */
#include "common.h"
#include "types.h"

/* Counts the elements of got[0..n) that differ from want, reporting the first. */
static void same_bits(const char *what, const void *got, const void *want, size_t n, size_t size) {
  size_t bad = 0;
  for (size_t i = 0; i < n; i++)
    if (memcmp((const char *)got + i * size, (const char *)want + i * size, size) && bad++ < 3)
      printf("%s: element %zu differs\n", what, i);
  if (bad) {
    printf("%s: %zu of %zu elements wrong\n", what, bad, n);
    failures++;
  }
}

static void run(int N, int64_t first, uint32_t mask) {
  int64_t *L = malloc(8 * (size_t)N), *I = malloc(24 * (size_t)N), *ri = malloc(24 * (size_t)N);
  uint32_t *W = malloc(4 * (size_t)N), *H = malloc(16 * (size_t)N), *rh = malloc(16 * (size_t)N);
  uint16_t *X = malloc(2 * (size_t)N);
  float *F = malloc(24 * (size_t)N);
  double *rf = malloc(sizeof *rf * 6 * N);
  for (int i = 0; i < N; i++) {
    int64_t l = (int64_t)((urand() * 2 - 1) * 1099511627776.0);   /* |l| < 2^40 */
    if (i % 5 == 0) l = irand(-3, 3);
    uint32_t w = (uint32_t)(urand() * 4294967296.0);
    uint16_t xb = bf16_from_float((float)rnd(-4, 4));
    L[i] = l, W[i] = w, X[i] = xb;
    ri[i] = l * N + first;
    ri[N + i] = l < 0 ? -100 : l / 3;
    ri[2 * N + i] = ((int64_t)((uint64_t)l << 20) >> 4) | 7;
    rh[i] = (w ^ 0x9E3779B9u) * 2654435761u;
    rh[N + i] = ((w << 13) | (w >> 19)) & mask;
    rh[2 * N + i] = ~w >> (w & 31);
    rh[3 * N + i] = (uint32_t)l;
    float x = (float)w / 4294967296.0f;
    rf[i] = sin(x * 6.0) + cos(x);
    rf[N + i] = 1 / (1 + exp(-(x * 8.0 - 4)));
    rf[2 * N + i] = pow(x, 1.5) + pow(x, 3);
    rf[3 * N + i] = fabsf(floorf(x * 10.0f - 5.0f));
    rf[4 * N + i] = (float)l;
    float s = (float)bf16_to_double(xb) + 1.0f;
    rf[5 * N + i] = (double)(float)bf16_to_double(bf16_from_float(s)) - s;
  }
  memset(I, 0xa5, 24 * (size_t)N);
  memset(H, 0xa5, 16 * (size_t)N);
  buf_poison(F32, F, (size_t)6 * N);
  char what[64];
  snprintf(what, sizeof what, "types N=%d", N);
  if (!expect_ok(what, types(L, W, X, I, H, F, N, first, mask, NULL))) {
    same_bits(what, I, ri, (size_t)3 * N, 8);
    same_bits(what, H, rh, (size_t)4 * N, 4);
    check(what, F32, F, rf, (size_t)6 * N, 1e-5, 1e-6);
    dump(I, 24 * (size_t)N);
    dump(H, 16 * (size_t)N);
  }
  free(L); free(I); free(ri); free(W); free(H); free(rh); free(X); free(F); free(rf);
}

int main(void) {
  run(1, 5, 0xffffffffu);
  run(127, -(1LL << 45), 0x00ff00ffu);
  run(1500, 3000000000LL, 0xfffff000u);
  return finish("types");
}
