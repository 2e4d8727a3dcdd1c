/*
** sched_gemm.c: a k:pipelined loop and its one gemm as one software
** pipeline (SCHED_GEMM: plan.c picks it for a matmul-like loop on a
** cp.async target, its gemm by mma.sync with double-buffered fragments).
**
** The cp.async stage ring of sched_ring.c and the ldmatrix ring of
** gemm_mma_sync.c run as one: the gemm's K steps of 16 go on across the
** iterations, and the copies for later iterations are spread between them.
*/
#include "emit/emit.h"

/* Pipelined loop s, whose compute is one gemm (g = s->open_gemm), as one
** software pipeline over K steps of 16.  Per iteration, step by step: the ldmatrix
** of the next step (the last step's is the next iteration's first, from
** the next stage), the mmas of this one, and between them one of the
** copies for iteration i + stages - 1; at the second-last step, the wait
** for iteration i + 1's copies and the barrier.  So no step waits on a
** barrier or an ldmatrix, and the copies are spread over the mmas. */
void ltL_sched_gemm(E *e, Stmt *s) {
  Stmt *g = s->open_gemm;
  int S = s->stages, BK = g->shared_b->shape[g->trans_b];
  Ring ring = ltL_ring_names(e, s), *r = &ring;
  const char *v = r->v, *hi = r->hi, *vs = r->vs, *vn = r->vn, *vns = r->vns;
  ltL_prologue(e, s, r, S - 1, 1);   /* (so the stages are constants: fewer registers) */
  ltE_line(e, "lt_cp_async_wait<%d>();   /* this thread's copies for the first iteration have landed */", S - 2);
  ltE_line(e, "%s   /* and everyone's */", e->barrier);
  ltE_line(e, "int %s = 0, %s = %d;   /* the stage read, the stage filled */", vs, vns, S - 1);
  ltE_comment(e, g->line);
  ltL_ring_frags(e, g);
  e->stage = vs;
  ltL_ring_load(e, g, "0", "0");
  ltE_line(e, "for (int %s = %s; %s < %s; ++%s) {", v, r->lo, v, hi, v);
  e->depth++;
  ltE_line(e, "const int %s = %s + %d;", vn, v, S - 1);
  ltE_open_for(e, "kk", BK, 16);
  ltL_ring_step(e, g, BK, ltU_fmt("%s + 1 < %s", v, hi));
  /* the copies: the i-th at step i (the last ones at the second-last
  ** step); all at the first when scalar values are among them */
  int last = BK / 16 - 2, lets = 0, n = 0;
  for (Stmt *p = s->body.first; p != g; p = p->next) lets |= p->kind != S_G2S;
  for (Stmt *p = s->body.first; p != g;) {
    Stmt *q = lets ? g : p->next;
    int step = n < last ? n : last;
    for (; !lets && q != g && step == last; q = q->next) {}
    ltE_line(e, "if (kk == %d && %s < %s) {", 16 * step, vn, hi);
    e->depth++;
    ltL_producers(e, s, p, q, vn, vns);
    e->depth--;
    ltE_line(e, "}");
    e->stage = vs;
    p = q;
    n++;
  }
  ltE_line(e, "if (kk == %d) {", BK - 32);
  e->depth++;
  ltE_line(e, "lt_cp_async_commit();");
  ltE_line(e, "lt_cp_async_wait<%d>();   /* this thread's copies for iteration %s + 1 have landed */", S - 2, v);
  ltE_line(e, "%s   /* everyone's have, and all have read stage %s: iteration %s + %d fills it */", e->barrier, vs, v,
           S);
  ltE_line(e, "%s = %s == %d ? 0 : %s + 1;", vs, vs, S - 1, vs);
  ltE_line(e, "%s = %s == %d ? 0 : %s + 1;", vns, vns, S - 1, vns);
  e->depth--;
  ltE_line(e, "}");
  ltE_close_for(e);
  e->depth--;
  ltE_line(e, "}");
  ltE_line(e, "lt_cp_async_wait<0>();");
  e->stage = NULL;
}
