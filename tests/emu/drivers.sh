#!/usr/bin/env bash
# tests/emu/drivers.sh: kernels checked by a C driver of their own, run as
# each GPU target's code on the CPU (gen --emulate): the docs examples of
# the number types (docs/examples/types.lua, random_bits.lua, fp8.lua,
# fp8_fnuz.lua) with their drivers in tests/docs/drivers/,
# dsl/kernels/bias_dropout_add.lua and matmul_fp8.lua with
# tests/cpu/dropout.c and matmul_fp8.c (matmul_fp8 also with BM = 32: warp
# tiles of 16 rows, gfx942's MFMA 16x16x32 fp8), tests/cpu/fnuz_gemm.lua
# (a gemm on the FNUZ fp8 dtypes, gfx942's MFMA fp8 on their bytes; BM = 32
# too) with tests/cpu/fnuz_gemm.c, grouped_matmul.lua with
# tests/cpu/grouped.c, tests/cpu/column_origin.lua (a stage-ring copy
# from a column read from memory) with tests/cpu/column_origin.c,
# tests/cpu/rows_batched.lua (a store of X:rows with a batch index: sm90a's
# row-clipped TMA store of a 3-D tensor) with tests/cpu/rows_batched.c,
# tests/cpu/staged_carry.lua (a wgmma operand staged in shared memory beside
# a 3-stage ring) with tests/cpu/staged_carry.c (attention_decode and
# bias_dropout_add also with each of their builds forced, LT_EMU_BUCKET), and
# attention_decode.lua, attention_varlen.lua and attention_varlen_bwd.lua
# (bf16 d64; attention_varlen also with -D tma=true, its warp-specialized
# build on sm90a: TMA copies of X:rows views, and with -D dynamic=true too:
# its persistent grid taking the programs from a counter, which the
# emulated launcher checks is back to 0 after each call) with
# tests/cpu/attention_decode.c, attention_varlen.c and
# attention_varlen_bwd.c against their float64
# references; each driver's outputs (those it writes to $LT_DUMP)
# must be the same bytes as the c target's.  Built with AddressSanitizer and
# UBSan's bounds checks when the compiler has them.
# Prints PASS / FAIL / SKIP lines; run by tests/emu/run.sh.
cd "$(dirname "$0")/../.."
GEN=${LT_GEN:-build/gen}
CXX=${CXX:-c++}
b=build/tests/emu/drivers
targets=${LT_EMU_TARGETS:-sm80 sm90a gfx90a gfx942 gfx1100}
rm -rf $b
mkdir -p $b
san="-fsanitize=address,bounds -fno-sanitize-recover=all"
echo 'int main(void) { return 0; }' > $b/san.cpp
$CXX $san $b/san.cpp -o $b/san 2>/dev/null && $b/san || san=""

# build T DIR: compiles the generated files in DIR (the c target's, or an
# emulated GPU target's) to objects beside them; fails at the first error.
build() {
  local f
  if [ $1 = c ]; then
    for f in $2/*.c; do cc -std=c11 -O2 -c $f -o ${f%.c}.o || return 1; done
  else
    for f in $2/*.emu.cpp; do $CXX -std=c++17 -O1 -pthread $san -c $f -o ${f%.emu.cpp}.o || return 1; done
  fi
}

# entries: kernel file:driver[:gen's -D options, comma-separated[:a label,
# the results' folder's suffix, where the file comes again with other -D]]
for entry in docs/examples/types.lua:tests/docs/drivers/types.c \
             docs/examples/random_bits.lua:tests/docs/drivers/random_bits.c \
             docs/examples/fp8.lua:tests/docs/drivers/fp8.c \
             docs/examples/fp8_fnuz.lua:tests/docs/drivers/fp8_fnuz.c \
             dsl/kernels/bias_dropout_add.lua:tests/cpu/dropout.c \
             dsl/kernels/matmul_fp8.lua:tests/cpu/matmul_fp8.c \
             dsl/kernels/matmul_fp8.lua:tests/cpu/matmul_fp8.c:BM=32:bm32 \
             tests/cpu/fnuz_gemm.lua:tests/cpu/fnuz_gemm.c \
             tests/cpu/fnuz_gemm.lua:tests/cpu/fnuz_gemm.c:BM=32:bm32 \
             dsl/kernels/grouped_matmul.lua:tests/cpu/grouped.c \
             tests/cpu/column_origin.lua:tests/cpu/column_origin.c \
             tests/cpu/rows_batched.lua:tests/cpu/rows_batched.c \
             tests/cpu/staged_carry.lua:tests/cpu/staged_carry.c \
             dsl/kernels/attention_decode.lua:tests/cpu/attention_decode.c:dtype=bf16,hdim=d64,CU=2 \
             dsl/kernels/attention_varlen.lua:tests/cpu/attention_varlen.c:dtype=bf16,hdim=d64 \
             dsl/kernels/attention_varlen.lua:tests/cpu/attention_varlen.c:dtype=bf16,hdim=d64,tma=true:tma \
             dsl/kernels/attention_varlen.lua:tests/cpu/attention_varlen.c:dtype=bf16,hdim=d64,tma=true,dynamic=true:dynamic \
             dsl/kernels/attention_varlen_bwd.lua:tests/cpu/attention_varlen_bwd.c:dtype=bf16,hdim=d64; do
  src=${entry%%:*} drv=${entry#*:} name=$(basename $src .lua) defs=
  case $drv in *:*:*) name=${name}_${drv##*:} drv=${drv%:*} ;; esac   # a label: the same file with other -D
  case $drv in *:*) defs=$(echo "-D ${drv#*:}" | sed 's/,/ -D /g') drv=${drv%%:*} ;; esac
  [ -f $src ] && [ -f $drv ] || { echo "FAIL emu/drivers/$name: $src or $drv is missing"; continue; }
  for t in c $targets; do
    d=$b/$name/$t
    mkdir -p $d
    emu=--emulate
    [ $t = c ] && emu=
    if ! "$GEN" $src --target $t $emu $defs -o $d 2> $d/gen.err || ! build $t $d 2> $d/cc.err; then
      echo "FAIL emu/drivers/$name/$t: does not build: $(cat $d/gen.err $d/cc.err | head -c 300 | tr '\n' ' ')"
      continue
    fi
    if ! cc -std=c11 -O2 -I$d -Itests/docs/drivers -c $drv -o $d/drv.o 2> $d/cc.err ||
       ! $CXX $san $d/drv.o $(ls $d/*.o | grep -v /drv.o) -pthread -lm -o $d/run 2>> $d/cc.err; then
      echo "FAIL emu/drivers/$name/$t: the driver does not build: $(head -c 300 $d/cc.err | tr '\n' ' ')"
      continue
    fi
    if ! LT_DUMP=$d/dump timeout 600 $d/run > $d/out 2>&1 || grep -q '^FAIL' $d/out; then
      echo "FAIL emu/drivers/$name/$t: $(grep -v '^PASS' $d/out | head -c 300 | tr '\n' ' ')"
    elif [ $t != c ] && [ -e $b/$name/c/dump ] && ! cmp -s $d/dump $b/$name/c/dump; then
      echo "FAIL emu/drivers/$name/$t: the outputs differ from the c target's ($d/dump)"
    else
      echo "PASS emu/drivers/$name/$t"
    fi
  done
done

# attention_decode's split launchers have builds (contig and paged64:
# plain, opts; paged: rows16plain, rows16, rows64plain, rows64) and run one
# by the sizes and options: each build again on every case, forced by
# LT_EMU_BUCKET (a launcher with fewer builds picks its own; rows16 then
# takes the 17 to 128 rows of a KV head in several tiles, rows64 the few),
# on sm90a (mma.sync and wgmma) and gfx942 (wave64); the builds of even i,
# the plain ones, hold no softcap or window code, so the driver leaves those
# cases out there (LT_DECODE_PLAIN=1).  bias_dropout_add's four sm90a
# builds (wide, rows, ragged, offgrid) likewise, each on every shape of
# tests/cpu/dropout.c
for entry in attention_decode/sm90a:4 attention_decode/gfx942:4 bias_dropout_add/sm90a:4; do
  d=$b/${entry%%:*} n=${entry##*:}
  [ -x $d/run ] || continue   # its FAIL was said above
  for i in $(seq 0 $((n - 1))); do
    plain=0
    case $entry in attention_decode/*) [ $((i % 2)) = 0 ] && plain=1 ;; esac
    if ! LT_DECODE_PLAIN=$plain LT_EMU_BUCKET=$i timeout 600 $d/run > $d/out$i 2>&1 || grep -q '^FAIL' $d/out$i; then
      echo "FAIL emu/drivers/${entry%%:*}/build$i: $(grep -v '^PASS' $d/out$i | head -c 300 | tr '\n' ' ')"
    else
      echo "PASS emu/drivers/${entry%%:*}/build$i"
    fi
  done
done
exit 0
