/*
** emit.c: prints a kernel's IR as CUDA, HIP or C for one Target.
**
** The output is one file per variant: a prologue from templates/, the
** kernel (a __global__ function, or for the c target a function that runs
** one block with one thread), and an extern "C" launcher that checks its
** arguments, computes the grid and launches; plus a header.
**
** Register tiles are per-thread arrays in the compute type (float for f32,
** f16 and bf16; int; bool), indexed by the layout of layout.c.  Each tile
** statement becomes loops over the thread's rows (ri), column chunks (ci)
** and vector lanes (vi); a loop of one trip is left out.  Global accesses
** go 16 bytes at a time when the chunk is inside the tensor and aligned,
** element by element (masked) otherwise.  Before each statement a comment
** gives the DSL line it came from.
*/
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lt.h"

const char *ltD_line_text(int line);

typedef struct E {
  Buf *b;
  Kernel *k;
  const Target *t;
  int depth;
  int last_line;
  const char *base;     /* kernel file's base name, for comments */
  int emu;              /* gen --emulate: CPU emulation of the GPU code */
  const char *stage;    /* inside a pipelined loop: the stage being read or filled */
  int to_regs;          /* copies into shared tiles load into their register buffers instead (prefetched) */
  const Stmt *fused;    /* a statement already emitted inside the load before it */
  int wide;             /* sizes print as (int64_t)NAME: the launcher's grid arithmetic */
  const char *lane;     /* the lane index ldmatrix addresses are made from ("lane", or a loop's copy) */
  int atomic;           /* the store being emitted adds to the tensor (k:atomic_add) */
  const char *barrier;  /* the block barrier: the target's, or with wgmma the one that also orders
                           shared-memory writes before the tensor cores' reads (lt_wgmma_barrier) */
  const Sym *inflight[8];   /* accumulators of wgmmas issued and not yet waited for (gemm_wgmma) */
  int ninflight;
  const Sym *fresh;     /* a wgmma accumulator declared without its zero fill: the gemm next skips reading it */
  int lead_in;          /* the copy being emitted is a pipelined loop's lead-in: cp.async (pipeline.c) */
  int carrying;         /* in the body of a pipelined loop whose wgmmas stay in flight across its back
                           edge: an if's branches leave theirs in flight too (back_edge_wgmmas) */
} E;

#define EMU_BUILD "c++ -std=c++17 -O1 -pthread -c"

static const char *src_ext(const E *e) { return e->emu ? LT_EMU_EXT : e->t->ext; }
static const char *build_hint(const E *e) { return e->emu ? EMU_BUILD : e->t->build_hint; }

/* Element context: which per-thread loops are open around a tile statement. */
typedef struct Ctx {
  const Layout *l;
  int shape[2];
  const char *ri, *ci, *vi;   /* loop variable names, NULL: not looping (0) */
} Ctx;

static int gpu(const E *e) { return e->t->lang != LANG_C; }

/* One line of text at the current depth. */
static void put_line(E *e, const char *text) {
  ltU_indent(e->b, e->depth);
  ltU_put(e->b, text);
  ltU_put(e->b, "\n");
}

static void line(E *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(E *e, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  put_line(e, buf);
}

/* line() for ldmatrix address lines: the word "lane" in them is e->lane,
** a loop's own copy of the lane index where the loop made one. */
static void lane_line(E *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lane_line(E *e, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char out[sizeof buf + 512];
  size_t n = 0, ln = strlen(e->lane);
  for (const char *p = buf; *p && n + ln < sizeof out - 1;) {
    int word = !strncmp(p, "lane", 4) && !(p > buf && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
               !(isalnum((unsigned char)p[4]) || p[4] == '_');
    if (word) memcpy(out + n, e->lane, ln), n += ln, p += 4;
    else out[n++] = *p++;
  }
  out[n] = 0;
  put_line(e, out);
}

static const char *ctype(Dtype dt) {
  return dt == DT_I32 ? "int" : dt == DT_BOOL ? "bool" : "float";
}

static const char *stype(const E *e, Dtype dt) { return e->t->type_names[dt]; }

/* Text of a value of dt read from storage (converted to the compute type). */
static const char *to_compute(const E *e, Dtype dt, const char *x) {
  return ltU_fmt(e->t->to_f32[dt], x);
}

/* Text of a compute-type value converted for storage as dt. */
static const char *to_storage(const E *e, Dtype dt, const char *x) {
  return ltU_fmt(e->t->from_f32[dt], x);
}

/* ------------------------------------------------------------------ */
/* small helpers for index text: NULL stands for 0                     */

static const char *term(const char *v, int mul) {
  if (!v || mul == 0) return NULL;
  if (mul == 1) return v;
  int simple = !strpbrk(v, "+-");
  return simple ? ltU_fmt("%s * %d", v, mul) : ltU_fmt("(%s) * %d", v, mul);
}

static const char *sum(const char *a, const char *b) {
  if (!a) return b;
  if (!b) return a;
  return ltU_fmt("%s + %s", a, b);
}

static const char *or0(const char *s) { return s ? s : "0"; }

static const char *paren(const char *s) { return strpbrk(s, "+-*/%&|^<> ?") ? ltU_fmt("(%s)", s) : s; }

/* The swizzle of shared tile sh: 16-byte chunk c of row r is stored at
** chunk c ^ ((r >> rsh) & mask); an element index moves by chunks << shift.
** Rows of 8 or more chunks key on r % 8, of 4 on r / 2 % 4, of 2 on
** r / 4 % 2: eight consecutive rows then hit eight different bank groups. */
static void swizzle_of(const Sym *sh, int *mask, int *rsh, int *shift) {
  int per_chunk = 16 / ltI_dtypes[sh->dt].bytes;
  int chunks = sh->shape[1] / per_chunk;   /* 16-byte chunks per row */
  *shift = per_chunk == 8 ? 3 : 2;
  *mask = chunks >= 8 ? 7 : chunks - 1;
  *rsh = chunks >= 8 ? 0 : chunks == 4 ? 1 : 2;
}

/* Columns of one panel of shared tile sh: a wgmma operand whose rows
** are wider than 128 bytes is stored as panels of 128-byte rows (the
** tile's columns c / 64, each [rows][64]); other tiles are one panel. */
static int panel_cols(const Sym *sh) {
  int bytes = sh->shape[1] * ltI_dtypes[sh->dt].bytes;
  return sh->wgmma && bytes > 128 ? 128 / ltI_dtypes[sh->dt].bytes : sh->shape[1];
}

/* Element [r][c] of shared tile sh as stored (c already swizzled), in the
** current stage of a ring; [c / 64][r][c % 64] in a tile of panels. */
static const char *sh_index(const E *e, const Sym *sh, const char *r, const char *c) {
  const char *stage = sh->stages > 1 ? ltU_fmt("[%s]", e->stage) : "";
  int pc = panel_cols(sh);
  if (pc < sh->shape[1] && !strcmp(c, "0")) return ltU_fmt("%s%s[0][%s][0]", sh->name, stage, r);
  if (pc < sh->shape[1]) {
    c = paren(c);
    return ltU_fmt("%s%s[%s / %d][%s][%s %% %d]", sh->name, stage, c, pc, r, c, pc);
  }
  return ltU_fmt("%s%s[%s][%s]", sh->name, stage, r, c);
}

/* The element (r, c) of shared tile sh: in the current stage of a ring,
** at the swizzled column of a swizzled tile (mma.c). */
static const char *sh_at(const E *e, const Sym *sh, const char *r, const char *c) {
  r = or0(r);
  c = or0(c);
  if (sh->swizzle) {
    int mask, rsh, shift;
    swizzle_of(sh, &mask, &rsh, &shift);
    const char *key = rsh ? ltU_fmt("(%s >> %d & %d)", paren(r), rsh, mask) : ltU_fmt("(%s & %d)", paren(r), mask);
    c = ltU_fmt("%s ^ %s << %d", paren(c), key, shift);
  }
  return sh_index(e, sh, r, c);
}


/* Register index of an element of a tile of `shape` inside context c. */
static const char *reg_index(const Ctx *c, const int shape[2]) {
  const Layout *l = c->l;
  int cc = shape[1] == l->cols ? l->nc * l->vec : 1;
  const char *r = shape[0] == l->rows ? term(c->ri, cc) : NULL;
  const char *col = shape[1] == l->cols ? sum(term(c->ci, l->vec), c->vi) : NULL;
  return or0(sum(r, col));
}

/* Row and column, inside the tile, of the context's current element. */
static const char *tile_row(const Ctx *c) {
  if (c->shape[0] != c->l->rows) return NULL;
  if (c->l->mma) return sum(term(c->ri, c->l->rstride), c->l->row0);
  return sum(term(c->ri, c->l->tr), c->l->ty);
}

static const char *tile_col(const Ctx *c) {
  if (c->shape[1] != c->l->cols) return NULL;
  if (c->l->mma) return sum(sum(term(c->ci, c->l->cstride), c->l->col0), c->vi);
  return sum(term(sum(term(c->ci, c->l->tc), c->l->tx), c->l->vec), c->vi);
}

/* The index of the context's current chunk among its thread's chunks of
** a copy layout: row by row. */
static const char *chunk_index(const Ctx *c) { return or0(sum(term(c->ri, c->l->nc), c->ci)); }

/* Opens the loops of a context over a tile shape; returns how many. */
static int open_loops(E *e, Ctx *c, const Layout *l, const int shape[2], int rows, int chunks, int lanes) {
  c->l = l;
  c->shape[0] = shape[0];
  c->shape[1] = shape[1];
  if (rows) c->ri = NULL;   /* loops not asked for keep an enclosing loop's index */
  if (chunks) c->ci = NULL;
  if (lanes) c->vi = NULL;
  int n = 0;
  if (rows && l->active && l->active < l->threads) {   /* a copy layout smaller than the block */
    line(e, "if (tid < %d) {   /* the threads that hold a piece of the [%d, %d] tile */", l->active, l->rows, l->cols);
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
    if (gpu(e)) line(e, "#pragma unroll");
    line(e, "for (int %s = 0; %s < %d; ++%s) {", loops[i].name, loops[i].name, loops[i].count, loops[i].name);
    *loops[i].slot = loops[i].name;
    e->depth++;
    n++;
  }
  return n;
}

static void close_loops(E *e, int n) {
  while (n--) {
    e->depth--;
    line(e, "}");
  }
}

/* ------------------------------------------------------------------ */
/* expressions                                                         */

static void expr(E *e, Buf *o, const Expr *x, const Ctx *c);
static const char *etext(E *e, const Expr *x, const Ctx *c);

static void const_text(Buf *o, double v, Dtype dt) {
  if (dt == DT_BOOL) ltU_put(o, v ? "true" : "false");
  else if (dt == DT_I32) ltU_printf(o, "%lld", (long long)v);
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

static void sym_text(E *e, Buf *o, const Sym *s, const Ctx *c) {
  if (s->rank == 0) {
    ltU_printf(o, e->wide && s->kind == SYM_SIZE ? "(int64_t)%s" : "%s", s->name);
    return;
  }
  ltU_printf(o, "%s[%s]", s->name, reg_index(c, s->shape));
}

/* C precedence of the operator at the top of x (higher binds tighter). */
static int prec(const Expr *x) {
  if (x->kind == E_SELECT) return 1;
  if (x->kind == E_IOTA) return 12;   /* prints as a sum such as ri * 8 + row0 */
  if (x->kind == E_UNARY && (x->op == U_NEG || x->op == U_NOT)) return 14;
  if (x->kind != E_BINARY || x->op == B_MAX || x->op == B_MIN) return 15;
  switch (x->op) {
  case B_MUL: case B_DIV: case B_IDIV: case B_MOD: return 13;
  case B_ADD: case B_SUB: return 12;
  case B_LT: case B_LE: case B_GT: case B_GE: return 10;
  case B_EQ: case B_NE: return 9;
  case B_AND: return 5;
  default: return 4;
  }
}

static void expr(E *e, Buf *o, const Expr *x, const Ctx *c) {
  switch (x->kind) {
  case E_CONST:
    const_text(o, x->cval, x->dt);
    return;
  case E_SYM:
    sym_text(e, o, x->sym, c);
    return;
  case E_IOTA:
    ltU_printf(o, "%s", or0(x->op == 0 ? tile_row(c) : tile_col(c)));
    return;
  case E_CAST: {
    Dtype from = ltI_compute_type(x->a->dt), to = x->dt;
    if (to == DT_F16 || to == DT_BF16) {
      ltU_printf(o, "lt_round_%s(", to == DT_F16 ? "f16" : "bf16");
      if (from != DT_F32) ltU_put(o, "(float)");
      expr(e, o, x->a, c);
      ltU_put(o, ")");
    } else if (ltI_compute_type(to) == from) {
      expr(e, o, x->a, c);
    } else {
      ltU_printf(o, "(%s)", ctype(to));
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
      ltU_put(o, gpu(e) ? "abs(" : "lt_iabs(");
      expr(e, o, x->a, c);
      ltU_put(o, ")");
    } else {
      ltU_printf(o, "%s(", e->t->unop_f32[x->op]);
      expr(e, o, x->a, c);
      ltU_put(o, ")");
    }
    return;
  case E_BINARY: {
    Dtype ct = ltI_compute_type(x->a->weak ? x->b->dt : x->a->dt);
    if ((x->op == B_MAX || x->op == B_MIN) && e->wide && ct == DT_I32) {
      /* the launcher's int64 grid arithmetic: a conditional, as lt_imax
      ** and lt_imin take int */
      const char *a = etext(e, x->a, c), *b = etext(e, x->b, c);
      if (prec(x->a) <= 10) a = ltU_fmt("(%s)", a);
      if (prec(x->b) <= 10) b = ltU_fmt("(%s)", b);
      ltU_printf(o, "(%s %s %s ? %s : %s)", a, x->op == B_MAX ? ">" : "<", b, a, b);
      return;
    }
    if (x->op == B_MAX || x->op == B_MIN) {
      const char *fn = ct == DT_I32 ? (x->op == B_MAX ? "lt_imax" : "lt_imin") : (x->op == B_MAX ? "fmaxf" : "fminf");
      ltU_printf(o, "%s(", fn);
      expr(e, o, x->a, c);
      ltU_put(o, ", ");
      expr(e, o, x->b, c);
      ltU_put(o, ")");
      return;
    }
    static const char *const ops[B_COUNT] = {
      [B_ADD] = "+", [B_SUB] = "-", [B_MUL] = "*", [B_DIV] = "/", [B_IDIV] = "/", [B_MOD] = "%",
      [B_LT] = "<", [B_LE] = "<=", [B_GT] = ">", [B_GE] = ">=", [B_EQ] = "==", [B_NE] = "!=",
      [B_AND] = "&&", [B_OR] = "||",
    };
    int p = prec(x), pa = prec(x->a), pb = prec(x->b);
    /* a right operand of equal precedence keeps its parentheses unless the
    ** two operators are the same + or * (a * (b / c) is not a * b / c) */
    /* (on floats a + (b + c) keeps its parentheses: float addition does not
    ** associate, and a * (b * c) computes the scalar b * c once, not per element) */
    int same_assoc = (x->b->kind == E_BINARY && x->b->op == x->op && (x->op == B_ADD || x->op == B_MUL) &&
                      ltI_compute_type(x->dt) == DT_I32) ||
                     (x->b->kind == E_IOTA && x->op == B_ADD);
    int left_paren = pa < p, right_paren = pb < p || (pb == p && !same_assoc);
    if (x->op == B_OR) {   /* a || (b && c): what C means anyway, written out (-Wparentheses) */
      left_paren |= x->a->kind == E_BINARY && x->a->op == B_AND;
      right_paren |= x->b->kind == E_BINARY && x->b->op == B_AND;
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
static const char *etext(E *e, const Expr *x, const Ctx *c) {
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
static const char *itext(E *e, const Expr *x) { return etext(e, x, NULL); }

/* ------------------------------------------------------------------ */
/* statements                                                          */

static void comment(E *e, int ln) {
  if (ln <= 0 || ln == e->last_line) return;
  e->last_line = ln;
  line(e, "// %s:%d: %s", e->base, ln, ltD_line_text(ln));
}

static void block(E *e, Block *b);

/* Declares the register array of tile symbol s. */
static void declare_regs(E *e, const Sym *s) {
  line(e, "%s %s[%d];", ctype(s->dt), s->name, ltP_elems(s->layout, s->shape));
}

/* dst[element] = val over dst's elements (a tile assignment). */
/* dst[element] = val for the element of context c; a fragment of f16 or
** bf16 holds values rounded to its type. */
static void assign_elem(E *e, const Sym *dst, const Expr *val, const Ctx *c) {
  const char *v = etext(e, val, c);
  if (dst->kind == SYM_FRAG && (dst->dt == DT_F16 || dst->dt == DT_BF16))
    v = ltU_fmt("lt_round_%s(%s)", dst->dt == DT_F16 ? "f16" : "bf16", v);
  line(e, "%s[%s] = %s;", dst->name, reg_index(c, dst->shape), v);
}

/* dst[element] = val over dst's elements (a tile assignment); with
** `then`, a second assignment over the same elements in the same loops. */
static void tile_assign2(E *e, const Sym *dst, const Expr *val, const Stmt *then) {
  Ctx c = {0};
  int n = open_loops(e, &c, dst->layout, dst->shape, 1, 1, 1);
  assign_elem(e, dst, val, &c);
  if (then) assign_elem(e, then->dst, then->val, &c);
  close_loops(e, n);
}

static void tile_assign(E *e, const Sym *dst, const Expr *val) { tile_assign2(e, dst, val, NULL); }

/* Address and bounds of one chunk of a view: see load_store. */
typedef struct Access {
  const char *uniform_ok;   /* bounds of the dims that do not vary, or NULL */
  const char *base;         /* uniform offset from the tensor pointer, or NULL */
  const char *row_ok;       /* per row bound, or NULL */
  const char *col_idx;      /* tensor index of the chunk's first column */
  const char *col_lim;      /* tensor size along the column dim */
  const char *col_stride;   /* NULL when 1 */
  int col_nonneg;
} Access;

static const char *mul64(E *e, const char *idx, const Expr *stride) {
  long long s;
  if (ltI_const_int(stride, &s) && s == 1) return ltU_fmt("%s", idx);
  return ltU_fmt("(int64_t)%s * %s", strpbrk(idx, "+-*") ? ltU_fmt("(%s)", idx) : idx, itext(e, stride));
}

static const char *all_of(const char *a, const char *b) {
  if (!a) return b;
  if (!b) return a;
  return ltU_fmt("%s && %s", a, b);
}

/* The test that `ext` elements from `origin` end inside a dimension of
** `dim`; NULL when both are constants and they do. */
static const char *ends_inside(E *e, const Expr *origin, int ext, const Expr *dim) {
  long long o, d;
  if (ltI_const_int(origin, &o) && ltI_const_int(dim, &d) && o + ext <= d) return NULL;
  return ltU_fmt("%s + %d <= %s", itext(e, origin), ext, itext(e, dim));
}

/* Does view v run past its tensor's last column at a constant origin, the
** number of columns a constant too (a head dim of 96 in 128-wide tiles)?
** Then its copies into a stage ring test the rows for the whole tile and
** give each chunk of a row its bytes inside (interior_copy). */
static int cols_overrun(const View *v) {
  long long o, n;
  return v->rdim >= 0 && ltI_const_int(v->origin[v->cdim], &o) && ltI_const_int(v->t->dims[v->cdim], &n) &&
         o + v->ext[v->cdim] > n && o < n;
}

/* The test, uniform over the block, that view v is wholly inside its
** tensor (but for the columns past the end of one that cols_overrun) and
** every row of it starts 16-byte aligned (rows of `per16` elements to 16
** bytes). */
static const char *whole_tile(E *e, const View *v, int per16, int has_ok) {
  const Sym *t = v->t;
  const Expr *ro = v->origin[v->rdim], *co = v->origin[v->cdim];
  const char *r0 = itext(e, ro), *c0 = itext(e, co);
  const char *full = has_ok ? "ok" : NULL;
  if (!ltI_nonneg(ro)) full = all_of(full, ltU_fmt("%s >= 0", r0));
  if (!ltI_nonneg(co)) full = all_of(full, ltU_fmt("%s >= 0", c0));
  full = all_of(full, ends_inside(e, ro, v->ext[v->rdim], t->dims[v->rdim]));
  if (!cols_overrun(v)) full = all_of(full, ends_inside(e, co, v->ext[v->cdim], t->dims[v->cdim]));
  full = all_of(full, "(uintptr_t)base % 16 == 0");
  long long rs;
  if (!(ltI_const_int(t->strides[v->rdim], &rs) && rs % per16 == 0))
    full = all_of(full, ltU_fmt("%s %% %d == 0", itext(e, t->strides[v->rdim]), per16));
  return full;
}

/* The offset of row r0 + ty + ri * tr of a tensor, for copy layout l, as
** (tile origin + thread's row) * stride + (unrolled rows) * stride: the
** first product is the same in every iteration of an enclosing loop, so
** the compiler keeps one 64-bit value, not one a row.  NULL for row 0. */
static const char *row_offset(E *e, const View *v, const Layout *l, const Ctx *c) {
  const char *r0 = itext(e, v->origin[v->rdim]);
  const Expr *stride = v->t->strides[v->rdim];
  const char *rthread = sum(strcmp(r0, "0") ? r0 : NULL, l->ty);
  const char *rloop = term(c->ri, l->tr);
  return sum(rthread ? mul64(e, rthread, stride) : NULL, rloop ? mul64(e, rloop, stride) : NULL);
}

/* The fast case of a copy into a stage ring: when the whole tile is inside
** the tensor and every row starts 16-byte aligned (a uniform test), each
** chunk is one cp.async with no per-chunk test; where the tile's columns
** run past the tensor's (cols_overrun), its rows are tested, and each chunk
** reads its bytes inside, zero-filling the rest.  Opens the "else" that the
** masked copy (load_store) fills. */
static void interior_copy(E *e, const View *v, const Sym *sh, const Layout *l, int has_ok) {
  const Sym *t = v->t;
  const char *c0 = itext(e, v->origin[v->cdim]);
  const char *full = whole_tile(e, v, l->vec, has_ok);
  int over = cols_overrun(v);
  if (over)
    line(e, "if (%s) {   /* the tile's rows are inside %s and 16-byte aligned; its columns from %s on are not */", full,
         t->name, itext(e, t->dims[v->cdim]));
  else line(e, "if (%s) {   /* the whole tile is inside %s, rows 16-byte aligned */", full, t->name);
  e->depth++;
  Ctx c = {0};
  int shape[2];
  ltI_view_shape(v, shape);
  int n = open_loops(e, &c, l, shape, 1, 1, 0);
  const char *r = or0(tile_row(&c)), *col = or0(tile_col(&c));
  const char *gc = strcmp(c0, "0") ? ltU_fmt("%s + %s", c0, col) : col;
  const char *off = row_offset(e, v, l, &c);
  if (over) {
    line(e, "const int n = lt_imin(lt_imax(%s - (%s), 0), %d);   /* the chunk's elements inside %s */",
         itext(e, t->dims[v->cdim]), gc, l->vec, t->name);
    line(e, "lt_cp_async16(&%s, n > 0 ? base + %s : %s, n * %d);", sh_at(e, sh, r, col), sum(off, gc), t->name,
         ltI_dtypes[t->dt].bytes);
  } else {
    line(e, "lt_cp_async16(&%s, base + %s, 16);", sh_at(e, sh, r, col), sum(off, gc));
  }
  close_loops(e, n);
  e->depth--;
  line(e, "} else {");
  e->depth++;
}

/* The fast case of a store of an accumulator (layout l) that goes out
** through shared tile o (smem.c, out_tiles): when the whole tile is inside
** the tensor and its rows 16-byte aligned, the lanes write their pairs into
** o, then each thread writes whole 16-byte chunks of rows, so that a warp
** writes whole rows instead of 4 or 8 bytes in each of 8.  o lies over the
** shared tiles, hence the barrier before (every warp done with them) and
** after (o whole).  Opens the "else" that the element-wise store fills. */
static void staged_store(E *e, const View *v, const Expr *val, const Sym *o, const Layout *l, int has_ok) {
  const Sym *t = v->t;
  Dtype dt = t->dt;
  int shape[2];
  ltI_view_shape(v, shape);
  const Layout *cl = ltP_copy_layout(e->k, shape, dt);
  line(e, "if (%s) {   /* the whole tile is inside %s: out through %s, 16 bytes of a row a thread */",
       whole_tile(e, v, cl->vec, has_ok), t->name, o->name);
  e->depth++;
  line(e, "%s   /* every warp is done with the shared tiles %s lies over */", e->barrier, o->name);
  Ctx c = {0};
  int n = open_loops(e, &c, l, shape, 1, 1, 0);
  Ctx ce = c;
  ce.vi = "vi";
  const char *vt = l->vec * ltI_dtypes[dt].bytes == 4 ? "uint32_t" : "uint2";
  line(e, "union { %s v; %s e[%d]; } h;", vt, stype(e, dt), l->vec);
  line(e, "#pragma unroll");
  line(e, "for (int vi = 0; vi < %d; ++vi) h.e[vi] = %s;", l->vec, to_storage(e, dt, etext(e, val, &ce)));
  line(e, "*(%s *)&%s = h.v;", vt, sh_at(e, o, tile_row(&c), tile_col(&c)));
  close_loops(e, n);
  line(e, "%s   /* %s is whole */", e->barrier, o->name);
  Ctx cc = {0};
  n = open_loops(e, &cc, cl, shape, 1, 1, 0);
  const char *r = or0(tile_row(&cc)), *col = or0(tile_col(&cc)), *c0 = itext(e, v->origin[v->cdim]);
  line(e, "*(uint4 *)(base + %s) = *(const uint4 *)&%s;",
       sum(row_offset(e, v, cl, &cc), strcmp(c0, "0") ? ltU_fmt("%s + %s", c0, col) : col), sh_at(e, o, r, col));
  close_loops(e, n);
  e->depth--;
  line(e, "} else {");
  e->depth++;
}

/* The layout a load or store of a [rows, cols] view goes by: the
** registers' (the loaded tile's, the stored value's) or, for a copy to
** shared memory, the widest copy layout. */
static const Layout *access_layout(E *e, const int shape[2], Dtype dt, const Sym *dst, const Expr *val,
                                   const Sym *sh) {
  if (sh) return ltP_copy_layout(e->k, shape, dt);
  if (dst) return dst->layout;
  const Layout *l = ltP_expr_layout(val);
  if (l && (shape[0] == 1 || shape[0] == l->rows) && (shape[1] == 1 || shape[1] == l->cols)) return l;
  return ltP_layout_of(e->k, shape, dt);
}

/* Loads or stores a view, chunk by chunk.  For a load, dst receives the
** elements (other outside the tensor); for a store, val is written.
** `shared`: the other side is that shared tile instead of registers.
** `then`: a tile assignment that reads the loaded value (fusable, below),
** done chunk by chunk right after each chunk's load, so that the loaded
** tile is never live whole. */
static void load_store(E *e, const View *v, const Sym *dst, const Expr *val, const Expr *other, const Sym *sh,
                       const Stmt *then, const Sym *via) {
  const Sym *t = v->t;
  int shape[2];
  ltI_view_shape(v, shape);
  const Layout *l = access_layout(e, shape, t->dt, dst, val, sh);
  int store = val != NULL;
  const char *tn = stype(e, t->dt);
  line(e, "{");
  e->depth++;
  /* dims that do not vary along the tile: one check and one offset */
  const char *ok = NULL, *base = NULL;
  for (int d = 0; d < t->trank; d++) {
    int varies = (d == v->rdim || d == v->cdim) && v->ext[d] > 1;
    if (varies) continue;
    const char *o = itext(e, v->origin[d]);
    int known_in = v->origin[d]->kind == E_CONST && t->dims[d]->kind == E_CONST && v->origin[d]->cval < t->dims[d]->cval;
    if (!known_in) ok = all_of(ok, ltU_fmt("%s < %s", o, itext(e, t->dims[d])));
    if (!ltI_nonneg(v->origin[d])) ok = all_of(ok, ltU_fmt("%s >= 0", o));
    if (!(v->origin[d]->kind == E_CONST && v->origin[d]->cval == 0)) base = sum(base, mul64(e, o, t->strides[d]));
  }
  if (store && l->mma) {   /* replicated copies of a slice: one thread stores */
    if (shape[0] == 1 && l->rows > 1) ok = all_of(ok, ltU_fmt("%s == 0", l->row0));
    if (shape[1] == 1 && l->cols > 1) ok = all_of(ok, ltU_fmt("%s == 0", l->col0));
  } else if (store) {
    if (shape[0] == 1 && l->tr > 1 && l->rows > 1) ok = all_of(ok, ltU_fmt("%s == 0", l->ty));
    if (shape[1] == 1 && l->tc > 1 && l->cols > 1) ok = all_of(ok, ltU_fmt("%s == 0", l->tx));
  }
  if (ok) line(e, "const bool ok = %s;", ok);
  line(e, "%s%s *base = %s%s;", store ? "" : "const ", tn, t->name, base ? ltU_fmt(" + %s", base) : "");
  int async = sh && e->t->async_copy && (sh->stages > 1 || e->lead_in);   /* cp.async, landing at a loop's wait */
  int interior = async && v->rdim >= 0 && l->vec * ltI_dtypes[t->dt].bytes == 16 &&
                 (cols_overrun(v) || !ltI_view_never_inside(v));
  if (interior) interior_copy(e, v, sh, l, ok != NULL);
  if (via) staged_store(e, v, val, via, l, ok != NULL);
  Ctx c = {0};
  int n = open_loops(e, &c, l, shape, 1, 1, 0);
  const char *rowc = NULL, *ptr_off = NULL;
  if (v->rdim >= 0 && v->ext[v->rdim] > 1) {
    const char *gr = sum(itext(e, v->origin[v->rdim]), tile_row(&c));
    if (v->origin[v->rdim]->kind == E_CONST && v->origin[v->rdim]->cval == 0) gr = or0(tile_row(&c));
    line(e, "const int gr = %s;", gr);
    rowc = ltU_fmt("gr < %s", itext(e, t->dims[v->rdim]));
    if (!ltI_nonneg(v->origin[v->rdim])) rowc = ltU_fmt("gr >= 0 && %s", rowc);
    ptr_off = mul64(e, "gr", t->strides[v->rdim]);
  }
  int vcols = v->ext[v->cdim] > 1;
  const char *gc = NULL;
  if (vcols) {
    gc = sum(v->origin[v->cdim]->kind == E_CONST && v->origin[v->cdim]->cval == 0 ? NULL : itext(e, v->origin[v->cdim]),
             tile_col(&c));
    line(e, "const int gc = %s;", or0(gc));
    ptr_off = sum(ptr_off, mul64(e, "gc", t->strides[v->cdim]));
  }
  line(e, "%s%s *ptr = base%s;", store ? "" : "const ", tn, ptr_off ? ltU_fmt(" + %s", ptr_off) : "");
  const char *chunk_ok = all_of(ok ? "ok" : NULL, rowc);
  long long cs = 0;
  int unit_stride = ltI_const_int(t->strides[v->cdim], &cs) && cs == 1;
  const char *cstride = unit_stride ? NULL : itext(e, t->strides[v->cdim]);
  int V = vcols ? l->vec : 1;
  int bytes = V * ltI_dtypes[t->dt].bytes;
  const char *lim = vcols ? itext(e, t->dims[v->cdim]) : NULL;
  const char *lo = vcols && !ltI_nonneg(v->origin[v->cdim]) ? "gc >= 0 && " : "";
  /* the element at lane vi of the chunk */
  Ctx ce = c;
  ce.vi = V > 1 ? "vi" : NULL;
  const char *elem_ptr = V > 1 ? (cstride ? ltU_fmt("ptr[(int64_t)vi * %s]", cstride) : "ptr[vi]") : "ptr[0]";
  /* The columns' test.  None where the view's columns are inside the
  ** tensor whatever the thread (constants).  A chunk starts at a multiple of
  ** V in every layout (blocked: tx * vec + ...; mma: col0 steps by the
  ** lane's vector), so where the view starts at a constant multiple of V
  ** and the tensor's columns are one too (d96 in 128-wide tiles), a chunk is
  ** wholly inside or wholly outside: one test a chunk, the vector path's,
  ** where a test an element gave the AMD compilers V more lane masks to
  ** hold (2 SGPRs each), which they spilled. */
  const Expr *co = v->origin[v->cdim];
  int cols_inside = vcols && ltI_nonneg(co) && !ends_inside(e, co, v->ext[v->cdim], t->dims[v->cdim]);
  long long o0, nc;
  int whole_chunks = vcols && V > 1 && ltI_const_int(co, &o0) && o0 >= 0 && o0 % V == 0 &&
                     ltI_const_int(t->dims[v->cdim], &nc) && nc % V == 0;
  const char *chunk_in = vcols && !cols_inside ? ltU_fmt("gc + %d <= %s", V, lim) : NULL;
  const char *col_ok = !vcols || cols_inside ? NULL
                       : whole_chunks ? chunk_in
                                      : ltU_fmt("%s%s < %s", lo, V > 1 ? "gc + vi" : "gc", lim);
  const char *elem_ok = all_of(chunk_ok, col_ok);
  const char *shared_at = NULL, *regs = NULL;
  if (sh && e->to_regs) regs = ltU_fmt("%s_regs[%s]", sh->name, chunk_index(&c));
  if (sh) shared_at = regs ? ltU_fmt("%s.e[vi]", regs) : sh_at(e, sh, tile_row(&ce), tile_col(&ce));
  /* A chunk of a stage-ring copy that is zero outside the tensor: one
  ** cp.async whatever the edge, reading the elements inside and zero-filling
  ** the rest (src_bytes), from a 16-byte aligned address.  A chunk that may
  ** start left of the tensor (gc < 0) goes element by element; kernels
  ** without a matrix instruction keep that test off the zero-fill path (their
  ** accumulators take every register: f32 GELU tn spilled with it). */
  int vec_io = V > 1 && unit_stride && gpu(e) && bytes >= 4 && !e->atomic;   /* 16-byte pieces where they fit */
  int zfill = async && bytes == 16 && unit_stride && vcols && other &&
              other->kind == E_CONST && other->cval == 0 && (!*lo || ltP_mma_layout(e->k));
  if (zfill) {
    Ctx c0 = c;
    c0.vi = NULL;
    const char *in = ltU_fmt("lt_imin(lt_imax(%s - gc, 0), %d)", lim, V);
    line(e, "if (%s(uintptr_t)ptr %% 16 == 0) {   /* reads the chunk's elements inside %s, zero-fills the rest */", lo,
         t->name);
    e->depth++;
    line(e, "const int n = %s;", chunk_ok ? ltU_fmt("%s ? %s : 0", chunk_ok, in) : in);
    line(e, "lt_cp_async16(&%s, n > 0 ? ptr : %s, n * %d);", sh_at(e, sh, tile_row(&c0), tile_col(&c0)), t->name,
         ltI_dtypes[t->dt].bytes);
    e->depth--;
    line(e, "} else {");
    e->depth++;
  } else if (vec_io) {
    const char *vt = bytes >= 16 ? "uint4" : bytes == 8 ? "uint2" : "uint32_t";
    int pieces = bytes >= 16 ? bytes / 16 : 1;
    int align = bytes >= 16 ? 16 : bytes;
    line(e, "if (%s) {", all_of(all_of(chunk_ok, chunk_in), ltU_fmt("(uintptr_t)ptr %% %d == 0", align)));
    e->depth++;
    if (async && bytes == 16) {  /* lands at the loop's wait */
      Ctx c0 = c;
      c0.vi = NULL;
      line(e, "lt_cp_async16(&%s, ptr, 16);", sh_at(e, sh, tile_row(&c0), tile_col(&c0)));
    } else if (regs) {  /* into the register buffer (prefetched) */
      line(e, "%s.v = ((const uint4 *)ptr)[0];", regs);
    } else if (sh) {  /* global <-> shared: copy the bits */
      Ctx c0 = c;
      c0.vi = NULL;
      for (int p = 0; p < pieces; p++)
        line(e, "((%s *)&%s)[%d] = ((const %s *)ptr)[%d];", vt, sh_at(e, sh, tile_row(&c0), tile_col(&c0)), p, vt, p);
    } else if (!store) {  /* a union unpacks the lanes (see the store below) */
      line(e, "union { %s v[%d]; %s e[%d]; } h;", vt, pieces, tn, V);
      for (int p = 0; p < pieces; p++) line(e, "h.v[%d] = ((const %s *)ptr)[%d];", p, vt, p);
      if (gpu(e)) line(e, "#pragma unroll");
      line(e, "for (int vi = 0; vi < %d; ++vi) %s[%s] = %s;", V, dst->name, reg_index(&ce, dst->shape),
           to_compute(e, t->dt, "h.e[vi]"));
    } else {  /* a union packs the lanes: memcpy here can leave a stack copy on AMD */
      line(e, "union { %s v[%d]; %s e[%d]; } h;", vt, pieces, tn, V);
      if (gpu(e)) line(e, "#pragma unroll");
      line(e, "for (int vi = 0; vi < %d; ++vi) h.e[vi] = %s;", V, to_storage(e, t->dt, etext(e, val, &ce)));
      for (int p = 0; p < pieces; p++) line(e, "((%s *)ptr)[%d] = h.v[%d];", vt, p, p);
    }
    e->depth--;
    line(e, "} else {");
    e->depth++;
  }
  if (V > 1) {
    if (gpu(e)) line(e, "#pragma unroll");
    line(e, "for (int vi = 0; vi < %d; ++vi) {", V);
    e->depth++;
  }
  if (sh) {
    const char *o = to_storage(e, t->dt, etext(e, other, &ce));
    line(e, "%s = %s%s;", shared_at, elem_ok ? ltU_fmt("%s ? %s : ", elem_ok, elem_ptr) : "", elem_ok ? o : elem_ptr);
  } else if (!store) {
    const char *x = to_compute(e, t->dt, elem_ptr);
    const char *o = etext(e, other, &ce);
    if (elem_ok) line(e, "%s[%s] = %s ? %s : %s;", dst->name, reg_index(&ce, dst->shape), elem_ok, x, o);
    else line(e, "%s[%s] = %s;", dst->name, reg_index(&ce, dst->shape), x);
  } else {
    const char *x = to_storage(e, t->dt, etext(e, val, &ce));
    const char *put = e->atomic ? ltU_fmt("lt_atomic_add(&%s, %s)", elem_ptr, x) : ltU_fmt("%s = %s", elem_ptr, x);
    if (elem_ok) line(e, "if (%s) %s;", elem_ok, put);
    else line(e, "%s;", put);
  }
  if (V > 1) {
    e->depth--;
    line(e, "}");
  }
  if (zfill || vec_io) {
    e->depth--;
    line(e, "}");
  }
  if (then) {
    Ctx ct = c;
    ct.vi = V > 1 ? "vi" : NULL;
    if (V > 1) {
      if (gpu(e)) line(e, "#pragma unroll");
      line(e, "for (int vi = 0; vi < %d; ++vi) {", V);
      e->depth++;
    }
    assign_elem(e, then->dst, then->val, &ct);
    if (V > 1) {
      e->depth--;
      line(e, "}");
    }
  }
  close_loops(e, n);
  if (interior || via) {
    e->depth--;
    line(e, "}");
  }
  e->depth--;
  line(e, "}");
}

static const char *red_combine(BinOp op, Dtype dt, const char *a, const char *b) {
  if (op == B_ADD) return ltU_fmt("%s + %s", a, b);
  if (dt == DT_I32) return ltU_fmt("%s(%s, %s)", op == B_MAX ? "lt_imax" : "lt_imin", a, b);
  return ltU_fmt("%s(%s, %s)", op == B_MAX ? "fmaxf" : "fminf", a, b);
}

static const char *red_identity(BinOp op, Dtype dt) {
  if (op == B_ADD) return dt == DT_I32 ? "0" : "0.0f";
  if (dt == DT_I32) return op == B_MAX ? "(-2147483647 - 1)" : "2147483647";
  return op == B_MAX ? "-INFINITY" : "INFINITY";
}

/* Reduction: per-thread partials, warp shuffles, then shared memory. */
static void reduce(E *e, Stmt *s) {
  Sym *d = s->dst;
  const Layout *l = d->layout;
  if (l->mma && s->scratch)
    ltU_error(s->line, "this reduction runs along %s of a gemm accumulator split over %d warps; use gemm "
                       "warps = {%d, 1}%s so that each warp holds whole %s", s->axis == 1 ? "the rows" : "the columns",
              ltP_reduce_groups(l, s->axis, e->t->warp), s->axis == 1 ? l->threads / e->t->warp : 1,
              s->axis == 1 ? "" : " (or {1, warps})", s->axis == 1 ? "rows" : "columns");
  Dtype ct = ltI_compute_type(d->dt);
  int ax = s->axis;
  declare_regs(e, d);
  /* 1. each thread folds the elements it holds */
  Ctx c = {0};
  int outer = open_loops(e, &c, l, s->val->shape, ax == 1, ax == 0, ax == 0);
  const char *di = reg_index(&c, d->shape);
  line(e, "%s[%s] = %s;", d->name, di, red_identity((BinOp)s->op, ct));
  int inner = open_loops(e, &c, l, s->val->shape, ax == 0, ax == 1, ax == 1);
  Ctx full = c;
  const char *acc = ltU_fmt("%s[%s]", d->name, di);
  line(e, "%s = %s;", acc, red_combine((BinOp)s->op, ct, acc, etext(e, s->val, &full)));
  close_loops(e, inner);
  close_loops(e, outer);
  /* 2. across the lanes of a warp */
  int W = e->t->warp, lo, hi;   /* reduced thread-id bits: [lo, hi) as strides */
  if (l->mma) {   /* the lanes that share a row (ax 1) or a column (ax 0) of the result layout (mma.c) */
    static const int lanes[][2][2] = {   /* [kind][axis] = {lo, hi} */
      [MMA_SYNC] = {{4, 32}, {1, 4}}, [MMA_TF32] = {{4, 32}, {1, 4}}, [MMA_WGMMA] = {{4, 32}, {1, 4}}, [MMA_MFMA32] = {{1, 32}, {32, 64}},
      [MMA_MFMA16] = {{1, 16}, {16, 64}}, [MMA_WMMA] = {{16, 32}, {1, 16}},
    };
    lo = lanes[l->mma][ax][0];
    hi = lanes[l->mma][ax][1];
  } else if (ax == 1) {
    lo = 1;
    hi = l->tc;
  } else {
    lo = l->tc;
    hi = l->threads;
  }
  int nd = ltP_elems(l, d->shape);
  if (lo < W && lo < hi) {
    int top = hi < W ? hi : W;
    const char *ei = nd > 1 ? "ei" : "0";
    if (nd > 1) {
      line(e, "#pragma unroll");
      line(e, "for (int ei = 0; ei < %d; ++ei) {", nd);
      e->depth++;
    }
    const char *x = ltU_fmt("%s[%s]", d->name, ei);
    for (int off = top / 2; off >= lo; off /= 2)
      line(e, "%s = %s;", x, red_combine((BinOp)s->op, ct, x, ltU_fmt(e->t->shfl_xor, x, off)));
    if (nd > 1) {
      e->depth--;
      line(e, "}");
    }
  }
  /* 3. across warps, through shared memory */
  if (s->scratch) {
    Sym *sc = s->scratch;
    int G = ax == 1 ? sc->shape[1] : sc->shape[0];
    const char *guard = ax == 1 ? ltU_fmt("tid %% %d == 0", W) : (l->tc < W ? ltU_fmt("tid %% %d < %d", W, l->tc) : NULL);
    const char *grp = ax == 1 ? ltU_fmt("%s / %d", l->tx, W) : ltU_fmt("tid / %d", l->tc > W ? l->tc : W);
    Ctx k = {0};
    if (guard) {
      line(e, "if (%s) {", guard);
      e->depth++;
    }
    int m = open_loops(e, &k, l, d->shape, 1, 1, 1);
    const char *kept = ax == 1 ? or0(tile_row(&k)) : or0(tile_col(&k));
    if (ax == 1) line(e, "%s[%s][%s] = %s[%s];", sc->name, kept, grp, d->name, reg_index(&k, d->shape));
    else line(e, "%s[%s][%s] = %s[%s];", sc->name, grp, kept, d->name, reg_index(&k, d->shape));
    close_loops(e, m);
    if (guard) {
      e->depth--;
      line(e, "}");
    }
    line(e, "%s", e->barrier);
    m = open_loops(e, &k, l, d->shape, 1, 1, 1);
    kept = ax == 1 ? or0(tile_row(&k)) : or0(tile_col(&k));
    const char *at0 = ax == 1 ? ltU_fmt("%s[%s][0]", sc->name, kept) : ltU_fmt("%s[0][%s]", sc->name, kept);
    const char *atw = ax == 1 ? ltU_fmt("%s[%s][wi]", sc->name, kept) : ltU_fmt("%s[wi][%s]", sc->name, kept);
    const char *dx = ltU_fmt("%s[%s]", d->name, reg_index(&k, d->shape));
    line(e, "%s = %s;", dx, at0);
    line(e, "#pragma unroll");
    line(e, "for (int wi = 1; wi < %d; ++wi) %s = %s;", G, dx, red_combine((BinOp)s->op, ct, dx, atw));
    close_loops(e, m);
  }
}

/* shared tile -> registers, or value -> shared tile. */
static void shared_rw(E *e, Stmt *s) {
  Sym *sh = s->shared;
  if (s->kind == S_SLOAD) {
    Ctx c = {0};
    int n = open_loops(e, &c, s->dst->layout, sh->shape, 1, 1, 1);
    line(e, "%s[%s] = %s;", s->dst->name, reg_index(&c, s->dst->shape),
         to_compute(e, sh->dt, sh_at(e, sh, tile_row(&c), tile_col(&c))));
    close_loops(e, n);
    return;
  }
  const Layout *l = access_layout(e, sh->shape, sh->dt, NULL, s->val, NULL);
  Ctx c = {0};
  int n = open_loops(e, &c, l, sh->shape, 1, 1, 1);
  line(e, "%s = %s;", sh_at(e, sh, tile_row(&c), tile_col(&c)),
       to_storage(e, sh->dt, etext(e, s->val, &c)));
  close_loops(e, n);
}

/* ------------------------------------------------------------------ */
/* gemm: acc += a @ b with the target's matrix instruction (mma.c)     */

/* Opens "#pragma unroll / for (int v = 0; v < n; v += step) {". */
static void open_for(E *e, const char *v, int n, int step) {
  if (gpu(e)) line(e, "#pragma unroll");
  if (step == 1) line(e, "for (int %s = 0; %s < %d; ++%s) {", v, v, n, v);
  else line(e, "for (int %s = 0; %s < %d; %s += %d) {", v, v, n, v, step);
  e->depth++;
}

static void close_for(E *e) {
  e->depth--;
  line(e, "}");
}

/* Element (m, k) of operand a or (k, n) of operand b, by its storage order. */
static const char *op_at(const E *e, const Sym *sh, int trans, const char *i, const char *j) {
  return trans ? sh_at(e, sh, j, i) : sh_at(e, sh, i, j);
}

/* "k0 + rest", or "rest" when k0 is "0". */
static const char *from_k(const char *k0, const char *rest) {
  return strcmp(k0, "0") ? ltU_fmt("%s + %s", k0, rest) : rest;
}

/* A lane's ldmatrix row address in shared tile sh: row rr, column c0 +
** cl, where the row's part outside the lane is a multiple of 8, c0 one of
** two 16-byte chunks and cl (the lane's chunk, 0 or 1) below that.  Emits
** "const int r = ..." and returns the element.  Inside a loop that made
** its own lane index (e->lane, pipelined()), the swizzled column is split
** as c0's bits above the swizzle | (c0's swizzle bits ^ the lane's part),
** with the key the lane's (lane % 8): so 16s of K (or n8 pairs) that are
** a swizzle row apart share one address register plus a constant, and the
** loop makes the rest each iteration.  Elsewhere the plain c ^ key form
** (the matmul loop: its 16 x 8192 x 8192 ran 29 against 31 TFLOP/s with
** the split form). */
static const char *ldsm_at(E *e, const Sym *sh, const char *rr, const char *c0, const char *cl) {
  if (!sh->swizzle || !strcmp(e->lane, "lane")) {
    lane_line(e, "const int r = %s, c = %s;", rr, from_k(c0, cl));
    return sh_at(e, sh, "r", "c");
  }
  lane_line(e, "const int r = %s;", rr);
  int mask, rsh, shift;
  swizzle_of(sh, &mask, &rsh, &shift);
  const char *key = rsh ? ltU_fmt("(lane >> %d & %d)", rsh, mask) : ltU_fmt("(lane & %d)", mask);
  const char *lanes = ltU_fmt("%s ^ %s << %d", cl, key, shift);
  int m = mask << shift;   /* the column bits the swizzle moves */
  const char *c = lanes;
  if (strcmp(c0, "0")) {
    c0 = paren(c0);
    c = ltU_fmt("(%s & ~%d) | ((%s & %d) ^ (%s))", c0, m, c0, m, lanes);
  }
  return sh_index(e, sh, "r", c);
}

/* ldmatrix of a warp's A fragments (a shared tile) for the 16 of K from
** k0: into frag[mi] ("As_frag[1]" names one set of a double buffer). */
static void ldsm_a(E *e, const Stmt *s, const Sym *a, int MI, const char *k0, const char *frag) {
  const char *wrow = s->dst->layout->wrow;
  open_for(e, "mi", MI, 1);
  if (!s->trans_a) {
    const char *at = ldsm_at(e, a, ltU_fmt("%s + mi * 16 + (lane & 15)", wrow), k0, "(lane >> 4) * 8");
    lane_line(e, "lt_ldmatrix_x4(%s[mi], &%s);", frag, at);
  } else {
    const char *at = ldsm_at(e, a, from_k(k0, "(lane & 7) + (lane >> 4) * 8"), ltU_fmt("%s + mi * 16", wrow),
                             "(lane >> 3 & 1) * 8");
    lane_line(e, "lt_ldmatrix_x4_trans(%s[mi], &%s);", frag, at);
  }
  close_for(e);
}

/* ldmatrix.x4 of two n8 B tiles (ni, ni + 1) for the 16 of K from k0 into
** t[4]; the caller has opened the ni loop (step 2). */
static void ldsm_b_pair(E *e, const Stmt *s, const Sym *b, const char *k0) {
  const char *wcol = s->dst->layout->wcol;
  line(e, "uint32_t t[4];");
  if (!s->trans_b) {
    const char *at = ldsm_at(e, b, from_k(k0, "(lane & 7) + (lane >> 3 & 1) * 8"), ltU_fmt("%s + ni * 8", wcol),
                             "(lane >> 4) * 8");
    lane_line(e, "lt_ldmatrix_x4_trans(t, &%s);", at);
  } else {
    const char *at = ldsm_at(e, b, ltU_fmt("%s + ni * 8 + (lane & 7) + (lane >> 4) * 8", wcol), k0, "(lane >> 3 & 1) * 8");
    lane_line(e, "lt_ldmatrix_x4(t, &%s);", at);
  }
}

/* All of a warp's B fragments for the 16 of K from k0, into frag[ni]. */
static void ldsm_b(E *e, const Stmt *s, const Sym *b, int NI, const char *k0, const char *frag) {
  open_for(e, "ni", NI, 2);
  ldsm_b_pair(e, s, b, k0);
  line(e, "%s[ni][0] = t[0];", frag);
  line(e, "%s[ni][1] = t[1];", frag);
  line(e, "%s[ni + 1][0] = t[2];", frag);
  line(e, "%s[ni + 1][1] = t[3];", frag);
  close_for(e);
}

/* One mma (helper fn, lt_mma_16816_bf16 ...) into the accumulator's 16x8
** tile (mi, ni): index i names it. */
static void mma_tile(E *e, const Sym *acc, int NI, const char *fn, const char *afrag, const char *bfrag) {
  line(e, "float d[4] = {%s[i], %s[i + 1], %s[i + %d], %s[i + %d]};", acc->name, acc->name, acc->name, 2 * NI,
       acc->name, 2 * NI + 1);
  line(e, "%s(d, %s, %s);", fn, afrag, bfrag);
  line(e, "%s[i] = d[0];", acc->name);
  line(e, "%s[i + 1] = d[1];", acc->name);
  line(e, "%s[i + %d] = d[2];", acc->name, 2 * NI);
  line(e, "%s[i + %d] = d[3];", acc->name, 2 * NI + 1);
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
static void ring_frags(E *e, const Stmt *s) {
  const Layout *l = s->dst->layout;
  line(e, "uint32_t %s_frag[2][%d][4], %s_frag[2][%d][2];   /* [16 of K: even, odd] */", s->shared->name, l->wtm / 16,
       s->shared_b->name, l->wtn / 8);
}

/* ldmatrix of the A and B fragments for the 16 of K from k0 into set
** `set` ("0", "cur ^ 1"). */
static void ring_load(E *e, const Stmt *s, const char *k0, const char *set) {
  const Layout *l = s->dst->layout;
  ldsm_a(e, s, s->shared, l->wtm / 16, k0, ltU_fmt("%s_frag[%s]", s->shared->name, set));
  ldsm_b(e, s, s->shared_b, l->wtn / 8, k0, ltU_fmt("%s_frag[%s]", s->shared_b->name, set));
}

/* The mmas of one 16 of K, from fragment set `cur`. */
static void ring_mmas(E *e, const Stmt *s) {
  const Layout *l = s->dst->layout;
  int MI = l->wtm / 16, NI = l->wtn / 8;
  const char *fn = ltU_fmt("lt_mma_16816_%s", s->shared_b->dt == DT_BF16 ? "bf16" : "f16");
  open_for(e, "mi", MI, 1);
  open_for(e, "ni", NI, 1);
  line(e, "const int i = mi * %d + ni * 2;   /* rows 16 mi + {0, 8}, columns 8 ni + {0, 1} */", 4 * NI);
  mma_tile(e, s->dst, NI, fn, ltU_fmt("%s_frag[cur][mi]", s->shared->name),
           ltU_fmt("%s_frag[cur][ni]", s->shared_b->name));
  close_for(e);
  close_for(e);
}

/* One 16 of K of the double-buffered form, inside the kk loop: the
** ldmatrix of the next 16 into the other set, then this one's mmas.  With
** `across` (a condition: there is a next iteration), the last step loads
** the next iteration's first 16 instead. */
static void ring_step(E *e, const Stmt *s, int BK, const char *across) {
  line(e, "const int cur = kk / 16 %% 2;");
  line(e, "if (kk + 16 < %d) {   /* the next 16 of K into the other set */", BK);
  e->depth++;
  ring_load(e, s, "kk + 16", "cur ^ 1");
  e->depth--;
  if (across) {
    line(e, "} else if (%s) {   /* the next iteration's first 16 of K: its stage is in (below) */", across);
    e->depth++;
    ring_load(e, s, "0", "cur ^ 1");
    e->depth--;
  }
  line(e, "}");
  ring_mmas(e, s);
}

/* mma.sync m16n8k16 in the double-buffered form: the ldmatrix of the next
** 16 of K is issued before the mmas of this one, so its latency hides
** behind them (the asm statements keep their order). */
static void gemm_mma_sync_ring(E *e, Stmt *s, int BK) {
  int scoped = ring_names_again(s);
  if (scoped) {
    line(e, "{");
    e->depth++;
  }
  ring_frags(e, s);
  ring_load(e, s, "0", "0");
  open_for(e, "kk", BK, 16);
  ring_step(e, s, BK, NULL);
  close_for(e);
  if (scoped) {
    e->depth--;
    line(e, "}");
  }
}

/* The warp's A fragments of gemm s for the 16 of K from kk into frag[mi]:
** packed from its register tile, an mma result (two n8 tiles of that are
** one k16 A tile), or by ldmatrix from its shared tile. */
static void a_frags(E *e, const Stmt *s, int MI, const char *ty, const char *frag) {
  const Sym *a = s->shared ? s->shared : s->areg;
  if (!s->areg) {
    ldsm_a(e, s, a, MI, "kk", frag);
    return;
  }
  int nca = a->layout->nc * a->layout->vec;
  open_for(e, "mi", MI, 1);
  line(e, "const int i = mi * %d + kk / 4;   /* rows 16 mi + {0, 8}, columns kk + {0, 8} + 2 (lane %% 4) */", 2 * nca);
  const char *at[4] = {"i", ltU_fmt("i + %d", nca), "i + 2", ltU_fmt("i + %d", nca + 2)};
  for (int r = 0; r < 4; r++)
    line(e, "%s[mi][%d] = lt_pack_%sx2(%s[%s], %s[%s + 1]);", frag, r, ty, a->name, at[r], a->name, at[r]);
  close_for(e);
}

/* mma.sync m16n8k16: the warp's A fragments for 16 of K (ldmatrix, or
** packed from a register tile), then one mma per 16x8 instruction tile of
** the warp tile.  Both operands in shared memory and B not too wide: the
** double-buffered form above. */
static void gemm_mma_sync(E *e, Stmt *s, const Layout *l, int BK) {
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
  open_for(e, "kk", BK, 16);
  line(e, "uint32_t %s_frag[%d][4];", a->name, MI);
  a_frags(e, s, MI, ty, ltU_fmt("%s_frag", a->name));
  if (!stream) {
    line(e, "uint32_t %s_frag[%d][2];", b->name, NI);
    ldsm_b(e, s, b, NI, "kk", ltU_fmt("%s_frag", b->name));
    open_for(e, "mi", MI, 1);
    open_for(e, "ni", NI, 1);
    line(e, "const int i = mi * %d + ni * 2;   /* rows 16 mi + {0, 8}, columns 8 ni + {0, 1} */", 4 * NI);
    mma_tile(e, acc, NI, fn, ltU_fmt("%s_frag[mi]", a->name), ltU_fmt("%s_frag[ni]", b->name));
    close_for(e);
    close_for(e);
  } else {
    open_for(e, "ni", NI, 2);
    ldsm_b_pair(e, s, b, "kk");
    open_for(e, "mi", MI, 1);
    open_for(e, "nj", 2, 1);
    line(e, "const int i = mi * %d + (ni + nj) * 2;   /* rows 16 mi + {0, 8}, columns 8 (ni + nj) + {0, 1} */", 4 * NI);
    line(e, "const uint32_t b2[2] = {t[nj * 2], t[nj * 2 + 1]};");
    mma_tile(e, acc, NI, fn, ltU_fmt("%s_frag[mi]", a->name), "b2");
    close_for(e);
    close_for(e);
    close_for(e);
  }
  close_for(e);
}

/* mma.sync m16n8k8 tf32, both operands f32 in shared memory: per 8 of K,
** the warp's A fragments (rows g, g + 8 by columns t, t + 4 of each 16x8
** tile; g = lane / 4, t = lane % 4) and B fragments (rows t, t + 4 by
** column g of each 8x8 tile), each word rounded to tf32, then one mma per
** 16x8 tile of the warp tile (PTX ISA, "Matrix Fragments for mma.m16n8k8").
** An operand stored with K contiguous (A [M, K], B [N, K]) comes in by
** ldmatrix: an 8 x 8 b16 matrix is 8 rows of 4 f32, and lane l receives
** word l % 4 of row l / 4, which is the fragment's element; the others
** word by word. */
static void gemm_tf32(E *e, Stmt *s, const Layout *l, int BK) {
  Sym *a = s->shared, *b = s->shared_b, *acc = s->dst;
  int MI = l->wtm / 16, NI = l->wtn / 8;
  int ldsm_b = s->trans_b && NI % 2 == 0;
  open_for(e, "kk", BK, 8);
  line(e, "uint32_t %s_frag[%d][2];", b->name, NI);
  if (ldsm_b) {   /* matrices: columns ni by k 0-3 and k 4-7, then columns ni + 1 */
    open_for(e, "ni", NI, 2);
    line(e, "uint32_t t[4];");
    const char *at = ldsm_at(e, b, ltU_fmt("%s + ni * 8 + (lane & 7) + (lane >> 4) * 8", l->wcol), "kk", "(lane >> 3 & 1) * 4");
    lane_line(e, "lt_ldmatrix_x4(t, &%s);", at);
    line(e, "for (int x = 0; x < 4; ++x) %s_frag[ni + x / 2][x %% 2] = lt_tf32(__uint_as_float(t[x]));", b->name);
  } else {
    open_for(e, "ni", NI, 1);
    lane_line(e, "const int r = kk + lane %% 4, c = %s + ni * 8 + lane / 4;", l->wcol);
    line(e, "%s_frag[ni][0] = lt_tf32(%s);", b->name, op_at(e, b, s->trans_b, "r", "c"));
    line(e, "%s_frag[ni][1] = lt_tf32(%s);", b->name, op_at(e, b, s->trans_b, "r + 4", "c"));
  }
  close_for(e);
  /* A one 16-row tile at a time, used by its NI mmas at once: fewer live registers */
  open_for(e, "mi", MI, 1);
  line(e, "uint32_t %s_frag[4];", a->name);
  if (!s->trans_a) {   /* matrices: rows 0-7 and 8-15 by k 0-3, then by k 4-7 */
    const char *at = ldsm_at(e, a, ltU_fmt("%s + mi * 16 + (lane & 15)", l->wrow), "kk", "(lane >> 4) * 4");
    lane_line(e, "lt_ldmatrix_x4(%s_frag, &%s);", a->name, at);
    line(e, "for (int x = 0; x < 4; ++x) %s_frag[x] = lt_tf32(__uint_as_float(%s_frag[x]));", a->name, a->name);
  } else {
    lane_line(e, "const int r = %s + mi * 16 + lane / 4, c = kk + lane %% 4;", l->wrow);
    static const char *const ar[4] = {"r", "r + 8", "r", "r + 8"}, *const ac[4] = {"c", "c", "c + 4", "c + 4"};
    for (int i = 0; i < 4; i++) line(e, "%s_frag[%d] = lt_tf32(%s);", a->name, i, sh_at(e, a, ac[i], ar[i]));
  }
  open_for(e, "ni", NI, 1);
  line(e, "const int i = mi * %d + ni * 2;   /* rows 16 mi + {0, 8}, columns 8 ni + {0, 1} */", 4 * NI);
  mma_tile(e, acc, NI, "lt_mma_1688_tf32", ltU_fmt("%s_frag", a->name), ltU_fmt("%s_frag[ni]", b->name));
  close_for(e);
  close_for(e);
  close_for(e);
}

/* Packs n consecutive-k elements of each operand tile into a union per
** tile: name[t].h[x] = element x of this lane's part of tile t, for t in
** 0..tiles-1 (loop variable ti).  ti NULL: one tile, name.h[x], of the
** caller's loop. */
static void gather(E *e, const Sym *sh, int trans, const char *name, int tiles, int n, const char *ti,
                   const char *i_of, const char *k_of) {
  if (ti) open_for(e, ti, tiles, 1);
  open_for(e, "x", n, 1);
  line(e, "%s%s.h[x] = %s;", name, ti ? ltU_fmt("[%s]", ti) : "", op_at(e, sh, trans, i_of, k_of));
  close_for(e);
  if (ti) close_for(e);
}

/* MFMA (wave64) and WMMA (wave32): operands gathered from LDS per lane.
** A WMMA operand is sixteen elements a lane (the lanes' two halves hold
** the same), 8 registers, so a WMMA gemm keeps its k loop rolled and
** gathers one B tile at a time: with every step of K unrolled and all B
** tiles held at once, clang hoisted the loads past the 256 registers
** (gfx1100's dK/dV kernels spilled up to 1152 of them). */
static void gemm_amd(E *e, Stmt *s, const Layout *l, int BK) {
  Sym *a = s->shared ? s->shared : s->areg, *b = s->shared_b, *acc = s->dst;
  MmaKind m = s->inst;
  int ik = m == MMA_MFMA32 ? 8 : 16, per = m == MMA_WMMA ? 16 : 4;   /* K per instruction, per lane */
  int MI = l->wtm / l->im, NI = l->wtn / l->in, wmma = m == MMA_WMMA;
  const char *st = stype(e, b->dt), *ty = b->dt == DT_BF16 ? "bf16" : "f16";
  const char *inst = m == MMA_MFMA32 ? "mfma_32x32x8" : m == MMA_MFMA16 ? "mfma_16x16x16" : "wmma_16x16x16";
  line(e, wmma ? "#pragma unroll 1" : "#pragma unroll");   /* WMMA's operands come from shared tiles (mma.c) */
  line(e, "for (int kk = 0; kk < %d; kk += %d) {", BK, ik);
  e->depth++;
  if (wmma) line(e, "union { uint32_t u[%d]; %s h[%d]; } %s_frag[%d], %s_frag;", per / 2, st, per, a->name, MI, b->name);
  else line(e, "union { uint32_t u[%d]; %s h[%d]; } %s_frag[%d], %s_frag[%d];", per / 2, st, per, a->name, MI, b->name, NI);
  const char *row, *k;   /* this lane's row of its operand tile, and its first k */
  if (m == MMA_MFMA32) row = "lane % 32", k = "kk + lane / 32 * 4";
  else if (m == MMA_MFMA16) row = "lane % 16", k = "kk + lane / 16 * 4";
  else row = "lane % 16", k = "kk";
  const char *kx = ltU_fmt("%s + x", k);
  if (s->areg) {   /* a's registers are an MFMA result: a lane's 4 columns are its 4 k (mma.c) */
    int nca = a->layout->nc * a->layout->vec;
    open_for(e, "mi", MI, 1);
    open_for(e, "x", per, 1);
    line(e, "%s_frag[mi].h[x] = %s;", a->name,
         to_storage(e, b->dt, ltU_fmt("%s[mi * %d + kk / %d + x]", a->name, nca, a->layout->cstride / 4)));
    close_for(e);
    close_for(e);
  } else {
    gather(e, a, s->trans_a, ltU_fmt("%s_frag", a->name), MI, per, "mi",
           ltU_fmt("%s + mi * %d + %s", l->wrow, l->im, row), kx);
  }
  const char *b_at = ltU_fmt("%s + ni * %d + %s", l->wcol, l->in, row);
  if (wmma) {   /* lane l holds rows 16 mi + 2 v + l / 16 (v = 0..7) of column 16 ni + l % 16 */
    open_for(e, "ni", NI, 1);
    gather(e, b, !s->trans_b, ltU_fmt("%s_frag", b->name), 1, per, NULL, b_at, kx);
    open_for(e, "mi", MI, 1);
    line(e, "float d[8];");
    line(e, "for (int v = 0; v < 8; ++v) d[v] = %s[(mi * 8 + v) * %d + ni];", acc->name, NI);
    line(e, "lt_%s_%s(d, %s_frag[mi].u, %s_frag.u);", inst, ty, a->name, b->name);
    line(e, "for (int v = 0; v < 8; ++v) %s[(mi * 8 + v) * %d + ni] = d[v];", acc->name, NI);
  } else {   /* B^T A^T: the result's registers are the accumulator's, in order */
    gather(e, b, !s->trans_b, ltU_fmt("%s_frag", b->name), NI, per, "ni", b_at, kx);
    open_for(e, "mi", MI, 1);
    open_for(e, "ni", NI, 1);
    int regs = l->im * l->in / 64;
    line(e, "lt_%s_%s(&%s[mi * %d + ni * %d], %s_frag[ni].u, %s_frag[mi].u);", inst, ty, acc->name, NI * regs, regs,
         b->name, a->name);
  }
  close_for(e);
  close_for(e);
  close_for(e);
}

/* Plain multiply-adds over the accumulator's blocked layout. */
static void gemm_fma(E *e, Stmt *s, int BK) {
  Sym *a = s->shared, *b = s->shared_b, *acc = s->dst;
  if (gpu(e)) line(e, "#pragma unroll 4");
  line(e, "for (int kk = 0; kk < %d; ++kk) {", BK);
  e->depth++;
  Ctx c = {0};
  int n = open_loops(e, &c, acc->layout, acc->shape, 1, 1, 1);
  const char *x = to_compute(e, a->dt, op_at(e, a, s->trans_a, tile_row(&c), "kk"));
  const char *y = to_compute(e, b->dt, op_at(e, b, s->trans_b, "kk", tile_col(&c)));
  line(e, "%s[%s] += %s * %s;", acc->name, reg_index(&c, acc->shape), x, y);
  close_loops(e, n);
  e->depth--;
  line(e, "}");
}

/* Waits for the wgmmas in flight; their accumulators are whole after. */
static void wgmma_wait(E *e) {
  if (!e->ninflight) return;
  line(e, "lt_wgmma_wait<0>();   /* the wgmmas in flight are done */");
  for (int i = 0; i < e->ninflight; i++)
    line(e, "lt_wgmma_settle(%s);   /* read below, after the wait */", e->inflight[i]->name);
  e->ninflight = 0;
}

/* Must the wgmmas in flight be done before statement s (plan.c)? */
static int waits_for_wgmma(const E *e, const Stmt *s) { return ltP_waits_for(e->inflight, e->ninflight, s); }

/* The descriptor text of wgmma operand sh from its element `at` (the first
** of the 16 of K the instruction reads): stored with K contiguous, or
** MN-major (mn): then the next 64-column panel is LBO bytes on. */
static const char *wgmma_desc(const Sym *sh, const char *at, int mn) {
  int row = ltP_wgmma_row(sh);
  return ltU_fmt("lt_wgmma_desc(&%s, %d, %d, %d)", at, mn ? sh->shape[0] * 128 : 16, 8 * row,
                 row == 128 ? 1 : row == 64 ? 2 : 3);
}

/* B's 16 of K from kk: columns kk.. of its rows ([N, K]), or its rows kk.. ([K, N]). */
static const char *operand_b_at(E *e, const Stmt *s, const Sym *b) {
  return s->trans_b ? sh_index(e, b, "0", "kk") : sh_index(e, b, "kk", "0");
}

/* Is s the declaration of a zero-filled accumulator that a wgmma gemm
** fills next?  Then the fill is left out: the gemm's first k step writes
** the accumulator without reading it (wgmma's scale-d 0), so no zeros are
** moved into registers that a wgmma in flight may still hold. */
static int starts_wgmma(const Stmt *s) {
  const Stmt *g = s->next;
  return s->val && s->val->kind == E_CONST && s->val->cval == 0 && g && g->kind == S_GEMM && g->dst == s->dst &&
         g->inst == MMA_WGMMA;
}

/* wgmma.mma_async m64nNk16 (sm90a): each warpgroup (4 warps, 16 rows of
** the accumulator each) multiplies A by B, which the tensor cores read
** from shared memory through a descriptor: its address, the byte offset
** of the next 8 rows (SBO, along K) and of the next 64-column panel (LBO,
** MN-major only), and the swizzle (mma.c: the tile's own is wgmma's).  A
** is read the same way where it is such a shared tile, else from the
** warps' registers, as the mma.sync A fragments (a_frags): all of K's
** first.  Then one wgmma.fence, the wgmmas and a commit;
** the wait comes just before the first statement that needs it
** (waits_for_wgmma), so register work in between overlaps the tensor
** cores. */
static void gemm_wgmma(E *e, Stmt *s, int BK) {
  Sym *a = s->shared ? s->shared : s->areg, *b = s->shared_b, *acc = s->dst;
  const char *ty = b->dt == DT_BF16 ? "bf16" : "f16";
  int N = acc->shape[1], ss = a->wgmma;
  const char *sd = e->fresh == acc ? "kk > 0" : "1";   /* scale-d: 0 replaces the accumulator */
  if (e->fresh == acc)
    line(e, "/* %s starts at zero: the first k step writes it without reading it (scale-d 0) */", acc->name);
  e->fresh = NULL;
  const char *frag = ltU_fmt("%s_frag", a->name);
  if (!ss) {
    line(e, "uint32_t %s[%d][1][4];   /* [16 of K][warp's 16 rows] */", frag, BK / 16);
    open_for(e, "kk", BK, 16);
    a_frags(e, s, 1, ty, ltU_fmt("%s[kk / 16]", frag));
    close_for(e);
    line(e, "lt_wgmma_settle(%s);", frag);
  }
  line(e, "lt_wgmma_settle(%s);", acc->name);
  line(e, "lt_wgmma_fence();   /* %s%s in %s registers before the wgmmas read %s */", ss ? "" : ltU_fmt("%s and ", frag),
       acc->name, ss ? "its" : "their", ss ? "it" : "them");
  open_for(e, "kk", BK, 16);
  if (ss) {   /* A's 16 of K from kk for the warpgroup's 64 rows: [M, K] K-major, or [K, M] M-major */
    const char *wg = ltU_fmt("(%s & ~63)", acc->layout->wrow);
    const char *at = s->trans_a ? sh_index(e, a, "kk", wg) : sh_index(e, a, wg, "kk");
    line(e, "lt_wgmma_m64n%dk16_%s_ss<%d, %d>(%s, %s, %s, %s);", N, ty, s->trans_a, !s->trans_b, acc->name,
         wgmma_desc(a, at, s->trans_a), wgmma_desc(b, operand_b_at(e, s, b), !s->trans_b), sd);
  } else {
    line(e, "lt_wgmma_m64n%dk16_%s<%d>(%s, %s[kk / 16][0], %s, %s);", N, ty, !s->trans_b, acc->name, frag,
         wgmma_desc(b, operand_b_at(e, s, b), !s->trans_b), sd);
  }
  close_for(e);
  line(e, "lt_wgmma_commit();   /* in flight: the statements up to the first that needs %s run meanwhile */",
       acc->name);
  if (e->ninflight == 8) wgmma_wait(e);
  e->ninflight = ltP_add_inflight(e->inflight, e->ninflight, acc);
}

/* Gemm s by the instruction plan.c gave it. */
static void gemm(E *e, Stmt *s) {
  const Layout *l = s->dst->layout;
  int BK = s->shared_b->shape[s->trans_b];
  if (s->inst == MMA_WGMMA) gemm_wgmma(e, s, BK);
  else if (s->inst == MMA_SYNC) gemm_mma_sync(e, s, l, BK);
  else if (s->inst == MMA_TF32) gemm_tf32(e, s, l, BK);
  else if (s->inst) gemm_amd(e, s, l, BK);
  else gemm_fma(e, s, BK);
}

/* ------------------------------------------------------------------ */
/* pipelined loops                                                     */

static void stmt(E *e, Stmt *s);

/* Emits producers [p, end) of pipelined loop `loop` (end NULL: all of
** them) with the loop index named var and the shared stage `stage`. */
static void producers(E *e, Stmt *loop, Stmt *p, Stmt *end, const char *var, const char *stage) {
  const char *name = loop->var->name;
  loop->var->name = var;
  e->stage = stage;
  for (; p != end && ltP_is_producer(p); p = p->next) stmt(e, p);
  loop->var->name = name;
  e->last_line = 0;
}

/* The names of a pipelined loop's generated code: its index v, bounds lo
** and hi, the stage read (vs), the iteration whose copies it issues (vn)
** and their stage (vns). */
typedef struct Ring {
  const char *v, *lo, *hi, *vs, *vn, *vns;
} Ring;

static Ring ring_names(E *e, const Stmt *s) {
  const char *v = s->var->name;
  return (Ring){.v = v, .lo = itext(e, s->lo), .hi = itext(e, s->hi), .vs = ltU_fmt("%s_stage", v),
                .vn = ltU_fmt("%s_next", v), .vns = ltU_fmt("%s_next_stage", v)};
}

/* The prologue of pipelined loop s: the copies of its first `ahead`
** iterations, one commit group each; unrolled if `unroll`. */
static void prologue(E *e, Stmt *s, const Ring *r, int ahead, int unroll) {
  if (ahead > 1) line(e, "/* prologue: start the copies of the first %d iterations, one commit group each */", ahead);
  else line(e, "/* prologue: start the copies of the first iteration, one commit group */");
  if (unroll) line(e, "#pragma unroll");
  line(e, "for (int %s = 0; %s < %d; ++%s) {", r->vs, r->vs, ahead, r->vs);
  e->depth++;
  line(e, "const int %s = %s;", r->v, strcmp(r->lo, "0") ? ltU_fmt("%s + %s", r->lo, r->vs) : r->vs);
  line(e, "if (%s < %s) {", r->v, r->hi);
  e->depth++;
  producers(e, s, s->body.first, NULL, r->v, r->vs);
  e->depth--;
  line(e, "}");
  line(e, "lt_cp_async_commit();");
  e->depth--;
  line(e, "}");
}

/* A k:pipelined loop whose compute is one gemm (g), as one software
** pipeline over K steps of 16.  Per iteration, step by step: the ldmatrix
** of the next step (the last step's is the next iteration's first, from
** the next stage), the mmas of this one, and between them one of the
** copies for iteration i + stages - 1; at the second-last step, the wait
** for iteration i + 1's copies and the barrier.  So no step waits on a
** barrier or an ldmatrix, and the copies are spread over the mmas. */
static void pipelined_gemm(E *e, Stmt *s, Stmt *g, const Ring *r) {
  int S = s->stages, BK = g->shared_b->shape[g->trans_b];
  const char *v = r->v, *hi = r->hi, *vs = r->vs, *vn = r->vn, *vns = r->vns;
  prologue(e, s, r, S - 1, 1);   /* (so the stages are constants: fewer registers) */
  line(e, "lt_cp_async_wait<%d>();   /* this thread's copies for the first iteration have landed */", S - 2);
  line(e, "%s   /* and everyone's */", e->barrier);
  line(e, "int %s = 0, %s = %d;   /* the stage read, the stage filled */", vs, vns, S - 1);
  comment(e, g->line);
  ring_frags(e, g);
  e->stage = vs;
  ring_load(e, g, "0", "0");
  line(e, "for (int %s = %s; %s < %s; ++%s) {", v, r->lo, v, hi, v);
  e->depth++;
  line(e, "const int %s = %s + %d;", vn, v, S - 1);
  open_for(e, "kk", BK, 16);
  ring_step(e, g, BK, ltU_fmt("%s + 1 < %s", v, hi));
  /* the copies: the i-th at step i (the last ones at the second-last
  ** step); all at the first when scalar values are among them */
  int last = BK / 16 - 2, lets = 0, n = 0;
  for (Stmt *p = s->body.first; p != g; p = p->next) lets |= p->kind != S_G2S;
  for (Stmt *p = s->body.first; p != g;) {
    Stmt *q = lets ? g : p->next;
    int step = n < last ? n : last;
    for (; !lets && q != g && step == last; q = q->next) {}
    line(e, "if (kk == %d && %s < %s) {", 16 * step, vn, hi);
    e->depth++;
    producers(e, s, p, q, vn, vns);
    e->depth--;
    line(e, "}");
    e->stage = vs;
    p = q;
    n++;
  }
  line(e, "if (kk == %d) {", BK - 32);
  e->depth++;
  line(e, "lt_cp_async_commit();");
  line(e, "lt_cp_async_wait<%d>();   /* this thread's copies for iteration %s + 1 have landed */", S - 2, v);
  line(e, "%s   /* everyone's have, and all have read stage %s: iteration %s + %d fills it */", e->barrier, vs, v, S);
  line(e, "%s = %s == %d ? 0 : %s + 1;", vs, vs, S - 1, vs);
  line(e, "%s = %s == %d ? 0 : %s + 1;", vns, vns, S - 1, vns);
  e->depth--;
  line(e, "}");
  close_for(e);
  e->depth--;
  line(e, "}");
  line(e, "lt_cp_async_wait<0>();");
  e->stage = NULL;
}

/* The copy layout of view v (a copy's source), and in shape its [rows,
** cols]. */
static const Layout *copy_layout_of(E *e, const View *v, int shape[2]) {
  ltI_view_shape(v, shape);
  return ltP_copy_layout(e->k, shape, v->t->dt);
}

/* Writes copy p's register buffer (prefetched) to its shared tile, at the
** stage e->stage of a double buffer: a 16-byte chunk at a time. */
static void regs_to_shared(E *e, const Stmt *p) {
  int shape[2];
  const Layout *l = copy_layout_of(e, p->view, shape);
  comment(e, p->line);
  Ctx c = {0};
  int n = open_loops(e, &c, l, shape, 1, 1, 0);
  line(e, "*(uint4 *)&%s = %s_regs[%s].v;", sh_at(e, p->shared, tile_row(&c), tile_col(&c)), p->shared->name,
       chunk_index(&c));
  close_loops(e, n);
}

/* The register buffers' writes of pipelined loop s into shared memory. */
static void store_regs(E *e, Stmt *s, const char *stage) {
  e->stage = stage;
  for (Stmt *p = s->body.first; p && ltP_is_producer(p); p = p->next)
    if (p->kind == S_G2S) regs_to_shared(e, p);
  e->last_line = 0;
}

/* The global loads of pipelined loop s's copies for iteration `var`, into
** the register buffers. */
static void load_regs(E *e, Stmt *s, const char *var) {
  e->to_regs = 1;
  producers(e, s, s->body.first, NULL, var, NULL);
  e->to_regs = 0;
}

/* A k:pipelined loop on a target without asynchronous copies (AMD): each
** copy goes through a register buffer (X_regs: the thread's 16-byte chunks
** of the tile), loaded one iteration ahead, so the global loads of
** iteration i + 1 are in flight while iteration i computes.  With a ring
** of two (pipeline.c), the buffer goes to the stage not being read, and one
** barrier an iteration orders both; with one buffer (two did not fit in
** LDS), the write waits for every warp to be done with the tile, between
** two barriers. */
static void prefetched(E *e, Stmt *s) {
  Ring r = ring_names(e, s);
  int two = 0;
  for (Stmt *p = s->body.first; p && ltP_is_producer(p); p = p->next) {
    if (p->kind != S_G2S) continue;
    int shape[2];
    const Layout *l = copy_layout_of(e, p->view, shape);
    line(e, "union { uint4 v; %s e[%d]; } %s_regs[%d];   /* the thread's chunks of the next %s tile */",
         stype(e, p->view->t->dt), l->vec, p->shared->name, l->nr * l->nc, p->shared->name);
    two = p->shared->stages == 2;
  }
  line(e, "/* prologue: iteration %s's copies into registers%s */", r.lo, two ? ", then into stage 0" : "");
  line(e, "{");
  e->depth++;
  line(e, "const int %s = %s;", r.v, r.lo);
  line(e, "if (%s < %s) {", r.v, r.hi);
  e->depth++;
  load_regs(e, s, r.v);
  if (two) store_regs(e, s, "0");
  e->depth--;
  line(e, "}");
  e->depth--;
  line(e, "}");
  if (two) {
    line(e, "%s   /* stage 0 is whole */", e->barrier);
    line(e, "for (int %s = %s, %s = 0; %s < %s; ++%s, %s ^= 1) {", r.v, r.lo, r.vs, r.v, r.hi, r.v, r.vs);
  } else {
    line(e, "for (int %s = %s; %s < %s; ++%s) {", r.v, r.lo, r.v, r.hi, r.v);
  }
  e->depth++;
  if (!two) {
    line(e, "%s   /* every warp is done with the tiles */", e->barrier);
    store_regs(e, s, NULL);
    line(e, "%s   /* the tiles are whole */", e->barrier);
  }
  line(e, "const int %s = %s + 1;", r.vn, r.v);
  line(e, "if (%s < %s) {   /* iteration %s's loads: in flight while this one computes */", r.vn, r.hi, r.vn);
  e->depth++;
  load_regs(e, s, r.vn);
  e->depth--;
  line(e, "}");
  e->stage = two ? r.vs : NULL;
  Stmt *p = s->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  for (; p; p = p->next) stmt(e, p);
  e->last_line = 0;
  if (two) {
    line(e, "if (%s < %s) {", r.vn, r.hi);
    e->depth++;
    store_regs(e, s, ltU_fmt("%s ^ 1", r.vs));
    e->depth--;
    line(e, "}");
    line(e, "%s   /* stage %s ^ 1 is whole, and every warp is done with stage %s */", e->barrier, r.vs, r.vs);
  }
  e->stage = NULL;
  e->depth--;
  line(e, "}");
}

/* The refill of pipelined loop s: the copies for iteration r->vn (`ahead`
** on) into stage r->vns, one commit group.  That stage is one no wgmma in
** flight reads (the ring's invariant), so the copies never wait for them. */
static void refill(E *e, Stmt *s, const Ring *r, int ahead, int carry, int late) {
  int S = s->stages, n = e->ninflight;
  if (late) line(e, "/* the copies for iteration %s + %d, issued while the tensor cores run the wgmmas above */", r->v, ahead);
  line(e, "const int %s = %s + %d;", r->vn, r->v, ahead);
  if (carry) line(e, "const int %s = %s < 2 ? %s + %d : %s - 2;", r->vns, r->vs, r->vs, S - 2, r->vs);
  else line(e, "const int %s = %s == 0 ? %d : %s - 1;", r->vns, r->vs, S - 1, r->vs);
  line(e, "if (%s < %s) {", r->vn, r->hi);
  e->depth++;
  e->ninflight = 0;
  producers(e, s, s->body.first, NULL, r->vn, r->vns);
  e->ninflight = n;
  e->depth--;
  line(e, "}");
  line(e, "lt_cp_async_commit();");
  e->stage = r->vs;
}

/* A k:pipelined loop with an N-stage ring and cp.async (SCHED_RING,
** SCHED_REFILL, SCHED_TURNS): the copies for iteration i + N - 1 are issued
** while iteration i computes (i + N - 2 when its last wgmmas stay in
** flight across the back edge: s->carried), at the body's top or after
** the wgmma gemm that opens it (s->open_gemm), which the two warpgroups
** of the block may take in turns. */
static void pipelined(E *e, Stmt *s) {
  int S = s->stages, ncarry = s->ncarried, ahead = S - 1 - (ncarry > 0);
  Ring r = ring_names(e, s);
  const char *v = r.v, *lo = r.lo, *hi = r.hi, *vs = r.vs;
  Stmt *p = s->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  prologue(e, s, &r, ahead, 0);
  Stmt *g = s->open_gemm, *turn = s->sched == SCHED_TURNS ? g : NULL;   /* turn: the gemm taken in turns */
  if (turn)
    line(e, "if (tid >= 128) lt_wg_turn_pass(1);   /* the warpgroups take turns at the wgmmas of line %d: 0 goes first */",
         turn->line);
  line(e, "for (int %s = %s, %s = 0; %s < %s; ++%s, %s = %s == %d ? 0 : %s + 1) {", v, lo, vs, v, hi, v, vs, vs, S - 1, vs);
  e->depth++;
  line(e, "lt_cp_async_wait<%d>();   /* this thread's copies for iteration %s have landed */", ahead - 1, v);
  if (ncarry)
    line(e, "%s   /* everyone's have; and stage %s - 2 is free again (its wgmmas were waited for in iteration %s - 1) */",
         e->barrier, v, v);
  else
    line(e, "%s   /* everyone's have; and stage %s - 1 is free again */", e->barrier, v);
  if (!g) refill(e, s, &r, ahead, ncarry > 0, 0);
  e->stage = vs;
  e->carrying = ncarry > 0;
  if (ncarry) {   /* the last iteration's, still in flight (none in the first) */
    line(e, "/* in flight from the iteration before: the wgmmas into %s%s */", s->carried[0]->name,
         ncarry > 1 ? " and more" : "");
    memcpy(e->inflight, s->carried, ncarry * sizeof *s->carried);
    e->ninflight = ncarry;
  }
  if (s->own_lane) {
    e->lane = ltU_fmt("%s_lane", v);
    line(e, "const int %s = lt_opaque(lane);   /* the ldmatrix addresses below are made from it in each iteration, not held in registers across the loop */", e->lane);
  }
  for (Stmt *x = p; x; x = x->next) {
    if (x == turn) line(e, "lt_wg_turn_wait(tid / 128);   /* this warpgroup's turn at the tensor cores */");
    stmt(e, x);
    if (x == turn) line(e, "lt_wg_turn_pass(tid / 128);   /* the other's: its wgmmas run while this one works on these */");
    if (x == g) refill(e, s, &r, ahead, ncarry > 0, 1);
  }
  if (!ncarry) wgmma_wait(e);
  e->carrying = 0;
  e->lane = "lane";
  e->stage = NULL;
  e->depth--;
  line(e, "}");
  if (turn) line(e, "if (tid < 128) lt_wg_turn_wait(0);   /* warpgroup 1's last hand-over: no arrival left pending */");
  line(e, "lt_cp_async_wait<0>();");
}

static void stmt(E *e, Stmt *s) {
  if (s == e->fused) return;   /* done inside the load before it */
  if (waits_for_wgmma(e, s)) wgmma_wait(e);
  if (s->kind != S_BARRIER) comment(e, s->line);
  switch (s->kind) {
  case S_LET:
    if (s->dst->rank == 0) {
      line(e, "const %s %s = %s;", ctype(s->dst->dt), s->dst->name, etext(e, s->val, NULL));
    } else if (s->fuse) {   /* both in one loop: the tile is never live whole */
      declare_regs(e, s->dst);
      if (s->next->kind == S_LET) declare_regs(e, s->next->dst);
      tile_assign2(e, s->dst, s->val, s->next);
      e->fused = s->next;
    } else {
      declare_regs(e, s->dst);
      tile_assign(e, s->dst, s->val);
    }
    break;
  case S_FRAG:
    declare_regs(e, s->dst);
    if (starts_wgmma(s)) e->fresh = s->dst;
    else if (s->val) tile_assign(e, s->dst, s->val);
    break;
  case S_ASSIGN:
    tile_assign(e, s->dst, s->val);
    break;
  case S_LOAD:
    if (s->dst->kind == SYM_LET) declare_regs(e, s->dst);
    if (s->fuse) {
      if (s->next->kind == S_LET) declare_regs(e, s->next->dst);
      load_store(e, s->view, s->dst, NULL, s->other, NULL, s->next, NULL);
      e->fused = s->next;
    } else {
      load_store(e, s->view, s->dst, NULL, s->other, NULL, NULL, NULL);
    }
    break;
  case S_STORE:
    e->atomic = s->atomic;
    load_store(e, s->view, NULL, s->val, NULL, NULL, NULL, s->via);
    e->atomic = 0;
    break;
  case S_G2S:
    if (s->lead_in) line(e, "/* cp.async: lands with the first stage of the pipelined loop below */");
    e->lead_in = s->lead_in;
    load_store(e, s->view, NULL, NULL, s->other, s->shared, NULL, NULL);
    e->lead_in = 0;
    break;
  case S_SLOAD:
  case S_SSTORE:
    shared_rw(e, s);
    break;
  case S_REDUCE:
    reduce(e, s);
    break;
  case S_GEMM:
    gemm(e, s);
    break;
  case S_FOR: {
    if (s->sched == SCHED_PREFETCH) {
      prefetched(e, s);
      break;
    }
    if (s->sched == SCHED_GEMM) {
      Ring r = ring_names(e, s);
      pipelined_gemm(e, s, s->open_gemm, &r);
      break;
    }
    if (s->sched != SCHED_PLAIN) {
      pipelined(e, s);
      break;
    }
    long long step = 1;
    ltI_const_int(s->step, &step);
    line(e, "for (int %s = %s; %s < %s; %s) {", s->var->name, itext(e, s->lo), s->var->name, itext(e, s->hi),
         step == 1 ? ltU_fmt("++%s", s->var->name) : ltU_fmt("%s += %lld", s->var->name, step));
    e->depth++;
    block(e, &s->body);
    wgmma_wait(e);
    e->depth--;
    line(e, "}");
    break;
  }
  case S_IF: {   /* (nothing in flight here: waits_for_wgmma) */
    int carrying = e->carrying;
    e->carrying = 0;   /* (inside, as everywhere else: a branch waits for its wgmmas before it ends) */
    line(e, "if (%s) {", etext(e, s->val, NULL));
    e->depth++;
    block(e, &s->body);
    if (!carrying) wgmma_wait(e);
    e->depth--;
    const Sym *body[8];
    int n = e->ninflight;
    memcpy(body, e->inflight, sizeof body);
    e->ninflight = 0;
    if (s->orelse.first) {
      line(e, "} else {");
      e->depth++;
      block(e, &s->orelse);
      if (!carrying) wgmma_wait(e);
      e->depth--;
    }
    line(e, "}");
    e->carrying = carrying;
    for (int i = 0; i < n; i++) {   /* what either branch left in flight */
      int m = ltP_add_inflight(e->inflight, e->ninflight, body[i]);
      if (m < 0) {   /* (more than 8: all done after the wait) */
        wgmma_wait(e);
        break;
      }
      e->ninflight = m;
    }
    break;
  }
  case S_BARRIER:
    line(e, "%s", e->barrier);
    break;
  }
}

/* The statements of block b; the wgmmas they issue may still be in flight
** after them (e->inflight). */
static void block(E *e, Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    stmt(e, s);
    if (s->kind == S_FOR || s->kind == S_IF) e->last_line = 0;
  }
}

/* ------------------------------------------------------------------ */
/* names, parameters, launcher, header                                 */

static void name_syms(Kernel *k) {
  int t = 0;
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if (s->name) continue;
    switch (s->kind) {
    case SYM_PID: s->name = ltU_fmt("pid%d", s->axis); break;
    case SYM_LOOP: s->name = ltU_fmt("it%d", ++t); break;
    case SYM_SHARED:
      if (!s->scratch) s->name = ltU_fmt("smem%d", ++t);
      break;
    default: s->name = ltU_fmt("t%d", ++t); break;
    }
  }
  for (int i = 0; i < k->nsyms; i++) {   /* scratch after the values are named */
    Sym *s = k->syms[i];
    if (s->kind == SYM_SHARED && s->scratch && !s->name) s->name = "";
  }
}

static void name_scratch(Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->scratch && !*s->scratch->name) s->scratch->name = ltU_fmt("%s_red", s->dst->name);
    name_scratch(&s->body);
    name_scratch(&s->orelse);
  }
}

static int is_param(const Sym *s) {
  return s->kind == SYM_TENSOR || s->kind == SYM_SIZE || s->kind == SYM_STRIDE || s->kind == SYM_SCALAR;
}

static int param_rank(const Sym *s) {
  return s->kind == SYM_TENSOR ? 0 : s->kind == SYM_SIZE ? 1 : s->kind == SYM_STRIDE ? 2 : 3;
}

/* Parameters in launcher order: tensors, sizes, strides, scalars. */
static int params(Kernel *k, Sym **out) {
  int n = 0;
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < k->nsyms; i++)
      if (is_param(k->syms[i]) && param_rank(k->syms[i]) == r) out[n++] = k->syms[i];
  return n;
}

/* Does stride s go to the kernel as an int?  On targets with int_row_strides
** (AMD: 102 scalar registers, and each int64 stride a kernel keeps takes
** two), a stride that is only ever a tensor's row stride (of its next to
** last dim) does; the launcher refuses one past INT_MAX.  Outer strides
** (batch, head) stay int64: they can pass 2^31 in tensors that exist. */
static int narrow_stride(const E *e, const Sym *s) {
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

static const char *param_decl(const E *e, const Sym *s, int launcher) {
  switch (s->kind) {
  case SYM_TENSOR: {
    int in = !s->stored;
    if (launcher) return ltU_fmt("%svoid *%s", in ? "const " : "", s->name);
    return ltU_fmt("%s%s *%s%s", in ? "const " : "", stype(e, s->dt), e->t->lang == LANG_C ? "restrict " : "__restrict__ ",
                   s->name);
  }
  case SYM_SIZE: return ltU_fmt("int %s", s->name);
  case SYM_STRIDE: return ltU_fmt("%s %s", !launcher && narrow_stride(e, s) ? "int" : "int64_t", s->name);
  default: return ltU_fmt("%s %s", ctype(s->dt), s->name);
  }
}

static const char *launcher_proto(const E *e, const char *name, Sym **ps, int n) {
  Buf b = {0};
  ltU_printf(&b, "int %s(", name);
  for (int i = 0; i < n; i++) ltU_printf(&b, "%s, ", param_decl(e, ps[i], 1));
  ltU_put(&b, "void *stream)");
  return b.p;
}

/* Does an accumulator layout from l up to o use o's row0 (col: col0) name? */
static int named_before(const Layout *l, const Layout *o, int col) {
  for (; l != o; l = l->next)
    if (l->mma && !strcmp(col ? l->col0 : l->row0, col ? o->col0 : o->row0)) return 1;
  return 0;
}

/* The per-thread coordinates of the gemm accumulators' layouts (mma.c):
** the first layout's, then those of the layouts with names of their own. */
static void thread_coords(E *e, const Layout *l) {
  Kernel *k = e->k;
  int W = e->t->warp, wn = k->warps_n, wm = k->warps_m;
  line(e, "const int lane = tid %% %d;", W);
  line(e, "/* warp %s of this block: rows warp_row.. and columns warp_col.. of the [%d, %d] accumulator */",
       ltU_fmt("tid / %d", W), l->rows, l->cols);
  line(e, "const int warp_row = %s;", wm == 1 ? "0" : ltU_fmt("tid / %d * %d", W * wn, l->wtm));
  line(e, "const int warp_col = %s;", wn == 1 ? "0" : ltU_fmt("tid / %d %% %d * %d", W, wn, l->wtn));
  const char *r0, *c0;
  switch (l->mma) {
  case MMA_SYNC:
  case MMA_WGMMA:
  case MMA_TF32: r0 = "lane / 4", c0 = "lane % 4 * 2"; break;
  case MMA_MFMA32: r0 = "lane % 32", c0 = "lane / 32 * 4"; break;
  case MMA_MFMA16: r0 = "lane % 16", c0 = "lane / 16 * 4"; break;
  default: r0 = "lane / 16", c0 = "lane % 16"; break;
  }
  line(e, "/* %s result layout: this thread holds rows row0 + %d i and columns col0 + %d j%s */",
       ltP_mma_name(l->mma), l->rstride, l->cstride, l->vec > 1 ? ltU_fmt(" + 0..%d", l->vec - 1) : "");
  line(e, "const int row0 = warp_row + %s;", r0);
  line(e, "const int col0 = warp_col + %s;", c0);
  for (const Layout *o = l->next; o; o = o->next) {   /* the other rows / columns, once each */
    if (!o->mma) continue;
    if (!named_before(l, o, 0)) {
      line(e, "/* the %d-row accumulators: their warp's rows from %s, this thread's from %s */", o->rows, o->wrow,
           o->row0);
      line(e, "const int %s = tid / %d * %d, %s = %s + %s;", o->wrow, W * wn, o->wtm, o->row0, o->wrow, r0);
    }
    if (!named_before(l, o, 1)) {
      line(e, "/* the %d-column accumulators: their warp's columns from %s, this thread's from %s */", o->cols,
           o->wcol, o->col0);
      line(e, "const int %s = tid / %d %% %d * %d, %s = %s + %s;", o->wcol, W, wn, o->wtn, o->col0, o->wcol, c0);
    }
  }
}

static void emit_kernel(E *e, Sym **ps, int n) {
  Kernel *k = e->k;
  Buf sig = {0};
  if (gpu(e)) {
    ltU_printf(&sig, "__global__ void __launch_bounds__(%d) %s_kernel(", k->threads, k->name);
  } else {
    ltU_printf(&sig, "static void %s_block(", k->name);
    for (int i = 0; i < k->ngrid; i++) ltU_printf(&sig, "int %s, ", k->grid[i]->name);
  }
  for (int i = 0; i < n; i++) ltU_printf(&sig, "%s%s", i ? ", " : "", param_decl(e, ps[i], 0));
  ltU_put(&sig, ")");
  if (gpu(e)) line(e, "/* One block (%d threads) of %s. */", k->threads, k->name);
  else line(e, "/* One block of %s: what one GPU block computes, with one thread. */", k->name);
  line(e, "%s", sig.p);
  line(e, "{");
  e->depth++;
  const Layout *l = k->layouts, *acc = ltP_mma_layout(k);
  if (gpu(e)) {
    line(e, "const int tid = threadIdx.x;");
    if (acc) thread_coords(e, acc);
    if (l && !l->mma && l->tx && strcmp(l->tx, "tx") == 0) line(e, "const int tx = tid %% %d;", l->tc);
    if (l && !l->mma && l->ty && strcmp(l->ty, "ty") == 0) line(e, "const int ty = tid / %d;", l->tc);
    static const char *const axes[] = {"x", "y", "z"};
    for (int i = 0; i < k->ngrid; i++) line(e, "const int %s = blockIdx.%s;", k->grid[i]->name, axes[i]);
  }
  int align = 16;   /* wgmma operands: their swizzle atom's (smem.c) */
  for (int i = 0; i < k->nsyms; i++)
    if (k->syms[i]->kind == SYM_SHARED && k->syms[i]->wgmma) align = 1024;
  if (k->smem_dynamic) line(e, "extern __shared__ __align__(%d) unsigned char lt_smem[];", align);
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if (s->kind != SYM_SHARED) continue;
    const char *ty = s->scratch ? ctype(s->dt) : stype(e, s->dt);
    const char *ring = s->stages > 1 ? ltU_fmt("[%d]", s->stages) : "";
    int pc = panel_cols(s);
    /* the dimensions after the first: [rows][cols], or [panels][rows][64] */
    const char *panels = pc < s->shape[1] ? ltU_fmt("[%d]", s->shape[1] / pc) : "";
    const char *rest = s->stages > 1 ? ltU_fmt("%s[%d][%d]", panels, s->shape[0], pc)
                       : *panels     ? ltU_fmt("[%d][%d]", s->shape[0], pc)
                                     : ltU_fmt("[%d]", s->shape[1]);
    if (s->swizzle) {
      int mask, rsh, shift;
      swizzle_of(s, &mask, &rsh, &shift);
      const char *key = rsh ? ltU_fmt("(r / %d %% %d)", 1 << rsh, mask + 1) : ltU_fmt("(r %% %d)", mask + 1);
      if (s->over)
        line(e, "/* %s: a tile on its way out to global memory, over the tiles above (dead by then); chunk c of row r "
                "stored at c ^ %s, so neither the lanes' pairs nor the rows conflict */", s->name, key);
      else if (s->wgmma)
        line(e, "/* %s%s: rows of 16-byte chunks, chunk c of row r stored at c ^ %s: ldmatrix reads it without "
                "conflicts, and wgmma through a descriptor (its %d-byte swizzle)%s */",
             s->name, s->stages > 1 ? ltU_fmt(" (a ring of %d stages)", s->stages) : "", key, ltP_wgmma_row(s),
             *panels ? ltU_fmt(", in panels of %d columns", pc) : "");
      else
        line(e, "/* %s%s: rows of 16-byte chunks, chunk c of row r stored at c ^ %s, so ldmatrix is conflict-free */",
             s->name, s->stages > 1 ? ltU_fmt(" (a ring of %d stages)", s->stages) : "", key);
    }
    if (k->smem_dynamic)
      line(e, "%s (*%s)%s = (%s (*)%s)(lt_smem + %d);", ty, s->name, rest, ty, rest, s->smem_offset);
    else if (gpu(e) && s->scratch)
      line(e, "__shared__ %s %s[%d][%d];", ty, s->name, s->shape[0], s->shape[1]);
    else if (gpu(e))
      line(e, "__shared__ __attribute__((aligned(%d))) %s %s%s%s[%d][%d];", s->wgmma ? align : 16, ty, s->name, ring,
           panels, s->shape[0], pc);
    else
      line(e, "%s %s%s[%d][%d];", ty, s->name, ring, s->shape[0], s->shape[1]);
  }
  e->last_line = 0;
  block(e, &k->body);
  wgmma_wait(e);
  e->depth--;
  line(e, "}");
}

static void emit_launcher(E *e, Sym **ps, int n) {
  Kernel *k = e->k;
  const Target *t = e->t;
  ltU_put(e->b, "\n");
  line(e, "/* Checks the arguments, then runs %s over its grid%s%s. */", k->name, gpu(e) ? " on `stream`" : "",
       k->bucket ? ltU_fmt(" (the config tuned for %s)", k->bucket) : "");
  if (k->bucket) line(e, "static %s", launcher_proto(e, k->name, ps, n));
  else line(e, "%s%s", gpu(e) ? "extern \"C\" " : "", launcher_proto(e, k->name, ps, n));
  line(e, "{");
  e->depth++;
  if (!gpu(e)) line(e, "(void)stream;");
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
      if (narrow_stride(e, s)) ltU_printf(&rows, "%s%s > 2147483647", rows.n ? " || " : "", s->name);
    } else if (s->kind == SYM_SCALAR && s->positive) {
      ltU_printf(&pos, "%s!(%s > %s)", pos.n ? " || " : "", s->name, s->dt == DT_F32 ? "0.0f" : "0");
    }
  }
  if (nulls.n) line(e, "if (%s) return %s;", nulls.p, t->err_invalid);
  if (sizes.n) line(e, "if (%s) return %s;", sizes.p, t->err_invalid);
  if (big.n)
    line(e, "if (%s) return %s;   /* sizes below 2^30: the kernel's int index math (a size plus a tile) cannot overflow */",
         big.p, t->err_invalid);
  if (rows.n) line(e, "if (%s) return %s;   /* row strides go to the kernel as int */", rows.p, t->err_invalid);
  if (pos.n) line(e, "if (%s) return %s;   /* scalars declared positive (NaN fails too) */", pos.p, t->err_invalid);
  if (align.n) line(e, "if (%s) return %s;", align.p, t->err_misaligned);
  static const char *const g[] = {"grid_x", "grid_y", "grid_z"};
  static const long long lim[] = {2147483647LL, 65535, 65535};
  Buf glim = {0};
  for (int i = 0; i < k->ngrid; i++) {
    e->wide = 1;   /* a product of tile counts can pass 2^31 */
    line(e, "const int64_t %s = %s;", g[i], itext(e, k->grid[i]->extent));
    e->wide = 0;
    ltU_printf(&glim, "%s%s > %lld", glim.n ? " || " : "", g[i], gpu(e) ? lim[i] : 2147483647LL);
  }
  line(e, "if (%s) return %s;", glim.p, t->err_config);
  Buf args = {0};
  for (int i = 0; i < n; i++) {
    Sym *s = ps[i];
    if (s->kind == SYM_TENSOR)
      ltU_printf(&args, "%s(%s%s *)%s", i ? ", " : "", s->stored ? "" : "const ", stype(e, s->dt), s->name);
    else
      ltU_printf(&args, "%s%s%s", i ? ", " : "", narrow_stride(e, s) ? "(int)" : "", s->name);
  }
  if (gpu(e)) {
    line(e, "const dim3 grid((unsigned)grid_x, %s, %s);", k->ngrid > 1 ? "(unsigned)grid_y" : "1",
         k->ngrid > 2 ? "(unsigned)grid_z" : "1");
    int dyn = k->smem_dynamic ? k->smem_bytes : 0;
    if (dyn > t->smem_static && t->lang == LANG_CUDA) {
      line(e, "/* %d bytes of shared memory: over the default 48 KB, so the kernel opts in */", dyn);
      line(e, "const cudaError_t err = cudaFuncSetAttribute(%s_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, %d);",
           k->name, dyn);
      line(e, "if (err != cudaSuccess) return (int)err;");
    }
    if (e->emu) {
      line(e, "return lt_emu_launch(%s_kernel, grid, dim3(%d), %d, stream, %s);", k->name, k->threads, dyn, args.p);
    } else {
      line(e, "%s_kernel<<<grid, dim3(%d), %d, (%s)stream>>>(%s);", k->name, k->threads, dyn,
           t->lang == LANG_CUDA ? "cudaStream_t" : "hipStream_t", args.p);
      line(e, "return (int)%s;", t->err_last);
    }
  } else {
    for (int i = k->ngrid - 1; i >= 0; i--) {
      line(e, "for (int %s = 0; %s < %s; ++%s)", k->grid[i]->name, k->grid[i]->name, g[i], k->grid[i]->name);
      e->depth++;
    }
    Buf pids = {0};
    for (int i = 0; i < k->ngrid; i++) ltU_printf(&pids, "%s, ", k->grid[i]->name);
    line(e, "%s_block(%s%s);", k->name, pids.p, args.p);
    e->depth -= k->ngrid;
    line(e, "return 0;");
  }
  e->depth--;
  line(e, "}");
}

static const char *shape_text(E *e, const Sym *t) {
  Buf b = {0};
  for (int i = 0; i < t->trank; i++) ltU_printf(&b, "%s%s", i ? ", " : "", itext(e, t->dims[i]));
  return b.p;
}

/* The header: the launcher's prototype and how to call it. */
static const char *header(E *e, Sym **ps, int n) {
  Kernel *k = e->k;
  const Target *t = e->t;
  Buf h = {0};
  E he = *e;
  he.b = &h;
  he.depth = 0;
  const char *guard = ltU_fmt("LUATILE_%s_H", k->launcher);
  for (char *p = (char *)guard; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 32);
  ltU_printf(&h, "/*\n * %s.h: launcher of the %s kernel (%s).\n", k->launcher, k->family,
             *k->variant_desc ? k->variant_desc : "no variants");
  ltU_printf(&h, " * Generated by luatile gen %s from %s for target %s; do not edit.\n", LT_VERSION, e->base, t->name);
  if (k->doc) ltU_printf(&h, " *\n * %s\n", k->doc);
  ltU_printf(&h, " *\n * %s\n", launcher_proto(e, k->launcher, ps, n));
  const char *mem = gpu(e) ? "device pointer" : "host pointer";
  for (int i = 0; i < n; i++) {
    Sym *s = ps[i];
    if (s->kind == SYM_TENSOR)
      ltU_printf(&h, " *   %-8s %s [%s], %s, %s\n", s->name, ltI_dtypes[s->dt].name, shape_text(&he, s), mem,
                 s->stored ? (s->loaded ? "read and written" : "written") : "read");
    else if (s->kind == SYM_SIZE)
      ltU_printf(&h, " *   %-8s size, 1 to 2^30 - 1\n", s->name);
    else if (s->kind == SYM_STRIDE)
      ltU_printf(&h, " *   %-8s stride in elements, %s\n", s->name, narrow_stride(&he, s) ? "0 to 2^31 - 1" : ">= 0");
    else
      ltU_printf(&h, " *   %-8s %s scalar%s\n", s->name, ltI_dtypes[s->dt].name, s->positive ? ", > 0" : "");
  }
  const char *bad = "bad size";
  for (int i = 0; i < n; i++)
    if (ps[i]->kind == SYM_SCALAR && ps[i]->positive) bad = "bad size or scalar";
  if (gpu(e)) {
    ltU_printf(&h, " *   %-8s %s to launch on (NULL: the default stream)\n", "stream",
               t->lang == LANG_CUDA ? "cudaStream_t" : "hipStream_t");
    ltU_printf(&h, " * Returns 0 on success, else a %s: %s for a null pointer or a\n"
                   " * %s, %s for a pointer not aligned to its element type,\n"
                   " * %s for a grid too large, or the launch's own error.\n",
               t->lang == LANG_CUDA ? "cudaError_t" : "hipError_t", t->err_invalid, bad, t->err_misaligned,
               t->err_config);
  } else {
    ltU_printf(&h, " *   %-8s unused (the CPU runs the blocks in turn)\n", "stream");
    ltU_printf(&h, " * Returns 0 on success, 1 for a null or misaligned pointer, a %s or a grid too large.\n", bad);
  }
  if (k->bucket)
    ltU_printf(&h, " * Runs the config tuned for the shape bucket nearest the sizes (%d buckets; see the source).\n",
               k->nbuckets);
  ltU_printf(&h, " * Build: %s %s%s\n */\n", build_hint(e), k->launcher, src_ext(e));
  ltU_printf(&h, "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n", guard, guard);
  ltU_put(&h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  ltU_printf(&h, "%s;\n\n", launcher_proto(e, k->launcher, ps, n));
  ltU_put(&h, "#ifdef __cplusplus\n}\n#endif\n\n");
  ltU_printf(&h, "#endif\n");
  return h.p;
}

static const char *basename_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The launcher of a variant tuned for several shape buckets (ks[0..n-1],
** in ltN_buckets' order): runs the bucket whose sizes are nearest the
** call's, in log2 steps after rounding each size up to a power of two as
** the tuner's buckets do; ties go to the first.  ps are the parameters. */
static void emit_dispatch(E *e, Kernel **ks, int n, Sym **ps, int np) {
  Kernel *k = ks[0];
  ltU_put(e->b, "\n");
  line(e, "/* How far size n is from a bucket's size 2^b: |log2 n - b|, n rounded up to a power of two. */");
  line(e, "static int lt_bucket_distance(int n, int b)");
  line(e, "{");
  line(e, "  int l = 0;");
  line(e, "  while (l < 31 && (1 << l) < n) ++l;");
  line(e, "  return l > b ? l - b : b - l;");
  line(e, "}");
  ltU_put(e->b, "\n");
  line(e, "/* Runs the config tuned for the shape bucket nearest the call's sizes: the");
  line(e, "** least sum of lt_bucket_distance over the sizes it names (ties: the first). */");
  line(e, "%s%s", gpu(e) ? "extern \"C\" " : "", launcher_proto(e, k->launcher, ps, np));
  line(e, "{");
  e->depth++;
  Buf args = {0};
  for (int i = 0; i < np; i++) ltU_printf(&args, "%s, ", ps[i]->name);
  ltU_put(&args, "stream");
  const char *sizes[128];
  int nsizes = 0;
  for (int i = 0; i < np; i++)
    if (ps[i]->kind == SYM_SIZE) sizes[nsizes++] = ps[i]->name;
  for (int i = 0; i < n; i++) {
    const char *keys[LT_MAXRANK * 4];
    int log2s[LT_MAXRANK * 4];
    int nk = ltN_bucket_sizes(k->tuned, ks[i]->bucket, sizes, nsizes, keys, log2s);
    Buf d = {0};
    for (int j = 0; j < nk; j++) ltU_printf(&d, "%slt_bucket_distance(%s, %d)", j ? " + " : "", keys[j], log2s[j]);
    line(e, "const int d%d = %s;   /* %s */", i, d.p, ks[i]->bucket);
  }
  if (e->emu) {   /* tests/emu runs each bucket's kernel on its small shapes */
    line(e, "/* the emulator: LT_EMU_BUCKET=i runs bucket i's config, whatever the sizes */");
    line(e, "const long forced = lt_emu::env_long(\"LT_EMU_BUCKET\", -1);");
    for (int i = 0; i < n; i++) line(e, "if (forced == %d) return %s(%s);", i, ks[i]->name, args.p);
  }
  for (int i = 0; i < n - 1; i++) {
    Buf c = {0};
    for (int j = i + 1; j < n; j++) ltU_printf(&c, "%sd%d <= d%d", j > i + 1 ? " && " : "", i, j);
    line(e, "if (%s) return %s(%s);", c.p, ks[i]->name, args.p);
  }
  line(e, "return %s(%s);", ks[n - 1]->name, args.p);
  e->depth--;
  line(e, "}");
}

/* Prints the variant of ks[0..n-1] for target t: the source file and its
** header.  n is 1, or the number of tuned shape buckets: then each bucket's
** kernel and launcher are static and one launcher picks among them. */
Output ltE_emit(Kernel **ks, int n, const Target *t, int emulate) {
  Kernel *k = ks[0];
  for (int i = 0; i < n; i++) name_syms(ks[i]), name_scratch(&ks[i]->body);
  Buf src = {0};
  E e = {.b = &src, .k = k, .t = t, .base = basename_of(ltU_file), .emu = emulate, .lane = "lane"};
  Sym *ps[128];
  int np = params(k, ps);
  ltU_printf(&src, "/*\n * %s%s: the %s kernel (%s) for %s%s.\n", k->launcher, src_ext(&e), k->family,
             *k->variant_desc ? k->variant_desc : "no variants", t->name, emulate ? ", emulated on the CPU" : "");
  ltU_printf(&src, " * Generated by luatile gen %s from %s; do not edit.\n", LT_VERSION, e.base);
  if (k->doc) ltU_printf(&src, " *\n * %s\n", k->doc);
  if (n == 1) {
    ltU_printf(&src, " *\n * Config: %s.\n", *k->config_desc ? k->config_desc : "none");
  } else {
    ltU_printf(&src, " *\n * Configs, one per tuned shape bucket; the launcher runs the nearest's:\n");
    for (int i = 0; i < n; i++) ltU_printf(&src, " *   %s: %s\n", ks[i]->bucket, ks[i]->config_desc);
  }
  ltU_printf(&src, " * Build: %s %s%s\n */\n", build_hint(&e), k->launcher, src_ext(&e));
  ltU_put(&src, ltT_prologue(t, ks, n, emulate));
  for (int i = 0; i < n; i++) {
    E ei = e;
    ei.k = ks[i];
    ei.barrier = ks[i]->mma == MMA_WGMMA ? "lt_wgmma_barrier();" : t->barrier;
    Sym *pi[128];
    int npi = params(ks[i], pi);
    ltU_put(&src, "\n");
    emit_kernel(&ei, pi, npi);
    emit_launcher(&ei, pi, npi);
  }
  if (n > 1) emit_dispatch(&e, ks, n, ps, np);
  Output out = {src.p, header(&e, ps, np)};
  return out;
}

/* --explain lines of the gemms and pipelined loops in block bl: the
** instruction each gemm became and how its warps split the tile, and the
** depth and kind of each pipeline.  Counts them in *ngemm and *npipe. */
static void explain_ops(const E *e, const Block *bl, Buf *b, int *ngemm, int *npipe) {
  for (const Stmt *s = bl->first; s; s = s->next) {
    if (s->kind == S_GEMM) {
      const Layout *l = s->dst->layout;
      const char *a = s->areg ? ltU_fmt("registers %s", s->areg->name) : s->shared->name;
      ltU_printf(b, "  matrix instruction (%s:%d): %s for %s [%d, %d] += %s%s @ %s%s", e->base, s->line,
                 ltP_mma_name(s->inst), s->dst->name, s->dst->shape[0], s->dst->shape[1], a,
                 s->trans_a ? "^T" : "", s->shared_b->name, s->trans_b ? "^T" : "");
      if (s->inst == MMA_WGMMA)
        ltU_printf(b, "; %d warpgroups of [64, %d], A %s, B by descriptor", l->rows / 64, l->cols,
                   s->shared && s->shared->wgmma ? "by descriptor" : "from registers");
      else if (s->inst != MMA_FMA)
        ltU_printf(b, "; %d x %d warps of [%d, %d], [%d, %d] per instruction", l->rows / l->wtm, l->cols / l->wtn,
                   l->wtm, l->wtn, l->im, l->in);
      ltU_put(b, "\n");
      (*ngemm)++;
    }
    if (s->kind == S_FOR && s->sched == SCHED_PREFETCH) {
      const Stmt *p = s->body.first;
      while (p->kind != S_G2S) p = p->next;
      ltU_printf(b, "  pipeline (%s:%d): iteration i + 1's copies loaded into registers while iteration i computes, "
                    "then stored to %s\n", e->base, s->line,
                 p->shared->stages == 2 ? "the other buffer of a shared-memory double buffer (one barrier an iteration)"
                                        : "the one buffer, between two barriers (a double buffer does not fit)");
      (*npipe)++;
    } else if (s->kind == S_FOR && s->sched != SCHED_PLAIN) {
      ltU_printf(b, "  pipeline (%s:%d): %d stages, %s%s\n", e->base, s->line, s->stages,
                 "a ring of shared-memory stages filled by cp.async, one commit group a stage",
                 s->sched == SCHED_GEMM
                     ? "; one software pipeline with the gemm's 16-wide K steps (ldmatrix a step ahead, copies "
                       "between steps, the barrier at the second-last step)"
                     : "");
      (*npipe)++;
    } else if (s->kind == S_FOR && s->stages == 1) {   /* a k:pipelined loop that runs plain (plan.c) */
      ltU_printf(b, "  pipeline (%s:%d): none, the loop runs one tile at a time (%s)\n", e->base, s->line,
                 !gpu(e) ? "one thread a block: nothing to overlap"
                         : "stages < 2; or, without cp.async, a target without the register prefetch "
                           "(gfx1100), work other than one gemm or a copy not in 16-byte chunks a thread");
      (*npipe)++;
    }
    explain_ops(e, &s->body, b, ngemm, npipe);
    explain_ops(e, &s->orelse, b, ngemm, npipe);
  }
}

/* --explain: the plan of kernel k on target t, for a person. */
void ltE_explain(Kernel *k, const Target *t, Buf *b) {
  name_syms(k);
  name_scratch(&k->body);
  E e = {.b = b, .k = k, .t = t, .base = basename_of(ltU_file), .lane = "lane"};
  ltU_printf(b, "%s on %s (%s)\n", k->name, t->name, t->desc);
  if (k->bucket)
    ltU_printf(b, "  tuned for shape bucket %s: %s runs it for the sizes nearest it (1 of %d configs)\n", k->bucket,
               k->launcher, k->nbuckets);
  ltU_put(b, "  grid:");
  for (int i = 0; i < k->ngrid; i++) ltU_printf(b, " %s%s", i ? "x " : "", itext(&e, k->grid[i]->extent));
  ltU_printf(b, " programs; block: %d thread%s (%d-lane warps)\n", k->threads, k->threads > 1 ? "s" : "", t->warp);
  for (const Layout *l = k->layouts; l; l = l->next) {
    if (l->mma != MMA_FMA) {
      ltU_printf(b, "  register tile [%d, %d]: %s accumulator, per warp [%d, %d], each thread holds %d elements\n",
                 l->rows, l->cols, ltP_mma_name(l->mma), l->wtm, l->wtn, l->nr * l->nc * l->vec);
      continue;
    }
    ltU_printf(b, "  register tile [%d, %d]: %d x %d threads (rows x cols), each holds %d row%s x %d chunk%s of %d "
                  "column%s = %d elements\n",
               l->rows, l->cols, l->tr, l->tc, l->nr, l->nr > 1 ? "s" : "", l->nc, l->nc > 1 ? "s" : "", l->vec,
               l->vec > 1 ? "s" : "", l->nr * l->nc * l->vec);
  }
  ltU_printf(b, "  shared memory: %d bytes\n", k->smem_bytes);
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if (s->kind == SYM_SHARED)
      ltU_printf(b, "    %s: %s [%d, %d], %d bytes at %d%s\n", s->name, ltI_dtypes[s->dt].name, s->shape[0],
                 s->shape[1], s->smem_bytes, s->smem_offset, s->scratch ? " (reduction scratch)" : "");
  }
  int ngemm = 0, npipe = 0;
  explain_ops(&e, &k->body, b, &ngemm, &npipe);
  if (!ngemm) ltU_put(b, "  matrix instruction: none (no gemm)\n");
  if (!npipe) ltU_put(b, "  pipeline: none (no k:pipelined loop)\n");
}
