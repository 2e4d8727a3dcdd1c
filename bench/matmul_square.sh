#!/usr/bin/env bash
# bench/matmul_square.sh: on the device machine, where the square sm90a
# GEMMs (2048^3, 4096^3) lose their last percents to cuBLAS (issue 29).
# Builds the f16 and bf16 none nn / nt files of each DIR given (LABEL=DIR;
# default main=out/sm90a) into a library, then runs bench/matmul_square.py
# on them beside cuBLAS (cuBLAS's kernels and grids, the times at the square
# shapes and at shapes of whole waves, K scaling), and Nsight Compute's
# launch, throughput and pipe sections on one launch each of cuBLAS and the
# first library at 2048^3 and 4096^3 (bf16 nn; skipped where ncu cannot read
# the counters).  Logs under $OUT (default build/matmul_square).
#   bash bench/matmul_square.sh [LABEL=DIR ...]
# Environment: SHAPES, KSCALE, KS, ROUNDS, DTYPES, LAYOUTS (matmul_square.py's options).
set -u
cd "$(dirname "$0")/.."
out=${OUT:-build/matmul_square}; o=build/matmul_square; mkdir -p "$out" $o
arch="-gencode=arch=compute_90a,code=sm_90a"
[ $# -gt 0 ] || set -- main=out/sm90a
libs=()
for a in "$@"; do   # every library's files compile at once
  label=${a%%=*} dir=${a#*=}
  mkdir -p $o/$label
  for f in $dir/matmul_{bf16,f16}_none_n{n,t}.cu; do
    nvcc -O3 $arch -Xptxas -v -Xcompiler -fPIC -c $f -o $o/$label/$(basename $f .cu).o > $o/$label/$(basename $f .cu).log 2>&1 &
  done
  libs+=("$label=$o/$label.so")
done
wait
for a in "$@"; do
  label=${a%%=*}
  grep -hE "[1-9][0-9]* bytes (spill|stack)" $o/$label/*.log | sed "s/^/$label: /"
  nvcc -shared $o/$label/*.o -o $o/$label.so || exit 1
done
export PYTHONPATH=tests/gpu PYTHONUNBUFFERED=1
python3 bench/matmul_square.py --dtypes ${DTYPES:-bf16,f16} --layouts ${LAYOUTS:-nn,nt} --rounds ${ROUNDS:-3} \
  --shapes ${SHAPES:-2048x2048x2048,4096x4096x4096,8192x8192x8192,2816x1536x2048,4224x4096x4096} \
  --kscale ${KSCALE:-2048x2048,4096x4096} --ks ${KS:-512,1024,2048,4096,8192} "${libs[@]}" 2>&1 | tee $out/square.txt
first=${libs[0]#*=}
for s in "2048 2048 2048" "4096 4096 4096"; do
  set -- $s
  ncu --clock-control none --section LaunchStats --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis -k regex:'nvjet|gemm|xmma|cutlass' --launch-skip 3 --launch-count 1 \
      python3 -c "import torch; a = torch.randn($1, $3, device='cuda', dtype=torch.bfloat16); b = torch.randn($3, $2, device='cuda', dtype=torch.bfloat16)
for _ in range(5): c = a @ b
torch.cuda.synchronize()" > $out/ncu_cublas_$1x$2x$3.txt 2>&1 || echo "ncu cuBLAS $s: failed (rc $?)"
  ncu --clock-control none --section LaunchStats --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis -k regex:'matmul_' --launch-skip 2 --launch-count 1 \
      python3 bench/ncu_matmul.py $first matmul_bf16_none_nn $1 $2 $3 > $out/ncu_ours_$1x$2x$3.txt 2>&1 || echo "ncu ours $s: failed (rc $?)"
done
for f in $out/ncu_*.txt; do
  echo "== $(basename $f)"
  grep -E "^  [a-z_0-9]+.*\(|Duration|Cluster Size|Grid Size|Block Size|Registers Per|Dynamic Shared|SM Busy|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Executed Ipc Active|Waves Per SM|Issue Slots Busy" $f | head -24
done
