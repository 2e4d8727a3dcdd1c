/*
** device.c: the public device and memory calls.
**
** Each call checks its arguments (NULL handle, NULL pointer, zero size,
** backend out of range), clears the failure line, then hands over to the
** device's backend table (backend.h).  A device is reference counted: the
** open handle, each loaded module and each live allocation hold one
** reference, so lt_device_close before lt_free or lt_module_unload is safe
** (a garbage collector may run finalizers in any order).
*/
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"

static const lt_ops *const backends[] = { &lt_cpu_ops, &lt_cuda_ops, &lt_hip_ops };

/* The backend table for an enum lt_backend value, NULL if out of range. */
static const lt_ops *ops_of(int backend) {
  if (backend < 0 || backend > 2) return NULL;
  return backends[backend];
}

/* Asks the backend how many devices it has; see luatile.h. */
int lt_device_count(int backend, int *count) {
  lt_clear();
  const lt_ops *ops = ops_of(backend);
  if (!ops) return lt_fail(LT_ERR_INVALID, "lt_device_count: unknown backend %d", backend);
  if (!count) return lt_fail(LT_ERR_INVALID, "lt_device_count: NULL count");
  return ops->count(count);
}

/* Checks the index against the backend's count, then opens the device. */
int lt_device_open(int backend, int index, lt_device **dev) {
  lt_clear();
  const lt_ops *ops = ops_of(backend);
  if (!ops) return lt_fail(LT_ERR_INVALID, "lt_device_open: unknown backend %d", backend);
  if (!dev) return lt_fail(LT_ERR_INVALID, "lt_device_open: NULL output handle");
  int n = 0, st = ops->count(&n);
  if (st) return st;
  if (index < 0 || index >= n) {
    char why[400];  /* the backend's reason for a count of 0, if it gave one */
    snprintf(why, sizeof why, "%s", lt_error_detail());
    return lt_fail(LT_ERR_NO_DEVICE, "no %s device %d (%d found%s%s)",
                   backend == LT_BACKEND_CUDA ? "CUDA" : backend == LT_BACKEND_HIP ? "HIP" : "CPU",
                   index, n, why[0] ? ": " : "", why);
  }
  lt_device *d = calloc(1, sizeof *d);
  if (!d) return lt_fail(LT_ERR_NO_MEMORY, "lt_device_open: out of host memory");
  d->ops = ops;
  d->refs = 1;
  d->info.backend = backend;
  d->info.index = index;
  st = ops->open(d);
  if (st) { free(d); return st; }
  *dev = d;
  return LT_OK;
}

/* Drops a reference; the last one closes the backend side and frees d. */
void lt_device_unref(lt_device *d) {
  if (--d->refs > 0) return;
  d->ops->close(d);
  free(d);
}

/* Gives up the handle returned by lt_device_open. */
int lt_device_close(lt_device *dev) {
  lt_clear();
  if (!dev) return lt_fail(LT_ERR_INVALID, "lt_device_close: NULL device");
  lt_device_unref(dev);
  return LT_OK;
}

/* Copies the device's description out. */
int lt_device_info_get(lt_device *dev, lt_device_info *info) {
  lt_clear();
  if (!dev || !info) return lt_fail(LT_ERR_INVALID, "lt_device_info_get: NULL argument");
  *info = dev->info;
  return LT_OK;
}

/* Waits for all queued work. */
int lt_device_sync(lt_device *dev) {
  lt_clear();
  if (!dev) return lt_fail(LT_ERR_INVALID, "lt_device_sync: NULL device");
  return dev->ops->sync(dev);
}

/* The runtime works on the default stream, so this is always NULL. */
int lt_device_stream(lt_device *dev, void **stream) {
  lt_clear();
  if (!dev || !stream) return lt_fail(LT_ERR_INVALID, "lt_device_stream: NULL argument");
  *stream = NULL;
  return LT_OK;
}

/* Vendor text for a launcher's return code. */
const char *lt_launch_error_string(lt_device *dev, int code) {
  if (!dev) return "invalid device";
  if (code == 0) return "no error";
  return dev->ops->launch_error(code);
}

/* Allocates device memory; the allocation holds a device reference. */
int lt_malloc(lt_device *dev, size_t bytes, void **ptr) {
  lt_clear();
  if (!dev || !ptr) return lt_fail(LT_ERR_INVALID, "lt_malloc: NULL argument");
  if (bytes == 0) return lt_fail(LT_ERR_INVALID, "lt_malloc: zero bytes");
  int st = dev->ops->alloc(dev, bytes, ptr);
  if (st == LT_OK) dev->refs++;
  return st;
}

/* Frees memory from lt_malloc on the same device; NULL is a no-op. */
int lt_free(lt_device *dev, void *ptr) {
  lt_clear();
  if (!dev) return lt_fail(LT_ERR_INVALID, "lt_free: NULL device");
  if (!ptr) return LT_OK;
  int st = dev->ops->release(dev, ptr);
  if (st == LT_OK) lt_device_unref(dev);
  return st;
}

/* Sets bytes of device memory to byte. */
int lt_memset(lt_device *dev, void *ptr, int byte, size_t bytes) {
  lt_clear();
  if (!dev || !ptr) return lt_fail(LT_ERR_INVALID, "lt_memset: NULL argument");
  if (bytes == 0) return LT_OK;
  return dev->ops->fill(dev, ptr, byte, bytes);
}

/* Shared argument check of the three copies. */
static int copy(lt_device *dev, void *dst, const void *src, size_t bytes, int kind,
                const char *who) {
  lt_clear();
  if (!dev || !dst || !src) return lt_fail(LT_ERR_INVALID, "%s: NULL argument", who);
  if (bytes == 0) return LT_OK;
  return dev->ops->copy(dev, dst, src, bytes, kind);
}

/* Host memory src to device memory dst. */
int lt_copy_to_device(lt_device *dev, void *dst, const void *src, size_t bytes) {
  return copy(dev, dst, src, bytes, 1, "lt_copy_to_device");
}

/* Device memory src to host memory dst. */
int lt_copy_to_host(lt_device *dev, void *dst, const void *src, size_t bytes) {
  return copy(dev, dst, src, bytes, 2, "lt_copy_to_host");
}

/* Device memory to device memory, same device. */
int lt_copy_on_device(lt_device *dev, void *dst, const void *src, size_t bytes) {
  return copy(dev, dst, src, bytes, 3, "lt_copy_on_device");
}
