/*
** gemm_wgmma.c: a gemm by wgmma.mma_async m64nNk16 (NVIDIA sm90a; fp8:
** m64nNk32, both operands K-major by descriptor; tf32: m64nNk8, B K-major
** by descriptor, A too or from registers), and the wgmmas in flight.
**
** A wgmma is asynchronous: after its commit the threads run on while the
** tensor cores work, until a wait.  The emitter keeps the accumulators of
** the wgmmas in flight (E.inflight) and waits just before the first
** statement that needs them (pass/plan.c, ltP_waits_for; stmt.c), at the
** end of a loop body or a branch, and at the end of the kernel.  A loop
** whose last wgmmas stay in flight across its back edge is planned by
** plan.c (Stmt.carried) and printed by sched_ring.c.
*/
#include "emit/emit.h"

/* Waits for the wgmmas in flight; their accumulators are whole after.
** Then E.release, where this wait is at its depth. */
void ltL_wgmma_wait(E *e) {
  if (!e->ninflight) return;
  ltE_line(e, "lt_wgmma_wait<0>();   /* the wgmmas in flight are done */");
  for (int i = 0; i < e->ninflight; i++)
    ltE_line(e, "lt_wgmma_settle(%s);   /* read below, after the wait */", e->inflight[i]->name);
  if (e->roll_frag)
    ltE_line(e, "lt_wgmma_settle(%s);   /* free after the wait: the last wgmmas read it until here */", e->roll_frag);
  e->roll_frag = NULL;
  if (e->release && e->depth == e->release_depth) {
    ltE_line(e, "%s", e->release);
    e->release = NULL;
  }
  e->ninflight = 0;
}

/* Waits for the wgmma groups in flight but the newest `keep` (E.ordered:
** one group an accumulator, oldest first); theirs are whole after. */
void ltL_wgmma_wait_keep(E *e, int keep) {
  if (keep >= e->ninflight) return;
  if (keep <= 0) {
    ltL_wgmma_wait(e);
    return;
  }
  int done = e->ninflight - keep;
  ltE_line(e, "lt_wgmma_wait<%d>();   /* all but the newest %d group%s in flight are done: those into %s%s */",
           keep, keep, keep > 1 ? "s" : "", e->inflight[0]->name, done > 1 ? " and more" : "");
  for (int i = 0; i < done; i++)
    ltE_line(e, "lt_wgmma_settle(%s);   /* read below, after the wait */", e->inflight[i]->name);
  memmove(e->inflight, e->inflight + done, keep * sizeof *e->inflight);
  e->ninflight = keep;
}

/* The descriptor text of wgmma operand sh from its element `at` (the first
** of the K step the instruction reads: 32 bytes): stored with K contiguous, or
** MN-major (mn): then the next 64-column panel is LBO bytes on. */
static const char *wgmma_desc(const Sym *sh, const char *at, int mn) {
  int row = ltP_wgmma_row(sh);
  return ltU_fmt("lt_wgmma_desc(&%s, %d, %d, %d)", at, mn ? sh->shape[0] * 128 : 16, 8 * row,
                 row == 128 ? 1 : row == 64 ? 2 : 3);
}

/* B's K step from kk for the warpgroup's columns (from its warp_col, or
** 0 where one group spans N): columns kk.. of those rows ([N, K]), or
** those columns of its rows kk.. ([K, N]). */
static const char *operand_b_at(E *e, const Stmt *s, const Sym *b) {
  const char *n0 = e->k->warps_n > 1 ? s->dst->layout->wcol : "0";
  return s->trans_b || b == s->b_t ? ltE_sh_index(e, b, n0, "kk") : ltE_sh_index(e, b, "kk", n0);
}

/* Gemm s's B [K, N] copied into its [N, K] tile Stmt.b_t (tf32: wgmma
** reads it K-major only): the 256 threads each take 4 of K of one column
** at a time (a 16-byte chunk of a row of b_t, conflict-free: 8 rows' chunks
** cover the 32 banks), then fence for the async proxy and meet at the
** consumers' barrier (E.barrier) before any reads it. */
static void copy_b_t(E *e, const Stmt *s) {
  const Sym *b = s->shared_b, *t = s->b_t;
  int BK = b->shape[0], BN = b->shape[1];
  ltE_line(e, "/* %s [%d, %d] into %s [%d, %d], K-major for the wgmmas (no transpose bits for tf32) */", b->name, BK, BN,
           t->name, BN, BK);
  ltE_open_for(e, "i", BN * BK / 4 / 256, 1);
  ltE_line(e, "const int n = (tid + i * 256) %% %d, k = (tid + i * 256) / %d * 4;", BN, BN);
  ltE_line(e, "*(float4 *)&%s = float4{%s, %s, %s, %s};", ltE_sh_at(e, t, "n", "k"), ltE_sh_at(e, b, "k", "n"),
           ltE_sh_at(e, b, "k + 1", "n"), ltE_sh_at(e, b, "k + 2", "n"), ltE_sh_at(e, b, "k + 3", "n"));
  ltE_close_for(e);
  ltE_line(e, "%s   /* %s is whole */", e->barrier, t->name);
}

/* The test that row `row` of view v's tile (an offset from its first
** row) lies before the rows' bound: the tensor's end, and rows(lo, hi)'s
** hi (Stmt.row_skip, Stmt.wg_skip; pass/rowskip.c). */
const char *ltL_rows_live(E *e, const View *v, const char *row) {
  const char *r = ltE_sum(ltE_itext(e, v->origin[v->rdim]), row);
  const char *t = ltU_fmt("%s < %s", r, ltE_itext(e, v->t->dims[v->rdim]));
  return v->rhi ? ltU_fmt("%s && %s < %s", t, r, ltE_itext(e, v->rhi)) : t;
}

/* Is s the declaration of a zero-filled accumulator that a wgmma gemm
** fills next?  Then the fill is left out: the gemm's first k step writes
** the accumulator without reading it (wgmma's scale-d 0), so no zeros are
** moved into registers that a wgmma in flight may still hold. */
int ltL_starts_wgmma(const Stmt *s) {
  const Stmt *g = s->next;
  while (g && g->kind == S_BARRIER) g = g->next;   /* (a barrier before it, for its shared operands) */
  return s->val && s->val->kind == E_CONST && s->val->cval == 0 && g && g->kind == S_GEMM && g->dst == s->dst &&
         g->inst == MMA_WGMMA;
}

/* Gemm s's wgmmas, after its A fragments `frag` (register A) are made:
** the settles and wgmma.fence, then the wgmmas of its K steps, scale-d
** `sd` (no commit). */
static void issue(E *e, const Stmt *s, int BK, const char *frag, const char *sd) {
  Sym *a = s->shared ? s->shared : s->areg, *b = s->b_t ? s->b_t : s->shared_b, *acc = s->dst;
  const char *ty = ltP_wgmma_type(b->dt);
  const Layout *l = acc->layout;
  int N = l->wtn, ss = a->wgmma && !s->a_words, blocks = l->rgap ? l->wtm / 16 : 1;   /* m64 blocks a warpgroup */
  int K = 32 / ltI_dtypes[b->dt].bytes, tr = ltI_dtypes[b->dt].bytes == 2;   /* K step; transpose bits (16-bit types) */
  if (!ss) ltE_line(e, "lt_wgmma_settle(%s);", frag);
  ltE_line(e, "lt_wgmma_settle(%s);", acc->name);
  ltE_line(e, "lt_wgmma_fence();   /* %s%s in %s registers before the wgmmas read %s */",
           ss ? "" : ltU_fmt("%s and ", frag), acc->name, ss ? "its" : "their", ss ? "it" : "them");
  ltE_open_for(e, "kk", BK, K);
  if (l->swap && s->a_words) {   /* C^T = B^T A^T, B^T from registers, A's tile wgmma's B */
    ltE_line(e, "lt_wgmma_m64n%dk%d_%s_t(%s, %s[kk / %d][0], %s, %s);", l->rows, K, ty, acc->name, frag, K,
             wgmma_desc(a, ltE_sh_index(e, a, "0", "kk"), 0), sd);
  } else if (l->swap) {   /* C^T = B^T A^T: B's tile is wgmma's A, the warpgroup's 64 of its columns; A's, its B */
    const char *wg = ltU_fmt("(%s & ~63)", l->wcol);
    const char *at = s->trans_b ? ltE_sh_index(e, b, wg, "kk") : ltE_sh_index(e, b, "kk", wg);
    const char *at_a = s->trans_a ? ltE_sh_index(e, a, "kk", "0") : ltE_sh_index(e, a, "0", "kk");   /* [K, M]: TB */
    ltE_line(e, "lt_wgmma_m64n%dk%d_%s_ss_t<%d, %d>(%s, %s, %s, %s);", l->rows, K, ty, !s->trans_b, s->trans_a,
             acc->name, wgmma_desc(b, at, !s->trans_b), wgmma_desc(a, at_a, s->trans_a), sd);
  } else if (ss) {   /* A's K from kk for the warpgroup's 64 rows: [M, K] K-major, or [K, M] M-major */
    for (int i = 0; i < blocks; i++) {   /* several m64 blocks: rows 64 i on, registers N / 2 i on */
      const char *wg = i ? ltU_fmt("(%s & ~63) + %d", l->wrow, 64 * i) : ltU_fmt("(%s & ~63)", l->wrow);
      const char *at = s->trans_a ? ltE_sh_index(e, a, "kk", wg) : ltE_sh_index(e, a, wg, "kk");
      const char *d = blocks > 1 ? ltU_fmt("reinterpret_cast<float (&)[%d]>(%s[%d])", N / 2, acc->name, N / 2 * i)
                                 : acc->name;
      ltE_line(e, "lt_wgmma_m64n%dk%d_%s_ss%s(%s, %s, %s, %s);", N, K, ty,
               tr ? ltU_fmt("<%d, %d>", s->trans_a, !s->trans_b) : "", d, wgmma_desc(a, at, s->trans_a),
               wgmma_desc(b, operand_b_at(e, s, b), !s->trans_b), sd);
    }
  } else if (!tr) {   /* tf32 A from registers, B K-major (or its K-major copy, b_t) */
    ltE_line(e, "lt_wgmma_m64n%dk%d_%s(%s, %s[kk / %d][0], %s, %s);", N, K, ty, acc->name, frag, K,
             wgmma_desc(b, operand_b_at(e, s, b), 0), sd);
  } else {
    ltE_line(e, "lt_wgmma_m64n%dk16_%s<%d>(%s, %s[kk / 16][0], %s, %s);", N, ty, !s->trans_b, acc->name, frag,
             wgmma_desc(b, operand_b_at(e, s, b), !s->trans_b), sd);
  }
  ltE_close_for(e);
}

/* The A fragments of tf32 gemm s whose A is stored [K, M] (Stmt.a_words),
** into `frag` [K / 8][1][4]: per 8 of K, the f32 words of rows g, g + 8
** by columns t, t + 4 of the warp's 16 rows (g = lane / 4, t = lane % 4;
** the tensor cores read their top 19 bits, as by descriptor).  Swapped
** (C^T = B^T A^T), wgmma's A is B^T, B stored [K, N]: the warp's rows are
** its 16 columns of B.  Here one 8 of K, kk's, into slot `slot` (a_slot);
** tf32_a_words makes them all. */
static void a_slot(E *e, const Stmt *s, const char *frag, const char *slot) {
  const Layout *l = s->dst->layout;
  const Sym *a = l->swap ? s->shared_b : s->shared;
  static const char *const ar[4] = {"r", "r + 8", "r", "r + 8"}, *const ac[4] = {"c", "c", "c + 4", "c + 4"};
  ltE_lane_line(e, "const int r = %s + lane / 4, c = kk + lane %% 4;", l->swap ? l->wcol : l->wrow);
  for (int i = 0; i < 4; i++)
    ltE_line(e, "%s[%s][0][%d] = __float_as_uint(%s);", frag, slot, i, ltE_sh_at(e, a, ac[i], ar[i]));
}

/* All of gemm s's A fragments (Stmt.a_words), declared here: the
** iteration's own. */
static void tf32_a_words(E *e, const Stmt *s, int BK, const char *frag) {
  ltE_line(e, "uint32_t %s[%d][1][4];   /* [8 of K][warp's 16 rows] */", frag, BK / 8);
  ltE_open_for(e, "kk", BK, 8);
  a_slot(e, s, frag, "kk / 8");
  ltE_close_for(e);
}

/* The name of the A fragments of gemm s of Stmt.a_words. */
const char *ltL_words_frag(const Stmt *s) {
  return ltU_fmt("%s_frag", s->dst->layout->swap ? s->shared_b->name : s->shared->name);
}

/* The fragments of rolling gemm s (Stmt.roll), declared before its loop:
** they live across the back edge, a slot a commit group. */
void ltL_roll_decl(E *e, const Stmt *s) {
  int BK = s->shared_b->shape[s->trans_b];
  if (s->roll == BK / 8)
    ltE_line(e, "uint32_t %s[%d][1][4];   /* [8 of K][warp's 16 rows]: slot kk / 8 rewritten once the wgmmas that read "
                "it the iteration before are done */", ltL_words_frag(s), BK / 8);
  else if (s->roll == 1)
    ltE_line(e, "uint32_t %s[1][1][4];   /* [one slot][warp's 16 rows], 8 of K: rewritten once the wgmma that last read "
                "it is done */", ltL_words_frag(s));
  else
    ltE_line(e, "uint32_t %s[%d][1][4];   /* [slot][warp's 16 rows], 8 of K each: slot kk / 8 %% %d rewritten once the "
                "wgmma that last read it is done */", ltL_words_frag(s), s->roll, s->roll);
}

/* Rolling gemm s (Stmt.roll, n slots) on `frag`: per 8 of K, the wait for
** the group that last read slot kk / 8 % n (all but the newest n - 1
** groups stay in flight; with a slot for each 8 of K, the iteration
** before's later slots and this one's earlier ones), the slot's words,
** the fence and one wgmma, its own commit group.  The accumulator chains
** through all of them. */
static void roll(E *e, const Stmt *s, int BK, const char *frag) {
  int n = s->roll;
  const char *slot = n == BK / 8 ? "kk / 8" : n == 1 ? "0" : ltU_fmt("kk / 8 %% %d", n);
  ltE_open_for(e, "kk", BK, 8);
  if (n == BK / 8)
    ltE_line(e, "lt_wgmma_wait<%d>();   /* the wgmma that read slot kk / 8 the iteration before is done (the newest %d "
                "groups stay in flight) */", n - 1, n - 1);
  else if (n == 1)
    ltE_line(e, "lt_wgmma_wait<0>();   /* the wgmma that read the slot is done (the other warpgroup's run meanwhile) */");
  else
    ltE_line(e, "lt_wgmma_wait<%d>();   /* the wgmma that last read slot %s is done (the newest %d group%s in "
                "flight) */", n - 1, slot, n - 1, n > 2 ? "s stay" : " stays");
  ltE_line(e, "lt_wgmma_settle(%s[%s][0]);   /* its words are rewritten after the wait */", frag, slot);
  a_slot(e, s, frag, slot);
  ltE_line(e, "lt_wgmma_settle(%s[%s][0]);", frag, slot);
  ltE_line(e, "lt_wgmma_settle(%s);", s->dst->name);
  ltE_line(e, "lt_wgmma_fence();   /* the slot's words and %s in their registers before the wgmma reads them */",
           s->dst->name);
  const Layout *l = s->dst->layout;
  const Sym *b = s->b_t ? s->b_t : s->shared_b;
  if (l->swap)
    ltE_line(e, "lt_wgmma_m64n%dk8_tf32_t(%s, %s[%s][0], %s, 1);", l->rows, s->dst->name, frag, slot,
             wgmma_desc(s->shared, ltE_sh_index(e, s->shared, "0", "kk"), 0));
  else
    ltE_line(e, "lt_wgmma_m64n%dk8_tf32(%s, %s[%s][0], %s, 1);", l->wtn, s->dst->name, frag, slot,
             wgmma_desc(b, operand_b_at(e, s, b), 0));
  ltE_line(e, "lt_wgmma_commit();   /* a group a slot */");
  ltE_close_for(e);
}

/* The name of the A fragments of gemm s with its A from registers. */
const char *ltL_wgmma_frag(const Stmt *s) { return ltU_fmt("%s_frag", s->areg->name); }

/* The wgmmas of a deferred gemm s (pass/defer.c) from the fragments its
** pack made, on the stage e->stage; the caller commits. */
void ltL_wgmma_deferred(E *e, const Stmt *s, int BK) { issue(e, s, BK, ltL_wgmma_frag(s), "1"); }

/* wgmma.mma_async m64nNk16 (sm90a): each warpgroup (4 warps, 16 rows of
** the accumulator each) multiplies A by B, which the tensor cores read
** from shared memory through a descriptor: its address, the byte offset
** of the next 8 rows (SBO, along K) and of the next 64-column panel (LBO,
** MN-major only), and the swizzle (mma.c: the tile's own is wgmma's).  A
** is read the same way where it is such a shared tile, else from the
** warps' registers, as the mma.sync A fragments (ltL_a_frags): all of
** K's first.  Then one wgmma.fence, the wgmmas and a commit; the wait
** comes just before the first statement that needs it (ltP_waits_for), so
** register work in between overlaps the tensor cores.  A deferred gemm
** (pass/defer.c) only packs its A fragments here, into the array its loop
** declared; the loop issues it (ltL_wgmma_deferred). */
void ltL_gemm_wgmma(E *e, Stmt *s, int BK) {
  Sym *a = s->shared ? s->shared : s->areg, *b = s->shared_b, *acc = s->dst;
  const char *ty = ltP_wgmma_type(b->dt);
  int ss = a->wgmma && !s->a_words;
  const char *sd = e->fresh == acc ? "kk > 0" : "1";   /* scale-d: 0 replaces the accumulator */
  if (e->fresh == acc)
    ltE_line(e, "/* %s starts at zero: the first k step writes it without reading it (scale-d 0) */", acc->name);
  e->fresh = NULL;
  const char *frag = s->a_words ? ltL_words_frag(s) : ltU_fmt("%s_frag", a->name);
  if (s->b_t) copy_b_t(e, s);
  if (s->roll) {
    roll(e, s, BK, frag);
    e->ninflight = ltP_add_inflight(e->inflight, e->ninflight, acc);
    return;
  }
  if (s->a_words) {
    tf32_a_words(e, s, BK, frag);
  } else if (!ss) {
    if (s->deferred)
      ltE_line(e, "/* into %s, declared before the loop: its wgmmas are issued at the next iteration's top, or "
                  "after the loop */", frag);
    else ltE_line(e, "uint32_t %s[%d][1][4];   /* [16 of K][warp's 16 rows] */", frag, BK / 16);
    ltE_open_for(e, "kk", BK, 16);
    ltL_a_frags(e, s, 1, ty, ltU_fmt("%s[kk / 16]", frag));
    ltE_close_for(e);
    if (s->deferred) return;
  }
  issue(e, s, BK, frag, sd);
  ltE_line(e, "lt_wgmma_commit();   /* in flight: the statements up to the first that needs %s run meanwhile */",
           acc->name);
  if (e->ninflight == 8) ltL_wgmma_wait(e);
  e->ninflight = ltP_add_inflight(e->inflight, e->ninflight, acc);
}
