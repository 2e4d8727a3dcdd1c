/*
** attention.c: CPU numerics of the FlashAttention-2 kernels
** (dsl/kernels/attention.lua) through the c target, and the float64
** reference they are judged by.  docs/attention.md states the semantics.
**
** 1. The reference (ref_*): forward and backward in float64, written
**    plainly from the semantics, one query row at a time.  Beside each
**    output it sums the magnitude that bounds its rounding error.
** 2. Its self-test, which runs with or without kernels: the visibility rule
**    against the masks FlashAttention-2 documents, the forward against a
**    direct softmax in long double, the backward against central finite
**    differences of the forward, GQA against replicated kv heads.  Then the
**    driver itself against attention_mock.c, an f32 FA2-style
**    implementation of the ABI: the correct mock must pass every check,
**    and each planted bug must be caught.
** 3. The driver: every launcher listed in attention_list.h (tests/cpu/run.sh
**    writes it from out/c/attention_*.h) on the cases below: random inputs
**    (never zeros), NaN-poisoned outputs, ragged lengths, causal, windows,
**    GQA, MQA, Sq < Sk, Sq > Sk (rows with no visible key), Sk = 1, Sq = 1,
**    softcap, [B, H, S, D], [B, S, H, D], gaps between rows and heads, odd
**    strides.  Forward: O and LSE.  Backward: pre, then dkdv and dq, fed the
**    reference's O (rounded to the dtype) and LSE, so a forward bug does not
**    hide a backward one.  Gaps and tails of the outputs must stay NaN and
**    the inputs must not change.
**
** Tolerance (u = unit roundoff of the dtype: 2^-11 f16, 2^-8 bf16): an
** output element passes when |out - ref| <= 2 (u (M + |ref|) + tiny (N + 1)),
** where M sums the absolute terms of the element's last product: O:
** sum_j P|V|; dV: sum P|dO|; dQ, dK: scale sum P (|dP| + |Delta| +
** sum|dO O|) |K| (|Q|) (times 1 - tanh^2 with softcap).  A correct kernel's
** error is at most about u M (P or dS rounded to the dtype before the
** product, Delta from the rounded O) plus u |ref| (the output's rounding)
** plus f32 terms far below u; the factor 2 is the margin.  N is the same sum
** without P and tiny half the dtype's subnormal spacing (2^-25 for f16): a
** P of 1e-6 is subnormal in f16, its rounding error absolute.  So the bound
** follows the output's own magnitude, and a row with no visible key
** (N = 0) must be exactly 0.  The correct mock reaches about half the
** bound (build/tests/cpu/attention.log says where).  LSE (f32):
** |lse - ref| <= 1e-4 + 1e-5 |ref|, +inf exactly for rows with no visible
** key.  Delta (f32): |Delta - ref| <= 2e-5 sum|dO O|.  Prints PASS / FAIL /
** SKIP lines; exit status 0.
*/
#include <limits.h>
#include <stdarg.h>
#include <time.h>

#include "common.h"
#include "attention_list.h"   /* ATTN_LIST and the headers (may be empty) */
#include "attention_mock.c"

#ifndef ATTN_LIST
#define ATTN_LIST
#endif

static const double unit[] = {0x1p-24, 0x1p-11, 0x1p-8};      /* unit roundoff of f32, f16, bf16 */
static const double tiny[] = {0x1p-150, 0x1p-25, 0x1p-134};   /* half the spacing of their subnormals */
#define TOL 2.0

/* ---------------------------------------------------------------------------
** the reference */

typedef struct Prob { int B, Hq, Hkv, Sq, Sk, D, wl, wr; double scale, cap; } Prob;   /* cap 0: no softcap */

/* Index of [b, h, s, d] in a contiguous [B, H, S, D] array. */
static size_t ix(int b, int h, int s, int d, int H, int S, int D) {
  return (((size_t)b * H + h) * S + s) * D + d;
}

/* Key j is visible to query i (FlashAttention-2, bottom-right aligned). */
static int visible(const Prob *p, int i, int j) {
  long long off = (long long)p->Sk - p->Sq;   /* 64 bits: a window may be INT_MAX */
  return (p->wl < 0 || j >= i + off - p->wl) && (p->wr < 0 || j <= i + off + p->wr);
}

/* S of query row q and key row k (capped when p->cap > 0); tanh through *t. */
static double ref_score(const Prob *p, const double *q, const double *k, double *t) {
  double s = 0;
  for (int d = 0; d < p->D; d++) s += q[d] * k[d];
  s *= p->scale;
  *t = 0;
  if (p->cap > 0) {
    *t = tanh(s / p->cap);
    s = p->cap * *t;
  }
  return s;
}

/* Forward: O, LSE and (if mag) the magnitudes of each element, M = sum_j
** P |V| and N = sum_j |V| over the visible keys, from contiguous
** q [B, Hq, Sq, D], k, v [B, Hkv, Sk, D]. */
static void ref_forward(const Prob *p, const double *q, const double *k, const double *v, double *o, double *lse,
                        double *mag, double *nmag) {
  int D = p->D, g = p->Hq / p->Hkv;
  double *s = malloc(sizeof(double) * (size_t)p->Sk), t;
  for (int b = 0; b < p->B; b++)
    for (int h = 0; h < p->Hq; h++)
      for (int i = 0; i < p->Sq; i++) {
        const double *qi = q + ix(b, h, i, 0, p->Hq, p->Sq, D);
        double *oi = o + ix(b, h, i, 0, p->Hq, p->Sq, D), *mi = mag ? mag + ix(b, h, i, 0, p->Hq, p->Sq, D) : NULL;
        double *ni = mag ? nmag + ix(b, h, i, 0, p->Hq, p->Sq, D) : NULL;
        double m = -INFINITY, l = 0;
        for (int j = 0; j < p->Sk; j++) {
          s[j] = visible(p, i, j) ? ref_score(p, qi, k + ix(b, h / g, j, 0, p->Hkv, p->Sk, D), &t) : -INFINITY;
          if (s[j] > m) m = s[j];
        }
        for (int d = 0; d < D; d++) oi[d] = 0;
        if (mi)
          for (int d = 0; d < D; d++) mi[d] = ni[d] = 0;
        lse[((size_t)b * p->Hq + h) * p->Sq + i] = INFINITY;
        if (m == -INFINITY) continue;   /* no visible key: O = 0, LSE = +inf */
        for (int j = 0; j < p->Sk; j++) l += exp(s[j] - m);
        for (int j = 0; j < p->Sk; j++) {
          if (s[j] == -INFINITY) continue;
          double pj = exp(s[j] - m) / l;
          const double *vj = v + ix(b, h / g, j, 0, p->Hkv, p->Sk, D);
          for (int d = 0; d < D; d++) oi[d] += pj * vj[d];
          if (mi)
            for (int d = 0; d < D; d++) mi[d] += pj * fabs(vj[d]), ni[d] += fabs(vj[d]);
        }
        lse[((size_t)b * p->Hq + h) * p->Sq + i] = m + log(l);
      }
  free(s);
}

/* Backward: dQ, dK, dV for the upstream gradient dout, and (if m) the
** magnitudes that bound their rounding errors (file comment): m[0..2] the
** M of dQ, dK, dV, m[3..5] their N. */
static void ref_backward(const Prob *p, const double *q, const double *k, const double *v, const double *dout,
                         double *dq, double *dk, double *dv, double *const *m) {
  int D = p->D, g = p->Hq / p->Hkv;
  size_t nq = (size_t)p->B * p->Hq * p->Sq * D, nk = (size_t)p->B * p->Hkv * p->Sk * D;
  double *o = malloc(sizeof(double) * nq), *lse = malloc(sizeof(double) * nq / D), t;
  ref_forward(p, q, k, v, o, lse, NULL, NULL);
  memset(dq, 0, sizeof(double) * nq), memset(dk, 0, sizeof(double) * nk), memset(dv, 0, sizeof(double) * nk);
  for (int i = 0; m && i < 6; i++) memset(m[i], 0, sizeof(double) * (i % 3 ? nk : nq));
  for (int b = 0; b < p->B; b++)
    for (int h = 0; h < p->Hq; h++)
      for (int i = 0; i < p->Sq; i++) {
        double L = lse[((size_t)b * p->Hq + h) * p->Sq + i];
        if (L == INFINITY) continue;   /* no visible key: P = 0, nothing flows */
        size_t qi = ix(b, h, i, 0, p->Hq, p->Sq, D);
        double delta = 0, a = 0;
        for (int d = 0; d < D; d++) delta += dout[qi + d] * o[qi + d], a += fabs(dout[qi + d] * o[qi + d]);
        for (int j = 0; j < p->Sk; j++) {
          if (!visible(p, i, j)) continue;
          size_t kj = ix(b, h / g, j, 0, p->Hkv, p->Sk, D);
          double P = exp(ref_score(p, q + qi, k + kj, &t) - L), dp = 0;
          for (int d = 0; d < D; d++) dp += dout[qi + d] * v[kj + d];
          double f = p->cap > 0 ? 1 - t * t : 1;
          double ds = P * (dp - delta) * f, w = P * (fabs(dp) + fabs(delta) + a) * f;
          for (int d = 0; d < D; d++) {
            dq[qi + d] += p->scale * ds * k[kj + d];
            dk[kj + d] += p->scale * ds * q[qi + d];
            dv[kj + d] += P * dout[qi + d];
            if (m) {
              m[0][qi + d] += p->scale * w * fabs(k[kj + d]), m[3][qi + d] += p->scale * fabs(k[kj + d]);
              m[1][kj + d] += p->scale * w * fabs(q[qi + d]), m[4][kj + d] += p->scale * fabs(q[qi + d]);
              m[2][kj + d] += P * fabs(dout[qi + d]), m[5][kj + d] += fabs(dout[qi + d]);
            }
          }
        }
      }
  free(o), free(lse);
}

/* ---------------------------------------------------------------------------
** self-test of the reference */

/* n doubles uniform in [lo, hi]. */
static double *rand_doubles(size_t n, double lo, double hi) {
  double *x = malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; i++) x[i] = uniform(lo, hi);
  return x;
}

static double max_abs(const double *x, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

static double max_diff(const double *x, const double *y, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fmax(m, isnan(x[i]) || isnan(y[i]) ? INFINITY : fabs(x[i] - y[i]));
  return m;
}

/* The forward written another way: S over a whole row in long double,
** P = exp(S - log sum exp S) with no running max, kv head h * Hkv / Hq,
** visibility from mask (Sq x Sk, 1 = visible) when given. */
static void direct_forward(const Prob *p, const char *mask, const double *q, const double *k, const double *v,
                           double *o, double *lse) {
  int D = p->D;
  for (int b = 0; b < p->B; b++)
    for (int h = 0; h < p->Hq; h++) {
      int kh = h * p->Hkv / p->Hq;
      for (int i = 0; i < p->Sq; i++) {
        long double sum = 0, s[64];
        int any = 0;
        for (int j = 0; j < p->Sk; j++) {
          if (!(mask ? mask[i * p->Sk + j] : visible(p, i, j))) continue;
          long double x = 0;
          for (int d = 0; d < D; d++) x += (long double)q[ix(b, h, i, d, p->Hq, p->Sq, D)] * k[ix(b, kh, j, d, p->Hkv, p->Sk, D)];
          x *= p->scale;
          if (p->cap > 0) x = p->cap * tanhl(x / p->cap);
          s[j] = x, sum += expl(x), any = 1;
        }
        lse[((size_t)b * p->Hq + h) * p->Sq + i] = any ? (double)logl(sum) : INFINITY;
        for (int d = 0; d < D; d++) {
          long double acc = 0;
          for (int j = 0; j < p->Sk; j++)
            if (mask ? mask[i * p->Sk + j] : visible(p, i, j)) acc += expl(s[j]) / sum * v[ix(b, kh, j, d, p->Hkv, p->Sk, D)];
          o[ix(b, h, i, d, p->Hq, p->Sq, D)] = (double)acc;
        }
      }
    }
}

/* The masks (1 = visible) of FlashAttention-2's documentation (causal,
** Sq = 2, Sk = 5 and Sq = 5, Sk = 2) and windows worked out by hand from
** [i + Sk - Sq - wl, i + Sk - Sq + wr]. */
typedef struct Mask { int Sq, Sk, wl, wr; const char *rows; } Mask;
static const Mask masks[] = {
  {2, 5, -1, 0, "11110" "11111"},
  {5, 2, -1, 0, "00" "00" "00" "10" "11"},
  {3, 5, 1, 0, "01100" "00110" "00011"},
  {4, 3, 0, 1, "100" "110" "011" "001"},
  {4, 4, 2, -1, "1111" "1111" "1111" "0111"},
  {3, 3, -1, -1, "111" "111" "111"},
  {4, 6, 0, 0, "001000" "000100" "000010" "000001"},
  {3, 4, -5, 1, "1110" "1111" "1111"},
};

/* L = sum dout * O, the scalar whose gradient the backward computes. */
static double loss(const Prob *p, const double *q, const double *k, const double *v, const double *dout) {
  size_t nq = (size_t)p->B * p->Hq * p->Sq * p->D;
  double *o = malloc(sizeof(double) * nq), *lse = malloc(sizeof(double) * nq), l = 0;
  ref_forward(p, q, k, v, o, lse, NULL, NULL);
  for (size_t i = 0; i < nq; i++) l += dout[i] * o[i];
  free(o), free(lse);
  return l;
}

/* Max |g - central difference of L| over the elements of x, over max |g|. */
static double fd_error(const Prob *p, double *q, double *k, double *v, const double *dout, double *x, size_t n,
                       const double *g) {
  double worst = 0, h = 1e-5;
  for (size_t i = 0; i < n; i++) {
    double x0 = x[i];
    x[i] = x0 + h;
    double lp = loss(p, q, k, v, dout);
    x[i] = x0 - h;
    double lm = loss(p, q, k, v, dout);
    x[i] = x0;
    worst = fmax(worst, fabs((lp - lm) / (2 * h) - g[i]));
  }
  return worst / fmax(max_abs(g, n), 1e-300);
}

/* The reference against the masks, the direct softmax, finite differences
** and replicated kv heads; one PASS / FAIL line each. */
static void selftest_reference(void) {
  /* visibility and the forward on the documented masks */
  int bad_mask = 0;
  double worst = 0;
  for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
    const Mask *mk = &masks[m];
    Prob p = {1, 2, 1, mk->Sq, mk->Sk, 5, mk->wl, mk->wr, 0.6, 0};
    char mask[64];
    for (int i = 0; i < p.Sq; i++)
      for (int j = 0; j < p.Sk; j++) {
        mask[i * p.Sk + j] = mk->rows[i * p.Sk + j] == '1';
        if (visible(&p, i, j) != mask[i * p.Sk + j]) bad_mask = 1;
      }
    size_t nq = (size_t)p.B * p.Hq * p.Sq * p.D, nk = (size_t)p.B * p.Hkv * p.Sk * p.D;
    double *q = rand_doubles(nq, -1, 1), *k = rand_doubles(nk, -1, 1), *v = rand_doubles(nk, -1, 1);
    double *o1 = malloc(sizeof(double) * nq), *o2 = malloc(sizeof(double) * nq);
    double *l1 = malloc(sizeof(double) * nq), *l2 = malloc(sizeof(double) * nq);
    ref_forward(&p, q, k, v, o1, l1, NULL, NULL);
    direct_forward(&p, mask, q, k, v, o2, l2);
    worst = fmax(worst, fmax(max_diff(o1, o2, nq), max_diff(l1, l2, nq / p.D)));
    free(q), free(k), free(v), free(o1), free(o2), free(l1), free(l2);
  }
  status("cpu attention reference: visibility = FlashAttention-2's documented masks (8 masks)", !bad_mask,
         "visible() disagrees with a mask");
  char why[200];
  snprintf(why, sizeof why, "max difference %.3g", worst);
  status("cpu attention reference: forward = direct softmax on those masks, incl. rows with no visible key",
         worst < 1e-12, why);

  /* the forward against the direct softmax on random problems */
  static const Prob fw[] = {
    {2, 4, 2, 9, 13, 7, -1, 0, 0.5, 0},  {1, 3, 1, 12, 5, 4, -1, 0, 1.5, 2.5}, {1, 2, 2, 11, 11, 6, 3, 2, 1.0, 0},
    {2, 2, 1, 6, 1, 3, -1, -1, 1.0, 0},  {1, 4, 4, 1, 30, 8, -1, 0, 0.4, 1.0}, {1, 2, 1, 20, 14, 5, -1, 3, 2.0, 0},
  };
  worst = 0;
  for (size_t c = 0; c < sizeof fw / sizeof fw[0]; c++) {
    const Prob *p = &fw[c];
    size_t nq = (size_t)p->B * p->Hq * p->Sq * p->D, nk = (size_t)p->B * p->Hkv * p->Sk * p->D;
    double *q = rand_doubles(nq, -1, 1), *k = rand_doubles(nk, -1, 1), *v = rand_doubles(nk, -1, 1);
    double *o1 = malloc(sizeof(double) * nq), *o2 = malloc(sizeof(double) * nq);
    double *l1 = malloc(sizeof(double) * nq), *l2 = malloc(sizeof(double) * nq);
    ref_forward(p, q, k, v, o1, l1, NULL, NULL);
    direct_forward(p, NULL, q, k, v, o2, l2);
    worst = fmax(worst, fmax(max_diff(o1, o2, nq), max_diff(l1, l2, nq / p->D)));
    free(q), free(k), free(v), free(o1), free(o2), free(l1), free(l2);
  }
  snprintf(why, sizeof why, "max difference %.3g", worst);
  status("cpu attention reference: forward = direct softmax (6 random problems: GQA, MQA, causal, windows, "
         "softcap, Sk = 1, Sq = 1)", worst < 1e-12, why);

  /* the backward against central differences of L = sum dO * O */
  static const Prob bw[] = {
    {1, 2, 1, 4, 5, 3, -1, -1, 0.7, 0}, {2, 2, 2, 5, 3, 3, -1, 0, 1.3, 2.0},
    {1, 4, 2, 6, 6, 3, 1, 2, 0.9, 0},   {1, 2, 1, 3, 7, 4, 2, 0, 1.1, 1.5},
  };
  worst = 0;
  for (size_t c = 0; c < sizeof bw / sizeof bw[0]; c++) {
    const Prob *p = &bw[c];
    size_t nq = (size_t)p->B * p->Hq * p->Sq * p->D, nk = (size_t)p->B * p->Hkv * p->Sk * p->D;
    double *q = rand_doubles(nq, -1, 1), *k = rand_doubles(nk, -1, 1), *v = rand_doubles(nk, -1, 1);
    double *dout = rand_doubles(nq, -1, 1);
    double *dq = malloc(sizeof(double) * nq), *dk = malloc(sizeof(double) * nk), *dv = malloc(sizeof(double) * nk);
    ref_backward(p, q, k, v, dout, dq, dk, dv, NULL);
    worst = fmax(worst, fd_error(p, q, k, v, dout, q, nq, dq));
    worst = fmax(worst, fd_error(p, q, k, v, dout, k, nk, dk));
    worst = fmax(worst, fd_error(p, q, k, v, dout, v, nk, dv));
    free(q), free(k), free(v), free(dout), free(dq), free(dk), free(dv);
  }
  snprintf(why, sizeof why, "max |grad - central difference| / max |grad| = %.3g", worst);
  status("cpu attention reference: backward = central differences of sum(dO * O) (4 problems: GQA, causal Sq > Sk, "
         "window, softcap)", worst < 1e-7, why);

  /* GQA / MQA = kv heads replicated to Hq heads, dK and dV summed back */
  worst = 0;
  for (int hkv = 1; hkv <= 2; hkv++) {
    Prob p = {2, 4, hkv, 7, 9, 4, 3, 1, 0.8, 3.0}, r = p;
    r.Hkv = p.Hq;
    int g = p.Hq / p.Hkv, D = p.D;
    size_t nq = (size_t)p.B * p.Hq * p.Sq * D, nk = (size_t)p.B * p.Hkv * p.Sk * D, nr = (size_t)p.B * p.Hq * p.Sk * D;
    double *q = rand_doubles(nq, -1, 1), *k = rand_doubles(nk, -1, 1), *v = rand_doubles(nk, -1, 1);
    double *dout = rand_doubles(nq, -1, 1), *kr = malloc(sizeof(double) * nr), *vr = malloc(sizeof(double) * nr);
    for (int b = 0; b < p.B; b++)
      for (int h = 0; h < p.Hq; h++)
        for (int j = 0; j < p.Sk; j++)
          for (int d = 0; d < D; d++) {
            kr[ix(b, h, j, d, p.Hq, p.Sk, D)] = k[ix(b, h / g, j, d, p.Hkv, p.Sk, D)];
            vr[ix(b, h, j, d, p.Hq, p.Sk, D)] = v[ix(b, h / g, j, d, p.Hkv, p.Sk, D)];
          }
    double *o1 = malloc(sizeof(double) * nq), *o2 = malloc(sizeof(double) * nq);
    double *l1 = malloc(sizeof(double) * nq), *l2 = malloc(sizeof(double) * nq);
    double *dq1 = malloc(sizeof(double) * nq), *dk1 = malloc(sizeof(double) * nk), *dv1 = malloc(sizeof(double) * nk);
    double *dq2 = malloc(sizeof(double) * nq), *dk2 = malloc(sizeof(double) * nr), *dv2 = malloc(sizeof(double) * nr);
    ref_forward(&p, q, k, v, o1, l1, NULL, NULL);
    ref_forward(&r, q, kr, vr, o2, l2, NULL, NULL);
    ref_backward(&p, q, k, v, dout, dq1, dk1, dv1, NULL);
    ref_backward(&r, q, kr, vr, dout, dq2, dk2, dv2, NULL);
    worst = fmax(worst, fmax(max_diff(o1, o2, nq), fmax(max_diff(l1, l2, nq / D), max_diff(dq1, dq2, nq))));
    for (int b = 0; b < p.B; b++)
      for (int kh = 0; kh < p.Hkv; kh++)
        for (int j = 0; j < p.Sk; j++)
          for (int d = 0; d < D; d++) {
            double sk = 0, sv = 0;
            for (int h = kh * g; h < (kh + 1) * g; h++)
              sk += dk2[ix(b, h, j, d, p.Hq, p.Sk, D)], sv += dv2[ix(b, h, j, d, p.Hq, p.Sk, D)];
            worst = fmax(worst, fmax(fabs(sk - dk1[ix(b, kh, j, d, p.Hkv, p.Sk, D)]),
                                     fabs(sv - dv1[ix(b, kh, j, d, p.Hkv, p.Sk, D)])));
          }
    free(q), free(k), free(v), free(dout), free(kr), free(vr), free(o1), free(o2), free(l1), free(l2);
    free(dq1), free(dk1), free(dv1), free(dq2), free(dk2), free(dv2);
  }
  snprintf(why, sizeof why, "max difference %.3g", worst);
  status("cpu attention reference: GQA (Hq 4, Hkv 2) and MQA (Hkv 1) = replicated kv heads, forward and backward",
         worst < 1e-12, why);
}

/* ---------------------------------------------------------------------------
** the driver */

typedef void (*AnyFn)(void);
typedef int (*FwdFn)(const void *, const void *, const void *, void *, void *, int, int, int, int, int, int64_t,
                     int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                     float, int, int, void *);
typedef int (*FwdCapFn)(const void *, const void *, const void *, void *, void *, int, int, int, int, int, int64_t,
                        int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                        int64_t, float, float, int, int, void *);
typedef int (*PreFn)(const void *, const void *, void *, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t,
                     int64_t, void *);
typedef int (*DkdvFn)(const void *, const void *, const void *, const void *, const void *, const void *, void *,
                      void *, int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                      int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                      int64_t, float, int, int, void *);
typedef int (*DkdvCapFn)(const void *, const void *, const void *, const void *, const void *, const void *, void *,
                         void *, int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, float, float, int, int, void *);
typedef int (*DqFn)(const void *, const void *, const void *, const void *, const void *, const void *, void *, int,
                    int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                    int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float, int, int, void *);
typedef int (*DqCapFn)(const void *, const void *, const void *, const void *, const void *, const void *, void *, int,
                       int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float, float, int, int, void *);

/* The dQ-by-atomics path: pre also clears dQacc, dkdv adds dQ into it,
** post converts it. */
typedef int (*PreAFn)(const void *, const void *, void *, void *, int, int, int, int64_t, int64_t, int64_t, int64_t,
                      int64_t, int64_t, void *);
typedef int (*DkdvAFn)(const void *, const void *, const void *, const void *, const void *, const void *, void *,
                       void *, void *, int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, float, int, int, void *);
typedef int (*DkdvACapFn)(const void *, const void *, const void *, const void *, const void *, const void *, void *,
                          void *, void *, int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t,
                          int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                          int64_t, int64_t, int64_t, float, float, int, int, void *);
typedef int (*PostFn)(const void *, void *, int, int, int, int64_t, int64_t, int64_t, void *);

enum { K_FWD, K_PRE, K_DKDV, K_DQ, K_PREA, K_DKDVA, K_POST };   /* the seven kernels */

/* One (dtype, head dim, softcap) set of launchers; NULL where absent.  The
** backward runs two ways: pre, dkdv, dq (deterministic), and prea, dkdva,
** post (dQ by atomics). */
typedef struct Set {
  int dt, D, cap;
  const char *fwd_name, *pre_name, *dkdv_name, *dq_name;
  AnyFn fwd, pre, dkdv, dq;
  const char *prea_name, *dkdva_name, *post_name;
  AnyFn prea, dkdva, post;
} Set;

enum { BHSD, BSHD, GAPS, ODD };   /* memory layouts of the cases */
static const char *const lay_name[] = {"bhsd", "bshd", "bhsd+gaps", "bshd+odd strides"};

typedef struct Case { const char *what; int B, Hq, Hkv, Sq, Sk, wl, wr, lay; double temp, cap; } Case;

/* scale = temp / sqrt(D): inputs in [-1, 1] give S a spread of about temp / 3
** (temp 8-16: peaked rows, the running max moves); cap is the softcap of the
** _softcap variants, small enough to bite. */
static const Case cases[] = {
  {"full", 1, 2, 2, 77, 77, -1, -1, BHSD, 1.0, 4},
  {"causal GQA Sq<Sk", 1, 4, 2, 40, 100, -1, 0, BSHD, 8.0, 5},
  {"causal MQA Sq>Sk", 1, 3, 1, 150, 37, -1, 0, GAPS, 8.0, 5},
  {"full Sk=1", 2, 2, 1, 19, 1, -1, -1, BHSD, 1.0, 4},
  {"causal Sk=1", 1, 2, 2, 7, 1, -1, 0, BSHD, 1.0, 4},
  {"causal Sq=1", 1, 2, 1, 1, 129, -1, 0, BSHD, 8.0, 5},
  {"window (17,5)", 1, 2, 2, 130, 150, 17, 5, BSHD, 8.0, 5},
  {"window (20,-2)", 1, 2, 1, 100, 100, 20, -2, GAPS, 8.0, 5},
  {"window (-1,3) Sq>Sk", 2, 2, 2, 90, 60, -1, 3, GAPS, 4.0, 3},
  {"full long keys", 1, 1, 1, 33, 300, -1, -1, GAPS, 16.0, 6},
  {"window (0,0)", 1, 1, 1, 70, 70, 0, 0, BHSD, 4.0, 3},
  {"causal", 1, 2, 1, 33, 47, -1, 0, ODD, 4.0, 3},
  {"window (2^30-1,2^30-1) Sq>Sk", 1, 2, 1, 50, 30, 1073741823, 1073741823, BSHD, 4.0, 3},
  {"window (2^30-1,0)", 1, 2, 2, 40, 70, 1073741823, 0, BHSD, 4.0, 3},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* Strides and storage size (elements) of tensor number t (Q K V O dO dQ dK
** dV = 0..7) of shape [B, H, S, D] in layout lay; each tensor gets its own
** gap so that a kernel that mixes up strides reads or writes elsewhere. */
typedef struct Lay { int64_t sb, sh, ss; size_t n; } Lay;
static Lay layout(int lay, int t, int B, int H, int S, int D) {
  Lay l;
  int64_t p = lay == GAPS ? 8 * (t + 1) : lay == ODD ? 2 * t + 1 : 0;
  if (lay == BHSD || lay == GAPS) l.ss = D + p, l.sh = S * l.ss + p, l.sb = H * l.sh + p;
  else l.sh = D + p, l.ss = H * l.sh + p, l.sb = S * l.ss + p;
  l.n = (size_t)(B * l.sb);
  return l;
}

static size_t at(const Lay *l, int b, int h, int s, int d) { return (size_t)(b * l->sb + h * l->sh + s * l->ss + d); }

/* The logical tensor of a strided buffer, as contiguous doubles. */
static double *gather(const void *buf, int dt, const Lay *l, int B, int H, int S, int D) {
  double *x = malloc(sizeof(double) * (size_t)B * H * S * D);
  for (int b = 0; b < B; b++)
    for (int h = 0; h < H; h++)
      for (int s = 0; s < S; s++)
        for (int d = 0; d < D; d++) x[ix(b, h, s, d, H, S, D)] = get(buf, dt, at(l, b, h, s, d));
  return x;
}

static void *dup(const void *p, size_t bytes) { return memcpy(malloc(bytes), p, bytes); }

/* The verdict of one check: bad (with why) or the worst err / bound. */
typedef struct Result { int bad, measured; double worst; char why[300], worst_why[300]; } Result;

static void fail(Result *r, const char *fmt, ...) {
  if (r->bad) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof r->why, fmt, ap);
  va_end(ap);
  r->bad = 1;
}

/* Compares a strided output [B, H, S, D] with ref under
** TOL (u (M + |ref|) + tiny (N + 1)), or exactly 0 when N = 0. */
static void check_tensor(Result *r, const char *tn, const void *buf, int dt, const Lay *l, int B, int H, int S, int D,
                         const double *ref, const double *mag, const double *nmag) {
  r->measured = 1;
  for (int b = 0; b < B; b++)
    for (int h = 0; h < H; h++)
      for (int s = 0; s < S; s++)
        for (int d = 0; d < D; d++) {
          size_t i = ix(b, h, s, d, H, S, D);
          double o = get(buf, dt, at(l, b, h, s, d)), err = fabs(o - ref[i]);
          double tol = TOL * (unit[dt] * (mag[i] + fabs(ref[i])) + (nmag[i] > 0 ? tiny[dt] * (nmag[i] + 1) : 0));
          double ratio = isnan(o) ? INFINITY : err == 0 ? 0 : tol == 0 ? INFINITY : err / tol;
          if (ratio > r->worst) {
            r->worst = ratio;
            snprintf(r->worst_why, sizeof r->worst_why, "%s[%d,%d,%d,%d] = %.6g, reference %.6g (bound %.3g)", tn, b,
                     h, s, d, o, ref[i], tol);
          }
        }
}

/* Every element of buf outside the logical tensor is still NaN. */
static void check_gaps(Result *r, const char *tn, const void *buf, int dt, const Lay *l, int B, int H, int S, int D) {
  char *used = calloc(l->n, 1);
  for (int b = 0; b < B; b++)
    for (int h = 0; h < H; h++)
      for (int s = 0; s < S; s++)
        for (int d = 0; d < D; d++) used[at(l, b, h, s, d)] = 1;
  for (size_t i = 0; i < l->n; i++)
    if (!used[i] && !isnan(get(buf, dt, i))) {
      fail(r, "%s was written outside the tensor (storage element %zu, a gap between rows or heads)", tn, i);
      break;
    }
  free(used);
}

/* The n_tail f32 after the first n of buf are still NaN. */
static void check_tail(Result *r, const char *tn, const float *buf, size_t n, size_t n_tail) {
  for (size_t i = n; i < n + n_tail; i++)
    if (!isnan(buf[i])) {
      fail(r, "%s was written past its end (element %zu of %zu)", tn, i, n);
      return;
    }
}

/* The f32 [B, H, S] lse against ref: +inf exactly where ref is, else
** |lse - ref| <= 1e-4 + 1e-5 |ref|. */
static void check_lse(Result *r, const float *lse, const double *ref, int B, int H, int S) {
  for (size_t i = 0; i < (size_t)B * H * S; i++) {
    double x = lse[i], tol = 1e-4 + 1e-5 * fabs(ref[i]);
    int b = (int)(i / ((size_t)H * S)), h = (int)(i / S % H), s = (int)(i % S);
    if (ref[i] == INFINITY ? x != INFINITY : !(fabs(x - ref[i]) <= tol)) {
      fail(r, "LSE[%d,%d,%d] = %.7g, reference %.7g%s", b, h, s, x, ref[i],
           ref[i] == INFINITY ? " (no visible key: +inf)" : "");
      return;
    }
  }
}

static int quiet;                  /* the self-test runs the driver without printing */
static int quiet_fails;            /* failures seen while quiet */
static char quiet_first[600];      /* the first of them */
static double quiet_worst;         /* the worst err / bound of the passing checks while quiet */
static char quiet_worst_at[600];   /* and where */

/* Prints (or, when quiet, counts) the verdict of one check. */
static void report(const char *label, const Result *r) {
  int ok = !r->bad && r->worst <= 1;
  const char *why = r->bad ? r->why : r->worst_why;
  if (quiet) {
    if (!ok && !quiet_fails++) snprintf(quiet_first, sizeof quiet_first, "%s: %s", label, why);
    if (ok && r->worst > quiet_worst) {
      quiet_worst = r->worst;
      snprintf(quiet_worst_at, sizeof quiet_worst_at, "%s: %s", label, r->worst_why);
    }
    return;
  }
  if (ok && r->measured) printf("PASS %s (error <= %.2f of the bound)\n", label, r->worst), passes++;
  else if (ok) printf("PASS %s\n", label), passes++;
  else printf("FAIL %s: %s\n", label, why), failures++;
}

/* The problem of case c for a set. */
static Prob problem(const Set *s, const Case *c) {
  Prob p = {c->B, c->Hq, c->Hkv, c->Sq, c->Sk, s->D, c->wl, c->wr, c->temp / sqrt(s->D), s->cap ? c->cap : 0};
  return p;
}

static void case_label(char *out, size_t n, const char *name, const char *what, const Case *c) {
  snprintf(out, n, "cpu %s %s %s B%d H%d/%d Sq%d Sk%d %s", name, what, c->what, c->B, c->Hq, c->Hkv, c->Sq, c->Sk,
           lay_name[c->lay]);
}

/* Forward of set s on case c: O (with its gaps) and LSE (with its tail). */
static void run_forward(const Set *s, const Case *c) {
  Prob p = problem(s, c);
  int dt = s->dt, D = s->D;
  Lay lq = layout(c->lay, 0, p.B, p.Hq, p.Sq, D), lk = layout(c->lay, 1, p.B, p.Hkv, p.Sk, D);
  Lay lv = layout(c->lay, 2, p.B, p.Hkv, p.Sk, D), lo = layout(c->lay, 3, p.B, p.Hq, p.Sq, D);
  size_t nr = (size_t)p.B * p.Hq * p.Sq, bq = lq.n * dbytes[dt], bk = lk.n * dbytes[dt], bv = lv.n * dbytes[dt];
  void *Q = random_buf(dt, lq.n, -1, 1), *K = random_buf(dt, lk.n, -1, 1), *V = random_buf(dt, lv.n, -1, 1);
  void *Q0 = dup(Q, bq), *K0 = dup(K, bk), *V0 = dup(V, bv), *O = poisoned(dt, lo.n);
  float *LSE = poisoned(F32, nr + 16);
  int rc = s->cap ? ((FwdCapFn)s->fwd)(Q, K, V, O, LSE, p.B, p.Hq, p.Sq, p.Hkv, p.Sk, lq.sb, lq.sh, lq.ss, lk.sb,
                                       lk.sh, lk.ss, lv.sb, lv.sh, lv.ss, lo.sb, lo.sh, lo.ss, (float)p.scale,
                                       (float)p.cap, p.wl, p.wr, NULL)
                  : ((FwdFn)s->fwd)(Q, K, V, O, LSE, p.B, p.Hq, p.Sq, p.Hkv, p.Sk, lq.sb, lq.sh, lq.ss, lk.sb, lk.sh,
                                    lk.ss, lv.sb, lv.sh, lv.ss, lo.sb, lo.sh, lo.ss, (float)p.scale, p.wl, p.wr, NULL);
  Result r = {0};
  char label[300];
  case_label(label, sizeof label, s->fwd_name, "fwd", c);
  if (rc != 0) {
    fail(&r, "the launcher returned %d%s", rc, c->lay == ODD ? " (strides that are not multiples of 8: the ABI "
                                                               "states no such rule)" : "");
  } else {
    double *q = gather(Q, dt, &lq, p.B, p.Hq, p.Sq, D), *k = gather(K, dt, &lk, p.B, p.Hkv, p.Sk, D);
    double *v = gather(V, dt, &lv, p.B, p.Hkv, p.Sk, D);
    double *o = malloc(sizeof(double) * nr * D), *lse = malloc(sizeof(double) * nr);
    double *mag = malloc(sizeof(double) * nr * D), *nmag = malloc(sizeof(double) * nr * D);
    ref_forward(&p, q, k, v, o, lse, mag, nmag);
    check_tensor(&r, "O", O, dt, &lo, p.B, p.Hq, p.Sq, D, o, mag, nmag);
    check_lse(&r, LSE, lse, p.B, p.Hq, p.Sq);
    check_gaps(&r, "O", O, dt, &lo, p.B, p.Hq, p.Sq, D);
    check_tail(&r, "LSE", LSE, nr, 16);
    if (memcmp(Q, Q0, bq) || memcmp(K, K0, bk) || memcmp(V, V0, bv)) fail(&r, "an input (Q, K or V) was modified");
    free(q), free(k), free(v), free(o), free(mag), free(nmag), free(lse);
  }
  report(label, &r);
  free(Q), free(K), free(V), free(Q0), free(K0), free(V0), free(O), free(LSE);
}

/* Delta of pre against rowsum(dO * O) in float64 from the same buffers. */
static void check_delta(Result *r, const float *delta, const void *O, const void *dO, int dt, const Lay *lo,
                        const Lay *ldo, int B, int H, int S, int D) {
  for (int b = 0; b < B; b++)
    for (int h = 0; h < H; h++)
      for (int i = 0; i < S; i++) {
        double x = 0, a = 0;
        for (int d = 0; d < D; d++) {
          double t = get(O, dt, at(lo, b, h, i, d)) * get(dO, dt, at(ldo, b, h, i, d));
          x += t, a += fabs(t);
        }
        double got = delta[((size_t)b * H + h) * S + i];
        if (!(fabs(got - x) <= 2e-5 * a)) {
          fail(r, "Delta[%d,%d,%d] = %.7g, reference %.7g (bound %.3g)", b, h, i, got, x, 2e-5 * a);
          return;
        }
      }
}

/* Backward of set s on case c: pre, then dkdv and dq (atomic: prea, dkdva
** and post, through an f32 dQacc that prea must clear), from the
** reference's O (rounded) and LSE; checks Delta, dQ, dK, dV, their gaps
** and tails. */
static void run_backward(const Set *s, const Case *c, int atomic) {
  Prob p = problem(s, c);
  int dt = s->dt, D = s->D;
  Lay lq = layout(c->lay, 0, p.B, p.Hq, p.Sq, D), lk = layout(c->lay, 1, p.B, p.Hkv, p.Sk, D);
  Lay lv = layout(c->lay, 2, p.B, p.Hkv, p.Sk, D), lo = layout(c->lay, 3, p.B, p.Hq, p.Sq, D);
  Lay ldo = layout(c->lay, 4, p.B, p.Hq, p.Sq, D), ldq = layout(c->lay, 5, p.B, p.Hq, p.Sq, D);
  Lay ldk = layout(c->lay, 6, p.B, p.Hkv, p.Sk, D), ldv = layout(c->lay, 7, p.B, p.Hkv, p.Sk, D);
  size_t nr = (size_t)p.B * p.Hq * p.Sq, nq = nr * D, nk = (size_t)p.B * p.Hkv * p.Sk * D;
  void *Q = random_buf(dt, lq.n, -1, 1), *K = random_buf(dt, lk.n, -1, 1), *V = random_buf(dt, lv.n, -1, 1);
  void *dO = random_buf(dt, ldo.n, -1, 1), *O = random_buf(dt, lo.n, -1, 1);
  double *q = gather(Q, dt, &lq, p.B, p.Hq, p.Sq, D), *k = gather(K, dt, &lk, p.B, p.Hkv, p.Sk, D);
  double *v = gather(V, dt, &lv, p.B, p.Hkv, p.Sk, D), *dout = gather(dO, dt, &ldo, p.B, p.Hq, p.Sq, D);
  double *o = malloc(sizeof(double) * nq), *lse = malloc(sizeof(double) * nr);
  ref_forward(&p, q, k, v, o, lse, NULL, NULL);
  float *LSE = malloc(sizeof(float) * nr);
  for (int b = 0; b < p.B; b++)
    for (int h = 0; h < p.Hq; h++)
      for (int i = 0; i < p.Sq; i++) {
        for (int d = 0; d < D; d++) put(O, dt, at(&lo, b, h, i, d), o[ix(b, h, i, d, p.Hq, p.Sq, D)]);
        LSE[((size_t)b * p.Hq + h) * p.Sq + i] = (float)lse[((size_t)b * p.Hq + h) * p.Sq + i];
      }
  void *ins[] = {Q, K, V, dO, O, LSE}, *copies[6];
  size_t bytes[] = {lq.n * dbytes[dt], lk.n * dbytes[dt], lv.n * dbytes[dt], ldo.n * dbytes[dt], lo.n * dbytes[dt],
                    nr * sizeof(float)};
  for (int i = 0; i < 6; i++) copies[i] = dup(ins[i], bytes[i]);
  float *Delta = poisoned(F32, nr + 16);
  void *dQ = poisoned(dt, ldq.n), *dK = poisoned(dt, ldk.n), *dV = poisoned(dt, ldv.n);
  float *dQacc = atomic ? poisoned(F32, nr * (D == 96 ? 128 : D)) : NULL;   /* rows as wide as the tiles */
  Result r = {0};
  char label[300], name[120];
  if (atomic)
    snprintf(name, sizeof name, "attention_bwd_{pre,dkdv}_dq_atomic_%s_d%d%s + post", dname[dt], D,
             s->cap ? "_softcap" : "");
  else
    snprintf(name, sizeof name, "attention_bwd_{pre,dkdv,dq}_%s_d%d%s", dname[dt], D, s->cap ? "_softcap" : "");
  case_label(label, sizeof label, name, "bwd", c);
  int rc = atomic ? ((PreAFn)s->prea)(O, dO, Delta, dQacc, p.B, p.Hq, p.Sq, lo.sb, lo.sh, lo.ss, ldo.sb, ldo.sh,
                                      ldo.ss, NULL)
                  : ((PreFn)s->pre)(O, dO, Delta, p.B, p.Hq, p.Sq, lo.sb, lo.sh, lo.ss, ldo.sb, ldo.sh, ldo.ss, NULL);
  if (rc != 0) fail(&r, "%s returned %d", atomic ? s->prea_name : s->pre_name, rc);
  check_delta(&r, Delta, O, dO, dt, &lo, &ldo, p.B, p.Hq, p.Sq, D);
  check_tail(&r, "Delta", Delta, nr, 16);
  void *delta_copy = dup(Delta, nr * sizeof(float));
  if (!r.bad && atomic) {
    float sc = (float)p.scale, cap = (float)p.cap;
    rc = s->cap ? ((DkdvACapFn)s->dkdva)(Q, K, V, dO, LSE, Delta, dK, dV, dQacc, p.B, p.Hq, p.Sq, p.Hkv, p.Sk, lq.sb,
                                         lq.sh, lq.ss, lk.sb, lk.sh, lk.ss, lv.sb, lv.sh, lv.ss, ldo.sb, ldo.sh,
                                         ldo.ss, ldk.sb, ldk.sh, ldk.ss, ldv.sb, ldv.sh, ldv.ss, sc, cap, p.wl, p.wr,
                                         NULL)
                : ((DkdvAFn)s->dkdva)(Q, K, V, dO, LSE, Delta, dK, dV, dQacc, p.B, p.Hq, p.Sq, p.Hkv, p.Sk, lq.sb,
                                      lq.sh, lq.ss, lk.sb, lk.sh, lk.ss, lv.sb, lv.sh, lv.ss, ldo.sb, ldo.sh, ldo.ss,
                                      ldk.sb, ldk.sh, ldk.ss, ldv.sb, ldv.sh, ldv.ss, sc, p.wl, p.wr, NULL);
    if (rc != 0) fail(&r, "%s returned %d", s->dkdva_name, rc);
    rc = ((PostFn)s->post)(dQacc, dQ, p.B, p.Hq, p.Sq, ldq.sb, ldq.sh, ldq.ss, NULL);
    if (rc != 0) fail(&r, "%s returned %d", s->post_name, rc);
  } else if (!r.bad) {
    float sc = (float)p.scale, cap = (float)p.cap;
    rc = s->cap ? ((DkdvCapFn)s->dkdv)(Q, K, V, dO, LSE, Delta, dK, dV, p.B, p.Hq, p.Sq, p.Hkv, p.Sk, lq.sb, lq.sh,
                                       lq.ss, lk.sb, lk.sh, lk.ss, lv.sb, lv.sh, lv.ss, ldo.sb, ldo.sh, ldo.ss, ldk.sb,
                                       ldk.sh, ldk.ss, ldv.sb, ldv.sh, ldv.ss, sc, cap, p.wl, p.wr, NULL)
                : ((DkdvFn)s->dkdv)(Q, K, V, dO, LSE, Delta, dK, dV, p.B, p.Hq, p.Sq, p.Hkv, p.Sk, lq.sb, lq.sh, lq.ss,
                                    lk.sb, lk.sh, lk.ss, lv.sb, lv.sh, lv.ss, ldo.sb, ldo.sh, ldo.ss, ldk.sb, ldk.sh,
                                    ldk.ss, ldv.sb, ldv.sh, ldv.ss, sc, p.wl, p.wr, NULL);
    if (rc != 0) fail(&r, "%s returned %d", s->dkdv_name, rc);
    rc = s->cap ? ((DqCapFn)s->dq)(Q, K, V, dO, LSE, Delta, dQ, p.B, p.Hq, p.Sq, p.Hkv, p.Sk, lq.sb, lq.sh, lq.ss,
                                   lk.sb, lk.sh, lk.ss, lv.sb, lv.sh, lv.ss, ldo.sb, ldo.sh, ldo.ss, ldq.sb, ldq.sh,
                                   ldq.ss, sc, cap, p.wl, p.wr, NULL)
                : ((DqFn)s->dq)(Q, K, V, dO, LSE, Delta, dQ, p.B, p.Hq, p.Sq, p.Hkv, p.Sk, lq.sb, lq.sh, lq.ss, lk.sb,
                                lk.sh, lk.ss, lv.sb, lv.sh, lv.ss, ldo.sb, ldo.sh, ldo.ss, ldq.sb, ldq.sh, ldq.ss, sc,
                                p.wl, p.wr, NULL);
    if (rc != 0) fail(&r, "%s returned %d", s->dq_name, rc);
  }
  if (!r.bad) {
    double *dq = malloc(sizeof(double) * nq), *dk = malloc(sizeof(double) * nk), *dv = malloc(sizeof(double) * nk);
    double *m[6];
    for (int i = 0; i < 6; i++) m[i] = malloc(sizeof(double) * (i % 3 ? nk : nq));
    ref_backward(&p, q, k, v, dout, dq, dk, dv, m);
    check_tensor(&r, "dQ", dQ, dt, &ldq, p.B, p.Hq, p.Sq, D, dq, m[0], m[3]);
    check_tensor(&r, "dK", dK, dt, &ldk, p.B, p.Hkv, p.Sk, D, dk, m[1], m[4]);
    check_tensor(&r, "dV", dV, dt, &ldv, p.B, p.Hkv, p.Sk, D, dv, m[2], m[5]);
    check_gaps(&r, "dQ", dQ, dt, &ldq, p.B, p.Hq, p.Sq, D);
    check_gaps(&r, "dK", dK, dt, &ldk, p.B, p.Hkv, p.Sk, D);
    check_gaps(&r, "dV", dV, dt, &ldv, p.B, p.Hkv, p.Sk, D);
    for (int i = 0; i < 6; i++)
      if (memcmp(ins[i], copies[i], bytes[i])) fail(&r, "an input (Q, K, V, dO, O or LSE) was modified");
    if (memcmp(Delta, delta_copy, nr * sizeof(float))) fail(&r, "Delta was modified by dkdv, dq or post");
    free(dq), free(dk), free(dv);
    for (int i = 0; i < 6; i++) free(m[i]);
  }
  report(label, &r);
  for (int i = 0; i < 6; i++) free(ins[i]), free(copies[i]);
  free(q), free(k), free(v), free(dout), free(o), free(lse), free(Delta), free(delta_copy), free(dQ), free(dK), free(dV);
  free(dQacc);
}

/* pre alone (for a pre whose dkdv / dq are not there): Delta on random O, dO. */
static void run_pre_only(const Set *s, const Case *c) {
  int dt = s->dt, D = s->D;
  Lay lo = layout(c->lay, 3, c->B, c->Hq, c->Sq, D), ldo = layout(c->lay, 4, c->B, c->Hq, c->Sq, D);
  size_t nr = (size_t)c->B * c->Hq * c->Sq;
  void *O = random_buf(dt, lo.n, -1, 1), *dO = random_buf(dt, ldo.n, -1, 1);
  float *Delta = poisoned(F32, nr + 16);
  Result r = {0};
  char label[300];
  case_label(label, sizeof label, s->pre_name, "pre", c);
  int rc = ((PreFn)s->pre)(O, dO, Delta, c->B, c->Hq, c->Sq, lo.sb, lo.sh, lo.ss, ldo.sb, ldo.sh, ldo.ss, NULL);
  if (rc != 0) fail(&r, "the launcher returned %d", rc);
  check_delta(&r, Delta, O, dO, dt, &lo, &ldo, c->B, c->Hq, c->Sq, D);
  check_tail(&r, "Delta", Delta, nr, 16);
  report(label, &r);
  free(O), free(dO), free(Delta);
}

/* The launchers refuse a null pointer and a zero size (as every gen
** launcher does): the forward, dkdv and dq of s, and its pre if with_pre. */
static void run_bad_args(const Set *s, int with_pre) {
  int D = s->D;
  size_t n = (size_t)4 * D;
  void *x = random_buf(s->dt, n, -1, 1), *y = poisoned(s->dt, n), *y2 = poisoned(s->dt, n);
  float *f = malloc(16 * sizeof(float)), *g = poisoned(F32, 16);
  for (int i = 0; i < 16; i++) f[i] = 1;
  int64_t a = 4 * D, c = D;   /* [1, 1, 4, D] */
  char label[200];
  for (int kind = K_FWD; kind <= K_POST; kind++) {
    int r1 = 0, r2 = 0;   /* a null pointer, a zero size */
    int r3 = -1, r4 = -1; /* Hkv > Hq (1 on 2), Hq not a multiple of Hkv (3 on 2); -1: not tried */
    int r5 = 1;           /* the forward: a window of INT_MAX (windows are below 2^30, as sizes) */
    const char *name = NULL;
    if (kind == K_FWD && s->fwd) {
      name = s->fwd_name;
      if (s->cap) {
        r1 = ((FwdCapFn)s->fwd)(x, NULL, x, y, g, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, 5, -1, 0, NULL);
        r2 = ((FwdCapFn)s->fwd)(x, x, x, y, g, 1, 1, 0, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, 5, -1, 0, NULL);
        r3 = ((FwdCapFn)s->fwd)(x, x, x, y, g, 1, 1, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, 5, -1, 0, NULL);
        r4 = ((FwdCapFn)s->fwd)(x, x, x, y, g, 1, 3, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, 5, -1, 0, NULL);
      } else {
        r1 = ((FwdFn)s->fwd)(x, NULL, x, y, g, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, -1, 0, NULL);
        r2 = ((FwdFn)s->fwd)(x, x, x, y, g, 1, 1, 0, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, -1, 0, NULL);
        r3 = ((FwdFn)s->fwd)(x, x, x, y, g, 1, 1, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, -1, 0, NULL);
        r4 = ((FwdFn)s->fwd)(x, x, x, y, g, 1, 3, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, -1, 0, NULL);
      }
      r5 = s->cap ? ((FwdCapFn)s->fwd)(x, x, x, y, g, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, 5, INT_MAX, 0,
                                       NULL)
                  : ((FwdFn)s->fwd)(x, x, x, y, g, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1, INT_MAX, 0, NULL);
      /* scale (and softcap) must be > 0: the kernel folds them into its
      ** exponent, with the running max taken over the unscaled logits */
      static const float bad[] = {0.0f, -0.125f, NAN};
      Result r = {0};
      for (int i = 0; i < 3; i++) {
        int rs = s->cap ? ((FwdCapFn)s->fwd)(x, x, x, y, g, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, bad[i],
                                            5, -1, 0, NULL)
                        : ((FwdFn)s->fwd)(x, x, x, y, g, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, bad[i], -1,
                                         0, NULL);
        int rc = s->cap ? ((FwdCapFn)s->fwd)(x, x, x, y, g, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, 1,
                                            bad[i], -1, 0, NULL)
                        : 1;
        if (!rs) fail(&r, "returned 0 for scale = %g", bad[i]);
        if (!rc) fail(&r, "returned 0 for softcap = %g", bad[i]);
      }
      snprintf(label, sizeof label, "cpu %s rejects a scale%s that is not > 0", name, s->cap ? " or softcap" : "");
      report(label, &r);
    } else if (kind == K_PRE && s->pre && with_pre) {
      name = s->pre_name;
      r1 = ((PreFn)s->pre)(x, NULL, g, 1, 1, 4, a, a, c, a, a, c, NULL);
      r2 = ((PreFn)s->pre)(x, x, g, 0, 1, 4, a, a, c, a, a, c, NULL);
    } else if (kind == K_DKDV && s->dkdv) {
      name = s->dkdv_name;
      if (s->cap) {
        r1 = ((DkdvCapFn)s->dkdv)(x, x, x, x, f, NULL, y, y2, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a,
                                  c, a, a, c, 1, 5, -1, 0, NULL);
        r2 = ((DkdvCapFn)s->dkdv)(x, x, x, x, f, f, y, y2, 1, 1, 4, 1, 0, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c,
                                  a, a, c, 1, 5, -1, 0, NULL);
        r3 = ((DkdvCapFn)s->dkdv)(x, x, x, x, f, f, y, y2, 1, 1, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c,
                                  a, a, c, 1, 5, -1, 0, NULL);
        r4 = ((DkdvCapFn)s->dkdv)(x, x, x, x, f, f, y, y2, 1, 3, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c,
                                  a, a, c, 1, 5, -1, 0, NULL);
      } else {
        r1 = ((DkdvFn)s->dkdv)(x, x, x, x, f, NULL, y, y2, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c,
                               a, a, c, 1, -1, 0, NULL);
        r2 = ((DkdvFn)s->dkdv)(x, x, x, x, f, f, y, y2, 1, 1, 4, 1, 0, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, a,
                               a, c, 1, -1, 0, NULL);
        r3 = ((DkdvFn)s->dkdv)(x, x, x, x, f, f, y, y2, 1, 1, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, a,
                               a, c, 1, -1, 0, NULL);
        r4 = ((DkdvFn)s->dkdv)(x, x, x, x, f, f, y, y2, 1, 3, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, a,
                               a, c, 1, -1, 0, NULL);
      }
    } else if (kind == K_DQ && s->dq) {
      name = s->dq_name;
      if (s->cap) {
        r1 = ((DqCapFn)s->dq)(NULL, x, x, x, f, f, y, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, 1, 5,
                              -1, 0, NULL);
        r2 = ((DqCapFn)s->dq)(x, x, x, x, f, f, y, 0, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, 1, 5,
                              -1, 0, NULL);
        r3 = ((DqCapFn)s->dq)(x, x, x, x, f, f, y, 1, 1, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, 1, 5,
                              -1, 0, NULL);
        r4 = ((DqCapFn)s->dq)(x, x, x, x, f, f, y, 1, 3, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, 1, 5,
                              -1, 0, NULL);
      } else {
        r1 = ((DqFn)s->dq)(NULL, x, x, x, f, f, y, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, 1, -1, 0,
                           NULL);
        r2 = ((DqFn)s->dq)(x, x, x, x, f, f, y, 0, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, 1, -1, 0,
                           NULL);
        r3 = ((DqFn)s->dq)(x, x, x, x, f, f, y, 1, 1, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, 1, -1, 0,
                           NULL);
        r4 = ((DqFn)s->dq)(x, x, x, x, f, f, y, 1, 3, 4, 2, 4, a, a, c, a, a, c, a, a, c, a, a, c, a, a, c, 1, -1, 0,
                           NULL);
      }
    } else if (kind == K_PREA && s->prea && with_pre) {
      name = s->prea_name;
      r1 = ((PreAFn)s->prea)(x, x, g, NULL, 1, 1, 4, a, a, c, a, a, c, NULL);
      r2 = ((PreAFn)s->prea)(x, x, g, g, 0, 1, 4, a, a, c, a, a, c, NULL);
    } else if (kind == K_DKDVA && s->dkdva) {
      name = s->dkdva_name;
      if (s->cap) {
        r1 = ((DkdvACapFn)s->dkdva)(x, x, x, x, f, f, y, y2, NULL, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c,
                                    a, a, c, a, a, c, 1, 5, -1, 0, NULL);
        r2 = ((DkdvACapFn)s->dkdva)(x, x, x, x, f, f, y, y2, g, 1, 1, 4, 1, 0, a, a, c, a, a, c, a, a, c, a, a, c, a,
                                    a, c, a, a, c, 1, 5, -1, 0, NULL);
      } else {
        r1 = ((DkdvAFn)s->dkdva)(x, x, x, x, f, f, y, y2, NULL, 1, 1, 4, 1, 4, a, a, c, a, a, c, a, a, c, a, a, c, a,
                                 a, c, a, a, c, 1, -1, 0, NULL);
        r2 = ((DkdvAFn)s->dkdva)(x, x, x, x, f, f, y, y2, g, 1, 1, 4, 1, 0, a, a, c, a, a, c, a, a, c, a, a, c, a, a,
                                 c, a, a, c, 1, -1, 0, NULL);
      }
    } else if (kind == K_POST && s->post && with_pre) {
      name = s->post_name;
      r1 = ((PostFn)s->post)(NULL, y, 1, 1, 4, a, a, c, NULL);
      r2 = ((PostFn)s->post)(g, y, 1, 0, 4, a, a, c, NULL);
    }
    if (!name) continue;
    Result r = {0};
    snprintf(label, sizeof label, "cpu %s rejects a null pointer and a zero size", name);
    if (!(r1 && r2)) fail(&r, "returned %d for a null pointer, %d for a zero size", r1, r2);
    report(label, &r);
    if (r3 == -1) continue;
    Result rg = {0};
    snprintf(label, sizeof label, "cpu %s rejects Hkv > Hq, Hq not a multiple of Hkv%s", name,
             kind == K_FWD ? " and a window of INT_MAX" : "");
    if (!(r3 && r4 && r5))
      fail(&rg, "returned %d for Hq 1 on Hkv 2, %d for Hq 3 on Hkv 2, %d for a window of INT_MAX", r3, r4, r5);
    report(label, &rg);
  }
  free(x), free(y), free(y2), free(f), free(g);
}

/* ---------------------------------------------------------------------------
** the launchers of out/c, and the self-test of the driver */

typedef struct Entry { const char *name; int kind, dt, D, cap; AnyFn fn; } Entry;
static Entry entries[512];
static int nentries;
static const char *bad_names[64];
static int nbad;

static void add(const char *name, int kind, int dt, int D, int cap, AnyFn fn) {
  if (nentries < 512) entries[nentries++] = (Entry){name, kind, dt, D, cap, fn};
}

/* The list macros: each checks the launcher's prototype against the ABI
** (a mismatch is a build error under -Werror=incompatible-pointer-types). */
#define FWD(fn, dt, D) add(#fn, K_FWD, dt, D, 0, (AnyFn)(FwdFn){fn});
#define FWD_CAP(fn, dt, D) add(#fn, K_FWD, dt, D, 1, (AnyFn)(FwdCapFn){fn});
#define PRE(fn, dt, D) add(#fn, K_PRE, dt, D, 0, (AnyFn)(PreFn){fn});
#define DKDV(fn, dt, D) add(#fn, K_DKDV, dt, D, 0, (AnyFn)(DkdvFn){fn});
#define DKDV_CAP(fn, dt, D) add(#fn, K_DKDV, dt, D, 1, (AnyFn)(DkdvCapFn){fn});
#define DQ(fn, dt, D) add(#fn, K_DQ, dt, D, 0, (AnyFn)(DqFn){fn});
#define DQ_CAP(fn, dt, D) add(#fn, K_DQ, dt, D, 1, (AnyFn)(DqCapFn){fn});
#define PREA(fn, dt, D) add(#fn, K_PREA, dt, D, 0, (AnyFn)(PreAFn){fn});
#define DKDVA(fn, dt, D) add(#fn, K_DKDVA, dt, D, 0, (AnyFn)(DkdvAFn){fn});
#define DKDVA_CAP(fn, dt, D) add(#fn, K_DKDVA, dt, D, 1, (AnyFn)(DkdvACapFn){fn});
#define POST(fn, dt, D) add(#fn, K_POST, dt, D, 0, (AnyFn)(PostFn){fn});
#define BAD(fn) if (nbad < 64) bad_names[nbad++] = #fn;

/* The set of (dt, D, cap) from the entries; pre, prea and post are shared
** by cap 0 and 1. */
static Set find_set(int dt, int D, int cap) {
  Set s = {dt, D, cap, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  for (int i = 0; i < nentries; i++) {
    const Entry *e = &entries[i];
    int shared = e->kind == K_PRE || e->kind == K_PREA || e->kind == K_POST;
    if (e->dt != dt || e->D != D || (!shared && e->cap != cap)) continue;
    if (e->kind == K_FWD) s.fwd = e->fn, s.fwd_name = e->name;
    if (e->kind == K_PRE) s.pre = e->fn, s.pre_name = e->name;
    if (e->kind == K_DKDV) s.dkdv = e->fn, s.dkdv_name = e->name;
    if (e->kind == K_DQ) s.dq = e->fn, s.dq_name = e->name;
    if (e->kind == K_PREA) s.prea = e->fn, s.prea_name = e->name;
    if (e->kind == K_DKDVA) s.dkdva = e->fn, s.dkdva_name = e->name;
    if (e->kind == K_POST) s.post = e->fn, s.post_name = e->name;
  }
  return s;
}

/* Every check of one set: forward cases, backward cases, bad arguments
** (those of pre if with_pre: pre is shared by two sets). */
static void run_set(const Set *s, int stop_at_first_failure, int with_pre) {
  for (int c = 0; c < NCASES && !(stop_at_first_failure && quiet_fails); c++)
    if (s->fwd) run_forward(s, &cases[c]);
  for (int c = 0; c < NCASES && !(stop_at_first_failure && quiet_fails); c++)
    if (s->pre && s->dkdv && s->dq) run_backward(s, &cases[c], 0);
  for (int c = 0; c < NCASES && !(stop_at_first_failure && quiet_fails); c++)
    if (s->prea && s->dkdva && s->post) run_backward(s, &cases[c], 1);
  if (!(stop_at_first_failure && quiet_fails)) run_bad_args(s, with_pre);
}

/* The mock's launchers as sets. */
static Set mock_set(int which, int cap) {
#define MS(DT, D)                                                                                                  \
  (Set){DT, D, cap, "mock fwd", "mock pre", "mock dkdv", "mock dq",                                               \
        cap ? (AnyFn)(FwdCapFn){mock_fwdc_##DT##_##D} : (AnyFn)(FwdFn){mock_fwd_##DT##_##D},                       \
        (AnyFn)(PreFn){mock_pre_##DT##_##D},                                                                        \
        cap ? (AnyFn)(DkdvCapFn){mock_dkdvc_##DT##_##D} : (AnyFn)(DkdvFn){mock_dkdv_##DT##_##D},                   \
        cap ? (AnyFn)(DqCapFn){mock_dqc_##DT##_##D} : (AnyFn)(DqFn){mock_dq_##DT##_##D}}
  switch (which) {
  case 0: return MS(F16, 32);
  case 1: return MS(BF16, 64);
  case 2: return MS(F16, 128);
  default: return MS(BF16, 128);
  }
#undef MS
}

/* The driver against the mock: correct, it passes every check (and the
** worst err / bound says how much margin a correct f32 kernel keeps); with
** each planted bug, some check fails, for f16 and for bf16. */
static void selftest_driver(void) {
  static const int sets[][2] = {{0, 1}, {1, 0}, {2, 0}, {3, 1}};   /* mock_set(which, cap) */
  quiet = 1, quiet_fails = 0, quiet_worst = 0, mock_bug = M_NONE;
  for (int i = 0; i < 4; i++) {
    Set s = mock_set(sets[i][0], sets[i][1]);
    run_set(&s, 0, 1);
  }
  char why[700];
  snprintf(why, sizeof why, "%d checks failed; first: %s", quiet_fails, quiet_first);
  char label[300];
  snprintf(label, sizeof label, "cpu attention driver self-test: a correct f32 FA2-style mock passes every case "
           "(f16 d32 softcap, bf16 d64, f16 d128, bf16 d128 softcap; error <= %.2f of the bound)", quiet_worst);
  status(label, quiet_fails == 0, why);
  fprintf(stderr, "  the correct mock's largest error relative to its bound: %.2f at %s\n", quiet_worst, quiet_worst_at);
  for (int bug = 1; bug < M_NBUGS; bug++) {
    int caught = 1;
    char where[700] = "";
    for (int i = 0; i < 2; i++) {   /* f16 d32 softcap, bf16 d64 */
      if (i == 1 && (bug == M_CAP_FWD || bug == M_CAP_GRAD)) continue;   /* softcap bugs need a softcap */
      Set s = mock_set(sets[i][0], sets[i][1]);
      quiet_fails = 0, mock_bug = bug;
      run_set(&s, 1, 1);
      if (!quiet_fails) {
        caught = 0;
        snprintf(where, sizeof where, "no check failed for %s d%d", dname[s.dt], s.D);
        break;
      }
      if (i == 0) snprintf(where, sizeof where, "%s", quiet_first);
    }
    snprintf(label, sizeof label, "cpu attention driver self-test: catches a mock with %s", mock_bug_name[bug]);
    if (caught) {
      printf("PASS %s\n", label), passes++;
      fprintf(stderr, "  %s -> %s\n", mock_bug_name[bug], where);
    } else {
      printf("FAIL %s: %s\n", label, where), failures++;
    }
  }
  quiet = 0, mock_bug = M_NONE;
}

int main(void) {
  (void)add;   /* unused when out/c has no attention launcher */
  clock_t t0 = clock();
  selftest_reference();
  selftest_driver();
  fprintf(stderr, "cpu attention: self-tests took %.1f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
  ATTN_LIST
  for (int i = 0; i < nbad; i++)
    printf("FAIL cpu attention: out/c/%s.h does not follow the ABI's names (docs/attention.md)\n", bad_names[i]),
        failures++;
  if (nentries == 0) {
#ifdef ATTN_KERNEL_FILE
    printf("FAIL cpu attention: dsl/kernels/attention.lua exists but out/c has no attention launcher "
           "(./build.sh regenerates out/)\n");
    failures++;
#else
    printf("SKIP cpu attention: no attention launcher in out/c (dsl/kernels/attention.lua is not there yet); "
           "only the self-tests of the reference and the driver ran\n");
#endif
  }
  /* every (dtype, D, cap) that has a launcher; a head dim outside the list
  ** would leave its launchers unchecked: that fails */
  static const int dims[] = {32, 64, 96, 128, 256};
  for (int i = 0; i < nentries; i++) {
    int known = 0;
    for (size_t j = 0; j < sizeof dims / sizeof dims[0]; j++) known |= entries[i].D == dims[j];
    if (!known) printf("FAIL cpu attention: %s has head dim %d, which this driver does not run\n", entries[i].name,
                       entries[i].D), failures++;
  }
  t0 = clock();
  for (int dt = F16; dt <= BF16; dt++)
    for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
      int D = dims[di];
      int pre_used = 0;
      Set s0 = find_set(dt, D, 0);
      for (int cap = 0; cap <= 1; cap++) {
        Set s = find_set(dt, D, cap);
        if (!s.fwd && !s.dkdv && !s.dq) continue;
        int some = s.dkdv || s.dq, all = s.pre && s.dkdv && s.dq;
        if (some && !all) {
          printf("FAIL cpu attention %s d%d%s: the backward is incomplete (pre %s, dkdv %s, dq %s)\n", dname[dt], D,
                 cap ? " softcap" : "", s.pre ? "there" : "missing", s.dkdv ? "there" : "missing",
                 s.dq ? "there" : "missing");
          failures++;
          s.dkdv = s.dq = NULL;
        }
        int some_a = s.prea || s.dkdva, all_a = s.prea && s.dkdva && s.post;
        if (some_a && !all_a && s.dkdva) {
          printf("FAIL cpu attention %s d%d%s: the atomic-dQ backward is incomplete (pre %s, dkdv %s, post %s)\n",
                 dname[dt], D, cap ? " softcap" : "", s.prea ? "there" : "missing", s.dkdva ? "there" : "missing",
                 s.post ? "there" : "missing");
          failures++;
        }
        if (!all_a) s.prea = s.dkdva = s.post = NULL;
        run_set(&s, 0, all && !pre_used);
        pre_used |= all;
      }
      if (s0.pre && !pre_used) {   /* pre with no dkdv / dq beside it: checked alone */
        Set p = {dt, D, 0, NULL, s0.pre_name, NULL, NULL, NULL, s0.pre, NULL, NULL};
        for (int c = 0; c < NCASES; c++) run_pre_only(&p, &cases[c]);
        run_bad_args(&p, 1);
      }
    }
  if (nentries) fprintf(stderr, "cpu attention: %d launchers checked in %.1f s\n", nentries,
                        (double)(clock() - t0) / CLOCKS_PER_SEC);
  fprintf(stderr, "cpu attention: %d passed, %d failed\n", passes, failures);
  return 0;
}
