/*
** attention_varlen.c: CPU numerics of dsl/kernels/attention_varlen.lua
** (out/c) against a float64 reference.
**
** Each case packs B sequences of ragged query and key lengths into Q
** [TQ, Hq, D] and K, V [TK, Hkv, D] with cu_seqlens_q / _k, runs the
** launcher into O and LSE poisoned with NaN, and checks every element of
** both: a row of sequence b at i < min(len, max_seqlen_q) against the
** reference (query i sees key j where j <= i + Sk - Sq with the causal
** mask, j >= i + Sk - Sq - window_left with a left window, softmax in
** float64 over the inputs as stored; no visible key: O = 0, LSE = +inf),
** and every other row (past the last sequence, past max_seqlen_q) still
** holding its poison.  The key and value rows of a sequence with no
** queries, and the rows past the last sequence, are NaN: a read of them
** by another sequence's program would show in its output.  Cases: lengths
** 0, 1, 12, 37, 1000, B 1 to 5, GQA 4:1 and 1:1, causal and full, a left
** window, Sk > Sq and Sk < Sq, a sequence cut by max_seqlen_q, rows with
** a gap of 8 elements past Hq D (strides not the packed ones), sequences
** that start past row 0 (cu_seqlens[0] > 0: the rows before them stay
** poisoned), and 300 short sequences (the kernel's search for a program's
** sequence goes through all its rounds).  Also the launcher's refusals (Hq
** not a multiple of Hkv, max_seqlen_q = 0, more sequences than the
** kernel's max_seqs = 4096) leave O untouched.  The last line sums up.  Under tests/emu/drivers.sh
** (LT_DUMP set: the emulator, one variant, lane by lane) the cases of 1000
** rows are left out.
*/
#include "common.h"
#if __has_include("attention_varlen_f16_d64.h")
#include "attention_varlen_f16_d64.h"
#define F16_D64 1
#endif
#if __has_include("attention_varlen_f16_d128.h")
#include "attention_varlen_f16_d128.h"
#define F16_D128 1
#endif
#if __has_include("attention_varlen_bf16_d64.h")
#include "attention_varlen_bf16_d64.h"
#define BF16_D64 1
#endif
#if __has_include("attention_varlen_bf16_d128.h")
#include "attention_varlen_bf16_d128.h"
#define BF16_D128 1
#endif

typedef int (*varlen_fn)(const void *, const void *, const void *, void *, void *, const void *, const void *, int, int,
                         int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int, int,
                         float, int, int, void *);

typedef struct {
  int dt, D;
  varlen_fn fn;
  const char *name;
} Variant;

static const Variant variants[] = {
#ifdef F16_D64
    {F16, 64, attention_varlen_f16_d64, "f16_d64"},
#endif
#ifdef F16_D128
    {F16, 128, attention_varlen_f16_d128, "f16_d128"},
#endif
#ifdef BF16_D64
    {BF16, 64, attention_varlen_bf16_d64, "bf16_d64"},
#endif
#ifdef BF16_D128
    {BF16, 128, attention_varlen_bf16_d128, "bf16_d128"},
#endif
    {-1, 0, NULL, NULL}};

enum { MAXB = 8, MANY = 300 };
typedef struct {
  const char *what;
  int B, Hq, Hkv;
  int lq[MAXB], lk[MAXB];   /* B = MANY: made by lengths() */
  int causal, wl;   /* window_right = 0 when causal (else -1); window_left (-1: none) */
  int max_q;        /* 0: the longest query length; else smaller, cutting a sequence */
  int big;          /* holds a sequence of 1000 rows: left out in the emulator */
  int off;          /* the first sequence's first query and key row (cu_seqlens[0]) */
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

/* Is the element of bytes b (dtype size n) the poison 0xff..? */
static int is_poison(const unsigned char *b, int n) {
  for (int i = 0; i < n; i++)
    if (b[i] != 0xff) return 0;
  return 1;
}

/* Runs case c on variant v; one PASS / FAIL line. */
static void run_case(const Variant *v, const Case *c) {
  int dt = v->dt, D = v->D, Hq = c->Hq, Hkv = c->Hkv, G = Hq / Hkv, B = c->B;
  int cq[MANY + 1], ck[MANY + 1], lq[MANY], lk[MANY], max_q = 0, max_k = 0;
  cq[0] = ck[0] = c->off;
  for (int b = 0; b < B; b++) {
    lengths(c, b, &lq[b], &lk[b]);
    cq[b + 1] = cq[b] + lq[b];
    ck[b + 1] = ck[b] + lk[b];
    if (lq[b] > max_q) max_q = lq[b];
    if (lk[b] > max_k) max_k = lk[b];
  }
  if (c->max_q) max_q = c->max_q;
  int TQ = cq[B] + 5, TK = ck[B] + 7;   /* rows past the last sequence: poison */
  int64_t rq = (int64_t)Hq * D + 8, rk = (int64_t)Hkv * D + 8;   /* a row's stride, with a gap */
  size_t nq = (size_t)TQ * rq, nk = (size_t)TK * rk;
  void *Q = poisoned(dt, nq), *K = poisoned(dt, nk), *V = poisoned(dt, nk), *O = poisoned(dt, nq);
  float *LSE = poisoned(F32, (size_t)Hq * TQ);
  /* the inputs of every sequence; the K / V rows of one with no queries stay NaN */
  for (int b = 0; b < B; b++) {
    for (int t = cq[b]; t < cq[b + 1]; t++)
      for (int i = 0; i < Hq * D; i++) put(Q, dt, (size_t)t * rq + i, uniform(-1, 1));
    if (lq[b] == 0) continue;
    for (int t = ck[b]; t < ck[b + 1]; t++)
      for (int i = 0; i < Hkv * D; i++) {
        put(K, dt, (size_t)t * rk + i, uniform(-1, 1));
        put(V, dt, (size_t)t * rk + i, uniform(-1, 1));
      }
  }
  double scale = 1 / sqrt((double)D);
  int rc = v->fn(Q, K, V, O, LSE, cq, ck, Hq, TQ, Hkv, TK, B + 1, D, rq, D, rk, D, rk, D, rq, max_q, max_k,
                 (float)scale, c->wl, c->causal ? 0 : -1, NULL);
  char name[200];
  snprintf(name, sizeof name, "cpu attention_varlen %s %s (B %d, Hq %d, Hkv %d)", v->name, c->what, B, Hq, Hkv);
  if (rc != 0) {
    printf("FAIL %s: the launcher returned %d\n", name, rc);
    failures++;
    goto done;
  }
  double *s = malloc(sizeof(double) * (size_t)(max_k > 0 ? max_k : 1));
  char why[300] = "";
  int n_ok = 0;
  for (int b = 0; b < B && !*why; b++) {
    int Sq = lq[b], Sk = lk[b], diag = Sk - Sq;
    for (int i = 0; i < Sq && !*why; i++)
      for (int h = 0; h < Hq && !*why; h++) {
        size_t orow = (size_t)(cq[b] + i) * rq + (size_t)h * D;
        float lse = LSE[(size_t)h * TQ + cq[b] + i];
        if (i >= max_q) {   /* cut by max_seqlen_q: untouched */
          if (!is_poison((unsigned char *)O + orow * dbytes[dt], D * dbytes[dt]) ||
              !is_poison((unsigned char *)&lse, 4))
            snprintf(why, sizeof why, "row %d of sequence %d (past max_seqlen_q %d) was written", i, b, max_q);
          continue;
        }
        const int hk = h / G;
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < Sk; j++) {
          int vis = j < max_k && (!c->causal || j <= i + diag) && (c->wl < 0 || j >= i + diag - c->wl);
          double d = 0;
          if (vis)
            for (int e = 0; e < D; e++)
              d += get(Q, dt, orow + e) * get(K, dt, (size_t)(ck[b] + j) * rk + (size_t)hk * D + e);
          s[j] = vis ? d * scale : -INFINITY;
          if (s[j] > mx) mx = s[j];
        }
        for (int j = 0; j < Sk; j++) sum += s[j] == -INFINITY ? 0 : exp(s[j] - mx);
        double ref_lse = sum > 0 ? mx + log(sum) : INFINITY;
        if (!(ref_lse == INFINITY ? lse == INFINITY : fabs(lse - ref_lse) <= 1e-3 + 1e-4 * fabs(ref_lse)))
          snprintf(why, sizeof why, "LSE of row %d, head %d of sequence %d is %g, reference %g", i, h, b, lse, ref_lse);
        for (int e = 0; e < D && !*why; e++) {
          double ref = 0;
          for (int j = 0; j < Sk; j++)
            if (s[j] != -INFINITY)
              ref += exp(s[j] - mx) / sum * get(V, dt, (size_t)(ck[b] + j) * rk + (size_t)hk * D + e);
          double o = get(O, dt, orow + e);
          if (isnan(o) || fabs(o - ref) > abs_tol[dt] + rel_tol[dt] * fabs(ref))
            snprintf(why, sizeof why, "O[row %d, head %d, %d] of sequence %d is %g, reference %g", i, h, e, b, o, ref);
        }
        n_ok++;
      }
  }
  /* the rows of no sequence: before the first one, past the last one, and each row's gap */
  for (int t = 0; t < TQ && !*why; t++) {
    int inside = t >= cq[0] && t < cq[B];
    size_t r0 = inside ? (size_t)Hq * D : 0;
    for (size_t i = r0; i < (size_t)rq && !*why; i++)
      if (!is_poison((unsigned char *)O + ((size_t)t * rq + i) * dbytes[dt], dbytes[dt]))
        snprintf(why, sizeof why, "O's element %zu of row %d, outside every sequence, was written", i, t);
    for (int h = 0; h < Hq && !inside && !*why; h++)
      if (!is_poison((unsigned char *)&LSE[(size_t)h * TQ + t], 4))
        snprintf(why, sizeof why, "LSE of row %d, head %d, outside every sequence, was written", t, h);
  }
  free(s);
  status(name, !*why, why);
done:
  free(Q), free(K), free(V), free(O), free(LSE);
}

/* The launcher's refusals: an error code, and O left as it was. */
static void refusals(const Variant *v) {
  int D = v->D, cq[3] = {0, 3, 5}, ck[3] = {0, 4, 9};
  void *Q = random_buf(v->dt, (size_t)5 * 4 * D, -1, 1), *K = random_buf(v->dt, (size_t)9 * 4 * D, -1, 1);
  void *O = poisoned(v->dt, (size_t)5 * 4 * D);
  float *LSE = poisoned(F32, 4 * 5);
  int r1 = v->fn(Q, K, K, O, LSE, cq, ck, 4, 5, 3, 9, 3, D, 4 * D, D, 3 * D, D, 3 * D, D, 4 * D, 3, 5, 0.1f, -1, 0, NULL);
  int r2 = v->fn(Q, K, K, O, LSE, cq, ck, 4, 5, 2, 9, 3, D, 4 * D, D, 2 * D, D, 2 * D, D, 4 * D, 0, 5, 0.1f, -1, 0, NULL);
  /* 4097 sequences (all empty but the first): one more than the search reaches */
  int *many = calloc(4098, sizeof(int));
  for (int b = 1; b < 4098; b++) many[b] = 5;
  int r3 = v->fn(Q, K, K, O, LSE, many, many, 4, 5, 2, 9, 4098, D, 4 * D, D, 2 * D, D, 2 * D, D, 4 * D, 5, 5, 0.1f, -1,
                 0, NULL);
  char name[120];
  snprintf(name, sizeof name, "cpu attention_varlen %s refuses Hq %% Hkv != 0, max_seqlen_q = 0, B > 4096", v->name);
  status(name, r1 != 0 && r2 != 0 && r3 != 0 && is_poison(O, 5 * 4 * D * dbytes[v->dt]),
         "a call was accepted or wrote O");
  free(Q), free(K), free(O), free(LSE), free(many);
}

int main(void) {
  static const Case cases[] = {
      {"one sequence of 12, causal", 1, 4, 4, {12}, {12}, 1, -1, 0, 0, 0},
      {"lengths 0 1 12 37, causal, GQA 4:1", 4, 8, 2, {0, 1, 12, 37}, {5, 1, 12, 37}, 1, -1, 0, 0, 0},
      {"lengths 37 0 12 1 37, full", 5, 4, 1, {37, 0, 12, 1, 37}, {40, 3, 0, 9, 130}, 0, -1, 0, 0, 0},
      {"Sk > Sq and Sk < Sq, causal, window 20", 3, 4, 4, {37, 140, 12}, {200, 70, 12}, 1, 20, 0, 0, 0},
      {"a sequence cut by max_seqlen_q 100", 2, 4, 2, {12, 150}, {12, 150}, 1, -1, 100, 0, 0},
      {"lengths 1000 12 37 1, causal, GQA 4:1", 4, 4, 1, {1000, 12, 37, 1}, {1000, 12, 37, 1}, 1, -1, 0, 1, 0},
      {"lengths 12 1000, full", 2, 2, 2, {12, 1000}, {37, 1000}, 0, -1, 0, 1, 0},
      {"lengths 0 0 1 0 130 0 0 129 from row 77, causal, GQA 4:1", 8, 4, 1, {0, 0, 1, 0, 130, 0, 0, 129},
       {3, 0, 1, 0, 131, 0, 2, 127}, 1, -1, 0, 0, 77},
      {"300 sequences of 0 to 22 from row 3, causal, GQA 2:1", MANY, 2, 1, {0}, {0}, 1, -1, 0, 0, 3},
  };
  int emu = getenv("LT_DUMP") != NULL, nv = 0;
  (void)compare;   /* common.h's; the checks here are row by row */
  for (const Variant *v = variants; v->fn; v++, nv++) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      if (!(emu && cases[i].big)) run_case(v, &cases[i]);
    refusals(v);
  }
  if (!variants[0].fn) {
    printf("FAIL cpu attention_varlen: no attention_varlen_* header on the include path\n");
    failures++;
  }
  printf("%s attention_varlen: %d variants, %d cases passed, %d failed\n", failures ? "FAIL" : "PASS", nv, passes,
         failures);
  return failures ? 1 : 0;
}
