/*
** vendor.c: the CUDA and HIP backends, one code over two runtimes.
**
** The CUDA runtime (libcudart) and the HIP runtime (libamdhip64) have the
** same calls under two prefixes: cudaMalloc / hipMalloc, cudaEventRecord /
** hipEventRecord ...  with the same argument shapes, error codes that are
** plain ints, and opaque pointer handles.  So a `vendor` record names the
** library files and the prefix, and the first use dlopens the library and
** looks every call up by prefix + suffix.  Nothing here includes a vendor
** header, so the runtime builds without CUDA or ROCm installed; where the
** library is missing a call answers LT_ERR_NO_RUNTIME, and where it has no
** device (no driver, no GPU) lt_device_count answers 0 and opening a device
** answers LT_ERR_NO_DEVICE with the vendor's reason.
**
** LT_CUDART / LT_HIPRT name a library file to use instead of the search.
** The first open of each backend must not race with another thread.
*/
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef int (*fn_ptr_size)(void **, size_t);          /* Malloc */
typedef int (*fn_ptr)(void *);                        /* Free, Event{Synchronize,Destroy} */
typedef int (*fn_copy)(void *, const void *, size_t, int);
typedef int (*fn_set)(void *, int, size_t);           /* Memset */
typedef int (*fn_void)(void);                         /* DeviceSynchronize */
typedef int (*fn_pptr)(void **);                      /* EventCreate */
typedef int (*fn_ptr_ptr)(void *, void *);            /* EventRecord */
typedef int (*fn_elapsed)(float *, void *, void *);
typedef const char *(*fn_errstr)(int);
typedef int (*fn_pint)(int *);                        /* GetDeviceCount */
typedef int (*fn_int)(int);                           /* SetDevice */
typedef int (*fn_attr)(int *, int, int);              /* DeviceGetAttribute */
typedef int (*fn_props)(void *, int);                 /* GetDeviceProperties */

typedef struct vendor {
  const char *label;              /* "CUDA" */
  const char *env;                /* variable naming the library file */
  const char *libs[6];            /* tried in order */
  const char *prefix;             /* "cuda" */
  const char *props[3];           /* GetDeviceProperties symbol names */
  int l2_attr;                    /* DeviceGetAttribute id of the L2 size */
  int cc_attr[2];                 /* ids of the compute capability (CUDA), or -1 */
  int oom;                        /* the runtime's out-of-memory code */
  /* filled by load() */
  int tried, status;
  char why[300];
  void *lib;
  fn_ptr_size Malloc;
  fn_ptr Free, EventSynchronize, EventDestroy;
  fn_copy Memcpy;
  fn_set Memset;
  fn_void DeviceSynchronize;
  fn_pptr EventCreate;
  fn_ptr_ptr EventRecord;
  fn_elapsed EventElapsedTime;
  fn_errstr GetErrorString;
  fn_pint GetDeviceCount;
  fn_int SetDevice;
  fn_attr DeviceGetAttribute;
  fn_props GetDeviceProperties;
} vendor;

static vendor cuda = {
  .label = "CUDA", .env = "LT_CUDART",
  .libs = { "libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
            "/usr/local/cuda/lib64/libcudart.so", NULL },
  .prefix = "cuda", .props = { "cudaGetDeviceProperties_v2", "cudaGetDeviceProperties", NULL },
  .l2_attr = 38 /* cudaDevAttrL2CacheSize */, .oom = 2 /* cudaErrorMemoryAllocation */,
  .cc_attr = { 75, 76 } /* cudaDevAttrComputeCapabilityMajor, Minor */,
};

static vendor hip = {
  .label = "HIP", .env = "LT_HIPRT",
  .libs = { "libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5",
            "/opt/rocm/lib/libamdhip64.so", NULL },
  .prefix = "hip", .props = { "hipGetDevicePropertiesR0600", "hipGetDeviceProperties", NULL },
  .l2_attr = 19 /* hipDeviceAttributeL2CacheSize */, .oom = 2 /* hipErrorOutOfMemory */,
  .cc_attr = { -1, -1 } /* gfx names are not a number pair */,
};

/* dlsym of prefix + suffix, stored into *slot (a function pointer's bytes);
** returns 0 when the symbol is missing. */
static int resolve(vendor *v, const char *suffix, void *slot) {
  char name[96];
  snprintf(name, sizeof name, "%s%s", v->prefix, suffix);
  void *p = dlsym(v->lib, name);
  if (!p) {
    snprintf(v->why, sizeof v->why, "%s has no %s", v->label, name);
    return 0;
  }
  memcpy(slot, &p, sizeof p);
  return 1;
}

/* Opens the library and resolves every call once; later calls return the
** first outcome.  LT_OK, or LT_ERR_NO_RUNTIME with the reason in v->why. */
static int load(vendor *v) {
  if (v->tried) return v->status;
  v->tried = 1;
  v->status = LT_ERR_NO_RUNTIME;
  const char *own = getenv(v->env);
  if (own && *own) {
    v->lib = dlopen(own, RTLD_NOW | RTLD_LOCAL);
  } else {
    for (int i = 0; v->libs[i] && !v->lib; i++) v->lib = dlopen(v->libs[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (!v->lib) {
    snprintf(v->why, sizeof v->why, "%s runtime library not found (%s; set %s to its path)",
             v->label, own && *own ? own : v->libs[0], v->env);
    return v->status;
  }
  int ok = resolve(v, "Malloc", &v->Malloc) && resolve(v, "Free", &v->Free) &&
           resolve(v, "Memcpy", &v->Memcpy) && resolve(v, "Memset", &v->Memset) &&
           resolve(v, "DeviceSynchronize", &v->DeviceSynchronize) &&
           resolve(v, "EventCreate", &v->EventCreate) &&
           resolve(v, "EventRecord", &v->EventRecord) &&
           resolve(v, "EventSynchronize", &v->EventSynchronize) &&
           resolve(v, "EventElapsedTime", &v->EventElapsedTime) &&
           resolve(v, "EventDestroy", &v->EventDestroy) &&
           resolve(v, "GetErrorString", &v->GetErrorString) &&
           resolve(v, "GetDeviceCount", &v->GetDeviceCount) &&
           resolve(v, "SetDevice", &v->SetDevice) &&
           resolve(v, "DeviceGetAttribute", &v->DeviceGetAttribute);
  for (int i = 0; ok && v->props[i] && !v->GetDeviceProperties; i++) {
    void *p = dlsym(v->lib, v->props[i]);
    if (p) memcpy(&v->GetDeviceProperties, &p, sizeof p);
  }
  if (!ok) return v->status;
  v->status = LT_OK;
  return LT_OK;
}

/* Failure of vendor call `what` with code rc: LT_ERR_NO_MEMORY for the
** runtime's out-of-memory code, LT_ERR_VENDOR otherwise. */
static int vfail(vendor *v, const char *what, int rc) {
  return lt_fail(rc == v->oom ? LT_ERR_NO_MEMORY : LT_ERR_VENDOR, "%s%s failed: %s (%d)",
                 v->prefix, what, v->GetErrorString(rc), rc);
}

/* Makes d the calling thread's current device. */
static int use(vendor *v, lt_device *d) {
  int rc = v->SetDevice(d->info.index);
  return rc ? vfail(v, "SetDevice", rc) : LT_OK;
}

/* Device count; an error from the runtime (no driver, no GPU) counts as
** zero devices, with the reason left in the failure line. */
static int v_count(vendor *v, int *n) {
  int st = load(v);
  if (st) return lt_fail(st, "%s", v->why);
  int c = 0, rc = v->GetDeviceCount(&c);
  if (rc) {
    lt_fail(LT_OK, "%sGetDeviceCount: %s (%d)", v->prefix, v->GetErrorString(rc), rc);
    c = 0;
  }
  *n = c;
  return LT_OK;
}

/* Name from the properties record (its first field on both runtimes), the
** L2 size and (CUDA) compute capability from attributes; the rest of the
** record is not read. */
static int v_open(vendor *v, lt_device *d) {
  int st = use(v, d);
  if (st) return st;
  snprintf(d->info.name, sizeof d->info.name, "%s device %d", v->label, d->info.index);
  if (v->GetDeviceProperties) {
    static union { char bytes[16384]; long double align; } props;
    memset(&props, 0, sizeof props);
    if (v->GetDeviceProperties(props.bytes, d->info.index) == 0 && props.bytes[0]) {
      memcpy(d->info.name, props.bytes, sizeof d->info.name);
      d->info.name[sizeof d->info.name - 1] = 0;
    }
  }
  int l2 = 0;
  if (v->DeviceGetAttribute(&l2, v->l2_attr, d->info.index) != 0 || l2 < 65536 ||
      l2 > (1 << 30))
    l2 = 64 << 20;  /* unknown: assume a large cache, so rotation errs on the safe side */
  d->info.cache_bytes = (size_t)l2;
  int major = 0, minor = 0;
  if (v->cc_attr[0] >= 0 && v->DeviceGetAttribute(&major, v->cc_attr[0], d->info.index) == 0 &&
      v->DeviceGetAttribute(&minor, v->cc_attr[1], d->info.index) == 0 && major > 0 && major < 100 &&
      minor >= 0 && minor < 10)
    snprintf(d->info.arch, sizeof d->info.arch, "sm_%d%d", major, minor);
  return LT_OK;
}

/* Malloc on d; the runtime's out-of-memory code maps to LT_ERR_NO_MEMORY. */
static int v_alloc(vendor *v, lt_device *d, size_t bytes, void **ptr) {
  int st = use(v, d);
  if (st) return st;
  void *p = NULL;
  int rc = v->Malloc(&p, bytes);
  if (rc) return vfail(v, "Malloc", rc);
  *ptr = p;
  return LT_OK;
}

/* Free of memory from v_alloc on the same device. */
static int v_release(vendor *v, lt_device *d, void *ptr) {
  int st = use(v, d);
  if (st) return st;
  int rc = v->Free(ptr);
  return rc ? vfail(v, "Free", rc) : LT_OK;
}

/* Memset (on the default stream; ordered with launches on it). */
static int v_fill(vendor *v, lt_device *d, void *ptr, int byte, size_t bytes) {
  int st = use(v, d);
  if (st) return st;
  int rc = v->Memset(ptr, byte, bytes);
  return rc ? vfail(v, "Memset", rc) : LT_OK;
}

/* kind follows both runtimes' MemcpyKind: 1 HtoD, 2 DtoH, 3 DtoD. */
static int v_copy(vendor *v, lt_device *d, void *dst, const void *src, size_t bytes, int kind) {
  int st = use(v, d);
  if (st) return st;
  int rc = v->Memcpy(dst, src, bytes, kind);
  return rc ? vfail(v, "Memcpy", rc) : LT_OK;
}

/* DeviceSynchronize: waits for all work on d, launchers' kernels included. */
static int v_sync(vendor *v, lt_device *d) {
  int st = use(v, d);
  if (st) return st;
  int rc = v->DeviceSynchronize();
  return rc ? vfail(v, "DeviceSynchronize", rc) : LT_OK;
}

/* An event pair around each call on the default stream; one synchronize
** at the end, then the elapsed time of each pair.  Events are made and
** destroyed per call of lt_bench. */
static int v_time(vendor *v, lt_device *d, lt_bench_fn fn, void *user, int first, int reps,
                  double *ms) {
  int st = use(v, d);
  if (st) return st;
  void **ev = calloc((size_t)reps * 2, sizeof *ev);
  if (!ev) return lt_fail(LT_ERR_NO_MEMORY, "lt_bench: out of host memory");
  int made = 0, rc = 0;
  for (; made < reps * 2; made++)
    if ((rc = v->EventCreate(&ev[made])) != 0) { st = vfail(v, "EventCreate", rc); break; }
  for (int i = 0; !st && i < reps; i++) {
    if ((rc = v->EventRecord(ev[2 * i], NULL)) != 0) { st = vfail(v, "EventRecord", rc); break; }
    int lr = fn(user, first + i);
    if (lr) {
      st = lt_fail(LT_ERR_LAUNCH, "call %d returned %d: %s", first + i, lr, v->GetErrorString(lr));
      break;
    }
    if ((rc = v->EventRecord(ev[2 * i + 1], NULL)) != 0) { st = vfail(v, "EventRecord", rc); break; }
  }
  if (!st && (rc = v->EventSynchronize(ev[reps * 2 - 1])) != 0) st = vfail(v, "EventSynchronize", rc);
  for (int i = 0; !st && i < reps; i++) {
    float t = 0;
    if ((rc = v->EventElapsedTime(&t, ev[2 * i], ev[2 * i + 1])) != 0) {
      st = vfail(v, "EventElapsedTime", rc);
      break;
    }
    ms[i] = t;
  }
  if (st) v->DeviceSynchronize();  /* let pending events finish before destroying them */
  for (int i = 0; i < made; i++) v->EventDestroy(ev[i]);
  free(ev);
  return st;
}

/* The runtime's GetErrorString for a launcher's cudaError_t / hipError_t. */
static const char *v_launch_error(vendor *v, int code) {
  if (load(v)) return "unknown error (vendor runtime not loaded)";
  return v->GetErrorString(code);
}

/* The two tables: thin wrappers that bind each function to its vendor. */
#define BIND(V)                                                                          \
  static int V##_count(int *n) { return v_count(&V, n); }                               \
  static int V##_open(lt_device *d) { return v_open(&V, d); }                           \
  static void V##_close(lt_device *d) { (void)d; }                                      \
  static int V##_alloc(lt_device *d, size_t b, void **p) { return v_alloc(&V, d, b, p); } \
  static int V##_release(lt_device *d, void *p) { return v_release(&V, d, p); }         \
  static int V##_fill(lt_device *d, void *p, int c, size_t b) { return v_fill(&V, d, p, c, b); } \
  static int V##_copy(lt_device *d, void *a, const void *b, size_t n, int k) {          \
    return v_copy(&V, d, a, b, n, k);                                                   \
  }                                                                                     \
  static int V##_sync(lt_device *d) { return v_sync(&V, d); }                           \
  static int V##_time(lt_device *d, lt_bench_fn f, void *u, int first, int reps, double *ms) { \
    return v_time(&V, d, f, u, first, reps, ms);                                        \
  }                                                                                     \
  static const char *V##_launch_error(int code) { return v_launch_error(&V, code); }    \
  const lt_ops lt_##V##_ops = { V##_count, V##_open, V##_close, V##_alloc, V##_release,  \
                                V##_fill, V##_copy, V##_sync, V##_time, V##_launch_error };

BIND(cuda)
BIND(hip)
