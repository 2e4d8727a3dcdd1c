#!/usr/bin/env bash
# tests/negative/run.sh: bad kernel files must fail cleanly.
#
# Every tests/negative/NAME.lua starts with
#   -- expect: <the exact line gen must print on stderr>
# and may have, on its second line,
#   -- args: <gen arguments instead of the default "--target sm80">
# gen runs as  $LT_GEN NAME.lua ARGS -o FRESH_DIR/out  and must: exit 1, print
# nothing on stdout and exactly the expected line on stderr, not crash (no
# signal, no sanitizer or "Segmentation" text), not hang (killed after
# $LT_NEG_TIMEOUT seconds), and leave no output (FRESH_DIR/out empty or absent).
# A kernel's tuned-config file is named with "-- args: ... --tuned
# tests/negative/tuned/X.lua"; the expected line is then the tuned file's.
# Then usage errors: exit 2, and a missing file: exit 1 with "PATH: error: ...";
# the good files of tests/negative/accept/ must be taken (exit 0); and the
# notes (tests/negative/notes/): good kernels, exit 0, one note line.
# Last, every bad file again through a gen built from gen/**.c with
# AddressSanitizer and UBSan (build/tests/negative/gen-asan): a memory error
# on an error path need not crash the plain build (checks negative/asan/NAME;
# SKIP when no such build can be made; LT_NEG_ASAN=0 turns it off).
#
# Prints one line per check (PASS/FAIL/SKIP name...) and exits 0.
cd "$(dirname "$0")/../.." || exit 0
GEN=${LT_GEN:-build/gen}
TIMEOUT=${LT_NEG_TIMEOUT:-60}   # the endless-loop files take 4 s of CPU to hit the step limit; 20 s was exceeded once on a loaded 2-core machine

if [ ! -x "$GEN" ]; then
  echo "FAIL negative/gen: $GEN is not an executable (build it: ./build.sh gen)"
  exit 0
fi
mkdir -p build/tests/negative
WORK=$(mktemp -d build/tests/negative/run.XXXXXX) || { echo "FAIL negative/setup: cannot make a temp dir"; exit 0; }
trap 'rm -rf "$WORK"' EXIT

# crashed RC ERRFILE: prints why if the run looks like a crash or a hang.
crashed() {
  local rc=$1 err=$2
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "hung: killed after ${TIMEOUT}s"; return; fi
  if [ "$rc" -ge 128 ]; then echo "killed by signal $((rc - 128))"; return; fi
  if grep -qE 'Segmentation|Aborted|core dumped|AddressSanitizer|runtime error:|panic|PANIC' "$err"; then
    echo "crash text on stderr"
  fi
}

# show FILE: the first two lines of a file on one line, for a FAIL message.
show() { head -c 400 "$1" | head -n 2 | tr '\n' '|' | sed 's/|$//'; }

for f in tests/negative/*.lua; do
  name=$(basename "$f" .lua)
  expect=$(sed -n '1s/^-- expect: //p' "$f")
  if [ -z "$expect" ]; then
    echo "FAIL negative/$name: first line is not '-- expect: <stderr line>'"
    continue
  fi
  args=$(sed -n '2s/^-- args: //p' "$f")
  [ -n "$args" ] || args="--target sm80"
  dir="$WORK/$name"
  mkdir -p "$dir"
  # shellcheck disable=SC2086  # args is a word list on purpose
  timeout -k 5 "$TIMEOUT" "$GEN" "$f" $args -o "$dir/out" >"$dir/stdout" 2>"$dir/stderr"
  rc=$?
  why=()
  c=$(crashed "$rc" "$dir/stderr")
  [ -n "$c" ] && why+=("$c")
  [ "$rc" -eq 1 ] || [ -n "$c" ] || why+=("exit $rc, want 1")
  lines=$(wc -l <"$dir/stderr")
  if [ "$(cat "$dir/stderr")" != "$expect" ] || [ "$lines" -ne 1 ]; then
    why+=("stderr ($lines lines) is '$(show "$dir/stderr")', want '$expect'")
  fi
  [ -s "$dir/stdout" ] && why+=("stdout not empty: '$(show "$dir/stdout")'")
  if [ -e "$dir/out" ] && [ -n "$(ls -A "$dir/out")" ]; then
    why+=("output left behind: $(ls -A "$dir/out" | tr '\n' ' ')")
  fi
  if [ ${#why[@]} -eq 0 ]; then
    echo "PASS negative/$name"
  else
    msg=$(printf '%s; ' "${why[@]}")
    echo "FAIL negative/$name: ${msg%; }"
  fi
done

# usage NAME WANT_RC [says:TEXT] ARGS...: gen must exit WANT_RC, not crash,
# print at least one line on stderr (one holding TEXT when given), and make
# no output directory.
usage() {
  local name=$1 want=$2 says=
  shift 2
  case "${1:-}" in says:*) says=${1#says:}; shift ;; esac
  local dir="$WORK/usage_$name"
  mkdir -p "$dir"
  timeout -k 5 "$TIMEOUT" "$GEN" "$@" >"$dir/stdout" 2>"$dir/stderr"
  local rc=$? why=()
  local c
  c=$(crashed "$rc" "$dir/stderr")
  [ -n "$c" ] && why+=("$c")
  [ "$rc" -eq "$want" ] || [ -n "$c" ] || why+=("exit $rc, want $want")
  [ -s "$dir/stderr" ] || why+=("nothing on stderr")
  [ -n "$says" ] && ! grep -qF -- "$says" "$dir/stderr" && why+=("stderr '$(show "$dir/stderr")' does not say '$says'")
  [ -e "$dir/out" ] && why+=("made the output directory")
  if [ ${#why[@]} -eq 0 ]; then
    echo "PASS negative/usage_$name"
  else
    msg=$(printf '%s; ' "${why[@]}")
    echo "FAIL negative/usage_$name: ${msg%; }"
  fi
}

ok=dsl/kernels/add.lua
u="$WORK/usage_"
usage unknown_target 2 "$ok" --target sm99 -o "${u}unknown_target/out"
usage missing_target 2 "$ok" -o "${u}missing_target/out"
usage target_no_value 2 "$ok" -o "${u}target_no_value/out" --target
usage missing_outdir 2 "$ok" --target sm80
usage unknown_option 2 "$ok" --target sm80 -o "${u}unknown_option/out" --frobnicate
usage define_no_equals 2 "$ok" --target sm80 -o "${u}define_no_equals/out" -D BLOCK
usage define_empty_key 2 "$ok" --target sm80 -o "${u}define_empty_key/out" -D =3
usage no_file 2 --target sm80 -o "${u}no_file/out"
usage two_files 2 "$ok" "$ok" --target sm80 -o "${u}two_files/out"
usage shape_not_sizes 2 "says:gen: --shape 'N=big' is not NAME=NUMBER" "$ok" --target sm80 -o "${u}shape_not_sizes/out" --shape N=big
usage shape_twice_a_key 2 "says:gen: --shape 'N=4,N=8' gives N twice" "$ok" --target sm80 -o "${u}shape_twice_a_key/out" --shape N=4,N=8
usage shape_no_value 2 "says:gen: --shape needs a value" "$ok" --target sm80 -o "${u}shape_no_value/out" --shape
usage device_no_value 2 "says:gen: --device needs a value" "$ok" --target sm80 -o "${u}device_no_value/out" --device
usage tuned_and_no_tuned 2 "says:gen: --tuned and --no-tuned contradict" "$ok" --target sm80 -o "${u}tuned_and_no_tuned/out" --tuned x.lua --no-tuned
usage list_unknown_target 2 "says:gen: unknown target 'sm99'" "$ok" --list --target sm99
# a shipped kernel's own config check: attention_decode's combine rows (CM) must divide a split's block of workspace rows (WB)
usage decode_combine_rows 1 "says:error: CM = 128 does not divide WB = 64" dsl/kernels/attention_decode.lua --target sm80 -D pass=combine -D CM=128 -o "${u}decode_combine_rows/out"

# missing_file NAME PATH ARGS...: exit 1, one line "PATH: error: cannot read ...".
missing_file() {
  local name=$1 path=$2
  shift 2
  local dir="$WORK/file_$name"
  mkdir -p "$dir"
  timeout -k 5 "$TIMEOUT" "$GEN" "$path" "$@" -o "$dir/out" >"$dir/stdout" 2>"$dir/stderr"
  local rc=$? why=()
  local c
  c=$(crashed "$rc" "$dir/stderr")
  [ -n "$c" ] && why+=("$c")
  [ "$rc" -eq 1 ] || [ -n "$c" ] || why+=("exit $rc, want 1")
  local lines
  lines=$(wc -l <"$dir/stderr")
  case "$(cat "$dir/stderr")" in
    "$path: error: cannot read"*) [ "$lines" -eq 1 ] || why+=("$lines lines on stderr, want 1") ;;
    *) why+=("stderr is '$(show "$dir/stderr")', want '$path: error: cannot read ...'") ;;
  esac
  [ -e "$dir/out" ] && why+=("made the output directory")
  if [ ${#why[@]} -eq 0 ]; then
    echo "PASS negative/file_$name"
  else
    msg=$(printf '%s; ' "${why[@]}")
    echo "FAIL negative/file_$name: ${msg%; }"
  fi
}

missing_file missing tests/negative/no_such_kernel.lua --target sm80
missing_file missing_list tests/negative/no_such_kernel.lua --list
missing_file directory tests/negative --target sm80

# Notes: every tests/negative/notes/NAME.lua starts with
#   -- note: <the exact line gen must print on stderr>   (or "-- note: none")
#   -- args: <gen arguments>
# and is a good kernel with a config value that has no effect on the target.
# gen must exit 0, write its files and print the note alone on stderr (once,
# however many variants give it), the same under --explain after the plan,
# and nothing on stderr under --list.
for f in tests/negative/notes/*.lua; do
  name=$(basename "$f" .lua)
  expect=$(sed -n '1s/^-- note: //p' "$f")
  [ "$expect" = none ] && expect=
  args=$(sed -n '2s/^-- args: //p' "$f")
  dir="$WORK/note_$name"
  mkdir -p "$dir"
  why=()
  # shellcheck disable=SC2086
  timeout -k 5 "$TIMEOUT" "$GEN" "$f" $args -o "$dir/out" >"$dir/stdout" 2>"$dir/stderr"
  rc=$?
  [ "$rc" -eq 0 ] || why+=("exit $rc, want 0")
  [ "$(cat "$dir/stderr")" = "$expect" ] || why+=("stderr is '$(show "$dir/stderr")', want '$expect'")
  [ -n "$(ls -A "$dir/out" 2>/dev/null)" ] || why+=("wrote no files")
  # shellcheck disable=SC2086
  timeout -k 5 "$TIMEOUT" "$GEN" "$f" $args --explain >"$dir/explain" 2>"$dir/explain.err"
  rc=$?
  [ "$rc" -eq 0 ] || why+=("--explain: exit $rc, want 0")
  [ "$(cat "$dir/explain.err")" = "$expect" ] || why+=("--explain: stderr is '$(show "$dir/explain.err")', want '$expect'")
  # shellcheck disable=SC2086
  timeout -k 5 "$TIMEOUT" "$GEN" "$f" $args --list >"$dir/list" 2>"$dir/list.err"
  [ -s "$dir/list.err" ] && why+=("--list: stderr is '$(show "$dir/list.err")', want nothing")
  if [ ${#why[@]} -eq 0 ]; then
    echo "PASS negative/note/$name"
  else
    msg=$(printf '%s; ' "${why[@]}")
    echo "FAIL negative/note/$name: ${msg%; }"
  fi
done

# a good kernel file whose name holds a newline: refused, since the name
# goes into comments of the output (exit 1, one line, no output folder)
d="$WORK/file_newline"
mkdir -p "$d"
nl="$d/$(printf 'add\nx.lua')"
cp dsl/kernels/add.lua "$nl"
timeout -k 5 "$TIMEOUT" "$GEN" "$nl" --target c -o "$d/out" >"$d/stdout" 2>"$d/stderr"
rc=$?
why=()
c=$(crashed "$rc" "$d/stderr")
[ -n "$c" ] && why+=("$c")
[ "$rc" -eq 1 ] || [ -n "$c" ] || why+=("exit $rc, want 1")
[ "$(wc -l <"$d/stderr")" -eq 1 ] && grep -q "holds a control character" "$d/stderr" ||
  why+=("stderr is '$(show "$d/stderr")', want one line about the control character")
[ -e "$d/out" ] && why+=("made the output directory")
if [ ${#why[@]} -eq 0 ]; then echo "PASS negative/file_name_newline"; else
  msg=$(printf '%s; ' "${why[@]}"); echo "FAIL negative/file_name_newline: ${msg%; }"; fi

# accept NAME: tests/negative/accept/NAME.lua is a good kernel file that
# looks odd (a byte order mark, a #! line, its own changes to math, string
# and table); gen must take it: exit 0, nothing on stderr, files written.
for f in tests/negative/accept/*.lua; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .lua)
  dir="$WORK/accept_$name"
  mkdir -p "$dir"
  timeout -k 5 "$TIMEOUT" "$GEN" "$f" --target c -o "$dir/out" >"$dir/stdout" 2>"$dir/stderr"
  rc=$?
  why=()
  c=$(crashed "$rc" "$dir/stderr")
  [ -n "$c" ] && why+=("$c")
  [ "$rc" -eq 0 ] || [ -n "$c" ] || why+=("exit $rc, want 0: '$(show "$dir/stderr")'")
  [ "$rc" -ne 0 ] || [ ! -s "$dir/stderr" ] || why+=("stderr not empty: '$(show "$dir/stderr")'")
  [ "$rc" -ne 0 ] || [ -s "$dir/out/$name.c" ] || why+=("no $name.c written")
  if [ ${#why[@]} -eq 0 ]; then
    echo "PASS negative/accept/$name"
  else
    msg=$(printf '%s; ' "${why[@]}")
    echo "FAIL negative/accept/$name: ${msg%; }"
  fi
done

# the bad files again under AddressSanitizer + UBSan
asan_pass() {
  local bin=build/tests/negative/gen-asan srcs=() c
  for c in gen/*.c gen/*/*.c; do [ -e "$c" ] && [ "$c" != gen/embed.c ] && srcs+=("$c"); done
  if [ ! -f build/embed_text.c ]; then
    echo "SKIP negative/asan: build/embed_text.c missing (./build.sh gen makes it)"
    return
  fi
  local fresh=1
  [ -x "$bin" ] || fresh=0
  for c in "${srcs[@]}" gen/*.h gen/*/*.h build/embed_text.c; do [ "$c" -nt "$bin" ] && fresh=0; done
  if [ "$fresh" = 0 ] && ! ${CC:-cc} -std=c11 -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
      -D_POSIX_C_SOURCE=200809L -I/usr/include/lua5.4 -Igen -o "$bin" "${srcs[@]}" build/embed_text.c \
      -llua5.4 -lm 2>"$WORK/asan_build.log"; then
    echo "SKIP negative/asan: cannot build gen with -fsanitize=address,undefined: $(head -c 200 "$WORK/asan_build.log")"
    return
  fi
  local f name args dir rc why
  for f in tests/negative/*.lua; do
    name=$(basename "$f" .lua)
    case "$name" in infinite_loop*) continue ;; esac   # they test the step limit, not memory
    args=$(sed -n '2s/^-- args: //p' "$f")
    [ -n "$args" ] || args="--target sm80"
    dir="$WORK/asan_$name"
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
      timeout -k 5 "$TIMEOUT" "$bin" "$f" $args -o "$dir/out" >"$dir/stdout" 2>"$dir/stderr"
    rc=$?
    why=""
    grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer|SUMMARY:' "$dir/stderr" &&
      why="sanitizer report: $(grep -m1 -E 'ERROR|runtime error:|SUMMARY' "$dir/stderr" | head -c 300)"
    [ -z "$why" ] && [ "$rc" -ne 1 ] && why="exit $rc, want 1"
    if [ -z "$why" ]; then echo "PASS negative/asan/$name"; else echo "FAIL negative/asan/$name: $why"; fi
  done
}
[ "${LT_NEG_ASAN:-1}" = 0 ] || asan_pass
exit 0
