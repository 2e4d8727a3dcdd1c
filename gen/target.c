/*
** target.c: one Target table per target, filled with designated
** initializers.  Everything the passes and the emitter need to know about a
** target is here: lanes per warp, shared-memory limits, the widest global
** access, type names, conversions, math functions, the shuffle, the barrier
** and the runtime's error codes.  The file prologues are text in
** templates/ (embedded into gen at build time).
*/
#include <string.h>

#include "lt.h"

#define F32_MATH(exp2, rsqrt)                                                   \
  {[U_EXP] = "expf", [U_EXP2] = exp2, [U_LOG] = "logf", [U_SQRT] = "sqrtf", \
   [U_RSQRT] = rsqrt, [U_TANH] = "tanhf", [U_ERF] = "erff", [U_ABS] = "fabsf",      \
   [U_SIN] = "sinf", [U_COS] = "cosf", [U_FLOOR] = "floorf"}

#define CUDA_COMMON                                                              \
  .lang = LANG_CUDA, .ext = ".cu", .warp = 32, .max_threads = 1024,              \
  .smem_static = 48 * 1024, .vec_bytes = 16,                                     \
  .type_names = {[DT_F32] = "float", [DT_F16] = "__half", [DT_BF16] = "__nv_bfloat16", \
                 [DT_I32] = "int", [DT_I64] = "int64_t", [DT_U32] = "uint32_t", [DT_BOOL] = "bool"},                          \
  .to_f32 = {[DT_F32] = "%s", [DT_F16] = "__half2float(%s)",                     \
             [DT_BF16] = "__bfloat162float(%s)", [DT_I32] = "%s", [DT_I64] = "%s", [DT_U32] = "%s", [DT_BOOL] = "%s"}, \
  .from_f32 = {[DT_F32] = "%s", [DT_F16] = "__float2half_rn(%s)",                \
               [DT_BF16] = "__float2bfloat16_rn(%s)", [DT_I32] = "%s", [DT_I64] = "%s", [DT_U32] = "%s", [DT_BOOL] = "%s"}, \
  .shfl_xor = "__shfl_xor_sync(0xffffffffu, %s, %d)", .barrier = "__syncthreads();", \
  .unop_f32 = F32_MATH("lt_exp2", "rsqrtf"),                                     \
  .err_invalid = "cudaErrorInvalidValue", .err_misaligned = "cudaErrorMisalignedAddress", \
  .err_config = "cudaErrorInvalidConfiguration", .err_last = "cudaGetLastError()"

#define HIP_COMMON                                                               \
  .lang = LANG_HIP, .ext = ".hip", .max_threads = 1024, .int_row_strides = 1,    \
  .smem_static = 64 * 1024, .smem_max = 64 * 1024, .vec_bytes = 16,              \
  .type_names = {[DT_F32] = "float", [DT_F16] = "_Float16", [DT_BF16] = "lt_bf16", \
                 [DT_I32] = "int", [DT_I64] = "int64_t", [DT_U32] = "uint32_t", [DT_BOOL] = "bool"},                          \
  .to_f32 = {[DT_F32] = "%s", [DT_F16] = "(float)%s",                            \
             [DT_BF16] = "lt_bf16_to_f32(%s)", [DT_I32] = "%s", [DT_I64] = "%s", [DT_U32] = "%s", [DT_BOOL] = "%s"}, \
  .from_f32 = {[DT_F32] = "%s", [DT_F16] = "(_Float16)(%s)",                     \
               [DT_BF16] = "lt_f32_to_bf16(%s)", [DT_I32] = "%s", [DT_I64] = "%s", [DT_U32] = "%s", [DT_BOOL] = "%s"}, \
  .shfl_xor = "__shfl_xor(%s, %d)", .barrier = "lt_syncthreads();",               \
  .unop_f32 = F32_MATH("lt_exp2", "rsqrtf"),                                     \
  .err_invalid = "hipErrorInvalidValue", .err_misaligned = "hipErrorInvalidValue", \
  .err_config = "hipErrorInvalidConfiguration", .err_last = "hipGetLastError()"

static const Target sm80 = {
  CUDA_COMMON,
  .name = "sm80", .arch = "sm_80", .smem_max = 163 * 1024, .mma = MMA_SYNC, .async_copy = 1,
  .desc = "NVIDIA Ampere and later (sm_80..sm_90): mma.sync, cp.async",
  .build_hint = "nvcc -O3 -arch=sm_80 -c",
};

static const Target sm90a = {
  CUDA_COMMON,
  .name = "sm90a", .arch = "sm_90a", .smem_max = 227 * 1024, .mma = MMA_SYNC, .async_copy = 1, .wgmma = 1,
  .tma = 1, .warpspec = 1, .persistent = 1, .regs = 64 * 1024,
  .desc = "NVIDIA Hopper (sm_90a): wgmma where the gemms fit it, else mma.sync; TMA and warp specialization "
          "where a pipelined loop's copies and gemms take them, else cp.async",
  .build_hint = "nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -c",
};

static const Target gfx90a = {
  HIP_COMMON,
  .name = "gfx90a", .arch = "gfx90a", .warp = 64, .mma = MMA_MFMA32, .reg_prefetch = 1,
  .desc = "AMD CDNA2 (MI200), wave64: MFMA",
  .build_hint = "hipcc -O3 --offload-arch=gfx90a -c",
};

static const Target gfx942 = {
  HIP_COMMON,
  .name = "gfx942", .arch = "gfx942", .warp = 64, .mma = MMA_MFMA32, .reg_prefetch = 1, .mfma_fp8 = 1,
  .desc = "AMD CDNA3 (MI300), wave64: MFMA",
  .build_hint = "hipcc -O3 --offload-arch=gfx942 -c",
};

static const Target gfx1100 = {
  HIP_COMMON,
  .name = "gfx1100", .arch = "gfx1100", .warp = 32, .mma = MMA_WMMA,
  .desc = "AMD RDNA3, wave32: WMMA",
  .build_hint = "hipcc -O3 --offload-arch=gfx1100 -c",
};

static const Target c = {
  .name = "c", .lang = LANG_C, .ext = ".c", .arch = "c11",
  .desc = "portable C11 on the CPU: one thread per block, blocks run in turn",
  .build_hint = "cc -O2 -std=c11 -c",
  .warp = 1, .max_threads = 1, .mma = MMA_FMA, .smem_static = 1 << 30, .smem_max = 1 << 30, .vec_bytes = 0,
  .type_names = {[DT_F32] = "float", [DT_F16] = "lt_f16", [DT_BF16] = "lt_bf16",
                 [DT_I32] = "int", [DT_I64] = "int64_t", [DT_U32] = "uint32_t", [DT_BOOL] = "bool"},
  .to_f32 = {[DT_F32] = "%s", [DT_F16] = "lt_f16_to_f32(%s)", [DT_BF16] = "lt_bf16_to_f32(%s)",
             [DT_I32] = "%s", [DT_I64] = "%s", [DT_U32] = "%s", [DT_BOOL] = "%s"},
  .from_f32 = {[DT_F32] = "%s", [DT_F16] = "lt_f32_to_f16(%s)", [DT_BF16] = "lt_f32_to_bf16(%s)",
               [DT_I32] = "%s", [DT_I64] = "%s", [DT_U32] = "%s", [DT_BOOL] = "%s"},
  .unop_f32 = F32_MATH("exp2f", "lt_rsqrtf"),
  .err_invalid = "1", .err_misaligned = "1", .err_config = "1", .err_last = "0",
};

const Target *const ltT_all[] = {&sm80, &sm90a, &gfx90a, &gfx942, &gfx1100, &c, NULL};

/* The target called name, or NULL. */
const Target *ltT_find(const char *name) {
  for (int i = 0; ltT_all[i]; i++)
    if (strcmp(ltT_all[i]->name, name) == 0) return ltT_all[i];
  return NULL;
}

/* One wgmma helper, lt_wgmma_m64n<N>k<K>_<ty>[_ss]: d += A @ B for the
** warpgroup's m64nNkK (K: 32 bytes of operands), A from registers, or
** (ss) by descriptor too.  The accumulator registers are listed in
** wgmma's order (column chunk j: row l/4, then l/4 + 8), which is d's
** mma.sync order [row half][chunk][2] read by chunk; `swap` (_ss_t, the
** operands swapped, mma.c): d[4 j + 2 v + h] for chunk j, pair element v,
** row half h, so that d's order is the tile's [row][column] (struct Layout);
** _t where A comes from registers (tf32: B^T).
** Operands not of 16 bits have no transpose bits (PTX ISA): both K-major,
** no TA, TB (tf32 A from registers: any order, the threads read it). */
static const char *wgmma_helper(int N, Dtype dt, int ss, int swap) {
  Buf b = {0};
  const char *ty = ltP_wgmma_type(dt);
  int nd = N / 2, na = ss ? 1 : 4, K = 32 / ltI_dtypes[dt].bytes, tr = ltI_dtypes[dt].bytes == 2;
  ltU_printf(&b, "\n/* d = A @ B + (scale_d ? d : 0): one m64n%dk%d wgmma of the warpgroup, %s operands, A %s; %s */\n", N,
             K, ty, ss ? "by descriptor" : "from registers",
             tr ? "TA, TB: A stored M-major, B N-major." : "both stored K-major (no transpose for these types).");
  if (swap)
    ltU_printf(&b, "/* The operands swapped (C^T = B^T A^T): d holds C's tile by its rows, wgmma's columns. */\n");
  if (ss)
    ltU_printf(&b, "%sLT_FN void lt_wgmma_m64n%dk%d_%s_ss%s(float (&d)[%d], uint64_t a, uint64_t b, int scale_d) {\n",
               tr ? "template <int TA, int TB> " : "", N, K, ty, swap ? "_t" : "", nd);
  else
    ltU_printf(&b, "%sLT_FN void lt_wgmma_m64n%dk%d_%s%s(float (&d)[%d], const uint32_t a[4], uint64_t b, "
               "int scale_d) {\n", tr ? "template <int TB> " : "", N, K, ty, swap ? "_t" : "", nd);
  int nin = na + 1 + (ss && tr ? 2 : !ss && tr ? 1 : 0);   /* a, b, the transpose immediates */
  ltU_printf(&b, "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %%%d, 0;\\n\"\n", nd + nin);
  ltU_printf(&b, "               \"wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s.%s {", N, K, ty, ty);
  for (int i = 0; i < nd; i++) ltU_printf(&b, "%s%%%d", i ? ", " : "", i);
  if (ss && tr) ltU_printf(&b, "}, %%%d, %%%d, p, 1, 1, %%%d, %%%d;\\n}\\n\"\n", nd, nd + 1, nd + 2, nd + 3);
  else if (ss) ltU_printf(&b, "}, %%%d, %%%d, p, 1, 1;\\n}\\n\"\n", nd, nd + 1);
  else if (tr)
    ltU_printf(&b, "}, {%%%d, %%%d, %%%d, %%%d}, %%%d, p, 1, 1, %%%d;\\n}\\n\"\n", nd, nd + 1, nd + 2, nd + 3, nd + 4,
               nd + 5);
  else ltU_printf(&b, "}, {%%%d, %%%d, %%%d, %%%d}, %%%d, p, 1, 1;\\n}\\n\"\n", nd, nd + 1, nd + 2, nd + 3, nd + 4);
  ltU_put(&b, "               :");
  for (int j = 0; j < N / 8; j++) {
    int r0 = swap ? 4 * j : 2 * j, r1 = swap ? 4 * j + 1 : N / 4 + 2 * j, v = swap ? 2 : 1;
    ltU_printf(&b, "%s \"+f\"(d[%d]), \"+f\"(d[%d]), \"+f\"(d[%d]), \"+f\"(d[%d])", j ? (j % 2 ? "," : ",\n                ") : "",
               r0, r0 + v, r1, r1 + v);
  }
  if (ss && tr) ltU_put(&b, "\n               : \"l\"(a), \"l\"(b), \"n\"(TA), \"n\"(TB), \"r\"(scale_d));\n}\n");
  else if (ss) ltU_put(&b, "\n               : \"l\"(a), \"l\"(b), \"r\"(scale_d));\n}\n");
  else if (tr) ltU_put(&b, "\n               : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(b), \"n\"(TB), \"r\"(scale_d));\n}\n");
  else ltU_put(&b, "\n               : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(b), \"r\"(scale_d));\n}\n");
  return b.p;
}

/* Adds to b the wgmma helpers the gemms of block bl use, each once (seen:
** a bit per N / 8, by operand type and A's source); `emulate`: as the
** names of the emulator's (templates/emu_cuda.h, lt_emu::Wgmma, whose
** second argument is the type: 0 f16, 1 bf16, 2 e4m3, 3 e5m2, 4 tf32). */
static void wgmma_helpers(Buf *b, const Block *bl, uint64_t seen[DT_COUNT][4], int emulate) {
  for (const Stmt *s = bl->first; s; s = s->next) {
    if (s->kind == S_GEMM && s->dst->layout && s->dst->layout->mma == MMA_WGMMA) {
      Dtype dt = s->shared_b->dt;
      int swap = s->dst->layout->swap, N = swap ? s->dst->layout->rows : s->dst->layout->wtn;
      int ss = s->shared && s->shared->wgmma && !s->a_words, K = 32 / ltI_dtypes[dt].bytes;
      int kind = dt == DT_BF16 ? 1 : dt == DT_FP8E4M3 ? 2 : dt == DT_FP8E5M2 ? 3 : dt == DT_F32 ? 4 : 0;
      const char *ty = ltP_wgmma_type(dt);
      int slot = swap ? 2 + !ss : ss;
      if (!(seen[dt][slot] >> (N / 8) & 1)) {
        if (emulate)
          ltU_printf(b, "#define lt_wgmma_m64n%dk%d_%s%s lt_emu::Wgmma(%d, %d, __FILE__, __LINE__).%s\n", N, K, ty,
                     swap ? (ss ? "_ss_t" : "_t") : ss ? "_ss" : "", N, kind,
                     swap ? (ss ? "sst" : "rkt") : !ss ? (ltI_dtypes[dt].bytes == 2 ? "rs" : "rk")
                          : ltI_dtypes[dt].bytes == 2 ? "ss" : "kk");
        else
          ltU_put(b, wgmma_helper(N, dt, ss, swap));
      }
      seen[dt][slot] |= (uint64_t)1 << (N / 8);
    }
    wgmma_helpers(b, &s->body, seen, emulate);
    wgmma_helpers(b, &s->orelse, seen, emulate);
  }
}

/* Does a load or store of block b (or of the blocks in it) take a cache
** hint (View.cache)? */
static int hinted(const Block *b) {
  for (const Stmt *s = b->first; s; s = s->next)
    if ((s->view && s->view->cache) || hinted(&s->body) || hinted(&s->orelse)) return 1;
  return 0;
}

/* Is expression x, or one inside it, a log, an erf or a GELU plan.c made
** fast (Expr.fast)? */
static void fast_fn_in(Expr *x, void *found) {
  if (!x) return;
  if (x->kind == E_UNARY && (x->op == U_LOG || x->op == U_ERF || x->op == U_GELU) && x->fast) *(int *)found = 1;
  fast_fn_in(x->a, found);
  fast_fn_in(x->b, found);
  fast_fn_in(x->c, found);
}

/* Does block b (or a block in it) take a fast log, erf or GELU (templates/cuda_fast.h)? */
static int fast_fn(Block *b) {
  int found = 0;
  ltI_each_expr(b, fast_fn_in, &found);
  return found;
}

/* Does a load or store of block b (or of the blocks in it) go by 16-byte
** chunks along rows that may not start aligned (View.split, templates/vec.h)? */
static int split(const Block *b) {
  for (const Stmt *s = b->first; s; s = s->next)
    if ((s->view && s->view->split) || split(&s->body) || split(&s->orelse)) return 1;
  return 0;
}

/* Does a statement of block b copy rows that may start off the 16-byte
** grid in cp.async pieces whose smallest is `piece` bytes, 8 or 4
** (View.pieces; templates/cuda_pieces.h, and cuda_pieces4.h beside it for
** 4)? */
static int pieces(const Block *b, int piece) {
  for (const Stmt *s = b->first; s; s = s->next)
    if ((s->kind == S_G2S && s->view && s->view->pieces == piece) || pieces(&s->body, piece) ||
        pieces(&s->orelse, piece))
      return 1;
  return 0;
}

/* Does expression x print a helper of templates/bits.h: i64 and u32
** max, min and abs, a shift through a function, tile.rand? */
static int expr_bits(const Expr *x) {
  if (!x) return 0;
  if (x->dt == DT_I64 || x->dt == DT_U32 || (x->kind == E_BINARY && x->op >= B_SHL)) return 1;
  return expr_bits(x->a) || expr_bits(x->b) || expr_bits(x->c);
}

/* Does a statement of block bl use templates/bits.h? */
static int block_bits(const Block *bl) {
  for (const Stmt *s = bl->first; s; s = s->next)
    if (expr_bits(s->val) || expr_bits(s->other) || block_bits(&s->body) || block_bits(&s->orelse) ||
        (s->view && (expr_bits(s->view->mask) || expr_bits(s->view->origin[0]) || expr_bits(s->view->origin[1]) ||
                     expr_bits(s->view->origin[2]) || expr_bits(s->view->origin[3]) || expr_bits(s->view->rlo) ||
                     expr_bits(s->view->rhi))))
      return 1;
  return 0;
}

/* The fp8 helpers a value of dtype dt needs: FP8_OCP for an OCP fp8
** dtype (templates/fp8.h), FP8_FNUZ for an FNUZ one (templates/
** fp8_fnuz_dtypes.h, which builds on templates/fp8.h), else none. */
enum { FP8_OCP = 1, FP8_FNUZ = 2 };
static int dtype_fp8(Dtype dt) {
  return !ltI_is_fp8(dt) ? 0 : ltI_dtypes[dt].fp8->fnuz ? FP8_FNUZ : FP8_OCP;
}

/* The fp8 helpers expression x and those inside it need (dtype_fp8). */
static int expr_fp8(const Expr *x) {
  if (!x) return 0;
  return dtype_fp8(x->dt) | expr_fp8(x->a) | expr_fp8(x->b) | expr_fp8(x->c);
}

/* The fp8 helpers the statements of block bl (and the blocks in it) need. */
static int block_fp8(const Block *bl) {
  int used = 0;
  for (const Stmt *s = bl->first; s; s = s->next)
    used |= expr_fp8(s->val) | expr_fp8(s->other) | block_fp8(&s->body) | block_fp8(&s->orelse);
  return used;
}

/* The fp8 helpers kernel k needs (FP8_OCP, FP8_FNUZ): those of its fp8
** tensors and shared tiles, and of its casts to fp8 (the only fp8 values
** that are not read from one of those). */
static int kernel_fp8(const Kernel *k) {
  int used = 0;
  for (int i = 0; i < k->nsyms; i++) used |= dtype_fp8(k->syms[i]->dt);
  return used | block_fp8(&k->body);
}

/* Does block bl hold a gemm by MFMA fp8 (Stmt.fnuz: templates/hip_mfma_fp8.h)?
** `remap`: one on OCP bytes, mapped to FNUZ (templates/fp8_fnuz.h). */
static int block_fnuz(const Block *bl, int remap) {
  for (const Stmt *s = bl->first; s; s = s->next)
    if ((s->kind == S_GEMM && s->fnuz && (!remap || ltI_dtypes[s->shared_b->dt].fp8->remap)) ||
        block_fnuz(&s->body, remap) || block_fnuz(&s->orelse, remap))
      return 1;
  return 0;
}

/* The prologue text of a target's language for the kernels ks[0..n-1] of
** one file: the common helpers and the matrix-instruction and cp.async
** helpers any of them uses, the vector-piece helpers where one moves rows
** that may start off the 16-byte grid, the cache-hint helpers where one
** takes a hint, the program counter's where one takes its programs from
** one (Kernel.queue), and the launchers' 64-bit max and min where they print
** them (wide_used).
** With `emulate`, the CPU emulation headers instead (gen --emulate, CUDA
** and HIP targets only), which define every helper. */
const char *ltT_prologue(const Target *t, Kernel *const *ks, int n, int emulate, int wide_used) {
  Buf wg = {0};
  uint64_t seen[DT_COUNT][4] = {{0}};
  const char *bits = "", *fp8 = "", *vec = "", *wide = wide_used ? ltX_wide : "";
  for (int j = 0; j < n; j++) {
    if (block_bits(&ks[j]->body)) bits = ltX_bits;
    if (split(&ks[j]->body)) vec = ltX_vec;
  }
  int fp8_used = 0, mfma_fp8 = 0, remap = 0;
  for (int j = 0; j < n; j++) {
    fp8_used |= kernel_fp8(ks[j]);
    mfma_fp8 |= block_fnuz(&ks[j]->body, 0);
    remap |= block_fnuz(&ks[j]->body, 1);
  }
  if (fp8_used)   /* after the fp8 helpers (LT_FN, the bits of a float): the FNUZ dtypes', the OCP-to-FNUZ map */
    fp8 = ltU_fmt("%s%s%s", ltX_fp8, fp8_used & FP8_FNUZ ? ltX_fp8_fnuz_dtypes : "", remap ? ltX_fp8_fnuz : "");
  if (emulate) {
    for (int j = 0; j < n; j++)
      if (ks[j]->mma == MMA_WGMMA) wgmma_helpers(&wg, &ks[j]->body, seen, 1);
    return ltU_fmt("#define LT_EMU_WARP %d\n%s\n%s%s%s%s%s%s%s", t->warp, ltX_emu, t->lang == LANG_CUDA ? ltX_emu_cuda : ltX_emu_hip,
                   wg.p ? "\n" : "", wg.p ? wg.p : "", bits, fp8, vec, wide);
  }
  /* the helpers some kernel of the file uses */
  const char *cuda = "", *amd = "", *tma = "", *rows = "", *queue = "", *fast = "", *hint = "", *cp = "", *cp4 = "";
  for (int j = 0; j < n; j++) {
    const Kernel *k = ks[j];
    if (k->mma == MMA_SYNC || k->mma == MMA_TF32 || k->mma == MMA_WGMMA) cuda = ltX_cuda_mma;
    if (k->mma == MMA_WGMMA) {
      if (!wg.p) ltU_put(&wg, ltX_cuda_wgmma);
      wgmma_helpers(&wg, &k->body, seen, 0);
    }
    else if (k->mma == MMA_MFMA32 || k->mma == MMA_MFMA16)
      amd = mfma_fp8 ? ltU_fmt("%s%s", ltX_hip_mfma, ltX_hip_mfma_fp8) : ltX_hip_mfma;
    else if (k->mma == MMA_WMMA) amd = ltX_hip_wmma;
    for (int i = 0; i < k->nsyms; i++)   /* a stage ring is filled with cp.async */
      if (k->syms[i]->kind == SYM_SHARED && k->syms[i]->stages > 1 && t->async_copy) cuda = ltX_cuda_mma;
    if (k->row_res && k->row_res_at) cuda = ltX_cuda_mma;   /* the rows' whole copy (pass/resident.c) */
    if (k->ws || k->bulk_reds) tma = ltX_cuda_tma;
    for (int i = 0; i < k->nmaps; i++)
      if (k->maps[i].rows) rows = ltX_cuda_tma_rows;
    if (k->queue) queue = ltX_cuda_queue;
    if (k->ndivs || fast_fn((Block *)&k->body)) fast = ltX_cuda_fast;
    if (hinted(&k->body)) hint = t->lang == LANG_CUDA ? ltX_cuda_hint : t->lang == LANG_HIP ? ltX_hip_hint : "";
  }
  for (int j = 0; j < n && *cuda; j++) {   /* (after cuda_mma.h's cp.async) */
    if (pieces(&ks[j]->body, 8) || pieces(&ks[j]->body, 4)) cp = ltX_cuda_pieces;
    if (pieces(&ks[j]->body, 4)) cp4 = ltX_cuda_pieces4;
  }
  const char *base = t->lang == LANG_CUDA ? ltX_cuda : t->lang == LANG_HIP ? ltX_hip : ltX_c;
  return ltU_fmt("%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s", base, cuda, cp, cp4, wg.p ? wg.p : "", tma, rows, queue, fast, amd, bits,
                 fp8, vec, hint, wide);
}
