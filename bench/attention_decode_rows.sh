#!/usr/bin/env bash
# bench/attention_decode_rows.sh: the paged decode launcher's two builds
# (rows16: 16-row tiles where Sq x Hq / Hkv <= 16, else rows64) on the
# device, in one call:
#   1. builds four libraries of attention_decode (bf16 d128 and f16 d64:
#      contig, paged, paged64, combine) with nvcc:
#        disp  out/sm90a as generated (the paged launcher picks the build)
#        r64   the same, its paged launchers always running rows64 (the
#              64-row tiles shipped before the builds)
#        r16   the same, always running rows16 (several 16-row tiles a KV
#              head past 16 rows)
#        sm80  out/sm80 as generated, built for sm_90
#      (r64 and r16: the dispatch's test in the generated paged .cu
#      replaced by 0 or 1 with sed; nothing else differs);
#   2. bench/attention_decode.py checks all four against torch's float64
#      reference (every build on both sides of 16 rows), then times disp
#      beside a device-to-device copy and SDPA's fastest backend;
#   3. times r64 on the caches of 16-key pages (the only launcher whose
#      code differs), no SDPA, in the same process kind.
# Results: $OUT/attention_decode.txt (disp) and $OUT/attention_decode_r64.txt.
#   DIR=folder holding sm90a/ and sm80/ (default out), OUT=where results go,
#   LIB=where the objects and libraries go (default /tmp/attention_decode_rows).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${DIR:-$here/../out}
out=${OUT:-$here/../build}
lib=${LIB:-/tmp/attention_decode_rows}
test_line='if ((int64_t)Sq \* (int64_t)Hq <= 16 \* (int64_t)Hkv)'
mkdir -p "$out" "$lib/src"
for v in bf16_d128 f16_d64; do
  f=$src/sm90a/attention_decode_${v}_paged.cu
  grep -q "$test_line" "$f" || { echo "FAIL $f has no dispatch test '$test_line'"; exit 1; }
  sed "s/$test_line/if (0)/" "$f" > "$lib/src/r64_${v}_paged.cu"
  sed "s/$test_line/if (1)/" "$f" > "$lib/src/r16_${v}_paged.cu"
  cp "$src/sm90a/attention_decode_${v}_paged.h" "$lib/src/"
done
for l in disp r64 r16 sm80; do
  t=sm90a arch="-gencode=arch=compute_90a,code=sm_90a"
  [ $l = sm80 ] && t=sm80 arch="-arch=sm_90"
  for v in bf16_d128 f16_d64; do
    for p in contig paged paged64 combine; do
      f=$src/$t/attention_decode_${v}_$p.cu
      [ $p = paged ] && [ $l = r64 -o $l = r16 ] && f=$lib/src/${l}_${v}_paged.cu
      nvcc -O3 -std=c++17 $arch -I"$src/$t" -Xcompiler -fPIC -Xptxas -v -c "$f" -o "$lib/${l}_${v}_$p.o" \
        > "$lib/${l}_${v}_$p.log" 2>&1 || { echo "FAIL build $f: $(grep -m1 error "$lib/${l}_${v}_$p.log")"; exit 1; } &
    done
  done
  wait
  nvcc -shared -o "$lib/libdecode_$l.so" "$lib/${l}"_*.o || exit 1
done
grep -h -E "registers|spill" "$lib"/disp_*paged.log | sort | uniq -c > "$out/ptxas_paged.txt"
cat "$out/ptxas_paged.txt"
python3 "$here/attention_decode.py" disp="$lib/libdecode_disp.so" r64="$lib/libdecode_r64.so" \
  r16="$lib/libdecode_r16.so" sm80="$lib/libdecode_sm80.so" || exit 1
mkdir -p "$out/r64"
OUT="$out/r64" CACHES=page16 SDPA=0 python3 "$here/attention_decode.py" r64="$lib/libdecode_r64.so" || exit 1
mv "$out/r64/attention_decode.txt" "$out/attention_decode_r64.txt"
