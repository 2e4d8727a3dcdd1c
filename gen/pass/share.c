/*
** pass/share.c: which tuned shape buckets of a variant share one kernel.
**
** A variant tuned for several shape buckets is built once per bucket
** (lua/variants.c), and each build runs every pass.  Two buckets whose
** tuned entries resolve to one config give identical kernels: the same
** config values and the same decisions the passes derive from them.  This
** pass runs on the whole group once its last bucket has been planned and
** points every bucket whose resolved config an earlier bucket already has
** at that bucket's kernel (Kernel.shared); the emitters then print one
** kernel and one launcher per distinct config, the comments name every
** bucket each one serves, and the shape dispatch sends each bucket to its
** kernel.  The builds of a kernel's `builds` are never shared: each has its
** own k:runs_when.
*/
#include "../lt.h"

#include <string.h>

/* The config of kernel k as it reaches code generation: the config text
** up to where it says where it came from ("BK=128 BM=16 ... (tuned: ...)"),
** then the values the passes derived from it that shape the code. */
const char *ltP_resolved_config(const Kernel *k) {
  const char *c = k->config_desc ? k->config_desc : "";
  const char *o = c[0] == '(' ? c : strstr(c, " (");   /* no config keys: only where it came from */
  size_t n = o ? (size_t)(o - c) : strlen(c);
  Buf b = {0};
  ltU_printf(&b, "%.*s | threads=%d mma=%s warps=%dx%d smem=%d dyn=%d ws=%d producers=%d regs=%d/%d "
             "persistent=%d pingpong=%d splitk=%d queue=%d maps=%d tma_stores=%d bulk_reds=%d split=%d "
             "resident=%d twin=%d", (int)n, c, k->threads, ltP_mma_name(k->mma), k->warps_m, k->warps_n,
             k->smem_bytes, k->smem_dynamic, k->ws != NULL, k->producers, k->reg_producer, k->reg_consumer,
             k->persistent, k->pingpong, k->splitk, k->queue, k->nmaps, k->tma_stores, k->bulk_reds, k->nsplit,
             k->row_res != NULL, k->twin != NULL);
  return b.p;
}

/* Points each of the n tuned buckets ks[0..n-1] of one variant whose
** resolved config (ltP_resolved_config) an earlier bucket has at the first
** such bucket's kernel (Kernel.shared), which then serves it; the others
** keep shared NULL.  A kernel that serves other buckets gets their list,
** its own bucket first, in Kernel.serves (its cp.async twin too), for the
** comments.  Builds (Kernel.build) are left alone. */
void ltP_share(Kernel **ks, int n) {
  const char *key[64];
  for (int i = 0; i < n && i < 64; i++) {
    ks[i]->shared = NULL;
    if (ks[i]->build || !ks[i]->bucket) continue;
    key[i] = ltP_resolved_config(ks[i]);
    for (int j = 0; j < i && !ks[i]->shared; j++)
      if (!ks[j]->shared && !ks[j]->build && ks[j]->bucket && strcmp(key[i], key[j]) == 0) ks[i]->shared = ks[j];
  }
  for (int i = 0; i < n && i < 64; i++) {   /* each kernel that serves other buckets: their list, its own first */
    int m = 0;
    for (int j = i + 1; j < n && j < 64; j++) m += ks[j]->shared == ks[i];
    ks[i]->serves = NULL;
    if (!m) continue;
    Buf b = {0};
    ltU_put(&b, ks[i]->bucket);
    for (int j = i + 1, seen = 0; j < n && j < 64; j++)
      if (ks[j]->shared == ks[i]) ltU_printf(&b, "%s%s", ++seen == m ? " and " : ", ", ks[j]->bucket);
    ks[i]->serves = b.p;
    if (ks[i]->twin) ks[i]->twin->serves = b.p;
  }
}
