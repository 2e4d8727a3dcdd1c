/* fp8.c: drives docs/examples/fp8.lua (c target): the saturating casts to
** e4m3 and e5m2 checked byte for byte against the nearest code by the
** formats' definitions (the even one on a tie; NaN -> 0x7f), and the fp8
** values read back as f32 exactly. */
#include "common.h"
#include "fp8.h"

/* The value of code c of the format with `mb` mantissa bits and bias `bias`
** (e5m2: IEEE's infinities and NaNs; e4m3: only S.1111.111 is NaN). */
static double decode(unsigned c, int mb, int bias) {
  int eb = 7 - mb;
  unsigned e = (c >> mb) & ((1u << eb) - 1), m = c & ((1u << mb) - 1), emax = (1u << eb) - 1;
  double v;
  if (e == emax && (mb == 2 || m == (1u << mb) - 1)) v = mb == 2 && m == 0 ? INFINITY : NAN;
  else if (e == 0) v = ldexp(m, 1 - bias - mb);
  else v = ldexp((double)((1u << mb) + m), (int)e - bias - mb);
  return c >> 7 ? -v : v;
}

/* x to the format: the finite code of x's sign nearest to |x|, the largest at or past it. */
static uint8_t encode(float x, int mb, int bias) {
  if (isnan(x)) return 0x7f;
  unsigned sign = signbit(x) ? 0x80u : 0u, best = 0;
  double a = fabs((double)x), bd = INFINITY;
  for (unsigned c = 0; c < 128; c++) {
    double v = decode(c, mb, bias);
    if (!isfinite(v)) continue;
    if (a >= v && !isfinite(decode(c + 1, mb, bias))) return (uint8_t)(sign | c);
    double d = fabs(v - a);
    if (d < bd || (d == bd && (c & 1u) == 0)) bd = d, best = c;
  }
  return (uint8_t)(sign | best);
}

static void run(int N, float scale) {
  float *X = malloc(4 * (size_t)N), *D = malloc(8 * (size_t)N);
  uint8_t *E = malloc((size_t)N), *Q = malloc((size_t)N), *R = malloc((size_t)N);
  uint8_t *rq = malloc((size_t)N), *rr = malloc((size_t)N);
  double *rd = malloc(sizeof *rd * 2 * N);
  for (int i = 0; i < N; i++) {
    float x = (float)rnd(-600, 600) / scale;
    if (i % 7 == 1) x = (float)rnd(-0.02, 0.02) / scale;   /* subnormals */
    if (i % 97 == 3) x = i % 2 ? NAN : -INFINITY;
    X[i] = x;
    E[i] = (uint8_t)irand(0, 255);
    float xs = x * scale;
    rq[i] = encode(xs, 3, 7);
    rr[i] = encode(xs, 2, 15);
    rd[i] = (double)(float)((float)decode(rq[i], 3, 7) / scale);
    rd[N + i] = (double)((float)decode(E[i], 3, 7) * scale);
  }
  memset(Q, 0xa5, (size_t)N);
  memset(R, 0xa5, (size_t)N);
  buf_poison(F32, D, (size_t)2 * N);
  char what[64];
  snprintf(what, sizeof what, "fp8 N=%d scale=%g", N, scale);
  if (!expect_ok(what, fp8(X, E, Q, R, D, N, scale, NULL))) {
    size_t bad = 0;
    for (int i = 0; i < N; i++)
      if ((Q[i] != rq[i] || R[i] != rr[i]) && bad++ < 3)
        printf("%s: element %d: x*scale %a -> e4m3 0x%02x e5m2 0x%02x, want 0x%02x 0x%02x\n", what, i, X[i] * scale,
               Q[i], R[i], rq[i], rr[i]);
    for (int i = 0; i < 2 * N; i++)   /* NaN where the reference is NaN, else the same float */
      if (!(isnan(rd[i]) ? isnan(D[i]) : (double)D[i] == rd[i]) && bad++ < 3)
        printf("%s: D element %d is %a, want %a\n", what, i, D[i], rd[i]);
    if (bad) failures++;
    dump(D, 8 * (size_t)N);
  }
  free(X); free(D); free(E); free(Q); free(R); free(rq); free(rr); free(rd);
}

int main(void) {
  run(1, 1.0f);
  run(300, 0.37f);
  run(5001, 64.0f);
  return finish("fp8");
}
