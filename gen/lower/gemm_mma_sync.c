/*
** gemm_mma_sync.c: a gemm by mma.sync m16n8k16 (NVIDIA sm80+), its
** operands loaded by ldmatrix.
**
** Per 16 of K, each warp loads its A fragments (ldmatrix.x4 from the
** shared tile, or packed from a register tile that is an mma result) and
** its B fragments (ldmatrix.x4, two n8 tiles at a time), then issues one
** mma per 16x8 tile of its warp tile.  fp8 operands (K-major both) are
** read in byte pairs and converted to f16 pairs, exactly, for the f16 mma.  With both operands in shared memory
** and B not too wide (plan.c: Stmt.ldsm_ring), the fragments are double
** buffered: the ldmatrix of the next 16 of K is issued before this one's
** mmas (the "ldmatrix ring", which sched_gemm.c also drives across the
** iterations of a pipelined loop).  The shared tiles are XOR-swizzled
** (pass/mma.c), so the ldmatrix addresses carry the swizzle (ltL_ldsm_at).
*/
#include "emit/emit.h"

/* "k0 + rest", or "rest" when k0 is "0". */
static const char *from_k(const char *k0, const char *rest) {
  return strcmp(k0, "0") ? ltU_fmt("%s + %s", k0, rest) : rest;
}

/* A lane's ldmatrix row address in shared tile sh: row rr, column c0 +
** cl, where the row's part outside the lane is a multiple of 8, c0 one of
** two 16-byte chunks and cl (the lane's chunk, 0 or 1) below that.  Emits
** "const int r = ..." and returns the element.  Inside a loop that made
** its own lane index (e->lane, Stmt.own_lane), the swizzled column is split
** as c0's bits above the swizzle | (c0's swizzle bits ^ the lane's part),
** with the key the lane's (lane % 8): so 16s of K (or n8 pairs) that are
** a swizzle row apart share one address register plus a constant, and the
** loop makes the rest each iteration.  Elsewhere the plain c ^ key form
** (the matmul loop: its 16 x 8192 x 8192 ran 29 against 31 TFLOP/s with
** the split form). */
const char *ltL_ldsm_at(E *e, const Sym *sh, const char *rr, const char *c0, const char *cl) {
  if (!sh->swizzle || !strcmp(e->lane, "lane")) {
    ltE_lane_line(e, "const int r = %s, c = %s;", rr, from_k(c0, cl));
    return ltE_sh_at(e, sh, "r", "c");
  }
  ltE_lane_line(e, "const int r = %s;", rr);
  int mask, rsh, shift;
  ltE_swizzle_of(sh, &mask, &rsh, &shift);
  const char *key = rsh ? ltU_fmt("(lane >> %d & %d)", rsh, mask) : ltU_fmt("(lane & %d)", mask);
  const char *lanes = ltU_fmt("%s ^ %s << %d", cl, key, shift);
  int m = mask << shift;   /* the column bits the swizzle moves */
  const char *c = lanes;
  if (strcmp(c0, "0")) {
    c0 = ltE_paren(c0);
    c = ltU_fmt("(%s & ~%d) | ((%s & %d) ^ (%s))", c0, m, c0, m, lanes);
  }
  return ltE_sh_index(e, sh, "r", c);
}

/* An fp8 operand's fragment register: the two bytes at row rr, column cc
** of shared tile sh (two neighbours along K, so one 16-byte chunk of the
** swizzle), converted exactly to an f16 pair (templates/fp8.h). */
static const char *fp8_pair(E *e, const Sym *sh, const char *rr, const char *cc) {
  return ltU_fmt("lt_f16x2_of_%s(*(const uint16_t *)&%s)", ltI_dtypes[sh->dt].name, ltE_sh_at(e, sh, rr, cc));
}

/* The A fragments of an fp8 shared tile (K-major, [M, K]) for the 16 of K
** from k0, as mma.sync's f16 A: lane l's registers hold rows l/4 (+ 8) and
** columns 2(l%4) + {0, 1} (+ 8), loaded in pairs and converted (no ldmatrix). */
static void fp8_a(E *e, const Stmt *s, const Sym *a, const char *k0, const char *frag) {
  const char *row = ltU_fmt("%s + mi * 16 + (lane >> 2)", s->dst->layout->wrow);
  const char *col = from_k(k0, "(lane & 3) * 2");
  for (int r = 0; r < 4; r++)
    ltE_lane_line(e, "%s[mi][%d] = %s;", frag, r,
                  fp8_pair(e, a, r & 1 ? ltU_fmt("%s + 8", row) : row, r & 2 ? ltU_fmt("%s + 8", col) : col));
}

/* ldmatrix of a warp's A fragments (a shared tile) for the 16 of K from
** k0: into frag[mi] ("As_frag[1]" names one set of a double buffer). */
static void ldsm_a(E *e, const Stmt *s, const Sym *a, int MI, const char *k0, const char *frag) {
  const char *wrow = s->dst->layout->wrow;
  ltE_open_for(e, "mi", MI, 1);
  if (ltI_is_fp8(a->dt)) {
    fp8_a(e, s, a, k0, frag);
  } else if (!s->trans_a) {
    const char *at = ltL_ldsm_at(e, a, ltU_fmt("%s + mi * 16 + (lane & 15)", wrow), k0, "(lane >> 4) * 8");
    ltE_lane_line(e, "lt_ldmatrix_x4(%s[mi], &%s);", frag, at);
  } else {
    const char *at = ltL_ldsm_at(e, a, from_k(k0, "(lane & 7) + (lane >> 4) * 8"), ltU_fmt("%s + mi * 16", wrow),
                                 "(lane >> 3 & 1) * 8");
    ltE_lane_line(e, "lt_ldmatrix_x4_trans(%s[mi], &%s);", frag, at);
  }
  ltE_close_for(e);
}

/* ldmatrix.x4 of two n8 B tiles (ni, ni + 1) for the 16 of K from k0 into
** t[4]; the caller has opened the ni loop (step 2). */
static void ldsm_b_pair(E *e, const Stmt *s, const Sym *b, const char *k0) {
  const char *wcol = s->dst->layout->wcol;
  ltE_line(e, "uint32_t t[4];");
  if (ltI_is_fp8(b->dt)) {   /* K-major [N, K]: lane l's registers hold column l/4 and k 2(l%4) + {0, 1} (+ 8) */
    const char *col = from_k(k0, "(lane & 3) * 2");
    for (int r = 0; r < 4; r++)
      ltE_lane_line(e, "t[%d] = %s;", r,
                    fp8_pair(e, b, ltU_fmt("%s + ni * 8 + %d + (lane >> 2)", wcol, r & 2 ? 8 : 0),
                             r & 1 ? ltU_fmt("%s + 8", col) : col));
  } else if (!s->trans_b) {
    const char *at = ltL_ldsm_at(e, b, from_k(k0, "(lane & 7) + (lane >> 3 & 1) * 8"), ltU_fmt("%s + ni * 8", wcol),
                                 "(lane >> 4) * 8");
    ltE_lane_line(e, "lt_ldmatrix_x4_trans(t, &%s);", at);
  } else {
    const char *at = ltL_ldsm_at(e, b, ltU_fmt("%s + ni * 8 + (lane & 7) + (lane >> 4) * 8", wcol), k0,
                                 "(lane >> 3 & 1) * 8");
    ltE_lane_line(e, "lt_ldmatrix_x4(t, &%s);", at);
  }
}

/* All of a warp's B fragments for the 16 of K from k0, into frag[ni]. */
static void ldsm_b(E *e, const Stmt *s, const Sym *b, int NI, const char *k0, const char *frag) {
  ltE_open_for(e, "ni", NI, 2);
  ldsm_b_pair(e, s, b, k0);
  ltE_line(e, "%s[ni][0] = t[0];", frag);
  ltE_line(e, "%s[ni][1] = t[1];", frag);
  ltE_line(e, "%s[ni + 1][0] = t[2];", frag);
  ltE_line(e, "%s[ni + 1][1] = t[3];", frag);
  ltE_close_for(e);
}

/* One mma (helper fn, lt_mma_16816_bf16 ...) into the accumulator's 16x8
** tile (mi, ni): index i names it. */
void ltL_mma_tile(E *e, const Sym *acc, int NI, const char *fn, const char *afrag, const char *bfrag) {
  ltE_line(e, "float d[4] = {%s[i], %s[i + 1], %s[i + %d], %s[i + %d]};", acc->name, acc->name, acc->name, 2 * NI,
           acc->name, 2 * NI + 1);
  ltE_line(e, "%s(d, %s, %s);", fn, afrag, bfrag);
  ltE_line(e, "%s[i] = d[0];", acc->name);
  ltE_line(e, "%s[i + 1] = d[1];", acc->name);
  ltE_line(e, "%s[i + %d] = d[2];", acc->name, 2 * NI);
  ltE_line(e, "%s[i + %d] = d[3];", acc->name, 2 * NI + 1);
}

/* Does a later gemm of s's block in the double-buffered form declare a
** fragment array of the same name (one of its operands is one of s's)?
** Then s's go in a scope of their own. */
static int ring_names_again(const Stmt *s) {
  for (const Stmt *x = s->next; x; x = x->next)
    if (x->kind == S_GEMM && x->ldsm_ring &&
        (x->shared == s->shared || x->shared == s->shared_b || x->shared_b == s->shared || x->shared_b == s->shared_b))
      return 1;
  return 0;
}

/* The double-buffered form's fragment registers: two sets, one per
** alternate 16 of K. */
void ltL_ring_frags(E *e, const Stmt *s) {
  const Layout *l = s->dst->layout;
  ltE_line(e, "uint32_t %s_frag[2][%d][4], %s_frag[2][%d][2];   /* [16 of K: even, odd] */", s->shared->name,
           l->wtm / 16, s->shared_b->name, l->wtn / 8);
}

/* ldmatrix of the A and B fragments for the 16 of K from k0 into set
** `set` ("0", "cur ^ 1"). */
void ltL_ring_load(E *e, const Stmt *s, const char *k0, const char *set) {
  const Layout *l = s->dst->layout;
  ldsm_a(e, s, s->shared, l->wtm / 16, k0, ltU_fmt("%s_frag[%s]", s->shared->name, set));
  ldsm_b(e, s, s->shared_b, l->wtn / 8, k0, ltU_fmt("%s_frag[%s]", s->shared_b->name, set));
}

/* The mmas of one 16 of K, from fragment set `cur`. */
static void ring_mmas(E *e, const Stmt *s) {
  const Layout *l = s->dst->layout;
  int MI = l->wtm / 16, NI = l->wtn / 8;
  const char *fn = ltU_fmt("lt_mma_16816_%s", s->shared_b->dt == DT_BF16 ? "bf16" : "f16");
  ltE_open_for(e, "mi", MI, 1);
  ltE_open_for(e, "ni", NI, 1);
  ltE_line(e, "const int i = mi * %d + ni * 2;   /* rows 16 mi + {0, 8}, columns 8 ni + {0, 1} */", 4 * NI);
  ltL_mma_tile(e, s->dst, NI, fn, ltU_fmt("%s_frag[cur][mi]", s->shared->name),
               ltU_fmt("%s_frag[cur][ni]", s->shared_b->name));
  ltE_close_for(e);
  ltE_close_for(e);
}

/* One 16 of K of the double-buffered form, inside the kk loop: the
** ldmatrix of the next 16 into the other set, then this one's mmas.  With
** `across` (a condition: there is a next iteration), the last step loads
** the next iteration's first 16 instead. */
void ltL_ring_step(E *e, const Stmt *s, int BK, const char *across) {
  ltE_line(e, "const int cur = kk / 16 %% 2;");
  ltE_line(e, "if (kk + 16 < %d) {   /* the next 16 of K into the other set */", BK);
  e->depth++;
  ltL_ring_load(e, s, "kk + 16", "cur ^ 1");
  e->depth--;
  if (across) {
    ltE_line(e, "} else if (%s) {   /* the next iteration's first 16 of K: its stage is in (below) */", across);
    e->depth++;
    ltL_ring_load(e, s, "0", "cur ^ 1");
    e->depth--;
  }
  ltE_line(e, "}");
  ring_mmas(e, s);
}

/* mma.sync m16n8k16 in the double-buffered form: the ldmatrix of the next
** 16 of K is issued before the mmas of this one, so its latency hides
** behind them (the asm statements keep their order). */
static void gemm_mma_sync_ring(E *e, Stmt *s, int BK) {
  int scoped = ring_names_again(s);
  if (scoped) {
    ltE_line(e, "{");
    e->depth++;
  }
  ltL_ring_frags(e, s);
  ltL_ring_load(e, s, "0", "0");
  ltE_open_for(e, "kk", BK, 16);
  ltL_ring_step(e, s, BK, NULL);
  ltE_close_for(e);
  if (scoped) {
    e->depth--;
    ltE_line(e, "}");
  }
}

/* The warp's A fragments of gemm s for the 16 of K from kk into frag[mi]:
** packed from its register tile, an mma result (two n8 tiles of that are
** one k16 A tile), or by ldmatrix from its shared tile. */
void ltL_a_frags(E *e, const Stmt *s, int MI, const char *ty, const char *frag) {
  const Sym *a = s->shared ? s->shared : s->areg;
  if (!s->areg) {
    ldsm_a(e, s, a, MI, "kk", frag);
    return;
  }
  int nca = a->layout->nc * a->layout->vec;
  ltE_open_for(e, "mi", MI, 1);
  ltE_line(e, "const int i = mi * %d + kk / 4;   /* rows 16 mi + {0, 8}, columns kk + {0, 8} + 2 (lane %% 4) */",
           2 * nca);
  const char *at[4] = {"i", ltU_fmt("i + %d", nca), "i + 2", ltU_fmt("i + %d", nca + 2)};
  for (int r = 0; r < 4; r++)
    ltE_line(e, "%s[mi][%d] = lt_pack_%sx2(%s[%s], %s[%s + 1]);", frag, r, ty, a->name, at[r], a->name, at[r]);
  ltE_close_for(e);
}

/* mma.sync m16n8k16: the warp's A fragments for 16 of K (ldmatrix, or
** packed from a register tile), then one mma per 16x8 instruction tile of
** the warp tile; or the double-buffered form above (Stmt.ldsm_ring). */
void ltL_gemm_mma_sync(E *e, Stmt *s, int BK) {
  const Layout *l = s->dst->layout;
  Sym *a = s->shared ? s->shared : s->areg, *b = s->shared_b, *acc = s->dst;
  int MI = l->wtm / 16, NI = l->wtn / 8;
  /* B: ldmatrix.x4 gives two n8 tiles.  A wide warp tile (over 8 of them)
  ** uses each pair at once rather than holding all of B's registers. */
  int stream = NI > 8;
  if (s->ldsm_ring) {
    gemm_mma_sync_ring(e, s, BK);
    return;
  }
  const char *ty = b->dt == DT_BF16 ? "bf16" : "f16", *fn = ltU_fmt("lt_mma_16816_%s", ty);
  ltE_open_for(e, "kk", BK, 16);
  ltE_line(e, "uint32_t %s_frag[%d][4];", a->name, MI);
  ltL_a_frags(e, s, MI, ty, ltU_fmt("%s_frag", a->name));
  if (!stream) {
    ltE_line(e, "uint32_t %s_frag[%d][2];", b->name, NI);
    ldsm_b(e, s, b, NI, "kk", ltU_fmt("%s_frag", b->name));
    ltE_open_for(e, "mi", MI, 1);
    ltE_open_for(e, "ni", NI, 1);
    ltE_line(e, "const int i = mi * %d + ni * 2;   /* rows 16 mi + {0, 8}, columns 8 ni + {0, 1} */", 4 * NI);
    ltL_mma_tile(e, acc, NI, fn, ltU_fmt("%s_frag[mi]", a->name), ltU_fmt("%s_frag[ni]", b->name));
    ltE_close_for(e);
    ltE_close_for(e);
  } else {
    ltE_open_for(e, "ni", NI, 2);
    ldsm_b_pair(e, s, b, "kk");
    ltE_open_for(e, "mi", MI, 1);
    ltE_open_for(e, "nj", 2, 1);
    ltE_line(e, "const int i = mi * %d + (ni + nj) * 2;   /* rows 16 mi + {0, 8}, columns 8 (ni + nj) + {0, 1} */",
             4 * NI);
    ltE_line(e, "const uint32_t b2[2] = {t[nj * 2], t[nj * 2 + 1]};");
    ltL_mma_tile(e, acc, NI, fn, ltU_fmt("%s_frag[mi]", a->name), "b2");
    ltE_close_for(e);
    ltE_close_for(e);
    ltE_close_for(e);
  }
  ltE_close_for(e);
}
