/*
** attention_varlen_bwd.c: CPU numerics of dsl/kernels/attention_varlen_bwd.lua
** (out/c: the dq and dkdv launchers of each dtype and head dim) against a
** float64 reference.
**
** Each case packs B sequences of ragged query and key lengths into Q, dO
** [TQ, Hq, D] and K, V [TK, Hkv, D] (rows of Hq D or Hkv D elements and a
** gap of 8) with cu_seqlens_q / _k.  The reference computes, in float64
** from the inputs as stored, per sequence: P (query i sees key j where j
** <= i + Sk - Sq with the causal mask, j >= i + Sk - Sq - window_left with
** a left window), O, rounded to the dtype, LSE and Delta = rowsum(dO * O)
** stored as f32 (what the forward and attention_bwd_pre give), then dS =
** P (dP - Delta), dQ = scale dS K, dK = scale dS^T Q and dV = P^T dO
** summed over the query heads of a key/value head.  The launchers write
** into dQ, dK and dV poisoned with NaN; every element is checked under
** docs/attention.md's bound, 2 (u (M + |ref|) + tiny (N + 1)), M the sum of
** the absolute terms of the last product, N the same without P; the rows
** and gaps of no sequence must still hold their poison.  Every input row
** of no sequence is NaN, and so are LSE and Delta there, and K and V of a
** sequence with no queries: a read of them into a result would show.
** Cases: lengths 0, 1, 12, 37, 1000, B 1 to 5, GQA 4:1, 2:1 and 1:1,
** causal, full and a left window, Sk above and below Sq, sequences that
** start past row 0, 300 short sequences (the kernel's search through all
** its rounds).  Also the refusals (Hq not a multiple of Hkv, B above the
** kernel's max_seqs = 4096) leave the outputs untouched.  Under
** tests/emu/drivers.sh (LT_DUMP set) the cases of 1000 rows are left out.
*/
#include "common.h"
#if __has_include("attention_varlen_bwd_f16_d64_dq.h")
#include "attention_varlen_bwd_f16_d64_dkdv.h"
#include "attention_varlen_bwd_f16_d64_dq.h"
#define F16_D64 1
#endif
#if __has_include("attention_varlen_bwd_f16_d128_dq.h")
#include "attention_varlen_bwd_f16_d128_dkdv.h"
#include "attention_varlen_bwd_f16_d128_dq.h"
#define F16_D128 1
#endif
#if __has_include("attention_varlen_bwd_bf16_d64_dq.h")
#include "attention_varlen_bwd_bf16_d64_dkdv.h"
#include "attention_varlen_bwd_bf16_d64_dq.h"
#define BF16_D64 1
#endif
#if __has_include("attention_varlen_bwd_bf16_d128_dq.h")
#include "attention_varlen_bwd_bf16_d128_dkdv.h"
#include "attention_varlen_bwd_bf16_d128_dq.h"
#define BF16_D128 1
#endif

typedef int (*dq_fn)(const void *, const void *, const void *, const void *, const void *, const void *, const void *,
                     const void *, void *, int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t,
                     int64_t, int64_t, int64_t, int64_t, int64_t, float, int, int, void *);
typedef int (*dkdv_fn)(const void *, const void *, const void *, const void *, const void *, const void *,
                       const void *, const void *, void *, void *, int, int, int, int, int, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float, int,
                       int, void *);

typedef struct {
  int dt, D;
  dq_fn dq;
  dkdv_fn dkdv;
  const char *name;
} Variant;

static const Variant variants[] = {
#ifdef F16_D64
    {F16, 64, attention_varlen_bwd_f16_d64_dq, attention_varlen_bwd_f16_d64_dkdv, "f16_d64"},
#endif
#ifdef F16_D128
    {F16, 128, attention_varlen_bwd_f16_d128_dq, attention_varlen_bwd_f16_d128_dkdv, "f16_d128"},
#endif
#ifdef BF16_D64
    {BF16, 64, attention_varlen_bwd_bf16_d64_dq, attention_varlen_bwd_bf16_d64_dkdv, "bf16_d64"},
#endif
#ifdef BF16_D128
    {BF16, 128, attention_varlen_bwd_bf16_d128_dq, attention_varlen_bwd_bf16_d128_dkdv, "bf16_d128"},
#endif
    {-1, 0, NULL, NULL, NULL}};

enum { MAXB = 8, MANY = 300 };
typedef struct {
  const char *what;
  int B, Hq, Hkv;
  int lq[MAXB], lk[MAXB];   /* B = MANY: made by lengths() */
  int causal, wl;           /* window_right = 0 when causal (else -1); window_left (-1: none) */
  int big;                  /* holds a sequence of 1000 rows: left out in the emulator */
  int off;                  /* the first sequence's first query and key row (cu_seqlens[0]) */
} Case;

/* The lengths of case c's sequence b: as written, or for the MANY
** sequences 0 to 22 queries (every 7th 0) and a few keys more or fewer. */
static void lengths(const Case *c, int b, int *lq, int *lk) {
  if (c->B <= MAXB) {
    *lq = c->lq[b], *lk = c->lk[b];
    return;
  }
  *lq = b % 7 == 3 ? 0 : (b * 7919) % 23;
  *lk = *lq + b % 5 - 2 < 0 ? 0 : *lq + b % 5 - 2;
}

static int is_poison(const unsigned char *b, int n) {
  for (int i = 0; i < n; i++)
    if (b[i] != 0xff) return 0;
  return 1;
}

/* The bound of docs/attention.md: 2 (u (M + |ref|) + tiny (N + 1)). */
static double bound(int dt, double M, double N, double ref) {
  double u = dt == F16 ? 0x1p-11 : 0x1p-8, tiny = dt == F16 ? 0x1p-25 : 0x1p-134;
  return 2 * (u * (M + fabs(ref)) + tiny * (N + 1));
}

/* Checks out (rows of `row` elements, n_rows of them, H heads of D) against
** ref / M / N (indexed [t][h][d]) where t is a row of a sequence (in[t]),
** and the poison elsewhere; the first failure goes to why. */
static void check(const char *what, int dt, const void *out, size_t row, int n_rows, int H, int D, const char *in,
                  const double *ref, const double *M, const double *N, char *why, size_t nwhy) {
  for (int t = 0; t < n_rows && !*why; t++)
    for (size_t i = 0; i < row && !*why; i++) {
      size_t at = (size_t)t * row + i;
      if (!in[t] || i >= (size_t)H * D) {
        if (!is_poison((const unsigned char *)out + at * dbytes[dt], dbytes[dt]))
          snprintf(why, nwhy, "%s element %zu of row %d, outside every sequence, was written", what, i, t);
        continue;
      }
      size_t r = (size_t)t * H * D + i;
      double o = get(out, dt, at);
      if (isnan(o) || fabs(o - ref[r]) > bound(dt, M[r], N[r], ref[r]))
        snprintf(why, nwhy, "%s[row %d, head %zu, %zu] is %g, reference %g (bound %g)", what, t, i / D, i % D, o,
                 ref[r], bound(dt, M[r], N[r], ref[r]));
    }
}

/* Runs case c on variant v: the reference, both launchers, the checks;
** one PASS / FAIL line. */
static void run_case(const Variant *v, const Case *c) {
  int dt = v->dt, D = v->D, Hq = c->Hq, Hkv = c->Hkv, G = Hq / Hkv, B = c->B;
  int cq[MANY + 1], ck[MANY + 1], lq[MANY], lk[MANY];
  cq[0] = ck[0] = c->off;
  for (int b = 0; b < B; b++) {
    lengths(c, b, &lq[b], &lk[b]);
    cq[b + 1] = cq[b] + lq[b];
    ck[b + 1] = ck[b] + lk[b];
  }
  int TQ = cq[B] + 5, TK = ck[B] + 7;
  int64_t rq = (int64_t)Hq * D + 8, rk = (int64_t)Hkv * D + 8;
  size_t nq = (size_t)TQ * rq, nk = (size_t)TK * rk, hq = (size_t)TQ * Hq * D, hk = (size_t)TK * Hkv * D;
  void *Q = poisoned(dt, nq), *dO = poisoned(dt, nq), *K = poisoned(dt, nk), *V = poisoned(dt, nk);
  void *O = poisoned(dt, nq), *dQ = poisoned(dt, nq), *dK = poisoned(dt, nk), *dV = poisoned(dt, nk);
  float *LSE = poisoned(F32, (size_t)Hq * TQ), *Delta = poisoned(F32, (size_t)Hq * TQ);
  double *rQ = calloc(hq, 8), *mQ = calloc(hq, 8), *nQ = calloc(hq, 8);
  double *rK = calloc(hk, 8), *mK = calloc(hk, 8), *nK = calloc(hk, 8);
  double *rV = calloc(hk, 8), *mV = calloc(hk, 8), *nV = calloc(hk, 8);
  char *inq = calloc((size_t)TQ, 1), *ink = calloc((size_t)TK, 1);
  for (int b = 0; b < B; b++) {
    for (int t = cq[b]; t < cq[b + 1]; t++) {
      inq[t] = 1;
      for (int i = 0; i < Hq * D; i++) {
        put(Q, dt, (size_t)t * rq + i, uniform(-1, 1));
        put(dO, dt, (size_t)t * rq + i, uniform(-1, 1));
      }
    }
    for (int t = ck[b]; t < ck[b + 1]; t++) {
      ink[t] = 1;
      if (lq[b] == 0) continue;   /* K and V of a sequence with no queries stay NaN */
      for (int i = 0; i < Hkv * D; i++) {
        put(K, dt, (size_t)t * rk + i, uniform(-1, 1));
        put(V, dt, (size_t)t * rk + i, uniform(-1, 1));
      }
    }
  }
  double scale = 2 / sqrt((double)D);
  int maxk = 1;
  for (int b = 0; b < B; b++) maxk = lk[b] > maxk ? lk[b] : maxk;
  double *p = malloc(sizeof(double) * (size_t)maxk), *dp = malloc(sizeof(double) * (size_t)maxk);
  char *vis = malloc((size_t)maxk);
  /* the reference, one (sequence, head, query row) at a time */
  for (int b = 0; b < B; b++) {
    int Sq = lq[b], Sk = lk[b], diag = Sk - Sq;
    for (int h = 0; h < Hq; h++) {
      const int kh = h / G;
      for (int i = 0; i < Sq; i++) {
        int t = cq[b] + i;
        size_t qrow = (size_t)t * rq + (size_t)h * D;
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < Sk; j++) {
          vis[j] = (!c->causal || j <= i + diag) && (c->wl < 0 || j >= i + diag - c->wl);
          double d = 0;
          if (vis[j])
            for (int e = 0; e < D; e++) d += get(Q, dt, qrow + e) * get(K, dt, (size_t)(ck[b] + j) * rk + kh * D + e);
          p[j] = d * scale;
          if (vis[j] && p[j] > mx) mx = p[j];
        }
        for (int j = 0; j < Sk; j++) sum += vis[j] ? exp(p[j] - mx) : 0;
        double lse = sum > 0 ? mx + log(sum) : INFINITY;
        LSE[(size_t)h * TQ + t] = (float)lse;
        for (int j = 0; j < Sk; j++) p[j] = vis[j] ? exp(p[j] - (double)LSE[(size_t)h * TQ + t]) : 0;
        double delta = 0, absdo = 0;
        for (int e = 0; e < D; e++) {
          double o = 0;
          for (int j = 0; j < Sk; j++)
            if (vis[j]) o += p[j] * get(V, dt, (size_t)(ck[b] + j) * rk + kh * D + e);
          put(O, dt, qrow + e, o);
          delta += get(dO, dt, qrow + e) * get(O, dt, qrow + e);
          absdo += fabs(get(dO, dt, qrow + e) * get(O, dt, qrow + e));
        }
        Delta[(size_t)h * TQ + t] = (float)delta;
        delta = Delta[(size_t)h * TQ + t];
        for (int j = 0; j < Sk; j++) {
          dp[j] = 0;
          if (vis[j])
            for (int e = 0; e < D; e++)
              dp[j] += get(dO, dt, qrow + e) * get(V, dt, (size_t)(ck[b] + j) * rk + kh * D + e);
        }
        size_t rq0 = ((size_t)t * Hq + h) * D;
        for (int j = 0; j < Sk; j++) {
          if (!vis[j]) continue;
          double ds = p[j] * (dp[j] - delta), w = fabs(dp[j]) + fabs(delta) + absdo;
          size_t kr = ((size_t)(ck[b] + j) * Hkv + kh) * D, krow = (size_t)(ck[b] + j) * rk + kh * D;
          for (int e = 0; e < D; e++) {
            double kv = get(K, dt, krow + e), qv = get(Q, dt, qrow + e), dov = get(dO, dt, qrow + e);
            rQ[rq0 + e] += scale * ds * kv, mQ[rq0 + e] += scale * p[j] * w * fabs(kv), nQ[rq0 + e] += scale * w * fabs(kv);
            rK[kr + e] += scale * ds * qv, mK[kr + e] += scale * p[j] * w * fabs(qv), nK[kr + e] += scale * w * fabs(qv);
            rV[kr + e] += p[j] * dov, mV[kr + e] += p[j] * fabs(dov), nV[kr + e] += fabs(dov);
          }
        }
      }
    }
  }
  char name[200], why[300] = "";
  snprintf(name, sizeof name, "cpu attention_varlen_bwd %s %s (B %d, Hq %d, Hkv %d)", v->name, c->what, B, Hq, Hkv);
  int wr = c->causal ? 0 : -1;
  int r1 = v->dq(Q, K, V, dO, LSE, Delta, cq, ck, dQ, Hq, TQ, Hkv, TK, B + 1, D, rq, D, rk, D, rk, D, rq, D, rq,
                 (float)scale, c->wl, wr, NULL);
  int r2 = v->dkdv(Q, K, V, dO, LSE, Delta, cq, ck, dK, dV, Hq, TQ, Hkv, TK, B + 1, D, rq, D, rk, D, rk, D, rq, D, rk,
                   D, rk, (float)scale, c->wl, wr, NULL);
  if (r1 || r2) snprintf(why, sizeof why, "the launchers returned %d (dq), %d (dkdv)", r1, r2);
  if (!*why) check("dQ", dt, dQ, (size_t)rq, TQ, Hq, D, inq, rQ, mQ, nQ, why, sizeof why);
  if (!*why) check("dK", dt, dK, (size_t)rk, TK, Hkv, D, ink, rK, mK, nK, why, sizeof why);
  if (!*why) check("dV", dt, dV, (size_t)rk, TK, Hkv, D, ink, rV, mV, nV, why, sizeof why);
  status(name, !*why, why);
  free(Q), free(dO), free(K), free(V), free(O), free(dQ), free(dK), free(dV), free(LSE), free(Delta);
  free(rQ), free(mQ), free(nQ), free(rK), free(mK), free(nK), free(rV), free(mV), free(nV);
  free(inq), free(ink), free(p), free(dp), free(vis);
}

/* The launchers' refusals: an error code, and the outputs left as they were. */
static void refusals(const Variant *v) {
  int D = v->D, cq[3] = {0, 3, 5}, ck[3] = {0, 4, 9};
  void *Q = random_buf(v->dt, (size_t)5 * 4 * D, -1, 1), *K = random_buf(v->dt, (size_t)9 * 4 * D, -1, 1);
  float *L = calloc(4 * 5, sizeof(float));
  void *dQ = poisoned(v->dt, (size_t)5 * 4 * D), *dK = poisoned(v->dt, (size_t)9 * 4 * D);
  int *many = calloc(4098, sizeof(int));
  for (int b = 1; b < 4098; b++) many[b] = 5;
  int rc[4] = {
      v->dq(Q, K, K, Q, L, L, cq, ck, dQ, 4, 5, 3, 9, 3, D, 4 * D, D, 3 * D, D, 3 * D, D, 4 * D, D, 4 * D, 0.1f, -1, 0,
            NULL),
      v->dkdv(Q, K, K, Q, L, L, cq, ck, dK, dK, 4, 5, 3, 9, 3, D, 4 * D, D, 3 * D, D, 3 * D, D, 4 * D, D, 3 * D, D,
              3 * D, 0.1f, -1, 0, NULL),
      v->dq(Q, K, K, Q, L, L, many, many, dQ, 4, 5, 2, 9, 4098, D, 4 * D, D, 2 * D, D, 2 * D, D, 4 * D, D, 4 * D, 0.1f,
            -1, 0, NULL),
      v->dkdv(Q, K, K, Q, L, L, many, many, dK, dK, 4, 5, 2, 9, 4098, D, 4 * D, D, 2 * D, D, 2 * D, D, 4 * D, D,
              2 * D, D, 2 * D, 0.1f, -1, 0, NULL)};
  char name[120];
  snprintf(name, sizeof name, "cpu attention_varlen_bwd %s refuses Hq %% Hkv != 0 and B > 4096", v->name);
  status(name,
         rc[0] && rc[1] && rc[2] && rc[3] && is_poison(dQ, 5 * 4 * D * dbytes[v->dt]) &&
             is_poison(dK, 9 * 4 * D * dbytes[v->dt]),
         "a call was accepted or wrote an output");
  free(Q), free(K), free(L), free(dQ), free(dK), free(many);
}

int main(void) {
  static const Case cases[] = {
      {"one sequence of 12, causal", 1, 4, 4, {12}, {12}, 1, -1, 0, 0},
      {"lengths 0 1 12 37, causal, GQA 4:1", 4, 8, 2, {0, 1, 12, 37}, {5, 1, 12, 37}, 1, -1, 0, 0},
      {"lengths 37 0 12 1 37, full", 5, 4, 1, {37, 0, 12, 1, 37}, {40, 3, 0, 9, 130}, 0, -1, 0, 0},
      {"Sk > Sq and Sk < Sq, causal, window 20", 3, 4, 4, {37, 140, 12}, {200, 70, 12}, 1, 20, 0, 0},
      {"lengths 0 0 1 0 130 0 0 129 from row 77, causal, GQA 4:1", 8, 4, 1, {0, 0, 1, 0, 130, 0, 0, 129},
       {3, 0, 1, 0, 131, 0, 2, 127}, 1, -1, 0, 77},
      {"300 sequences of 0 to 22 from row 3, causal, GQA 2:1", MANY, 2, 1, {0}, {0}, 1, -1, 0, 3},
      {"lengths 1000 12 37 1, causal, GQA 4:1", 4, 4, 1, {1000, 12, 37, 1}, {1000, 12, 37, 1}, 1, -1, 1, 0},
  };
  int emu = getenv("LT_DUMP") != NULL, nv = 0;
  (void)compare;   /* common.h's; the checks here are element by element */
  for (const Variant *v = variants; v->dq; v++, nv++) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      if (!(emu && cases[i].big)) run_case(v, &cases[i]);
    refusals(v);
  }
  if (!variants[0].dq) {
    printf("FAIL cpu attention_varlen_bwd: no attention_varlen_bwd_* header on the include path\n");
    failures++;
  }
  printf("%s attention_varlen_bwd: %d variants, %d cases passed, %d failed\n", failures ? "FAIL" : "PASS", nv, passes,
         failures);
  return failures ? 1 : 0;
}
