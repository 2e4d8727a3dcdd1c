/*
** test_runtime.c: checks of the runtime's C API, one output line per check
** ("PASS name", "FAIL name: why" or "SKIP name: why"); always exits 0.
**
** Usage: test_runtime CPU_MODULE [CUDA_MODULE [HIP_MODULE]]
**   CPU_MODULE  scale.so built from fixtures/scale.c with cc
**   CUDA_MODULE scale_cuda.so built from fixtures/scale.cu with nvcc ("-": none)
**   HIP_MODULE  scale_hip.so built from fixtures/scale.hip with hipcc
** Data are random (never zeros), sizes ragged, outputs poisoned with 0xFF
** bytes (NaN) before each run, and elements past the end are checked to
** stay poisoned.  GPU checks print SKIP where the backend has no device.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luatile.h"

typedef int (*scale_fn)(const void *X, void *Y, int N, float a, void *stream);

/* Prints PASS name, or FAIL name: why when why is not NULL. */
static void report(const char *name, const char *fmt, ...) {
  if (!fmt) { printf("PASS %s\n", name); return; }
  char buf[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  printf("FAIL %s: %s\n", name, buf);
}

static void skip(const char *name, const char *why) { printf("SKIP %s: %s\n", name, why); }

/* Uniform random floats in [-2, 2] without zeros. */
static void randomize(float *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    float v = (float)(rand() % 40000 - 20000) / 10000.0f;
    x[i] = v == 0.0f ? 0.5f : v;
  }
}

/* Upload, copy on device, download: the bytes must come back unchanged,
** for several ragged sizes.  Returns NULL or a failure text. */
static const char *roundtrip(lt_device *dev, char *why, size_t whylen) {
  static const size_t sizes[] = { 1, 3, 17, 4099, 1000003 };
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    size_t n = sizes[s];
    unsigned char *src = malloc(n), *dst = malloc(n + 16);
    void *a = NULL, *b = NULL;
    for (size_t i = 0; i < n; i++) src[i] = (unsigned char)(1 + rand() % 255);
    memset(dst, 0xFF, n + 16);
    int st = lt_malloc(dev, n, &a);
    if (!st) st = lt_malloc(dev, n, &b);
    if (!st) st = lt_memset(dev, b, 0xFF, n);
    if (!st) st = lt_copy_to_device(dev, a, src, n);
    if (!st) st = lt_copy_on_device(dev, b, a, n);
    if (!st) st = lt_copy_to_host(dev, dst, b, n);
    int bad = !st && memcmp(src, dst, n) != 0;
    for (size_t i = n; !st && !bad && i < n + 16; i++) bad = dst[i] != 0xFF;
    if (st) snprintf(why, whylen, "size %zu: %s: %s", n, lt_status_string(st), lt_error_detail());
    else if (bad) snprintf(why, whylen, "size %zu: bytes differ after the round trip", n);
    lt_free(dev, a);
    lt_free(dev, b);
    free(src);
    free(dst);
    if (st || bad) return why;
  }
  return NULL;
}

/* Every bad call returns its documented code and leaves a detail line. */
static void check_errors(lt_device *dev, const char *cpu_module) {
  char why[600] = "";
  void *p = NULL;
  lt_module *m = NULL;
  lt_device *d = NULL;
  int n = 0;
  struct { const char *what; int got, want; const char *mention; } c[32];
  int k = 0;
#define EXPECT(CALL, WANT, MENTION)                                                   \
  do {                                                                                 \
    c[k].what = #CALL;                                                                 \
    c[k].got = (CALL);                                                                 \
    c[k].want = (WANT);                                                                \
    c[k].mention = (MENTION);                                                          \
    if (c[k].got == c[k].want && c[k].mention && !strstr(lt_error_detail(), c[k].mention)) \
      c[k].got = -1;                                                                   \
    k++;                                                                               \
  } while (0)
  EXPECT(lt_malloc(NULL, 16, &p), LT_ERR_INVALID, "NULL");
  EXPECT(lt_malloc(dev, 0, &p), LT_ERR_INVALID, "zero");
  EXPECT(lt_malloc(dev, 16, NULL), LT_ERR_INVALID, NULL);
  EXPECT(lt_free(NULL, p), LT_ERR_INVALID, NULL);
  EXPECT(lt_free(dev, NULL), LT_OK, NULL);
  EXPECT(lt_copy_to_device(NULL, why, why, 4), LT_ERR_INVALID, NULL);
  EXPECT(lt_copy_to_host(dev, NULL, why, 4), LT_ERR_INVALID, NULL);
  EXPECT(lt_memset(dev, NULL, 0, 4), LT_ERR_INVALID, NULL);
  EXPECT(lt_device_open(7, 0, &d), LT_ERR_INVALID, "backend");
  EXPECT(lt_device_open(LT_BACKEND_CPU, 3, &d), LT_ERR_NO_DEVICE, "no CPU device 3");
  EXPECT(lt_device_open(LT_BACKEND_CPU, 0, NULL), LT_ERR_INVALID, NULL);
  EXPECT(lt_device_count(-1, &n), LT_ERR_INVALID, NULL);
  EXPECT(lt_device_close(NULL), LT_ERR_INVALID, NULL);
  EXPECT(lt_device_sync(NULL), LT_ERR_INVALID, NULL);
  EXPECT(lt_module_load(NULL, cpu_module, &m), LT_ERR_INVALID, NULL);
  EXPECT(lt_module_load(dev, "/nonexistent/dir/x.so", &m), LT_ERR_LOAD, "/nonexistent/dir/x.so");
  EXPECT(lt_module_load(dev, __FILE__, &m), LT_ERR_LOAD, "cannot load");
  EXPECT(lt_module_symbol(NULL, "x", &p), LT_ERR_INVALID, NULL);
  EXPECT(lt_module_unload(NULL), LT_ERR_INVALID, NULL);
  EXPECT(lt_bench(NULL, NULL, NULL, 1, 1, NULL), LT_ERR_INVALID, NULL);
  int bk = -1;
  EXPECT(lt_backend_parse("tpu", &bk), LT_ERR_INVALID, "tpu");
  EXPECT(lt_backend_parse("cuda", &bk), LT_OK, NULL);
#undef EXPECT
  for (int i = 0; i < k; i++) {
    if (c[i].got != c[i].want) {
      if (c[i].got == -1)
        report("errors_bad_calls", "%s: detail '%s' does not mention '%s'", c[i].what,
               lt_error_detail(), c[i].mention);
      else
        report("errors_bad_calls", "%s returned %d (%s), want %d", c[i].what, c[i].got,
               lt_status_string(c[i].got), c[i].want);
      return;
    }
  }
  if (bk != LT_BACKEND_CUDA) { report("errors_bad_calls", "lt_backend_parse(cuda) gave %d", bk); return; }
  if (lt_device_sync(dev) != LT_OK || lt_error_detail()[0]) {
    report("errors_bad_calls", "a successful call left detail '%s'", lt_error_detail());
    return;
  }
  if (strcmp(lt_status_string(12345), "unknown status") != 0 ||
      strcmp(lt_backend_name(9), "unknown") != 0) {
    report("errors_bad_calls", "names out of range are not 'unknown'");
    return;
  }
  report("errors_bad_calls", NULL);
}

typedef struct bench_ctx {
  scale_fn f;
  void *x[3], *y[3];
  int n, calls, fail_at;
} bench_ctx;

/* lt_bench callback: scale through rotating buffer pairs. */
static int bench_cb(void *user, int iter) {
  bench_ctx *b = user;
  b->calls++;
  if (iter == b->fail_at) return b->f(NULL, NULL, b->n, 1.0f, NULL);
  return b->f(b->x[iter % 3], b->y[iter % 3], b->n, 1.5f, NULL);
}

/* Load the module, look the launcher up, run it on a ragged size with a
** poisoned output, and time it.  prefix names the checks (cpu / cuda / hip). */
static void check_module(lt_device *dev, const char *prefix, const char *path, const char *sym) {
  char name[64], why[600];
  lt_module *m = NULL;
  snprintf(name, sizeof name, "%s_module_load", prefix);
  int st = lt_module_load(dev, path, &m);
  if (st) { report(name, "%s: %s", lt_status_string(st), lt_error_detail()); return; }
  report(name, NULL);

  void *p = NULL;
  snprintf(name, sizeof name, "%s_unknown_symbol", prefix);
  st = lt_module_symbol(m, "no_such_launcher", &p);
  if (st != LT_ERR_SYMBOL || !strstr(lt_error_detail(), "no_such_launcher"))
    report(name, "got %d '%s'", st, lt_error_detail());
  else
    report(name, NULL);

  snprintf(name, sizeof name, "%s_launch", prefix);
  scale_fn f = NULL;
  st = lt_module_symbol(m, sym, &p);
  if (st) { report(name, "lookup: %s", lt_error_detail()); lt_module_unload(m); return; }
  memcpy(&f, &p, sizeof f);
  const int n = 1003, pad = 13;
  float *x = malloc(sizeof *x * n), *y = malloc(sizeof *y * (n + pad));
  randomize(x, (size_t)n);
  void *dx = NULL, *dy = NULL;
  st = lt_malloc(dev, sizeof *x * n, &dx);
  if (!st) st = lt_malloc(dev, sizeof *y * (n + pad), &dy);
  if (!st) st = lt_copy_to_device(dev, dx, x, sizeof *x * n);
  if (!st) st = lt_memset(dev, dy, 0xFF, sizeof *y * (n + pad));
  int rc = st ? 0 : f(dx, dy, n, 1.5f, NULL);
  if (!st && !rc) st = lt_device_sync(dev);
  if (!st && !rc) st = lt_copy_to_host(dev, y, dy, sizeof *y * (n + pad));
  const char *bad = NULL;
  if (st) bad = lt_error_detail();
  else if (rc) bad = lt_launch_error_string(dev, rc);
  for (int i = 0; !bad && i < n; i++)
    if (!(fabsf(y[i] - 1.5f * x[i]) <= 1e-6f * fabsf(x[i]))) {
      snprintf(why, sizeof why, "Y[%d] = %g, want %g", i, y[i], 1.5f * x[i]);
      bad = why;
    }
  for (int i = n; !bad && i < n + pad; i++)
    if (!isnan(y[i])) { snprintf(why, sizeof why, "Y[%d] past the end was written", i); bad = why; }
  report(name, bad ? "%s" : NULL, bad);

  snprintf(name, sizeof name, "%s_bad_launch_code", prefix);
  rc = f(NULL, NULL, n, 1.0f, NULL);
  if (rc == 0) report(name, "NULL pointers were accepted");
  else if (!*lt_launch_error_string(dev, rc)) report(name, "empty error string for %d", rc);
  else report(name, NULL);

  /* timing over three rotating buffer pairs */
  snprintf(name, sizeof name, "%s_bench_median", prefix);
  bench_ctx b = { f, { dx, dx, dx }, { dy, dy, dy }, n, 0, -1 };
  void *more[4] = { NULL, NULL, NULL, NULL };
  for (int i = 0; i < 4 && !st; i++) st = lt_malloc(dev, sizeof *x * (n + pad), &more[i]);
  if (!st) { b.x[1] = more[0]; b.y[1] = more[1]; b.x[2] = more[2]; b.y[2] = more[3]; }
  lt_bench_result r;
  memset(&r, 0, sizeof r);
  st = st ? st : lt_bench(dev, bench_cb, &b, 3, 21, &r);
  if (st) report(name, "%s: %s", lt_status_string(st), lt_error_detail());
  else if (!(r.median_ms > 0 && r.min_ms <= r.median_ms && r.median_ms <= r.max_ms &&
             r.mean_ms > 0 && r.reps == 21 && b.calls == 24))
    report(name, "median %g min %g max %g mean %g reps %d calls %d", r.median_ms, r.min_ms,
           r.max_ms, r.mean_ms, r.reps, b.calls);
  else
    report(name, NULL);

  snprintf(name, sizeof name, "%s_bench_launch_error", prefix);
  b.calls = 0;
  b.fail_at = 5;
  st = lt_bench(dev, bench_cb, &b, 2, 10, &r);
  if (st != LT_ERR_LAUNCH || !strstr(lt_error_detail(), "call 5"))
    report(name, "got %d '%s'", st, lt_error_detail());
  else
    report(name, NULL);

  for (int i = 0; i < 4; i++) lt_free(dev, more[i]);
  lt_free(dev, dx);
  lt_free(dev, dy);
  free(x);
  free(y);
  lt_module_unload(m);
}

/* A vendor backend: absent or deviceless here must fail cleanly; with a
** device, the same memory and module checks as the CPU run on it. */
static void check_vendor(int backend, const char *prefix, const char *label, const char *module,
                         const char *sym) {
  char name[64], why[600];
  int n = -1, st = lt_device_count(backend, &n);
  snprintf(name, sizeof name, "%s_absent_is_clean", prefix);
  if (st == LT_ERR_NO_RUNTIME || (st == LT_OK && n == 0)) {
    lt_device *d = NULL;
    int ost = lt_device_open(backend, 0, &d);
    int want = st == LT_OK ? LT_ERR_NO_DEVICE : LT_ERR_NO_RUNTIME;
    if (ost != want || d) report(name, "open gave %d '%s'", ost, lt_error_detail());
    else if (want == LT_ERR_NO_DEVICE && !strstr(lt_error_detail(), label))
      report(name, "detail '%s' does not name %s", lt_error_detail(), label);
    else report(name, NULL);
    snprintf(why, sizeof why, "no %s device (%s)", label, lt_error_detail());
    snprintf(name, sizeof name, "%s_roundtrip", prefix);
    skip(name, why);
    snprintf(name, sizeof name, "%s_module", prefix);
    skip(name, why);
    return;
  }
  if (st) { report(name, "lt_device_count: %s", lt_error_detail()); return; }
  skip(name, "a device is present");
  lt_device *dev = NULL;
  snprintf(name, sizeof name, "%s_roundtrip", prefix);
  st = lt_device_open(backend, 0, &dev);
  if (st) { report(name, "open: %s", lt_error_detail()); return; }
  const char *bad = roundtrip(dev, why, sizeof why);
  report(name, bad ? "%s" : NULL, bad);
  if (module && strcmp(module, "-") != 0) check_module(dev, prefix, module, sym);
  else { snprintf(name, sizeof name, "%s_module", prefix); skip(name, "module not built"); }
  lt_device_close(dev);
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: test_runtime CPU_MODULE [CUDA_MODULE [HIP_MODULE]]\n"); return 2; }
  srand(12345);
  char why[600];
  int n = 0;
  int st = lt_device_count(LT_BACKEND_CPU, &n);
  if (st || n != 1) report("cpu_count", "st %d n %d", st, n);
  else report("cpu_count", NULL);

  lt_device *dev = NULL;
  st = lt_device_open(LT_BACKEND_CPU, 0, &dev);
  if (st) { report("cpu_open", "%s", lt_error_detail()); return 0; }
  lt_device_info info;
  st = lt_device_info_get(dev, &info);
  if (st || !info.name[0] || info.cache_bytes == 0 || info.backend != LT_BACKEND_CPU)
    report("cpu_open", "info: st %d name '%s' cache %zu", st, info.name, info.cache_bytes);
  else report("cpu_open", NULL);

  const char *bad = roundtrip(dev, why, sizeof why);
  report("cpu_roundtrip", bad ? "%s" : NULL, bad);
  check_errors(dev, argv[1]);
  check_module(dev, "cpu", argv[1], "lt_scale_f32");

  /* closing the device while memory and a module still hold it is safe */
  void *p = NULL;
  lt_module *m = NULL;
  st = lt_malloc(dev, 100, &p);
  if (!st) st = lt_module_load(dev, argv[1], &m);
  if (!st) st = lt_device_close(dev);
  if (!st) st = lt_memset(dev, p, 1, 100);
  if (!st) st = lt_free(dev, p);
  if (!st) st = lt_module_unload(m);
  report("cpu_close_order", st ? "%s" : NULL, lt_error_detail());

  check_vendor(LT_BACKEND_CUDA, "cuda", "CUDA", argc > 2 ? argv[2] : NULL, "lt_scale_f32");
  check_vendor(LT_BACKEND_HIP, "hip", "HIP", argc > 3 ? argv[3] : NULL, "lt_scale_f32");
  return 0;
}
