/* main.c: h = x + gate * rmsnorm(x) * w, row by row, with two generated
 * launchers (rmsnorm_f32 from dsl/kernels/rmsnorm.lua, residual_f32 from
 * kernels/residual.lua), checked against the same in double precision.
 * Prints one line; exits 1 on a launcher error or a wrong result.
 * Built with EXAMPLE_CUDA (an sm80 / sm90a target) or EXAMPLE_HIP (gfx90a,
 * gfx942, gfx1100), the buffers live on the GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "residual_f32.h"
#include "rmsnorm_f32.h"

#ifdef EXAMPLE_CUDA
#include <cuda_runtime.h>
static void *dev_alloc(size_t n) {
  void *p = NULL;
  cudaError_t e = cudaMalloc(&p, n);
  if (e != cudaSuccess) fprintf(stderr, "example: cudaMalloc: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? p : NULL;
}
static void to_dev(void *d, const void *h, size_t n) { cudaMemcpy(d, h, n, cudaMemcpyHostToDevice); }
static void to_host(void *h, const void *d, size_t n) { cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost); }
static int dev_sync(void) { return (int)cudaDeviceSynchronize(); }
static void dev_free(void *p) { cudaFree(p); }
#elif defined(EXAMPLE_HIP)
#include <hip/hip_runtime_api.h>
static void *dev_alloc(size_t n) {
  void *p = NULL;
  hipError_t e = hipMalloc(&p, n);
  if (e != hipSuccess) fprintf(stderr, "example: hipMalloc: %s\n", hipGetErrorString(e));
  return e == hipSuccess ? p : NULL;
}
static void to_dev(void *d, const void *h, size_t n) { hipMemcpy(d, h, n, hipMemcpyHostToDevice); }
static void to_host(void *h, const void *d, size_t n) { hipMemcpy(h, d, n, hipMemcpyDeviceToHost); }
static int dev_sync(void) { return (int)hipDeviceSynchronize(); }
static void dev_free(void *p) { hipFree(p); }
#else
static void *dev_alloc(size_t n) {
  void *p = malloc(n);
  if (!p) fprintf(stderr, "example: out of memory\n");
  return p;
}
static void to_dev(void *d, const void *h, size_t n) { memcpy(d, h, n); }
static void to_host(void *h, const void *d, size_t n) { memcpy(h, d, n); }
static int dev_sync(void) { return 0; }
static void dev_free(void *p) { free(p); }
#endif

int main(void) {
  const int R = 37, C = 1000;   /* ragged: not multiples of the tiles */
  const float eps = 1e-5f, gate = 0.5f;
  size_t n = (size_t)R * C;
  float *x = malloc(n * sizeof *x), *w = malloc(C * sizeof *w), *h = malloc(n * sizeof *h);
  srand(1);
  for (size_t i = 0; i < n; i++) x[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
  for (int j = 0; j < C; j++) w[j] = 0.5f + (float)rand() / RAND_MAX;

  float *dx = dev_alloc(n * sizeof *x), *dw = dev_alloc(C * sizeof *w), *dy = dev_alloc(n * sizeof *x),
        *dh = dev_alloc(n * sizeof *x);
  if (!dx || !dw || !dy || !dh) return 1;
  to_dev(dx, x, n * sizeof *x);
  to_dev(dw, w, C * sizeof *w);
  int rc = rmsnorm_f32(dx, dw, dy, R, C, eps, NULL);           /* y = rmsnorm(x) * w */
  if (rc == 0) rc = residual_f32(dx, dy, dh, (int)n, gate, NULL);   /* h = x + gate * y */
  if (rc == 0) rc = dev_sync();
  if (rc != 0) {
    fprintf(stderr, "example: launcher error %d\n", rc);
    return 1;
  }
  to_host(h, dh, n * sizeof *h);

  double worst = 0;
  for (int r = 0; r < R; r++) {
    double ss = 0;
    for (int j = 0; j < C; j++) ss += (double)x[r * C + j] * x[r * C + j];
    double inv = 1.0 / sqrt(ss / C + eps);
    for (int j = 0; j < C; j++) {
      double ref = x[r * C + j] + gate * (x[r * C + j] * inv * w[j]);
      double err = fabs(h[r * C + j] - ref) / (1.0 + fabs(ref));
      if (!(err <= worst)) worst = err;   /* a NaN makes worst NaN */
    }
  }
  int ok = worst < 1e-5;
  printf("example: rmsnorm_f32 + residual_f32 on %d x %d: max error %.1e: %s\n", R, C, worst, ok ? "ok" : "WRONG");
  dev_free(dx);
  dev_free(dw);
  dev_free(dy);
  dev_free(dh);
  free(x);
  free(w);
  free(h);
  return ok ? 0 : 1;
}
