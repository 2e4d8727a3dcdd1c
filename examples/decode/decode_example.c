/*
** decode_example.c: a serving loop over a paged KV cache with luatile's
** generated launchers, the way an inference engine would call them.
**
** Three sequences with prompts of different lengths share one pool of
** cache pages (16 keys a page, handed out in shuffled order as sequences
** grow; a block table maps each sequence's page i to a pool page).  Prefill
** runs the forward launcher attention_bf16_d64 (causal) on each prompt and
** writes the prompt's K and V into the sequence's pages; then each decode
** step appends one new token a sequence to the cache and runs
** attention_decode_bf16_d64_paged (the keys split across programs, partials
** in a workspace) and attention_decode_bf16_d64_combine (merged by LSE).
** There is no model: the tokens' q, k and v are random bf16.  Every output
** of prefill and decode is checked against a float64 reference computed
** here from the same bf16 values.  device.h (../attention) supplies memory:
** the host for the c target, the GPU with CUDA.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention_bf16_d64.h"
#include "attention_decode_bf16_d64_paged.h"
#include "attention_decode_bf16_d64_combine.h"
#include "device.h"

enum { B = 3, HQ = 8, HKV = 2, D = 64, PS = 16, NP = 48, MP = 16, STEPS = 20 };
static const int prompt_len[B] = { 37, 5, 70 };

/* float -> bf16 bits, rounded to nearest even. */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

/* bf16 bits -> float (exact). */
static float from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* a uniform value in [-1, 1) from a 64-bit LCG. */
static float frand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((*s >> 40) * (1.0 / 8388608.0)) - 1.0f;
}

/* The host's copy of every token's k and v, [B][MP * PS][HKV][D], for
** the reference; the cache on the device holds the same values in pages. */
static uint16_t hk[B][MP * PS][HKV][D], hv[B][MP * PS][HKV][D];

/* reference: one query row q [D] of query head h in sequence b against
** keys 0 .. n - 1; writes o [D] and returns the LSE (natural log). */
static double reference(int b, int h, const uint16_t *q, int n, double scale, double *o) {
  int kh = h / (HQ / HKV);
  double *s = malloc((size_t)n * sizeof *s), m = -INFINITY, l = 0;
  for (int j = 0; j < n; j++) {
    double x = 0;
    for (int d = 0; d < D; d++) x += (double)from_bf16(q[d]) * from_bf16(hk[b][j][kh][d]);
    s[j] = x * scale;
    if (s[j] > m) m = s[j];
  }
  for (int j = 0; j < n; j++) l += exp(s[j] - m);
  for (int d = 0; d < D; d++) {
    double r = 0;
    for (int j = 0; j < n; j++) r += exp(s[j] - m) / l * from_bf16(hv[b][j][kh][d]);
    o[d] = r;
  }
  free(s);
  return m + log(l);
}

/* The cache: pages [NP][PS][HKV][D] of K and V on the device, handed out
** from the pool in shuffled order as sequences grow; the block table bt
** maps page i of sequence b to a pool page (-1 where it has none yet). */
#define PAGE ((size_t)PS * HKV * D)   /* elements of one page */
static void *dK, *dV;
static int32_t bt[B][MP];
static int free_pages[NP], next_free;

/* appends token t of sequence b (its k and v already in hk, hv) to the
** cache, taking a new page from the pool at a page's first row. */
static int append(int b, int t) {
  if (t % PS == 0) bt[b][t / PS] = free_pages[next_free++];
  size_t at = (size_t)bt[b][t / PS] * PAGE + (size_t)(t % PS) * HKV * D;
  if (dev_upload((uint16_t *)dK + at, hk[b][t], HKV * D * 2) || dev_upload((uint16_t *)dV + at, hv[b][t], HKV * D * 2)) {
    fprintf(stderr, "decode_example: writing the cache failed\n");
    return 1;
  }
  return 0;
}

/* the largest errors seen: |O - ref| / max |ref| and |LSE - ref| */
static double o_err, o_max, lse_err;

/* compares one output row o (bf16 [D]) and its lse with the reference. */
static void check_row(int b, int h, const uint16_t *q, int n, double scale, const uint16_t *o, float lse) {
  double ref[D];
  double rl = reference(b, h, q, n, scale, ref);
  for (int d = 0; d < D; d++) {
    double e = fabs(from_bf16(o[d]) - ref[d]);
    if (!(e <= o_err)) o_err = e;   /* NaN sticks */
    if (fabs(ref[d]) > o_max) o_max = fabs(ref[d]);
  }
  double e = fabs(lse - rl);
  if (!(e <= lse_err)) lse_err = e;
}

int main(void) {
  uint64_t seed = 42;
  float scale = 1.0f / sqrtf((float)D);
  dK = dev_alloc((size_t)NP * PAGE * 2), dV = dev_alloc((size_t)NP * PAGE * 2);
  void *dBT = dev_alloc(sizeof(int32_t) * B * MP), *dL = dev_alloc(sizeof(int32_t) * B);
  int64_t rows = attention_decode_bf16_d64_paged_workspace_rows(B, 1, HQ, HKV);
  void *dWs = dev_alloc((size_t)B * HKV * (size_t)rows * (D + 4) * 4);
  void *dQ = dev_alloc((size_t)MP * PS * HQ * D * 2), *dO = dev_alloc((size_t)MP * PS * HQ * D * 2);
  void *dLSE = dev_alloc((size_t)MP * PS * HQ * 4);
  void *dKp = dev_alloc((size_t)MP * PS * HKV * D * 2), *dVp = dev_alloc((size_t)MP * PS * HKV * D * 2);
  if (!dK || !dV || !dBT || !dL || !dWs || !dQ || !dO || !dLSE || !dKp || !dVp) {
    fprintf(stderr, "decode_example: %s memory failed\n", dev_name());
    return 1;
  }
  /* the pool's pages in shuffled order, handed out as sequences grow; -1 in
  ** the block table where a sequence has no page yet */
  int len[B];
  for (int i = 0; i < NP; i++) free_pages[i] = i;
  for (int i = NP - 1; i > 0; i--) {
    int j = (int)((frand(&seed) + 1.0f) * 0.5f * (float)(i + 1)), t;
    if (j > i) j = i;
    t = free_pages[i];
    free_pages[i] = free_pages[j], free_pages[j] = t;
  }
  for (int b = 0; b < B; b++)
    for (int i = 0; i < MP; i++) bt[b][i] = -1;

  /* prefill: each prompt through the forward launcher, [S, H, D] memory */
  static uint16_t q[MP * PS][HQ][D], o[MP * PS][HQ][D];
  static float lse[MP * PS * HQ];
  int prefill_rows = 0;
  for (int b = 0; b < B; b++) {
    int S = prompt_len[b];
    for (int t = 0; t < S; t++) {
      for (int h = 0; h < HQ; h++)
        for (int d = 0; d < D; d++) q[t][h][d] = to_bf16(frand(&seed));
      for (int h = 0; h < HKV; h++)
        for (int d = 0; d < D; d++) hk[b][t][h][d] = to_bf16(frand(&seed)), hv[b][t][h][d] = to_bf16(frand(&seed));
    }
    if (dev_upload(dQ, q, (size_t)S * HQ * D * 2) || dev_upload(dKp, hk[b], (size_t)S * HKV * D * 2) ||
        dev_upload(dVp, hv[b], (size_t)S * HKV * D * 2) || dev_fill(dO, 0xff, (size_t)S * HQ * D * 2)) {
      fprintf(stderr, "decode_example: %s memory failed\n", dev_name());
      return 1;
    }
    int64_t sqb = (int64_t)S * HQ * D, skb = (int64_t)S * HKV * D;
    int rc = attention_bf16_d64(dQ, dKp, dVp, dO, dLSE, 1, HQ, S, HKV, S, sqb, D, HQ * D, skb, D, HKV * D,
                                skb, D, HKV * D, sqb, D, HQ * D, scale, -1, 0, NULL);   /* causal */
    if (rc == 0) rc = dev_sync();
    if (rc != 0 || dev_download(o, dO, (size_t)S * HQ * D * 2) || dev_download(lse, dLSE, (size_t)S * HQ * 4)) {
      fprintf(stderr, "decode_example: prefill of sequence %d on %s: %s (%d)\n", b, dev_name(), dev_error(rc), rc);
      return 1;
    }
    /* the forward's LSE is [1, HQ, S]: row (h, t) at h * S + t */
    for (int t = 0; t < S; t++)
      for (int h = 0; h < HQ; h++) check_row(b, h, q[t][h], t + 1, scale, o[t][h], lse[h * S + t]);
    prefill_rows += S * HQ;
    for (int t = 0; t < S; t++)
      if (append(b, t)) return 1;
    len[b] = S;
  }

  /* decode: one new token a sequence each step, Q [B, 1, HQ, D] */
  int64_t sqb = (int64_t)HQ * D;
  for (int step = 0; step < STEPS; step++) {
    int32_t L[B];
    for (int b = 0; b < B; b++) {
      int t = len[b];
      for (int h = 0; h < HQ; h++)
        for (int d = 0; d < D; d++) q[b][h][d] = to_bf16(frand(&seed));
      for (int h = 0; h < HKV; h++)
        for (int d = 0; d < D; d++) hk[b][t][h][d] = to_bf16(frand(&seed)), hv[b][t][h][d] = to_bf16(frand(&seed));
      if (append(b, t)) return 1;
      L[b] = len[b] = t + 1;
    }
    if (dev_upload(dQ, q, (size_t)B * HQ * D * 2) || dev_upload(dBT, bt, sizeof bt) || dev_upload(dL, L, sizeof L) ||
        dev_fill(dO, 0xff, (size_t)B * HQ * D * 2) || dev_fill(dLSE, 0xff, (size_t)B * HQ * 4)) {
      fprintf(stderr, "decode_example: %s memory failed\n", dev_name());
      return 1;
    }
    /* K and V [NP, PS, HKV, D] memory, strides in the launcher's (page, head, row) order */
    int rc = attention_decode_bf16_d64_paged(dQ, dK, dV, dBT, dL, dWs, B, 1, HQ, NP, HKV, PS, MP, (int)rows,
                                             sqb, HQ * D, D, (int64_t)PAGE, D, HKV * D, (int64_t)PAGE, D, HKV * D,
                                             scale, NULL);
    if (rc == 0) rc = attention_decode_bf16_d64_combine(dO, dLSE, dWs, B, 1, HQ, HKV, (int)rows, sqb, HQ * D, D, NULL);
    if (rc == 0) rc = dev_sync();
    if (rc != 0 || dev_download(o, dO, (size_t)B * HQ * D * 2) || dev_download(lse, dLSE, (size_t)B * HQ * 4)) {
      fprintf(stderr, "decode_example: decode step %d on %s: %s (%d)\n", step, dev_name(), dev_error(rc), rc);
      return 1;
    }
    /* the combine's LSE is [B, HQ, 1] */
    for (int b = 0; b < B; b++)
      for (int h = 0; h < HQ; h++) check_row(b, h, q[b][h], len[b], scale, o[b][h], lse[b * HQ + h]);
  }

  double rel = o_err / o_max;
  int ok = rel < 1e-2 && lse_err < 1e-3;   /* bf16 inputs and outputs, f32 inside */
  printf("decode_example on %s: %d sequences (prompts %d, %d, %d; %d pages of %d), Hq=%d Hkv=%d D=%d: "
         "prefill %d rows, %d decode steps to lengths %d, %d, %d; max |O - ref| / max |ref| = %.2e, "
         "max |LSE - ref| = %.2e: %s\n",
         dev_name(), B, prompt_len[0], prompt_len[1], prompt_len[2], next_free, PS, HQ, HKV, D, prefill_rows, STEPS,
         len[0], len[1], len[2], rel, lse_err, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
