/*
** luatile.h: the one public header of the luatile runtime.
**
** The runtime loads kernels that gen generated and a compiler built into a
** shared library (a "module"), and runs and times them on one of three
** backends: the CPU (target c), CUDA and HIP.  A device handle owns a
** backend and a device index; memory, modules and timing all go through it.
** The CUDA and HIP runtimes are opened with dlopen the first time a device of
** that backend is opened, so this library builds and its CPU backend works on
** a machine without either; there a CUDA or HIP call reports
** LT_ERR_NO_RUNTIME or LT_ERR_NO_DEVICE instead of failing to link.
**
** Every function returns an lt_status (0 = LT_OK) and never aborts the
** process; on failure lt_error_detail() holds one line saying what failed
** (per thread).  Outputs through pointers are written only on success.
**
** The text between the two "ffi" markers below is read as is by the LuaJIT
** binding (runtime/luatile.lua) and passed to ffi.cdef: keep it plain C
** declarations, without preprocessor lines.
*/
#ifndef LUATILE_H
#define LUATILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ffi-begin */

enum lt_backend {
  LT_BACKEND_CPU = 0,   /* host memory; modules built from target c */
  LT_BACKEND_CUDA = 1,  /* libcudart through dlopen; modules built by nvcc */
  LT_BACKEND_HIP = 2    /* libamdhip64 through dlopen; modules built by hipcc */
};

enum lt_status {
  LT_OK = 0,
  LT_ERR_INVALID = 1,     /* NULL handle or pointer, bad size or backend */
  LT_ERR_NO_RUNTIME = 2,  /* the vendor runtime library could not be opened */
  LT_ERR_NO_DEVICE = 3,   /* the runtime is there but has no such device */
  LT_ERR_NO_MEMORY = 4,   /* an allocation failed */
  LT_ERR_LOAD = 5,        /* a module file is missing or does not load */
  LT_ERR_SYMBOL = 6,      /* a module has no launcher of that name */
  LT_ERR_LAUNCH = 7,      /* a launcher or bench callback returned non-zero */
  LT_ERR_VENDOR = 8       /* a CUDA / HIP call failed; see lt_error_detail */
};

typedef struct lt_device lt_device;
typedef struct lt_module lt_module;

typedef struct lt_device_info {
  int backend;              /* enum lt_backend */
  int index;                /* device index within the backend */
  char name[256];           /* "NVIDIA H100 80GB HBM3", CPU model name ... */
  char arch[32];            /* "sm_90" on CUDA; "" where unknown (CPU, HIP) */
  size_t cache_bytes;       /* last-level cache (GPU L2, CPU L3) in bytes */
} lt_device_info;

typedef struct lt_bench_result {
  double median_ms;         /* median of the timed repetitions */
  double min_ms;
  double max_ms;
  double mean_ms;
  int reps;                 /* number of timed repetitions */
} lt_bench_result;

/* Called by lt_bench once per repetition; iter counts from 0 over warm-up
** and timed repetitions alike (use it to rotate input buffers).  Returns 0,
** or non-zero to stop (for a launcher: its return value). */
typedef int (*lt_bench_fn)(void *user, int iter);

/* Names: lt_status_string(LT_ERR_SYMBOL) is "unknown symbol"; never NULL. */
const char *lt_status_string(int status);
/* The last failure on this thread, one line ("" before any failure). */
const char *lt_error_detail(void);
/* "cpu", "cuda", "hip"; "unknown" otherwise. */
const char *lt_backend_name(int backend);
/* The inverse of lt_backend_name. */
int lt_backend_parse(const char *name, int *backend);

/* Number of devices of a backend (1 for the CPU).  A vendor backend without
** its library gives LT_ERR_NO_RUNTIME; without a device, count 0 and LT_OK. */
int lt_device_count(int backend, int *count);
/* Opens device index of backend; close it with lt_device_close.  Modules
** and allocations keep it alive: it is freed when the last one goes. */
int lt_device_open(int backend, int index, lt_device **dev);
int lt_device_close(lt_device *dev);
int lt_device_info_get(lt_device *dev, lt_device_info *info);
/* Waits until all work queued on the device is done. */
int lt_device_sync(lt_device *dev);
/* The stream to pass to launchers (NULL: the default stream). */
int lt_device_stream(lt_device *dev, void **stream);
/* Text for a launcher's non-zero return value on this device's backend:
** the vendor's error string, or for the CPU "invalid argument" (1). */
const char *lt_launch_error_string(lt_device *dev, int code);

/* Device memory.  For the CPU backend it is 64-byte aligned host memory. */
int lt_malloc(lt_device *dev, size_t bytes, void **ptr);
int lt_free(lt_device *dev, void *ptr);              /* NULL ptr: no-op */
int lt_memset(lt_device *dev, void *ptr, int byte, size_t bytes);
int lt_copy_to_device(lt_device *dev, void *dst, const void *src, size_t bytes);
int lt_copy_to_host(lt_device *dev, void *dst, const void *src, size_t bytes);
int lt_copy_on_device(lt_device *dev, void *dst, const void *src, size_t bytes);

/* Loads a module (a shared library of generated launchers) for dev. */
int lt_module_load(lt_device *dev, const char *path, lt_module **mod);
int lt_module_unload(lt_module *mod);
/* The launcher called name; cast it to the prototype in its header. */
int lt_module_symbol(lt_module *mod, const char *name, void **fn);

/* Calls fn warmup times, then reps times each between two timer marks
** (events on a GPU, a monotonic clock on the CPU) and reports the median,
** min, max and mean of those reps in milliseconds. */
int lt_bench(lt_device *dev, lt_bench_fn fn, void *user, int warmup, int reps,
             lt_bench_result *result);

/* ffi-end */

#ifdef __cplusplus
}
#endif

#endif
