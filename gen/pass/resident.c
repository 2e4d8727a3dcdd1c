/*
** resident.c: rows that a program reads twice, kept in shared memory
** (config resident = true).
**
** A row op over rows longer than its chunk (softmax, RMSNorm, LayerNorm)
** reads each row in two passes of k:serial loops over chunks: a reduction,
** then the normalising write.  Where the second pass misses L2 the row comes
** from DRAM twice.  When a later loop's load of chunk j of a view,
** X:tile({ rows, j }, { RB, BC }) for j in [0, n), finds every one of those
** chunks loaded before it in the same block, by loads of the same tensor,
** rows and tile (a loop's chunks j in [lo, hi), or one chunk of a constant
** index), those earlier loads also write their chunk into a shared tile of
** the program's rows (Stmt.resident RES_STAGE) and the later load reads it
** back from there (RES_READ), each thread the elements it wrote itself (the
** loads share a layout), so no barrier is needed.  The tile's size is known
** at run time only (RB rows of n BC elements): the launcher gives it where
** it fits half the SM's shared memory beside the kernel's other tiles
** (two blocks an SM: ltP_resident_room), and
** the kernel tests the same bound and, where it does not fit, reads global
** memory as without the config (emit/kernel.c, emit/launcher.c,
** lower/copy.c).  CUDA targets only: on the HIP and C targets the config
** changes nothing (a note says so).
**
** Where the target copies by cp.async, the loads move 16-byte chunks and
** the first pass reduces no tile chunk by chunk (RMSNorm, LayerNorm; not
** softmax), the rows are copied whole before the first pass instead
** (Kernel.row_res_at): every chunk of the row in flight at once, each
** thread the elements its loads read, then one wait for its own copies;
** both passes then read the tile (the first pass's loads as RES_READ).
** Storing chunk by chunk left one chunk of loads in flight a block, the
** first pass waiting for each before its reductions.  The split twin (rows
** off the 16-byte grid) keeps the chunk stores.
*/
#include "lt.h"

/* Is x the same in every iteration of every loop of a program: over
** constants, sizes, scalars and grid ids only? */
static int per_program(const Expr *x) {
  if (!x) return 1;
  if (x->kind == E_IOTA || x->rank) return 0;
  if (x->kind == E_SYM)
    return x->sym->kind == SYM_SIZE || x->sym->kind == SYM_SCALAR || x->sym->kind == SYM_PID ||
           x->sym->kind == SYM_STRIDE;
  return per_program(x->a) && per_program(x->b) && per_program(x->c);
}

/* The chunk a load's column origin names: origin = var * cols (*var set,
** *at 0) or a constant c * cols (*var NULL, *at c).  0 when neither. */
static int chunk_of(const Expr *o, int cols, const Sym **var, long long *at) {
  long long c;
  *var = NULL;
  *at = 0;
  if (ltI_const_int(o, &c)) {
    if (c % cols) return 0;
    *at = c / cols;
    return 1;
  }
  if (o->kind == E_BINARY && o->op == B_MUL && o->a->kind == E_SYM && o->a->sym->kind == SYM_LOOP &&
      ltI_const_int(o->b, &c) && c == cols) {
    *var = o->a->sym;
    return 1;
  }
  return 0;
}

/* Is s a load of a chunk of a row of a tensor that is only read: a
** register tile of a [rows, cols] view with unit column stride, not
** gathered, masked or of X:rows, the rows the same all through the
** program?  *var, *at: its chunk (chunk_of). */
static int row_chunk(const Stmt *s, const Sym **var, long long *at) {
  const View *v = s->view;
  if (s->kind != S_LOAD || !s->dst || s->dst->rank == 0 || !v || v->scalar || v->mask || v->rlo) return 0;
  if (v->t->stored || v->cdim < 0 || v->rdim < 0 || v->t->trank != 2 || ltI_view_gathers(v)) return 0;
  long long cs;
  if (!ltI_const_int(v->t->strides[v->cdim], &cs) || cs != 1 || !per_program(v->origin[v->rdim])) return 0;
  return chunk_of(v->origin[v->cdim], v->ext[v->cdim], var, at);
}

/* Do loads a and b read chunks of the same rows of the same tensor, into
** register tiles of one layout (each thread the same elements)? */
static int same_rows(const Stmt *a, const Stmt *b) {
  const View *u = a->view, *v = b->view;
  return u->t == v->t && u->ext[0] == v->ext[0] && u->ext[1] == v->ext[1] && ltI_same(u->origin[u->rdim], v->origin[v->rdim]) &&
         a->dst->layout && a->dst->layout == b->dst->layout && a->dst->dt == b->dst->dt;
}

/* A load that reads chunks of the rows a later load reads, and the
** chunks it covers: [lo, hi) of its loop, or (lo NULL) the constant c. */
typedef struct Cover {
  Stmt *st;
  Stmt *top;             /* st, or the loop of block b that holds it */
  const Expr *lo, *hi;   /* a loop's bounds, or NULL */
  long long c;           /* a constant chunk */
} Cover;

/* The loads before `loop` in block b (at its top level, or at the top
** level of a plain loop's body there) that read chunks of the rows
** `later` reads, into out[] (at most max); returns how many. */
static int covers(Block *b, const Stmt *loop, const Stmt *later, Cover *out, int max) {
  int n = 0;
  for (Stmt *s = b->first; s && s != loop && n < max; s = s->next) {
    const Sym *var;
    long long at;
    if (s->kind == S_LOAD && row_chunk(s, &var, &at) && !var && same_rows(s, later))
      out[n++] = (Cover){s, s, NULL, NULL, at};
    if (s->kind != S_FOR || s->sched != SCHED_PLAIN || s->stages) continue;
    long long step = 1;
    if (s->step && (!ltI_const_int(s->step, &step) || step != 1)) continue;
    for (Stmt *x = s->body.first; x && n < max; x = x->next)
      if (x->kind == S_LOAD && row_chunk(x, &var, &at) && var == s->var && same_rows(x, later))
        out[n++] = (Cover){x, s, s->lo, s->hi, 0};
  }
  return n;
}

/* Does the chain of ranges in cv[] cover the chunks [0, hi) from 0 on, each
** range starting where the one before ended?  used[i]: the ranges taken. */
static int covered(const Cover *cv, int n, const Expr *hi, int *used) {
  long long at = 0;           /* where the chain has got to: the constant at, */
  const Expr *end = NULL;     /* or a loop's end */
  for (int steps = 0; steps <= n; steps++) {
    if (end && ltI_same(end, hi)) return 1;
    int next = -1;
    for (int i = 0; i < n && next < 0; i++) {
      if (used[i] || end) continue;   /* (past a loop's end, only that end itself) */
      long long lo;
      if (!cv[i].lo && cv[i].c == at) next = i;
      else if (cv[i].lo && ltI_const_int(cv[i].lo, &lo) && lo == at) next = i;
    }
    if (next < 0) return 0;
    used[next] = 1;
    if (cv[next].lo) end = cv[next].hi;
    else at++;
  }
  return 0;
}

/* Does block b (or a block inside it) reduce a tile? */
static int reduces(const Block *b) {
  for (const Stmt *s = b->first; s; s = s->next)
    if (s->kind == S_REDUCE || reduces(&s->body) || reduces(&s->orelse)) return 1;
  return 0;
}

/* The whole-row copy (Kernel.row_res_at) of kernel k, whose later load x
** (RES_READ) reads chunks [0, n) and whose staging loads cv[i] (used[i])
** come at the top level of block b: before the first of those, where
** target t copies by cp.async, x moves 16-byte chunks and no staging loop
** reduces a tile (softmax's running max and sum: copied whole, its bf16
** and f16 rows of 32000 ran 0.95-0.96x the chunk stores on the H200,
** bench/results/2026-11-26-h200-rowops-resident-copy.txt; RMSNorm and
** LayerNorm, whose first pass adds lane by lane, 1.04-1.18x). */
static void whole_copy(Kernel *k, const Target *t, Block *b, const Stmt *x, Expr *n, const Cover *cv, int nc,
                       const int *used) {
  const View *v = x->view;
  if (!t->async_copy || !x->dst->layout || x->dst->layout->mma != MMA_FMA ||
      x->dst->layout->vec * ltI_dtypes[v->t->dt].bytes != 16)
    return;
  for (int i = 0; i < nc; i++)
    if (used[i] && cv[i].top->kind == S_FOR && reduces(&cv[i].top->body)) return;
  Stmt *at = NULL;
  for (Stmt *s = b->first; s && !at; s = s->next)
    for (int i = 0; i < nc && !at; i++)
      if (used[i] && cv[i].top == s) at = s;
  if (!at) return;
  Sym *j = ltI_sym(k, SYM_LOOP, DT_I32, x->line);
  j->name = "lt_chunk";
  j->extent = n;
  View *w = ltU_alloc(sizeof *w);
  *w = *v;
  w->origin[w->cdim] = ltI_binary(B_MUL, ltI_ref(j, x->line), ltI_const(v->ext[v->cdim], DT_I32, 0, x->line), x->line);
  w->cache = 0;
  w->ahead = 0;
  w->split = 0;
  k->row_res_at = at;
  k->row_res_view = w;
  k->row_res_j = j;
  k->row_res_n = n;
  k->row_res_dst = x->dst;
}

/* Marks the first later load found in block b (and the blocks inside it)
** whose chunks are all staged before it; 1 when one was. */
static int mark_block(Kernel *k, const Target *t, Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (mark_block(k, t, &s->body) || mark_block(k, t, &s->orelse)) return 1;
    long long lo;
    if (s->kind != S_FOR || s->sched != SCHED_PLAIN || s->stages || !ltI_const_int(s->lo, &lo) || lo != 0) continue;
    Expr *n = ltI_host_expr(s->hi);
    if (!n) continue;
    for (Stmt *x = s->body.first; x; x = x->next) {
      const Sym *var;
      long long at;
      if (x->kind != S_LOAD || !row_chunk(x, &var, &at) || var != s->var) continue;
      Cover cv[8];
      int used[8] = {0};
      int nc = covers(b, s, x, cv, 8);
      if (!nc || !covered(cv, nc, s->hi, used)) continue;
      const View *v = x->view;
      k->row_res = v->t;
      k->row_res_rows = v->ext[v->rdim];
      k->row_res_len = ltI_binary(B_MUL, n, ltI_const(v->ext[v->cdim], DT_I32, 0, x->line), x->line);
      x->resident = RES_READ;
      for (int i = 0; i < nc; i++)
        if (used[i]) cv[i].st->resident = RES_STAGE;
      whole_copy(k, t, b, x, n, cv, nc, used);
      return 1;
    }
  }
  return 0;
}

/* Finds the rows kernel k reads twice, for config resident (the top of
** this file); before issue.c, which leaves a RES_READ load out of its
** groups (its vectors come from shared memory). */
void ltP_resident(Kernel *k, const Target *t) {
  if (!k->resident_cfg) return;
  if (t->lang != LANG_CUDA) {
    k->why_res = ltU_fmt("the shared-memory rows are built for the CUDA targets; %s reads global memory twice",
                         t->name);
    ltP_note(k, t, k->line, "config resident has no effect on %s (CUDA targets only)", t->name);
    return;
  }
  if (!mark_block(k, t, &k->body))
    k->why_res = "no k:serial loop reads chunks [0, n) of rows that loads before it read whole";
}

/* The bytes of rows a program may keep: those that leave room for two
** blocks an SM, each with its other tiles and the 1 KB the SM reserves a
** block (on the H200 one block an SM ran layernorm 16-bit rows of
** 60000-65536 at 0.77-0.80x the rows read twice; two at 1.02-1.59x:
** bench/results/2026-11-26-h200-rowops-resident-confirm.txt). */
long long ltP_resident_room(const Kernel *k, const Target *t) {
  return (t->smem_max + 1024) / 2 - 1024 - k->row_res_offset;
}

/* Places the rows' tile (<tensor>_row) after smem.c's tiles, 16-byte
** aligned, in the dynamic shared memory (its size the launcher's, at run
** time). */
void ltP_resident_place(Kernel *k, const Target *t) {
  if (!k->row_res) return;
  k->smem_dynamic = 1;
  k->row_res_offset = (k->smem_bytes + 15) & ~15;
  if (ltP_resident_room(k, t) < 16) {   /* (no room for even a vector) */
    k->why_res = "the kernel's other shared tiles leave no room for its rows";
    k->row_res = NULL;
  }
}
