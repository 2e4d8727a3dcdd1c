/* dropout.c: dsl/kernels/bias_dropout_add.lua's three variants, Y = R +
** dropout(X + B, p), against a float64 reference whose mask is made by a
** Philox4x32-10 of this file (tests/cpu/philox.c checks the kernels' one
** against the published answers): the mask read back from Y must be the
** reference's, element for element; the fraction kept within 5 sigma of
** the binomial's 1 - p; each kept element scaled by 1 / (1 - p).  Ragged
** sizes, outputs poisoned.  Built against out/c by tests/cpu/run.sh, and
** against each GPU target's emulated code by tests/emu/drivers.sh.
** Prints PASS/FAIL lines. */
#include "../docs/drivers/common.h"
#include "bias_dropout_add_bf16.h"
#include "bias_dropout_add_f16.h"
#include "bias_dropout_add_f32.h"

typedef int (*Fn)(const void *, const void *, const void *, void *, int, int, float, int64_t, int64_t, void *);

/* Word w of Philox4x32-10 on counter (c0, c1, 0, 0) under key (k0, k1). */
static uint32_t philox(uint32_t c0, uint32_t c1, uint32_t k0, uint32_t k1, int w) {
  uint32_t x[4] = {c0, c1, 0, 0};
  for (int r = 0; r < 10; r++) {
    uint64_t a = (uint64_t)x[0] * 0xD2511F53u, b = (uint64_t)x[2] * 0xCD9E8D57u;
    uint32_t y[4] = {(uint32_t)(b >> 32) ^ x[1] ^ k0, (uint32_t)b, (uint32_t)(a >> 32) ^ x[3] ^ k1, (uint32_t)a};
    memcpy(x, y, sizeof y);
    k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
  }
  return x[w];
}

static void run(Dt dt, Fn fn, int M, int N, float p, int64_t seed, int64_t offset) {
  size_t n = (size_t)M * N;
  double *x, *b, *r;
  void *X = buf_random(dt, n, 1, 2, &x), *B = buf_random(dt, (size_t)N, 0.5, 1, &b), *R = buf_random(dt, n, -1, 1, &r);
  void *Y = buf_new(dt, n);
  buf_poison(dt, Y, n);
  char what[128];
  snprintf(what, sizeof what, "cpu bias_dropout_add_%s %dx%d p=%g seed=%lld offset=%lld", dt_name[dt], M, N, p,
           (long long)seed, (long long)offset);
  int bad = failures;
  if (expect_ok(what, fn(X, B, R, Y, M, N, p, seed, offset, NULL))) goto out;
  size_t kept = 0, wrong_mask = 0, wrong_value = 0;
  double scale = 1.0 / (1.0f - p), tol = dt_rtol(dt) * 4;
  for (size_t i = 0; i < n; i++) {
    uint64_t at = 4 * ((uint64_t)offset + i / N * (uint64_t)((N + 3) / 4)) + i % N;   /* block, word n % 4 */
    uint32_t w = philox((uint32_t)(at >> 2), (uint32_t)(at >> 34), (uint32_t)seed, (uint32_t)((uint64_t)seed >> 32), (int)(at & 3));
    int keep = (float)(w >> 8) / 16777216.0f < 1.0f - p;
    double h = x[i] + b[i % N], y = buf_get(dt, Y, i), d = y - r[i];
    int got = d > 0.5 * h;   /* h >= 1.5: a kept element adds h / (1 - p) >= 1.5, a dropped one 0 */
    kept += got;
    if (got != keep && wrong_mask++ < 3) printf("%s: element %zu %s, the reference %s\n", what, i, got ? "kept" : "dropped", keep ? "keeps it" : "drops it");
    double want = r[i] + (keep ? h * scale : 0);
    if (!(fabs(y - want) <= tol * (fabs(want) + 1)) && wrong_value++ < 3) printf("%s: element %zu is %.6g, want %.6g\n", what, i, y, want);
  }
  double q = 1.0 - p, frac = (double)kept / n, sigma = sqrt(q * (1 - q) / n);
  if (wrong_mask || wrong_value) printf("%s: %zu masks, %zu values wrong\n", what, wrong_mask, wrong_value), failures++;
  else if (fabs(frac - q) > 5 * sigma + 1e-12) printf("%s: kept %.5f, want %.5f +- %.5f\n", what, frac, q, 5 * sigma), failures++;
  dump(Y, n * dt_size[dt]);
  printf("%s %s: kept %.4f of %zu (1 - p = %.4f)\n", failures > bad ? "FAIL" : "PASS", what, frac, n, q);
out:
  free(X), free(B), free(R), free(Y), free(x), free(b), free(r);
}

int main(void) {
  static const struct { Dt dt; Fn fn; } v[] = {{F32, bias_dropout_add_f32}, {F16, bias_dropout_add_f16}, {BF16, bias_dropout_add_bf16}};
  for (int i = 0; i < 3; i++) {
    run(v[i].dt, v[i].fn, 37, 1000, 0.1f, 1234, 0);   /* N a multiple of 8, partial tiles both ways: sm90a's ragged */
    run(v[i].dt, v[i].fn, 5, 3001, 0.5f, -7, (1LL << 33) + 3);   /* counters past 2^32, an offset not a multiple of 4 */
    run(v[i].dt, v[i].fn, 64, 1031, 0.9f, 0x5eed5eed5eedLL, 12);
    run(v[i].dt, v[i].fn, 3, 7, 0.0f, 1, 1);   /* p = 0: every element kept, times 1 */
    run(v[i].dt, v[i].fn, 5, 2048, 0.3f, 99, 5);   /* N a multiple of 2048 and of 1024: sm90a's wide */
    run(v[i].dt, v[i].fn, 3, 3072, 0.7f, 42, 0);   /* ... of 1024 alone: sm90a's rows build */
    run(v[i].dt, v[i].fn, 9, 4100, 0.2f, 11, 5);   /* 16 bits: rows 8-byte aligned, off the 16-byte grid: sm90a's offgrid */
  }
  /* bad arguments: the launcher refuses them */
  char z[8] = {0};
  expect_reject("cpu bias_dropout_add_f32 M=0", bias_dropout_add_f32(z, z, z, z, 0, 1, 0.5f, 1, 0, NULL));
  expect_reject("cpu bias_dropout_add_f32 offset=-1", bias_dropout_add_f32(z, z, z, z, 1, 1, 0.5f, 1, -1, NULL));
  expect_reject("cpu bias_dropout_add_f32 offset=2^53+1", bias_dropout_add_f32(z, z, z, z, 1, 1, 0.5f, 1, (1LL << 53) + 1, NULL));
  printf("%s cpu bias_dropout_add launcher checks\n", failures ? "FAIL" : "PASS");
  return 0;
}
