#!/usr/bin/env bash
# tests/gpu/run.sh: on a machine with an NVIDIA GPU (the device tool; never
# CI): builds out/sm80 (as sm_90 machine code) and out/sm90a into shared
# libraries, checks every kernel and variant (check.py), then runs the
# row-op benchmark if asked (--bench).  Logs go to ${OUT:-build/gpu}.
set -u
cd "$(dirname "$0")/../.."
o=build/gpu; out=${OUT:-$o}; mkdir -p $o $out
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $out/gpu.txt
# build_lib SRCDIR TARGET LIB: every .cu of SRCDIR compiled for TARGET
# (sm80 as sm_90 machine code), in parallel, and linked into LIB.
build_lib() {
  local arch=$([ $2 = sm80 ] && echo "-gencode=arch=compute_90,code=sm_90" || echo "-gencode=arch=compute_90a,code=sm_90a")
  local objs=$o/obj_$(basename $3 .so)
  rm -rf $objs; mkdir -p $objs
  ls $1/*.cu | xargs -P 16 -I{} sh -c "nvcc -O3 $arch -Xcompiler -fPIC -c {} -o $objs/\$(basename {} .cu).o" || return 1
  nvcc -shared $objs/*.o -o $3
}
for t in sm80 sm90a; do build_lib out/$t $t $o/lt_$t.so || exit 1; done
for t in sm80 sm90a; do python3 tests/gpu/check.py $o/lt_$t.so $t | tee $out/check_$t.txt | grep -v ^PASS; done
bash tests/gpu/fp8.sh | tee $out/fp8.txt | grep -v ^PASS   # every f32 through CUDA's fp8 conversions
[ "${1:-}" = --bench ] || exit 0
# out/sm90a's row ops carry one kernel per tuned shape bucket; each shape
# of the bench runs the nearest bucket's (gen/emit/dispatch.c, ltE_dispatch)
python3 bench/rowops.py $o/lt_sm90a.so | tee $out/bench.txt
exit 0
