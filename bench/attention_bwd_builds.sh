#!/usr/bin/env bash
# bench/attention_bwd_builds.sh: the libraries that bench/attention_bwd_ab.py and
# bench/attention_bwd_split.py compare, on the device machine (never CI).
#
#   bash bench/attention_bwd_builds.sh [CAND]
#
# build/bwd/main.so: the sm90a bf16 forward, pre, dkdv and dq kernels at D = 64 and 128 of
# out/sm90a.  For each folder CAND/NAME (default CAND: build/cand) of generated .cu and .h
# (gen -D on one kernel file, or files of a tree's out/sm90a), build/bwd/NAME.so: the same
# kernels with that folder's files in place of out/sm90a's of the same name, and its other
# files beside them.  nvcc -O3 for sm_90a, all files in one parallel pool; ptxas's registers,
# spills and C751x warnings (wgmma serialized) of every object go to ${OUT:-build/bwd}/build.txt.
# Then tests/gpu/check_attention.py on each NAME.so over the backward (pre, dkdv, dq) of each
# dtype and head dim that the folder's headers name, theirs in place of out/sm90a's (its
# kernels against float64), into check_NAME.txt.  Prints FAIL lines and one summary line.
set -u
cd "$(dirname "$0")/.."
cand=${1:-build/cand}
o=build/bwd; out=${OUT:-$o}; mkdir -p $o/obj $out
files="attention_bf16_d64 attention_bf16_d128 attention_bwd_pre_bf16_d64 attention_bwd_pre_bf16_d128
attention_bwd_dkdv_bf16_d64 attention_bwd_dkdv_bf16_d128 attention_bwd_dq_bf16_d64 attention_bwd_dq_bf16_d128"
names=$(ls "$cand" 2>/dev/null)
{
  for f in $files; do echo "main out/sm90a/$f.cu"; done
  for n in $names; do for f in "$cand/$n"/*.cu; do echo "$n $f"; done; done
} | xargs -P 16 -L 1 sh -c '
  n=$0 f=$1 b=$(basename "$1" .cu) o='"$o"'/obj
  if nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -Xcompiler -fPIC -c "$f" -o "$o/$n.$b.o" 2>"$o/$n.$b.log"
  then :; else echo "FAIL build $n $b: $(grep -m1 error "$o/$n.$b.log" | cut -c1-200)"; rm -f "$o/$n.$b.o"; fi' |
  tee $out/build.txt
for l in $o/obj/*.log; do
  grep -hE "registers|spill|C751" "$l" | sed -e 's/for the function.*//' -e "s|^|$(basename "$l" .log): |"
done >> $out/build.txt
grep -E "spill" $out/build.txt | grep -v " 0 bytes spill stores" | sed 's/^/FAIL spill: /'
grep -E "C751" $out/build.txt | sed 's/^/FAIL serialized: /'
for n in main $names; do
  objs=""
  for f in $files; do
    [ "$n" != main ] && [ -f "$cand/$n/$f.cu" ] || objs="$objs $o/obj/main.$f.o"
  done
  [ "$n" != main ] && for f in "$cand/$n"/*.cu; do objs="$objs $o/obj/$n.$(basename "$f" .cu).o"; done
  nvcc -shared $objs -o $o/$n.so >> $out/build.txt 2>&1 || echo "FAIL link $n"
done
for n in $names; do
  h=$o/headers/$n; rm -rf $h; mkdir -p $h
  for d in $(ls "$cand/$n"/*.h | sed 's/.*_\([a-z0-9]*_d[0-9]*\)\.h$/\1/' | sort -u); do
    cp out/sm90a/attention_bwd_{pre,dkdv,dq}_$d.h $h/ 2>/dev/null
  done
  cp "$cand/$n"/*.h $h/
  python3 tests/gpu/check_attention.py $o/$n.so sm90a --headers $h > $out/check_$n.txt 2>&1 ||
    echo "FAIL check $n: exited $?" >> $out/check_$n.txt
  grep -E "^FAIL" $out/check_$n.txt
  echo "check $n: $(tail -n 1 $out/check_$n.txt)"
done
echo "attention_bwd_builds.sh: $(ls $o/*.so | wc -l) libraries in $o"
