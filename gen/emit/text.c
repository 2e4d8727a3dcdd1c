/*
** text.c: the emitter's text helpers.
**
** Output goes out a line at a time (ltE_line) at the current depth.  The
** index text of generated code is built from strings where NULL stands for
** 0, so that ltE_sum(ltE_term("ri", 8), "row0") is "ri * 8 + row0" and a
** loop of one trip leaves no "0 * 8 + " behind.  A shared tile's element
** is its stage of a ring, its swizzled column and its panel (ltE_sh_at); a
** register tile's is the index of the element loops a Ctx has open
** (ltE_open_loops, ltE_reg_index).  Last, expressions print with the
** fewest parentheses C needs (ltE_etext).
*/
#include "emit/emit.h"

#define EMU_BUILD "c++ -std=c++17 -O1 -pthread -c"

/* ------------------------------------------------------------------ */
/* lines and types                                                     */

/* The extension of the file being made: the target's, or --emulate's. */
const char *ltE_src_ext(const E *e) { return e->emu ? LT_EMU_EXT : e->t->ext; }

/* How to compile the file being made. */
const char *ltE_build_hint(const E *e) { return e->emu ? EMU_BUILD : e->t->build_hint; }

/* Is the target a GPU (many threads a block), not the C target? */
int ltE_gpu(const E *e) { return e->t->lang != LANG_C; }

/* One line of text at the current depth. */
static void put_line(E *e, const char *text) {
  ltU_indent(e->b, e->depth);
  ltU_put(e->b, text);
  ltU_put(e->b, "\n");
}

/* One formatted line at the current depth, whatever its length. */
void ltE_line(E *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = ltU_vfmt(fmt, ap);
  va_end(ap);
  put_line(e, text);
}

/* Are the n characters at p, inside text, a whole identifier: no letter,
** digit or '_' just before or just after them? */
int ltE_word_at(const char *text, const char *p, size_t n) {
  int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
  int after = isalnum((unsigned char)p[n]) || p[n] == '_';
  return !before && !after;
}

/* ltE_line for ldmatrix address lines: the word "lane" in them is e->lane,
** a loop's own copy of the lane index where the loop made one. */
void ltE_lane_line(E *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = ltU_vfmt(fmt, ap);
  va_end(ap);
  Buf out = {0};
  for (const char *p = text; *p;) {
    int word = !strncmp(p, "lane", 4) && ltE_word_at(text, p, 4);
    if (word) ltU_put(&out, e->lane), p += 4;
    else ltU_printf(&out, "%c", *p++);
  }
  put_line(e, out.p ? out.p : "");
}

/* s made safe inside a block comment: every "*" "/" pair is split by a
** space, so a kernel's doc or a string value cannot end the comment it
** is printed in (and turn the rest of its text into code). */
const char *ltE_comment_text(const char *s) {
  if (!strstr(s, "*/")) return s;
  Buf b = {0};
  for (; *s; s++) {
    ltU_printf(&b, "%c", *s);
    if (s[0] == '*' && s[1] == '/') ltU_put(&b, " ");
  }
  return b.p;
}

/* The C type a register of dt computes in: f16 and bf16 in float. */
const char *ltE_ctype(Dtype dt) {
  return dt == DT_I32 ? "int" : dt == DT_I64 ? "int64_t" : dt == DT_U32 ? "uint32_t" : dt == DT_BOOL ? "bool" : "float";
}

/* The target's type of dt in memory.  An fp8 dtype is the same byte type
** on every target, named after the dtype (templates/fp8.h,
** templates/fp8_fnuz_dtypes.h), and so are its conversions below. */
const char *ltE_stype(const E *e, Dtype dt) {
  return ltI_is_fp8(dt) ? ltU_fmt("lt_%s", ltI_dtypes[dt].name) : e->t->type_names[dt];
}

/* Text of a value of dt read from storage (converted to the compute type). */
const char *ltE_to_compute(const E *e, Dtype dt, const char *x) {
  return ltI_is_fp8(dt) ? ltU_fmt("lt_%s_to_f32(%s)", ltI_dtypes[dt].name, x) : ltU_fmt(e->t->to_f32[dt], x);
}

/* Text of a compute-type value converted for storage as dt. */
const char *ltE_to_storage(const E *e, Dtype dt, const char *x) {
  return ltI_is_fp8(dt) ? ltU_fmt("lt_f32_to_%s(%s)", ltI_dtypes[dt].name, x) : ltU_fmt(e->t->from_f32[dt], x);
}

/* ------------------------------------------------------------------ */
/* index text: NULL stands for 0                                       */

/* v * mul, with parentheses around a sum; NULL when v is or mul is 0. */
const char *ltE_term(const char *v, int mul) {
  if (!v || mul == 0) return NULL;
  if (mul == 1) return v;
  int simple = !strpbrk(v, "+-");
  return simple ? ltU_fmt("%s * %d", v, mul) : ltU_fmt("(%s) * %d", v, mul);
}

/* a + b, either NULL for 0. */
const char *ltE_sum(const char *a, const char *b) {
  if (!a) return b;
  if (!b) return a;
  return ltU_fmt("%s + %s", a, b);
}

/* s, or "0" for NULL. */
const char *ltE_or0(const char *s) { return s ? s : "0"; }

/* s in parentheses when it holds an operator. */
const char *ltE_paren(const char *s) { return strpbrk(s, "+-*/%&|^<> ?") ? ltU_fmt("(%s)", s) : s; }

/* The swizzle of shared tile sh: 16-byte chunk c of row r is stored at
** chunk c ^ ((r >> rsh) & mask); an element index moves by chunks << shift.
** It swizzles within groups of g chunks, g the largest power of two up to
** 8 that divides the row's chunks (so c ^ key stays in the row: a row of
** 24 chunks is three groups of 8, one of 12 three of 4).  Groups of 8 key
** on r % 8, of 4 on r / 2 % 4, of 2 on r / 4 % 2: eight consecutive rows
** then hit eight different bank groups.  (mma.c swizzles rows of two
** chunks or more a group.) */
void ltE_swizzle_of(const Sym *sh, int *mask, int *rsh, int *shift) {
  int per_chunk = 16 / ltI_dtypes[sh->dt].bytes;
  int chunks = sh->shape[1] / per_chunk;   /* 16-byte chunks per row */
  int g = chunks & -chunks;                /* the power-of-two part of the chunks */
  if (g > 8) g = 8;
  *shift = per_chunk == 16 ? 4 : per_chunk == 8 ? 3 : 2;   /* log2(per_chunk): 1-, 2- or 4-byte elements */
  *mask = g - 1;
  *rsh = g == 8 ? 0 : g == 4 ? 1 : 2;
}

/* Columns of one panel of shared tile sh: a wgmma operand whose rows
** are wider than 128 bytes is stored as panels of 128-byte rows (the
** tile's columns c / 64, each [rows][64]), and so is a TMA store's staging
** tile (a box a panel); other tiles are one panel. */
int ltE_panel_cols(const Sym *sh) {
  int bytes = sh->shape[1] * ltI_dtypes[sh->dt].bytes;
  return (sh->wgmma || sh->tma_out) && bytes > 128 ? 128 / ltI_dtypes[sh->dt].bytes : sh->shape[1];
}

/* Element [r][c] of shared tile sh as stored (c already swizzled), in the
** current stage of a ring; [c / 64][r][c % 64] in a tile of panels. */
const char *ltE_sh_index(const E *e, const Sym *sh, const char *r, const char *c) {
  const char *stage = sh->stages > 1 ? ltU_fmt("[%s]", e->stage) : "";
  int pc = ltE_panel_cols(sh);
  if (pc < sh->shape[1] && !strcmp(c, "0")) return ltU_fmt("%s%s[0][%s][0]", sh->name, stage, r);
  if (pc < sh->shape[1]) {
    c = ltE_paren(c);
    return ltU_fmt("%s%s[%s / %d][%s][%s %% %d]", sh->name, stage, c, pc, r, c, pc);
  }
  return ltU_fmt("%s%s[%s][%s]", sh->name, stage, r, c);
}

/* The element (r, c) of shared tile sh: in the current stage of a ring,
** at the swizzled column of a swizzled tile (mma.c). */
const char *ltE_sh_at(const E *e, const Sym *sh, const char *r, const char *c) {
  r = ltE_or0(r);
  c = ltE_or0(c);
  if (sh->swizzle) {
    int mask, rsh, shift;
    ltE_swizzle_of(sh, &mask, &rsh, &shift);
    const char *key =
        rsh ? ltU_fmt("(%s >> %d & %d)", ltE_paren(r), rsh, mask) : ltU_fmt("(%s & %d)", ltE_paren(r), mask);
    c = ltU_fmt("%s ^ %s << %d", ltE_paren(c), key, shift);
  }
  return ltE_sh_index(e, sh, r, c);
}

/* Element (m, k) of operand a or (k, n) of operand b, by its storage order. */
const char *ltE_op_at(const E *e, const Sym *sh, int trans, const char *i, const char *j) {
  return trans ? ltE_sh_at(e, sh, j, i) : ltE_sh_at(e, sh, i, j);
}

/* Register index of an element of a tile of `shape` inside context c. */
const char *ltE_reg_index(const Ctx *c, const int shape[2]) {
  const Layout *l = c->l;
  int cc = shape[1] == l->cols ? l->nc * l->vec : 1;
  const char *r = shape[0] == l->rows ? ltE_term(c->ri, cc) : NULL;
  const char *col = shape[1] == l->cols ? ltE_sum(ltE_term(c->ci, l->vec), c->vi) : NULL;
  return ltE_or0(ltE_sum(r, col));
}

/* Row, inside the tile, of the context's current element (NULL: 0). */
const char *ltE_tile_row(const Ctx *c) {
  if (c->shape[0] != c->l->rows) return NULL;
  if (c->l->mma && c->l->swap && c->ri)   /* pairs of rows, 8 apart (struct Layout) */
    return ltE_sum(ltU_fmt("%s / 2 * %d + %s %% 2", c->ri, c->l->rstride, c->ri), c->l->row0);
  if (c->l->mma && c->l->rgap && c->ri)
    return ltE_sum(ltU_fmt("%s %% 2 * %d + %s / 2 * %d", c->ri, c->l->rstride, c->ri, c->l->rgap), c->l->row0);
  if (c->l->mma) return ltE_sum(ltE_term(c->ri, c->l->rstride), c->l->row0);
  return ltE_sum(ltE_term(c->ri, c->l->tr), c->l->ty);
}

/* Column, inside the tile, of the context's current element (NULL: 0). */
const char *ltE_tile_col(const Ctx *c) {
  if (c->shape[1] != c->l->cols) return NULL;
  if (c->l->mma) return ltE_sum(ltE_sum(ltE_term(c->ci, c->l->cstride), c->l->col0), c->vi);
  return ltE_sum(ltE_term(ltE_sum(ltE_term(c->ci, c->l->tc), c->l->tx), c->l->vec), c->vi);
}

/* The index of the context's current chunk among its thread's chunks of
** a copy layout: row by row. */
const char *ltE_chunk_index(const Ctx *c) { return ltE_or0(ltE_sum(ltE_term(c->ri, c->l->nc), c->ci)); }

/* ------------------------------------------------------------------ */
/* element loops                                                       */

/* Opens the loops of context c over the thread's elements of a tile of
** `shape` in layout l: its rows (ri), column chunks (ci) and vector lanes
** (vi), those asked for; a loop of one trip is left out, and in a copy
** layout smaller than the block, the threads without a piece skip it all.
** Returns how many blocks it opened (ltE_close_loops). */
int ltE_open_loops(E *e, Ctx *c, const Layout *l, const int shape[2], int rows, int chunks, int lanes) {
  c->l = l;
  c->shape[0] = shape[0];
  c->shape[1] = shape[1];
  if (rows) c->ri = NULL;   /* loops not asked for keep an enclosing loop's index */
  if (chunks) c->ci = NULL;
  if (lanes) c->vi = NULL;
  int n = 0;
  if (rows && l->active && l->active < l->threads) {   /* a copy layout smaller than the block */
    ltE_line(e, "if (tid < %d) {   /* the threads that hold a piece of the [%d, %d] tile */", l->active, l->rows,
             l->cols);
    e->depth++;
    n++;
  }
  struct { int on, count; const char *name; const char **slot; } loops[3] = {
    {rows && shape[0] == l->rows, l->nr, "ri", &c->ri},
    {chunks && shape[1] == l->cols, l->nc, "ci", &c->ci},
    {lanes && shape[1] == l->cols, l->vec, "vi", &c->vi},
  };
  for (int i = 0; i < 3; i++) {
    if (!loops[i].on || loops[i].count == 1) continue;
    if (ltE_gpu(e)) ltE_line(e, "#pragma unroll");
    ltE_line(e, "for (int %s = 0; %s < %d; ++%s) {", loops[i].name, loops[i].name, loops[i].count, loops[i].name);
    *loops[i].slot = loops[i].name;
    e->depth++;
    n++;
  }
  return n;
}

/* Closes n blocks that ltE_open_loops opened. */
void ltE_close_loops(E *e, int n) {
  while (n--) {
    e->depth--;
    ltE_line(e, "}");
  }
}

/* Opens "#pragma unroll / for (int v = 0; v < n; v += step) {". */
void ltE_open_for(E *e, const char *v, int n, int step) {
  if (ltE_gpu(e)) ltE_line(e, "#pragma unroll");
  if (step == 1) ltE_line(e, "for (int %s = 0; %s < %d; ++%s) {", v, v, n, v);
  else ltE_line(e, "for (int %s = 0; %s < %d; %s += %d) {", v, v, n, v, step);
  e->depth++;
}

/* Closes a loop ltE_open_for opened. */
void ltE_close_for(E *e) {
  e->depth--;
  ltE_line(e, "}");
}

/* ------------------------------------------------------------------ */
/* expressions                                                         */

static void expr(E *e, Buf *o, const Expr *x, const Ctx *c);

/* Constant v of type dt: a float in the shortest text that reads back the
** same float, with an f. */
static void const_text(Buf *o, double v, Dtype dt) {
  if (dt == DT_BOOL) ltU_put(o, v ? "true" : "false");
  else if (dt == DT_I32) ltU_printf(o, "%lld", (long long)v);
  else if (dt == DT_U32) ltU_printf(o, "%lluu", (unsigned long long)v);   /* unsigned in every expression it meets */
  else if (dt == DT_I64) ltU_printf(o, fabs(v) > 2147483647.0 ? "%lldLL" : "%lld", (long long)v);
  else if (isinf(v)) ltU_put(o, v < 0 ? "-INFINITY" : "INFINITY");
  else if (isnan(v)) ltU_put(o, "NAN");
  else {
    char buf[64];
    for (int prec = 6; prec <= 9; prec++) {   /* shortest text that round-trips */
      snprintf(buf, sizeof buf, "%.*g", prec, v);
      if ((float)strtod(buf, NULL) == (float)v) break;
    }
    ltU_put(o, buf);
    if (!strpbrk(buf, ".eEn")) ltU_put(o, ".0");
    ltU_put(o, "f");
  }
}

/* Symbol s: its name, and for a tile its element in context c. */
static void sym_text(E *e, Buf *o, const Sym *s, const Ctx *c) {
  if (s->rank == 0) {
    ltU_printf(o, (e->wide && s->kind == SYM_SIZE) || (e->wide_idx && s->dt == DT_I32) ? "(int64_t)%s" : "%s",
               s->name);
    return;
  }
  ltU_printf(o, "%s[%s]", s->name, ltE_reg_index(c, s->shape));
}

/* Does shift x print through a helper (lt_shl_i32, ...; templates/bits.h)?
** A constant count (from 0 to the width less 1, ir.c) shifts in C, but for a
** left shift of a signed value, which C leaves undefined when it overflows;
** a count known only at run time goes to the helpers, which give 0 (or the
** sign, for >> of a signed value) for counts outside 0 to the width less 1. */
static int helper_shift(const Expr *x) {
  if (x->kind != E_BINARY || (x->op != B_SHL && x->op != B_SHR)) return 0;
  return x->b->kind != E_CONST || (x->op == B_SHL && x->dt != DT_U32);
}

/* C precedence of the operator at the top of x (higher binds tighter). */
static int prec(const Expr *x) {
  if (x->kind == E_SELECT) return 1;
  if (x->kind == E_IOTA) return 12;   /* prints as a sum such as ri * 8 + row0 */
  if (x->kind == E_UNARY && (x->op == U_NEG || x->op == U_NOT)) return 14;
  if (x->kind == E_UNARY && x->op == U_BNOT) return 14;
  if (x->kind == E_UNARY && x->op == U_SIGMOID) return 13;   /* 1.0f / (1.0f + expf(-x)) */
  if (x->kind != E_BINARY || x->op == B_MAX || x->op == B_MIN || x->op == B_POW || x->op >= B_RAND ||
      helper_shift(x))
    return 15;
  switch (x->op) {
  case B_SHL: case B_SHR: return 11;
  case B_BAND: return 8;
  case B_BXOR: return 7;
  case B_BOR: return 6;
  case B_MUL: case B_DIV: case B_IDIV: case B_MOD: return 13;
  case B_ADD: case B_SUB: return 12;
  case B_LT: case B_LE: case B_GT: case B_GE: return 10;
  case B_EQ: case B_NE: return 9;
  case B_AND: return 5;
  default: return 4;
  }
}

/* A right shift by a constant k of a tile column plus uniform multiples of
** 2^k (ltI_column_sum) in a copy layout whose vectors are 2^k or more wide,
** printed divided term by term: (tx * 8 + vi + bn * 1024) >> 2 as tx * 2 +
** (vi >> 2) + bn * 256.  Exact (the dropped terms are multiples of 2^k, vi
** below the vector width), and where vi is a constant of an unrolled loop
** the compiler then sees one value for each 2^k lanes (a Philox block
** for four columns: dsl/kernels/bias_dropout_add.lua); the forms are
** ltI_column_sum's.  Likewise such a
** sum & (2^k - 1) is the lane's low bits, vi & (2^k - 1).  Returns 0,
** and prints nothing, for any other shift or mask. */
static int column_shift(E *e, Buf *o, const Expr *x, const Ctx *c) {
  long long k = ltI_shift_bits(x);
  const Expr *sc[4];
  int n;
  if (!k || !c || !c->l || c->l->mma || c->shape[1] != c->l->cols || c->l->vec % (1 << k) ||
      !ltI_column_sum(x->a, c->shape[1], k, sc, &n))
    return 0;
  if (x->op == B_BAND) {   /* the lane's low bits */
    ltU_put(o, c->vi && c->l->vec > 1 ? ltU_fmt("%s & %lld", c->vi, (1LL << k) - 1) : "0");
    return 1;
  }
  const char *t = ltE_term(ltE_sum(ltE_term(c->ci, c->l->tc), c->l->tx), c->l->vec >> k);
  t = ltE_sum(t, c->vi && c->l->vec > 1 ? ltU_fmt("(%s >> %lld)", c->vi, k) : NULL);
  ltU_put(o, ltE_or0(t));
  for (int i = 0; i < n; i++) {
    long long m;
    if (ltI_const_int(sc[i], &m)) {
      if (m) ltU_printf(o, " %c %lld", m < 0 ? '-' : '+', m < 0 ? -(m >> k) : m >> k);
      continue;
    }
    int cb = ltI_const_int(sc[i]->b, &m);
    if (!cb) ltI_const_int(sc[i]->a, &m);
    const Expr *f = cb ? sc[i]->a : sc[i]->b;
    ltU_put(o, " + ");
    int paren = prec(f) < 13;
    if (paren) ltU_put(o, "(");
    expr(e, o, f, c);
    if (paren) ltU_put(o, ")");
    if (m >> k != 1) ltU_printf(o, " * %lld", m >> k);
  }
  return 1;
}

/* The word of a Philox block in offset term w (an integer cast of x & 3,
** or a constant 0..3), or NULL. */
static const Expr *block_word(const Expr *w) {
  long long m;
  while (w->kind == E_CAST && ltI_is_int(w->dt) && ltI_is_int(w->a->dt)) w = w->a;
  if (ltI_const_int(w, &m)) return m >= 0 && m < 4 ? w : NULL;
  if (w->kind != E_BINARY || w->op != B_BAND) return NULL;
  return (ltI_const_int(w->b, &m) || ltI_const_int(w->a, &m)) && m == 3 ? w : NULL;
}

/* The block of a Philox offset term b, an i64 block * 4 (or 4 * block, or
** block << 2), or NULL. */
static const Expr *block_of(const Expr *b) {
  long long m;
  if (b->kind != E_BINARY || b->dt != DT_I64) return NULL;
  if (b->op == B_SHL) return ltI_const_int(b->b, &m) && m == 2 ? b->a : NULL;
  if (b->op != B_MUL) return NULL;
  if (ltI_const_int(b->b, &m) && m == 4) return b->a;
  return ltI_const_int(b->a, &m) && m == 4 ? b->b : NULL;
}

/* tile.rand / tile.randint whose offset is written block * 4 + word (word
** in [0, 4)), printed lt_rand_block(seed, block, word): the same bits
** (templates/bits.h), and the compiler sees one Philox for a block's four
** words, which through the offset's arithmetic it did not always (nvcc:
** 6.5 Philox for bias_dropout_add's 4 blocks a thread); bits: the word
** (lt_randint_block) of a tile.rand.  Returns 0, and prints nothing, for
** any other offset. */
static int rand_block(E *e, Buf *o, const Expr *x, const Ctx *c, int bits) {
  const Expr *off = x->b, *blk = NULL, *w = NULL;
  if (off->kind != E_BINARY || off->op != B_ADD || off->dt != DT_I64) return 0;
  if ((blk = block_of(off->a)) != NULL) w = block_word(off->b);
  else if ((blk = block_of(off->b)) != NULL) w = block_word(off->a);
  if (!blk || !w) return 0;
  ltU_printf(o, "%s(", x->op == B_RAND && !bits ? "lt_rand_block" : "lt_randint_block");
  expr(e, o, x->a, c);
  ltU_put(o, ", ");
  expr(e, o, blk, c);
  ltU_put(o, ", ");
  expr(e, o, w, c);
  ltU_put(o, ")");
  return 1;
}

/* A comparison x of a tile.rand with another operand, rand < y or y > rand
** (or, negated, rand >= y or y <= rand), printed lt_rand_lt(word, y) (or
** !lt_rand_lt): the word's top 24 bits against y's integer bound
** (templates/bits.h), the same truth as the float compare without the
** word's conversion to float.  Returns 0, and prints nothing, for any other
** x. */
static int rand_compare(E *e, Buf *o, const Expr *x, const Ctx *c) {
  const Expr *r, *y;
  int neg;
  if ((x->op == B_LT || x->op == B_GE) && x->a->kind == E_BINARY && x->a->op == B_RAND)
    r = x->a, y = x->b, neg = x->op == B_GE;
  else if ((x->op == B_GT || x->op == B_LE) && x->b->kind == E_BINARY && x->b->op == B_RAND)
    r = x->b, y = x->a, neg = x->op == B_LE;
  else
    return 0;
  ltU_put(o, neg ? "!lt_rand_lt(" : "lt_rand_lt(");
  if (!rand_block(e, o, r, c, 1)) {
    ltU_put(o, "lt_randint(");
    expr(e, o, r->a, c);
    ltU_put(o, ", ");
    expr(e, o, r->b, c);
    ltU_put(o, ")");
  }
  ltU_put(o, ", ");
  expr(e, o, y, c);
  ltU_put(o, ")");
  return 1;
}

/* Expression x at the element of context c (NULL for scalars), into o:
** casts round through f16 / bf16 / fp8 where the IR says, and operands get
** parentheses only where C's precedence needs them. */
static void expr(E *e, Buf *o, const Expr *x, const Ctx *c) {
  switch (x->kind) {
  case E_CONST:
    const_text(o, x->cval, x->dt);
    return;
  case E_SYM:
    sym_text(e, o, x->sym, c);
    return;
  case E_IOTA:
    ltU_printf(o, "%s", ltE_or0(x->op == 0 ? ltE_tile_row(c) : ltE_tile_col(c)));
    return;
  case E_CAST: {
    Dtype from = ltI_compute_type(x->a->dt), to = x->dt;
    if (to == DT_F16 || to == DT_BF16 || ltI_is_fp8(to)) {
      ltU_printf(o, "lt_round_%s(", ltI_dtypes[to].name);
      if (from != DT_F32) ltU_put(o, "(float)");
      expr(e, o, x->a, c);
      ltU_put(o, ")");
    } else if (ltI_compute_type(to) == from) {
      expr(e, o, x->a, c);
    } else {
      ltU_printf(o, "(%s)", ltE_ctype(to));
      int paren = prec(x->a) < 14;
      if (paren) ltU_put(o, "(");
      expr(e, o, x->a, c);
      if (paren) ltU_put(o, ")");
    }
    return;
  }
  case E_UNARY:
    if (x->op == U_NEG || x->op == U_NOT) {
      ltU_put(o, x->op == U_NEG ? "-" : "!");
      int paren = prec(x->a) < 14;
      if (paren) ltU_put(o, "(");
      expr(e, o, x->a, c);
      if (paren) ltU_put(o, ")");
    } else if (x->op == U_ABS && x->dt == DT_I32) {
      ltU_put(o, ltE_gpu(e) ? "abs(" : "lt_iabs(");
      expr(e, o, x->a, c);
      ltU_put(o, ")");
    } else if (x->op == U_ABS && x->dt == DT_I64) {
      ltU_put(o, "lt_abs_i64(");
      expr(e, o, x->a, c);
      ltU_put(o, ")");
    } else if (x->op == U_BNOT) {
      ltU_put(o, "~");
      int paren = prec(x->a) < 14;
      if (paren) ltU_put(o, "(");
      expr(e, o, x->a, c);
      if (paren) ltU_put(o, ")");
    } else if (x->op == U_SIGMOID) {
      ltU_printf(o, "1.0f / (1.0f + %s(-", e->t->unop_f32[U_EXP]);
      int paren = prec(x->a) < 14;
      if (paren) ltU_put(o, "(");
      expr(e, o, x->a, c);
      if (paren) ltU_put(o, ")");
      ltU_put(o, "))");
    } else if (x->op == U_EXP && x->fast) {   /* fast.c: 2^(x log2 e) on the special-function unit */
      ltU_put(o, "lt_exp2(");
      int paren = prec(x->a) < 13;
      if (paren) ltU_put(o, "(");
      expr(e, o, x->a, c);
      if (paren) ltU_put(o, ")");
      ltU_put(o, " * 1.44269504f)");
    } else {
      const char *fn = x->op == U_LOG && x->fast ? "lt_log"      /* fast.c, fast_logs */
                       : x->op == U_ERF && x->fast ? "lt_erf"    /* fast.c, fast_divisions */
                       : x->op == U_GELU ? "lt_gelu"             /* pass/gelu.c (always fast) */
                       : e->t->unop_f32[x->op];
      ltU_printf(o, "%s(", fn);
      expr(e, o, x->a, c);
      ltU_put(o, ")");
    }
    return;
  case E_BINARY: {
    if ((x->op == B_SHR || x->op == B_BAND) && column_shift(e, o, x, c)) return;
    if ((x->op == B_RAND || x->op == B_RANDINT) && rand_block(e, o, x, c, 0)) return;
    if (x->op >= B_LT && x->op <= B_GE && rand_compare(e, o, x, c)) return;
    Dtype ct = ltI_compute_type(x->a->weak ? x->b->dt : x->a->dt);
    if ((x->op == B_MAX || x->op == B_MIN) && e->wide && ct == DT_I32) {
      /* the launcher's int64 grid arithmetic: lt_wide_max and lt_wide_min
      ** (host functions of the prologue), as lt_imax and lt_imin take int */
      ltU_put(o, x->op == B_MAX ? "lt_wide_max(" : "lt_wide_min(");
      expr(e, o, x->a, c);
      ltU_put(o, ", ");
      expr(e, o, x->b, c);
      ltU_put(o, ")");
      return;
    }
    if (x->op == B_MAX || x->op == B_MIN || x->op == B_POW || x->op >= B_RAND || helper_shift(x)) {
      const char *fn = ct == DT_I32 ? (x->op == B_MAX ? "lt_imax" : "lt_imin") : (x->op == B_MAX ? "fmaxf" : "fminf");
      if (ct == DT_I64 || ct == DT_U32) fn = ltU_fmt("lt_%s_%s", x->op == B_MAX ? "max" : "min", ltI_dtypes[ct].name);
      if (x->op == B_POW) fn = "powf";
      if (x->op >= B_RAND) fn = x->op == B_RAND ? "lt_rand" : "lt_randint";
      if (x->op == B_SHL || x->op == B_SHR) fn = ltU_fmt("lt_%s_%s", x->op == B_SHL ? "shl" : "shr", ltI_dtypes[x->dt].name);
      ltU_printf(o, "%s(", fn);
      expr(e, o, x->a, c);
      ltU_put(o, ", ");
      expr(e, o, x->b, c);
      ltU_put(o, ")");
      return;
    }
    if ((x->op == B_IDIV || x->op == B_MOD) && x->div && e->divs) {   /* pass/fastdiv.c: by multiply and shift */
      ltU_put(o, x->op == B_IDIV ? "lt_div(" : "lt_mod(");
      expr(e, o, x->a, c);
      ltU_printf(o, ", lt_div%d)", x->div - 1);
      return;
    }
    if (x->op == B_DIV && x->fast) {   /* fast.c: to 2 ulp, no slow path */
      ltU_put(o, "lt_fdiv(");
      expr(e, o, x->a, c);
      ltU_put(o, ", ");
      expr(e, o, x->b, c);
      ltU_put(o, ")");
      return;
    }
    static const char *const ops[B_COUNT] = {
      [B_ADD] = "+", [B_SUB] = "-", [B_MUL] = "*", [B_DIV] = "/", [B_IDIV] = "/", [B_MOD] = "%",
      [B_LT] = "<", [B_LE] = "<=", [B_GT] = ">", [B_GE] = ">=", [B_EQ] = "==", [B_NE] = "!=",
      [B_AND] = "&&", [B_OR] = "||", [B_BAND] = "&", [B_BOR] = "|", [B_BXOR] = "^", [B_SHL] = "<<", [B_SHR] = ">>",
    };
    int p = prec(x), pa = prec(x->a), pb = prec(x->b);
    /* a right operand of equal precedence keeps its parentheses unless the
    ** two operators are the same + or * (a * (b / c) is not a * b / c) */
    /* (on floats a + (b + c) keeps its parentheses: float addition does not
    ** associate, and a * (b * c) computes the scalar b * c once, not per element) */
    int same_assoc = (x->b->kind == E_BINARY && x->b->op == x->op &&
                      (x->op == B_ADD || x->op == B_MUL || x->op == B_BAND || x->op == B_BOR || x->op == B_BXOR) &&
                      ltI_is_int(ltI_compute_type(x->dt))) ||
                     (x->b->kind == E_IOTA && x->op == B_ADD);
    int left_paren = pa < p, right_paren = pb < p || (pb == p && !same_assoc);
    if (x->op == B_OR) {   /* a || (b && c): what C means anyway, written out (-Wparentheses) */
      left_paren |= x->a->kind == E_BINARY && x->a->op == B_AND;
      right_paren |= x->b->kind == E_BINARY && x->b->op == B_AND;
    }
    if (x->op >= B_BAND && x->op <= B_SHR) {
      /* bit operations and shifts beside other operators: parentheses, as
      ** -Wparentheses asks (a + b << 2, a & b == c read wrongly) */
      left_paren |= pa != p && pa <= 13;
      right_paren |= pb != p && pb <= 13;
    }
    if (left_paren) ltU_put(o, "(");
    expr(e, o, x->a, c);
    if (left_paren) ltU_put(o, ")");
    ltU_printf(o, " %s ", ops[x->op]);
    if (right_paren) ltU_put(o, "(");
    expr(e, o, x->b, c);
    if (right_paren) ltU_put(o, ")");
    return;
  }
  case E_SELECT:
    ltU_put(o, "(");
    expr(e, o, x->c, c);
    ltU_put(o, " ? ");
    expr(e, o, x->a, c);
    ltU_put(o, " : ");
    expr(e, o, x->b, c);
    ltU_put(o, ")");
    return;
  }
}

/* Expression text with the outermost parentheses dropped. */
const char *ltE_etext(E *e, const Expr *x, const Ctx *c) {
  Buf o = {0};
  expr(e, &o, x, c);
  char *s = o.p;
  size_t n = strlen(s);
  if (n > 1 && s[0] == '(' && s[n - 1] == ')') {
    int depth = 0, outer = 1;
    for (size_t i = 0; i < n; i++) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (depth == 0 && i < n - 1) { outer = 0; break; }
    }
    if (outer) {
      s[n - 1] = 0;
      return s + 1;
    }
  }
  return s;
}

/* Scalar text of a uniform int expression (sizes, ids), as int64 if wide. */
const char *ltE_itext(E *e, const Expr *x) { return ltE_etext(e, x, NULL); }

/* "// file:line: text" of DSL line ln, once for a run of statements from it. */
void ltE_comment(E *e, int ln) {
  if (ln <= 0 || ln == e->last_line) return;
  e->last_line = ln;
  ltE_line(e, "// %s:%d: %s", e->base, ln, ltD_line_text(ln));
}

/* The file name of path, without its folders. */
const char *ltE_basename(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}
