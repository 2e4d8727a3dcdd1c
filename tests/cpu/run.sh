#!/usr/bin/env bash
# CPU numerics: builds every c-target kernel in out/c with tests/cpu/check.c
# and runs it (see check.c).  Prints PASS/FAIL lines.
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
  for h in out/c/matmul_*.h; do echo "#include \"$(basename "$h")\""; done
  echo "#define MM_LIST \\"
  for h in out/c/matmul_*.h; do
    n=$(basename "$h" .h); dt=${n#matmul_}; dt=${dt%%_*}; lay=${n##*_}; epi=${n#matmul_${dt}_}; epi=${epi%_$lay}
    act=$(echo "${epi#bias}" | tr -d _ | tr a-z A-Z); [ -z "$act" ] && act=NONE
    echo "  MM($n, $(echo $dt | tr a-z A-Z), $([ ${lay:0:1} = t ] && echo 1 || echo 0), $([ ${lay:1:1} = t ] && echo 1 || echo 0), $act, $([ $epi = none ] && echo 0 || echo 1)) \\"
  done
  echo ""
} > $b/matmul_list.h
others=$(ls $b/*.o | grep -v '/matmul_')
mms=$(ls $b/*.o | grep '/matmul_')
if ! cc -std=c11 -O2 -Wall -Wextra -Iout/c tests/cpu/check.c $others -lm -o $b/check 2>$b/build.log ||
   ! cc -std=c11 -O2 -Wall -Wextra -Iout/c -I$b tests/cpu/matmul.c $mms -lm -o $b/matmul 2>>$b/build.log; then
  echo "FAIL cpu build: $(head -c 300 $b/build.log)"
  exit 0
fi
$b/check 2>/dev/null || echo "FAIL cpu: check crashed (status $?)"
$b/matmul 2>/dev/null || echo "FAIL cpu: matmul crashed (status $?)"
