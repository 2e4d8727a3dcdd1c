// mma_ceiling.cu: how fast mma.sync m16n8k16 (bf16, f32 accumulate) can go
// on this GPU for a given number of warps per SM and warp tile, with the
// operands held in registers (mode reg) or read by ldmatrix from shared
// memory each 16-wide K step into a second fragment set (mode ldsm, the
// shape of the generated GEMM's inner loop without the global copies and
// the barrier).  One block per SM (the shared memory asked for sees to it).
// build: nvcc -O3 -gencode=arch=compute_90,code=sm_90 bench/mma_ceiling.cu -o mma_ceiling
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

static __device__ __forceinline__ void mma(float *d, const uint32_t *a, const uint32_t *b)
{
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

static __device__ __forceinline__ void ldsm4(uint32_t *r, const void *p)
{
  uint32_t s = (uint32_t)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}

// TM x TN mmas per warp per K step (a 16 TM x 8 TN warp tile)
template <int TM, int TN, bool LDSM>
__global__ void kern(float *out, int steps)
{
  extern __shared__ __align__(16) unsigned char smem[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float acc[TM][TN][4] = {};
  uint32_t a[2][TM][4], b[2][TN][2];
  for (int i = 0; i < TM; ++i) for (int j = 0; j < 4; ++j) a[0][i][j] = a[1][i][j] = 0x3f803f80u ^ (lane * 7 + i + j);
  for (int i = 0; i < TN; ++i) for (int j = 0; j < 2; ++j) b[0][i][j] = b[1][i][j] = 0x3f803f80u ^ (lane * 5 + i + j);
  if (LDSM) for (int i = threadIdx.x; i < 16384; i += blockDim.x) ((uint32_t *)smem)[i] = 0x3f803f80u ^ i;
  __syncthreads();
  const unsigned char *base = smem + warp * 1024;
  for (int s = 0; s < steps; ++s) {
    #pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const int cur = kk & 1;
      if (LDSM) {
        #pragma unroll
        for (int i = 0; i < TM; ++i) ldsm4(a[cur ^ 1][i], base + ((lane * 16 + i * 512 + kk * 128) & 32767));
        #pragma unroll
        for (int i = 0; i < TN; i += 2) {
          uint32_t t[4];
          ldsm4(t, base + ((lane * 16 + i * 256 + kk * 64 + 8192) & 32767));
          b[cur ^ 1][i][0] = t[0]; b[cur ^ 1][i][1] = t[1]; b[cur ^ 1][i + 1][0] = t[2]; b[cur ^ 1][i + 1][1] = t[3];
        }
      }
      #pragma unroll
      for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j) mma(acc[i][j], a[cur][i], b[cur][j]);
    }
  }
  float sum = 0;
  for (int i = 0; i < TM; ++i) for (int j = 0; j < TN; ++j) for (int v = 0; v < 4; ++v) sum += acc[i][j][v];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int TM, int TN, bool LDSM>
static void run(int warps, const char *what)
{
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int smem = 200 * 1024, steps = 4096;
  cudaFuncSetAttribute(kern<TM, TN, LDSM>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  float *out; cudaMalloc(&out, sms * warps * 32 * sizeof(float));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  kern<TM, TN, LDSM><<<sms, warps * 32, smem>>>(out, steps);
  cudaEventRecord(e0);
  for (int r = 0; r < 5; ++r) kern<TM, TN, LDSM><<<sms, warps * 32, smem>>>(out, steps);
  cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  cudaError_t err = cudaGetLastError();
  double flops = 5.0 * sms * warps * (double)steps * 4 * TM * TN * 2 * 16 * 8 * 16;
  printf("%-5s %2d warps/SM, warp tile %3dx%-3d: %6.1f TFLOP/s%s%s\n", what, warps, 16 * TM, 8 * TN,
         flops / ms / 1e9, err ? "  error: " : "", err ? cudaGetErrorString(err) : "");
  cudaFree(out);
}

int main()
{
  run<4, 8, false>(4, "reg"); run<4, 8, false>(8, "reg"); run<4, 4, false>(16, "reg");
  run<4, 8, true>(4, "ldsm"); run<4, 8, true>(8, "ldsm"); run<4, 4, true>(8, "ldsm"); run<4, 4, true>(16, "ldsm");
  run<2, 8, true>(16, "ldsm");
  return 0;
}
