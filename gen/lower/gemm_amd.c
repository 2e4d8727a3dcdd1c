/*
** gemm_amd.c: a gemm by AMD's matrix instructions: MFMA 32x32x8 or
** 16x16x16 (CDNA, wave64) and WMMA 16x16x16 (RDNA3, wave32).
**
** Each lane gathers its elements of the operand tiles from LDS into
** unions of registers (there is no ldmatrix), or takes A from a register
** tile that is itself an MFMA result.  MFMA computes (B^T A^T)^T, so that
** its result registers are the accumulator's in order (pass/mma.c).
** MFMA fp8 (gfx942: 32x32x16, 16x16x32, Stmt.fnuz) takes eight bytes of
** K a lane: the bytes of an FNUZ dtype as they are; those of an OCP one
** mapped to FNUZ as gathered (Fp8Format.remap), the K tile then summed in
** a fresh accumulator that it adds to the gemm's times 4
** (templates/fp8_fnuz.h).
*/
#include "emit/emit.h"

/* Packs n consecutive-k elements of each operand tile into a union per
** tile: name[t].h[x] = element x of this lane's part of tile t, for t in
** 0..tiles-1 (loop variable ti).  ti NULL: one tile, name.h[x], of the
** caller's loop. */
static void gather(E *e, const Sym *sh, int trans, const char *name, int tiles, int n, const char *ti,
                   const char *i_of, const char *k_of) {
  if (ti) ltE_open_for(e, ti, tiles, 1);
  ltE_open_for(e, "x", n, 1);
  ltE_line(e, "%s%s.h[x] = %s;", name, ti ? ltU_fmt("[%s]", ti) : "", ltE_op_at(e, sh, trans, i_of, k_of));
  ltE_close_for(e);
  if (ti) ltE_close_for(e);
}

/* MFMA (wave64) and WMMA (wave32): operands gathered from LDS per lane.
** A WMMA operand is sixteen elements a lane (the lanes' two halves hold
** the same), 8 registers, so a WMMA gemm keeps its k loop rolled and
** gathers one B tile at a time: with every step of K unrolled and all B
** tiles held at once, clang hoisted the loads past the 256 registers
** (gfx1100's dK/dV kernels spilled up to 1152 of them). */
void ltL_gemm_amd(E *e, Stmt *s, int BK) {
  const Layout *l = s->dst->layout;
  Sym *a = s->shared ? s->shared : s->areg, *b = s->shared_b, *acc = s->dst;
  MmaKind m = s->inst;
  int ik = m == MMA_MFMA32 ? 8 : 16, per = m == MMA_WMMA ? 16 : 4;   /* K per instruction, per lane */
  int MI = l->wtm / l->im, NI = l->wtn / l->in, wmma = m == MMA_WMMA;
  const char *st = ltE_stype(e, b->dt), *ty = b->dt == DT_BF16 ? "bf16" : "f16";
  const char *inst = m == MMA_MFMA32 ? "mfma_32x32x8" : m == MMA_MFMA16 ? "mfma_16x16x16" : "wmma_16x16x16";
  const char *sum = acc->name;   /* the registers the instructions add to */
  int nacc = l->nr * l->nc * l->vec;
  const char *remap = s->fnuz ? ltI_dtypes[b->dt].fp8->remap : NULL;   /* OCP bytes to FNUZ */
  if (s->fnuz) {   /* eight bytes a lane */
    ik *= 2, per = 8;
    ty = ltI_dtypes[b->dt].fp8->mfma;
    inst = m == MMA_MFMA32 ? "mfma_32x32x16" : "mfma_16x16x32";
  }
  if (remap) {   /* a fresh sum of the mapped bytes' products */
    sum = ltU_fmt("%s_ktile", acc->name);
    ltE_line(e, "{");
    e->depth++;
    ltE_line(e, "float %s[%d] = {};   /* this K tile's sum on FNUZ bytes: a quarter of the OCP one */", sum, nacc);
  }
  ltE_line(e, wmma ? "#pragma unroll 1" : "#pragma unroll");   /* WMMA's operands come from shared tiles (mma.c) */
  ltE_line(e, "for (int kk = 0; kk < %d; kk += %d) {", BK, ik);
  e->depth++;
  if (wmma)
    ltE_line(e, "union { uint32_t u[%d]; %s h[%d]; } %s_frag[%d], %s_frag;", per / 2, st, per, a->name, MI, b->name);
  else
    ltE_line(e, "union { uint32_t u[%d]; %s h[%d]; } %s_frag[%d], %s_frag[%d];", per * ltI_dtypes[b->dt].bytes / 4, st,
             per, a->name, MI, b->name, NI);
  const char *row, *k;   /* this lane's row of its operand tile, and its first k */
  if (m == MMA_MFMA32) row = "lane % 32", k = ltU_fmt("kk + lane / 32 * %d", per);
  else if (m == MMA_MFMA16) row = "lane % 16", k = ltU_fmt("kk + lane / 16 * %d", per);
  else row = "lane % 16", k = "kk";
  const char *kx = ltU_fmt("%s + x", k);
  if (s->areg) {   /* a's registers are an MFMA result: a lane's 4 columns are its 4 k (mma.c) */
    int nca = a->layout->nc * a->layout->vec;
    ltE_open_for(e, "mi", MI, 1);
    ltE_open_for(e, "x", per, 1);
    ltE_line(e, "%s_frag[mi].h[x] = %s;", a->name,
             ltE_to_storage(e, b->dt, ltU_fmt("%s[mi * %d + kk / %d + x]", a->name, nca, a->layout->cstride / 4)));
    ltE_close_for(e);
    ltE_close_for(e);
  } else {
    gather(e, a, s->trans_a, ltU_fmt("%s_frag", a->name), MI, per, "mi",
           ltU_fmt("%s + mi * %d + %s", l->wrow, l->im, row), kx);
  }
  const char *b_at = ltU_fmt("%s + ni * %d + %s", l->wcol, l->in, row);
  if (wmma) {   /* lane l holds rows 16 mi + 2 v + l / 16 (v = 0..7) of column 16 ni + l % 16 */
    ltE_open_for(e, "ni", NI, 1);
    gather(e, b, !s->trans_b, ltU_fmt("%s_frag", b->name), 1, per, NULL, b_at, kx);
    ltE_open_for(e, "mi", MI, 1);
    ltE_line(e, "float d[8];");
    ltE_line(e, "for (int v = 0; v < 8; ++v) d[v] = %s[(mi * 8 + v) * %d + ni];", acc->name, NI);
    ltE_line(e, "lt_%s_%s(d, %s_frag[mi].u, %s_frag.u);", inst, ty, a->name, b->name);
    ltE_line(e, "for (int v = 0; v < 8; ++v) %s[(mi * 8 + v) * %d + ni] = d[v];", acc->name, NI);
  } else {   /* B^T A^T: the result's registers are the accumulator's, in order */
    gather(e, b, !s->trans_b, ltU_fmt("%s_frag", b->name), NI, per, "ni", b_at, kx);
    if (remap) {   /* OCP bytes to FNUZ (templates/fp8_fnuz.h) */
      const Sym *ops[2] = {a, b};
      for (int j = 0; j < 2; j++) {
        const char *i = j ? "ni" : "mi";
        ltE_open_for(e, i, j ? NI : MI, 1);
        ltE_line(e, "for (int w = 0; w < 2; ++w) %s_frag[%s].u[w] = %s(%s_frag[%s].u[w]);", ops[j]->name, i, remap,
                 ops[j]->name, i);
        ltE_close_for(e);
      }
    }
    ltE_open_for(e, "mi", MI, 1);
    ltE_open_for(e, "ni", NI, 1);
    int regs = l->im * l->in / 64;
    ltE_line(e, "lt_%s_%s(&%s[mi * %d + ni * %d], %s_frag[ni].u, %s_frag[mi].u);", inst, ty, sum, NI * regs, regs,
             b->name, a->name);
  }
  ltE_close_for(e);
  ltE_close_for(e);
  ltE_close_for(e);
  if (remap) {
    ltE_line(e, "for (int v = 0; v < %d; ++v) %s[v] += 4.0f * %s[v];", nacc, acc->name, sum);
    e->depth--;
    ltE_line(e, "}");
  }
}
