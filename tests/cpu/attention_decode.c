/*
** attention_decode.c: CPU numerics of dsl/kernels/attention_decode.lua
** (out/c) against a float64 reference.
**
** Each case runs the split launcher (contig, paged or paged64) into a poisoned
** workspace of the rows <launcher>_workspace_rows gives, then the combine
** launcher into poisoned O and LSE, and compares every O element and LSE
** with the reference: query s of sequence b sees keys 0 .. L[b] - Sq + s
** (L clamped to the cache), softmax in float64 over the inputs as stored.
** Cases: ragged lengths with a 0 among them, Sq 1, 4, 16 and 17, GQA 8:1,
** 4:1 and 1:1, page sizes 16, 48 and 256 (paged: its rows16 build where
** the Sq Hq / Hkv rows of a KV head are 16 or fewer, else rows64, both
** on each side of the edge), 64, 192 and 256 (paged64) with the pages
** in shuffled order, a block table entry of -1 and one past the cache
** inside a sequence (those pages' keys are left out), lengths past the
** cache (clamped); a softcap (softcap tanh(logit / softcap)) and a left
** window (query s sees keys L[b] - Sq + s - window_left .. L[b] - Sq + s),
** alone and together, contiguous and paged.  On the CPU k:sm_count() is 1, so a call of one program
** (B x Hkv x row blocks = 1) splits the keys in 2 and the combine merges
** them (in the emulator, 2 SMs: up to 4 splits).  Also: a
** workspace one row short, a negative softcap and a window_left of 2^30
** are refused (1) and nothing is written.
** Runs the variants whose headers are on the include path (all of out/c
** in tests/cpu/run.sh; one, emulated, in tests/emu/drivers.sh).  With
** LT_DECODE_PLAIN=1 (tests/emu/drivers.sh, where it forces a plain build,
** which holds no softcap or window code, on every call) the cases with a
** softcap or a window are left out.
*/
#include "common.h"
/* the variants generated (tests/emu/drivers.sh generates one, -D) */
#if __has_include("attention_decode_f16_d64_contig.h")
#include "attention_decode_f16_d64_combine.h"
#include "attention_decode_f16_d64_contig.h"
#include "attention_decode_f16_d64_paged.h"
#include "attention_decode_f16_d64_paged64.h"
#define F16_D64 1
#endif
#if __has_include("attention_decode_f16_d128_contig.h")
#include "attention_decode_f16_d128_combine.h"
#include "attention_decode_f16_d128_contig.h"
#include "attention_decode_f16_d128_paged.h"
#include "attention_decode_f16_d128_paged64.h"
#define F16_D128 1
#endif
#if __has_include("attention_decode_bf16_d64_contig.h")
#include "attention_decode_bf16_d64_combine.h"
#include "attention_decode_bf16_d64_contig.h"
#include "attention_decode_bf16_d64_paged.h"
#include "attention_decode_bf16_d64_paged64.h"
#define BF16_D64 1
#endif
#if __has_include("attention_decode_bf16_d128_contig.h")
#include "attention_decode_bf16_d128_combine.h"
#include "attention_decode_bf16_d128_contig.h"
#include "attention_decode_bf16_d128_paged.h"
#include "attention_decode_bf16_d128_paged64.h"
#define BF16_D128 1
#endif

typedef int (*contig_fn)(const void *, const void *, const void *, const void *, void *, int, int, int, int, int, int,
                         int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float, float, int,
                         void *);
typedef int (*paged_fn)(const void *, const void *, const void *, const void *, const void *, void *, int, int, int,
                        int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                        int64_t, float, float, int, void *);
typedef int (*combine_fn)(void *, void *, const void *, int, int, int, int, int, int64_t, int64_t, int64_t, void *);
typedef int64_t (*rows_fn)(int, int, int, int);

typedef struct {
  int dt, D;
  contig_fn contig;
  paged_fn paged, paged64;
  combine_fn combine;
  rows_fn rows;
  const char *name;
} Variant;

#define V(dt, DT, d) \
  {DT, d, attention_decode_##dt##_d##d##_contig, attention_decode_##dt##_d##d##_paged, attention_decode_##dt##_d##d##_paged64, \
   attention_decode_##dt##_d##d##_combine, attention_decode_##dt##_d##d##_contig_workspace_rows, #dt "_d" #d}
static const Variant variants[] = {
#ifdef F16_D64
    V(f16, F16, 64),
#endif
#ifdef F16_D128
    V(f16, F16, 128),
#endif
#ifdef BF16_D64
    V(bf16, BF16, 64),
#endif
#ifdef BF16_D128
    V(bf16, BF16, 128),
#endif
};

typedef struct {
  int B, Sq, Hq, Hkv, Smax;   /* contig: the cache's rows; paged: MP * PS */
  int PS;                     /* 0: contiguous */
  int bad_pages;              /* paged: a -1 and an id past the cache inside sequence 0 */
  int wide;                   /* paged: the paged64 launcher (PS a multiple of 64) */
  double softcap;             /* 0: none */
  int wl;                     /* window_left; -1: none */
} Case;

/* The reference of one case into O [B, Sq, Hq, D] and LSE [B, Hq, Sq];
** kv(b, t, h, d) reads key t's K (or V, which = 1) element, NaN where the
** key is left out (a page outside the cache). */
typedef double (*kv_fn)(int which, int b, int t, int h, int d);
static void reference(const Case *c, int dt, int D, const void *Q, const int *L, kv_fn kv, double scale, double *O,
                      double *LSE) {
  int G = c->Hq / c->Hkv;
  double *w = malloc(sizeof(double) * (size_t)(c->Smax + 1));
  for (int b = 0; b < c->B; b++)
    for (int s = 0; s < c->Sq; s++)
      for (int h = 0; h < c->Hq; h++) {
        int len = L[b] < 0 ? 0 : L[b] > c->Smax ? c->Smax : L[b];
        int hi = len - c->Sq + s;   /* the last visible key */
        int lo = c->wl < 0 ? 0 : hi - c->wl;   /* the first */
        double m = -INFINITY;
        for (int t = 0; t < len && t <= hi; t++) {
          w[t] = NAN;
          if (t < lo || isnan(kv(0, b, t, h / G, 0))) continue;
          double x = 0;
          for (int d = 0; d < D; d++)
            x += get(Q, dt, (((size_t)b * c->Sq + s) * c->Hq + h) * D + d) * kv(0, b, t, h / G, d);
          w[t] = c->softcap > 0 ? c->softcap * tanh(x * scale / c->softcap) : x * scale;
          if (w[t] > m) m = w[t];
        }
        double l = 0;
        for (int t = 0; t < len && t <= hi; t++)
          if (!isnan(w[t])) l += exp(w[t] - m);
        double *o = O + (((size_t)b * c->Sq + s) * c->Hq + h) * D;
        for (int d = 0; d < D; d++) {
          double a = 0;
          for (int t = 0; t < len && t <= hi; t++)
            if (!isnan(w[t])) a += exp(w[t] - m) * kv(1, b, t, h / G, d);
          o[d] = l > 0 ? a / l : 0;
        }
        LSE[((size_t)b * c->Hq + h) * c->Sq + s] = l > 0 ? m + log(l) : INFINITY;
      }
  free(w);
}

/* the case being run, for kv() */
static const Case *cur;
static int cur_dt, cur_D;
static const void *cK, *cV;
static const int *cBT;
static int cNP;

static double kv_contig(int which, int b, int t, int h, int d) {
  size_t i = (((size_t)b * cur->Smax + t) * cur->Hkv + h) * cur_D + d;
  return get(which ? cV : cK, cur_dt, i);
}

static double kv_paged(int which, int b, int t, int h, int d) {
  int MP = cur->Smax / cur->PS, page = cBT[b * MP + t / cur->PS];
  if (page < 0 || page >= cNP) return NAN;
  size_t i = (((size_t)page * cur->PS + t % cur->PS) * cur->Hkv + h) * cur_D + d;
  return get(which ? cV : cK, cur_dt, i);
}

/* The split launcher of case c on variant v (all tensors contiguous), with
** a workspace of wr rows, softcap sc and window_left wl. */
static int split(const Variant *v, const Case *c, const void *Q, const void *K, const void *Vv, const int *BT,
                 const int *L, float *Ws, int NP, int wr, double scale, float sc, int wl) {
  int D = v->D, B = c->B, Sq = c->Sq, Hq = c->Hq, Hkv = c->Hkv;
  int64_t sq[3] = {(int64_t)Sq * Hq * D, (int64_t)Hq * D, D};   /* Q's strides */
  if (c->PS) {
    paged_fn paged = c->wide ? v->paged64 : v->paged;
    return paged(Q, K, Vv, BT, L, Ws, B, Sq, Hq, NP, Hkv, c->PS, c->Smax / c->PS, wr, sq[0], sq[1], sq[2],
                 (int64_t)c->PS * Hkv * D, D, (int64_t)Hkv * D, (int64_t)c->PS * Hkv * D, D, (int64_t)Hkv * D,
                 (float)scale, sc, wl, NULL);
  }
  return v->contig(Q, K, Vv, L, Ws, B, Sq, Hq, Hkv, c->Smax, wr, sq[0], sq[1], sq[2],
                   (int64_t)c->Smax * Hkv * D, D, (int64_t)Hkv * D, (int64_t)c->Smax * Hkv * D, D, (int64_t)Hkv * D,
                   (float)scale, sc, wl, NULL);
}

/* Runs case c on variant v and compares. */
static void run_case(const Variant *v, const Case *c, const char *what) {
  int dt = v->dt, D = v->D, B = c->B, Sq = c->Sq, Hq = c->Hq, Hkv = c->Hkv;
  char name[160];
  char extra[64] = "";
  if (c->softcap > 0) snprintf(extra, sizeof extra, " softcap=%g", c->softcap);
  if (c->wl >= 0) snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " window_left=%d", c->wl);
  snprintf(name, sizeof name, "attention_decode %s %s B=%d Sq=%d Hq=%d Hkv=%d S=%d%s%s", v->name, what, B, Sq, Hq,
           Hkv, c->Smax, c->PS ? (c->bad_pages ? " (bad page ids)" : "") : "", extra);
  double scale = 1 / sqrt((double)D);
  void *Q = random_buf(dt, (size_t)B * Sq * Hq * D, -1, 1);
  int *L = malloc(sizeof(int) * (size_t)B);
  for (int b = 0; b < B; b++) L[b] = b == 1 ? 0 : (int)uniform(1, c->Smax + 0.99);
  if (B > 2) L[2] = c->Smax + 5;   /* past the cache: clamped */
  if (B > 3) L[3] = Sq - 1;        /* fewer keys than new queries: the first query sees none */
  int NP = 0, MP = 0;
  int *BT = NULL;
  size_t kvn;
  if (c->PS) {
    MP = c->Smax / c->PS;
    NP = B * MP + 3;   /* spare pages, never named */
    BT = malloc(sizeof(int) * (size_t)B * MP);
    int *perm = malloc(sizeof(int) * (size_t)NP);
    for (int i = 0; i < NP; i++) perm[i] = i;
    for (int i = NP - 1; i > 0; i--) {   /* shuffled */
      int j = (int)uniform(0, i + 0.99), t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    for (int i = 0; i < B * MP; i++) BT[i] = perm[i];
    free(perm);
    if (c->bad_pages && MP >= 3) {
      L[0] = c->Smax;
      BT[1] = -1;         /* a hole in sequence 0 */
      BT[2] = NP + 100;   /* a page past the cache */
    }
    kvn = (size_t)NP * c->PS * Hkv * D;
  } else {
    kvn = (size_t)B * c->Smax * Hkv * D;
  }
  void *K = random_buf(dt, kvn, -1, 1), *Vv = random_buf(dt, kvn, -1, 1);
  int64_t rows = v->rows(B, Sq, Hq, Hkv);
  size_t wsn = (size_t)B * Hkv * (size_t)rows * (D + 4);
  float *Ws = poisoned(F32, wsn);
  void *O = poisoned(dt, (size_t)B * Sq * Hq * D);
  float *LSE = poisoned(F32, (size_t)B * Hq * Sq);
  int64_t sq[3] = {(int64_t)Sq * Hq * D, (int64_t)Hq * D, D};
  /* refused, with nothing written: a workspace one row short, a negative softcap, a window of 2^30 */
  const struct { int wr; float sc; int wl; const char *what; } bad[] = {
      {(int)rows - 1, (float)c->softcap, c->wl, "a short workspace"},
      {(int)rows, -1.0f, c->wl, "a negative softcap"},
      {(int)rows, (float)c->softcap, 1 << 30, "a window_left of 2^30"},
  };
  char why[120];
  int rc;
  for (int i = 0; i < 3; i++) {
    rc = split(v, c, Q, K, Vv, BT, L, Ws, NP, bad[i].wr, scale, bad[i].sc, bad[i].wl);
    int untouched = 1;
    for (size_t j = 0; j < wsn && untouched; j++) untouched = isnan(Ws[j]);
    snprintf(why, sizeof why, "returned %d%s", rc, untouched ? "" : " and wrote");
    char rname[220];
    snprintf(rname, sizeof rname, "%s: %s is refused", name, bad[i].what);
    status(rname, rc == 1 && untouched, why);
  }
  rc = split(v, c, Q, K, Vv, BT, L, Ws, NP, (int)rows, scale, (float)c->softcap, c->wl);
  int rc2 = rc ? rc : v->combine(O, LSE, Ws, B, Sq, Hq, Hkv, (int)rows, sq[0], sq[1], sq[2], NULL);
  if (rc || rc2) {
    snprintf(why, sizeof why, "the launchers returned %d, %d", rc, rc2);
    status(name, 0, why);
  } else {
    cur = c, cur_dt = dt, cur_D = D, cK = K, cV = Vv, cBT = BT, cNP = NP;
    double *ro = malloc(sizeof(double) * (size_t)B * Sq * Hq * D), *rl = malloc(sizeof(double) * (size_t)B * Hq * Sq);
    reference(c, dt, D, Q, L, c->PS ? kv_paged : kv_contig, scale, ro, rl);
    compare(name, dt, O, ro, (size_t)B * Sq * Hq * D);
    int bad = -1;
    for (size_t i = 0; i < (size_t)B * Hq * Sq && bad < 0; i++) {
      double x = LSE[i];
      if (isinf(rl[i]) ? x != rl[i] : !(fabs(x - rl[i]) <= 2e-3 + 2e-3 * fabs(rl[i]))) bad = (int)i;
    }
    snprintf(why, sizeof why, "LSE[%d] is %g, reference %g", bad, bad >= 0 ? LSE[bad] : 0, bad >= 0 ? rl[bad] : 0);
    char lname[220];
    snprintf(lname, sizeof lname, "%s LSE", name);
    status(lname, bad < 0, why);
    free(ro);
    free(rl);
  }
  free(Q), free(L), free(BT), free(K), free(Vv), free(Ws), free(O), free(LSE);
}

int main(void) {
  static const Case contig[] = {
      {1, 1, 4, 1, 300, 0, 0, 0, 0, -1},     /* GQA 4:1, one program: 2 splits */
      {2, 1, 2, 2, 200, 0, 0, 0, 0, -1},     /* 1:1 */
      {5, 4, 8, 2, 130, 0, 0, 0, 0, -1},     /* GQA 4:1, Sq 4, ragged, a 0, one past the cache, one below Sq */
      {5, 4, 8, 2, 300, 0, 0, 0, 0.7, -1},   /* softcap */
      {5, 4, 8, 2, 300, 0, 0, 0, 0, 70},     /* window: the blocks before it are skipped, the split cuts the rest */
      {1, 1, 4, 1, 330, 0, 0, 0, 0.7, 0},    /* both; a window of 0: each query sees its own key only */
      {4, 16, 4, 1, 97, 0, 0, 0, 0, -1},     /* Sq 16 x 4 heads: one row block of 64 */
      {1, 16, 8, 1, 150, 0, 0, 0, 0, -1},    /* 128 rows: two row blocks, 1 split */
      {1, 16, 8, 1, 250, 0, 0, 0, 1.5, 9},   /* the window edge inside the block of every row block */
  };
  /* the paged launcher runs its rows16 build where Sq x Hq / Hkv <= 16, else rows64 */
  static const Case paged[] = {
      {4, 1, 4, 1, 256, 16, 0, 0, 0, -1},      /* page 16; 4 rows: rows16 */
      {2, 4, 8, 1, 160, 16, 0, 0, 0, -1},      /* GQA 8:1, Sq 4: 32 rows, rows64 */
      {3, 4, 2, 2, 240, 48, 0, 0, 0, -1},      /* page 48, 1:1 */
      {1, 1, 4, 1, 384, 64, 0, 1, 0, -1},      /* paged64: page 64, 2 splits */
      {2, 4, 8, 2, 384, 192, 0, 1, 0, -1},     /* paged64: page 192 */
      {3, 4, 8, 2, 256, 16, 0, 0, 0.7, 40},    /* page 16, softcap and window; 16 rows: rows16 */
      {2, 1, 4, 1, 384, 64, 0, 1, 0.7, 100},   /* paged64, softcap and window */
      {5, 1, 16, 2, 512, 256, 0, 0, 0, -1},    /* page 256 in 16-key blocks, GQA 8:1, Sq 1: rows16 */
      {1, 16, 4, 1, 192, 16, 1, 0, 0, -1},     /* a -1 and a page past the cache inside the sequence */
      {1, 1, 4, 1, 384, 64, 1, 1, 0, -1},      /* the same, paged64 */
      {2, 16, 8, 1, 96, 16, 0, 0, 0, -1},      /* GQA 8:1, Sq 16: 128 rows, two rows64 tiles */
      {3, 16, 2, 2, 160, 16, 0, 0, 0, -1},     /* 1:1, Sq 16: 16 rows, rows16 at its edge */
      {2, 17, 1, 1, 112, 16, 0, 0, 0, -1},     /* 17 rows: rows64, one past it */
      {5, 4, 32, 4, 512, 256, 0, 0, 0, -1},    /* page 256, GQA 8:1, Sq 4: rows64 */
      {5, 16, 4, 4, 512, 256, 0, 1, 0, -1},    /* paged64, page 256, 1:1, Sq 16 */
  };
  const char *pe = getenv("LT_DECODE_PLAIN");
  const int plain = pe && strcmp(pe, "1") == 0;
  for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
    const Variant *v = &variants[i];
    /* (d64, the emulator's: the first cases, through the page ids outside the cache) */
    for (size_t j = 0; j < sizeof contig / sizeof *contig; j++)
      if ((v->D == 128 || j < 6) && !(plain && (contig[j].softcap > 0 || contig[j].wl >= 0)))
        run_case(v, &contig[j], "contig");
    for (size_t j = 0; j < sizeof paged / sizeof *paged; j++)
      if ((v->D == 128 || j < 9) && !(plain && (paged[j].softcap > 0 || paged[j].wl >= 0)))
        run_case(v, &paged[j], paged[j].wide ? "paged64" : "paged");
  }
  size_t nv = sizeof variants / sizeof *variants;
  if (nv == 0) printf("FAIL attention_decode: no variant's header found\n");
  printf("%s attention_decode: %zu variants, %d cases passed, %d failed\n", failures || !nv ? "FAIL" : "PASS", nv,
         passes, failures);
  return 0;
}
