/*
** test_layout.c: register-tile layouts (ltP_layout, ltP_layout_of,
** ltP_elems), reduction groups (ltP_reduce_groups) and shared-memory
** planning (ltP_smem) on small hand-built kernels.
*/
#include "check.h"

static const Target *T(const char *name) {
  const Target *t = ltT_find(name);
  if (!t) {
    printf("FAIL unit/layout/target_%s: ltT_find returned NULL\n", name);
    fflush(stdout);
  }
  return t;
}

/* A kernel whose one register tile [rows, cols] of dt is loaded from a
** tensor of that dtype (so the vector width follows dt). */
static Kernel *load_kernel(Dtype dt, int rows, int cols, int threads) {
  Kernel *k = new_kernel(threads);
  Sym *t = tensor_sym(k, dt, rows ? 2 : 1);
  add_load(k, &k->body, t, rows, cols);
  return k;
}

#define CHECK_LAYOUT(name, l, VEC, TR, TC, NR, NC)                                          \
  do {                                                                                     \
    char why_[256];                                                                        \
    const Layout *l_ = (l);                                                                \
    if (!l_) { check_report(name, 0, "no layout", __FILE__, __LINE__); break; }            \
    snprintf(why_, sizeof why_, "vec/tr/tc/nr/nc = %d/%d/%d/%d/%d, want %d/%d/%d/%d/%d",   \
             l_->vec, l_->tr, l_->tc, l_->nr, l_->nc, VEC, TR, TC, NR, NC);                \
    check_report(name, l_->vec == (VEC) && l_->tr == (TR) && l_->tc == (TC) && l_->nr == (NR) && \
                 l_->nc == (NC), why_, __FILE__, __LINE__);                                \
  } while (0)

/* Declares tile s with a statement (layouts are given to tiles that
** statements define). */
static Sym *declared(Kernel *k, Sym *s) {
  Stmt *st = add(&k->body, S_FRAG, s->line);
  st->dst = s;
  return s;
}

static void test_family_layouts(void) {
  Kernel *k = load_kernel(DT_BF16, 1, 4096, 256);
  NO_ERROR("layout/row_4096_bf16_runs", ltP_layout(k, T("sm80")));
  CHECK_LAYOUT("layout/row_4096_bf16_sm80", k->layouts, 8, 1, 256, 1, 2);
  CHECK("layout/assigned_to_sym", k->syms[k->nsyms - 1]->layout == k->layouts);

  k = load_kernel(DT_F32, 1, 4096, 256);
  NO_ERROR("layout/row_4096_f32_runs", ltP_layout(k, T("sm80")));
  CHECK_LAYOUT("layout/row_4096_f32_sm80", k->layouts, 4, 1, 256, 1, 4);

  k = load_kernel(DT_BF16, 1, 4096, 256);
  NO_ERROR("layout/row_4096_bf16_gfx942_runs", ltP_layout(k, T("gfx942")));
  CHECK_LAYOUT("layout/row_4096_bf16_gfx942", k->layouts, 8, 1, 256, 1, 2);

  k = load_kernel(DT_F32, 8, 512, 256);
  NO_ERROR("layout/8x512_f32_runs", ltP_layout(k, T("sm80")));
  CHECK_LAYOUT("layout/8x512_f32_sm80", k->layouts, 4, 2, 128, 4, 1);

  k = load_kernel(DT_BF16, 8, 512, 256);
  NO_ERROR("layout/8x512_bf16_runs", ltP_layout(k, T("sm80")));
  CHECK_LAYOUT("layout/8x512_bf16_sm80", k->layouts, 8, 4, 64, 2, 1);

  /* vector narrowed so that every thread has an element: 256 x 4 = 1024 */
  k = load_kernel(DT_F32, 4, 64, 256);
  NO_ERROR("layout/4x64_runs", ltP_layout(k, T("sm80")));
  CHECK_LAYOUT("layout/4x64_f32_narrows_vec", k->layouts, 1, 4, 64, 1, 1);

  /* sides that are not powers of two: the threads take their power-of-two
  ** parts (192 = 64 x 3: 8 of a row's 24 chunks), each thread the rest in repeats */
  k = load_kernel(DT_BF16, 64, 192, 256);
  NO_ERROR("layout/64x192_bf16_runs", ltP_layout(k, T("sm80")));
  CHECK_LAYOUT("layout/64x192_bf16_sm80", k->layouts, 8, 32, 8, 2, 3);
  k = load_kernel(DT_F32, 80, 96, 128);   /* 80 = 16 x 5 rows, 96 / 4 = 24 chunks */
  NO_ERROR("layout/80x96_f32_runs", ltP_layout(k, T("sm80")));
  CHECK_LAYOUT("layout/80x96_f32_sm80", k->layouts, 4, 16, 8, 5, 3);
  k = load_kernel(DT_BF16, 8, 24, 64);    /* 3 chunks of 8: the vector narrows to 1 for 64 threads */
  NO_ERROR("layout/8x24_bf16_runs", ltP_layout(k, T("sm80")));
  CHECK_LAYOUT("layout/8x24_bf16_narrows_vec", k->layouts, 1, 8, 8, 1, 3);

  /* a copy of [80, 64] (attention's K tile at 80 keys): 16 of the rows' 80 at a time, the
  ** threads past 16 x 8 idle (tid < 128) */
  k = load_kernel(DT_BF16, 1, 4096, 256);
  NO_ERROR("layout/copy_80x64_runs", ltP_layout(k, T("sm90a")));
  int odd_rows[2] = {80, 64};
  const Layout *cl = ltP_copy_layout(k, odd_rows, DT_BF16);
  CHECK_LAYOUT("layout/copy_80x64_bf16", cl, 8, 16, 8, 5, 1);
  CHECK_INT("layout/copy_80x64_active", cl->active, 128);

  /* c: one thread holds the whole tile, element by element */
  k = load_kernel(DT_BF16, 1, 4096, 256);
  NO_ERROR("layout/c_runs", ltP_layout(k, T("c")));
  CHECK_INT("layout/c_one_thread", k->threads, 1);
  CHECK_LAYOUT("layout/row_4096_bf16_c", k->layouts, 1, 1, 1, 1, 4096);
  k = load_kernel(DT_F32, 8, 512, 256);
  NO_ERROR("layout/c_8x512_runs", ltP_layout(k, T("c")));
  CHECK_LAYOUT("layout/8x512_c", k->layouts, 1, 1, 1, 8, 512);

  /* the widest access decides nothing when the narrowest dtype is loaded:
  ** an f32 tile computed from a bf16 load still uses 16-byte bf16 chunks */
  k = load_kernel(DT_BF16, 1, 2048, 128);
  Sym *f = tile_sym(k, SYM_LET, DT_F32, 1, 2048);
  Stmt *cv = add(&k->body, S_LET, 30);
  cv->dst = f;
  cv->val = ltI_cast(ltI_ref(k->syms[k->nsyms - 2], 30), DT_F32, 30);
  NO_ERROR("layout/mixed_runs", ltP_layout(k, T("sm80")));
  CHECK_LAYOUT("layout/mixed_dtypes_narrowest_load", k->layouts, 8, 1, 128, 1, 2);
  CHECK("layout/one_family", f->layout == k->layouts);

  /* slices share the family layout */
  k = load_kernel(DT_F32, 8, 512, 256);
  Sym *rowv = declared(k, tile_sym(k, SYM_LET, DT_F32, 8, 1));
  Sym *colv = declared(k, tile_sym(k, SYM_FRAG, DT_F32, 0, 512));
  NO_ERROR("layout/slices_run", ltP_layout(k, T("sm80")));
  CHECK("layout/row_slice_shares", rowv->layout == k->layouts);
  CHECK("layout/col_slice_shares", colv->layout == k->layouts);
  int sh_parent[2] = {8, 512}, sh_col[2] = {8, 1}, sh_row[2] = {1, 512}, sh_one[2] = {1, 1};
  CHECK_INT("elems/parent", ltP_elems(k->layouts, sh_parent), 16);
  CHECK_INT("elems/column_slice", ltP_elems(k->layouts, sh_col), 4);
  CHECK_INT("elems/row_slice", ltP_elems(k->layouts, sh_row), 4);
  CHECK_INT("elems/one", ltP_elems(k->layouts, sh_one), 1);
  CHECK("layout_of/parent", ltP_layout_of(k, sh_parent, DT_F32) == k->layouts);
  CHECK("layout_of/slice", ltP_layout_of(k, sh_col, DT_F32) == k->layouts && ltP_layout_of(k, sh_row, DT_F32) == k->layouts);
  int other[2] = {32, 32};
  Layout *o = ltP_layout_of(k, other, DT_F32);
  CHECK("layout_of/other_shape_new", o && o != k->layouts && o->rows == 32 && o->cols == 32);
  CHECK("layout_of/other_shape_cached", ltP_layout_of(k, other, DT_F32) == o);
  CHECK("layout_of/other_shape_threads", o && o->tr * o->tc == 256 && o->nr * o->tr == 32 &&
                                             o->nc * o->tc * o->vec == 32);

  /* no register tiles: no layout, no error */
  k = new_kernel(256);
  NO_ERROR("layout/no_tiles", ltP_layout(k, T("sm80")));
  CHECK("layout/no_tiles_null", k->layouts == NULL);
}

static void test_layout_errors(void) {
  Kernel *k = load_kernel(DT_F32, 1, 4096, 96);
  EXPECT_ERROR("layout/threads_not_pow2", ltP_layout(k, T("sm80")), "config threads = 96");
  k = load_kernel(DT_F32, 1, 4096, 2048);
  EXPECT_ERROR("layout/threads_too_many", ltP_layout(k, T("sm80")), "at most 1024");
  k = load_kernel(DT_F32, 1, 4096, 32);
  EXPECT_ERROR("layout/threads_below_wave64", ltP_layout(k, T("gfx942")), "gfx942 warp (64)");
  k = load_kernel(DT_F32, 1, 4096, 32);
  NO_ERROR("layout/threads_32_ok_on_gfx1100", ltP_layout(k, T("gfx1100")));
  k = load_kernel(DT_F32, 1, 100, 256);
  EXPECT_ERROR("layout/odd_dim", ltP_layout(k, T("sm80")), "tile dims are powers of two or multiples of 8 (got 100)");
  k = load_kernel(DT_F32, 1, 100, 256);
  EXPECT_ERROR("layout/odd_dim_on_c", ltP_layout(k, T("c")), "tile dims are powers of two or multiples of 8 (got 100)");
  /* 1000 = 8 x 125: a multiple of 8, but its power-of-two part holds 8 of the 256 threads */
  k = load_kernel(DT_F32, 1, 1000, 256);
  EXPECT_ERROR("layout/uneven_dim", ltP_layout(k, T("sm80")),
               "a [1, 1000] register tile cannot be spread evenly over the block's 256 threads");
  k = load_kernel(DT_F32, 1, 1000, 256);
  NO_ERROR("layout/uneven_dim_fine_on_c", ltP_layout(k, T("c")));
  k = load_kernel(DT_F32, 1, 128, 256);
  EXPECT_ERROR("layout/tile_smaller_than_block", ltP_layout(k, T("sm80")), "fewer elements than the block's 256 threads");
  k = load_kernel(DT_F32, 1, 128, 256);
  NO_ERROR("layout/small_tile_fine_on_c", ltP_layout(k, T("c")));
  k = load_kernel(DT_F32, 8, 512, 256);
  declared(k, tile_sym(k, SYM_FRAG, DT_F32, 4, 512));
  EXPECT_ERROR("layout/two_families", ltP_layout(k, T("sm80")), "a [4, 512] register tile does not fit the kernel's [8, 512] tiles");
  k = load_kernel(DT_F32, 8, 512, 256);
  tile_sym(k, SYM_FRAG, DT_F32, 4, 512);
  NO_ERROR("layout/undeclared_tile_ignored", ltP_layout(k, T("sm80")));
}

/* Every pow2 shape that has enough elements gets a layout that covers the
** tile exactly once: tr*tc = threads, nr*tr = rows, nc*tc*vec = cols. */
static void test_layout_cover(void) {
  const char *targets[] = {"sm80", "gfx942", "gfx1100", "c"};
  Dtype dts[] = {DT_F32, DT_BF16};
  int bad = 0, tried = 0;
  char first[256] = "";
  for (int ti = 0; ti < 4; ti++)
    for (int di = 0; di < 2; di++)
      for (int threads = 64; threads <= 1024; threads *= 2)
        for (int rows = 1; rows <= 64; rows *= 2)
          for (int cols = 1; cols <= 8192; cols *= 2) {
            if (rows * cols < threads && strcmp(targets[ti], "c") != 0) continue;
            Kernel *k = load_kernel(dts[di], rows, cols, threads);
            check_err[0] = 0;
            ltU_raise = check_raise;
            int failed = 0;
            if (setjmp(ltU_jmp) == 0) ltP_layout(k, ltT_find(targets[ti]));
            else failed = 1;
            ltU_raise = NULL;
            tried++;
            Layout *l = k->layouts;
            int T = k->threads;
            int ok = !failed && l && l->tr * l->tc == T && l->nr * l->tr == rows && l->nc * l->tc * l->vec == cols &&
                     l->vec >= 1 && l->vec * ltI_dtypes[dts[di]].bytes <= (T == 1 ? 4 : 16);
            if (!ok && !bad++)
              snprintf(first, sizeof first, "%s %s [%d, %d] threads %d: %s", targets[ti], ltI_dtypes[dts[di]].name,
                       rows, cols, threads, failed ? check_err : "layout does not cover the tile");
          }
  char why[400];
  snprintf(why, sizeof why, "%d of %d shapes wrong, first: %s", bad, tried, first);
  check_report("layout/covers_every_shape", bad == 0 && tried > 1000, why, __FILE__, __LINE__);
}

static Layout *mk(int rows, int cols, int threads, int vec) {
  Layout *l = ltU_alloc(sizeof *l);
  l->rows = rows;
  l->cols = cols;
  l->vec = vec;
  l->threads = threads;
  l->tc = cols / vec < threads ? cols / vec : threads;
  l->tr = threads / l->tc;
  l->nr = rows / l->tr;
  l->nc = cols / (l->tc * vec);
  return l;
}

static void test_reduce_groups(void) {
  Layout *row = mk(1, 4096, 256, 8);   /* [1, 4096] bf16, 256 threads: 1 x 256 */
  CHECK_INT("reduce_groups/row_axis1_warp32", ltP_reduce_groups(row, 1, 32), 8);
  CHECK_INT("reduce_groups/row_axis1_wave64", ltP_reduce_groups(row, 1, 64), 4);
  CHECK_INT("reduce_groups/row_axis0", ltP_reduce_groups(row, 0, 32), 1);
  Layout *b = mk(8, 512, 256, 4);      /* 2 x 128 threads */
  CHECK_INT("reduce_groups/8x512_axis1", ltP_reduce_groups(b, 1, 32), 4);
  CHECK_INT("reduce_groups/8x512_axis0", ltP_reduce_groups(b, 0, 32), 2);
  Layout *t = mk(64, 16, 256, 4);      /* 64 x 4 threads: rows span warps */
  CHECK_INT("reduce_groups/tall_axis1_in_warp", ltP_reduce_groups(t, 1, 32), 1);
  CHECK_INT("reduce_groups/tall_axis0", ltP_reduce_groups(t, 0, 32), 8);
  CHECK_INT("reduce_groups/tall_axis0_wave64", ltP_reduce_groups(t, 0, 64), 4);
  Layout *w = mk(8, 32, 32, 1);        /* one warp: 1 x 32 */
  CHECK_INT("reduce_groups/one_warp_axis1", ltP_reduce_groups(w, 1, 32), 1);
  CHECK_INT("reduce_groups/one_warp_axis0", ltP_reduce_groups(w, 0, 32), 1);
  Layout *c = mk(8, 512, 1, 1);        /* c target */
  CHECK_INT("reduce_groups/c_axis1", ltP_reduce_groups(c, 1, 1), 1);
  CHECK_INT("reduce_groups/c_axis0", ltP_reduce_groups(c, 0, 1), 1);
}

static void test_smem(void) {
  Kernel *k = new_kernel(256);
  Sym *a = ltI_sym(k, SYM_SHARED, DT_BF16, 40);
  a->rank = 2, a->shape[0] = 1, a->shape[1] = 3;      /* 6 bytes */
  Sym *b = ltI_sym(k, SYM_SHARED, DT_F32, 41);
  b->rank = 2, b->shape[0] = 2, b->shape[1] = 2;      /* 16 bytes */
  Sym *c = ltI_sym(k, SYM_SHARED, DT_F16, 42);
  c->rank = 2, c->shape[0] = 4, c->shape[1] = 4;      /* 32 bytes */
  NO_ERROR("smem/small_runs", ltP_smem(k, ltT_find("sm80")));
  CHECK_INT("smem/first_offset", a->smem_offset, 0);
  CHECK_INT("smem/first_bytes", a->smem_bytes, 6);
  CHECK_INT("smem/second_aligned_16", b->smem_offset, 16);
  CHECK_INT("smem/third_offset", c->smem_offset, 32);
  CHECK_INT("smem/total", k->smem_bytes, 64);

  k = new_kernel(256);
  Sym *big = ltI_sym(k, SYM_SHARED, DT_F32, 50);
  big->rank = 2, big->shape[0] = 128, big->shape[1] = 128;
  NO_ERROR("smem/over_48k_sm80_opts_in", ltP_smem(k, ltT_find("sm80")));
  CHECK("smem/over_48k_sm80_dynamic", k->smem_dynamic == 1);
  k = new_kernel(256);
  big = ltI_sym(k, SYM_SHARED, DT_F32, 50);
  big->rank = 2, big->shape[0] = 256, big->shape[1] = 256;
  EXPECT_ERROR("smem/over_163k_sm80", ltP_smem(k, ltT_find("sm80")),
               ":50: error: the kernel needs 262144 bytes of shared memory, over the 163 KB a block gets on sm80");
  k = new_kernel(256);
  big = ltI_sym(k, SYM_SHARED, DT_F32, 50);
  big->rank = 2, big->shape[0] = 128, big->shape[1] = 136;
  EXPECT_ERROR("smem/over_64k_gfx942", ltP_smem(k, ltT_find("gfx942")),
               ":50: error: the kernel needs 69632 bytes of shared memory, over the 64 KB a block gets on gfx942");
  k = new_kernel(256);
  big = ltI_sym(k, SYM_SHARED, DT_F32, 50);
  big->rank = 2, big->shape[0] = 128, big->shape[1] = 96;   /* 48 KB exactly */
  NO_ERROR("smem/exactly_48k_sm80", ltP_smem(k, ltT_find("sm80")));
  k = new_kernel(256);
  big = ltI_sym(k, SYM_SHARED, DT_F32, 50);
  big->rank = 2, big->shape[0] = 128, big->shape[1] = 128;
  NO_ERROR("smem/64k_fits_gfx942", ltP_smem(k, ltT_find("gfx942")));

  /* a row reduction across 8 warps gets a [1, 8] f32 scratch */
  k = load_kernel(DT_BF16, 1, 4096, 256);
  Sym *x = k->syms[k->nsyms - 1];
  Stmt *r = add(&k->body, S_REDUCE, 60);
  r->val = ltI_ref(x, 60);
  r->op = B_MAX;
  r->axis = 1;
  r->dst = tile_sym(k, SYM_LET, DT_BF16, 1, 1);
  NO_ERROR("smem/reduce_runs", (ltP_layout(k, ltT_find("sm80")), ltP_smem(k, ltT_find("sm80"))));
  CHECK("smem/reduce_scratch", r->scratch && r->scratch->kind == SYM_SHARED && r->scratch->scratch);
  if (r->scratch) {
    CHECK("smem/reduce_scratch_shape", r->scratch->shape[0] == 1 && r->scratch->shape[1] == 8);
    CHECK_INT("smem/reduce_scratch_dtype_f32", r->scratch->dt, DT_F32);
    CHECK_INT("smem/reduce_scratch_bytes", k->smem_bytes, 32);
  }
  /* on c the same reduction needs no scratch */
  k = load_kernel(DT_BF16, 1, 4096, 256);
  x = k->syms[k->nsyms - 1];
  r = add(&k->body, S_REDUCE, 60);
  r->val = ltI_ref(x, 60);
  r->op = B_ADD;
  r->axis = 1;
  r->dst = tile_sym(k, SYM_LET, DT_BF16, 1, 1);
  NO_ERROR("smem/reduce_c_runs", (ltP_layout(k, ltT_find("c")), ltP_smem(k, ltT_find("c"))));
  CHECK("smem/reduce_c_no_scratch", r->scratch == NULL && k->smem_bytes == 0);
}

int main(void) {
  ltU_file = "unit.lua";
  test_family_layouts();
  test_layout_errors();
  test_layout_cover();
  test_reduce_groups();
  test_smem();
  return 0;
}
