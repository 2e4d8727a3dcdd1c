/* fp8_fnuz.c: drives docs/examples/fp8_fnuz.lua: the saturating casts to
** e4m3fnuz and e5m2fnuz checked byte for byte against the nearest code by
** the formats' definitions (written here: exponent bias 8 and 16, no
** infinity, no -0, 0x80 the one NaN; the even code on a tie, past the
** largest finite value that value, NaN -> 0x80, a zero 0x00), the values
** read back as f32 exactly, and every OCP e4m3 code converted to
** e4m3fnuz (448 to 240, -0 to 0, NaN to 0x80). */
#include "common.h"
#include "fp8_fnuz.h"

/* The value of code c of the format with `mb` mantissa bits and bias
** `bias`; fnuz: FNUZ (0x80 NaN, no infinity), else OCP e4m3 (S.1111.111 NaN). */
static double decode(unsigned c, int mb, int bias, int fnuz) {
  unsigned e = (c & 0x7fu) >> mb, m = c & ((1u << mb) - 1);
  if (fnuz ? c == 0x80u : (c & 0x7fu) == 0x7fu) return NAN;
  double v = e ? ldexp((double)((1u << mb) + m), (int)e - bias - mb) : ldexp(m, 1 - bias - mb);
  return c >> 7 ? -v : v;
}

/* x to the FNUZ format: the code of x's sign nearest to |x| (the even one on
** a tie), the largest at or past it; a NaN 0x80; a zero 0x00. */
static uint8_t encode(double x, int mb, int bias) {
  if (isnan(x)) return 0x80;
  unsigned sign = signbit(x) ? 0x80u : 0u, best = 0;
  double a = fabs(x), bd = INFINITY;
  if (a >= decode(0x7f, mb, bias, 1)) return (uint8_t)(sign | 0x7f);
  for (unsigned c = 0; c < 128; c++) {
    double d = fabs(decode(c, mb, bias, 1) - a);
    if (d < bd || (d == bd && (c & 1u) == 0)) bd = d, best = c;
  }
  return best ? (uint8_t)(sign | best) : 0;
}

static void run(int N, float scale) {
  float *X = malloc(4 * (size_t)N), *D = malloc(8 * (size_t)N);
  uint8_t *O = malloc((size_t)N), *Q = malloc((size_t)N), *R = malloc((size_t)N), *Z = malloc((size_t)N);
  uint8_t *rq = malloc((size_t)N), *rr = malloc((size_t)N), *rz = malloc((size_t)N);
  double *rd = malloc(sizeof *rd * 2 * N);
  for (int i = 0; i < N; i++) {
    float x = (float)rnd(-300, 300) / scale;
    if (i % 5 == 2) x = (float)rnd(-70000, 70000) / scale;   /* past e4m3fnuz's 240, some past e5m2fnuz's 57344 */
    if (i % 7 == 1) x = (float)rnd(-0.02, 0.02) / scale;     /* subnormals */
    if (i % 11 == 4) x = (float)(i % 2 ? 1e-9 : -1e-9) / scale;   /* zeros, -0 among them */
    if (i % 97 == 3) x = i % 2 ? NAN : -INFINITY;
    X[i] = x;
    O[i] = (uint8_t)(i < 256 ? i : irand(0, 255));   /* every e4m3 code */
    float xs = x * scale;
    rq[i] = encode(xs, 3, 8);
    rr[i] = encode(xs, 2, 16);
    rz[i] = encode(decode(O[i], 3, 7, 0), 3, 8);
    rd[i] = (double)(float)((float)decode(rq[i], 3, 8, 1) / scale);
    rd[N + i] = (double)(float)((float)decode(rr[i], 2, 16, 1) / scale);
  }
  memset(Q, 0xa5, (size_t)N);
  memset(R, 0xa5, (size_t)N);
  memset(Z, 0xa5, (size_t)N);
  buf_poison(F32, D, (size_t)2 * N);
  char what[64];
  snprintf(what, sizeof what, "fp8_fnuz N=%d scale=%g", N, scale);
  if (!expect_ok(what, fp8_fnuz(X, O, Q, R, Z, D, N, scale, NULL))) {
    size_t bad = 0;
    for (int i = 0; i < N; i++)
      if ((Q[i] != rq[i] || R[i] != rr[i] || Z[i] != rz[i]) && bad++ < 3)
        printf("%s: element %d: x*scale %a -> e4m3fnuz 0x%02x e5m2fnuz 0x%02x, want 0x%02x 0x%02x; "
               "e4m3 0x%02x -> 0x%02x, want 0x%02x\n", what, i, X[i] * scale, Q[i], R[i], rq[i], rr[i], O[i], Z[i], rz[i]);
    for (int i = 0; i < 2 * N; i++)   /* NaN where the reference is NaN, else the same float */
      if (!(isnan(rd[i]) ? isnan(D[i]) : (double)D[i] == rd[i]) && bad++ < 3)
        printf("%s: D element %d is %a, want %a\n", what, i, D[i], rd[i]);
    if (bad) failures++;
    dump(Q, (size_t)N);
    dump(R, (size_t)N);
    dump(Z, (size_t)N);
    dump(D, 8 * (size_t)N);
  }
  free(X); free(D); free(O); free(Q); free(R); free(Z); free(rq); free(rr); free(rz); free(rd);
}

int main(void) {
  run(1, 1.0f);
  run(300, 0.37f);
  run(5001, 64.0f);
  return finish("fp8_fnuz");
}
