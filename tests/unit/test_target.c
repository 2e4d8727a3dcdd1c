/*
** test_target.c: ltT_find and the completeness of every Target table.
*/
#include "check.h"
#include "emit/emit.h"

static void test_find(void) {
  const char *names[] = {"sm80", "sm90a", "gfx90a", "gfx942", "gfx1100", "c"};
  for (int i = 0; i < 6; i++) {
    const Target *t = ltT_find(names[i]);
    CHECK(ltU_fmt("target/find_%s", names[i]), t && strcmp(t->name, names[i]) == 0);
  }
  CHECK("target/unknown", ltT_find("sm99") == NULL);
  CHECK("target/empty", ltT_find("") == NULL);
  CHECK("target/case_sensitive", ltT_find("SM80") == NULL);
  CHECK("target/no_prefix_match", ltT_find("sm8") == NULL && ltT_find("sm800") == NULL);
  int n = 0;
  while (ltT_all[n]) n++;
  CHECK_INT("target/count", n, 6);
  for (int i = 0; i < n; i++) CHECK(ltU_fmt("target/find_all_%d", i), ltT_find(ltT_all[i]->name) == ltT_all[i]);
}

static void test_tables(void) {
  static Kernel no_gemm;   /* a kernel without a gemm: the common helpers only */
  Kernel *no_gemm_p = &no_gemm;
  const struct { const char *name; int warp; Lang lang; const char *ext; int smem; } want[] = {
    {"sm80", 32, LANG_CUDA, ".cu", 48 * 1024},   {"sm90a", 32, LANG_CUDA, ".cu", 48 * 1024},
    {"gfx90a", 64, LANG_HIP, ".hip", 64 * 1024}, {"gfx942", 64, LANG_HIP, ".hip", 64 * 1024},
    {"gfx1100", 32, LANG_HIP, ".hip", 64 * 1024}, {"c", 1, LANG_C, ".c", 1 << 30},
  };
  for (int i = 0; i < 6; i++) {
    const Target *t = ltT_find(want[i].name);
    if (!t) continue;
    const char *n = want[i].name;
    CHECK_INT(ltU_fmt("target/%s_warp", n), t->warp, want[i].warp);
    CHECK_INT(ltU_fmt("target/%s_lang", n), t->lang, want[i].lang);
    CHECK_STR(ltU_fmt("target/%s_ext", n), t->ext, want[i].ext);
    CHECK_INT(ltU_fmt("target/%s_smem_static", n), t->smem_static, want[i].smem);
    int complete = t->desc && t->arch && t->build_hint && t->err_invalid && t->err_misaligned && t->err_config &&
                   t->err_last && t->max_threads >= t->warp && t->smem_max >= t->smem_static;
    E e = {.t = t};
    for (int d = 0; d < DT_COUNT; d++) {
      if (ltI_is_fp8(d)) {   /* named after the dtype (emit/text.c), defined by the fp8 templates */
        const char *helpers = ltI_dtypes[d].fp8->fnuz ? ltX_fp8_fnuz_dtypes : ltX_fp8;
        const char *to = ltE_to_compute(&e, d, "x"), *from = ltE_to_storage(&e, d, "x");
        complete &= strstr(helpers, ltE_stype(&e, d)) && strstr(helpers, ltU_fmt("%.*s(", (int)(strchr(to, '(') - to), to)) &&
                    strstr(helpers, ltU_fmt("%.*s(", (int)(strchr(from, '(') - from), from));
        continue;
      }
      complete &= t->type_names[d] && t->to_f32[d] && t->from_f32[d] && strstr(t->to_f32[d], "%s") &&
                  strstr(t->from_f32[d], "%s");
    }
    for (int u = U_EXP; u < U_COUNT; u++) complete &= t->unop_f32[u] != NULL;
    if (t->lang != LANG_C) {
      complete &= t->barrier && t->shfl_xor && strstr(t->shfl_xor, "%s") && strstr(t->shfl_xor, "%d") &&
                  t->vec_bytes == 16 && t->max_threads == 1024;
    }
    CHECK(ltU_fmt("target/%s_table_complete", n), complete);
    const char *pro = ltT_prologue(t, &no_gemm_p, 1, 0, 0);
    CHECK(ltU_fmt("target/%s_prologue", n), pro && strlen(pro) > 0);
  }
  CHECK("target/prologues_differ",
        strcmp(ltT_prologue(ltT_find("sm80"), &no_gemm_p, 1, 0, 0), ltT_prologue(ltT_find("gfx942"), &no_gemm_p, 1, 0, 0)) != 0 &&
            strcmp(ltT_prologue(ltT_find("gfx942"), &no_gemm_p, 1, 0, 0), ltT_prologue(ltT_find("c"), &no_gemm_p, 1, 0, 0)) != 0);
  CHECK("target/same_lang_same_prologue",
        strcmp(ltT_prologue(ltT_find("gfx90a"), &no_gemm_p, 1, 0, 0), ltT_prologue(ltT_find("gfx1100"), &no_gemm_p, 1, 0, 0)) == 0);
  CHECK("target/no_gemm_no_mma_helpers", !strstr(ltT_prologue(ltT_find("sm80"), &no_gemm_p, 1, 0, 0), "lt_mma_16816"));
  CHECK("target/wide_helpers_only_where_used",
        !strstr(ltT_prologue(ltT_find("sm80"), &no_gemm_p, 1, 0, 0), "lt_wide_max") &&
            strstr(ltT_prologue(ltT_find("sm80"), &no_gemm_p, 1, 0, 1), "lt_wide_max") &&
            strstr(ltT_prologue(ltT_find("c"), &no_gemm_p, 1, 0, 1), "lt_wide_min"));
}

int main(void) {
  test_find();
  test_tables();
  return 0;
}
