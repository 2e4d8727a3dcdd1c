/*
** test_share.c: pass/share.c's grouping of a variant's tuned shape buckets
** into kernels, on hand-built kernels: buckets whose resolved configs are
** equal share the first one's kernel (whatever their origin text says),
** buckets that differ in any config value, or in any value a pass derived
** from it, keep their own; builds are never shared; and the kernel that
** serves several buckets lists them for the comments.
*/
#include "check.h"

/* A planned kernel of one bucket with config text cfg (as lua/variants.c
** writes it, origin included) and the derived values of a ping-pong
** split-K kernel. */
static Kernel *bucket(const char *b, const char *cfg) {
  Kernel *k = ltU_alloc(sizeof *k);
  k->name = ltU_fmt("mm_%s", b);
  k->launcher = "mm";
  k->bucket = b;
  k->nbuckets = 4;
  k->config_desc = ltU_fmt("%s (tuned: matmul.lua, H200, %s)", cfg, b);
  k->threads = 128;
  k->mma = MMA_WGMMA;
  k->warps_m = 4, k->warps_n = 1;
  k->smem_bytes = 163840, k->smem_dynamic = 1;
  k->pingpong = k->splitk = k->persistent = 1;
  return k;
}

static const char *A = "BK=128 BM=16 BN=64 stages=8 threads=128";
static const char *B = "BK=64 BM=128 BN=256 stages=3 threads=256";

static void test_equal(void) {
  Kernel *ks[4] = {bucket("M=16,N=16384", A), bucket("M=512,N=16384", B), bucket("M=16,N=8192", A),
                   bucket("M=512,N=8192", B)};
  ltP_share(ks, 4);
  CHECK("share/first_own_kernel", ks[0]->shared == NULL && ks[1]->shared == NULL);
  CHECK("share/equal_config_shares", ks[2]->shared == ks[0]);
  CHECK("share/second_pair_shares_its_own", ks[3]->shared == ks[1]);
  CHECK("share/serves_lists_buckets", ks[0]->serves && strcmp(ks[0]->serves, "M=16,N=16384 and M=16,N=8192") == 0);
  CHECK("share/sharer_serves_nothing", ks[2]->serves == NULL && ks[3]->serves == NULL);
  Kernel *three[3] = {bucket("M=1", A), bucket("M=2", A), bucket("M=4", A)};
  ltP_share(three, 3);
  CHECK("share/three_serve_list", three[1]->shared == three[0] && three[2]->shared == three[0] &&
        strcmp(three[0]->serves, "M=1, M=2 and M=4") == 0);
}

/* Each field that differs keeps the buckets apart: a config value, or a
** value a pass derived. */
static void test_differ(void) {
  const char *other = "BK=128 BM=16 BN=64 stages=7 threads=128";
  Kernel *c[2] = {bucket("M=16", A), bucket("M=32", other)};
  ltP_share(c, 2);
  CHECK("share/config_value_differs", c[1]->shared == NULL && c[0]->serves == NULL);
  for (int f = 0; f < 8; f++) {
    Kernel *d[2] = {bucket("M=16", A), bucket("M=32", A)};
    switch (f) {
    case 0: d[1]->splitk = 0; break;
    case 1: d[1]->pingpong = 0; break;
    case 2: d[1]->smem_bytes += 128; break;
    case 3: d[1]->mma = MMA_SYNC; break;
    case 4: d[1]->warps_n = 2; break;
    case 5: d[1]->threads = 256; break;
    case 6: d[1]->persistent = 0; break;
    case 7: d[1]->reg_consumer = 240; break;
    }
    ltP_share(d, 2);
    CHECK(ltU_fmt("share/derived_value_differs_%d", f), d[1]->shared == NULL);
  }
  Kernel *b[2] = {bucket("rows16", A), bucket("rows64", A)};
  b[0]->build = b[1]->build = 1;
  ltP_share(b, 2);
  CHECK("share/builds_never_shared", b[1]->shared == NULL);
}

int main(void) {
  test_equal();
  test_differ();
  return 0;
}
