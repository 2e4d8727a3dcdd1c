/*
** test_gelu.c: pass/gelu.c: which products become U_GELU (the erf form of
** GELU, its erf fast, its factors in any order and grouping) and which
** stay as they are (another constant, another operand, a slow erf).
*/
#include "check.h"

static Kernel *K;

static Expr *weak(double v) { return ltI_const(v, DT_F32, 1, 7); }
static Expr *tile(void) { return ltI_ref(tile_sym(K, SYM_LET, DT_F32, 8, 256), 7); }

/* 1 + erf(x * c), the erf fast or not; c_left puts c first in the product,
** one_right the 1 after the erf. */
static Expr *one_plus_erf(Expr *x, double c, int fast, int c_left, int one_right) {
  Expr *e = ltI_unary(U_ERF, c_left ? ltI_binary(B_MUL, weak(c), x, 7) : ltI_binary(B_MUL, x, weak(c), 7), 7);
  e->fast = fast;
  return one_right ? ltI_binary(B_ADD, e, weak(1), 7) : ltI_binary(B_ADD, weak(1), e, 7);
}

/* Is e U_GELU of x, fast? */
static int gelu_of(const Expr *e, const Expr *x) {
  return e->kind == E_UNARY && e->op == U_GELU && e->fast && e->a == x && !e->b && e->rank == 2;
}

static void test_taken(void) {
  Expr *x = tile();
  Expr *e = ltI_binary(B_MUL, ltI_binary(B_MUL, weak(0.5), x, 7), one_plus_erf(x, 0.70710678118654752, 1, 0, 0), 7);
  ltP_gelu(e);
  CHECK("gelu/matmul_form", gelu_of(e, x));   /* matmul.lua's 0.5 * x * (1 + tile.erf(x * SQRT1_2)) */

  x = tile();
  e = ltI_binary(B_MUL, x, ltI_binary(B_MUL, one_plus_erf(x, 0.70710678f, 1, 1, 1), weak(0.5), 7), 7);
  ltP_gelu(e);
  CHECK("gelu/any_order_f32_constant", gelu_of(e, x));

  Sym *s = tile_sym(K, SYM_LET, DT_F32, 8, 256);   /* the same symbol in two references: ltI_same */
  e = ltI_binary(B_MUL, ltI_binary(B_MUL, weak(0.5), ltI_ref(s, 7), 7),
                 one_plus_erf(ltI_ref(s, 7), 0.70710678118654752, 1, 0, 0), 7);
  ltP_gelu(e);
  CHECK("gelu/same_tree", e->kind == E_UNARY && e->op == U_GELU && e->a->kind == E_SYM && e->a->sym == s);
}

static void test_left(void) {
  Expr *x = tile(), *y = tile();
  Expr *e = ltI_binary(B_MUL, ltI_binary(B_MUL, weak(0.5), x, 7), one_plus_erf(y, 0.70710678118654752, 1, 0, 0), 7);
  ltP_gelu(e);
  CHECK("gelu/other_operand_kept", e->kind == E_BINARY && e->op == B_MUL);

  e = ltI_binary(B_MUL, ltI_binary(B_MUL, weak(0.5), x, 7), one_plus_erf(x, 0.70710678118654752, 0, 0, 0), 7);
  ltP_gelu(e);
  CHECK("gelu/slow_erf_kept", e->kind == E_BINARY && e->op == B_MUL);

  e = ltI_binary(B_MUL, ltI_binary(B_MUL, weak(0.25), x, 7), one_plus_erf(x, 0.70710678118654752, 1, 0, 0), 7);
  ltP_gelu(e);
  CHECK("gelu/other_half_kept", e->kind == E_BINARY && e->op == B_MUL);

  e = ltI_binary(B_MUL, ltI_binary(B_MUL, weak(0.5), x, 7), one_plus_erf(x, 0.7, 1, 0, 0), 7);
  ltP_gelu(e);
  CHECK("gelu/other_scale_kept", e->kind == E_BINARY && e->op == B_MUL);

  e = ltI_binary(B_MUL, ltI_binary(B_MUL, ltI_binary(B_MUL, weak(0.5), x, 7), weak(2), 7),
                 one_plus_erf(x, 0.70710678118654752, 1, 0, 0), 7);
  ltP_gelu(e);
  CHECK("gelu/four_factors_kept", e->kind == E_BINARY && e->op == B_MUL);
}

int main(void) {
  K = new_kernel(256);
  ltU_file = "unit.lua";
  test_taken();
  test_left();
  return 0;
}
