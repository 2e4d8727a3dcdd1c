/* paged.c: drives docs/examples/paged.lua (c target): page numbers inside
** K, -1 and past its end; lengths from 0 to past the table's end. */
#include "common.h"
#include "paged.h"

enum { P = 16, D = 64 };

static void run(int B, int NP, int pages, int S) {
  int NK = pages * P;
  double *k;
  void *K = buf_random(F32, (size_t)NK * D, -2, 2, &k);
  void *BT = buf_new(I32, (size_t)B * NP), *L = buf_new(I32, B);
  size_t ny = (size_t)B * S * D;
  void *Y = buf_new(F32, ny + 8);
  double *ref = malloc(sizeof *ref * ny);
  for (int b = 0; b < B; b++) {
    ((int *)L)[b] = irand(0, NP * P + 3);
    for (int j = 0; j < NP; j++) {
      int u = irand(0, 9);
      ((int *)BT)[b * NP + j] = u == 0 ? -1 : u == 1 ? pages + irand(0, 3) : irand(0, pages - 1);
    }
  }
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++)
      for (int d = 0; d < D; d++) {
        int j = s / P, pg = j < NP ? ((int *)BT)[b * NP + j] : -1;
        int row = pg * P + s % P;
        int in = j < NP && s < ((int *)L)[b] && pg >= 0 && row < NK;
        /* rows past the grid's pages are not written: the poison stays */
        ref[((size_t)b * S + s) * D + d] = j >= NP ? NAN : in ? k[(size_t)row * D + d] : 0;
      }
  buf_poison(F32, Y, ny + 8);
  char what[96];
  snprintf(what, sizeof what, "paged B=%d NP=%d pages=%d S=%d", B, NP, pages, S);
  if (!expect_ok(what, paged(K, BT, L, Y, NK, B, NP, S, NULL))) {
    size_t bad = 0;
    for (size_t i = 0; i < ny; i++) {
      double g = ((float *)Y)[i];
      if (isnan(ref[i]) ? !isnan(g) : g != ref[i]) bad++;
    }
    for (size_t i = ny; i < ny + 8; i++) bad += !isnan(((float *)Y)[i]);
    if (bad) {
      printf("%s: %zu elements wrong\n", what, bad);
      failures++;
    }
  }
  free(K); free(BT); free(L); free(Y); free(k); free(ref);
}

int main(void) {
  run(1, 1, 1, 16);
  run(3, 5, 7, 80);
  run(4, 3, 2, 45);     /* S not a multiple of P: the last page is cut */
  run(2, 4, 9, 100);    /* S past the table's pages: those rows are not written */
  return finish("paged");
}
