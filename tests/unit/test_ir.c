/*
** test_ir.c: the typing rules of ir.c: binary/unary/select/cast typing,
** broadcasting, constant folding, integer simplification, ltI_nonneg.
*/
#include "check.h"

static Kernel *K;

static Expr *weak(double v) { return ltI_const(v, DT_F32, 1, 7); }
static Expr *ci(long long v) { return ltI_const((double)v, DT_I32, 0, 7); }
static Expr *tile(Dtype dt, int r, int c) { return ltI_ref(tile_sym(K, SYM_LET, dt, r, c), 7); }
static Expr *size(void) { return ltI_ref(int_sym(K, SYM_SIZE, 1), 7); }
static Expr *ival(void) { return ltI_ref(int_sym(K, SYM_LET, 0), 7); }   /* i32 of unknown sign */

static void test_dtypes(void) {
  CHECK_INT("dtype/f32", ltI_dtype_from_name("f32"), DT_F32);
  CHECK_INT("dtype/f16", ltI_dtype_from_name("f16"), DT_F16);
  CHECK_INT("dtype/bf16", ltI_dtype_from_name("bf16"), DT_BF16);
  CHECK_INT("dtype/i32", ltI_dtype_from_name("i32"), DT_I32);
  CHECK_INT("dtype/bool_not_user", ltI_dtype_from_name("bool"), -1);
  CHECK_INT("dtype/unknown", ltI_dtype_from_name("f64"), -1);
  CHECK_INT("dtype/case", ltI_dtype_from_name("F32"), -1);
  CHECK_INT("dtype/bytes_bf16", ltI_dtypes[DT_BF16].bytes, 2);
  CHECK_INT("dtype/bytes_f32", ltI_dtypes[DT_F32].bytes, 4);
  CHECK_INT("dtype/compute_bf16", ltI_compute_type(DT_BF16), DT_F32);
  CHECK_INT("dtype/compute_f16", ltI_compute_type(DT_F16), DT_F32);
  CHECK_INT("dtype/compute_i32", ltI_compute_type(DT_I32), DT_I32);
}

static void test_binary_typing(void) {
  Expr *x = tile(DT_F32, 8, 256);
  Expr *e = ltI_binary(B_MUL, x, weak(2), 7);
  CHECK_INT("binary/weak_takes_tile_dtype", e->dt, DT_F32);
  CHECK("binary/weak_settled", e->kind == E_BINARY && e->b->kind == E_CONST && !e->b->weak && e->b->dt == DT_F32);
  CHECK("binary/tile_shape_kept", e->rank == 2 && e->shape[0] == 8 && e->shape[1] == 256);

  Expr *b16 = tile(DT_BF16, 8, 256);
  e = ltI_binary(B_ADD, weak(1), b16, 7);
  CHECK_INT("binary/weak_left_bf16", e->dt, DT_BF16);

  e = ltI_binary(B_ADD, weak(1.5), weak(2), 7);
  CHECK("binary/weak_weak_folds_weak", e->kind == E_CONST && e->weak && e->cval == 3.5);

  e = ltI_binary(B_MUL, x, size(), 7);
  CHECK("binary/i32_scalar_meets_float_tile", e->dt == DT_F32 && e->b->kind == E_CAST && e->b->dt == DT_F32);
  e = ltI_binary(B_DIV, size(), x, 7);
  CHECK("binary/i32_scalar_left_meets_float", e->dt == DT_F32 && e->a->kind == E_CAST);

  e = ltI_binary(B_LT, x, weak(0), 7);
  CHECK("binary/compare_gives_bool", e->dt == DT_BOOL && e->rank == 2 && e->shape[0] == 8);
  e = ltI_binary(B_AND, e, ltI_binary(B_GT, x, weak(1), 7), 7);
  CHECK_INT("binary/both_of_bools", e->dt, DT_BOOL);

  EXPECT_ERROR("binary/dtype_mismatch", ltI_binary(B_ADD, x, b16, 7), "dtype mismatch in +: f32 and bf16");
  EXPECT_ERROR("binary/f16_bf16_mismatch", ltI_binary(B_SUB, tile(DT_F16, 8, 256), b16, 7),
               "dtype mismatch in -: f16 and bf16");
  EXPECT_ERROR("binary/i32_tile_with_float_tile", ltI_binary(B_ADD, tile(DT_I32, 8, 256), x, 7), "dtype mismatch");
  EXPECT_ERROR("binary/bool_arith", ltI_binary(B_ADD, ltI_binary(B_LT, x, weak(0), 7), ltI_binary(B_LT, x, weak(1), 7), 7),
               "+ needs numbers, not bools");
  EXPECT_ERROR("binary/both_needs_bools", ltI_binary(B_AND, x, x, 7), "both needs bool operands");
  EXPECT_ERROR("binary/idiv_float", ltI_binary(B_IDIV, x, weak(2), 7), "// needs integer operands");
  EXPECT_ERROR("binary/mod_float", ltI_binary(B_MOD, x, x, 7), "% needs integer operands");
  EXPECT_ERROR("binary/fraction_with_i32", ltI_binary(B_ADD, size(), weak(2.5), 7),
               "the number 2.5 cannot be an i32 operand");
  EXPECT_ERROR("binary/div_by_const_zero", ltI_binary(B_DIV, ci(4), ci(0), 7), "division by the constant 0");
  EXPECT_ERROR("binary/error_has_line", ltI_binary(B_ADD, x, b16, 42), ":42: error: ");
}

static void test_broadcast(void) {
  Expr *e = ltI_binary(B_SUB, tile(DT_F32, 8, 256), tile(DT_F32, 8, 1), 7);
  CHECK("broadcast/col_vector", e->rank == 2 && e->shape[0] == 8 && e->shape[1] == 256);
  e = ltI_binary(B_ADD, tile(DT_F32, 8, 1), tile(DT_F32, 1, 256), 7);
  CHECK("broadcast/outer", e->rank == 2 && e->shape[0] == 8 && e->shape[1] == 256);
  e = ltI_binary(B_ADD, tile(DT_F32, 0, 256), tile(DT_F32, 8, 256), 7);
  CHECK("broadcast/rank1_row_with_rank2", e->rank == 2 && e->shape[0] == 8 && e->shape[1] == 256);
  e = ltI_binary(B_ADD, tile(DT_F32, 0, 256), tile(DT_F32, 0, 256), 7);
  CHECK("broadcast/rank1_stays_rank1", e->rank == 1 && e->shape[0] == 1 && e->shape[1] == 256);
  e = ltI_binary(B_MUL, weak(3), tile(DT_F32, 4, 4), 7);
  CHECK("broadcast/scalar_any", e->rank == 2 && e->shape[0] == 4 && e->shape[1] == 4);
  e = ltI_binary(B_MUL, ltI_cast(size(), DT_F32, 7), tile(DT_F32, 4, 4), 7);
  CHECK("broadcast/uniform_scalar", e->rank == 2 && e->shape[0] == 4 && e->shape[1] == 4);
  EXPECT_ERROR("broadcast/mismatch", ltI_binary(B_ADD, tile(DT_F32, 8, 256), tile(DT_F32, 4, 256), 7),
               "shape mismatch in +: [8, 256] and [4, 256]; dims must be equal or 1 to broadcast");
  EXPECT_ERROR("broadcast/mismatch_rank1", ltI_binary(B_MAX, tile(DT_F32, 0, 256), tile(DT_F32, 0, 128), 7),
               "shape mismatch in max: [256] and [128]");
  Expr *c = ltI_binary(B_GT, tile(DT_F32, 8, 1), weak(0), 7);
  e = ltI_select(c, tile(DT_F32, 1, 256), weak(0), 7);
  CHECK("select/broadcast_cond", e->rank == 2 && e->shape[0] == 8 && e->shape[1] == 256 && e->dt == DT_F32);
  EXPECT_ERROR("select/non_bool", ltI_select(tile(DT_F32, 8, 256), weak(1), weak(0), 7), "where needs a bool condition");
  EXPECT_ERROR("select/mismatch", ltI_select(c, tile(DT_F32, 8, 256), tile(DT_BF16, 8, 256), 7), "dtype mismatch in where");
}

static void test_folding(void) {
  Expr *e = ltI_binary(B_ADD, ci(3), ci(4), 7);
  CHECK("fold/add_i32", e->kind == E_CONST && e->cval == 7 && e->dt == DT_I32 && !e->weak);
  e = ltI_binary(B_DIV, ci(7), ci(2), 7);
  CHECK("fold/div_i32_truncates", e->kind == E_CONST && e->cval == 3);
  e = ltI_binary(B_DIV, ci(-7), ci(2), 7);
  CHECK("fold/div_i32_negative_truncates", e->kind == E_CONST && e->cval == -3);
  e = ltI_binary(B_IDIV, ci(-7), ci(2), 7);
  CHECK("fold/idiv_truncates_as_c", e->kind == E_CONST && e->cval == -3);
  e = ltI_binary(B_MOD, ci(-7), ci(3), 7);
  CHECK("fold/mod_as_c", e->kind == E_CONST && e->cval == -1);
  e = ltI_binary(B_DIV, weak(7), weak(2), 7);
  CHECK("fold/div_float", e->kind == E_CONST && e->cval == 3.5);
  e = ltI_binary(B_MAX, ci(3), ci(9), 7);
  CHECK("fold/max", e->kind == E_CONST && e->cval == 9);
  e = ltI_binary(B_LT, ci(3), ci(9), 7);
  CHECK("fold/compare_bool", e->kind == E_CONST && e->cval == 1 && e->dt == DT_BOOL && !e->weak);
  e = ltI_unary(U_NEG, weak(2), 7);
  CHECK("fold/neg_weak", e->kind == E_CONST && e->cval == -2 && e->weak);
  long long v = 0;
  CHECK("const_int/int", ltI_const_int(ci(12), &v) && v == 12);
  CHECK("const_int/fraction", !ltI_const_int(weak(1.5), &v));
  CHECK("const_int/not_const", !ltI_const_int(size(), &v));
}

static void test_simplify(void) {
  Expr *x = size();
  CHECK("simplify/x_times_1", ltI_binary(B_MUL, x, ci(1), 7) == x);
  CHECK("simplify/1_times_x", ltI_binary(B_MUL, ci(1), x, 7) == x);
  CHECK("simplify/x_plus_0", ltI_binary(B_ADD, x, ci(0), 7) == x);
  CHECK("simplify/0_plus_x", ltI_binary(B_ADD, ci(0), x, 7) == x);
  CHECK("simplify/x_minus_0", ltI_binary(B_SUB, x, ci(0), 7) == x);
  CHECK("simplify/weak_1_settles", ltI_binary(B_MUL, x, weak(1), 7) == x);
  Expr *xa = ltI_binary(B_ADD, x, ci(3), 7);
  CHECK("simplify/x_plus_3_kept", xa->kind == E_BINARY && xa->op == B_ADD && xa->a == x);
  CHECK("simplify/(x+3)-3", ltI_binary(B_SUB, xa, ci(3), 7) == x);
  Expr *e = ltI_binary(B_ADD, xa, ci(4), 7);
  CHECK("simplify/(x+3)+4", e->kind == E_BINARY && e->op == B_ADD && e->a == x && e->b->kind == E_CONST && e->b->cval == 7);
  e = ltI_binary(B_SUB, xa, ci(5), 7);
  CHECK("simplify/(x+3)-5", e->kind == E_BINARY && e->a == x && e->b->kind == E_CONST && e->b->cval == -2);
  e = ltI_binary(B_SUB, ltI_binary(B_ADD, ltI_binary(B_ADD, x, ci(1), 7), ci(2), 7), ci(3), 7);
  CHECK("simplify/((x+1)+2)-3", e == x);
  e = ltI_binary(B_MUL, x, ci(2), 7);
  CHECK("simplify/x_times_2_kept", e->kind == E_BINARY && e->op == B_MUL);
  Expr *f = tile(DT_F32, 8, 256);
  e = ltI_binary(B_MUL, f, weak(1), 7);
  CHECK("simplify/float_not_touched", e->kind == E_BINARY);
  /* a scalar 1 times a tile keeps the tile's shape: no simplification may
  ** turn a tile expression into a scalar one */
  Expr *it = tile(DT_I32, 8, 256);
  e = ltI_binary(B_MUL, ci(1), it, 7);
  CHECK("simplify/one_times_tile", e->rank == 2 && e->shape[0] == 8 && e->shape[1] == 256);
  e = ltI_binary(B_ADD, ltI_binary(B_ADD, x, ci(3), 7), it, 7);
  CHECK("simplify/tile_shape_after_add", e->rank == 2 && e->shape[0] == 8 && e->shape[1] == 256);
  e = ltI_binary(B_ADD, x, ltI_binary(B_MUL, ci(0), it, 7), 7);
  CHECK("simplify/scalar_plus_zero_tile_is_tile", e->rank == 2 && e->shape[1] == 256);
}

static void test_unary_cast(void) {
  Expr *e = ltI_unary(U_EXP, weak(1), 7);
  CHECK("unary/exp_weak_is_f32", e->dt == DT_F32 && e->kind == E_UNARY && !e->weak);
  e = ltI_unary(U_EXP, tile(DT_BF16, 8, 256), 7);
  CHECK("unary/exp_keeps_dtype_and_shape", e->dt == DT_BF16 && e->rank == 2 && e->shape[1] == 256);
  EXPECT_ERROR("unary/exp_of_i32", ltI_unary(U_EXP, size(), 7), "exp needs a float operand, not i32");
  EXPECT_ERROR("unary/negate_of_float", ltI_unary(U_NOT, tile(DT_F32, 8, 256), 7), "negate needs a bool operand");
  EXPECT_ERROR("unary/abs_of_bool", ltI_unary(U_ABS, ltI_binary(B_LT, size(), ci(3), 7), 7), "abs needs a number");
  Expr *x = tile(DT_F32, 8, 256);
  CHECK("cast/same_dtype_is_noop", ltI_cast(x, DT_F32, 7) == x);
  e = ltI_cast(x, DT_BF16, 7);
  CHECK("cast/to_bf16", e->kind == E_CAST && e->dt == DT_BF16 && e->rank == 2 && e->shape[1] == 256);
  e = ltI_cast(weak(3), DT_I32, 7);
  CHECK("cast/weak_settles", e->kind == E_CONST && e->dt == DT_I32 && !e->weak && e->cval == 3);
  EXPECT_ERROR("cast/fraction_to_i32", ltI_cast(weak(0.5), DT_I32, 7), "cannot be an i32 operand");
  Expr *bf = tile(DT_BF16, 8, 256);
  CHECK("round/same_dtype_unknown_rounds", ltI_round(bf, DT_BF16, 7)->kind == E_CAST);
  Expr *c = ltI_cast(x, DT_BF16, 7);
  CHECK("round/cast_is_exact", ltI_round(c, DT_BF16, 7) == c);
  CHECK("round/f32_noop", ltI_round(x, DT_F32, 7) == x);
  EXPECT_ERROR("cast/f32_const_to_i32_range", ltI_cast(ltI_const(3e9, DT_F32, 0, 7), DT_I32, 7), "out of the i32 range");
  e = ltI_cast(ltI_const(-7.9, DT_F32, 0, 7), DT_I64, 7);
  CHECK("cast/f32_const_to_i64_folds", e->kind == E_CONST && e->dt == DT_I64 && e->cval == -7);
}

static void test_int_types(void) {
  EXPECT_ERROR("range/i32_const", ltI_const(2147483648.0, DT_I32, 0, 7), "out of the i32 range");
  EXPECT_ERROR("range/u32_negative", ltI_const(-1, DT_U32, 0, 7), "out of the u32 range");
  EXPECT_ERROR("range/i64_past_2^53", ltI_const(1e17, DT_I64, 0, 7), "out of the i64 range");
  CHECK("range/u32_max", ltI_const(4294967295.0, DT_U32, 0, 7)->cval == 4294967295.0);
  Expr *l = tile(DT_I64, 8, 256), *u = tile(DT_U32, 8, 256);
  CHECK("i64/size_meets_i64", ltI_binary(B_MUL, l, size(), 7)->dt == DT_I64);
  EXPECT_ERROR("i64/i32_tile_needs_cast", ltI_binary(B_ADD, l, tile(DT_I32, 8, 256), 7), "cast one side with :cast(\"i64\")");
  CHECK("bits/xor_u32", ltI_binary(B_BXOR, u, weak(2654435769.0), 7)->dt == DT_U32);
  EXPECT_ERROR("bits/shift_past_width", ltI_binary(B_SHL, l, weak(64), 7), "a constant count is from 0 to 63");
  CHECK("bits/shift_by_i32", ltI_binary(B_SHR, u, size(), 7)->dt == DT_U32);
  EXPECT_ERROR("bits/neg_u32", ltI_unary(U_NEG, u, 7), "needs a signed number");
  EXPECT_ERROR("bits/u32_add_neg_const", ltI_binary(B_ADD, u, weak(-1), 7), "out of the u32 range");
  EXPECT_ERROR("bits/fold_overflow_u32", ltI_binary(B_MUL, ltI_const(4e9, DT_U32, 0, 7), ltI_const(2, DT_U32, 0, 7), 7),
               "u32 arithmetic on constants overflows");
}

static void test_nonneg(void) {
  Expr *n = size(), *m = size(), *x = ival();
  CHECK("nonneg/const_pos", ltI_nonneg(ci(3)));
  CHECK("nonneg/const_zero", ltI_nonneg(ci(0)));
  CHECK("nonneg/const_neg", !ltI_nonneg(ci(-1)));
  CHECK("nonneg/size", ltI_nonneg(n));
  CHECK("nonneg/unknown", !ltI_nonneg(x));
  CHECK("nonneg/size_plus_size", ltI_nonneg(ltI_binary(B_ADD, n, m, 7)));
  CHECK("nonneg/size_times_const", ltI_nonneg(ltI_binary(B_MUL, n, ci(4), 7)));
  CHECK("nonneg/size_idiv", ltI_nonneg(ltI_binary(B_IDIV, n, ci(4), 7)));
  CHECK("nonneg/size_minus_1", !ltI_nonneg(ltI_binary(B_SUB, n, ci(1), 7)));
  CHECK("nonneg/size_plus_neg", !ltI_nonneg(ltI_binary(B_ADD, n, x, 7)));
  CHECK("nonneg/size_times_unknown", !ltI_nonneg(ltI_binary(B_MUL, n, x, 7)));
  CHECK("nonneg/size_plus_minus_1", !ltI_nonneg(ltI_binary(B_ADD, n, ci(-1), 7)));
  /* min(a, b) >= 0 only when both are; max(a, b) >= 0 when either is */
  CHECK("nonneg/min_unknown_size_is_not", !ltI_nonneg(ltI_binary(B_MIN, x, n, 7)));
  CHECK("nonneg/min_size_unknown_is_not", !ltI_nonneg(ltI_binary(B_MIN, n, x, 7)));
  CHECK("nonneg/min_sizes", ltI_nonneg(ltI_binary(B_MIN, n, m, 7)));
  CHECK("nonneg/max_unknown_neg", !ltI_nonneg(ltI_binary(B_MAX, x, ci(-1), 7)));
  CHECK("nonneg/compare_is_not_index", !ltI_nonneg(ltI_binary(B_LT, n, m, 7)));
  CHECK("nonneg/neg_of_size", !ltI_nonneg(ltI_unary(U_NEG, n, 7)));
}

static void test_misc(void) {
  Buf b = {0};
  ltU_put(&b, "ab");
  ltU_printf(&b, "%d-%s", 12, "x");
  ltU_indent(&b, 2);
  CHECK_STR("util/buf", b.p, "ab12-x    ");
  CHECK_STR("util/fmt", ltU_fmt("%s:%d", "f.lua", 3), "f.lua:3");
  ltU_file = "k.lua";
  EXPECT_ERROR("util/error_line", ltU_error(12, "bad %s", "thing"), "k.lua:12: error: bad thing");
  EXPECT_ERROR("util/error_no_line", ltU_error(0, "whole file"), "k.lua: error: whole file");
  CHECK_STR("util/error_exact", check_err, "k.lua: error: whole file");

  Kernel *k = new_kernel(32);
  Sym *a = tile_sym(k, SYM_LET, DT_F32, 4, 32);
  Sym *f = tile_sym(k, SYM_FRAG, DT_F32, 4, 32);
  Stmt *s1 = add(&k->body, S_LET, 1);
  s1->dst = a;
  s1->val = ltI_binary(B_MUL, ltI_ref(f, 1), ltI_ref(f, 1), 1);
  Stmt *lp = add(&k->body, S_FOR, 2);
  lp->lo = ci(0);
  lp->hi = ltI_ref(int_sym(k, SYM_SIZE, 1), 2);
  lp->step = ci(1);
  Stmt *s2 = add(&lp->body, S_ASSIGN, 3);
  s2->dst = f;
  s2->val = ltI_binary(B_ADD, ltI_ref(a, 3), ltI_ref(f, 3), 3);
  ltI_count_uses(k);
  CHECK_INT("count_uses/frag", f->uses, 3);
  CHECK_INT("count_uses/let", a->uses, 1);
  CHECK_INT("count_uses/loop_bound", k->syms[2]->uses, 1);
  CHECK("append/last", k->body.first == s1 && k->body.last == lp && lp->body.first == s2);
  CHECK_INT("sym/seq", a->seq, 0);
  CHECK_INT("sym/seq2", f->seq, 1);
}

int main(void) {
  K = new_kernel(256);
  ltU_file = "unit.lua";
  test_dtypes();
  test_binary_typing();
  test_broadcast();
  test_folding();
  test_simplify();
  test_unary_cast();
  test_int_types();
  test_nonneg();
  test_misc();
  return 0;
}
