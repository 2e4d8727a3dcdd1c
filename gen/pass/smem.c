/*
** smem.c: shared memory.  Gives each reduction that crosses warps a scratch
** tile (one partial per warp and kept row or column), lays out the shared
** tiles and scratches one after another, and checks the total against the
** target's limit for static shared memory.  Last, a CUDA kernel's store of
** a gemm accumulator that follows every use of shared memory gets a tile
** laid over the dead ones to go out through (out_tiles): the emitter then
** writes whole 16-byte row chunks instead of each lane's scattered pairs;
** in a warp-specialized kernel it goes out by TMA stores instead (through
** a tile beside the ring, or over the tile of the copies before the loop),
** or, where no tile fits, straight from registers with one test for the
** whole tile (Stmt.direct).
*/
#include <limits.h>

#include "lt.h"

/* Partials per kept element that a reduction leaves for shared memory:
** the number of warps along the reduced thread dimension (1: none). */
int ltP_reduce_groups(const Layout *l, int axis, int warp) {
  if (l->mma) return axis == 1 ? l->cols / l->wtn : l->rows / l->wtm;
  if (axis == 1) return l->tc > warp ? l->tc / warp : 1;
  int above = l->tc > warp ? l->tc : warp;   /* rows are in thread bits above tc */
  return l->threads > above ? l->threads / above : 1;
}

static void scratch_block(Kernel *k, const Target *t, Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->kind == S_REDUCE) {
      int g = ltP_reduce_groups(s->dst->layout, s->axis, t->warp);
      if (g > 1) {
        Sym *sc = ltI_sym(k, SYM_SHARED, ltI_compute_type(s->dst->dt), s->line);
        sc->scratch = 1;
        sc->rank = 2;
        sc->shape[0] = s->axis == 1 ? s->dst->shape[0] : g;   /* kept rows x groups, or groups x kept cols */
        sc->shape[1] = s->axis == 1 ? g : s->dst->shape[1];
        s->scratch = sc;
      }
    }
    scratch_block(k, t, &s->body);
    scratch_block(k, t, &s->orelse);
  }
}

/* Does statement s (or anything inside it) read or write shared memory? */
static int touches_shared(const Stmt *s) {
  switch (s->kind) {
  case S_G2S: case S_SLOAD: case S_SSTORE: case S_GEMM: case S_BARRIER: return 1;
  case S_REDUCE: if (s->scratch) return 1; break;
  default: break;
  }
  for (const Stmt *x = s->body.first; x; x = x->next)
    if (touches_shared(x)) return 1;
  for (const Stmt *x = s->orelse.first; x; x = x->next)
    if (touches_shared(x)) return 1;
  return 0;
}

/* Does statement list `first` (and what is inside it) read shared tile p
** only as the A operand of gemms whose warps each own 16 whole rows of a
** result of p's rows, stored [M, K] (each consumer warpgroup reading its
** own 64 rows of p)?  The copies into p are not reads. */
static int own_rows_only(const Stmt *first, const Sym *p) {
  for (const Stmt *x = first; x; x = x->next) {
    if (x->kind == S_GEMM && x->shared_b == p) return 0;
    if (x->kind == S_GEMM && x->shared == p) {
      const Layout *g = x->dst->layout;
      if (x->trans_a || x->areg || !g || g->mma != MMA_WGMMA || g->rgap || g->swap || g->wtm != 16 ||
          g->wtn != g->cols || g->rows != p->shape[0])
        return 0;
    } else if (x->kind != S_G2S && (x->shared == p || x->via == p || x->scratch == p)) {
      return 0;
    }
    if (!own_rows_only(x->body.first, p) || !own_rows_only(x->orelse.first, p)) return 0;
  }
  return 1;
}

/* The tile of the copies before warp-specialized kernel k's loop that a
** TMA store of an accumulator of layout l (dtype dt) may go out through
** where no staging tile fits beside the ring, or NULL: on a persistent
** grid that copies them again each program (Kernel.pre_reload), one such
** copy into one one-buffer tile of dt and of the accumulator's shape, in
** wgmma's 128-byte-row panels (the staging tile's layout), that only the
** gemms of their own warpgroup's rows read (own_rows_only): after its last
** wgmma a warpgroup's 64 rows of it are dead, whatever the other group
** still reads.  The consumers then give the tile back to the producer
** (_pre_empty) only once the stores have read it (Kernel.pre_out,
** lower/store_staged.c): the next program's copy into it waits for the
** epilogue.  (The d128 attention forward: Q, beside a 3-stage ring that
** leaves no room for a staging tile.) */
static const Sym *pre_tile(const Kernel *k, Dtype dt, const Layout *l) {
  if (!k->pre_reload || k->pingpong || k->pre_out) return NULL;
  const Sym *p = NULL;
  for (const Stmt *x = k->body.first; x && x != k->ws; x = x->next) {
    if (x->kind != S_G2S) continue;
    if (p) return NULL;   /* (one tile before the loop) */
    p = x->shared;
  }
  if (!p || p->dt != dt || p->stages > 1 || !p->wgmma || !p->swizzle || ltP_wgmma_row(p) != 128) return NULL;
  if (p->shape[0] != l->rows || p->shape[1] != l->cols || p->smem_offset % 1024) return NULL;
  return own_rows_only(k->body.first, p) ? p : NULL;
}

/* The accumulator's elements a thread (a warpgroup's 64 rows over its 128
** threads) from which its TMA store no longer goes out through the tile of
** the copies before the loop (pre_tile): D = 256's O (128 a thread) on
** 128 x 80 key blocks, whose two stages of 80 KB beside Q leave no room for
** a staging tile, spilled 108 bytes that way (ptxas, nvcc 13.0), none with
** its stores through a tile over the ring after the loop.  D = 128's O (64)
** takes it. */
#define PRE_OUT_MAX 128

/* Store s of a wgmma accumulator (layout l) in warp-specialized kernel k
** by TMA, where it can (returns 1; Stmt.via is then the staging tile,
** Stmt.map the store's tensor map, one more in k->maps): each consumer
** warpgroup writes its rows into a staging tile of its own and one of its
** threads hands that to the copy engine, which writes only the elements
** inside the tensor (no masked path) while the warpgroup goes on; on a
** persistent grid the stores drain during the next program's main loop
** (lower/store_staged.c, ltL_tma_store).  It needs warps that each hold
** 16 whole rows (a warpgroup: 64 consecutive rows), 2-byte elements along
** the tensor's last dimension with stride 1 (one element of every other
** dimension), whole panels of 128-byte rows (a box of 64 x 64 each, the
** 128-byte swizzle), a free tensor map, and room beside the ring for one
** staging tile a warpgroup of two panels (one where the tile has an odd
** number; in ping-pong one for each of the two warpgroups): the tile goes
** out in parts of that many columns; where there is none, the tile of the
** copies before the loop, where it can take the whole accumulator and that
** holds fewer than PRE_OUT_MAX elements a thread (pre_tile; Sym.over: one
** tile of its shape, a warpgroup its own rows).  A view of X:rows(lo, hi) goes too:
** the copy engine stops only at the tensor's own ends, so a warpgroup
** whose rows are not all in [lo, hi) writes its staging tile by threads,
** the rows inside (store_staged.c).  (H200: the
** hand-written schedule of docs/hopper.md with this epilogue ran 4-10%
** faster than with stores from registers.) */
static int tma_out(Kernel *k, const Target *t, Stmt *s, const Layout *l) {
  const View *v = s->view;
  const Sym *ts = v->t;
  int eb = ltI_dtypes[ts->dt].bytes;
  long long cs;
  if (!t->tma || !k->ws || l->mma != MMA_WGMMA || l->rgap || l->swap || l->wtm != 16 || l->wtn != l->cols || eb != 2) return 0;
  if (v->rdim < 0 || v->cdim != ts->trank - 1 || !ltI_const_int(ts->strides[v->cdim], &cs) || cs != 1) return 0;
  for (int d = 0; d < ts->trank; d++)
    if (d != v->rdim && d != v->cdim && v->ext[d] != 1) return 0;
  int pc = 128 / eb, wgs = l->rows / 64;
  if (l->rows % 64 || l->cols % pc || k->threads != wgs * 128 || k->nmaps == LT_MAXMAPS) return 0;
  int part = l->cols % (2 * pc) ? pc : 2 * pc, tiles = k->pingpong ? 2 : wgs;   /* ping-pong: one a warpgroup */
  int after = (k->smem_bytes + 1023) & ~1023, bytes = tiles * 64 * part * eb;
  const Sym *pre = after + bytes > t->smem_max && !v->rlo && l->nr * l->nc * l->vec < PRE_OUT_MAX
                       ? pre_tile(k, ts->dt, l) : NULL;
  if (after + bytes > t->smem_max && !pre) return 0;
  Sym *o = ltI_sym(k, SYM_SHARED, ts->dt, s->line);
  o->rank = 2;
  o->shape[0] = 64;
  o->shape[1] = part;
  o->stages = tiles;
  o->swizzle = 1;
  o->tma_out = 1;
  o->smem_offset = after;
  o->smem_bytes = bytes;
  o->name = ltU_fmt("%s_out", ts->name);
  if (pre) {   /* over the copies' tile before the loop, its shape: a warpgroup's rows are its own there */
    o->shape[0] = l->rows;
    o->shape[1] = l->cols;
    o->stages = 1;
    o->over = 1;
    o->smem_offset = pre->smem_offset;
    o->smem_bytes = pre->smem_bytes;
    k->pre_out = 1;
  } else {
    k->smem_bytes = after + bytes;
  }
  TensorMap m = {.t = ts, .swizzle = 128, .store = 1};
  int same = 0;
  for (int i = 0; i < k->nmaps; i++) same += k->maps[i].t == ts;
  for (int j = 0; j < ts->trank; j++) {
    int d = ts->trank - 1 - j;
    m.box[j] = d == v->cdim ? pc : d == v->rdim ? 64 : 1;
  }
  m.name = same ? ltU_fmt("%s_map%d", ts->name, same + 1) : ltU_fmt("%s_map", ts->name);
  k->maps[k->nmaps++] = m;
  s->map = k->nmaps;
  s->via = o;
  k->tma_stores = 1;
  return 1;
}

/* A shared tile for each top-level store of an mma.sync accumulator (or an
** expression of it, with 16 or more instruction tiles a warp) to a [rows,
** cols] window of a tensor with unit column stride, when no later
** statement touches shared memory and the tile fits in the kernel's dynamic
** shared memory (so it never adds any): at offset 0, over the tiles that
** are dead by then, swizzled like a gemm operand so that neither the
** lanes' pair writes nor the row reads conflict.  (After a warp-specialized
** loop the consumers have waited for every stage the producer filled; on a
** persistent grid, though, the producer fills the next program's stages
** meanwhile: the tile goes after the others, where it fits.)  In a
** warp-specialized kernel the store goes out by TMA where it can
** (tma_out: beside the ring, or over the tile of the copies before the
** loop where nothing fits beside a ring that fills shared memory, as the
** d128 attention forward's); where neither does, the store's fast case
** writes the lanes' vectors from registers without a test each
** (Stmt.direct, store_staged.c). */
static void out_tiles(Kernel *k, const Target *t) {
  if (t->lang != LANG_CUDA || !k->smem_dynamic) return;
  for (Stmt *s = k->body.first; s; s = s->next) {
    if (s->kind != S_STORE) continue;
    int later = 0;
    for (const Stmt *x = s->next; x && !later; x = x->next) later = touches_shared(x);
    if (later) break;
    const View *v = s->view;
    const Layout *l = ltP_expr_layout(s->val);
    if (s->atomic || ltI_view_gathers(v) || v->mask || v->cache || !l || (l->mma != MMA_SYNC && l->mma != MMA_TF32 && l->mma != MMA_WGMMA) || v->rdim < 0) continue;
    if (v->ext[v->rdim] != l->rows || v->ext[v->cdim] != l->cols || ltI_view_never_inside(v)) continue;
    long long cs;
    if (!ltI_const_int(v->t->strides[v->cdim], &cs) || cs != 1) continue;
    int eb = ltI_dtypes[v->t->dt].bytes, row = l->cols * eb;
    /* (not yet measured in the GEMM's ping-pong kernels: they keep the element-wise store) */
    s->direct = k->ws && !k->pingpong && (l->vec * eb == 4 || l->vec * eb == 8);   /* (undone where a tile is found) */
    /* small warp tiles keep the element-wise store: at 32x32 (the M = 16
    ** matmul bucket) the kernel ran 9% slower with the staged path in it,
    ** though its tiles never took it (28.5 vs 31.0 TFLOP/s on H100).  By
    ** TMA they go out too, but for the GEMM's ping-pong kernels, not
    ** measured so: the d64 attention forward's (16 x 64 a warp) ran
    ** 1.01-1.08x with its O by TMA (H200, 2026-11-25) */
    int small = l->wtm / l->im * (l->wtn / l->in) < 16;
    if (!(small && k->pingpong) && tma_out(k, t, s, l)) {
      s->direct = 0;
      continue;
    }
    if (small) continue;
    if (k->pingpong) continue;   /* (ping-pong: a tile for both warpgroups would race) */
    int room = k->ws ? k->mbar_offset : k->smem_bytes;   /* (not over a warp-specialized ring's mbarriers) */
    int after = (k->smem_bytes + 1023) & ~1023;   /* persistent: beside the ring, which fills the next program's */
    /* persistent: where the whole tile does not fit beside the ring, a
    ** tile of half (a quarter of) the columns, which the store fills and
    ** empties once for each part: when each warp holds whole rows of the
    ** accumulator (wgmma), so that part h is its column chunks h * nc /
    ** parts.. (store_staged.c) */
    int parts = 1;
    if (k->persistent)
      while (after + l->rows * row / parts > t->smem_max && parts < 4 && l->wtn == l->cols &&
             l->nc % (2 * parts) == 0 && row / (2 * parts) % 128 == 0)
        parts *= 2;
    row /= parts;
    if (k->persistent) room = after + l->rows * row <= t->smem_max ? l->rows * row : 0;
    if (row % 128 != 0 || l->rows * row > room || (l->vec * eb != 4 && l->vec * eb != 8) || k->vec_bytes != 16)
      continue;
    Sym *o = ltI_sym(k, SYM_SHARED, v->t->dt, s->line);
    o->rank = 2;
    o->shape[0] = l->rows;
    o->shape[1] = l->cols / parts;
    o->swizzle = 1;
    o->over = 1;
    o->smem_offset = k->persistent ? after : 0;
    o->smem_bytes = l->rows * row;
    if (k->persistent) k->smem_bytes = after + o->smem_bytes;
    o->name = ltU_fmt("%s_out", v->t->name);
    s->via = o;
    s->direct = 0;
  }
}

/* The staging tile of atomic store s (k:atomic_add of an mma accumulator,
** or an expression of it) for the bulk reduce-add of the copy engine's
** copies of sm_90 (cp.reduce.async.bulk), or NULL: the lanes write their
** elements into an f32 tile of the tensor's rows, padded, then one thread
** a row hands the row to the copy engine, which adds it into global memory
** (lower/store_reduce.c) instead of the threads' scalar atomics.  It needs
** the tensor's last dimension with stride 1 along the tile's columns, or,
** where the value is the transpose of the tensor's tile (k:atomic_add's
** transpose: the view's rows on the last dimension), along its rows; one
** element of every other dimension, no mask and no X:rows view, whole
** 16-byte chunks in a row, and each lane's elements in pairs.  The padding
** puts a warp's writes on 32 different banks: 8 elements where a
** half-warp writes 4 rows of 8 pairs as float2s (bulk_red 1); 4 where the
** value is transposed and a warp writes one element to each of 8
** consecutive columns of 4 rows 2 apart (bulk_red 2: rows 2 x 132 words
** apart start 8 banks apart).  Stores of one shape share a tile (each
** issuing thread waits until its adds before have read it). */
static Sym *red_tile(Kernel *k, const Target *t, Stmt *s) {
  const View *v = s->view;
  const Layout *l = ltP_expr_layout(s->val);
  long long cs;
  if (t->lang != LANG_CUDA || !t->tma || !s->atomic || v->t->dt != DT_F32 || !l || !l->mma || l->vec != 2) return NULL;
  if (ltI_view_gathers(v) || v->mask || v->rlo || v->cache || v->rdim < 0) return NULL;
  int last = v->t->trank - 1, tr = v->rdim == last;
  if (v->cdim != last && !tr) return NULL;
  if (!ltI_const_int(v->t->strides[last], &cs) || cs != 1) return NULL;
  for (int d = 0; d < v->t->trank; d++)
    if (d != v->rdim && d != v->cdim && v->ext[d] != 1) return NULL;
  if (v->ext[v->rdim] != l->rows || v->ext[v->cdim] != l->cols) return NULL;
  int rows = v->ext[tr ? v->cdim : v->rdim], cols = v->ext[last], pad = tr ? 4 : 8;
  if (cols % 4) return NULL;
  for (int i = 0; i < k->nsyms; i++) {
    Sym *o = k->syms[i];
    if (o->bulk_red == 1 + tr && o->shape[0] == rows && o->shape[1] == cols + pad) return o;
  }
  Sym *o = ltI_sym(k, SYM_SHARED, DT_F32, s->line);
  o->rank = 2;
  o->shape[0] = rows;
  o->shape[1] = cols + pad;
  o->bulk_red = 1 + tr;
  o->name = ltU_fmt("%s_red%s", v->t->name, tr ? "_t" : "");
  return o;
}

/* Gives the atomic stores of block b (and those inside its statements)
** their staging tiles (red_tile), where the kernel's shared memory stays
** within `room` bytes with them; returns the bytes added. */
static long long red_tiles(Kernel *k, const Target *t, Block *b, long long used, long long room) {
  long long added = 0;
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->kind == S_STORE && s->atomic) {
      int had = k->nsyms;
      Sym *o = red_tile(k, t, s);
      long long bytes = o && k->nsyms > had ? (long long)o->shape[0] * o->shape[1] * 4 + 128 : 0;
      if (o && used + added + bytes > room) {   /* no room: the scalar atomics */
        if (k->nsyms > had) k->nsyms = had;
        o = NULL;
        bytes = 0;
      }
      if (o) {
        s->via = o;
        k->bulk_reds = 1;
        added += bytes;
      }
    }
    added += red_tiles(k, t, &s->body, used + added, room);
    added += red_tiles(k, t, &s->orelse, used + added, room);
  }
  return added;
}

/* Gives each shared tile its offset, one after another; returns the
** total and, in *biggest, the largest tile.  Sizes are counted in 64
** bits: the front end bounds a tile at 2^24 elements, but their sum (and
** a tile's stages) can pass what an int holds; past INT_MAX the offsets
** stop growing, and ltP_smem reports the total as too large. */
static long long lay_out(Kernel *k, Sym **biggest) {
  long long off = 0;
  *biggest = NULL;
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if (s->kind != SYM_SHARED) continue;
    long long bytes = ltI_shared_bytes(s);
    /* wgmma: its swizzle atom's address bits; under a warp-specialized loop, 128 for the TMA copies */
    long long align = s->wgmma ? 8 * ltP_wgmma_row(s) : k->ws ? 128 : 16;
    off = (off + align - 1) / align * align;
    s->smem_offset = off > INT_MAX ? INT_MAX : (int)off;
    s->smem_bytes = bytes > INT_MAX ? INT_MAX : (int)bytes;
    off += bytes;
    if (!*biggest || s->smem_bytes > (*biggest)->smem_bytes) *biggest = s;
  }
  return off;
}

/* Adds reduction scratches, assigns offsets (and a warp-specialized
** ring's mbarriers after the tiles) and checks the limit: the target's
** static limit, or its opt-in limit for CUDA kernels whose shared memory
** then comes from the launch (dynamic; always with TMA, whose copies land
** in the 1024-byte aligned dynamic shared memory). */
void ltP_smem(Kernel *k, const Target *t) {
  scratch_block(k, t, &k->body);
  Sym *biggest;
  long long off = lay_out(k, &biggest);
  /* (beside a warp-specialized ring's mbarriers, 16 bytes a stage and two more, and Kernel.queue's) */
  long long bars = k->ws ? 16LL * k->ws->stages + 32 + (k->queue ? 24 : 0) : 0;
  if (red_tiles(k, t, &k->body, off + bars, t->smem_max)) off = lay_out(k, &biggest);
  if (!t->async_copy && off > t->smem_max) {   /* AMD: the double buffers do not fit; one buffer each */
    for (int i = 0; i < k->nsyms; i++)
      if (k->syms[i]->kind == SYM_SHARED) k->syms[i]->stages = 1;
    off = lay_out(k, &biggest);
  }
  if (k->ws) {   /* a warp-specialized ring's mbarriers, a full and an empty one a stage, 8 bytes each */
    long long at = (off + 7) & ~7LL;
    k->mbar_offset = at > INT_MAX ? INT_MAX : (int)at;   /* past INT_MAX the limit check below reports it */
    /* (and one for the copies before the loop, and one more where they go again a program: _pre_empty; with
    ** Kernel.queue two more and the program they hand over: _next, _next_read, _next_prog) */
    off = at + 16LL * k->ws->stages + (k->pre_bytes ? 8 : 0) + (k->pre_reload ? 8 : 0) + (k->queue ? 24 : 0);
  }
  int limit = t->smem_static;
  if ((off > t->smem_static || k->ws) && t->lang == LANG_CUDA) {   /* TMA writes the dynamic shared memory */
    k->smem_dynamic = 1;
    limit = t->smem_max;
  }
  if (off > limit)
    ltU_error(biggest->line, "the kernel needs %lld bytes of shared memory, over the %d KB a block gets on %s "
                             "(biggest: a [%d, %d] %s tile%s, %lld bytes); make the tiles smaller or use fewer stages",
              off, limit / 1024, t->name, biggest->shape[0], biggest->shape[1], ltI_dtypes[biggest->dt].name,
              biggest->stages > 1 ? ltU_fmt(" in %d stages", biggest->stages) : "",
              ltI_shared_bytes(biggest));
  k->smem_bytes = (int)off;
  out_tiles(k, t);
}
