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
} E;

#define EMU_EXT ".emu.cpp"
#define EMU_BUILD "c++ -std=c++17 -O1 -pthread -c"

static const char *src_ext(const E *e) { return e->emu ? EMU_EXT : e->t->ext; }
static const char *build_hint(const E *e) { return e->emu ? EMU_BUILD : e->t->build_hint; }

/* Element context: which per-thread loops are open around a tile statement. */
typedef struct Ctx {
  const Layout *l;
  int shape[2];
  const char *ri, *ci, *vi;   /* loop variable names, NULL: not looping (0) */
} Ctx;

static int gpu(const E *e) { return e->t->lang != LANG_C; }

static void line(E *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(E *e, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  ltU_indent(e->b, e->depth);
  ltU_put(e->b, buf);
  ltU_put(e->b, "\n");
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

static const char *tx_name(const Layout *l) { return l->tc == 1 ? NULL : l->tc == l->threads ? "tid" : "tx"; }
static const char *ty_name(const Layout *l) { return l->tr == 1 ? NULL : l->tr == l->threads ? "tid" : "ty"; }

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
  return sum(term(c->ri, c->l->tr), ty_name(c->l));
}

static const char *tile_col(const Ctx *c) {
  if (c->shape[1] != c->l->cols) return NULL;
  return sum(term(sum(term(c->ci, c->l->tc), tx_name(c->l)), c->l->vec), c->vi);
}

/* Opens the loops of a context over a tile shape; returns how many. */
static int open_loops(E *e, Ctx *c, const Layout *l, const int shape[2], int rows, int chunks, int lanes) {
  c->l = l;
  c->shape[0] = shape[0];
  c->shape[1] = shape[1];
  if (rows) c->ri = NULL;   /* loops not asked for keep an enclosing loop's index */
  if (chunks) c->ci = NULL;
  if (lanes) c->vi = NULL;
  int n = 0;
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
  (void)e;
  if (s->rank == 0) {
    ltU_put(o, s->name);
    return;
  }
  ltU_printf(o, "%s[%s]", s->name, reg_index(c, s->shape));
}

/* C precedence of the operator at the top of x (higher binds tighter). */
static int prec(const Expr *x) {
  if (x->kind == E_SELECT) return 1;
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
    int left_paren = pa < p, right_paren = pb < p || (pb == p && !(x->op == B_ADD || x->op == B_MUL));
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
static void tile_assign(E *e, const Sym *dst, const Expr *val) {
  Ctx c = {0};
  int n = open_loops(e, &c, dst->layout, dst->shape, 1, 1, 1);
  const char *v = etext(e, val, &c);
  if (dst->kind == SYM_FRAG && (dst->dt == DT_F16 || dst->dt == DT_BF16))
    v = ltU_fmt("lt_round_%s(%s)", dst->dt == DT_F16 ? "f16" : "bf16", v);
  line(e, "%s[%s] = %s;", dst->name, reg_index(&c, dst->shape), v);
  close_loops(e, n);
}

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

/* Loads or stores a view, chunk by chunk.  For a load, dst receives the
** elements (other outside the tensor); for a store, val is written.
** `shared`: the other side is that shared tile instead of registers. */
static void load_store(E *e, const View *v, const Sym *dst, const Expr *val, const Expr *other, const Sym *sh) {
  const Sym *t = v->t;
  int shape[2] = {v->rdim >= 0 ? v->ext[v->rdim] : 1, v->ext[v->cdim]};
  const Layout *l = ltP_layout_of(e->k, shape);
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
  if (store) {   /* replicated copies of a slice: one thread stores */
    if (shape[0] == 1 && l->tr > 1 && l->rows > 1) ok = all_of(ok, ltU_fmt("%s == 0", ty_name(l)));
    if (shape[1] == 1 && l->tc > 1 && l->cols > 1) ok = all_of(ok, ltU_fmt("%s == 0", tx_name(l)));
  }
  if (ok) line(e, "const bool ok = %s;", ok);
  line(e, "%s%s *base = %s%s;", store ? "" : "const ", tn, t->name, base ? ltU_fmt(" + %s", base) : "");
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
  const char *elem_ok = all_of(chunk_ok, vcols ? ltU_fmt("%s%s < %s", lo, V > 1 ? "gc + vi" : "gc", lim) : NULL);
  const char *shared_at = NULL;
  if (sh) shared_at = ltU_fmt("%s[%s][%s]", sh->name, or0(tile_row(&ce)), or0(tile_col(&ce)));
  if (V > 1 && unit_stride && gpu(e) && bytes >= 4) {
    const char *vt = bytes >= 16 ? "uint4" : bytes == 8 ? "uint2" : "uint32_t";
    int pieces = bytes >= 16 ? bytes / 16 : 1;
    int align = bytes >= 16 ? 16 : bytes;
    line(e, "if (%s%s + %d <= %s && (uintptr_t)ptr %% %d == 0) {", chunk_ok ? ltU_fmt("%s && ", chunk_ok) : "", "gc",
         V, lim, align);
    e->depth++;
    if (sh) {  /* global <-> shared: copy the bits */
      Ctx c0 = c;
      c0.vi = NULL;
      for (int p = 0; p < pieces; p++)
        line(e, "((%s *)&%s[%s][%s])[%d] = ((const %s *)ptr)[%d];", vt, sh->name, or0(tile_row(&c0)),
             or0(tile_col(&c0)), p, vt, p);
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
    if (elem_ok) line(e, "if (%s) %s = %s;", elem_ok, elem_ptr, x);
    else line(e, "%s = %s;", elem_ptr, x);
  }
  if (V > 1) {
    e->depth--;
    line(e, "}");
  }
  if (V > 1 && unit_stride && gpu(e) && bytes >= 4) {
    e->depth--;
    line(e, "}");
  }
  close_loops(e, n);
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
  if (ax == 1) {
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
    const char *grp = ax == 1 ? ltU_fmt("%s / %d", tx_name(l), W) : ltU_fmt("tid / %d", l->tc > W ? l->tc : W);
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
    line(e, "%s", e->t->barrier);
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
         to_compute(e, sh->dt, ltU_fmt("%s[%s][%s]", sh->name, or0(tile_row(&c)), or0(tile_col(&c)))));
    close_loops(e, n);
    return;
  }
  const Layout *l = ltP_layout_of(e->k, sh->shape);
  Ctx c = {0};
  int n = open_loops(e, &c, l, sh->shape, 1, 1, 1);
  line(e, "%s[%s][%s] = %s;", sh->name, or0(tile_row(&c)), or0(tile_col(&c)),
       to_storage(e, sh->dt, etext(e, s->val, &c)));
  close_loops(e, n);
}

static void stmt(E *e, Stmt *s) {
  if (s->kind != S_BARRIER) comment(e, s->line);
  switch (s->kind) {
  case S_LET:
    if (s->dst->rank == 0) {
      line(e, "const %s %s = %s;", ctype(s->dst->dt), s->dst->name, etext(e, s->val, NULL));
    } else {
      declare_regs(e, s->dst);
      tile_assign(e, s->dst, s->val);
    }
    break;
  case S_FRAG:
    declare_regs(e, s->dst);
    if (s->val) tile_assign(e, s->dst, s->val);
    break;
  case S_ASSIGN:
    tile_assign(e, s->dst, s->val);
    break;
  case S_LOAD:
    if (s->dst->kind == SYM_LET) declare_regs(e, s->dst);
    load_store(e, s->view, s->dst, NULL, s->other, NULL);
    break;
  case S_STORE:
    load_store(e, s->view, NULL, s->val, NULL, NULL);
    break;
  case S_G2S:
    load_store(e, s->view, NULL, NULL, s->other, s->shared);
    break;
  case S_SLOAD:
  case S_SSTORE:
    shared_rw(e, s);
    break;
  case S_REDUCE:
    reduce(e, s);
    break;
  case S_FOR: {
    long long step = 1;
    ltI_const_int(s->step, &step);
    line(e, "for (int %s = %s; %s < %s; %s) {", s->var->name, itext(e, s->lo), s->var->name, itext(e, s->hi),
         step == 1 ? ltU_fmt("++%s", s->var->name) : ltU_fmt("%s += %lld", s->var->name, step));
    e->depth++;
    block(e, &s->body);
    e->depth--;
    line(e, "}");
    break;
  }
  case S_IF:
    line(e, "if (%s) {", etext(e, s->val, NULL));
    e->depth++;
    block(e, &s->body);
    e->depth--;
    if (s->orelse.first) {
      line(e, "} else {");
      e->depth++;
      block(e, &s->orelse);
      e->depth--;
    }
    line(e, "}");
    break;
  case S_BARRIER:
    line(e, "%s", e->t->barrier);
    break;
  }
}

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

static const char *param_decl(const E *e, const Sym *s, int launcher) {
  switch (s->kind) {
  case SYM_TENSOR: {
    int in = !s->stored;
    if (launcher) return ltU_fmt("%svoid *%s", in ? "const " : "", s->name);
    return ltU_fmt("%s%s *%s%s", in ? "const " : "", stype(e, s->dt), e->t->lang == LANG_C ? "restrict " : "__restrict__ ",
                   s->name);
  }
  case SYM_SIZE: return ltU_fmt("int %s", s->name);
  case SYM_STRIDE: return ltU_fmt("int64_t %s", s->name);
  default: return ltU_fmt("%s %s", ctype(s->dt), s->name);
  }
}

static const char *launcher_proto(const E *e, Sym **ps, int n) {
  Buf b = {0};
  ltU_printf(&b, "int %s(", e->k->name);
  for (int i = 0; i < n; i++) ltU_printf(&b, "%s, ", param_decl(e, ps[i], 1));
  ltU_put(&b, "void *stream)");
  return b.p;
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
  const Layout *l = k->layouts;
  if (gpu(e)) {
    line(e, "const int tid = threadIdx.x;");
    if (l && l->tc > 1 && l->tc < l->threads) line(e, "const int tx = tid %% %d;", l->tc);
    if (l && l->tr > 1 && l->tr < l->threads) line(e, "const int ty = tid / %d;", l->tc);
    static const char *const axes[] = {"x", "y", "z"};
    for (int i = 0; i < k->ngrid; i++) line(e, "const int %s = blockIdx.%s;", k->grid[i]->name, axes[i]);
  }
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if (s->kind != SYM_SHARED) continue;
    if (gpu(e) && s->scratch)
      line(e, "__shared__ %s %s[%d][%d];", ctype(s->dt), s->name, s->shape[0], s->shape[1]);
    else if (gpu(e))
      line(e, "__shared__ __attribute__((aligned(16))) %s %s[%d][%d];", stype(e, s->dt), s->name, s->shape[0],
           s->shape[1]);
    else
      line(e, "%s %s[%d][%d];", s->scratch ? ctype(s->dt) : stype(e, s->dt), s->name, s->shape[0], s->shape[1]);
  }
  e->last_line = 0;
  block(e, &k->body);
  e->depth--;
  line(e, "}");
}

static void emit_launcher(E *e, Sym **ps, int n) {
  Kernel *k = e->k;
  const Target *t = e->t;
  ltU_put(e->b, "\n");
  line(e, "/* Checks the arguments, then runs %s over its grid%s. */", k->name, gpu(e) ? " on `stream`" : "");
  line(e, "%s%s", gpu(e) ? "extern \"C\" " : "", launcher_proto(e, ps, n));
  line(e, "{");
  e->depth++;
  if (!gpu(e)) line(e, "(void)stream;");
  Buf nulls = {0}, sizes = {0}, align = {0};
  for (int i = 0; i < n; i++) {
    Sym *s = ps[i];
    if (s->kind == SYM_TENSOR) {
      ltU_printf(&nulls, "%s%s == NULL", nulls.n ? " || " : "", s->name);
      if (ltI_dtypes[s->dt].bytes > 1)
        ltU_printf(&align, "%s(uintptr_t)%s %% %d != 0", align.n ? " || " : "", s->name, ltI_dtypes[s->dt].bytes);
    } else if (s->kind == SYM_SIZE) {
      ltU_printf(&sizes, "%s%s <= 0", sizes.n ? " || " : "", s->name);
    } else if (s->kind == SYM_STRIDE) {
      ltU_printf(&sizes, "%s%s < 0", sizes.n ? " || " : "", s->name);
    }
  }
  if (nulls.n) line(e, "if (%s) return %s;", nulls.p, t->err_invalid);
  if (sizes.n) line(e, "if (%s) return %s;", sizes.p, t->err_invalid);
  if (align.n) line(e, "if (%s) return %s;", align.p, t->err_misaligned);
  static const char *const g[] = {"grid_x", "grid_y", "grid_z"};
  static const long long lim[] = {2147483647LL, 65535, 65535};
  Buf glim = {0};
  for (int i = 0; i < k->ngrid; i++) {
    line(e, "const int64_t %s = %s;", g[i], itext(e, k->grid[i]->extent));
    ltU_printf(&glim, "%s%s > %lld", glim.n ? " || " : "", g[i], gpu(e) ? lim[i] : 2147483647LL);
  }
  line(e, "if (%s) return %s;", glim.p, t->err_config);
  Buf args = {0};
  for (int i = 0; i < n; i++) {
    Sym *s = ps[i];
    if (s->kind == SYM_TENSOR)
      ltU_printf(&args, "%s(%s%s *)%s", i ? ", " : "", s->stored ? "" : "const ", stype(e, s->dt), s->name);
    else
      ltU_printf(&args, "%s%s", i ? ", " : "", s->name);
  }
  if (gpu(e)) {
    line(e, "const dim3 grid((unsigned)grid_x, %s, %s);", k->ngrid > 1 ? "(unsigned)grid_y" : "1",
         k->ngrid > 2 ? "(unsigned)grid_z" : "1");
    if (e->emu) {
      line(e, "return lt_emu_launch(%s_kernel, grid, dim3(%d), 0, stream, %s);", k->name, k->threads, args.p);
    } else {
      line(e, "%s_kernel<<<grid, dim3(%d), 0, (%s)stream>>>(%s);", k->name, k->threads,
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
  const char *guard = ltU_fmt("LUATILE_%s_H", k->name);
  for (char *p = (char *)guard; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 32);
  ltU_printf(&h, "/*\n * %s.h: launcher of the %s kernel (%s).\n", k->name, k->family,
             *k->variant_desc ? k->variant_desc : "no variants");
  ltU_printf(&h, " * Generated by luatile gen %s from %s for target %s; do not edit.\n", LT_VERSION, e->base, t->name);
  if (k->doc) ltU_printf(&h, " *\n * %s\n", k->doc);
  ltU_printf(&h, " *\n * %s\n", launcher_proto(e, ps, n));
  const char *mem = gpu(e) ? "device pointer" : "host pointer";
  for (int i = 0; i < n; i++) {
    Sym *s = ps[i];
    if (s->kind == SYM_TENSOR)
      ltU_printf(&h, " *   %-8s %s [%s], %s, %s\n", s->name, ltI_dtypes[s->dt].name, shape_text(&he, s), mem,
                 s->stored ? (s->loaded ? "read and written" : "written") : "read");
    else if (s->kind == SYM_SIZE)
      ltU_printf(&h, " *   %-8s size, > 0\n", s->name);
    else if (s->kind == SYM_STRIDE)
      ltU_printf(&h, " *   %-8s stride in elements, >= 0\n", s->name);
    else
      ltU_printf(&h, " *   %-8s %s scalar\n", s->name, ltI_dtypes[s->dt].name);
  }
  if (gpu(e)) {
    ltU_printf(&h, " *   %-8s %s to launch on (NULL: the default stream)\n", "stream",
               t->lang == LANG_CUDA ? "cudaStream_t" : "hipStream_t");
    ltU_printf(&h, " * Returns 0 on success, else a %s: %s for a null pointer or a\n"
                   " * bad size, %s for a pointer not aligned to its element type,\n"
                   " * %s for a grid too large, or the launch's own error.\n",
               t->lang == LANG_CUDA ? "cudaError_t" : "hipError_t", t->err_invalid, t->err_misaligned, t->err_config);
  } else {
    ltU_printf(&h, " *   %-8s unused (the CPU runs the blocks in turn)\n", "stream");
    ltU_put(&h, " * Returns 0 on success, 1 for a null or misaligned pointer, a bad size or a grid too large.\n");
  }
  ltU_printf(&h, " * Build: %s %s%s\n */\n", build_hint(e), k->name, src_ext(e));
  ltU_printf(&h, "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n", guard, guard);
  ltU_put(&h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  ltU_printf(&h, "%s;\n\n", launcher_proto(e, ps, n));
  ltU_put(&h, "#ifdef __cplusplus\n}\n#endif\n\n");
  ltU_printf(&h, "#endif\n");
  return h.p;
}

static const char *basename_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* Prints kernel k for target t: the source file and its header. */
Output ltE_emit(Kernel *k, const Target *t, int emulate) {
  name_syms(k);
  name_scratch(&k->body);
  Buf src = {0};
  E e = {.b = &src, .k = k, .t = t, .base = basename_of(ltU_file), .emu = emulate};
  Sym *ps[128];
  int n = params(k, ps);
  ltU_printf(&src, "/*\n * %s%s: the %s kernel (%s) for %s%s.\n", k->name, src_ext(&e), k->family,
             *k->variant_desc ? k->variant_desc : "no variants", t->name, emulate ? ", emulated on the CPU" : "");
  ltU_printf(&src, " * Generated by luatile gen %s from %s; do not edit.\n", LT_VERSION, e.base);
  if (k->doc) ltU_printf(&src, " *\n * %s\n", k->doc);
  ltU_printf(&src, " *\n * Config: %s.\n", *k->config_desc ? k->config_desc : "none");
  ltU_printf(&src, " * Build: %s %s%s\n */\n", build_hint(&e), k->name, src_ext(&e));
  ltU_put(&src, ltT_prologue(t, emulate));
  ltU_put(&src, "\n");
  emit_kernel(&e, ps, n);
  emit_launcher(&e, ps, n);
  Output out = {src.p, header(&e, ps, n)};
  return out;
}

/* --explain: the plan of kernel k on target t, for a person. */
void ltE_explain(Kernel *k, const Target *t, Buf *b) {
  name_syms(k);
  name_scratch(&k->body);
  E e = {.b = b, .k = k, .t = t, .base = basename_of(ltU_file)};
  ltU_printf(b, "%s on %s (%s)\n", k->name, t->name, t->desc);
  ltU_put(b, "  grid:");
  for (int i = 0; i < k->ngrid; i++) ltU_printf(b, " %s%s", i ? "x " : "", itext(&e, k->grid[i]->extent));
  ltU_printf(b, " programs; block: %d thread%s (%d-lane warps)\n", k->threads, k->threads > 1 ? "s" : "", t->warp);
  for (const Layout *l = k->layouts; l; l = l->next)
    ltU_printf(b, "  register tile [%d, %d]: %d x %d threads (rows x cols), each holds %d row%s x %d chunk%s of %d "
                  "column%s = %d elements\n",
               l->rows, l->cols, l->tr, l->tc, l->nr, l->nr > 1 ? "s" : "", l->nc, l->nc > 1 ? "s" : "", l->vec,
               l->vec > 1 ? "s" : "", l->nr * l->nc * l->vec);
  ltU_printf(b, "  shared memory: %d bytes\n", k->smem_bytes);
  for (int i = 0; i < k->nsyms; i++) {
    Sym *s = k->syms[i];
    if (s->kind == SYM_SHARED)
      ltU_printf(b, "    %s: %s [%d, %d], %d bytes at %d%s\n", s->name, ltI_dtypes[s->dt].name, s->shape[0],
                 s->shape[1], s->smem_bytes, s->smem_offset, s->scratch ? " (reduction scratch)" : "");
  }
  ltU_put(b, "  matrix instruction: none (no gemm); pipeline: none (no k:pipelined loop)\n");
}
