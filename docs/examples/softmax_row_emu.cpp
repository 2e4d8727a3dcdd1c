// softmax_row_emu.cpp: runs the sm80 CUDA code of softmax_row.lua on the CPU
// (gen --emulate) and checks it against a softmax computed in double.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "softmax_row_f32.h"   // int softmax_row_f32(const void *X, void *Y, int R, int C, void *stream)

int main() {
  const int R = 37, C = 1000;   // ragged sizes; softmax_row needs C <= BC = 1024
  std::vector<float> x(R * C), y(R * C, NAN);   // y poisoned: every element must be written
  srand(1);
  for (float &v : x) v = 8.0f * rand() / RAND_MAX - 4.0f;

  // The emulated launcher takes host pointers; the stream is ignored.
  int rc = softmax_row_f32(x.data(), y.data(), R, C, nullptr);
  if (rc != 0) {
    fprintf(stderr, "softmax_row_f32 returned %d\n", rc);
    return 1;
  }

  for (int r = 0; r < R; r++) {
    const float *xr = &x[r * C];
    double m = xr[0], sum = 0;
    for (int c = 1; c < C; c++) m = fmax(m, xr[c]);
    for (int c = 0; c < C; c++) sum += exp(xr[c] - m);
    for (int c = 0; c < C; c++) {
      double want = exp(xr[c] - m) / sum;
      double err = fabs(y[r * C + c] - want) / want;
      if (!(err <= 1e-5)) {   // also true for NaN: an element not written
        fprintf(stderr, "Y[%d, %d] = %g, want %g\n", r, c, y[r * C + c], want);
        return 1;
      }
    }
  }
  printf("softmax_row_f32: %d x %d matches the double reference (relative error < 1e-5)\n", R, C);
  return 0;
}
