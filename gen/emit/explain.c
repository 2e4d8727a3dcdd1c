/*
** explain.c: gen --explain, the plan of a variant for a person: its grid
** and block, the register layouts, the shared tiles, the instruction of
** each gemm and the schedule of each k:pipelined loop.  It prints what the
** passes decided (pass/plan.c last) and decides nothing itself.
*/
#include "emit/emit.h"

/* The first assignment in block b (or inside it) that a warp skips where
** its row factors are all 1 (pass/rescale.c), or NULL. */
static const Stmt *unit_skip(const Block *b) {
  for (const Stmt *s = b->first; s; s = s->next) {
    const Stmt *x = s->unit_skip ? s : unit_skip(&s->body);
    if (x || (x = unit_skip(&s->orelse))) return x;
  }
  return NULL;
}

/* Does a store of kernel k skip a warpgroup whose rows all lie past its
** rows (pass/rowskip.c)? */
static int ws_store_skip(const Kernel *k) {
  for (const Stmt *x = k->body.first; x; x = x->next)
    if (x->kind == S_STORE && x->wg_skip) return 1;
  return 0;
}

/* --explain lines of warp-specialized loop s (pass/plan.c): the schedule,
** the warp roles and their registers, the barrier ring, the tensor maps,
** and the kernel the launcher falls back to. */
static void explain_warpspec(const E *e, const Stmt *s, Buf *b) {
  const Kernel *k = e->k;
  int W = e->t->warp;
  ltU_printf(b, "  pipeline (%s:%d): %d stages, warp-specialized: a producer warpgroup fills a ring of shared-memory "
                "stages by TMA ahead of the consumer warpgroups, which run the wgmmas on each stage as it lands, %s\n",
             e->base, s->line, s->stages,
             s->drain  ? "each iteration waiting for its own before the next (their A registers are the iteration's)"
             : s->roll ? ltU_fmt("a commit group per 8 of K, the A words through %d register slot%s, each rewritten once "
                                 "the wgmma that last read it is done, so they chain across iterations", s->roll,
                                 s->roll > 1 ? "s" : "")
                       : "chained across iterations with one group in flight");
  if (k->pingpong)
    ltU_printf(b, "    warp roles: producer threads %d-%d (one warpgroup; its first thread issues the copies)%s; "
                  "consumers threads 0-%d, two warpgroups in ping-pong: warpgroup w runs the block's programs w, w + 2, "
                  "..., its loop once the other's program before has all its fills (named barriers 1 and 2), so one's "
                  "code after the loop runs under the other's wgmmas%s\n",
               2 * k->threads, 2 * k->threads + k->producers - 1,
               k->reg_producer ? ltU_fmt(", %d registers (setmaxnreg.dec)", k->reg_producer) : "", 2 * k->threads - 1,
               k->reg_consumer ? ltU_fmt(", %d registers (setmaxnreg.inc)", k->reg_consumer) : "");
  else
    ltU_printf(b, "    warp roles: producer threads %d-%d (one warpgroup; its first thread issues the copies)%s; "
                  "consumers threads 0-%d (%d warpgroup%s: the loop's gemms, then everything after the loop, whose "
                  "barriers are named barrier %d of their %d threads)%s\n",
               k->threads, k->threads + k->producers - 1,
               k->reg_producer ? ltU_fmt(", %d registers (setmaxnreg.dec)", k->reg_producer) : "", k->threads - 1,
               k->threads / 128, k->threads > 128 ? "s" : "", s->open_gemm ? 3 : 1, k->threads,
               k->reg_consumer ? ltU_fmt(", %d registers (setmaxnreg.inc)", k->reg_consumer) : "");
  ltU_printf(b, "    barrier ring: %d stages of %d bytes; %s_full[i] (1 arrival with expect-tx of the stage's bytes) "
                "says its copies have landed, %s_empty[i] (%d arrivals, one a consumer warp) that its wgmmas are "
                "done; waits by phase parity\n", s->stages, s->stage_bytes, s->var->name, s->var->name,
             k->threads / W);
  if (k->splitk)
    ltU_printf(b, "    split-K (lower/splitk.c): with a workspace (%s_ws) the launcher may run a tile as several "
                  "programs over shares of the loop's range, where the tiles leave SMs idle and the parts fit one "
                  "program a block; the parts meet in the workspace and the tile's last adds them in part order\n",
               k->launcher);
  if (s->early_release)
    ltU_printf(b, "    a stage goes back to the producer at the consumers' first wait for all their wgmmas in the next "
                  "iteration\n");
  if (s->open_gemm)
    ltU_printf(b, "    turns: the 2 consumer warpgroups take turns at the wgmmas of line %d (named barriers 1 and 2): one "
                  "issues its wgmmas while the other works on the result of its own\n", s->open_gemm->line);
  if (s->defer)
    ltU_printf(b, "    deferred: the wgmmas of line %d go to the next iteration, behind its wgmmas of line %d, a commit "
                  "group each; wgmma.wait_group 1 completes the latter, whose result the warpgroup works on while the "
                  "tensor cores run the former; the stage before goes back once they are done (pass/defer.c)\n",
               s->defer->line, s->open_gemm->line);
  for (const Stmt *g = s->body.first; g; g = g->next)
    if (g->kind == S_GEMM && g->row_skip)
      ltU_printf(b, "    row skip: a warpgroup whose 64 rows of %s (line %d) all lie past the rows the store writes (%s's "
                    "end%s) skips their wgmmas, still taking its part in the ring%s (pass/rowskip.c)\n", g->dst->name,
                 g->line, g->row_skip->t->name, g->row_skip->rhi ? ", and rows(lo, hi)'s hi" : "",
                 ws_store_skip(k) ? ", and its TMA store" : "");
  const Stmt *u = unit_skip(&s->body);
  if (u)
    ltU_printf(b, "    rescale: %s = %s * %s at line %d (%d elements a thread) runs in a warp only where some lane's %s is "
                  "not 1 (__any_sync): with no row's max moved it would multiply by 1 (pass/rescale.c)\n",
               u->dst->name, u->dst->name, u->unit_skip->name, u->line, ltP_elems(u->dst->layout, u->dst->shape),
               u->unit_skip->name);
  if (s->nlates)
    ltU_printf(b, "    deferred: the wgmmas of line %d (and of its twin in the step's other branch) go to the next iteration, "
                  "behind its wgmmas of line %d, a commit group each; the step waits for the groups up to the newest it "
                  "needs, and packs its A once the wgmmas of the iteration before are done; the stage before goes back "
                  "after the body%s (pass/defer_bwd.c)\n",
               s->lates[0]->line, s->late_after->line,
               s->late_stage ? "; the ring's third stage is gen's (the loop said 2), for the stage held an iteration "
                               "longer" : "");
  if (k->pre_reload)
    ltU_printf(b, "    copies before the loop: by TMA from the producer, once a program, onto %s_pre (1 arrival with "
                  "expect-tx of %d bytes), which the consumers wait for before the loop; into their one buffer once "
                  "the consumers of the program before, done with its %s, arrived on %s_pre_empty\n",
               s->var->name, k->pre_bytes,
               k->pre_out ? "wgmmas and with the TMA stores through that buffer (its staging tile lies over it)" : "wgmmas",
               s->var->name);
  else if (k->pre_bytes)
    ltU_printf(b, "    copies before the loop: by TMA from the producer, once, onto %s_pre (1 arrival with expect-tx of "
                  "%d bytes), which the consumers wait for before the loop\n", s->var->name, k->pre_bytes);
  for (int i = 0; i < k->nmaps; i++) {
    const TensorMap *m = &k->maps[i];
    Buf box = {0};
    for (int j = m->t->trank - 1; j >= 0; j--)   /* (rows: the dimension of their end, before theirs) */
      ltU_printf(&box, "%s%s%d", j < m->t->trank - 1 ? ", " : "", m->rows && j == 1 ? "1, " : "", m->box[j]);
    const Stmt *rs = NULL;   /* a store of X:rows(lo, hi) by this map */
    for (const Stmt *x = k->body.first; x && m->store; x = x->next)
      if (x->kind == S_STORE && x->map == i + 1 && x->view->rlo) rs = x;
    ltU_printf(b, "    tensor map %s: %s %s, %d-D, box [%s], %d-byte swizzle, %s%s\n", m->name, m->t->name,
               ltI_dtypes[m->t->dt].name, m->t->trank + m->rows, box.p, m->swizzle,
               m->store ? "TMA stores of the epilogue (each consumer warpgroup's rows through its own staging tile; "
                          "only the elements inside the tensor are written)"
                        : m->rows ? "zeros outside the tensor and from the rows' end on (views of rows(lo, hi): a "
                                    "dimension more, whose index is where the rows end)"
                                  : "zeros outside the tensor",
               rs ? ltU_fmt("; line %d stores rows of %s:rows(lo, hi): a warpgroup with rows outside [lo, hi) writes "
                            "the rows inside from its staging tile itself, 16 bytes a thread", rs->line, m->t->name)
                  : "");
  }
  if (k->queue)
    ltU_printf(b, "    persistent grid, dynamic (k:grid's dynamic = true): with a workspace (%s_ws, 16 bytes, zero "
                  "before the first call; each call leaves it so) min(programs, SMs) blocks, block b running program b "
                  "first, then its producer taking the next in the grid's order from the counter there once it has "
                  "issued the last fills of the one before (lt_queue_next), handed to the consumers through shared "
                  "memory (mbarriers %s_next and %s_next_read), its ring's stages and phases running on; without one, "
                  "a block a program\n", k->launcher, k->ws->var->name, k->ws->var->name);
  else if (e->t->persistent && k->dynamic && !k->persistent)
    ltU_printf(b, "    one program a block (k:grid's dynamic = true, but not persistent: %s)\n",
               k->pre_bytes ? "an iteration of more than two gemms with copies before the loop"
                            : "the code after the loop divides floats");
  else if (k->snake)
    ltU_printf(b, "    persistent grid: min(programs, SMs) blocks; round r of gridDim.x programs in the grid's order goes to "
                  "the blocks from the front for even r and from the back for odd r (snake order, so that loops of "
                  "different lengths even out), its ring's stages and phases running on, so one program's epilogue "
                  "overlaps the producer's copies for the next\n");
  else if (k->persistent)
    ltU_printf(b, "    persistent grid: min(programs, SMs) blocks, each running programs blockIdx.x, + gridDim.x, ... in "
                  "the grid's order, its ring's stages and phases running on, so one program's epilogue overlaps "
                  "the producer's copies for the next\n");
  else if (e->t->persistent && k->one_a_block)
    ltU_printf(b, "    one program a block (not persistent: k:grid's persistent = false; the hardware hands out the "
                  "blocks in the grid's order as SMs free up)\n");
  else if (e->t->persistent && k->uneven && !k->pre_bytes)
    ltU_printf(b, "    one program a block (not persistent: the loop's trip count differs between programs, and blocks "
                  "walking the grid statically drift apart; the hardware hands out the blocks in order as SMs free "
                  "up, so neighbouring programs run together and share their tiles in L2)\n");
  else if (e->t->persistent && k->pre_bytes)
    ltU_printf(b, "    one program a block (not persistent: the tiles the copies before the loop fill have one buffer, "
                  "and an iteration of more than two gemms was not measured with it given back a program)\n");
  else if (e->t->persistent)
    ltU_printf(b, "    one program a block (not persistent: the code after the loop divides floats, and the IEEE "
                  "division's call spilled the persistent consumers' registers)\n");
  for (const Stmt *x = k->ws->next; x; x = x->next)   /* (pass/early.c) */
    if (x->kind == S_LOAD && x->early)
      ltU_printf(b, "    load at line %d: %s [%d, %d] copied by cp.async into %s (%d bytes%s) at the top of each program, "
                    "read after the loop once it has landed\n", x->line, x->view->t->name, x->early->shape[0],
                 x->early->shape[1], x->early->name, x->early->smem_bytes,
                 x->early->stages > 1 ? ", one a consumer warpgroup" : "");
  ltU_printf(b, "    fallback: where a tensor map cannot be made (a base or a stride not a multiple of 16 bytes), the "
                "launcher runs %s_cp, the same tiles with a cp.async ring\n", k->name);
}

/* --explain lines of the gemms and pipelined loops in block bl: the
** instruction each gemm became and how its warps split the tile, and the
** depth and kind of each pipeline.  Counts them in *ngemm and *npipe. */
static void explain_ops(const E *e, const Block *bl, Buf *b, int *ngemm, int *npipe) {
  for (const Stmt *s = bl->first; s; s = s->next) {
    if (s->kind == S_GEMM) {
      const Layout *l = s->dst->layout;
      const char *a = s->areg ? ltU_fmt("registers %s", s->areg->name) : s->shared->name;
      const char *inst = ltP_mma_name(s->inst);
      if (s->inst == MMA_WGMMA && ltI_dtypes[s->shared_b->dt].bytes != 2)
        inst = ltU_fmt("wgmma m64nNk%d %s", 32 / ltI_dtypes[s->shared_b->dt].bytes, ltP_wgmma_type(s->shared_b->dt));
      if (s->fnuz)
        inst = ltU_fmt("MFMA %s %s", s->inst == MMA_MFMA32 ? "32x32x16" : "16x16x32", ltI_dtypes[s->shared_b->dt].fp8->mfma);
      ltU_printf(b, "  matrix instruction (%s:%d): %s for %s [%d, %d] += %s%s @ %s%s", e->base, s->line, inst,
                 s->dst->name, s->dst->shape[0], s->dst->shape[1], a, s->trans_a ? "^T" : "", s->shared_b->name,
                 s->trans_b ? "^T" : "");
      if (s->inst == MMA_WGMMA && l->swap && s->a_words)
        ltU_printf(b, "; operands swapped (C^T = B^T A^T: B [K, N] is tf32 wgmma's A, from registers, each thread's "
                      "words read from its tile; %d rows are m64n%d's N), %d warpgroup%s of [%d, 64], A by descriptor",
                   l->rows, l->rows, l->cols / 64, l->cols > 64 ? "s" : "", l->rows);
      else if (s->inst == MMA_WGMMA && l->swap)
        ltU_printf(b, "; operands swapped (C^T = B^T A^T: %d rows are m64n%d's N, since fewer than its 64), %d "
                      "warpgroup%s of [%d, 64], both by descriptor", l->rows, l->rows, l->cols / 64, l->cols > 64 ? "s" : "", l->rows);
      else if (s->inst == MMA_WGMMA)
        ltU_printf(b, "; %d warpgroups of [%d, %d]%s, A %s, B by descriptor", l->rows / (4 * l->wtm) * (l->cols / l->wtn),
                   4 * l->wtm, l->wtn, l->rgap ? ltU_fmt(" (%d m64 blocks each)", l->wtm / 16) : "",
                   s->a_words ? "from registers (each thread's tf32 words read from its [K, M] tile)"
                   : s->shared && s->shared->wgmma ? "by descriptor" : "from registers");
      else if (s->inst != MMA_FMA)
        ltU_printf(b, "; %d x %d warps of [%d, %d], [%d, %d] per instruction", l->rows / l->wtm, l->cols / l->wtn,
                   l->wtm, l->wtn, l->im, l->in);
      const DtypeInfo *bt = &ltI_dtypes[s->shared_b->dt];
      if (s->fnuz && bt->fp8->remap)
        ltU_printf(b, "; %s operands read as FNUZ: the OCP bytes mapped as gathered (-0 to 0, NaN and infinity to "
                      "NaN), each K tile's sum, a quarter of the OCP one, added times 4", bt->name);
      else if (s->fnuz) ltU_printf(b, "; %s operands: the FNUZ bytes as they are", bt->name);
      else if (bt->fp8 && s->inst == MMA_SYNC) ltU_printf(b, "; %s operands converted to f16 pairs as read", bt->name);
      else if (bt->fp8 && s->inst == MMA_FMA) ltU_printf(b, "; %s operands converted to f32 as read", bt->name);
      if (s->why_inst) ltU_printf(b, "; %s: %s", e->t->wgmma ? "not wgmma" : "no matrix instruction", s->why_inst);
      ltU_put(b, "\n");
      (*ngemm)++;
    }
    if (s->kind == S_FOR && s->sched == SCHED_PREFETCH) {
      const Stmt *p = s->body.first;
      while (p->kind != S_G2S) p = p->next;
      ltU_printf(b, "  pipeline (%s:%d): iteration i + 1's copies loaded into registers while iteration i computes, "
                    "then stored to %s\n", e->base, s->line,
                 p->shared->stages == 2 ? "the other buffer of a shared-memory double buffer (one barrier an iteration)"
                                        : "the one buffer, between two barriers (a double buffer does not fit)");
      (*npipe)++;
    } else if (s->kind == S_FOR && s->sched == SCHED_WARPSPEC) {
      explain_warpspec(e, s, b);
      (*npipe)++;
    } else if (s->kind == S_FOR && s->sched != SCHED_PLAIN) {
      ltU_printf(b, "  pipeline (%s:%d): %d stages, %s%s%s\n", e->base, s->line, s->stages,
                 "a ring of shared-memory stages filled by cp.async, one commit group a stage",
                 s->sched == SCHED_GEMM
                     ? "; one software pipeline with the gemm's 16-wide K steps (ldmatrix a step ahead, copies "
                       "between steps, the barrier at the second-last step)"
                     : "",
                 s->why_plain ? ltU_fmt("; not warp-specialized: %s", s->why_plain) : "");
      (*npipe)++;
    } else if (s->kind == S_FOR && s->stages == 1) {   /* a k:pipelined loop that runs plain (plan.c) */
      ltU_printf(b, "  pipeline (%s:%d): none, the loop runs one tile at a time (%s)\n", e->base, s->line,
                 !ltE_gpu(e) ? "one thread a block: nothing to overlap"
                             : "stages < 2; or, without cp.async, a target without the register prefetch "
                               "(gfx1100), work other than one gemm or a copy not in 16-byte chunks a thread");
      (*npipe)++;
    }
    explain_ops(e, &s->body, b, ngemm, npipe);
    explain_ops(e, &s->orelse, b, ngemm, npipe);
  }
}

/* The loads of block bl that keep a row in shared memory (Stmt.resident),
** into *at: "stored by the loads at L, L; read back by the load at L". */
static void explain_resident(E *e, const Block *bl, Buf *at) {
  for (const Stmt *s = bl->first; s; s = s->next) {
    if (s->resident == RES_STAGE) ltU_printf(at, "%sstored there by the load at %s:%d", at->n ? ", " : "", e->base, s->line);
    if (s->resident == RES_READ) ltU_printf(at, "%sread back by the load at %s:%d", at->n ? ", " : "", e->base, s->line);
    explain_resident(e, &s->body, at);
    explain_resident(e, &s->orelse, at);
  }
}

/* --explain: the plan of kernel k on target t, for a person. */
void ltE_explain(Kernel *k, const Target *t, Buf *b) {
  ltE_name_syms(k);
  E e = {.b = b, .k = k, .t = t, .base = ltE_basename(ltU_file), .lane = "lane"};
  ltU_printf(b, "%s on %s (%s)\n", k->name, t->name, t->desc);
  if (k->build)
    ltU_printf(b, "  build %s: %s runs it %s (1 of %d builds)\n", k->bucket, k->launcher,
               k->when ? ltU_fmt("where %s", k->when_text) : "where no build before it runs", k->nbuckets);
  else if (k->bucket)
    ltU_printf(b, "  tuned for shape bucket %s: %s runs it for the sizes nearest it%s (1 of %d configs)\n", k->bucket,
               k->launcher, ltN_is_alternative(k->bucket) ? " where it leaves the busiest SM less work than the bucket's "
               "config" : "", k->nbuckets);
  if (k->row_when)   /* (pass/row.c) */
    ltU_printf(b, "  row twin: where %s (%s is one row, unit-strided along K) the launcher runs %s_row instead, "
                  "this kernel with %s read as a [1, K] row, copied as nn and nt copy theirs (the variant's buckets of "
                  "the fewest rows keep it)\n",
               ltE_itext(&e, k->row_when), k->row_a->name, k->name, k->row_a->name);
  ltU_put(b, "  grid:");
  for (int i = 0; i < k->ngrid; i++) ltU_printf(b, " %s%s", i ? "x " : "", ltE_itext(&e, k->grid[i]->extent));
  if (k->ws)
    ltU_printf(b, " programs; block: %d threads (%d-lane warps): %d consumers and a producer warpgroup\n",
               k->threads * (k->pingpong ? 2 : 1) + k->producers, t->warp, k->threads * (k->pingpong ? 2 : 1));
  else ltU_printf(b, " programs; block: %d thread%s (%d-lane warps)\n", k->threads, k->threads > 1 ? "s" : "", t->warp);
  for (const Layout *l = k->layouts; l; l = l->next) {
    if (l->mma != MMA_FMA) {
      ltU_printf(b, "  register tile [%d, %d]: %s accumulator, per warp [%d, %d], each thread holds %d elements\n",
                 l->rows, l->cols, l->mma == MMA_WGMMA ? "wgmma m64nN" : ltP_mma_name(l->mma), l->wtm, l->wtn, l->nr * l->nc * l->vec);
      continue;
    }
    ltU_printf(b, "  register tile [%d, %d]: %d x %d threads (rows x cols), each holds %d row%s x %d chunk%s of %d "
                  "column%s = %d elements\n",
               l->rows, l->cols, l->tr, l->tc, l->nr, l->nr > 1 ? "s" : "", l->nc, l->nc > 1 ? "s" : "", l->vec,
               l->vec > 1 ? "s" : "", l->nr * l->nc * l->vec);
  }
  ltU_printf(b, "  shared memory: %d bytes\n", k->smem_bytes);
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if (s->kind == SYM_SHARED)
      ltU_printf(b, "    %s: %s [%d, %d], %d bytes at %d%s\n", s->name, ltI_dtypes[s->dt].name, s->shape[0],
                 s->shape[1], s->smem_bytes, s->smem_offset,
                 s->scratch               ? " (reduction scratch)"
                 : s->tma_out && s->over ? " (over the tile of the copies before the loop: a TMA store's staging tile, "
                                           "each consumer warpgroup its own rows)"
                                         : "");
  }
  if (k->ws)
    ltU_printf(b, "    %s_full, %s_empty%s: mbarriers, %d bytes at %d\n", k->ws->var->name, k->ws->var->name,
               k->pre_reload ? ltU_fmt(", %s_pre, %s_pre_empty", k->ws->var->name, k->ws->var->name)
               : k->pre_bytes ? ltU_fmt(", %s_pre", k->ws->var->name) : "",
               16 * k->ws->stages + (k->pre_bytes ? 8 : 0) + (k->pre_reload ? 8 : 0),
               k->mbar_offset);
  if (k->row_res) {   /* (pass/resident.c) */
    Buf at = {0};
    explain_resident(&e, &k->body, &at);
    ltU_printf(b, "    %s_row: %s, %s of %s elements at %d, where %s in the %lld bytes past it (two blocks an SM; else the "
                  "later pass reads %s again); config resident: %s\n", k->row_res->name, ltI_dtypes[k->row_res->dt].name,
               k->row_res_rows > 1 ? ltU_fmt("the program's %d rows", k->row_res_rows) : "the program's row",
               ltE_itext(&e, k->row_res_len), k->row_res_offset, k->row_res_rows > 1 ? "they fit" : "it fits",
               ltP_resident_room(k, t), k->row_res->name, at.p);
    if (k->row_res_at)
      ltU_printf(b, "      copied whole before %s:%d by cp.async, every chunk in flight at once; the loads that store "
                    "it read it back from there but in the split twin (rows off the 16-byte grid)\n", e.base,
                 k->row_res_at->line);
  } else if (k->resident_cfg) {
    ltU_printf(b, "    config resident: no rows kept in shared memory (%s)\n", k->why_res);
  }
  int ngemm = 0, npipe = 0;
  explain_ops(&e, &k->body, b, &ngemm, &npipe);
  if (!ngemm) ltU_put(b, "  matrix instruction: none (no gemm)\n");
  if (!npipe) ltU_put(b, "  pipeline: none (no k:pipelined loop)\n");
}
