/* gather.c: drives docs/examples/gather.lua (c target): indices inside,
** negative, past the end and past 2^32 (an i64 index must not wrap to a row
** inside); J a permutation (the scatter's rows are each
** written once) with some rows sent outside Z; G starts non-zero. */
#include "common.h"
#include "gather.h"

enum { D = 64 };

static void run(int V, int N, int M) {
  double *w;
  void *W = buf_random(F32, (size_t)V * D, -2, 2, &w);
  int64_t *I = lt_alloc(sizeof *I * N);
  void *J = buf_new(I32, N);
  void *Y = buf_new(F32, (size_t)N * D + 8), *Z = buf_new(F32, (size_t)M * D + 8), *G = buf_new(F32, (size_t)V * D + 8);
  double *ry = malloc(sizeof *ry * N * D), *rz = malloc(sizeof *rz * M * D), *rg = malloc(sizeof *rg * V * D);
  int *perm = malloc(sizeof *perm * (N > M ? N : M));
  for (int i = 0; i < (N > M ? N : M); i++) perm[i] = i;
  for (int i = (N > M ? N : M) - 1; i > 0; i--) { int j = irand(0, i), t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
  for (int i = 0; i < N; i++) {
    int u = irand(0, 9);
    I[i] = u == 0 ? -irand(1, 5) : u == 1 ? V + irand(0, 5) : u == 2 ? (int64_t)V + ((int64_t)1 << 32) : irand(0, V - 1);
    ((int *)J)[i] = irand(0, 9) == 0 ? -1 : perm[i];   /* >= M when N > M: dropped */
  }
  buf_poison(F32, Y, (size_t)N * D + 8);
  buf_poison(F32, Z, (size_t)M * D + 8);
  for (size_t i = 0; i < (size_t)V * D + 8; i++) ((float *)G)[i] = i < (size_t)V * D ? (float)(i % 7) : NAN;
  for (size_t i = 0; i < (size_t)V * D; i++) rg[i] = (double)(i % 7);
  for (size_t i = 0; i < (size_t)M * D; i++) rz[i] = NAN;   /* rows no index names keep their poison */
  for (int i = 0; i < N; i++) {
    int64_t r = I[i];
    int to = ((int *)J)[i];
    for (int d = 0; d < D; d++) {
      double y = r >= 0 && r < V ? w[(size_t)r * D + d] : 0;
      ry[(size_t)i * D + d] = y;
      if (to >= 0 && to < M) rz[(size_t)to * D + d] = (float)y;
      if (r >= 0 && r < V) rg[(size_t)r * D + d] += (float)y;
    }
  }
  char what[96];
  snprintf(what, sizeof what, "gather V=%d N=%d M=%d", V, N, M);
  if (!expect_ok(what, gather(W, I, J, Y, Z, G, V, N, M, NULL))) {
    check(what, F32, Y, ry, (size_t)N * D, 0, 0);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)M * D; i++) {
      double g = ((float *)Z)[i];
      bad += isnan(rz[i]) ? !isnan(g) : g != rz[i];
    }
    check(what, F32, G, rg, (size_t)V * D, 1e-6, 1e-4);
    for (int i = 0; i < 8; i++)
      bad += !isnan(((float *)Y)[(size_t)N * D + i]) + !isnan(((float *)Z)[(size_t)M * D + i]) +
             !isnan(((float *)G)[(size_t)V * D + i]);
    if (bad) {
      printf("%s: %zu elements of Z or past the ends wrong\n", what, bad);
      failures++;
    }
  }
  free(W); free(I); free(J); free(Y); free(Z); free(G); free(w); free(ry); free(rz); free(rg); free(perm);
}

int main(void) {
  run(1, 1, 1);
  run(50, 37, 40);
  run(7, 100, 100);   /* repeated indices: the adds meet in G */
  run(300, 64, 20);   /* N > M: some rows go past Z's end */
  return finish("gather");
}
