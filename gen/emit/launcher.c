/*
** launcher.c: the launcher of a kernel, the extern "C" function a program
** calls.
**
** It checks its arguments (null and misaligned pointers, sizes and
** strides out of range, scalars declared positive) and returns the
** runtime's error code for a bad one; computes the grid in 64 bits and
** checks it against the target's limits; opts the kernel in to more
** shared memory than the default where it needs it (CUDA); and launches
** (--emulate: through the emulator; the c target: a loop over the
** programs).  A variant tuned for several shape buckets has one launcher
** per bucket, static, and dispatch.c's picks among them.
*/
#include "emit/emit.h"

/* The launcher's prototype: int name(params..., void *stream). */
const char *ltE_launcher_proto(const E *e, const char *name, Sym **ps, int n) {
  Buf b = {0};
  ltU_printf(&b, "int %s(", name);
  for (int i = 0; i < n; i++) ltU_printf(&b, "%s, ", ltE_param_decl(e, ps[i], 1));
  ltU_put(&b, "void *stream)");
  return b.p;
}

/* The launcher's checks of its arguments ps[0..n-1]. */
static void check_args(E *e, Sym **ps, int n) {
  const Target *t = e->t;
  Buf nulls = {0}, sizes = {0}, big = {0}, align = {0}, rows = {0}, pos = {0};
  for (int i = 0; i < n; i++) {
    Sym *s = ps[i];
    if (s->kind == SYM_TENSOR) {
      ltU_printf(&nulls, "%s%s == NULL", nulls.n ? " || " : "", s->name);
      if (ltI_dtypes[s->dt].bytes > 1)
        ltU_printf(&align, "%s(uintptr_t)%s %% %d != 0", align.n ? " || " : "", s->name, ltI_dtypes[s->dt].bytes);
    } else if (s->kind == SYM_SIZE) {
      ltU_printf(&sizes, "%s%s <= 0", sizes.n ? " || " : "", s->name);
      ltU_printf(&big, "%s%s > %d", big.n ? " || " : "", s->name, LT_MAX_SIZE);
    } else if (s->kind == SYM_STRIDE) {
      ltU_printf(&sizes, "%s%s < 0", sizes.n ? " || " : "", s->name);
      if (ltE_narrow_stride(e, s)) ltU_printf(&rows, "%s%s > 2147483647", rows.n ? " || " : "", s->name);
    } else if (s->kind == SYM_SCALAR && s->positive) {
      ltU_printf(&pos, "%s!(%s > %s)", pos.n ? " || " : "", s->name, s->dt == DT_F32 ? "0.0f" : "0");
    }
  }
  if (nulls.n) ltE_line(e, "if (%s) return %s;", nulls.p, t->err_invalid);
  if (sizes.n) ltE_line(e, "if (%s) return %s;", sizes.p, t->err_invalid);
  if (big.n)
    ltE_line(e, "if (%s) return %s;   /* sizes below 2^30: the kernel's int index math (a size plus a tile) cannot "
                "overflow */", big.p, t->err_invalid);
  if (rows.n) ltE_line(e, "if (%s) return %s;   /* row strides go to the kernel as int */", rows.p, t->err_invalid);
  if (pos.n) ltE_line(e, "if (%s) return %s;   /* scalars declared positive (NaN fails too) */", pos.p, t->err_invalid);
  if (align.n) ltE_line(e, "if (%s) return %s;", align.p, t->err_misaligned);
}

/* The tensor maps of warp-specialized kernel e->k (parameters ps[0..n-1]),
** encoded here; where one cannot be made, the launcher runs the kernel's
** cp.async twin instead, with the same arguments. */
static void tensor_maps(E *e, Sym **ps, int n) {
  Kernel *k = e->k;
  Buf decl = {0}, args = {0};
  const char *enc[LT_MAXMAPS];
  ltE_line(e, "/* the tensor maps of the TMA copies; where the copy engine cannot take a tensor (its base or a stride "
              "not a multiple of 16 bytes), the cp.async kernel runs instead */");
  e->wide = 1;
  for (int i = 0; i < k->nmaps; i++) {
    const TensorMap *m = &k->maps[i];
    const Sym *t = m->t;
    int r = t->trank;
    Buf dims = {0}, strides = {0}, box = {0};
    for (int j = 0; j < r; j++) {   /* innermost first */
      int d = r - 1 - j;
      e->wide = 0;   /* sizes are ints; strides int64, and their products with sizes too */
      ltU_printf(&dims, "%s(uint64_t)%s", j ? ", " : "", ltE_paren(ltE_itext(e, t->dims[d])));
      e->wide = 1;
      if (j) ltU_printf(&strides, "%s(uint64_t)%s", j > 1 ? ", " : "", ltE_paren(ltE_itext(e, t->strides[d])));
      ltU_printf(&box, "%s%d", j ? ", " : "", m->box[j]);
    }
    ltE_line(e, "const uint64_t %s_dims[%d] = {%s}, %s_strides[%d] = {%s};", m->name, r, dims.p, m->name, r - 1,
             strides.p);
    ltE_line(e, "const uint32_t %s_box[%d] = {%s};", m->name, r, box.p);
    ltU_printf(&decl, "%s%s", i ? ", " : "", m->name);
    enc[i] = ltU_fmt("lt_tma_encode(&%s, %s, %s, %d, %s_dims, %s_strides, %s_box, %d) != 0", m->name, t->name,
                     t->dt == DT_F32 ? "LT_TMA_F32" : t->dt == DT_F16 ? "LT_TMA_F16" : "LT_TMA_BF16", r, m->name,
                     m->name, m->name, m->swizzle);
  }
  e->wide = 0;
  for (int i = 0; i < n; i++) ltU_printf(&args, "%s, ", ps[i]->name);
  ltE_line(e, "CUtensorMap %s;", decl.p);
  for (int i = 0; i < k->nmaps; i++)
    ltE_line(e, "%s%s%s", i ? "    " : "if (", enc[i], i + 1 < k->nmaps ? " ||" : ")");
  ltE_line(e, "  return %s(%sstream);", k->twin->name, args.p);
}

/* The launcher of kernel e->k, whose parameters are ps[0..n-1]. */
void ltE_launcher(E *e, Sym **ps, int n) {
  Kernel *k = e->k;
  const Target *t = e->t;
  ltU_put(e->b, "\n");
  ltE_line(e, "/* Checks the arguments, then runs %s over its grid%s%s. */", k->name, ltE_gpu(e) ? " on `stream`" : "",
           k->bucket ? ltU_fmt(" (the config tuned for %s)", k->bucket) : "");
  if (k->bucket || k->fallback) ltE_line(e, "static %s", ltE_launcher_proto(e, k->name, ps, n));
  else ltE_line(e, "%s%s", ltE_gpu(e) ? "extern \"C\" " : "", ltE_launcher_proto(e, k->name, ps, n));
  ltE_line(e, "{");
  e->depth++;
  if (!ltE_gpu(e)) ltE_line(e, "(void)stream;");
  check_args(e, ps, n);
  static const char *const g[] = {"grid_x", "grid_y", "grid_z"};
  static const long long lim[] = {2147483647LL, 65535, 65535};
  Buf glim = {0};
  for (int i = 0; i < k->ngrid; i++) {
    e->wide = 1;   /* a product of tile counts can pass 2^31 */
    ltE_line(e, "const int64_t %s = %s;", g[i], ltE_itext(e, k->grid[i]->extent));
    e->wide = 0;
    ltU_printf(&glim, "%s%s > %lld", glim.n ? " || " : "", g[i], ltE_gpu(e) ? lim[i] : 2147483647LL);
  }
  ltE_line(e, "if (%s) return %s;", glim.p, t->err_config);
  Buf args = {0};
  for (int i = 0; k->ws && i < k->nmaps; i++) ltU_printf(&args, "%s, ", k->maps[i].name);
  for (int i = 0; i < n; i++) {
    Sym *s = ps[i];
    if (s->kind == SYM_TENSOR)
      ltU_printf(&args, "%s(%s%s *)%s", i ? ", " : "", s->stored ? "" : "const ", ltE_stype(e, s->dt), s->name);
    else
      ltU_printf(&args, "%s%s%s", i ? ", " : "", ltE_narrow_stride(e, s) ? "(int)" : "", s->name);
  }
  if (ltE_gpu(e)) {
    if (k->ws) tensor_maps(e, ps, n);
    ltE_line(e, "const dim3 grid((unsigned)grid_x, %s, %s);", k->ngrid > 1 ? "(unsigned)grid_y" : "1",
             k->ngrid > 2 ? "(unsigned)grid_z" : "1");
    int dyn = k->smem_dynamic ? k->smem_bytes : 0;
    if (dyn > t->smem_static && t->lang == LANG_CUDA) {
      ltE_line(e, "/* %d bytes of shared memory: over the default 48 KB, so the kernel opts in */", dyn);
      ltE_line(e, "const cudaError_t err = cudaFuncSetAttribute(%s_kernel, "
                  "cudaFuncAttributeMaxDynamicSharedMemorySize, %d);", k->name, dyn);
      ltE_line(e, "if (err != cudaSuccess) return (int)err;");
    }
    int block = k->threads + (k->ws ? k->producers : 0);
    if (e->emu) {
      ltE_line(e, "return lt_emu_launch(%s_kernel, grid, dim3(%d), %d, stream, %s);", k->name, block, dyn, args.p);
    } else {
      ltE_line(e, "%s_kernel<<<grid, dim3(%d), %d, (%s)stream>>>(%s);", k->name, block, dyn,
               t->lang == LANG_CUDA ? "cudaStream_t" : "hipStream_t", args.p);
      ltE_line(e, "return (int)%s;", t->err_last);
    }
  } else {
    for (int i = k->ngrid - 1; i >= 0; i--) {
      ltE_line(e, "for (int %s = 0; %s < %s; ++%s)", k->grid[i]->name, k->grid[i]->name, g[i], k->grid[i]->name);
      e->depth++;
    }
    Buf pids = {0};
    for (int i = 0; i < k->ngrid; i++) ltU_printf(&pids, "%s, ", k->grid[i]->name);
    ltE_line(e, "%s_block(%s%s);", k->name, pids.p, args.p);
    e->depth -= k->ngrid;
    ltE_line(e, "return 0;");
  }
  e->depth--;
  ltE_line(e, "}");
}
