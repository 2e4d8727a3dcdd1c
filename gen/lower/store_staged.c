/*
** store_staged.c: a store of a gemm accumulator through shared memory.
**
** smem.c gives a CUDA kernel's last stores of an mma.sync / wgmma
** accumulator a shared tile laid over the dead ones (Stmt.via).  In the
** accumulator's layout each lane holds pairs of columns scattered over 8
** rows; through the tile, each thread writes whole 16-byte chunks of a row
** instead.  This is the fast path of such a store, taken when the whole
** tile is inside the tensor; the element-wise store of copy.c is its else.
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
