// vadd_cuda.cu: calls the sm80 launcher of vadd.lua from CUDA host code.
//   build/gen docs/examples/vadd.lua --target sm80 -o /tmp/lt
//   nvcc -O3 -arch=sm_80 -I/tmp/lt -o vadd_cuda docs/examples/vadd_cuda.cu /tmp/lt/vadd.cu
#include <cuda_runtime.h>
#include <stdio.h>

#include "vadd.h"

int main(void) {
  const int n = 3000;
  float x[3000], y[3000], z[3000];
  for (int i = 0; i < n; i++) {
    x[i] = 0.5f * i;
    y[i] = 1.0f;
  }
  float *dx, *dy, *dz;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMalloc(&dz, n * sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  int rc = vadd(dx, dy, dz, n, stream);   // device pointers; returns a cudaError_t
  if (rc != cudaSuccess) {
    fprintf(stderr, "vadd: %s\n", cudaGetErrorString((cudaError_t)rc));
    return 1;
  }
  cudaMemcpyAsync(z, dz, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  printf("z[0] = %g, z[%d] = %g\n", z[0], n - 1, z[n - 1]);
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dz);
  cudaStreamDestroy(stream);
  return 0;
}
