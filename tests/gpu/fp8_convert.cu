// fp8_convert.cu: on the GPU, CUDA's f32 -> fp8 conversions of
// templates/fp8.h (cuda_fp8.h's __nv_cvt_float_to_fp8, __NV_SATFINITE)
// against the portable definition in the same file (lt_f32_to_fp8, which
// tests/cpu/fp8.c checks against the formats' definitions), for every one
// of the 2^32 f32 bit patterns, e4m3 and e5m2.  Built for sm_90a (the
// hardware cvt) and as compute_80 PTX (cuda_fp8.h's software path for
// sm80, JIT-compiled here): tests/gpu/fp8.sh runs both.
// Prints "PASS gpu fp8 ARCH FMT" or "FAIL ..." with the first mismatches.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#define LT_FN static __device__ __forceinline__ __attribute__((unused))
#include "../../templates/fp8.h"

__device__ unsigned long long bad_count[2];
__device__ unsigned first_bad[2][4];

__global__ void check(uint32_t start) {
  uint32_t u = start + blockIdx.x * blockDim.x + threadIdx.x;
  float f = __uint_as_float(u);
  uint8_t a = lt_f32_to_fp8e4m3(f), ra = lt_f32_to_fp8(f, 3, 7, 0x7eu, -6);
  uint8_t b = lt_f32_to_fp8e5m2(f), rb = lt_f32_to_fp8(f, 2, 15, 0x7bu, -14);
  if (a != ra) {
    unsigned long long n = atomicAdd(&bad_count[0], 1ull);
    if (n < 2) first_bad[0][2 * n] = u, first_bad[0][2 * n + 1] = (unsigned)a << 8 | ra;
  }
  if (b != rb) {
    unsigned long long n = atomicAdd(&bad_count[1], 1ull);
    if (n < 2) first_bad[1][2 * n] = u, first_bad[1][2 * n + 1] = (unsigned)b << 8 | rb;
  }
}

int main(int argc, char **argv) {
  const char *arch = argc > 1 ? argv[1] : "?";
  const uint32_t per = 1u << 28;
  for (uint64_t s = 0; s < (1ull << 32); s += per) check<<<per / 256, 256>>>((uint32_t)s);
  if (cudaDeviceSynchronize() != cudaSuccess) { printf("FAIL gpu fp8 %s: %s\n", arch, cudaGetErrorString(cudaGetLastError())); return 1; }
  unsigned long long n[2];
  unsigned fb[2][4];
  cudaMemcpyFromSymbol(n, bad_count, sizeof n);
  cudaMemcpyFromSymbol(fb, first_bad, sizeof fb);
  const char *fmt[2] = {"e4m3", "e5m2"};
  for (int i = 0; i < 2; i++) {
    if (!n[i]) printf("PASS gpu fp8 %s %s: every f32 (2^32) converts as the portable definition\n", arch, fmt[i]);
    else {
      printf("FAIL gpu fp8 %s %s: %llu of 2^32 f32 differ", arch, fmt[i], n[i]);
      for (int j = 0; j < 2 && j < (int)n[i]; j++)
        printf("; bits %08x -> 0x%02x, portable 0x%02x", fb[i][2 * j], fb[i][2 * j + 1] >> 8, fb[i][2 * j + 1] & 0xff);
      printf("\n");
    }
  }
  return 0;
}
