/*
** test_mma.c: the instruction pass/mma.c picks for a gemm of fp8 or tf32
** operands (ltP_mma): wgmma on sm90a where both operands are K-major
** shared tiles, else the earlier path with Stmt.why_inst saying why
** (--explain); and the K step the accumulator's layout takes.  On AMD:
** MFMA fp8 on gfx942 (Stmt.fnuz) where both operands are K-major, else
** multiply-adds with the reason; gfx90a and gfx1100 have no fp8 MFMA or
** WMMA.  Tiles of
** fewer than 64 rows: wgmma on the swapped operands (Layout.swap) where
** A is a shared tile of 16 bits, [M, K] or [K, M] (then its rows of M
** elements at least a 32-byte swizzle row), else mma.sync.  tf32 with an
** operand stored MN-major: wgmma with its words read into registers as
** the instruction's A (Stmt.a_words; B [K, N] swapped; tn: A's words, B
** copied K-major, Stmt.b_t).
*/
#include "check.h"

/* A shared tile [r, c] of dt. */
static Sym *shared_sym(Kernel *k, Dtype dt, int r, int c) {
  Sym *s = ltI_sym(k, SYM_SHARED, dt, 7);
  s->rank = 2;
  s->shape[0] = r;
  s->shape[1] = c;
  s->name = ltU_fmt("S%d", k->nsyms);
  return s;
}

/* A kernel of 256 threads whose one gemm is acc [128, 256] += A [128, BK]
** @ B (stored [256, BK] with transpose_b, else [BK, 256]) of dt. */
static Kernel *gemm_kernel(Dtype dt, int trans_b, int tf32) {
  Kernel *k = new_kernel(256);
  int BK = 128 / ltI_dtypes[dt].bytes;
  Stmt *g = add(&k->body, S_GEMM, 9);
  g->dst = tile_sym(k, SYM_FRAG, DT_F32, 128, 256);
  g->shared = shared_sym(k, dt, 128, BK);
  g->shared_b = trans_b ? shared_sym(k, dt, 256, BK) : shared_sym(k, dt, BK, 256);
  g->trans_b = trans_b;
  g->tf32 = tf32;
  k->gemm = g;
  return k;
}

static void test_fp8_tf32(void) {
  const Target *sm90a = ltT_find("sm90a"), *sm80 = ltT_find("sm80");
  Kernel *k = gemm_kernel(DT_FP8E4M3, 1, 0);
  NO_ERROR("mma/fp8_nt_sm90a_runs", ltP_mma(k, sm90a));
  CHECK("mma/fp8_nt_sm90a_wgmma", k->mma == MMA_WGMMA && !k->gemm->why_inst);
  CHECK("mma/fp8_nt_sm90a_two_groups_of_64x256", k->warps_m == 8 && k->warps_n == 1 && k->layouts->wtn == 256);
  k = gemm_kernel(DT_FP8E5M2, 1, 0);
  NO_ERROR("mma/fp8e5m2_nt_sm90a_runs", ltP_mma(k, sm90a));
  CHECK("mma/fp8e5m2_nt_sm90a_wgmma", k->mma == MMA_WGMMA);
  k = gemm_kernel(DT_FP8E4M3, 0, 0);
  NO_ERROR("mma/fp8_nn_sm90a_runs", ltP_mma(k, sm90a));
  CHECK("mma/fp8_nn_sm90a_fma_says_why", k->mma == MMA_FMA && k->gemm->why_inst && strstr(k->gemm->why_inst, "[K, N]"));
  k = gemm_kernel(DT_FP8E4M3, 1, 0);
  NO_ERROR("mma/fp8_nt_sm80_runs", ltP_mma(k, sm80));
  CHECK("mma/fp8_nt_sm80_mma_sync_no_why", k->mma == MMA_SYNC && !k->gemm->why_inst);
  k = gemm_kernel(DT_F32, 1, 1);
  NO_ERROR("mma/tf32_nt_sm90a_runs", ltP_mma(k, sm90a));
  CHECK("mma/tf32_nt_sm90a_wgmma", k->mma == MMA_WGMMA && !k->gemm->why_inst);
  k = gemm_kernel(DT_F32, 0, 1);
  NO_ERROR("mma/tf32_nn_sm90a_runs", ltP_mma(k, sm90a));
  CHECK("mma/tf32_nn_sm90a_mma_sync_says_why", k->mma == MMA_TF32 && k->gemm->why_inst);
  k = gemm_kernel(DT_F32, 1, 0);
  NO_ERROR("mma/f32_nt_sm90a_runs", ltP_mma(k, sm90a));
  CHECK("mma/f32_nt_sm90a_fma", k->mma == MMA_FMA && !k->gemm->why_inst);
  CHECK("mma/wgmma_types", strcmp(ltP_wgmma_type(DT_FP8E4M3), "e4m3") == 0 &&
                               strcmp(ltP_wgmma_type(DT_FP8E5M2), "e5m2") == 0 &&
                               strcmp(ltP_wgmma_type(DT_F32), "tf32") == 0 && strcmp(ltP_wgmma_type(DT_BF16), "bf16") == 0);
}

static void test_fp8_amd(void) {
  const Target *gfx942 = ltT_find("gfx942"), *gfx90a = ltT_find("gfx90a"), *gfx1100 = ltT_find("gfx1100");
  Kernel *k = gemm_kernel(DT_FP8E4M3, 1, 0);
  NO_ERROR("mma/fp8_nt_gfx942_runs", ltP_mma(k, gfx942));
  CHECK("mma/fp8_nt_gfx942_mfma_fnuz", k->mma == MMA_MFMA32 && k->gemm->fnuz && !k->gemm->why_inst);
  k = gemm_kernel(DT_FP8E5M2, 1, 0);
  NO_ERROR("mma/fp8e5m2_nt_gfx942_runs", ltP_mma(k, gfx942));
  CHECK("mma/fp8e5m2_nt_gfx942_mfma_fnuz", k->mma == MMA_MFMA32 && k->gemm->fnuz);
  k = gemm_kernel(DT_FP8E4M3, 0, 0);
  NO_ERROR("mma/fp8_nn_gfx942_runs", ltP_mma(k, gfx942));
  CHECK("mma/fp8_nn_gfx942_fma_says_why", k->mma == MMA_FMA && !k->gemm->fnuz && k->gemm->why_inst &&
                                              strstr(k->gemm->why_inst, "K-major"));
  k = gemm_kernel(DT_FP8E4M3, 1, 0);
  NO_ERROR("mma/fp8_nt_gfx90a_runs", ltP_mma(k, gfx90a));
  CHECK("mma/fp8_nt_gfx90a_fma_says_why", k->mma == MMA_FMA && k->gemm->why_inst && strstr(k->gemm->why_inst, "no fp8"));
  k = gemm_kernel(DT_FP8E4M3, 1, 0);
  NO_ERROR("mma/fp8_nt_gfx1100_runs", ltP_mma(k, gfx1100));
  CHECK("mma/fp8_nt_gfx1100_fma_says_why", k->mma == MMA_FMA && k->gemm->why_inst && strstr(k->gemm->why_inst, "WMMA"));
  k = gemm_kernel(DT_F16, 1, 0);
  NO_ERROR("mma/f16_nt_gfx942_runs", ltP_mma(k, gfx942));
  CHECK("mma/f16_nt_gfx942_not_fnuz", k->mma == MMA_MFMA32 && !k->gemm->fnuz);
}

/* A kernel of `threads` threads whose one gemm is acc [BM, BN] += A @ B,
** A stored [BM, 128] (or [128, BM] with trans_a), B [128, BN], of dt. */
static Kernel *small_kernel(Dtype dt, int threads, int BM, int BN, int trans_a) {
  Kernel *k = new_kernel(threads);
  Stmt *g = add(&k->body, S_GEMM, 9);
  g->dst = tile_sym(k, SYM_FRAG, DT_F32, BM, BN);
  g->shared = trans_a ? shared_sym(k, dt, 128, BM) : shared_sym(k, dt, BM, 128);
  g->shared_b = shared_sym(k, dt, 128, BN);
  g->trans_a = trans_a;
  k->gemm = g;
  return k;
}

static void test_swap(void) {
  const Target *sm90a = ltT_find("sm90a"), *sm80 = ltT_find("sm80");
  Kernel *k = small_kernel(DT_BF16, 128, 16, 64, 0);
  NO_ERROR("mma/swap_16x64_runs", ltP_mma(k, sm90a));
  const Layout *l = k->layouts;
  CHECK("mma/swap_16x64_wgmma_swapped", k->mma == MMA_WGMMA && l && l->swap);
  CHECK("mma/swap_16x64_warps_across_n", k->warps_m == 1 && k->warps_n == 4 && l->wtm == 16 && l->wtn == 16);
  CHECK("mma/swap_16x64_pairs_of_rows", l->vec == 1 && l->nr == 4 && l->nc == 2 && l->rstride == 8 && l->cstride == 8);
  CHECK("mma/swap_16x64_no_row_blocks", l->rgap == 0);
  k = small_kernel(DT_F16, 256, 32, 128, 0);
  NO_ERROR("mma/swap_32x128_runs", ltP_mma(k, sm90a));
  CHECK("mma/swap_32x128_two_groups", k->mma == MMA_WGMMA && k->layouts->swap && k->warps_n == 8 && k->layouts->nr == 8);
  k = small_kernel(DT_BF16, 128, 64, 64, 0);
  NO_ERROR("mma/swap_64x64_runs", ltP_mma(k, sm90a));
  CHECK("mma/swap_64x64_not_swapped", k->mma == MMA_WGMMA && !k->layouts->swap && k->warps_m == 4);
  k = small_kernel(DT_BF16, 128, 16, 64, 1);
  NO_ERROR("mma/swap_16x64_ta_runs", ltP_mma(k, sm90a));
  CHECK("mma/swap_16x64_ta_swapped", k->mma == MMA_WGMMA && k->layouts->swap && k->warps_n == 4);
  k = small_kernel(DT_F16, 128, 32, 64, 1);
  NO_ERROR("mma/swap_32x64_ta_runs", ltP_mma(k, sm90a));
  CHECK("mma/swap_32x64_ta_swapped", k->mma == MMA_WGMMA && k->layouts->swap && k->layouts->nr == 8);
  k = small_kernel(DT_BF16, 128, 48, 64, 1);
  NO_ERROR("mma/swap_48x64_ta_runs", ltP_mma(k, sm90a));
  CHECK("mma/swap_48x64_ta_rows_not_a_swizzle_row", k->mma == MMA_SYNC && !k->layouts->swap);
  k = small_kernel(DT_BF16, 128, 16, 128, 0);
  NO_ERROR("mma/swap_16x128_runs", ltP_mma(k, sm90a));
  CHECK("mma/swap_16x128_not_16_columns_a_warp", k->mma == MMA_SYNC && !k->layouts->swap);
  k = small_kernel(DT_BF16, 128, 16, 64, 0);
  NO_ERROR("mma/swap_16x64_sm80_runs", ltP_mma(k, sm80));
  CHECK("mma/swap_16x64_sm80_mma_sync", k->mma == MMA_SYNC && !k->layouts->swap);
}

/* tf32 (f32 operands, tf32 = true) on sm90a, 256 threads, [128, 128]
** tiles, K 128: tt (A [K, M], B [N, K]) takes wgmma with A's words in
** registers; nn (B [K, N]) the operands swapped, B^T's words in registers;
** tn (both MN-major), at a K tile of 32: A's words and a K-major copy of
** B; at 128 threads (the copy takes 256) or K 128, mma.sync, saying why. */
static void test_tf32_words(void) {
  const Target *sm90a = ltT_find("sm90a");
  Kernel *k = small_kernel(DT_F32, 256, 128, 128, 1);
  Stmt *g = k->gemm;
  g->tf32 = 1;
  g->trans_b = 1;
  g->shared_b = shared_sym(k, DT_F32, 128, 128);
  NO_ERROR("mma/tf32_tt_runs", ltP_mma(k, sm90a));
  CHECK("mma/tf32_tt_wgmma_a_words", k->mma == MMA_WGMMA && g->a_words && !k->layouts->swap && !g->why_inst);
  CHECK("mma/tf32_tt_two_groups_down_m", k->warps_m == 8 && k->warps_n == 1 && k->layouts->wtn == 128);
  k = small_kernel(DT_F32, 256, 128, 128, 0);
  g = k->gemm;
  g->tf32 = 1;
  NO_ERROR("mma/tf32_nn_128x128_runs", ltP_mma(k, sm90a));
  CHECK("mma/tf32_nn_128x128_wgmma_swapped_b_words", k->mma == MMA_WGMMA && g->a_words && k->layouts->swap);
  CHECK("mma/tf32_nn_128x128_warps_across_n", k->warps_m == 1 && k->warps_n == 8 && k->layouts->nr == 32);
  k = small_kernel(DT_F32, 256, 128, 128, 1);
  g = k->gemm;
  g->tf32 = 1;
  NO_ERROR("mma/tf32_tn_k128_runs", ltP_mma(k, sm90a));
  CHECK("mma/tf32_tn_k128_mma_sync_says_why", k->mma == MMA_TF32 && !g->b_t && g->why_inst &&
                                                  strstr(g->why_inst, "K tile of 128 bytes"));
  k = small_kernel(DT_F32, 256, 128, 128, 1);
  g = k->gemm;
  g->tf32 = 1;
  g->shared = shared_sym(k, DT_F32, 32, 128);
  g->shared_b = shared_sym(k, DT_F32, 32, 128);
  NO_ERROR("mma/tf32_tn_k32_runs", ltP_mma(k, sm90a));
  CHECK("mma/tf32_tn_k32_wgmma_a_words_b_copied", k->mma == MMA_WGMMA && g->a_words && g->b_t && !k->layouts->swap);
  CHECK("mma/tf32_tn_k32_b_copy_k_major", g->b_t->shape[0] == 128 && g->b_t->shape[1] == 32 && g->b_t->wgmma &&
                                              g->b_t->copy_of == g->shared_b);
  k = small_kernel(DT_F32, 128, 64, 128, 1);
  g = k->gemm;
  g->tf32 = 1;
  g->shared = shared_sym(k, DT_F32, 32, 64);
  g->shared_b = shared_sym(k, DT_F32, 32, 128);
  NO_ERROR("mma/tf32_tn_128_threads_runs", ltP_mma(k, sm90a));
  CHECK("mma/tf32_tn_128_threads_mma_sync_says_why", k->mma == MMA_TF32 && !g->b_t && g->why_inst);
}

int main(void) {
  ltU_file = "unit.lua";
  test_fp8_tf32();
  test_fp8_amd();
  test_swap();
  test_tf32_words();
  return 0;
}
