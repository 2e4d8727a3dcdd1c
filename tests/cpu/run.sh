#!/usr/bin/env bash
# CPU numerics: builds every c-target kernel in out/c with tests/cpu/check.c,
# matmul.c and attention.c and runs them (see each), then builds and runs
# examples/attention against out/c, and checks the HIP target's bf16 rounding
# (tests/cpu/bf16.c) and the fp8 conversions (tests/cpu/fp8.c).  Prints
# PASS/FAIL/SKIP lines.
cd "$(dirname "$0")/../.."
b=build/tests/cpu
mkdir -p $b
if ! ls out/c/*.c >/dev/null 2>&1; then echo "FAIL cpu: out/c is empty (run ./build.sh)"; exit 0; fi
for f in out/c/*.c; do
  cc -std=c11 -O2 -Wall -Wextra -Werror -c "$f" -o "$b/$(basename "${f%.c}").o" &
done
wait
# the matmul variants, one MM(fn, dtype, trans_a, trans_b, act, has_bias) line each
{
  for h in out/c/matmul_*.h; do [[ $h == */matmul_fp8_* ]] || echo "#include \"$(basename "$h")\""; done
  echo "#define MM_LIST \\"
  for h in out/c/matmul_*.h; do
    [[ $h == */matmul_fp8_* ]] && continue   # matmul_fp8.c checks those
    n=$(basename "$h" .h); dt=${n#matmul_}; dt=${dt%%_*}; lay=${n##*_}; epi=${n#matmul_${dt}_}; epi=${epi%_$lay}
    act=$(echo "${epi#bias}" | tr -d _ | tr a-z A-Z); [ -z "$act" ] && act=NONE
    echo "  MM($n, $(echo $dt | tr a-z A-Z), $([ ${lay:0:1} = t ] && echo 1 || echo 0), $([ ${lay:1:1} = t ] && echo 1 || echo 0), $act, $([ $epi = none ] && echo 0 || echo 1)) \\"
  done
  echo ""
} > $b/matmul_list.h
# the attention launchers, one FWD[_CAP] / PRE / DKDV[_CAP] / DQ[_CAP] / PREA / DKDVA[_CAP] / POST(fn, dtype, D)
# line each (the A kinds: the dq_atomic variants)
# (BAD(fn) for a name outside the ABI); none at all is one SKIP or FAIL line of attention.c
{
  [ -f dsl/kernels/attention.lua ] && echo "#define ATTN_KERNEL_FILE 1"
  for h in out/c/attention_*.h; do
    [ -e "$h" ] && [[ $h != */attention_decode_* ]] && [[ $h != */attention_varlen_* ]] && echo "#include \"$(basename "$h")\""
  done
  echo "#define ATTN_LIST \\"
  for h in out/c/attention_*.h; do
    [ -e "$h" ] || continue
    [[ $h == */attention_decode_* ]] && continue   # attention_decode.c's
    [[ $h == */attention_varlen_* ]] && continue   # attention_varlen.c's
    n=$(basename "$h" .h)
    k=bad cap=
    if [[ $n =~ ^attention_(bwd_(pre|dkdv|dq|post)_)?(dq_atomic_)?(f16|bf16)_d(32|64|96|128|256)(_softcap)?$ ]]; then
      k=${BASH_REMATCH[2]:-fwd}${BASH_REMATCH[3]:+a} cap=${BASH_REMATCH[6]:+_cap}
      dt=$(echo ${BASH_REMATCH[4]} | tr a-z A-Z) d=${BASH_REMATCH[5]}
    fi
    # pre and post take no softcap; of the dq_atomic variants, pre and dkdv
    case $k$cap in
      fwd|fwd_cap|pre|prea|dkdv|dkdv_cap|dkdva|dkdva_cap|dq|dq_cap|post)
        echo "  $(echo $k$cap | tr a-z A-Z)($n, $dt, $d) \\" ;;
      *) echo "  BAD($n) \\" ;;
    esac
  done
  echo ""
} > $b/attention_list.h
others=$(ls $b/*.o | grep -v -e '/matmul_' -e '/attention_')
fp8mms=$(ls $b/*.o | grep '/matmul_fp8_')
attns=$(ls $b/*.o | grep '/attention_' | grep -v -e '/attention_decode_' -e '/attention_varlen_')
decodes=$(ls $b/*.o | grep '/attention_decode_')
varlens=$(ls $b/*.o | grep '/attention_varlen_' | grep -v '/attention_varlen_bwd_')
varlen_bwds=$(ls $b/*.o | grep '/attention_varlen_bwd_')
mms=$(ls $b/*.o | grep '/matmul_' | grep -v '/matmul_fp8_')
if ! cc -std=c11 -O2 -Wall -Wextra -Iout/c tests/cpu/check.c $others -lm -o $b/check 2>$b/build.log ||
   ! cc -std=c11 -O2 -Wall -Wextra -Iout/c -I$b tests/cpu/matmul.c $mms -lm -o $b/matmul 2>>$b/build.log; then
  echo "FAIL cpu build: $(head -c 300 $b/build.log)"
  exit 0
fi
$b/check 2>/dev/null || echo "FAIL cpu: check crashed (status $?)"
$b/matmul 2>/dev/null || echo "FAIL cpu: matmul crashed (status $?)"
# matmul.c again on tiles whose sides are multiples of 8 but not powers of two (192 x 208, K step 48),
# bf16 with a bias, every layout: its cases are ragged against those tiles too
o=$b/odd_tiles
rm -rf $o && mkdir -p $o
: > $o/gen.log
for lay in nn nt tn tt; do
  ${LT_GEN:-build/gen} dsl/kernels/matmul.lua --target c -o $o -D dtype=bf16 -D epilogue=bias -D layout=$lay \
    -D BM=192 -D BN=208 -D BK=48 --no-tuned >>$o/gen.log 2>&1 || echo "FAIL cpu matmul 192 x 208 tiles: gen: $(grep -m1 error $o/gen.log)"
done
{
  for lay in nn nt tn tt; do echo "#include \"matmul_bf16_bias_$lay.h\""; done
  echo "#define MM_LIST \\"
  for lay in nn nt tn tt; do
    echo "  MM(matmul_bf16_bias_$lay, BF16, $([ ${lay:0:1} = t ] && echo 1 || echo 0), $([ ${lay:1:1} = t ] && echo 1 || echo 0), NONE, 1) \\"
  done
  echo ""
} > $o/matmul_list.h
if cc -std=c11 -O2 -Wall -Wextra -I$o tests/cpu/matmul.c $o/matmul_bf16_bias_*.c -lm -o $o/matmul 2>$o/build.log; then
  $o/matmul > $o/out 2>/dev/null || echo "FAIL cpu matmul 192 x 208 tiles: crashed (status $?)"
  sed 's/^\(PASS\|FAIL\) /\1 192 x 208 tiles: /' $o/out
else
  echo "FAIL cpu matmul 192 x 208 tiles build: $(grep -m1 error $o/build.log | cut -c1-300)"
fi
# attention.c on its own: a launcher whose prototype is not the ABI's is a build error here
if cc -std=c11 -O2 -Wall -Wextra -Werror=incompatible-pointer-types -Iout/c -I$b tests/cpu/attention.c $attns -lm \
     -o $b/attention 2>$b/attention_build.log; then
  $b/attention 2>$b/attention.log || echo "FAIL cpu: attention crashed (status $?)"
else
  abi=$(grep -oE '^ *[0-9]+ \| +[A-Z_]+\(attention_[a-z0-9_]+' $b/attention_build.log | sed 's/.*(//' | sort -u | tr '\n' ' ')
  if [ -n "$abi" ]; then echo "FAIL cpu attention build: not the ABI's prototype (docs/attention.md): $abi"
  else echo "FAIL cpu attention build: $(grep -m1 'error' $b/attention_build.log | cut -c1-300)"; fi
fi
# attention_decode: split-KV decode and its combine against a float64 reference (attention_decode.c)
if [ -z "$decodes" ]; then
  echo "FAIL cpu attention_decode: no out/c/attention_decode_*.c (run ./build.sh)"
elif cc -std=c11 -O2 -Wall -Wextra -Werror -Iout/c tests/cpu/attention_decode.c $decodes -lm -o $b/attention_decode \
     2>$b/attention_decode_build.log; then
  $b/attention_decode || echo "FAIL cpu attention_decode: crashed (status $?)"
else
  echo "FAIL cpu attention_decode build: $(grep -m1 error $b/attention_decode_build.log | cut -c1-300)"
fi
# attention_varlen: packed sequences of ragged lengths against a float64 reference (attention_varlen.c)
if [ -z "$varlens" ]; then
  echo "FAIL cpu attention_varlen: no out/c/attention_varlen_*.c (run ./build.sh)"
elif cc -std=c11 -O2 -Wall -Wextra -Werror -Iout/c tests/cpu/attention_varlen.c $varlens -lm -o $b/attention_varlen \
     2>$b/attention_varlen_build.log; then
  $b/attention_varlen || echo "FAIL cpu attention_varlen: crashed (status $?)"
else
  echo "FAIL cpu attention_varlen build: $(grep -m1 error $b/attention_varlen_build.log | cut -c1-300)"
fi
# attention_varlen_bwd: dQ, dK, dV over packed sequences against a float64 reference (attention_varlen_bwd.c)
if [ -z "$varlen_bwds" ]; then
  echo "FAIL cpu attention_varlen_bwd: no out/c/attention_varlen_bwd_*.c (run ./build.sh)"
elif cc -std=c11 -O2 -Wall -Wextra -Werror -Iout/c tests/cpu/attention_varlen_bwd.c $varlen_bwds -lm \
     -o $b/attention_varlen_bwd 2>$b/attention_varlen_bwd_build.log; then
  $b/attention_varlen_bwd || echo "FAIL cpu attention_varlen_bwd: crashed (status $?)"
else
  echo "FAIL cpu attention_varlen_bwd build: $(grep -m1 error $b/attention_varlen_bwd_build.log | cut -c1-300)"
fi
# examples/attention, built against out/c the way its README says, checks its own result
if [ -f out/c/attention_bf16_d128.h ]; then
  if make -s -C examples/attention cpu-check BUILD="$PWD/$b/example" >$b/example.log 2>&1; then
    echo "PASS cpu examples/attention: the drop-in example builds against out/c and checks its own result"
  else
    echo "FAIL cpu examples/attention: $(tail -n 1 $b/example.log | cut -c1-200)"
  fi
elif ls out/c/attention_*.h >/dev/null 2>&1; then
  echo "FAIL cpu examples/attention: out/c has attention launchers but not attention_bf16_d128"
fi   # no attention launcher at all: attention's one SKIP / FAIL line says so
# examples/decode: prefill, then decode steps over a paged KV cache, checked against float64
if [ -f out/c/attention_decode_bf16_d64_paged.h ] && [ -f out/c/attention_bf16_d64.h ]; then
  if make -s -C examples/decode cpu-check BUILD="$PWD/$b/decode_example" >$b/decode_example.log 2>&1; then
    echo "PASS cpu examples/decode: prefill and $(grep -o '[0-9]* decode steps' $b/decode_example.log) over a paged cache match float64"
  else
    echo "FAIL cpu examples/decode: $(tail -n 1 $b/decode_example.log | cut -c1-200)"
  fi
else
  echo "FAIL cpu examples/decode: out/c lacks attention_decode_bf16_d64_paged or attention_bf16_d64"
fi
# a tile of 8 MB on the c target, run on a 1 MB stack (bigtile.c)
if ${LT_GEN:-build/gen} tests/cpu/bigtile.lua --target c -o $b/bigtile >$b/bigtile.log 2>&1 &&
   cc -std=c11 -O2 -Wall -Wextra -Werror -I$b/bigtile tests/cpu/bigtile.c $b/bigtile/bigtile.c -lpthread \
     -o $b/bigtile/run 2>>$b/bigtile.log; then
  $b/bigtile/run || echo "FAIL cpu bigtile: crashed (status $?)"
else
  echo "FAIL cpu bigtile build: $(grep -m1 error $b/bigtile.log | cut -c1-300)"
fi
# view offsets that int math would overflow: tests/cpu/offsets.lua under UBSan and ASan
if ! build/gen tests/cpu/offsets.lua --target c -o $b/offsets >$b/offsets_gen.log 2>&1; then
  echo "FAIL cpu offsets: gen: $(head -c 300 $b/offsets_gen.log)"
elif cc -std=c11 -O1 -g -fsanitize=undefined,address -fno-sanitize-recover=all -Wall -Werror -I$b/offsets tests/cpu/offsets.c \
     $b/offsets/offsets.c -lm -o $b/offsets/run 2>$b/offsets_build.log; then
  $b/offsets/run 2>$b/offsets.log || echo "FAIL cpu offsets: crashed or a sanitizer report: $(grep -m1 -E 'runtime error|ERROR' $b/offsets.log | cut -c1-300)"
else
  echo "FAIL cpu offsets build: $(grep -m1 error $b/offsets_build.log | cut -c1-300)"
fi
# bias_dropout_add: its own driver (mask, kept fraction, scale; dropout.c)
bdas=$(ls $b/bias_dropout_add_*.o 2>/dev/null)
if [ -z "$bdas" ]; then
  echo "FAIL cpu bias_dropout_add: no out/c/bias_dropout_add_*.c (run ./build.sh)"
elif cc -std=c11 -O2 -Wall -Wextra -Iout/c tests/cpu/dropout.c $bdas -lm -o $b/dropout 2>$b/dropout_build.log; then
  $b/dropout || echo "FAIL cpu dropout: crashed (status $?)"
else
  echo "FAIL cpu dropout build: $(grep -m1 error $b/dropout_build.log | cut -c1-300)"
fi
# grouped_matmul: its own driver (ragged and empty groups against float64; grouped.c)
gms=$(ls $b/grouped_matmul_*.o 2>/dev/null)
if [ -z "$gms" ]; then
  echo "FAIL cpu grouped_matmul: no out/c/grouped_matmul_*.c (run ./build.sh)"
elif cc -std=c11 -O2 -Wall -Wextra -Iout/c tests/cpu/grouped.c $gms -lm -o $b/grouped 2>$b/grouped_build.log; then
  $b/grouped || echo "FAIL cpu grouped: crashed (status $?)"
else
  echo "FAIL cpu grouped build: $(grep -m1 error $b/grouped_build.log | cut -c1-300)"
fi
# the Philox4x32-10 of templates/bits.h against its published answers
if cc -std=c11 -O2 -Wall -Wextra -Itemplates tests/cpu/philox.c -lm -o $b/philox 2>$b/philox_build.log; then
  $b/philox || echo "FAIL cpu philox: crashed (status $?)"
else
  echo "FAIL cpu philox build: $(grep -m1 error $b/philox_build.log | cut -c1-300)"
fi
# the HIP target's f32 -> bf16 rounding, cut out of its template (bf16.c says how)
sed -n '/^LT_FN lt_bf16 lt_f32_to_bf16/,/^}/p' templates/hip.h > $b/hip_bf16.inc
if ! grep -q '^}' $b/hip_bf16.inc; then
  echo "FAIL cpu bf16: no 'LT_FN lt_bf16 lt_f32_to_bf16' function in templates/hip.h"
elif cc -std=c11 -O2 -Wall -Wextra -I$b tests/cpu/bf16.c -lm -o $b/bf16 2>$b/bf16_build.log; then
  $b/bf16 || echo "FAIL cpu bf16: crashed (status $?)"
else
  echo "FAIL cpu bf16 build: $(grep -m1 error $b/bf16_build.log | cut -c1-300)"
fi
# the fp8 conversions of templates/fp8.h against the formats' definitions (fp8.c says how)
if cc -std=c11 -O2 -Wall -Wextra -Werror tests/cpu/fp8.c -lm -o $b/fp8 2>$b/fp8_build.log; then
  $b/fp8 || echo "FAIL cpu fp8: crashed (status $?)"
else
  echo "FAIL cpu fp8 build: $(grep -m1 error $b/fp8_build.log | cut -c1-300)"
fi
# matmul_fp8: its own driver (fp8 inputs of every finite code, float64 reference; matmul_fp8.c)
if [ -z "$fp8mms" ]; then
  echo "FAIL cpu matmul_fp8: no out/c/matmul_fp8_*.c (run ./build.sh)"
elif cc -std=c11 -O2 -Wall -Wextra -Iout/c tests/cpu/matmul_fp8.c $fp8mms -lm -o $b/matmul_fp8 2>$b/matmul_fp8_build.log; then
  $b/matmul_fp8 >/dev/null 2>&1 || $b/matmul_fp8 | grep -v '^PASS' | head -5 | sed 's/^/FAIL cpu matmul_fp8: /'
  $b/matmul_fp8 | grep '^PASS'
else
  echo "FAIL cpu matmul_fp8 build: $(grep -m1 error $b/matmul_fp8_build.log | cut -c1-300)"
fi
