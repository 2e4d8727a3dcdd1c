/*
** copy.c: loads, stores and copies between a global view and registers or
** a shared tile, and between a shared tile and registers.
**
** ltL_load_store goes chunk by chunk of the access layout (a thread's vec
** consecutive elements): the dims that do not vary along the tile are
** tested and offset once, then each chunk moves as one 16-, 8- or 4-byte
** access when it is inside the tensor and aligned, element by element
** under a mask otherwise.  A copy into a stage ring goes by cp.async
** (zero-filling what lies outside the tensor), with a fast path for a tile
** wholly inside (interior_copy); a store planned to go out through a
** shared tile (Stmt.via) has one too (store_staged.c).
*/
#include "emit/emit.h"

/* idx * stride in 64 bits (a unit stride: idx). */
static const char *mul64(E *e, const char *idx, const Expr *stride) {
  long long s;
  if (ltI_const_int(stride, &s) && s == 1) return ltU_fmt("%s", idx);
  return ltU_fmt("(int64_t)%s * %s", strpbrk(idx, "+-*") ? ltU_fmt("(%s)", idx) : idx, ltE_itext(e, stride));
}

/* Text of i32 index expression o, to which up to `add` is added after:
** in int64 (its scalars cast) where int math on it could overflow for some
** value the launcher accepts (ltI_fits_int); *wide (may be NULL) says which. */
static const char *otext(E *e, const Expr *o, int add, int *wide) {
  int w = !ltI_fits_int(o, add);
  if (wide) *wide = w;
  if (!w) return ltE_itext(e, o);
  if (o->kind == E_CONST) return ltU_fmt("(int64_t)%s", ltE_itext(e, o));
  e->wide_idx = 1;
  const char *s = ltE_itext(e, o);
  e->wide_idx = 0;
  return s;
}

/* a && b, either NULL for true. */
static const char *all_of(const char *a, const char *b) {
  if (!a) return b;
  if (!b) return a;
  return ltU_fmt("%s && %s", a, b);
}

/* The test that `ext` elements from `origin` end inside a dimension of
** `dim`; NULL when both are constants and they do. */
static const char *ends_inside(E *e, const Expr *origin, int ext, const Expr *dim) {
  long long o, d;
  if (ltI_const_int(origin, &o) && ltI_const_int(dim, &d) && o + ext <= d) return NULL;
  return ltU_fmt("%s + %d <= %s", otext(e, origin, ext, NULL), ext, ltE_itext(e, dim));
}

/* Is the row offset of view v of X:rows(lo, hi) (its origin: lo + offset,
** expr.c) known not to be negative?  Then no row of it lies before lo. */
static int rows_from_lo(const View *v) {
  const Expr *o = v->origin[v->rdim];
  return o == v->rlo || (o->kind == E_BINARY && o->op == B_ADD && o->a == v->rlo && ltI_nonneg(o->b));
}

/* The test that row index `r` (text; the view's origin plus a row of it,
** not negative) of view v lies in the rows [lo, hi) of X:rows(lo, hi)
** (v->rlo, v->rhi); NULL for a view of the whole tensor. */
static const char *in_rows(E *e, const View *v, const char *r) {
  if (!v->rlo) return NULL;
  const char *hi = ltU_fmt("%s < %s", r, ltE_itext(e, v->rhi));
  return rows_from_lo(v) ? hi : ltU_fmt("%s >= %s && %s", r, ltE_itext(e, v->rlo), hi);
}

/* Dim d of view v, one offset along the whole tile (not a gathered one):
** its test, that the offset lies inside the tensor (and, for the rows of
** X:rows(lo, hi), inside [lo, hi)), added to *ok, and the offset times the
** dim's stride added to *base; either left as it was where there is
** nothing to add (NULL: true, and no offset).  Shared by the copies here
** and the row-clipped TMA store (store_staged.c). */
void ltL_fixed_dim(E *e, const View *v, int d, const char **ok, const char **base) {
  const Sym *t = v->t;
  const char *o = otext(e, v->origin[d], 0, NULL);
  int known_in =
      v->origin[d]->kind == E_CONST && t->dims[d]->kind == E_CONST && v->origin[d]->cval < t->dims[d]->cval;
  if (!known_in) *ok = all_of(*ok, ltU_fmt("%s < %s", o, ltE_itext(e, t->dims[d])));
  if (!ltI_nonneg(v->origin[d])) *ok = all_of(*ok, ltU_fmt("%s >= 0", o));
  if (d == v->rdim) *ok = all_of(*ok, in_rows(e, v, o));
  if (!(v->origin[d]->kind == E_CONST && v->origin[d]->cval == 0)) *base = ltE_sum(*base, mul64(e, o, t->strides[d]));
}

/* Does view v run past its tensor's last column at a constant origin, the
** number of columns a constant too (a head dim of 96 in 128-wide tiles)?
** Then its copies into a stage ring test the rows for the whole tile and
** give each chunk of a row its bytes inside (interior_copy). */
static int cols_overrun(const View *v) {
  long long o, n;
  return v->rdim >= 0 && ltI_const_int(v->origin[v->cdim], &o) && ltI_const_int(v->t->dims[v->cdim], &n) &&
         o + v->ext[v->cdim] > n && o < n;
}

/* The test, uniform over the block, that view v is wholly inside its
** tensor (but for the columns past the end of one that cols_overrun) and
** every row of it starts 16-byte aligned (rows of `per16` elements to 16
** bytes: the base, the row stride and the column origin, each a multiple
** of 16 bytes). */
const char *ltL_whole_tile(E *e, const View *v, int per16, int has_ok) {
  const Sym *t = v->t;
  const Expr *ro = v->origin[v->rdim], *co = v->origin[v->cdim];
  const char *c0 = ltE_itext(e, co);
  const char *full = has_ok ? "ok" : NULL;
  if (!ltI_nonneg(ro)) full = all_of(full, ltU_fmt("%s >= 0", otext(e, ro, 0, NULL)));
  if (!ltI_nonneg(co)) full = all_of(full, ltU_fmt("%s >= 0", c0));
  full = all_of(full, ends_inside(e, ro, v->ext[v->rdim], t->dims[v->rdim]));
  if (v->rlo) {   /* and inside X:rows(lo, hi) */
    const char *rw = otext(e, ro, v->ext[v->rdim], NULL);
    if (!rows_from_lo(v)) full = all_of(full, ltU_fmt("%s >= %s", rw, ltE_itext(e, v->rlo)));
    full = all_of(full, ltU_fmt("%s + %d <= %s", rw, v->ext[v->rdim], ltE_itext(e, v->rhi)));
  }
  if (!cols_overrun(v)) full = all_of(full, ends_inside(e, co, v->ext[v->cdim], t->dims[v->cdim]));
  if (!ltI_multiple_of(co, per16)) full = all_of(full, ltU_fmt("%s %% %d == 0", ltE_paren(c0), per16));   /* rows start there */
  full = all_of(full, "(uintptr_t)base % 16 == 0");
  long long rs;
  if (!(ltI_const_int(t->strides[v->rdim], &rs) && rs % per16 == 0))
    full = all_of(full, ltU_fmt("%s %% %d == 0", ltE_itext(e, t->strides[v->rdim]), per16));
  return full;
}

/* The offset of row r0 + ty + ri * tr of a tensor, for copy layout l, as
** (tile origin + thread's row) * stride + (unrolled rows) * stride: the
** first product is the same in every iteration of an enclosing loop, so
** the compiler keeps one 64-bit value, not one a row.  NULL for row 0. */
const char *ltL_row_offset(E *e, const View *v, const Layout *l, const Ctx *c) {
  const char *r0 = ltE_itext(e, v->origin[v->rdim]);
  const Expr *stride = v->t->strides[v->rdim];
  const char *rthread = ltE_sum(strcmp(r0, "0") ? r0 : NULL, l->ty);
  const char *rloop = ltE_term(c->ri, l->tr);
  return ltE_sum(rthread ? mul64(e, rthread, stride) : NULL, rloop ? mul64(e, rloop, stride) : NULL);
}

/* The fast case of a copy into a stage ring: when the whole tile is inside
** the tensor and every row starts 16-byte aligned (a uniform test), each
** chunk is one cp.async with no per-chunk test; where the tile's columns
** run past the tensor's (cols_overrun), its rows are tested, and each chunk
** reads its bytes inside, zero-filling the rest.  Opens the "else" that the
** masked copy (ltL_load_store) fills. */
static void interior_copy(E *e, const View *v, const Sym *sh, const Layout *l, int has_ok) {
  const Sym *t = v->t;
  const char *c0 = ltE_itext(e, v->origin[v->cdim]);
  const char *full = ltL_whole_tile(e, v, l->vec, has_ok);
  int over = cols_overrun(v);
  if (over)
    ltE_line(e, "if (%s) {   /* the tile's rows are inside %s and 16-byte aligned; its columns from %s on are not */",
             full, t->name, ltE_itext(e, t->dims[v->cdim]));
  else ltE_line(e, "if (%s) {   /* the whole tile is inside %s, rows 16-byte aligned */", full, t->name);
  e->depth++;
  Ctx c = {0};
  int shape[2];
  ltI_view_shape(v, shape);
  int n = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
  const char *r = ltE_or0(ltE_tile_row(&c)), *col = ltE_or0(ltE_tile_col(&c));
  const char *gc = strcmp(c0, "0") ? ltU_fmt("%s + %s", c0, col) : col;
  const char *off = ltL_row_offset(e, v, l, &c);
  if (over) {
    ltE_line(e, "const int n = lt_imin(lt_imax(%s - (%s), 0), %d);   /* the chunk's elements inside %s */",
             ltE_itext(e, t->dims[v->cdim]), gc, l->vec, t->name);
    ltE_line(e, "lt_cp_async16(&%s, n > 0 ? base + %s : %s, n * %d);", ltE_sh_at(e, sh, r, col), ltE_sum(off, gc),
             t->name, ltI_dtypes[t->dt].bytes);
  } else {
    ltE_line(e, "lt_cp_async16(&%s, base + %s, 16);", ltE_sh_at(e, sh, r, col), ltE_sum(off, gc));
  }
  ltE_close_loops(e, n);
  e->depth--;
  ltE_line(e, "} else {");
  e->depth++;
}

/* The layout a load or store of a [rows, cols] view goes by: the
** registers' (the loaded tile's, the stored value's) or, for a copy to
** shared memory, the widest copy layout. */
static const Layout *access_layout(E *e, const int shape[2], Dtype dt, const Sym *dst, const Expr *val,
                                   const Sym *sh) {
  if (sh) return ltP_copy_layout(e->k, shape, dt);
  if (dst) return dst->layout;
  const Layout *l = ltP_expr_layout(val);
  if (l && (shape[0] == 1 || shape[0] == l->rows) && (shape[1] == 1 || shape[1] == l->cols)) return l;
  return ltP_layout_of(e->k, shape, dt);
}

/* The cache hint of view v as the helpers' suffix ("stream", "keep"), or
** NULL: none given, or no instruction for it (the c target, the emulator;
** "keep" on AMD). */
static const char *hint_of(const E *e, const View *v) {
  if (!v->cache || !ltE_gpu(e) || e->emu || e->from_row) return NULL;
  if (v->cache == CACHE_KEEP) return e->t->lang == LANG_CUDA ? "keep" : NULL;
  return "stream";
}

/* The text of reading lvalue x of view v (with its hint). */
static const char *ld(const E *e, const View *v, const char *x) {
  const char *h = hint_of(e, v);
  return h ? ltU_fmt("lt_ld_%s(&%s)", h, x) : x;
}

/* The text of writing y to lvalue x of view v (with its hint). */
static const char *st(const E *e, const View *v, const char *x, const char *y) {
  const char *h = hint_of(e, v);
  return h ? ltU_fmt("lt_st_%s(&%s, %s)", h, x, y) : ltU_fmt("%s = %s", x, y);
}

/* Text of bool expression m at context c, parenthesized where && would
** bind it wrongly. */
static const char *cond_text(E *e, const Expr *m, const Ctx *c) {
  const char *s = ltE_etext(e, m, c);
  return strpbrk(s, "|?") ? ltU_fmt("(%s)", s) : s;
}

/* Are strings a and b the same (either NULL: both)? */
static int same_text(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* Checks that tile o (a gathered view's row offsets, what: "row offsets",
** or a mask) is held by the same threads as the elements of access layout
** l that it goes with: its rows, and its columns where it has more than one. */
static void check_rows(const View *v, const Expr *o, const Layout *l, const char *what) {
  const Layout *x = ltP_expr_layout(o);
  if (!x || x == l) return;
  int rows = !x->mma && !l->mma && x->rows == l->rows && x->tr == l->tr && x->nr == l->nr && same_text(x->ty, l->ty);
  /* two accumulators of one warp grid that split their rows alike (S and O
  ** of attention): each row is held by the same threads in both */
  if (x->mma && l->mma)
    rows = x->rows == l->rows && x->rstride == l->rstride && x->rgap == l->rgap && x->wtm == l->wtm &&
           same_text(x->row0, l->row0) && same_text(x->wrow, l->wrow);
  int cols = o->shape[1] == 1 || (x->cols == l->cols && x->tc == l->tc && x->nc == l->nc && x->vec == l->vec &&
                                  same_text(x->tx, l->tx));
  if (rows && cols) return;
  ltU_error(v->line, "the %s of %s's view are held by other threads than the elements of the tile loaded or "
                     "stored (a [%d, %d] accumulator or another tile family); make them of the tile's shape or a "
                     "slice of it", what, v->t->name, l->rows, l->cols);
}

/* The test that a chunk of a split load (View.split), V elements of B
** bytes at gc, reads the two aligned vectors it straddles inside its row of
** `lim` columns; `off`: the chunk's bytes past the aligned vector it
** starts in. */
static const char *shifted_in(int V, int B, const char *lim) {
  return ltU_fmt("gc >= off / %d && gc - off / %d + %d <= %s", B, B, 2 * V, lim);
}

/* Prints the start of one chunk of an access of view v in layout l at
** context c (in its loops): each gathered row's index, the row index gr
** and column index gc where they vary, and ptr, the chunk's first element.
** Returns the chunk's row test (NULL: none). */
static const char *chunk_ptr(E *e, const View *v, const Layout *l, Ctx *c, int store, const char *tn) {
  const Sym *t = v->t;
  const char *rowc = NULL, *ptr_off = NULL;
  for (int d = 0; d < t->trank; d++) {   /* gathered dims: each row's index, tested and offset */
    if (!v->origin[d]->rank) continue;
    check_rows(v, v->origin[d], l, "row offsets");
    const char *g = d == v->rdim ? "gr" : ltU_fmt("g%d", d), *dim = ltE_itext(e, t->dims[d]);
    ltE_line(e, "const %s %s = %s;", v->origin[d]->dt == DT_I64 ? "int64_t" : "int", g, ltE_etext(e, v->origin[d], c));
    if (e->emu) ltE_line(e, "lt_emu_index(%s, %s, \"%s:%d\");", g, dim, e->base, v->line);
    rowc = all_of(rowc, ltU_fmt("%s >= 0 && %s < %s", g, g, dim));
    ptr_off = ltE_sum(ptr_off, mul64(e, g, t->strides[d]));
  }
  if (v->rdim >= 0 && v->ext[v->rdim] > 1 && !v->origin[v->rdim]->rank) {
    int wide = 0;
    const char *gr = ltE_sum(otext(e, v->origin[v->rdim], v->ext[v->rdim] - 1, &wide), ltE_tile_row(c));
    if (v->origin[v->rdim]->kind == E_CONST && v->origin[v->rdim]->cval == 0) gr = ltE_or0(ltE_tile_row(c));
    ltE_line(e, "const %s gr = %s;", wide ? "int64_t" : "int", gr);
    const char *rc = ltU_fmt("gr < %s", ltE_itext(e, t->dims[v->rdim]));
    if (!ltI_nonneg(v->origin[v->rdim])) rc = ltU_fmt("gr >= 0 && %s", rc);
    rowc = all_of(all_of(rowc, rc), in_rows(e, v, "gr"));
    if (e->from_row)   /* (the kept rows: one after another, each of the later pass's chunks) */
      ptr_off = ltE_sum(ptr_off, ltU_fmt("%s * (%s)", ltE_or0(ltE_tile_row(c)), ltE_itext(e, e->k->row_res_len)));
    else ptr_off = ltE_sum(ptr_off, mul64(e, "gr", t->strides[v->rdim]));
  }
  int vcols = v->ext[v->cdim] > 1;
  const char *gc = NULL;
  if (vcols) {
    const Expr *co = v->origin[v->cdim];
    int wide = 0;
    gc = ltE_sum(co->kind == E_CONST && co->cval == 0 ? NULL : otext(e, co, v->ext[v->cdim] - 1, &wide),
                 ltE_tile_col(c));
    ltE_line(e, "const %s gc = %s;", wide ? "int64_t" : "int", ltE_or0(gc));
    ptr_off = ltE_sum(ptr_off, mul64(e, "gc", t->strides[v->cdim]));
  }
  ltE_line(e, "%s%s *ptr = base%s;", store ? "" : "const ", tn, ptr_off ? ltU_fmt(" + %s", ptr_off) : "");
  return rowc;
}

/* The first of the two loops of a load marked View.ahead (layout.c,
** mark_ahead) in layout l: each chunk that is inside the tensor and
** 16-byte aligned issues its vector into raw[chunk], nothing else, so
** that every load is in flight before the second loop (ltL_load_store)
** converts them; the other chunks go element by element there. */
static void ahead_loads(E *e, const View *v, const Layout *l, const int shape[2], int has_ok, const char *tn) {
  int chunks = (shape[0] == l->rows ? l->nr : 1) * (shape[1] == l->cols ? l->nc : 1);
  ltE_line(e, "uint4 raw[%d];   /* every chunk's vector, issued before any is used */", chunks);
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
  const char *rowc = chunk_ptr(e, v, l, &c, 0, tn);
  if (v->mask) rowc = all_of(rowc, cond_text(e, v->mask, &c));   /* (a mask of the rows: mark_ahead) */
  const char *in = ends_inside(e, v->origin[v->cdim], v->ext[v->cdim], v->t->dims[v->cdim]);
  if (in) in = ltU_fmt("gc + %d <= %s", l->vec, ltE_itext(e, v->t->dims[v->cdim]));
  const char *cond = all_of(all_of(all_of(has_ok ? "ok" : NULL, rowc), in), "(uintptr_t)ptr % 16 == 0");
  ltE_line(e, "if (%s) raw[%s] = %s;", cond, ltE_chunk_index(&c), ld(e, v, "((const uint4 *)ptr)[0]"));
  ltE_close_loops(e, n);
}

/* Where the vector of chunk `chunk` (text) of view v was issued by its
** group (ltL_issue): "lt_raw[...]"; NULL when v's load was not issued so. */
static const char *issued_at(const E *e, const View *v, const char *chunk) {
  for (int i = 0; i < e->nissued; i++) {
    if (e->issued[i].v != v) continue;
    int at = e->issued[i].at;
    const char *x = !strcmp(chunk, "0") ? ltU_fmt("%d", at) : at ? ltU_fmt("%s + %d", chunk, at) : chunk;
    return ltU_fmt("%s[%s]", e->issued[i].raw, x);
  }
  return NULL;
}

/* Can load view v go in a group here: not a split view in the split
** twin (those read two vectors a chunk), and a GPU target? */
static int issues_here(const E *e, const View *v) { return !(v->split && e->split) && ltE_gpu(e); }

/* Issues the vectors of the group of loads that starts at `first`
** (pass/issue.c: Stmt.issue_first, issue_next), one array for all, before
** any of them is converted: each chunk of each load that is inside its
** tensor and 16-byte aligned issues its vector, nothing else; its load
** (ltL_load_store) converts it where it stands, and reads the chunks that
** are not so element by element there.  A group of fewer than two loads
** here (the split twin's) is left to its loads. */
void ltL_issue(E *e, const Stmt *first) {
  e->nissued = 0;
  int n = 0, members = 0;
  for (const Stmt *s = first; s; s = s->issue_next)
    if (issues_here(e, s->view)) members++;
  if (members < 2) return;
  const char *raw = first->issue_group > 1 ? ltU_fmt("lt_raw%d", first->issue_group) : "lt_raw";
  Buf lines = {0}, *b = e->b;
  e->b = &lines;   /* (the loads' text first: the array's size is known after) */
  const char *what = NULL;
  for (const Stmt *s = first; s; s = s->issue_next) {
    const View *v = s->view;
    if (!issues_here(e, v)) continue;
    what = what ? ltU_fmt("%s, %s", what, v->t->name) : v->t->name;
    int shape[2];
    ltI_view_shape(v, shape);
    const Layout *l = s->dst->layout;
    e->issued[e->nissued].v = v;   /* its vectors: raw[n], raw[n + 1], ... */
    e->issued[e->nissued].raw = raw;
    e->issued[e->nissued++].at = n;
    n += (shape[0] == l->rows ? l->nr : 1) * (shape[1] == l->cols ? l->nc : 1);
    const char *tn = ltE_stype(e, v->t->dt), *ok = NULL, *base = NULL;
    ltE_line(e, "{");
    e->depth++;
    for (int d = 0; d < v->t->trank; d++)   /* dims that do not vary along the tile: one check and one offset */
      if (!((d == v->rdim || d == v->cdim) && v->ext[d] > 1)) ltL_fixed_dim(e, v, d, &ok, &base);
    if (ok) ltE_line(e, "const bool ok = %s;", ok);
    ltE_line(e, "const %s *base = %s%s;", tn, v->t->name, base ? ltU_fmt(" + %s", base) : "");
    Ctx c = {0};
    int loops = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
    const char *rowc = chunk_ptr(e, v, l, &c, 0, tn);
    if (v->mask) rowc = all_of(rowc, cond_text(e, v->mask, &c));   /* (a mask of the rows: issue.c) */
    const char *in = ends_inside(e, v->origin[v->cdim], v->ext[v->cdim], v->t->dims[v->cdim]);
    if (in) in = ltU_fmt("gc + %d <= %s", l->vec, ltE_itext(e, v->t->dims[v->cdim]));
    const char *cond = all_of(all_of(all_of(ok ? "ok" : NULL, rowc), in), "(uintptr_t)ptr % 16 == 0");
    ltE_line(e, "if (%s) %s = %s;", cond, issued_at(e, v, ltE_chunk_index(&c)), ld(e, v, "((const uint4 *)ptr)[0]"));
    ltE_close_loops(e, loops);
    e->depth--;
    ltE_line(e, "}");
  }
  e->b = b;
  ltE_line(e, "uint4 %s[%d];   /* the vectors of %s, every one issued before any is used */", raw, n, what);
  ltU_put(e->b, lines.p);
}

/* Loads or stores a view, chunk by chunk.  For a load, dst receives the
** elements (other outside the tensor); for a store, val is written.
** `sh`: the other side is that shared tile instead of registers.
** `then`: a tile assignment that reads the loaded value (Stmt.fuse),
** done chunk by chunk right after each chunk's load, so that the loaded
** tile is never live whole.  `via`: the shared tile a store goes out
** through when the tile is whole (store_staged.c).  In a kernel's split
** twin (E.split), a split access (View.split) moves a chunk of a row that
** does not start 16-byte aligned by whole vectors too: a load reads the
** two aligned vectors the chunk straddles (lt_bytes16), a store writes it
** as aligned words (lt_st16_split); elements one at a time only at the
** row's ends.  A load of a row kept in shared memory (E.resident,
** pass/resident.c): RES_STAGE stores each chunk there too, RES_READ reads
** it from there where the row fits (`resident`), else as any load. */
static void access(E *e, const View *v, const Sym *dst, const Expr *val, const Expr *other, const Sym *sh,
                   const Stmt *then, const Sym *via);

void ltL_load_store(E *e, const View *v, const Sym *dst, const Expr *val, const Expr *other, const Sym *sh,
                    const Stmt *then, const Sym *via) {
  if (e->resident == RES_READ && dst && !sh) {   /* (pass/resident.c) */
    ltE_line(e, "if (resident) {   /* the chunk from %s_row, where the %s left it */", v->t->name,
             e->row_copied ? "whole row's copy" : "first pass");
    e->depth++;
    e->from_row = 1;
    access(e, v, dst, val, other, sh, then, via);
    e->from_row = 0;
    e->depth--;
    ltE_line(e, "} else {");
  } else {
    ltE_line(e, "{");
  }
  e->depth++;
  access(e, v, dst, val, other, sh, then, via);
  e->depth--;
  ltE_line(e, "}");
}

/* The staging store of a RES_STAGE load's chunk (pass/resident.c) into
** the kept row: `what` (text) at column `col` (text) of the view's tile
** row in context c, as `vt` (a vector's type) or an element (vt NULL). */
static void stage(E *e, const View *v, const Ctx *c, const char *col, const char *vt, const char *what) {
  const char *row = ltE_tile_row(c);
  const char *at = row ? ltU_fmt("%s * (%s) + %s", row, ltE_itext(e, e->k->row_res_len), col) : col;
  if (vt) ltE_line(e, "if (resident) ((%s *)(%s_row + %s))[0] = %s;", vt, v->t->name, at, what);
  else ltE_line(e, "if (resident) %s_row[%s] = %s;", v->t->name, at, what);
}

/* The whole-row copy of config resident (Kernel.row_res_at,
** pass/resident.c), before the first pass where the rows fit: every
** 16-byte chunk of the rows that this thread's loads read, in the later
** load's layout, copied into <tensor>_row by cp.async, all in flight at
** once; a chunk at the row's end or off the 16-byte grid element by
** element.  Then this thread waits for its own copies: each thread reads
** back only the elements it copied, so no barrier. */
void ltL_resident_copy(E *e) {
  const Kernel *k = e->k;
  const View *v = k->row_res_view;
  const Sym *t = v->t;
  const char *tn = ltE_stype(e, t->dt), *j = k->row_res_j->name;
  const Layout *l = k->row_res_dst->layout;
  int shape[2];
  ltI_view_shape(v, shape);
  ltE_line(e, "if (resident) {   /* the whole %s of %s into %s_row first, every chunk's copy in flight at once "
              "(cp.async), each thread the elements its loads read back */",
           k->row_res_rows > 1 ? "rows" : "row", t->name, t->name);
  e->depth++;
  const char *ok = NULL, *base = NULL;
  for (int d = 0; d < t->trank; d++)
    if (!((d == v->rdim || d == v->cdim) && v->ext[d] > 1)) ltL_fixed_dim(e, v, d, &ok, &base);
  if (ok) ltE_line(e, "const bool ok = %s;", ok);
  ltE_line(e, "const %s *base = %s%s;", tn, t->name, base ? ltU_fmt(" + %s", base) : "");
  ltE_line(e, "for (int %s = 0; %s < %s; ++%s) {", j, j, ltE_itext(e, k->row_res_n), j);
  e->depth++;
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
  const char *rowc = chunk_ptr(e, v, l, &c, 0, tn);
  const char *chunk_ok = all_of(ok ? "ok" : NULL, rowc), *lim = ltE_itext(e, t->dims[v->cdim]);
  const char *row = ltE_tile_row(&c);
  const char *at = row ? ltU_fmt("%s * (%s) + gc", row, ltE_itext(e, k->row_res_len)) : "gc";
  ltE_line(e, "if (%s) {", all_of(all_of(chunk_ok, ltU_fmt("gc + %d <= %s", l->vec, lim)), "(uintptr_t)ptr % 16 == 0"));
  e->depth++;
  ltE_line(e, "lt_cp_async16(%s_row + %s, ptr, 16);", t->name, at);
  e->depth--;
  ltE_line(e, "} else {");
  e->depth++;
  if (ltE_gpu(e)) ltE_line(e, "#pragma unroll");
  ltE_line(e, "for (int vi = 0; vi < %d; ++vi) {", l->vec);
  ltE_line(e, "  if (%s) %s_row[%s + vi] = ptr[vi];", all_of(chunk_ok, ltU_fmt("gc + vi < %s", lim)), t->name, at);
  ltE_line(e, "}");
  e->depth--;
  ltE_line(e, "}");
  ltE_close_loops(e, n);
  e->depth--;
  ltE_line(e, "}");
  ltE_line(e, "lt_cp_async_commit();");
  ltE_line(e, "lt_cp_async_wait<0>();   /* this thread's copies have landed: the elements it reads back */");
  e->depth--;
  ltE_line(e, "}");
}

/* ltL_load_store's access, inside its braces. */
static void access(E *e, const View *v, const Sym *dst, const Expr *val, const Expr *other, const Sym *sh,
                   const Stmt *then, const Sym *via) {
  const Sym *t = v->t;
  int shape[2];
  ltI_view_shape(v, shape);
  const Layout *l = access_layout(e, shape, t->dt, dst, val, sh);
  int store = val != NULL;
  const char *tn = ltE_stype(e, t->dt);
  int staging = e->resident == RES_STAGE && !store && !sh && !e->from_row;
  /* dims that do not vary along the tile: one check and one offset */
  const char *ok = NULL, *base = NULL;
  for (int d = 0; d < t->trank; d++) {
    int varies = (d == v->rdim || d == v->cdim) && v->ext[d] > 1;
    if (varies || v->origin[d]->rank) continue;   /* (a gathered dim: tested a row, below) */
    ltL_fixed_dim(e, v, d, &ok, &base);
  }
  if (store && l->mma) {   /* replicated copies of a slice: one thread stores */
    if (shape[0] == 1 && l->rows > 1) ok = all_of(ok, ltU_fmt("%s == 0", l->row0));
    if (shape[1] == 1 && l->cols > 1) ok = all_of(ok, ltU_fmt("%s == 0", l->col0));
  } else if (store) {
    if (shape[0] == 1 && l->tr > 1 && l->rows > 1) ok = all_of(ok, ltU_fmt("%s == 0", l->ty));
    if (shape[1] == 1 && l->tc > 1 && l->cols > 1) ok = all_of(ok, ltU_fmt("%s == 0", l->tx));
  }
  if (ok) ltE_line(e, "const bool ok = %s;", ok);
  if (e->from_row) ltE_line(e, "const %s *base = %s_row;", tn, t->name);
  else ltE_line(e, "%s%s *base = %s%s;", store ? "" : "const ", tn, t->name, base ? ltU_fmt(" + %s", base) : "");
  int async = sh && e->t->async_copy && (sh->stages > 1 || e->lead_in);   /* cp.async, landing at a loop's wait */
  int interior = async && v->rdim >= 0 && l->vec * ltI_dtypes[t->dt].bytes == 16 &&
                 (cols_overrun(v) || !ltI_view_never_inside(v));
  if (interior) interior_copy(e, v, sh, l, ok != NULL);
  int direct = store && !via && e->direct;   /* (smem.c: Stmt.direct) */
  if (via && via->bulk_red) {
    if (ltL_bulk_reduce(e, v, val, via, l, ok != NULL)) return;   /* all of it, the atomics of its "else" too */
  } else if (via) ltL_staged_store(e, v, val, via, l, ok != NULL);
  else if (direct) ltL_direct_store(e, v, val, l, ok != NULL);
  /* (not a split access in the twin: its two-vector chunks ahead ran RMSNorm bf16 rows of 50257 at 0.78x) */
  const char *issued = store || sh || via ? NULL : issued_at(e, v, "0");   /* (by its group: ltL_issue) */
  int ahead = (v->ahead || issued) && !store && !sh && !via && !(v->split && e->split) && ltE_gpu(e) && !e->atomic &&
              !e->from_row;
  if (ahead && !issued) ahead_loads(e, v, l, shape, ok != NULL, tn);
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, l, shape, 1, 1, 0);
  const char *rowc = chunk_ptr(e, v, l, &c, store, tn);
  int vcols = v->ext[v->cdim] > 1;
  const Expr *mask = v->mask;
  int mask_cols = mask && mask->rank && mask->shape[1] > 1;   /* varies along the columns: tested an element */
  if (mask) check_rows(v, mask, l, "mask's elements");
  if (mask && !mask_cols) rowc = all_of(rowc, cond_text(e, mask, &c));
  const char *chunk_ok = all_of(ok ? "ok" : NULL, rowc);
  long long cs = 0;
  int unit_stride = ltI_const_int(t->strides[v->cdim], &cs) && cs == 1;
  const char *cstride = unit_stride ? NULL : ltE_itext(e, t->strides[v->cdim]);
  int V = vcols ? l->vec : 1;
  int bytes = V * ltI_dtypes[t->dt].bytes;
  const char *lim = vcols ? ltE_itext(e, t->dims[v->cdim]) : NULL;
  const char *lo = vcols && !ltI_nonneg(v->origin[v->cdim]) ? "gc >= 0 && " : "";
  /* the element at lane vi of the chunk */
  Ctx ce = c;
  ce.vi = V > 1 ? "vi" : NULL;
  const char *elem_ptr = V > 1 ? (cstride ? ltU_fmt("ptr[(int64_t)vi * %s]", cstride) : "ptr[vi]") : "ptr[0]";
  /* The columns' test.  None where the view's columns are inside the
  ** tensor whatever the thread (constants).  A chunk starts at a multiple of
  ** V in every layout (blocked: tx * vec + ...; mma: col0 steps by the
  ** lane's vector), so where the view starts at a constant multiple of V
  ** and the tensor's columns are one too (d96 in 128-wide tiles), a chunk is
  ** wholly inside or wholly outside: one test a chunk, the vector path's,
  ** where a test an element gave the AMD compilers V more lane masks to
  ** hold (2 SGPRs each), which they spilled. */
  const Expr *co = v->origin[v->cdim];
  int cols_inside = vcols && ltI_nonneg(co) && !ends_inside(e, co, v->ext[v->cdim], t->dims[v->cdim]);
  long long o0, nc;
  int whole_chunks = vcols && V > 1 && ltI_const_int(co, &o0) && o0 >= 0 && o0 % V == 0 &&
                     ltI_const_int(t->dims[v->cdim], &nc) && nc % V == 0;
  const char *chunk_in = vcols && !cols_inside ? ltU_fmt("gc + %d <= %s", V, lim) : NULL;
  const char *col_ok = !vcols || cols_inside ? NULL
                       : whole_chunks ? chunk_in
                                      : ltU_fmt("%s%s < %s", lo, V > 1 ? "gc + vi" : "gc", lim);
  const char *elem_ok = all_of(chunk_ok, col_ok);
  if (mask_cols) elem_ok = all_of(elem_ok, cond_text(e, mask, &ce));
  const char *shared_at = NULL, *regs = NULL;
  if (sh && e->to_regs) regs = ltU_fmt("%s_regs[%s]", sh->name, ltE_chunk_index(&c));
  if (sh) shared_at = regs ? ltU_fmt("%s.e[vi]", regs) : ltE_sh_at(e, sh, ltE_tile_row(&ce), ltE_tile_col(&ce));
  /* A chunk of a stage-ring copy that is zero outside the tensor: one
  ** cp.async whatever the edge, reading the elements inside and zero-filling
  ** the rest (src_bytes), from a 16-byte aligned address; where its rows
  ** may start off the 16-byte grid (View.pieces, plan.c), from an 8-byte
  ** aligned one too, as two cp.async of 8 bytes: one call either way,
  ** lt_cp_async_pieces, whose asm picks the pieces by the address (a
  ** branch for each here spilled the sm80 attention dK/dV kernels at D =
  ** 32 and 64); where the plan's smallest piece is 4 bytes, a branch of
  ** its own then takes a chunk 4-byte aligned as four of 4
  ** (lt_cp_async_pieces4: in the same asm its instructions cost every
  ** chunk).  A chunk that may start left of the tensor (gc < 0) goes element by element; kernels
  ** without a matrix instruction keep that test off the zero-fill path (their
  ** accumulators take every register: f32 GELU tn spilled with it). */
  int vec_io = V > 1 && unit_stride && ltE_gpu(e) && bytes >= 4 && !e->atomic && !mask_cols;   /* 16-byte pieces where they fit */
  int zfill = async && bytes == 16 && unit_stride && vcols && other &&
              other->kind == E_CONST && other->cval == 0 && (!*lo || ltP_mma_layout(e->k));
  int split = v->split && e->split && !sh && !via && vec_io && bytes == 16 && vcols && !e->from_row;   /* (the split twin) */
  if (zfill) {
    Ctx c0 = c;
    c0.vi = NULL;
    const char *in = ltU_fmt("lt_imin(lt_imax(%s - gc, 0), %d)", lim, V);
    const char *to = ltE_sh_at(e, sh, ltE_tile_row(&c0), ltE_tile_col(&c0));
    int eb = ltI_dtypes[t->dt].bytes, P = v->pieces;
    const char *count = ltU_fmt("const int n = %s;", chunk_ok ? ltU_fmt("%s ? %s : 0", chunk_ok, in) : in);
    if (P)   /* (rows that may start off the 16-byte grid: plan.c) */
      ltE_line(e, "if (%s(uintptr_t)ptr %% 8 == 0) {   /* reads the chunk's elements inside %s, zero-fills the rest: "
                  "one 16-byte cp.async, or two of 8 bytes where its row starts off the 16-byte grid */",
               lo, t->name);
    else
      ltE_line(e, "if (%s(uintptr_t)ptr %% 16 == 0) {   /* reads the chunk's elements inside %s, zero-fills the rest */",
               lo, t->name);
    e->depth++;
    ltE_line(e, "%s", count);
    if (P) {   /* (both ways in one predicated asm statement: templates/cuda_pieces.h) */
      ltE_line(e, "lt_cp_async_pieces(&%s, n > 0 ? ptr : %s, n * %d);", to, t->name, eb);
    } else {
      ltE_line(e, "lt_cp_async16(&%s, n > 0 ? ptr : %s, n * %d);", to, t->name, eb);
    }
    e->depth--;
    if (P == 4) {   /* (a branch of its own: templates/cuda_pieces4.h) */
      ltE_line(e, "} else if (%s(uintptr_t)ptr %% 4 == 0) {   /* reads the chunk's elements inside %s, zero-fills the rest: "
                  "four cp.async of 4 bytes where its row starts 4 bytes off the 8-byte grid */",
               lo, t->name);
      e->depth++;
      ltE_line(e, "%s", count);
      ltE_line(e, "lt_cp_async_pieces4(&%s, n > 0 ? ptr : %s, n * %d);", to, t->name, eb);
      e->depth--;
    }
    ltE_line(e, "} else {");
    e->depth++;
  } else if (vec_io) {
    const char *vt = bytes >= 16 ? "uint4" : bytes == 8 ? "uint2" : "uint32_t";
    int pieces = bytes >= 16 ? bytes / 16 : 1;
    int align = bytes >= 16 ? 16 : bytes;
    /* (a split store tests it inside; the kept row is aligned as the row's chunks) */
    const char *aligned = e->from_row ? NULL : ltU_fmt("(uintptr_t)ptr %% %d == 0", align);
    if (split && !store) {
      ltE_line(e, "const int off = (int)((uintptr_t)ptr %% 16);   /* bytes past a 16-byte boundary */");
      aligned = "off == 0";
    }
    ltE_line(e, "if (%s) {", all_of(all_of(chunk_ok, chunk_in), split && store ? NULL : aligned));
    e->depth++;
    if (async && bytes == 16) {  /* lands at the loop's wait */
      Ctx c0 = c;
      c0.vi = NULL;
      ltE_line(e, "lt_cp_async16(&%s, ptr, 16);", ltE_sh_at(e, sh, ltE_tile_row(&c0), ltE_tile_col(&c0)));
    } else if (regs) {  /* into the register buffer (sched_prefetch.c) */
      ltE_line(e, "%s.v = ((const uint4 *)ptr)[0];", regs);
    } else if (sh) {  /* global <-> shared: copy the bits */
      Ctx c0 = c;
      c0.vi = NULL;
      for (int p = 0; p < pieces; p++)
        ltE_line(e, "((%s *)&%s)[%d] = ((const %s *)ptr)[%d];", vt,
                 ltE_sh_at(e, sh, ltE_tile_row(&c0), ltE_tile_col(&c0)), p, vt, p);
    } else if (!store) {  /* a union unpacks the lanes (see the store below) */
      ltE_line(e, "union { %s v[%d]; %s e[%d]; } h;", vt, pieces, tn, V);
      if (ahead && issued) ltE_line(e, "h.v[0] = %s;", issued_at(e, v, ltE_chunk_index(&c)));
      else if (ahead) ltE_line(e, "h.v[0] = raw[%s];", ltE_chunk_index(&c));   /* (issued in the first loop) */
      for (int p = 0; p < pieces && !ahead; p++)
        ltE_line(e, "h.v[%d] = %s;", p, ld(e, v, ltU_fmt("((const %s *)ptr)[%d]", vt, p)));
      if (ltE_gpu(e)) ltE_line(e, "#pragma unroll");
      ltE_line(e, "for (int vi = 0; vi < %d; ++vi) %s[%s] = %s;", V, dst->name, ltE_reg_index(&ce, dst->shape),
               ltE_to_compute(e, t->dt, "h.e[vi]"));
      for (int p = 0; p < pieces && staging; p++)
        stage(e, v, &c, p ? ltU_fmt("gc + %d", p * 16 / ltI_dtypes[t->dt].bytes) : "gc", vt, ltU_fmt("h.v[%d]", p));
      if (split) {   /* a row off the 16-byte grid: the chunk out of the two aligned vectors it straddles */
        const char *at = ltU_fmt("(ptr - off / %d)", ltI_dtypes[t->dt].bytes);
        e->depth--;
        ltE_line(e, "} else if (%s) {", all_of(chunk_ok, shifted_in(V, ltI_dtypes[t->dt].bytes, lim)));
        e->depth++;
        ltE_line(e, "union { %s v[%d]; %s e[%d]; } h;", vt, pieces, tn, V);
        ltE_line(e, "h.v[0] = lt_bytes16(%s, %s, off);", ld(e, v, ltU_fmt("((const uint4 *)%s)[0]", at)),
                 ld(e, v, ltU_fmt("((const uint4 *)%s)[1]", at)));
        if (ltE_gpu(e)) ltE_line(e, "#pragma unroll");
        ltE_line(e, "for (int vi = 0; vi < %d; ++vi) %s[%s] = %s;", V, dst->name, ltE_reg_index(&ce, dst->shape),
                 ltE_to_compute(e, t->dt, "h.e[vi]"));
        if (staging) stage(e, v, &c, "gc", vt, "h.v[0]");
      }
    } else {  /* a union packs the lanes: memcpy here can leave a stack copy on AMD */
      ltE_line(e, "union { %s v[%d]; %s e[%d]; } h;", vt, pieces, tn, V);
      if (ltE_gpu(e)) ltE_line(e, "#pragma unroll");
      ltE_line(e, "for (int vi = 0; vi < %d; ++vi) h.e[vi] = %s;", V, ltE_to_storage(e, t->dt, ltE_etext(e, val, &ce)));
      if (split) {   /* a row off the 16-byte grid: aligned words (without a cache hint: layout.c) */
        ltE_line(e, "if (%s) %s;", aligned, st(e, v, "((uint4 *)ptr)[0]", "h.v[0]"));
        ltE_line(e, "else lt_st16_split(ptr, h.v[0]);");
      } else {
        for (int p = 0; p < pieces; p++)
          ltE_line(e, "%s;", st(e, v, ltU_fmt("((%s *)ptr)[%d]", vt, p), ltU_fmt("h.v[%d]", p)));
      }
    }
    e->depth--;
    ltE_line(e, "} else {");
    e->depth++;
  }
  if (V > 1) {
    if (ltE_gpu(e)) ltE_line(e, "#pragma unroll");
    ltE_line(e, "for (int vi = 0; vi < %d; ++vi) {", V);
    e->depth++;
  }
  if (sh) {
    const char *o = ltE_to_storage(e, t->dt, ltE_etext(e, other, &ce));
    ltE_line(e, "%s = %s%s;", shared_at, elem_ok ? ltU_fmt("%s ? %s : ", elem_ok, elem_ptr) : "",
             elem_ok ? o : elem_ptr);
  } else if (!store) {
    const char *x = ltE_to_compute(e, t->dt, ld(e, v, elem_ptr));
    const char *o = ltE_etext(e, other, &ce);
    if (elem_ok) ltE_line(e, "%s[%s] = %s ? %s : %s;", dst->name, ltE_reg_index(&ce, dst->shape), elem_ok, x, o);
    else ltE_line(e, "%s[%s] = %s;", dst->name, ltE_reg_index(&ce, dst->shape), x);
    if (staging)   /* (the elements past the row's end too: the later pass does not read them) */
      stage(e, v, &c, V > 1 ? "gc + vi" : "gc", NULL,
            ltE_to_storage(e, t->dt, ltU_fmt("%s[%s]", dst->name, ltE_reg_index(&ce, dst->shape))));
  } else {
    const char *x = ltE_to_storage(e, t->dt, ltE_etext(e, val, &ce));
    const char *put = e->atomic ? ltU_fmt("lt_atomic_add(&%s, %s)", elem_ptr, x) : st(e, v, elem_ptr, x);
    if (elem_ok) ltE_line(e, "if (%s) %s;", elem_ok, put);
    else ltE_line(e, "%s;", put);
  }
  if (V > 1) {
    e->depth--;
    ltE_line(e, "}");
  }
  if (zfill || vec_io) {
    e->depth--;
    ltE_line(e, "}");
  }
  if (then) {
    Ctx ct = c;
    int rows = 0;   /* a row loaded for every row of the assignment (plan.c, broadcast): the chunk's columns of each */
    if (then->dst->shape[0] > shape[0]) rows = ltE_open_loops(e, &ct, then->dst->layout, then->dst->shape, 1, 0, 0);
    ct.vi = V > 1 ? "vi" : NULL;
    if (V > 1) {
      if (ltE_gpu(e)) ltE_line(e, "#pragma unroll");
      ltE_line(e, "for (int vi = 0; vi < %d; ++vi) {", V);
      e->depth++;
    }
    ltE_assign_elem(e, then->dst, then->val, &ct);
    if (rows && then->kind == S_LET && then->fuse)   /* and the assignment that value is fused into */
      ltE_assign_elem(e, then->next->dst, then->next->val, &ct);
    if (V > 1) {
      e->depth--;
      ltE_line(e, "}");
    }
    ltE_close_loops(e, rows);
  }
  ltE_close_loops(e, n);
  if (interior || via || direct) {
    e->depth--;
    ltE_line(e, "}");
  }
}

/* The load of a one-element view (X:at) into scalar dst, the same in every
** thread: the element where each index is inside its dim, else other. */
void ltL_load_scalar(E *e, const View *v, const Sym *dst, const Expr *other) {
  const Sym *t = v->t;
  const char *ok = NULL, *off = NULL;
  for (int d = 0; d < t->trank; d++) {
    const char *o = otext(e, v->origin[d], 0, NULL);
    long long oc, n;
    int known_in = ltI_const_int(v->origin[d], &oc) && ltI_const_int(t->dims[d], &n) && oc >= 0 && oc < n;
    if (!ltI_nonneg(v->origin[d])) ok = all_of(ok, ltU_fmt("%s >= 0", o));
    if (!known_in) ok = all_of(ok, ltU_fmt("%s < %s", o, ltE_itext(e, t->dims[d])));
    if (d == v->rdim) ok = all_of(ok, in_rows(e, v, o));
    if (strcmp(o, "0")) off = ltE_sum(off, mul64(e, o, t->strides[d]));
  }
  if (v->mask) ok = all_of(ok, cond_text(e, v->mask, NULL));
  const char *x = ltE_to_compute(e, t->dt, ld(e, v, ltU_fmt("%s[%s]", t->name, ltE_or0(off))));
  if (ok) x = ltU_fmt("%s ? %s : %s", ok, x, ltE_itext(e, other));
  ltE_line(e, "const %s %s = %s;", ltE_ctype(dst->dt), dst->name, x);
}

/* A shared tile into registers (S_SLOAD), or a value into a shared tile
** (S_SSTORE), element by element; except that an mma accumulator's pairs
** rounded to f16 / bf16 (a gemm's register operand on its way in, dS^T of
** the dK/dV kernel) go in one 32-bit word a pair (the swizzles move 8- or
** 16-byte chunks, so a pair stays side by side). */
void ltL_shared_rw(E *e, Stmt *s) {
  Sym *sh = s->shared;
  if (s->kind == S_SLOAD) {
    Ctx c = {0};
    int n = ltE_open_loops(e, &c, s->dst->layout, sh->shape, 1, 1, 1);
    ltE_line(e, "%s[%s] = %s;", s->dst->name, ltE_reg_index(&c, s->dst->shape),
             ltE_to_compute(e, sh->dt, ltE_sh_at(e, sh, ltE_tile_row(&c), ltE_tile_col(&c))));
    ltE_close_loops(e, n);
    return;
  }
  const Layout *l = access_layout(e, sh->shape, sh->dt, NULL, s->val, NULL);
  const Expr *v = s->val;
  if (e->t->lang == LANG_CUDA && l->mma && l->vec == 2 && (e->k->mma == MMA_SYNC || e->k->mma == MMA_WGMMA) &&
      v->kind == E_CAST && (v->dt == DT_BF16 || v->dt == DT_F16) && v->dt == sh->dt && v->a->dt == DT_F32) {
    Ctx c = {0};
    int n = ltE_open_loops(e, &c, l, sh->shape, 1, 1, 0);
    Ctx c0 = c, c1 = c;
    c0.vi = "0";
    c1.vi = "1";
    ltE_line(e, "*(uint32_t *)&%s = lt_pack_%sx2(%s, %s);", ltE_sh_at(e, sh, ltE_tile_row(&c), ltE_tile_col(&c)),
             ltI_dtypes[v->dt].name, ltE_etext(e, v->a, &c0), ltE_etext(e, v->a, &c1));
    ltE_close_loops(e, n);
    return;
  }
  Ctx c = {0};
  int n = ltE_open_loops(e, &c, l, sh->shape, 1, 1, 1);
  ltE_line(e, "%s = %s;", ltE_sh_at(e, sh, ltE_tile_row(&c), ltE_tile_col(&c)),
           ltE_to_storage(e, sh->dt, ltE_etext(e, s->val, &c)));
  ltE_close_loops(e, n);
}
