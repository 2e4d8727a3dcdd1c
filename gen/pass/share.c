/*
** pass/share.c: which tuned shape buckets of a variant share one kernel.
**
** A variant tuned for several shape buckets is built once per bucket
** (lua/variants.c), and each build runs every pass.  Buckets whose builds
** print the same code need it once.  This pass runs on the whole group
** once its last bucket has been planned and points every bucket whose
** code an earlier bucket already has at that bucket's kernel
** (Kernel.shared); the emitters then print one kernel and one launcher per
** distinct code, the comments name every bucket each one serves, and the
** shape dispatch sends each bucket to its kernel.  The builds of a
** kernel's `builds` are never shared: each has its own k:runs_when.
**
** "The same code" is decided on the text itself, not on a list of the
** config values and pass decisions that shape it (a decision missing from
** such a list would let two buckets share wrongly): the emitter prints
** each bucket's kernels and launcher as the file will hold them, its names
** marked (ltE_bucket_texts, emit/source.c), and two buckets share only
** where those texts are equal, so a shared bucket runs, byte for byte and
** names aside, the kernel it would have had alone.  The file then holds
** the compared texts themselves, the marks replaced, each bucket printed
** once.  The text comes from the emitter because only the emitter knows
** everything the text depends on; the decision stays here, carried by
** Kernel.shared and Kernel.serves, which the emitters print.  gen
** --no-share skips it (every bucket its own kernel): tests/golden/run.sh
** checks the two outputs against each other.
*/
#include "../lt.h"

#include <string.h>

/* May bucket i of ks take part: a tuned bucket (no build: each has its own
** k:runs_when) with a text? */
static int shares(Kernel *const *ks, const char *const *texts, int i) {
  return texts && texts[i] && ks[i]->bucket && !ks[i]->build;
}

/* Points each of the n tuned buckets ks[0..n-1] of one variant whose text
** texts[i] (ltE_bucket_texts) equals an earlier bucket's at the first such
** bucket's kernel (Kernel.shared), which then serves it; the others keep
** shared NULL, as do all where texts is NULL (gen --no-share), and a
** bucket whose text is NULL (a build, Kernel.build, or no bucket).  A
** kernel that serves other buckets gets their list, its own bucket first,
** in Kernel.serves (its twins too), for the comments. */
void ltP_share(Kernel **ks, int n, const char *const *texts) {
  for (int i = 0; i < n && i < LT_MAX_BUCKETS; i++) {
    ks[i]->shared = NULL;
    if (!shares(ks, texts, i)) continue;
    for (int j = 0; j < i && !ks[i]->shared; j++)
      if (!ks[j]->shared && shares(ks, texts, j) && strcmp(texts[i], texts[j]) == 0) ks[i]->shared = ks[j];
  }
  for (int i = 0; i < n && i < LT_MAX_BUCKETS; i++) {   /* each kernel that serves other buckets: their list, its own first */
    int m = 0;
    for (int j = i + 1; j < n && j < LT_MAX_BUCKETS; j++) m += ks[j]->shared == ks[i];
    Kernel *tw[3] = {ks[i]->twin, ks[i]->row, ks[i]->row ? ks[i]->row->twin : NULL};   /* its twins */
    ks[i]->serves = NULL;
    for (int j = 0; j < 3; j++)
      if (tw[j]) tw[j]->serves = NULL;
    if (!m) continue;
    Buf b = {0};
    ltU_put(&b, ks[i]->bucket);
    for (int j = i + 1, seen = 0; j < n && j < LT_MAX_BUCKETS; j++)
      if (ks[j]->shared == ks[i]) ltU_printf(&b, "%s%s", ++seen == m ? " and " : ", ", ks[j]->bucket);
    ks[i]->serves = b.p;
    for (int j = 0; j < 3; j++)
      if (tw[j]) tw[j]->serves = b.p;
  }
}
