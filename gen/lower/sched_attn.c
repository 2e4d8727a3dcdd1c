/*
** sched_attn.c: the consumers' loop of a warp-specialized kernel whose
** second gemm runs one iteration late (Stmt.defer, pass/defer.c:
** attention's O += P V behind the next S = Q K^T).
**
** Each iteration: wait for the stage; this warpgroup's turn; the wgmmas
** of the opening gemm (S_j), one commit group; those of the deferred gemm
** of the iteration before (from the P it packed, on the stage before),
** another group, empty in the first iteration; the other warpgroup's
** turn.  Then the body as the DSL wrote it, the emitter in ordered mode
** (E.ordered): a statement waits for the groups up to the newest it names
** (ltP_wait_keep), so the softmax of S_j starts after wgmma.wait_group 1
** while P_{j-1} V_{j-1} runs, and the rescale of O waits for the rest; the
** deferred gemm's place in the body packs P_j (gemm_wgmma.c).  The stage
** before goes back after the body (its P V is done).  After the loop, the
** last P V, on the last stage.  Where the deferred gemm is skipped (the
** first iteration; a program without key blocks), its empty group comes
** behind a wgmma.fence all the same (deferred_group).
*/
#include "emit/emit.h"

/* The deferred gemm d (K extent BK) where cond holds, on stage stage, as
** one commit group (why: the commit's comment, or none); where cond does
** not hold, an empty group behind a wgmma.fence of its own.  Both paths
** fence before they commit: with the fence on one path only, ptxas adds a
** warpgroup.arrive where the two join (its note C7519, "to allow use of
** registers in GMMA"), as it did in the d96 and d128 forward kernels. */
static void deferred_group(E *e, const Stmt *d, int BK, const char *cond, const char *stage, const char *why) {
  const char *c = why ? ltU_fmt("   /* %s */", why) : "";
  ltE_line(e, "if (%s) {", cond);
  e->depth++;
  e->stage = stage;
  ltL_wgmma_deferred(e, d, BK);
  ltE_line(e, "lt_wgmma_commit();%s", c);
  e->depth--;
  ltE_line(e, "} else {");
  e->depth++;
  ltE_line(e, "lt_wgmma_fence();   /* on this path too, so that ptxas adds none where the two join */");
  ltE_line(e, "lt_wgmma_commit();%s", c);
  e->depth--;
  ltE_line(e, "}");
}

/* Ends the body of a consumer loop whose wgmmas of the iteration before
** ran on that iteration's stage (prev): once every wgmma is done, each
** warp gives that stage back, and the loop closes. */
void ltL_defer_close(E *e, const Stmt *s, const Ring *r, const char *prev) {
  ltL_wgmma_wait(e);
  ltE_line(e, "if (%s > %s && lane == 0) lt_mbar_arrive(&%s_empty[%s]);   /* iteration %s - 1's wgmmas are done: each "
              "warp gives its stage back to the producer */", r->v, r->lo, s->var->name, prev, r->v);
  e->ordered = 0;
  e->depth--;
  ltE_line(e, "}");
  e->last_line = 0;
}

/* After the wgmmas deferred past such a loop's last iteration: on a
** persistent grid, the last fill's stage (prev) goes back for the next
** program's copies once they are done. */
void ltL_defer_give_last(E *e, const Stmt *s, const Ring *r, const char *prev) {
  if (!e->k->persistent) return;
  ltL_wgmma_wait(e);
  ltE_line(e, "if (%s > %s && lane == 0) lt_mbar_arrive(&%s_empty[%s]);   /* the last stage goes back to the producer, "
              "which fills it for the next program */", ltE_paren(r->hi), r->lo, s->var->name, prev);
}

/* The consumers' loop of warp-specialized loop s (ring names r) with the
** deferred gemm s->defer; sched_warpspec.c's consumer_loop otherwise. */
void ltL_attn_consumer_loop(E *e, Stmt *s, const Ring *r) {
  const Stmt *d = s->defer, *w = s->open_gemm;
  const char *ph = ltU_fmt("%s_phase", r->v);
  int S = s->stages, BK = d->shared_b->shape[d->trans_b];
  const char *prev = ltU_fmt("%s == 0 ? %d : %s - 1", r->vs, S - 1, r->vs);   /* the stage before */
  Stmt *p = s->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  ltE_comment(e, s->line);
  ltE_line(e, "if (tid >= 128) lt_wg_turn_pass(1);   /* the warpgroups take turns at the wgmmas of line %d: 0 goes "
              "first */", w->line);
  ltE_line(e, "uint32_t %s[%d][1][4];   /* line %d's A ([16 of K][warp's 16 rows]), packed in one iteration, read by "
              "its wgmmas in the next */", ltL_wgmma_frag(d), BK / 16, d->line);
  ltL_consumer_open(e, s, r, ph, p);
  e->ordered = 1;
  for (Stmt *x = p; x; x = x->next) {
    if (x == w) ltE_line(e, "lt_wg_turn_wait(tid / 128);   /* this warpgroup's turn at the tensor cores */");
    ltE_stmt(e, x);
    if (x != w) continue;
    ltE_line(e, "/* %s:%d of iteration %s - 1, on its stage: behind these, in a group of its own (empty in the "
                "first iteration) */", e->base, d->line, r->v);
    deferred_group(e, d, BK, ltU_fmt("%s > %s", r->v, r->lo), prev,
                   ltU_fmt("so wgmma.wait_group 1 completes %s alone", w->dst->name));
    e->stage = r->vs;
    e->ninflight = ltP_add_inflight(e->inflight, e->ninflight, d->dst);
    ltE_line(e, "lt_wg_turn_pass(tid / 128);   /* the other's: its wgmmas run while this one works on these */");
  }
  ltL_defer_close(e, s, r, prev);
  ltE_line(e, "/* %s:%d of the last iteration, on its stage */", e->base, d->line);
  deferred_group(e, d, BK, ltU_fmt("%s > %s", ltE_paren(r->hi), r->lo), prev, NULL);
  e->ninflight = ltP_add_inflight(e->inflight, e->ninflight, d->dst);
  e->stage = NULL;
  ltE_line(e, "if (tid < 128) lt_wg_turn_wait(0);   /* warpgroup 1's last hand-over: no arrival left pending */");
  ltL_defer_give_last(e, s, r, prev);
}
