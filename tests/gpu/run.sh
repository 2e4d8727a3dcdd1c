#!/usr/bin/env bash
# tests/gpu/run.sh: on a machine with an NVIDIA GPU (the device tool; never
# CI): builds out/sm80 (as sm_90 machine code) and out/sm90a into shared
# libraries, checks every kernel and variant (check.py), then runs the
# benchmark if asked (--bench), with the row ops of its other shapes
# generated for their shape bucket (built and checked the same way).  Logs go to ${OUT:-build/gpu}.
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
[ "${1:-}" = --bench ] || exit 0
# The bench's other shapes use the row ops generated for their shape bucket
# (gen --shape: the tuned-config file's entry for it), built and checked
# like out/.  Needs a gen here: LT_GEN (the runtime bundle's) or build/gen.
gen=${LT_GEN:-build/gen}
libs=""
for s in C=8192,R=8192 C=1024,R=65536; do
  [ -x "$gen" ] || { echo "SKIP bench bucket $s: no gen (LT_GEN) on this machine; those shapes use out/sm90a"; continue; }
  n=$(echo $s | tr -d = | tr , _)   # C1024_R65536: nvcc takes no "=" or "," in a path
  d=$o/rows_$n; rm -rf $d; mkdir -p $d
  for k in add bias_gelu softmax rmsnorm layernorm; do "$gen" dsl/kernels/$k.lua --target sm90a --shape $s -o $d || exit 1; done
  build_lib $d sm90a $o/lt_sm90a_$n.so || exit 1
  python3 tests/gpu/check.py $o/lt_sm90a_$n.so "sm90a $s" | tee $out/check_sm90a_$n.txt | grep -v ^PASS
  grep -h "Config:" $d/*_bf16.cu | sed "s/^ \*/  $s:/"
  libs="$libs --lib $s=$o/lt_sm90a_$n.so"
done
python3 bench/rowops.py $o/lt_sm90a.so $libs | tee $out/bench.txt
exit 0
