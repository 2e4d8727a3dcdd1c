/*
** issue.c: the loads of a step, issued together.
**
** A load of 16-bit elements into registers converts each vector to f32
** as it lands, so a second load written after it is issued only once the
** first one's data are in (bias_dropout_add bf16: R's vectors left after
** X's arrived, at 0.64x of a copy's bandwidth).  A step here is a run of
** statements of one block with no store, loop, branch, barrier, gemm or
** copy to shared memory among them; the loads of a step that move whole
** 16-byte vectors of 2-byte elements along rows into a register tile
** (View.ahead, layout.c, or one such vector a thread), whose views read
** nothing the step computes before them, go as one group where two of
** them or more move several vectors each from tensors of two dims or more
** (read once; a weight row, read by every program, beside one such load,
** rmsnorm's W beside X, ran 6-7% slower grouped): lower/copy.c
** (ltL_issue) issues every vector of the group into one array before the
** group's first load, and each load converts its own where it stands.
** CUDA targets (as View.ahead), at most LT_ISSUE_VECTORS vectors a group.
*/
#include "lt.h"

/* Does expression x read symbol s? */
static int reads(const Expr *x, const Sym *s) {
  if (!x) return 0;
  if (x->kind == E_SYM && x->sym == s) return 1;
  return reads(x->a, s) || reads(x->b, s) || reads(x->c, s);
}

/* Does view v (its offsets, its mask, the rows of X:rows) read symbol s? */
static int view_reads(const View *v, const Sym *s) {
  for (int d = 0; d < v->t->trank; d++)
    if (reads(v->origin[d], s)) return 1;
  return reads(v->mask, s) || reads(v->rlo, s) || reads(v->rhi, s);
}

/* The 16-byte vectors a thread moves for load s, when it can go in a
** group: one marked View.ahead (two to four), or a single 16-byte vector
** of 2-byte elements of a blocked register tile along the rows of a
** tensor of unit column stride from a column >= 0 (a bias row); else 0. */
static int vectors(const Stmt *s) {
  const View *v = s->view;
  if (s->kind != S_LOAD || !s->dst || s->dst->rank == 0 || !v || v->scalar || v->cdim < 0) return 0;
  if (s->resident == RES_READ) return 0;   /* (its vectors come from shared memory: pass/resident.c) */
  const Layout *l = s->dst->layout;
  int shape[2];
  ltI_view_shape(v, shape);
  int n = l ? (shape[0] == l->rows ? l->nr : 1) * (shape[1] == l->cols ? l->nc : 1) : 0;
  if (v->ahead) return n;
  long long cs;
  if (!l || l->mma || !l->family || l->vec != 8 || shape[1] != l->cols || ltI_dtypes[v->t->dt].bytes != 2) return 0;
  if (!ltI_const_int(v->t->strides[v->cdim], &cs) || cs != 1 || !ltI_nonneg(v->origin[v->cdim])) return 0;
  if (ltI_view_gathers(v) || (v->mask && v->mask->rank && v->mask->shape[1] > 1)) return 0;
  return n == 1 ? 1 : 0;
}

/* May statement s stand inside a step (between two of its loads)? */
static int in_step(const Stmt *s) {
  return s->kind == S_LET || s->kind == S_FRAG || s->kind == S_ASSIGN || s->kind == S_LOAD || s->kind == S_REDUCE;
}

/* Does load s read nothing that the statements from `from` up to s
** define (a gathered row's indices, a mask made in the step)? */
static int independent(const Stmt *from, const Stmt *s) {
  for (const Stmt *x = from; x != s; x = x->next)
    if (x->dst && view_reads(s->view, x->dst)) return 0;
  return 1;
}

/* Groups the loads of each step of block b (and of the blocks inside it):
** each member of a group of two or more gets its first statement
** (Stmt.issue_first) and the member after it (issue_next); the first, the
** kernel's next group number (issue_group, from *groups). */
static void group_block(Block *b, int *groups) {
  for (Stmt *s = b->first; s; s = s->next) {   /* (groups numbered in the text's order) */
    group_block(&s->body, groups);
    group_block(&s->orelse, groups);
    if (s->issue_first || !vectors(s)) continue;
    Stmt *last = s;
    int n = vectors(s);
    for (Stmt *x = s->next; x && in_step(x); x = x->next) {
      int m = vectors(x);
      if (!m || x->issue_first || n + m > LT_ISSUE_VECTORS || !independent(s, x)) continue;   /* (one group a load) */
      last->issue_next = x;
      last = x;
      n += m;
    }
    int several = 0;   /* loads of several vectors a thread from matrices (not a row every program reads) */
    for (Stmt *x = s; x; x = x->issue_next) several += vectors(x) > 1 && x->view->t->trank >= 2;
    if (several < 2) {   /* (rmsnorm bf16's X and its weight row W went 6-7% slower so, H200) */
      for (Stmt *x = s, *nx; x; x = nx) nx = x->issue_next, x->issue_next = NULL;
      continue;
    }
    s->issue_group = ++*groups;
    for (Stmt *x = s; x; x = x->issue_next) x->issue_first = s;
  }
}

/* Marks the groups of loads issued together in kernel k on target t. */
void ltP_issue(Kernel *k, const Target *t) {
  if (t->lang != LANG_CUDA || k->threads >= 1024) return;
  int groups = 0;
  group_block(&k->body, &groups);
}
