#!/usr/bin/env bash
# rowops_sweep.sh: the row-op configs bench/rowops_candidates.py lists,
# generated for one target with build/gen (-D, no tuned file) and renamed
# apart (softmax_bf16 -> softmax_bf16_c17), so that one library a kernel
# and dtype holds them all.
#   bench/rowops_sweep.sh gen DIR [TARGET [CANDIDATE OPTIONS]]   here: DIR/src/*.cu and DIR/index.txt
#     (the options of bench/rowops_candidates.py: --two-pass, --only ...; or --from FILE:
#     FILE's lines, KERNEL DTYPE KEY=VALUE..., in place of the generated list)
#   bench/rowops_sweep.sh build DIR [TARGET]  where nvcc is: DIR/lib/*.so (JOBS compiles at
#     once, default every core; ptxas -v in DIR/obj/*.ptxas)
# then: python3 bench/rowops_grid.py sweep DIR/index.txt
set -euo pipefail
cd "$(dirname "$0")/.."
mode=$1 dir=$2 target=${3:-sm90a}
shift $(($# < 3 ? $# : 3))
if [ "$mode" = gen ]; then
  rm -rf "$dir" && mkdir -p "$dir/src" "$dir/tmp"
  i=0
  if [ "${1:-}" = --from ]; then grep -v '^#' "$2"; else python3 bench/rowops_candidates.py "$@"; fi |
  while read -r k dt cfg; do
    [ -n "$k" ] || continue
    i=$((i + 1))
    defs=()
    for kv in $cfg; do defs+=(-D "$kv"); done
    rm -f "$dir"/tmp/*
    if ! build/gen "dsl/kernels/$k.lua" --target "$target" --no-tuned -D "dtype=$dt" "${defs[@]}" -o "$dir/tmp" \
        2>"$dir/tmp/err"; then
      echo "skip $k $dt $cfg: $(head -c 200 "$dir/tmp/err")" >&2
      continue
    fi
    sed "s/${k}_${dt}/${k}_${dt}_c$i/g" "$dir/tmp/${k}_${dt}.cu" >"$dir/src/${k}_${dt}_c$i.cu"
    echo "$k $dt ${cfg// /,} ${k}_${dt}.so ${k}_${dt}_c$i" >>"$dir/index.txt"
  done
  rm -rf "$dir/tmp"
elif [ "$mode" = build ]; then
  arch=$(case $target in sm80) echo 80 ;; *) echo 90a ;; esac)
  mkdir -p "$dir/obj" "$dir/lib"
  ls "$dir"/src/*.cu | xargs -P "${JOBS:-$(nproc)}" -I{} sh -c \
    'nvcc -O3 -gencode=arch=compute_'"$arch"',code=sm_'"$arch"' -Xptxas -v -Xcompiler -fPIC -c {} \
       -o '"$dir"'/obj/$(basename {} .cu).o 2>'"$dir"'/obj/$(basename {} .cu).ptxas'
  for so in $(awk '{print $4}' "$dir/index.txt" | sort -u); do
    nvcc -shared -o "$dir/lib/$so" "$dir"/obj/"${so%.so}"_c*.o
  done
fi
