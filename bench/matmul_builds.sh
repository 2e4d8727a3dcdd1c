#!/usr/bin/env bash
# bench/matmul_builds.sh: on the device machine, builds of generated matmul
# files side by side.  Each DIR holds sm90a files that gen wrote (say one
# config a build: gen dsl/kernels/matmul.lua --target sm90a --no-tuned
# -D BM=64 -D BN=64 ... -o DIR); each becomes DIR/lib.so (nvcc -Xptxas -v,
# all files at once; a spill or a stack frame fails the build), then
# bench/matmul_smallm.py checks every build against float64 and times it
# beside cuBLAS in the same process, with its OPTIONS.
#   bash bench/matmul_builds.sh DIR... -- [matmul_smallm.py options]
# Logs (ptxas lines, the bench's output) under ${OUT:-DIR}.
set -u
cd "$(dirname "$0")/.."
dirs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do dirs+=("$1"); shift; done
[ $# -gt 0 ] && shift
arch="-gencode=arch=compute_90a,code=sm_90a"
for d in "${dirs[@]}"; do ls "$d"/*.cu; done | xargs -P 16 -I{} sh -c \
  "nvcc -O3 $arch -Xptxas -v -Xcompiler -fPIC -c {} -o {}.o > {}.log 2>&1 || echo 'FAIL build {}'"
libs=()
for d in "${dirs[@]}"; do
  if grep -qE "[1-9][0-9]* bytes (spill (stores|loads)|stack frame)" "$d"/*.log; then
    echo "FAIL ptxas $d: $(grep -h -m1 -E '[1-9][0-9]* bytes (spill|stack)' "$d"/*.log | head -n 1 | sed 's/^ *//')"
    continue
  fi
  echo "PASS ptxas $d: no spills, registers $(grep -h 'Used' "$d"/*.log | sed 's/.*Used \([0-9]*\) registers.*/\1/' |
    sort -un | tr '\n' ' ')"
  nvcc $arch -shared "$d"/*.cu.o -o "$d/lib.so" && libs+=("$(basename "$d")=$d/lib.so")
done
python3 bench/matmul_smallm.py "$@" "${libs[@]}"
