/*
** pipeline.c: k:pipelined loops.
**
** The body of a pipelined loop starts with its producers, the copies from
** global views into shared tiles (and the scalar values they need); the
** rest are consumers.  plan.c has picked how each loop runs on the target
** (Stmt.sched); this pass checks the body and makes the rings that needs.
** With asynchronous copies (cp.async, SCHED_RING), each shared tile a
** producer fills becomes a ring of `stages` copies and the emitter issues
** iteration i + stages - 1's copies while iteration i computes
** (lower/sched_ring.c); the copies just before the loop into tiles of one
** buffer (lead_in) join the first stage's.  With the register prefetch
** (SCHED_PREFETCH, CDNA: a loop whose work is one gemm) the copies go
** through registers one iteration ahead, into a double buffer of each
** shared tile (a ring of 2), or the one buffer when two do not fit in LDS
** (smem.c; lower/sched_prefetch.c).  A plain loop (gfx1100's, the C
** target's, a body of other work on CDNA) runs over one buffer, and
** barrier.c orders the copies and the reads.
*/
#include "lt.h"

/* Is s one of the statements a pipelined body starts with: a copy into a
** shared tile, or a scalar value one needs (computed, or loaded from
** memory: a block table's page number)? */
int ltP_is_producer(const Stmt *s) {
  return s->kind == S_G2S || ((s->kind == S_LET || s->kind == S_LOAD) && s->dst->rank == 0);
}

/* Checks the shape of one pipelined loop and sets up the rings of the
** schedule plan.c gave it. */
static void plan(Stmt *loop) {
  Stmt *s = loop->body.first;
  int copies = 0;
  for (; s && ltP_is_producer(s); s = s->next) copies += s->kind == S_G2S;
  for (Stmt *c = s; c; c = c->next)
    if (c->kind == S_G2S)
      ltU_error(c->line, "in a k:pipelined body, the copies into shared tiles come first, before line %d", s->line);
  if (!copies)
    ltU_error(loop->line, "a k:pipelined body starts with the copies it overlaps, k:copy(view, shared_tile); "
                          "this one has none (use k:serial for a plain loop)");
  if (loop->sched == SCHED_PLAIN) {   /* plan.c: it overlaps nothing on t */
    loop->stages = 1;
    return;
  }
  int ring = loop->sched == SCHED_PREFETCH ? 2 : loop->stages;
  for (Stmt *p = loop->body.first; p != s; p = p->next) {
    if (p->kind != S_G2S) continue;
    if (p->shared->stages > 1 && p->shared->stages != ring)
      ltU_error(p->line, "shared tile %s is filled by two pipelined loops with different stages", p->shared->name);
    p->shared->stages = ring;
  }
  for (Stmt *g = s; g; g = g->next)   /* a tf32 gemm's copy of B, K-major (mma.c): one a stage too */
    if (g->kind == S_GEMM && g->b_t) g->b_t->stages = ring;
}

/* The lead-in copies of pipelined loop `loop` (with a stage ring) in
** block b: the copies into one-buffer shared tiles that come before it with
** only register work between (lets, fragments, assignments, global loads
** into registers).  They are issued by cp.async too, and land with the
** loop's first stage: its first wait and barrier cover them.  (A plain copy
** there held every thread until its loads were in before the loop's own
** copies were even issued: attention's Q tile, H100, d128 at 1K tokens
** 283 against 313 TFLOP/s.) */
static void lead_in(Block *b, Stmt *loop) {
  Stmt *from = b->first;
  for (Stmt *s = b->first; s != loop; s = s->next)
    if (s->kind != S_G2S && s->kind != S_LET && s->kind != S_FRAG && s->kind != S_ASSIGN && s->kind != S_LOAD)
      from = s->next;
  for (Stmt *s = from; s != loop; s = s->next)
    if (s->kind == S_G2S && s->shared->stages <= 1) s->lead_in = 1;
}

/* Sets up the pipelined loops of block b, `depth` pipelined loops deep. */
static void walk(Block *b, int depth) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->kind == S_FOR && s->stages) {
      if (depth) ltU_error(s->line, "k:pipelined loops do not nest inside other pipelined loops");
      plan(s);
      if (s->sched == SCHED_RING) lead_in(b, s);
      walk(&s->body, depth + 1);
      continue;
    }
    walk(&s->body, depth);
    walk(&s->orelse, depth);
  }
}

/* Sets up every pipelined loop of kernel k (plan.c has picked their
** schedules on the target). */
void ltP_pipeline(Kernel *k) { walk(&k->body, 0); }
