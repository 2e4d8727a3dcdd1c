/*
** early.c: loads after a warp-specialized loop that need not wait for it.
**
** In a SCHED_WARPSPEC kernel the consumers run what follows the k:pipelined
** loop (the epilogue) once its last wgmmas are done, so a k:load there
** (matmul's bias) shows its whole global-memory latency with the tensor
** cores idle.  Where the loaded tile does not depend on anything the loop
** or the code after it computes (its view's indices are the program's
** scalars) and the tensor is only read, the load goes through a small
** shared tile instead (Stmt.early): the consumers issue its cp.async copy
** at the top of each program, before the loop, and the load becomes a wait
** for that copy, the consumers' barrier and a read of the shared tile
** (lower/early.c).  The tile sits after every other one, where it fits; in
** ping-pong one for each consumer warpgroup (each runs programs of its
** own).  On the H200 the bias epilogues of matmul's 128 x 256 kernel ran
** 0.90-0.96 of `none` with the load after the loop, 0.95-1.00 with it
** staged (bench/results/2026-11-25-h200-matmul-sm90a-smallm-f16-epi-biasstage.txt).
*/
#include "lt.h"

/* The most bytes a staged tile may take: vectors and small tiles, whose
** copy is one 16-byte chunk for each of a few threads. */
#define EARLY_MAX_BYTES 4096

/* Is expression x known at the top of a program: constants, sizes,
** strides, scalar parameters, grid ids and the scalars computed before
** warp-specialized loop ws? */
static int known_before(const Kernel *k, const Expr *x) {
  if (!x) return 1;
  if (x->kind == E_SYM) {
    const Sym *s = x->sym;
    if (s->kind == SYM_SIZE || s->kind == SYM_STRIDE || s->kind == SYM_SCALAR || s->kind == SYM_PID) return 1;
    if (s->kind != SYM_LET || s->rank != 0) return 0;
    for (const Stmt *p = k->body.first; p && p != k->ws; p = p->next)
      if (p == s->def) return 1;
    return 0;
  }
  if (x->kind == E_IOTA) return 0;
  return known_before(k, x->a) && known_before(k, x->b) && known_before(k, x->c);
}

/* Can load s, a top-level statement after warp-specialized loop k->ws,
** be staged (the top of this file)? */
static int stageable(const Kernel *k, const Target *t, const Stmt *s) {
  const View *v = s->view;
  if (s->kind != S_LOAD || !s->dst || s->dst->rank == 0 || !v || v->scalar || v->mask || v->rlo || v->split) return 0;
  if (v->t->stored || v->cdim < 0 || (s->other && !(s->other->kind == E_CONST && s->other->cval == 0))) return 0;
  long long cs;
  if (!ltI_const_int(v->t->strides[v->cdim], &cs) || cs != 1) return 0;
  for (int d = 0; d < v->t->trank; d++)
    if (!known_before(k, v->origin[d]) || v->origin[d]->rank) return 0;
  int shape[2];
  ltI_view_shape(v, shape);
  int eb = ltI_dtypes[v->t->dt].bytes;
  return shape[1] * eb % 16 == 0 && (long long)shape[0] * shape[1] * eb <= EARLY_MAX_BYTES && t->async_copy;
}

/* Gives each stageable load after k's warp-specialized loop its shared
** tile (Stmt.early), after the others (k->smem_bytes), where it fits. */
void ltP_early(Kernel *k, const Target *t) {
  if (t->lang != LANG_CUDA || !k->ws || k->ws->sched != SCHED_WARPSPEC || !k->smem_dynamic) return;
  for (Stmt *s = k->ws->next; s; s = s->next) {
    if (!stageable(k, t, s)) continue;
    int shape[2];
    ltI_view_shape(s->view, shape);
    int copies = k->pingpong ? 2 : 1;
    int at = (k->smem_bytes + 127) & ~127, bytes = shape[0] * shape[1] * ltI_dtypes[s->view->t->dt].bytes * copies;
    if (at + bytes > t->smem_max) continue;
    Sym *o = ltI_sym(k, SYM_SHARED, s->view->t->dt, s->line);
    o->rank = 2;
    o->shape[0] = shape[0];
    o->shape[1] = shape[1];
    o->stages = copies;
    o->smem_offset = at;
    o->smem_bytes = bytes;
    o->name = ltU_fmt("%s_early", s->view->t->name);
    k->smem_bytes = at + bytes;
    s->early = o;
    s->fuse = 0;   /* (read from the shared tile whole, then the assignment after it) */
  }
}
