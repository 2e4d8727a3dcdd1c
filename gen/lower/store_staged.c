/*
** store_staged.c: a store of a gemm accumulator through shared memory.
**
** smem.c gives a CUDA kernel's last stores of an mma.sync / wgmma
** accumulator a shared tile laid over the dead ones (Stmt.via).  In the
** accumulator's layout each lane holds pairs of columns scattered over 8
** rows; through the tile, each thread writes whole 16-byte chunks of a row
** instead.  This is the fast path of such a store, taken when the whole
** tile is inside the tensor; the element-wise store of copy.c is its else.
** In a warp-specialized kernel the tile goes out by TMA stores instead
** (ltL_tma_store), through a staging tile a consumer warpgroup, with no
** else: the copy engine writes only what lies inside the tensor; where
** no tile fits beside its ring, the lanes' vectors go out from registers
** without a test each when the whole tile is inside (ltL_direct_store).
*/
#include "emit/emit.h"

/* The fast case of a store of an accumulator (layout l) that goes out
** through shared tile o (smem.c, out_tiles): when the whole tile is inside
** the tensor and its rows 16-byte aligned, the lanes write their pairs into
** o, then each thread writes whole 16-byte chunks of rows, so that a warp
** writes whole rows instead of 4 or 8 bytes in each of 8.  o lies over the
** shared tiles, hence the barrier before (every warp done with them) and
** after (o whole).  Where o holds a part of the columns (a persistent
** kernel's, beside its ring: smem.c), o is filled and emptied once for
** each part, the lanes writing their column chunks of that part (each warp
** holds whole rows).  Opens the "else" that the element-wise store fills. */
void ltL_staged_store(E *e, const View *v, const Expr *val, const Sym *o, const Layout *l, int has_ok) {
  const Sym *t = v->t;
  Dtype dt = t->dt;
  int shape[2], parts = l->cols / o->shape[1];
  ltI_view_shape(v, shape);
  const Layout *cl = ltP_copy_layout(e->k, shape, dt);
  ltE_line(e, "if (%s) {   /* the whole tile is inside %s: out through %s, 16 bytes of a row a thread */",
           ltL_whole_tile(e, v, cl->vec, has_ok), t->name, o->name);
  e->depth++;
  int pshape[2] = {shape[0], o->shape[1]};
  const Layout *pl = parts > 1 ? ltP_copy_layout(e->k, pshape, dt) : cl;
  if (parts > 1) {
    ltE_line(e, "#pragma unroll");
    ltE_line(e, "for (int part = 0; part < %d; ++part) {   /* columns part * %d.. of the tile, through %s */", parts,
             o->shape[1], o->name);
    e->depth++;
  }
  ltE_line(e, "%s   /* every warp is done with %s%s */", e->barrier, parts > 1 ? "" : "the shared tiles ",
           parts > 1 ? ltU_fmt("%s (the part before, the program before)", o->name) : ltU_fmt("%s lies over", o->name));
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
  if (parts > 1) {
    ltE_line(e, "if (ci / %d != part) continue;   /* a column chunk of another part */", l->nc / parts);
  }
  Ctx ce = c;
  ce.vi = "vi";
  const char *vt = l->vec * ltI_dtypes[dt].bytes == 4 ? "uint32_t" : "uint2";
  ltE_line(e, "union { %s v; %s e[%d]; } h;", vt, ltE_stype(e, dt), l->vec);
  ltE_line(e, "#pragma unroll");
  ltE_line(e, "for (int vi = 0; vi < %d; ++vi) h.e[vi] = %s;", l->vec, ltE_to_storage(e, dt, ltE_etext(e, val, &ce)));
  const char *tc = ltE_tile_col(&c);
  if (parts > 1) tc = ltU_fmt("%s - part * %d", ltE_paren(ltE_or0(tc)), o->shape[1]);
  ltE_line(e, "*(%s *)&%s = h.v;", vt, ltE_sh_at(e, o, ltE_tile_row(&c), tc));
  ltE_close_loops(e, n);
  ltE_line(e, "%s   /* %s is whole */", e->barrier, o->name);
  Ctx cc = {0};
  n = ltE_open_loops(e, &cc, pl, parts > 1 ? pshape : shape, 1, 1, 0);
  const char *r = ltE_or0(ltE_tile_row(&cc)), *col = ltE_or0(ltE_tile_col(&cc)), *c0 = ltE_itext(e, v->origin[v->cdim]);
  const char *gc = strcmp(c0, "0") ? ltU_fmt("%s + %s", c0, col) : col;
  if (parts > 1) gc = ltU_fmt("%s + part * %d", gc, o->shape[1]);
  ltE_line(e, "*(uint4 *)(base + %s) = *(const uint4 *)&%s;", ltE_sum(ltL_row_offset(e, v, pl, &cc), gc),
           ltE_sh_at(e, o, r, col));
  ltE_close_loops(e, n);
  if (parts > 1) {
    e->depth--;
    ltE_line(e, "}");
  }
  e->depth--;
  ltE_line(e, "} else {");
  e->depth++;
}

/* The fast case of a store of an accumulator (layout l, an mma layout of
** whole rows and columns of the view) with no tile in shared memory to go
** through (Stmt.direct, smem.c): when the whole tile is inside the tensor
** and its rows 16-byte aligned (the test of the staged store, uniform over
** the block), each lane writes its vectors straight from registers, with
** no test of its own.  A vector's address is its row's plus constants:
** the row's 64-bit offset once a row, then the thread's column and the
** unrolled chunk's, so that the compiler folds the chunk's offset into
** the store instead of the element-wise path's 64-bit sums and alignment
** test for each vector.  Opens the "else" that the element-wise store
** fills. */
void ltL_direct_store(E *e, const View *v, const Expr *val, const Layout *l, int has_ok) {
  const Sym *t = v->t;
  Dtype dt = t->dt;
  int shape[2];
  ltI_view_shape(v, shape);
  const char *vt = l->vec * ltI_dtypes[dt].bytes == 4 ? "uint32_t" : "uint2";
  ltE_line(e, "if (%s) {   /* the whole tile is inside %s: each lane's vectors from registers, no test an element */",
           ltL_whole_tile(e, v, 16 / ltI_dtypes[dt].bytes, has_ok), t->name);
  e->depth++;
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
  const char *r0 = ltE_itext(e, v->origin[v->rdim]), *c0 = ltE_itext(e, v->origin[v->cdim]);
  ltE_line(e, "const int gr = %s;", ltE_or0(ltE_sum(strcmp(r0, "0") ? r0 : NULL, ltE_tile_row(&c))));
  Buf at = {0};
  ltU_printf(&at, "base + (int64_t)gr * %s", ltE_paren(ltE_itext(e, t->strides[v->rdim])));
  const char *cols[3] = {strcmp(c0, "0") ? c0 : NULL, l->col0, ltE_term(c.ci, l->cstride)};
  for (int i = 0; i < 3; i++)
    if (cols[i]) ltU_printf(&at, " + %s", cols[i]);
  ltE_line(e, "%s *ptr = %s;", ltE_stype(e, dt), at.p);
  Ctx ce = c;
  ce.vi = "vi";
  ltE_line(e, "union { %s v; %s e[%d]; } h;", vt, ltE_stype(e, dt), l->vec);
  ltE_line(e, "#pragma unroll");
  ltE_line(e, "for (int vi = 0; vi < %d; ++vi) h.e[vi] = %s;", l->vec, ltE_to_storage(e, dt, ltE_etext(e, val, &ce)));
  ltE_line(e, "*(%s *)ptr = h.v;", vt);
  ltE_close_loops(e, n);
  e->depth--;
  ltE_line(e, "} else {");
  e->depth++;
}

/* The named barrier of warpgroup 0's own (wg's: one on): 2, after the
** consumers' 1; 4 where they take turns at the gemm that opens the
** warp-specialized loop (turns 1 and 2, the consumers' 3: sched_warpspec.c),
** since a barrier id met by 128 threads here and 256 there is undefined. */
static int wg_barrier(const Kernel *k) {
  for (const Stmt *s = k->body.first; s; s = s->next)
    if (s->kind == S_FOR && s->sched == SCHED_WARPSPEC && s->open_gemm) return 4;
  return 2;
}

/* The TMA store s of a view of X:rows(lo, hi) (smem.c, tma_out): the
** copy engine stops at the tensor's own ends, not at lo and hi, so a
** warpgroup hands its staging tile ow to it only when all its 64 rows
** (from the view's first row + `wrow`) lie in [lo, hi); else (a group's
** last tile, say) its 128 threads write the tile's 16-byte row chunks
** themselves, each chunk whose row is inside [lo, hi) and the tensor (one
** element at a time where the tensor's columns end inside a chunk, or the
** view's first column is off the 16-byte grid: the map makes the base and
** the strides multiples of 16 bytes, not the columns).  `wg`: the
** warpgroup's index into ow's tiles (NULL: one tile); `pcol`: the
** part's first column in the tile (NULL: 0).  Opens the branch of the
** TMA stores, which the caller closes. */
static void rows_clipped(E *e, const Stmt *s, const char *ow, const char *wg, const char *wrow, const char *pcol) {
  const View *v = s->view;
  const Sym *t = v->t, *o = s->via;
  int per16 = 16 / ltI_dtypes[t->dt].bytes, chunks = o->shape[1] / per16;
  const char *lo = ltE_itext(e, v->rlo), *hi = ltE_itext(e, v->rhi), *base = NULL, *ok = NULL;
  for (int d = 0; d < t->trank; d++)   /* the dims of one element: an offset, tested (copy.c) */
    if (d != v->rdim && d != v->cdim) ltL_fixed_dim(e, v, d, &ok, &base);
  ltE_line(e, "const int wr = %s;   /* the warpgroup's first row */", ltE_sum(ltE_itext(e, v->origin[v->rdim]), wrow));
  ltE_line(e, "if (!(wr >= %s && wr + 64 <= %s)) {   /* rows outside %s:rows(%s, %s): 16-byte chunks of the rows inside, "
              "from %s */", lo, hi, t->name, lo, hi, ow);
  e->depth++;
  ltE_line(e, "for (int i = tid %% 128; i < %d; i += 128) {", 64 * chunks);
  e->depth++;
  ltE_line(e, "const int r = wr + i / %d, gc = %s;", chunks,
           ltE_sum(ltE_sum(ltE_itext(e, v->origin[v->cdim]), pcol), ltU_fmt("i %% %d * %d", chunks, per16)));
  const char *stage = e->stage;
  e->stage = wg;
  const char *src = ltE_sh_at(e, o, ltU_fmt("i / %d", chunks), ltU_fmt("i %% %d * %d", chunks, per16));
  e->stage = stage;
  ltE_line(e, "if (!(r >= %s && r < %s && r >= 0 && r < %s%s%s)) continue;", lo, hi, ltE_itext(e, t->dims[v->rdim]),
           ok ? " && " : "", ok ? ok : "");
  const char *n = ltE_itext(e, t->dims[v->cdim]), *tn = ltE_stype(e, t->dt);
  ltE_line(e, "%s *ptr = %s%s + (int64_t)r * %s + gc;", tn, t->name, base ? ltU_fmt(" + %s", base) : "",
           ltE_paren(ltE_itext(e, t->strides[v->rdim])));
  ltE_line(e, "if (gc + %d <= %s && gc %% %d == 0) *(uint4 *)ptr = *(const uint4 *)&%s;", per16, n, per16, src);
  ltE_line(e, "else for (int j = 0; j < %d && gc + j < %s; ++j) ptr[j] = (&%s)[j];   /* the row's end, or off the "
              "16-byte grid */", per16, n, src);
  e->depth--;
  ltE_line(e, "}");
  e->depth--;
  ltE_line(e, "} else {   /* all inside: out by the copy engine */");
  e->depth++;
}

/* Store s of an accumulator by TMA (smem.c, tma_out: Stmt.via the staging
** tile o, one [64, cols] tile a consumer warpgroup, Stmt.map the tensor
** map).  Each warpgroup writes its 64 rows into o[wg], part by part (o's
** columns at a time), and its first thread issues the TMA stores of the
** part's 64-column panels (a box each, written only where inside the
** tensor: the edges need no mask) and commits them as one group.  Before
** a part is written, that thread waits until the group's stores before
** (the part before, the program before) have read o[wg], and the
** warpgroup meets at its named barrier (2 + wg, or 4 + wg: wg_barrier; 1
** or 3 is all the consumers');
** after it, each writer fences its writes (generic proxy) before the copy
** engine's reads (async proxy) and the warpgroup meets again.  Nothing
** waits for the stores to finish but the end of the consumers
** (sched_warpspec.c): the next program's main loop runs meanwhile.  With
** one consumer warpgroup (the small-M configs: BM = 64, 128 threads) o is
** one tile, indexed without [wg], and the warpgroup's barrier is 2.  In
** ping-pong (Kernel.pingpong) each warpgroup holds a program's whole tile:
** o[lt_wg], its barrier 3 + lt_wg.  Laid over the tile of the copies
** before the loop (Sym.over, Kernel.pre_out), o is one tile of all the
** warpgroups' rows, each writing and storing its own rows of it (a
** warpgroup's wgmmas read only those: smem.c, pre_tile); the issuing
** thread waits until the stores have read them, and then each warp gives
** the tile back to the producer for the next program's copies (_pre_empty,
** which sched_warpspec.c leaves to this). */
void ltL_tma_store(E *e, const Stmt *s) {
  const View *v = s->view;
  const Sym *t = v->t, *o = s->via;
  const TensorMap *m = &e->k->maps[s->map - 1];
  const Layout *l = ltP_expr_layout(s->val);
  Dtype dt = t->dt;
  int shape[2], pc = ltE_panel_cols(o), cols = o->shape[1], parts = l->cols / cols, rank = t->trank;
  int whole = o->over, one = o->stages == 1 && !whole, pp = e->k->pingpong;   /* one consumer warpgroup: o has no [wg] */
  int b0 = wg_barrier(e->k);
  const char *wg = pp ? "lt_wg" : "wg";
  const char *ow = one || whole ? o->name : ltU_fmt("%s[%s]", o->name, wg);
  const char *bar = one ? ltU_fmt("%d", b0) : pp ? "3 + lt_wg" : ltU_fmt("%d + wg", b0);
  ltI_view_shape(v, shape);
  if (pp)
    ltE_line(e, "{   /* out by TMA stores (%s: only the elements inside %s are written), this warpgroup's tile, %d "
                "columns at a time through %s */", m->name, t->name, cols, ow);
  else if (one)
    ltE_line(e, "{   /* out by TMA stores (%s: only the elements inside %s are written), the consumer warpgroup's 64 "
                "rows, %d columns at a time through %s */", m->name, t->name, cols, ow);
  else if (whole)
    ltE_line(e, "{   /* out by TMA stores (%s: only the elements inside %s are written), each consumer warpgroup its "
                "64 rows of %s */", m->name, t->name, ow);
  else
    ltE_line(e, "{   /* out by TMA stores (%s: only the elements inside %s are written), each consumer warpgroup its "
                "64 rows, %d columns at a time through %s */", m->name, t->name, cols, ow);
  e->depth++;
  if (!one && !pp) ltE_line(e, "const int wg = tid / 128;   /* this thread's warpgroup */");
  int skip = s->wg_skip;   /* (pass/rowskip.c: a staging tile a warpgroup, so neither one, pp nor whole) */
  if (skip) {
    ltE_line(e, "if (%s) {   /* some of the warpgroup's rows are inside %s: else it writes none */",
             ltL_rows_live(e, v, "wg * 64"), v->rhi ? ltU_fmt("%s and %s:rows(%s, %s)", t->name, t->name,
                                                             ltE_itext(e, v->rlo), ltE_itext(e, v->rhi)) : t->name);
    e->depth++;
  }
  if (parts > 1) {
    ltE_line(e, "#pragma unroll");
    ltE_line(e, "for (int part = 0; part < %d; ++part) {   /* columns part * %d.. of the tile */", parts, cols);
    e->depth++;
  }
  if (whole) {   /* (the stores before read it before the tile went back for its copies) */
    ltE_line(e, "lt_named_barrier(%s, 128);   /* the warpgroup's wgmmas are done with its rows of %s */", bar, ow);
  } else {
    ltE_line(e, "if (tid %% 128 == 0) lt_tma_store_wait_read<0>();   /* the group's stores before have read %s */", ow);
    ltE_line(e, "lt_named_barrier(%s, 128);   /* ... before any of its threads writes it */", bar);
  }
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
  if (parts > 1) ltE_line(e, "if (ci / %d != part) continue;   /* a column chunk of another part */", l->nc / parts);
  Ctx ce = c;
  ce.vi = "vi";
  const char *vt = l->vec * ltI_dtypes[dt].bytes == 4 ? "uint32_t" : "uint2";
  ltE_line(e, "union { %s v; %s e[%d]; } h;", vt, ltE_stype(e, dt), l->vec);
  ltE_line(e, "#pragma unroll");
  ltE_line(e, "for (int vi = 0; vi < %d; ++vi) h.e[vi] = %s;", l->vec, ltE_to_storage(e, dt, ltE_etext(e, s->val, &ce)));
  const char *tc = ltE_or0(ltE_tile_col(&c));
  if (parts > 1) tc = ltU_fmt("%s - part * %d", ltE_paren(tc), cols);
  const char *stage = e->stage, *row = ltE_or0(ltE_tile_row(&c));
  e->stage = one || whole ? NULL : wg;
  ltE_line(e, "*(%s *)&%s = h.v;", vt, ltE_sh_at(e, o, one || pp || whole ? row : ltU_fmt("%s - wg * 64", row), tc));
  e->stage = stage;
  ltE_close_loops(e, n);
  ltE_line(e, "lt_fence_proxy_async();   /* this thread's writes, before the copy engine reads them */");
  ltE_line(e, "lt_named_barrier(%s, 128);   /* %s is whole */", bar, ow);
  if (v->rlo)
    rows_clipped(e, s, ow, one ? NULL : wg, one || pp ? NULL : "wg * 64", parts > 1 ? ltU_fmt("part * %d", cols) : NULL);
  ltE_line(e, "if (tid %% 128 == 0) {");
  e->depth++;
  for (int q = 0; q < cols / pc; q++) {
    Buf at = {0};
    for (int j = 0; j < rank; j++) {   /* innermost first, as the map's */
      int d = rank - 1 - j;
      const char *x = ltE_itext(e, v->origin[d]), *add = NULL;
      if (d == v->cdim) add = ltE_sum(parts > 1 ? ltU_fmt("part * %d", cols) : NULL, q ? ltU_fmt("%d", q * pc) : NULL);
      if (d == v->rdim && !one && !pp) add = "wg * 64";
      if (add) x = strcmp(x, "0") ? ltU_fmt("%s + %s", x, add) : add;
      ltU_printf(&at, ", %s", x);
    }
    const char *src = whole       ? ltU_fmt("&%s[%d][wg * 64][0]", ow, q)
                      : pc < cols ? ltU_fmt("&%s[%d][0][0]", ow, q)
                                  : ltU_fmt("&%s[0][0]", ow);
    ltE_line(e, "lt_tma_store_%dd(&%s%s, %s);", rank, m->name, at.p, src);
  }
  ltE_line(e, "lt_tma_store_commit();");
  if (whole)
    ltE_line(e, "lt_tma_store_wait_read<0>();   /* the stores have read the warpgroup's rows of %s ... */", ow);
  e->depth--;
  ltE_line(e, "}");
  if (whole)
    ltE_line(e, "if (lane == 0) lt_mbar_arrive(%s_pre_empty);   /* ... so each warp gives the tile back to the "
                "producer (its first thread's warp last) */", e->k->ws->var->name);
  if (v->rlo) {
    e->depth--;
    ltE_line(e, "}");
  }
  if (parts > 1) {
    e->depth--;
    ltE_line(e, "}");
  }
  if (skip) {
    e->depth--;
    ltE_line(e, "}");
  }
  e->depth--;
  ltE_line(e, "}");
}
