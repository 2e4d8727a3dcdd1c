/*
** stmt.c: the statement walker.
**
** ltE_block prints a block statement by statement; before each, a comment
** with the DSL line it came from, and the wait for the wgmmas in flight
** that it needs (pass/plan.c's ltP_waits_for).  Register work (lets,
** fragments, assignments) is printed here: a tile statement is a loop
** nest over the thread's elements (text.c, ltE_open_loops).  Everything
** else goes to its lowering in gen/lower/: copies and stores to copy.c, a
** reduction to reduce.c, a gemm to the file of the instruction plan.c gave
** it, a loop to the file of its schedule.
*/
#include "emit/emit.h"

/* On the c target, where an array of `bytes` goes: on the block
** function's stack while its arrays stay within LT_C_STACK (-1), else at
** the returned offset in the scratch memory the launcher allocates (a tile
** may have 2^24 elements; a thread's stack is often 8 MB or less).  -1 on
** the GPU targets. */
long long ltE_c_scratch(E *e, long long bytes) {
  if (ltE_gpu(e)) return -1;
  if (e->stack_bytes + bytes <= LT_C_STACK) {
    e->stack_bytes += bytes;
    return -1;
  }
  long long at = e->scratch_bytes;
  e->scratch_bytes += (bytes + 63) / 64 * 64;
  return at;
}

/* Declares the register array of tile symbol s. */
void ltE_declare_regs(E *e, const Sym *s) {
  int n = ltP_elems(s->layout, s->shape);
  const char *ty = ltE_ctype(s->dt);
  long long bytes = (long long)n * ltI_dtypes[ltI_compute_type(s->dt)].bytes, at = ltE_c_scratch(e, bytes);
  if (at < 0) ltE_line(e, "%s %s[%d];", ty, s->name, n);
  else
    ltE_line(e, "%s *%s = (%s *)(lt_scratch + %lld);   /* %lld bytes: in the launcher's scratch memory, not on the "
                "stack */", ty, s->name, ty, at, bytes);
}

/* dst[element] = val for the element of context c; a fragment of f16 or
** bf16 holds values rounded to its type. */
void ltE_assign_elem(E *e, const Sym *dst, const Expr *val, const Ctx *c) {
  const char *v = ltE_etext(e, val, c);
  if (dst->kind == SYM_FRAG && (dst->dt == DT_F16 || dst->dt == DT_BF16))
    v = ltU_fmt("lt_round_%s(%s)", dst->dt == DT_F16 ? "f16" : "bf16", v);
  ltE_line(e, "%s[%s] = %s;", dst->name, ltE_reg_index(c, dst->shape), v);
}

/* dst[element] = val over dst's elements (a tile assignment); with
** `then`, a second assignment over the same elements in the same loops. */
static void tile_assign2(E *e, const Sym *dst, const Expr *val, const Stmt *then) {
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, dst->layout, dst->shape, 1, 1, 1);
  ltE_assign_elem(e, dst, val, &c);
  if (then) ltE_assign_elem(e, then->dst, then->val, &c);
  ltE_close_loops(e, n);
}

/* dst[element] = val over dst's elements. */
static void tile_assign(E *e, const Sym *dst, const Expr *val) { tile_assign2(e, dst, val, NULL); }

/* Assignment s, acc = acc * r, run by a warp only where some lane holds
** an r other than 1 (pass/rescale.c). */
static void unit_skip(E *e, const Stmt *s) {
  const Sym *r = s->unit_skip;
  Buf c = {0};
  for (int i = 0, n = ltP_elems(r->layout, r->shape); i < n; i++)
    ltU_printf(&c, "%s%s[%d] != 1.0f", i ? " || " : "", r->name, i);
  ltE_line(e, "if (__any_sync(0xffffffffu, %s)) {   /* else %s is 1 in every row of the warp: %s as it is */", c.p,
           r->name, s->dst->name);
  e->depth++;
  tile_assign(e, s->dst, s->val);
  e->depth--;
  ltE_line(e, "}");
}

/* Must the wgmmas in flight be done before statement s (plan.c)? */
static int waits_for_wgmma(const E *e, const Stmt *s) {
  return ltP_waits_for(e->inflight, e->ninflight, s, e->chain);
}

/* Gemm s by the instruction plan.c gave it (lower/gemm_*.c). */
static void gemm(E *e, Stmt *s) {
  int BK = s->shared_b->shape[s->trans_b];   /* the K the gemm sums over */
  switch (s->inst) {
  case MMA_SYNC: ltL_gemm_mma_sync(e, s, BK); break;
  case MMA_TF32: ltL_gemm_tf32(e, s, BK); break;
  case MMA_WGMMA: ltL_gemm_wgmma(e, s, BK); break;
  case MMA_MFMA32: case MMA_MFMA16: case MMA_WMMA: ltL_gemm_amd(e, s, BK); break;
  case MMA_FMA: ltL_gemm_fma(e, s, BK); break;
  }
}

/* A loop of one iteration after another (SCHED_PLAIN).  Nothing is left in
** flight across its back edge. */
static void plain_loop(E *e, Stmt *s) {
  long long step = 1;
  ltI_const_int(s->step, &step);
  ltE_line(e, "for (int %s = %s; %s < %s; %s) {", s->var->name, ltE_itext(e, s->lo), s->var->name,
           ltE_itext(e, s->hi), step == 1 ? ltU_fmt("++%s", s->var->name) : ltU_fmt("%s += %lld", s->var->name, step));
  e->depth++;
  ltE_block(e, &s->body);
  ltL_wgmma_wait(e);
  e->depth--;
  ltE_line(e, "}");
}

/* Loop s by the schedule plan.c gave it (lower/sched_*.c). */
static void loop(E *e, Stmt *s) {
  switch (s->sched) {
  case SCHED_PLAIN: plain_loop(e, s); break;
  case SCHED_RING: case SCHED_REFILL: case SCHED_TURNS: ltL_sched_ring(e, s); break;
  case SCHED_GEMM: ltL_sched_gemm(e, s); break;
  case SCHED_PREFETCH: ltL_sched_prefetch(e, s); break;
  case SCHED_WARPSPEC: break;   /* printed with the kernel's body (lower/sched_warpspec.c) */
  }
}

/* Statement s (but one a fused let or load before it has done). */
void ltE_stmt(E *e, Stmt *s) {
  if (s == e->fused || s == e->fused2) return;   /* done inside the load before it */
  if (e->ordered) ltL_wgmma_wait_keep(e, ltP_wait_keep(e->inflight, e->ninflight, s));
  else if (waits_for_wgmma(e, s)) ltL_wgmma_wait(e);
  if (s == e->k->row_res_at && e->k->row_res && !e->split) ltL_resident_copy(e);   /* (pass/resident.c) */
  if (s->kind != S_BARRIER) ltE_comment(e, s->line);
  if (s->issue_first == s) ltL_issue(e, s);   /* the vectors of its step's loads (pass/issue.c) */
  switch (s->kind) {
  case S_LET:
    if (s->dst->rank == 0) {
      ltE_line(e, "const %s %s = %s;", ltE_ctype(s->dst->dt), s->dst->name, ltE_etext(e, s->val, NULL));
    } else if (s->fuse) {   /* both in one loop: the tile is never live whole */
      ltE_declare_regs(e, s->dst);
      if (s->next->kind == S_LET) ltE_declare_regs(e, s->next->dst);
      tile_assign2(e, s->dst, s->val, s->next);
      e->fused = s->next;
    } else {
      ltE_declare_regs(e, s->dst);
      tile_assign(e, s->dst, s->val);
    }
    break;
  case S_FRAG:
    ltE_declare_regs(e, s->dst);
    if (ltL_starts_wgmma(s)) e->fresh = s->dst;
    else if (s->val) tile_assign(e, s->dst, s->val);
    break;
  case S_ASSIGN:
    if (s->unit_skip) unit_skip(e, s);
    else tile_assign(e, s->dst, s->val);
    break;
  case S_LOAD:
    if (s->dst->rank == 0) {   /* X:at: one element, read by every thread */
      ltL_load_scalar(e, s->view, s->dst, s->other);
      break;
    }
    if (s->dst->kind == SYM_LET) ltE_declare_regs(e, s->dst);
    e->resident = e->k->row_res ? s->resident : RES_NONE;   /* (pass/resident.c) */
    e->row_copied = e->resident == RES_STAGE && e->k->row_res_at && !e->split;   /* (copied whole) */
    if (e->row_copied) e->resident = RES_READ;
    if (s->early) {   /* staged through shared memory before the loop (pass/early.c) */
      ltL_early_read(e, s);
    } else if (s->fuse) {
      if (s->next->kind == S_LET) ltE_declare_regs(e, s->next->dst);
      ltL_load_store(e, s->view, s->dst, NULL, s->other, NULL, s->next, NULL);
      e->fused = s->next;
      if (s->next->kind == S_LET && s->next->fuse && s->next->dst->shape[0] > s->dst->shape[0])
        e->fused2 = s->next->next;   /* a row's broadcast: the let's own fused assignment too (copy.c) */
    } else {
      ltL_load_store(e, s->view, s->dst, NULL, s->other, NULL, NULL, NULL);
    }
    e->resident = RES_NONE;
    e->row_copied = 0;
    break;
  case S_STORE:
    e->atomic = s->atomic;
    e->direct = s->direct;
    if (s->via && s->via->tma_out) ltL_tma_store(e, s);
    else ltL_load_store(e, s->view, NULL, s->val, NULL, NULL, NULL, s->via);
    e->atomic = 0;
    e->direct = 0;
    break;
  case S_G2S:
    if (s->lead_in) ltE_line(e, "/* cp.async: lands with the first stage of the pipelined loop below */");
    e->lead_in = s->lead_in;
    ltL_load_store(e, s->view, NULL, NULL, s->other, s->shared, NULL, NULL);
    e->lead_in = 0;
    break;
  case S_SLOAD:
  case S_SSTORE:
    ltL_shared_rw(e, s);
    break;
  case S_REDUCE:
    ltL_reduce(e, s);
    break;
  case S_GEMM:
    gemm(e, s);
    break;
  case S_FOR:
    loop(e, s);
    break;
  case S_IF: {   /* (nothing in flight here, ltP_waits_for; or, E.ordered, what each branch starts with) */
    int carrying = e->carrying;
    const Sym *entry[8];
    int n0 = e->ninflight;
    memcpy(entry, e->inflight, sizeof entry);
    e->carrying = 0;   /* (inside, as everywhere else: a branch waits for its wgmmas before it ends) */
    ltE_line(e, "if (%s) {", ltE_etext(e, s->val, NULL));
    e->depth++;
    ltE_block(e, &s->body);
    if (!carrying) ltL_wgmma_wait(e);
    e->depth--;
    const Sym *body[8];
    int n = e->ninflight;
    memcpy(body, e->inflight, sizeof body);
    memcpy(e->inflight, entry, sizeof entry);
    e->ninflight = n0;
    if (s->orelse.first) {
      ltE_line(e, "} else {");
      e->depth++;
      ltE_block(e, &s->orelse);
      if (!carrying) ltL_wgmma_wait(e);
      e->depth--;
    }
    ltE_line(e, "}");
    e->carrying = carrying;
    for (int i = 0; i < n; i++) {   /* what either branch left in flight */
      int m = ltP_add_inflight(e->inflight, e->ninflight, body[i]);
      if (m < 0) {   /* (more than 8: all done after the wait) */
        ltL_wgmma_wait(e);
        break;
      }
      e->ninflight = m;
    }
    break;
  }
  case S_BARRIER:
    ltE_line(e, "%s", e->barrier);
    break;
  }
}

/* The statements of block b; the wgmmas they issue may still be in flight
** after them (e->inflight). */
void ltE_block(E *e, Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    ltE_stmt(e, s);
    if (s->kind == S_FOR || s->kind == S_IF) e->last_line = 0;
  }
}
