/*
** pass/waves.c: a program's work, for the shape dispatch's pick between a
** bucket's config and its entry's alternative (tuned.c, emit/dispatch.c).
**
** The launcher runs whichever of the two leaves the busiest multiprocessor
** less work at the call's sizes: its programs a multiprocessor, rounded up
** (the waves), times the elements of a program's tile.  The tile is the
** accumulator of the kernel's k:gemm (rows x cols), else its largest
** k:fragment: the output a program computes, which its time follows in
** the kernels that have one.  Split-K parts and a program's K extent are
** not counted: the two configs of a bucket share them.
*/
#include "../lt.h"

/* The elements of a program's tile of kernel k (above), with *what its
** words for the comments ("128 x 128, the k:gemm accumulator", "1 x 2048,
** its largest k:fragment"); 0 where k has no k:gemm and no k:fragment. */
long long ltP_tile_work(const Kernel *k, const char **what) {
  const Sym *t = k->gemm ? k->gemm->dst : NULL;
  for (int i = 0; !k->gemm && i < k->nsyms; i++) {
    const Sym *s = k->syms[i];
    if (s->kind != SYM_FRAG || s->rank < 1) continue;
    long long n = (long long)s->shape[0] * s->shape[1];
    if (!t || n > (long long)t->shape[0] * t->shape[1]) t = s;   /* the first of the largest */
  }
  if (!t) return 0;
  if (what)
    *what = ltU_fmt("%d x %d, %s", t->shape[0], t->shape[1],
                    k->gemm ? "the k:gemm accumulator" : "its largest k:fragment");
  return (long long)t->shape[0] * t->shape[1];
}
