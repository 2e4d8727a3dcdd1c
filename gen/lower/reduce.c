/*
** reduce.c: reductions of a register tile along one axis.
**
** Three steps: each thread folds the elements it holds; the lanes of a
** warp that hold parts of one row (or column) combine theirs by XOR
** shuffles; where more than one warp holds parts of it, each warp's result
** goes through a shared-memory scratch (smem.c) and every thread folds the
** warps' results after a barrier.  The lanes that share a row of a gemm
** accumulator come from the instruction's result layout (pass/mma.c).
*/
#include "emit/emit.h"

/* a combined with b by op (B_ADD, B_MAX, B_MIN) in type dt. */
static const char *red_combine(BinOp op, Dtype dt, const char *a, const char *b) {
  if (op == B_ADD) return ltU_fmt("%s + %s", a, b);
  if (dt == DT_I32) return ltU_fmt("%s(%s, %s)", op == B_MAX ? "lt_imax" : "lt_imin", a, b);
  return ltU_fmt("%s(%s, %s)", op == B_MAX ? "fmaxf" : "fminf", a, b);
}

/* The identity of op in type dt: what a fold starts from. */
static const char *red_identity(BinOp op, Dtype dt) {
  if (op == B_ADD) return dt == DT_I32 ? "0" : "0.0f";
  if (dt == DT_I32) return op == B_MAX ? "(-2147483647 - 1)" : "2147483647";
  return op == B_MAX ? "-INFINITY" : "INFINITY";
}

/* Reduction s: per-thread partials, warp shuffles, then shared memory. */
void ltL_reduce(E *e, Stmt *s) {
  Sym *d = s->dst;
  const Layout *l = d->layout;
  if (l->mma && s->scratch)
    ltU_error(s->line, "this reduction runs along %s of a gemm accumulator split over %d warps; use gemm "
                       "warps = {%d, 1}%s so that each warp holds whole %s", s->axis == 1 ? "the rows" : "the columns",
              ltP_reduce_groups(l, s->axis, e->t->warp), s->axis == 1 ? l->threads / e->t->warp : 1,
              s->axis == 1 ? "" : " (or {1, warps})", s->axis == 1 ? "rows" : "columns");
  Dtype ct = ltI_compute_type(d->dt);
  int ax = s->axis;
  ltE_declare_regs(e, d);
  /* 1. each thread folds the elements it holds */
  Ctx c = {0};
  int outer = ltE_open_loops(e, &c, l, s->val->shape, ax == 1, ax == 0, ax == 0);
  const char *di = ltE_reg_index(&c, d->shape);
  ltE_line(e, "%s[%s] = %s;", d->name, di, red_identity((BinOp)s->op, ct));
  int inner = ltE_open_loops(e, &c, l, s->val->shape, ax == 0, ax == 1, ax == 1);
  Ctx full = c;
  const char *acc = ltU_fmt("%s[%s]", d->name, di);
  const char *v = ltE_etext(e, s->val, &full);
  if (s->val->kind == E_SELECT) v = ltU_fmt("(%s)", v);   /* acc + (c ? a : b), not (acc + c) ? a : b */
  ltE_line(e, "%s = %s;", acc, red_combine((BinOp)s->op, ct, acc, v));
  ltE_close_loops(e, inner);
  ltE_close_loops(e, outer);
  /* 2. across the lanes of a warp */
  int W = e->t->warp, lo, hi;   /* reduced thread-id bits: [lo, hi) as strides */
  if (l->mma) {   /* the lanes that share a row (ax 1) or a column (ax 0) of the result layout (mma.c) */
    static const int lanes[][2][2] = {   /* [kind][axis] = {lo, hi} */
      [MMA_SYNC] = {{4, 32}, {1, 4}}, [MMA_TF32] = {{4, 32}, {1, 4}}, [MMA_WGMMA] = {{4, 32}, {1, 4}},
      [MMA_MFMA32] = {{1, 32}, {32, 64}}, [MMA_MFMA16] = {{1, 16}, {16, 64}}, [MMA_WMMA] = {{16, 32}, {1, 16}},
    };
    int la = l->swap ? !ax : ax;   /* the swapped operands' layout: a column's values in lanes l % 4, a row's l / 4 */
    lo = lanes[l->mma][la][0];
    hi = lanes[l->mma][la][1];
  } else if (ax == 1) {
    lo = 1;
    hi = l->tc;
  } else {
    lo = l->tc;
    hi = l->threads;
  }
  int nd = ltP_elems(l, d->shape);
  if (lo < W && lo < hi) {
    int top = hi < W ? hi : W;
    const char *ei = nd > 1 ? "ei" : "0";
    if (nd > 1) {
      ltE_line(e, "#pragma unroll");
      ltE_line(e, "for (int ei = 0; ei < %d; ++ei) {", nd);
      e->depth++;
    }
    const char *x = ltU_fmt("%s[%s]", d->name, ei);
    for (int off = top / 2; off >= lo; off /= 2)
      ltE_line(e, "%s = %s;", x, red_combine((BinOp)s->op, ct, x, ltU_fmt(e->t->shfl_xor, x, off)));
    if (nd > 1) {
      e->depth--;
      ltE_line(e, "}");
    }
  }
  /* 3. across warps, through shared memory */
  if (s->scratch) {
    Sym *sc = s->scratch;
    int G = ax == 1 ? sc->shape[1] : sc->shape[0];
    const char *guard =
        ax == 1 ? ltU_fmt("tid %% %d == 0", W) : (l->tc < W ? ltU_fmt("tid %% %d < %d", W, l->tc) : NULL);
    const char *grp = ax == 1 ? ltU_fmt("%s / %d", l->tx, W) : ltU_fmt("tid / %d", l->tc > W ? l->tc : W);
    Ctx k = {0};
    if (guard) {
      ltE_line(e, "if (%s) {", guard);
      e->depth++;
    }
    int m = ltE_open_loops(e, &k, l, d->shape, 1, 1, 1);
    const char *kept = ax == 1 ? ltE_or0(ltE_tile_row(&k)) : ltE_or0(ltE_tile_col(&k));
    if (ax == 1) ltE_line(e, "%s[%s][%s] = %s[%s];", sc->name, kept, grp, d->name, ltE_reg_index(&k, d->shape));
    else ltE_line(e, "%s[%s][%s] = %s[%s];", sc->name, grp, kept, d->name, ltE_reg_index(&k, d->shape));
    ltE_close_loops(e, m);
    if (guard) {
      e->depth--;
      ltE_line(e, "}");
    }
    ltE_line(e, "%s", e->barrier);
    m = ltE_open_loops(e, &k, l, d->shape, 1, 1, 1);
    kept = ax == 1 ? ltE_or0(ltE_tile_row(&k)) : ltE_or0(ltE_tile_col(&k));
    const char *at0 = ax == 1 ? ltU_fmt("%s[%s][0]", sc->name, kept) : ltU_fmt("%s[0][%s]", sc->name, kept);
    const char *atw = ax == 1 ? ltU_fmt("%s[%s][wi]", sc->name, kept) : ltU_fmt("%s[wi][%s]", sc->name, kept);
    const char *dx = ltU_fmt("%s[%s]", d->name, ltE_reg_index(&k, d->shape));
    ltE_line(e, "%s = %s;", dx, at0);
    ltE_line(e, "#pragma unroll");
    ltE_line(e, "for (int wi = 1; wi < %d; ++wi) %s = %s;", G, dx, red_combine((BinOp)s->op, ct, dx, atw));
    ltE_close_loops(e, m);
  }
}
