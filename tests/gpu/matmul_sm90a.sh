#!/usr/bin/env bash
# tests/gpu/matmul_sm90a.sh: on the device machine (never CI), the sm90a
# GEMMs: each file holds a warp-specialized TMA kernel and the cp.async
# kernel its launcher falls back to (docs/dsl.md, k:pipelined).
#   --gen      here, where Lua is: the user-style GEMMs of tests/emu/kernels
#              (not matmul.lua) into build/gpu/user, for the device
#   (default)  1. every out/sm90a/matmul_*.cu and build/gpu/user/*.cu builds
#              with nvcc -Xptxas -v: no spills, no stack frame; the SASS of
#              a few shows HGMMA, UTMALDG, SYNCS, USETMAXREG, (the twin)
#              LDGSTS and (the epilogue's TMA stores) UTMASTG;  2. check_matmul.py on every matmul variant
#              and check_user_gemm.py on the user GEMMs
#   --bench    then bench/matmul.py, bf16 and f16, nn and nt, on the
#              Hopper shapes (SHAPES overrides), beside cuBLAS; BEFORE=DIR
#              times DIR's matmul_*_none_{nn,nt}.cu (another build of them)
#              in the same loop, labelled "before"
#   --bench-tf32 then bench/matmul.py on tf32, every layout, beside cuBLAS
#              with tf32 allowed, on 4096^3, 8192^3, 8192x6144x4096 and
#              4000^3 (SHAPES overrides); BEFORE=DIR as above, of
#              DIR's matmul_tf32_none_*.cu
# Prints PASS / FAIL lines and the bench table; logs under $OUT.
set -u
cd "$(dirname "$0")/../.."
if [ "${1:-}" = --gen ]; then
  rm -rf build/gpu/user
  for k in tests/emu/kernels/*.lua; do build/gen "$k" --target sm90a -o build/gpu/user || exit 1; done
  exit 0
fi
o=build/gpu/mm90; out=${OUT:-$o}; mkdir -p $o $out
arch="-gencode=arch=compute_90a,code=sm_90a"
ls out/sm90a/matmul_*.cu build/gpu/user/*.cu | xargs -P 16 -I{} sh -c \
  "nvcc -O3 $arch -Xptxas -v -Xcompiler -fPIC -c {} -o $o/\$(basename {} .cu).o > $o/\$(basename {} .cu).log 2>&1 ||
   echo 'FAIL build {}'"
for l in $o/*.log; do
  f=$(basename $l .log)
  if grep -qE "[1-9][0-9]* bytes (spill (stores|loads)|stack frame)" $l; then
    echo "FAIL ptxas $f: $(grep -m1 -E '[1-9][0-9]* bytes (spill|stack)' $l | sed 's/^ *//')"
  else
    echo "PASS ptxas $f: $(grep -h 'Used' $l | sed 's/.*Used \([0-9]*\) registers.*/\1/' | tr '\n' ' ')registers, no spills"
  fi
done | tee $out/ptxas.txt | grep -v ^PASS
echo "ptxas: $(grep -c ^PASS $out/ptxas.txt) files without spills, $(grep -c ^FAIL $out/ptxas.txt) with"
for v in matmul_bf16_none_nn matmul_f16_bias_gelu_tt swiglu_bf16 gemm_leaky_f16_tall; do
  for i in HGMMA UTMALDG SYNCS USETMAXREG LDGSTS; do
    n=$(cuobjdump -sass $o/$v.o | grep -c "$i")
    [ "$n" -gt 0 ] && echo "PASS sass $v has $i ($n)" || echo "FAIL sass $v: no $i"
  done
done > $out/sass.txt
for v in matmul_bf16_none_nn matmul_f16_bias_gelu_tt swiglu_bf16 gemm_leaky_bf16_one; do   # the epilogue's TMA stores (one: of one consumer warpgroup)
  n=$(cuobjdump -sass $o/$v.o | grep -c UTMASTG)
  [ "$n" -gt 0 ] && echo "PASS sass $v has UTMASTG ($n)" || echo "FAIL sass $v: no UTMASTG"
done >> $out/sass.txt
grep -v ^PASS $out/sass.txt
nvcc -shared $o/matmul_*.o -o $o/mm_sm90a.so || exit 1
nvcc -shared $o/swiglu_*.o $o/gemm_leaky_*.o $o/gemm_colsum_*.o $o/gemm_odd_*.o $o/gemm_tf32_*.o $o/gemm_xt_*.o -o $o/user_sm90a.so || exit 1
export PYTHONPATH=tests/gpu
python3 tests/gpu/check_matmul.py $o/mm_sm90a.so sm90a > $out/check_matmul_sm90a.txt; grep -v ^PASS $out/check_matmul_sm90a.txt
python3 tests/gpu/check_user_gemm.py $o/user_sm90a.so sm90a > $out/check_user_sm90a.txt; grep -v ^PASS $out/check_user_sm90a.txt
if [ "${1:-}" = --bench ] || [ "${1:-}" = --bench-tf32 ]; then
  if [ "$1" = --bench ]; then
    SHAPES=${SHAPES:-2048x2048x2048,4096x4096x4096,8192x8192x8192,8192x6144x4096,8192x28672x4096,8192x4096x14336,4000x4000x4000,8192x8192x1024}
    opts=(--layouts nn,nt) before="matmul_*_none_n[nt].cu" name=bench_matmul_sm90a
  else
    SHAPES=${SHAPES:-4096x4096x4096,8192x8192x8192,8192x6144x4096,4000x4000x4000}
    opts=(--dtypes tf32 --layouts nn,nt,tn,tt) before="matmul_tf32_none_*.cu" name=bench_matmul_sm90a_tf32
  fi
  libs=(sm90a=$o/mm_sm90a.so)
  if [ -n "${BEFORE:-}" ]; then
    for f in $BEFORE/$before; do
      nvcc -O3 $arch -Xcompiler -fPIC -c $f -o $o/before_$(basename $f .cu).o & done; wait
    nvcc -shared $o/before_*.o -o $o/mm_before.so && libs=(before=$o/mm_before.so "${libs[@]}")
  fi
  python3 bench/matmul.py "${opts[@]}" --shapes $SHAPES "${libs[@]}" | tee $out/$name.txt
fi
exit 0
