/*
** source.c: the output of one variant: the source file (a head comment,
** the target's prologue from templates/, each kernel and its launcher,
** one for each distinct code of the tuned buckets (pass/share.c), the
** shape-bucket dispatch) and its header.  Here the symbols the DSL
** left unnamed get their names, and the parameters their launcher order.
** Here too the text pass/share.c compares: each tuned bucket's kernels and
** launcher as this file prints them, its names marked (ltE_bucket_texts);
** the file then holds those texts, the marks replaced.
*/
#include "emit/emit.h"

/* Names the symbols the DSL left unnamed: pid0, it1, smem2, t3 ... */
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

/* Names each reduction scratch of block b after the reduction's result: m_red. */
static void name_scratch(Block *b) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->scratch && !*s->scratch->name) s->scratch->name = ltU_fmt("%s_red", s->dst->name);
    name_scratch(&s->body);
    name_scratch(&s->orelse);
  }
}

/* Names every unnamed symbol of kernel k (before printing it, or its plan). */
void ltE_name_syms(Kernel *k) {
  name_syms(k);
  name_scratch(&k->body);
}

/* Is s a parameter of the launcher? */
static int is_param(const Sym *s) {
  return s->kind == SYM_TENSOR || s->kind == SYM_SIZE || s->kind == SYM_STRIDE || s->kind == SYM_SCALAR;
}

/* The parameter group of s: tensors, sizes, strides, scalars. */
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

/* Kernel k and its twins, into out (room for 4): k, its cp.async twin,
** its row twin and that one's cp.async twin, those it has; how many. */
static int builds_of(Kernel *k, Kernel **out) {
  int n = 0;
  out[n++] = k;
  if (k->twin) out[n++] = k->twin;
  if (k->row) out[n++] = k->row;
  if (k->row && k->row->twin) out[n++] = k->row->twin;
  return n;
}

/* The printing state of the file of ks[0..n-1] for target t, printing
** into b: every symbol of every kernel named first, and lt_smem's
** alignment the largest any kernel of the file needs. */
static E file_state(Kernel **ks, int n, const Target *t, int emulate, Buf *b) {
  for (int i = 0; i < n; i++) {
    Kernel *kk[4];
    for (int j = 0, m = builds_of(ks[i], kk); j < m; j++) ltE_name_syms(kk[j]);
  }
  E e = {.b = b, .k = ks[0], .t = t, .base = ltE_basename(ltU_file), .emu = emulate, .lane = "lane"};
  for (int i = 0; i < n; i++) {   /* lt_smem's alignment: the largest any kernel of the file needs */
    Kernel *kk[4];
    for (int j = 0, m = builds_of(ks[i], kk); j < m; j++)
      if (kk[j]->smem_dynamic && ltE_smem_align(kk[j]) > e.smem_align) e.smem_align = ltE_smem_align(kk[j]);
  }
  return e;
}

/* Prints kernel k of the file whose state is e into e->b, each function
** after a blank line: its row twin first where it has one (pass/row.c),
** then its cp.async twin and that twin's launcher where it has one (k's
** launcher calls them), then k, its split twin where it has one, and its
** launcher.  Raises e->scratch_bytes to the largest any of them needs
** (for the header). */
static void print_kernel(E *e, Kernel *k) {
  if (k->row) print_kernel(e, k->row);
  Kernel *kk[2] = {k->twin, k};
  for (int j = !k->twin; j < 2; j++) {
    E ei = *e;
    ei.k = kk[j];
    ei.barrier = kk[j]->mma == MMA_WGMMA ? "lt_wgmma_barrier();" : e->t->barrier;
    Sym *pi[128];
    int npi = params(kk[j], pi);
    ltU_put(e->b, "\n");
    ltE_kernel(&ei, pi, npi);
    if (kk[j]->nsplit) {   /* its split twin, for rows off the 16-byte grid (Kernel.split_of) */
      E es = ei;
      es.split = 1;
      ltU_put(e->b, "\n");
      ltE_kernel(&es, pi, npi);
    }
    ltE_launcher(&ei, pi, npi);
    if (ei.scratch_bytes > e->scratch_bytes) e->scratch_bytes = ei.scratch_bytes;
  }
}

/* Fills bt, for each tuned bucket ks[i] of the variant ks[0..n-1] for
** target t (emulated or not), with the text print_kernel gives for it in
** the variant's file, its names marked (emit.h: LT_NAME_MARK for its name
** and its twins', whose names are its own and "_cp", "_row" or "_row_cp",
** LT_BUCKET_MARK for its bucket in the launchers' comments, LT_SERVES_MARK
** where the kernels' comments name the buckets it serves), and with the
** scratch bytes it needs.  Two buckets whose texts are equal have kernels
** and launchers that differ in those names alone (pass/share.c shares
** them); ltE_emit prints the texts of the others with the marks replaced
** (put_unmarked).  NULL for a build (Kernel.build) or a kernel of no
** bucket.  Each kernel's names are back as they were on return. */
void ltE_bucket_texts(Kernel **ks, int n, const Target *t, int emulate, BucketTexts *bt) {
  E e = file_state(ks, n, t, emulate, NULL);
  e.marked = 1;
  for (int i = 0; i < n && i < LT_MAX_BUCKETS; i++) {
    Kernel *k = ks[i], *kk[4];
    bt->text[i] = NULL;
    bt->scratch[i] = 0;
    if (k->build || !k->bucket) continue;
    int m = builds_of(k, kk);
    const char *name[4], *bucket[4], *serves[4];
    size_t len = strlen(k->name);
    for (int j = 0; j < m; j++) {   /* (a twin named otherwise keeps its names: its text is then its own) */
      name[j] = kk[j]->name, bucket[j] = kk[j]->bucket, serves[j] = kk[j]->serves;
      if (strncmp(name[j], name[0], len) == 0) kk[j]->name = ltU_fmt(LT_NAME_MARK "%s", name[j] + len);
      if (bucket[j] && strcmp(bucket[j], bucket[0]) == 0) kk[j]->bucket = LT_BUCKET_MARK;
      kk[j]->serves = NULL;
    }
    Buf b = {0};
    E ei = e;
    ei.b = &b;
    print_kernel(&ei, k);
    bt->text[i] = b.p ? b.p : "";
    bt->scratch[i] = ei.scratch_bytes;
    for (int j = 0; j < m; j++) kk[j]->name = name[j], kk[j]->bucket = bucket[j], kk[j]->serves = serves[j];
  }
}

/* Appends text s of bucket kernel k (ltE_bucket_texts) to b with its
** marks replaced: by k's name, by the buckets it runs (its own, or all it
** serves: Kernel.serves) and by its comments' sentence on them. */
static void put_unmarked(Buf *b, const char *s, const Kernel *k) {
  const char *srv = ltE_serves_sentence(k), *runs = k->serves ? k->serves : k->bucket;
  for (const char *p = s;;) {
    size_t n = strcspn(p, LT_NAME_MARK LT_BUCKET_MARK LT_SERVES_MARK);
    ltU_putn(b, p, n);
    if (!p[n]) return;
    ltU_put(b, p[n] == LT_NAME_MARK[0] ? k->name : p[n] == LT_BUCKET_MARK[0] ? runs : srv);
    p += n + 1;
  }
}

/* Are config texts a and b (Kernel.config_desc) the same config, up to
** where each says where it came from: "BK=128 BM=16 ... (tuned: ...)"? */
static int same_config(const char *a, const char *b) {
  const char *oa = a[0] == '(' ? a : strstr(a, " ("), *ob = b[0] == '(' ? b : strstr(b, " (");
  size_t na = oa ? (size_t)(oa - a) : strlen(a), nb = ob ? (size_t)(ob - b) : strlen(b);
  return na == nb && strncmp(a, b, na) == 0;
}

/* Prints the variant of ks[0..n-1] for target t: the source file and its
** header.  n is 1, or the number of tuned shape buckets: then each bucket's
** kernel and launcher are static, buckets that share an earlier one's
** kernel (Kernel.shared) print none, and one launcher picks among them.
** bt: ltE_bucket_texts' of ks, or NULL: a bucket's kernels and launcher
** are then that text with its marks replaced, not printed again. */
Output ltE_emit(Kernel **ks, int n, const Target *t, int emulate, const BucketTexts *bt) {
  Kernel *k = ks[0];
  Buf src = {0};
  E e = file_state(ks, n, t, emulate, &src);
  Sym *ps[128];
  int np = params(k, ps);
  ltU_printf(&src, "/*\n * %s%s: the %s kernel (%s) for %s%s.\n", k->launcher, ltE_src_ext(&e), k->family,
             *k->variant_desc ? ltE_comment_text(k->variant_desc) : "no variants", t->name, emulate ? ", emulated on the CPU" : "");
  ltU_printf(&src, " * Generated by luatile gen %s from %s; do not edit.\n", LT_VERSION, e.base);
  if (k->doc) ltU_printf(&src, " *\n * %s\n", ltE_comment_text(k->doc));
  if (n == 1) {
    ltU_printf(&src, " *\n * Config: %s.\n", *k->config_desc ? ltE_comment_text(k->config_desc) : "none");
  } else {
    ltU_printf(&src, k->build ? " *\n * Configs, one per build; the launcher runs the first whose sizes the call's are:\n"
                              : " *\n * Configs, one per tuned shape bucket; the launcher runs the nearest's:\n");
    for (int i = 0; i < n; i++) {
      const char *b = ltE_comment_text(ks[i]->bucket), *c = ltE_comment_text(ks[i]->config_desc);
      if (!ks[i]->shared) ltU_printf(&src, " *   %s: %s\n", b, c);
      else if (same_config(ks[i]->config_desc, ks[i]->shared->config_desc))
        ltU_printf(&src, " *   %s: the config of %s, whose kernel it runs\n", b, ltE_comment_text(ks[i]->shared->bucket));
      else   /* a config whose other values change no byte of the code */
        ltU_printf(&src, " *   %s: %s; the same code as %s's, whose kernel it runs\n", b, c,
                   ltE_comment_text(ks[i]->shared->bucket));
    }
  }
  ltU_printf(&src, " * Build: %s %s%s\n */\n", ltE_build_hint(&e), k->launcher, ltE_src_ext(&e));
  Buf body = {0};   /* the kernels, launchers and exports, printed before the prologue that they decide */
  e.b = &body;
  for (int i = 0; i < n; i++) {
    if (ks[i]->shared) continue;   /* an earlier bucket's kernel serves it (pass/share.c) */
    if (bt && i < LT_MAX_BUCKETS && bt->text[i]) {   /* printed already (pass/share.c compared it) */
      put_unmarked(&body, bt->text[i], ks[i]);
      if (bt->scratch[i] > e.scratch_bytes) e.scratch_bytes = bt->scratch[i];
    } else print_kernel(&e, ks[i]);
  }
  if (n > 1) ltE_dispatch(&e, ks, n, ps, np);
  else if (ltE_takes_ws(&e, k)) ltE_splitk_entries(&e, ks, n, ps, np);
  ltE_exports(&e, ps, np);
  ltU_put(&src, ltT_prologue(t, ks, n, emulate, body.p && strstr(body.p, "lt_wide_m") != NULL));
  if (body.p) ltU_put(&src, body.p);
  for (int i = 0; i < n; i++) e.splitk_ws |= ltE_takes_ws(&e, ks[i]);
  Output out = {src.p, ltE_header(&e, ps, np)};
  return out;
}
