/*
** matmul.c: CPU numerics of every matmul variant through the c target.
**
** The variants come from build/tests/cpu/matmul_list.h, which run.sh writes
** from the headers in out/c: one line MM(fn, dtype, trans_a, trans_b, act,
** has_bias) each.  Every case uses random inputs (never zeros) of ragged
** shapes (not multiples of the 128 x 128 x 32 tile, M = 1, K = 1, batches),
** leading dimensions and batch strides with gaps, NaN-poisoned output, and
** a float64 reference from the same rounded inputs.  The error bound
** scales with sum |alpha a b| + |beta c0| + |bias| so long dot products
** are judged fairly.  beta = 0 runs with a NaN-filled C0, which must not
** be read.  Prints PASS / FAIL lines.
*/
#include "common.h"
#include "matmul_list.h"   /* the MM(...) lines and the headers */

enum { NONE, RELU, GELU, SILU };

typedef int (*MmFn)(const void *C0, const void *A, const void *B, void *C, int batch, int M, int N, int K,
                    int64_t sc, int64_t ldc, int64_t sa, int64_t lda, int64_t sb, int64_t ldb, float alpha,
                    float beta, void *stream);
typedef int (*MmBiasFn)(const void *C0, const void *A, const void *B, void *C, const void *bias, int batch, int M,
                        int N, int K, int64_t sc, int64_t ldc, int64_t sa, int64_t lda, int64_t sb, int64_t ldb,
                        float alpha, float beta, void *stream);

static double act(int a, double x) {
  switch (a) {
  case RELU: return x > 0 ? x : 0;
  case GELU: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
  case SILU: return x / (1 + exp(-x));
  default: return x;
  }
}

/* tight: A's rows without a gap, so that with M = 1 and A stored [K, M]
** (tn, tt) lda is 1: A's bytes one row of K elements (sm90a runs the row
** twin there, gen/pass/row.c; here the c kernel, the same numbers). */
typedef struct Case { int batch, M, N, K; float alpha, beta; int tight; } Case;

static const Case cases[] = {
  {1, 1, 1, 1, 1.0f, 0.0f, 0},      {1, 37, 45, 29, 1.5f, 0.5f, 0}, {2, 130, 129, 70, 1.0f, 0.0f, 0},
  {3, 5, 200, 33, -0.5f, 1.0f, 0},  {1, 1, 300, 100, 1.0f, 0.0f, 0}, {1, 257, 3, 8, 2.0f, -1.0f, 0},
  {1, 1, 300, 136, 1.0f, 0.5f, 1},  {2, 1, 77, 131, -1.5f, 0.0f, 1},
};

static void run(const char *name, void *fn, int dt, int ta, int tb, int a_kind, int has_bias) {
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    Case c = cases[ci];
    int ar = ta ? c.K : c.M, ac = ta ? c.M : c.K, br = tb ? c.N : c.K, bc = tb ? c.K : c.N;
    int64_t lda = ac + (c.tight ? 0 : 3), ldb = bc + 1, ldc = c.N + 2;   /* gaps between rows */
    int64_t sa = ar * lda + 5, sb = br * ldb + 7, sc = c.M * ldc + 1;
    size_t na = (size_t)(c.batch * sa), nb = (size_t)(c.batch * sb), nc = (size_t)(c.batch * sc);
    void *A = random_buf(dt, na, -1, 1), *B = random_buf(dt, nb, -1, 1);
    void *C0 = c.beta != 0 ? random_buf(dt, nc, -1, 1) : poisoned(dt, nc);
    void *bias = random_buf(dt, (size_t)c.N, -1, 1);
    void *C = poisoned(dt, nc);
    int rc = has_bias ? ((MmBiasFn)fn)(C0, A, B, C, bias, c.batch, c.M, c.N, c.K, sc, ldc, sa, lda, sb, ldb,
                                       c.alpha, c.beta, NULL)
                      : ((MmFn)fn)(C0, A, B, C, c.batch, c.M, c.N, c.K, sc, ldc, sa, lda, sb, ldb, c.alpha, c.beta,
                                   NULL);
    char label[160];
    snprintf(label, sizeof label, "cpu %s %dx%dx%dx%d", name, c.batch, c.M, c.N, c.K);
    double worst = 0;
    char why[200] = "";
    for (int b = 0; b < c.batch && rc == 0; b++)
      for (int i = 0; i < c.M; i++)
        for (int j = 0; j < c.N; j++) {
          double dot = 0, mag = 0;
          for (int k = 0; k < c.K; k++) {
            double x = get(A, dt, (size_t)(b * sa + (ta ? k * lda + i : i * lda + k)));
            double y = get(B, dt, (size_t)(b * sb + (tb ? j * ldb + k : k * ldb + j)));
            dot += x * y;
            mag += fabs(x * y);
          }
          size_t at = (size_t)(b * sc + i * ldc + j);
          double pre = c.alpha * dot, scale = fabs(c.alpha) * mag;
          if (c.beta != 0) pre += c.beta * get(C0, dt, at), scale += fabs(c.beta * get(C0, dt, at));
          if (has_bias) pre += get(bias, dt, (size_t)j), scale += fabs(get(bias, dt, (size_t)j));
          double ref = act(a_kind, pre), out = get(C, dt, at);
          double err = fabs(out - ref), tol = abs_tol[dt] + rel_tol[dt] * (scale + fabs(ref));
          if (isnan(out) || err > tol * (1 + worst)) {
            worst = isnan(out) ? INFINITY : err / tol;
            snprintf(why, sizeof why, "C[%d, %d, %d] = %g, reference %g", b, i, j, out, ref);
            if (isnan(out)) goto done;
          }
        }
    /* the gaps after each row of C are not written */
    for (int b = 0; b < c.batch && rc == 0 && !*why; b++)
      for (int i = 0; i < c.M; i++)
        for (int j = c.N; j < ldc; j++)
          if (!isnan(get(C, dt, (size_t)(b * sc + i * ldc + j))))
            snprintf(why, sizeof why, "the gap C[%d, %d, %d] was written", b, i, j);
  done:
    if (rc != 0) snprintf(why, sizeof why, "the launcher returned %d", rc);
    status(label, !*why, why);
    free(A), free(B), free(C0), free(bias), free(C);
  }
  /* argument checks: a null pointer, a zero size */
  void *p = random_buf(dt, 64, -1, 1);
  int r1 = has_bias ? ((MmBiasFn)fn)(p, p, NULL, p, p, 1, 4, 4, 4, 16, 4, 16, 4, 16, 4, 1, 0, NULL)
                    : ((MmFn)fn)(p, p, NULL, p, 1, 4, 4, 4, 16, 4, 16, 4, 16, 4, 1, 0, NULL);
  int r2 = has_bias ? ((MmBiasFn)fn)(p, p, p, p, p, 1, 0, 4, 4, 16, 4, 16, 4, 16, 4, 1, 0, NULL)
                    : ((MmFn)fn)(p, p, p, p, 1, 0, 4, 4, 16, 4, 16, 4, 16, 4, 1, 0, NULL);
  char label[160];
  snprintf(label, sizeof label, "cpu %s rejects a null pointer and a zero size", name);
  status(label, r1 != 0 && r2 != 0, "the launcher accepted a bad argument");
  /* rows of C that would overlap (ldc 3 < N 4), and a batch stride of A
  ** whose last offset passes 2^62 (the int64 index math would overflow) */
  int r3 = has_bias ? ((MmBiasFn)fn)(p, p, p, p, p, 1, 4, 4, 4, 16, 3, 16, 4, 16, 4, 1, 0, NULL)
                    : ((MmFn)fn)(p, p, p, p, 1, 4, 4, 4, 16, 3, 16, 4, 16, 4, 1, 0, NULL);
  int r4 = has_bias ? ((MmBiasFn)fn)(p, p, p, p, p, 3, 4, 4, 4, 16, 4, INT64_C(1) << 61, 4, 16, 4, 1, 0, NULL)
                    : ((MmFn)fn)(p, p, p, p, 3, 4, 4, 4, 16, 4, INT64_C(1) << 61, 4, 16, 4, 1, 0, NULL);
  snprintf(label, sizeof label, "cpu %s rejects ldc < N and strides past 2^62", name);
  status(label, r3 != 0 && r4 != 0, r3 ? "the launcher accepted a stride past 2^62" : "the launcher accepted ldc < N");
  free(p);
}

/* tf32 variants hold f32 matrices; the c target multiplies them in f32
** (no tensor cores), so they are held to f32's tolerance here. */
#define TF32 F32

int main(void) {
#define MM(fn, dt, ta, tb, a_kind, has_bias) run(#fn, (void *)fn, dt, ta, tb, a_kind, has_bias);
  MM_LIST
#undef MM
  fprintf(stderr, "cpu matmul: %d passed, %d failed\n", passes, failures);
  return 0;
}
