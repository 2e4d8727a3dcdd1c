#!/usr/bin/env bash
# bench/attention_varlen_bwd.sh: builds the variable-length backward of
# out/sm90a (every dtype and head dim) and out/sm80 (bf16 d128, f16 d64)
# with what a training step calls beside it (attention_varlen for O and LSE,
# attention_bwd_pre for Delta), and sm90a's dense forward and backward
# (attention_bf16_d128, attention_bwd_{pre,dq,dkdv}_bf16_d128), with nvcc;
# then runs bench/attention_varlen_bwd.py: every library checked against
# torch's float64 reference, then sm90a's bf16 d128 timed beside the dense
# backward and SDPA.  sm80's code is built for sm_90 (cp.async and mma.sync
# run there).
#   DIR=folder holding sm90a/ and sm80/ (default out), OUT=where results go,
#   LIB=where the objects and libraries go (default /tmp/attention_varlen_bwd_lib),
#   EXTRA="LABEL=FOLDER ..." more sm90a builds of the bf16 d128 dq and dkdv
#   (FOLDER/attention_varlen_bwd_bf16_d128_{dq,dkdv}.cu each, linked with
#   sm90a's forward and pre) to check and time beside the first (an A/B).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${DIR:-$here/../out}
out=${OUT:-$here/../build}
lib=${LIB:-/tmp/attention_varlen_bwd_lib}
mkdir -p "$out" "$lib"
# compile TARGET NAME: $lib/TARGET_NAME.o from $DIR/TARGET/NAME.cu in the background (TARGET sm80: for
# sm_90; sm90a: for sm_90a)
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
  nvcc -shared -o "$lib/libvarlen_bwd_$t.so" "$lib/${t}"_*.o || exit 1
  grep -h -E "registers|spill" "$lib/${t}"_*.log | sort | uniq -c | head -30 > "$out/ptxas_bwd_$t.txt"
}
# kernels TARGET TYPE_DIM...: the varlen forward, pre, dq and dkdv of each
kernels() {
  local t=$1 x
  shift
  for x in "$@"; do
    for n in attention_varlen_$x attention_bwd_pre_$x attention_varlen_bwd_${x}_dq attention_varlen_bwd_${x}_dkdv; do
      compile $t $n
    done
  done
}
rm -f "$lib"/*.o "$lib"/*.log
kernels sm90a bf16_d128 f16_d64 bf16_d64 f16_d128
for n in attention_bf16_d128 attention_bwd_dq_bf16_d128 attention_bwd_dkdv_bf16_d128; do compile sm90a $n; done
kernels sm80 bf16_d128 f16_d64
for x in ${EXTRA:-}; do
  for p in dq dkdv; do
    nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -Xptxas -v -c \
      "${x#*=}/attention_varlen_bwd_bf16_d128_$p.cu" -o "$lib/x_${x%%=*}_$p.o" > "$lib/x_${x%%=*}_$p.log" 2>&1 &
  done
done
wait   # every compile, in one parallel pool
link sm90a
link sm80
libs="sm90a=$lib/libvarlen_bwd_sm90a.so sm80=$lib/libvarlen_bwd_sm80.so"
for x in ${EXTRA:-}; do
  l=${x%%=*}
  grep -q error "$lib/x_${l}_dq.log" "$lib/x_${l}_dkdv.log" && { echo "FAIL build $l"; exit 1; }
  nvcc -shared -o "$lib/libvarlen_bwd_x_$l.so" "$lib/x_${l}"_*.o "$lib/sm90a_attention_varlen_bf16_d128.o" \
    "$lib/sm90a_attention_bwd_pre_bf16_d128.o" || exit 1
  grep -h -E "registers|spill" "$lib/x_${l}"_*.log >> "$out/ptxas_bwd_sm90a.txt"
  libs="$libs $l=$lib/libvarlen_bwd_x_$l.so"
done
cat "$out/ptxas_bwd_sm90a.txt"
python3 "$here/attention_varlen_bwd.py" $libs
