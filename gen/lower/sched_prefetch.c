/*
** sched_prefetch.c: a k:pipelined loop on CDNA (SCHED_PREFETCH): without
** cp.async, its copies go through registers one iteration ahead.
**
** Each copy's global loads for iteration i + 1 land in a register buffer
** (the thread's 16-byte chunks of the tile) while iteration i computes,
** and go to shared memory after: into the other buffer of a double buffer
** (a ring of 2, pass/pipeline.c), or where two did not fit in LDS
** (pass/smem.c), into the one buffer between two barriers.
*/
#include "emit/emit.h"

/* The copy layout of view v (a copy's source), and in shape its [rows,
** cols]. */
static const Layout *copy_layout_of(E *e, const View *v, int shape[2]) {
  ltI_view_shape(v, shape);
  return ltP_copy_layout(e->k, shape, v->t->dt);
}

/* Writes copy p's register buffer to its shared tile, at the
** stage e->stage of a double buffer: a 16-byte chunk at a time. */
static void regs_to_shared(E *e, const Stmt *p) {
  int shape[2];
  const Layout *l = copy_layout_of(e, p->view, shape);
  ltE_comment(e, p->line);
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
  ltE_line(e, "*(uint4 *)&%s = %s_regs[%s].v;", ltE_sh_at(e, p->shared, ltE_tile_row(&c), ltE_tile_col(&c)),
           p->shared->name, ltE_chunk_index(&c));
  ltE_close_loops(e, n);
}

/* The register buffers' writes of pipelined loop s into shared memory. */
static void store_regs(E *e, Stmt *s, const char *stage) {
  e->stage = stage;
  for (Stmt *p = s->body.first; p && ltP_is_producer(p); p = p->next)
    if (p->kind == S_G2S) regs_to_shared(e, p);
  e->last_line = 0;
}

/* The global loads of pipelined loop s's copies for iteration `var`, into
** the register buffers. */
static void load_regs(E *e, Stmt *s, const char *var) {
  e->to_regs = 1;
  ltL_producers(e, s, s->body.first, NULL, var, NULL);
  e->to_regs = 0;
}

/* A k:pipelined loop on a target without asynchronous copies (AMD): each
** copy goes through a register buffer (X_regs: the thread's 16-byte chunks
** of the tile), loaded one iteration ahead, so the global loads of
** iteration i + 1 are in flight while iteration i computes.  With a ring
** of two (pipeline.c), the buffer goes to the stage not being read, and one
** barrier an iteration orders both; with one buffer (two did not fit in
** LDS), the write waits for every warp to be done with the tile, between
** two barriers. */
void ltL_sched_prefetch(E *e, Stmt *s) {
  Ring r = ltL_ring_names(e, s);
  int two = 0;
  for (Stmt *p = s->body.first; p && ltP_is_producer(p); p = p->next) {
    if (p->kind != S_G2S) continue;
    int shape[2];
    const Layout *l = copy_layout_of(e, p->view, shape);
    ltE_line(e, "union { uint4 v; %s e[%d]; } %s_regs[%d];   /* the thread's chunks of the next %s tile */",
             ltE_stype(e, p->view->t->dt), l->vec, p->shared->name, l->nr * l->nc, p->shared->name);
    two = p->shared->stages == 2;
  }
  ltE_line(e, "/* prologue: iteration %s's copies into registers%s */", r.lo, two ? ", then into stage 0" : "");
  ltE_line(e, "{");
  e->depth++;
  ltE_line(e, "const int %s = %s;", r.v, r.lo);
  ltE_line(e, "if (%s < %s) {", r.v, r.hi);
  e->depth++;
  load_regs(e, s, r.v);
  if (two) store_regs(e, s, "0");
  e->depth--;
  ltE_line(e, "}");
  e->depth--;
  ltE_line(e, "}");
  if (two) {
    ltE_line(e, "%s   /* stage 0 is whole */", e->barrier);
    ltE_line(e, "for (int %s = %s, %s = 0; %s < %s; ++%s, %s ^= 1) {", r.v, r.lo, r.vs, r.v, r.hi, r.v, r.vs);
  } else {
    ltE_line(e, "for (int %s = %s; %s < %s; ++%s) {", r.v, r.lo, r.v, r.hi, r.v);
  }
  e->depth++;
  if (!two) {
    ltE_line(e, "%s   /* every warp is done with the tiles */", e->barrier);
    store_regs(e, s, NULL);
    ltE_line(e, "%s   /* the tiles are whole */", e->barrier);
  }
  ltE_line(e, "const int %s = %s + 1;", r.vn, r.v);
  ltE_line(e, "if (%s < %s) {   /* iteration %s's loads: in flight while this one computes */", r.vn, r.hi, r.vn);
  e->depth++;
  load_regs(e, s, r.vn);
  e->depth--;
  ltE_line(e, "}");
  e->stage = two ? r.vs : NULL;
  Stmt *p = s->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  for (; p; p = p->next) ltE_stmt(e, p);
  e->last_line = 0;
  if (two) {
    ltE_line(e, "if (%s < %s) {", r.vn, r.hi);
    e->depth++;
    store_regs(e, s, ltU_fmt("%s ^ 1", r.vs));
    e->depth--;
    ltE_line(e, "}");
    ltE_line(e, "%s   /* stage %s ^ 1 is whole, and every warp is done with stage %s */", e->barrier, r.vs, r.vs);
  }
  e->stage = NULL;
  e->depth--;
  ltE_line(e, "}");
}
