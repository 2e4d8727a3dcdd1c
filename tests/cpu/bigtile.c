/*
** bigtile.c: runs tests/cpu/bigtile.lua's c-target launcher (tiles of 2^21
** f32 elements, 8 MB each) in a thread with a 1 MB stack, on a ragged size,
** and checks every element: gen puts arrays past its stack budget in
** thread-local storage, so this neither overflows the stack nor races.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "bigtile.h"

#define N (2097152 + 1000)   /* two programs, the second ragged */

static float *X, *Y;
static int rc = -1;

static void *run(void *arg) {
  (void)arg;
  rc = bigtile(X, Y, N, NULL);
  return NULL;
}

int main(void) {
  X = malloc(N * sizeof *X);
  Y = malloc(N * sizeof *Y);
  if (!X || !Y) return 1;
  for (int i = 0; i < N; i++) X[i] = (float)(rand() % 2001 - 1000) / 64, Y[i] = -1e30f;
  pthread_attr_t a;
  pthread_t t;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, 1 << 20);
  if (pthread_create(&t, &a, run, NULL) != 0) return 1;
  pthread_join(t, NULL);
  int bad = 0;
  for (int i = 0; i < N && !bad; i++)
    if (Y[i] != X[i] * 2 + 1) bad = i + 1;
  if (rc != 0) printf("FAIL cpu bigtile: the launcher returned %d\n", rc);
  else if (bad) printf("FAIL cpu bigtile: Y[%d] = %g, expected %g\n", bad - 1, Y[bad - 1], X[bad - 1] * 2 + 1);
  else printf("PASS cpu bigtile: tiles of 8 MB run in a thread with a 1 MB stack (%d elements checked)\n", N);
  return 0;
}
