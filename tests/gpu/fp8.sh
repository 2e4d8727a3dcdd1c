#!/usr/bin/env bash
# tests/gpu/fp8.sh: the fp8 conversion check of tests/gpu/fp8_convert.cu,
# built for sm_90a and as compute_80 PTX (sm80's software conversion), on
# the GPU of this machine.  Prints PASS/FAIL lines.
cd "$(dirname "$0")/../.." || exit 0
b=${LT_BUILD:-build/tests/gpu}
mkdir -p $b
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a tests/gpu/fp8_convert.cu -o $b/fp8_sm90a &&
  $b/fp8_sm90a sm90a || echo "FAIL gpu fp8 sm90a: build or run"
nvcc -O3 -std=c++17 -gencode=arch=compute_80,code=compute_80 tests/gpu/fp8_convert.cu -o $b/fp8_sm80 &&
  $b/fp8_sm80 sm80 || echo "FAIL gpu fp8 sm80: build or run"
