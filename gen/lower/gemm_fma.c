/*
** gemm_fma.c: a gemm as plain multiply-adds, for any target and type: each
** thread adds up its own accumulator elements (the kernel's blocked
** layout, pass/layout.c) over K, reading both operands from shared memory.
*/
#include "emit/emit.h"

/* Plain multiply-adds over the accumulator's blocked layout. */
void ltL_gemm_fma(E *e, Stmt *s, int BK) {
  Sym *a = s->shared, *b = s->shared_b, *acc = s->dst;
  if (ltE_gpu(e)) ltE_line(e, "#pragma unroll 4");
  ltE_line(e, "for (int kk = 0; kk < %d; ++kk) {", BK);
  e->depth++;
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, acc->layout, acc->shape, 1, 1, 1);
  const char *x = ltE_to_compute(e, a->dt, ltE_op_at(e, a, s->trans_a, ltE_tile_row(&c), "kk"));
  const char *y = ltE_to_compute(e, b->dt, ltE_op_at(e, b, s->trans_b, "kk", ltE_tile_col(&c)));
  ltE_line(e, "%s[%s] += %s * %s;", acc->name, ltE_reg_index(&c, acc->shape), x, y);
  ltE_close_loops(e, n);
  e->depth--;
  ltE_line(e, "}");
}
