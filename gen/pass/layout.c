/*
** layout.c: how register tiles are spread over the threads of a block.
**
** A kernel's register tiles form one family: a parent shape [R, C] (the
** largest rows and columns used) and its slices [R, 1], [1, C], [1, 1].
** The parent gets a blocked layout (see struct Layout in lt.h): each thread
** holds `vec` consecutive columns per chunk, so global accesses are as wide
** as the target allows (16 bytes), threads run along the columns first so a
** warp's accesses are contiguous, and the rest of the threads go down the
** rows; the threads take the power-of-two parts of a tile's sides, each
** thread repeating its share over the rest (a side of 192 = 64 x 3: three
** times), so sides need only be multiples of 8 (thread_grid).  Slices keep
** the parent's thread mapping, so broadcasting a row statistic against the
** tile needs no data movement.  Shared tiles of other
** shapes get a layout of their own for copies (ltP_layout_of).  Loads and
** stores of register tiles by 16-byte chunks along rows are marked to go
** by whole vectors even where a row does not start 16-byte aligned, in a
** split twin of the kernel that the launcher runs for such rows only
** (View.split, Kernel.split_of, mark_split).  Loads of several such chunks
** a thread issue all their vectors before using any (View.ahead, mark_ahead).
*/
#include "lt.h"

static int is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

/* The largest power of two that divides x (x > 0). */
static int pow2_part(int x) { return x & -x; }

/* The vector width of a [.., cols] tile: at most `vec`, a divisor of cols
** (a power of two: vec is one). */
static int vec_of(int cols, int vec) {
  if (vec > cols) vec = cols;
  while (cols % vec) vec /= 2;
  return vec;
}

/* Threads along the columns and down the rows of a [rows, cols] tile of
** vectors `vec` over `threads` threads: powers of two that divide the
** vectors of a row and the rows, so a thread's share is whole chunks and
** whole rows (a side of 192 is 64 x 3: the threads take its power-of-two
** part, each thread the factor of 3 in repeats). */
static void thread_grid(int rows, int cols, int threads, int vec, int *tr, int *tc) {
  int c = pow2_part(cols / vec);
  *tc = c < threads ? c : threads;
  int r = pow2_part(rows);
  *tr = r < threads / *tc ? r : threads / *tc;
}

/* Blocked layout of a [rows, cols] tile over `threads` threads, with the
** widest vector `vec` that still gives every thread at least one element.
** `partial` (copies between global and shared memory): a tile smaller than
** the block, or one whose sides' power-of-two parts hold fewer threads than
** the block, keeps the widest vector and is spread over its first tr * tc
** threads only (`active`); the loops over it test tid. */
static Layout *make_layout(int rows, int cols, int threads, int vec, int line, int main, int partial) {
  vec = vec_of(cols, vec);
  int tr, tc;
  thread_grid(rows, cols, threads, vec, &tr, &tc);
  while (!partial && vec > 1 && tr * tc < threads) {
    vec /= 2;
    thread_grid(rows, cols, threads, vec, &tr, &tc);
  }
  if (!partial && rows * cols < threads)
    ltU_error(line, "a [%d, %d] tile has fewer elements than the block's %d threads; "
                    "use a bigger tile or fewer threads (config threads)", rows, cols, threads);
  if (!partial && tr * tc < threads)
    ltU_error(line, "a [%d, %d] register tile cannot be spread evenly over the block's %d threads: the threads "
                    "take the power-of-two parts of its sides (%d rows x %d columns); make a side a multiple of "
                    "a larger power of two, or use fewer threads (config threads)", rows, cols, threads,
              pow2_part(rows), pow2_part(cols));
  Layout *l = ltU_alloc(sizeof *l);
  l->rows = rows;
  l->cols = cols;
  l->vec = vec;
  l->threads = threads;
  l->active = tr * tc;
  l->tc = tc;
  l->tr = tr;
  l->nr = rows / l->tr;
  l->nc = cols / (l->tc * vec);
  l->line = line;
  if (main) {   /* the kernel declares tx and ty */
    l->tx = l->tc == 1 ? NULL : l->tc == threads ? "tid" : "tx";
    l->ty = l->tr == 1 ? NULL : l->tr == threads ? "tid" : "ty";
  } else {
    l->tx = l->tc == 1 ? NULL : l->tc == l->active ? "tid" : ltU_fmt("tid %% %d", l->tc);
    l->ty = l->tr == 1 ? NULL : l->tr == threads ? "tid" : ltU_fmt("tid / %d", l->tc);
  }
  return l;
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

/* Appends layout l to the kernel's list. */
static void append(Kernel *k, Layout *l) {
  Layout **tail = &k->layouts;
  while (*tail) tail = &(*tail)->next;
  *tail = l;
}

/* A blocked family for [R, C] register tiles: vectors as wide as the
** narrowest global tensor read or written at that width allows; the first
** family of a kernel without gemm accumulators names its thread ids tx, ty. */
static Layout *family(Kernel *k, const Target *t, int R, int C, int line) {
  min_bytes = 4;
  scan_views(&k->body, C);
  int vec = t->lang == LANG_C ? 1 : t->vec_bytes / min_bytes;
  Layout *l = make_layout(R, C, k->threads, vec, line, !k->layouts, 0);
  l->family = 1;
  append(k, l);
  return l;
}

/* Does a tile of this shape live in family l: its shape or a slice? */
static int fits(const Layout *l, const int shape[2]) {
  return (shape[0] == 1 || shape[0] == l->rows) && (shape[1] == 1 || shape[1] == l->cols);
}

/* The family of exactly this shape, or NULL. */
static Layout *exact_family(const Kernel *k, const int shape[2]) {
  for (Layout *l = k->layouts; l; l = l->next)
    if (l->family && l->rows == shape[0] && l->cols == shape[1]) return l;
  return NULL;
}

/* The family for a tile of this shape: the one of that exact shape, else
** the first it is a slice of, else NULL. */
static Layout *find_family(const Kernel *k, const int shape[2]) {
  Layout *f = exact_family(k, shape);
  if (f) return f;
  for (Layout *l = k->layouts; l; l = l->next)
    if (l->family && fits(l, shape)) return l;
  return NULL;
}

static int is_tile(const Sym *s) { return (s->kind == SYM_LET || s->kind == SYM_FRAG) && s->rank > 0; }

/* The layout of an expression's tile operands: a full-shape one first. */
const Layout *ltP_expr_layout(const Expr *e) {
  if (!e) return NULL;
  if (e->kind == E_SYM && is_tile(e->sym) && e->sym->layout) return e->sym->layout;
  const Layout *r = NULL;
  const Expr *ops[3] = {e->a, e->b, e->c};
  for (int i = 0; i < 3; i++) {
    const Layout *l = ltP_expr_layout(ops[i]);
    if (l && (!r || (ops[i]->shape[0] == l->rows && ops[i]->shape[1] == l->cols))) r = l;
  }
  return r;
}

/* FMA gemm accumulators: a blocked family per accumulator shape. */
static void acc_families(Kernel *k, const Target *t, Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->kind == S_GEMM && !s->dst->layout) {
      Layout *f = exact_family(k, s->dst->shape);
      s->dst->layout = f ? f : family(k, t, s->dst->shape[0], s->dst->shape[1], s->dst->line);
    }
    acc_families(k, t, &s->body);
    acc_families(k, t, &s->orelse);
  }
}

static Sym **unfit;   /* tiles that fit no family yet */
static int nunfit;

/* Gives the tiles defined in block b a layout: that of the value they are
** computed from, else the family their shape fits; those that fit none are
** left for the blocked family made from them (ltP_layout). */
static void assign_block(Kernel *k, Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    Sym *d = s->dst;
    if (d && is_tile(d) && !d->layout) {
      const Layout *l = (s->kind == S_LET || s->kind == S_REDUCE) ? ltP_expr_layout(s->val) : NULL;
      if (l && s->kind == S_LET && !fits(l, d->shape)) l = NULL;
      d->layout = l ? (Layout *)l : find_family(k, d->shape);
      if (!d->layout) {
        int seen = 0;
        for (int i = 0; i < nunfit; i++) seen |= unfit[i] == d;
        if (!seen) unfit[nunfit++] = d;
      }
    }
    assign_block(k, &s->body);
    assign_block(k, &s->orelse);
  }
}

/* Do layouts a and b place the rows (dim 0) or columns (dim 1) of a tile
** on the same threads and registers? */
static int same_dim(const Layout *a, const Layout *b, int dim) {
  if (a == b) return 1;
  if (a->mma != b->mma) return 0;
  if (dim == 0) {
    if (a->rows != b->rows) return 0;
    if (a->mma) return a->nr == b->nr && a->rstride == b->rstride && a->rgap == b->rgap;
    return a->tr == b->tr && a->nr == b->nr && a->tc == b->tc;
  }
  if (a->cols != b->cols) return 0;
  if (a->mma) return a->nc == b->nc && a->cstride == b->cstride && a->vec == b->vec;
  return a->tc == b->tc && a->nc == b->nc && a->vec == b->vec;
}

/* Checks that every tile read by x can be indexed in layout l (the
** layout of the statement's elements): it has l's layout, or a slice of
** one that maps its remaining dimension the same way. */
static void check_operands(const Expr *x, const Layout *l, int line) {
  if (!x || !l) return;
  if (x->kind == E_SYM && is_tile(x->sym) && x->sym->layout) {
    const Sym *s = x->sym;
    for (int d = 0; d < 2; d++)
      if (s->shape[d] > 1 && !same_dim(l, s->layout, d))
        ltU_error(line, "tile %s [%d, %d] (line %d) is spread over the threads unlike the [%d, %d] tiles it is "
                        "combined with here (%s); compute it from tiles of one layout, e.g. the same gemm "
                        "accumulator's rows", s->name ? s->name : "value", s->shape[0], s->shape[1], s->line,
                  l->rows, l->cols, l->mma ? ltP_mma_name(l->mma) : "blocked layout");
  }
  check_operands(x->a, l, line);
  check_operands(x->b, l, line);
  check_operands(x->c, l, line);
}

static void check_block(Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    const Layout *l = s->dst && is_tile(s->dst) ? s->dst->layout : ltP_expr_layout(s->val);
    check_operands(s->val, l, s->line);
    check_block(&s->body);
    check_block(&s->orelse);
  }
}

/* The layout a register load or store of view v goes by (as copy.c's
** access_layout): the loaded tile's, or the stored value's where the view
** is of its shape or a slice of it; else NULL. */
static const Layout *access_of(const Stmt *s, const int shape[2]) {
  if (s->kind == S_LOAD) return s->dst->layout;
  const Layout *l = ltP_expr_layout(s->val);
  return l && (shape[0] == 1 || shape[0] == l->rows) && (shape[1] == 1 || shape[1] == l->cols) ? l : NULL;
}

/* The 16-byte chunks of 2-byte elements a thread moves along the rows of
** view v (not a scalar, cdim >= 0) in layout l, which mark_split and
** mark_ahead both take: a blocked layout of vectors of 8 over the view's
** columns (at least 2), a unit column stride, columns from an origin >=
** 0, no gathered rows and no mask along the columns; 0 for any other
** access. */
static int row_chunks(const View *v, const Layout *l) {
  if (v->ext[v->cdim] < 2 || ltI_dtypes[v->t->dt].bytes != 2) return 0;
  int shape[2];
  ltI_view_shape(v, shape);
  if (!l || l->mma || !l->family || shape[1] != l->cols || l->vec != 8) return 0;
  long long cs;
  if (!ltI_const_int(v->t->strides[v->cdim], &cs) || cs != 1 || !ltI_nonneg(v->origin[v->cdim])) return 0;
  if (ltI_view_gathers(v) || (v->mask && v->mask->rank && v->mask->shape[1] > 1)) return 0;
  return (shape[0] == l->rows ? l->nr : 1) * l->nc;
}

/* Marks the loads and stores of register tiles that move 16-byte chunks
** of 2-byte elements along the rows of a tensor of two dims or more (whose
** rows start off the 16-byte grid where the row length is not a multiple
** of 8; a tensor of one dim is misaligned only where its base is), of unit
** stride, on a GPU target (View.split), and lists their tensors
** (Kernel.split_of, at most LT_MAXSPLIT): the launcher runs the kernel's
** split twin where a row of one of them starts off the grid, the kernel
** as it is elsewhere, so rows on the grid run the same code as without the
** marks.  Up to 8 chunks a thread, columns from an origin >= 0, no
** gathered rows, no mask along the columns, no atomic store (it keeps one
** access an element off the 16-byte grid); a hinted store (cache) keeps
** its hint on the aligned vectors only: the words of a chunk off the grid
** go without it (its element by element path ran RMSNorm and softmax bf16
** rows of 50257 at 0.41-0.54x, H200).  Not f32: its
** chunk off the grid is 3 or 4 words either way, and two-vector loads ran
** f32 rows of 50257 at 0.57-0.98x of element by element (H200).
** Not in a block of 1024 threads (ltP_layout): it keeps two blocks an SM
** only within 32 registers a thread, and the two-vector path took softmax's
** from 32 to 41-50 (sm_90a). */
static void mark_split(Kernel *k, Block *b, const Target *t) {
  for (Stmt *s = b->first; s; s = s->next) {
    mark_split(k, &s->body, t);
    mark_split(k, &s->orelse, t);
    View *v = s->view;
    if (t->lang == LANG_C || !v || v->scalar || v->cdim < 0 || v->t->trank < 2) continue;
    if (!(s->kind == S_LOAD && s->dst) && !(s->kind == S_STORE && !s->atomic)) continue;
    int shape[2];
    ltI_view_shape(v, shape);
    int chunks = row_chunks(v, access_of(s, shape));
    if (!chunks || chunks > 8) continue;
    int i = 0;
    while (i < k->nsplit && k->split_of[i] != v->t) i++;
    if (i == LT_MAXSPLIT) continue;
    if (i == k->nsplit) k->split_of[k->nsplit++] = v->t;
    v->split = 1;
  }
}

/* Marks the loads into register tiles of 2-byte elements that move two
** to four 16-byte chunks a thread along the rows of a tensor of unit
** column stride, on a CUDA target (View.ahead): their lowering issues
** every chunk's vector first, then converts and uses them, so that a
** thread has all its bytes in flight at once.  A chunk read and converted
** in one bounds branch holds the branch until its data arrive, and the
** next load issues only after it (the SASS of the bf16 softmax, H200).
** Columns from an origin >= 0, no gathered rows, no mask along the
** columns.  Not f32 (the raw vectors live beside the values: RMSNorm
** f32 48 -> 89 registers, and spills in 1024-thread blocks), not in a
** block of 1024 threads (softmax bf16 32 -> 57 registers: one block an SM
** instead of two), not more than four chunks (attention_bwd_pre d256's
** eight spilled), all sm_90a. */
static void mark_ahead(Block *b, const Target *t) {
  for (Stmt *s = b->first; s; s = s->next) {
    mark_ahead(&s->body, t);
    mark_ahead(&s->orelse, t);
    View *v = s->view;
    if (t->lang != LANG_CUDA || s->kind != S_LOAD || !s->dst || !v || v->scalar || v->cdim < 0) continue;
    int chunks = row_chunks(v, s->dst->layout);
    if (chunks < 2 || chunks > 4) continue;
    v->ahead = 1;
  }
}

/* Chooses the layouts of the register tiles: gemm accumulators keep the
** instruction's (mma.c), or get a blocked family per shape (FMA); other
** tiles take their value's or a family they fit; the rest share one
** blocked family, the largest rows and columns among them, which each
** must fit.  Then checks that the tiles combined in each statement agree. */
void ltP_layout(Kernel *k, const Target *t) {
  if (t->lang == LANG_C) k->threads = 1;   /* one thread per block on the CPU */
  int T = k->threads;
  if (t->lang != LANG_C) {
    if (!is_pow2(T) || T % t->warp != 0 || T > t->max_threads)
      ltU_error(k->line, "config threads = %d: a block needs a power of two of threads, a multiple of the "
                   "%s warp (%d) and at most %d", T, t->name, t->warp, t->max_threads);
  }
  k->vec_bytes = t->lang == LANG_C ? 0 : t->vec_bytes;
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if (!is_tile(s)) continue;
    for (int d = 0; d < 2; d++)
      if (!is_pow2(s->shape[d]) && s->shape[d] % 8)
        ltU_error(s->line, "tile dims are powers of two or multiples of 8 (got %d); the edges of a tensor are "
                           "masked, so round the tile up", s->shape[d]);
  }
  if (k->gemm && k->mma == MMA_FMA) acc_families(k, t, &k->body);
  unfit = ltU_alloc(sizeof *unfit * (size_t)k->nsyms);
  nunfit = 0;
  assign_block(k, &k->body);
  int R = 0, C = 0, line = 0;
  for (int i = 0; i < nunfit; i++) {
    Sym *s = unfit[i];
    if (s->shape[0] > R) { R = s->shape[0]; line = s->line; }
    if (s->shape[1] > C) { C = s->shape[1]; line = s->line; }
  }
  if (R) {
    Layout *f = family(k, t, R, C, line);
    for (int i = 0; i < nunfit; i++) {
      Sym *s = unfit[i];
      if (!fits(f, s->shape))
        ltU_error(s->line, "a [%d, %d] register tile does not fit the kernel's [%d, %d] tiles (line %d): "
                           "register tiles of one kernel share one shape and its row/column slices",
                  s->shape[0], s->shape[1], R, C, line);
      s->layout = f;
    }
  }
  check_block(&k->body);
  if (k->threads < 1024) mark_split(k, &k->body, t);
  if (k->threads < 1024) mark_ahead(&k->body, t);
}

/* The layout for copying a [rows, cols] tile of dtype dt between global
** and shared memory: blocked, as wide as the target allows (a blocked
** family of that shape and width if there is one); kept on the kernel's
** list. */
Layout *ltP_copy_layout(Kernel *k, const int shape[2], Dtype dt) {
  int vec = k->vec_bytes ? k->vec_bytes / ltI_dtypes[dt].bytes : 1;
  for (Layout *l = k->layouts; l; l = l->next)
    if (!l->mma && l->rows == shape[0] && l->cols == shape[1] && l->vec == vec_of(shape[1], vec))
      return l;
  Layout *l = make_layout(shape[0], shape[1], k->threads, vec, 0, !k->layouts, 1);
  append(k, l);
  return l;
}

/* The layout for a tile of the given shape: the family it fits, else one
** for copies (ltP_copy_layout). */
Layout *ltP_layout_of(Kernel *k, const int shape[2], Dtype dt) {
  Layout *f = find_family(k, shape);
  return f ? f : ltP_copy_layout(k, shape, dt);
}

/* The first gemm accumulator's layout (its per-thread coordinates are
** every accumulator's: mma.c), or NULL. */
const Layout *ltP_mma_layout(const Kernel *k) {
  for (const Layout *l = k->layouts; l; l = l->next)
    if (l->mma) return l;
  return NULL;
}

/* Elements of a tile of this shape held by each thread. */
int ltP_elems(const Layout *l, const int shape[2]) {
  return (shape[0] == l->rows ? l->nr : 1) * (shape[1] == l->cols ? l->nc * l->vec : 1);
}
