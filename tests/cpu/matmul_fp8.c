/* matmul_fp8.c: dsl/kernels/matmul_fp8.lua's two variants, C = (A @ B^T) *
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
** targets; each is held to the reference).  Prints PASS/FAIL lines. */
#include "../docs/drivers/common.h"
#include "matmul_fp8_row.h"
#include "matmul_fp8_tensor.h"

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

static void run(int row, int M, int N, int K) {
  uint8_t *A = malloc((size_t)M * K), *B = malloc((size_t)N * K);
  uint16_t *C = malloc(2 * (size_t)M * N);
  float *sa = malloc(4 * (size_t)M), *sb = malloc(4 * (size_t)N);
  for (size_t i = 0; i < (size_t)M * K; i++) A[i] = random_code();
  for (size_t i = 0; i < (size_t)N * K; i++) B[i] = random_code();
  for (int i = 0; i < M; i++) sa[i] = (float)ldexp(rnd(0.5, 1), irand(-12, -4));
  for (int j = 0; j < N; j++) sb[j] = (float)ldexp(rnd(0.5, 1), irand(-12, -4));
  memset(C, 0xff, 2 * (size_t)M * N);   /* bf16 NaN */
  int rc = row ? matmul_fp8_row(A, B, C, sa, sb, M, K, N, NULL)
               : matmul_fp8_tensor(A, B, C, M, K, N, sa[0], sb[0], NULL);
  char what[96];
  snprintf(what, sizeof what, "matmul_fp8 %s %dx%dx%d", row ? "row" : "tensor", M, N, K);
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
    dump(&bad, sizeof bad);
    if (bad) {
      printf("FAIL cpu %s: %zu of %d elements wrong\n", what, bad, M * N);
      failures++;
    } else {
      printf("PASS cpu %s (worst error %.2f of the bound)\n", what, worst);
    }
  }
  free(A); free(B); free(C); free(sa); free(sb);
}

int main(void) {
  static const int shapes[][3] = {{1, 1, 1}, {37, 45, 29}, {130, 129, 70}, {5, 200, 33}, {1, 300, 100}, {257, 3, 130}};
  for (int row = 0; row < 2; row++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) run(row, shapes[s][0], shapes[s][1], shapes[s][2]);
  return finish("matmul_fp8");
}
