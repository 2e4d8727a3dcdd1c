/*
** dispatch.c: the shape-bucket dispatch.  A variant with tuned configs for
** several shape buckets (tuned.c) becomes one kernel and one static
** launcher per distinct kernel code in its file (buckets whose kernels
** are the same code share the first one's: Kernel.shared, pass/share.c),
** and one extern launcher, printed here, that runs the kernel of the
** bucket nearest the call's sizes.  Buckets that all name one size (a row
** length: "C=4096") make a chain of comparisons on it, where a bucket's
** entry may send the rows that start off the 16-byte grid to another
** bucket's kernel (off_grid, tuned.c); others, a distance per bucket
** summed over its sizes.  A variant's builds (the kernel's builds,
** lua/variants.c) come the same way, one kernel and launcher each; the
** extern launcher runs the first whose k:runs_when holds (builds_chain).
*/
#include "emit/emit.h"

/* The one size every bucket of ks[0..n-1] names alone (e.g. "C"), with
** each bucket's size into vals; NULL when a bucket names another or more. */
static const char *one_size(Kernel **ks, int n, const char **sizes, int nsizes, long long *vals) {
  const char *key = NULL;
  for (int i = 0; i < n; i++) {
    const char *keys[LT_MAXRANK * 4];
    long long v[LT_MAXRANK * 4];
    int l[LT_MAXRANK * 4];
    int nk = ltN_bucket_sizes(ks[0]->tuned, ks[i]->bucket, sizes, nsizes, keys, v, l);
    if (nk != 1 || (key && strcmp(key, keys[0]) != 0)) return NULL;
    key = keys[0];
    vals[i] = v[0];
  }
  return key;
}

/* The kernel that runs bucket kernel k: k, or the earlier bucket's whose
** code it shares (Kernel.shared, pass/share.c). */
static const Kernel *runs(const Kernel *k) {
  return k->shared ? k->shared : k;
}

/* The arguments of bucket kernel k's launcher: args, and the workspace
** for one that takes it (before the stream; ltE_takes_ws), where the
** variant has one. */
static const char *args_of(const Kernel *k, const char *args, int ws) {
  if (!ws || (!k->splitk && !k->queue)) return args;
  return ltU_fmt("%.*sworkspace, workspace_bytes, stream", (int)(strlen(args) - strlen("stream")), args);
}

/* The test that a row of one of the tensors ps[0..np-1] of two dims or
** more starts off the 16-byte grid: its base, or a stride other than a
** unit one, not a multiple of 16 bytes.  NULL where no tensor has two dims. */
static const char *off_grid_test(E *e, Sym **ps, int np) {
  Buf b = {0};
  for (int i = 0; i < np; i++) {   /* the strides first, each once */
    const Sym *t = ps[i];
    int per = 16 / ltI_dtypes[t->dt].bytes;   /* elements in 16 bytes */
    if (t->kind != SYM_TENSOR || t->trank < 2 || per < 1) continue;
    for (int d = 0; d < t->trank; d++) {
      long long st;
      if (ltI_const_int(t->strides[d], &st) && (st == 1 || st % per == 0)) continue;
      const char *c = ltU_fmt("%s %% %d != 0", ltE_paren(ltE_itext(e, t->strides[d])), per);
      if (!b.p || !strstr(b.p, c)) ltU_printf(&b, "%s%s", b.n ? " || " : "", c);
    }
  }
  int any = b.n > 0;
  for (int i = 0; i < np; i++)
    if (ps[i]->kind == SYM_TENSOR && ps[i]->trank >= 2) {
      ltU_printf(&b, "%s(uintptr_t)%s %% 16 != 0", b.n ? " || " : "", ps[i]->name);
      any = 1;
    }
  return any ? b.p : NULL;
}

/* The launcher's lines that run bucket kernel ks[i] (prefix: "" or "if
** (C <= 8192) "): its kernel, or where its entry names alternatives
** (Kernel.alt, pass/waves.c) whichever of the configs leaves the busiest
** multiprocessor least work at the call's sizes: its programs a
** multiprocessor, rounded up, times a program's tile (Kernel.tile_work),
** a split-K kernel's programs and work as it launches them
** (ltL_splitk_weight); ties go to the first, the bucket's own, then the
** alternatives in the entry's order.  args: the call's. */
static void run_bucket(E *e, Kernel **ks, int n, int i, const char *prefix, const char *args, int ws) {
  int na = ks[i]->nalts;
  if (!na) {
    ltE_line(e, "%sreturn %s(%s);", prefix, runs(ks[i])->name, args_of(ks[i], args, ws));
    return;
  }
  const Kernel *of[LT_MAX_ALTS + 1] = {ks[i]}, *run[LT_MAX_ALTS + 1];   /* the bucket's, then its alternatives' */
  const char *programs[LT_MAX_ALTS + 1], *sfx[LT_MAX_ALTS + 1];
  int split = 0;
  for (int m = 0; m <= na; m++) {
    if (m) of[m] = ks[i]->alt[m - 1];
    run[m] = runs((Kernel *)of[m]);
    sfx[m] = m == 0 ? "" : m == 1 ? "_alt" : ltU_fmt("_alt%d", m);
    Buf p = {0};
    Kernel *was = e->k;
    e->k = (Kernel *)run[m];
    e->wide = 1;   /* a product of tile counts can pass 2^31 */
    for (int g = 0; g < run[m]->ngrid; g++)
      ltU_printf(&p, "%s%s", g ? " * " : "", ltE_paren(ltE_itext(e, run[m]->grid[g]->extent)));
    e->wide = 0;
    e->k = was;
    programs[m] = p.p;
    split |= run[m]->splitk && ltE_takes_ws(e, run[m]);
  }
  if (*prefix) ltE_line(e, "%s{", prefix);
  e->depth += !!*prefix;
  const char *ties = na > 1 ? "(ties: the first, its own) */" : "(ties: its own) */";
  if (na > 1)
    ltE_line(e, "/* bucket %s: its config or one of its entry's %d alternatives, whichever leaves the busiest",
             ks[i]->bucket, na);
  else
    ltE_line(e, "/* bucket %s: its config or its entry's alternative, whichever leaves the busiest", ks[i]->bucket);
  const char *fixed = run[0]->tile_fixed ? " plus a fixed part" : "";
  if (split) {
    ltE_line(e, "** multiprocessor %s work: programs a multiprocessor, rounded up, x a program's tile%s; a split-K",
             na > 1 ? "least" : "less", fixed);
    ltE_line(e, "** kernel's parts as its launcher splits the tiles, each its share of the loop and one iteration more "
                "%s", ties);
  } else {
    ltE_line(e, "** multiprocessor %s work: programs a multiprocessor, rounded up, x a program's tile%s %s",
             na > 1 ? "least" : "less", fixed, ties);
  }
  int cached = e->emu;   /* the persistent grid's cached query (templates/cuda_tma.h; the emulator's) */
  for (int m = 0; m < n; m++) cached |= ltE_gpu(e) && e->t->lang == LANG_CUDA && (ks[m]->ws || ks[m]->bulk_reds);
  if (ltE_gpu(e) && cached) {
    ltE_line(e, "int sm_count = 0;");
    ltE_line(e, "const int sm_err = lt_sm_count(&sm_count);   /* queried once a device */");
    ltE_line(e, "if (sm_err != 0) return sm_err;");
  } else {
    ltE_sm_count(e, 0);
  }
  for (int m = 0; m <= na; m++) {
    if (run[m]->splitk && ltE_takes_ws(e, run[m])) {
      Kernel *was = e->k;
      e->k = (Kernel *)run[m];
      ltE_line(e, "/* %s: split-K where its launcher splits (lower/splitk.c) */", run[m]->tile_what);
      const char *w = ltL_splitk_weight(e, programs[m], sfx[m], run[m]->tile_work, run[m]->tile_fixed);
      e->k = was;
      ltE_line(e, "const double work%s = %s;", sfx[m], w);
    } else {
      const Kernel *r = run[m];
      if (r->tile_fixed)
        ltE_line(e, "const %s work%s = (%s + sm_count - 1) / sm_count * (%lld + %lld);   /* %s, and a program's fixed part */",
                 split ? "double" : "int64_t", sfx[m], programs[m], r->tile_work, r->tile_fixed, r->tile_what);
      else
        ltE_line(e, "const %s work%s = (%s + sm_count - 1) / sm_count * %lld;   /* %s */", split ? "double" : "int64_t",
                 sfx[m], programs[m], r->tile_work, r->tile_what);
    }
  }
  for (int m = 1; m <= na; m++) {   /* the first of least work: less than the bucket's, no more than the later ones' */
    Buf c = {0};
    ltU_printf(&c, "work%s < work", sfx[m]);
    for (int l = m + 1; l <= na; l++) ltU_printf(&c, " && work%s <= work%s", sfx[m], sfx[l]);
    ltE_line(e, "if (%s)", c.p);
    ltE_line(e, "  return %s(%s);", run[m]->name, args_of(of[m], args, ws));
  }
  ltE_line(e, "return %s(%s);", run[0]->name, args_of(ks[i], args, ws));
  e->depth -= !!*prefix;
  if (*prefix) ltE_line(e, "}");
}

/* Kernel ks[i]'s bucket's lines: rows off the 16-byte grid go to the
** kernel of the bucket its entry names for them (ltN_off_grid), where it
** names one; then ks[i].  prefix: "" or "if (C <= 8192) ". */
static void bucket_lines(E *e, Kernel **ks, int n, int i, const char *prefix, const char *args, int ws,
                         const char *test) {
  const char *og = test ? ltN_off_grid(ks[0]->tuned, ks[i]->bucket) : NULL;
  int j = 0;
  while (og && j < n && strcmp(ks[j]->bucket, og) != 0) j++;
  if (!og || j == n) {
    run_bucket(e, ks, n, i, prefix, args, ws);
    return;
  }
  if (*prefix) ltE_line(e, "%s{", prefix);
  e->depth += !!*prefix;
  ltE_line(e, "if (%s)   /* a row off the 16-byte grid: bucket %s's config */", test, og);
  ltE_line(e, "  return %s(%s);", runs(ks[j])->name, args_of(ks[j], args, ws));
  ltE_line(e, "return %s(%s);", runs(ks[i])->name, args_of(ks[i], args, ws));
  e->depth -= !!*prefix;
  if (*prefix) ltE_line(e, "}");
}

/* The launcher's lines that run the nearest bucket of one size: buckets
** b_i (vals, largest first) take sizes up to ltN_bucket_limit(b_i, the
** next larger bucket): b_i, or up to the power of two where the next
** bucket lies nearer in log2 steps (ties go to the larger); the largest
** takes the rest; nall: n and the entries' alternatives after them.
** args: the call's arguments; test: off_grid_test's. */
static void one_size_chain(E *e, Kernel **ks, int n, int nall, const char *key, const long long *vals,
                           const char *args, int ws, const char *test) {
  for (int i = n - 1; i > 0; i--)
    bucket_lines(e, ks, nall, i, ltU_fmt("if (%s <= %lld) ", key, ltN_bucket_limit(vals[i], vals[i - 1])), args, ws,
                 test);
  bucket_lines(e, ks, nall, 0, "", args, ws, test);
}

/* The launcher of a variant of several builds ks[0..n-1] (Kernel.build):
** runs the first whose k:runs_when condition holds for the call's sizes,
** tested in 64 bits, else the last; ps are the parameters. */
static void builds_chain(E *e, Kernel **ks, int n, Sym **ps, int np) {
  Buf args = {0};
  for (int i = 0; i < np; i++)
    if (!ps[i]->device) ltU_printf(&args, "%s, ", ps[i]->name);
  ltU_put(&args, "stream");
  ltU_put(e->b, "\n");
  ltE_line(e, "/* Runs the first of %s's builds whose k:runs_when holds for these sizes, else %s. */", ks[0]->launcher,
           ks[n - 1]->bucket);
  ltE_line(e, "%s%s", ltE_gpu(e) ? "extern \"C\" " : "", ltE_launcher_proto(e, ks[0]->launcher, ps, np));
  ltE_line(e, "{");
  e->depth++;
  if (e->emu) {   /* tests/emu runs each build on its small shapes */
    ltE_line(e, "/* the emulator: LT_EMU_BUCKET=i runs build i, whatever the sizes */");
    ltE_line(e, "const long forced = lt_emu::env_long(\"LT_EMU_BUCKET\", -1);");
    for (int i = 0; i < n; i++) ltE_line(e, "if (forced == %d) return %s(%s);", i, ks[i]->name, args.p);
  }
  for (int i = 0; i < n - 1; i++) {
    e->wide = 1;
    const char *c = ltE_itext(e, ks[i]->when);
    e->wide = 0;
    ltE_line(e, "if (%s)   /* %s:%d: %s */", c, e->base, ks[i]->when_line, ltE_comment_text(ks[i]->when_text));
    ltE_line(e, "  return %s(%s);", ks[i]->name, args.p);
  }
  ltE_line(e, "return %s(%s);", ks[n - 1]->name, args.p);
  e->depth--;
  ltE_line(e, "}");
}

/* The launcher of a variant tuned for several shape buckets (ks[0..n-1],
** in ltN_buckets' order): runs the bucket whose sizes are nearest the
** call's, in log2 steps after rounding each size up to a power of two as
** the tuner's buckets do; ties go to the first.  ps are the parameters.
** Where a bucket's kernel splits K (Kernel.splitk) it is NAME_ws, taking
** a workspace, and NAME and NAME_workspace follow (ltE_splitk_entries). */
void ltE_dispatch(E *e, Kernel **ks, int n, Sym **ps, int np) {
  Kernel *k = ks[0];
  if (k->build) {
    builds_chain(e, ks, n, ps, np);
    return;
  }
  const char *sizes[128];
  int nsizes = 0;
  for (int i = 0; i < np; i++)
    if (ps[i]->kind == SYM_SIZE) sizes[nsizes++] = ps[i]->name;
  long long vals[64];
  int nall = n;   /* the buckets, then the entries' alternatives (ltN_buckets), which the buckets' lines pick */
  while (n > 1 && ltN_is_alternative(ks[n - 1]->bucket)) n--;
  const char *key = n <= 64 ? one_size(ks, n, sizes, nsizes, vals) : NULL;
  int odd = 0;   /* a bucket of one size that is not a power of two */
  for (int i = 0; key && i < n; i++) odd |= (vals[i] & (vals[i] - 1)) != 0;
  Buf args = {0};
  for (int i = 0; i < np; i++)
    if (!ps[i]->device) ltU_printf(&args, "%s, ", ps[i]->name);
  ltU_put(&args, "stream");
  int ws = 0;
  for (int i = 0; i < nall; i++) ws |= ltE_takes_ws(e, ks[i]);
  ltU_put(e->b, "\n");
  int og = 0;   /* a bucket whose rows off the 16-byte grid run another's config */
  for (int i = 0; key && i < n; i++) og |= ltN_off_grid(k->tuned, ks[i]->bucket) != NULL;
  if (key && odd) {
    ltE_line(e, "/* Runs the config tuned for the bucket of %s: the smallest bucket that is at least %s,", key, key);
    ltE_line(e, "** or, where the next is more than twice as large, the nearer in powers of two (ties: the larger)%s",
             og ? ";" : ". */");
    if (og) ltE_line(e, "** where the bucket's entry says so, rows off the 16-byte grid run another bucket's. */");
  } else if (key) {
    ltE_line(e, "/* Runs the config tuned for the bucket of %s: %s rounded up to a power of two,", key, key);
    ltE_line(e, "** the nearest bucket's (ties: the larger)%s", og ? ";" : ". */");
    if (og) ltE_line(e, "** where the bucket's entry says so, rows off the 16-byte grid run another bucket's. */");
  } else {
    ltE_line(e, "/* How far size n is from a bucket's size 2^b: |log2 n - b|, n rounded up to a power of two. */");
    ltE_line(e, "static int lt_bucket_distance(int n, int b)");
    ltE_line(e, "{");
    ltE_line(e, "  int l = 0;");
    ltE_line(e, "  while (l < 31 && (1 << l) < n) ++l;");
    ltE_line(e, "  return l > b ? l - b : b - l;");
    ltE_line(e, "}");
    ltU_put(e->b, "\n");
    ltE_line(e, "/* Runs the config tuned for the shape bucket nearest the call's sizes: the");
    ltE_line(e, "** least sum of lt_bucket_distance over the sizes it names (ties: the first). */");
  }
  if (ws) ltE_line(e, "extern \"C\" %s", ltE_launcher_proto_ws(e, ltU_fmt("%s_ws", k->launcher), ps, np));
  else ltE_line(e, "%s%s", ltE_gpu(e) ? "extern \"C\" " : "", ltE_launcher_proto(e, k->launcher, ps, np));
  ltE_line(e, "{");
  e->depth++;
  if (!key)
    for (int i = 0; i < n; i++) {
      const char *keys[LT_MAXRANK * 4];
      long long v[LT_MAXRANK * 4];
      int l[LT_MAXRANK * 4];
      int nk = ltN_bucket_sizes(k->tuned, ks[i]->bucket, sizes, nsizes, keys, v, l);
      Buf d = {0};
      for (int j = 0; j < nk; j++) ltU_printf(&d, "%slt_bucket_distance(%s, %d)", j ? " + " : "", keys[j], l[j]);
      ltE_line(e, "const int d%d = %s;   /* %s */", i, d.p, ks[i]->bucket);
    }
  if (e->emu) {   /* tests/emu runs each bucket's kernel on its small shapes */
    ltE_line(e, "/* the emulator: LT_EMU_BUCKET=i runs bucket i's config, whatever the sizes */");
    ltE_line(e, "const long forced = lt_emu::env_long(\"LT_EMU_BUCKET\", -1);");
    for (int i = 0; i < nall; i++)   /* (the entries' alternatives after the buckets, each named) */
      ltE_line(e, "if (forced == %d) return %s(%s);%s", i, runs(ks[i])->name, args_of(ks[i], args.p, ws),
               i < n ? "" : ltU_fmt("   /* %s */", ks[i]->bucket));
  }
  if (key) {
    one_size_chain(e, ks, n, nall, key, vals, args.p, ws, off_grid_test(e, ps, np));
  } else {
    for (int i = 0; i < n - 1; i++) {
      Buf c = {0};
      for (int j = i + 1; j < n; j++) ltU_printf(&c, "%sd%d <= d%d", j > i + 1 ? " && " : "", i, j);
      run_bucket(e, ks, nall, i, ltU_fmt("if (%s) ", c.p), args.p, ws);
    }
    run_bucket(e, ks, nall, n - 1, "", args.p, ws);
  }
  e->depth--;
  ltE_line(e, "}");
  if (ws) ltE_splitk_entries(e, ks, nall, ps, np);
}
