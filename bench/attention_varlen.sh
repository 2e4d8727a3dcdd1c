#!/usr/bin/env bash
# bench/attention_varlen.sh: builds the attention_varlen launchers of
# out/sm90a and out/sm80 (bf16 d128, f16 d64) and the dense forward
# attention_bf16_d128 of out/sm90a with nvcc, then runs
# bench/attention_varlen.py: every varlen library checked against torch's
# float64 reference, then sm90a's timed beside the dense kernel and torch.
# sm80's code is built for sm_90 (cp.async and mma.sync run there).
#   DIR=folder holding sm90a/ and sm80/ (default out), OUT=where results go,
#   LIB=where the objects and libraries go (default /tmp/attention_varlen_lib),
#   EXTRA="LABEL ..." more sm90a builds to check and time beside the first
#   (an A/B): $DIR/LABEL/attention_varlen_bf16_d128.cu each.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${DIR:-$here/../out}
out=${OUT:-$here/../build}
lib=${LIB:-/tmp/attention_varlen_lib}
mkdir -p "$out" "$lib"
build() {   # build TARGET NAME...: lib$TARGET.so from $DIR/TARGET/NAME.cu (TARGET sm80: for sm_90)
  local t=$1 arch="-gencode=arch=compute_90a,code=sm_90a" n
  shift
  [ $t = sm80 ] && arch="-arch=sm_90"
  for n in "$@"; do
    nvcc -O3 -std=c++17 $arch -Xcompiler -fPIC -Xptxas -v -c "$src/$t/$n.cu" -o "$lib/${t}_$n.o" \
      > "$lib/${t}_$n.log" 2>&1 || { echo "FAIL build $t/$n: $(grep -m1 error "$lib/${t}_$n.log")"; exit 1; } &
  done
  wait
  nvcc -shared -o "$lib/libvarlen_$t.so" "$lib/${t}"_*.o || exit 1
  grep -h -E "registers|spill" "$lib/${t}"_*.log | sort | uniq -c | head -20 > "$out/ptxas_$t.txt"
}
build sm90a attention_varlen_bf16_d128 attention_varlen_f16_d64 attention_bf16_d128
build sm80 attention_varlen_bf16_d128 attention_varlen_f16_d64
libs="sm90a=$lib/libvarlen_sm90a.so sm80=$lib/libvarlen_sm80.so"
for x in ${EXTRA:-}; do
  build $x attention_varlen_bf16_d128
  libs="$libs $x=$lib/libvarlen_$x.so"
done
cat "$out/ptxas_sm90a.txt"
python3 "$here/attention_varlen.py" $libs
