#!/usr/bin/env bash
# tests/gpu/fnuz.sh GENDIR: the FNUZ fp8 dtypes on the GPU of this machine
# against torch (tests/gpu/fnuz_torch.py): the conversions of
# templates/fp8_fnuz_dtypes.h (tests/gpu/fnuz_convert.cu) and the sm90a
# build of tests/cpu/fnuz_gemm.lua, which GENDIR holds (made where gen is:
# build/gen tests/cpu/fnuz_gemm.lua --target sm90a -o GENDIR).  Prints
# PASS/FAIL lines.
cd "$(dirname "$0")/../.." || exit 0
g=${1:?usage: tests/gpu/fnuz.sh GENDIR}
b=${LT_BUILD:-build/tests/gpu}
mkdir -p $b
nv="nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a"
$nv -o $b/fnuz_convert.so tests/gpu/fnuz_convert.cu || { echo "FAIL gpu fnuz: fnuz_convert.cu does not build"; exit 0; }
$nv -o $b/fnuz_gemm.so $g/fnuz_gemm_fp8e4m3fnuz.cu $g/fnuz_gemm_fp8e5m2fnuz.cu ||
  { echo "FAIL gpu fnuz: $g/fnuz_gemm_*.cu do not build"; exit 0; }
python3 tests/gpu/fnuz_torch.py $b/fnuz_convert.so $b/fnuz_gemm.so
