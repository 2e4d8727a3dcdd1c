#!/usr/bin/env bash
# bench/torch_device.sh: the luatile PyTorch package on the GPU machine (never CI).
#
#   bash bench/torch_device.sh          TARGET=sm80 for another library
#
# Builds build/lib/libluatile_${TARGET:-sm90a}.so from out/<target> with nvcc
# (./build.sh lib, every variant, LT_JOBS parallel compiles; objects newer than
# their source are kept), then runs bench/torch_device.py: tests/python/test_torch.py
# on CUDA tensors (custom ops, then the autograd.Function path), a small block
# under torch.compile(fullgraph=True) and in a CUDA graph against eager, and the
# per-call overhead table; then the doc pages' test: blocks on torch 2.x (with
# build/lib/libluatile_c.so, built too).  Everything goes to ${OUT:-build}: torch_build.txt,
# torch_device.log (all output), torch_device.txt (the device part).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build}
mkdir -p "$out"
t=${TARGET:-sm90a}
start=$(date +%s)
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -n 1
  python3 -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)'
} > "$out/torch_build.txt" 2>&1
if ! LT_JOBS=${LT_JOBS:-$(nproc)} ./build.sh lib "$t" >> "$out/torch_build.txt" 2>&1; then
  tail -n 5 "$out/torch_build.txt"
  echo "FAIL device/build: ./build.sh lib $t (see $out/torch_build.txt)"
  exit 1
fi
echo "# build: $(tail -n 1 "$out/torch_build.txt") in $(( $(date +%s) - start )) s" | tee -a "$out/torch_build.txt"
./build.sh lib c >> "$out/torch_build.txt" 2>&1 || echo "FAIL device/build: ./build.sh lib c (the doc blocks use CPU tensors)"
{
  PYTHONUNBUFFERED=1 python3 bench/torch_device.py 2>&1
  echo "## the test: blocks of docs/python.md and README.md (CPU tensors, torch $(python3 -c 'import torch; print(torch.__version__)'))"
  python3 tests/python/doc_blocks.py run docs/python.md README.md 2>&1
} | tee "$out/torch_device.log" | grep -v '^PASS'
echo "torch_device.sh: $(grep -c '^PASS' "$out/torch_device.log") passed, $(grep -c '^FAIL' "$out/torch_device.log") failed," \
     "$(grep -c '^SKIP' "$out/torch_device.log") skipped, $(( $(date +%s) - start )) s in all"
