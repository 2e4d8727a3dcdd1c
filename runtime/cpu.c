/*
** cpu.c: the CPU backend, for modules generated for target c.
**
** "Device" memory is 64-byte aligned host memory, copies are memcpy /
** memmove, and there is nothing to synchronize.  Timing reads
** CLOCK_MONOTONIC around each call.  The device name is the CPU model from
** /proc/cpuinfo and the cache size the last-level cache that sysconf or
** /sys reports (8 MiB when neither knows), so the tuner can key its cache
** and size its input rotation the same way as on a GPU.
*/
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"

/* One CPU device. */
static int cpu_count(int *n) { *n = 1; return LT_OK; }

/* Copies "model name" from /proc/cpuinfo into name (or "cpu"). */
static void cpu_model(char *name, size_t n) {
  snprintf(name, n, "cpu");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    char *p = strchr(line, ':');
    if (!p) break;
    p++;
    while (*p == ' ' || *p == '\t') p++;
    p[strcspn(p, "\n")] = 0;
    snprintf(name, n, "%s", p);
    break;
  }
  fclose(f);
}

/* Largest cache the OS reports, in bytes; 8 MiB when it reports none. */
static size_t cpu_cache(void) {
  long best = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  best = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (best <= 0) best = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  for (int i = 0; i < 8 && best <= 0; i++) {
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    long v = 0;
    char unit = 0;
    if (fscanf(f, "%ld%c", &v, &unit) >= 1) {
      if (unit == 'K') v *= 1024;
      if (unit == 'M') v *= 1024 * 1024;
      if (v > best) best = v;
    }
    fclose(f);
  }
  return best > 0 ? (size_t)best : (size_t)8 << 20;
}

/* Names the device after the CPU model and sizes its cache. */
static int cpu_open(lt_device *d) {
  cpu_model(d->info.name, sizeof d->info.name);
  d->info.cache_bytes = cpu_cache();
  return LT_OK;
}

/* Nothing is held per CPU device. */
static void cpu_close(lt_device *d) { (void)d; }

/* Rounds the size up to a multiple of 64, as aligned_alloc requires. */
static int cpu_alloc(lt_device *d, size_t bytes, void **ptr) {
  (void)d;
  size_t n = (bytes + 63) / 64 * 64;
  if (n < bytes) return lt_fail(LT_ERR_NO_MEMORY, "lt_malloc: %zu bytes is too large", bytes);
  void *p = aligned_alloc(64, n);
  if (!p) return lt_fail(LT_ERR_NO_MEMORY, "lt_malloc: cannot allocate %zu bytes", bytes);
  *ptr = p;
  return LT_OK;
}

/* ptr came from cpu_alloc (aligned_alloc), so free() releases it. */
static int cpu_release(lt_device *d, void *ptr) { (void)d; free(ptr); return LT_OK; }

/* memset of host memory. */
static int cpu_fill(lt_device *d, void *ptr, int byte, size_t bytes) {
  (void)d;
  memset(ptr, byte, bytes);
  return LT_OK;
}

/* memmove, so an overlapping on-device copy is still right. */
static int cpu_copy(lt_device *d, void *dst, const void *src, size_t bytes, int kind) {
  (void)d; (void)kind;
  memmove(dst, src, bytes);
  return LT_OK;
}

/* CPU launchers finish before they return: nothing to wait for. */
static int cpu_sync(lt_device *d) { (void)d; return LT_OK; }

/* Seconds on the monotonic clock, in milliseconds. */
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Times each call alone; stops at the first non-zero return. */
static int cpu_time(lt_device *d, lt_bench_fn fn, void *user, int first, int reps, double *ms) {
  for (int i = 0; i < reps; i++) {
    double t0 = now_ms();
    int rc = fn(user, first + i);
    double t1 = now_ms();
    if (rc) return lt_fail(LT_ERR_LAUNCH, "call %d returned %d: %s", first + i, rc,
                           d->ops->launch_error(rc));
    ms[i] = t1 - t0;
  }
  return LT_OK;
}

/* Generated C launchers return 1 for a bad argument and nothing else. */
static const char *cpu_launch_error(int code) {
  return code == 1 ? "invalid argument" : "unknown launcher error";
}

const lt_ops lt_cpu_ops = {
  cpu_count, cpu_open, cpu_close, cpu_alloc, cpu_release, cpu_fill, cpu_copy,
  cpu_sync, cpu_time, cpu_launch_error,
};
