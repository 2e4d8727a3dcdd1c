/*
** kernel.c: the kernel function.
**
** For a GPU target, a __global__ function of one block: the thread's
** coordinates (tid; for gemm accumulators its warp and lane, row0 and col0
** of the instruction's result layout; tx and ty of the blocked layout;
** the program ids), the shared tiles (static, or carved from the dynamic
** shared memory of a launch that needs more than the default), then the
** body (stmt.c).  For the c target, a function that runs one block with
** one thread, called by the launcher for each program of the grid.
*/
#include "emit/emit.h"

/* Does stride s go to the kernel as an int?  On targets with int_row_strides
** (AMD: 102 scalar registers, and each int64 stride a kernel keeps takes
** two), a stride that is only ever a tensor's row stride (of its next to
** last dim) does; the launcher refuses one past INT_MAX.  Outer strides
** (batch, head) stay int64: they can pass 2^31 in tensors that exist. */
int ltE_narrow_stride(const E *e, const Sym *s) {
  if (s->kind != SYM_STRIDE || !e->t->int_row_strides) return 0;
  int rows = 0;
  for (int i = 0; i < e->k->nsyms; i++) {
    const Sym *t = e->k->syms[i];
    if (t->kind != SYM_TENSOR) continue;
    for (int j = 0; j < t->trank; j++)
      if (t->strides[j] && t->strides[j]->kind == E_SYM && t->strides[j]->sym == s) {
        if (j != t->trank - 2) return 0;
        rows++;
      }
  }
  return rows > 0;
}

/* The declaration of parameter s: of the launcher (tensors as void
** pointers, strides int64), or of the kernel. */
const char *ltE_param_decl(const E *e, const Sym *s, int launcher) {
  switch (s->kind) {
  case SYM_TENSOR: {
    int in = !s->stored;
    if (launcher) return ltU_fmt("%svoid *%s", in ? "const " : "", s->name);
    return ltU_fmt("%s%s *%s%s", in ? "const " : "", ltE_stype(e, s->dt),
                   e->t->lang == LANG_C ? "restrict " : "__restrict__ ", s->name);
  }
  case SYM_SIZE: return ltU_fmt("int %s", s->name);
  case SYM_STRIDE: return ltU_fmt("%s %s", !launcher && ltE_narrow_stride(e, s) ? "int" : "int64_t", s->name);
  default: return ltU_fmt("%s %s", ltE_ctype(s->dt), s->name);
  }
}

/* Does an accumulator layout from l up to o use o's row0 (col: col0) name? */
static int named_before(const Layout *l, const Layout *o, int col) {
  for (; l != o; l = l->next)
    if (l->mma && !strcmp(col ? l->col0 : l->row0, col ? o->col0 : o->row0)) return 1;
  return 0;
}

/* Is accumulator layout l spread over warpgroups other than as a column
** of 16-row warps: wgmma with warpgroups across N or several m64 blocks
** each (mma.c)?  Then warp w is warp w % 4 of group w / 4. */
static int by_groups(const E *e, const Layout *l) {
  return l->mma == MMA_WGMMA && !l->swap && (e->k->warps_n > 1 || l->rgap);
}

/* The first row of the calling warp's part of accumulator layout l. */
static const char *warp_row_of(const E *e, const Layout *l) {
  int W = e->t->warp, wm = e->k->warps_m, wn = e->k->warps_n;
  if (by_groups(e, l)) {
    const char *in = ltU_fmt("tid / %d %% 4 * 16", W);   /* the warp's 16 rows of each m64 block of its group */
    return wm == 4 ? in : ltU_fmt("tid / %d * %d + %s", 4 * W * wn, 4 * l->wtm, in);
  }
  return wm == 1 ? "0" : ltU_fmt("tid / %d * %d", W * wn, l->wtm);
}

/* The first column of the calling warp's part of accumulator layout l. */
static const char *warp_col_of(const E *e, const Layout *l) {
  int W = e->t->warp, wn = e->k->warps_n;
  if (wn == 1) return "0";
  if (by_groups(e, l)) return ltU_fmt("tid / %d %% %d * %d", 4 * W, wn, l->wtn);
  return ltU_fmt("tid / %d %% %d * %d", W, wn, l->wtn);
}

/* The per-thread coordinates of the gemm accumulators' layouts (mma.c):
** the first layout's, then those of the layouts with names of their own. */
static void thread_coords(E *e, const Layout *l) {
  int W = e->t->warp;
  ltE_line(e, "const int lane = tid %% %d;", W);
  if (by_groups(e, l))
    ltE_line(e, "/* warp tid / %d of this block, warp tid / %d %% 4 of warpgroup tid / %d: rows warp_row.. (16 of each "
                "64-row block of the group's) and columns warp_col.. of the [%d, %d] accumulator */", W, W, 4 * W,
             l->rows, l->cols);
  else
    ltE_line(e, "/* warp %s of this block: rows warp_row.. and columns warp_col.. of the [%d, %d] accumulator */",
             ltU_fmt("tid / %d", W), l->rows, l->cols);
  ltE_line(e, "const int warp_row = %s;", warp_row_of(e, l));
  ltE_line(e, "const int warp_col = %s;", warp_col_of(e, l));
  const char *r0, *c0;
  switch (l->mma) {
  case MMA_SYNC:
  case MMA_WGMMA:
  case MMA_TF32: r0 = l->swap ? "lane % 4 * 2" : "lane / 4", c0 = l->swap ? "lane / 4" : "lane % 4 * 2"; break;
  case MMA_MFMA32: r0 = "lane % 32", c0 = "lane / 32 * 4"; break;
  case MMA_MFMA16: r0 = "lane % 16", c0 = "lane / 16 * 4"; break;
  default: r0 = "lane / 16", c0 = "lane % 16"; break;
  }
  const char *rows = l->swap   ? ltU_fmt("row0 + %d (i / 2) + i %% 2", l->rstride)
                     : l->rgap ? ltU_fmt("row0 + %d (i %% 2) + %d (i / 2)", l->rstride, l->rgap)
                               : ltU_fmt("row0 + %d i", l->rstride);
  ltE_line(e, "/* %s result layout%s: this thread holds rows %s and columns col0 + %d j%s */", ltP_mma_name(l->mma),
           l->swap ? " of the swapped operands (C^T = B^T A^T: the instruction's 64 rows are columns here)" : "", rows,
           l->cstride, l->vec > 1 ? ltU_fmt(" + 0..%d", l->vec - 1) : "");
  ltE_line(e, "const int row0 = warp_row + %s;", r0);
  ltE_line(e, "const int col0 = warp_col + %s;", c0);
  for (const Layout *o = l->next; o; o = o->next) {   /* the other rows / columns, once each */
    if (!o->mma) continue;
    if (!named_before(l, o, 0)) {
      ltE_line(e, "/* the %d-row accumulators: their warp's rows from %s, this thread's from %s */", o->rows, o->wrow,
               o->row0);
      ltE_line(e, "const int %s = %s, %s = %s + %s;", o->wrow, warp_row_of(e, o), o->row0, o->wrow, r0);
    }
    if (!named_before(l, o, 1)) {
      ltE_line(e, "/* the %d-column accumulators: their warp's columns from %s, this thread's from %s */", o->cols,
               o->wcol, o->col0);
      ltE_line(e, "const int %s = %s, %s = %s + %s;", o->wcol, warp_col_of(e, o), o->col0, o->wcol, c0);
    }
  }
}

/* The alignment kernel k's shared tiles need: 16 bytes, 1024 where a
** wgmma reads one (its swizzle atom's; smem.c). */
int ltE_smem_align(const Kernel *k) {
  int align = 16;
  for (int i = 0; i < k->nsyms; i++)
    if (k->syms[i]->kind == SYM_SHARED && k->syms[i]->wgmma) align = 1024;
  return align;
}

/* The rows kept in shared memory (config resident, pass/resident.c): the
** test that they fit, the same as the launcher's, and their tile. */
static void resident_rows(E *e) {
  Kernel *k = e->k;
  const Sym *t = k->row_res;
  int eb = ltI_dtypes[t->dt].bytes;
  const char *tn = ltE_stype(e, t->dt), *len = ltE_itext(e, k->row_res_len);
  long long room = ltP_resident_room(k, e->t);
  ltE_line(e, "/* %s_row: the %s%s of %s this program reads twice, %s elements%s (config resident): the first pass's "
              "loads also store their chunks there, the later pass reads them back, each thread its own elements, "
              "where %s fit%s in the %lld bytes past the other tiles that leave room for two blocks an SM (the "
              "launcher's test too); else it reads %s again */", t->name, k->row_res_rows > 1 ? ltU_fmt("%d ", k->row_res_rows) : "",
           k->row_res_rows > 1 ? "rows" : "row", t->name, len, k->row_res_rows > 1 ? " each" : "",
           k->row_res_rows > 1 ? "they" : "it", k->row_res_rows > 1 ? "" : "s", room, t->name);
  ltE_line(e, "const bool resident = (int64_t)(%s) * %d <= %lld;", len, eb * k->row_res_rows, room);
  ltE_line(e, "%s *const %s_row = (%s *)(lt_smem + %d);", tn, t->name, tn, k->row_res_offset);
}

/* The declarations of the kernel's shared tiles, each with what its
** swizzle is for. */
static void shared_tiles(E *e) {
  Kernel *k = e->k;
  int align = ltE_smem_align(k);
  if (k->smem_dynamic)
    ltE_line(e, "extern __shared__ __align__(%d) unsigned char lt_smem[];", e->smem_align > align ? e->smem_align : align);
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if (s->kind != SYM_SHARED) continue;
    const char *ty = s->scratch ? ltE_ctype(s->dt) : ltE_stype(e, s->dt);
    const char *ring = s->stages > 1 ? ltU_fmt("[%d]", s->stages) : "";
    int pc = ltE_panel_cols(s);
    /* the dimensions after the first: [rows][cols], or [panels][rows][64] */
    const char *panels = pc < s->shape[1] ? ltU_fmt("[%d]", s->shape[1] / pc) : "";
    const char *rest = s->stages > 1 ? ltU_fmt("%s[%d][%d]", panels, s->shape[0], pc)
                       : *panels     ? ltU_fmt("[%d][%d]", s->shape[0], pc)
                                     : ltU_fmt("[%d]", s->shape[1]);
    if (s->swizzle) {
      int mask, rsh, shift;
      ltE_swizzle_of(s, &mask, &rsh, &shift);
      const char *key = rsh ? ltU_fmt("(r / %d %% %d)", 1 << rsh, mask + 1) : ltU_fmt("(r %% %d)", mask + 1);
      const char *ring_of = s->stages > 1 ? ltU_fmt(" (a ring of %d stages)", s->stages) : "";
      if (s->tma_out && s->over)
        ltE_line(e, "/* %s: the consumer warpgroups' tile on its way out by TMA stores, over the tile of the copies "
                    "before the loop (each warpgroup's rows of it dead after its last wgmma; that tile's next copy "
                    "waits for the stores' reads), in panels of %d columns; chunk c of row r stored at c ^ %s: the "
                    "tensor map's 128-byte swizzle, so neither the lanes' pairs nor the rows conflict */", s->name, pc,
                 key);
      else if (s->tma_out)
        ltE_line(e, "/* %s: a consumer warpgroup's tile on its way out by TMA stores, beside the ring (filled meanwhile "
                    "with the next program's stages), in panels of %d columns; chunk c of row r stored at c ^ %s: the "
                    "tensor map's 128-byte swizzle, so neither the lanes' pairs nor the rows conflict */", s->name, pc,
                 key);
      else if (s->over && k->persistent)
        ltE_line(e, "/* %s: a tile on its way out to global memory, beside the ring (filled meanwhile with the next "
                    "program's stages); chunk c of row r stored at c ^ %s, so neither the lanes' pairs nor the rows "
                    "conflict */", s->name, key);
      else if (s->over)
        ltE_line(e, "/* %s: a tile on its way out to global memory, over the tiles above (dead by then); chunk c of "
                    "row r stored at c ^ %s, so neither the lanes' pairs nor the rows conflict */", s->name, key);
      else if (s->copy_of)
        ltE_line(e, "/* %s%s: %s copied K-major by the consumers for the wgmmas (%d-byte swizzle); chunk c of row r "
                    "stored at c ^ %s, so the copy's 16-byte stores do not conflict */", s->name, ring_of,
                 s->copy_of->name, ltP_wgmma_row(s), key);
      else if (s->wgmma && k->ws && s->stages > 1)
        ltE_line(e, "/* %s%s: rows of 16-byte chunks, chunk c of row r stored at c ^ %s: the TMA copies write wgmma's "
                    "%d-byte swizzle%s */", s->name, ring_of, key, ltP_wgmma_row(s),
                 *panels ? ltU_fmt(", a box per panel of %d columns", pc) : "");
      else if (s->wgmma)
        ltE_line(e, "/* %s%s: rows of 16-byte chunks, chunk c of row r stored at c ^ %s: ldmatrix reads it without "
                    "conflicts, and wgmma through a descriptor (its %d-byte swizzle)%s */", s->name, ring_of, key,
                 ltP_wgmma_row(s), *panels ? ltU_fmt(", in panels of %d columns", pc) : "");
      else
        ltE_line(e, "/* %s%s: rows of 16-byte chunks, chunk c of row r stored at c ^ %s, so ldmatrix is "
                    "conflict-free */", s->name, ring_of, key);
    }
    if (k->smem_dynamic)
      ltE_line(e, "%s (*%s)%s = (%s (*)%s)(lt_smem + %d);", ty, s->name, rest, ty, rest, s->smem_offset);
    else if (ltE_gpu(e) && s->scratch)
      ltE_line(e, "__shared__ %s %s[%d][%d];", ty, s->name, s->shape[0], s->shape[1]);
    else if (ltE_gpu(e))
      ltE_line(e, "__shared__ __attribute__((aligned(%d))) %s %s%s%s[%d][%d];", s->wgmma ? align : 16, ty, s->name,
               ring, panels, s->shape[0], pc);
    else {
      long long bytes = ltI_shared_bytes(s);
      long long at = ltE_c_scratch(e, bytes);
      if (at < 0) ltE_line(e, "%s %s%s[%d][%d];", ty, s->name, ring, s->shape[0], s->shape[1]);
      else {
        const char *dims = s->stages > 1 ? ltU_fmt("[%d][%d]", s->shape[0], s->shape[1]) : ltU_fmt("[%d]", s->shape[1]);
        ltE_line(e, "%s (*%s)%s = (%s (*)%s)(lt_scratch + %lld);   /* %lld bytes: in the launcher's scratch memory */",
                 ty, s->name, dims, ty, dims, at, bytes);
      }
    }
  }
  if (k->ws)
    ltE_line(e, "uint64_t *%s_full = (uint64_t *)(lt_smem + %d), *%s_empty = %s_full + %d;   /* the ring's mbarriers */",
             k->ws->var->name, k->mbar_offset, k->ws->var->name, k->ws->var->name, k->ws->stages);
  if (k->ws && k->pre_bytes)
    ltE_line(e, "uint64_t *%s_pre = %s_full + %d;   /* the mbarrier of the copies before the loop */",
             k->ws->var->name, k->ws->var->name, 2 * k->ws->stages);
  if (k->ws && k->pre_reload)
    ltE_line(e, "uint64_t *%s_pre_empty = %s_pre + 1;   /* the consumers are done with what those copies filled */",
             k->ws->var->name, k->ws->var->name);
  if (k->ws && k->queue) {
    const char *v = k->ws->var->name;
    ltE_line(e, "uint64_t *%s_next = %s_full + %d, *%s_next_read = %s_next + 1;   /* the producer hands the consumers "
                "their next program, which they have read */", v, v, 2 * k->ws->stages + !!k->pre_bytes + k->pre_reload,
             v, v);
    ltE_line(e, "int *%s_next_prog = (int *)(%s_next + 2);   /* that program (lt_programs: none left) */", v, v);
  }
  if (k->row_res) resident_rows(e);
}

/* The sentence the comments of kernel k (and of its twins) end in when it
** serves other tuned buckets too (Kernel.serves, pass/share.c), else "". */
const char *ltE_serves_sentence(const Kernel *k) {
  return k->serves ? ltU_fmt(" One config serves the tuned buckets %s: this kernel runs them all.", k->serves) : "";
}

/* Does text name identifier id (a whole word, not a part of a longer
** one)? */
static int names(const char *text, const char *id) {
  size_t n = strlen(id);
  for (const char *p = text; (p = strstr(p, id)) != NULL; p += n)
    if (ltE_word_at(text, p, n)) return 1;
  return 0;
}

/* Kernel e->k, whose parameters are ps[0..n-1]: its signature, the
** thread's coordinates, the shared tiles, the body (with e->split, of its
** split twin, NAME_split_kernel).  The body is printed
** first, aside, so that on the c target the signature knows whether it
** takes the launcher's scratch memory (ltE_c_scratch). */
void ltE_kernel(E *e, Sym **ps, int n) {
  Kernel *k = e->k;
  Buf sig = {0}, body = {0}, *out = e->b;
  e->stack_bytes = e->scratch_bytes = 0;
  e->nissued = 0;
  e->b = &body;
  e->depth++;
  const Layout *l = k->layouts, *acc = ltP_mma_layout(k);
  if (ltE_gpu(e)) {
    if (k->pingpong)
      ltE_line(e, "const int tid = threadIdx.x < %d ? threadIdx.x %% %d : threadIdx.x - %d;   /* ping-pong: threads 0..%d "
                  "of each consumer warpgroup's program, then the producer's */", 2 * k->threads, k->threads, k->threads,
               k->threads - 1);
    else
      ltE_line(e, "const int tid = threadIdx.x;");
    if (acc) thread_coords(e, acc);
    if (l && !l->mma && l->tx && strcmp(l->tx, "tx") == 0) ltE_line(e, "const int tx = tid %% %d;", l->tc);
    if (l && !l->mma && l->ty && strcmp(l->ty, "ty") == 0) ltE_line(e, "const int ty = tid / %d;", l->tc);
    static const char *const axes[] = {"x", "y", "z"};
    for (int i = 0; i < k->ngrid && !k->persistent; i++)   /* (persistent: each program's, sched_warpspec.c) */
      ltE_line(e, "const int %s = blockIdx.%s;", k->grid[i]->name, axes[i]);
  }
  shared_tiles(e);
  e->last_line = 0;
  if (k->ws) ltL_warpspec_body(e);
  else ltE_block(e, &k->body);
  ltL_wgmma_wait(e);
  if (k->bulk_reds && !k->ws)
    ltE_line(e, "lt_tma_store_wait_read<0>();   /* this thread's bulk reduce-adds have read their staging tile */");
  e->depth--;
  e->b = out;
  if (ltE_gpu(e) && k->ws) {   /* one block an SM: setmaxnreg needs the register limit at entry */
    ltU_printf(&sig, "__global__ void __launch_bounds__(%d, 1) %s_kernel(",
               k->threads * (k->pingpong ? 2 : 1) + k->producers, k->name);
    for (int i = 0; i < k->nmaps; i++) ltU_printf(&sig, "const __grid_constant__ CUtensorMap %s, ", k->maps[i].name);
  } else if (ltE_gpu(e)) {
    ltU_printf(&sig, "__global__ void __launch_bounds__(%d) %s%s_kernel(", k->threads, k->name, e->split ? "_split" : "");
  } else {
    ltU_printf(&sig, "static void %s_block(%s", k->name, e->scratch_bytes ? "char *lt_scratch, " : "");
    for (int i = 0; i < k->ngrid; i++) ltU_printf(&sig, "int %s, ", k->grid[i]->name);
  }
  for (int i = 0; i < n; i++) ltU_printf(&sig, "%s%s", i ? ", " : "", ltE_param_decl(e, ps[i], 0));
  if (ltE_gpu(e) && k->splitk) ltU_printf(&sig, ", %s", ltL_splitk_params());
  if (ltE_gpu(e) && k->queue) ltU_put(&sig, ", unsigned *__restrict__ lt_queue");
  ltU_put(&sig, ")");
  const char *srv = e->marked ? LT_SERVES_MARK : ltE_serves_sentence(k);
  if (ltE_gpu(e) && k->pingpong)
    ltE_line(e, "/* One block of %s: two consumer warpgroups of %d threads, each running every other program of the "
                "block (ping-pong), and a producer warpgroup (%d threads); the k:pipelined loop at %s:%d runs "
                "warp-specialized (TMA copies into an mbarrier ring that the two take in turn).%s */", k->name,
             k->threads, k->producers, e->base, k->ws->line, srv);
  else if (ltE_gpu(e) && k->ws)
    ltE_line(e, "/* One block of %s: %d consumer threads and a producer warpgroup (%d threads); the k:pipelined loop "
                "at %s:%d runs warp-specialized (TMA copies into an mbarrier ring).%s */", k->name, k->threads,
             k->producers, e->base, k->ws->line, srv);
  else if (ltE_gpu(e) && e->split)
    ltE_line(e, "/* One block (%d threads) of %s, for rows that start off the 16-byte grid: their chunks move as "
                "whole vectors.%s */", k->threads, k->name, srv);
  else if (ltE_gpu(e)) ltE_line(e, "/* One block (%d threads) of %s.%s */", k->threads, k->name, srv);
  else ltE_line(e, "/* One block of %s: what one GPU block computes, with one thread.%s */", k->name, srv);
  ltE_line(e, "%s", sig.p);
  ltE_line(e, "{");
  if (!ltE_gpu(e)) {   /* a build whose body reads a parameter nowhere (a variant's plain build): C's -Wextra */
    e->depth++;
    for (int i = 0; i < n; i++)
      if (!names(body.n ? body.p : "", ps[i]->name)) ltE_line(e, "(void)%s;   /* not read by this build */", ps[i]->name);
    e->depth--;
  }
  if (body.n) ltU_put(e->b, body.p);
  ltE_line(e, "}");
}
