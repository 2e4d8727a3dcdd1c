/*
** fastdiv.c: a persistent grid's index divisions by multiply and shift.
**
** A persistent kernel (Kernel.persistent, plan.c) computes the scalars
** before its warp-specialized loop again for each program it takes
** (lower/sched_warpspec.c, open_programs): the program's coordinates, for
** attention's forward tile.grouped's order and the head of a query head,
** made by integer division and remainder.  A division by a value that is
** not a constant is a long sequence on the GPU (to float, a reciprocal on
** the special-function unit, back to int, corrections, the signs), and
** most of those divisors are the same in every program: sizes and their
** products.  Such a division gets Expr.div, and its divisor a place in
** Kernel.divs: the kernel prepares each divisor once a block, before the
** programs (lt_divisor_of in templates/cuda_fast.h: a 32-bit multiplier and
** a shift), and each division is then a multiply-high, an add and a shift
** (lt_div; lt_mod one multiply-add more).  A let that only such divisions
** read (the divisor's own, as the DSL named it) goes.
**
** Taken: i32 division and remainder whose divisor is made of sizes,
** scalars and constants alone (ltI_host_expr), is not a constant (the
** compiler multiplies by those already) and is never negative (ltI_range;
** the launcher refuses a divisor of 0: emit/launcher.c, divisors), and
** whose dividend is never negative and differs between programs (one
** that does not is the same division in every program, which the
** compiler hoists), in a kernel with at least LT_MINDIVS such divisors
** (ltP_fastdiv says why).  The method (templates/cuda_fast.h) is exact for
** every dividend in [0, 2^31) and divisor in [1, 2^31).
*/
#include "lt.h"

/* The place of x's divisor in k->divs, added if new (-1 where k->divs is
** full), or -1 where x is no division this pass takes. */
static int slot(Kernel *k, Expr *x) {
  if (x->kind != E_BINARY || (x->op != B_IDIV && x->op != B_MOD) || x->rank || x->dt != DT_I32) return -1;
  long long lo, hi, v;
  Expr *d = ltI_host_expr(x->b);
  if (!d || ltI_const_int(d, &v) || ltI_host_expr(x->a)) return -1;
  ltI_range(x->b, &lo, &hi);
  if (lo < 0) return -1;
  ltI_range(x->a, &lo, &hi);
  if (lo < 0) return -1;
  for (int i = 0; i < k->ndivs; i++)
    if (ltI_same(k->divs[i], d)) return i;
  if (k->ndivs == LT_MAXDIVS) return -1;
  k->divs[k->ndivs] = d;
  k->div_line[k->ndivs] = x->line;
  return k->ndivs++;
}

/* Marks the divisions of expression x (and of those inside it) that
** this pass takes (Expr.div). */
static void mark(Kernel *k, Expr *x) {
  if (!x) return;
  mark(k, x->a);
  mark(k, x->b);
  mark(k, x->c);
  int i = slot(k, x);
  if (i >= 0) {
    x->div = i + 1;
    x->b = k->divs[i];   /* (over sizes, scalars and constants: a let it named may now go unread) */
  }
}

/* Removes the lets before k's warp-specialized loop that nothing reads
** any more (a divisor's, whose divisions now read the prepared one), until
** none is left. */
static void drop_unread(Kernel *k) {
  for (int changed = 1; changed;) {
    changed = 0;
    ltI_count_uses(k);
    for (Stmt **link = &k->body.first; *link && *link != k->ws;) {
      Stmt *s = *link;
      if (s->kind == S_LET && s->dst->rank == 0 && s->dst->uses == 0) {
        *link = s->next;
        changed = 1;
        continue;
      }
      link = &s->next;
    }
  }
  ltI_fix_last(&k->body);
}

/* Registers in k->divs the divisors of the divisions of expression x (and
** of those inside it) that this pass would take, changing nothing else. */
static void count(Kernel *k, Expr *x) {
  if (!x) return;
  count(k, x->a);
  count(k, x->b);
  count(k, x->c);
  slot(k, x);
}

/* The divisions of persistent kernel k's per-program scalars (those
** before its warp-specialized loop) by divisors the same in every
** program: by multiply and shift, where there are LT_MINDIVS divisors or
** more.  A prepared divisor stays live in every role for the whole
** kernel (three registers); for one, the divisions a program it saves
** do not pay for them: the sm90a GEMMs' tile.grouped, one divisor, one
** division and one remainder a program, spilled in the 40 registers of
** its producer warpgroup with a bias staged. */
void ltP_fastdiv(Kernel *k) {
  if (!k->persistent || !k->ws) return;
  for (Stmt *s = k->body.first; s && s != k->ws; s = s->next)
    if (s->kind == S_LET && s->dst->rank == 0) count(k, s->val);
  int n = k->ndivs;
  k->ndivs = 0;
  if (n < LT_MINDIVS) return;
  for (Stmt *s = k->body.first; s && s != k->ws; s = s->next)
    if (s->kind == S_LET && s->dst->rank == 0) mark(k, s->val);
  drop_unread(k);
}
