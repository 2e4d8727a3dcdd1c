/*
** target.c: one Target table per target, filled with designated
** initializers.  Everything the passes and the emitter need to know about a
** target is here: lanes per warp, shared-memory limits, the widest global
** access, type names, conversions, math functions, the shuffle, the barrier
** and the runtime's error codes.  The file prologues are text in
** templates/ (embedded into gen at build time).
*/
#include <string.h>

#include "lt.h"

#define F32_MATH(exp2, rsqrt)                                                   \
  {[U_EXP] = "expf", [U_EXP2] = exp2, [U_LOG] = "logf", [U_SQRT] = "sqrtf", \
   [U_RSQRT] = rsqrt, [U_TANH] = "tanhf", [U_ERF] = "erff", [U_ABS] = "fabsf"}

#define CUDA_COMMON                                                              \
  .lang = LANG_CUDA, .ext = ".cu", .warp = 32, .max_threads = 1024,              \
  .smem_static = 48 * 1024, .vec_bytes = 16,                                     \
  .type_names = {[DT_F32] = "float", [DT_F16] = "__half", [DT_BF16] = "__nv_bfloat16", \
                 [DT_I32] = "int", [DT_BOOL] = "bool"},                          \
  .to_f32 = {[DT_F32] = "%s", [DT_F16] = "__half2float(%s)",                     \
             [DT_BF16] = "__bfloat162float(%s)", [DT_I32] = "%s", [DT_BOOL] = "%s"}, \
  .from_f32 = {[DT_F32] = "%s", [DT_F16] = "__float2half_rn(%s)",                \
               [DT_BF16] = "__float2bfloat16_rn(%s)", [DT_I32] = "%s", [DT_BOOL] = "%s"}, \
  .shfl_xor = "__shfl_xor_sync(0xffffffffu, %s, %d)", .barrier = "__syncthreads();", \
  .unop_f32 = F32_MATH("lt_exp2", "rsqrtf"),                                     \
  .err_invalid = "cudaErrorInvalidValue", .err_misaligned = "cudaErrorMisalignedAddress", \
  .err_config = "cudaErrorInvalidConfiguration", .err_last = "cudaGetLastError()"

#define HIP_COMMON                                                               \
  .lang = LANG_HIP, .ext = ".hip", .max_threads = 1024,                          \
  .smem_static = 64 * 1024, .smem_max = 64 * 1024, .vec_bytes = 16,              \
  .type_names = {[DT_F32] = "float", [DT_F16] = "_Float16", [DT_BF16] = "lt_bf16", \
                 [DT_I32] = "int", [DT_BOOL] = "bool"},                          \
  .to_f32 = {[DT_F32] = "%s", [DT_F16] = "(float)%s",                            \
             [DT_BF16] = "lt_bf16_to_f32(%s)", [DT_I32] = "%s", [DT_BOOL] = "%s"}, \
  .from_f32 = {[DT_F32] = "%s", [DT_F16] = "(_Float16)(%s)",                     \
               [DT_BF16] = "lt_f32_to_bf16(%s)", [DT_I32] = "%s", [DT_BOOL] = "%s"}, \
  .shfl_xor = "__shfl_xor(%s, %d)", .barrier = "lt_syncthreads();",               \
  .unop_f32 = F32_MATH("lt_exp2", "rsqrtf"),                                     \
  .err_invalid = "hipErrorInvalidValue", .err_misaligned = "hipErrorInvalidValue", \
  .err_config = "hipErrorInvalidConfiguration", .err_last = "hipGetLastError()"

static const Target sm80 = {
  CUDA_COMMON,
  .name = "sm80", .arch = "sm_80", .smem_max = 163 * 1024, .mma = MMA_SYNC, .async_copy = 1,
  .desc = "NVIDIA Ampere and later (sm_80..sm_90): mma.sync, cp.async",
  .build_hint = "nvcc -O3 -arch=sm_80 -c",
};

static const Target sm90a = {
  CUDA_COMMON,
  .name = "sm90a", .arch = "sm_90a", .smem_max = 227 * 1024, .mma = MMA_SYNC, .async_copy = 1,
  .desc = "NVIDIA Hopper (sm_90a): wgmma, TMA",
  .build_hint = "nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -c",
};

static const Target gfx90a = {
  HIP_COMMON,
  .name = "gfx90a", .arch = "gfx90a", .warp = 64, .mma = MMA_MFMA32, .reg_prefetch = 1,
  .desc = "AMD CDNA2 (MI200), wave64: MFMA",
  .build_hint = "hipcc -O3 --offload-arch=gfx90a -c",
};

static const Target gfx942 = {
  HIP_COMMON,
  .name = "gfx942", .arch = "gfx942", .warp = 64, .mma = MMA_MFMA32, .reg_prefetch = 1,
  .desc = "AMD CDNA3 (MI300), wave64: MFMA",
  .build_hint = "hipcc -O3 --offload-arch=gfx942 -c",
};

static const Target gfx1100 = {
  HIP_COMMON,
  .name = "gfx1100", .arch = "gfx1100", .warp = 32, .mma = MMA_WMMA,
  .desc = "AMD RDNA3, wave32: WMMA",
  .build_hint = "hipcc -O3 --offload-arch=gfx1100 -c",
};

static const Target c = {
  .name = "c", .lang = LANG_C, .ext = ".c", .arch = "c11",
  .desc = "portable C11 on the CPU: one thread per block, blocks run in turn",
  .build_hint = "cc -O2 -std=c11 -c",
  .warp = 1, .max_threads = 1, .mma = MMA_FMA, .smem_static = 1 << 30, .smem_max = 1 << 30, .vec_bytes = 0,
  .type_names = {[DT_F32] = "float", [DT_F16] = "lt_f16", [DT_BF16] = "lt_bf16",
                 [DT_I32] = "int", [DT_BOOL] = "bool"},
  .to_f32 = {[DT_F32] = "%s", [DT_F16] = "lt_f16_to_f32(%s)", [DT_BF16] = "lt_bf16_to_f32(%s)",
             [DT_I32] = "%s", [DT_BOOL] = "%s"},
  .from_f32 = {[DT_F32] = "%s", [DT_F16] = "lt_f32_to_f16(%s)", [DT_BF16] = "lt_f32_to_bf16(%s)",
               [DT_I32] = "%s", [DT_BOOL] = "%s"},
  .unop_f32 = F32_MATH("exp2f", "lt_rsqrtf"),
  .err_invalid = "1", .err_misaligned = "1", .err_config = "1", .err_last = "0",
};

const Target *const ltT_all[] = {&sm80, &sm90a, &gfx90a, &gfx942, &gfx1100, &c, NULL};

/* The target called name, or NULL. */
const Target *ltT_find(const char *name) {
  for (int i = 0; ltT_all[i]; i++)
    if (strcmp(ltT_all[i]->name, name) == 0) return ltT_all[i];
  return NULL;
}

/* The prologue text of a target's language for the kernels ks[0..n-1] of
** one file: the common helpers and the matrix-instruction and cp.async
** helpers any of them uses.
** With `emulate`, the CPU emulation headers instead (gen --emulate, CUDA
** and HIP targets only), which define every helper. */
const char *ltT_prologue(const Target *t, Kernel *const *ks, int n, int emulate) {
  if (emulate)
    return ltU_fmt("#define LT_EMU_WARP %d\n%s\n%s", t->warp, ltX_emu, t->lang == LANG_CUDA ? ltX_emu_cuda : ltX_emu_hip);
  const char *cuda = "", *amd = "";   /* the helpers some kernel of the file uses */
  for (int j = 0; j < n; j++) {
    const Kernel *k = ks[j];
    if (k->mma == MMA_SYNC || k->mma == MMA_TF32) cuda = ltX_cuda_mma;
    else if (k->mma == MMA_MFMA32 || k->mma == MMA_MFMA16) amd = ltX_hip_mfma;
    else if (k->mma == MMA_WMMA) amd = ltX_hip_wmma;
    for (int i = 0; i < k->nsyms; i++)   /* a stage ring is filled with cp.async */
      if (k->syms[i]->kind == SYM_SHARED && k->syms[i]->stages > 1 && t->async_copy) cuda = ltX_cuda_mma;
  }
  const char *base = t->lang == LANG_CUDA ? ltX_cuda : t->lang == LANG_HIP ? ltX_hip : ltX_c;
  return ltU_fmt("%s%s%s", base, cuda, amd);
}
