/* random_bits.c: drives docs/examples/random_bits.lua (c target).  The words are checked
** bit for bit against a Philox4x32-10 of this file (itself checked against
** the three published answers of the Random123 distribution's kat_vectors),
** the floats against the documented mapping, and the floats' mean and
** histogram against uniform [0, 1). */
#include "common.h"
#include "random_bits.h"

/* Philox4x32-10 on counter x under key k, in place. */
static void philox(uint32_t x[4], const uint32_t key[2]) {
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; r++) {
    uint64_t a = (uint64_t)x[0] * 0xD2511F53u, b = (uint64_t)x[2] * 0xCD9E8D57u;
    uint32_t y[4] = {(uint32_t)(b >> 32) ^ x[1] ^ k0, (uint32_t)b, (uint32_t)(a >> 32) ^ x[3] ^ k1, (uint32_t)a};
    memcpy(x, y, sizeof y);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

/* The Random123 known answers of philox4x32 with 10 rounds. */
static void kat(void) {
  static const uint32_t v[3][10] = {
    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
     0x24126ea1},
  };
  for (int i = 0; i < 3; i++) {
    uint32_t x[4];
    memcpy(x, v[i], sizeof x);
    philox(x, v[i] + 4);
    if (memcmp(x, v[i] + 6, sizeof x)) {
      printf("rand: the reference Philox misses known answer %d\n", i);
      failures++;
    }
  }
}

static void run(int N, int64_t seed, int64_t first) {
  float *U = malloc(4 * (size_t)N);
  uint32_t *B = malloc(4 * (size_t)N);
  buf_poison(F32, U, (size_t)N);
  memset(B, 0xa5, 4 * (size_t)N);
  char what[96];
  snprintf(what, sizeof what, "random_bits N=%d seed=%lld first=%lld", N, (long long)seed, (long long)first);
  if (expect_ok(what, random_bits(U, B, N, seed, first, NULL))) goto out;
  uint32_t key[2] = {(uint32_t)seed, (uint32_t)((uint64_t)seed >> 32)};
  size_t bad = 0, hist[16] = {0};
  double sum = 0;
  for (int i = 0; i < N; i++) {
    uint64_t at = (uint64_t)(first + i);
    uint32_t x[4] = {(uint32_t)(at >> 2), (uint32_t)(at >> 34), 0, 0};
    philox(x, key);
    uint32_t w = x[at & 3];
    float u = (float)(w >> 8) / 16777216.0f;
    if ((B[i] != w || U[i] != u || !(U[i] >= 0 && U[i] < 1)) && bad++ < 3)
      printf("%s: element %d is %08x %.9g, want %08x %.9g\n", what, i, B[i], U[i], w, u);
    sum += U[i];
    hist[(int)(U[i] * 16) & 15]++;
  }
  if (bad) printf("%s: %zu of %d elements wrong\n", what, bad, N), failures++;
  if (N >= 100000) {   /* mean within 5 sigma of 1/2; chi-square of 16 bins below 45 (p < 1e-4, 15 dof) */
    double mean = sum / N, chi = 0, e = N / 16.0;
    for (int b = 0; b < 16; b++) chi += (hist[b] - e) * (hist[b] - e) / e;
    if (fabs(mean - 0.5) > 5 * sqrt(1.0 / 12 / N) || chi > 45)
      printf("%s: mean %.6f, chi-square %.1f: not uniform\n", what, mean, chi), failures++;
  }
  dump(U, 4 * (size_t)N);
  dump(B, 4 * (size_t)N);
out:
  free(U);
  free(B);
}

int main(void) {
  kat();
  run(4, 0, 0);   /* offsets 0..3: the words of the all-zero known answer */
  run(1, 7, 5);
  run(1000, -1, (1LL << 34) - 500);   /* counters crossing 2^32: the counter's second word */
  run(200003, 0x123456789abcLL, 3);
  return finish("random_bits");
}
