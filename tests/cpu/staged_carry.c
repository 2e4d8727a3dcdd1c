/* staged_carry.c: drives tests/cpu/staged_carry.lua: O = the sum over key
** blocks of bf16(Q K_j^T) V_j against a float64 reference, on random
** inputs, row and key counts that cut the last tile, O poisoned with NaN
** and a row past its end that must stay so.  Emulated (tests/emu/drivers.sh
** sets LT_DUMP), each case runs under each thread order of the emulator
** (LT_EMU_SCHEDULE): a wgmma still reading the staging tile when another
** warpgroup overwrites it stops the launch.  (No dump: the c target's
** multiply-adds and the emulated wgmma round in different orders.) */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include "../docs/drivers/common.h"
#include "staged_carry_top.h"
#include "staged_carry_turns.h"

enum { D = 128 };

typedef int (*Fn)(const void *, const void *, const void *, void *, int, int, void *);

static void run(Fn fn, const char *name, int M, int L, const char *schedule) {
  double *q, *k, *v;
  void *Q = buf_random(BF16, (size_t)M * D, -1, 1, &q), *K = buf_random(BF16, (size_t)L * D, -1, 1, &k);
  void *V = buf_random(BF16, (size_t)L * D, -1, 1, &v), *O = buf_new(F32, (size_t)(M + 1) * D);
  double *ref = calloc((size_t)M * D, sizeof *ref), *tol = calloc((size_t)M * D, sizeof *tol);
  for (int r = 0; r < M; r++)
    for (int c = 0; c < L; c++) {
      double s = 0, a = 0;
      for (int e = 0; e < D; e++) {
        s += q[(size_t)r * D + e] * k[(size_t)c * D + e];
        a += fabs(q[(size_t)r * D + e] * k[(size_t)c * D + e]);
      }
      /* s rounded to bf16 (2^-9 of it), its f32 sum and O's (2^-24 a term, D and L terms): 2^-8 |s| + 2^-16 a */
      for (int d = 0; d < D; d++) {
        ref[(size_t)r * D + d] += s * v[(size_t)c * D + d];
        tol[(size_t)r * D + d] += (0x1p-8 * fabs(s) + 0x1p-16 * a) * fabs(v[(size_t)c * D + d]);
      }
    }
  buf_poison(F32, O, (size_t)(M + 1) * D);
  if (schedule) setenv("LT_EMU_SCHEDULE", schedule, 1);
  char what[96];
  snprintf(what, sizeof what, "%s M=%d L=%d%s%s", name, M, L, schedule ? " schedule " : "", schedule ? schedule : "");
  if (!expect_ok(what, fn(Q, K, V, O, M, L, NULL))) {
    int bad = 0;
    for (size_t i = 0; i < (size_t)M * D; i++) {
      double o = buf_get(F32, O, i);
      if (!(fabs(o - ref[i]) <= tol[i] + 1e-30)) {
        if (bad++ < 3) printf("%s: O[%zu, %zu] is %.9g, want %.9g (bound %.3g)\n", what, i / D, i % D, o, ref[i], tol[i]);
      }
    }
    for (size_t i = (size_t)M * D; i < (size_t)(M + 1) * D; i++)
      if (!isnan(buf_get(F32, O, i)) && bad++ < 3) printf("%s: O[%d, %zu], past its rows, was written\n", what, M, i % D);
    if (bad) {
      printf("%s: %d elements wrong\n", what, bad);
      failures++;
    }
  }
  free(Q), free(K), free(V), free(O), free(q), free(k), free(v), free(ref), free(tol);
}

int main(void) {
  static const int sizes[][2] = {{64, 160}, {100, 257}, {37, 33}, {64, 5}, {130, 96}};
  static const char *const orders[] = {"forward", "reverse", "warps", "random:7"};
  int norders = getenv("LT_DUMP") ? 4 : 1;   /* under tests/emu/drivers.sh: each of the emulator's orders */
  for (int i = 0; i < 5; i++)
    for (int o = 0; o < norders; o++) {
      const char *order = norders > 1 ? orders[o] : NULL;
      run(staged_carry_top, "staged_carry_top", sizes[i][0], sizes[i][1], order);
      run(staged_carry_turns, "staged_carry_turns", sizes[i][0], sizes[i][1], order);
    }
  return finish("staged_carry");
}
