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
#   (an A/B): $DIR/LABEL/attention_varlen_$VARIANT.cu each; VARIANT=f16_d64 times the f16 d64
#   launchers instead of bf16 d128 (attention_varlen.py).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${DIR:-$here/../out}
out=${OUT:-$here/../build}
lib=${LIB:-/tmp/attention_varlen_lib}
mkdir -p "$out" "$lib"
# compile TARGET NAME: $lib/TARGET_NAME.o from $DIR/TARGET/NAME.cu in the background (TARGET sm80: for
# sm_90; any other: for sm_90a)
compile() {
  local arch="-gencode=arch=compute_90a,code=sm_90a"
  [ $1 = sm80 ] && arch="-arch=sm_90"
  nvcc -O3 -std=c++17 $arch -Xcompiler -fPIC -Xptxas -v -c "$src/$1/$2.cu" -o "$lib/$1_$2.o" > "$lib/$1_$2.log" 2>&1 &
}
# link TARGET: lib$TARGET.so from its objects, once every compile is done
link() {
  local t=$1 f
  for f in "$lib/${t}"_*.log; do
    grep -q error "$f" && { echo "FAIL build $t: $(grep -m1 error "$f")"; exit 1; }
  done
  nvcc -shared -o "$lib/libvarlen_$t.so" "$lib/${t}"_*.o || exit 1
  grep -h -E "registers|spill" "$lib/${t}"_*.log | sort | uniq -c | head -20 > "$out/ptxas_$t.txt"
}
rm -f "$lib"/*.o "$lib"/*.log
for n in attention_varlen_bf16_d128 attention_varlen_f16_d64 attention_bf16_d128; do compile sm90a $n; done
for n in attention_varlen_bf16_d128 attention_varlen_f16_d64; do compile sm80 $n; done
for x in ${EXTRA:-}; do compile $x attention_varlen_${VARIANT:-bf16_d128}; done
wait   # every compile, in one parallel pool
link sm90a
link sm80
libs="sm90a=$lib/libvarlen_sm90a.so sm80=$lib/libvarlen_sm80.so"
for x in ${EXTRA:-}; do
  link $x
  libs="$libs $x=$lib/libvarlen_$x.so"
done
cat "$out/ptxas_sm90a.txt"
python3 "$here/attention_varlen.py" $libs
