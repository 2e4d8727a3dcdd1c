/*
** gelu.c: GELU's erf form as one function, where fast.c makes its erf fast.
**
** GELU written the usual way, 0.5 * x * (1 + erf(x / sqrt 2)) (matmul's
** bias_gelu epilogue, a user GEMM's), costs with lt_erf (templates/
** cuda_fast.h) the scaling by 1 / sqrt 2 and back, erf's sign, the
** 1 + erf, the 0.5 * x and the last product around the polynomial and the
** exponential.  With a = |x| and q = erfc(a / sqrt 2) / 2 (lt_erfc_half's
** polynomial and ex2.approx, which lt_erf calls too), 1 + erf = 2 - 2 q for
** x >= 0 and 2 q below, so GELU(x) = max(x, 0) - a q: lt_gelu, one
** multiply-add after q.  The same q, so the same accuracy, with fewer
** roundings after it.  The epilogue of the H200 GEMM runs on the
** consumers' issue slots with the tensor cores idle: matmul's bf16 GELU
** file lost 608 of its 50552 SASS instructions, and ran 1.01-1.04x at
** five of six points, 0.98x at the sixth (docs/performance.md).  Where
** the product is such a GELU of an f32 value and its erf is fast
** (Expr.fast), the node becomes U_GELU of x, fast (printed lt_gelu); only
** here, so U_GELU is always fast and printed by the CUDA emitters alone.
*/
#include "lt.h"

#include <math.h>

#define SQRT1_2 0.70710678118654752440   /* 1 / sqrt 2 */

/* Is x the float constant v (to within f32 rounding: 1 / sqrt 2 is
** written 0.70710678 or to double precision)? */
static int is_const(const Expr *x, double v) {
  return x && x->kind == E_CONST && fabs(x->cval - v) <= 1e-7 * fabs(v);
}

/* The factors of product x, at most `room` (the operands of nested
** multiplies, left to right) into f; how many, or room + 1 if more. */
static int factors(Expr *x, Expr **f, int n, int room) {
  if (x->kind == E_BINARY && x->op == B_MUL && x->dt == DT_F32) {
    n = factors(x->a, f, n, room);
    return n > room ? n : factors(x->b, f, n, room);
  }
  if (n < room) f[n] = x;
  return n + 1;
}

/* If x is 1 + erf(X / sqrt 2) in either order, with the erf fast and its
** argument X * (1 / sqrt 2) or (1 / sqrt 2) * X, returns X; else NULL. */
static Expr *one_plus_erf(const Expr *x) {
  if (!x || x->kind != E_BINARY || x->op != B_ADD || x->dt != DT_F32) return NULL;
  const Expr *e = is_const(x->a, 1.0) ? x->b : is_const(x->b, 1.0) ? x->a : NULL;
  if (!e || e->kind != E_UNARY || e->op != U_ERF || !e->fast) return NULL;
  const Expr *m = e->a;
  if (m->kind != E_BINARY || m->op != B_MUL) return NULL;
  if (is_const(m->b, SQRT1_2)) return m->a;
  if (is_const(m->a, SQRT1_2)) return m->b;
  return NULL;
}

/* Makes x U_GELU of its operand (fast) where it is 0.5 * X * (1 + erf(X /
** sqrt 2)), its three factors in any order and grouping, X the same tree
** in both places (ltI_same), of x's type and rank (the top of this file).
** Called by fast.c's fast_expr after it marked x's operands fast. */
void ltP_gelu(Expr *x) {
  Expr *f[3];
  if (x->kind != E_BINARY || x->op != B_MUL || x->dt != DT_F32 || factors(x, f, 0, 3) != 3) return;
  for (int h = 0; h < 3; h++)   /* f[h] the 0.5, f[p] the 1 + erf, the other X */
    for (int p = 0; p < 3; p++) {
      if (p == h || !is_const(f[h], 0.5)) continue;
      Expr *X = f[3 - h - p], *in = one_plus_erf(f[p]);
      if (!in || !ltI_same(in, X) || X->dt != DT_F32 || X->rank != x->rank) continue;
      x->kind = E_UNARY;
      x->op = U_GELU;
      x->a = X;
      x->b = x->c = NULL;
      x->fast = 1;
      x->depth = X->depth + 1;
      return;
    }
}
