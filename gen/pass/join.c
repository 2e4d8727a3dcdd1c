/*
** join.c: no wgmmas in flight across a branch join of a warp-specialized
** loop's consumers.
**
** plan.c lets a warp-specialized loop leave the wgmmas of an iteration's
** last gemms in flight across its back edge (Stmt.carried): the next
** iteration issues its first wgmmas before it waits for them.  Where
** those gemms are issued inside the branches of an if (the dK/dV kernel:
** dV += P^T dO and dK += dS^T Q in its masked and its unmasked step),
** their accumulators, still being written, meet at the join of the two
** branches, and ptxas, which must keep them in the same registers on both
** paths while they are in flight, serializes every wgmma of the kernel
** instead (its warning C7512, "insufficient register resources", at
** 240 registers a thread; with the wait at the end of each branch the
** same kernel compiles without it, at no more registers).  One
** accumulator so carried is fine (the d256 forward's O, 64 x 256 a
** warpgroup, compiles without C7512); two are not.  Nor is one where the
** iteration runs more than two gemms (attention's dQ kernel at 128 keys a
** step: S and dP, 64 x 128 f32 each a warpgroup, issued while dQ += dS K
** of the step before, issued in the masked or the unmasked step, is still
** in flight: C7512 at 240 registers; with the waits in the branches none,
** at 0.99-1.03x the serialized kernel's time, H200, 2026-11-25).  So a
** loop that carries two or more, or one beside more than two gemms an
** iteration, one of them issued in a branch, carries nothing: each branch
** waits for its wgmmas before it ends (the emitter's rule for a loop that
** does not carry, emit/stmt.c), and the consumers give the stage back at
** the end of the iteration.
*/
#include "lt.h"

/* Does a gemm into accumulator acc sit in a branch of an if of block b
** (or deeper; in_if: b is itself such a branch, or inside one)? */
static int gemm_in_branch(const Block *b, const Sym *acc, int in_if) {
  for (const Stmt *s = b->first; s; s = s->next) {
    if (in_if && s->kind == S_GEMM && s->dst == acc) return 1;
    int sub = in_if || s->kind == S_IF;
    if (gemm_in_branch(&s->body, acc, sub) || gemm_in_branch(&s->orelse, acc, sub)) return 1;
  }
  return 0;
}

/* Drops the carried wgmmas of warp-specialized loop s where there are two
** or more, or one beside more than two gemms an iteration, and one of
** them is issued in a branch (see above). */
static void plan_loop(Stmt *s) {
  if (s->ncarried < 1 || (s->ncarried < 2 && ltP_gemms(s->body.first) <= 2)) return;
  for (int i = 0; i < s->ncarried; i++)
    if (gemm_in_branch(&s->body, s->carried[i], 0)) {
      s->carried = NULL;
      s->ncarried = 0;
      s->early_release = 0;
      return;
    }
}

/* The warp-specialized loops of block b (and of the blocks inside it). */
static void plan_block(Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->kind == S_FOR && s->sched == SCHED_WARPSPEC) plan_loop(s);
    plan_block(&s->body);
    plan_block(&s->orelse);
  }
}

/* Decides, for every warp-specialized loop of kernel k, that no wgmma in
** flight crosses a branch join at its back edge (Stmt.carried). */
void ltP_plan_join(Kernel *k) { plan_block(&k->body); }
