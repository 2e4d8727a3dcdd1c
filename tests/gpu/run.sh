#!/usr/bin/env bash
# tests/gpu/run.sh: on a machine with an NVIDIA GPU (the device tool; never
# CI): builds out/sm80 (as sm_90 machine code) and out/sm90a into shared
# libraries, checks every kernel and variant (check.py), then runs the
# benchmark if asked (--bench).  Logs go to ${OUT:-build/gpu}.
set -u
cd "$(dirname "$0")/../.."
o=build/gpu; out=${OUT:-$o}; mkdir -p $o $out
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $out/gpu.txt
for t in sm80 sm90a; do
  arch=$([ $t = sm80 ] && echo "-gencode=arch=compute_90,code=sm_90" || echo "-gencode=arch=compute_90a,code=sm_90a")
  ls out/$t/*.cu | xargs -P 16 -I{} sh -c "nvcc -O3 $arch -Xcompiler -fPIC -c {} -o $o/\$(basename {} .cu).$t.o" || exit 1
  nvcc -shared $o/*.$t.o -o $o/lt_$t.so || exit 1
done
for t in sm80 sm90a; do python3 tests/gpu/check.py $o/lt_$t.so $t | tee $out/check_$t.txt | grep -v ^PASS; done
[ "${1:-}" = --bench ] && python3 bench/rowops.py $o/lt_sm90a.so | tee $out/bench.txt
exit 0
