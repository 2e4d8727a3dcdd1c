/* packed.c: drives docs/examples/packed.lua (c target): ragged sequences
** (lengths 0 to past maxlen), rows before, between and after them that
** belong to no sequence; those rows of Y keep their poison. */
#include "common.h"
#include "packed.h"

enum { D = 64 };

static void run(int B, int maxlen) {
  int cu[16], T = 3;   /* 3 rows before the first sequence */
  cu[0] = T;
  for (int b = 0; b < B; b++) cu[b + 1] = cu[b] + irand(0, maxlen + 4);
  T = cu[B] + 5;       /* and 5 after the last */
  double *x;
  void *X = buf_random(F32, (size_t)T * D, -2, 2, &x);
  void *Y = buf_new(F32, (size_t)T * D), *CU = buf_new(I32, B + 1);
  memcpy(CU, cu, sizeof(int) * (B + 1));
  buf_poison(F32, Y, (size_t)T * D);
  char what[64];
  snprintf(what, sizeof what, "packed B=%d maxlen=%d", B, maxlen);
  if (!expect_ok(what, packed(X, Y, CU, T, B + 1, maxlen, NULL))) {
    size_t bad = 0;
    for (int t = 0; t < T; t++) {
      int b = -1;
      for (int i = 0; i < B; i++)
        if (t >= cu[i] && t < cu[i + 1] && t - cu[i] < maxlen) b = i;
      double mean = 0;
      if (b >= 0)
        for (int d = 0; d < D; d++) mean += x[(size_t)cu[b] * D + d] / D;
      for (int d = 0; d < D; d++) {
        double g = ((float *)Y)[(size_t)t * D + d];
        if (b < 0 ? !isnan(g) : fabs(g - (x[(size_t)t * D + d] - mean)) > 1e-5) bad++;
      }
    }
    if (bad) {
      printf("%s: %zu elements wrong\n", what, bad);
      failures++;
    }
  }
  free(X); free(Y); free(CU); free(x);
}

int main(void) {
  run(1, 16);
  run(5, 37);
  run(3, 1);
  return finish("packed");
}
