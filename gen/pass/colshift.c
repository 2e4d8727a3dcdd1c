/*
** colshift.c: tile columns shifted right, seen through their lets.
**
** A column index written as a named value (local col = k:iota(..., 2) +
** bn * BN) and then shifted right by k, or masked by 2^k - 1, is a value
** of each lane that the printing can divide a term at a time when the
** thread holds its columns in vectors of 2^k or more (emit/text.c,
** column_shift: (tx * 8 + vi + bn * 1024) >> 2 as tx * 2 + (vi >> 2) +
** bn * 256), so that the compiler sees one value for 2^k lanes (one
** Philox block for a quad).  Through the let's array it cannot; so, after
** layout.c, each such shift of a let in a statement of such a layout reads
** the let's definition instead (an iota plus uniform multiples of 2^k,
** cheap to compute again), and a let nobody reads any more goes.
*/
#include "lt.h"

/* In expression x of a statement whose tile layout is l, the shifts and
** masks (ltI_shift_bits) of a let of l's shape whose definition a shift
** divides (ltI_column_sum), made to read that
** definition; returns how many. */
static int rewrite(Expr *x, const Layout *l) {
  if (!x) return 0;
  int n = rewrite(x->a, l) + rewrite(x->b, l) + rewrite(x->c, l);
  long long k = ltI_shift_bits(x);
  const Expr *a = x->a, *sc[4];
  if (!k || a->kind != E_SYM || a->sym->kind != SYM_LET || !a->sym->def || a->sym->def->kind != S_LET) return n;
  int nsc;
  const Expr *v = a->sym->def->val;
  if (a->shape[0] != l->rows || a->shape[1] != l->cols || v->shape[0] != l->rows || v->shape[1] != l->cols ||
      l->vec % (1 << k) || !ltI_column_sum(v, l->cols, k, sc, &nsc))
    return n;
  x->a = (Expr *)v;
  return n + 1;
}

/* rewrite over the statements of b that define a tile of a copy layout
** (not an accumulator's); returns how many shifts now read a definition. */
static int rewrite_block(Block *b) {
  int n = 0;
  for (Stmt *s = b->first; s; s = s->next) {
    if ((s->kind == S_LET || s->kind == S_ASSIGN) && s->dst && s->dst->rank && s->dst->layout &&
        !s->dst->layout->mma)
      n += rewrite(s->val, s->dst->layout);
    n += rewrite_block(&s->body) + rewrite_block(&s->orelse);
  }
  return n;
}

/* Removes the tile lets nobody reads (those the rewrite left unread). */
static void drop_unread(Block *b) {
  for (Stmt **link = &b->first; *link;) {
    Stmt *s = *link;
    drop_unread(&s->body);
    drop_unread(&s->orelse);
    if (s->kind == S_LET && s->dst->rank && s->dst->uses == 0) {
      *link = s->next;
      continue;
    }
    link = &s->next;
  }
  ltI_fix_last(b);
}

/* The pass; see the comment at the top. */
void ltP_colshift(Kernel *k) {
  if (!rewrite_block(&k->body)) return;
  ltI_count_uses(k);
  drop_unread(&k->body);
}
