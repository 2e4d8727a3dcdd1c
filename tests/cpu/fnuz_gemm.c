/* fnuz_gemm.c: tests/cpu/fnuz_gemm.lua's variants, C = (A @ B^T) * scale
** with A [M, K] and B [N, K] fp8e4m3fnuz or fp8e5m2fnuz and C f32, against
** a float64 reference of the inputs decoded here from the formats'
** definitions (FNUZ: exponent bias 8 and 16, no infinity, no -0, 0x80 the
** one NaN).  The inputs are random bytes of every code but 0x80 (a NaN
** would poison its whole row), so subnormals, zeros and the largest values
** (0x7f and 0xff: +-240 and +-57344, OCP's NaN codes) all occur; ragged
** shapes (none a multiple of the 64 x 64 x 64 tile); C poisoned with NaN.
** The bound: f32 accumulation error, sum |a b| * scale * K * 2^-23, and the
** scale's rounding.  Then 0x80: one in A and one in B make their row and
** column of C NaN and no other element.  Built against each target's code
** by tests/emu/drivers.sh (on gfx942 the MFMA fp8 / bf8 read the bytes as
** they are); it dumps only its counts of wrong elements, the sums' order
** differing between targets.  Prints PASS/FAIL lines. */
#include "../docs/drivers/common.h"
#include "fnuz_gemm_fp8e4m3fnuz.h"
#include "fnuz_gemm_fp8e5m2fnuz.h"

typedef struct Fmt {
  const char *name;
  int mbits, bias;
  int (*gemm)(const void *, const void *, void *, int, int, int, float, void *);
} Fmt;

static const Fmt fmts[2] = {{"fp8e4m3fnuz", 3, 8, fnuz_gemm_fp8e4m3fnuz}, {"fp8e5m2fnuz", 2, 16, fnuz_gemm_fp8e5m2fnuz}};

/* The value of code c by the format's definition; NAN for 0x80. */
static double decode(const Fmt *f, uint8_t c) {
  if (c == 0x80u) return NAN;
  unsigned e = (c & 0x7fu) >> f->mbits, m = c & ((1u << f->mbits) - 1);
  double v = e ? ldexp((double)((1u << f->mbits) + m), (int)e - f->bias - f->mbits) : ldexp(m, 1 - f->bias - f->mbits);
  return c & 0x80u ? -v : v;
}

static uint8_t random_code(void) {
  uint8_t c;
  do c = (uint8_t)irand(0, 255); while (c == 0x80u);
  return c;
}

static void run(const Fmt *f, int M, int N, int K) {
  uint8_t *A = malloc((size_t)M * K), *B = malloc((size_t)N * K);
  float *C = malloc(4 * (size_t)M * N);
  for (size_t i = 0; i < (size_t)M * K; i++) A[i] = random_code();
  for (size_t i = 0; i < (size_t)N * K; i++) B[i] = random_code();
  float scale = (float)ldexp(rnd(0.5, 1), irand(-20, -4));
  buf_poison(F32, C, (size_t)M * N);
  char what[96];
  snprintf(what, sizeof what, "fnuz_gemm %s %dx%dx%d", f->name, M, N, K);
  if (!expect_ok(what, f->gemm(A, B, C, M, K, N, scale, NULL))) {
    size_t bad = 0;
    double worst = 0;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0, mag = 0;
        for (int k = 0; k < K; k++) {
          double p = decode(f, A[(size_t)i * K + k]) * decode(f, B[(size_t)j * K + k]);
          s += p, mag += fabs(p);
        }
        double want = s * scale, got = C[(size_t)i * N + j];
        double tol = fabs(want) * 0x1p-23 + mag * scale * K * 0x1p-23 + 1e-30;
        double err = fabs(got - want);
        if (!(err <= tol) && bad++ < 3) printf("%s: C[%d, %d] = %g, want %g (tolerance %g)\n", what, i, j, got, want, tol);
        if (err / tol > worst) worst = err / tol;
      }
    dump(&bad, sizeof bad);
    if (bad) {
      printf("FAIL cpu %s: %zu of %d elements wrong\n", what, bad, M * N);
      failures++;
    } else {
      printf("PASS cpu %s (worst error %.2f of the bound)\n", what, worst);
    }
  }
  free(A); free(B); free(C);
}

/* FNUZ's NaN: A [M, K] and B [N, K] all 0 but A[r, k] = 0x80 and B[c, k']
** = 0x80 (k' another k): C is NaN on row r and column c, 0 elsewhere. */
static void nan_code(const Fmt *f, int M, int N, int K, int r, int c) {
  uint8_t *A = calloc((size_t)M * K, 1), *B = calloc((size_t)N * K, 1);
  float *C = malloc(4 * (size_t)M * N);
  A[(size_t)r * K + K / 3] = 0x80;
  B[(size_t)c * K + K - 1] = 0x80;
  for (size_t i = 0; i < (size_t)M * N; i++) C[i] = 7.0f;   /* finite, so an element not written shows */
  char what[96];
  snprintf(what, sizeof what, "fnuz_gemm %s NaN code %dx%dx%d", f->name, M, N, K);
  if (!expect_ok(what, f->gemm(A, B, C, M, K, N, 0.5f, NULL))) {
    size_t bad = 0;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        float got = C[(size_t)i * N + j];
        if (i == r || j == c ? !isnan(got) : got != 0) bad++;
      }
    dump(&bad, sizeof bad);
    if (bad) {
      printf("FAIL cpu %s: %zu of %d elements wrong (NaN on row %d and column %d, 0 elsewhere)\n", what, bad, M * N, r, c);
      failures++;
    } else {
      printf("PASS cpu %s\n", what);
    }
  }
  free(A); free(B); free(C);
}

int main(void) {
  static const int shapes[][3] = {{1, 1, 1}, {37, 45, 29}, {130, 129, 70}, {5, 200, 33}, {65, 3, 130}};
  for (int d = 0; d < 2; d++) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) run(&fmts[d], shapes[s][0], shapes[s][1], shapes[s][2]);
    nan_code(&fmts[d], 37, 45, 29, 5, 7);
  }
  return finish("fnuz_gemm");
}
