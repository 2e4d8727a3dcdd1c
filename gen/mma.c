/*
** mma.c: the plan of a kernel's gemm: which matrix instruction, how the
** warps split the accumulator, and the accumulator's register layout.
**
** A kernel's k:gemm statements share one accumulator (an f32 fragment
** [BM, BN]).  The warps of the block form a warps_m x warps_n grid over it;
** each warp owns a warp tile [BM / warps_m, BN / warps_n] made of
** instruction tiles.  The accumulator's layout (struct Layout in lt.h) is
** the instruction's result layout, so the epilogue (bias, activation, the
** store) works on the registers where the instruction left them:
**
**   mma.sync m16n8k16   lane l holds rows l/4 + 8i, columns 2(l%4) + 8j + {0,1}
**   MFMA 32x32x8        computed as (B^T A^T)^T, so lane l holds row l%32 + 32i
**                       and columns 4(l/32) + 8j + {0..3}
**   MFMA 16x16x16       likewise: row l%16 + 16i, columns 4(l/16) + 16j + {0..3}
**   WMMA 16x16x16       row l/16 + 2i, column l%16 + 16j
**
** (i, j: the thread's register rows and column chunks.)  f32 operands, and
** targets without a matrix instruction, use plain multiply-adds over the
** kernel's blocked layout (layout.c).  The operands of mma.sync are
** XOR-swizzled in shared memory so ldmatrix reads them without bank
** conflicts.
*/
#include "lt.h"

/* Result tile of one instruction, and the K it consumes. */
static void inst_shape(MmaKind m, int *im, int *in, int *ik) {
  switch (m) {
  case MMA_SYNC: *im = 16, *in = 8, *ik = 16; break;
  case MMA_MFMA32: *im = 32, *in = 32, *ik = 8; break;
  case MMA_MFMA16: *im = 16, *in = 16, *ik = 16; break;
  case MMA_WMMA: *im = 16, *in = 16, *ik = 16; break;
  default: *im = *in = *ik = 1; break;
  }
}

static const char *inst_name(MmaKind m) {
  static const char *const names[] = {
    [MMA_FMA] = "FMA", [MMA_SYNC] = "mma.sync m16n8k16", [MMA_MFMA32] = "MFMA 32x32x8",
    [MMA_MFMA16] = "MFMA 16x16x16", [MMA_WMMA] = "WMMA 16x16x16",
  };
  return names[m];
}

/* The warp grid: the user's, or the one whose warp tiles are squarest
** (ties: more warps along N, so B fragments are shared by fewer warps). */
static void warp_grid(Kernel *k, int nwarps, int BM, int BN, int line) {
  if (k->warps_m) {
    if (k->warps_m * k->warps_n != nwarps)
      ltU_error(line, "gemm warps = {%d, %d} is %d warps, but the block has %d (threads / warp size)", k->warps_m,
                k->warps_n, k->warps_m * k->warps_n, nwarps);
    return;
  }
  int best = -1;
  for (int wm = 1; wm <= nwarps; wm *= 2) {
    int wn = nwarps / wm;
    if (BM % wm || BN % wn) continue;
    int tm = BM / wm, tn = BN / wn;
    int score = tm > tn ? tm / tn * 2 + 1 : tn / tm * 2;
    if (best < 0 || score < best) {
      best = score;
      k->warps_m = wm;
      k->warps_n = wn;
    }
  }
  if (best < 0) ltU_error(line, "the %d warps cannot split a [%d, %d] accumulator evenly", nwarps, BM, BN);
}

/* Plans the gemm of kernel k on target t (nothing if k has none). */
void ltP_mma(Kernel *k, const Target *t) {
  Stmt *g = k->gemm;
  if (!g) return;
  Sym *a = g->shared, *acc = g->dst;
  int BM = acc->shape[0], BN = acc->shape[1], BK = a->shape[!g->trans_a];
  MmaKind m = a->dt == DT_F32 ? MMA_FMA : t->mma;
  if (m == MMA_FMA) return;   /* the blocked layout of layout.c */
  int nwarps = k->threads / t->warp;
  warp_grid(k, nwarps, BM, BN, g->line);
  int wtm = BM / k->warps_m, wtn = BN / k->warps_n;
  if (m == MMA_MFMA32 && (wtm % 32 || wtn % 32)) m = MMA_MFMA16;
  int im, in, ik;
  inst_shape(m, &im, &in, &ik);
  int need_n = m == MMA_SYNC ? 16 : in;   /* ldmatrix.x4 loads B for two n8 tiles */
  if (wtm % im || wtn % need_n)
    ltU_error(g->line, "the warp tile [%d, %d] (accumulator [%d, %d] over %d x %d warps) is not a multiple of "
                       "the %s tile [%d, %d] on %s; change the tile sizes or gemm warps",
              wtm, wtn, BM, BN, k->warps_m, k->warps_n, inst_name(m), im, need_n, t->name);
  if (BK % ik)
    ltU_error(g->line, "the gemm's K tile (%d) is not a multiple of the %s K step (%d) on %s", BK, inst_name(m), ik,
              t->name);
  Layout *l = ltU_alloc(sizeof *l);
  l->rows = BM;
  l->cols = BN;
  l->threads = k->threads;
  l->line = acc->line;
  l->mma = m;
  l->wtm = wtm;
  l->wtn = wtn;
  l->im = im;
  l->in = in;
  switch (m) {
  case MMA_SYNC: l->rstride = 8, l->cstride = 8, l->vec = 2; break;
  case MMA_MFMA32: l->rstride = 32, l->cstride = 8, l->vec = 4; break;
  case MMA_MFMA16: l->rstride = 16, l->cstride = 16, l->vec = 4; break;
  default: l->rstride = 2, l->cstride = 16, l->vec = 1; break;
  }
  l->nr = wtm / l->rstride;
  l->nc = wtn / l->cstride;
  k->layouts = l;
  if (m == MMA_SYNC) {
    Sym *ops[2] = {a, g->shared_b};
    for (int i = 0; i < 2; i++)
      if (ops[i]->shape[1] * ltI_dtypes[ops[i]->dt].bytes >= 32) ops[i]->swizzle = 1;
  }
}

/* Name of the instruction a layout comes from, for --explain. */
const char *ltP_mma_name(MmaKind m) { return inst_name(m); }
