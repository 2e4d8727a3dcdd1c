/*
** layout.c: how register tiles are spread over the threads of a block.
**
** A kernel's register tiles form one family: a parent shape [R, C] (the
** largest rows and columns used) and its slices [R, 1], [1, C], [1, 1].
** The parent gets a blocked layout (see struct Layout in lt.h): each thread
** holds `vec` consecutive columns per chunk, so global accesses are as wide
** as the target allows (16 bytes), threads run along the columns first so a
** warp's accesses are contiguous, and the rest of the threads go down the
** rows.  Slices keep the parent's thread mapping, so broadcasting a row
** statistic against the tile needs no data movement.  Shared tiles of other
** shapes get a layout of their own for copies (ltP_layout_of).
*/
#include "lt.h"

static int is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

/* Blocked layout of a [rows, cols] tile over `threads` threads, with the
** widest vector `vec` that still gives every thread at least one element. */
static Layout *make_layout(int rows, int cols, int threads, int vec, int line, int main) {
  if (vec > cols) vec = cols;
  while (vec > 1 && rows * cols < threads * vec) vec /= 2;
  if (rows * cols < threads)
    ltU_error(line, "a [%d, %d] tile has fewer elements than the block's %d threads; "
                    "use a bigger tile or fewer threads (config threads)", rows, cols, threads);
  Layout *l = ltU_alloc(sizeof *l);
  l->rows = rows;
  l->cols = cols;
  l->vec = vec;
  l->threads = threads;
  l->tc = cols / vec < threads ? cols / vec : threads;
  l->tr = threads / l->tc;
  l->nr = rows / l->tr;
  l->nc = cols / (l->tc * vec);
  l->line = line;
  if (main) {   /* the kernel declares tx and ty */
    l->tx = l->tc == 1 ? NULL : l->tc == threads ? "tid" : "tx";
    l->ty = l->tr == 1 ? NULL : l->tr == threads ? "tid" : "ty";
  } else {
    l->tx = l->tc == 1 ? NULL : l->tc == threads ? "tid" : ltU_fmt("tid %% %d", l->tc);
    l->ty = l->tr == 1 ? NULL : l->tr == threads ? "tid" : ltU_fmt("tid / %d", l->tc);
  }
  return l;
}

static void note_shape(int *R, int *C, int *line, const int shape[2], int at) {
  if (shape[0] > *R) { *R = shape[0]; *line = at; }
  if (shape[1] > *C) { *C = shape[1]; *line = at; }
}

static int min_bytes;

static void scan_views(Block *b, int C) {
  for (Stmt *s = b->first; s; s = s->next) {
    if ((s->kind == S_LOAD || s->kind == S_STORE) && s->view->ext[s->view->cdim] == C) {
      int by = ltI_dtypes[s->view->t->dt].bytes;
      if (by < min_bytes) min_bytes = by;
    }
    scan_views(&s->body, C);
    scan_views(&s->orelse, C);
  }
}

/* Chooses the family layout and checks every register tile fits it. */
void ltP_layout(Kernel *k, const Target *t) {
  if (t->lang == LANG_C) k->threads = 1;   /* one thread per block on the CPU */
  int T = k->threads;
  if (t->lang != LANG_C) {
    if (!is_pow2(T) || T % t->warp != 0 || T > t->max_threads)
      ltU_error(k->line, "config threads = %d: a block needs a power of two of threads, a multiple of the "
                   "%s warp (%d) and at most %d", T, t->name, t->warp, t->max_threads);
  }
  k->vec_bytes = t->lang == LANG_C ? 0 : t->vec_bytes;
  int R = 0, C = 0, line = 0;
  if (k->layouts) {   /* a gemm accumulator's layout (mma.c) */
    R = k->layouts->rows;
    C = k->layouts->cols;
    line = k->layouts->line;
  }
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if ((s->kind == SYM_LET || s->kind == SYM_FRAG) && s->rank > 0) note_shape(&R, &C, &line, s->shape, s->line);
  }
  if (!R) return;   /* no register tiles */
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if ((s->kind != SYM_LET && s->kind != SYM_FRAG) || s->rank == 0) continue;
    for (int d = 0; d < 2; d++)
      if (!is_pow2(s->shape[d]))
        ltU_error(s->line, "tile dims are powers of two (got %d); the edges of a tensor are masked, so "
                           "round the tile up", s->shape[d]);
    if ((s->shape[0] != 1 && s->shape[0] != R) || (s->shape[1] != 1 && s->shape[1] != C))
      ltU_error(s->line, "a [%d, %d] register tile does not fit the kernel's [%d, %d] tiles (line %d): "
                         "register tiles of one kernel share one shape and its row/column slices",
                s->shape[0], s->shape[1], R, C, line);
  }
  min_bytes = 4;
  scan_views(&k->body, C);
  int vec = t->lang == LANG_C ? 1 : t->vec_bytes / min_bytes;
  if (!k->layouts) k->layouts = make_layout(R, C, T, vec, line, 1);
  for (int i = 0; i < k->nsyms; i++)
    if ((k->syms[i]->kind == SYM_LET || k->syms[i]->kind == SYM_FRAG) && k->syms[i]->rank > 0)
      k->syms[i]->layout = k->layouts;
}

/* The layout for a tile of the given shape: the family's when the shape is
** the parent or a slice of it, else one made for that shape (copies of
** shared tiles of dtype dt, as wide as the target allows), kept on the
** kernel's list. */
Layout *ltP_layout_of(Kernel *k, const int shape[2], Dtype dt) {
  Layout *f = k->layouts;
  if (f && (shape[0] == 1 || shape[0] == f->rows) && (shape[1] == 1 || shape[1] == f->cols)) return f;
  for (Layout *l = f ? f->next : NULL; l; l = l->next)
    if (l->rows == shape[0] && l->cols == shape[1]) return l;
  int T = f ? f->threads : k->threads;
  int vec = k->vec_bytes ? k->vec_bytes / ltI_dtypes[dt].bytes : 1;
  Layout *l = make_layout(shape[0], shape[1], T, vec, 0, !f);
  if (f) {
    l->next = f->next;
    f->next = l;
  } else {
    k->layouts = l;
  }
  return l;
}

/* Elements of a tile of this shape held by each thread. */
int ltP_elems(const Layout *l, const int shape[2]) {
  return (shape[0] == l->rows ? l->nr : 1) * (shape[1] == l->cols ? l->nc * l->vec : 1);
}
