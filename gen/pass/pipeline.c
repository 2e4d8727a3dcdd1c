/*
** pipeline.c: k:pipelined loops.
**
** The body of a pipelined loop starts with its producers, the copies from
** global views into shared tiles (and the scalar values they need); the
** rest are consumers.  On a target with asynchronous copies (cp.async),
** each shared tile a producer fills becomes a ring of `stages` copies and
** the emitter issues iteration i + stages - 1's copies while iteration i
** computes (emit.c: pipelined); the copies just before the loop into
** tiles of one buffer (lead_in) join the first stage's.  On AMD (no
** asynchronous copy) the copies go through registers one iteration ahead:
** iteration i + 1's global loads are issued before iteration i computes,
** and land in a double buffer of each shared tile (a ring of 2), or in
** the one buffer when two do not fit in LDS (smem.c; emit.c: prefetched),
** for a loop whose work is one gemm, on CDNA (gfx1100's WMMA kernels
** spilled 67-354 VGPRs with the buffers).  Other loops there, gfx1100's
** and the C target's run plainly over one buffer, and barrier.c orders the
** copies and the reads.
*/
#include "lt.h"

/* Is s one of the statements a pipelined body starts with: a copy into a
** shared tile, or a scalar value one needs? */
int ltP_is_producer(const Stmt *s) { return s->kind == S_G2S || (s->kind == S_LET && s->dst->rank == 0); }

/* Can the copies of a loop (its producers, up to `end`) go through
** registers: each thread's part of each copy in whole 16-byte chunks, and
** the work one gemm?  (With more work in the body, as attention's loops
** have, the buffers pushed AMD backward kernels into spills.) */
static int prefetchable(Kernel *k, const Stmt *loop, const Stmt *end) {
  if (!end || end->kind != S_GEMM || end->next) return 0;
  for (const Stmt *p = loop->body.first; p != end; p = p->next) {
    if (p->kind != S_G2S) continue;
    int shape[2];
    ltI_view_shape(p->view, shape);
    Dtype dt = p->view->t->dt;
    if (ltP_copy_layout(k, shape, dt)->vec * ltI_dtypes[dt].bytes != 16) return 0;
  }
  return 1;
}

/* Checks the shape of one pipelined loop and sets up its rings. */
static void plan(Kernel *k, Stmt *loop, const Target *t) {
  Stmt *s = loop->body.first;
  int copies = 0;
  for (; s && ltP_is_producer(s); s = s->next) copies += s->kind == S_G2S;
  for (Stmt *c = s; c; c = c->next)
    if (c->kind == S_G2S)
      ltU_error(c->line, "in a k:pipelined body, the copies into shared tiles come first, before line %d", s->line);
  if (!copies)
    ltU_error(loop->line, "a k:pipelined body starts with the copies it overlaps, k:copy(view, shared_tile); "
                          "this one has none (use k:serial for a plain loop)");
  if (loop->stages < 2 || (!t->async_copy && !(t->reg_prefetch && prefetchable(k, loop, s)))) {
    loop->stages = 1;
    return;
  }
  int ring = t->async_copy ? loop->stages : 2;
  for (Stmt *p = loop->body.first; p != s; p = p->next) {
    if (p->kind != S_G2S) continue;
    if (p->shared->stages > 1 && p->shared->stages != ring)
      ltU_error(p->line, "shared tile %s is filled by two pipelined loops with different stages", p->shared->name);
    p->shared->stages = ring;
  }
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

static void walk(Kernel *k, Block *b, const Target *t, int depth) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->kind == S_FOR && s->stages) {
      if (depth) ltU_error(s->line, "k:pipelined loops do not nest inside other pipelined loops");
      plan(k, s, t);
      if (s->stages > 1 && t->async_copy) lead_in(b, s);
      walk(k, &s->body, t, depth + 1);
      continue;
    }
    walk(k, &s->body, t, depth);
    walk(k, &s->orelse, t, depth);
  }
}

/* Plans every pipelined loop of kernel k for target t. */
void ltP_pipeline(Kernel *k, const Target *t) { walk(k, &k->body, t, 0); }
