/*
** fast.c: fast arithmetic in a warp-specialized loop's epilogue.
**
** The code after such a loop runs on the consumers' issue slots while the
** tensor cores wait, so its divisions, exponentials, erfs and logs take
** the short forms of templates/cuda_fast.h where the result is rounded to
** f16 or bf16 after (or, for the logs, always: attention's LSE): Expr.fast
** marks them, the emitter prints lt_fdiv, lt_exp2, lt_erf, lt_log, and
** gelu.c turns GELU's erf form into one lt_gelu.  plan.c's
** plan_warpspec calls ltP_fast; a division left IEEE there keeps the grid
** from going persistent (plan.c, divides).
*/
#include "lt.h"

/* Marks the float divisions, exponentials and erfs of expression x fast
** (Expr.fast), and makes a GELU of a fast erf one fast U_GELU (gelu.c);
** ctx unused (ltI_each_expr's). */
static void fast_expr(Expr *x, void *ctx) {
  if (!x) return;
  fast_expr(x->a, ctx);
  fast_expr(x->b, ctx);
  fast_expr(x->c, ctx);
  if (x->kind == E_BINARY && x->op == B_DIV && ltI_dtypes[x->dt].is_float) x->fast = 1;
  if (x->kind == E_UNARY && (x->op == U_EXP || x->op == U_ERF) && ltI_dtypes[x->dt].is_float) x->fast = 1;
  ltP_gelu(x);
}

/* Does a statement from `first` on (or one inside them) store a tensor
** of other than 2-byte elements? */
static int stores_wide(const Stmt *first) {
  for (const Stmt *s = first; s; s = s->next)
    if ((s->kind == S_STORE && ltI_dtypes[s->view->t->dt].bytes != 2) || stores_wide(s->body.first) ||
        stores_wide(s->orelse.first))
      return 1;
  return 0;
}

/* Do only stores to f16 / bf16 tensors, among the statements from `first`
** on (at their level), read symbol v (attention's 1 / l a row, which
** inline.c keeps out of O's store)? */
static int narrow_only(const Stmt *first, const Sym *v) {
  for (const Stmt *s = first; s; s = s->next)
    if ((s->kind != S_STORE || ltI_dtypes[s->view->t->dt].bytes != 2) &&
        (ltP_names(s, v) || ltP_uses(s->body.first, v) || ltP_uses(s->orelse.first, v)))
      return 0;
  return 1;
}

/* The float divisions and exponentials of the statements from `first`
** on (a warp-specialized loop's epilogue), fast where every store of the
** kernel rounds to f16 or bf16, whose rounding (2^-11, 2^-8 relative)
** hides their errors; else those in the value of each top-level store to
** an f16 / bf16 tensor.  A division: div.full.f32, 2 ulp over the whole
** range, a reciprocal and a product, no slow path (IEEE division's is a
** call, whose saved registers spilled the persistent consumers: ptxas
** 13.0, the matmul's SiLU epilogue, 52 bytes at 232 registers).  exp(x):
** 2^(x log2 e) on the special-function unit (ex2.approx), the product's
** rounding 2^-24 |x log2 e| of the exponent making at most |x| 2^-24
** relative (2^-17.5 at the |x| < 88 of a normal result), results below
** 2^-126 flushed to zero, without expf's range reduction (H200, the
** matmul's bf16 SiLU epilogue at 8192 x 8192 x 1024: 1.03-1.04x;
** docs/performance.md).  erf(x): 1 - 2 q by the sign, q = erfc / 2 by a
** fitted polynomial and one ex2.approx (templates/cuda_fast.h, lt_erf;
** within 1e-6 absolute), in place of erff's two polynomials and branch;
** GELU's erf form with it as lt_gelu (gelu.c). */
static void fast_divisions(Kernel *k, Stmt *first) {
  if (!stores_wide(k->body.first)) {
    Block tail = {first, NULL};
    ltI_each_expr(&tail, fast_expr, NULL);
  } else {
    for (Stmt *s = first; s; s = s->next)   /* those of the f16 / bf16 stores (attention's O beside its f32 LSE) */
      if ((s->kind == S_STORE && ltI_dtypes[s->view->t->dt].bytes == 2) ||
          (s->kind == S_LET && s->dst->rank && narrow_only(s->next, s->dst)))   /* and of values only they read */
        fast_expr(s->val, NULL);
  }
  ltI_count_uses(k);   /* a GELU made one (gelu.c) reads its operand once, not twice: the let before it fuses */
}

/* Marks the logs of expression x fast (Expr.fast); ctx unused. */
static void fast_log_expr(Expr *x, void *ctx) {
  if (!x) return;
  if (x->kind == E_UNARY && x->op == U_LOG) x->fast = 1;
  fast_log_expr(x->a, ctx);
  fast_log_expr(x->b, ctx);
  fast_log_expr(x->c, ctx);
}

/* The logs of the statements from `first` on (a warp-specialized loop's
** epilogue: attention's LSE, m scale + log l), fast: lg2.approx.ftz times
** ln 2 (templates/cuda_fast.h, lt_log; 2^-22 absolute in log2, as
** FlashAttention's __logf) instead of logf's reduction and polynomial, a
** row at a time in every program. */
static void fast_logs(Stmt *first) {
  Block tail = {first, NULL};
  ltI_each_expr(&tail, fast_log_expr, NULL);
}

/* Makes the float arithmetic of the statements from `first` on (a
** warp-specialized loop's epilogue) fast: divisions, exponentials and erfs
** where the stores allow (fast_divisions), and the logs (fast_logs). */
void ltP_fast(Kernel *k, Stmt *first) {
  fast_divisions(k, first);
  fast_logs(first);
}
