/* matmul_fp8.c: dsl/kernels/matmul_fp8.lua's variants (and fast_accum's where built), C = (A @ B^T) *
** scale_a * scale_b with A [M, K] and B [N, K] fp8e4m3 and C bf16, against
** a float64 reference of the dequantised inputs.  The fp8 inputs are
** random bytes of every finite code (NaN codes left out: one would poison
** its whole row), so subnormals, zeros and the largest values (448) all
** occur; ragged shapes (M = 1, K = 1, none a multiple of the 64 x 64 x 64
** tile); per-tensor scales as scalars, per-row scales as [M, 1] and
** [1, N] tensors of random magnitudes; C poisoned with NaN.  The bound:
** the bf16 rounding of the result (2^-8 relative) plus f32 accumulation
** error, scaled by sum |a b| * |scales|.  Built against out/c by
** tests/cpu/run.sh, and against each GPU target's emulated code by
** tests/emu/drivers.sh (it dumps only its count of wrong elements: mma.sync sums in another order
** than the multiply-adds, so the bytes of C differ by rounding between
** targets; each is held to the reference).  Then the NaN codes (0x7f,
** 0xff): one in A and one in B make their row and column of C NaN and no
** other element (gfx942's matrix cores read other NaN bytes, FNUZ's, as
** templates/fp8_fnuz.h says), and -0 (0x80) counts as 0 (a NaN in FNUZ).
** Prints PASS/FAIL lines. */
#include "../docs/drivers/common.h"
#include "matmul_fp8_row.h"
#include "matmul_fp8_tensor.h"
#if defined(__has_include)   /* the fast_accum variants: sm90a's only (tests/emu/drivers.sh) */
#if __has_include("matmul_fp8_fast_accum_tensor.h")
#include "matmul_fp8_fast_accum_row.h"
#include "matmul_fp8_fast_accum_tensor.h"
#define HAVE_FAST_ACCUM 1
#endif
#endif

/* The value of e4m3 code c, by the format's definition (c is not a NaN code). */
static double e4m3(uint8_t c) {
  unsigned e = (c >> 3) & 15u, m = c & 7u;
  double v = e ? ldexp(8.0 + m, (int)e - 10) : ldexp(m, -9);
  return c & 0x80u ? -v : v;
}

static uint8_t random_code(void) {
  uint8_t c;
  do c = (uint8_t)irand(0, 255); while ((c & 0x7fu) == 0x7fu);
  return c;
}

/* Runs the variant (row or tensor scales; fast: fast_accum, whose count
** of wrong elements is not dumped, the c target having no such variant). */
static void run(int row, int fast, int M, int N, int K) {
  uint8_t *A = malloc((size_t)M * K), *B = malloc((size_t)N * K);
  uint16_t *C = malloc(2 * (size_t)M * N);
  float *sa = malloc(4 * (size_t)M), *sb = malloc(4 * (size_t)N);
  for (size_t i = 0; i < (size_t)M * K; i++) A[i] = random_code();
  for (size_t i = 0; i < (size_t)N * K; i++) B[i] = random_code();
  for (int i = 0; i < M; i++) sa[i] = (float)ldexp(rnd(0.5, 1), irand(-12, -4));
  for (int j = 0; j < N; j++) sb[j] = (float)ldexp(rnd(0.5, 1), irand(-12, -4));
  memset(C, 0xff, 2 * (size_t)M * N);   /* bf16 NaN */
  int rc;
#ifdef HAVE_FAST_ACCUM
  if (fast)
    rc = row ? matmul_fp8_fast_accum_row(A, B, C, sa, sb, M, K, N, NULL)
             : matmul_fp8_fast_accum_tensor(A, B, C, M, K, N, sa[0], sb[0], NULL);
  else
#endif
    rc = row ? matmul_fp8_row(A, B, C, sa, sb, M, K, N, NULL)
             : matmul_fp8_tensor(A, B, C, M, K, N, sa[0], sb[0], NULL);
  char what[96];
  snprintf(what, sizeof what, "matmul_fp8%s %s %dx%dx%d", fast ? " fast_accum" : "", row ? "row" : "tensor", M, N, K);
  if (!expect_ok(what, rc)) {
    size_t bad = 0;
    double worst = 0;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0, mag = 0;
        for (int k = 0; k < K; k++) {
          double p = e4m3(A[(size_t)i * K + k]) * e4m3(B[(size_t)j * K + k]);
          s += p, mag += fabs(p);
        }
        double scale = (double)(row ? sa[i] : sa[0]) * (row ? sb[j] : sb[0]);
        double want = s * scale, got = bf16_to_double(C[(size_t)i * N + j]);
        double tol = fabs(want) * 0x1p-8 + mag * scale * K * 0x1p-23 + 1e-30;
        double err = fabs(got - want);
        if (!(err <= tol) && bad++ < 3) printf("%s: C[%d, %d] = %g, want %g (tolerance %g)\n", what, i, j, got, want, tol);
        if (err / tol > worst) worst = err / tol;
      }
    if (!fast) dump(&bad, sizeof bad);
    if (bad) {
      printf("FAIL cpu %s: %zu of %d elements wrong\n", what, bad, M * N);
      failures++;
    } else {
      printf("PASS cpu %s (worst error %.2f of the bound)\n", what, worst);
    }
  }
  free(A); free(B); free(C); free(sa); free(sb);
}

/* The NaN codes and -0: A [M, K] and B [N, K] all -0 (0x80) but A[r, k]
** = 0x7f and B[c, k'] = 0xff (k' another k): C is NaN on row r and column
** c, 0 elsewhere (per-tensor scales). */
static void nan_codes(int M, int N, int K, int r, int c) {
  uint8_t *A = malloc((size_t)M * K), *B = malloc((size_t)N * K);
  uint16_t *C = malloc(2 * (size_t)M * N);
  memset(A, 0x80, (size_t)M * K);
  memset(B, 0x80, (size_t)N * K);
  A[(size_t)r * K + K / 3] = 0x7f;
  B[(size_t)c * K + K - 1] = 0xff;
  memset(C, 0x7f, 2 * (size_t)M * N);   /* 0x7f7f: a finite bf16, so an element not written shows */
  char what[64];
  snprintf(what, sizeof what, "matmul_fp8 NaN codes %dx%dx%d", M, N, K);
  if (!expect_ok(what, matmul_fp8_tensor(A, B, C, M, K, N, 0.5f, 0.25f, NULL))) {
    size_t bad = 0;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double got = bf16_to_double(C[(size_t)i * N + j]);
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
  static const int shapes[][3] = {{1, 1, 1}, {37, 45, 29}, {130, 129, 70}, {5, 200, 33}, {1, 300, 100}, {257, 3, 130}};
#ifdef HAVE_FAST_ACCUM
  const int fasts = 2;
#else
  const int fasts = 1;
#endif
  for (int fast = 0; fast < fasts; fast++)
    for (int row = 0; row < 2; row++)
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        run(row, fast, shapes[s][0], shapes[s][1], shapes[s][2]);
  nan_codes(37, 45, 29, 5, 7);
  nan_codes(130, 129, 70, 129, 0);
  return finish("matmul_fp8");
}
