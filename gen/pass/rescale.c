/*
** rescale.c: a warp skips the rescale of an accumulator by a row factor
** where every factor it holds is 1 (Stmt.unit_skip).
**
** The online softmax rescales O by alpha = exp2(m_old - m_new) a key
** block: o = o * alpha, every element of a warpgroup's accumulator (64 at
** D = 128, 128 at D = 256 a thread, against 32 to 64 exponentials).  Once
** a row's running max stops moving, its alpha is exactly 1 and the
** multiply leaves o as it was (x * 1 is x for every float, NaN and
** infinities too).  In a warp-specialized loop the consumers' warps run
** the rescale as one vote and a branch: __any_sync of "some factor of mine
** is not 1", and the multiplies only where a lane said so, for the whole
** warp.  A thread reads only the factors of its own rows, so the vote over
** the factors it holds covers them.
**
** The vote and branch cost the same at any width; what they save grows
** with the accumulator's elements a thread.  So the pass takes the skip
** only where the accumulator holds at least SKIP_MIN (128) elements a
** thread: D = 256's O.  On the H200 (bench/results/
** 2026-11-26-h200-attention-fwd-rescale.txt) D = 256 gained 4-14% with
** it, while D = 128 (64 a thread) lost 0-2% at 1K and 4K keys and
** D = 64 (32) lost 1-4%; D = 96 (48) lies between those two and keeps
** the plain multiply.
**
** ltP_plan_rescale decides it; emit/stmt.c prints the vote.
*/
#include "lt.h"

/* The accumulator's elements a thread from which the skip wins. */
#define SKIP_MIN 128

/* Is e the symbol x itself? */
static int is_sym(const Expr *e, const Sym *x) { return e && e->kind == E_SYM && e->sym == x; }

/* The row factor r of assignment s, where s is acc = acc * r (either
** order) with r an f32 row tile ([rows of acc, 1]) held in registers;
** else NULL. */
static Sym *row_factor(const Stmt *s) {
  const Expr *v = s->val;
  if (s->kind != S_ASSIGN || !v || v->kind != E_BINARY || v->op != B_MUL) return NULL;
  const Expr *r = is_sym(v->a, s->dst) ? v->b : is_sym(v->b, s->dst) ? v->a : NULL;
  if (!r || r->kind != E_SYM) return NULL;
  Sym *f = r->sym;
  if ((f->kind != SYM_LET && f->kind != SYM_FRAG) || f->dt != DT_F32 || !f->layout || f->rank != 2) return NULL;
  if (f->shape[0] != s->dst->shape[0] || f->shape[1] != 1 || (f->def && f->def->fuse)) return NULL;
  return f;
}

/* Is x the accumulator of a wgmma gemm in block b (or in a block inside
** it)? */
static int accumulates(const Block *b, const Sym *x) {
  for (const Stmt *s = b->first; s; s = s->next)
    if ((s->kind == S_GEMM && s->inst == MMA_WGMMA && s->dst == x) || accumulates(&s->body, x) ||
        accumulates(&s->orelse, x))
      return 1;
  return 0;
}

/* Marks the rescales in block b (and inside it) of the accumulators of
** loop's wgmmas that hold at least SKIP_MIN elements a thread. */
static void mark(const Stmt *loop, Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    Sym *r = row_factor(s);
    if (r && s->dst->dt == DT_F32 && ltP_elems(s->dst->layout, s->dst->shape) >= SKIP_MIN &&
        accumulates(&loop->body, s->dst))
      s->unit_skip = r;
    mark(loop, &s->body);
    mark(loop, &s->orelse);
  }
}

/* Plans the skipped rescales of warp-specialized loop s (see above): every
** acc = acc * r in its body whose acc is one of its wgmma accumulators, of
** at least SKIP_MIN elements a thread, and r a row factor in registers
** gets Stmt.unit_skip = r. */
void ltP_plan_rescale(Stmt *s) {
  if (s->kind == S_FOR && s->sched == SCHED_WARPSPEC) mark(s, &s->body);
}
