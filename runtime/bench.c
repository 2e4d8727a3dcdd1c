/*
** bench.c: lt_bench, the timing loop shared by all backends.
**
** Warm-up calls run untimed, then the device is synchronized so queued
** warm-up work does not leak into the first timed repetition.  The backend
** times each repetition on its own (GPU: an event pair per repetition,
** recorded without host synchronization in between; CPU: a monotonic
** clock), and this file reduces the times to median / min / max / mean.
** The callback gets a running iteration number so it can rotate through
** several copies of its inputs and keep caches from serving them.
*/
#include <stdlib.h>

#include "backend.h"

#define MAX_REPS 100000

/* qsort order for doubles. */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Runs warmup + reps calls of fn and fills result; see luatile.h. */
int lt_bench(lt_device *dev, lt_bench_fn fn, void *user, int warmup, int reps,
             lt_bench_result *result) {
  lt_clear();
  if (!dev || !fn || !result) return lt_fail(LT_ERR_INVALID, "lt_bench: NULL argument");
  if (warmup < 0 || reps < 1 || reps > MAX_REPS)
    return lt_fail(LT_ERR_INVALID, "lt_bench: need warmup >= 0 and 1 <= reps <= %d", MAX_REPS);
  for (int i = 0; i < warmup; i++) {
    int rc = fn(user, i);
    if (rc) return lt_fail(LT_ERR_LAUNCH, "warm-up call %d returned %d: %s", i, rc,
                           dev->ops->launch_error(rc));
  }
  int st = dev->ops->sync(dev);
  if (st) return st;
  double *ms = malloc(sizeof *ms * (size_t)reps);
  if (!ms) return lt_fail(LT_ERR_NO_MEMORY, "lt_bench: out of host memory");
  st = dev->ops->time(dev, fn, user, warmup, reps, ms);
  if (st == LT_OK) {
    double sum = 0;
    for (int i = 0; i < reps; i++) sum += ms[i];
    qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
    result->median_ms = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    result->min_ms = ms[0];
    result->max_ms = ms[reps - 1];
    result->mean_ms = sum / reps;
    result->reps = reps;
  }
  free(ms);
  return st;
}
