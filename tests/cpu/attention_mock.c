/*
** attention_mock.c: a FlashAttention-2-style implementation of the
** attention launchers' ABI in plain f32 C, used only by the self-test of
** attention.c (it is neither the kernel nor the reference).
**
** It does what the GPU kernels will do numerically: scores and softmax
** statistics in f32, keys in blocks of 32 with the online-softmax rescale,
** P rounded to the dtype before P V, O rounded once, LSE in natural log;
** the backward recomputes P from LSE, rounds P and dS to the dtype before
** the products, and writes dK, dV, dQ rounded once.  So a correct mock
** shows how close a correct kernel comes to the driver's bounds, and
** mock_bug plants one bug (mock_bug_name) that the driver must catch.
** Included once by attention.c, after common.h.
*/
enum {
  M_NONE, M_WIN_EDGE, M_TOPLEFT, M_GQA, M_STRIDE, M_MASKED_LSE, M_MASKED_NAN, M_NO_RESCALE, M_LOG2,
  M_KEY_TAIL, M_LAST_ROWS, M_GAP, M_CAP_FWD, M_DELTA_HALF, M_DK_NOSCALE, M_DQ_NOSCALE, M_DV_ONEHEAD,
  M_CAP_GRAD, M_BWD_TAIL, M_NBUGS
};
static const char *const mock_bug_name[] = {
  "none",
  "window right edge one key too far",
  "top-left instead of bottom-right alignment",
  "query head h reads kv head h % Hkv",
  "V read with K's strides",
  "LSE of a row with no visible key is -inf",
  "O of a row with no visible key is 0/0",
  "no rescale of the accumulator when the running max grows",
  "LSE in log2",
  "keys past the last whole block of 32 ignored",
  "the last Sq % 16 query rows not written",
  "a store into the gap after each row of O",
  "softcap as cap * tanh(S) instead of cap * tanh(S / cap)",
  "Delta summed over the first D / 2 columns",
  "dK without the scale",
  "dQ without the scale",
  "dK, dV from the first query head of each group only",
  "backward without the softcap factor 1 - tanh^2",
  "dK, dV of the last Sk % 16 keys not written",
};
static int mock_bug;

/* x rounded to dtype dt and back (the conversions of common.h). */
static float mock_round(int dt, float x) {
  unsigned char b[4];
  put(b, dt, 0, x);
  return (float)get(b, dt, 0);
}

/* Visibility as the mock sees it, with the alignment bugs. */
static int mock_visible(int i, int j, int Sq, int Sk, int wl, int wr) {
  long long off = mock_bug == M_TOPLEFT ? 0 : (long long)Sk - Sq;   /* 64 bits: a window may be INT_MAX */
  return (wl < 0 || j >= i + off - wl) && (wr < 0 || j <= i + off + wr + (mock_bug == M_WIN_EDGE));
}

/* The kv head of query head h. */
static int mock_kvhead(int h, int Hq, int Hkv) { return mock_bug == M_GQA ? h % Hkv : h / (Hq / Hkv); }

/* f32 score of query row q and key row k, and its tanh when capped. */
static float mock_score(int dt, int D, const void *Q, int64_t qo, const void *K, int64_t ko, float scale,
                        float cap, float *t) {
  float s = 0;
  for (int d = 0; d < D; d++) s += (float)get(Q, dt, (size_t)(qo + d)) * (float)get(K, dt, (size_t)(ko + d));
  s *= scale;
  if (cap > 0) {
    *t = tanhf(mock_bug == M_CAP_FWD ? s : s / cap);
    return cap * *t;
  }
  return s;
}

/* Forward: O and LSE (see the ABI in docs/attention.md). */
static int mock_fwd(int dt, int D, const void *Q, const void *K, const void *V, void *O, void *LSE, int B, int Hq,
                    int Sq, int Hkv, int Sk, int64_t sqb, int64_t sqh, int64_t sqs, int64_t skb, int64_t skh,
                    int64_t sks, int64_t svb, int64_t svh, int64_t svs, int64_t sob, int64_t soh, int64_t sos,
                    float scale, float cap, int wl, int wr) {
  if (!Q || !K || !V || !O || !LSE || B <= 0 || Hq <= 0 || Sq <= 0 || Hkv <= 0 || Sk <= 0 || Hq % Hkv != 0 || !(scale > 0) ||
      wl >= (1 << 30) || wr >= (1 << 30))
    return 1;
  if (sqb < 0 || sqh < 0 || sqs < 0 || skb < 0 || skh < 0 || sks < 0 || svb < 0 || svh < 0 || svs < 0 ||
      sob < 0 || soh < 0 || sos < 0)
    return 1;
  if (mock_bug == M_STRIDE) svb = skb, svh = skh, svs = sks;
  float *lse = LSE;
  for (int b = 0; b < B; b++)
    for (int h = 0; h < Hq; h++) {
      int kh = mock_kvhead(h, Hq, Hkv);
      for (int i = 0; i < Sq; i++) {
        if (mock_bug == M_LAST_ROWS && i >= Sq / 16 * 16) continue;
        float m = -INFINITY, l = 0, acc[256] = {0}, t = 0;
        int kend = mock_bug == M_KEY_TAIL && Sk > 32 ? Sk / 32 * 32 : Sk;
        for (int j0 = 0; j0 < kend; j0 += 32) {
          float s[32], bm = -INFINITY;
          for (int jj = 0; jj < 32; jj++) {
            int j = j0 + jj;
            s[jj] = -INFINITY;
            if (j < kend && mock_visible(i, j, Sq, Sk, wl, wr))
              s[jj] = mock_score(dt, D, Q, b * sqb + h * sqh + i * sqs, K, b * skb + kh * skh + j * sks, scale, cap, &t);
            bm = fmaxf(bm, s[jj]);
          }
          float mn = fmaxf(m, bm);
          if (mn == -INFINITY) continue;
          float corr = expf(m - mn);
          l *= corr;
          if (mock_bug != M_NO_RESCALE)
            for (int d = 0; d < D; d++) acc[d] *= corr;
          for (int jj = 0; jj < 32; jj++) {
            float p = expf(s[jj] - mn), pr = mock_round(dt, p);
            l += p;
            if (p != 0)
              for (int d = 0; d < D; d++)
                acc[d] += pr * (float)get(V, dt, (size_t)(b * svb + kh * svh + (j0 + jj) * svs + d));
          }
          m = mn;
        }
        int64_t oo = b * sob + h * soh + i * sos;
        size_t li = ((size_t)b * Hq + h) * Sq + i;
        if (l == 0) {
          for (int d = 0; d < D; d++) put(O, dt, (size_t)(oo + d), mock_bug == M_MASKED_NAN ? acc[d] / l : 0.0f);
          lse[li] = mock_bug == M_MASKED_LSE ? -INFINITY : INFINITY;
        } else {
          for (int d = 0; d < D; d++) put(O, dt, (size_t)(oo + d), acc[d] / l);
          lse[li] = m + logf(l);
          if (mock_bug == M_LOG2) lse[li] /= logf(2.0f);
        }
        if (mock_bug == M_GAP && sos > D && soh > D) put(O, dt, (size_t)(oo + D), 0.0);
      }
    }
  return 0;
}

/* Backward, first kernel: Delta = rowsum(dO * O) in f32. */
static int mock_pre(int dt, int D, const void *O, const void *dO, void *Delta, int B, int Hq, int Sq, int64_t sob,
                    int64_t soh, int64_t sos, int64_t sdob, int64_t sdoh, int64_t sdos) {
  if (!O || !dO || !Delta || B <= 0 || Hq <= 0 || Sq <= 0) return 1;
  if (sob < 0 || soh < 0 || sos < 0 || sdob < 0 || sdoh < 0 || sdos < 0) return 1;
  float *delta = Delta;
  for (int b = 0; b < B; b++)
    for (int h = 0; h < Hq; h++)
      for (int i = 0; i < Sq; i++) {
        float s = 0;
        for (int d = 0; d < (mock_bug == M_DELTA_HALF ? D / 2 : D); d++)
          s += (float)get(O, dt, (size_t)(b * sob + h * soh + i * sos + d)) *
               (float)get(dO, dt, (size_t)(b * sdob + h * sdoh + i * sdos + d));
        delta[((size_t)b * Hq + h) * Sq + i] = s;
      }
  return 0;
}

/* The strides of one backward call in the ABI's order: Q, K, V, dO (o*), dQ (g*). */
typedef struct MockStrides { int64_t qb, qh, qs, kb, kh, ks, vb, vh, vs, ob, oh, os, gb, gh, gs; } MockStrides;

/* dS of query row i and key row j (head h, kv head kh), and P through *p. */
static float mock_ds(int dt, int D, const void *Q, const void *K, const void *V, const void *dO, const float *lse,
                     const float *delta, int b, int h, int kh, int i, int j, int Hq, int Sq, const MockStrides *st,
                     float scale, float cap, float *p) {
  float t = 0;
  float s = mock_score(dt, D, Q, b * st->qb + h * st->qh + i * st->qs, K, b * st->kb + kh * st->kh + j * st->ks,
                       scale, cap, &t);
  size_t li = ((size_t)b * Hq + h) * Sq + i;
  *p = expf(s - lse[li]);
  float dp = 0;
  for (int d = 0; d < D; d++)
    dp += (float)get(dO, dt, (size_t)(b * st->ob + h * st->oh + i * st->os + d)) *
          (float)get(V, dt, (size_t)(b * st->vb + kh * st->vh + j * st->vs + d));
  float ds = *p * (dp - delta[li]);
  if (cap > 0 && mock_bug != M_CAP_GRAD) ds *= 1 - t * t;
  return ds;
}

/* Backward, dK and dV: each key row sums over the query heads of its group. */
static int mock_dkdv(int dt, int D, const void *Q, const void *K, const void *V, const void *dO, const void *LSE,
                     const void *Delta, void *dK, void *dV, int B, int Hq, int Sq, int Hkv, int Sk, MockStrides st,
                     int64_t sdkb, int64_t sdkh, int64_t sdks, int64_t sdvb, int64_t sdvh, int64_t sdvs, float scale,
                     float cap, int wl, int wr) {
  if (!Q || !K || !V || !dO || !LSE || !Delta || !dK || !dV || B <= 0 || Hq <= 0 || Sq <= 0 || Hkv <= 0 || Sk <= 0 || Hq % Hkv != 0)
    return 1;
  for (int b = 0; b < B; b++)
    for (int kh = 0; kh < Hkv; kh++)
      for (int j = 0; j < Sk; j++) {
        if (mock_bug == M_BWD_TAIL && j >= Sk / 16 * 16) continue;
        float dk[256] = {0}, dv[256] = {0};
        for (int h = 0; h < Hq; h++) {
          if (mock_kvhead(h, Hq, Hkv) != kh) continue;
          if (mock_bug == M_DV_ONEHEAD && h != kh * (Hq / Hkv)) continue;
          for (int i = 0; i < Sq; i++) {
            if (!mock_visible(i, j, Sq, Sk, wl, wr)) continue;
            float p, ds = mock_ds(dt, D, Q, K, V, dO, LSE, Delta, b, h, kh, i, j, Hq, Sq, &st, scale, cap, &p);
            float pr = mock_round(dt, p), dsr = mock_round(dt, ds);
            for (int d = 0; d < D; d++) {
              dv[d] += pr * (float)get(dO, dt, (size_t)(b * st.ob + h * st.oh + i * st.os + d));
              dk[d] += dsr * (float)get(Q, dt, (size_t)(b * st.qb + h * st.qh + i * st.qs + d));
            }
          }
        }
        for (int d = 0; d < D; d++) {
          put(dK, dt, (size_t)(b * sdkb + kh * sdkh + j * sdks + d), mock_bug == M_DK_NOSCALE ? dk[d] : scale * dk[d]);
          put(dV, dt, (size_t)(b * sdvb + kh * sdvh + j * sdvs + d), dv[d]);
        }
      }
  return 0;
}

/* Backward, dQ: each query row sums over the visible keys of its kv head. */
static int mock_dq(int dt, int D, const void *Q, const void *K, const void *V, const void *dO, const void *LSE,
                   const void *Delta, void *dQ, int B, int Hq, int Sq, int Hkv, int Sk, MockStrides st, float scale,
                   float cap, int wl, int wr) {
  if (!Q || !K || !V || !dO || !LSE || !Delta || !dQ || B <= 0 || Hq <= 0 || Sq <= 0 || Hkv <= 0 || Sk <= 0 || Hq % Hkv != 0)
    return 1;
  for (int b = 0; b < B; b++)
    for (int h = 0; h < Hq; h++) {
      int kh = mock_kvhead(h, Hq, Hkv);
      for (int i = 0; i < Sq; i++) {
        float dq[256] = {0};
        for (int j = 0; j < Sk; j++) {
          if (!mock_visible(i, j, Sq, Sk, wl, wr)) continue;
          float p, ds = mock_ds(dt, D, Q, K, V, dO, LSE, Delta, b, h, kh, i, j, Hq, Sq, &st, scale, cap, &p);
          float dsr = mock_round(dt, ds);
          for (int d = 0; d < D; d++) dq[d] += dsr * (float)get(K, dt, (size_t)(b * st.kb + kh * st.kh + j * st.ks + d));
        }
        for (int d = 0; d < D; d++)
          put(dQ, dt, (size_t)(b * st.gb + h * st.gh + i * st.gs + d), mock_bug == M_DQ_NOSCALE ? dq[d] : scale * dq[d]);
      }
    }
  return 0;
}

/* The ABI's launchers for one dtype and head dim, over the functions above. */
#define MOCK_SET(DT, D)                                                                                              \
  static int mock_fwd_##DT##_##D(const void *Q, const void *K, const void *V, void *O, void *LSE, int B, int Hq,      \
                                 int Sq, int Hkv, int Sk, int64_t sqb, int64_t sqh, int64_t sqs, int64_t skb,         \
                                 int64_t skh, int64_t sks, int64_t svb, int64_t svh, int64_t svs, int64_t sob,        \
                                 int64_t soh, int64_t sos, float scale, int wl, int wr, void *stream) {               \
    (void)stream;                                                                                                     \
    return mock_fwd(DT, D, Q, K, V, O, LSE, B, Hq, Sq, Hkv, Sk, sqb, sqh, sqs, skb, skh, sks, svb, svh, svs, sob,     \
                    soh, sos, scale, 0, wl, wr);                                                                      \
  }                                                                                                                   \
  static int mock_fwdc_##DT##_##D(const void *Q, const void *K, const void *V, void *O, void *LSE, int B, int Hq,     \
                                  int Sq, int Hkv, int Sk, int64_t sqb, int64_t sqh, int64_t sqs, int64_t skb,        \
                                  int64_t skh, int64_t sks, int64_t svb, int64_t svh, int64_t svs, int64_t sob,       \
                                  int64_t soh, int64_t sos, float scale, float cap, int wl, int wr, void *stream) {   \
    (void)stream;                                                                                                     \
    if (!(cap > 0)) return 1;                                                                                         \
    return mock_fwd(DT, D, Q, K, V, O, LSE, B, Hq, Sq, Hkv, Sk, sqb, sqh, sqs, skb, skh, sks, svb, svh, svs, sob,     \
                    soh, sos, scale, cap, wl, wr);                                                                    \
  }                                                                                                                   \
  static int mock_pre_##DT##_##D(const void *O, const void *dO, void *Delta, int B, int Hq, int Sq, int64_t sob,      \
                                 int64_t soh, int64_t sos, int64_t sdob, int64_t sdoh, int64_t sdos, void *stream) {  \
    (void)stream;                                                                                                     \
    return mock_pre(DT, D, O, dO, Delta, B, Hq, Sq, sob, soh, sos, sdob, sdoh, sdos);                                 \
  }                                                                                                                   \
  static int mock_dkdv_##DT##_##D(const void *Q, const void *K, const void *V, const void *dO, const void *LSE,       \
                                  const void *Delta, void *dK, void *dV, int B, int Hq, int Sq, int Hkv, int Sk,      \
                                  int64_t sqb, int64_t sqh, int64_t sqs, int64_t skb, int64_t skh, int64_t sks,       \
                                  int64_t svb, int64_t svh, int64_t svs, int64_t sdob, int64_t sdoh, int64_t sdos,    \
                                  int64_t sdkb, int64_t sdkh, int64_t sdks, int64_t sdvb, int64_t sdvh,               \
                                  int64_t sdvs, float scale, int wl, int wr, void *stream) {                          \
    (void)stream;                                                                                                     \
    MockStrides st = {sqb, sqh, sqs, skb, skh, sks, svb, svh, svs, sdob, sdoh, sdos, 0, 0, 0};                        \
    return mock_dkdv(DT, D, Q, K, V, dO, LSE, Delta, dK, dV, B, Hq, Sq, Hkv, Sk, st, sdkb, sdkh, sdks, sdvb, sdvh,    \
                     sdvs, scale, 0, wl, wr);                                                                         \
  }                                                                                                                   \
  static int mock_dkdvc_##DT##_##D(const void *Q, const void *K, const void *V, const void *dO, const void *LSE,      \
                                   const void *Delta, void *dK, void *dV, int B, int Hq, int Sq, int Hkv, int Sk,     \
                                   int64_t sqb, int64_t sqh, int64_t sqs, int64_t skb, int64_t skh, int64_t sks,      \
                                   int64_t svb, int64_t svh, int64_t svs, int64_t sdob, int64_t sdoh, int64_t sdos,   \
                                   int64_t sdkb, int64_t sdkh, int64_t sdks, int64_t sdvb, int64_t sdvh,              \
                                   int64_t sdvs, float scale, float cap, int wl, int wr, void *stream) {              \
    (void)stream;                                                                                                     \
    MockStrides st = {sqb, sqh, sqs, skb, skh, sks, svb, svh, svs, sdob, sdoh, sdos, 0, 0, 0};                        \
    return mock_dkdv(DT, D, Q, K, V, dO, LSE, Delta, dK, dV, B, Hq, Sq, Hkv, Sk, st, sdkb, sdkh, sdks, sdvb, sdvh,    \
                     sdvs, scale, cap, wl, wr);                                                                       \
  }                                                                                                                   \
  static int mock_dq_##DT##_##D(const void *Q, const void *K, const void *V, const void *dO, const void *LSE,         \
                                const void *Delta, void *dQ, int B, int Hq, int Sq, int Hkv, int Sk, int64_t sqb,     \
                                int64_t sqh, int64_t sqs, int64_t skb, int64_t skh, int64_t sks, int64_t svb,         \
                                int64_t svh, int64_t svs, int64_t sdob, int64_t sdoh, int64_t sdos, int64_t sdqb,     \
                                int64_t sdqh, int64_t sdqs, float scale, int wl, int wr, void *stream) {              \
    (void)stream;                                                                                                     \
    MockStrides st = {sqb, sqh, sqs, skb, skh, sks, svb, svh, svs, sdob, sdoh, sdos, sdqb, sdqh, sdqs};               \
    return mock_dq(DT, D, Q, K, V, dO, LSE, Delta, dQ, B, Hq, Sq, Hkv, Sk, st, scale, 0, wl, wr);                     \
  }                                                                                                                   \
  static int mock_dqc_##DT##_##D(const void *Q, const void *K, const void *V, const void *dO, const void *LSE,        \
                                 const void *Delta, void *dQ, int B, int Hq, int Sq, int Hkv, int Sk, int64_t sqb,    \
                                 int64_t sqh, int64_t sqs, int64_t skb, int64_t skh, int64_t sks, int64_t svb,        \
                                 int64_t svh, int64_t svs, int64_t sdob, int64_t sdoh, int64_t sdos, int64_t sdqb,    \
                                 int64_t sdqh, int64_t sdqs, float scale, float cap, int wl, int wr, void *stream) {  \
    (void)stream;                                                                                                     \
    MockStrides st = {sqb, sqh, sqs, skb, skh, sks, svb, svh, svs, sdob, sdoh, sdos, sdqb, sdqh, sdqs};               \
    return mock_dq(DT, D, Q, K, V, dO, LSE, Delta, dQ, B, Hq, Sq, Hkv, Sk, st, scale, cap, wl, wr);                   \
  }

MOCK_SET(F16, 32)
MOCK_SET(BF16, 64)
MOCK_SET(F16, 128)
MOCK_SET(BF16, 128)
