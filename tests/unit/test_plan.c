/*
** test_plan.c: decisions of pass/plan.c on hand-built IR: when wgmmas in
** flight must be waited for (ltP_waits_for), with and without the chaining
** of the warp-specialized loop; and the Target fields that turn the Hopper
** execution model on (sm90a only: every other target's output is what it
** was without them).
*/
#include "check.h"

static Kernel *K;

static Sym *frag(const char *name) {
  Sym *s = ltI_sym(K, SYM_FRAG, DT_F32, 1);
  s->rank = 2;
  s->shape[0] = s->shape[1] = 64;
  s->name = name;
  return s;
}

static Stmt *gemm(Sym *acc, Sym *areg) {   /* acc += (areg or a shared tile) @ shared tile, by wgmma */
  Stmt *g = ltI_stmt(S_GEMM, 1);
  g->dst = acc;
  g->areg = areg;
  g->inst = MMA_WGMMA;
  return g;
}

static void test_waits(void) {
  K = ltU_alloc(sizeof *K);
  Sym *acc = frag("acc"), *other = frag("other"), *p = frag("p");
  const Sym *inflight[2] = {acc, other};
  CHECK("plan/waits_nothing_in_flight", !ltP_waits_for(inflight, 0, gemm(acc, NULL), 0));
  CHECK("plan/waits_gemm_into_inflight_acc", ltP_waits_for(inflight, 1, gemm(acc, NULL), 0));
  CHECK("plan/chain_gemm_into_inflight_acc", !ltP_waits_for(inflight, 1, gemm(acc, NULL), 1));
  CHECK("plan/chain_other_acc_no_wait", !ltP_waits_for(inflight, 2, gemm(p, NULL), 1));
  CHECK("plan/chain_reads_inflight_operand", ltP_waits_for(inflight, 2, gemm(acc, other), 1));
  Stmt *a = ltI_stmt(S_ASSIGN, 1);   /* acc = acc * 2: reads the accumulator */
  a->dst = acc;
  a->val = ltI_binary(B_MUL, ltI_ref(acc, 1), ltI_const(2, DT_F32, 1, 1), 1);
  CHECK("plan/chain_assign_waits", ltP_waits_for(inflight, 1, a, 1));
  Stmt *bar = ltI_stmt(S_BARRIER, 1);
  CHECK("plan/chain_barrier_waits", ltP_waits_for(inflight, 1, bar, 1));
}

static void test_targets(void) {
  for (int i = 0; ltT_all[i]; i++) {
    const Target *t = ltT_all[i];
    int hopper = strcmp(t->name, "sm90a") == 0;
    CHECK(ltU_fmt("plan/%s_hopper_fields", t->name),
          hopper ? t->tma && t->warpspec && t->persistent && t->wgmma && t->regs == 65536
                 : !t->tma && !t->warpspec && !t->persistent);
  }
}

int main(void) {
  test_waits();
  test_targets();
  return 0;
}
