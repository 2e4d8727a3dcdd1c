/*
** check.c: CPU numerics of every shipped kernel and variant, through the
** c target (the .c files of out/c, built beside this file).
**
** Each case draws random inputs (never zeros) of a ragged shape, rounds
** them to the variant's dtype, poisons the output with NaN bytes, runs the
** generated launcher and compares every element with a float64 reference
** computed here from the same rounded inputs:
**     |out - ref| <= atol + rtol * |ref|  per dtype, and no NaN anywhere.
** It also checks that the launchers reject null pointers and bad sizes.
** The index kernels (embedding, cross_entropy) get indices inside, negative
** and past the end, and ignored labels.
** Prints PASS / FAIL lines; exit status 0.
*/
#include "add_bf16.h"
#include "add_f16.h"
#include "add_f32.h"
#include "bias_gelu_bf16.h"
#include "bias_gelu_f16.h"
#include "bias_gelu_f32.h"
#include "cross_entropy_bf16_bwd.h"
#include "cross_entropy_bf16_i64_bwd.h"
#include "cross_entropy_bf16_i64_fwd.h"
#include "cross_entropy_f16_i64_bwd.h"
#include "cross_entropy_f16_i64_fwd.h"
#include "cross_entropy_f32_i64_bwd.h"
#include "cross_entropy_f32_i64_fwd.h"
#include "embedding_bf16_i64_bwd.h"
#include "embedding_bf16_i64_det.h"
#include "embedding_bf16_i64_fwd.h"
#include "embedding_f16_i64_bwd.h"
#include "embedding_f16_i64_det.h"
#include "embedding_f16_i64_fwd.h"
#include "embedding_f32_i64_bwd.h"
#include "embedding_f32_i64_det.h"
#include "embedding_f32_i64_fwd.h"
#include "cross_entropy_bf16_fwd.h"
#include "cross_entropy_f16_bwd.h"
#include "cross_entropy_f16_fwd.h"
#include "cross_entropy_f32_bwd.h"
#include "cross_entropy_f32_fwd.h"
#include "embedding_bf16_bwd.h"
#include "embedding_bf16_det.h"
#include "embedding_bf16_fwd.h"
#include "embedding_f16_bwd.h"
#include "embedding_f16_det.h"
#include "embedding_f16_fwd.h"
#include "embedding_f32_bwd.h"
#include "embedding_f32_det.h"
#include "embedding_f32_fwd.h"
#include "layernorm_bf16.h"
#include "layernorm_f16.h"
#include "layernorm_f32.h"
#include "rmsnorm_bf16.h"
#include "rmsnorm_f16.h"
#include "rmsnorm_f32.h"
#include "softmax_bf16.h"
#include "softmax_f16.h"
#include "softmax_f32.h"

#include "common.h"

typedef int (*AddFn)(const void *, const void *, void *, int, void *);
typedef int (*BiasFn)(const void *, const void *, void *, int, int, void *);
typedef int (*SoftmaxFn)(const void *, void *, int, int, void *);
typedef int (*RmsFn)(const void *, const void *, void *, int, int, float, void *);
typedef int (*LnFn)(const void *, const void *, const void *, void *, int, int, float, void *);

static void test_add(int dt, AddFn fn) {
  static const int sizes[] = {1, 7, 4095, 4097, 10001};
  for (int s = 0; s < 5; s++) {
    int n = sizes[s];
    void *x = random_buf(dt, (size_t)n, -3, 3), *y = random_buf(dt, (size_t)n, -3, 3), *z = poisoned(dt, (size_t)n);
    double *ref = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) ref[i] = get(x, dt, (size_t)i) + get(y, dt, (size_t)i);
    char name[64];
    snprintf(name, sizeof name, "cpu add_%s N=%d", dname[dt], n);
    if (fn(x, y, z, n, NULL) != 0) status(name, 0, "launcher returned an error");
    else compare(name, dt, z, ref, (size_t)n);
    free(x), free(y), free(z), free(ref);
  }
  char name[64];
  snprintf(name, sizeof name, "cpu add_%s rejects bad arguments", dname[dt]);
  int buf[4];
  status(name, fn(NULL, buf, buf, 4, NULL) != 0 && fn(buf, buf, buf, 0, NULL) != 0 && fn(buf, buf, buf, -3, NULL) != 0 &&
                   fn(buf, buf, buf, 1 << 30, NULL) != 0 && fn(buf, buf, buf, 2147483647, NULL) != 0,
         "a null pointer, a size <= 0 or a size >= 2^30 (int index overflow) was accepted");
}

/* One unit in the last place of f16 (11 significant bits) or bf16 (8) at
** v: the spacing of that dtype's values around v, the subnormal spacing
** below its normal range. */
static double ulp16(int dt, double v) {
  int e, emin = dt == F16 ? -13 : -125;
  frexp(v, &e);
  if (v == 0 || e < emin) e = emin;
  return ldexp(1.0, e - (dt == F16 ? 11 : 8));
}

/* The 16-bit variants compute Phi without erf (bias_gelu.lua): every
** element within one unit in the last place of the float64 GELU (the
** rounding of an f32 result within 1e-4 of it, relatively), or within 1e-8
** where the result is that small.  A last row spans [-12, 12], through the
** polynomial's clamp at |x| = 5.5 and past q's flush to zero. */
static void test_bias_gelu(int dt, BiasFn fn) {
  static const int shapes[][2] = {{1, 1}, {13, 700}, {9, 1025}, {17, 512}, {7, 3001}};
  for (int s = 0; s < 5; s++) {
    int M = shapes[s][0], N = shapes[s][1];
    size_t n = (size_t)M * (size_t)N;
    double span = s == 4 ? 12 : 3;
    void *x = random_buf(dt, n, -span, span), *b = random_buf(dt, (size_t)N, -1, 1), *y = poisoned(dt, n);
    double *ref = malloc(sizeof(double) * n);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double h = get(x, dt, (size_t)i * (size_t)N + (size_t)j) + get(b, dt, (size_t)j);
        ref[(size_t)i * (size_t)N + (size_t)j] = 0.5 * h * (1 + erf(h / sqrt(2.0)));
      }
    char name[64];
    snprintf(name, sizeof name, "cpu bias_gelu_%s %dx%d", dname[dt], M, N);
    if (fn(x, b, y, M, N, NULL) != 0) status(name, 0, "launcher returned an error");
    else compare(name, dt, y, ref, n);
    if (dt != F32) {
      size_t bad = n;
      for (size_t i = 0; i < n && bad == n; i++)
        if (!(fabs(get(y, dt, i) - ref[i]) <= ulp16(dt, ref[i]) + 1e-8)) bad = i;
      char why[128];
      if (bad < n) snprintf(why, sizeof why, "element %zu is %.9g, reference %.9g", bad, get(y, dt, bad), ref[bad]);
      snprintf(name, sizeof name, "cpu bias_gelu_%s %dx%d within one ulp", dname[dt], M, N);
      status(name, bad == n, bad < n ? why : "");
    }
    free(x), free(b), free(y), free(ref);
  }
}

/* one chunk (full, ragged, tiny), several chunks, and odd lengths (7, a
** vocabulary of 50257, 128256 + 3) */
static const int row_shapes[][2] = {{1, 1}, {3, 1000}, {5, 4096}, {2, 4097}, {3, 9000}, {4, 77},
                                    {2, 7}, {3, 50257}, {2, 128259}};
#define NROW (int)(sizeof row_shapes / sizeof row_shapes[0])

static void test_softmax(int dt, SoftmaxFn fn) {
  for (int s = 0; s < NROW; s++) {
    int R = row_shapes[s][0], C = row_shapes[s][1];
    size_t n = (size_t)R * (size_t)C;
    void *x = random_buf(dt, n, -6, 6), *y = poisoned(dt, n);
    double *ref = malloc(sizeof(double) * n);
    /* a ramp along odd rows: later chunks raise the running max, which a
    ** long-row kernel must rescale its running sum for */
    for (int r = 1; r < R; r += 2)
      for (int c = 0; c < C; c++) put(x, dt, (size_t)r * C + c, get(x, dt, (size_t)r * C + c) + 12.0 * c / C);
    for (int r = 0; r < R; r++) {
      double m = -INFINITY, sum = 0;
      for (int c = 0; c < C; c++) m = fmax(m, get(x, dt, (size_t)r * C + c));
      for (int c = 0; c < C; c++) sum += exp(get(x, dt, (size_t)r * C + c) - m);
      for (int c = 0; c < C; c++) ref[(size_t)r * C + c] = exp(get(x, dt, (size_t)r * C + c) - m) / sum;
    }
    char name[64];
    snprintf(name, sizeof name, "cpu softmax_%s %dx%d", dname[dt], R, C);
    if (fn(x, y, R, C, NULL) != 0) status(name, 0, "launcher returned an error");
    else compare(name, dt, y, ref, n);
    free(x), free(y), free(ref);
  }
}

static void test_norm(int dt, RmsFn rms, LnFn ln) {
  for (int s = 0; s < NROW; s++) {
    int R = row_shapes[s][0], C = row_shapes[s][1];
    size_t n = (size_t)R * (size_t)C;
    const float eps = 1e-5f;
    /* LayerNorm sees rows around an offset on every other shape: 1000 for
    ** f16 and bf16, where a variance taken as E[x^2] - mean^2 comes out
    ** negative (NaN), and 10 for f32, whose 2e-5 tolerance is finer than what
    ** summing 9000 values near 1000 in f32 keeps of the mean. */
    const double off = !ln || s % 2 == 0 ? 0 : dt == F32 ? 10 : 1000;
    void *x = random_buf(dt, n, off - 3, off + 3), *w = random_buf(dt, (size_t)C, 0.5, 1.5), *b = random_buf(dt, (size_t)C, -1, 1);
    void *y = poisoned(dt, n);
    double *ref = malloc(sizeof(double) * n);
    char name[64];
    if (rms) {
      for (int r = 0; r < R; r++) {
        double ss = 0;
        for (int c = 0; c < C; c++) ss += get(x, dt, (size_t)r * C + c) * get(x, dt, (size_t)r * C + c);
        double rstd = 1 / sqrt(ss / C + eps);
        for (int c = 0; c < C; c++) ref[(size_t)r * C + c] = get(x, dt, (size_t)r * C + c) * rstd * get(w, dt, (size_t)c);
      }
      snprintf(name, sizeof name, "cpu rmsnorm_%s %dx%d", dname[dt], R, C);
      if (rms(x, w, y, R, C, eps, NULL) != 0) status(name, 0, "launcher returned an error");
      else compare(name, dt, y, ref, n);
    } else {
      for (int r = 0; r < R; r++) {
        double mean = 0, var = 0;
        for (int c = 0; c < C; c++) mean += get(x, dt, (size_t)r * C + c);
        mean /= C;
        for (int c = 0; c < C; c++) var += pow(get(x, dt, (size_t)r * C + c) - mean, 2);
        double rstd = 1 / sqrt(var / C + eps);
        for (int c = 0; c < C; c++)
          ref[(size_t)r * C + c] = (get(x, dt, (size_t)r * C + c) - mean) * rstd * get(w, dt, (size_t)c) + get(b, dt, (size_t)c);
      }
      snprintf(name, sizeof name, "cpu layernorm_%s %dx%d", dname[dt], R, C);
      if (ln(x, w, b, y, R, C, eps, NULL) != 0) status(name, 0, "launcher returned an error");
      else compare(name, dt, y, ref, n);
    }
    free(x), free(w), free(b), free(y), free(ref);
  }
}

typedef int (*EmbFwdFn)(const void *, const void *, void *, int, int, int, void *);
typedef int (*EmbBwdFn)(const void *, const void *, void *, int, int, int, int, void *);
typedef int (*EmbBwd64Fn)(const void *, const void *, void *, int, int, int, int64_t, void *);
typedef int (*EmbDetFn)(const void *, const void *, const void *, const void *, void *, int, int, int, int, void *);
typedef int (*EmbDet64Fn)(const void *, const void *, const void *, const void *, void *, int, int, int, int64_t, void *);

/* The indices as the kernel takes them: int32, or int64 (i64 set). */
static void *index_buf(const int64_t *v, int n, int i64) {
  void *p = malloc((i64 ? 8 : 4) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    if (i64) ((int64_t *)p)[i] = v[i];
    else ((int32_t *)p)[i] = (int32_t)v[i];
  }
  return p;
}

/* An index outside [0, V): negative, just past the end, or (int64 only)
** 2^32 + a row inside, which a cut to 32 bits would read as that row. */
static int64_t outside_index(int V, int i64) {
  int u = (int)uniform(0, 3);
  return u == 0 ? -1 - (int)uniform(0, 3) : u == 1 || !i64 ? V + (int)uniform(0, 3) : (1LL << 32) + (int)uniform(0, V - 0.001);
}

/* The deterministic backward's inputs for indices ids[0..N): S the
** indices sorted (stably: equal ones keep their order), P each one's
** position in ids, E the end of each one's run of equal indices. */
static void det_inputs(const int64_t *ids, int N, int64_t *S, int32_t *P, int32_t *E) {
  for (int i = 0; i < N; i++) {   /* insertion sort of the positions by index: stable */
    int j = i;
    for (; j > 0 && ids[P[j - 1]] > ids[i]; j--) P[j] = P[j - 1];
    P[j] = i;
  }
  for (int i = 0; i < N; i++) S[i] = ids[P[i]];
  for (int i = N - 1; i >= 0; i--) E[i] = i + 1 < N && S[i + 1] == S[i] ? E[i + 1] : i + 1;
}

/* embedding's deterministic backward (det / det64) on indices ids: the rows
** named by an index inside dW other than pad get their sum of dY's rows,
** rounded to dt; every other row keeps what dW held (0.25 here); and a
** second call writes the same bytes. */
static void test_embedding_det(int dt, EmbDetFn det, EmbDet64Fn det64, const int64_t *ids, const void *dy, int V,
                               int N, int D, int pad) {
  int i64 = det64 != NULL;
  size_t nw = (size_t)V * D;
  int64_t *S = malloc(sizeof(int64_t) * N);
  int32_t *P = malloc(sizeof(int32_t) * N), *E = malloc(sizeof(int32_t) * N);
  det_inputs(ids, N, S, P, E);
  void *Sb = index_buf(S, N, i64), *dw = random_buf(dt, nw, 0, 1), *dw2 = random_buf(dt, nw, 0, 1);
  double *rw = malloc(sizeof(double) * nw);
  for (size_t i = 0; i < nw; i++) put(dw, dt, i, 0.25), put(dw2, dt, i, 0.25), rw[i] = 0.25;
  for (int i = 0; i < N; i++)
    if (ids[i] >= 0 && ids[i] < V && ids[i] != pad)
      for (int d = 0; d < D; d++) rw[(size_t)ids[i] * D + d] = 0;
  for (int i = 0; i < N; i++)
    if (ids[i] >= 0 && ids[i] < V && ids[i] != pad)
      for (int d = 0; d < D; d++) rw[(size_t)ids[i] * D + d] += get(dy, dt, (size_t)i * D + d);
  char name[96];
  snprintf(name, sizeof name, "cpu embedding_%s%s_det V=%d N=%d D=%d pad=%d", dname[dt], i64 ? "_i64" : "", V, N, D, pad);
  int rc = i64 ? det64(dy, Sb, P, E, dw, N, D, V, pad, NULL) : det(dy, Sb, P, E, dw, N, D, V, pad, NULL);
  int rc2 = i64 ? det64(dy, Sb, P, E, dw2, N, D, V, pad, NULL) : det(dy, Sb, P, E, dw2, N, D, V, pad, NULL);
  if (rc != 0 || rc2 != 0) status(name, 0, "launcher returned an error");
  else if (memcmp(dw, dw2, nw * (dt == F32 ? 4 : 2)) != 0) status(name, 0, "two calls wrote different bytes");
  else compare(name, dt, dw, rw, nw);
  free(S), free(P), free(E), free(Sb), free(dw), free(dw2), free(rw);
}

/* embedding forward Y[i] = W[I[i]] (0 for an index outside W) and backward
** dW[I[i]] += dY[i] (I[i] != pad; outside dW dropped), dW starting at 0.5;
** int32 indices (bwd, det) or int64 ones (bwd64, det64); the deterministic
** backward on the same indices, and on indices with long runs of one row. */
static void test_embedding(int dt, EmbFwdFn fwd, EmbBwdFn bwd, EmbBwd64Fn bwd64, EmbDetFn det, EmbDet64Fn det64) {
  int i64 = bwd64 != NULL;
  static const int shapes[][3] = {{1, 1, 1}, {50, 37, 64}, {7, 100, 1030}, {300, 9, 4096}, {20, 33, 77}};
  for (int s = 0; s < 5; s++) {
    int V = shapes[s][0], N = shapes[s][1], D = shapes[s][2], pad = s % 2 ? 3 % V : -1;
    size_t nw = (size_t)V * D, ny = (size_t)N * D;
    void *w = random_buf(dt, nw, -2, 2), *y = poisoned(dt, ny), *dy = random_buf(dt, ny, -2, 2);
    int64_t *ids = malloc(sizeof(int64_t) * N);
    float *dw = malloc(sizeof(float) * nw);
    double *ry = malloc(sizeof(double) * ny), *rw = malloc(sizeof(double) * nw);
    for (int i = 0; i < N; i++) ids[i] = (int)uniform(0, 5) == 0 ? outside_index(V, i64) : (int)uniform(0, V - 0.001);
    void *I = index_buf(ids, N, i64);
    for (size_t i = 0; i < nw; i++) dw[i] = 0.5f, rw[i] = 0.5;
    for (int i = 0; i < N; i++)
      for (int d = 0; d < D; d++) {
        int64_t r = ids[i];
        ry[(size_t)i * D + d] = r >= 0 && r < V ? get(w, dt, (size_t)r * D + d) : 0;
        if (r >= 0 && r < V && r != pad) rw[(size_t)r * D + d] += get(dy, dt, (size_t)i * D + d);
      }
    char name[96];
    const char *it = i64 ? "_i64" : "";
    snprintf(name, sizeof name, "cpu embedding_%s%s_fwd V=%d N=%d D=%d", dname[dt], it, V, N, D);
    if (fwd(w, I, y, V, D, N, NULL) != 0) status(name, 0, "launcher returned an error");
    else compare(name, dt, y, ry, ny);
    snprintf(name, sizeof name, "cpu embedding_%s%s_bwd V=%d N=%d D=%d pad=%d", dname[dt], it, V, N, D, pad);
    if ((i64 ? bwd64(dy, I, dw, N, D, V, pad, NULL) : bwd(dy, I, dw, N, D, V, pad, NULL)) != 0)
      status(name, 0, "launcher returned an error");
    else compare(name, F32, dw, rw, nw);
    test_embedding_det(dt, det, det64, ids, dy, V, N, D, pad);
    for (int i = 0; i < N; i++)   /* runs: most indices one of rows 0-3 (pad, 3, among them on odd shapes) */
      if ((int)uniform(0, 4) != 0) ids[i] = (int)uniform(0, 4) % V;
    test_embedding_det(dt, det, det64, ids, dy, V, N, D, pad);
    free(w), free(y), free(dy), free(ids), free(I), free(dw), free(ry), free(rw);
  }
}

typedef int (*CeFwdFn)(const void *, const void *, void *, void *, int, int, int, float, void *);
typedef int (*CeBwdFn)(const void *, const void *, const void *, const void *, void *, int, int, int, float, void *);
typedef int (*CeFwd64Fn)(const void *, const void *, void *, void *, int, int, int64_t, float, void *);
typedef int (*CeBwd64Fn)(const void *, const void *, const void *, const void *, void *, int, int, int64_t, float, void *);

/* cross_entropy forward (Loss, LSE) and backward (dX) against float64, with
** label smoothing on every other shape, ignored labels (-100) and rows
** whose logits rise along the row (the running max moves); int32 labels
** (fwd, bwd) or int64 ones (fwd64, bwd64: ignore_index 2^32 - 100, which
** a cut to 32 bits would not match, and labels of a row 2^32 past a valid
** one, which read X[r, t] as 0 and have no 1 - eps term in dX). */
static void test_cross_entropy(int dt, CeFwdFn fwd, CeBwdFn bwd, CeFwd64Fn fwd64, CeBwd64Fn bwd64) {
  int i64 = fwd64 != NULL;
  for (int s = 0; s < NROW; s++) {
    int N = row_shapes[s][0], V = row_shapes[s][1];
    int64_t ignore = i64 ? (1LL << 32) - 100 : -100;
    float eps = s % 2 ? 0.1f : 0.0f;
    size_t n = (size_t)N * V;
    void *x = random_buf(dt, n, -6, 6), *dx = poisoned(dt, n);
    for (int r = 1; r < N; r += 2)
      for (int c = 0; c < V; c++) put(x, dt, (size_t)r * V + c, get(x, dt, (size_t)r * V + c) + 12.0 * c / V);
    int64_t *t = malloc(sizeof(int64_t) * N);
    float *loss = poisoned(F32, N), *lse = poisoned(F32, N), *dl = malloc(sizeof(float) * N);
    double *rl = malloc(sizeof(double) * N), *rlse = malloc(sizeof(double) * N), *rdx = malloc(sizeof(double) * n);
    for (int r = 0; r < N; r++) {
      t[r] = r % 3 == 2 ? ignore : (int)uniform(0, V - 0.001) + (i64 && r % 5 == 4 ? 1LL << 32 : 0);
      int inside = t[r] >= 0 && t[r] < V;
      dl[r] = (float)uniform(0.5, 2);
      double m = -INFINITY, sum = 0, sx = 0;
      for (int c = 0; c < V; c++) m = fmax(m, get(x, dt, (size_t)r * V + c));
      for (int c = 0; c < V; c++) sum += exp(get(x, dt, (size_t)r * V + c) - m), sx += get(x, dt, (size_t)r * V + c);
      rlse[r] = m + log(sum);
      int ign = t[r] == ignore;
      rl[r] = ign ? 0 : rlse[r] - (1 - (double)eps) * (inside ? get(x, dt, (size_t)r * V + t[r]) : 0) - (double)eps / V * sx;
      for (int c = 0; c < V; c++) {
        double p = exp(get(x, dt, (size_t)r * V + c) - rlse[r]);
        rdx[(size_t)r * V + c] = ign ? 0 : dl[r] * (p - (double)eps / V - (c == t[r] ? 1 - (double)eps : 0));
      }
    }
    char name[96];
    const char *it = i64 ? "_i64" : "";
    void *T = index_buf(t, N, i64);
    snprintf(name, sizeof name, "cpu cross_entropy_%s%s_fwd %dx%d eps=%g", dname[dt], it, N, V, eps);
    if ((i64 ? fwd64(x, T, loss, lse, N, V, ignore, eps, NULL) : fwd(x, T, loss, lse, N, V, (int)ignore, eps, NULL)) != 0)
      status(name, 0, "launcher returned an error");
    else compare(name, F32, loss, rl, (size_t)N), compare(name, F32, lse, rlse, (size_t)N);
    snprintf(name, sizeof name, "cpu cross_entropy_%s%s_bwd %dx%d eps=%g", dname[dt], it, N, V, eps);
    if ((i64 ? bwd64(x, T, lse, dl, dx, N, V, ignore, eps, NULL) : bwd(x, T, lse, dl, dx, N, V, (int)ignore, eps, NULL)) != 0)
      status(name, 0, "launcher returned an error");
    else compare(name, dt, dx, rdx, n);
    free(T), free(x), free(dx), free(t), free(loss), free(lse), free(dl), free(rl), free(rlse), free(rdx);
  }
}

int main(void) {
  test_add(F32, add_f32), test_add(F16, add_f16), test_add(BF16, add_bf16);
  test_bias_gelu(F32, bias_gelu_f32), test_bias_gelu(F16, bias_gelu_f16), test_bias_gelu(BF16, bias_gelu_bf16);
  test_softmax(F32, softmax_f32), test_softmax(F16, softmax_f16), test_softmax(BF16, softmax_bf16);
  test_norm(F32, rmsnorm_f32, NULL), test_norm(F16, rmsnorm_f16, NULL), test_norm(BF16, rmsnorm_bf16, NULL);
  test_norm(F32, NULL, layernorm_f32), test_norm(F16, NULL, layernorm_f16), test_norm(BF16, NULL, layernorm_bf16);
  test_embedding(F32, embedding_f32_fwd, embedding_f32_bwd, NULL, embedding_f32_det, NULL);
  test_embedding(F16, embedding_f16_fwd, embedding_f16_bwd, NULL, embedding_f16_det, NULL);
  test_embedding(BF16, embedding_bf16_fwd, embedding_bf16_bwd, NULL, embedding_bf16_det, NULL);
  test_embedding(F32, embedding_f32_i64_fwd, NULL, embedding_f32_i64_bwd, NULL, embedding_f32_i64_det);
  test_embedding(F16, embedding_f16_i64_fwd, NULL, embedding_f16_i64_bwd, NULL, embedding_f16_i64_det);
  test_embedding(BF16, embedding_bf16_i64_fwd, NULL, embedding_bf16_i64_bwd, NULL, embedding_bf16_i64_det);
  test_cross_entropy(F32, cross_entropy_f32_fwd, cross_entropy_f32_bwd, NULL, NULL);
  test_cross_entropy(F16, cross_entropy_f16_fwd, cross_entropy_f16_bwd, NULL, NULL);
  test_cross_entropy(BF16, cross_entropy_bf16_fwd, cross_entropy_bf16_bwd, NULL, NULL);
  test_cross_entropy(F32, NULL, NULL, cross_entropy_f32_i64_fwd, cross_entropy_f32_i64_bwd);
  test_cross_entropy(F16, NULL, NULL, cross_entropy_f16_i64_fwd, cross_entropy_f16_i64_bwd);
  test_cross_entropy(BF16, NULL, NULL, cross_entropy_bf16_i64_fwd, cross_entropy_bf16_i64_bwd);
  fprintf(stderr, "cpu numerics: %d passed, %d failed\n", passes, failures);
  return 0;
}
