/*
** pass/row.c: a gemm's A stored [K, M] with M = 1, read as the one row it is.
**
** A gemm whose A tile is copied from a tensor stored [K, M] (transpose_a:
** tn and tt layouts, M the unit-stride dim) reads a one-row A, M = 1,
** through a [BK, BM] tile whose rows are one element apart: no tensor map
** takes a stride under 16 bytes, so sm90a runs the cp.async kernel, and
** there a 16-byte chunk of a row starts on the 16-byte grid in one row of
** eight; the others go element by element, each load waited for before the
** copies are issued (0.34-0.45x cuBLAS, docs/performance.md).  With M = 1
** and K's stride 1, those bytes are a one-row A stored [M, K], K
** contiguous: the layout of nn and nt, whose copies take whole rows (TMA).
**
** So where the gemm runs on the swapped operands (pass/mma.c: a tile of
** fewer than 64 rows, the kernel that M = 1 reaches), the kernel gets a row
** twin (Kernel.row, built again by lua/kernel.c with Kernel.as_row set):
** there this pass, before every other, swaps the tensor's two dims (the
** copies' views, their origins and extents, and the A tile's shape with
** them) and clears transpose_a, so the twin is the [M, K] kernel.  Its
** rows' stride, never used for a row that exists since M = 1, is K, that
** of the contiguous [1, K] tensor the bytes are (a tensor map takes it
** where a row of K elements is a multiple of 16 bytes, else the twin's
** cp.async kernel runs).  The launcher runs the twin where
** Kernel.row_when holds, M == 1 and K's stride 1 (emit/launcher.c);
** everywhere else the kernel as written.  Of a variant's tuned buckets,
** those of the fewest rows keep their twins (ltP_row_group).  Nothing here
** depends on the kernel being matmul.lua: any gemm whose A is copied from
** one tensor stored [K, M], read nowhere else, takes the same path.
*/
#include "lt.h"

/* The statements of block b and of the blocks inside it that name shared
** tile or tensor x (S_G2S: its view's tensor too), into out (room for
** max); how many there are, counting those past max. */
static int naming(Block *b, const Sym *x, Stmt **out, int n, int max) {
  for (Stmt *s = b->first; s; s = s->next) {
    int names = s->shared == x || s->shared_b == x || (s->view && s->view->t == x);
    if (names && n < max) out[n] = s;
    n += names;
    n = naming(&s->body, x, out, n, max);
    n = naming(&s->orelse, x, out, n, max);
  }
  return n;
}

/* The kernel's one gemm (NULL where it has none or several). */
static Stmt *one_gemm(Block *b, Stmt **g, int *n) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->kind == S_GEMM && !(*n)++) *g = s;
    one_gemm(&s->body, g, n);
    one_gemm(&s->orelse, g, n);
  }
  return *n == 1 ? *g : NULL;
}

/* Is the copy s into tile a a whole-tile copy of a tensor stored [K, M]
** (rows along dim rdim: K; columns the last dim, unit-strided: M), the
** other dims of extent 1? */
static int kmajor_copy(const Stmt *s, const Sym *a) {
  const View *v = s->view;
  if (s->kind != S_G2S || s->shared != a || !v || v->scalar || v->mask || v->rlo || v->rhi || v->split) return 0;
  const Sym *t = v->t;
  long long one;
  if (v->cdim != t->trank - 1 || v->rdim < 0 || v->rdim == v->cdim || !ltI_const_int(t->strides[v->cdim], &one) ||
      one != 1)
    return 0;
  for (int d = 0; d < t->trank; d++)
    if (d != v->rdim && d != v->cdim && v->ext[d] != 1) return 0;
  return 1;
}

/* Kernel k's A tensor where its one gemm reads A from a shared tile that
** only copies of that tensor, stored [K, M], fill and only that gemm reads,
** the tensor read by nothing else; else NULL.  *g: the gemm, *rdim: the
** tensor's K dim. */
static Sym *kmajor_a(Kernel *k, Stmt **g, int *rdim) {
  int ng = 0;
  *g = NULL;
  Stmt *gemm = one_gemm(&k->body, g, &ng);
  if (!gemm || !gemm->trans_a || !gemm->shared || gemm->shared_b == gemm->shared) return NULL;
  Sym *a = gemm->shared, *t = NULL;
  Stmt *use[16];
  int n = naming(&k->body, a, use, 0, 16);
  if (n > 16) return NULL;
  for (int i = 0; i < n; i++) {
    if (use[i] == gemm) continue;
    if (!kmajor_copy(use[i], a) || (t && use[i]->view->t != t) ||
        (t && use[i]->view->rdim != *rdim))
      return NULL;
    t = use[i]->view->t;
    *rdim = use[i]->view->rdim;
  }
  if (!t || t->stored) return NULL;
  Stmt *tu[16];
  int nt = naming(&k->body, t, tu, 0, 16);
  for (int i = 0; i < nt && nt <= 16; i++)
    if (tu[i]->kind != S_G2S || tu[i]->shared != a) return NULL;
  return nt <= 16 ? t : NULL;
}

/* Reads A as rows in the row twin (Kernel.as_row): the tensor's K and M
** dims swapped in it and in its copies, A's tile [BM, BK], transpose_a
** off, the rows' stride K (the contiguous [1, K] tensor the bytes are). */
static void read_as_rows(Kernel *k, Stmt *g, Sym *t, int rdim) {
  int cdim = t->trank - 1;
  Expr *kdim = t->dims[rdim];
  t->dims[rdim] = t->dims[cdim];
  t->dims[cdim] = kdim;
  t->strides[rdim] = kdim;
  Stmt *use[16];
  int n = naming(&k->body, t, use, 0, 16);
  for (int i = 0; i < n; i++) {
    View *v = use[i]->view;
    Expr *o = v->origin[rdim];
    v->origin[rdim] = v->origin[cdim];
    v->origin[cdim] = o;
    int e = v->ext[rdim];
    v->ext[rdim] = v->ext[cdim];
    v->ext[cdim] = e;
  }
  Sym *a = g->shared;
  int s0 = a->shape[0];
  a->shape[0] = a->shape[1];
  a->shape[1] = s0;
  g->trans_a = 0;
}

/* Before the other passes: in a row twin (Kernel.as_row), A read as rows;
** in another kernel, where its gemm's A is copied from a tensor stored
** [K, M], the test under which its row twin could run instead, M == 1 and
** K's stride 1 (Kernel.row_when; ltP_row_keep keeps it or not). */
void ltP_row(Kernel *k) {
  Stmt *g;
  int rdim = 0;
  Sym *t = kmajor_a(k, &g, &rdim);
  k->row_when = NULL;
  if (!t) {
    if (k->as_row) ltU_error(k->line, "internal: the row twin of %s has no A stored [K, M]", k->name);
    return;
  }
  if (k->as_row) {
    read_as_rows(k, g, t, rdim);
    return;
  }
  long long st, m;
  if ((ltI_const_int(t->strides[rdim], &st) && st != 1) || ltI_const_int(t->dims[t->trank - 1], &m)) return;
  int line = g->line;
  Expr *m1 = ltI_binary(B_EQ, t->dims[t->trank - 1], ltI_const(1, DT_I32, 1, line), line);
  Expr *k1 = ltI_binary(B_EQ, t->strides[rdim], ltI_const(1, DT_I32, 1, line), line);
  k->row_when = ltI_same(t->dims[t->trank - 1], t->strides[rdim]) ? m1 : ltI_binary(B_AND, m1, k1, line);
  k->row_a = t;
}

/* After pass/mma.c: keeps Kernel.row_when only where the gemm runs on the
** swapped operands (the small-M tile that M = 1 runs on; a wider tile
** leaves most of its rows empty at M = 1 either way). */
void ltP_row_keep(Kernel *k) {
  const Layout *acc = ltP_mma_layout(k);
  if (!acc || !acc->swap) k->row_when = NULL;
}

/* Over the n tuned buckets ks[0..n-1] of one variant, once all are
** planned: keeps the row twins of the buckets whose tiles have the fewest
** rows only, those a call with M = 1 is nearest (the shape dispatch
** measures M's distance in log2 steps); another bucket's twin would never
** run. */
void ltP_row_group(Kernel **ks, int n) {
  int fewest = 0;
  for (int i = 0; i < n; i++)
    if (ks[i]->row && (!fewest || ks[i]->gemm->dst->shape[0] < fewest)) fewest = ks[i]->gemm->dst->shape[0];
  for (int i = 0; i < n; i++)
    if (ks[i]->row && ks[i]->gemm->dst->shape[0] > fewest) ks[i]->row = NULL, ks[i]->row_when = NULL;
}
