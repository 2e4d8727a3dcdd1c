/*
** sched_attn_bwd.c: the consumers' loop of a warp-specialized kernel whose
** masked / unmasked step's gemms run one iteration late (Stmt.lates,
** pass/defer_bwd.c: attention backward's dV += P^T dO and dK += dS^T Q
** behind the next S^T = K Q^T and dP^T = V dO^T).
**
** Each iteration: wait for the stage; the body as the DSL wrote it, the
** emitter in ordered mode (E.ordered: a statement waits for the wgmma
** groups up to the newest it names, ltP_wait_keep), and right after the
** last gemm before the step (Stmt.late_after) the deferred gemms of the
** iteration before, from the fragments its step packed and the stage
** before, each a commit group (empty in the first iteration); in the
** step, a deferred gemm's place packs its A fragments once its wgmmas of
** the iteration before are done (gemm_wgmma.c).  The stage before goes
** back after the body.  After the loop, the last iteration's deferred
** gemms, on the last stage.
*/
#include "emit/emit.h"

/* The deferred gemms of loop s where cond holds, on stage `stage`, each a
** commit group; where it does not, as many empty groups behind a
** wgmma.fence (on both paths, as in sched_attn.c: with the fence on one
** only, ptxas adds a warpgroup.arrive where they join). */
static void late_groups(E *e, const Stmt *s, const char *cond, const char *stage) {
  ltE_line(e, "if (%s) {", cond);
  e->depth++;
  e->stage = stage;
  for (int i = 0; i < s->nlates; i++) {
    const Stmt *d = s->lates[i];
    ltL_wgmma_deferred(e, d, d->shared_b->shape[d->trans_b]);
    ltE_line(e, "lt_wgmma_commit();   /* %s in a group of its own */", d->dst->name);
  }
  e->depth--;
  ltE_line(e, "} else {");
  e->depth++;
  ltE_line(e, "lt_wgmma_fence();   /* on this path too, so that ptxas adds none where the two join */");
  for (int i = 0; i < s->nlates; i++)
    ltE_line(e, "lt_wgmma_commit();   /* empty, in %s's place: the waits count the same groups */", s->lates[i]->dst->name);
  e->depth--;
  ltE_line(e, "}");
  for (int i = 0; i < s->nlates; i++) e->ninflight = ltP_add_inflight(e->inflight, e->ninflight, s->lates[i]->dst);
}

/* The consumers' loop of warp-specialized loop s (ring names r) with
** deferred gemms s->lates; sched_warpspec.c's consumer_loop otherwise. */
void ltL_attn_bwd_consumer_loop(E *e, Stmt *s, const Ring *r) {
  const char *ph = ltU_fmt("%s_phase", r->v);
  int S = s->stages;
  const char *prev = ltU_fmt("%s == 0 ? %d : %s - 1", r->vs, S - 1, r->vs);   /* the stage before */
  Stmt *p = s->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  ltE_comment(e, s->line);
  for (int i = 0; i < s->nlates; i++) {
    const Stmt *d = s->lates[i];
    ltE_line(e, "uint32_t %s[%d][1][4];   /* line %d's A ([16 of K][warp's 16 rows]), packed in one iteration's step, "
                "read by its wgmmas in the next */", ltL_wgmma_frag(d), d->shared_b->shape[d->trans_b] / 16, d->line);
  }
  ltL_consumer_open(e, s, r, ph, p);
  e->ordered = 1;
  for (Stmt *x = p; x; x = x->next) {
    ltE_stmt(e, x);
    if (x != s->late_after) continue;
    ltE_line(e, "/* the step's deferred wgmmas of iteration %s - 1, on its stage, behind these (empty groups in the "
                "first iteration) */", r->v);
    late_groups(e, s, ltU_fmt("%s > %s", r->v, r->lo), prev);
    e->stage = r->vs;
  }
  ltL_defer_close(e, s, r, prev);
  ltE_line(e, "/* the step's deferred wgmmas of the last iteration, on its stage */");
  late_groups(e, s, ltU_fmt("%s > %s", ltE_paren(r->hi), r->lo), prev);
  e->stage = NULL;
  ltL_defer_give_last(e, s, r, prev);
}
