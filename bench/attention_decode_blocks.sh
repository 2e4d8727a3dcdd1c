#!/usr/bin/env bash
# bench/attention_decode_blocks.sh: the paged decode launcher (pages of 16
# keys) against the build before it and against variants of its config,
# in two steps:
#   build (here, with nvcc; no GPU needed): libraries of attention_decode
#     (bf16 d128 and f16 d64: contig, paged, paged64, combine) into $LIB:
#       new   out/sm90a as generated
#       old   $OLD/sm90a (an out/ folder of the commit before), all four passes
#       NAME  for each NAME:DEFS of $VARIANTS (DEFS: gen's -D options,
#             comma-separated): new, its paged and combine passes from gen
#             with those -D (the other two do not read them)
#       sm80  out/sm80 as generated, built for sm_90 (checked only)
#     and the ptxas reports of the paged builds in $LIB/ptxas_paged.txt;
#   run (on the device): bench/attention_decode.py checks every library
#     against torch's float64 reference (ragged lengths with a 0, shuffled
#     page tables, softcap, window, both paged builds), times new beside a
#     device-to-device copy and SDPA's fastest backend, then each other
#     library but sm80 on the caches of 16-key pages (VCACHES=contig,...:
#     those caches instead), one process a library, no SDPA;
#     BESIDE=NAME[,NAME] times those libraries in new's process instead, at
#     every point right after new (bench/attention_decode.py).
# Results: $OUT/attention_decode.txt (new), $OUT/attention_decode_NAME.txt.
#   usage: LIB=dir OLD=dir VARIANTS="s2:SUBS=2 ..." bash bench/attention_decode_blocks.sh build
#          LIB=dir OUT=dir [BESIDE=old] bash bench/attention_decode_blocks.sh run
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=${LIB:-/tmp/attention_decode_blocks}
case ${1:-} in
build)
  src=$here/../out
  old=${OLD:?OLD=an out/ folder of the build before}
  mkdir -p "$lib"
  # obj NAME FILE ARCH: one object, its ptxas report in NAME.log
  obj() {
    nvcc -O3 -std=c++17 $3 -I"$(dirname "$2")" -Xcompiler -fPIC -Xptxas -v -c "$2" -o "$lib/$1.o" > "$lib/$1.log" 2>&1 ||
      { echo "FAIL build $2: $(grep -m1 error "$lib/$1.log")"; exit 1; }
  }
  a90="-gencode=arch=compute_90a,code=sm_90a"
  names="new old sm80"
  for v in bf16_d128 f16_d64; do
    for p in contig paged64 paged combine; do
      obj new_${v}_$p "$src/sm90a/attention_decode_${v}_$p.cu" "$a90"
      obj old_${v}_$p "$old/sm90a/attention_decode_${v}_$p.cu" "$a90"
      obj sm80_${v}_$p "$src/sm80/attention_decode_${v}_$p.cu" -arch=sm_90
    done
    for nd in ${VARIANTS:-}; do
      n=${nd%%:*} defs=$(echo "-D ${nd#*:}" | sed 's/,/ -D /g')
      mkdir -p "$lib/src/$n"
      for p in paged combine; do
        "$here/../build/gen" "$here/../dsl/kernels/attention_decode.lua" --target sm90a -D dtype=${v%_*} \
          -D hdim=${v#*_} -D pass=$p $defs -o "$lib/src/$n" || exit 1
        obj ${n}_${v}_$p "$lib/src/$n/attention_decode_${v}_$p.cu" "$a90"
      done
      for p in contig paged64; do cp "$lib/new_${v}_$p.o" "$lib/${n}_${v}_$p.o"; done
    done
  done
  for nd in ${VARIANTS:-}; do names="$names ${nd%%:*}"; done
  for l in $names; do nvcc -shared -o "$lib/libdecode_$l.so" "$lib"/${l}_*.o || exit 1; done
  grep -H -E "registers|spill" "$lib"/*_paged.log | sed "s|$lib/||" > "$lib/ptxas_paged.txt"
  cat "$lib/ptxas_paged.txt"
  ;;
run)
  out=${OUT:?OUT=where the results go}; mkdir -p "$out"
  libs=$(ls "$lib"/libdecode_*.so | sed 's|.*/libdecode_||; s|\.so$||' | grep -v -e '^new$' -e '^sm80$')
  args="new=$lib/libdecode_new.so sm80=$lib/libdecode_sm80.so"
  for l in $libs; do args="$args $l=$lib/libdecode_$l.so"; done
  python3 "$here/attention_decode.py" $args || exit 1
  for l in $libs; do
    case ",${BESIDE:-}," in *",$l,"*) continue ;; esac   # timed in new's process
    mkdir -p "$out/$l"
    OUT="$out/$l" CACHES=${VCACHES:-page16} SDPA=0 python3 "$here/attention_decode.py" $l="$lib/libdecode_$l.so" || exit 1
    mv "$out/$l/attention_decode.txt" "$out/attention_decode_$l.txt"
  done
  ;;
*)
  sed -n '2,24p' "$0"; exit 1 ;;
esac
