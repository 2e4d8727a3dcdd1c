/*
** mma.c: the plan of a kernel's gemm: which matrix instruction, how the
** warps split the accumulator, and the accumulator's register layout.
**
** A kernel's k:gemm statements share one warp grid: the warps of the
** block form a warps_m x warps_n grid over each accumulator (an f32
** fragment [BM, BN]), and each warp owns a warp tile [BM / warps_m,
** BN / warps_n] of it, made of instruction tiles.  The accumulator's
** layout (struct Layout in lt.h) is the instruction's result layout, so
** the epilogue (bias, activation, the store) works on the registers where
** the instruction left them:
**
**   mma.sync m16n8k16   lane l holds rows l/4 + 8i, columns 2(l%4) + 8j + {0,1}
**   (and m16n8k8 tf32, the same result layout; and wgmma m64nNk16, whose
**   warpgroup of four warps gives each warp 16 rows in just that layout)
**   MFMA 32x32x8        computed as (B^T A^T)^T, so lane l holds row l%32 + 32i
**                       and columns 4(l/32) + 8j + {0..3}
**   MFMA 16x16x16       likewise: row l%16 + 16i, columns 4(l/16) + 16j + {0..3}
**   (and MFMA 32x32x16 and 16x16x32 fp8 on gfx942, the same result layouts)
**   WMMA 16x16x16       row l/16 + 2i, column l%16 + 16j
**
** (i, j: the thread's register rows and column chunks.)  sm90a takes wgmma
** where every gemm of the kernel fits it (wgmma_fits); its B operand, and
** a shared A, are then read by the tensor cores through descriptors (fp8
** and tf32 too, both operands K-major: wgmma_layout_why; a tf32 A stored
** [K, M] goes from its shared tile into registers, Stmt.a_words, a B
** [K, N] too with the operands swapped, or copied K-major, Stmt.b_t).  f32 operands take
** m16n8k8 tf32 where the gemm says tf32 = true and the target has mma.sync;
** fp8 operands take mma.sync as f16, or MFMA fp8 on FNUZ bytes (Stmt.fnuz),
** where they can (fp8_inst); other f32 operands, and targets without a
** matrix instruction, use plain multiply-adds over the kernel's blocked
** layout (layout.c).  The operands of mma.sync are
** XOR-swizzled in shared memory so ldmatrix reads them without bank
** conflicts.
*/
#include "lt.h"

/* Result tile of one instruction, and the K it consumes. */
static void inst_shape(MmaKind m, int *im, int *in, int *ik) {
  switch (m) {
  case MMA_SYNC:
  case MMA_WGMMA: *im = 16, *in = 8, *ik = 16; break;   /* wgmma: a warp's share of m64nNk16 */
  case MMA_MFMA32: *im = 32, *in = 32, *ik = 8; break;
  case MMA_MFMA16: *im = 16, *in = 16, *ik = 16; break;
  case MMA_WMMA: *im = 16, *in = 16, *ik = 16; break;
  case MMA_TF32: *im = 16, *in = 8, *ik = 8; break;
  default: *im = *in = *ik = 1; break;
  }
}

static const char *inst_name(MmaKind m) {
  static const char *const names[] = {
    [MMA_FMA] = "FMA", [MMA_SYNC] = "mma.sync m16n8k16", [MMA_MFMA32] = "MFMA 32x32x8",
    [MMA_MFMA16] = "MFMA 16x16x16", [MMA_WMMA] = "WMMA 16x16x16", [MMA_TF32] = "mma.sync m16n8k8 tf32",
    [MMA_WGMMA] = "wgmma m64nNk16",
  };
  return names[m];
}

/* The warp grid: the user's, or the one whose warp tiles are squarest
** (ties: more warps along N, so B fragments are shared by fewer warps)
** among those whose warp tiles are whole [gm, gn] instruction tiles, or
** among all where none is (acc_layout then says why): a tile side that is
** not a power of two (BN = 160 over 4 warps: 40 columns a warp) may split
** into whole instruction tiles only along fewer warps. */
static void warp_grid(Kernel *k, int nwarps, int BM, int BN, int gm, int gn, int line) {
  if (k->warps_m) {
    if (k->warps_m * k->warps_n != nwarps)
      ltU_error(line, "gemm warps = {%d, %d} is %d warps, but the block has %d (threads / warp size)", k->warps_m,
                k->warps_n, k->warps_m * k->warps_n, nwarps);
    return;
  }
  for (int whole = 1; whole >= 0; whole--) {
    int best = -1;
    for (int wm = 1; wm <= nwarps; wm *= 2) {
      int wn = nwarps / wm;
      if (BM % wm || BN % wn) continue;
      int tm = BM / wm, tn = BN / wn;
      if (whole && (tm % gm || tn % gn)) continue;
      int score = tm > tn ? tm / tn * 2 + 1 : tn / tm * 2;
      if (best < 0 || score < best) {
        best = score;
        k->warps_m = wm;
        k->warps_n = wn;
      }
    }
    if (best >= 0) return;
  }
  ltU_error(line, "the %d warps cannot split a [%d, %d] accumulator evenly", nwarps, BM, BN);
}

#define MAXGEMM 32

/* A gemm statement and the link that points at it (to insert before it). */
typedef struct Site { Stmt **link; Block *block; } Site;

static int collect(Block *b, Site *out, int n) {
  for (Stmt **link = &b->first; *link; link = &(*link)->next) {
    Stmt *s = *link;
    if (s->kind == S_GEMM) {
      if (n == MAXGEMM) ltU_error(s->line, "more than %d k:gemm statements in one kernel", MAXGEMM);
      out[n++] = (Site){link, b};
    }
    n = collect(&s->body, out, n);
    n = collect(&s->orelse, out, n);
  }
  return n;
}

/* Inserts statement ns before the one at *link. */
static void insert_before(Site *at, Stmt *ns) {
  ns->next = *at->link;
  *at->link = ns;
  at->link = &ns->next;
  ltI_fix_last(at->block);
}

/* The DSL name of a register operand (x or x:cast(...)), or NULL. */
static const char *operand_name(const Expr *v) {
  if (v->kind == E_CAST) v = v->a;
  return v->kind == E_SYM && v->sym->named ? v->sym->name : NULL;
}

/* Can gemm g take its register operand straight from registers?  The
** operand must be laid out as an accumulator of the same instruction with
** whole rows per warp: mma.sync and MFMA results are their A operands
** (mma.sync: two n8 result tiles are one k16 A tile; MFMA, computed as
** (B^T A^T)^T: a lane's 4 result columns are its 4 k of the B' operand).
** WMMA and FMA go through shared memory. */
static int register_feed(const Kernel *k, const Stmt *g, MmaKind m) {
  if (g->trans_a || k->warps_n != 1) return 0;
  if (m != MMA_SYNC && m != MMA_WGMMA && m != MMA_MFMA32 && m != MMA_MFMA16) return 0;   /* tf32: through shared memory */
  for (Layout *l = k->layouts; l; l = l->next)
    if (l->mma && l->rows == g->val->shape[0] && l->cols == g->val->shape[1]) return 1;
  return 0;
}

/* Feeds gemm g's register operand: a register tile (x, or x of
** x:cast(...): the instruction's operands are rounded to the operand type
** as they are packed), a new one holding the value, or a shared tile it is
** stored to first. */
static void feed_operand(Kernel *k, Site *at, MmaKind m) {
  Stmt *g = *at->link;
  Expr *v = g->val;
  const char *nm = operand_name(v);
  if (register_feed(k, g, m)) {
    const Expr *x = v->kind == E_CAST ? v->a : v;   /* packing rounds to the operand type */
    if (x->kind == E_SYM && x->sym->rank == 2) {
      g->areg = x->sym;
    } else {
      Stmt *let = ltI_stmt(S_LET, g->line);
      Sym *r = ltI_sym(k, SYM_LET, v->dt, g->line);
      r->rank = 2;
      r->shape[0] = v->shape[0];
      r->shape[1] = v->shape[1];
      r->def = let;
      r->home = at->block;
      if (nm) r->name = ltU_fmt("%s_%s", nm, ltI_dtypes[v->dt].name);
      let->dst = r;
      let->val = v;
      insert_before(at, let);
      g->areg = r;
    }
  } else {
    Sym *sh = NULL;   /* one staging tile per shape and dtype, shared by the gemms */
    for (int i = 0; i < k->nsyms && !sh; i++) {
      Sym *x = k->syms[i];
      if (x->kind == SYM_SHARED && x->staging && x->dt == v->dt && x->shape[0] == v->shape[0] &&
          x->shape[1] == v->shape[1])
        sh = x;
    }
    if (!sh) {
      sh = ltI_sym(k, SYM_SHARED, v->dt, g->line);
      sh->rank = 2;
      sh->shape[0] = v->shape[0];
      sh->shape[1] = v->shape[1];
      sh->staging = 1;
      if (nm) sh->name = ltU_fmt("%s_sh", nm);
    }
    Stmt *st = ltI_stmt(S_SSTORE, g->line);
    st->shared = sh;
    st->val = v;
    insert_before(at, st);
    g->shared = sh;
  }
  g->val = NULL;
}

/* The layout of accumulator acc (one per accumulator shape). */
static Layout *acc_layout(Kernel *k, const Target *t, Stmt *g, MmaKind m, int swap) {
  Sym *acc = g->dst;
  for (Layout *l = k->layouts; l; l = l->next)
    if (l->rows == acc->shape[0] && l->cols == acc->shape[1]) return l;
  int BM = acc->shape[0], BN = acc->shape[1];
  int BK = g->shared_b->shape[g->trans_b];
  int wtm = BM / k->warps_m, wtn = BN / k->warps_n;
  int im, in, ik;
  inst_shape(m, &im, &in, &ik);
  if (m == MMA_WGMMA) ik = 32 / ltI_dtypes[g->shared_b->dt].bytes;   /* k16 f16, k32 fp8: 32 bytes of K */
  if (g->fnuz) ik *= 2;   /* MFMA fp8: 32x32x16, 16x16x32 (the same result layouts) */
  if (swap) im = 8, in = 16;   /* a warp's share of one n8 chunk of the swapped instruction */
  int need_n = m == MMA_SYNC ? 16 : in;   /* ldmatrix.x4 loads B for two n8 tiles (tf32 loads words) */
  if (BM % k->warps_m || BN % k->warps_n || wtm % im || wtn % need_n)
    ltU_error(g->line, "the warp tile [%d, %d] (accumulator [%d, %d] over %d x %d warps) is not a multiple of "
                       "the %s tile [%d, %d] on %s; change the tile sizes or gemm warps",
              wtm, wtn, BM, BN, k->warps_m, k->warps_n, inst_name(m), im, need_n, t->name);
  if (BK % ik)
    ltU_error(g->line, "the gemm's K tile (%d) is not a multiple of the %s K step (%d) on %s", BK,
              g->fnuz ? (m == MMA_MFMA32 ? "MFMA 32x32x16 fp8" : "MFMA 16x16x32 fp8") : inst_name(m), ik, t->name);
  Layout *l = ltU_alloc(sizeof *l);
  l->rows = BM;
  l->cols = BN;
  l->threads = k->threads;
  l->line = acc->line;
  l->mma = m;
  l->family = 1;
  l->wtm = wtm;
  l->wtn = wtn;
  l->im = im;
  l->in = in;
  switch (m) {
  case MMA_SYNC:
  case MMA_WGMMA:
  case MMA_TF32: l->rstride = 8, l->cstride = 8, l->vec = 2; break;
  case MMA_MFMA32: l->rstride = 32, l->cstride = 8, l->vec = 4; break;
  case MMA_MFMA16: l->rstride = 16, l->cstride = 16, l->vec = 4; break;
  default: l->rstride = 2, l->cstride = 16, l->vec = 1; break;
  }
  l->nr = wtm / l->rstride;
  l->nc = wtn / l->cstride;
  if (m == MMA_WGMMA && wtm > 16 && !swap) l->rgap = 64;   /* several m64 blocks a warpgroup: 16 rows of each a warp */
  if (swap) {   /* a warp: all rows, 16 columns; a thread: pairs of rows, two columns 8 apart (struct Layout) */
    l->swap = 1;
    l->vec = 1;
    l->nr = wtm / 4;
    l->nc = 2;
  }
  Layout **tail = &k->layouts;
  while (*tail) tail = &(*tail)->next;
  *tail = l;
  return l;
}

/* Names each accumulator layout's coordinates.  The first layout's are
** warp_row, warp_col, row0 and col0.  The warps split every accumulator
** the same way (warps_m x warps_n), so an accumulator of other rows has
** other warp rows only where warps_m > 1: it then gets warp_row_R and
** row0_R (R its rows); likewise columns, warp_col_C and col0_C. */
static void name_coords(Kernel *k) {
  const Layout *p = k->layouts;
  for (Layout *l = k->layouts; l; l = l->next) {
    int own_r = k->warps_m > 1 && l->rows != p->rows, own_c = k->warps_n > 1 && l->cols != p->cols;
    l->wrow = own_r ? ltU_fmt("warp_row_%d", l->rows) : "warp_row";
    l->row0 = own_r ? ltU_fmt("row0_%d", l->rows) : "row0";
    l->wcol = own_c ? ltU_fmt("warp_col_%d", l->cols) : "warp_col";
    l->col0 = own_c ? ltU_fmt("col0_%d", l->cols) : "col0";
  }
}

/* The bytes of one row of shared tile sh's swizzle atom as wgmma reads it:
** 32, 64 or 128 (wider rows are stored as 64-column panels of 128 bytes);
** 0 where wgmma cannot read the tile.  The atom is 8 such rows, and the
** tile's own XOR swizzle (chunk c of row r at c ^ (r % 8), ^ (r / 2 % 4),
** ^ (r / 4 % 2) for rows of 8, 4, 2 chunks) is wgmma's 128-, 64- and
** 32-byte swizzle of it. */
int ltP_wgmma_row(const Sym *sh) {
  int bytes = sh->shape[1] * ltI_dtypes[sh->dt].bytes;
  if (sh->shape[0] % 8) return 0;
  return bytes == 32 || bytes == 64 ? bytes : bytes % 128 ? 0 : 128;
}

/* ltP_wgmma_row of the shared tile a register operand v goes through
** where the warps split N (feed_operand: a staging tile of v's shape and
** dtype, in the same swizzle as every shared tile). */
static int staged_row(const Expr *v) {
  Sym t = {0};
  t.dt = v->dt;
  t.rank = 2;
  t.shape[0] = v->shape[0];
  t.shape[1] = v->shape[1];
  return ltP_wgmma_row(&t);
}

/* Does gemm g read a tf32 A stored [K, M] through registers (Stmt.a_words)?
** The instruction's A may come from registers, whose fragment (rows g,
** g + 8 by columns t, t + 4 of a warp's 16 x 8; PTX ISA, wgmma register
** fragments for .tf32) each thread reads word by word from the shared
** tile whatever its order.  With the operands swapped (swap_fits) the
** instruction's A is B^T: registers where B is stored [K, N]. */
static int tf32_a_words(const Stmt *g) { return g->shared && g->trans_a && g->shared_b->dt == DT_F32 && g->tf32; }
/* Does tf32 gemm g with A [K, M] and B [K, N] (tn) take wgmma with B
** copied K-major (Stmt.b_t): both are MN-major, A goes through registers
** (tf32_a_words), and the consumers copy B's [K, N] tile into a [N, K]
** one each iteration, 4 of K a thread at a time, every thread the same
** number (256 threads) - a K tile of one 128-byte swizzle row. */
static int tf32_b_copy(const Stmt *g) {
  const Sym *b = g->shared_b;
  int BK = b->shape[0], BN = b->shape[1];
  return tf32_a_words(g) && !g->trans_b && BK * 4 == 128 && BN % 32 == 0 && BN <= 256 && BN * BK / 4 % 256 == 0;
}

static int tf32_words(const Stmt *g, int swap) {
  return swap ? g->shared && !g->trans_b && g->shared_b->dt == DT_F32 && g->tf32 : tf32_a_words(g);
}

/* Why wgmma cannot take gemm g's fp8 or tf32 operands, or NULL: for
** operands not of 16 bits the instruction has no transpose bits (PTX ISA,
** wgmma.mma_async: imm-trans-a and imm-trans-b are for .f16 and .bf16
** only), so both are read K-major from shared memory by descriptor: A
** [M, K] and B [N, K] (transpose_b), K at least one 32-byte swizzle row;
** but a tf32 A [K, M] from registers (tf32_a_words). */
static const char *wgmma_layout_why(const Stmt *g) {
  if (g->trans_a && !tf32_a_words(g)) return "A is [K, M] (transpose_a): wgmma reads 8-bit operands K-major only";
  if (!g->trans_b && g->trans_a && !tf32_b_copy(g))
    return "A is [K, M] and B [K, N]: a copy of B K-major takes a tile of 32 to 256 columns, a K tile of 128 bytes";
  if (!g->trans_b && !g->trans_a)
    return "B is [K, N]: wgmma reads 8-bit and tf32 B operands K-major only ([N, K], transpose_b = true)";
  if (!g->shared) return "A is a register tile: 8-bit and tf32 wgmma here read A from shared memory";
  if (!ltP_wgmma_row(g->shared) || !ltP_wgmma_row(g->shared_b))
    return "a K tile of other than 32, 64 or a multiple of 128 bytes (wgmma's swizzle rows)";
  return NULL;
}

/* Does wgmma fit gemm g under kernel k's warp grid (sm90a)?  wgmma is an
** instruction of a warpgroup, four consecutive warps: m64nNk16 gives warp
** w % 4 of the group 16 of its 64 rows in the mma.sync result layout.  So
** the warps_m x warps_n grid is read as warpgroups, warps_m / 4 down M and
** warps_n across N, each owning a [BM / (warps_m / 4), BN / warps_n] tile of
** the accumulator: one m64 row block or several (a warp then holds rows
** 16 (w % 4) + 64 i of its group's tile), and N columns a wgmma (8 to 256,
** a multiple of 8).  B comes from shared memory through a descriptor
** (ltP_wgmma_row); so does A where it is a shared tile wgmma can read, or a
** register tile that goes through a staging tile (feed_operand does that
** where the warps split N: each warpgroup stores the columns it holds, all
** read the whole; attention's dK/dV kernels at d256, with a softcap or with
** dQ by atomics); else from registers, which takes a warpgroup of one m64
** block over all of N (the register operand's rows are an accumulator's).  A group's first
** column of a B stored [K, N] starts a swizzle row (64 columns of 128
** bytes, 32 of 64, 16 of 32). */
static int wgmma_fits_one(const Kernel *k, const Stmt *g) {
  const Sym *acc = g->dst, *b = g->shared_b;
  int wgm = k->warps_m / 4, wgn = k->warps_n, BM = acc->shape[0], BN = acc->shape[1];
  if (ltI_dtypes[b->dt].bytes != 2 && wgmma_layout_why(g)) return 0;
  if (tf32_b_copy(g) && k->threads != 256) return 0;   /* (the copy's share a thread) */
  if (k->warps_m % 4 || BM % (64 * wgm) || BN % wgn) return 0;
  int blocks = BM / (64 * wgm), n = BN / wgn, row = ltP_wgmma_row(b);
  if (n % 8 || n > 256 || !row) return 0;
  int a_desc = g->shared && ltP_wgmma_row(g->shared) && !tf32_a_words(g);
  if (!g->shared && wgn > 1) a_desc = staged_row(g->val);   /* staged through shared memory (feed_operand) */
  if ((blocks > 1 || wgn > 1) && !a_desc) return 0;
  if (wgn > 1 && !g->trans_b && n % (row / ltI_dtypes[b->dt].bytes)) return 0;
  return 1;
}

/* Does wgmma fit every gemm of kernel k (sites[0..n-1]) under its warp grid? */
static int wgmma_fits(const Kernel *k, Site *sites, int n) {
  for (int i = 0; i < n; i++)
    if (!wgmma_fits_one(k, *sites[i].link)) return 0;
  return 1;
}

/* The warp grid of wgmma for a kernel that gave none (sm90a): the first
** warpgroup grid, from one group across N up, under which wgmma fits every
** gemm; so each wgmma is as wide along N as the tile allows (B read once
** for more rows of A).  Sets warps_m and warps_n; 0 when none fits. */
static int wgmma_grid(Kernel *k, int nwarps, Site *sites, int n) {
  if (nwarps % 4) return 0;
  int groups = nwarps / 4;
  for (int wgn = 1; wgn <= groups; wgn++) {
    if (groups % wgn) continue;
    k->warps_m = 4 * (groups / wgn);
    k->warps_n = wgn;
    if (wgmma_fits(k, sites, n)) return 1;
  }
  k->warps_m = k->warps_n = 0;
  return 0;
}

/* Does wgmma fit kernel k's one gemm g with its operands swapped (sm90a),
** C^T = B^T A^T, where the tile has too few rows for wgmma's 64 (M <= 64
** buckets: the rows of A padded to 64 filled most of each stage with
** zeros)?  B's tile is then wgmma's A, read by descriptor, each warpgroup
** a 64-column block of it (a swizzle row's start where B is stored
** [K, N]); A's tile wgmma's B, its rows wgmma's N (8 to 256, a
** multiple of 8): K-major where A is stored [M, K], N-major (the
** transpose bit TB, 16-bit operands) where it is stored [K, M] (its
** BM columns, under 64, are one swizzle row: one panel).  The warps
** split the columns, 16 each: BN = 16 x warps.  And where a tf32 B is
** stored [K, N] and A [M, K]: wgmma's A is then B^T from registers
** (tf32_words), for a tile of up to 256 rows. */
static int swap_fits(const Kernel *k, const Stmt *g, int nwarps, int n) {
  const Sym *acc = g->dst, *a = g->shared, *b = g->shared_b;
  int BM = acc->shape[0], BN = acc->shape[1], tf32 = b->dt == DT_F32 && g->tf32;
  if (n != 1 || nwarps % 4 || !a || (ltI_dtypes[b->dt].bytes != 2 && !tf32) || a->dt != b->dt) return 0;
  if (tf32 ? g->trans_a || g->trans_b || BM > 256 : BM >= 64) return 0;   /* tf32: a B [K, N] through registers */
  if (BM % 8 || BN != 16 * nwarps || !ltP_wgmma_row(a) || !ltP_wgmma_row(b)) return 0;
  if (!tf32 && !g->trans_b && 64 % (ltP_wgmma_row(b) / 2)) return 0;
  return !k->warps_m;
}

/* The instruction of a kernel whose gemms take fp8 operands: mma.sync
** with the operands converted to f16 pairs as they are read
** (gemm_mma_sync.c), where the target has it and every gemm reads both
** operands K-major ([M, K] and transpose_b's [N, K]), and on sm90a
** wgmma m64nNk32 on the fp8 bytes where it fits too (ltP_mma); MFMA fp8
** (32x32x16 or 16x16x32 on the bytes, gemm_amd.c) on CDNA3 under the same
** condition; else multiply-adds, converting each to f32 as it is read,
** with the reason left on each gemm for --explain where the target has a
** matrix instruction for other dtypes. */
static MmaKind fp8_inst(const Target *t, Site *sites, int n) {
  int kmajor = 1;
  for (int i = 0; i < n; i++) {
    const Stmt *g = *sites[i].link;
    if (g->trans_a || !g->trans_b || !g->shared) kmajor = 0;
  }
  if ((t->mma == MMA_SYNC || t->mfma_fp8) && kmajor) return t->mma;
  const char *why = NULL;
  if (t->mfma_fp8) why = "MFMA fp8 here reads both operands K-major ([M, K] and [N, K], transpose_b = true)";
  else if (t->mma == MMA_MFMA32) why = ltU_fmt("%s's MFMA has no fp8 operands (CDNA3's has)", t->name);
  else if (t->mma == MMA_WMMA) why = ltU_fmt("%s's WMMA has no fp8 operands", t->name);
  for (int i = 0; i < n; i++) (*sites[i].link)->why_inst = why;
  return MMA_FMA;
}

/* Plans the gemms of kernel k on target t (nothing if k has none): one
** instruction and one warp grid for all, a layout per accumulator shape,
** and the way each register operand reaches the instruction. */
/* How block b (and the blocks inside it) uses shared tile sh: 1 where
** nothing but stores from registers (S_SSTORE) writes it and nothing but
** gemms reads it, with at least one store (*stored), else 0. */
static int register_staged_in(const Block *b, const Sym *sh, int *stored) {
  for (const Stmt *s = b->first; s; s = s->next) {
    if (s->kind == S_SSTORE && s->shared == sh) *stored = 1;
    else if (s->kind != S_GEMM && s->shared == sh) return 0;
    if (!register_staged_in(&s->body, sh, stored) || !register_staged_in(&s->orelse, sh, stored)) return 0;
  }
  return 1;
}

/* Marks as staging tiles (Sym.staging, as feed_operand's) the kernel's
** own shared tiles that registers are stored into and only wgmma reads,
** as a register operand's staging tile is: a tile such as the dK/dV
** kernel's dS^T, written once and read by one gemm as B.  A
** warp-specialized loop's consumers may then write it (plan.c), meeting
** at a barrier of their own. */
static void mark_register_staged(Kernel *k, Site *sites, int n) {
  for (int i = 0; i < n; i++) {
    Stmt *g = *sites[i].link;
    Sym *ops[2] = {g->shared, g->shared_b};
    for (int j = 0; j < 2; j++) {
      int stored = 0;
      if (ops[j] && !ops[j]->staging && ops[j]->stages <= 1 && register_staged_in(&k->body, ops[j], &stored) && stored)
        ops[j]->staging = 1;
    }
  }
}

void ltP_mma(Kernel *k, const Target *t) {
  if (!k->gemm) return;
  Site sites[MAXGEMM];
  int n = collect(&k->body, sites, 0);
  MmaKind m = t->mma;
  int swap = 0;
  if (k->gemm->shared_b->dt == DT_F32) m = k->gemm->tf32 && t->mma == MMA_SYNC ? MMA_TF32 : MMA_FMA;
  if (ltI_is_fp8(k->gemm->shared_b->dt)) m = fp8_inst(t, sites, n);
  if (m != MMA_FMA) {
    Sym *acc = k->gemm->dst;
    int nwarps = k->threads / t->warp;
    const Fp8Format *f8 = ltI_dtypes[k->gemm->shared_b->dt].fp8;
    int wg = (m == MMA_SYNC || m == MMA_TF32) && t->wgmma && (!f8 || f8->wgmma);   /* tf32 and OCP fp8: wgmma_layout_why */
    if (wg && !k->warps_m && wgmma_grid(k, nwarps, sites, n)) m = MMA_WGMMA;
    if (wg && m != MMA_WGMMA && swap_fits(k, k->gemm, nwarps, n)) {   /* the operands swapped: warps across N */
      k->warps_m = 1;
      k->warps_n = nwarps;
      m = MMA_WGMMA;
      swap = 1;
    }
    int gm, gn, gk;   /* the warp tile's granularity: MFMA's 32x32 falls back to 16x16 (below) */
    inst_shape(m == MMA_MFMA32 ? MMA_MFMA16 : m, &gm, &gn, &gk);
    if (m == MMA_SYNC) gn = 16;   /* ldmatrix.x4 loads B for two n8 tiles (acc_layout) */
    warp_grid(k, nwarps, acc->shape[0], acc->shape[1], gm, gn, k->gemm->line);
    if (wg && !swap && wgmma_fits(k, sites, n)) m = MMA_WGMMA;
    for (int i = 0; i < n && m == MMA_MFMA32; i++) {   /* 32x32 only if every warp tile takes it */
      Sym *d = (*sites[i].link)->dst;
      if (d->shape[0] % (32 * k->warps_m) || d->shape[1] % (32 * k->warps_n)) m = MMA_MFMA16;
    }
    for (int i = 0; i < n; i++) {
      Stmt *g = *sites[i].link;
      g->fnuz = (m == MMA_MFMA32 || m == MMA_MFMA16) && ltI_is_fp8(g->shared_b->dt);   /* CDNA3's fp8: FNUZ */
      g->dst->layout = acc_layout(k, t, g, m, swap);
    }
    name_coords(k);
  }
  k->mma = m;
  for (int i = 0; i < n && t->wgmma && m != MMA_WGMMA; i++) {   /* --explain: why an fp8 or tf32 gemm is not wgmma */
    Stmt *g = *sites[i].link;
    int fp8 = ltI_is_fp8(g->shared_b->dt), tf32 = g->shared_b->dt == DT_F32 && g->tf32;
    if (fp8 && !ltI_dtypes[g->shared_b->dt].fp8->wgmma)
      g->why_inst = ltU_fmt("wgmma's 8-bit operands are OCP's e4m3 and e5m2, not %s", ltI_dtypes[g->shared_b->dt].name);
    else if ((fp8 || tf32) && !(g->why_inst = wgmma_layout_why(g)))
      g->why_inst = ltU_fmt("the warp grid %d x %d does not split the accumulator into m64 warpgroup tiles of N "
                            "8 to 256", k->warps_m, k->warps_n);
  }
  for (int i = 0; i < n; i++)
    if ((*sites[i].link)->val) feed_operand(k, &sites[i], m);
  if (m == MMA_SYNC || m == MMA_TF32 || m == MMA_WGMMA)
    for (int i = 0; i < n; i++) {
      Stmt *g = *sites[i].link;
      Sym *ops[2] = {g->shared, g->shared_b};
      for (int j = 0; j < 2; j++)
        if (ops[j] && ops[j]->shape[1] * ltI_dtypes[ops[j]->dt].bytes % 32 == 0) ops[j]->swizzle = 1;   /* groups of 2+ chunks */
      if (m == MMA_WGMMA) g->shared_b->wgmma = 1;
      if (m == MMA_WGMMA && g->shared && ltP_wgmma_row(g->shared)) g->shared->wgmma = 1;   /* A by descriptor too */
      if (m == MMA_WGMMA) g->a_words = tf32_words(g, swap);   /* its tile keeps wgmma's layout: the TMA lands it so */
      if (m == MMA_WGMMA && !swap && tf32_b_copy(g)) {   /* tn: B copied K-major */
        Sym *bt = ltI_sym(k, SYM_SHARED, DT_F32, g->line);
        bt->rank = 2;
        bt->shape[0] = g->shared_b->shape[1];
        bt->shape[1] = g->shared_b->shape[0];
        bt->swizzle = bt->wgmma = 1;
        bt->name = ltU_fmt("%s_t", g->shared_b->name);
        bt->copy_of = g->shared_b;
        g->b_t = bt;
      }
    }
  if (m == MMA_WGMMA) mark_register_staged(k, sites, n);
}

/* wgmma's name of operand type dt (f32: tf32; fp8: Fp8Format.wgmma); its
** K step is 32 bytes. */
const char *ltP_wgmma_type(Dtype dt) {
  if (ltI_is_fp8(dt)) return ltI_dtypes[dt].fp8->wgmma;
  return dt == DT_BF16 ? "bf16" : dt == DT_F32 ? "tf32" : "f16";
}

/* Name of the instruction a layout comes from, for --explain. */
const char *ltP_mma_name(MmaKind m) { return inst_name(m); }
