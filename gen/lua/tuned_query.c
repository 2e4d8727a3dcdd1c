/*
** lua/tuned_query.c: what gen asks of the tuned-config file once tuned.c
** has read and checked it (ltN_load): a variant's config (ltN_pick), its
** shape buckets in the launcher's order with the entries' alternatives
** after them (ltN_buckets), a bucket's sizes, its off_grid bucket and its
** alternatives, and the size up to which a bucket of one size runs
** (ltN_bucket_limit).  Each answers for the run's target and the device
** tuned.c chose (or the rule's "any" entries), from ltN_run (tuned.h).
*/
#include <string.h>

#include "tuned.h"

/* Is entry e one of variant's for the run's target and device dev? */
static int ours(const Entry *e, const char *variant, const char *dev) {
  return strcmp(e->target, ltN_run.target->name) == 0 && strcmp(e->device, dev) == 0 &&
         strcmp(e->variant, variant) == 0;
}

/* The device whose entries variant takes: the chosen device when it has
** one for variant, else the rule's "any" when it has one, else NULL. */
static const char *entries_of(const char *variant) {
  const char *devs[2] = {ltN_run.device, RULE};
  for (int d = 0; d < 2; d++)
    for (int i = 0; devs[d] && i < ltN_run.nentries; i++)
      if (ours(&ltN_run.entries[i], variant, devs[d])) return devs[d];
  return NULL;
}

/* Does entry a come before b: the larger bucket (of one size: the larger
** size among those of one log2), then the first text? */
static int before(const Entry *a, const Entry *b) {
  if (a->size_log != b->size_log) return a->size_log > b->size_log;
  if (a->one != b->one) return a->one > b->one;
  return strcmp(a->bucket, b->bucket) < 0;
}

/* The largest size that the bucket of one size lo takes when the next
** larger bucket is hi: lo itself, or more where the buckets lie far
** apart: up to 2^m, m the largest log2 of a power of two nearer lo than hi
** (ties go to the larger), counted after rounding both up to powers of
** two, as dispatch.c's launcher chain does.  Always below hi. */
long long ltN_bucket_limit(long long lo, long long hi) {
  int m = (ltN_log2_up(lo) + ltN_log2_up(hi) + 1) / 2 - 1;   /* ceil((log2 lo + log2 hi) / 2) - 1 */
  return lo > (1LL << m) ? lo : 1LL << m;
}

/* The text of alternative i of bucket b, as ltN_buckets gives it:
** "M=256,N=8192" LT_ALT_SUFFIX for the first, "M=256,N=8192 (alternative
** 2)" for the second, ... */
static const char *alt_text(const char *b, int i) {
  return i ? ltU_fmt("%s (alternative %d)", b, i + 1) : ltU_fmt("%s" LT_ALT_SUFFIX, b);
}

/* The bucket whose entry's alternative bucket text b names (ltN_buckets:
** alt_text), with *i its index; NULL where b is a bucket itself. */
static const char *alt_base(const char *b, int *i) {
  const char *p = strstr(b, " (alternative");
  if (!p) return NULL;
  const char *base = ltU_fmt("%.*s", (int)(p - b), b);
  for (int j = 0; j < LT_MAX_ALTS; j++)
    if (strcmp(alt_text(base, j), b) == 0) {
      if (i) *i = j;
      return base;
    }
  return NULL;
}

/* --shape's entry among variant's of device dev when the entries are
** buckets of one size, the one --shape names, and one of them is not a
** power of two: the bucket the launcher's chain runs for that size (the
** smallest whose limit the size does not pass); else NULL. */
static const Entry *chain_entry(const char *variant, const char *dev) {
  if (ltN_run.want_shape.n != 1) return NULL;
  const Entry *es[64];
  int n = 0, odd = 0;
  for (int i = 0; i < ltN_run.nentries && n < 64; i++) {
    const Entry *e = &ltN_run.entries[i];
    if (!ours(e, variant, dev)) continue;
    Shape s;
    ltN_parse_shape(e->bucket, &s);
    if (!e->one || strcmp(s.keys[0], ltN_run.want_shape.keys[0]) != 0) return NULL;
    odd |= (e->one & (e->one - 1)) != 0;
    int j = n++;
    for (; j > 0 && es[j - 1]->one > e->one; j--) es[j] = es[j - 1];
    es[j] = e;
  }
  if (!odd) return NULL;
  for (int i = 0; i + 1 < n; i++)
    if (ltN_run.want_shape.vals[0] <= ltN_bucket_limit(es[i]->one, es[i + 1]->one)) return es[i];
  return n ? es[n - 1] : NULL;
}

/* The tuned config of a variant for the run's target: sets *vals / *n to
** the chosen entry's values (n = 0: none) and returns where the config
** comes from: "tuned: FILE, DEVICE, BUCKET", "rule: FILE, BUCKET" (the
** "any" entries), "kernel defaults" or "kernel defaults: why no entry
** applies".  The entry is bucket's when
** bucket is not NULL, else --shape's; without either, the largest
** bucket's (ties: the first bucket text in byte order). */
const char *ltN_pick(const char *variant, const char *bucket, const TunedValue **vals, int *n) {
  *vals = NULL;
  *n = 0;
  if (!ltN_run.tpath || !ltN_run.target) return "kernel defaults";
  const char *dev = entries_of(variant);
  if (!dev && !ltN_run.device) return ltU_fmt("kernel defaults: %s", ltN_run.no_device);
  const char *want = bucket ? bucket : ltN_run.want_bucket;
  const Entry *chained = !bucket && ltN_run.want_bucket && dev ? chain_entry(variant, dev) : NULL;
  if (chained) want = chained->bucket;
  int ai = 0;
  const char *alt = bucket ? alt_base(bucket, &ai) : NULL;   /* bucket's alternative ai: its entry's alt[ai] */
  if (alt) want = alt;
  const Entry *best = NULL;
  for (int i = 0; dev && i < ltN_run.nentries; i++) {
    const Entry *e = &ltN_run.entries[i];
    if (ours(e, variant, dev) && (want ? strcmp(e->bucket, want) == 0 : !best || before(e, best))) best = e;
  }
  if (!best)
    return ltU_fmt("kernel defaults: %s has no entry for %s on %s, %s%s%s", ltN_run.shown, variant,
                   ltN_run.target->name, ltN_clean(dev ? dev : ltN_run.device), want ? ", bucket " : "",
                   want ? want : "");
  if (alt && ai >= best->nalts)
    return ltU_fmt("kernel defaults: %s has no alternative %d for %s", ltN_run.shown, ai + 1, want);
  *vals = alt ? best->alt[ai] : best->vals;
  *n = alt ? best->nalt[ai] : best->nvals;
  if (strcmp(dev, RULE) == 0) return ltU_fmt("rule: %s, %s", ltN_run.shown, alt ? bucket : best->bucket);
  return ltU_fmt("tuned: %s, %s, %s", ltN_run.shown, ltN_clean(ltN_run.device), alt ? bucket : best->bucket);
}

/* The buckets of a variant's entries for the run's target and device (or the rule's), in
** the order ltN_pick prefers them (largest first, then by text), into out
** (at most max); returns how many.  None under --shape: it asks for one
** bucket.  gen writes one kernel per bucket when there are several, and a
** launcher that picks one by the call's sizes (emit/dispatch.c). */
int ltN_buckets(const char *variant, const char **out, int max) {
  const char *dev = ltN_run.tpath && ltN_run.target && !ltN_run.want_bucket ? entries_of(variant) : NULL;
  if (!dev) return 0;
  const Entry *es[64];
  int n = 0;
  int total = 0, last = 0;   /* the buckets and alternatives, and the last entry's line */
  for (int i = 0; i < ltN_run.nentries; i++) {
    const Entry *e = &ltN_run.entries[i];
    if (!ours(e, variant, dev)) continue;
    total += 1 + e->nalts, last = e->line;
    if (n == 64) continue;
    int j = n++;
    for (; j > 0 && before(e, es[j - 1]); j--) es[j] = es[j - 1];
    es[j] = e;
  }
  if (max > 1 && total > max)   /* (a listing of the variant's kernels takes them all or says why not) */
    ltN_error_at(last, "%s has %d tuned buckets and alternatives, more than the %d kernels one launcher takes; "
                "merge buckets or drop an alternative", variant, total, max);
  int m = 0;
  for (int i = 0; i < n && m < max; i++) out[m++] = es[i]->bucket;
  for (int a = 0; a < LT_MAX_ALTS; a++)   /* then the entries' alternatives, each as a bucket of its own: */
    for (int i = 0; i < n && m < max; i++)   /* the first ones, then the second ones, ... */
      if (a < es[i]->nalts) out[m++] = alt_text(es[i]->bucket, a);
  return m;
}

/* The sizes of variant's bucket ("C=4096,R=32768", as ltN_buckets gives
** it): its keys in order into keys, each value into vals and its log2
** (rounded up) into log2s; returns how many.  Each key must be one of the
** kernel's sizes (the nsizes names in sizes): the launcher measures the
** call against the bucket with them; else an error at the entry's line. */
int ltN_bucket_sizes(const char *variant, const char *bucket, const char *const *sizes, int nsizes, const char **keys,
                     long long *vals, int *log2s) {
  Shape s;
  ltN_parse_shape(bucket, &s);   /* read_entries checked it */
  for (int i = 0; i < s.n; i++) {
    int found = 0;
    for (int j = 0; j < nsizes; j++) found |= strcmp(sizes[j], s.keys[i]) == 0;
    if (found) continue;
    int line = 0;
    for (int j = 0; j < ltN_run.nentries; j++)
      if (ours(&ltN_run.entries[j], variant, entries_of(variant)) && strcmp(ltN_run.entries[j].bucket, bucket) == 0)
        line = ltN_run.entries[j].line;
    Buf b = {0};
    for (int j = 0; j < nsizes; j++) ltU_printf(&b, "%s%s", j ? ", " : "", sizes[j]);
    ltN_error_at(line, "bucket %s names %s, which is not a size of %s (its sizes: %s); a bucket names sizes only",
                bucket, s.keys[i], variant, b.p ? b.p : "none");
  }
  for (int i = 0; i < s.n; i++) keys[i] = s.keys[i], vals[i] = s.vals[i], log2s[i] = ltN_log2_up(s.vals[i]);
  return s.n;
}

/* The bucket whose config runs the rows of variant's bucket that start off
** the 16-byte grid (the entry's off_grid), or NULL: the bucket's own. */
const char *ltN_off_grid(const char *variant, const char *bucket) {
  const char *dev = ltN_run.tpath && ltN_run.target ? entries_of(variant) : NULL;
  for (int i = 0; dev && i < ltN_run.nentries; i++)
    if (ours(&ltN_run.entries[i], variant, dev) && strcmp(ltN_run.entries[i].bucket, bucket) == 0)
      return ltN_run.entries[i].off_grid;
  return NULL;
}

/* The bucket text of alternative i of variant's bucket (its entry's
** alternative: alt_text, as ltN_buckets gives it), or NULL where the entry
** has no alternative i; with it, *line: the alternative's line. */
const char *ltN_alternative(const char *variant, const char *bucket, int i, int *line) {
  const char *dev = ltN_run.tpath && ltN_run.target && !ltN_run.want_bucket ? entries_of(variant) : NULL;
  for (int j = 0; dev && j < ltN_run.nentries; j++) {
    const Entry *e = &ltN_run.entries[j];
    if (ours(e, variant, dev) && strcmp(e->bucket, bucket) == 0 && i < e->nalts) {
      if (line) *line = e->alt_line[i];
      return alt_text(bucket, i);
    }
  }
  return NULL;
}

/* Is bucket text b (ltN_buckets') an entry's alternative, not a bucket? */
int ltN_is_alternative(const char *b) { return b && alt_base(b, NULL) != NULL; }

/* How many alternatives variant's entries (those ltN_buckets gives) name,
** all together, and into *with how many entries name one or more. */
int ltN_alternatives(const char *variant, int *with) {
  const char *dev = ltN_run.tpath && ltN_run.target && !ltN_run.want_bucket ? entries_of(variant) : NULL;
  int n = 0, w = 0;
  for (int i = 0; dev && i < ltN_run.nentries; i++)
    if (ours(&ltN_run.entries[i], variant, dev)) n += ltN_run.entries[i].nalts, w += ltN_run.entries[i].nalts > 0;
  if (with) *with = w;
  return n;
}
