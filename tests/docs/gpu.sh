#!/usr/bin/env bash
# tests/docs/gpu.sh: the drivers of the doc examples against the sm80 output,
# on an NVIDIA GPU.  Not part of CI (no GPU there).
#
#   bash tests/docs/gpu.sh build   needs nvcc: builds into build/docs-gpu/
#   bash tests/docs/gpu.sh run     needs a GPU: runs what build made
#   bash tests/docs/gpu.sh         both
#
# Each tests/docs/drivers/NAME.c is built with -DLT_CUDA (managed memory, a
# sync after each launch: see common.h) and linked with the sm80 .cu files of
# docs/examples/NAME.lua, compiled for sm_80 and sm_90.  The docs' CUDA host
# programs (docs/examples/NAME_*.cu) are built and run too.  Prints PASS /
# FAIL / SKIP lines (gpu/docs/NAME) and exits 0.  LT_GEN, NVCC as usual.
set -u
cd "$(dirname "$0")/../.." || exit 0
GEN=${LT_GEN:-build/gen}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_INC=$(dirname "$(dirname "$NVCC")")/include
O=build/docs-gpu
ARCH="-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90"
mode=${1:-all}

build_one() {
  local n=$1 d=$O/$1
  rm -rf "$d"
  mkdir -p "$d/obj"
  if ! "$GEN" "docs/examples/$n.lua" --target sm80 -o "$d/sm80" 2>"$d/gen.err"; then
    echo "FAIL gpu/docs/$n: gen: $(head -n1 "$d/gen.err")" >"$d/build"; return
  fi
  for f in "$d"/sm80/*.cu; do
    if ! "$NVCC" -O3 $ARCH -c "$f" -o "$d/obj/$(basename "${f%.cu}").o" >"$d/nvcc.log" 2>&1; then
      echo "FAIL gpu/docs/$n: nvcc: $(grep -m1 error "$d/nvcc.log")" >"$d/build"; return
    fi
  done
  if ! cc -std=c11 -O2 -Wall -DLT_CUDA -I"$CUDA_INC" -I"$d/sm80" -Itests/docs/drivers \
      -c "tests/docs/drivers/$n.c" -o "$d/driver.o" 2>"$d/cc.log" ||
     ! "$NVCC" -o "$d/driver" "$d/driver.o" "$d"/obj/*.o -lm >"$d/link.log" 2>&1; then
    echo "FAIL gpu/docs/$n: driver does not build: $(cat "$d/cc.log" "$d/link.log" | grep -m1 -E 'error|undefined')" >"$d/build"; return
  fi
  : >"$d/build"
}

if [ "$mode" != run ]; then
  if [ ! -x "$NVCC" ] || [ ! -x "$GEN" ]; then
    echo "SKIP gpu/docs: needs nvcc ($NVCC) and gen ($GEN)"
    exit 0
  fi
  mkdir -p "$O"
  for drv in tests/docs/drivers/*.c; do
    n=$(basename "${drv%.c}")
    [ -f "docs/examples/$n.lua" ] && echo "$n"
  done | xargs -P "$(nproc)" -I{} bash -c "$(declare -f build_one); GEN='$GEN' NVCC='$NVCC' CUDA_INC='$CUDA_INC' O='$O' ARCH='$ARCH' build_one {}"
  for f in docs/examples/*.cu; do
    [ -e "$f" ] || continue
    n=$(basename "${f%.cu}")
    ex=${n%%_*}
    if "$NVCC" -O3 $ARCH -I"$O/$ex/sm80" -o "$O/$n" "$f" "$O/$ex"/sm80/*.cu >"$O/$n.log" 2>&1; then :
    else echo "FAIL gpu/docs/$n: $(grep -m1 error "$O/$n.log")" >"$O/$n.build"; fi
  done
fi

if [ "$mode" != build ]; then
  if ! nvidia-smi >/dev/null 2>&1; then
    echo "SKIP gpu/docs: no GPU (nvidia-smi fails)"
    exit 0
  fi
  for d in "$O"/*/; do
    n=$(basename "$d")
    [ -f "$d/build" ] || continue
    if [ -s "$d/build" ]; then cat "$d/build"; continue; fi
    rc=0
    timeout 300 "$d/driver" >"$d/run.out" 2>&1 || rc=$?
    if [ $rc = 0 ]; then echo "PASS gpu/docs/$n"
    else echo "FAIL gpu/docs/$n: exit $rc: $(head -n1 "$d/run.out")"; fi
  done
  for f in docs/examples/*.cu; do
    [ -e "$f" ] || continue
    n=$(basename "${f%.cu}")
    if [ -s "$O/$n.build" ]; then cat "$O/$n.build"; continue; fi
    if out=$(timeout 60 "$O/$n" 2>&1); then echo "PASS gpu/docs/$n: $out"
    else echo "FAIL gpu/docs/$n: $out"; fi
  done
fi
exit 0
