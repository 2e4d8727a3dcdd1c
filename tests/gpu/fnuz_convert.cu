// fnuz_convert.cu: the FNUZ fp8 conversions of templates/fp8_fnuz_dtypes.h
// on the GPU (f32 to each format, each format to f32 and to f16 pairs), as
// a shared library that tests/gpu/fnuz_torch.py calls beside torch.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>
#define LT_FN static __device__ __forceinline__ __attribute__((unused))
#include "../../templates/fp8.h"
#include "../../templates/fp8_fnuz_dtypes.h"

__global__ void dec(const uint8_t *x, float *y, int n, int fmt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmt ? lt_fp8e5m2fnuz_to_f32(x[i]) : lt_fp8e4m3fnuz_to_f32(x[i]);
}
__global__ void enc(const float *x, uint8_t *y, int n, int fmt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmt ? lt_f32_to_fp8e5m2fnuz(x[i]) : lt_f32_to_fp8e4m3fnuz(x[i]);
}
__global__ void f16x2(const uint16_t *x, uint32_t *y, int n, int fmt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmt ? lt_f16x2_of_fp8e5m2fnuz(x[i]) : lt_f16x2_of_fp8e4m3fnuz(x[i]);
}
extern "C" int fnuz_dec(const void *x, void *y, int n, int fmt) {
  dec<<<(n + 255) / 256, 256>>>((const uint8_t *)x, (float *)y, n, fmt);
  return (int)cudaDeviceSynchronize();
}
extern "C" int fnuz_enc(const void *x, void *y, int n, int fmt) {
  enc<<<(n + 255) / 256, 256>>>((const float *)x, (uint8_t *)y, n, fmt);
  return (int)cudaDeviceSynchronize();
}
extern "C" int fnuz_f16x2(const void *x, void *y, int n, int fmt) {
  f16x2<<<(n + 255) / 256, 256>>>((const uint16_t *)x, (uint32_t *)y, n, fmt);
  return (int)cudaDeviceSynchronize();
}
