/*
** attention_example.c: calls the generated FlashAttention-2 forward
** launcher attention_bf16_d128 the way an existing project would.  The
** project keeps Q, K, V of a decoder layer as bf16 [B, S, H, D] (the heads
** of one token side by side), uses grouped-query attention (4 query heads
** share 2 kv heads) and a causal mask, and its sequence length (100) is not
** a multiple of any tile.  The launcher takes that layout through strides.
**
** The same file builds against out/sm80 with nvcc (device.h over CUDA) and
** against out/c with cc (device.h over host memory): see the Makefile.  It
** checks O and LSE against a float64 reference computed here and exits 1
** if they differ (or if a call fails), 0 if they agree.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention_bf16_d128.h"
#include "device.h"

enum { B = 2, S = 100, HQ = 4, HKV = 2, D = 128 };

/* float -> bf16 bits, rounded to nearest even. */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/* bf16 bits -> float (exact). */
static float from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Uniform in [-1, 1), never 0, from a xorshift state. */
static float frand(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  float x = (float)((double)(*s >> 11) / 4503599627370496.0 - 1.0);
  return x == 0 ? 0.5f : x;
}

/* Element [b, s, h, d] of a [B, S, H, D] tensor with H heads. */
static size_t at(int b, int s, int h, int d, int H) { return (((size_t)b * S + s) * H + h) * D + d; }

int main(void) {
  size_t nq = (size_t)B * S * HQ * D, nkv = (size_t)B * S * HKV * D, nl = (size_t)B * HQ * S;
  uint16_t *q = malloc(nq * 2), *k = malloc(nkv * 2), *v = malloc(nkv * 2), *o = malloc(nq * 2);
  float *lse = malloc(nl * 4);
  uint64_t seed = 0x2545f4914f6cdd1dull;
  for (size_t i = 0; i < nq; i++) q[i] = to_bf16(frand(&seed));
  for (size_t i = 0; i < nkv; i++) k[i] = to_bf16(frand(&seed)), v[i] = to_bf16(frand(&seed));

  void *dq = dev_alloc(nq * 2), *dk = dev_alloc(nkv * 2), *dv = dev_alloc(nkv * 2), *dout = dev_alloc(nq * 2);
  void *dlse = dev_alloc(nl * 4);
  if (!dq || !dk || !dv || !dout || !dlse || dev_upload(dq, q, nq * 2) || dev_upload(dk, k, nkv * 2) ||
      dev_upload(dv, v, nkv * 2) || dev_fill(dout, 0xff, nq * 2) || dev_fill(dlse, 0xff, nl * 4)) {
    fprintf(stderr, "attention_example: %s memory failed\n", dev_name());
    return 1;
  }

  /* strides in elements of [B, S, H, D] memory, in the launcher's (b, h, s) order */
  float scale = 1.0f / sqrtf((float)D);
  int64_t sqb = (int64_t)S * HQ * D, sqh = D, sqs = HQ * D;     /* Q and O */
  int64_t skb = (int64_t)S * HKV * D, skh = D, sks = HKV * D;   /* K and V */
  int rc = attention_bf16_d128(dq, dk, dv, dout, dlse, B, HQ, S, HKV, S, sqb, sqh, sqs, skb, skh, sks, skb, skh, sks,
                               sqb, sqh, sqs, scale, -1, 0, NULL);   /* causal: window (-1, 0); default stream */
  if (rc == 0) rc = dev_sync();
  if (rc != 0) {
    fprintf(stderr, "attention_bf16_d128 on %s: %s (%d)\n", dev_name(), dev_error(rc), rc);
    return 1;
  }
  if (dev_download(o, dout, nq * 2) || dev_download(lse, dlse, nl * 4)) {
    fprintf(stderr, "attention_example: copying the result back failed\n");
    return 1;
  }

  /* float64 reference: softmax over keys j <= i of scale * q.k, then P V */
  double err2 = 0, ref2 = 0, lse_err = 0, s[S];
  for (int b = 0; b < B; b++)
    for (int h = 0; h < HQ; h++)
      for (int i = 0; i < S; i++) {
        int kh = h / (HQ / HKV);
        double m = -INFINITY, l = 0;
        for (int j = 0; j <= i; j++) {
          double x = 0;
          for (int d = 0; d < D; d++) x += (double)from_bf16(q[at(b, i, h, d, HQ)]) * from_bf16(k[at(b, j, kh, d, HKV)]);
          s[j] = x * scale;
          m = fmax(m, s[j]);
        }
        for (int j = 0; j <= i; j++) l += exp(s[j] - m);
        for (int d = 0; d < D; d++) {
          double r = 0;
          for (int j = 0; j <= i; j++) r += exp(s[j] - m) / l * from_bf16(v[at(b, j, kh, d, HKV)]);
          double got = from_bf16(o[at(b, i, h, d, HQ)]);
          err2 += (got - r) * (got - r), ref2 += r * r;
        }
        double got = lse[((size_t)b * HQ + h) * S + i];
        lse_err = isnan(got) ? INFINITY : fmax(lse_err, fabs(got - (m + log(l))));
      }
  double rel = isnan(err2) ? INFINITY : sqrt(err2 / ref2);
  int ok = rel < 1e-2 && lse_err < 1e-3;   /* bf16 inputs and output, f32 inside */
  printf("attention_bf16_d128 on %s: B=%d S=%d Hq=%d Hkv=%d D=%d causal, [B, S, H, D]: "
         "O relative error %.1e, LSE error %.1e: %s\n", dev_name(), B, S, HQ, HKV, D, rel, lse_err, ok ? "ok" : "WRONG");
  dev_free(dq), dev_free(dk), dev_free(dv), dev_free(dout), dev_free(dlse);
  free(q), free(k), free(v), free(o), free(lse);
  return ok ? 0 : 1;
}
