/*
** test_share.c: pass/share.c's grouping of a variant's tuned shape buckets
** into kernels, on hand-built kernels and texts (what ltE_bucket_texts
** gives; tests/golden/run.sh's golden/share checks the real ones): buckets
** whose texts are equal share the first one's kernel, whatever their
** configs say; buckets whose texts differ in one byte keep their own, even
** of one config and one set of pass decisions; builds, buckets without a
** text and gen --no-share (no texts) share nothing; and the kernel that
** serves several buckets lists them for the comments, its cp.async twin
** too, and lists nothing once it serves none.
*/
#include "check.h"

/* A planned kernel of one bucket with config text cfg (as lua/variants.c
** writes it, origin included). */
static Kernel *bucket(const char *b, const char *cfg) {
  Kernel *k = ltU_alloc(sizeof *k);
  k->name = ltU_fmt("mm_%s", b);
  k->launcher = "mm";
  k->bucket = b;
  k->nbuckets = 4;
  k->config_desc = ltU_fmt("%s (tuned: matmul.lua, H200, %s)", cfg, b);
  k->threads = 128;
  k->mma = MMA_WGMMA;
  return k;
}

static const char *A = "BK=128 BM=16 BN=64 stages=8 threads=128";
static const char *B = "BK=64 BM=128 BN=256 stages=3 threads=256";
static const char *X = "\n__global__ void \x01_kernel(int n)\n{\n  /* x */\n}\n";   /* two texts, one byte apart */
static const char *Y = "\n__global__ void \x01_kernel(int n)\n{\n  /* y */\n}\n";

static void test_equal(void) {
  Kernel *ks[4] = {bucket("M=16,N=16384", A), bucket("M=512,N=16384", B), bucket("M=16,N=8192", A),
                   bucket("M=512,N=8192", B)};
  const char *t[4] = {X, Y, ltU_fmt("%s", X), ltU_fmt("%s", Y)};   /* equal, not the same pointer */
  ltP_share(ks, 4, t);
  CHECK("share/first_own_kernel", ks[0]->shared == NULL && ks[1]->shared == NULL);
  CHECK("share/equal_text_shares", ks[2]->shared == ks[0]);
  CHECK("share/second_pair_shares_its_own", ks[3]->shared == ks[1]);
  CHECK("share/serves_lists_buckets", ks[0]->serves && strcmp(ks[0]->serves, "M=16,N=16384 and M=16,N=8192") == 0);
  CHECK("share/sharer_serves_nothing", ks[2]->serves == NULL && ks[3]->serves == NULL);
  Kernel *three[3] = {bucket("M=1", A), bucket("M=2", A), bucket("M=4", A)};
  const char *t3[3] = {X, X, X};
  three[0]->twin = bucket("M=1", A);
  ltP_share(three, 3, t3);
  CHECK("share/three_serve_list", three[1]->shared == three[0] && three[2]->shared == three[0] &&
        strcmp(three[0]->serves, "M=1, M=2 and M=4") == 0);
  CHECK("share/twin_serves_too", three[0]->twin->serves == three[0]->serves);
  ltP_share(three, 3, NULL);   /* gen --no-share */
  CHECK("share/no_share_option", !three[1]->shared && !three[2]->shared && !three[0]->serves &&
        !three[0]->twin->serves);
}

/* The text decides, not the config nor the pass decisions: equal texts of
** two configs share; texts one byte apart of one config and one set of
** decisions (what a pass a field list misses would do) do not. */
static void test_text_decides(void) {
  Kernel *c[2] = {bucket("M=16", A), bucket("M=32", "BK=128 BM=16 BN=64 stages=7 threads=128")};
  const char *same[2] = {X, X};
  ltP_share(c, 2, same);
  CHECK("share/other_config_same_text_shares", c[1]->shared == c[0]);
  Kernel *d[2] = {bucket("M=16", A), bucket("M=32", A)};
  const char *differ[2] = {X, Y};
  ltP_share(d, 2, differ);
  CHECK("share/same_config_other_text_apart", d[1]->shared == NULL && d[0]->serves == NULL);
  const char *none[2] = {X, NULL};
  ltP_share(d, 2, none);
  CHECK("share/no_text_apart", d[1]->shared == NULL);
  Kernel *b[2] = {bucket("rows16", A), bucket("rows64", A)};
  b[0]->build = b[1]->build = 1;
  ltP_share(b, 2, same);
  CHECK("share/builds_never_shared", b[1]->shared == NULL);
  Kernel *u[2] = {bucket("M=16", A), bucket("M=32", A)};
  u[0]->bucket = u[1]->bucket = NULL;
  ltP_share(u, 2, same);
  CHECK("share/no_bucket_never_shared", u[1]->shared == NULL);
}

int main(void) {
  test_equal();
  test_text_decides();
  return 0;
}
