/*
** backend.h: what the runtime's front (device.c, module.c, bench.c) needs
** from a backend, and the device structure they share.
**
** A backend is a table of functions (struct lt_ops).  cpu.c gives the CPU's;
** vendor.c gives one table for CUDA and one for HIP, both built over the same
** code since the two runtimes have the same shape (cudaMalloc / hipMalloc ...).
** The front checks every handle and pointer argument before calling in, so a
** backend function may assume a valid device and non-NULL pointers.
*/
#ifndef LT_BACKEND_H
#define LT_BACKEND_H

#include "luatile.h"

typedef struct lt_ops {
  /* Devices of this backend (LT_ERR_NO_RUNTIME if the library is missing). */
  int (*count)(int *n);
  /* Fills d->info (name, cache size) and anything backend-private. */
  int (*open)(lt_device *d);
  void (*close)(lt_device *d);
  int (*alloc)(lt_device *d, size_t bytes, void **ptr);
  int (*release)(lt_device *d, void *ptr);
  int (*fill)(lt_device *d, void *ptr, int byte, size_t bytes);
  /* kind: 1 host to device, 2 device to host, 3 device to device. */
  int (*copy)(lt_device *d, void *dst, const void *src, size_t bytes, int kind);
  int (*sync)(lt_device *d);
  /* Calls fn(user, first + i) for i < reps, timing each call on its own;
  ** writes the reps times (ms) to ms[]. */
  int (*time)(lt_device *d, lt_bench_fn fn, void *user, int first, int reps,
              double *ms);
  const char *(*launch_error)(int code);
} lt_ops;

struct lt_device {
  const lt_ops *ops;
  lt_device_info info;
  int refs;                 /* the open handle + modules + live allocations */
  void *priv;               /* backend data (vendor: its timing events) */
};

extern const lt_ops lt_cpu_ops;
extern const lt_ops lt_cuda_ops;
extern const lt_ops lt_hip_ops;

/* error.c: record a failure (printf-style, one line) and return status. */
int lt_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* error.c: forget the last failure (called at the start of public calls). */
void lt_clear(void);

/* device.c: drop one reference; frees the device when none is left. */
void lt_device_unref(lt_device *d);

#endif
