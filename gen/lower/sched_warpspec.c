/*
** sched_warpspec.c: a kernel whose k:pipelined loop runs warp-specialized
** (SCHED_WARPSPEC, sm90a; pass/plan.c decides), printed whole: the loop
** and the statements around it.
**
** The block is the `threads` the config asks for, the consumers, and a
** producer warpgroup after them (tid >= threads).  Each stage s of the
** loop's ring of shared tiles has two mbarriers: full[s], which the
** producer arms with arrive.expect_tx for the stage's bytes before it
** issues the stage's TMA copies (each completes its bytes on it), and
** empty[s], on which each consumer warp arrives once the wgmmas reading the
** stage are done.  Fill i of the ring goes into stage i % S: the producer
** waits on empty with the parity ((i / S) & 1) ^ 1 (its first pass finds
** every stage free), the consumers on full with (i / S) & 1
** (templates/cuda_tma.h, lt_mbar_wait).  The consumers' gemms chain into
** their accumulators across iterations: after iteration i's wgmmas are
** issued, wgmma.wait_group 1 completes iteration i - 1's, and each warp
** gives their stage back; so the tensor cores always have the next
** iteration's wgmmas queued behind the running ones.
**
** Around the loop: the scalars before it (the tile's coordinates) run in
** both roles, everything else before it and everything after it in the
** consumers only, whose barriers there are a named barrier of their
** threads; the producer never meets them after the ring is set up.  On a
** persistent grid (Kernel.persistent) each role walks the programs
** blockIdx.x, + gridDim.x, ... in the grid's order, the ring's stage and
** parity running on from one program to the next (Kernel.snake: in
** snake order, round r of gridDim.x programs from the back for odd r):
** the producer fills the next program's first stages while the consumers
** finish this one (its last stage released after the loop, the epilogue
** after that).
** Kernel.queue (k:grid's dynamic = true): a block's first program is
** blockIdx.x, and its producer takes each next one from the counter
** lt_queue in the launcher's workspace (lt_queue_next,
** templates/cuda_queue.h) once it has issued the last fills of the one
** before, and hands it to the consumers through shared memory
** (_next_prog; mbarriers _next, its store made, and _next_read, every
** consumer thread has read it), so the blocks take the programs in the
** grid's order as they free up; a program past the last stops both
** roles.  Without a workspace lt_queue is NULL and the next program is the
** one gridDim.x on (the launcher then runs one program a block).
** Copies before the loop (attention's Q tile) go again for each program
** into their one buffer (Kernel.pre_reload): the producer waits for the
** consumers' warps to give it back (_pre_empty, once their wgmmas of the
** program before are done), the consumers for its copies (_pre), each
** mbarrier's parity flipping once a program.
** setmaxnreg gives the producer's registers to the consumers
** (Kernel.reg_producer, reg_consumer).
**
** Ping-pong (Kernel.pingpong, plan.c): the config's one consumer warpgroup
** is there twice; warpgroup lt_wg runs the block's programs lt_wg,
** lt_wg + 2, ... (`tid` is the thread's index in its warpgroup).  The
** producer fills the ring for every program in order, so the two take it
** in turn: each steps its place in the ring over the other's fills (the
** loop's trip count, the same in every program), and while one runs the
** code after the loop (the epilogue) the other's wgmmas run on the next
** program's stages.  A program's loop begins once the program before has
** waited for all its fills (named barriers 1 and 2, lt_wg_turn_wait /
** lt_wg_turn_pass): a warpgroup that stepped over the other's fills would
** otherwise wait on a stage two phases behind, whose parity is the one it
** waits for.
**
** Split-K (Kernel.splitk, lower/splitk.c): each tile is lt_splits
** programs, each over its share of the loop's range; a ping-pong
** warpgroup steps over the other's program's share.
*/
#include "emit/emit.h"

/* Is statement s before the loop a scalar, which both roles compute? */
static int scalar(const Stmt *s) {
  return (s->kind == S_LET || s->kind == S_LOAD) && s->dst->rank == 0;
}

/* The names of ring s's mbarrier arrays and phase variable. */
static const char *full_of(const Stmt *s) { return ltU_fmt("%s_full", s->var->name); }
static const char *empty_of(const Stmt *s) { return ltU_fmt("%s_empty", s->var->name); }

/* The loop header of a role: the index, and its stage and that stage's
** phase parity (flipping each time the stage comes round to 0), declared
** before it (ring_state), which run on across a persistent kernel's
** programs. */
static void open_loop(E *e, const Stmt *s, const Ring *r, const char *ph) {
  int S = s->stages;
  ltE_line(e, "for (int %s = %s; %s < %s; ++%s, %s ^= %s == %d, %s = %s == %d ? 0 : %s + 1) {", r->v, r->lo, r->v, r->hi,
           r->v, ph, r->vs, S - 1, r->vs, r->vs, S - 1, r->vs);
  e->depth++;
}

/* Opens a consumer's loop over ring r of loop s: the loop header, the wait
** for the stage's copies (phase parity ph), and the scalars of the
** producers' statements before p (the first consumer statement) that the
** work reads; the statements after read stage r->vs. */
void ltL_consumer_open(E *e, const Stmt *s, const Ring *r, const char *ph, const Stmt *p) {
  open_loop(e, s, r, ph);
  ltE_line(e, "lt_mbar_wait(&%s[%s], %s);   /* the stage's copies have landed */", full_of(s), r->vs, ph);
  for (Stmt *x = s->body.first; x != p; x = x->next)   /* the producers' scalars the work reads */
    if (x->kind == S_LET && ltP_uses(p, x->dst)) ltE_stmt(e, x);
  e->stage = r->vs;
}

/* The role's place in the ring: the stage of its next fill, and the
** parity of that stage's phase. */
static void ring_state(E *e, const Ring *r, const char *ph) {
  ltE_line(e, "int %s = 0, %s = 0;   /* the stage of the next fill and its phase's parity%s */", r->vs, ph,
           e->k->persistent ? ", on across the programs" : "");
}

/* Opens a persistent kernel's loop over its programs, in the grid's order
** (x fastest; Kernel.snake: every other round of gridDim.x from its end),
** each program's ids and the scalars before the loop that the role reads
** (Stmt.roles, plan.c; those of a kernel
** with one program a block are computed once, before the roles split);
** nothing otherwise.  r is the loop's ring (a split-K part's share of its
** range comes from it).  A ping-pong consumer (pp) walks every program
** too, and steps its place in the ring over the fills of those that are
** the other warpgroup's. */
static void open_programs(E *e, const Stmt *s, Ring *r, int pp, int role) {
  Kernel *k = e->k;
  if (!k->persistent) return;
  const char *v = s->var->name;
  if (k->queue && role == ROLE_PRODUCER) {
    ltE_line(e, "for (int lt_prog = blockIdx.x, lt_phase = 0;; lt_prog = lt_queue_next(lt_queue, lt_prog, lt_programs), "
                "lt_phase ^= 1) {");
    e->depth++;
    ltE_line(e, "lt_mbar_wait(%s_next_read, lt_phase ^ 1);   /* the consumers have read the program before (the first "
                "finds it read) */", v);
    ltE_line(e, "*%s_next_prog = lt_prog;", v);
    ltE_line(e, "lt_mbar_arrive(%s_next);   /* hands it to the consumers (release: they see the store) */", v);
    ltE_line(e, "if (lt_prog >= lt_programs) break;   /* none left: the consumers stop too */");
    e->depth--;
  } else if (k->queue) {
    ltE_line(e, "for (int lt_phase = 0;; lt_phase ^= 1) {");
    e->depth++;
    ltE_line(e, "lt_mbar_wait(%s_next, lt_phase);   /* the producer has handed over this block's next program */", v);
    ltE_line(e, "const int lt_prog = *%s_next_prog;", v);
    ltE_line(e, "lt_mbar_arrive(%s_next_read);   /* this thread has read it */", v);
    ltE_line(e, "if (lt_prog >= lt_programs) break;   /* none left */");
    e->depth--;
  } else if (pp) {
    ltE_line(e, "for (int lt_prog = blockIdx.x, lt_turn = 0; lt_prog < lt_programs; lt_prog += gridDim.x, lt_turn ^= 1) {");
  } else if (k->snake) {
    ltE_line(e, "for (int lt_round = 0, lt_odd = 0; lt_round < lt_programs; lt_round += gridDim.x, lt_odd ^= 1) {");
    e->depth++;
    ltE_line(e, "const int lt_prog = lt_round + (lt_odd ? gridDim.x - 1 - blockIdx.x : blockIdx.x);   /* snake order: "
                "the rounds' long and short programs even out */");
    ltE_line(e, "if (lt_prog >= lt_programs) continue;   /* (in the last round only) */");
    e->depth--;
  } else {
    ltE_line(e, "for (int lt_prog = blockIdx.x; lt_prog < lt_programs; lt_prog += gridDim.x) {");
  }
  e->depth++;
  const char *below = NULL;   /* the programs of the axes before this one */
  const char *prog = k->splitk ? ltL_splitk_ids(e) : "lt_prog";
  for (int i = 0; i < k->ngrid; i++) {
    const char *q = below ? ltU_fmt("%s / %s", prog, ltE_paren(below)) : prog;
    ltE_line(e, "const int %s = %s;", k->grid[i]->name, i + 1 < k->ngrid ? ltU_fmt("%s %% lt_grid%d", q, i) : q);
    below = below ? ltU_fmt("%s * lt_grid%d", below, i) : ltU_fmt("lt_grid%d", i);
  }
  e->last_line = 0;
  for (Stmt *x = k->body.first; x != k->ws; x = x->next)
    if (scalar(x) && (x->roles & role)) ltE_stmt(e, x);
  if (k->splitk) ltL_splitk_range(e, r);
  if (!pp) return;
  int S = s->stages;
  const char *ph = ltU_fmt("%s_phase", r->v);
  const char *n = strcmp(r->lo, "0") ? ltU_fmt("%s - %s", ltE_paren(r->hi), ltE_paren(r->lo)) : r->hi;
  ltE_line(e, "if (lt_turn != lt_wg) {   /* the other warpgroup's program: its fills of the ring go by */");
  e->depth++;
  ltE_line(e, "const int lt_fills = lt_imax(%s, 0);", n);
  ltE_line(e, "%s ^= (lt_fills / %d + (%s + lt_fills %% %d) / %d) & 1;", ph, S, r->vs, S, S);
  ltE_line(e, "%s = (%s + lt_fills %% %d) %% %d;", r->vs, r->vs, S, S);
  ltE_line(e, "continue;");
  e->depth--;
  ltE_line(e, "}");
}

/* Closes open_programs' loop. */
static void close_programs(E *e) {
  if (!e->k->persistent) return;
  e->depth--;
  ltE_line(e, "}");
}

/* The bytes copy p delivers into its tile. */
static int copy_bytes(const Stmt *p) {
  const Sym *sh = p->shared;
  return (int)ltI_stage_bytes(sh);
}

/* Before the barrier of a group of TMA copies is armed: for each copy of
** an X:rows(lo, hi) view from `first` up to `end` (TensorMap.rows), the
** index of its box in the map's dimension of row ends (`<tile>_e`) and
** whether the issuing thread copies the box itself (`<tile>_thread`: its
** rows cross an end below the box's rows, which the map cannot mask), and
** that copy (templates/cuda_tma_rows.h).  Returns the bytes the group's
** TMA copies deliver, `bytes` less those of the thread's copies (text). */
static const char *rows_prep(E *e, const Stmt *first, const Stmt *end, int bytes) {
  const char *total = ltU_fmt("%d", bytes);
  for (const Stmt *p = first; p && p != end && (end || ltP_is_producer(p)); p = p->next) {
    if (p->kind != S_G2S || !e->k->maps[p->map - 1].rows) continue;
    const TensorMap *m = &e->k->maps[p->map - 1];
    const View *v = p->view;
    const Sym *t = v->t, *sh = p->shared;
    int L = v->ext[v->rdim], eb = ltI_dtypes[t->dt].bytes, pc = m->box[0];
    const char *y = ltE_itext(e, v->origin[v->rdim]), *hi = ltE_itext(e, v->rhi), *n = ltE_itext(e, t->dims[v->rdim]);
    const char *st = e->stage ? ltU_fmt("[%s]", e->stage) : "";
    ltE_comment(e, p->line);
    ltE_line(e, "const int %s_e = lt_tma_rows_e(%s, %s, %s, %d);   /* %s:rows(%s, %s): the box's index in the map's "
                "dimension of row ends */", sh->name, y, hi, n, L, t->name, ltE_itext(e, v->rlo), hi);
    ltE_line(e, "const bool %s_thread = lt_tma_rows_by_thread(%s, %s, %s, %d);   /* an end below %d rows: by this "
                "thread */", sh->name, y, hi, n, L, L);
    const char *ok = NULL, *base = NULL;
    for (int d = 0; d < t->trank; d++)   /* the box's one index in every other dim: an offset, tested */
      if (d != v->rdim && d != v->cdim) ltL_fixed_dim(e, v, d, &ok, &base);
    const Expr *co = v->origin[v->cdim];
    long long c0v = -1, ncv = -1;
    int c0k = ltI_const_int(co, &c0v), nck = ltI_const_int(t->dims[v->cdim], &ncv);
    const char *c0 = ltE_itext(e, co), *nc = ltE_itext(e, t->dims[v->cdim]);
    base = ltE_sum(base, c0k && c0v == 0 ? NULL : c0);   /* the box's first column */
    const char *src = ltU_fmt("(const char *)(%s%s)", t->name, base ? ltU_fmt(" + %s", base) : "");
    const char *cols = c0k && nck ? ltU_fmt("%lld", (ncv - c0v) * eb) : ltU_fmt("((int64_t)%s - %s) * %d", nc, ltE_paren(c0), eb);
    ltE_line(e, "if (%s_thread) lt_tma_rows_copy(&%s%s[0][0]%s, %s, %s * %d, %s, %s, %s, %d, %d, %d, %s);", sh->name,
             sh->name, st, sh->shape[1] / pc > 1 ? "[0]" : "", src, ltE_paren(ltE_itext(e, t->strides[v->rdim])), eb, y,
             ok ? ltU_fmt("%s ? %s : 0", ok, hi) : hi, n, L, sh->shape[1] / pc, m->swizzle, cols);
    total = ltU_fmt("%s - (%s_thread ? %d : 0)", total, sh->name, copy_bytes(p));
  }
  return total;
}

/* TMA copy p of the loop (or before it): one box of its tensor map (one
** per 64-column panel of a tile stored in panels) into the stage e->stage
** (the one buffer where NULL), completing on mbarrier `bar`.  Coordinates
** innermost first, as the map's; a map of X:rows(lo, hi) views takes the
** rows' two, from rows_prep's index of the rows' end, and leaves the box
** to the thread where rows_prep says so. */
static void tma_copy(E *e, const Stmt *p, const char *bar) {
  const TensorMap *m = &e->k->maps[p->map - 1];
  const View *v = p->view;
  const Sym *sh = p->shared;
  int rank = v->t->trank, pc = m->box[0], panels = sh->shape[1] / pc;
  ltE_comment(e, p->line);
  if (m->rows) {
    ltE_line(e, "if (!%s_thread) {", sh->name);
    e->depth++;
  }
  for (int q = 0; q < panels; q++) {
    Buf at = {0};
    for (int j = 0; j < rank; j++) {
      int d = rank - 1 - j;
      const char *o = ltE_itext(e, v->origin[d]);
      if (j == 0 && q) o = strcmp(o, "0") ? ltU_fmt("%s + %d", o, q * pc) : ltU_fmt("%d", q * pc);
      if (m->rows && d == v->rdim) o = ltU_fmt("lt_tma_rows_r(%s, %s_e, %d), %s_e", o, sh->name, v->ext[d], sh->name);
      ltU_printf(&at, ", %s", o);
    }
    const char *st = e->stage ? ltU_fmt("[%s]", e->stage) : "";
    const char *dst = panels > 1 ? ltU_fmt("&%s%s[%d][0][0]", sh->name, st, q) : ltU_fmt("&%s%s[0][0]", sh->name, st);
    ltE_line(e, "lt_tma_load_%dd(%s, &%s%s, %s);", rank + !!m->rows, dst, m->name, at.p, bar);
  }
  if (m->rows) {
    e->depth--;
    ltE_line(e, "}");
  }
}

/* The name of the mbarrier of the copies before warp-specialized loop s. */
static const char *pre_of(const Stmt *s) { return ltU_fmt("%s_pre", s->var->name); }

/* The parity of the _pre mbarriers' phase on a persistent grid, which
** flips each program (Kernel.pre_reload). */
static void pre_state(E *e, const Stmt *s) {
  ltE_line(e, "int %s_phase = 0;   /* the parity of the phase of %s and %s_empty, flipping each program */", pre_of(s),
           pre_of(s), pre_of(s));
}

/* The copies before warp-specialized loop s, onto its _pre mbarrier; on a
** persistent grid (Kernel.pre_reload) once a program, each after the
** consumers of the program before gave their one buffer back (_pre_empty,
** parity as the ring's: the first program finds it free). */
static void pre_copies(E *e, Stmt *s) {
  Kernel *k = e->k;
  if (k->pre_reload)
    ltE_line(e, "lt_mbar_wait(%s_empty, %s_phase ^ 1);   /* the consumers are done with the program before's tiles "
                "(the first program finds them free) */", pre_of(s), pre_of(s));
  const char *bytes = rows_prep(e, k->body.first, s, k->pre_bytes);
  ltE_line(e, "lt_mbar_arrive_expect_tx(%s, %s);   /* the bytes the copies before the loop deliver */", pre_of(s),
           bytes);
  for (Stmt *p = k->body.first; p != s; p = p->next)
    if (p->kind == S_G2S) tma_copy(e, p, pre_of(s));
  if (k->pre_reload) ltE_line(e, "%s_phase ^= 1;", pre_of(s));
}

/* The producer warpgroup: one thread issues the copies before the loop
** (pre_copies: once, or once a program), then waits for each stage to be
** free, arms its full barrier with the stage's bytes and issues its
** copies. */
static void producer(E *e, Stmt *s, Ring *r) {
  Kernel *k = e->k;
  const char *ph = ltU_fmt("%s_phase", r->v), *full = full_of(s);
  ltE_line(e, "if (tid >= %d) {   /* the producer warpgroup: its first thread issues the TMA copies */", k->threads);
  e->depth++;
  if (k->reg_producer)
    ltE_line(e, "lt_setmaxnreg_dec<%d>();   /* the registers it does not need go to the consumers */",
             k->reg_producer);
  ltE_line(e, "if (tid == %d) {", k->threads);
  e->depth++;
  for (int i = 0; i < k->nmaps; i++) ltE_line(e, "lt_tma_prefetch_map(&%s);", k->maps[i].name);
  if (k->pre_bytes && !k->pre_reload) pre_copies(e, s);
  ring_state(e, r, ph);
  if (k->pre_reload) pre_state(e, s);
  open_programs(e, s, r, 0, ROLE_PRODUCER);
  if (k->pre_reload) pre_copies(e, s);
  ltE_comment(e, s->line);
  open_loop(e, s, r, ph);
  e->stage = r->vs;
  ltE_line(e, "lt_mbar_wait(&%s[%s], %s ^ 1);   /* the consumers are done with the stage (the first pass finds "
              "each free) */", empty_of(s), r->vs, ph);
  int rows = 0;   /* copies of X:rows views: the scalars first, then rows_prep, which may read them */
  for (Stmt *p = s->body.first; p && ltP_is_producer(p); p = p->next)
    if (p->kind == S_G2S && k->maps[p->map - 1].rows) rows = 1;
  for (Stmt *p = s->body.first; rows && p && ltP_is_producer(p); p = p->next)
    if (p->kind != S_G2S) ltE_stmt(e, p);
  const char *bytes = rows_prep(e, s->body.first, NULL, s->stage_bytes);
  ltE_line(e, "lt_mbar_arrive_expect_tx(&%s[%s], %s);   /* the bytes its copies deliver */", full, r->vs, bytes);
  const char *bar = ltU_fmt("&%s[%s]", full, r->vs);
  for (Stmt *p = s->body.first; p && ltP_is_producer(p); p = p->next) {
    if (p->kind == S_G2S) tma_copy(e, p, bar);
    else if (!rows) ltE_stmt(e, p);
  }
  e->stage = NULL;
  e->depth--;
  ltE_line(e, "}");
  close_programs(e);
  e->depth--;
  ltE_line(e, "}");
  e->depth--;
}

/* The consumers' loop: each iteration waits for its stage, runs the
** body's work on it, and gives back the stage of the iteration before
** (of this one, where the body waits for all its wgmmas itself).  Where
** the body's wgmmas stay in flight across the back edge, that stage goes
** back at the body's first wait for every wgmma in flight (attention:
** once S = Q K^T is done, before the softmax), else after the body, once
** all but the wgmmas it just issued are done (all of them: Stmt.drain,
** and this iteration's stage goes back).  Two consumer warpgroups
** take turns at the gemm Stmt.open_gemm (plan.c): one issues its wgmmas
** while the other works on the result of its own (named barriers 1 and 2,
** lt_wg_turn_wait / lt_wg_turn_pass; balanced before the code after the
** loop, whose named barrier is then 3). */
static void consumer_loop(E *e, Stmt *s, const Ring *r) {
  if (s->defer) {   /* a gemm one iteration late (pass/defer.c) */
    ltL_attn_consumer_loop(e, s, r);
    return;
  }
  if (s->nlates) {   /* the step's gemms one iteration late (pass/defer_bwd.c) */
    ltL_attn_bwd_consumer_loop(e, s, r);
    return;
  }
  const char *ph = ltU_fmt("%s_phase", r->v);
  Stmt *p = s->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  ltE_comment(e, s->line);
  if (s->open_gemm)
    ltE_line(e, "if (tid >= 128) lt_wg_turn_pass(1);   /* the warpgroups take turns at the wgmmas of line %d: 0 goes "
                "first */", s->open_gemm->line);
  if (e->k->pingpong)
    ltE_line(e, "if (lt_prog != (int)blockIdx.x) lt_wg_turn_wait(lt_wg);   /* the program before (the other warpgroup's) has "
                "waited for all its fills: each stage's last phase is complete, so the parities below name this "
                "program's */");
  if (s->roll) ltL_roll_decl(e, p);
  const Stmt *g = p && p->kind == S_GEMM && p->row_skip ? p : NULL;   /* (pass/rowskip.c) */
  if (g) {
    const Layout *l = g->dst->layout;
    ltE_line(e, "const bool %s_live = __shfl_sync(0xffffffffu, %s, 0);   /* some of the warpgroup's 64 rows of %s are "
                "stored (lane 0's test: the same in the warp); else it runs the ring without its wgmmas */",
             g->dst->name, ltL_rows_live(e, g->row_skip, ltU_fmt("(%s & ~63)", l->wrow)), g->dst->name);
    ltE_line(e, "if (%s_live) {", g->dst->name);
    e->depth++;
  }
  ltL_consumer_open(e, s, r, ph, p);
  e->chain = 1;
  e->carrying = s->ncarried > 0;
  if (s->ncarried) memcpy(e->inflight, s->carried, s->ncarried * sizeof *s->carried);
  e->ninflight = s->ncarried;
  if (s->ncarried)
    ltE_line(e, "/* in flight from the iteration before: the wgmmas into %s%s (the next ones chain onto them) */",
             s->carried[0]->name, s->ncarried > 1 ? " and more" : "");
  int S = s->stages;
  if (s->early_release) {
    e->release = ltU_fmt("if (%s > %s && lane == 0) lt_mbar_arrive(&%s[%s == 0 ? %d : %s - 1]);   /* iteration %s - 1's "
                         "wgmmas are done too: each warp gives its stage back to the producer */", r->v, r->lo,
                         empty_of(s), r->vs, S - 1, r->vs, r->v);
    e->release_depth = e->depth;
  }
  const Stmt *turn = s->open_gemm;
  for (Stmt *x = p; x; x = x->next) {
    if (x == turn) ltE_line(e, "lt_wg_turn_wait(tid / 128);   /* this warpgroup's turn at the tensor cores */");
    ltE_stmt(e, x);
    if (x == turn)
      ltE_line(e, "lt_wg_turn_pass(tid / 128);   /* the other's: its wgmmas run while this one works on these */");
  }
  int given = s->early_release && !e->release;   /* the stage before went back at the body's first wait */
  if (s->roll) {   /* (its slots' waits: lower/gemm_wgmma.c) */
    ltE_line(e, "if (%s > %s && lane == 0) lt_mbar_arrive(&%s[%s == 0 ? %d : %s - 1]);   /* iteration %s - 1's wgmmas are "
                "done (the wait before the last slot): each warp gives its stage back to the producer */", r->v, r->lo,
             empty_of(s), r->vs, S - 1, r->vs, r->v);
    e->roll_frag = ltL_words_frag(p);
  } else if (s->drain && e->ninflight) {   /* (A registers of the body's own: pass/plan.c) */
    ltL_wgmma_wait(e);
    ltE_line(e, "if (lane == 0) lt_mbar_arrive(&%s[%s]);   /* each warp gives the stage back to the producer */",
             empty_of(s), r->vs);
  } else if (!given && e->ninflight) {
    ltE_line(e, "lt_wgmma_wait<1>();   /* all but the wgmmas just issued are done: iteration %s - 1's stage is "
                "free */", r->v);
    ltE_line(e, "if (%s > %s && lane == 0) lt_mbar_arrive(&%s[%s == 0 ? %d : %s - 1]);   /* each warp gives it back "
                "to the producer */", r->v, r->lo, empty_of(s), r->vs, S - 1, r->vs);
  } else if (!given) {
    ltE_line(e, "if (lane == 0) lt_mbar_arrive(&%s[%s]);   /* each warp gives the stage back to the producer */",
             empty_of(s), r->vs);
  }
  e->release = NULL;
  e->chain = 0;
  e->carrying = 0;
  e->stage = NULL;
  e->depth--;
  ltE_line(e, "}");
  if (g) {   /* past the bound: each stage waited for and given back at the next, as the loop above does */
    e->depth--;
    ltE_line(e, "} else {   /* none of the warpgroup's rows is stored: the ring's protocol alone */");
    e->depth++;
    open_loop(e, s, r, ph);
    ltE_line(e, "lt_mbar_wait(&%s[%s], %s);   /* the stage's copies have landed */", full_of(s), r->vs, ph);
    ltE_line(e, "if (%s > %s && lane == 0) lt_mbar_arrive(&%s[%s == 0 ? %d : %s - 1]);   /* each warp gives the stage "
                "before back to the producer */", r->v, r->lo, empty_of(s), r->vs, S - 1, r->vs);
    e->depth--;
    ltE_line(e, "}");
    e->depth--;
    ltE_line(e, "}");
  }
  if (turn)
    ltE_line(e, "if (tid < 128) lt_wg_turn_wait(0);   /* warpgroup 1's last hand-over: no arrival left pending */");
  if (e->k->pingpong)
    ltE_line(e, "if (lt_programs - lt_prog > (int)gridDim.x) lt_wg_turn_pass(lt_wg);   /* the next program's main "
                "loop (the other warpgroup's) may begin: this one's fills have landed */");
  if (e->k->persistent && e->ninflight) {   /* the last fill's stage, for the next program's copies */
    ltL_wgmma_wait(e);
    ltE_line(e, "if (%s > %s && lane == 0) lt_mbar_arrive(&%s[%s == 0 ? %d : %s - 1]);   /* the last stage goes back "
                "to the producer, which fills it for the next program */", ltE_paren(r->hi), r->lo, empty_of(s), r->vs, S - 1,
             r->vs);
  }
}

/* The divisors of a persistent kernel's per-program index math that are
** the same in every program (Kernel.divs, pass/fastdiv.c), each prepared
** once a block for division by multiply and shift; from here on the
** divisions by them print as lt_div / lt_mod (E.divs). */
static void prepare_divisors(E *e) {
  Kernel *k = e->k;
  if (!k->ndivs) return;
  ltE_line(e, "/* the divisors of the programs' index math that are the same in every program, each prepared once: a "
              "division by one is then a multiply-high, an add and a shift */");
  for (int i = 0; i < k->ndivs; i++) {
    ltE_comment(e, k->div_line[i]);
    ltE_line(e, "const lt_divisor lt_div%d = lt_divisor_of(%s);", i, ltE_itext(e, k->divs[i]));
  }
  e->last_line = 0;
  e->divs = 1;
}

/* The body of warp-specialized kernel e->k: the scalars before the loop,
** the ring's mbarriers, then the producer and the consumers. */
void ltL_warpspec_body(E *e) {
  Kernel *k = e->k;
  Stmt *s = k->ws;
  Ring r = ltL_ring_names(e, s);
  if (k->persistent) {
    Buf all = {0};
    e->last_line = 0;
    for (int i = 0; i < k->ngrid; i++) {
      ltE_line(e, "const int lt_grid%d = %s;", i, ltE_itext(e, k->grid[i]->extent));
      ltU_printf(&all, "%slt_grid%d", i ? " * " : "", i);
    }
    if (k->queue)
      ltE_line(e, "const int lt_programs = %s;   /* this block runs program blockIdx.x, then those lt_queue_next hands it "
                  "*/", all.p);
    else
      ltE_line(e, "const int lt_programs = %s%s;   /* this block runs programs blockIdx.x, + gridDim.x, ... */", all.p,
               k->splitk ? " * lt_splits" : "");
    prepare_divisors(e);
  }
  for (Stmt *x = k->body.first; x != s && !k->persistent; x = x->next)
    if (scalar(x)) ltE_stmt(e, x);
  e->last_line = 0;
  ltE_line(e, "/* the ring of the k:pipelined loop at %s:%d, %d stages: %s[i] says stage i's TMA copies have landed "
              "(%d bytes), %s[i] that the %d consumer warps are done with it */", e->base, s->line, s->stages,
           full_of(s), s->stage_bytes, empty_of(s), k->threads / e->t->warp);
  ltE_line(e, "if (%s == 0) {", k->pingpong ? "threadIdx.x" : "tid");
  e->depth++;
  ltE_line(e, "#pragma unroll");
  ltE_line(e, "for (int %s = 0; %s < %d; ++%s) {", r.vs, r.vs, s->stages, r.vs);
  ltE_line(e, "  lt_mbar_init(&%s[%s], 1);   /* the producer's arrival, with the bytes to expect */", full_of(s), r.vs);
  ltE_line(e, "  lt_mbar_init(&%s[%s], %d);   /* one arrival a consumer warp */", empty_of(s), r.vs,
           k->threads / e->t->warp);
  ltE_line(e, "}");
  if (k->pre_bytes) ltE_line(e, "lt_mbar_init(%s, 1);   /* the copies before the loop */", pre_of(s));
  if (k->pre_reload)
    ltE_line(e, "lt_mbar_init(%s_empty, %d);   /* one arrival a consumer warp, done with what they filled */",
             pre_of(s), k->threads / e->t->warp);
  if (k->queue) {
    ltE_line(e, "lt_mbar_init(%s_next, 1);   /* the producer hands over a program */", s->var->name);
    ltE_line(e, "lt_mbar_init(%s_next_read, %d);   /* one arrival a consumer thread, once it has read it */",
             s->var->name, k->threads);
  }
  ltE_line(e, "lt_mbar_init_fence();");
  e->depth--;
  ltE_line(e, "}");
  ltE_line(e, "__syncthreads();   /* the mbarriers are set up before either role uses them */");
  Ring rp = r;
  producer(e, s, &rp);
  if (k->pingpong)
    ltE_line(e, "} else {   /* the two consumer warpgroups, each its own programs: the gemms, then what follows the "
                "loop */");
  else
    ltE_line(e, "} else {   /* the %d consumer threads, %d warpgroup%s: the gemms, then what follows the loop */",
             k->threads, k->threads / 128, k->threads > 128 ? "s" : "");
  e->depth++;
  if (k->reg_consumer)
    ltE_line(e, "lt_setmaxnreg_inc<%d>();   /* the producer's registers, for the accumulators */", k->reg_consumer);
  if (k->pingpong)
    ltE_line(e, "const int lt_wg = threadIdx.x / %d;   /* this warpgroup runs the block's programs lt_wg, lt_wg + 2, "
                "... */", k->threads);
  ring_state(e, &r, ltU_fmt("%s_phase", r.v));
  if (k->pre_reload) pre_state(e, s);
  open_programs(e, s, &r, k->pingpong, ROLE_CONSUMER);
  e->last_line = 0;
  for (Stmt *x = k->body.first; x != s; x = x->next)
    if (!scalar(x) && x->kind != S_G2S) ltE_stmt(e, x);
  if (k->pre_reload)
    ltE_line(e, "lt_mbar_wait(%s, %s_phase);   /* this program's copies before the loop have landed */", pre_of(s),
             pre_of(s));
  else if (k->pre_bytes)
    ltE_line(e, "lt_mbar_wait(%s, 0);   /* the copies before the loop have landed (its one phase) */", pre_of(s));
  /* the consumers' barrier, in the loop too (the staging tiles of register operands, pass/barrier.c, and of atomic
  ** stores, lower/store_reduce.c): named barrier 1, or 3 beside the turns' 1 and 2 (one warpgroup's arrivals at
  ** barrier 1 for the turns and for this one would complete it without the other's) */
  /* (ping-pong: 5 + lt_wg, each warpgroup's own, beside the turns' 1 and 2 and its TMA stores' 3 + lt_wg) */
  const char *barrier = e->barrier;
  if (k->pingpong) e->barrier = ltU_fmt("lt_fence_proxy_async(); lt_named_barrier(5 + lt_wg, %d);", k->threads);
  else e->barrier = ltU_fmt("lt_fence_proxy_async(); lt_named_barrier(%d, %d);", s->open_gemm ? 3 : 1, k->threads);
  ltL_early_issue(e);   /* the loads after the loop that go through shared memory (lower/early.c) */
  consumer_loop(e, s, &r);
  if (k->pre_reload) {   /* every wgmma of the program is done: its tiles go back for the next program's copies */
    ltL_wgmma_wait(e);
    if (!k->pre_out)   /* (with pre_out, once the TMA stores through them have read them: lower/store_staged.c) */
      ltE_line(e, "if (lane == 0) lt_mbar_arrive(%s_empty);   /* each warp gives the tiles of the copies before the "
                  "loop back to the producer */", pre_of(s));
    ltE_line(e, "%s_phase ^= 1;", pre_of(s));
  }
  if (k->splitk) ltL_splitk_reduce(e);
  e->last_line = 0;
  ltE_block(e, &(Block){s->next, k->body.last});
  ltL_wgmma_wait(e);
  e->barrier = barrier;
  close_programs(e);
  if (k->tma_stores)
    ltE_line(e, "if (tid %% 128 == 0) lt_tma_store_wait<0>();   /* the warpgroup's TMA stores are done before it ends */");
  if (k->bulk_reds)
    ltE_line(e, "lt_tma_store_wait_read<0>();   /* this thread's bulk reduce-adds have read their staging tile */");
  e->depth--;
  ltE_line(e, "}");
  e->divs = 0;
}
