/*
** test_barrier.c: ltP_barrier places __syncthreads on hand-built IR:
** write-then-read, read-then-write and write-then-write of one shared
** buffer get a barrier between; read-read and different buffers get none;
** loops order one iteration against the next; a reduction through shared
** scratch inside a loop gets one; branches merge what they leave pending.
*/
#include "check.h"

static Kernel *K;

static Sym *shared(const char *name) {
  Sym *s = ltI_sym(K, SYM_SHARED, DT_F32, 1);
  s->rank = 2;
  s->shape[0] = 16;
  s->shape[1] = 16;
  s->name = name;
  return s;
}

static Stmt *wr(Block *b, Sym *sh, int line) {   /* shared tile = global view */
  Stmt *s = add(b, S_G2S, line);
  s->shared = sh;
  return s;
}

static Stmt *st(Block *b, Sym *sh, int line) {   /* shared tile = fragment value */
  Stmt *s = add(b, S_SSTORE, line);
  s->shared = sh;
  return s;
}

static Stmt *rd(Block *b, Sym *sh, int line) {   /* fragment = shared tile */
  Stmt *s = add(b, S_SLOAD, line);
  s->shared = sh;
  return s;
}

static Stmt *red(Block *b, Sym *scratch, int line) {
  Stmt *s = add(b, S_REDUCE, line);
  s->scratch = scratch;
  return s;
}

static Stmt *loop(Block *b, int line) {
  Stmt *s = add(b, S_FOR, line);
  s->lo = ltI_const(0, DT_I32, 0, line);
  s->hi = ltI_const(8, DT_I32, 0, line);
  s->step = ltI_const(1, DT_I32, 0, line);
  return s;
}

/* The block as a string of letters: B barrier, W G2S/SSTORE, R SLOAD,
** D reduce, L( ... ) loop, I( ... | ... ) if, . anything else. */
static void shape_of(const Block *b, Buf *o) {
  for (const Stmt *s = b->first; s; s = s->next) {
    switch (s->kind) {
    case S_BARRIER: ltU_put(o, "B"); break;
    case S_G2S: case S_SSTORE: ltU_put(o, "W"); break;
    case S_SLOAD: ltU_put(o, "R"); break;
    case S_REDUCE: ltU_put(o, "D"); break;
    case S_FOR: ltU_put(o, "L("); shape_of(&s->body, o); ltU_put(o, ")"); break;
    case S_IF: ltU_put(o, "I("); shape_of(&s->body, o); ltU_put(o, "|"); shape_of(&s->orelse, o); ltU_put(o, ")"); break;
    default: ltU_put(o, "."); break;
    }
  }
}

static const char *shape(const Block *b) {
  Buf o = {0};
  ltU_put(&o, "");
  shape_of(b, &o);
  return o.p;
}

/* last must point at the final statement of every block */
static int last_ok(const Block *b) {
  const Stmt *s = b->first, *prev = NULL;
  for (; s; s = s->next) {
    if (!last_ok(&s->body) || !last_ok(&s->orelse)) return 0;
    prev = s;
  }
  return b->last == prev;
}

static void fresh(void) { K = new_kernel(256); }

static void test_straight(void) {
  fresh();
  Sym *a = shared("a");
  wr(&K->body, a, 1);
  rd(&K->body, a, 2);
  ltP_barrier(K);
  CHECK_STR("barrier/write_then_read", shape(&K->body), "WBR");
  CHECK("barrier/write_then_read_last", last_ok(&K->body));

  fresh();
  a = shared("a");
  rd(&K->body, a, 1);
  rd(&K->body, a, 2);
  ltP_barrier(K);
  CHECK_STR("barrier/read_read_none", shape(&K->body), "RR");

  fresh();
  a = shared("a");
  rd(&K->body, a, 1);
  st(&K->body, a, 2);
  ltP_barrier(K);
  CHECK_STR("barrier/read_then_write", shape(&K->body), "RBW");

  fresh();
  a = shared("a");
  wr(&K->body, a, 1);
  st(&K->body, a, 2);
  ltP_barrier(K);
  CHECK_STR("barrier/write_then_write", shape(&K->body), "WBW");

  fresh();
  a = shared("a");
  Sym *b = shared("b");
  wr(&K->body, a, 1);
  rd(&K->body, b, 2);
  wr(&K->body, b, 3);
  ltP_barrier(K);
  CHECK_STR("barrier/different_buffers", shape(&K->body), "WRBW");

  fresh();
  a = shared("a");
  b = shared("b");
  wr(&K->body, a, 1);
  wr(&K->body, b, 2);
  rd(&K->body, a, 3);
  rd(&K->body, b, 4);
  ltP_barrier(K);
  CHECK_STR("barrier/one_for_two_buffers", shape(&K->body), "WWBRR");

  fresh();
  a = shared("a");
  wr(&K->body, a, 1);
  rd(&K->body, a, 2);
  rd(&K->body, a, 3);
  st(&K->body, a, 4);
  rd(&K->body, a, 5);
  ltP_barrier(K);
  CHECK_STR("barrier/sequence", shape(&K->body), "WBRRBWBR");
  CHECK("barrier/sequence_last", last_ok(&K->body));
  CHECK_INT("barrier/line_of_barrier", K->body.first->next->line, 2);

  fresh();
  ltP_barrier(K);
  CHECK("barrier/empty_kernel", K->body.first == NULL);
}

static void test_reductions(void) {
  fresh();
  Sym *s1 = shared("s1");
  red(&K->body, s1, 1);
  ltP_barrier(K);
  CHECK_STR("barrier/single_reduce_none", shape(&K->body), "D");

  fresh();
  s1 = shared("s1");
  Sym *s2 = shared("s2");
  red(&K->body, s1, 1);
  red(&K->body, s2, 2);
  ltP_barrier(K);
  CHECK_STR("barrier/two_reduces_two_scratches", shape(&K->body), "DD");

  fresh();
  red(&K->body, NULL, 1);   /* within a warp: no scratch */
  red(&K->body, NULL, 2);
  ltP_barrier(K);
  CHECK_STR("barrier/warp_reduces_none", shape(&K->body), "DD");

  /* in a loop, the next iteration's write of the scratch must wait for
  ** every thread to have read this iteration's partials */
  fresh();
  s1 = shared("s1");
  Stmt *l = loop(&K->body, 1);
  red(&l->body, s1, 2);
  ltP_barrier(K);
  CHECK_STR("barrier/reduce_in_loop", shape(&K->body), "L(BD)");
  CHECK("barrier/reduce_in_loop_last", last_ok(&K->body));

  fresh();
  s1 = shared("s1");
  red(&K->body, s1, 1);
  red(&K->body, s1, 2);   /* same scratch reused */
  ltP_barrier(K);
  CHECK_STR("barrier/scratch_reused", shape(&K->body), "DBD");
}

static void test_loops(void) {
  fresh();
  Sym *a = shared("a");
  Stmt *l = loop(&K->body, 1);
  wr(&l->body, a, 2);
  rd(&l->body, a, 3);
  ltP_barrier(K);
  CHECK_STR("barrier/loop_copy_then_use", shape(&K->body), "L(BWBR)");

  fresh();
  a = shared("a");
  l = loop(&K->body, 1);
  rd(&l->body, a, 2);
  ltP_barrier(K);
  CHECK_STR("barrier/loop_read_only", shape(&K->body), "L(R)");

  fresh();
  a = shared("a");
  wr(&K->body, a, 1);
  l = loop(&K->body, 2);
  rd(&l->body, a, 3);
  ltP_barrier(K);
  CHECK_STR("barrier/write_before_loop", shape(&K->body), "WL(BR)");

  fresh();
  a = shared("a");
  l = loop(&K->body, 1);
  rd(&l->body, a, 2);
  wr(&K->body, a, 3);
  ltP_barrier(K);
  CHECK_STR("barrier/write_after_loop", shape(&K->body), "L(R)BW");

  fresh();
  a = shared("a");
  Sym *b = shared("b");
  l = loop(&K->body, 1);
  wr(&l->body, a, 2);
  rd(&l->body, a, 3);
  Stmt *in = loop(&l->body, 4);
  wr(&in->body, b, 5);
  rd(&in->body, b, 6);
  ltP_barrier(K);
  CHECK_STR("barrier/nested_loops", shape(&K->body), "L(BWBRL(BWBR))");
  CHECK("barrier/nested_loops_last", last_ok(&K->body));
}

static void test_branches(void) {
  fresh();
  Sym *a = shared("a");
  Stmt *i = add(&K->body, S_IF, 1);
  wr(&i->body, a, 2);
  rd(&K->body, a, 3);
  ltP_barrier(K);
  CHECK_STR("barrier/write_in_then", shape(&K->body), "I(W|)BR");

  fresh();
  a = shared("a");
  i = add(&K->body, S_IF, 1);
  rd(&i->body, a, 2);
  wr(&i->orelse, a, 3);
  ltP_barrier(K);
  CHECK_STR("barrier/branches_independent", shape(&K->body), "I(R|W)");

  fresh();
  a = shared("a");
  wr(&K->body, a, 1);
  i = add(&K->body, S_IF, 2);
  rd(&i->body, a, 3);
  rd(&i->orelse, a, 4);
  ltP_barrier(K);
  CHECK_STR("barrier/both_branches_read", shape(&K->body), "WI(BR|BR)");
  CHECK("barrier/branches_last", last_ok(&K->body));
}

int main(void) {
  ltU_file = "unit.lua";
  test_straight();
  test_reductions();
  test_loops();
  test_branches();
  return 0;
}
