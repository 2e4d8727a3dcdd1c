#!/usr/bin/env bash
# tests/gpu/attention.sh: the attention kernels on the device machine (never CI).
#
#   bash tests/gpu/attention.sh               build, SASS check, check_attention.py (sm80, sm90a)
#   bash tests/gpu/attention.sh --bench       the same, then bench/attention.py
#   bash tests/gpu/attention.sh --bench-only  bench/attention.py on the libraries built before
#
# Builds out/sm80/attention*.cu as sm_90 machine code and out/sm90a/attention*.cu
# for sm_90a with nvcc, all files of both targets in one parallel pool (an
# object newer than its source is kept: build/ survives between calls on a
# warm machine), links build/gpu/attn/attn_<target>.so, checks the SASS of a
# forward and two backward variants for the tensor-core instructions (HMMA,
# or HGMMA on sm90a, and LDSM), runs examples/attention on the GPU (make
# cuda-check, ctypes_example.py), then tests/gpu/check_attention.py for each
# target, and without ONLY tests/gpu/check_attention_programs.py (shapes of
# more programs than SMs).  TARGETS="sm90a" and ONLY=<regex on the variant name> narrow the
# run to fit a 10-minute call.  Prints the FAIL / SKIP lines and one summary
# line; everything goes to ${OUT:-build/gpu/attn}: build.txt (GPU, nvcc,
# ptxas registers and spills, SASS counts, the example), check_attention_<t>.txt,
# bench_attention.txt, attention.json, attention.png.
set -u
cd "$(dirname "$0")/../.."
o=build/gpu/attn; out=${OUT:-$o}; mkdir -p $o $out
targets=${TARGETS:-sm80 sm90a}
only=${ONLY:-.}
mode=${1:-}

# the nvcc line of target $1
arch() { [ "$1" = sm80 ] && echo "-gencode=arch=compute_90,code=sm_90" || echo "-gencode=arch=compute_90a,code=sm_90a"; }

if [ "$mode" != --bench-only ]; then
  {
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
    nvcc --version | tail -n 2
  } > $out/build.txt 2>&1
  for t in $targets; do
    ls out/$t/attention*.cu >/dev/null 2>&1 ||
      echo "FAIL build $t: no out/$t/attention*.cu (is dsl/kernels/attention.lua there, and out/ regenerated?)"
  done | tee -a $out/build.txt
  for t in $targets; do
    for f in out/$t/attention*.cu; do
      [ -e "$f" ] && basename "$f" .cu | grep -qE "$only" && echo "$t $f $(arch $t)"
    done
  done | xargs -P 16 -L 1 sh -c '
    t=$0 f=$1 a=$2 n=$(basename "$1" .cu) o='"$o"'
    [ "$o/$n.$t.o" -nt "$f" ] && exit 0
    if nvcc -O3 "$a" -Xptxas -v -Xcompiler -fPIC -c "$f" -o "$o/$n.$t.o" 2>"$o/$n.$t.log"; then :
    else echo "FAIL build $t $n: $(grep -m1 error "$o/$n.$t.log" | cut -c1-200)"; rm -f "$o/$n.$t.o"; fi' |
    tee -a $out/build.txt
  for t in $targets; do
    objs=$(ls $o/attention*.$t.o 2>/dev/null)
    [ -z "$objs" ] && continue
    for l in $o/attention*.$t.log; do
      grep -hE "registers|spill" "$l" | sed "s|^|$(basename "$l" .log): |"
    done >> $out/build.txt
    rm -f $o/attn_$t.so
    nvcc -shared $objs -o $o/attn_$t.so 2>&1 | tail -n 3 >> $out/build.txt
    [ -f $o/attn_$t.so ] || echo "FAIL build $t: the shared library does not link" | tee -a $out/build.txt
    for v in attention_bf16_d128 attention_bwd_dkdv_f16_d64 attention_bwd_dq_bf16_d128; do
      [ -f $o/$v.$t.o ] || { echo "SKIP sass $t $v: not built"; continue; }
      command -v cuobjdump >/dev/null || { echo "SKIP sass $t $v: no cuobjdump"; continue; }
      sass=$(cuobjdump -sass $o/$v.$t.o)
      hmma=$(grep -c HMMA <<< "$sass"); hgmma=$(grep -c HGMMA <<< "$sass"); ldsm=$(grep -c LDSM <<< "$sass")
      if [ "$hmma" -gt 0 ] || { [ $t = sm90a ] && [ "$hgmma" -gt 0 ]; }; then
        echo "PASS sass $t $v has tensor-core MMAs (HMMA $hmma, HGMMA $hgmma)"
      else echo "FAIL sass $t $v: no HMMA$([ $t = sm90a ] && echo " or HGMMA")"; fi
      if [ "$hgmma" -gt 0 ]; then echo "PASS sass $t $v: HGMMA reads its shared-memory operands itself (LDSM $ldsm)"
      elif [ "$ldsm" -gt 0 ]; then echo "PASS sass $t $v has LDSM ($ldsm)"
      else echo "FAIL sass $t $v: no LDSM (fragments not loaded with ldmatrix)"; fi
    done | tee -a $out/build.txt | grep -v ^PASS
  done
  if [ -f out/sm80/attention_bf16_d128.cu ] && grep -qE "$only" <<< attention_bf16_d128; then   # examples/attention
    {
      if make -s -C examples/attention cuda-check CUDA_ARCH=-arch=sm_90 BUILD="$PWD/$o/example" > $o/example.log 2>&1
      then echo "PASS example: examples/attention cuda-check: $(tail -n 1 $o/example.log)"
      else echo "FAIL example: examples/attention cuda-check: $(tail -n 1 $o/example.log)"; fi
      if [ -f $o/attn_sm80.so ] && [ -f $o/attention_bf16_d128.sm80.o ]; then
        if python3 examples/attention/ctypes_example.py $o/attn_sm80.so > $o/ctypes.log 2>&1
        then echo "PASS example: ctypes_example.py: $(tail -n 1 $o/ctypes.log)"
        else echo "FAIL example: ctypes_example.py: $(tail -n 1 $o/ctypes.log)"; fi
      fi
    } | tee -a $out/build.txt | grep -v ^PASS
  fi
  for t in $targets; do
    [ -f $o/attn_$t.so ] || continue
    python3 tests/gpu/check_attention.py $o/attn_$t.so $t --only "$only" > $out/check_attention_$t.txt 2>&1 ||
      echo "FAIL check $t: check_attention.py exited $?: $(tail -n 1 $out/check_attention_$t.txt)" >> $out/check_attention_$t.txt
    if [ "$only" = . ]; then   # more programs than SMs (sm90a: each block of the persistent grid runs several)
      python3 tests/gpu/check_attention_programs.py $t=$o/attn_$t.so >> $out/check_attention_$t.txt 2>&1 ||
        echo "FAIL check $t: check_attention_programs.py exited $?" >> $out/check_attention_$t.txt
    fi
    grep -v ^PASS $out/check_attention_$t.txt
  done
fi

if [ "$mode" = --bench ] || [ "$mode" = --bench-only ]; then
  libs=()
  for t in $targets; do [ -f $o/attn_$t.so ] && libs+=("$t=$o/attn_$t.so"); done
  if [ ${#libs[@]} -eq 0 ]; then echo "FAIL bench: no build/gpu/attn/attn_*.so (run without --bench-only first)"
  else PYTHONUNBUFFERED=1 python3 bench/attention.py "${libs[@]}" 2>&1 | tee $out/bench_attention.txt; fi
fi

if [ "$mode" != --bench-only ]; then
  cat $out/build.txt $out/check_attention_*.txt 2>/dev/null | grep -vE '^[0-9]+ passed' > $o/all.txt
  echo "attention.sh: $(grep -c '^PASS' $o/all.txt) passed, $(grep -c '^FAIL' $o/all.txt) failed," \
       "$(grep -c '^SKIP' $o/all.txt) skipped (details in $out)"
fi
exit 0
