#!/usr/bin/env bash
# tests/gpu/matmul.sh: on the device machine (never CI).  Builds the matmul
# variants of out/sm80 (as sm_90 code) and out/sm90a, checks every variant
# (check_matmul.py), checks the SASS for the tensor-core instructions
# (HMMA, LDSM, LDGSTS), then with --bench builds the configs generated
# beforehand by `matmul.sh --configs` (CONFIGS="label:K=V ...;label2:...",
# into build/mmcfg, carried to the device) and runs bench/matmul.py.
set -u
cd "$(dirname "$0")/../.."
if [ "${1:-}" = --configs ]; then   # here, not on the device: CONFIGS="label:K=V K=V;label2:..."
  rm -rf build/mmcfg
  IFS=';' read -ra cfgs <<< "${CONFIGS:-default:}"
  for c in "${cfgs[@]}"; do
    label=${c%%:*}; args=(); for kv in ${c#*:}; do args+=(-D "$kv"); done
    for dt in bf16 f16; do
      build/gen dsl/kernels/matmul.lua --target sm80 -D dtype=$dt -D layout=nn -D epilogue=none "${args[@]}" \
        -o build/mmcfg/$label || exit 1
    done
  done
  exit 0
fi
o=build/gpu/mm; out=${OUT:-$o}; mkdir -p $o $out
for t in sm80 sm90a; do
  arch=$([ $t = sm80 ] && echo "-gencode=arch=compute_90,code=sm_90" || echo "-gencode=arch=compute_90a,code=sm_90a")
  ls out/$t/matmul_*.cu | xargs -P 16 -I{} sh -c "nvcc -O3 $arch -Xcompiler -fPIC -c {} -o $o/\$(basename {} .cu).$t.o" || exit 1
  nvcc -shared $o/matmul_*.$t.o -o $o/mm_$t.so || exit 1
  for v in matmul_bf16_none_nn matmul_f16_bias_gelu_tt matmul_tf32_bias_tn; do
    # tf32 operands are f32 words: read from shared memory without ldmatrix
    for i in HMMA $([ ${v#matmul_tf32} = $v ] && echo LDSM) LDGSTS; do
      n=$(cuobjdump -sass $o/$v.$t.o | grep -c "$i")
      [ "$n" -gt 0 ] && echo "PASS sass $t $v has $i ($n)" || echo "FAIL sass $t $v: no $i"
    done
  done | tee $out/sass_$t.txt
done
for t in sm80 sm90a; do python3 tests/gpu/check_matmul.py $o/mm_$t.so $t | tee $out/check_matmul_$t.txt | grep -v ^PASS; done
if [ "${1:-}" = --bench ]; then   # the configs made by `matmul.sh --configs` (gen runs where Lua is)
  libs=()
  for d in build/mmcfg/*/; do
    label=$(basename $d)
    for f in $d*.cu; do nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v -Xcompiler -fPIC -c $f -o $o/cfg_${label}_$(basename $f .cu).o 2>&1 | grep -E "spill|registers" | sed "s|^|$label: |" & done; wait
    nvcc -shared $o/cfg_${label}_*.o -o $o/cfg_$label.so && libs+=("$label=$o/cfg_$label.so")
  done
  python3 bench/matmul.py "${libs[@]}" | tee $out/bench_matmul.txt
fi
exit 0
