/* vadd_main.c: calls the c-target launcher of vadd.lua. */
#include <stdio.h>
#include <stdlib.h>

#include "vadd.h"

int main(void) {
  int n = 3000;   /* not a multiple of BLOCK = 1024: the last tile is masked */
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
  for (int i = 0; i < n; i++) {
    x[i] = 0.5f * i;
    y[i] = 1.0f;
  }
  int rc = vadd(x, y, z, n, NULL);   /* the c target ignores the stream */
  if (rc != 0) {
    fprintf(stderr, "vadd failed: %d\n", rc);
    return 1;
  }
  printf("z[0] = %g, z[%d] = %g\n", z[0], n - 1, z[n - 1]);
  free(x);
  free(y);
  free(z);
  return 0;
}
