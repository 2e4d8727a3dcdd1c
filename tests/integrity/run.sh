#!/usr/bin/env bash
# tests/integrity/run.sh: gen replaces its output files all at once, or not
# at all (gen/main.c, write_outputs), and stays inside its limits.
#
# The kernel is dsl/kernels/attention.lua on sm90a (40 files).  Two runs
# give the two sets the checks tell apart: OLD with --no-tuned (the
# kernel's own config) and NEW with the tuned configs; 22 of the 40 files
# differ.  A folder is "whole" when its visible files are exactly OLD's
# names and all hold OLD's bytes or all NEW's.
#
#   integrity/kill          gen writing NEW over OLD, killed (SIGKILL) at random
#                           points, LT_INTEGRITY_KILLS times (default 40): the
#                           folder is whole after every kill.  A kill that lands
#                           inside the last renames (microseconds) may leave
#                           them half done, with a marked temporary folder that
#                           the next run into the folder completes.  Where a
#                           killed run left its temporary folder, the next run
#                           must leave NEW and nothing else (the half-done
#                           ones are counted in the PASS line).
#   integrity/race          two gens (OLD and NEW) started together into one
#                           folder, 8 times: both exit 0, the folder is whole.
#   integrity/symlink       links planted at the temporary names an earlier gen
#                           used (.NAME.tmpPID, the pid known before gen runs)
#                           and at an output's own name, pointing at a file
#                           outside: that file is never written, the output
#                           name becomes a plain file.
#   integrity/symlink_lock  a link planted at DIR/.gen.lock: gen refuses (exit
#                           1), the file it points at is untouched.
#   integrity/fail          one output name taken by a folder: gen fails (exit
#                           1) and the other files keep OLD's bytes (none
#                           deleted, none half replaced).
#   integrity/memory_*      a kernel file that allocates without end stops at
#                           the 1 GiB limit with the peak resident set under
#                           1.2 GiB (Lua's memory, and gen's own IR); SKIP
#                           without /usr/bin/time.
#
# Prints PASS / FAIL / SKIP lines and exits 0.  LT_GEN: the gen binary.
cd "$(dirname "$0")/../.." || exit 0
ROOT=$(pwd)
GEN=${LT_GEN:-build/gen}
case "$GEN" in /*) ;; *) GEN="$ROOT/$GEN" ;; esac
KERNEL=dsl/kernels/attention.lua
ARGS=(--target sm90a)
KILLS=${LT_INTEGRITY_KILLS:-40}

if [ ! -x "$GEN" ]; then
  echo "FAIL integrity/gen: $GEN is not an executable (build it: ./build.sh gen)"
  exit 0
fi
mkdir -p build/tests/integrity
WORK=$(mktemp -d "$ROOT/build/tests/integrity/run.XXXXXX") || { echo "FAIL integrity/setup: no temp dir"; exit 0; }
trap 'rm -rf "$WORK"' EXIT

"$GEN" "$KERNEL" "${ARGS[@]}" --no-tuned -o "$WORK/OLD" 2>"$WORK/err" &&
  "$GEN" "$KERNEL" "${ARGS[@]}" -o "$WORK/NEW" 2>>"$WORK/err" || {
  echo "FAIL integrity/setup: gen failed on $KERNEL: $(head -c 300 "$WORK/err")"
  exit 0
}
NAMES=$(cd "$WORK/OLD" && ls)
if [ "$NAMES" != "$(cd "$WORK/NEW" && ls)" ] || diff -rq "$WORK/OLD" "$WORK/NEW" >/dev/null; then
  echo "FAIL integrity/setup: the OLD and NEW sets must have the same names and differ"
  exit 0
fi

# whole DIR: prints OLD or NEW when DIR is whole, else what is wrong.
whole() {
  local d=$1 vis
  vis=$(cd "$d" && ls)
  if [ "$vis" != "$NAMES" ]; then
    echo "files are not OLD's names: $(diff <(echo "$NAMES") <(echo "$vis") | grep '^[<>]' | head -3 | tr '\n' ' ')"
    return
  fi
  local set
  for set in OLD NEW; do
    local ok=1 f
    for f in $NAMES; do cmp -s "$d/$f" "$WORK/$set/$f" || { ok=0; break; }; done
    [ $ok = 1 ] && { echo $set; return; }
  done
  local o=0 n=0 f
  for f in $NAMES; do
    if cmp -s "$d/$f" "$WORK/OLD/$f"; then o=$((o + 1)); elif cmp -s "$d/$f" "$WORK/NEW/$f"; then n=$((n + 1)); fi
  done
  echo "mixed: $o files hold OLD's bytes only, $n NEW's only"
}

# reset DIR: DIR holds the OLD set and nothing else.
reset() { rm -rf "$1"; cp -r "$WORK/OLD" "$1"; }

# stray DIR: temporary files or folders a run left (apart from the lock and
# one marked folder that the next run completes), to name in a FAIL.
stray() { (cd "$1" && ls -A | grep -v -x -e '.gen.lock' | grep '^\.' | tr '\n' ' '); }

# ---- kill at random points
d="$WORK/kill"
start=$(date +%s%N)
"$GEN" "$KERNEL" "${ARGS[@]}" -o "$WORK/timing" 2>/dev/null
span=$(( ($(date +%s%N) - start) / 1000 ))   # microseconds a run takes here
[ "$span" -lt 2000 ] && span=2000
fails=() olds=0 news=0 finished=0
for i in $(seq 1 "$KILLS"); do
  reset "$d"
  "$GEN" "$KERNEL" "${ARGS[@]}" -o "$d" 2>/dev/null &
  pid=$!
  us=$(( (RANDOM * 32768 + RANDOM) % (span * 5 / 4) ))
  sleep "$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))"
  kill -KILL $pid 2>/dev/null
  wait $pid 2>/dev/null
  w=$(whole "$d")
  left=$(stray "$d")
  case "$w" in
    OLD) olds=$((olds + 1)) ;;
    NEW) news=$((news + 1)) ;;
    *) ls -d "$d"/.gen.*/.commit >/dev/null 2>&1 || fails+=("kill $i after ${us}us: $w${left:+; left behind: $left}") ;;
  esac
  for t in $left; do
    case "$t" in .gen.*) ;; *) fails+=("kill $i after ${us}us: left behind $t") ;; esac
  done
  if [ -n "$left" ]; then   # the killed run's temporary folder: the next run completes or removes it
    "$GEN" "$KERNEL" "${ARGS[@]}" -o "$d" 2>/dev/null
    w2=$(whole "$d")
    if [ "$w2" = NEW ] && [ -z "$(stray "$d")" ]; then
      case "$w" in OLD | NEW) ;; *) finished=$((finished + 1)) ;; esac
    else
      fails+=("kill $i after ${us}us: $w, left $left, and the next run left: $w2 $(stray "$d")")
    fi
  fi
done
if [ ${#fails[@]} -eq 0 ]; then
  echo "PASS integrity/kill ($KILLS kills: $olds left OLD, $news NEW, $finished completed by the next run)"
else
  echo "FAIL integrity/kill: ${#fails[@]} of $KILLS: ${fails[0]}${fails[1]:+; ${fails[1]}}"
fi

# ---- two runs at once into one folder
d="$WORK/race"
fails=()
for i in 1 2 3 4 5 6 7 8; do
  reset "$d"
  "$GEN" "$KERNEL" "${ARGS[@]}" --no-tuned -o "$d" 2>"$WORK/race_a" & a=$!
  "$GEN" "$KERNEL" "${ARGS[@]}" -o "$d" 2>"$WORK/race_b" & b=$!
  wait $a; ra=$?
  wait $b; rb=$?
  w=$(whole "$d")
  { [ $ra -eq 0 ] && [ $rb -eq 0 ]; } || fails+=("race $i: exits $ra and $rb: $(head -c 200 "$WORK/race_a" "$WORK/race_b")")
  { [ "$w" = OLD ] || [ "$w" = NEW ]; } || fails+=("race $i: $w")
  [ -z "$(stray "$d")" ] || fails+=("race $i: left behind $(stray "$d")")
done
if [ ${#fails[@]} -eq 0 ]; then echo "PASS integrity/race"; else echo "FAIL integrity/race: ${fails[0]}"; fi

# ---- links planted at the temporary names and at an output's name
d="$WORK/link"
reset "$d"
victim="$WORK/victim"
echo "not gen's to write" >"$victim"
first=$(echo "$NAMES" | head -1)
rm -f "$d/$first"
ln -s "$victim" "$d/$first"
mkfifo "$WORK/go"
( read -r _ <"$WORK/go"; exec "$GEN" "$KERNEL" "${ARGS[@]}" -o "$d" 2>"$WORK/link_err" ) &
pid=$!
for f in $NAMES; do ln -s "$victim" "$d/.$f.tmp$pid"; done   # the names gen's writer once used
echo go >"$WORK/go"
wait $pid
rc=$?
find "$d" -maxdepth 1 -name '.*.tmp*' -type l -delete
why=()
[ $rc -eq 0 ] || why+=("exit $rc: $(head -c 200 "$WORK/link_err")")
[ "$(cat "$victim")" = "not gen's to write" ] || why+=("the file a planted link points at was written")
[ -f "$d/$first" ] && [ ! -L "$d/$first" ] || why+=("$first is not a plain file")
w=$(whole "$d")
[ "$w" = NEW ] || why+=("folder: $w")
if [ ${#why[@]} -eq 0 ]; then echo "PASS integrity/symlink"; else echo "FAIL integrity/symlink: ${why[*]}"; fi

d="$WORK/lock"
reset "$d"
echo "not gen's to write" >"$victim"
ln -s "$victim" "$d/.gen.lock"
"$GEN" "$KERNEL" "${ARGS[@]}" -o "$d" 2>"$WORK/lock_err"
rc=$?
why=()
[ $rc -eq 1 ] || why+=("exit $rc, want 1")
[ "$(cat "$victim")" = "not gen's to write" ] || why+=("the file the planted lock link points at was written")
rm -f "$d/.gen.lock"
w=$(whole "$d")
[ "$w" = OLD ] || why+=("folder: $w")
if [ ${#why[@]} -eq 0 ]; then echo "PASS integrity/symlink_lock"; else echo "FAIL integrity/symlink_lock: ${why[*]}"; fi

# ---- a failure part-way: the folder as before
d="$WORK/fail"
reset "$d"
last=$(echo "$NAMES" | tail -1)
rm -f "$d/$last"
mkdir "$d/$last"
"$GEN" "$KERNEL" "${ARGS[@]}" -o "$d" 2>"$WORK/fail_err"
rc=$?
why=()
[ $rc -eq 1 ] || why+=("exit $rc, want 1")
grep -q "$last" "$WORK/fail_err" || why+=("stderr '$(head -c 200 "$WORK/fail_err")' does not name $last")
rmdir "$d/$last" 2>/dev/null
cp "$WORK/OLD/$last" "$d/$last"
w=$(whole "$d")
[ "$w" = OLD ] || why+=("the other files: $w")
[ -z "$(stray "$d")" ] || why+=("left behind $(stray "$d")")
if [ ${#why[@]} -eq 0 ]; then echo "PASS integrity/fail"; else echo "FAIL integrity/fail: ${why[*]}"; fi

# ---- the memory limit holds for the resident set
if [ -x /usr/bin/time ]; then
  for f in tests/negative/memory_bomb.lua tests/negative/memory_gen_arena.lua; do
    n=$(basename "$f" .lua)
    # a gen without the limit would take the machine's memory: 4 GiB of address space stops it first
    ( ulimit -v $((4 * 1024 * 1024))
      exec /usr/bin/time -f "%M" -o "$WORK/rss_$n" "$GEN" "$f" --target sm80 -o "$WORK/mem_$n" >/dev/null 2>"$WORK/mem_err_$n" )
    rc=$?
    kb=$(tail -1 "$WORK/rss_$n")
    if [ $rc -eq 1 ] && grep -q "over 1 GiB of memory" "$WORK/mem_err_$n" && [ "$kb" -lt $((1200 * 1024)) ]; then
      echo "PASS integrity/memory_$n (peak $((kb / 1024)) MiB)"
    else
      echo "FAIL integrity/memory_$n: exit $rc, peak $((kb / 1024)) MiB (want exit 1 under 1200 MiB): $(head -c 200 "$WORK/mem_err_$n")"
    fi
  done
else
  echo "SKIP integrity/memory: /usr/bin/time is missing"
fi
exit 0
