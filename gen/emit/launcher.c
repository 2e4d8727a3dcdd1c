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
** per distinct kernel code (pass/share.c), static, and dispatch.c's picks
** among them.  A kernel with split views (Kernel.split_of) launches its
** split twin instead where a row of one of those tensors starts off the
** 16-byte grid (off_grid), and one with a row twin (pass/row.c) that twin
** where A is one row (row_twin).
*/
#include "emit/emit.h"

/* The launcher's prototype: int name(params..., void *stream). */
const char *ltE_launcher_proto(const E *e, const char *name, Sym **ps, int n) {
  Buf b = {0};
  ltU_printf(&b, "int %s(", name);
  for (int i = 0; i < n; i++)
    if (!ps[i]->device) ltU_printf(&b, "%s, ", ltE_param_decl(e, ps[i], 1));
  ltU_put(&b, "void *stream)");
  return b.p;
}

/* The same with a workspace before the stream: the launcher of a split-K
** kernel (Kernel.splitk), and NAME_ws of a variant that has one. */
const char *ltE_launcher_proto_ws(const E *e, const char *name, Sym **ps, int n) {
  const char *p = ltE_launcher_proto(e, name, ps, n);
  return ltU_fmt("%.*svoid *workspace, int64_t workspace_bytes, void *stream)", (int)(strlen(p) - strlen("void *stream)")),
                 p);
}

/* Does kernel k's launcher take a workspace: a GPU kernel that splits K
** (Kernel.splitk) or whose blocks take their programs from a counter
** (Kernel.queue)? */
int ltE_takes_ws(const E *e, const Kernel *k) { return ltE_gpu(e) && (k->splitk || k->queue); }

/* After NAME_ws, the launcher of a variant with kernels ks[0..n-1] of
** which some take a workspace (ltE_takes_ws): NAME, which runs it without
** one, and NAME_workspace, the bytes of workspace its kernels can use on
** the current device (-1 where the device query fails; a counter's 16
** bytes for a queue). */
void ltE_splitk_entries(E *e, Kernel **ks, int nk, Sym **ps, int n) {
  const Kernel *k = ks[0];
  Buf args = {0};
  for (int i = 0; i < n; i++)
    if (!ps[i]->device) ltU_printf(&args, "%s, ", ps[i]->name);
  ltU_put(e->b, "\n");
  ltE_line(e, "/* The workspace %s_ws can use on the current device: zeroed before its first use (each call leaves "
              "it so), 16-byte aligned, one a stream. */", k->launcher);
  ltE_line(e, "extern \"C\" int64_t %s_workspace(void)", k->launcher);
  ltE_line(e, "{");
  e->depth++;
  ltE_line(e, "int n = 0;");
  ltE_line(e, "if (lt_sm_count(&n) != 0) return -1;");
  ltE_line(e, "const int64_t sms = n;");
  ltE_line(e, "int64_t bytes = 0;");
  for (int i = 0; i < nk; i++)
    if (ks[i]->shared) {   /* its kernel is an earlier bucket's, counted there */
    } else if (ks[i]->splitk) {
      ltE_line(e, "if (bytes < %s) bytes = %s;", ltL_splitk_bound(ks[i]), ltL_splitk_bound(ks[i]));
    } else if (ks[i]->queue) {
      ltE_line(e, "if (bytes < 16) bytes = 16;   /* %s: the counter of its programs (lt_queue_next) */", ks[i]->name);
    }
  ltE_line(e, "return bytes;");
  e->depth--;
  ltE_line(e, "}");
  ltU_put(e->b, "\n");
  int split = 0;
  for (int i = 0; i < nk; i++) split |= ks[i]->splitk;
  ltE_line(e, "/* %s_ws without a workspace: %s. */", k->launcher, split ? "no split-K" : "one program a block");
  ltE_line(e, "extern \"C\" %s", ltE_launcher_proto(e, k->launcher, ps, n));
  ltE_line(e, "{");
  if (e->emu && !split) {   /* tests/emu: the calls take the counter (LT_EMU_QUEUE=0: none), which each leaves 0 */
    ltE_line(e, "  if (lt_emu::env_long(\"LT_EMU_QUEUE\", 1) != 0) {");
    ltE_line(e, "    static unsigned queue[4];");
    ltE_line(e, "    const int err = %s_ws(%squeue, sizeof queue, stream);", k->launcher, args.p);
    ltE_line(e, "    if (err == 0 && queue[0] != 0) {");
    ltE_line(e, "      fprintf(stderr, \"%s: the counter of the programs is %%u after the call, not 0\\n\", queue[0]);",
             k->launcher);
    ltE_line(e, "      return 1;");
    ltE_line(e, "    }");
    ltE_line(e, "    return err;");
    ltE_line(e, "  }");
  }
  if (e->emu && split) {   /* tests/emu: LT_EMU_SPLITS runs the calls with a workspace, the same one each time */
    ltE_line(e, "  if (lt_emu::env_long(\"LT_EMU_SPLITS\", 0) > 0) {");
    ltE_line(e, "    static const int64_t bytes = 8 * %s_workspace();   /* room for LT_EMU_SPLITS' programs, several a "
                "block */", k->launcher);
    ltE_line(e, "    static void *workspace = calloc((size_t)bytes, 1);");
    ltE_line(e, "    return %s_ws(%sworkspace, bytes, stream);", k->launcher, args.p);
    ltE_line(e, "  }");
  }
  ltE_line(e, "  return %s_ws(%sNULL, 0, stream);", k->launcher, args.p);
  ltE_line(e, "}");
}

/* Is x a stride argument of the launcher? */
static int stride_arg(const Expr *x) { return x->kind == E_SYM && x->sym->kind == SYM_STRIDE; }

/* The launcher's bound on tensor t's extent: the condition, NULL where
** the sizes alone keep it (every size is below 2^30), that refuses the
** offset of its last element (the sum of (size - 1) * stride, in double
** so that the check itself cannot overflow) at 2^62 or more, so that the
** kernel's int64 offset arithmetic cannot overflow. */
static const char *span_fails(E *e, const Sym *t) {
  int named = 0;
  double most = 1;
  for (int d = 0; d < t->trank; d++) {
    long long v;
    most *= ltI_const_int(t->dims[d], &v) ? (double)v : (double)LT_MAX_SIZE;
    named |= stride_arg(t->strides[d]);
  }
  if (!named && most < 0x1p62) return NULL;
  Buf sum = {0};
  long long fixed = 0;
  for (int d = 0; d < t->trank; d++) {
    long long n, st;
    int cn = ltI_const_int(t->dims[d], &n), cs = ltI_const_int(t->strides[d], &st);
    if (!named) {
      if (cn && n == 1) continue;
      ltU_printf(&sum, "%s%s", sum.n ? " * " : "(double)", ltE_paren(ltE_itext(e, t->dims[d])));
    } else if (cn && cs) {
      fixed += (n - 1) * st;
    } else if (!(cs && st == 0) && !(cn && n == 1)) {
      const char *dim = cn ? ltU_fmt("%lld", n - 1) : ltU_fmt("(double)(%s - 1)", ltE_itext(e, t->dims[d]));
      ltU_printf(&sum, "%s%s", sum.n ? " + " : "", cs && st == 1 ? dim : ltU_fmt("%s * %s", dim,
                 ltE_paren(ltE_itext(e, t->strides[d]))));
    }
  }
  if (fixed) ltU_printf(&sum, " + %lld", fixed);
  return ltU_fmt("%s >= 0x1p62", sum.p);
}

/* For written tensor t, the checks that its elements do not overlap,
** into b: a dim i with a stride argument and more than one index must
** step past every contiguous dim j (constant stride 1), stride_i >=
** size_j (BLAS's lda >= cols).  Below that, element [i = 1, j = 0] and
** element [i = 0, j = stride_i] are one address, which two threads would
** write. */
static void rows_apart(E *e, Buf *b, const Sym *t) {
  for (int i = 0; i < t->trank; i++) {
    long long one, n;
    if (!stride_arg(t->strides[i]) || (ltI_const_int(t->dims[i], &n) && n == 1)) continue;
    for (int j = 0; j < t->trank; j++) {
      if (j == i || !ltI_const_int(t->strides[j], &one) || one != 1) continue;
      if (ltI_const_int(t->dims[j], &n) && n == 1) continue;
      const char *c = ltU_fmt("%s < %s && %s > 1", t->strides[i]->sym->name, ltE_itext(e, t->dims[j]),
                              ltE_itext(e, t->dims[i]));
      if (!b->n || !strstr(b->p, c)) ltU_printf(b, "%s(%s)", b->n ? " || " : "", c);
    }
  }
}

/* The launcher's checks of its arguments ps[0..n-1]. */
static void check_args(E *e, Sym **ps, int n) {
  const Target *t = e->t;
  Buf nulls = {0}, sizes = {0}, big = {0}, align = {0}, rows = {0}, pos = {0}, apart = {0};
  Buf spans = {0};   /* one check a line, each once (tensors may share sizes and strides) */
  for (int i = 0; i < n; i++) {
    Sym *s = ps[i];
    if (s->kind == SYM_TENSOR) {
      const char *sp = span_fails(e, s);
      if (sp && !(spans.n && strstr(spans.p, ltU_fmt("\n%s\n", sp)))) ltU_printf(&spans, "\n%s\n", sp);
      if (s->stored) rows_apart(e, &apart, s);
      ltU_printf(&nulls, "%s%s == NULL", nulls.n ? " || " : "", s->name);
      if (ltI_dtypes[s->dt].bytes > 1)
        ltU_printf(&align, "%s(uintptr_t)%s %% %d != 0", align.n ? " || " : "", s->name, ltI_dtypes[s->dt].bytes);
    } else if (s->kind == SYM_SIZE) {
      ltU_printf(&sizes, "%s%s <= 0", sizes.n ? " || " : "", s->name);
      ltU_printf(&big, "%s%s > %d", big.n ? " || " : "", s->name, LT_MAX_SIZE);
    } else if (s->kind == SYM_STRIDE) {
      ltU_printf(&sizes, "%s%s < 0", sizes.n ? " || " : "", s->name);
      if (ltE_narrow_stride(e, s)) ltU_printf(&rows, "%s%s > 2147483647", rows.n ? " || " : "", s->name);
    } else if (s->kind == SYM_SCALAR && s->positive && !s->device) {
      ltU_printf(&pos, "%s!(%s > %s)", pos.n ? " || " : "", s->name, s->dt == DT_F32 ? "0.0f" : "0");
    }
  }
  if (nulls.n) ltE_line(e, "if (%s) return %s;", nulls.p, t->err_invalid);
  if (sizes.n) ltE_line(e, "if (%s) return %s;", sizes.p, t->err_invalid);
  if (big.n)
    ltE_line(e, "if (%s) return %s;   /* sizes below 2^30: the kernel's int index math (a size plus a tile) cannot "
                "overflow */", big.p, t->err_invalid);
  if (rows.n) ltE_line(e, "if (%s) return %s;   /* row strides go to the kernel as int */", rows.p, t->err_invalid);
  if (spans.n) ltE_line(e, "/* each tensor's last offset below 2^62: the int64 index math cannot overflow */");
  for (char *l = spans.p, *end; l && *l && (end = strchr(l + 1, '\n')); l = end + 1) {
    *end = 0;
    ltE_line(e, "if (%s) return %s;", l + 1, t->err_invalid);
  }
  if (apart.n) {
    char *c = apart.p;
    if (!strstr(c, " || ")) {   /* one condition: no parentheses around it */
      c[strlen(c) - 1] = 0;
      c++;
    }
    ltE_line(e, "if (%s) return %s;   /* a written tensor's elements do not overlap */", c, t->err_invalid);
  }
  if (pos.n) ltE_line(e, "if (%s) return %s;   /* scalars declared positive (NaN fails too) */", pos.p, t->err_invalid);
  if (align.n) ltE_line(e, "if (%s) return %s;", align.p, t->err_misaligned);
}

/* ------------------------------------------------------------------ */
/* preconditions: k:require, and divisors that could be 0              */

typedef struct Conds { Precond *p; int n, cap; E *e; } Conds;

/* Adds precondition `holds` (a host expression), unless listed already. */
static void add_cond(Conds *c, Expr *holds, const char *why) {
  const char *h = ltE_itext(c->e, holds);
  for (int i = 0; i < c->n; i++)
    if (strcmp(ltE_itext(c->e, c->p[i].holds), h) == 0) return;
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 8;
    Precond *np = ltU_alloc(c->cap * sizeof *np);
    if (c->n) memcpy(np, c->p, c->n * sizeof *np);
    c->p = np;
  }
  c->p[c->n].holds = holds;
  c->p[c->n++].why = why;
}

/* Is host expression x known to be > 0: sizes, scalars declared positive,
** and the sums, products, maxima and ceiling divisions (tile.cdiv) of such
** values? */
static int positive(const Expr *x) {
  long long v, d, one;
  switch (x->kind) {
  case E_CONST: return x->cval > 0;
  case E_SYM: return x->sym->kind == SYM_SIZE || x->sym->positive;
  case E_BINARY:
    switch (x->op) {
    case B_MAX: return positive(x->a) || positive(x->b);
    case B_MIN: case B_MUL: return positive(x->a) && positive(x->b);
    case B_ADD: return (positive(x->a) && ltI_nonneg(x->b)) || (ltI_nonneg(x->a) && positive(x->b));
    case B_IDIV:   /* (a + d - 1) // d with a > 0 */
      return ltI_const_int(x->b, &d) && d > 0 && x->a->kind == E_BINARY && x->a->op == B_SUB &&
             ltI_const_int(x->a->b, &one) && one == 1 && x->a->a->kind == E_BINARY && x->a->a->op == B_ADD &&
             ltI_const_int(x->a->a->b, &v) && v == d && positive(x->a->a->a);
    default: return 0;
    }
  default: return 0;
  }
}

/* Integer divisors in x that the launcher can compute and that are not
** known to be positive: each must be nonzero (inner ones first, so that
** the launcher's own check never divides by 0). */
static void divisors(Conds *c, Expr *x) {
  if (!x) return;
  divisors(c, x->a);
  divisors(c, x->b);
  divisors(c, x->c);
  if (x->kind != E_BINARY || (x->op != B_IDIV && x->op != B_MOD && x->op != B_DIV) ||
      ltI_compute_type(x->dt) != DT_I32)
    return;
  Expr *d = ltI_host_expr(x->b);
  long long v;
  if (!d || ltI_const_int(d, &v) || positive(d)) return;
  Expr *zero = ltI_const(0, d->dt, 0, x->line);
  add_cond(c, ltI_binary(B_NE, d, zero, x->line), "a divisor of the kernel's index math");
}

static void divisors_of(Expr *x, void *c) { divisors(c, x); }

/* The launcher's preconditions beyond its per-argument checks, into *out:
** the grid's and the body's divisors that could be 0, then each
** k:require. */
int ltE_preconds(E *e, Precond **out) {
  Kernel *k = e->k;
  Conds c = {.e = e};
  for (int i = 0; i < k->ngrid; i++) divisors(&c, k->grid[i]->extent);
  ltI_each_expr(&k->body, divisors_of, &c);
  for (Require *r = k->requires; r; r = r->next) {
    divisors(&c, r->cond);
    add_cond(&c, r->cond, ltU_fmt("%s:%d: %s", e->base, r->line, ltE_comment_text(r->text)));
  }
  *out = c.p;
  return c.n;
}

/* The launcher's checks of its preconditions, each as the condition that
** refuses the arguments (a comparison inverted, else !(...)), with sizes
** widened to 64 bits so that the check's own arithmetic cannot overflow. */
static void check_preconds(E *e) {
  static const int inverse[B_COUNT] = {[B_LT] = B_GE, [B_LE] = B_GT, [B_GT] = B_LE, [B_GE] = B_LT,
                                       [B_EQ] = B_NE, [B_NE] = B_EQ};
  Precond *p;
  int n = ltE_preconds(e, &p);
  for (int i = 0; i < n; i++) {
    Expr *h = p[i].holds;
    e->wide = 1;
    const char *fails;
    if (h->kind == E_BINARY && inverse[h->op]) fails = ltE_itext(e, ltI_binary(inverse[h->op], h->a, h->b, h->line));
    else fails = ltU_fmt("!(%s)", ltE_itext(e, h));
    e->wide = 0;
    ltE_line(e, "if (%s) return %s;   /* %s */", fails, e->t->err_invalid, p[i].why);
  }
}

/* The tensor maps of warp-specialized kernel e->k (parameters ps[0..n-1]),
** encoded here; where one cannot be made, the launcher runs the kernel's
** cp.async twin instead, with the same arguments.  A map of X:rows(lo, hi)
** views (TensorMap.rows), with boxes of L rows, has a dimension more after
** the rows', both of the rows' stride: L rows (n where the tensor has
** fewer) and n - L + 1 (1), so that element (r, e) is row r + e and the
** index e of a box says where its rows end (templates/cuda_tma_rows.h). */
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
    int r = t->trank, rd = r - 2;   /* rd: the rows' dim (tma_copy_why) */
    Buf dims = {0}, strides = {0}, box = {0};
    for (int j = 0; j < r; j++) {   /* innermost first */
      int d = r - 1 - j, L = m->box[j];
      e->wide = 0;   /* sizes are ints; strides int64, and their products with sizes too */
      const char *n = ltE_paren(ltE_itext(e, t->dims[d]));
      if (m->rows && d == rd)   /* a map of rows: L rows, then where they end */
        ltU_printf(&dims, ", (uint64_t)(%s < %d ? %s : %d), (uint64_t)(%s < %d ? 1 : %s - %d)", n, L, n, L, n, L, n,
                   L - 1);
      else
        ltU_printf(&dims, "%s(uint64_t)%s", j ? ", " : "", n);
      e->wide = 1;
      const char *st = ltE_paren(ltE_itext(e, t->strides[d]));
      if (j) ltU_printf(&strides, "%s(uint64_t)%s", j > 1 ? ", " : "", st);
      if (j && m->rows && d == rd) ltU_printf(&strides, ", (uint64_t)%s", st);
      ltU_printf(&box, "%s%d%s", j ? ", " : "", L, m->rows && d == rd ? ", 1" : "");
    }
    int mr = r + !!m->rows;
    ltE_line(e, "const uint64_t %s_dims[%d] = {%s}, %s_strides[%d] = {%s};", m->name, mr, dims.p ? dims.p : "", m->name,
             mr - 1, strides.p ? strides.p : "");
    ltE_line(e, "const uint32_t %s_box[%d] = {%s};", m->name, mr, box.p ? box.p : "");
    ltU_printf(&decl, "%s%s", i ? ", " : "", m->name);
    enc[i] = ltU_fmt("lt_tma_encode(&%s, %s, %s, %d, %s_dims, %s_strides, %s_box, %d) != 0", m->name, t->name,
                     t->dt == DT_F32 ? "LT_TMA_F32" : t->dt == DT_F16 ? "LT_TMA_F16" : t->dt == DT_BF16 ? "LT_TMA_BF16" : "LT_TMA_U8", mr, m->name,
                     m->name, m->name, m->swizzle);
  }
  e->wide = 0;
  for (int i = 0; i < n; i++)
    if (!ps[i]->device) ltU_printf(&args, "%s, ", ps[i]->name);
  ltE_line(e, "CUtensorMap %s;", decl.p);
  for (int i = 0; i < k->nmaps; i++)
    ltE_line(e, "%s%s%s", i ? "    " : "if (", enc[i], i + 1 < k->nmaps ? " ||" : ")");
  ltE_line(e, "  return %s(%sstream);", k->twin->name, args.p);
}

/* Declares and sets `int sm_count` (k:sm_count): the multiprocessors of
** the current device, queried (cheap, no synchronization: a call stays
** capturable in a CUDA graph).  Where the query fails, the launcher
** returns the runtime's error, an exported function (`exported`) -1.  1
** on `c`; LT_EMU_SMS in the emulator. */
void ltE_sm_count(E *e, int exported) {
  const Target *t = e->t;
  if (!ltE_gpu(e)) {
    ltE_line(e, "const int sm_count = 1;   /* the blocks run one after another */");
    return;
  }
  ltE_line(e, "/* the device's multiprocessors (k:sm_count) */");
  ltE_line(e, "int sm_count = 0;");
  if (e->emu) {
    ltE_line(e, "if (lt_sm_count(&sm_count) != 0) return %s;", exported ? "-1" : t->err_invalid);
    return;
  }
  int cuda = t->lang == LANG_CUDA;
  const char *rt = cuda ? "cuda" : "hip";
  ltE_line(e, "int dev = 0;");
  ltE_line(e, "%sError_t sm_err = %sGetDevice(&dev);", rt, rt);
  ltE_line(e, "if (sm_err == %sSuccess) sm_err = %sDeviceGetAttribute(&sm_count, %s, dev);", rt, rt,
           cuda ? "cudaDevAttrMultiProcessorCount" : "hipDeviceAttributeMultiprocessorCount");
  ltE_line(e, "if (sm_err != %sSuccess) return %s;", rt, exported ? "-1" : "(int)sm_err");
  ltE_line(e, "if (sm_count < 1) return %s;", exported ? "-1" : t->err_invalid);
}

/* Marks in used[] the parameters ps[0..n-1] that expression x reads. */
static void used_params(const Expr *x, Sym **ps, int n, int *used) {
  if (!x) return;
  if (x->kind == E_SYM)
    for (int i = 0; i < n; i++)
      if (ps[i] == x->sym) used[i] = 1;
  used_params(x->a, ps, n, used);
  used_params(x->b, ps, n, used);
  used_params(x->c, ps, n, used);
}

/* The prototype of export x of kernel e->k (parameters ps[0..n-1]):
** `int64_t <launcher>_<name>(the sizes and scalars it reads)`. */
const char *ltE_export_proto(E *e, const Export *x, Sym **ps, int n) {
  int used[128] = {0};
  used_params(x->value, ps, n, used);
  Buf b = {0};
  ltU_printf(&b, "int64_t %s_%s(", e->k->launcher, x->name);
  int any = 0;
  for (int i = 0; i < n; i++)
    if (used[i] && !ps[i]->device) ltU_printf(&b, "%s%s", any++ ? ", " : "", ltE_param_decl(e, ps[i], 1));
  ltU_printf(&b, "%s)", any ? "" : "void");
  return b.p;
}

/* The functions k:export asks for, after the launcher: each computes its
** value in 64 bits from its arguments (and the device's multiprocessors,
** where it reads k:sm_count(); -1 where that query fails). */
void ltE_exports(E *e, Sym **ps, int n) {
  for (const Export *x = e->k->exports; x; x = x->next) {
    ltU_put(e->b, "\n");
    ltE_line(e, "/* %s (%s:%d) */", ltE_comment_text(x->text), e->base, x->line);
    ltE_line(e, "%s%s", ltE_gpu(e) ? "extern \"C\" " : "", ltE_export_proto(e, x, ps, n));
    ltE_line(e, "{");
    e->depth++;
    int used[128] = {0};
    used_params(x->value, ps, n, used);
    for (int i = 0; i < n; i++)
      if (ps[i]->device && used[i]) ltE_sm_count(e, 1);
    e->wide = 1;
    ltE_line(e, "return (int64_t)%s;", ltE_itext(e, x->value));
    e->wide = 0;
    e->depth--;
    ltE_line(e, "}");
  }
}

/* The test that a row of a tensor of e->k's split_of starts off the
** 16-byte grid (8 2-byte elements): its base, or a stride other than its
** unit one, not a multiple of that; the launcher runs the split twin where
** it holds. */
static const char *off_grid(E *e) {
  const Kernel *k = e->k;
  Buf b = {0};
  for (int i = 0; i < k->nsplit; i++) {   /* the strides first, each once */
    const Sym *t = k->split_of[i];
    for (int d = 0; d < t->trank; d++) {
      long long st;
      if (ltI_const_int(t->strides[d], &st) && (st == 1 || st % 8 == 0)) continue;
      const char *c = ltU_fmt("%s %% 8 != 0", ltE_paren(ltE_itext(e, t->strides[d])));
      if (!b.p || !strstr(b.p, c)) ltU_printf(&b, "%s%s", b.n ? " || " : "", c);
    }
  }
  for (int i = 0; i < k->nsplit; i++)
    ltU_printf(&b, "%s(uintptr_t)%s %% 16 != 0", b.n ? " || " : "", k->split_of[i]->name);
  return b.p;
}

/* The launcher's first lines where kernel e->k has a row twin (pass/row.c):
** where A's bytes are one row [1, K] (Kernel.row_when: M == 1 and K's
** stride 1), the twin, which reads them as rows, runs instead, with the
** same arguments (and the workspace, ws). */
static void row_twin(E *e, Sym **ps, int n, int ws) {
  const Kernel *k = e->k;
  Buf args = {0};
  for (int i = 0; i < n; i++)
    if (!ps[i]->device) ltU_printf(&args, "%s, ", ps[i]->name);
  ltE_line(e, "if (%s)   /* %s:%d: %s is one row, unit-strided along K: the kernel that copies it as a row */",
           ltE_itext(e, k->row_when), e->base, k->gemm->line, k->row_a->name);
  ltE_line(e, "  return %s(%s%sstream);", k->row->name, args.p ? args.p : "", ws ? "workspace, workspace_bytes, " : "");
}

/* The launcher of kernel e->k, whose parameters are ps[0..n-1]. */
void ltE_launcher(E *e, Sym **ps, int n) {
  Kernel *k = e->k;
  const Target *t = e->t;
  ltU_put(e->b, "\n");
  ltE_line(e, "/* Checks the arguments, then runs %s over its grid%s%s. */", k->name, ltE_gpu(e) ? " on `stream`" : "",
           k->build ? ltU_fmt(" (build %s)", k->bucket)
           : k->serves ? ltU_fmt(" (the config tuned for %s)", k->serves)
           : k->bucket ? ltU_fmt(" (the config tuned for %s)", k->bucket) : "");
  int ws = ltE_takes_ws(e, k);
  if (k->bucket || k->fallback || k->as_row)
    ltE_line(e, "static %s", ws ? ltE_launcher_proto_ws(e, k->name, ps, n) : ltE_launcher_proto(e, k->name, ps, n));
  else if (ws) ltE_line(e, "extern \"C\" %s", ltE_launcher_proto_ws(e, ltU_fmt("%s_ws", k->name), ps, n));
  else ltE_line(e, "%s%s", ltE_gpu(e) ? "extern \"C\" " : "", ltE_launcher_proto(e, k->name, ps, n));
  ltE_line(e, "{");
  e->depth++;
  if (!ltE_gpu(e)) ltE_line(e, "(void)stream;");
  if (k->row) row_twin(e, ps, n, ws);
  check_args(e, ps, n);
  if (k->sm_count) ltE_sm_count(e, 0);
  check_preconds(e);
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
    if (k->persistent) {
      Buf all = {0};
      for (int i = 0; i < k->ngrid; i++) ltU_printf(&all, "%s%s", i ? " * " : "", g[i]);
      if (!k->queue)
        ltE_line(e, "/* a persistent grid: a block an SM (the count queried once a device), each running programs "
                    "blockIdx.x, + gridDim.x, ... */");
      ltE_line(e, "const int64_t programs = %s;", all.p);
      ltE_line(e, "int sms = 0;");
      ltE_line(e, "const int sm_err = lt_sm_count(&sms);");
      ltE_line(e, "if (sm_err != 0) return sm_err;");
      ltE_line(e, "if (programs > 2147483647) return %s;", t->err_config);
      if (k->queue) {
        ltE_line(e, "/* with a workspace (zero: each call leaves it so) a block an SM, each taking its next program from "
                    "the counter there as it frees up; without, a block a program */");
        ltE_line(e, "unsigned *const queue = workspace != NULL && workspace_bytes >= 4 && (uintptr_t)workspace %% 4 == 0 ? "
                    "(unsigned *)workspace : NULL;");
        ltE_line(e, "const dim3 grid((unsigned)(queue != NULL && programs > sms ? sms : programs), 1, 1);");
        ltU_put(&args, ", queue");
      } else if (ws) {
        ltL_splitk_launch(e);
        ltE_line(e, "const int64_t units = programs * splits;");
        ltE_line(e, "const dim3 grid((unsigned)(units < sms ? units : sms), 1, 1);");
        ltU_printf(&args, ", splits > 1 ? (float *)((char *)workspace + counters) : NULL, splits > 1 ? (unsigned "
                          "*)workspace : NULL, splits");
      } else {
        ltE_line(e, "const dim3 grid((unsigned)(programs < sms ? programs : sms), 1, 1);");
      }
    } else {
      ltE_line(e, "const dim3 grid((unsigned)grid_x, %s, %s);", k->ngrid > 1 ? "(unsigned)grid_y" : "1",
               k->ngrid > 2 ? "(unsigned)grid_z" : "1");
    }
    int dyn = k->smem_dynamic ? k->smem_bytes : 0;
    const char *smem = ltU_fmt("%d", dyn);
    if (k->row_res) {   /* (pass/resident.c; emit/kernel.c, resident_rows, tests the same bound) */
      const Sym *rt = k->row_res;
      long long room = ltP_resident_room(k, t);
      ltE_line(e, "/* %s's rows kept in shared memory after the other tiles where they fit (config resident) */",
               rt->name);
      ltE_line(e, "const int64_t row_bytes = (int64_t)(%s) * %d;", ltE_itext(e, k->row_res_len),
               ltI_dtypes[rt->dt].bytes * k->row_res_rows);
      ltE_line(e, "const int smem = row_bytes <= %lld ? %d + (int)row_bytes : %d;", room, k->row_res_offset, dyn);
      smem = "smem";
      ltE_line(e, "if (smem > %d) {   /* over the default 48 KB: the kernel opts in */", t->smem_static);
      e->depth++;
    } else if (dyn > t->smem_static && t->lang == LANG_CUDA) {
      ltE_line(e, "/* %d bytes of shared memory: over the default 48 KB, so the kernel opts in */", dyn);
    }
    if (k->row_res || (dyn > t->smem_static && t->lang == LANG_CUDA)) {
      for (int i = 0; i <= !!k->nsplit; i++) {   /* (and the split twin's) */
        const char *err = i ? "err_split" : "err";
        ltE_line(e, "const cudaError_t %s = cudaFuncSetAttribute(%s%s_kernel, "
                    "cudaFuncAttributeMaxDynamicSharedMemorySize, %s);", err, k->name, i ? "_split" : "", smem);
        ltE_line(e, "if (%s != cudaSuccess) return (int)%s;", err, err);
      }
    }
    if (k->row_res) {
      e->depth--;
      ltE_line(e, "}");
    }
    int block = k->threads * (k->pingpong ? 2 : 1) + (k->ws ? k->producers : 0);
    const char *stream = t->lang == LANG_CUDA ? "cudaStream_t" : "hipStream_t";
    if (k->nsplit) {   /* (Kernel.split_of) */
      ltE_line(e, "/* a row that starts off the 16-byte grid takes the split kernel, which moves its chunks as "
                  "whole vectors */");
      ltE_line(e, "if (%s)", off_grid(e));
      if (e->emu)
        ltE_line(e, "  return lt_emu_launch(%s_split_kernel, grid, dim3(%d), %s, stream, %s);", k->name, block, smem,
                 args.p);
      else
        ltE_line(e, "  %s_split_kernel<<<grid, dim3(%d), %s, (%s)stream>>>(%s);", k->name, block, smem, stream,
                 args.p);
      if (!e->emu) ltE_line(e, "else");
    }
    if (e->emu) {
      ltE_line(e, "return lt_emu_launch(%s_kernel, grid, dim3(%d), %s, stream, %s);", k->name, block, smem, args.p);
    } else {
      ltE_line(e, "%s%s_kernel<<<grid, dim3(%d), %s, (%s)stream>>>(%s);", k->nsplit ? "  " : "", k->name, block, smem,
               stream, args.p);
      ltE_line(e, "return (int)%s;", t->err_last);
    }
  } else {
    if (e->scratch_bytes) {
      ltE_line(e, "/* the block's largest arrays (%lld bytes), off the stack */", e->scratch_bytes);
      ltE_line(e, "char *scratch = malloc(%lld);", e->scratch_bytes);
      ltE_line(e, "if (scratch == NULL) return 2;");
    }
    for (int i = k->ngrid - 1; i >= 0; i--) {
      ltE_line(e, "for (int %s = 0; %s < %s; ++%s)", k->grid[i]->name, k->grid[i]->name, g[i], k->grid[i]->name);
      e->depth++;
    }
    Buf pids = {0};
    for (int i = 0; i < k->ngrid; i++) ltU_printf(&pids, "%s, ", k->grid[i]->name);
    ltE_line(e, "%s_block(%s%s%s);", k->name, e->scratch_bytes ? "scratch, " : "", pids.p, args.p);
    e->depth -= k->ngrid;
    if (e->scratch_bytes) ltE_line(e, "free(scratch);");
    ltE_line(e, "return 0;");
  }
  e->depth--;
  ltE_line(e, "}");
}
