#!/usr/bin/env bash
# tests/emu/drivers.sh: kernels checked by a C driver of their own, run as
# each GPU target's code on the CPU (gen --emulate): the docs examples of
# the number types (docs/examples/types.lua, random_bits.lua) with their drivers in
# tests/docs/drivers/, and each driver's outputs (the ones it writes to
# $LT_DUMP) the same bytes as the c target's.  Built with AddressSanitizer
# and UBSan's bounds checks when the compiler has them.
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
for name in types random_bits; do
  src=docs/examples/$name.lua drv=tests/docs/drivers/$name.c
  [ -f $src ] && [ -f $drv ] || { echo "FAIL emu/drivers/$name: $src or $drv is missing"; continue; }
  for t in c $targets; do
    d=$b/$name/$t
    mkdir -p $d
    if [ $t = c ]; then
      "$GEN" $src --target c -o $d 2> $d/gen.err && cc -std=c11 -O2 -c $d/$name.c -o $d/k.o 2> $d/cc.err
    else
      "$GEN" $src --target $t --emulate -o $d 2> $d/gen.err && $CXX -std=c++17 -O1 -pthread $san -c $d/$name.emu.cpp -o $d/k.o 2> $d/cc.err
    fi || { echo "FAIL emu/drivers/$name/$t: does not build: $(head -c 300 $d/gen.err $d/cc.err | tr '\n' ' ')"; continue; }
    if ! cc -std=c11 -O2 -I$d -Itests/docs/drivers -c $drv -o $d/drv.o 2> $d/cc.err ||
       ! $CXX $san $d/drv.o $d/k.o -pthread -lm -o $d/run 2>> $d/cc.err; then
      echo "FAIL emu/drivers/$name/$t: the driver does not build: $(head -c 300 $d/cc.err | tr '\n' ' ')"
      continue
    fi
    if ! LT_DUMP=$d/dump timeout 300 $d/run > $d/out 2>&1; then
      echo "FAIL emu/drivers/$name/$t: $(head -c 300 $d/out | tr '\n' ' ')"
    elif [ $t != c ] && ! cmp -s $d/dump $b/$name/c/dump; then
      echo "FAIL emu/drivers/$name/$t: the outputs differ from the c target's ($d/dump)"
    else
      echo "PASS emu/drivers/$name/$t"
    fi
  done
done
exit 0
