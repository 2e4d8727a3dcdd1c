#!/usr/bin/env bash
# bench/attention_decode.sh: builds the attention_decode launchers of
# out/sm90a and out/sm80 (bf16 d128 and f16 d64: contig, paged, paged64,
# combine)
# with nvcc into two libraries, then runs bench/attention_decode.py:
# both checked against torch's float64 reference, the sm90a one timed.
# sm80's code is built for sm_90 (cp.async and mma.sync run there).
#   DIR=folder holding sm90a/ and sm80/ (default out), OUT=where results go,
#   LIB=where the objects and libraries go (default /tmp/attention_decode_lib).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${DIR:-$here/../out}
out=${OUT:-$here/../build}
lib=${LIB:-/tmp/attention_decode_lib}   # objects and libraries (not results)
mkdir -p "$out" "$lib"
for t in sm90a sm80; do
  arch="-gencode=arch=compute_90a,code=sm_90a"
  [ $t = sm80 ] && arch="-arch=sm_90"
  for v in bf16_d128 f16_d64; do
    for p in contig paged paged64 combine; do
      f=$src/$t/attention_decode_${v}_$p.cu
      nvcc -O3 -std=c++17 $arch -Xcompiler -fPIC -Xptxas -v -c "$f" -o "$lib/${t}_${v}_$p.o" \
        > "$lib/${t}_${v}_$p.log" 2>&1 || { echo "FAIL build $f: $(grep -m1 error "$lib/${t}_${v}_$p.log")"; exit 1; } &
    done
  done
  wait
  nvcc -shared -o "$lib/libdecode_$t.so" "$lib/${t}"_*.o || exit 1
  grep -h -E "registers|spill" "$lib/${t}"_*.log | sort | uniq -c | head -20 > "$out/ptxas_$t.txt"
done
cat "$out/ptxas_sm90a.txt"
python3 "$here/attention_decode.py" sm90a="$lib/libdecode_sm90a.so" sm80="$lib/libdecode_sm80.so"
