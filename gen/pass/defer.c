/*
** defer.c: the second gemm of a warp-specialized loop, one iteration late
** (Stmt.defer), and where the emitter waits for the wgmma groups then.
**
** Attention's consumer loop opens with S = Q K^T, works on S (the
** softmax), and ends with O += P V, P the softmax's result in registers.
** In the order the DSL states it, each iteration waits for all its wgmmas
** before the softmax, so one warpgroup's tensor cores idle while it works
** on S.  Deferred, iteration j issues S_j = Q K_j, then O += P_{j-1}
** V_{j-1} (P packed into registers at the end of iteration j - 1, V from
** the stage before), each as one commit group; wgmma.wait_group 1 then
** completes S_j alone, and the softmax of S_j runs while the tensor cores
** still work on P_{j-1} V_{j-1}; the first statement that names O (the
** rescale by the new max) waits for the rest (wait_group 0), and the pack
** of P_j, which overwrites the registers P_{j-1} V_{j-1} reads, comes after
** it.  The first iteration commits an empty group in that place, so that
** wait_group 1 means S there too; the last P V is issued after the loop.
** (FlashAttention-3's intra-warpgroup overlap; the order is a fact of its
** paper, the code here is gen's.)
**
** ltP_plan_defer decides it; ltP_wait_keep says, for the emitter, how many
** of the newest groups may stay in flight before a statement;
** lower/sched_attn.c prints the loop.
*/
#include <string.h>

#include "lt.h"

/* Is statement x in block b (or in a block inside it)? */
static int inside(const Block *b, const Stmt *x) {
  for (const Stmt *s = b->first; s; s = s->next)
    if (s == x || inside(&s->body, x) || inside(&s->orelse, x)) return 1;
  return 0;
}

/* Appends the gemms of block b (and of the blocks inside it) to g[*n];
** -1 in *n past 8. */
static void gemms(const Block *b, Stmt **g, int *n) {
  for (Stmt *s = b->first; s && *n >= 0; s = s->next) {
    if (s->kind == S_GEMM) {
      if (*n == 8) *n = -1;
      else g[(*n)++] = s;
    }
    gemms(&s->body, g, n);
    gemms(&s->orelse, g, n);
  }
}

/* The one gemm among the statements of block b (not inside them), or NULL;
** (Stmt *)b where b has more, or a gemm deeper down. */
static Stmt *the_gemm(const Block *b) {
  Stmt *g = NULL, *more[8];
  for (Stmt *s = b->first; s; s = s->next) {
    int n = 0;
    gemms(&s->body, more, &n);
    gemms(&s->orelse, more, &n);
    if (n) return (Stmt *)b;
    if (s->kind == S_GEMM) {
      if (g) return (Stmt *)b;
      g = s;
    }
  }
  return g;
}

/* Can gemm g go to the next iteration, as d (the first such gemm, or g)?
** A wgmma with its A from registers into an accumulator declared before
** the loop, nothing after it in its block naming that accumulator, and,
** where d is another, the same operands and accumulator. */
static int deferrable(const Stmt *loop, const Stmt *g, const Stmt *d) {
  if (g->inst != MMA_WGMMA || !g->areg || g->shared || !g->shared_b || g->shared_b->stages < 2) return 0;
  if (!g->dst->def || inside(&loop->body, g->dst->def) || ltP_uses(g->next, g->dst)) return 0;
  return g->dst == d->dst && g->areg == d->areg && g->shared_b == d->shared_b && g->trans_b == d->trans_b;
}

/* Plans the deferred gemm of warp-specialized loop s of kernel k (see
** above): where two consumer warpgroups take turns at the gemm that
** opens the body (Stmt.open_gemm), the body's other wgmmas are one gemm,
** run once an iteration: at the body's top level, or one in each branch
** of one if there; deferrable; and neither it nor anything after the if
** that holds it names its accumulator; that accumulator at most 128
** columns a warpgroup (measured, below).  Sets s->defer and each such
** gemm's `deferred`; the loop then carries nothing in flight across its
** back edge but what it issues itself (Stmt.carried, early_release off). */
void ltP_plan_defer(Kernel *k, Stmt *s) {
  Stmt *w = s->open_gemm, *all[8], *g[2];
  int n = 0, ng = 0;
  if (!w || k->threads != 256) return;
  gemms(&s->body, all, &n);
  if (n < 0) return;
  for (Stmt *x = w->next; x; x = x->next) {
    if (x->kind == S_GEMM) {
      if (ng) return;
      g[ng++] = x;
    } else if (x->kind == S_IF) {
      Stmt *a = the_gemm(&x->body), *b = the_gemm(&x->orelse);
      if (!a && !b) continue;
      if (ng || !a || !b || a == (Stmt *)&x->body || b == (Stmt *)&x->orelse || ltP_uses(x->next, a->dst)) return;
      g[ng++] = a;
      g[ng++] = b;
    }
  }
  if (!ng || n != ng + 1 || w->dst == g[0]->dst || ltP_names(w, g[0]->dst)) return;
  /* H200, bf16, the same rotated rounds: d128 (O 64 x 128 a warpgroup) 1.02-1.08x the loop in the DSL's order;
  ** d256 (O 64 x 256, 128 registers a thread) 0.73-0.85x while ptxas still added a warpgroup.arrive (C7519) where
  ** the skipped first P V joined, and 0.70-0.95x without it (0.70-0.81x from 4K; 168 / 253 registers, no spills;
  ** bench/results/2026-11-25-h200-attention-fwd-qrelease.txt) */
  if (g[0]->dst->layout->wtn > 128) return;
  for (int i = 0; i < ng; i++)
    if (!deferrable(s, g[i], g[0])) return;
  for (int i = 0; i < ng; i++) g[i]->deferred = 1;
  s->defer = g[0];
  s->carried = NULL;
  s->ncarried = 0;
  s->early_release = 0;
}

/* Does expression x read symbol y? */
static int reads(const Expr *x, const Sym *y) {
  return x && ((x->kind == E_SYM && x->sym == y) || reads(x->a, y) || reads(x->b, y) || reads(x->c, y));
}

/* How many of the newest wgmma groups in flight (inflight[0..n-1], oldest
** first, one accumulator a group) may stay in flight before statement s
** of a loop with a deferred gemm: n where s names none of them; else
** those after the newest that it names (wgmma.wait_group with that
** count); 0 before anything but register work, reads of shared tiles
** (wgmmas only read them), in-warp reductions (the
** consumers have no others: plan.c), plain stores and gemms.  An if waits
** for what its condition names; its branches wait inside, each from the
** groups in flight at the if. */
int ltP_wait_keep(const Sym *const *inflight, int n, const Stmt *s) {
  switch (s->kind) {
  case S_LET: case S_FRAG: case S_ASSIGN: case S_LOAD: case S_SLOAD: case S_REDUCE: case S_GEMM: case S_IF: break;
  case S_STORE: if (!s->via) break; return 0;
  default: return 0;
  }
  for (int i = n - 1; i >= 0; i--) {
    if (s->kind == S_IF ? reads(s->val, inflight[i])
                        : ltP_names(s, inflight[i]) || (s->fuse && ltP_names(s->next, inflight[i])))
      return n - 1 - i;
  }
  return n;
}
