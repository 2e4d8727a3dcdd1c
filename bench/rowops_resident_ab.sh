#!/usr/bin/env bash
# rowops_resident_ab.sh: A/B of config resident (gen/pass/resident.c: the row
# kept in shared memory between a row op's two passes) against the committed
# out/sm90a, for softmax, rmsnorm and layernorm, over the long rows.
#
#   bash bench/rowops_resident_ab.sh gen DIR   (here: needs build/gen) writes the
#       sources of five builds into DIR/src/<build>/:
#         base    out/sm90a as committed
#         res     the tuned entries with resident = true (two-pass buckets only change)
#         r2048   every row: BC 2048, 256 threads, RB 1, resident (--no-tuned)
#         r4096   BC 4096, 512 threads
#         r8192   BC 8192, 1024 threads
#   bash bench/rowops_resident_ab.sh run DIR   (on the GPU machine, DIR carried)
#       builds DIR/lib/<build>.so (nvcc -O3 sm_90a, ptxas -v into DIR/obj/) and runs
#       bench/rowops_grid.py twice, each point checked against float64 first:
#         res --base base --alt r4096, then r2048 --base base --alt r8192,
#       at C = 5120 ... 128256, bf16, f16 and f32, into $OUT/a and $OUT/b
#       (run.txt and rowops_grid.csv each; the PNGs removed).
cd "$(dirname "$0")/.." || exit 1
mode=$1 dir=$2
[ -n "$dir" ] || { echo "usage: $0 gen|run DIR" >&2; exit 2; }
C=5120,8192,12288,16384,32000,50257,128256
if [ "$mode" = gen ]; then
  rm -rf "$dir/src"
  mkdir -p "$dir"/src/{base,res,r2048,r4096,r8192}
  cp out/sm90a/{softmax,rmsnorm,layernorm}_*.{cu,h} "$dir/src/base/"
  for k in softmax rmsnorm layernorm; do
    build/gen dsl/kernels/$k.lua --target sm90a -o "$dir/src/res" -D resident=true || exit 1
    for b in 2048:256 4096:512 8192:1024; do
      build/gen dsl/kernels/$k.lua --target sm90a --no-tuned -o "$dir/src/r${b%:*}" -D resident=true \
        -D BC=${b%:*} -D threads=${b#*:} -D RB=1 -D keep_row=false || exit 1
    done
  done
elif [ "$mode" = run ]; then
  mkdir -p "$dir/lib" "$dir/obj" "$OUT/a" "$OUT/b"
  ls "$dir"/src/*/*.cu | xargs -P "$(nproc)" -I{} sh -c 'f={}; b=$(basename $(dirname $f)); o='"$dir"'/obj/$b; mkdir -p $o
    nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -Xcompiler -fPIC -c $f -o $o/$(basename $f .cu).o \
      2> $o/$(basename $f .cu).ptxas || echo "FAIL nvcc $f"'
  for b in "$dir"/src/*; do
    b=$(basename "$b")
    nvcc -shared -o "$dir/lib/$b.so" "$dir/obj/$b"/*.o || { echo "FAIL link $b"; exit 1; }
  done
  echo "spills (ptxas -v, every kernel of the five builds):"
  grep -h 'spill' "$dir"/obj/*/*.ptxas | sort | uniq -c
  g="--ops softmax,rmsnorm,layernorm --dtypes bf16,f16,f32 --c $C --no-triton"
  OUT=$OUT/a python3 bench/rowops_grid.py grid "$dir/lib/res.so" --base "$dir/lib/base.so" --alt "$dir/lib/r4096.so" \
    $g > "$OUT/a/run.txt" 2>&1
  echo "a: status $?"
  OUT=$OUT/b python3 bench/rowops_grid.py grid "$dir/lib/r2048.so" --base "$dir/lib/base.so" --alt "$dir/lib/r8192.so" \
    $g > "$OUT/b/run.txt" 2>&1
  echo "b: status $?"
  rm -f "$OUT"/a/*.png "$OUT"/b/*.png
else
  echo "usage: $0 gen|run DIR" >&2
  exit 2
fi
