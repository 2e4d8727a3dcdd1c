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
if ! cc -std=c11 -O2 -Wall -Wextra -Iout/c tests/cpu/check.c $b/*.o -lm -o $b/check 2>$b/build.log; then
  echo "FAIL cpu build: $(head -c 300 $b/build.log)"
  exit 0
fi
$b/check 2>/dev/null || echo "FAIL cpu: check crashed (status $?)"
