/*
** device_cuda.c: device.h over the CUDA runtime API (plain C; nvcc or cc
** with -I<cuda>/include -lcudart builds it).  Launches go to the default
** stream (the launcher's stream argument is NULL), so dev_sync waits for
** them and returns the first error.
*/
#include <cuda_runtime_api.h>

#include "device.h"

const char *dev_name(void) { return "CUDA"; }

void *dev_alloc(size_t bytes) {
  void *p = NULL;
  return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
}

int dev_upload(void *dst, const void *src, size_t bytes) {
  return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
}

int dev_download(void *dst, const void *src, size_t bytes) {
  return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
}

int dev_fill(void *dst, int byte, size_t bytes) { return (int)cudaMemset(dst, byte, bytes); }

int dev_sync(void) { return (int)cudaDeviceSynchronize(); }

/* A launcher's return code is a cudaError_t. */
const char *dev_error(int code) { return cudaGetErrorString((cudaError_t)code); }

void dev_free(void *p) { cudaFree(p); }
