/*
** test_plan.c: decisions of pass/plan.c on hand-built IR: when wgmmas in
** flight must be waited for (ltP_waits_for), with and without the chaining
** of the warp-specialized loop; and the Target fields that turn the Hopper
** execution model on (sm90a only: every other target's output is what it
** was without them); which index divisions of a persistent kernel's
** per-program scalars pass/fastdiv.c takes; and which rescales of an
** accumulator pass/rescale.c lets a warp skip.
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

/* A let of i32 value v appended to K's body. */
static Stmt *let(Expr *v) {
  Stmt *s = ltI_stmt(S_LET, 1);
  s->dst = ltI_sym(K, SYM_LET, DT_I32, 1);
  s->dst->def = s;
  s->val = v;
  ltI_append(&K->body, s);
  return s;
}

static Expr *ref(Sym *s) { return ltI_ref(s, 1); }
static Expr *bin(BinOp op, Expr *a, Expr *b) { return ltI_binary(op, a, b, 1); }

/* Takes a program-dependent, never negative dividend over a divisor the
** same in every program and never negative, one place a divisor, and no
** other division; only before the warp-specialized loop, only persistent. */
static void test_fastdiv(void) {
  for (int persistent = 0; persistent < 2; persistent++) {
    K = ltU_alloc(sizeof *K);
    Sym *B = ltI_sym(K, SYM_SIZE, DT_I32, 1), *H = ltI_sym(K, SYM_SIZE, DT_I32, 1);
    Sym *pid = ltI_sym(K, SYM_PID, DT_I32, 1);
    pid->extent = bin(B_MUL, bin(B_MUL, ref(B), ref(H)), ltI_const(8, DT_I32, 0, 1));
    Expr *bh = bin(B_MUL, ref(B), ref(H));
    Stmt *q = let(bin(B_IDIV, ref(pid), bh)), *r = let(bin(B_MOD, ref(pid), bin(B_MUL, ref(B), ref(H))));
    Stmt *by8 = let(bin(B_IDIV, ref(pid), ltI_const(8, DT_I32, 0, 1)));
    Stmt *neg = let(bin(B_IDIV, bin(B_SUB, ref(pid), ltI_const(5, DT_I32, 0, 1)), ref(B)));
    Stmt *same = let(bin(B_IDIV, ref(H), ref(B)));
    Stmt *varies = let(bin(B_IDIV, ref(pid), bin(B_ADD, ref(pid), ltI_const(1, DT_I32, 0, 1))));
    Stmt *negd = let(bin(B_IDIV, ref(pid), bin(B_SUB, ref(H), ref(B))));
    Stmt *h = let(bin(B_IDIV, ref(q->dst), ref(H)));
    Stmt *ws = ltI_stmt(S_FOR, 1);
    ltI_append(&K->body, ws);
    Stmt *after = let(bin(B_IDIV, ref(pid), ref(B)));
    K->ws = ws;
    K->persistent = persistent;
    ltP_fastdiv(K);
    const char *p = persistent ? "persistent" : "one_a_block";
    CHECK_INT(ltU_fmt("fastdiv/%s_divisors", p), K->ndivs, persistent ? 2 : 0);
    CHECK_INT(ltU_fmt("fastdiv/%s_quotient", p), q->val->div, persistent ? 1 : 0);
    CHECK_INT(ltU_fmt("fastdiv/%s_remainder_same_divisor", p), r->val->div, persistent ? 1 : 0);
    CHECK_INT(ltU_fmt("fastdiv/%s_of_a_quotient", p), h->val->div, persistent ? 2 : 0);
    CHECK(ltU_fmt("fastdiv/%s_others_kept", p), !by8->val->div && !neg->val->div && !same->val->div &&
          !varies->val->div && !negd->val->div && !after->val->div);
  }
  /* one divisor (a quotient and a remainder by it): left to the C operator */
  K = ltU_alloc(sizeof *K);
  Sym *B = ltI_sym(K, SYM_SIZE, DT_I32, 1), *pid = ltI_sym(K, SYM_PID, DT_I32, 1);
  pid->extent = bin(B_MUL, ref(B), ltI_const(8, DT_I32, 0, 1));
  Stmt *q = let(bin(B_IDIV, ref(pid), ref(B))), *r = let(bin(B_MOD, ref(pid), ref(B)));
  Stmt *ws = ltI_stmt(S_FOR, 1);
  ltI_append(&K->body, ws);
  K->ws = ws;
  K->persistent = 1;
  ltP_fastdiv(K);
  CHECK(ltU_fmt("fastdiv/one_divisor_kept"), K->ndivs == 0 && !q->val->div && !r->val->div);
}

/* A register tile of rows x cols f32, with a layout, declared by a let: a
** warpgroup's wgmma accumulator, cols / 2 elements a thread (a row or a
** column tile: one). */
static Sym *tile(const char *name, int rows, int cols) {
  Sym *s = frag(name);
  s->kind = SYM_LET;
  s->shape[0] = rows;
  s->shape[1] = cols;
  s->layout = ltU_alloc(sizeof *s->layout);
  *s->layout = (Layout){.rows = rows, .cols = cols, .vec = cols >= 8 ? 2 : 1, .nr = 2, .nc = cols >= 8 ? cols / 8 : 1};
  s->def = ltI_stmt(S_LET, 1);
  s->def->dst = s;
  return s;
}

/* acc = a * b, appended to block bl. */
static Stmt *scale(Block *bl, Sym *acc, Expr *a, Expr *b) {
  Stmt *s = ltI_stmt(S_ASSIGN, 1);
  s->dst = acc;
  s->val = ltI_binary(B_MUL, a, b, 1);
  ltI_append(bl, s);
  return s;
}

/* Marks acc = acc * r (either order, in a branch too) where acc is a wgmma
** accumulator of the warp-specialized loop of 128 elements a thread (64 x
** 256) and r an f32 row tile; not by a constant, a column, or a tile of
** another loop, nor another tile's, nor an accumulator of 64 a thread. */
static void test_rescale(void) {
  for (int ws = 0; ws < 2; ws++) {
    K = ltU_alloc(sizeof *K);
    Stmt *loop = ltI_stmt(S_FOR, 1), *br = ltI_stmt(S_IF, 1);
    loop->sched = ws ? SCHED_WARPSPEC : SCHED_RING;
    Sym *o = tile("o", 64, 256), *other = tile("other", 64, 256), *alpha = tile("alpha", 64, 1);
    Sym *col = tile("col", 1, 256), *seen = tile("seen", 64, 1), *narrow = tile("narrow", 64, 128);
    seen->def->fuse = 1;
    o->kind = other->kind = narrow->kind = SYM_FRAG;
    ltI_append(&loop->body, gemm(o, NULL));
    ltI_append(&loop->body, gemm(narrow, NULL));
    Stmt *a = scale(&loop->body, o, ref(o), ref(alpha)), *b = scale(&br->orelse, o, ref(alpha), ref(o));
    ltI_append(&loop->body, br);
    Stmt *c = scale(&loop->body, o, ref(o), ltI_const(2, DT_F32, 1, 1)), *d = scale(&loop->body, o, ref(o), ref(col));
    Stmt *e = scale(&loop->body, other, ref(other), ref(alpha)), *f = scale(&loop->body, o, ref(o), ref(seen));
    Stmt *g = scale(&loop->body, narrow, ref(narrow), ref(alpha));
    ltP_plan_rescale(loop);
    const char *w = ws ? "warpspec" : "ring";
    CHECK(ltU_fmt("rescale/%s_acc_times_row", w), a->unit_skip == (ws ? alpha : NULL));
    CHECK(ltU_fmt("rescale/%s_row_times_acc_in_branch", w), b->unit_skip == (ws ? alpha : NULL));
    CHECK(ltU_fmt("rescale/%s_others_kept", w), !c->unit_skip && !d->unit_skip && !e->unit_skip && !f->unit_skip);
    CHECK(ltU_fmt("rescale/%s_64_a_thread_kept", w), !g->unit_skip);
  }
}

int main(void) {
  test_waits();
  test_targets();
  test_fastdiv();
  test_rescale();
  return 0;
}
