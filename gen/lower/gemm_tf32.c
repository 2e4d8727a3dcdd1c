/*
** gemm_tf32.c: a gemm of f32 operands by mma.sync m16n8k8 tf32 (NVIDIA
** sm80+, where k:gemm says tf32 = true): the tensor cores take each
** operand rounded to tf32 (10-bit mantissa) and accumulate in f32.
*/
#include "emit/emit.h"

/* mma.sync m16n8k8 tf32, both operands f32 in shared memory: per 8 of K,
** the warp's A fragments (rows g, g + 8 by columns t, t + 4 of each 16x8
** tile; g = lane / 4, t = lane % 4) and B fragments (rows t, t + 4 by
** column g of each 8x8 tile), each word rounded to tf32, then one mma per
** 16x8 tile of the warp tile (PTX ISA, "Matrix Fragments for mma.m16n8k8").
** An operand stored with K contiguous (A [M, K], B [N, K]) comes in by
** ldmatrix: an 8 x 8 b16 matrix is 8 rows of 4 f32, and lane l receives
** word l % 4 of row l / 4, which is the fragment's element; the others
** word by word. */
void ltL_gemm_tf32(E *e, Stmt *s, int BK) {
  const Layout *l = s->dst->layout;
  Sym *a = s->shared, *b = s->shared_b, *acc = s->dst;
  int MI = l->wtm / 16, NI = l->wtn / 8;
  int ldsm_b = s->trans_b && NI % 2 == 0;
  ltE_open_for(e, "kk", BK, 8);
  ltE_line(e, "uint32_t %s_frag[%d][2];", b->name, NI);
  if (ldsm_b) {   /* matrices: columns ni by k 0-3 and k 4-7, then columns ni + 1 */
    ltE_open_for(e, "ni", NI, 2);
    ltE_line(e, "uint32_t t[4];");
    const char *at = ltL_ldsm_at(e, b, ltU_fmt("%s + ni * 8 + (lane & 7) + (lane >> 4) * 8", l->wcol), "kk",
                                 "(lane >> 3 & 1) * 4");
    ltE_lane_line(e, "lt_ldmatrix_x4(t, &%s);", at);
    ltE_line(e, "for (int x = 0; x < 4; ++x) %s_frag[ni + x / 2][x %% 2] = lt_tf32(__uint_as_float(t[x]));", b->name);
  } else {
    ltE_open_for(e, "ni", NI, 1);
    ltE_lane_line(e, "const int r = kk + lane %% 4, c = %s + ni * 8 + lane / 4;", l->wcol);
    ltE_line(e, "%s_frag[ni][0] = lt_tf32(%s);", b->name, ltE_op_at(e, b, s->trans_b, "r", "c"));
    ltE_line(e, "%s_frag[ni][1] = lt_tf32(%s);", b->name, ltE_op_at(e, b, s->trans_b, "r + 4", "c"));
  }
  ltE_close_for(e);
  /* A one 16-row tile at a time, used by its NI mmas at once: fewer live registers */
  ltE_open_for(e, "mi", MI, 1);
  ltE_line(e, "uint32_t %s_frag[4];", a->name);
  if (!s->trans_a) {   /* matrices: rows 0-7 and 8-15 by k 0-3, then by k 4-7 */
    const char *at = ltL_ldsm_at(e, a, ltU_fmt("%s + mi * 16 + (lane & 15)", l->wrow), "kk", "(lane >> 4) * 4");
    ltE_lane_line(e, "lt_ldmatrix_x4(%s_frag, &%s);", a->name, at);
    ltE_line(e, "for (int x = 0; x < 4; ++x) %s_frag[x] = lt_tf32(__uint_as_float(%s_frag[x]));", a->name, a->name);
  } else {
    ltE_lane_line(e, "const int r = %s + mi * 16 + lane / 4, c = kk + lane %% 4;", l->wrow);
    static const char *const ar[4] = {"r", "r + 8", "r", "r + 8"}, *const ac[4] = {"c", "c", "c + 4", "c + 4"};
    for (int i = 0; i < 4; i++) ltE_line(e, "%s_frag[%d] = lt_tf32(%s);", a->name, i, ltE_sh_at(e, a, ac[i], ar[i]));
  }
  ltE_open_for(e, "ni", NI, 1);
  ltE_line(e, "const int i = mi * %d + ni * 2;   /* rows 16 mi + {0, 8}, columns 8 ni + {0, 1} */", 4 * NI);
  ltL_mma_tile(e, acc, NI, "lt_mma_1688_tf32", ltU_fmt("%s_frag", a->name), ltU_fmt("%s_frag[ni]", b->name));
  ltE_close_for(e);
  ltE_close_for(e);
  ltE_close_for(e);
}
