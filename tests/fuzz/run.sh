#!/usr/bin/env bash
# tests/fuzz/run.sh: gen on mutated kernel files must fail cleanly or write
# C that compiles.
#
#   bash tests/fuzz/run.sh                      the CI smoke: seed 1, about 60 s
#   LT_FUZZ_N=100000 bash tests/fuzz/run.sh     a long run (no time cap)
#   LT_FUZZ_SEED=7 LT_FUZZ_N=500 bash tests/fuzz/run.sh
#
# Mutants come from tests/fuzz/mutate.lua (lua5.4): mutant I of seed S is
# the same on every run.  The files mutated are the shipped kernels
# (dsl/kernels), the docs' (docs/examples), the golden ones
# (tests/golden/kernels) and the hostile snippets of tests/fuzz/corpus/.
# Each mutant goes through gen built with AddressSanitizer and UBSan (the
# one tests/negative/run.sh builds: build/tests/negative/gen-asan, made
# here when missing or stale) for every target, and the C of the c target
# through cc -std=c11 -fsyntax-only (sources and headers).  A FAIL is any
# of: a signal, a sanitizer report, a run over 20 s, an exit other than 0,
# 1 or 2, exit 1 without an "error:" line last on stderr or with files
# left in the output folder, exit 0 with C that does not compile.  The
# mutant and the reason are kept in build/tests/fuzz/findings/.
#
# First the reproducers of findings already fixed (tests/fuzz/found/): each
# must give exit 0, no sanitizer report and, on the c target, C that
# compiles; then every file to be mutated as it is (fuzz/as-is/...): no
# sanitizer report on any target.
#
# LT_FUZZ_N (mutants; default 100000 with LT_FUZZ_SECONDS=60 as the cap),
# LT_FUZZ_SECONDS (0: no cap; default 60 without LT_FUZZ_N, else 0),
# LT_FUZZ_SEED (default 1), LT_FUZZ_TIMEOUT (seconds a run may take; 20),
# LT_FUZZ_LOG (a file: one line per run, "MUTANT TARGET EXIT last-stderr-line").
# Prints PASS / FAIL / SKIP lines and exits 0.
{ # read whole before it runs: a long run is not thrown off by an edit of this file
cd "$(dirname "$0")/../.." || exit 0
ROOT=$(pwd)
if [ -n "${LT_FUZZ_N:-}" ]; then N=$LT_FUZZ_N; SECONDS_CAP=${LT_FUZZ_SECONDS:-0}
else N=100000; SECONDS_CAP=${LT_FUZZ_SECONDS:-60}; fi
SEED=${LT_FUZZ_SEED:-1}
TIMEOUT=${LT_FUZZ_TIMEOUT:-20}
TARGETS="sm80 sm90a gfx90a gfx942 gfx1100 c"
LUA=$(command -v lua5.4 || command -v lua)
CC=${CC:-cc}
ASAN=build/tests/negative/gen-asan
FINDINGS=build/tests/fuzz/findings

if [ -z "$LUA" ]; then echo "SKIP fuzz/run: no lua5.4 to run the mutator"; exit 0; fi
if [ ! -f build/embed_text.c ]; then echo "SKIP fuzz/run: build/embed_text.c missing (./build.sh gen makes it)"; exit 0; fi

# the sanitized gen, as tests/negative/run.sh builds it
srcs=()
for c in gen/*.c gen/*/*.c; do [ -e "$c" ] && [ "$c" != gen/embed.c ] && srcs+=("$c"); done
fresh=1
[ -x "$ASAN" ] || fresh=0
for c in "${srcs[@]}" gen/*.h gen/*/*.h build/embed_text.c; do [ "$c" -nt "$ASAN" ] && fresh=0; done
mkdir -p build/tests/negative "$FINDINGS"
if [ "$fresh" = 0 ] && ! $CC -std=c11 -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
    -D_POSIX_C_SOURCE=200809L -I/usr/include/lua5.4 -Igen -o "$ASAN" "${srcs[@]}" build/embed_text.c \
    -llua5.4 -lm 2>build/tests/fuzz/asan_build.log; then
  echo "SKIP fuzz/run: cannot build gen with -fsanitize=address,undefined: $(head -c 200 build/tests/fuzz/asan_build.log)"
  exit 0
fi

WORK=$(mktemp -d "$ROOT/build/tests/fuzz/run.XXXXXX") || { echo "FAIL fuzz/setup: no temp dir"; exit 0; }
trap 'rm -rf "$WORK"' EXIT
shopt -s nullglob
files=(dsl/kernels/*.lua docs/examples/*.lua tests/golden/kernels/*.lua tests/fuzz/corpus/*.lua)

export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:handle_segv=1
export UBSAN_OPTIONS=print_stacktrace=1

# sanitizer_report FILE: when gen's stderr in FILE holds a sanitizer report,
# prints its first line (status 0); else status 1
sanitizer_report() {
  grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer|SUMMARY: ' "$1" || return 1
  grep -m1 -E 'ERROR|runtime error:|SUMMARY' "$1" | head -c 240
}

# the findings already fixed: exit 0 on every target, C that compiles on c
for f in tests/fuzz/found/*.lua; do
  name=$(basename "$f" .lua) why=""
  for t in $TARGETS; do
    out="$WORK/found_$t"
    rm -rf "$out"
    timeout -k 5 "$TIMEOUT" "$ASAN" "$f" --target "$t" -o "$out" >/dev/null 2>"$WORK/stderr"
    rc=$?
    if [ $rc -ne 0 ]; then why="$t: exit $rc: $(tail -n 1 "$WORK/stderr" | head -c 200)"; break; fi
    if rep=$(sanitizer_report "$WORK/stderr"); then why="$t: sanitizer: $rep"; break; fi
    if [ "$t" = c ]; then
      for c in "$out"/*.c; do
        $CC -std=c11 -fsyntax-only -w "$c" >"$WORK/cc.log" 2>&1 ||
          why="c: C that does not compile: $(grep -m1 error "$WORK/cc.log" | head -c 200)"
      done
    fi
  done
  if [ -z "$why" ]; then echo "PASS fuzz/found/$name"; else echo "FAIL fuzz/found/$name: $why"; fi
done
# the files themselves, before any mutation: every variant on every target
# through the sanitized gen, no sanitizer report (exit 0, or 1 with an
# error line for the corpus's hostile files)
for f in "${files[@]}"; do
  name=$(basename "$f" .lua) why=""
  for t in $TARGETS; do
    rm -rf "$WORK/as_is"
    timeout -k 5 "$TIMEOUT" "$ASAN" "$f" --target "$t" -o "$WORK/as_is" >/dev/null 2>"$WORK/stderr"
    rc=$?
    if rep=$(sanitizer_report "$WORK/stderr"); then why="$t: sanitizer: $rep"; break; fi
    if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then why="$t: exit $rc: $(tail -n 1 "$WORK/stderr" | head -c 200)"; break; fi
  done
  if [ -z "$why" ]; then echo "PASS fuzz/as-is/$(basename "$(dirname "$f")")/$name"
  else echo "FAIL fuzz/as-is/$(basename "$(dirname "$f")")/$name: $why"; fi
done
fails=0 runs=0 done_n=0 ok=0 compiled=0
start=$(date +%s)
for i in $(seq 1 "$N"); do
  if [ "$SECONDS_CAP" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$SECONDS_CAP" ]; then break; fi
  m="$WORK/mutant.lua"
  what=$("$LUA" tests/fuzz/mutate.lua "$SEED" "$i" "$m" "${files[@]}" 2>&1) || {
    echo "FAIL fuzz/mutator: mutant $i: $what"; fails=$((fails + 1)); break; }
  done_n=$i
  for t in $TARGETS; do
    out="$WORK/out_$t"
    rm -rf "$out"
    timeout -k 5 "$TIMEOUT" "$ASAN" "$m" --target "$t" -o "$out" >"$WORK/stdout" 2>"$WORK/stderr"
    rc=$?
    runs=$((runs + 1))
    [ $rc -eq 0 ] && ok=$((ok + 1))
    [ -n "${LT_FUZZ_LOG:-}" ] && echo "$i $t $rc $(tail -n 1 "$WORK/stderr" | sed "s#$WORK/##" | head -c 200)" >>"$LT_FUZZ_LOG"
    why=""
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why="ran over ${TIMEOUT}s"
    elif [ $rc -ge 128 ]; then why="killed by signal $((rc - 128))"
    elif rep=$(sanitizer_report "$WORK/stderr"); then why="sanitizer: $rep"
    elif [ $rc -gt 2 ]; then why="exit $rc"
    elif [ $rc -eq 1 ] && ! tail -n 1 "$WORK/stderr" | grep -q 'error: '; then
      why="exit 1 without an error line: '$(tail -n 1 "$WORK/stderr" | head -c 200)'"
    elif [ $rc -eq 1 ] && [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then why="exit 1 with files left: $(ls -A "$out" | head -3 | tr '\n' ' ')"
    elif [ $rc -eq 0 ] && [ "$t" = c ]; then
      : >"$WORK/cc.log"
      for f in "$out"/*.c "$out"/*.h; do
        [ -e "$f" ] || continue
        case "$f" in *.h) lang=(-x c) ;; *) lang=() ;; esac
        $CC -std=c11 -fsyntax-only -w "${lang[@]}" "$f" >>"$WORK/cc.log" 2>&1 || why="C that does not compile: $(basename "$f")"
      done
      [ -z "$why" ] && compiled=$((compiled + 1))
      [ -n "$why" ] && why="$why: $(grep -m1 'error' "$WORK/cc.log" | head -c 240)"
    fi
    if [ -n "$why" ]; then
      fails=$((fails + 1))
      keep="$FINDINGS/$SEED-$i-$t"
      cp "$m" "$keep.lua"
      { echo "mutant $i of seed $SEED, target $t: $why"; echo "made from $what"; echo "--- stderr"; head -c 4000 "$WORK/stderr"; } >"$keep.txt"
      echo "FAIL fuzz/$SEED-$i/$t: $why (mutant: $keep.lua; $what)"
      break
    fi
  done
done
if [ $fails -eq 0 ]; then
  echo "PASS fuzz/run ($done_n mutants of seed $SEED, $runs runs of gen on $(echo $TARGETS | wc -w) targets: $ok wrote files, $compiled c-target sets compiled; $(($(date +%s) - start)) s)"
fi
exit 0
}
