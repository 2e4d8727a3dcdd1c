#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* f16/bf16 values are computed in f32; these round a float to the type. */
static __device__ __forceinline__ float lt_round_f16(float x) { return __half2float(__float2half_rn(x)); }
static __device__ __forceinline__ float lt_round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
static __device__ __forceinline__ int lt_imax(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ int lt_imin(int a, int b) { return a < b ? a : b; }
