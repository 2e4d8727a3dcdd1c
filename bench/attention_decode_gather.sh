#!/usr/bin/env bash
# bench/attention_decode_gather.sh: a build of the attention_decode
# launchers against another (the committed one), pages of 16 timed side by
# side, on the device in one call (first used for the gathered 32-key
# blocks of b46e551d: docs/performance.md, "Attention decode"):
#   1. builds the attention_decode libraries (bf16 d128 and f16 d64:
#      contig, paged, paged64, combine) with nvcc:
#        new   $DIR/sm90a (default out/)
#        sm80  $DIR/sm80, built for sm_90
#        old   $OLD/sm90a (the build compared against)
#        alt   new with the paged launchers of $ALT/sm90a, when ALT is set
#              (another config of the paged pass, e.g. gen -D BN=64)
#   2. bench/attention_decode.py checks them all against torch's float64
#      reference, then times new (CACHES, default contig,page16) beside a
#      device-to-device copy and, with SDPA=1, SDPA's fastest backend;
#   3. times old and alt on the caches of pages of 16 alone, no SDPA, in
#      the same kind of process.
# Results: $OUT/attention_decode.txt (new), attention_decode_old.txt,
# attention_decode_alt.txt.
#   OUT=where results go, LIB=where the objects and libraries go
#   (default /tmp/attention_decode_gather).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${DIR:-$here/../out}
old=${OLD:?OLD=folder holding the sm90a/ build compared against}
alt=${ALT:-}
out=${OUT:-$here/../build}
lib=${LIB:-/tmp/attention_decode_gather}
mkdir -p "$out" "$lib"
libs="new sm80 old"
[ -n "$alt" ] && libs="$libs alt"
for l in $libs; do
  arch="-gencode=arch=compute_90a,code=sm_90a" d=$src/sm90a
  [ $l = sm80 ] && arch="-arch=sm_90" d=$src/sm80
  [ $l = old ] && d=$old/sm90a
  for v in bf16_d128 f16_d64; do
    for p in contig paged paged64 combine; do
      f=$d/attention_decode_${v}_$p.cu
      [ $l = alt ] && [ $p = paged ] && f=$alt/sm90a/attention_decode_${v}_$p.cu
      nvcc -O3 -std=c++17 $arch -I"$(dirname "$f")" -Xcompiler -fPIC -Xptxas -v -c "$f" -o "$lib/${l}_${v}_$p.o" \
        > "$lib/${l}_${v}_$p.log" 2>&1 || { echo "FAIL build $f: $(grep -m1 error "$lib/${l}_${v}_$p.log")"; exit 1; } &
    done
  done
  wait
  nvcc -shared -o "$lib/libdecode_$l.so" "$lib/${l}"_*.o || exit 1
done
grep -H -E "registers|spill" "$lib"/*_paged.log | sed "s|$lib/||" | sort | uniq -c > "$out/ptxas_paged.txt"
cat "$out/ptxas_paged.txt"
set --
for l in $libs; do set -- "$@" "$l=$lib/libdecode_$l.so"; done
CACHES=${CACHES:-contig,page16} SDPA=${SDPA:-0} python3 "$here/attention_decode.py" "$@" || exit 1
for l in old ${alt:+alt}; do
  mkdir -p "$out/$l"
  OUT="$out/$l" CACHES=page16 SDPA=0 python3 "$here/attention_decode.py" "$l=$lib/libdecode_$l.so" || exit 1
  mv "$out/$l/attention_decode.txt" "$out/attention_decode_$l.txt"
done
