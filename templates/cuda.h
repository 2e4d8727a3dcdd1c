#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Helpers: a kernel uses some of them. */
#define LT_FN static __device__ __forceinline__ __attribute__((unused))

/* f16/bf16 values are computed in f32; these round a float to the type. */
LT_FN float lt_round_f16(float x) { return __half2float(__float2half_rn(x)); }
LT_FN float lt_round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
LT_FN int lt_imax(int a, int b) { return a > b ? a : b; }
LT_FN int lt_imin(int a, int b) { return a < b ? a : b; }
/* x, opaque to the compiler: what is made from it inside a loop is made
** again in each iteration rather than hoisted and held in a register
** across the loop (ldmatrix addresses: cheap to make, and many). */
LT_FN int lt_opaque(int x) {
  asm volatile("" : "+r"(x));
  return x;
}
/* 2^x on the special-function unit (ex2.approx.ftz: the instruction exp2f
** uses, about 2 ulp, without the three extra instructions exp2f spends on
** subnormal results; those flush to zero here). */
LT_FN float lt_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
/* *p += v in global memory, atomically (k:atomic_add); the result is not
** used, so this is one RED.ADD.F32. */
LT_FN void lt_atomic_add(float *p, float v) { atomicAdd(p, v); }
