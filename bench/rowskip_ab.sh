#!/usr/bin/env bash
# bench/rowskip_ab.sh: on the device machine, grouped_matmul bf16 and
# matmul_bf16_none_{nn,nt} built from out/sm90a and from OLD (a folder of
# another build's files of the same names), checked and timed against each
# other and torch (bench/rowskip_ab.py); then tests/gpu/check_matmul.py on
# the matmul variants built here and EXTRA (more out/sm90a/matmul_*.cu
# names, dtype_epilogue_layout, e.g. "f16_bias_gelu_tt"); USER_GEMMS=1:
# then check_user_gemm.py on build/gpu/user (tests/gpu/matmul_sm90a.sh
# --gen).  ptxas: each object's registers, spills and wgmma serialization.
#   OUT=where results go (default $LIB), LIB=objects (default /tmp/rowskip)
set -uo pipefail
cd "$(dirname "$0")/.."
old=${OLD:?OLD=folder of the old build}
lib=${LIB:-/tmp/rowskip}
out=${OUT:-$lib}
mkdir -p "$lib" "$out"
obj() {   # obj SRC OBJ: one object, its ptxas report beside it
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -Xptxas -v -c "$1" -o "$2" > "$2.log" 2>&1 ||
    echo "FAIL build $1: $(grep -m1 error "$2.log")"
}
export -f obj
{
  for v in grouped_matmul_bf16_kn grouped_matmul_bf16_nk matmul_bf16_none_nn matmul_bf16_none_nt; do
    echo "out/sm90a/$v.cu $lib/new_$v.o"
    echo "$old/$v.cu $lib/old_$v.o"
  done
  for v in ${EXTRA:-}; do echo "out/sm90a/matmul_$v.cu $lib/extra_$v.o"; done
} | xargs -P 16 -L 1 bash -c 'obj "$0" "$1"'
for f in "$lib"/*.o.log; do
  echo "ptxas $(basename "$f" .o.log): $(grep -h 'Used' "$f" | sed 's/.*Used \([0-9]*\) registers.*/\1/' | tr '\n' ' ')registers;" \
    "$(grep -cE '[1-9][0-9]* bytes (spill|stack)' "$f") spilling; $(grep -c C7520 "$f") wgmma serialized (C7520)"
done | tee "$out/ptxas.txt"
nvcc -shared -o "$lib/new_gm.so" "$lib"/new_grouped_*.o && nvcc -shared -o "$lib/old_gm.so" "$lib"/old_grouped_*.o &&
  nvcc -shared -o "$lib/new_mm.so" "$lib"/new_matmul_*.o && nvcc -shared -o "$lib/old_mm.so" "$lib"/old_matmul_*.o || exit 1
OUT=$out python3 bench/rowskip_ab.py NEW_GM="$lib/new_gm.so" OLD_GM="$lib/old_gm.so" NEW_MM="$lib/new_mm.so" \
  OLD_MM="$lib/old_mm.so" 2>&1 | tee "$out/rowskip_ab.log"
export PYTHONPATH=tests/gpu
python3 tests/gpu/check_matmul.py "$lib/new_mm.so" sm90a --dtypes bf16 --layouts nn,nt --epilogues none \
  > "$out/check_matmul.txt" 2>&1
for v in ${EXTRA:-}; do   # dtype_epilogue_layout
  d=${v%%_*} l=${v##*_} e=${v#*_}
  e=${e%_*}
  nvcc -shared -o "$lib/extra_$v.so" "$lib/extra_$v.o" &&
    python3 tests/gpu/check_matmul.py "$lib/extra_$v.so" sm90a --dtypes "$d" --layouts "$l" --epilogues "$e" \
      >> "$out/check_matmul.txt" 2>&1
done
echo "check_matmul: $(grep -c ^PASS "$out/check_matmul.txt") PASS, $(grep -c ^FAIL "$out/check_matmul.txt") FAIL"
grep -v ^PASS "$out/check_matmul.txt" | head -5
if [ "${USER_GEMMS:-0}" = 1 ]; then
  for f in build/gpu/user/*.cu; do echo "$f $lib/user_$(basename "$f" .cu).o"; done | xargs -P 16 -L 1 bash -c 'obj "$0" "$1"'
  nvcc -shared -o "$lib/user.so" "$lib"/user_*.o &&
    python3 tests/gpu/check_user_gemm.py "$lib/user.so" sm90a > "$out/check_user.txt" 2>&1
  echo "check_user_gemm: $(grep -c ^PASS "$out/check_user.txt") PASS, $(grep -c ^FAIL "$out/check_user.txt") FAIL"
  grep -v ^PASS "$out/check_user.txt" | head -5
fi
