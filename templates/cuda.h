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
