/*
** rowskip.c: a consumer warpgroup of a warp-specialized gemm whose rows
** all lie past the rows the store writes runs the loop without its
** wgmmas, and skips its store (Stmt.row_skip, Stmt.wg_skip).
**
** A tile of BM rows from row m0 holds the rows m0 .. m0 + BM - 1, but the
** store after the loop writes only those below a bound known at run time:
** the tensor's end (a plain matmul's M; at M = 4000 the last row tile,
** rows 3968 .. 4095, holds 32 rows) or the hi of X:rows(lo, hi) (a
** grouped GEMM's group end: groups of about 128 rows leave most groups'
** last tile partly empty).  A warpgroup's wgmmas write its 64 rows of the
** accumulator; where its first row lies at or past that bound none of
** them is ever stored, so it runs a copy of the loop that only waits for
** each stage's copies and gives the stage before back, as the loop does
** (lower/sched_warpspec.c): the tensor cores run one warpgroup's share of
** the tile, not two, and the producer and the other warpgroup see the
** ring's protocol unchanged.  The test is made once, before the loop, and
** is lane 0's (the same in every lane of the warp, as wgmma's
** .sync.aligned needs it and ptxas can see it).  A branch around each
** wgmma instead (the first build) ran 0.87-0.98x, ptxas putting a
** warpgroup.arrive under it every iteration; the loop copy 1.05-1.09x at
** 64 groups (docs/performance.md).
**
** Taken where, for warp-specialized loop L whose consumers' work is one
** wgmma gemm s (operands by descriptor, not swapped, one m64 block a
** warpgroup, two warpgroups or more), chained across iterations with one
** group in flight (not drained, no early release, no turns, no ping-pong,
** no split-K):
**   - s's accumulator acc is written nowhere before L but by its
**     declaration;
**   - after L, acc (and every tile let made from it) flows only into
**     assignments to itself, lets of tiles, and stores: every expression
**     is elementwise, so row i of the tile stays row i; any other use
**     (a reduction, a scalar, a loop, a second gemm) keeps the wgmmas;
**   - those stores write views whose rows are the tile's rows (the same
**     shape as acc, rows from a tensor dimension, not gathered), all with
**     the same first row and bound, made of values computed before L (the
**     consumers hold them when the loop runs).
** Only the upper bound is tested: a tile's rows start at or after the
** view's first row, and rows(lo, hi)'s lo is the group's first row.
**
** The store by TMA through one staging tile a consumer warpgroup
** (lower/store_staged.c; not a tile laid over the copies before the loop,
** which the warpgroup must give back) is skipped the same way
** (Stmt.wg_skip): a warpgroup with none of its rows inside writes nothing.
**
** The producer's copies do not change: the TMA box of A's rows past the
** tensor's end reads nothing (the copy engine fills zeros), and the rows
** of a grouped GEMM's next group that the tile's last rows hold are read
** as before (the other warpgroup's rows share the box).
**
** ltP_plan_rowskip decides it; lower/sched_warpspec.c and store_staged.c
** print the tests.
*/
#include "lt.h"

#define MAX_TRACKED 16

/* The tiles made from the accumulator (it first). */
typedef struct Flow {
  const Sym *tracked[MAX_TRACKED];
  int n;
  const View *view;   /* the first store's view */
  Stmt *stores[MAX_TRACKED];
  int nstores;
  int bad;
} Flow;

/* Does statement s itself name a tracked tile? */
static int reads_tracked(const Stmt *s, const Flow *f) {
  for (int i = 0; i < f->n; i++)
    if (ltP_names(s, f->tracked[i])) return 1;
  return 0;
}

static int is_tracked(const Flow *f, const Sym *x) {
  for (int i = 0; i < f->n; i++)
    if (f->tracked[i] == x) return 1;
  return 0;
}

/* Do views a and b have the same first row and the same bound? */
static int same_rows(const View *a, const View *b) {
  if (a->t != b->t || a->rdim != b->rdim || !ltI_same(a->origin[a->rdim], b->origin[b->rdim])) return 0;
  if (!a->rhi != !b->rhi) return 0;
  return !a->rhi || ltI_same(a->rhi, b->rhi);
}

/* Follows the tracked tiles through block b (the statements after the
** loop, or a branch's); f->bad where one flows anywhere but elementwise
** work and stores. */
static void follow(Block *b, Flow *f, const Sym *acc) {
  for (Stmt *s = b->first; s && !f->bad; s = s->next) {
    if (s->kind == S_IF) {
      Stmt c = {.val = s->val};
      if (reads_tracked(&c, f)) f->bad = 1;
      follow(&s->body, f, acc);
      follow(&s->orelse, f, acc);
      continue;
    }
    int names = reads_tracked(s, f);
    if (s->kind != S_ASSIGN && s->kind != S_LET && s->kind != S_STORE) {   /* a loop, a gemm, a reduction, ... */
      for (int i = 0; i < f->n; i++)
        if (ltP_names(s, f->tracked[i]) || ltP_uses(s->body.first, f->tracked[i]) ||
            ltP_uses(s->orelse.first, f->tracked[i]))
          f->bad = 1;
      continue;
    }
    if (!names) continue;
    if (s->kind == S_ASSIGN && is_tracked(f, s->dst)) continue;   /* acc = f(acc, ...): elementwise */
    if (s->kind == S_LET && s->dst->rank > 0 && f->n < MAX_TRACKED) {
      f->tracked[f->n++] = s->dst;
      continue;
    }
    if (s->kind == S_STORE && s->view && f->nstores < MAX_TRACKED) {
      const View *v = s->view;
      int shape[2];
      ltI_view_shape(v, shape);
      if (v->rdim < 0 || v->scalar || ltI_view_gathers(v) || shape[0] != acc->shape[0] || shape[1] != acc->shape[1] ||
          !ltI_is_tile(s->val) || (f->view && !same_rows(f->view, v))) {
        f->bad = 1;
        continue;
      }
      if (!f->view) f->view = v;
      f->stores[f->nstores++] = s;
      continue;
    }
    f->bad = 1;
  }
}

/* Is every symbol of expression x a size, a parameter, a program id, or a
** scalar defined at the top level before statement end? */
static int before(const Kernel *k, const Expr *x, const Stmt *end) {
  if (!x) return 1;
  if (x->kind == E_SYM) {
    const Sym *y = x->sym;
    if (y->kind == SYM_SIZE || y->kind == SYM_SCALAR || y->kind == SYM_PID || y->kind == SYM_STRIDE) return 1;
    if (y->kind != SYM_LET || y->rank != 0) return 0;
    for (const Stmt *s = k->body.first; s && s != end; s = s->next)
      if (s->dst == y && (s->kind == S_LET || s->kind == S_LOAD)) return 1;
    return 0;
  }
  return before(k, x->a, end) && before(k, x->b, end) && before(k, x->c, end);
}

/* Plans the skips of warp-specialized loop L of kernel k (see above). */
void ltP_plan_rowskip(Kernel *k, Stmt *L) {
  if (L != k->ws || L->kind != S_FOR || L->sched != SCHED_WARPSPEC || L->defer || L->nlates || L->roll || L->drain ||
      L->early_release || L->open_gemm || !L->ncarried || k->pingpong || k->splitk)
    return;
  const Stmt *w = L->body.first;   /* the consumers' work: one gemm, skipped whole (sched_warpspec.c) */
  while (w && ltP_is_producer(w)) w = w->next;
  if (!w || w->kind != S_GEMM || w->next) return;
  for (Stmt *g = L->body.first; g; g = g->next) {
    if (g->kind != S_GEMM || g->inst != MMA_WGMMA || !g->shared || !g->shared->wgmma || g->a_words || g->areg ||
        g->deferred)
      continue;
    const Sym *acc = g->dst;
    if (!acc->layout || acc->layout->swap || acc->layout->rgap || acc->rank != 2 || acc->shape[0] <= 64) continue;   /* (one block: the tile's
                                                                                                first row, see above) */
    int others = 0;   /* the body's other statements naming acc */
    for (Stmt *x = L->body.first; x; x = x->next)
      if (x != g && (ltP_names(x, acc) || ltP_uses(x->body.first, acc) || ltP_uses(x->orelse.first, acc))) others = 1;
    for (Stmt *x = k->body.first; x && x != L; x = x->next)
      if ((x->kind != S_FRAG && ltP_names(x, acc)) || ltP_uses(x->body.first, acc) || ltP_uses(x->orelse.first, acc))
        others = 1;
    if (others) continue;
    Flow f = {.tracked = {acc}, .n = 1};
    follow(&(Block){L->next, k->body.last}, &f, acc);
    if (f.bad || !f.view) continue;
    const View *v = f.view;
    if (!before(k, v->origin[v->rdim], L) || !before(k, v->t->dims[v->rdim], L) || !before(k, v->rhi, L)) continue;
    g->row_skip = v;
    for (int i = 0; i < f.nstores; i++) {
      Stmt *s = f.stores[i];
      if (s->via && s->via->tma_out && !s->via->over && s->via->stages > 1 && !k->pingpong) s->wg_skip = 1;
    }
  }
}
