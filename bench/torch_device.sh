#!/usr/bin/env bash
# bench/torch_device.sh: the luatile PyTorch package on the GPU machine (never CI).
#
#   bash bench/torch_device.sh                  TARGET=sm80 for another library
#   MODE=overhead bash bench/torch_device.sh    the per-call overhead table alone
#   MODE=quick bash bench/torch_device.sh       the fast calls on CUDA tensors, the block in a CUDA graph and
#                                               under torch.compile, the overhead tables, the CMake example
#   BEFORE=DIR bash bench/torch_device.sh       and the same table for the package in DIR/luatile
#                                               (another version of it), on the same machine
#
# Builds build/lib/libluatile_${TARGET:-sm90a}.so from out/<target> with nvcc
# (./build.sh lib, every variant, LT_JOBS parallel compiles; objects newer than
# their source are kept; with MODE=overhead only the five variants the table
# calls, with MODE=quick the 18 its checks call), and its call module; then runs
# bench/torch_device.py:
# tests/python/test_torch.py on CUDA tensors (custom ops, then --quick the
# autograd.Function path and the launchers through ctypes), a small block under
# torch.compile(fullgraph=True) and in a CUDA graph against eager, and the
# per-call overhead table; then the doc pages' test: blocks on torch 2.x (with
# build/lib/libluatile_c.so, built too); then (not with MODE=overhead)
# examples/cmake for the target, configured with build/gen (LUATILE_GEN), built
# with nvcc and run (its check against C on the GPU).  Everything goes to
# ${OUT:-build}: torch_build.txt, torch_device.log (all output), torch_device.txt
# (the device part), torch_overhead.txt (each overhead table, each run in a fresh
# process), cmake_example.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build}
mkdir -p "$out"
t=${TARGET:-sm90a}
mode=${MODE:-all}
start=$(date +%s)
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -n 1
  python3 -c 'import sys, torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "Python", sys.version.split()[0])'
} > "$out/torch_build.txt" 2>&1
kernels=""
[ "$mode" = overhead ] && kernels="rmsnorm_bf16 layernorm_bf16 softmax_bf16 matmul_bf16_bias_gelu_nn attention_bf16_d64"
[ "$mode" = quick ] && kernels="rmsnorm_bf16 layernorm_bf16 softmax_bf16 bias_gelu_bf16 add_bf16
  matmul_bf16_bias_gelu_nn matmul_bf16_none_tt matmul_bf16_bias_silu_nt matmul_bf16_none_nt matmul_bf16_none_tn
  matmul_bf16_bias_relu_nn matmul_bf16_none_nn matmul_bf16_bias_nn attention_bf16_d64 attention_bf16_d64_softcap
  attention_bwd_pre_bf16_d64 attention_bwd_dkdv_bf16_d64 attention_bwd_dq_bf16_d64"
if ! LT_LIB_KERNELS=$kernels LT_JOBS=${LT_JOBS:-$(nproc)} ./build.sh lib "$t" >> "$out/torch_build.txt" 2>&1; then
  tail -n 5 "$out/torch_build.txt"
  echo "FAIL device/build: ./build.sh lib $t (see $out/torch_build.txt)"
  exit 1
fi
echo "# build: $(tail -n 1 "$out/torch_build.txt") in $(( $(date +%s) - start )) s" | tee -a "$out/torch_build.txt"
[ "$mode" = all ] &&
  { ./build.sh lib c >> "$out/torch_build.txt" 2>&1 || echo "FAIL device/build: ./build.sh lib c (the doc blocks use CPU tensors)"; }
{
  if [ "$mode" = overhead ]; then
    PYTHONUNBUFFERED=1 python3 bench/torch_device.py --overhead 2>&1
  elif [ "$mode" = quick ]; then
    PYTHONUNBUFFERED=1 python3 bench/torch_device.py --quick 2>&1
    echo "## per-call overhead (python3 bench/torch_device.py --overhead, a fresh process)"
    PYTHONUNBUFFERED=1 python3 bench/torch_device.py --overhead 2>&1
  else
    PYTHONUNBUFFERED=1 python3 bench/torch_device.py 2>&1
    echo "## the test: blocks of docs/python.md and README.md (CPU tensors, torch $(python3 -c 'import torch; print(torch.__version__)'))"
    python3 tests/python/doc_blocks.py run docs/python.md README.md 2>&1
  fi
  if [ -n "${BEFORE:-}" ]; then
    echo "## the per-call overhead of the package in $BEFORE (the same library, through its LUATILE_LIB_CUDA)"
    LUATILE_LIB_CUDA=$PWD/build/lib/libluatile_$t.so PYTHONUNBUFFERED=1 \
      python3 bench/torch_device.py --overhead --pkg "$BEFORE" --label " (before: $BEFORE)" 2>&1
  fi
  if [ "$mode" != overhead ]; then
    echo "## examples/cmake for $t: configured, built with nvcc and run on the GPU"
    c0=$(date +%s)
    if cmake -S examples/cmake -B build/cmake-$t -DLUATILE_TARGET=$t -DLUATILE_GEN="$PWD/build/gen" \
         -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" > "$out/cmake_example.txt" 2>&1 &&
       cmake --build build/cmake-$t -j "$(nproc)" >> "$out/cmake_example.txt" 2>&1 &&
       build/cmake-$t/example >> "$out/cmake_example.txt" 2>&1; then
      echo "PASS device/cmake-example/$t: $(tail -n 1 "$out/cmake_example.txt") ($(( $(date +%s) - c0 )) s)"
    else
      echo "FAIL device/cmake-example/$t: $(grep -m1 -iE 'error|wrong' "$out/cmake_example.txt" | cut -c1-200)"
    fi
  fi
} | tee "$out/torch_device.log" | grep -v '^PASS'
echo "torch_device.sh: $(grep -c '^PASS' "$out/torch_device.log") passed, $(grep -c '^FAIL' "$out/torch_device.log") failed," \
     "$(grep -c '^SKIP' "$out/torch_device.log") skipped, $(( $(date +%s) - start )) s in all"
