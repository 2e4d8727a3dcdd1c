/*
** sched_ring.c: a k:pipelined loop over a ring of shared-memory stages
** filled by cp.async (SCHED_RING, SCHED_REFILL, SCHED_TURNS), and the parts
** every cp.async schedule shares (the producers, the prologue).
**
** The loop's body starts with its producers (pass/pipeline.c): the copies
** into shared tiles, each now a ring of `stages` buffers.  A prologue
** issues the copies of the first stages - 1 iterations, one commit group
** each; then iteration i waits for its own group, passes a barrier, issues
** the copies of iteration i + stages - 1 into the stage iteration i - 1
** read (the refill), and computes on its stage.  plan.c decides where the
** refill goes (at the top, or after the wgmma gemm that opens the body,
** Stmt.open_gemm), whether the block's two warpgroups take turns at that
** gemm (SCHED_TURNS), and which wgmmas stay in flight across the back
** edge (Stmt.carried: then the copies go one iteration less ahead).
*/
#include "emit/emit.h"

/* ------------------------------------------------------------------ */
/* shared by the cp.async schedules                                    */

/* Emits producers [p, end) of pipelined loop `loop` (end NULL: all of
** them) with the loop index named var and the shared stage `stage`. */
void ltL_producers(E *e, Stmt *loop, Stmt *p, Stmt *end, const char *var, const char *stage) {
  const char *name = loop->var->name;
  loop->var->name = var;
  e->stage = stage;
  for (; p != end && ltP_is_producer(p); p = p->next) ltE_stmt(e, p);
  loop->var->name = name;
  e->last_line = 0;
}

/* The names of pipelined loop s's generated code (Ring). */
Ring ltL_ring_names(E *e, const Stmt *s) {
  const char *v = s->var->name;
  return (Ring){.v = v, .lo = ltE_itext(e, s->lo), .hi = ltE_itext(e, s->hi), .vs = ltU_fmt("%s_stage", v),
                .vn = ltU_fmt("%s_next", v), .vns = ltU_fmt("%s_next_stage", v)};
}

/* The prologue of pipelined loop s: the copies of its first `ahead`
** iterations, one commit group each; unrolled if `unroll`. */
void ltL_prologue(E *e, Stmt *s, const Ring *r, int ahead, int unroll) {
  if (ahead > 1)
    ltE_line(e, "/* prologue: start the copies of the first %d iterations, one commit group each */", ahead);
  else
    ltE_line(e, "/* prologue: start the copies of the first iteration, one commit group */");
  if (unroll) ltE_line(e, "#pragma unroll");
  ltE_line(e, "for (int %s = 0; %s < %d; ++%s) {", r->vs, r->vs, ahead, r->vs);
  e->depth++;
  ltE_line(e, "const int %s = %s;", r->v, strcmp(r->lo, "0") ? ltU_fmt("%s + %s", r->lo, r->vs) : r->vs);
  ltE_line(e, "if (%s < %s) {", r->v, r->hi);
  e->depth++;
  ltL_producers(e, s, s->body.first, NULL, r->v, r->vs);
  e->depth--;
  ltE_line(e, "}");
  ltE_line(e, "lt_cp_async_commit();");
  e->depth--;
  ltE_line(e, "}");
}

/* ------------------------------------------------------------------ */
/* the ring                                                            */

/* The refill of pipelined loop s: the copies for iteration r->vn (`ahead`
** on) into stage r->vns, one commit group.  That stage is one no wgmma in
** flight reads (the ring's invariant), so the copies never wait for them.
** `carry`: the loop carries wgmmas across its back edge (the stage two
** back); `late`: the refill follows the opening wgmma gemm. */
static void refill(E *e, Stmt *s, const Ring *r, int ahead, int carry, int late) {
  int S = s->stages, n = e->ninflight;
  if (late)
    ltE_line(e, "/* the copies for iteration %s + %d, issued while the tensor cores run the wgmmas above */", r->v,
             ahead);
  ltE_line(e, "const int %s = %s + %d;", r->vn, r->v, ahead);
  if (carry) ltE_line(e, "const int %s = %s < 2 ? %s + %d : %s - 2;", r->vns, r->vs, r->vs, S - 2, r->vs);
  else ltE_line(e, "const int %s = %s == 0 ? %d : %s - 1;", r->vns, r->vs, S - 1, r->vs);
  ltE_line(e, "if (%s < %s) {", r->vn, r->hi);
  e->depth++;
  e->ninflight = 0;
  ltL_producers(e, s, s->body.first, NULL, r->vn, r->vns);
  e->ninflight = n;
  e->depth--;
  ltE_line(e, "}");
  ltE_line(e, "lt_cp_async_commit();");
  e->stage = r->vs;
}

/* A k:pipelined loop with an N-stage ring and cp.async (SCHED_RING,
** SCHED_REFILL, SCHED_TURNS): the copies for iteration i + N - 1 are issued
** while iteration i computes (i + N - 2 when its last wgmmas stay in
** flight across the back edge: s->carried), at the body's top or after
** the wgmma gemm that opens it (s->open_gemm), which the two warpgroups
** of the block may take in turns. */
void ltL_sched_ring(E *e, Stmt *s) {
  int S = s->stages, ncarry = s->ncarried, ahead = S - 1 - (ncarry > 0);
  Ring r = ltL_ring_names(e, s);
  const char *v = r.v, *lo = r.lo, *hi = r.hi, *vs = r.vs;
  Stmt *p = s->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  ltL_prologue(e, s, &r, ahead, 0);
  Stmt *g = s->open_gemm, *turn = s->sched == SCHED_TURNS ? g : NULL;   /* turn: the gemm taken in turns */
  if (turn)
    ltE_line(e, "if (tid >= 128) lt_wg_turn_pass(1);   "
                "/* the warpgroups take turns at the wgmmas of line %d: 0 goes first */", turn->line);
  ltE_line(e, "for (int %s = %s, %s = 0; %s < %s; ++%s, %s = %s == %d ? 0 : %s + 1) {", v, lo, vs, v, hi, v, vs, vs,
           S - 1, vs);
  e->depth++;
  ltE_line(e, "lt_cp_async_wait<%d>();   /* this thread's copies for iteration %s have landed */", ahead - 1, v);
  if (ncarry)
    ltE_line(e, "%s   /* everyone's have; and stage %s - 2 is free again (its wgmmas were waited for in iteration "
                "%s - 1) */", e->barrier, v, v);
  else
    ltE_line(e, "%s   /* everyone's have; and stage %s - 1 is free again */", e->barrier, v);
  if (!g) refill(e, s, &r, ahead, ncarry > 0, 0);
  e->stage = vs;
  e->carrying = ncarry > 0;
  if (ncarry) {   /* the last iteration's, still in flight (none in the first) */
    ltE_line(e, "/* in flight from the iteration before: the wgmmas into %s%s */", s->carried[0]->name,
             ncarry > 1 ? " and more" : "");
    memcpy(e->inflight, s->carried, ncarry * sizeof *s->carried);
    e->ninflight = ncarry;
  }
  if (s->own_lane) {
    e->lane = ltU_fmt("%s_lane", v);
    ltE_line(e, "const int %s = lt_opaque(lane);   /* the ldmatrix addresses below are made from it in each "
                "iteration, not held in registers across the loop */", e->lane);
  }
  for (Stmt *x = p; x; x = x->next) {
    if (x == turn) ltE_line(e, "lt_wg_turn_wait(tid / 128);   /* this warpgroup's turn at the tensor cores */");
    ltE_stmt(e, x);
    if (x == turn)
      ltE_line(e, "lt_wg_turn_pass(tid / 128);   /* the other's: its wgmmas run while this one works on these */");
    if (x == g) refill(e, s, &r, ahead, ncarry > 0, 1);
  }
  if (!ncarry) ltL_wgmma_wait(e);
  e->carrying = 0;
  e->lane = "lane";
  e->stage = NULL;
  e->depth--;
  ltE_line(e, "}");
  if (turn)
    ltE_line(e, "if (tid < 128) lt_wg_turn_wait(0);   /* warpgroup 1's last hand-over: no arrival left pending */");
  ltE_line(e, "lt_cp_async_wait<0>();");
}
