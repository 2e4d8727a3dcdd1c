/*
** rowops_resident.cu: a measurement prototype (not a shipped kernel) of a
** row softmax whose row stays resident in shared memory, for issue 35's long
** rows: the two-pass kernels of out/ read a row of 32000-50257 elements from
** DRAM twice when the second pass misses L2.  Here one block takes one row:
** the first sweep loads the row from global memory once, in 16-byte vectors,
** keeps it in shared memory and takes its max; the second sweep sums
** exp(x - max) from shared memory; the third writes exp(x - max) / sum,
** again from shared memory.  Rows that do not fit (over 227 KB with the
** alignment slack) are refused.  Built into a library whose softmax_bf16,
** softmax_f16 and softmax_f32 have the launchers' signature, so that
** bench/rowops_grid.py times it beside the shipped ones (--alt).
**   nvcc [-DRS_THREADS=1024] -O3 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -shared bench/rowops_resident.cu -o resident.so
*/
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#ifndef RS_THREADS   /* threads a block: -DRS_THREADS=1024 for another build */
#define RS_THREADS 512
#endif

static __device__ __forceinline__ float rs_f(float v) { return v; }
static __device__ __forceinline__ float rs_f(__half v) { return __half2float(v); }
static __device__ __forceinline__ float rs_f(__nv_bfloat16 v) { return __bfloat162float(v); }
static __device__ __forceinline__ void rs_to(float v, float &o) { o = v; }
static __device__ __forceinline__ void rs_to(float v, __half &o) { o = __float2half_rn(v); }
static __device__ __forceinline__ void rs_to(float v, __nv_bfloat16 &o) { o = __float2bfloat16_rn(v); }
static __device__ __forceinline__ float rs_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/* v reduced over the block (max or sum), the result in every thread. */
template <int THREADS, bool MAX>
static __device__ float rs_block(float v, float *red) {
  for (int o = 16; o; o /= 2) {
    float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = MAX ? fmaxf(v, w) : v + w;
  }
  __syncthreads();   /* red[] free again (an earlier reduction's reads done) */
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  v = MAX ? -INFINITY : 0.0f;
  for (int i = 0; i < THREADS / 32; i++) v = MAX ? fmaxf(v, red[i]) : v + red[i];
  return v;
}

/* One block a row; S holds element i of the row at S[mis + i], mis the
** row's elements past a 16-byte boundary, so that the row's aligned global
** vectors are aligned shared vectors too. */
template <typename T, int THREADS, int U>
__global__ void __launch_bounds__(THREADS) rs_softmax(const T *__restrict__ X, T *__restrict__ Y, int C) {
  extern __shared__ __align__(16) unsigned char rs_smem[];
  __shared__ float red[THREADS / 32];
  constexpr int VEC = 16 / sizeof(T);
  constexpr float L2E = 1.4426950408889634f;
  T *S = (T *)rs_smem;
  const int tid = threadIdx.x;
  const T *x = X + (int64_t)blockIdx.x * C;
  T *y = Y + (int64_t)blockIdx.x * C;
  const int mis = (int)((uintptr_t)x / sizeof(T) % VEC);
  const int head = mis ? min(VEC - mis, C) : 0;   /* elements before the first aligned vector */
  const int nvec = (C - head) / VEC, tail = head + nvec * VEC;
  float m = -INFINITY;
  for (int i = tid; i < head; i += THREADS) S[mis + i] = x[i], m = fmaxf(m, rs_f(x[i]));
  for (int i = tail + tid; i < C; i += THREADS) S[mis + i] = x[i], m = fmaxf(m, rs_f(x[i]));
  const uint4 *xv = (const uint4 *)(x + head);
  uint4 *sv = (uint4 *)(S + mis + head);
  for (int v0 = tid; v0 < nvec; v0 += THREADS * U) {
    uint4 r[U];
#pragma unroll
    for (int u = 0; u < U; u++)
      if (v0 + u * THREADS < nvec) r[u] = xv[v0 + u * THREADS];
#pragma unroll
    for (int u = 0; u < U; u++)
      if (v0 + u * THREADS < nvec) {
        sv[v0 + u * THREADS] = r[u];
        const T *e = (const T *)&r[u];
#pragma unroll
        for (int k = 0; k < VEC; k++) m = fmaxf(m, rs_f(e[k]));
      }
  }
  m = rs_block<THREADS, true>(m, red);   /* its barriers also order S's writes before the reads below */
  const float ml = m * L2E;
  float s = 0.0f;
  for (int v = tid; v < nvec; v += THREADS) {
    uint4 r = sv[v];
    const T *e = (const T *)&r;
#pragma unroll
    for (int k = 0; k < VEC; k++) s += rs_exp2(fmaf(rs_f(e[k]), L2E, -ml));
  }
  for (int i = tid; i < head; i += THREADS) s += rs_exp2(fmaf(rs_f(S[mis + i]), L2E, -ml));
  for (int i = tail + tid; i < C; i += THREADS) s += rs_exp2(fmaf(rs_f(S[mis + i]), L2E, -ml));
  const float inv = 1.0f / rs_block<THREADS, false>(s, red);
  uint4 *yv = (uint4 *)(y + head);
  for (int v = tid; v < nvec; v += THREADS) {
    uint4 r = sv[v], o;
    const T *e = (const T *)&r;
    T *oe = (T *)&o;
#pragma unroll
    for (int k = 0; k < VEC; k++) rs_to(rs_exp2(fmaf(rs_f(e[k]), L2E, -ml)) * inv, oe[k]);
    yv[v] = o;
  }
  for (int i = tid; i < head; i += THREADS) rs_to(rs_exp2(fmaf(rs_f(S[mis + i]), L2E, -ml)) * inv, y[i]);
  for (int i = tail + tid; i < C; i += THREADS) rs_to(rs_exp2(fmaf(rs_f(S[mis + i]), L2E, -ml)) * inv, y[i]);
}

/* The launcher: cudaErrorInvalidValue for a row that does not fit or an X
** and Y whose rows lie differently against the 16-byte grid. */
template <typename T, int THREADS, int U>
static int rs_launch(const void *X, void *Y, int R, int C, void *stream) {
  const size_t bytes = ((size_t)C + 16 / sizeof(T)) * sizeof(T);
  if (!X || !Y || R <= 0 || C <= 0 || bytes > 227 * 1024 || ((uintptr_t)X - (uintptr_t)Y) % 16 != 0)
    return cudaErrorInvalidValue;
  cudaError_t e = cudaFuncSetAttribute(rs_softmax<T, THREADS, U>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
  if (e != cudaSuccess) return e;
  rs_softmax<T, THREADS, U><<<R, THREADS, bytes, (cudaStream_t)stream>>>((const T *)X, (T *)Y, C);
  return cudaGetLastError();
}

extern "C" int softmax_bf16(const void *X, void *Y, int R, int C, void *stream) {
  return rs_launch<__nv_bfloat16, RS_THREADS, 4>(X, Y, R, C, stream);
}
extern "C" int softmax_f16(const void *X, void *Y, int R, int C, void *stream) {
  return rs_launch<__half, RS_THREADS, 4>(X, Y, R, C, stream);
}
extern "C" int softmax_f32(const void *X, void *Y, int R, int C, void *stream) {
  return rs_launch<float, RS_THREADS, 4>(X, Y, R, C, stream);
}
