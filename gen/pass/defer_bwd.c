/*
** defer_bwd.c: the gemms of a warp-specialized loop's masked / unmasked
** step, one iteration late (Stmt.lates), so that the next iteration's
** opening gemms run first and its elementwise work overlaps them.
**
** Attention's backward (the dK/dV kernel) opens each iteration with two
** gemms from shared memory, S^T = K Q^T and dP^T = V dO^T, then, in the
** masked or the unmasked step, works on them and runs two gemms with
** their A from registers: dV += P^T dO, dK += dS^T Q.  In the order the
** DSL states it each warpgroup waits for dK's wgmmas at the end of the
** step (no wgmma may cross the branch join: join.c), and the next
** iteration's S^T waits for its stage and its wgmmas with nothing else
** for this warpgroup's tensor cores to run.  Deferred, iteration j issues
** S^T_j and dP^T_j, then dV and dK of iteration j - 1 (P^T and dS^T packed
** into registers at the end of the step before, Q and dO from the stage
** before), each a commit group; the emitter's ordered mode (defer.c,
** ltP_wait_keep) then waits for S^T_j alone before P^T = exp(...) runs
** while dP^T_j, dV and dK run; the pack of P^T_j waits for dV (whose
** registers it overwrites), the pack of dS^T_j for dK.  Nothing is in
** flight at the branch join.  The stage of iteration j - 1 goes back after
** the body; each stage is held one iteration longer, so a ring of two
** stages gets a third where shared memory holds it (with two, the next
** fill would wait for the whole iteration; the cp.async twin keeps the
** DSL's two).  The first iteration commits empty groups in those places;
** the last iteration's deferred gemms are issued after the loop.
**
** Only the step's first gemm (dV) goes late: with dK too, P^T's and dS^T's
** fragments live across the back edge, and with dK alone its wgmmas and
** fragments are in flight while dS^T is computed; either way ptxas
** serialized every wgmma of the bf16 d128 kernel (C7512; both: 96 bytes
** of spills too).  (H200, bf16 d128, dV late and 3 stages: the dK/dV
** kernel in 0.95-0.97x the time from 4K tokens, 1.02x at 4K causal;
** bench/results/2026-11-25-h200-attention-bwd-defer.txt.)
**
** ltP_late_stage decides the stage (plan.c, with the loop's schedule);
** ltP_plan_defer_bwd the deferred gemm; lower/sched_attn_bwd.c prints
** the loop.
*/
#include <string.h>

#include "lt.h"

/* The gemms at the top level of block b into g[*n] (at most 2; -1 in *n
** past that, or where a statement inside b's holds one). */
static void branch_gemms(const Block *b, Stmt **g, int *n) {
  for (Stmt *s = b->first; s && *n >= 0; s = s->next) {
    if (s->kind == S_GEMM) {
      if (*n == 2) *n = -1;
      else g[(*n)++] = s;
    } else if (ltP_gemms(s->body.first) || ltP_gemms(s->orelse.first)) {
      *n = -1;
    }
  }
}

/* The step of loop s's consumers: their gemms with A from shared memory
** first (the last into *after), then one if whose two branches each run
** one or two gemms at their top level, the same in both (the first of
** each into *a and *b), the iteration's last; NULL where the body is not
** so. */
static Stmt *step(Stmt *s, Stmt **after, Stmt **a, Stmt **b) {
  Stmt *p = s->body.first, *at = NULL, *ga[2], *gb[2];
  while (p && ltP_is_producer(p)) p = p->next;
  int top = 0, na = 0, nb = 0;
  *after = NULL;
  for (Stmt *x = p; x; x = x->next) {
    if (x->kind == S_GEMM) {
      if (at || x->areg) return NULL;
      *after = x;
      top++;
    } else if (x->kind == S_IF && (ltP_gemms(x->body.first) || ltP_gemms(x->orelse.first))) {
      if (at) return NULL;
      at = x;
    } else if (x->kind == S_FOR && ltP_gemms(x->body.first)) {
      return NULL;
    }
  }
  if (!*after || !at) return NULL;
  branch_gemms(&at->body, ga, &na);
  branch_gemms(&at->orelse, gb, &nb);
  if (na < 1 || na != nb || ltP_gemms(p) != top + na) return NULL;
  *a = ga[0];
  *b = gb[0];
  return at;
}

/* Is shared tile x filled by a copy among loop s's producers (a ring's)? */
static int ring_tile(const Stmt *s, const Sym *x) {
  for (const Stmt *p = s->body.first; p && ltP_is_producer(p); p = p->next)
    if (p->kind == S_G2S && p->shared == x) return 1;
  return 0;
}

/* Can gemm g, in the step `at` of loop s, go to the next iteration?  Its
** A from registers (a register tile of the branch, packed where g stands)
** and B a ring's tile, into an accumulator declared before the loop (at
** most 128 columns a warpgroup, as defer.c's) that nothing after g in its
** branch or after the step names. */
static int deferrable(const Stmt *s, const Stmt *at, const Stmt *g) {
  if (!g->areg || g->shared || !g->shared_b || !ring_tile(s, g->shared_b)) return 0;
  if (!g->dst->def || ltP_uses(g->next, g->dst) || ltP_uses(at->next, g->dst)) return 0;
  for (const Stmt *x = s->body.first; x; x = x->next)
    if (x == g->dst->def || (x->kind == S_GEMM && x->dst == g->dst)) return 0;
  return g->dst->layout->wtn <= 128;
}

/* Do gemms a and b (the masked and the unmasked step's) run the same
** product, into the same accumulator? */
static int same_gemm(const Stmt *a, const Stmt *b) {
  return a->dst == b->dst && a->shared_b == b->shared_b && a->trans_b == b->trans_b && a->areg->dt == b->areg->dt &&
         a->areg->shape[0] == b->areg->shape[0] && a->areg->shape[1] == b->areg->shape[1];
}

/* Does warp-specialized loop s of kernel k have a step gemm to defer (see
** above), the shape checks that need no plan beyond the schedule?  Two
** consumer warpgroups of wgmmas, one program's loop at a time (neither
** ping-pong nor split-K, whose loops sched_attn_bwd.c does not print),
** more than two gemms an iteration (with two, defer.c's scheme:
** attention's forward). */
static Stmt *candidate(const Kernel *k, Stmt *s) {
  Stmt *after, *a, *b, *at;
  if (k->mma != MMA_WGMMA || k->threads != 256 || k->pingpong || k->splitk || ltP_gemms(s->body.first) <= 2)
    return NULL;
  if (!(at = step(s, &after, &a, &b))) return NULL;
  if (!deferrable(s, at, a) || !deferrable(s, at, b) || !same_gemm(a, b)) return NULL;
  return a;
}

/* Gives warp-specialized loop s of kernel k on t a third stage where it
** has two and a step gemm to defer, and shared memory holds the third
** (the tiles the kernel declares, the ring's three times, and the ring's
** mbarriers; smem.c fits what it adds, TMA store staging, in what is left
** or does without).  Sets s->late_stage. */
void ltP_late_stage(Kernel *k, Stmt *s, const Target *t) {
  if (s->stages != 2 || !candidate(k, s)) return;
  long long bytes = 16LL * 3 + 32;
  for (int i = 0; i < k->nsyms; i++) {
    const Sym *x = k->syms[i];
    if (x->kind != SYM_SHARED) continue;
    long long n = ltI_dtypes[x->dt].bytes;
    for (int d = 0; d < x->rank; d++) n *= x->shape[d];
    bytes += ring_tile(s, x) ? 3 * n : n;
  }
  if (bytes > t->smem_max) return;
  s->stages = 3;
  s->late_stage = 1;
}

/* Plans the deferred gemm of warp-specialized loop s of kernel k (see
** above): no gemm deferred by defer.c, no turns, a ring of three stages or
** more, the step's first gemm deferrable in both branches and a wgmma.
** Sets s->lates, s->late_after (the last gemm before the step), each such
** gemm's `deferred`, and names the else branch's register operand as the
** then branch's (one array of packed fragments for both). */
void ltP_plan_defer_bwd(Kernel *k, Stmt *s) {
  Stmt *after, *a, *b;
  if (s->defer || s->open_gemm || s->stages < 3 || !(a = candidate(k, s)) || !step(s, &after, &a, &b)) return;
  if (a->inst != MMA_WGMMA || b->inst != MMA_WGMMA) return;
  a->deferred = b->deferred = 1;
  b->areg->name = a->areg->name;   /* (each declared in its own branch) */
  s->lates[0] = a;
  s->nlates = 1;
  s->late_after = after;
  s->carried = NULL;
  s->ncarried = 0;
  s->early_release = 0;
}
