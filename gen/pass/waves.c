/*
** pass/waves.c: a program's work, for the shape dispatch's pick between a
** bucket's config and its entry's alternatives (tuned.c, emit/dispatch.c).
**
** The launcher runs whichever of the two leaves the busiest multiprocessor
** less work at the call's sizes: its programs a multiprocessor, rounded up
** (the waves), times a program's work: the elements of its tile and, in a
** kernel with a k:gemm, a fixed part (PROGRAM_FIXED).  The tile is the
** accumulator of the kernel's k:gemm (rows x cols), else its largest
** k:fragment: the output a program computes, which its time follows in
** the kernels that have one.  A kernel that splits K (Kernel.splitk,
** lower/splitk.c) is weighed as it launches: its programs are the tiles
** times the parts the launcher gives each, and a program's work its part
** of the loop's iterations and one more (its slot written and read, the
** split launcher's own cost), over the iterations of the whole loop, times
** the tile, and the fixed part.
** An entry may name several alternatives: the launcher runs the config of
** least work among the bucket's and theirs, ties to the first (the
** bucket's own, then the alternatives in the entry's order).  ltP_waves
** records, for each bucket kernel whose entry names alternatives, their
** kernels and the tiles (Kernel.alt, tile_work, tile_what); the emitter
** prints the comparison.
*/

#include "../lt.h"
#include <string.h>

/* A gemm program's fixed part, in elements of tile: what a program costs
** beyond its tile's share of the K loop (the ring's first stages filled,
** the epilogue's stores drained), as much as a 64 x 64 tile's loop.  With
** it, two configs whose tiles make the same waves' work (128 x 256 tiles
** in one wave against 128 x 128 in two) weigh the one of fewer programs
** lighter, and a third of smaller tiles (64 x 192) wins only where it makes
** clearly less work.  Checked against every point the H200 results files
** measured the sm90a buckets' configs at (bench/wavespick_check.py): from
** 2048 to 5120 the picks are the same, none below the launcher's before
** (tiles alone, two configs), 1.13-1.23x at the ties; without it 64 x 192
** runs where it lost 4-5% (nn 768 x 10240, 2048 x 13824). */
#define PROGRAM_FIXED 4096

/* The elements of a program's tile of kernel k (above), with *what its
** words for the comments ("128 x 128, the k:gemm accumulator", "1 x 2048,
** its largest k:fragment"); 0 where k has no k:gemm and no k:fragment. */
static long long tile_work(const Kernel *k, const char **what) {
  const Sym *t = k->gemm ? k->gemm->dst : NULL;
  for (int i = 0; !k->gemm && i < k->nsyms; i++) {
    const Sym *s = k->syms[i];
    if (s->kind != SYM_FRAG || s->rank < 1) continue;
    long long n = (long long)s->shape[0] * s->shape[1];
    if (!t || n > (long long)t->shape[0] * t->shape[1]) t = s;   /* the first of the largest */
  }
  if (!t) return 0;
  *what = ltU_fmt("%d x %d, %s", t->shape[0], t->shape[1],
                  k->gemm ? "the k:gemm accumulator" : "its largest k:fragment");
  return (long long)t->shape[0] * t->shape[1];
}

/* The kernel that runs bucket kernel k: k, or the earlier bucket's whose
** code it shares (Kernel.shared, pass/share.c). */
static Kernel *runs(Kernel *k) {
  return k->shared ? k->shared : k;
}

/* For each of a variant's bucket kernels ks[0..n-1] (ltN_buckets' order:
** the buckets, then the entries' alternatives) whose entry names
** alternatives: Kernel.alt, the bucket kernels of those, and the tiles of
** each and of the kernel that runs the bucket (Kernel.tile_work,
** tile_fixed, tile_what); an error at an alternative's line where one of them has no
** tile to weigh its programs by. */
void ltP_waves(Kernel **ks, int n) {
  for (int i = 0; i < n; i++) {
    Kernel *k = ks[i];
    k->nalts = 0;
    if (!k->bucket || k->build || ltN_is_alternative(k->bucket)) continue;
    int line = 0;
    const char *alt;
    for (int a = 0; a < LT_MAX_ALTS && (alt = ltN_alternative(k->tuned, k->bucket, a, &line)) != NULL; a++) {
      int j = 0;
      while (j < n && strcmp(ks[j]->bucket, alt) != 0) j++;
      if (j == n) continue;
      Kernel *two[2] = {runs(k), runs(ks[j])};
      for (int m = 0; m < 2; m++) {
        two[m]->tile_work = tile_work(two[m], &two[m]->tile_what);
        two[m]->tile_fixed = two[m]->gemm ? PROGRAM_FIXED : 0;
        if (!two[m]->tile_work)
          ltN_error_at(line, "the alternative of bucket %s: %s has no k:gemm and no k:fragment, so no tile to weigh "
                       "its programs by; an alternative needs one", k->bucket, ks[0]->launcher);
      }
      k->alt[k->nalts++] = ks[j];
    }
  }
}
