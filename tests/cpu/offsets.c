/* offsets.c: runs tests/cpu/offsets.lua's c output, built with UBSan
** (signed overflow a hard error) and ASan: view offsets near INT_MAX and
** INT_MIN, and a page number from memory times 65536, must neither
** overflow int math nor touch memory outside X, Y, Z or W (gen computes
** such offsets in int64 and tests them against 0 and the sizes).  Prints
** PASS/FAIL lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "offsets.h"

static int failures;

static void run(int off, int page) {
  enum { M = 8, N = 64, B = 2 };
  float *x = malloc(sizeof(float) * M * N), *y = malloc(sizeof(float) * M * N), *z = malloc(sizeof(float) * M * N),
        *w = malloc(sizeof(float) * M * N);
  int p[B] = {page, page};
  for (int i = 0; i < M * N; i++) x[i] = (float)i, y[i] = z[i] = w[i] = NAN;
  int rc = offsets(x, p, y, z, w, M, N, B, off, NULL);
  int bad = rc != 0;
  for (int i = 0; i < M * N; i++) {
    bad += y[i] != 7;   /* every element outside X: the load's other */
    bad += z[i] != 5;
    bad += !isnan(w[i]);   /* every row outside W: dropped */
  }
  printf("%s cpu offsets off=%d page=%d%s\n", bad ? "FAIL" : "PASS", off, page, bad ? ": wrong elements" : "");
  failures += bad != 0;
  free(x), free(y), free(z), free(w);
}

int main(void) {
  run(2147483647, 32768);
  run(2147483647 - 3, 65535);
  run(-2147483647 - 1, -32769);
  run(-5, 40000);
  return 0;
}
