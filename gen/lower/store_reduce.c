/*
** store_reduce.c: an atomic store (k:atomic_add) of an mma accumulator
** into an f32 tensor by the copy engine's reduce-add.
**
** smem.c (red_tile) gives such a store on sm_90 a staging tile of f32 rows
** padded by 8 elements (Stmt.via, Sym.bulk_red).  The lanes write their
** pairs of the accumulator into it as float2s; the block meets; then one
** thread a row hands its row to the copy engine with one
** cp.reduce.async.bulk .add.f32 (the row's bytes added into global
** memory, each element's add atomic), in the thread's bulk group.  The
** next use of the tile first waits until those reads are done
** (cp.async.bulk.wait_group.read), and the issuing threads wait for their
** last group before the kernel ends (kernel.c).  Rows outside the tensor
** are not handed over (no column mask is needed: the fast path runs only
** where every column of the tile is inside).  Where the rows do not start
** 16-byte aligned (the pointer, the row stride, the first column), the
** element-wise atomics of copy.c run instead: this opens their "else".
**
** A value that is the transpose of the tensor's tile (k:atomic_add's
** transpose: dQ^T of the attention dK/dV kernel, [D, queries]) goes into a
** tile of the tensor's rows padded by 4 (Sym.bulk_red 2), one element a
** write; the tile is written whatever the alignment, and the "else" here
** adds its elements one by one, each thread the tile's elements in turn.
*/
#include "emit/emit.h"

/* The barrier of the block (E.barrier), preceded by the async-proxy
** fence where the barrier has none of its own: the staging tile's writes
** (generic proxy) before the copy engine's reads (async proxy). */
static const char *fenced_barrier(const E *e) {
  if (strstr(e->barrier, "fence") || strstr(e->barrier, "wgmma_barrier")) return e->barrier;
  return ltU_fmt("lt_fence_proxy_async(); %s", e->barrier);
}

/* The fast case of atomic store of val (layout l, an mma accumulator) to
** view v through staging tile o (smem.c, red_tile): the uniform test that
** every row of the tile starts 16-byte aligned and every column is inside,
** then the staged reduce-adds described above, one thread a row.  Where
** val is the transpose of the tensor's tile (o->bulk_red 2: the view's
** rows run along the tensor's last dimension) each lane writes its
** elements one at a time, column c of val into row c of o.  `base` (the
** tensor's pointer at the dims that do not vary) and, with has_ok, `ok`
** (those dims inside) are ltL_load_store's.  Opens the "else" that the
** element-wise atomics fill. */
int ltL_bulk_reduce(E *e, const View *v, const Expr *val, const Sym *o, const Layout *l, int has_ok) {
  const Sym *t = v->t;
  int tr = o->bulk_red == 2, rd = tr ? v->cdim : v->rdim, cd = tr ? v->rdim : v->cdim;   /* the tensor's rows, columns */
  int shape[2], rows = v->ext[rd], cols = v->ext[cd], threads = e->k->threads;
  ltI_view_shape(v, shape);
  const Expr *co = v->origin[cd];
  const char *c0 = ltE_itext(e, co), *r0 = ltE_itext(e, v->origin[rd]);
  const char *n = ltE_itext(e, t->dims[cd]), *rs = ltE_itext(e, t->strides[rd]);
  const char *fast = "(uintptr_t)base % 16 == 0";
  long long cv, nv, rv;
  int cols_in = ltI_const_int(co, &cv) && ltI_const_int(t->dims[cd], &nv) && cv >= 0 && cv + cols <= nv;
  if (!cols_in) fast = ltU_fmt("%s && %s + %d <= %s", fast, ltE_paren(c0), cols, n);
  if (!ltI_nonneg(co)) fast = ltU_fmt("%s && %s >= 0", fast, c0);
  if (!ltI_multiple_of(co, 4)) fast = ltU_fmt("%s && %s %% 4 == 0", fast, ltE_paren(c0));
  if (!(ltI_const_int(t->strides[rd], &rv) && rv % 4 == 0)) fast = ltU_fmt("%s && %s %% 4 == 0", fast, ltE_paren(rs));
  const char *issuers = rows < threads ? ltU_fmt("tid < %d", rows) : NULL;
  if (!tr) {
    ltE_line(e, "if (%s) {   /* rows 16-byte aligned, every column inside %s: added by the copy engine, a row a "
                "thread through %s */", fast, t->name, o->name);
    e->depth++;
  }
  ltE_line(e, "%slt_tma_store_wait_read<0>();   /* this thread's adds before have read %s */",
           issuers ? ltU_fmt("if (%s) ", issuers) : "", o->name);
  ltE_line(e, "%s   /* ... before any thread writes it */", e->barrier);
  Ctx c = {0};
  int nl = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
  Ctx ce = c;
  ce.vi = "vi";
  if (tr) {
    ltE_line(e, "#pragma unroll");
    ltE_line(e, "for (int vi = 0; vi < 2; ++vi) %s = %s;", ltE_sh_at(e, o, ltE_tile_col(&ce), ltE_tile_row(&ce)),
             ltE_etext(e, val, &ce));
  } else {
    ltE_line(e, "union { float2 v; float e[2]; } h;");
    ltE_line(e, "#pragma unroll");
    ltE_line(e, "for (int vi = 0; vi < 2; ++vi) h.e[vi] = %s;", ltE_etext(e, val, &ce));
    ltE_line(e, "*(float2 *)&%s = h.v;", ltE_sh_at(e, o, ltE_tile_row(&c), ltE_tile_col(&c)));
  }
  ltE_close_loops(e, nl);
  ltE_line(e, "%s   /* %s is whole, and fenced for the copy engine */", fenced_barrier(e), o->name);
  if (tr) {
    ltE_line(e, "if (%s) {   /* rows 16-byte aligned, every column inside %s: added by the copy engine, a row a "
                "thread */", fast, t->name);
    e->depth++;
  }
  /* thread r hands row r over (a loop where the rows outnumber the threads) */
  const char *r = rows <= threads ? "tid" : "r";
  if (rows <= threads) ltE_line(e, "%s{   /* thread r: row r */", issuers ? ltU_fmt("if (%s) ", issuers) : "");
  else ltE_line(e, "for (int r = tid; r < %d; r += %d) {", rows, threads);
  e->depth++;
  ltE_line(e, "const int gr = %s;", ltE_sum(strcmp(r0, "0") ? r0 : NULL, r));
  ltE_line(e, "if (%sgr < %s%s) lt_bulk_reduce_add_f32(base + (int64_t)gr * %s%s, &%s, %d);", has_ok ? "ok && " : "",
           ltE_itext(e, t->dims[rd]), ltI_nonneg(v->origin[rd]) ? "" : " && gr >= 0", ltE_paren(rs),
           strcmp(c0, "0") ? ltU_fmt(" + %s", ltE_paren(c0)) : "", ltE_sh_at(e, o, r, "0"), cols * 4);
  if (rows <= threads) ltE_line(e, "lt_tma_store_commit();");
  e->depth--;
  ltE_line(e, "}");
  if (rows > threads) ltE_line(e, "lt_tma_store_commit();");
  e->depth--;
  ltE_line(e, "} else {");
  e->depth++;
  if (!tr) return 0;
  /* transposed: the element-wise atomics read the staging tile too, each
  ** thread its elements of the tensor's rows in turn (no addresses of the
  ** accumulator's layout held in registers) */
  ltE_line(e, "for (int x = tid; x < %d; x += %d) {", rows * cols, threads);
  e->depth++;
  ltE_line(e, "const int r = x / %d, c = x %% %d;", cols, cols);
  ltE_line(e, "const int gr = %s;", ltE_sum(strcmp(r0, "0") ? r0 : NULL, "r"));
  ltE_line(e, "const int64_t gc = %s;", ltE_sum(strcmp(c0, "0") ? ltU_fmt("(int64_t)%s", ltE_paren(c0)) : NULL, "c"));
  ltE_line(e, "if (%sgr < %s%s%s) lt_atomic_add(&base[(int64_t)gr * %s + gc], %s);", has_ok ? "ok && " : "",
           ltE_itext(e, t->dims[rd]), ltI_nonneg(v->origin[rd]) ? "" : " && gr >= 0",
           cols_in ? "" : ltU_fmt(" && gc < %s%s", n, ltI_nonneg(co) ? "" : " && gc >= 0"), ltE_paren(rs),
           ltE_sh_at(e, o, "r", "c"));
  e->depth--;
  ltE_line(e, "}");
  e->depth--;
  ltE_line(e, "}");
  return 1;
}
