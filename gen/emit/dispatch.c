/*
** dispatch.c: the shape-bucket dispatch.  A variant with tuned configs for
** several shape buckets (tuned.c) becomes one kernel and one static
** launcher per bucket in its file, and one extern launcher, printed here,
** that runs the bucket nearest the call's sizes.  Buckets that all name
** one size (a row length: "C=4096") make a chain of comparisons on it;
** others, a distance per bucket summed over its sizes.
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

/* The arguments of bucket kernel k's launcher: args, and the workspace
** for a split-K kernel's (before the stream), where the variant has one. */
static const char *args_of(const Kernel *k, const char *args, int ws) {
  if (!ws || !k->splitk) return args;
  return ltU_fmt("%.*sworkspace, workspace_bytes, stream", (int)(strlen(args) - strlen("stream")), args);
}

/* The launcher's lines that run the nearest bucket of one size: buckets
** b_i (vals, largest first) take sizes up to ltN_bucket_limit(b_i, the
** next larger bucket): b_i, or up to the power of two where the next
** bucket lies nearer in log2 steps (ties go to the larger); the largest
** takes the rest.  args: the call's arguments. */
static void one_size_chain(E *e, Kernel **ks, int n, const char *key, const long long *vals, const char *args,
                           int ws) {
  for (int i = n - 1; i > 0; i--)
    ltE_line(e, "if (%s <= %lld) return %s(%s);", key, ltN_bucket_limit(vals[i], vals[i - 1]), ks[i]->name,
             args_of(ks[i], args, ws));
  ltE_line(e, "return %s(%s);", ks[0]->name, args_of(ks[0], args, ws));
}

/* The launcher of a variant tuned for several shape buckets (ks[0..n-1],
** in ltN_buckets' order): runs the bucket whose sizes are nearest the
** call's, in log2 steps after rounding each size up to a power of two as
** the tuner's buckets do; ties go to the first.  ps are the parameters.
** Where a bucket's kernel splits K (Kernel.splitk) it is NAME_ws, taking
** a workspace, and NAME and NAME_workspace follow (ltE_splitk_entries). */
void ltE_dispatch(E *e, Kernel **ks, int n, Sym **ps, int np) {
  Kernel *k = ks[0];
  const char *sizes[128];
  int nsizes = 0;
  for (int i = 0; i < np; i++)
    if (ps[i]->kind == SYM_SIZE) sizes[nsizes++] = ps[i]->name;
  long long vals[64];
  const char *key = n <= 64 ? one_size(ks, n, sizes, nsizes, vals) : NULL;
  int odd = 0;   /* a bucket of one size that is not a power of two */
  for (int i = 0; key && i < n; i++) odd |= (vals[i] & (vals[i] - 1)) != 0;
  Buf args = {0};
  for (int i = 0; i < np; i++)
    if (!ps[i]->device) ltU_printf(&args, "%s, ", ps[i]->name);
  ltU_put(&args, "stream");
  int ws = 0;
  for (int i = 0; i < n; i++) ws |= ltE_gpu(e) && ks[i]->splitk;
  ltU_put(e->b, "\n");
  if (key && odd) {
    ltE_line(e, "/* Runs the config tuned for the bucket of %s: the smallest bucket that is at least %s,", key, key);
    ltE_line(e, "** or, where the next is more than twice as large, the nearer in powers of two (ties: the larger). */");
  } else if (key) {
    ltE_line(e, "/* Runs the config tuned for the bucket of %s: %s rounded up to a power of two,", key, key);
    ltE_line(e, "** the nearest bucket's (ties: the larger). */");
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
    for (int i = 0; i < n; i++) ltE_line(e, "if (forced == %d) return %s(%s);", i, ks[i]->name, args_of(ks[i], args.p, ws));
  }
  if (key) {
    one_size_chain(e, ks, n, key, vals, args.p, ws);
  } else {
    for (int i = 0; i < n - 1; i++) {
      Buf c = {0};
      for (int j = i + 1; j < n; j++) ltU_printf(&c, "%sd%d <= d%d", j > i + 1 ? " && " : "", i, j);
      ltE_line(e, "if (%s) return %s(%s);", c.p, ks[i]->name, args_of(ks[i], args.p, ws));
    }
    ltE_line(e, "return %s(%s);", ks[n - 1]->name, args_of(ks[n - 1], args.p, ws));
  }
  e->depth--;
  ltE_line(e, "}");
  if (ws) ltE_splitk_entries(e, ks, n, ps, np);
}
