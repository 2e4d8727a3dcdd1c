#!/usr/bin/env bash
# bench/matmul_tf32_roll.sh: on the device machine, the sm90a tf32 GEMMs
# from libraries built beforehand (nvcc -O3 -gencode=arch=compute_90a,
# code=sm_90a -Xcompiler -fPIC -c, then nvcc -shared), in LIBS (default
# build/gpu/tf32):
#   mm_sm90a.so    every out/sm90a/matmul_tf32_*.cu (checked, then timed)
#   user_sm90a.so  tests/emu/kernels/gemm_tf32.lua's three layouts (checked)
#   mm_before.so   another build of matmul_tf32_none_*.cu (timed: "before")
#   EXTRA          optional, "LABEL=LIB.so ...": other builds of
#                  matmul_tf32_none_nn and _tt (checked by check_matmul.py
#                  on those two, then timed beside the others in nn and tt)
# 1. check_matmul.py on every tf32 variant and check_user_gemm.py on
# gemm_tf32 (float64 references, ragged shapes, poisoned outputs); 2.
# bench/matmul.py beside cuBLAS tf32 (torch.matmul, allow_tf32) in the
# same process, every layout, on SHAPES; ROUNDS rounds (default 2), the
# second with the libraries in the other order (none begun past LATEST
# seconds into the script).  Logs under $OUT.
set -u
cd "$(dirname "$0")/.."
L=${LIBS:-build/gpu/tf32}; out=${OUT:-build/gpu}; mkdir -p $out
SHAPES=${SHAPES:-2048x2048x2048,4096x4096x4096,8192x8192x8192,8192x6144x4096,4000x4000x4000}
export PYTHONPATH=tests/gpu
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader | tee $out/gpu.txt
python3 tests/gpu/check_matmul.py $L/mm_sm90a.so sm90a --dtypes tf32 > $out/check_matmul.txt; grep -v ^PASS $out/check_matmul.txt
python3 tests/gpu/check_user_gemm.py $L/user_sm90a.so sm90a tf32 > $out/check_user.txt; grep -v ^PASS $out/check_user.txt
for x in ${EXTRA:-}; do
  python3 tests/gpu/check_matmul.py ${x#*=} sm90a --dtypes tf32 --layouts nn,tt --epilogues none > $out/check_${x%%=*}.txt
  grep -v ^PASS $out/check_${x%%=*}.txt
done
for f in $out/check_*.txt; do
  grep -qE "^[0-9]+ passed, 0 failed" $f || { echo "checks failed ($f): no timing"; exit 1; }
done
for r in $(seq 1 ${ROUNDS:-2}); do
  [ $r -gt 1 ] && [ $SECONDS -gt ${LATEST:-100000} ] && { echo "## round $r skipped: past LATEST=$LATEST s"; break; }
  echo "## round $r"
  a=(before=$L/mm_before.so new=$L/mm_sm90a.so) w=(${EXTRA:-})
  [ $((r % 2)) = 0 ] && a=(new=$L/mm_sm90a.so before=$L/mm_before.so)
  python3 bench/matmul.py --dtypes tf32 --layouts nn,tt --shapes $SHAPES "${a[@]}" "${w[@]}" | tee -a $out/bench.txt
  python3 bench/matmul.py --dtypes tf32 --layouts nt,tn --shapes $SHAPES "${a[@]}" | tee -a $out/bench.txt
done
