/* column_origin.c: drives tests/cpu/column_origin.lua: column origins read
** from memory on and off the 16-byte grid (0, 1, 2, 3, 4, 5, 63), row
** counts that cut the last block, Y's poison checked in every element. */
#include "../docs/drivers/common.h"
#include "column_origin.h"

enum { BC = 64 };

static void run(int R, int C, int off) {
  double *x;
  void *X = buf_random(F32, (size_t)R * C, -2, 2, &x);
  void *O = buf_new(I32, 1), *Y = buf_new(F32, (size_t)R * BC);
  double *ref = malloc(sizeof *ref * (size_t)R * BC);
  ((int *)O)[0] = off;
  int nb = (C + BC - 1) / BC;
  for (int r = 0; r < R; r++)
    for (int c = 0; c < BC; c++) {
      double s = 0;
      for (int j = 0; j < nb; j++) {
        int col = off + j * BC + c;
        if (col < C) s += x[(size_t)r * C + col];
      }
      ref[(size_t)r * BC + c] = s;
    }
  buf_poison(F32, Y, (size_t)R * BC);
  char what[64];
  snprintf(what, sizeof what, "column_origin R=%d C=%d off=%d", R, C, off);
  if (!expect_ok(what, column_origin(X, O, Y, R, C, NULL))) {
    check(what, F32, Y, ref, (size_t)R * BC, 1e-5, 1e-5);
    dump(Y, (size_t)R * BC * 4);
  }
  free(X); free(O); free(Y); free(x); free(ref);
}

int main(void) {
  static const int offs[] = {0, 1, 2, 3, 4, 5, 63};
  for (int i = 0; i < 7; i++) run(37, 300, offs[i]);
  run(16, 64, 0);
  run(5, 1000, 7);
  return finish("column_origin");
}
